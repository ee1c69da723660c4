// npx tsx bench/top.ts FILE.cpuprofile [N]
// The functions a V8 CPU profile (node --cpu-prof, or npm run bench -- --profile DIR) spent
// the most time in, by self time, and the time by where the code lives (our src/, a
// package, node's internals), so a look at the profile needs no browser.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function place(url: string): string {
  if (url === '') return '(native / VM)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return (rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : rest[0]) ?? url;
  }
  if (url.startsWith('node:')) return 'node internals';
  const src = url.indexOf('/dist/');
  return src >= 0 ? `dist/${url.slice(src + 6).split('/').slice(0, -1).join('/') || '.'}` : url;
}

function main(file: string, count: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const where = frame.functionName.startsWith('(') ? frame.functionName : place(frame.url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + us);
  }
  const show = (title: string, map: Map<string, number>, n: number): void => {
    process.stdout.write(`${title}\n`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      process.stdout.write(`${(us / 1000).toFixed(0).padStart(8)} ms ${((us / totalUs) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
    }
  };
  process.stdout.write(`profile of ${(totalUs / 1e6).toFixed(2)} s\n`);
  show('by place', byPlace, 15);
  show(`top ${count} functions by self time`, byFunction, count);
}

const [file, n] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: npx tsx bench/top.ts FILE.cpuprofile [N]\n');
  process.exitCode = 2;
} else {
  main(file, Number(n ?? 25));
}

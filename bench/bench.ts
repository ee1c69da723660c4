// npm run bench -- [--targets 10000] [--runs 40000] [--namespaces 50] [--pr-kb 8] [--tr-kb 4]
//   [--qps 50] [--live-deletes 2000] [--scale 1,2,4] [--reuse] [--repeat 3] [--watch-cache]
//   [--node-flags "..."] ...
//
// Starts the local control plane, seeds it through the API (or reuses seeded data), then
// measures on the same server: the read floor, the collector's dry-run pass (wall time,
// peak RSS, API requests, ratio to the floor) and a live pass deleting at --qps. Prints a
// table, then one JSON line on stdout. Progress goes to stderr. Results: bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../harness/controlplane.js';
import { deleteRate, imageNodeFlags, median, readFloor, readFloorInChild, runCollector, type CliRun, type FloorResult } from './measure.js';
import { LIVE_NAMESPACE, type ClusterShape } from './objects.js';
import { RawApi, clearLiveTargets, seedCluster, seedLiveTargets, type SeedResult } from './seed.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = 'npm run bench -- --targets 10000 --runs 40000 --scale 1,2 --reuse';

interface BenchFlags {
  shape: ClusterShape;
  scales: number[];
  qps: number;
  liveDeletes: number;
  pageSize: number;
  seedConcurrency: number;
  repeat: number;
  reuse: boolean;
  dataRoot: string;
  profileDir: string | undefined;
  entry: 'dist' | 'src';
  /** Node.js flags for the collector's process: the image's unless --node-flags. */
  nodeFlags: string[];
  build: boolean;
  watchCache: boolean;
}

class UsageError extends Error {}

function positive(name: string, text: string, integer = true): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${name} ${text}: expected a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}

function parseFlags(args: readonly string[]): BenchFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        targets: { type: 'string', default: '10000' },
        runs: { type: 'string', default: '40000' },
        namespaces: { type: 'string', default: '50' },
        'pr-kb': { type: 'string', default: '8' },
        'tr-kb': { type: 'string', default: '4' },
        qps: { type: 'string', default: '50' },
        'live-deletes': { type: 'string', default: '2000' },
        'page-size': { type: 'string', default: '500' },
        'seed-concurrency': { type: 'string', default: '24' },
        repeat: { type: 'string', default: '3' },
        scale: { type: 'string', default: '1' },
        reuse: { type: 'boolean', default: false },
        'data-dir': { type: 'string', default: join(tmpdir(), 'trgc-bench') },
        profile: { type: 'string' },
        entry: { type: 'string', default: 'dist' },
        'node-flags': { type: 'string' },
        'no-build': { type: 'boolean', default: false },
        'watch-cache': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string): string => String(values[name]);
  const entry = text('entry');
  if (entry !== 'dist' && entry !== 'src') throw new UsageError(`--entry ${entry}: expected dist (the built CLI) or src (through tsx)`);
  const scales = text('scale').split(',').map((part) => positive('scale', part.trim(), false));
  return {
    shape: {
      targets: positive('targets', text('targets')),
      runs: positive('runs', text('runs')),
      namespaces: positive('namespaces', text('namespaces')),
      prKb: positive('pr-kb', text('pr-kb'), false),
      trKb: positive('tr-kb', text('tr-kb'), false),
    },
    scales,
    qps: positive('qps', text('qps'), false),
    liveDeletes: positive('live-deletes', text('live-deletes')),
    pageSize: positive('page-size', text('page-size')),
    seedConcurrency: positive('seed-concurrency', text('seed-concurrency')),
    repeat: positive('repeat', text('repeat')),
    reuse: values['reuse'] === true,
    dataRoot: resolve(text('data-dir')),
    profileDir: values['profile'] === undefined ? undefined : resolve(text('profile')),
    entry,
    nodeFlags: values['node-flags'] === undefined ? imageNodeFlags(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')) : text('node-flags').split(' ').filter((flag) => flag !== ''),
    build: values['no-build'] !== true,
    watchCache: values['watch-cache'] === true,
  };
}

function scaled(shape: ClusterShape, scale: number): ClusterShape {
  return { ...shape, targets: Math.round(shape.targets * scale), runs: Math.round(shape.runs * scale) };
}

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

interface ScaleResult {
  scale: number;
  targets: number;
  runs: number;
  namespaces: number;
  seed: (SeedResult & { reused: false }) | { reused: true };
  floor: { ms: number; cpuMs: number; bytes: number; requests: number; items: number; samplesMs: number[] };
  dryRun: {
    ms: number;
    samplesMs: number[];
    cpuMs: number;
    maxRssBytes: number;
    rssMethod: string;
    requests: number;
    retries: number;
    bytesReceived: number;
    ratio: number;
    requestRatio: number;
    summary: { targets: number; runs: number; delete: number; keep: number; reasons: Record<string, number> };
  };
  live: { deletes: number; deleted: number; qps: number; achievedQps: number; withinTenPercent: boolean; ms: number; maxRssBytes: number; requests: number; results: Record<string, number> };
  load: { before: number[]; after: number[] };
}

async function benchScale(flags: BenchFlags, scale: number, entryPath: string): Promise<ScaleResult> {
  const shape = scaled(flags.shape, scale);
  const key = `t${shape.targets}-r${shape.runs}-n${shape.namespaces}-pr${shape.prKb}-tr${shape.trKb}`;
  const dataDir = flags.reuse ? join(flags.dataRoot, key) : undefined;
  const marker = dataDir === undefined ? undefined : join(dataDir, 'seeded.json');
  const reusable = marker !== undefined && existsSync(marker);
  if (dataDir !== undefined && !reusable) await rm(dataDir, { recursive: true, force: true }); // a seed that did not finish
  const loadBefore = loadavg();
  log(`scale ${scale}: ${shape.targets} targets, ${shape.runs} runs in ${shape.namespaces} namespaces${dataDir === undefined ? '' : `; data in ${dataDir}`}`);
  const controlPlane = await startControlPlane({ crds: 'v0.45', ...(dataDir !== undefined && { dataDir }), watchCache: flags.watchCache, log });
  const api = new RawApi(controlPlane.server, controlPlane.adminToken, flags.seedConcurrency);
  try {
    let seed: ScaleResult['seed'];
    if (reusable) {
      log(`reusing the data seeded earlier in ${dataDir}`);
      seed = { reused: true };
    } else {
      seed = { ...(await seedCluster(api, shape, { concurrency: flags.seedConcurrency, log })), reused: false };
      if (marker !== undefined) await writeFile(marker, `${JSON.stringify({ shape, seededAt: new Date().toISOString() })}\n`);
    }
    await clearLiveTargets(api);

    const kubeconfig = controlPlane.kubeconfigPath;
    const common = ['--min-age', '0s', '--page-size', String(flags.pageSize), '--output', 'json', '--kubeconfig', kubeconfig];
    log('warming up: one read of every collection');
    const warm = await readFloor(api, flags.pageSize);
    const expectedItems = warm.items;

    const floors: FloorResult[] = [];
    const dryRuns: CliRun[] = [];
    const floor = (): Promise<FloorResult> => readFloorInChild(controlPlane.server, controlPlane.adminToken, flags.pageSize, ROOT, flags.nodeFlags);
    const dryRun = async (): Promise<CliRun> => checkRun('dry run', await runCollector({ entry: entryPath, nodeFlags: flags.nodeFlags, args: ['--dry-run', ...common], cwd: ROOT }), 0);
    for (let round = 1; round <= flags.repeat; round++) {
      // Which goes first alternates, so that neither always meets the server just after the other.
      if (round % 2 === 1) {
        floors.push(await floor());
        dryRuns.push(await dryRun());
      } else {
        dryRuns.push(await dryRun());
        floors.push(await floor());
      }
      log(`round ${round}/${flags.repeat}: read floor ${seconds(floors.at(-1)?.ms)}, dry run ${seconds(dryRuns.at(-1)?.ms)}, peak RSS ${mib(dryRuns.at(-1)?.maxRssBytes ?? 0)}`);
    }
    if (flags.profileDir !== undefined) {
      const dir = join(flags.profileDir, `scale-${scale}`);
      await mkdir(dir, { recursive: true });
      await runCollector({ entry: entryPath, nodeFlags: flags.nodeFlags, args: ['--dry-run', ...common], cwd: ROOT, cpuProfileDir: dir });
      log(`CPU profile of a dry run written to ${dir}`);
    }

    log(`live pass: seeding ${flags.liveDeletes} unreferenced targets in ${LIVE_NAMESPACE}, deleting them at --qps ${flags.qps}`);
    await seedLiveTargets(api, flags.liveDeletes, { concurrency: flags.seedConcurrency, log });
    const live = await runCollector({
      entry: entryPath,
      nodeFlags: flags.nodeFlags,
      args: ['--namespace', LIVE_NAMESPACE, '--qps', String(flags.qps), '--max-deletions', String(flags.liveDeletes), ...common],
      cwd: ROOT,
    });
    checkRun('live pass', live, 0);
    const achievedQps = deleteRate(live.deletedAt);
    log(`live pass: ${live.deletedAt.length} deleted, ${achievedQps.toFixed(1)}/s against --qps ${flags.qps}`);

    const floorMs = median(floors.map((floor) => floor.ms));
    const dryMs = median(dryRuns.map((run) => run.ms));
    const lastDry = dryRuns.at(-1) as CliRun;
    const summary = lastDry.summary ?? {};
    const floorRequests = floors[0]?.requests ?? 0;
    const dryRequests = summary.api?.requests ?? 0;
    if ((summary.targets ?? 0) + (summary.runs ?? 0) !== expectedItems) {
      log(`warning: the collector saw ${summary.targets} targets and ${summary.runs} runs, the read floor ${expectedItems} objects`);
    }
    return {
      scale,
      targets: shape.targets,
      runs: shape.runs,
      namespaces: shape.namespaces,
      seed,
      floor: { ms: floorMs, cpuMs: median(floors.map((floor) => floor.cpuMs ?? 0)), bytes: floors[0]?.bytes ?? 0, requests: floorRequests, items: expectedItems, samplesMs: floors.map((floor) => round1(floor.ms)) },
      dryRun: {
        ms: dryMs,
        samplesMs: dryRuns.map((run) => round1(run.ms)),
        cpuMs: median(dryRuns.map((run) => run.cpuMs)),
        maxRssBytes: Math.max(...dryRuns.map((run) => run.maxRssBytes)),
        rssMethod: lastDry.rssMethod,
        requests: dryRequests,
        retries: summary.api?.retries ?? 0,
        bytesReceived: summary.api?.bytesReceived ?? 0,
        ratio: dryMs / floorMs,
        requestRatio: floorRequests === 0 ? 0 : dryRequests / floorRequests,
        summary: { targets: summary.targets ?? 0, runs: summary.runs ?? 0, delete: summary.delete ?? 0, keep: summary.keep ?? 0, reasons: summary.reasons ?? {} },
      },
      live: {
        deletes: flags.liveDeletes,
        deleted: live.deletedAt.length,
        qps: flags.qps,
        achievedQps,
        withinTenPercent: Math.abs(achievedQps - flags.qps) <= flags.qps * 0.1,
        ms: live.ms,
        maxRssBytes: live.maxRssBytes,
        requests: live.summary?.api?.requests ?? 0,
        results: live.summary?.results ?? {},
      },
      load: { before: loadBefore.map(round2), after: loadavg().map(round2) },
    };
  } finally {
    api.close();
    await controlPlane.stop();
  }
}

function checkRun(what: string, run: CliRun, expected: number): CliRun {
  if (run.exitCode !== expected || run.summary === undefined) {
    throw new Error(`the collector's ${what} exited ${run.exitCode} (expected ${expected}) ${run.summary === undefined ? "without a 'pass finished' line" : ''}:\n${run.stderrTail}`);
  }
  return run;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
const round2 = (n: number): number => Math.round(n * 100) / 100;
const seconds = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function renderTable(results: readonly ScaleResult[]): string {
  const header = ['scale', 'targets', 'runs', 'seed', 'floor', 'floor CPU', 'floor MiB', 'floor req', 'dry run', 'dry CPU', 'ratio', 'peak RSS', 'dry req', 'live deletes/s', 'qps'];
  const rows = results.map((r) => [
    `${r.scale}x`,
    String(r.targets),
    String(r.runs),
    r.seed.reused ? 'reused' : seconds(r.seed.ms),
    seconds(r.floor.ms),
    seconds(r.floor.cpuMs),
    (r.floor.bytes / 1024 / 1024).toFixed(1),
    String(r.floor.requests),
    seconds(r.dryRun.ms),
    seconds(r.dryRun.cpuMs),
    `${r.dryRun.ratio.toFixed(2)}x`,
    mib(r.dryRun.maxRssBytes),
    String(r.dryRun.requests),
    `${r.live.achievedQps.toFixed(1)} (${r.live.deleted})`,
    String(r.live.qps),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padStart(widths[i] as number)).join('  ');
  const lines = [line(header), ...rows.map(line)];
  const base = results[0];
  if (base !== undefined && results.length > 1) {
    lines.push('', `growth from ${base.scale}x: time relative to linear, memory`);
    for (const r of results.slice(1)) {
      const factor = r.scale / base.scale;
      const timeGrowth = r.dryRun.ms / base.dryRun.ms;
      lines.push(`  ${r.scale}x: dry run ${timeGrowth.toFixed(2)}x the time for ${factor}x the data (${(timeGrowth / factor).toFixed(2)} of linear), peak RSS ${mib(base.dryRun.maxRssBytes)} -> ${mib(r.dryRun.maxRssBytes)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main(args: readonly string[]): Promise<number> {
  let flags: BenchFlags;
  try {
    flags = parseFlags(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message} (e.g. ${EXAMPLE})\n`);
    return 2;
  }
  if (flags.build && flags.entry === 'dist') {
    log('building dist/ (npm run build)');
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  }
  const entryPath = flags.entry === 'dist' ? join(ROOT, 'dist', 'main.js') : join(ROOT, 'src', 'main.ts');
  log(`the collector runs as node ${[...flags.nodeFlags, entryPath].join(' ')}${flags.nodeFlags.length > 0 && process.argv.every((arg) => !arg.startsWith('--node-flags')) ? " (the image's flags, from the Dockerfile)" : ''}`);
  const startedAt = new Date();
  const results: ScaleResult[] = [];
  for (const scale of flags.scales) results.push(await benchScale(flags, scale, entryPath));
  process.stdout.write(renderTable(results));
  const line = {
    bench: 'tekton-resource-gc',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    command: `npm run bench -- ${args.join(' ')}`.trim(),
    entry: flags.entry,
    nodeFlags: flags.nodeFlags,
    pageSize: flags.pageSize,
    watchCache: flags.watchCache,
    repeat: flags.repeat,
    results,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}

/**
 * `npm run demo` end to end, as a newcomer runs it: what its output claims (the dry run
 * deletes nothing, the live pass deletes exactly the garbage, the rest remains) and that
 * it leaves no etcd or kube-apiserver behind, whether it finishes or is interrupted.
 * Each run gets its own TMPDIR, so the control plane's directory, and every process
 * that mentions it, is the demo's own even while other control planes run.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';

const DELETED = [
  'legacy-app/img-0b5e1f2 unreferenced',
  'legacy-app/src-0b5e1f2 unreferenced',
  'shop-ci/img-3f9c2a1 runs-finished',
  'shop-ci/img-8d41e07 runs-finished',
  'shop-ci/img-c0ffee4 runs-finished',
  'shop-ci/src-3f9c2a1 runs-finished',
  'shop-ci/src-8d41e07 runs-finished',
  'shop-ci/src-c0ffee4 runs-finished',
];

/** As the dry run reports them; before the live pass the young one's run appears. */
const KEPT = [
  'shop-ci/img-base retain-for',
  'shop-ci/src-9e8d7c6 too-young',
  'shop-ci/src-a1b2c3d referenced-by-active-run',
  'shop-ci/src-e5f6a7b referenced-by-active-run',
  'shop-ci/src-release-1.4.0 retained',
];
const KEPT_LIVE = KEPT.map((kept) => (kept.endsWith('too-young') ? kept.replace('too-young', 'referenced-by-active-run') : kept));

interface Row {
  target: string;
  action: string;
  result: string;
  reason: string;
}

test('npm run demo: the dry run deletes nothing, the live pass deletes the garbage, no server is left', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'trgc-demo-test-'));
  try {
    const demo = spawnDemo(scratch);
    const { code, stdout, stderr } = await finished(demo);
    assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);

    const dry = rows(section(stdout, '4. Dry run', '5. Live pass'));
    assert.equal(dry.length, DELETED.length + KEPT.length, stdout);
    assert.deepEqual(dry.filter((row) => row.result === 'would-delete').map(described), DELETED);
    assert.deepEqual(dry.filter((row) => row.result === 'kept').map(described), KEPT);
    assert.match(section(stdout, '4. Dry run', '5. Live pass'), /dry run: 13 targets, 6 runs: 8 would be deleted \(runs-finished 6, unreferenced 2\), 5 kept \(/);
    assert.match(stdout, /Still 13 of 13 PipelineResources: the dry run deleted nothing\./);

    const live = rows(section(stdout, '5. Live pass', '6. What is left'));
    assert.deepEqual(live.filter((row) => row.result === 'deleted').map(described), DELETED);
    assert.deepEqual(live.filter((row) => row.result === 'kept').map(described), KEPT_LIVE);
    assert.equal(live.length, DELETED.length + KEPT.length, stdout);
    assert.match(stdout, /live: 13 targets, 7 runs: 8 deleted \(runs-finished 6, unreferenced 2\), 5 kept \(/);

    // kubectl's listing of what is left: exactly the kept ones.
    const left = section(stdout, '6. What is left', '7. Did it do what we said?')
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cells) => cells[0] === 'shop-ci' || cells[0] === 'legacy-app')
      .map((cells) => `${cells[0] ?? ''}/${cells[1] ?? ''}`);
    assert.deepEqual(left, KEPT.map((kept) => kept.split(' ')[0]));
    assert.match(stdout, /The 7 PipelineRuns are all still there/);
    assert.match(stdout, /As expected\./);
    assert.match(stdout, /8\. Stopped the control plane/);

    assert.deepEqual(await processesMentioning(scratch), []);
    assert.deepEqual(await controlPlaneDirs(scratch), []);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

test('Ctrl-C during npm run demo stops the control plane before the demo exits', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'trgc-demo-test-'));
  try {
    // Its own process group, which a terminal's Ctrl-C signals as a whole.
    const demo = spawnDemo(scratch, true);
    const output = finished(demo);
    await outputContains(demo, 'Waiting');
    assert.notDeepEqual(await processesMentioning(scratch), [], 'etcd and kube-apiserver run while the demo waits');
    assert.ok(demo.pid !== undefined);
    process.kill(-demo.pid, 'SIGINT');
    const { code, signal, stdout } = await output;
    assert.notEqual(code, 0, stdout);
    assert.ok(code !== null || signal !== null);
    assert.deepEqual(await processesMentioning(scratch), []);
    assert.deepEqual(await controlPlaneDirs(scratch), []);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

/** `npm run demo` with its temporary files, the control plane's included, in `scratch`. */
function spawnDemo(scratch: string, detached = false): ChildProcess {
  return spawn('npm', ['run', '--silent', 'demo'], {
    env: { ...process.env, TMPDIR: scratch },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function outputContains(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('close', () => reject(new Error(`demo exited before printing ${JSON.stringify(text)}:\n${seen}`)));
  });
}

/** The lines of `text` from the heading `from` up to the heading `to`. */
function section(text: string, from: string, to: string): string {
  const start = text.indexOf(`\n${from}`);
  const end = text.indexOf(`\n${to}`, start + 1);
  assert.ok(start >= 0 && end > start, `no section "${from}" before "${to}" in:\n${text}`);
  return text.slice(start, end);
}

/** Rows of the text report's table in `text`. */
function rows(text: string): Row[] {
  return text.split('\n').flatMap((line) => {
    const cells = line.trim().split(/\s+/);
    const [namespace, name, action, result, reason] = cells;
    if (namespace === undefined || name === undefined || action === undefined || result === undefined || reason === undefined) return [];
    if (action !== 'delete' && action !== 'keep') return [];
    return [{ target: `${namespace}/${name}`, action, result, reason }];
  });
}

function described(row: Row): string {
  return `${row.target} ${row.reason}`;
}

/** Command lines of running processes that mention `dir` (etcd, kube-apiserver, the watchdog). */
async function processesMentioning(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,args=']);
  return stdout.split('\n').filter((line) => line.includes(dir));
}

async function controlPlaneDirs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('trgc-controlplane-'));
}

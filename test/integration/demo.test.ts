/**
 * `npm run demo` end to end, as a newcomer runs it: what its output claims (the dry run
 * deletes nothing, the live pass deletes exactly the garbage, the rest remains; then the
 * same for the leftovers of a current Tekton, whose claims a live pass leaves Terminating
 * and a pass with --pvc-finalizer purge deletes, and whose ResolutionRequests go when the run
 * stored what it resolved or finished, not while it may read them) and that it leaves no etcd or
 * kube-apiserver behind, whether it finishes or is interrupted.
 * Each run gets its own TMPDIR, so the control plane's directory, and every process
 * that mentions it, is the demo's own even while other control planes run.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { deterministicName } from '../../src/core/resolution.js';

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

/**
 * The leftovers in shop-pac as the dry run must decide them, one line each: kind, size, action,
 * reason, and the first linked run with its state (the owner; for the affinity assistant's
 * claim, the run its label names). Claims are named after their run's uid, which the test
 * cannot know: their names are checked by shape (claimName) instead.
 */
const LEFTOVERS_DRY = [
  'PersistentVolumeClaim 2Gi delete runs-finished TaskRun/nightly-scan-7pw2d (succeeded)',
  'PersistentVolumeClaim 50Gi delete runs-finished PipelineRun/shop-on-pull-request-4nz7w (failed)',
  'PersistentVolumeClaim 5Gi delete owner-gone PipelineRun/shop-on-pull-request-d3l7x (gone)',
  'PersistentVolumeClaim 5Gi delete runs-finished PipelineRun/shop-on-push-8kq2m (succeeded)',
  'PersistentVolumeClaim 5Gi keep referenced-by-active-run PipelineRun/shop-on-push-r4x9t (running)',
  'Secret - delete runs-finished PipelineRun/shop-on-pull-request-4nz7w (failed)',
  'Secret - delete runs-finished PipelineRun/shop-on-push-8kq2m (succeeded)',
  'Secret - keep referenced-by-active-run PipelineRun/shop-on-push-r4x9t (running)',
  'StatefulSet - keep referenced-by-active-run PipelineRun/shop-on-push-r4x9t (running)',
  'ResolutionRequest - delete resolution-stored PipelineRun/shop-on-push-r4x9t (running)',
  'ResolutionRequest - keep referenced-by-active-run PipelineRun/shop-on-push-r4x9t (running)',
  'ResolutionRequest - delete runs-finished PipelineRun/shop-on-push-8kq2m (succeeded)',
];
/** The push runs' pipelineRef (Tekton's git resolver) and the deploy task of their pipeline (bundles). */
const PIPELINE_PARAMS = [
  { name: 'url', value: 'https://github.com/example/ci-pipelines' },
  { name: 'revision', value: 'main' },
  { name: 'pathInRepo', value: 'pipelines/push.yaml' },
];
const DEPLOY_PARAMS = [
  { name: 'bundle', value: 'registry.example/catalog/deploy:0.4' },
  { name: 'name', value: 'deploy' },
  { name: 'kind', value: 'task' },
];
/** The ResolutionRequests by the reason the dry run gives, named as Tekton names them: the run's own name for its pipelineRef, `<run>-<task>` for a task's. */
const REQUESTS = {
  'resolution-stored': deterministicName('git', 'shop-pac/shop-on-push-r4x9t', PIPELINE_PARAMS),
  'referenced-by-active-run': deterministicName('bundles', 'shop-pac/shop-on-push-r4x9t-deploy', DEPLOY_PARAMS),
  'runs-finished': deterministicName('git', 'shop-pac/shop-on-push-8kq2m', PIPELINE_PARAMS),
};
const PAC_SECRETS = { 'shop-on-push-8kq2m': 'pac-gitauth-hqzvtm', 'shop-on-pull-request-4nz7w': 'pac-gitauth-xbrqle', 'shop-on-push-r4x9t': 'pac-gitauth-mvtdoa' };
/** sha256(text)[:10]: how Tekton names affinity assistants (by workspace and run name) and claims (by workspace and run uid). */
const hash10 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 10);
/** The running run's affinity assistant (coschedule: workspaces), and the deleted run's (coschedule: pipelineruns). */
const ASSISTANT = `affinity-assistant-${hash10('sourceshop-on-push-r4x9t')}`;
const DELETED_RUNS_ASSISTANT = `affinity-assistant-${hash10('shop-on-pull-request-d3l7x')}`;

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
    assert.match(stdout, /The 7 PipelineRuns are all still there/);
    // Steps 3 to 5 collect PipelineResources alone: the leftovers are neither reported nor touched.
    assert.doesNotMatch(section(stdout, '3. With the defaults', '6. What is left'), /shop-pac/);

    checkLeftovers(stdout);
    assert.match(stdout, /11\. Stopped the control plane/);

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

/** Steps 8-10: the leftovers of shop-pac, decided in a dry run, deleted (claims left Terminating), then purged. */
function checkLeftovers(stdout: string): void {
  const dryText = section(stdout, '8. Leftovers', '9. Live pass');
  const dry = leftoverRows(dryText);
  assert.deepEqual(dry.map(describedLeftover).sort(), [...LEFTOVERS_DRY].sort(), dryText);
  assert.ok(dry.every((row) => row.result === (row.action === 'delete' ? 'would-delete' : 'kept')), dryText);
  for (const row of dry.filter((candidate) => candidate.kind === 'PersistentVolumeClaim')) {
    const shape = row.reason === 'owner-gone' ? new RegExp(`^pvc-[0-9a-f]{10}-${DELETED_RUNS_ASSISTANT}-0$`) : /^pvc-[0-9a-f]{10}$/;
    assert.match(row.name, shape, 'named as Tekton names a claim of a volumeClaimTemplate (and of an affinity assistant)');
  }
  for (const row of dry.filter((candidate) => candidate.kind === 'Secret')) {
    const run = /^PipelineRun\/(\S+) /.exec(row.linkedRun)?.[1] ?? '';
    assert.equal(row.name, PAC_SECRETS[run as keyof typeof PAC_SECRETS], `${row.name} is the Secret of ${run}`);
  }
  assert.deepEqual(dry.filter((row) => row.kind === 'StatefulSet').map((row) => row.name), [ASSISTANT]);
  assert.deepEqual(Object.fromEntries(dry.filter((row) => row.kind === 'ResolutionRequest').map((row) => [row.reason, row.name])), REQUESTS);
  // The story before the pass names each request and what should become of it.
  for (const [reason, name] of Object.entries(REQUESTS)) assert.match(dryText, new RegExp(`\\sresolutionrequest/${name}\\s.*=> ${reason === 'referenced-by-active-run' ? 'keep' : 'delete'}: `), `${name} (${reason}) described`);
  assert.match(dryText, /\n\s+bytes: 62Gi would be released \(4 claims to delete\)\n/);
  assert.match(dryText, /dry run: 12 targets, 7 runs: 8 would be deleted \(resolution-stored 1, runs-finished 6, owner-gone 1\), 4 kept \(referenced-by-active-run 4\)/);

  // Live, in keep mode: Secrets deleted, claims deleted but held by their finalizer; the
  // finished TaskRuns' Pods, which still name their claims, are shown holding them.
  const liveText = section(stdout, '9. Live pass', '10. Purge');
  const live = leftoverRows(liveText);
  const byName = (rows: readonly LeftoverRow[]): Map<string, LeftoverRow> => new Map(rows.map((row) => [row.name, row]));
  const dryByName = byName(dry);
  assert.equal(live.length, dry.length, liveText);
  for (const row of live) {
    const before = dryByName.get(row.name);
    assert.ok(before !== undefined, `${row.name} was not in the dry run`);
    assert.deepEqual([row.action, row.reason], [before.action, before.reason], row.name);
    const expected = row.action === 'keep' ? 'kept' : row.kind === 'PersistentVolumeClaim' ? 'terminating' : 'deleted';
    assert.equal(row.result, expected, row.name);
  }
  for (const pod of ['shop-on-push-8kq2m-fetch-pod (Succeeded)', 'shop-on-pull-request-4nz7w-fetch-pod (Failed)', 'nightly-scan-7pw2d-pod (Succeeded)']) {
    assert.match(liveText, new RegExp(`\\sterminating\\s.*Pod/${pod.replace(/[()]/g, '\\$&')}`), `a terminating claim held by ${pod}`);
  }
  assert.match(liveText, /\n\s+bytes: 0 released, 62Gi pending \(terminating\), of 62Gi \(4 claims to delete\)\n/);
  assert.match(liveText, /live: 12 targets, 7 runs: 4 deleted \(resolution-stored 1, runs-finished 3\), 4 left terminating \(runs-finished 3, owner-gone 1\), 4 kept \(referenced-by-active-run 4\)/);
  // kubectl's listing after it: the four claims deleted are Terminating, the running run's is not.
  const statuses = liveText
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => /^pvc-/.test(cells[0] ?? '') && cells.length < 6)
    .map((cells) => `${cells[0] ?? ''} ${cells[1] ?? ''}`);
  const keptClaim = dry.find((row) => row.kind === 'PersistentVolumeClaim' && row.action === 'keep')?.name ?? '';
  assert.deepEqual(statuses.sort(), dry.filter((row) => row.kind === 'PersistentVolumeClaim').map((row) => `${row.name} ${row.name === keptClaim ? 'Pending' : 'Terminating'}`).sort(), liveText);

  // Purge: the Terminating claims are deleted; the Secrets and requests deleted are gone from the report; the kept stay kept.
  const purgeText = section(stdout, '10. Purge', '11. Stopped');
  const purge = leftoverRows(purgeText);
  assert.deepEqual(
    purge.map((row) => `${row.kind} ${row.name} ${row.result}`).sort(),
    dry.filter((row) => row.kind === 'PersistentVolumeClaim' || row.action === 'keep').map((row) => `${row.kind} ${row.name} ${row.action === 'keep' ? 'kept' : 'deleted'}`).sort(),
    purgeText,
  );
  assert.match(purgeText, /\n\s+bytes: 62Gi released, 0 pending \(terminating\), of 62Gi \(4 claims to delete\)\n/);
  assert.match(purgeText, /live: 8 targets, 7 runs: 4 deleted \(runs-finished 3, owner-gone 1\), 4 kept \(referenced-by-active-run 4\)/);
  // kubectl's listing of what is left: the running run's claim, Secret, affinity assistant, and the request of the task it has not started.
  const left = purgeText
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => /^(persistentvolumeclaim|secret|statefulset\.apps|resolutionrequest\.resolution\.tekton\.dev)\//.test(name));
  assert.deepEqual(
    left,
    [`persistentvolumeclaim/${keptClaim}`, 'secret/pac-gitauth-mvtdoa', `statefulset.apps/${ASSISTANT}`, `resolutionrequest.resolution.tekton.dev/${REQUESTS['referenced-by-active-run']}`],
    purgeText,
  );
  assert.match(purgeText, /As expected:/);
}

interface LeftoverRow {
  kind: string;
  name: string;
  size: string;
  action: string;
  result: string;
  reason: string;
  /** The first of LINKED RUNS with its state, e.g. `PipelineRun/build-1 (succeeded)`. */
  linkedRun: string;
}

/** Rows of shop-pac in the text report with leftover collectors on: NAMESPACE KIND NAME SIZE ACTION RESULT REASON LINKED RUNS ... */
function leftoverRows(text: string): LeftoverRow[] {
  return text.split('\n').flatMap((line) => {
    const [namespace, kind, name, size, action, result, reason, run, state] = line.trim().split(/\s+/);
    if (namespace !== 'shop-pac' || (action !== 'delete' && action !== 'keep')) return [];
    if (kind === undefined || name === undefined || size === undefined || result === undefined || reason === undefined || run === undefined || state === undefined) return [];
    return [{ kind, name, size, action, result, reason, linkedRun: `${run} ${state.replace(/,$/, '')}` }];
  });
}

function describedLeftover(row: LeftoverRow): string {
  return `${row.kind} ${row.size} ${row.action} ${row.reason} ${row.linkedRun}`;
}

/** Rows of the text report's table in `text`: NAMESPACE KIND NAME SIZE ACTION RESULT REASON ..., every one a PipelineResource without a size. */
function rows(text: string): Row[] {
  return text.split('\n').flatMap((line) => {
    const cells = line.trim().split(/\s+/);
    const [namespace, kind, name, size, action, result, reason] = cells;
    if (namespace === undefined || name === undefined || action === undefined || result === undefined || reason === undefined) return [];
    if (action !== 'delete' && action !== 'keep') return [];
    assert.deepEqual([kind, size], ['PipelineResource', '-'], line);
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

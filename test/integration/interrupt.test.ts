/**
 * A pass stopped by SIGTERM (a CronJob's pod being stopped): the delete phase ends between
 * deletions within a second or two, the report says what was deleted and what was not
 * (aborted), and the exit status is 3. A second signal ends the process at once.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { matches, startFaultProxy } from '../support/faultproxy.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, pipelineRun } from '../support/tekton.js';

const CANDIDATES = 20;
/** How long the process may take from the signal to its exit. */
const STOP_WITHIN_MS = 2_000;

async function seedNamespace(seed: Seeder, ns: string): Promise<string[]> {
  await seed.namespace(ns);
  const names = Array.from({ length: CANDIDATES }, (_, index) => `src-${String(index).padStart(2, '0')}`);
  for (const name of names) await seed.create(gitResource({ name, namespace: ns }, name));
  await seed.create(gitResource({ name: 'keep-active', namespace: ns }, 'active'));
  await seed.create(pipelineRun('v1beta1', { name: 'build-running', namespace: ns }, { resources: ['keep-active'] }), { state: 'running' });
  return names;
}

/**
 * Runs the CLI and sends `signals` once `deletions` deletes are logged; answers the result
 * and the milliseconds from the first signal to the exit.
 */
function interrupted(args: string[], deletions: number, signals: { signal: NodeJS.Signals; afterMs: number }[]): Promise<{ result: CliResult; stopMs: number; seenDeleted: number }> {
  let pid = 0;
  let signalledAt = 0;
  let seenDeleted = 0;
  return new Promise((resolve, reject) => {
    const running = runCli(args, {
      onStart: (started) => (pid = started),
      onStderr: (line) => {
        if (!line.includes('"msg":"deleted"')) return;
        seenDeleted++;
        if (seenDeleted !== deletions) return;
        signalledAt = Date.now();
        for (const { signal, afterMs } of signals) setTimeout(() => process.kill(pid, signal), afterMs);
      },
    });
    running.then((result) => resolve({ result, stopMs: Date.now() - signalledAt, seenDeleted }), reject);
  });
}

describe('an interrupted pass', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  test('SIGTERM in the delete phase stops between deletions, reports deleted and aborted, exits 3', async () => {
    const ns = 'interrupt-term';
    const names = await seedNamespace(seed, ns);
    // --qps 2: 20 deletes would take 10 s; the signal comes after the third.
    const args = ['--namespace', ns, '--min-age', '0s', '--qps', '2', '--concurrency', '1', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath];
    const { result, stopMs } = await interrupted(args, 3, [{ signal: 'SIGTERM', afterMs: 0 }]);
    process.stdout.write(`# stopped ${stopMs} ms after SIGTERM\n`);
    assert.equal(result.code, 3, result.stderr);
    assert.ok(stopMs < STOP_WITHIN_MS, `stopped ${stopMs} ms after SIGTERM`);
    const report = reportOf(result);
    assert.deepEqual(report.errors, ['the pass was interrupted (SIGTERM) before every delete was made']);
    const deleted = report.items.filter((item) => item.result === 'deleted').map((item) => item.name);
    const aborted = report.items.filter((item) => item.result === 'aborted').map((item) => item.name);
    // The delete in flight when the signal came may finish; none starts after it.
    assert.ok(deleted.length >= 3 && deleted.length <= 4, `deleted ${deleted.length}`);
    assert.equal(deleted.length + aborted.length, CANDIDATES);
    assert.deepEqual([...deleted, ...aborted].sort(), names);
    assert.equal(report.items.find((item) => item.name === 'keep-active')?.result, 'kept');
    assert.deepEqual(await seed.remainingTargets(ns), [...aborted, 'keep-active'].sort());
    assert.match(result.stderr, /"signal":"SIGTERM".*stopping: no new request or delete will start/);
    assert.match(result.stderr, /"msg":"pass finished"/);
  });

  test('a second signal ends the process at once, with 128 + the signal number', async () => {
    const ns = 'interrupt-twice';
    await seedNamespace(seed, ns);
    // The third delete is held 5 s by the proxy: the first SIGINT alone would wait for it.
    const proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    try {
      proxy.reset([{ name: 'slow third delete', match: matches.delete('pipelineresources'), when: { nth: [3] }, fault: { kind: 'delay', ms: 5_000 } }]);
      const kubeconfig = path.join(controlPlane.dir, 'interrupt-proxy.kubeconfig');
      await writeFile(kubeconfig, proxy.kubeconfigYaml());
      const args = ['--namespace', ns, '--min-age', '0s', '--qps', '2', '--concurrency', '1', '--output', 'json', '--kubeconfig', kubeconfig];
      const { result, stopMs } = await interrupted(args, 2, [
        { signal: 'SIGINT', afterMs: 600 },
        { signal: 'SIGINT', afterMs: 1_200 },
      ]);
      assert.equal(result.code, 130, result.stderr);
      assert.ok(stopMs < 1_200 + STOP_WITHIN_MS, `stopped ${stopMs} ms after the signals began`);
      assert.equal(result.stdout, '', 'no report: the process ended at once');
      // Only what was deleted before the signals is gone (and the held one, if it got through).
      const remaining = await seed.remainingTargets(ns);
      assert.ok(remaining.includes('keep-active'));
      assert.ok(remaining.length >= CANDIDATES - 2, `${CANDIDATES + 1 - remaining.length} deleted`);
    } finally {
      await proxy.stop();
    }
  });

  test('a signal after the listing, before the re-check: nothing deleted, no re-check read, every candidate aborted, exit 3', async () => {
    const ns = 'interrupt-early';
    const names = await seedNamespace(seed, ns);
    const controller = new AbortController();
    const { outcome, stats } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s'], {
      signal: controller.signal,
      afterListing: () => {
        controller.abort();
        return Promise.resolve();
      },
    });
    assert.equal(outcome.exitCode, 3);
    assert.deepEqual(outcome.report.summary.results, { aborted: CANDIDATES, kept: 1 });
    assert.deepEqual(outcome.report.errors, ['the pass was interrupted (SIGTERM) before every delete was made']);
    assert.deepEqual(await seed.remainingTargets(ns), [...names, 'keep-active'].sort());
    // Discovery (the group and its three versions), targets, PipelineRuns, TaskRuns, the
    // namespace: 8, and nothing after the signal (a re-check would list runs again).
    assert.equal(stats.requests, 8);
  });

  test('a signal while the runs are listed: the next request is not made, nothing decided or deleted, exit 1', async () => {
    const ns = 'interrupt-listing';
    const names = await seedNamespace(seed, ns);
    const controller = new AbortController();
    const { outcome, stats } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s'], {
      signal: controller.signal,
      afterRunsListed: () => {
        controller.abort();
        return Promise.resolve();
      },
    });
    assert.equal(outcome.exitCode, 1);
    assert.deepEqual(outcome.report.items, []);
    assert.deepEqual(outcome.report.errors, [
      `the pass was interrupted (SIGTERM) while reading the cluster, nothing was deleted: stopped by a signal before it could get namespaces at cluster scope`,
    ]);
    // Discovery (4), targets, PipelineRuns, TaskRuns: the namespace was never read.
    assert.equal(stats.requests, 7);
    assert.deepEqual(await seed.remainingTargets(ns), [...names, 'keep-active'].sort());
  });

  test('SIGTERM while a list waits out a Retry-After: the wait ends at once, a report says why, exit 1', async () => {
    const ns = 'interrupt-backoff';
    await seedNamespace(seed, ns);
    const proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    try {
      proxy.reset([{ name: '503 RA 30 on taskruns', match: matches.list('taskruns'), when: { always: true }, fault: { kind: 'status', status: 503, retryAfterSeconds: 30 } }]);
      const kubeconfig = path.join(controlPlane.dir, 'interrupt-backoff.kubeconfig');
      await writeFile(kubeconfig, proxy.kubeconfigYaml());
      let pid = 0;
      let signalledAt = 0;
      const running = runCli(['--namespace', ns, '--min-age', '0s', '--output', 'json', '--kubeconfig', kubeconfig], { onStart: (started) => (pid = started) });
      const deadline = Date.now() + 20_000;
      while (proxy.injected.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(proxy.injected.length, 1, 'the first list of TaskRuns was refused');
      signalledAt = Date.now();
      process.kill(pid, 'SIGTERM');
      const result = await running;
      const stopMs = Date.now() - signalledAt;
      assert.equal(result.code, 1, result.stderr);
      assert.ok(stopMs < STOP_WITHIN_MS, `stopped ${stopMs} ms after SIGTERM, not after the 30 s Retry-After`);
      assert.equal(proxy.requests.filter(matches.list('taskruns')).length, 1, 'no retry after the signal');
      const report = reportOf(result);
      assert.match(report.errors?.[0] ?? '', /^the pass was interrupted \(SIGTERM\) while reading the cluster, nothing was deleted: stopped by a signal before it could list taskruns\.tekton\.dev in namespace "interrupt-backoff"$/);
      assert.match(result.stderr, /"msg":"pass finished"/);
    } finally {
      await proxy.stop();
    }
  });
});

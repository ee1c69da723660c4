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
    assert.match(result.stderr, /"signal":"SIGTERM".*stopping: no new deletes will start/);
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

  test('a signal before the delete phase deletes nothing and reports every candidate aborted', async () => {
    const ns = 'interrupt-early';
    const names = await seedNamespace(seed, ns);
    const controller = new AbortController();
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s'], {
      signal: controller.signal,
      afterRunsListed: async () => controller.abort(),
    });
    assert.equal(outcome.exitCode, 3);
    assert.deepEqual(outcome.report.summary.results, { aborted: CANDIDATES, kept: 1 });
    assert.deepEqual(outcome.report.errors, ['the pass was interrupted (SIGTERM) before every delete was made']);
    assert.deepEqual(await seed.remainingTargets(ns), [...names, 'keep-active'].sort());
  });
});

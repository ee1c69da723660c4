/**
 * Plan and apply on a real API server: a dry run writes down what it would delete, and a
 * later live pass deletes at most that, each object only if it is still the one planned
 * and a fresh decision still deletes it. In process here (the pass as the CLI builds it);
 * the CLI's files, refusals and exit codes are in plancli.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { Plan } from '../../src/pass/plan.js';
import { matches, startFaultProxy, type FaultProxy } from '../support/faultproxy.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, pipelineRun } from '../support/tekton.js';

describe('plan and apply', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let proxy: FaultProxy;
  let counter = 0;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
  });
  after(async () => {
    await proxy?.stop();
    await controlPlane?.stop();
  });

  /** orphan-0..n-1 (collectable), done-a (its run finished), busy (a running run names it). */
  async function namespace(orphans: number): Promise<string> {
    const ns = `plan-${++counter}`;
    await seed.namespace(ns);
    for (let index = 0; index < orphans; index++) await seed.create(gitResource({ name: `orphan-${index}`, namespace: ns }, `o${index}`));
    await seed.create(gitResource({ name: 'done-a', namespace: ns }, 'd'));
    await seed.create(pipelineRun('v1beta1', { name: 'finished', namespace: ns }, { resources: ['done-a'] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    await seed.create(gitResource({ name: 'busy', namespace: ns }, 'b'));
    await seed.create(pipelineRun('v1beta1', { name: 'running', namespace: ns }, { resources: ['busy'] }), { state: 'running' });
    return ns;
  }

  async function planOf(ns: string): Promise<Plan> {
    const dry = await passInProcess(controlPlane.kubeConfig(), ['--dry-run', '--namespace', ns, '--min-age', '0s'], { plans: { write: { cluster: { server: controlPlane.server }, file: 'plan.json' } } });
    const plan = dry.outcome.plan;
    assert.ok(plan !== undefined, 'a dry run asked for a plan answers one');
    return plan;
  }

  const results = (items: readonly { name: string; result: string }[]): Record<string, string> => Object.fromEntries(items.map((item) => [item.name, item.result]));

  test('apply deletes exactly the planned objects, not a collectable one created after the plan', async () => {
    const ns = await namespace(3);
    const plan = await planOf(ns);
    assert.deepEqual(plan.entries.map((entry) => entry.name), ['done-a', 'orphan-0', 'orphan-1', 'orphan-2']);
    await seed.create(gitResource({ name: 'orphan-late', namespace: ns }, 'late'));

    const applied = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s'], { plans: { apply: { plan, file: 'plan.json' } } });
    assert.equal(applied.outcome.exitCode, 0);
    assert.deepEqual(results(applied.outcome.report.items), { 'done-a': 'deleted', 'orphan-0': 'deleted', 'orphan-1': 'deleted', 'orphan-2': 'deleted' });
    assert.deepEqual(await seed.remainingTargets(ns), ['busy', 'orphan-late']);
  });

  test('between plan and apply: relabelled, recreated, newly referenced by a running run, deleted: none is deleted by apply', async () => {
    const ns = await namespace(5);
    const plan = await planOf(ns);
    // orphan-0: relabelled (a new resourceVersion); orphan-1: deleted and created again (a new uid);
    // orphan-2: a running run names it now; orphan-3: deleted by someone else; orphan-4: untouched.
    await seed.label('PipelineResource', ns, 'orphan-0', { team: 'a' });
    await controlPlane.kubeConfig().makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi).deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1alpha1', namespace: ns, plural: 'pipelineresources', name: 'orphan-1' });
    await seed.create(gitResource({ name: 'orphan-1', namespace: ns }, 'again'));
    await seed.create(pipelineRun('v1beta1', { name: 'new-run', namespace: ns }, { resources: ['orphan-2'] }), { state: 'running' });
    await controlPlane.kubeConfig().makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi).deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1alpha1', namespace: ns, plural: 'pipelineresources', name: 'orphan-3' });

    const applied = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s'], { plans: { apply: { plan, file: 'plan.json' } } });
    assert.equal(applied.outcome.exitCode, 0);
    const items = applied.outcome.report.items;
    assert.deepEqual(results(items), { 'done-a': 'deleted', 'orphan-0': 'changed', 'orphan-1': 'changed', 'orphan-2': 'kept', 'orphan-3': 'gone', 'orphan-4': 'deleted' });
    assert.equal(items.find((item) => item.name === 'orphan-2')?.reason, 'referenced-by-active-run');
    assert.match(items.find((item) => item.name === 'orphan-0')?.message ?? '', /not deleted: it was changed \(resourceVersion \d+ in the plan, \d+ now\) since the plan was made/);
    assert.match(items.find((item) => item.name === 'orphan-1')?.message ?? '', /not deleted: it was deleted and created again since the plan was made/);
    assert.deepEqual(await seed.remainingTargets(ns), ['busy', 'orphan-0', 'orphan-1', 'orphan-2']);
    // Only the two planned, unchanged, still collectable objects were sent a DELETE.
    assert.equal(applied.outcome.report.summary.results.deleted, 2);
  });

  test('a planned object that no longer matches the plan\'s selector is reported changed and kept', async () => {
    const ns = `plan-${++counter}`;
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'picked', namespace: ns, labels: { tier: 'ci' } }, 'p'));
    const dry = await passInProcess(controlPlane.kubeConfig(), ['--dry-run', '--namespace', ns, '--min-age', '0s', '--selector', 'tier=ci'], { plans: { write: { cluster: { server: controlPlane.server }, file: 'plan.json' } } });
    const plan = dry.outcome.plan;
    assert.ok(plan !== undefined);
    assert.equal(plan.settings.selector, 'tier=ci');
    await seed.label('PipelineResource', ns, 'picked', { tier: 'prod' });
    const applied = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s', '--selector', 'tier=ci'], { plans: { apply: { plan, file: 'plan.json' } } });
    assert.deepEqual(results(applied.outcome.report.items), { picked: 'changed' });
    assert.deepEqual(await seed.remainingTargets(ns), ['picked']);
  });

  test('apply keeps the cap: more deletable entries than --max-deletions deletes nothing, exit 3', async () => {
    const ns = await namespace(3);
    const plan = await planOf(ns);
    const applied = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s', '--max-deletions', '3'], { plans: { apply: { plan, file: 'plan.json' } } });
    assert.equal(applied.outcome.exitCode, 3);
    assert.deepEqual(applied.outcome.report.summary.results, { aborted: 4 });
    assert.equal((await seed.remainingTargets(ns)).length, 5);
  });

  test('apply under the fault proxy: a throttled delete waits, a run created meanwhile keeps its target', async () => {
    const ns = await namespace(2);
    const plan = await planOf(ns);
    proxy.reset([
      {
        name: '429 RA 8 on orphan-1',
        match: (request) => matches.delete('pipelineresources')(request) && request.path.endsWith('/orphan-1'),
        when: { first: 1 },
        fault: { kind: 'status', status: 429, retryAfterSeconds: 8 },
      },
    ]);
    const running = passInProcess(proxy.kubeConfig(), ['--namespace', ns, '--min-age', '0s', '--concurrency', '1'], { plans: { apply: { plan, file: 'plan.json' } } });
    const deadline = Date.now() + 20_000;
    while (proxy.injected.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await seed.create(pipelineRun('v1beta1', { name: 'arrived', namespace: ns }, { resources: ['orphan-1'] }), { state: 'running' });
    const applied = await running;
    assert.equal(applied.outcome.exitCode, 0);
    assert.deepEqual(results(applied.outcome.report.items), { 'done-a': 'deleted', 'orphan-0': 'deleted', 'orphan-1': 'kept' });
    assert.deepEqual(await seed.remainingTargets(ns), ['busy', 'orphan-1']);
  });
});

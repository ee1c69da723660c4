/**
 * A skewed cluster on a real API server, as an upgraded one is: PipelineResources in a few
 * namespaces, runs in many. A pass reads runs only where targets in scope are (a run names
 * targets in its own namespace only, and ownerReferences never cross namespaces), one
 * namespace at a time while those are few and in one list across the cluster when they are
 * most; either way it decides exactly what a read of every run decides. The request log
 * (through the fault proxy, with no fault) shows which lists were made.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { configFor, connectionFor, passInProcess } from '../support/pass.js';
import { decideBounded } from '../../src/pass/decisions.js';
import type { Decision, Policy } from '../../src/core/types.js';
import { KubeCluster, PER_NAMESPACE_READ_SHARE, type Scope } from '../../src/kube/cluster.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import type { ReportDocument } from '../../src/report/model.js';
import { startFaultProxy, type FaultProxy, type SeenRequest } from '../support/faultproxy.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, imageResource, pipelineRun, taskRun } from '../support/tekton.js';

/** Namespaces with PipelineResources (and runs); `skew-other` has some too, none matching the selector. */
const TARGET_NAMESPACES = ['skew-a', 'skew-b'];
/** Namespaces with runs only: what an upgraded cluster has hundreds of. */
const RUN_NAMESPACES = Array.from({ length: 8 }, (_, index) => `skew-runs-${index}`);
const SELECTED = { app: 'ci' };

/** A run list (not the re-check's metadata-only one) and where it read: a namespace, or `*` across the cluster. */
function runListsOf(requests: readonly SeenRequest[]): { plural: string; where: string }[] {
  return requests.flatMap((request) => {
    const match = /^\/apis\/tekton\.dev\/[^/]+\/(?:namespaces\/([^/]+)\/)?(pipelineruns|taskruns)$/.exec(request.path);
    if (request.method !== 'GET' || match === null || request.accept.includes('PartialObjectMetadataList')) return [];
    return [{ plural: match[2] ?? '', where: match[1] ?? '*' }];
  });
}

/** What a decision says, keyed by target: the report's items and the core's decisions compare on this. */
function byTarget(items: readonly { namespace: string; name: string; action: string; reason: string; message: string; references: readonly { kind: string; name: string; state: string }[] }[]): Map<string, string> {
  return new Map(items.map((item) => [`${item.namespace}/${item.name}`, `${item.action} ${item.reason}: ${item.message} [${item.references.map((ref) => `${ref.kind}/${ref.name} ${ref.state}`).join(', ')}]`]));
}

function decisionItems(decisions: readonly Decision[]): Parameters<typeof byTarget>[0] {
  return decisions.map((decision) => ({ ...decision, namespace: decision.target.namespace, name: decision.target.name }));
}

describe('a skewed cluster: runs read only where targets are', () => {
  let controlPlane: ControlPlane;
  let proxy: FaultProxy;
  let seed: Seeder;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    for (const namespace of [...TARGET_NAMESPACES, 'skew-other', ...RUN_NAMESPACES]) await seed.namespace(namespace);
    const finished = { state: 'succeeded', finishedAt: hoursAgo(3) } as const;
    for (const namespace of TARGET_NAMESPACES) {
      const meta = (name: string) => ({ name, namespace, labels: SELECTED });
      await seed.create(gitResource(meta('src-active'), 'a1'));
      await seed.create(gitResource(meta('src-done'), 'a2'));
      await seed.create(gitResource(meta('src-orphan'), 'a3'));
      await seed.create(imageResource(meta('img-owned'), 'a4'));
      const build = await seed.create(pipelineRun('v1beta1', { name: 'build', namespace }, { resources: ['src-active'] }), { state: 'running' });
      await seed.create(pipelineRun('v1beta1', { name: 'build-old', namespace }, { resources: ['src-done'] }), finished);
      // A finished child of a running PipelineRun counts as running.
      await seed.create(
        taskRun('v1beta1', { name: 'build-push', namespace, ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build', uid: build.uid, controller: true }] }, { inputs: [], outputs: ['img-owned'] }),
        finished,
      );
    }
    // Targets outside the selector: their namespace's runs are not read either.
    await seed.create(gitResource({ name: 'src-active', namespace: 'skew-other' }, 'o1'));
    await seed.create(pipelineRun('v1beta1', { name: 'build', namespace: 'skew-other' }, { resources: ['src-active'] }), { state: 'running' });
    // Runs elsewhere that name targets of the same names, active and finished, one whose
    // references cannot be read, and a child of a running parent: none can keep a target of
    // skew-a or skew-b, whichever way the pass reads.
    for (const namespace of RUN_NAMESPACES) {
      const parent = await seed.create(pipelineRun('v1beta1', { name: 'build', namespace }, { resources: ['src-done', 'src-orphan'] }), { state: 'running' });
      await seed.create(taskRun('v1beta1', { name: 'scan', namespace }, { inputs: ['src-done'], outputs: [] }), { state: 'pending' });
      await seed.create(
        taskRun('v1beta1', { name: 'build-push', namespace, ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build', uid: parent.uid, controller: true }] }, { inputs: [], outputs: ['img-owned'] }),
        finished,
      );
      await seed.create({ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', metadata: { name: 'weird', namespace }, spec: { resources: 'oops' } }, finished);
    }
  });
  after(async () => {
    await proxy?.stop();
    await controlPlane?.stop();
  });

  /** The decisions from a read of every run in scope (KubeCluster.listRuns without namespaces), as before the pass skipped any. */
  async function decidedOnEveryRun(args: readonly string[]): Promise<{ decisions: Decision[]; runs: number }> {
    const config = configFor(args);
    const http = await KubeHttp.create(await connectionFor(controlPlane.kubeConfig()), httpOptions(config));
    try {
      const cluster = new KubeCluster(http, config.pageSize);
      const apis = await cluster.discover();
      assert.ok(apis !== null);
      const scope: Scope = { namespaces: config.namespaces, excludeNamespaces: config.excludeNamespaces, selector: config.selector };
      const targets = (await cluster.listTargets(apis, scope)).filter((target) => !scope.excludeNamespaces.includes(target.namespace));
      const runs = await cluster.listRuns(apis, scope);
      const namespaces = await cluster.readNamespaces(scope);
      const policy: Policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs };
      return { decisions: decideBounded({ targets, runs, namespaces }, policy, new Date()), runs: runs.length };
    } finally {
      http.close();
    }
  }

  async function dryRun(args: readonly string[]): Promise<{ report: ReportDocument; lists: { plural: string; where: string }[] }> {
    proxy.reset([]);
    const { outcome } = await passInProcess(proxy.kubeConfig(), args);
    assert.equal(outcome.exitCode, 0, JSON.stringify(outcome.report.errors));
    return { report: outcome.report, lists: runListsOf(proxy.requests) };
  }

  test('targets in 2 of 15 namespaces: runs listed in those 2 only, one by one, and every decision as on a read of every run', async () => {
    const args = ['--dry-run', '--min-age', '0s', '--selector', 'app=ci', '--page-size', '2'];
    const { report, lists } = await dryRun(args);
    const everyRun = await decidedOnEveryRun(args);

    assert.deepEqual([...new Set(lists.map((list) => list.where))].sort(), TARGET_NAMESPACES, `run lists: ${JSON.stringify(lists)}`);
    assert.ok(lists.some((list) => list.plural === 'pipelineruns') && lists.some((list) => list.plural === 'taskruns'));
    assert.deepEqual(byTarget(report.items), byTarget(decisionItems(everyRun.decisions)));
    // What the pass decided, so that the comparison is not between two empty reads.
    assert.deepEqual(
      Object.fromEntries([...byTarget(report.items)].map(([target, said]) => [target, said.split(':')[0]])),
      Object.fromEntries(
        TARGET_NAMESPACES.flatMap((namespace) => [
          [`${namespace}/img-owned`, 'keep referenced-by-active-run'],
          [`${namespace}/src-active`, 'keep referenced-by-active-run'],
          [`${namespace}/src-done`, 'delete runs-finished'],
          [`${namespace}/src-orphan`, 'delete unreferenced'],
        ]),
      ),
    );
    // The runs of the two namespaces, against every run in the cluster.
    assert.equal(report.summary.runs, 6);
    assert.equal(everyRun.runs, 6 + 1 + 4 * RUN_NAMESPACES.length);
  });

  test('targets in most namespaces: one list across the cluster less the excluded ones, and the same decisions', async () => {
    // Targets in every run namespace too, named by nothing there; the system namespaces excluded.
    for (const namespace of RUN_NAMESPACES) await seed.create(gitResource({ name: 'src-stray', namespace }, 'r1'));
    const all = await seed.core.listNamespace();
    const system = (all.items ?? []).map((namespace) => namespace.metadata?.name ?? '').filter((name) => !name.startsWith('skew-'));
    const targetNamespaces = [...TARGET_NAMESPACES, 'skew-other', ...RUN_NAMESPACES];
    assert.ok(targetNamespaces.length > PER_NAMESPACE_READ_SHARE * ((all.items ?? []).length - system.length), 'the namespaces with targets are more than the share read one by one');
    const args = ['--dry-run', '--min-age', '0s', '--page-size', '3', ...system.flatMap((name) => ['--exclude-namespace', name])];
    const { report, lists } = await dryRun(args);
    const everyRun = await decidedOnEveryRun(args);

    assert.deepEqual([...new Set(lists.map((list) => list.where))], ['*'], `run lists: ${JSON.stringify(lists)}`);
    assert.deepEqual(byTarget(report.items), byTarget(decisionItems(everyRun.decisions)));
    assert.equal(report.summary.targets, 4 * TARGET_NAMESPACES.length + 1 + RUN_NAMESPACES.length);
    for (const namespace of RUN_NAMESPACES) {
      // Kept: the unreadable run of its namespace hides what it names.
      assert.equal(byTarget(report.items).get(`${namespace}/src-stray`)?.split(':')[0], 'keep unreadable-run');
    }
    assert.equal(report.summary.runs, everyRun.runs);
  });

  test('a live pass deletes what a read of every run decides to delete, and lists no run where no target is', async () => {
    const args = ['--min-age', '0s', '--selector', 'app=ci', '--namespace', ['skew-a', ...RUN_NAMESPACES].join(',')];
    const expected = (await decidedOnEveryRun(args)).decisions.filter((decision) => decision.action === 'delete').map((decision) => decision.target.name);
    proxy.reset([]);
    const { outcome } = await passInProcess(proxy.kubeConfig(), args);
    assert.equal(outcome.exitCode, 0, JSON.stringify(outcome.report.errors));
    assert.deepEqual([...new Set(runListsOf(proxy.requests).map((list) => list.where))], ['skew-a'], 'named namespaces without targets are not read');
    assert.deepEqual(
      outcome.report.items.filter((item) => item.result === 'deleted').map((item) => item.name),
      expected,
    );
    assert.deepEqual(await seed.remainingTargets('skew-a'), ['img-owned', 'src-active']);
  });
});

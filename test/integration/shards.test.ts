/**
 * Shards on a real API server: --namespace-selector limits a pass to the Namespaces whose
 * labels match, as the API server reads the selector. Two shards with disjoint selectors
 * (`shard=a` and `shard!=a`, which also matches a namespace without the label) cover disjoint
 * namespaces and together decide exactly what one unsharded pass decides; live, each deletes
 * only in its own namespaces. With --namespace the shard is an intersection, and
 * --exclude-namespace wins. The request log (through the fault proxy, with no fault) shows
 * what each shard read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { ReportDocument, ReportItem } from '../../src/report/model.js';
import { readsPerNamespace } from '../../src/kube/cluster.js';
import { startFaultProxy, type FaultProxy, type SeenRequest } from '../support/faultproxy.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, imageResource, pipelineRun, taskRun } from '../support/tekton.js';

const SHARD_LABEL = 'tekton-resource-gc.io/shard';
const SHARD_A = ['shard-a-1', 'shard-a-2'];
const SHARD_B = ['shard-b-1', 'shard-b-2'];
/** No shard label: `shard!=a` takes it. */
const UNLABELLED = 'shard-none';
const ALL = [...SHARD_A, ...SHARD_B, UNLABELLED];

const A = `${SHARD_LABEL}=a`;
const NOT_A = `${SHARD_LABEL}!=a`;

/** The namespaces whose Tekton objects a pass read (a namespaced path), `*` for a list across the cluster. */
function namespacesRead(requests: readonly SeenRequest[]): Set<string> {
  const read = new Set<string>();
  for (const request of requests) {
    const match = /^\/apis\/tekton\.dev\/[^/]+\/(?:namespaces\/([^/]+)\/)?(pipelineresources|pipelineruns|taskruns)(\/|$)/.exec(request.path);
    if (match !== null) read.add(match[1] ?? '*');
  }
  return read;
}

function itemKey(item: ReportItem): string {
  return `${item.namespace}/${item.name}`;
}

/** Items without what differs between two passes over the same objects by design: nothing, for a dry run. */
function sortedItems(items: readonly ReportItem[]): ReportItem[] {
  return [...items].sort((a, b) => (itemKey(a) < itemKey(b) ? -1 : itemKey(a) > itemKey(b) ? 1 : 0));
}

describe('shards: --namespace-selector', () => {
  let controlPlane: ControlPlane;
  let proxy: FaultProxy;
  let seed: Seeder;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    for (const namespace of SHARD_A) await seed.namespace(namespace, { [SHARD_LABEL]: 'a' });
    for (const namespace of SHARD_B) await seed.namespace(namespace, { [SHARD_LABEL]: 'b' });
    await seed.namespace(UNLABELLED);
    // The same names in every namespace, decided differently by what each namespace's runs say.
    for (const [index, namespace] of ALL.entries()) {
      const meta = (name: string) => ({ name, namespace });
      await seed.create(gitResource(meta('src-shared-name'), `s${index}`));
      await seed.create(gitResource(meta('src-orphan'), `o${index}`));
      await seed.create(imageResource(meta('img-built'), `i${index}`));
      // Active in every other namespace, finished in the rest.
      const state = index % 2 === 0 ? ({ state: 'running' } as const) : ({ state: 'succeeded', finishedAt: hoursAgo(2) } as const);
      await seed.create(pipelineRun('v1beta1', meta('build'), { resources: ['src-shared-name'] }), state);
      await seed.create(taskRun('v1beta1', meta('push'), { inputs: [], outputs: ['img-built'] }), { state: 'succeeded', finishedAt: hoursAgo(1) });
    }
  });
  after(async () => {
    await proxy?.stop();
    await controlPlane?.stop();
  });

  async function pass(args: readonly string[]): Promise<{ report: ReportDocument; exitCode: number; read: Set<string> }> {
    proxy.reset([]);
    const { outcome } = await passInProcess(proxy.kubeConfig(), ['--min-age', '0s', '--page-size', '2', ...args]);
    return { report: outcome.report, exitCode: outcome.exitCode, read: namespacesRead(proxy.requests) };
  }

  test('two disjoint shards read disjoint namespaces and together decide exactly what one unsharded pass decides', async () => {
    const whole = await pass(['--dry-run']);
    const a = await pass(['--dry-run', '--namespace-selector', A]);
    const notA = await pass(['--dry-run', '--namespace-selector', NOT_A]);
    for (const shard of [whole, a, notA]) assert.equal(shard.exitCode, 0, JSON.stringify(shard.report.errors));

    assert.deepEqual([...a.read].sort(), SHARD_A, 'shard a reads its own namespaces only, one by one');
    // The other shard holds the rest, the server's own namespaces too: its targets may be
    // listed across the cluster (and those of shard a dropped), its runs where its targets are.
    const namespaces = ((await seed.core.listNamespace()).items ?? []).map((namespace) => ({ name: namespace.metadata?.name ?? '', shard: namespace.metadata?.labels?.[SHARD_LABEL] }));
    const notASelected = namespaces.filter((namespace) => namespace.shard !== 'a');
    const acrossTheCluster = readsPerNamespace(notASelected.length, namespaces.length) ? [] : ['*'];
    assert.deepEqual([...notA.read].sort(), [...acrossTheCluster, ...SHARD_B, UNLABELLED].sort(), 'the other shard, the rest');
    const namespacesOf = (report: ReportDocument): string[] => [...new Set(report.items.map((item) => item.namespace))].sort();
    assert.deepEqual(namespacesOf(a.report), SHARD_A);
    assert.deepEqual(namespacesOf(notA.report), [...SHARD_B, UNLABELLED].sort());

    assert.deepEqual(sortedItems([...a.report.items, ...notA.report.items]), sortedItems(whole.report.items));
    assert.equal(a.report.summary.targets + notA.report.summary.targets, whole.report.summary.targets);
    assert.equal(a.report.summary.runs + notA.report.summary.runs, whole.report.summary.runs);
    // Not empty, and not all alike: each namespace decided on its own runs.
    assert.equal(whole.report.summary.targets, 3 * ALL.length);
    assert.deepEqual(whole.report.summary.reasons, { 'referenced-by-active-run': 3, 'runs-finished': 7, unreferenced: 5 });

    assert.equal(a.report.scope.namespaceSelector, A);
    assert.equal(whole.report.scope.namespaceSelector, undefined);
  });

  test('live, each shard deletes only in its own namespaces, and the two leave what one unsharded pass would', async () => {
    const planned = await pass(['--dry-run']);
    const wouldDelete = planned.report.items.filter((item) => item.action === 'delete').map(itemKey).sort();
    const remainingEverywhere = async (): Promise<string[]> => (await Promise.all(ALL.map(async (namespace) => (await seed.remainingTargets(namespace)).map((name) => `${namespace}/${name}`)))).flat().sort();
    const before = await remainingEverywhere();

    const a = await pass(['--namespace-selector', A]);
    assert.equal(a.exitCode, 0, JSON.stringify(a.report.errors));
    const deletedByA = a.report.items.filter((item) => item.result === 'deleted').map(itemKey).sort();
    assert.deepEqual(deletedByA, wouldDelete.filter((key) => SHARD_A.some((namespace) => key.startsWith(`${namespace}/`))));
    assert.deepEqual(await remainingEverywhere(), before.filter((key) => !deletedByA.includes(key)), 'shard a deleted nothing outside its namespaces');
    assert.deepEqual([...a.read].sort(), SHARD_A);

    const notA = await pass(['--namespace-selector', NOT_A]);
    assert.equal(notA.exitCode, 0, JSON.stringify(notA.report.errors));
    const deletedByNotA = notA.report.items.filter((item) => item.result === 'deleted').map(itemKey).sort();
    assert.ok(deletedByNotA.every((key) => !SHARD_A.some((namespace) => key.startsWith(`${namespace}/`))));
    assert.deepEqual([...deletedByA, ...deletedByNotA].sort(), wouldDelete);
    assert.deepEqual(await remainingEverywhere(), planned.report.items.filter((item) => item.action === 'keep').map(itemKey).sort());
  });

  test('with --namespace the shard is the named namespaces it matches; --exclude-namespace wins; a selector matching none reads no Tekton object', async () => {
    const named = await pass(['--dry-run', '--namespace-selector', A, '--namespace', [SHARD_A[0], SHARD_B[0]].join(',')]);
    assert.deepEqual([...named.read], [SHARD_A[0]]);
    assert.deepEqual([...new Set(named.report.items.map((item) => item.namespace))], [SHARD_A[0]]);

    const excluded = await pass(['--dry-run', '--namespace-selector', A, '--exclude-namespace', SHARD_A[0] ?? '']);
    assert.deepEqual([...excluded.read], [SHARD_A[1]]);

    const none = await pass(['--dry-run', '--namespace-selector', `${SHARD_LABEL}=z`]);
    assert.equal(none.exitCode, 0);
    assert.deepEqual([...none.read], []);
    assert.equal(none.report.summary.targets, 0);
    assert.equal(none.report.summary.runs, 0);
  });
});

/**
 * The delete phase with leftover collectors on (deletephase.ts), on a fake cluster whose clock
 * stands still: the delete order by collector, the re-check of Pods and StatefulSets between
 * collectors (a StatefulSet deleted first no longer holds its claim, one that stays does), a
 * claim left Terminating, no second DELETE, and --pvc-finalizer purge only once no running Pod
 * names the claim. The caps that stop a pass before any of this are in caps.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capBreaches, countedCandidates } from '../../src/caps.js';
import type { ClusterView, Decision, PodRecord, StatefulSetRecord, TargetRecord } from '../../src/core/types.js';
import { decideBounded } from '../../src/decisions.js';
import { deleteCandidates, type DeletePhaseDeps } from '../../src/deletephase.js';
import type { Remaining } from '../../src/kube/api.js';
import type { ServedApis, TargetDeleteOutcome } from '../../src/kube/cluster.js';
import { KubeError } from '../../src/kube/errors.js';
import type { Result } from '../../src/report/model.js';
import { affinityClaim, affinityStatefulSet, claim, lrun, pacSecret, pod, statefulSet } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY } from '../fixtures/unit/records.js';

const APIS: ServedApis = {
  targets: {
    'affinity-assistants': { group: 'apps', version: 'v1', plural: 'statefulsets' },
    'pac-secrets': { group: '', version: 'v1', plural: 'secrets' },
    'workspace-pvcs': { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
  },
  runs: {
    PipelineRun: { resource: { group: 'tekton.dev', version: 'v1', plural: 'pipelineruns' } },
    TaskRun: { resource: { group: 'tekton.dev', version: 'v1', plural: 'taskruns' } },
  },
  pods: { group: '', version: 'v1', plural: 'pods' },
  statefulSets: { group: 'apps', version: 'v1', plural: 'statefulsets' },
  leftovers: true,
  skipped: [],
};
const SCOPE = { namespaces: [], excludeNamespaces: [], selector: '' };
const POLICY_NOW = { ...POLICY, minAgeMs: 0 };
const PROTECTION = 'kubernetes.io/pvc-protection';

/** What the fake API server holds; every request the phase makes is written down in order. */
class FakeCluster {
  readonly requests: string[] = [];
  readonly purges: { name: string; seen: Remaining }[] = [];
  /** Per target name: what its DELETE answers (default: deleted), or a refusal. */
  readonly onDelete = new Map<string, TargetDeleteOutcome | KubeError>();
  readonly onPurge = new Map<string, TargetDeleteOutcome>();

  constructor(
    public pods: PodRecord[],
    public statefulSets: StatefulSetRecord[],
  ) {}

  readonly api: DeletePhaseDeps['cluster'] = {
    runsChangedSince: () => {
      this.requests.push('list runs');
      return Promise.resolve({ changed: [], goneUids: new Set<string>() });
    },
    readNamespaces: () => Promise.resolve(new Map()),
    listPods: (_apis, _scope, namespaces) => {
      this.requests.push(`list pods ${namespaces.join(',')}`);
      return Promise.resolve(this.pods.filter((held) => namespaces.includes(held.namespace)));
    },
    listStatefulSets: (_apis, _scope, namespaces) => {
      this.requests.push(`list statefulsets ${namespaces.join(',')}`);
      return Promise.resolve(this.statefulSets.filter((sts) => namespaces.includes(sts.namespace)));
    },
    readTarget: () => Promise.resolve(null),
    deleteTarget: (_apis, record) => {
      this.requests.push(`delete ${record.kind} ${record.name}`);
      const answer = this.onDelete.get(record.name) ?? { outcome: 'deleted' };
      if (answer instanceof KubeError) return Promise.reject(answer);
      // A StatefulSet deleted is gone from the next list of StatefulSets.
      if (answer.outcome === 'deleted') this.statefulSets = this.statefulSets.filter((sts) => sts.uid !== record.uid);
      return Promise.resolve(answer);
    },
    purgeClaimProtection: (_apis, record, seen) => {
      this.requests.push(`patch ${record.name}`);
      this.purges.push({ name: record.name, seen });
      return Promise.resolve(this.onPurge.get(record.name) ?? { outcome: 'deleted' });
    },
  };
}

/** A finished PipelineRun that owns everything below, run as a pass would: decide, then delete. */
const PR = lrun('pr-1', { state: 'succeeded' });

async function pass(
  targets: readonly TargetRecord[],
  cluster: FakeCluster,
  pvcFinalizer: 'keep' | 'purge' = 'keep',
): Promise<{ decisions: Decision[]; results: Map<string, Result>; byName: (name: string) => { result: Result | undefined; decision: Decision | undefined } }> {
  const view: ClusterView = { targets, runs: [PR], namespaces: new Map(), pods: cluster.pods, statefulSets: cluster.statefulSets };
  const decisions = decideBounded(view, POLICY_NOW, NOW);
  const logs: string[] = [];
  const log = { debug: () => undefined, info: (_f: unknown, m?: string) => logs.push(m ?? ''), warn: () => undefined, error: () => undefined };
  const outcome = await deleteCandidates(
    { cluster: cluster.api, now: () => NOW, log, signal: new AbortController().signal, sleep: () => Promise.resolve() },
    APIS,
    { policy: POLICY_NOW, scope: SCOPE, view: { view, readAt: NOW.getTime(), readMs: 1 }, decisions, limits: { qps: 1000, concurrency: 4, maxAttempts: 1 }, pvcFinalizer },
  );
  const byName = (name: string): { result: Result | undefined; decision: Decision | undefined } => {
    const decision = outcome.decisions.find((one) => one.target.name === name);
    return { decision, result: decision === undefined ? undefined : outcome.results.get(decision.target.uid) };
  };
  return { decisions: outcome.decisions, results: outcome.results, byName };
}

describe('delete phase: leftovers', () => {
  const sts = affinityStatefulSet('affinity-assistant-0123456789', PR);
  const stsClaim = affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1');
  const holding = statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'], { uid: sts.uid });

  it('deletes collector by collector (StatefulSets, Secrets, claims) and re-reads Pods and StatefulSets before the claims', async () => {
    const cluster = new FakeCluster([], [holding]);
    const { byName } = await pass([claim('ws-pvc', PR), pacSecret('pac-gitauth-abcdef', PR), sts, stsClaim], cluster);
    const deletes = cluster.requests.filter((request) => request.startsWith('delete'));
    assert.deepEqual(deletes, [
      'delete StatefulSet affinity-assistant-0123456789',
      'delete Secret pac-gitauth-abcdef',
      'delete PersistentVolumeClaim pvc-0123abcd-affinity-assistant-0123456789-0',
      'delete PersistentVolumeClaim ws-pvc',
    ]);
    // The claims' re-check reads StatefulSets after the StatefulSet's delete settled.
    const lastStsDelete = cluster.requests.indexOf('delete StatefulSet affinity-assistant-0123456789');
    const firstClaimDelete = cluster.requests.findIndex((request) => request.startsWith('delete PersistentVolumeClaim'));
    const relisted = cluster.requests.slice(lastStsDelete, firstClaimDelete);
    assert.ok(relisted.includes('list statefulsets ci') && relisted.includes('list pods ci'), relisted.join('; '));
    for (const name of ['affinity-assistant-0123456789', 'pac-gitauth-abcdef', 'ws-pvc']) assert.equal(byName(name).result, 'deleted', name);
  });

  it('keeps a claim whose StatefulSet was decided for deletion but stays (its delete failed): it still holds the claim', async () => {
    const cluster = new FakeCluster([], [holding]);
    cluster.onDelete.set(sts.name, new KubeError(403, { verb: 'delete', resource: 'statefulsets.apps', namespace: 'ci' }, 'forbidden'));
    const { byName } = await pass([sts, stsClaim], cluster);
    assert.equal(byName(sts.name).result, 'failed');
    assert.equal(cluster.requests.some((request) => request === `delete PersistentVolumeClaim ${stsClaim.name}`), false);
    const { decision, result } = byName(stsClaim.name);
    assert.equal(result, undefined);
    assert.equal(decision?.reason, 'in-use-by-statefulset');
  });

  it('reports a claim its DELETE leaves Terminating as terminating, held by the Pods that name it (keep mode: no patch)', async () => {
    const holder = pod('build-pod', { claims: ['ws-pvc'], phase: 'Succeeded' });
    const cluster = new FakeCluster([holder], []);
    cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
    const { byName } = await pass([claim('ws-pvc', PR)], cluster);
    const { result, decision } = byName('ws-pvc');
    assert.equal(result, 'terminating');
    assert.deepEqual(decision?.heldBy, [{ kind: 'Pod', name: 'build-pod', phase: 'Succeeded' }]);
    assert.equal(cluster.purges.length, 0);
  });

  it('sends nothing for a claim already Terminating in keep mode, and reports it terminating', async () => {
    const cluster = new FakeCluster([], []);
    const { byName } = await pass([claim('ws-pvc', PR, { deletionTimestamp: '2026-11-29T11:00:00Z' })], cluster);
    assert.equal(byName('ws-pvc').result, 'terminating');
    assert.deepEqual(cluster.requests.filter((request) => request.startsWith('delete') || request.startsWith('patch')), []);
  });

  it('purge: removes the finalizer with the resourceVersion of the DELETE answer once every Pod naming the claim has finished', async () => {
    const cluster = new FakeCluster([pod('build-pod', { claims: ['ws-pvc'], phase: 'Succeeded' }), pod('other', { claims: ['other-pvc'] })], []);
    cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
    const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
    assert.deepEqual(cluster.purges, [{ name: 'ws-pvc', seen: { resourceVersion: '8', finalizers: [PROTECTION] } }]);
    assert.equal(byName('ws-pvc').result, 'deleted');
    // The Pods were listed again between the DELETE and the patch.
    const at = cluster.requests.indexOf('delete PersistentVolumeClaim ws-pvc');
    assert.deepEqual(cluster.requests.slice(at + 1), ['list pods ci', 'patch ws-pvc']);
  });

  it('purge: no patch while a Pod naming the claim runs (or has no phase yet); terminating, held by it', async () => {
    for (const phase of ['Running', undefined]) {
      const running = pod('build-pod', { claims: ['ws-pvc'], ...(phase === undefined ? { phase: undefined } : { phase }) });
      const cluster = new FakeCluster([], []);
      cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
      // The Pod appears after the listing: only the purge's own list sees it.
      const api = cluster.api;
      cluster.pods = [];
      const listPods = api.listPods;
      api.listPods = (...args) => {
        cluster.pods = [running];
        return listPods(...args);
      };
      const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
      assert.equal(cluster.purges.length, 0, String(phase));
      const { result, decision } = byName('ws-pvc');
      assert.equal(result, 'terminating');
      assert.deepEqual(decision?.heldBy, [running.phase === undefined ? { kind: 'Pod', name: 'build-pod' } : { kind: 'Pod', name: 'build-pod', phase: 'Running' }]);
    }
  });

  it('purge: a claim already Terminating gets no DELETE, only the patch, with the resourceVersion and finalizers it was listed with', async () => {
    const snapshot = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
    const cluster = new FakeCluster([], []);
    cluster.onPurge.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '9', finalizers: [snapshot] } });
    const { byName } = await pass([claim('ws-pvc', PR, { deletionTimestamp: '2026-11-29T11:00:00Z', resourceVersion: '5', finalizers: [snapshot, PROTECTION] })], cluster, 'purge');
    assert.equal(cluster.requests.some((request) => request.startsWith('delete')), false);
    assert.deepEqual(cluster.purges, [{ name: 'ws-pvc', seen: { resourceVersion: '5', finalizers: [snapshot, PROTECTION] } }]);
    // Another finalizer holds it: never touched, still terminating.
    assert.equal(byName('ws-pvc').result, 'terminating');
  });

  it('purge: a claim changed since it was seen (409/422) is changed, and one gone before the patch is deleted', async () => {
    for (const [purged, expected] of [[{ outcome: 'changed' }, 'changed'], [{ outcome: 'gone' }, 'deleted']] as const) {
      const cluster = new FakeCluster([], []);
      cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
      cluster.onPurge.set('ws-pvc', purged);
      const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
      assert.equal(byName('ws-pvc').result, expected);
    }
  });
});

describe('caps', () => {
  const terminating = { deletionTimestamp: '2026-11-29T11:00:00Z' };
  const decisionsOf = (targets: readonly TargetRecord[]): Decision[] =>
    decideBounded({ targets, runs: [PR], namespaces: new Map(), pods: [], statefulSets: [] }, POLICY_NOW, NOW).filter((decision) => decision.action === 'delete');
  const six = decisionsOf(Array.from({ length: 6 }, (_, index) => claim(`pvc-${index}`, PR)));

  it('counts one per target acted on; a claim already Terminating counts only under purge', () => {
    const mixed = decisionsOf([claim('a', PR), claim('b', PR, terminating), pacSecret('pac-gitauth-x', PR)]);
    assert.equal(mixed.length, 3);
    assert.equal(countedCandidates(mixed, 'keep').length, 2);
    assert.equal(countedCandidates(mixed, 'purge').length, 3);
  });

  it('six deletable claims over workspace-pvcs=5: that cap, and only it, is exceeded', () => {
    assert.deepEqual(capBreaches(six, { maxDeletions: 1000, maxDeletionsPerKind: { 'workspace-pvcs': 5, 'pac-secrets': 0 }, pvcFinalizer: 'keep' }), [
      { flag: '--max-deletions-per-kind workspace-pvcs=5', limit: 5, count: 6, collector: 'workspace-pvcs' },
    ]);
    assert.deepEqual(capBreaches(six, { maxDeletions: 1000, maxDeletionsPerKind: { 'workspace-pvcs': 6 }, pvcFinalizer: 'keep' }), []);
  });

  it('--max-deletions counts every collector, and both caps may be exceeded at once', () => {
    const all = [...six, ...decisionsOf([pacSecret('pac-gitauth-x', PR)])];
    assert.deepEqual(capBreaches(all, { maxDeletions: 6, maxDeletionsPerKind: { 'pac-secrets': 0 }, pvcFinalizer: 'keep' }), [
      { flag: '--max-deletions 6', limit: 6, count: 7 },
      { flag: '--max-deletions-per-kind pac-secrets=0', limit: 0, count: 1, collector: 'pac-secrets' },
    ]);
  });

  it('already-Terminating claims in keep mode do not count against a cap', () => {
    const waiting = decisionsOf(Array.from({ length: 6 }, (_, index) => claim(`pvc-${index}`, PR, terminating)));
    assert.deepEqual(capBreaches(waiting, { maxDeletions: 0, maxDeletionsPerKind: { 'workspace-pvcs': 0 }, pvcFinalizer: 'keep' }), []);
    assert.equal(capBreaches(waiting, { maxDeletions: 0, pvcFinalizer: 'purge' }).length, 1);
  });
});

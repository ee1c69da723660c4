/**
 * Properties of decide() over generated clusters with leftovers, checked against an oracle
 * written here from docs/spec.md ("Leftovers") by scanning every run, Pod and StatefulSet,
 * rather than from the graph's indexes. Seeded: set TRGC_FC_SEED to replay a failure.
 *
 * The oracle: a leftover decided `delete` has no active linked run (its owner by kind and uid,
 * the PipelineRun its label names, the PipelineRun whose git-auth annotation names it, a run
 * whose workspace binds it; a child TaskRun of an active PipelineRun is active), no Pod that
 * has not finished using it, no StatefulSet naming it that this pass does not delete, no run
 * in its namespace whose links are unknown, and no retain on it or on an owner run. Each guard
 * counts how often it was met, so a generator that never meets one fails the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decide } from '../../src/core/decide.js';
import { isActive } from '../../src/core/runs.js';
import type { ClusterView, Decision, LeftoverTarget, OwnerRef, PodRecord, Policy, ReadProblem, RunKindName, RunRecord, RunState, StatefulSetRecord, TargetKindName, TargetRecord } from '../../src/core/types.js';
import { NOW } from '../fixtures/unit/records.js';

const SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261201);
const PREFIX = 'tekton-resource-gc.io';
const HOUR = 3_600_000;
const POLICY: Policy = { labelPrefix: PREFIX, minAgeMs: HOUR };
const RUN_NAMES = ['r0', 'r1', 'r2'] as const;
const UIDS = ['u0', 'u1', 'u2', 'u3'] as const;
const CLAIMS = ['c0', 'c1', 'c2'] as const;
const SECRETS = ['pac-gitauth-s0', 'pac-gitauth-s1'] as const;
const STS_NAMES = ['affinity-assistant-a', 'affinity-assistant-b'] as const;
const ACTIVE_POD = (phase: string | undefined): boolean => phase !== 'Succeeded' && phase !== 'Failed';

const namespaceArb = fc.oneof({ arbitrary: fc.constantFrom('a', 'b'), weight: 30 }, { arbitrary: fc.constant(''), weight: 1 });
const problemsArb = fc.oneof(
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>([]), weight: 25 },
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>([{ field: 'spec.workspaces', problem: 'expected an array, found a string' }]), weight: 1 },
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>(undefined), weight: 1 },
);

const runArb = fc.record({
  kind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  namespace: namespaceArb,
  name: fc.constantFrom(...RUN_NAMES),
  uid: fc.constantFrom(...UIDS),
  state: fc.constantFrom<RunState>('pending', 'running', 'succeeded', 'failed', 'cancelled'),
  parentUid: fc.option(fc.constantFrom(...UIDS), { nil: undefined }),
  claims: fc.subarray([...CLAIMS, ...STS_NAMES.map((sts) => `data-${sts}-0`)], { maxLength: 2 }),
  secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
  gitAuthSecret: fc.option(fc.constantFrom(...SECRETS), { nil: undefined, freq: 3 }),
  retain: fc.option(fc.constantFrom('true', 'false'), { nil: undefined, freq: 5 }),
  leftoverProblems: problemsArb,
});

/** A PipelineRun and a finished child TaskRun that binds leftovers of its parent: a link whose state is its parent's. */
const familyArb = fc
  .record({
    namespace: fc.constantFrom('a', 'b'),
    parentUid: fc.constantFrom(...UIDS),
    parentName: fc.constantFrom(...RUN_NAMES),
    parentState: fc.constantFrom<RunState>('pending', 'running', 'succeeded'),
    childUid: fc.constantFrom('k0', 'k1'),
    claims: fc.subarray([...CLAIMS, ...STS_NAMES.map((sts) => `data-${sts}-0`)], { minLength: 1, maxLength: 2 }),
    secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
  })
  .map((f) => [
    { kind: 'PipelineRun' as const, namespace: f.namespace, name: f.parentName, uid: f.parentUid, state: f.parentState, parentUid: undefined, claims: [], secrets: [], gitAuthSecret: undefined, retain: undefined, leftoverProblems: [] },
    { kind: 'TaskRun' as const, namespace: f.namespace, name: `${f.parentName}-task`, uid: f.childUid, state: 'succeeded' as const, parentUid: f.parentUid, claims: f.claims, secrets: f.secrets, gitAuthSecret: undefined, retain: undefined, leftoverProblems: [] },
  ]);

const podArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom('p0', 'p1', 'p2'),
  phase: fc.constantFrom(undefined, 'Running', 'Pending', 'Succeeded', 'Failed', 'Unknown'),
  claims: fc.subarray([...CLAIMS], { maxLength: 1 }),
  secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
});

const holderStsArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom(...STS_NAMES, 'db'),
  claims: fc.subarray([...CLAIMS], { maxLength: 1 }),
});

const targetArb = fc.record({
  kind: fc.constantFrom<TargetKindName>('PersistentVolumeClaim', 'Secret', 'StatefulSet'),
  namespace: fc.constantFrom('a', 'b'),
  index: fc.nat({ max: 2 }),
  ownerKind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  ownerUid: fc.option(fc.constantFrom(...UIDS, 'u-gone'), { nil: undefined, freq: 4 }),
  ownerName: fc.constantFrom(...RUN_NAMES),
  affinity: fc.boolean(),
  label: fc.constantFrom(...RUN_NAMES, 'r-gone'),
  retain: fc.option(fc.constantFrom('true', 'false'), { nil: undefined, freq: 6 }),
  young: fc.boolean(),
});

const clusterArb = fc.record({
  runs: fc.tuple(fc.array(runArb, { maxLength: 6 }), fc.array(familyArb, { maxLength: 2 })).map(([runs, families]) => [...runs, ...families.flat()]),
  pods: fc.array(podArb, { maxLength: 3 }),
  statefulSets: fc.array(holderStsArb, { maxLength: 2 }),
  targets: fc.array(targetArb, { minLength: 1, maxLength: 6 }),
});

type Cluster = typeof clusterArb extends fc.Arbitrary<infer T> ? T : never;

function toRun(generated: Cluster['runs'][number]): RunRecord {
  const finished = !isActive(generated.state);
  return {
    kind: generated.kind,
    namespace: generated.namespace,
    name: generated.name,
    uid: generated.uid,
    resourceVersion: '1',
    state: generated.state,
    ...(finished && { finishedAt: new Date(NOW.getTime() - 2 * HOUR).toISOString() }),
    references: [],
    ...(generated.kind === 'TaskRun' && generated.parentUid !== undefined && { parentPipelineRun: { name: 'r0', uid: generated.parentUid } }),
    problems: [],
    workspaces: generated.leftoverProblems?.length === 0 ? { claims: generated.claims, secrets: generated.secrets } : generated.leftoverProblems === undefined ? { claims: [], secrets: [] } : null,
    ...(generated.gitAuthSecret !== undefined && { gitAuthSecret: generated.gitAuthSecret }),
    ...(generated.retain !== undefined && { retain: { labels: { [`${PREFIX}/retain`]: generated.retain }, annotations: {} } }),
    ...(generated.leftoverProblems !== undefined && { leftoverProblems: generated.leftoverProblems }),
  };
}

function toTarget(generated: Cluster['targets'][number], position: number): TargetRecord {
  const owner: OwnerRef[] = generated.ownerUid === undefined ? [] : [{ kind: generated.kind === 'StatefulSet' ? 'PipelineRun' : generated.ownerKind, name: generated.ownerName, uid: generated.ownerUid, controller: generated.kind !== 'Secret' }];
  const common: Pick<TargetRecord, 'namespace' | 'uid' | 'resourceVersion' | 'createdAt' | 'labels' | 'annotations'> = {
    namespace: generated.namespace,
    uid: `t-${position}`,
    resourceVersion: '1',
    createdAt: new Date(NOW.getTime() - (generated.young ? 0.5 : 30) * HOUR).toISOString(),
    labels: generated.retain === undefined ? {} : { [`${PREFIX}/retain`]: generated.retain },
    annotations: {},
  };
  switch (generated.kind) {
    case 'PersistentVolumeClaim': {
      const affinity = generated.affinity || owner.length === 0;
      const leftover: LeftoverTarget = affinity ? { marker: 'affinity-assistant', pipelineRunLabel: generated.label } : { marker: 'owned' };
      const name = affinity ? `data-${STS_NAMES[generated.index % 2] ?? ''}-0` : CLAIMS[generated.index] ?? 'c0';
      return {
        ...common,
        kind: 'PersistentVolumeClaim',
        name,
        ownerReferences: affinity ? [] : owner,
        finalizers: ['kubernetes.io/pvc-protection'],
        leftover,
      };
    }
    case 'Secret':
      return { ...common, kind: 'Secret', name: SECRETS[generated.index % 2] ?? 'pac-gitauth-s0', ownerReferences: owner, leftover: { marker: 'pac-secret' } };
    default:
      return {
        ...common,
        kind: 'StatefulSet',
        name: STS_NAMES[generated.index % 2] ?? 'affinity-assistant-a',
        ownerReferences: owner.length === 0 ? [{ kind: 'PipelineRun', name: generated.ownerName, uid: 'u-gone', controller: true }] : owner,
        leftover: { marker: 'statefulset', pipelineRunLabel: generated.label },
      };
  }
}

function viewOf(cluster: Cluster): ClusterView {
  const targets = cluster.targets.map(toTarget);
  // One object per namespace and name: the API server has no two.
  const unique = [...new Map(targets.map((t) => [`${t.namespace}/${t.kind}/${t.name}`, t])).values()];
  const pods: PodRecord[] = cluster.pods.map((p) => ({ namespace: p.namespace, name: p.name, ...(p.phase !== undefined && { phase: p.phase }), claims: p.claims, secrets: p.secrets }));
  // A StatefulSet target is also listed as a holder, with the claim its template makes.
  const holders: StatefulSetRecord[] = [
    ...cluster.statefulSets.map((s, i) => ({ namespace: s.namespace, name: `${s.name}-${i}`, uid: `h-${i}`, claims: s.claims, claimStems: [] })),
    ...unique.filter((t) => t.kind === 'StatefulSet').map((t) => ({ namespace: t.namespace, name: t.name, uid: t.uid, claims: [`data-${t.name}-0`], claimStems: [] })),
  ];
  const runs = [...new Map(cluster.runs.map(toRun).map((r) => [`${r.kind}/${r.uid}`, r])).values()];
  return { targets: unique, runs, namespaces: new Map(), pods, statefulSets: holders };
}

/** Why the oracle says the decision must keep `target`, or null. Counts each guard it meets. */
function mustKeep(target: TargetRecord, view: ClusterView, deleted: ReadonlySet<string>, met: Map<string, number>): string | null {
  const count = (guard: string): void => void met.set(guard, (met.get(guard) ?? 0) + 1);
  const here = view.runs.filter((r) => r.namespace === target.namespace || r.namespace === '');
  if (here.some((r) => r.leftoverProblems === undefined || r.leftoverProblems.length > 0)) return (count('unreadable run'), 'a run whose links are unknown');
  if (target.labels[`${PREFIX}/retain`] === 'true') return (count('retained'), 'retained');
  const effective = (r: RunRecord): boolean => {
    if (isActive(r.state)) return true;
    const parent = r.parentPipelineRun && view.runs.find((p) => p.kind === 'PipelineRun' && p.uid === r.parentPipelineRun?.uid && p.namespace === r.namespace);
    return parent !== undefined && isActive(parent.state);
  };
  const sameNamespace = view.runs.filter((r) => r.namespace === target.namespace);
  const owners = sameNamespace.filter((r) => target.ownerReferences.some((o) => o.kind === r.kind && o.uid === r.uid));
  const labelOwners = target.ownerReferences.length === 0 ? sameNamespace.filter((r) => r.kind === 'PipelineRun' && r.name === target.leftover?.pipelineRunLabel) : [];
  if ([...owners, ...labelOwners].some((r) => r.retain?.labels[`${PREFIX}/retain`] === 'true')) return (count('owner retained'), 'retained on its owner');
  const linked = sameNamespace.filter(
    (r) =>
      owners.includes(r) ||
      (r.kind === 'PipelineRun' && target.kind !== 'Secret' && r.name === target.leftover?.pipelineRunLabel) ||
      (target.kind === 'Secret' && r.kind === 'PipelineRun' && r.gitAuthSecret === target.name) ||
      (target.kind === 'PersistentVolumeClaim' && r.workspaces?.claims.includes(target.name) === true) ||
      (target.kind === 'Secret' && r.workspaces?.secrets.includes(target.name) === true),
  );
  if (linked.some((r) => isActive(r.state))) return (count('active linked run'), 'an active linked run');
  if (linked.some(effective)) return (count('child of an active PipelineRun'), 'a linked TaskRun of an active PipelineRun');
  const named = (p: PodRecord): boolean => (target.kind === 'PersistentVolumeClaim' ? p.claims.includes(target.name) : target.kind === 'Secret' && p.secrets.includes(target.name));
  if ((view.pods ?? []).some((p) => p.namespace === target.namespace && named(p) && ACTIVE_POD(p.phase))) return (count('active Pod'), 'an active Pod');
  if (target.kind === 'PersistentVolumeClaim' && (view.statefulSets ?? []).some((s) => s.namespace === target.namespace && s.claims.includes(target.name) && !deleted.has(s.uid))) {
    return (count('StatefulSet kept'), 'a StatefulSet this pass keeps');
  }
  count('free');
  return null;
}

describe('leftover properties', () => {
  it('decide never deletes a leftover an active linked run, an active Pod, a kept StatefulSet, retain or an unreadable run holds', (t) => {
    const met = new Map<string, number>();
    let deletes = 0;
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const view = viewOf(cluster);
        const decisions: Decision[] = decide(view, POLICY, NOW);
        assert.equal(decisions.length, view.targets.length);
        const deleted = new Set(decisions.filter((d) => d.action === 'delete').map((d) => d.target.uid));
        for (const decision of decisions) {
          const why = mustKeep(decision.target, view, deleted, met);
          if (decision.action === 'delete') {
            deletes++;
            assert.equal(why, null, `${decision.target.kind} ${decision.target.namespace}/${decision.target.name} deleted (${decision.reason}: ${decision.message}) though ${why ?? ''}`);
            assert.ok(['runs-finished', 'owner-gone', 'unreferenced'].includes(decision.reason));
          }
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
    t.diagnostic(`guards met: ${JSON.stringify(Object.fromEntries(met))}; deletes: ${deletes}`);
    for (const guard of ['unreadable run', 'retained', 'owner retained', 'active linked run', 'child of an active PipelineRun', 'active Pod', 'StatefulSet kept', 'free']) {
      assert.ok((met.get(guard) ?? 0) >= 20, `${guard} met ${met.get(guard) ?? 0} times: the generator hardly reaches it`);
    }
    assert.ok(deletes >= 100, `only ${deletes} deletes: the property is hardly checked`);
  });
});

/**
 * What holds a claim, end to end through the core: API objects as the adapter lists them
 * (claims, StatefulSets, Pods), turned into records by the collectors that are on, decided, and
 * re-decided for a pass that may delete only some targets (`apply`: the plan's unchanged
 * entries). For every combination of --collect, a claim is never decided `delete` while a
 * StatefulSet that survives the pass names it, or a Pod that has not finished mounts it.
 *
 * The oracle reads the API objects themselves, as Kubernetes does, and not the records:
 * - a StatefulSet names the claims its Pod template mounts, and `<template>-<name>-<ordinal>` for
 *   every ordinal, whatever `replicas` and `ordinals.start` are now: scaled down (to 0 too), it keeps
 *   those claims (persistentVolumeClaimRetentionPolicy whenScaled: Retain, the default) and mounts
 *   them again when scaled up;
 * - a StatefulSet survives the pass unless its own decision is `delete` and the pass may delete it.
 * Seeded: set TRGC_FC_SEED to replay a failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { COLLECTOR_NAMES, COLLECTORS, type CollectorName } from '../../src/core/collectors.js';
import { decide } from '../../src/core/decide.js';
import { toPodRecord, toStatefulSetRecord } from '../../src/core/holders.js';
import type { ClusterView, Decision, RunRecord, TargetRecord } from '../../src/core/types.js';
import { redecide } from '../../src/pass/deletephase.js';
import { affinityClaimObject, affinityStatefulSetObject, lrun, ownedClaimObject, ownerReference, pacSecretObject } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY } from '../fixtures/unit/records.js';

type Obj = Record<string, unknown>;

const SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261203);
const STS_NAMES = ['affinity-assistant-0a0a0a0a0a', 'affinity-assistant-1b1b1b1b1b', 'db'] as const;
const TEMPLATES = ['pvc-0123abcd', 'data'] as const;
const PLAIN_CLAIMS = ['shared', 'cache'] as const;
const RUNS = ['pr-done', 'pr-running'] as const;

/** The claims a generated cluster may hold: plain names, and `<template>-<sts>-<ordinal>` for ordinals 0 to 3 and 12. */
const CLAIM_NAMES: readonly string[] = [...PLAIN_CLAIMS, ...STS_NAMES.flatMap((sts) => TEMPLATES.flatMap((tpl) => [0, 1, 2, 3, 12].map((ordinal) => `${tpl}-${sts}-${ordinal}`)))];

const statefulSetArb = fc.record({
  name: fc.constantFrom(...STS_NAMES),
  run: fc.constantFrom(...RUNS, 'pr-gone'),
  // undefined: the field left out (the API server defaults it to 1).
  replicas: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
  ordinalsStart: fc.option(fc.nat({ max: 12 }), { nil: undefined, freq: 3 }),
  templates: fc.subarray([...TEMPLATES], { maxLength: 2 }),
  mounts: fc.subarray([...PLAIN_CLAIMS], { maxLength: 1 }),
});

const claimArb = fc.record({
  name: fc.constantFrom(...CLAIM_NAMES),
  // Owned by a run (as a volumeClaimTemplate's claim is), or an affinity assistant's (no owner, its labels).
  owner: fc.constantFrom(...RUNS, 'pr-gone', 'none'),
});

const podArb = fc.record({
  name: fc.constantFrom('p0', 'p1'),
  phase: fc.constantFrom(undefined, 'Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'),
  claim: fc.constantFrom(...CLAIM_NAMES),
});

const clusterArb = fc.record({
  collect: fc.subarray([...COLLECTOR_NAMES], { minLength: 1 }),
  statefulSets: fc.uniqueArray(statefulSetArb, { maxLength: 3, selector: (sts) => sts.name }),
  claims: fc.uniqueArray(claimArb, { minLength: 1, maxLength: 6, selector: (claim) => claim.name }),
  pods: fc.uniqueArray(podArb, { maxLength: 2, selector: (pod) => pod.name }),
  secret: fc.boolean(),
  // The targets the pass may delete: all (a live pass), or a generated part (apply of a plan).
  mayDelete: fc.option(fc.func(fc.boolean()), { nil: undefined }),
});

type Cluster = typeof clusterArb extends fc.Arbitrary<infer T> ? T : never;

interface Objects {
  claims: Obj[];
  statefulSets: Obj[];
  pods: Obj[];
  secrets: Obj[];
}

function objectsOf(cluster: Cluster): Objects {
  const statefulSets = cluster.statefulSets.map((sts) =>
    affinityStatefulSetObject(sts.run, sts.name, {
      ...(sts.name === 'db' && { labels: { 'app.kubernetes.io/component': undefined, 'tekton.dev/pipelineRun': undefined }, metadata: { ownerReferences: [] } }),
      spec: {
        ...(sts.replicas === undefined ? { replicas: undefined } : { replicas: sts.replicas }),
        ...(sts.ordinalsStart !== undefined && { ordinals: { start: sts.ordinalsStart } }),
        volumeClaimTemplates: sts.templates.map((name) => ({ metadata: { name } })),
        template: { spec: { containers: [{ name: 'c' }], volumes: sts.mounts.map((claimName) => ({ name: 'v', persistentVolumeClaim: { claimName } })) } },
      },
    }),
  );
  const claims = cluster.claims.map((claim) => {
    if (claim.owner !== 'none') return ownedClaimObject(claim.name, ownerReference('PipelineRun', claim.owner));
    // An affinity assistant's claim is marked by its labels and by ending in `-<instance>-0`.
    const sts = STS_NAMES.find((name) => claim.name.endsWith(`-${name}-0`)) ?? STS_NAMES[0];
    const made = affinityClaimObject('pr-done', sts);
    return { ...made, metadata: { ...(made['metadata'] as Obj), name: claim.name, uid: `uid-${claim.name}` } };
  });
  const pods = cluster.pods.map((pod) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.name, namespace: 'ci', uid: `uid-${pod.name}` },
    spec: { containers: [{ name: 'c' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: pod.claim } }] },
    status: pod.phase === undefined ? {} : { phase: pod.phase },
  }));
  return { claims, statefulSets, pods, secrets: cluster.secret ? [pacSecretObject()] : [] };
}

const RUN_RECORDS: readonly RunRecord[] = [lrun('pr-done'), lrun('pr-running', { state: 'running' })];

/** The view a pass of `collect` reads, as the adapter makes it: each collector's objects through its toRecord. */
function viewOf(collect: readonly CollectorName[], objects: Objects): ClusterView {
  const on = collect.map((name) => COLLECTORS[name]);
  const listed: Record<CollectorName, Obj[]> = {
    pipelineresources: [],
    'affinity-assistants': objects.statefulSets,
    'pac-secrets': objects.secrets,
    'workspace-pvcs': objects.claims,
    'resolution-requests': [],
    pipelineruns: [],
    taskruns: [],
  };
  const targets: TargetRecord[] = [];
  for (const collector of on) {
    for (const obj of listed[collector.name]) {
      const record = collector.toRecord(obj);
      if (record !== null) targets.push(record);
    }
  }
  return {
    targets,
    runs: RUN_RECORDS,
    namespaces: new Map(),
    ...(on.some((collector) => collector.reads.pods) && { pods: objects.pods.map(toPodRecord) }),
    ...(on.some((collector) => collector.reads.statefulSets) && { statefulSets: objects.statefulSets.map(toStatefulSetRecord) }),
  };
}

/** Whether the StatefulSet object names the claim, read from the object as Kubernetes reads it. */
function names(sts: Obj, claim: string): boolean {
  const name = (sts['metadata'] as Obj)['name'] as string;
  const spec = sts['spec'] as { volumeClaimTemplates?: { metadata: { name: string } }[]; template?: { spec?: { volumes?: { persistentVolumeClaim?: { claimName: string } }[] } } };
  if ((spec.template?.spec?.volumes ?? []).some((volume) => volume.persistentVolumeClaim?.claimName === claim)) return true;
  return (spec.volumeClaimTemplates ?? []).some((tpl) => {
    const stem = `${tpl.metadata.name}-${name}-`;
    return claim.startsWith(stem) && /^\d+$/.test(claim.slice(stem.length));
  });
}

function mounts(pod: Obj, claim: string): boolean {
  const phase = (pod['status'] as Obj)['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  return ((pod['spec'] as { volumes: { persistentVolumeClaim?: { claimName: string } }[] }).volumes).some((volume) => volume.persistentVolumeClaim?.claimName === claim);
}

describe('what holds a claim, for every combination of --collect', () => {
  it('a claim a surviving StatefulSet names, or an active Pod mounts, is never deleted', (t) => {
    const met = new Map<string, number>();
    const count = (what: string): void => void met.set(what, (met.get(what) ?? 0) + 1);
    let deletes = 0;
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const objects = objectsOf(cluster);
        const view = viewOf(cluster.collect, objects);
        let decisions: Decision[] = decide(view, POLICY, NOW);
        let deletable = (decision: Decision): boolean => decision.action === 'delete';
        if (cluster.mayDelete !== undefined) {
          const only = new Set(view.targets.filter((target) => cluster.mayDelete?.(target.uid) === true).map((target) => target.uid));
          decisions = redecide(POLICY, view, decisions, NOW, only);
          deletable = (decision) => decision.action === 'delete' && only.has(decision.target.uid);
        }
        const deleted = new Set(decisions.filter(deletable).map((decision) => decision.target.uid));
        const surviving = objects.statefulSets.filter((sts) => !deleted.has((sts['metadata'] as Obj)['uid'] as string));
        for (const decision of decisions) {
          if (decision.target.kind !== 'PersistentVolumeClaim') continue;
          const claim = decision.target.name;
          const heldBy = [
            ...surviving.filter((sts) => names(sts, claim)).map((sts) => `StatefulSet ${(sts['metadata'] as Obj)['name'] as string}`),
            ...objects.pods.filter((pod) => mounts(pod, claim)).map((pod) => `Pod ${(pod['metadata'] as Obj)['name'] as string}`),
          ];
          if (heldBy.length === 0) {
            count('free');
            if (deletable(decision)) deletes++;
            continue;
          }
          // What the generator reaches: a StatefulSet names it beyond its replicas, or a StatefulSet this pass may not delete does.
          const beyondReplicas = surviving.some((sts) => names(sts, claim) && !withinReplicas(sts, claim));
          if (beyondReplicas) count('named beyond replicas');
          if (surviving.some((sts) => names(sts, claim) && decisions.some((d) => d.target.uid === (sts['metadata'] as Obj)['uid'] && d.action === 'delete'))) count('StatefulSet decided delete but not deleted');
          count('held');
          assert.ok(!deletable(decision), `--collect ${cluster.collect.join(',')}: claim ${claim} deleted (${decision.reason}: ${decision.message}) though ${heldBy.join(', ')} holds it`);
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
    t.diagnostic(`met: ${JSON.stringify(Object.fromEntries(met))}; deletes: ${deletes}`);
    for (const what of ['free', 'held', 'named beyond replicas', 'StatefulSet decided delete but not deleted']) {
      assert.ok((met.get(what) ?? 0) >= 20, `${what} met ${met.get(what) ?? 0} times: the generator hardly reaches it`);
    }
    assert.ok(deletes >= 100, `only ${deletes} claims deleted: the property is hardly checked`);
  });
});

/** Whether the claim is one of the StatefulSet's current Pods' (ordinal from ordinals.start, below it plus replicas). */
function withinReplicas(sts: Obj, claim: string): boolean {
  const spec = sts['spec'] as { replicas?: number; ordinals?: { start: number } };
  const ordinal = Number(/-(\d+)$/.exec(claim)?.[1] ?? NaN);
  const start = spec.ordinals?.start ?? 0;
  return ordinal >= start && ordinal < start + (spec.replicas ?? 1);
}

/**
 * Same-name reruns (docs/spec.md, "Reruns by name"): a run deleted and created again with its
 * name (a dashboard's or `tkn`'s rerun, a CI system that names runs after a commit) finds
 * whatever Tekton named after that name and reuses it, whoever owns it:
 * - a ResolutionRequest is named after `<namespace>/<run name>` and its params, and an existing
 *   one of that name is read whatever its ownerReference says (tektoncd/pipeline
 *   pkg/resolution/resource/name.go:57-76, pkg/remoteresolution/resource/crd_resource.go:52-82);
 * - an affinity assistant's StatefulSet is named after the workspace and the PipelineRun's
 *   name, and an existing one is used as it is (pkg/reconciler/pipelinerun/affinity_assistant.go:145-148, 292-296);
 * - a claim made from a volumeClaimTemplate is named after the owner's uid, so a rerun makes
 *   its own (pkg/reconciler/volumeclaim/pvchandler.go:169-174).
 * The rows decide one case each; the property replays Tekton's naming over any sequence of
 * reruns and checks that no request an active run would read is deleted.
 * Seeded: set TRGC_FC_SEED to replay a failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { childName } from '../../src/core/childnames.js';
import { decide, decideWithFacts } from '../../src/core/decide.js';
import { toClaimTarget, toResolutionRequestTarget, toStatefulSetTarget } from '../../src/core/markers.js';
import { releasingOwners } from '../../src/core/needed.js';
import { deterministicName } from '../../src/core/resolution.js';
import { toRunRecord } from '../../src/core/runs.js';
import type { ClusterView, Decision, RunKindName, RunRecord, TargetRecord } from '../../src/core/types.js';
import { toStatefulSetRecord } from '../../src/core/holders.js';
import { activeLrun, affinityClaimObject, affinityStatefulSetObject, childLrun, leftover, lrun, ownedClaimObject, ownerReference, pod } from '../fixtures/unit/leftovers.js';
import { DAY, HOUR, NOW, POLICY, at } from '../fixtures/unit/records.js';

const SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261204);

const REQUEST = 'cluster-6b1c1e5a0e11d0b4f5d3a4e1f2c3b4a5';

/** A request owned by the run `build-1` of uid `uid`: the predecessor of a rerun when that run is gone. */
function request(name: string, owner: { kind: RunKindName; name: string; uid: string }, more: Partial<TargetRecord> = {}): TargetRecord {
  return leftover('ResolutionRequest', name, { ownerReferences: [{ kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }], ...more });
}

const OLD = { kind: 'PipelineRun' as const, name: 'build-1', uid: 'uid-build-1-old' };

function decideOne(target: TargetRecord, runs: readonly RunRecord[], more: Partial<ClusterView> = {}): Decision {
  const decision = decide({ targets: [target], runs, namespaces: new Map(), ...more }, POLICY, NOW).find((d) => d.target.uid === target.uid);
  assert.ok(decision !== undefined);
  return decision;
}

describe('a ResolutionRequest whose owner was rerun by name', () => {
  it('an active run of its owner’s name, another uid, keeps it: Tekton finds the request by that name', () => {
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    const decision = decideOne(request(REQUEST, OLD), [rerun]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['keep', 'referenced-by-active-run', 'read by active PipelineRun build-1 (running), same name as its owner'],
    );
    assert.deepEqual(decision.references, [
      { kind: 'PipelineRun', name: 'build-1', state: 'running', via: 'ownerName' },
      { kind: 'PipelineRun', name: 'build-1', state: 'gone', via: 'ownerReference' },
    ]);
  });

  it('a rerun that is pending, not started yet, keeps it as well', () => {
    const pending = activeLrun('build-1', { uid: 'uid-build-1-new', state: 'pending' });
    const decision = decideOne(request(REQUEST, OLD), [pending]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'referenced-by-active-run']);
  });

  it('a run of the other kind with the owner’s name reads it too: Tekton’s name hashes the name, not the kind', () => {
    const taskRun = activeLrun('build-1', { kind: 'TaskRun', uid: 'uid-tr-build-1' });
    const decision = decideOne(request(REQUEST, OLD), [taskRun]);
    assert.deepEqual([decision.action, decision.reason, decision.message], ['keep', 'referenced-by-active-run', 'read by active TaskRun build-1 (running), same name as its owner']);
  });

  it('a rerun that stored what it resolved through it releases it: resolution-stored', () => {
    const stored = activeLrun('build-1', { uid: 'uid-build-1-new', releasedRequest: REQUEST });
    const decision = decideOne(request(REQUEST, OLD), [stored]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['delete', 'resolution-stored', 'PipelineRun build-1 (running), same name as its owner, stored what it resolved in status.pipelineSpec and reads it no more'],
    );
  });

  it('a rerun that stored another request still reads this one', () => {
    const stored = activeLrun('build-1', { uid: 'uid-build-1-new', releasedRequest: 'cluster-00000000000000000000000000000001' });
    assert.equal(decideOne(request(REQUEST, OLD), [stored]).reason, 'referenced-by-active-run');
  });

  it('a finished rerun: runs-finished, naming how it links', () => {
    const finished = lrun('build-1', { uid: 'uid-build-1-new', finishedAt: at(-2 * HOUR) });
    const decision = decideOne(request(REQUEST, OLD), [finished]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['delete', 'runs-finished', `its only linked run, PipelineRun build-1 (same name as its owner), finished at ${at(-2 * HOUR)}`],
    );
  });

  it('the child TaskRun of a rerun PipelineRun, named as its predecessor’s child, keeps the old child’s request', () => {
    const parent = activeLrun('build-1', { uid: 'uid-build-1-new' });
    // The child is finished on its own, but its parent is active: it may be retried and resolve again.
    const child = childLrun('build-1-fetch', parent, { uid: 'uid-fetch-new', state: 'succeeded', finishedAt: at(-HOUR) });
    const decision = decideOne(request(REQUEST, { kind: 'TaskRun', name: 'build-1-fetch', uid: 'uid-fetch-old' }), [parent, child]);
    // The rerun PipelineRun links it too, and is named first (PipelineRuns before TaskRuns).
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['keep', 'referenced-by-active-run', "read by active PipelineRun build-1 (running), whose child run would have its owner's name and 1 more active run"],
    );
    assert.deepEqual(
      decision.references.map((ref) => [ref.kind, ref.name, ref.via]),
      [
        ['PipelineRun', 'build-1', 'ownerParentName'],
        ['TaskRun', 'build-1-fetch', 'ownerName'],
        ['TaskRun', 'build-1-fetch', 'ownerReference'],
      ],
    );
  });

  it('before the rerun PipelineRun has made that child: the rerun keeps the old child’s request (its StepActions and taskRef are named after the child’s name)', () => {
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    const decision = decideOne(request(REQUEST, { kind: 'TaskRun', name: 'build-1-fetch', uid: 'uid-fetch-old' }), [rerun]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['keep', 'referenced-by-active-run', "read by active PipelineRun build-1 (running), whose child run would have its owner's name"],
    );
  });

  it('a long PipelineRun name, which ChildName hashes into its child’s name, links the same way', () => {
    const long = 'a-very-long-pipelinerun-name-for-the-release-train-x1-abcdef';
    const rerun = activeLrun(long, { uid: 'uid-long-new' });
    const decision = decideOne(request(REQUEST, { kind: 'TaskRun', name: childName(long, '-fetch'), uid: 'uid-fetch-old' }), [rerun]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'referenced-by-active-run']);
  });

  it('a finished rerun PipelineRun lets the old child’s request go: runs-finished, naming how it links', () => {
    const rerun = lrun('build-1', { uid: 'uid-build-1-new', finishedAt: at(-2 * HOUR) });
    const decision = decideOne(request(REQUEST, { kind: 'TaskRun', name: 'build-1-fetch', uid: 'uid-fetch-old' }), [rerun]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['delete', 'runs-finished', `its only linked run, PipelineRun build-1 (whose child run would have its owner's name), finished at ${at(-2 * HOUR)}`],
    );
  });

  it('a request a PipelineRun owns, named after its task’s TaskRun, is read by a run of that name while its owner is gone (an orphaned child)', () => {
    const orphan = activeLrun('build-1-fetch', { kind: 'TaskRun', uid: 'uid-fetch-orphan' });
    const decision = decideOne(request(REQUEST, OLD), [orphan]);
    assert.deepEqual([decision.action, decision.reason, decision.message], ['keep', 'referenced-by-active-run', 'read by active TaskRun build-1-fetch (running), named as a child run of its owner']);
  });

  it('the PipelineRun’s own pipelineRef request, which it stored, is released while its children run: it is named after the PipelineRun’s name alone', () => {
    const owner = activeLrun('build-1', { uid: OLD.uid, releasedRequest: REQUEST });
    const child = childLrun('build-1-fetch', owner, { uid: 'uid-fetch' });
    assert.equal(decideOne(request(REQUEST, OLD), [owner, child]).reason, 'resolution-stored');
  });

  it('a child TaskRun that stored its taskSpec releases its taskRef’s request while its own parent runs: the parent is not linked by name', () => {
    const parent = activeLrun('build-1', { uid: 'uid-build-1' });
    const child = childLrun('build-1-fetch', parent, { uid: 'uid-fetch', releasedRequest: REQUEST });
    const decision = decideOne(request(REQUEST, { kind: 'TaskRun', name: 'build-1-fetch', uid: 'uid-fetch' }), [parent, child]);
    assert.equal(decision.reason, 'resolution-stored');
  });

  it('a run of that name in another namespace reads nothing here: owner-gone', () => {
    const elsewhere = activeLrun('build-1', { uid: 'uid-build-1-new', namespace: 'other' });
    assert.deepEqual(decideOne(request(REQUEST, OLD), [elsewhere]).reason, 'owner-gone');
  });

  it('explain names the run and says it has its owner’s name', () => {
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    const [explained] = decideWithFacts({ targets: [request(REQUEST, OLD)], runs: [rerun], namespaces: new Map() }, POLICY, NOW);
    assert.ok(explained !== undefined);
    assert.ok(explained.decision.references.some((ref) => ref.via === 'ownerName' && ref.name === 'build-1' && ref.state === 'running'));
  });

  it('a pass names the released request of a rerun too (releasingOwners reads the owner’s name as well as its uid)', () => {
    const releasing = releasingOwners([request(REQUEST, OLD)]);
    assert.deepEqual(
      [
        releasing({ uid: 'uid-build-1-old', namespace: 'ci', name: 'build-1' }),
        releasing({ uid: 'uid-build-1-new', namespace: 'ci', name: 'build-1' }),
        releasing({ uid: 'uid-x', namespace: 'other', name: 'build-1' }),
        releasing({ uid: 'uid-x', namespace: 'ci', name: 'build-2' }),
      ],
      [true, true, false, false],
    );
  });
});

describe('the other leftovers of a rerun by name', () => {
  it('the affinity assistant’s StatefulSet, named after the PipelineRun’s name, is kept for the rerun by its label', () => {
    const sts = toStatefulSetTarget(affinityStatefulSetObject('build-1', 'affinity-assistant-0123456789', { metadata: { ownerReferences: [ownerReference('PipelineRun', 'build-1', { uid: 'uid-build-1-old' })] } }));
    assert.ok(sts !== null);
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    const decision = decideOne(sts, [rerun]);
    assert.deepEqual([decision.action, decision.reason, decision.message], ['keep', 'referenced-by-active-run', 'made for active PipelineRun build-1 (running)']);
  });

  it('the predecessor’s claim that the reused StatefulSet mounts is kept while the StatefulSet is', () => {
    const stsObject = affinityStatefulSetObject('build-1', 'affinity-assistant-0123456789', {
      metadata: { ownerReferences: [ownerReference('PipelineRun', 'build-1', { uid: 'uid-build-1-old' })] },
      spec: { volumeClaimTemplates: [], template: { spec: { containers: [{ name: 'a' }], volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: 'pvc-1a2b3c4d5e' } }] } } },
    });
    const sts = toStatefulSetTarget(stsObject);
    const claim = toClaimTarget(ownedClaimObject('pvc-1a2b3c4d5e', ownerReference('PipelineRun', 'build-1', { uid: 'uid-build-1-old' })));
    assert.ok(sts !== null && claim !== null);
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    const decisions = decide({ targets: [sts, claim], runs: [rerun], namespaces: new Map(), statefulSets: [toStatefulSetRecord(stsObject)], pods: [] }, POLICY, NOW);
    assert.deepEqual(
      decisions.map((d) => [d.target.kind, d.action, d.reason]),
      [
        ['PersistentVolumeClaim', 'keep', 'in-use-by-statefulset'],
        ['StatefulSet', 'keep', 'referenced-by-active-run'],
      ],
    );
  });

  it('coschedule: pipelineruns, a rerun stuck Pending on the claim of its own uid that nothing makes: the collector keeps the reused StatefulSet, the claim it mounts, and makes nothing (docs/spec.md, "A rerun stuck Pending")', () => {
    // The predecessor's StatefulSet, its claim template named after the old uid (pvc-0123abcd): reused as it is by the rerun.
    const stsObject = affinityStatefulSetObject('build-1', 'affinity-assistant-0123456789', { metadata: { ownerReferences: [ownerReference('PipelineRun', 'build-1', { uid: 'uid-build-1-old' })] } });
    const sts = toStatefulSetTarget(stsObject);
    const oldClaim = toClaimTarget(affinityClaimObject('build-1'));
    assert.ok(sts !== null && oldClaim !== null);
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    // Its TaskRun's Pod binds the claim of the rerun's uid's template, which no StatefulSet makes: Pending for good.
    const stuck = pod('build-1-build-pod', { phase: 'Pending', claims: ['pvc-4567efab-affinity-assistant-0123456789-0'] });
    const decisions = decide({ targets: [sts, oldClaim], runs: [rerun], namespaces: new Map(), statefulSets: [toStatefulSetRecord(stsObject)], pods: [stuck] }, POLICY, NOW);
    assert.deepEqual(
      decisions.map((d) => [d.target.kind, d.target.name, d.action, d.reason]),
      [
        ['PersistentVolumeClaim', 'pvc-0123abcd-affinity-assistant-0123456789-0', 'keep', 'referenced-by-active-run'],
        ['StatefulSet', 'affinity-assistant-0123456789', 'keep', 'referenced-by-active-run'],
      ],
    );
    // Once the rerun has timed out, both go; the claim no longer held once the pass deletes the StatefulSet first.
    const timedOut = lrun('build-1', { uid: 'uid-build-1-new', state: 'failed', finishedAt: at(-2 * HOUR) });
    const after = decide({ targets: [sts, oldClaim], runs: [timedOut], namespaces: new Map(), statefulSets: [toStatefulSetRecord(stsObject)], pods: [] }, POLICY, NOW);
    assert.deepEqual(after.map((d) => [d.target.kind, d.action, d.reason]), [
      ['PersistentVolumeClaim', 'delete', 'runs-finished'],
      ['StatefulSet', 'delete', 'runs-finished'],
    ]);
  });

  it('a claim named after its owner’s uid is not the rerun’s: once its owner is gone it goes', () => {
    const claim = toClaimTarget(ownedClaimObject('pvc-1a2b3c4d5e', ownerReference('PipelineRun', 'build-1', { uid: 'uid-build-1-old' })));
    assert.ok(claim !== null);
    const rerun = activeLrun('build-1', { uid: 'uid-build-1-new' });
    assert.deepEqual(decideOne(claim, [rerun], { pods: [], statefulSets: [] }).reason, 'owner-gone');
  });
});

// ---- The property ---------------------------------------------------------------------------

/**
 * The params a ref resolves with, through the cluster resolver. The same sets serve every kind
 * of ref, so that names collide wherever Tekton's naming lets them (the hash has no kind).
 */
const REFS: readonly (readonly { name: string; value: string }[])[] = [
  [{ name: 'kind', value: 'pipeline' }, { name: 'name', value: 'build' }, { name: 'namespace', value: 'ci' }],
  [{ name: 'kind', value: 'task' }, { name: 'name', value: 'git-clone' }, { name: 'namespace', value: 'ci' }],
  [{ name: 'kind', value: 'task' }, { name: 'name', value: 'kaniko' }, { name: 'namespace', value: 'ci' }],
];
/**
 * A StepAction's params: they name a StepAction, which no pipelineRef's or taskRef's name (one
 * file, bundle entry or cluster object is of one kind), so they share no request with those.
 */
const STEPS: readonly (readonly { name: string; value: string }[])[] = [
  [{ name: 'kind', value: 'stepaction' }, { name: 'name', value: 'git-clone' }, { name: 'namespace', value: 'ci' }],
  [{ name: 'kind', value: 'stepaction' }, { name: 'name', value: 'kaniko' }, { name: 'namespace', value: 'ci' }],
];
/** The pipeline's tasks: each with a remote taskRef (REFS[ref]) whose Task has one remote StepAction (STEPS[step]). */
const TASKS: readonly { name: string; ref: number; step: number }[] = [
  { name: 'fetch', ref: 1, step: 0 },
  { name: 'build', ref: 2, step: 1 },
];
const NAMES = ['build-1', 'build-2'] as const;
/** A standalone TaskRun may have a child's name too: Tekton's hash does not tell them apart. */
const TASKRUN_NAMES = [...NAMES, childName('build-1', '-fetch')] as const;

/**
 * What a run asks for, by Tekton's request naming (docs/spec.md, "Reruns by name"):
 * - `own`: its pipelineRef or taskRef, under its own name (pipelineref.go:45-60, taskref.go:74);
 * - `task`: a PipelineRun's pipeline task's taskRef, under the child TaskRun's name
 *   (GetTaskRunName, pipelinerun.go:415-436, passed as taskref.go:115's Name), owned by the PipelineRun;
 * - `step`: a TaskRun's StepAction, under the TaskRun's name (taskref.go:150-155).
 * A PipelineRun's child TaskRun takes its task's taskRef, so its `own` is the task's name and params.
 */
type Asked = { what: 'own' } | { what: 'task' | 'step'; task: number };

type Op =
  | { op: 'create'; kind: RunKindName; name: string; ownRef: number }
  | { op: 'resolve'; kind: RunKindName; name: string; asked: Asked }
  | { op: 'child'; name: string; task: number }
  | { op: 'store' | 'finish' | 'delete'; kind: RunKindName; name: string }
  | { op: 'collect-orphans' };

const kindArb = fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun');
const askedArb: fc.Arbitrary<Asked> = fc.oneof(fc.constant({ what: 'own' as const }), fc.record({ what: fc.constantFrom('task' as const, 'step' as const), task: fc.nat(TASKS.length - 1) }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('create' as const), kind: fc.constant<RunKindName>('PipelineRun'), name: fc.constantFrom(...NAMES), ownRef: fc.nat(REFS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('create' as const), kind: fc.constant<RunKindName>('TaskRun'), name: fc.constantFrom(...TASKRUN_NAMES), ownRef: fc.nat(REFS.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('child' as const), name: fc.constantFrom(...NAMES), task: fc.nat(TASKS.length - 1) }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('resolve' as const), kind: kindArb, name: fc.constantFrom(...TASKRUN_NAMES, ...childNames()), asked: askedArb }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constantFrom('store' as const, 'finish' as const, 'delete' as const), kind: kindArb, name: fc.constantFrom(...TASKRUN_NAMES, ...childNames()) }) },
  // Kubernetes' garbage collector, some time after an owner went (or never, after an orphaning delete).
  { weight: 1, arbitrary: fc.constant({ op: 'collect-orphans' as const }) },
);

function childNames(): string[] {
  return NAMES.flatMap((name) => TASKS.map((task) => childName(name, `-${task.name}`)));
}

interface ModelRun {
  kind: RunKindName;
  name: string;
  uid: string;
  /** Its own ref's params (REFS). */
  ownRef: number;
  /** A child TaskRun: its PipelineRun, and the task it runs (whose StepAction it resolves). */
  parent?: { name: string; uid: string };
  task?: number;
  resolvedOwn: boolean;
  stored: boolean;
  finished: boolean;
}

/** Tekton's name for a request asked under `base` with the params REFS[ref]. */
function requestName(base: string, ref: number): string {
  return deterministicName('cluster', `ci/${base}`, REFS[ref] ?? []);
}

/** Tekton's name for a StepAction's request, asked under the TaskRun's name with the params STEPS[step]. */
function stepRequestName(taskRun: string, step: number): string {
  return deterministicName('cluster', `ci/${taskRun}`, STEPS[step] ?? []);
}

function taskOf(index: number): { name: string; ref: number; step: number } {
  const task = TASKS[index];
  assert.ok(task !== undefined);
  return task;
}

/** The request `run` makes for what it asks, or undefined when that run does not ask it (a TaskRun has no tasks; a StepAction is a TaskRun's). */
function asks(run: ModelRun, asked: Asked): string | undefined {
  if (asked.what === 'own') return requestName(run.name, run.ownRef);
  const task = taskOf(asked.task);
  if (asked.what === 'task') return run.kind === 'PipelineRun' ? requestName(childName(run.name, `-${task.name}`), task.ref) : undefined;
  if (run.kind !== 'TaskRun') return undefined;
  // A standalone TaskRun's Task has the StepAction of the task it is named like, or none.
  const own = run.task === undefined ? TASKS.findIndex((candidate) => run.name.endsWith(`-${candidate.name}`)) : run.task;
  return own === -1 || own !== asked.task ? undefined : stepRequestName(run.name, task.step);
}

/**
 * Every name an active run may still ask for: its own ref's until it stored it; a PipelineRun's
 * task's until a TaskRun of the child's name stored its taskSpec (Tekton gets the child by name
 * and takes its stored spec: pipelinerunresolution.go:825-866); a TaskRun's StepActions; and what
 * the children a PipelineRun has not made yet will ask: a rerun's child finds its predecessor's
 * child's requests by their name.
 */
function mayRead(run: ModelRun, runs: ReadonlyMap<string, ModelRun>): string[] {
  if (run.finished) return [];
  const names = run.stored ? [] : [requestName(run.name, run.ownRef)];
  if (run.kind === 'TaskRun') {
    const steps = TASKS.flatMap((_, task) => asks(run, { what: 'step', task }) ?? []);
    return [...names, ...steps];
  }
  for (const task of TASKS) {
    const child = childName(run.name, `-${task.name}`);
    const made = runs.get(`TaskRun/${child}`);
    if (made?.stored !== true) names.push(requestName(child, task.ref));
    if (made === undefined) names.push(stepRequestName(child, task.step));
  }
  return names;
}

/** A run as the API server lists it: its own ref through the cluster resolver, its spec stored when it is, its parent as Tekton sets it. */
function runObjectOf(run: ModelRun): Record<string, unknown> {
  const ref = { resolver: 'cluster', params: REFS[run.ownRef] };
  const conditions = run.finished ? [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }] : [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }];
  const parent = run.parent;
  return {
    apiVersion: 'tekton.dev/v1',
    kind: run.kind,
    metadata: {
      name: run.name,
      namespace: 'ci',
      uid: run.uid,
      resourceVersion: '1',
      creationTimestamp: at(-DAY),
      ...(parent !== undefined && {
        labels: { 'tekton.dev/pipelineRun': parent.name },
        ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: parent.name, uid: parent.uid, controller: true, blockOwnerDeletion: true }],
      }),
    },
    spec: run.kind === 'PipelineRun' ? { pipelineRef: ref } : { taskRef: ref },
    status: {
      conditions,
      ...(run.finished && { completionTime: at(-HOUR) }),
      ...(run.stored && (run.kind === 'PipelineRun' ? { pipelineSpec: { tasks: [] } } : { taskSpec: { steps: [] } })),
    },
  };
}

describe('any sequence of same-name reruns, with their children', () => {
  it('no request that an active run would read by its name is deleted', (t) => {
    let generation = 0;
    const met = new Map<string, number>();
    const count = (what: string): void => void met.set(what, (met.get(what) ?? 0) + 1);
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 50, size: 'max' }), (ops) => {
        const runs = new Map<string, ModelRun>();
        // name -> the owner it was made for (Tekton's Submit creates it only when none of that name exists).
        const requests = new Map<string, { kind: RunKindName; name: string; uid: string }>();
        for (const op of ops) {
          if (op.op === 'collect-orphans') {
            for (const [key, run] of runs) if (run.parent !== undefined && ![...runs.values()].some((other) => other.uid === run.parent?.uid)) runs.delete(key);
            continue;
          }
          if (op.op === 'child') {
            const parent = runs.get(`PipelineRun/${op.name}`);
            const task = taskOf(op.task);
            const name = childName(op.name, `-${task.name}`);
            if (parent === undefined || parent.finished || runs.has(`TaskRun/${name}`)) continue;
            runs.set(`TaskRun/${name}`, { kind: 'TaskRun', name, uid: `uid-${name}-${generation++}`, ownRef: task.ref, parent: { name: parent.name, uid: parent.uid }, task: op.task, resolvedOwn: false, stored: false, finished: false });
            continue;
          }
          const key = `${op.kind}/${op.name}`;
          const existing = runs.get(key);
          if (op.op === 'create') {
            if (existing === undefined) runs.set(key, { kind: op.kind, name: op.name, uid: `uid-${op.name}-${generation++}`, ownRef: op.ownRef, resolvedOwn: false, stored: false, finished: false });
            continue;
          }
          if (existing === undefined) continue;
          if (op.op === 'delete') runs.delete(key);
          else if (op.op === 'finish') existing.finished = true;
          else if (op.op === 'store') existing.stored ||= !existing.finished && existing.resolvedOwn;
          else if (op.op === 'resolve' && !existing.finished && !(existing.stored && op.asked.what === 'own')) {
            // An active run resolves: it reads the request of that name, making it if there is none.
            const name = asks(existing, op.asked);
            if (name === undefined) continue;
            if (!requests.has(name)) requests.set(name, { kind: existing.kind, name: existing.name, uid: existing.uid });
            if (op.asked.what === 'own') existing.resolvedOwn = true;
          }
        }
        const targets = [...requests].map(([name, owner]) => {
          const target = toResolutionRequestTarget({
            metadata: { name, namespace: 'ci', uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: at(-DAY), labels: { 'resolution.tekton.dev/type': 'cluster' }, ownerReferences: [ownerReference(owner.kind, owner.name, { uid: owner.uid })] },
          });
          assert.ok(target !== null);
          return target;
        });
        const releasing = releasingOwners(targets);
        const records = [...runs.values()].map((run) => toRunRecord(runObjectOf(run), run.kind, { leftovers: true, releasing }));
        const decisions = decide({ targets, runs: records, namespaces: new Map() }, { ...POLICY, minAgeMs: 0 }, NOW);
        for (const decision of decisions) {
          const name = decision.target.name;
          // The oracle: every active run, of either kind, that would ask for this name.
          const readers = [...runs.values()].filter((run) => mayRead(run, runs).includes(name));
          const owner = requests.get(name);
          const ownerAlive = [...runs.values()].some((run) => run.uid === owner?.uid);
          if (readers.length > 0 && !readers.some((run) => run.uid === owner?.uid)) {
            const byName = readers.some((run) => run.name === owner?.name);
            count(byName ? (ownerAlive ? 'read by a run of its owner’s name and another kind' : 'read by a rerun') : 'read by a run not of its owner’s name');
          }
          if (decision.action === 'delete') count(`deleted (${decision.reason})`);
          assert.ok(
            decision.action === 'keep' || readers.length === 0,
            `request ${name} (owner ${owner?.kind ?? '?'} ${owner?.name ?? '?'} ${owner?.uid ?? '?'}) deleted (${decision.reason}: ${decision.message}) though ${readers.map((run) => `${run.kind} ${run.name} ${run.uid}`).join(', ')} would read it`,
          );
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
    t.diagnostic(`met: ${JSON.stringify(Object.fromEntries(met))}`);
    for (const what of ['read by a rerun', 'read by a run not of its owner’s name', 'deleted (resolution-stored)', 'deleted (owner-gone)', 'deleted (runs-finished)']) {
      assert.ok((met.get(what) ?? 0) >= 20, `${what} met ${met.get(what) ?? 0} times: the generator hardly reaches it`);
    }
  });
});

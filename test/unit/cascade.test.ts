/**
 * What goes with deleted runs (src/core/cascade.ts, docs/spec.md "What goes with a run"):
 * rows for each case the rule names, and a property against a plain fixed point written
 * from the rule's sentence, over random ownership forests. Seeded: set TRGC_FC_SEED to
 * replay a failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cascadeOf, cascadeTotals, readTaskRunExtras, rootsKeptForDependents, RunChildren, toRetainedOwned, withCascade, type CascadeRoot, type OwnedObject } from '../../src/core/cascade.js';
import { amendDecision, type Decision, type DecisionChange, type OwnerRef, type TargetRecord } from '../../src/core/types.js';

const NS = 'ci';

function owner(of: { kind: string; name: string; uid: string }): OwnerRef {
  return { kind: of.kind, name: of.name, uid: of.uid, controller: true };
}

function object(kind: string, name: string, owners: readonly { kind: string; name: string; uid: string }[] = [], namespace = NS): OwnedObject {
  return { kind, namespace, name, uid: `uid-${namespace}-${name}`, ownerReferences: owners.map(owner) };
}

const run: CascadeRoot = { kind: 'PipelineRun', namespace: NS, name: 'build-1', uid: 'uid-ci-build-1' };
const other: CascadeRoot = { kind: 'PipelineRun', namespace: NS, name: 'build-2', uid: 'uid-ci-build-2' };

function names(list: readonly OwnedObject[] | undefined): string[] {
  return (list ?? []).map((o) => `${o.kind}/${o.name}`);
}

describe('cascadeOf', () => {
  it('takes a run’s TaskRuns, their Pods and its claim, owners before what they own', () => {
    const taskRun = object('TaskRun', 'build-1-clone', [run]);
    const pod = object('Pod', 'build-1-clone-pod', [taskRun]);
    const claim = object('PersistentVolumeClaim', 'pvc-1', [run]);
    const cascade = cascadeOf([run], [pod, claim, taskRun]);
    assert.deepEqual(names(cascade.byRoot.get(run.uid)), ['PersistentVolumeClaim/pvc-1', 'TaskRun/build-1-clone', 'Pod/build-1-clone-pod']);
    assert.equal(cascade.size, 3);
  });

  it('keeps an object another owner still stands for, and one with no owner', () => {
    const shared = object('Secret', 'shared', [run, other]);
    const unowned = object('PersistentVolumeClaim', 'mine');
    const cascade = cascadeOf([run], [shared, unowned]);
    assert.equal(cascade.size, 0);
  });

  it('keeps an object that names one going owner twice while another owner stands', () => {
    const twice = { ...object('Secret', 'twice', [run, run, other]) };
    assert.equal(cascadeOf([run], [twice]).size, 0);
    assert.deepEqual(names(cascadeOf([run, other], [twice]).byRoot.get(run.uid)), ['Secret/twice']);
  });

  it('counts an object once, with the root of its first owner, when two deleted runs own it', () => {
    const shared = object('Secret', 'shared', [other, run]);
    const cascade = cascadeOf([run, other], [shared]);
    assert.equal(cascade.size, 1);
    assert.deepEqual(names(cascade.byRoot.get(other.uid)), ['Secret/shared']);
    assert.equal(cascade.byRoot.get(run.uid), undefined);
  });

  it('matches an owner by kind, name and uid in the object’s own namespace', () => {
    const renamed = object('TaskRun', 'renamed', [{ ...run, name: 'build-1-old' }]);
    const otherKind = object('TaskRun', 'other-kind', [{ ...run, kind: 'TaskRun' }]);
    const elsewhere = object('TaskRun', 'elsewhere', [run], 'other-namespace');
    assert.equal(cascadeOf([run], [renamed, otherKind, elsewhere]).size, 0);
  });

  it('totals by kind, with the bytes of what has a size', () => {
    const claims = [object('PersistentVolumeClaim', 'a', [run]), object('PersistentVolumeClaim', 'b', [run]), object('Pod', 'p', [run])];
    const bytes: Record<string, number> = { a: 1024, b: 2048 };
    assert.deepEqual(Object.fromEntries(cascadeTotals(claims, (o) => bytes[o.name])), {
      PersistentVolumeClaim: { count: 2, bytes: 3072 },
      Pod: { count: 1, bytes: 0 },
    });
  });
});

describe('rootsKeptForDependents', () => {
  it('keeps a run whose cascade would take a protected object, and the cascade without it', () => {
    const retained = object('PersistentVolumeClaim', 'keep-me', [run]);
    const free = object('PersistentVolumeClaim', 'free', [other]);
    const { kept, cascade } = rootsKeptForDependents([run, other], [retained, free], (o) => o.name === 'keep-me');
    assert.deepEqual([...kept].map(([uid, o]) => [uid, o.name]), [[run.uid, 'keep-me']]);
    assert.deepEqual(names(cascade.byRoot.get(other.uid)), ['PersistentVolumeClaim/free']);
    assert.equal(cascade.byRoot.get(run.uid), undefined);
  });

  it('takes the cascade again once a run is kept: a jointly owned object then stays', () => {
    // The TaskRun goes only with both runs; its Pod is protected and owned by it alone.
    const joint = object('TaskRun', 'joint', [run, other]);
    const pod = object('Pod', 'joint-pod', [joint]);
    const { kept, cascade } = rootsKeptForDependents([run, other], [joint, pod], (o) => o.kind === 'Pod');
    assert.deepEqual([...kept.keys()], [run.uid]);
    assert.equal(cascade.size, 0);
  });
});

/** The rule's sentence, as a fixed point: an object goes when it has owners and each is a root or goes. */
function oracle(roots: readonly CascadeRoot[], objects: readonly OwnedObject[]): Set<string> {
  const going = new Map<string, { kind: string; name: string }>(roots.map((r) => [`${r.namespace}/${r.uid}`, r]));
  const result = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const o of objects) {
      const id = `${o.namespace}/${o.uid}`;
      if (going.has(id) || o.ownerReferences.length === 0) continue;
      const all = o.ownerReferences.every((ref) => {
        const g = going.get(`${o.namespace}/${ref.uid}`);
        return g !== undefined && g.kind === ref.kind && g.name === ref.name;
      });
      if (all) {
        going.set(id, o);
        result.add(id);
        changed = true;
      }
    }
  }
  return result;
}

describe('cascadeOf, as a property', () => {
  it('takes exactly what the fixed point of the rule takes, each object once', () => {
    const seed = process.env['TRGC_FC_SEED'] === undefined ? {} : { seed: Number(process.env['TRGC_FC_SEED']) };
    const forest = fc
      .record({
        size: fc.integer({ min: 1, max: 24 }),
        roots: fc.integer({ min: 0, max: 4 }),
        namespaces: fc.integer({ min: 1, max: 2 }),
      })
      .chain(({ size, roots, namespaces }) =>
        fc.record({
          roots: fc.constant(roots),
          nodes: fc.array(
            fc.record({
              namespace: fc.integer({ min: 0, max: namespaces - 1 }),
              // Owners among earlier nodes (or any node: cycles too), sometimes by a wrong name or kind.
              owners: fc.array(fc.record({ at: fc.integer({ min: 0, max: size - 1 }), wrongName: fc.boolean(), wrongKind: fc.boolean() }), { maxLength: 3 }),
            }),
            { minLength: size, maxLength: size },
          ),
        }),
      );
    fc.assert(
      fc.property(forest, ({ roots, nodes }) => {
        const all = nodes.map((node, index) => ({ kind: index % 2 === 0 ? 'TaskRun' : 'Pod', namespace: `ns-${node.namespace}`, name: `n${index}`, uid: `u${index}` }));
        const rootList: CascadeRoot[] = all.slice(0, Math.min(roots, all.length));
        const objects: OwnedObject[] = all.slice(rootList.length).map((o, i) => {
          const node = nodes[i + rootList.length];
          const owners = (node?.owners ?? []).map(({ at, wrongName, wrongKind }) => {
            const target = all[at] ?? all[0];
            if (target === undefined) throw new Error('empty forest');
            return { kind: wrongKind ? 'Secret' : target.kind, name: wrongName ? `${target.name}-x` : target.name, uid: target.uid, controller: false };
          });
          return { ...o, ownerReferences: owners };
        });
        const cascade = cascadeOf(rootList, objects);
        const counted = [...cascade.byRoot.values()].flat().map((o) => `${o.namespace}/${o.uid}`);
        assert.equal(new Set(counted).size, counted.length, 'an object counted twice');
        assert.equal(cascade.size, counted.length);
        assert.deepEqual(new Set(counted), oracle(rootList, objects));
      }),
      { numRuns: 1000, ...seed },
    );
  });
});

describe('withCascade', () => {
  const target = (kind: TargetRecord['kind'], name: string, extra: Partial<TargetRecord> = {}): TargetRecord => ({
    kind,
    namespace: NS,
    name,
    uid: `uid-${NS}-${name}`,
    resourceVersion: '1',
    createdAt: '2026-11-01T00:00:00Z',
    labels: {},
    annotations: {},
    ownerReferences: [],
    ...extra,
  });
  const runTarget = (name: string): TargetRecord => target('PipelineRun', name, { run: { state: 'succeeded', finishedAt: '2026-11-02T00:00:00Z' } });
  const decision = (t: TargetRecord, action: 'keep' | 'delete', reason: Decision['reason']): Decision => ({ target: t, action, reason, message: `${reason} because`, references: [], warnings: [] });
  const ownedBy = (run: TargetRecord): OwnerRef[] => [{ kind: run.kind, name: run.name, uid: run.uid, controller: true }];

  it('counts TaskRuns, Pods and owned claims with their bytes, marks a claim its collector deletes too, keeps a run for a kept dependent', () => {
    const goes = runTarget('goes');
    const keptForClaim = runTarget('kept-for-claim');
    const keptForChild = runTarget('kept-for-child');
    const kept = runTarget('kept');
    const claim = target('PersistentVolumeClaim', 'pvc-goes', { ownerReferences: ownedBy(goes), leftover: { marker: 'owned', bytes: { value: 1024 ** 3, from: 'capacity' } } });
    const retainedClaim = target('PersistentVolumeClaim', 'pvc-retained', { ownerReferences: ownedBy(keptForClaim) });
    const children = new RunChildren(new Set(['uid-child-owner']));
    for (let i = 0; i < 3; i += 1) children.add({ kind: 'TaskRun', namespace: NS, name: `goes-t${i}`, uid: `uid-goes-t${i}`, parent: { name: goes.name, uid: goes.uid }, podName: `goes-t${i}-pod` });
    children.add({ kind: 'TaskRun', namespace: NS, name: 'child-owner', uid: 'uid-child-owner', parent: { name: goes.name, uid: goes.uid } });
    const request = target('ResolutionRequest', 'req', { ownerReferences: [{ kind: 'TaskRun', name: 'child-owner', uid: 'uid-child-owner', controller: true }] });
    children.add({ kind: 'TaskRun', namespace: NS, name: 'running-child', uid: 'uid-running', parent: { name: keptForChild.name, uid: keptForChild.uid }, stays: 'has not finished (running)' });
    const decisions = [
      decision(claim, 'delete', 'runs-finished'),
      decision(retainedClaim, 'keep', 'retained'),
      decision(request, 'delete', 'runs-finished'),
      decision(goes, 'delete', 'history-exceeded'),
      decision(keptForClaim, 'delete', 'ttl-expired'),
      decision(keptForChild, 'delete', 'history-exceeded'),
      decision(kept, 'keep', 'history-kept'),
    ];
    const out = withCascade(decisions, { targets: decisions.map((d) => d.target), children });
    const by = new Map(out.map((d) => [d.target.name, d]));
    assert.deepEqual(by.get('goes')?.cascade, { objects: { TaskRun: 4, Pod: 3, PersistentVolumeClaim: 1, ResolutionRequest: 1 }, bytes: 1024 ** 3 });
    assert.equal(by.get('pvc-goes')?.goesWith, 'PipelineRun/goes');
    assert.equal(by.get('req')?.goesWith, 'PipelineRun/goes');
    assert.equal(by.get('kept-for-claim')?.reason, 'dependent-kept');
    assert.equal(by.get('kept-for-claim')?.action, 'keep');
    assert.match(by.get('kept-for-claim')?.message ?? '', /PersistentVolumeClaim pvc-retained would go with it and is kept \(retained/);
    assert.equal(by.get('kept-for-child')?.reason, 'dependent-kept');
    assert.match(by.get('kept-for-child')?.message ?? '', /its TaskRun running-child has not finished/);
    assert.equal(by.get('kept')?.reason, 'history-kept');
    assert.equal(by.get('pvc-retained')?.goesWith, undefined);
    assert.deepEqual(out.map((d) => d.target.name), decisions.map((d) => d.target.name));
  });

  it('with only runs listed, counts each run’s TaskRuns and Pods from the listing and leaves kept runs as they were', () => {
    const [two, alsoTwo, bare, kept] = ['two', 'also-two', 'bare', 'kept'].map(runTarget) as [TargetRecord, TargetRecord, TargetRecord, TargetRecord];
    const children = new RunChildren(new Set());
    for (const parent of [two, alsoTwo, kept]) {
      for (let i = 0; i < 2; i += 1) children.add({ kind: 'TaskRun', namespace: NS, name: `${parent.name}-t${i}`, uid: `uid-${parent.name}-t${i}`, parent: { name: parent.name, uid: parent.uid }, podName: `${parent.name}-t${i}-pod` });
    }
    children.add({ kind: 'TaskRun', namespace: NS, name: 'two-t2', uid: 'uid-two-t2', parent: { name: two.name, uid: two.uid } });
    const decisions = [decision(two, 'delete', 'history-exceeded'), decision(alsoTwo, 'delete', 'ttl-expired'), decision(bare, 'delete', 'ttl-expired'), decision(kept, 'keep', 'history-kept')];
    const out = withCascade(decisions, { targets: decisions.map((d) => d.target), children });
    assert.deepEqual(out[0], { ...decisions[0], cascade: { objects: { TaskRun: 3, Pod: 2 } } });
    assert.deepEqual(out[1], { ...decisions[1], cascade: { objects: { TaskRun: 2, Pod: 2 } } });
    assert.deepEqual(out[2], { ...decisions[2], cascade: { objects: {} } });
    assert.equal(out[3], decisions[3]);
  });

  it('counts child PipelineRuns at any depth with their TaskRuns, Pods and what they own, and keeps the root while one below has not finished', () => {
    const [release, quiet] = ['release', 'quiet'].map(runTarget) as [TargetRecord, TargetRecord];
    const children = new RunChildren(new Set(['uid-g-t0']));
    const child = (kind: 'PipelineRun' | 'TaskRun', name: string, parent: { name: string; uid: string }, more: { podName?: string; stays?: string } = {}) => {
      children.add({ kind, namespace: NS, name, uid: `uid-${name}`, parent, ...more });
      return { name, uid: `uid-${name}` };
    };
    // release -> release-build -> g (a PipelineRun of a PipelineRun of a PipelineRun), each with TaskRuns; g's TaskRun owns a claim.
    // Listed grandchildren first: the census adds up whatever the order.
    const build = { name: 'release-build', uid: 'uid-release-build' };
    const g = { name: 'g', uid: 'uid-g' };
    child('TaskRun', 'g-t0', g, { podName: 'g-t0-pod' });
    child('PipelineRun', 'g', build);
    child('TaskRun', 'release-build-t0', build, { podName: 'p0' });
    child('PipelineRun', 'release-build', release);
    child('TaskRun', 'release-t0', release, { podName: 'p1' });
    const claim = target('PersistentVolumeClaim', 'g-claim', { ownerReferences: [{ kind: 'TaskRun', name: 'g-t0', uid: 'uid-g-t0', controller: true }], leftover: { marker: 'owned', bytes: { value: 1024, from: 'capacity' } } });
    // quiet -> quiet-child, whose TaskRun has not finished: quiet stays for it.
    const quietChild = child('PipelineRun', 'quiet-child', quiet);
    child('TaskRun', 'quiet-child-t0', quietChild, { stays: 'has not finished (running)' });
    const decisions = [decision(claim, 'delete', 'runs-finished'), decision(release, 'delete', 'history-exceeded'), decision(quiet, 'delete', 'ttl-expired')];
    const out = withCascade(decisions, { targets: decisions.map((d) => d.target), children });
    const by = new Map(out.map((d) => [d.target.name, d]));
    assert.deepEqual(children.of(release.uid), { pipelineRuns: 2, taskRuns: 3, pods: 3 });
    assert.deepEqual(by.get('release')?.cascade, { objects: { PipelineRun: 2, TaskRun: 3, Pod: 3, PersistentVolumeClaim: 1 }, bytes: 1024 });
    assert.equal(by.get('g-claim')?.goesWith, 'PipelineRun/release');
    assert.equal(by.get('quiet')?.reason, 'dependent-kept');
    assert.match(by.get('quiet')?.message ?? '', /its PipelineRun quiet-child: its TaskRun quiet-child-t0 has not finished \(running\)$/);
  });

  it('keeps a run while a child PipelineRun of it has not finished or is retained', () => {
    const [running, retained] = ['running', 'retained'].map(runTarget) as [TargetRecord, TargetRecord];
    const children = new RunChildren(new Set());
    children.add({ kind: 'PipelineRun', namespace: NS, name: 'running-build', uid: 'uid-rb', parent: { name: running.name, uid: running.uid }, stays: 'has not finished (running)' });
    children.add({ kind: 'PipelineRun', namespace: NS, name: 'retained-build', uid: 'uid-tb', parent: { name: retained.name, uid: retained.uid }, stays: 'its label tekton-resource-gc.io/retain is "true"' });
    const out = withCascade([decision(running, 'delete', 'history-exceeded'), decision(retained, 'delete', 'history-exceeded')], { targets: [running, retained], children });
    assert.deepEqual(out.map((d) => [d.reason, d.message]), [
      ['dependent-kept', 'history-exceeded because; but its PipelineRun running-build has not finished (running)'],
      ['dependent-kept', 'history-exceeded because; but its PipelineRun retained-build its label tekton-resource-gc.io/retain is "true"'],
    ]);
  });

  it('keeps a run while an object it owns, directly or through a TaskRun, carries the retain label, whatever collectors list', () => {
    const [owner, throughChild, free] = ['owner', 'through-child', 'free'].map(runTarget) as [TargetRecord, TargetRecord, TargetRecord];
    const key = 'tekton-resource-gc.io/retain';
    const claim = toRetainedOwned({ metadata: { name: 'ws', namespace: NS, uid: 'uid-ws', labels: { [key]: 'true' }, ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: owner.name, uid: owner.uid }] } }, 'PersistentVolumeClaim', key);
    const pod = toRetainedOwned({ metadata: { name: 'tc-pod', namespace: NS, uid: 'uid-tc-pod', labels: { [key]: 'yes' }, ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'TaskRun', name: 'tc', uid: 'uid-tc' }] } }, 'Pod', key);
    assert.ok(claim !== null && pod !== null);
    const children = new RunChildren(new Set(['uid-tc']));
    children.add({ kind: 'TaskRun', namespace: NS, name: 'tc', uid: 'uid-tc', parent: { name: throughChild.name, uid: throughChild.uid }, podName: 'tc-pod' });
    const decisions = [decision(owner, 'delete', 'history-exceeded'), decision(throughChild, 'delete', 'ttl-expired'), decision(free, 'delete', 'ttl-expired')];
    const out = withCascade(decisions, { targets: decisions.map((d) => d.target), children, retainedOwned: [claim, pod] });
    assert.deepEqual(out.map((d) => [d.target.name, d.reason, d.message]), [
      ['owner', 'dependent-kept', `history-exceeded because; but its PersistentVolumeClaim ws would go with it and is kept (retained: its label ${key} is "true")`],
      ['through-child', 'dependent-kept', `ttl-expired because; but its Pod tc-pod would go with it and is kept (retained: its label ${key} is "yes")`],
      ['free', 'ttl-expired', 'ttl-expired because'],
    ]);
    // Without the retained objects (today's pass with only the runs collected), both would go.
    assert.deepEqual(withCascade(decisions, { targets: decisions.map((d) => d.target), children }).map((d) => d.action), ['delete', 'delete', 'delete']);
  });

  it('reads a retained object a run may own: null when "false", ownerless or unidentified', () => {
    const key = 'tekton-resource-gc.io/retain';
    const owners = [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: 'p', uid: 'u-p', controller: true }];
    const rows: [string, unknown, string | null][] = [
      ['a label that retains', { metadata: { name: 'c', namespace: NS, uid: 'u-c', labels: { [key]: 'true' }, ownerReferences: owners } }, `its label ${key} is "true"`],
      ['the label, before an annotation', { metadata: { name: 'c', namespace: NS, uid: 'u-c', labels: { [key]: 'x' }, annotations: { [key]: 'true' }, ownerReferences: owners } }, `its label ${key} is "x"`],
      ['"false" retains nothing', { metadata: { name: 'c', namespace: NS, uid: 'u-c', labels: { [key]: 'false' }, ownerReferences: owners } }, null],
      ['no owner: no run takes it', { metadata: { name: 'c', namespace: NS, uid: 'u-c', labels: { [key]: 'true' } } }, null],
      ['only unreadable owners', { metadata: { name: 'c', namespace: NS, uid: 'u-c', labels: { [key]: 'true' }, ownerReferences: [{ kind: 'PipelineRun' }] } }, null],
      ['no uid', { metadata: { name: 'c', namespace: NS, labels: { [key]: 'true' }, ownerReferences: owners } }, null],
    ];
    for (const [why, item, retained] of rows) assert.equal(toRetainedOwned(item, 'PersistentVolumeClaim', key)?.retained ?? null, retained, why);
    assert.deepEqual(toRetainedOwned(rows[0]?.[1], 'PersistentVolumeClaim', key)?.ownerReferences, [{ kind: 'PipelineRun', name: 'p', uid: 'u-p', controller: true }]);
  });

  it('a run already being deleted is no root: it is sent nothing, so nothing goes with it by the pass and nothing it owns keeps it', () => {
    const deleting = target('PipelineRun', 'deleting', { run: { state: 'succeeded', finishedAt: '2026-11-02T00:00:00Z' }, deletionTimestamp: '2026-11-03T00:00:00Z' });
    const claim = target('PersistentVolumeClaim', 'pvc-deleting', { ownerReferences: ownedBy(deleting) });
    const children = new RunChildren(new Set());
    children.add({ kind: 'TaskRun', namespace: NS, name: 'deleting-t0', uid: 'uid-deleting-t0', parent: { name: deleting.name, uid: deleting.uid }, podName: 'deleting-t0-pod', stays: 'has not finished (running)' });
    const decisions = [decision(claim, 'keep', 'retained'), decision(deleting, 'delete', 'history-exceeded')];
    const out = withCascade(decisions, { targets: decisions.map((d) => d.target), children });
    // Rows: the kept claim marks nothing, the run keeps its decision and carries no cascade.
    assert.equal(out[0], decisions[0]);
    assert.equal(out[1], decisions[1]);
  });

  it('reads each item’s decision through `as` and puts the amended one back, in the same order (explain’s items carry their facts)', () => {
    const goes = runTarget('goes');
    const stays = runTarget('stays');
    const children = new RunChildren(new Set());
    children.add({ kind: 'TaskRun', namespace: NS, name: 'stays-t0', uid: 'uid-stays-t0', parent: { name: stays.name, uid: stays.uid }, stays: 'has not finished (running)' });
    const items = [{ decision: decision(goes, 'delete', 'history-exceeded'), facts: 'g' }, { decision: decision(stays, 'delete', 'ttl-expired'), facts: 's' }];
    const out = withCascade(items, { targets: [goes, stays], children }, { decision: (item) => item.decision, amended: (item, amended) => ({ ...item, decision: amended }) });
    assert.deepEqual(out.map((item) => [item.facts, item.decision.reason, item.decision.cascade]), [['g', 'history-exceeded', { objects: {} }], ['s', 'dependent-kept', undefined]]);
  });

  it('reads a TaskRun’s Pod and retain leniently: any value but "false" retains', () => {
    const key = 'tekton-resource-gc.io/retain';
    assert.deepEqual(readTaskRunExtras({ metadata: { labels: { [key]: 'yes' } }, status: { podName: 'p' } }, key), { podName: 'p', retained: `its label ${key} is "yes"` });
    assert.deepEqual(readTaskRunExtras({ metadata: { annotations: { [key]: 'false' } }, status: {} }, key), {});
    assert.deepEqual(readTaskRunExtras({ metadata: { labels: { [key]: 7 } } }, key), { retained: `its label ${key} is 7` });
  });
});

describe('amendDecision', () => {
  const target: TargetRecord = { kind: 'PipelineRun', namespace: NS, name: 'build-1', uid: 'uid-1', resourceVersion: '1', createdAt: '2026-11-01T00:00:00Z', labels: {}, annotations: {}, ownerReferences: [] };
  const base: Decision = { target, action: 'delete', reason: 'ttl-expired', message: 'finished 3d ago', references: [], warnings: ['w'] };
  const changes: DecisionChange[] = [
    {},
    { cascade: { objects: { TaskRun: 1 } } },
    { action: 'keep', reason: 'dependent-kept', message: 'kept for its claim' },
    { heldBy: [{ kind: 'Pod', name: 'p' }] },
    { goesWith: 'PipelineRun/build-0' },
    { heldBy: [{ kind: 'Pod', name: 'p' }], cascade: { objects: {} }, message: 'm' },
  ];

  it('is the decision with the change applied, whatever the change and whatever the decision already had', () => {
    for (const before of [base, { ...base, cascade: { objects: { Pod: 2 } }, goesWith: 'PipelineRun/x' }]) {
      for (const change of changes) assert.deepEqual(amendDecision(before, change), { ...before, ...change });
    }
  });

  it('sets the fields in one order, so that decisions amended alike share their shape', () => {
    const keys = (d: Decision): string => Object.keys(d).join(',');
    assert.equal(keys(amendDecision(base, { cascade: { objects: {} } })), 'target,action,reason,message,references,warnings,cascade');
    assert.equal(keys(amendDecision({ ...base, goesWith: 'PipelineRun/x' }, { cascade: { objects: {} }, heldBy: [] })), 'target,action,reason,message,references,warnings,heldBy,cascade,goesWith');
  });
});

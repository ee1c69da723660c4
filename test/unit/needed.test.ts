import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassedOverRuns, runsNeededBy } from '../../src/core/needed.js';
import type { RunRecord } from '../../src/core/types.js';
import { ownerRef, run, target } from '../fixtures/unit/records.js';

/** A PipelineRun's child TaskRun as the old Tekton made it: resources embedded, naming nothing. */
const child = (name: string, more: Partial<RunRecord> = {}): RunRecord =>
  run(name, [], { kind: 'TaskRun', parentPipelineRun: { name: 'build-1', uid: 'uid-build-1' }, ...more });

const owner = child('owner-tr');

describe('runsNeededBy: which listed runs a pass keeps', () => {
  const needed = runsNeededBy([target('src-1', { ownerReferences: [ownerRef(owner)] })]);

  it('passes over a TaskRun that names nothing, was read whole and owns no target', () => {
    assert.equal(needed(child('build-1-fetch')), false);
    assert.equal(needed(run('scan-1', [], { kind: 'TaskRun' })), false);
  });

  it('keeps every PipelineRun: one may be the parent of a TaskRun that names a target', () => {
    assert.equal(needed(run('build-1', [])), true);
  });

  it('keeps a TaskRun that names a target, or whose references could not be read', () => {
    assert.equal(needed(child('build-1-build', { references: ['src-1'] })), true);
    assert.equal(needed(child('build-1-scan', { references: null, problems: [{ field: 'spec.resources', problem: 'expected an array, found a string' }] })), true);
  });

  it('keeps a TaskRun with a field it could not read: it is warned about, and counts as running', () => {
    assert.equal(needed(child('build-1-push', { problems: [{ field: 'status.conditions', problem: 'expected an array, found a string' }] })), true);
  });

  it('keeps a TaskRun that owns a target, by uid', () => {
    assert.equal(needed(owner), true);
    // The same name with another uid is another run: a recreated TaskRun owns nothing.
    assert.equal(needed(child('owner-tr', { uid: 'uid-another' })), false);
  });

  it("keeps every run read with the leftovers' links: a workspace, a label or an annotation may link it", () => {
    assert.equal(needed(child('build-1-fetch', { workspaces: { claims: [], secrets: [] }, leftoverProblems: [] })), true);
  });
});

describe('PassedOverRuns', () => {
  it('counts the runs it does not keep and, for a pass that re-checks, notes their versions by uid', () => {
    const passedOver = new PassedOverRuns(runsNeededBy([]), { versions: true });
    const kept = [child('a', { resourceVersion: '7' }), run('build-1', []), child('b', { resourceVersion: '9' })].filter((r) => passedOver.keeps(r));
    assert.deepEqual(kept.map((r) => r.name), ['build-1']);
    assert.equal(passedOver.count, 2);
    assert.deepEqual([...(passedOver.versions ?? [])], [['uid-a', '7'], ['uid-b', '9']]);
  });

  it('keeps no versions for a dry run, which never re-checks', () => {
    const passedOver = new PassedOverRuns(runsNeededBy([]), { versions: false });
    assert.equal(passedOver.keeps(child('a')), false);
    assert.equal(passedOver.count, 1);
    assert.equal(passedOver.versions, undefined);
  });
});

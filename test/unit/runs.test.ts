import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRunState, toNamespaceRecord, toRunRecord, toTargetRecord, UnreadableObjectError } from '../../src/core/runs.js';
import type { ReadProblem, RunState } from '../../src/core/types.js';
import { targetStrings } from '../../src/core/needed.js';
import { runObject, succeededStatus, target } from '../fixtures/unit/records.js';

const DONE = '2026-11-29T10:00:00Z';
const PENDING_SPEC = { pipelineRef: { name: 'p' }, status: 'PipelineRunPending' };

interface StateRow {
  row: string;
  spec?: unknown;
  status?: unknown;
  state: RunState;
  finishedAt?: string;
  problems?: readonly ReadProblem[];
}

const stateRows: readonly StateRow[] = [
  { row: 'no status yet: running', status: undefined, state: 'running' },
  { row: 'status without conditions: running', status: { startTime: DONE }, state: 'running' },
  { row: 'Unknown: running', status: succeededStatus('Unknown', 'Running'), state: 'running' },
  { row: 'True with completionTime: succeeded', status: succeededStatus('True', 'Succeeded', DONE), state: 'succeeded', finishedAt: DONE },
  { row: 'True with reason Completed (finally tasks skipped): succeeded', status: succeededStatus('True', 'Completed', DONE), state: 'succeeded', finishedAt: DONE },
  { row: 'False with completionTime: failed', status: succeededStatus('False', 'Failed', DONE), state: 'failed', finishedAt: DONE },
  { row: 'timeout is a failure', status: succeededStatus('False', 'PipelineRunTimeout', DONE), state: 'failed', finishedAt: DONE },
  { row: 'CouldntGetResource is a failure', status: succeededStatus('False', 'CouldntGetResource', DONE), state: 'failed', finishedAt: DONE },
  { row: 'False WITHOUT completionTime: a retry may follow, running', status: succeededStatus('False', 'Failed'), state: 'running' },
  { row: 'True without completionTime: running', status: succeededStatus('True', 'Succeeded'), state: 'running' },
  { row: 'False with an empty completionTime: running', status: succeededStatus('False', 'Failed', ''), state: 'running' },
  { row: 'reason Cancelled: cancelled', status: succeededStatus('False', 'Cancelled', DONE), state: 'cancelled', finishedAt: DONE },
  { row: 'reason PipelineRunCancelled (before v0.38): cancelled', status: succeededStatus('False', 'PipelineRunCancelled', DONE), state: 'cancelled', finishedAt: DONE },
  { row: 'reason TaskRunCancelled: cancelled', status: succeededStatus('False', 'TaskRunCancelled', DONE), state: 'cancelled', finishedAt: DONE },
  { row: 'reason StoppedRunFinally: cancelled', status: succeededStatus('False', 'StoppedRunFinally', DONE), state: 'cancelled', finishedAt: DONE },
  { row: 'reason CancelledRunFinally: cancelled', status: succeededStatus('False', 'CancelledRunFinally', DONE), state: 'cancelled', finishedAt: DONE },
  {
    row: 'cancel requested (spec.status Cancelled) but not yet done: running',
    spec: { status: 'Cancelled' },
    status: succeededStatus('Unknown', 'Running'),
    state: 'running',
  },
  { row: 'spec.status PipelineRunPending without status: pending', spec: PENDING_SPEC, state: 'pending' },
  { row: 'PipelineRunPending with an Unknown condition: pending', spec: PENDING_SPEC, status: succeededStatus('Unknown', 'PipelineRunPending'), state: 'pending' },
  {
    row: 'PipelineRunPending but the condition says finished: finished wins (spec.status is a request)',
    spec: PENDING_SPEC,
    status: succeededStatus('False', 'Cancelled', DONE),
    state: 'cancelled',
    finishedAt: DONE,
  },
  {
    row: 'only other condition types: running',
    status: { conditions: [{ type: 'Ready', status: 'True' }], completionTime: DONE },
    state: 'running',
  },
  {
    row: 'the first Succeeded condition is read',
    status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Succeeded', status: 'True', reason: 'Succeeded' }], completionTime: DONE },
    state: 'succeeded',
    finishedAt: DONE,
  },
  { row: 'status: null is no status', status: null, state: 'running' },
  {
    row: 'malformed: status is a string',
    status: 'Succeeded',
    state: 'running',
    problems: [{ field: 'status', problem: 'expected an object, found a string' }],
  },
  {
    row: 'malformed: conditions is an object',
    status: { conditions: { type: 'Succeeded', status: 'True' }, completionTime: DONE },
    state: 'running',
    problems: [{ field: 'status.conditions', problem: 'expected an array, found an object' }],
  },
  {
    row: 'malformed: a condition that is a string makes even a True run running',
    status: { conditions: ['Succeeded', { type: 'Succeeded', status: 'True' }], completionTime: DONE },
    state: 'running',
    problems: [{ field: 'status.conditions[0]', problem: 'expected an object, found a string' }],
  },
  {
    row: 'malformed: condition status "true" (lower case) is not a ConditionStatus',
    status: { conditions: [{ type: 'Succeeded', status: 'true' }], completionTime: DONE },
    state: 'running',
    problems: [{ field: 'status.conditions[0].status', problem: 'expected "True", "False" or "Unknown", found "true"' }],
  },
  {
    row: 'malformed: completionTime is not a timestamp',
    status: succeededStatus('True', 'Succeeded', 'yesterday'),
    state: 'running',
    problems: [{ field: 'status.completionTime', problem: 'expected a timestamp such as 2026-11-29T10:00:00Z, found "yesterday"' }],
  },
  {
    row: 'malformed: completionTime is a number',
    status: { ...succeededStatus('True', 'Succeeded'), completionTime: 1796119200 },
    state: 'running',
    problems: [{ field: 'status.completionTime', problem: 'expected a timestamp such as 2026-11-29T10:00:00Z, found a number' }],
  },
];

describe('readRunState', () => {
  for (const row of stateRows) {
    it(row.row, () => {
      const object = runObject(row.spec ?? { pipelineRef: { name: 'p' } }, { status: row.status });
      const expected = { state: row.state, ...(row.finishedAt !== undefined && { finishedAt: row.finishedAt }), problems: row.problems ?? [] };
      assert.deepEqual(readRunState(object), expected);
    });
  }

  it('never throws on odd inputs', () => {
    for (const odd of [undefined, null, 7, 'run', [], { status: [] }, { spec: 'x', status: { conditions: [null] } }]) {
      assert.equal(readRunState(odd).state, 'running');
    }
  });
});

describe('toRunRecord', () => {
  it('keeps only what a decision needs', () => {
    const object = runObject(
      { resources: { inputs: [{ name: 'src', resourceRef: { name: 'git-1' } }] }, taskRef: { name: 'build' }, params: [{ name: 'big', value: 'x'.repeat(1000) }] },
      {
        status: { ...succeededStatus('True', 'Succeeded', DONE), podName: 'run-1-pod', steps: [{ name: 's' }] },
        metadata: {
          labels: { 'tekton.dev/pipelineRun': 'pr-1' },
          ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true, blockOwnerDeletion: true }],
        },
      },
    );
    assert.deepEqual(toRunRecord(object, 'TaskRun'), {
      kind: 'TaskRun',
      namespace: 'ci',
      name: 'run-1',
      uid: 'uid-run-1',
      resourceVersion: '100',
      state: 'succeeded',
      finishedAt: DONE,
      references: ['git-1'],
      parentPipelineRun: { name: 'pr-1', uid: 'uid-pr-1' },
      problems: [],
    });
  });

  // Each row: ownerReferences of a TaskRun -> the parent found.
  const parentRows: readonly [string, unknown, { name: string; uid: string } | undefined][] = [
    ['no ownerReferences: no parent', undefined, undefined],
    ['an owner of another kind is no parent', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' }], undefined],
    ['a PipelineRun of another group is no parent', [{ apiVersion: 'example.com/v1', kind: 'PipelineRun', name: 'p', uid: 'u' }], undefined],
    ['a tekton.dev/v1alpha1 PipelineRun is the parent', [{ apiVersion: 'tekton.dev/v1alpha1', kind: 'PipelineRun', name: 'old', uid: 'u-old' }], { name: 'old', uid: 'u-old' }],
  ];
  for (const [row, ownerReferences, parent] of parentRows) {
    it(row, () => {
      const record = toRunRecord(runObject({}, { metadata: { ownerReferences } }), 'TaskRun');
      assert.deepEqual(record.parentPipelineRun, parent);
    });
  }

  it('a child (pipeline-in-pipeline) PipelineRun has its parent PipelineRun, as a child TaskRun does', () => {
    // tektoncd/pipeline pkg/reconciler/pipelinerun/pipelinerun.go:1213: NewControllerRef(pr) on the child.
    const owners = [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'outer', uid: 'u' }];
    assert.deepEqual(toRunRecord(runObject({}, { metadata: { ownerReferences: owners } }), 'PipelineRun').parentPipelineRun, { name: 'outer', uid: 'u' });
    const foreign = [{ apiVersion: 'example.com/v1', kind: 'PipelineRun', name: 'outer', uid: 'u' }];
    assert.equal(toRunRecord(runObject({}, { metadata: { ownerReferences: foreign } }), 'PipelineRun').parentPipelineRun, undefined);
  });

  it('references: the union of every place, whatever the version listed through', () => {
    // No conversion webhook: a legacy TaskRun created through v1alpha1 and listed through v1beta1.
    const object = runObject(
      { inputs: { resources: [{ name: 'src', resourceRef: { name: 'legacy-git' } }] } },
      { metadata: { annotations: { 'tekton.dev/v1beta1Resources': JSON.stringify({ outputs: [{ name: 'img', resourceRef: { name: 'v1-image' } }] }) } } },
    );
    const record = toRunRecord(object, 'TaskRun');
    assert.deepEqual(record.references, ['legacy-git', 'v1-image']);
    assert.deepEqual(record.problems, []);
  });

  it('unreadable references: null, with the problem', () => {
    const record = toRunRecord(runObject({ resources: 'git-1' }), 'PipelineRun');
    assert.equal(record.references, null);
    assert.deepEqual(record.problems, [{ field: 'spec.resources', problem: 'expected an array, found a string' }]);
  });

  it('malformed ownerReferences: the parent is unknown, so a finished child counts as running', () => {
    const object = runObject({}, { status: succeededStatus('True', 'Succeeded', DONE), metadata: { ownerReferences: 'pr-1' } });
    const record = toRunRecord(object, 'TaskRun');
    assert.equal(record.state, 'running');
    assert.equal(record.finishedAt, undefined);
    assert.deepEqual(record.problems, [{ field: 'metadata.ownerReferences', problem: 'expected an array, found a string' }]);
  });

  it('an unreadable namespace: references unknown (counted against every namespace), no throw', () => {
    const object = runObject({ resources: [{ name: 's', resourceRef: { name: 'git-1' } }] }, { metadata: { namespace: 7 } });
    const record = toRunRecord(object, 'PipelineRun');
    assert.equal(record.namespace, '');
    assert.equal(record.references, null);
    assert.deepEqual(record.problems, [{ field: 'metadata.namespace', problem: 'expected a non-empty string, found a number' }]);
  });

  it('an unreadable name: recorded, references still read', () => {
    const object = runObject({ resources: [{ name: 's', resourceRef: { name: 'git-1' } }] }, { metadata: { name: null } });
    const record = toRunRecord(object, 'PipelineRun');
    assert.equal(record.name, '');
    assert.deepEqual(record.references, ['git-1']);
    assert.deepEqual(record.problems, [{ field: 'metadata.name', problem: 'expected a non-empty string, found null' }]);
  });

  it('not an object at all: a record with problems, references unknown', () => {
    const record = toRunRecord(42, 'TaskRun');
    assert.equal(record.references, null);
    assert.equal(record.state, 'running');
    assert.equal(record.problems.length, 5);
  });
});

describe('toRunRecord with the targets\' strings', () => {
  it('reads the namespace and the names referenced through `strings`, and nothing else', () => {
    const object = runObject({ resources: { inputs: [{ name: 'src', resourceRef: { name: 'git-1' } }] } }, { status: succeededStatus('True', 'Succeeded', DONE) });
    const seen: string[] = [];
    const strings = (value: string): string => {
      seen.push(value);
      return value.toUpperCase();
    };
    const record = toRunRecord(object, 'TaskRun', { strings });
    assert.deepEqual({ namespace: record.namespace, name: record.name, uid: record.uid, references: record.references }, { namespace: 'CI', name: 'run-1', uid: 'uid-run-1', references: ['GIT-1'] });
    assert.deepEqual(seen.sort(), ['ci', 'git-1']);
    // What targetStrings answers is the same text: the record reads as without it.
    assert.deepEqual(toRunRecord(object, 'TaskRun', { strings: targetStrings([target('git-1')]) }), toRunRecord(object, 'TaskRun'));
  });
});

describe('toTargetRecord', () => {
  const object = {
    apiVersion: 'tekton.dev/v1alpha1',
    kind: 'PipelineResource',
    metadata: {
      name: 'git-abc123',
      namespace: 'ci',
      uid: 'uid-git',
      resourceVersion: '42',
      creationTimestamp: '2026-11-20T08:00:00Z',
      labels: { app: 'web', 'tekton-resource-gc.io/retain': 'true' },
      annotations: { 'tekton-resource-gc.io/retain-until': '2026-12-01T00:00:00Z' },
      ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }],
      managedFields: [{ manager: 'kubectl' }],
    },
    spec: { type: 'git', params: [{ name: 'url', value: 'https://example.test/app.git' }] },
  };

  it('keeps identity, creation time, the labels and annotations a retention rule reads, and owners', () => {
    assert.deepEqual(toTargetRecord(object), {
      kind: 'PipelineResource',
      namespace: 'ci',
      name: 'git-abc123',
      uid: 'uid-git',
      resourceVersion: '42',
      createdAt: '2026-11-20T08:00:00Z',
      labels: { 'tekton-resource-gc.io/retain': 'true' },
      annotations: { 'tekton-resource-gc.io/retain-until': '2026-12-01T00:00:00Z' },
      ownerReferences: [{ kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }],
    });
  });

  it('shares one frozen empty map and list among targets with no retention label, annotation or owner', () => {
    const bare = (name: string): Record<string, unknown> => ({ ...object, metadata: { ...object.metadata, name, labels: { app: 'web' }, annotations: undefined, ownerReferences: [] } });
    const [a, b] = [toTargetRecord(bare('a')), toTargetRecord(bare('b'))];
    assert.deepEqual([a.labels, a.annotations, a.ownerReferences], [{}, {}, []]);
    assert.equal(a.labels, b.labels);
    assert.equal(a.annotations, a.labels);
    assert.equal(a.ownerReferences, b.ownerReferences);
    assert.ok(Object.isFrozen(a.labels) && Object.isFrozen(a.ownerReferences));
    // One with a retention label keeps its own.
    assert.notEqual(toTargetRecord(object).labels, a.labels);
  });

  // Each row: a change that makes the target unsafe to decide on -> the message.
  const strictRows: readonly [string, Record<string, unknown>, string][] = [
    ['no name', { name: undefined }, 'PipelineResource ci/: metadata.name: expected a non-empty string, found nothing'],
    ['an empty uid', { uid: '' }, 'PipelineResource ci/git-abc123: metadata.uid: expected a non-empty string, found ""'],
    ['a label that is not a string', { labels: { 'tekton-resource-gc.io/retain': true } }, 'PipelineResource ci/git-abc123: metadata.labels["tekton-resource-gc.io/retain"]: expected a string, found a boolean'],
    ['annotations as an array', { annotations: [] }, 'PipelineResource ci/git-abc123: metadata.annotations: expected an object, found an array'],
  ];
  for (const [row, change, message] of strictRows) {
    it(`throws on ${row}: a target is what would be deleted`, () => {
      const changed = { ...object, metadata: { ...object.metadata, ...change } };
      assert.throws(() => toTargetRecord(changed), (error: unknown) => error instanceof UnreadableObjectError && error.message === message);
    });
  }
});

describe('toNamespaceRecord', () => {
  it('keeps the name and labels', () => {
    const object = { metadata: { name: 'ci', uid: 'u', labels: { 'tekton-resource-gc.io/retain': 'true' } }, spec: { finalizers: ['kubernetes'] } };
    assert.deepEqual(toNamespaceRecord(object), { name: 'ci', labels: { 'tekton-resource-gc.io/retain': 'true' } });
  });

  it('throws on labels it cannot read: they may retain every target in it', () => {
    assert.throws(() => toNamespaceRecord({ metadata: { name: 'ci', labels: 'retain' } }), UnreadableObjectError);
  });
});

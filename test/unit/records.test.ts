/**
 * The compact records a pass holds one of per run and per target (issue 17, flat memory):
 * nothing kept that no rule reads, and one shared empty list where there is nothing to list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnreadableObjectError, isRetentionKey, toRunRecord, toTargetRecord } from '../../src/core/runs.js';
import { EMPTY_LIST } from '../../src/core/types.js';
import { runObject } from '../fixtures/unit/records.js';

describe('compact run records', () => {
  // A child TaskRun with its resource embedded (resourceSpec): it names no PipelineResource.
  const child = runObject(
    { resources: { inputs: [{ name: 'source', resourceSpec: { type: 'git' } }] } },
    { metadata: { ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }] } },
  );

  it('keeps no creation time: no rule reads a run’s age', () => {
    assert.ok(!('createdAt' in toRunRecord(child, 'TaskRun')));
  });

  it('shares one empty list for a run that names nothing and was read whole', () => {
    const first = toRunRecord(child, 'TaskRun');
    const second = toRunRecord(runObject({ resources: [] }), 'PipelineRun');
    for (const record of [first, second]) {
      assert.equal(record.references, EMPTY_LIST);
      assert.equal(record.problems, EMPTY_LIST);
    }
    assert.ok(Object.isFrozen(EMPTY_LIST) && EMPTY_LIST.length === 0);
  });

  it('still checks the creation time, as the rest of the metadata', () => {
    const record = toRunRecord(runObject({}, { metadata: { creationTimestamp: 7 } }), 'PipelineRun');
    assert.deepEqual(record.problems, [{ field: 'metadata.creationTimestamp', problem: 'expected a non-empty string, found a number' }]);
  });
});

describe('compact target records', () => {
  const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
  const object = (metadata: Record<string, unknown>): unknown => ({
    apiVersion: 'tekton.dev/v1alpha1',
    kind: 'PipelineResource',
    metadata: { name: 'src-1', namespace: 'ci', uid: 'uid-1', resourceVersion: '7', creationTimestamp: '2026-11-20T08:00:00Z', ...metadata },
  });

  it('keeps the labels and annotations a retention rule could read, whatever the prefix, and no others', () => {
    const record = toTargetRecord(
      object({
        labels: { app: 'web', 'tekton-resource-gc.io/retain': 'true', 'gc.example.com/retain-for': '7d', retain: 'true' },
        annotations: { [LAST_APPLIED]: JSON.stringify({ spec: { params: 'x'.repeat(2000) } }), 'gc.example.com/retain-until': '2026-12-01' },
      }),
    );
    assert.deepEqual(record.labels, { 'tekton-resource-gc.io/retain': 'true', 'gc.example.com/retain-for': '7d' });
    assert.deepEqual(record.annotations, { 'gc.example.com/retain-until': '2026-12-01' });
  });

  it('still refuses a target with a label it does not keep that is not a string', () => {
    assert.throws(() => toTargetRecord(object({ labels: { app: 3 } })), (error: unknown) => error instanceof UnreadableObjectError && error.message.includes('metadata.labels["app"]'));
  });

  const keys: [string, boolean][] = [
    ['tekton-resource-gc.io/retain', true],
    ['tekton-resource-gc.io/retain-until', true],
    ['tekton-resource-gc.io/retain-for', true],
    ['gc.example.com/retain', true],
    // No prefix: --label-prefix is a DNS subdomain, never empty.
    ['retain', false],
    ['/retain', false],
    ['tekton-resource-gc.io/retained', false],
    ['tekton-resource-gc.io/retain-forever', false],
    [LAST_APPLIED, false],
  ];
  for (const [key, kept] of keys) {
    it(`${key}: ${kept ? 'kept' : 'dropped'}`, () => assert.equal(isRetentionKey(key), kept));
  }
});

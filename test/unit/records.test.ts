/**
 * The records a pass holds, as read from API objects, for every kind (core/runs.ts,
 * markers.ts, holders.ts, runlinks.ts). Runs: compact (issue 17, flat memory: nothing kept
 * that no rule reads, one shared empty list where there is nothing to list) and, only when a
 * leftover collector is on, what they link to leftovers. Targets, collector by collector: what
 * a PipelineResource's record keeps, the markers that make a claim, a StatefulSet or a Secret
 * a target and those that never do (docs/spec.md, "Leftovers"), a claim's size and its Unused condition, and the
 * malformed objects that stop a pass. The holders: Pods and StatefulSets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COLLECTORS } from '../../src/core/collectors.js';
import { claimStem, toPodRecord, toStatefulSetRecord } from '../../src/core/holders.js';
import { toClaimTarget, toPacSecretTarget, toStatefulSetTarget } from '../../src/core/markers.js';
import { NO_WORKSPACES } from '../../src/core/runlinks.js';
import { UnreadableObjectError, isRetentionKey, toRunRecord, toTargetRecord } from '../../src/core/runs.js';
import { EMPTY_LIST, type TargetRecord } from '../../src/core/types.js';
import { affinityClaimObject, affinityStatefulSetObject, ownedClaimObject, ownerReference, pacSecretObject } from '../fixtures/unit/leftovers.js';
import { runObject, succeededStatus } from '../fixtures/unit/records.js';

type Obj = Record<string, unknown>;
const unreadable = (pattern: RegExp) => (error: unknown) => error instanceof UnreadableObjectError && pattern.test(error.message);

// ---- Runs ----

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

describe('toRunRecord with and without the leftovers option', () => {
  const workspaces = [
    { name: 'source', persistentVolumeClaim: { claimName: 'shared' } },
    { name: 'cache', persistentVolumeClaim: { claimName: 'cache', readOnly: true } },
    { name: 'again', persistentVolumeClaim: { claimName: 'shared' } },
    { name: 'auth', secret: { secretName: 'pac-gitauth-abcd' } },
    { name: 'creds', projected: { sources: [{ secret: { name: 'registry' } }] } },
    { name: 'tpl', volumeClaimTemplate: { spec: { resources: { requests: { storage: '1Gi' } } } } },
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'settings' } },
  ];
  const object = runObject(
    { workspaces, resources: [{ name: 'src', resourceRef: { name: 'git-1' } }] },
    {
      status: succeededStatus('True', 'Succeeded', '2026-11-29T10:00:00Z'),
      metadata: {
        labels: { app: 'web', 'tekton-resource-gc.io/retain': 'true' },
        annotations: { 'pipelinesascode.tekton.dev/git-auth-secret': 'pac-gitauth-abcd', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
    },
  );

  it('without it the record is exactly what a PipelineResource pass kept before (issue 17): nothing of workspaces, annotations or labels', () => {
    const compact = toRunRecord(object, 'PipelineRun');
    assert.deepEqual(Object.keys(compact).sort(), ['finishedAt', 'kind', 'name', 'namespace', 'problems', 'references', 'resourceVersion', 'state', 'uid']);
    assert.deepEqual(toRunRecord(object, 'PipelineRun', { leftovers: false }), compact);
  });

  it('with it: claims and Secrets its workspaces bind by name, the git-auth annotation, its retention keys; the rest of the record unchanged', () => {
    const full = toRunRecord(object, 'PipelineRun', { leftovers: true });
    const { workspaces: names, gitAuthSecret, retain, leftoverProblems, ...rest } = full;
    assert.deepEqual(rest, toRunRecord(object, 'PipelineRun'));
    assert.deepEqual(names, { claims: ['cache', 'shared'], secrets: ['pac-gitauth-abcd', 'registry'] });
    assert.equal(gitAuthSecret, 'pac-gitauth-abcd');
    assert.deepEqual(retain, { labels: { 'tekton-resource-gc.io/retain': 'true' }, annotations: {} });
    assert.equal(leftoverProblems, EMPTY_LIST);
  });

  it('a run that names no leftover shares one frozen record of names and the empty problem list', () => {
    const record = toRunRecord(runObject({ workspaces: [{ name: 'w', emptyDir: {} }] }), 'TaskRun', { leftovers: true });
    assert.equal(record.workspaces, NO_WORKSPACES);
    assert.ok(Object.isFrozen(NO_WORKSPACES));
    assert.equal(record.leftoverProblems, EMPTY_LIST);
    assert.equal('retain' in record, false);
    assert.equal('gitAuthSecret' in record, false);
  });

  it('spec.workspaces "oops" (scenario 20): what it links is unknown, while its PipelineResource references are read as before', () => {
    const odd = runObject({ workspaces: 'oops', resources: [{ name: 'src', resourceRef: { name: 'git-1' } }] });
    const record = toRunRecord(odd, 'PipelineRun', { leftovers: true });
    assert.equal(record.workspaces, null);
    assert.deepEqual(record.leftoverProblems, [{ field: 'spec.workspaces', problem: 'expected an array, found a string' }]);
    assert.deepEqual(record.references, ['git-1']);
    assert.equal(record.problems, EMPTY_LIST);
  });

  const problems: [string, Record<string, unknown>, { metadata?: Obj }, string][] = [
    ['a binding that is not an object', { workspaces: ['shared'] }, {}, 'spec.workspaces[0]'],
    ['a claimName that is not a string', { workspaces: [{ name: 'w', persistentVolumeClaim: { claimName: 3 } }] }, {}, 'spec.workspaces[0].persistentVolumeClaim.claimName'],
    ['a persistentVolumeClaim that is not an object', { workspaces: [{ name: 'w', persistentVolumeClaim: 'shared' }] }, {}, 'spec.workspaces[0].persistentVolumeClaim'],
    ['a secretName that is not a string', { workspaces: [{ name: 'w', secret: { secretName: ['a'] } }] }, {}, 'spec.workspaces[0].secret.secretName'],
    ['projected sources that are not a list', { workspaces: [{ name: 'w', projected: { sources: {} } }] }, {}, 'spec.workspaces[0].projected.sources'],
    ['a git-auth annotation that is not a string', {}, { metadata: { annotations: { 'pipelinesascode.tekton.dev/git-auth-secret': 5 } } }, 'metadata.annotations.pipelinesascode.tekton.dev/git-auth-secret'],
    ['a retention label that is not a string', {}, { metadata: { labels: { 'tekton-resource-gc.io/retain': true } } }, 'metadata.labels["tekton-resource-gc.io/retain"]'],
    ['no uid: it could be any leftover’s owner', {}, { metadata: { uid: undefined } }, 'metadata.uid'],
    ['no namespace', {}, { metadata: { namespace: undefined } }, 'metadata.namespace'],
    ['a spec that is not an object', 'oops' as unknown as Record<string, unknown>, {}, 'spec'],
  ];
  for (const [row, spec, more, field] of problems) {
    it(`${row}: a leftover problem at ${field}`, () => {
      const record = toRunRecord(runObject(spec, more), 'PipelineRun', { leftovers: true });
      assert.ok(record.leftoverProblems?.some((p) => p.field === field), JSON.stringify(record.leftoverProblems));
    });
  }

  it('a status it cannot read is not a leftover problem (the run counts as running instead)', () => {
    const record = toRunRecord(runObject({}, { status: { conditions: 'x' } }), 'PipelineRun', { leftovers: true });
    assert.equal(record.state, 'running');
    assert.equal(record.leftoverProblems, EMPTY_LIST);
  });
});

// ---- Targets, collector by collector ----

describe('pipelineresources: compact target records', () => {
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

describe('workspace-pvcs: claims owned by a run', () => {
  it('a controller ownerReference to a tekton.dev PipelineRun: owned; its record keeps what the rules and the delete phase read', () => {
    const object = ownedClaimObject('pvc-1a2b3c4d5e', ownerReference('PipelineRun', 'pr-1'), {
      metadata: {
        labels: { app: 'web', 'tekton-resource-gc.io/retain-for': '7d' },
        annotations: { 'volume.kubernetes.io/storage-provisioner': 'x', 'tekton-resource-gc.io/retain': 'true' },
        finalizers: ['kubernetes.io/pvc-protection', 'snapshot.storage.kubernetes.io/pvc-as-source-protection'],
        deletionTimestamp: '2026-11-29T11:00:00Z',
      },
    });
    const record: TargetRecord = {
      kind: 'PersistentVolumeClaim',
      namespace: 'ci',
      name: 'pvc-1a2b3c4d5e',
      uid: 'uid-pvc-1a2b3c4d5e',
      resourceVersion: '7',
      createdAt: '2026-11-26T12:00:00Z',
      labels: { 'tekton-resource-gc.io/retain-for': '7d' },
      annotations: { 'tekton-resource-gc.io/retain': 'true' },
      ownerReferences: [{ kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }],
      deletionTimestamp: '2026-11-29T11:00:00Z',
      finalizers: ['kubernetes.io/pvc-protection', 'snapshot.storage.kubernetes.io/pvc-as-source-protection'],
      leftover: { marker: 'owned', bytes: { value: 1024 ** 3, from: 'request' } },
    };
    assert.deepEqual(toClaimTarget(object), record);
    assert.equal(COLLECTORS['workspace-pvcs'].toRecord, toClaimTarget);
  });

  const rows: [string, Obj, boolean][] = [
    ['owned by a TaskRun (a standalone TaskRun owns its claims), any tekton.dev version', ownedClaimObject('pvc-t', ownerReference('TaskRun', 'tr-1', { apiVersion: 'tekton.dev/v1beta1' })), true],
    ['a legacy name (<pipelinerun>-pvc) with its controller owner: the name does not matter', ownedClaimObject('pr-1-pvc', ownerReference('PipelineRun', 'pr-1', { apiVersion: 'tekton.dev/v1alpha1' })), true],
    ['owner apiVersion example.com/v1: not Tekton, not a target (scenario 11)', ownedClaimObject('pvc-x', ownerReference('PipelineRun', 'pr-1', { apiVersion: 'example.com/v1' })), false],
    ['owner apiVersion tekton.devx/v1: another group, not a target', ownedClaimObject('pvc-x', ownerReference('PipelineRun', 'pr-1', { apiVersion: 'tekton.devx/v1' })), false],
    ['owner not controller: not a target (scenario 11)', ownedClaimObject('pvc-x', ownerReference('PipelineRun', 'pr-1', { controller: false })), false],
    ['owner with no controller field: not a target', ownedClaimObject('pvc-x', ownerReference('PipelineRun', 'pr-1', { controller: undefined })), false],
    ['controller owner of another kind (a Pipeline): not a target', ownedClaimObject('pvc-x', ownerReference('Pipeline', 'p-1')), false],
    ['no owner, no label: a user claim, unmarked', ownedClaimObject('data', ownerReference('PipelineRun', 'pr-1'), { metadata: { ownerReferences: [] } }), false],
  ];
  for (const [row, object, marked] of rows) {
    it(row, () => {
      const record = toClaimTarget(object);
      assert.equal(record?.leftover?.marker, marked ? 'owned' : undefined);
      if (!marked) assert.equal(record, null);
    });
  }

  it('keeps only the ownerReferences to tekton.dev runs (the graph reads no other)', () => {
    const object = ownedClaimObject('pvc-1', ownerReference('PipelineRun', 'pr-1'), {
      metadata: { ownerReferences: [ownerReference('PipelineRun', 'pr-1'), ownerReference('PipelineRun', 'fake', { apiVersion: 'example.com/v1', controller: false }), ownerReference('ConfigMap', 'c', { apiVersion: 'v1', controller: false })] },
    });
    assert.deepEqual(toClaimTarget(object)?.ownerReferences, [{ kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }]);
  });
});

describe('workspace-pvcs: affinity-assistant claims', () => {
  it('no owner, the StatefulSet labels and the name it gives: marked, with the PipelineRun its label names', () => {
    const record = toClaimTarget(affinityClaimObject('pr-1'));
    assert.deepEqual(record?.leftover, { marker: 'affinity-assistant', pipelineRunLabel: 'pr-1', bytes: { value: 1024 ** 3, from: 'request' } });
    assert.deepEqual(record?.ownerReferences, []);
    // Labels other than retention keys are read for the marker, not kept.
    assert.deepEqual(record?.labels, {});
  });

  const without = (labels: Obj, metadata: Obj = {}): Obj => affinityClaimObject('pr-1', 'affinity-assistant-0123456789', { labels, metadata });
  const rows: [string, Obj][] = [
    ['without the component label', without({ 'app.kubernetes.io/component': undefined })],
    ['another component', without({ 'app.kubernetes.io/component': 'database' })],
    ['without the tekton.dev/pipelineRun label', without({ 'tekton.dev/pipelineRun': undefined })],
    ['an empty tekton.dev/pipelineRun label', without({ 'tekton.dev/pipelineRun': '' })],
    ['without the instance label', without({ 'app.kubernetes.io/instance': undefined })],
    ['an instance not named affinity-assistant-…', without({ 'app.kubernetes.io/instance': 'web-0123456789' })],
    ['a name of another ordinal (-1)', without({}, { name: 'pvc-0123abcd-affinity-assistant-0123456789-1' })],
    ['a name of another StatefulSet', without({}, { name: 'pvc-0123abcd-affinity-assistant-9999999999-0' })],
    ['a name with no template part', without({}, { name: '-affinity-assistant-0123456789-0' })],
    ['an ownerReference (a retention policy on the StatefulSet)', without({}, { ownerReferences: [ownerReference('StatefulSet', 'affinity-assistant-0123456789', { apiVersion: 'apps/v1' })] })],
  ];
  for (const [row, object] of rows) {
    it(`${row}: not a target`, () => assert.equal(toClaimTarget(object), null));
  }
});

describe('claim size', () => {
  const sized = (spec: Obj, status?: Obj): TargetRecord | null => toClaimTarget(ownedClaimObject('pvc-1', undefined, { spec, ...(status !== undefined && { status }) }));
  const rows: [string, Obj, Obj | undefined, { value: number; from: 'capacity' | 'request' } | undefined][] = [
    ['a 1500Mi request (scenario 24)', { resources: { requests: { storage: '1500Mi' } } }, undefined, { value: 1500 * 1024 ** 2, from: 'request' }],
    ['a 50Gi capacity wins over the request (scenario 24)', { resources: { requests: { storage: '1500Mi' } } }, { capacity: { storage: '50Gi' } }, { value: 50 * 1024 ** 3, from: 'capacity' }],
    ['a capacity that cannot be read: the request', { resources: { requests: { storage: '1Gi' } } }, { capacity: { storage: 'lots' } }, { value: 1024 ** 3, from: 'request' }],
    ['no readable quantity: no size, and no failure', { resources: { requests: { storage: 7 } } }, { capacity: 'full' }, undefined],
    ['no resources at all: no size', { resources: null }, undefined, undefined],
  ];
  for (const [row, spec, status, bytes] of rows) {
    it(row, () => assert.deepEqual(sized(spec, status)?.leftover?.bytes, bytes));
  }
});

describe("a claim's Unused condition (KEP-5541: Kubernetes 1.37 writes it, beta, on by default)", () => {
  const withStatus = (status: unknown): TargetRecord | null => toClaimTarget(ownedClaimObject('pvc-1', undefined, { status: status as Obj }));
  const SINCE = '2026-11-29T10:00:00Z';
  const unusedFalse = { type: 'Unused', status: 'False', reason: 'PodUsingPVC', message: 'a Pod uses it', lastTransitionTime: SINCE };
  const rows: [string, unknown, { reason?: string; since?: string } | undefined][] = [
    ['Unused=False (PodUsingPVC): kept on the record, with its reason and since when', { conditions: [unusedFalse] }, { reason: 'PodUsingPVC', since: SINCE }],
    ['Unused=False beside other conditions', { conditions: [{ type: 'Resizing', status: 'True' }, unusedFalse] }, { reason: 'PodUsingPVC', since: SINCE }],
    ['Unused=False with no reason and a zero time (Go writes null)', { conditions: [{ type: 'Unused', status: 'False', reason: '', lastTransitionTime: null }] }, {}],
    ['Unused=True (NoPodsUsingPVC): nothing on the record, the Pod list decides', { conditions: [{ ...unusedFalse, status: 'True', reason: 'NoPodsUsingPVC' }] }, undefined],
    ['Unused=Unknown: nothing', { conditions: [{ ...unusedFalse, status: 'Unknown' }] }, undefined],
    ['another condition False: nothing', { conditions: [{ ...unusedFalse, type: 'Resizing' }] }, undefined],
    ['no conditions (a cluster before 1.37, or the feature off): nothing', { phase: 'Bound' }, undefined],
    ['conditions null: nothing', { conditions: null }, undefined],
    ['no status at all: nothing', undefined, undefined],
  ];
  for (const [row, status, condition] of rows) {
    it(row, () => assert.deepEqual(withStatus(status)?.leftover?.inUseCondition, condition));
  }

  it('the record keeps that one small field of the status, nothing else of it', () => {
    const record = withStatus({ phase: 'Bound', capacity: { storage: '2Gi' }, conditions: [unusedFalse, { type: 'Resizing', status: 'True' }] });
    assert.deepEqual(record?.leftover, { marker: 'owned', bytes: { value: 2 * 1024 ** 3, from: 'capacity' }, inUseCondition: { reason: 'PodUsingPVC', since: SINCE } });
  });

  it('conditions that cannot be read stop the pass: one of them may say a Pod uses the claim', () => {
    assert.throws(() => withStatus({ conditions: 'Unused' }), unreadable(/PersistentVolumeClaim ci\/pvc-1: status\.conditions: expected an array/));
    assert.throws(() => withStatus({ conditions: [3] }), unreadable(/status\.conditions\[0\]: expected an object/));
    assert.throws(() => withStatus({ conditions: [{ type: 7, status: 'False' }] }), unreadable(/status\.conditions\[0\]\.type: expected a string/));
    assert.throws(() => withStatus({ conditions: [{ type: 'Unused', status: false }] }), unreadable(/status\.conditions\[0\]\.status: expected a string/));
    assert.throws(() => withStatus({ conditions: [{ type: 'Unused', status: 'False', reason: 1 }] }), unreadable(/status\.conditions\[0\]\.reason: expected a string/));
    assert.throws(() => withStatus('Bound'), unreadable(/status: expected an object/));
  });

  it('an unmarked claim is not read for it', () => {
    assert.equal(toClaimTarget(ownedClaimObject('data', undefined, { metadata: { ownerReferences: [] }, status: { conditions: 'x' } })), null);
  });
});

describe('affinity-assistants: StatefulSets', () => {
  it('the component label, the name and a controller PipelineRun: a target, with its PipelineRun label', () => {
    const record = toStatefulSetTarget(affinityStatefulSetObject('pr-1'));
    assert.equal(record?.kind, 'StatefulSet');
    assert.deepEqual(record?.leftover, { marker: 'statefulset', pipelineRunLabel: 'pr-1' });
    assert.deepEqual(record?.ownerReferences, [{ kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: true }]);
    assert.equal(record?.finalizers, undefined);
  });

  const rows: [string, Obj][] = [
    ['without the component label (scenario 14)', affinityStatefulSetObject('pr-1', undefined, { labels: { 'app.kubernetes.io/component': undefined } })],
    ['a name not starting affinity-assistant-', affinityStatefulSetObject('pr-1', 'web')],
    ['owned by a TaskRun', affinityStatefulSetObject('pr-1', undefined, { metadata: { ownerReferences: [ownerReference('TaskRun', 'tr-1')] } })],
    ['its PipelineRun not controller', affinityStatefulSetObject('pr-1', undefined, { metadata: { ownerReferences: [ownerReference('PipelineRun', 'pr-1', { controller: false })] } })],
    ['a PipelineRun of another group', affinityStatefulSetObject('pr-1', undefined, { metadata: { ownerReferences: [ownerReference('PipelineRun', 'pr-1', { apiVersion: 'example.com/v1' })] } })],
    ['no owner', affinityStatefulSetObject('pr-1', undefined, { metadata: { ownerReferences: [] } })],
  ];
  for (const [row, object] of rows) {
    it(`${row}: not a target`, () => assert.equal(toStatefulSetTarget(object), null));
  }
});

describe('pac-secrets: Pipelines-as-Code Secrets', () => {
  it('managed by Pipelines-as-Code and named pac-gitauth-…: a target; its ownerReference (controller: false) kept', () => {
    const record = toPacSecretTarget(pacSecretObject('pac-gitauth-abcdef', { metadata: { ownerReferences: [ownerReference('PipelineRun', 'pr-1', { controller: false })] } }));
    assert.equal(record?.kind, 'Secret');
    assert.deepEqual(record?.leftover, { marker: 'pac-secret' });
    assert.deepEqual(record?.ownerReferences, [{ kind: 'PipelineRun', name: 'pr-1', uid: 'uid-pr-1', controller: false }]);
    assert.deepEqual(record?.annotations, {});
  });

  it('the label value pipelines-as-code (before v0.17) is accepted (scenario 18)', () => {
    assert.equal(toPacSecretTarget(pacSecretObject('pac-gitauth-abcd', { labels: { 'app.kubernetes.io/managed-by': 'pipelines-as-code' } }))?.leftover?.marker, 'pac-secret');
  });

  const rows: [string, Obj][] = [
    ['pac-gitauth-x without the label (scenario 18)', pacSecretObject('pac-gitauth-x', { labels: { 'app.kubernetes.io/managed-by': undefined } })],
    ['pac-git-basic-auth-o-r, a per-repository Secret of before 0.7.0 (scenario 18)', pacSecretObject('pac-git-basic-auth-o-r')],
    ['managed by something else', pacSecretObject('pac-gitauth-abcd', { labels: { 'app.kubernetes.io/managed-by': 'helm' } })],
    ['named only pac-gitauth-', pacSecretObject('pac-gitauth-')],
  ];
  for (const [row, object] of rows) {
    it(`${row}: not a target`, () => assert.equal(toPacSecretTarget(object), null));
  }

  it('the collector lists Secrets as metadata, with the managed-by selector', () => {
    assert.equal(COLLECTORS['pac-secrets'].metadataOnly, true);
    assert.equal(COLLECTORS['pac-secrets'].listLabelSelector, 'app.kubernetes.io/managed-by in (pipelinesascode.tekton.dev,pipelines-as-code)');
  });
});

describe('malformed objects', () => {
  it('a marked claim of an unexpected shape stops the pass', () => {
    assert.throws(() => toClaimTarget(ownedClaimObject('pvc-1', undefined, { metadata: { finalizers: 'kubernetes.io/pvc-protection' } })), unreadable(/metadata\.finalizers: expected an array/));
    assert.throws(() => toClaimTarget(ownedClaimObject('pvc-1', undefined, { metadata: { uid: undefined } })), unreadable(/PersistentVolumeClaim ci\/pvc-1: metadata\.uid/));
    assert.throws(() => toClaimTarget(ownedClaimObject('pvc-1', undefined, { metadata: { deletionTimestamp: 5 } })), unreadable(/metadata\.deletionTimestamp/));
    assert.throws(() => toStatefulSetTarget(affinityStatefulSetObject('pr-1', undefined, { metadata: { annotations: { note: 3 } } })), unreadable(/StatefulSet ci\/.*metadata\.annotations\["note"\]/));
  });

  it('an object whose marker cannot be read stops the pass: it may be a target', () => {
    assert.throws(() => toClaimTarget(ownedClaimObject('pvc-1', undefined, { metadata: { ownerReferences: 'pr-1' } })), unreadable(/metadata\.ownerReferences: expected an array/));
    assert.throws(() => toPacSecretTarget(pacSecretObject('pac-gitauth-abcd', { labels: { 'app.kubernetes.io/managed-by': 3 } })), unreadable(/metadata\.labels\["app\.kubernetes\.io\/managed-by"\]/));
    assert.throws(() => toClaimTarget('a string'), unreadable(/\(object\)/));
  });

  it('an object certainly unmarked is not read further', () => {
    assert.equal(toClaimTarget(ownedClaimObject('data', undefined, { metadata: { ownerReferences: [], uid: undefined, finalizers: 'x' } })), null);
  });
});

// ---- Holders ----

describe('toPodRecord', () => {
  const podObject = (spec: Obj, status?: Obj): Obj => ({ metadata: { name: 'pr-1-build-pod', namespace: 'ci', uid: 'uid-pod' }, spec, ...(status !== undefined && { status }) });

  it('the claims it mounts and the Secrets it mounts or reads, from every container list; sorted, once each', () => {
    const record = toPodRecord(
      podObject(
        {
          volumes: [
            { name: 'ws', persistentVolumeClaim: { claimName: 'pvc-b' } },
            { name: 'ws2', persistentVolumeClaim: { claimName: 'pvc-a' } },
            { name: 'auth', secret: { secretName: 'pac-gitauth-abcd' } },
            { name: 'proj', projected: { sources: [{ secret: { name: 'projected-secret' } }, { configMap: { name: 'cm' } }] } },
            { name: 'cm', configMap: { name: 'config' } },
            { name: 'tmp', emptyDir: {} },
          ],
          containers: [{ name: 'step', env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'C', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }, { name: 'X', value: 'y' }] }],
          initContainers: [{ name: 'prepare', envFrom: [{ secretRef: { name: 'envfrom-secret' } }, { configMapRef: { name: 'c' } }] }],
          ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'pac-gitauth-abcd' } }] }],
        },
        { phase: 'Running' },
      ),
    );
    assert.deepEqual(record, {
      namespace: 'ci',
      name: 'pr-1-build-pod',
      phase: 'Running',
      claims: ['pvc-a', 'pvc-b'],
      secrets: ['env-secret', 'envfrom-secret', 'pac-gitauth-abcd', 'projected-secret'],
    });
  });

  it('no phase stays absent (it counts as active); no volume names nothing, with the shared empty list', () => {
    const record = toPodRecord(podObject({ containers: [{ name: 'c' }] }));
    assert.equal('phase' in record, false);
    assert.equal(record.claims, EMPTY_LIST);
    assert.equal(record.secrets, EMPTY_LIST);
  });

  it('a Pod of an unexpected shape stops the pass: it may hold anything', () => {
    assert.throws(() => toPodRecord(podObject({ volumes: 'ws' })), unreadable(/Pod ci\/pr-1-build-pod: spec\.volumes: expected an array/));
    assert.throws(() => toPodRecord(podObject({ volumes: [{ persistentVolumeClaim: { claimName: 3 } }] })), unreadable(/spec\.volumes\[0\]\.persistentVolumeClaim\.claimName/));
    assert.throws(() => toPodRecord(podObject({ containers: [{ env: [{ valueFrom: { secretKeyRef: 'x' } }] }] })), unreadable(/spec\.containers\[0\]\.env\[0\]\.valueFrom\.secretKeyRef/));
    assert.throws(() => toPodRecord(podObject({}, { phase: 4 })), unreadable(/status\.phase/));
  });
});

describe('toStatefulSetRecord', () => {
  it('an affinity assistant names its template claim by stem: <template>-<statefulset>', () => {
    const object = affinityStatefulSetObject('pr-1', 'affinity-assistant-0123456789', { spec: { replicas: undefined } });
    assert.deepEqual(toStatefulSetRecord(object), {
      namespace: 'ci',
      name: 'affinity-assistant-0123456789',
      uid: 'uid-affinity-assistant-0123456789',
      claims: [],
      claimStems: ['pvc-0123abcd-affinity-assistant-0123456789'],
    });
  });

  it('template volumes by claimName, and each volumeClaimTemplate by its stem', () => {
    const object = {
      metadata: { name: 'db', namespace: 'ci', uid: 'uid-db' },
      spec: {
        replicas: 3,
        template: { spec: { volumes: [{ name: 'shared', persistentVolumeClaim: { claimName: 'shared-data' } }, { name: 'tmp', emptyDir: {} }] } },
        volumeClaimTemplates: [{ metadata: { name: 'logs' } }, { metadata: { name: 'data' } }],
      },
    };
    assert.deepEqual(toStatefulSetRecord(object), { namespace: 'ci', name: 'db', uid: 'uid-db', claims: ['shared-data'], claimStems: ['data-db', 'logs-db'] });
  });

  it('replicas and ordinals.start do not narrow what it names: scaled to 0, or starting at 5, its templates still name their claims', () => {
    // Scaled down, a StatefulSet keeps the claims of the ordinals it dropped and mounts them again when scaled up.
    for (const spec of [{ replicas: 0 }, { replicas: 1, ordinals: { start: 5 } }, { replicas: '3' }, { replicas: -1 }]) {
      const record = toStatefulSetRecord({ metadata: { name: 'db', namespace: 'ci', uid: 'u' }, spec: { ...spec, volumeClaimTemplates: [{ metadata: { name: 'data' } }] } });
      assert.deepEqual(record.claimStems, ['data-db'], JSON.stringify(spec));
    }
  });

  it('a template or a mount it cannot read stops the pass', () => {
    const object = (spec: Obj): Obj => ({ metadata: { name: 'db', namespace: 'ci', uid: 'u' }, spec });
    assert.throws(() => toStatefulSetRecord(object({ volumeClaimTemplates: [{ metadata: { name: 3 } }] })), unreadable(/spec\.volumeClaimTemplates\[0\]\.metadata\.name/));
    assert.throws(() => toStatefulSetRecord(object({ volumeClaimTemplates: 'data' })), unreadable(/spec\.volumeClaimTemplates/));
    assert.throws(() => toStatefulSetRecord(object({ template: { spec: { volumes: [{ persistentVolumeClaim: { claimName: [] } }] } } })), unreadable(/spec\.template\.spec\.volumes\[0\]\.persistentVolumeClaim\.claimName/));
  });
});

describe('claimStem', () => {
  it('is the name less its ordinal, for any ordinal; undefined when the name ends in none', () => {
    assert.equal(claimStem('pvc-0123abcd-affinity-assistant-0123456789-0'), 'pvc-0123abcd-affinity-assistant-0123456789');
    assert.equal(claimStem('data-db-12'), 'data-db');
    assert.equal(claimStem('data-db-007'), 'data-db');
    assert.equal(claimStem('data-db'), undefined);
    assert.equal(claimStem('data-db-'), undefined);
    assert.equal(claimStem('data-db-1a'), undefined);
    assert.equal(claimStem('7'), undefined);
  });
});

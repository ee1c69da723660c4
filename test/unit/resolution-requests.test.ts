/**
 * The ResolutionRequests' collector (docs/spec.md, "ResolutionRequests"): Tekton's
 * deterministic request names, which request a run has released by storing what it resolved,
 * the marker, and the rows of its table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COLLECTORS } from '../../src/core/collectors.js';
import { decide } from '../../src/core/decide.js';
import { toResolutionRequestTarget } from '../../src/core/markers.js';
import { deterministicName, releasedRequestName } from '../../src/core/resolution.js';
import { releasingOwners } from '../../src/core/needed.js';
import { toRunRecord, unreadRunMember } from '../../src/core/runs.js';
import { ListScanner } from '../../src/kube/listbody.js';
import type { Decision, RunRecord, TargetRecord } from '../../src/core/types.js';
import { activeLrun, childLrun, leftover, lrun, ownerReference } from '../fixtures/unit/leftovers.js';
import { DAY, HOUR, NOW, POLICY, at, runObject, succeededStatus } from '../fixtures/unit/records.js';

const GIT_PARAMS = [
  { name: 'url', value: 'https://github.com/org/repo' },
  { name: 'revision', value: 'main' },
  { name: 'pathInRepo', value: 'pipeline.yaml' },
];

describe('deterministicName: Tekton’s GenerateDeterministicNameFromSpec for string params', () => {
  // tektoncd/pipeline pkg/resolution/resource/name_test.go, the rows without array, object or URL params.
  it('matches Tekton’s own test rows', () => {
    assert.equal(deterministicName('prefix', '', []), 'prefix-6c62272e07bb014262b821756295c58d');
    assert.equal(deterministicName('', 'base', []), '-6989337ae0757277b806e97e86444ef0');
    assert.equal(deterministicName('a'.repeat(31), 'default/my-taskrun', []), `${'a'.repeat(30)}-2d162955e9c9fcfef736fd389e7fd796`);
  });

  // Computed by Go's hash/fnv New128a with name.go's steps (sort.SliceStable by name, name then value).
  const GO_ROWS: readonly { prefix: string; base: string; params: readonly (readonly [string, string])[]; name: string }[] = [
    { prefix: 'bundles', base: 'team-a/tr-7', params: [['bundle', 'registry.example/cat:1.2'], ['name', 'build'], ['kind', 'task']], name: 'bundles-5f6dd30e06a3e46d9d98dead47ee6d30' },
    { prefix: 'hub', base: 'ns/x', params: [], name: 'hub-692d4228b3757277b806e961fbb12239' },
    { prefix: 'cluster', base: 'ci/über-run', params: [['name', 'ünïcode'], ['kind', 'pipeline'], ['namespace', 'shared']], name: 'cluster-6e716efd1561bd4eab6e14ad946116b3' },
  ];

  it('matches Go for params, in any order, and for UTF-8 names and values', () => {
    assert.equal(deterministicName('git', 'ci/build-1', GIT_PARAMS), 'git-fa222bc2b1249706510b3f6fe06e564f');
    assert.equal(deterministicName('git', 'ci/build-1', [...GIT_PARAMS].reverse()), 'git-fa222bc2b1249706510b3f6fe06e564f');
    for (const row of GO_ROWS) {
      assert.equal(deterministicName(row.prefix, row.base, row.params.map(([name, value]) => ({ name, value }))), row.name, row.base);
    }
  });
});

const PIPELINE_REQUEST = 'git-fa222bc2b1249706510b3f6fe06e564f';

/** A PipelineRun `build-1` in `ci` whose pipelineRef resolves through git, with what the row changes. */
function pipelineRunObject(more: { ref?: Record<string, unknown>; params?: unknown; status?: Record<string, unknown> } = {}): Record<string, unknown> {
  return runObject(
    { pipelineRef: { resolver: 'git', params: GIT_PARAMS, ...more.ref }, ...(more.params !== undefined && { params: more.params }) },
    { metadata: { name: 'build-1', uid: 'uid-build-1' }, status: { conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }], ...more.status } },
  );
}

const STORED = { pipelineSpec: { tasks: [] } };
const identity = { namespace: 'ci', name: 'build-1', uid: 'uid-build-1' };

describe('releasedRequestName: the request a run reads no more', () => {
  it('a PipelineRun that stored status.pipelineSpec released its pipelineRef’s request', () => {
    assert.equal(releasedRequestName(pipelineRunObject({ status: STORED }), 'PipelineRun', identity), PIPELINE_REQUEST);
  });

  it('a stored spec the list scanner replaced by null still counts: the member is there', () => {
    assert.equal(releasedRequestName(pipelineRunObject({ status: { pipelineSpec: null } }), 'PipelineRun', identity), PIPELINE_REQUEST);
  });

  it('nothing before the spec is stored, for a ref without a resolver, or for a URL ref', () => {
    assert.equal(releasedRequestName(pipelineRunObject(), 'PipelineRun', identity), undefined);
    assert.equal(releasedRequestName(pipelineRunObject({ ref: { resolver: undefined, name: 'local' }, status: STORED }), 'PipelineRun', identity), undefined);
    assert.equal(releasedRequestName(pipelineRunObject({ ref: { name: 'https://example.com/p.yaml' }, status: STORED }), 'PipelineRun', identity), undefined);
  });

  it('a TaskRun reads its taskRef and status.taskSpec; its pipelineRef and pipelineSpec mean nothing to it', () => {
    const taskRun = runObject({ taskRef: { resolver: 'git', params: GIT_PARAMS } }, { metadata: { name: 'build-1' }, status: { taskSpec: { steps: [] } } });
    assert.equal(releasedRequestName(taskRun, 'TaskRun', identity), PIPELINE_REQUEST);
    assert.equal(releasedRequestName(pipelineRunObject({ status: STORED }), 'TaskRun', identity), undefined);
  });

  it('replaces $(params.x) in its three spellings and $(context.pipelineRun.*) as Tekton does', () => {
    const object = pipelineRunObject({
      ref: {
        params: [
          { name: 'url', value: 'https://github.com/org/$(params["repo"])' },
          { name: 'revision', value: "$(params.revision)-$(params['suffix'])" },
          { name: 'pathInRepo', value: '$(context.pipelineRun.namespace)/$(context.pipelineRun.name).yaml' },
        ],
      },
      params: [
        { name: 'repo', value: 'repo' },
        { name: 'revision', value: 'main' },
        { name: 'suffix', value: 'x' },
      ],
      status: STORED,
    });
    const expected = deterministicName('git', 'ci/build-1', [
      { name: 'url', value: 'https://github.com/org/repo' },
      { name: 'revision', value: 'main-x' },
      { name: 'pathInRepo', value: 'ci/build-1.yaml' },
    ]);
    assert.equal(releasedRequestName(object, 'PipelineRun', identity), expected);
  });

  it('no name when a reference stays unreplaced, a param is an array, or a value is itself a reference', () => {
    const missing = pipelineRunObject({ ref: { params: [{ name: 'revision', value: '$(params.missing)' }] }, status: STORED });
    assert.equal(releasedRequestName(missing, 'PipelineRun', identity), undefined);
    const array = pipelineRunObject({ ref: { params: [{ name: 'revisions', value: ['a', 'b'] }] }, status: STORED });
    assert.equal(releasedRequestName(array, 'PipelineRun', identity), undefined);
    const nested = pipelineRunObject({ ref: { params: [{ name: 'revision', value: '$(params.a)' }] }, params: [{ name: 'a', value: '$(params.b)' }, { name: 'b', value: 'x' }], status: STORED });
    assert.equal(releasedRequestName(nested, 'PipelineRun', identity), undefined);
    const retries = runObject({ taskRef: { resolver: 'git', params: [{ name: 'revision', value: '$(context.task.retry-count)' }] } }, { metadata: { name: 'build-1' }, status: { taskSpec: {} } });
    assert.equal(releasedRequestName(retries, 'TaskRun', identity), undefined);
  });

  it('a run listed page by page keeps it: the scanner leaves status.pipelineSpec out, as null, and its member says it was stored', () => {
    const items: unknown[] = [];
    const scanner = new ListScanner((item) => items.push(item), unreadRunMember);
    scanner.write(Buffer.from(JSON.stringify({ kind: 'PipelineRunList', items: [pipelineRunObject({ status: { pipelineSpec: { tasks: [{ name: 'big' }] } } }), pipelineRunObject()] })));
    scanner.end();
    const [stored, notStored] = items.map((item) => toRunRecord(item, 'PipelineRun', { leftovers: true }));
    assert.equal((items[0] as { status: { pipelineSpec: unknown } }).status.pipelineSpec, null);
    assert.equal(stored?.releasedRequest, PIPELINE_REQUEST);
    assert.equal(notStored?.releasedRequest, undefined);
  });

  it('a pass names it only for the owners of the ResolutionRequests it listed (releasingOwners): hashing every run’s ref is work no decision reads', () => {
    const owned = toResolutionRequestTarget(requestObject(PIPELINE_REQUEST));
    assert.ok(owned !== null);
    const claimOwner = leftover('PersistentVolumeClaim', 'pvc-1', { ownerReferences: [{ kind: 'PipelineRun', name: 'other', uid: 'uid-other', controller: true }] });
    const releasing = releasingOwners([owned, claimOwner]);
    assert.deepEqual([releasing({ uid: 'uid-build-1', namespace: 'ci', name: 'build-1' }), releasing({ uid: 'uid-other', namespace: 'ci', name: 'other' })], [true, false]);
    const stored = pipelineRunObject({ status: STORED });
    assert.equal(toRunRecord(stored, 'PipelineRun', { leftovers: true, releasing }).releasedRequest, PIPELINE_REQUEST);
    assert.equal(toRunRecord(stored, 'PipelineRun', { leftovers: true, releasing: releasingOwners([claimOwner]) }).releasedRequest, undefined);
  });

  it('toRunRecord keeps it for a run that is or may be active, read with the leftovers’ links only', () => {
    assert.equal(toRunRecord(pipelineRunObject({ status: STORED }), 'PipelineRun', { leftovers: true }).releasedRequest, PIPELINE_REQUEST);
    assert.equal(toRunRecord(pipelineRunObject({ status: STORED }), 'PipelineRun').releasedRequest, undefined);
    const finished = pipelineRunObject({ status: { ...STORED, ...succeededStatus('True', 'Succeeded', at(-HOUR)) } });
    assert.equal(toRunRecord(finished, 'PipelineRun', { leftovers: true }).releasedRequest, undefined);
  });
});

/** A ResolutionRequest as a metadata-only list returns it. */
function requestObject(name: string, more: { labels?: Record<string, string>; ownerReferences?: unknown[] } = {}): Record<string, unknown> {
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: {
      name,
      namespace: 'ci',
      uid: `uid-${name}`,
      resourceVersion: '3',
      creationTimestamp: at(-3 * DAY),
      labels: more.labels ?? { 'resolution.tekton.dev/type': 'git' },
      ownerReferences: more.ownerReferences ?? [ownerReference('PipelineRun', 'build-1')],
    },
  };
}

describe('toResolutionRequestTarget: the marker', () => {
  it('a request with its resolver label and a run’s ownerReference is a target', () => {
    const record = toResolutionRequestTarget(requestObject(PIPELINE_REQUEST));
    assert.equal(record?.kind, 'ResolutionRequest');
    assert.deepEqual(record?.ownerReferences, [{ kind: 'PipelineRun', name: 'build-1', uid: 'uid-build-1', controller: true }]);
    assert.deepEqual(record?.leftover, { marker: 'resolution-request' });
  });

  it('one made by hand (no run owner), another controller’s, or without the label is not', () => {
    assert.equal(toResolutionRequestTarget(requestObject('x', { ownerReferences: [] })), null);
    assert.equal(toResolutionRequestTarget(requestObject('x', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'PipelineRun', name: 'p', uid: 'u', controller: true }] })), null);
    assert.equal(toResolutionRequestTarget(requestObject('x', { labels: {} })), null);
  });
});

// ---- The table ----------------------------------------------------------------------------

function request(name: string, owner: { kind: RunRecord['kind']; name: string; uid: string }, more: Partial<TargetRecord> = {}): TargetRecord {
  return leftover('ResolutionRequest', name, { ownerReferences: [{ kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }], ...more });
}

function decideRequest(target: TargetRecord, runs: readonly RunRecord[], minAgeMs = HOUR): Decision {
  const [decision] = decide({ targets: [target], runs, namespaces: new Map() }, { ...POLICY, minAgeMs }, NOW);
  assert.ok(decision !== undefined);
  return decision;
}

const running = activeLrun('build-1', { releasedRequest: PIPELINE_REQUEST });
const runningNotStored = activeLrun('build-1');

describe('the ResolutionRequests’ table', () => {
  it('is the collector’s: an owner run links a request, and so does a run of an owner’s name (reruns.test.ts)', () => {
    assert.deepEqual(COLLECTORS['resolution-requests'].links, ['owner-reference', 'owner-name']);
    assert.equal(COLLECTORS['resolution-requests'].metadataOnly, true);
  });

  it('an active owner that has not stored what it resolved keeps its request', () => {
    const decision = decideRequest(request(PIPELINE_REQUEST, runningNotStored), [runningNotStored]);
    assert.deepEqual([decision.action, decision.reason, decision.message], ['keep', 'referenced-by-active-run', 'owned by active PipelineRun build-1 (running)']);
  });

  it('an active owner that stored it releases its pipeline’s request: resolution-stored', () => {
    const decision = decideRequest(request(PIPELINE_REQUEST, running), [running]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['delete', 'resolution-stored', 'its owner PipelineRun build-1 (running) stored what it resolved in status.pipelineSpec and reads it no more'],
    );
  });

  it('the same owner keeps its other requests (a task’s, a StepAction’s): it reads them every reconcile', () => {
    const decision = decideRequest(request('git-00000000000000000000000000000001', running), [running]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'referenced-by-active-run']);
  });

  it('a second active owner that still reads it keeps it', () => {
    const second = activeLrun('build-2');
    const target = request(PIPELINE_REQUEST, running, {
      ownerReferences: [
        { kind: 'PipelineRun', name: 'build-1', uid: 'uid-build-1', controller: true },
        { kind: 'PipelineRun', name: 'build-2', uid: 'uid-build-2', controller: false },
      ],
    });
    const decision = decideRequest(target, [running, second]);
    assert.deepEqual([decision.action, decision.reason, decision.message], ['keep', 'referenced-by-active-run', 'owned by active PipelineRun build-2 (running)']);
  });

  it('released but too young: the time rules come first', () => {
    const decision = decideRequest(request(PIPELINE_REQUEST, running, { createdAt: at(-HOUR / 2) }), [running]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'too-young']);
  });

  it('retain on the owner keeps it, released or not', () => {
    const retained = activeLrun('build-1', { releasedRequest: PIPELINE_REQUEST, retain: { labels: { 'tekton-resource-gc.io/retain': 'true' }, annotations: {} } });
    const decision = decideRequest(request(PIPELINE_REQUEST, retained), [retained]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'retained']);
  });

  it('a child TaskRun of an active PipelineRun that stored its taskSpec releases its task’s request', () => {
    const parent = activeLrun('build-1');
    const child = childLrun('build-1-fetch', parent, { state: 'running', releasedRequest: 'git-0123' });
    const decision = decideRequest(request('git-0123', child), [parent, child]);
    assert.deepEqual(
      [decision.action, decision.reason, decision.message],
      ['delete', 'resolution-stored', 'its owner TaskRun build-1-fetch (running) stored what it resolved in status.taskSpec and reads it no more'],
    );
  });

  it('a finished owner: runs-finished; a gone owner: owner-gone', () => {
    const finished = lrun('build-1', { finishedAt: at(-DAY) });
    assert.deepEqual(decideRequest(request(PIPELINE_REQUEST, finished), [finished]).reason, 'runs-finished');
    assert.deepEqual(decideRequest(request(PIPELINE_REQUEST, { kind: 'PipelineRun', name: 'gone', uid: 'uid-gone' }), []).reason, 'owner-gone');
  });

  it('an unreadable run in the namespace keeps every request: it may be an owner', () => {
    const unreadable = lrun('odd', { leftoverProblems: [{ field: 'metadata.uid', problem: 'expected a non-empty string, found nothing' }] });
    const decision = decideRequest(request(PIPELINE_REQUEST, running), [running, unreadable]);
    assert.deepEqual([decision.action, decision.reason], ['keep', 'unreadable-run']);
  });
});

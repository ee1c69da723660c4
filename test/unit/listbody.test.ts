import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { toRunRecord, unreadRunMember } from '../../src/core/runs.js';
import { ListScanner, MalformedListError, type OmitMember } from '../../src/kube/listbody.js';

/** Feeds `text` in the chunks cut at `cuts` (byte offsets); returns the items and the envelope. */
function scan(text: string, cuts: readonly number[] = [], omit?: OmitMember): { items: unknown[]; envelope: unknown } {
  const bytes = Buffer.from(text, 'utf8');
  const items: unknown[] = [];
  const scanner = new ListScanner((item) => items.push(item), omit);
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.write(bytes.subarray(from, cut));
    from = cut;
  }
  scanner.write(bytes.subarray(from));
  return { items, envelope: scanner.end() };
}

function everyCut(text: string): number[][] {
  const length = Buffer.byteLength(text);
  return Array.from({ length: length + 1 }, (_, cut) => [cut]);
}

const UNSTRUCTURED_PAGE = JSON.stringify({
  apiVersion: 'tekton.dev/v1beta1',
  items: [
    { metadata: { name: 'a', annotations: { note: 'quotes " and \\ and ] } [ { , "items":[1]' } }, spec: { resources: [{ resourceRef: { name: 'src-1' } }] } },
    { metadata: { name: 'ünï©ødé 🚀' }, status: { items: [{ x: [] }], conditions: [] } },
    { metadata: { name: 'c' }, spec: {} },
  ],
  kind: 'PipelineRunList',
  metadata: { continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ', resourceVersion: '123' },
});

test('an unstructured page (metadata last): every item, whole, and the envelope with items emptied, however the bytes are cut', () => {
  const expected = JSON.parse(UNSTRUCTURED_PAGE) as { items: unknown[] };
  for (const cuts of [[], ...everyCut(UNSTRUCTURED_PAGE)]) {
    const { items, envelope } = scan(UNSTRUCTURED_PAGE, cuts);
    assert.deepEqual(items, expected.items, `cut at ${cuts.join(',')}`);
    assert.deepEqual(envelope, { ...expected, items: [] });
  }
});

test('a typed list (metadata first, pretty-printed), an empty list, and a list without items', () => {
  const typed = JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [{ metadata: { name: 'ci' } }, { metadata: { name: 'prod' } }] }, null, 2);
  assert.deepEqual(scan(typed).items, [{ metadata: { name: 'ci' } }, { metadata: { name: 'prod' } }]);
  assert.deepEqual(scan(typed).envelope, { kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [] });
  assert.deepEqual(scan('{"items":[ ],"kind":"List"}'), { items: [], envelope: { items: [], kind: 'List' } });
  assert.deepEqual(scan('{"kind":"PartialObjectMetadataList","metadata":{}}'), { items: [], envelope: { kind: 'PartialObjectMetadataList', metadata: {} } });
  assert.deepEqual(scan('{"items":null}'), { items: [], envelope: { items: null } });
});

test('items of any JSON type are handed over as they are; only the top-level items array is cut', () => {
  assert.deepEqual(scan('{"items":[null, 1, "x", [2], {"items":[3]}]}').items, [null, 1, 'x', [2], { items: [3] }]);
  // A key named items deeper down is part of its object, and so is a second top-level one.
  assert.deepEqual(scan('{"metadata":{"items":[1,2]},"items":[{"a":1}]}'), { items: [{ a: 1 }], envelope: { metadata: { items: [1, 2] }, items: [] } });
  // A value that is not an array stays in the envelope for the caller to refuse.
  assert.deepEqual(scan('{"items":"nope"}'), { items: [], envelope: { items: 'nope' } });
});

test('an answer cut short or damaged is a MalformedListError, never a partial list taken for whole', () => {
  const cutShort = UNSTRUCTURED_PAGE.slice(0, UNSTRUCTURED_PAGE.indexOf('"kind"'));
  assert.throws(() => scan(cutShort), MalformedListError);
  assert.throws(() => scan('{"items":[{"a":1},,{"b":2}]}'), MalformedListError);
  assert.throws(() => scan('{"items":[{"a":1}]]}'), MalformedListError);
  assert.throws(() => scan('{"items":[{"a":tru}]}'), MalformedListError);
  assert.throws(() => scan('<html>503</html>'), MalformedListError);
});

test('property: any list, cut anywhere, gives back exactly JSON.parse of it', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const list = fc.record({
    apiVersion: fc.constant('tekton.dev/v1beta1'),
    items: fc.array(json, { maxLength: 6 }),
    kind: fc.constant('TaskRunList'),
    metadata: fc.record({ continue: fc.string(), resourceVersion: fc.string() }),
  });
  fc.assert(
    fc.property(list, fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (value, cutSeeds, pretty) => {
      const text = pretty ? JSON.stringify(value, null, 1) : JSON.stringify(value);
      const length = Buffer.byteLength(text);
      const expected = JSON.parse(text) as { items: unknown[] };
      const { items, envelope } = scan(text, cutSeeds.map((seed) => seed % (length + 1)));
      assert.deepEqual(items, expected.items);
      assert.deepEqual(envelope, { ...expected, items: [] });
    }),
    { numRuns: 300 },
  );
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key the scanner reads: written without an escape, and not too long. */
function readableKey(key: string): boolean {
  const written = JSON.stringify(key).slice(1, -1);
  return !written.includes('\\') && Buffer.byteLength(written) <= 64;
}

/** What `omit` should make of a parsed item: the object or array values it picks, one level below the item's members, are null. */
function omitted(item: unknown, omit: OmitMember): unknown {
  if (!isObject(item)) return item;
  return Object.fromEntries(
    Object.entries(item).map(([parent, member]) => [
      parent,
      isObject(member) && readableKey(parent)
        ? Object.fromEntries(Object.entries(member).map(([key, value]) => [key, typeof value === 'object' && value !== null && readableKey(key) && omit(parent, key) ? null : value]))
        : member,
    ]),
  );
}

const RUN_PAGE = JSON.stringify({
  apiVersion: 'tekton.dev/v1beta1',
  items: [
    {
      apiVersion: 'tekton.dev/v1beta1',
      kind: 'TaskRun',
      metadata: {
        name: 'build-1-fetch',
        namespace: 'ci',
        uid: 'u-1',
        resourceVersion: '7',
        creationTimestamp: '2026-11-01T00:00:00Z',
        ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build-1', uid: 'p-1', controller: true }],
        managedFields: [{ manager: 'controller', fieldsV1: { 'f:status': { '.': {}, 'f:steps': {} } } }],
      },
      spec: { resources: { inputs: [{ name: 'src', resourceRef: { name: 'src-1' } }] }, status: 'x' },
      status: {
        conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }],
        completionTime: '2026-11-01T00:10:00Z',
        podName: 'build-1-fetch-pod',
        steps: [{ name: 'clone', terminated: { exitCode: 0, message: '"]}{[,' } }],
        taskSpec: { steps: [{ name: 'clone', script: '#!/bin/sh\necho "}]" ,' }] },
      },
    },
    { kind: 'PipelineRun', metadata: { name: 'build-1', namespace: 'ci', uid: 'p-1', resourceVersion: '8', creationTimestamp: '2026-11-01T00:00:00Z' }, status: { conditions: [], pipelineSpec: { tasks: [] }, taskRuns: {} } },
  ],
  kind: 'TaskRunList',
  metadata: { continue: '', resourceVersion: '9' },
});

test('omit: the values picked are null, the rest is whole, however the bytes are cut', () => {
  const expected = JSON.parse(RUN_PAGE) as { items: unknown[] };
  for (const cuts of [[], ...everyCut(RUN_PAGE)]) {
    const { items, envelope } = scan(RUN_PAGE, cuts, unreadRunMember);
    assert.deepEqual(items, expected.items.map((item) => omitted(item, unreadRunMember)), `cut at ${cuts.join(',')}`);
    assert.deepEqual(envelope, { ...expected, items: [] });
  }
  const [first] = scan(RUN_PAGE, [], unreadRunMember).items as [{ metadata: Record<string, unknown>; status: Record<string, unknown>; spec: Record<string, unknown> }];
  assert.equal(first.metadata['managedFields'], null);
  assert.equal(first.status['taskSpec'], null);
  assert.equal(first.status['steps'], null);
  assert.equal(first.status['podName'], 'build-1-fetch-pod', 'a string is kept');
  assert.deepEqual(first.spec, { resources: { inputs: [{ name: 'src', resourceRef: { name: 'src-1' } }] }, status: 'x' });
});

test('a run read with the members no reader looks at left out gives the record it gives whole', () => {
  const whole = (JSON.parse(RUN_PAGE) as { items: unknown[] }).items;
  const { items } = scan(RUN_PAGE, [], unreadRunMember);
  for (const [index, item] of items.entries()) {
    for (const leftovers of [false, true]) {
      assert.deepEqual(toRunRecord(item, index === 0 ? 'TaskRun' : 'PipelineRun', { leftovers }), toRunRecord(whole[index], index === 0 ? 'TaskRun' : 'PipelineRun', { leftovers }));
    }
  }
});

test('omit: a malformed answer is still a MalformedListError, whatever is left out', () => {
  const all: OmitMember = () => true;
  assert.throws(() => scan(RUN_PAGE.slice(0, RUN_PAGE.indexOf('"taskSpec"') + 20), [], all), MalformedListError);
  assert.throws(() => scan('{"items":[{"status":{"a":[1,2}}]}', [], all), MalformedListError);
});

test('property: with omit, any list cut anywhere gives JSON.parse of it with the picked values null', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const key = fc.oneof(fc.constantFrom('status', 'metadata', 'spec'), fc.string(), fc.string({ unit: 'binary', maxLength: 70 }));
  const item = fc.dictionary(key, fc.oneof(fc.dictionary(key, json), json));
  const list = fc.record({
    apiVersion: fc.constant('tekton.dev/v1beta1'),
    items: fc.array(fc.oneof(item, json), { maxLength: 6 }),
    kind: fc.constant('TaskRunList'),
    metadata: fc.record({ continue: fc.string(), resourceVersion: fc.string() }),
  });
  const omit: OmitMember = (parent, key) => (parent.length + key.length) % 2 === 0;
  fc.assert(
    fc.property(list, fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (value, cutSeeds, pretty) => {
      const text = pretty ? JSON.stringify(value, null, 1) : JSON.stringify(value);
      const length = Buffer.byteLength(text);
      const expected = JSON.parse(text) as { items: unknown[] };
      const { items, envelope } = scan(text, cutSeeds.map((seed) => seed % (length + 1)), omit);
      assert.deepEqual(items, expected.items.map((one) => omitted(one, omit)));
      assert.deepEqual(envelope, { ...expected, items: [] });
    }),
    { numRuns: 300 },
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ListScanner, MalformedListError } from '../../src/kube/listbody.js';

/** Feeds `text` in the chunks cut at `cuts` (byte offsets); returns the items and the envelope. */
function scan(text: string, cuts: readonly number[] = []): { items: unknown[]; envelope: unknown } {
  const bytes = Buffer.from(text, 'utf8');
  const items: unknown[] = [];
  const scanner = new ListScanner((item) => items.push(item));
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

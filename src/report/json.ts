import { ALL_REASONS, CASCADE_KINDS, type CascadeKind } from '../core/types.js';
import { escapeControlsInJson } from '../text/escape.js';
import { toReportHolder, toReportReference } from './build.js';
import { RESULTS, type Report, type ReportItem, type ReportSummary } from './model.js';

/**
 * The JSON report (docs/reports.md; its schema: docs/gcreport.schema.json). Every object is rebuilt key by key so the output
 * keeps SPEC's key order whoever assembled the Report, and carries nothing SPEC lacks.
 */
export function renderJson(report: Report): string {
  return [...renderJsonChunks(report)].join('');
}

/** How many items one piece of the JSON report holds (about 30-60 KB of JSON). */
export const ITEMS_PER_PIECE = 100;

/** How JSON.stringify({ items }, null, 2) opens and closes: its items are then 4 spaces in, as in the report. */
const ITEMS_OPEN = '{\n  "items": [\n';
const ITEMS_CLOSE = '\n  ]\n}';

/**
 * renderJson's output in pieces of ITEMS_PER_PIECE items, byte for byte what
 * `JSON.stringify(document, null, 2)` writes: at 40,000 targets the report is 35 MB, and
 * as one string (with the copy of the document it is made from, and the buffer stdout
 * makes of it) it was the largest thing the collector ever held. One difference: DEL, C1
 * and bidirectional controls, which JSON.stringify writes as they are, are `\u` escapes
 * (see escape.ts), so the report is safe on a terminal and parses to the same values.
 */
export function* renderJsonChunks(report: Report): Generator<string> {
  for (const piece of unescapedJsonChunks(report)) yield escapeControlsInJson(piece);
}

function* unescapedJsonChunks(report: Report): Generator<string> {
  const head = {
    apiVersion: report.apiVersion,
    kind: report.kind,
    dryRun: report.dryRun,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    scope: {
      namespaces: report.scope.namespaces,
      excludedNamespaces: report.scope.excludedNamespaces,
      selector: report.scope.selector,
      ...(report.scope.namespaceSelector !== undefined && { namespaceSelector: report.scope.namespaceSelector }),
    },
    summary: orderedSummary(report.summary),
  };
  // `{ ... "summary": {...}` without its closing brace.
  const opening = `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "items": [`;
  if (report.items.length === 0) {
    yield `${opening}]`;
  } else {
    let pieces = 0;
    for (const items of inPieces(report.items, ITEMS_PER_PIECE)) {
      // One stringify per piece, nested as in the report so the indentation comes out right.
      const piece = JSON.stringify({ items: items.map(orderedItem) }, null, 2);
      yield `${pieces++ === 0 ? `${opening}\n` : ',\n'}${piece.slice(ITEMS_OPEN.length, -ITEMS_CLOSE.length)}`;
    }
    yield '\n  ]';
  }
  yield `${planField(report.plan)}${breakerField(report.breaker)}${unreadableField(report.unreadablePrunerConfigMaps)}${listField('warnings', report.warnings)}${listField('errors', report.errors)}\n}\n`;
}

/** The items `size` at a time: only one piece's items exist at once when they are made as read (build.ts). */
function* inPieces<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let piece: T[] = [];
  for (const item of items) {
    piece.push(item);
    if (piece.length === size) {
      yield piece;
      piece = [];
    }
  }
  if (piece.length > 0) yield piece;
}

/** `,\n  "plan": {...}` in a fixed key order; nothing without a plan. */
function planField(plan: Report['plan']): string {
  if (plan === undefined) return '';
  const ordered = { mode: plan.mode, file: plan.file, digest: plan.digest, entries: plan.entries };
  return objectField('plan', ordered);
}

/** `,\n  "breaker": {...}` in a fixed key order; nothing when the breaker did not stop the pass. */
function breakerField(breaker: Report['breaker']): string {
  if (breaker === undefined) return '';
  const ordered = { status: breaker.status, reason: breaker.reason, failures: breaker.failures, skipped: breaker.skipped };
  return objectField('breaker', ordered);
}

/** `,\n  "unreadablePrunerConfigMaps": [...]` in a fixed key order; nothing when every one was read. */
function unreadableField(maps: Report['unreadablePrunerConfigMaps']): string {
  if (maps === undefined || maps.length === 0) return '';
  return objectField('unreadablePrunerConfigMaps', maps.map((map) => ({ namespace: map.namespace, name: map.name, error: map.error })));
}

/** `,\n  "name": {...}` as the whole document's stringify would write it. */
function objectField(name: 'plan' | 'breaker' | 'unreadablePrunerConfigMaps', ordered: object): string {
  return `,\n  "${name}": ${JSON.stringify(ordered, null, 2).replaceAll('\n', '\n  ')}`;
}

/** `,\n  "name": [...]` as the whole document's stringify would write it; nothing when the list is absent or empty. */
function listField(name: 'warnings' | 'errors', values: readonly string[] | undefined): string {
  if (values === undefined || values.length === 0) return '';
  return `,\n  "${name}": ${JSON.stringify(values, null, 2).replaceAll('\n', '\n  ')}`;
}

function orderedSummary(summary: ReportSummary): ReportSummary {
  const { bytes, cascade } = summary;
  return {
    targets: summary.targets,
    runs: summary.runs,
    delete: summary.delete,
    keep: summary.keep,
    results: pickInOrder(RESULTS, summary.results),
    reasons: pickInOrder(ALL_REASONS, summary.reasons),
    byKind: Object.fromEntries(Object.entries(summary.byKind).map(([kind, counts]) => [kind, { targets: counts.targets, delete: counts.delete, keep: counts.keep }])),
    ...(bytes !== undefined && { bytes: { candidates: bytes.candidates, released: bytes.released, pending: bytes.pending } }),
    ...(cascade !== undefined && { cascade: { runs: cascade.runs, objects: cascadeObjects(cascade.objects), bytes: cascade.bytes, alsoCollected: cascade.alsoCollected } }),
  };
}

/** docs/gcreport.schema.json's key order; `bytes`, `bytesFrom` and `heldBy` only when the item has them. */
function orderedItem(item: ReportItem): ReportItem {
  return {
    namespace: item.namespace,
    kind: item.kind,
    collector: item.collector,
    name: item.name,
    uid: item.uid,
    createdAt: item.createdAt,
    ...(item.bytes !== undefined && { bytes: item.bytes, bytesFrom: item.bytesFrom }),
    action: item.action,
    reason: item.reason,
    message: item.message,
    references: item.references.map((reference) => toReportReference(reference, reference.via !== undefined)),
    ...(item.heldBy !== undefined && item.heldBy.length > 0 && { heldBy: item.heldBy.map(toReportHolder) }),
    ...(item.cascade !== undefined && { cascade: { objects: cascadeObjects(item.cascade.objects), ...(item.cascade.bytes !== undefined && { bytes: item.cascade.bytes }) } }),
    ...(item.goesWith !== undefined && { goesWith: item.goesWith }),
    result: item.result,
  };
}

/** A cascade's counts in CASCADE_KINDS order. */
function cascadeObjects(objects: Partial<Record<CascadeKind, number>>): Partial<Record<CascadeKind, number>> {
  return pickInOrder(CASCADE_KINDS, objects);
}

/** Nonzero counts only, in the fixed order: a zero would be noise in every report. */
function pickInOrder<K extends string>(order: readonly K[], counts: Partial<Record<K, number>>): Partial<Record<K, number>> {
  const picked: Partial<Record<K, number>> = {};
  for (const key of order) {
    const count = counts[key];
    if (count !== undefined && count > 0) picked[key] = count;
  }
  return picked;
}

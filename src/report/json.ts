import { REASONS } from '../core/types.js';
import { toReportReference } from './build.js';
import { CHUNK_CHARS, RESULTS, type Report, type ReportItem, type ReportSummary } from './model.js';

/**
 * The JSON report of SPEC.md section 4. Every object is rebuilt key by key so the output
 * keeps SPEC's key order whoever assembled the Report, and carries nothing SPEC lacks.
 */
export function renderJson(report: Report): string {
  return [...renderJsonChunks(report)].join('');
}

/**
 * renderJson's output in pieces of about CHUNK_CHARS, byte for byte what
 * `JSON.stringify(document, null, 2)` writes: at 40,000 targets the report is 35 MB, and
 * as one string (with the copy of the document it is made from, and the buffer stdout
 * makes of it) it was the largest thing the collector ever held.
 */
export function* renderJsonChunks(report: Report): Generator<string> {
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
    },
    summary: orderedSummary(report.summary),
  };
  // `{ ... "summary": {...}` without its closing brace; JSON.stringify puts no raw newline inside a string.
  let chunk = `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "items": [`;
  if (report.items.length === 0) {
    chunk += ']';
  } else {
    for (const [index, item] of report.items.entries()) {
      chunk += `${index === 0 ? '' : ','}\n    ${JSON.stringify(orderedItem(item), null, 2).replaceAll('\n', '\n    ')}`;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    chunk += '\n  ]';
  }
  if (report.errors !== undefined && report.errors.length > 0) {
    chunk += `,\n  "errors": ${JSON.stringify(report.errors, null, 2).replaceAll('\n', '\n  ')}`;
  }
  yield `${chunk}\n}\n`;
}

function orderedSummary(summary: ReportSummary): ReportSummary {
  return {
    targets: summary.targets,
    runs: summary.runs,
    delete: summary.delete,
    keep: summary.keep,
    results: pickInOrder(RESULTS, summary.results),
    reasons: pickInOrder(REASONS, summary.reasons),
  };
}

function orderedItem(item: ReportItem): ReportItem {
  return {
    namespace: item.namespace,
    name: item.name,
    uid: item.uid,
    createdAt: item.createdAt,
    action: item.action,
    reason: item.reason,
    message: item.message,
    references: item.references.map(toReportReference),
    result: item.result,
  };
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

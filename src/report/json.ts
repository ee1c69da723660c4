import { REASONS } from '../core/types.js';
import { toReportReference } from './build.js';
import { RESULTS, type Report, type ReportItem, type ReportSummary } from './model.js';

/**
 * The JSON report of SPEC.md section 4. Every object is rebuilt key by key so the output
 * keeps SPEC's key order whoever assembled the Report, and carries nothing SPEC lacks.
 */
export function renderJson(report: Report): string {
  const document = {
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
    items: report.items.map(orderedItem),
    ...(report.errors !== undefined && report.errors.length > 0 ? { errors: report.errors } : {}),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
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

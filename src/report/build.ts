import { REASONS, type Decision, type Reason } from '../core/types.js';
import type { Config } from '../config.js';
import { RESULTS, type Report, type ReportItem, type ReportPlan, type ReportReference, type ReportScope, type Result } from './model.js';

/** Everything one pass knows at its end; the report is a pure function of it. */
export interface PassRecord {
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
  scope: Pick<Config, 'namespaces' | 'excludeNamespaces' | 'selector'> & Partial<Pick<Config, 'namespaceSelector'>>;
  /** How many runs (PipelineRuns and TaskRuns) the pass listed. */
  runs: number;
  decisions: readonly Decision[];
  /**
   * What happened to each target the pass tried to delete, by target uid. A keep decision
   * without an entry is `kept`; a delete decision without one is `would-delete` in a dry
   * run and `aborted` in a live pass, since no delete was attempted for it.
   */
  results: ReadonlyMap<string, Result>;
  /** The plan written or applied, if any. */
  plan?: ReportPlan;
  /** Pass-level warnings; the report carries `warnings` only when there are some. */
  warnings?: readonly string[];
  /** Pass-level failures; the report carries `errors` only when there are some. */
  errors?: readonly string[];
}

export function buildReport(pass: PassRecord): Report {
  const items = pass.decisions.map((decision) => toItem(decision, resultOf(decision, pass))).sort(byNamespaceThenName);
  const report: Report = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'GCReport',
    dryRun: pass.dryRun,
    startedAt: pass.startedAt.toISOString(),
    finishedAt: pass.finishedAt.toISOString(),
    scope: toScope(pass.scope),
    summary: {
      targets: items.length,
      runs: pass.runs,
      delete: countWhere(items, (item) => item.action === 'delete'),
      keep: countWhere(items, (item) => item.action === 'keep'),
      results: countResults(items),
      reasons: countReasons(items),
    },
    items,
  };
  if (pass.plan !== undefined) report.plan = { ...pass.plan };
  if (pass.warnings !== undefined && pass.warnings.length > 0) report.warnings = [...pass.warnings];
  if (pass.errors !== undefined && pass.errors.length > 0) report.errors = [...pass.errors];
  return report;
}

/** Counts of the results that occur, keys in RESULTS order (the order JSON shows them in). */
export function countResults(items: readonly Pick<ReportItem, 'result'>[]): Partial<Record<Result, number>> {
  return countInOrder(RESULTS, items, (item) => item.result);
}

/** Counts of the reasons that occur, keys in REASONS order (rule order). */
export function countReasons(items: readonly Pick<ReportItem, 'reason'>[]): Partial<Record<Reason, number>> {
  return countInOrder(REASONS, items, (item) => item.reason);
}

/** One pass over the items, no array made: a report may hold 40,000. */
function countInOrder<K extends string, T>(order: readonly K[], items: readonly T[], keyOf: (item: T) => K): Partial<Record<K, number>> {
  const tally = new Map<K, number>();
  for (const item of items) tally.set(keyOf(item), (tally.get(keyOf(item)) ?? 0) + 1);
  const counts: Partial<Record<K, number>> = {};
  for (const key of order) {
    const count = tally.get(key);
    if (count !== undefined) counts[key] = count;
  }
  return counts;
}

function countWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  let count = 0;
  for (const item of items) if (test(item)) count++;
  return count;
}

function resultOf(decision: Decision, pass: PassRecord): Result {
  const recorded = pass.results.get(decision.target.uid);
  if (recorded !== undefined) return recorded;
  if (decision.action === 'keep') return 'kept';
  return pass.dryRun ? 'would-delete' : 'aborted';
}

function toItem(decision: Decision, result: Result): ReportItem {
  const { target } = decision;
  return {
    namespace: target.namespace,
    name: target.name,
    uid: target.uid,
    createdAt: target.createdAt,
    action: decision.action,
    reason: decision.reason,
    message: decision.message,
    references: decision.references.map(toReportReference),
    result,
  };
}

/** A reference with only the fields the report shows, in SPEC's key order. */
export function toReportReference(reference: ReportReference): ReportReference {
  const { kind, name, state, finishedAt } = reference;
  return finishedAt === undefined ? { kind, name, state } : { kind, name, state, finishedAt };
}

function toScope(scope: PassRecord['scope']): ReportScope {
  return {
    namespaces: scope.namespaces.length === 0 ? ['*'] : [...scope.namespaces],
    excludedNamespaces: [...scope.excludeNamespaces],
    selector: scope.selector,
    ...(scope.namespaceSelector !== undefined && scope.namespaceSelector !== '' && { namespaceSelector: scope.namespaceSelector }),
  };
}

/** Plain code-unit order, not locale order: the same report on every machine. */
function byNamespaceThenName(a: ReportItem, b: ReportItem): number {
  return compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

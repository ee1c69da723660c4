import { COLLECTORS, DEFAULT_COLLECTORS, collectorOf, type CollectorName } from '../core/collectors.js';
import { ALL_REASONS, CASCADE_KINDS, type CascadeKind, type Decision, type Reason, type ReferenceView, type TargetKindName } from '../core/types.js';
import {
  RESULTS,
  type ByteCounts,
  type CascadeSummary,
  type KindCounts,
  type Report,
  type ReportItem,
  type ReportItems,
  type ReportBreaker,
  type ReportPlan,
  type ReportReference,
  type ReportScope,
  type ReportSummary,
  type ReportUnreadableConfigMap,
  type Result,
} from './model.js';

/** Everything one pass knows at its end; the report is a pure function of it. */
export interface PassRecord {
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
  /**
   * What the pass looked at: namespaces, selectors, and the collectors that were on
   * (`collect`; absent: the default, PipelineResources alone).
   */
  scope: { namespaces: readonly string[]; excludeNamespaces: readonly string[]; selector: string; namespaceSelector?: string | undefined; collect?: readonly CollectorName[] };
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
  /** Why the breaker stopped the delete phase, if it did. */
  breaker?: ReportBreaker;
  /** --pruner-config's namespace ConfigMaps that apply and could not be read; carried only when there are some. */
  unreadablePrunerConfigMaps?: readonly ReportUnreadableConfigMap[];
  /** Pass-level warnings; the report carries `warnings` only when there are some. */
  warnings?: readonly string[];
  /** Pass-level failures; the report carries `errors` only when there are some. */
  errors?: readonly string[];
}

/** The kind whose references carry no `via` in the JSON report: its runs name it in their spec. */
const PIPELINERESOURCE_KIND: TargetKindName = COLLECTORS.pipelineresources.kind;

/** The collector whose targets have a size: the report adds up their bytes (summary.bytes). */
const SIZED_COLLECTOR: CollectorName = 'workspace-pvcs';
export const SIZED_KIND: TargetKindName = COLLECTORS[SIZED_COLLECTOR].kind;

export function buildReport(pass: PassRecord): Report {
  const collect = pass.scope.collect ?? DEFAULT_COLLECTORS;
  const items = new DecisionItems(pass);
  // What the counts read of each item, without making the item.
  const facts: Iterable<ItemFacts> = { [Symbol.iterator]: () => items.facts() };
  const summary: ReportSummary = {
    targets: items.length,
    runs: pass.runs,
    delete: countWhere(facts, (item) => item.action === 'delete'),
    keep: countWhere(facts, (item) => item.action === 'keep'),
    results: countResults(facts),
    reasons: countReasons(facts),
    byKind: countByKind(facts, collect),
  };
  if (collect.includes(SIZED_COLLECTOR)) summary.bytes = countBytes(facts);
  if (collect.some((name) => COLLECTORS[name].decides === 'history')) summary.cascade = countCascade(facts);
  const report: Report = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'GCReport',
    dryRun: pass.dryRun,
    startedAt: pass.startedAt.toISOString(),
    finishedAt: pass.finishedAt.toISOString(),
    scope: toScope(pass.scope),
    summary,
    items,
  };
  if (pass.plan !== undefined) report.plan = { ...pass.plan };
  if (pass.breaker !== undefined) report.breaker = { ...pass.breaker };
  if (pass.unreadablePrunerConfigMaps !== undefined && pass.unreadablePrunerConfigMaps.length > 0) {
    report.unreadablePrunerConfigMaps = pass.unreadablePrunerConfigMaps.map((map) => ({ ...map }));
  }
  if (pass.warnings !== undefined && pass.warnings.length > 0) report.warnings = [...pass.warnings];
  if (pass.errors !== undefined && pass.errors.length > 0) report.errors = [...pass.errors];
  return report;
}

type ItemFacts = Pick<ReportItem, 'kind' | 'action' | 'reason' | 'result' | 'bytes' | 'cascade' | 'goesWith'>;

/**
 * The items of a pass's report, each made from its decision when a renderer reads it. Built
 * all at once they were, at 40,000 targets, 15 MiB held beside the decisions they copy,
 * at the moment the pass held the most (bench/RESULTS.md, issue 17); made one at a time,
 * each is garbage as soon as its piece of the report is written.
 */
class DecisionItems implements ReportItems {
  private readonly sorted: readonly Decision[];
  private readonly results: ReadonlyMap<string, Result>;
  private readonly dryRun: boolean;

  constructor(pass: Pick<PassRecord, 'decisions' | 'results' | 'dryRun'>) {
    this.sorted = [...pass.decisions].sort(byNamespaceKindName);
    this.results = pass.results;
    this.dryRun = pass.dryRun;
  }

  get length(): number {
    return this.sorted.length;
  }

  *[Symbol.iterator](): Generator<ReportItem> {
    for (const decision of this.sorted) yield toItem(decision, this.resultOf(decision));
  }

  *facts(): Generator<ItemFacts> {
    for (const decision of this.sorted) {
      const { target, action, reason } = decision;
      const bytes = target.leftover?.bytes?.value;
      yield {
        kind: target.kind,
        action,
        reason,
        result: this.resultOf(decision),
        ...(bytes !== undefined && { bytes }),
        ...(decision.cascade !== undefined && { cascade: decision.cascade }),
        ...(decision.goesWith !== undefined && { goesWith: decision.goesWith }),
      };
    }
  }

  private resultOf(decision: Decision): Result {
    const recorded = this.results.get(decision.target.uid);
    if (recorded !== undefined) return recorded;
    if (decision.action === 'keep') return 'kept';
    return this.dryRun ? 'would-delete' : 'aborted';
  }
}

/** What goes with the runs decided `delete` (docs/spec.md, "What goes with a run"): kinds in CASCADE_KINDS order. */
export function countCascade(items: Iterable<Pick<ReportItem, 'kind' | 'action' | 'cascade' | 'goesWith'>>): CascadeSummary {
  const summary: CascadeSummary = { runs: 0, objects: {}, bytes: 0, alsoCollected: 0 };
  const tally = new Map<CascadeKind, number>();
  for (const item of items) {
    if (item.goesWith !== undefined) summary.alsoCollected += 1;
    // Every run the pass sends a DELETE carries its cascade; one already being deleted is sent nothing, and none goes with it by this pass's hand (core/cascade.ts).
    if (item.action !== 'delete' || item.cascade === undefined || (item.kind !== 'PipelineRun' && item.kind !== 'TaskRun')) continue;
    summary.runs += 1;
    summary.bytes += item.cascade.bytes ?? 0;
    for (const [kind, count] of Object.entries(item.cascade.objects) as [CascadeKind, number][]) tally.set(kind, (tally.get(kind) ?? 0) + count);
  }
  for (const kind of CASCADE_KINDS) {
    const count = tally.get(kind);
    if (count !== undefined) summary.objects[kind] = count;
  }
  return summary;
}

/** Counts of the results that occur, keys in RESULTS order (the order JSON shows them in). */
export function countResults(items: Iterable<Pick<ReportItem, 'result'>>): Partial<Record<Result, number>> {
  return countInOrder(RESULTS, items, (item) => item.result);
}

/** Counts of the reasons that occur, keys in ALL_REASONS order (each table's rule order). */
export function countReasons(items: Iterable<Pick<ReportItem, 'reason'>>): Partial<Record<Reason, number>> {
  return countInOrder(ALL_REASONS, items, (item) => item.reason);
}

/**
 * Targets, deletes and keeps of each kind: every kind whose collector was on, zeros
 * included (a reader sees what was collected), and any other kind an item has; in kind
 * order, as items sort.
 */
export function countByKind(items: Iterable<Pick<ReportItem, 'kind' | 'action'>>, collect: readonly CollectorName[]): Partial<Record<TargetKindName, KindCounts>> {
  const tally = new Map<TargetKindName, KindCounts>(collect.map((name) => [COLLECTORS[name].kind, { targets: 0, delete: 0, keep: 0 }]));
  for (const item of items) {
    let counts = tally.get(item.kind);
    if (counts === undefined) tally.set(item.kind, (counts = { targets: 0, delete: 0, keep: 0 }));
    counts.targets++;
    counts[item.action]++;
  }
  const byKind: Partial<Record<TargetKindName, KindCounts>> = {};
  for (const kind of [...tally.keys()].sort(compareStrings)) byKind[kind] = tally.get(kind);
  return byKind;
}

/** docs/reports.md, "Leftovers in the report": a claim of unknown size adds nothing. */
export function countBytes(items: Iterable<Pick<ReportItem, 'bytes' | 'action' | 'result'>>): ByteCounts {
  const bytes: ByteCounts = { candidates: 0, released: 0, pending: 0 };
  for (const item of items) {
    if (item.bytes === undefined || item.action !== 'delete') continue;
    bytes.candidates += item.bytes;
    if (item.result === 'deleted') bytes.released += item.bytes;
    if (item.result === 'terminating') bytes.pending += item.bytes;
  }
  return bytes;
}

/** One pass over the items, no array made: a report may hold 40,000. */
function countInOrder<K extends string, T>(order: readonly K[], items: Iterable<T>, keyOf: (item: T) => K): Partial<Record<K, number>> {
  const tally = new Map<K, number>();
  for (const item of items) tally.set(keyOf(item), (tally.get(keyOf(item)) ?? 0) + 1);
  const counts: Partial<Record<K, number>> = {};
  for (const key of order) {
    const count = tally.get(key);
    if (count !== undefined) counts[key] = count;
  }
  return counts;
}

function countWhere<T>(items: Iterable<T>, test: (item: T) => boolean): number {
  let count = 0;
  for (const item of items) if (test(item)) count++;
  return count;
}

function toItem(decision: Decision, result: Result): ReportItem {
  const { target } = decision;
  const showVia = target.kind !== PIPELINERESOURCE_KIND;
  const size = target.leftover?.bytes;
  return {
    namespace: target.namespace,
    kind: target.kind,
    collector: collectorOf(target.kind).name,
    name: target.name,
    uid: target.uid,
    createdAt: target.createdAt,
    ...(size !== undefined && { bytes: size.value, bytesFrom: size.from }),
    action: decision.action,
    reason: decision.reason,
    message: decision.message,
    references: decision.references.map((reference) => toReportReference(reference, showVia)),
    ...(decision.heldBy !== undefined && decision.heldBy.length > 0 && { heldBy: decision.heldBy.map(toReportHolder) }),
    ...(decision.cascade !== undefined && { cascade: { objects: { ...decision.cascade.objects }, ...(decision.cascade.bytes !== undefined && { bytes: decision.cascade.bytes }) } }),
    ...(decision.goesWith !== undefined && { goesWith: decision.goesWith }),
    result,
  };
}

/**
 * A reference with only the fields the report shows, in the schema's key order: `via` only
 * when asked for (leftovers), `finishedAt` only once known.
 */
export function toReportReference(reference: ReportReference | ReferenceView, withVia: boolean): ReportReference {
  const { kind, name, state, finishedAt, via } = reference;
  return {
    kind,
    name,
    state,
    ...(finishedAt !== undefined && { finishedAt }),
    ...(withVia && via !== undefined && { via }),
  };
}

/** A holder in the schema's key order, `phase` only when the Pod has one. */
export function toReportHolder(holder: NonNullable<ReportItem['heldBy']>[number]): NonNullable<ReportItem['heldBy']>[number] {
  const { kind, name, phase } = holder;
  return phase === undefined ? { kind, name } : { kind, name, phase };
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
function byNamespaceKindName({ target: a }: Decision, { target: b }: Decision): number {
  return compareStrings(a.namespace, b.namespace) || compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name);
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

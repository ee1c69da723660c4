/**
 * The decision: each target's collector (collectors.ts) lists the rows of its table, small
 * predicates over the facts gathered here (rules.ts), and the first verdict wins (docs/spec.md,
 * "The decision" and "Leftovers"). `now` is passed in; nothing here reads the clock.
 */
import { COLLECTOR_NAMES, COLLECTORS, collectorOf, type Collector } from './collectors.js';
import { actionFor, retentionFacts, type DecisionFacts, type OwnerRetain, type TargetFacts, type UnreadableRun, type Verdict } from './facts.js';

export { actionFor } from './facts.js';
import { buildGraph, compareText, type ReferenceGraph } from './graph.js';
import { decideRuns, type RunDecisionWithFacts } from './history.js';
import { runSelection } from './labelselector.js';
import { withCascade, type DecisionOf } from './cascade.js';
import { parseTimestampMs, retainValues, retentionKeys } from './retention.js';
import { holdersShown, unreferenced } from './rules.js';
import { EMPTY_LIST, type ClusterView, type Decision, type Policy, type ReferenceView, type TargetKindName, type TargetRecord } from './types.js';

export type { DecisionFacts, EffectiveRetainFor, RuleEnd, TimeBound } from './facts.js';

/** A decision with the facts it stands on; the report takes only the decision. */
export interface DecisionWithFacts {
  decision: Decision;
  facts: DecisionFacts;
}

/**
 * Each target's decision, sorted by namespace, kind, then name. The facts of each are dropped
 * as soon as it is decided: a pass decides tens of thousands.
 */
export function decide(view: ClusterView, policy: Policy, now: Date): Decision[] {
  return decideView(view, policy, now, DECISIONS).sort(byTarget);
}

/** A decision with its facts: a run's are history.ts's, any other target's decide()'s. */
export type DecidedWithFacts = DecisionWithFacts | RunDecisionWithFacts;

/**
 * decide(), each decision with the facts it stands on (for `explain`): the same decisions, in
 * the same order, by the same path (what goes with the runs included).
 */
export function decideWithFacts(view: ClusterView, policy: Policy, now: Date): DecidedWithFacts[] {
  return decideView(view, policy, now, WITH_FACTS).sort((a, b) => byTarget(a.decision, b.decision));
}

/** Whether the decision is a run's, whose facts are history.ts's. */
export function isRunDecision(decided: DecidedWithFacts): decided is RunDecisionWithFacts {
  return collectorOf(decided.decision.target.kind).decides === 'history';
}

/** What decideView keeps of each decision, and how withCascade reads and amends it. */
interface Keeping<T> extends DecisionOf<T> {
  keep: (decided: DecidedWithFacts) => T;
}

const DECISIONS: Keeping<Decision> = { keep: (decided) => decided.decision, decision: (decision) => decision, amended: (_, decision) => decision };

const WITH_FACTS: Keeping<DecidedWithFacts> = {
  keep: (decided) => decided,
  decision: (decided) => decided.decision,
  amended: (decided, decision) => ({ ...decided, decision }),
};

/** The one path of a pass's decisions, for decide() and decideWithFacts(): every target's, then what goes with the runs. */
function decideView<T>(view: ClusterView, policy: Policy, now: Date, keeping: Keeping<T>): T[] {
  const decided = decideEach(view, policy, now, keeping.keep);
  // What goes with the runs it deletes, and the runs that must stay for it (cascade.ts): only when runs are targets.
  return view.children === undefined ? decided : withCascade(decided, view, keeping);
}

/**
 * Decides collector by collector in delete order (COLLECTOR_NAMES), so that a StatefulSet this
 * pass deletes is known when the claims it names are decided: it no longer holds them (rule 8;
 * its Pod still may, rule 7). The delete phase deletes in the same order and re-checks each
 * claim against the StatefulSets listed again, so a StatefulSet that survives still holds it.
 */
function decideEach<T>(view: ClusterView, policy: Policy, now: Date, keep: (decided: DecisionWithFacts | RunDecisionWithFacts) => T): T[] {
  const holders = { ...(view.pods !== undefined && { pods: view.pods }), ...(view.statefulSets !== undefined && { statefulSets: view.statefulSets }) };
  const ownerNamed = view.targets.filter((target) => collectorOf(target.kind).links.includes('owner-name'));
  const pass: Pass = { view, graph: buildGraph(view.runs, holders, ownerNamed), policy, nowMs: now.getTime(), released: new Set() };
  const byKind = new Map<TargetKindName, TargetRecord[]>();
  for (const target of view.targets) {
    const list = byKind.get(target.kind);
    if (list === undefined) byKind.set(target.kind, [target]);
    else list.push(target);
  }
  // Only a StatefulSet can be released, and only when some StatefulSet is listed as a holder.
  const tracksReleases = (view.statefulSets?.length ?? 0) > 0;
  const decided: T[] = [];
  // --selector: the API server applied it to every other listing; the runs were listed whole, for their groups' history.
  const selects = runSelection(policy.runs?.selector);
  const selected = selects === undefined ? undefined : (run: TargetRecord): boolean => selects(run.labels);
  for (const name of COLLECTOR_NAMES) {
    const collector = COLLECTORS[name];
    if (collector.decides === 'history') {
      // A run's decision reads the other runs of its group: all of its kind at once (history.ts), only the selected ones decided.
      for (const one of decideRuns(byKind.get(collector.kind) ?? [], view.namespaces, policy, pass.nowMs, keep, selected)) decided.push(one);
      continue;
    }
    for (const target of byKind.get(collector.kind) ?? []) {
      const one = decideTarget(gatherFacts(target, collector, pass), collector);
      if (tracksReleases && one.decision.action === 'delete') pass.released.add(target.uid);
      decided.push(keep(one));
    }
  }
  return decided;
}

function byTarget(a: Decision, b: Decision): number {
  return compareText(a.target.namespace, b.target.namespace) || compareText(a.target.kind, b.target.kind) || compareText(a.target.name, b.target.name);
}

interface Pass {
  view: ClusterView;
  graph: ReferenceGraph;
  policy: Policy;
  nowMs: number;
  /** uids of the targets decided `delete` so far in this pass (collector order). */
  released: Set<string>;
}

const NO_HOLDERS: TargetFacts['holders'] = { activePods: [], statefulSets: [], released: [] };

function gatherFacts(target: TargetRecord, collector: Collector, pass: Pass): TargetFacts {
  const { policy } = pass;
  const links = gatherLinks(target, collector, pass.graph, retentionKeys(policy.labelPrefix).retain);
  const retention = retentionFacts(target, pass.view.namespaces.get(target.namespace), policy, newestFinish(links.references));
  const holders = collector.reads.pods || collector.reads.statefulSets ? pass.graph.holders(target, collector.heldBy, pass.released) : NO_HOLDERS;
  const releasedWarnings = holders.released.map((sts) => `StatefulSet ${sts.name} names it and is deleted before it in this pass`);
  // The literal's own fields first, then the spread: a spread first makes a hidden class per target (types.ts amendDecision).
  return {
    target,
    nowMs: pass.nowMs,
    ...retention,
    ...(links.ownerRetain !== undefined && { ownerRetain: links.ownerRetain }),
    references: links.references,
    unreadableRuns: unreadableRuns(target.namespace, collector, pass.graph),
    userClaims: links.userClaims,
    releasedBy: links.releasedBy,
    holders,
    warnings: [...retention.warnings, ...releasedWarnings],
  };
}

/**
 * A target's links as its collector reads them: the runs that link it through the collector's
 * sources. For a collector whose targets have an owner run (`ownerRun`), the gone owners too,
 * `retain` on the owners that exist (rule 1) and the runs that claim it (rule 5); a
 * PipelineResource's gone owner leaves no trace.
 */
function gatherLinks(
  target: TargetRecord,
  collector: Collector,
  graph: ReferenceGraph,
  retainKey: string,
): { references: readonly ReferenceView[]; userClaims: readonly ReferenceView[]; ownerRetain?: readonly OwnerRetain[]; releasedBy: readonly ReferenceView[] } {
  const links = graph.links(target, collector.links);
  if (!collector.ownerRun) return { references: links.linked, userClaims: links.userClaims, releasedBy: EMPTY_LIST };
  // An owner, or a run of an owner's name (a rerun), that stored what it resolved through this request (resolution.ts) reads it no more.
  const releasing = collector.releasedByStoredSpec ? [...links.ownerRuns, ...links.ownerNameRuns].filter((run) => run.releasedRequest === target.name) : [];
  return {
    references: [...links.linked, ...links.goneOwners].sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name)),
    userClaims: links.userClaims,
    ownerRetain: links.ownerRuns.flatMap((run) => retainValues(run.retain ?? NO_LABELS, retainKey).map((value) => ({ ...value, run }))),
    releasedBy: links.linked.filter((ref) => releasing.some((run) => run.kind === ref.kind && run.name === ref.name)),
  };
}

/** The runs that may link targets of this collector in `namespace` but cannot be read where they would, with what could not be read. */
function unreadableRuns(namespace: string, collector: Collector, graph: ReferenceGraph): readonly UnreadableRun[] {
  if (collector.runProblems === 'references') return graph.unreadableRuns(namespace).map((run) => ({ run, problems: run.problems }));
  return graph.unreadableLinkRuns(namespace).map((run) => ({ run, problems: run.leftoverProblems }));
}

const NO_LABELS = { labels: {}, annotations: {} };

function decideTarget(facts: TargetFacts, collector: Collector): DecisionWithFacts {
  const verdict = firstVerdict(facts, collector);
  const heldBy = holdersShown(facts);
  const decision: Decision = {
    target: facts.target,
    action: actionFor(verdict.reason),
    reason: verdict.reason,
    message: verdict.message,
    references: facts.references,
    // Most decisions have none: one shared empty list instead of one each.
    warnings: facts.warnings.length === 0 ? EMPTY_LIST : facts.warnings,
    ...(heldBy.length > 0 && { heldBy }),
  };
  return { decision, facts };
}

function firstVerdict(facts: TargetFacts, collector: Collector): Verdict {
  for (const rule of collector.rules) {
    const verdict = rule(facts);
    if (verdict !== null) return verdict;
  }
  return unreferenced();
}

function newestFinish(references: readonly ReferenceView[]): number | undefined {
  let newest: number | undefined;
  for (const ref of references) {
    const finished = ref.finishedAt === undefined ? undefined : parseTimestampMs(ref.finishedAt);
    if (finished !== undefined && (newest === undefined || finished > newest)) newest = finished;
  }
  return newest;
}

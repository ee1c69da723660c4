/**
 * The ordered rules of docs/spec.md ("The decision"): each rule is a small predicate that returns a
 * verdict or null, and the first verdict wins. `now` is passed in; nothing here reads the clock.
 */
import { buildGraph, compareText, type ReferenceGraph } from './graph.js';
import {
  formatDuration,
  formatInstant,
  formatRetentionDuration,
  parseTimestampMs,
  readNamespaceRetain,
  readTargetRetention,
  retainValues,
  retentionKeys,
  type RetentionValue,
} from './retention.js';
import { isActive } from './runs.js';
import type { Action, ClusterView, Decision, Policy, Reason, ReferenceView, RetentionDuration, RunRecord, TargetRecord } from './types.js';

/** The rules that time alone lifts (6-8), each named by the setting it reads. */
export type TimeBound = 'min-age' | 'retain-until' | 'retain-for';

/**
 * When a rule that time lifts stops keeping the target: an instant (epoch ms), `never`
 * (`retain-for: forever`), or `unknown` (counted from a creation time that cannot be read).
 */
export type RuleEnd = number | 'never' | 'unknown';

/** Rule 8's duration and where it is set: the target's own label or annotation, else the policy (`--retain-for`). */
export type EffectiveRetainFor = { duration: RetentionDuration; setBy: 'target'; own: RetentionValue<RetentionDuration> } | { duration: RetentionDuration; setBy: 'policy' };

/**
 * The facts a decision stands on, gathered once and read by the rules: `explain` renders
 * them and `collectableAt` reads them, so neither can reach a different answer.
 */
export interface DecisionFacts {
  /** metadata.creationTimestamp in epoch ms; undefined when it cannot be read. */
  createdMs: number | undefined;
  /** The newest completionTime among the referencing runs, in epoch ms. */
  lastFinishMs: number | undefined;
  /** Rule 1: `retain` as the label and the annotation write it, the label first; either one that retains is enough. */
  retain: readonly RetentionValue<boolean>[];
  /** Rule 2: the namespace's `retain` label, when the namespace was read and has one. */
  namespaceRetain: RetentionValue<boolean> | undefined;
  /** Rule 3: one message per retention value that cannot be parsed. */
  invalid: readonly string[];
  /** Rule 6: the policy's minimum age. */
  minAgeMs: number;
  /** Rule 7: the target's `retain-until`, when set and valid. */
  retainUntil: RetentionValue<number> | undefined;
  /** Rule 8: the target's own `retain-for`, else the policy's; undefined when neither is set. */
  retainFor: EffectiveRetainFor | undefined;
  /** When each rule that time lifts stops keeping the target; a rule that does not apply is absent. Rules 6-8 compare now with these. */
  ends: { readonly 'min-age': RuleEnd; readonly 'retain-until'?: number; readonly 'retain-for'?: RuleEnd };
}

/** A decision with the facts it stands on; the report takes only the decision. */
export interface DecisionWithFacts {
  decision: Decision;
  facts: DecisionFacts;
}

/** Everything the rules look at for one target, gathered once. */
interface TargetFacts extends DecisionFacts {
  target: TargetRecord;
  nowMs: number;
  references: readonly ReferenceView[];
  unreadableRuns: readonly RunRecord[];
  warnings: readonly string[];
}

interface Verdict {
  reason: Reason;
  message: string;
}

type Rule = (facts: TargetFacts) => Verdict | null;

/** Each target's decision, sorted by namespace then name. The facts of each are dropped as soon as it is decided: a pass decides tens of thousands. */
export function decide(view: ClusterView, policy: Policy, now: Date): Decision[] {
  const pass: Pass = { view, graph: buildGraph(view.runs), policy, nowMs: now.getTime() };
  return view.targets.map((target) => decideTarget(gatherFacts(target, pass)).decision).sort(byTarget);
}

/** decide(), each decision with the facts it stands on (for `explain`). */
export function decideWithFacts(view: ClusterView, policy: Policy, now: Date): DecisionWithFacts[] {
  const pass: Pass = { view, graph: buildGraph(view.runs), policy, nowMs: now.getTime() };
  return view.targets.map((target) => decideTarget(gatherFacts(target, pass))).sort((a, b) => byTarget(a.decision, b.decision));
}

function byTarget(a: Decision, b: Decision): number {
  return compareText(a.target.namespace, b.target.namespace) || compareText(a.target.name, b.target.name);
}

interface Pass {
  view: ClusterView;
  graph: ReferenceGraph;
  policy: Policy;
  nowMs: number;
}

function gatherFacts(target: TargetRecord, pass: Pass): TargetFacts {
  const { policy } = pass;
  const keys = retentionKeys(policy.labelPrefix);
  const namespace = pass.view.namespaces.get(target.namespace);
  const namespaceWarnings: string[] = [];
  const namespaceRetain = namespace && readNamespaceRetain(namespace, keys.retain, namespaceWarnings);
  const retention = readTargetRetention(target, policy.labelPrefix);
  const references = pass.graph.referencingRuns(target);
  const createdMs = parseTimestampMs(target.createdAt);
  const lastFinishMs = newestFinish(references);
  const retainFor: EffectiveRetainFor | undefined =
    retention.retainFor !== undefined
      ? { duration: retention.retainFor.value, setBy: 'target', own: retention.retainFor }
      : policy.retainFor && { duration: policy.retainFor, setBy: 'policy' };
  return {
    target,
    nowMs: pass.nowMs,
    createdMs,
    lastFinishMs,
    retain: retainValues(target, keys.retain),
    namespaceRetain,
    invalid: retention.invalid,
    minAgeMs: policy.minAgeMs,
    retainUntil: retention.retainUntil,
    retainFor,
    ends: {
      'min-age': createdMs === undefined ? 'unknown' : createdMs + policy.minAgeMs,
      ...(retention.retainUntil !== undefined && { 'retain-until': retention.retainUntil.value }),
      ...(retainFor !== undefined && { 'retain-for': retainForEnd(retainFor.duration, lastFinishMs ?? createdMs) }),
    },
    references,
    unreadableRuns: pass.graph.unreadableRuns(target.namespace),
    warnings: [...retention.warnings, ...namespaceWarnings.map((w) => `namespace ${target.namespace}: ${w}`)],
  };
}

/** Rule 8 counts from the newest completion of a referencing run, else from the creation. */
function retainForEnd(duration: RetentionDuration, sinceMs: number | undefined): RuleEnd {
  if (duration.kind === 'forever') return 'never';
  return sinceMs === undefined ? 'unknown' : sinceMs + duration.ms;
}

function decideTarget(facts: TargetFacts): DecisionWithFacts {
  const verdict = firstVerdict(facts);
  const decision: Decision = {
    target: facts.target,
    action: actionFor(verdict.reason),
    reason: verdict.reason,
    message: verdict.message,
    references: facts.references,
    warnings: facts.warnings,
  };
  return { decision, facts };
}

/** Whether a rule that time lifts still keeps the target at `nowMs`: until its end, exclusive; a rule that does not apply keeps nothing. */
function stillKeeps(end: RuleEnd | undefined, nowMs: number): boolean {
  if (end === undefined) return false;
  return typeof end === 'number' ? nowMs < end : true;
}

export function actionFor(reason: Reason): Action {
  switch (reason) {
    case 'retained':
    case 'namespace-retained':
    case 'retention-invalid':
    case 'unreadable-run':
    case 'referenced-by-active-run':
    case 'too-young':
    case 'retain-until':
    case 'retain-for':
      return 'keep';
    case 'runs-finished':
    case 'unreferenced':
      return 'delete';
  }
}

/** Rules 1-9 in order; rule 10 is what is left. */
const RULES: readonly Rule[] = [
  retained,
  namespaceRetained,
  retentionInvalid,
  unreadableRun,
  referencedByActiveRun,
  tooYoung,
  retainUntil,
  retainFor,
  runsFinished,
];

function firstVerdict(facts: TargetFacts): Verdict {
  for (const rule of RULES) {
    const verdict = rule(facts);
    if (verdict !== null) return verdict;
  }
  return unreferenced();
}

/** 1: the label or the annotation `<prefix>/retain` on the target is anything but `false`; either one is enough. */
function retained({ retain: values }: TargetFacts): Verdict | null {
  const retain = values.find((value) => value.value);
  if (retain === undefined) return null;
  return { reason: 'retained', message: `retained by ${retain.source} ${retain.key}="${retain.text}"` };
}

/** 2: the namespace's `<prefix>/retain` label (a label only), any value but `false` as in rule 1. */
function namespaceRetained({ namespaceRetain, target }: TargetFacts): Verdict | null {
  if (namespaceRetain?.value !== true) return null;
  return { reason: 'namespace-retained', message: `namespace ${target.namespace} is retained by label ${namespaceRetain.key}="${namespaceRetain.text}"` };
}

/** 3: a retention value that cannot be parsed: keep rather than guess what was meant. */
function retentionInvalid({ invalid }: TargetFacts): Verdict | null {
  if (invalid.length === 0) return null;
  return { reason: 'retention-invalid', message: invalid.join('; ') };
}

/** 4: a run in the namespace names something unknown: it may be this target. */
function unreadableRun({ unreadableRuns }: TargetFacts): Verdict | null {
  const [first, ...others] = unreadableRuns;
  if (first === undefined) return null;
  const where = first.namespace === '' ? 'whose namespace cannot be read' : `in namespace ${first.namespace}`;
  const problem = first.problems.map((p) => `${p.field}: ${p.problem}`).join('; ');
  return {
    reason: 'unreadable-run',
    message: `${first.kind} ${first.name || '(unnamed)'} ${where} has references of an unexpected shape (${problem})${andMore(others.length, 'unreadable run')}, so what it names is unknown`,
  };
}

/** 5: an active run resolves this target on every reconcile; deleting it fails the run. */
function referencedByActiveRun({ references }: TargetFacts): Verdict | null {
  const [first, ...others] = references.filter((ref) => isActive(ref.state));
  if (first === undefined) return null;
  return {
    reason: 'referenced-by-active-run',
    message: `referenced by active ${first.kind} ${first.name} (${first.state})${andMore(others.length, 'active run')}`,
  };
}

/** 6: younger than minAge (exactly minAge is old enough); an unreadable or future creation time is young. */
function tooYoung({ createdMs, nowMs, minAgeMs, ends, target }: TargetFacts): Verdict | null {
  if (!stillKeeps(ends['min-age'], nowMs)) return null;
  const minAge = formatDuration(minAgeMs);
  if (createdMs === undefined) {
    return { reason: 'too-young', message: `creation time "${target.createdAt}" cannot be read; min age ${minAge}` };
  }
  const age = nowMs - createdMs;
  const when = age < 0 ? `${formatDuration(age)} from now by this clock` : `${formatDuration(age)} ago`;
  return { reason: 'too-young', message: `created ${when}; min age ${minAge}` };
}

/** 7: `<prefix>/retain-until` still in the future (equal to now is not). */
function retainUntil({ retainUntil: until, ends, nowMs }: TargetFacts): Verdict | null {
  if (until === undefined || !stillKeeps(ends['retain-until'], nowMs)) return null;
  return { reason: 'retain-until', message: `retained until ${formatInstant(until.value)} by ${until.source} ${until.key}` };
}

/**
 * 8: retain-for (the target's own, else the global one) has not elapsed since the newest
 * completion among its referencing runs, or since its creation when none is known.
 */
function retainFor({ retainFor: setting, ends, nowMs, lastFinishMs, createdMs }: TargetFacts): Verdict | null {
  const end = ends['retain-for'];
  if (setting === undefined || end === undefined || !stillKeeps(end, nowMs)) return null;
  const setBy = setting.setBy === 'target' ? `${setting.own.source} ${setting.own.key}` : 'the global retain-for';
  if (end === 'never') return { reason: 'retain-for', message: `retained forever by ${setBy}` };
  const duration = formatRetentionDuration(setting.duration);
  const since = lastFinishMs ?? createdMs;
  // Rule 6 keeps every target whose creation time cannot be read, before this rule is asked.
  if (end === 'unknown' || since === undefined) {
    return { reason: 'retain-for', message: `retain-for ${duration} (${setBy}) counts from its creation, whose time cannot be read` };
  }
  const from = lastFinishMs === undefined ? `its creation at ${formatInstant(since)}` : `the last run finishing at ${formatInstant(since)}`;
  return { reason: 'retain-for', message: `retain-for ${duration} (${setBy}) lasts until ${formatInstant(end)}, counted from ${from}` };
}

/** 9: referenced only by finished runs (rule 5 has kept every target an active run names). */
function runsFinished({ references, lastFinishMs: lastFinish }: TargetFacts): Verdict | null {
  const [first] = references;
  if (first === undefined) return null;
  const last = lastFinish === undefined ? '' : formatInstant(lastFinish);
  if (references.length === 1) {
    const at = last === '' ? '' : ` at ${last}`;
    return { reason: 'runs-finished', message: `its only referencing run, ${first.kind} ${first.name}, finished${at}` };
  }
  const at = last === '' ? '' : `; last at ${last}`;
  return { reason: 'runs-finished', message: `all ${references.length} referencing runs finished${at}` };
}

/** 10: rules 5 and 9 leave only targets no run references; a gone run leaves no trace. */
function unreferenced(): Verdict {
  return { reason: 'unreferenced', message: 'no run references it' };
}

function newestFinish(references: readonly ReferenceView[]): number | undefined {
  let newest: number | undefined;
  for (const ref of references) {
    const finished = ref.finishedAt === undefined ? undefined : parseTimestampMs(ref.finishedAt);
    if (finished !== undefined && (newest === undefined || finished > newest)) newest = finished;
  }
  return newest;
}

function andMore(count: number, what: string): string {
  if (count === 0) return '';
  return ` and ${count} more ${what}${count === 1 ? '' : 's'}`;
}

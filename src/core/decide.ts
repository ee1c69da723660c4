/**
 * The ordered rules of SPEC.md section 2: each rule is a small predicate that returns a
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
  retentionKeys,
  type RetentionValue,
  type TargetRetention,
} from './retention.js';
import { isActive } from './runs.js';
import type { Action, ClusterView, Decision, Policy, Reason, ReferenceView, RunRecord, TargetRecord } from './types.js';

/** Everything the rules look at for one target, gathered once. */
interface TargetFacts {
  target: TargetRecord;
  policy: Policy;
  nowMs: number;
  /** metadata.creationTimestamp in epoch ms; undefined when it cannot be read. */
  createdMs: number | undefined;
  retention: TargetRetention;
  namespaceRetain: RetentionValue<boolean> | undefined;
  references: readonly ReferenceView[];
  unreadableRuns: readonly RunRecord[];
}

interface Verdict {
  reason: Reason;
  message: string;
}

type Rule = (facts: TargetFacts) => Verdict | null;

export function decide(view: ClusterView, policy: Policy, now: Date): Decision[] {
  const graph = buildGraph(view.runs);
  const nowMs = now.getTime();
  return view.targets
    .map((target) => decideTarget(gatherFacts(target, { view, graph, policy, nowMs })))
    .sort((a, b) => compareText(a.target.namespace, b.target.namespace) || compareText(a.target.name, b.target.name));
}

interface Pass {
  view: ClusterView;
  graph: ReferenceGraph;
  policy: Policy;
  nowMs: number;
}

function gatherFacts(target: TargetRecord, pass: Pass): TargetFacts {
  const namespace = pass.view.namespaces.get(target.namespace);
  const namespaceWarnings: string[] = [];
  const namespaceRetain = namespace && readNamespaceRetain(namespace, retentionKeys(pass.policy.labelPrefix).retain, namespaceWarnings);
  const retention = readTargetRetention(target, pass.policy.labelPrefix);
  return {
    target,
    policy: pass.policy,
    nowMs: pass.nowMs,
    createdMs: parseTimestampMs(target.createdAt),
    retention: { ...retention, warnings: [...retention.warnings, ...namespaceWarnings.map((w) => `namespace ${target.namespace}: ${w}`)] },
    namespaceRetain,
    references: pass.graph.referencingRuns(target),
    unreadableRuns: pass.graph.unreadableRuns(target.namespace),
  };
}

function decideTarget(facts: TargetFacts): Decision {
  const verdict = firstVerdict(facts);
  return {
    target: facts.target,
    action: actionFor(verdict.reason),
    reason: verdict.reason,
    message: verdict.message,
    references: facts.references,
    warnings: facts.retention.warnings,
  };
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
function retained({ retention }: TargetFacts): Verdict | null {
  const retain = retention.retain;
  if (retain?.value !== true) return null;
  return { reason: 'retained', message: `retained by ${retain.source} ${retain.key}="${retain.text}"` };
}

/** 2: the namespace's `<prefix>/retain` label (a label only), any value but `false` as in rule 1. */
function namespaceRetained({ namespaceRetain, target }: TargetFacts): Verdict | null {
  if (namespaceRetain?.value !== true) return null;
  return { reason: 'namespace-retained', message: `namespace ${target.namespace} is retained by label ${namespaceRetain.key}="${namespaceRetain.text}"` };
}

/** 3: a retention value that cannot be parsed: keep rather than guess what was meant. */
function retentionInvalid({ retention }: TargetFacts): Verdict | null {
  if (retention.invalid.length === 0) return null;
  return { reason: 'retention-invalid', message: retention.invalid.join('; ') };
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
function tooYoung({ createdMs, nowMs, policy, target }: TargetFacts): Verdict | null {
  const minAge = formatDuration(policy.minAgeMs);
  if (createdMs === undefined) {
    return { reason: 'too-young', message: `creation time "${target.createdAt}" cannot be read; min age ${minAge}` };
  }
  const age = nowMs - createdMs;
  if (age >= policy.minAgeMs) return null;
  const when = age < 0 ? `${formatDuration(age)} from now by this clock` : `${formatDuration(age)} ago`;
  return { reason: 'too-young', message: `created ${when}; min age ${minAge}` };
}

/** 7: `<prefix>/retain-until` still in the future (equal to now is not). */
function retainUntil({ retention, nowMs }: TargetFacts): Verdict | null {
  const until = retention.retainUntil;
  if (until === undefined || until.value <= nowMs) return null;
  return { reason: 'retain-until', message: `retained until ${formatInstant(until.value)} by ${until.source} ${until.key}` };
}

/**
 * 8: retain-for (the target's own, else the global one) has not elapsed since the newest
 * completion among its referencing runs, or since its creation when none is known.
 */
function retainFor(facts: TargetFacts): Verdict | null {
  const own = facts.retention.retainFor;
  const duration = own?.value ?? facts.policy.retainFor;
  if (duration === undefined) return null;
  const setBy = own === undefined ? 'the global retain-for' : `${own.source} ${own.key}`;
  if (duration.kind === 'forever') return { reason: 'retain-for', message: `retained forever by ${setBy}` };
  const lastFinish = newestFinish(facts.references);
  // Rule 6 has kept every target whose creation time cannot be read.
  const since = lastFinish ?? facts.createdMs ?? facts.nowMs;
  const until = since + duration.ms;
  if (until <= facts.nowMs) return null;
  const from = lastFinish === undefined ? `its creation at ${formatInstant(since)}` : `the last run finishing at ${formatInstant(since)}`;
  return {
    reason: 'retain-for',
    message: `retain-for ${formatRetentionDuration(duration)} (${setBy}) lasts until ${formatInstant(until)}, counted from ${from}`,
  };
}

/** 9: referenced only by finished runs (rule 5 has kept every target an active run names). */
function runsFinished({ references }: TargetFacts): Verdict | null {
  const [first] = references;
  if (first === undefined) return null;
  const lastFinish = newestFinish(references);
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

/**
 * The rows of the decision tables (docs/spec.md, "The decision" and "Leftovers"): each a small
 * predicate over the gathered facts that returns a verdict or null. A collector lists the rows
 * of its kind in order (collectors.ts) and the first verdict wins; a rule that two tables share
 * is one function here. Nothing here reads the clock: `now` is in the facts.
 */
import { flat } from './flat.js';
import type { Rule, RuleEnd, TargetFacts, Verdict } from './facts.js';
import { formatDuration, formatInstant, formatRetentionDuration } from './retention.js';
import { isActive } from './runs.js';
import type { Holder, LeftoverTarget, PodRecord, ReferenceView } from './types.js';

/** Whether a rule that time lifts still keeps the target at `nowMs`: until its end, exclusive; a rule that does not apply keeps nothing. */
function stillKeeps(end: RuleEnd | undefined, nowMs: number): boolean {
  if (end === undefined) return false;
  return typeof end === 'number' ? nowMs < end : true;
}

// --- The rows, shared by every table that lists them -----------------------------------------

/**
 * 1: the label or the annotation `<prefix>/retain` on the target is anything but `false`; either
 * one is enough. A collector whose targets have an owner run (`ownerRun`) also reads it on an
 * owner that still exists.
 */
export const retained: Rule = ({ retain: values, ownerRetain }) => {
  const own = values.find((value) => value.value);
  if (own !== undefined) return { reason: 'retained', message: flat`retained by ${own.source} ${own.key}="${own.text}"` };
  const onOwner = ownerRetain?.find((value) => value.value);
  if (onOwner === undefined) return null;
  return { reason: 'retained', message: flat`retained by ${onOwner.source} ${onOwner.key}="${onOwner.text}" on its owner ${onOwner.run.kind} ${onOwner.run.name}` };
};

/** 2: the namespace's `<prefix>/retain` label (a label only), any value but `false` as in rule 1. */
export const namespaceRetained: Rule = ({ namespaceRetain, target }) => {
  if (namespaceRetain?.value !== true) return null;
  return { reason: 'namespace-retained', message: flat`namespace ${target.namespace} is retained by label ${namespaceRetain.key}="${namespaceRetain.text}"` };
};

/** 3: a retention value that cannot be parsed: keep rather than guess what was meant. */
export const retentionInvalid: Rule = ({ invalid }) => {
  if (invalid.length === 0) return null;
  return { reason: 'retention-invalid', message: invalid.join('; ') };
};

/**
 * 4: a run in the namespace cannot be read where it would link the target (its references for
 * a PipelineResource, its workspaces and annotations for a leftover): it may link this one.
 */
export const unreadableRun: Rule = ({ unreadableRuns }) => {
  const [first, ...others] = unreadableRuns;
  if (first === undefined) return null;
  const { run, problems } = first;
  const what = problems === undefined ? 'was read without its workspaces and annotations' : `has fields of an unexpected shape (${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')})`;
  return {
    reason: 'unreadable-run',
    message: flat`${run.kind} ${run.name || '(unnamed)'} ${whereRun(run.namespace)} ${what}${andMore(others.length, 'unreadable run')}, so what it links is unknown`,
  };
};

/** Leftovers 5: a claim a user bound to a run by name (`persistentVolumeClaim` workspace) is the user's, whoever made it. */
export const userClaimed: Rule = ({ userClaims }) => {
  const [first, ...others] = userClaims;
  if (first === undefined) return null;
  return {
    reason: 'user-claimed',
    message: flat`bound by name in a workspace of ${first.kind} ${first.name}, which is not its owner${andMore(others.length, 'such run')}`,
  };
};

/**
 * PipelineResources 5, leftovers 6, ResolutionRequests 5: an active run that links the target
 * resolves, mounts or reads it again, unless it has stored what it resolved through it.
 */
export const referencedByActiveRun: Rule = ({ references, releasedBy }) => {
  const [first, ...others] = references.filter((ref) => isActive(ref.state) && !releasedBy.includes(ref));
  if (first === undefined) return null;
  return {
    reason: 'referenced-by-active-run',
    message: flat`${linkPhrase(first)} active ${first.kind} ${first.name} (${first.state})${isByName(first) ? `, ${viaPhrase(first)}` : ''}${andMore(others.length, 'active run')}`,
  };
};

/**
 * Leftovers 7: a Pod that has not finished uses it (no phase counts as active: it may still
 * start), or the claim's own `Unused` condition is `False` (KEP-5541), whatever the Pod list
 * said. A Pod listed is named first: it says which one.
 */
export const inUseByPod: Rule = ({ holders, target }) => {
  const [first, ...others] = holders.activePods;
  const condition = target.leftover?.inUseCondition;
  if (first === undefined) return condition === undefined ? null : { reason: 'in-use-by-pod', message: flat`in use by a Pod, by ${unusedFalsePhrase(condition)}` };
  const also = condition === undefined ? '' : `, and by ${unusedFalsePhrase(condition)}`;
  return { reason: 'in-use-by-pod', message: flat`in use by Pod ${first.name} (${podPhase(first)})${andMore(others.length, 'active Pod')}${also}` };
};

/** Leftovers 8: a StatefulSet names the claim: it would mount it again on its next Pod. */
export const inUseByStatefulSet: Rule = ({ holders }) => {
  const [first, ...others] = holders.statefulSets;
  if (first === undefined) return null;
  return { reason: 'in-use-by-statefulset', message: flat`named by StatefulSet ${first.name}${andMore(others.length, 'StatefulSet')}` };
};

/** PipelineResources 6, leftovers 9: younger than minAge (exactly minAge is old enough); an unreadable or future creation time is young. */
export const tooYoung: Rule = ({ createdMs, nowMs, minAgeMs, ends, target }) => {
  if (!stillKeeps(ends['min-age'], nowMs)) return null;
  const minAge = formatDuration(minAgeMs);
  if (createdMs === undefined) {
    return { reason: 'too-young', message: flat`creation time "${target.createdAt}" cannot be read; min age ${minAge}` };
  }
  const age = nowMs - createdMs;
  const when = age < 0 ? `${formatDuration(age)} from now by this clock` : `${formatDuration(age)} ago`;
  return { reason: 'too-young', message: flat`created ${when}; min age ${minAge}` };
};

/** PipelineResources 7, leftovers 10: `<prefix>/retain-until` still in the future (equal to now is not). */
export const retainUntil: Rule = ({ retainUntil: until, ends, nowMs }) => {
  if (until === undefined || !stillKeeps(ends['retain-until'], nowMs)) return null;
  return { reason: 'retain-until', message: flat`retained until ${formatInstant(until.value)} by ${until.source} ${until.key}` };
};

/**
 * PipelineResources 8, leftovers 11: retain-for (the target's own, else the global one) has
 * not elapsed since the newest completion among its linked runs, or since its creation when
 * none is known.
 */
export const retainFor: Rule = ({ retainFor: setting, ends, nowMs, lastFinishMs, createdMs, target }) => {
  const end = ends['retain-for'];
  if (setting === undefined || end === undefined || !stillKeeps(end, nowMs)) return null;
  const setBy = setting.setBy === 'target' ? `${setting.own.source} ${setting.own.key}` : 'the global retain-for';
  if (end === 'never') return { reason: 'retain-for', message: flat`retained forever by ${setBy}` };
  const duration = formatRetentionDuration(setting.duration);
  const since = lastFinishMs ?? createdMs;
  // The min-age rule keeps every target whose creation time cannot be read, before this rule is asked.
  if (end === 'unknown' || since === undefined) {
    return { reason: 'retain-for', message: flat`retain-for ${duration} (${setBy}) counts from its creation, whose time cannot be read` };
  }
  const from = lastFinishMs === undefined ? `its creation at ${formatInstant(since)}` : target.run !== undefined ? `its completion at ${formatInstant(since)}` : `the last run finishing at ${formatInstant(since)}`;
  return { reason: 'retain-for', message: flat`retain-for ${duration} (${setBy}) lasts until ${formatInstant(end)}, counted from ${from}` };
};

/** How a run of an owner's name (via `ownerName`) is said to link the target: a rerun by name reads it. */
const SAME_NAME = 'same name as its owner';

/** A run that reads the target by a name Tekton hashed it from, not being its owner (a rerun by name, its children, its parent). */
function isByName(ref: ReferenceView): boolean {
  return ref.via === 'ownerName' || ref.via === 'ownerChildName' || ref.via === 'ownerParentName';
}

/**
 * ResolutionRequests 9: an active owner (or a run of an owner's name) stored what it resolved through the request (its
 * pipeline or task spec, in its status) and never reads it again; every other run that links
 * it is finished or gone (the active-run rule has kept every request an active run still reads).
 */
export const resolutionStored: Rule = ({ releasedBy }) => {
  const [first, ...others] = releasedBy.filter((ref) => isActive(ref.state));
  if (first === undefined) return null;
  const stored = first.kind === 'PipelineRun' ? 'status.pipelineSpec' : 'status.taskSpec';
  const who = isByName(first) ? `${first.kind} ${first.name} (${first.state}), ${viaPhrase(first)},` : `its owner ${first.kind} ${first.name} (${first.state})`;
  return {
    reason: 'resolution-stored',
    message: flat`${who} stored what it resolved in ${stored} and reads it no more${andMore(others.length, 'such run')}`,
  };
};

/**
 * PipelineResources 9, leftovers 12, ResolutionRequests 10: every linked run that exists is finished (the active-run
 * rule has kept every target an active run links).
 */
export const runsFinished: Rule = ({ references, lastFinishMs }) => {
  const existing = references.filter((ref) => ref.state !== 'gone');
  const [first] = existing;
  if (first === undefined) return null;
  const last = lastFinishMs === undefined ? '' : formatInstant(lastFinishMs);
  if (existing.length === 1) {
    const at = last === '' ? '' : ` at ${last}`;
    return { reason: 'runs-finished', message: flat`its only linked run, ${first.kind} ${first.name} (${viaPhrase(first)}), finished${at}` };
  }
  const at = last === '' ? '' : `; last at ${last}`;
  return { reason: 'runs-finished', message: flat`all ${existing.length} linked runs finished${at}` };
};

/** Leftovers 13: its owner is no listed run (by uid, or by name for the label), and no other run links it. */
export const ownerGone: Rule = ({ references }) => {
  // The runs-finished rule has taken every leftover a run that exists links: what is left links only gone owners.
  const [first, ...others] = references.filter((ref) => ref.state === 'gone');
  if (first === undefined) return null;
  return { reason: 'owner-gone', message: flat`its owner ${first.kind} ${first.name} is gone${andMore(others.length, 'gone owner')} and no other run links it` };
};

/** The last row of every table: rules before it leave only targets no run links; a gone run leaves no trace. */
export function unreferenced(): Verdict {
  return { reason: 'unreferenced', message: 'no run links it' };
}

// --- Wording -------------------------------------------------------------------------------

function whereRun(namespace: string): string {
  return namespace === '' ? 'whose namespace cannot be read' : `in namespace ${namespace}`;
}

/** How a linked run is said to hold the leftover, before `active PipelineRun x`. */
function linkPhrase(ref: ReferenceView): string {
  switch (ref.via) {
    case 'ownerReference':
      return 'owned by';
    case 'label':
      return 'made for';
    case 'annotation':
      return 'named as the git-auth Secret of';
    case 'workspace':
      return 'bound in a workspace of';
    case 'spec':
      return 'referenced by';
    case 'ownerName':
    case 'ownerChildName':
    case 'ownerParentName':
      return 'read by';
  }
}

/** The link in a few words, after the run's name. */
function viaPhrase(ref: ReferenceView): string {
  switch (ref.via) {
    case 'ownerReference':
      return 'its owner';
    case 'label':
      return 'by its tekton.dev/pipelineRun label';
    case 'annotation':
      return 'by its git-auth annotation';
    case 'workspace':
      return 'by a workspace';
    case 'spec':
      return 'by its spec';
    case 'ownerName':
      return SAME_NAME;
    case 'ownerChildName':
      return 'named as a child run of its owner';
    case 'ownerParentName':
      return "whose child run would have its owner's name";
  }
}

/** `its Unused=False condition (PodUsingPVC) since 2026-…`. */
function unusedFalsePhrase(condition: NonNullable<LeftoverTarget['inUseCondition']>): string {
  return `its Unused=False condition${unusedFalseDetail(condition)}`;
}

/** ` (PodUsingPVC) since 2026-…`: what an Unused=False condition says beyond its status, the reason and the time when written. */
export function unusedFalseDetail(condition: NonNullable<LeftoverTarget['inUseCondition']>): string {
  const reason = condition.reason === undefined ? '' : ` (${condition.reason})`;
  const since = condition.since === undefined ? '' : ` since ${condition.since}`;
  return `${reason}${since}`;
}

function podPhase(pod: PodRecord): string {
  return pod.phase ?? 'no phase yet';
}

/** The holders a decision shows: the active Pods, then the StatefulSets. */
export function holdersShown(facts: TargetFacts): Holder[] {
  return [
    ...facts.holders.activePods.map((pod): Holder => ({ kind: 'Pod', name: pod.name, ...(pod.phase !== undefined && { phase: pod.phase }) })),
    ...facts.holders.statefulSets.map((sts): Holder => ({ kind: 'StatefulSet', name: sts.name })),
  ];
}

function andMore(count: number, what: string): string {
  if (count === 0) return '';
  return ` and ${count} more ${what}${count === 1 ? '' : 's'}`;
}

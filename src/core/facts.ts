/**
 * The facts a decision stands on and the shape of a rule: a small predicate over the facts
 * that returns a verdict or null. Here rather than in decide.ts so that the collectors
 * (collectors.ts), which list their rules, and decide.ts, which reads the collectors, do not
 * import each other.
 */
import { parseTimestampMs, readNamespaceRetain, readTargetRetention, retainValues, retentionKeys, type RetentionValue } from './retention.js';
import type { Action, NamespaceRecord, PodRecord, Policy, ReadProblem, Reason, ReferenceView, RetentionDuration, RunRecord, StatefulSetRecord, TargetRecord } from './types.js';

/** The rules that time alone lifts (PipelineResources 6-8, leftovers 9-11, runs 5-7 and the run TTL), each named by the setting it reads. */
export type TimeBound = 'min-age' | 'retain-until' | 'retain-for' | 'run-ttl';

/**
 * When a rule that time lifts stops keeping the target: an instant (epoch ms), `never`
 * (`retain-for: forever`), or `unknown` (counted from a creation time that cannot be read).
 */
export type RuleEnd = number | 'never' | 'unknown';

/** The `retain-for` rule's duration and where it is set: the target's own label or annotation, else the policy (`--retain-for`). */
export type EffectiveRetainFor = { duration: RetentionDuration; setBy: 'target'; own: RetentionValue<RetentionDuration> } | { duration: RetentionDuration; setBy: 'policy' };

/** `retain` on a leftover's owner run (leftovers' rule 1), with the run it is on. */
export interface OwnerRetain extends RetentionValue<boolean> {
  run: RunRecord;
}

/**
 * The facts a decision stands on, gathered once and read by the rules: `explain` renders
 * them and `collectableAt` reads them, so neither can reach a different answer.
 */
export interface DecisionFacts {
  /** metadata.creationTimestamp in epoch ms; undefined when it cannot be read. */
  createdMs: number | undefined;
  /** The newest completionTime among the referencing (linked) runs, in epoch ms. */
  lastFinishMs: number | undefined;
  /** Rule 1: `retain` as the label and the annotation write it, the label first; either one that retains is enough. */
  retain: readonly RetentionValue<boolean>[];
  /** Leftovers' rule 1: `retain` on the owner runs that still exist, the same way. */
  ownerRetain?: readonly OwnerRetain[];
  /** Rule 2: the namespace's `retain` label, when the namespace was read and has one. */
  namespaceRetain: RetentionValue<boolean> | undefined;
  /** Rule 3: one message per retention value that cannot be parsed. */
  invalid: readonly string[];
  /** The policy's minimum age. */
  minAgeMs: number;
  /** The target's `retain-until`, when set and valid. */
  retainUntil: RetentionValue<number> | undefined;
  /** The target's own `retain-for`, else the policy's; undefined when neither is set. */
  retainFor: EffectiveRetainFor | undefined;
  /** When each rule that time lifts stops keeping the target; a rule that does not apply is absent. Those rules compare now with these. */
  ends: { readonly 'min-age': RuleEnd; readonly 'retain-until'?: number; readonly 'retain-for'?: RuleEnd; readonly 'run-ttl'?: RuleEnd };
}

/** What holds a leftover (rules 7 and 8). */
export interface HolderFacts {
  /** Pods that use it and have not finished (phase not Succeeded or Failed; no phase counts), sorted by name. */
  activePods: readonly PodRecord[];
  /** StatefulSets that name the claim, except one this pass deletes first; sorted by name. */
  statefulSets: readonly StatefulSetRecord[];
  /** StatefulSets that name the claim but that this pass deletes before it (affinity-assistants before workspace-pvcs). */
  released: readonly StatefulSetRecord[];
}

/**
 * A run whose links to a kind are unknown: the problems its collector reads (references for a
 * PipelineResource, workspaces and annotations for a leftover); undefined when the run was read
 * without the part that links leftovers at all.
 */
export interface UnreadableRun {
  run: RunRecord;
  problems: readonly ReadProblem[] | undefined;
}

/** Everything the rules look at for one target, gathered once. */
export interface TargetFacts extends DecisionFacts {
  target: TargetRecord;
  nowMs: number;
  /** Runs that reference or link the target, with effective states, sorted by kind then name; for leftovers, gone owners too (state `gone`). */
  references: readonly ReferenceView[];
  /** Runs that may sit in the target's namespace and whose links to this kind are unknown, each with what could not be read. */
  unreadableRuns: readonly UnreadableRun[];
  /** Leftovers' rule 5: runs other than the owner or the owner's child TaskRuns that name the claim in a workspace. */
  userClaims: readonly ReferenceView[];
  /**
   * Linked runs that stored what they resolved through this target and read it no more (a
   * ResolutionRequest's owner, resolution.ts); empty for every other kind.
   */
  releasedBy: readonly ReferenceView[];
  /** Leftovers' rules 7 and 8; empty for a kind nothing holds. */
  holders: HolderFacts;
  warnings: readonly string[];
}

export interface Verdict {
  reason: Reason;
  message: string;
}

/** One row of a decision table: the verdict when it applies, else null. */
export type Rule = (facts: TargetFacts) => Verdict | null;

/**
 * The facts every table's retention and age rows read (rules 1-3 and the rules time lifts),
 * with the warnings their values give: `lastFinishMs` is what retain-for counts from (else
 * the creation). decide.ts and history.ts gather the rest.
 */
export function retentionFacts(
  target: TargetRecord,
  namespace: NamespaceRecord | undefined,
  policy: Policy,
  lastFinishMs: number | undefined,
): Omit<DecisionFacts, 'ownerRetain'> & { warnings: string[] } {
  const keys = retentionKeys(policy.labelPrefix);
  const namespaceWarnings: string[] = [];
  const namespaceRetain = namespace && readNamespaceRetain(namespace, keys.retain, namespaceWarnings);
  const retention = readTargetRetention(target, policy.labelPrefix);
  const createdMs = parseTimestampMs(target.createdAt);
  const retainFor: EffectiveRetainFor | undefined =
    retention.retainFor !== undefined ? { duration: retention.retainFor.value, setBy: 'target', own: retention.retainFor } : policy.retainFor && { duration: policy.retainFor, setBy: 'policy' };
  return {
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
    warnings: [...retention.warnings, ...namespaceWarnings.map((w) => `namespace ${target.namespace}: ${w}`)],
  };
}

/** retain-for counts from the newest completion of a referencing run (a run's own, for a run), else from the creation. */
function retainForEnd(duration: RetentionDuration, sinceMs: number | undefined): RuleEnd {
  if (duration.kind === 'forever') return 'never';
  return sinceMs === undefined ? 'unknown' : sinceMs + duration.ms;
}

/** The action of each reason code, for every table: a new code does not compile until it is placed. */
export function actionFor(reason: Reason): Action {
  switch (reason) {
    case 'retained':
    case 'namespace-retained':
    case 'retention-invalid':
    case 'unreadable-run':
    case 'user-claimed':
    case 'referenced-by-active-run':
    case 'in-use-by-pod':
    case 'in-use-by-statefulset':
    case 'too-young':
    case 'retain-until':
    case 'retain-for':
    case 'run-active':
    case 'results-not-stored':
    case 'history-kept':
    case 'ttl-not-reached':
    case 'no-run-policy':
      return 'keep';
    case 'history-exceeded':
    case 'ttl-expired':
    case 'resolution-stored':
    case 'runs-finished':
    case 'owner-gone':
    case 'unreferenced':
      return 'delete';
  }
}

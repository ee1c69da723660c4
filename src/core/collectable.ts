/**
 * When a target would become collectable if nothing changed: no run starts or finishes,
 * no label is added or removed, and only the clock moves. Pure: the facts and `now` are
 * passed in.
 *
 * Choices (for the README):
 * - A target kept by a rule that time alone does not lift (retained, its namespace
 *   retained, an invalid retention value, an unreadable run, an active run) is collectable
 *   `never`, with what would have to change.
 * - Otherwise it is collectable at the latest of: its creation plus the minimum age, its
 *   `retain-until`, and the end of its `retain-for` (counted from the newest completion of
 *   its referencing runs, or from its creation when none is known, as rule 8 counts it).
 *   `retain-for: forever` makes it `never`.
 */
import type { Reason, RetentionDuration } from './types.js';

/** The time-based rules, each a bound the target must be past. */
export type TimeBound = 'min-age' | 'retain-until' | 'retain-for';

export type Collectable =
  /** The decision is already to delete it. */
  | { when: 'now' }
  /** `atMs` is the latest bound; `bound` says which rule sets it. */
  | { when: 'at'; atMs: number; bound: TimeBound }
  /** `until` says what would have to change first. */
  | { when: 'never'; until: string };

export interface CollectableFacts {
  /** The reason the decision gave now. */
  reason: Reason;
  /** metadata.creationTimestamp in epoch ms; undefined when it cannot be read. */
  createdMs: number | undefined;
  minAgeMs: number;
  /** `retain-until` in epoch ms, when set and valid. */
  retainUntilMs?: number;
  /** The target's own retain-for, else the global one. */
  retainFor?: RetentionDuration;
  /** The newest completionTime among its referencing runs, in epoch ms. */
  lastFinishMs?: number;
}

/** What has to change for a target that time alone will not make collectable. */
const NEVER_UNTIL: { readonly [R in Reason]?: string } = {
  retained: 'its retain label and annotation are both removed or set to "false"',
  'namespace-retained': 'the retain label of its namespace is removed or set to "false"',
  'retention-invalid': 'its retention value is fixed or removed',
  'unreadable-run': 'the run with references of an unexpected shape is fixed or deleted',
  'referenced-by-active-run': 'every run that references it has finished',
};

export function collectableAt(facts: CollectableFacts): Collectable {
  if (facts.reason === 'runs-finished' || facts.reason === 'unreferenced') return { when: 'now' };
  const until = NEVER_UNTIL[facts.reason];
  if (until !== undefined) return { when: 'never', until };
  if (facts.createdMs === undefined) return { when: 'never', until: 'its creation time can be read' };
  if (facts.retainFor?.kind === 'forever') return { when: 'never', until: 'its retain-for "forever" is changed' };
  return latestBound(timeBounds(facts, facts.createdMs));
}

/** Every bound that applies, in rule order. */
export function timeBounds(facts: CollectableFacts, createdMs: number): { bound: TimeBound; atMs: number }[] {
  const bounds: { bound: TimeBound; atMs: number }[] = [{ bound: 'min-age', atMs: createdMs + facts.minAgeMs }];
  if (facts.retainUntilMs !== undefined) bounds.push({ bound: 'retain-until', atMs: facts.retainUntilMs });
  if (facts.retainFor?.kind === 'duration') bounds.push({ bound: 'retain-for', atMs: (facts.lastFinishMs ?? createdMs) + facts.retainFor.ms });
  return bounds;
}

/** The latest bound; on a tie, the later rule (it is the one the decision would name last). */
function latestBound(bounds: readonly { bound: TimeBound; atMs: number }[]): Collectable {
  let latest = bounds[0] ?? { bound: 'min-age' as const, atMs: 0 };
  for (const candidate of bounds) if (candidate.atMs >= latest.atMs) latest = candidate;
  return { when: 'at', atMs: latest.atMs, bound: latest.bound };
}

/**
 * When a target would become collectable if nothing changed: no run starts or finishes,
 * no label is added or removed, and only the clock moves. Pure, and it derives nothing:
 * it reads the ends decide() computed for the rules that time lifts, and classifies the
 * reason decide() gave.
 *
 * Choices (written down for users in docs/spec.md and docs/operations.md):
 * - A target kept by a rule that time alone does not lift (retained, its namespace
 *   retained, an invalid retention value, an unreadable run, an active run) is collectable
 *   `never`, with what would have to change.
 * - Otherwise it is collectable at the latest of: its creation plus the minimum age, its
 *   `retain-until`, and the end of its `retain-for` (counted from the newest completion of
 *   its referencing runs, or from its creation when none is known, as rule 8 counts it).
 *   `retain-for: forever` makes it `never`.
 */
import type { DecisionFacts, RuleEnd, TimeBound } from './decide.js';
import type { Reason } from './types.js';

export type Collectable =
  /** The decision is already to delete it. */
  | { when: 'now' }
  /** `atMs` is the latest bound; `bound` says which rule sets it. */
  | { when: 'at'; atMs: number; bound: TimeBound }
  /** `until` says what would have to change first. */
  | { when: 'never'; until: string }
  /**
   * A run kept by its place in its group, or by a rule time lifts after which its history
   * decides: when depends on runs to come. `why` says on what; `notBefore`, the latest end
   * of the rules that keep it now (explain.ts runCollectable).
   */
  | { when: 'unknown'; why: string; notBefore?: { atMs: number; bound: TimeBound } };

/** What lifts a reason: nothing (it is a delete), the clock, or a change someone makes. */
type Lifted = { by: 'nothing' } | { by: 'time' } | { by: 'change'; until: string };

/**
 * Every reason, classified: a new reason does not compile until it is placed here, so it
 * cannot be taken for a time-based keep by default.
 */
const LIFTED: { readonly [R in Reason]: Lifted } = {
  retained: { by: 'change', until: 'its retain label and annotation are both removed or set to "false"' },
  'namespace-retained': { by: 'change', until: 'the retain label of its namespace is removed or set to "false"' },
  'retention-invalid': { by: 'change', until: 'its retention value is fixed or removed' },
  'unreadable-run': { by: 'change', until: 'the run with references of an unexpected shape is fixed or deleted' },
  'user-claimed': { by: 'change', until: 'no run but its owner binds it by name in a workspace' },
  'referenced-by-active-run': { by: 'change', until: 'every run that links it has finished, or no longer reads it' },
  'in-use-by-pod': { by: 'change', until: 'every Pod that uses it has finished (Succeeded or Failed) or is deleted' },
  'in-use-by-statefulset': { by: 'change', until: 'the StatefulSet that names it is deleted' },
  'too-young': { by: 'time' },
  'retain-until': { by: 'time' },
  'retain-for': { by: 'time' },
  'resolution-stored': { by: 'nothing' },
  'runs-finished': { by: 'nothing' },
  'owner-gone': { by: 'nothing' },
  unreferenced: { by: 'nothing' },
  'run-active': { by: 'change', until: 'the run has finished' },
  'results-not-stored': { by: 'change', until: 'Tekton Results has stored it (results.tekton.dev/stored: "true")' },
  'history-kept': { by: 'change', until: 'enough newer runs of its outcome finish in its group' },
  'history-exceeded': { by: 'nothing' },
  'ttl-expired': { by: 'nothing' },
  'ttl-not-reached': { by: 'time' },
  'no-run-policy': { by: 'change', until: 'a history limit or a run TTL applies to it' },
  'dependent-kept': { by: 'change', until: 'what would go with it and is kept, is kept no more or is no longer its dependent' },
};

/** Rule order of the time bounds: on a tie, the later rule is named (the decision would name it last). */
const TIME_BOUNDS: readonly TimeBound[] = ['min-age', 'retain-until', 'retain-for', 'run-ttl'];

export function collectableAt(reason: Reason, ends: DecisionFacts['ends']): Collectable {
  const lifted = LIFTED[reason];
  switch (lifted.by) {
    case 'nothing':
      return { when: 'now' };
    case 'change':
      return { when: 'never', until: lifted.until };
    case 'time':
      return latestEnd(ends);
  }
}

function latestEnd(ends: DecisionFacts['ends']): Collectable {
  const applying = TIME_BOUNDS.flatMap((bound) => {
    const end: RuleEnd | undefined = ends[bound];
    return end === undefined ? [] : [{ bound, end }];
  });
  // Only an unreadable creation time makes an end unknown; it keeps the target whatever else ends.
  if (applying.some(({ end }) => end === 'unknown')) return { when: 'never', until: 'its creation time can be read' };
  if (applying.some(({ end }) => end === 'never')) return { when: 'never', until: 'its retain-for "forever" is changed' };
  let latest: Collectable & { when: 'at' } = { when: 'at', atMs: Number.NEGATIVE_INFINITY, bound: 'min-age' };
  for (const { bound, end } of applying) {
    if (typeof end === 'number' && end >= latest.atMs) latest = { when: 'at', atMs: end, bound };
  }
  return latest;
}

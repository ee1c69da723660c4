/**
 * The deletion caps of a live pass (--max-deletions, --max-deletions-per-kind,
 * --max-cascade-deletions): how many of a pass's candidates count, and which cap they exceed. Pure: the pass stops before its first
 * delete when one is exceeded (nothing deleted, every candidate aborted, exit 3).
 */
import { COLLECTORS, collectorOf, type CollectorName } from '../core/collectors.js';
import type { Decision, TargetRecord } from '../core/types.js';

export interface Caps {
  maxDeletions: number;
  maxDeletionsPerKind?: Partial<Record<CollectorName, number>>;
  /** What may go with the runs deleted, counted apart from the runs themselves. */
  maxCascadeDeletions: number;
  pvcFinalizer: 'keep' | 'purge';
}

/**
 * The candidates a pass acts on, one each: a DELETE, or for a claim already Terminating the
 * removal of its finalizer (purge). One already Terminating that is sent nothing (sentNothing)
 * does not count.
 */
export function countedCandidates(candidates: readonly Decision[], pvcFinalizer: Caps['pvcFinalizer']): Decision[] {
  return candidates.filter((decision) => !sentNothing(decision.target, pvcFinalizer));
}

/**
 * A candidate already being deleted (`deletionTimestamp`) that a live pass sends nothing and
 * reports `terminating` (deletephase.ts): every kind in keep mode, and under purge every kind
 * but a claim, whose kubernetes.io/pvc-protection it removes. A dry run reports it so too.
 */
export function sentNothing(target: Pick<TargetRecord, 'kind' | 'deletionTimestamp'>, pvcFinalizer: Caps['pvcFinalizer']): boolean {
  return target.deletionTimestamp !== undefined && !(pvcFinalizer === 'purge' && target.kind === CLAIM_KIND);
}

const CLAIM_KIND = COLLECTORS['workspace-pvcs'].kind;

/** A cap a pass would exceed: which, its limit, and how many it would act on. */
export interface CapBreach {
  /** `--max-deletions 1000`, or `--max-deletions-per-kind workspace-pvcs=200`. */
  flag: string;
  limit: number;
  count: number;
  /** The collector of a per-kind cap. */
  collector?: CollectorName;
  /** The cascade's cap: `count` is of the objects that go with the runs, not of candidates. */
  cascade?: true;
}

/** Every cap the counted candidates exceed: the pass-wide one first, then each collector's, in the order given. */
export function capBreaches(candidates: readonly Decision[], caps: Caps): CapBreach[] {
  const counted = countedCandidates(candidates, caps.pvcFinalizer);
  const breaches: CapBreach[] = [];
  if (counted.length > caps.maxDeletions) breaches.push({ flag: `--max-deletions ${caps.maxDeletions}`, limit: caps.maxDeletions, count: counted.length });
  const perKind = new Map<CollectorName, number>();
  for (const decision of counted) {
    const name = collectorOf(decision.target.kind).name;
    perKind.set(name, (perKind.get(name) ?? 0) + 1);
  }
  for (const [collector, limit] of Object.entries(caps.maxDeletionsPerKind ?? {}) as [CollectorName, number][]) {
    const count = perKind.get(collector) ?? 0;
    if (count > limit) breaches.push({ flag: `--max-deletions-per-kind ${collector}=${limit}`, limit, count, collector });
  }
  const cascade = cascadeCount(counted);
  if (cascade > caps.maxCascadeDeletions) breaches.push({ flag: `--max-cascade-deletions ${caps.maxCascadeDeletions}`, limit: caps.maxCascadeDeletions, count: cascade, cascade: true });
  return breaches;
}

/**
 * The objects that go with the candidate runs, as their decisions count them (core/cascade.ts
 * counts each object once, with one run). A target that goes with a run and is a candidate of
 * its own collector too is in both counts: the cascade cap bounds what the garbage collector
 * deletes after the runs go, whoever else asked for it.
 */
export function cascadeCount(candidates: readonly Decision[]): number {
  let count = 0;
  for (const decision of candidates) {
    for (const objects of Object.values(decision.cascade?.objects ?? {})) count += objects;
  }
  return count;
}

/** `the plan deletes 1200 targets, more than --max-deletions 1000`: what a breach stopped, in a report's words. */
export function breachText(breach: CapBreach): string {
  const what = breach.cascade === true ? `${breach.count} objects with its runs` : breach.collector === undefined ? `${breach.count} targets` : `${breach.count} targets of ${breach.collector}`;
  return `${what}, more than ${breach.flag}`;
}

/**
 * The delete phase of a live pass: candidates deleted at --qps with bounded concurrency,
 * each on a view of the runs no older than RECHECK_INTERVAL_MS, and a refused delete tried
 * again only on such a view.
 */
import { Breaker, describeTrip, type BreakerTrip } from './breaker.js';
import { sentNothing } from './caps.js';
import { COLLECTOR_NAMES, collectorOf } from '../core/collectors.js';
import { amendDecision, type ClusterView, type Decision, type Holder, type LeftoverTarget, type PodRecord, type Policy, type RunRecord, type StatefulSetRecord, type TargetRecord } from '../core/types.js';
import { ParentNames } from '../core/childnames.js';
import type { RerunFinds } from '../core/collectors.js';
import { rerunReads } from '../core/reruns.js';
import type { RunTargetReading } from '../core/runtargets.js';
import { decideBounded, logReadProblems } from './decisions.js';
import type { Remaining } from '../kube/api.js';
import type { KubeCluster, Scope, ServedApis, TargetDeleteOutcome } from '../kube/cluster.js';
import { Interrupted, KubeError, isRetryable } from '../kube/errors.js';
import { DEFAULT_RETRY, RETRY_WINDOW_MS, retryDelayMs } from '../kube/http.js';
import type { Logger } from '../ops/log.js';
import { errorMessage } from './message.js';
import type { Progress } from '../ops/progress.js';
import type { ReportBreaker, Result } from '../report/model.js';
import { isAborted } from '../process/signals.js';

/**
 * A delete phase lasts as long as the candidates take at --qps (1000 at 20 per second: 50 s).
 * A run created in that time that names a later candidate must save it, so no delete starts
 * on a view of the runs and namespaces whose first read began longer ago than this. What
 * remains is this interval plus the delete's own time in flight: a run created in it that
 * names the candidate fails to resolve it, as it would after any deletion by hand; but for a
 * target a rerun by name finds by name (a ResolutionRequest, an affinity assistant's StatefulSet,
 * a git-auth Secret: Collector.rerunFinds), whose reruns' names are read once more right before
 * its DELETE (Deleter.stillWanted). Kubernetes offers no precondition on other objects.
 */
export const RECHECK_INTERVAL_MS = 5_000;

/** A view refreshed this many times in a row that was already too old when it arrived stops the deletes. */
const MAX_STALE_REFRESHES = 3;

/**
 * The next refresh starts this long, plus what the last one took, before the view gets too
 * old: the deletes go on while it reads, on a view still young enough.
 */
const PREFETCH_MARGIN_MS = 500;

/** What the delete phase needs from the outside world. */
export interface DeletePhaseDeps {
  cluster: Pick<KubeCluster, 'runsChangedSince' | 'runsNamed' | 'readNamespaces' | 'deleteTarget' | 'readTarget' | 'listPods' | 'listStatefulSets' | 'listClaims' | 'purgeClaimProtection'>;
  now: () => Date;
  log: Logger;
  /** Aborted by SIGTERM: no new delete starts after it, and no wait goes on. */
  signal: AbortSignal;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  progress?: Progress;
  /** The backoff's jitter, 0 to 1; Math.random unless a test picks it. */
  random?: () => number;
}

/** A view of the runs and namespaces, and when the first read behind it began: it is no newer than that. */
export interface DatedView {
  view: ClusterView;
  /** Epoch milliseconds. */
  readAt: number;
  /** How long reading it took: the next refresh starts this much ahead of time. */
  readMs: number;
  /** The resourceVersions, by uid, of runs the listing read and did not keep (core/needed.ts): a re-check knows them. */
  passedOver?: ReadonlyMap<string, string>;
  /** Set when a run collector is on: how its targets were read from the run listing, and are read again. */
  runTargets?: RunTargetReading;
}

/** Where a re-check reads: the candidates' namespaces, and of those the ones whose candidates Pods or StatefulSets may hold. */
export interface RecheckScope {
  scope: Scope;
  namespaces: readonly string[];
  /**
   * Namespaces whose Pods, and whose StatefulSets, the candidates' rules read; none when no
   * collector on reads them. `claims`: those of candidate claims, listed again for their Unused condition.
   */
  holders?: { pods: readonly string[]; statefulSets: readonly string[]; claims?: readonly string[] };
  /** Targets the delete phase has settled: no longer decided, nor a StatefulSet among them released (its claims' rule 8). */
  settled?: ReadonlySet<string>;
}

/**
 * Reads again what the decision stands on and may have changed since `dated` was read: the
 * runs in the candidates' namespaces (new, changed or gone), the namespaces' labels, and
 * the Pods and StatefulSets of the namespaces whose candidates they may hold (listed again
 * whole: a StatefulSet deleted earlier in the pass no longer holds its claim, its Pod may).
 * Targets are not read again, but for the Unused condition of candidate claims (listed again:
 * it is a holder too, rule 7): the delete's uid and resourceVersion preconditions, from the
 * listing, refuse a target that changed (409). The answer is dated by the clock before the first read.
 */
export async function refreshView(
  deps: Pick<DeletePhaseDeps, 'cluster' | 'now' | 'log'>,
  apis: ServedApis,
  dated: DatedView,
  pass: RecheckScope,
): Promise<DatedView> {
  const readAt = deps.now().getTime();
  const reading = dated.runTargets;
  const listedRunTargets = reading === undefined ? undefined : { reading, listed: dated.view.targets.filter((target) => target.run !== undefined) };
  const { changed, goneUids, changedTargets } = await deps.cluster.runsChangedSince(apis, dated.view.runs, pass.namespaces, pass.scope, dated.passedOver, listedRunTargets);
  const namespaces = await deps.cluster.readNamespaces(pass.scope);
  const holders = pass.holders ?? { pods: [], statefulSets: [] };
  const pods = holders.pods.length === 0 ? undefined : await deps.cluster.listPods(apis, pass.scope, holders.pods, { recheck: true });
  const statefulSets = holders.statefulSets.length === 0 ? undefined : await deps.cluster.listStatefulSets(apis, pass.scope, holders.statefulSets, { recheck: true });
  const claims = (holders.claims ?? []).length === 0 ? undefined : await deps.cluster.listClaims(apis, pass.scope, holders.claims ?? []);
  if (changed.length > 0 || goneUids.size > 0) {
    deps.log.info({ changed: changed.length, gone: goneUids.size }, 'runs changed since the listing; deciding again');
  }
  logReadProblems(deps.log, changed);
  const changedUids = new Set(changed.map((run) => run.uid));
  const runs: RunRecord[] = [...dated.view.runs.filter((run) => !goneUids.has(run.uid) && !changedUids.has(run.uid)), ...changed];
  const settled = pass.settled;
  const freshPods = withFresh(dated.view.pods, pods, holders.pods);
  const freshStatefulSets = withFresh(dated.view.statefulSets, statefulSets, holders.statefulSets);
  const unsettled = settled === undefined || settled.size === 0 ? dated.view.targets : dated.view.targets.filter((target) => !settled.has(target.uid));
  const view: ClusterView = {
    targets: withRunsAgain(withConditions(unsettled, claims), changedTargets, goneUids),
    runs,
    namespaces,
    ...(freshPods !== undefined && { pods: freshPods }),
    ...(freshStatefulSets !== undefined && { statefulSets: freshStatefulSets }),
    // The listing's census: a finished run's TaskRuns do not start again.
    ...(dated.view.children !== undefined && { children: dated.view.children }),
    ...(dated.view.retainedOwned !== undefined && { retainedOwned: dated.view.retainedOwned }),
  };
  return {
    view,
    readAt,
    readMs: deps.now().getTime() - readAt,
    ...(dated.passedOver !== undefined && { passedOver: dated.passedOver }),
    ...(reading !== undefined && { runTargets: reading }),
  };
}

/**
 * The view's run targets as read again: a changed run's record replaces the listed one (its
 * DELETE then carries the version this decision read), a gone one leaves, and a new one joins
 * its group, where it can only push older runs further down (and redecide acts on no new
 * decision). Other targets are as they were.
 */
function withRunsAgain(targets: readonly TargetRecord[], again: readonly TargetRecord[], goneUids: ReadonlySet<string>): readonly TargetRecord[] {
  if (again.length === 0 && goneUids.size === 0) return targets;
  const fresh = new Map(again.map((target) => [target.uid, target]));
  const kept = targets.flatMap((target) => {
    if (target.run === undefined) return [target];
    if (goneUids.has(target.uid)) return [];
    const replaced = fresh.get(target.uid);
    fresh.delete(target.uid);
    return [replaced ?? target];
  });
  return [...kept, ...fresh.values()];
}

/** The view's holders of one kind: those listed again replace the ones of their namespaces. */
function withFresh<T extends PodRecord | StatefulSetRecord>(before: readonly T[] | undefined, again: readonly T[] | undefined, namespaces: readonly string[]): readonly T[] | undefined {
  if (again === undefined) return before;
  const relisted = new Set(namespaces);
  return [...(before ?? []).filter((holder) => !relisted.has(holder.namespace)), ...again];
}

/**
 * The view's claims with the Unused condition a listing again found on them; the rest of each
 * record is as first listed, its resourceVersion too, so that its DELETE still refuses a claim
 * changed otherwise. A claim not listed again (gone, or recreated) is left as it was.
 */
function withConditions(targets: readonly TargetRecord[], relisted: readonly TargetRecord[] | undefined): readonly TargetRecord[] {
  if (relisted === undefined) return targets;
  const conditions = new Map(relisted.map((claim) => [claim.uid, claim.leftover?.inUseCondition]));
  return targets.map((target) => {
    if (target.leftover === undefined || !conditions.has(target.uid)) return target;
    const leftover: LeftoverTarget = { ...target.leftover };
    const condition = conditions.get(target.uid);
    if (condition === undefined) delete leftover.inUseCondition;
    else leftover.inUseCondition = condition;
    return { ...target, leftover };
  });
}

/**
 * The namespaces of candidates whose collector's rules read Pods, and StatefulSets, and of
 * candidate claims (their Unused condition): a re-check lists those again.
 */
export function holderNamespaces(decisions: readonly Decision[]): { pods: string[]; statefulSets: string[]; claims: string[] } {
  const pods = new Set<string>();
  const statefulSets = new Set<string>();
  const claims = new Set<string>();
  for (const decision of decisions) {
    if (decision.action !== 'delete') continue;
    const { reads } = collectorOf(decision.target.kind);
    if (reads.pods) pods.add(decision.target.namespace);
    if (reads.statefulSets) statefulSets.add(decision.target.namespace);
    if (decision.target.kind === 'PersistentVolumeClaim') claims.add(decision.target.namespace);
  }
  return { pods: [...pods], statefulSets: [...statefulSets], claims: [...claims] };
}

/**
 * Decides again on a fresh view. Only ever turns a delete into a keep: a target is deleted
 * only when every decision made in the pass would delete it, and then with the fresh
 * decision's message and references (what the delete stood on).
 */
export function redecide(policy: Policy, view: ClusterView, decisions: readonly Decision[], now: Date, only?: ReadonlySet<string>): Decision[] {
  // A target the phase may not delete is decided on as what it is to the others, a holder: a
  // StatefulSet outside `only` survives the pass, so it still holds the claims it names. A run
  // stays whatever `only` says: its place in its group's history counts every run of the group.
  const acted = only === undefined ? view : { ...view, targets: view.targets.filter((target) => only.has(target.uid) || target.run !== undefined) };
  const again = new Map(decideBounded(acted, policy, now).map((decision) => [decision.target.uid, decision]));
  // --selector: a run read again whose labels no longer match it is no target now, and has no fresh decision.
  const stillListed = policy.runs?.selector === undefined ? undefined : new Set(view.targets.filter((target) => target.run !== undefined).map((target) => target.uid));
  return decisions.map((decision) => {
    const latest = again.get(decision.target.uid);
    // A decision the phase may not act on (`only`) stays as it was reported.
    if (decision.action !== 'delete' || (only !== undefined && !only.has(decision.target.uid))) return decision;
    if (latest === undefined) {
      // Its DELETE names the version decided on, which its new labels replaced: the API server refuses it (409, `changed`).
      if (stillListed?.has(decision.target.uid) === true) return { ...decision, message: `${decision.message}; but its labels no longer match --selector (seen when re-checking before deleting)` };
      return decision;
    }
    if (latest.action === 'delete') return latest;
    return { ...latest, message: `${latest.message} (seen when re-checking before deleting)` };
  });
}

export function candidateNamespaces(decisions: readonly Decision[]): string[] {
  return [...new Set(decisions.filter((d) => d.action === 'delete').map((d) => d.target.namespace))];
}

export interface DeletePhase {
  policy: Policy;
  scope: Scope;
  /** The view the decisions were last made on. */
  view: DatedView;
  decisions: readonly Decision[];
  /**
   * --qps, --concurrency, the attempts one delete gets (--max-retries + 1), and the failures
   * of one kind in a row that stop the phase (--max-consecutive-failures; 0: never).
   */
  limits: { qps: number; concurrency: number; maxAttempts: number; maxConsecutiveFailures: number };
  /** When set, only these uids may be deleted (`apply`: the plan's unchanged entries). */
  only?: ReadonlySet<string>;
  /** --pvc-finalizer: `purge` removes kubernetes.io/pvc-protection from a deleted claim no running Pod names. */
  pvcFinalizer?: 'keep' | 'purge';
}

export interface DeletePhaseOutcome {
  decisions: Decision[];
  results: Map<string, Result>;
  errors: string[];
  /** The breaker stopped the phase: what tripped it, and how many candidates were skipped. */
  breaker?: ReportBreaker;
}

/** What became of the delete attempts of one candidate that were refused. */
interface Refusals {
  count: number;
  firstAt: number;
  last: string;
  /** The last refusal itself: the breaker reads its status and reason. */
  lastError: unknown;
  /**
   * An attempt may have reached the server and been acted on (no answer, a 5xx): the
   * candidate may be gone by our own hand. Only a 429 is refused before anything is done.
   */
  uncertain: boolean;
}

/**
 * Deletes at most `qps` per second with at most `concurrency` in flight. Each start is
 * given a slot 1/qps after the previous one, so the rate holds however long a delete takes.
 * Before each attempt the view is refreshed when it is older than RECHECK_INTERVAL_MS, and a
 * candidate that is no longer collectable is kept; if a refresh fails, no delete starts
 * after it. A refused delete (throttled, a server error, no answer) goes back to the queue
 * with a backoff and is tried again like any other: on a fresh view.
 */
export async function deleteCandidates(deps: DeletePhaseDeps, apis: ServedApis, phase: DeletePhase): Promise<DeletePhaseOutcome> {
  const candidates = phase.decisions.filter((decision) => decision.action === 'delete' && (phase.only?.has(decision.target.uid) ?? true));
  const deleter = new Deleter(deps, apis, phase, candidates.length);
  // A target already Terminating is sent nothing (but a claim's finalizer under purge): it is reported as it is.
  for (const decision of candidates) {
    if (sentNothing(decision.target, deleter.purge ? 'purge' : 'keep')) deleter.settleTerminating(decision, 'already being deleted: no second DELETE is sent');
  }
  await deleter.deleteByCollector(candidates.filter((decision) => !deleter.results.has(decision.target.uid)));
  deleter.skipRest(candidates);
  return deleter.outcome();
}

/**
 * One delete phase's state: what each candidate came to (its result, a note, what holds it),
 * the refused attempts of each, and the slot the next delete starts in. The decisions
 * themselves, and the view they stand on, are Freshness's.
 */
class Deleter {
  readonly results = new Map<string, Result>();
  /** --pvc-finalizer purge. */
  readonly purge: boolean;
  private readonly notes = new Map<string, string>();
  private readonly heldBy = new Map<string, readonly Holder[]>();
  private readonly refusals = new Map<string, Refusals>();
  private readonly fresh: Freshness;
  private readonly breaker: Breaker;
  /** Set by skipRest when the breaker stopped the phase with candidates left. */
  private stopped: ReportBreaker | undefined;
  /** Milliseconds between two starts: 1/qps. */
  private readonly interval: number;
  private readonly random: () => number;
  /** Epoch milliseconds at which the next delete may start. */
  private nextSlot: number;

  constructor(
    private readonly deps: DeletePhaseDeps,
    private readonly apis: ServedApis,
    private readonly phase: DeletePhase,
    /** How many candidates the phase has, for the progress line. */
    private readonly total: number,
  ) {
    this.fresh = new Freshness(deps, apis, phase, this.results);
    this.interval = 1000 / phase.limits.qps;
    this.random = deps.random ?? Math.random;
    this.purge = phase.pvcFinalizer === 'purge';
    this.breaker = new Breaker(phase.limits.maxConsecutiveFailures);
    this.nextSlot = this.now();
  }

  /**
   * Collector by collector, in delete order: a StatefulSet is gone (or known to stay) before
   * the claims it names are re-checked, on a view read after it settled.
   */
  async deleteByCollector(candidates: readonly Decision[]): Promise<void> {
    for (const [index, group] of deleteGroups(candidates).entries()) {
      if (this.stopping()) break;
      if (index > 0) this.fresh.expire();
      const queue = new DeleteQueue(group);
      await Promise.all(Array.from({ length: Math.min(this.phase.limits.concurrency, group.length) }, () => this.work(queue)));
    }
  }

  /** The decisions as last made, each with what became of it said in its message. */
  outcome(): DeletePhaseOutcome {
    const decisions = this.fresh.decisions.map((decision) => {
      const uid = decision.target.uid;
      const note = this.notes.get(uid) ?? unsettledNote(this.refusals.get(uid), this.results.has(uid));
      const holders = this.heldBy.get(uid);
      if (holders === undefined && note === undefined) return decision;
      return amendDecision(decision, { ...(holders !== undefined && { heldBy: holders }), ...(note !== undefined && { message: `${decision.message}; ${note}` }) });
    });
    const trip = this.breaker.tripped;
    const errors = [...(this.fresh.error === undefined ? [] : [this.fresh.error]), ...(this.stopped === undefined || trip === undefined ? [] : [breakerError(trip, this.stopped, this.breaker.limit)])];
    return { decisions, results: this.results, errors, ...(this.stopped !== undefined && { breaker: this.stopped }) };
  }

  /**
   * After the breaker tripped: every candidate not settled that a fresh decision still
   * deletes is `skipped`, its message saying why (with its earlier refusals, if any). A
   * breaker that tripped on the last candidate stopped nothing and is not reported.
   */
  skipRest(candidates: readonly Decision[]): void {
    const trip = this.breaker.tripped;
    if (trip === undefined) return;
    const wanted = new Set(this.fresh.decisions.filter((decision) => decision.action === 'delete').map((decision) => decision.target.uid));
    const rest = candidates.filter((decision) => !this.results.has(decision.target.uid) && wanted.has(decision.target.uid));
    if (rest.length === 0) return;
    const why = `skipped: the breaker stopped the delete phase after ${describeTrip(trip)} (--max-consecutive-failures ${this.breaker.limit})`;
    for (const decision of rest) {
      const uid = decision.target.uid;
      const refused = unsettledNote(this.refusals.get(uid), false);
      this.results.set(uid, 'skipped');
      this.notes.set(uid, refused === undefined ? why : `${refused}; ${why}`);
    }
    this.stopped = { status: trip.status, reason: trip.reason, failures: trip.failures, skipped: rest.length };
    this.deps.progress?.update({ stage: 'deleting', done: this.results.size, total: this.total });
    this.deps.log.error({ status: trip.status, reason: trip.reason, failures: trip.failures, skipped: rest.length, err: trip.last }, 'the breaker stopped the delete phase');
  }

  /** A claim that remains after its DELETE (or was Terminating already): what holds it is said. */
  settleTerminating(decision: Decision, note?: string, holders: readonly Holder[] = this.fresh.podsNaming(decision.target)): void {
    if (holders.length > 0) this.heldBy.set(decision.target.uid, holders);
    this.settle(decision, 'terminating', note);
  }

  /** One worker of `concurrency`: each candidate at its slot, on a view fresh enough, until the queue is empty or the phase stops. */
  private async work(queue: DeleteQueue): Promise<void> {
    for (;;) {
      if (this.stopping()) return;
      const next = queue.take(this.now());
      if (next === undefined) return;
      await this.waitForSlot(next.notBefore);
      // The breaker may trip while this one waits for its slot or its view: then it is skipped, not sent.
      if (this.stopping()) return;
      const wanted = await this.stillWanted(next.decision);
      if (this.stopping()) return;
      if (wanted === 'failed') continue;
      if (!wanted) {
        const refused = this.refusals.get(next.decision.target.uid);
        // Kept by a fresh decision after an attempt that may have acted: say what is true.
        if (refused?.uncertain === true && !this.fresh.hasFailed()) await this.settleLostAnswer(next.decision, refused, false);
        continue;
      }
      await this.attempt(next.decision, queue);
    }
  }

  /**
   * Whether a fresh decision still deletes the candidate. A target a rerun by name finds by name
   * (its collector's `rerunFinds`) is checked once more right before its DELETE: a run of a name
   * that rerun would have, which the view does not hold, was created since the view was read, up
   * to RECHECK_INTERVAL_MS ago, and may be finding it now. Then the view is read again and the
   * candidate decided on that. `failed`: those runs could not be read, and it was not deleted.
   */
  private async stillWanted(decision: Decision): Promise<boolean | 'failed'> {
    if (!(await this.fresh.stillCollectable(decision))) return false;
    const finds = collectorOf(decision.target.kind).rerunFinds;
    if (finds === undefined) return true;
    let unseen: boolean;
    try {
      unseen = await this.fresh.hasUnseenRerun(decision.target, finds);
    } catch (error) {
      this.fail(decision, error, `not deleted: reading the runs a rerun by name would be before deleting failed: ${errorMessage(error)}`);
      return 'failed';
    }
    if (!unseen) return true;
    this.deps.log.info({ namespace: decision.target.namespace, name: decision.target.name }, 'a run a rerun by name would be was created since the view was read; deciding again');
    this.fresh.expire();
    return await this.fresh.stillCollectable(decision);
  }

  /** A refused delete waits out its backoff (or Retry-After); then every start takes the next slot. SIGTERM ends either wait at once. */
  private async waitForSlot(notBefore: number): Promise<void> {
    await this.deps.sleep(notBefore - this.now(), this.deps.signal);
    const slot = Math.max(this.nextSlot, this.now());
    this.nextSlot = slot + this.interval;
    await this.deps.sleep(slot - this.now(), this.deps.signal);
  }

  private async attempt(decision: Decision, queue: DeleteQueue): Promise<void> {
    const startedAt = this.now();
    const previous = this.refusals.get(decision.target.uid);
    // A claim Terminating already under purge: no second DELETE, only the finalizer (nothing else already Terminating gets here).
    if (decision.target.deletionTimestamp !== undefined) {
      await this.purgeProtection(decision, { resourceVersion: decision.target.resourceVersion, finalizers: [...(decision.target.finalizers ?? [])] }, false);
      return;
    }
    let deleted: TargetDeleteOutcome;
    try {
      deleted = await this.deps.cluster.deleteTarget(this.apis, decision.target, (previous?.count ?? 0) + 1);
    } catch (error) {
      await this.refused(decision, queue, error, previous, startedAt);
      return;
    }
    if (deleted.outcome !== 'terminating') {
      this.settle(decision, deleted.outcome);
    } else if (this.purge && deleted.remaining !== undefined && decision.target.kind === 'PersistentVolumeClaim') {
      await this.purgeProtection(decision, deleted.remaining, true);
    } else {
      this.settleTerminating(decision, `deleted; it stays Terminating while its finalizers (${deleted.remaining?.finalizers.join(', ') ?? ''}) hold it`);
    }
  }

  /** A refused DELETE: queued again after a backoff while it may be retried, else settled as failed (or as found, if it may have acted). */
  private async refused(decision: Decision, queue: DeleteQueue, error: unknown, previous: Refusals | undefined, startedAt: number): Promise<void> {
    const retryable = error instanceof KubeError && isRetryable(error);
    const refused: Refusals = {
      count: (previous?.count ?? 0) + 1,
      firstAt: previous?.firstAt ?? startedAt,
      last: errorMessage(error),
      lastError: error,
      uncertain: (previous?.uncertain ?? false) || (retryable && error.status !== 429),
    };
    this.refusals.set(decision.target.uid, refused);
    const delay = retryable ? retryDelayMs(DEFAULT_RETRY, refused.count, error.retryAfterMs, this.random) : 0;
    if (retryable && refused.count < this.phase.limits.maxAttempts && this.now() + delay - refused.firstAt <= RETRY_WINDOW_MS) {
      this.deps.log.warn(
        { namespace: decision.target.namespace, name: decision.target.name, attempt: refused.count, retryInMs: Math.round(delay), err: refused.last },
        'delete refused; it will be tried again, on a view of the runs re-checked if older than the re-check interval',
      );
      queue.retry(decision, this.now() + delay);
    } else if (refused.uncertain) {
      await this.settleLostAnswer(decision, refused, true);
    } else {
      this.fail(decision, error, `delete failed: ${refused.last}`);
    }
  }

  /**
   * --pvc-finalizer purge: the claim's Pods are listed again, and only when every one that
   * names it has Succeeded or Failed is kubernetes.io/pvc-protection removed, by a patch
   * guarded by the resourceVersion it was last seen with.
   */
  private async purgeProtection(decision: Decision, seen: Remaining, deleted: boolean): Promise<void> {
    const { target } = decision;
    let pods: PodRecord[];
    try {
      pods = (await this.deps.cluster.listPods(this.apis, this.phase.scope, [target.namespace], { recheck: true })).filter((pod) => pod.namespace === target.namespace && pod.claims.includes(target.name));
    } catch (error) {
      this.purgeFailed(decision, deleted, error);
      return;
    }
    const running = pods.filter((pod) => !isFinishedPod(pod));
    if (running.length > 0) {
      this.settleTerminating(decision, `kubernetes.io/pvc-protection kept: ${running.map((pod) => `Pod ${pod.name} is ${pod.phase ?? 'without a phase'}`).join(', ')}`, running.map(podHolder));
      return;
    }
    let purged: TargetDeleteOutcome;
    try {
      purged = await this.deps.cluster.purgeClaimProtection(this.apis, target, seen);
    } catch (error) {
      this.purgeFailed(decision, deleted, error);
      return;
    }
    if (purged.outcome === 'terminating') {
      this.settleTerminating(decision, `kubernetes.io/pvc-protection removed; other finalizers hold it: ${purged.remaining?.finalizers.join(', ') ?? ''}`, []);
    } else if (purged.outcome === 'gone') {
      // Gone before the patch: by our DELETE once its Pods released it, else by someone else's hand.
      this.settle(decision, deleted ? 'deleted' : 'gone');
    } else if (purged.outcome === 'changed') {
      this.settle(decision, 'changed', 'it changed after it was last seen, so kubernetes.io/pvc-protection was not removed');
    } else {
      this.settle(decision, 'deleted', 'kubernetes.io/pvc-protection removed');
    }
  }

  private purgeFailed(decision: Decision, deleted: boolean, error: unknown): void {
    const what = deleted ? 'deleted, but removing kubernetes.io/pvc-protection failed' : 'removing kubernetes.io/pvc-protection failed';
    this.fail(decision, error, `${what}: ${errorMessage(error)}`);
  }

  /** After an attempt whose answer was lost: whether the candidate is still there, and what to report. */
  private async settleLostAnswer(decision: Decision, refused: Refusals, stillWanted: boolean): Promise<void> {
    let there: boolean;
    try {
      const current = await this.deps.cluster.readTarget(this.apis, decision.target.namespace, decision.target.name, decision.target.kind);
      there = current !== null && current.uid === decision.target.uid;
    } catch (error) {
      this.fail(decision, refused.lastError, `delete failed: ${refused.last}; it may have been deleted, and reading it again failed: ${errorMessage(error)}`);
      return;
    }
    if (!there) {
      this.settle(decision, 'gone', `an earlier delete attempt got no answer (${refused.last}) and it is gone since`);
    } else if (stillWanted) {
      this.fail(decision, refused.lastError, `delete failed: ${refused.last}`);
    }
    // Still there and kept by a fresh decision: reported kept, as decided.
  }

  /** A failed delete (or finalizer removal): settled, and counted by the breaker with the error that decided it. */
  private fail(decision: Decision, error: unknown, note: string): void {
    this.breaker.failed(error, errorMessage(error));
    this.settle(decision, 'failed', note);
  }

  private settle(decision: Decision, result: Result, note?: string): void {
    // Gone, changed and kept leave the breaker's count as it is (breaker.ts).
    if (result === 'deleted' || result === 'terminating') this.breaker.succeeded();
    this.results.set(decision.target.uid, result);
    if (note !== undefined) this.notes.set(decision.target.uid, note);
    this.deps.progress?.update({ stage: 'deleting', done: this.results.size, total: this.total });
    logDeletion(this.deps.log, decision, result, note);
  }

  /** No new delete starts: SIGTERM, a failed re-check, or the breaker. */
  private stopping(): boolean {
    return isAborted(this.deps.signal) || this.fresh.hasFailed() || this.breaker.tripped !== undefined;
  }

  private now(): number {
    return this.deps.now().getTime();
  }
}

/** The pass-level error of a phase the breaker stopped. */
function breakerError(trip: BreakerTrip, stopped: ReportBreaker, limit: number): string {
  const skipped = stopped.skipped === 1 ? '1 candidate was skipped' : `${stopped.skipped} candidates were skipped`;
  return `the breaker stopped the delete phase: ${describeTrip(trip)} (--max-consecutive-failures ${limit}), so ${skipped}; the last: ${trip.last}`;
}

/** The candidates of each collector, in COLLECTOR_NAMES order (the delete order), each group in the order given. */
function deleteGroups(candidates: readonly Decision[]): Decision[][] {
  return COLLECTOR_NAMES.map((name) => candidates.filter((decision) => collectorOf(decision.target.kind).name === name)).filter((group) => group.length > 0);
}

/** A Pod that has finished no longer needs its claims (no phase: it may still start). */
function isFinishedPod(pod: PodRecord): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

function podHolder(pod: PodRecord): Holder {
  return pod.phase === undefined ? { kind: 'Pod', name: pod.name } : { kind: 'Pod', name: pod.name, phase: pod.phase };
}

/** A candidate left untried (SIGTERM, a failed re-check) after refused attempts says so. */
function unsettledNote(refused: Refusals | undefined, settled: boolean): string | undefined {
  if (refused === undefined || settled) return undefined;
  const tries = `delete refused ${refused.count} time${refused.count === 1 ? '' : 's'} (last: ${refused.last}) and not tried again`;
  return refused.uncertain ? `${tries}; an attempt got no answer, so it may have been deleted` : tries;
}

/** Candidates in order, and refused ones waiting for their next attempt. */
class DeleteQueue {
  private next = 0;
  private readonly waiting: { decision: Decision; notBefore: number }[] = [];

  constructor(private readonly candidates: readonly Decision[]) {}

  /** A refused delete whose wait is over first; then the next candidate; then the refused one due soonest. */
  take(now: number): { decision: Decision; notBefore: number } | undefined {
    if ((this.waiting[0]?.notBefore ?? Infinity) <= now) return this.waiting.shift();
    const candidate = this.candidates[this.next];
    if (candidate !== undefined) {
      this.next++;
      return { decision: candidate, notBefore: now };
    }
    return this.waiting.shift();
  }

  retry(decision: Decision, notBefore: number): void {
    const at = this.waiting.findIndex((entry) => entry.notBefore > notBefore);
    this.waiting.splice(at === -1 ? this.waiting.length : at, 0, { decision, notBefore });
  }
}

/** The decisions of a delete phase, on a view never older than RECHECK_INTERVAL_MS when a delete starts; one refresh at a time. */
class Freshness {
  decisions: Decision[];
  /** Set when a refresh failed: no delete starts after it. */
  error: string | undefined;
  private byUid: Map<string, Decision>;
  private dated: DatedView;
  private refreshing: Promise<void> | undefined;
  private lastRefreshMs: number;
  /** Bumped by expire(): a view read before the latest bump is stale, however young. */
  private generation = 0;
  /** The view's PipelineRuns by namespace, as parents (pipelineRunsOf); emptied when the view is read again. */
  private parents = new Map<string, ParentNames>();
  private datedGeneration = 0;

  constructor(
    private readonly deps: DeletePhaseDeps,
    private readonly apis: ServedApis,
    private readonly phase: DeletePhase,
    /** The delete phase's results so far: settled targets leave the view a re-check decides on. */
    private readonly settled: ReadonlyMap<string, unknown>,
  ) {
    this.decisions = [...phase.decisions];
    this.byUid = byUid(this.decisions);
    this.dated = phase.view;
    this.lastRefreshMs = phase.view.readMs;
  }

  /** The next delete waits for a view read after now (an earlier collector's deletes have all settled). */
  expire(): void {
    this.generation++;
  }

  /** The Pods of the current view that name a claim, as a report shows what holds it. */
  podsNaming(target: Pick<TargetRecord, 'kind' | 'namespace' | 'name'>): Holder[] {
    if (target.kind !== 'PersistentVolumeClaim') return [];
    return (this.dated.view.pods ?? []).filter((pod) => pod.namespace === target.namespace && pod.claims.includes(target.name)).map(podHolder);
  }

  /**
   * Whether a run a rerun by name would be (core/reruns.ts) exists that the current view does
   * not hold (by uid): a rerun created after the view was read. One metadata-only GET per name
   * and kind.
   */
  async hasUnseenRerun(target: TargetRecord, finds: RerunFinds): Promise<boolean> {
    const known = new Set(this.dated.view.runs.map((run) => run.uid));
    for (const { kind, name } of rerunReads(target, finds, () => this.pipelineRunsOf(target.namespace))) {
      const runs = await this.deps.cluster.runsNamed(this.apis, target.namespace, name, [kind]);
      if (runs.some((run) => !known.has(run.uid))) return true;
    }
    return false;
  }

  /** The names of the current view's PipelineRuns in a namespace, as parents: built once per view and namespace. */
  private pipelineRunsOf(namespace: string): ParentNames {
    let names = this.parents.get(namespace);
    if (names === undefined) {
      names = new ParentNames(this.dated.view.runs.filter((run) => run.kind === 'PipelineRun' && run.namespace === namespace).map((run) => run.name));
      this.parents.set(namespace, names);
    }
    return names;
  }

  /** Whether a refresh failed, read now: `error` tested before an await stays narrowed after it for TypeScript. */
  hasFailed(): boolean {
    return this.error !== undefined;
  }

  /** False when the candidate is no longer to be deleted, or nothing may be deleted any more. */
  async stillCollectable(decision: Decision): Promise<boolean> {
    for (let refreshes = 0; this.ageMs() > RECHECK_INTERVAL_MS || this.datedGeneration < this.generation; refreshes++) {
      if (this.error !== undefined || this.deps.signal.aborted) return false;
      if (refreshes >= MAX_STALE_REFRESHES) {
        this.fail(
          `re-checks take longer than the re-check interval of ${RECHECK_INTERVAL_MS / 1000} s (the last took ${(this.lastRefreshMs / 1000).toFixed(1)} s), so no delete started after them; narrow the pass with --namespace`,
        );
        return false;
      }
      await this.refresh();
    }
    if (this.error !== undefined) return false;
    if (this.ageMs() + this.lastRefreshMs + PREFETCH_MARGIN_MS > RECHECK_INTERVAL_MS) {
      void this.refresh();
    }
    return this.byUid.get(decision.target.uid)?.action === 'delete';
  }

  private ageMs(): number {
    return this.deps.now().getTime() - this.dated.readAt;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    const pending = this.decisions.filter((decision) => decision.action === 'delete');
    const generation = this.generation;
    try {
      const dated = await refreshView(this.deps, this.apis, this.dated, {
        scope: this.phase.scope,
        namespaces: candidateNamespaces(pending),
        holders: holderNamespaces(pending.filter((decision) => !this.settled.has(decision.target.uid))),
        settled: new Set(this.settled.keys()),
      });
      this.dated = dated;
      this.parents = new Map();
      this.datedGeneration = generation;
      this.lastRefreshMs = dated.readMs;
      this.decisions = redecide(this.phase.policy, dated.view, this.decisions, this.deps.now(), this.phase.only);
      this.byUid = byUid(this.decisions);
    } catch (error) {
      // Stopped by SIGTERM: no delete starts after it anyway, and the pass says why.
      if (error instanceof Interrupted) return;
      this.fail(`re-check during the delete phase failed, no delete started after it: ${errorMessage(error)}`);
    }
  }

  private fail(message: string): void {
    if (this.error !== undefined) return;
    this.error = message;
    this.deps.log.error({ err: message }, 'no more deletes in this pass');
  }
}

function byUid(decisions: readonly Decision[]): Map<string, Decision> {
  return new Map(decisions.map((decision) => [decision.target.uid, decision]));
}

function logDeletion(log: Logger, decision: Decision, result: Result, note: string | undefined): void {
  const fields = {
    kind: decision.target.kind,
    namespace: decision.target.namespace,
    name: decision.target.name,
    uid: decision.target.uid,
    reason: decision.reason,
    result,
  };
  if (result === 'failed') {
    log.error({ ...fields, err: note }, 'delete failed');
  } else {
    const said = result === 'deleted' ? 'deleted' : result === 'terminating' ? 'terminating: a finalizer holds it' : `not deleted: ${result}`;
    log.info(note === undefined ? fields : { ...fields, note }, said);
  }
}

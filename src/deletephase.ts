/**
 * The delete phase of a live pass: candidates deleted at --qps with bounded concurrency,
 * each on a view of the runs no older than RECHECK_INTERVAL_MS, and a refused delete tried
 * again only on such a view.
 */
import type { ClusterView, Decision, Policy, RunRecord } from './core/types.js';
import { decideBounded, logReadProblems } from './decisions.js';
import type { KubeCluster, Scope, ServedApis } from './kube/cluster.js';
import { Interrupted, KubeError, isRetryable } from './kube/errors.js';
import { DEFAULT_RETRY, RETRY_WINDOW_MS, retryDelayMs } from './kube/http.js';
import type { Logger } from './log.js';
import { errorMessage } from './message.js';
import type { Progress } from './progress.js';
import type { Result } from './report/model.js';

/**
 * A delete phase lasts as long as the candidates take at --qps (1000 at 20 per second: 50 s).
 * A run created in that time that names a later candidate must save it, so no delete starts
 * on a view of the runs and namespaces whose first read began longer ago than this. What
 * remains is this interval plus the delete's own time in flight: a run created in it that
 * names the candidate fails to resolve it, as it would after any deletion by hand.
 * Kubernetes offers no precondition on other objects.
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
  cluster: Pick<KubeCluster, 'runsChangedSince' | 'readNamespaces' | 'deleteTarget' | 'readTarget'>;
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
}

/**
 * Reads again what the decision stands on and may have changed since `dated` was read: the
 * runs in the candidates' namespaces (new, changed or gone) and the namespaces' labels.
 * Targets are not read again: the delete's uid and resourceVersion preconditions refuse a
 * target that changed (409). The answer is dated by the clock before the first read.
 */
export async function refreshView(
  deps: Pick<DeletePhaseDeps, 'cluster' | 'now' | 'log'>,
  apis: ServedApis,
  dated: DatedView,
  pass: { scope: Scope; namespaces: readonly string[] },
): Promise<DatedView> {
  const readAt = deps.now().getTime();
  const { changed, goneUids } = await deps.cluster.runsChangedSince(apis, dated.view.runs, pass.namespaces, pass.scope);
  const namespaces = await deps.cluster.readNamespaces(pass.scope);
  if (changed.length > 0 || goneUids.size > 0) {
    deps.log.info({ changed: changed.length, gone: goneUids.size }, 'runs changed since the listing; deciding again');
  }
  logReadProblems(deps.log, changed);
  const changedUids = new Set(changed.map((run) => run.uid));
  const runs: RunRecord[] = [...dated.view.runs.filter((run) => !goneUids.has(run.uid) && !changedUids.has(run.uid)), ...changed];
  return { view: { targets: dated.view.targets, runs, namespaces }, readAt, readMs: deps.now().getTime() - readAt };
}

/**
 * Decides again on a fresh view. Only ever turns a delete into a keep: a target is deleted
 * only when every decision made in the pass would delete it, and then with the fresh
 * decision's message and references (what the delete stood on).
 */
export function redecide(policy: Policy, view: ClusterView, decisions: readonly Decision[], now: Date, only?: ReadonlySet<string>): Decision[] {
  const again = new Map(decideBounded(view, policy, now).map((decision) => [decision.target.uid, decision]));
  return decisions.map((decision) => {
    const latest = again.get(decision.target.uid);
    // A decision the phase may not act on (`only`) stays as it was reported.
    if (decision.action !== 'delete' || latest === undefined || (only !== undefined && !only.has(decision.target.uid))) return decision;
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
  /** --qps, --concurrency, and the attempts one delete gets (--max-retries + 1). */
  limits: { qps: number; concurrency: number; maxAttempts: number };
  /** When set, only these uids may be deleted (`apply`: the plan's unchanged entries). */
  only?: ReadonlySet<string>;
}

export interface DeletePhaseOutcome {
  decisions: Decision[];
  results: Map<string, Result>;
  errors: string[];
}

/** What became of the delete attempts of one candidate that were refused. */
interface Refusals {
  count: number;
  firstAt: number;
  last: string;
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
  const queue = new DeleteQueue(phase.decisions.filter((decision) => decision.action === 'delete' && (phase.only?.has(decision.target.uid) ?? true)));
  const total = queue.size;
  const results = new Map<string, Result>();
  const notes = new Map<string, string>();
  const refusals = new Map<string, Refusals>();
  const fresh = new Freshness(deps, apis, phase);
  const interval = 1000 / phase.limits.qps;
  const random = deps.random ?? Math.random;
  const now = (): number => deps.now().getTime();
  let nextSlot = now();

  const settle = (decision: Decision, result: Result, note?: string): void => {
    results.set(decision.target.uid, result);
    if (note !== undefined) notes.set(decision.target.uid, note);
    deps.progress?.update({ stage: 'deleting', done: results.size, total });
    logDeletion(deps.log, decision, result, note);
  };

  /** After an attempt whose answer was lost: whether the candidate is still there, and what to report. */
  const settleLostAnswer = async (decision: Decision, refused: Refusals, stillWanted: boolean): Promise<void> => {
    let there: boolean;
    try {
      const current = await deps.cluster.readTarget(apis, decision.target.namespace, decision.target.name);
      there = current !== null && current.uid === decision.target.uid;
    } catch (error) {
      settle(decision, 'failed', `delete failed: ${refused.last}; it may have been deleted, and reading it again failed: ${errorMessage(error)}`);
      return;
    }
    if (!there) {
      settle(decision, 'gone', `an earlier delete attempt got no answer (${refused.last}) and it is gone since`);
    } else if (stillWanted) {
      settle(decision, 'failed', `delete failed: ${refused.last}`);
    }
    // Still there and kept by a fresh decision: reported kept, as decided.
  };

  const attempt = async (decision: Decision): Promise<void> => {
    const uid = decision.target.uid;
    const startedAt = now();
    const previous = refusals.get(uid);
    try {
      const outcome = await deps.cluster.deleteTarget(apis, decision.target, (previous?.count ?? 0) + 1);
      settle(decision, outcome);
      return;
    } catch (error) {
      const retryable = error instanceof KubeError && isRetryable(error);
      const refused: Refusals = {
        count: (previous?.count ?? 0) + 1,
        firstAt: previous?.firstAt ?? startedAt,
        last: errorMessage(error),
        uncertain: (previous?.uncertain ?? false) || (retryable && error.status !== 429),
      };
      refusals.set(uid, refused);
      const delay = retryable ? retryDelayMs(DEFAULT_RETRY, refused.count, error.retryAfterMs, random) : 0;
      if (retryable && refused.count < phase.limits.maxAttempts && now() + delay - refused.firstAt <= RETRY_WINDOW_MS) {
        deps.log.warn(
          { namespace: decision.target.namespace, name: decision.target.name, attempt: refused.count, retryInMs: Math.round(delay), err: refused.last },
          'delete refused; it will be tried again, on a view of the runs re-checked if older than the re-check interval',
        );
        queue.retry(decision, now() + delay);
        return;
      }
      if (refused.uncertain) {
        await settleLostAnswer(decision, refused, true);
      } else {
        settle(decision, 'failed', `delete failed: ${refused.last}`);
      }
    }
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (deps.signal.aborted || fresh.error !== undefined) return;
      const next = queue.take(now());
      if (next === undefined) return;
      // A refused delete waits out its backoff (or Retry-After); SIGTERM ends the wait at once.
      await deps.sleep(next.notBefore - now(), deps.signal);
      const slot = Math.max(nextSlot, now());
      nextSlot = slot + interval;
      await deps.sleep(slot - now(), deps.signal);
      if (deps.signal.aborted) return;
      const wanted = await fresh.stillCollectable(next.decision);
      if (deps.signal.aborted) return;
      if (!wanted) {
        const refused = refusals.get(next.decision.target.uid);
        // Kept by a fresh decision after an attempt that may have acted: say what is true.
        if (refused?.uncertain === true && fresh.error === undefined) await settleLostAnswer(next.decision, refused, false);
        continue;
      }
      await attempt(next.decision);
    }
  };
  await Promise.all(Array.from({ length: Math.min(phase.limits.concurrency, total) }, worker));

  const decisions = fresh.decisions.map((decision) => {
    const uid = decision.target.uid;
    const note = notes.get(uid) ?? unsettledNote(refusals.get(uid), results.has(uid));
    return note === undefined ? decision : { ...decision, message: `${decision.message}; ${note}` };
  });
  return { decisions, results, errors: fresh.error === undefined ? [] : [fresh.error] };
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

  get size(): number {
    return this.candidates.length;
  }

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

  constructor(
    private readonly deps: DeletePhaseDeps,
    private readonly apis: ServedApis,
    private readonly phase: DeletePhase,
  ) {
    this.decisions = [...phase.decisions];
    this.byUid = byUid(this.decisions);
    this.dated = phase.view;
    this.lastRefreshMs = phase.view.readMs;
  }

  /** False when the candidate is no longer to be deleted, or nothing may be deleted any more. */
  async stillCollectable(decision: Decision): Promise<boolean> {
    for (let refreshes = 0; this.ageMs() > RECHECK_INTERVAL_MS; refreshes++) {
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
    try {
      const dated = await refreshView(this.deps, this.apis, this.dated, { scope: this.phase.scope, namespaces: candidateNamespaces(pending) });
      this.dated = dated;
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
    namespace: decision.target.namespace,
    name: decision.target.name,
    uid: decision.target.uid,
    reason: decision.reason,
    result,
  };
  if (result === 'failed') {
    log.error({ ...fields, err: note }, 'delete failed');
  } else {
    log.info(note === undefined ? fields : { ...fields, note }, result === 'deleted' ? 'deleted' : `not deleted: ${result}`);
  }
}

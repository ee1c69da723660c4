import { decide } from './core/decide.js';
import { explain, scopeVerdict, type Explanation } from './core/explain.js';
import type { ClusterView, Decision, Policy, RunRecord, TargetRecord } from './core/types.js';
import type { Config, TargetName } from './config.js';
import type { DeleteOutcome } from './kube/api.js';
import type { KubeCluster, Scope, ServedApis } from './kube/cluster.js';
import { KubeError } from './kube/errors.js';
import type { EventfulResult } from './kube/events.js';
import type { Logger } from './log.js';
import type { Progress } from './progress.js';
import { buildReport } from './report/build.js';
import type { Report, Result } from './report/model.js';

/** What a pass needs from the outside world; tests and the CLI hand in real ones. */
export interface SweepDeps {
  cluster: Pick<KubeCluster, 'discover' | 'listTargets' | 'listRuns' | 'readNamespaces' | 'runsChangedSince' | 'deleteTarget'>;
  now: () => Date;
  log: Logger;
  /** Aborted by SIGTERM: no new delete starts after it. */
  signal: AbortSignal;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** --events: records one Event per deletion, would-be deletion or failed delete. */
  events?: { record(decision: Decision, result: EventfulResult, now: Date): Promise<void> };
  /** On a terminal: where the pass is. */
  progress?: Progress;
}

export type PassOutcome =
  | { kind: 'not-served' }
  | { kind: 'done'; report: Report; exitCode: 0 | 1 | 3 };

/** Exit statuses of SPEC.md section 4. */
const EXIT_OK = 0;
const EXIT_COULD_NOT_RUN = 1;
const EXIT_PARTIAL = 3;

/**
 * One pass, the only place that sequences I/O: discover, list targets then runs, decide,
 * re-check the candidates against runs changed since the listing, delete what is still
 * collectable. A dry run simply never reaches the deleter.
 */
export async function runPass(config: Config, deps: SweepDeps): Promise<PassOutcome> {
  const startedAt = deps.now();
  const scope: Scope = { namespaces: config.namespaces, excludeNamespaces: config.excludeNamespaces, selector: config.selector };
  const policy: Policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs, retainFor: config.retainFor };
  const finish = (fields: { runs: number; decisions: readonly Decision[]; results?: Map<string, Result>; errors?: string[] }): Report =>
    buildReport({
      dryRun: config.dryRun,
      startedAt,
      finishedAt: deps.now(),
      scope: config,
      runs: fields.runs,
      decisions: fields.decisions,
      results: fields.results ?? new Map(),
      errors: fields.errors ?? [],
    });

  let apis: ServedApis | null;
  let view: ClusterView;
  try {
    apis = await deps.cluster.discover();
    if (apis === null) {
      return { kind: 'not-served' };
    }
    view = await readCluster(deps, apis, scope);
  } catch (error) {
    // A partial view of the runs is never taken for the whole: nothing is decided or deleted.
    const message = errorMessage(error);
    deps.log.error({ err: message }, 'could not read the cluster; nothing deleted');
    return { kind: 'done', report: finish({ runs: 0, decisions: [], errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
  }

  const decisions = decideBounded(view, policy, deps.now());
  logWarnings(deps.log, decisions);
  const candidates = decisions.filter((decision) => decision.action === 'delete');
  if (config.dryRun || candidates.length === 0) {
    if (config.dryRun) await recordEvents(deps, candidates.map((decision) => ({ decision, result: 'would-delete' as const })));
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions }), exitCode: EXIT_OK };
  }
  if (candidates.length > config.maxDeletions) {
    const message = `the plan deletes ${candidates.length} targets, more than --max-deletions ${config.maxDeletions}: nothing was deleted`;
    deps.log.error({ candidates: candidates.length, maxDeletions: config.maxDeletions }, message);
    const results = new Map(candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted']));
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions, results, errors: [message] }), exitCode: EXIT_PARTIAL };
  }

  let final: Decision[];
  let fresh: ClusterView;
  try {
    deps.progress?.update({ stage: 're-checking', candidates: candidates.length });
    fresh = await refreshView(deps, apis, view, { scope, namespaces: candidateNamespaces(decisions) });
    final = redecide(deps, policy, fresh, decisions);
  } catch (error) {
    const message = `re-check before deleting failed, nothing was deleted: ${errorMessage(error)}`;
    deps.log.error({ err: errorMessage(error) }, 're-check failed; nothing deleted');
    const results = new Map(candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted']));
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions, results, errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
  }

  const deletion = await deleteCandidates(deps, apis, config, { policy, scope, view: fresh, decisions: final });
  await recordEvents(deps, eventfulResults(deletion.decisions, deletion.results));
  const errors = [
    ...(deps.signal.aborted ? ['the pass was interrupted (SIGTERM) before every delete was made'] : []),
    ...deletion.errors,
  ];
  const failed = [...deletion.results.values()].some((result) => result === 'failed');
  const exitCode = failed || errors.length > 0 ? EXIT_PARTIAL : EXIT_OK;
  return {
    kind: 'done',
    report: finish({ runs: view.runs.length, decisions: deletion.decisions, results: deletion.results, errors }),
    exitCode,
  };
}

/** Targets first, then runs: every run that existed before a target was listed is seen. */
async function readCluster(deps: SweepDeps, apis: ServedApis, scope: Scope): Promise<ClusterView> {
  deps.progress?.update({ stage: 'listing-targets' });
  const targets = await deps.cluster.listTargets(apis, scope);
  deps.progress?.update({ stage: 'listing-runs', targets: targets.length });
  const runs = await deps.cluster.listRuns(apis, scope);
  const namespaces = await deps.cluster.readNamespaces(scope);
  deps.progress?.update({ stage: 'deciding', targets: targets.length, runs: runs.length });
  deps.log.debug({ targets: targets.length, runs: runs.length, namespaces: namespaces.size }, 'cluster read');
  logReadProblems(deps.log, runs);
  return { targets: inScope(targets, scope), runs, namespaces };
}

/** Exclusions win even when a named namespace is also excluded. */
function inScope(targets: readonly TargetRecord[], scope: Scope): TargetRecord[] {
  const excluded = new Set(scope.excludeNamespaces);
  return targets.filter((target) => !excluded.has(target.namespace));
}

/**
 * Reads again what the decision stands on and may have changed since the listing: the runs
 * in the candidates' namespaces (new, changed or gone) and the namespaces' labels. Targets
 * are not read again: the delete's uid and resourceVersion preconditions refuse a target
 * that changed (409).
 */
async function refreshView(deps: SweepDeps, apis: ServedApis, view: ClusterView, pass: { scope: Scope; namespaces: readonly string[] }): Promise<ClusterView> {
  const { changed, goneUids } = await deps.cluster.runsChangedSince(apis, view.runs, pass.namespaces, pass.scope);
  const namespaces = await deps.cluster.readNamespaces(pass.scope);
  if (changed.length > 0 || goneUids.size > 0) {
    deps.log.info({ changed: changed.length, gone: goneUids.size }, 'runs changed since the listing; deciding again');
  }
  logReadProblems(deps.log, changed);
  const changedUids = new Set(changed.map((run) => run.uid));
  const runs: RunRecord[] = [...view.runs.filter((run) => !goneUids.has(run.uid) && !changedUids.has(run.uid)), ...changed];
  return { targets: view.targets, runs, namespaces };
}

/**
 * Decides again on a fresh view and keeps every candidate that is no longer collectable.
 * Only ever turns a delete into a keep: a target is deleted only when every decision made
 * in the pass would delete it.
 */
function redecide(deps: SweepDeps, policy: Policy, view: ClusterView, decisions: readonly Decision[]): Decision[] {
  const again = new Map(decideBounded(view, policy, deps.now()).map((decision) => [decision.target.uid, decision]));
  return decisions.map((decision) => {
    const latest = again.get(decision.target.uid);
    if (decision.action !== 'delete' || latest === undefined || latest.action === 'delete') {
      return decision;
    }
    return { ...latest, message: `${latest.message} (seen when re-checking before deleting)` };
  });
}

function candidateNamespaces(decisions: readonly Decision[]): string[] {
  return [...new Set(decisions.filter((d) => d.action === 'delete').map((d) => d.target.namespace))];
}

/**
 * A delete phase lasts as long as the candidates take at --qps (1000 at 20 per second: 50 s).
 * A run created in that time that names a later candidate must save it, so before a delete
 * the runs and namespaces are read again when the last read is older than this. What remains
 * is the time between the last read and the delete itself (this interval at most, plus one
 * delete's latency): a run created in it that names the candidate fails to resolve it, as it
 * would after any deletion by hand. Kubernetes offers no precondition on other objects.
 */
export const RECHECK_INTERVAL_MS = 5_000;

interface DeletePhase {
  policy: Policy;
  scope: Scope;
  /** The view the decisions were last made on. */
  view: ClusterView;
  decisions: readonly Decision[];
}

/**
 * Deletes at most `qps` per second with at most `concurrency` in flight. Each start is
 * given a slot 1/qps after the previous one, so the rate holds however long a delete takes.
 * Before each delete the view is refreshed when it is older than RECHECK_INTERVAL_MS, and a
 * candidate that is no longer collectable is kept; if the refresh fails, no delete starts
 * after it.
 */
async function deleteCandidates(
  deps: SweepDeps,
  apis: ServedApis,
  config: Pick<Config, 'qps' | 'concurrency'>,
  phase: DeletePhase,
): Promise<{ decisions: Decision[]; results: Map<string, Result>; errors: string[] }> {
  const queue = phase.decisions.filter((decision) => decision.action === 'delete');
  const results = new Map<string, Result>();
  const failures = new Map<string, string>();
  const fresh = new Freshness(deps, apis, phase);
  const interval = 1000 / config.qps;
  let nextSlot = deps.now().getTime();
  let next = 0;

  const worker = async (): Promise<void> => {
    while (next < queue.length && !deps.signal.aborted && fresh.error === undefined) {
      const decision = queue[next++] as Decision;
      const slot = Math.max(nextSlot, deps.now().getTime());
      nextSlot = slot + interval;
      await deps.sleep(slot - deps.now().getTime(), deps.signal);
      if (deps.signal.aborted || !(await fresh.stillCollectable(decision))) {
        continue;
      }
      const outcome = await deleteOne(deps, apis, decision.target);
      results.set(decision.target.uid, outcome.result);
      deps.progress?.update({ stage: 'deleting', done: results.size, total: queue.length });
      if (outcome.error !== undefined) {
        failures.set(decision.target.uid, outcome.error);
      }
      logDeletion(deps.log, decision, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency, queue.length) }, worker));

  const decisions = fresh.decisions.map((decision) => {
    const failure = failures.get(decision.target.uid);
    return failure === undefined ? decision : { ...decision, message: `${decision.message}; delete failed: ${failure}` };
  });
  return { decisions, results, errors: fresh.error === undefined ? [] : [fresh.error] };
}

/** The decisions of a delete phase, kept no older than RECHECK_INTERVAL_MS; one refresh at a time. */
class Freshness {
  decisions: Decision[];
  /** Set when a refresh failed: no delete starts after it. */
  error: string | undefined;
  private byUid: Map<string, Decision>;
  private view: ClusterView;
  private checkedAt: number;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly deps: SweepDeps,
    private readonly apis: ServedApis,
    private readonly phase: DeletePhase,
  ) {
    this.decisions = [...phase.decisions];
    this.byUid = byUid(this.decisions);
    this.view = phase.view;
    this.checkedAt = deps.now().getTime();
  }

  /** False when the candidate is no longer to be deleted, or nothing may be deleted any more. */
  async stillCollectable(decision: Decision): Promise<boolean> {
    if (this.deps.now().getTime() - this.checkedAt > RECHECK_INTERVAL_MS) {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = undefined;
      });
      await this.refreshing;
    }
    if (this.error !== undefined) return false;
    return this.byUid.get(decision.target.uid)?.action === 'delete';
  }

  private async refresh(): Promise<void> {
    const pending = this.decisions.filter((decision) => decision.action === 'delete');
    try {
      this.view = await refreshView(this.deps, this.apis, this.view, { scope: this.phase.scope, namespaces: candidateNamespaces(pending) });
      this.decisions = redecide(this.deps, this.phase.policy, this.view, this.decisions);
      this.byUid = byUid(this.decisions);
      this.checkedAt = this.deps.now().getTime();
    } catch (error) {
      this.error = `re-check during the delete phase failed, no delete started after it: ${errorMessage(error)}`;
      this.deps.log.error({ err: errorMessage(error) }, 're-check during the delete phase failed; no more deletes');
    }
  }
}

function byUid(decisions: readonly Decision[]): Map<string, Decision> {
  return new Map(decisions.map((decision) => [decision.target.uid, decision]));
}

async function deleteOne(
  deps: SweepDeps,
  apis: ServedApis,
  target: TargetRecord,
): Promise<{ result: Result; error?: string }> {
  try {
    const outcome: DeleteOutcome = await deps.cluster.deleteTarget(apis, target);
    return { result: outcome };
  } catch (error) {
    return { result: 'failed', error: errorMessage(error) };
  }
}

/** Deleted and failed deletes get an Event; gone, changed and aborted ones do not (nothing was done to them). */
function eventfulResults(decisions: readonly Decision[], results: ReadonlyMap<string, Result>): { decision: Decision; result: EventfulResult }[] {
  return decisions.flatMap((decision) => {
    const result = results.get(decision.target.uid);
    return result === 'deleted' || result === 'failed' ? [{ decision, result }] : [];
  });
}

/**
 * One Event per result, one at a time after the delete phase (they never slow a delete).
 * An Event that cannot be created is logged and never fails the pass: the report and the
 * logs still say what happened.
 */
async function recordEvents(deps: SweepDeps, items: readonly { decision: Decision; result: EventfulResult }[]): Promise<void> {
  const events = deps.events;
  if (events === undefined || items.length === 0) return;
  let failed = 0;
  let firstError = '';
  for (const [index, { decision, result }] of items.entries()) {
    deps.progress?.update({ stage: 'recording-events', done: index, total: items.length });
    try {
      await events.record(decision, result, deps.now());
    } catch (error) {
      failed++;
      firstError ||= errorMessage(error);
      deps.log.debug({ namespace: decision.target.namespace, name: decision.target.name, err: errorMessage(error) }, 'could not record an Event');
    }
  }
  deps.progress?.update({ stage: 'recording-events', done: items.length, total: items.length });
  if (failed > 0) deps.log.warn({ failed, events: items.length, err: firstError }, `could not record ${failed} of ${items.length} Events; the pass goes on`);
}

export type ExplainOutcome = { kind: 'not-served' } | { kind: 'not-found' } | { kind: 'done'; explanation: Explanation };

/**
 * `explain`: reads the target, the runs of its namespace and the namespace (never a list
 * across the cluster), and whether the selector matches it; the decision is the core's.
 */
export async function explainTarget(config: Config, name: TargetName, deps: Pick<SweepDeps, 'now'> & { cluster: Pick<KubeCluster, 'discover' | 'readTarget' | 'listRuns' | 'readNamespaces' | 'targetMatches'> }): Promise<ExplainOutcome> {
  const apis = await deps.cluster.discover();
  if (apis === null) return { kind: 'not-served' };
  const target = await deps.cluster.readTarget(apis, name.namespace, name.name);
  if (target === null) return { kind: 'not-found' };
  const only: Scope = { namespaces: [name.namespace], excludeNamespaces: [], selector: '' };
  const runs = await deps.cluster.listRuns(apis, only);
  const namespaces = await deps.cluster.readNamespaces(only);
  const selectorMatches = await deps.cluster.targetMatches(apis, target, config.selector);
  const policy: Policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs, retainFor: config.retainFor };
  const scope = scopeVerdict(config, name.namespace, selectorMatches);
  const explanation = explain({ target, runs, namespace: namespaces.get(name.namespace), scope }, policy, deps.now());
  return { kind: 'done', explanation };
}

function logDeletion(log: Logger, decision: Decision, outcome: { result: Result; error?: string }): void {
  const fields = {
    namespace: decision.target.namespace,
    name: decision.target.name,
    uid: decision.target.uid,
    reason: decision.reason,
    result: outcome.result,
  };
  if (outcome.error !== undefined) {
    log.error({ ...fields, err: outcome.error }, 'delete failed');
  } else {
    log.info(fields, outcome.result === 'deleted' ? 'deleted' : `not deleted: ${outcome.result}`);
  }
}

/** Longest found value shown in a log line: a fuzzed field can hold a megabyte. */
const MAX_PROBLEM_CHARS = 300;

/**
 * Longest message or warning a report item or log line carries. Messages quote the values
 * they could not parse, and an annotation may hold 256 KiB: a report stays readable.
 */
export const MAX_MESSAGE_CHARS = 1_000;

/** One line (a quoted value may hold line breaks) of at most MAX_MESSAGE_CHARS and a note. */
function bounded(text: string): string {
  const line = text.replace(/\r\n|\r|\n/g, '\\n');
  if (line.length <= MAX_MESSAGE_CHARS) return line;
  const omitted = line.length - MAX_MESSAGE_CHARS;
  return `${line.slice(0, MAX_MESSAGE_CHARS)}… (${omitted} more characters)`;
}

/** decide(), with every message and warning bounded for the report and the logs. */
function decideBounded(view: ClusterView, policy: Policy, now: Date): Decision[] {
  return decide(view, policy, now).map((decision) => ({
    ...decision,
    message: bounded(decision.message),
    warnings: decision.warnings.map(bounded),
  }));
}

/**
 * Each run with fields it could not read, one warning naming the run, the fields and what
 * follows: unknown references keep its whole namespace, an unreadable status or owner counts
 * it as running.
 */
function logReadProblems(log: Logger, runs: readonly RunRecord[]): void {
  for (const run of runs) {
    if (run.problems.length === 0) continue;
    const fields = run.problems.map((p) => bounded(`${p.field}: ${p.problem}`).slice(0, MAX_PROBLEM_CHARS));
    const follows =
      run.references === null
        ? `what it names is unknown, so every target in namespace ${run.namespace || '(unknown: all of them)'} is kept`
        : 'it counts as running, so every target it names is kept';
    log.warn(
      { kind: run.kind, namespace: run.namespace, name: run.name, fields: run.problems.map((p) => p.field) },
      `could not read ${run.kind} ${run.namespace}/${run.name || '(unnamed)'}: ${fields.join('; ')}; ${follows}`,
    );
  }
}

function logWarnings(log: Logger, decisions: readonly Decision[]): void {
  for (const decision of decisions) {
    for (const warning of decision.warnings) {
      log.warn({ namespace: decision.target.namespace, name: decision.target.name }, warning);
    }
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof KubeError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}

import { breachText, capBreaches } from './caps.js';
import { DEFAULT_COLLECTORS, collectorOf, type Collector } from './core/collectors.js';
import { RUN_KINDS, RUN_KIND_NAMES } from './core/kinds.js';
import { PassedOverRuns, runsNeededBy, targetStrings } from './core/needed.js';
import { formatRetentionDuration } from './core/retention.js';
import { isExcluded } from './core/scope.js';
import type { ClusterView, Decision, Policy, TargetRecord } from './core/types.js';
import type { Config } from './config.js';
import { decideBounded, logReadProblems, logWarnings } from './decisions.js';
import { candidateNamespaces, deleteCandidates, holderNamespaces, redecide, refreshView, type DatedView } from './deletephase.js';
import type { KubeCluster, Scope, ServedApis } from './kube/cluster.js';
import { Interrupted } from './kube/errors.js';
import { MAX_EVENTS_PER_PASS, planEvents, type EventfulResult, type PlannedEvent } from './kube/events.js';
import type { Logger } from './log.js';
import { errorMessage } from './message.js';
import { buildPlan, restrictToPlan, unlistedDecision, type Plan, type PlanCluster, type PlanSettings } from './plan.js';
import type { Progress } from './progress.js';
import { buildReport } from './report/build.js';
import type { Report, ReportPlan, Result } from './report/model.js';
import { isAborted } from './signals.js';

/** What a pass needs from the outside world; tests and the CLI hand in real ones. */
export interface SweepDeps {
  cluster: Pick<
    KubeCluster,
    'discover' | 'listTargets' | 'listRuns' | 'listPods' | 'listStatefulSets' | 'readNamespaces' | 'runsChangedSince' | 'deleteTarget' | 'readTarget' | 'purgeClaimProtection'
  >;
  now: () => Date;
  log: Logger;
  /** Aborted by SIGTERM: no new delete starts after it, and no backoff wait goes on. */
  signal: AbortSignal;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** --events: records the Events planEvents picks (KubeEvents). */
  events?: { record(event: PlannedEvent, now: Date): Promise<void> };
  /** On a terminal: where the pass is. */
  progress?: Progress;
}

export type PassOutcome =
  /** No collector that is on can run on this cluster: `lines` say why, one each. */
  | { kind: 'not-served'; lines: string[] }
  /** `plan`: what a dry run asked to write down (PassPlans.write) decided for deletion. */
  | { kind: 'done'; report: Report; exitCode: 0 | 1 | 3; plan?: Plan };

/** Plans in a pass: a dry run writes one down; `apply` deletes at most what one lists. */
export interface PassPlans {
  /** A dry run answers its plan (PassOutcome.plan), made for this cluster, to be written to `file`. */
  write?: { cluster: PlanCluster; file: string };
  /** The pass deletes only this plan's entries that are unchanged and still collectable. */
  apply?: { plan: Plan; file: string };
}

/** Exit statuses of docs/spec.md ("Exit status"). */
const EXIT_OK = 0;
const EXIT_COULD_NOT_RUN = 1;
const EXIT_PARTIAL = 3;

const INTERRUPTED_BEFORE_EVERY_DELETE = 'the pass was interrupted (SIGTERM) before every delete was made';

/**
 * Below this, --min-age is allowed but warned about: Tekton resolves a run's references a
 * few seconds after the run is created, and a younger target may not be named by it yet.
 */
export const MIN_AGE_WARNING_MS = 60_000;

/**
 * One pass, the only place that sequences I/O: discover, list targets then runs, decide,
 * re-check the candidates against runs changed since the listing, delete what is still
 * collectable. A dry run simply never reaches the deleter.
 */
export async function runPass(config: Config, deps: SweepDeps, plans: PassPlans = {}): Promise<PassOutcome> {
  const startedAt = deps.now();
  const scope: Scope = { namespaces: config.namespaces, excludeNamespaces: config.excludeNamespaces, selector: config.selector, namespaceSelector: config.namespaceSelector };
  const policy: Policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs, retainFor: config.retainFor };
  const warnings = configWarnings(config);
  let reportPlan: ReportPlan | undefined =
    plans.apply === undefined ? undefined : { mode: 'applied', file: plans.apply.file, digest: plans.apply.plan.digest, entries: plans.apply.plan.entries.length };
  const finish = (fields: { runs: number; decisions: readonly Decision[]; results?: Map<string, Result>; errors?: string[] }): Report =>
    buildReport({
      ...(reportPlan !== undefined && { plan: reportPlan }),
      dryRun: config.dryRun,
      startedAt,
      finishedAt: deps.now(),
      scope: config,
      runs: fields.runs,
      decisions: fields.decisions,
      results: fields.results ?? new Map(),
      warnings,
      errors: fields.errors ?? [],
    });

  const couldNotRead = (error: unknown): PassOutcome => {
    // A partial view of the runs is never taken for the whole: nothing is decided or deleted.
    const message = readFailure(error);
    deps.log.error({ err: message }, 'could not read the cluster; nothing deleted');
    return { kind: 'done', report: finish({ runs: 0, decisions: [], errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
  };
  let apis: ServedApis;
  try {
    apis = await deps.cluster.discover(config.collect);
  } catch (error) {
    return couldNotRead(error);
  }
  if (Object.keys(apis.targets).length === 0) {
    return { kind: 'not-served', lines: apis.skipped.map((skip) => skip.why) };
  }
  warnings.push(...apis.skipped.map((skip) => skip.why), ...unservedRunKinds(apis));
  const decided = await readAndDecide(deps, apis, scope, policy, { recheck: !config.dryRun });
  if (decided.kind === 'unreadable') return couldNotRead(decided.error);
  for (const warning of warnings) deps.log.warn(warning);

  const { decidedAt, runsRead } = decided;
  let decisions = decided.decisions;
  logWarnings(deps.log, decisions);
  // `apply`: only the plan's entries, each deleted only if unchanged and still collectable.
  const known = new Map<string, Result>();
  let deletable: ReadonlySet<string> | undefined;
  if (plans.apply !== undefined) {
    try {
      const planned = await applyPlan(deps, apis, plans.apply.plan, decisions);
      ({ decisions, deletable } = planned);
      for (const [uid, result] of planned.results) known.set(uid, result);
    } catch (error) {
      const message = readFailure(error);
      deps.log.error({ err: message }, 'could not read the planned targets; nothing deleted');
      return { kind: 'done', report: finish({ runs: runsRead, decisions: [], errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
    }
  }
  const candidates = decisions.filter((decision) => decision.action === 'delete' && (deletable?.has(decision.target.uid) ?? true));
  const breaches = capBreaches(candidates, config);
  // A dry run is the pass that does not re-check (readAndDecide's `recheck`).
  if (decided.kind === 'decided' || candidates.length === 0) {
    for (const breach of config.dryRun ? breaches : []) {
      const what = breach.collector === undefined ? `its ${breach.count} candidates are` : `its ${breach.count} candidates of ${breach.collector} are`;
      const warning = `a live pass with these settings would delete nothing and exit 3: ${what} more than ${breach.flag}`;
      warnings.push(warning);
      deps.log.warn(breach.collector === undefined ? { candidates: breach.count, maxDeletions: breach.limit } : { candidates: breach.count, collector: breach.collector, maxDeletions: breach.limit }, warning);
    }
    if (config.dryRun) await recordEvents(deps, candidates.map((decision) => ({ decision, result: 'would-delete' as const })));
    const plan = config.dryRun && plans.write !== undefined ? buildPlan({ decisions, settings: planSettings(config), cluster: plans.write.cluster, createdAt: decidedAt }) : undefined;
    if (plan !== undefined && plans.write !== undefined) reportPlan = { mode: 'written', file: plans.write.file, digest: plan.digest, entries: plan.entries.length };
    return { kind: 'done', report: finish({ runs: runsRead, decisions, results: known }), exitCode: EXIT_OK, ...(plan !== undefined && { plan }) };
  }
  const [firstBreach] = breaches;
  if (firstBreach !== undefined) {
    // Each cap counts a DELETE, or the finalizer removal of a claim already Terminating (caps.ts).
    const message = `the plan deletes ${breaches.map(breachText).join(', and ')}: nothing was deleted`;
    deps.log.error(breaches.length === 1 && firstBreach.collector === undefined ? { candidates: firstBreach.count, maxDeletions: firstBreach.limit } : { breaches }, message);
    const results = new Map([...known, ...candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted'])]);
    return { kind: 'done', report: finish({ runs: runsRead, decisions, results, errors: [message] }), exitCode: EXIT_PARTIAL };
  }

  const allAborted = (): Map<string, Result> => new Map([...known, ...candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted'])]);
  const interrupted = (): PassOutcome => ({
    kind: 'done',
    report: finish({ runs: runsRead, decisions, results: allAborted(), errors: [INTERRUPTED_BEFORE_EVERY_DELETE] }),
    exitCode: EXIT_PARTIAL,
  });
  // SIGTERM while deciding: the re-check (a read of every candidate namespace) is not begun.
  if (deps.signal.aborted) return interrupted();
  let final: Decision[];
  let fresh: DatedView;
  try {
    deps.progress?.update({ stage: 're-checking', candidates: candidates.length });
    fresh = await refreshView(deps, apis, decided.listed, { scope, namespaces: candidateNamespaces(candidates), holders: holderNamespaces(candidates) });
    final = redecide(policy, fresh.view, decisions, deps.now(), deletable);
  } catch (error) {
    if (error instanceof Interrupted) return interrupted();
    const message = `re-check before deleting failed, nothing was deleted: ${errorMessage(error)}`;
    deps.log.error({ err: errorMessage(error) }, 're-check failed; nothing deleted');
    return { kind: 'done', report: finish({ runs: runsRead, decisions, results: allAborted(), errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
  }

  const deletion = await deleteCandidates(deps, apis, {
    policy,
    scope,
    view: fresh,
    decisions: final,
    limits: { qps: config.qps, concurrency: config.concurrency, maxAttempts: config.maxRetries + 1 },
    ...(deletable !== undefined && { only: deletable }),
    pvcFinalizer: config.pvcFinalizer,
  });
  for (const [uid, result] of known) if (!deletion.results.has(uid)) deletion.results.set(uid, result);
  await recordEvents(deps, eventfulResults(deletion.decisions, deletion.results));
  const errors = [
    ...(isAborted(deps.signal) ? [INTERRUPTED_BEFORE_EVERY_DELETE] : []),
    ...deletion.errors,
  ];
  const failed = [...deletion.results.values()].some((result) => result === 'failed');
  const exitCode = failed || errors.length > 0 ? EXIT_PARTIAL : EXIT_OK;
  return {
    kind: 'done',
    report: finish({ runs: runsRead, decisions: deletion.decisions, results: deletion.results, errors }),
    exitCode,
  };
}

/** The settings a plan records: those the decision depends on, so that `apply` decides as the dry run did. */
function planSettings(config: Config): PlanSettings {
  return {
    namespaces: [...config.namespaces],
    excludeNamespaces: [...config.excludeNamespaces],
    selector: config.selector,
    labelPrefix: config.labelPrefix,
    minAgeMs: config.minAgeMs,
    ...(config.retainFor !== undefined && { retainFor: formatRetentionDuration(config.retainFor) }),
    // Written only when not the default, so a plan of PipelineResources alone reads as one always did.
    ...(!sameCollectors(config.collect, DEFAULT_COLLECTORS) && { collect: [...config.collect] }),
  };
}

function sameCollectors(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

/**
 * The decisions restricted to a plan; a planned target the pass did not list is read by
 * name to tell gone from no longer selected.
 */
async function applyPlan(deps: SweepDeps, apis: ServedApis, plan: Plan, decisions: readonly Decision[]): Promise<{ decisions: Decision[]; deletable: ReadonlySet<string>; results: Map<string, Result> }> {
  const planned = restrictToPlan(plan, decisions);
  const all = [...planned.decisions];
  for (const entry of planned.unlisted) {
    const { decision, result } = unlistedDecision(entry, await deps.cluster.readTarget(apis, entry.namespace, entry.name, entry.kind));
    all.push(decision);
    planned.results.set(decision.target.uid, result);
  }
  deps.log.info({ plan: plan.digest, planned: plan.entries.length, deletable: planned.deletable.size, changed: [...planned.results.values()].filter((result) => result === 'changed').length, gone: [...planned.results.values()].filter((result) => result === 'gone').length }, 'applying a plan');
  return { decisions: all, deletable: planned.deletable, results: planned.results };
}

/** Why a read failed, for the report: a signal is said as one, anything else as it is. */
function readFailure(error: unknown): string {
  return error instanceof Interrupted ? `the pass was interrupted (SIGTERM) while reading the cluster, nothing was deleted: ${error.message}` : errorMessage(error);
}

/** Settings that are allowed but worth a line in the report. */
function configWarnings(config: Pick<Config, 'minAgeMs'>): string[] {
  if (config.minAgeMs >= MIN_AGE_WARNING_MS) return [];
  return [
    `--min-age ${config.minAgeMs / 1000}s is under a minute: Tekton resolves a run's references a few seconds after the run is created, so a target created for a run that is just starting may be deleted`,
  ];
}

/** A run kind this cluster does not serve has no runs; the report says it was not read rather than pass over it. */
function unservedRunKinds(apis: ServedApis): string[] {
  return RUN_KIND_NAMES.filter((kind) => apis.runs[kind] === undefined).map(
    (kind) => `${RUN_KINDS[kind].plural}.${RUN_KINDS[kind].group} is not served by this cluster: no ${kind}s were read, and none can name a target`,
  );
}

/**
 * Targets first, then runs: every run that existed before a target was listed is seen. Runs
 * are read only in the namespaces that hold targets in scope: a run names targets in its own
 * namespace only (core/kinds.ts, refs.ts), a target's ownerReferences never leave its
 * namespace, nor a child TaskRun's, so a run anywhere else cannot change a decision.
 */
async function readCluster(deps: SweepDeps, apis: ServedApis, scope: Scope, options: { recheck: boolean }): Promise<{ listed: DatedView; runsRead: number }> {
  const readAt = deps.now().getTime();
  deps.progress?.update({ stage: 'listing-targets' });
  const targets = inScope(await deps.cluster.listTargets(apis, scope), scope);
  deps.progress?.update({ stage: 'listing-runs', targets: targets.length });
  const targetNamespaces = [...new Set(targets.map((target) => target.namespace))].sort();
  // Runs no decision reads are counted and forgotten as they are read (core/needed.ts); a
  // pass that re-checks keeps their versions, to tell them from new runs.
  const passedOver = new PassedOverRuns(runsNeededBy(targets), { versions: options.recheck, strings: targetStrings(targets) });
  const runs = await deps.cluster.listRuns(apis, scope, targetNamespaces, passedOver);
  // Then what may hold a leftover, where targets whose rules read it are: never for PipelineResources alone.
  const pods = apis.pods === undefined ? undefined : await deps.cluster.listPods(apis, scope, namespacesWhere(targets, (collector) => collector.reads.pods));
  const statefulSets = apis.statefulSets === undefined ? undefined : await deps.cluster.listStatefulSets(apis, scope, namespacesWhere(targets, (collector) => collector.reads.statefulSets));
  const namespaces = await deps.cluster.readNamespaces(scope);
  const runsRead = runs.length + passedOver.count;
  deps.progress?.update({ stage: 'deciding', targets: targets.length, runs: runsRead });
  deps.log.debug({ targets: targets.length, runs: runsRead, runsKept: runs.length, targetNamespaces: targetNamespaces.length, namespaces: namespaces.size, ...(pods !== undefined && { pods: pods.length }), ...(statefulSets !== undefined && { statefulSets: statefulSets.length }) }, 'cluster read');
  logReadProblems(deps.log, runs);
  const view: ClusterView = { targets, runs, namespaces, ...(pods !== undefined && { pods }), ...(statefulSets !== undefined && { statefulSets }) };
  const listed: DatedView = { view, readAt, readMs: deps.now().getTime() - readAt, ...(passedOver.versions !== undefined && { passedOver: passedOver.versions }) };
  return { listed, runsRead };
}

/** What a pass read and decided: the listing itself is kept only for a pass that re-checks it before deleting. */
type Decided =
  | { kind: 'unreadable'; error: unknown }
  | { kind: 'decided'; decisions: Decision[]; decidedAt: Date; runsRead: number }
  | { kind: 'decided-to-recheck'; decisions: Decision[]; decidedAt: Date; runsRead: number; listed: DatedView };

/**
 * Reads the cluster and decides. A dry run never reads a run again: its runs' records are let
 * go when this returns, before the report's items are built, which can take their place.
 */
async function readAndDecide(deps: SweepDeps, apis: ServedApis, scope: Scope, policy: Policy, options: { recheck: boolean }): Promise<Decided> {
  let read: { listed: DatedView; runsRead: number };
  try {
    read = await readCluster(deps, apis, scope, options);
  } catch (error) {
    return { kind: 'unreadable', error };
  }
  const decidedAt = deps.now();
  const decisions = decideBounded(read.listed.view, policy, decidedAt);
  const { runsRead, listed } = read;
  return options.recheck ? { kind: 'decided-to-recheck', decisions, decidedAt, runsRead, listed } : { kind: 'decided', decisions, decidedAt, runsRead };
}

/** The namespaces, sorted, that hold targets of a collector `reads` picks. */
function namespacesWhere(targets: readonly TargetRecord[], reads: (collector: Collector) => boolean): string[] {
  return [...new Set(targets.filter((target) => reads(collectorOf(target.kind))).map((target) => target.namespace))].sort();
}

/** Exclusions win even when a named namespace is also excluded. */
function inScope(targets: readonly TargetRecord[], scope: Scope): TargetRecord[] {
  return targets.filter((target) => !isExcluded(scope, target.namespace));
}

/**
 * Deleted and failed deletes get an Event, and so does a claim this pass's DELETE left
 * Terminating; gone, changed and aborted ones do not, nor one that was Terminating already
 * (nothing was done to them).
 */
function eventfulResults(decisions: readonly Decision[], results: ReadonlyMap<string, Result>): { decision: Decision; result: EventfulResult }[] {
  return decisions.flatMap((decision) => {
    const result = results.get(decision.target.uid);
    if (result === 'terminating') return decision.target.deletionTimestamp === undefined ? [{ decision, result: 'deleted' as const }] : [];
    return result === 'deleted' || result === 'failed' ? [{ decision, result }] : [];
  });
}

/**
 * The Events planEvents picks (one per deletion or failed delete, one per namespace of a
 * dry run, at most MAX_EVENTS_PER_PASS), one at a time after the delete phase (they never
 * slow a delete). An Event that cannot be created is logged and never fails the pass:
 * the report and the logs still say what happened.
 */
async function recordEvents(deps: SweepDeps, items: readonly { decision: Decision; result: EventfulResult }[]): Promise<void> {
  const events = deps.events;
  if (events === undefined || items.length === 0) return;
  const plan = planEvents(items);
  if (plan.omitted > 0) {
    deps.log.info(
      { maxEvents: MAX_EVENTS_PER_PASS, omitted: plan.omitted },
      `recording ${MAX_EVENTS_PER_PASS} Events, the most a pass records; ${plan.omitted} more results have none (the report has them all)`,
    );
  }
  const total = plan.events.length;
  let failed = 0;
  let firstError = '';
  for (const [index, event] of plan.events.entries()) {
    deps.progress?.update({ stage: 'recording-events', done: index, total });
    try {
      await events.record(event, deps.now());
    } catch (error) {
      failed++;
      firstError ||= errorMessage(error);
      const about = event.kind === 'target' ? { namespace: event.decision.target.namespace, name: event.decision.target.name } : { namespace: event.namespace };
      deps.log.debug({ ...about, err: errorMessage(error) }, 'could not record an Event');
    }
  }
  deps.progress?.update({ stage: 'recording-events', done: total, total });
  if (failed > 0) deps.log.warn({ failed, events: total, err: firstError }, `could not record ${failed} of ${total} Events; the pass goes on`);
}

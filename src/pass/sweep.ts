import { breachText, capBreaches, sentNothing, type CapBreach } from './caps.js';
import { COLLECTORS, DEFAULT_COLLECTORS, collectorOf, isCollectorName, type Collector } from '../core/collectors.js';
import { SharedStrings, type RunTargetReading } from '../core/runtargets.js';
import { parseLabelSelector, selectorKeys } from '../core/labelselector.js';
import { RUN_KINDS, RUN_KIND_NAMES } from '../core/kinds.js';
import { PassedOverRuns, releasingOwners, runsNeededBy, targetStrings } from '../core/needed.js';
import { formatRetentionDuration } from '../core/retention.js';
import { PRUNER_NAMESPACE_CONFIGMAP, readPrunerConfig, withPrunerPolicy, type PrunerConfigRead } from '../core/prunerconfig.js';
import { isExcluded } from '../core/scope.js';
import type { ClusterView, Decision, Policy, TargetRecord } from '../core/types.js';
import type { Config, PassSettings } from '../cli/config.js';
import { decideBounded, logReadProblems, logWarnings } from './decisions.js';
import { candidateNamespaces, deleteCandidates, holderNamespaces, redecide, refreshView, type DatedView } from './deletephase.js';
import { readRunDependents } from './dependents.js';
import type { KubeCluster, Scope, ServedApis } from '../kube/cluster.js';
import { Interrupted } from '../kube/errors.js';
import { MAX_EVENTS_PER_PASS, planEvents, type EventfulResult, type PlannedEvent } from '../ops/events.js';
import type { Logger } from '../ops/log.js';
import { errorMessage } from './message.js';
import { buildPlan, planRunSettings, restrictToPlan, unlistedDecision, type Plan, type PlanCluster, type PlanSettings } from './plan.js';
import type { Progress } from '../ops/progress.js';
import { buildReport } from '../report/build.js';
import type { Report, ReportBreaker, ReportPlan, ReportUnreadableConfigMap, Result } from '../report/model.js';
import { isAborted } from '../process/signals.js';

/** What a pass needs from the outside world; tests and the CLI hand in real ones. */
export interface SweepDeps {
  cluster: Pick<
    KubeCluster,
    | 'discover'
    | 'listTargets'
    | 'listRuns'
    | 'listRetainedOwned'
    | 'listPods'
    | 'listStatefulSets'
    | 'listClaims'
    | 'readNamespaces'
    | 'runsChangedSince'
    | 'runsNamed'
    | 'deleteTarget'
    | 'readTarget'
    | 'purgeClaimProtection'
    | 'readPrunerConfigMaps'
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
export async function runPass(config: Config, settings: PassSettings, deps: SweepDeps, plans: PassPlans = {}): Promise<PassOutcome> {
  const pass: Pass = {
    config,
    deps,
    plans,
    startedAt: deps.now(),
    settings,
    warnings: configWarnings(settings, settings.prunerConfig !== undefined),
    unreadablePrunerConfigMaps: [],
  };
  return outcomeOf(pass, await sweep(pass));
}

/** What every step of a pass reads; `warnings` gathers the report's warnings as the steps find them. */
interface Pass {
  config: Config;
  deps: SweepDeps;
  plans: PassPlans;
  startedAt: Date;
  /** What the pass decides with (config.ts passSettings; apply's come from its plan). */
  settings: PassSettings;
  warnings: string[];
  /** --pruner-config's namespace ConfigMaps that apply and could not be read: their runs are kept, and the pass ends with exit 3. */
  unreadablePrunerConfigMaps: ReportUnreadableConfigMap[];
}

/** How a pass ended, early or after its deletes: data that outcomeOf alone turns into the outcome. */
type Ending =
  | Extract<PassOutcome, { kind: 'not-served' }>
  | { kind: 'ended'; exitCode: 0 | 1 | 3; runs: number; decisions: readonly Decision[]; results?: Map<string, Result>; errors?: string[]; plan?: Plan; breaker?: ReportBreaker };

/** The pass in its steps. Each step that may end it answers an Ending, which is handed on as it is. */
async function sweep(pass: Pass): Promise<Ending> {
  const served = await discover(pass);
  if (served.kind !== 'served') return served;
  const { apis } = served;
  const pruner = await readPrunerPolicies(pass);
  if (pruner !== undefined) return pruner;
  const decided = await readAndDecide(pass.deps, apis, pass.settings.scope, pass.settings.policy, { recheck: !pass.config.dryRun });
  if (decided.kind === 'unreadable') return couldNotRead(pass.deps, decided.error, 'could not read the cluster; nothing deleted', 0);
  for (const warning of pass.warnings) pass.deps.log.warn(warning);
  logWarnings(pass.deps.log, decided.decisions);
  const chosen = await chooseCandidates(pass, apis, decided);
  if (chosen.kind !== 'chosen') return chosen;
  // A dry run is the pass that does not re-check (readAndDecide's `recheck`).
  if (decided.kind === 'decided') return await dryRunEnding(pass, decided, chosen);
  if (chosen.candidates.length === 0) return { kind: 'ended', exitCode: EXIT_OK, runs: decided.runsRead, decisions: chosen.decisions, results: chosen.known };
  const overCap = capsExceeded(pass, chosen, decided.runsRead);
  if (overCap !== undefined) return overCap;
  const rechecked = await recheck(pass, apis, decided, chosen);
  if (rechecked.kind !== 'rechecked') return rechecked;
  return await deleteAndRecord(pass, apis, chosen, rechecked, decided.runsRead);
}

/** The report and the exit status of an Ending: the one place a pass's outcome is made. */
function outcomeOf(pass: Pass, ending: Ending): PassOutcome {
  if (ending.kind === 'not-served') return ending;
  const { config, deps, plans } = pass;
  const { plan, breaker } = ending;
  const reportPlan: ReportPlan | undefined =
    plan !== undefined && plans.write !== undefined
      ? { mode: 'written', file: plans.write.file, digest: plan.digest, entries: plan.entries.length }
      : plans.apply === undefined
        ? undefined
        : { mode: 'applied', file: plans.apply.file, digest: plans.apply.plan.digest, entries: plans.apply.plan.entries.length };
  const report = buildReport({
    ...(reportPlan !== undefined && { plan: reportPlan }),
    ...(breaker !== undefined && { breaker }),
    dryRun: config.dryRun,
    startedAt: pass.startedAt,
    finishedAt: deps.now(),
    // The scope and collectors it decided with: under apply, the plan's, not the command line's.
    scope: { ...pass.settings.scope, collect: pass.settings.collect },
    runs: ending.runs,
    decisions: ending.decisions,
    results: ending.results ?? new Map(),
    unreadablePrunerConfigMaps: pass.unreadablePrunerConfigMaps,
    warnings: pass.warnings,
    errors: ending.errors ?? [],
  });
  // A namespace whose pruner policy could not be read was left alone: the pass did not run as planned.
  const exitCode = ending.exitCode === EXIT_OK && pass.unreadablePrunerConfigMaps.length > 0 ? EXIT_PARTIAL : ending.exitCode;
  return { kind: 'done', report, exitCode, ...(plan !== undefined && { plan }) };
}

/** The APIs the collectors that are on can use; none served ends the pass. */
async function discover(pass: Pass): Promise<{ kind: 'served'; apis: ServedApis } | Ending> {
  let apis: ServedApis;
  try {
    apis = await pass.deps.cluster.discover(pass.settings.collect);
  } catch (error) {
    return couldNotRead(pass.deps, error, 'could not read the cluster; nothing deleted', 0);
  }
  if (Object.keys(apis.targets).length === 0) {
    return { kind: 'not-served', lines: apis.skipped.map((skip) => skip.why) };
  }
  pass.warnings.push(...apis.skipped.map((skip) => skip.why), ...unservedRunKinds(apis));
  return { kind: 'served', apis };
}

/**
 * --pruner-config: tektoncd/pruner's ConfigMaps, read before anything is listed and kept on
 * the pass's policy (`policy.pruner`). The global one that cannot be read, or a ConfigMap that
 * may not be, ends the pass; a namespace ConfigMap pruner applies that cannot be read keeps
 * that namespace's runs (prunerconfig.ts readPrunerConfig), and the pass goes on.
 */
async function readPrunerPolicies(pass: Pass): Promise<Ending | undefined> {
  // Under apply, the plan's: its ConfigMaps are read again, and can only narrow what the plan deletes.
  const namespace = pass.settings.prunerConfig;
  if (namespace === undefined) return undefined;
  const logMessage = "could not read tektoncd/pruner's ConfigMaps; nothing deleted";
  let read: PrunerConfigRead;
  try {
    read = readPrunerConfig(await pass.deps.cluster.readPrunerConfigMaps(namespace, pass.settings.scope));
  } catch (error) {
    return couldNotRead(pass.deps, error, logMessage, 0);
  }
  if (!read.ok) return couldNotRead(pass.deps, new Error(read.error), logMessage, 0);
  pass.warnings.push(...read.warnings);
  for (const [namespace, error] of read.config.unreadable) pass.unreadablePrunerConfigMaps.push({ namespace, name: PRUNER_NAMESPACE_CONFIGMAP, error });
  if (!pass.settings.collect.some((name) => COLLECTORS[name].decides === 'history')) {
    pass.warnings.push(`--pruner-config ${namespace}: no run collector is on (pipelineruns, taskruns), so nothing applies tektoncd/pruner's policies in this pass`);
  }
  // The run collectors read pruner's limits between a Namespace's labels and the flags (history.ts).
  pass.settings = { ...pass.settings, policy: withPrunerPolicy(pass.settings.policy, read.config) };
  return undefined;
}

/** A read that failed: nothing is decided or deleted, since a partial view of the runs is never taken for the whole. */
function couldNotRead(deps: SweepDeps, error: unknown, logMessage: string, runs: number): Ending {
  const message = readFailure(error);
  deps.log.error({ err: message }, logMessage);
  return { kind: 'ended', exitCode: EXIT_COULD_NOT_RUN, runs, decisions: [], errors: [message] };
}

/** The decisions a pass acts on, and of those the candidates it may delete. */
interface Chosen {
  kind: 'chosen';
  decisions: Decision[];
  candidates: Decision[];
  /** `apply`: the uids of the plan's entries that may be deleted (unchanged, still collectable). */
  deletable?: ReadonlySet<string>;
  /** `apply`: the results already known of the plan's other entries (changed, gone). */
  known: Map<string, Result>;
}

/** Every decision to delete; under `apply`, only the plan's entries, each only if unchanged and still collectable. */
async function chooseCandidates(pass: Pass, apis: ServedApis, decided: { decisions: Decision[]; runsRead: number }): Promise<Chosen | Ending> {
  if (pass.plans.apply === undefined) {
    return { kind: 'chosen', decisions: decided.decisions, candidates: decided.decisions.filter((decision) => decision.action === 'delete'), known: new Map() };
  }
  try {
    const { decisions, deletable, results } = await applyPlan(pass.deps, apis, pass.plans.apply.plan, decided.decisions);
    const candidates = decisions.filter((decision) => decision.action === 'delete' && deletable.has(decision.target.uid));
    return { kind: 'chosen', decisions, candidates, deletable, known: new Map(results) };
  } catch (error) {
    return couldNotRead(pass.deps, error, 'could not read the planned targets; nothing deleted', decided.runsRead);
  }
}

/**
 * A dry run ends here: the caps a live pass would exceed are warned about, its candidates
 * get their Events, and the plan it was asked to write is made. A candidate already being
 * deleted that a live pass sends nothing is `terminating`, as the live pass reports it.
 */
async function dryRunEnding(pass: Pass, decided: { decidedAt: Date; runsRead: number }, chosen: Chosen): Promise<Ending> {
  const { config, deps, plans } = pass;
  for (const breach of capBreaches(chosen.candidates, config)) {
    const what =
      breach.cascade === true
        ? `the ${breach.count} objects that would go with its runs are`
        : breach.collector === undefined
          ? `its ${breach.count} candidates are`
          : `its ${breach.count} candidates of ${breach.collector} are`;
    const warning = `a live pass with these settings would delete nothing and exit 3: ${what} more than ${breach.flag}`;
    pass.warnings.push(warning);
    deps.log.warn(breachLog(breach), warning);
  }
  // One already being deleted is reported as the live pass will: terminating, sent nothing, no Event (caps.ts sentNothing).
  const results = new Map(chosen.known);
  for (const decision of chosen.candidates) if (sentNothing(decision.target, config.pvcFinalizer)) results.set(decision.target.uid, 'terminating');
  await recordEvents(deps, chosen.candidates.filter((decision) => !results.has(decision.target.uid)).map((decision) => ({ decision, result: 'would-delete' as const })));
  const plan = plans.write === undefined ? undefined : buildPlan({ decisions: chosen.decisions, settings: planSettings(pass.settings), cluster: plans.write.cluster, createdAt: decided.decidedAt });
  return { kind: 'ended', exitCode: EXIT_OK, runs: decided.runsRead, decisions: chosen.decisions, results, ...(plan !== undefined && { plan }) };
}

/** A breach's log fields: the count and the limit under the name of the cap. */
function breachLog(breach: CapBreach): Record<string, unknown> {
  if (breach.cascade === true) return { cascade: breach.count, maxCascadeDeletions: breach.limit };
  return breach.collector === undefined ? { candidates: breach.count, maxDeletions: breach.limit } : { candidates: breach.count, collector: breach.collector, maxDeletions: breach.limit };
}

/** A cap the candidates exceed ends the pass before its first delete, every candidate aborted. */
function capsExceeded(pass: Pass, chosen: Chosen, runs: number): Ending | undefined {
  const breaches = capBreaches(chosen.candidates, pass.config);
  const [firstBreach] = breaches;
  if (firstBreach === undefined) return undefined;
  // Each cap counts a DELETE, or the finalizer removal of a claim already Terminating (caps.ts).
  const message = `the plan deletes ${breaches.map(breachText).join(', and ')}: nothing was deleted`;
  pass.deps.log.error(breaches.length === 1 ? breachLog(firstBreach) : { breaches }, message);
  return { kind: 'ended', exitCode: EXIT_PARTIAL, runs, decisions: chosen.decisions, results: allAborted(chosen), errors: [message] };
}

/**
 * The candidates decided again on a view read now: the runs changed since the listing, the
 * namespaces, and what may hold them. SIGTERM while deciding ends the pass before this read.
 */
async function recheck(pass: Pass, apis: ServedApis, decided: { listed: DatedView; runsRead: number }, chosen: Chosen): Promise<{ kind: 'rechecked'; view: DatedView; decisions: Decision[] } | Ending> {
  const { deps } = pass;
  const { candidates } = chosen;
  if (isAborted(deps.signal)) return interrupted(chosen, decided.runsRead);
  try {
    deps.progress?.update({ stage: 're-checking', candidates: candidates.length });
    const view = await refreshView(deps, apis, decided.listed, { scope: pass.settings.scope, namespaces: candidateNamespaces(candidates), holders: holderNamespaces(candidates) });
    return { kind: 'rechecked', view, decisions: redecide(pass.settings.policy, view.view, chosen.decisions, deps.now(), chosen.deletable) };
  } catch (error) {
    if (error instanceof Interrupted) return interrupted(chosen, decided.runsRead);
    const message = `re-check before deleting failed, nothing was deleted: ${errorMessage(error)}`;
    deps.log.error({ err: errorMessage(error) }, 're-check failed; nothing deleted');
    return { kind: 'ended', exitCode: EXIT_COULD_NOT_RUN, runs: decided.runsRead, decisions: chosen.decisions, results: allAborted(chosen), errors: [message] };
  }
}

/** SIGTERM before the deletes began: none was made. */
function interrupted(chosen: Chosen, runs: number): Ending {
  return { kind: 'ended', exitCode: EXIT_PARTIAL, runs, decisions: chosen.decisions, results: allAborted(chosen), errors: [INTERRUPTED_BEFORE_EVERY_DELETE] };
}

function allAborted(chosen: Chosen): Map<string, Result> {
  return new Map([...chosen.known, ...chosen.candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted'])]);
}

/** The delete phase on the re-checked decisions, then the Events of what it did. */
async function deleteAndRecord(pass: Pass, apis: ServedApis, chosen: Chosen, rechecked: { view: DatedView; decisions: Decision[] }, runs: number): Promise<Ending> {
  const { config, deps } = pass;
  const deletion = await deleteCandidates(deps, apis, {
    policy: pass.settings.policy,
    scope: pass.settings.scope,
    view: rechecked.view,
    decisions: rechecked.decisions,
    limits: { qps: config.qps, concurrency: config.concurrency, maxAttempts: config.maxRetries + 1, maxConsecutiveFailures: config.maxConsecutiveFailures },
    ...(chosen.deletable !== undefined && { only: chosen.deletable }),
    pvcFinalizer: config.pvcFinalizer,
  });
  for (const [uid, result] of chosen.known) if (!deletion.results.has(uid)) deletion.results.set(uid, result);
  await recordEvents(deps, eventfulResults(deletion.decisions, deletion.results));
  const errors = [
    ...(isAborted(deps.signal) ? [INTERRUPTED_BEFORE_EVERY_DELETE] : []),
    ...deletion.errors,
  ];
  const failed = [...deletion.results.values()].some((result) => result === 'failed');
  // The breaker stops a phase only after failed deletes, with an error: exit 3 either way.
  return {
    kind: 'ended',
    exitCode: failed || errors.length > 0 ? EXIT_PARTIAL : EXIT_OK,
    runs,
    decisions: deletion.decisions,
    results: deletion.results,
    errors,
    ...(deletion.breaker !== undefined && { breaker: deletion.breaker }),
  };
}

/** The settings a plan records: those the decision depends on, so that `apply` decides as the dry run did. */
function planSettings({ scope, policy, collect, prunerConfig }: PassSettings): PlanSettings {
  return {
    namespaces: [...scope.namespaces],
    excludeNamespaces: [...scope.excludeNamespaces],
    selector: scope.selector,
    labelPrefix: policy.labelPrefix,
    minAgeMs: policy.minAgeMs,
    ...(policy.retainFor !== undefined && { retainFor: formatRetentionDuration(policy.retainFor) }),
    // Written only when not the default, so a plan of PipelineResources alone reads as one always did.
    ...(!sameCollectors(collect, DEFAULT_COLLECTORS) && { collect: [...collect] }),
    // Only with a run collector, so that every other plan reads as it did before runs.
    ...(collect.some((name) => COLLECTORS[name].decides === 'history') && { runs: planRunSettings(policy.runs ?? { requireResultsStored: false }) }),
    ...(prunerConfig !== undefined && { prunerConfig }),
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
function configWarnings({ policy, collect }: Pick<PassSettings, 'policy' | 'collect'>, readsPruner: boolean): string[] {
  const warnings: string[] = [];
  if (policy.minAgeMs < MIN_AGE_WARNING_MS) {
    warnings.push(
      `--min-age ${policy.minAgeMs / 1000}s is under a minute: Tekton resolves a run's references a few seconds after the run is created, so a target created for a run that is just starting may be deleted`,
    );
  }
  const runs = collect.filter((name) => COLLECTORS[name].decides === 'history');
  const limits = policy.runs;
  if (runs.length > 0 && !readsPruner && limits?.keepSuccessful === undefined && limits?.keepFailed === undefined && limits?.ttl === undefined && limits?.external === undefined) {
    warnings.push(
      `${runs.join(' and ')}: no --keep, --keep-successful, --keep-failed or --run-ttl, so only runs whose own or whose namespace's ${policy.labelPrefix}/keep, keep-successful, keep-failed or run-ttl label sets a limit can go; every other run is kept (no-run-policy)`,
    );
  }
  return warnings;
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
 * `explain` of a run reads the same, in the run's namespace (cli/explaincmd.ts).
 */
export async function readCluster(deps: ReadDeps, apis: ServedApis, scope: Scope, options: ReadOptions): Promise<{ listed: DatedView; runsRead: number }> {
  const readAt = deps.now().getTime();
  deps.progress?.update({ stage: 'listing-targets' });
  const targets = inScope(await deps.cluster.listTargets(apis, scope), scope);
  deps.progress?.update({ stage: 'listing-runs', targets: targets.length });
  const targetNamespaces = [...new Set(targets.map((target) => target.namespace))].sort();
  // Runs no decision reads are counted and forgotten as they are read (core/needed.ts); a
  // pass that re-checks keeps their versions, to tell them from new runs.
  // explain keeps every run: it names the PipelineRun a child TaskRun goes with.
  const needed = options.explain === undefined ? runsNeededBy(targets) : () => true;
  const passedOver = new PassedOverRuns(needed, { versions: options.recheck, strings: targetStrings(targets), releasing: releasingOwners(targets) });
  // With a run collector on, the runs are targets too: read in every namespace in scope, from the same listing.
  // And what goes with them: the retained objects they own, and the census of their children (pass/dependents.ts).
  const dependents = collectsRunTargets(apis) ? await readRunDependents(deps.cluster, apis, { scope, labelPrefix: options.policy.labelPrefix }, targets) : undefined;
  const children = dependents?.children;
  const runTargets = dependents === undefined ? undefined : { reading: runTargetReading(options.policy), targets: [] as TargetRecord[], children: dependents.sink, ...(options.explain !== undefined && { labelledOnly: options.explain.labelledOnly }) };
  const runs = await deps.cluster.listRuns(apis, scope, runTargets === undefined ? targetNamespaces : undefined, passedOver, runTargets);
  // One push per record: a spread of tens of thousands overflows the call stack.
  for (const target of runTargets?.targets ?? []) targets.push(target);
  // Then what may hold a leftover, where targets whose rules read it are: never for PipelineResources alone.
  const pods = apis.pods === undefined ? undefined : await deps.cluster.listPods(apis, scope, namespacesWhere(targets, (collector) => collector.reads.pods));
  const statefulSets = apis.statefulSets === undefined ? undefined : await deps.cluster.listStatefulSets(apis, scope, namespacesWhere(targets, (collector) => collector.reads.statefulSets));
  const namespaces = await deps.cluster.readNamespaces(scope);
  const runsRead = runs.length + passedOver.count;
  deps.progress?.update({ stage: 'deciding', targets: targets.length, runs: runsRead });
  deps.log?.debug({ targets: targets.length, runs: runsRead, runsKept: runs.length, targetNamespaces: targetNamespaces.length, namespaces: namespaces.size, ...(pods !== undefined && { pods: pods.length }), ...(statefulSets !== undefined && { statefulSets: statefulSets.length }) }, 'cluster read');
  if (deps.log !== undefined) logReadProblems(deps.log, runs);
  const view: ClusterView = { targets, runs, namespaces, ...(pods !== undefined && { pods }), ...(statefulSets !== undefined && { statefulSets }), ...(children !== undefined && { children }), ...(dependents !== undefined && { retainedOwned: dependents.retainedOwned }) };
  const listed: DatedView = {
    view,
    readAt,
    readMs: deps.now().getTime() - readAt,
    ...(passedOver.versions !== undefined && { passedOver: passedOver.versions }),
    ...(runTargets !== undefined && { runTargets: runTargets.reading }),
  };
  return { listed, runsRead };
}

/** What readCluster reads with: a pass's deps, or explain's (which logs nothing). */
export interface ReadDeps {
  cluster: Pick<KubeCluster, 'listTargets' | 'listRuns' | 'listPods' | 'listStatefulSets' | 'readNamespaces' | 'listRetainedOwned'>;
  now: () => Date;
  progress?: Progress;
  log?: Logger;
}

/**
 * `recheck`: a pass that re-checks keeps the versions of the runs it passes over. `explain`:
 * every run is kept (the decisions are the same: core/needed.ts), and each TaskRun no target by
 * its tekton.dev/pipelineRun label alone is noted, for explain to name that PipelineRun.
 */
export interface ReadOptions {
  recheck: boolean;
  policy: Policy;
  explain?: { labelledOnly: Map<string, string> };
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
    read = await readCluster(deps, apis, scope, { ...options, policy });
  } catch (error) {
    return { kind: 'unreadable', error };
  }
  const decidedAt = deps.now();
  const decisions = decideBounded(read.listed.view, policy, decidedAt);
  const { runsRead, listed } = read;
  return options.recheck ? { kind: 'decided-to-recheck', decisions, decidedAt, runsRead, listed } : { kind: 'decided', decisions, decidedAt, runsRead };
}

/** Whether a run collector is on and served: its targets come with the run listing. */
function collectsRunTargets(apis: ServedApis): boolean {
  return Object.keys(apis.targets).some((name) => isCollectorName(name) && COLLECTORS[name].decides === 'history');
}

/** How runs are read as targets in one pass: the keys the policy reads (--selector's too), and one copy of each namespace and label map. */
export function runTargetReading(policy: Policy): RunTargetReading {
  const runs = policy.runs;
  const selector = runs?.selector === undefined ? undefined : parseLabelSelector(runs.selector);
  const keys = selector?.ok === true ? selectorKeys(selector.value) : [];
  return {
    shared: new SharedStrings(),
    ...(runs?.groupBy !== undefined && { groupBy: runs.groupBy }),
    ...(runs?.keeps !== undefined && { keeps: runs.keeps }),
    ...(keys.length > 0 && { selectorKeys: keys }),
  };
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

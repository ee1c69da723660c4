import { decide } from './core/decide.js';
import type { ClusterView, Decision, Policy, RunRecord, TargetRecord } from './core/types.js';
import type { Config } from './config.js';
import type { DeleteOutcome } from './kube/api.js';
import type { KubeCluster, Scope, ServedApis } from './kube/cluster.js';
import { KubeError } from './kube/errors.js';
import type { Logger } from './log.js';
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

  const decisions = decide(view, policy, deps.now());
  logWarnings(deps.log, decisions);
  const candidates = decisions.filter((decision) => decision.action === 'delete');
  if (config.dryRun || candidates.length === 0) {
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions }), exitCode: EXIT_OK };
  }
  if (candidates.length > config.maxDeletions) {
    const message = `the plan deletes ${candidates.length} targets, more than --max-deletions ${config.maxDeletions}: nothing was deleted`;
    deps.log.error({ candidates: candidates.length, maxDeletions: config.maxDeletions }, message);
    const results = new Map(candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted']));
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions, results, errors: [message] }), exitCode: EXIT_PARTIAL };
  }

  let final: Decision[];
  try {
    final = await recheck(deps, apis, { view, policy, decisions });
  } catch (error) {
    const message = `re-check before deleting failed, nothing was deleted: ${errorMessage(error)}`;
    deps.log.error({ err: errorMessage(error) }, 're-check failed; nothing deleted');
    const results = new Map(candidates.map((decision): [string, Result] => [decision.target.uid, 'aborted']));
    return { kind: 'done', report: finish({ runs: view.runs.length, decisions, results, errors: [message] }), exitCode: EXIT_COULD_NOT_RUN };
  }

  const deletion = await deleteCandidates(deps, apis, config, final);
  const errors = deps.signal.aborted ? ['the pass was interrupted (SIGTERM) before every delete was made'] : [];
  const failed = [...deletion.results.values()].some((result) => result === 'failed');
  const exitCode = failed || deps.signal.aborted ? EXIT_PARTIAL : EXIT_OK;
  return {
    kind: 'done',
    report: finish({ runs: view.runs.length, decisions: deletion.decisions, results: deletion.results, errors }),
    exitCode,
  };
}

/** Targets first, then runs: every run that existed before a target was listed is seen. */
async function readCluster(deps: SweepDeps, apis: ServedApis, scope: Scope): Promise<ClusterView> {
  const targets = await deps.cluster.listTargets(apis, scope);
  const runs = await deps.cluster.listRuns(apis, scope);
  const namespaces = await deps.cluster.readNamespaces(scope);
  deps.log.debug({ targets: targets.length, runs: runs.length, namespaces: namespaces.size }, 'cluster read');
  return { targets: inScope(targets, scope), runs, namespaces };
}

/** Exclusions win even when a named namespace is also excluded. */
function inScope(targets: readonly TargetRecord[], scope: Scope): TargetRecord[] {
  const excluded = new Set(scope.excludeNamespaces);
  return targets.filter((target) => !excluded.has(target.namespace));
}

/**
 * Runs created or changed since the listing may now reference a candidate: read them,
 * decide again, and keep every candidate that is no longer collectable. Only a target
 * that both decisions would delete is deleted.
 */
async function recheck(
  deps: SweepDeps,
  apis: ServedApis,
  pass: { view: ClusterView; policy: Policy; decisions: readonly Decision[] },
): Promise<Decision[]> {
  const candidateNamespaces = [...new Set(pass.decisions.filter((d) => d.action === 'delete').map((d) => d.target.namespace))];
  const { changed, goneUids } = await deps.cluster.runsChangedSince(apis, pass.view.runs, candidateNamespaces);
  if (changed.length === 0 && goneUids.size === 0) {
    return [...pass.decisions];
  }
  deps.log.info({ changed: changed.length, gone: goneUids.size }, 'runs changed since the listing; deciding again');
  const changedUids = new Set(changed.map((run) => run.uid));
  const runs: RunRecord[] = [
    ...pass.view.runs.filter((run) => !goneUids.has(run.uid) && !changedUids.has(run.uid)),
    ...changed,
  ];
  const again = new Map(
    decide({ ...pass.view, runs }, pass.policy, deps.now()).map((decision) => [decision.target.uid, decision]),
  );
  return pass.decisions.map((decision) => {
    const latest = again.get(decision.target.uid);
    if (decision.action !== 'delete' || latest === undefined || latest.action === 'delete') {
      return decision;
    }
    return { ...latest, message: `${latest.message} (seen when re-checking before deleting)` };
  });
}

/**
 * Deletes at most `qps` per second with at most `concurrency` in flight. Each start is
 * given a slot 1/qps after the previous one, so the rate holds however long a delete takes.
 */
async function deleteCandidates(
  deps: SweepDeps,
  apis: ServedApis,
  config: Pick<Config, 'qps' | 'concurrency'>,
  decisions: readonly Decision[],
): Promise<{ decisions: Decision[]; results: Map<string, Result> }> {
  const queue = decisions.filter((decision) => decision.action === 'delete');
  const results = new Map<string, Result>();
  const failures = new Map<string, string>();
  const interval = 1000 / config.qps;
  let nextSlot = deps.now().getTime();
  let next = 0;

  const worker = async (): Promise<void> => {
    while (next < queue.length && !deps.signal.aborted) {
      const decision = queue[next++] as Decision;
      const slot = Math.max(nextSlot, deps.now().getTime());
      nextSlot = slot + interval;
      await deps.sleep(slot - deps.now().getTime(), deps.signal);
      if (deps.signal.aborted) {
        return;
      }
      const outcome = await deleteOne(deps, apis, decision.target);
      results.set(decision.target.uid, outcome.result);
      if (outcome.error !== undefined) {
        failures.set(decision.target.uid, outcome.error);
      }
      logDeletion(deps.log, decision, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency, queue.length) }, worker));

  const withFailures = decisions.map((decision) => {
    const failure = failures.get(decision.target.uid);
    return failure === undefined ? decision : { ...decision, message: `${decision.message}; delete failed: ${failure}` };
  });
  return { decisions: withFailures, results };
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

#!/usr/bin/env node
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConfigError, parseConfig, passSettings, runPolicy, settingOrigin, type Config, type FlagName, type PassSettings, type TargetName } from './cli/config.js';
import { COLLECTORS } from './core/collectors.js';
import { formatRetentionDuration } from './core/retention.js';
import { escapeControls } from './text/escape.js';
import { explainTarget } from './cli/explaincmd.js';
import { helpText } from './cli/help.js';
import { KubeCluster } from './kube/cluster.js';
import { loadConnection } from './kube/connect.js';
import { KubeconfigError, unusableCredentials } from './kube/connection.js';
import { KubeEvents } from './ops/events.js';
import { KubeHttp, httpOptions } from './kube/http.js';
import { createLogger, type Logger } from './ops/log.js';
import { pushPassMetrics } from './ops/passmetrics.js';
import { PlanError, checkPlan, parsePlan, planPassSettings, planVerdict, renderPlan, type Plan, type PlanCluster } from './pass/plan.js';
import { TerminalProgress, progressWanted } from './ops/progress.js';
import { EXPLAIN_RENDERERS } from './report/explain.js';
import { renderReportChunks } from './report/render.js';
import { writeReportFile } from './ops/reportfile.js';
import { keepHeapSmall } from './process/heap.js';
import { localTimeZone, runOnSchedule } from './process/schedule.js';
import { stopOnSignals } from './process/signals.js';
import { abortableSleep } from './process/sleep.js';
import { runPass, type PassPlans } from './pass/sweep.js';

const EXIT_USAGE = 2;
const EXIT_COULD_NOT_RUN = 1;
const EXIT_PARTIAL = 3;

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config: Config;
  try {
    const invocation = parseConfig(argv, env);
    if (invocation.kind === 'help') {
      process.stdout.write(helpText());
      return 0;
    }
    if (invocation.kind === 'version') {
      process.stdout.write(`tekton-resource-gc ${packageVersion()}\n`);
      return 0;
    }
    if (invocation.kind === 'explain') {
      return await runExplain(invocation.config, invocation.target, env, invocation.config.plan);
    }
    config = invocation.config;
    if (invocation.kind === 'apply') return await runApply(config, invocation.planFile, env);
  } catch (error) {
    return usageError(error);
  }
  return runOnce(config, passSettings(config), env);
}

/** The plan file's text, or a ConfigError naming the file (a plan that cannot be read is bad usage). */
async function readPlanFile(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : (error as Error).message;
    throw new ConfigError(`cannot read the plan ${file}: ${why}; write one with --dry-run --plan-file ${file}`);
  }
  try {
    return parsePlan(text, file);
  } catch (error) {
    if (error instanceof PlanError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * `apply PATH`: one live pass that deletes at most what the plan lists. The plan is checked
 * (its digest, cluster, age) before anything is read, and the pass decides with the plan's
 * own settings: a scope or rule setting given with another value is refused.
 */
async function runApply(config: Config, file: string, env: NodeJS.ProcessEnv): Promise<number> {
  const plan = await readPlanFile(file);
  const settings = planSettingsChecked(config, plan);
  return runOnce({ ...config, dryRun: false }, settings, env, async (http) => {
    const cluster = await clusterOf(http, config.pageSize);
    try {
      checkPlan(plan, file, { cluster, now: new Date(), maxAgeMs: config.planMaxAgeMs, ...(config.planDigest !== undefined && { expectedDigest: config.planDigest }) });
    } catch (error) {
      throw error instanceof PlanError ? new ConfigError(error.message) : error;
    }
    return { apply: { plan, file } };
  });
}

/** What names the cluster in a plan: the server as the client reaches it, and the kube-system uid if readable. */
async function clusterOf(http: KubeHttp, pageSize: number): Promise<PlanCluster> {
  const id = await new KubeCluster(http, pageSize).clusterId();
  return { server: http.server, ...(id !== undefined && { id }) };
}

/** Each setting a plan decides with, by its flag, as a refusal names the plan's. */
const DECISION_SETTINGS = {
  namespace: (pass) => pass.scope.namespaces.join(',') || '(all namespaces)',
  'exclude-namespace': (pass) => pass.scope.excludeNamespaces.join(',') || '(none)',
  selector: (pass) => pass.scope.selector || '(none)',
  collect: (pass) => pass.collect.join(','),
  'label-prefix': (pass) => pass.policy.labelPrefix,
  'min-age': (pass) => `${pass.policy.minAgeMs / 1000}s`,
  'retain-for': (pass) => (pass.policy.retainFor === undefined ? '(none)' : formatRetentionDuration(pass.policy.retainFor)),
  // The runs' policy as it decides: --keep 3 agrees with a plan of --keep-successful 3 --keep-failed 3.
  keep: (pass) => {
    const successful = limitText(pass.policy.runs?.keepSuccessful);
    const failed = limitText(pass.policy.runs?.keepFailed);
    return successful === failed ? successful : `(successful ${successful}, failed ${failed})`;
  },
  'keep-successful': (pass) => limitText(pass.policy.runs?.keepSuccessful),
  'keep-failed': (pass) => limitText(pass.policy.runs?.keepFailed),
  'run-ttl': (pass) => (pass.policy.runs?.ttl === undefined ? '(none)' : formatRetentionDuration(pass.policy.runs.ttl)),
  'group-by': (pass) => pass.policy.runs?.groupBy ?? '(none)',
  'require-results-stored': (pass) => String(pass.policy.runs?.requireResultsStored ?? false),
  'pruner-config': (pass) => pass.prunerConfig ?? '(none)',
} satisfies { [F in FlagName]?: (pass: PassSettings) => string };

function limitText(limit: number | undefined): string {
  return limit === undefined ? '(none)' : String(limit);
}

/** What an apply decides with: the plan's scope and rules; one of them given otherwise is refused. */
function planSettingsChecked(config: Config, plan: Plan): PassSettings {
  // The runs' flags given are compared whatever apply's own --collect: the plan's collectors decide.
  const flagged = passSettings(config);
  const given: PassSettings = { ...flagged, policy: { ...flagged.policy, runs: runPolicy(config) } };
  const planned = planPassSettings(plan.settings);
  for (const [flag, text] of Object.entries(DECISION_SETTINGS) as [keyof typeof DECISION_SETTINGS, (pass: PassSettings) => string][]) {
    const origin = settingOrigin(config, flag);
    if (origin !== 'default' && text(given) !== text(planned)) {
      throw new ConfigError(`${origin} differs from the plan, which was decided with its own --${flag} ${text(planned)}: apply decides with the plan's settings; leave ${origin} out`);
    }
  }
  // A plan does not hold the shard: apply reads with its own --namespace-selector.
  const scope = { ...planned.scope, ...(given.scope.namespaceSelector !== undefined && { namespaceSelector: given.scope.namespaceSelector }) };
  return { ...planned, scope };
}

/** The client for the API server; a ConfigError when the kubeconfig or its credentials cannot be used. */
async function connect(config: Config, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<KubeHttp> {
  try {
    const connection = await loadConnection(config, env);
    return await KubeHttp.create(connection, httpOptions(config, signal)).catch((error: unknown) => {
      // Only the credentials are asked for here: a configuration problem, not a failed pass.
      throw unusableCredentials(connection.origin, error);
    });
  } catch (error) {
    // kube/ knows nothing of the command line: its settings errors are bad usage here.
    throw error instanceof KubeconfigError ? new ConfigError(error.message) : error;
  }
}

/** One pass, or with --schedule one at each tick until SIGTERM. */
async function runOnce(config: Config, settings: PassSettings, env: NodeJS.ProcessEnv, plansFor?: (http: KubeHttp) => Promise<PassPlans>): Promise<number> {
  // On a terminal, one updating line says where a pass is; elsewhere only the logs speak.
  const progress = progressWanted(config.progress, process.stderr, env) ? new TerminalProgress(process.stderr) : undefined;
  const log = createLogger(config.logLevel, progress);
  const stop = stopOnSignals(log);
  let http: KubeHttp;
  try {
    // SIGTERM also stops the reads: no request or retry starts after it.
    http = await connect(config, env, stop.signal);
  } catch (error) {
    stop.dispose();
    return usageError(error);
  }
  let plans: PassPlans = {};
  try {
    // apply: the plan is checked against the server the client talks to before any read.
    plans = (await plansFor?.(http)) ?? {};
  } catch (error) {
    stop.dispose();
    http.close();
    if (error instanceof ConfigError) return usageError(error);
    log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not read the cluster to check the plan; nothing deleted');
    return EXIT_COULD_NOT_RUN;
  }
  try {
    const pass = (): Promise<number> => onePass(config, settings, { http, log, signal: stop.signal, progress }, plans);
    if (config.schedule === undefined) return await pass();
    const schedule = { ...config.schedule, timeZone: config.timeZone ?? localTimeZone() };
    return await runOnSchedule(schedule, { now: () => new Date(), sleep: abortableSleep, signal: stop.signal, log, pass });
  } finally {
    stop.dispose();
    http.close();
  }
}

interface PassIo {
  http: KubeHttp;
  log: Logger;
  signal: AbortSignal;
  progress: TerminalProgress | undefined;
}

async function onePass(config: Config, settings: PassSettings, io: PassIo, plans: PassPlans = {}): Promise<number> {
  const { http, log, progress } = io;
  const startedAt = new Date();
  // One client serves every pass of schedule mode: this pass's requests are the difference.
  const trafficBefore = { ...http.stats };
  const written = config.dryRun && config.planFile !== undefined ? { write: { cluster: await clusterOf(http, config.pageSize), file: config.planFile } } : {};
  const outcome = await runPass(config, settings, {
    cluster: new KubeCluster(http, config.pageSize),
    now: () => new Date(),
    log,
    signal: io.signal,
    sleep: abortableSleep,
    ...(config.events && { events: new KubeEvents(http) }),
    ...(progress !== undefined && { progress }),
  }, { ...plans, ...written });
  progress?.end();
  let exitCode: number;
  if (outcome.kind === 'not-served') {
    // One line each: for PipelineResources alone, the line a pass always printed.
    process.stdout.write(outcome.lines.map((line) => `${line}\n`).join(''));
    exitCode = 0;
    log.info({ dryRun: config.dryRun, served: false, exitCode, api: http.stats }, 'pass finished');
  } else {
    const { report } = outcome;
    exitCode = outcome.exitCode;
    // The plan first: a report that names a plan's digest is printed only once the plan is on disk.
    if (outcome.plan !== undefined && config.planFile !== undefined) {
      if (await writeReportFile(config.planFile, [renderPlan(outcome.plan)], log)) {
        log.info({ file: config.planFile, digest: outcome.plan.digest, entries: outcome.plan.entries.length }, 'plan written');
      } else {
        exitCode = EXIT_COULD_NOT_RUN;
        report.errors = [...(report.errors ?? []), `could not write the plan file ${config.planFile}`];
      }
    }
    await writeChunks(process.stdout, renderReportChunks(report, config.output));
    const { summary } = report;
    log.info({ dryRun: report.dryRun, ...summary, ...(report.breaker !== undefined && { breaker: report.breaker }), exitCode, api: http.stats }, 'pass finished');
    if (config.reportFile !== undefined && !(await writeReportFile(config.reportFile, renderReportChunks(report, config.output), log))) {
      // Exit 1 says nothing was deleted; once something was, a lost report file is a partial failure.
      const deleted = (report.summary.results.deleted ?? 0) > 0;
      exitCode = exitCode !== 0 ? exitCode : deleted ? EXIT_PARTIAL : EXIT_COULD_NOT_RUN;
    }
  }
  if (config.pushgatewayUrl !== undefined) {
    const report = outcome.kind === 'done' ? outcome.report : undefined;
    const finishedAt = report === undefined ? new Date() : new Date(report.finishedAt);
    // The collectors it ran, read or not: with none served there is no report, and the zeros go under their kinds.
    const api = { requests: http.stats.requests - trafficBefore.requests, retries: http.stats.retries - trafficBefore.retries };
    await pushPassMetrics(config, { report, collect: settings.collect, exitCode, dryRun: config.dryRun, startedAt: report === undefined ? startedAt : new Date(report.startedAt), finishedAt, api }, log);
  }
  return exitCode;
}

/** `explain [KIND/]NAMESPACE/NAME`: the decision for one target, on stdout; 1 when it cannot be read. */
async function runExplain(config: Config, target: TargetName, env: NodeJS.ProcessEnv, planFile?: string): Promise<number> {
  let http: KubeHttp;
  let plan: Plan | undefined;
  try {
    plan = planFile === undefined ? undefined : await readPlanFile(planFile);
    http = await connect(config, env);
  } catch (error) {
    return usageError(error);
  }
  try {
    const outcome = await explainTarget(config, target, { cluster: new KubeCluster(http, config.pageSize), now: () => new Date() });
    if (outcome.kind === 'not-served' || outcome.kind === 'not-a-target') {
      process.stderr.write(`tekton-resource-gc: ${escapeControls(outcome.why)}\n`);
      return EXIT_COULD_NOT_RUN;
    }
    const named = { ...target, kind: COLLECTORS[target.collector].kind };
    if (outcome.kind === 'not-found') {
      process.stderr.write(`tekton-resource-gc: ${escapeControls(`${named.kind} ${target.namespace}/${target.name} not found${plan === undefined ? '' : `; ${planVerdict(plan, null, named)}`}`)}\n`);
      return EXIT_COULD_NOT_RUN;
    }
    const explanation = plan === undefined ? outcome.explanation : { ...outcome.explanation, plan: planVerdict(plan, outcome.explanation.target, named) };
    process.stdout.write(EXPLAIN_RENDERERS[config.output === 'json' ? 'json' : 'text'](explanation));
    return 0;
  } catch (error) {
    process.stderr.write(`tekton-resource-gc: ${escapeControls((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '')}\n`);
    return EXIT_COULD_NOT_RUN;
  } finally {
    http.close();
  }
}

function usageError(error: unknown): number {
  if (error instanceof ConfigError) {
    // Messages quote values from flags, variables, kubeconfigs and plan files: shown, never obeyed by the terminal.
    process.stderr.write(`tekton-resource-gc: ${escapeControls(error.message)}\n`);
    return EXIT_USAGE;
  }
  throw error;
}

/** Rendered a piece at a time: a report of 40,000 targets is never one string. */
async function writeChunks(stream: NodeJS.WritableStream, chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) {
    if (!stream.write(chunk)) await once(stream, 'drain');
  }
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

// Before the first pass lists anything: src/process/heap.ts says why.
keepHeapSmall();
main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tekton-resource-gc: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT_COULD_NOT_RUN;
  },
);

#!/usr/bin/env node
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { ConfigError, parseConfig, type Config, type TargetName } from './config.js';
import { helpText } from './help.js';
import { KubeCluster } from './kube/cluster.js';
import { loadConnection, unusableCredentials } from './kube/connect.js';
import { KubeEvents } from './kube/events.js';
import { KubeHttp, httpOptions } from './kube/http.js';
import { createLogger, type Logger } from './log.js';
import type { PassFacts } from './metrics.js';
import { TerminalProgress, progressWanted } from './progress.js';
import { redactUrl } from './redact.js';
import { EXPLAIN_RENDERERS } from './report/explain.js';
import { renderReportChunks } from './report/render.js';
import { writeReportFile } from './reportfile.js';
import { localTimeZone, runOnSchedule } from './schedule.js';
import { abortableSleep } from './sleep.js';
import { explainTarget, runPass } from './sweep.js';

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
      return await runExplain(invocation.config, invocation.target, env);
    }
    config = invocation.config;
  } catch (error) {
    return usageError(error);
  }
  return runOnce(config, env);
}

/** The client for the API server; a ConfigError when the kubeconfig or its credentials cannot be used. */
async function connect(config: Config, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<KubeHttp> {
  const connection = await loadConnection(config, env);
  return KubeHttp.create(connection, httpOptions(config, signal)).catch((error: unknown) => {
    // Only the credentials are asked for here: a configuration problem, not a failed pass.
    throw unusableCredentials(connection.origin, error);
  });
}

/** One pass, or with --schedule one at each tick until SIGTERM. */
async function runOnce(config: Config, env: NodeJS.ProcessEnv): Promise<number> {
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
  try {
    const pass = (): Promise<number> => onePass(config, { http, log, signal: stop.signal, progress });
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

async function onePass(config: Config, io: PassIo): Promise<number> {
  const { http, log, progress } = io;
  const startedAt = new Date();
  const outcome = await runPass(config, {
    cluster: new KubeCluster(http, config.pageSize),
    now: () => new Date(),
    log,
    signal: io.signal,
    sleep: abortableSleep,
    ...(config.events && { events: new KubeEvents(http) }),
    ...(progress !== undefined && { progress }),
  });
  progress?.end();
  let exitCode: number;
  if (outcome.kind === 'not-served') {
    process.stdout.write('pipelineresources.tekton.dev/v1alpha1 is not served by this cluster: there is nothing to collect\n');
    exitCode = 0;
    log.info({ dryRun: config.dryRun, served: false, exitCode, api: http.stats }, 'pass finished');
  } else {
    const { report } = outcome;
    exitCode = outcome.exitCode;
    await writeChunks(process.stdout, renderReportChunks(report, config.output));
    const { summary } = report;
    log.info({ dryRun: report.dryRun, ...summary, exitCode, api: http.stats }, 'pass finished');
    if (config.reportFile !== undefined && !(await writeReportFile(config.reportFile, renderReportChunks(report, config.output), log))) {
      // Exit 1 says nothing was deleted; once something was, a lost report file is a partial failure.
      const deleted = (report.summary.results.deleted ?? 0) > 0;
      exitCode = exitCode !== 0 ? exitCode : deleted ? EXIT_PARTIAL : EXIT_COULD_NOT_RUN;
    }
  }
  if (config.pushgatewayUrl !== undefined) {
    const report = outcome.kind === 'done' ? outcome.report : undefined;
    const finishedAt = report === undefined ? new Date() : new Date(report.finishedAt);
    await pushPassMetrics(config, { report, exitCode, dryRun: config.dryRun, startedAt: report === undefined ? startedAt : new Date(report.startedAt), finishedAt }, log);
  }
  return exitCode;
}

/** A push that fails is logged and leaves the exit status alone: the pass itself went as it went. */
async function pushPassMetrics(config: Pick<Config, 'pushgatewayUrl' | 'pushgatewayGrouping' | 'requestTimeoutMs'>, facts: PassFacts, log: Logger): Promise<void> {
  const url = config.pushgatewayUrl;
  if (url === undefined) return;
  // The URL may hold basic-auth credentials; the logs never do.
  const shown = redactUrl(url);
  try {
    // Loaded only when asked for: prom-client costs a third of a second and 10 MiB on every pass.
    const { pushPass } = await import('./metrics.js');
    await pushPass(url, facts, { grouping: config.pushgatewayGrouping ?? [], timeoutMs: config.requestTimeoutMs });
    log.debug({ pushgateway: shown }, 'metrics pushed');
  } catch (error) {
    log.error({ pushgateway: shown, err: error instanceof Error ? error.message : String(error) }, 'could not push the metrics; the pass is not affected');
  }
}

/** `explain NAMESPACE/NAME`: the decision for one target, on stdout; 1 when it cannot be read. */
async function runExplain(config: Config, target: TargetName, env: NodeJS.ProcessEnv): Promise<number> {
  let http: KubeHttp;
  try {
    http = await connect(config, env);
  } catch (error) {
    return usageError(error);
  }
  try {
    const outcome = await explainTarget(config, target, { cluster: new KubeCluster(http, config.pageSize), now: () => new Date() });
    if (outcome.kind === 'not-served') {
      process.stderr.write('tekton-resource-gc: pipelineresources.tekton.dev/v1alpha1 is not served by this cluster: there is nothing to explain\n');
      return EXIT_COULD_NOT_RUN;
    }
    if (outcome.kind === 'not-found') {
      process.stderr.write(`tekton-resource-gc: PipelineResource ${target.namespace}/${target.name} not found\n`);
      return EXIT_COULD_NOT_RUN;
    }
    process.stdout.write(EXPLAIN_RENDERERS[config.output === 'json' ? 'json' : 'text'](outcome.explanation));
    return 0;
  } catch (error) {
    process.stderr.write(`tekton-resource-gc: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}\n`);
    return EXIT_COULD_NOT_RUN;
  } finally {
    http.close();
  }
}

function usageError(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`tekton-resource-gc: ${error.message}\n`);
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

/**
 * SIGTERM (a CronJob's pod being stopped) or Ctrl-C: start no new delete, finish the ones
 * in flight, write the report. A second signal ends the process at once.
 */
function stopOnSignals(log: Logger): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.exit(128 + (name === 'SIGINT' ? 2 : 15));
    }
    log.warn({ signal: name }, 'stopping: no new request or delete will start');
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tekton-resource-gc: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT_COULD_NOT_RUN;
  },
);

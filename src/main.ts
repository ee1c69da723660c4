#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { ConfigError, parseConfig, type Config } from './config.js';
import { helpText } from './help.js';
import { KubeCluster } from './kube/cluster.js';
import { KubeHttp, httpOptions } from './kube/http.js';
import { createLogger, type Logger } from './log.js';
import { renderReport } from './report/render.js';
import { runPass } from './sweep.js';

const EXIT_USAGE = 2;
const EXIT_COULD_NOT_RUN = 1;

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
    config = invocation.config;
  } catch (error) {
    return usageError(error);
  }
  return runOnce(config, env);
}

async function runOnce(config: Config, env: NodeJS.ProcessEnv): Promise<number> {
  let http: KubeHttp;
  try {
    // Loaded here, not at the top: @kubernetes/client-node takes most of the start-up time,
    // and --help or a bad flag should answer without it.
    const { loadKubeConfig } = await import('./kube/connect.js');
    const kubeConfig = loadKubeConfig(config, env);
    http = await KubeHttp.create(kubeConfig, httpOptions(config)).catch((error: unknown) => {
      // Only the kubeconfig's credentials are read here: a plugin that cannot run, a missing
      // certificate file. Said in one line, as a configuration problem.
      const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      throw new ConfigError(`the credentials of kubeconfig context "${kubeConfig.getCurrentContext()}" cannot be used: ${reason}`);
    });
  } catch (error) {
    return usageError(error);
  }
  const log = createLogger(config.logLevel);
  const stop = stopOnSignals(log);
  try {
    const outcome = await runPass(config, {
      cluster: new KubeCluster(http, config.pageSize),
      now: () => new Date(),
      log,
      signal: stop.signal,
      sleep: abortableSleep,
    });
    if (outcome.kind === 'not-served') {
      process.stdout.write('pipelineresources.tekton.dev/v1alpha1 is not served by this cluster: there is nothing to collect\n');
      return 0;
    }
    const { report, exitCode } = outcome;
    const rendered = renderReport(report, config.output);
    process.stdout.write(rendered);
    const { summary } = report;
    log.info({ dryRun: report.dryRun, ...summary, exitCode, api: http.stats }, 'pass finished');
    if (config.reportFile !== undefined && !(await writeReportFile(config.reportFile, rendered, log))) {
      return exitCode === 0 ? EXIT_COULD_NOT_RUN : exitCode;
    }
    return exitCode;
  } finally {
    stop.dispose();
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

/** Written beside the target and renamed into place: a reader never sees half a report. */
async function writeReportFile(file: string, content: string, log: Logger): Promise<boolean> {
  const partial = `${file}.partial-${process.pid}`;
  try {
    await writeFile(partial, content);
    await rename(partial, file);
    return true;
  } catch (error) {
    log.error({ err: error instanceof Error ? error.message : String(error), file }, 'could not write the report file');
    return false;
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
    log.warn({ signal: name }, 'stopping: no new deletes will start');
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

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
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

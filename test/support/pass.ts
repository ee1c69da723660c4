/**
 * One pass of the collector in this process, built exactly as the CLI builds it (the same
 * Config parser, KubeHttp options and adapter), with hooks at the moments a race or a
 * signal would hurt, and the log lines kept for assertions.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseConfig, passSettings, type Config } from '../../src/cli/config.js';
import type { TargetRecord } from '../../src/core/types.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { loadConnection } from '../../src/kube/connect.js';
import type { Connection } from '../../src/kube/connection.js';
import { KubeHttp, httpOptions, type TrafficStats } from '../../src/kube/http.js';
import { renderJson } from '../../src/report/json.js';
import type { ReportDocument } from '../../src/report/model.js';
import { abortableSleep } from '../../src/process/sleep.js';
import { runPass, type PassOutcome, type PassPlans, type SweepDeps } from '../../src/pass/sweep.js';
import { assertValidReport } from './reportschema.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export interface PassHooks {
  /** After the runs are listed, before the namespaces are read and anything is decided. */
  afterRunsListed?: () => Promise<void>;
  /** After the first read of the namespaces: the whole listing is done, nothing re-checked yet. */
  afterListing?: () => Promise<void>;
  /** Before each delete is sent, with how many were sent before it. */
  beforeDelete?: (target: TargetRecord, sent: number) => Promise<void>;
  /** Aborted like SIGTERM aborts the CLI's pass. */
  signal?: AbortSignal;
  /** A dry run that writes a plan, or a pass that applies one. */
  plans?: PassPlans;
}

export interface InProcessPass {
  /** The pass's outcome, its report read back from the JSON the pass prints (what a user gets). */
  outcome: Omit<PassOutcome & { kind: 'done' }, 'report'> & { report: ReportDocument };
  /** The server the pass talked to, as a plan names it. */
  server: string;
  logs: LogLine[];
  stats: TrafficStats;
  elapsedMs: number;
}

export function configFor(args: readonly string[], env: Record<string, string> = {}): Config {
  const invocation = parseConfig(args, env);
  assert.equal(invocation.kind, 'run');
  return invocation.config;
}

export function capturingLogger(): { log: SweepDeps['log']; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: unknown, message?: string): void => {
      if (typeof fields === 'string') lines.push({ level, fields: {}, message: fields });
      else lines.push({ level, fields: (fields ?? {}) as Record<string, unknown>, message: message ?? '' });
    };
  return { log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

/** The connection the CLI would make from `kubeConfig` written to a file and passed as --kubeconfig. */
export async function connectionFor(kubeConfig: KubeConfig): Promise<Connection> {
  const dir = mkdtempSync(join(tmpdir(), 'trgc-kubeconfig-'));
  try {
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, kubeConfig.exportConfig(), { mode: 0o600 });
    return await loadConnection({ kubeconfig: file }, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function passInProcess(kubeConfig: KubeConfig, args: readonly string[], hooks: PassHooks = {}): Promise<InProcessPass> {
  const config = configFor(args);
  const http = await KubeHttp.create(await connectionFor(kubeConfig), httpOptions(config, hooks.signal));
  const real = new KubeCluster(http, config.pageSize);
  let sent = 0;
  let namespaceReads = 0;
  const cluster: SweepDeps['cluster'] = {
    discover: (collect) => real.discover(collect),
    listTargets: (apis, scope) => real.listTargets(apis, scope),
    listPods: (...args) => real.listPods(...args),
    listStatefulSets: (...args) => real.listStatefulSets(...args),
    listRetainedOwned: (...args) => real.listRetainedOwned(...args),
    listClaims: (...args) => real.listClaims(...args),
    purgeClaimProtection: (...args) => real.purgeClaimProtection(...args),
    listRuns: async (...args) => {
      const runs = await real.listRuns(...args);
      await hooks.afterRunsListed?.();
      return runs;
    },
    readNamespaces: async (scope) => {
      const namespaces = await real.readNamespaces(scope);
      if (namespaceReads++ === 0) await hooks.afterListing?.();
      return namespaces;
    },
    runsChangedSince: (...args) => real.runsChangedSince(...args),
    runsNamed: (...args) => real.runsNamed(...args),
    readTarget: (...args) => real.readTarget(...args),
    readPrunerConfigMaps: (...args) => real.readPrunerConfigMaps(...args),
    deleteTarget: async (apis, target, attempt) => {
      await hooks.beforeDelete?.(target, sent++);
      return real.deleteTarget(apis, target, attempt);
    },
  };
  const { log, lines } = capturingLogger();
  const started = Date.now();
  try {
    const outcome = await runPass(config, passSettings(config), {
      cluster,
      now: () => new Date(),
      log,
      signal: hooks.signal ?? new AbortController().signal,
      sleep: abortableSleep,
    }, hooks.plans);
    assert.equal(outcome.kind, 'done');
    // Whatever the test checks, the report it got is one the published schema describes.
    const report: unknown = JSON.parse(renderJson(outcome.report));
    assertValidReport(report, 'the report of the in-process pass');
    return { outcome: { ...outcome, report: report as ReportDocument }, server: http.server, logs: lines, stats: { ...http.stats }, elapsedMs: Date.now() - started };
  } finally {
    http.close();
  }
}

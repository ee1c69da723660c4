/**
 * Metrics of a pass for a job that exits: built from the pass's report with prom-client
 * (the Prometheus text exposition format) and pushed to a Pushgateway at the end of the pass.
 *
 * Choices (for the README):
 * - Gauges, one value per pass: a job that exits has no counter to keep. Every reason and
 *   every result is pushed, zeros included, so a series never vanishes between passes.
 * - A pass that ran as planned (exit 0) replaces the job's whole group (PUT), with
 *   `tekton_resource_gc_last_success_timestamp_seconds`. Any other pass adds to it (POST):
 *   its own values replace the previous pass's, and the time of the last success stays, so
 *   an alert on its age fires when passes keep failing.
 * - A push that fails is logged; it never changes the pass's exit status.
 */
import http from 'node:http';
import https from 'node:https';
import { Gauge, Registry } from 'prom-client';
import { actionFor } from './core/decide.js';
import { REASONS } from './core/types.js';
import { RESULTS, type Report } from './report/model.js';

/** The Pushgateway job the metrics are grouped under. */
export const PUSH_JOB = 'tekton-resource-gc';
const PREFIX = 'tekton_resource_gc';
/** Results that say what became of a delete decision; `kept` is in decisions by reason. */
export const DELETION_RESULTS = RESULTS.filter((result) => result !== 'kept');

export interface PassFacts {
  /** Undefined when the server does not serve PipelineResources (nothing to collect). */
  report: Report | undefined;
  exitCode: number;
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
}

/** The registry of one pass. */
export function passMetrics(pass: PassFacts): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: readonly string[] = []): Gauge => new Gauge({ name: `${PREFIX}_${name}`, help, labelNames, registers: [registry] });
  const summary = pass.report?.summary;
  gauge('targets', 'PipelineResources in scope that the last pass saw.').set(summary?.targets ?? 0);
  gauge('runs', 'PipelineRuns and TaskRuns that the last pass listed.').set(summary?.runs ?? 0);
  const decisions = gauge('decisions', 'Decisions of the last pass by action and reason (SPEC.md section 2).', ['action', 'reason']);
  for (const reason of REASONS) decisions.set({ action: actionFor(reason), reason }, summary?.reasons[reason] ?? 0);
  const deletions = gauge('deletions', 'Delete decisions of the last pass by result: would-delete in a dry run; deleted, gone, changed, failed or aborted in a live one.', ['result']);
  for (const result of DELETION_RESULTS) deletions.set({ result }, summary?.results[result] ?? 0);
  gauge('errors', 'Pass-level errors of the last pass: a list that failed, the deletion cap, an interruption. Failed deletes are in deletions{result="failed"}.').set(
    pass.report?.errors?.length ?? 0,
  );
  gauge('dry_run', '1 when the last pass was a dry run, else 0.').set(pass.dryRun ? 1 : 0);
  gauge('exit_code', 'Exit status of the last pass: 0 as planned, 1 could not run, 3 failed deletes or the cap.').set(pass.exitCode);
  gauge('pass_duration_seconds', 'How long the last pass took.').set((pass.finishedAt.getTime() - pass.startedAt.getTime()) / 1000);
  gauge('last_pass_timestamp_seconds', 'When the last pass finished, in seconds since the Unix epoch.').set(pass.finishedAt.getTime() / 1000);
  if (pass.exitCode === 0) {
    gauge('last_success_timestamp_seconds', 'When the last pass that ran as planned (exit 0) finished, in seconds since the Unix epoch.').set(pass.finishedAt.getTime() / 1000);
  }
  return registry;
}

/** `<url>/metrics/job/tekton-resource-gc`, keeping a path the URL already has (a gateway behind a proxy). */
export function pushUrl(gateway: string): URL {
  const url = new URL(gateway);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/metrics/job/${encodeURIComponent(PUSH_JOB)}`;
  return url;
}

/**
 * Sends the registry: PUT replaces the job's group, POST adds to it. Rejects on a refusal
 * (any status from 300 up) or when no answer comes within `timeoutMs`.
 */
export async function pushMetrics(gateway: string, registry: Registry, options: { replace: boolean; timeoutMs: number }): Promise<void> {
  const body = await registry.metrics();
  const url = pushUrl(gateway);
  const transport = url.protocol === 'https:' ? https : http;
  await new Promise<void>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: options.replace ? 'PUT' : 'POST',
        headers: { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(body) },
        timeout: options.timeoutMs,
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`the Pushgateway answered HTTP ${status}: ${answer.trim().slice(0, 300)}`));
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from the Pushgateway within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

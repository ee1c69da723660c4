/**
 * Metrics of a pass for a job that exits: built from the pass's report with prom-client
 * (the Prometheus text exposition format) and pushed to a Pushgateway at the end of the pass.
 *
 * Choices (written down for users in docs/operations.md):
 * - Gauges, one value per pass: a job that exits has no counter to keep. Every reason and
 *   every result is pushed, zeros included, so a series never vanishes between passes.
 * - The group is `job="tekton-resource-gc"` and the labels of --pushgateway-grouping
 *   (pushgateway.ts): each install has its own, so no install's push touches another's.
 * - What a pass pushes, and how, follows from its exit status (PUSH_PLANS): a pass that ran
 *   as planned replaces its group (PUT); one that ran but failed deletes (exit 3) adds its
 *   counts (POST), keeping the time of the last success; one that could not run (exit 1)
 *   adds only what it knows, its exit code, errors, duration and time, so the last good
 *   counts stay and an alert on the age of the last success fires.
 * - A push that fails is logged; it never changes the pass's exit status.
 * - An unreadable tektoncd/pruner namespace ConfigMap (--pruner-config) is a gauge of its own
 *   beside the counts, 0 included: the pass that kept its namespace's runs exits 3, so its
 *   counts are added and the time of the last success stays.
 * - With the counts go the pass's API requests and retries (its own, also in schedule mode,
 *   where one client serves every pass).
 * - The counts of targets, decisions and deletions carry a `kind` label whatever was
 *   collected: one series per kind of the collectors the pass was asked to run, each with
 *   the reasons of its own table (a pass of PipelineResources alone pushes
 *   kind="PipelineResource"). The bytes of claims are pushed when workspace-pvcs was on.
 *   A pass none of whose collectors' APIs are served pushes the same series, at 0.
 */
import http from 'node:http';
import https from 'node:https';
import { Gauge, Registry } from 'prom-client';
import { COLLECTORS, collectorOf, type CollectorName } from '../core/collectors.js';
import { actionFor } from '../core/decide.js';
import type { Reason, TargetKindName } from '../core/types.js';
import { KIND_LABEL, gatewayPathProblem, groupingPath, type GroupingLabel } from './pushgateway.js';
import { SIZED_KIND } from '../report/build.js';
import { RESULTS, type Report } from '../report/model.js';

const PREFIX = 'tekton_resource_gc';
/** Results that say what became of a delete decision; `kept` is in decisions by reason. */
export const DELETION_RESULTS = RESULTS.filter((result) => result !== 'kept');

export interface PassFacts {
  /** Undefined when the server serves none of the collectors' APIs (nothing to collect). */
  report: Report | undefined;
  /**
   * The collectors the pass was asked to run (under apply, its plan's): its counts go under
   * their kinds, read or not.
   */
  collect: readonly CollectorName[];
  exitCode: number;
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
  /** The API requests this pass sent, and how many of them were retries; absent: none counted. */
  api?: { requests: number; retries: number };
}

/** What a pass can vouch for, by its exit status (docs/spec.md, "Exit status"). */
export type PassKind = 'as-planned' | 'partial' | 'could-not-run';

export function passKind(exitCode: number): PassKind {
  if (exitCode === 0) return 'as-planned';
  if (exitCode === 3) return 'partial';
  return 'could-not-run';
}

export interface PushPlan {
  /** PUT replaces the whole group; POST replaces only the metrics it sends. */
  method: 'PUT' | 'POST';
  /** Targets, runs, decisions, deletions and dry_run. */
  counts: boolean;
  /** The time of the last success: this pass's finish. */
  success: boolean;
}

export const PUSH_PLANS: Record<PassKind, PushPlan> = {
  // Everything it saw and did, and the group holds nothing older.
  'as-planned': { method: 'PUT', counts: true, success: true },
  // It read the cluster and decided: its counts are true, failed, aborted and skipped
  // deletes included. The time of the last success stays, so the alert on its age can fire.
  partial: { method: 'POST', counts: true, success: false },
  // It never saw the whole cluster: zeros would replace the last good counts. It adds only
  // its exit code, errors, duration and time; the counts of the last pass that ran stay.
  'could-not-run': { method: 'POST', counts: false, success: false },
};

/** The registry of one pass: what its plan says it may push. */
export function passMetrics(pass: PassFacts): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: readonly string[] = []): Gauge => new Gauge({ name: `${PREFIX}_${name}`, help, labelNames, registers: [registry] });
  const plan = PUSH_PLANS[passKind(pass.exitCode)];
  if (plan.counts) countMetrics(pass, gauge);
  gauge('errors', 'Pass-level errors of the last pass: a list that failed, the deletion cap, the breaker, an interruption. Failed deletes are in deletions{result="failed"}.').set(
    pass.report?.errors?.length ?? 0,
  );
  gauge('exit_code', 'Exit status of the last pass: 0 as planned, 1 could not run, 3 failed deletes, the cap, the breaker or an unreadable pruner ConfigMap.').set(pass.exitCode);
  gauge('pass_duration_seconds', 'How long the last pass took.').set((pass.finishedAt.getTime() - pass.startedAt.getTime()) / 1000);
  gauge('last_pass_timestamp_seconds', 'When the last pass finished, in seconds since the Unix epoch.').set(pass.finishedAt.getTime() / 1000);
  if (plan.success) {
    gauge('last_success_timestamp_seconds', 'When the last pass that ran as planned (exit 0) finished, in seconds since the Unix epoch.').set(pass.finishedAt.getTime() / 1000);
  }
  return registry;
}

type GaugeMaker = (name: string, help: string, labelNames?: readonly string[]) => Gauge;

const DELETIONS_HELP =
  'Delete decisions of the last pass by result: would-delete in a dry run; deleted, terminating, gone, changed, failed, aborted or skipped (not tried: the breaker stopped the deletes) in a live one.';

/**
 * The counts: one series per kind of the collectors the pass was asked to run (`kind`
 * label), each kind with every reason of its own decision table and every deletion result,
 * zeros included, and the bytes of claims when workspace-pvcs was on; kinds in the order of
 * the report's byKind. A pass none of whose collectors' APIs are served has no report and
 * pushes the same series at 0: the same shape whatever was collected and whatever was read.
 */
function countMetrics(pass: PassFacts, gauge: GaugeMaker): void {
  const report = pass.report;
  const kinds: TargetKindName[] = pass.collect.map((name) => COLLECTORS[name].kind).sort();
  const reasons = new Map<string, number>();
  const results = new Map<string, number>();
  const add = (tally: Map<string, number>, key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);
  for (const item of report?.items ?? []) {
    add(reasons, `${item.kind}/${item.reason}`);
    add(results, `${item.kind}/${item.result}`);
  }
  const targets = gauge('targets', 'Targets in scope that the last pass saw, by kind.', [KIND_LABEL]);
  gauge('runs', 'PipelineRuns and TaskRuns that the last pass listed.').set(report?.summary.runs ?? 0);
  const decisions = gauge('decisions', 'Decisions of the last pass by kind, action and reason.', [KIND_LABEL, 'action', 'reason']);
  const deletions = gauge('deletions', DELETIONS_HELP, [KIND_LABEL, 'result']);
  for (const kind of kinds) {
    targets.set({ [KIND_LABEL]: kind }, report?.summary.byKind[kind]?.targets ?? 0);
    const table: readonly Reason[] = collectorOf(kind).table;
    for (const reason of table) decisions.set({ [KIND_LABEL]: kind, action: actionFor(reason), reason }, reasons.get(`${kind}/${reason}`) ?? 0);
    for (const result of DELETION_RESULTS) deletions.set({ [KIND_LABEL]: kind, result }, results.get(`${kind}/${result}`) ?? 0);
  }
  if (kinds.includes(SIZED_KIND)) {
    const bytes = report?.summary.bytes ?? { candidates: 0, released: 0, pending: 0 };
    gauge('candidate_bytes', 'Bytes of the claims the last pass decided to delete (whatever became of them).').set(bytes.candidates);
    gauge('released_bytes', 'Bytes of the claims the last pass deleted.').set(bytes.released);
    gauge('pending_bytes', 'Bytes of the claims the last pass left terminating, held by a finalizer.').set(bytes.pending);
  }
  gauge(
    'pruner_configmaps_unreadable',
    "tektoncd/pruner namespace ConfigMaps (--pruner-config) that apply and that the last pass could not read: their namespaces' runs were kept, and it exited 3.",
  ).set(report?.unreadablePrunerConfigMaps?.length ?? 0);
  gauge('dry_run', '1 when the last pass was a dry run, else 0.').set(pass.dryRun ? 1 : 0);
  gauge('api_requests', 'Requests the last pass sent to the API server, retries included.').set(pass.api?.requests ?? 0);
  gauge('api_retries', 'Requests the last pass sent again after a 429, a server error or a broken connection.').set(pass.api?.retries ?? 0);
}

/**
 * `<url>/metrics/job/tekton-resource-gc/<label>/<value>...`, below any path prefix the URL
 * has (a gateway behind a proxy). A URL whose path already names a group is refused:
 * appending to it would push to a group nobody asked for.
 */
export function pushUrl(gateway: string, grouping: readonly GroupingLabel[] = []): URL {
  const url = new URL(gateway);
  const problem = gatewayPathProblem(url);
  if (problem !== undefined) throw new Error(`the Pushgateway URL ${problem}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${groupingPath(grouping)}`;
  return url;
}

/** Pushes the metrics of one pass to its group, as its plan says. */
export async function pushPass(gateway: string, pass: PassFacts, options: { grouping: readonly GroupingLabel[]; timeoutMs: number }): Promise<void> {
  const { method } = PUSH_PLANS[passKind(pass.exitCode)];
  await pushMetrics(pushUrl(gateway, options.grouping), passMetrics(pass), { method, timeoutMs: options.timeoutMs });
}

/**
 * Sends the registry: PUT replaces the group, POST replaces the metrics it sends. Rejects
 * on a refusal (any status from 300 up) or when no answer comes within `timeoutMs`.
 */
export async function pushMetrics(url: URL, registry: Registry, options: { method: 'PUT' | 'POST'; timeoutMs: number }): Promise<void> {
  const body = await registry.metrics();
  const transport = url.protocol === 'https:' ? https : http;
  await new Promise<void>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: options.method,
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

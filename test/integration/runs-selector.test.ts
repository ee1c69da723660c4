/**
 * --selector with the run collectors against a real kube-apiserver (docs/spec.md, "`--selector`
 * and runs"): the runs it matches are the pass's targets, each ranked among its whole group,
 * matched or not. A selector that picks a group's oldest runs deletes them as the pass without
 * it would; one that picks its newest keeps them by their place. The API server's own reading
 * of each selector picks the same runs as the pass; the re-check, --max-deletions, plans and
 * apply, and explain hold it too. Tekton's controller does not run: runs are made as it leaves
 * them (the object, then its status through /status).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parseConfig } from '../../src/cli/config.js';
import { explainTarget } from '../../src/cli/explaincmd.js';
import type { Explanation } from '../../src/core/explain.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import type { Plan } from '../../src/pass/plan.js';
import type { ReportDocument } from '../../src/report/model.js';
import { reportOf, runCli } from '../support/cli.js';
import { connectionFor, passInProcess } from '../support/pass.js';
import { useControlPlane } from '../support/realserver.js';
import { hoursAgo, type KubeObject } from '../support/tekton.js';
import { V1Runs } from '../support/v1runs.js';

/** `kind name -> reason result` of a report's items. */
function results(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.name}`, `${item.reason} ${item.result}`]));
}

const build = (team?: string): Record<string, string> => ({ 'tekton.dev/pipeline': 'build', ...(team !== undefined && { team }) });

describe('--selector with pipelineruns and taskruns on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let runs: V1Runs;
  let custom: CustomObjectsApi;
  before(() => {
    runs = new V1Runs(server.controlPlane.kubeConfig());
    custom = server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  /**
   * Five succeeded runs of Pipeline build, r1 the newest (1 h ago) to r5 (5 h ago): r1 and r2
   * of team a, r3 of none, r4 and r5 of team b; and two standalone TaskRuns of Task lint, the
   * older of team b.
   */
  async function group(namespace: string): Promise<void> {
    await server.seed.namespace(namespace);
    const teams = ['a', 'a', undefined, 'b', 'b'];
    for (const [index, team] of teams.entries()) await runs.create(namespace, `r${index + 1}`, { state: 'succeeded', finishedAt: hoursAgo(index + 1) }, { labels: build(team) });
    await runs.create(namespace, 'lint-1', { state: 'succeeded', finishedAt: hoursAgo(1) }, { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' } });
    await runs.create(namespace, 'lint-2', { state: 'succeeded', finishedAt: hoursAgo(2) }, { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint', team: 'b' } });
  }

  const pass = (namespace: string, args: readonly string[], hooks: Parameters<typeof passInProcess>[2] = {}): ReturnType<typeof passInProcess> =>
    passInProcess(server.controlPlane.kubeConfig(), ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns,taskruns', ...args], hooks);

  async function relabel(namespace: string, name: string, labels: Record<string, string>): Promise<void> {
    const current = (await custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name })) as KubeObject;
    await custom.replaceNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name, body: { ...current, metadata: { ...current.metadata, labels } } });
  }

  test('a selector that picks the oldest runs of a group: the dry run reports them alone, each decided as without it, and the live pass deletes them alone', async () => {
    const namespace = 'sel-oldest';
    await group(namespace);
    const without = await pass(namespace, ['--keep', '2', '--dry-run']);
    assert.deepEqual(results(without.outcome.report), {
      'PipelineRun r1': 'history-kept kept',
      'PipelineRun r2': 'history-kept kept',
      'PipelineRun r3': 'history-exceeded would-delete',
      'PipelineRun r4': 'history-exceeded would-delete',
      'PipelineRun r5': 'history-exceeded would-delete',
      'TaskRun lint-1': 'history-kept kept',
      'TaskRun lint-2': 'history-kept kept',
    });

    const dry = await pass(namespace, ['--keep', '2', '--dry-run', '--selector', 'team=b']);
    assert.equal(dry.outcome.exitCode, 0);
    const report = dry.outcome.report;
    // The runs the selector matches, and nothing else: lint-2 is kept by its place among both TaskRuns of lint.
    assert.deepEqual(results(report), { 'PipelineRun r4': 'history-exceeded would-delete', 'PipelineRun r5': 'history-exceeded would-delete', 'TaskRun lint-2': 'history-kept kept' });
    for (const item of report.items) {
      const before = without.outcome.report.items.find((one) => one.kind === item.kind && one.name === item.name);
      assert.deepEqual([item.action, item.reason, item.message], [before?.action, before?.reason, before?.message], `${item.kind} ${item.name}`);
    }
    assert.match(report.items.find((item) => item.name === 'r4')?.message ?? '', /^4th newest of 5 succeeded runs in group tekton\.dev\/pipeline=build; --keep keeps 2$/);
    // The summary counts the targets, as for another kind's unmatched objects; every run read is counted as read.
    assert.deepEqual([report.summary.targets, report.summary.delete, report.summary.keep, report.summary.runs], [3, 2, 1, 7]);
    assert.deepEqual(report.summary.byKind, { PipelineRun: { targets: 2, delete: 2, keep: 0 }, TaskRun: { targets: 1, delete: 0, keep: 1 } });
    assert.equal(report.scope.selector, 'team=b');
    assert.deepEqual(await runs.names(namespace), ['r1', 'r2', 'r3', 'r4', 'r5']);

    const live = await pass(namespace, ['--keep', '2', '--selector', 'team=b']);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), { 'PipelineRun r4': 'history-exceeded deleted', 'PipelineRun r5': 'history-exceeded deleted', 'TaskRun lint-2': 'history-kept kept' });
    // r3, which the pass without the selector deletes, is no target: it stays.
    assert.deepEqual(await runs.names(namespace), ['r1', 'r2', 'r3']);
    assert.deepEqual(await runs.names(namespace, 'TaskRun'), ['lint-1', 'lint-2']);
  });

  test('a selector that picks the newest runs of a group: kept by their place (history-kept), in a dry run and a live pass; nothing deleted', async () => {
    const namespace = 'sel-newest';
    await group(namespace);
    const expected = { 'PipelineRun r1': 'history-kept', 'PipelineRun r2': 'history-kept' };
    const dry = await pass(namespace, ['--keep', '2', '--dry-run', '--selector', 'team=a']);
    assert.deepEqual(results(dry.outcome.report), Object.fromEntries(Object.entries(expected).map(([key, reason]) => [key, `${reason} kept`])));
    assert.match(dry.outcome.report.items.find((item) => item.name === 'r2')?.message ?? '', /^2nd newest of 5 succeeded runs in group tekton\.dev\/pipeline=build; --keep keeps 2$/);
    const live = await pass(namespace, ['--keep', '2', '--selector', 'team=a']);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), Object.fromEntries(Object.entries(expected).map(([key, reason]) => [key, `${reason} kept`])));
    assert.equal(live.outcome.report.summary.delete, 0);
    assert.deepEqual(await runs.names(namespace), ['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  test("the API server's reading of each selector picks the same runs as the pass's (!=, notin, !key, in, >, <)", async () => {
    const namespace = 'sel-parity';
    await server.seed.namespace(namespace);
    const labelSets: Record<string, string>[] = [{}, { team: 'a' }, { team: 'b', tier: 'web' }, { team: '', tier: 'db' }, { n: '3' }, { n: '10', team: 'a' }, { n: '007' }, { n: 'x' }];
    for (const [index, labels] of labelSets.entries()) await runs.create(namespace, `p${index}`, { state: 'succeeded', finishedAt: hoursAgo(index + 1) }, { labels: { ...build(), ...labels } });
    const selectors = ['team=a', 'team!=a', 'team notin (a,b)', 'team in (a,)', 'team=', '!team', 'tier', 'n>5', 'n<4', 'n>0,team', 'team!=b,!tier'];
    for (const selector of selectors) {
      const list = (await custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', labelSelector: selector })) as { items: KubeObject[] };
      const served = list.items.map((item) => item.metadata.name).sort();
      const dry = await pass(namespace, ['--keep', '0', '--dry-run', '--selector', selector]);
      assert.deepEqual(dry.outcome.report.items.map((item) => item.name).sort(), served, selector);
    }
    // A negative number after > or <: the API server refuses it (400), and the pass before it sends anything.
    await assert.rejects(custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', labelSelector: 'n>-1' }), /HTTP-Code: 400/);
    assert.throws(() => parseConfig(['--collect', 'pipelineruns', '--selector', 'n>-1'], {}), /^ConfigError: --selector "n>-1": requirement "n>-1" is not valid/);
  });

  test('the re-check decides the group again on every run, matched or not, and matches a run read again anew', async () => {
    const namespace = 'sel-recheck';
    await group(namespace);
    const live = await pass(namespace, ['--keep', '2', '--selector', 'team=b'], {
      afterListing: async () => {
        // Between the listing and the re-check: the two newest (team a, no targets) are deleted
        // by someone else, so r4 is now among the 2 newest; and r5 is relabelled team c.
        await runs.delete(namespace, 'r1');
        await runs.delete(namespace, 'r2');
        await relabel(namespace, 'r5', build('c'));
      },
    });
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    const items = live.outcome.report.items;
    const r4 = items.find((item) => item.name === 'r4');
    assert.deepEqual([r4?.reason, r4?.result], ['history-kept', 'kept']);
    assert.match(r4?.message ?? '', /^2nd newest of 3 succeeded runs .*seen when re-checking before deleting/);
    const r5 = items.find((item) => item.name === 'r5');
    assert.equal(r5?.result, 'changed');
    assert.match(r5?.message ?? '', /its labels no longer match --selector/);
    assert.deepEqual(await runs.names(namespace), ['r3', 'r4', 'r5']);
  });

  test('--max-deletions counts the runs the selector matches, not those the pass without it would delete', async () => {
    const namespace = 'sel-caps';
    await group(namespace);
    // Without the selector, three candidates: over the cap, nothing is deleted.
    const capped = await pass(namespace, ['--keep', '2', '--max-deletions', '2']);
    assert.equal(capped.outcome.exitCode, 3);
    assert.deepEqual(await runs.names(namespace), ['r1', 'r2', 'r3', 'r4', 'r5']);
    const over = await pass(namespace, ['--keep', '2', '--max-deletions', '1', '--selector', 'team=b']);
    assert.equal(over.outcome.exitCode, 3);
    assert.deepEqual(results(over.outcome.report), { 'PipelineRun r4': 'history-exceeded aborted', 'PipelineRun r5': 'history-exceeded aborted', 'TaskRun lint-2': 'history-kept kept' });
    const live = await pass(namespace, ['--keep', '2', '--max-deletions', '2', '--selector', 'team=b']);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(await runs.names(namespace), ['r1', 'r2', 'r3']);
  });

  test('a plan made with a selector (the CLI): apply ranks every run of the group again, and deletes only planned runs that still match and are still decided delete', async () => {
    const namespace = 'sel-plan';
    await group(namespace);
    await runs.create(namespace, 'r6', { state: 'succeeded', finishedAt: hoursAgo(6) }, { labels: build('b') });
    const file = path.join(server.controlPlane.dir, `${namespace}.plan.json`);
    const kube = ['--kubeconfig', server.controlPlane.kubeconfigPath];
    const dry = await runCli(['--dry-run', '--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns,taskruns', '--keep', '2', '--selector', 'team=b', '--output', 'json', '--plan-file', file, ...kube]);
    assert.equal(dry.code, 0, dry.stderr);
    const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
    assert.equal(plan.settings.selector, 'team=b');
    assert.deepEqual(plan.entries.map((entry) => `${entry.kind} ${entry.name} ${entry.reason}`), ['PipelineRun r4 history-exceeded', 'PipelineRun r5 history-exceeded', 'PipelineRun r6 history-exceeded']);
    // Since the plan: r1 and r2 (team a) were deleted, so r4 is now the 2nd newest of its group; r6 was relabelled team c.
    await runs.delete(namespace, 'r1');
    await runs.delete(namespace, 'r2');
    await relabel(namespace, 'r6', build('c'));
    // Apply decides with the plan's settings, its selector too: none is given here.
    const applied = await runCli(['apply', file, '--output', 'json', ...kube]);
    assert.equal(applied.code, 0, applied.stderr);
    const report = reportOf(applied);
    assert.equal(report.scope.selector, 'team=b');
    assert.deepEqual(results(report), { 'PipelineRun r4': 'history-kept kept', 'PipelineRun r5': 'history-exceeded deleted', 'PipelineRun r6': 'history-exceeded changed' });
    assert.match(report.items.find((item) => item.name === 'r6')?.message ?? '', /no longer matches the plan's selector/);
    // r3 (no team), past the limit as well, was never planned: apply leaves it.
    assert.deepEqual(await runs.names(namespace), ['r3', 'r4', 'r6']);
  });

  /** explain in this process as the CLI runs it. */
  async function explained(operand: string, args: readonly string[]): Promise<Explanation> {
    const invocation = parseConfig(['explain', operand, ...args], {});
    assert.equal(invocation.kind, 'explain');
    const http = await KubeHttp.create(await connectionFor(server.controlPlane.kubeConfig()), httpOptions(invocation.config));
    try {
      const outcome = await explainTarget(invocation.config, invocation.target, { cluster: new KubeCluster(http, invocation.config.pageSize), now: () => new Date() });
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
      return (outcome as { explanation: Explanation }).explanation;
    } finally {
      http.close();
    }
  }

  test('explain with --selector: whether the selector matches the run, and its decision as the pass makes it, ranked among its whole group', async () => {
    const namespace = 'sel-explain';
    await group(namespace);
    const matched = await explained(`pipelinerun/${namespace}/r4`, ['--min-age', '0s', '--keep', '2', '--selector', 'team=b']);
    assert.deepEqual(matched.scope, { inScope: true });
    assert.deepEqual([matched.decision.reason, matched.run?.rank, matched.run?.ofOutcome], ['history-exceeded', 4, 5]);
    const unmatched = await explained(`pipelinerun/${namespace}/r3`, ['--min-age', '0s', '--keep', '2', '--selector', 'team=b']);
    assert.deepEqual(unmatched.scope, { inScope: false, why: 'its labels do not match --selector "team=b"' });
    assert.deepEqual([unmatched.decision.reason, unmatched.run?.rank, unmatched.run?.ofOutcome], ['history-exceeded', 3, 5]);
    // The CLI says it too.
    const text = await runCli(['explain', `pipelinerun/${namespace}/r3`, '--min-age', '0s', '--keep', '2', '--selector', 'team!=a,team', '--kubeconfig', server.controlPlane.kubeconfigPath]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^in scope: +no: its labels do not match --selector "team!=a,team"; a pass never decides or deletes it$/m);
    assert.match(text.stdout, /^rank: +the 3rd newest of 5 succeeded runs in tekton\.dev\/pipeline=build$/m);
  });
});

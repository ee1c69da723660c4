/**
 * `explain` decides a run as the pass does, every row (docs/spec.md, "Runs", "Explain"),
 * against a real kube-apiserver: one mixed workload (runs of several groups and outcomes, a
 * PipelineRun whose TaskRun still runs, one whose TaskRun is retained, a retained run, runs
 * past their limits and their TTL, children with their Pods, claims and a Pipelines-as-Code
 * Secret owned by runs, a run already being deleted), decided under tektoncd/pruner's
 * ConfigMaps; for every run the dry run reports, explain's action, reason, rule, message and
 * cascade are the report item's, with the runs collected alone and with the leftovers'
 * collectors beside them. And a run already being deleted: the dry run reports it as the live
 * pass will (`terminating`, nothing sent, no cascade). Tekton's controller does not run: runs
 * are made as it leaves them (the object, then its status through /status).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parseConfig } from '../../src/cli/config.js';
import { explainTarget } from '../../src/cli/explaincmd.js';
import { collectorOf } from '../../src/core/collectors.js';
import type { Explanation } from '../../src/core/explain.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import type { ReportDocument } from '../../src/report/model.js';
import { Objects, pacLabels } from '../support/objects.js';
import { connectionFor, passInProcess } from '../support/pass.js';
import type { Manifest } from '../../harness/controlplane.js';
import { useControlPlane } from '../support/realserver.js';
import { hoursAgo, type KubeObject, type RunStatusSpec } from '../support/tekton.js';
import { V1Runs } from '../support/v1runs.js';

const PREFIX = 'tekton-resource-gc.io';
const SYSTEM = 'parity-pruner';
const NS = 'explain-parity';

type Kind = 'PipelineRun' | 'TaskRun';

function configMap(namespace: string, name: string, data: Record<string, string>): Manifest {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels: { 'app.kubernetes.io/part-of': 'tekton-pruner' } }, data };
}

/** pruner's level namespace for NS; its ConfigMap: a limit per outcome for build, a TTL alone for deploy, a limit for lint's TaskRuns. */
const GLOBAL_CONFIG = 'enforcedConfigLevel: namespace\n';
const NAMESPACE_CONFIG = [
  'pipelineRuns:',
  '  - name: build',
  '    successfulHistoryLimit: 1',
  '    failedHistoryLimit: 1',
  '  - name: deploy',
  '    ttlSecondsAfterFinished: 86400',
  'taskRuns:',
  '  - name: lint',
  '    successfulHistoryLimit: 1',
  '',
].join('\n');

const done = (hours: number, state: 'succeeded' | 'failed' | 'cancelled' = 'succeeded'): RunStatusSpec => ({ state, finishedAt: hoursAgo(hours) });

describe('explain decides every run as the pass does, on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let custom: CustomObjectsApi;
  let objects: Objects;
  let runs: V1Runs;

  /** A v1 run of NS (or `more.namespace`) with its status as Tekton writes it; no labels unless given. */
  const run = async (kind: Kind, name: string, status: RunStatusSpec, more: { labels?: Record<string, string>; owner?: KubeObject; finalizers?: string[]; namespace?: string } = {}): Promise<KubeObject> =>
    runs.create(more.namespace ?? NS, name, status, { kind, labels: more.labels ?? {}, ...(more.owner !== undefined && { owner: more.owner }), ...(more.finalizers !== undefined && { finalizers: more.finalizers }) });

  const ownerOf = (owner: KubeObject): { apiVersion: string; kind: string; name: string; uid: string; controller: boolean } => ({
    apiVersion: 'tekton.dev/v1',
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    controller: true,
  });
  const pipeline = (name: string): Record<string, string> => ({ 'tekton.dev/pipeline': name });
  const task = (name: string): Record<string, string> => ({ 'tekton.dev/task': name });

  before(async () => {
    custom = server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
    objects = new Objects(server.controlPlane.kubeConfig());
    runs = new V1Runs(server.controlPlane.kubeConfig());
    await server.seed.namespace(SYSTEM);
    await server.seed.namespace(NS);
    await server.controlPlane.apply([configMap(SYSTEM, 'tekton-pruner-default-spec', { 'global-config': GLOBAL_CONFIG }), configMap(NS, 'tekton-pruner-namespace-spec', { 'ns-config': NAMESPACE_CONFIG })]);

    // build: one succeeded run and one failed run stay; the older ones go, unless what goes with them stays.
    // Made oldest first, so that the newest is the same by creation (pruner's order, ties by name) as by completion.
    await run('PipelineRun', 'build-8', done(8), { labels: { ...pipeline('build'), [`${PREFIX}/retain`]: 'true' } });
    const secretOwner = await run('PipelineRun', 'build-7', done(7), { labels: pipeline('build') });
    await objects.secret(NS, 'pac-gitauth-build7', { labels: pacLabels(), ownerReferences: [ownerOf(secretOwner)] });
    const claimUsed = await run('PipelineRun', 'build-6', done(6), { labels: pipeline('build') });
    await objects.claim(NS, 'pvc-build-6', { ownerReferences: [ownerOf(claimUsed)] });
    await objects.pod(NS, 'debug-build-6', { claims: ['pvc-build-6'], phase: 'Running' });
    const claimRetained = await run('PipelineRun', 'build-5', done(5), { labels: pipeline('build') });
    await objects.claim(NS, 'pvc-build-5', { ownerReferences: [ownerOf(claimRetained)], labels: { [`${PREFIX}/retain`]: 'true' } });
    const retainedChild = await run('PipelineRun', 'build-4', done(4), { labels: pipeline('build') });
    await run('TaskRun', 'build-4-compile', done(4), { labels: { ...task('compile'), [`${PREFIX}/retain`]: 'true' }, owner: retainedChild });
    const running = await run('PipelineRun', 'build-3', done(3), { labels: pipeline('build') });
    await run('TaskRun', 'build-3-compile', { state: 'running' }, { labels: task('compile'), owner: running });
    const goes = await run('PipelineRun', 'build-2', done(2), { labels: pipeline('build') });
    await run('TaskRun', 'build-2-compile', done(2), { labels: task('compile'), owner: goes });
    await run('TaskRun', 'build-2-test', done(2), { labels: task('test'), owner: goes });
    await objects.claim(NS, 'pvc-build-2', { ownerReferences: [ownerOf(goes)], storage: '1Gi' });
    await run('PipelineRun', 'build-1', done(1), { labels: pipeline('build') });
    await run('PipelineRun', 'build-f2', done(9, 'cancelled'), { labels: pipeline('build') });
    await run('PipelineRun', 'build-f1', done(3, 'failed'), { labels: pipeline('build') });
    await run('PipelineRun', 'build-running', { state: 'running' }, { labels: pipeline('build') });
    // Already being deleted (a finalizer holds it): decided, holds no place, and is sent nothing.
    await run('PipelineRun', 'build-0', done(10), { labels: pipeline('build'), finalizers: ['example.com/hold'] });
    await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace: NS, plural: 'pipelineruns', name: 'build-0' });
    // deploy: a TTL alone, one run past it and one before it.
    await run('PipelineRun', 'deploy-1', done(2), { labels: pipeline('deploy') });
    const expired = await run('PipelineRun', 'deploy-2', done(30), { labels: pipeline('deploy') });
    await run('TaskRun', 'deploy-2-apply', done(30), { labels: task('apply'), owner: expired });
    // Standalone TaskRuns of lint (their own Pods go with them), and one of a Task no ConfigMap entry names.
    await run('TaskRun', 'lint-2', done(2), { labels: task('lint') });
    await run('TaskRun', 'lint-1', done(1), { labels: task('lint') });
    await run('TaskRun', 'lint-3', done(3, 'failed'), { labels: task('lint') });
    await run('TaskRun', 'scan-1', done(40), { labels: task('scan') });
    await run('PipelineRun', 'loose', done(50));
  });

  /** explain in this process as the CLI runs it: the same parser, adapter and command. */
  async function explained(operand: string, args: readonly string[]): Promise<Explanation> {
    const invocation = parseConfig(['explain', operand, ...args], {});
    assert.equal(invocation.kind, 'explain');
    const { config, target } = invocation;
    const http = await KubeHttp.create(await connectionFor(server.controlPlane.kubeConfig()), httpOptions(config));
    try {
      const outcome = await explainTarget(config, target, { cluster: new KubeCluster(http, config.pageSize), now: () => new Date() });
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
      return (outcome as { explanation: Explanation }).explanation;
    } finally {
      http.close();
    }
  }

  type Item = ReportDocument['items'][number];
  const asPass = (item: Item) => ({ action: item.action, reason: item.reason, rule: collectorOf(item.kind).table.indexOf(item.reason) + 1, message: item.message, cascade: item.cascade });
  const asExplained = (one: Explanation) => ({
    action: one.decision.action,
    reason: one.decision.reason,
    rule: one.rule,
    message: one.decision.message,
    cascade: one.decision.cascade === undefined ? undefined : { objects: { ...one.decision.cascade.objects }, ...(one.decision.cascade.bytes !== undefined && { bytes: one.decision.cascade.bytes }) },
  });

  /**
   * The dry run's items of the runs, and for each run explain's decision with the same flags
   * beside it; `explainCollects`: whether explain is given the pass's --collect (without it, it
   * collects the run's kind alone, which decides a run as the runs' collectors do).
   */
  async function compare(collect: string, explainCollects: boolean): Promise<Map<string, Item>> {
    const policy = ['--min-age', '0s', '--pruner-config', SYSTEM];
    const dry = await passInProcess(server.controlPlane.kubeConfig(), ['--namespace', NS, '--dry-run', '--collect', collect, ...policy]);
    assert.equal(dry.outcome.exitCode, 0, JSON.stringify(dry.outcome.report.errors));
    const runItems = dry.outcome.report.items.filter((item) => item.kind === 'PipelineRun' || item.kind === 'TaskRun');
    // Every run at once, so that a difference shows every row it touches.
    const byExplain: Record<string, ReturnType<typeof asExplained>> = {};
    for (const item of runItems) {
      byExplain[`${item.kind} ${item.name}`] = asExplained(await explained(`${item.kind === 'PipelineRun' ? 'pipelinerun' : 'taskrun'}/${NS}/${item.name}`, explainCollects ? [...policy, '--collect', collect] : policy));
    }
    assert.deepEqual(byExplain, Object.fromEntries(runItems.map((item) => [`${item.kind} ${item.name}`, asPass(item)])));
    return new Map(runItems.map((item) => [`${item.kind} ${item.name}`, item]));
  }

  test('the runs collected alone: every run, dependent-kept and cascade rows included', async () => {
    const items = await compare('pipelineruns,taskruns', false);
    const reasons = Object.fromEntries([...items].map(([name, item]) => [name, `${item.reason} ${item.result}`]));
    assert.deepEqual(reasons, {
      'PipelineRun build-0': 'history-exceeded terminating',
      'PipelineRun build-1': 'history-kept kept',
      'PipelineRun build-2': 'history-exceeded would-delete',
      'PipelineRun build-3': 'dependent-kept kept',
      'PipelineRun build-4': 'dependent-kept kept',
      // Only the runs are collected: the claim a retain label keeps is read all the same (issue 42, item 6), the claim a Pod uses is not.
      'PipelineRun build-5': 'dependent-kept kept',
      'PipelineRun build-6': 'history-exceeded would-delete',
      'PipelineRun build-7': 'history-exceeded would-delete',
      'PipelineRun build-8': 'retained kept',
      'PipelineRun build-f1': 'history-kept kept',
      'PipelineRun build-f2': 'history-exceeded would-delete',
      'PipelineRun build-running': 'run-active kept',
      'PipelineRun deploy-1': 'ttl-not-reached kept',
      'PipelineRun deploy-2': 'ttl-expired would-delete',
      'PipelineRun loose': 'no-run-policy kept',
      'TaskRun lint-1': 'history-kept kept',
      'TaskRun lint-2': 'history-exceeded would-delete',
      'TaskRun lint-3': 'no-run-policy kept',
      'TaskRun scan-1': 'no-run-policy kept',
    });
    assert.deepEqual(items.get('PipelineRun build-2')?.cascade, { objects: { TaskRun: 2, Pod: 2 } });
    assert.deepEqual(items.get('TaskRun lint-2')?.cascade, { objects: { Pod: 1 } });
    // Already being deleted: sent nothing, so nothing goes with it by this pass's hand.
    assert.equal(items.get('PipelineRun build-0')?.cascade, undefined);
    assert.match(items.get('PipelineRun build-3')?.message ?? '', /; but its TaskRun build-3-compile has not finished \(running\)$/);
    assert.match(items.get('PipelineRun build-4')?.message ?? '', /; but its TaskRun build-4-compile its label tekton-resource-gc\.io\/retain is "true"$/);
  });

  test('with the leftovers’ collectors on: the targets that go with a run keep it in explain as in the pass', async () => {
    const items = await compare('pipelineruns,taskruns,pac-secrets,workspace-pvcs', true);
    assert.deepEqual([items.get('PipelineRun build-5')?.reason, items.get('PipelineRun build-6')?.reason], ['dependent-kept', 'dependent-kept']);
    assert.match(items.get('PipelineRun build-5')?.message ?? '', /its PersistentVolumeClaim pvc-build-5 would go with it and is kept \(retained/);
    assert.match(items.get('PipelineRun build-6')?.message ?? '', /its PersistentVolumeClaim pvc-build-6 would go with it and is kept \(in-use-by-pod/);
    assert.deepEqual(items.get('PipelineRun build-2')?.cascade, { objects: { TaskRun: 2, Pod: 2, PersistentVolumeClaim: 1 }, bytes: 1024 ** 3 });
    assert.deepEqual(items.get('PipelineRun build-7')?.cascade, { objects: { Secret: 1 } });
  });

  test("explain's limit line names the field of pruner's ConfigMap that gave the limit, not all three", async () => {
    const one = await explained(`pipelinerun/${NS}/build-f2`, ['--min-age', '0s', '--pruner-config', SYSTEM]);
    assert.deepEqual(one.run?.limit, { value: '1', source: `ConfigMap ${NS}/tekton-pruner-namespace-spec, ns-config pipelineRuns[0].failedHistoryLimit (name build)` });
    assert.equal(one.decision.message, `2nd newest of 2 failed runs by creation among the PipelineRuns of namespace ${NS} labelled tekton.dev/pipeline=build; ConfigMap ${NS}/tekton-pruner-namespace-spec, ns-config pipelineRuns[0].failedHistoryLimit (name build) keeps 1`);
    const ttl = await explained(`pipelinerun/${NS}/deploy-2`, ['--min-age', '0s', '--pruner-config', SYSTEM]);
    assert.deepEqual(ttl.run?.ttl, { value: '86400s', source: `ConfigMap ${NS}/tekton-pruner-namespace-spec, ns-config pipelineRuns[1].ttlSecondsAfterFinished (name deploy)` });
  });

  test('a run already being deleted: the dry run reports it terminating and outside the cascade, as the live pass does, and nothing is sent', async () => {
    const namespace = 'explain-parity-deleting';
    await server.seed.namespace(namespace);
    await run('PipelineRun', 'going', done(1), { labels: pipeline('build'), finalizers: ['example.com/hold'], namespace });
    await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'going' });
    const parent = (await custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'going' })) as KubeObject;
    await run('TaskRun', 'going-a', done(1), { labels: task('compile'), owner: parent, namespace });
    await run('PipelineRun', 'kept', done(2), { labels: pipeline('build'), namespace });
    const args = ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns', '--keep', '0'];
    const summary = (report: ReportDocument) => ({
      items: Object.fromEntries(report.items.map((item) => [item.name, `${item.reason} ${item.result}${item.cascade === undefined ? '' : ` ${JSON.stringify(item.cascade.objects)}`}`])),
      results: report.summary.results,
      cascade: report.summary.cascade,
    });
    const expected = {
      items: { going: 'history-exceeded terminating', kept: 'history-exceeded RESULT {}' },
      results: { RESULT: 1, terminating: 1 },
      cascade: { runs: 1, objects: {}, bytes: 0, alsoCollected: 0 },
    };
    const dry = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--dry-run']);
    assert.equal(dry.outcome.exitCode, 0);
    assert.deepEqual(summary(dry.outcome.report), JSON.parse(JSON.stringify(expected).replaceAll('RESULT', 'would-delete')));
    const live = await passInProcess(server.controlPlane.kubeConfig(), args);
    assert.equal(live.outcome.exitCode, 0);
    assert.deepEqual(summary(live.outcome.report), JSON.parse(JSON.stringify(expected).replaceAll('RESULT', 'deleted')));
    const left = (await custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns' })) as { items: KubeObject[] };
    assert.deepEqual(left.items.map((item) => item.metadata.name), ['going']);
  });
});

/**
 * What goes with a run (docs/spec.md, "What goes with a run") against a real kube-apiserver:
 * the report counts a deleted PipelineRun's TaskRuns, their Pods and the claim it owns (with
 * its bytes) from the pass's own lists; the claim its own collector deletes too says so
 * (`goesWith`), counted once; a run whose claim is retained, or whose TaskRun has not
 * finished, is kept (`dependent-kept`), in the dry run and in the live pass. No garbage
 * collector runs here: what the API server holds after the live pass is what the pass deleted.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { ReportDocument } from '../../src/report/model.js';
import { Objects } from '../support/objects.js';
import { runCli } from '../support/cli.js';
import { passInProcess } from '../support/pass.js';
import { useControlPlane } from '../support/realserver.js';
import { hoursAgo, runStatus, type KubeObject, type RunStatusSpec } from '../support/tekton.js';

const GI = 1024 ** 3;

function results(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.name}`, `${item.reason} ${item.result}`]));
}

describe('what goes with a run, on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let custom: CustomObjectsApi;
  let objects: Objects;
  before(() => {
    custom = server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
    objects = new Objects(server.controlPlane.kubeConfig());
  });

  /** A v1 run, then its status as Tekton writes it: a TaskRun's with the Pod it made. */
  async function run(namespace: string, kind: 'PipelineRun' | 'TaskRun', name: string, status: RunStatusSpec, owner?: KubeObject, labels: Record<string, string> = {}): Promise<KubeObject> {
    const plural = kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
    const body = {
      apiVersion: 'tekton.dev/v1',
      kind,
      metadata: {
        name,
        namespace,
        labels: { ...(kind === 'PipelineRun' ? { 'tekton.dev/pipeline': 'build' } : { 'tekton.dev/task': 'compile' }), ...labels },
        ...(owner !== undefined && { ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: owner.metadata.name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] }),
      },
      spec: kind === 'PipelineRun' ? { pipelineRef: { name: 'build' } } : { taskRef: { name: 'compile' } },
    };
    const created = (await custom.createNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural, body })) as KubeObject;
    const startedAt = 'finishedAt' in status ? new Date(Date.parse(status.finishedAt) - 300_000).toISOString() : new Date().toISOString();
    const written = runStatus(kind, status, startedAt) as Record<string, unknown>;
    return (await custom.replaceNamespacedCustomObjectStatus({
      group: 'tekton.dev',
      version: 'v1',
      namespace,
      plural,
      name,
      body: { ...created, status: { ...written, ...(kind === 'TaskRun' && { podName: `${name}-pod` }) } },
    })) as KubeObject;
  }

  const ownerOf = (owner: KubeObject): { apiVersion: string; kind: string; name: string; uid: string; controller: boolean } => ({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    controller: true,
  });

  async function names(namespace: string, plural: 'pipelineruns' | 'taskruns'): Promise<string[]> {
    const list = (await custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural })) as { items: KubeObject[] };
    return list.items.map((item) => item.metadata.name).sort();
  }

  test('a deleted run’s TaskRuns, Pods and claim are its cascade; a retained claim or an unfinished TaskRun keeps its run', async () => {
    const namespace = 'cascade';
    await server.seed.namespace(namespace);
    const done = (hours: number): RunStatusSpec => ({ state: 'succeeded', finishedAt: hoursAgo(hours) });
    await run(namespace, 'PipelineRun', 'newest', done(1));
    const goes = await run(namespace, 'PipelineRun', 'goes', done(5));
    await run(namespace, 'TaskRun', 'goes-a', done(5), goes);
    await run(namespace, 'TaskRun', 'goes-b', done(5), goes);
    await objects.claim(namespace, 'pvc-goes', { ownerReferences: [ownerOf(goes)], storage: '2Gi' });
    const claimKept = await run(namespace, 'PipelineRun', 'claim-kept', done(4));
    await objects.claim(namespace, 'pvc-retained', { ownerReferences: [ownerOf(claimKept)], labels: { 'tekton-resource-gc.io/retain': 'true' } });
    const childRunning = await run(namespace, 'PipelineRun', 'child-running', done(3));
    await run(namespace, 'TaskRun', 'child-running-a', { state: 'running' }, childRunning);

    const args = ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns,taskruns,workspace-pvcs', '--keep', '1'];
    const expected = {
      'PipelineRun newest': 'history-kept kept',
      'PipelineRun goes': 'history-exceeded would-delete',
      'PipelineRun claim-kept': 'dependent-kept kept',
      'PipelineRun child-running': 'dependent-kept kept',
      'PersistentVolumeClaim pvc-goes': 'runs-finished would-delete',
      'PersistentVolumeClaim pvc-retained': 'retained kept',
    };
    const dry = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--dry-run']);
    assert.equal(dry.outcome.exitCode, 0, JSON.stringify(dry.outcome.report.errors));
    const report = dry.outcome.report;
    assert.deepEqual(results(report), expected);
    const item = (name: string): ReportDocument['items'][number] | undefined => report.items.find((one) => one.name === name);
    assert.deepEqual(item('goes')?.cascade, { objects: { TaskRun: 2, Pod: 2, PersistentVolumeClaim: 1 }, bytes: 2 * GI });
    assert.equal(item('pvc-goes')?.goesWith, 'PipelineRun/goes');
    assert.match(item('claim-kept')?.message ?? '', /its PersistentVolumeClaim pvc-retained would go with it and is kept \(retained/);
    assert.match(item('child-running')?.message ?? '', /its TaskRun child-running-a has not finished \(running\)/);
    assert.equal(item('claim-kept')?.cascade, undefined);
    assert.deepEqual(report.summary.cascade, { runs: 1, objects: { TaskRun: 2, Pod: 2, PersistentVolumeClaim: 1 }, bytes: 2 * GI, alsoCollected: 1 });

    const live = await passInProcess(server.controlPlane.kubeConfig(), args);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    // The claim keeps kubernetes.io/pvc-protection, which no controller here removes: it is left terminating.
    assert.deepEqual(results(live.outcome.report), { ...expected, 'PipelineRun goes': 'history-exceeded deleted', 'PersistentVolumeClaim pvc-goes': 'runs-finished terminating' });
    assert.deepEqual(await names(namespace, 'pipelineruns'), ['child-running', 'claim-kept', 'newest']);
    // The TaskRuns are the garbage collector's to delete, and none runs here.
    assert.deepEqual(await names(namespace, 'taskruns'), ['child-running-a', 'goes-a', 'goes-b']);
  });

  test('--max-cascade-deletions counts what goes with the runs apart from the runs: over it, nothing is deleted', async () => {
    const namespace = 'cascade-cap';
    await server.seed.namespace(namespace);
    const done = (hours: number): RunStatusSpec => ({ state: 'succeeded', finishedAt: hoursAgo(hours) });
    await run(namespace, 'PipelineRun', 'newest', done(1));
    for (const [name, hours] of [['old-a', 5], ['old-b', 6]] as const) {
      const parent = await run(namespace, 'PipelineRun', name, done(hours));
      await run(namespace, 'TaskRun', `${name}-build`, done(hours), parent);
      await run(namespace, 'TaskRun', `${name}-test`, done(hours), parent);
    }
    // Two runs go, and with them 2 TaskRuns and their 2 Pods each: 8 objects, 2 deletions.
    const args = ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns', '--keep', '1', '--max-deletions', '2'];

    const dry = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--max-cascade-deletions', '7', '--dry-run']);
    assert.equal(dry.outcome.exitCode, 0, JSON.stringify(dry.outcome.report.errors));
    assert.deepEqual(dry.outcome.report.summary.cascade?.objects, { TaskRun: 4, Pod: 4 });
    assert.deepEqual(dry.outcome.report.warnings?.filter((warning) => !warning.startsWith('--min-age 0s')), [
      'a live pass with these settings would delete nothing and exit 3: the 8 objects that would go with its runs are more than --max-cascade-deletions 7',
    ]);

    const stopped = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--max-cascade-deletions', '7']);
    assert.equal(stopped.outcome.exitCode, 3);
    assert.deepEqual(stopped.outcome.report.errors, ['the plan deletes 8 objects with its runs, more than --max-cascade-deletions 7: nothing was deleted']);
    assert.deepEqual(results(stopped.outcome.report), {
      'PipelineRun newest': 'history-kept kept',
      'PipelineRun old-a': 'history-exceeded aborted',
      'PipelineRun old-b': 'history-exceeded aborted',
    });
    assert.deepEqual(await names(namespace, 'pipelineruns'), ['newest', 'old-a', 'old-b']);

    // At the cap, not over it: the pass goes ahead.
    const live = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--max-cascade-deletions', '8']);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(await names(namespace, 'pipelineruns'), ['newest']);
  });
  test('a child PipelineRun (pipeline-in-pipeline) goes with its parent: no target, in its cascade, and it keeps its parent while anything under it must stay', async () => {
    const namespace = 'cascade-pinp';
    await server.seed.namespace(namespace);
    const done = (hours: number): RunStatusSpec => ({ state: 'succeeded', finishedAt: hoursAgo(hours) });
    // Tekton sets both on a child PipelineRun: the ownerReference and tekton.dev/pipelineRun
    // (tektoncd/pipeline pkg/reconciler/pipelinerun/pipelinerun.go:1213, :1863).
    const childOf = (parent: KubeObject): Record<string, string> => ({ 'tekton.dev/pipelineRun': parent.metadata.name });
    await run(namespace, 'PipelineRun', 'newest', done(1));
    // The case: `release` runs, its child `release-build` succeeded a day ago.
    const release = await run(namespace, 'PipelineRun', 'release', { state: 'running' });
    const releaseBuild = await run(namespace, 'PipelineRun', 'release-build', done(24), release, childOf(release));
    await run(namespace, 'TaskRun', 'release-build-compile', done(24), releaseBuild, childOf(releaseBuild));
    // A finished parent goes with its child, the child's TaskRun and a grandchild PipelineRun's TaskRun.
    const shipped = await run(namespace, 'PipelineRun', 'shipped', done(5));
    const shippedBuild = await run(namespace, 'PipelineRun', 'shipped-build', done(5), shipped, childOf(shipped));
    await run(namespace, 'TaskRun', 'shipped-build-compile', done(5), shippedBuild, childOf(shippedBuild));
    const shippedDeep = await run(namespace, 'PipelineRun', 'shipped-build-deep', done(5), shippedBuild, childOf(shippedBuild));
    await run(namespace, 'TaskRun', 'shipped-build-deep-compile', done(5), shippedDeep, childOf(shippedDeep));
    // A finished parent whose grandchild TaskRun is retained stays for it.
    const kept = await run(namespace, 'PipelineRun', 'kept', done(6));
    const keptBuild = await run(namespace, 'PipelineRun', 'kept-build', done(6), kept, childOf(kept));
    await run(namespace, 'TaskRun', 'kept-build-compile', done(6), keptBuild, { ...childOf(keptBuild), 'tekton-resource-gc.io/retain': 'true' });

    const args = ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns,taskruns', '--keep', '1'];
    const expected = {
      'PipelineRun newest': 'history-kept kept',
      'PipelineRun release': 'run-active kept',
      'PipelineRun shipped': 'history-exceeded would-delete',
      'PipelineRun kept': 'dependent-kept kept',
    };
    const dry = await passInProcess(server.controlPlane.kubeConfig(), [...args, '--dry-run']);
    assert.equal(dry.outcome.exitCode, 0, JSON.stringify(dry.outcome.report.errors));
    const report = dry.outcome.report;
    assert.deepEqual(results(report), expected);
    const item = (name: string): ReportDocument['items'][number] | undefined => report.items.find((one) => one.name === name);
    assert.deepEqual(item('shipped')?.cascade, { objects: { PipelineRun: 2, TaskRun: 2, Pod: 2 } });
    assert.match(item('kept')?.message ?? '', /; but its PipelineRun kept-build: its TaskRun kept-build-compile its label tekton-resource-gc\.io\/retain is "true"$/);
    assert.deepEqual(report.summary.cascade, { runs: 1, objects: { PipelineRun: 2, TaskRun: 2, Pod: 2 }, bytes: 0, alsoCollected: 0 });

    const live = await passInProcess(server.controlPlane.kubeConfig(), args);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), { ...expected, 'PipelineRun shipped': 'history-exceeded deleted' });
    // The children are the garbage collector's to delete, and none runs here: release-build is still there for release.
    assert.deepEqual(await names(namespace, 'pipelineruns'), ['kept', 'kept-build', 'newest', 'release', 'release-build', 'shipped-build', 'shipped-build-deep']);

    const child = await runCli(['explain', `pipelinerun/${namespace}/release-build`, '--min-age', '0s', '--keep', '1', '--kubeconfig', server.controlPlane.kubeconfigPath]);
    assert.equal(child.code, 1);
    assert.equal(
      child.stderr,
      `tekton-resource-gc: PipelineRun ${namespace}/release-build is not a target of pipelineruns: it goes with its PipelineRun ${namespace}/release; explain pipelinerun/${namespace}/release\n`,
    );
  });

  test('with only the runs collected, a run stays while a claim or Secret it owns carries the retain label; explain decides the same', async () => {
    const namespace = 'cascade-retained-owned';
    await server.seed.namespace(namespace);
    const done = (hours: number): RunStatusSpec => ({ state: 'succeeded', finishedAt: hoursAgo(hours) });
    const retain = { 'tekton-resource-gc.io/retain': 'true' };
    await run(namespace, 'PipelineRun', 'newest', done(1));
    const claimOwner = await run(namespace, 'PipelineRun', 'claim-owner', done(5));
    await objects.claim(namespace, 'ws-kept', { ownerReferences: [ownerOf(claimOwner)], labels: retain });
    const secretOwner = await run(namespace, 'PipelineRun', 'secret-owner', done(6));
    await objects.secret(namespace, 'auth-kept', { ownerReferences: [ownerOf(secretOwner)], labels: retain });
    // A claim labelled retain "false" keeps nothing; its run goes.
    const goes = await run(namespace, 'PipelineRun', 'goes', done(7));
    await objects.claim(namespace, 'ws-free', { ownerReferences: [ownerOf(goes)], labels: { 'tekton-resource-gc.io/retain': 'false' } });

    const args = ['--namespace', namespace, '--min-age', '0s', '--collect', 'pipelineruns', '--keep', '1'];
    const expected = {
      'PipelineRun newest': 'history-kept kept',
      'PipelineRun claim-owner': 'dependent-kept kept',
      'PipelineRun secret-owner': 'dependent-kept kept',
      'PipelineRun goes': 'history-exceeded deleted',
    };
    const live = await passInProcess(server.controlPlane.kubeConfig(), args);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), expected);
    const item = (name: string): ReportDocument['items'][number] | undefined => live.outcome.report.items.find((one) => one.name === name);
    assert.match(item('claim-owner')?.message ?? '', /; but its PersistentVolumeClaim ws-kept would go with it and is kept \(retained: its label tekton-resource-gc\.io\/retain is "true"\)$/);
    assert.match(item('secret-owner')?.message ?? '', /; but its Secret auth-kept would go with it and is kept \(retained: its label tekton-resource-gc\.io\/retain is "true"\)$/);
    assert.deepEqual(await names(namespace, 'pipelineruns'), ['claim-owner', 'newest', 'secret-owner']);

    const explained = await runCli(['explain', `pipelinerun/${namespace}/claim-owner`, '--min-age', '0s', '--keep', '1', '--output', 'json', '--kubeconfig', server.controlPlane.kubeconfigPath]);
    assert.equal(explained.code, 0, explained.stderr);
    const document = JSON.parse(explained.stdout) as { decision: { action: string; reason: string; rule: number; message: string } };
    assert.deepEqual([document.decision.action, document.decision.reason, document.decision.rule], ['keep', 'dependent-kept', 14]);
    assert.match(document.decision.message, /its PersistentVolumeClaim ws-kept would go with it and is kept/);
  });
});

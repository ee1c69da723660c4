/**
 * The run collectors, pipelineruns and taskruns, against a real kube-apiserver (docs/spec.md,
 * "Runs"): history per outcome and group, --group-by, a TTL alone and with limits, retained
 * runs and namespaces, active runs (pending, running, cancel requested), no policy, Results
 * not stored, a child TaskRun never a target, a run already being deleted, and a rerun by name
 * between the listing and its DELETE (the uid precondition refuses it). Tekton's controller
 * does not run: runs are made as it leaves them (the object, then its status through /status).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { ReportDocument } from '../../src/report/model.js';
import { passInProcess } from '../support/pass.js';
import { useControlPlane } from '../support/realserver.js';
import { hoursAgo, runStatus, type KubeObject, type RunStatusSpec } from '../support/tekton.js';

const PREFIX = 'tekton-resource-gc.io';

type Kind = 'PipelineRun' | 'TaskRun';

interface RunSpec {
  kind?: Kind;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** A child TaskRun: owned by this PipelineRun. */
  owner?: { name: string; uid: string };
  /** spec.status, e.g. Cancelled (asked, not yet done). */
  specStatus?: string;
  finalizers?: string[];
}

/** `kind name -> reason result` of a report's items. */
function results(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.name}`, `${item.reason} ${item.result}`]));
}

describe('pipelineruns and taskruns on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let custom: CustomObjectsApi;
  before(() => {
    custom = server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  const plural = (kind: Kind): string => (kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns');

  /** A v1 run of `pipeline` (PipelineRun) or of its Task (TaskRun), then its status through /status as Tekton writes it. */
  async function run(namespace: string, name: string, status: RunStatusSpec, spec: RunSpec = {}): Promise<KubeObject> {
    const kind = spec.kind ?? 'PipelineRun';
    const body: KubeObject = {
      apiVersion: 'tekton.dev/v1',
      kind,
      metadata: {
        name,
        namespace,
        ...(spec.labels !== undefined && { labels: spec.labels }),
        ...(spec.annotations !== undefined && { annotations: spec.annotations }),
        ...(spec.owner !== undefined && { ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: spec.owner.name, uid: spec.owner.uid, controller: true }] }),
        ...(spec.finalizers !== undefined && { finalizers: spec.finalizers }),
      },
      spec: {
        ...(kind === 'PipelineRun' ? { pipelineRef: { name: 'build' } } : { taskRef: { name: 'lint' } }),
        ...(spec.specStatus !== undefined && { status: spec.specStatus }),
      },
    };
    const created = (await custom.createNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: plural(kind), body })) as KubeObject;
    const startedAt = 'finishedAt' in status ? new Date(Date.parse(status.finishedAt) - 300_000).toISOString() : new Date().toISOString();
    return (await custom.replaceNamespacedCustomObjectStatus({
      group: 'tekton.dev',
      version: 'v1',
      namespace,
      plural: plural(kind),
      name,
      body: { ...created, status: runStatus(kind, status, startedAt) },
    })) as KubeObject;
  }

  const done = (hours: number, state: 'succeeded' | 'failed' | 'cancelled' = 'succeeded'): RunStatusSpec => ({ state, finishedAt: hoursAgo(hours) });
  const pipeline = (name: string): Record<string, string> => ({ 'tekton.dev/pipeline': name });

  async function names(namespace: string, kind: Kind = 'PipelineRun'): Promise<string[]> {
    const list = (await custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: plural(kind) })) as { items: KubeObject[] };
    return list.items.map((item) => item.metadata.name).sort();
  }

  const pass = (namespace: string, args: readonly string[], hooks: Parameters<typeof passInProcess>[2] = {}): ReturnType<typeof passInProcess> =>
    passInProcess(server.controlPlane.kubeConfig(), ['--namespace', namespace, '--min-age', '0s', ...args], hooks);

  test('history per outcome and group: the N newest of each outcome stay, cancelled counts as failed, a child TaskRun (by owner or by label alone) is no target; the live pass deletes what the dry run said', async () => {
    const namespace = 'runs-history';
    await server.seed.namespace(namespace);
    const s3 = await run(namespace, 'build-s3', done(3), { labels: pipeline('build') });
    await run(namespace, 'build-s1', done(1), { labels: pipeline('build') });
    await run(namespace, 'build-s2', done(2), { labels: pipeline('build') });
    await run(namespace, 'build-f1', done(4, 'failed'), { labels: pipeline('build') });
    await run(namespace, 'build-c1', done(5, 'cancelled'), { labels: pipeline('build') });
    await run(namespace, 'test-s1', done(6), { labels: pipeline('test') });
    await run(namespace, 'test-s2', done(7), { labels: pipeline('test') });
    await run(namespace, 'lint-1', done(1), { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' } });
    await run(namespace, 'lint-2', done(2), { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' } });
    await run(namespace, 'build-s3-compile', done(3), { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' }, owner: { name: 'build-s3', uid: s3.metadata.uid ?? '' } });
    // build-s1's by its label alone, no owner (orphaned by hand): no target, nor does it hold a place among lint's.
    await run(namespace, 'build-s1-lint', done(0.5), { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint', 'tekton.dev/pipelineRun': 'build-s1' } });

    const args = ['--collect', 'pipelineruns,taskruns', '--keep-successful', '1', '--keep-failed', '1'];
    const expected = {
      'PipelineRun build-s1': 'history-kept kept',
      'PipelineRun build-s2': 'history-exceeded would-delete',
      'PipelineRun build-s3': 'history-exceeded would-delete',
      'PipelineRun build-f1': 'history-kept kept',
      'PipelineRun build-c1': 'history-exceeded would-delete',
      'PipelineRun test-s1': 'history-kept kept',
      'PipelineRun test-s2': 'history-exceeded would-delete',
      'TaskRun lint-1': 'history-kept kept',
      'TaskRun lint-2': 'history-exceeded would-delete',
    };
    const dry = await pass(namespace, [...args, '--dry-run']);
    assert.equal(dry.outcome.exitCode, 0);
    assert.deepEqual(results(dry.outcome.report), expected);
    assert.match(dry.outcome.report.items.find((item) => item.name === 'build-c1')?.message ?? '', /2nd newest of 2 failed runs in group tekton\.dev\/pipeline=build; --keep-failed keeps 1/);
    assert.deepEqual(await names(namespace), ['build-c1', 'build-f1', 'build-s1', 'build-s2', 'build-s3', 'test-s1', 'test-s2']);

    const live = await pass(namespace, args);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, value.replace('would-delete', 'deleted')])));
    assert.deepEqual(await names(namespace), ['build-f1', 'build-s1', 'test-s1']);
    // No garbage collector runs here: the child TaskRun stays, as the pass never sent it a DELETE.
    assert.deepEqual(await names(namespace, 'TaskRun'), ['build-s1-lint', 'build-s3-compile', 'lint-1']);
  });

  test('--group-by groups by a label of its own before the Pipeline; runs without it fall back to theirs', async () => {
    const namespace = 'runs-group-by';
    await server.seed.namespace(namespace);
    const pac = 'pipelinesascode.tekton.dev/original-prname';
    await run(namespace, 'on-push-abc', done(1), { labels: { [pac]: 'on-push', ...pipeline('on-push-abc') } });
    await run(namespace, 'on-push-def', done(2), { labels: { [pac]: 'on-push', ...pipeline('on-push-def') } });
    await run(namespace, 'nightly', done(3), { labels: pipeline('nightly') });
    const args = ['--collect', 'pipelineruns', '--keep', '1', '--dry-run'];
    assert.deepEqual(results((await pass(namespace, [...args, '--group-by', pac])).outcome.report), {
      'PipelineRun on-push-abc': 'history-kept kept',
      'PipelineRun on-push-def': 'history-exceeded would-delete',
      'PipelineRun nightly': 'history-kept kept',
    });
    // Without it, each run of an embedded spec is a Pipeline of its own.
    assert.deepEqual(results((await pass(namespace, args)).outcome.report), {
      'PipelineRun on-push-abc': 'history-kept kept',
      'PipelineRun on-push-def': 'history-kept kept',
      'PipelineRun nightly': 'history-kept kept',
    });
  });

  test('a TTL alone, with a limit, and from a namespace label', async () => {
    const namespace = 'runs-ttl';
    await server.seed.namespace(namespace);
    await run(namespace, 'fresh', done(1), { labels: pipeline('build') });
    await run(namespace, 'old', done(30), { labels: pipeline('build') });
    await run(namespace, 'older', done(40), { labels: pipeline('build') });
    await run(namespace, 'failed-old', done(50, 'failed'), { labels: pipeline('build') });
    const ttl = ['--collect', 'pipelineruns', '--run-ttl', '1d', '--dry-run'];
    assert.deepEqual(results((await pass(namespace, ttl)).outcome.report), {
      'PipelineRun fresh': 'ttl-not-reached kept',
      'PipelineRun old': 'ttl-expired would-delete',
      'PipelineRun older': 'ttl-expired would-delete',
      'PipelineRun failed-old': 'ttl-expired would-delete',
    });
    // With a limit on the successful ones: its N newest stay however old, the rest go; the TTL decides the failed ones.
    assert.deepEqual(results((await pass(namespace, [...ttl, '--keep-successful', '2'])).outcome.report), {
      'PipelineRun fresh': 'history-kept kept',
      'PipelineRun old': 'history-kept kept',
      'PipelineRun older': 'history-exceeded would-delete',
      'PipelineRun failed-old': 'ttl-expired would-delete',
    });
    // The namespace's label wins over the flag.
    const labelled = 'runs-ttl-labelled';
    await server.seed.namespace(labelled, { [`${PREFIX}/run-ttl`]: '60d' });
    await run(labelled, 'old', done(30), { labels: pipeline('build') });
    const report = (await pass(labelled, ttl)).outcome.report;
    assert.deepEqual(results(report), { 'PipelineRun old': 'ttl-not-reached kept' });
    assert.match(report.items[0]?.message ?? '', new RegExp(`run TTL 60d \\(namespace ${labelled} label ${PREFIX}/run-ttl\\) ends at`));
  });

  test('never a retained run, a retained namespace, an active run (pending, running, cancel requested), nor one Results has not stored', async () => {
    const namespace = 'runs-kept';
    await server.seed.namespace(namespace);
    await run(namespace, 'retained', done(2), { labels: { ...pipeline('build'), [`${PREFIX}/retain`]: 'true' } });
    await run(namespace, 'pending', { state: 'pending' }, { labels: pipeline('build'), specStatus: 'PipelineRunPending' });
    await run(namespace, 'running', { state: 'running' }, { labels: pipeline('build') });
    await run(namespace, 'cancelling', { state: 'running' }, { labels: pipeline('build'), specStatus: 'Cancelled' });
    await run(namespace, 'stored', done(3), { labels: pipeline('build'), annotations: { 'results.tekton.dev/stored': 'true' } });
    await run(namespace, 'not-stored', done(4), { labels: pipeline('build'), annotations: { 'results.tekton.dev/stored': 'false' } });
    const args = ['--collect', 'pipelineruns', '--keep', '0', '--require-results-stored'];
    const live = await pass(namespace, args);
    assert.equal(live.outcome.exitCode, 0, JSON.stringify(live.outcome.report.errors));
    assert.deepEqual(results(live.outcome.report), {
      'PipelineRun retained': 'retained kept',
      'PipelineRun pending': 'run-active kept',
      'PipelineRun running': 'run-active kept',
      'PipelineRun cancelling': 'run-active kept',
      'PipelineRun stored': 'history-exceeded deleted',
      'PipelineRun not-stored': 'results-not-stored kept',
    });
    assert.deepEqual(await names(namespace), ['cancelling', 'not-stored', 'pending', 'retained', 'running']);

    const retainedNs = 'runs-retained-ns';
    await server.seed.namespace(retainedNs, { [`${PREFIX}/retain`]: 'true' });
    await run(retainedNs, 'old', done(100), { labels: pipeline('build') });
    assert.deepEqual(results((await pass(retainedNs, ['--collect', 'pipelineruns', '--keep', '0'])).outcome.report), { 'PipelineRun old': 'namespace-retained kept' });
    assert.deepEqual(await names(retainedNs), ['old']);
  });

  test('without a policy the pass warns once and keeps every run (no-run-policy)', async () => {
    const namespace = 'runs-no-policy';
    await server.seed.namespace(namespace);
    await run(namespace, 'a', done(100), { labels: pipeline('build') });
    await run(namespace, 'b', done(200), { labels: pipeline('build') });
    const live = await pass(namespace, ['--collect', 'pipelineruns']);
    assert.deepEqual(results(live.outcome.report), { 'PipelineRun a': 'no-run-policy kept', 'PipelineRun b': 'no-run-policy kept' });
    assert.equal((live.outcome.report.warnings ?? []).filter((warning) => warning.startsWith('pipelineruns: no --keep')).length, 1);
    assert.deepEqual(await names(namespace), ['a', 'b']);
  });

  test('a rerun with a reused name, deleted and made again between the listing and its DELETE: the uid precondition refuses it', async () => {
    const namespace = 'runs-rerun';
    await server.seed.namespace(namespace);
    await run(namespace, 'newest', done(1), { labels: pipeline('build') });
    const first = await run(namespace, 'nightly', done(5), { labels: pipeline('build') });
    const live = await pass(namespace, ['--collect', 'pipelineruns', '--keep', '1'], {
      beforeDelete: async (target) => {
        if (target.name !== 'nightly') return;
        await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'nightly' });
        await run(namespace, 'nightly', done(6), { labels: pipeline('build') });
      },
    });
    assert.deepEqual(results(live.outcome.report), { 'PipelineRun newest': 'history-kept kept', 'PipelineRun nightly': 'history-exceeded changed' });
    const again = (await custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'nightly' })) as KubeObject;
    assert.notEqual(again.metadata.uid, first.metadata.uid);
  });

  test('the re-check reads a changed run again: retained after the listing, it is kept as retained, not refused as changed', async () => {
    const namespace = 'runs-recheck';
    await server.seed.namespace(namespace);
    await run(namespace, 'newest', done(1), { labels: pipeline('build') });
    await run(namespace, 'middle', done(2), { labels: pipeline('build') });
    await run(namespace, 'oldest', done(3), { labels: pipeline('build') });
    const live = await pass(namespace, ['--collect', 'pipelineruns', '--keep', '2'], {
      afterListing: async () => {
        // Between the listing and the re-check, someone retains the oldest.
        const current = (await custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'oldest' })) as KubeObject;
        const labels = { ...current.metadata.labels, [`${PREFIX}/retain`]: 'true' };
        await custom.replaceNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'oldest', body: { ...current, metadata: { ...current.metadata, labels } } });
      },
    });
    const item = live.outcome.report.items.find((one) => one.name === 'oldest');
    assert.deepEqual([item?.reason, item?.result], ['retained', 'kept']);
    assert.match(item?.message ?? '', /seen when re-checking before deleting/);
    assert.deepEqual(await names(namespace), ['middle', 'newest', 'oldest']);
  });

  test('a run already being deleted holds no place in its history and is sent no second DELETE', async () => {
    const namespace = 'runs-deleting';
    await server.seed.namespace(namespace);
    await run(namespace, 'going', done(1), { labels: pipeline('build'), finalizers: ['example.com/hold'] });
    await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'going' });
    await run(namespace, 'r1', done(2), { labels: pipeline('build') });
    await run(namespace, 'r2', done(3), { labels: pipeline('build') });
    const live = await pass(namespace, ['--collect', 'pipelineruns', '--keep', '1']);
    assert.deepEqual(results(live.outcome.report), {
      'PipelineRun going': 'history-exceeded terminating',
      'PipelineRun r1': 'history-kept kept',
      'PipelineRun r2': 'history-exceeded deleted',
    });
    assert.match(live.outcome.report.items.find((item) => item.name === 'r2')?.message ?? '', /^2nd newest of 2 succeeded runs in group tekton\.dev\/pipeline=build; --keep keeps 1$/);
    assert.deepEqual(await names(namespace), ['going', 'r1']);
  });
});

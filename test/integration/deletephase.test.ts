/**
 * The delete phase against a real API server, through the fault proxy: a throttled or
 * failed delete is never retried on a stale view, a delete whose answer was lost is
 * reported as what happened, the window between the last read and a delete is measured,
 * and a refresh over many running runs costs a few lists, not a request per run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { PassedOverRuns, runsNeededBy } from '../../src/core/needed.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { DEFAULT_RETRY, KubeHttp } from '../../src/kube/http.js';
import { RECHECK_INTERVAL_MS } from '../../src/pass/deletephase.js';
import { matches, startFaultProxy, type FaultProxy, type SeenRequest } from '../support/faultproxy.js';
import { connectionFor, passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, pipelineRun, taskRun } from '../support/tekton.js';

/** Figures for the closing note and README, printed when the file ends. */
const figures: Record<string, unknown> = { wrongDeletions: 0 };

function deleteOf(name: string): (request: SeenRequest) => boolean {
  return (request) => matches.delete('pipelineresources')(request) && request.path.endsWith(`/${name}`);
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('delete phase on a real API server', () => {
  let controlPlane: ControlPlane;
  let proxy: FaultProxy;
  let seed: Seeder;
  let counter = 0;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
  });
  after(async () => {
    await proxy?.stop();
    await controlPlane?.stop();
    process.stdout.write(`# delete phase figures: ${JSON.stringify(figures)}\n`);
  });

  /** A namespace with `count` unreferenced targets `cand-NN`, all collectable. */
  async function candidates(count: number): Promise<{ namespace: string; names: string[] }> {
    const namespace = `dp-${++counter}`;
    await seed.namespace(namespace);
    const names = Array.from({ length: count }, (_, index) => `cand-${String(index).padStart(2, '0')}`);
    for (const name of names) await seed.create(gitResource({ name, namespace }, name));
    return { namespace, names };
  }

  const args = (namespace: string, more: string[] = [], concurrency = 1): string[] => ['--namespace', namespace, '--min-age', '0s', '--concurrency', String(concurrency), '--request-timeout', '5s', ...more];

  /**
   * The throttled candidate is refused with `fault` on its first DELETEs; once the first
   * refusal is seen, a running PipelineRun naming it is created, as a CI system would.
   */
  async function refusedWhileARunStarts(faults: { status: number; retryAfterSeconds: number; times: number }) {
    const { namespace, names } = await candidates(3);
    const throttled = 'cand-01';
    proxy.reset([
      {
        name: `${faults.status} on ${throttled}`,
        match: deleteOf(throttled),
        when: { first: faults.times },
        fault: { kind: 'status', status: faults.status, retryAfterSeconds: faults.retryAfterSeconds },
      },
    ]);
    const running = passInProcess(proxy.kubeConfig(), args(namespace));
    await until(() => proxy.injected.length >= 1, 'the first refused delete');
    await seed.create(pipelineRun('v1beta1', { name: 'arrived', namespace }, { resources: [throttled] }), { state: 'running' });
    const pass = await running;
    const remaining = await seed.remainingTargets(namespace);
    if (!remaining.includes(throttled)) figures['wrongDeletions'] = (figures['wrongDeletions'] as number) + 1;
    return { pass, remaining, namespace, names, throttled };
  }

  test('429 with Retry-After 10 s on a delete, a running run naming it created during the wait: kept, never deleted', async () => {
    const { pass, remaining, throttled } = await refusedWhileARunStarts({ status: 429, retryAfterSeconds: 10, times: 1 });
    const item = pass.outcome.report.items.find((entry) => entry.name === throttled);
    assert.deepEqual(remaining, [throttled], 'the throttled candidate survives, the others are deleted');
    assert.equal(item?.result, 'kept');
    assert.equal(item?.reason, 'referenced-by-active-run');
    assert.deepEqual(item?.references.map((reference) => `${reference.name}:${reference.state}`), ['arrived:running']);
    assert.equal(proxy.requests.filter(deleteOf(throttled)).length, 1, 'no second DELETE of the kept candidate');
    assert.equal(pass.outcome.exitCode, 0);
    // The wait was the server's 10 s: a re-check after it, before any further delete.
    assert.ok(pass.elapsedMs >= 10_000, `${pass.elapsedMs} ms`);
  });

  test('three 503s with Retry-After 4 s, a running run naming it created during the first wait: kept, never deleted', async () => {
    const { pass, remaining, throttled } = await refusedWhileARunStarts({ status: 503, retryAfterSeconds: 4, times: 3 });
    const item = pass.outcome.report.items.find((entry) => entry.name === throttled);
    assert.deepEqual(remaining, [throttled]);
    assert.equal(item?.result, 'kept');
    assert.equal(item?.reason, 'referenced-by-active-run');
    // The second attempt (4 s in) may stand on the view read before the phase; the third (8 s in) cannot.
    const attempts = proxy.requests.filter(deleteOf(throttled)).length;
    assert.ok(attempts >= 1 && attempts <= 2, `${attempts} DELETEs of the kept candidate`);
    assert.equal(pass.outcome.exitCode, 0);
  });

  test('the connection is reset after the server deleted: reported deleted or gone, never failed', async () => {
    const { namespace, names } = await candidates(3);
    proxy.reset([{ name: 'reset after forward', match: deleteOf('cand-00'), when: { first: 1 }, fault: { kind: 'reset-after-forward' } }]);
    const pass = await passInProcess(proxy.kubeConfig(), args(namespace));
    const item = pass.outcome.report.items.find((entry) => entry.name === 'cand-00');
    assert.ok(item?.result === 'deleted' || item?.result === 'gone', `result ${item?.result ?? 'none (no item)'}`);
    assert.deepEqual(await seed.remainingTargets(namespace), []);
    assert.equal(pass.outcome.exitCode, 0);
    assert.equal(names.length, 3);
  });

  test('the answer to every attempt is lost after the server acted: gone, not failed', async () => {
    const { namespace } = await candidates(1);
    proxy.reset([{ name: 'reset after forward', match: deleteOf('cand-00'), when: { always: true }, fault: { kind: 'reset-after-forward' } }]);
    const pass = await passInProcess(proxy.kubeConfig(), args(namespace, ['--max-retries', '0']));
    const item = pass.outcome.report.items.find((entry) => entry.name === 'cand-00');
    assert.equal(item?.result, 'gone');
    assert.match(item?.message ?? '', /an earlier delete attempt got no answer \(.*\) and it is gone since$/);
    assert.equal(pass.outcome.exitCode, 0);
  });

  test('the window: over 12 s of deletes at --qps 3, no DELETE starts more than the re-check interval after the read it stands on began', async () => {
    const { namespace, names } = await candidates(36);
    proxy.reset([]);
    const pass = await passInProcess(proxy.kubeConfig(), args(namespace, ['--qps', '3'], 2));
    assert.equal(pass.outcome.exitCode, 0);
    assert.equal(pass.outcome.report.summary.results.deleted, names.length);
    // A re-check begins with a metadata list of the namespace's PipelineRuns and ends with
    // a read of the Namespace; a DELETE stands on the newest re-check that had ended
    // before it was sent (one still reading is not counted: that would flatter the figure).
    const inNamespace = matches.inNamespace(namespace);
    const rechecks = proxy.requests
      .filter((request) => matches.metadataList(request) && inNamespace(request) && request.path.endsWith('/pipelineruns'))
      .map((start) => ({
        start: start.at,
        end: proxy.requests.find((request) => request.seq > start.seq && request.method === 'GET' && request.path === `/api/v1/namespaces/${namespace}`)?.at ?? Infinity,
      }));
    const deletes = proxy.requests.filter((request) => matches.delete('pipelineresources')(request) && inNamespace(request));
    const ages = deletes.map((request) => request.at - Math.max(...rechecks.filter((recheck) => recheck.end <= request.at).map((recheck) => recheck.start)));
    const oldest = Math.max(...ages);
    figures['windowOldestViewMs'] = oldest;
    figures['windowRechecks'] = rechecks.length;
    figures['windowDeletes'] = deletes.length;
    assert.ok(rechecks.length >= 3, `${rechecks.length} re-checks over ${deletes.length} deletes`);
    assert.ok(oldest <= RECHECK_INTERVAL_MS, `a DELETE was sent ${oldest} ms after the start of the re-check it stood on`);
  });

  test('runs the listing passed over are neither new nor changed at the re-check, until one changes', async () => {
    const namespace = `dp-${++counter}`;
    await seed.namespace(namespace);
    await seed.create(gitResource({ name: 'cand', namespace }, 'c'));
    const parent = await seed.create(pipelineRun('v1beta1', { name: 'build', namespace }, { resources: ['cand'] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    // A PipelineRun's children as old Tekton made them: resources embedded, naming nothing.
    const owner = { apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build', uid: parent.uid, controller: true };
    for (const task of ['fetch', 'build', 'scan']) {
      await seed.create(taskRun('v1beta1', { name: `build-${task}`, namespace, ownerReferences: [owner] }, { inputs: [], outputs: [] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    }
    await seed.create(taskRun('v1beta1', { name: 'scan', namespace }, { inputs: ['cand'], outputs: [] }), { state: 'succeeded', finishedAt: hoursAgo(1) });
    const http = await KubeHttp.create(await connectionFor(controlPlane.kubeConfig()), { maxSockets: 2, retry: DEFAULT_RETRY, requestTimeoutMs: 30_000 });
    try {
      const cluster = new KubeCluster(http, 500);
      const apis = await cluster.discover();
      const scope = { namespaces: [namespace], excludeNamespaces: [], selector: '' };
      const targets = await cluster.listTargets(apis, scope);
      const passedOver = new PassedOverRuns(runsNeededBy(targets), { versions: true });
      const listed = await cluster.listRuns(apis, scope, [namespace], passedOver);
      assert.deepEqual(listed.map((run) => `${run.kind}/${run.name}`).sort(), ['PipelineRun/build', 'TaskRun/scan']);
      assert.equal(passedOver.count, 3);

      // Without their versions the children look new: their namespace is listed again in full.
      const unknown = await cluster.runsChangedSince(apis, listed, [namespace], scope);
      assert.deepEqual(unknown.changed.map((run) => run.name).sort(), ['build-build', 'build-fetch', 'build-scan']);

      const quiet = http.stats.requests;
      const unchanged = await cluster.runsChangedSince(apis, listed, [namespace], scope, passedOver.versions);
      assert.deepEqual([unchanged.changed.length, unchanged.goneUids.size], [0, 0]);
      // The metadata lists alone, one per kind.
      assert.equal(http.stats.requests - quiet, 2);

      await seed.label('TaskRun', namespace, 'build-fetch', { touched: 'yes' });
      const touched = await cluster.runsChangedSince(apis, listed, [namespace], scope, passedOver.versions);
      assert.deepEqual(touched.changed.map((run) => run.name), ['build-fetch']);
      assert.equal(touched.goneUids.size, 0);
    } finally {
      http.close();
    }
  });

  test('a refresh over 1,000 running runs costs a few lists per kind, not a request per run', async () => {
    const namespace = `dp-${++counter}`;
    await seed.namespace(namespace);
    await seed.create(gitResource({ name: 'cand', namespace }, 'c'));
    for (let index = 0; index < 1_000; index++) {
      await seed.create(pipelineRun('v1beta1', { name: `busy-${index}`, namespace }, { resources: [] }));
    }
    await seed.create(pipelineRun('v1beta1', { name: 'old', namespace }, { resources: ['cand'] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    const http = await KubeHttp.create(await connectionFor(controlPlane.kubeConfig()), { maxSockets: 2, retry: DEFAULT_RETRY, requestTimeoutMs: 30_000 });
    try {
      const cluster = new KubeCluster(http, 500);
      const apis = await cluster.discover();
      assert.ok(apis !== null);
      const scope = { namespaces: [namespace], excludeNamespaces: [], selector: '' };
      const listed = await cluster.listRuns(apis, scope);
      assert.equal(listed.length, 1_001);
      // As if every run had moved on since the listing (a status update each): all changed.
      const stale = listed.map((run) => ({ ...run, resourceVersion: '1' }));
      const before = http.stats.requests;
      const { changed, goneUids } = await cluster.runsChangedSince(apis, stale, [namespace], scope);
      const requests = http.stats.requests - before;
      figures['refreshRequestsFor1001ChangedRuns'] = requests;
      assert.equal(changed.length, 1_001);
      assert.equal(goneUids.size, 0);
      // PipelineRuns: 3 metadata pages and 3 full pages; TaskRuns: 1 metadata page.
      assert.equal(requests, 7);

      // Nothing changed: only the metadata lists.
      const quiet = http.stats.requests;
      const unchanged = await cluster.runsChangedSince(apis, listed, [namespace], scope);
      assert.deepEqual([unchanged.changed.length, unchanged.goneUids.size], [0, 0]);
      assert.equal(http.stats.requests - quiet, 4);
    } finally {
      http.close();
    }
  });
});

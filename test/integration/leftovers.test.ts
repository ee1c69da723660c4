/**
 * The leftover collectors against a real kube-apiserver (docs/spec.md, "Leftovers"): opt-in
 * with --collect, a claim of a finished run left Terminating by its finalizer (keep) or gone
 * (purge), objects that change or vanish between listing and delete, the per-kind cap, an
 * identity that may not list Pods, claims already Terminating, Secrets read as metadata only,
 * and a cluster whose run CRDs are gone. The server keeps kubernetes.io/pvc-protection on
 * every claim (no controller manager runs); the tests say where they remove it themselves.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { ReportDocument } from '../../src/report/model.js';
import { reportOf, runCli } from '../support/cli.js';
import { startFaultProxy, type FaultProxy } from '../support/faultproxy.js';
import { LeftoverSeeder, PVC_PROTECTION, SNAPSHOT_SOURCE_PROTECTION, type RunOwner } from '../support/leftovers.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, pipelineRun } from '../support/tekton.js';

/** `kind name -> reason result` of a report's items. */
function results(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.name}`, `${item.reason} ${item.result}`]));
}

describe('leftovers on a bare kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let leftovers: LeftoverSeeder;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    leftovers = new LeftoverSeeder(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  const cli = (args: readonly string[], kubeconfig = controlPlane.kubeconfigPath): ReturnType<typeof runCli> =>
    runCli([...args, '--output', 'json', '--kubeconfig', kubeconfig]);

  /** A namespace with a finished PipelineRun that owns what the test adds. */
  async function finishedRunIn(namespace: string, name = 'build-done'): Promise<RunOwner> {
    await seed.namespace(namespace);
    const run = await seed.create(pipelineRun('v1beta1', { name, namespace }, { resources: [] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    return { kind: 'PipelineRun', name, uid: run.uid };
  }

  test('1: without --collect, leftovers are neither reported nor touched', async () => {
    const namespace = 'lo-default';
    const owner = await finishedRunIn(namespace);
    await seed.create(gitResource({ name: 'src-orphan', namespace }, 'abc'));
    await leftovers.ownedClaim(namespace, 'pvc-3f5a0c9e1b', owner);
    await leftovers.pacSecret(namespace, 'pac-gitauth-abcdef', owner);
    await leftovers.affinityStatefulSet(namespace, 'affinity-assistant-0123456789', owner);
    const result = await cli(['--namespace', namespace, '--min-age', '0s']);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(results(report), { 'PipelineResource src-orphan': 'unreferenced deleted' });
    assert.deepEqual(await leftovers.remaining(namespace), { claims: ['pvc-3f5a0c9e1b'], secrets: ['pac-gitauth-abcdef'], statefulSets: ['affinity-assistant-0123456789'] });
    assert.equal((await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b'))?.deletionTimestamp, undefined);
  });

  test('2: a claim owned by a finished PipelineRun, no Pods, keep mode: runs-finished, terminating (its finalizer stays)', async () => {
    const namespace = 'lo-keep';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-3f5a0c9e1b', owner);
    const result = await cli(['--collect', 'workspace-pvcs', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(results(report), { 'PersistentVolumeClaim pvc-3f5a0c9e1b': 'runs-finished terminating' });
    const claim = await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b');
    assert.ok(claim?.deletionTimestamp !== undefined, 'the claim is Terminating');
    assert.deepEqual(claim.finalizers, [PVC_PROTECTION]);

    // A second pass sends no second DELETE: the claim is reported as it is, nothing changes.
    const again = await cli(['--collect', 'workspace-pvcs', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(results(reportOf(again)), { 'PersistentVolumeClaim pvc-3f5a0c9e1b': 'runs-finished terminating' });
    assert.deepEqual((await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b'))?.deletionTimestamp, claim.deletionTimestamp);
    await leftovers.dropFinalizers(namespace, 'pvc-3f5a0c9e1b');
  });

  test('3: the same under --pvc-finalizer purge: deleted, then 404', async () => {
    const namespace = 'lo-purge';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-3f5a0c9e1b', owner);
    // A Pod that used it and finished does not hold it.
    await leftovers.pod(namespace, 'build-done-fetch-pod', ['pvc-3f5a0c9e1b'], 'Succeeded');
    const result = await cli(['--collect', 'workspace-pvcs', '--pvc-finalizer', 'purge', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(results(reportOf(result)), { 'PersistentVolumeClaim pvc-3f5a0c9e1b': 'runs-finished deleted' });
    assert.equal(await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b'), null);
  });

  test('21: relabelled between listing and delete: changed; deleted meanwhile: gone', async () => {
    const namespace = 'lo-race';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-relabelled', owner);
    await leftovers.ownedClaim(namespace, 'pvc-vanished', owner);
    await leftovers.pacSecret(namespace, 'pac-gitauth-vanish', owner);
    await leftovers.pacSecret(namespace, 'pac-gitauth-stays', owner);
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--collect', 'pac-secrets,workspace-pvcs', '--pvc-finalizer', 'purge', '--namespace', namespace, '--min-age', '0s'], {
      afterRunsListed: async () => {
        await leftovers.labelClaim(namespace, 'pvc-relabelled', { 'tekton-resource-gc.io/retain': 'true' });
        await leftovers.removeClaim(namespace, 'pvc-vanished');
        await leftovers.core.deleteNamespacedSecret({ name: 'pac-gitauth-vanish', namespace });
      },
    });
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(results(outcome.report), {
      'PersistentVolumeClaim pvc-relabelled': 'runs-finished changed',
      'PersistentVolumeClaim pvc-vanished': 'runs-finished gone',
      'Secret pac-gitauth-stays': 'runs-finished deleted',
      'Secret pac-gitauth-vanish': 'runs-finished gone',
    });
    const claim = await leftovers.claimNow(namespace, 'pvc-relabelled');
    assert.ok(claim !== null && claim.deletionTimestamp === undefined, 'the relabelled claim was not deleted');
  });

  test('22: six deletable claims with --max-deletions-per-kind workspace-pvcs=5: every candidate aborted, exit 3, nothing deleted', async () => {
    const namespace = 'lo-capped';
    const owner = await finishedRunIn(namespace);
    const names = Array.from({ length: 6 }, (_, index) => `pvc-${index}`);
    for (const name of names) await leftovers.ownedClaim(namespace, name, owner);
    await leftovers.pacSecret(namespace, 'pac-gitauth-abcdef', owner);
    const result = await cli(['--collect', 'pac-secrets,workspace-pvcs', '--max-deletions-per-kind', 'workspace-pvcs=5', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.summary.results, { aborted: 7 });
    assert.match(report.errors?.[0] ?? '', /6 targets of workspace-pvcs, more than --max-deletions-per-kind workspace-pvcs=5: nothing was deleted/);
    const left = await leftovers.remaining(namespace);
    assert.deepEqual([left.claims, left.secrets], [names, ['pac-gitauth-abcdef']]);
    for (const name of names) assert.equal((await leftovers.claimNow(namespace, name))?.deletionTimestamp, undefined, name);
  });

  test('23: an identity that may not list Pods exits 1 naming the verb and resource, and deletes nothing', async () => {
    const namespace = 'lo-rbac';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-3f5a0c9e1b', owner);
    await controlPlane.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'gc-claims-without-pods' },
        rules: [
          { apiGroups: ['tekton.dev'], resources: ['pipelineruns', 'taskruns'], verbs: ['get', 'list'] },
          { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'delete'] },
          { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['list'] },
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'gc-claims-without-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gc-claims-without-pods' },
        subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace }],
      },
    ] as never);
    const kubeconfig = path.join(controlPlane.dir, 'gc-claims-without-pods.kubeconfig');
    await writeFile(kubeconfig, controlPlane.kubeConfig(await controlPlane.createServiceAccountToken(namespace, 'gc')).exportConfig());
    const result = await cli(['--collect', 'workspace-pvcs', '--namespace', namespace, '--min-age', '0s'], kubeconfig);
    assert.equal(result.code, 1, result.stderr);
    const report = reportOf(result);
    assert.equal(report.items.length, 0);
    assert.match(report.errors?.[0] ?? '', /may not list pods in namespace "lo-rbac"; grant "list" on "pods"/);
    assert.equal((await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b'))?.deletionTimestamp, undefined);
  });

  test('25: claims already Terminating do not count against the caps in keep mode; purge leaves one another finalizer holds', async () => {
    const namespace = 'lo-terminating';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-waiting', owner);
    await leftovers.ownedClaim(namespace, 'pvc-snapshotted', owner, { finalizers: [SNAPSHOT_SOURCE_PROTECTION] });
    for (const name of ['pvc-waiting', 'pvc-snapshotted']) await leftovers.core.deleteNamespacedPersistentVolumeClaim({ name, namespace });
    const before = await leftovers.claimNow(namespace, 'pvc-snapshotted');
    assert.ok(before?.deletionTimestamp !== undefined);

    // Keep: nothing to send, so a cap of 0 is not exceeded.
    const kept = await cli(['--collect', 'workspace-pvcs', '--max-deletions', '0', '--max-deletions-per-kind', 'workspace-pvcs=0', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(results(reportOf(kept)), {
      'PersistentVolumeClaim pvc-snapshotted': 'runs-finished terminating',
      'PersistentVolumeClaim pvc-waiting': 'runs-finished terminating',
    });

    // Purge: a finalizer removal each, which the caps count.
    const capped = await cli(['--collect', 'workspace-pvcs', '--pvc-finalizer', 'purge', '--max-deletions', '1', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(capped.code, 3, capped.stderr);
    assert.deepEqual(reportOf(capped).summary.results, { aborted: 2 });

    const purged = await cli(['--collect', 'workspace-pvcs', '--pvc-finalizer', 'purge', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(purged.code, 0, purged.stderr);
    assert.deepEqual(results(reportOf(purged)), {
      'PersistentVolumeClaim pvc-snapshotted': 'runs-finished terminating',
      'PersistentVolumeClaim pvc-waiting': 'runs-finished deleted',
    });
    assert.equal(await leftovers.claimNow(namespace, 'pvc-waiting'), null);
    // pvc-protection removed; the snapshot's own finalizer never touched.
    assert.deepEqual((await leftovers.claimNow(namespace, 'pvc-snapshotted'))?.finalizers, [SNAPSHOT_SOURCE_PROTECTION]);
    await leftovers.dropFinalizers(namespace, 'pvc-snapshotted');
  });

  describe('Secrets, as metadata only', () => {
    let proxy: FaultProxy;
    before(async () => {
      proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    });
    after(() => proxy?.stop());

    test('every request for secrets asks for PartialObjectMetadata(List), never full objects', async () => {
      const namespace = 'lo-secrets';
      const owner = await finishedRunIn(namespace);
      await leftovers.pacSecret(namespace, 'pac-gitauth-abcdef', owner);
      await leftovers.pacSecret(namespace, 'pac-gitauth-ghijkl');
      // Not Pipelines-as-Code's: never listed (the selector), never touched.
      await leftovers.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'registry-creds', namespace }, stringData: { token: 'x' } } });
      proxy.reset([]);
      const { outcome } = await passInProcess(proxy.kubeConfig(), ['--collect', 'pac-secrets', '--namespace', namespace, '--min-age', '0s']);
      assert.equal(outcome.exitCode, 0);
      assert.deepEqual(results(outcome.report), { 'Secret pac-gitauth-abcdef': 'runs-finished deleted', 'Secret pac-gitauth-ghijkl': 'unreferenced deleted' });
      const secrets = proxy.requests.filter((request) => /\/secrets(\/|$)/.test(request.path));
      assert.deepEqual([...new Set(secrets.map((request) => request.method))].sort(), ['DELETE', 'GET']);
      for (const request of secrets) {
        const wanted = request.method === 'GET' && !/\/secrets\/[^/]+$/.test(request.path) ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
        assert.equal(request.accept, `application/json;as=${wanted};g=meta.k8s.io;v=v1`, `${request.method} ${request.path}`);
      }
      assert.deepEqual((await leftovers.remaining(namespace)).secrets, ['registry-creds']);
    });
  });

  // Last: it removes the run CRDs from this control plane.
  test('27: run CRDs absent: one line, exit 0, nothing deleted', async () => {
    const namespace = 'lo-no-runs';
    const owner = await finishedRunIn(namespace);
    await leftovers.ownedClaim(namespace, 'pvc-3f5a0c9e1b', owner);
    const crds = controlPlane.kubeConfig().makeApiClient(ApiextensionsV1Api);
    for (const name of ['pipelineruns.tekton.dev', 'taskruns.tekton.dev']) await crds.deleteCustomResourceDefinition({ name });
    // The server stops serving them once their objects are cleaned up: wait for discovery to say so.
    for (let tries = 0; ; tries++) {
      const served = await crds.listCustomResourceDefinition();
      if (!served.items.some((crd) => crd.metadata?.name === 'pipelineruns.tekton.dev' || crd.metadata?.name === 'taskruns.tekton.dev')) break;
      assert.ok(tries < 300, 'the run CRDs are still there after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await runCli(['--collect', 'workspace-pvcs', '--namespace', namespace, '--min-age', '0s', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.split('\n').filter((line) => line !== ''), [
      'pipelineruns.tekton.dev and taskruns.tekton.dev are not served by this cluster: workspace-pvcs skipped, since without runs every leftover would look ownerless',
    ]);
    assert.equal((await leftovers.claimNow(namespace, 'pvc-3f5a0c9e1b'))?.deletionTimestamp, undefined);
  });
});

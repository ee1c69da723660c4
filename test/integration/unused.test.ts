/**
 * A claim's `Unused` condition on a real kube-apiserver (issue 31; KEP-5541: Kubernetes 1.37's
 * PVC protection controller writes it, beta, on by default): where it is `False`
 * (`PodUsingPVC`) the claim is kept as `in-use-by-pod`, whatever the Pod list says; where it is
 * `True` or `Unknown` the Pod list decides, as where it is absent. The bare server runs no such
 * controller (and is v1.35): the test writes the condition through the claim's status
 * subresource, as the controller does, and reads back that the server stored it.
 *
 * Its owner run finished and no Pod uses any claim here, so each one kept is kept by its
 * condition alone. A condition written after the listing is seen by the re-check before the
 * deletes; one written after that re-check, right before the DELETE, changes the claim's
 * resourceVersion, so the DELETE's precondition refuses it (`changed`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { TargetRecord } from '../../src/core/types.js';
import { Objects, controllerRef, itemOf, verdicts, workspaceRun } from '../support/objects.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { hoursAgo } from '../support/tekton.js';

const CLAIM = 'PersistentVolumeClaim';
const SINCE = '2026-11-29T10:00:00Z';

describe("a claim's Unused condition, written through /status", () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let objects: Objects;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    objects = new Objects(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  async function setUnused(ns: string, name: string, status: 'True' | 'False' | 'Unknown'): Promise<void> {
    const stored = (await objects.setUnusedCondition(ns, name, status, SINCE)) as { type?: string; status?: string; reason?: string; lastTransitionTime?: unknown }[] | undefined;
    // The server kept what the controller would write: the test stands on a real condition.
    const seen = (stored ?? []).map((condition) => [condition.type, condition.status, condition.reason, new Date(String(condition.lastTransitionTime)).toISOString()]);
    assert.deepEqual(seen, [['Unused', status, status === 'False' ? 'PodUsingPVC' : 'NoPodsUsingPVC', new Date(SINCE).toISOString()]]);
  }

  test('Unused=False keeps a claim no Pod uses (in-use-by-pod); Unused=True or Unknown, or none, leave it to the Pod list; the re-check sees one written after the listing', async () => {
    const ns = 'unused-1';
    await seed.namespace(ns);
    const created = await seed.create(workspaceRun('PipelineRun', { name: 'build-done', namespace: ns }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    const owned = { ownerReferences: [controllerRef({ kind: 'PipelineRun', name: 'build-done', uid: created.uid })] };
    for (const name of ['pvc-in-use', 'pvc-unused', 'pvc-unknown', 'pvc-plain', 'pvc-turned', 'pvc-late']) await objects.claim(ns, name, owned);
    // A Pod that finished once mounted the one in use: a finished Pod holds nothing by the Pod list.
    await objects.pod(ns, 'build-done-compile-pod', { claims: ['pvc-in-use'], phase: 'Succeeded' });
    await setUnused(ns, 'pvc-in-use', 'False');
    await setUnused(ns, 'pvc-unused', 'True');
    await setUnused(ns, 'pvc-unknown', 'Unknown');
    const sent: string[] = [];
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--collect', 'workspace-pvcs', '--pvc-finalizer', 'purge', '--min-age', '0s', '--namespace', ns], {
      // After the listing, before the re-check that precedes every delete.
      afterListing: () => setUnused(ns, 'pvc-turned', 'False'),
      // After that re-check, right before its DELETE.
      beforeDelete: async (target: TargetRecord) => {
        sent.push(target.name);
        if (target.name === 'pvc-late') await setUnused(ns, 'pvc-late', 'False');
      },
    });
    const { report } = outcome;
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-in-use`]: 'in-use-by-pod kept',
      [`${CLAIM} ${ns}/pvc-late`]: 'runs-finished changed',
      [`${CLAIM} ${ns}/pvc-plain`]: 'runs-finished deleted',
      [`${CLAIM} ${ns}/pvc-turned`]: 'in-use-by-pod kept',
      [`${CLAIM} ${ns}/pvc-unknown`]: 'runs-finished deleted',
      [`${CLAIM} ${ns}/pvc-unused`]: 'runs-finished deleted',
    });
    assert.equal(itemOf(report, CLAIM, 'pvc-in-use').message, `in use by a Pod, by its Unused=False condition (PodUsingPVC) since ${SINCE}`);
    assert.equal(itemOf(report, CLAIM, 'pvc-turned').message, `in use by a Pod, by its Unused=False condition (PodUsingPVC) since ${SINCE} (seen when re-checking before deleting)`);
    // The condition names no Pod: heldBy names none.
    assert.equal(itemOf(report, CLAIM, 'pvc-in-use').heldBy, undefined);
    assert.deepEqual(sent.sort(), ['pvc-late', 'pvc-plain', 'pvc-unknown', 'pvc-unused']);
    assert.deepEqual(await objects.fates(ns, { 'pvc-in-use': CLAIM, 'pvc-turned': CLAIM, 'pvc-late': CLAIM, 'pvc-unused': CLAIM, 'pvc-unknown': CLAIM, 'pvc-plain': CLAIM }), {
      [`${CLAIM} pvc-in-use`]: 'present',
      [`${CLAIM} pvc-turned`]: 'present',
      [`${CLAIM} pvc-late`]: 'present',
      [`${CLAIM} pvc-unused`]: 'gone',
      [`${CLAIM} pvc-unknown`]: 'gone',
      [`${CLAIM} pvc-plain`]: 'gone',
    });
  });
});

/**
 * What holds a claim, on a real kube-apiserver, for every combination of --collect: a claim that
 * a StatefulSet surviving the pass names, or that a Pod which has not finished mounts, is never
 * deleted, by a live pass or by `apply` of a plan.
 *
 * A StatefulSet names `<template>-<name>-<ordinal>` for every ordinal, not only those of its
 * current replicas: scaled to 0, or with ordinals from 3, it keeps the claims of the ordinals it
 * dropped and mounts them again when scaled up. A StatefulSet survives a pass when the pass does
 * not delete it: it is not collected, its DELETE leaves it Terminating (another finalizer), or
 * `apply` may not delete it (it changed since the plan).
 *
 * Each pass also has something to delete for each collector that is on, so a pass that deletes
 * nothing fails too. The bare server runs no StatefulSet controller: the claims are created by
 * hand, as the controller names them.
 *
 * A claim's own `Unused=False` condition (Kubernetes 1.37) holds it as an active Pod does. A
 * condition written after the listing is seen by the re-check before the deletes; one written
 * after that re-check, right before the DELETE, changes the claim's resourceVersion, so the
 * DELETE's precondition refuses it (`changed`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { COLLECTOR_NAMES, type CollectorName } from '../../src/core/collectors.js';
import type { TargetRecord } from '../../src/core/types.js';
import type { ReportDocument } from '../../src/report/model.js';
import { Objects, controllerRef, itemOf, pacLabels, verdicts, workspaceRun, type RunIdentity } from '../support/objects.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, type RunStatusSpec } from '../support/tekton.js';

const FINISHED: RunStatusSpec = { state: 'succeeded', finishedAt: hoursAgo(2) };
const CLAIM = 'PersistentVolumeClaim';
const HOLD = 'example.com/hold';
const SCALED = 'affinity-assistant-5ca1ed0000';
const SCALED_CLAIM = `pvc-0123abcd-${SCALED}-0`;
const SINCE = '2026-11-29T10:00:00Z';

/**
 * The collectors this file seeds a free object for, in COLLECTOR_NAMES order: those whose targets
 * a claim's holders concern. ResolutionRequests have no holders (resolution-requests.test.ts).
 */
const SEEDED: readonly CollectorName[] = COLLECTOR_NAMES.filter((name) => name !== 'resolution-requests');

/** Every non-empty combination of them. */
const COMBINATIONS: readonly CollectorName[][] = Array.from({ length: 2 ** SEEDED.length - 1 }, (_, index) => SEEDED.filter((_name, bit) => ((index + 1) & (1 << bit)) !== 0));

describe('holders: a claim a surviving StatefulSet names or an active Pod mounts is never deleted', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let objects: Objects;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    objects = new Objects(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  async function finishedRun(namespace: string, name: string): Promise<RunIdentity> {
    const created = await seed.create(workspaceRun('PipelineRun', { name, namespace }), FINISHED);
    return { kind: 'PipelineRun', name, uid: created.uid };
  }

  /**
   * A namespace where every claim but `pvc-free` is held: by an affinity assistant scaled to 0 that
   * survives a DELETE, by a StatefulSet (no target) whose ordinals start at 3, by a running Pod.
   * Free: a claim, an ownerless Pipelines-as-Code Secret, an unreferenced PipelineResource.
   */
  async function heldClaims(ns: string): Promise<void> {
    await seed.namespace(ns);
    const done = await finishedRun(ns, 'build-done');
    const owned = { ownerReferences: [controllerRef(done)] };
    await objects.affinityStatefulSet(ns, SCALED, done, { replicas: 0, finalizers: [HOLD] });
    await objects.affinityClaim(ns, SCALED, done.name);
    await objects.affinityStatefulSet(ns, 'db', done, { labels: { app: 'db' }, template: 'data', replicas: 1, ordinalsStart: 3 });
    await objects.claim(ns, 'data-db-0', owned);
    await objects.claim(ns, 'data-db-3', owned);
    await objects.claim(ns, 'pvc-in-use', owned);
    await objects.pod(ns, 'build-done-compile-pod', { phase: 'Running', claims: ['pvc-in-use'] });
    await objects.claim(ns, 'pvc-free', owned);
    await objects.secret(ns, 'pac-gitauth-free01', { labels: pacLabels() });
    await seed.create(gitResource({ name: 'src-free', namespace: ns }, 'aaa111'));
  }

  async function releaseHold(ns: string): Promise<void> {
    await objects.apps.patchNamespacedStatefulSet({ name: SCALED, namespace: ns, body: [{ op: 'remove', path: '/metadata/finalizers' }] });
  }

  for (const [index, collect] of COMBINATIONS.entries()) {
    test(`--collect ${collect.join(',')}: held claims stay, free objects of the collectors on go`, async () => {
      const ns = `hold-${index + 1}`;
      await heldClaims(ns);
      const on = (name: CollectorName): boolean => collect.includes(name);
      const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--collect', collect.join(','), '--pvc-finalizer', on('workspace-pvcs') ? 'purge' : 'keep', '--min-age', '0s', '--namespace', ns]);
      const report: ReportDocument = outcome.report;
      assert.equal(outcome.exitCode, 0, JSON.stringify(report.errors));
      const got = verdicts(report);
      if (on('workspace-pvcs')) {
        assert.equal(got[`${CLAIM} ${ns}/${SCALED_CLAIM}`], 'in-use-by-statefulset kept');
        assert.equal(got[`${CLAIM} ${ns}/data-db-0`], 'in-use-by-statefulset kept');
        assert.equal(got[`${CLAIM} ${ns}/data-db-3`], 'in-use-by-statefulset kept');
        assert.equal(got[`${CLAIM} ${ns}/pvc-in-use`], 'in-use-by-pod kept');
        assert.equal(got[`${CLAIM} ${ns}/pvc-free`], 'runs-finished deleted');
      }
      if (on('affinity-assistants')) assert.equal(got[`StatefulSet ${ns}/${SCALED}`], 'runs-finished terminating');
      if (on('pac-secrets')) assert.equal(got[`Secret ${ns}/pac-gitauth-free01`], 'unreferenced deleted');
      if (on('pipelineresources')) assert.equal(got[`PipelineResource ${ns}/src-free`], 'unreferenced deleted');
      assert.deepEqual(
        await objects.fates(ns, { [SCALED_CLAIM]: CLAIM, 'data-db-0': CLAIM, 'data-db-3': CLAIM, 'pvc-in-use': CLAIM, 'pvc-free': CLAIM, [SCALED]: 'StatefulSet', db: 'StatefulSet', 'pac-gitauth-free01': 'Secret', 'src-free': 'PipelineResource' }),
        {
          [`${CLAIM} ${SCALED_CLAIM}`]: 'present',
          [`${CLAIM} data-db-0`]: 'present',
          [`${CLAIM} data-db-3`]: 'present',
          [`${CLAIM} pvc-in-use`]: 'present',
          [`${CLAIM} pvc-free`]: on('workspace-pvcs') ? 'gone' : 'present',
          [`StatefulSet ${SCALED}`]: on('affinity-assistants') ? 'terminating' : 'present',
          'StatefulSet db': 'present',
          'Secret pac-gitauth-free01': on('pac-secrets') ? 'gone' : 'present',
          'PipelineResource src-free': on('pipelineresources') ? 'gone' : 'present',
        },
      );
      await releaseHold(ns);
    });
  }

  test('one DELETE for every kind: a PipelineResource another finalizer holds is reported terminating, not deleted', async () => {
    const ns = 'hold-pr-finalizer';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-held', namespace: ns, finalizers: [HOLD] }, 'bbb111'));
    await seed.create(gitResource({ name: 'src-free', namespace: ns }, 'bbb222'));
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--min-age', '0s', '--namespace', ns]);
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(verdicts(outcome.report), { [`PipelineResource ${ns}/src-free`]: 'unreferenced deleted', [`PipelineResource ${ns}/src-held`]: 'unreferenced terminating' });
    assert.deepEqual(await objects.fates(ns, { 'src-held': 'PipelineResource', 'src-free': 'PipelineResource' }), { 'PipelineResource src-held': 'terminating', 'PipelineResource src-free': 'gone' });
    await objects.custom.patchNamespacedCustomObject({ group: 'tekton.dev', version: 'v1alpha1', namespace: ns, plural: 'pipelineresources', name: 'src-held', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
  });

  test('apply: a StatefulSet that changed since the plan is not deleted, so the claim it names is kept', async () => {
    const ns = 'hold-apply';
    await seed.namespace(ns);
    const done = await finishedRun(ns, 'build-done');
    const sts = 'affinity-assistant-a991100000';
    await objects.affinityStatefulSet(ns, sts, done);
    const claim = await objects.affinityClaim(ns, sts, done.name);
    await objects.claim(ns, 'pvc-free', { ownerReferences: [controllerRef(done)] });
    const args = ['--collect', 'affinity-assistants,workspace-pvcs', '--pvc-finalizer', 'purge', '--min-age', '0s', '--namespace', ns];

    const dry = await passInProcess(controlPlane.kubeConfig(), ['--dry-run', ...args], { plans: { write: { cluster: { server: controlPlane.server }, file: 'plan.json' } } });
    const plan = dry.outcome.plan;
    assert.ok(plan !== undefined);
    // The plan deletes all three: the StatefulSet first, so it no longer holds its claim.
    assert.deepEqual(plan.entries.map((entry) => `${entry.kind} ${entry.name}`).sort(), [`${CLAIM} ${claim}`, `${CLAIM} pvc-free`, `StatefulSet ${sts}`]);

    await objects.apps.patchNamespacedStatefulSet({ name: sts, namespace: ns, body: [{ op: 'add', path: '/metadata/labels/touched', value: 'after-the-plan' }] });
    const applied = await passInProcess(controlPlane.kubeConfig(), args, { plans: { apply: { plan, file: 'plan.json' } } });
    const got = verdicts(applied.outcome.report);
    assert.equal(got[`StatefulSet ${ns}/${sts}`], 'runs-finished changed');
    assert.equal(got[`${CLAIM} ${ns}/${claim}`], 'in-use-by-statefulset kept');
    assert.equal(got[`${CLAIM} ${ns}/pvc-free`], 'runs-finished deleted');
    assert.deepEqual(await objects.fates(ns, { [claim]: CLAIM, [sts]: 'StatefulSet', 'pvc-free': CLAIM }), {
      [`${CLAIM} ${claim}`]: 'present',
      [`StatefulSet ${sts}`]: 'present',
      [`${CLAIM} pvc-free`]: 'gone',
    });
  });

  /**
   * A claim's `Unused` condition (KEP-5541: Kubernetes 1.37's PVC protection controller writes
   * it, beta, on by default) holds it as a Pod does: where it is `False` (`PodUsingPVC`) the claim
   * is kept as `in-use-by-pod`, whatever the Pod list says; `True`, `Unknown` or none leave the
   * Pod list to decide. This server (v1.35) runs no such controller: the test writes the
   * condition through the claim's status subresource and reads back that the server stored it.
   * The owner finished and no Pod that has not finished uses any of these claims, so each one
   * kept is kept by its condition alone.
   */
  async function setUnused(ns: string, name: string, status: 'True' | 'False' | 'Unknown'): Promise<void> {
    const stored = (await objects.setUnusedCondition(ns, name, status, SINCE)) as { type?: string; status?: string; reason?: string; lastTransitionTime?: unknown }[] | undefined;
    // The server kept what the controller would write: the test stands on a real condition.
    const seen = (stored ?? []).map((condition) => [condition.type, condition.status, condition.reason, new Date(String(condition.lastTransitionTime)).toISOString()]);
    assert.deepEqual(seen, [['Unused', status, status === 'False' ? 'PodUsingPVC' : 'NoPodsUsingPVC', new Date(SINCE).toISOString()]]);
  }

  test('Unused=False keeps a claim no Pod uses (in-use-by-pod); Unused=True or Unknown, or none, leave it to the Pod list; the re-check sees one written after the listing', async () => {
    const ns = 'hold-unused';
    await seed.namespace(ns);
    const owned = { ownerReferences: [controllerRef(await finishedRun(ns, 'build-done'))] };
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

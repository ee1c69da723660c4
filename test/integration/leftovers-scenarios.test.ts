/**
 * The leftovers' acceptance scenarios (docs/spec.md, "Leftovers") on a real kube-apiserver:
 * what makes a claim, a StatefulSet or a Secret a target, how runs, Pods and StatefulSets link
 * and hold it, each row of the decision table, the delete order, the re-checks before a delete
 * and before a finalizer is removed, and what the report says about sizes. Each scenario has
 * its own namespace and, beside what it keeps, something the pass deletes, so that a pass that
 * deletes nothing fails it too. After each pass the test reads every object back: gone (404),
 * Terminating (deletionTimestamp) or untouched.
 *
 * The bare server: no controller manager, scheduler or kubelet. Claims keep
 * kubernetes.io/pvc-protection (keep mode leaves them Terminating; --pvc-finalizer purge
 * makes them 404) and stay Pending; nothing deletes what a deleted run owned; a Pod's phase
 * is written through /status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { TargetRecord } from '../../src/core/types.js';
import type { ReportDocument, ReportItem } from '../../src/report/model.js';
import { reportOf, runCli } from '../support/cli.js';
import {
  GIT_AUTH_ANNOTATION,
  Objects,
  PVC_PROTECTION,
  RETAIN,
  RETAIN_FOR,
  claimWorkspace,
  controllerRef,
  inventedUid,
  itemOf,
  pacLabels,
  pacOwnerRef,
  verdicts,
  workspaceRun,
  type RunIdentity,
} from '../support/objects.js';
import { passInProcess, type LogLine, type PassHooks } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, type ObjectMeta, type RunStatusSpec } from '../support/tekton.js';

const FINISHED: RunStatusSpec = { state: 'succeeded', finishedAt: hoursAgo(2) };
const PURGE = ['--pvc-finalizer', 'purge'];
const CLAIM = 'PersistentVolumeClaim';
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** `kind name state via` of an item's linked runs, in the report's order. */
function links(item: ReportItem): string[] {
  return item.references.map((ref) => `${ref.kind} ${ref.name} ${ref.state} ${ref.via ?? '-'}`);
}

describe('leftovers: acceptance scenarios on a bare kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let objects: Objects;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    objects = new Objects(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  /** A run in `namespace` with `status` written as Tekton would; `more` adds its links to leftovers. */
  async function run(
    namespace: string,
    kind: RunIdentity['kind'],
    name: string,
    status: RunStatusSpec,
    more: { workspaces?: unknown; resources?: string[]; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: ObjectMeta['ownerReferences'] } = {},
  ): Promise<RunIdentity> {
    const { workspaces, resources, ...meta } = more;
    const object = workspaceRun(kind, { name, namespace, ...meta }, { workspaces, resources, pending: status.state === 'pending' });
    const created = await seed.create(object, status);
    return { kind, name, uid: created.uid };
  }

  /** One pass in this process, built as the CLI builds it; its report was checked against the schema. */
  async function pass(namespaces: string | readonly string[], args: readonly string[], hooks: PassHooks = {}): Promise<{ report: ReportDocument; exitCode: number; logs: LogLine[] }> {
    const scope = (typeof namespaces === 'string' ? [namespaces] : namespaces).flatMap((namespace) => ['--namespace', namespace]);
    const { outcome, logs } = await passInProcess(controlPlane.kubeConfig(), [...args, ...scope], hooks);
    return { report: outcome.report, exitCode: outcome.exitCode, logs };
  }

  /** The CLI as a user runs it, with a JSON report on stdout (checked against the schema). */
  async function cli(args: readonly string[], code = 0): Promise<ReportDocument> {
    const result = await runCli([...args, '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(result.code, code, result.stderr);
    return reportOf(result);
  }

  test('scenario 4: an owner that is running (Unknown), pending (PipelineRunPending) or False without completionTime keeps its claim', async () => {
    const ns = 'ls-04';
    await seed.namespace(ns);
    const owners = {
      'pvc-running': await run(ns, 'PipelineRun', 'build-running', { state: 'running' }),
      'pvc-pending': await run(ns, 'PipelineRun', 'build-pending', { state: 'pending' }),
      'pvc-retrying': await run(ns, 'PipelineRun', 'build-retrying', { state: 'failed-retrying' }),
      'pvc-done': await run(ns, 'PipelineRun', 'build-done', FINISHED),
    };
    for (const [claim, owner] of Object.entries(owners)) await objects.claim(ns, claim, { ownerReferences: [controllerRef(owner)] });

    const { report, exitCode } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.equal(exitCode, 0);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-done`]: 'runs-finished deleted',
      [`${CLAIM} ${ns}/pvc-pending`]: 'referenced-by-active-run kept',
      [`${CLAIM} ${ns}/pvc-retrying`]: 'referenced-by-active-run kept',
      [`${CLAIM} ${ns}/pvc-running`]: 'referenced-by-active-run kept',
    });
    assert.deepEqual(links(itemOf(report, CLAIM, 'pvc-pending')), ['PipelineRun build-pending pending ownerReference']);
    assert.deepEqual(links(itemOf(report, CLAIM, 'pvc-retrying')), ['PipelineRun build-retrying running ownerReference']);
    assert.deepEqual(await objects.fates(ns, { 'pvc-running': CLAIM, 'pvc-pending': CLAIM, 'pvc-retrying': CLAIM, 'pvc-done': CLAIM }), {
      [`${CLAIM} pvc-running`]: 'present',
      [`${CLAIM} pvc-pending`]: 'present',
      [`${CLAIM} pvc-retrying`]: 'present',
      [`${CLAIM} pvc-done`]: 'gone',
    });
  });

  test('scenario 5: an owner uid no run has is gone: owner-gone, and too-young under --min-age 1h', async () => {
    const ns = 'ls-05';
    await seed.namespace(ns);
    // A run deleted while its claim stays (no garbage collector), and a run recreated under
    // the same name: the claim's owner is the first one, by uid, and the running one is not it.
    const deleted = await run(ns, 'PipelineRun', 'build-deleted', FINISHED);
    await objects.claim(ns, 'pvc-of-deleted', { ownerReferences: [controllerRef(deleted)] });
    await objects.deleteRun(ns, 'PipelineRun', 'build-deleted');
    await run(ns, 'PipelineRun', 'build-recreated', { state: 'running' });
    await objects.claim(ns, 'pvc-of-first-recreated', { ownerReferences: [controllerRef({ kind: 'PipelineRun', name: 'build-recreated', uid: inventedUid(5) })] });

    const young = await cli(['--collect', 'workspace-pvcs', '--namespace', ns, '--min-age', '1h']);
    assert.deepEqual(verdicts(young), { [`${CLAIM} ${ns}/pvc-of-deleted`]: 'too-young kept', [`${CLAIM} ${ns}/pvc-of-first-recreated`]: 'too-young kept' });
    assert.deepEqual(await objects.fates(ns, { 'pvc-of-deleted': CLAIM, 'pvc-of-first-recreated': CLAIM }), { [`${CLAIM} pvc-of-deleted`]: 'present', [`${CLAIM} pvc-of-first-recreated`]: 'present' });

    const old = await cli(['--collect', 'workspace-pvcs', '--namespace', ns, '--min-age', '0s']);
    assert.deepEqual(verdicts(old), { [`${CLAIM} ${ns}/pvc-of-deleted`]: 'owner-gone terminating', [`${CLAIM} ${ns}/pvc-of-first-recreated`]: 'owner-gone terminating' });
    assert.deepEqual(links(itemOf(old, CLAIM, 'pvc-of-deleted')), ['PipelineRun build-deleted gone ownerReference']);
    assert.deepEqual(links(itemOf(old, CLAIM, 'pvc-of-first-recreated')), ['PipelineRun build-recreated gone ownerReference']);
    for (const name of ['pvc-of-deleted', 'pvc-of-first-recreated']) {
      const fate = await objects.fate(CLAIM, ns, name);
      assert.deepEqual(fate.state === 'gone' ? fate : [fate.state, fate.finalizers], ['terminating', [PVC_PROTECTION]], name);
    }
  });

  test('scenario 6: a claim owned by a finished TaskRun whose parent PipelineRun runs is kept', async () => {
    const ns = 'ls-06';
    await seed.namespace(ns);
    const running = await run(ns, 'PipelineRun', 'build-running', { state: 'running' });
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    const childOfRunning = await run(ns, 'TaskRun', 'build-running-fetch', FINISHED, { ownerReferences: [controllerRef(running, 'tekton.dev/v1beta1')] });
    const childOfDone = await run(ns, 'TaskRun', 'build-done-fetch', FINISHED, { ownerReferences: [controllerRef(done, 'tekton.dev/v1beta1')] });
    await objects.claim(ns, 'pvc-fetch-running', { ownerReferences: [controllerRef(childOfRunning)] });
    await objects.claim(ns, 'pvc-fetch-done', { ownerReferences: [controllerRef(childOfDone)] });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/pvc-fetch-done`]: 'runs-finished deleted', [`${CLAIM} ${ns}/pvc-fetch-running`]: 'referenced-by-active-run kept' });
    // Its own status says succeeded; its running parent makes it active.
    assert.deepEqual(links(itemOf(report, CLAIM, 'pvc-fetch-running')), ['TaskRun build-running-fetch running ownerReference']);
    assert.deepEqual(await objects.fates(ns, { 'pvc-fetch-running': CLAIM, 'pvc-fetch-done': CLAIM }), { [`${CLAIM} pvc-fetch-running`]: 'present', [`${CLAIM} pvc-fetch-done`]: 'gone' });
  });

  test('scenario 7: a Pod Running, Pending and unscheduled, or without a phase holds its claim (in-use-by-pod); a Succeeded one does not', async () => {
    const ns = 'ls-07';
    await seed.namespace(ns);
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    const claims = ['pvc-running', 'pvc-unscheduled', 'pvc-no-phase', 'pvc-succeeded'];
    for (const claim of claims) await objects.claim(ns, claim, { ownerReferences: [controllerRef(done)] });
    await objects.pod(ns, 'pod-running', { claims: ['pvc-running'], phase: 'Running' });
    await objects.pod(ns, 'pod-unscheduled', { claims: ['pvc-unscheduled'], phase: 'Pending', scheduled: false });
    await objects.pod(ns, 'pod-no-phase', { claims: ['pvc-no-phase'], phase: 'none' });
    await objects.pod(ns, 'pod-succeeded', { claims: ['pvc-succeeded'], phase: 'Succeeded' });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-no-phase`]: 'in-use-by-pod kept',
      [`${CLAIM} ${ns}/pvc-running`]: 'in-use-by-pod kept',
      [`${CLAIM} ${ns}/pvc-succeeded`]: 'runs-finished terminating',
      [`${CLAIM} ${ns}/pvc-unscheduled`]: 'in-use-by-pod kept',
    });
    assert.deepEqual(itemOf(report, CLAIM, 'pvc-running').heldBy, [{ kind: 'Pod', name: 'pod-running', phase: 'Running' }]);
    assert.deepEqual(itemOf(report, CLAIM, 'pvc-unscheduled').heldBy, [{ kind: 'Pod', name: 'pod-unscheduled', phase: 'Pending' }]);
    assert.deepEqual(itemOf(report, CLAIM, 'pvc-no-phase').heldBy, [{ kind: 'Pod', name: 'pod-no-phase' }]);
    assert.match(itemOf(report, CLAIM, 'pvc-no-phase').message, /^in use by Pod pod-no-phase \(no phase yet\)/);
    // Deleted, and held by its finalizer: the report names the Pods that use it.
    assert.deepEqual(itemOf(report, CLAIM, 'pvc-succeeded').heldBy, [{ kind: 'Pod', name: 'pod-succeeded', phase: 'Succeeded' }]);
    assert.deepEqual(await objects.fates(ns, Object.fromEntries(claims.map((claim) => [claim, CLAIM]))), {
      [`${CLAIM} pvc-running`]: 'present',
      [`${CLAIM} pvc-unscheduled`]: 'present',
      [`${CLAIM} pvc-no-phase`]: 'present',
      [`${CLAIM} pvc-succeeded`]: 'terminating',
    });
  });

  test('scenario 8: purge removes the finalizer of a claim whose Pods Succeeded; a Pod that turns Running before the re-check gets no patch', async () => {
    const ns = 'ls-08';
    await seed.namespace(ns);
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    for (const claim of ['pvc-released', 'pvc-restarted', 'pvc-late']) {
      await objects.claim(ns, claim, { ownerReferences: [controllerRef(done)] });
      await objects.pod(ns, `${claim}-holder`, { claims: [claim], phase: 'Succeeded' });
    }
    const sent: string[] = [];
    const { report, exitCode } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s'], {
      // After the listing, before the re-check that precedes every delete: the claim is kept, no DELETE is sent.
      afterListing: () => objects.setPodPhase(ns, 'pvc-restarted-holder', 'Running'),
      // After that re-check, right before its DELETE: the Pods listed again before the patch hold it.
      beforeDelete: async (target: TargetRecord) => {
        sent.push(target.name);
        if (target.name === 'pvc-late') await objects.setPodPhase(ns, 'pvc-late-holder', 'Running');
      },
    });
    assert.equal(exitCode, 0);
    assert.deepEqual(sent.sort(), ['pvc-late', 'pvc-released']);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-late`]: 'runs-finished terminating',
      [`${CLAIM} ${ns}/pvc-released`]: 'runs-finished deleted',
      [`${CLAIM} ${ns}/pvc-restarted`]: 'in-use-by-pod kept',
    });
    assert.match(itemOf(report, CLAIM, 'pvc-restarted').message, /in use by Pod pvc-restarted-holder \(Running\).*seen when re-checking before deleting/);
    assert.match(itemOf(report, CLAIM, 'pvc-late').message, /kubernetes\.io\/pvc-protection kept: Pod pvc-late-holder is Running/);
    assert.deepEqual(itemOf(report, CLAIM, 'pvc-late').heldBy, [{ kind: 'Pod', name: 'pvc-late-holder', phase: 'Running' }]);
    assert.equal((await objects.fate(CLAIM, ns, 'pvc-released')).state, 'gone');
    const late = await objects.fate(CLAIM, ns, 'pvc-late');
    assert.deepEqual(late.state === 'gone' ? late : [late.state, late.finalizers], ['terminating', [PVC_PROTECTION]]);
    const restarted = await objects.fate(CLAIM, ns, 'pvc-restarted');
    assert.deepEqual(restarted.state === 'gone' ? restarted : [restarted.state, restarted.finalizers], ['present', [PVC_PROTECTION]]);
  });

  test('scenario 9: a claim bound by name in a finished run\'s persistentVolumeClaim workspace: unreported when unmarked, user-claimed when marked', async () => {
    const ns = 'ls-09';
    await seed.namespace(ns);
    const owner = await run(ns, 'PipelineRun', 'build-owner', FINISHED);
    await objects.claim(ns, 'team-cache');
    await objects.claim(ns, 'pvc-owned-shared', { ownerReferences: [controllerRef(owner)] });
    await objects.claim(ns, 'pvc-owned-only', { ownerReferences: [controllerRef(owner)] });
    await run(ns, 'PipelineRun', 'build-user', FINISHED, { workspaces: [claimWorkspace('cache', 'team-cache'), claimWorkspace('shared', 'pvc-owned-shared')] });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/pvc-owned-only`]: 'runs-finished deleted', [`${CLAIM} ${ns}/pvc-owned-shared`]: 'user-claimed kept' });
    assert.match(itemOf(report, CLAIM, 'pvc-owned-shared').message, /^bound by name in a workspace of PipelineRun build-user, which is not its owner/);
    assert.deepEqual(await objects.fates(ns, { 'team-cache': CLAIM, 'pvc-owned-shared': CLAIM, 'pvc-owned-only': CLAIM }), {
      [`${CLAIM} team-cache`]: 'present',
      [`${CLAIM} pvc-owned-shared`]: 'present',
      [`${CLAIM} pvc-owned-only`]: 'gone',
    });
  });

  test('scenario 10: a child TaskRun bound to its parent\'s generated claim is a link, not a user claim', async () => {
    const ns = 'ls-10';
    await seed.namespace(ns);
    const parent = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(ns, 'pvc-5e1c0a9b7d', { ownerReferences: [controllerRef(parent)] });
    // What Tekton's PipelineRun reconciler writes into the TaskRuns it creates for a volumeClaimTemplate workspace.
    await run(ns, 'TaskRun', 'build-done-compile', FINISHED, {
      ownerReferences: [controllerRef(parent, 'tekton.dev/v1beta1')],
      workspaces: [claimWorkspace('source', 'pvc-5e1c0a9b7d')],
    });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/pvc-5e1c0a9b7d`]: 'runs-finished deleted' });
    assert.deepEqual(links(itemOf(report, CLAIM, 'pvc-5e1c0a9b7d')), ['PipelineRun build-done succeeded ownerReference', 'TaskRun build-done-compile succeeded workspace']);
    assert.equal((await objects.fate(CLAIM, ns, 'pvc-5e1c0a9b7d')).state, 'gone');
  });

  test('scenario 11: a claim whose owner is of another group (example.com/v1), or not its controller, is no target', async () => {
    const ns = 'ls-11';
    await seed.namespace(ns);
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(ns, 'pvc-foreign-owner', { ownerReferences: [{ ...controllerRef(done), apiVersion: 'example.com/v1' }] });
    await objects.claim(ns, 'pvc-not-controller', { ownerReferences: [{ ...controllerRef(done), controller: false }] });
    await objects.claim(ns, 'pvc-marked', { ownerReferences: [controllerRef(done)] });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/pvc-marked`]: 'runs-finished deleted' });
    assert.deepEqual(report.summary.byKind, { PersistentVolumeClaim: { targets: 1, delete: 1, keep: 0 } });
    assert.deepEqual(await objects.fates(ns, { 'pvc-foreign-owner': CLAIM, 'pvc-not-controller': CLAIM, 'pvc-marked': CLAIM }), {
      [`${CLAIM} pvc-foreign-owner`]: 'present',
      [`${CLAIM} pvc-not-controller`]: 'present',
      [`${CLAIM} pvc-marked`]: 'gone',
    });
  });

  test('scenario 12: an affinity-assistant claim whose run was deleted mid-flight (p#7618) is owner-gone; one whose run still runs is kept', async () => {
    const ns = 'ls-12';
    await seed.namespace(ns);
    await run(ns, 'PipelineRun', 'build-deleted', { state: 'running' });
    const orphan = await objects.affinityClaim(ns, 'affinity-assistant-7618aaaaaa', 'build-deleted');
    // Deleted while running: Tekton's completion never came, and no StatefulSet is left (its GC took it, or it failed to start).
    await objects.deleteRun(ns, 'PipelineRun', 'build-deleted');
    await run(ns, 'PipelineRun', 'build-running', { state: 'running' });
    const live = await objects.affinityClaim(ns, 'affinity-assistant-7618bbbbbb', 'build-running');

    const report = await cli(['--collect', 'workspace-pvcs', ...PURGE, '--namespace', ns, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/${orphan}`]: 'owner-gone deleted', [`${CLAIM} ${ns}/${live}`]: 'referenced-by-active-run kept' });
    assert.deepEqual(links(itemOf(report, CLAIM, orphan)), ['PipelineRun build-deleted gone label']);
    assert.deepEqual(links(itemOf(report, CLAIM, live)), ['PipelineRun build-running running label']);
    assert.deepEqual(await objects.fates(ns, { [orphan]: CLAIM, [live]: CLAIM }), { [`${CLAIM} ${orphan}`]: 'gone', [`${CLAIM} ${live}`]: 'present' });
  });

  describe('scenario 13: an affinity-assistant claim and its StatefulSet', () => {
    /** A finished PipelineRun whose affinity assistant's StatefulSet and claim are left. */
    async function leftAssistant(ns: string, statefulSet: string, finalizers?: string[]): Promise<string> {
      await seed.namespace(ns);
      const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
      await objects.affinityStatefulSet(ns, statefulSet, done);
      if (finalizers !== undefined) {
        await objects.apps.patchNamespacedStatefulSet({ name: statefulSet, namespace: ns, body: [{ op: 'add', path: '/metadata/finalizers', value: finalizers }] });
      }
      return objects.affinityClaim(ns, statefulSet, 'build-done');
    }

    test('scenario 13: a StatefulSet that still exists holds its claim (in-use-by-statefulset)', async () => {
      const ns = 'ls-13-held';
      const sts = 'affinity-assistant-13aaaaaaaa';
      const claim = await leftAssistant(ns, sts);
      const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
      assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/${claim}`]: 'in-use-by-statefulset kept' });
      assert.deepEqual(itemOf(report, CLAIM, claim).heldBy, [{ kind: 'StatefulSet', name: sts }]);
      assert.deepEqual(await objects.fates(ns, { [claim]: CLAIM, [sts]: 'StatefulSet' }), { [`${CLAIM} ${claim}`]: 'present', [`StatefulSet ${sts}`]: 'present' });
    });

    test('scenario 13: with affinity-assistants and workspace-pvcs on and the run finished, both are deleted, the StatefulSet first', async () => {
      const ns = 'ls-13-both';
      const sts = 'affinity-assistant-13bbbbbbbb';
      const claim = await leftAssistant(ns, sts);
      const sent: string[] = [];
      const { report, exitCode, logs } = await pass(ns, ['--collect', 'affinity-assistants,workspace-pvcs', ...PURGE, '--min-age', '0s'], {
        beforeDelete: (target: TargetRecord) => {
          sent.push(`${target.kind} ${target.name}`);
          return Promise.resolve();
        },
      });
      assert.equal(exitCode, 0);
      assert.deepEqual(sent, [`StatefulSet ${sts}`, `${CLAIM} ${claim}`]);
      // Decided in one view: the StatefulSet the pass deletes first no longer holds the claim, and a warning says so.
      const released = logs.filter((line) => line.level === 'warn' && line.fields['name'] === claim).map((line) => line.message);
      assert.deepEqual(released, [`StatefulSet ${sts} names it and is deleted before it in this pass`]);
      assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/${claim}`]: 'runs-finished deleted', [`StatefulSet ${ns}/${sts}`]: 'runs-finished deleted' });
      assert.deepEqual(links(itemOf(report, 'StatefulSet', sts)), ['PipelineRun build-done succeeded ownerReference']);
      assert.deepEqual(links(itemOf(report, CLAIM, claim)), ['PipelineRun build-done succeeded label']);
      assert.deepEqual(await objects.fates(ns, { [claim]: CLAIM, [sts]: 'StatefulSet' }), { [`${CLAIM} ${claim}`]: 'gone', [`StatefulSet ${sts}`]: 'gone' });
    });

    test('scenario 13: a StatefulSet that survives its DELETE (another finalizer) still holds its claim when the claim is re-checked', async () => {
      const ns = 'ls-13-stays';
      const sts = 'affinity-assistant-13cccccccc';
      const claim = await leftAssistant(ns, sts, ['example.com/hold']);
      const { report, exitCode } = await pass(ns, ['--collect', 'affinity-assistants,workspace-pvcs', ...PURGE, '--min-age', '0s']);
      assert.equal(exitCode, 0);
      assert.deepEqual(verdicts(report), { [`${CLAIM} ${ns}/${claim}`]: 'in-use-by-statefulset kept', [`StatefulSet ${ns}/${sts}`]: 'runs-finished terminating' });
      assert.match(itemOf(report, CLAIM, claim).message, /named by StatefulSet affinity-assistant-13cccccccc.*seen when re-checking before deleting/);
      assert.deepEqual(await objects.fates(ns, { [claim]: CLAIM, [sts]: 'StatefulSet' }), { [`${CLAIM} ${claim}`]: 'present', [`StatefulSet ${sts}`]: 'terminating' });
      await objects.apps.patchNamespacedStatefulSet({ name: sts, namespace: ns, body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    });
  });

  test('scenario 14: an affinity-assistant StatefulSet whose owner runs is kept; one without the component label is no target', async () => {
    const ns = 'ls-14';
    await seed.namespace(ns);
    const running = await run(ns, 'PipelineRun', 'build-running', { state: 'running' });
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    await objects.affinityStatefulSet(ns, 'affinity-assistant-14aaaaaaaa', running);
    // Everything but the component label.
    const unmarked = { 'app.kubernetes.io/instance': 'affinity-assistant-14bbbbbbbb', 'tekton.dev/pipelineRun': 'build-done' };
    await objects.affinityStatefulSet(ns, 'affinity-assistant-14bbbbbbbb', done, { labels: unmarked });
    await objects.affinityStatefulSet(ns, 'affinity-assistant-14cccccccc', done);

    const { report } = await pass(ns, ['--collect', 'affinity-assistants', '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`StatefulSet ${ns}/affinity-assistant-14aaaaaaaa`]: 'referenced-by-active-run kept',
      [`StatefulSet ${ns}/affinity-assistant-14cccccccc`]: 'runs-finished deleted',
    });
    assert.deepEqual(await objects.fates(ns, { 'affinity-assistant-14aaaaaaaa': 'StatefulSet', 'affinity-assistant-14bbbbbbbb': 'StatefulSet', 'affinity-assistant-14cccccccc': 'StatefulSet' }), {
      'StatefulSet affinity-assistant-14aaaaaaaa': 'present',
      'StatefulSet affinity-assistant-14bbbbbbbb': 'present',
      'StatefulSet affinity-assistant-14cccccccc': 'gone',
    });
  });

  test('scenario 15: retention: retain on the claim or on its owner run, the namespace label, retain-for from the owner\'s completionTime, an invalid value', async () => {
    const ns = 'ls-15';
    const retainedNs = 'ls-15-retained';
    await seed.namespace(ns);
    await seed.namespace(retainedNs, { [RETAIN]: 'true' });
    // Finished two hours ago (FINISHED); the claims are created now, so retain-for counted from their creation would keep them all.
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    const retainedOwner = await run(ns, 'PipelineRun', 'build-retained', FINISHED, { labels: { [RETAIN]: 'true' } });
    const owned = [controllerRef(done)];
    await objects.claim(ns, 'pvc-retained', { ownerReferences: owned, labels: { [RETAIN]: 'true' } });
    await objects.claim(ns, 'pvc-owner-retained', { ownerReferences: [controllerRef(retainedOwner)] });
    await objects.claim(ns, 'pvc-retain-3h', { ownerReferences: owned, labels: { [RETAIN_FOR]: '3h' } });
    await objects.claim(ns, 'pvc-retain-1h', { ownerReferences: owned, labels: { [RETAIN_FOR]: '1h' } });
    await objects.claim(ns, 'pvc-retain-soon', { ownerReferences: owned, labels: { [RETAIN_FOR]: 'soon' } });
    const doneThere = await run(retainedNs, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(retainedNs, 'pvc-in-retained-ns', { ownerReferences: [controllerRef(doneThere)] });

    const { report } = await pass([ns, retainedNs], ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-owner-retained`]: 'retained kept',
      [`${CLAIM} ${ns}/pvc-retain-1h`]: 'runs-finished deleted',
      [`${CLAIM} ${ns}/pvc-retain-3h`]: 'retain-for kept',
      [`${CLAIM} ${ns}/pvc-retain-soon`]: 'retention-invalid kept',
      [`${CLAIM} ${ns}/pvc-retained`]: 'retained kept',
      [`${CLAIM} ${retainedNs}/pvc-in-retained-ns`]: 'namespace-retained kept',
    });
    assert.match(itemOf(report, CLAIM, 'pvc-owner-retained').message, /on its owner PipelineRun build-retained$/);
    assert.match(itemOf(report, CLAIM, 'pvc-retain-3h').message, /counted from the last run finishing at /);
    assert.deepEqual(await objects.fates(ns, { 'pvc-retained': CLAIM, 'pvc-owner-retained': CLAIM, 'pvc-retain-3h': CLAIM, 'pvc-retain-1h': CLAIM, 'pvc-retain-soon': CLAIM }), {
      [`${CLAIM} pvc-retained`]: 'present',
      [`${CLAIM} pvc-owner-retained`]: 'present',
      [`${CLAIM} pvc-retain-3h`]: 'present',
      [`${CLAIM} pvc-retain-1h`]: 'gone',
      [`${CLAIM} pvc-retain-soon`]: 'present',
    });
    assert.equal((await objects.fate(CLAIM, retainedNs, 'pvc-in-retained-ns')).state, 'present');
  });

  test('scenario 16: a Pipelines-as-Code Secret: runs-finished with a finished owner, kept with a pending one, owner-gone with a gone one', async () => {
    const ns = 'ls-16';
    await seed.namespace(ns);
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED, { annotations: { [GIT_AUTH_ANNOTATION]: 'pac-gitauth-done16' } });
    const pending = await run(ns, 'PipelineRun', 'build-pending', { state: 'pending' }, { annotations: { [GIT_AUTH_ANNOTATION]: 'pac-gitauth-pend16' } });
    const deleted = await run(ns, 'PipelineRun', 'build-deleted', FINISHED);
    await objects.secret(ns, 'pac-gitauth-done16', { labels: pacLabels(), ownerReferences: [pacOwnerRef(done)] });
    await objects.secret(ns, 'pac-gitauth-pend16', { labels: pacLabels(), ownerReferences: [pacOwnerRef(pending)] });
    await objects.secret(ns, 'pac-gitauth-gone16', { labels: pacLabels(), ownerReferences: [pacOwnerRef(deleted)] });
    await objects.deleteRun(ns, 'PipelineRun', 'build-deleted');

    const { report, exitCode } = await pass(ns, ['--collect', 'pac-secrets', '--min-age', '0s']);
    assert.equal(exitCode, 0);
    assert.deepEqual(verdicts(report), {
      [`Secret ${ns}/pac-gitauth-done16`]: 'runs-finished deleted',
      [`Secret ${ns}/pac-gitauth-gone16`]: 'owner-gone deleted',
      [`Secret ${ns}/pac-gitauth-pend16`]: 'referenced-by-active-run kept',
    });
    assert.deepEqual(links(itemOf(report, 'Secret', 'pac-gitauth-gone16')), ['PipelineRun build-deleted gone ownerReference']);
    assert.deepEqual(links(itemOf(report, 'Secret', 'pac-gitauth-pend16')), ['PipelineRun build-pending pending ownerReference']);
    assert.deepEqual(await objects.fates(ns, { 'pac-gitauth-done16': 'Secret', 'pac-gitauth-pend16': 'Secret', 'pac-gitauth-gone16': 'Secret' }), {
      'Secret pac-gitauth-done16': 'gone',
      'Secret pac-gitauth-pend16': 'present',
      'Secret pac-gitauth-gone16': 'gone',
    });
  });

  test('scenario 17: an ownerless Pipelines-as-Code Secret named by a running run\'s annotation is kept, by a finished run\'s deleted, by none unreferenced', async () => {
    const ns = 'ls-17';
    await seed.namespace(ns);
    await run(ns, 'PipelineRun', 'build-running', { state: 'running' }, { annotations: { [GIT_AUTH_ANNOTATION]: 'pac-gitauth-run17' } });
    await run(ns, 'PipelineRun', 'build-done', FINISHED, { annotations: { [GIT_AUTH_ANNOTATION]: 'pac-gitauth-done17' } });
    for (const name of ['pac-gitauth-run17', 'pac-gitauth-done17', 'pac-gitauth-none17']) await objects.secret(ns, name, { labels: pacLabels() });

    const { report } = await pass(ns, ['--collect', 'pac-secrets', '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`Secret ${ns}/pac-gitauth-done17`]: 'runs-finished deleted',
      [`Secret ${ns}/pac-gitauth-none17`]: 'unreferenced deleted',
      [`Secret ${ns}/pac-gitauth-run17`]: 'referenced-by-active-run kept',
    });
    assert.deepEqual(links(itemOf(report, 'Secret', 'pac-gitauth-run17')), ['PipelineRun build-running running annotation']);
    assert.deepEqual(links(itemOf(report, 'Secret', 'pac-gitauth-done17')), ['PipelineRun build-done succeeded annotation']);
    assert.deepEqual(await objects.fates(ns, { 'pac-gitauth-run17': 'Secret', 'pac-gitauth-done17': 'Secret', 'pac-gitauth-none17': 'Secret' }), {
      'Secret pac-gitauth-run17': 'present',
      'Secret pac-gitauth-done17': 'gone',
      'Secret pac-gitauth-none17': 'gone',
    });
  });

  test('scenario 18: pac-gitauth-x without the label and pac-git-basic-auth-o-r are no targets; the label value pipelines-as-code is one', async () => {
    const ns = 'ls-18';
    await seed.namespace(ns);
    await objects.secret(ns, 'pac-gitauth-x');
    await objects.secret(ns, 'pac-git-basic-auth-o-r', { labels: pacLabels() });
    await objects.secret(ns, 'pac-gitauth-legacy', { labels: pacLabels('pipelines-as-code') });
    await objects.secret(ns, 'pac-gitauth-current', { labels: pacLabels() });

    const { report } = await pass(ns, ['--collect', 'pac-secrets', '--min-age', '0s']);
    assert.deepEqual(verdicts(report), { [`Secret ${ns}/pac-gitauth-current`]: 'unreferenced deleted', [`Secret ${ns}/pac-gitauth-legacy`]: 'unreferenced deleted' });
    assert.deepEqual(await objects.fates(ns, { 'pac-gitauth-x': 'Secret', 'pac-git-basic-auth-o-r': 'Secret', 'pac-gitauth-legacy': 'Secret', 'pac-gitauth-current': 'Secret' }), {
      'Secret pac-gitauth-x': 'present',
      'Secret pac-git-basic-auth-o-r': 'present',
      'Secret pac-gitauth-legacy': 'gone',
      'Secret pac-gitauth-current': 'gone',
    });
  });

  test('scenario 19: a Pipelines-as-Code Secret a Running Pod uses through envFrom (or a secretKeyRef) is in-use-by-pod', async () => {
    const ns = 'ls-19';
    await seed.namespace(ns);
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    for (const name of ['pac-gitauth-envfrom', 'pac-gitauth-keyref', 'pac-gitauth-used']) await objects.secret(ns, name, { labels: pacLabels(), ownerReferences: [pacOwnerRef(done)] });
    await objects.pod(ns, 'push-running', { envFromSecrets: ['pac-gitauth-envfrom'], phase: 'Running' });
    await objects.pod(ns, 'tag-running', { secretKeyRefs: ['pac-gitauth-keyref'], phase: 'Running' });
    await objects.pod(ns, 'clone-succeeded', { envFromSecrets: ['pac-gitauth-used'], phase: 'Succeeded' });

    const { report } = await pass(ns, ['--collect', 'pac-secrets', '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`Secret ${ns}/pac-gitauth-envfrom`]: 'in-use-by-pod kept',
      [`Secret ${ns}/pac-gitauth-keyref`]: 'in-use-by-pod kept',
      [`Secret ${ns}/pac-gitauth-used`]: 'runs-finished deleted',
    });
    assert.deepEqual(itemOf(report, 'Secret', 'pac-gitauth-envfrom').heldBy, [{ kind: 'Pod', name: 'push-running', phase: 'Running' }]);
    assert.deepEqual(await objects.fates(ns, { 'pac-gitauth-envfrom': 'Secret', 'pac-gitauth-keyref': 'Secret', 'pac-gitauth-used': 'Secret' }), {
      'Secret pac-gitauth-envfrom': 'present',
      'Secret pac-gitauth-keyref': 'present',
      'Secret pac-gitauth-used': 'gone',
    });
  });

  test('scenario 20: a run with spec.workspaces "oops" keeps its namespace\'s claims and Secrets (unreadable-run); its PipelineResources are decided as before', async () => {
    const ns = 'ls-20';
    const clean = 'ls-20-clean';
    await seed.namespace(ns);
    await seed.namespace(clean);
    await seed.create(gitResource({ name: 'src-odd', namespace: ns }, 'a20'));
    await seed.create(gitResource({ name: 'src-orphan', namespace: ns }, 'b20'));
    await run(ns, 'PipelineRun', 'build-odd', FINISHED, { workspaces: 'oops', resources: ['src-odd'] });
    const done = await run(ns, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(ns, 'pvc-done', { ownerReferences: [controllerRef(done)] });
    await objects.secret(ns, 'pac-gitauth-odd20', { labels: pacLabels() });
    const doneThere = await run(clean, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(clean, 'pvc-done', { ownerReferences: [controllerRef(doneThere)] });

    const { report, exitCode } = await pass([ns, clean], ['--collect', 'pipelineresources,pac-secrets,workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.equal(exitCode, 0);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/pvc-done`]: 'unreadable-run kept',
      [`PipelineResource ${ns}/src-odd`]: 'runs-finished deleted',
      [`PipelineResource ${ns}/src-orphan`]: 'unreferenced deleted',
      [`Secret ${ns}/pac-gitauth-odd20`]: 'unreadable-run kept',
      [`${CLAIM} ${clean}/pvc-done`]: 'runs-finished deleted',
    });
    assert.match(itemOf(report, 'Secret', 'pac-gitauth-odd20').message, /^PipelineRun build-odd in namespace ls-20 has fields of an unexpected shape \(spec\.workspaces: /);
    assert.deepEqual(await objects.fates(ns, { 'pvc-done': CLAIM, 'pac-gitauth-odd20': 'Secret', 'src-odd': 'PipelineResource', 'src-orphan': 'PipelineResource' }), {
      [`${CLAIM} pvc-done`]: 'present',
      'Secret pac-gitauth-odd20': 'present',
      'PipelineResource src-odd': 'gone',
      'PipelineResource src-orphan': 'gone',
    });
    assert.equal((await objects.fate(CLAIM, clean, 'pvc-done')).state, 'gone');
  });

  test('scenario 24: JSON: bytes from a 1500Mi request, then from a 50Gi capacity; summary.bytes; items sorted by namespace, kind, name', async () => {
    const [a, b] = ['ls-24-a', 'ls-24-b'];
    await seed.namespace(a);
    await seed.namespace(b);
    const done = await run(a, 'PipelineRun', 'build-done', FINISHED);
    const running = await run(a, 'PipelineRun', 'build-running', { state: 'running' });
    const doneB = await run(b, 'PipelineRun', 'build-done', FINISHED);
    await objects.claim(b, 'pvc-a', { ownerReferences: [controllerRef(doneB)], storage: '1Gi' });
    await objects.secret(a, 'pac-gitauth-a24', { labels: pacLabels() });
    await objects.claim(a, 'pvc-c', { ownerReferences: [controllerRef(running)], storage: '1Gi' });
    await objects.claim(a, 'pvc-b', { ownerReferences: [controllerRef(done)], storage: '1500Mi' });
    await objects.claim(a, 'pvc-a', { ownerReferences: [controllerRef(done)], storage: '2Gi' });
    const args = ['--collect', 'pac-secrets,workspace-pvcs', '--namespace', b, '--namespace', a, '--min-age', '0s'];
    const sizes = (report: ReportDocument): Record<string, string> =>
      Object.fromEntries(report.items.filter((item) => item.kind === CLAIM).map((item) => [`${item.namespace}/${item.name}`, `${item.bytes ?? '-'} ${item.bytesFrom ?? '-'}`]));

    const dry = await cli([...args, '--dry-run']);
    assert.deepEqual(
      dry.items.map((item) => `${item.namespace} ${item.kind} ${item.name}`),
      [`${a} ${CLAIM} pvc-a`, `${a} ${CLAIM} pvc-b`, `${a} ${CLAIM} pvc-c`, `${a} Secret pac-gitauth-a24`, `${b} ${CLAIM} pvc-a`],
    );
    assert.deepEqual(sizes(dry), { [`${a}/pvc-a`]: `${2 * GIB} request`, [`${a}/pvc-b`]: `${1500 * MIB} request`, [`${a}/pvc-c`]: `${GIB} request`, [`${b}/pvc-a`]: `${GIB} request` });
    assert.equal(itemOf(dry, 'Secret', 'pac-gitauth-a24').bytes, undefined);
    assert.deepEqual(dry.summary.byKind, { PersistentVolumeClaim: { targets: 4, delete: 3, keep: 1 }, Secret: { targets: 1, delete: 1, keep: 0 } });
    assert.deepEqual(dry.summary.bytes, { candidates: 2 * GIB + 1500 * MIB + GIB, released: 0, pending: 0 });

    // What a provisioner writes once it has bound the claim: providers round requests up.
    await objects.setCapacity(a, 'pvc-b', '50Gi');
    const kept = await cli(args);
    assert.deepEqual(sizes(kept), { [`${a}/pvc-a`]: `${2 * GIB} request`, [`${a}/pvc-b`]: `${50 * GIB} capacity`, [`${a}/pvc-c`]: `${GIB} request`, [`${b}/pvc-a`]: `${GIB} request` });
    assert.deepEqual(kept.summary.results, { deleted: 1, terminating: 3, kept: 1 });
    const candidates = 2 * GIB + 50 * GIB + GIB;
    assert.deepEqual(kept.summary.bytes, { candidates, released: 0, pending: candidates });

    const purged = await cli([...args, ...PURGE]);
    assert.deepEqual(verdicts(purged), {
      [`${CLAIM} ${a}/pvc-a`]: 'runs-finished deleted',
      [`${CLAIM} ${a}/pvc-b`]: 'runs-finished deleted',
      [`${CLAIM} ${a}/pvc-c`]: 'referenced-by-active-run kept',
      [`${CLAIM} ${b}/pvc-a`]: 'runs-finished deleted',
    });
    assert.deepEqual(purged.summary.bytes, { candidates, released: candidates, pending: 0 });
    assert.deepEqual(await objects.fates(a, { 'pvc-a': CLAIM, 'pvc-b': CLAIM, 'pvc-c': CLAIM, 'pac-gitauth-a24': 'Secret' }), {
      [`${CLAIM} pvc-a`]: 'gone',
      [`${CLAIM} pvc-b`]: 'gone',
      [`${CLAIM} pvc-c`]: 'present',
      'Secret pac-gitauth-a24': 'gone',
    });
    assert.equal((await objects.fate(CLAIM, b, 'pvc-a')).state, 'gone');
  });

  test('scenario 26: legacy names (<pipelinerun>-pvc, <workspace>-<run>) with a gone controller owner are owner-gone', async () => {
    const ns = 'ls-26';
    await seed.namespace(ns);
    // PipelineResource artifacts (v0.2-v0.45) and volumeClaimTemplate claims of v0.12-v0.14, owned through v1alpha1.
    await objects.claim(ns, 'build-42-pvc', { ownerReferences: [controllerRef({ kind: 'PipelineRun', name: 'build-42', uid: inventedUid(42) }, 'tekton.dev/v1alpha1')] });
    await objects.claim(ns, 'source-build-43', { ownerReferences: [controllerRef({ kind: 'PipelineRun', name: 'build-43', uid: inventedUid(43) }, 'tekton.dev/v1alpha1')] });
    // The same names, their run still running: names decide nothing.
    const running = await run(ns, 'PipelineRun', 'build-44', { state: 'running' });
    await objects.claim(ns, 'build-44-pvc', { ownerReferences: [controllerRef(running, 'tekton.dev/v1alpha1')] });

    const { report } = await pass(ns, ['--collect', 'workspace-pvcs', ...PURGE, '--min-age', '0s']);
    assert.deepEqual(verdicts(report), {
      [`${CLAIM} ${ns}/build-42-pvc`]: 'owner-gone deleted',
      [`${CLAIM} ${ns}/build-44-pvc`]: 'referenced-by-active-run kept',
      [`${CLAIM} ${ns}/source-build-43`]: 'owner-gone deleted',
    });
    assert.deepEqual(links(itemOf(report, CLAIM, 'build-42-pvc')), ['PipelineRun build-42 gone ownerReference']);
    assert.deepEqual(await objects.fates(ns, { 'build-42-pvc': CLAIM, 'source-build-43': CLAIM, 'build-44-pvc': CLAIM }), {
      [`${CLAIM} build-42-pvc`]: 'gone',
      [`${CLAIM} source-build-43`]: 'gone',
      [`${CLAIM} build-44-pvc`]: 'present',
    });
  });
});

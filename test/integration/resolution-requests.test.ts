/**
 * The ResolutionRequests' collector against a real kube-apiserver (docs/spec.md,
 * "ResolutionRequests"): which requests of active runs are released because the run stored
 * what it resolved, which an active run still reads, those of finished and gone runs, those
 * nobody owns, `$(params.*)` and `$(context.*)` in a ref's params, explain, a cluster that
 * does not serve the kind, and reruns by name (a run deleted and created again with its name
 * reads the requests its predecessor owns; docs/spec.md, "Reruns by name"). The harness's
 * v0.45 CRD set has no ResolutionRequest CRD: these tests install it themselves
 * (harness/crds.ts), after the case that needs it absent. Tekton's
 * controller does not run, so runs are made as it leaves them (the object, then its status
 * through /status, with `status.pipelineSpec` or `status.taskSpec` where the run stored it),
 * and requests are named with Tekton's own naming (src/core/resolution.ts, deterministicName).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ApiException, ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { RESOLUTION, RESOLUTION_REQUEST_CRD } from '../../harness/crds.js';
import { deterministicName } from '../../src/core/resolution.js';
import type { ReportDocument } from '../../src/report/model.js';
import { reportOf, runCli } from '../support/cli.js';
import { LeftoverSeeder, type RunOwner } from '../support/leftovers.js';
import { passInProcess } from '../support/pass.js';
import { useControlPlane, useFaultProxy } from '../support/realserver.js';
import { hoursAgo, runStatus, type KubeObject, type RunStatusSpec } from '../support/tekton.js';

const RESOLVER_TYPE_LABEL = 'resolution.tekton.dev/type';

/** What a pass with `--min-age 0s` warns of in its report (src/pass/sweep.ts). */
const MIN_AGE_WARNING =
  "--min-age 0s is under a minute: Tekton resolves a run's references a few seconds after the run is created, so a target created for a run that is just starting may be deleted";

type Param = { name: string; value: string };

/** A git resolver's params for a file of github.com/org/repo. */
function gitParams(revision: string, pathInRepo: string): Param[] {
  return [
    { name: 'url', value: 'https://github.com/org/repo' },
    { name: 'revision', value: revision },
    { name: 'pathInRepo', value: pathInRepo },
  ];
}

/** A bundles resolver's params for a Task in an OCI bundle. */
const BUNDLE_PARAMS: Param[] = [
  { name: 'bundle', value: 'registry.example/catalog:1.2' },
  { name: 'name', value: 'build' },
  { name: 'kind', value: 'task' },
];

/** What a run stored of what it resolved, as Tekton writes it into the run's status. */
const STORED_PIPELINE = { tasks: [{ name: 'build', taskRef: { resolver: 'bundles', params: BUNDLE_PARAMS } }] };

/** A bundles resolver's params for a StepAction of the Task. */
const STEP_PARAMS: Param[] = [
  { name: 'bundle', value: 'registry.example/catalog:1.2' },
  { name: 'name', value: 'push' },
  { name: 'kind', value: 'stepaction' },
];
const STORED_TASK = { steps: [{ name: 'build', image: 'busybox', script: 'echo build' }] };

/** A v1 PipelineRun whose pipelineRef resolves remotely, with the run's own params when given. */
function remotePipelineRun(namespace: string, name: string, resolver: string, refParams: readonly Param[], params?: readonly Param[]): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: { name, namespace },
    spec: { pipelineRef: { resolver, params: refParams }, ...(params !== undefined && { params }) },
  };
}

/** A v1 TaskRun whose taskRef resolves remotely. */
function remoteTaskRun(namespace: string, name: string, resolver: string, refParams: readonly Param[]): KubeObject {
  return { apiVersion: 'tekton.dev/v1', kind: 'TaskRun', metadata: { name, namespace }, spec: { taskRef: { resolver, params: refParams } } };
}

/** `kind name -> reason result` of a report's items. */
function results(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.name}`, `${item.reason} ${item.result}`]));
}

/** `name -> message` of a report's items. */
function messages(report: ReportDocument): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [item.name, item.message]));
}

async function poll(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what}: not after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('ResolutionRequests on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let custom: CustomObjectsApi;
  before(() => {
    custom = server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  const cli = (args: readonly string[]): ReturnType<typeof runCli> => runCli([...args, '--output', 'json', '--kubeconfig', server.controlPlane.kubeconfigPath]);
  const pass = (namespace: string, more: readonly string[] = []): ReturnType<typeof runCli> =>
    cli(['--collect', 'resolution-requests', '--namespace', namespace, '--min-age', '0s', ...more]);

  /**
   * Creates the run, then writes its status through /status as Tekton would: the state's
   * conditions and times, and (`stored`) the spec it resolved, in status.pipelineSpec or
   * status.taskSpec by its kind.
   */
  async function run(object: KubeObject, status: RunStatusSpec, stored?: unknown): Promise<RunOwner> {
    const version = object.apiVersion.split('/')[1] ?? '';
    const plural = object.kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
    const { namespace } = object.metadata;
    const created = (await custom.createNamespacedCustomObject({ group: 'tekton.dev', version, namespace, plural, body: object })) as KubeObject;
    return await writeStatus(created, status, stored);
  }

  /** Writes a run's status through /status as run() does: for a run that moves on (stores what it resolved, finishes). */
  async function writeStatus(created: KubeObject, status: RunStatusSpec, stored?: unknown): Promise<RunOwner> {
    const version = created.apiVersion.split('/')[1] ?? '';
    const plural = created.kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
    const kind = created.kind === 'PipelineRun' ? 'PipelineRun' : 'TaskRun';
    const { namespace, name } = created.metadata;
    const startedAt = 'finishedAt' in status ? new Date(Date.parse(status.finishedAt) - 300_000).toISOString() : new Date().toISOString();
    const body = { ...created, status: { ...(runStatus(kind, status, startedAt) as Record<string, unknown>), ...(stored !== undefined && { [kind === 'PipelineRun' ? 'pipelineSpec' : 'taskSpec']: stored }) } };
    const updated = (await custom.replaceNamespacedCustomObjectStatus({ group: 'tekton.dev', version, namespace, plural, name, body })) as KubeObject;
    // What the collector reads is what the server kept: the stored spec went through /status.
    if (stored !== undefined) assert.deepEqual((updated.status as Record<string, unknown>)[kind === 'PipelineRun' ? 'pipelineSpec' : 'taskSpec'], stored);
    return { kind, name, uid: updated.metadata.uid ?? '' };
  }

  /** A ResolutionRequest as Tekton makes it: the resolver label, the params, and (when given) a controller ownerReference to the run that asked. */
  async function resolutionRequest(namespace: string, name: string, resolver: string, params: readonly Param[], owner?: RunOwner, labels: Record<string, string> = {}): Promise<void> {
    await custom.createNamespacedCustomObject({
      ...RESOLUTION,
      namespace,
      body: {
        apiVersion: `${RESOLUTION.group}/${RESOLUTION.version}`,
        kind: 'ResolutionRequest',
        metadata: {
          name,
          namespace,
          labels: { [RESOLVER_TYPE_LABEL]: resolver, ...labels },
          ...(owner !== undefined && { ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] }),
        },
        spec: { params },
      },
    });
  }

  /**
   * A PipelineRun `runName` of the git pipeline that has stored status.pipelineSpec, in `status`,
   * and the request of its own pipelineRef, named as Tekton names it: the run and the name.
   */
  async function storedRunAndItsRequest(namespace: string, runName: string, status: RunStatusSpec): Promise<{ owner: RunOwner; name: string }> {
    const owner = await run(remotePipelineRun(namespace, runName, 'git', gitParams('main', 'pipeline.yaml')), status, STORED_PIPELINE);
    const name = deterministicName('git', `${namespace}/${runName}`, gitParams('main', 'pipeline.yaml'));
    await resolutionRequest(namespace, name, 'git', gitParams('main', 'pipeline.yaml'), owner);
    return { owner, name };
  }

  /** Names of the ResolutionRequests left in a namespace, sorted. */
  async function remaining(namespace: string): Promise<string[]> {
    const list = (await custom.listNamespacedCustomObject({ ...RESOLUTION, namespace })) as { items: KubeObject[] };
    return list.items.map((item) => item.metadata.name).sort();
  }

  // First: the CRD is installed after it.
  test('3: a cluster that does not serve ResolutionRequests: the collector is skipped with one line, exit 0', async () => {
    const namespace = 'rr-absent';
    await server.seed.namespace(namespace);
    await run(remotePipelineRun(namespace, 'build-1', 'git', gitParams('main', 'pipeline.yaml')), { state: 'succeeded', finishedAt: hoursAgo(2) }, STORED_PIPELINE);
    const skipped = 'resolutionrequests.resolution.tekton.dev/v1beta1 is not served by this cluster: resolution-requests skipped';

    // Alone: nothing to collect, the pass says why on stdout and ends.
    const alone = await pass(namespace);
    assert.equal(alone.code, 0, alone.stderr);
    assert.deepEqual(alone.stdout.split('\n').filter((line) => line !== ''), [skipped]);

    // Beside a collector that is served: the pass runs, and its report warns.
    const beside = await cli(['--collect', 'pipelineresources,resolution-requests', '--namespace', namespace, '--min-age', '0s']);
    assert.equal(beside.code, 0, beside.stderr);
    const report = reportOf(beside);
    assert.deepEqual(report.warnings, [MIN_AGE_WARNING, skipped]);
    assert.deepEqual(report.items, []);
    // Counted under its kind as a collector that was on: zeros, the warning says why.
    assert.deepEqual(report.summary.byKind, { PipelineResource: { targets: 0, delete: 0, keep: 0 }, ResolutionRequest: { targets: 0, delete: 0, keep: 0 } });

    // explain says the same of its kind, and that it cannot explain: exit 1, one line.
    const explained = await runCli(['explain', `resolutionrequest/${namespace}/git-0123`, '--kubeconfig', server.controlPlane.kubeconfigPath]);
    assert.equal(explained.code, 1, explained.stderr);
    assert.equal(explained.stderr, 'tekton-resource-gc: resolutionrequests.resolution.tekton.dev/v1beta1 is not served by this cluster: there is nothing to explain\n');
  });

  describe('with the ResolutionRequest CRD installed', () => {
    before(async () => {
      const crds = server.controlPlane.kubeConfig().makeApiClient(ApiextensionsV1Api);
      await crds.createCustomResourceDefinition({ body: RESOLUTION_REQUEST_CRD });
      const name = RESOLUTION_REQUEST_CRD.metadata?.name ?? '';
      await poll(`CRD ${name} Established`, async () => {
        const current = await crds.readCustomResourceDefinition({ name });
        return current.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') ?? false;
      });
      await poll(`${RESOLUTION.plural} in discovery`, async () => {
        try {
          const resources = await custom.getAPIResources({ group: RESOLUTION.group, version: RESOLUTION.version });
          return resources.resources.some((resource) => resource.name === RESOLUTION.plural);
        } catch (error) {
          if (error instanceof ApiException && error.code === 404) return false;
          throw error;
        }
      });
    });

    // The requests of case 1, by the letters its test names them with, as Tekton names them.
    const ns1 = 'rr-mixed';
    const names1 = {
      /** (a) the pipelineRef request of a running PipelineRun that stored status.pipelineSpec */
      a: deterministicName('git', `${ns1}/build-stored`, gitParams('main', 'pipeline.yaml')),
      /** (b) a task's request of the same running PipelineRun */
      b: deterministicName('bundles', `${ns1}/build-stored-build`, BUNDLE_PARAMS),
      /** (c) the pipelineRef request of a running PipelineRun that has not stored status.pipelineSpec */
      c: deterministicName('git', `${ns1}/build-resolving`, gitParams('main', 'pipeline.yaml')),
      /** (d) the taskRef request of a running TaskRun that stored status.taskSpec */
      d: deterministicName('bundles', `${ns1}/lint-stored`, BUNDLE_PARAMS),
      /** (e) the pipelineRef request of a succeeded PipelineRun */
      e: deterministicName('git', `${ns1}/build-done`, gitParams('main', 'pipeline.yaml')),
      /** (f) the pipelineRef request of a PipelineRun that is gone */
      f: deterministicName('git', `${ns1}/build-gone`, gitParams('main', 'pipeline.yaml')),
      /** (g) a request made by hand: no owner */
      g: 'git-made-by-hand',
      /** (h) a request of a finished run, labelled retain */
      h: deterministicName('git', `${ns1}/build-kept`, gitParams('main', 'pipeline.yaml')),
    };

    test('1: one namespace of every kind of request: a dry run deletes nothing; the live pass deletes exactly (a), (d), (e) and (f)', async () => {
      const namespace = ns1;
      await server.seed.namespace(namespace);
      const stored = await run(remotePipelineRun(namespace, 'build-stored', 'git', gitParams('main', 'pipeline.yaml')), { state: 'running' }, STORED_PIPELINE);
      await resolutionRequest(namespace, names1.a, 'git', gitParams('main', 'pipeline.yaml'), stored);
      await resolutionRequest(namespace, names1.b, 'bundles', BUNDLE_PARAMS, stored);
      const resolving = await run(remotePipelineRun(namespace, 'build-resolving', 'git', gitParams('main', 'pipeline.yaml')), { state: 'running' });
      await resolutionRequest(namespace, names1.c, 'git', gitParams('main', 'pipeline.yaml'), resolving);
      const lint = await run(remoteTaskRun(namespace, 'lint-stored', 'bundles', BUNDLE_PARAMS), { state: 'running' }, STORED_TASK);
      await resolutionRequest(namespace, names1.d, 'bundles', BUNDLE_PARAMS, lint);
      const finishedAt = hoursAgo(2);
      const done = await run(remotePipelineRun(namespace, 'build-done', 'git', gitParams('main', 'pipeline.yaml')), { state: 'succeeded', finishedAt }, STORED_PIPELINE);
      await resolutionRequest(namespace, names1.e, 'git', gitParams('main', 'pipeline.yaml'), done);
      await resolutionRequest(namespace, names1.f, 'git', gitParams('main', 'pipeline.yaml'), { kind: 'PipelineRun', name: 'build-gone', uid: '0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9' });
      await resolutionRequest(namespace, names1.g, 'git', gitParams('main', 'pipeline.yaml'));
      const kept = await run(remotePipelineRun(namespace, 'build-kept', 'git', gitParams('main', 'pipeline.yaml')), { state: 'succeeded', finishedAt: hoursAgo(2) }, STORED_PIPELINE);
      await resolutionRequest(namespace, names1.h, 'git', gitParams('main', 'pipeline.yaml'), kept, { 'tekton-resource-gc.io/retain': 'true' });
      const all = Object.values(names1).sort();
      assert.deepEqual(await remaining(namespace), all);

      const decided = (result: 'would-delete' | 'deleted'): Record<string, string> => ({
        [`ResolutionRequest ${names1.a}`]: `resolution-stored ${result}`,
        [`ResolutionRequest ${names1.b}`]: 'referenced-by-active-run kept',
        [`ResolutionRequest ${names1.c}`]: 'referenced-by-active-run kept',
        [`ResolutionRequest ${names1.d}`]: `resolution-stored ${result}`,
        [`ResolutionRequest ${names1.e}`]: `runs-finished ${result}`,
        [`ResolutionRequest ${names1.f}`]: `owner-gone ${result}`,
        [`ResolutionRequest ${names1.h}`]: 'retained kept',
      });
      const why = {
        [names1.a]: 'its owner PipelineRun build-stored (running) stored what it resolved in status.pipelineSpec and reads it no more',
        [names1.b]: 'owned by active PipelineRun build-stored (running)',
        [names1.c]: 'owned by active PipelineRun build-resolving (running)',
        [names1.d]: 'its owner TaskRun lint-stored (running) stored what it resolved in status.taskSpec and reads it no more',
        [names1.e]: `its only linked run, PipelineRun build-done (its owner), finished at ${finishedAt}`,
        [names1.f]: 'its owner PipelineRun build-gone is gone and no other run links it',
        [names1.h]: 'retained by label tekton-resource-gc.io/retain="true"',
      };

      const dry = await pass(namespace, ['--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      const dryReport = reportOf(dry);
      assert.equal(dryReport.dryRun, true);
      assert.deepEqual(results(dryReport), decided('would-delete'));
      assert.deepEqual(messages(dryReport), why);
      assert.deepEqual(new Set(dryReport.items.map((item) => item.collector)), new Set(['resolution-requests']));
      assert.deepEqual(dryReport.warnings, [MIN_AGE_WARNING]);
      assert.deepEqual(await remaining(namespace), all);

      const live = await pass(namespace);
      assert.equal(live.code, 0, live.stderr);
      const liveReport = reportOf(live);
      assert.equal(liveReport.dryRun, false);
      assert.deepEqual(results(liveReport), decided('deleted'));
      assert.deepEqual(messages(liveReport), why);
      assert.deepEqual(liveReport.warnings, [MIN_AGE_WARNING]);
      assert.deepEqual(await remaining(namespace), [names1.b, names1.c, names1.g, names1.h].sort());
    });

    test('6: a plan, then apply: the released and the finished run’s requests go; one re-created since the plan is reported changed and stays', async () => {
      const namespace = 'rr-apply';
      await server.seed.namespace(namespace);
      const { name: released } = await storedRunAndItsRequest(namespace, 'build-stored', { state: 'running' });
      const { owner: done, name: finished } = await storedRunAndItsRequest(namespace, 'build-done', { state: 'succeeded', finishedAt: hoursAgo(2) });
      const file = path.join(server.controlPlane.dir, `${namespace}.plan.json`);
      const dry = await pass(namespace, ['--dry-run', '--plan-file', file]);
      assert.equal(dry.code, 0, dry.stderr);
      const plan = JSON.parse(await readFile(file, 'utf8')) as { entries: { kind: string; name: string; reason: string }[] };
      assert.deepEqual(
        plan.entries.map((entry) => [entry.kind, entry.name, entry.reason]).sort(),
        [
          ['ResolutionRequest', released, 'resolution-stored'],
          ['ResolutionRequest', finished, 'runs-finished'],
        ].sort(),
      );
      // The request of the finished run is deleted and made again (Tekton would, for a new run of that name): another uid.
      await custom.deleteNamespacedCustomObject({ ...RESOLUTION, namespace, name: finished });
      await resolutionRequest(namespace, finished, 'git', gitParams('main', 'pipeline.yaml'), done);

      const applied = await cli(['apply', file]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.deepEqual(results(reportOf(applied)), {
        [`ResolutionRequest ${released}`]: 'resolution-stored deleted',
        [`ResolutionRequest ${finished}`]: 'runs-finished changed',
      });
      assert.deepEqual(await remaining(namespace), [finished]);
    });

    test('4: explain of a request as (a), its running owner stored what it resolved: resolution-stored (rule 9), naming the owner', async () => {
      const namespace = 'rr-explain';
      await server.seed.namespace(namespace);
      const { name } = await storedRunAndItsRequest(namespace, 'build-stored', { state: 'running' });
      const result = await cli(['explain', `resolutionrequest/${namespace}/${name}`, '--min-age', '0s']);
      assert.equal(result.code, 0, result.stderr);
      const explanation = JSON.parse(result.stdout) as Record<string, unknown>;
      assert.equal(explanation['kind'], 'Explanation');
      const target = explanation['target'] as Record<string, unknown>;
      assert.deepEqual([target['namespace'], target['kind'], target['collector'], target['name']], [namespace, 'ResolutionRequest', 'resolution-requests', name]);
      assert.deepEqual(explanation['decision'], {
        action: 'delete',
        reason: 'resolution-stored',
        rule: 9,
        message: 'its owner PipelineRun build-stored (running) stored what it resolved in status.pipelineSpec and reads it no more',
      });
      assert.deepEqual(explanation['references'], [{ kind: 'PipelineRun', name: 'build-stored', state: 'running', via: 'ownerReference' }]);
      assert.deepEqual(explanation['collectable'], { when: 'now' });
      // Explain deletes nothing.
      assert.deepEqual(await remaining(namespace), [name]);
    });

    test('2: $(params.*) and $(context.pipelineRun.name) in a pipelineRef: the request named with the values is released; one with a reference the run cannot replace is kept', async () => {
      const namespace = 'rr-params';
      await server.seed.namespace(namespace);
      const refParams = [
        { name: 'url', value: 'https://github.com/org/repo' },
        { name: 'revision', value: '$(params.revision)' },
        { name: 'pathInRepo', value: 'pipelines/$(context.pipelineRun.name).yaml' },
      ];
      const replaced = await run(remotePipelineRun(namespace, 'build-7', 'git', refParams, [{ name: 'revision', value: 'v1.2.3' }]), { state: 'running' }, STORED_PIPELINE);
      const substituted = deterministicName('git', `${namespace}/build-7`, gitParams('v1.2.3', 'pipelines/build-7.yaml'));
      await resolutionRequest(namespace, substituted, 'git', gitParams('v1.2.3', 'pipelines/build-7.yaml'), replaced);
      // The same run's request named from the text as written: not its pipelineRef's, kept.
      const literal = deterministicName('git', `${namespace}/build-7`, refParams);
      await resolutionRequest(namespace, literal, 'git', refParams, replaced);

      const missingParams = [
        { name: 'url', value: 'https://github.com/org/repo' },
        { name: 'revision', value: '$(params.missing)' },
        { name: 'pathInRepo', value: 'pipeline.yaml' },
      ];
      const missing = await run(remotePipelineRun(namespace, 'build-8', 'git', missingParams, [{ name: 'revision', value: 'v1.2.3' }]), { state: 'running' }, STORED_PIPELINE);
      // Tekton leaves a reference it cannot replace as it is: its request is named from the text.
      const unresolvable = deterministicName('git', `${namespace}/build-8`, missingParams);
      await resolutionRequest(namespace, unresolvable, 'git', missingParams, missing);

      const result = await pass(namespace);
      assert.equal(result.code, 0, result.stderr);
      const report = reportOf(result);
      assert.deepEqual(results(report), {
        [`ResolutionRequest ${substituted}`]: 'resolution-stored deleted',
        [`ResolutionRequest ${literal}`]: 'referenced-by-active-run kept',
        [`ResolutionRequest ${unresolvable}`]: 'referenced-by-active-run kept',
      });
      assert.deepEqual(messages(report), {
        [substituted]: 'its owner PipelineRun build-7 (running) stored what it resolved in status.pipelineSpec and reads it no more',
        [literal]: 'owned by active PipelineRun build-7 (running)',
        [unresolvable]: 'owned by active PipelineRun build-8 (running)',
      });
      assert.deepEqual(await remaining(namespace), [literal, unresolvable].sort());
    });

    /**
     * A PipelineRun `build-1` as a rerun by name finds what its predecessor left: the requests
     * Tekton named after `<namespace>/build-1` (its pipelineRef's and a task's), the affinity
     * assistant named after the PipelineRun's name (its StatefulSet, labelled `build-1`, and the
     * claim it made), a claim named after the old uid, and the git-auth Secret its annotation
     * names (a rerun copies the annotation). Each owned by the old run, which is deleted: no
     * garbage collector runs here, so they stay as a cluster's GC lag would leave them.
     */
    async function predecessorOf(namespace: string): Promise<{ rerunObject: KubeObject; own: string; task: string; step: string; claims: LeftoverSeeder }> {
      const claims = new LeftoverSeeder(server.controlPlane.kubeConfig());
      const base = remotePipelineRun(namespace, 'build-1', 'git', gitParams('main', 'pipeline.yaml'));
      const rerunObject: KubeObject = { ...base, metadata: { ...base.metadata, annotations: { 'pipelinesascode.tekton.dev/git-auth-secret': 'pac-gitauth-build1' } } };
      const old = await run(rerunObject, { state: 'succeeded', finishedAt: hoursAgo(1) }, STORED_PIPELINE);
      const own = deterministicName('git', `${namespace}/build-1`, gitParams('main', 'pipeline.yaml'));
      // The pipeline task `build`'s taskRef, resolved by the PipelineRun under its child TaskRun's
      // name (pipelinerun.go:415-436), and owned by the PipelineRun.
      const task = deterministicName('bundles', `${namespace}/build-1-build`, BUNDLE_PARAMS);
      await resolutionRequest(namespace, own, 'git', gitParams('main', 'pipeline.yaml'), old);
      await resolutionRequest(namespace, task, 'bundles', BUNDLE_PARAMS, old);
      // The StepAction of that child TaskRun, `build-1-build`, gone with its parent: named after the child's name
      // (taskref.go:150-155) and owned by it; the rerun's child of that name reads it.
      const step = deterministicName('bundles', `${namespace}/build-1-build`, STEP_PARAMS);
      await resolutionRequest(namespace, step, 'bundles', STEP_PARAMS, { kind: 'TaskRun', name: 'build-1-build', uid: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d' });
      await claims.affinityStatefulSet(namespace, 'affinity-assistant-5e1f00d0aa', old);
      await claims.affinityClaim(namespace, 'affinity-assistant-5e1f00d0aa', 'build-1');
      await claims.ownedClaim(namespace, 'pvc-0ld0ld0ld0', old);
      await claims.pacSecret(namespace, 'pac-gitauth-build1', old);
      // A request of another run that is gone, and nothing of its name: it goes, so the pass is seen deleting.
      await resolutionRequest(namespace, 'git-of-a-gone-run', 'git', gitParams('main', 'other.yaml'), { kind: 'PipelineRun', name: 'build-0', uid: '0b1c2d3e-4f50-4617-8283-94a5b6c7d8e0' });
      await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: 'build-1' });
      return { rerunObject, own, task, step, claims };
    }

    const EVERY_LEFTOVER = ['--collect', 'workspace-pvcs,affinity-assistants,pac-secrets,resolution-requests'];

    /** Reads the run again and writes its status: a run that moves on (stores what it resolved, finishes). */
    async function moveOn(namespace: string, name: string, status: RunStatusSpec, stored?: unknown): Promise<void> {
      const current = (await custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name })) as KubeObject;
      await writeStatus(current, status, stored);
    }

    test('7: a rerun by name reads its predecessor’s requests: kept while it may read them, released once it stored its pipeline, gone when it finished', async () => {
      const namespace = 'rr-rerun';
      await server.seed.namespace(namespace);
      const { rerunObject, own, task, step, claims } = await predecessorOf(namespace);
      await run(rerunObject, { state: 'running' });

      const first = await pass(namespace, EVERY_LEFTOVER);
      assert.equal(first.code, 0, first.stderr);
      const firstReport = reportOf(first);
      assert.deepEqual(results(firstReport), {
        [`ResolutionRequest ${own}`]: 'referenced-by-active-run kept',
        [`ResolutionRequest ${task}`]: 'referenced-by-active-run kept',
        // The rerun has not made its child `build-1-build` yet; when it does, that child reads it.
        [`ResolutionRequest ${step}`]: 'referenced-by-active-run kept',
        'ResolutionRequest git-of-a-gone-run': 'owner-gone deleted',
        'StatefulSet affinity-assistant-5e1f00d0aa': 'referenced-by-active-run kept',
        'PersistentVolumeClaim pvc-0123abcd-affinity-assistant-5e1f00d0aa-0': 'referenced-by-active-run kept',
        // Named after the old run's uid: no rerun mounts it.
        'PersistentVolumeClaim pvc-0ld0ld0ld0': 'owner-gone terminating',
        'Secret pac-gitauth-build1': 'referenced-by-active-run kept',
      });
      assert.equal(messages(firstReport)[own], 'read by active PipelineRun build-1 (running), same name as its owner');
      assert.equal(messages(firstReport)[task], 'read by active PipelineRun build-1 (running), same name as its owner');
      assert.equal(messages(firstReport)[step], "read by active PipelineRun build-1 (running), whose child run would have its owner's name");
      assert.deepEqual(firstReport.items.find((item) => item.name === own)?.references, [
        { kind: 'PipelineRun', name: 'build-1', state: 'running', via: 'ownerName' },
        { kind: 'PipelineRun', name: 'build-1', state: 'gone', via: 'ownerReference' },
      ]);
      assert.deepEqual(await remaining(namespace), [own, task, step].sort());

      // explain says the same, naming the run.
      const explained = await runCli(['explain', `resolutionrequest/${namespace}/${own}`, '--min-age', '0s', '--kubeconfig', server.controlPlane.kubeconfigPath]);
      assert.equal(explained.code, 0, explained.stderr);
      assert.match(explained.stdout, /PipelineRun\/build-1 running \(same name as its owner: Tekton finds the request by that name\)/);
      assert.match(explained.stdout, /read by active PipelineRun build-1 \(running\), same name as its owner/);

      // The rerun stored its pipeline: it reads its pipelineRef's request no more; its task's it still may.
      await moveOn(namespace, 'build-1', { state: 'running' }, STORED_PIPELINE);
      const second = await pass(namespace, EVERY_LEFTOVER);
      assert.equal(second.code, 0, second.stderr);
      const secondReport = reportOf(second);
      assert.equal(results(secondReport)[`ResolutionRequest ${own}`], 'resolution-stored deleted');
      assert.equal(messages(secondReport)[own], 'PipelineRun build-1 (running), same name as its owner, stored what it resolved in status.pipelineSpec and reads it no more');
      assert.equal(results(secondReport)[`ResolutionRequest ${task}`], 'referenced-by-active-run kept');
      assert.equal(results(secondReport)[`ResolutionRequest ${step}`], 'referenced-by-active-run kept');
      assert.deepEqual(await remaining(namespace), [task, step].sort());

      // Finished: nothing of its name is read any more.
      const finishedAt = hoursAgo(0.5);
      await moveOn(namespace, 'build-1', { state: 'succeeded', finishedAt }, STORED_PIPELINE);
      const third = await pass(namespace, EVERY_LEFTOVER);
      assert.equal(third.code, 0, third.stderr);
      const thirdReport = reportOf(third);
      assert.equal(results(thirdReport)[`ResolutionRequest ${task}`], 'runs-finished deleted');
      assert.equal(messages(thirdReport)[task], `its only linked run, PipelineRun build-1 (same name as its owner), finished at ${finishedAt}`);
      assert.equal(results(thirdReport)[`ResolutionRequest ${step}`], 'runs-finished deleted');
      assert.equal(results(thirdReport)['StatefulSet affinity-assistant-5e1f00d0aa'], 'runs-finished deleted');
      assert.equal(results(thirdReport)['Secret pac-gitauth-build1'], 'runs-finished deleted');
      assert.deepEqual(await remaining(namespace), []);
      assert.deepEqual((await claims.remaining(namespace)).statefulSets, []);
    });

    test('8: a pass beside the rerun: deleted and created again with its name after the listing, the re-check keeps its predecessor’s requests', async () => {
      const namespace = 'rr-rerun-race';
      await server.seed.namespace(namespace);
      const { rerunObject, own, task, step } = await predecessorOf(namespace);
      // What the listing sees: a first rerun of that name, finished. Once the listing is done it is deleted and run again.
      const old = await run(rerunObject, { state: 'succeeded', finishedAt: hoursAgo(1) }, STORED_PIPELINE);
      const { outcome } = await passInProcess(server.controlPlane.kubeConfig(), [...EVERY_LEFTOVER, '--namespace', namespace, '--min-age', '0s'], {
        afterListing: async () => {
          await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: old.name });
          await run(rerunObject, { state: 'running' });
        },
      });
      assert.equal(outcome.exitCode, 0);
      const decided = results(outcome.report);
      assert.equal(decided[`ResolutionRequest ${own}`], 'referenced-by-active-run kept');
      assert.equal(decided[`ResolutionRequest ${task}`], 'referenced-by-active-run kept');
      assert.equal(decided['StatefulSet affinity-assistant-5e1f00d0aa'], 'referenced-by-active-run kept');
      assert.equal(decided['Secret pac-gitauth-build1'], 'referenced-by-active-run kept');
      assert.equal(decided[`ResolutionRequest ${step}`], 'referenced-by-active-run kept');
      assert.equal(decided['ResolutionRequest git-of-a-gone-run'], 'owner-gone deleted');
      assert.deepEqual(await remaining(namespace), [own, task, step].sort());
    });

    test('9: a rerun by name created during the delete phase, after the view its request was decided on: the read of its owner’s name right before the DELETE keeps it', async () => {
      const namespace = 'rr-rerun-in-phase';
      await server.seed.namespace(namespace);
      const first = await storedRunAndItsRequest(namespace, 'build-a', { state: 'succeeded', finishedAt: hoursAgo(1) });
      const second = await storedRunAndItsRequest(namespace, 'build-b', { state: 'succeeded', finishedAt: hoursAgo(1) });
      const byName = new Map([
        [first.name, second],
        [second.name, first],
      ]);
      let rerun: string | undefined;
      // One delete at a time, requests alone (no earlier collector's deletes make the phase read
      // its view again): the rerun is created after the view the second request is decided on,
      // well within the 5 s that view may serve.
      const { outcome } = await passInProcess(server.controlPlane.kubeConfig(), ['--collect', 'resolution-requests', '--namespace', namespace, '--min-age', '0s', '--concurrency', '1'], {
        beforeDelete: async (target, sent) => {
          if (sent > 0) return;
          const other = byName.get(target.name);
          assert.ok(other !== undefined, target.name);
          rerun = other.name;
          await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: other.owner.name });
          await run(remotePipelineRun(namespace, other.owner.name, 'git', gitParams('main', 'pipeline.yaml')), { state: 'running' });
        },
      });
      assert.equal(outcome.exitCode, 0);
      assert.ok(rerun !== undefined);
      const deleted = rerun === first.name ? second.name : first.name;
      assert.deepEqual(results(outcome.report), { [`ResolutionRequest ${deleted}`]: 'runs-finished deleted', [`ResolutionRequest ${rerun}`]: 'referenced-by-active-run kept' });
      // The run created again is the one that owned the kept request.
      const owner = byName.get(deleted)?.owner.name ?? '';
      assert.equal(messages(outcome.report)[rerun], `read by active PipelineRun ${owner} (running), same name as its owner (seen when re-checking before deleting)`);
      assert.deepEqual(await remaining(namespace), [rerun]);
    });

    test('10: a request a gone PipelineRun owns, named after its task’s TaskRun, is read by an active TaskRun of that name (an orphaned child): kept', async () => {
      const namespace = 'rr-child-name';
      await server.seed.namespace(namespace);
      const gone: RunOwner = { kind: 'PipelineRun', name: 'deploy-1', uid: '6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f' };
      // The pipeline task `apply`'s taskRef, resolved by deploy-1 under its child's name (pipelinerun.go:415-436).
      const task = deterministicName('bundles', `${namespace}/deploy-1-apply`, BUNDLE_PARAMS);
      await resolutionRequest(namespace, task, 'bundles', BUNDLE_PARAMS, gone);
      // Its child, orphaned (deleted with --cascade=orphan), still running: it resolves its taskRef under its own name, the same request.
      await run({ apiVersion: 'tekton.dev/v1', kind: 'TaskRun', metadata: { name: 'deploy-1-apply', namespace, labels: { 'tekton.dev/pipelineRun': 'deploy-1' } }, spec: { taskRef: { resolver: 'bundles', params: BUNDLE_PARAMS } } }, { state: 'running' });
      const result = await pass(namespace);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(results(reportOf(result)), { [`ResolutionRequest ${task}`]: 'referenced-by-active-run kept' });
      assert.equal(messages(reportOf(result))[task], 'read by active TaskRun deploy-1-apply (running), named as a child run of its owner');
      assert.deepEqual(await remaining(namespace), [task]);
    });

    /**
     * Two finished PipelineRuns, `build-a` and `build-b`, each with something a rerun by name finds
     * by name (`seed`); one DELETE at a time, and at the first, the other PipelineRun is deleted and
     * created again, running: after the view the other target is decided on, well within the 5 s
     * that view may serve. Only the last read right before its DELETE can see the rerun. Returns the
     * rerun's name, the report and the names of the two targets by PipelineRun.
     */
    async function rerunDuringPhase(
      namespace: string,
      collect: string,
      seed: (owner: RunOwner) => Promise<string>,
      annotations: (name: string) => Record<string, string> = () => ({}),
    ): Promise<{ rerun: string; report: ReportDocument; targets: Map<string, string> }> {
      await server.seed.namespace(namespace);
      const objects = new Map<string, KubeObject>();
      const targets = new Map<string, string>();
      for (const name of ['build-a', 'build-b']) {
        const base = remotePipelineRun(namespace, name, 'git', gitParams('main', 'pipeline.yaml'));
        const object: KubeObject = { ...base, metadata: { ...base.metadata, annotations: annotations(name) } };
        objects.set(name, object);
        targets.set(name, await seed(await run(object, { state: 'succeeded', finishedAt: hoursAgo(1) }, STORED_PIPELINE)));
      }
      const ownerOf = new Map([...targets].map(([owner, target]) => [target, owner]));
      let rerun: string | undefined;
      const { outcome } = await passInProcess(server.controlPlane.kubeConfig(), ['--collect', collect, '--namespace', namespace, '--min-age', '0s', '--concurrency', '1'], {
        beforeDelete: async (target, sent) => {
          if (sent > 0) return;
          const first = ownerOf.get(target.name);
          assert.ok(first !== undefined, target.name);
          rerun = first === 'build-a' ? 'build-b' : 'build-a';
          await custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: rerun });
          await run(objects.get(rerun) ?? assert.fail(rerun), { state: 'running' });
        },
      });
      assert.equal(outcome.exitCode, 0);
      assert.ok(rerun !== undefined);
      return { rerun, report: outcome.report, targets };
    }

    test('11: the request of a child TaskRun, gone, whose PipelineRun is run again by name during the delete phase: the read of that PipelineRun right before the DELETE keeps it', async () => {
      const namespace = 'rr-child-in-phase';
      const { rerun, report, targets } = await rerunDuringPhase(namespace, 'resolution-requests', async (owner) => {
        const child: RunOwner = { kind: 'TaskRun', name: `${owner.name}-build`, uid: `${owner.uid.slice(0, -4)}beef` };
        const name = deterministicName('bundles', `${namespace}/${child.name}`, STEP_PARAMS);
        await resolutionRequest(namespace, name, 'bundles', STEP_PARAMS, child);
        return name;
      });
      const kept = targets.get(rerun) ?? '';
      const deleted = [...targets.values()].find((name) => name !== kept) ?? '';
      assert.deepEqual(results(report), { [`ResolutionRequest ${deleted}`]: 'runs-finished deleted', [`ResolutionRequest ${kept}`]: 'referenced-by-active-run kept' });
      assert.equal(messages(report)[kept], `read by active PipelineRun ${rerun} (running), whose child run would have its owner's name (seen when re-checking before deleting)`);
      assert.deepEqual(await remaining(namespace), [kept]);
    });

    test('12: an affinity assistant’s StatefulSet whose PipelineRun is run again by name during the delete phase: read right before its DELETE, kept (Tekton would reuse it, and its TaskRuns’ Pods need its Pod)', async () => {
      const namespace = 'rr-sts-in-phase';
      const claims = new LeftoverSeeder(server.controlPlane.kubeConfig());
      const { rerun, report, targets } = await rerunDuringPhase(namespace, 'affinity-assistants', async (owner) => {
        const name = `affinity-assistant-${owner.name === 'build-a' ? 'aaaaaaaaaa' : 'bbbbbbbbbb'}`;
        await claims.affinityStatefulSet(namespace, name, owner);
        return name;
      });
      const kept = targets.get(rerun) ?? '';
      const deleted = [...targets.values()].find((name) => name !== kept) ?? '';
      assert.deepEqual(results(report), { [`StatefulSet ${deleted}`]: 'runs-finished deleted', [`StatefulSet ${kept}`]: 'referenced-by-active-run kept' });
      assert.equal(messages(report)[kept], `made for active PipelineRun ${rerun} (running) (seen when re-checking before deleting)`);
      assert.deepEqual((await claims.remaining(namespace)).statefulSets, [kept]);
    });

    test('13: a git-auth Secret whose PipelineRun is run again by name during the delete phase, naming it as its predecessor did: read right before its DELETE, kept', async () => {
      const namespace = 'rr-secret-in-phase';
      const claims = new LeftoverSeeder(server.controlPlane.kubeConfig());
      const secretOf = (name: string): string => `pac-gitauth-${name.slice(-1)}x`;
      const { rerun, report, targets } = await rerunDuringPhase(
        namespace,
        'pac-secrets',
        async (owner) => {
          await claims.pacSecret(namespace, secretOf(owner.name), owner);
          return secretOf(owner.name);
        },
        (name) => ({ 'pipelinesascode.tekton.dev/git-auth-secret': secretOf(name) }),
      );
      const kept = targets.get(rerun) ?? '';
      const deleted = [...targets.values()].find((name) => name !== kept) ?? '';
      assert.deepEqual(results(report), { [`Secret ${deleted}`]: 'runs-finished deleted', [`Secret ${kept}`]: 'referenced-by-active-run kept' });
      assert.equal(messages(report)[kept], `named as the git-auth Secret of active PipelineRun ${rerun} (running) (seen when re-checking before deleting)`);
      assert.deepEqual((await claims.remaining(namespace)).secrets, [kept]);
    });

    describe('requests, as metadata only', () => {
      const fault = useFaultProxy(server);

      test('5: every request for resolutionrequests asks for PartialObjectMetadata(List) and lists by the resolver label; status.data is never read', async () => {
        const namespace = 'rr-metadata';
        await server.seed.namespace(namespace);
        const done = await run(remotePipelineRun(namespace, 'build-done', 'git', gitParams('main', 'pipeline.yaml')), { state: 'succeeded', finishedAt: hoursAgo(2) }, STORED_PIPELINE);
        const name = deterministicName('git', `${namespace}/build-done`, gitParams('main', 'pipeline.yaml'));
        await resolutionRequest(namespace, name, 'git', gitParams('main', 'pipeline.yaml'), done);
        // What Tekton's resolver writes: the whole resolved file, base64, in status.data.
        const current = (await custom.getNamespacedCustomObject({ ...RESOLUTION, namespace, name })) as KubeObject;
        await custom.replaceNamespacedCustomObjectStatus({ ...RESOLUTION, namespace, name, body: { ...current, status: { data: Buffer.from('kind: Pipeline\n').toString('base64'), conditions: [] } } });
        fault.proxy.reset([]);
        const { outcome } = await passInProcess(fault.proxy.kubeConfig(), ['--collect', 'resolution-requests', '--namespace', namespace, '--min-age', '0s']);
        assert.equal(outcome.exitCode, 0);
        assert.deepEqual(results(outcome.report), { [`ResolutionRequest ${name}`]: 'runs-finished deleted' });
        const seen = fault.proxy.requests.filter((request) => /\/resolutionrequests(\/|$)/.test(request.path));
        assert.deepEqual([...new Set(seen.map((request) => request.method))].sort(), ['DELETE', 'GET']);
        for (const request of seen) {
          const list = request.method === 'GET' && !/\/resolutionrequests\/[^/]+$/.test(request.path);
          assert.equal(request.accept, `application/json;as=${list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata'};g=meta.k8s.io;v=v1`, `${request.method} ${request.path}`);
          if (list) assert.equal(request.query.get('labelSelector'), RESOLVER_TYPE_LABEL, `${request.method} ${request.path}`);
        }
        assert.deepEqual(await remaining(namespace), []);
      });
    });
  });
});

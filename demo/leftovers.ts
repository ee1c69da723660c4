/**
 * The demo's namespace of a current Tekton: tekton.dev/v1 runs that Pipelines-as-Code
 * creates, no PipelineResources, and what those runs leave behind (docs/spec.md,
 * "Leftovers"). Every object is made as Tekton, Pipelines-as-Code and Kubernetes make
 * it, by hand, since no controller runs on the demo's bare API server:
 *
 * - a run's volumeClaimTemplate claim: `pvc-<sha256(workspace + run uid)[:10]>`, one
 *   controller ownerReference to the run (tektoncd/pipeline pkg/reconciler/volumeclaim);
 * - a claim the affinity assistant's StatefulSet made (coschedule: pipelineruns):
 *   `<that claim's name>-affinity-assistant-<sha256(run name)[:10]>-0`, the run's labels
 *   and the assistant's, no owner; Tekton deletes it when the run completes, never when
 *   the run is deleted first (tektoncd/pipeline#7618);
 * - an affinity-assistant StatefulSet (coschedule: workspaces, the default):
 *   `affinity-assistant-<sha256(workspace + run name)[:10]>`, owned by its PipelineRun;
 * - a Pipelines-as-Code `pac-gitauth-<6 letters>` Secret, created before its run and
 *   given an ownerReference to it with `controller: false` once the run exists;
 * - a ResolutionRequest of a remote `pipelineRef` (Tekton's git resolver), or of a remote
 *   `taskRef` of a pipeline task, one controller ownerReference to the run and named
 *   `<resolver>-<FNV-128a of namespace/name and the params>` (src/core/resolution.ts): the
 *   run's own name for its pipelineRef, `<run>-<pipeline task>` for a task's; the run
 *   stores the pipeline it resolved in status.pipelineSpec;
 * - a TaskRun's Pod `<taskrun>-pod`, on a node, its phase written through /status.
 *
 * Each object says what it is and what the collector should do with it, so the demo
 * can explain it before the passes and check it after.
 */
import { createHash } from 'node:crypto';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig, type V1OwnerReference } from '@kubernetes/client-node';
import { RESOLUTION } from '../harness/crds.js';
import { deterministicName } from '../src/core/resolution.js';
import type { Seeder } from '../test/support/seed.js';
import { hoursAgo, type KubeObject, type RunStatusSpec } from '../test/support/tekton.js';

export const PAC_NAMESPACE = 'shop-pac';
/** What the leftover passes collect: every leftover kind, no PipelineResources. */
export const LEFTOVER_COLLECTORS = 'workspace-pvcs,affinity-assistants,pac-secrets,resolution-requests';

const GROUP_VERSION = 'tekton.dev/v1';
const REPOSITORY = 'https://github.com/example/shop';
/** The workspace each run's volumeClaimTemplate binds: its claim's name hashes it. */
const SOURCE_WORKSPACE = 'source';
const PAC_MANAGED_BY = 'pipelinesascode.tekton.dev';

type Param = { name: string; value: string };
/** The push pipeline, shared by the organisation's repositories: Tekton's git resolver fetches it for each run. */
const PIPELINE_PARAMS: readonly Param[] = [
  { name: 'url', value: 'https://github.com/example/ci-pipelines' },
  { name: 'revision', value: 'main' },
  { name: 'pathInRepo', value: 'pipelines/push.yaml' },
];
/** The deploy task of that pipeline, from an OCI bundle: resolved when the run starts it. */
const DEPLOY_TASK = 'deploy';
const DEPLOY_PARAMS: readonly Param[] = [
  { name: 'bundle', value: 'registry.example/catalog/deploy:0.4' },
  { name: 'name', value: 'deploy' },
  { name: 'kind', value: 'task' },
];
/** What a run stores in status.pipelineSpec once it has resolved the pipeline: it reads the request no more. */
const STORED_PIPELINE = {
  workspaces: [{ name: SOURCE_WORKSPACE }, { name: 'basic-auth' }],
  tasks: [
    { name: 'fetch', taskRef: { name: 'git-clone' }, workspaces: [{ name: 'output', workspace: SOURCE_WORKSPACE }, { name: 'basic-auth', workspace: 'basic-auth' }] },
    { name: DEPLOY_TASK, runAfter: ['fetch'], taskRef: { resolver: 'bundles', params: DEPLOY_PARAMS } },
  ],
};
const RESOLVER_TYPE_LABEL = 'resolution.tekton.dev/type';

export type LeftoverKind = 'PersistentVolumeClaim' | 'Secret' | 'StatefulSet' | 'ResolutionRequest';

/** One object of the namespace, as the demo describes it and the report should decide it. */
export interface Leftover {
  kind: LeftoverKind;
  name: string;
  /** The claim's size as the report shows it (from status.capacity, else the request). */
  size?: string;
  /** The run that made it, as the demo heads its group. */
  run: string;
  /** What it is to that run, in a few words. */
  what: string;
  expect: 'delete' | 'keep';
  reason: string;
  /** The same in words. */
  why: string;
}

interface Pac {
  secret: string;
  sha: string;
  event: 'push' | 'pull_request';
}

/** A run and what it made. */
interface RunPlan {
  kind: 'PipelineRun' | 'TaskRun';
  name: string;
  state: 'succeeded' | 'failed' | 'running';
  /** Finished runs: how long ago. */
  finishedHoursAgo?: number;
  /** Its volumeClaimTemplate's request, and the capacity a provider bound (written through /status). */
  claim: { storage: string; capacity?: string };
  /** Created by Pipelines-as-Code, with its git-auth Secret. */
  pac?: Pac;
  /** How it ran: a claim of its own (coschedule: workspaces, the default) or the affinity assistant's (coschedule: pipelineruns). */
  coschedule: 'workspaces' | 'pipelineruns';
  /** Deleted while it ran: the garbage collector took what it owned, and nothing else. */
  deletedMidFlight?: boolean;
  /** Its pipelineRef resolved by Tekton's git resolver (PIPELINE_PARAMS), the pipeline stored in its status. */
  remotePipeline?: boolean;
  story: string;
}

const PLANS: readonly RunPlan[] = [
  {
    kind: 'PipelineRun',
    name: 'shop-on-push-8kq2m',
    state: 'succeeded',
    finishedHoursAgo: 26,
    claim: { storage: '5Gi' },
    pac: { secret: 'pac-gitauth-hqzvtm', sha: '3f9c2a1', event: 'push' },
    coschedule: 'workspaces',
    remotePipeline: true,
    story: 'PipelineRun shop-on-push-8kq2m succeeded 26h ago',
  },
  {
    kind: 'PipelineRun',
    name: 'shop-on-pull-request-4nz7w',
    state: 'failed',
    finishedHoursAgo: 5,
    // Providers round a request up to their smallest volume (50 GiB on OCI, tektoncd/plumbing#3377).
    claim: { storage: '1Gi', capacity: '50Gi' },
    pac: { secret: 'pac-gitauth-xbrqle', sha: '8d41e07', event: 'pull_request' },
    coschedule: 'workspaces',
    story: 'PipelineRun shop-on-pull-request-4nz7w failed 5h ago',
  },
  {
    kind: 'TaskRun',
    name: 'nightly-scan-7pw2d',
    state: 'succeeded',
    finishedHoursAgo: 3,
    claim: { storage: '2Gi' },
    coschedule: 'workspaces',
    story: 'TaskRun nightly-scan-7pw2d, started by a CronJob, succeeded 3h ago',
  },
  {
    kind: 'PipelineRun',
    name: 'shop-on-push-r4x9t',
    state: 'running',
    claim: { storage: '5Gi' },
    pac: { secret: 'pac-gitauth-mvtdoa', sha: 'a1b2c3d', event: 'push' },
    coschedule: 'workspaces',
    remotePipeline: true,
    story: 'PipelineRun shop-on-push-r4x9t is running',
  },
  {
    kind: 'PipelineRun',
    name: 'shop-on-pull-request-d3l7x',
    state: 'running',
    claim: { storage: '5Gi' },
    pac: { secret: 'pac-gitauth-wkyspf', sha: 'e5f6a7b', event: 'pull_request' },
    coschedule: 'pipelineruns',
    deletedMidFlight: true,
    story: 'PipelineRun shop-on-pull-request-d3l7x (coschedule: pipelineruns) was deleted while it ran',
  },
];

/** The first 10 hex digits of sha256(text): how Tekton names claims and affinity assistants. */
function hash10(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** A run's status as Tekton writes it; finished ones as long ago as the plan says. */
function statusOf(plan: RunPlan, now: Date): RunStatusSpec {
  return plan.state === 'running' ? { state: 'running' } : { state: plan.state, finishedAt: hoursAgo(plan.finishedHoursAgo ?? 1, now) };
}

/** The labels Pipelines-as-Code puts on the PipelineRuns it creates. */
function pacRunLabels(pac: Pac): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': PAC_MANAGED_BY,
    'pipelinesascode.tekton.dev/repository': 'shop',
    'pipelinesascode.tekton.dev/event-type': pac.event,
    'pipelinesascode.tekton.dev/sha': pac.sha,
  };
}

function ownerReference(kind: 'PipelineRun' | 'TaskRun', name: string, uid: string, controller: boolean): V1OwnerReference {
  return { apiVersion: GROUP_VERSION, kind, name, uid, controller, ...(controller && { blockOwnerDeletion: true }) };
}

/** Seeds the namespace; what it holds, in the order the demo describes it. */
export async function seedLeftovers(kubeConfig: KubeConfig, seed: Seeder, now = new Date()): Promise<Leftover[]> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  await seed.namespace(PAC_NAMESPACE);
  const leftovers: Leftover[] = [];
  for (const plan of PLANS) leftovers.push(...(await seedRun({ core, apps, custom, seed }, plan, now)));
  return leftovers;
}

interface Clients {
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  seed: Seeder;
}

async function seedRun(clients: Clients, plan: RunPlan, now: Date): Promise<Leftover[]> {
  const { core, seed } = clients;
  const namespace = PAC_NAMESPACE;
  const status = statusOf(plan, now);
  const active = plan.state === 'running';
  // Pipelines-as-Code creates the Secret first, the run next, then makes the run the Secret's owner.
  if (plan.pac !== undefined) await createPacSecret(core, plan.pac);
  const labels = plan.pac === undefined ? { 'app.kubernetes.io/managed-by': 'nightly-scan' } : pacRunLabels(plan.pac);
  const workspaces: unknown[] = [
    { name: SOURCE_WORKSPACE, volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: plan.claim.storage } } } } },
    ...(plan.pac === undefined ? [] : [{ name: 'basic-auth', secret: { secretName: plan.pac.secret } }]),
  ];
  const run: KubeObject = {
    apiVersion: GROUP_VERSION,
    kind: plan.kind,
    metadata: {
      name: plan.name,
      namespace,
      labels,
      ...(plan.pac !== undefined && { annotations: { 'pipelinesascode.tekton.dev/git-auth-secret': plan.pac.secret, 'pipelinesascode.tekton.dev/sha-url': `${REPOSITORY}/commit/${plan.pac.sha}` } }),
    },
    spec: { ...(plan.kind === 'PipelineRun' ? { pipelineRef: plan.remotePipeline === true ? { resolver: 'git', params: PIPELINE_PARAMS } : { name: 'build-and-test' } } : { taskRef: { name: 'trivy-scan' } }), workspaces },
  };
  const created = await seed.create(run, status, plan.remotePipeline === true ? STORED_PIPELINE : undefined);
  if (plan.pac !== undefined) await ownSecret(core, plan.pac.secret, ownerReference('PipelineRun', plan.name, created.uid, false));
  const requests = plan.remotePipeline === true ? await createResolutionRequests(clients.custom, plan, ownerReference('PipelineRun', plan.name, created.uid, true)) : [];

  const ownClaim = `pvc-${hash10(`${SOURCE_WORKSPACE}${created.uid}`)}`;
  const leftovers: Leftover[] = [];
  if (plan.coschedule === 'pipelineruns') {
    // The affinity assistant's StatefulSet made the claim from its volumeClaimTemplates; its own
    // ownerReference went with the StatefulSet when the run was deleted, the claim has none.
    const assistant = `affinity-assistant-${hash10(plan.name)}`;
    const claim = `${ownClaim}-${assistant}-0`;
    const claimLabels = { ...labels, 'tekton.dev/pipelineRun': plan.name, 'app.kubernetes.io/instance': assistant, 'app.kubernetes.io/component': 'affinity-assistant' };
    await createClaim(core, { name: claim, labels: claimLabels, storage: plan.claim.storage });
    leftovers.push({
      kind: 'PersistentVolumeClaim',
      name: claim,
      size: plan.claim.storage,
      run: plan.story,
      what: "its affinity assistant's claim, no owner",
      expect: 'delete',
      reason: 'owner-gone',
      why: 'the run it names is gone',
    });
  } else {
    await createClaim(core, { name: ownClaim, storage: plan.claim.storage, owner: ownerReference(plan.kind, plan.name, created.uid, true), ...(plan.claim.capacity !== undefined && { capacity: plan.claim.capacity }) });
    leftovers.push({
      kind: 'PersistentVolumeClaim',
      name: ownClaim,
      size: plan.claim.capacity ?? plan.claim.storage,
      run: plan.story,
      what: `its workspace claim${plan.claim.capacity === undefined ? '' : ` (asked ${plan.claim.storage}, bound ${plan.claim.capacity})`}`,
      ...(active ? { expect: 'keep', reason: 'referenced-by-active-run', why: 'its run still writes to it' } : { expect: 'delete', reason: 'runs-finished', why: 'its run is finished' }),
    });
  }
  if (plan.pac !== undefined && plan.deletedMidFlight !== true) {
    leftovers.push({
      kind: 'Secret',
      name: plan.pac.secret,
      run: plan.story,
      what: 'its copy of the git token',
      ...(active ? { expect: 'keep', reason: 'referenced-by-active-run', why: 'its run still clones with it' } : { expect: 'delete', reason: 'runs-finished', why: 'its run is finished' }),
    });
  }

  leftovers.push(...requests);

  if (plan.deletedMidFlight === true) {
    // Kubernetes' garbage collector then deletes what the run owned (its StatefulSet, its
    // Secret); none runs here, so the demo deletes them with the run.
    if (plan.pac !== undefined) await core.deleteNamespacedSecret({ name: plan.pac.secret, namespace });
    await seed.custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: 'pipelineruns', name: plan.name });
    return leftovers;
  }
  // The TaskRun whose Pod used the claim: the run itself, or a PipelineRun's child bound to its claim.
  const taskRun = plan.kind === 'TaskRun' ? plan.name : await createChildTaskRun(seed, plan, { uid: created.uid, claim: ownClaim, status });
  const volumes = [{ name: `ws-${SOURCE_WORKSPACE}`, persistentVolumeClaim: { claimName: ownClaim } }, ...(plan.pac === undefined ? [] : [{ name: 'ws-basic-auth', secret: { secretName: plan.pac.secret } }])];
  await createPod(core, { name: `${taskRun}-pod`, taskRun, volumes, phase: podPhase(plan.state) });
  if (plan.kind === 'PipelineRun' && active) {
    const assistant = `affinity-assistant-${hash10(`${SOURCE_WORKSPACE}${plan.name}`)}`;
    await createAffinityAssistant(clients.apps, { name: assistant, labels: { ...labels, 'tekton.dev/pipelineRun': plan.name }, owner: ownerReference('PipelineRun', plan.name, created.uid, true), claim: ownClaim });
    leftovers.push({
      kind: 'StatefulSet',
      name: assistant,
      run: plan.story,
      what: 'its affinity assistant',
      expect: 'keep',
      reason: 'referenced-by-active-run',
      why: 'its run still schedules Pods with it',
    });
  }
  return leftovers;
}

/**
 * The requests Tekton made for a run of the push pipeline: its pipelineRef's (the run has
 * stored that pipeline since), and, while it runs, the deploy task's, which it resolves
 * again on every reconcile until it starts that task.
 */
async function createResolutionRequests(custom: CustomObjectsApi, plan: RunPlan, owner: V1OwnerReference): Promise<Leftover[]> {
  const active = plan.state === 'running';
  const pipeline = deterministicName('git', `${PAC_NAMESPACE}/${plan.name}`, PIPELINE_PARAMS);
  await createResolutionRequest(custom, { name: pipeline, resolver: 'git', params: PIPELINE_PARAMS, owner });
  const leftovers: Leftover[] = [
    {
      kind: 'ResolutionRequest',
      name: pipeline,
      run: plan.story,
      what: 'its pipelineRef, resolved from git',
      ...(active
        ? { expect: 'delete', reason: 'resolution-stored', why: 'the run stored the pipeline and reads it no more' }
        : { expect: 'delete', reason: 'runs-finished', why: 'its run is finished' }),
    },
  ];
  if (active) {
    const deploy = deterministicName('bundles', `${PAC_NAMESPACE}/${plan.name}-${DEPLOY_TASK}`, DEPLOY_PARAMS);
    await createResolutionRequest(custom, { name: deploy, resolver: 'bundles', params: DEPLOY_PARAMS, owner });
    leftovers.push({ kind: 'ResolutionRequest', name: deploy, run: plan.story, what: `its ${DEPLOY_TASK} task, from a bundle`, expect: 'keep', reason: 'referenced-by-active-run', why: 'its run may still read it: the task has not started' });
  }
  return leftovers;
}

/** A ResolutionRequest as Tekton makes it: the resolver's label, the params, the run as its controller. */
async function createResolutionRequest(custom: CustomObjectsApi, request: { name: string; resolver: string; params: readonly Param[]; owner: V1OwnerReference }): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...RESOLUTION,
    namespace: PAC_NAMESPACE,
    body: {
      apiVersion: `${RESOLUTION.group}/${RESOLUTION.version}`,
      kind: 'ResolutionRequest',
      metadata: { name: request.name, namespace: PAC_NAMESPACE, labels: { [RESOLVER_TYPE_LABEL]: request.resolver }, ownerReferences: [request.owner] },
      spec: { params: request.params },
    },
  });
}

function podPhase(state: RunPlan['state']): 'Running' | 'Succeeded' | 'Failed' {
  return state === 'succeeded' ? 'Succeeded' : state === 'failed' ? 'Failed' : 'Running';
}

async function createPacSecret(core: CoreV1Api, pac: Pac): Promise<void> {
  await core.createNamespacedSecret({
    namespace: PAC_NAMESPACE,
    body: {
      metadata: {
        name: pac.secret,
        namespace: PAC_NAMESPACE,
        labels: { 'app.kubernetes.io/managed-by': PAC_MANAGED_BY, 'pipelinesascode.tekton.dev/url-org': 'example', 'pipelinesascode.tekton.dev/url-repository': 'shop' },
        annotations: { 'pipelinesascode.tekton.dev/url': REPOSITORY, 'pipelinesascode.tekton.dev/sha': pac.sha },
      },
      type: 'Opaque',
      // A stand-in for the token Pipelines-as-Code copies here: the collector never reads it.
      stringData: { '.git-credentials': 'https://git:not-a-real-token@github.com', '.gitconfig': '[credential]\n  helper = store\n' },
    },
  });
}

/** Pipelines-as-Code sets the Secret's owner once the run exists (controller: false). */
async function ownSecret(core: CoreV1Api, name: string, owner: V1OwnerReference): Promise<void> {
  const secret = await core.readNamespacedSecret({ name, namespace: PAC_NAMESPACE });
  await core.replaceNamespacedSecret({ name, namespace: PAC_NAMESPACE, body: { ...secret, metadata: { ...secret.metadata, ownerReferences: [owner] } } });
}

async function createClaim(core: CoreV1Api, claim: { name: string; storage: string; labels?: Record<string, string>; owner?: V1OwnerReference; capacity?: string }): Promise<void> {
  const created = await core.createNamespacedPersistentVolumeClaim({
    namespace: PAC_NAMESPACE,
    body: {
      metadata: {
        name: claim.name,
        namespace: PAC_NAMESPACE,
        ...(claim.labels !== undefined && { labels: claim.labels }),
        ...(claim.owner !== undefined && { ownerReferences: [claim.owner] }),
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: claim.storage } } },
    },
  });
  if (claim.capacity !== undefined) {
    // What a provisioner's volume gives the claim once bound; the phase is no input of a decision.
    await core.replaceNamespacedPersistentVolumeClaimStatus({
      name: claim.name,
      namespace: PAC_NAMESPACE,
      body: { ...created, status: { ...created.status, capacity: { storage: claim.capacity } } },
    });
  }
}

/** A PipelineRun's TaskRun, bound to its parent's claim and Secret as Tekton binds it; returns its name. */
async function createChildTaskRun(seed: Seeder, plan: RunPlan, parent: { uid: string; claim: string; status: RunStatusSpec }): Promise<string> {
  const name = `${plan.name}-fetch`;
  const labels = { ...(plan.pac === undefined ? {} : pacRunLabels(plan.pac)), 'tekton.dev/pipelineRun': plan.name, 'tekton.dev/pipelineTask': 'fetch' };
  const workspaces: unknown[] = [
    { name: SOURCE_WORKSPACE, persistentVolumeClaim: { claimName: parent.claim } },
    ...(plan.pac === undefined ? [] : [{ name: 'basic-auth', secret: { secretName: plan.pac.secret } }]),
  ];
  await seed.create(
    {
      apiVersion: GROUP_VERSION,
      kind: 'TaskRun',
      metadata: { name, namespace: PAC_NAMESPACE, labels, ownerReferences: [ownerReference('PipelineRun', plan.name, parent.uid, true)] },
      spec: { taskRef: { name: 'git-clone' }, workspaces },
    },
    parent.status,
  );
  return name;
}

async function createPod(core: CoreV1Api, pod: { name: string; taskRun: string; volumes: { name: string; persistentVolumeClaim?: { claimName: string }; secret?: { secretName: string } }[]; phase: string }): Promise<void> {
  const created = await core.createNamespacedPod({
    namespace: PAC_NAMESPACE,
    body: {
      metadata: { name: pod.name, namespace: PAC_NAMESPACE, labels: { 'tekton.dev/taskRun': pod.taskRun } },
      spec: {
        // No scheduler runs: the Pod is placed by hand, as kube-controller-manager requires of a Pod that holds a claim.
        nodeName: 'node-1',
        containers: [{ name: 'step-run', image: 'busybox', volumeMounts: pod.volumes.map((volume) => ({ name: volume.name, mountPath: `/workspace/${volume.name}` })) }],
        volumes: pod.volumes,
      },
    },
  });
  await core.replaceNamespacedPodStatus({ name: pod.name, namespace: PAC_NAMESPACE, body: { ...created, status: { ...created.status, phase: pod.phase } } });
}

async function createAffinityAssistant(apps: AppsV1Api, assistant: { name: string; labels: Record<string, string>; owner: V1OwnerReference; claim: string }): Promise<void> {
  const labels = { ...assistant.labels, 'app.kubernetes.io/instance': assistant.name, 'app.kubernetes.io/component': 'affinity-assistant' };
  await apps.createNamespacedStatefulSet({
    namespace: PAC_NAMESPACE,
    body: {
      metadata: { name: assistant.name, namespace: PAC_NAMESPACE, labels, ownerReferences: [assistant.owner] },
      spec: {
        replicas: 1,
        serviceName: '',
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'affinity-assistant', image: 'ghcr.io/tektoncd/pipeline/nop', args: ['tekton_run_indefinitely'], volumeMounts: [{ name: 'workspace-0', mountPath: '/workspace-0' }] }],
            volumes: [{ name: 'workspace-0', persistentVolumeClaim: { claimName: assistant.claim } }],
          },
        },
      },
    },
  });
}

/** What is left in the namespace: claims (and whether each is Terminating), Secrets, StatefulSets and ResolutionRequests, by name. */
export interface LeftoversLeft {
  claims: { name: string; terminating: boolean }[];
  secrets: string[];
  statefulSets: string[];
  requests: string[];
}

export async function remainingLeftovers(kubeConfig: KubeConfig): Promise<LeftoversLeft> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace: PAC_NAMESPACE })).items;
  const secrets = (await core.listNamespacedSecret({ namespace: PAC_NAMESPACE })).items;
  const statefulSets = (await apps.listNamespacedStatefulSet({ namespace: PAC_NAMESPACE })).items;
  const requests = ((await kubeConfig.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ ...RESOLUTION, namespace: PAC_NAMESPACE })) as { items: { metadata?: { name?: string } }[] }).items;
  const name = (item: { metadata?: { name?: string } }): string => item.metadata?.name ?? '';
  return {
    claims: claims.map((claim) => ({ name: name(claim), terminating: claim.metadata?.deletionTimestamp !== undefined })).sort((a, b) => a.name.localeCompare(b.name)),
    secrets: secrets.map(name).sort(),
    statefulSets: statefulSets.map(name).sort(),
    requests: requests.map(name).sort(),
  };
}

/**
 * The leftovers shape (`npm run bench -- --shape leftovers`): a current Tekton's cluster, no
 * PipelineResources, and what its runs leave behind (docs/spec.md, "Leftovers"), made as
 * Tekton, Pipelines-as-Code and Kubernetes make them:
 *
 * - runs as in the benchmark's own shape (a quarter PipelineRuns with two child TaskRuns,
 *   standalone TaskRuns, the same mix of phases), binding workspaces instead of resources;
 * - claims from volumeClaimTemplates, `pvc-<sha256(workspace + run uid)[:10]>` with one
 *   controller ownerReference to their run (a PipelineRun's children bind it by name); of
 *   every 20, one owned by a run since deleted and one an affinity assistant's claim of a
 *   PipelineRun deleted mid-flight (no owner, `tekton.dev/pipelineRun` naming it);
 * - Pipelines-as-Code `pac-gitauth-<6 letters>` Secrets: one per PipelineRun (annotation,
 *   workspace, ownerReference with controller: false), the rest leaked: owned by a run since
 *   deleted, or with no owner and named by no run;
 * - a few Pods: each running TaskRun's (naming its claim and Secret), and beside one claim
 *   in 25 of a finished run a debug Pod still running, beside another one that finished;
 * - an affinity-assistant StatefulSet for each running PipelineRun with a claim (coschedule:
 *   workspaces, the default), owned by it and naming its claim.
 *
 * Everything is derived from the indexes, so the same flags give the same cluster; names that
 * hash a uid are made when the run exists (seed.ts).
 */
import { createHash } from 'node:crypto';
import { CHILDREN_PER_PIPELINE_RUN, childTaskRunName, commit, namespaceName, phaseOf, share, type ClusterShape, type Json, type RunPhase, type WorkspaceBindings } from './objects.js';

/** The collectors the leftovers shape's dry run runs: every leftover kind. */
export const LEFTOVER_COLLECTORS = 'workspace-pvcs,pac-secrets,affinity-assistants';

/** The workspace each run's volumeClaimTemplate binds: claim names hash it. */
const WORKSPACE = 'source';
const PAC_MANAGED_BY = 'pipelinesascode.tekton.dev';
const GROUP_VERSION = 'tekton.dev/v1beta1';
const STORAGE = ['1Gi', '5Gi', '10Gi', '2Gi'] as const;

export interface LeftoverRunPlan {
  kind: 'PipelineRun' | 'TaskRun';
  namespace: string;
  name: string;
  phase: RunPhase;
  finishedHoursAgo: number;
  /** PipelineRuns: child TaskRuns, bound to its claim and Secret (none while pending). */
  children: number;
  /** Its volumeClaimTemplate's request, and a Pod besides its own that names the claim; none: no claim (a pending run, or claims ran out). */
  claim?: { storage: string; extraPod?: 'Running' | 'Succeeded' };
  /** Its Pipelines-as-Code Secret (PipelineRuns). */
  secret?: string;
}

/** A claim or Secret whose run is gone: its owner, invented, and how it links to it. */
export interface GoneLeftover {
  namespace: string;
  /** `owner`: an ownerReference to the gone run; `assistant`: an affinity assistant's claim, linked by label only; `none`: a Secret with no owner. */
  link: 'owner' | 'assistant' | 'none';
  run: { name: string; uid: string };
  /** Claims: the request. */
  storage?: string;
  /** Secrets: the name. */
  name?: string;
}

export interface LeftoverNamespacePlan {
  name: string;
  pipelineRuns: LeftoverRunPlan[];
  taskRuns: LeftoverRunPlan[];
  goneClaims: GoneLeftover[];
  goneSecrets: GoneLeftover[];
}

/** `pac-gitauth-` and six lowercase letters, distinct for each index of a namespace (7919 is prime to 26^6). */
export function pacSecretName(namespace: number, index: number): string {
  let x = (index * 7919 + namespace * 104_729) % 26 ** 6;
  let letters = '';
  for (let i = 0; i < 6; i++) {
    letters = String.fromCharCode(97 + (x % 26)) + letters;
    x = Math.floor(x / 26);
  }
  return `pac-gitauth-${letters}`;
}

/** A run that existed once: a name and an invented uid no run has. */
function goneRun(namespace: number, index: number): { name: string; uid: string } {
  const hex = `${commit(namespace, index, 7)}${commit(namespace, index, 8)}`.slice(0, 12);
  return { name: `build-${commit(namespace, index, 6)}-gone-${index}`, uid: `00000000-0000-4000-8000-${hex}` };
}

export function planLeftoverNamespace(shape: ClusterShape, index: number): LeftoverNamespacePlan {
  const name = namespaceName(index);
  const runCount = share(shape.runs, shape.namespaces, index);
  const claimCount = share(shape.leftovers?.claims ?? 0, shape.namespaces, index);
  const secretCount = share(shape.leftovers?.secrets ?? 0, shape.namespaces, index);

  // The runs as the benchmark's own shape has them: a quarter PipelineRuns with their children, standalone TaskRuns.
  const pipelineRunCount = Math.min(runCount, Math.round(runCount / 4));
  const pipelineRuns: LeftoverRunPlan[] = [];
  let childCount = 0;
  for (let p = 0; p < pipelineRunCount; p++) {
    const phase = phaseOf(p + index);
    const children = phase === 'pending' ? 0 : Math.min(CHILDREN_PER_PIPELINE_RUN, runCount - pipelineRunCount - childCount);
    childCount += children;
    pipelineRuns.push({ kind: 'PipelineRun', namespace: name, name: `build-${commit(index, p, 2)}-${p}`, phase, finishedHoursAgo: 2 + ((p * 37) % 700), children });
  }
  const taskRuns: LeftoverRunPlan[] = [];
  for (let r = 0; r < runCount - pipelineRunCount - childCount; r++) {
    taskRuns.push({ kind: 'TaskRun', namespace: name, name: `scan-${commit(index, r, 3)}-${r}`, phase: phaseOf(r * 3 + index + 1), finishedHoursAgo: 2 + ((r * 53) % 700), children: 0 });
  }

  // Claims: of every 20, the 19th owned by a gone run and the 20th a gone run's affinity
  // assistant's; the others each owned by a run that has started (Tekton makes the claim when
  // the run starts), PipelineRuns and standalone TaskRuns taking turns; any left over, gone-owned.
  const owners = interleave(pipelineRuns, taskRuns).filter((run) => run.phase !== 'pending');
  const goneClaims: GoneLeftover[] = [];
  let owned = 0;
  for (let c = 0; c < claimCount; c++) {
    const storage = STORAGE[c % STORAGE.length] as string;
    const role = c % 20;
    const owner = role < 18 ? owners[owned] : undefined;
    if (owner !== undefined) {
      const extra = owned % 25 === 7 ? 'Running' : owned % 25 === 19 ? 'Succeeded' : undefined;
      owner.claim = { storage, ...(extra !== undefined && { extraPod: extra }) };
      owned++;
    } else {
      goneClaims.push({ namespace: name, link: role === 19 ? 'assistant' : 'owner', run: goneRun(index, c), storage });
    }
  }

  // Secrets: one per PipelineRun (Pipelines-as-Code makes it before the run, pending or not); the rest leaked.
  const goneSecrets: GoneLeftover[] = [];
  for (let s = 0; s < secretCount; s++) {
    const run = pipelineRuns[s];
    if (run !== undefined) {
      run.secret = pacSecretName(index, s);
    } else {
      goneSecrets.push({ namespace: name, link: s % 2 === 0 ? 'owner' : 'none', run: goneRun(index, 100_000 + s), name: pacSecretName(index, s) });
    }
  }
  return { name, pipelineRuns, taskRuns, goneClaims, goneSecrets };
}

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i] as T);
    if (i < b.length) out.push(b[i] as T);
  }
  return out;
}

/** A child TaskRun of `run`: its name and phase (a running PipelineRun's first child has finished, the next still runs). */
export function childrenOf(run: LeftoverRunPlan): { name: string; phase: RunPhase }[] {
  return Array.from({ length: run.children }, (_, i) => ({ name: childTaskRunName(run.name, i), phase: run.phase === 'running' ? (i === 0 ? 'succeeded' : 'running') : run.phase }));
}

export interface PodPlan {
  name: string;
  phase: 'Running' | 'Succeeded';
  /** Whether it names the run's claim (a PipelineRun's, for its children's Pods). */
  claim: boolean;
  secret?: string;
}

/**
 * The Pods of a run: each of its running TaskRuns' (itself, or a PipelineRun's children) that
 * binds its claim or Secret, and the one beside its claim, if any (a debug Pod).
 */
export function podsOfRun(run: LeftoverRunPlan): PodPlan[] {
  const pods: PodPlan[] = [];
  const taskRuns = run.kind === 'PipelineRun' ? childrenOf(run) : [{ name: run.name, phase: run.phase }];
  if (run.claim !== undefined || run.secret !== undefined) {
    for (const taskRun of taskRuns.filter((candidate) => candidate.phase === 'running')) {
      pods.push({ name: `${taskRun.name}-pod`, phase: 'Running', claim: run.claim !== undefined, ...(run.secret !== undefined && { secret: run.secret }) });
    }
  }
  const extra = run.claim?.extraPod;
  if (extra !== undefined) pods.push({ name: `${run.name}-debug`, phase: extra, claim: true });
  return pods;
}

export function podsOf(plan: LeftoverNamespacePlan): PodPlan[] {
  return [...plan.pipelineRuns, ...plan.taskRuns].flatMap(podsOfRun);
}

/** Whether a run has an affinity-assistant StatefulSet: a running PipelineRun with a claim. */
export function hasAssistant(run: LeftoverRunPlan): boolean {
  return run.kind === 'PipelineRun' && run.phase === 'running' && run.claim !== undefined;
}

/** The affinity-assistant StatefulSets of a namespace, by their PipelineRuns. */
export function assistantsOf(plan: LeftoverNamespacePlan): LeftoverRunPlan[] {
  return plan.pipelineRuns.filter(hasAssistant);
}

/** How many of each object the shape seeds. */
export function leftoverTotals(shape: ClusterShape): { runs: number; claims: number; secrets: number; pods: number; statefulSets: number } {
  const totals = { runs: 0, claims: 0, secrets: 0, pods: 0, statefulSets: 0 };
  for (let i = 0; i < shape.namespaces; i++) {
    const plan = planLeftoverNamespace(shape, i);
    const runs = [...plan.pipelineRuns, ...plan.taskRuns];
    totals.runs += runs.length + plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
    totals.claims += runs.filter((run) => run.claim !== undefined).length + plan.goneClaims.length;
    totals.secrets += plan.pipelineRuns.filter((run) => run.secret !== undefined).length + plan.goneSecrets.length;
    totals.pods += podsOf(plan).length;
    totals.statefulSets += assistantsOf(plan).length;
  }
  return totals;
}

// ---------------------------------------------------------------------------------------
// Objects

/** The first 10 hex digits of sha256(text): how Tekton names claims and affinity assistants. */
function hash10(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** The claim a run's volumeClaimTemplate gets (tektoncd/pipeline pkg/reconciler/volumeclaim). */
export function claimName(runUid: string): string {
  return `pvc-${hash10(`${WORKSPACE}${runUid}`)}`;
}

function ownerReference(kind: 'PipelineRun' | 'TaskRun', run: { name: string; uid: string }, controller: boolean): Json {
  return { apiVersion: GROUP_VERSION, kind, name: run.name, uid: run.uid, controller, ...(controller && { blockOwnerDeletion: true }) };
}

function pacRunLabels(run: { name: string }): Record<string, string> {
  return { 'app.kubernetes.io/managed-by': PAC_MANAGED_BY, 'pipelinesascode.tekton.dev/repository': 'shop', 'pipelinesascode.tekton.dev/event-type': 'push', 'pipelinesascode.tekton.dev/sha': run.name.slice(6, 14) };
}

/** What a run binds: its claim (a template for its owner, the claim by name for a PipelineRun's child) and its Secret. */
export function runBindings(run: LeftoverRunPlan, child?: { claim?: string }): WorkspaceBindings {
  const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: run.claim?.storage ?? '1Gi' } } };
  const source =
    run.claim === undefined
      ? { name: WORKSPACE, emptyDir: {} }
      : child === undefined
        ? { name: WORKSPACE, volumeClaimTemplate: { spec: claimSpec } }
        : { name: WORKSPACE, persistentVolumeClaim: { claimName: child.claim } };
  return {
    workspaces: [source, ...(run.secret === undefined ? [] : [{ name: 'basic-auth', secret: { secretName: run.secret } }])],
    ...(run.secret !== undefined && { labels: pacRunLabels(run) }),
    ...(run.secret !== undefined && child === undefined && { annotations: { 'pipelinesascode.tekton.dev/git-auth-secret': run.secret } }),
  };
}

export function claimObject(namespace: string, claim: { name: string; storage: string; owner?: Json; labels?: Record<string, string> }): Json {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim.name, namespace, ...(claim.labels !== undefined && { labels: claim.labels }), ...(claim.owner !== undefined && { ownerReferences: [claim.owner] }) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: claim.storage } } },
  };
}

/** The claim of a run: owned by it. */
export function runClaimObject(run: LeftoverRunPlan, uid: string): Json {
  return claimObject(run.namespace, { name: claimName(uid), storage: run.claim?.storage ?? '1Gi', owner: ownerReference(run.kind, { name: run.name, uid }, true) });
}

/** A claim whose run is gone: owned by it, or its affinity assistant's (no owner, the run's and the assistant's labels). */
export function goneClaimObject(gone: GoneLeftover): Json {
  const storage = gone.storage ?? '1Gi';
  if (gone.link !== 'assistant') return claimObject(gone.namespace, { name: claimName(gone.run.uid), storage, owner: ownerReference('PipelineRun', gone.run, true) });
  const assistant = `affinity-assistant-${hash10(gone.run.name)}`;
  const labels = { ...pacRunLabels(gone.run), 'tekton.dev/pipelineRun': gone.run.name, 'app.kubernetes.io/instance': assistant, 'app.kubernetes.io/component': 'affinity-assistant' };
  return claimObject(gone.namespace, { name: `${claimName(gone.run.uid)}-${assistant}-0`, storage, labels });
}

export function pacSecretObject(namespace: string, name: string, owner?: { name: string; uid: string }): Json {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { 'app.kubernetes.io/managed-by': PAC_MANAGED_BY, 'pipelinesascode.tekton.dev/url-org': 'example', 'pipelinesascode.tekton.dev/url-repository': 'shop' },
      annotations: { 'pipelinesascode.tekton.dev/url': 'https://github.com/example/shop', 'pipelinesascode.tekton.dev/sha': hash10(name) },
      ...(owner !== undefined && { ownerReferences: [ownerReference('PipelineRun', owner, false)] }),
    },
    type: 'Opaque',
    stringData: { '.git-credentials': 'https://git:not-a-real-token@github.com', '.gitconfig': '[credential]\n  helper = store\n' },
  };
}

export function goneSecretObject(gone: GoneLeftover): Json {
  return pacSecretObject(gone.namespace, gone.name ?? 'pac-gitauth-gone', gone.link === 'owner' ? gone.run : undefined);
}

/** A Pod on a node (no scheduler runs) with the claim and Secret it names as volumes; its phase goes through /status. */
export function podObject(namespace: string, pod: { name: string; claim?: string; secret?: string }): Json {
  const volumes = [
    ...(pod.claim === undefined ? [] : [{ name: 'ws-source', persistentVolumeClaim: { claimName: pod.claim } }]),
    ...(pod.secret === undefined ? [] : [{ name: 'ws-basic-auth', secret: { secretName: pod.secret } }]),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.name, namespace },
    spec: {
      nodeName: 'node-1',
      containers: [{ name: 'step-build', image: 'docker.io/library/golang:1.21', volumeMounts: volumes.map((volume) => ({ name: volume.name, mountPath: `/workspace/${volume.name}` })) }],
      volumes,
    },
  };
}

/** A running PipelineRun's affinity assistant (coschedule: workspaces): owned by it, naming its claim. */
export function assistantObject(run: LeftoverRunPlan, uid: string): Json {
  const name = `affinity-assistant-${hash10(`${WORKSPACE}${run.name}`)}`;
  const labels = { ...(run.secret === undefined ? {} : pacRunLabels(run)), 'tekton.dev/pipelineRun': run.name, 'app.kubernetes.io/instance': name, 'app.kubernetes.io/component': 'affinity-assistant' };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: run.namespace, labels, ownerReferences: [ownerReference('PipelineRun', { name: run.name, uid }, true)] },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'affinity-assistant', image: 'ghcr.io/tektoncd/pipeline/nop', args: ['tekton_run_indefinitely'], volumeMounts: [{ name: 'workspace-0', mountPath: '/workspace-0' }] }],
          volumes: [{ name: 'workspace-0', persistentVolumeClaim: { claimName: claimName(uid) } }],
        },
      },
    },
  };
}

/** Secrets with no owner, named by no run, in a namespace of their own: what the live pass deletes. */
export function liveSecretNames(count: number): string[] {
  return Array.from({ length: count }, (_, s) => pacSecretName(999, s));
}

/**
 * The benchmark's cluster: PipelineResources and runs shaped like the ones Tekton's
 * controller leaves behind (docs/spec.md, "Words"), padded to the sizes asked for, in a mix an old CI
 * cluster has: most runs finished, some running, a few pending; most targets named by
 * finished runs, some shared by several runs, some retained, some named by nothing.
 *
 * Everything is derived from the indexes, so the same flags give the same cluster.
 */

export interface ClusterShape {
  targets: number;
  runs: number;
  /** Namespaces holding runs. */
  namespaces: number;
  /**
   * How many of them (the first ones) hold the targets; all when absent. Fewer make a skewed
   * cluster, as an upgraded one is: PipelineResources in a few namespaces, runs in hundreds,
   * those elsewhere naming resources that do not exist.
   */
  targetNamespaces?: number;
  /**
   * Approximate JSON size of a PipelineRun with its status as created, in KiB (the server adds
   * its managedFields). Below about 6 KiB its status names its tasks instead of embedding
   * their specs, down to about 2 KiB.
   */
  prKb: number;
  /** Approximate JSON size of a TaskRun with its status, in KiB; below about 3 KiB, one step. */
  trKb: number;
  /**
   * A current Tekton's cluster instead (bench/leftovers.ts): no PipelineResources (`targets` is
   * 0), runs that bind workspaces, and what they leave behind: this many claims and
   * Pipelines-as-Code Secrets, with the Pods and affinity-assistant StatefulSets that use them.
   */
  leftovers?: { claims: number; secrets: number };
  /**
   * The runs shape (issue 30): no PipelineResources (`targets` is 0), runs that bind a
   * workspace, of this many Pipelines and Tasks per namespace (so that they fall into groups),
   * a fifth of them PipelineRuns with two children each: the runs are what the dry run collects.
   */
  runGroups?: RunGroups;
}

/** How many Pipelines and Tasks the runs of one namespace come from (the runs shape). */
export interface RunGroups {
  pipelines: number;
  tasks: number;
}

export type RunPhase = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** One PipelineRun and the TaskRuns it started, created in that order (children need its uid). */
export interface PipelineRunPlan {
  kind: 'PipelineRun';
  namespace: string;
  name: string;
  phase: RunPhase;
  /** Targets named in spec.resources: a git source and an image. */
  resources: [string, string];
  /** Child TaskRuns: they carry the resources embedded (resourceSpec), naming nothing. */
  children: number;
  /** Hours since it finished (finished runs). */
  finishedHoursAgo: number;
  /** Its Pipeline (label tekton.dev/pipeline, pipelineRef), in the runs shape; `build-and-push` when absent. */
  pipeline?: string;
}

/** A TaskRun started on its own, naming one target as input through resourceRef. */
export interface TaskRunPlan {
  kind: 'TaskRun';
  namespace: string;
  name: string;
  phase: RunPhase;
  input: string;
  finishedHoursAgo: number;
  /** Its Task (label tekton.dev/task, taskRef), in the runs shape; `build-image` when absent. */
  task?: string;
}

export interface TargetPlan {
  namespace: string;
  name: string;
  type: 'git' | 'image';
  retained: boolean;
}

export interface NamespacePlan {
  name: string;
  targets: TargetPlan[];
  pipelineRuns: PipelineRunPlan[];
  taskRuns: TaskRunPlan[];
}

export const NAMESPACE_PREFIX = 'bench-';
/** Where the live pass deletes: kept apart so the seeded data survives it. */
export const LIVE_NAMESPACE = 'bench-live';
export const RETAIN_LABEL = 'tekton-resource-gc.io/retain';
export const CHILDREN_PER_PIPELINE_RUN = 2;

/** How many of each object one namespace holds: `total` spread evenly, the first ones taking the remainder. */
export function share(total: number, namespaces: number, index: number): number {
  return Math.floor(total / namespaces) + (index < total % namespaces ? 1 : 0);
}

export function namespaceName(index: number): string {
  return `${NAMESPACE_PREFIX}${String(index).padStart(3, '0')}`;
}

/** A short hex "commit", as trigger templates name one resource per commit. */
export function commit(namespace: number, index: number, salt: number): string {
  let x = (namespace * 1_000_003 + index * 7919 + salt * 104_729) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0).toString(16).padStart(8, '0');
}

/**
 * Run phases by index: 2% pending, 6% running, 4% failed, 2.5% cancelled, the rest succeeded.
 * Pending PipelineRuns have not started any TaskRun yet.
 */
export function phaseOf(index: number): RunPhase {
  const m = index % 200;
  if (m < 4) return 'pending';
  if (m < 16) return 'running';
  if (m < 24) return 'failed';
  if (m < 29) return 'cancelled';
  return 'succeeded';
}

/**
 * Of every 20 targets: one carries the retain label, two are named by no run (orphans of a
 * Tekton upgrade), one is shared by many runs, the others are named by one or a few runs.
 */
export function planNamespace(shape: ClusterShape, index: number): NamespacePlan {
  const name = namespaceName(index);
  const targetNamespaces = targetNamespaceCount(shape);
  const targetCount = index < targetNamespaces ? share(shape.targets, targetNamespaces, index) : 0;
  const runCount = share(shape.runs, shape.namespaces, index);
  const targets: TargetPlan[] = [];
  const named: string[] = [];
  const shared: string[] = [];
  for (let t = 0; t < targetCount; t++) {
    const type = t % 2 === 0 ? 'git' : 'image';
    const target: TargetPlan = { namespace: name, name: `${type === 'git' ? 'src' : 'img'}-${commit(index, t, 1)}-${t}`, type, retained: t % 20 === 0 };
    targets.push(target);
    const role = t % 20;
    if (role === 1 || role === 2) continue;
    (role === 3 ? shared : named).push(target.name);
  }
  const pool = named.length > 0 ? named : targets.map((target) => target.name);
  const pick = (k: number): string => {
    if (pool.length === 0) return `missing-${k}`;
    // One reference in eight goes to a shared target: those end up named by many runs.
    if (shared.length > 0 && k % 8 === 7) return shared[k % shared.length] as string;
    return pool[k % pool.length] as string;
  };

  // A quarter of the runs are PipelineRuns (a fifth in the runs shape), each with two children;
  // standalone TaskRuns fill the rest.
  const groups = shape.runGroups;
  const pipelineRunCount = Math.min(runCount, Math.round(runCount / (groups === undefined ? 4 : 5)));
  const pipelineRuns: PipelineRunPlan[] = [];
  let childCount = 0;
  for (let p = 0; p < pipelineRunCount; p++) {
    const phase = phaseOf(p + index);
    const children = phase === 'pending' ? 0 : Math.min(CHILDREN_PER_PIPELINE_RUN, runCount - pipelineRunCount - childCount);
    childCount += children;
    pipelineRuns.push({
      kind: 'PipelineRun',
      namespace: name,
      name: `build-${commit(index, p, 2)}-${p}`,
      phase,
      resources: [pick(2 * p), pick(2 * p + 1)],
      children,
      finishedHoursAgo: 2 + ((p * 37) % 700),
      ...(groups !== undefined && { pipeline: pipelineName(p % groups.pipelines) }),
    });
  }
  const taskRuns: TaskRunPlan[] = [];
  for (let r = 0; r < runCount - pipelineRunCount - childCount; r++) {
    taskRuns.push({
      kind: 'TaskRun',
      namespace: name,
      name: `scan-${commit(index, r, 3)}-${r}`,
      phase: phaseOf(r * 3 + index + 1),
      input: pick(r * 5 + 3),
      finishedHoursAgo: 2 + ((r * 53) % 700),
      ...(groups !== undefined && { task: taskName(r % groups.tasks) }),
    });
  }
  return { name, targets, pipelineRuns, taskRuns };
}

const PIPELINE_NAMES = ['build-and-push', 'release', 'e2e', 'nightly', 'docs'];
const TASK_NAMES = ['build-image', 'unit-test', 'lint', 'scan-image', 'deploy', 'notify'];

/** The runs shape's Pipeline and Task names by index: a CI cluster's, numbered past the list. */
export function pipelineName(index: number): string {
  return PIPELINE_NAMES[index] ?? `pipeline-${index}`;
}

export function taskName(index: number): string {
  return TASK_NAMES[index] ?? `task-${index}`;
}

/** How many namespaces hold targets: the first ones. */
export function targetNamespaceCount(shape: ClusterShape): number {
  return Math.min(shape.namespaces, shape.targetNamespaces ?? shape.namespaces);
}

export function liveTargets(count: number): TargetPlan[] {
  return Array.from({ length: count }, (_, t) => ({ namespace: LIVE_NAMESPACE, name: `orphan-${commit(999, t, 4)}-${t}`, type: t % 2 === 0 ? 'git' : 'image', retained: false }));
}

// ---------------------------------------------------------------------------------------
// Objects

export type Json = Record<string, unknown>;

/**
 * What a run of a current Tekton binds instead of PipelineResources (the leftovers shape):
 * its workspaces, and the labels and annotations of what created it (Pipelines-as-Code).
 */
export interface WorkspaceBindings {
  workspaces: Json[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const GROUP_VERSION = 'tekton.dev/v1beta1';
const REPO = 'https://github.com/example/shop.git';
const REGISTRY = 'registry.example.com/shop';

export function targetObject(target: TargetPlan, index: number): Json {
  const labels: Record<string, string> = { 'app.kubernetes.io/part-of': 'shop', 'triggers.tekton.dev/trigger': 'on-push' };
  if (target.retained) labels[RETAIN_LABEL] = 'true';
  const revision = commit(7, index, 5).repeat(5);
  return {
    apiVersion: 'tekton.dev/v1alpha1',
    kind: 'PipelineResource',
    metadata: { name: target.name, namespace: target.namespace, labels },
    spec:
      target.type === 'git'
        ? { type: 'git', params: [{ name: 'url', value: REPO }, { name: 'revision', value: revision }] }
        : { type: 'image', params: [{ name: 'url', value: `${REGISTRY}/api:${revision.slice(0, 12)}` }] },
  };
}

/** An ISO timestamp `hours` before now, to the second as the API server writes them. */
function hoursAgo(hours: number, nowMs: number): string {
  return new Date(nowMs - hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface Times {
  startTime: string;
  completionTime?: string;
  lastTransitionTime: string;
}

function timesOf(phase: RunPhase, finishedHoursAgo: number, nowMs: number): Times {
  if (phase === 'pending') return { startTime: '', lastTransitionTime: hoursAgo(0.01, nowMs) };
  if (phase === 'running') return { startTime: hoursAgo(0.2, nowMs), lastTransitionTime: hoursAgo(0.05, nowMs) };
  const completionTime = hoursAgo(finishedHoursAgo, nowMs);
  return { startTime: hoursAgo(finishedHoursAgo + 0.25, nowMs), completionTime, lastTransitionTime: completionTime };
}

function succeededCondition(kind: 'PipelineRun' | 'TaskRun', phase: RunPhase, lastTransitionTime: string): Json {
  const [status, reason, message] = ((): [string, string, string] => {
    switch (phase) {
      case 'pending':
        return ['Unknown', `${kind}Pending`, `${kind} is pending`];
      case 'running':
        return ['Unknown', 'Running', 'Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2, Skipped: 0'];
      case 'succeeded':
        return ['True', 'Succeeded', kind === 'PipelineRun' ? 'Tasks Completed: 3 (Failed: 0, Cancelled 0), Skipped: 0' : 'All Steps have completed executing'];
      case 'failed':
        return ['False', 'Failed', kind === 'PipelineRun' ? 'Tasks Completed: 3 (Failed: 1, Cancelled 0), Skipped: 0' : '"step-build" exited with code 1 (image: "docker.io/library/golang@sha256:…"); for logs run: kubectl -n ci logs build-pod -c step-build'];
      case 'cancelled':
        return ['False', kind === 'PipelineRun' ? 'Cancelled' : 'TaskRunCancelled', `${kind} was cancelled`];
    }
  })();
  return { type: 'Succeeded', status, reason, message, lastTransitionTime };
}

/** A realistic step script, repeated to reach the size asked for. */
const SCRIPT_LINES = [
  '#!/usr/bin/env sh',
  'set -eu',
  'echo "building $(params.IMAGE) from $(resources.inputs.source.path)"',
  'cd "$(resources.inputs.source.path)"',
  'go env -w GOFLAGS=-mod=mod GOPROXY=https://proxy.golang.org,direct',
  'go build -trimpath -ldflags "-s -w -X main.version=$(params.VERSION)" -o /workspace/bin/app ./cmd/app',
  'go test ./... -count=1 -race -coverprofile=/workspace/coverage.out',
  'printf "%s" "$(git rev-parse HEAD)" > $(results.commit.path)',
];

function script(bytes: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const line = SCRIPT_LINES[i % SCRIPT_LINES.length] as string;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function step(name: string, image: string, scriptBytes: number): Json {
  return {
    name,
    image,
    script: script(scriptBytes),
    env: [{ name: 'HOME', value: '/tekton/home' }, { name: 'DOCKER_CONFIG', value: '/tekton/creds/.docker' }],
    resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '2Gi' } },
    workingDir: '/workspace/source',
  };
}

function taskSpec(scriptBytes: number): Json {
  return {
    params: [
      { name: 'IMAGE', type: 'string', description: 'Reference of the image the task builds and pushes' },
      { name: 'VERSION', type: 'string', default: 'dev', description: 'Version stamped into the binary' },
    ],
    resources: { inputs: [{ name: 'source', type: 'git' }], outputs: [{ name: 'image', type: 'image' }] },
    results: [{ name: 'commit', description: 'The commit that was built' }, { name: 'digest', description: 'Digest of the image pushed' }],
    steps: [step('build', 'docker.io/library/golang:1.21', scriptBytes), step('push', 'gcr.io/kaniko-project/executor:v1.9.0', 120)],
  };
}

const PIPELINE_TASKS = ['fetch', 'build', 'scan'];

function pipelineSpec(scriptBytes: number): Json {
  return {
    params: [{ name: 'IMAGE', type: 'string' }, { name: 'VERSION', type: 'string', default: 'dev' }],
    resources: [{ name: 'source', type: 'git' }, { name: 'image', type: 'image' }],
    tasks: PIPELINE_TASKS.map((task, i) => ({
      name: task,
      ...(i > 0 && { runAfter: [PIPELINE_TASKS[i - 1]] }),
      params: [{ name: 'IMAGE', value: '$(params.IMAGE)' }, { name: 'VERSION', value: '$(params.VERSION)' }],
      resources: { inputs: [{ name: 'source', resource: 'source' }], outputs: [{ name: 'image', resource: 'image' }] },
      taskSpec: taskSpec(Math.floor(scriptBytes / PIPELINE_TASKS.length)),
    })),
  };
}

/**
 * A pipeline whose tasks are Tasks of their own (taskRef): what a PipelineRun's status holds
 * when its Pipeline embeds no task spec, the smallest a PipelineRun is in practice.
 */
function referencedPipelineSpec(text: string): Json {
  return {
    ...(text !== '' && { description: text }),
    params: [{ name: 'IMAGE', type: 'string' }],
    resources: [{ name: 'source', type: 'git' }, { name: 'image', type: 'image' }],
    tasks: PIPELINE_TASKS.map((task, i) => ({ name: task, ...(i > 0 && { runAfter: [PIPELINE_TASKS[i - 1]] }), taskRef: { name: task, kind: 'Task' } })),
  };
}

/** A Task of one short step: the smallest spec a TaskRun's status copies. */
function smallTaskSpec(text: string): Json {
  return {
    ...(text !== '' && { description: text }),
    resources: { inputs: [{ name: 'source', type: 'git' }] },
    steps: [{ name: 'build', image: 'docker.io/library/golang:1.21', script: SCRIPT_LINES.slice(0, 3).join('\n') }],
  };
}

/** Prose of about `bytes` characters (none for fewer than one line), for a spec's description. */
function description(bytes: number): string {
  const sentence = 'Builds the image from the commit the trigger names, tests it and pushes it to the registry. ';
  return bytes < sentence.length ? '' : sentence.repeat(Math.floor(bytes / sentence.length)).trimEnd();
}

function runLabels(extra: Record<string, string>): Record<string, string> {
  return { 'app.kubernetes.io/part-of': 'shop', 'app.kubernetes.io/managed-by': 'tekton-pipelines', 'triggers.tekton.dev/eventlistener': 'shop-push', ...extra };
}

export interface CreatedParent {
  name: string;
  uid: string;
}

/**
 * A PipelineRun (spec) and the status Tekton's controller writes, sized to about `bytes`: with
 * `current`, it binds workspaces instead of its plan's resources (the status is the same
 * padding: the collector reads a run's conditions and times, not its pipelineSpec).
 */
export function pipelineRunObjects(
  run: Omit<PipelineRunPlan, 'resources'> & Partial<Pick<PipelineRunPlan, 'resources'>>,
  bytes: number,
  nowMs: number,
  current?: WorkspaceBindings,
): { object: Json; status: (childNames: string[]) => Json } {
  if (run.resources === undefined && current === undefined) throw new Error(`PipelineRun ${run.name} binds neither resources nor workspaces`);
  const [source, image] = run.resources ?? ['', ''];
  const object: Json = {
    apiVersion: GROUP_VERSION,
    kind: 'PipelineRun',
    metadata: {
      name: run.name,
      namespace: run.namespace,
      labels: runLabels({ 'tekton.dev/pipeline': run.pipeline ?? 'build-and-push', ...current?.labels }),
      ...(current?.annotations !== undefined && { annotations: current.annotations }),
    },
    spec: {
      pipelineRef: { name: run.pipeline ?? 'build-and-push' },
      params: [{ name: 'IMAGE', value: `${REGISTRY}/api` }, { name: 'VERSION', value: run.name.slice(6, 14) }],
      ...(current === undefined
        ? { resources: [{ name: 'source', resourceRef: { name: source } }, { name: 'image', resourceRef: { name: image } }] }
        : { workspaces: current.workspaces }),
      serviceAccountName: 'pipeline',
      timeout: '1h0m0s',
      ...(run.phase === 'pending' && { status: 'PipelineRunPending' }),
    },
  };
  const status = (childNames: string[]): Json => {
    const times = timesOf(run.phase, run.finishedHoursAgo, nowMs);
    const base = {
      conditions: [succeededCondition('PipelineRun', run.phase, times.lastTransitionTime)],
      ...(times.startTime !== '' && { startTime: times.startTime }),
      ...(times.completionTime !== undefined && { completionTime: times.completionTime }),
    };
    if (run.phase === 'pending') return base;
    const taskRuns = Object.fromEntries(
      childNames.map((child, i) => [child, { pipelineTaskName: PIPELINE_TASKS[i] ?? `task-${i}`, status: { podName: `${child}-pod`, conditions: base.conditions, startTime: times.startTime } }]),
    );
    const withoutPadding = {
      ...base,
      childReferences: childNames.map((child, i) => ({ apiVersion: GROUP_VERSION, kind: 'TaskRun', name: child, pipelineTaskName: PIPELINE_TASKS[i] ?? `task-${i}` })),
      taskRuns,
      pipelineSpec: pipelineSpec(0),
    };
    const missing = bytes - JSON.stringify(object).length - JSON.stringify(withoutPadding).length - 400;
    if (missing >= 0) return { ...withoutPadding, pipelineSpec: pipelineSpec(missing) };
    // Smaller than a status that embeds every task's spec: the tasks by reference, no copy of
    // their states, and the pipeline's description for the rest.
    const small = { ...base, childReferences: withoutPadding.childReferences, pipelineSpec: referencedPipelineSpec('') };
    return { ...small, pipelineSpec: referencedPipelineSpec(description(bytes - JSON.stringify(object).length - JSON.stringify(small).length - 400)) };
  };
  return { object, status };
}

export function childTaskRunName(parent: string, index: number): string {
  return `${parent}-${PIPELINE_TASKS[index] ?? `task-${index}`}`;
}

/**
 * A TaskRun: a PipelineRun's child (resources embedded as resourceSpec, owner reference to
 * its parent) or a standalone one that names its input through resourceRef; with `current`,
 * either binds workspaces instead.
 */
export function taskRunObjects(
  run: { namespace: string; name: string; phase: RunPhase; finishedHoursAgo: number; input?: string; parent?: CreatedParent; pipelineTask?: string; task?: string; pipeline?: string },
  bytes: number,
  nowMs: number,
  current?: WorkspaceBindings,
): { object: Json; status: () => Json } {
  const task = run.task ?? 'build-image';
  const labels: Record<string, string> = { 'tekton.dev/task': task, ...current?.labels };
  if (run.parent !== undefined) {
    Object.assign(labels, {
      'tekton.dev/pipeline': run.pipeline ?? 'build-and-push',
      'tekton.dev/pipelineRun': run.parent.name,
      'tekton.dev/pipelineTask': run.pipelineTask ?? 'build',
      'tekton.dev/memberOf': 'tasks',
    });
  }
  const input =
    run.input !== undefined
      ? { name: 'source', resourceRef: { name: run.input } }
      : { name: 'source', resourceSpec: { type: 'git', params: [{ name: 'url', value: REPO }, { name: 'revision', value: run.name.slice(6, 14) }] } };
  const object: Json = {
    apiVersion: GROUP_VERSION,
    kind: 'TaskRun',
    metadata: {
      name: run.name,
      namespace: run.namespace,
      labels: runLabels(labels),
      ...(current?.annotations !== undefined && { annotations: current.annotations }),
      ...(run.parent !== undefined && {
        ownerReferences: [{ apiVersion: GROUP_VERSION, kind: 'PipelineRun', name: run.parent.name, uid: run.parent.uid, controller: true, blockOwnerDeletion: true }],
      }),
    },
    spec: {
      taskRef: { name: task, kind: 'Task' },
      params: [{ name: 'IMAGE', value: `${REGISTRY}/api` }],
      ...(current === undefined ? { resources: { inputs: [input], outputs: [] } } : { workspaces: current.workspaces }),
      serviceAccountName: 'pipeline',
      timeout: '1h0m0s',
    },
  };
  const status = (): Json => {
    const times = timesOf(run.phase, run.finishedHoursAgo, nowMs);
    const finished = times.completionTime !== undefined;
    const base = {
      conditions: [succeededCondition('TaskRun', run.phase, times.lastTransitionTime)],
      podName: `${run.name}-pod`,
      ...(times.startTime !== '' && { startTime: times.startTime }),
      ...(times.completionTime !== undefined && { completionTime: times.completionTime }),
      steps: ['build', 'push'].map((name) => ({
        name,
        container: `step-${name}`,
        imageID: `docker.io/library/golang@sha256:${'4f'.repeat(32)}`,
        ...(finished
          ? { terminated: { exitCode: run.phase === 'failed' && name === 'build' ? 1 : 0, reason: 'Completed', startedAt: times.startTime, finishedAt: times.completionTime, containerID: `containerd://${'ab'.repeat(32)}` } }
          : { running: { startedAt: times.startTime || times.lastTransitionTime } }),
      })),
      ...(finished && { taskResults: [{ name: 'commit', type: 'string', value: run.name.slice(6, 14) }] }),
      taskSpec: taskSpec(0),
    };
    const missing = bytes - JSON.stringify(object).length - JSON.stringify(base).length - 350;
    if (missing >= 0) return { ...base, taskSpec: taskSpec(missing) };
    // Smaller than a status with the task's full spec: one step, and the task's description for the rest.
    const small = { ...base, steps: base.steps.slice(0, 1), taskSpec: smallTaskSpec('') };
    return { ...small, taskSpec: smallTaskSpec(description(bytes - JSON.stringify(object).length - JSON.stringify(small).length - 350)) };
  };
  return { object, status };
}

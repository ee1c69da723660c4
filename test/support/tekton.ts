/**
 * The project's own Tekton objects for integration tests, written from Tekton's sources (docs/spec.md, "Words"): a
 * PipelineResource per commit, and runs in each served version's shape with a status
 * like the one Tekton's controller writes.
 */

export type RunVersionName = 'v1alpha1' | 'v1beta1' | 'v1';

/** A run's status as a test wants it; `finishedAt` makes a finished run. */
export type RunStatusSpec =
  | { state: 'pending' }
  | { state: 'running' }
  /** Succeeded=False without completionTime: Tekton may still retry. */
  | { state: 'failed-retrying' }
  | { state: 'succeeded' | 'failed' | 'cancelled'; finishedAt: string };

export interface ObjectMeta {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { uid?: string; resourceVersion?: string };
  spec?: unknown;
  status?: unknown;
}

export function gitResource(meta: ObjectMeta, revision: string): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1alpha1',
    kind: 'PipelineResource',
    metadata: meta,
    spec: {
      type: 'git',
      params: [
        { name: 'url', value: 'https://github.com/example/shop.git' },
        { name: 'revision', value: revision },
      ],
    },
  };
}

export function imageResource(meta: ObjectMeta, tag: string): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1alpha1',
    kind: 'PipelineResource',
    metadata: meta,
    spec: { type: 'image', params: [{ name: 'url', value: `registry.example.com/shop/api:${tag}` }] },
  };
}

/** A binding: the slot name Tekton declares, and the PipelineResource it names. */
function binding(slot: string, target: string): unknown {
  return { name: slot, resourceRef: { name: target } };
}

export interface PipelineRunSpec {
  /** Targets named through spec.resources, one slot each. */
  resources: string[];
  pending?: boolean;
}

/** A PipelineRun in the shape of `version`; v1 carries the bindings in the annotation. */
export function pipelineRun(version: RunVersionName, meta: ObjectMeta, spec: PipelineRunSpec): KubeObject {
  const bindings = spec.resources.map((target, index) => binding(index === 0 ? 'source' : `resource-${index}`, target));
  const body: Record<string, unknown> = { pipelineRef: { name: 'build-and-push' } };
  if (spec.pending === true) {
    body['status'] = 'PipelineRunPending';
  }
  if (version === 'v1') {
    return {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: withAnnotation(meta, 'tekton.dev/v1beta1Resources', JSON.stringify(bindings)),
      spec: body,
    };
  }
  return { apiVersion: `tekton.dev/${version}`, kind: 'PipelineRun', metadata: meta, spec: { ...body, resources: bindings } };
}

export interface TaskRunSpec {
  inputs: string[];
  outputs: string[];
  /** v1alpha1's oldest form: spec.inputs.resources / spec.outputs.resources. */
  legacy?: boolean;
}

export function taskRun(version: RunVersionName, meta: ObjectMeta, spec: TaskRunSpec): KubeObject {
  const inputs = spec.inputs.map((target) => binding('source', target));
  const outputs = spec.outputs.map((target) => binding('image', target));
  const base = { taskRef: { name: 'build-image' } };
  if (version === 'v1') {
    return {
      apiVersion: 'tekton.dev/v1',
      kind: 'TaskRun',
      metadata: withAnnotation(meta, 'tekton.dev/v1beta1Resources', JSON.stringify({ inputs, outputs })),
      spec: base,
    };
  }
  const resources =
    spec.legacy === true
      ? { inputs: { resources: inputs }, outputs: { resources: outputs } }
      : { resources: { inputs, outputs } };
  return { apiVersion: `tekton.dev/${version}`, kind: 'TaskRun', metadata: meta, spec: { ...base, ...resources } };
}

function withAnnotation(meta: ObjectMeta, key: string, value: string): ObjectMeta {
  return { ...meta, annotations: { ...meta.annotations, [key]: value } };
}

/** The status Tekton's controller would write for a run in this state. */
export function runStatus(kind: 'PipelineRun' | 'TaskRun', status: RunStatusSpec, startedAt: string): unknown {
  switch (status.state) {
    case 'pending':
      return { conditions: [condition('Unknown', `${kind}Pending`, 'run is pending')] };
    case 'running':
      return { startTime: startedAt, conditions: [condition('Unknown', 'Running', 'Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2')] };
    case 'failed-retrying':
      return { startTime: startedAt, conditions: [condition('False', 'Failed', 'step build failed; retrying')] };
    case 'succeeded':
      return { startTime: startedAt, completionTime: status.finishedAt, conditions: [condition('True', 'Succeeded', 'All Tasks have completed executing')] };
    case 'failed':
      return { startTime: startedAt, completionTime: status.finishedAt, conditions: [condition('False', 'Failed', 'Tasks Completed: 3 (Failed: 1, Cancelled 0), Skipped: 0')] };
    case 'cancelled':
      return { startTime: startedAt, completionTime: status.finishedAt, conditions: [condition('False', kind === 'PipelineRun' ? 'Cancelled' : 'TaskRunCancelled', `${kind} was cancelled`)] };
  }
}

function condition(status: string, reason: string, message: string): unknown {
  return { type: 'Succeeded', status, reason, message, lastTransitionTime: new Date().toISOString() };
}

/** An ISO timestamp `hours` before `from`. */
export function hoursAgo(hours: number, from = new Date()): string {
  return new Date(from.getTime() - hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

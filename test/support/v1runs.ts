/**
 * v1 PipelineRuns and TaskRuns on a real API server, as Tekton writes them: created, then
 * their status through /status (a TaskRun's with the Pod it made), and listed back by name.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { runStatus, type KubeObject, type RunStatusSpec } from './tekton.js';

export type RunKind = 'PipelineRun' | 'TaskRun';

export interface V1RunSpec {
  kind?: RunKind;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** A child TaskRun: owned by this PipelineRun. */
  owner?: KubeObject;
  finalizers?: string[];
}

export class V1Runs {
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** A run of Pipeline build (or Task compile), labelled so unless `labels` says otherwise, with `status`. */
  async create(namespace: string, name: string, status: RunStatusSpec, spec: V1RunSpec = {}): Promise<KubeObject> {
    const kind = spec.kind ?? 'PipelineRun';
    const body: KubeObject = {
      apiVersion: 'tekton.dev/v1',
      kind,
      metadata: {
        name,
        namespace,
        labels: spec.labels ?? (kind === 'PipelineRun' ? { 'tekton.dev/pipeline': 'build' } : { 'tekton.dev/task': 'compile' }),
        ...(spec.annotations !== undefined && { annotations: spec.annotations }),
        ...(spec.finalizers !== undefined && { finalizers: spec.finalizers }),
        ...(spec.owner !== undefined && {
          ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: spec.owner.metadata.name, uid: spec.owner.metadata.uid ?? '', controller: true }],
        }),
      },
      spec: kind === 'PipelineRun' ? { pipelineRef: { name: 'build' } } : { taskRef: { name: 'compile' } },
    };
    const created = (await this.custom.createNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: plural(kind), body })) as KubeObject;
    const startedAt = 'finishedAt' in status ? new Date(Date.parse(status.finishedAt) - 300_000).toISOString() : new Date().toISOString();
    const written = runStatus(kind, status, startedAt) as Record<string, unknown>;
    return (await this.custom.replaceNamespacedCustomObjectStatus({
      group: 'tekton.dev',
      version: 'v1',
      namespace,
      plural: plural(kind),
      name,
      body: { ...created, status: { ...written, ...(kind === 'TaskRun' && { podName: `${name}-pod` }) } },
    })) as KubeObject;
  }

  async delete(namespace: string, name: string, kind: RunKind = 'PipelineRun'): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: plural(kind), name });
  }

  /** The names of the runs of `kind` in `namespace`, sorted. */
  async names(namespace: string, kind: RunKind = 'PipelineRun'): Promise<string[]> {
    const list = (await this.custom.listNamespacedCustomObject({ group: 'tekton.dev', version: 'v1', namespace, plural: plural(kind) })) as { items: KubeObject[] };
    return list.items.map((item) => item.metadata.name).sort();
  }
}

function plural(kind: RunKind): string {
  return kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
}

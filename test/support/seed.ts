/**
 * Creating Tekton objects on a real API server the way Tekton's controller leaves them:
 * the object first, then its status through the status subresource (the server drops a
 * status sent on create).
 */
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { runStatus, type KubeObject, type RunStatusSpec } from './tekton.js';

const GROUP = 'tekton.dev';

const PLURALS: Record<string, string> = {
  PipelineResource: 'pipelineresources',
  PipelineRun: 'pipelineruns',
  TaskRun: 'taskruns',
};

export interface Created {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
}

export class Seeder {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name, labels } } });
  }

  /**
   * Creates the object; for a run with `status`, then writes the status as Tekton would, with
   * `stored` (what the run resolved) in status.pipelineSpec or status.taskSpec by its kind.
   */
  async create(object: KubeObject, status?: RunStatusSpec, stored?: unknown): Promise<Created> {
    const version = object.apiVersion.split('/')[1] ?? '';
    const plural = pluralOf(object.kind);
    const { namespace } = object.metadata;
    const created = (await this.custom.createNamespacedCustomObject({ group: GROUP, version, namespace, plural, body: object })) as KubeObject;
    if (status === undefined) {
      return identity(created);
    }
    const kind = object.kind === 'PipelineRun' ? 'PipelineRun' : 'TaskRun';
    const written = runStatus(kind, status, startTimeFor(status)) as Record<string, unknown>;
    const withStatus = { ...created, status: { ...written, ...(stored !== undefined && { [kind === 'PipelineRun' ? 'pipelineSpec' : 'taskSpec']: stored }) } };
    const updated = (await this.custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version,
      namespace,
      plural,
      name: object.metadata.name,
      body: withStatus,
    })) as KubeObject;
    return identity(updated);
  }

  /** Rewrites a run's status, as Tekton does when a pending run starts or a run finishes. */
  async setStatus(object: KubeObject, status: RunStatusSpec): Promise<Created> {
    const version = object.apiVersion.split('/')[1] ?? '';
    const plural = pluralOf(object.kind);
    const { namespace, name } = object.metadata;
    const current = (await this.custom.getNamespacedCustomObject({ group: GROUP, version, namespace, plural, name })) as KubeObject;
    const kind = object.kind === 'PipelineRun' ? 'PipelineRun' : 'TaskRun';
    const updated = (await this.custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version,
      namespace,
      plural,
      name,
      body: { ...current, status: runStatus(kind, status, startTimeFor(status)) },
    })) as KubeObject;
    return identity(updated);
  }

  /** Adds or replaces labels (a JSON merge patch), e.g. to relabel a target `retain`. */
  async label(kind: string, namespace: string, name: string, labels: Record<string, string>): Promise<void> {
    const current = (await this.custom.getNamespacedCustomObject({ group: GROUP, version: versionFor(kind), namespace, plural: pluralOf(kind), name })) as KubeObject;
    const body = { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...labels } } };
    await this.custom.replaceNamespacedCustomObject({ group: GROUP, version: versionFor(kind), namespace, plural: pluralOf(kind), name, body });
  }

  /** Names of the PipelineResources left in a namespace, sorted. */
  async remainingTargets(namespace: string): Promise<string[]> {
    const list = (await this.custom.listNamespacedCustomObject({ group: GROUP, version: 'v1alpha1', namespace, plural: 'pipelineresources' })) as { items: KubeObject[] };
    return list.items.map((item) => item.metadata.name).sort();
  }
}

/** A finished run started a few minutes before it finished; an active one, now. */
function startTimeFor(status: RunStatusSpec): string {
  const FIVE_MINUTES = 300_000;
  return 'finishedAt' in status ? new Date(Date.parse(status.finishedAt) - FIVE_MINUTES).toISOString() : new Date().toISOString();
}

function pluralOf(kind: string): string {
  const plural = PLURALS[kind];
  if (plural === undefined) {
    throw new Error(`no plural known for kind ${kind}`);
  }
  return plural;
}

function versionFor(kind: string): string {
  return kind === 'PipelineResource' ? 'v1alpha1' : 'v1beta1';
}

function identity(object: KubeObject): Created {
  return {
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    uid: object.metadata.uid ?? '',
    resourceVersion: object.metadata.resourceVersion ?? '',
  };
}

/** The HTTP status of a client call: 200 when it succeeded, else the API server's refusal. */
export async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

/**
 * Leftovers of any shape on a bare API server, for the acceptance scenarios of docs/spec.md,
 * "Leftovers": claims, Secrets and affinity-assistant StatefulSets with whatever owner,
 * labels, name and finalizers a scenario needs (marked or not), runs with workspaces and
 * annotations, and Pods that use them. No controller runs there: the StatefulSet controller
 * makes no claim (a test makes it, named and labelled as that controller would), no
 * scheduler or kubelet sets a Pod's phase (a test writes it through /status), no garbage
 * collector deletes what a deleted run owned, and kubernetes.io/pvc-protection, which the
 * API server puts on every claim, is never removed but by a test or the collector.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { ReportDocument, ReportItem } from '../../src/report/model.js';
import type { Created } from './seed.js';
import type { KubeObject, ObjectMeta } from './tekton.js';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const RETAIN = 'tekton-resource-gc.io/retain';
export const RETAIN_FOR = 'tekton-resource-gc.io/retain-for';
export const PAC_MANAGED_BY = 'pipelinesascode.tekton.dev';
export const GIT_AUTH_ANNOTATION = 'pipelinesascode.tekton.dev/git-auth-secret';

export type OwnerReference = NonNullable<ObjectMeta['ownerReferences']>[number] & { blockOwnerDeletion?: boolean };

/** A run as an ownerReference or a label names it. */
export interface RunIdentity {
  kind: 'PipelineRun' | 'TaskRun';
  name: string;
  uid: string;
}

/** The ownerReference Tekton writes on what a run makes: the run is its controller. */
export function controllerRef(run: RunIdentity, apiVersion = 'tekton.dev/v1'): OwnerReference {
  return { apiVersion, kind: run.kind, name: run.name, uid: run.uid, controller: true, blockOwnerDeletion: true };
}

/** The ownerReference Pipelines-as-Code adds to its Secret once the run exists: not the controller. */
export function pacOwnerRef(run: RunIdentity): OwnerReference {
  return { apiVersion: 'tekton.dev/v1', kind: run.kind, name: run.name, uid: run.uid, controller: false };
}

/** A uid no object has, for an owner that never existed here (the server does not check ownerReferences). */
export function inventedUid(seed: number): string {
  return `00000000-0000-4000-8000-${seed.toString(16).padStart(12, '0')}`;
}

/**
 * A run in the v1beta1 shape with what links it to leftovers: `spec.workspaces` (any value,
 * a malformed one included), its annotations and labels, and `spec.resources` when it also
 * names PipelineResources.
 */
export function workspaceRun(kind: RunIdentity['kind'], meta: ObjectMeta, spec: { workspaces?: unknown; resources?: string[]; pending?: boolean } = {}): KubeObject {
  const body: Record<string, unknown> = kind === 'PipelineRun' ? { pipelineRef: { name: 'build-and-push' } } : { taskRef: { name: 'build-image' } };
  if (spec.workspaces !== undefined) body['workspaces'] = spec.workspaces;
  if (spec.resources !== undefined) body['resources'] = spec.resources.map((name, index) => ({ name: index === 0 ? 'source' : `resource-${index}`, resourceRef: { name } }));
  if (spec.pending === true) body['status'] = 'PipelineRunPending';
  return { apiVersion: 'tekton.dev/v1beta1', kind, metadata: meta, spec: body };
}

/** A `persistentVolumeClaim` workspace binding, as a user (or a PipelineRun for its TaskRuns) writes it. */
export function claimWorkspace(name: string, claimName: string): unknown {
  return { name, persistentVolumeClaim: { claimName } };
}

/** How a Pod names the objects it uses. */
export interface PodUses {
  claims?: readonly string[];
  /** Secrets through `envFrom[].secretRef`. */
  envFromSecrets?: readonly string[];
  /** Secrets through `env[].valueFrom.secretKeyRef`. */
  secretKeyRefs?: readonly string[];
}

/** A Pod's phase as a test writes it; `none`: the phase removed from its status (no kubelet has reported it yet). */
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'none';

export interface PodOptions extends PodUses {
  phase: PodPhase;
  /** False: no spec.nodeName, as a Pod no scheduler has placed yet. True by default. */
  scheduled?: boolean;
}

/** What the server holds for one object: gone (404), Terminating (deletionTimestamp set), or present. */
export type Fate = { state: 'gone' } | { state: 'terminating' | 'present'; finalizers: string[]; uid: string };

export type ObjectKind = 'PersistentVolumeClaim' | 'Secret' | 'StatefulSet' | 'Pod' | 'PipelineResource';

export class Objects {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** A claim requesting `storage` (1Gi by default); the server adds kubernetes.io/pvc-protection. */
  async claim(namespace: string, name: string, meta: { ownerReferences?: OwnerReference[]; labels?: Record<string, string>; finalizers?: string[]; storage?: string } = {}): Promise<Created> {
    const created = await this.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: {
          name,
          namespace,
          ...(meta.labels !== undefined && { labels: meta.labels }),
          ...(meta.finalizers !== undefined && { finalizers: meta.finalizers }),
          ...(meta.ownerReferences !== undefined && { ownerReferences: meta.ownerReferences }),
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: meta.storage ?? '1Gi' } } },
      },
    });
    return identity(created.metadata);
  }

  /** What a provisioner would write once the claim is bound: `status.capacity.storage`, through /status. */
  async setCapacity(namespace: string, name: string, storage: string): Promise<void> {
    await this.core.patchNamespacedPersistentVolumeClaimStatus({ name, namespace, body: [{ op: 'add', path: '/status/capacity', value: { storage } }] });
  }

  /**
   * What the PVC protection controller of Kubernetes 1.37 writes (KEP-5541): the claim's `Unused`
   * condition, through /status. This server (v1.35) runs no such controller and stores the
   * condition as written. Returns the conditions the server then holds.
   */
  async setUnusedCondition(namespace: string, name: string, status: 'True' | 'False' | 'Unknown', lastTransitionTime: string): Promise<unknown> {
    const reason = status === 'False' ? 'PodUsingPVC' : 'NoPodsUsingPVC';
    const condition = { type: 'Unused', status, reason, lastTransitionTime };
    const updated = await this.core.patchNamespacedPersistentVolumeClaimStatus({ name, namespace, body: [{ op: 'add', path: '/status/conditions', value: [condition] }] });
    return updated.status?.conditions;
  }

  /**
   * The affinity assistant's claim for ordinal 0, as the StatefulSet controller makes it:
   * `<template>-<statefulset>-0`, the StatefulSet's labels (the PipelineRun's, its instance,
   * its component), no ownerReference. Returns its name.
   */
  async affinityClaim(namespace: string, statefulSet: string, pipelineRun: string, more: { template?: string; labels?: Record<string, string> } = {}): Promise<string> {
    const name = `${more.template ?? 'pvc-0123abcd'}-${statefulSet}-0`;
    await this.claim(namespace, name, { labels: { ...more.labels, ...affinityLabels(statefulSet, pipelineRun) } });
    return name;
  }

  /**
   * An affinity-assistant StatefulSet as Tekton makes it (its PipelineRun, instance and component labels, a controller
   * ownerReference to its PipelineRun, one volumeClaimTemplate); `labels` replaces its
   * labels, to make one that lacks a part of the marker; `replicas` and `ordinalsStart` scale it
   * (1 from ordinal 0 unless given), `finalizers` make it survive a DELETE.
   */
  async affinityStatefulSet(
    namespace: string,
    name: string,
    owner: RunIdentity,
    more: { template?: string; labels?: Record<string, string>; replicas?: number; ordinalsStart?: number; finalizers?: string[] } = {},
  ): Promise<Created> {
    const labels = more.labels ?? affinityLabels(name, owner.name);
    const created = await this.apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name, namespace, labels, ownerReferences: [controllerRef(owner)], ...(more.finalizers !== undefined && { finalizers: more.finalizers }) },
        spec: {
          replicas: more.replicas ?? 1,
          ...(more.ordinalsStart !== undefined && { ordinals: { start: more.ordinalsStart } }),
          serviceName: '',
          selector: { matchLabels: { 'app.kubernetes.io/instance': name } },
          template: { metadata: { labels: { ...labels, 'app.kubernetes.io/instance': name } }, spec: { containers: [{ name: 'affinity-assistant', image: 'nginx' }] } },
          volumeClaimTemplates: [{ metadata: { name: more.template ?? 'pvc-0123abcd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      },
    });
    return identity(created.metadata);
  }

  /** A Secret holding a token; `labels` and `ownerReferences` as given (pacLabels() for Pipelines-as-Code's). */
  async secret(namespace: string, name: string, meta: { labels?: Record<string, string>; ownerReferences?: OwnerReference[] } = {}): Promise<Created> {
    const created = await this.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name,
          namespace,
          ...(meta.labels !== undefined && { labels: meta.labels }),
          ...(meta.ownerReferences !== undefined && { ownerReferences: meta.ownerReferences }),
        },
        type: 'kubernetes.io/basic-auth',
        stringData: { username: 'git', password: 'a-token-the-collector-never-reads' },
      },
    });
    return identity(created.metadata);
  }

  /** A Pod that uses `uses`, on a node unless `scheduled: false`, with `phase` written through /status. */
  async pod(namespace: string, name: string, options: PodOptions): Promise<void> {
    const claims = options.claims ?? [];
    await this.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name, namespace },
        spec: {
          ...(options.scheduled !== false && { nodeName: 'node-1' }),
          containers: [
            {
              name: 'step-build',
              image: 'busybox',
              volumeMounts: claims.map((_, index) => ({ name: `ws-${index}`, mountPath: `/workspace/${index}` })),
              envFrom: (options.envFromSecrets ?? []).map((secret) => ({ secretRef: { name: secret } })),
              env: (options.secretKeyRefs ?? []).map((secret, index) => ({ name: `TOKEN_${index}`, valueFrom: { secretKeyRef: { name: secret, key: 'password' } } })),
            },
          ],
          volumes: claims.map((claim, index) => ({ name: `ws-${index}`, persistentVolumeClaim: { claimName: claim } })),
        },
      },
    });
    await this.setPodPhase(namespace, name, options.phase);
  }

  /**
   * Writes a Pod's phase as a kubelet would. The server gives a new Pod `Pending`: `none`
   * removes it. The bare server takes any change of phase, Succeeded to Running included.
   */
  async setPodPhase(namespace: string, name: string, phase: PodPhase): Promise<void> {
    const body = phase === 'none' ? [{ op: 'remove', path: '/status/phase' }] : [{ op: 'add', path: '/status/phase', value: phase }];
    await this.core.patchNamespacedPodStatus({ name, namespace, body });
  }

  /** Deletes a run: nothing it owned goes with it (no garbage collector runs). */
  async deleteRun(namespace: string, kind: RunIdentity['kind'], name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ group: 'tekton.dev', version: 'v1beta1', namespace, plural: kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns', name });
  }

  /** What the server holds now for one object. */
  async fate(kind: ObjectKind, namespace: string, name: string): Promise<Fate> {
    let metadata: { deletionTimestamp?: unknown; finalizers?: string[]; uid?: string } | undefined;
    try {
      metadata = (await this.read(kind, namespace, name)).metadata;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return { state: 'gone' };
      throw error;
    }
    return { state: metadata?.deletionTimestamp === undefined ? 'present' : 'terminating', finalizers: metadata?.finalizers ?? [], uid: metadata?.uid ?? '' };
  }

  /** `kind name -> gone | terminating | present` for each object, to compare in one assertion. */
  async fates(namespace: string, objects: Readonly<Record<string, ObjectKind>>): Promise<Record<string, Fate['state']>> {
    const states: Record<string, Fate['state']> = {};
    for (const [name, kind] of Object.entries(objects)) states[`${kind} ${name}`] = (await this.fate(kind, namespace, name)).state;
    return states;
  }

  private read(kind: ObjectKind, namespace: string, name: string): Promise<{ metadata?: { deletionTimestamp?: unknown; finalizers?: string[]; uid?: string } }> {
    switch (kind) {
      case 'PersistentVolumeClaim':
        return this.core.readNamespacedPersistentVolumeClaim({ name, namespace });
      case 'Secret':
        return this.core.readNamespacedSecret({ name, namespace });
      case 'StatefulSet':
        return this.apps.readNamespacedStatefulSet({ name, namespace });
      case 'Pod':
        return this.core.readNamespacedPod({ name, namespace });
      case 'PipelineResource':
        return this.custom.getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1alpha1', namespace, plural: 'pipelineresources', name }) as Promise<{ metadata?: { deletionTimestamp?: unknown; finalizers?: string[]; uid?: string } }>;
    }
  }
}

/** The labels Tekton puts on an affinity assistant's StatefulSet, which the StatefulSet controller copies onto its claims. */
export function affinityLabels(statefulSet: string, pipelineRun: string): Record<string, string> {
  return { 'app.kubernetes.io/component': 'affinity-assistant', 'app.kubernetes.io/instance': statefulSet, 'tekton.dev/pipelineRun': pipelineRun };
}

/** The labels Pipelines-as-Code puts on its git-auth Secret; `managedBy` as before v0.17 when asked. */
export function pacLabels(managedBy = PAC_MANAGED_BY): Record<string, string> {
  return { 'app.kubernetes.io/managed-by': managedBy, 'pipelinesascode.tekton.dev/url-org': 'example', 'pipelinesascode.tekton.dev/url-repository': 'shop' };
}

/** `Kind namespace/name -> reason result` of a report's items, in the report's order. */
export function verdicts(report: Pick<ReportDocument, 'items'>): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.kind} ${item.namespace}/${item.name}`, `${item.reason} ${item.result}`]));
}

/** The report's item for one object; fails the test when it is not reported. */
export function itemOf(report: Pick<ReportDocument, 'items'>, kind: string, name: string): ReportItem {
  const item = report.items.find((candidate) => candidate.kind === kind && candidate.name === name);
  if (item === undefined) throw new Error(`${kind} ${name} is not in the report: ${JSON.stringify(verdicts(report))}`);
  return item;
}

function identity(metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } | undefined): Created {
  return { name: metadata?.name ?? '', namespace: metadata?.namespace ?? '', uid: metadata?.uid ?? '', resourceVersion: metadata?.resourceVersion ?? '' };
}

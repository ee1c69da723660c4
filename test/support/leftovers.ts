/**
 * Leftovers on a bare API server, as Tekton and Pipelines-as-Code leave them (docs/spec.md,
 * "Leftovers"): claims owned by a run, affinity-assistant StatefulSets and their claims made
 * by hand (no StatefulSet controller runs), Pipelines-as-Code Secrets, and Pods with a node
 * and a phase set through /status (no scheduler or kubelet runs). The server's
 * StorageObjectInUseProtection admission puts kubernetes.io/pvc-protection on every claim,
 * and no controller ever removes it: a claim deleted stays Terminating until a test (or
 * --pvc-finalizer purge) removes the finalizer.
 */
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Created } from './seed.js';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const SNAPSHOT_SOURCE_PROTECTION = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';

/** An owner as an ownerReference names it: a run the test created. */
export interface RunOwner {
  kind: 'PipelineRun' | 'TaskRun';
  name: string;
  uid: string;
}

/** A JSON pointer's escaping of a label key: `/` and `~`. */
function pointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class LeftoverSeeder {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
  }

  /** A claim a run's volumeClaimTemplate made: one controller ownerReference to the run. */
  async ownedClaim(namespace: string, name: string, owner: RunOwner, more: { finalizers?: string[]; labels?: Record<string, string>; storage?: string } = {}): Promise<Created> {
    const created = await this.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: {
          name,
          namespace,
          ...(more.labels !== undefined && { labels: more.labels }),
          ...(more.finalizers !== undefined && { finalizers: more.finalizers }),
          ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }],
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: more.storage ?? '1Gi' } } },
      },
    });
    return identity(created.metadata);
  }

  /** A claim nobody owns and nothing marks: never a target. */
  async plainClaim(namespace: string, name: string): Promise<Created> {
    const created = await this.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: { metadata: { name, namespace }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    });
    return identity(created.metadata);
  }

  /** A Pipelines-as-Code Secret with its labels and annotations, owned (controller: false) by `owner` when given. */
  async pacSecret(namespace: string, name: string, owner?: RunOwner): Promise<Created> {
    const created = await this.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name,
          namespace,
          labels: { 'app.kubernetes.io/managed-by': 'pipelinesascode.tekton.dev', 'pipelinesascode.tekton.dev/url-org': 'example', 'pipelinesascode.tekton.dev/url-repository': 'shop' },
          annotations: { 'pipelinesascode.tekton.dev/url': 'https://github.com/example/shop', 'pipelinesascode.tekton.dev/sha': 'abc123' },
          ...(owner !== undefined && { ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: false }] }),
        },
        type: 'kubernetes.io/basic-auth',
        stringData: { username: 'git', password: 'a-token-the-collector-must-never-read' },
      },
    });
    return identity(created.metadata);
  }

  /** An affinity-assistant StatefulSet of `pipelineRun` (it makes no Pod or claim here: no controller runs). */
  async affinityStatefulSet(namespace: string, name: string, pipelineRun: RunOwner, claimTemplate = 'pvc-0123abcd'): Promise<Created> {
    const labels = { 'app.kubernetes.io/component': 'affinity-assistant', 'app.kubernetes.io/instance': name, 'tekton.dev/pipelineRun': pipelineRun.name };
    const created = await this.apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name, namespace, labels, ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: pipelineRun.name, uid: pipelineRun.uid, controller: true, blockOwnerDeletion: true }] },
        spec: {
          replicas: 1,
          serviceName: '',
          selector: { matchLabels: { 'app.kubernetes.io/instance': name } },
          template: { metadata: { labels }, spec: { containers: [{ name: 'affinity-assistant', image: 'nginx' }] } },
          volumeClaimTemplates: [{ metadata: { name: claimTemplate }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      },
    });
    return identity(created.metadata);
  }

  /** The claim the StatefulSet controller would make for ordinal 0: `<template>-<sts>-0`, the StatefulSet's labels, no owner. */
  async affinityClaim(namespace: string, statefulSet: string, pipelineRun: string, claimTemplate = 'pvc-0123abcd'): Promise<Created> {
    const created = await this.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: {
          name: `${claimTemplate}-${statefulSet}-0`,
          namespace,
          labels: { 'app.kubernetes.io/component': 'affinity-assistant', 'app.kubernetes.io/instance': statefulSet, 'tekton.dev/pipelineRun': pipelineRun },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    return identity(created.metadata);
  }

  /** A Pod on a node that mounts `claims`, with `phase` written through /status. */
  async pod(namespace: string, name: string, claims: readonly string[], phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed'): Promise<void> {
    await this.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name, namespace },
        spec: {
          nodeName: 'node-1',
          containers: [{ name: 'step-build', image: 'busybox', volumeMounts: claims.map((claim, index) => ({ name: `ws-${index}`, mountPath: `/workspace/${index}` })) }],
          volumes: claims.map((claim, index) => ({ name: `ws-${index}`, persistentVolumeClaim: { claimName: claim } })),
        },
      },
    });
    await this.core.patchNamespacedPodStatus({ name, namespace, body: [{ op: 'replace', path: '/status/phase', value: phase }] });
  }

  async deletePod(namespace: string, name: string): Promise<void> {
    await this.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
  }

  async labelClaim(namespace: string, name: string, labels: Record<string, string>): Promise<void> {
    const current = await this.core.readNamespacedPersistentVolumeClaim({ name, namespace });
    const ops = Object.entries(labels).map(([key, value]) => ({ op: 'add', path: `/metadata/labels/${pointer(key)}`, value }));
    await this.core.patchNamespacedPersistentVolumeClaim({ name, namespace, body: current.metadata?.labels === undefined ? [{ op: 'add', path: '/metadata/labels', value: labels }] : ops });
  }

  /** Deletes a claim and removes every finalizer, as kube-controller-manager and others would in time: it is gone. */
  async removeClaim(namespace: string, name: string): Promise<void> {
    await this.core.deleteNamespacedPersistentVolumeClaim({ name, namespace });
    await this.dropFinalizers(namespace, name);
  }

  /** Removes every finalizer of a claim (one left Terminating by a test). */
  async dropFinalizers(namespace: string, name: string): Promise<void> {
    await this.core.patchNamespacedPersistentVolumeClaim({ name, namespace, body: [{ op: 'remove', path: '/metadata/finalizers' }] });
  }

  /** The claim as the server has it now; null once it is gone (404). */
  async claimNow(namespace: string, name: string): Promise<{ deletionTimestamp?: string; finalizers: string[] } | null> {
    try {
      const claim = await this.core.readNamespacedPersistentVolumeClaim({ name, namespace });
      return { ...(claim.metadata?.deletionTimestamp !== undefined && { deletionTimestamp: String(claim.metadata.deletionTimestamp) }), finalizers: claim.metadata?.finalizers ?? [] };
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  }

  /** Names of the claims, Secrets and StatefulSets left in a namespace, each sorted. */
  async remaining(namespace: string): Promise<{ claims: string[]; secrets: string[]; statefulSets: string[] }> {
    const claims = await this.core.listNamespacedPersistentVolumeClaim({ namespace });
    const secrets = await this.core.listNamespacedSecret({ namespace });
    const statefulSets = await this.apps.listNamespacedStatefulSet({ namespace });
    const names = (items: readonly { metadata?: { name?: string; deletionTimestamp?: unknown } }[]): string[] => items.map((item) => item.metadata?.name ?? '').sort();
    return { claims: names(claims.items), secrets: names(secrets.items), statefulSets: names(statefulSets.items) };
  }
}

function identity(metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } | undefined): Created {
  return { name: metadata?.name ?? '', namespace: metadata?.namespace ?? '', uid: metadata?.uid ?? '', resourceVersion: metadata?.resourceVersion ?? '' };
}

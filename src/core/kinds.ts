/**
 * The kinds the collector reads and deletes, and where a run names a target, as data.
 * Facts from Tekton's sources, written down in docs/spec.md ("Supported clusters", and
 * "Reference" under "Words"). Another target kind, run version or place a run names a target is a new
 * entry here, not new logic.
 */
import type { RunKindName } from './types.js';

/** A field path from the root of an object (or of a parsed annotation), one key per level. */
export type FieldPath = readonly string[];

/** A served API resource: enough to build its list and delete URLs. */
export interface ApiKind {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

/** The objects the collector deletes. Namespaced; only v1alpha1 was ever served. */
export const TARGET_KIND = {
  group: 'tekton.dev',
  version: 'v1alpha1',
  plural: 'pipelineresources',
  kind: 'PipelineResource',
} as const satisfies ApiKind;

/**
 * Inside each binding (`{name, resourceRef, resourceSpec}`) the target's name sits at
 * `resourceRef.name`; `name` is the Pipeline's or Task's slot name, and `resourceSpec`
 * embeds a resource instead of naming one.
 */
export const BINDING_REFERENCE = { object: 'resourceRef', name: 'name' } as const;

/**
 * The v1 view of Tekton v0.43-v0.45 has no `spec.resources`; the conversion keeps the
 * v1beta1 bindings as JSON in this annotation.
 */
export const V1BETA1_RESOURCES_ANNOTATION = 'tekton.dev/v1beta1Resources';

/** One place where a run may hold lists of bindings: paths from the object, or from the parsed annotation. */
export type BindingSource =
  | { from: 'spec'; lists: readonly FieldPath[] }
  | { from: 'annotation'; key: string; lists: readonly FieldPath[] };

export interface RunKind {
  kind: RunKindName;
  group: string;
  plural: string;
  /**
   * The versions to read through, most preferred first. The version only picks the endpoint
   * to list from: what a run names is read from `bindings` whatever the version.
   */
  versions: readonly string[];
  /**
   * Every place a run of this kind may name a target, in any version. All are read and the
   * references found are united (see RUN_KINDS for why).
   */
  bindings: readonly BindingSource[];
  /** The kind of run that owns runs of this kind (its ownerReference), if any. */
  parentKind?: RunKindName;
}

/**
 * Why every place, whatever the version read through: one version shows one shape only when
 * Tekton's conversion webhook rewrites objects between versions. Where nothing converts (a
 * test control plane, whose CRDs use `conversion: None`; a cluster whose webhook is broken or
 * was removed on upgrade: docs/spec.md, "Supported clusters"), an object comes
 * back as it was stored: a TaskRun created through v1alpha1 in the legacy shape still shows
 * `spec.inputs.resources` through v1beta1, and a run created through v1 shows only the
 * annotation. Missing either would let an active run's target be deleted. A path that is
 * absent costs nothing, and a reference found anywhere counts; a wrong shape anywhere still
 * makes the run's references unknown.
 *
 * The places (docs/spec.md, "Reference"):
 * - PipelineRun: `spec.resources[]` (v1alpha1, v1beta1); the annotation holds that array (v1).
 * - TaskRun: `spec.resources.{inputs,outputs}[]` (v1beta1, v1alpha1 from v0.11); the legacy
 *   `spec.{inputs,outputs}.resources[]` (v1alpha1 before v0.11, and still accepted after);
 *   the annotation holds `{inputs, outputs}` (v1).
 *
 * Versions: v1beta1 first (it shows `spec.resources` on every Tekton that serves it and
 * converts), then v1alpha1 (Tekton up to v0.37), and v1 as a last resort.
 */
export const RUN_KINDS: Readonly<Record<RunKindName, RunKind>> = {
  PipelineRun: {
    kind: 'PipelineRun',
    group: 'tekton.dev',
    plural: 'pipelineruns',
    versions: ['v1beta1', 'v1alpha1', 'v1'],
    bindings: [
      { from: 'spec', lists: [['spec', 'resources']] },
      // The annotation is the PipelineRun's `spec.resources` itself: an array of bindings.
      { from: 'annotation', key: V1BETA1_RESOURCES_ANNOTATION, lists: [[]] },
    ],
    // A pipeline-in-pipeline child carries one ownerReference to its parent PipelineRun
    // (controller: true; tektoncd/pipeline pkg/reconciler/pipelinerun/pipelinerun.go:1209-1217,
    // createChildPipelineRun).
    parentKind: 'PipelineRun',
  },
  TaskRun: {
    kind: 'TaskRun',
    group: 'tekton.dev',
    plural: 'taskruns',
    versions: ['v1beta1', 'v1alpha1', 'v1'],
    bindings: [
      {
        from: 'spec',
        lists: [
          ['spec', 'resources', 'inputs'],
          ['spec', 'resources', 'outputs'],
          // Legacy v1alpha1 shape: without a webhook it shows through v1beta1 too.
          ['spec', 'inputs', 'resources'],
          ['spec', 'outputs', 'resources'],
        ],
      },
      // The annotation is the TaskRun's `spec.resources`: `{inputs, outputs}`.
      { from: 'annotation', key: V1BETA1_RESOURCES_ANNOTATION, lists: [['inputs'], ['outputs']] },
    ],
    // A PipelineRun's TaskRuns carry one ownerReference to it (controller: true).
    parentKind: 'PipelineRun',
  },
};

export const RUN_KIND_NAMES: readonly RunKindName[] = ['PipelineRun', 'TaskRun'];

export function isRunKindName(kind: string): kind is RunKindName {
  return (RUN_KIND_NAMES as readonly string[]).includes(kind);
}

/**
 * The version to read a run kind through, given the versions the server serves; undefined
 * when it serves none of them. Any served version gives the same references.
 */
export function preferredRunVersion(kind: RunKindName, servedVersions: readonly string[]): string | undefined {
  return RUN_KINDS[kind].versions.find((version) => servedVersions.includes(version));
}

/** A kind a run owns, as the retained-object lists read it (kube/cluster.ts listRetainedOwned). */
export interface RunOwnedKind {
  kind: string;
  api: { group: string; version: string; plural: string };
}

/**
 * The kinds whose objects a Tekton run owns (its ownerReference, or its TaskRun's or its
 * child PipelineRun's), beside the runs themselves, and so that Kubernetes' garbage collector
 * deletes with it (docs/spec.md, "What goes with a run"):
 * - Pod: a TaskRun's (tektoncd/pipeline pkg/pod/pod.go:534, NewControllerRef(taskRun));
 * - PersistentVolumeClaim: a workspace's volumeClaimTemplate, owned by the run that binds it
 *   (pkg/reconciler/volumeclaim/pvchandler.go:157); a claim an affinity assistant's StatefulSet
 *   makes from its own template has no ownerReference from Tekton, which deletes it itself;
 * - StatefulSet: an affinity assistant, owned by its PipelineRun (pkg/reconciler/pipelinerun/affinity_assistant.go:423);
 * - ResolutionRequest: owned by the run whose ref it resolves (pkg/resolution/resource/crd_resource.go:119, :123-132);
 * - Secret: Pipelines-as-Code's git-auth Secret, owned by its PipelineRun (collectors.ts `pac-secrets`).
 * Runs (child TaskRuns and PipelineRuns) are read from the run listing itself. CustomRuns
 * (pipelinerun.go:1539) are not read.
 */
export const RUN_OWNED_KINDS: readonly RunOwnedKind[] = [
  { kind: 'Pod', api: { group: '', version: 'v1', plural: 'pods' } },
  { kind: 'PersistentVolumeClaim', api: { group: '', version: 'v1', plural: 'persistentvolumeclaims' } },
  { kind: 'Secret', api: { group: '', version: 'v1', plural: 'secrets' } },
  { kind: 'StatefulSet', api: { group: 'apps', version: 'v1', plural: 'statefulsets' } },
  { kind: 'ResolutionRequest', api: { group: 'resolution.tekton.dev', version: 'v1beta1', plural: 'resolutionrequests' } },
];

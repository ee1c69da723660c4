/**
 * The kinds the collector reads and deletes, and where a run names a target, as data.
 * Facts from ../../shared/TEKTON.md ("Versions a cluster may have", "Where a run names a
 * PipelineResource"). Another target kind or run version is a new entry here, not new logic.
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

/** Where one served version of a run holds its lists of bindings. */
export type BindingSource =
  | { from: 'spec'; lists: readonly FieldPath[] }
  | { from: 'annotation'; key: string; lists: readonly FieldPath[] };

export interface RunVersion {
  version: string;
  bindings: BindingSource;
}

export interface RunKind {
  kind: RunKindName;
  group: string;
  plural: string;
  /** The versions to read through, most preferred first. */
  versions: readonly RunVersion[];
  /** The kind of run that owns runs of this kind (its ownerReference), if any. */
  parentKind?: RunKindName;
}

const PIPELINE_RUN_BINDINGS: readonly FieldPath[] = [['spec', 'resources']];
const TASK_RUN_BINDINGS: readonly FieldPath[] = [
  ['spec', 'resources', 'inputs'],
  ['spec', 'resources', 'outputs'],
];
/** TaskRun v1alpha1 before v0.11; v1alpha1 kept accepting it after v1beta1's shape arrived. */
const TASK_RUN_LEGACY_BINDINGS: readonly FieldPath[] = [
  ['spec', 'inputs', 'resources'],
  ['spec', 'outputs', 'resources'],
];

/**
 * v1beta1 first (it shows `spec.resources` on every Tekton that serves it), then v1alpha1
 * (Tekton up to v0.37), and v1 only as a last resort, where the bindings are in the annotation.
 */
export const RUN_KINDS: Readonly<Record<RunKindName, RunKind>> = {
  PipelineRun: {
    kind: 'PipelineRun',
    group: 'tekton.dev',
    plural: 'pipelineruns',
    versions: [
      { version: 'v1beta1', bindings: { from: 'spec', lists: PIPELINE_RUN_BINDINGS } },
      { version: 'v1alpha1', bindings: { from: 'spec', lists: PIPELINE_RUN_BINDINGS } },
      // The annotation holds the PipelineRun's `spec.resources`: an array of bindings.
      { version: 'v1', bindings: { from: 'annotation', key: V1BETA1_RESOURCES_ANNOTATION, lists: [[]] } },
    ],
  },
  TaskRun: {
    kind: 'TaskRun',
    group: 'tekton.dev',
    plural: 'taskruns',
    versions: [
      { version: 'v1beta1', bindings: { from: 'spec', lists: TASK_RUN_BINDINGS } },
      { version: 'v1alpha1', bindings: { from: 'spec', lists: [...TASK_RUN_BINDINGS, ...TASK_RUN_LEGACY_BINDINGS] } },
      // The annotation holds the TaskRun's `spec.resources`: `{inputs, outputs}`.
      {
        version: 'v1',
        bindings: { from: 'annotation', key: V1BETA1_RESOURCES_ANNOTATION, lists: [['inputs'], ['outputs']] },
      },
    ],
    // A PipelineRun's TaskRuns carry one ownerReference to it (TEKTON.md "Child TaskRuns").
    parentKind: 'PipelineRun',
  },
};

export const RUN_KIND_NAMES: readonly RunKindName[] = ['PipelineRun', 'TaskRun'];

export function isRunKindName(kind: string): kind is RunKindName {
  return (RUN_KIND_NAMES as readonly string[]).includes(kind);
}

/** How a run of this kind read through `version` holds its bindings; undefined for a version not read. */
export function runVersion(kind: RunKindName, version: string): RunVersion | undefined {
  return RUN_KINDS[kind].versions.find((candidate) => candidate.version === version);
}

/** The version to read a run kind through, given the versions the server serves. */
export function preferredRunVersion(kind: RunKindName, servedVersions: readonly string[]): RunVersion | undefined {
  return RUN_KINDS[kind].versions.find((candidate) => servedVersions.includes(candidate.version));
}

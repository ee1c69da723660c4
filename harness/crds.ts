// Tekton's CRDs as test control planes install them, written from Tekton's own CRD files
// (tektoncd/pipeline, config/*.yaml at the releases named) and docs/spec.md's table of versions.
// Tekton converts runs between versions with its webhook; a test control plane has none,
// so every CRD here converts with `None` (the server only rewrites apiVersion) and stores
// exactly one version, the one Tekton stored at that release.
import type { V1CustomResourceDefinition, V1CustomResourceDefinitionVersion } from '@kubernetes/client-node';

export const TEKTON_GROUP = 'tekton.dev';

export type CrdSetName = 'v0.37' | 'v0.45' | 'upgraded' | 'none';
export const CRD_SET_NAMES: readonly CrdSetName[] = ['v0.37', 'v0.45', 'upgraded', 'none'];

/** Where Tekton's ResolutionRequests are served (v0.46 on): the group, its one version, the plural. */
export const RESOLUTION = { group: 'resolution.tekton.dev', version: 'v1beta1', plural: 'resolutionrequests' } as const;

interface ServedVersion {
  name: string;
  storage: boolean;
}

interface KindNames {
  plural: string;
  singular: string;
  kind: string;
  shortNames?: string[];
}

const PIPELINE_RESOURCE: KindNames = { plural: 'pipelineresources', singular: 'pipelineresource', kind: 'PipelineResource' };
const PIPELINE_RUN: KindNames = { plural: 'pipelineruns', singular: 'pipelinerun', kind: 'PipelineRun', shortNames: ['pr', 'prs'] };
const TASK_RUN: KindNames = { plural: 'taskruns', singular: 'taskrun', kind: 'TaskRun', shortNames: ['tr', 'trs'] };
const RESOLUTION_REQUEST: KindNames = { plural: RESOLUTION.plural, singular: 'resolutionrequest', kind: 'ResolutionRequest' };

/** The printer columns Tekton declares on runs, so `kubectl get pipelineruns` looks as it does there. */
const RUN_COLUMNS: V1CustomResourceDefinitionVersion['additionalPrinterColumns'] = [
  { name: 'Succeeded', type: 'string', jsonPath: '.status.conditions[?(@.type=="Succeeded")].status' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Succeeded")].reason' },
  { name: 'StartTime', type: 'date', jsonPath: '.status.startTime' },
  { name: 'CompletionTime', type: 'date', jsonPath: '.status.completionTime' },
];

function crd(names: KindNames, versions: readonly ServedVersion[], printerColumns?: V1CustomResourceDefinitionVersion['additionalPrinterColumns'], group = TEKTON_GROUP): V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}`, labels: { 'app.kubernetes.io/part-of': 'tekton-pipelines' } },
    spec: {
      group,
      scope: 'Namespaced',
      names: { ...names, categories: ['tekton', 'tekton-pipelines'] },
      conversion: { strategy: 'None' },
      versions: versions.map((version) => ({
        name: version.name,
        served: true,
        storage: version.storage,
        // The client's serializer knows this field only by its TypeScript name and drops
        // the YAML spelling, which would leave a schema that prunes every field.
        schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        subresources: { status: {} },
        ...(printerColumns === undefined ? {} : { additionalPrinterColumns: printerColumns }),
      })),
    },
  };
}

// v0.13-v0.37: runs served as v1alpha1 and v1beta1, v1beta1 stored.
const RUNS_V0_37: readonly ServedVersion[] = [
  { name: 'v1alpha1', storage: false },
  { name: 'v1beta1', storage: true },
];
// v0.43 onwards: runs served as v1beta1 (stored) and v1.
const RUNS_V0_45: readonly ServedVersion[] = [
  { name: 'v1beta1', storage: true },
  { name: 'v1', storage: false },
];
const RESOURCES: readonly ServedVersion[] = [{ name: 'v1alpha1', storage: true }];

/** Tekton's ResolutionRequest CRD as far as the collector reads it: served and stored as v1beta1, namespaced, with /status. */
export const RESOLUTION_REQUEST_CRD = crd(RESOLUTION_REQUEST, [{ name: RESOLUTION.version, storage: true }], undefined, RESOLUTION.group);

export const CRD_SETS: Readonly<Record<CrdSetName, readonly V1CustomResourceDefinition[]>> = {
  'v0.37': [crd(PIPELINE_RESOURCE, RESOURCES), crd(PIPELINE_RUN, RUNS_V0_37, RUN_COLUMNS), crd(TASK_RUN, RUNS_V0_37, RUN_COLUMNS)],
  'v0.45': [crd(PIPELINE_RESOURCE, RESOURCES), crd(PIPELINE_RUN, RUNS_V0_45, RUN_COLUMNS), crd(TASK_RUN, RUNS_V0_45, RUN_COLUMNS)],
  // A cluster upgraded from v0.45 to a current Tekton that kept the PipelineResource CRD: v0.45's
  // set, and the ResolutionRequests of remote pipelines and tasks (the demo's two eras in one cluster).
  upgraded: [crd(PIPELINE_RESOURCE, RESOURCES), crd(PIPELINE_RUN, RUNS_V0_45, RUN_COLUMNS), crd(TASK_RUN, RUNS_V0_45, RUN_COLUMNS), RESOLUTION_REQUEST_CRD],
  // v0.46+ dropped the PipelineResource CRD from the release; an upgraded cluster may
  // still have it, this set is one that does not.
  none: [crd(PIPELINE_RUN, RUNS_V0_45, RUN_COLUMNS), crd(TASK_RUN, RUNS_V0_45, RUN_COLUMNS)],
};

export function isCrdSetName(value: string): value is CrdSetName {
  return (CRD_SET_NAMES as readonly string[]).includes(value);
}

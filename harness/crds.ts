// Tekton's CRDs as test control planes install them, written from Tekton's own CRD files
// (tektoncd/pipeline, config/*.yaml at the releases named) and docs/spec.md's table of versions.
// Tekton converts runs between versions with its webhook; a test control plane has none,
// so every CRD here converts with `None` (the server only rewrites apiVersion) and stores
// exactly one version, the one Tekton stored at that release.
import type { V1CustomResourceDefinition, V1CustomResourceDefinitionVersion, V1JSONSchemaProps } from '@kubernetes/client-node';

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

/** A duration as Prometheus reads one: units from years down to milliseconds, each at most once and in that order, or `0`. */
export const PROMETHEUS_DURATION = '^(0|([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?)$';

const STRING_MAP: V1JSONSchemaProps = { type: 'object', additionalProperties: { type: 'string' } };

function objectSchema(required: readonly string[], properties: Record<string, V1JSONSchemaProps>): V1JSONSchemaProps {
  return { type: 'object', required: [...required], properties };
}

/** One rule. It sits below `items`, which the client's model types as any: its keys go as they are, so int-or-string has its YAML spelling. */
const RULE_SCHEMA = objectSchema(['expr'], {
  alert: { type: 'string' },
  record: { type: 'string' },
  expr: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } as V1JSONSchemaProps,
  for: { type: 'string', pattern: PROMETHEUS_DURATION },
  keep_firing_for: { type: 'string', minLength: 1, pattern: PROMETHEUS_DURATION },
  labels: STRING_MAP,
  annotations: STRING_MAP,
});

const RULE_GROUP_SCHEMA = objectSchema(['name'], {
  name: { type: 'string', minLength: 1 },
  interval: { type: 'string', pattern: PROMETHEUS_DURATION },
  query_offset: { type: 'string', pattern: PROMETHEUS_DURATION },
  limit: { type: 'integer' },
  labels: STRING_MAP,
  rules: { type: 'array', items: RULE_SCHEMA },
});

/**
 * The Prometheus Operator's PrometheusRule CRD (monitoring.coreos.com/v1), for the chart's
 * prometheusRule: written from the operator's own CRD file (v0.82), with a structural schema
 * of the rule groups as Prometheus reads them, so that the API server refuses what a cluster
 * with the operator would: an unknown field, a `for` that is no Prometheus duration, a
 * label that is no string, a group without a name.
 */
export const PROMETHEUS_RULE_CRD: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'prometheusrules.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: { plural: 'prometheusrules', singular: 'prometheusrule', kind: 'PrometheusRule', listKind: 'PrometheusRuleList', shortNames: ['promrule'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: objectSchema(['spec'], {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: { type: 'object' },
            spec: {
              type: 'object',
              properties: {
                // Typed fields: the client's serializer knows these by their TypeScript names (see crd() above).
                groups: { type: 'array', x_kubernetes_list_type: 'map', x_kubernetes_list_map_keys: ['name'], items: RULE_GROUP_SCHEMA },
              },
            },
          }),
        },
      },
    ],
  },
};

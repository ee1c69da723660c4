/**
 * Leftovers: which objects are targets (their markers) and the compact records of those that
 * are (docs/spec.md, "Leftovers"). Pure.
 *
 * A marker is checked on the whole object and only its verdict is kept: a record keeps the
 * retention labels and annotations (as a PipelineResource's does), the ownerReferences to
 * tekton.dev runs (the only ones the graph reads) and, in `leftover`, what the rules need.
 * An object without a marker gives null: it is not a target and is not reported. A marked
 * object, or one whose marker cannot be read, of an unexpected shape throws
 * UnreadableObjectError: it is what would be deleted, so the pass stops rather than guess
 * (as for PipelineResources).
 */
import { listAt, nameAt, objectAt, objectPath } from './fields.js';
import { RUN_KIND_NAMES } from './kinds.js';
import { AFFINITY_ASSISTANT_COMPONENT, AFFINITY_ASSISTANT_PREFIX, COMPONENT_LABEL, INSTANCE_LABEL, MANAGED_BY_LABEL, PAC_MANAGED_BY, PAC_SECRET_PREFIX, PIPELINE_RUN_LABEL, RESOLVER_TYPE_LABEL, TEKTON_GROUP } from './labels.js';
import { parseQuantityBytes } from './quantity.js';
import { describeValue, isRecord } from './refs.js';
import { isRetentionKey, readOwnerReferences, requiredMetadata, requiredString, shown, stringMap, UnreadableObjectError } from './runs.js';
import { EMPTY_LIST, type LeftoverMarker, type LeftoverTarget, type OwnerRef, type ReadProblem, type TargetKindName, type TargetRecord } from './types.js';

/** An ownerReference with the apiVersion it was written with. */
type OwnerReference = OwnerRef & { apiVersion: string };

/** What every leftover's record is made from, read strictly. */
interface ReadObject {
  kind: TargetKindName;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  createdAt: string;
  /** All labels: markers read more than the record keeps. */
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  ownerReferences: readonly OwnerReference[];
  deletionTimestamp?: string;
  problems: ReadProblem[];
  /** Problems in what the marker reads (labels, ownerReferences, name): then whether it is a target is unknown. */
  markerUnreadable: boolean;
}

function readObject(obj: unknown, kind: TargetKindName): ReadObject & { metadata: Record<string, unknown> } {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const name = requiredString(metadata, 'name', problems);
  const labels = stringMap(metadata, 'labels', problems);
  const ownerReferences = readOwnerReferences(metadata['ownerReferences'], problems);
  const markerUnreadable = problems.length > 0;
  const read: ReadObject & { metadata: Record<string, unknown> } = {
    metadata,
    kind,
    namespace: requiredString(metadata, 'namespace', problems),
    name,
    uid: requiredString(metadata, 'uid', problems),
    resourceVersion: requiredString(metadata, 'resourceVersion', problems),
    createdAt: requiredString(metadata, 'creationTimestamp', problems),
    labels,
    annotations: stringMap(metadata, 'annotations', problems, isRetentionKey),
    ownerReferences,
    problems,
    markerUnreadable,
  };
  const deletionTimestamp = metadata['deletionTimestamp'];
  if (typeof deletionTimestamp === 'string' && deletionTimestamp !== '') read.deletionTimestamp = deletionTimestamp;
  else if (deletionTimestamp !== undefined && deletionTimestamp !== null) {
    problems.push({ field: 'metadata.deletionTimestamp', problem: `expected a timestamp, found ${shown(deletionTimestamp)}` });
  }
  return read;
}

/** `tekton.dev/<any version>`: the version is ignored, the group is not. */
function isTektonRun(owner: OwnerReference): boolean {
  return owner.apiVersion.startsWith(`${TEKTON_GROUP}/`) && (RUN_KIND_NAMES as readonly string[]).includes(owner.kind);
}

/** The run a claim belongs to as Tekton made it: its controller ownerReference to a tekton.dev PipelineRun or TaskRun. */
function hasControllerRun(read: ReadObject, kinds: readonly string[] = RUN_KIND_NAMES): boolean {
  return read.ownerReferences.some((owner) => owner.controller && isTektonRun(owner) && kinds.includes(owner.kind));
}

/**
 * A claim Tekton's affinity assistant made through its StatefulSet (`<template>-<sts>-0`): no
 * ownerReference (Tekton sets no retention policy on the StatefulSet), the StatefulSet's
 * labels, and the name the StatefulSet controller gives it.
 */
function isAffinityAssistantClaim(read: ReadObject): boolean {
  const instance = read.labels[INSTANCE_LABEL];
  const pipelineRun = read.labels[PIPELINE_RUN_LABEL];
  if (read.ownerReferences.length > 0 || read.labels[COMPONENT_LABEL] !== AFFINITY_ASSISTANT_COMPONENT) return false;
  if (pipelineRun === undefined || pipelineRun === '' || instance === undefined || !instance.startsWith(AFFINITY_ASSISTANT_PREFIX)) return false;
  const suffix = `-${instance}-0`;
  return read.name.length > suffix.length && read.name.endsWith(suffix);
}

/** The marker of a claim: owned by a run, made by an affinity assistant, or none. */
function claimMarker(read: ReadObject): LeftoverMarker | undefined {
  if (hasControllerRun(read)) return 'owned';
  if (isAffinityAssistantClaim(read)) return 'affinity-assistant';
  return undefined;
}

/** The marker of an affinity-assistant StatefulSet: its component label, its name, its PipelineRun controller. */
function statefulSetMarker(read: ReadObject): LeftoverMarker | undefined {
  const marked = read.labels[COMPONENT_LABEL] === AFFINITY_ASSISTANT_COMPONENT && read.name.startsWith(AFFINITY_ASSISTANT_PREFIX) && hasControllerRun(read, ['PipelineRun']);
  return marked ? 'statefulset' : undefined;
}

/** The marker of a Pipelines-as-Code Secret: managed by Pipelines-as-Code, and named as its per-run Secrets are. */
function pacSecretMarker(read: ReadObject): LeftoverMarker | undefined {
  const managedBy = read.labels[MANAGED_BY_LABEL];
  const marked = managedBy !== undefined && PAC_MANAGED_BY.includes(managedBy) && read.name.startsWith(PAC_SECRET_PREFIX) && read.name.length > PAC_SECRET_PREFIX.length;
  return marked ? 'pac-secret' : undefined;
}

/**
 * The marker of a ResolutionRequest: the resolver label Tekton sets on every request, and an
 * ownerReference to a tekton.dev run (the run that asked for it; a request someone made by
 * hand, or another controller's, has none and is not ours).
 */
function resolutionRequestMarker(read: ReadObject): LeftoverMarker | undefined {
  const resolver = read.labels[RESOLVER_TYPE_LABEL];
  return resolver !== undefined && resolver !== '' && read.ownerReferences.some(isTektonRun) ? 'resolution-request' : undefined;
}

/** The record of a read object its marker made a target; throws when any of it could not be read. */
function toLeftoverRecord(read: ReadObject, leftover: LeftoverTarget, more: Pick<TargetRecord, 'finalizers'> = {}): TargetRecord {
  if (read.problems.length > 0) throw new UnreadableObjectError(`${read.kind} ${read.namespace}/${read.name}`, read.problems);
  return {
    kind: read.kind,
    namespace: read.namespace,
    name: read.name,
    uid: read.uid,
    resourceVersion: read.resourceVersion,
    createdAt: read.createdAt,
    labels: Object.fromEntries(Object.entries(read.labels).filter(([key]) => isRetentionKey(key))),
    annotations: read.annotations,
    // The graph reads ownerReferences to runs only: a run of tekton.dev, any version.
    ownerReferences: read.ownerReferences.filter(isTektonRun).map(({ kind, name, uid, controller }) => ({ kind, name, uid, controller })),
    ...(read.deletionTimestamp !== undefined && { deletionTimestamp: read.deletionTimestamp }),
    ...more,
    leftover,
  };
}

/** Null when the marker is certainly absent; throws when whether it is there cannot be read. */
function unmarked(read: ReadObject): null {
  if (read.markerUnreadable) throw new UnreadableObjectError(`${read.kind} ${read.namespace || '(unknown namespace)'}/${read.name || '(unnamed)'}`, read.problems);
  return null;
}

/** A PersistentVolumeClaim Tekton made for a run (workspace-pvcs), or null. */
export function toClaimTarget(obj: unknown): TargetRecord | null {
  const read = readObject(obj, 'PersistentVolumeClaim');
  const marker = claimMarker(read);
  if (marker === undefined) return unmarked(read);
  const finalizers = readFinalizers(read.metadata['finalizers'], read.problems);
  const bytes = claimBytes(obj);
  const inUseCondition = readInUseCondition(obj, read.problems);
  const pipelineRun = read.labels[PIPELINE_RUN_LABEL];
  const leftover: LeftoverTarget = {
    marker,
    ...(marker === 'affinity-assistant' && pipelineRun !== undefined && { pipelineRunLabel: pipelineRun }),
    ...(bytes !== undefined && { bytes }),
    ...(inUseCondition !== undefined && { inUseCondition }),
  };
  return toLeftoverRecord(read, leftover, { finalizers });
}

/** An affinity-assistant StatefulSet (affinity-assistants), or null. */
export function toStatefulSetTarget(obj: unknown): TargetRecord | null {
  const read = readObject(obj, 'StatefulSet');
  const marker = statefulSetMarker(read);
  if (marker === undefined) return unmarked(read);
  const pipelineRun = read.labels[PIPELINE_RUN_LABEL];
  return toLeftoverRecord(read, { marker, ...(pipelineRun !== undefined && pipelineRun !== '' && { pipelineRunLabel: pipelineRun }) });
}

/** A Pipelines-as-Code git-auth Secret (pac-secrets), or null. Reads metadata only: it is listed as metadata. */
export function toPacSecretTarget(obj: unknown): TargetRecord | null {
  const read = readObject(obj, 'Secret');
  const marker = pacSecretMarker(read);
  if (marker === undefined) return unmarked(read);
  return toLeftoverRecord(read, { marker });
}

/** metadata.finalizers, whole and in order: a finalizer is removed by its index, so none is dropped. */
function readFinalizers(value: unknown, problems: ReadProblem[]): readonly string[] {
  if (value === undefined || value === null) return EMPTY_LIST;
  if (!Array.isArray(value)) {
    problems.push({ field: 'metadata.finalizers', problem: `expected an array, found ${describeValue(value)}` });
    return EMPTY_LIST;
  }
  const finalizers: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item === 'string') finalizers.push(item);
    else problems.push({ field: `metadata.finalizers[${index}]`, problem: `expected a string, found ${describeValue(item)}` });
  });
  return finalizers.length === 0 ? EMPTY_LIST : finalizers;
}

/** The condition type Kubernetes 1.37 sets on claims (KEP-5541): `False` (`PodUsingPVC`) while a Pod that has not terminated uses it. */
const UNUSED_CONDITION = 'Unused';

/**
 * The claim's `Unused` condition when it is `False`, with its reason and lastTransitionTime
 * (absent, null or empty: not written). Read strictly, as holders are: a condition that cannot
 * be read may be the one that says a Pod uses the claim. Only `False` is kept: `True` and
 * `Unknown` leave the decision to the Pod list, as a claim without the condition does.
 */
function readInUseCondition(obj: unknown, problems: ReadProblem[]): LeftoverTarget['inUseCondition'] {
  const status = objectPath(obj, ['status'], '', problems);
  let found: LeftoverTarget['inUseCondition'];
  listAt(status?.['conditions'], 'status.conditions', problems).forEach((item: unknown, index) => {
    const field = `status.conditions[${index}]`;
    const condition = objectAt(item, field, problems);
    if (condition === undefined) return;
    const type = nameAt(condition, 'type', field, problems);
    if (type !== UNUSED_CONDITION || nameAt(condition, 'status', field, problems) !== 'False') return;
    const reason = nameAt(condition, 'reason', field, problems);
    const since = nameAt(condition, 'lastTransitionTime', field, problems);
    found ??= { ...(reason !== undefined && { reason }), ...(since !== undefined && { since }) };
  });
  return found;
}

/**
 * The claim's size: `status.capacity.storage` (what was provisioned; providers round requests
 * up), else `spec.resources.requests.storage`. A quantity that cannot be read gives no size,
 * and the next source is tried: a size is shown, never decided on.
 */
function claimBytes(obj: unknown): LeftoverTarget['bytes'] {
  const sources: [NonNullable<LeftoverTarget['bytes']>['from'], readonly string[]][] = [
    ['capacity', ['status', 'capacity', 'storage']],
    ['request', ['spec', 'resources', 'requests', 'storage']],
  ];
  for (const [from, path] of sources) {
    const text = valueAt(obj, path);
    const value = typeof text === 'string' ? parseQuantityBytes(text) : undefined;
    if (value !== undefined) return { value, from };
  }
  return undefined;
}

/** The value at `path` through objects, undefined where a step is not an object. */
export function valueAt(obj: unknown, path: readonly string[]): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** A ResolutionRequest a run owns (resolution-requests), or null. Reads metadata only: it is listed as metadata, its resolved data never read. */
export function toResolutionRequestTarget(obj: unknown): TargetRecord | null {
  const read = readObject(obj, 'ResolutionRequest');
  const marker = resolutionRequestMarker(read);
  if (marker === undefined) return unmarked(read);
  return toLeftoverRecord(read, { marker });
}

/**
 * What may hold a leftover (docs/spec.md, "Leftovers", rules 7 and 8): the compact records of
 * Pods and StatefulSets, keeping only the claims and Secrets they name. Pure.
 *
 * Read strictly, as targets are: a Pod or StatefulSet whose shape cannot be read could hold
 * any claim or Secret of its namespace, so UnreadableObjectError stops the pass rather than
 * let a claim in use look free.
 */
import { listAt, nameAt, objectAt, objectPath, sortedNames } from './fields.js';
import { AFFINITY_ASSISTANT_COMPONENT, AFFINITY_ASSISTANT_PREFIX, COMPONENT_LABEL } from './labels.js';
import { describeValue } from './refs.js';
import { projectedSecrets } from './runlinks.js';
import { requiredMetadata, requiredString, shown, stringMap, UnreadableObjectError } from './runs.js';
import { EMPTY_LIST, type PodRecord, type ReadProblem, type StatefulSetRecord } from './types.js';

/** The containers of a Pod spec, each of which may read Secrets through its environment. */
const CONTAINER_LISTS: readonly string[] = ['containers', 'initContainers', 'ephemeralContainers'];

/**
 * More replicas than this and a StatefulSet's claim names are not spelled out (each is a string
 * per ordinal); the pass stops instead. Tekton's affinity assistants have one.
 */
export const MAX_ENUMERATED_REPLICAS = 100_000;

/** A Pod as what may use claims and Secrets. Throws UnreadableObjectError on a malformed object. */
export function toPodRecord(obj: unknown): PodRecord {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const namespace = requiredString(metadata, 'namespace', problems);
  const name = requiredString(metadata, 'name', problems);
  const spec = objectPath(obj, ['spec'], '', problems) ?? {};
  const claims: string[] = [];
  const secrets: string[] = [];
  listAt(spec['volumes'], 'spec.volumes', problems).forEach((item: unknown, index) => {
    const field = `spec.volumes[${index}]`;
    const volume = objectAt(item, field, problems);
    if (volume === undefined) return;
    const claim = objectAt(volume['persistentVolumeClaim'], `${field}.persistentVolumeClaim`, problems);
    const claimName = claim && nameAt(claim, 'claimName', `${field}.persistentVolumeClaim`, problems);
    if (claimName !== undefined) claims.push(claimName);
    const secret = objectAt(volume['secret'], `${field}.secret`, problems);
    const secretName = secret && nameAt(secret, 'secretName', `${field}.secret`, problems);
    if (secretName !== undefined) secrets.push(secretName);
    secrets.push(...projectedSecrets(volume['projected'], `${field}.projected`, problems));
  });
  for (const list of CONTAINER_LISTS) {
    listAt(spec[list], `spec.${list}`, problems).forEach((item: unknown, index) => {
      secrets.push(...containerSecrets(item, `spec.${list}[${index}]`, problems));
    });
  }
  const phase = readPhase(obj, problems);
  if (problems.length > 0) throw new UnreadableObjectError(`Pod ${namespace}/${name}`, problems);
  return {
    namespace,
    name,
    ...(phase !== undefined && { phase }),
    claims: sortedNames(claims, EMPTY_LIST),
    secrets: sortedNames(secrets, EMPTY_LIST),
  };
}

/** `env[].valueFrom.secretKeyRef.name` and `envFrom[].secretRef.name`. */
function containerSecrets(item: unknown, field: string, problems: ReadProblem[]): string[] {
  const container = objectAt(item, field, problems);
  if (container === undefined) return [];
  const names: string[] = [];
  listAt(container['env'], `${field}.env`, problems).forEach((env: unknown, index) => {
    const at = `${field}.env[${index}]`;
    const ref = objectPath(env, ['valueFrom', 'secretKeyRef'], at, problems);
    const name = ref && nameAt(ref, 'name', `${at}.valueFrom.secretKeyRef`, problems);
    if (name !== undefined) names.push(name);
  });
  listAt(container['envFrom'], `${field}.envFrom`, problems).forEach((source: unknown, index) => {
    const at = `${field}.envFrom[${index}]`;
    const ref = objectPath(source, ['secretRef'], at, problems);
    const name = ref && nameAt(ref, 'name', `${at}.secretRef`, problems);
    if (name !== undefined) names.push(name);
  });
  return names;
}

/** status.phase; absent (a Pod not yet seen by the scheduler or kubelet) stays absent and counts as active. */
function readPhase(obj: unknown, problems: ReadProblem[]): string | undefined {
  const status = objectPath(obj, ['status'], '', problems);
  if (status === undefined) return undefined;
  const phase = status['phase'];
  if (phase === undefined || phase === null || phase === '') return undefined;
  if (typeof phase === 'string') return phase;
  problems.push({ field: 'status.phase', problem: `expected a string, found ${describeValue(phase)}` });
  return undefined;
}

/**
 * A StatefulSet as what may name claims: those its Pod template mounts, and those its
 * volumeClaimTemplates make, `<template>-<statefulset>-<ordinal>` for each ordinal below
 * `spec.replicas` (1 when unset, as the API server defaults it). Throws UnreadableObjectError on a
 * malformed object.
 */
export function toStatefulSetRecord(obj: unknown): StatefulSetRecord {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const namespace = requiredString(metadata, 'namespace', problems);
  const name = requiredString(metadata, 'name', problems);
  const uid = requiredString(metadata, 'uid', problems);
  const labels = stringMap(metadata, 'labels', problems);
  const spec = objectPath(obj, ['spec'], '', problems) ?? {};
  const replicas = readReplicas(spec['replicas'], problems);
  const claims: string[] = [];
  const podSpec = objectPath(spec, ['template', 'spec'], 'spec', problems) ?? {};
  listAt(podSpec['volumes'], 'spec.template.spec.volumes', problems).forEach((item: unknown, index) => {
    const field = `spec.template.spec.volumes[${index}]`;
    const claim = objectPath(item, ['persistentVolumeClaim'], field, problems);
    const claimName = claim && nameAt(claim, 'claimName', `${field}.persistentVolumeClaim`, problems);
    if (claimName !== undefined) claims.push(claimName);
  });
  listAt(spec['volumeClaimTemplates'], 'spec.volumeClaimTemplates', problems).forEach((item: unknown, index) => {
    const field = `spec.volumeClaimTemplates[${index}]`;
    const template = objectPath(item, ['metadata'], field, problems);
    const templateName = template && nameAt(template, 'name', `${field}.metadata`, problems);
    if (templateName === undefined) return;
    for (let ordinal = 0; ordinal < replicas; ordinal++) claims.push(`${templateName}-${name}-${ordinal}`);
  });
  if (problems.length > 0) throw new UnreadableObjectError(`StatefulSet ${namespace}/${name}`, problems);
  return {
    namespace,
    name,
    uid,
    isAffinityAssistant: labels[COMPONENT_LABEL] === AFFINITY_ASSISTANT_COMPONENT && name.startsWith(AFFINITY_ASSISTANT_PREFIX),
    claims: sortedNames(claims, EMPTY_LIST),
  };
}

function readReplicas(value: unknown, problems: ReadProblem[]): number {
  if (value === undefined || value === null) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    problems.push({ field: 'spec.replicas', problem: `expected a whole number of replicas, found ${shown(value)}` });
    return 0;
  }
  if (value > MAX_ENUMERATED_REPLICAS) {
    problems.push({ field: 'spec.replicas', problem: `${value} replicas: more claim names than the collector spells out (at most ${MAX_ENUMERATED_REPLICAS})` });
    return 0;
  }
  return value;
}

/**
 * What may hold a leftover (docs/spec.md, "Leftovers", rules 7 and 8): the compact records of
 * Pods and StatefulSets, keeping only the claims and Secrets they name. Pure.
 *
 * Read strictly, as targets are: a Pod or StatefulSet whose shape cannot be read could hold
 * any claim or Secret of its namespace, so UnreadableObjectError stops the pass rather than
 * let a claim in use look free.
 */
import { listAt, nameAt, objectAt, objectPath, sortedNames } from './fields.js';
import { describeValue } from './refs.js';
import { projectedSecrets } from './runlinks.js';
import { requiredMetadata, requiredString, UnreadableObjectError } from './runs.js';
import { EMPTY_LIST, type PodRecord, type ReadProblem, type StatefulSetRecord } from './types.js';

/** The containers of a Pod spec, each of which may read Secrets through its environment. */
const CONTAINER_LISTS: readonly string[] = ['containers', 'initContainers', 'ephemeralContainers'];

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
 * A StatefulSet as what may name claims: those its Pod template mounts, and, for each of its
 * volumeClaimTemplates, `<template>-<statefulset>-<ordinal>` for every ordinal. Not only those
 * below `spec.replicas` from `spec.ordinals.start`: scaled down (to 0 too), a StatefulSet keeps
 * the claims of the ordinals it dropped (persistentVolumeClaimRetentionPolicy whenScaled: Retain,
 * the default) and its Pods mount them again when it is scaled up, so it still needs them. Throws
 * UnreadableObjectError on a malformed object.
 */
export function toStatefulSetRecord(obj: unknown): StatefulSetRecord {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const namespace = requiredString(metadata, 'namespace', problems);
  const name = requiredString(metadata, 'name', problems);
  const uid = requiredString(metadata, 'uid', problems);
  const spec = objectPath(obj, ['spec'], '', problems) ?? {};
  const claims: string[] = [];
  const podSpec = objectPath(spec, ['template', 'spec'], 'spec', problems) ?? {};
  listAt(podSpec['volumes'], 'spec.template.spec.volumes', problems).forEach((item: unknown, index) => {
    const field = `spec.template.spec.volumes[${index}]`;
    const claim = objectPath(item, ['persistentVolumeClaim'], field, problems);
    const claimName = claim && nameAt(claim, 'claimName', `${field}.persistentVolumeClaim`, problems);
    if (claimName !== undefined) claims.push(claimName);
  });
  const stems: string[] = [];
  listAt(spec['volumeClaimTemplates'], 'spec.volumeClaimTemplates', problems).forEach((item: unknown, index) => {
    const field = `spec.volumeClaimTemplates[${index}]`;
    const template = objectPath(item, ['metadata'], field, problems);
    const templateName = template && nameAt(template, 'name', `${field}.metadata`, problems);
    if (templateName !== undefined) stems.push(`${templateName}-${name}`);
  });
  if (problems.length > 0) throw new UnreadableObjectError(`StatefulSet ${namespace}/${name}`, problems);
  return { namespace, name, uid, claims: sortedNames(claims, EMPTY_LIST), claimStems: sortedNames(stems, EMPTY_LIST) };
}

/** `-<ordinal>` at the end of a claim's name. */
const ORDINAL_SUFFIX = /-\d+$/;

/**
 * The stem of a claim a StatefulSet's volumeClaimTemplate would make, `<template>-<statefulset>`
 * of `<template>-<statefulset>-<ordinal>`; undefined for a name that does not end in an ordinal.
 * Any run of digits counts (the controller writes none with leading zeros): naming too many
 * claims only keeps more.
 */
export function claimStem(claim: string): string | undefined {
  const match = ORDINAL_SUFFIX.exec(claim);
  return match === null ? undefined : claim.slice(0, match.index);
}

/**
 * A run's own state (docs/spec.md, "Finished run" and "Run state"),
 * and the compact records the adapter keeps from each listed object.
 *
 * Runs are read defensively and never throw: whatever is malformed is recorded as a
 * ReadProblem and errs towards keeping targets (an unreadable status counts as running,
 * unreadable references make the namespace unreadable). Targets and namespaces are read
 * strictly instead: a target is what would be deleted, and a namespace's labels can retain
 * it, so an object of an unexpected shape there throws UnreadableObjectError and the pass
 * must stop rather than guess (docs/spec.md, "Deleting safely": a partial view is never taken for the whole).
 */
import { RUN_KINDS } from './kinds.js';
import { describeValue, extractReferences, isRecord } from './refs.js';
import { isRetentionKey, parseTimestampMs } from './retention.js';
import { readLeftoverLinks } from './runlinks.js';
import { releasedRequestName } from './resolution.js';

export { isRetentionKey } from './retention.js';
import { EMPTY_LIST, type LinkState, type NamespaceRecord, type OwnerRef, type ReadProblem, type RunKindName, type RunRecord, type RunState, type TargetRecord } from './types.js';

/** Reasons of a finished run that was stopped rather than left to succeed or fail. */
export const CANCELLED_REASONS: ReadonlySet<string> = new Set([
  'Cancelled',
  'PipelineRunCancelled',
  'TaskRunCancelled',
  'StoppedRunFinally',
  'CancelledRunFinally',
]);

/** `spec.status` of a run that has not started (v0.21+). */
export const PENDING_SPEC_STATUS = 'PipelineRunPending';

/** Pending and running runs resolve their targets on every reconcile; the others are finished, and a gone owner is no run at all. */
export function isActive(state: LinkState): boolean {
  switch (state) {
    case 'pending':
    case 'running':
      return true;
    case 'succeeded':
    case 'failed':
    case 'cancelled':
    case 'gone':
      return false;
  }
}

export interface RunStateReading {
  state: RunState;
  /** status.completionTime, only when the run is finished. */
  finishedAt?: string;
  problems: readonly ReadProblem[];
}

/**
 * Finished = condition `Succeeded` is `True` or `False` and `status.completionTime` is set
 * (`False` without it is a non-permanent error: a retry may follow). Otherwise pending when
 * `spec.status` asks for it, else running. Malformed status: running, with the problem.
 */
export function readRunState(run: unknown): RunStateReading {
  const problems: ReadProblem[] = [];
  const finished = readFinished(run, problems);
  if (problems.length > 0) return { state: 'running', problems };
  // Field by field, not `{ ...finished, problems }`: that makes a hidden class for each of the pass's runs (types.ts amendDecision).
  if (finished !== undefined) return { state: finished.state, finishedAt: finished.finishedAt, problems };
  return { state: isPendingRequested(run) ? 'pending' : 'running', problems };
}

function isPendingRequested(run: unknown): boolean {
  return isRecord(run) && isRecord(run['spec']) && run['spec']['status'] === PENDING_SPEC_STATUS;
}

/** The finished state and completion time, or undefined while the run is active. */
function readFinished(run: unknown, problems: ReadProblem[]): { state: RunState; finishedAt: string } | undefined {
  const status = optionalRecord(isRecord(run) ? run['status'] : undefined, 'status', problems);
  if (status === undefined) return undefined;
  const succeeded = findSucceededCondition(status['conditions'], problems);
  if (succeeded === undefined) return undefined;
  const conditionStatus = succeeded.condition['status'];
  if (conditionStatus !== 'True' && conditionStatus !== 'False') {
    if (conditionStatus !== 'Unknown') {
      problems.push({ field: `${succeeded.field}.status`, problem: `expected "True", "False" or "Unknown", found ${shown(conditionStatus)}` });
    }
    return undefined;
  }
  const finishedAt = readCompletionTime(status['completionTime'], problems);
  if (finishedAt === undefined) return undefined;
  return { state: finishedState(conditionStatus, succeeded.condition['reason']), finishedAt };
}

function finishedState(conditionStatus: 'True' | 'False', reason: unknown): RunState {
  if (typeof reason === 'string' && CANCELLED_REASONS.has(reason)) return 'cancelled';
  return conditionStatus === 'True' ? 'succeeded' : 'failed';
}

function findSucceededCondition(
  conditions: unknown,
  problems: ReadProblem[],
): { condition: Record<string, unknown>; field: string } | undefined {
  if (conditions === undefined || conditions === null) return undefined;
  if (!Array.isArray(conditions)) {
    problems.push({ field: 'status.conditions', problem: `expected an array, found ${describeValue(conditions)}` });
    return undefined;
  }
  let succeeded: { condition: Record<string, unknown>; field: string } | undefined;
  conditions.forEach((condition: unknown, index) => {
    const field = `status.conditions[${index}]`;
    const readable = optionalRecord(condition, field, problems);
    if (succeeded === undefined && readable?.['type'] === 'Succeeded') succeeded = { condition: readable, field };
  });
  return succeeded;
}

function readCompletionTime(value: unknown, problems: ReadProblem[]): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || parseTimestampMs(value) === undefined) {
    problems.push({ field: 'status.completionTime', problem: `expected a timestamp such as 2026-11-29T10:00:00Z, found ${shown(value)}` });
    return undefined;
  }
  return value;
}

/**
 * The members of a listed run no reader of its record looks at: its status but for the
 * conditions and completionTime (readRunState) and a TaskRun's podName (the census of what
 * goes with a run, cascade.ts), and metadata.managedFields. The adapter leaves
 * their values out as a page is read (kube/listbody.ts): a PipelineRun's status copies its
 * pipeline's spec and every task's state, most of its bytes, and parsing them was most of
 * what a pass allocated (bench/RESULTS.md, issue 24).
 */
export function unreadRunMember(parent: string, key: string): boolean {
  return parent === 'status' ? key !== 'conditions' && key !== 'completionTime' && key !== 'podName' : parent === 'metadata' && key === 'managedFields';
}

/** How much of a run to read: with `leftovers`, also what it links to leftovers (runlinks.ts). */
export interface RunReadOptions {
  leftovers?: boolean;
  /** The copy of a namespace or target name to keep instead of the run's own (needed.ts targetStrings). */
  strings?: (value: string) => string;
  /** With `leftovers`, the runs whose released request is read (needed.ts releasingOwners); absent: every run's. */
  releasing?: (run: Pick<RunRecord, 'uid' | 'namespace' | 'name'>) => boolean;
}

/**
 * The compact record of one listed run of `kind`, whichever version it was read through.
 * Without `leftovers` it holds what PipelineResources need and nothing more.
 */
export function toRunRecord(obj: unknown, kind: RunKindName, options: RunReadOptions = {}): RunRecord {
  const problems: ReadProblem[] = [];
  const metadata = optionalRecord(isRecord(obj) ? obj['metadata'] : undefined, 'metadata', problems) ?? {};
  const { strings } = options;
  const identity = readRunIdentity(metadata, problems, strings);
  // Read before the state and references add theirs: only a problem with who the run is counts here.
  const leftovers = options.leftovers === true ? readLeftoverLinks(obj, problems) : undefined;
  const ownerProblems: ReadProblem[] = [];
  const parentKind = RUN_KINDS[kind].parentKind;
  const parent = parentKind === undefined ? undefined : findParent(metadata['ownerReferences'], parentKind, ownerProblems);
  const stateReading = readRunState(obj);
  // A run whose namespace cannot be read could sit in any namespace, so what it names is
  // unknown everywhere: the graph counts it against every namespace.
  const references = identity.namespace === '' ? { references: null, problems: [] } : extractReferences(obj, kind);
  // A run whose parent cannot be read may be the child of an active PipelineRun: count it running.
  const state = ownerProblems.length > 0 ? 'running' : stateReading.state;
  const allProblems = [...problems, ...ownerProblems, ...stateReading.problems, ...references.problems];
  const names = references.references;
  // Only a run that is, or through its parent may be, active can release a request early.
  const releases = leftovers !== undefined && (isActive(state) || parent !== undefined) && (options.releasing?.(identity) ?? true);
  const releasedRequest = releases ? releasedRequestName(obj, kind, identity) : undefined;
  return {
    kind,
    ...identity,
    state,
    ...(state === stateReading.state && stateReading.finishedAt !== undefined && { finishedAt: stateReading.finishedAt }),
    references: names?.length === 0 ? EMPTY_LIST : strings === undefined || names === null ? names : names.map(strings),
    ...(parent !== undefined && { parentPipelineRun: parent }),
    problems: allProblems.length === 0 ? EMPTY_LIST : allProblems,
    ...leftovers,
    ...(releasedRequest !== undefined && { releasedRequest: strings === undefined ? releasedRequest : strings(releasedRequest) }),
  };
}

/** The run's identity, its namespace read through `strings`; its creationTimestamp is checked like the rest of its metadata, and not kept (no rule reads it). */
function readRunIdentity(
  metadata: Record<string, unknown>,
  problems: ReadProblem[],
  strings: (value: string) => string = (value) => value,
): Pick<RunRecord, 'namespace' | 'name' | 'uid' | 'resourceVersion'> {
  const read = (key: string): string => {
    const value = metadata[key];
    if (typeof value === 'string' && value !== '') return value;
    problems.push({ field: `metadata.${key}`, problem: `expected a non-empty string, found ${shown(value)}` });
    return '';
  };
  const identity = { namespace: strings(read('namespace')), name: read('name'), uid: read('uid'), resourceVersion: read('resourceVersion') };
  read('creationTimestamp');
  return identity;
}

/** The ownerReference to a run of `parentKind` in tekton.dev, if there is one. */
function findParent(ownerReferences: unknown, parentKind: RunKindName, problems: ReadProblem[]): { name: string; uid: string } | undefined {
  if (ownerReferences === undefined || ownerReferences === null) return undefined;
  if (!Array.isArray(ownerReferences)) {
    problems.push({ field: 'metadata.ownerReferences', problem: `expected an array, found ${describeValue(ownerReferences)}` });
    return undefined;
  }
  const group = RUN_KINDS[parentKind].group;
  let parent: { name: string; uid: string } | undefined;
  ownerReferences.forEach((ref: unknown, index) => {
    const owner = readOwnerRef(ref, `metadata.ownerReferences[${index}]`, problems);
    if (parent === undefined && owner?.kind === parentKind && owner.apiVersion.startsWith(`${group}/`)) {
      parent = { name: owner.name, uid: owner.uid };
    }
  });
  return parent;
}

export function readOwnerRef(ref: unknown, field: string, problems: ReadProblem[]): (OwnerRef & { apiVersion: string }) | undefined {
  if (!isRecord(ref)) {
    problems.push({ field, problem: `expected an object, found ${describeValue(ref)}` });
    return undefined;
  }
  const { apiVersion, kind, name, uid, controller } = ref;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string' || typeof uid !== 'string') {
    problems.push({ field, problem: 'expected string apiVersion, kind, name and uid' });
    return undefined;
  }
  return { apiVersion, kind, name, uid, controller: controller === true };
}

/** Absent or null: undefined. An object: itself. Anything else: a problem. */
export function optionalRecord(value: unknown, field: string, problems: ReadProblem[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (isRecord(value)) return value;
  problems.push({ field, problem: `expected an object, found ${describeValue(value)}` });
  return undefined;
}

/** A short rendering of a found value for a problem: strings quoted, others by type. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : describeValue(value);
}

/** An API object the collector cannot read where guessing could delete the wrong thing. */
export class UnreadableObjectError extends Error {
  readonly problems: readonly ReadProblem[];

  constructor(what: string, problems: readonly ReadProblem[]) {
    super(`${what}: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`);
    this.name = 'UnreadableObjectError';
    this.problems = problems;
  }
}

/**
 * The compact record of one listed target. Its labels and annotations are all checked, and
 * only those a retention rule could read are kept (retentionShaped). Throws
 * UnreadableObjectError on a malformed object.
 */
export function toTargetRecord(obj: unknown): TargetRecord {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const record: TargetRecord = {
    kind: 'PipelineResource',
    namespace: requiredString(metadata, 'namespace', problems),
    name: requiredString(metadata, 'name', problems),
    uid: requiredString(metadata, 'uid', problems),
    resourceVersion: requiredString(metadata, 'resourceVersion', problems),
    createdAt: requiredString(metadata, 'creationTimestamp', problems),
    labels: sharedIfEmpty(stringMap(metadata, 'labels', problems, isRetentionKey)),
    annotations: sharedIfEmpty(stringMap(metadata, 'annotations', problems, isRetentionKey)),
    ownerReferences: sharedIfNone(ownerRefs(metadata['ownerReferences'], problems)),
  };
  if (problems.length > 0) throw new UnreadableObjectError(`PipelineResource ${record.namespace}/${record.name}`, problems);
  return record;
}

/** The compact record of one Namespace. Throws UnreadableObjectError on a malformed object. */
export function toNamespaceRecord(obj: unknown): NamespaceRecord {
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const record: NamespaceRecord = { name: requiredString(metadata, 'name', problems), labels: stringMap(metadata, 'labels', problems) };
  if (problems.length > 0) throw new UnreadableObjectError(`Namespace ${record.name}`, problems);
  return record;
}

export function requiredMetadata(obj: unknown, problems: ReadProblem[]): Record<string, unknown> {
  if (!isRecord(obj)) {
    problems.push({ field: '(object)', problem: `expected an object, found ${describeValue(obj)}` });
    return {};
  }
  const metadata = obj['metadata'];
  if (isRecord(metadata)) return metadata;
  problems.push({ field: 'metadata', problem: `expected an object, found ${describeValue(metadata)}` });
  return {};
}

export function requiredString(metadata: Record<string, unknown>, key: string, problems: ReadProblem[]): string {
  const value = metadata[key];
  if (typeof value === 'string' && value !== '') return value;
  problems.push({ field: `metadata.${key}`, problem: `expected a non-empty string, found ${shown(value)}` });
  return '';
}

/** Labels or annotations, every value checked, those `kept` copied so the listed object can be dropped. */
export function stringMap(metadata: Record<string, unknown>, key: string, problems: ReadProblem[], kept: (name: string, text: string) => boolean = () => true): Record<string, string> {
  const value = metadata[key];
  if (value === undefined || value === null) return {};
  const field = `metadata.${key}`;
  if (!isRecord(value)) {
    problems.push({ field, problem: `expected an object, found ${describeValue(value)}` });
    return {};
  }
  const copy: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== 'string') problems.push({ field: `${field}[${JSON.stringify(name)}]`, problem: `expected a string, found ${describeValue(text)}` });
    else if (kept(name, text)) copy[name] = text;
  }
  return copy;
}

/**
 * Most targets keep no retention label, annotation or owner: one frozen empty map or list for
 * all of them instead of one each (about 140 bytes a target, 40,000 targets at the benchmark's 4x).
 */
const EMPTY_MAP: Readonly<Record<string, string>> = Object.freeze({});

function sharedIfEmpty(map: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.keys(map).length === 0 ? EMPTY_MAP : map;
}

function sharedIfNone<T>(list: readonly T[]): readonly T[] {
  return list.length === 0 ? EMPTY_LIST : list;
}

/** metadata.ownerReferences, each with the apiVersion it was written with (a marker checks the group). */
export function readOwnerReferences(value: unknown, problems: ReadProblem[]): (OwnerRef & { apiVersion: string })[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ field: 'metadata.ownerReferences', problem: `expected an array, found ${describeValue(value)}` });
    return [];
  }
  return value.flatMap((ref: unknown, index) => {
    const owner = readOwnerRef(ref, `metadata.ownerReferences[${index}]`, problems);
    return owner === undefined ? [] : [owner];
  });
}

/** A PipelineResource's ownerReferences without their apiVersion: its record keeps only what identifies the owner. */
function ownerRefs(value: unknown, problems: ReadProblem[]): OwnerRef[] {
  return readOwnerReferences(value, problems).map(({ kind, name, uid, controller }) => ({ kind, name, uid, controller }));
}

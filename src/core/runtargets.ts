/**
 * A run as a target of its own collector (pipelineruns, taskruns): the compact record the
 * runs' decision (history.ts) reads, made from the same listed object, and the same RunRecord,
 * the graph keeps (docs/spec.md, "Runs"). A pass at the benchmark's 4x holds one per
 * PipelineRun and per standalone TaskRun, so the record shares what it can: the run's
 * identity strings are the RunRecord's, its namespace is one string per namespace, and its
 * labels and annotations (only the keys a rule reads) are one frozen map for every run that
 * carries the same ones (a few per Pipeline).
 */
import { RESULTS_STORED_ANNOTATION, RUN_GROUP_LABELS, isRunPolicyKey } from './history.js';
import { PRUNER_NAME_LABEL_KEY_ANNOTATION } from './prunerconfig.js';
import { PIPELINE_RUN_LABEL } from './labels.js';
import { isRecord } from './refs.js';
import { isRetentionKey, requiredMetadata, shown, stringMap, toRunRecord, UnreadableObjectError } from './runs.js';
import { EMPTY_LIST, type ReadProblem, type RunKindName, type RunRecord, type RunTarget, type TargetRecord } from './types.js';

/** How runs are read as targets: the keys beyond the built-in ones that a rule reads. */
export interface RunTargetReading {
  /** --group-by: its label is kept too. */
  groupBy?: string;
  /** Labels and annotations an external policy (RunPolicy.external) reads, by key or by value on a run of the namespace, kept alike. */
  keeps?: (key: string, value: string, namespace: string) => boolean;
  /** The label keys --selector reads (labelselector.ts selectorKeys): which runs are targets is decided on them. */
  selectorKeys?: readonly string[];
  /** One copy of each namespace and of each label map; absent: none shared. */
  shared?: SharedStrings;
}

/** Interned maps stop here: past a few thousand distinct ones, sharing buys little and the table grows with the cluster. */
const MAX_SHARED_MAPS = 4_096;

const EMPTY_MAP: Readonly<Record<string, string>> = Object.freeze({});

/** The namespaces and label maps runs' records share in one pass. */
export class SharedStrings {
  private readonly namespaces = new Map<string, string>();
  private readonly maps = new Map<string, Readonly<Record<string, string>>>();

  namespace(value: string): string {
    const known = this.namespaces.get(value);
    if (known !== undefined) return known;
    this.namespaces.set(value, value);
    return value;
  }

  /** The one frozen map equal to `map`, while fewer than MAX_SHARED_MAPS distinct ones are known. */
  map(map: Record<string, string>): Readonly<Record<string, string>> {
    const keys = Object.keys(map);
    if (keys.length === 0) return EMPTY_MAP;
    const key = keys
      .sort()
      .map((name) => `${name}\u0000${map[name] ?? ''}`)
      .join('\u0001');
    const known = this.maps.get(key);
    if (known !== undefined) return known;
    const frozen = Object.freeze(map);
    if (this.maps.size < MAX_SHARED_MAPS) this.maps.set(key, frozen);
    return frozen;
  }
}

/** A label the runs' rules read on a run of `namespace`: retention, run policy, its group, those --selector reads, and those the external policy reads. */
function keptLabel(reading: RunTargetReading, namespace: string): (key: string, value: string) => boolean {
  return (key, value) =>
    isRetentionKey(key) ||
    isRunPolicyKey(key) ||
    RUN_GROUP_LABELS.includes(key) ||
    key === reading.groupBy ||
    reading.keeps?.(key, value, namespace) === true ||
    reading.selectorKeys?.includes(key) === true;
}

/** An annotation the runs' rules read on a run of `namespace`: retention, run policy, whether Results stored it, and those the external policy reads. */
function keptAnnotation(reading: RunTargetReading, namespace: string): (key: string, value: string) => boolean {
  return (key, value) => isRetentionKey(key) || isRunPolicyKey(key) || key === RESULTS_STORED_ANNOTATION || reading.keeps?.(key, value, namespace) === true;
}

/** No label and no annotation at all (an absent or empty map each), whatever the record keeps of them. */
function bare(metadata: Record<string, unknown>): boolean {
  const empty = (value: unknown): boolean => value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0);
  return empty(metadata['labels']) && empty(metadata['annotations']);
}

/**
 * The PipelineRun a TaskRun's `tekton.dev/pipelineRun` label names, or undefined. Tekton sets
 * it on every TaskRun a PipelineRun creates, beside the ownerReference (tektoncd/pipeline
 * pkg/reconciler/pipelinerun/pipelinerun.go, createTaskRun: getTaskrunLabels and
 * NewControllerRef); tektoncd/pruner counts a TaskRun with either as part of its PipelineRun
 * and never prunes it alone (pkg/reconciler/taskrun/controller.go, isStandaloneTaskRun).
 */
export function labelledPipelineRun(obj: unknown): string | undefined {
  const metadata = isRecord(obj) ? obj['metadata'] : undefined;
  const labels = isRecord(metadata) ? metadata['labels'] : undefined;
  const name = isRecord(labels) ? labels[PIPELINE_RUN_LABEL] : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The run as a target, or null for a run of a PipelineRun: a TaskRun or a child
 * (pipeline-in-pipeline) PipelineRun that a PipelineRun owns (it goes with its parent), and
 * one whose `tekton.dev/pipelineRun` label names a PipelineRun while no ownerReference does
 * (one orphaned by hand, or its owner stripped). Neither is ever a target: Tekton finds a
 * PipelineRun's TaskRuns by name and takes one not found for one not created yet
 * (pkg/reconciler/pipelinerun/resources/pipelinerunresolution.go,
 * setTaskRunsAndResolvedTask), and its child PipelineRuns the same way (:780,
 * setChildPipelineRunsAndResolvedPipeline; a task with none is scheduled again,
 * pipelinerunstate.go:410), so one deleted under a running PipelineRun of that name would be
 * created again and its task or pipeline run twice. Tekton sets both the ownerReference and
 * the label on a child PipelineRun (pkg/reconciler/pipelinerun/pipelinerun.go:1213, :1863).
 * `run` is the graph's record of the same object. Throws
 * UnreadableObjectError when what identifies it, or its labels and annotations, cannot be read:
 * a run that would be deleted is read as strictly as every other target. An unreadable status
 * is no error: the record says so and the run is kept as active.
 */
export function toRunTarget(obj: unknown, run: RunRecord, reading: RunTargetReading = {}): TargetRecord | null {
  if (run.parentPipelineRun !== undefined || labelledPipelineRun(obj) !== undefined) return null;
  const problems: ReadProblem[] = [];
  const metadata = requiredMetadata(obj, problems);
  const createdAt = metadata['creationTimestamp'];
  if (typeof createdAt !== 'string' || createdAt === '') problems.push({ field: 'metadata.creationTimestamp', problem: `expected a non-empty string, found ${shown(createdAt)}` });
  for (const key of ['namespace', 'name', 'uid', 'resourceVersion'] as const) {
    if (run[key] === '') problems.push({ field: `metadata.${key}`, problem: 'expected a non-empty string' });
  }
  const annotations = stringMap(metadata, 'annotations', problems, keptAnnotation(reading, run.namespace));
  // tektoncd/pruner names a run by the label its annotation names (prunerconfig.ts prunerResourceName): that label is read too.
  const named = reading.keeps === undefined ? undefined : annotations[PRUNER_NAME_LABEL_KEY_ANNOTATION];
  const keptLabels = keptLabel(reading, run.namespace);
  const labels = stringMap(metadata, 'labels', problems, named === undefined ? keptLabels : (key, value) => key === named || keptLabels(key, value));
  const deletionTimestamp = metadata['deletionTimestamp'];
  if (deletionTimestamp !== undefined && deletionTimestamp !== null && (typeof deletionTimestamp !== 'string' || deletionTimestamp === '')) {
    problems.push({ field: 'metadata.deletionTimestamp', problem: `expected a timestamp, found ${shown(deletionTimestamp)}` });
  }
  if (problems.length > 0) throw new UnreadableObjectError(`${run.kind} ${run.namespace}/${run.name}`, problems);
  const shared = reading.shared;
  return {
    kind: run.kind,
    namespace: shared === undefined ? run.namespace : shared.namespace(run.namespace),
    name: run.name,
    uid: run.uid,
    resourceVersion: run.resourceVersion,
    createdAt: createdAt as string,
    labels: shared === undefined ? frozenOrEmpty(labels) : shared.map(labels),
    annotations: shared === undefined ? frozenOrEmpty(annotations) : shared.map(annotations),
    ownerReferences: EMPTY_LIST,
    ...(typeof deletionTimestamp === 'string' && { deletionTimestamp }),
    // Only the external policy (--pruner-config) reads it: without one, no record carries it.
    run: runTarget(run, reading.keeps !== undefined && bare(metadata)),
  };
}

function frozenOrEmpty(map: Record<string, string>): Readonly<Record<string, string>> {
  return Object.keys(map).length === 0 ? EMPTY_MAP : Object.freeze(map);
}

/** What the decision reads of the run's own state; a run whose state or parent cannot be read counts as running (runs.ts). */
function runTarget(run: RunRecord, isBare: boolean): RunTarget {
  const unreadable = run.problems.filter((problem) => problem.field.startsWith('status') || problem.field.startsWith('metadata.ownerReferences'));
  return {
    state: run.state,
    ...(run.finishedAt !== undefined && { finishedAt: run.finishedAt }),
    ...(unreadable.length > 0 && { unreadable: unreadable.map((problem) => `${problem.field}: ${problem.problem}`).join('; ') }),
    ...(isBare && { bare: true as const }),
  };
}

/** One run object of `kind` as a target, read alone (explain, a delete whose answer was lost). */
export function toRunTargetRecord(obj: unknown, kind: RunKindName, reading: RunTargetReading = {}): TargetRecord | null {
  return toRunTarget(obj, toRunRecord(obj, kind), reading);
}

/**
 * The data the pure core works on. Everything here is plain data: the adapter turns
 * API objects into these compact records page by page, so memory grows with the
 * number of references, not with the size of the runs.
 */

/** The state a report gives a run (docs/spec.md, "Run state"). */
export type RunState = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Run kinds the collector reads (see kinds.ts for where each names a target). */
export type RunKindName = 'PipelineRun' | 'TaskRun';

/** An ownerReference, reduced to what identifies the owner. */
export interface OwnerRef {
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
}

/** A part of an object the collector could not understand, said precisely. */
export interface ReadProblem {
  /** Dotted path of the field, e.g. `spec.resources` or `metadata.annotations["tekton.dev/v1beta1Resources"]`. */
  field: string;
  /** What was wrong with it, e.g. `expected an array, found a string`. */
  problem: string;
}

/**
 * A target (PipelineResource) as the decision needs it. Its labels and annotations are only
 * those a retention rule could read (runs.ts isRetentionKey).
 */
export interface TargetRecord {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  /** metadata.creationTimestamp, ISO 8601 as the API server wrote it. */
  createdAt: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  ownerReferences: readonly OwnerRef[];
}

/**
 * A run (PipelineRun or TaskRun) as the decision needs it, and no more: a pass holds one per
 * run in the namespaces it reads (160,000 at the benchmark's 4x), so nothing is kept that no
 * rule reads (no creation time: no rule looks at a run's age), and a run that names nothing
 * and could be read whole shares one empty list for each (EMPTY_LIST).
 */
export interface RunRecord {
  kind: RunKindName;
  namespace: string;
  name: string;
  uid: string;
  /** What the re-check before deleting compares to tell a changed run. */
  resourceVersion: string;
  /** The run's own state, before the parent PipelineRun is taken into account. */
  state: RunState;
  /** status.completionTime when the run is finished. */
  finishedAt?: string;
  /**
   * Names of targets this run references in its own namespace, deduplicated and sorted.
   * `null` when the run holds references of an unexpected shape: what it names is unknown.
   */
  references: readonly string[] | null;
  /** The ownerReference to a PipelineRun, for a child TaskRun. */
  parentPipelineRun?: { name: string; uid: string };
  /** Fields that could not be read (references or status); empty when all was clear. */
  problems: readonly ReadProblem[];
}

/** One frozen empty list for every record that has nothing to list: an empty array per run costs more than the run's name. */
export const EMPTY_LIST: readonly never[] = Object.freeze([]);

/** A namespace as the decision needs it. */
export interface NamespaceRecord {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** Reason codes of the decision table (docs/spec.md), in rule order. */
export const REASONS = [
  'retained',
  'namespace-retained',
  'retention-invalid',
  'unreadable-run',
  'referenced-by-active-run',
  'too-young',
  'retain-until',
  'retain-for',
  'runs-finished',
  'unreferenced',
] as const;
export type Reason = (typeof REASONS)[number];

export type Action = 'keep' | 'delete';

/** A referencing run as a decision shows it. */
export interface ReferenceView {
  kind: RunKindName;
  name: string;
  /** Effective state: a child TaskRun of an active PipelineRun is reported active. */
  state: RunState;
  finishedAt?: string;
  /** How the run names the target: through its spec, or as the target's owner. */
  via: 'spec' | 'ownerReference';
}

/** One decision: data, never an action taken. */
export interface Decision {
  target: TargetRecord;
  action: Action;
  reason: Reason;
  /** One sentence a person reads, e.g. `all 2 referencing runs finished; last at 2026-…`. */
  message: string;
  references: readonly ReferenceView[];
  /** Things worth a log line, e.g. a retain label with a value other than true/false. */
  warnings: readonly string[];
}

/** The settings the decision rules use. Durations are milliseconds. */
export interface Policy {
  /** Label/annotation prefix, default `tekton-resource-gc.io`. */
  labelPrefix: string;
  /** Targets younger than this are kept (`too-young`). */
  minAgeMs: number;
  /** Global retain-for; a target's own label or annotation wins. `undefined`: none. */
  retainFor?: RetentionDuration;
}

/** A parsed retention duration: a length of time, or forever. */
export type RetentionDuration = { kind: 'forever' } | { kind: 'duration'; ms: number; text: string };

/** Everything one decision pass looks at. `now` is injected: the core never reads the clock. */
export interface ClusterView {
  targets: readonly TargetRecord[];
  runs: readonly RunRecord[];
  namespaces: ReadonlyMap<string, NamespaceRecord>;
}

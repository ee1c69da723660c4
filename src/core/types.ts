/**
 * The data the pure core works on. Everything here is plain data: the adapter turns
 * API objects into these compact records page by page, so memory grows with the
 * number of references, not with the size of the runs.
 */
import type { PrunerConfig } from './prunerconfig.js';

/** The state a report gives a run (docs/spec.md, "Run state"). */
export type RunState = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Run kinds the collector reads (see kinds.ts for where each names a target). */
export type RunKindName = 'PipelineRun' | 'TaskRun';

/** The kinds of object the collectors delete, one collector each (collectors.ts). */
export type TargetKindName = 'PipelineResource' | 'StatefulSet' | 'Secret' | 'PersistentVolumeClaim' | 'ResolutionRequest' | RunKindName;

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
 * Which marker made a leftover a target (docs/spec.md, "Leftovers"): a claim owned by a run,
 * an affinity-assistant claim, an affinity-assistant StatefulSet, a Pipelines-as-Code Secret,
 * a ResolutionRequest a run owns.
 */
export type LeftoverMarker = 'owned' | 'affinity-assistant' | 'statefulset' | 'pac-secret' | 'resolution-request';

/** What the leftover rules read of a target beyond its metadata, checked when it was read. */
export interface LeftoverTarget {
  marker: LeftoverMarker;
  /** The `tekton.dev/pipelineRun` label: the PipelineRun an affinity-assistant object belongs to, by name. */
  pipelineRunLabel?: string;
  /** A claim's size in bytes, rounded up, from `status.capacity.storage`, else `spec.resources.requests.storage`. */
  bytes?: { value: number; from: 'capacity' | 'request' };
  /**
   * A claim's condition `Unused` when its status is `False` (KEP-5541, Kubernetes 1.37 beta: the
   * PVC protection controller writes `PodUsingPVC` while a Pod that has not terminated uses the
   * claim): its reason and lastTransitionTime, when written. Absent when the condition is absent,
   * `True` or `Unknown`: then only the Pod list says whether a Pod uses it.
   */
  inUseCondition?: { reason?: string; since?: string };
}

/**
 * A target as the decision needs it: a PipelineResource, or a leftover of a run. Its labels
 * and annotations are only those a retention rule could read (runs.ts isRetentionKey).
 */
export interface TargetRecord {
  kind: TargetKindName;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  /** metadata.creationTimestamp, ISO 8601 as the API server wrote it. */
  createdAt: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  ownerReferences: readonly OwnerRef[];
  /** metadata.deletionTimestamp: the object is already being deleted; it is decided, but never sent a second DELETE. */
  deletionTimestamp?: string;
  /** metadata.finalizers, whole and in order (claims only: a finalizer is removed by its index). */
  finalizers?: readonly string[];
  /** Set on leftovers only: what their marker and rules read. */
  leftover?: LeftoverTarget;
  /** Set on runs only (the pipelineruns and taskruns collectors): what history.ts reads of the run itself. */
  run?: RunTarget;
}

/**
 * What the runs' decision (history.ts) reads of a run that is a target, beyond its metadata:
 * its own state as readRunState reads it (runs.ts). Its labels and annotations, in the
 * TargetRecord, are only those a retention, run-policy or group rule reads (history.ts
 * isRunPolicyKey), and the same map is shared by every run that carries the same ones.
 */
export interface RunTarget {
  state: RunState;
  /** status.completionTime, when finished. */
  finishedAt?: string;
  /** What could not be read of its status: it counts as running (`run-active`). */
  unreadable?: string;
  /**
   * Set, with --pruner-config only, on a run with no label and no annotation at all: its
   * record keeps only some keys, and tektoncd/pruner matches selectors only on a run that has
   * some (config.go:249).
   */
  bare?: true;
}

/** What a run names in its workspaces: claims (`persistentVolumeClaim.claimName`) and Secrets (`secret.secretName`). */
export interface WorkspaceNames {
  claims: readonly string[];
  secrets: readonly string[];
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
  /** The ownerReference to a PipelineRun, for a child TaskRun or a child (pipeline-in-pipeline) PipelineRun. */
  parentPipelineRun?: { name: string; uid: string };
  /** Fields that could not be read (references or status); empty when all was clear. */
  problems: readonly ReadProblem[];
  // The fields below are read only when a leftover collector is on (toRunRecord's `leftovers`
  // option): a pass over PipelineResources alone keeps the record above and nothing more.
  /**
   * What the run names in `spec.workspaces`, sorted and deduplicated; `null` when they have an
   * unexpected shape (then leftoverProblems says where).
   */
  workspaces?: WorkspaceNames | null;
  /** The annotation `pipelinesascode.tekton.dev/git-auth-secret`: the Pipelines-as-Code Secret the run uses. */
  gitAuthSecret?: string;
  /** The run's retention labels and annotations (runs.ts isRetentionKey): `retain` on an owner run keeps its leftovers. */
  retain?: { labels: Readonly<Record<string, string>>; annotations: Readonly<Record<string, string>> };
  /**
   * What could not be read of what a run links to leftovers (its identity, workspaces, the
   * git-auth annotation); a run with any keeps its namespace's leftovers (`unreadable-run`).
   * Absent: the run was read without the leftovers option, so what it links is unknown too.
   */
  leftoverProblems?: readonly ReadProblem[];
  /**
   * The ResolutionRequest through which the run resolved its own pipelineRef or taskRef, by
   * name, once it has stored what it resolved in its status and will not read it again
   * (resolution.ts). Read with the leftovers' links, for runs that are or may be active only.
   */
  releasedRequest?: string;
}

/** A Pod, as what may use a claim or a Secret (rule 7 of the leftovers). */
export interface PodRecord {
  namespace: string;
  name: string;
  /** status.phase; absent counts as active (a Pod without a phase may still start). */
  phase?: string;
  /** Claims it mounts (`volumes[].persistentVolumeClaim.claimName`), sorted, deduplicated. */
  claims: readonly string[];
  /** Secrets it mounts or reads (volumes, `env[].valueFrom.secretKeyRef`, `envFrom[].secretRef`), sorted, deduplicated. */
  secrets: readonly string[];
}

/** A StatefulSet, as what may name a claim (rule 8 of the leftovers). */
export interface StatefulSetRecord {
  namespace: string;
  name: string;
  uid: string;
  /** Claims its Pod template mounts, by name; sorted. */
  claims: readonly string[];
  /**
   * `<volumeClaimTemplates[].name>-<name>`: it names `<stem>-<ordinal>` for every ordinal, whatever
   * its replicas and ordinals.start are now (core/holders.ts claimStem); sorted.
   */
  claimStems: readonly string[];
}

/** One frozen empty list for every record that has nothing to list: an empty array per run costs more than the run's name. */
export const EMPTY_LIST: readonly never[] = Object.freeze([]);

/** A namespace as the decision needs it. */
export interface NamespaceRecord {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** Reason codes of the PipelineResources' decision table (docs/spec.md, "The decision"), in rule order. */
export const REASONS: readonly Reason[] = [
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
];

/**
 * Every reason code, in one order that keeps each table's (the leftovers' holds the
 * PipelineResources', the ResolutionRequests' is the leftovers' less the holders and with
 * `resolution-stored`, the runs' is the retention rows and its own): for counts and listings
 * across kinds.
 */
export const ALL_REASONS = [
  'retained',
  'namespace-retained',
  'retention-invalid',
  'unreadable-run',
  'user-claimed',
  'referenced-by-active-run',
  'in-use-by-pod',
  'in-use-by-statefulset',
  'run-active',
  'too-young',
  'retain-until',
  'retain-for',
  'results-not-stored',
  'resolution-stored',
  'runs-finished',
  'owner-gone',
  'unreferenced',
  // The runs' table only (docs/spec.md, "Runs"), with run-active and results-not-stored above.
  'history-kept',
  'history-exceeded',
  'ttl-expired',
  'ttl-not-reached',
  'no-run-policy',
  'dependent-kept',
] as const;

export type Reason = (typeof ALL_REASONS)[number];

/** The codes only the runs' table has. */
const RUN_ONLY_REASONS: ReadonlySet<Reason> = new Set(['run-active', 'results-not-stored', 'history-kept', 'history-exceeded', 'ttl-expired', 'ttl-not-reached', 'no-run-policy', 'dependent-kept']);

/** Reason codes of the leftovers' decision table (docs/spec.md, "Leftovers"), in rule order: the PipelineResources' codes in their order, and four more. */
export const LEFTOVER_REASONS: readonly Reason[] = ALL_REASONS.filter((reason) => reason !== 'resolution-stored' && !RUN_ONLY_REASONS.has(reason));

/** Reason codes of the ResolutionRequests' table (docs/spec.md, "ResolutionRequests"), in rule order: nothing but a run holds a request, and a run that stored what it resolved releases it. */
export const RESOLUTION_REASONS: readonly Reason[] = ALL_REASONS.filter(
  (reason) => reason !== 'user-claimed' && reason !== 'in-use-by-pod' && reason !== 'in-use-by-statefulset' && !RUN_ONLY_REASONS.has(reason),
);

/**
 * Reason codes of the runs' table (docs/spec.md, "Runs"), in rule order: the retention rows
 * every table has, then the run's own state, age, Results and history.
 */
export const RUN_REASONS: readonly Reason[] = [
  'retained',
  'namespace-retained',
  'retention-invalid',
  'run-active',
  'too-young',
  'retain-until',
  'retain-for',
  'results-not-stored',
  'history-kept',
  'history-exceeded',
  'ttl-expired',
  'ttl-not-reached',
  'no-run-policy',
  'dependent-kept',
];

export type Action = 'keep' | 'delete';

/** A run a decision shows: `gone` for an owner no listed run is (a leftover's only). */
export type LinkState = RunState | 'gone';

/**
 * How a run names a target: its spec (a PipelineResource binding), the target's ownerReference,
 * the target's `tekton.dev/pipelineRun` label, the run's Pipelines-as-Code annotation, a
 * workspace of the run, or the run's name, which Tekton hashed a ResolutionRequest's name from:
 * (`ownerName`) the same as the target's owner's, (`ownerChildName`) one Tekton gives a child of
 * its owner PipelineRun, (`ownerParentName`) a PipelineRun's whose child Tekton would give its
 * owner's name. A rerun by name finds what Tekton named after that name.
 */
export type LinkVia = 'spec' | 'ownerReference' | 'label' | 'annotation' | 'workspace' | 'ownerName' | 'ownerChildName' | 'ownerParentName';

/** A referencing (linked) run as a decision shows it. */
export interface ReferenceView {
  kind: RunKindName;
  name: string;
  /** Effective state: a child TaskRun of an active PipelineRun is reported active; a gone owner is `gone`. */
  state: LinkState;
  finishedAt?: string;
  via: LinkVia;
}

/** What uses a leftover (rules 7 and 8): a Pod (with its phase, when it has one) or a StatefulSet. */
export interface Holder {
  kind: 'Pod' | 'StatefulSet';
  name: string;
  phase?: string;
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
  /** Leftovers: the active Pods and the StatefulSets that use it, when any do. */
  heldBy?: readonly Holder[];
  /** A run decided `delete`: what the pass's own lists say goes with it (core/cascade.ts). */
  cascade?: CascadeCounts;
  /** A target its own collector deletes that also goes with a run this pass deletes: that run, as `PipelineRun/NAME`. */
  goesWith?: string;
}

/** What amendDecision may change of a decision; the target, its references and its warnings stay. */
export type DecisionChange = Partial<Pick<Decision, 'action' | 'reason' | 'message' | 'heldBy' | 'cascade' | 'goesWith'>>;

/**
 * `decision` with `change` applied, as a new object whose fields are set one by one in
 * Decision's order. Not `{ ...decision, cascade }`: V8 gives each object a spread makes and a
 * property is then added to a hidden class (Map and DescriptorArray) of its own, about 300
 * bytes, where objects built alike share one; at the benchmark's 4x that was 104,806 run
 * decisions with a cascade, 38 MB of the report's 127 MB heap (bench/RESULTS.md, "Issue 30").
 */
export function amendDecision(decision: Decision, change: DecisionChange): Decision {
  const { target, references, warnings } = decision;
  const action = change.action ?? decision.action;
  const reason = change.reason ?? decision.reason;
  const message = change.message ?? decision.message;
  const heldBy = change.heldBy ?? decision.heldBy;
  const cascade = change.cascade ?? decision.cascade;
  const goesWith = change.goesWith ?? decision.goesWith;
  // A run that goes, the common case: its cascade in the literal, not in a property array added to it.
  if (cascade !== undefined && heldBy === undefined && goesWith === undefined) return { target, action, reason, message, references, warnings, cascade };
  const amended: Decision = { target, action, reason, message, references, warnings };
  if (heldBy !== undefined) amended.heldBy = heldBy;
  if (cascade !== undefined) amended.cascade = cascade;
  if (goesWith !== undefined) amended.goesWith = goesWith;
  return amended;
}

/** What goes with one deleted run, by kind (only kinds with some), and the bytes of its claims. */
export interface CascadeCounts {
  objects: Readonly<Partial<Record<CascadeKind, number>>>;
  bytes?: number;
}

/** The kinds a run's cascade counts: its TaskRuns and Pods, and the leftovers it owns. */
export const CASCADE_KINDS = ['PipelineRun', 'TaskRun', 'Pod', 'PersistentVolumeClaim', 'Secret', 'StatefulSet', 'ResolutionRequest'] as const;
export type CascadeKind = (typeof CASCADE_KINDS)[number];

/** The settings the decision rules use. Durations are milliseconds. */
export interface Policy {
  /**
   * `--pruner-config`: tektoncd/pruner's ConfigMaps as the pass read them, for the run
   * collectors to apply (prunerconfig.ts prunerLimitsFor). Absent: not asked for.
   */
  pruner?: PrunerConfig;
  /** Label/annotation prefix, default `tekton-resource-gc.io`. */
  labelPrefix: string;
  /** Targets younger than this are kept (`too-young`). */
  minAgeMs: number;
  /** Global retain-for; a target's own label or annotation wins. `undefined`: none. */
  retainFor?: RetentionDuration;
  /** What the run collectors decide with (history.ts); absent: no limit, no TTL, no group label, Results not required. */
  runs?: RunPolicy;
}

/** The limits a run's history is decided by; each absent when not set where it is read. */
export interface RunLimits {
  /** The N newest finished runs that succeeded, per group, are kept. */
  keepSuccessful?: number;
  /** The N newest finished runs that failed (cancelled and timed out included), per group, are kept. */
  keepFailed?: number;
  /** A finished run goes this long after its completionTime; `forever`: never. */
  ttl?: RetentionDuration;
}

/** Limits from another source than labels and flags (tektoncd/pruner's ConfigMaps), with what names it in a decision. */
export interface ExternalRunLimits extends RunLimits {
  /** Where they were set, e.g. `ConfigMap tekton-pipelines/tekton-pruner-default-spec`. */
  from: string;
  /** The policy that applies to the run cannot be read (a ConfigMap that does not parse): why, in one line. The run is kept (`retention-invalid`). */
  invalid?: string;
  /** The runs `keepSuccessful` counts when not the run's group: tektoncd/pruner's set for that limit. */
  successfulCounts?: CountedRuns;
  /** The same for `keepFailed`. */
  failedCounts?: CountedRuns;
  /** Where each was set, when the source tells them apart (pruner: the field of the ConfigMap that gave it); `from` for one not here. */
  fieldFrom?: { keepSuccessful?: string; keepFailed?: string; ttl?: string };
}

/**
 * The runs a history limit counts when that is not the run's group: the set tektoncd/pruner
 * lists for the limit (history_limiter.go:269-342), of the run's kind and namespace. Runs
 * whose limits name equal keys are ranked together, newest first by creationTimestamp, as
 * pruner ranks them (history_limiter.go:361-371). One object per set, shared by its runs.
 */
export interface CountedRuns {
  /** Equal for equal sets of one kind and namespace. */
  readonly key: string;
  /** What they are, read after "among": `the PipelineRuns of namespace ci labelled env=prod`. */
  readonly text: string;
  /** Whether a run of that kind and namespace is one of them, by the labels and annotations its record keeps. */
  readonly includes: (run: TargetRecord) => boolean;
}

/**
 * The runs' policy (docs/spec.md, "Runs"): flags, and what labels on a run or its Namespace
 * override per setting (run label > namespace label > external > flag).
 */
export interface RunPolicy extends RunLimits {
  /** --group-by: the label that names a run's group before the built-in ones. */
  groupBy?: string;
  /** --require-results-stored: a run goes only once Tekton Results stored it. */
  requireResultsStored: boolean;
  /**
   * Limits set elsewhere for this run, between its Namespace's labels and the flags (the seam
   * --pruner-config fills). `run` is its record: only the keys history.ts and `keeps` name
   * are in its labels and annotations.
   */
  external?: (run: TargetRecord, group: string) => ExternalRunLimits | undefined;
  /**
   * Labels and annotations `external` reads, kept in each run's record: by key, or by the
   * value it has on a run of `namespace` (a label pruner may name a run by: prunerconfig.ts).
   */
  keeps?: (key: string, value: string, namespace: string) => boolean;
  /** The flag a limit came from, as a decision names it, when not its own (`--keep` for both). */
  limitFlags?: { keepSuccessful?: string; keepFailed?: string };
  /**
   * --selector (a label selector, core/labelselector.ts): only the runs whose labels match it
   * are targets of the pass, decided and reported; every run of a group, matched or not, still
   * holds its place in the group's history. Absent or empty: every run is a target.
   */
  selector?: string;
}

/** A parsed retention duration: a length of time, or forever. */
export type RetentionDuration = { kind: 'forever' } | { kind: 'duration'; ms: number; text: string };

/** Everything one decision pass looks at. `now` is injected: the core never reads the clock. */
export interface ClusterView {
  targets: readonly TargetRecord[];
  runs: readonly RunRecord[];
  namespaces: ReadonlyMap<string, NamespaceRecord>;
  /** The Pods of the targets' namespaces, when a collector on reads them (rule 7). */
  pods?: readonly PodRecord[];
  /** The StatefulSets of the targets' namespaces, when a collector on reads them (rule 8). */
  statefulSets?: readonly StatefulSetRecord[];
  /** With a run collector on: the TaskRuns and Pods that go with each run, counted from the run listing (core/cascade.ts). */
  children?: RunChildrenView;
  /**
   * With a run collector on: the objects of the kinds a run owns that carry the retain label
   * and name an owner, whatever collectors are on (kube/cluster.ts listRetainedOwned). A run
   * they would go with is kept (`dependent-kept`).
   */
  retainedOwned?: readonly RetainedOwnedRecord[];
}

/** An object a run may own that carries `<prefix>/retain`, read as metadata only: who it is, its owners, and what retains it. */
export interface RetainedOwnedRecord {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  ownerReferences: readonly OwnerRef[];
  /** `its label KEY is "VALUE"`. */
  retained: string;
}

/** The child PipelineRuns, TaskRuns and Pods that go with a run, at every depth below it. */
export interface ChildCounts {
  pipelineRuns: number;
  taskRuns: number;
  pods: number;
}

/** What the run listing counted of each run's children (core/cascade.ts RunChildren). */
export interface RunChildrenView {
  of(uid: string): ChildCounts;
  stays(uid: string): string | undefined;
  owners(): readonly { kind: string; namespace: string; name: string; uid: string; ownerReferences: readonly OwnerRef[] }[];
}

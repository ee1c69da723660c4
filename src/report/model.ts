import type { CollectorName } from '../core/collectors.js';
import type { Action, CascadeKind, Holder, LinkState, LinkVia, Reason, RunKindName, TargetKindName } from '../core/types.js';

/**
 * What happened to one target in this pass (docs/reports.md, "Results"). `terminating`: a
 * claim deleted but still held by a finalizer, which is not an error. `skipped`: not tried,
 * since the breaker stopped the delete phase (Report.breaker).
 */
export const RESULTS = ['would-delete', 'deleted', 'terminating', 'gone', 'changed', 'failed', 'aborted', 'skipped', 'kept'] as const;
export type Result = (typeof RESULTS)[number];

export interface ReportReference {
  kind: RunKindName;
  name: string;
  /** `gone`: a leftover's owner that no listed run is. */
  state: LinkState;
  finishedAt?: string;
  /** How the run links the target; shown on leftovers only (a PipelineResource's runs name it in their spec). */
  via?: LinkVia;
}

/** A Pod or StatefulSet that uses a leftover, as the report shows it. */
export type ReportHolder = Holder;

export interface ReportItem {
  namespace: string;
  kind: TargetKindName;
  /** The collector whose target it is: one per kind. */
  collector: CollectorName;
  name: string;
  uid: string;
  createdAt: string;
  /** A claim's size, rounded up to a whole byte; claims only, when they state one. */
  bytes?: number;
  /** Where `bytes` was read: `status.capacity.storage` or `spec.resources.requests.storage`. */
  bytesFrom?: 'capacity' | 'request';
  action: Action;
  reason: Reason;
  message: string;
  references: ReportReference[];
  /** What uses it (in-use-by-pod, in-use-by-statefulset, a terminating claim's Pods); absent when nothing does. */
  heldBy?: ReportHolder[];
  /** A run decided `delete`: what the pass's own lists say goes with it (docs/spec.md, "What goes with a run"). */
  cascade?: ReportCascade;
  /** A target its own collector deletes that also goes with a run this pass deletes: `PipelineRun/NAME`. */
  goesWith?: string;
  result: Result;
}

/** What goes with one run: counts by kind (only kinds with some), and the bytes of the claims among them. */
export interface ReportCascade {
  objects: Partial<Record<CascadeKind, number>>;
  bytes?: number;
}

/** What goes with every run the pass decided to delete, counted once each (summary.cascade). */
export interface CascadeSummary {
  /** Runs decided `delete`, whatever their result. */
  runs: number;
  /** What goes with them, by kind, each object once. */
  objects: Partial<Record<CascadeKind, number>>;
  /** The bytes of the claims among them. */
  bytes: number;
  /** Of those, the targets their own collector deletes too (items with `goesWith`). */
  alsoCollected: number;
}

/** How many targets of one kind the pass saw, and its decisions for them. */
export interface KindCounts {
  targets: number;
  delete: number;
  keep: number;
}

/** Bytes of claims (docs/reports.md, "Leftovers in the report"). */
export interface ByteCounts {
  /** Every claim decided `delete`, whatever its result. */
  candidates: number;
  /** Claims whose result is `deleted`. */
  released: number;
  /** Claims whose result is `terminating`. */
  pending: number;
}

export interface ReportScope {
  /** `["*"]` for all namespaces, else the names given. */
  namespaces: string[];
  excludedNamespaces: string[];
  selector: string;
  /** The label selector on Namespaces that limited the pass (one shard); present only then. */
  namespaceSelector?: string;
}

export interface ReportSummary {
  targets: number;
  runs: number;
  delete: number;
  keep: number;
  /** Only results that occurred, in RESULTS order. */
  results: Partial<Record<Result, number>>;
  /** Only reasons that occurred, in ALL_REASONS order. */
  reasons: Partial<Record<Reason, number>>;
  /**
   * One entry per kind whose collector was on, zeros included, in kind order: the
   * Markdown report's table of counts by kind.
   */
  byKind: Partial<Record<TargetKindName, KindCounts>>;
  /** Present only when the workspace-pvcs collector was on. */
  bytes?: ByteCounts;
  /** Present only when a run collector (pipelineruns, taskruns) was on. */
  cascade?: CascadeSummary;
}

/**
 * A report's items in report order: an array, or (the report of a pass, build.ts) items made
 * from the decisions one at a time as a renderer reads them, so that 40,000 of them are
 * never held together. Read it as often as needed; each reading makes the items anew.
 */
export interface ReportItems extends Iterable<ReportItem> {
  readonly length: number;
}

/** The report of one pass: the JSON of docs/gcreport.schema.json, field for field. */
export interface Report {
  apiVersion: 'tekton-resource-gc.io/v1';
  kind: 'GCReport';
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  scope: ReportScope;
  summary: ReportSummary;
  /** Sorted by namespace, kind, then name. */
  items: ReportItems;
  /** The plan this pass wrote (a dry run with --plan-file) or applied (`apply`). Present only then. */
  plan?: ReportPlan;
  /** The breaker stopped the delete phase (--max-consecutive-failures). Present only then. */
  breaker?: ReportBreaker;
  /**
   * --pruner-config: the namespace ConfigMaps tektoncd/pruner applies that could not be read,
   * whose namespaces' runs the pass kept (exit 3). Present only when there were any.
   */
  unreadablePrunerConfigMaps?: ReportUnreadableConfigMap[];
  /**
   * Pass-level things an operator should know that did not stop the pass (a setting that
   * is risky, a run kind the cluster does not serve, a live pass that the deletion cap
   * would stop). Present only when there were any.
   */
  warnings?: string[];
  /**
   * Pass-level failures (a list that failed, a pass stopped by SIGTERM). Present only
   * when there were any, so a clean report has only the contract's keys (docs/spec.md).
   */
  errors?: string[];
}

/** A report as its JSON reads back: the items are an array. */
export type ReportDocument = Omit<Report, 'items'> & { items: ReportItem[] };

/** A ConfigMap the pass could not read, and the one line that says why. */
export interface ReportUnreadableConfigMap {
  namespace: string;
  name: string;
  error: string;
}

/** Why the breaker stopped the delete phase: `failures` deletes in a row failed with this status and reason. */
export interface ReportBreaker {
  /** The HTTP status; 0 when no answer came. */
  status: number;
  /** The Kubernetes Status reason (`Forbidden`); empty when the server sent none. */
  reason: string;
  /** How many in a row: --max-consecutive-failures. */
  failures: number;
  /** Candidates not tried (result `skipped`). */
  skipped: number;
}

export interface ReportPlan {
  /** `written`: by this dry run; `applied`: the plan this pass deleted from. */
  mode: 'written' | 'applied';
  file: string;
  /** `sha256:<hex>`: what a reviewer approves and `apply --plan-digest` pins. */
  digest: string;
  /** How many objects the plan lists for deletion. */
  entries: number;
}

export const OUTPUT_FORMATS = ['text', 'json', 'markdown'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

import type { Action, LinkState, Reason, RunKindName } from '../core/types.js';

/** What happened to one target in this pass (docs/reports.md, "Results"). */
export const RESULTS = ['would-delete', 'deleted', 'gone', 'changed', 'failed', 'aborted', 'kept'] as const;
export type Result = (typeof RESULTS)[number];

export interface ReportReference {
  kind: RunKindName;
  name: string;
  state: LinkState;
  finishedAt?: string;
}

export interface ReportItem {
  namespace: string;
  name: string;
  uid: string;
  createdAt: string;
  action: Action;
  reason: Reason;
  message: string;
  references: ReportReference[];
  result: Result;
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
  /** Only reasons that occurred, in REASONS order. */
  reasons: Partial<Record<Reason, number>>;
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
  /** Sorted by namespace, then name. */
  items: ReportItem[];
  /** The plan this pass wrote (a dry run with --plan-file) or applied (`apply`). Present only then. */
  plan?: ReportPlan;
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

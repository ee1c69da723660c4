/**
 * Plans: what a reviewed dry run would delete, written down so that a later live pass
 * (`apply`) deletes at most that, and each only if it is still the same object and still
 * collectable. Pure: building, reading and checking a plan, and restricting a pass's
 * decisions to it. The digest is SHA-256 over the plan's canonical JSON.
 */
import { createHash } from 'node:crypto';
import { formatDuration, formatRetentionDuration, parseRetentionDuration } from '../core/retention.js';
import { parseHistoryLimit, parseRunTtl } from '../core/history.js';
import { parseNamespace } from '../cli/flags.js';
import { isLabelKey } from '../cli/selector.js';
import type { PassSettings } from '../cli/config.js';
import { COLLECTOR_NAMES, COLLECTORS, DEFAULT_COLLECTORS, isCollectorName, type CollectorName } from '../core/collectors.js';
import { ALL_REASONS, type Decision, type Policy, type Reason, type RunPolicy, type TargetKindName, type TargetRecord } from '../core/types.js';
import { redactUrl } from '../text/redact.js';
import type { Result } from '../report/model.js';

export const PLAN_API_VERSION = 'tekton-resource-gc.io/v1';
export const PLAN_KIND = 'GCPlan';

/** How far a plan's creation time may lie ahead of this machine's clock (clock skew between machines). */
const FUTURE_SKEW_MS = 5 * 60_000;

/** The settings that decided what the plan holds; `apply` decides again with exactly these. */
export interface PlanSettings {
  /** Empty: all namespaces. */
  namespaces: string[];
  excludeNamespaces: string[];
  selector: string;
  labelPrefix: string;
  minAgeMs: number;
  /** As written (`7d`, `forever`); absent when none. */
  retainFor?: string;
  /** The collectors that decided it, in delete order; absent: PipelineResources alone (every plan before leftovers). */
  collect?: CollectorName[];
  /** The runs' policy from the flags, present exactly when `collect` names a run collector. */
  runs?: PlanRunSettings;
  /** --pruner-config: the namespace of tektoncd/pruner's global ConfigMap; apply reads its ConfigMaps again. */
  prunerConfig?: string;
}

/**
 * The runs' policy a plan was decided with (RunPolicy's values, from the flags). Apply decides
 * every run again with it, over the whole listing, so a run now among its group's N newest,
 * or created again under its name, is not deleted.
 */
export interface PlanRunSettings {
  keepSuccessful?: number;
  keepFailed?: number;
  /** `--keep` for a limit --keep gave, as the decisions name it. */
  limitFlags?: { keepSuccessful?: '--keep'; keepFailed?: '--keep' };
  /** As written (`7d`, `forever`). */
  ttl?: string;
  groupBy?: string;
  requireResultsStored: boolean;
}

export interface PlanCluster {
  server: string;
  /** uid of the kube-system Namespace; absent when the identity may not read it. */
  id?: string;
}

export interface PlanEntry {
  namespace: string;
  kind: TargetKindName;
  name: string;
  uid: string;
  resourceVersion: string;
  reason: Reason;
}

export interface Plan {
  apiVersion: typeof PLAN_API_VERSION;
  kind: typeof PLAN_KIND;
  /** ISO 8601, when the dry run decided. */
  createdAt: string;
  /**
   * The cluster the dry run read: the API server as the client named it, and the uid of the
   * cluster's kube-system Namespace when it could be read. The uid names the cluster however
   * it is reached (a laptop's kubeconfig and a pod's in-cluster address differ).
   */
  cluster: PlanCluster;
  settings: PlanSettings;
  /** Sorted by namespace, kind, then name. */
  entries: PlanEntry[];
  /** `sha256:<hex>` over the canonical JSON of everything above. */
  digest: string;
}

/** A plan that cannot be used: one line saying what is wrong and what to do (exit 2). */
export class PlanError extends Error {
  override name = 'PlanError';
}

/** The plan of a dry run: its delete decisions, and the settings and cluster that produced them. */
export function buildPlan(input: { decisions: readonly Decision[]; settings: PlanSettings; cluster: PlanCluster; createdAt: Date }): Plan {
  const entries = input.decisions
    .filter((decision) => decision.action === 'delete')
    .map(({ target, reason }): PlanEntry => ({
      namespace: target.namespace,
      kind: target.kind,
      name: target.name,
      uid: target.uid,
      resourceVersion: target.resourceVersion,
      reason,
    }))
    .sort((a, b) => compare(a.namespace, b.namespace) || compare(a.kind, b.kind) || compare(a.name, b.name));
  const body: Omit<Plan, 'digest'> = {
    apiVersion: PLAN_API_VERSION,
    kind: PLAN_KIND,
    createdAt: input.createdAt.toISOString(),
    cluster: { server: input.cluster.server, ...(input.cluster.id !== undefined && { id: input.cluster.id }) },
    settings: input.settings,
    entries,
  };
  return { ...body, digest: planDigest(body) };
}

/** `sha256:<hex>` of the canonical JSON (object keys sorted, no spaces) of a plan without its digest. */
export function planDigest(body: Omit<Plan, 'digest'>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

/** JSON with every object's keys in code-unit order: the same bytes however the object was built. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => compare(a, b));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The plan file's text, as written: pretty JSON and a final newline. */
export function renderPlan(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

/**
 * Reads a plan file's text. Anything but a whole, unchanged plan is refused: a file that is
 * not a plan, a field of the wrong shape, or content whose digest is not the one written in
 * it (edited by hand, cut short, merged badly).
 */
export function parsePlan(text: string, file: string): Plan {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new PlanError(`${file} is not a plan: not JSON; write one with a dry run and --plan-file`);
  }
  const plan = shapeOf(raw, file);
  // Over the file's own content: a plan written before entries could be of other kinds reads
  // with kind PipelineResource where it had none, and still matches its digest.
  const { digest: _digest, ...written } = raw as Record<string, unknown>;
  if (`sha256:${createHash('sha256').update(canonicalJson(written)).digest('hex')}` !== plan.digest) {
    throw new PlanError(`${file} was changed after it was written (its digest does not match its content): write a new plan with a dry run and --plan-file`);
  }
  return plan;
}

/** What `apply` checks before it reads anything: the plan's cluster, age and (when pinned) digest. */
export function checkPlan(plan: Plan, file: string, context: { cluster: PlanCluster; now: Date; maxAgeMs: number; expectedDigest?: string }): void {
  if (context.expectedDigest !== undefined && context.expectedDigest !== plan.digest) {
    throw new PlanError(`${file} has digest ${plan.digest}, not the ${context.expectedDigest} given with --plan-digest: apply the plan that was reviewed`);
  }
  checkCluster(plan.cluster, context.cluster, file);
  const createdMs = Date.parse(plan.createdAt);
  const ageMs = context.now.getTime() - createdMs;
  if (ageMs > context.maxAgeMs) {
    throw new PlanError(
      `${file} is ${formatDuration(ageMs)} old, older than --plan-max-age ${formatDuration(context.maxAgeMs)}: make a new plan, or raise --plan-max-age`,
    );
  }
  if (ageMs < -FUTURE_SKEW_MS) {
    throw new PlanError(`${file} says it was made at ${plan.createdAt}, in the future of this machine's clock: check the clocks, or make a new plan`);
  }
}

/**
 * The same cluster: by the kube-system uid when both sides know it (the server address may
 * differ, in-cluster and out), else by the server address.
 */
function checkCluster(planned: PlanCluster, now: PlanCluster, file: string): void {
  if (planned.id !== undefined && now.id !== undefined) {
    if (planned.id !== now.id) {
      throw new PlanError(`${file} was made for another cluster (kube-system uid ${planned.id}, here ${now.id}; server ${redactUrl(planned.server)}): make a plan on this cluster`);
    }
    return;
  }
  if (normalServer(planned.server) !== normalServer(now.server)) {
    throw new PlanError(`${file} was made for the cluster at ${redactUrl(planned.server)}, not ${redactUrl(now.server)}: make a plan on this cluster`);
  }
}

/** The policy a plan's settings stand for: `apply` decides with these, not with its own flags. */
export function planPolicy(settings: PlanSettings): Policy {
  const retainFor = settings.retainFor === undefined ? undefined : parseRetentionDuration(settings.retainFor);
  return {
    labelPrefix: settings.labelPrefix,
    minAgeMs: settings.minAgeMs,
    ...(retainFor?.ok === true && { retainFor: retainFor.value }),
    ...(settings.runs !== undefined && { runs: { ...planRunPolicy(settings.runs), ...(settings.selector !== '' && { selector: settings.selector }) } }),
  };
}

/** The runs' policy a plan's run settings stand for (shapeOf checked each value). */
function planRunPolicy(runs: PlanRunSettings): RunPolicy {
  const ttl = runs.ttl === undefined ? undefined : parseRunTtl(runs.ttl);
  return {
    ...(runs.keepSuccessful !== undefined && { keepSuccessful: runs.keepSuccessful }),
    ...(runs.keepFailed !== undefined && { keepFailed: runs.keepFailed }),
    ...(ttl?.ok === true && { ttl: ttl.value }),
    ...(runs.groupBy !== undefined && { groupBy: runs.groupBy }),
    requireResultsStored: runs.requireResultsStored,
    ...(runs.limitFlags !== undefined && { limitFlags: { ...runs.limitFlags } }),
  };
}

/** What a plan records of a pass's run policy: its values from the flags, not what --pruner-config adds (apply reads that again). */
export function planRunSettings(runs: RunPolicy): PlanRunSettings {
  return {
    ...(runs.keepSuccessful !== undefined && { keepSuccessful: runs.keepSuccessful }),
    ...(runs.keepFailed !== undefined && { keepFailed: runs.keepFailed }),
    ...(runs.limitFlags !== undefined && {
      limitFlags: { ...(runs.limitFlags.keepSuccessful !== undefined && { keepSuccessful: '--keep' as const }), ...(runs.limitFlags.keepFailed !== undefined && { keepFailed: '--keep' as const }) },
    }),
    ...(runs.ttl !== undefined && { ttl: formatRetentionDuration(runs.ttl) }),
    ...(runs.groupBy !== undefined && { groupBy: runs.groupBy }),
    requireResultsStored: runs.requireResultsStored,
  };
}

/** The settings a plan's dry run decided with; a plan does not hold the scope's namespaceSelector. */
export function planPassSettings(settings: PlanSettings): PassSettings {
  return {
    scope: { namespaces: settings.namespaces, excludeNamespaces: settings.excludeNamespaces, selector: settings.selector },
    policy: planPolicy(settings),
    collect: settings.collect ?? DEFAULT_COLLECTORS,
    ...(settings.prunerConfig !== undefined && { prunerConfig: settings.prunerConfig }),
  };
}

/** A pass's decisions restricted to a plan: what `apply` may delete, and what it reports. */
export interface PlannedPass {
  /** The fresh decisions of the planned targets that were listed, and nothing else. */
  decisions: Decision[];
  /** uids the delete phase may delete: planned, unchanged, and decided for deletion now. */
  deletable: Set<string>;
  /** Results known before deleting: `changed` for a planned target that is not the planned object any more. */
  results: Map<string, Result>;
  /** Planned targets the pass did not list: gone, or no longer matching the plan's selector. */
  unlisted: PlanEntry[];
}

/**
 * Keeps the decisions of planned targets. A target whose uid or resourceVersion is not the
 * planned one is `changed` (never deleted: what was reviewed is not what is there). Every
 * other planned target goes as the fresh decision says: deleted only if it would be now too.
 */
export function restrictToPlan(plan: Plan, decisions: readonly Decision[]): PlannedPass {
  const byName = new Map(decisions.map((decision) => [key(decision.target), decision]));
  const kept: Decision[] = [];
  const deletable = new Set<string>();
  const results = new Map<string, Result>();
  const unlisted: PlanEntry[] = [];
  for (const entry of plan.entries) {
    const decision = byName.get(key(entry));
    if (decision === undefined) {
      unlisted.push(entry);
      continue;
    }
    if (decision.target.uid !== entry.uid || decision.target.resourceVersion !== entry.resourceVersion) {
      const what = decision.target.uid !== entry.uid ? 'deleted and created again' : `changed (resourceVersion ${entry.resourceVersion} in the plan, ${decision.target.resourceVersion} now)`;
      kept.push({ ...decision, message: `${decision.message}; not deleted: it was ${what} since the plan was made` });
      results.set(decision.target.uid, 'changed');
      continue;
    }
    kept.push(decision);
    if (decision.action === 'delete') deletable.add(decision.target.uid);
  }
  return { decisions: kept, deletable, results, unlisted };
}

/**
 * The report's decision for a planned target the pass did not list: `gone` when it no longer
 * exists (or exists with another uid), `changed` when it is there but no longer matches the
 * plan's selector. Either way it is not deleted.
 */
export function unlistedDecision(entry: PlanEntry, now: TargetRecord | null): { decision: Decision; result: Result } {
  const target = now !== null && now.uid === entry.uid ? now : plannedTarget(entry);
  const there = now !== null && now.uid === entry.uid;
  const message = there
    ? 'planned for deletion, but no longer matches the plan\'s selector: not deleted'
    : now === null
      ? 'planned for deletion, and gone since the plan was made'
      : 'planned for deletion, and gone since the plan was made (another object has its name now)';
  return { decision: { target, action: 'delete', reason: entry.reason, message, references: [], warnings: [] }, result: there ? 'changed' : 'gone' };
}

/** Why an object is or is not in a plan, for `explain --plan`; `name` without a kind is a PipelineResource's. */
export function planVerdict(plan: Plan, target: Pick<TargetRecord, 'namespace' | 'name' | 'uid' | 'resourceVersion'> | null, name: { namespace: string; name: string; kind?: TargetKindName }): string {
  const kind = name.kind ?? 'PipelineResource';
  const entry = plan.entries.find((candidate) => candidate.kind === kind && candidate.namespace === name.namespace && candidate.name === name.name);
  if (entry === undefined) {
    return `not in the plan ${plan.digest}: the dry run of ${plan.createdAt} did not decide to delete ${name.namespace}/${name.name}, so apply never deletes it`;
  }
  const planned = `in the plan ${plan.digest} (${entry.reason}, uid ${entry.uid}, resourceVersion ${entry.resourceVersion})`;
  if (target === null) return `${planned}; it is gone since, so apply reports it gone`;
  if (target.uid !== entry.uid) return `${planned}; it was deleted and created again since (uid ${target.uid} now), so apply reports it changed and keeps it`;
  if (target.resourceVersion !== entry.resourceVersion) {
    return `${planned}; it changed since (resourceVersion ${target.resourceVersion} now), so apply reports it changed and keeps it`;
  }
  return `${planned}; unchanged since, so apply deletes it if a fresh decision still says delete`;
}

function plannedTarget(entry: PlanEntry): TargetRecord {
  return { kind: entry.kind, namespace: entry.namespace, name: entry.name, uid: entry.uid, resourceVersion: entry.resourceVersion, createdAt: '', labels: {}, annotations: {}, ownerReferences: [] };
}

/** A PVC and a Secret may share a name: the kind is part of what names a target. */
function key(target: { kind: TargetKindName; namespace: string; name: string }): string {
  return `${target.kind}/${target.namespace}/${target.name}`;
}

const TARGET_KINDS: readonly TargetKindName[] = COLLECTOR_NAMES.map((name) => COLLECTORS[name].kind);

/** `https://host:443/` and `https://host` name the same server. */
function normalServer(server: string): string {
  try {
    const url = new URL(server);
    const port = url.port === '' || (url.protocol === 'https:' && url.port === '443') || (url.protocol === 'http:' && url.port === '80') ? '' : `:${url.port}`;
    return `${url.protocol}//${url.hostname.toLowerCase()}${port}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return server;
  }
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** The plan's fields one by one, each of the type it must have; anything else is refused naming the field. */
function shapeOf(raw: unknown, file: string): Plan {
  const fail = (field: string, expected: string): never => {
    throw new PlanError(`${file} is not a plan: ${field} should be ${expected}; write one with a dry run and --plan-file`);
  };
  const object = (value: unknown, field: string): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : fail(field, 'an object');
  const text = (value: unknown, field: string): string => (typeof value === 'string' ? value : fail(field, 'a string'));
  const texts = (value: unknown, field: string): string[] =>
    Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : fail(field, 'a list of strings');
  const collectorsOf = (value: unknown): CollectorName[] => {
    const names = texts(value, 'settings.collect');
    return names.every(isCollectorName) ? names : fail('settings.collect', `a list of ${COLLECTOR_NAMES.join(', ')}`);
  };
  const root = object(raw, 'the file');
  if (root['apiVersion'] !== PLAN_API_VERSION || root['kind'] !== PLAN_KIND) fail('apiVersion/kind', `${PLAN_API_VERSION}/${PLAN_KIND}`);
  const createdAt = text(root['createdAt'], 'createdAt');
  if (Number.isNaN(Date.parse(createdAt))) fail('createdAt', 'an ISO 8601 time');
  const cluster = object(root['cluster'], 'cluster');
  const settings = object(root['settings'], 'settings');
  const minAgeMs = settings['minAgeMs'];
  if (typeof minAgeMs !== 'number' || !Number.isSafeInteger(minAgeMs) || minAgeMs < 0) fail('settings.minAgeMs', 'a whole number of milliseconds');
  const retainFor = settings['retainFor'];
  if (retainFor !== undefined && (typeof retainFor !== 'string' || !parseRetentionDuration(retainFor).ok)) fail('settings.retainFor', 'a duration such as 7d or forever');
  const collect = settings['collect'] === undefined ? undefined : collectorsOf(settings['collect']);
  const runs = runSettingsOf(settings['runs'], collect ?? DEFAULT_COLLECTORS, fail);
  const prunerConfig = settings['prunerConfig'];
  if (prunerConfig !== undefined && (typeof prunerConfig !== 'string' || !parseNamespace(prunerConfig).ok)) fail('settings.prunerConfig', 'a namespace name');
  if (!Array.isArray(root['entries'])) fail('entries', 'a list');
  const entries = (root['entries'] as unknown[]).map((item, index): PlanEntry => {
    const entry = object(item, `entries[${index}]`);
    // No kind: a PipelineResource, as every entry was before there were other kinds.
    const kind = entry['kind'] ?? 'PipelineResource';
    if (!TARGET_KINDS.some((known) => known === kind)) fail(`entries[${index}].kind`, `one of ${TARGET_KINDS.join(', ')}`);
    const reason = text(entry['reason'], `entries[${index}].reason`);
    if (!(ALL_REASONS as readonly string[]).includes(reason)) fail(`entries[${index}].reason`, `one of ${ALL_REASONS.join(', ')}`);
    return {
      namespace: text(entry['namespace'], `entries[${index}].namespace`),
      kind: kind as TargetKindName,
      name: text(entry['name'], `entries[${index}].name`),
      uid: text(entry['uid'], `entries[${index}].uid`),
      resourceVersion: text(entry['resourceVersion'], `entries[${index}].resourceVersion`),
      reason: reason as Reason,
    };
  });
  return {
    apiVersion: PLAN_API_VERSION,
    kind: PLAN_KIND,
    createdAt,
    cluster: {
      server: text(cluster['server'], 'cluster.server'),
      ...(cluster['id'] !== undefined && { id: text(cluster['id'], 'cluster.id') }),
    },
    settings: {
      namespaces: texts(settings['namespaces'], 'settings.namespaces'),
      excludeNamespaces: texts(settings['excludeNamespaces'], 'settings.excludeNamespaces'),
      selector: text(settings['selector'], 'settings.selector'),
      labelPrefix: text(settings['labelPrefix'], 'settings.labelPrefix'),
      minAgeMs: minAgeMs as number,
      ...(typeof retainFor === 'string' && { retainFor }),
      ...(collect !== undefined && { collect }),
      ...(runs !== undefined && { runs }),
      ...(typeof prunerConfig === 'string' && { prunerConfig }),
    },
    entries,
    digest: text(root['digest'], 'digest'),
  };
}

/**
 * settings.runs, each value as its flag takes it: there exactly when the plan's collectors
 * name a run collector (a plan of runs decided without their policy is no plan of this tool's).
 */
function runSettingsOf(value: unknown, collect: readonly CollectorName[], fail: (field: string, expected: string) => never): PlanRunSettings | undefined {
  const runCollectors = collect.filter((name) => COLLECTORS[name].decides === 'history');
  if (value === undefined) {
    if (runCollectors.length > 0) fail('settings.runs', `the runs' settings, since settings.collect names ${runCollectors.join(' and ')}`);
    return undefined;
  }
  if (runCollectors.length === 0) fail('settings.runs', 'absent, since settings.collect names no run collector');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('settings.runs', 'an object');
  const runs = value as Record<string, unknown>;
  const limit = (field: 'keepSuccessful' | 'keepFailed'): number | undefined => {
    const given = runs[field];
    if (given === undefined) return undefined;
    return typeof given === 'number' && parseHistoryLimit(String(given)).ok ? given : fail(`settings.runs.${field}`, 'a whole number from 0 to 1000000');
  };
  const keepSuccessful = limit('keepSuccessful');
  const keepFailed = limit('keepFailed');
  const limitFlags = runs['limitFlags'];
  if (limitFlags !== undefined) {
    const flags = limitFlags !== null && typeof limitFlags === 'object' && !Array.isArray(limitFlags) ? (limitFlags as Record<string, unknown>) : fail('settings.runs.limitFlags', 'an object');
    const known = Object.entries(flags).every(([key, flag]) => (key === 'keepSuccessful' || key === 'keepFailed') && flag === '--keep');
    if (!known) fail('settings.runs.limitFlags', 'keepSuccessful and keepFailed, each "--keep"');
  }
  const ttl = runs['ttl'];
  if (ttl !== undefined && (typeof ttl !== 'string' || !parseRunTtl(ttl).ok)) fail('settings.runs.ttl', 'a duration such as 7d or forever');
  const groupBy = runs['groupBy'];
  if (groupBy !== undefined && (typeof groupBy !== 'string' || !isLabelKey(groupBy))) fail('settings.runs.groupBy', 'a label key');
  const requireResultsStored = runs['requireResultsStored'];
  if (typeof requireResultsStored !== 'boolean') fail('settings.runs.requireResultsStored', 'true or false');
  return {
    ...(keepSuccessful !== undefined && { keepSuccessful }),
    ...(keepFailed !== undefined && { keepFailed }),
    ...(limitFlags !== undefined && { limitFlags: limitFlags as PlanRunSettings['limitFlags'] & object }),
    ...(typeof ttl === 'string' && { ttl }),
    ...(typeof groupBy === 'string' && { groupBy }),
    requireResultsStored: requireResultsStored,
  };
}

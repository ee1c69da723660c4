/**
 * The runs' decision (docs/spec.md, "Runs"): which finished PipelineRuns and standalone
 * TaskRuns go, by their history in their group and their age. Pure: the runs of one kind
 * as listed, the namespaces, the policy and now come in; decisions, each with the facts
 * `explain` renders, go out. Nothing here reads the clock or the cluster.
 *
 * Choices (written down for users in docs/spec.md, "Runs"):
 * - Group: the --group-by label when set and on the run, else `tekton.dev/pipeline`
 *   (PipelineRuns) or `tekton.dev/task`, else `tekton.dev/clusterTask` (TaskRuns of a
 *   ClusterTask carried that label instead of `tekton.dev/task`: tektoncd/pipeline 25b244609,
 *   pkg/reconciler/taskrun/taskrun.go), in the run's namespace; a run with none is in its
 *   namespace's one group of runs without a group label.
 * - Outcome: succeeded, or failed (a cancelled or timed-out run counts as failed).
 * - Rank: newest first by completionTime (ties by name) among the group's finished runs of
 *   that outcome that hold a slot. A run that an earlier rule keeps (retained, too young,
 *   not stored by Results...) or that is already being deleted holds no slot: the N slots go
 *   to runs that would otherwise go, which keeps more.
 * - A limit of the external policy's that names the runs it counts (--pruner-config: the set
 *   tektoncd/pruner lists for it) ranks the run in that set instead, newest first by
 *   creationTimestamp as pruner sorts (ties by name), among the runs of its kind, namespace
 *   and outcome that hold a slot and that the set includes. The same runs hold no slot there:
 *   pruner counts them, so a slot not held keeps one more run than pruner does, never one less.
 * - Each setting is read, most specific first: the run's label (then its annotation), its
 *   Namespace's label, the external policy (--pruner-config), the flag. `keep-successful`
 *   and `keep-failed` win over `keep` where both are set on the same object.
 * - A limit and a TTL on the same outcome: the limit's N newest stay, the rest go; the TTL
 *   decides the runs of an outcome no limit covers.
 */
import { flat } from './flat.js';
import { actionFor, retentionFacts, type DecisionFacts, type RuleEnd, type TargetFacts, type Verdict } from './facts.js';
import { compareText } from './graph.js';
import { formatDuration, formatInstant, formatRetentionDuration, parseRetentionDuration, parseTimestampMs, type Parsed } from './retention.js';
import { namespaceRetained, retained, retainFor, retainUntil, retentionInvalid, tooYoung } from './rules.js';
import { EMPTY_LIST, type CountedRuns, type Decision, type ExternalRunLimits, type NamespaceRecord, type Policy, type Reason, type RetentionDuration, type RunPolicy, type TargetRecord } from './types.js';

/** Set by Tekton Results' watcher once it stored the run (tektoncd/results, annotation `Stored`). */
export const RESULTS_STORED_ANNOTATION = 'results.tekton.dev/stored';

/** The labels Tekton names a run's Pipeline or Task with, in the order read. */
export const PIPELINE_LABEL = 'tekton.dev/pipeline';
export const TASK_LABEL = 'tekton.dev/task';
export const CLUSTER_TASK_LABEL = 'tekton.dev/clusterTask';
export const RUN_GROUP_LABELS: readonly string[] = [PIPELINE_LABEL, TASK_LABEL, CLUSTER_TASK_LABEL];

/** The run-policy keys under the label prefix, e.g. `tekton-resource-gc.io/keep-failed`. */
export interface RunPolicyKeys {
  keep: string;
  keepSuccessful: string;
  keepFailed: string;
  runTtl: string;
}

export function runPolicyKeys(prefix: string): RunPolicyKeys {
  return { keep: `${prefix}/keep`, keepSuccessful: `${prefix}/keep-successful`, keepFailed: `${prefix}/keep-failed`, runTtl: `${prefix}/run-ttl` };
}

const RUN_POLICY_ENDINGS: readonly string[] = Object.values(runPolicyKeys(''));

/** A key a run-policy rule could read with some --label-prefix; like isRetentionKey, whatever the prefix. */
export function isRunPolicyKey(key: string): boolean {
  return RUN_POLICY_ENDINGS.some((ending) => key.endsWith(ending) && key.length > ending.length);
}

/** The largest history limit: far beyond any group's runs, and within what a label holds. */
export const MAX_HISTORY_LIMIT = 1_000_000;

/** A history limit: a whole number from 0 (keep none) to MAX_HISTORY_LIMIT. */
export function parseHistoryLimit(text: string): Parsed<number> {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > MAX_HISTORY_LIMIT) return { ok: false, error: `expected a whole number from 0 to ${MAX_HISTORY_LIMIT}, such as 5` };
  return { ok: true, value: Number(trimmed) };
}

/** A run TTL: a duration, or `forever` (never by age). */
export function parseRunTtl(text: string): Parsed<RetentionDuration> {
  return parseRetentionDuration(text);
}

export type Outcome = 'succeeded' | 'failed';

/** A setting as applied to one run, and where it was set: `label <key>`, `annotation <key>`, `namespace <ns> label <key>`, the external source, or the flag. */
export interface Applied<T> {
  value: T;
  from: string;
  /** A history limit of the external policy's (--pruner-config): the runs it counts, in place of the run's group. */
  counts?: CountedRuns;
}

/** When a run would go if nothing but the clock changed: now, at an instant, never (until someone changes something), or unknown (it depends on runs to come). */
export type GoesAt = 'now' | number | 'never' | 'unknown';

/** The facts a run's decision stands on: what `explain pipelinerun/...` says. */
export interface RunFacts {
  /** `tekton.dev/pipeline=build`, or `(no group label)`. */
  group: string;
  /** Absent while the run has not finished. */
  outcome?: Outcome;
  /** 1 for the newest; absent for a run that holds no slot (not finished, kept by an earlier rule, being deleted). */
  rank?: number;
  /** How many of the group's runs of its outcome hold a slot (of `countedAmong`'s when set). */
  ofOutcome?: number;
  /**
   * When its limit came from tektoncd/pruner's ConfigMaps: the runs pruner counts it among
   * (`the PipelineRuns of namespace ci labelled env=prod`), where `rank` is its place, newest
   * first by creation, in place of its group's by completion.
   */
  countedAmong?: string;
  /** The history limit of its outcome, and where it was set. */
  limit?: Applied<number>;
  ttl?: Applied<RetentionDuration>;
  goesAt: GoesAt;
  /** The ends of the rules that time lifts, as the other tables' facts have them. */
  ends: DecisionFacts['ends'];
  /** Row 3: the retention and run-policy values on it or its Namespace that cannot be read, as explain lists them. */
  invalid: readonly string[];
}

export interface RunDecisionWithFacts {
  decision: Decision;
  facts: RunFacts;
}

/** The group key a run's namespace, kind and labels give; runs with equal keys share a history. */
export function runGroup(run: Pick<TargetRecord, 'kind' | 'labels'>, groupBy: string | undefined): string {
  const labels = groupBy === undefined ? RUN_GROUP_LABELS : [groupBy, ...RUN_GROUP_LABELS];
  for (const label of labels) {
    const value = run.labels[label];
    if (value !== undefined) return `${label}=${value}`;
  }
  return NO_GROUP;
}

/** The group of the runs that carry no group label, one per namespace and kind. */
export const NO_GROUP = '(no group label)';

/**
 * The decision of every run in `runs` (targets of one run kind, of any namespaces), each with
 * its facts; `keep` picks what of each is kept, so that a pass drops the facts at once. In
 * the order given. With `only`, only the runs it picks are decided (--selector: the targets of
 * the pass), each ranked among every run of its group in `runs`, picked or not: a run's place
 * is what it would be without `only`, and so is its decision.
 */
export function decideRuns<T>(
  runs: readonly TargetRecord[],
  namespaces: ReadonlyMap<string, NamespaceRecord>,
  policy: Policy,
  nowMs: number,
  keep: (decided: RunDecisionWithFacts) => T,
  only?: (run: TargetRecord) => boolean,
): T[] {
  const runPolicy: RunPolicy = policy.runs ?? { requireResultsStored: false };
  const settings = new SettingsReader(policy.labelPrefix, runPolicy);
  const read: (Reading | undefined)[] = runs.map((run) => readRun(run, namespaces.get(run.namespace), policy, runPolicy, settings, nowMs));
  rank(read as Reading[]);
  const decided: T[] = [];
  for (let i = 0; i < read.length; i += 1) {
    const one = read[i] as Reading;
    // Each reading is let go once decided: the decisions grow as the readings go.
    read[i] = undefined;
    if (only === undefined || only(one.target)) decided.push(keep(finish(one, nowMs)));
  }
  return decided;
}

/**
 * The decisions, with their facts, of the runs of one namespace (`explain pipelinerun/NS/NAME`):
 * a run's history is its namespace's, so deciding that namespace alone decides as a pass does.
 * Every run is decided, whatever --selector picks (explain says apart whether it matches).
 * Sorted by kind, then name.
 */
export function runDecisionsIn(namespace: string, runs: readonly TargetRecord[], namespaces: ReadonlyMap<string, NamespaceRecord>, policy: Policy, now: Date): RunDecisionWithFacts[] {
  const here = runs.filter((run) => run.namespace === namespace && run.run !== undefined);
  return decideRuns(here, namespaces, policy, now.getTime(), (decided) => decided).sort(
    (a, b) => compareText(a.decision.target.kind, b.decision.target.kind) || compareText(a.decision.target.name, b.decision.target.name),
  );
}

/**
 * One run while its decision is made: the verdict of an earlier rule, or what the history rows
 * read. Only this is held for every run of a kind until all are ranked; the facts the earlier
 * rows read are dropped once their verdict is known.
 */
interface Reading {
  target: TargetRecord;
  warnings: readonly string[];
  /** Only when some value cannot be read: rare, so most runs hold none. */
  invalid?: readonly string[];
  ends: DecisionFacts['ends'];
  group: string;
  outcome?: Outcome;
  finishedMs?: number;
  early: Verdict | null;
  limit?: Applied<number>;
  ttl?: Applied<RetentionDuration>;
  rank?: number;
  ofOutcome?: number;
  /** Absent while its creation time has not been read for a ranking by creation (rankCounted). */
  createdMs?: number;
}

function readRun(run: TargetRecord, namespace: NamespaceRecord | undefined, policy: Policy, runPolicy: RunPolicy, reader: SettingsReader, nowMs: number): Reading {
  const facts = baseFacts(run, namespace, policy, nowMs);
  const group = reader.group(run);
  const state = run.run?.state ?? 'running';
  const outcome: Outcome | undefined = state === 'succeeded' ? 'succeeded' : state === 'failed' || state === 'cancelled' ? 'failed' : undefined;
  const finishedMs = run.run?.finishedAt === undefined ? undefined : parseTimestampMs(run.run.finishedAt);
  const settings = reader.read(run, namespace, group);
  const invalid = [...facts.invalid, ...settings.invalid];
  const withInvalid: TargetFacts = invalid.length === facts.invalid.length ? facts : { ...facts, invalid, warnings: [...facts.warnings, ...settings.invalid] };
  const limit = outcome === undefined ? undefined : outcome === 'succeeded' ? settings.keepSuccessful : settings.keepFailed;
  const ttl = settings.ttl;
  const ttlEnd: RuleEnd | undefined = ttl === undefined ? undefined : ttl.value.kind === 'forever' ? 'never' : finishedMs === undefined ? 'unknown' : finishedMs + ttl.value.ms;
  const dated: TargetFacts = ttlEnd === undefined ? withInvalid : { ...withInvalid, ends: withRunTtlEnd(withInvalid.ends, ttlEnd) };
  const early = earlyVerdict(dated, runPolicy, outcome === undefined || finishedMs === undefined);
  return {
    target: run,
    warnings: dated.warnings.length === 0 ? EMPTY_LIST : dated.warnings,
    ...(dated.invalid.length > 0 && { invalid: dated.invalid }),
    ends: dated.ends,
    group,
    early,
    ...(outcome !== undefined && { outcome }),
    ...(finishedMs !== undefined && { finishedMs }),
    ...(limit !== undefined && { limit }),
    ...(ttl !== undefined && { ttl }),
  };
}

/**
 * `ends` and the run TTL's: a literal that the other ends are copied into. Not `{ ...ends,
 * 'run-ttl': end }`: V8 gives each object a spread makes and a property is then added to a
 * hidden class of its own, about 300 bytes, and a pass holds one `ends` per run until its
 * kind is ranked (types.ts amendDecision says more).
 */
function withRunTtlEnd(ends: DecisionFacts['ends'], end: RuleEnd): DecisionFacts['ends'] {
  const { 'retain-until': retainUntil, 'retain-for': retainFor } = ends;
  return { 'min-age': ends['min-age'], ...(retainUntil !== undefined && { 'retain-until': retainUntil }), ...(retainFor !== undefined && { 'retain-for': retainFor }), 'run-ttl': end };
}

/** The facts the rows the runs share with every table read (retention, min age), as decide.ts gathers them for a target. */
function baseFacts(run: TargetRecord, namespace: NamespaceRecord | undefined, policy: Policy, nowMs: number): TargetFacts {
  // retain-for counts from the run's own completion.
  const finishedMs = run.run?.finishedAt === undefined ? undefined : parseTimestampMs(run.run.finishedAt);
  // The literal's own fields first, then the spread: a spread first makes a hidden class per object (withRunTtlEnd).
  return {
    target: run,
    nowMs,
    ...retentionFacts(run, namespace, policy, finishedMs),
    references: EMPTY_LIST,
    unreadableRuns: EMPTY_LIST,
    userClaims: EMPTY_LIST,
    releasedBy: EMPTY_LIST,
    holders: NO_HOLDERS,
  };
}

const NO_HOLDERS: TargetFacts['holders'] = { activePods: EMPTY_LIST, statefulSets: EMPTY_LIST, released: EMPTY_LIST };

/** Rows 1 to 8 (docs/spec.md, "Runs"): the first that keeps the run, else null (the history rows decide). */
function earlyVerdict(facts: TargetFacts, runPolicy: RunPolicy, active: boolean): Verdict | null {
  return (
    retained(facts) ??
    namespaceRetained(facts) ??
    retentionInvalid(facts) ??
    (active ? runActive(facts) : null) ??
    tooYoung(facts) ??
    retainUntil(facts) ??
    retainFor(facts) ??
    (runPolicy.requireResultsStored ? resultsNotStored(facts) : null)
  );
}

/** Row 4: a run that has not finished (pending, running, cancel requested and not yet done), or whose status cannot be read. */
function runActive({ target }: TargetFacts): Verdict {
  const unreadable = target.run?.unreadable;
  if (unreadable !== undefined) return { reason: 'run-active', message: flat`its status or owner cannot be read (${unreadable}), so it counts as running` };
  return { reason: 'run-active', message: flat`it has not finished (${target.run?.state ?? 'running'})` };
}

/** Row 8: with --require-results-stored, Tekton Results has not written `results.tekton.dev/stored: "true"` on it yet. */
function resultsNotStored({ target }: TargetFacts): Verdict | null {
  const stored = target.annotations[RESULTS_STORED_ANNOTATION];
  if (stored === 'true') return null;
  const found = stored === undefined ? `it has no ${RESULTS_STORED_ANNOTATION} annotation` : `its ${RESULTS_STORED_ANNOTATION} annotation is "${stored}"`;
  return { reason: 'results-not-stored', message: flat`Tekton Results has not stored it: ${found}, and --require-results-stored is on` };
}

/** Whether the run holds a place among the runs a limit counts: finished, decided by no earlier row, not being deleted. */
function holdsPlace(one: Reading): boolean {
  return one.early === null && one.outcome !== undefined && one.finishedMs !== undefined && one.target.deletionTimestamp === undefined;
}

/**
 * Ranks the runs that hold a place (holdsPlace). A run whose limit counts its group is ranked
 * among the group's runs of its outcome, newest first by completion, ties by name. A run whose
 * limit counts another set (tektoncd/pruner's, Applied.counts) is ranked in that set: every run
 * of its kind, namespace and outcome that holds a place and that the set includes, whatever
 * its own limit, newest first by creation, ties by name (pruner's sort is stable over a list
 * the API server returns by name: history_limiter.go:361-371).
 */
function rank(read: Reading[]): void {
  const slots = new Map<string, Reading[]>();
  const counted = new Map<string, { counts: CountedRuns; key: string }>();
  for (const one of read) {
    if (!holdsPlace(one)) continue;
    const key = `${one.target.namespace}\u0000${one.group}\u0000${one.outcome ?? ''}`;
    const list = slots.get(key);
    if (list === undefined) slots.set(key, [one]);
    else list.push(one);
    const counts = one.limit?.counts;
    if (counts !== undefined) counted.set(`${counts.key}\u0000${one.outcome ?? ''}`, { counts, key: `${one.target.namespace}\u0000${one.target.kind}\u0000${one.outcome ?? ''}` });
  }
  for (const list of slots.values()) {
    list.sort((a, b) => (b.finishedMs ?? 0) - (a.finishedMs ?? 0) || compareText(a.target.name, b.target.name));
    list.forEach((one, index) => {
      if (one.limit?.counts !== undefined) return;
      one.rank = index + 1;
      one.ofOutcome = list.length;
    });
  }
  if (counted.size > 0) rankCounted(read, [...counted.values()]);
}

/** Ranks each run whose limit counts a set in that set (rank's second half); the runs of a namespace, kind and outcome are gathered once. */
function rankCounted(read: readonly Reading[], sets: readonly { counts: CountedRuns; key: string }[]): void {
  const wanted = new Set(sets.map((set) => set.key));
  const holders = new Map<string, Reading[]>();
  for (const one of read) {
    if (!holdsPlace(one)) continue;
    const key = `${one.target.namespace}\u0000${one.target.kind}\u0000${one.outcome ?? ''}`;
    if (!wanted.has(key)) continue;
    one.createdMs ??= parseTimestampMs(one.target.createdAt) ?? 0;
    const list = holders.get(key);
    if (list === undefined) holders.set(key, [one]);
    else list.push(one);
  }
  for (const { counts, key } of sets) {
    const members = (holders.get(key) ?? []).filter((one) => counts.includes(one.target));
    members.sort((a, b) => (b.createdMs ?? 0) - (a.createdMs ?? 0) || compareText(a.target.name, b.target.name));
    members.forEach((one, index) => {
      if (one.limit?.counts !== counts) return;
      one.rank = index + 1;
      one.ofOutcome = members.length;
    });
  }
}

/** The decision: the earlier rule's verdict, else the history rows (9 to 13). */
function finish(one: Reading, nowMs: number): RunDecisionWithFacts {
  const verdict = one.early ?? historyVerdict(one, nowMs);
  const decision: Decision = {
    target: one.target,
    action: actionFor(verdict.reason),
    reason: verdict.reason,
    message: verdict.message,
    references: EMPTY_LIST,
    warnings: one.warnings.length === 0 ? EMPTY_LIST : one.warnings,
  };
  const runFacts: RunFacts = {
    group: one.group,
    ...(one.outcome !== undefined && { outcome: one.outcome }),
    ...(one.rank !== undefined && { rank: one.rank }),
    ...(one.ofOutcome !== undefined && { ofOutcome: one.ofOutcome }),
    ...(one.limit?.counts !== undefined && { countedAmong: one.limit.counts.text }),
    ...(one.limit !== undefined && { limit: one.limit }),
    ...(one.ttl !== undefined && { ttl: one.ttl }),
    goesAt: goesAt(verdict.reason, one.ends),
    ends: one.ends,
    invalid: one.invalid ?? EMPTY_LIST,
  };
  return { decision, facts: runFacts };
}

function historyVerdict(one: Reading, nowMs: number): Verdict {
  const { limit, ttl, rank: place, group } = one;
  const outcome = one.outcome ?? 'failed';
  const counts = limit?.counts;
  const inGroup = counts !== undefined ? `by creation among ${counts.text}` : group === NO_GROUP ? `of its namespace's runs ${NO_GROUP}` : `in group ${group}`;
  if (limit !== undefined) {
    if (place !== undefined && place <= limit.value) {
      return { reason: 'history-kept', message: flat`${ordinal(place)} newest of ${one.ofOutcome ?? place} ${outcome} runs ${inGroup}; ${limit.from} keeps ${limit.value}` };
    }
    const where = place === undefined ? 'it is already being deleted and holds no place' : `${ordinal(place)} newest of ${one.ofOutcome ?? place} ${outcome} runs ${inGroup}`;
    return { reason: 'history-exceeded', message: flat`${where}; ${limit.from} keeps ${limit.value}` };
  }
  if (ttl !== undefined) {
    const end = one.ends['run-ttl'];
    const text = formatRetentionDuration(ttl.value);
    if (end === 'never') return { reason: 'ttl-not-reached', message: flat`run TTL forever (${ttl.from})` };
    if (end === undefined || end === 'unknown') return { reason: 'ttl-not-reached', message: flat`run TTL ${text} (${ttl.from}) counts from its completion time, which cannot be read` };
    if (nowMs >= end) return { reason: 'ttl-expired', message: flat`finished at ${formatInstant(one.finishedMs ?? end)}, ${formatDuration(nowMs - (one.finishedMs ?? end))} ago; run TTL ${text} (${ttl.from})` };
    return { reason: 'ttl-not-reached', message: flat`run TTL ${text} (${ttl.from}) ends at ${formatInstant(end)}` };
  }
  return { reason: 'no-run-policy', message: flat`no history limit for ${outcome} runs and no run TTL apply to it` };
}

/** `1st`, `2nd`, `3rd`, `11th`, `22nd`. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

function goesAt(reason: Reason, ends: DecisionFacts['ends']): GoesAt {
  switch (reason) {
    case 'history-exceeded':
    case 'ttl-expired':
      return 'now';
    case 'ttl-not-reached': {
      const end = ends['run-ttl'];
      return typeof end === 'number' ? Math.max(end, typeof ends['min-age'] === 'number' ? ends['min-age'] : end) : end === 'never' ? 'never' : 'unknown';
    }
    // Kept by its rank, by time while no limit applies, or until a newer run takes its slot.
    case 'history-kept':
    case 'too-young':
    case 'retain-until':
    case 'retain-for':
      return 'unknown';
    default:
      return 'never';
  }
}

/** What the labels, the external policy and the flags set for one run, and the values that could not be read. */
interface Settings {
  keepSuccessful?: Applied<number>;
  keepFailed?: Applied<number>;
  ttl?: Applied<RetentionDuration>;
  invalid: string[];
}

/**
 * Each setting from the most specific place that sets it: the run, its Namespace, the
 * external policy, the flag. What every run shares is read once: the keys, the flags'
 * settings, each Namespace's, and each group's name (a pass holds one per run).
 */
class SettingsReader {
  private readonly keys: RunPolicyKeys;
  private readonly fromFlags: Level;
  private readonly namespaces = new Map<string, { level: Level; invalid: readonly string[] }>();
  private readonly groups = new Map<string, string>();

  constructor(
    labelPrefix: string,
    private readonly runPolicy: RunPolicy,
  ) {
    this.keys = runPolicyKeys(labelPrefix);
    this.fromFlags = levelOf(runPolicy, 'the flag', runPolicy.limitFlags);
  }

  /** runGroup's key, one string for all the runs of a group. */
  group(run: TargetRecord): string {
    const key = runGroup(run, this.runPolicy.groupBy);
    const known = this.groups.get(key);
    if (known !== undefined) return known;
    this.groups.set(key, key);
    return key;
  }

  read(run: TargetRecord, namespace: NamespaceRecord | undefined, group: string): Settings {
    const invalid: string[] = [];
    const onRun = readLevel((key) => ownValue(run, key), this.keys, invalid);
    const onNamespace = namespace === undefined ? {} : this.namespaceLevel(namespace);
    if (namespace !== undefined) invalid.push(...(this.namespaces.get(namespace.name)?.invalid ?? EMPTY_LIST));
    const external: ExternalRunLimits | undefined = this.runPolicy.external?.(run, group);
    if (external?.invalid !== undefined) invalid.push(external.invalid);
    const fromExternal: Level = external === undefined ? {} : externalLevel(external);
    const pick = <K extends keyof Level>(key: K): Level[K] => onRun[key] ?? onNamespace[key] ?? fromExternal[key] ?? this.fromFlags[key];
    const keepSuccessful = pick('keepSuccessful');
    const keepFailed = pick('keepFailed');
    const ttl = pick('ttl');
    return { ...(keepSuccessful !== undefined && { keepSuccessful }), ...(keepFailed !== undefined && { keepFailed }), ...(ttl !== undefined && { ttl }), invalid };
  }

  private namespaceLevel(namespace: NamespaceRecord): Level {
    let known = this.namespaces.get(namespace.name);
    if (known === undefined) {
      const invalid: string[] = [];
      known = { level: readLevel((key) => namespaceValue(namespace, key), this.keys, invalid), invalid };
      this.namespaces.set(namespace.name, known);
    }
    return known.level;
  }
}

interface Level {
  keepSuccessful?: Applied<number>;
  keepFailed?: Applied<number>;
  ttl?: Applied<RetentionDuration>;
}

/** A level's settings, each named by where it was set: `each`'s own (ExternalRunLimits.fieldFrom), else `from`, for the flags their flag. */
function levelOf(limits: { keepSuccessful?: number; keepFailed?: number; ttl?: RetentionDuration }, from: string, flags: RunPolicy['limitFlags'] = {}, each: ExternalRunLimits['fieldFrom'] = {}): Level {
  const flagged = (own: string | undefined, flag: string): string => own ?? (from === 'the flag' ? flag : from);
  return {
    ...(limits.keepSuccessful !== undefined && { keepSuccessful: { value: limits.keepSuccessful, from: flagged(each.keepSuccessful, flags.keepSuccessful ?? '--keep-successful') } }),
    ...(limits.keepFailed !== undefined && { keepFailed: { value: limits.keepFailed, from: flagged(each.keepFailed, flags.keepFailed ?? '--keep-failed') } }),
    ...(limits.ttl !== undefined && { ttl: { value: limits.ttl, from: flagged(each.ttl, '--run-ttl') } }),
  };
}

/**
 * The external policy's settings, each history limit with the runs it counts when it says.
 * Literals, not a spread and a property (withRunTtlEnd says why): a pass holds one per run.
 */
function externalLevel(external: ExternalRunLimits): Level {
  const { keepSuccessful, keepFailed, successfulCounts, failedCounts, fieldFrom = {} } = external;
  const limit = (value: number, from: string, counts: CountedRuns | undefined): Applied<number> => (counts === undefined ? { value, from } : { value, from, counts });
  const { ttl } = levelOf({ ...(external.ttl !== undefined && { ttl: external.ttl }) }, external.from, {}, fieldFrom);
  return {
    ...(keepSuccessful !== undefined && { keepSuccessful: limit(keepSuccessful, fieldFrom.keepSuccessful ?? external.from, successfulCounts) }),
    ...(keepFailed !== undefined && { keepFailed: limit(keepFailed, fieldFrom.keepFailed ?? external.from, failedCounts) }),
    ...(ttl !== undefined && { ttl }),
  };
}

/** A value as written, and where: the label, else the annotation, of a run. */
type Found = { text: string; where: string } | undefined;

function ownValue(run: TargetRecord, key: string): Found {
  const label = run.labels[key];
  if (label !== undefined) return { text: label, where: `label ${key}` };
  const annotation = run.annotations[key];
  return annotation === undefined ? undefined : { text: annotation, where: `annotation ${key}` };
}

function namespaceValue(namespace: NamespaceRecord, key: string): Found {
  const label = namespace.labels[key];
  return label === undefined ? undefined : { text: label, where: `namespace ${namespace.name} label ${key}` };
}

/** One object's settings: `keep-successful` and `keep-failed` over `keep`; a value that cannot be read is reported, never used. */
function readLevel(valueOf: (key: string) => Found, keys: RunPolicyKeys, invalid: string[]): Level {
  const limit = (key: string): Applied<number> | undefined => parsed(valueOf(key), parseHistoryLimit, invalid);
  const both = limit(keys.keep);
  const keepSuccessful = limit(keys.keepSuccessful) ?? both;
  const keepFailed = limit(keys.keepFailed) ?? both;
  const ttl = parsed(valueOf(keys.runTtl), parseRunTtl, invalid);
  return { ...(keepSuccessful !== undefined && { keepSuccessful }), ...(keepFailed !== undefined && { keepFailed }), ...(ttl !== undefined && { ttl }) };
}

function parsed<T>(found: Found, parse: (text: string) => Parsed<T>, invalid: string[]): Applied<T> | undefined {
  if (found === undefined) return undefined;
  const value = parse(found.text);
  if (value.ok) return { value: value.value, from: found.where };
  invalid.push(`${found.where} "${found.text}": ${value.error}`);
  return undefined;
}

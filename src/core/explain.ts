/**
 * "Why is this one still here?": the decision for one target at `now`, with the facts it
 * stands on and when the target would become collectable if nothing changed. Pure: the
 * adapter reads the target, the runs of its namespace and the namespace, and passes them in.
 * A run (pipelineruns, taskruns) is decided with what a pass reads in its namespace, by the
 * pass's own path (decide.ts decideWithFacts), and said with its group, place and limits.
 */
import { collectableAt, type Collectable } from './collectable.js';
import { collectorOf } from './collectors.js';
import { decideWithFacts, isRunDecision, type DecisionFacts, type RuleEnd } from './decide.js';
import { retentionFacts as gatherRetention } from './facts.js';
import { NO_GROUP, ordinal, type Applied, type Outcome, type RunFacts } from './history.js';
import { formatDuration, formatRetentionDuration, parseTimestampMs } from './retention.js';
import { isExcluded } from './scope.js';
import type { ClusterView, Decision, NamespaceRecord, PodRecord, Policy, Reason, RetentionDuration, RunRecord, RunState, StatefulSetRecord, TargetRecord } from './types.js';

/** One setting that keeps targets for a while, as it applies to this one. */
export interface RetentionFact {
  /** `retain`, `retain-until`, `retain-for`, `namespace retain` or `min-age`. */
  setting: 'retain' | 'namespace retain' | 'retain-until' | 'retain-for' | 'min-age';
  /**
   * Where it is set: `label tekton-resource-gc.io/retain-for`, `label … on namespace ci`; for
   * the collector's own settings their flag (`--min-age`), variable (`TRGC_MIN_AGE`) or `default`.
   */
  source: string;
  /** For the collector's own settings only: the flag that names the setting, e.g. `--min-age`, whatever set it. */
  flag?: string;
  /** The value as written, e.g. `7d`, `2026-12-31`, `true`. */
  value: string;
  /**
   * When it stops keeping the target (epoch ms); `never` while it is set; `unknown` when it
   * counts from a creation time that cannot be read; undefined when it does not keep it at all.
   */
  expiresMs?: RuleEnd;
}

/** Whether a pass with these settings looks at the target at all. */
export type ScopeVerdict = { inScope: true } | { inScope: false; why: string };

export interface Explanation {
  nowMs: number;
  target: TargetRecord;
  scope: ScopeVerdict;
  decision: Decision;
  /** The row of its kind's decision table (docs/spec.md) that decided: 1-10 for PipelineResources, 1-14 for leftovers. */
  rule: number;
  retention: RetentionFact[];
  /** Values that could not be parsed, said as rule 3 says them. */
  invalid: readonly string[];
  collectable: Collectable;
  /** With `explain --plan`: whether the target is in the plan and what `apply` would do with it. */
  plan?: string;
  /** For a run: its history, as the runs' decision read it. */
  run?: RunExplanation;
}

/** A run's state, its group, its place in it and the settings that decided it (history.ts RunFacts). */
export interface RunExplanation {
  state: RunState;
  /** status.completionTime, as written, once finished. */
  finishedAt?: string;
  /** `tekton.dev/pipeline=build`, or `(no group label)`. */
  group: string;
  outcome?: Outcome;
  /** 1 for the newest among the `ofOutcome` runs of its outcome that hold a place in its group. */
  rank?: number;
  ofOutcome?: number;
  /** When its limit came from tektoncd/pruner's ConfigMaps: the runs pruner counts it among, where `rank` is its place by creation (history.ts RunFacts). */
  countedAmong?: string;
  /** Why it holds no place, when it holds none. */
  noPlace?: string;
  /** The history limit of its outcome, when one applies. */
  limit?: RunSetting;
  ttl?: RunSetting;
}

/** A run-policy setting as it applies: its value, where it was set, and for a flag's, where the flag's value came from. */
export interface RunSetting {
  /** As written: `3`, `7d`, `forever`. */
  value: string;
  /**
   * `label <key>`, `annotation <key>`, `namespace <ns> label <key>`, the external policy
   * (`--pruner-config`'s ConfigMap); for a flag, where its value came from: `--keep-failed`,
   * `--keep` (which sets both), `TRGC_KEEP`.
   */
  source: string;
  /** For a flag's: the flag that names the setting, e.g. `--keep-failed`, whatever set it. */
  flag?: string;
}

/** Where the collector's settings that keep targets came from: the flag (`--min-age`), its variable (`TRGC_MIN_AGE`) or `default`. */
export interface SettingOrigins {
  'min-age': string;
  'retain-for': string;
}

/** Where the runs' flags got their values: the flag (`--keep-failed`), its variable (`TRGC_KEEP_FAILED`) or `default`. */
export interface RunSettingOrigins extends SettingOrigins {
  keep: string;
  'keep-successful': string;
  'keep-failed': string;
  'run-ttl': string;
}

export interface ExplainInput {
  target: TargetRecord;
  /** The runs of the target's namespace (for a leftover, read with the leftovers option). */
  runs: readonly RunRecord[];
  /** For a leftover that Pods or StatefulSets may hold (its collector's `reads`): those of its namespace. */
  pods?: readonly PodRecord[];
  statefulSets?: readonly StatefulSetRecord[];
  /** The target's namespace, when it could be read. */
  namespace: NamespaceRecord | undefined;
  scope: ScopeVerdict;
  origins: SettingOrigins;
}

/** The decision a pass would make for the target, and the facts decide() gathered for it, as a person reads them. */
export function explain(input: ExplainInput, policy: Policy, now: Date): Explanation {
  const { target } = input;
  const namespaces = new Map(input.namespace === undefined ? [] : [[input.namespace.name, input.namespace]]);
  const holders = { ...(input.pods !== undefined && { pods: input.pods }), ...(input.statefulSets !== undefined && { statefulSets: input.statefulSets }) };
  const [decided] = decideWithFacts({ targets: [target], runs: input.runs, namespaces, ...holders }, policy, now);
  if (decided === undefined || isRunDecision(decided)) throw new Error('decide() returned no decision of its rules for the one target it was given');
  const { decision, facts } = decided;
  return {
    nowMs: now.getTime(),
    target,
    scope: input.scope,
    decision,
    rule: collectorOf(target.kind).table.indexOf(decision.reason) + 1,
    retention: retentionFacts(facts, target.namespace, input.origins),
    invalid: facts.invalid,
    collectable: collectableAt(decision.reason, facts.ends),
  };
}

export interface RunExplainInput {
  /** The run, one of `view.targets`. */
  target: TargetRecord;
  /**
   * What a pass reads in the run's namespace (pass/sweep.ts readCluster): its runs as targets,
   * the TaskRuns' census (`children`), and with the leftovers' collectors on, their targets
   * and the Pods and StatefulSets their rules read.
   */
  view: ClusterView;
  scope: ScopeVerdict;
  origins: RunSettingOrigins;
}

/**
 * The decision a pass would make for the run, by the pass's own path (decide.ts
 * decideWithFacts: its history among the runs of its namespace, then what goes with it), and
 * its facts as a person reads them. --selector is left out of the decision: it picks the runs a
 * pass decides, never how one is decided, and explain decides the run it is asked about.
 */
export function explainRun(input: RunExplainInput, policy: Policy, now: Date): Explanation {
  const { target, view } = input;
  const namespace = view.namespaces.get(target.namespace);
  const { selector: _selector, ...runs } = policy.runs ?? { requireResultsStored: false };
  const decided = decideWithFacts(view, { ...policy, runs }, now).find((one) => one.decision.target.kind === target.kind && one.decision.target.uid === target.uid);
  if (decided === undefined || !isRunDecision(decided)) throw new Error(`the pass's decision has no decision for ${target.kind} ${target.namespace}/${target.name}, one of the runs it was given`);
  const { decision, facts } = decided;
  const rule = collectorOf(target.kind).table.indexOf(decision.reason) + 1;
  const limit = facts.limit && runSetting(facts.limit, String(facts.limit.value), input.origins);
  const ttl = facts.ttl && runSetting(facts.ttl, formatRetentionDuration(facts.ttl.value), input.origins);
  const state = target.run?.state ?? 'running';
  const run: RunExplanation = {
    state,
    ...(target.run?.finishedAt !== undefined && { finishedAt: target.run.finishedAt }),
    group: facts.group,
    ...(facts.outcome !== undefined && { outcome: facts.outcome }),
    ...(facts.rank !== undefined && { rank: facts.rank }),
    ...(facts.ofOutcome !== undefined && { ofOutcome: facts.ofOutcome }),
    ...(facts.countedAmong !== undefined && { countedAmong: facts.countedAmong }),
    ...(facts.rank === undefined && { noPlace: noPlace(target, facts, rule, decision.reason) }),
    ...(limit !== undefined && { limit }),
    ...(ttl !== undefined && { ttl }),
  };
  return {
    nowMs: now.getTime(),
    target,
    scope: input.scope,
    decision,
    rule,
    retention: retentionFacts(runRetention(target, namespace, policy, facts), target.namespace, input.origins),
    invalid: facts.invalid,
    collectable: runCollectable(decision.reason, facts, run),
    run,
  };
}

/**
 * The retention and age facts of the run, gathered by the function the runs' decision read
 * them with (facts.ts), retain-for from its own completion; the ends are the decision's own.
 */
function runRetention(target: TargetRecord, namespace: NamespaceRecord | undefined, policy: Policy, facts: RunFacts): DecisionFacts {
  const finishedMs = target.run?.finishedAt === undefined ? undefined : parseTimestampMs(target.run.finishedAt);
  return { ...gatherRetention(target, namespace, policy, finishedMs), ends: facts.ends };
}

/** The history rows' flags, by what history.ts names a setting they set (`from`). */
const RUN_FLAGS: Readonly<Record<string, keyof RunSettingOrigins>> = { '--keep': 'keep', '--keep-successful': 'keep-successful', '--keep-failed': 'keep-failed', '--run-ttl': 'run-ttl' };

function runSetting(applied: Applied<number> | Applied<RetentionDuration>, value: string, origins: RunSettingOrigins): RunSetting {
  const flag = RUN_FLAGS[applied.from];
  return flag === undefined ? { value, source: applied.from } : { value, source: origins[flag], flag: applied.from };
}

/** `in tekton.dev/pipeline=build`, or among the namespace's runs without a group label. */
export function inGroup(group: string): string {
  return group === NO_GROUP ? "among its namespace's runs without a group label" : `in ${group}`;
}

/** Where its place is: inGroup, or `by creation among` the runs tektoncd/pruner counts its limit among. */
export function whereRanked(run: Pick<RunExplanation, 'group' | 'countedAmong'>): string {
  return run.countedAmong === undefined ? inGroup(run.group) : `by creation among ${run.countedAmong}`;
}

function noPlace(target: TargetRecord, facts: RunFacts, rule: number, reason: Reason): string {
  if (facts.outcome === undefined) return 'it has not finished';
  if (target.deletionTimestamp !== undefined) return 'it is already being deleted';
  return `rule ${rule} (${reason}) keeps it, so it takes none of the places of its group's limit`;
}

/**
 * When the run would go: history.ts's `goesAt`, with what it depends on. A run its place keeps
 * goes once enough newer runs finish; one a rule time lifts keeps, not before that rule ends,
 * and then its history decides.
 */
function runCollectable(reason: Reason, facts: RunFacts, run: RunExplanation): Collectable {
  // Row 14 keeps a run its history would delete: what would go with it has to change first.
  if (reason === 'dependent-kept') return collectableAt(reason, facts.ends);
  const { goesAt } = facts;
  if (goesAt === 'now') return { when: 'now' };
  if (typeof goesAt === 'number') return { when: 'at', atMs: goesAt, bound: 'run-ttl' };
  if (goesAt === 'never') {
    if (reason === 'ttl-not-reached') return { when: 'never', until: `its run TTL "forever" (${run.ttl?.flag ?? run.ttl?.source ?? 'run-ttl'}) is changed` };
    return collectableAt(reason, facts.ends);
  }
  if (reason === 'history-kept' && facts.limit !== undefined && facts.rank !== undefined) {
    const more = facts.limit.value - facts.rank + 1;
    return {
      when: 'unknown',
      why:
        facts.countedAmong === undefined
          ? `it goes once ${more} more ${facts.outcome ?? 'finished'} ${more === 1 ? 'run' : 'runs'} ${inGroup(facts.group)} ${more === 1 ? 'finishes' : 'finish'} after it, which makes it the ${ordinal(facts.limit.value + 1)} newest, past the limit of ${facts.limit.value}`
          : `it goes once ${more} more ${facts.outcome ?? 'finished'} ${more === 1 ? 'run' : 'runs'} created after it ${more === 1 ? 'finishes' : 'finish'} among ${facts.countedAmong}, which makes it the ${ordinal(facts.limit.value + 1)} newest by creation, past the limit of ${facts.limit.value}`,
    };
  }
  if (reason === 'ttl-not-reached') return { when: 'never', until: 'its completion time can be read' };
  // Kept by a rule time lifts (too-young, retain-until, retain-for): once it ends, the history rows decide.
  const { 'run-ttl': _ttl, ...timeBounds } = facts.ends;
  const lifted = collectableAt(reason, timeBounds);
  if (lifted.when !== 'at') return lifted;
  const then =
    facts.limit !== undefined
      ? `its place among the ${facts.outcome ?? 'finished'} runs ${whereRanked(facts)} decides (a limit of ${facts.limit.value})`
      : facts.ttl !== undefined
        ? `its run TTL of ${formatRetentionDuration(facts.ttl.value)} decides`
        : 'no history limit or run TTL applies to it, so it stays (no-run-policy)';
  return { when: 'unknown', why: `then ${then}`, notBefore: { atMs: lifted.atMs, bound: lifted.bound } };
}

/** Each setting that applies, in rule order, with the end decide() computed for it. */
function retentionFacts(facts: DecisionFacts, namespace: string, origins: SettingOrigins): RetentionFact[] {
  const { ends } = facts;
  const shown: RetentionFact[] = [];
  // Rule 1 reads the label and the annotation alike, and either one retains: both are shown.
  for (const { source, key, text, value } of facts.retain) {
    shown.push({ setting: 'retain', source: `${source} ${key}`, value: text, ...(value && { expiresMs: 'never' as const }) });
  }
  // A leftover's owner run retains it too (leftovers' rule 1).
  for (const { source, key, text, value, run } of facts.ownerRetain ?? []) {
    shown.push({ setting: 'retain', source: `${source} ${key} on ${run.kind} ${run.name}`, value: text, ...(value && { expiresMs: 'never' as const }) });
  }
  if (facts.namespaceRetain !== undefined) {
    const { key, text, value } = facts.namespaceRetain;
    shown.push({ setting: 'namespace retain', source: `label ${key} on namespace ${namespace}`, value: text, ...(value && { expiresMs: 'never' as const }) });
  }
  const until = ends['retain-until'];
  if (facts.retainUntil !== undefined && until !== undefined) {
    const { source, key, text } = facts.retainUntil;
    shown.push({ setting: 'retain-until', source: `${source} ${key}`, value: text, expiresMs: until });
  }
  const retainForEnd = ends['retain-for'];
  if (facts.retainFor !== undefined && retainForEnd !== undefined) {
    const setting = facts.retainFor;
    const where =
      setting.setBy === 'target'
        ? { source: `${setting.own.source} ${setting.own.key}`, value: setting.own.text }
        : { source: origins['retain-for'], flag: '--retain-for', value: formatRetentionDuration(setting.duration) };
    shown.push({ setting: 'retain-for', ...where, expiresMs: retainForEnd });
  }
  shown.push({ setting: 'min-age', source: origins['min-age'], flag: '--min-age', value: formatDuration(facts.minAgeMs), expiresMs: ends['min-age'] });
  return shown;
}

/** Whether a pass over `scope` looks at a target in `namespace`; `selectorMatches` comes from the API server. */
export function scopeVerdict(
  scope: { namespaces: readonly string[]; excludeNamespaces: readonly string[]; selector: string },
  namespace: string,
  selectorMatches: boolean,
): ScopeVerdict {
  if (isExcluded(scope, namespace)) return { inScope: false, why: `namespace ${namespace} is excluded (--exclude-namespace)` };
  if (scope.namespaces.length > 0 && !scope.namespaces.includes(namespace)) {
    return { inScope: false, why: `namespace ${namespace} is not among the namespaces collected in (--namespace ${scope.namespaces.join(',')})` };
  }
  if (!selectorMatches) return { inScope: false, why: `its labels do not match --selector ${JSON.stringify(scope.selector)}` };
  return { inScope: true };
}

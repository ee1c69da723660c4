/**
 * "Why is this one still here?": the decision for one target at `now`, with the facts it
 * stands on and when the target would become collectable if nothing changed. Pure: the
 * adapter reads the target, the runs of its namespace and the namespace, and passes them in.
 */
import { collectableAt, type Collectable } from './collectable.js';
import { collectorOf } from './collectors.js';
import { decideWithFacts, type DecisionFacts, type RuleEnd } from './decide.js';
import { formatDuration, formatRetentionDuration } from './retention.js';
import { isExcluded } from './scope.js';
import type { Decision, NamespaceRecord, PodRecord, Policy, RunRecord, StatefulSetRecord, TargetRecord } from './types.js';

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
}

/** Where the collector's settings that keep targets came from: the flag (`--min-age`), its variable (`TRGC_MIN_AGE`) or `default`. */
export interface SettingOrigins {
  'min-age': string;
  'retain-for': string;
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
  if (decided === undefined) throw new Error('decide() returned no decision for the one target it was given');
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

/**
 * "Why is this one still here?": the decision for one target at `now`, with the facts it
 * stands on and when the target would become collectable if nothing changed. Pure: the
 * adapter reads the target, the runs of its namespace and the namespace, and passes them in.
 */
import { collectableAt, type Collectable } from './collectable.js';
import { decide } from './decide.js';
import { formatDuration, formatRetentionDuration, parseTimestampMs, readNamespaceRetain, readTargetRetention, retainValues, retentionKeys } from './retention.js';
import { REASONS, type Decision, type NamespaceRecord, type Policy, type RetentionDuration, type RunRecord, type TargetRecord } from './types.js';

/** One setting that keeps targets for a while, as it applies to this one. */
export interface RetentionFact {
  /** `retain`, `retain-until`, `retain-for`, `namespace retain` or `min-age`. */
  setting: 'retain' | 'namespace retain' | 'retain-until' | 'retain-for' | 'min-age';
  /** Where it is set: `label tekton-resource-gc.io/retain-for`, `--min-age`, `--retain-for`. */
  source: string;
  /** The value as written, e.g. `7d`, `2026-12-31`, `true`. */
  value: string;
  /** When it stops keeping the target (epoch ms); `never` while it is set; undefined when it does not keep it at all. */
  expiresMs?: number | 'never';
}

/** Whether a pass with these settings looks at the target at all. */
export type ScopeVerdict = { inScope: true } | { inScope: false; why: string };

export interface Explanation {
  nowMs: number;
  target: TargetRecord;
  scope: ScopeVerdict;
  decision: Decision;
  /** 1-10: the row of SPEC.md section 2 that decided. */
  rule: number;
  retention: RetentionFact[];
  /** Values that could not be parsed, said as rule 3 says them. */
  invalid: readonly string[];
  collectable: Collectable;
}

export interface ExplainInput {
  target: TargetRecord;
  /** The runs of the target's namespace. */
  runs: readonly RunRecord[];
  /** The target's namespace, when it could be read. */
  namespace: NamespaceRecord | undefined;
  scope: ScopeVerdict;
}

export function explain(input: ExplainInput, policy: Policy, now: Date): Explanation {
  const { target } = input;
  const namespaces = new Map(input.namespace === undefined ? [] : [[input.namespace.name, input.namespace]]);
  const [decision] = decide({ targets: [target], runs: input.runs, namespaces }, policy, now);
  if (decision === undefined) throw new Error('decide() returned no decision for the one target it was given');
  const retention = readTargetRetention(target, policy.labelPrefix);
  const createdMs = parseTimestampMs(target.createdAt);
  const lastFinishMs = newestFinish(decision);
  const retainFor = retention.retainFor?.value ?? policy.retainFor;
  const collectable = collectableAt({
    reason: decision.reason,
    createdMs,
    minAgeMs: policy.minAgeMs,
    ...(retention.retainUntil !== undefined && { retainUntilMs: retention.retainUntil.value }),
    ...(retainFor !== undefined && { retainFor }),
    ...(lastFinishMs !== undefined && { lastFinishMs }),
  });
  const facts: RetentionFact[] = [];
  const keys = retentionKeys(policy.labelPrefix);
  // Rule 1 reads the label and the annotation alike, and either one retains: both are shown.
  for (const { source, key, text, value } of retainValues(target, keys.retain)) {
    facts.push({ setting: 'retain', source: `${source} ${key}`, value: text, ...(value && { expiresMs: 'never' as const }) });
  }
  const namespaceRetain = input.namespace && readNamespaceRetain(input.namespace, keys.retain, []);
  if (namespaceRetain !== undefined) {
    const { key, text, value } = namespaceRetain;
    facts.push({ setting: 'namespace retain', source: `label ${key} on namespace ${target.namespace}`, value: text, ...(value && { expiresMs: 'never' as const }) });
  }
  if (retention.retainUntil !== undefined) {
    const { source, key, text, value } = retention.retainUntil;
    facts.push({ setting: 'retain-until', source: `${source} ${key}`, value: text, expiresMs: value });
  }
  if (retainFor !== undefined) {
    const own = retention.retainFor;
    const source = own === undefined ? '--retain-for' : `${own.source} ${own.key}`;
    facts.push({ setting: 'retain-for', source, value: own?.text ?? formatRetentionDuration(retainFor), expiresMs: retainForEnd(retainFor, lastFinishMs ?? createdMs) });
  }
  facts.push({ setting: 'min-age', source: '--min-age', value: formatDuration(policy.minAgeMs), ...(createdMs === undefined ? {} : { expiresMs: createdMs + policy.minAgeMs }) });
  return {
    nowMs: now.getTime(),
    target,
    scope: input.scope,
    decision,
    rule: REASONS.indexOf(decision.reason) + 1,
    retention: facts,
    invalid: retention.invalid,
    collectable,
  };
}

function retainForEnd(duration: RetentionDuration, sinceMs: number | undefined): number | 'never' | undefined {
  if (duration.kind === 'forever') return 'never';
  return sinceMs === undefined ? undefined : sinceMs + duration.ms;
}

function newestFinish(decision: Decision): number | undefined {
  const finishes = decision.references.flatMap((ref) => {
    const ms = ref.finishedAt === undefined ? undefined : parseTimestampMs(ref.finishedAt);
    return ms === undefined ? [] : [ms];
  });
  return finishes.length === 0 ? undefined : Math.max(...finishes);
}

/** Whether a pass over `scope` looks at a target in `namespace`; `selectorMatches` comes from the API server. */
export function scopeVerdict(
  scope: { namespaces: readonly string[]; excludeNamespaces: readonly string[]; selector: string },
  namespace: string,
  selectorMatches: boolean,
): ScopeVerdict {
  if (scope.excludeNamespaces.includes(namespace)) return { inScope: false, why: `namespace ${namespace} is excluded (--exclude-namespace)` };
  if (scope.namespaces.length > 0 && !scope.namespaces.includes(namespace)) {
    return { inScope: false, why: `namespace ${namespace} is not among the namespaces collected in (--namespace ${scope.namespaces.join(',')})` };
  }
  if (!selectorMatches) return { inScope: false, why: `its labels do not match --selector ${JSON.stringify(scope.selector)}` };
  return { inScope: true };
}

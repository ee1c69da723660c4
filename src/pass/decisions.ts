import { decide } from '../core/decide.js';
import type { ClusterView, Decision, Policy, RunRecord } from '../core/types.js';
import type { Logger } from '../ops/log.js';
import { bounded } from './message.js';

/** Longest found value shown in a log line: a fuzzed field can hold a megabyte. */
const MAX_PROBLEM_CHARS = 300;

/** decide(), with every message and warning bounded for the report and the logs. */
export function decideBounded(view: ClusterView, policy: Policy, now: Date): Decision[] {
  return decide(view, policy, now).map(boundedDecision);
}

/** The decision itself when its message and warnings are within bounds already, as nearly all are: no copy of every decision of a pass. */
function boundedDecision(decision: Decision): Decision {
  const message = bounded(decision.message);
  const warnings = decision.warnings.map(bounded);
  if (message === decision.message && warnings.every((warning, index) => warning === decision.warnings[index])) return decision;
  return { ...decision, message, warnings };
}

/**
 * Each run with fields it could not read, one warning naming the run, the fields and what
 * follows: unknown references keep its whole namespace, an unreadable status or owner counts
 * it as running.
 */
export function logReadProblems(log: Logger, runs: readonly RunRecord[]): void {
  for (const run of runs) {
    if (run.problems.length === 0) continue;
    const fields = run.problems.map((p) => bounded(`${p.field}: ${p.problem}`).slice(0, MAX_PROBLEM_CHARS));
    const follows =
      run.references === null
        ? `what it names is unknown, so every target in namespace ${run.namespace || '(unknown: all of them)'} is kept`
        : 'it counts as running, so every target it names is kept';
    log.warn(
      { kind: run.kind, namespace: run.namespace, name: run.name, fields: run.problems.map((p) => p.field) },
      `could not read ${run.kind} ${run.namespace}/${run.name || '(unnamed)'}: ${fields.join('; ')}; ${follows}`,
    );
  }
}

export function logWarnings(log: Logger, decisions: readonly Decision[]): void {
  for (const decision of decisions) {
    for (const warning of decision.warnings) {
      log.warn({ namespace: decision.target.namespace, name: decision.target.name }, warning);
    }
  }
}

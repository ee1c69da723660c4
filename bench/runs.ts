/**
 * The runs shape (issue 30): PipelineRuns and TaskRuns collected themselves. What the dry run
 * is asked (RUN_POLICY), and what it must decide, computed from the shape's plan
 * (objects.ts) by docs/spec.md's "Runs" table rather than read from a run.
 */
import { planNamespace, type ClusterShape, type RunPhase } from './objects.js';

/** The runs shape's preset: 10,000 PipelineRuns and 40,000 TaskRuns at scale 1 (a fifth PipelineRuns). */
export const RUNS_SHAPE = { targets: 0, runs: 50_000, namespaces: 50, runGroups: { pipelines: 4, tasks: 5 } } as const;

/**
 * The run policy of the runs shape's dry run: the last 10 successes of each group stay, the
 * others go; failures (cancelled ones too) have no limit, so the TTL decides them: they go 240
 * hours (10 days) after they finished. Both halves of the table (rows 9-12) are exercised.
 */
export const RUN_POLICY = { keepSuccessful: 10, ttlHours: 240 } as const;

export const RUN_COLLECT_ARGS: readonly string[] = [
  '--collect', 'pipelineruns,taskruns',
  '--keep-successful', String(RUN_POLICY.keepSuccessful),
  '--run-ttl', `${RUN_POLICY.ttlHours}h`,
];

export interface RunKindCounts {
  targets: number;
  delete: number;
  keep: number;
}

/** What the dry run's summary must say: the fields the bench reads from its 'pass finished' line. */
export interface ExpectedRunSummary {
  /** PipelineRuns and the TaskRuns no PipelineRun owns: the run collectors' targets. */
  targets: number;
  /** Every run listed, children included. */
  runs: number;
  delete: number;
  keep: number;
  reasons: Record<string, number>;
  byKind: { PipelineRun: RunKindCounts; TaskRun: RunKindCounts };
}

type Outcome = 'succeeded' | 'failed';

/** A cancelled run counts as failed; pending and running ones have not finished. */
function outcomeOf(phase: RunPhase): Outcome | undefined {
  if (phase === 'succeeded') return 'succeeded';
  if (phase === 'failed' || phase === 'cancelled') return 'failed';
  return undefined;
}

/** The completionTime objects.ts writes for a run that finished `hours` before `seededAtMs`, to the second. */
export function completionMs(seededAtMs: number, hours: number): number {
  return Math.floor((seededAtMs - hours * 3_600_000) / 1000) * 1000;
}

/**
 * The decisions of a dry run with RUN_POLICY at `nowMs` on the cluster seeded at `seededAtMs`
 * (the "now" the seed wrote the runs' times from), with --min-age 0s and nothing retained:
 * a run that has not finished is kept (`run-active`); of the finished successes of one group
 * (namespace, kind, Pipeline or Task) the newest `keepSuccessful` are kept (`history-kept`),
 * the others deleted (`history-exceeded`); a finished failure is deleted once its completion
 * is the TTL ago (`ttl-expired`), else kept (`ttl-not-reached`). A TaskRun a PipelineRun owns
 * is no target. No run here has a child that must stay (children share a finished parent's
 * outcome), so none is `dependent-kept`. Counts do not depend on how ties are ranked.
 */
export function expectedRunSummary(shape: ClusterShape, seededAtMs: number, nowMs: number, policy: { keepSuccessful: number; ttlHours: number } = RUN_POLICY): ExpectedRunSummary {
  const reasons: Record<string, number> = {};
  const byKind = { PipelineRun: { targets: 0, delete: 0, keep: 0 }, TaskRun: { targets: 0, delete: 0, keep: 0 } };
  let runs = 0;
  const decide = (kind: keyof typeof byKind, reason: string): void => {
    const counts = byKind[kind];
    counts.targets++;
    counts[reason === 'history-exceeded' || reason === 'ttl-expired' ? 'delete' : 'keep']++;
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  };
  const ttlMs = policy.ttlHours * 3_600_000;
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planNamespace(shape, index);
    const groups = new Map<string, number>();
    const runsOf = [
      ...plan.pipelineRuns.map((run) => ({ kind: 'PipelineRun' as const, group: run.pipeline ?? 'build-and-push', phase: run.phase, hours: run.finishedHoursAgo })),
      ...plan.taskRuns.map((run) => ({ kind: 'TaskRun' as const, group: run.task ?? 'build-image', phase: run.phase, hours: run.finishedHoursAgo })),
    ];
    runs += runsOf.length + plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
    for (const run of runsOf) {
      const outcome = outcomeOf(run.phase);
      if (outcome === undefined) {
        decide(run.kind, 'run-active');
      } else if (outcome === 'succeeded') {
        const key = `${run.kind}/${run.group}`;
        groups.set(key, (groups.get(key) ?? 0) + 1);
      } else {
        decide(run.kind, nowMs - completionMs(seededAtMs, run.hours) >= ttlMs ? 'ttl-expired' : 'ttl-not-reached');
      }
    }
    for (const [key, successes] of groups) {
      const kind = key.slice(0, key.indexOf('/')) as keyof typeof byKind;
      const kept = Math.min(successes, policy.keepSuccessful);
      for (let i = 0; i < kept; i++) decide(kind, 'history-kept');
      for (let i = kept; i < successes; i++) decide(kind, 'history-exceeded');
    }
  }
  const targets = byKind.PipelineRun.targets + byKind.TaskRun.targets;
  const deletes = byKind.PipelineRun.delete + byKind.TaskRun.delete;
  return { targets, runs, delete: deletes, keep: targets - deletes, reasons, byKind };
}

/** The differences between a summary and the expected one, one phrase each; none when they agree. */
export function runSummaryDifferences(
  summary: { targets?: number; runs?: number; delete?: number; keep?: number; reasons?: Record<string, number>; byKind?: Record<string, RunKindCounts> },
  expected: ExpectedRunSummary,
): string[] {
  const differences: string[] = [];
  for (const field of ['targets', 'runs', 'delete', 'keep'] as const) {
    if ((summary[field] ?? 0) !== expected[field]) differences.push(`${field} ${summary[field] ?? 0}, expected ${expected[field]}`);
  }
  const reasons = new Set([...Object.keys(summary.reasons ?? {}), ...Object.keys(expected.reasons)]);
  for (const reason of reasons) {
    const seen = summary.reasons?.[reason] ?? 0;
    const wanted = expected.reasons[reason] ?? 0;
    if (seen !== wanted) differences.push(`${reason} ${seen}, expected ${wanted}`);
  }
  for (const kind of ['PipelineRun', 'TaskRun'] as const) {
    const seen = summary.byKind?.[kind];
    const wanted = expected.byKind[kind];
    if (seen === undefined || seen.targets !== wanted.targets || seen.delete !== wanted.delete || seen.keep !== wanted.keep) {
      differences.push(`${kind} ${JSON.stringify(seen ?? null)}, expected ${JSON.stringify(wanted)}`);
    }
  }
  return differences;
}

// The benchmark's runs shape (issue 30, bench/runs.ts): its plan has the sizes the issue names,
// the other shapes' runs are planned and built as before, and the decisions it implies follow
// docs/spec.md's "Runs" table, checked here through counts the plan gives directly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHILDREN_PER_PIPELINE_RUN, pipelineRunObjects, planNamespace, taskRunObjects, type ClusterShape, type RunPhase } from '../../bench/objects.js';
import { RUN_COLLECT_ARGS, RUN_POLICY, RUNS_SHAPE, completionMs, expectedRunSummary, runSummaryDifferences } from '../../bench/runs.js';

const HOUR = 3_600_000;
const SEEDED_AT = Date.parse('2026-12-01T10:00:00.500Z');

function runsShape(scale: number, overrides: Partial<ClusterShape> = {}): ClusterShape {
  return { targets: RUNS_SHAPE.targets, runs: RUNS_SHAPE.runs * scale, namespaces: RUNS_SHAPE.namespaces, runGroups: { ...RUNS_SHAPE.runGroups }, prKb: 8, trKb: 4, ...overrides };
}

function totals(shape: ClusterShape): { pipelineRuns: number; taskRuns: number; children: number; targets: number } {
  let pipelineRuns = 0;
  let standalone = 0;
  let children = 0;
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planNamespace(shape, index);
    assert.equal(plan.targets.length, 0, 'the runs shape has no PipelineResources');
    pipelineRuns += plan.pipelineRuns.length;
    standalone += plan.taskRuns.length;
    children += plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
  }
  return { pipelineRuns, taskRuns: standalone + children, children, targets: pipelineRuns + standalone };
}

describe('the runs shape', () => {
  it('has 10,000 PipelineRuns and 40,000 TaskRuns at scale 1, and the issue 30 sizes at scale 4', () => {
    assert.deepEqual(
      [1, 4].map((scale) => {
        const { pipelineRuns, taskRuns } = totals(runsShape(scale));
        return [pipelineRuns, taskRuns];
      }),
      [
        [10_000, 40_000],
        [40_000, 160_000],
      ],
    );
  });

  it('mixes children with standalone TaskRuns, several Pipelines and Tasks per namespace, every phase', () => {
    const plan = planNamespace(runsShape(1), 7);
    const children = plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
    assert.ok(children > 0 && plan.taskRuns.length > 0, `${children} children, ${plan.taskRuns.length} standalone`);
    assert.ok(plan.pipelineRuns.every((run) => run.children === (run.phase === 'pending' ? 0 : CHILDREN_PER_PIPELINE_RUN)));
    assert.equal(new Set(plan.pipelineRuns.map((run) => run.pipeline)).size, RUNS_SHAPE.runGroups.pipelines);
    assert.equal(new Set(plan.taskRuns.map((run) => run.task)).size, RUNS_SHAPE.runGroups.tasks);
    const phases = new Set<RunPhase>([...plan.pipelineRuns, ...plan.taskRuns].map((run) => run.phase));
    assert.deepEqual([...phases].sort(), ['cancelled', 'failed', 'pending', 'running', 'succeeded']);
    const hours = plan.pipelineRuns.map((run) => run.finishedHoursAgo);
    assert.ok(Math.min(...hours) < RUN_POLICY.ttlHours && Math.max(...hours) > RUN_POLICY.ttlHours, 'completions on both sides of the TTL');
  });

  it('builds its runs with their Pipeline and Task, and the other shapes\' as before', () => {
    const now = SEEDED_AT;
    const run = { kind: 'PipelineRun' as const, namespace: 'bench-000', name: 'build-0000aaaa-0', phase: 'succeeded' as const, children: 2, finishedHoursAgo: 3 };
    const workspaces = { workspaces: [{ name: 'source', emptyDir: {} }] };
    const ofRelease = pipelineRunObjects({ ...run, pipeline: 'release' }, 2048, now, workspaces).object as { metadata: { labels: Record<string, string> }; spec: { pipelineRef: { name: string } } };
    assert.equal(ofRelease.metadata.labels['tekton.dev/pipeline'], 'release');
    assert.equal(ofRelease.spec.pipelineRef.name, 'release');
    const before = pipelineRunObjects({ ...run, resources: ['src-a', 'img-b'] }, 2048, now).object as { metadata: { labels: Record<string, string> }; spec: { pipelineRef: { name: string } } };
    assert.equal(before.metadata.labels['tekton.dev/pipeline'], 'build-and-push');
    assert.equal(before.spec.pipelineRef.name, 'build-and-push');

    const child = { namespace: 'bench-000', name: 'build-0000aaaa-0-fetch', phase: 'succeeded' as const, finishedHoursAgo: 3, parent: { name: run.name, uid: 'u1' }, pipelineTask: 'fetch' };
    const labelsOf = (object: Record<string, unknown>): Record<string, string> => (object['metadata'] as { labels: Record<string, string> }).labels;
    assert.deepEqual(
      [labelsOf(taskRunObjects({ ...child, pipeline: 'release', task: 'fetch' }, 2048, now, workspaces).object), labelsOf(taskRunObjects(child, 2048, now).object)].map((labels) => [
        labels['tekton.dev/pipeline'],
        labels['tekton.dev/task'],
        labels['tekton.dev/pipelineRun'],
      ]),
      [
        ['release', 'fetch', run.name],
        ['build-and-push', 'build-image', run.name],
      ],
    );
    // The default shape's plans name no Pipeline or Task: its objects are built as before.
    const plan = planNamespace({ targets: 100, runs: 400, namespaces: 2, prKb: 8, trKb: 4 }, 1);
    assert.ok(plan.pipelineRuns.every((r) => r.pipeline === undefined) && plan.taskRuns.every((r) => r.task === undefined));
  });

  it('asks the dry run to collect runs with a limit on successes and a TTL on failures', () => {
    assert.deepEqual(RUN_COLLECT_ARGS, ['--collect', 'pipelineruns,taskruns', '--keep-successful', '10', '--run-ttl', '240h']);
  });
});

describe('expectedRunSummary', () => {
  const shape = runsShape(0.02, { namespaces: 3 }); // 1,000 runs
  const plans = Array.from({ length: shape.namespaces }, (_, index) => planNamespace(shape, index));
  const targets = plans.flatMap((plan) => [
    ...plan.pipelineRuns.map((run) => ({ kind: 'PipelineRun', group: `${plan.name}/${run.pipeline ?? ''}`, phase: run.phase, hours: run.finishedHoursAgo })),
    ...plan.taskRuns.map((run) => ({ kind: 'TaskRun', group: `${plan.name}/${run.task ?? ''}`, phase: run.phase, hours: run.finishedHoursAgo })),
  ]);
  const failed = targets.filter((run) => run.phase === 'failed' || run.phase === 'cancelled');

  it('decides every target once: run-active, the limit on successes per group, the TTL on failures', () => {
    const summary = expectedRunSummary(shape, SEEDED_AT, SEEDED_AT);
    const { targets: count } = totals(shape);
    assert.equal(summary.targets, count);
    assert.equal(summary.runs, shape.runs);
    assert.equal(summary.delete + summary.keep, count);
    assert.equal(summary.byKind.PipelineRun.targets, plans.reduce((sum, plan) => sum + plan.pipelineRuns.length, 0));
    assert.equal(summary.reasons['run-active'], targets.filter((run) => run.phase === 'pending' || run.phase === 'running').length);
    const successes = new Map<string, number>();
    for (const run of targets) if (run.phase === 'succeeded') successes.set(`${run.kind} ${run.group}`, (successes.get(`${run.kind} ${run.group}`) ?? 0) + 1);
    assert.ok(successes.size >= 3 * (RUNS_SHAPE.runGroups.pipelines + RUNS_SHAPE.runGroups.tasks) - 1, `${successes.size} groups`);
    assert.equal(summary.reasons['history-kept'], [...successes.values()].reduce((sum, n) => sum + Math.min(n, RUN_POLICY.keepSuccessful), 0));
    assert.equal(summary.reasons['history-exceeded'], [...successes.values()].reduce((sum, n) => sum + Math.max(0, n - RUN_POLICY.keepSuccessful), 0));
    // At the seed's own "now", a failure has expired when it finished the TTL or more hours before.
    assert.equal(summary.reasons['ttl-expired'], failed.filter((run) => run.hours >= RUN_POLICY.ttlHours).length);
    assert.equal(summary.reasons['ttl-not-reached'], failed.filter((run) => run.hours < RUN_POLICY.ttlHours).length);
    assert.equal(summary.delete, (summary.reasons['history-exceeded'] ?? 0) + (summary.reasons['ttl-expired'] ?? 0));
    for (const reason of ['run-active', 'history-kept', 'history-exceeded', 'ttl-expired', 'ttl-not-reached']) assert.ok((summary.reasons[reason] ?? 0) > 0, reason);
  });

  it('lets failures expire as time passes since the seed, and nothing else change', () => {
    const atSeed = expectedRunSummary(shape, SEEDED_AT, SEEDED_AT);
    const aDayLater = expectedRunSummary(shape, SEEDED_AT, SEEDED_AT + 24 * HOUR);
    const muchLater = expectedRunSummary(shape, SEEDED_AT, SEEDED_AT + 1000 * HOUR);
    assert.equal(aDayLater.reasons['ttl-expired'], failed.filter((run) => run.hours + 24 >= RUN_POLICY.ttlHours).length);
    assert.equal(muchLater.reasons['ttl-expired'], failed.length);
    assert.equal(muchLater.reasons['ttl-not-reached'], undefined);
    for (const reason of ['run-active', 'history-kept', 'history-exceeded']) assert.equal(muchLater.reasons[reason], atSeed.reasons[reason]);
  });

  it('reads completion times to the second, as the seed writes them', () => {
    assert.equal(completionMs(SEEDED_AT, 1), Date.parse('2026-12-01T09:00:00Z'));
    // So a failure that finished the TTL before the seed has expired at the seed's own "now",
    // and one that finished an hour later expires an hour later, not half a second earlier.
    assert.equal(SEEDED_AT - completionMs(SEEDED_AT, RUN_POLICY.ttlHours) >= RUN_POLICY.ttlHours * HOUR, true);
    assert.equal(SEEDED_AT + HOUR - 1000 - completionMs(SEEDED_AT, RUN_POLICY.ttlHours - 1) >= RUN_POLICY.ttlHours * HOUR, false);
  });
});

describe('runSummaryDifferences', () => {
  const expected = expectedRunSummary(runsShape(0.02, { namespaces: 3 }), SEEDED_AT, SEEDED_AT);

  it('finds none in the summary it expects', () => {
    assert.deepEqual(runSummaryDifferences({ ...expected, reasons: { ...expected.reasons } }, expected), []);
  });

  it('names each count, reason and kind that differs', () => {
    const reasons = { ...expected.reasons, 'history-kept': (expected.reasons['history-kept'] ?? 0) - 1, 'dependent-kept': 1 };
    const differences = runSummaryDifferences({ ...expected, reasons, byKind: { PipelineRun: expected.byKind.PipelineRun } }, expected);
    assert.deepEqual(differences, [
      `history-kept ${(expected.reasons['history-kept'] ?? 0) - 1}, expected ${expected.reasons['history-kept'] ?? 0}`,
      'dependent-kept 1, expected 0',
      `TaskRun null, expected ${JSON.stringify(expected.byKind.TaskRun)}`,
    ]);
  });
});

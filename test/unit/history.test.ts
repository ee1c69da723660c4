/**
 * The runs' decision (docs/spec.md, "Runs"), on plain records: each row of the table, the
 * group, the outcome and the rank, the settings' precedence, and properties over random
 * histories. The adapter's side (the listing, the DELETE) is test/integration/runs.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { COLLECTORS } from '../../src/core/collectors.js';
import { decide } from '../../src/core/decide.js';
import { decideRuns, isRunPolicyKey, parseHistoryLimit, runDecisionsIn, runGroup, type RunDecisionWithFacts } from '../../src/core/history.js';
import { toRunTarget, SharedStrings } from '../../src/core/runtargets.js';
import { toRunRecord } from '../../src/core/runs.js';
import { RUN_REASONS, type NamespaceRecord, type Policy, type RunPolicy, type RunState, type TargetRecord } from '../../src/core/types.js';
import { DAY, HOUR, NOW, POLICY, at } from '../fixtures/unit/records.js';

const PREFIX = POLICY.labelPrefix;

interface RunOptions {
  state?: RunState;
  /** Finished this long before NOW (finished runs only). */
  finishedAgo?: number;
  createdAgo?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  namespace?: string;
  kind?: 'PipelineRun' | 'TaskRun';
  deleting?: boolean;
  unreadable?: string;
}

function run(name: string, options: RunOptions = {}): TargetRecord {
  const state = options.state ?? 'succeeded';
  const finished = state === 'succeeded' || state === 'failed' || state === 'cancelled';
  return {
    kind: options.kind ?? 'PipelineRun',
    namespace: options.namespace ?? 'ci',
    name,
    uid: `uid-${name}`,
    resourceVersion: '1',
    createdAt: at(-(options.createdAgo ?? 10 * DAY)),
    labels: options.labels ?? { 'tekton.dev/pipeline': 'build' },
    annotations: options.annotations ?? {},
    ownerReferences: [],
    ...(options.deleting === true && { deletionTimestamp: at(-HOUR) }),
    run: {
      state,
      ...(finished && { finishedAt: at(-(options.finishedAgo ?? DAY)) }),
      ...(options.unreadable !== undefined && { unreadable: options.unreadable }),
    },
  };
}

function policy(runs: Partial<RunPolicy> = {}, more: Partial<Policy> = {}): Policy {
  return { ...POLICY, ...more, runs: { requireResultsStored: false, ...runs } };
}

function decided(runs: readonly TargetRecord[], with_: Policy, namespaces: readonly NamespaceRecord[] = []): Map<string, RunDecisionWithFacts> {
  const map = new Map(namespaces.map((ns) => [ns.name, ns]));
  return new Map(decideRuns(runs, map, with_, NOW.getTime(), (one) => one).map((one) => [one.decision.target.name, one]));
}

function reasons(runs: readonly TargetRecord[], with_: Policy, namespaces: readonly NamespaceRecord[] = []): Record<string, string> {
  return Object.fromEntries([...decided(runs, with_, namespaces)].map(([name, one]) => [name, one.decision.reason]));
}

/** n succeeded runs of build, r1 the newest (finished 1 h ago, each next one hour earlier). */
function history(n: number, options: RunOptions = {}, prefix = 'r'): TargetRecord[] {
  return Array.from({ length: n }, (_, index) => run(`${prefix}${index + 1}`, { finishedAgo: (index + 1) * HOUR, ...options }));
}

describe('the runs: history per outcome and group', () => {
  it('keeps the N newest of each outcome and deletes the rest (history-kept, history-exceeded)', () => {
    const runs = [...history(3), ...history(3, { state: 'failed' }, 'f')];
    assert.deepEqual(reasons(runs, policy({ keepSuccessful: 2, keepFailed: 1 })), {
      r1: 'history-kept',
      r2: 'history-kept',
      r3: 'history-exceeded',
      f1: 'history-kept',
      f2: 'history-exceeded',
      f3: 'history-exceeded',
    });
  });

  it('counts a cancelled run as failed', () => {
    const runs = [run('f1', { state: 'failed', finishedAgo: HOUR }), run('c1', { state: 'cancelled', finishedAgo: 2 * HOUR })];
    const all = decided(runs, policy({ keepFailed: 1, keepSuccessful: 0 }));
    assert.equal(all.get('c1')?.decision.reason, 'history-exceeded');
    assert.equal(all.get('c1')?.facts.outcome, 'failed');
    assert.equal(all.get('c1')?.facts.rank, 2);
    assert.equal(all.get('c1')?.facts.ofOutcome, 2);
  });

  it('ranks by completion time, not creation, and ties by name', () => {
    const runs = [run('old-made-last', { createdAgo: 2 * DAY, finishedAgo: 3 * HOUR }), run('b', { createdAgo: 5 * DAY, finishedAgo: HOUR }), run('a', { createdAgo: 6 * DAY, finishedAgo: HOUR })];
    const all = decided(runs, policy({ keepSuccessful: 2 }));
    assert.deepEqual([...all].map(([name, one]) => [name, one.facts.rank]), [['old-made-last', 3], ['b', 2], ['a', 1]]);
    assert.equal(all.get('old-made-last')?.decision.reason, 'history-exceeded');
  });

  it('groups by Pipeline in a namespace, by Task (then ClusterTask) for TaskRuns, else one group per namespace', () => {
    const runs = [
      run('build-1', { finishedAgo: HOUR }),
      run('build-2', { finishedAgo: 2 * HOUR }),
      run('test-1', { labels: { 'tekton.dev/pipeline': 'test' }, finishedAgo: 3 * HOUR }),
      run('other-ns', { namespace: 'team', finishedAgo: 4 * HOUR }),
      run('bare-1', { labels: {}, finishedAgo: 5 * HOUR }),
      run('bare-2', { labels: {}, finishedAgo: 6 * HOUR }),
    ];
    assert.deepEqual(reasons(runs, policy({ keepSuccessful: 1 })), {
      'build-1': 'history-kept',
      'build-2': 'history-exceeded',
      'test-1': 'history-kept',
      'other-ns': 'history-kept',
      'bare-1': 'history-kept',
      'bare-2': 'history-exceeded',
    });
    assert.equal(runGroup(run('t', { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' } }), undefined), 'tekton.dev/task=lint');
    assert.equal(runGroup(run('t', { kind: 'TaskRun', labels: { 'tekton.dev/clusterTask': 'lint' } }), undefined), 'tekton.dev/clusterTask=lint');
  });

  it('--group-by names the group first; a run without the label falls back to its Pipeline', () => {
    const pac = 'pipelinesascode.tekton.dev/original-prname';
    const runs = [
      run('push-1', { labels: { [pac]: 'on-push', 'tekton.dev/pipeline': 'push-1' }, finishedAgo: HOUR }),
      run('push-2', { labels: { [pac]: 'on-push', 'tekton.dev/pipeline': 'push-2' }, finishedAgo: 2 * HOUR }),
      run('plain', { finishedAgo: 3 * HOUR }),
    ];
    assert.deepEqual(reasons(runs, policy({ keepSuccessful: 1, groupBy: pac })), { 'push-1': 'history-kept', 'push-2': 'history-exceeded', plain: 'history-kept' });
    // Without it, each PaC run is its own Pipeline (Tekton labels an embedded spec with the run's name).
    assert.deepEqual(reasons(runs, policy({ keepSuccessful: 1 })), { 'push-1': 'history-kept', 'push-2': 'history-kept', plain: 'history-kept' });
  });

  it('a limit of 0 keeps none', () => {
    assert.deepEqual(reasons(history(2), policy({ keepSuccessful: 0 })), { r1: 'history-exceeded', r2: 'history-exceeded' });
  });
});

describe('the runs: TTL, alone and with a limit', () => {
  it('deletes a run finished longer ago than the TTL, keeps a younger one (ttl-expired, ttl-not-reached)', () => {
    const runs = [run('young', { finishedAgo: HOUR }), run('old', { finishedAgo: 3 * DAY })];
    const all = decided(runs, policy({ ttl: { kind: 'duration', ms: 2 * DAY, text: '2d' } }));
    assert.equal(all.get('old')?.decision.reason, 'ttl-expired');
    assert.equal(all.get('young')?.decision.reason, 'ttl-not-reached');
    assert.equal(all.get('young')?.facts.goesAt, NOW.getTime() - HOUR + 2 * DAY);
    assert.equal(all.get('old')?.facts.goesAt, 'now');
  });

  it('exactly at the TTL the run goes', () => {
    const all = decided([run('edge', { finishedAgo: 2 * DAY })], policy({ ttl: { kind: 'duration', ms: 2 * DAY, text: '2d' } }));
    assert.equal(all.get('edge')?.decision.reason, 'ttl-expired');
  });

  it('with both, the limit decides its outcome: its N newest stay however old, the rest go however young', () => {
    const runs = [run('new-old', { finishedAgo: 5 * DAY }), run('older', { finishedAgo: 6 * DAY }), ...history(1, { state: 'failed', finishedAgo: 3 * DAY }, 'f')];
    const both = policy({ keepSuccessful: 1, ttl: { kind: 'duration', ms: 2 * DAY, text: '2d' } });
    // The failed runs have no limit: the TTL decides them.
    assert.deepEqual(reasons(runs, both), { 'new-old': 'history-kept', older: 'history-exceeded', f1: 'ttl-expired' });
    const young = [run('y1', { finishedAgo: 2 * HOUR }), run('y2', { finishedAgo: 3 * HOUR })];
    assert.deepEqual(reasons(young, both), { y1: 'history-kept', y2: 'history-exceeded' });
  });

  it('run-ttl forever never expires', () => {
    assert.equal(reasons([run('a', { finishedAgo: 900 * DAY })], policy({ ttl: { kind: 'forever' } }))['a'], 'ttl-not-reached');
  });

  it('without limit or TTL every finished run is kept (no-run-policy)', () => {
    assert.deepEqual(reasons(history(2), policy()), { r1: 'no-run-policy', r2: 'no-run-policy' });
    assert.deepEqual(reasons(history(1), POLICY), { r1: 'no-run-policy' });
  });
});

describe('the runs: what keeps a run before its history', () => {
  const keepOne = policy({ keepSuccessful: 1 });

  it('retained runs and retained namespaces are kept and hold no slot', () => {
    const runs = [run('kept', { labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/retain`]: 'true' }, finishedAgo: HOUR }), ...history(2, { finishedAgo: undefined }, 'r')];
    runs[1] = run('r1', { finishedAgo: 2 * HOUR });
    runs[2] = run('r2', { finishedAgo: 3 * HOUR });
    assert.deepEqual(reasons(runs, keepOne), { kept: 'retained', r1: 'history-kept', r2: 'history-exceeded' });
    const retainedNs: NamespaceRecord = { name: 'ci', labels: { [`${PREFIX}/retain`]: 'true' } };
    assert.deepEqual(reasons(history(2), keepOne, [retainedNs]), { r1: 'namespace-retained', r2: 'namespace-retained' });
  });

  it('active runs are kept: pending, running, cancel requested (running until done), an unreadable status', () => {
    const runs = [
      run('pending', { state: 'pending' }),
      run('running', { state: 'running' }),
      run('cancelling', { state: 'running' }),
      run('odd', { state: 'running', unreadable: 'status.conditions: expected an array, found a string' }),
    ];
    const all = decided(runs, policy({ keepSuccessful: 0, keepFailed: 0, ttl: { kind: 'duration', ms: 0, text: '0s' } }));
    for (const name of ['pending', 'running', 'cancelling', 'odd']) assert.equal(all.get(name)?.decision.reason, 'run-active', name);
    assert.match(all.get('odd')?.decision.message ?? '', /status\.conditions/);
  });

  it('too-young runs (by creation), retain-until and retain-for (from completion) are kept and hold no slot', () => {
    const runs = [
      run('young', { createdAgo: 10 * 60_000, finishedAgo: 60_000 }),
      run('until', { annotations: { [`${PREFIX}/retain-until`]: '2099-01-01' }, finishedAgo: 2 * HOUR }),
      run('for', { labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/retain-for`]: '3d' }, finishedAgo: 3 * HOUR }),
      run('r1', { finishedAgo: 4 * HOUR }),
      run('r2', { finishedAgo: 5 * HOUR }),
    ];
    assert.deepEqual(reasons(runs, keepOne), { young: 'too-young', until: 'retain-until', for: 'retain-for', r1: 'history-kept', r2: 'history-exceeded' });
    assert.match(decided(runs, keepOne).get('for')?.decision.message ?? '', /its completion at/);
  });

  it('--require-results-stored keeps what Tekton Results has not stored', () => {
    const runs = [
      run('stored', { annotations: { 'results.tekton.dev/stored': 'true' }, finishedAgo: 2 * HOUR }),
      run('not-yet', { annotations: { 'results.tekton.dev/stored': 'false' }, finishedAgo: 3 * HOUR }),
      run('never', { finishedAgo: 4 * HOUR }),
    ];
    const all = reasons(runs, policy({ keepSuccessful: 0, requireResultsStored: true }));
    assert.deepEqual(all, { stored: 'history-exceeded', 'not-yet': 'results-not-stored', never: 'results-not-stored' });
    assert.deepEqual(reasons(runs, policy({ keepSuccessful: 0 })), { stored: 'history-exceeded', 'not-yet': 'history-exceeded', never: 'history-exceeded' });
  });

  it('a run already being deleted holds no slot and is not counted as kept', () => {
    const runs = [run('going', { deleting: true, finishedAgo: HOUR }), run('r1', { finishedAgo: 2 * HOUR }), run('r2', { finishedAgo: 3 * HOUR })];
    const all = decided(runs, keepOne);
    assert.equal(all.get('going')?.decision.reason, 'history-exceeded');
    assert.equal(all.get('going')?.facts.rank, undefined);
    assert.equal(all.get('r1')?.decision.reason, 'history-kept');
  });
});

describe('the runs: where a setting comes from', () => {
  it('run label > namespace label > external > flag, and keep-successful over keep on one object', () => {
    const ns: NamespaceRecord = { name: 'ci', labels: { [`${PREFIX}/keep`]: '2' } };
    const external = (): { keepSuccessful: number; from: string } => ({ keepSuccessful: 3, from: 'ConfigMap p/tekton-pruner-default-spec' });
    const runs = history(5);
    runs[0] = run('r1', { finishedAgo: HOUR, labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/keep`]: '9', [`${PREFIX}/keep-successful`]: '1' } });
    const all = decided(runs, policy({ keepSuccessful: 4, external }), [ns]);
    assert.deepEqual(all.get('r1')?.facts.limit, { value: 1, from: `label ${PREFIX}/keep-successful` });
    assert.deepEqual(all.get('r2')?.facts.limit, { value: 2, from: `namespace ci label ${PREFIX}/keep` });
    assert.equal(all.get('r3')?.decision.reason, 'history-exceeded');
    const noNs = decided(history(5), policy({ keepSuccessful: 4, external }));
    assert.deepEqual(noNs.get('r1')?.facts.limit, { value: 3, from: 'ConfigMap p/tekton-pruner-default-spec' });
    assert.equal(noNs.get('r4')?.decision.reason, 'history-exceeded');
    // An external policy that tells its settings apart names each by the field that gave it; `from` for one it does not.
    const perField = (): { keepSuccessful: number; keepFailed: number; from: string; fieldFrom: { keepSuccessful: string } } => ({ keepSuccessful: 3, keepFailed: 1, from: 'all three', fieldFrom: { keepSuccessful: 'its successfulHistoryLimit' } });
    const byField = decided([...history(1), run('f1', { state: 'failed' })], policy({ external: perField }));
    assert.deepEqual([byField.get('r1')?.facts.limit, byField.get('f1')?.facts.limit], [{ value: 3, from: 'its successfulHistoryLimit' }, { value: 1, from: 'all three' }]);
    const fromKeep = decided(history(1), policy({ keepSuccessful: 4, limitFlags: { keepSuccessful: '--keep' } }));
    assert.deepEqual(fromKeep.get('r1')?.facts.limit, { value: 4, from: '--keep' });
    const flagOnly = decided(history(5), policy({ keepSuccessful: 4 }));
    assert.deepEqual(flagOnly.get('r1')?.facts.limit, { value: 4, from: '--keep-successful' });
    assert.equal(flagOnly.get('r4')?.decision.reason, 'history-kept');
  });

  it('an invalid value on the run or its namespace keeps the run, with a warning (retention-invalid)', () => {
    const bad = run('bad', { labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/keep-failed`]: 'many' } });
    const all = decided([bad, run('ok')], policy({ keepSuccessful: 0 }));
    assert.equal(all.get('bad')?.decision.reason, 'retention-invalid');
    assert.match(all.get('bad')?.decision.warnings.join() ?? '', /keep-failed "many": expected a whole number/);
    assert.equal(all.get('ok')?.decision.reason, 'history-exceeded');
    const ns: NamespaceRecord = { name: 'ci', labels: { [`${PREFIX}/run-ttl`]: 'soon' } };
    assert.equal(reasons([run('ok')], policy({ keepSuccessful: 0 }), [ns])['ok'], 'retention-invalid');
  });

  it('a run-ttl label sets the TTL of that run', () => {
    const runs = [run('short', { labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/run-ttl`]: '1h' }, finishedAgo: 2 * HOUR }), run('default', { finishedAgo: 2 * HOUR })];
    assert.deepEqual(reasons(runs, policy({ ttl: { kind: 'duration', ms: DAY, text: '1d' } })), { short: 'ttl-expired', default: 'ttl-not-reached' });
  });

  it('parses limits strictly and knows its keys', () => {
    assert.deepEqual(parseHistoryLimit(' 7 '), { ok: true, value: 7 });
    for (const text of ['-1', '1.5', 'x', '', '1000001']) assert.equal(parseHistoryLimit(text).ok, false, text);
    assert.ok(isRunPolicyKey('a.io/keep-failed'));
    assert.ok(!isRunPolicyKey('/keep'));
  });
});

describe('the runs: as the pass decides them', () => {
  it('decide() decides runs with their collector, in its table, and leaves child TaskRuns out at reading', () => {
    const child = toRunRecord(
      {
        metadata: { name: 'c', namespace: 'ci', uid: 'u-c', resourceVersion: '1', creationTimestamp: at(-DAY), ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: 'p', uid: 'u-p', controller: true }] },
      },
      'TaskRun',
    );
    assert.equal(toRunTarget({ metadata: { creationTimestamp: at(-DAY) } }, child), null);
    // One whose tekton.dev/pipelineRun label alone names its PipelineRun is no target either; an empty label names none.
    const labelledOnly = (value: string) => ({ metadata: { name: 'l', namespace: 'ci', uid: 'u-l', resourceVersion: '1', creationTimestamp: at(-DAY), labels: { 'tekton.dev/task': 'lint', 'tekton.dev/pipelineRun': value } } });
    assert.equal(toRunTarget(labelledOnly('p'), toRunRecord(labelledOnly('p'), 'TaskRun')), null);
    assert.equal(toRunTarget(labelledOnly(''), toRunRecord(labelledOnly(''), 'TaskRun'))?.name, 'l');
    // A child (pipeline-in-pipeline) PipelineRun carries the same label and ownerReference
    // (tektoncd/pipeline pipelinerun.go:1213, :1863): either makes it no target; with neither, it is one.
    assert.equal(toRunTarget(labelledOnly('p'), toRunRecord(labelledOnly('p'), 'PipelineRun')), null);
    assert.equal(toRunTarget(labelledOnly(''), toRunRecord(labelledOnly(''), 'PipelineRun'))?.name, 'l');
    const childPipelineRun = toRunRecord(
      {
        metadata: { name: 'release-build', namespace: 'ci', uid: 'u-rb', resourceVersion: '1', creationTimestamp: at(-DAY), ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: 'release', uid: 'u-r', controller: true }] },
      },
      'PipelineRun',
    );
    assert.deepEqual(childPipelineRun.parentPipelineRun, { name: 'release', uid: 'u-r' });
    assert.equal(toRunTarget({ metadata: { creationTimestamp: at(-DAY) } }, childPipelineRun), null);
    const decisions = decide({ targets: history(2), runs: [], namespaces: new Map() }, policy({ keepSuccessful: 1 }), NOW);
    assert.deepEqual(decisions.map((d) => [d.target.name, d.action]), [['r1', 'keep'], ['r2', 'delete']]);
    for (const d of decisions) assert.ok(COLLECTORS.pipelineruns.table.includes(d.reason));
    assert.deepEqual(COLLECTORS.pipelineruns.table, RUN_REASONS);
  });

  it('runDecisionsIn decides one namespace as the whole listing does', () => {
    const runs = [...history(3), ...history(2, { namespace: 'team' }, 't')];
    const whole = decided(runs, policy({ keepSuccessful: 1 }));
    const one = runDecisionsIn('ci', runs, new Map(), policy({ keepSuccessful: 1 }), NOW);
    assert.deepEqual(one.map((d) => d.decision.target.name), ['r1', 'r2', 'r3']);
    for (const d of one) assert.deepEqual(d, whole.get(d.decision.target.name));
  });

  it('a record keeps only the keys a rule reads, one map for runs that carry the same', () => {
    const object = (name: string): Record<string, unknown> => ({
      metadata: {
        name,
        namespace: 'ci',
        uid: `u-${name}`,
        resourceVersion: '1',
        creationTimestamp: at(-DAY),
        labels: { 'tekton.dev/pipeline': 'build', 'app.kubernetes.io/version': name, [`${PREFIX}/keep`]: '3' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'results.tekton.dev/stored': 'true' },
      },
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }], completionTime: at(-HOUR) },
    });
    const shared = new SharedStrings();
    const [a, b] = ['a', 'b'].map((name) => toRunTarget(object(name), toRunRecord(object(name), 'PipelineRun'), { shared }));
    assert.deepEqual(a?.labels, { 'tekton.dev/pipeline': 'build', [`${PREFIX}/keep`]: '3' });
    assert.deepEqual(a?.annotations, { 'results.tekton.dev/stored': 'true' });
    assert.equal(a?.labels, b?.labels);
    assert.equal(a?.annotations, b?.annotations);
    assert.equal(a?.namespace, b?.namespace);
    assert.deepEqual(a?.run, { state: 'succeeded', finishedAt: at(-HOUR) });
  });
});

describe('the runs: properties', () => {
  const runArb = fc.record({
    state: fc.constantFrom<RunState>('succeeded', 'failed', 'cancelled', 'running', 'pending'),
    finishedAgo: fc.integer({ min: 0, max: 30 * DAY }),
    pipeline: fc.constantFrom('a', 'b', undefined),
    retained: fc.boolean(),
  });
  const limitArb = fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined });

  it('per group and outcome, at most N runs are history-kept, and every one deleted is older than every one history-kept', () => {
    fc.assert(
      fc.property(fc.array(runArb, { maxLength: 25 }), limitArb, limitArb, (specs, keepSuccessful, keepFailed) => {
        const runs = specs.map((spec, index) =>
          run(`r${index}`, {
            state: spec.state,
            finishedAgo: spec.finishedAgo,
            labels: { ...(spec.pipeline !== undefined && { 'tekton.dev/pipeline': spec.pipeline }), ...(spec.retained && { [`${PREFIX}/retain`]: 'true' }) },
          }),
        );
        const all = [...decided(runs, policy({ ...(keepSuccessful !== undefined && { keepSuccessful }), ...(keepFailed !== undefined && { keepFailed }) })).values()];
        for (const one of all) {
          const { target } = one.decision;
          // Never an active or retained run.
          if (target.run?.state === 'running' || target.run?.state === 'pending' || target.labels[`${PREFIX}/retain`] === 'true') assert.equal(one.decision.action, 'keep');
        }
        const groups = new Map<string, RunDecisionWithFacts[]>();
        for (const one of all) {
          if (one.facts.outcome === undefined) continue;
          const key = `${one.facts.group}/${one.facts.outcome}`;
          groups.set(key, [...(groups.get(key) ?? []), one]);
        }
        for (const members of groups.values()) {
          const limit = members[0]?.facts.outcome === 'succeeded' ? keepSuccessful : keepFailed;
          const kept = members.filter((one) => one.decision.reason === 'history-kept');
          const gone = members.filter((one) => one.decision.action === 'delete');
          if (limit === undefined) {
            assert.equal(kept.length + gone.length, 0);
            continue;
          }
          assert.ok(kept.length <= limit);
          const slots = members.filter((one) => one.facts.rank !== undefined).length;
          assert.equal(kept.length, Math.min(limit, slots));
          const finished = (one: RunDecisionWithFacts): number => Date.parse(one.decision.target.run?.finishedAt ?? '');
          for (const g of gone) for (const k of kept) assert.ok(finished(g) <= finished(k));
        }
      }),
    );
  });
});

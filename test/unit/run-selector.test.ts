/**
 * --selector with the run collectors (docs/spec.md, "`--selector` and runs"), on plain data:
 * the selector as the API server matches it (core/labelselector.ts), the runs it picks
 * decided each as without it (ranked among their whole group), the unselected ones no
 * targets, the re-check, and a property over random groups and random selectors. The
 * listing, the DELETE and apply are test/integration/runs-selector.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decide } from '../../src/core/decide.js';
import { explainRun } from '../../src/core/explain.js';
import { matchesLabels, parseLabelSelector, runSelection, selectorKeys } from '../../src/core/labelselector.js';
import { toRunTarget } from '../../src/core/runtargets.js';
import { toRunRecord } from '../../src/core/runs.js';
import type { ClusterView, Decision, Policy, RunPolicy, RunState, TargetRecord } from '../../src/core/types.js';
import { redecide } from '../../src/pass/deletephase.js';
import { planPolicy } from '../../src/pass/plan.js';
import { runTargetReading } from '../../src/pass/sweep.js';
import { DAY, HOUR, NOW, POLICY, at, runTarget } from '../fixtures/unit/records.js';

const PREFIX = POLICY.labelPrefix;

const run = runTarget;

function policy(runs: Partial<RunPolicy> = {}): Policy {
  return { ...POLICY, runs: { requireResultsStored: false, ...runs } };
}

function view(targets: readonly TargetRecord[]): ClusterView {
  return { targets, runs: [], namespaces: new Map() };
}

function byName(decisions: readonly Decision[]): Record<string, string> {
  return Object.fromEntries(decisions.map((decision) => [decision.target.name, decision.reason]));
}

/** Five succeeded runs of build, r1 the newest; r1, r2 labelled team=a (the newest), r4, r5 team=b (the oldest). */
function build(): TargetRecord[] {
  const team = ['a', 'a', undefined, 'b', 'b'];
  return team.map((value, index) =>
    run(`r${index + 1}`, { finishedAgo: (index + 1) * HOUR, labels: { 'tekton.dev/pipeline': 'build', ...(value !== undefined && { team: value }) } }),
  );
}

describe('the selector as the API server matches it (k8s.io/apimachinery labels)', () => {
  const labels = { app: 'ci', tier: 'web', n: '7', zero: '007', empty: '' };
  const rows: [string, boolean][] = [
    ['', true],
    ['app=ci', true],
    ['app==ci', true],
    ['app = ci', true],
    ['app=cd', false],
    ['missing=ci', false],
    ['app!=cd', true],
    ['app!=ci', false],
    // != and notin match an object without the label.
    ['missing!=x', true],
    ['missing notin (x)', true],
    ['app in (cd, ci)', true],
    ['app in (cd)', false],
    ['missing in (ci)', false],
    ['app notin (ci)', false],
    ['app notin (cd,web)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['! app', false],
    // An empty value: only a label that is there with an empty value.
    ['empty=', true],
    ['missing=', false],
    ['empty in ()', true],
    ['app in ()', false],
    // > and <: only a label whose value is a whole number (leading zeros read as the number).
    ['n>5', true],
    ['n>7', false],
    ['n<8', true],
    ['n>0', true],
    ['zero>6', true],
    ['app>1', false],
    ['missing<100', false],
    // Every requirement must hold.
    ['app=ci,tier=web', true],
    ['app=ci,tier=db', false],
    ['app=ci,app=cd', false],
  ];
  for (const [text, expected] of rows) {
    it(`${JSON.stringify(text)} ${expected ? 'matches' : 'does not match'}`, () => {
      const parsed = parseLabelSelector(text);
      assert.ok(parsed.ok, text);
      assert.equal(matchesLabels(parsed.value, labels), expected);
    });
  }

  it('refuses what the API server refuses, a > against a number beyond 64 bits too', () => {
    // kube-apiserver 1.35 reads the number of > and < as a label value too: never negative.
    for (const text of ['app=ci,', 'env in (prod', 'env in prod', 'app=my app', 'app=>ci', 'n>9223372036854775808', 'n>1.5', 'n>-1']) assert.equal(parseLabelSelector(text).ok, false, text);
    assert.equal(parseLabelSelector('n<9223372036854775807').ok, true);
  });

  it('names the keys it reads, once each', () => {
    const parsed = parseLabelSelector('team in (a,b),!legacy,team!=c,n>1');
    assert.ok(parsed.ok);
    assert.deepEqual(selectorKeys(parsed.value), ['team', 'legacy', 'n']);
  });

  it('none selects every run (undefined); one that cannot be read selects none', () => {
    assert.equal(runSelection(undefined), undefined);
    assert.equal(runSelection(''), undefined);
    assert.equal(runSelection('a in (b')?.({ a: 'b' }), false);
  });
});

describe('the runs a selector picks are decided as without it', () => {
  it('picks the oldest: they go as without the selector, ranked among the whole group; the others are no targets', () => {
    const runs = build();
    const without = byName(decide(view(runs), policy({ keepSuccessful: 2 }), NOW));
    assert.deepEqual(without, { r1: 'history-kept', r2: 'history-kept', r3: 'history-exceeded', r4: 'history-exceeded', r5: 'history-exceeded' });
    const selected = decide(view(runs), policy({ keepSuccessful: 2, selector: 'team=b' }), NOW);
    assert.deepEqual(byName(selected), { r4: 'history-exceeded', r5: 'history-exceeded' });
    // Its place among all five, not among the two selected.
    assert.match(selected.find((one) => one.target.name === 'r4')?.message ?? '', /^4th newest of 5 succeeded runs in group tekton.dev\/pipeline=build/);
  });

  it('picks the newest: they are kept by their place (history-kept), and nothing is deleted', () => {
    const decisions = decide(view(build()), policy({ keepSuccessful: 2, selector: 'team=a' }), NOW);
    assert.deepEqual(byName(decisions), { r1: 'history-kept', r2: 'history-kept' });
    assert.equal(decisions.filter((one) => one.action === 'delete').length, 0);
  });

  it('a selector that matches no run of a kind decides none of it; other kinds of targets are not its to filter', () => {
    const runs = [...build(), run('t1', { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint', team: 'b' } })];
    assert.deepEqual(byName(decide(view(runs), policy({ keepSuccessful: 0, selector: 'team=c' }), NOW)), {});
    assert.deepEqual(byName(decide(view(runs), policy({ keepSuccessful: 0, selector: 'team=b' }), NOW)), { r4: 'history-exceeded', r5: 'history-exceeded', t1: 'history-exceeded' });
  });

  it('explain decides an unselected run all the same, ranked among its whole group', () => {
    const runs = build();
    const origins = { 'min-age': 'default', 'retain-for': 'default', keep: 'default', 'keep-successful': '--keep-successful', 'keep-failed': 'default', 'run-ttl': 'default' };
    const target = runs[2] as TargetRecord;
    const explained = explainRun({ target, view: { targets: runs, runs: [], namespaces: new Map() }, scope: { inScope: false, why: 'its labels do not match --selector "team=a"' }, origins }, policy({ keepSuccessful: 2, selector: 'team=a' }), NOW);
    assert.equal(explained.decision.reason, 'history-exceeded');
    assert.equal(explained.run?.rank, 3);
    assert.equal(explained.run?.ofOutcome, 5);
  });

  it("a plan's selector is its runs' too: apply picks the same runs", () => {
    const settings = { namespaces: [], excludeNamespaces: [], selector: 'team=b', labelPrefix: PREFIX, minAgeMs: HOUR, collect: ['pipelineruns' as const], runs: { keepSuccessful: 2, requireResultsStored: false } };
    assert.equal(planPolicy(settings).runs?.selector, 'team=b');
    assert.equal(planPolicy({ ...settings, selector: '' }).runs?.selector, undefined);
  });
});

describe('the runs a selector picks: the listing and the re-check', () => {
  it('a run read as a target keeps the labels the selector reads, and no other', () => {
    const object = {
      metadata: { name: 'r1', namespace: 'ci', uid: 'u1', resourceVersion: '5', creationTimestamp: at(-DAY), labels: { 'tekton.dev/pipeline': 'build', team: 'a', other: 'x', legacy: 'y' } },
      spec: {},
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }], completionTime: at(-HOUR) },
    };
    const reading = runTargetReading(policy({ selector: 'team=a,!legacy' }));
    const target = toRunTarget(object, toRunRecord(object, 'PipelineRun'), reading);
    assert.deepEqual(target?.labels, { 'tekton.dev/pipeline': 'build', team: 'a', legacy: 'y' });
    assert.equal(runTargetReading(policy()).selectorKeys, undefined);
  });

  it('the re-check decides the group again on every run: a selected candidate pushed up by a gone run is kept', () => {
    const runs = build();
    const with_ = policy({ keepSuccessful: 2, selector: 'team=b' });
    const decisions = decide(view(runs), with_, NOW);
    // r1 and r2 are gone since the listing: r4 is now the 2nd newest.
    const again = redecide(with_, view(runs.slice(2)), decisions, NOW);
    assert.deepEqual(byName(again), { r4: 'history-kept', r5: 'history-exceeded' });
  });

  it('a candidate whose labels no longer match is no target when re-checked: its DELETE names the version it was decided on', () => {
    const runs = build();
    const with_ = policy({ keepSuccessful: 2, selector: 'team=b' });
    const decisions = decide(view(runs), with_, NOW);
    const relabelled = runs.map((one) => (one.name === 'r5' ? { ...one, resourceVersion: '2', labels: { 'tekton.dev/pipeline': 'build', team: 'c' } } : one));
    const again = redecide(with_, view(relabelled), decisions, NOW);
    const r5 = again.find((one) => one.target.name === 'r5');
    assert.equal(r5?.target.resourceVersion, '1');
    assert.match(r5?.message ?? '', /its labels no longer match --selector \(seen when re-checking before deleting\)$/);
    assert.equal(again.find((one) => one.target.name === 'r4')?.action, 'delete');
  });
});

describe('the runs a selector picks: properties', () => {
  const KEYS = ['team', 'tier', 'n'] as const;
  const VALUES = ['a', 'b', '1', '5', ''] as const;
  const labelsArb = fc.record({ team: fc.constantFrom(...VALUES, undefined), tier: fc.constantFrom(...VALUES, undefined), n: fc.constantFrom(...VALUES, undefined) });
  const runArb = fc.record({
    state: fc.constantFrom<RunState>('succeeded', 'failed', 'cancelled', 'running'),
    finishedAgo: fc.integer({ min: 0, max: 10 * DAY }),
    pipeline: fc.constantFrom('a', 'b', undefined),
    kind: fc.constantFrom<'PipelineRun' | 'TaskRun'>('PipelineRun', 'TaskRun'),
    retained: fc.boolean(),
    labels: labelsArb,
  });
  const value = fc.constantFrom(...VALUES);
  const requirementArb = fc.oneof(
    fc.record({ key: fc.constantFrom(...KEYS), op: fc.constantFrom('=', '==', '!=') , value }).map(({ key, op, value: v }) => `${key}${op}${v}`),
    fc.record({ key: fc.constantFrom(...KEYS), op: fc.constantFrom('in', 'notin'), values: fc.array(value, { minLength: 1, maxLength: 3 }) }).map(({ key, op, values }) => `${key} ${op} (${values.join(',')})`),
    fc.record({ key: fc.constantFrom(...KEYS), not: fc.boolean() }).map(({ key, not }) => `${not ? '!' : ''}${key}`),
    fc.record({ key: fc.constantFrom(...KEYS), op: fc.constantFrom('>', '<'), number: fc.integer({ min: 0, max: 6 }) }).map(({ key, op, number }) => `${key}${op}${number}`),
  );
  const selectorArb = fc.array(requirementArb, { minLength: 1, maxLength: 3 }).map((requirements) => requirements.join(','));
  const limitArb = fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined });

  it("a selected pass's decisions are the unselected pass's, restricted to the runs the selector matches", () => {
    fc.assert(
      fc.property(fc.array(runArb, { maxLength: 30 }), selectorArb, limitArb, limitArb, fc.boolean(), (specs, selector, keepSuccessful, keepFailed, ttl) => {
        const runs = specs.map((spec, index) =>
          run(`r${index}`, {
            state: spec.state,
            finishedAgo: spec.finishedAgo,
            kind: spec.kind,
            labels: {
              ...(spec.pipeline !== undefined && { [spec.kind === 'PipelineRun' ? 'tekton.dev/pipeline' : 'tekton.dev/task']: spec.pipeline }),
              ...(spec.retained && { [`${PREFIX}/retain`]: 'true' }),
              ...Object.fromEntries(Object.entries(spec.labels).flatMap(([key, text]) => (text === undefined ? [] : [[key, text]]))),
            },
          }),
        );
        const limits: Partial<RunPolicy> = {
          ...(keepSuccessful !== undefined && { keepSuccessful }),
          ...(keepFailed !== undefined && { keepFailed }),
          ...(ttl && { ttl: { kind: 'duration', ms: 3 * DAY, text: '3d' } }),
        };
        const parsed = parseLabelSelector(selector);
        assert.ok(parsed.ok, selector);
        const without = decide(view(runs), policy(limits), NOW);
        const selected = decide(view(runs), policy({ ...limits, selector }), NOW);
        const expected = without.filter((one) => matchesLabels(parsed.value, one.target.labels));
        assert.deepEqual(selected, expected);
        // A subset of what the pass without it deletes.
        const deletes = new Set(without.filter((one) => one.action === 'delete').map((one) => one.target.uid));
        for (const one of selected) if (one.action === 'delete') assert.ok(deletes.has(one.target.uid));
      }),
      { numRuns: 300 },
    );
  });
});

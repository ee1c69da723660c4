/**
 * `explain pipelinerun/...` and `explain taskrun/...` on plain records: the run decided with
 * the runs of its namespace as a pass decides it, its group, rank, limit and TTL with where
 * each was set, when it would go, and the text and JSON that say it. The listing and the CLI
 * are test/integration/explain-runs.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainRun, type Explanation, type RunExplainInput, type RunSettingOrigins } from '../../src/core/explain.js';
import { RunChildren } from '../../src/core/cascade.js';
import { decide } from '../../src/core/decide.js';
import { decideRuns } from '../../src/core/history.js';
import type { ClusterView, NamespaceRecord, Policy, RunPolicy, TargetRecord } from '../../src/core/types.js';
import { describeCollectable, renderExplanationJson, renderExplanationText } from '../../src/report/explain.js';
import { assertGolden } from '../support/golden.js';
import { DAY, HOUR, NOW, POLICY, runTarget, type RunTargetOptions } from '../fixtures/unit/records.js';

const PREFIX = POLICY.labelPrefix;

const run = runTarget;

/** n succeeded runs of build, b1 the newest (finished 1 h ago, each next one an hour earlier). */
function history(n: number, options: RunTargetOptions = {}, prefix = 'b'): TargetRecord[] {
  return Array.from({ length: n }, (_, index) => run(`${prefix}${index + 1}`, { finishedAgo: (index + 1) * HOUR, ...options }));
}

function policy(runs: Partial<RunPolicy> = {}, more: Partial<Policy> = {}): Policy {
  return { ...POLICY, ...more, runs: { requireResultsStored: false, ...runs } };
}

const ORIGINS: RunSettingOrigins = { 'min-age': 'default', 'retain-for': 'default', keep: 'default', 'keep-successful': '--keep-successful', 'keep-failed': 'default', 'run-ttl': 'default' };

/** The run explained as the pass reads its namespace: `runs` its run targets; `namespace`, `children` and `targets` (leftovers beside them) as a pass lists them. */
function explained(
  name: string,
  runs: readonly TargetRecord[],
  with_: Policy,
  more: Partial<Omit<RunExplainInput, 'view'>> & { namespace?: NamespaceRecord; children?: ClusterView['children']; targets?: readonly TargetRecord[] } = {},
): Explanation {
  const target = runs.find((one) => one.name === name);
  assert.ok(target !== undefined, name);
  const { namespace = { name: 'ci', labels: {} }, children, targets = [], ...rest } = more;
  const view: ClusterView = { targets: [...runs, ...targets], runs: [], namespaces: new Map([[namespace.name, namespace]]), ...(children !== undefined && { children }) };
  return explainRun({ target, view, scope: { inScope: true }, origins: ORIGINS, ...rest }, with_, NOW);
}

function field(text: string, label: string): string | undefined {
  return new RegExp(`^${label}: +(.*)$`, 'm').exec(text)?.[1];
}

describe('explain: a run', () => {
  it('is decided as a pass decides it, every run of its namespace alike', () => {
    const runs = [...history(4), ...history(2, { state: 'failed' }, 'f'), run('other', { labels: { 'tekton.dev/pipeline': 'test' } }), run('old', { finishedAgo: 9 * DAY, labels: {} })];
    const with_ = policy({ keepSuccessful: 2, ttl: { kind: 'duration', ms: 2 * DAY, text: '2d' } });
    const pass = decideRuns(runs, new Map([['ci', { name: 'ci', labels: {} }]]), with_, NOW.getTime(), (one) => one.decision);
    for (const decision of pass) {
      const one = explained(decision.target.name, runs, with_);
      assert.deepEqual([one.decision.action, one.decision.reason, one.decision.message], [decision.action, decision.reason, decision.message], decision.target.name);
    }
  });

  it('is decided by the pass’s own path: a run whose TaskRun runs, or is retained, or whose listed claim is retained, stays (rule 14), as decide() says for every run', () => {
    const runs = [...history(5), run('deleting', { finishedAgo: 6 * HOUR, deleting: true })];
    const children = new RunChildren(new Set());
    children.add({ kind: 'TaskRun', namespace: 'ci', name: 'b2-compile', uid: 'uid-b2-compile', parent: { name: 'b2', uid: 'uid-b2' }, podName: 'b2-compile-pod', stays: 'has not finished (running)' });
    children.add({ kind: 'TaskRun', namespace: 'ci', name: 'b3-compile', uid: 'uid-b3-compile', parent: { name: 'b3', uid: 'uid-b3' }, stays: `its label ${PREFIX}/retain is "true"` });
    children.add({ kind: 'TaskRun', namespace: 'ci', name: 'b5-compile', uid: 'uid-b5-compile', parent: { name: 'b5', uid: 'uid-b5' }, podName: 'b5-compile-pod' });
    children.add({ kind: 'TaskRun', namespace: 'ci', name: 'deleting-compile', uid: 'uid-deleting-compile', parent: { name: 'deleting', uid: 'uid-deleting' }, stays: 'has not finished (running)' });
    const claim: TargetRecord = {
      kind: 'PersistentVolumeClaim',
      namespace: 'ci',
      name: 'pvc-b4',
      uid: 'uid-pvc-b4',
      resourceVersion: '1',
      createdAt: NOW.toISOString(),
      labels: { [`${PREFIX}/retain`]: 'true' },
      annotations: {},
      ownerReferences: [{ kind: 'PipelineRun', name: 'b4', uid: 'uid-b4', controller: true }],
      leftover: { marker: 'owned' },
    };
    const with_ = policy({ keepSuccessful: 1 });
    const view: ClusterView = { targets: [...runs, claim], runs: [], namespaces: new Map([['ci', { name: 'ci', labels: {} }]]), children };
    const pass = new Map(decide(view, with_, NOW).map((decision) => [decision.target.name, decision]));
    // Rows: b1 holds the place; b2 (a TaskRun runs), b3 (a retained TaskRun), b4 (its retained claim) stay; b5 goes with its TaskRun and Pod; one being deleted goes, sent nothing, and nothing with it.
    const rows = ['b1', 'b2', 'b3', 'b4', 'b5', 'deleting'].map((name) => {
      const one = explained(name, runs, with_, { children, targets: [claim] });
      const decided = pass.get(name);
      assert.deepEqual(one.decision, decided, name);
      return [name, one.rule, one.decision.reason, one.collectable.when];
    });
    assert.deepEqual(rows, [
      ['b1', 9, 'history-kept', 'unknown'],
      ['b2', 14, 'dependent-kept', 'never'],
      ['b3', 14, 'dependent-kept', 'never'],
      ['b4', 14, 'dependent-kept', 'never'],
      ['b5', 10, 'history-exceeded', 'now'],
      ['deleting', 10, 'history-exceeded', 'now'],
    ]);
    assert.deepEqual(pass.get('b5')?.cascade, { objects: { TaskRun: 1, Pod: 1 } });
    assert.equal(pass.get('deleting')?.cascade, undefined);
    const b2 = renderExplanationText(explained('b2', runs, with_, { children, targets: [claim] }));
    assert.equal(field(b2, 'decision'), 'keep (rule 14, dependent-kept)');
    assert.match(field(b2, 'collectable') ?? '', /^never, until what would go with it and is kept, is kept no more or is no longer its dependent/);
    assert.match(explained('b4', runs, with_, { children, targets: [claim] }).decision.message, /its PersistentVolumeClaim pvc-b4 would go with it and is kept \(retained/);
  });

  it('kept by its place: its group, its rank among its outcome, the limit and where it was set, and how many newer runs make it go', () => {
    const runs = history(4);
    const one = explained('b2', runs, policy({ keepSuccessful: 3 }));
    assert.equal(one.rule, 9);
    assert.equal(one.decision.reason, 'history-kept');
    assert.deepEqual(one.run && { group: one.run.group, rank: one.run.rank, of: one.run.ofOutcome, limit: one.run.limit }, {
      group: 'tekton.dev/pipeline=build',
      rank: 2,
      of: 4,
      limit: { value: '3', source: '--keep-successful', flag: '--keep-successful' },
    });
    const text = renderExplanationText(one);
    assert.equal(field(text, 'rank'), 'the 2nd newest of 4 succeeded runs in tekton.dev/pipeline=build');
    assert.equal(field(text, 'limit'), '--keep-successful 3 (command line)');
    assert.equal(field(text, 'run TTL'), 'none');
    assert.equal(
      field(text, 'collectable'),
      'unknown: it goes once 2 more succeeded runs in tekton.dev/pipeline=build finish after it, which makes it the 4th newest, past the limit of 3',
    );
  });

  it('past its limit: deleted now, the rank said; a limit from --keep or its variable names it', () => {
    const runs = history(4);
    const byKeep = policy({ keepSuccessful: 3, limitFlags: { keepSuccessful: '--keep' } });
    const fromKeep = explained('b4', runs, byKeep, { origins: { ...ORIGINS, keep: '--keep' } });
    assert.deepEqual([fromKeep.rule, fromKeep.decision.action, fromKeep.collectable], [10, 'delete', { when: 'now' }]);
    const text = renderExplanationText(fromKeep);
    assert.equal(field(text, 'decision'), 'delete (rule 10, history-exceeded)');
    assert.equal(field(text, 'rank'), 'the 4th newest of 4 succeeded runs in tekton.dev/pipeline=build');
    assert.equal(field(text, 'limit'), '--keep 3 (command line)');
    assert.equal(field(text, 'collectable'), 'now: a pass would delete it');
    const fromVariable = explained('b4', runs, byKeep, { origins: { ...ORIGINS, keep: 'TRGC_KEEP' } });
    assert.equal(field(renderExplanationText(fromVariable), 'limit'), '--keep 3 (TRGC_KEEP)');
  });

  it('by its TTL: expired now, or at the instant it ends; forever is never', () => {
    const ttl = (text: string, ms: number) => policy({ ttl: { kind: 'duration', ms, text } });
    const runs = [run('old', { finishedAgo: 3 * DAY }), run('new', { finishedAgo: HOUR * 2, createdAgo: 3 * HOUR })];
    const origins = { ...ORIGINS, 'run-ttl': 'TRGC_RUN_TTL' };
    const old = explained('old', runs, ttl('2d', 2 * DAY), { origins });
    assert.deepEqual([old.rule, old.decision.reason, old.collectable], [11, 'ttl-expired', { when: 'now' }]);
    assert.equal(field(renderExplanationText(old), 'run TTL'), '--run-ttl 2d (TRGC_RUN_TTL)');
    assert.equal(field(renderExplanationText(old), 'limit'), 'none for succeeded runs');
    const young = explained('new', runs, ttl('2d', 2 * DAY), { origins });
    assert.equal(young.decision.reason, 'ttl-not-reached');
    const ends = NOW.getTime() - 2 * HOUR + 2 * DAY;
    assert.deepEqual(young.collectable, { when: 'at', atMs: ends, bound: 'run-ttl' });
    assert.equal(field(renderExplanationText(young), 'collectable'), 'at 2026-12-01T10:00:00Z (in 1d22h), when its run TTL ends, if nothing else changes');
    const forever = explained('new', runs, policy({ ttl: { kind: 'forever' } }), { origins });
    assert.deepEqual(forever.collectable, { when: 'never', until: 'its run TTL "forever" (--run-ttl) is changed' });
  });

  it('a limit set by its namespace label is named there; one on the run itself too', () => {
    const namespace: NamespaceRecord = { name: 'ci', labels: { [`${PREFIX}/keep`]: '1' } };
    const runs = [...history(2), run('pinned', { finishedAgo: 5 * HOUR, labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/keep-successful`]: '5' } })];
    const byNamespace = explained('b2', runs, policy({ keepSuccessful: 3 }), { namespace });
    assert.deepEqual(byNamespace.run?.limit, { value: '1', source: `namespace ci label ${PREFIX}/keep` });
    assert.equal(byNamespace.decision.reason, 'history-exceeded');
    assert.equal(field(renderExplanationText(byNamespace), 'limit'), `namespace ci label ${PREFIX}/keep "1"`);
    const byLabel = explained('pinned', runs, policy({ keepSuccessful: 3 }), { namespace });
    assert.deepEqual([byLabel.decision.reason, byLabel.run?.rank, byLabel.run?.limit], ['history-kept', 3, { value: '5', source: `label ${PREFIX}/keep-successful` }]);
  });

  it('kept by an earlier rule: no place, and when time lifts that rule, the history decides', () => {
    const runs = [...history(2), run('young', { finishedAgo: HOUR / 2, createdAgo: HOUR / 2 })];
    const young = explained('young', runs, policy({ keepSuccessful: 1 }));
    assert.deepEqual([young.rule, young.decision.reason, young.run?.rank], [5, 'too-young', undefined]);
    const text = renderExplanationText(young);
    assert.equal(field(text, 'rank'), "none: rule 5 (too-young) keeps it, so it takes none of the places of its group's limit");
    assert.equal(
      field(text, 'collectable'),
      'unknown: not before 2026-11-29T12:30:00Z (in 30m), when it is older than --min-age; then its place among the succeeded runs in tekton.dev/pipeline=build decides (a limit of 1)',
    );
    // b1 is first among the runs that hold a place: young holds none.
    const first = explained('b1', runs, policy({ keepSuccessful: 1 }));
    assert.equal(first.run?.rank, 1);
    assert.equal(field(renderExplanationText(first), 'collectable'), 'unknown: it goes once 1 more succeeded run in tekton.dev/pipeline=build finishes after it, which makes it the 2nd newest, past the limit of 1');
    const alone = explained('b1', [runs[0] as TargetRecord], policy({ keepSuccessful: 1 }));
    assert.equal(field(renderExplanationText(alone), 'rank'), 'the 1st newest of 1 succeeded run in tekton.dev/pipeline=build');
  });

  it('not finished, retained, with no policy: never, and what would have to change; one being deleted holds no place', () => {
    const runs = [run('running', { state: 'running' }), run('kept', { labels: { [`${PREFIX}/retain`]: 'true' } }), run('loose', { labels: {} }), run('going', { deleting: true })];
    const running = explained('running', runs, policy({ keepSuccessful: 1 }));
    assert.deepEqual([running.rule, running.collectable], [4, { when: 'never', until: 'the run has finished' }]);
    const text = renderExplanationText(running);
    assert.equal(field(text, 'state'), 'running: not finished');
    assert.equal(field(text, 'rank'), 'none: it has not finished');
    assert.equal(field(text, 'limit'), 'none read: it has not finished');
    assert.equal(explained('kept', runs, policy()).rule, 1);
    const loose = explained('loose', runs, policy());
    assert.deepEqual([loose.rule, loose.decision.reason, loose.run?.group], [13, 'no-run-policy', '(no group label)']);
    assert.equal(field(renderExplanationText(loose), 'group'), '(no group label)');
    assert.equal(field(renderExplanationText(explained('going', runs, policy({ keepSuccessful: 1 }))), 'rank'), 'none: it is already being deleted');
  });

  it('a cancelled run counts as failed; without a group label it is ranked among its namespace\'s runs without one', () => {
    const runs = [run('c1', { state: 'cancelled', labels: {}, finishedAgo: HOUR }), run('c2', { state: 'failed', labels: {}, finishedAgo: 2 * HOUR })];
    const text = renderExplanationText(explained('c1', runs, policy({ keepFailed: 1 })));
    assert.match(field(text, 'state') ?? '', /^cancelled, finished 2026-11-29T11:00:00Z \(1h ago\) \(counts as failed\)$/);
    assert.equal(field(text, 'rank'), "the 1st newest of 2 failed runs among its namespace's runs without a group label");
  });

  it('in JSON: the run\'s state, group, rank and the settings with their sources; unknown said with why and not-before', () => {
    const runs = [...history(3), run('young', { finishedAgo: HOUR / 2, createdAgo: HOUR / 2 })];
    const document = JSON.parse(renderExplanationJson(explained('b1', runs, policy({ keepSuccessful: 2 })))) as Record<string, unknown>;
    assert.deepEqual(document['run'], {
      state: 'succeeded',
      finishedAt: '2026-11-29T11:00:00Z',
      group: 'tekton.dev/pipeline=build',
      outcome: 'succeeded',
      rank: 1,
      ofOutcome: 3,
      limit: { value: '2', source: '--keep-successful', flag: '--keep-successful' },
      ttl: null,
    });
    assert.deepEqual(document['decision'], { action: 'keep', reason: 'history-kept', rule: 9, message: '1st newest of 3 succeeded runs in group tekton.dev/pipeline=build; --keep-successful keeps 2' });
    const young = JSON.parse(renderExplanationJson(explained('young', runs, policy({ keepSuccessful: 2 })))) as Record<string, unknown>;
    assert.deepEqual(young['collectable'], {
      when: 'unknown',
      why: 'then its place among the succeeded runs in tekton.dev/pipeline=build decides (a limit of 2)',
      notBefore: '2026-11-29T12:30:00Z',
      bound: 'min-age',
    });
    assert.equal((young['run'] as Record<string, unknown>)['noPlace'], "rule 5 (too-young) keeps it, so it takes none of the places of its group's limit");
  });

  it('a run-policy value that cannot be read is listed as invalid, and keeps it (rule 3)', () => {
    const runs = [run('bad', { labels: { 'tekton.dev/pipeline': 'build', [`${PREFIX}/keep`]: 'all' } })];
    const one = explained('bad', runs, policy({ keepSuccessful: 1 }));
    assert.deepEqual([one.rule, one.decision.reason, one.invalid], [3, 'retention-invalid', [`label ${PREFIX}/keep "all": expected a whole number from 0 to 1000000, such as 5`]]);
    assert.equal(field(renderExplanationText(one), 'invalid'), `label ${PREFIX}/keep "all": expected a whole number from 0 to 1000000, such as 5`);
  });

  it('unknown without a bound says why alone', () => {
    assert.equal(describeCollectable({ when: 'unknown', why: 'it depends' }, NOW.getTime()), 'unknown: it depends');
  });

  it('the whole text and JSON of one run', () => {
    const runs = [...history(3), run('lint', { kind: 'TaskRun', labels: { 'tekton.dev/task': 'lint' } })];
    const one = explained('b3', runs, policy({ keepSuccessful: 2, keepFailed: 1, ttl: { kind: 'duration', ms: 7 * DAY, text: '7d' } }), {
      origins: { ...ORIGINS, 'keep-failed': '--keep-failed', 'run-ttl': '--run-ttl' },
    });
    assertGolden('explain-run-exceeded.txt', renderExplanationText(one));
    assertGolden('explain-run-exceeded.json', renderExplanationJson(one));
  });
});

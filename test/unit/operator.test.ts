/**
 * Issue 8's pure parts: when a target becomes collectable, explain and its renderers, the
 * explain command line, the progress line, Events and metrics (schedules and the schedule
 * loop: schedule.test.ts and cron.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig, settingOrigin } from '../../src/cli/config.js';
import { collectableAt, type Collectable } from '../../src/core/collectable.js';
import type { DecisionFacts } from '../../src/core/decide.js';
import { explain, scopeVerdict, type ExplainInput } from '../../src/core/explain.js';
import type { Decision, Reason } from '../../src/core/types.js';
import { EVENT_REASONS, REPORTING_CONTROLLER, eventFor, eventName } from '../../src/ops/events.js';
import { DELETION_RESULTS, passMetrics, pushUrl } from '../../src/ops/metrics.js';
import { TerminalProgress, progressLine } from '../../src/ops/progress.js';
import { buildReport } from '../../src/report/build.js';
import { renderExplanationJson, renderExplanationText } from '../../src/report/explain.js';
import { DAY, HOUR, NOW, POLICY, activeRun, at, run, target } from '../fixtures/unit/records.js';
import { assertGolden } from '../support/golden.js';

const KEY = 'tekton-resource-gc.io';
const NOW_MS = NOW.getTime();
/** Neither --min-age nor --retain-for given: both at their defaults. */
const DEFAULT_ORIGINS: ExplainInput['origins'] = { 'min-age': 'default', 'retain-for': 'default' };

describe('collectableAt', () => {
  const created = NOW_MS - 10 * HOUR;
  const minAgeEnd = created + HOUR;
  const rows: { row: string; reason: Reason; ends?: Partial<DecisionFacts['ends']>; expect: Collectable }[] = [
    // A delete decision: now, whatever the ends.
    { row: 'runs-finished is now', reason: 'runs-finished', expect: { when: 'now' } },
    { row: 'unreferenced is now', reason: 'unreferenced', ends: { 'retain-for': 'never' }, expect: { when: 'now' } },
    // Rules that time alone does not lift.
    { row: 'retained: never', reason: 'retained', expect: { when: 'never', until: 'its retain label and annotation are both removed or set to "false"' } },
    { row: 'namespace retained: never', reason: 'namespace-retained', expect: { when: 'never', until: 'the retain label of its namespace is removed or set to "false"' } },
    { row: 'invalid retention: never', reason: 'retention-invalid', expect: { when: 'never', until: 'its retention value is fixed or removed' } },
    { row: 'unreadable run: never', reason: 'unreadable-run', expect: { when: 'never', until: 'the run with references of an unexpected shape is fixed or deleted' } },
    { row: 'active run: never, even with a short retain-until', reason: 'referenced-by-active-run', ends: { 'retain-until': NOW_MS + HOUR }, expect: { when: 'never', until: 'every run that links it has finished, or no longer reads it' } },
    // Ends of the rules time lifts: the latest wins.
    { row: 'too young, nothing else: created + min age', reason: 'too-young', ends: { 'min-age': created + 12 * HOUR }, expect: { when: 'at', atMs: created + 12 * HOUR, bound: 'min-age' } },
    { row: 'retain-until later than min age', reason: 'retain-until', ends: { 'retain-until': NOW_MS + DAY }, expect: { when: 'at', atMs: NOW_MS + DAY, bound: 'retain-until' } },
    { row: 'min age later than retain-until', reason: 'too-young', ends: { 'min-age': created + 2 * DAY, 'retain-until': NOW_MS + HOUR }, expect: { when: 'at', atMs: created + 2 * DAY, bound: 'min-age' } },
    { row: 'retain-for later than both', reason: 'retain-for', ends: { 'retain-until': NOW_MS - HOUR, 'retain-for': NOW_MS + 6 * DAY }, expect: { when: 'at', atMs: NOW_MS + 6 * DAY, bound: 'retain-for' } },
    { row: 'a tie names the later rule', reason: 'retain-for', ends: { 'retain-until': NOW_MS + DAY, 'retain-for': NOW_MS + DAY }, expect: { when: 'at', atMs: NOW_MS + DAY, bound: 'retain-for' } },
    // forever and an unreadable creation time never end.
    { row: 'retain-for forever: never', reason: 'retain-for', ends: { 'retain-for': 'never' }, expect: { when: 'never', until: 'its retain-for "forever" is changed' } },
    { row: 'creation time unreadable: never', reason: 'too-young', ends: { 'min-age': 'unknown', 'retain-for': 'unknown' }, expect: { when: 'never', until: 'its creation time can be read' } },
  ];
  for (const { row, reason, ends, expect } of rows) {
    it(row, () => assert.deepEqual(collectableAt(reason, { 'min-age': minAgeEnd, ...ends }), expect));
  }

  it('agrees with decide: at the instant it names, the target is collectable, and a second before it is not', () => {
    const t = target('src', { createdAt: at(-30 * 60_000), labels: { [`${KEY}/retain-for`]: '2h' } });
    const runs = [run('build', ['src'], { finishedAt: at(-10 * 60_000) })];
    const input = { target: t, runs, namespace: undefined, scope: { inScope: true }, origins: DEFAULT_ORIGINS } as const;
    const explanation = explain(input, POLICY, NOW);
    assert.equal(explanation.collectable.when, 'at');
    const atMs = (explanation.collectable as { atMs: number }).atMs;
    const then = explain(input, POLICY, new Date(atMs));
    const before = explain(input, POLICY, new Date(atMs - 1000));
    assert.equal(then.decision.action, 'delete');
    assert.equal(before.decision.action, 'keep');
  });
});

describe('explain', () => {
  const inScope = { inScope: true } as const;

  it('names the rule, the runs, every retention setting with its end, and when it becomes collectable', () => {
    const t = target('src-abc', { createdAt: at(-3 * HOUR), labels: { [`${KEY}/retain-for`]: '7d' }, annotations: { [`${KEY}/retain-until`]: at(2 * DAY) } });
    const runs = [run('build-abc', ['src-abc'], { finishedAt: at(-2 * HOUR) }), run('other', ['x'])];
    const explanation = explain({ target: t, runs, namespace: { name: 'ci', labels: {} }, scope: inScope, origins: DEFAULT_ORIGINS }, POLICY, NOW);
    assert.equal(explanation.rule, 7);
    assert.equal(explanation.decision.reason, 'retain-until');
    assert.deepEqual(explanation.decision.references.map((ref) => ref.name), ['build-abc']);
    assert.deepEqual(
      explanation.retention.map((fact) => [fact.setting, fact.source, fact.value, fact.expiresMs]),
      [
        ['retain-until', `annotation ${KEY}/retain-until`, at(2 * DAY), NOW_MS + 2 * DAY],
        ['retain-for', `label ${KEY}/retain-for`, '7d', NOW_MS - 2 * HOUR + 7 * DAY],
        ['min-age', 'default', '1h', NOW_MS - 2 * HOUR],
      ],
    );
    assert.deepEqual(explanation.collectable, { when: 'at', atMs: NOW_MS - 2 * HOUR + 7 * DAY, bound: 'retain-for' });
  });

  it('shows the namespace retain label, and the global retain-for with where it was set', () => {
    const explanation = explain(
      { target: target('t'), runs: [], namespace: { name: 'ci', labels: { [`${KEY}/retain`]: 'true' } }, scope: inScope, origins: { 'min-age': '--min-age', 'retain-for': 'TRGC_RETAIN_FOR' } },
      { ...POLICY, retainFor: { kind: 'forever' } },
      NOW,
    );
    assert.equal(explanation.decision.reason, 'namespace-retained');
    assert.deepEqual(
      explanation.retention.map((fact) => [fact.setting, fact.source, fact.flag, fact.expiresMs]),
      [
        ['namespace retain', `label ${KEY}/retain on namespace ci`, undefined, 'never'],
        ['retain-for', 'TRGC_RETAIN_FOR', '--retain-for', 'never'],
        ['min-age', '--min-age', '--min-age', NOW_MS - 3 * DAY + HOUR],
      ],
    );
  });

  it('names where each setting of the collector came from: its flag, its TRGC_ variable, or its default', () => {
    const t = target('t', { createdAt: at(-30 * 60_000) });
    const runs = [run('build', ['t'], { finishedAt: at(-10 * 60_000) })];
    const rows: { argv: string[]; env: Record<string, string>; lines: string[] }[] = [
      // Neither given: --min-age has its default, and there is no global retain-for to show.
      { argv: [], env: {}, lines: ['retention:   --min-age 1h (default): keeps it until 2026-11-29T12:30:00Z (in 30m)'] },
      // From the environment, as the chart passes them.
      {
        argv: [],
        env: { TRGC_RETAIN_FOR: '7d', TRGC_MIN_AGE: '2h' },
        lines: ['retention:   --retain-for 7d (TRGC_RETAIN_FOR): keeps it until 2026-12-06T11:50:00Z (in 6d23h)', '             --min-age 2h (TRGC_MIN_AGE): keeps it until 2026-11-29T13:30:00Z (in 1h30m)'],
      },
      // The command line wins over the variable, and says so.
      {
        argv: ['--min-age', '0s', '--retain-for', '1h'],
        env: { TRGC_MIN_AGE: '2h' },
        lines: ['retention:   --retain-for 1h (command line): keeps it until 2026-11-29T12:50:00Z (in 50m)', '             --min-age 0s (command line): ended 2026-11-29T11:30:00Z (30m ago)'],
      },
    ];
    for (const { argv, env, lines } of rows) {
      const invocation = parseConfig(['explain', 'ci/t', ...argv], env);
      assert.equal(invocation.kind, 'explain');
      const { config } = invocation;
      const origins = { 'min-age': settingOrigin(config, 'min-age'), 'retain-for': settingOrigin(config, 'retain-for') };
      const policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs, ...(config.retainFor !== undefined && { retainFor: config.retainFor }) };
      const text = renderExplanationText(explain({ target: t, runs, namespace: undefined, scope: inScope, origins }, policy, NOW));
      const shown = text.split('\n').filter((line) => /^(retention: | {13}-)/.test(line));
      assert.deepEqual(shown, lines, `${argv.join(' ')} ${JSON.stringify(env)}`);
    }
  });

  it('rule 1 is label or annotation: a label "false" beside an annotation "true" is retained by the annotation, and both are shown', () => {
    const t = target('t', { labels: { [`${KEY}/retain`]: 'false' }, annotations: { [`${KEY}/retain`]: 'true' } });
    const explanation = explain({ target: t, runs: [], namespace: { name: 'ci', labels: {} }, scope: inScope, origins: DEFAULT_ORIGINS }, POLICY, NOW);
    assert.equal(explanation.decision.reason, 'retained');
    assert.equal(explanation.rule, 1);
    assert.equal(explanation.decision.message, `retained by annotation ${KEY}/retain="true"`);
    assert.deepEqual(
      explanation.retention.map((fact) => [fact.setting, fact.source, fact.value, fact.expiresMs]),
      [
        ['retain', `label ${KEY}/retain`, 'false', undefined],
        ['retain', `annotation ${KEY}/retain`, 'true', 'never'],
        ['min-age', 'default', '1h', NOW_MS - 3 * DAY + HOUR],
      ],
    );
    assert.deepEqual(explanation.collectable, { when: 'never', until: 'its retain label and annotation are both removed or set to "false"' });
    assert.match(renderExplanationText(explanation), /label tekton-resource-gc\.io\/retain "false": does not keep it\n {13}annotation tekton-resource-gc\.io\/retain "true": keeps it while set/);
  });

  it('keeps invalid values apart, as rule 3 says them', () => {
    const explanation = explain({ target: target('t', { labels: { [`${KEY}/retain-for`]: '2x' } }), runs: [], namespace: undefined, scope: inScope, origins: DEFAULT_ORIGINS }, POLICY, NOW);
    assert.equal(explanation.decision.reason, 'retention-invalid');
    assert.equal(explanation.rule, 3);
    assert.deepEqual(explanation.invalid, [`label ${KEY}/retain-for "2x": expected a duration such as 12h, 7d, P7D or forever`]);
  });

  it('says when the scope leaves a target out', () => {
    const scope = { namespaces: ['ci'], excludeNamespaces: ['team-b'], selector: 'app=ci' };
    assert.deepEqual(scopeVerdict(scope, 'ci', true), { inScope: true });
    assert.deepEqual(scopeVerdict(scope, 'team-b', true), { inScope: false, why: 'namespace team-b is excluded (--exclude-namespace)' });
    assert.deepEqual(scopeVerdict(scope, 'team-a', true), { inScope: false, why: 'namespace team-a is not among the namespaces collected in (--namespace ci)' });
    assert.deepEqual(scopeVerdict(scope, 'ci', false), { inScope: false, why: 'its labels do not match --selector "app=ci"' });
  });

  it('renders text and JSON (golden files)', () => {
    const t = target('src-def456', { createdAt: at(-5 * HOUR), uid: '6a0d7c1e-3b7f-4c11-9a57-2f0c1d9e8b41', labels: { [`${KEY}/retain-for`]: '7d' } });
    const runs = [
      activeRun('build-def456', ['src-def456']),
      run('lint-def456', ['src-def456'], { kind: 'TaskRun', finishedAt: at(-4 * HOUR) }),
    ];
    const explanation = explain({ target: t, runs, namespace: { name: 'ci', labels: {} }, scope: inScope, origins: DEFAULT_ORIGINS }, POLICY, NOW);
    assertGolden('explain-active.txt', renderExplanationText(explanation));
    assertGolden('explain-active.json', renderExplanationJson(explanation));
    const old = explain({ target: target('src-abc123', { uid: 'uid-src-abc123' }), runs: [run('build-abc123', ['src-abc123'])], namespace: undefined, scope: inScope, origins: DEFAULT_ORIGINS }, POLICY, NOW);
    assertGolden('explain-collectable.txt', renderExplanationText(old));
  });
});

describe('parseConfig: explain', () => {
  const explainOf = (argv: string[], env: Record<string, string> = {}) => {
    const invocation = parseConfig(argv, env);
    assert.equal(invocation.kind, 'explain');
    return invocation;
  };
  const errorOf = (argv: string[], env: Record<string, string> = {}): string => {
    try {
      parseConfig(argv, env);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.message;
    }
    assert.fail('expected a ConfigError');
  };

  it('takes NAMESPACE/NAME and the flags the decision depends on, from the line and the environment', () => {
    const invocation = explainOf(['explain', 'ci/src-abc123.v2', '--min-age', '0s', '--output', 'json'], { TRGC_RETAIN_FOR: '7d', TRGC_QPS: '5' });
    assert.deepEqual(invocation.target, { collector: 'pipelineresources', namespace: 'ci', name: 'src-abc123.v2' });
    assert.equal(invocation.config.minAgeMs, 0);
    assert.equal(invocation.config.output, 'json');
    assert.deepEqual(invocation.config.retainFor, { kind: 'duration', ms: 7 * DAY, text: '7d' });
    // A setting explain does not read is left at its default, even when its variable is set.
    assert.equal(invocation.config.qps, 20);
  });

  const bad: [string[], string][] = [
    [['explain'], 'explain needs the target as [KIND/]NAMESPACE/NAME, such as tekton-resource-gc explain ci/src-abc123 or tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b'],
    [['explain', 'src-abc123'], 'explain "src-abc123": expected NAMESPACE/NAME of a PipelineResource, such as tekton-resource-gc explain ci/src-abc123'],
    [['explain', 'Ci/x'], 'explain "Ci/x": expected NAMESPACE/NAME of a PipelineResource, such as tekton-resource-gc explain ci/src-abc123'],
    [['explain', 'ci/a', 'ci/b'], 'unexpected argument "ci/b": explain takes one NAMESPACE/NAME, such as tekton-resource-gc explain ci/src-abc123'],
    [['explain', 'ci/a', '--output', 'markdown'], '--output "markdown": explain writes text or json, such as --output json'],
  ];
  for (const [argv, message] of bad) it(`refuses ${argv.join(' ')}`, () => assert.equal(errorOf(argv), message));

  it('refuses a flag explain does not read, naming those it does', () => {
    assert.match(errorOf(['explain', 'ci/a', '--dry-run']), /^--dry-run does not apply to explain, which reads --namespace, --exclude-namespace, --selector, --collect, --pruner-config, --min-age/);
  });
});

describe('progress', () => {
  it('says each stage in one line', () => {
    assert.equal(progressLine({ stage: 'listing-targets' }), 'listing PipelineResources…');
    assert.equal(progressLine({ stage: 'listing-runs', targets: 1200 }), 'listing runs… (1200 PipelineResources)');
    assert.equal(progressLine({ stage: 'deciding', targets: 1200, runs: 5400 }), 'deciding… (1200 PipelineResources, 5400 runs)');
    assert.equal(progressLine({ stage: 'deleting', done: 120, total: 1000 }), 'deleting 120 of 1000 (12%)');
    assert.equal(progressLine({ stage: 'recording-events', done: 3, total: 9 }), 'recording Events 3 of 9');
  });

  it('redraws one line in place, at most every 100 ms within a stage, always at a stage change and at the end, and clears it', () => {
    let nowMs = 0;
    const out: string[] = [];
    const progress = new TerminalProgress({ write: (text: string) => out.push(text), columns: 40 }, () => nowMs);
    progress.update({ stage: 'deleting', done: 1, total: 3 });
    nowMs += 10;
    progress.update({ stage: 'deleting', done: 2, total: 3 });
    nowMs += 10;
    progress.update({ stage: 'deleting', done: 3, total: 3 });
    progress.update({ stage: 'recording-events', done: 0, total: 3 });
    progress.clear();
    assert.deepEqual(out, ['\rdeleting 1 of 3 (33%)\x1b[K', '\rdeleting 3 of 3 (100%)\x1b[K', '\rrecording Events 0 of 3\x1b[K', '\r\x1b[2K\x1b[A\n']);
  });

  it('never wraps: a line longer than the terminal is cut', () => {
    const out: string[] = [];
    new TerminalProgress({ write: (text: string) => out.push(text), columns: 21 }).update({ stage: 'deciding', targets: 123456, runs: 7891011 });
    assert.equal(out[0], '\rdeciding… (123456 P…\x1b[K');
  });
});

function deleteDecision(reason: Reason = 'runs-finished'): Decision {
  return {
    target: target('src-abc123', { uid: 'uid-1', resourceVersion: '42' }),
    action: 'delete',
    reason,
    message: 'its only linked run, PipelineRun build-abc123 (by its spec), finished at 2026-11-28T12:00:00Z',
    references: [],
    warnings: [],
  };
}

describe('Events', () => {
  it('regards the PipelineResource, with the reason of the result, the controller and the decision as its note', () => {
    const event = eventFor(deleteDecision(), 'deleted', { now: new Date('2026-11-29T12:00:01.250Z'), instance: 'tekton-resource-gc-pod-1' });
    assert.deepEqual(event, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: (event['metadata'] as { name: string }).name, namespace: 'ci' },
      eventTime: '2026-11-29T12:00:01.250000Z',
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: 'tekton-resource-gc-pod-1',
      action: 'Delete',
      reason: 'Deleted',
      type: 'Normal',
      regarding: { apiVersion: 'tekton.dev/v1alpha1', kind: 'PipelineResource', namespace: 'ci', name: 'src-abc123', uid: 'uid-1', resourceVersion: '42' },
      note: 'runs-finished: its only linked run, PipelineRun build-abc123 (by its spec), finished at 2026-11-28T12:00:00Z',
    });
  });

  it('is named as Kubernetes names Events: the object, a dot, the time in nanoseconds in hex', () => {
    assert.equal(eventName('src-abc123', new Date('2026-11-29T12:00:01.250Z'), 42), `src-abc123.${(1_795_953_601_250n * 1_000_000n + 42n).toString(16)}`);
    assert.equal(eventName('a'.repeat(253), NOW).length, 253);
  });

  it('has its own reason for a dry run and a failed delete (a warning)', () => {
    const context = { now: NOW, instance: 'x' };
    assert.deepEqual(EVENT_REASONS, { deleted: 'Deleted', 'would-delete': 'WouldDelete', failed: 'DeleteFailed' });
    assert.equal(eventFor(deleteDecision(), 'would-delete', context)['reason'], 'WouldDelete');
    assert.equal(eventFor(deleteDecision(), 'failed', context)['type'], 'Warning');
  });

  it('keeps the note within the 1 kB the API server takes', () => {
    const decision = { ...deleteDecision(), message: 'é'.repeat(2000) };
    const note = eventFor(decision, 'deleted', { now: NOW, instance: 'x' })['note'] as string;
    assert.ok(Buffer.byteLength(note) <= 1024);
    assert.ok(note.endsWith('…'));
  });
});

describe('metrics', () => {
  const report = buildReport({
    dryRun: false,
    startedAt: new Date('2026-11-29T12:00:00.000Z'),
    finishedAt: new Date('2026-11-29T12:00:02.500Z'),
    scope: { namespaces: [], excludeNamespaces: [], selector: '' },
    runs: 7,
    decisions: [deleteDecision(), { ...deleteDecision('unreferenced'), target: target('orphan', { uid: 'uid-2' }) }, { ...deleteDecision(), action: 'keep', reason: 'too-young', target: target('new', { uid: 'uid-3' }) }],
    results: new Map([
      ['uid-1', 'deleted'],
      ['uid-2', 'failed'],
    ]),
    errors: [],
  });

  it('are the report in the Prometheus text format, every reason and result present', async () => {
    const text = await passMetrics({ report, collect: ['pipelineresources'], exitCode: 3, dryRun: false, startedAt: new Date(report.startedAt), finishedAt: new Date(report.finishedAt) }).metrics();
    const samples = new Map(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]));
    assert.equal(samples.get('tekton_resource_gc_targets{kind="PipelineResource"}'), 3);
    assert.equal(samples.get('tekton_resource_gc_runs'), 7);
    assert.equal(samples.get('tekton_resource_gc_decisions{kind="PipelineResource",action="delete",reason="runs-finished"}'), 1);
    assert.equal(samples.get('tekton_resource_gc_decisions{kind="PipelineResource",action="keep",reason="too-young"}'), 1);
    assert.equal(samples.get('tekton_resource_gc_decisions{kind="PipelineResource",action="keep",reason="retained"}'), 0);
    assert.equal(samples.get('tekton_resource_gc_deletions{kind="PipelineResource",result="deleted"}'), 1);
    assert.equal(samples.get('tekton_resource_gc_deletions{kind="PipelineResource",result="failed"}'), 1);
    assert.equal(samples.get('tekton_resource_gc_pass_duration_seconds'), 2.5);
    assert.equal(samples.get('tekton_resource_gc_exit_code'), 3);
    assert.equal(samples.get('tekton_resource_gc_last_pass_timestamp_seconds'), Date.parse(report.finishedAt) / 1000);
    assert.ok(!samples.has('tekton_resource_gc_last_success_timestamp_seconds'), 'a failed pass does not claim a success');
    assert.equal([...samples.keys()].filter((key) => key.startsWith('tekton_resource_gc_deletions{')).length, DELETION_RESULTS.length);
    assert.match(text, /^# TYPE tekton_resource_gc_pass_duration_seconds gauge$/m);
  });

  it('a pass that ran as planned carries the time of the last success', async () => {
    const text = await passMetrics({ report, collect: ['pipelineresources'], exitCode: 0, dryRun: false, startedAt: new Date(report.startedAt), finishedAt: new Date(report.finishedAt) }).metrics();
    assert.ok(text.includes(`\ntekton_resource_gc_last_success_timestamp_seconds ${Date.parse(report.finishedAt) / 1000}\n`));
  });

  it('are pushed under the job, below any path the URL has', () => {
    assert.equal(pushUrl('http://pushgateway:9091').toString(), 'http://pushgateway:9091/metrics/job/tekton-resource-gc');
    assert.equal(pushUrl('https://example.com/push/').toString(), 'https://example.com/push/metrics/job/tekton-resource-gc');
  });
});

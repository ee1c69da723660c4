/**
 * Issue 16's metrics, pure: the Pushgateway grouping key as a URL path, and what each kind
 * of pass pushes and how. (Against a receiver that keeps groups as the Pushgateway does:
 * test/integration/pushgateway.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { LEFTOVER_REASONS, REASONS, type Decision } from '../../src/core/types.js';
import { logDestination } from '../../src/ops/log.js';
import { DELETION_RESULTS, PUSH_PLANS, passKind, passMetrics, pushUrl, type PassFacts } from '../../src/ops/metrics.js';
import { pushPassMetrics } from '../../src/ops/passmetrics.js';
import { KIND_LABEL, PUSH_JOB, SAMPLE_LABELS, groupingPath, parseGroupingLabel, type GroupingLabel } from '../../src/ops/pushgateway.js';
import { buildReport, type PassRecord } from '../../src/report/build.js';
import type { Report, Result } from '../../src/report/model.js';
import { LEFTOVERS_LIVE } from '../fixtures/unit/leftoverreport.js';
import { target } from '../fixtures/unit/records.js';
import { startGroupStore, valueOf } from '../support/pushgateway.js';

/**
 * A grouping path read back as the Pushgateway reads it: the router percent-decodes the
 * whole path, then splits it at `/`; `<name>@base64` marks a base64url value.
 */
function readGroupingPath(path: string): { job: string; labels: GroupingLabel[] } | string {
  const segments = decodeURIComponent(path).split('/');
  const [empty, metrics, job, jobName, ...rest] = segments;
  if (empty !== '' || metrics !== 'metrics' || job !== 'job' || jobName === undefined) return `not a push path: ${path}`;
  if (segments.some((segment, index) => index > 0 && (segment === '' || segment === '.' || segment === '..'))) return `a segment path cleaning changes: ${path}`;
  if (rest.length % 2 !== 0) return `an odd number of label segments: ${path}`;
  const labels: GroupingLabel[] = [];
  for (let at = 0; at < rest.length; at += 2) {
    const name = rest[at] ?? '';
    const value = rest[at + 1] ?? '';
    labels.push(name.endsWith('@base64') ? { name: name.slice(0, -'@base64'.length), value: Buffer.from(value, 'base64url').toString('utf8') } : { name, value });
  }
  return { job: jobName, labels };
}

describe('the grouping path', () => {
  // Each row: the labels, and the path the Pushgateway's README says names their group.
  const rows: { why: string; labels: GroupingLabel[]; path: string }[] = [
    { why: 'job alone, as before any grouping', labels: [], path: '/metrics/job/tekton-resource-gc' },
    { why: 'plain values, in the order given', labels: [{ name: 'instance', value: 'gc' }, { name: 'namespace', value: 'tekton-resource-gc' }], path: '/metrics/job/tekton-resource-gc/instance/gc/namespace/tekton-resource-gc' },
    // The README's own examples.
    { why: 'a value with / goes as base64url', labels: [{ name: 'path', value: '/var/tmp' }], path: '/metrics/job/tekton-resource-gc/path@base64/L3Zhci90bXA' },
    { why: 'an empty value is base64 "="', labels: [{ name: 'first_label', value: '' }, { name: 'second_label', value: 'foobar' }], path: '/metrics/job/tekton-resource-gc/first_label@base64/=/second_label/foobar' },
    { why: 'other characters are percent-encoded', labels: [{ name: 'name', value: 'Προμηθεύς' }], path: '/metrics/job/tekton-resource-gc/name/%CE%A0%CF%81%CE%BF%CE%BC%CE%B7%CE%B8%CE%B5%CF%8D%CF%82' },
    // Path cleaning would drop these.
    { why: '"." goes as base64', labels: [{ name: 'shard', value: '.' }], path: '/metrics/job/tekton-resource-gc/shard@base64/Lg' },
    { why: '".." goes as base64', labels: [{ name: 'shard', value: '..' }], path: '/metrics/job/tekton-resource-gc/shard@base64/Li4' },
    { why: 'a space, a "?" and a "#"', labels: [{ name: 'team', value: 'a b?#' }], path: '/metrics/job/tekton-resource-gc/team/a%20b%3F%23' },
  ];
  for (const { why, labels, path } of rows) {
    it(why, () => {
      assert.equal(groupingPath(labels), path);
      assert.deepEqual(readGroupingPath(path), { job: PUSH_JOB, labels });
    });
  }

  it('reads back as the labels it was made of, whatever their values', () => {
    // Any text, and above all the characters a path treats specially.
    const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: fc.constantFrom('a', '/', '.', '%', '2', 'F', ' ', '?', '#', '=', 'é'), maxLength: 8 }));
    const label = fc.record({ name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,10}$/), value });
    fc.assert(
      fc.property(fc.array(label, { maxLength: 4 }), (generated) => {
        const labels = generated.map(({ name, value }) => ({ name, value }));
        assert.deepEqual(readGroupingPath(groupingPath(labels)), { job: PUSH_JOB, labels });
      }),
      { numRuns: 500 },
    );
  });

  it('goes below a proxy prefix, and never onto a path that already names a group', () => {
    const grouping = [{ name: 'instance', value: 'gc' }];
    assert.equal(pushUrl('https://example.com/pushgateway/', grouping).toString(), 'https://example.com/pushgateway/metrics/job/tekton-resource-gc/instance/gc');
    assert.equal(pushUrl('http://robot:s3cret@gw:9091', grouping).toString(), 'http://robot:s3cret@gw:9091/metrics/job/tekton-resource-gc/instance/gc');
    assert.throws(() => pushUrl('http://gw:9091/metrics/job/gc/instance/a', grouping), /its path holds a grouping key/);
  });
});

function decision(name: string, action: Decision['action'], reason: Decision['reason']): Decision {
  return { target: target(name, { uid: `uid-${name}` }), action, reason, message: '', references: [], warnings: [] };
}

/** The facts of a live pass of PipelineResources that listed 7 runs and made `decisions`, each with its result by name. */
function livePass(exitCode: number, decisions: readonly Decision[], results: Record<string, Result>, more: Pick<PassRecord, 'errors' | 'breaker' | 'unreadablePrunerConfigMaps' | 'warnings'> = {}): PassFacts {
  const report = buildReport({
    dryRun: false,
    startedAt: new Date('2026-11-29T12:00:00.000Z'),
    finishedAt: new Date('2026-11-29T12:00:02.500Z'),
    scope: { namespaces: [], excludeNamespaces: [], selector: '' },
    runs: 7,
    decisions,
    results: new Map(Object.entries(results).map(([name, result]) => [`uid-${name}`, result])),
    ...more,
  });
  return { report, collect: ['pipelineresources'], exitCode, dryRun: false, startedAt: new Date(report.startedAt), finishedAt: new Date(report.finishedAt) };
}

/** A pass that listed 3 targets and 7 runs, deleted one and failed one. */
function facts(exitCode: number, errors: string[] = []): PassFacts {
  return livePass(exitCode, [decision('a', 'delete', 'runs-finished'), decision('b', 'delete', 'unreferenced'), decision('c', 'keep', 'too-young')], { a: 'deleted', b: 'failed' }, { errors });
}

async function pushedNames(pass: PassFacts): Promise<string[]> {
  const text = await passMetrics(pass).metrics();
  return [...new Set(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.replace(/[{ ].*$/, '').replace(/^tekton_resource_gc_/, '')))].sort();
}

/** Every sample pushed, `name{labels}` -> value. */
async function samples(pass: PassFacts): Promise<Map<string, number>> {
  const text = await passMetrics(pass).metrics();
  return new Map(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]));
}

const ALWAYS = ['errors', 'exit_code', 'last_pass_timestamp_seconds', 'pass_duration_seconds'];
const COUNTS = ['api_requests', 'api_retries', 'decisions', 'deletions', 'dry_run', 'pruner_configmaps_unreadable', 'runs', 'targets'];

describe('what a pass pushes, by its exit status', () => {
  const rows: { exitCode: number; why: string; method: 'PUT' | 'POST'; names: string[] }[] = [
    // Ran as planned: the whole group, replaced, with the time of this success.
    { exitCode: 0, why: 'as planned', method: 'PUT', names: [...ALWAYS, ...COUNTS, 'last_success_timestamp_seconds'] },
    // Ran, but failed deletes or the cap: its counts are true; the last success stays.
    { exitCode: 3, why: 'partly', method: 'POST', names: [...ALWAYS, ...COUNTS] },
    // Could not run: no counts (they would be zeros), and the last good ones stay.
    { exitCode: 1, why: 'could not run', method: 'POST', names: ALWAYS },
  ];
  for (const { exitCode, why, method, names } of rows) {
    it(`exit ${exitCode} (${why}): ${method} of ${names.length} metrics`, async () => {
      assert.equal(PUSH_PLANS[passKind(exitCode)].method, method);
      assert.deepEqual(await pushedNames(facts(exitCode)), [...names].sort());
    });
  }

  it("pushes the pass's own API requests and retries with its counts, 0 when none were counted", async () => {
    const text = await passMetrics({ ...facts(3), api: { requests: 42, retries: 5 } }).metrics();
    assert.match(text, /^tekton_resource_gc_api_requests 42$/m);
    assert.match(text, /^tekton_resource_gc_api_retries 5$/m);
    assert.match(await passMetrics(facts(0)).metrics(), /^tekton_resource_gc_api_requests 0$/m);
  });

  it('a pass that could not read the cluster still says so: its exit code and its error', async () => {
    const text = await passMetrics(facts(1, ['forbidden: cannot list pipelineresources'])).metrics();
    assert.match(text, /^tekton_resource_gc_exit_code 1$/m);
    assert.match(text, /^tekton_resource_gc_errors 1$/m);
    assert.doesNotMatch(text, /^tekton_resource_gc_targets[ {]/m);
  });

  it('a pass the breaker stopped: exit 3, POST, its skipped candidates in deletions{result="skipped"}, its error counted', async () => {
    const decisions = ['a', 'b', 'c', 'd'].map((name) => decision(name, 'delete', 'unreferenced'));
    const stopped = livePass(3, decisions, { a: 'failed', b: 'failed', c: 'skipped', d: 'skipped' }, {
      breaker: { status: 403, reason: 'Forbidden', failures: 2, skipped: 2 },
      errors: ['the breaker stopped the delete phase: 2 deletes in a row failed with 403 Forbidden'],
    });
    assert.equal(PUSH_PLANS[passKind(stopped.exitCode)].method, 'POST');
    const pushed = await samples(stopped);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PipelineResource",result="skipped"}'), 2);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PipelineResource",result="failed"}'), 2);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PipelineResource",result="aborted"}'), 0);
    assert.equal(pushed.get('tekton_resource_gc_errors'), 1);
    assert.equal(pushed.get('tekton_resource_gc_exit_code'), 3);
    assert.equal(pushed.has('tekton_resource_gc_last_success_timestamp_seconds'), false);
  });

  it("a pass that kept a namespace's runs for its unreadable pruner ConfigMap: exit 3, POST, the count of such ConfigMaps, 0 otherwise (issue 42, 9)", async () => {
    const error = '--pruner-config: ConfigMap ci/tekton-pruner-namespace-spec, key ns-config: not YAML: bad indentation of a mapping entry at line 2, column 3';
    const kept = livePass(3, [decision('a', 'keep', 'too-young')], {}, { unreadablePrunerConfigMaps: [{ namespace: 'ci', name: 'tekton-pruner-namespace-spec', error }], warnings: [error] });
    assert.equal(PUSH_PLANS[passKind(kept.exitCode)].method, 'POST');
    const pushed = await samples(kept);
    assert.equal(pushed.get('tekton_resource_gc_pruner_configmaps_unreadable'), 1);
    assert.equal(pushed.get('tekton_resource_gc_exit_code'), 3);
    assert.equal(pushed.has('tekton_resource_gc_last_success_timestamp_seconds'), false);
    assert.equal((await samples(facts(0))).get('tekton_resource_gc_pruner_configmaps_unreadable'), 0);
  });

  it('pushed samples carry no label a grouping may set: the gateway would overwrite it', async () => {
    const text = await passMetrics(facts(0)).metrics();
    const names = new Set([...text.matchAll(/[{,]([a-zA-Z_]+)="/g)].map((match) => match[1]));
    assert.deepEqual([...names].sort(), [...SAMPLE_LABELS].sort());
  });
});

describe('metrics of a pass with leftover collectors', () => {
  const live = buildReport(LEFTOVERS_LIVE);
  const factsOf = (report: Report, exitCode = 0, collect: PassFacts['collect'] = LEFTOVERS_LIVE.scope.collect ?? []): PassFacts => ({
    report,
    collect,
    exitCode,
    dryRun: report.dryRun,
    startedAt: new Date(report.startedAt),
    finishedAt: new Date(report.finishedAt),
  });
  it('count targets, decisions and deletions by kind, and push the bytes of claims', async () => {
    const pushed = await samples(factsOf(live));
    assert.equal(pushed.get('tekton_resource_gc_targets{kind="PersistentVolumeClaim"}'), 4);
    assert.equal(pushed.get('tekton_resource_gc_targets{kind="StatefulSet"}'), 1);
    assert.equal(pushed.has('tekton_resource_gc_targets'), false, 'no series without a kind beside those with one');
    assert.equal(pushed.get('tekton_resource_gc_runs'), 5);
    assert.equal(pushed.get('tekton_resource_gc_decisions{kind="PersistentVolumeClaim",action="delete",reason="owner-gone"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_decisions{kind="PersistentVolumeClaim",action="keep",reason="in-use-by-statefulset"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_decisions{kind="PipelineResource",action="delete",reason="unreferenced"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PersistentVolumeClaim",result="terminating"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PersistentVolumeClaim",result="deleted"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="Secret",result="deleted"}'), 1);
    assert.equal(pushed.get('tekton_resource_gc_candidate_bytes'), live.summary.bytes?.candidates);
    assert.equal(pushed.get('tekton_resource_gc_released_bytes'), 50 * 1024 ** 3);
    assert.equal(pushed.get('tekton_resource_gc_pending_bytes'), 1500 * 1024 ** 2);
  });

  it("push every reason of each kind's own table and every deletion result, zeros included", async () => {
    const keys = [...(await samples(factsOf(live))).keys()];
    const of = (metric: string, kind: string): number => keys.filter((key) => key.startsWith(`tekton_resource_gc_${metric}{kind="${kind}",`)).length;
    assert.equal(of('decisions', 'PipelineResource'), REASONS.length);
    for (const kind of ['PersistentVolumeClaim', 'Secret', 'StatefulSet']) assert.equal(of('decisions', kind), LEFTOVER_REASONS.length, kind);
    for (const kind of ['PersistentVolumeClaim', 'PipelineResource', 'Secret', 'StatefulSet']) assert.equal(of('deletions', kind), DELETION_RESULTS.length, kind);
  });

  it('sums across kinds to the totals a pass of one kind pushed', async () => {
    const pushed = [...(await samples(factsOf(live)))];
    const sum = (prefix: string): number => pushed.filter(([key]) => key.startsWith(prefix)).reduce((total, [, value]) => total + value, 0);
    assert.equal(sum('tekton_resource_gc_targets{'), live.summary.targets);
    assert.equal(sum('tekton_resource_gc_decisions{'), live.summary.targets);
    assert.equal(sum('tekton_resource_gc_deletions{'), live.summary.delete);
  });

  it('push no bytes without workspace-pvcs, and no counts at all when the pass could not run', async () => {
    const noClaims = buildReport({ ...LEFTOVERS_LIVE, scope: { ...LEFTOVERS_LIVE.scope, collect: ['pac-secrets'] } });
    const names = [...(await samples(factsOf(noClaims, 0, ['pac-secrets']))).keys()];
    assert.ok(names.every((name) => !name.endsWith('_bytes')), names.join(' '));
    assert.ok(names.includes('tekton_resource_gc_targets{kind="Secret"}'));
    const failed = [...(await samples(factsOf(live, 1))).keys()].sort();
    assert.deepEqual(failed, ['tekton_resource_gc_errors', 'tekton_resource_gc_exit_code', 'tekton_resource_gc_last_pass_timestamp_seconds', 'tekton_resource_gc_pass_duration_seconds']);
  });

  it('label a pass of PipelineResources alone with its kind too: one shape, deletions{result="terminating"} 0', async () => {
    const pushed = await samples(facts(0));
    const keys = [...pushed.keys()];
    const counts = keys.filter((key) => /^tekton_resource_gc_(targets|decisions|deletions)\b/.test(key));
    assert.ok(counts.length > 0 && counts.every((key) => key.includes('{kind="PipelineResource"')), counts.join(' '));
    assert.equal(pushed.get('tekton_resource_gc_targets{kind="PipelineResource"}'), 3);
    assert.equal(pushed.has('tekton_resource_gc_targets'), false, 'no series without a kind');
    assert.equal(keys.filter((key) => key.startsWith('tekton_resource_gc_decisions{')).length, 10);
    assert.deepEqual(
      keys.filter((key) => key.startsWith('tekton_resource_gc_deletions{')),
      ['would-delete', 'deleted', 'terminating', 'gone', 'changed', 'failed', 'aborted', 'skipped'].map((result) => `tekton_resource_gc_deletions{kind="PipelineResource",result="${result}"}`),
    );
    assert.equal(pushed.get('tekton_resource_gc_deletions{kind="PipelineResource",result="terminating"}'), 0);
    assert.ok(keys.every((key) => !key.endsWith('_bytes')));
    // No collector's API served (no report): the same series, at 0.
    const notServed = await samples({ ...facts(0), report: undefined });
    assert.equal(notServed.get('tekton_resource_gc_targets{kind="PipelineResource"}'), 0);
    assert.equal(notServed.get('tekton_resource_gc_deletions{kind="PipelineResource",result="deleted"}'), 0);
  });

  it('carry no label a grouping may set: kind is refused as a grouping label too', async () => {
    const text = await passMetrics(factsOf(live)).metrics();
    const names = new Set([...text.matchAll(/[{,]([a-zA-Z_]+)="/g)].map((match) => match[1]));
    assert.deepEqual([...names].sort(), [...SAMPLE_LABELS].sort());
    assert.ok(names.has(KIND_LABEL));
    for (const name of names) assert.equal(parseGroupingLabel(`${name ?? ''}=x`).ok, false, name);
  });
});

describe('the push of a pass whose collectors no API serves (no report)', () => {
  // What main.ts hands over when no collector's API is served, pushed as it pushes it, to a
  // stand-in that keeps groups as the Pushgateway does (test/support/pushgateway.ts).
  async function pushedWithoutReport(collect: PassFacts['collect']): Promise<{ kinds: (metric: string) => string[]; group: Parameters<typeof valueOf>[0]; logged: string[] }> {
    const gateway = await startGroupStore();
    const logged: string[] = [];
    const log = pino({ base: null, timestamp: false }, logDestination({ write: (line: string) => logged.push(line) }));
    try {
      const startedAt = new Date('2026-11-29T12:00:00.000Z');
      const facts: PassFacts = { report: undefined, collect, exitCode: 0, dryRun: true, startedAt, finishedAt: new Date(startedAt.getTime() + 1500) };
      await pushPassMetrics({ pushgatewayUrl: gateway.url, requestTimeoutMs: 5_000 }, facts, log);
      const group = [...gateway.groups.values()][0];
      const kinds = (metric: string): string[] => [...new Set((group?.metrics.get(`tekton_resource_gc_${metric}`) ?? []).map((sample) => sample.labels[KIND_LABEL] ?? '(none)'))].sort();
      return { kinds, group, logged };
    } finally {
      await gateway.close();
    }
  }

  const rows: { collect: PassFacts['collect']; kinds: string[] }[] = [
    { collect: ['workspace-pvcs'], kinds: ['PersistentVolumeClaim'] },
    { collect: ['pipelineresources'], kinds: ['PipelineResource'] },
    { collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs'], kinds: ['PersistentVolumeClaim', 'PipelineResource', 'Secret', 'StatefulSet'] },
  ];
  for (const { collect, kinds } of rows) {
    it(`--collect ${collect.join(',')}: zeros under kind ${kinds.join(', ')}, and no other kind`, async () => {
      const pushed = await pushedWithoutReport(collect);
      assert.deepEqual(pushed.logged.filter((line) => line.includes('could not push')), []);
      for (const metric of ['targets', 'decisions', 'deletions']) assert.deepEqual(pushed.kinds(metric), kinds, metric);
      for (const kind of kinds) {
        assert.equal(valueOf(pushed.group, 'tekton_resource_gc_targets', { [KIND_LABEL]: kind }), 0, kind);
        assert.equal(valueOf(pushed.group, 'tekton_resource_gc_deletions', { [KIND_LABEL]: kind, result: 'deleted' }), 0, kind);
      }
      // With workspace-pvcs on, its bytes are pushed at 0 too, as by a pass that read no claim.
      assert.equal(valueOf(pushed.group, 'tekton_resource_gc_released_bytes'), collect.includes('workspace-pvcs') ? 0 : undefined);
      assert.equal(valueOf(pushed.group, 'tekton_resource_gc_exit_code'), 0);
    });
  }
});

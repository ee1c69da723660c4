/**
 * Under --pruner-config, each history limit that comes from tektoncd/pruner's ConfigMaps ranks
 * the run among the runs pruner counts for that limit, newest first by creation
 * (docs/spec.md, "Which runs a history limit counts"; pruner v0.4.1
 * pkg/config/history_limiter.go:269-371), while the project's own labels and flags keep ranking
 * in its groups by completion. The runs are read from API objects through the run collectors'
 * own reading (runtargets.ts, with the keys the policy keeps), as a pass reads them.
 *
 * The property at the end checks the decision against a small model of pruner's rules written
 * from docs/spec.md, not from src/core/prunerconfig.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { decideRuns, type RunDecisionWithFacts } from '../../src/core/history.js';
import { explainRun, type RunSettingOrigins } from '../../src/core/explain.js';
import { readPrunerConfig, withPrunerPolicy, type PrunerConfigMaps } from '../../src/core/prunerconfig.js';
import { toRunTargetRecord } from '../../src/core/runtargets.js';
import type { ClusterView, Policy, RunKindName, RunState, TargetRecord } from '../../src/core/types.js';
import { runTargetReading } from '../../src/pass/sweep.js';
import { DAY, HOUR, NOW, POLICY, at } from '../fixtures/unit/records.js';

const SYSTEM = 'tekton-pipelines';
const NAME_KEY = 'pruner.tekton.dev/resourceNameLabelKey';
const MANAGED_BY = 'app.kubernetes.io/managed-by';

interface RunSpec {
  name: string;
  kind?: RunKindName;
  namespace?: string;
  state?: RunState;
  createdAgo: number;
  finishedAgo: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deleting?: boolean;
}

/** A run as the API server returns it, finished `finishedAgo` before NOW (unless running). */
function runObject(spec: RunSpec): Record<string, unknown> {
  const state = spec.state ?? 'succeeded';
  const condition =
    state === 'running'
      ? { type: 'Succeeded', status: 'Unknown', reason: 'Running' }
      : state === 'succeeded'
        ? { type: 'Succeeded', status: 'True', reason: 'Succeeded' }
        : state === 'cancelled'
          ? { type: 'Succeeded', status: 'False', reason: spec.kind === 'TaskRun' ? 'TaskRunCancelled' : 'Cancelled' }
          : { type: 'Succeeded', status: 'False', reason: 'Failed' };
  return {
    apiVersion: 'tekton.dev/v1',
    kind: spec.kind ?? 'PipelineRun',
    metadata: {
      name: spec.name,
      namespace: spec.namespace ?? 'ci',
      uid: `uid-${spec.namespace ?? 'ci'}-${spec.name}`,
      resourceVersion: '7',
      creationTimestamp: at(-spec.createdAgo),
      ...(spec.labels !== undefined && { labels: spec.labels }),
      ...(spec.annotations !== undefined && { annotations: spec.annotations }),
      ...(spec.deleting === true && { deletionTimestamp: at(-60_000), finalizers: ['example.com/hold'] }),
    },
    status: {
      startTime: at(-spec.createdAgo + 1000),
      conditions: [condition],
      ...(state !== 'running' && { completionTime: at(-spec.finishedAgo) }),
    },
  };
}

function configMaps(global: string | null, namespaced: Readonly<Record<string, string>> = {}): PrunerConfigMaps {
  return {
    systemNamespace: SYSTEM,
    global: global === null ? null : { data: { 'global-config': global } },
    namespaced: Object.entries(namespaced).map(([namespace, text]) => ({ namespace, data: { 'ns-config': text } })),
  };
}

function prunerPolicy(maps: PrunerConfigMaps, base: Policy = { ...POLICY, runs: { requireResultsStored: false } }): Policy {
  const read = readPrunerConfig(maps);
  if (!read.ok) assert.fail(read.error);
  return withPrunerPolicy(base, read.config);
}

/** The records a pass makes of these objects with this policy (sweep.ts runTargetReading). */
function records(specs: readonly RunSpec[], policy: Policy): TargetRecord[] {
  const reading = runTargetReading(policy);
  return specs.map((spec) => {
    const record = toRunTargetRecord(runObject(spec), spec.kind ?? 'PipelineRun', reading);
    if (record === null) assert.fail(`${spec.name} is no target`);
    return record;
  });
}

function decided(specs: readonly RunSpec[], policy: Policy): Map<string, RunDecisionWithFacts> {
  return new Map(decideRuns(records(specs, policy), new Map(), policy, NOW.getTime(), (one) => one).map((one) => [one.decision.target.name, one]));
}

function reasons(specs: readonly RunSpec[], policy: Policy): Record<string, string> {
  return Object.fromEntries([...decided(specs, policy)].map(([name, one]) => [name, one.decision.reason]));
}

const DEPLOY = { 'tekton.dev/pipeline': 'deploy' };

describe('--pruner-config: a limit ranks the run among the runs pruner counts for it', () => {
  it("a selector's limit counts the runs its selector matches, not the Pipeline's group (issue 42, case 1)", () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - selector: [{matchLabels: {env: prod}}]\n    successfulHistoryLimit: 2\n' }));
    // Oldest first, by creation and by completion alike.
    const runs: RunSpec[] = [
      { name: 'deploy-prod-1', createdAgo: 4 * DAY, finishedAgo: 4 * DAY - HOUR, labels: { ...DEPLOY, env: 'prod' } },
      { name: 'deploy-dev-1', createdAgo: 3 * DAY, finishedAgo: 3 * DAY - HOUR, labels: { ...DEPLOY, env: 'dev' } },
      { name: 'deploy-dev-2', createdAgo: 2 * DAY, finishedAgo: 2 * DAY - HOUR, labels: { ...DEPLOY, env: 'dev' } },
      { name: 'deploy-prod-2', createdAgo: 1 * DAY, finishedAgo: 1 * DAY - HOUR, labels: { ...DEPLOY, env: 'prod' } },
    ];
    const all = decided(runs, policy);
    // pruner keeps both prod runs (2 of the 2 env=prod runs); the dev runs have no limit.
    assert.deepEqual(Object.fromEntries([...all].map(([name, one]) => [name, one.decision.reason])), {
      'deploy-prod-1': 'history-kept',
      'deploy-dev-1': 'no-run-policy',
      'deploy-dev-2': 'no-run-policy',
      'deploy-prod-2': 'history-kept',
    });
    const prod1 = all.get('deploy-prod-1');
    assert.equal(prod1?.facts.rank, 2);
    assert.equal(prod1?.facts.ofOutcome, 2);
    assert.equal(prod1?.facts.countedAmong, 'the PipelineRuns of namespace ci that selector labels env=prod matches');
    assert.match(prod1?.decision.message ?? '', /^2nd newest of 2 succeeded runs by creation among the PipelineRuns of namespace ci that selector labels env=prod matches; /);
  });

  it('a name limit counts the runs labelled <labelKey>=<name>, the key an annotation names (issue 42, case 2)', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - name: web\n    successfulHistoryLimit: 1\n' }));
    const named = { [NAME_KEY]: 'app' };
    const runs: RunSpec[] = [
      { name: 'web-1', createdAgo: 2 * DAY, finishedAgo: 2 * DAY - HOUR, labels: { 'tekton.dev/pipeline': 'build', app: 'web' }, annotations: named },
      { name: 'api-1', createdAgo: 1 * DAY, finishedAgo: 1 * DAY - HOUR, labels: { 'tekton.dev/pipeline': 'build', app: 'api' }, annotations: named },
    ];
    assert.deepEqual(reasons(runs, policy), { 'web-1': 'history-kept', 'api-1': 'no-run-policy' });
  });

  it('a name limit counts runs labelled so that lack the annotation: pruner lists them by the label alone', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - name: web\n    successfulHistoryLimit: 1\n' }));
    const runs: RunSpec[] = [
      { name: 'web-1', createdAgo: 2 * DAY, finishedAgo: HOUR, labels: { 'tekton.dev/pipeline': 'build', app: 'web' }, annotations: { [NAME_KEY]: 'app' } },
      // Newer by creation, so the one place is its; with no annotation its own name is build.
      { name: 'web-2', createdAgo: 1 * DAY, finishedAgo: 2 * HOUR, labels: { 'tekton.dev/pipeline': 'build', app: 'web' } },
    ];
    assert.deepEqual(reasons(runs, policy), { 'web-1': 'history-exceeded', 'web-2': 'no-run-policy' });
  });

  it('a namespace limit counts every run of the kind in the namespace, whatever its Pipeline', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: global\nsuccessfulHistoryLimit: 1\n'));
    const runs: RunSpec[] = [
      { name: 'a-1', createdAgo: 2 * DAY, finishedAgo: DAY, labels: { 'tekton.dev/pipeline': 'a' } },
      { name: 'b-1', createdAgo: 1 * DAY, finishedAgo: DAY + HOUR, labels: { 'tekton.dev/pipeline': 'b' } },
      { name: 'c-1', createdAgo: 3 * DAY, finishedAgo: DAY, namespace: 'other', labels: { 'tekton.dev/pipeline': 'a' } },
    ];
    assert.deepEqual(reasons(runs, policy), { 'a-1': 'history-exceeded', 'b-1': 'history-kept', 'c-1': 'history-kept' });
  });

  it('--group-by that merges what the selectors split ranks each limit in its own set all the same', () => {
    const base: Policy = { ...POLICY, runs: { requireResultsStored: false, groupBy: 'team' } };
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - selector: [{matchLabels: {env: prod}}]\n    successfulHistoryLimit: 1\n  - selector: [{matchLabels: {env: dev}}]\n    successfulHistoryLimit: 1\n' }), base);
    const runs: RunSpec[] = [
      { name: 'prod-1', createdAgo: 4 * DAY, finishedAgo: 4 * DAY, labels: { team: 'x', env: 'prod' } },
      { name: 'dev-1', createdAgo: 3 * DAY, finishedAgo: 3 * DAY, labels: { team: 'x', env: 'dev' } },
      { name: 'dev-2', createdAgo: 2 * DAY, finishedAgo: 2 * DAY, labels: { team: 'x', env: 'dev' } },
    ];
    assert.deepEqual(reasons(runs, policy), { 'prod-1': 'history-kept', 'dev-1': 'history-exceeded', 'dev-2': 'history-kept' });
  });

  it("the project's own flags and labels keep ranking in its groups by completion", () => {
    const base: Policy = { ...POLICY, runs: { requireResultsStored: false, keepSuccessful: 1 } };
    // No pruner limit for these runs: the flag's applies, in group tekton.dev/pipeline=build.
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - name: other\n    successfulHistoryLimit: 5\n' }), base);
    const runs: RunSpec[] = [
      { name: 'build-long', createdAgo: 3 * DAY, finishedAgo: DAY, labels: { 'tekton.dev/pipeline': 'build' } },
      { name: 'build-short', createdAgo: 2 * DAY, finishedAgo: 2 * DAY - HOUR, labels: { 'tekton.dev/pipeline': 'build' } },
    ];
    assert.deepEqual(reasons(runs, policy), { 'build-long': 'history-kept', 'build-short': 'history-exceeded' });
  });
});

describe("--pruner-config: pruner's limits order by creation (issue 42, item 3)", () => {
  it('{name: build, successfulHistoryLimit: 1}: the run created last stays, though another finished later', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - name: build\n    successfulHistoryLimit: 1\n' }));
    const runs: RunSpec[] = [
      { name: 'build-long', createdAgo: 3 * DAY, finishedAgo: DAY, labels: { 'tekton.dev/pipeline': 'build' } },
      { name: 'build-short', createdAgo: 2 * DAY, finishedAgo: 2 * DAY - HOUR, labels: { 'tekton.dev/pipeline': 'build' } },
    ];
    assert.deepEqual(reasons(runs, policy), { 'build-long': 'history-exceeded', 'build-short': 'history-kept' });
  });

  it('runs created in the same second: ties by name, as pruner keeps the order the API server lists them in', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: global\nsuccessfulHistoryLimit: 1\n'));
    const runs: RunSpec[] = [
      { name: 'b', createdAgo: DAY, finishedAgo: 2 * HOUR },
      { name: 'a', createdAgo: DAY, finishedAgo: 3 * HOUR },
    ];
    assert.deepEqual(reasons(runs, policy), { b: 'history-exceeded', a: 'history-kept' });
  });
});

describe('--pruner-config: selectors see whether a run has any label or annotation (issue 42, item 4)', () => {
  const maps = configMaps('enforcedConfigLevel: namespace', { ci: 'successfulHistoryLimit: 1\ntaskRuns:\n  - selector: [{}]\n    successfulHistoryLimit: 10\n' });

  it('an empty selector matches a TaskRun whose only label is one no rule reads (app.kubernetes.io/managed-by)', () => {
    const policy = prunerPolicy(maps);
    const runs: RunSpec[] = [1, 2].map((n) => ({ name: `t-${n}`, kind: 'TaskRun', createdAgo: (3 - n) * DAY, finishedAgo: (3 - n) * DAY - HOUR, labels: { [MANAGED_BY]: 'tekton-pipelines' } }));
    const all = decided(runs, policy);
    assert.deepEqual(Object.fromEntries([...all].map(([name, one]) => [name, one.decision.reason])), { 't-1': 'history-kept', 't-2': 'history-kept' });
    assert.equal(all.get('t-1')?.facts.limit?.value, 10);
  });

  it('a run with no label and no annotation at all is matched by no selector: the namespace limit counts it', () => {
    const policy = prunerPolicy(maps);
    const runs: RunSpec[] = [1, 2].map((n) => ({ name: `t-${n}`, kind: 'TaskRun', createdAgo: (3 - n) * DAY, finishedAgo: (3 - n) * DAY - HOUR }));
    assert.deepEqual(reasons(runs, policy), { 't-1': 'history-exceeded', 't-2': 'history-kept' });
  });

  it('the records keep the selectors’ keys and the labels an entry’s name may be read from, not every label', () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - name: web\n    successfulHistoryLimit: 1\n  - selector: [{matchAnnotations: {team: x}}]\n    historyLimit: 1\n' }));
    const [record] = records([{ name: 'r', createdAgo: DAY, finishedAgo: DAY, labels: { app: 'web', other: 'web2', 'tekton.dev/pipeline': 'p', big: 'x' }, annotations: { team: 'x', note: 'y' } }], policy);
    assert.deepEqual(record?.labels, { app: 'web', 'tekton.dev/pipeline': 'p' });
    assert.deepEqual(record?.annotations, { team: 'x' });
    assert.equal(record?.run?.bare, undefined);
    const [bare] = records([{ name: 'b', createdAgo: DAY, finishedAgo: DAY }], policy);
    assert.equal(bare?.run?.bare, true);
    const [without] = records([{ name: 'b', createdAgo: DAY, finishedAgo: DAY }], { ...POLICY, runs: { requireResultsStored: false } });
    assert.equal(without?.run?.bare, undefined, 'without --pruner-config no record says it');
  });
});

describe('--pruner-config: the rows before the history rows keep as they do, and hold no place', () => {
  const policy = prunerPolicy(configMaps('enforcedConfigLevel: global\nsuccessfulHistoryLimit: 1\n'));

  it('a newer run kept by an earlier row (retained, too young) or being deleted takes none of the places', () => {
    const runs: RunSpec[] = [
      { name: 'old', createdAgo: 5 * DAY, finishedAgo: 5 * DAY },
      { name: 'mid', createdAgo: 4 * DAY, finishedAgo: 4 * DAY },
      { name: 'retained', createdAgo: 3 * DAY, finishedAgo: 3 * DAY, labels: { 'tekton-resource-gc.io/retain': 'true' } },
      { name: 'deleting', createdAgo: 2 * DAY, finishedAgo: 2 * DAY, deleting: true },
      { name: 'young', createdAgo: 10 * 60_000, finishedAgo: 5 * 60_000 },
      { name: 'running', createdAgo: DAY, finishedAgo: 0, state: 'running' },
    ];
    // pruner counts retained, deleting and young among the 1 newest and would delete mid; here mid keeps the place.
    assert.deepEqual(reasons(runs, policy), { old: 'history-exceeded', mid: 'history-kept', retained: 'retained', deleting: 'history-exceeded', young: 'too-young', running: 'run-active' });
  });
});

describe('--pruner-config: explain says the set and the order', () => {
  it("names the runs pruner counts, and that newer ones are by creation", () => {
    const policy = prunerPolicy(configMaps('enforcedConfigLevel: namespace', { ci: 'pipelineRuns:\n  - selector: [{matchLabels: {env: prod}}]\n    successfulHistoryLimit: 2\n' }));
    const runs = records(
      [
        { name: 'p-1', createdAgo: 2 * DAY, finishedAgo: DAY, labels: { env: 'prod' } },
        { name: 'p-2', createdAgo: 1 * DAY, finishedAgo: 2 * DAY, labels: { env: 'prod' } },
      ],
      policy,
    );
    const origins: RunSettingOrigins = { 'min-age': 'default', 'retain-for': 'default', keep: 'default', 'keep-successful': 'default', 'keep-failed': 'default', 'run-ttl': 'default' };
    const target = runs[0] as TargetRecord;
    const view: ClusterView = { targets: runs, runs: [], namespaces: new Map([['ci', { name: 'ci', labels: {} }]]) };
    const explained = explainRun({ target, view, scope: { inScope: true }, origins }, policy, NOW);
    assert.equal(explained.run?.countedAmong, 'the PipelineRuns of namespace ci that selector labels env=prod matches');
    assert.equal(explained.run?.rank, 2);
    assert.deepEqual(explained.collectable, {
      when: 'unknown',
      why: 'it goes once 1 more succeeded run created after it finishes among the PipelineRuns of namespace ci that selector labels env=prod matches, which makes it the 3rd newest by creation, past the limit of 2',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The property: a model of pruner v0.4.1's rules as docs/spec.md ("tektoncd/pruner's
// ConfigMaps") states them, written here on the generated ConfigMaps, not on the parsed ones.

type Level = 'global' | 'namespace' | 'resource';
interface Limits {
  successfulHistoryLimit?: number;
  failedHistoryLimit?: number;
  historyLimit?: number;
}
interface Selector {
  matchLabels?: Record<string, string>;
  matchAnnotations?: Record<string, string>;
}
interface Entry extends Limits {
  name?: string;
  selector?: Selector[];
}
interface NamespaceSpec extends Limits {
  enforcedConfigLevel?: Level;
  pipelineRuns?: Entry[];
  taskRuns?: Entry[];
}
interface GlobalSpec extends Limits {
  enforcedConfigLevel?: Level;
  namespaces?: Record<string, NamespaceSpec>;
}
interface ModelRun {
  name: string;
  kind: RunKindName;
  namespace: string;
  outcome: 'succeeded' | 'failed' | undefined;
  createdMs: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
type Counted = { by: 'namespace' } | { by: 'name'; key: string; value: string } | { by: 'selector'; selector: Selector };
interface ModelLimit {
  value: number;
  counts: Counted;
}

const NAMESPACES = ['a', 'b'] as const;
type LimitField = 'successfulHistoryLimit' | 'failedHistoryLimit';

function has(map: Record<string, string>, key: string, value: string): boolean {
  return Object.hasOwn(map, key) && map[key] === value;
}

function selectorMatches(selector: Selector, run: Pick<ModelRun, 'labels' | 'annotations'>): boolean {
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => has(run.labels, key, value)) && Object.entries(selector.matchAnnotations ?? {}).every(([key, value]) => has(run.annotations, key, value));
}

/** "A level's own field; historyLimit in its place when absent." */
function own(spec: Limits, field: LimitField): number | undefined {
  return spec[field] ?? spec.historyLimit;
}

/**
 * "The entry matching a run is the first with that name, whose limits are read without
 * historyLimit; only when no entry has the name, the first entry with a selector that matches
 * (an empty selector matches any run with a label or an annotation). The entry found answers
 * alone": `found` says whether one was found, `limit` what it gave.
 */
function entryLimit(entries: readonly Entry[], run: ModelRun, field: LimitField): { found: boolean; limit?: ModelLimit } {
  const key = run.annotations[NAME_KEY] !== undefined && run.annotations[NAME_KEY] !== '' ? run.annotations[NAME_KEY] : run.kind === 'PipelineRun' ? 'tekton.dev/pipeline' : 'tekton.dev/task';
  const value = Object.hasOwn(run.labels, key) ? (run.labels[key] ?? '') : '';
  if (value !== '') {
    const named = entries.find((entry) => entry.name === value);
    if (named !== undefined) {
      const limit = named[field];
      return { found: true, ...(limit !== undefined && { limit: { value: limit, counts: { by: 'name', key, value } } }) };
    }
  }
  if (Object.keys(run.labels).length === 0 && Object.keys(run.annotations).length === 0) return { found: false };
  for (const entry of entries) {
    const selector = (entry.selector ?? []).find((one) => selectorMatches(one, run));
    if (selector === undefined) continue;
    const limit = own(entry, field);
    return { found: true, ...(limit !== undefined && { limit: { value: limit, counts: { by: 'selector', selector } } }) };
  }
  return { found: false };
}

/** The spec's table "Which limits a run gets". */
function modelLimit(global: GlobalSpec, namespaced: Readonly<Record<string, NamespaceSpec>>, run: ModelRun, field: LimitField): ModelLimit | undefined {
  const listed = global.namespaces?.[run.namespace];
  const level = listed?.enforcedConfigLevel ?? global.enforcedConfigLevel ?? 'resource';
  const entries = (spec: NamespaceSpec | undefined): Entry[] => (run.kind === 'PipelineRun' ? spec?.pipelineRuns : spec?.taskRuns) ?? [];
  const root = (spec: Limits): ModelLimit | undefined => {
    const value = own(spec, field);
    return value === undefined ? undefined : { value, counts: { by: 'namespace' } };
  };
  const listedOrTop = (): ModelLimit | undefined => (listed !== undefined ? root(listed) : root(global));
  if (level === 'global') return root(global);
  if (level === 'resource') {
    const entry = entryLimit(entries(listed), run, field);
    return entry.limit ?? listedOrTop();
  }
  const mine = namespaced[run.namespace];
  const entry = entryLimit(entries(mine), run, field);
  if (entry.limit !== undefined) return entry.limit;
  return (mine === undefined ? undefined : root(mine)) ?? listedOrTop();
}

function countedIncludes(counts: Counted, run: ModelRun): boolean {
  if (counts.by === 'namespace') return true;
  if (counts.by === 'name') return has(run.labels, counts.key, counts.value);
  return selectorMatches(counts.selector, run);
}

/** "The newest of the same outcome stay, by creationTimestamp" among the runs the limit counts; ties in the listing's order, by name. */
function rankAmong(run: ModelRun, limit: ModelLimit, among: readonly ModelRun[]): number {
  return among.filter((other) => other.kind === run.kind && other.namespace === run.namespace && other.outcome === run.outcome && countedIncludes(limit.counts, other) && (other.createdMs > run.createdMs || (other.createdMs === run.createdMs && other.name < run.name))).length + 1;
}

const labelPool = fc.record(
  {
    pipeline: fc.constantFrom('build', 'test', 'web'),
    env: fc.constantFrom('prod', 'dev'),
    app: fc.constantFrom('web', 'api', 'build'),
    managedBy: fc.constant('tekton-pipelines'),
  },
  { requiredKeys: [] },
);
const annotationPool = fc.record({ team: fc.constantFrom('x', 'y'), byApp: fc.constant('app') }, { requiredKeys: [] });

const runArb = fc.record({
  kind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  namespace: fc.constantFrom(...NAMESPACES),
  state: fc.constantFrom<RunState>('succeeded', 'succeeded', 'failed', 'cancelled', 'running'),
  createdAgo: fc.integer({ min: 0, max: 40 }).map((n) => (n === 0 ? 30 * 60_000 : n * HOUR)),
  ran: fc.integer({ min: 0, max: 30 }).map((n) => n * 10 * 60_000),
  labels: labelPool,
  annotations: annotationPool,
  deleting: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  retained: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
});
type RunDraw = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

const limitsArb = fc.record({ successfulHistoryLimit: fc.integer({ min: 0, max: 3 }), failedHistoryLimit: fc.integer({ min: 0, max: 3 }), historyLimit: fc.integer({ min: 0, max: 3 }) }, { requiredKeys: [] });
const selectorArb = fc.record(
  { matchLabels: fc.record({ env: fc.constantFrom('prod', 'dev'), app: fc.constantFrom('web', 'api') }, { requiredKeys: [] }), matchAnnotations: fc.record({ team: fc.constantFrom('x', 'y') }, { requiredKeys: [] }) },
  { requiredKeys: [] },
);
const entryArb = (withSelectors: boolean): fc.Arbitrary<Entry> =>
  fc.oneof(
    fc.tuple(fc.constantFrom('build', 'test', 'web', 'api'), limitsArb).map(([name, limits]) => ({ name, ...limits })),
    ...(withSelectors ? [fc.tuple(fc.array(selectorArb, { minLength: 1, maxLength: 2 }), limitsArb).map(([selector, limits]) => ({ selector, ...limits }))] : []),
  );
const levelArb = fc.constantFrom<Level | undefined>('global', 'namespace', 'resource', undefined);
const namespaceSpecArb = (inGlobal: boolean): fc.Arbitrary<NamespaceSpec> =>
  fc
    .tuple(limitsArb, inGlobal ? levelArb : fc.constant(undefined), fc.array(entryArb(!inGlobal), { maxLength: 3 }), fc.array(entryArb(!inGlobal), { maxLength: 3 }))
    .map(([limits, level, pipelineRuns, taskRuns]) => ({ ...limits, ...(level !== undefined && { enforcedConfigLevel: level }), pipelineRuns, taskRuns }));
const globalArb: fc.Arbitrary<GlobalSpec> = fc
  .tuple(limitsArb, levelArb, fc.dictionary(fc.constantFrom(...NAMESPACES), namespaceSpecArb(true), { maxKeys: 2 }))
  .map(([limits, level, namespaces]) => ({ ...limits, ...(level !== undefined && { enforcedConfigLevel: level }), namespaces }));
const namespacedArb = fc.dictionary(fc.constantFrom(...NAMESPACES), namespaceSpecArb(false), { maxKeys: 2 });

/** The reasons the spec's safety rows (1 to 8) give, which may keep a run pruner deletes. */
const SAFETY = new Set(['retained', 'namespace-retained', 'retention-invalid', 'run-active', 'too-young', 'retain-until', 'retain-for', 'results-not-stored']);

function modelRuns(specs: readonly RunDraw[]): { spec: RunSpec; model: ModelRun }[] {
  return specs.map((one, index) => {
    const labels: Record<string, string> = {};
    if (one.labels.pipeline !== undefined) labels[one.kind === 'PipelineRun' ? 'tekton.dev/pipeline' : 'tekton.dev/task'] = one.labels.pipeline;
    if (one.labels.env !== undefined) labels['env'] = one.labels.env;
    if (one.labels.app !== undefined) labels['app'] = one.labels.app;
    if (one.labels.managedBy !== undefined) labels[MANAGED_BY] = one.labels.managedBy;
    if (one.retained) labels['tekton-resource-gc.io/retain'] = 'true';
    const annotations: Record<string, string> = {};
    if (one.annotations.team !== undefined) annotations['team'] = one.annotations.team;
    if (one.annotations.byApp !== undefined) annotations[NAME_KEY] = one.annotations.byApp;
    const name = `r-${String(index).padStart(2, '0')}`;
    const finishedAgo = Math.max(0, one.createdAgo - one.ran);
    const outcome = one.state === 'succeeded' ? 'succeeded' : one.state === 'running' ? undefined : 'failed';
    return {
      spec: { name, kind: one.kind, namespace: one.namespace, state: one.state, createdAgo: one.createdAgo, finishedAgo, labels, annotations, deleting: one.deleting },
      model: { name, kind: one.kind, namespace: one.namespace, outcome, createdMs: Date.parse(at(-one.createdAgo)), labels, annotations },
    };
  });
}

describe('property: under --pruner-config the pass deletes nothing pruner v0.4.1 keeps, and what pruner deletes unless a row says why', () => {
  it('over random ConfigMaps and runs', () => {
    fc.assert(
      fc.property(globalArb, namespacedArb, fc.array(runArb, { maxLength: 24 }), (global, namespaced, specs) => {
        const maps = configMaps(
          yaml.dump(global),
          Object.fromEntries(Object.entries(namespaced).map(([namespace, spec]) => [namespace, yaml.dump(spec)])),
        );
        const policy = prunerPolicy(maps);
        const runs = modelRuns(specs);
        const all = decided(
          runs.map((one) => one.spec),
          policy,
        );
        const models = runs.map((one) => one.model);
        for (const { spec, model } of runs) {
          const decision = all.get(spec.name);
          assert.ok(decision !== undefined);
          const reason = decision.decision.reason;
          const field = model.outcome === 'succeeded' ? 'successfulHistoryLimit' : 'failedHistoryLimit';
          const limit = model.outcome === undefined ? undefined : modelLimit(global, namespaced, model, field);
          // pruner keeps a run that is not completed, has no limit, or is among its limit's N newest.
          const prunerKeeps = limit === undefined || rankAmong(model, limit, models.filter((other) => other.outcome !== undefined)) <= limit.value;
          // A run already being deleted is sent no DELETE (docs/spec.md, "Deleting a run"): it is going whoever decides.
          if (prunerKeeps && spec.deleting !== true) assert.notEqual(decision.decision.action, 'delete', `${spec.name}: pruner keeps it, the pass says ${reason}: ${decision.decision.message}`);
          if (prunerKeeps || SAFETY.has(reason)) continue;
          // pruner deletes it: so does the pass, unless newer runs of the set hold no place here
          // (kept by rows 1 to 8, or being deleted: docs/spec.md), which leaves it a place.
          const holders = models.filter((other) => {
            const theirs = all.get(other.name);
            return other.outcome !== undefined && theirs !== undefined && !SAFETY.has(theirs.decision.reason) && theirs.decision.target.deletionTimestamp === undefined;
          });
          const place = spec.deleting === true ? Infinity : rankAmong(model, limit, holders);
          assert.equal(reason, place <= limit.value ? 'history-kept' : 'history-exceeded', `${spec.name}: pruner deletes it; its place here is ${place} of a limit of ${limit.value}: ${decision.decision.message}`);
        }
      }),
      { numRuns: 400 },
    );
  });
});

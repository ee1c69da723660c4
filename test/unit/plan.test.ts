/**
 * Plans (plan.ts), whatever the kinds they list: what buildPlan writes (the delete decisions
 * of every kind, each by its kind and name, and the collectors in the settings) and its
 * digest, canonical JSON, reading a plan back and refusing an edited or malformed one (a plan
 * written before there were kinds still reads, as PipelineResources, with its digest intact),
 * checking a plan against the cluster, its age and a pinned digest, restricting a pass to the
 * planned objects, the policy a plan was decided with, and what explain says of an object and
 * the plan. The real API server's side is test/integration/plan.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decide } from '../../src/core/decide.js';
import type { ClusterView, Decision, TargetRecord } from '../../src/core/types.js';
import {
  PlanError,
  buildPlan,
  canonicalJson,
  checkPlan,
  parsePlan,
  planDigest,
  planPassSettings,
  planPolicy,
  planRunSettings,
  planVerdict,
  renderPlan,
  restrictToPlan,
  unlistedDecision,
  type Plan,
  type PlanSettings,
} from '../../src/pass/plan.js';
import { claim, lrun, pacSecret } from '../fixtures/unit/leftovers.js';
import { HOUR, NOW, activeRun, run, target } from '../fixtures/unit/records.js';

const SETTINGS: PlanSettings = { namespaces: ['ci'], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: HOUR };
const SERVER = 'https://127.0.0.1:6443';
const VIEW: ClusterView = {
  targets: [target('done'), target('busy'), target('orphan')],
  runs: [run('old', ['done']), activeRun('build', ['busy'])],
  namespaces: new Map(),
};
const PLAN = buildPlan({ decisions: decide(VIEW, planPolicy(SETTINGS), NOW), settings: SETTINGS, cluster: { server: SERVER }, createdAt: NOW });
const FILE = 'plan.json';

const SEVERAL_KINDS_SETTINGS: PlanSettings = { namespaces: ['ci'], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: 0, collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'] };
const PR = lrun('pr-1');
/** A PipelineResource, a claim and a Secret, all named `build-cache`. */
const SEVERAL_KINDS_VIEW: ClusterView = {
  targets: [target('build-cache'), claim('build-cache', PR, { uid: 'uid-claim' }), pacSecret('build-cache', PR, { uid: 'uid-secret' })],
  runs: [run('old', ['build-cache'], { workspaces: { claims: [], secrets: [] }, leftoverProblems: [] }), PR],
  namespaces: new Map(),
  pods: [],
  statefulSets: [],
};
const SEVERAL_KINDS_PLAN = buildPlan({ decisions: decide(SEVERAL_KINDS_VIEW, planPolicy(SEVERAL_KINDS_SETTINGS), NOW), settings: SEVERAL_KINDS_SETTINGS, cluster: { server: SERVER }, createdAt: NOW });

/** The first element, which the test's data always has. */
function firstOf<T>(items: readonly T[]): T {
  const [first] = items;
  assert.ok(first !== undefined, 'expected at least one element');
  return first;
}

describe('buildPlan', () => {
  it('lists the delete decisions with their identity and reason, sorted, and no keep', () => {
    assert.deepEqual(
      PLAN.entries.map((entry) => `${entry.namespace}/${entry.name} ${entry.uid} ${entry.resourceVersion} ${entry.reason}`),
      ['ci/done uid-done 1 runs-finished', 'ci/orphan uid-orphan 1 unreferenced'],
    );
    assert.equal(PLAN.createdAt, NOW.toISOString());
    assert.deepEqual(PLAN.cluster, { server: SERVER });
    assert.match(PLAN.digest, /^sha256:[0-9a-f]{64}$/);
  });

  it('has a digest that changes with any field and not with key order', () => {
    const { digest, ...body } = PLAN;
    assert.equal(planDigest(body), digest);
    const reordered = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    assert.equal(planDigest(reordered), digest);
    assert.notEqual(planDigest({ ...body, createdAt: '2026-11-29T12:00:01.000Z' }), digest);
    assert.notEqual(planDigest({ ...body, entries: body.entries.slice(1) }), digest);
    assert.notEqual(planDigest({ ...body, settings: { ...body.settings, minAgeMs: 0 } }), digest);
  });

  it('lists each kind with its name, sorted by namespace, kind and name, and the collectors in the settings', () => {
    assert.deepEqual(
      SEVERAL_KINDS_PLAN.entries.map((entry) => `${entry.kind} ${entry.name} ${entry.reason}`),
      ['PersistentVolumeClaim build-cache runs-finished', 'PipelineResource build-cache runs-finished', 'Secret build-cache runs-finished'],
    );
    assert.deepEqual(parsePlan(renderPlan(SEVERAL_KINDS_PLAN), FILE), SEVERAL_KINDS_PLAN);
  });

});

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined fields', () => {
    assert.equal(canonicalJson({ b: [{ d: 1, c: 'x' }], a: undefined, e: null }), '{"b":[{"c":"x","d":1}],"e":null}');
  });
  it('is the same for any key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        assert.equal(canonicalJson(reversed), canonicalJson(object));
        assert.deepEqual(JSON.parse(canonicalJson(object)), JSON.parse(JSON.stringify(object)));
      }),
    );
  });
});

describe('parsePlan', () => {
  it('reads back what renderPlan wrote', () => {
    assert.deepEqual(parsePlan(renderPlan(PLAN), FILE), PLAN);
  });

  it('refuses a plan edited after it was written: an entry added, a uid changed, a setting loosened', () => {
    const edits: Array<[string, (plan: Plan) => Plan]> = [
      ['an entry added', (plan) => ({ ...plan, entries: [...plan.entries, { ...firstOf(plan.entries), name: 'busy', uid: 'uid-busy' }] })],
      ['a uid changed', (plan) => ({ ...plan, entries: plan.entries.map((entry) => ({ ...entry, uid: 'other' })) })],
      ['minAge lowered', (plan) => ({ ...plan, settings: { ...plan.settings, minAgeMs: 0 } })],
      ['the server changed', (plan) => ({ ...plan, cluster: { server: 'https://elsewhere:6443' } })],
    ];
    for (const [what, edit] of edits) {
      assert.throws(() => parsePlan(renderPlan(edit(PLAN)), FILE), (error: unknown) => {
        assert.ok(error instanceof PlanError, what);
        assert.equal(error.message, 'plan.json was changed after it was written (its digest does not match its content): write a new plan with a dry run and --plan-file');
        return true;
      });
    }
  });

  it('refuses what is not a plan, naming the field, in one line', () => {
    const cases: Array<[string, string]> = [
      ['{', 'plan.json is not a plan: not JSON; write one with a dry run and --plan-file'],
      ['[]', 'plan.json is not a plan: the file should be an object; write one with a dry run and --plan-file'],
      [JSON.stringify({ ...PLAN, kind: 'GCReport' }), `plan.json is not a plan: apiVersion/kind should be tekton-resource-gc.io/v1/GCPlan; write one with a dry run and --plan-file`],
      [JSON.stringify({ ...PLAN, entries: [{ ...PLAN.entries[0], reason: 'because' }] }), /entries\[0\]\.reason should be one of retained, /.source],
      [JSON.stringify({ ...PLAN, settings: { ...PLAN.settings, minAgeMs: '1h' } }), 'plan.json is not a plan: settings.minAgeMs should be a whole number of milliseconds; write one with a dry run and --plan-file'],
      [JSON.stringify({ ...PLAN, settings: { ...PLAN.settings, retainFor: 'a week' } }), /settings\.retainFor should be a duration/.source],
      [JSON.stringify({ ...PLAN, createdAt: 'yesterday' }), /createdAt should be an ISO 8601 time/.source],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parsePlan(text, FILE), (error: unknown) => {
        assert.ok(error instanceof PlanError);
        assert.ok(!error.message.includes('\n'));
        if (message.startsWith('plan.json')) assert.equal(error.message, message);
        else assert.match(error.message, new RegExp(message));
        return true;
      });
    }
  });
});

describe('parsePlan: a plan written before kinds', () => {
  /** What a plan file held before entries could be of other kinds: no collect, and here no kind either. */
  const old = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'GCPlan',
    createdAt: NOW.toISOString(),
    cluster: { server: 'https://127.0.0.1:6443' },
    settings: { namespaces: ['ci'], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: HOUR },
    entries: [{ namespace: 'ci', name: 'src-old', uid: 'uid-src-old', resourceVersion: '3', reason: 'unreferenced' }],
  };
  const withDigest = (body: object): string => JSON.stringify({ ...body, digest: `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}` });

  it('reads its entries as PipelineResources, its collectors as PipelineResources alone, and keeps its digest', () => {
    const plan = parsePlan(withDigest(old), 'old.json');
    assert.deepEqual(plan.entries.map((entry) => [entry.kind, entry.name]), [['PipelineResource', 'src-old']]);
    assert.equal(plan.settings.collect, undefined);
  });

  it('is still refused when edited after it was written', () => {
    const text = withDigest(old).replace('"src-old"', '"src-other"');
    assert.throws(() => parsePlan(text, 'old.json'), (error: unknown) => error instanceof PlanError && /was changed after it was written/.test(error.message));
  });

  it('refuses a kind no collector deletes, and a collector that does not exist', () => {
    const badKind = { ...old, entries: [{ ...old.entries[0], kind: 'Pod' }] };
    assert.throws(() => parsePlan(withDigest(badKind), 'bad.json'), /entries\[0\]\.kind should be one of PipelineResource, StatefulSet, Secret, PersistentVolumeClaim/);
    const badCollector = { ...old, settings: { ...old.settings, collect: ['pods'] } };
    assert.throws(() => parsePlan(withDigest(badCollector), 'bad.json'), /settings\.collect should be a list of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs/);
  });
});

describe('checkPlan', () => {
  const context = { cluster: { server: SERVER }, now: new Date(NOW.getTime() + HOUR), maxAgeMs: 24 * HOUR };
  it('accepts its own cluster (spelled with or without the default port or a final slash) within its age', () => {
    assert.doesNotThrow(() => checkPlan(PLAN, FILE, context));
    const https443 = buildPlan({ decisions: [], settings: SETTINGS, cluster: { server: 'https://api.example:443/' }, createdAt: NOW });
    assert.doesNotThrow(() => checkPlan(https443, FILE, { ...context, cluster: { server: 'https://API.example' } }));
  });
  it('refuses a plan of another cluster', () => {
    assert.throws(() => checkPlan(PLAN, FILE, { ...context, cluster: { server: 'https://127.0.0.1:7443' } }), {
      message: 'plan.json was made for the cluster at https://127.0.0.1:6443, not https://127.0.0.1:7443: make a plan on this cluster',
    });
  });
  it('names the cluster by its kube-system uid when both sides know it: the address may differ in-cluster and out', () => {
    const withId = buildPlan({ decisions: [], settings: SETTINGS, cluster: { server: 'https://gke.example.com', id: 'uid-1' }, createdAt: NOW });
    assert.doesNotThrow(() => checkPlan(withId, FILE, { ...context, cluster: { server: 'https://10.0.0.1:443', id: 'uid-1' } }));
    assert.throws(() => checkPlan(withId, FILE, { ...context, cluster: { server: 'https://gke.example.com', id: 'uid-2' } }), {
      message: 'plan.json was made for another cluster (kube-system uid uid-1, here uid-2; server https://gke.example.com): make a plan on this cluster',
    });
    // One side without the uid (an identity that may not read kube-system): the address decides.
    assert.throws(() => checkPlan(withId, FILE, { ...context, cluster: { server: 'https://10.0.0.1:443' } }), /was made for the cluster at https:\/\/gke\.example\.com, not https:\/\/10\.0\.0\.1:443/);
    assert.deepEqual(parsePlan(renderPlan(withId), FILE).cluster, { server: 'https://gke.example.com', id: 'uid-1' });
  });

  it('refuses a plan older than --plan-max-age, and one from the future', () => {
    assert.throws(() => checkPlan(PLAN, FILE, { ...context, now: new Date(NOW.getTime() + 25 * HOUR) }), {
      message: 'plan.json is 1d1h old, older than --plan-max-age 1d: make a new plan, or raise --plan-max-age',
    });
    assert.throws(() => checkPlan(PLAN, FILE, { ...context, now: new Date(NOW.getTime() - HOUR) }), /in the future of this machine's clock/);
  });
  it('refuses a plan whose digest is not the one pinned with --plan-digest', () => {
    assert.doesNotThrow(() => checkPlan(PLAN, FILE, { ...context, expectedDigest: PLAN.digest }));
    assert.throws(() => checkPlan(PLAN, FILE, { ...context, expectedDigest: 'sha256:00' }), /has digest sha256:[0-9a-f]{64}, not the sha256:00 given with --plan-digest/);
  });
});

describe('restrictToPlan', () => {
  const policy = planPolicy(SETTINGS);

  it('deletes only planned, unchanged targets a fresh decision still deletes; reports nothing else', () => {
    const now: ClusterView = {
      targets: [target('done'), target('busy'), target('orphan'), target('new-orphan')],
      runs: [run('old', ['done']), activeRun('build', ['busy']), activeRun('late', ['orphan'])],
      namespaces: new Map(),
    };
    const planned = restrictToPlan(PLAN, decide(now, policy, NOW));
    assert.deepEqual(planned.decisions.map((decision) => `${decision.target.name} ${decision.action} ${decision.reason}`), ['done delete runs-finished', 'orphan keep referenced-by-active-run']);
    assert.deepEqual([...planned.deletable], ['uid-done']);
    assert.deepEqual(planned.unlisted, []);
    assert.equal(planned.results.size, 0);
  });

  it('a planned target changed or created again since: changed, never deletable', () => {
    const now: ClusterView = {
      targets: [target('done', { resourceVersion: '7' }), target('orphan', { uid: 'uid-orphan-2' })],
      runs: [run('old', ['done'])],
      namespaces: new Map(),
    };
    const planned = restrictToPlan(PLAN, decide(now, policy, NOW));
    assert.deepEqual(planned.deletable.size, 0);
    assert.deepEqual([...planned.results], [['uid-done', 'changed'], ['uid-orphan-2', 'changed']]);
    assert.match(planned.decisions[0]?.message ?? '', /; not deleted: it was changed \(resourceVersion 1 in the plan, 7 now\) since the plan was made$/);
    assert.match(planned.decisions[1]?.message ?? '', /; not deleted: it was deleted and created again since the plan was made$/);
  });

  it('a planned target not listed: gone when it is not there, changed when it no longer matches the selector', () => {
    const planned = restrictToPlan(PLAN, decide({ targets: [target('done')], runs: [run('old', ['done'])], namespaces: new Map() }, policy, NOW));
    assert.deepEqual(planned.unlisted.map((entry) => entry.name), ['orphan']);
    const entry = firstOf(planned.unlisted);
    assert.equal(unlistedDecision(entry, null).result, 'gone');
    assert.equal(unlistedDecision(entry, target('orphan', { uid: 'someone-else' })).result, 'gone');
    const relabelled = unlistedDecision(entry, target('orphan'));
    assert.equal(relabelled.result, 'changed');
    assert.match(relabelled.decision.message, /no longer matches the plan's selector/);
  });

  it('restricts a pass to the planned object of each kind: one of the three changed since is changed, the others deletable', () => {
    const now: ClusterView = { ...SEVERAL_KINDS_VIEW, targets: [target('build-cache'), claim('build-cache', PR, { uid: 'uid-claim', resourceVersion: '9' }), pacSecret('build-cache', PR, { uid: 'uid-secret' })] };
    const planned = restrictToPlan(SEVERAL_KINDS_PLAN, decide(now, planPolicy(SEVERAL_KINDS_SETTINGS), NOW));
    assert.deepEqual([...planned.deletable].sort(), ['uid-build-cache', 'uid-secret']);
    assert.deepEqual([...planned.results], [['uid-claim', 'changed']]);
    assert.deepEqual(planned.unlisted, []);
  });

});

describe('planPolicy', () => {
  it('is the policy the plan was decided with, retain-for included', () => {
    assert.deepEqual(planPolicy(SETTINGS), { labelPrefix: 'tekton-resource-gc.io', minAgeMs: HOUR });
    assert.deepEqual(planPolicy({ ...SETTINGS, retainFor: '2d' }).retainFor, { kind: 'duration', ms: 2 * 24 * HOUR, text: '2d' });
    assert.deepEqual(planPolicy({ ...SETTINGS, retainFor: 'forever' }).retainFor, { kind: 'forever' });
  });
});

describe('planVerdict', () => {
  it('says why an object is or is not in the plan, and what apply will do', () => {
    const name = { namespace: 'ci', name: 'done' };
    assert.match(planVerdict(PLAN, target('done'), name), /^in the plan sha256:\w+ \(runs-finished, uid uid-done, resourceVersion 1\); unchanged since, so apply deletes it if a fresh decision still says delete$/);
    assert.match(planVerdict(PLAN, target('done', { resourceVersion: '2' }), name), /it changed since \(resourceVersion 2 now\), so apply reports it changed and keeps it$/);
    assert.match(planVerdict(PLAN, null, name), /it is gone since, so apply reports it gone$/);
    assert.match(planVerdict(PLAN, target('busy'), { namespace: 'ci', name: 'busy' }), /^not in the plan sha256:\w+: the dry run of 2026-11-29T12:00:00.000Z did not decide to delete ci\/busy, so apply never deletes it$/);
  });

  it('says whether explain\'s object is in the plan by its kind too', () => {
    const secret = SEVERAL_KINDS_PLAN.entries.find((entry) => entry.kind === 'Secret');
    assert.ok(secret !== undefined);
    assert.match(planVerdict(SEVERAL_KINDS_PLAN, { ...secret }, { namespace: 'ci', name: 'build-cache', kind: 'Secret' }), /^in the plan sha256:.* \(runs-finished, uid uid-secret, .*unchanged since/);
    const onlyClaims = { ...SEVERAL_KINDS_PLAN, entries: SEVERAL_KINDS_PLAN.entries.filter((entry) => entry.kind === 'PersistentVolumeClaim') };
    assert.match(planVerdict(onlyClaims, null, { namespace: 'ci', name: 'build-cache', kind: 'Secret' }), /^not in the plan/);
    // Without a kind: a PipelineResource, as explain NAMESPACE/NAME always named one.
    assert.match(planVerdict(onlyClaims, null, { namespace: 'ci', name: 'build-cache' }), /^not in the plan/);
  });
});

describe('plans of runs', () => {
  const RUN_SETTINGS: PlanSettings = {
    ...SETTINGS,
    minAgeMs: 0,
    collect: ['pipelineresources', 'pipelineruns'],
    runs: { keepSuccessful: 1, keepFailed: 1, limitFlags: { keepSuccessful: '--keep', keepFailed: '--keep' }, ttl: '30d', groupBy: 'app', requireResultsStored: false },
    prunerConfig: 'tekton-pipelines',
  };
  /** A finished PipelineRun of Pipeline build, finished `hoursAgo` before NOW. */
  const pipelineRun = (name: string, hoursAgo: number, uid = `uid-${name}`): TargetRecord => ({
    kind: 'PipelineRun',
    namespace: 'ci',
    name,
    uid,
    resourceVersion: '1',
    createdAt: new Date(NOW.getTime() - (hoursAgo + 1) * HOUR).toISOString(),
    labels: { 'tekton.dev/pipeline': 'build' },
    annotations: {},
    ownerReferences: [],
    run: { state: 'succeeded', finishedAt: new Date(NOW.getTime() - hoursAgo * HOUR).toISOString() },
  });
  const viewOf = (runs: TargetRecord[]): ClusterView => ({ targets: runs, runs: [], namespaces: new Map() });
  const deleted = (decisions: readonly Decision[]): string[] => decisions.filter((decision) => decision.action === 'delete').map((decision) => decision.target.name).sort();
  const runPlan = buildPlan({ decisions: decide(viewOf([pipelineRun('r1', 1), pipelineRun('r2', 2), pipelineRun('r3', 3)]), planPolicy(RUN_SETTINGS), NOW), settings: RUN_SETTINGS, cluster: { server: SERVER }, createdAt: NOW });

  it('holds the runs’ policy and --pruner-config, reads back whole, and decides as the dry run did', () => {
    assert.deepEqual(runPlan.entries.map((entry) => `${entry.kind} ${entry.name} ${entry.reason}`), ['PipelineRun r2 history-exceeded', 'PipelineRun r3 history-exceeded']);
    const read = parsePlan(renderPlan(runPlan), FILE);
    assert.deepEqual(read, runPlan);
    assert.deepEqual(planPolicy(read.settings).runs, {
      keepSuccessful: 1,
      keepFailed: 1,
      ttl: { kind: 'duration', ms: 30 * 24 * HOUR, text: '30d' },
      groupBy: 'app',
      requireResultsStored: false,
      limitFlags: { keepSuccessful: '--keep', keepFailed: '--keep' },
    });
    assert.equal(planPassSettings(read.settings).prunerConfig, 'tekton-pipelines');
    // The decisions name the limit as the dry run's did: `--keep`.
    assert.match(firstOf(decide(viewOf([pipelineRun('r1', 1), pipelineRun('r2', 2)]), planPolicy(read.settings), NOW).filter((decision) => decision.target.name === 'r2')).message, /; --keep keeps 1$/);
  });

  it('planRunSettings keeps the flags’ values and leaves out what --pruner-config added', () => {
    const policy = planPolicy(RUN_SETTINGS).runs;
    assert.ok(policy !== undefined);
    assert.deepEqual(planRunSettings({ ...policy, external: () => undefined, keeps: () => false }), RUN_SETTINGS.runs);
  });

  it('apply keeps a planned run now among its group’s newest, and one created again under its name', () => {
    // Since the plan, r1 was deleted (r2 is the newest now) and r3 was run again under its name.
    const now = decide(viewOf([pipelineRun('r2', 2), pipelineRun('r3', 0.5, 'uid-r3-rerun'), pipelineRun('r4', 4)]), planPolicy(runPlan.settings), NOW);
    const planned = restrictToPlan(runPlan, now);
    assert.deepEqual(deleted(now), ['r2', 'r4']);
    // r3's rerun is the newest: kept now, and not the planned object either.
    assert.equal(planned.results.get('uid-r3-rerun'), 'changed');
    // r2 is deleted by the fresh decision and planned: deletable. r4 was never planned.
    assert.deepEqual([...planned.deletable], ['uid-r2']);
    assert.deepEqual(planned.decisions.map((decision) => decision.target.name).sort(), ['r2', 'r3']);
  });

  it('a planned run the fresh decision keeps is not deletable', () => {
    // r1 is gone and nothing newer came: r2 is the newest, kept by --keep 1.
    const now = decide(viewOf([pipelineRun('r2', 2), pipelineRun('r3', 3)]), planPolicy(runPlan.settings), NOW);
    assert.deepEqual([...restrictToPlan(runPlan, now).deletable], ['uid-r3']);
  });

  it('refuses run settings that are missing, out of place or of the wrong shape, naming the field', () => {
    const { runs: _runs, ...withoutRuns } = runPlan.settings;
    const cases: Array<[Record<string, unknown>, string]> = [
      [withoutRuns, "settings.runs should be the runs' settings, since settings.collect names pipelineruns"],
      [{ ...runPlan.settings, collect: ['pipelineresources'] }, 'settings.runs should be absent, since settings.collect names no run collector'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, keepSuccessful: -1 } }, 'settings.runs.keepSuccessful should be a whole number from 0 to 1000000'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, keepFailed: 2.5 } }, 'settings.runs.keepFailed should be a whole number from 0 to 1000000'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, ttl: 'a month' } }, 'settings.runs.ttl should be a duration such as 7d or forever'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, limitFlags: { keepSuccessful: '--keep-successful' } } }, 'settings.runs.limitFlags should be keepSuccessful and keepFailed, each "--keep"'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, groupBy: 'not a key' } }, 'settings.runs.groupBy should be a label key'],
      [{ ...runPlan.settings, runs: { ...RUN_SETTINGS.runs, requireResultsStored: 'yes' } }, 'settings.runs.requireResultsStored should be true or false'],
      [{ ...runPlan.settings, prunerConfig: 'Tekton_Pipelines' }, 'settings.prunerConfig should be a namespace name'],
    ];
    for (const [settings, message] of cases) {
      assert.throws(
        () => parsePlan(JSON.stringify({ ...runPlan, settings }), FILE),
        (error: unknown) => error instanceof PlanError && error.message === `plan.json is not a plan: ${message}; write one with a dry run and --plan-file`,
        message,
      );
    }
  });
});

/**
 * The delete phase (deletephase.ts), whatever the collector, on two fakes.
 *
 * On an injected clock: a small discrete-event simulation in which time passes only while
 * something waits (a backoff, the --qps pacing, a refresh or a delete that takes time), so
 * every figure below is exact and the tests take milliseconds: no delete on a view older than
 * the re-check interval, a refused delete tried again on a fresh view, redecide, refreshView.
 *
 * On a clock that stands still, against a fake API server that writes down every request: the
 * delete order by collector, the re-check of Pods and StatefulSets between collectors (a
 * StatefulSet deleted first no longer holds its claim, one that stays does), a claim left
 * Terminating, no second DELETE, and --pvc-finalizer purge only once no running Pod names the
 * claim; and the caps (caps.ts) that stop a pass before any of this.
 *
 * The real API server's side of the same promises is proven in
 * test/integration/deletephase.test.ts and, for claims, Secrets and StatefulSets, in
 * test/integration/leftovers.test.ts and test/integration/leftovers-scenarios.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Breaker, describeFailureKind } from '../../src/pass/breaker.js';
import { breachText, capBreaches, cascadeCount, countedCandidates, sentNothing } from '../../src/pass/caps.js';
import { decide } from '../../src/core/decide.js';
import type { ClusterView, Decision, PodRecord, RunRecord, StatefulSetRecord, TargetRecord } from '../../src/core/types.js';
import { decideBounded } from '../../src/pass/decisions.js';
import { RECHECK_INTERVAL_MS, deleteCandidates, redecide, refreshView, type DeletePhase, type DeletePhaseDeps } from '../../src/pass/deletephase.js';
import type { Remaining } from '../../src/kube/api.js';
import type { ServedApis, TargetDeleteOutcome } from '../../src/kube/cluster.js';
import { KubeError } from '../../src/kube/errors.js';
import type { Result } from '../../src/report/model.js';
import { activeLrun, affinityClaim, affinityStatefulSet, claim, leftover, lrun, pacSecret, pod, statefulSet } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY, activeRun, run, runTarget, target } from '../fixtures/unit/records.js';

const POLICY_NOW = { ...POLICY, minAgeMs: 0 };
const SCOPE = { namespaces: [], excludeNamespaces: [], selector: '' };

// ---- On an injected clock: the re-check interval and retries, shown with PipelineResources ----

const PIPELINERESOURCE_APIS: ServedApis = {
  targets: { pipelineresources: { group: 'tekton.dev', version: 'v1alpha1', plural: 'pipelineresources' } },
  runs: { PipelineRun: { resource: { group: 'tekton.dev', version: 'v1beta1', plural: 'pipelineruns' } } },
  leftovers: false,
  skipped: [],
};
const DELETE = { verb: 'delete', resource: 'pipelineresources.tekton.dev', namespace: 'ci' };

/** Time that moves only when everything that can run has run and something waits. */
class FakeTime {
  now = NOW.getTime();
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.timers = this.timers.filter((entry) => entry !== timer);
        resolve();
      };
      const timer = {
        at: this.now + ms,
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort);
    });
  };

  /** Runs `work` to its end, moving the clock to the next timer whenever nothing else can run. */
  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (done) return settled;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift();
      if (next === undefined) throw new Error('nothing runs and nothing waits: the phase is stuck');
      this.now = next.at;
      next.resolve();
    }
  }
}

/** A refused attempt; `acted`: the server deleted it before the answer was lost. */
type DeleteFault = KubeError | { acted: true; error: KubeError };

/** A namespace of runs and targets as the API server would hold them, on FakeTime. */
class TimedCluster {
  readonly runs = new Map<string, RunRecord>();
  readonly targets = new Map<string, TargetRecord>();
  readonly refreshes: { start: number; end: number }[] = [];
  readonly deletes: { name: string; at: number; attempt: number }[] = [];
  readonly faults = new Map<string, DeleteFault[]>();
  /** Targets whose DELETE the server answers 409 (`changed`: changed since listed, its preconditions fail) or 404 (`gone`: deleted by someone else since). */
  readonly answers = new Map<string, 'changed' | 'gone'>();
  refreshMs = 40;
  deleteMs = 13;
  /** Each refresh, the first (the re-check before the phase) included, takes its entry here, else refreshMs. */
  refreshDurations: number[] = [];
  /** Refreshes after this many fail. */
  refreshesThatWork = Infinity;

  constructor(
    private readonly time: FakeTime,
    targets: readonly TargetRecord[],
    runs: readonly RunRecord[],
  ) {
    for (const record of targets) this.targets.set(record.uid, record);
    for (const record of runs) this.runs.set(record.uid, record);
  }

  view(): ClusterView {
    return { targets: [...this.targets.values()], runs: [...this.runs.values()], namespaces: new Map() };
  }

  readonly api: DeletePhaseDeps['cluster'] = {
    runsChangedSince: async (_apis, listed) => {
      const start = this.time.now;
      const index = this.refreshes.length;
      await this.time.sleep(this.refreshDurations[index] ?? this.refreshMs);
      if (index >= this.refreshesThatWork) throw new KubeError(503, { verb: 'list', resource: 'pipelineruns.tekton.dev', namespace: 'ci' }, 'down');
      // What the server holds when the read began: changes during the read are not in it.
      this.refreshes.push({ start, end: this.time.now });
      const before = new Map(listed.map((record) => [record.uid, record.resourceVersion]));
      const changed = [...this.runs.values()].filter((record) => before.get(record.uid) !== record.resourceVersion);
      const goneUids = new Set(listed.filter((record) => !this.runs.has(record.uid)).map((record) => record.uid));
      return { changed, goneUids, changedTargets: [] };
    },
    readNamespaces: () => Promise.resolve(new Map()),
    readTarget: (_apis, _namespace, name) => Promise.resolve([...this.targets.values()].find((record) => record.name === name) ?? null),
    deleteTarget: async (_apis, record, attempt = 1) => {
      this.deletes.push({ name: record.name, at: this.time.now, attempt });
      await this.time.sleep(this.deleteMs);
      const fault = this.faults.get(record.name)?.shift();
      if (fault instanceof KubeError) throw fault;
      if (fault !== undefined) {
        this.targets.delete(record.uid);
        throw fault.error;
      }
      const answer = this.answers.get(record.name);
      if (answer !== undefined) return { outcome: answer };
      return { outcome: this.targets.delete(record.uid) ? 'deleted' : 'gone' };
    },
    // PipelineResources alone: no Pod or StatefulSet is read, no run by name, no finalizer removed.
    runsNamed: () => Promise.reject(new Error('no collector on reads runs by name')),
    listPods: () => Promise.reject(new Error('no collector on reads Pods')),
    listStatefulSets: () => Promise.reject(new Error('no collector on reads StatefulSets')),
    listClaims: () => Promise.reject(new Error('no claim is collected')),
    purgeClaimProtection: () => Promise.reject(new Error('no claim is collected')),
  };

  /** A running PipelineRun that names `names`, as a CI system would create one. */
  startRun(name: string, names: readonly string[]): void {
    const record = activeRun(name, names, { resourceVersion: String(this.time.now) });
    this.runs.set(record.uid, record);
  }
}

interface Setup {
  time: FakeTime;
  cluster: TimedCluster;
  abort: AbortController;
  logs: string[];
  phase: (limits?: Partial<DeletePhase['limits']>) => Promise<Awaited<ReturnType<typeof deleteCandidates>>>;
}

function setup(targetCount: number, runs: readonly RunRecord[] = []): Setup {
  const time = new FakeTime();
  const targets = Array.from({ length: targetCount }, (_, index) => target(`t${String(index).padStart(3, '0')}`));
  const cluster = new TimedCluster(time, targets, runs);
  const abort = new AbortController();
  const logs: string[] = [];
  const log = (level: string) => (fields: unknown, message?: string) => logs.push(`${level}: ${message ?? String(fields)}`);
  const deps: DeletePhaseDeps = {
    cluster: cluster.api,
    now: () => new Date(time.now),
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as DeletePhaseDeps['log'],
    signal: abort.signal,
    sleep: time.sleep,
    random: () => 0.5,
  };
  // As a live pass does: decide on the listing, re-check once, then the delete phase.
  const phase = async (limits: Partial<DeletePhase['limits']> = {}) => {
    const listed = { view: cluster.view(), readAt: time.now, readMs: 0 };
    const decisions = decide(listed.view, POLICY_NOW, new Date(time.now));
    const checked = await time.run(refreshView(deps, PIPELINERESOURCE_APIS, listed, { scope: SCOPE, namespaces: ['ci'] }));
    return time.run(
      deleteCandidates(deps, PIPELINERESOURCE_APIS, {
        policy: POLICY_NOW,
        scope: SCOPE,
        view: checked,
        decisions: redecide(POLICY_NOW, checked.view, decisions, new Date(time.now)),
        limits: { qps: 50, concurrency: 2, maxAttempts: 6, maxConsecutiveFailures: 5, ...limits },
      }),
    );
  };
  return { time, cluster, abort, logs, phase };
}

/**
 * The age of the view each delete stood on: from the start of the first read behind the
 * newest view that had arrived by then. A delete at the very instant a view arrives may
 * have been checked on the one before; that one was then checked young enough at that
 * same instant, so the bound holds for it too.
 */
function viewAges(cluster: TimedCluster): number[] {
  return cluster.deletes.map((entry) => {
    const read = cluster.refreshes.filter((refresh) => refresh.end <= entry.at).map((refresh) => refresh.start);
    assert.ok(read.length > 0, 'every delete comes after the re-check');
    return entry.at - Math.max(...read);
  });
}

function resultOf(outcome: Awaited<ReturnType<typeof deleteCandidates>>, name: string): string | undefined {
  return outcome.results.get(`uid-${name}`);
}

function decisionOf(outcome: Awaited<ReturnType<typeof deleteCandidates>>, name: string): Decision {
  const found = outcome.decisions.find((decision) => decision.target.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

describe('delete phase: no delete starts on a view older than the re-check interval', () => {
  it('200 deletes at --qps 10 with refreshes of 1.7 s each: every delete stands on a view at most 5 s old, and the deletes never wait for a refresh', async () => {
    const { cluster, phase } = setup(200);
    cluster.refreshMs = 1_730;
    const outcome = await phase({ qps: 10, concurrency: 4 });
    assert.equal(outcome.results.size, 200);
    assert.ok([...outcome.results.values()].every((result) => result === 'deleted'));
    const ages = viewAges(cluster);
    assert.ok(Math.max(...ages) <= RECHECK_INTERVAL_MS, `oldest view a delete stood on: ${Math.max(...ages)} ms`);
    // The next view is read while the deletes go on: 200 starts at 10/s span 19.9 s, not more.
    const starts = cluster.deletes.map((entry) => entry.at);
    assert.ok(Math.max(...starts) - Math.min(...starts) <= 19_900, `the deletes spanned ${Math.max(...starts) - Math.min(...starts)} ms`);
    assert.ok(cluster.refreshes.length >= 4, `${cluster.refreshes.length} refreshes`);
  });

  it('the clock starts before the first read: a refresh of 4.5 s leaves the next delete 0.5 s, not 5 s', async () => {
    const { cluster, phase } = setup(40);
    cluster.refreshMs = 4_500;
    await phase({ qps: 4, concurrency: 1 });
    const ages = viewAges(cluster);
    assert.equal(cluster.deletes.length, 40);
    assert.ok(Math.max(...ages) <= RECHECK_INTERVAL_MS, `oldest view a delete stood on: ${Math.max(...ages)} ms`);
  });

  it('refreshes slower than the interval stop the deletes with an error after three tries, none on a stale view', async () => {
    const { cluster, phase, logs } = setup(30);
    // The re-check before the phase takes 1 s; every later one 6 s.
    cluster.refreshMs = 6_000;
    cluster.refreshDurations = [1_000];
    const outcome = await phase({ qps: 5, concurrency: 1 });
    // Deletes at 5/s while the first view is under 5 s old (4 s after it arrived), then none.
    assert.equal(cluster.deletes.length, 21);
    assert.ok(Math.max(...viewAges(cluster)) <= RECHECK_INTERVAL_MS);
    assert.equal(cluster.refreshes.length, 1 + 3);
    assert.match(outcome.errors[0] ?? '', /^re-checks take longer than the re-check interval of 5 s \(the last took 6\.0 s\)/);
    assert.ok(logs.some((line) => line.startsWith('error: no more deletes')));
  });

  it('a refresh that fails stops the deletes: no delete starts after it', async () => {
    const { cluster, phase } = setup(400);
    cluster.refreshesThatWork = 1;
    const outcome = await phase({ qps: 50, concurrency: 2 });
    const lastDelete = Math.max(...cluster.deletes.map((entry) => entry.at));
    assert.ok(lastDelete - (cluster.refreshes[0]?.start ?? 0) <= RECHECK_INTERVAL_MS);
    assert.ok(cluster.deletes.length < 400);
    assert.match(outcome.errors[0] ?? '', /^re-check during the delete phase failed, no delete started after it: could not list pipelineruns/);
  });

  it('a run created during the phase that names a later candidate saves it', async () => {
    const { time, cluster, phase } = setup(100);
    const waitThenStart = time.sleep(1_000).then(() => cluster.startRun('late', ['t090']));
    const outcome = await phase({ qps: 10, concurrency: 1 });
    await waitThenStart;
    assert.equal(resultOf(outcome, 't090'), undefined);
    assert.equal(decisionOf(outcome, 't090').reason, 'referenced-by-active-run');
    assert.match(decisionOf(outcome, 't090').message, /\(seen when re-checking before deleting\)$/);
    assert.equal(outcome.results.size, 99);
  });
});

describe('delete phase: a refused delete is tried again on a fresh view', () => {
  it('429 Retry-After 10 s, and a run naming the candidate created during the wait: kept, one attempt only', async () => {
    const { time, cluster, phase } = setup(3);
    cluster.faults.set('t001', [new KubeError(429, DELETE, 'throttled', { retryAfterMs: 10_000 })]);
    const during = time.sleep(3_000).then(() => cluster.startRun('arrived', ['t001']));
    const outcome = await phase();
    await during;
    assert.deepEqual(cluster.deletes.filter((entry) => entry.name === 't001').length, 1);
    assert.equal(resultOf(outcome, 't001'), undefined, 'kept: no result of its own');
    assert.equal(decisionOf(outcome, 't001').action, 'keep');
    assert.equal(decisionOf(outcome, 't001').reason, 'referenced-by-active-run');
    assert.ok(cluster.targets.has('uid-t001'));
    assert.equal(resultOf(outcome, 't000'), 'deleted');
    assert.equal(resultOf(outcome, 't002'), 'deleted');
  });

  it('three 503s with Retry-After 4 s, a run created during the first wait: kept once the view is older than the interval', async () => {
    const { time, cluster, phase } = setup(2);
    const unavailable = (): KubeError => new KubeError(503, DELETE, 'unavailable', { retryAfterMs: 4_000 });
    cluster.faults.set('t000', [unavailable(), unavailable(), unavailable()]);
    const during = time.sleep(3_000).then(() => cluster.startRun('arrived', ['t000']));
    const outcome = await phase();
    await during;
    // The second attempt (4 s in) stands on the view read before the phase, still young
    // enough; the third (8 s in) on a view read after the run appeared, which keeps it.
    assert.equal(cluster.deletes.filter((entry) => entry.name === 't000').length, 2);
    assert.equal(decisionOf(outcome, 't000').reason, 'referenced-by-active-run');
    assert.ok(cluster.targets.has('uid-t000'));
    // Each retry waited out the Retry-After, and stood on a view read after the wait.
    const attempts = cluster.deletes.filter((entry) => entry.name === 't000');
    for (const [index, entry] of attempts.entries()) {
      if (index > 0) assert.ok(entry.at - (attempts[index - 1]?.at ?? 0) >= 4_000);
      const read = cluster.refreshes.filter((refresh) => refresh.end <= entry.at).map((refresh) => refresh.start);
      if (index > 0) assert.ok(entry.at - Math.max(...read) <= RECHECK_INTERVAL_MS, `attempt ${index + 1} on a view ${entry.at - Math.max(...read)} ms old`);
    }
  });

  it('503 then success: deleted, with the attempts counted', async () => {
    const { cluster, phase, logs } = setup(1);
    cluster.faults.set('t000', [new KubeError(503, DELETE, 'unavailable')]);
    const outcome = await phase();
    assert.equal(resultOf(outcome, 't000'), 'deleted');
    assert.deepEqual(cluster.deletes.map((entry) => entry.attempt), [1, 2]);
    assert.ok(logs.some((line) => /^warn: delete refused; it will be tried again/.test(line)));
  });

  it('every attempt refused: --max-retries 2 means 3 attempts, then failed with the reason', async () => {
    const { cluster, phase } = setup(1);
    cluster.faults.set('t000', Array.from({ length: 5 }, () => new KubeError(429, DELETE, 'throttled', { retryAfterMs: 1_000 })));
    const outcome = await phase({ maxAttempts: 3 });
    assert.equal(cluster.deletes.length, 3);
    assert.equal(resultOf(outcome, 't000'), 'failed');
    assert.match(decisionOf(outcome, 't000').message, /; delete failed: could not delete pipelineresources\.tekton\.dev in namespace "ci": HTTP 429: throttled$/);
  });

  it('a Retry-After past the retry window fails at once rather than wait', async () => {
    const { time, cluster, phase } = setup(1);
    cluster.faults.set('t000', [new KubeError(429, DELETE, 'throttled', { retryAfterMs: 120_000 })]);
    const started = time.now;
    const outcome = await phase();
    assert.equal(resultOf(outcome, 't000'), 'failed');
    assert.ok(time.now - started < 1_000);
  });

  it('a 403 is not tried again', async () => {
    const { cluster, phase } = setup(1);
    cluster.faults.set('t000', [new KubeError(403, DELETE, 'no')]);
    const outcome = await phase();
    assert.equal(cluster.deletes.length, 1);
    assert.equal(resultOf(outcome, 't000'), 'failed');
  });

  it('the server deleted it and the answer was lost: the next attempt finds it gone', async () => {
    const { cluster, phase } = setup(2);
    cluster.faults.set('t000', [{ acted: true, error: new KubeError(0, DELETE, 'socket hang up') }]);
    const outcome = await phase();
    assert.equal(resultOf(outcome, 't000'), 'gone');
    assert.equal(cluster.deletes.length, 3);
    assert.equal(resultOf(outcome, 't001'), 'deleted');
  });

  it('the answer was lost and a fresh decision keeps it: it is read again and reported gone, never kept or failed', async () => {
    const { time, cluster, phase } = setup(1);
    // A 500 that asks for 6 s: the retry finds the view too old, reads again and keeps it.
    cluster.faults.set('t000', [{ acted: true, error: new KubeError(500, DELETE, 'etcd timeout', { retryAfterMs: 6_000 }) }]);
    const during = time.sleep(1_000).then(() => cluster.startRun('arrived', ['t000']));
    const outcome = await phase();
    await during;
    assert.equal(cluster.deletes.length, 1);
    assert.equal(resultOf(outcome, 't000'), 'gone');
    assert.match(decisionOf(outcome, 't000').message, /an earlier delete attempt got no answer \(could not delete .*HTTP 500: etcd timeout\) and it is gone since$/);
  });

  it('no answer every time, and the server acted on none: failed after the attempts, not gone', async () => {
    const { cluster, phase } = setup(1);
    cluster.faults.set('t000', Array.from({ length: 3 }, () => new KubeError(0, DELETE, 'socket hang up')));
    const outcome = await phase({ maxAttempts: 3 });
    assert.equal(cluster.deletes.length, 3);
    assert.equal(resultOf(outcome, 't000'), 'failed');
    assert.ok(cluster.targets.has('uid-t000'));
  });

  it('SIGTERM during a backoff wait ends it at once: no attempt after the signal, the note says why', async () => {
    const { time, cluster, abort, phase } = setup(1);
    cluster.faults.set('t000', [new KubeError(429, DELETE, 'throttled', { retryAfterMs: 30_000 })]);
    const signalled = time.sleep(2_000).then(() => abort.abort());
    const started = time.now;
    const outcome = await phase();
    await signalled;
    assert.equal(cluster.deletes.length, 1);
    assert.ok(time.now - started <= 2_000, `the phase ran ${time.now - started} ms of fake time`);
    assert.equal(resultOf(outcome, 't000'), undefined);
    assert.match(decisionOf(outcome, 't000').message, /; delete refused 1 time \(last: .*HTTP 429: throttled\) and not tried again$/);
  });
});

describe('the breaker (breaker.ts): failures of one kind in a row', () => {
  const forbidden = (): KubeError => new KubeError(403, DELETE, 'no', { reason: 'Forbidden' });
  const events = { forbidden, internal: () => new KubeError(500, DELETE, 'webhook down', { reason: 'InternalError' }), plain: () => new Error('an answer of an unexpected shape') };
  type Event = keyof typeof events | 'ok';
  const cases: { why: string; limit: number; events: Event[]; tripped: { status: number; reason: string; failures: number } | undefined }[] = [
    // The case: an RBAC change refuses every delete.
    { why: 'five 403s trip a limit of 5', limit: 5, events: Array<Event>(5).fill('forbidden'), tripped: { status: 403, reason: 'Forbidden', failures: 5 } },
    { why: 'four do not', limit: 5, events: Array<Event>(4).fill('forbidden'), tripped: undefined },
    // A success between them: the deletes are not all refused.
    { why: 'a success starts the count again', limit: 5, events: ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'ok', 'forbidden', 'forbidden', 'forbidden', 'forbidden'], tripped: undefined },
    // Another status or reason is another failure: the count starts again at 1, with it.
    { why: 'another kind of failure starts a new count', limit: 5, events: ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'internal', 'forbidden', 'forbidden', 'forbidden', 'forbidden'], tripped: undefined },
    { why: 'the new kind trips when it comes often enough', limit: 3, events: ['forbidden', 'forbidden', 'internal', 'internal', 'internal'], tripped: { status: 500, reason: 'InternalError', failures: 3 } },
    // An error that is not the server's counts as status 0, no reason: its own kind.
    { why: 'errors not from the server count as one kind', limit: 2, events: ['plain', 'plain'], tripped: { status: 0, reason: '', failures: 2 } },
    { why: 'a limit of 0 never trips', limit: 0, events: Array<Event>(100).fill('forbidden'), tripped: undefined },
    { why: 'a limit of 1 trips on the first failure', limit: 1, events: ['forbidden'], tripped: { status: 403, reason: 'Forbidden', failures: 1 } },
  ];
  for (const row of cases) {
    it(row.why, () => {
      const breaker = new Breaker(row.limit);
      for (const event of row.events) {
        if (event === 'ok') breaker.succeeded();
        else breaker.failed(events[event](), event);
      }
      const tripped = breaker.tripped;
      assert.deepEqual(tripped === undefined ? undefined : { status: tripped.status, reason: tripped.reason, failures: tripped.failures }, row.tripped);
    });
  }

  it('stays tripped with the failure that tripped it, whatever comes after', () => {
    const breaker = new Breaker(2);
    breaker.failed(forbidden(), 'first');
    breaker.failed(forbidden(), 'second');
    breaker.succeeded();
    breaker.failed(events.internal(), 'third');
    assert.deepEqual(breaker.tripped, { status: 403, reason: 'Forbidden', failures: 2, last: 'second' });
  });

  it('says a failure as an operator reads it', () => {
    assert.deepEqual(
      [{ status: 403, reason: 'Forbidden' }, { status: 500, reason: '' }, { status: 0, reason: '' }, { status: 0, reason: 'CertificateRejected' }].map(describeFailureKind),
      ['403 Forbidden', 'HTTP 500', 'no answer', 'CertificateRejected'],
    );
  });
});

describe('delete phase: the breaker stops it', () => {
  const forbidden = (): KubeError => new KubeError(403, DELETE, 'no', { reason: 'Forbidden' });
  const names = (count: number): string[] => Array.from({ length: count }, (_, index) => `t${String(index).padStart(3, '0')}`);

  /** `name result` of every candidate, in order. */
  function results(outcome: Awaited<ReturnType<typeof deleteCandidates>>, count: number): string[] {
    return names(count).map((name) => `${name} ${resultOf(outcome, name) ?? '-'}`);
  }

  it('12 candidates, every DELETE refused 403, one at a time: 5 are sent and fail, the other 7 are skipped, and the phase says why', async () => {
    const { cluster, phase, logs } = setup(12);
    for (const name of names(12)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ concurrency: 1 });
    assert.deepEqual(cluster.deletes.map((entry) => entry.name), names(5));
    assert.deepEqual(results(outcome, 12), [...names(5).map((name) => `${name} failed`), ...names(12).slice(5).map((name) => `${name} skipped`)]);
    assert.match(decisionOf(outcome, 't004').message, /; delete failed: forbidden: this identity may not delete pipelineresources\.tekton\.dev in namespace "ci"; grant "delete" on "pipelineresources\.tekton\.dev" \(no\)$/);
    assert.match(decisionOf(outcome, 't005').message, /^no run links it; skipped: the breaker stopped the delete phase after 5 deletes in a row failed with 403 Forbidden \(--max-consecutive-failures 5\)$/);
    assert.deepEqual(outcome.breaker, { status: 403, reason: 'Forbidden', failures: 5, skipped: 7 });
    assert.deepEqual(outcome.errors, [
      'the breaker stopped the delete phase: 5 deletes in a row failed with 403 Forbidden (--max-consecutive-failures 5), so 7 candidates were skipped; the last: forbidden: this identity may not delete pipelineresources.tekton.dev in namespace "ci"; grant "delete" on "pipelineresources.tekton.dev" (no)',
    ]);
    assert.deepEqual(logs.filter((line) => line.startsWith('error: ')), [...Array<string>(5).fill('error: delete failed'), 'error: the breaker stopped the delete phase']);
    assert.equal(cluster.targets.size, 12);
  });

  it('at --concurrency 4 the deletes already started settle as they come, and no new one starts after the fifth failure', async () => {
    const { cluster, phase } = setup(12);
    for (const name of names(12)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ concurrency: 4, qps: 1000 });
    const sent = cluster.deletes.length;
    assert.ok(sent >= 5 && sent <= 8, `${sent} DELETEs`);
    assert.deepEqual(results(outcome, 12), [...names(sent).map((name) => `${name} failed`), ...names(12).slice(sent).map((name) => `${name} skipped`)]);
    assert.deepEqual(outcome.breaker, { status: 403, reason: 'Forbidden', failures: 5, skipped: 12 - sent });
  });

  it('gone (404) and changed (409) neither count nor start the count again: 5 refusals around them still stop the phase', async () => {
    const { cluster, phase } = setup(10);
    for (const name of ['t000', 't001', 't004', 't005', 't006']) cluster.faults.set(name, [forbidden()]);
    cluster.answers.set('t002', 'gone');
    cluster.answers.set('t003', 'changed');
    const outcome = await phase({ concurrency: 1 });
    assert.deepEqual(results(outcome, 10), ['t000 failed', 't001 failed', 't002 gone', 't003 changed', 't004 failed', 't005 failed', 't006 failed', 't007 skipped', 't008 skipped', 't009 skipped']);
    assert.equal(outcome.breaker?.skipped, 3);
  });

  it('a delete that succeeds starts the count again: 4 refusals between successes never stop it', async () => {
    const { cluster, phase } = setup(12);
    for (const name of names(12).filter((_, index) => index % 5 !== 4)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ concurrency: 1 });
    assert.equal(cluster.deletes.length, 12);
    assert.deepEqual([...outcome.results.values()].filter((result) => result === 'deleted').length, 2);
    assert.equal(outcome.breaker, undefined);
    assert.deepEqual(outcome.errors, []);
  });

  it('refusals of different kinds in turn never stop it', async () => {
    const { cluster, phase } = setup(10);
    for (const [index, name] of names(10).entries()) cluster.faults.set(name, [index % 2 === 0 ? forbidden() : new KubeError(400, DELETE, 'denied by a webhook', { reason: 'BadRequest' })]);
    const outcome = await phase({ concurrency: 1 });
    assert.equal(cluster.deletes.length, 10);
    assert.equal(outcome.breaker, undefined);
  });

  it('--max-consecutive-failures 0: every candidate is tried', async () => {
    const { cluster, phase } = setup(12);
    for (const name of names(12)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ maxConsecutiveFailures: 0 });
    assert.equal(cluster.deletes.length, 12);
    assert.equal(outcome.breaker, undefined);
    assert.deepEqual(outcome.errors, []);
  });

  it('tripped by the last candidate: nothing is left to skip, so nothing is said about the breaker', async () => {
    const { cluster, phase } = setup(5);
    for (const name of names(5)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ concurrency: 1 });
    assert.deepEqual(results(outcome, 5), names(5).map((name) => `${name} failed`));
    assert.equal(outcome.breaker, undefined);
    assert.deepEqual(outcome.errors, []);
  });

  it('a candidate waiting to be tried again after a 429 is skipped, its refusal said', async () => {
    const { cluster, phase } = setup(7);
    cluster.faults.set('t000', [new KubeError(429, DELETE, 'throttled', { retryAfterMs: 2_000 })]);
    for (const name of names(7).slice(1, 6)) cluster.faults.set(name, [forbidden()]);
    const outcome = await phase({ concurrency: 1 });
    assert.deepEqual(results(outcome, 7), ['t000 skipped', 't001 failed', 't002 failed', 't003 failed', 't004 failed', 't005 failed', 't006 skipped']);
    assert.match(decisionOf(outcome, 't000').message, /; delete refused 1 time \(last: .*HTTP 429: throttled\) and not tried again; skipped: the breaker stopped the delete phase after 5 deletes in a row failed with 403 Forbidden/);
  });

  it('a candidate a fresh decision keeps is kept, not skipped', async () => {
    const { time, cluster, phase } = setup(8);
    for (const name of names(8)) cluster.faults.set(name, [forbidden()]);
    // Created during the phase, seen on the next re-check: it saves t007.
    const during = time.sleep(10).then(() => cluster.startRun('arrived', ['t007']));
    const outcome = await phase({ concurrency: 1, qps: 0.5 });
    await during;
    assert.deepEqual(results(outcome, 8).slice(5), ['t005 skipped', 't006 skipped', 't007 -']);
    assert.equal(decisionOf(outcome, 't007').action, 'keep');
    assert.equal(outcome.breaker?.skipped, 2);
  });
});

describe('redecide', () => {
  const view = (runs: readonly RunRecord[]): ClusterView => ({ targets: [target('a'), target('b')], runs, namespaces: new Map() });
  const first = decide(view([run('old', ['a'])]), POLICY_NOW, NOW);

  it('a delete stays a delete with the fresh decision: its message and references are what the delete stood on', () => {
    const later = [run('old', ['a']), run('another', ['a'], { finishedAt: '2026-11-29T11:00:00Z' })];
    const again = redecide(POLICY_NOW, view(later), first, NOW);
    const a = again.find((decision) => decision.target.name === 'a');
    assert.equal(a?.action, 'delete');
    assert.deepEqual(a?.references.map((reference) => reference.name), ['another', 'old']);
    assert.match(a?.message ?? '', /all 2 linked runs finished/);
  });

  it('a delete becomes a keep when a fresh decision keeps it, and says it was seen on re-checking', () => {
    const again = redecide(POLICY_NOW, view([run('old', ['a']), activeRun('new', ['b'])]), first, NOW);
    const b = again.find((decision) => decision.target.name === 'b');
    assert.equal(b?.reason, 'referenced-by-active-run');
    assert.match(b?.message ?? '', / \(seen when re-checking before deleting\)$/);
  });

  it('a keep never becomes a delete', () => {
    const kept = decide(view([activeRun('busy', ['a', 'b'])]), POLICY_NOW, NOW);
    const again = redecide(POLICY_NOW, view([]), kept, NOW);
    assert.deepEqual(again, kept);
  });

  it('under apply (`only`), a run is ranked among its whole group, not among the runs it may delete', () => {
    const finished = (name: string, hoursAgo: number): TargetRecord => ({
      kind: 'PipelineRun',
      namespace: 'ci',
      name,
      uid: `uid-${name}`,
      resourceVersion: '1',
      createdAt: new Date(NOW.getTime() - (hoursAgo + 1) * 3_600_000).toISOString(),
      labels: { 'tekton.dev/pipeline': 'build' },
      annotations: {},
      ownerReferences: [],
      run: { state: 'succeeded', finishedAt: new Date(NOW.getTime() - hoursAgo * 3_600_000).toISOString() },
    });
    const policy = { ...POLICY_NOW, runs: { keepSuccessful: 1, requireResultsStored: false } };
    const runView: ClusterView = { targets: [finished('newest', 1), finished('older', 2)], runs: [], namespaces: new Map() };
    const decided = decide(runView, policy, NOW);
    // Only `older` may go (the plan's one entry); `newest` still holds the one place.
    const again = redecide(policy, runView, decided, NOW, new Set(['uid-older']));
    assert.deepEqual(
      again.map((decision) => `${decision.target.name} ${decision.reason}`),
      ['newest history-kept', 'older history-exceeded'],
    );
  });
});

describe('refreshView', () => {
  it('dates the view by the clock before the first read, not after the last', async () => {
    const time = new FakeTime();
    const cluster = new TimedCluster(time, [target('a')], [run('r', ['a'])]);
    cluster.refreshMs = 3_000;
    const started = time.now;
    cluster.startRun('new', ['a']);
    const log = { debug() {}, info() {}, warn() {}, error() {} } as unknown as DeletePhaseDeps['log'];
    const listed = { view: { targets: [target('a')], runs: [run('r', ['a'])], namespaces: new Map() }, readAt: started - 10_000, readMs: 0 };
    const dated = await time.run(
      refreshView({ cluster: cluster.api, now: () => new Date(time.now), log }, PIPELINERESOURCE_APIS, listed, { scope: SCOPE, namespaces: ['ci'] }),
    );
    assert.equal(dated.readAt, started);
    assert.equal(dated.readMs, 3_000);
    assert.equal(time.now, started + 3_000);
    assert.deepEqual(dated.view.runs.map((record) => record.name).sort(), ['new', 'r']);
  });
});

// ---- On a clock that stands still: collector by collector, holders, claims left Terminating, caps ----

const LEFTOVER_APIS: ServedApis = {
  targets: {
    'affinity-assistants': { group: 'apps', version: 'v1', plural: 'statefulsets' },
    'pac-secrets': { group: '', version: 'v1', plural: 'secrets' },
    'workspace-pvcs': { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
    'resolution-requests': { group: 'resolution.tekton.dev', version: 'v1beta1', plural: 'resolutionrequests' },
  },
  runs: {
    PipelineRun: { resource: { group: 'tekton.dev', version: 'v1', plural: 'pipelineruns' } },
    TaskRun: { resource: { group: 'tekton.dev', version: 'v1', plural: 'taskruns' } },
  },
  pods: { group: '', version: 'v1', plural: 'pods' },
  statefulSets: { group: 'apps', version: 'v1', plural: 'statefulsets' },
  leftovers: true,
  skipped: [],
};
const PROTECTION = 'kubernetes.io/pvc-protection';

/** What the fake API server holds; every request the phase makes is written down in order. */
class RecordingCluster {
  readonly requests: string[] = [];
  readonly purges: { name: string; seen: Remaining }[] = [];
  /** Per target name: what its DELETE answers (default: deleted), or a refusal. */
  readonly onDelete = new Map<string, TargetDeleteOutcome | KubeError>();
  readonly onPurge = new Map<string, TargetDeleteOutcome>();
  /** The claims as a re-check lists them again: none unless a test sets them. */
  claims: TargetRecord[] = [];
  /** Runs created since the listing: a re-check reads them as changed, a read by name finds them. */
  created: RunRecord[] = [];
  /** Set: a read of runs by name fails with it. */
  runsNamedFails: KubeError | undefined;

  constructor(
    public pods: PodRecord[],
    public statefulSets: StatefulSetRecord[],
  ) {}

  readonly api: DeletePhaseDeps['cluster'] = {
    runsChangedSince: () => {
      this.requests.push('list runs');
      return Promise.resolve({ changed: [...this.created], goneUids: new Set<string>(), changedTargets: [] });
    },
    runsNamed: (_apis, namespace, name, kinds = ['PipelineRun', 'TaskRun']) => {
      this.requests.push(`get ${kinds.join(',')} named ${name}`);
      if (this.runsNamedFails !== undefined) return Promise.reject(this.runsNamedFails);
      const known = [PR, ...this.created].filter((run) => run.namespace === namespace && run.name === name && kinds.includes(run.kind));
      return Promise.resolve(known.map((run) => ({ namespace: run.namespace, name: run.name, uid: run.uid, resourceVersion: run.resourceVersion })));
    },
    readNamespaces: () => Promise.resolve(new Map()),
    listPods: (_apis, _scope, namespaces) => {
      this.requests.push(`list pods ${namespaces.join(',')}`);
      return Promise.resolve(this.pods.filter((held) => namespaces.includes(held.namespace)));
    },
    listStatefulSets: (_apis, _scope, namespaces) => {
      this.requests.push(`list statefulsets ${namespaces.join(',')}`);
      return Promise.resolve(this.statefulSets.filter((sts) => namespaces.includes(sts.namespace)));
    },
    listClaims: (_apis, _scope, namespaces) => {
      this.requests.push(`list claims ${namespaces.join(',')}`);
      return Promise.resolve(this.claims.filter((listed) => namespaces.includes(listed.namespace)));
    },
    readTarget: () => Promise.resolve(null),
    deleteTarget: (_apis, record) => {
      this.requests.push(`delete ${record.kind} ${record.name}`);
      const answer = this.onDelete.get(record.name) ?? { outcome: 'deleted' };
      if (answer instanceof KubeError) return Promise.reject(answer);
      // A StatefulSet deleted is gone from the next list of StatefulSets.
      if (answer.outcome === 'deleted') this.statefulSets = this.statefulSets.filter((sts) => sts.uid !== record.uid);
      return Promise.resolve(answer);
    },
    purgeClaimProtection: (_apis, record, seen) => {
      this.requests.push(`patch ${record.name}`);
      this.purges.push({ name: record.name, seen });
      return Promise.resolve(this.onPurge.get(record.name) ?? { outcome: 'deleted' });
    },
  };
}

/** A finished PipelineRun that owns everything below, run as a pass would: decide, then delete. */
const PR = lrun('pr-1', { state: 'succeeded' });

async function pass(
  targets: readonly TargetRecord[],
  cluster: RecordingCluster,
  pvcFinalizer: 'keep' | 'purge' = 'keep',
): Promise<{ decisions: Decision[]; results: Map<string, Result>; byName: (name: string) => { result: Result | undefined; decision: Decision | undefined } }> {
  const view: ClusterView = { targets, runs: [PR], namespaces: new Map(), pods: cluster.pods, statefulSets: cluster.statefulSets };
  const decisions = decideBounded(view, POLICY_NOW, NOW);
  const logs: string[] = [];
  const log = { debug: () => undefined, info: (_f: unknown, m?: string) => logs.push(m ?? ''), warn: () => undefined, error: () => undefined };
  const outcome = await deleteCandidates(
    { cluster: cluster.api, now: () => NOW, log, signal: new AbortController().signal, sleep: () => Promise.resolve() },
    LEFTOVER_APIS,
    { policy: POLICY_NOW, scope: SCOPE, view: { view, readAt: NOW.getTime(), readMs: 1 }, decisions, limits: { qps: 1000, concurrency: 4, maxAttempts: 1, maxConsecutiveFailures: 5 }, pvcFinalizer },
  );
  const byName = (name: string): { result: Result | undefined; decision: Decision | undefined } => {
    const decision = outcome.decisions.find((one) => one.target.name === name);
    return { decision, result: decision === undefined ? undefined : outcome.results.get(decision.target.uid) };
  };
  return { decisions: outcome.decisions, results: outcome.results, byName };
}

describe('delete phase: collector by collector, holders re-read, claims left Terminating', () => {
  const sts = affinityStatefulSet('affinity-assistant-0123456789', PR);
  const stsClaim = affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1');
  const holding = statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'], { uid: sts.uid });

  /**
   * A rerun by name (a PipelineRun deleted and created again with its name) reads its
   * predecessor's ResolutionRequest: Tekton finds a request by a name made of the run's name
   * and its params. One created after the view was read is found by a read of the runs of the
   * owner's name right before the request's DELETE, and the request is decided on again.
   */
  const request = (name: string): TargetRecord => leftover('ResolutionRequest', name, { ownerReferences: [{ kind: 'PipelineRun', name: PR.name, uid: PR.uid, controller: true }] });

  it("keeps a ResolutionRequest a rerun by name created since the view was read reads: its runs by name are read right before the DELETE, then the view again", async () => {
    const cluster = new RecordingCluster([], []);
    cluster.created = [activeLrun(PR.name, { uid: 'uid-pr-1-rerun', resourceVersion: '77' })];
    // The request alone: no earlier collector's deletes expire the view, so only the read by name can see the rerun.
    const { byName } = await pass([request('cluster-0a1b')], cluster);
    // Kept by a fresh decision: no result of the delete phase, the decision says why.
    assert.equal(byName('cluster-0a1b').result, undefined);
    assert.equal(byName('cluster-0a1b').decision?.action, 'keep');
    assert.equal(byName('cluster-0a1b').decision?.message, `read by active PipelineRun ${PR.name} (running), same name as its owner (seen when re-checking before deleting)`);
    assert.deepEqual(cluster.requests, [`get PipelineRun named ${PR.name}`, 'list runs']);
  });

  it('deletes a ResolutionRequest when the only run of its owner’s name is the one the view holds, after reading it by name', async () => {
    const cluster = new RecordingCluster([], []);
    const { byName } = await pass([request('cluster-0a1b')], cluster);
    assert.equal(byName('cluster-0a1b').result, 'deleted');
    assert.deepEqual(cluster.requests, [`get PipelineRun named ${PR.name}`, `get TaskRun named ${PR.name}`, 'delete ResolutionRequest cluster-0a1b']);
  });

  it('does not delete a ResolutionRequest when its runs by name cannot be read, and says why', async () => {
    const cluster = new RecordingCluster([], []);
    cluster.runsNamedFails = new KubeError(403, { verb: 'get', resource: 'pipelineruns.tekton.dev', namespace: 'ci' }, 'forbidden');
    const { byName } = await pass([request('cluster-0a1b')], cluster);
    assert.equal(byName('cluster-0a1b').result, 'failed');
    assert.match(byName('cluster-0a1b').decision?.message ?? '', /; not deleted: reading the runs a rerun by name would be before deleting failed: .*forbidden/);
    assert.ok(!cluster.requests.some((entry) => entry.startsWith('delete')), cluster.requests.join('; '));
  });

  // Each kind a rerun by name finds by name gets the same last read (docs/spec.md, "Reruns by name"); a claim named after its owner's uid none.
  const rerun = (): RunRecord => activeLrun(PR.name, { uid: 'uid-pr-1-rerun', resourceVersion: '77' });
  const lastReads: readonly { row: string; target: () => TargetRecord; reads: string[]; kept: string; rerun?: RunRecord }[] = [
    {
      row: "an affinity assistant's StatefulSet: Tekton gets it by a name made of the PipelineRun's name and uses it as it is",
      target: () => sts,
      reads: [`get PipelineRun named ${PR.name}`],
      kept: `made for active PipelineRun ${PR.name} (running) (seen when re-checking before deleting)`,
    },
    {
      row: 'a git-auth Secret: a rerun made from its predecessor names it in its workspaces and annotation',
      target: () => pacSecret('pac-gitauth-abcdef', PR),
      reads: [`get PipelineRun named ${PR.name}`],
      rerun: activeLrun(PR.name, { uid: 'uid-pr-1-rerun', resourceVersion: '77', gitAuthSecret: 'pac-gitauth-abcdef' }),
      kept: `named as the git-auth Secret of active PipelineRun ${PR.name} (running) (seen when re-checking before deleting)`,
    },
    {
      row: "a request of the predecessor's child TaskRun: the PipelineRun the view holds whose child has that name, and the owner's name of either kind",
      target: () => leftover('ResolutionRequest', 'cluster-0c1d', { ownerReferences: [{ kind: 'TaskRun', name: `${PR.name}-fetch`, uid: 'uid-fetch-old', controller: true }] }),
      reads: [`get PipelineRun named ${PR.name}-fetch`, `get TaskRun named ${PR.name}-fetch`, `get PipelineRun named ${PR.name}`],
      kept: `read by active PipelineRun ${PR.name} (running), whose child run would have its owner's name (seen when re-checking before deleting)`,
    },
  ];
  for (const { row, target, reads, kept, rerun: made } of lastReads) {
    it(`reads the runs a rerun by name would be right before the DELETE: ${row}`, async () => {
      const quiet = new RecordingCluster([], []);
      const deleted = await pass([target()], quiet);
      assert.equal(deleted.byName(target().name).result, 'deleted');
      assert.deepEqual(quiet.requests, [...reads, `delete ${target().kind} ${target().name}`]);

      const racing = new RecordingCluster([], []);
      racing.created = [made ?? rerun()];
      const { byName } = await pass([target()], racing);
      assert.ok(!racing.requests.some((entry) => entry.startsWith('delete')), racing.requests.join('; '));
      assert.equal(byName(target().name).decision?.message, kept);
    });
  }

  it('deletes a git-auth Secret when the run made since the view, of its owner’s name, does not name it: the view is read again and decides', async () => {
    const cluster = new RecordingCluster([], []);
    cluster.created = [rerun()];
    const { byName } = await pass([pacSecret('pac-gitauth-abcdef', PR)], cluster);
    assert.equal(byName('pac-gitauth-abcdef').result, 'deleted');
    assert.deepEqual(cluster.requests.slice(0, 2), [`get PipelineRun named ${PR.name}`, 'list runs']);
  });

  it('reads nothing by name before deleting a claim named after its owner’s uid: no rerun makes it again', async () => {
    const cluster = new RecordingCluster([], []);
    const { byName } = await pass([claim('pvc-0123abcd', PR)], cluster);
    assert.equal(byName('pvc-0123abcd').result, 'deleted');
    assert.ok(!cluster.requests.some((entry) => entry.startsWith('get')), cluster.requests.join('; '));
  });

  it('deletes collector by collector (StatefulSets, Secrets, claims) and re-reads Pods and StatefulSets before the claims', async () => {
    const cluster = new RecordingCluster([], [holding]);
    const { byName } = await pass([claim('ws-pvc', PR), pacSecret('pac-gitauth-abcdef', PR), sts, stsClaim], cluster);
    const deletes = cluster.requests.filter((request) => request.startsWith('delete'));
    assert.deepEqual(deletes, [
      'delete StatefulSet affinity-assistant-0123456789',
      'delete Secret pac-gitauth-abcdef',
      'delete PersistentVolumeClaim pvc-0123abcd-affinity-assistant-0123456789-0',
      'delete PersistentVolumeClaim ws-pvc',
    ]);
    // The claims' re-check reads StatefulSets after the StatefulSet's delete settled.
    const lastStsDelete = cluster.requests.indexOf('delete StatefulSet affinity-assistant-0123456789');
    const firstClaimDelete = cluster.requests.findIndex((request) => request.startsWith('delete PersistentVolumeClaim'));
    const relisted = cluster.requests.slice(lastStsDelete, firstClaimDelete);
    assert.ok(relisted.includes('list statefulsets ci') && relisted.includes('list pods ci'), relisted.join('; '));
    for (const name of ['affinity-assistant-0123456789', 'pac-gitauth-abcdef', 'ws-pvc']) assert.equal(byName(name).result, 'deleted', name);
  });

  it("keeps a claim whose Unused condition turned False since the listing: the re-check lists the candidates' claims again; the others' DELETE carries the listed resourceVersion", async () => {
    const cluster = new RecordingCluster([], []);
    const [turned, free] = [claim('pvc-turned', PR), claim('pvc-free', PR)];
    cluster.claims = [
      { ...turned, resourceVersion: '99', leftover: { marker: 'owned', inUseCondition: { reason: 'PodUsingPVC', since: '2026-11-29T11:00:00Z' } } },
      { ...free, resourceVersion: '98', leftover: { marker: 'owned' } },
    ];
    // A Secret first: the claims are re-checked on a view read after it settled.
    const { byName } = await pass([pacSecret('pac-gitauth-abcdef', PR), turned, free], cluster);
    assert.ok(cluster.requests.indexOf('list claims ci') < cluster.requests.indexOf('delete PersistentVolumeClaim pvc-free'), cluster.requests.join('; '));
    assert.equal(cluster.requests.includes('delete PersistentVolumeClaim pvc-turned'), false);
    assert.equal(byName('pvc-turned').result, undefined);
    assert.equal(byName('pvc-turned').decision?.reason, 'in-use-by-pod');
    assert.equal(byName('pvc-turned').decision?.message, 'in use by a Pod, by its Unused=False condition (PodUsingPVC) since 2026-11-29T11:00:00Z (seen when re-checking before deleting)');
    assert.equal(byName('pvc-free').result, 'deleted');
    assert.equal(byName('pvc-free').decision?.target.resourceVersion, free.resourceVersion);
  });

  it('keeps a claim whose StatefulSet was decided for deletion but stays (its delete failed): it still holds the claim', async () => {
    const cluster = new RecordingCluster([], [holding]);
    cluster.onDelete.set(sts.name, new KubeError(403, { verb: 'delete', resource: 'statefulsets.apps', namespace: 'ci' }, 'forbidden'));
    const { byName } = await pass([sts, stsClaim], cluster);
    assert.equal(byName(sts.name).result, 'failed');
    assert.equal(cluster.requests.some((request) => request === `delete PersistentVolumeClaim ${stsClaim.name}`), false);
    const { decision, result } = byName(stsClaim.name);
    assert.equal(result, undefined);
    assert.equal(decision?.reason, 'in-use-by-statefulset');
  });

  it('reports a claim its DELETE leaves Terminating as terminating, held by the Pods that name it (keep mode: no patch)', async () => {
    const holder = pod('build-pod', { claims: ['ws-pvc'], phase: 'Succeeded' });
    const cluster = new RecordingCluster([holder], []);
    cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
    const { byName } = await pass([claim('ws-pvc', PR)], cluster);
    const { result, decision } = byName('ws-pvc');
    assert.equal(result, 'terminating');
    assert.deepEqual(decision?.heldBy, [{ kind: 'Pod', name: 'build-pod', phase: 'Succeeded' }]);
    assert.equal(cluster.purges.length, 0);
  });

  it('sends nothing for a claim already Terminating in keep mode, and reports it terminating', async () => {
    const cluster = new RecordingCluster([], []);
    const { byName } = await pass([claim('ws-pvc', PR, { deletionTimestamp: '2026-11-29T11:00:00Z' })], cluster);
    assert.equal(byName('ws-pvc').result, 'terminating');
    assert.deepEqual(cluster.requests.filter((request) => request.startsWith('delete') || request.startsWith('patch')), []);
  });

  it('purge: removes the finalizer with the resourceVersion of the DELETE answer once every Pod naming the claim has finished', async () => {
    const cluster = new RecordingCluster([pod('build-pod', { claims: ['ws-pvc'], phase: 'Succeeded' }), pod('other', { claims: ['other-pvc'] })], []);
    cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
    const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
    assert.deepEqual(cluster.purges, [{ name: 'ws-pvc', seen: { resourceVersion: '8', finalizers: [PROTECTION] } }]);
    assert.equal(byName('ws-pvc').result, 'deleted');
    // The Pods were listed again between the DELETE and the patch.
    const at = cluster.requests.indexOf('delete PersistentVolumeClaim ws-pvc');
    assert.deepEqual(cluster.requests.slice(at + 1), ['list pods ci', 'patch ws-pvc']);
  });

  it('purge: no patch while a Pod naming the claim runs (or has no phase yet); terminating, held by it', async () => {
    for (const phase of ['Running', undefined]) {
      const running = pod('build-pod', { claims: ['ws-pvc'], ...(phase === undefined ? { phase: undefined } : { phase }) });
      const cluster = new RecordingCluster([], []);
      cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
      // The Pod appears after the listing: only the purge's own list sees it.
      const api = cluster.api;
      cluster.pods = [];
      const listPods = api.listPods;
      api.listPods = (...args) => {
        cluster.pods = [running];
        return listPods(...args);
      };
      const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
      assert.equal(cluster.purges.length, 0, String(phase));
      const { result, decision } = byName('ws-pvc');
      assert.equal(result, 'terminating');
      assert.deepEqual(decision?.heldBy, [running.phase === undefined ? { kind: 'Pod', name: 'build-pod' } : { kind: 'Pod', name: 'build-pod', phase: 'Running' }]);
    }
  });

  it('purge: a claim already Terminating gets no DELETE, only the patch, with the resourceVersion and finalizers it was listed with', async () => {
    const snapshot = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
    const cluster = new RecordingCluster([], []);
    cluster.onPurge.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '9', finalizers: [snapshot] } });
    const { byName } = await pass([claim('ws-pvc', PR, { deletionTimestamp: '2026-11-29T11:00:00Z', resourceVersion: '5', finalizers: [snapshot, PROTECTION] })], cluster, 'purge');
    assert.equal(cluster.requests.some((request) => request.startsWith('delete')), false);
    assert.deepEqual(cluster.purges, [{ name: 'ws-pvc', seen: { resourceVersion: '5', finalizers: [snapshot, PROTECTION] } }]);
    // Another finalizer holds it: never touched, still terminating.
    assert.equal(byName('ws-pvc').result, 'terminating');
  });

  it('purge: a claim changed since it was seen (409/422) is changed, and one gone before the patch is deleted', async () => {
    for (const [purged, expected] of [[{ outcome: 'changed' }, 'changed'], [{ outcome: 'gone' }, 'deleted']] as const) {
      const cluster = new RecordingCluster([], []);
      cluster.onDelete.set('ws-pvc', { outcome: 'terminating', remaining: { resourceVersion: '8', finalizers: [PROTECTION] } });
      cluster.onPurge.set('ws-pvc', purged);
      const { byName } = await pass([claim('ws-pvc', PR)], cluster, 'purge');
      assert.equal(byName('ws-pvc').result, expected);
    }
  });
});

describe('caps', () => {
  const terminating = { deletionTimestamp: '2026-11-29T11:00:00Z' };
  const decisionsOf = (targets: readonly TargetRecord[]): Decision[] =>
    decideBounded({ targets, runs: [PR], namespaces: new Map(), pods: [], statefulSets: [] }, POLICY_NOW, NOW).filter((decision) => decision.action === 'delete');
  const six = decisionsOf(Array.from({ length: 6 }, (_, index) => claim(`pvc-${index}`, PR)));

  it('counts one per target acted on; a claim already Terminating counts only under purge', () => {
    const mixed = decisionsOf([claim('a', PR), claim('b', PR, terminating), pacSecret('pac-gitauth-x', PR)]);
    assert.equal(mixed.length, 3);
    assert.equal(countedCandidates(mixed, 'keep').length, 2);
    assert.equal(countedCandidates(mixed, 'purge').length, 3);
  });

  it('sentNothing: a target already being deleted is sent nothing, but a claim under purge (its finalizer is removed)', () => {
    const rows: [TargetRecord, 'keep' | 'purge', boolean][] = [
      [claim('a', PR), 'keep', false], // not being deleted: its DELETE
      [claim('b', PR, terminating), 'keep', true], // keep mode: nothing
      [claim('b', PR, terminating), 'purge', false], // purge: the finalizer's patch
      [pacSecret('pac-gitauth-x', PR, terminating), 'purge', true], // no finalizer of ours to remove on any other kind
      [runTarget('pr-going', { deleting: true }), 'keep', true], // a run being deleted
      [runTarget('pr-going', { deleting: true }), 'purge', true],
    ];
    for (const [target, mode, expected] of rows) assert.equal(sentNothing(target, mode), expected, `${target.kind} ${target.name} ${mode}`);
  });

  it('six deletable claims over workspace-pvcs=5: that cap, and only it, is exceeded', () => {
    assert.deepEqual(capBreaches(six, { maxDeletions: 1000, maxDeletionsPerKind: { 'workspace-pvcs': 5, 'pac-secrets': 0 }, maxCascadeDeletions: 20000, pvcFinalizer: 'keep' }), [
      { flag: '--max-deletions-per-kind workspace-pvcs=5', limit: 5, count: 6, collector: 'workspace-pvcs' },
    ]);
    assert.deepEqual(capBreaches(six, { maxDeletions: 1000, maxDeletionsPerKind: { 'workspace-pvcs': 6 }, maxCascadeDeletions: 20000, pvcFinalizer: 'keep' }), []);
  });

  it('--max-deletions counts every collector, and both caps may be exceeded at once', () => {
    const all = [...six, ...decisionsOf([pacSecret('pac-gitauth-x', PR)])];
    assert.deepEqual(capBreaches(all, { maxDeletions: 6, maxDeletionsPerKind: { 'pac-secrets': 0 }, maxCascadeDeletions: 20000, pvcFinalizer: 'keep' }), [
      { flag: '--max-deletions 6', limit: 6, count: 7 },
      { flag: '--max-deletions-per-kind pac-secrets=0', limit: 0, count: 1, collector: 'pac-secrets' },
    ]);
  });

  it('already-Terminating claims in keep mode do not count against a cap', () => {
    const waiting = decisionsOf(Array.from({ length: 6 }, (_, index) => claim(`pvc-${index}`, PR, terminating)));
    assert.deepEqual(capBreaches(waiting, { maxDeletions: 0, maxDeletionsPerKind: { 'workspace-pvcs': 0 }, maxCascadeDeletions: 20000, pvcFinalizer: 'keep' }), []);
    assert.equal(capBreaches(waiting, { maxDeletions: 0, maxCascadeDeletions: 20000, pvcFinalizer: 'purge' }).length, 1);
  });

  it('--max-cascade-deletions counts what goes with the candidates, apart from the candidates themselves', () => {
    // Two runs' decisions as core/cascade.ts counts them: 3 + 4 objects go with them.
    const [first, second] = six;
    assert.ok(first !== undefined && second !== undefined);
    const withCascades = [
      { ...first, cascade: { objects: { TaskRun: 1, Pod: 1, PersistentVolumeClaim: 1 }, bytes: 1024 } },
      { ...second, cascade: { objects: { TaskRun: 2, Pod: 2 } } },
    ];
    assert.equal(cascadeCount(withCascades), 7);
    assert.deepEqual(capBreaches(withCascades, { maxDeletions: 2, maxCascadeDeletions: 6, pvcFinalizer: 'keep' }), [
      { flag: '--max-cascade-deletions 6', limit: 6, count: 7, cascade: true },
    ]);
    assert.deepEqual(capBreaches(withCascades, { maxDeletions: 2, maxCascadeDeletions: 7, pvcFinalizer: 'keep' }), []);
    // A leftover's own decision carries no cascade.
    assert.equal(cascadeCount(six), 0);
    assert.equal(breachText({ flag: '--max-cascade-deletions 6', limit: 6, count: 7, cascade: true }), '7 objects with its runs, more than --max-cascade-deletions 6');
  });
});

// Smoke test of the benchmark (issue 6) at a tiny size: it seeds, measures the read floor,
// runs the built collector dry and live, and prints its table and JSON line. The facts of
// the run are asserted against what the seeded shape must give: every object read, pages
// of the size asked for, each target decided as docs/spec.md decides it from the plan, every
// orphan deleted, exactly the requests the collector must make, --qps held.
// No duration is asserted: the figures belong to bench/RESULTS.md, not to a test on a
// shared machine.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { childrenOf, leftoverTotals, planLeftoverNamespace, podsOf, podsOfRun, type LeftoverRunPlan } from '../../bench/leftovers.js';
import { planNamespace, type ClusterShape, type RunPhase } from '../../bench/objects.js';
import { RUN_COLLECT_ARGS, RUNS_SHAPE, type ExpectedRunSummary } from '../../bench/runs.js';
import { readsPerNamespace } from '../../src/kube/cluster.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const TARGETS = 60;
const RUNS = 160;
const NAMESPACES = 3;
const LIVE_DELETES = 40;
const QPS = 50;
/** Small pages, so that every list is paged: 60 targets in 2, 40 PipelineRuns in 1, 120 TaskRuns in 3. */
const PAGE_SIZE = 50;
/**
 * What the collector asks for besides its lists of Tekton objects: API discovery (the group
 * and its three versions), the namespaces it counts to choose how to list runs, and the
 * namespaces whose labels it reads.
 */
const DISCOVERY_REQUESTS = 4;
const NAMESPACE_REQUESTS = 2;

/**
 * The dry run's reasons, decided from the bench's plan (bench/objects.ts) by docs/spec.md's rules
 * rather than by the collector: with --min-age 0s and no retain-for, a target is `retained`
 * by its label, else kept while a pending or running run names it, else deleted as
 * `runs-finished` when a finished run names it, else as `unreferenced`. Child TaskRuns
 * embed their resources and name nothing. (At the default size this gives RESULTS.md's
 * 500 / 1,865 / 6,385 / 1,250.)
 */
function expectedReasons(shape: ClusterShape): Record<string, number> {
  const isActive = (phase: RunPhase): boolean => phase === 'pending' || phase === 'running';
  const reasons: Record<string, number> = {};
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planNamespace(shape, index);
    const namedBy = { active: new Set<string>(), finished: new Set<string>() };
    for (const run of plan.pipelineRuns) for (const name of run.resources) namedBy[isActive(run.phase) ? 'active' : 'finished'].add(name);
    for (const run of plan.taskRuns) namedBy[isActive(run.phase) ? 'active' : 'finished'].add(run.input);
    for (const target of plan.targets) {
      const reason = target.retained
        ? 'retained'
        : namedBy.active.has(target.name)
          ? 'referenced-by-active-run'
          : namedBy.finished.has(target.name)
            ? 'runs-finished'
            : 'unreferenced';
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
  }
  return reasons;
}

/**
 * Requests of the collector's dry run: its targets across the cluster, then the runs of the
 * namespaces that hold them one namespace at a time (they are NAMESPACES of the
 * NAMESPACES + 4 the server has, under PER_NAMESPACE_READ_SHARE of them), each kind in pages
 * of PAGE_SIZE, at least one per namespace.
 */
function expectedCollectorRequests(shape: ClusterShape): number {
  let runPages = 0;
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planNamespace(shape, index);
    const taskRuns = plan.taskRuns.length + plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
    runPages += Math.max(1, Math.ceil(plan.pipelineRuns.length / PAGE_SIZE)) + Math.max(1, Math.ceil(taskRuns / PAGE_SIZE));
  }
  return DISCOVERY_REQUESTS + NAMESPACE_REQUESTS + Math.max(1, Math.ceil(shape.targets / PAGE_SIZE)) + runPages;
}

/** Pages the read floor asks for: each collection in pages of PAGE_SIZE, at least one. */
function expectedFloorPages(shape: ClusterShape): number {
  let pipelineRuns = 0;
  let taskRuns = 0;
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planNamespace(shape, index);
    pipelineRuns += plan.pipelineRuns.length;
    taskRuns += plan.taskRuns.length + plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
  }
  return [shape.targets, pipelineRuns, taskRuns].reduce((sum, count) => sum + Math.max(1, Math.ceil(count / PAGE_SIZE)), 0);
}

function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'bench.ts'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

interface BenchLine {
  bench: string;
  machine: { cpus: number };
  command: string;
  nodeFlags: string[];
  pageSize: number;
  watchCache: boolean;
  results: {
    scale: number;
    targets: number;
    runs: number;
    seed: { reused: boolean; objects?: number };
    floor: { ms: number; bytes: number; requests: number; items: number };
    dryRun: {
      ms: number;
      maxRssBytes: number;
      requests: number;
      retries: number;
      bytesReceived: number;
      ratio: number;
      summary: { targets: number; runs: number; delete: number; keep: number; reasons: Record<string, number> };
    };
    live: { deletes: number; deleted: number; qps: number; achievedQps: number; withinTenPercent: boolean; requests: number; results: Record<string, number> };
    load: { before: number[]; after: number[] };
  }[];
}

test('npm run bench at a tiny size seeds, measures and prints a table and one JSON line', { timeout: 600_000 }, async () => {
  const { code, stdout, stderr } = await runBench([
    '--targets', String(TARGETS),
    '--runs', String(RUNS),
    '--namespaces', String(NAMESPACES),
    '--live-deletes', String(LIVE_DELETES),
    '--qps', String(QPS),
    '--page-size', String(PAGE_SIZE),
    '--repeat', '1',
  ]);
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /floor.*dry run.*ratio.*peak RSS/, 'the table comes first');
  const line = JSON.parse(lines.at(-1) ?? '') as BenchLine;
  assert.equal(line.bench, 'tekton-resource-gc');
  assert.ok(line.machine.cpus > 0);
  // Measured as the image runs it: the flags of the Dockerfile's ENTRYPOINT, and no watch cache.
  assert.deepEqual(line.nodeFlags, ['--enable-source-maps', '--max-semi-space-size=4', '--optimize-for-size']);
  assert.equal(line.watchCache, false);
  assert.equal(line.pageSize, PAGE_SIZE);
  assert.equal(line.results.length, 1);
  const [result] = line.results;
  assert.ok(result !== undefined);
  assert.deepEqual([result.scale, result.targets, result.runs], [1, TARGETS, RUNS]);
  assert.deepEqual(result.seed, { ...result.seed, reused: false, objects: TARGETS + RUNS });

  const shape: ClusterShape = { targets: TARGETS, runs: RUNS, namespaces: NAMESPACES, prKb: 8, trKb: 4 };

  // The read floor pages the three collections: every object, in exactly the pages the shape needs.
  assert.equal(result.floor.items, TARGETS + RUNS);
  assert.equal(result.floor.requests, expectedFloorPages(shape));
  assert.ok(result.floor.bytes > 0 && result.floor.ms > 0);

  // The dry run saw the same objects, through the CLI's own summary line, and decided each
  // target as docs/spec.md decides it from the plan.
  const reasons = expectedReasons(shape);
  const deletes = (reasons['runs-finished'] ?? 0) + (reasons['unreferenced'] ?? 0);
  assert.equal(result.dryRun.summary.targets, TARGETS);
  assert.equal(result.dryRun.summary.runs, RUNS);
  assert.deepEqual(result.dryRun.summary.reasons, reasons);
  assert.deepEqual([result.dryRun.summary.delete, result.dryRun.summary.keep], [deletes, TARGETS - deletes]);
  assert.ok(deletes > 0 && deletes < TARGETS, `the mix has targets to delete and to keep: ${JSON.stringify(reasons)}`);
  assert.ok(result.dryRun.ms > 0 && result.dryRun.maxRssBytes > 0 && result.dryRun.ratio > 0);
  // Every object in pages, the runs one namespace at a time, plus discovery and the namespaces,
  // and nothing read twice.
  assert.equal(result.dryRun.retries, 0);
  assert.ok(readsPerNamespace(NAMESPACES, NAMESPACES + 4), 'the runs are read one namespace at a time');
  assert.equal(result.dryRun.requests, expectedCollectorRequests(shape), `the dry run made ${result.dryRun.requests} requests, the floor ${result.floor.requests}`);
  assert.ok(result.dryRun.bytesReceived >= result.floor.bytes);

  // The live pass deleted every seeded orphan, each with a request of its own.
  assert.equal(result.live.deleted, LIVE_DELETES);
  assert.deepEqual(result.live.results, { deleted: LIVE_DELETES });
  assert.ok(result.live.requests > LIVE_DELETES, `${result.live.requests} requests for ${LIVE_DELETES} deletes and the listing`);
  assert.equal(result.live.qps, QPS);
  // The rate is reported, not held to 10% here; but --qps is a ceiling: 40 deletes started
  // 20 ms apart cannot finish at twice the rate unless the first one took some 400 ms longer
  // than the last, while a collector that ignored --qps deletes them at hundreds per second.
  assert.ok(result.live.achievedQps > 0 && result.live.achievedQps <= 2 * QPS, `${result.live.achievedQps} deletes/s at --qps ${QPS}`);
  assert.equal(typeof result.live.withinTenPercent, 'boolean');
  assert.equal(result.load.before.length, 3);
});

// The leftovers shape (issue 14) at a tiny size: no PipelineResources; claims, Pipelines-as-Code
// Secrets, Pods and affinity-assistant StatefulSets beside the runs (bench/leftovers.ts).
const LEFTOVER_RUNS = 400;
const LEFTOVER_CLAIMS = 120;
const LEFTOVER_SECRETS = 120;
/**
 * Discovery with leftover collectors on a current Tekton's server: the tekton.dev group and
 * its two versions (no PipelineResource CRD), then /api/v1 and /apis/apps/v1, where claims,
 * Secrets, Pods and StatefulSets are served.
 */
const LEFTOVER_DISCOVERY_REQUESTS = 5;
const GI = 1024 ** 3;

/**
 * The dry run's decisions, by kind and reason, and the bytes of the claims it would delete,
 * decided from the plan by docs/spec.md's leftover rules rather than by the collector (with
 * --min-age 0s and no retention): a claim or Secret is kept while a run linked to it is active
 * (its owner, the owner's child TaskRuns bound to it), then while a Pod that has not finished
 * uses it; it is deleted as runs-finished when every linked run has finished, as owner-gone when
 * its owner (by ownerReference, or an affinity assistant's claim by its label) is gone, as
 * unreferenced when nothing links it. An affinity assistant is kept while its PipelineRun runs.
 */
function expectedLeftoverDecisions(shape: ClusterShape): { byKind: Record<string, { targets: number; delete: number; keep: number }>; reasons: Record<string, number>; candidateBytes: number } {
  const byKind: Record<string, { targets: number; delete: number; keep: number }> = {};
  const reasons: Record<string, number> = {};
  let candidateBytes = 0;
  const decide = (kind: string, reason: string, bytes = 0): void => {
    const action = ['runs-finished', 'owner-gone', 'unreferenced'].includes(reason) ? 'delete' : 'keep';
    const counts = (byKind[kind] ??= { targets: 0, delete: 0, keep: 0 });
    counts.targets++;
    counts[action]++;
    reasons[reason] = (reasons[reason] ?? 0) + 1;
    if (action === 'delete') candidateBytes += bytes;
  };
  const isActive = (phase: RunPhase): boolean => phase === 'pending' || phase === 'running';
  // A run's links are itself and its children, bound to its claim and its Secret by name.
  const linkedActive = (run: LeftoverRunPlan): boolean => isActive(run.phase) || childrenOf(run).some((child) => isActive(child.phase));
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planLeftoverNamespace(shape, index);
    for (const run of [...plan.pipelineRuns, ...plan.taskRuns]) {
      // The Pods that have not finished and name this run's claim or Secret: its running TaskRuns', a debug Pod.
      const runningPods = podsOfRun(run).filter((pod) => pod.phase === 'Running');
      if (run.claim !== undefined) {
        const bytes = Number.parseInt(run.claim.storage, 10) * GI;
        const inUse = runningPods.some((pod) => pod.claim);
        decide('PersistentVolumeClaim', linkedActive(run) ? 'referenced-by-active-run' : inUse ? 'in-use-by-pod' : 'runs-finished', bytes);
      }
      if (run.secret !== undefined) {
        const inUse = runningPods.some((pod) => pod.secret === run.secret);
        decide('Secret', linkedActive(run) ? 'referenced-by-active-run' : inUse ? 'in-use-by-pod' : 'runs-finished');
      }
      if (run.kind === 'PipelineRun' && run.phase === 'running' && run.claim !== undefined) decide('StatefulSet', 'referenced-by-active-run');
    }
    for (const gone of plan.goneClaims) decide('PersistentVolumeClaim', 'owner-gone', Number.parseInt(gone.storage ?? '', 10) * GI);
    for (const gone of plan.goneSecrets) decide('Secret', gone.link === 'owner' ? 'owner-gone' : 'unreferenced');
  }
  return { byKind, reasons, candidateBytes };
}

/**
 * Requests of the leftovers dry run: discovery and the namespaces; its targets across the
 * cluster in COLLECTOR_NAMES order (the affinity assistants by their label, the Secrets as
 * metadata by theirs, the claims), each in pages of PAGE_SIZE; then in each namespace holding
 * targets (NAMESPACES of NAMESPACES + 4, so one by one) the PipelineRuns, the TaskRuns, the Pods
 * and the StatefulSets, a page each at this size.
 */
function expectedLeftoverRequests(shape: ClusterShape): number {
  const totals = leftoverTotals(shape);
  const pages = (count: number): number => Math.max(1, Math.ceil(count / PAGE_SIZE));
  let perNamespace = 0;
  for (let index = 0; index < shape.namespaces; index++) {
    const plan = planLeftoverNamespace(shape, index);
    const taskRuns = plan.taskRuns.length + plan.pipelineRuns.reduce((sum, run) => sum + run.children, 0);
    perNamespace += pages(plan.pipelineRuns.length) + pages(taskRuns) + pages(podsOf(plan).length) + pages(plan.pipelineRuns.filter((run) => run.phase === 'running' && run.claim !== undefined).length);
  }
  return LEFTOVER_DISCOVERY_REQUESTS + NAMESPACE_REQUESTS + pages(totals.statefulSets) + pages(totals.secrets) + pages(totals.claims) + perNamespace;
}

test('npm run bench --shape leftovers at a tiny size reads and decides every leftover, and its live pass deletes Secrets', { timeout: 600_000 }, async () => {
  const { code, stdout, stderr } = await runBench([
    '--shape', 'leftovers',
    '--runs', String(LEFTOVER_RUNS),
    '--claims', String(LEFTOVER_CLAIMS),
    '--secrets', String(LEFTOVER_SECRETS),
    '--namespaces', String(NAMESPACES),
    '--live-deletes', String(LIVE_DELETES),
    '--qps', String(QPS),
    '--page-size', String(PAGE_SIZE),
    '--repeat', '1',
  ]);
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[1] ?? '', new RegExp(`${LEFTOVER_CLAIMS} PVCs, ${LEFTOVER_SECRETS} Secrets`), 'the table says what the shape seeds');
  const line = JSON.parse(lines.at(-1) ?? '') as BenchLine & {
    results: { leftovers: { claims: number; secrets: number; pods: number; statefulSets: number }; dryRun: { summary: { byKind: Record<string, unknown>; bytes: { candidates: number; released: number; pending: number } } } }[];
  };
  const [result] = line.results;
  assert.ok(result !== undefined);
  const shape: ClusterShape = { targets: 0, runs: LEFTOVER_RUNS, namespaces: NAMESPACES, prKb: 8, trKb: 4, leftovers: { claims: LEFTOVER_CLAIMS, secrets: LEFTOVER_SECRETS } };
  const totals = leftoverTotals(shape);
  assert.deepEqual(result.leftovers, { claims: LEFTOVER_CLAIMS, secrets: LEFTOVER_SECRETS, pods: totals.pods, statefulSets: totals.statefulSets });
  assert.ok(totals.pods > 0 && totals.statefulSets > 0, `the shape has Pods and StatefulSets: ${JSON.stringify(totals)}`);
  const everything = totals.runs + totals.claims + totals.secrets + totals.pods + totals.statefulSets;
  assert.equal(totals.runs, LEFTOVER_RUNS);
  assert.deepEqual(result.seed, { ...result.seed, reused: false, objects: everything });

  // The floor reads what the dry run must: the claims, the Secrets' metadata, the runs, the Pods and StatefulSets.
  const pages = (count: number): number => Math.max(1, Math.ceil(count / PAGE_SIZE));
  let pipelineRuns = 0;
  for (let index = 0; index < NAMESPACES; index++) pipelineRuns += planLeftoverNamespace(shape, index).pipelineRuns.length;
  assert.equal(result.floor.items, everything);
  assert.equal(result.floor.requests, pages(totals.claims) + pages(totals.secrets) + pages(pipelineRuns) + pages(totals.runs - pipelineRuns) + pages(totals.pods) + pages(totals.statefulSets));

  // The dry run saw every leftover and every run, and decided each as the rules decide it from the plan.
  const expected = expectedLeftoverDecisions(shape);
  const { summary } = result.dryRun;
  assert.equal(summary.targets, totals.claims + totals.secrets + totals.statefulSets);
  assert.equal(summary.runs, LEFTOVER_RUNS);
  assert.deepEqual(summary.byKind, expected.byKind);
  assert.deepEqual(summary.reasons, expected.reasons);
  for (const reason of ['referenced-by-active-run', 'in-use-by-pod', 'runs-finished', 'owner-gone', 'unreferenced']) {
    assert.ok((expected.reasons[reason] ?? 0) > 0, `the mix has ${reason}: ${JSON.stringify(expected.reasons)}`);
  }
  assert.deepEqual(summary.bytes, { candidates: expected.candidateBytes, released: 0, pending: 0 });
  assert.equal(result.dryRun.retries, 0);
  assert.equal(result.dryRun.requests, expectedLeftoverRequests(shape), `the dry run made ${result.dryRun.requests} requests, the floor ${result.floor.requests}`);

  // The live pass deleted every ownerless Secret seeded for it, each with a request of its own.
  assert.deepEqual(result.live.results, { deleted: LIVE_DELETES });
  assert.equal(result.live.deleted, LIVE_DELETES);
  assert.ok(result.live.achievedQps > 0 && result.live.achievedQps <= 2 * QPS, `${result.live.achievedQps} deletes/s at --qps ${QPS}`);
});

// The runs shape (issue 30) at a tiny size: no PipelineResources; PipelineRuns and TaskRuns of
// several Pipelines and Tasks per namespace, collected themselves by the dry run (bench/runs.ts).
const RUN_SHAPE_RUNS = 1000;
/**
 * Besides the runs, a pass that collects only runs asks for discovery (DISCOVERY_REQUESTS)
 * and one list of Namespaces (their labels may set a run policy); it lists the runs across
 * the cluster, as its run collectors want every namespace's.
 */
const RUN_NAMESPACE_REQUESTS = 1;
/**
 * And what a run owns, listed by the retain label (kube/cluster.ts listRetainedOwned): the
 * discovery of core v1, apps/v1 and resolution.tekton.dev/v1beta1, then one list each of Pods,
 * claims, Secrets and StatefulSets (this control plane serves no ResolutionRequests), across
 * the cluster.
 */
const RETAINED_OWNED_REQUESTS = 3 + 4;

test('npm run bench --shape runs at a tiny size reads only the runs and decides them as the shape implies', { timeout: 600_000 }, async () => {
  const { code, stdout, stderr } = await runBench(['--shape', 'runs', '--runs', String(RUN_SHAPE_RUNS), '--namespaces', String(NAMESPACES), '--page-size', String(PAGE_SIZE), '--repeat', '1', '--no-live']);
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  assert.doesNotMatch(stderr, /warning/, 'no summary differs from the shape');
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[1] ?? '', /runs collected/, 'the table says the runs are collected');
  const line = JSON.parse(lines.at(-1) ?? '') as BenchLine & {
    results: { runGroups: { pipelines: number; tasks: number; collect: string[] }; dryRun: { summary: { byKind: Record<string, unknown>; cascade: { runs: number } }; expected: ExpectedRunSummary & { matches: boolean; differences: string[] } } }[];
  };
  const [result] = line.results;
  assert.ok(result !== undefined);
  assert.deepEqual(result.runGroups, { ...RUNS_SHAPE.runGroups, collect: [...RUN_COLLECT_ARGS] });
  const shape: ClusterShape = { targets: 0, runs: RUN_SHAPE_RUNS, namespaces: NAMESPACES, runGroups: { ...RUNS_SHAPE.runGroups }, prKb: 8, trKb: 4 };
  assert.deepEqual(result.seed, { ...result.seed, reused: false, objects: RUN_SHAPE_RUNS });

  // The floor reads the PipelineRuns and the TaskRuns, nothing else, across the cluster.
  const pages = (count: number): number => Math.max(1, Math.ceil(count / PAGE_SIZE));
  let pipelineRuns = 0;
  for (let index = 0; index < NAMESPACES; index++) pipelineRuns += planNamespace(shape, index).pipelineRuns.length;
  assert.equal(result.floor.items, RUN_SHAPE_RUNS);
  assert.equal(result.floor.requests, pages(pipelineRuns) + pages(RUN_SHAPE_RUNS - pipelineRuns));

  // The dry run decided what the shape implies (bench/runs.ts), every reason of the table's
  // rows 4 and 9 to 12 among them, and counted what goes with the runs it would delete.
  const { summary, expected } = result.dryRun;
  assert.equal(expected.matches, true, expected.differences.join('; '));
  assert.deepEqual(
    { targets: summary.targets, runs: summary.runs, delete: summary.delete, keep: summary.keep, reasons: summary.reasons, byKind: summary.byKind },
    { targets: expected.targets, runs: expected.runs, delete: expected.delete, keep: expected.keep, reasons: expected.reasons, byKind: expected.byKind },
  );
  assert.equal(summary.runs, RUN_SHAPE_RUNS);
  for (const reason of ['run-active', 'history-kept', 'history-exceeded', 'ttl-expired', 'ttl-not-reached']) {
    assert.ok((expected.reasons[reason] ?? 0) > 0, `the mix has ${reason}: ${JSON.stringify(expected.reasons)}`);
  }
  assert.equal(summary.cascade.runs, summary.delete);
  // The floor's pages, discovery, the Namespaces and the retained objects: no PipelineResources, nothing read twice.
  assert.equal(result.dryRun.retries, 0);
  assert.equal(result.dryRun.requests, DISCOVERY_REQUESTS + RUN_NAMESPACE_REQUESTS + RETAINED_OWNED_REQUESTS + result.floor.requests, `the dry run made ${result.dryRun.requests} requests, the floor ${result.floor.requests}`);
});

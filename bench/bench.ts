// npm run bench -- [--shape default|skew|leftovers|runs] [--targets N] [--runs N] [--namespaces N]
//   [--target-namespaces N] [--pr-kb 8] [--tr-kb 4] [--run-kb 2,16] [--output json,text]
//   [--node image,plain] [--watch-cache-modes off,on] [--scale 1,2,4] [--repeat 3] [--reuse]
//   [--crossover 5,50,200] ...            (npm run bench -- --help says it all)
//
// Starts the local control plane, seeds it through the API (or reuses seeded data), then
// measures on the same server: the read floor, the collector's dry-run pass (wall time,
// peak RSS, API requests, ratio to the floor) for each variant asked for, and a live pass
// deleting at --qps. Prints a table, then one JSON line on stdout. Progress goes to stderr.
// Results: bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../harness/controlplane.js';
import { deleteRate, imageNodeFlags, median, readFloor, readFloorInChild, runCollector, type CliRun, type FloorReach, type FloorResult } from './measure.js';
import { LEFTOVER_COLLECTORS, leftoverTotals } from './leftovers.js';
import { LIVE_NAMESPACE, namespaceName, targetNamespaceCount, type ClusterShape, type RunGroups } from './objects.js';
import { RUN_COLLECT_ARGS, RUNS_SHAPE, expectedRunSummary, runSummaryDifferences, type ExpectedRunSummary } from './runs.js';
import { RawApi, clearLiveTargets, seedCluster, seedLiveTargets, type SeedResult } from './seed.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = 'npm run bench -- --targets 10000 --runs 40000 --scale 1,2 --reuse';

/** The cluster shapes --shape names; a flag given beside it wins. */
const SHAPES = {
  /** The benchmark's own: targets and runs spread over the same namespaces. */
  default: { targets: 10_000, runs: 40_000, namespaces: 50 },
  /** An upgraded cluster (issue 17): PipelineResources in 5 namespaces, runs in 200. */
  skew: { targets: 5_000, runs: 100_000, namespaces: 200, targetNamespaces: 5 },
  /** A current Tekton's (issue 14): no PipelineResources, the leftovers of its runs (bench/leftovers.ts). */
  leftovers: { targets: 0, runs: 40_000, namespaces: 50, claims: 20_000, secrets: 20_000 },
  /** Runs collected themselves (issue 30): no PipelineResources, 10,000 PipelineRuns and 40,000 TaskRuns (bench/runs.ts). */
  runs: RUNS_SHAPE,
} as const;
type ShapeName = keyof typeof SHAPES;

/** Node.js flags by name: the image's (the Dockerfile's ENTRYPOINT) or none. */
const NODE_FLAG_SETS = ['image', 'plain'] as const;
const OUTPUTS = ['json', 'text'] as const;
type Output = (typeof OUTPUTS)[number];

const HELP = `npm run bench -- [flags]

Seeds a local control plane (etcd + kube-apiserver from the harness) with PipelineResources
and runs shaped like Tekton's, then measures on the same server, in interleaved rounds: the
read floor (paging what must be read, and nothing else, with the same page size and Node.js
flags), the collector's dry run (time, CPU, peak RSS, requests) for every variant asked for,
and a live pass at --qps. A table, then one JSON line with every figure, on stdout.

The cluster:
  --shape NAME            default (${SHAPES.default.targets} targets, ${SHAPES.default.runs} runs in ${SHAPES.default.namespaces} namespaces),
                          skew (${SHAPES.skew.targets} targets in ${SHAPES.skew.targetNamespaces} namespaces, ${SHAPES.skew.runs} runs in ${SHAPES.skew.namespaces}) or
                          leftovers (no PipelineResources: ${SHAPES.leftovers.claims} workspace claims and
                          ${SHAPES.leftovers.secrets} Pipelines-as-Code Secrets beside ${SHAPES.leftovers.runs} runs in ${SHAPES.leftovers.namespaces}
                          namespaces, with the Pods and affinity-assistant StatefulSets that
                          use them; the dry run collects every leftover kind, the live pass
                          deletes Secrets with no owner) or
                          runs (no PipelineResources: ${SHAPES.runs.runs / 5} PipelineRuns and ${(SHAPES.runs.runs * 4) / 5} TaskRuns
                          in ${SHAPES.runs.namespaces} namespaces, a PipelineRun's two children and standalone ones,
                          of ${SHAPES.runs.runGroups.pipelines} Pipelines and ${SHAPES.runs.runGroups.tasks} Tasks per namespace, binding a workspace; --scale 4
                          is 40000 and 160000; the dry run collects the runs themselves with
                          ${RUN_COLLECT_ARGS.join(' ')}
                          (each group's last 10 successes stay, failures go 10 days after they
                          finished) and its summary is checked against the decisions the shape
                          implies, a warning when they differ; the live pass is the default
                          shape's); the flags below override it.
                          default: default
  --targets N             PipelineResources (not in the leftovers or runs shape)
  --claims N              workspace claims (leftovers shape)
  --secrets N             Pipelines-as-Code Secrets (leftovers shape)
  --runs N                PipelineRuns and TaskRuns (a quarter PipelineRuns; a fifth in the
                          runs shape)
  --namespaces N          namespaces holding runs
  --target-namespaces N   how many of them (the first) hold the targets; default: all
  --pr-kb KB              size of a PipelineRun with its status. default: 8
  --tr-kb KB              size of a TaskRun. default: 4
  --run-kb KB[,KB...]     PipelineRuns and TaskRuns both of this size, one cluster each
                          (e.g. 2,4,8,16: a table over run sizes); overrides --pr-kb, --tr-kb
  --scale X[,X...]        targets and runs times X (namespaces stay). default: 1

The variants, each measured on the same server:
  --output F[,F...]       the collector's --output: json, text. default: json
  --node SET[,SET...]     Node.js flags of the collector and the floor: image (the Dockerfile's
                          ENTRYPOINT) or plain (none). default: image
  --node-flags "FLAGS"    these flags instead of --node
  --watch-cache           kube-apiserver with its watch cache (as a real cluster runs it)
  --watch-cache-modes M[,M...]  off, on: a server each. default: off

Measuring:
  --repeat N              interleaved rounds; times are medians. default: 3
  --page-size N           the collector's and the floor's. default: 500
  --qps N                 the live pass's --qps. default: 50
  --live-deletes N        targets the live pass deletes (in ${LIVE_NAMESPACE}). default: 2000
  --no-live               no live pass
  --crossover K[,K...]    also time reading the runs of the first K namespaces one by one
                          against one list across the cluster (the collector's choice,
                          PER_NAMESPACE_READ_SHARE in src/kube/cluster.ts)
  --profile DIR           a CPU profile of one dry run per server and variant
  --reuse                 keep etcd's data per cluster in --data-dir and seed only once
  --data-dir DIR          default: $TMPDIR/trgc-bench
  --seed-concurrency N    default: 24
  --entry dist|src        the built CLI (default) or src/main.ts through tsx
  --no-build              do not run npm run build first

Examples:
  npm run bench -- --reuse --scale 1,4
  npm run bench -- --reuse --run-kb 2,4,8,16 --output json,text --node image,plain
  npm run bench -- --reuse --shape skew --scale 0.1 --crossover 5,50,100,150,200
  npm run bench -- --reuse --watch-cache-modes off,on
  npm run bench -- --reuse --shape leftovers --repeat 3
  npm run bench -- --reuse --shape runs --scale 4 --node image,plain --no-live
`;

interface BenchFlags {
  shapes: ClusterShape[];
  scales: number[];
  outputs: Output[];
  /** Node.js flag sets: a name and the flags. */
  nodeFlagSets: { name: string; flags: string[] }[];
  watchCaches: boolean[];
  qps: number;
  liveDeletes: number;
  live: boolean;
  crossover: number[];
  pageSize: number;
  seedConcurrency: number;
  repeat: number;
  reuse: boolean;
  dataRoot: string;
  profileDir: string | undefined;
  entry: 'dist' | 'src';
  build: boolean;
}

class UsageError extends Error {}

function positive(name: string, text: string, integer = true): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${name} ${text}: expected a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}

function list(text: string): string[] {
  return text.split(',').map((part) => part.trim());
}

function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw new UsageError(`--${name} ${text}: expected ${allowed.join(' or ')}`);
}

function readArgs(args: readonly string[]): Record<string, string | boolean | undefined> {
  const value = { type: 'string' } as const;
  const flag = { type: 'boolean', default: false } as const;
  try {
    return parseArgs({
      args: [...args],
      options: {
        help: flag,
        shape: { type: 'string', default: 'default' },
        targets: value,
        claims: value,
        secrets: value,
        runs: value,
        namespaces: value,
        'target-namespaces': value,
        'pr-kb': { type: 'string', default: '8' },
        'tr-kb': { type: 'string', default: '4' },
        'run-kb': value,
        output: { type: 'string', default: 'json' },
        node: { type: 'string', default: 'image' },
        'node-flags': value,
        'watch-cache': flag,
        'watch-cache-modes': value,
        qps: { type: 'string', default: '50' },
        'live-deletes': { type: 'string', default: '2000' },
        'no-live': flag,
        crossover: value,
        'page-size': { type: 'string', default: '500' },
        'seed-concurrency': { type: 'string', default: '24' },
        repeat: { type: 'string', default: '3' },
        scale: { type: 'string', default: '1' },
        reuse: flag,
        'data-dir': { type: 'string', default: join(tmpdir(), 'trgc-bench') },
        profile: value,
        entry: { type: 'string', default: 'dist' },
        'no-build': flag,
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The clusters to seed: the shape with each run size asked for. */
function parseShapes(values: Record<string, string | boolean | undefined>): ClusterShape[] {
  const shapeName = oneOf<ShapeName>('shape', String(values['shape']), ['default', 'skew', 'leftovers', 'runs']);
  const preset: { targets: number; runs: number; namespaces: number; targetNamespaces?: number; claims?: number; secrets?: number; runGroups?: RunGroups } = SHAPES[shapeName];
  const given = (name: string): number | undefined => (values[name] === undefined ? undefined : positive(name, String(values[name])));
  const leftovers = shapeName === 'leftovers';
  for (const name of leftovers ? ['targets', 'target-namespaces'] : ['claims', 'secrets']) {
    if (values[name] !== undefined) throw new UsageError(`--${name}: ${leftovers ? 'the leftovers shape has no PipelineResources (--claims and --secrets size it)' : 'only with --shape leftovers'}`);
  }
  if (shapeName === 'runs') {
    for (const name of ['targets', 'target-namespaces']) {
      if (values[name] !== undefined) throw new UsageError(`--${name}: the runs shape has no PipelineResources (--runs sizes it)`);
    }
  }
  const base = {
    targets: given('targets') ?? preset.targets,
    runs: given('runs') ?? preset.runs,
    namespaces: given('namespaces') ?? preset.namespaces,
    ...(leftovers && { leftovers: { claims: given('claims') ?? preset.claims ?? 0, secrets: given('secrets') ?? preset.secrets ?? 0 } }),
    ...(preset.runGroups !== undefined && { runGroups: { ...preset.runGroups } }),
  };
  const targetNamespaces = given('target-namespaces') ?? preset.targetNamespaces;
  if (targetNamespaces !== undefined && targetNamespaces > base.namespaces) {
    throw new UsageError(`--target-namespaces ${targetNamespaces}: at most --namespaces (${base.namespaces})`);
  }
  const sizes =
    values['run-kb'] === undefined
      ? [{ prKb: positive('pr-kb', String(values['pr-kb']), false), trKb: positive('tr-kb', String(values['tr-kb']), false) }]
      : list(String(values['run-kb'])).map((kb) => ({ prKb: positive('run-kb', kb, false), trKb: positive('run-kb', kb, false) }));
  return sizes.map((size) => ({ ...base, ...(targetNamespaces !== undefined && { targetNamespaces }), ...size }));
}

function parseNodeFlagSets(values: Record<string, string | boolean | undefined>): BenchFlags['nodeFlagSets'] {
  if (values['node-flags'] !== undefined) {
    return [{ name: 'custom', flags: String(values['node-flags']).split(' ').filter((flag) => flag !== '') }];
  }
  const image = imageNodeFlags(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  return [...new Set(list(String(values['node'])))].map((name) => ({ name, flags: oneOf('node', name, NODE_FLAG_SETS) === 'image' ? image : [] }));
}

function parseWatchCaches(values: Record<string, string | boolean | undefined>): boolean[] {
  if (values['watch-cache-modes'] === undefined) return [values['watch-cache'] === true];
  return [...new Set(list(String(values['watch-cache-modes'])).map((mode) => oneOf('watch-cache-modes', mode, ['off', 'on']) === 'on'))];
}

function parseFlags(args: readonly string[]): BenchFlags | 'help' {
  const values = readArgs(args);
  if (values['help'] === true) return 'help';
  const text = (name: string): string => String(values[name]);
  const entry = text('entry');
  if (entry !== 'dist' && entry !== 'src') throw new UsageError(`--entry ${entry}: expected dist (the built CLI) or src (through tsx)`);
  return {
    shapes: parseShapes(values),
    scales: list(text('scale')).map((part) => positive('scale', part, false)),
    outputs: [...new Set(list(text('output')).map((output) => oneOf('output', output, OUTPUTS)))],
    nodeFlagSets: parseNodeFlagSets(values),
    watchCaches: parseWatchCaches(values),
    qps: positive('qps', text('qps'), false),
    liveDeletes: positive('live-deletes', text('live-deletes')),
    live: values['no-live'] !== true,
    crossover: values['crossover'] === undefined ? [] : list(text('crossover')).map((k) => positive('crossover', k)),
    pageSize: positive('page-size', text('page-size')),
    seedConcurrency: positive('seed-concurrency', text('seed-concurrency')),
    repeat: positive('repeat', text('repeat')),
    reuse: values['reuse'] === true,
    dataRoot: resolve(text('data-dir')),
    profileDir: values['profile'] === undefined ? undefined : resolve(text('profile')),
    entry,
    build: values['no-build'] !== true,
  };
}

function scaled(shape: ClusterShape, scale: number): ClusterShape {
  const leftovers = shape.leftovers === undefined ? undefined : { claims: Math.round(shape.leftovers.claims * scale), secrets: Math.round(shape.leftovers.secrets * scale) };
  return { ...shape, targets: Math.round(shape.targets * scale), runs: Math.round(shape.runs * scale), ...(leftovers !== undefined && { leftovers }) };
}

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

/** One server: a cluster of one shape at one scale, with the watch cache on or off. */
interface ServerSetup {
  scale: number;
  shape: ClusterShape;
  watchCache: boolean;
}

interface VariantResult {
  scale: number;
  targets: number;
  runs: number;
  namespaces: number;
  /** Namespaces that hold targets (all of them but in a skewed shape). */
  targetNamespaces: number;
  prKb: number;
  trKb: number;
  /** The leftovers shape: what it seeds besides the runs (bench/leftovers.ts). */
  leftovers?: { claims: number; secrets: number; pods: number; statefulSets: number };
  /** The runs shape: its Pipelines and Tasks per namespace, and the collector's run flags (bench/runs.ts). */
  runGroups?: RunGroups & { collect: readonly string[] };
  watchCache: boolean;
  /** `image`, `plain` or `custom`, and the flags themselves. */
  node: { name: string; flags: string[] };
  output: Output;
  seed: (SeedResult & { reused: false }) | { reused: true };
  /** The floor of what the collector must read: every collection, or in a skewed shape the runs of the target namespaces alone. */
  floor: { ms: number; cpuMs: number; bytes: number; requests: number; items: number; samplesMs: number[]; reach: 'cluster' | 'target-namespaces' };
  dryRun: {
    ms: number;
    samplesMs: number[];
    cpuMs: number;
    maxRssBytes: number;
    rssSamplesBytes: number[];
    rssMethod: string;
    requests: number;
    retries: number;
    bytesReceived: number;
    ratio: number;
    requestRatio: number;
    summary: {
      targets: number;
      runs: number;
      delete: number;
      keep: number;
      reasons: Record<string, number>;
      /** The leftovers shape: the counts by kind and the claims' bytes, as the pass reports them. */
      byKind?: Record<string, { targets: number; delete: number; keep: number }>;
      bytes?: { candidates: number; released: number; pending: number };
      /** The runs shape: what goes with the runs decided `delete`, as the pass reports it. */
      cascade?: NonNullable<CliRun['summary']>['cascade'];
    };
    /**
     * The runs shape: the summary the shape implies (bench/runs.ts) at the last dry run, and
     * whether the last dry run's summary said the same (`differences` when not).
     */
    expected?: ExpectedRunSummary & { matches: boolean; differences: string[] };
  };
  /** Once per server, with its first Node.js flag set: on that variant's result only. */
  live?: { deletes: number; deleted: number; qps: number; achievedQps: number; withinTenPercent: boolean; ms: number; maxRssBytes: number; requests: number; results: Record<string, number> };
  load: { before: number[]; after: number[] };
}

/** Reading the runs of K namespaces one by one against one list across the cluster (--crossover). */
interface CrossoverResult {
  scale: number;
  prKb: number;
  trKb: number;
  watchCache: boolean;
  /** Namespaces holding runs, and namespaces a list across the cluster covers (with the server's own). */
  runNamespaces: number;
  clusterNamespaces: number;
  cluster: { ms: number; samplesMs: number[]; requests: number; items: number };
  rows: { k: number; shareOfCluster: number; ms: number; samplesMs: number[]; requests: number; items: number; ratioToCluster: number }[];
}

interface ServerResult {
  variants: VariantResult[];
  crossover?: CrossoverResult;
}

function dataKey(shape: ClusterShape): string {
  const skew = shape.targetNamespaces === undefined || shape.targetNamespaces >= shape.namespaces ? '' : `-tn${shape.targetNamespaces}`;
  const leftovers = shape.leftovers === undefined ? '' : `-c${shape.leftovers.claims}-s${shape.leftovers.secrets}`;
  const groups = shape.runGroups === undefined ? '' : `-g${shape.runGroups.pipelines}x${shape.runGroups.tasks}`;
  return `t${shape.targets}-r${shape.runs}-n${shape.namespaces}${skew}${leftovers}${groups}-pr${shape.prKb}-tr${shape.trKb}`;
}

/**
 * What the floor reads: everything, or in a skewed shape the runs of the namespaces that hold
 * targets; in the leftovers shape the claims, Secrets, runs, Pods and StatefulSets (every
 * namespace holds leftovers).
 */
function floorReach(shape: ClusterShape): { reach: FloorReach; name: VariantResult['floor']['reach'] } {
  if (shape.leftovers !== undefined) return { reach: { leftovers: true }, name: 'cluster' };
  // The runs shape: with only run collectors on, a pass lists the PipelineRuns and the TaskRuns.
  if (shape.runGroups !== undefined) return { reach: { targets: false }, name: 'cluster' };
  const targetNamespaces = targetNamespaceCount(shape);
  if (targetNamespaces >= shape.namespaces) return { reach: {}, name: 'cluster' };
  return { reach: { runNamespaces: Array.from({ length: targetNamespaces }, (_, i) => namespaceName(i)) }, name: 'target-namespaces' };
}

async function benchServer(flags: BenchFlags, setup: ServerSetup, entryPath: string): Promise<ServerResult> {
  const shape = scaled(setup.shape, setup.scale);
  const dataDir = flags.reuse ? join(flags.dataRoot, dataKey(shape)) : undefined;
  const marker = dataDir === undefined ? undefined : join(dataDir, 'seeded.json');
  const reusable = dataDir !== undefined && marker !== undefined && existsSync(marker);
  if (dataDir !== undefined && !reusable) await rm(dataDir, { recursive: true, force: true }); // a seed that did not finish
  const loadBefore = loadavg();
  const targetNamespaces = targetNamespaceCount(shape);
  log(
    `scale ${setup.scale}: ${shape.leftovers === undefined ? `${shape.targets} targets in ${targetNamespaces} namespaces` : `${shape.leftovers.claims} claims and ${shape.leftovers.secrets} Secrets`}, ${shape.runs} runs in ${shape.namespaces}, ${shape.prKb}/${shape.trKb} KB, watch cache ${setup.watchCache ? 'on' : 'off'}${dataDir === undefined ? '' : `; data in ${dataDir}`}`,
  );
  // A current Tekton's cluster has no PipelineResource CRD.
  const leftovers = shape.leftovers === undefined ? undefined : leftoverTotals(shape);
  const controlPlane = await startControlPlane({ crds: leftovers === undefined ? 'v0.45' : 'none', ...(dataDir !== undefined && { dataDir }), watchCache: setup.watchCache, output: { stream: process.stderr, indent: 'bench: ' } });
  const api = new RawApi(controlPlane.server, controlPlane.adminToken, flags.seedConcurrency);
  try {
    let seed: VariantResult['seed'];
    // The "now" the runs' times were written from: the runs shape's expected decisions depend on it (TTL).
    let seedNowMs: number | undefined;
    if (reusable) {
      log(`reusing the data seeded earlier in ${dataDir}`);
      seed = { reused: true };
      const written = JSON.parse(readFileSync(marker, 'utf8')) as { nowMs?: unknown };
      seedNowMs = typeof written.nowMs === 'number' ? written.nowMs : undefined;
    } else {
      seedNowMs = Date.now();
      seed = { ...(await seedCluster(api, shape, { concurrency: flags.seedConcurrency, log, nowMs: seedNowMs })), reused: false };
      if (marker !== undefined) await writeFile(marker, `${JSON.stringify({ shape, seededAt: new Date().toISOString(), nowMs: seedNowMs })}\n`);
    }
    await clearLiveTargets(api, leftovers !== undefined);

    const kubeconfig = controlPlane.kubeconfigPath;
    const common = ['--min-age', '0s', '--page-size', String(flags.pageSize), '--kubeconfig', kubeconfig];
    // The dry run's collectors: PipelineResources (the default), every leftover kind, or the runs with their policy.
    const runShape = shape.runGroups !== undefined;
    const collect = leftovers !== undefined ? ['--collect', LEFTOVER_COLLECTORS] : runShape ? [...RUN_COLLECT_ARGS] : [];
    const { reach, name: reachName } = floorReach(shape);
    log('warming up: one read of every collection');
    const warm = await readFloor(api, flags.pageSize, leftovers === undefined && !runShape ? {} : reach);
    // What the collector must read: all of it, or in a skewed shape the target namespaces' runs.
    const expectedItems = reachName === 'cluster' ? warm.items : (await readFloor(api, flags.pageSize, reach)).items;
    // What the collector's summary must count: the targets (in the leftovers shape the claims,
    // Secrets and affinity assistants, not the Pods the floor also reads) and the runs.
    // In the runs shape, the decisions the shape implies, checked below on the last dry run.
    const expectedSummary: { items: number } | { targets: number; runs: number } | { decided: true } =
      runShape ? { decided: true } : leftovers === undefined ? { items: expectedItems } : { targets: leftovers.claims + leftovers.secrets + leftovers.statefulSets, runs: leftovers.runs };
    if (runShape && expectedItems !== shape.runs) log(`warning: the read floor read ${expectedItems} runs, the shape has ${shape.runs}`);
    if (runShape && seedNowMs === undefined) log(`warning: ${marker ?? 'the seed'} does not say when the runs were written; their decisions cannot be checked`);
    // When each variant's last dry run started and ended: a TTL can expire in between.
    const dryRunTimes = new Map<string, { startMs: number; endMs: number }>();
    const server = { server: controlPlane.server, token: controlPlane.adminToken, pageSize: flags.pageSize };

    const floors = new Map<string, FloorResult[]>(flags.nodeFlagSets.map((set) => [set.name, []]));
    const dryRuns = new Map<string, CliRun[]>();
    const variantKey = (node: string, output: Output): string => `${node} ${output}`;
    const floor = async (node: BenchFlags['nodeFlagSets'][number]): Promise<void> => {
      floors.get(node.name)?.push(await readFloorInChild(server, { cwd: ROOT, nodeFlags: node.flags }, reach));
    };
    const dryRun = async (node: BenchFlags['nodeFlagSets'][number], output: Output): Promise<void> => {
      const startMs = Date.now();
      const run = checkRun('dry run', await runCollector({ entry: entryPath, nodeFlags: node.flags, args: ['--dry-run', '--output', output, ...collect, ...common], cwd: ROOT }), 0);
      const key = variantKey(node.name, output);
      dryRunTimes.set(key, { startMs, endMs: Date.now() });
      dryRuns.set(key, [...(dryRuns.get(key) ?? []), run]);
    };
    for (let round = 1; round <= flags.repeat; round++) {
      for (const node of flags.nodeFlagSets) {
        // Which goes first alternates, so that neither always meets the server just after the other.
        if (round % 2 === 1) await floor(node);
        for (const output of flags.outputs) await dryRun(node, output);
        if (round % 2 === 0) await floor(node);
        const last = flags.outputs.map((output) => `${output} ${seconds(dryRuns.get(variantKey(node.name, output))?.at(-1)?.ms)} (${mib(dryRuns.get(variantKey(node.name, output))?.at(-1)?.maxRssBytes ?? 0)})`);
        log(`round ${round}/${flags.repeat}, node ${node.name}: read floor ${seconds(floors.get(node.name)?.at(-1)?.ms)}, dry run ${last.join(', ')}`);
      }
    }
    if (flags.profileDir !== undefined) {
      for (const node of flags.nodeFlagSets) {
        for (const output of flags.outputs) {
          const dir = join(flags.profileDir, `scale-${setup.scale}-${dataKey(shape)}-cache-${setup.watchCache ? 'on' : 'off'}-${node.name}-${output}`);
          await mkdir(dir, { recursive: true });
          await runCollector({ entry: entryPath, nodeFlags: node.flags, args: ['--dry-run', '--output', output, ...collect, ...common], cwd: ROOT, cpuProfileDir: dir });
          log(`CPU profile of a dry run written to ${dir}`);
        }
      }
    }
    const crossover = flags.crossover.length === 0 ? undefined : await measureCrossover(flags, { setup, shape, api, server });

    let live: VariantResult['live'];
    const firstNode = flags.nodeFlagSets[0] as BenchFlags['nodeFlagSets'][number];
    if (flags.live) {
      const what = leftovers === undefined ? 'unreferenced targets' : 'Pipelines-as-Code Secrets with no owner, named by no run,';
      log(`live pass: seeding ${flags.liveDeletes} ${what} in ${LIVE_NAMESPACE}, deleting them at --qps ${flags.qps}`);
      await seedLiveTargets(api, flags.liveDeletes, { concurrency: flags.seedConcurrency, log, leftovers: leftovers !== undefined });
      const run = await runCollector({
        entry: entryPath,
        nodeFlags: firstNode.flags,
        args: [
          '--namespace', LIVE_NAMESPACE, '--qps', String(flags.qps), '--max-deletions', String(flags.liveDeletes), '--output', 'json',
          ...(leftovers === undefined ? [] : ['--collect', 'pac-secrets']),
          ...common,
        ],
        cwd: ROOT,
      });
      checkRun('live pass', run, 0);
      const achievedQps = deleteRate(run.deletedAt);
      log(`live pass: ${run.deletedAt.length} deleted, ${achievedQps.toFixed(1)}/s against --qps ${flags.qps}`);
      live = {
        deletes: flags.liveDeletes,
        deleted: run.deletedAt.length,
        qps: flags.qps,
        achievedQps,
        withinTenPercent: Math.abs(achievedQps - flags.qps) <= flags.qps * 0.1,
        ms: run.ms,
        maxRssBytes: run.maxRssBytes,
        requests: run.summary?.api?.requests ?? 0,
        results: run.summary?.results ?? {},
      };
    }

    const load = { before: loadBefore.map(round2), after: loadavg().map(round2) };
    const variants = flags.nodeFlagSets.flatMap((node) =>
      flags.outputs.map((output): VariantResult => {
        const nodeFloors = floors.get(node.name) ?? [];
        const runs = dryRuns.get(variantKey(node.name, output)) ?? [];
        const floorMs = median(nodeFloors.map((result) => result.ms));
        const dryMs = median(runs.map((run) => run.ms));
        const lastDry = runs.at(-1) as CliRun;
        const summary = lastDry.summary ?? {};
        const floorRequests = nodeFloors[0]?.requests ?? 0;
        const dryRequests = summary.api?.requests ?? 0;
        if ('items' in expectedSummary && (summary.targets ?? 0) + (summary.runs ?? 0) !== expectedSummary.items) {
          log(`warning: the collector saw ${summary.targets ?? 0} targets and ${summary.runs ?? 0} runs, the read floor ${expectedItems} objects`);
        }
        if ('targets' in expectedSummary && (summary.targets !== expectedSummary.targets || summary.runs !== expectedSummary.runs)) {
          log(`warning: the collector saw ${summary.targets ?? 0} targets and ${summary.runs ?? 0} runs, the shape has ${expectedSummary.targets} and ${expectedSummary.runs}`);
        }
        const expected = 'decided' in expectedSummary ? checkRunDecisions(shape, seedNowMs, dryRunTimes.get(variantKey(node.name, output)), summary, `${node.name} ${output}`) : undefined;
        return {
          scale: setup.scale,
          targets: shape.targets,
          runs: shape.runs,
          namespaces: shape.namespaces,
          targetNamespaces,
          prKb: shape.prKb,
          trKb: shape.trKb,
          ...(leftovers !== undefined && { leftovers: { claims: leftovers.claims, secrets: leftovers.secrets, pods: leftovers.pods, statefulSets: leftovers.statefulSets } }),
          ...(shape.runGroups !== undefined && { runGroups: { ...shape.runGroups, collect: RUN_COLLECT_ARGS } }),
          watchCache: setup.watchCache,
          node,
          output,
          seed,
          floor: {
            ms: floorMs,
            cpuMs: median(nodeFloors.map((result) => result.cpuMs ?? 0)),
            bytes: nodeFloors[0]?.bytes ?? 0,
            requests: floorRequests,
            items: expectedItems,
            samplesMs: nodeFloors.map((result) => round1(result.ms)),
            reach: reachName,
          },
          dryRun: {
            ms: dryMs,
            samplesMs: runs.map((run) => round1(run.ms)),
            cpuMs: median(runs.map((run) => run.cpuMs)),
            maxRssBytes: Math.max(...runs.map((run) => run.maxRssBytes)),
            rssSamplesBytes: runs.map((run) => run.maxRssBytes),
            rssMethod: lastDry.rssMethod,
            requests: dryRequests,
            retries: summary.api?.retries ?? 0,
            bytesReceived: summary.api?.bytesReceived ?? 0,
            ratio: dryMs / floorMs,
            requestRatio: floorRequests === 0 ? 0 : dryRequests / floorRequests,
            summary: {
              targets: summary.targets ?? 0,
              runs: summary.runs ?? 0,
              delete: summary.delete ?? 0,
              keep: summary.keep ?? 0,
              reasons: summary.reasons ?? {},
              ...(summary.byKind !== undefined && { byKind: summary.byKind }),
              ...(summary.bytes !== undefined && { bytes: summary.bytes }),
              ...(runShape && summary.cascade !== undefined && { cascade: summary.cascade }),
            },
            ...(expected !== undefined && { expected }),
          },
          ...(live !== undefined && node === firstNode && output === flags.outputs[0] && { live }),
          load,
        };
      }),
    );
    return { variants, ...(crossover !== undefined && { crossover }) };
  } finally {
    api.close();
    await controlPlane.stop();
  }
}

/**
 * The runs of the first K run namespaces read one namespace at a time, against all runs in one
 * list across the cluster, in interleaved rounds (each a read floor in a fresh process with
 * the first Node.js flag set): where the lists one by one stop paying.
 */
async function measureCrossover(
  flags: BenchFlags,
  context: { setup: ServerSetup; shape: ClusterShape; api: RawApi; server: { server: string; token: string; pageSize: number } },
): Promise<CrossoverResult> {
  const { shape, api, server, setup } = context;
  const node = flags.nodeFlagSets[0] as BenchFlags['nodeFlagSets'][number];
  const ks = [...new Set(flags.crossover.map((k) => Math.min(k, shape.namespaces)))].sort((a, b) => a - b);
  const namespaceList = JSON.parse((await api.expect('GET', '/api/v1/namespaces')).body.toString('utf8')) as { items: unknown[] };
  const clusterNamespaces = namespaceList.items.length;
  const read = (reach: FloorReach): Promise<FloorResult> => readFloorInChild(server, { cwd: ROOT, nodeFlags: node.flags }, reach);
  const whole: FloorResult[] = [];
  const byK = new Map<number, FloorResult[]>(ks.map((k) => [k, []]));
  for (let round = 1; round <= flags.repeat; round++) {
    const perNamespace = async (): Promise<void> => {
      for (const k of round % 2 === 1 ? ks : [...ks].reverse()) {
        byK.get(k)?.push(await read({ targets: false, runNamespaces: Array.from({ length: k }, (_, i) => namespaceName(i)) }));
      }
    };
    if (round % 2 === 1) whole.push(await read({ targets: false }));
    await perNamespace();
    if (round % 2 === 0) whole.push(await read({ targets: false }));
    log(`crossover round ${round}/${flags.repeat}: across the cluster ${seconds(whole.at(-1)?.ms)}; ${ks.map((k) => `${k} one by one ${seconds(byK.get(k)?.at(-1)?.ms)}`).join(', ')}`);
  }
  const clusterMs = median(whole.map((result) => result.ms));
  return {
    scale: setup.scale,
    prKb: shape.prKb,
    trKb: shape.trKb,
    watchCache: setup.watchCache,
    runNamespaces: shape.namespaces,
    clusterNamespaces,
    cluster: { ms: clusterMs, samplesMs: whole.map((result) => round1(result.ms)), requests: whole[0]?.requests ?? 0, items: whole[0]?.items ?? 0 },
    rows: ks.map((k) => {
      const results = byK.get(k) ?? [];
      const ms = median(results.map((result) => result.ms));
      return {
        k,
        shareOfCluster: round2(k / clusterNamespaces),
        ms,
        samplesMs: results.map((result) => round1(result.ms)),
        requests: results[0]?.requests ?? 0,
        items: results[0]?.items ?? 0,
        ratioToCluster: round2(ms / clusterMs),
      };
    }),
  };
}

/**
 * The runs shape: the decisions the shape implies (bench/runs.ts) against the last dry run's
 * summary. A failure's TTL can expire while the pass runs, so the summary may match what the
 * shape implies at the dry run's start or at its end; a warning when it matches neither.
 */
function checkRunDecisions(
  shape: ClusterShape,
  seedNowMs: number | undefined,
  times: { startMs: number; endMs: number } | undefined,
  summary: NonNullable<CliRun['summary']>,
  variant: string,
): VariantResult['dryRun']['expected'] {
  if (seedNowMs === undefined || times === undefined) return undefined;
  const atStart = expectedRunSummary(shape, seedNowMs, times.startMs);
  const atEnd = expectedRunSummary(shape, seedNowMs, times.endMs);
  const startDifferences = runSummaryDifferences(summary, atStart);
  const differences = startDifferences.length === 0 ? [] : runSummaryDifferences(summary, atEnd);
  const expected = startDifferences.length === 0 || differences.length > 0 ? atStart : atEnd;
  if (differences.length > 0) log(`warning: the ${variant} dry run's summary differs from the decisions the runs shape implies: ${differences.join('; ')}`);
  else log(`the ${variant} dry run decided what the runs shape implies: ${expected.delete} to delete, ${expected.keep} to keep, ${JSON.stringify(expected.reasons)}`);
  return { ...expected, matches: differences.length === 0, differences };
}

function checkRun(what: string, run: CliRun, expected: number): CliRun {
  if (run.exitCode !== expected || run.summary === undefined) {
    throw new Error(`the collector's ${what} exited ${run.exitCode ?? 'on a signal'} (expected ${expected}) ${run.summary === undefined ? "without a 'pass finished' line" : ''}:\n${run.stderrTail}`);
  }
  return run;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
const round2 = (n: number): number => Math.round(n * 100) / 100;
const seconds = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function renderTable(results: readonly VariantResult[]): string {
  const header = ['scale', 'targets', 'runs', 'ns', 'KB pr/tr', 'cache', 'node', 'output', 'seed', 'floor', 'floor CPU', 'floor MiB', 'floor req', 'dry run', 'dry CPU', 'ratio', 'peak RSS', 'dry req', 'live deletes/s'];
  const rows = results.map((r) => [
    `${r.scale}x`,
    r.leftovers !== undefined
      ? `${r.leftovers.claims} PVCs, ${r.leftovers.secrets} Secrets`
      : r.runGroups !== undefined
        ? 'runs collected'
      : r.targetNamespaces < r.namespaces
        ? `${r.targets} in ${r.targetNamespaces} ns`
        : String(r.targets),
    String(r.runs),
    String(r.namespaces),
    `${r.prKb}/${r.trKb}`,
    r.watchCache ? 'on' : 'off',
    r.node.name,
    r.output,
    r.seed.reused ? 'reused' : seconds(r.seed.ms),
    seconds(r.floor.ms),
    seconds(r.floor.cpuMs),
    (r.floor.bytes / 1024 / 1024).toFixed(1),
    String(r.floor.requests),
    seconds(r.dryRun.ms),
    seconds(r.dryRun.cpuMs),
    `${r.dryRun.ratio.toFixed(2)}x`,
    mib(r.dryRun.maxRssBytes),
    String(r.dryRun.requests),
    r.live === undefined ? '-' : `${r.live.achievedQps.toFixed(1)} (${r.live.deleted})`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padStart(widths[i] as number)).join('  ');
  const lines = [line(header), ...rows.map(line)];
  const growth = growthLines(results);
  if (growth.length > 0) lines.push('', 'growth from the smallest scale of the same variant: time relative to linear, memory', ...growth);
  return `${lines.join('\n')}\n`;
}

function growthLines(results: readonly VariantResult[]): string[] {
  const lines: string[] = [];
  const key = (r: VariantResult): string => `${r.namespaces}/${r.targetNamespaces} ${r.prKb}/${r.trKb} watch cache ${r.watchCache ? 'on' : 'off'} ${r.node.name} ${r.output}`;
  const groups = new Map<string, VariantResult[]>();
  for (const r of results) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  for (const group of groups.values()) {
    const [base, ...rest] = [...group].sort((a, b) => a.scale - b.scale);
    if (base === undefined) continue;
    for (const r of rest) {
      const factor = r.scale / base.scale;
      const timeGrowth = r.dryRun.ms / base.dryRun.ms;
      lines.push(
        `  ${key(r)} ${r.scale}x: dry run ${timeGrowth.toFixed(2)}x the time for ${factor}x the data (${(timeGrowth / factor).toFixed(2)} of linear), peak RSS ${mib(base.dryRun.maxRssBytes)} -> ${mib(r.dryRun.maxRssBytes)}`,
      );
    }
  }
  return lines;
}

function renderCrossover(results: readonly CrossoverResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(
      '',
      `runs read one namespace at a time against one list across the cluster (${r.runNamespaces} namespaces with runs, ${r.clusterNamespaces} in all; ${r.prKb}/${r.trKb} KB, watch cache ${r.watchCache ? 'on' : 'off'}): across the cluster ${seconds(r.cluster.ms)}, ${r.cluster.requests} requests, ${r.cluster.items} runs`,
    );
    for (const row of r.rows) {
      lines.push(`  ${String(row.k).padStart(4)} namespaces (${(row.shareOfCluster * 100).toFixed(0)}% of all): ${seconds(row.ms)}, ${row.requests} requests, ${row.items} runs, ${row.ratioToCluster.toFixed(2)}x the list across the cluster`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

async function main(args: readonly string[]): Promise<number> {
  let flags: BenchFlags | 'help';
  try {
    flags = parseFlags(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message} (e.g. ${EXAMPLE}; npm run bench -- --help)\n`);
    return 2;
  }
  if (flags === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (flags.build && flags.entry === 'dist') {
    log('building dist/ (npm run build)');
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  }
  const entryPath = flags.entry === 'dist' ? join(ROOT, 'dist', 'main.js') : join(ROOT, 'src', 'main.ts');
  for (const node of flags.nodeFlagSets) log(`the collector runs as node ${[...node.flags, entryPath].join(' ')} (${node.name})`);
  const startedAt = new Date();
  const variants: VariantResult[] = [];
  const crossovers: CrossoverResult[] = [];
  for (const watchCache of flags.watchCaches) {
    for (const shape of flags.shapes) {
      for (const scale of flags.scales) {
        const result = await benchServer(flags, { scale, shape, watchCache }, entryPath);
        variants.push(...result.variants);
        if (result.crossover !== undefined) crossovers.push(result.crossover);
      }
    }
  }
  process.stdout.write(renderTable(variants));
  process.stdout.write(renderCrossover(crossovers));
  const first = flags.nodeFlagSets[0];
  const line = {
    bench: 'tekton-resource-gc',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    command: `npm run bench -- ${args.join(' ')}`.trim(),
    entry: flags.entry,
    // The first variant's, as before variants: the flags, and whether the watch cache was on.
    nodeFlags: first?.flags ?? [],
    watchCache: flags.watchCaches[0] ?? false,
    nodeFlagSets: flags.nodeFlagSets,
    watchCaches: flags.watchCaches,
    outputs: flags.outputs,
    pageSize: flags.pageSize,
    repeat: flags.repeat,
    results: variants,
    ...(crossovers.length > 0 && { crossover: crossovers }),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}

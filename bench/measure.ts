/**
 * What the benchmark measures: the read floor (paging the three collections and nothing
 * else; in the leftovers shape, the claims, Secrets, runs, Pods and StatefulSets) and the collector run as a user runs it, a separate process, with its wall time,
 * its peak resident set size and the traffic it reports.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COLLECTORS } from '../src/core/collectors.js';
import { METADATA_LIST_ONLY } from '../src/kube/cluster.js';
import type { RawApi } from './seed.js';

/** The collections a correct collector must read, through the versions it reads them. */
export const COLLECTIONS = [
  '/apis/tekton.dev/v1alpha1/pipelineresources',
  '/apis/tekton.dev/v1beta1/pipelineruns',
  '/apis/tekton.dev/v1beta1/taskruns',
] as const;

const TARGETS_PATH = COLLECTIONS[0];
const RUN_PATHS = [
  { group: '/apis/tekton.dev/v1beta1', plural: 'pipelineruns' },
  { group: '/apis/tekton.dev/v1beta1', plural: 'taskruns' },
] as const;

/**
 * What the leftovers shape's dry run must read besides runs (bench/leftovers.ts), across the
 * cluster: the claims, the Pipelines-as-Code Secrets as metadata only with the collector's own
 * selector (as it asks for them: their data is never read), and the Pods and StatefulSets that
 * may use them. The collector also lists the affinity-assistant StatefulSets as targets; that
 * second read of some StatefulSets is its own cost, not the floor's.
 */
const LEFTOVER_TARGETS: readonly FloorCollection[] = [
  { path: '/api/v1/persistentvolumeclaims' },
  { path: '/api/v1/secrets', labelSelector: COLLECTORS['pac-secrets'].listLabelSelector ?? '', accept: METADATA_LIST_ONLY },
];
const LEFTOVER_HOLDERS: readonly FloorCollection[] = [{ path: '/api/v1/pods' }, { path: '/apis/apps/v1/statefulsets' }];

/** What a read floor reads: every collection across the cluster unless told otherwise. */
export interface FloorReach {
  /** Read the PipelineResources (across the cluster); default true. */
  targets?: boolean;
  /** Read the runs one namespace at a time in these namespaces only; across the cluster when absent. */
  runNamespaces?: readonly string[];
  /** Read what the leftover collectors need (LEFTOVER_TARGETS, then the runs, then LEFTOVER_HOLDERS) instead of PipelineResources. */
  leftovers?: boolean;
}

/** One collection a floor pages through, with what the collector asks of it. */
export interface FloorCollection {
  path: string;
  labelSelector?: string;
  /** The Accept header, when not JSON objects. */
  accept?: string;
}

/** The collections a floor of `reach` pages through, in order. */
export function floorPaths(reach: FloorReach = {}): FloorCollection[] {
  const runs = RUN_PATHS.flatMap(({ group, plural }) =>
    reach.runNamespaces === undefined ? [`${group}/${plural}`] : reach.runNamespaces.map((namespace) => `${group}/namespaces/${namespace}/${plural}`),
  ).map((path) => ({ path }));
  if (reach.leftovers === true) return [...LEFTOVER_TARGETS, ...runs, ...LEFTOVER_HOLDERS];
  return [...(reach.targets === false ? [] : [{ path: TARGETS_PATH }]), ...runs];
}

export interface FloorResult {
  ms: number;
  /** CPU time of the reading process (user + system), when known. */
  cpuMs?: number;
  bytes: number;
  requests: number;
  items: number;
}

/**
 * Pages through each collection with `limit`/`continue`, one page at a time, parses each
 * page and drops it: the least any collector that reads every object must do. With `reach`,
 * only part of them (the runs of some namespaces: what a skewed cluster needs read).
 */
export async function readFloor(api: RawApi, pageSize: number, reach: FloorReach = {}): Promise<FloorResult> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let bytes = 0;
  let requests = 0;
  let items = 0;
  for (const { path, labelSelector, accept } of floorPaths(reach)) {
    let continueToken = '';
    do {
      const selector = labelSelector === undefined ? '' : `&labelSelector=${encodeURIComponent(labelSelector)}`;
      const query = `?limit=${pageSize}${selector}${continueToken === '' ? '' : `&continue=${encodeURIComponent(continueToken)}`}`;
      const answer = await api.request('GET', `${path}${query}`, undefined, accept);
      if (answer.status !== 200) throw new Error(`GET ${path}${query}: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
      requests++;
      bytes += answer.body.length;
      const page = JSON.parse(answer.body.toString('utf8')) as { items?: unknown[]; metadata?: { continue?: string } };
      items += page.items?.length ?? 0;
      continueToken = page.metadata?.continue ?? '';
    } while (continueToken !== '');
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, bytes, requests, items };
}

/**
 * readFloor() in a fresh process (bench/floor.ts), so that no benchmark garbage slows it down,
 * with the same Node.js flags as the collector it is compared with.
 */
export async function readFloorInChild(
  api: { server: string; token: string; pageSize: number },
  process_: { cwd: string; nodeFlags?: readonly string[] },
  reach: FloorReach = {},
): Promise<FloorResult> {
  const { cwd, nodeFlags = [] } = process_;
  const args = [...nodeFlags, '--import', 'tsx', join(cwd, 'bench', 'floor.ts'), api.server, api.token, String(api.pageSize), JSON.stringify(reach)];
  const child = spawn(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`the read floor failed (exit ${code ?? 'on a signal'}): ${stderr.slice(-2000)}`);
  return JSON.parse(stdout) as FloorResult;
}

/** The fields of the collector's 'pass finished' log line the benchmark reads. */
export interface PassSummary {
  targets?: number;
  runs?: number;
  delete?: number;
  keep?: number;
  results?: Record<string, number>;
  reasons?: Record<string, number>;
  exitCode?: number;
  api?: { requests: number; retries: number; bytesReceived: number };
  /** With leftover collectors on: the counts by kind, and the bytes of the claims. */
  byKind?: Record<string, { targets: number; delete: number; keep: number }>;
  bytes?: { candidates: number; released: number; pending: number };
  /** With run collectors on: what goes with the runs decided `delete`. */
  cascade?: { runs: number; objects: Record<string, number>; bytes: number; alsoCollected: number };
}

export interface CliRun {
  exitCode: number | null;
  ms: number;
  /** Peak resident set size of the collector's process, in bytes. */
  maxRssBytes: number;
  /** CPU time of the collector's process (user + system), from GNU time; 0 when polled. */
  cpuMs: number;
  /** How the peak was read: `time` (GNU time, the kernel's ru_maxrss) or `poll` (VmHWM read every 20 ms). */
  rssMethod: 'time' | 'poll';
  summary: PassSummary | undefined;
  /** Epoch ms of each 'deleted' log line, in order. */
  deletedAt: number[];
  stdoutBytes: number;
  stderrTail: string;
}

export interface CliOptions {
  /** The collector's entry: dist/main.js (what ships) or src/main.ts through tsx. */
  entry: string;
  args: readonly string[];
  cwd: string;
  /** Writes a V8 CPU profile (.cpuprofile) of the collector into this directory. */
  cpuProfileDir?: string;
  /** Node.js flags before the entry, such as the image's (imageNodeFlags). */
  nodeFlags?: readonly string[];
}

const GNU_TIME = '/usr/bin/time';

/**
 * The Node.js flags the image runs the collector with: what its Dockerfile's ENTRYPOINT puts
 * between node and dist/main.js. Read from the Dockerfile so the benchmark measures the CLI
 * as it ships and the two cannot drift apart.
 */
export function imageNodeFlags(dockerfile: string): string[] {
  const line = dockerfile.split('\n').find((text) => text.startsWith('ENTRYPOINT '));
  const entrypoint = line === undefined ? undefined : (JSON.parse(line.slice('ENTRYPOINT '.length)) as unknown);
  if (!Array.isArray(entrypoint) || entrypoint.length < 2 || !entrypoint.every((word) => typeof word === 'string')) {
    throw new Error(`the Dockerfile has no ENTRYPOINT ["node", ...flags, "dist/main.js"] (found ${line ?? 'none'})`);
  }
  return entrypoint.slice(1, -1);
}

/** Runs the collector once; resolves when it has exited. */
export async function runCollector(options: CliOptions): Promise<CliRun> {
  const useTime = existsSync(GNU_TIME);
  const scratch = await mkdtemp(join(tmpdir(), 'trgc-bench-run-'));
  const rssFile = join(scratch, 'maxrss');
  const nodeArgs = [
    ...(options.nodeFlags ?? []),
    ...(options.entry.endsWith('.ts') ? ['--import', 'tsx'] : []),
    ...(options.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir]),
    options.entry,
    ...options.args,
  ];
  const [command, args] = useTime ? [GNU_TIME, ['-f', '%M %U %S', '-o', rssFile, process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let peakPolled = 0;
  const poller = useTime ? undefined : setInterval(() => void pollHwm(child.pid).then((kb) => (peakPolled = Math.max(peakPolled, kb))), 20);
  let stdoutBytes = 0;
  child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
  const lines = new LineSplitter();
  let summary: PassSummary | undefined;
  const deletedAt: number[] = [];
  let stderrTail = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    for (const line of lines.push(chunk)) {
      const entry = parseLogLine(line);
      if (entry?.msg === 'pass finished') summary = entry as PassSummary;
      else if (entry?.msg === 'deleted' && typeof entry.time === 'number') deletedAt.push(entry.time);
    }
  });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const ms = performance.now() - started;
  if (poller !== undefined) clearInterval(poller);
  // GNU time's last line: peak RSS in KiB, user and system seconds.
  const [rssKb = 0, user = 0, system = 0] = useTime ? ((await readFile(rssFile, 'utf8')).trim().split('\n').pop() ?? '').split(' ').map(Number) : [peakPolled, 0, 0];
  const maxRssKb = rssKb;
  await rm(scratch, { recursive: true, force: true });
  return { exitCode, ms, maxRssBytes: maxRssKb * 1024, cpuMs: (user + system) * 1000, rssMethod: useTime ? 'time' : 'poll', summary, deletedAt, stdoutBytes, stderrTail };
}

async function pollHwm(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match === null ? 0 : Number(match[1]);
}

function parseLogLine(line: string): (Record<string, unknown> & { msg?: unknown; time?: unknown }) | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

class LineSplitter {
  private pending = '';

  push(chunk: string): string[] {
    this.pending += chunk;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    return lines;
  }
}

/** Deletes per second between the first and the last delete the collector logged. */
export function deleteRate(deletedAt: readonly number[]): number {
  if (deletedAt.length < 2) return 0;
  const first = deletedAt[0] as number;
  const last = deletedAt[deletedAt.length - 1] as number;
  return last === first ? 0 : ((deletedAt.length - 1) * 1000) / (last - first);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

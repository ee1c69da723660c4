// Smoke test of the benchmark (issue 6) at a tiny size: it seeds, measures the read floor,
// runs the built collector dry and live, and prints its table and JSON line. No time is
// asserted: the figures belong to bench/RESULTS.md, not to a test on a shared machine.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const TARGETS = 60;
const RUNS = 160;
const NAMESPACES = 3;
const LIVE_DELETES = 40;

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
  watchCache: boolean;
  results: {
    scale: number;
    targets: number;
    runs: number;
    seed: { reused: boolean; objects?: number };
    floor: { ms: number; bytes: number; requests: number; items: number };
    dryRun: { ms: number; maxRssBytes: number; requests: number; bytesReceived: number; ratio: number; summary: { targets: number; runs: number; delete: number; keep: number } };
    live: { deletes: number; deleted: number; qps: number; achievedQps: number; withinTenPercent: boolean; results: Record<string, number> };
    load: { before: number[]; after: number[] };
  }[];
}

test('npm run bench at a tiny size seeds, measures and prints a table and one JSON line', { timeout: 600_000 }, async () => {
  const { code, stdout, stderr } = await runBench([
    '--targets', String(TARGETS),
    '--runs', String(RUNS),
    '--namespaces', String(NAMESPACES),
    '--live-deletes', String(LIVE_DELETES),
    '--qps', '50',
    '--repeat', '1',
  ]);
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /floor.*dry run.*ratio.*peak RSS/, 'the table comes first');
  const line = JSON.parse(lines.at(-1) ?? '') as BenchLine;
  assert.equal(line.bench, 'tekton-resource-gc');
  assert.ok(line.machine.cpus > 0);
  // Measured as the image runs it: the flags of the Dockerfile's ENTRYPOINT, and no watch cache.
  assert.deepEqual(line.nodeFlags, ['--max-semi-space-size=4']);
  assert.equal(line.watchCache, false);
  assert.equal(line.results.length, 1);
  const [result] = line.results;
  assert.ok(result !== undefined);
  assert.deepEqual([result.scale, result.targets, result.runs], [1, TARGETS, RUNS]);
  assert.deepEqual(result.seed, { ...result.seed, reused: false, objects: TARGETS + RUNS });

  // The read floor pages the three collections: every object, at least one page each.
  assert.equal(result.floor.items, TARGETS + RUNS);
  assert.ok(result.floor.requests >= 3 && result.floor.bytes > 0 && result.floor.ms > 0);

  // The dry run saw the same objects, through the CLI's own summary line.
  assert.equal(result.dryRun.summary.targets, TARGETS);
  assert.equal(result.dryRun.summary.runs, RUNS);
  assert.equal(result.dryRun.summary.delete + result.dryRun.summary.keep, TARGETS);
  assert.ok(result.dryRun.summary.delete > 0 && result.dryRun.summary.keep > 0, 'the mix has targets to delete and to keep');
  assert.ok(result.dryRun.ms > 0 && result.dryRun.maxRssBytes > 0 && result.dryRun.ratio > 0);
  assert.ok(result.dryRun.requests >= result.floor.requests, 'the collector reads at least what the floor reads');
  assert.ok(result.dryRun.bytesReceived >= result.floor.bytes);

  // The live pass deleted every seeded orphan; the rate is reported, not asserted.
  assert.equal(result.live.deleted, LIVE_DELETES);
  assert.deepEqual(result.live.results, { deleted: LIVE_DELETES });
  assert.equal(result.live.qps, 50);
  assert.ok(result.live.achievedQps > 0);
  assert.equal(typeof result.live.withinTenPercent, 'boolean');
  assert.equal(result.load.before.length, 3);
});

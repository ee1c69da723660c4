// node [FLAGS] --import tsx bench/stages.ts [COLLECTOR FLAGS] --kubeconfig FILE
// e.g. node --max-semi-space-size=4 --import tsx bench/stages.ts --dry-run --min-age 0s --output json --kubeconfig /tmp/kc
//
// Where a pass's memory peaks: one pass of the collector in this process, built as the CLI
// builds it, its report rendered and thrown away, with the process's peak RSS read at every
// stage the pass reports (listing, deciding, ...) and after the report is built and rendered.
// The peak RSS (the kernel's ru_maxrss) only grows, so the stage in which it grew is where the
// pass held the most; a sampler could not say so, as deciding is one synchronous stretch.
// One JSON line per stage on stdout. The figures include tsx, which the CLI does not load: read
// them as differences between stages, and bench.ts's peak RSS as the CLI's. Under
// --expose-gc, each line also gives the live heap (liveMiB: heap used after a full collection),
// what the pass holds at that moment, garbage aside; the collections change the peak RSS.
// Each line also gives V8's heap spaces (committed MiB: new, old, code, large objects) and the
// memory outside the heap (external, of which array buffers: the socket's chunks), and `top`
// says the same of the moment, sampled every 20 ms, when the RSS was highest in the stage.
// The sampler runs only between the pass's awaits: a synchronous stretch (deciding) shows in
// the stage marks alone.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { parseConfig, passSettings } from '../src/cli/config.js';
import { KubeCluster } from '../src/kube/cluster.js';
import { loadConnection } from '../src/kube/connect.js';
import { KubeHttp, httpOptions } from '../src/kube/http.js';
import { createLogger } from '../src/ops/log.js';
import type { PassStage } from '../src/ops/progress.js';
import { renderReportChunks } from '../src/report/render.js';
import { abortableSleep } from '../src/process/sleep.js';
import { runPass } from '../src/pass/sweep.js';

const MIB = 1024 * 1024;
const started = performance.now();
let lastStage = 'start';

/** STAGES_HEAP_SNAPSHOT=deciding,report-built: the stages at whose mark a heap snapshot is written (to the temporary directory; the line names it), for bench/heapsummary.ts. */
const snapshotStages = new Set((process.env['STAGES_HEAP_SNAPSHOT'] ?? '').split(',').filter((stage) => stage !== ''));

/** Present under --expose-gc. */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** Committed MiB of each heap space, new space's halves and its large objects together. */
function spaces(): Record<string, number> {
  const committed: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) {
    const name = space.space_name.replace(/_space$/, '').replace(/^new_large_object$/, 'new');
    committed[name] = (committed[name] ?? 0) + space.space_size;
  }
  return Object.fromEntries(Object.entries(committed).map(([name, bytes]) => [name, Math.round(bytes / MIB)]));
}

function snapshot(): Record<string, unknown> {
  const memory = process.memoryUsage();
  return {
    rssMiB: Math.round(memory.rss / MIB),
    heapTotalMiB: Math.round(memory.heapTotal / MIB),
    heapUsedMiB: Math.round(memory.heapUsed / MIB),
    externalMiB: Math.round(memory.external / MIB),
    arrayBuffersMiB: Math.round(memory.arrayBuffers / MIB),
    spaces: spaces(),
  };
}

/** The sample with the highest RSS since the last mark. */
let top: { rss: number; at: Record<string, unknown> } = { rss: 0, at: {} };
const sampler = setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss > top.rss) top = { rss, at: snapshot() };
}, 20);
sampler.unref();

function mark(stage: string): void {
  const now = snapshot();
  let live: number | undefined;
  if (collectGarbage !== undefined) {
    collectGarbage();
    live = process.memoryUsage().heapUsed;
  }
  const line = {
    // What the peak was when this stage began: it grew during the stage before.
    stage,
    after: lastStage,
    atMs: Math.round(performance.now() - started),
    maxRssMiB: Math.round((process.resourceUsage().maxRSS * 1024) / MIB),
    ...now,
    ...(live !== undefined && { liveMiB: Math.round(live / MIB) }),
    top: top.at,
  };
  top = { rss: 0, at: {} };
  lastStage = stage;
  const heapSnapshot = snapshotStages.has(stage) ? writeHeapSnapshot(join(tmpdir(), `stages-${process.pid}-${stage}.heapsnapshot`)) : undefined;
  process.stdout.write(`${JSON.stringify({ ...line, ...(heapSnapshot !== undefined && { heapSnapshot }) })}\n`);
}

async function main(args: readonly string[]): Promise<number> {
  const invocation = parseConfig(args, {});
  if (invocation.kind !== 'run') {
    process.stderr.write('stages: give the flags of one pass (no explain, apply, --help)\n');
    return 2;
  }
  const { config } = invocation;
  const http = await KubeHttp.create(await loadConnection(config, process.env), httpOptions(config));
  mark('connected');
  try {
    const outcome = await runPass(config, passSettings(config), {
      cluster: new KubeCluster(http, config.pageSize),
      now: () => new Date(),
      log: createLogger('warn'),
      signal: new AbortController().signal,
      sleep: abortableSleep,
      progress: {
        update: (stage: PassStage) => {
          if (stage.stage !== lastStage) mark(stage.stage);
        },
        clear: () => undefined,
      },
    });
    mark('report-built');
    if (outcome.kind !== 'done') return 1;
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    let bytes = 0;
    for (const chunk of renderReportChunks(outcome.report, config.output)) {
      bytes += chunk.length;
      if (!sink.write(chunk)) await new Promise((resolve) => sink.once('drain', resolve));
    }
    mark('report-rendered');
    process.stdout.write(`${JSON.stringify({ targets: outcome.report.summary.targets, runs: outcome.report.summary.runs, reportChars: bytes })}\n`);
    return outcome.exitCode;
  } finally {
    http.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

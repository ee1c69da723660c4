// Keeps the control plane's processes from outliving the process that started them.
//
// Three layers, from the gentlest:
// 1. stop(): SIGTERM kube-apiserver, wait for it, then etcd (kube-apiserver left alone
//    with a stopped etcd keeps running for minutes), SIGKILL after a deadline.
// 2. SIGINT/SIGTERM/SIGHUP handlers, registered while a control plane runs, that stop
//    them all and then let the signal take its default course. The children run in
//    their own session (`detached`), so a terminal's Ctrl-C reaches only us and the
//    stop order holds.
// 3. A watchdog per control plane for deaths no handler sees (SIGKILL, OOM, a crash, an
//    exit without stop()): a tiny `sh` in its own session whose stdin is a pipe from
//    us. The kernel closes that pipe whenever we die, however we die; on end of input
//    it stops the pids we gave it in reverse order and removes the directory. No polling
//    of a parent pid (which can be reused), no platform-specific prctl.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** How long a process gets to exit after SIGTERM before it gets SIGKILL. */
export const STOP_DEADLINE_MS = 10_000;

// Protocol on stdin, one line each: "pid N" (stop N, later pids first), "release" (we
// stopped everything ourselves: exit without touching anything). End of input without
// "release": our parent is gone, stop what is listed and remove the directory ($1).
const WATCHDOG_SCRIPT = `
dir=$1
pids=
while IFS= read -r line; do
  case $line in
    "pid "*) pids="\${line#pid } $pids" ;;
    release) exit 0 ;;
  esac
done
for pid in $pids; do
  kill -TERM "$pid" 2>/dev/null || continue
  tenths=0
  while kill -0 "$pid" 2>/dev/null && [ $tenths -lt ${STOP_DEADLINE_MS / 100} ]; do
    sleep 0.1
    tenths=$((tenths + 1))
  done
  kill -KILL "$pid" 2>/dev/null
done
rm -rf "$dir"
`;

export class Watchdog {
  private readonly process: ChildProcess;
  private readonly input: Writable;
  private readonly exited: Promise<void>;

  constructor(dir: string) {
    this.process = spawn('sh', ['-c', WATCHDOG_SCRIPT, 'trgc-watchdog', dir], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.exited = exitOf(this.process);
    if (this.process.stdin === null) throw new Error('watchdog has no stdin');
    this.input = this.process.stdin;
    // Without these, a watchdog that could not start (or was killed) would crash us
    // with an unhandled 'error' event; the servers are then only as safe as stop().
    this.process.on('error', (error) => process.stderr.write(`control plane watchdog failed: ${error.message}\n`));
    this.input.on('error', () => undefined);
    // Neither the watchdog nor its pipe may keep our event loop alive: a process that
    // forgot stop() should still exit, and the watchdog then cleans up after it.
    this.process.unref();
    (this.input as Writable & { unref?: () => void }).unref?.();
  }

  watch(pid: number): void {
    this.input.write(`pid ${pid}\n`);
  }

  async release(): Promise<void> {
    this.input.end('release\n');
    await withDeadline(this.exited, STOP_DEADLINE_MS);
  }
}

/** Resolves when the child has exited, whatever the reason, or could not be started. */
export function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    // A child that never started emits 'error' and no 'exit'.
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
}

/** SIGTERM, then SIGKILL if it is still running after the deadline. */
export async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (await withDeadline(exited, STOP_DEADLINE_MS)) return;
  child.kill('SIGKILL');
  await exited;
}

/** Whether `promise` settled within `ms`; the timer keeps the event loop alive meanwhile. */
async function withDeadline(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}

interface Stoppable {
  stop(): Promise<void>;
}

const running = new Set<Stoppable>();
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let stoppingOnSignal = false;

/** Stops every control plane this process started and has not stopped yet. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((item) => item.stop()));
}

async function onSignal(signal: NodeJS.Signals): Promise<void> {
  // A second Ctrl-C while stopping is absorbed: the stop in progress finishes the job.
  if (stoppingOnSignal) return;
  stoppingOnSignal = true;
  process.stderr.write(`${signal}: stopping ${running.size} control plane(s)\n`);
  try {
    await stopAll();
  } finally {
    unregisterSignalHandlers();
    stoppingOnSignal = false;
    // Let the signal do what it would have done without us, unless the host handles it.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  }
}

function handleSignal(signal: NodeJS.Signals): void {
  onSignal(signal).catch((error: unknown) => process.stderr.write(`stopping on ${signal} failed: ${String(error)}\n`));
}

function unregisterSignalHandlers(): void {
  for (const signal of SIGNALS) process.off(signal, handleSignal);
}

export function track(item: Stoppable): void {
  running.add(item);
  for (const signal of SIGNALS) {
    if (!process.listeners(signal).includes(handleSignal)) process.on(signal, handleSignal);
  }
}

export function untrack(item: Stoppable): void {
  running.delete(item);
  if (running.size === 0 && !stoppingOnSignal) unregisterSignalHandlers();
}

/**
 * What a build of the control plane's binaries shows while Go works: one line per build.
 * Go's own output (module downloads, the packages it compiles, errors) goes to a log file
 * (build.ts); here it is only counted. On a terminal the line is redrawn in place; anywhere
 * else (a CI log, a pipe) a line is written when the phase changes and every HEARTBEAT_MS
 * otherwise, so that a log stays short and still shows the build is alive.
 */
import { progressWanted } from '../src/ops/progress.js';

export type BuildPhase = 'resolving' | 'downloading' | 'compiling';

/** Where a build is, with the counts seen so far in go's output. */
export interface BuildState {
  /** What is built, e.g. `etcd v3.6.16`. */
  what: string;
  phase: BuildPhase;
  /** `go: downloading` lines. */
  modules: number;
  /** Packages `go build -v` or `go install -v` named as it compiled them. */
  packages: number;
  elapsedMs: number;
}

/** Where build progress is written: stderr by default, the demo's stdout indented. */
export interface BuildOutput {
  stream: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  /** Put before every line, e.g. the demo's indentation. */
  indent?: string;
}

/** Off a terminal, at most this long between two progress lines of one phase. */
export const HEARTBEAT_MS = 60_000;
/** On a terminal, the line is redrawn this often (its elapsed time) besides on go's output. */
export const REDRAW_MS = 1_000;

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The progress line of a state, e.g. `building etcd v3.6.16: compiling, 312 packages (1 min 2 s)`; pure. */
export function buildProgressLine(state: BuildState): string {
  return `building ${state.what}: ${phaseText(state)} (${formatDuration(state.elapsedMs)})`;
}

function phaseText(state: BuildState): string {
  switch (state.phase) {
    case 'resolving':
      return 'resolving modules';
    case 'downloading':
      return `downloading modules, ${state.modules} so far`;
    case 'compiling':
      return state.packages === 0 ? 'compiling' : `compiling, ${state.packages} package${state.packages === 1 ? '' : 's'}`;
  }
}

const PHASE_ORDER: readonly BuildPhase[] = ['resolving', 'downloading', 'compiling'];

/** The later of two phases: a build only moves forward, so a late download during compiling changes no line. */
function later(a: BuildPhase, b: BuildPhase): BuildPhase {
  return PHASE_ORDER.indexOf(a) >= PHASE_ORDER.indexOf(b) ? a : b;
}

/** The state as a go command starts; pure. `go build` compiles (after `go mod tidy`); the others resolve modules first. */
export function atCommand(state: BuildState, args: readonly string[]): BuildState {
  return { ...state, phase: later(state.phase, args[0] === 'build' ? 'compiling' : 'resolving') };
}

/** An import path alone on its line: how `-v` names a package it compiles. Errors and go's notes have spaces or colons. */
const PACKAGE_LINE = /^[A-Za-z0-9_.~+-]+(?:\/[A-Za-z0-9_.~+-]+)*$/;

/** The state after one line of go's stderr; pure. Lines that say nothing of progress (errors, notes) leave it as it is. */
export function afterGoLine(state: BuildState, line: string): BuildState {
  if (line.startsWith('go: downloading ')) return { ...state, phase: later(state.phase, 'downloading'), modules: state.modules + 1 };
  if (PACKAGE_LINE.test(line)) return { ...state, phase: 'compiling', packages: state.packages + 1 };
  return state;
}

/** The last progress line written off a terminal: its phase and when. */
export interface LastWritten {
  phase: BuildPhase;
  atMs: number;
}

/**
 * What to write for a state now, or undefined for nothing; pure. On a terminal: the line
 * again, from the start of the row, cut to its width, the rest of the row erased. Off one:
 * a line of its own when the phase changed since `last`, or HEARTBEAT_MS passed.
 */
export function progressWrite(state: BuildState, context: { tty: boolean; columns?: number; indent?: string; nowMs: number; last: LastWritten | undefined }): string | undefined {
  const line = `${context.indent ?? ''}${buildProgressLine(state)}`;
  if (context.tty) return `\r${fitted(line, context.columns)}\x1b[K`;
  const { last } = context;
  if (last !== undefined && last.phase === state.phase && context.nowMs - last.atMs < HEARTBEAT_MS) return undefined;
  return `${line}\n`;
}

/** A line cut to the terminal's width so that it never wraps (a wrapped line cannot be redrawn with `\r`). */
function fitted(line: string, columns: number | undefined): string {
  // A terminal that does not know its size (a pty from script(1)) says 0 columns.
  const width = Math.max(20, (columns || 80) - 1);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** The one progress line of one build, fed with go's output and a timer. */
export class BuildProgress {
  private state: BuildState;
  private last: LastWritten | undefined;
  private readonly tty: boolean;
  private readonly started: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: BuildOutput,
    what: string,
    env: NodeJS.ProcessEnv,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.tty = progressWanted('auto', output.stream, env);
    this.started = nowMs();
    this.state = { what, phase: 'resolving', modules: 0, packages: 0, elapsedMs: 0 };
  }

  /** A line of its own, before the progress line starts (off a terminal: what is built, where its log is). */
  note(text: string): void {
    if (!this.tty) this.output.stream.write(`${this.output.indent ?? ''}${text}\n`);
  }

  start(): void {
    // Off a terminal the note stands for the first line: the next comes with a new phase, or a heartbeat later.
    if (this.tty) this.draw();
    else this.last = { phase: this.state.phase, atMs: this.nowMs() };
    this.timer = setInterval(() => this.draw(), this.tty ? REDRAW_MS : HEARTBEAT_MS);
    // A build is awaited by whoever started it; the timer alone must not keep a process alive.
    this.timer.unref();
  }

  command(args: readonly string[]): void {
    this.update(atCommand(this.state, args));
  }

  goLine(line: string): void {
    this.update(afterGoLine(this.state, line));
  }

  /**
   * The last line: on a terminal it replaces the progress line, and ends it. Never cut: it
   * is not redrawn, so it may wrap, and the log's path in it must be whole.
   */
  finish(text: string): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    const line = `${this.output.indent ?? ''}${text}`;
    this.output.stream.write(this.tty ? `\r${line}\x1b[K\n` : `${line}\n`);
  }

  private update(next: BuildState): void {
    const changed = next.phase !== this.state.phase;
    this.state = next;
    // On a terminal the counts are redrawn with the timer; a phase change at once.
    if (changed || !this.tty) this.draw();
  }

  private draw(): void {
    const now = this.nowMs();
    const text = progressWrite(
      { ...this.state, elapsedMs: now - this.started },
      { tty: this.tty, ...(this.output.stream.columns === undefined ? {} : { columns: this.output.stream.columns }), ...(this.output.indent === undefined ? {} : { indent: this.output.indent }), nowMs: now, last: this.last },
    );
    if (text === undefined) return;
    this.output.stream.write(text);
    if (!this.tty) this.last = { phase: this.state.phase, atMs: now };
  }
}

/**
 * Where a long pass is, on one updating line of a terminal. The sweep tells a Progress what
 * stage it is in; off a terminal the CLI hands it none, and only the logs speak.
 */

/** `--progress`: `auto` draws the line on a terminal that can take it, `never` never does. */
export const PROGRESS_MODES = ['auto', 'never'] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/**
 * Whether to draw the progress line on stderr. `auto` needs a terminal that understands
 * cursor movement: stderr a TTY, and TERM set and not `dumb`. A pod with `tty: true` has no
 * TERM, and Emacs' shell and some CI runners say `dumb`; there the line would only be noise
 * between the JSON log lines of whatever records the terminal.
 */
export function progressWanted(mode: ProgressMode, stderr: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  switch (mode) {
    case 'never':
      return false;
    case 'auto': {
      const term = env['TERM'];
      return stderr.isTTY === true && term !== undefined && term !== '' && term !== 'dumb';
    }
  }
}

/** A stage of a pass, with the counts known so far. */
export type PassStage =
  | { stage: 'listing-targets' }
  | { stage: 'listing-runs'; targets: number }
  | { stage: 'deciding'; targets: number; runs: number }
  | { stage: 're-checking'; candidates: number }
  | { stage: 'deleting'; done: number; total: number }
  | { stage: 'recording-events'; done: number; total: number };

export interface Progress {
  update(stage: PassStage): void;
  /** Removes the line, before a log line or the report is written, or at the end. */
  clear(): void;
}

/** The line for a stage, e.g. `deleting 120 of 1000 (12%)`; pure. */
export function progressLine(stage: PassStage): string {
  switch (stage.stage) {
    case 'listing-targets':
      return 'listing PipelineResources…';
    case 'listing-runs':
      return `listing runs… (${stage.targets} PipelineResources)`;
    case 'deciding':
      return `deciding… (${stage.targets} PipelineResources, ${stage.runs} runs)`;
    case 're-checking':
      return `re-checking runs before deleting ${stage.candidates}…`;
    case 'deleting':
      return `deleting ${stage.done} of ${stage.total}${percent(stage.done, stage.total)}`;
    case 'recording-events':
      return `recording Events ${stage.done} of ${stage.total}`;
  }
}

function percent(done: number, total: number): string {
  return total === 0 ? '' : ` (${Math.floor((done * 100) / total)}%)`;
}

export interface TerminalLike {
  write(text: string): unknown;
  columns?: number;
}

/** See TerminalProgress.clear. */
export const CLEAR_LINE = '\r\x1b[2K\x1b[A\n';

/** At most this often the line is redrawn within one stage: a terminal is slower than a delete loop. */
const REDRAW_MS = 100;

/**
 * The one updating line: carriage return, the text (cut to the terminal's width so it never
 * wraps), erase to the end of the line. Redrawn when the stage changes, and within a stage
 * at most every REDRAW_MS.
 */
export class TerminalProgress implements Progress {
  private shown = false;
  private lastStage = '';
  private lastDrawMs = 0;
  private current: PassStage | undefined;

  constructor(
    private readonly terminal: TerminalLike,
    private readonly nowMs: () => number = Date.now,
  ) {}

  update(stage: PassStage): void {
    this.current = stage;
    const now = this.nowMs();
    if (stage.stage === this.lastStage && now - this.lastDrawMs < REDRAW_MS && !isLast(stage)) return;
    this.lastStage = stage.stage;
    this.lastDrawMs = now;
    this.draw(stage);
  }

  /**
   * Erases the line and leaves the cursor at its start, with a line break written since the
   * progress text: what comes next (a log line, the report) is on a line of its own on the
   * screen and in the bytes, for whatever records the terminal and reads it line by line.
   * Carriage return, erase the line, up one line, line feed: the feed brings the cursor back
   * to the erased line.
   */
  clear(): void {
    if (!this.shown) return;
    this.terminal.write(CLEAR_LINE);
    this.shown = false;
  }

  /** Draws the last stage again, after a log line cleared it. */
  redraw(): void {
    if (this.current !== undefined && this.lastStage !== '') this.draw(this.current);
  }

  /** A pass is over: the line goes and the next pass starts from nothing. */
  end(): void {
    this.clear();
    this.current = undefined;
    this.lastStage = '';
  }

  private draw(stage: PassStage): void {
    // A terminal that does not know its size (a pty from script(1)) says 0 columns.
    const width = Math.max(20, (this.terminal.columns || 80) - 1);
    const line = progressLine(stage);
    this.terminal.write(`\r${line.length > width ? `${line.slice(0, width - 1)}…` : line}\x1b[K`);
    this.shown = true;
  }
}

function isLast(stage: PassStage): boolean {
  return (stage.stage === 'deleting' || stage.stage === 'recording-events') && stage.done === stage.total;
}

/**
 * Where a long pass is, on one updating line of a terminal. The sweep tells a Progress what
 * stage it is in; off a terminal the CLI hands it none, and only the logs speak.
 */

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

  clear(): void {
    if (!this.shown) return;
    this.terminal.write('\r\x1b[2K');
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

/**
 * The progress line and the log lines on one stderr: when the line is drawn at all
 * (`--progress`, a TTY, TERM), and that a log line or the report is never on a line with
 * progress text, neither on the screen nor in the bytes that a recorded terminal keeps.
 * The terminal is plain data: a screen of rows and a cursor, driven by what is written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logDestination } from '../../src/ops/log.js';
import { CLEAR_LINE, TerminalProgress, progressLine, progressWanted, type PassStage, type ProgressMode } from '../../src/ops/progress.js';

describe('progressWanted', () => {
  const rows: { row: string; mode: ProgressMode; isTTY: boolean | undefined; term: string | undefined; expect: boolean }[] = [
    { row: 'a terminal that knows its type', mode: 'auto', isTTY: true, term: 'xterm-256color', expect: true },
    { row: 'never, even on such a terminal', mode: 'never', isTTY: true, term: 'xterm-256color', expect: false },
    { row: 'a pipe or a file (a pod log without tty)', mode: 'auto', isTTY: undefined, term: 'xterm', expect: false },
    { row: 'a stream that says it is no TTY', mode: 'auto', isTTY: false, term: 'xterm', expect: false },
    { row: 'a pod with tty: true, where nothing sets TERM', mode: 'auto', isTTY: true, term: undefined, expect: false },
    { row: 'TERM set but empty', mode: 'auto', isTTY: true, term: '', expect: false },
    { row: 'a dumb terminal (Emacs shell, some CI runners)', mode: 'auto', isTTY: true, term: 'dumb', expect: false },
  ];
  for (const { row, mode, isTTY, term, expect } of rows) {
    it(row, () => assert.equal(progressWanted(mode, isTTY === undefined ? {} : { isTTY }, term === undefined ? {} : { TERM: term }), expect));
  }
});

/**
 * A terminal as far as the progress line uses one: printable characters overwrite at the
 * cursor; `\r`; `\n` as a TTY writes it (carriage return and line feed); CSI K (erase to the
 * end of the line), 2K (erase the line) and A (cursor up, stopping at the top row). Any
 * other control character or sequence fails the test. Rows do not wrap.
 */
class FakeTerminal {
  readonly columns = 80;
  /** Everything written, as a recording of the terminal would keep it. */
  bytes = '';
  rows: string[] = [''];
  private row = 0;
  private column = 0;

  write(text: string): boolean {
    this.bytes += text;
    for (let at = 0; at < text.length; ) {
      const csi = /^\x1b\[(\d*)([A-Za-z])/.exec(text.slice(at));
      if (csi !== null) {
        this.control(csi[1] ?? '', csi[2] ?? '');
        at += csi[0].length;
        continue;
      }
      this.character(text[at] ?? '');
      at++;
    }
    return true;
  }

  private control(parameter: string, final: string): void {
    const current = this.rows[this.row] ?? '';
    if (final === 'K' && parameter === '') this.rows[this.row] = current.slice(0, this.column);
    else if (final === 'K' && parameter === '2') this.rows[this.row] = '';
    else if (final === 'A') this.row = Math.max(0, this.row - Number(parameter || '1'));
    else assert.fail(`unexpected sequence ESC [ ${parameter} ${final}`);
  }

  private character(char: string): void {
    if (char === '\r') {
      this.column = 0;
    } else if (char === '\n') {
      this.row++;
      this.column = 0;
      if (this.rows.length <= this.row) this.rows.push('');
    } else {
      assert.doesNotMatch(char, /\p{Cc}/u, `unexpected control character ${JSON.stringify(char)}`);
      const current = (this.rows[this.row] ?? '').padEnd(this.column);
      this.rows[this.row] = current.slice(0, this.column) + char + current.slice(this.column + 1);
      this.column++;
    }
  }
}

/** A pino line: JSON and a line feed. */
function logLine(msg: string): string {
  return `${JSON.stringify({ level: 30, time: 1_764_417_600_000, msg })}\n`;
}

describe('progress and log lines on one terminal', () => {
  function session(): { terminal: FakeTerminal; progress: TerminalProgress; log: (msg: string) => string } {
    const terminal = new FakeTerminal();
    terminal.write('$ tekton-resource-gc\n');
    let nowMs = 0;
    // Each update a second later: every one is drawn.
    const progress = new TerminalProgress(terminal, () => (nowMs += 1000));
    const destination = logDestination(terminal, progress);
    const log = (msg: string): string => {
      const line = logLine(msg);
      destination.write(line);
      return line.trimEnd();
    };
    return { terminal, progress, log };
  }

  const stages: PassStage[] = [
    { stage: 'listing-targets' },
    { stage: 'listing-runs', targets: 1200 },
    { stage: 'deciding', targets: 1200, runs: 5400 },
    { stage: 're-checking', candidates: 3 },
    { stage: 'deleting', done: 0, total: 3 },
    { stage: 'deleting', done: 1, total: 3 },
  ];

  it('shows each log line at column 0 of a row of its own, the progress line below the last one', () => {
    const { terminal, progress, log } = session();
    const logged: string[] = [];
    for (const [index, stage] of stages.entries()) {
      progress.update(stage);
      assert.equal(terminal.rows.at(-1), progressLine(stage), 'the progress line is the last row');
      logged.push(log(`line ${index}`));
      if (index === 2) logged.push(log('a second line in a row'));
      assert.deepEqual(terminal.rows, ['$ tekton-resource-gc', ...logged, progressLine(stage)]);
    }
  });

  it('leaves no progress text behind once the pass ends, and the report starts on a row of its own', () => {
    const { terminal, progress, log } = session();
    progress.update({ stage: 'listing-targets' });
    const first = log('first');
    progress.update({ stage: 'deleting', done: 3, total: 3 });
    progress.end();
    terminal.write('NAMESPACE  NAME\n');
    const after = log('pass finished');
    assert.deepEqual(terminal.rows, ['$ tekton-resource-gc', first, 'NAMESPACE  NAME', after, '']);
  });

  it('keeps every log line whole on a line of its own in the bytes, for whatever records the terminal', () => {
    const { terminal, progress, log } = session();
    const logged: string[] = [];
    for (const [index, stage] of stages.entries()) {
      progress.update(stage);
      logged.push(log(`line ${index}`));
    }
    progress.end();
    terminal.write('NAMESPACE  NAME\n');
    const lines = terminal.bytes.split('\n');
    for (const line of logged) assert.ok(lines.includes(line), `${JSON.stringify(line)} is a line of its own in ${JSON.stringify(terminal.bytes)}`);
    assert.ok(lines.includes('NAMESPACE  NAME'), 'so is the report');
    // Every other line holds only the progress line and the sequences that erase it.
    const others = lines.filter((line) => !logged.includes(line) && line !== 'NAMESPACE  NAME' && line !== '$ tekton-resource-gc' && line !== '');
    for (const line of others) assert.ok(line.endsWith(CLEAR_LINE.slice(0, -1)), JSON.stringify(line));
  });

  it('a log line with no progress line drawn is written as it is', () => {
    const { terminal, log } = session();
    const line = log('before any stage');
    assert.equal(terminal.bytes, `$ tekton-resource-gc\n${line}\n`);
  });
});

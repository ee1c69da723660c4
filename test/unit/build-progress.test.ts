/**
 * The build's progress line (harness/buildprogress.ts): what go's output does to it, the
 * line for each phase and elapsed time, and what is written when: on a terminal the line
 * again in place, off one a line only at a phase change or after HEARTBEAT_MS.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BuildProgress, HEARTBEAT_MS, afterGoLine, atCommand, buildProgressLine, progressWrite, type BuildState } from '../../harness/buildprogress.js';

const START: BuildState = { what: 'etcd v3.6.16', phase: 'resolving', modules: 0, packages: 0, elapsedMs: 0 };

describe('buildProgressLine', () => {
  const rows: { row: string; state: Partial<BuildState>; line: string }[] = [
    { row: 'go mod tidy, nothing downloaded yet', state: { elapsedMs: 2_400 }, line: 'building etcd v3.6.16: resolving modules (2 s)' },
    { row: 'modules downloading', state: { phase: 'downloading', modules: 57, elapsedMs: 57_000 }, line: 'building etcd v3.6.16: downloading modules, 57 so far (57 s)' },
    { row: 'compiling, over a minute', state: { phase: 'compiling', modules: 57, packages: 312, elapsedMs: 130_000 }, line: 'building etcd v3.6.16: compiling, 312 packages (2 min 10 s)' },
    { row: 'compiling, before -v named a package (or all were in the Go build cache)', state: { phase: 'compiling', elapsedMs: 61_000 }, line: 'building etcd v3.6.16: compiling (1 min 1 s)' },
    {
      row: 'two binaries of one recipe',
      state: { what: 'kube-apiserver, kubectl v1.35.4', phase: 'compiling', packages: 1, elapsedMs: 0 },
      line: 'building kube-apiserver, kubectl v1.35.4: compiling, 1 package (0 s)',
    },
  ];
  for (const { row, state, line } of rows) it(row, () => assert.equal(buildProgressLine({ ...START, ...state }), line));
});

describe("go's output and commands move the phase forward only", () => {
  const fold = (lines: readonly string[], from: BuildState = START): BuildState => lines.reduce(afterGoLine, from);

  it('counts downloads and packages; errors and notes change nothing', () => {
    const state = fold([
      'go: downloading go.etcd.io/etcd/server/v3 v3.6.16',
      'go: downloading github.com/spf13/cobra v1.10.2',
      'go: finding module for package github.com/example/x',
      'internal/goarch',
      'go.etcd.io/etcd/server/v3/etcdserver',
      '# go.etcd.io/etcd/server/v3',
      './main.go:3:2: undefined: x',
      'go: warning: "all" matched no packages',
    ]);
    assert.deepEqual([state.phase, state.modules, state.packages], ['compiling', 2, 2]);
  });

  it('a download while compiling counts, but the line stays at compiling', () => {
    const state = fold(['runtime', 'go: downloading golang.org/x/sys v0.49.0']);
    assert.deepEqual([state.phase, state.modules, state.packages], ['compiling', 1, 1]);
  });

  it('go build starts compiling; go mod tidy after a download does not go back to resolving', () => {
    assert.equal(atCommand(START, ['build', '-v', '-o', 'etcd', '.']).phase, 'compiling');
    assert.equal(atCommand(START, ['install', '-v', 'helm.sh/helm/v4/cmd/helm@v4.3.1']).phase, 'resolving');
    assert.equal(atCommand({ ...START, phase: 'downloading' }, ['mod', 'tidy']).phase, 'downloading');
  });
});

describe('progressWrite', () => {
  const downloading: BuildState = { ...START, phase: 'downloading', modules: 3, elapsedMs: 5_000 };

  it('on a terminal: the line from the start of the row, the rest of the row erased, every time', () => {
    const context = { tty: true, columns: 120, nowMs: 5_000, last: { phase: 'downloading' as const, atMs: 4_000 } };
    assert.equal(progressWrite(downloading, context), '\rbuilding etcd v3.6.16: downloading modules, 3 so far (5 s)\x1b[K');
  });

  it('on a terminal: indented, and cut to the width so that it never wraps', () => {
    const written = progressWrite({ ...downloading, what: 'kube-apiserver, kubectl v1.35.4' }, { tty: true, columns: 40, indent: '    ', nowMs: 0, last: undefined });
    assert.equal(written, '\r    building kube-apiserver, kubectl v…\x1b[K');
    assert.equal((written ?? '').length - '\r\x1b[K'.length, 39);
  });

  const offTerminal: { row: string; last: { phase: BuildState['phase']; atMs: number } | undefined; nowMs: number; written: boolean }[] = [
    { row: 'the first line', last: undefined, nowMs: 0, written: true },
    { row: 'the same phase, soon after', last: { phase: 'downloading', atMs: 0 }, nowMs: HEARTBEAT_MS - 1, written: false },
    { row: 'the same phase, a heartbeat later', last: { phase: 'downloading', atMs: 0 }, nowMs: HEARTBEAT_MS, written: true },
    { row: 'a new phase, at once', last: { phase: 'resolving', atMs: 0 }, nowMs: 1, written: true },
  ];
  for (const { row, last, nowMs, written } of offTerminal) {
    it(`off a terminal: ${row}`, () => {
      assert.equal(progressWrite(downloading, { tty: false, indent: '  ', nowMs, last }), written ? '  building etcd v3.6.16: downloading modules, 3 so far (5 s)\n' : undefined);
    });
  }
});

describe('BuildProgress', () => {
  /** A build of etcd as go reports it: tidy downloads 130 modules, build compiles 400 packages. */
  function simulate(stream: { write(text: string): unknown; isTTY?: boolean }, env: NodeJS.ProcessEnv): void {
    let now = 0;
    const progress = new BuildProgress({ stream }, 'etcd v3.6.16', env, () => now);
    progress.note('building etcd v3.6.16 with Go; go\'s output: /cache/build-logs/etcd.log');
    progress.start();
    progress.command(['mod', 'tidy']);
    for (let i = 0; i < 130; i++) {
      now += 500;
      progress.goLine(`go: downloading example.com/m${i} v1.0.0`);
    }
    progress.command(['build', '-v', '.']);
    for (let i = 0; i < 400; i++) {
      now += 300;
      progress.goLine(`example.com/m${i % 130}/pkg${i}`);
    }
    progress.finish('built etcd v3.6.16 in 3 min 5 s');
  }

  it('off a terminal: the note, then one line per phase and per heartbeat, the last line', () => {
    let written = '';
    simulate({ write: (text: string) => (written += text) }, {});
    assert.deepEqual(written.split('\n'), [
      "building etcd v3.6.16 with Go; go's output: /cache/build-logs/etcd.log",
      'building etcd v3.6.16: downloading modules, 1 so far (1 s)',
      'building etcd v3.6.16: downloading modules, 121 so far (1 min 1 s)',
      'building etcd v3.6.16: compiling (1 min 5 s)',
      // A heartbeat after the phase's first line, not after the build's start.
      'building etcd v3.6.16: compiling, 200 packages (2 min 5 s)',
      'building etcd v3.6.16: compiling, 400 packages (3 min 5 s)',
      'built etcd v3.6.16 in 3 min 5 s',
      '',
    ]);
  });

  it('on a terminal: no note, the line redrawn in place, one line break at the end', () => {
    let written = '';
    simulate({ write: (text: string) => (written += text), isTTY: true }, { TERM: 'xterm-256color' });
    assert.equal(written.split('\n').length, 2);
    assert.ok(written.endsWith('\rbuilt etcd v3.6.16 in 3 min 5 s\x1b[K\n'), JSON.stringify(written.slice(-80)));
    assert.doesNotMatch(written, /go: downloading|example\.com/);
    // Drawn at each phase change (the counts follow with the timer's redraws).
    assert.deepEqual(
      written.split('\r').filter((part) => part !== '').map((part) => part.replace(/\x1b\[K\n?$/, '')),
      ['building etcd v3.6.16: resolving modules (0 s)', 'building etcd v3.6.16: downloading modules, 1 so far (1 s)', 'building etcd v3.6.16: compiling (1 min 5 s)', 'built etcd v3.6.16 in 3 min 5 s'],
    );
  });

  it("on a narrow terminal the last line is whole: it names the log's path", () => {
    let written = '';
    const progress = new BuildProgress({ stream: { write: (text: string) => (written += text), isTTY: true, columns: 40 } }, 'etcd v3.6.16', { TERM: 'xterm' });
    progress.start();
    const last = "built etcd v3.6.16 in 33 s (once per version); go's output: /home/someone/.cache/tekton-resource-gc/build-logs/etcd-v3.6.16.log";
    progress.finish(last);
    // The progress line cut to 39 columns, then the last line whole.
    assert.equal(written, `\rbuilding etcd v3.6.16: resolving modul…\x1b[K\r${last}\x1b[K\n`);
  });

  it('a TTY with TERM=dumb is written to as a log', () => {
    let written = '';
    simulate({ write: (text: string) => (written += text), isTTY: true }, { TERM: 'dumb' });
    assert.doesNotMatch(written, /\r|\x1b/);
  });
});

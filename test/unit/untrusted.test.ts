/**
 * Text that anyone who may label or annotate a PipelineResource (or create a run) controls,
 * on its way to a terminal, a log and a pull-request comment: every renderer escapes control
 * and bidirectional characters, Markdown pings nobody and links no issue, and JSON reads
 * back as it was. Examples first, then properties over arbitrary names, labels and
 * annotation values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { decide } from '../../src/core/decide.js';
import { explain, type ExplainInput } from '../../src/core/explain.js';
import type { LinkState, RunRecord, TargetKindName, TargetRecord } from '../../src/core/types.js';
import { UNSAFE_CHARACTERS, escapeControls, escapeControlsInJson } from '../../src/text/escape.js';
import { logDestination } from '../../src/ops/log.js';
import { buildReport } from '../../src/report/build.js';
import { renderExplanationJson, renderExplanationText } from '../../src/report/explain.js';
import { renderJson } from '../../src/report/json.js';
import { escapeMarkdown, renderMarkdown } from '../../src/report/markdown.js';
import type { Report, ReportDocument, ReportReference } from '../../src/report/model.js';
import { REFERENCES_MAX_CHARS, describeHolders, describeReferences, renderText } from '../../src/report/text.js';
import { leftoverDecision } from '../fixtures/unit/leftoverreport.js';
import { claim, lrun, pod } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY, run, target } from '../fixtures/unit/records.js';

const KEY = POLICY.labelPrefix;

/** Retitles the terminal (OSC 0 … BEL), then clears it (CSI 2 J). */
const TERMINAL_ATTACK = '\x1b]0;owned\x07\x1b[2J';

/** Any control or bidirectional character except the line feeds that end lines, by Unicode's own definition. */
const UNSAFE_BUT_LINE_FEED = /(?!\n)[\p{Cc}\p{Bidi_Control}]/u;

/** What GitHub would turn into a notification or a link, in Markdown source. */
const LIVE_REFERENCES: readonly [string, RegExp][] = [
  ['a mention', /@[\p{L}\p{N}_-]/u],
  ['an issue reference', /#\d/],
  ['a GH- issue reference', /gh-\d/i],
  ['a URL', /:\/\//],
  ['a www link', /www\./i],
];

function reportOf(targets: TargetRecord[], runs: RunRecord[] = []): Report {
  const decisions = decide({ targets, runs, namespaces: new Map() }, POLICY, NOW);
  return buildReport({ dryRun: true, startedAt: NOW, finishedAt: NOW, scope: { namespaces: [], excludeNamespaces: [], selector: '' }, runs: runs.length, decisions, results: new Map() });
}

function explanationOf(t: TargetRecord, runs: RunRecord[] = []): ReturnType<typeof explain> {
  const input = { target: t, runs, namespace: undefined, scope: { inScope: true }, origins: { 'min-age': 'default', 'retain-for': 'default' } } as ExplainInput;
  return explain(input, POLICY, NOW);
}

describe('escapeControls', () => {
  it("escapes exactly Unicode's Cc and Bidi_Control characters, every code point checked", () => {
    const unicode = /^[\p{Cc}\p{Bidi_Control}]$/u;
    const ours = new RegExp(`^${UNSAFE_CHARACTERS.source}$`, 'u');
    const differ: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (unicode.test(char) !== ours.test(char)) differ.push(code.toString(16));
    }
    assert.deepEqual(differ, []);
  });

  const cases: [string, string, string][] = [
    ['C0: ESC, BEL, NUL, tab', `a${TERMINAL_ATTACK}\x00\tb`, 'a\\x1b]0;owned\\x07\\x1b[2J\\x00\\x09b'],
    ['DEL', 'x\x7fy', 'x\\x7fy'],
    ['C1: CSI and NEL, as code points', '\u009b2J\u0085', '\\u009b2J\\u0085'],
    ['bidirectional overrides and isolates (Trojan Source)', 'a\u202eb\u2066c\u2069', 'a\\u202eb\\u2066c\\u2069'],
    ['implicit directional marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['line breaks, for a caller that did not fold them', 'a\r\nb', 'a\\x0d\\x0ab'],
    ['everything else as it is: letters, accents, emoji, CJK', 'ci/src-é 🚀 構築', 'ci/src-é 🚀 構築'],
  ];
  for (const [what, text, expected] of cases) it(what, () => assert.equal(escapeControls(text), expected));

  it('in JSON, as \\u escapes that parse back to the same string', () => {
    const value = `${TERMINAL_ATTACK}\x7f\u009b\u202e`;
    const json = escapeControlsInJson(JSON.stringify({ value }));
    assert.equal(json, '{"value":"\\u001b]0;owned\\u0007\\u001b[2J\\u007f\\u009b\\u202e"}');
    assert.deepEqual(JSON.parse(json), { value });
  });
});

describe('an annotation that attacks the terminal', () => {
  const attacked = target('src-abc', { annotations: { [`${KEY}/retain-for`]: `7d${TERMINAL_ATTACK}\u009b2J\u202e` } });

  it('is shown escaped by the text report, on its row', () => {
    const text = renderText(reportOf([attacked]));
    assert.doesNotMatch(text, UNSAFE_BUT_LINE_FEED);
    assert.match(text, /^ci +PipelineResource +src-abc +- +keep .*"7d\\x1b\]0;owned\\x07\\x1b\[2J\\u009b2J\\u202e": .*$/m);
  });

  it('is shown escaped by explain, as text and as JSON', () => {
    const explanation = explanationOf(attacked);
    const text = renderExplanationText(explanation);
    assert.doesNotMatch(text, UNSAFE_BUT_LINE_FEED);
    assert.match(text, /\\u009b2J\\u202e/);
    const json = renderExplanationJson(explanation);
    assert.doesNotMatch(json, UNSAFE_BUT_LINE_FEED);
    assert.ok(JSON.stringify(JSON.parse(json)).includes(`7d${JSON.stringify(TERMINAL_ATTACK).slice(1, -1)}`), 'the value reads back as it was');
  });

  it('is shown escaped by the Markdown report, and as \\u escapes by the JSON report', () => {
    const report = reportOf([attacked]);
    assert.doesNotMatch(renderMarkdown(report), UNSAFE_BUT_LINE_FEED);
    const json = renderJson(report);
    assert.doesNotMatch(json, UNSAFE_BUT_LINE_FEED);
    assert.equal((JSON.parse(json) as ReportDocument).items[0]?.message, [...report.items][0]?.message);
  });

  it('reaches the log as \\u escapes, a line that parses back to the same value', () => {
    const lines: string[] = [];
    const log = pino({ base: null, timestamp: false }, logDestination({ write: (line: string) => lines.push(line) }));
    const value = `${TERMINAL_ATTACK}\x7f\u009b2J\u202e`;
    log.warn({ value }, 'retention value is not valid');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? '', UNSAFE_BUT_LINE_FEED);
    assert.equal((JSON.parse(lines[0] ?? '') as { value: string }).value, value);
  });
});

describe('Markdown: mentions and references', () => {
  const cases: [string, string, string][] = [
    ['a team mention', 'ping @org/team', 'ping @&#x200B;org/team'],
    ['an issue reference', 'fixes #42', 'fixes #&#x200B;42'],
    ['a cross-repository reference', 'owner/repo#7', 'owner/repo#&#x200B;7'],
    ['a GH- reference, any case', 'GH-26 gh-3', 'GH-&#x200B;26 gh-&#x200B;3'],
    ['an issue URL', 'https://github.com/o/r/issues/1', 'https:&#x200B;//github.com/o/r/issues/1'],
    ['a www link', 'www.example.com', 'www&#x200B;.example.com'],
    ['an e-mail address', 'a@b.io', 'a@&#x200B;b.io'],
    ['a character reference cannot make an @ of its own', '&#64;team', '&amp;#&#x200B;64;team'],
    ['a control character, escaped and then shown as written', 'a\x1bb', 'a\\x1bb'],
  ];
  for (const [what, text, expected] of cases) it(what, () => assert.equal(escapeMarkdown(text), expected));
});

describe('REFERENCING RUNS', () => {
  const longName = (letter: string): string => letter.repeat(253);
  const ref = (name: string): ReportReference => ({ kind: 'PipelineRun', name, state: 'succeeded' });

  it(`stays within ${REFERENCES_MAX_CHARS} characters for three runs of 253-character names, and counts the rest`, () => {
    const cell = describeReferences(['a', 'b', 'c'].map((letter) => ref(longName(letter))));
    assert.ok(cell.length <= REFERENCES_MAX_CHARS, `${cell.length} characters`);
    assert.match(cell, /^PipelineRun\/a+… \(succeeded\), \+2 more$/);
  });

  it('shows fewer runs when they do not fit, and all three when they do', () => {
    assert.equal(describeReferences([ref('x'.repeat(60)), ref('y'.repeat(60)), ref('z')]), `PipelineRun/${'x'.repeat(60)} (succeeded), +2 more`);
    assert.equal(describeReferences([ref('a'), ref('b'), ref('c'), ref('d')]), 'PipelineRun/a (succeeded), PipelineRun/b (succeeded), PipelineRun/c (succeeded), +1 more');
  });

  it('keeps a text report row of such a target under 500 columns; the JSON report keeps every name whole', () => {
    const t = target('src-abc');
    const runs = ['a', 'b', 'c'].map((letter) => run(longName(letter), ['src-abc']));
    const report = reportOf([t], runs);
    const row = renderText(report).split('\n')[1] ?? '';
    assert.ok(row.length < 500, `${row.length} columns`);
    assert.deepEqual((JSON.parse(renderJson(report)) as ReportDocument).items[0]?.references.map((r) => r.name), runs.map((r) => r.name));
  });
});

// ---- properties ----

/** Pieces of cluster text that matter to a renderer, and anything else. */
const piece = fc.oneof(
  fc.constantFrom('\x1b', '\x07', '\x00', '\r', '\n', '\t', '\x7f', '\u0085', '\u009b', '\u202e', '\u2066', '\u200f', '\u061c'),
  fc.constantFrom('@', '#', '|', '<', '>', '&', '\\', '`', '*', '_', '[', ']', '~', '$', ':', '/', '.', '-', ' ', '1', '42'),
  fc.constantFrom('@team', '@org/team', '#42', 'GH-7', 'owner/repo#9', 'https://github.com/o/r/issues/1', 'www.example.com', '&#64;x', TERMINAL_ATTACK, '\\x1b'),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
/** Sometimes as long as a name can be, or longer. */
const anyText = fc.oneof({ arbitrary: text, weight: 4 }, { arbitrary: text.map((t) => t.padEnd(300, 'n')), weight: 1 });

const targetArb = fc.record({
  namespace: anyText,
  name: anyText,
  retain: fc.option(anyText, { nil: undefined }),
  retainFor: fc.option(anyText, { nil: undefined }),
  retainUntil: fc.option(anyText, { nil: undefined }),
  runNames: fc.array(anyText, { maxLength: 5 }),
});

type TargetSpec = typeof targetArb extends fc.Arbitrary<infer T> ? T : never;

/** The target with its retention as labels and annotations, and the runs that reference it. */
function world(spec: TargetSpec, index: number): { target: TargetRecord; runs: RunRecord[] } {
  const retention: Record<string, string> = {};
  if (spec.retain !== undefined) retention[`${KEY}/retain`] = spec.retain;
  if (spec.retainFor !== undefined) retention[`${KEY}/retain-for`] = spec.retainFor;
  if (spec.retainUntil !== undefined) retention[`${KEY}/retain-until`] = spec.retainUntil;
  const t = target(spec.name, { namespace: spec.namespace, uid: `uid-${index}`, ...(index % 2 === 0 ? { labels: retention } : { annotations: retention }) });
  const runs = spec.runNames.map((name, at) => run(name, [spec.name], { namespace: spec.namespace, uid: `uid-${index}-${at}` }));
  return { target: t, runs };
}

function reportFrom(specs: readonly TargetSpec[], errors: readonly string[]): Report {
  const worlds = specs.map(world);
  const report = reportOf(
    worlds.map((w) => w.target),
    worlds.flatMap((w) => w.runs),
  );
  return errors.length === 0 ? report : { ...report, errors: [...errors], warnings: [...errors] };
}

const reports = fc.tuple(fc.array(targetArb, { minLength: 1, maxLength: 6 }), fc.array(anyText, { maxLength: 2 }));

/** The `|` that delimit cells: those after an even number of backslashes. */
function cellDelimiters(line: string): number {
  return line.match(/(?<!\\)(?:\\\\)*\|/g)?.length ?? 0;
}

describe('renderers, over arbitrary names, labels and annotation values', () => {
  it('text: no control or bidirectional character, one line per target, the runs column capped', () => {
    fc.assert(
      fc.property(reports, ([specs, errors]) => {
        const report = reportFrom(specs, errors);
        const output = renderText(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        const lines = output.trimEnd().split('\n');
        assert.equal(lines.length, 1 + report.items.length + 2 * errors.length + 1, 'header, rows, warnings, errors, summary');
        for (const item of report.items) assert.ok(describeReferences(item.references).length <= REFERENCES_MAX_CHARS);
      }),
    );
  });

  it('Markdown: no control or bidirectional character, no live mention, reference or link, one row per target', () => {
    fc.assert(
      fc.property(reports, ([specs, errors]) => {
        const report = reportFrom(specs, errors);
        const output = renderMarkdown(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        for (const [what, pattern] of LIVE_REFERENCES) assert.doesNotMatch(output, pattern, what);
        const rows = [...output.matchAll(/<details>\n<summary>.*<\/summary>\n\n([^]*?)\n\n<\/details>/g)].flatMap((match) => (match[1] ?? '').split('\n'));
        // A header and a separator per kind, then one row of nine cells per target.
        const kinds = new Set([...report.items].map((item) => item.kind)).size;
        assert.equal(rows.length, report.items.length + 2 * kinds);
        for (const row of rows) assert.equal(cellDelimiters(row), 10, row);
      }),
    );
  });

  it('JSON: no control or bidirectional character, and every string reads back as it was', () => {
    fc.assert(
      fc.property(reports, ([specs, errors]) => {
        const report = reportFrom(specs, errors);
        const output = renderJson(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        const parsed = JSON.parse(output) as ReportDocument;
        assert.deepEqual(parsed.items, [...report.items]);
        assert.deepEqual(parsed.errors, report.errors);
      }),
    );
  });

  it('explain: no control or bidirectional character as text; the JSON reads back as it was', () => {
    fc.assert(
      fc.property(targetArb, (spec) => {
        const { target: t, runs } = world(spec, 0);
        const explanation = explanationOf(t, runs);
        assert.doesNotMatch(renderExplanationText(explanation), UNSAFE_BUT_LINE_FEED);
        const json = renderExplanationJson(explanation);
        assert.doesNotMatch(json, UNSAFE_BUT_LINE_FEED);
        const parsed = JSON.parse(json) as { decision: { message: string }; references: { name: string }[] };
        assert.equal(parsed.decision.message, explanation.decision.message);
        assert.deepEqual(
          parsed.references.map((r) => r.name),
          explanation.decision.references.map((r) => r.name),
        );
      }),
    );
  });
});

describe('leftovers, over arbitrary names of objects, runs, Pods and phases', () => {
  const holderArb = fc.record({ kind: fc.constantFrom('Pod' as const, 'StatefulSet' as const), name: anyText, phase: fc.option(anyText, { nil: undefined }) });
  const leftoverArb = fc.record({
    namespace: anyText,
    kind: fc.constantFrom<TargetKindName>('PersistentVolumeClaim', 'StatefulSet', 'Secret', 'PipelineResource'),
    name: anyText,
    message: anyText,
    runNames: fc.array(fc.tuple(anyText, fc.constantFrom<LinkState>('running', 'succeeded', 'gone')), { maxLength: 4 }),
    heldBy: fc.array(holderArb, { maxLength: 4 }),
    bytes: fc.option(fc.nat(), { nil: undefined }),
  });
  const leftoverReports = fc.array(leftoverArb, { minLength: 1, maxLength: 6 }).map((specs) =>
    buildReport({
      dryRun: false,
      startedAt: NOW,
      finishedAt: NOW,
      scope: { namespaces: [], excludeNamespaces: [], selector: '', collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs'] },
      runs: 0,
      decisions: specs
        .map((spec) =>
          leftoverDecision({
          namespace: spec.namespace,
          kind: spec.kind,
          name: spec.name,
          action: 'keep',
          reason: 'in-use-by-pod',
          message: spec.message,
          references: spec.runNames.map(([name, state]) => ({ kind: 'PipelineRun', name, state, via: 'ownerReference' })),
          heldBy: spec.heldBy.map((holder) => (holder.phase === undefined ? { kind: holder.kind, name: holder.name } : holder)),
          ...(spec.kind === 'PersistentVolumeClaim' && spec.bytes !== undefined && { bytes: { value: spec.bytes, from: 'request' as const } }),
          }),
        )
        // Distinct uids, whatever the names.
        .map((decision, index) => ({ ...decision, target: { ...decision.target, uid: `uid-${index}` } })),
      results: new Map(),
    }),
  );

  it('text: no control or bidirectional character, one line per target, the runs and holders columns capped', () => {
    fc.assert(
      fc.property(leftoverReports, (report) => {
        const output = renderText(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        assert.equal(output.trimEnd().split('\n').length, 1 + report.items.length + 2, 'header, rows, bytes, summary');
        for (const item of report.items) assert.ok(describeHolders(item.heldBy ?? []).length <= REFERENCES_MAX_CHARS);
      }),
    );
  });

  it('Markdown: no control or bidirectional character, no live mention, reference or link, one row of nine cells per target', () => {
    fc.assert(
      fc.property(leftoverReports, (report) => {
        const output = renderMarkdown(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        for (const [what, pattern] of LIVE_REFERENCES) assert.doesNotMatch(output, pattern, what);
        const rows = [...output.matchAll(/<details>\n<summary>.*<\/summary>\n\n([^]*?)\n\n<\/details>/g)].flatMap((match) => (match[1] ?? '').split('\n'));
        const kinds = new Set([...report.items].map((item) => item.kind)).size;
        assert.equal(rows.length, report.items.length + 2 * kinds);
        for (const row of rows) assert.equal(cellDelimiters(row), 10, row);
      }),
    );
  });

  it('JSON: no control or bidirectional character, holders and runs read back as they were', () => {
    fc.assert(
      fc.property(leftoverReports, (report) => {
        const output = renderJson(report);
        assert.doesNotMatch(output, UNSAFE_BUT_LINE_FEED);
        assert.deepEqual((JSON.parse(output) as ReportDocument).items, [...report.items]);
      }),
    );
  });
});

describe('a Pod name that attacks the terminal, holding a claim', () => {
  it('is shown escaped by explain, as text and as JSON', () => {
    const owner = lrun('build-1');
    const held = claim('pvc-1', owner);
    const attacker = pod(`p${TERMINAL_ATTACK}\u202e`, { claims: ['pvc-1'], phase: `Running${TERMINAL_ATTACK}` });
    const explanation = explain(
      { target: held, runs: [owner], pods: [attacker], namespace: undefined, scope: { inScope: true }, origins: { 'min-age': 'default', 'retain-for': 'default' } },
      POLICY,
      NOW,
    );
    assert.equal(explanation.decision.reason, 'in-use-by-pod');
    const text = renderExplanationText(explanation);
    assert.doesNotMatch(text, UNSAFE_BUT_LINE_FEED);
    assert.match(text, /^held by: +Pod\/p\\x1b\]0;owned\\x07\\x1b\[2J\\u202e \(Running\\x1b/m);
    const json = renderExplanationJson(explanation);
    assert.doesNotMatch(json, UNSAFE_BUT_LINE_FEED);
    assert.deepEqual((JSON.parse(json) as { heldBy: unknown }).heldBy, [{ kind: 'Pod', name: attacker.name, phase: attacker.phase }]);
  });
});

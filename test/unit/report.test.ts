import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Action, Decision, Reason, ReferenceView, RunKindName, RunState } from '../../src/core/types.js';
import { buildReport, type PassRecord } from '../../src/report/build.js';
import { ITEMS_PER_PIECE, renderJson, renderJsonChunks } from '../../src/report/json.js';
import { MARKDOWN_MAX_CHARS, MARKDOWN_NAMESPACE_ROWS, MARKDOWN_ROWS_PER_KIND, escapeMarkdown, renderMarkdown } from '../../src/report/markdown.js';
import { OUTPUT_FORMATS, type Report, type ReportDocument, type Result } from '../../src/report/model.js';
import { RENDERERS, renderReport } from '../../src/report/render.js';
import { renderText, renderTextChunks, summaryLine } from '../../src/report/text.js';
import { assertGolden } from '../support/golden.js';

function run(kind: RunKindName, name: string, state: RunState, finishedAt?: string): ReferenceView {
  return finishedAt === undefined ? { kind, name, state, via: 'spec' } : { kind, name, state, finishedAt, via: 'spec' };
}

interface DecisionSpec {
  namespace: string;
  name: string;
  action: Action;
  reason: Reason;
  message: string;
  references?: ReferenceView[];
}

function decision(spec: DecisionSpec): Decision {
  return {
    target: {
      kind: 'PipelineResource',
      namespace: spec.namespace,
      name: spec.name,
      uid: `uid-${spec.namespace}-${spec.name}`,
      resourceVersion: '1',
      createdAt: '2026-11-20T08:00:00Z',
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    action: spec.action,
    reason: spec.reason,
    message: spec.message,
    references: spec.references ?? [],
    warnings: [],
  };
}

/** A CI cluster on a normal night: per-commit resources, a shared cache, a few kept ones. Deliberately unsorted. */
const NIGHT: Decision[] = [
  decision({ namespace: 'team-a', name: 'orphan-src', action: 'delete', reason: 'unreferenced', message: 'no run links it' }),
  decision({
    namespace: 'ci',
    name: 'src-abc123',
    action: 'delete',
    reason: 'runs-finished',
    message: 'all 2 linked runs finished; last at 2026-11-28T22:14:03Z',
    references: [
      run('PipelineRun', 'build-abc123', 'succeeded', '2026-11-28T22:14:03Z'),
      run('TaskRun', 'build-abc123-fetch', 'succeeded', '2026-11-28T22:10:41Z'),
    ],
  }),
  decision({
    namespace: 'ci',
    name: 'img-abc123',
    action: 'delete',
    reason: 'runs-finished',
    message: 'all 1 linked runs finished; last at 2026-11-28T22:14:03Z',
    references: [run('PipelineRun', 'build-abc123', 'failed', '2026-11-28T22:14:03Z')],
  }),
  decision({
    namespace: 'ci',
    name: 'src-def456',
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'PipelineRun/build-def456 is running',
    references: [run('PipelineRun', 'build-def456', 'running')],
  }),
  decision({
    namespace: 'ci',
    name: 'src-ghi789',
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'PipelineRun/build-ghi789 is pending',
    references: [run('PipelineRun', 'build-ghi789', 'pending')],
  }),
  decision({
    namespace: 'ci',
    name: 'go-mod-cache',
    action: 'keep',
    reason: 'retain-for',
    message: 'retain-for 7d from the last run, finished 2026-11-28T21:00:00Z: kept until 2026-12-05T21:00:00Z',
    references: [
      run('PipelineRun', 'nightly-1', 'succeeded', '2026-11-24T21:00:00Z'),
      run('PipelineRun', 'nightly-2', 'cancelled', '2026-11-25T21:00:00Z'),
      run('PipelineRun', 'nightly-3', 'failed', '2026-11-26T21:00:00Z'),
      run('PipelineRun', 'nightly-4', 'succeeded', '2026-11-27T21:00:00Z'),
      run('PipelineRun', 'nightly-5', 'succeeded', '2026-11-28T21:00:00Z'),
    ],
  }),
  decision({ namespace: 'ci', name: 'src-new', action: 'keep', reason: 'too-young', message: 'created 12m ago; min-age is 1h' }),
  decision({ namespace: 'team-a', name: 'base-image', action: 'keep', reason: 'retained', message: 'label tekton-resource-gc.io/retain is "true"' }),
  decision({
    namespace: 'team-a',
    name: 'odd-retention',
    action: 'keep',
    reason: 'retention-invalid',
    // Annotation values are free text: this one carries Markdown and HTML on purpose.
    message: 'annotation tekton-resource-gc.io/retain-for "1 week | *maybe* <b>later</b> $5_x" is not a duration',
  }),
];

const STARTED = new Date('2026-11-29T12:00:00.000Z');
const FINISHED = new Date('2026-11-29T12:00:01.250Z');
const ALL_NAMESPACES = { namespaces: [], excludeNamespaces: [], selector: '' };

function pass(overrides: Partial<PassRecord>): PassRecord {
  return {
    dryRun: true,
    startedAt: STARTED,
    finishedAt: FINISHED,
    scope: ALL_NAMESPACES,
    runs: 11,
    decisions: NIGHT,
    results: new Map(),
    ...overrides,
  };
}

const DRY_RUN = buildReport(pass({}));

/** 3,000 targets: a report that renderers hand over in many pieces. */
const MANY = buildReport(
  pass({
    decisions: Array.from({ length: 3000 }, (_, i) =>
      decision({ namespace: `team-${i % 7}`, name: `src-${String(i).padStart(5, '0')}`, action: 'delete', reason: 'unreferenced', message: 'no run links it' }),
    ),
  }),
);

const LIVE = buildReport(
  pass({
    dryRun: false,
    scope: { namespaces: ['ci', 'team-a'], excludeNamespaces: ['kube-system'], selector: 'app.kubernetes.io/part-of=ci' },
    results: new Map<string, Result>([
      ['uid-team-a-orphan-src', 'deleted'],
      ['uid-ci-src-abc123', 'gone'],
      ['uid-ci-img-abc123', 'changed'],
    ]),
  }),
);

describe('buildReport', () => {
  it('sorts items by namespace, then name', () => {
    const order = [...DRY_RUN.items].map((item) => `${item.namespace}/${item.name}`);
    assert.deepEqual(order, [
      'ci/go-mod-cache',
      'ci/img-abc123',
      'ci/src-abc123',
      'ci/src-def456',
      'ci/src-ghi789',
      'ci/src-new',
      'team-a/base-image',
      'team-a/odd-retention',
      'team-a/orphan-src',
    ]);
  });

  it('makes each item when it is read, never holding them all: the same items at every reading, new objects each time', () => {
    const { items } = DRY_RUN;
    assert.equal(Array.isArray(items), false, 'a pass report holds its decisions, not an array of items');
    const first = [...items];
    const second = [...items];
    assert.equal(first.length, items.length);
    assert.deepEqual(second, first);
    assert.notEqual(second[0], first[0]);
    // Made from the decisions: an item whose decision the pass has changed reads the change.
    const decisions = [decision({ namespace: 'ci', name: 'a', action: 'delete', reason: 'unreferenced', message: 'before' })];
    const report = buildReport(pass({ decisions }));
    (decisions[0] as { message: string }).message = 'after';
    assert.equal([...report.items][0]?.message, 'after');
  });

  it('counts targets, runs and actions', () => {
    const { targets, runs, delete: deletes, keep } = DRY_RUN.summary;
    assert.deepEqual({ targets, runs, deletes, keep }, { targets: 9, runs: 11, deletes: 3, keep: 6 });
  });

  it('lists only nonzero results and reasons, in their fixed orders', () => {
    assert.deepEqual(Object.entries(DRY_RUN.summary.results), [
      ['would-delete', 3],
      ['kept', 6],
    ]);
    assert.deepEqual(Object.entries(DRY_RUN.summary.reasons), [
      ['retained', 1],
      ['retention-invalid', 1],
      ['referenced-by-active-run', 2],
      ['too-young', 1],
      ['retain-for', 1],
      ['runs-finished', 2],
      ['unreferenced', 1],
    ]);
  });

  it('takes recorded results, and fills in the rest by action and mode', () => {
    const resultOf = (report: Report, name: string): Result | undefined => [...report.items].find((item) => item.name === name)?.result;
    const cases: [Report, string, Result][] = [
      // Dry run: a delete decision without a recorded result would be deleted.
      [DRY_RUN, 'orphan-src', 'would-delete'],
      // Keep decisions are kept in either mode.
      [DRY_RUN, 'base-image', 'kept'],
      [LIVE, 'base-image', 'kept'],
      // Live: recorded results win.
      [LIVE, 'orphan-src', 'deleted'],
      [LIVE, 'src-abc123', 'gone'],
      [LIVE, 'img-abc123', 'changed'],
    ];
    for (const [report, name, expected] of cases) assert.equal(resultOf(report, name), expected, name);
  });

  it('reports a live delete with no recorded outcome as aborted, never as deleted', () => {
    const report = buildReport(pass({ dryRun: false, decisions: NIGHT.filter((d) => d.target.name === 'orphan-src') }));
    assert.equal([...report.items][0]?.result, 'aborted');
    assert.deepEqual(report.summary.results, { aborted: 1 });
  });

  it('shows all namespaces as ["*"] and keeps named scopes as given', () => {
    assert.deepEqual(DRY_RUN.scope, { namespaces: ['*'], excludedNamespaces: [], selector: '' });
    assert.deepEqual(LIVE.scope, {
      namespaces: ['ci', 'team-a'],
      excludedNamespaces: ['kube-system'],
      selector: 'app.kubernetes.io/part-of=ci',
    });
  });

  it('drops the internal `via` of references and omits finishedAt when unknown', () => {
    const item = [...DRY_RUN.items].find((i) => i.name === 'src-def456');
    assert.deepEqual(item?.references, [{ kind: 'PipelineRun', name: 'build-def456', state: 'running' }]);
  });

  it('carries errors only when there are some', () => {
    assert.equal('errors' in DRY_RUN, false);
    assert.equal('errors' in buildReport(pass({ errors: [] })), false);
    assert.deepEqual(buildReport(pass({ errors: ['list taskruns in ci: 500'] })).errors, ['list taskruns in ci: 500']);
  });

  it('writes timestamps as ISO 8601 with milliseconds', () => {
    assert.equal(DRY_RUN.startedAt, '2026-11-29T12:00:00.000Z');
    assert.equal(DRY_RUN.finishedAt, '2026-11-29T12:00:01.250Z');
  });
});

describe('renderJson', () => {
  // docs/spec.md's example report, with its elisions filled in: the exact shape and key order.
  // Every report names each item's kind and collector and counts by kind, whatever is collected.
  const SPEC_EXAMPLE = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'GCReport',
    dryRun: true,
    startedAt: '2026-11-29T12:00:00.000Z',
    finishedAt: '2026-11-29T12:00:01.250Z',
    scope: { namespaces: ['*'], excludedNamespaces: [], selector: '' },
    summary: {
      targets: 3,
      runs: 7,
      delete: 1,
      keep: 2,
      results: { 'would-delete': 1, kept: 2 },
      reasons: { retained: 1, 'referenced-by-active-run': 1, 'runs-finished': 1 },
      byKind: { PipelineResource: { targets: 3, delete: 1, keep: 2 } },
    },
    items: [
      {
        namespace: 'ci',
        kind: 'PipelineResource',
        collector: 'pipelineresources',
        name: 'src-abc123',
        uid: 'uid-ci-src-abc123',
        createdAt: '2026-11-20T08:00:00Z',
        action: 'delete',
        reason: 'runs-finished',
        message: 'all 2 linked runs finished; last at 2026-11-28T22:14:03Z',
        references: [{ kind: 'PipelineRun', name: 'build-abc123', state: 'succeeded', finishedAt: '2026-11-28T22:14:03Z' }],
        result: 'would-delete',
      },
      {
        namespace: 'ci',
        kind: 'PipelineResource',
        collector: 'pipelineresources',
        name: 'src-def456',
        uid: 'uid-ci-src-def456',
        createdAt: '2026-11-20T08:00:00Z',
        action: 'keep',
        reason: 'referenced-by-active-run',
        message: 'PipelineRun/build-def456 is running',
        references: [{ kind: 'PipelineRun', name: 'build-def456', state: 'running' }],
        result: 'kept',
      },
      {
        namespace: 'team-a',
        kind: 'PipelineResource',
        collector: 'pipelineresources',
        name: 'base-image',
        uid: 'uid-team-a-base-image',
        createdAt: '2026-11-20T08:00:00Z',
        action: 'keep',
        reason: 'retained',
        message: 'label tekton-resource-gc.io/retain is "true"',
        references: [],
        result: 'kept',
      },
    ],
  };

  const specReport = buildReport(
    pass({
      runs: 7,
      decisions: [
        decision({ namespace: 'team-a', name: 'base-image', action: 'keep', reason: 'retained', message: 'label tekton-resource-gc.io/retain is "true"' }),
        decision({
          namespace: 'ci',
          name: 'src-abc123',
          action: 'delete',
          reason: 'runs-finished',
          message: 'all 2 linked runs finished; last at 2026-11-28T22:14:03Z',
          references: [run('PipelineRun', 'build-abc123', 'succeeded', '2026-11-28T22:14:03Z')],
        }),
        decision({
          namespace: 'ci',
          name: 'src-def456',
          action: 'keep',
          reason: 'referenced-by-active-run',
          message: 'PipelineRun/build-def456 is running',
          references: [run('PipelineRun', 'build-def456', 'running')],
        }),
      ],
    }),
  );

  it("is SPEC's example, pretty with 2 spaces and a trailing newline", () => {
    assert.equal(renderJson(specReport), `${JSON.stringify(SPEC_EXAMPLE, null, 2)}\n`);
  });

  it("keeps SPEC's key order even when the Report was assembled in another order", () => {
    const { items, summary, scope, ...head } = specReport;
    const shuffled: Report = { items, summary: { ...summary, reasons: { ...summary.reasons } }, scope, ...head };
    shuffled.summary.reasons = { 'runs-finished': 1, retained: 1, 'referenced-by-active-run': 1 };
    assert.equal(renderJson(shuffled), renderJson(specReport));
  });

  it('adds errors at the end only when there are some', () => {
    const parsed: unknown = JSON.parse(renderJson({ ...specReport, errors: ['pass stopped by SIGTERM'] }));
    assert.deepEqual(Object.keys(parsed as object).at(-1), 'errors');
    assert.equal(renderJson({ ...specReport, errors: [] }), renderJson(specReport));
  });

  it('puts warnings before errors, each only when there are some', () => {
    const parsed = JSON.parse(renderJson({ ...specReport, warnings: ['--min-age 0s is under a minute'], errors: ['pass stopped by SIGTERM'] })) as Report;
    assert.deepEqual(Object.keys(parsed).slice(-3), ['items', 'warnings', 'errors']);
    assert.deepEqual(parsed.warnings, ['--min-age 0s is under a minute']);
    assert.equal(renderJson({ ...specReport, warnings: [] }), renderJson(specReport));
    assert.equal('warnings' in buildReport(pass({ warnings: [] })), false);
    assert.deepEqual(buildReport(pass({ warnings: ['w'] })).warnings, ['w']);
  });

  it('is pretty with 2 spaces when written in pieces too: no items, errors, and a report of many pieces', () => {
    const cases: Array<[string, Report]> = [
      ['no items', buildReport(pass({ decisions: [] }))],
      ['warnings and errors', { ...MANY, warnings: ['a "quoted" warning', 'two'], errors: ['pass stopped by SIGTERM'] }],
      ['warnings only, no items', { ...buildReport(pass({ decisions: [] })), warnings: ['taskruns.tekton.dev is not served'] }],
      ['no items, errors', { ...buildReport(pass({ decisions: [] })), errors: ['list taskruns in team-b: 503', 'a "quoted"\nsecond line'] }],
      ['many items, errors', { ...MANY, errors: ['pass stopped by SIGTERM'] }],
      ['many items', MANY],
      ['a last piece part full', { ...MANY, items: [...MANY.items].slice(0, 2 * ITEMS_PER_PIECE + 7) }],
      ['one item', { ...MANY, items: [...MANY.items].slice(0, 1) }],
    ];
    for (const [what, report] of cases) {
      const pieces = [...renderJsonChunks(report)];
      const text = pieces.join('');
      // What JSON.stringify(document, null, 2) writes for the same document, key order included.
      assert.equal(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`, what);
      assert.deepEqual((JSON.parse(text) as ReportDocument).items.map((item) => item.uid), [...report.items].map((item) => item.uid), what);
    }
    const pieces = [...renderJsonChunks(MANY)];
    // The head with the first items, then a piece per ITEMS_PER_PIECE items, the closing bracket, the end.
    assert.equal(pieces.length, Math.ceil(MANY.items.length / ITEMS_PER_PIECE) + 2);
  });
});

describe('renderTextChunks', () => {
  it('writes the same table in pieces, columns measured over every row, whole lines per piece', () => {
    // The longest name is in the last row: the first piece must already be padded for it.
    const items = [...MANY.items];
    const last = items.at(-1);
    assert.ok(last !== undefined);
    items[items.length - 1] = { ...last, name: 'x'.repeat(80) };
    const report: Report = { ...MANY, items };
    const pieces = [...renderTextChunks(report)];
    assert.ok(pieces.length > 5, `${items.length} items in ${pieces.length} pieces`);
    assert.ok(pieces.every((piece) => piece.endsWith('\n')), 'every piece ends a line');
    const lines = pieces.join('').trimEnd().split('\n');
    assert.equal(lines.length, items.length + 2, 'header, a row per item, the summary line');
    const nameColumn = (lines[0] ?? '').indexOf(' NAME ') + 1;
    const sizeColumn = (lines[0] ?? '').indexOf(' SIZE ') + 1;
    assert.equal(sizeColumn, nameColumn + 80 + 2);
    for (const line of lines.slice(1, -1)) assert.match(line.slice(sizeColumn), /^- {5}(delete|keep) /, line);
    assert.equal(pieces.join(''), renderText(report));
    assert.match(lines.at(-1) ?? '', /^dry run: 3000 targets, 11 runs: 3000 would be deleted \(unreferenced 3000\)$/);
  });
});

describe('renderText', () => {
  it('matches the golden dry-run table', () => assertGolden('report-dry-run.txt', renderText(DRY_RUN)));
  it('matches the golden live table', () =>
    assertGolden('report-live.txt', renderText({ ...LIVE, errors: ['list taskruns in team-b: 503 Service Unavailable'] })));

  it('prints warnings, then errors, each on one line above the summary', () => {
    const lines = renderText({ ...DRY_RUN, warnings: ['first\nsecond'], errors: ['broken'] }).trimEnd().split('\n');
    assert.deepEqual(lines.slice(-3, -1), ['warning: first second', 'error: broken']);
    assert.equal(lines.at(-1), summaryLine(DRY_RUN));
  });

  it('ends with exactly one summary line', () => {
    const lines = renderText(DRY_RUN).trimEnd().split('\n');
    assert.equal(
      lines.at(-1),
      // Each result carries the reasons of its own targets: 2 + 1 = 3 and 1 + 1 + 2 + 1 + 1 = 6.
      'dry run: 9 targets, 11 runs: 3 would be deleted (runs-finished 2, unreferenced 1), 6 kept (retained 1, retention-invalid 1, referenced-by-active-run 2, too-young 1, retain-for 1)',
    );
    assert.equal(lines.filter((line) => line.startsWith('dry run:')).length, 1);
  });

  it('leaves no trailing spaces', () => {
    for (const line of renderText(DRY_RUN).split('\n')) assert.equal(line, line.trimEnd());
  });

  it('says nothing to do, without a table, when no target is in scope', () => {
    assert.equal(renderText(buildReport(pass({ decisions: [] }))), 'dry run: 0 targets, 11 runs: nothing to do\n');
  });

  it('uses the singular for one', () => {
    const one = buildReport(pass({ runs: 1, decisions: NIGHT.slice(0, 1) }));
    assert.equal(summaryLine(one), 'dry run: 1 target, 1 run: 1 would be deleted (unreferenced 1)');
  });
});

describe('renderMarkdown', () => {
  it('matches the golden dry-run report', () => assertGolden('report-dry-run.md', renderMarkdown(DRY_RUN)));
  it('matches the golden live report', () =>
    assertGolden('report-live.md', renderMarkdown({ ...LIVE, errors: ['list taskruns in team-b: 503 <Service Unavailable>'] })));

  it('lists warnings in a block of their own, escaped like every cluster text', () => {
    const markdown = renderMarkdown({ ...DRY_RUN, warnings: ['a live pass would delete nothing: 12 candidates > --max-deletions 10 <b>'] });
    assert.match(markdown, /\*\*Warnings:\*\*\n\n- a live pass would delete nothing: 12 candidates &gt; --max-deletions 10 &lt;b&gt;\n/);
    assert.ok(markdown.indexOf('**Warnings:**') < markdown.indexOf('<details>'));
  });

  it('puts the summary before any kind section, and every kind table inside <details>', () => {
    const markdown = renderMarkdown(DRY_RUN);
    assert.ok(markdown.indexOf('| result | targets |') < markdown.indexOf('### PipelineResource'));
    assert.equal(markdown.match(/<details>/g)?.length, 1);
    assert.equal(markdown.match(/<\/details>/g)?.length, 1);
  });

  it('escapes Markdown and HTML so cluster text shows as written', () => {
    const cases: [string, string][] = [
      // A pipe would end the table cell.
      ['a|b', 'a\\|b'],
      // Tags would be rendered, or stripped, by the viewer.
      ['<b>x</b> & y', '&lt;b&gt;x&lt;/b&gt; &amp; y'],
      // Emphasis, code, links, strike-through and math.
      ['*a* _b_ `c` [d](e) ~f~ $g$', '\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\~f\\~ \\$g\\$'],
      // A backslash must not escape what follows it.
      ['C:\\x', 'C:\\\\x'],
      // A line break would end the table row.
      ['one\n  two\r\nthree', 'one two three'],
      // DNS names pass through unchanged.
      ['src-abc123.v2', 'src-abc123.v2'],
    ];
    for (const [text, expected] of cases) assert.equal(escapeMarkdown(text), expected, text);
  });

  it('stays one collapsed block per kind with thousands of targets', () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      decision({ namespace: `ns-${i % 3}`, name: `src-${String(i).padStart(4, '0')}`, action: 'delete', reason: 'unreferenced', message: 'no run links it' }),
    );
    const markdown = renderMarkdown(buildReport(pass({ decisions: many })));
    const beforeDetails = markdown.slice(0, markdown.indexOf('<details>'));
    assert.ok(beforeDetails.split('\n').length < 30, 'the summary and the first heading fit in one screen');
    assert.equal(markdown.match(/<details>/g)?.length, 1);
    assert.match(markdown, /### PipelineResource\n\n3000 targets: 3000 would be deleted \(unreferenced 3000\)/);
    // One row per namespace before any details, with the count of each result.
    assert.ok(markdown.indexOf('| ns-2 | 1000 | 1000 |') < markdown.indexOf('### PipelineResource'));
    // The table is capped, and says how many more there are and where to find them.
    assert.match(markdown, /<summary>100 of 3000 PipelineResources<\/summary>/);
    assert.match(markdown, /2900 more targets not shown: 2900 would be deleted\. The JSON report \(`--output json`\) lists every one\./);
    assert.ok(markdown.length < 3 * 100 * 200, `${markdown.length} characters`);
  });

  it('stays under MARKDOWN_MAX_CHARS for a whole cluster, and counts what it leaves out', () => {
    // 40,000 targets in 50 namespaces, long names and messages: even the 100 rows of one kind's table would be ~100 kB.
    const many = Array.from({ length: 40_000 }, (_, i) =>
      decision({ namespace: `team-${String(i % 50).padStart(2, '0')}`, name: `src-${'x'.repeat(40)}-${i}`, action: 'delete', reason: 'unreferenced', message: 'no run links it; '.repeat(40) }),
    );
    const markdown = renderMarkdown(buildReport(pass({ decisions: many })));
    assert.ok(markdown.length <= MARKDOWN_MAX_CHARS, `${markdown.length} characters`);
    assert.ok(markdown.length > MARKDOWN_MAX_CHARS * 0.8, `the budget is used: ${markdown.length} characters`);
    // Every namespace is in the counts table; the one kind's section counts every target.
    assert.equal(markdown.match(/^\| team-\d\d \| 800 \| 800 \|$/gm)?.length, 50);
    assert.deepEqual([...markdown.matchAll(/^### (.+)\n\n(\d+) targets:/gm)].map((match) => [match[1], match[2]]), [['PipelineResource', '40000']]);
    assert.doesNotMatch(markdown, /more kinds? with/);
    // Its table lost rows to the budget, below the cap of rows, and says how many and where they are.
    const shown = /^<summary>(\d+) of 40000 PipelineResources<\/summary>$/m.exec(markdown);
    assert.ok(shown !== null, markdown.slice(-600));
    const rows = Number(shown[1]);
    assert.ok(rows >= 1 && rows < MARKDOWN_ROWS_PER_KIND, `${rows} rows`);
    assert.equal(markdown.match(/^\| team-\d\d \| src-x+-\d+ \|/gm)?.length, rows);
    assert.match(markdown, new RegExp(`^${40_000 - rows} more targets not shown: ${40_000 - rows} would be deleted\\. The JSON report \\(\`--output json\`\\) lists every one\\.$`, 'm'));
  });

  it('sums namespaces past MARKDOWN_NAMESPACE_ROWS in one row of the counts table', () => {
    const many = Array.from({ length: 1000 }, (_, i) =>
      decision({ namespace: `ns-${String(i).padStart(4, '0')}`, name: 'src', action: 'keep', reason: 'too-young', message: 'x' }),
    );
    const markdown = renderMarkdown(buildReport(pass({ decisions: many })));
    assert.ok(markdown.length <= MARKDOWN_MAX_CHARS, `${markdown.length} characters`);
    assert.equal(markdown.match(/^\| ns-\d{4} \| 1 \| 1 \|$/gm)?.length, MARKDOWN_NAMESPACE_ROWS);
    assert.match(markdown, new RegExp(`^\\| ${1000 - MARKDOWN_NAMESPACE_ROWS} more namespaces \\| ${1000 - MARKDOWN_NAMESPACE_ROWS} \\| ${1000 - MARKDOWN_NAMESPACE_ROWS} \\|$`, 'm'));
  });

  it('a capped table shows failures first, then deletions, kept ones last, in name order', () => {
    const many = Array.from({ length: 150 }, (_, i) =>
      decision({ namespace: 'ci', name: `src-${String(i).padStart(3, '0')}`, action: i % 2 === 0 ? 'keep' : 'delete', reason: i % 2 === 0 ? 'too-young' : 'unreferenced', message: 'x' }),
    );
    const results = new Map<string, Result>([['uid-ci-src-149', 'failed']]);
    const markdown = renderMarkdown(buildReport(pass({ dryRun: false, decisions: many, results })));
    const names = [...markdown.matchAll(/^\| ci \| (src-\d+) \|/gm)].map((match) => match[1]);
    assert.equal(names.length, 100);
    assert.ok(names.includes('src-149'), 'the failure is shown');
    assert.deepEqual(names, [...names].sort());
    // 74 aborted deletes (no outcome recorded) and the failure, then 25 of the kept.
    assert.equal(names.filter((name) => Number(name?.slice(4)) % 2 === 0).length, 25);
    assert.match(markdown, /50 more targets not shown: 50 kept\./);
  });

  it("gives each result in a kind's section the reasons of its own targets", () => {
    assert.match(
      renderMarkdown(DRY_RUN),
      /^### PipelineResource\n\n9 targets: 3 would be deleted \(runs-finished 2, unreferenced 1\), 6 kept \(retained 1, retention-invalid 1, referenced-by-active-run 2, too-young 1, retain-for 1\)$/m,
    );
  });
});

describe('renderReport', () => {
  it('has a renderer for every output format', () => {
    assert.deepEqual(Object.keys(RENDERERS).sort(), [...OUTPUT_FORMATS].sort());
    assert.equal(renderReport(DRY_RUN, 'json'), renderJson(DRY_RUN));
    assert.equal(renderReport(DRY_RUN, 'text'), renderText(DRY_RUN));
    assert.equal(renderReport(DRY_RUN, 'markdown'), renderMarkdown(DRY_RUN));
  });
});

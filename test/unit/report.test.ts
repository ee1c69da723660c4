/**
 * The report (docs/reports.md), whatever the collectors: buildReport (items sorted by namespace,
 * kind and name, each with its kind and collector, results, counts by reason and by kind,
 * bytes and holders of claims), JSON in the schema's key order, written whole or in pieces,
 * the text table and the Markdown report with their golden files, formatBytes and
 * describeHolders, and explain rendered for a claim, a Secret or a gone owner. Two passes
 * feed them: a night of PipelineResources (NIGHT, built here), and the leftoverreport
 * fixture's claims, Secret and StatefulSet with a PipelineResource beside them (MIXED).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explain } from '../../src/core/explain.js';
import { ALL_REASONS, type Action, type Decision, type Reason, type ReferenceView, type RunKindName, type RunState } from '../../src/core/types.js';
import { buildReport, countBytes, type PassRecord } from '../../src/report/build.js';
import { renderExplanationJson, renderExplanationText } from '../../src/report/explain.js';
import { ITEMS_PER_PIECE, renderJson, renderJsonChunks } from '../../src/report/json.js';
import { MARKDOWN_MAX_CHARS, MARKDOWN_NAMESPACE_ROWS, MARKDOWN_ROWS_PER_KIND, escapeMarkdown, renderMarkdown } from '../../src/report/markdown.js';
import { OUTPUT_FORMATS, type Report, type ReportDocument, type ReportItem, type Result } from '../../src/report/model.js';
import { RENDERERS, renderReport } from '../../src/report/render.js';
import { REFERENCES_MAX_CHARS, bytesLine, describeHolders, formatBytes, renderText, renderTextChunks, summaryLine } from '../../src/report/text.js';
import { GIBIBYTE, LEFTOVERS, LEFTOVERS_LIVE, MEBIBYTE, leftoverDecision } from '../fixtures/unit/leftoverreport.js';
import { claim, lrun, pacSecret, pod } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY } from '../fixtures/unit/records.js';
import { assertGolden } from '../support/golden.js';
import { reportSchemaErrors } from '../support/reportschema.js';

// ---- A night of PipelineResources ----

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

/** A PipelineResource's decision. */
function decision(spec: DecisionSpec): Decision {
  return leftoverDecision({ ...spec, kind: 'PipelineResource' });
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

const NIGHT_DRY_RUN = buildReport(pass({}));

/** 3,000 targets: a report that renderers hand over in many pieces. */
const MANY = buildReport(
  pass({
    decisions: Array.from({ length: 3000 }, (_, i) =>
      decision({ namespace: `team-${i % 7}`, name: `src-${String(i).padStart(5, '0')}`, action: 'delete', reason: 'unreferenced', message: 'no run links it' }),
    ),
  }),
);

const NIGHT_LIVE = buildReport(
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

// ---- Claims, a Secret, a StatefulSet and a PipelineResource beside them (test/fixtures/unit/leftoverreport.ts) ----

const MIXED_LIVE = buildReport(LEFTOVERS_LIVE);
const MIXED_DRY_RUN = buildReport({ ...LEFTOVERS_LIVE, dryRun: true, results: new Map() });

/** The fixture's decision for `name`. */
function decisionOf(name: string): Decision {
  const found = LEFTOVERS.find((decision) => decision.target.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

function itemNamed(report: Report, name: string): ReportItem {
  const found = [...report.items].find((candidate) => candidate.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

/** ALL_REASONS order, as the summary keeps it. */
function byRuleOrder(a: Reason, b: Reason): number {
  return ALL_REASONS.indexOf(a) - ALL_REASONS.indexOf(b);
}

describe('buildReport', () => {
  it('sorts items by namespace, then name', () => {
    const order = [...NIGHT_DRY_RUN.items].map((item) => `${item.namespace}/${item.name}`);
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
    const { items } = NIGHT_DRY_RUN;
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
    const { targets, runs, delete: deletes, keep } = NIGHT_DRY_RUN.summary;
    assert.deepEqual({ targets, runs, deletes, keep }, { targets: 9, runs: 11, deletes: 3, keep: 6 });
  });

  it('lists only nonzero results and reasons, in their fixed orders', () => {
    assert.deepEqual(Object.entries(NIGHT_DRY_RUN.summary.results), [
      ['would-delete', 3],
      ['kept', 6],
    ]);
    assert.deepEqual(Object.entries(NIGHT_DRY_RUN.summary.reasons), [
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
      [NIGHT_DRY_RUN, 'orphan-src', 'would-delete'],
      // Keep decisions are kept in either mode.
      [NIGHT_DRY_RUN, 'base-image', 'kept'],
      [NIGHT_LIVE, 'base-image', 'kept'],
      // Live: recorded results win.
      [NIGHT_LIVE, 'orphan-src', 'deleted'],
      [NIGHT_LIVE, 'src-abc123', 'gone'],
      [NIGHT_LIVE, 'img-abc123', 'changed'],
    ];
    for (const [report, name, expected] of cases) assert.equal(resultOf(report, name), expected, name);
  });

  it('reports a live delete with no recorded outcome as aborted, never as deleted', () => {
    const report = buildReport(pass({ dryRun: false, decisions: NIGHT.filter((d) => d.target.name === 'orphan-src') }));
    assert.equal([...report.items][0]?.result, 'aborted');
    assert.deepEqual(report.summary.results, { aborted: 1 });
  });

  it('shows all namespaces as ["*"] and keeps named scopes as given', () => {
    assert.deepEqual(NIGHT_DRY_RUN.scope, { namespaces: ['*'], excludedNamespaces: [], selector: '' });
    assert.deepEqual(NIGHT_LIVE.scope, {
      namespaces: ['ci', 'team-a'],
      excludedNamespaces: ['kube-system'],
      selector: 'app.kubernetes.io/part-of=ci',
    });
  });

  it('drops the internal `via` of references and omits finishedAt when unknown', () => {
    const item = [...NIGHT_DRY_RUN.items].find((i) => i.name === 'src-def456');
    assert.deepEqual(item?.references, [{ kind: 'PipelineRun', name: 'build-def456', state: 'running' }]);
  });

  it('carries errors only when there are some', () => {
    assert.equal('errors' in NIGHT_DRY_RUN, false);
    assert.equal('errors' in buildReport(pass({ errors: [] })), false);
    assert.deepEqual(buildReport(pass({ errors: ['list taskruns in ci: 500'] })).errors, ['list taskruns in ci: 500']);
  });

  it('writes timestamps as ISO 8601 with milliseconds', () => {
    assert.equal(NIGHT_DRY_RUN.startedAt, '2026-11-29T12:00:00.000Z');
    assert.equal(NIGHT_DRY_RUN.finishedAt, '2026-11-29T12:00:01.250Z');
  });

  it('sorts items by namespace, then kind, then name', () => {
    assert.deepEqual(
      [...MIXED_LIVE.items].map((i) => `${i.namespace}/${i.kind}/${i.name}`),
      [
        'ci/PersistentVolumeClaim/pvc-build-1',
        'ci/PersistentVolumeClaim/pvc-build-2',
        'ci/PersistentVolumeClaim/pvc-build-3',
        'ci/PipelineResource/src-abc123',
        'ci/Secret/pac-gitauth-xyz',
        'team-a/PersistentVolumeClaim/pvc-aa-0',
        'team-a/StatefulSet/affinity-assistant-7f3e',
      ],
    );
  });

  it('names each item kind and its collector', () => {
    assert.deepEqual(
      [...MIXED_LIVE.items].map((i) => [i.kind, i.collector]),
      [
        ['PersistentVolumeClaim', 'workspace-pvcs'],
        ['PersistentVolumeClaim', 'workspace-pvcs'],
        ['PersistentVolumeClaim', 'workspace-pvcs'],
        ['PipelineResource', 'pipelineresources'],
        ['Secret', 'pac-secrets'],
        ['PersistentVolumeClaim', 'workspace-pvcs'],
        ['StatefulSet', 'affinity-assistants'],
      ],
    );
  });

  it("shows how runs link leftovers (via), a gone owner's state, and no via on PipelineResources", () => {
    assert.deepEqual(itemNamed(MIXED_LIVE, 'pvc-build-2').references, [{ kind: 'PipelineRun', name: 'build-2', state: 'gone', via: 'ownerReference' }]);
    assert.deepEqual(itemNamed(MIXED_LIVE, 'pac-gitauth-xyz').references, [{ kind: 'PipelineRun', name: 'build-1', state: 'succeeded', finishedAt: '2026-11-28T22:14:03Z', via: 'annotation' }]);
    assert.deepEqual(itemNamed(MIXED_LIVE, 'pvc-aa-0').references, [{ kind: 'PipelineRun', name: 'deploy-9', state: 'running', via: 'label' }]);
    const resource = buildReport({ ...LEFTOVERS_LIVE, decisions: [{ ...decisionOf('src-abc123'), references: [{ kind: 'TaskRun', name: 't', state: 'running', via: 'spec' }] }] });
    assert.deepEqual([...resource.items][0]?.references, [{ kind: 'TaskRun', name: 't', state: 'running' }]);
  });

  it('carries bytes and where they were read only on claims that state a size', () => {
    const sizes = [...MIXED_LIVE.items].map((i) => [i.name, i.bytes, i.bytesFrom]);
    assert.deepEqual(sizes, [
      ['pvc-build-1', 50 * GIBIBYTE, 'capacity'],
      ['pvc-build-2', 1500 * MEBIBYTE, 'request'],
      ['pvc-build-3', undefined, undefined],
      ['src-abc123', undefined, undefined],
      ['pac-gitauth-xyz', undefined, undefined],
      ['pvc-aa-0', 10 * GIBIBYTE, 'capacity'],
      ['affinity-assistant-7f3e', undefined, undefined],
    ]);
    assert.equal('bytes' in itemNamed(MIXED_LIVE, 'pvc-build-3'), false);
  });

  it('carries what holds an item, a Pod without a phase without one, and nothing when nothing holds it', () => {
    assert.deepEqual(itemNamed(MIXED_LIVE, 'pvc-build-3').heldBy, [
      { kind: 'Pod', name: 'build-3-pod', phase: 'Running' },
      { kind: 'Pod', name: 'debug-shell' },
    ]);
    assert.deepEqual(itemNamed(MIXED_LIVE, 'pvc-aa-0').heldBy, [{ kind: 'StatefulSet', name: 'affinity-assistant-7f3e' }]);
    assert.equal('heldBy' in itemNamed(MIXED_LIVE, 'pvc-build-1'), false);
    assert.equal('heldBy' in itemNamed(buildReport({ ...LEFTOVERS_LIVE, decisions: [{ ...decisionOf('pvc-build-2'), heldBy: [] }] }), 'pvc-build-2'), false);
  });

  it('takes terminating from the delete phase, and counts it as a result', () => {
    assert.equal(itemNamed(MIXED_LIVE, 'pvc-build-2').result, 'terminating');
    assert.deepEqual(MIXED_LIVE.summary.results, { deleted: 3, terminating: 1, kept: 3 });
  });

  it('counts reasons of every table in one order', () => {
    const occurred: Reason[] = ['unreferenced', 'owner-gone', 'runs-finished', 'referenced-by-active-run', 'in-use-by-statefulset', 'in-use-by-pod'];
    assert.deepEqual(Object.keys(MIXED_LIVE.summary.reasons), occurred.sort(byRuleOrder));
    assert.deepEqual(Object.keys(MIXED_LIVE.summary.reasons), ['referenced-by-active-run', 'in-use-by-pod', 'in-use-by-statefulset', 'runs-finished', 'owner-gone', 'unreferenced']);
  });

  it('counts targets, deletes and keeps by kind: every kind collected, zeros included, in kind order', () => {
    assert.deepEqual(MIXED_LIVE.summary.byKind, {
      PersistentVolumeClaim: { targets: 4, delete: 2, keep: 2 },
      PipelineResource: { targets: 1, delete: 1, keep: 0 },
      Secret: { targets: 1, delete: 1, keep: 0 },
      StatefulSet: { targets: 1, delete: 0, keep: 1 },
    });
    const claimsOnly = buildReport({ ...LEFTOVERS_LIVE, scope: { ...LEFTOVERS_LIVE.scope, collect: ['workspace-pvcs', 'pac-secrets'] }, decisions: [] });
    assert.deepEqual(claimsOnly.summary.byKind, { PersistentVolumeClaim: { targets: 0, delete: 0, keep: 0 }, Secret: { targets: 0, delete: 0, keep: 0 } });
  });

  it('counts PipelineResources alone when no collector is named (the default)', () => {
    const { collect: _, ...scope } = LEFTOVERS_LIVE.scope;
    const report = buildReport({ ...LEFTOVERS_LIVE, scope, decisions: [decisionOf('src-abc123')] });
    assert.deepEqual(report.summary.byKind, { PipelineResource: { targets: 1, delete: 1, keep: 0 } });
    assert.equal('bytes' in report.summary, false);
  });

  it('adds up bytes: candidates decided delete, released deleted, pending terminating', () => {
    // pvc-build-1 (50Gi, deleted) and pvc-build-2 (1500Mi, terminating) are the candidates; pvc-aa-0 is kept.
    assert.deepEqual(MIXED_LIVE.summary.bytes, { candidates: 50 * GIBIBYTE + 1500 * MEBIBYTE, released: 50 * GIBIBYTE, pending: 1500 * MEBIBYTE });
    assert.deepEqual(MIXED_DRY_RUN.summary.bytes, { candidates: 50 * GIBIBYTE + 1500 * MEBIBYTE, released: 0, pending: 0 });
  });

  it('bytes: a claim of unknown size adds nothing; gone, changed, failed and aborted count as candidates only', () => {
    const claim = (result: ReportItem['result'], bytes?: number): Pick<ReportItem, 'bytes' | 'action' | 'result'> => ({ action: result === 'kept' ? 'keep' : 'delete', result, ...(bytes !== undefined && { bytes }) });
    const rows: [string, Pick<ReportItem, 'bytes' | 'action' | 'result'>[], ReturnType<typeof countBytes>][] = [
      ['no claims', [], { candidates: 0, released: 0, pending: 0 }],
      ['unknown size, deleted', [claim('deleted')], { candidates: 0, released: 0, pending: 0 }],
      ['kept', [claim('kept', 5)], { candidates: 0, released: 0, pending: 0 }],
      ['gone (deleted by someone else)', [claim('gone', 5)], { candidates: 5, released: 0, pending: 0 }],
      ['changed, failed, aborted', [claim('changed', 1), claim('failed', 2), claim('aborted', 4)], { candidates: 7, released: 0, pending: 0 }],
      ['deleted and terminating', [claim('deleted', 1), claim('terminating', 2), claim('would-delete', 4)], { candidates: 7, released: 1, pending: 2 }],
    ];
    for (const [what, items, expected] of rows) assert.deepEqual(countBytes(items), expected, what);
  });

  it('has summary.bytes only when workspace-pvcs was on', () => {
    const withoutClaims = buildReport({ ...LEFTOVERS_LIVE, scope: { ...LEFTOVERS_LIVE.scope, collect: ['pipelineresources', 'pac-secrets'] } });
    assert.equal('bytes' in withoutClaims.summary, false);
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

  it("writes an item's keys in the schema's order, the optional ones only when set", () => {
    const parsed = JSON.parse(renderJson(MIXED_LIVE)) as { items: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]; summary: Record<string, unknown> };
    assert.deepEqual(Object.keys(parsed.items[1]), ['namespace', 'kind', 'collector', 'name', 'uid', 'createdAt', 'bytes', 'bytesFrom', 'action', 'reason', 'message', 'references', 'heldBy', 'result']);
    assert.deepEqual(Object.keys(parsed.items[3]), ['namespace', 'kind', 'collector', 'name', 'uid', 'createdAt', 'action', 'reason', 'message', 'references', 'result']);
    assert.deepEqual(Object.keys(parsed.summary), ['targets', 'runs', 'delete', 'keep', 'results', 'reasons', 'byKind', 'bytes']);
    assert.deepEqual(parsed.items[1]['heldBy'], [{ kind: 'Pod', name: 'build-2-pod', phase: 'Succeeded' }]);
  });

  it('keeps that order whoever assembled the Report', () => {
    const shuffled: Report = {
      ...MIXED_LIVE,
      summary: { ...(MIXED_LIVE.summary.bytes !== undefined && { bytes: MIXED_LIVE.summary.bytes }), byKind: MIXED_LIVE.summary.byKind, reasons: MIXED_LIVE.summary.reasons, results: MIXED_LIVE.summary.results, keep: MIXED_LIVE.summary.keep, delete: MIXED_LIVE.summary.delete, runs: MIXED_LIVE.summary.runs, targets: MIXED_LIVE.summary.targets },
      items: [...MIXED_LIVE.items].map(({ result, heldBy, references, message, reason, action, bytesFrom, bytes, createdAt, uid, name, collector, kind, namespace }) => ({
        result,
        ...(heldBy !== undefined && { heldBy: heldBy.map(({ phase, name: holder, kind: holderKind }) => ({ ...(phase !== undefined && { phase }), name: holder, kind: holderKind })) }),
        references: references.map(({ via, finishedAt, state, name: run, kind: runKind }) => ({ ...(via !== undefined && { via }), ...(finishedAt !== undefined && { finishedAt }), state, name: run, kind: runKind })),
        message,
        reason,
        action,
        ...(bytes !== undefined && { bytesFrom, bytes }),
        createdAt,
        uid,
        name,
        collector,
        kind,
        namespace,
      })),
    };
    assert.equal(renderJson(shuffled), renderJson(MIXED_LIVE));
  });

  it('matches docs/gcreport.schema.json, live and dry run', () => {
    for (const report of [MIXED_LIVE, MIXED_DRY_RUN]) assert.deepEqual(reportSchemaErrors(JSON.parse(renderJson(report))), []);
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
  it('matches the golden dry-run table', () => assertGolden('report-dry-run.txt', renderText(NIGHT_DRY_RUN)));
  it('matches the golden live table', () =>
    assertGolden('report-live.txt', renderText({ ...NIGHT_LIVE, errors: ['list taskruns in team-b: 503 Service Unavailable'] })));

  it('prints warnings, then errors, each on one line above the summary', () => {
    const lines = renderText({ ...NIGHT_DRY_RUN, warnings: ['first\nsecond'], errors: ['broken'] }).trimEnd().split('\n');
    assert.deepEqual(lines.slice(-3, -1), ['warning: first second', 'error: broken']);
    assert.equal(lines.at(-1), summaryLine(NIGHT_DRY_RUN));
  });

  it('ends with exactly one summary line', () => {
    const lines = renderText(NIGHT_DRY_RUN).trimEnd().split('\n');
    assert.equal(
      lines.at(-1),
      // Each result carries the reasons of its own targets: 2 + 1 = 3 and 1 + 1 + 2 + 1 + 1 = 6.
      'dry run: 9 targets, 11 runs: 3 would be deleted (runs-finished 2, unreferenced 1), 6 kept (retained 1, retention-invalid 1, referenced-by-active-run 2, too-young 1, retain-for 1)',
    );
    assert.equal(lines.filter((line) => line.startsWith('dry run:')).length, 1);
  });

  it('leaves no trailing spaces', () => {
    for (const line of renderText(NIGHT_DRY_RUN).split('\n')) assert.equal(line, line.trimEnd());
  });

  it('says nothing to do, without a table, when no target is in scope', () => {
    assert.equal(renderText(buildReport(pass({ decisions: [] }))), 'dry run: 0 targets, 11 runs: nothing to do\n');
  });

  it('uses the singular for one', () => {
    const one = buildReport(pass({ runs: 1, decisions: NIGHT.slice(0, 1) }));
    assert.equal(summaryLine(one), 'dry run: 1 target, 1 run: 1 would be deleted (unreferenced 1)');
  });

  it('matches the golden live table: KIND, SIZE, LINKED RUNS and HELD BY, and the bytes line', () => assertGolden('report-leftovers-live.txt', renderText(MIXED_LIVE)));
  it('matches the golden dry-run table', () => assertGolden('report-leftovers-dry-run.txt', renderText(MIXED_DRY_RUN)));

  it('has the same table when only pipelineresources is collected, named or by default: only the bytes line goes', () => {
    const { collect: _, ...scope } = LEFTOVERS_LIVE.scope;
    const resources = [decisionOf('src-abc123')];
    const byDefault = buildReport({ ...LEFTOVERS_LIVE, scope, decisions: resources });
    const named = buildReport({ ...LEFTOVERS_LIVE, scope: { ...scope, collect: ['pipelineresources'] }, decisions: resources });
    assert.equal(renderText(named), renderText(byDefault));
    const every = renderText(buildReport({ ...LEFTOVERS_LIVE, decisions: resources })).split('\n');
    assert.deepEqual(renderText(byDefault).split('\n'), [...every.slice(0, -3), ...every.slice(-2)]);
    assert.equal(renderText(byDefault).split('\n')[0], 'NAMESPACE  KIND              NAME        SIZE  ACTION  RESULT   REASON        LINKED RUNS  HELD BY  WHY');
    assert.equal(renderText(byDefault).split('\n')[1], 'ci         PipelineResource  src-abc123  -     delete  deleted  unreferenced  -            -        no run links it');
    assert.doesNotMatch(renderText(byDefault), /bytes:/);
  });

  it('has the leftover columns even when no leftover is in scope, and the bytes line with workspace-pvcs', () => {
    const empty = buildReport({ ...LEFTOVERS_LIVE, decisions: [decisionOf('src-abc123')] });
    const lines = renderText(empty).split('\n');
    assert.equal(lines[0], 'NAMESPACE  KIND              NAME        SIZE  ACTION  RESULT   REASON        LINKED RUNS  HELD BY  WHY');
    assert.equal(lines.at(-3), 'bytes: 0 released, 0 pending (terminating), of 0 (0 claims to delete)');
    assert.equal(renderText(buildReport({ ...LEFTOVERS_LIVE, decisions: [] })), 'bytes: 0 released, 0 pending (terminating), of 0 (0 claims to delete)\nlive: 0 targets, 5 runs: nothing to do\n');
  });

  it('says the bytes of a dry run and of a live pass above the summary line', () => {
    assert.equal(bytesLine(MIXED_DRY_RUN), 'bytes: 51.5Gi would be released (2 claims to delete)');
    assert.equal(bytesLine(MIXED_LIVE), 'bytes: 50Gi released, 1500Mi pending (terminating), of 51.5Gi (2 claims to delete)');
    const lines = renderText(MIXED_LIVE).trimEnd().split('\n');
    assert.equal(lines.at(-2), bytesLine(MIXED_LIVE));
    assert.equal(lines.at(-1), summaryLine(MIXED_LIVE));
    const withPlanAndWarnings = renderText({ ...MIXED_LIVE, warnings: ['w'], errors: ['e'] }).trimEnd().split('\n');
    assert.deepEqual(withPlanAndWarnings.slice(-4), [bytesLine(MIXED_LIVE), 'warning: w', 'error: e', summaryLine(MIXED_LIVE)]);
  });

  it('counts terminating in the summary line with its reasons', () => {
    assert.equal(summaryLine(MIXED_LIVE), 'live: 7 targets, 5 runs: 3 deleted (runs-finished 2, unreferenced 1), 1 left terminating (owner-gone 1), 3 kept (referenced-by-active-run 1, in-use-by-pod 1, in-use-by-statefulset 1)');
  });
});

describe('formatBytes', () => {
  const rows: [number, string][] = [
    [0, '0'],
    [512, '512'],
    [1024, '1Ki'],
    [1536, '1.5Ki'],
    // A request of 1500Mi reads as written, not as 1.5Gi.
    [1500 * MEBIBYTE, '1500Mi'],
    [50 * GIBIBYTE, '50Gi'],
    [2 * 1024 * GIBIBYTE, '2Ti'],
    // 1G (decimal) is no whole number of any binary unit.
    [1_000_000_000, '953.7Mi'],
    [50 * GIBIBYTE + 1, '50.0Gi'],
    // Past 9999 of a unit, the next one up.
    [10_000 * MEBIBYTE, '9.8Gi'],
    [50 * GIBIBYTE + 1500 * MEBIBYTE, '51.5Gi'],
  ];
  for (const [bytes, text] of rows) it(`${bytes} -> ${text}`, () => assert.equal(formatBytes(bytes), text));
});

describe('describeHolders', () => {
  it('names Pods with their phase, StatefulSets alone, at most 3, then how many more', () => {
    assert.equal(describeHolders([]), '-');
    assert.equal(
      describeHolders([
        { kind: 'Pod', name: 'a', phase: 'Running' },
        { kind: 'Pod', name: 'b' },
        { kind: 'StatefulSet', name: 'affinity-assistant-1' },
        { kind: 'Pod', name: 'd', phase: 'Pending' },
      ]),
      'Pod/a (Running), Pod/b (no phase yet), StatefulSet/affinity-assistant-1, +1 more',
    );
  });

  it('keeps a cell under the references cap, cutting one long name', () => {
    const cell = describeHolders([{ kind: 'Pod', name: 'p'.repeat(250), phase: 'Running' }]);
    assert.ok(cell.length <= REFERENCES_MAX_CHARS, `${cell.length}`);
    assert.match(cell, /^Pod\/p+… \(Running\)$/);
    // A phase is a word; one that is not is cut, and the name keeps the room.
    assert.equal(describeHolders([{ kind: 'Pod', name: 'p', phase: 'x'.repeat(300) }]), `Pod/p (${'x'.repeat(19)}…)`);
  });
});

describe('renderMarkdown', () => {
  it('matches the golden dry-run report', () => assertGolden('report-dry-run.md', renderMarkdown(NIGHT_DRY_RUN)));
  it('matches the golden live report', () =>
    assertGolden('report-live.md', renderMarkdown({ ...NIGHT_LIVE, errors: ['list taskruns in team-b: 503 <Service Unavailable>'] })));

  it('lists warnings in a block of their own, escaped like every cluster text', () => {
    const markdown = renderMarkdown({ ...NIGHT_DRY_RUN, warnings: ['a live pass would delete nothing: 12 candidates > --max-deletions 10 <b>'] });
    assert.match(markdown, /\*\*Warnings:\*\*\n\n- a live pass would delete nothing: 12 candidates &gt; --max-deletions 10 &lt;b&gt;\n/);
    assert.ok(markdown.indexOf('**Warnings:**') < markdown.indexOf('<details>'));
  });

  it('puts the summary before any kind section, and every kind table inside <details>', () => {
    const markdown = renderMarkdown(NIGHT_DRY_RUN);
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
      renderMarkdown(NIGHT_DRY_RUN),
      /^### PipelineResource\n\n9 targets: 3 would be deleted \(runs-finished 2, unreferenced 1\), 6 kept \(retained 1, retention-invalid 1, referenced-by-active-run 2, too-young 1, retain-for 1\)$/m,
    );
  });

  it('matches the golden live report: bytes, counts by kind, a section per kind', () => assertGolden('report-leftovers-live.md', renderMarkdown(MIXED_LIVE)));

  it('groups by kind in kind order, each table across namespaces', () => {
    const markdown = renderMarkdown(MIXED_LIVE);
    const headings = [...markdown.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    assert.deepEqual(headings, ['PersistentVolumeClaim', 'PipelineResource', 'Secret', 'StatefulSet']);
    assert.match(markdown, /^<summary>4 PersistentVolumeClaims<\/summary>$/m);
    assert.match(markdown, /^\| team-a \| pvc-aa-0 \| 10Gi \| keep \| `kept` \| `in-use-by-statefulset` \| PipelineRun\/deploy-9 \(running\) \| StatefulSet\/affinity-assistant-7f3e \| named by StatefulSet affinity-assistant-7f3e \|$/m);
    // The namespace counts stay.
    assert.match(markdown, /^\| ci \| 5 \| 3 \| 1 \| 1 \|$/m);
  });

  it('counts every kind collected, zeros included, and says nothing is in scope when nothing is', () => {
    const markdown = renderMarkdown(buildReport({ ...LEFTOVERS_LIVE, dryRun: true, results: new Map(), decisions: [] }));
    assert.match(markdown, /\| kind \| targets \| delete \| keep \|\n\| --- \| ---: \| ---: \| ---: \|\n\| PersistentVolumeClaim \| 0 \| 0 \| 0 \|\n\| PipelineResource \| 0 \| 0 \| 0 \|\n\| Secret \| 0 \| 0 \| 0 \|\n\| StatefulSet \| 0 \| 0 \| 0 \|\n\nNothing in scope\.\n$/);
    assert.match(markdown, /^bytes: 0 would be released \(0 claims to delete\)$/m);
  });

  it('has the same sections when only pipelineresources is collected: its kind alone counted, no bytes line', () => {
    const { collect: _, ...scope } = LEFTOVERS_LIVE.scope;
    const resources = [decisionOf('src-abc123')];
    const byDefault = renderMarkdown(buildReport({ ...LEFTOVERS_LIVE, scope, decisions: resources }));
    assert.equal(renderMarkdown(buildReport({ ...LEFTOVERS_LIVE, scope: { ...scope, collect: ['pipelineresources'] }, decisions: resources })), byDefault);
    assert.deepEqual([...byDefault.matchAll(/^### (.+)$/gm)].map((match) => match[1]), ['PipelineResource']);
    assert.match(byDefault, /\| kind \| targets \| delete \| keep \|\n\| --- \| ---: \| ---: \| ---: \|\n\| PipelineResource \| 1 \| 1 \| 0 \|\n\n/);
    assert.doesNotMatch(byDefault, /bytes:/);
    // Its section reads as the PipelineResource section of a pass over every collector.
    const live = renderMarkdown(MIXED_LIVE);
    const section = live.slice(live.indexOf('### PipelineResource'), live.indexOf('### Secret'));
    assert.ok(section.includes('| ci | src-abc123 | - | delete | `deleted` | `unreferenced` | - | - | no run links it |'), section);
    assert.ok(byDefault.endsWith(`${section.trimEnd()}\n`), byDefault);
  });

  it('caps a kind table as it caps a namespace table, terminating shown before deleted, and counts the kinds left out', () => {
    const claims = Array.from({ length: 150 }, (_, i) => ({ ...decisionOf('pvc-build-1'), target: { ...decisionOf('pvc-build-1').target, name: `pvc-${String(i).padStart(3, '0')}`, uid: `uid-${i}` } }));
    const results = new Map<string, ReportItem['result']>(claims.map((claim, i) => [claim.target.uid, i < 100 ? 'deleted' : 'terminating']));
    const markdown = renderMarkdown(buildReport({ ...LEFTOVERS_LIVE, decisions: claims, results }));
    assert.match(markdown, /^<summary>100 of 150 PersistentVolumeClaims<\/summary>$/m);
    assert.equal(markdown.match(/^\| ci \| pvc-\d+ \| 50Gi \| delete \| `terminating` \|/gm)?.length, 50);
    assert.match(markdown, /50 more targets not shown: 50 deleted\./);
    const many = Array.from({ length: 40_000 }, (_, i) => ({ ...claims[0], target: { ...decisionOf('pvc-build-1').target, kind: i % 2 === 0 ? 'PersistentVolumeClaim' : 'Secret', name: `x-${'y'.repeat(200)}-${i}`, uid: `u-${i}` } }) as Decision);
    const capped = renderMarkdown(buildReport({ ...LEFTOVERS_LIVE, dryRun: true, results: new Map(), decisions: many.map((decision) => ({ ...decision, message: 'z'.repeat(300) })) }));
    assert.ok(capped.length <= MARKDOWN_MAX_CHARS, `${capped.length}`);
    assert.match(capped, /^1 more kind with 20000 targets not shown \(20000 would be deleted\)/m);
  });
});

describe('renderReport', () => {
  it('has a renderer for every output format', () => {
    assert.deepEqual(Object.keys(RENDERERS).sort(), [...OUTPUT_FORMATS].sort());
    assert.equal(renderReport(NIGHT_DRY_RUN, 'json'), renderJson(NIGHT_DRY_RUN));
    assert.equal(renderReport(NIGHT_DRY_RUN, 'text'), renderText(NIGHT_DRY_RUN));
    assert.equal(renderReport(NIGHT_DRY_RUN, 'markdown'), renderMarkdown(NIGHT_DRY_RUN));
  });
});

describe('explain, rendered: kind and collector, size, holders, how runs link', () => {
  const origins = { 'min-age': 'default', 'retain-for': 'default' };
  const inScope = { inScope: true } as const;
  const owner = lrun('build-7');

  it('says its kind and collector, its size and where it was read, and what holds it; text and JSON', () => {
    const held = claim('pvc-build-7', owner, { leftover: { marker: 'owned', bytes: { value: 50 * GIBIBYTE, from: 'capacity' } } });
    const explanation = explain(
      { target: held, runs: [owner], pods: [pod('build-7-pod', { claims: ['pvc-build-7'] }), pod('shell', { claims: ['pvc-build-7'], phase: undefined })], namespace: undefined, scope: inScope, origins },
      POLICY,
      NOW,
    );
    assert.equal(explanation.decision.reason, 'in-use-by-pod');
    assertGolden('explain-leftover-held.txt', renderExplanationText(explanation));
    const json = JSON.parse(renderExplanationJson(explanation)) as { target: Record<string, unknown>; heldBy: unknown; references: { via: string }[] };
    assert.deepEqual(json.target, { namespace: 'ci', kind: 'PersistentVolumeClaim', collector: 'workspace-pvcs', name: 'pvc-build-7', uid: 'uid-pvc-build-7', createdAt: held.createdAt, bytes: 50 * GIBIBYTE, bytesFrom: 'capacity' });
    assert.deepEqual(json.heldBy, [
      { kind: 'Pod', name: 'build-7-pod', phase: 'Running' },
      { kind: 'Pod', name: 'shell' },
    ]);
    assert.deepEqual(json.references.map((ref) => ref.via), ['ownerReference']);
  });

  it("names a claim's Unused=False condition among what holds it, after the Pods; the JSON's heldBy stays the Pods and StatefulSets", () => {
    const condition = { reason: 'PodUsingPVC', since: '2026-11-29T10:00:00Z' };
    const alone = claim('pvc-build-7', owner, { leftover: { marker: 'owned', inUseCondition: condition } });
    const kept = explain({ target: alone, runs: [owner], pods: [], statefulSets: [], namespace: undefined, scope: inScope, origins }, POLICY, NOW);
    const text = renderExplanationText(kept);
    assert.match(text, /^held by: +condition Unused=False \(PodUsingPVC\) since 2026-11-29T10:00:00Z$/m);
    assert.match(text, /^decision: +keep \(rule 7, in-use-by-pod\)$/m);
    assert.match(text, /^why: +in use by a Pod, by its Unused=False condition \(PodUsingPVC\) since 2026-11-29T10:00:00Z$/m);
    assert.equal('heldBy' in (JSON.parse(renderExplanationJson(kept)) as Record<string, unknown>), false);
    const both = explain({ target: alone, runs: [owner], pods: [pod('build-7-pod', { claims: ['pvc-build-7'] })], statefulSets: [], namespace: undefined, scope: inScope, origins }, POLICY, NOW);
    assert.match(renderExplanationText(both), /^held by: +Pod\/build-7-pod \(Running\)\n +condition Unused=False \(PodUsingPVC\) since 2026-11-29T10:00:00Z$/m);
  });

  it('shows a gone owner as gone, and a claim without a size as unknown', () => {
    const orphan = claim('pvc-orphan', { kind: 'PipelineRun', name: 'build-gone', uid: 'uid-gone' });
    const explanation = explain({ target: orphan, runs: [], pods: [], statefulSets: [], namespace: undefined, scope: inScope, origins }, POLICY, NOW);
    assert.equal(explanation.decision.reason, 'owner-gone');
    const text = renderExplanationText(explanation);
    assert.match(text, /^runs: +PipelineRun\/build-gone gone \(owned it; no run listed is it\)$/m);
    assert.match(text, /^size: +unknown: the claim states neither/m);
    assert.doesNotMatch(text, /^held by:/m);
    const json = JSON.parse(renderExplanationJson(explanation)) as Record<string, unknown> & { target: Record<string, unknown> };
    assert.equal('bytes' in json.target, false);
    assert.equal('heldBy' in json, false);
  });

  it('says how each run links a Secret, and has no size line for kinds without one', () => {
    const secret = pacSecret('pac-gitauth-1', undefined);
    const annotating = lrun('build-8', { gitAuthSecret: 'pac-gitauth-1' });
    const text = renderExplanationText(explain({ target: secret, runs: [annotating], pods: [], namespace: undefined, scope: inScope, origins }, POLICY, NOW));
    assert.match(text, /^kind: +Secret \(collector pac-secrets\)$/m);
    assert.match(text, /^runs: +PipelineRun\/build-8 succeeded.* \(names it in its pipelinesascode\.tekton\.dev\/git-auth-secret annotation\)$/m);
    assert.doesNotMatch(text, /^size:/m);
  });
});

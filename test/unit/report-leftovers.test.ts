/**
 * The report with leftover collectors on (docs/reports.md, "Leftovers in the report"): kind,
 * collector, bytes and holders on items, counts by kind and bytes in the summary. A report
 * of PipelineResources alone has the same layout (report.test.ts), without the bytes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explain } from '../../src/core/explain.js';
import { ALL_REASONS, type Decision, type Reason } from '../../src/core/types.js';
import { buildReport, countBytes } from '../../src/report/build.js';
import { renderExplanationJson, renderExplanationText } from '../../src/report/explain.js';
import { renderJson } from '../../src/report/json.js';
import { MARKDOWN_MAX_CHARS, renderMarkdown } from '../../src/report/markdown.js';
import type { Report, ReportItem } from '../../src/report/model.js';
import { REFERENCES_MAX_CHARS, bytesLine, describeHolders, formatBytes, renderText, summaryLine } from '../../src/report/text.js';
import { GIBIBYTE, LEFTOVERS, LEFTOVERS_LIVE, MEBIBYTE } from '../fixtures/unit/leftoverreport.js';
import { claim, lrun, pacSecret, pod } from '../fixtures/unit/leftovers.js';
import { NOW, POLICY } from '../fixtures/unit/records.js';
import { assertGolden } from '../support/golden.js';
import { reportSchemaErrors } from '../support/reportschema.js';

const LIVE = buildReport(LEFTOVERS_LIVE);
const DRY_RUN = buildReport({ ...LEFTOVERS_LIVE, dryRun: true, results: new Map() });

/** The fixture's decision for `name`. */
function decisionOf(name: string): Decision {
  const found = LEFTOVERS.find((decision) => decision.target.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

function item(report: Report, name: string): ReportItem {
  const found = [...report.items].find((candidate) => candidate.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

describe('buildReport with leftovers', () => {
  it('sorts items by namespace, then kind, then name', () => {
    assert.deepEqual(
      [...LIVE.items].map((i) => `${i.namespace}/${i.kind}/${i.name}`),
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
      [...LIVE.items].map((i) => [i.kind, i.collector]),
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
    assert.deepEqual(item(LIVE, 'pvc-build-2').references, [{ kind: 'PipelineRun', name: 'build-2', state: 'gone', via: 'ownerReference' }]);
    assert.deepEqual(item(LIVE, 'pac-gitauth-xyz').references, [{ kind: 'PipelineRun', name: 'build-1', state: 'succeeded', finishedAt: '2026-11-28T22:14:03Z', via: 'annotation' }]);
    assert.deepEqual(item(LIVE, 'pvc-aa-0').references, [{ kind: 'PipelineRun', name: 'deploy-9', state: 'running', via: 'label' }]);
    const resource = buildReport({ ...LEFTOVERS_LIVE, decisions: [{ ...decisionOf('src-abc123'), references: [{ kind: 'TaskRun', name: 't', state: 'running', via: 'spec' }] }] });
    assert.deepEqual([...resource.items][0]?.references, [{ kind: 'TaskRun', name: 't', state: 'running' }]);
  });

  it('carries bytes and where they were read only on claims that state a size', () => {
    const sizes = [...LIVE.items].map((i) => [i.name, i.bytes, i.bytesFrom]);
    assert.deepEqual(sizes, [
      ['pvc-build-1', 50 * GIBIBYTE, 'capacity'],
      ['pvc-build-2', 1500 * MEBIBYTE, 'request'],
      ['pvc-build-3', undefined, undefined],
      ['src-abc123', undefined, undefined],
      ['pac-gitauth-xyz', undefined, undefined],
      ['pvc-aa-0', 10 * GIBIBYTE, 'capacity'],
      ['affinity-assistant-7f3e', undefined, undefined],
    ]);
    assert.equal('bytes' in item(LIVE, 'pvc-build-3'), false);
  });

  it('carries what holds an item, a Pod without a phase without one, and nothing when nothing holds it', () => {
    assert.deepEqual(item(LIVE, 'pvc-build-3').heldBy, [
      { kind: 'Pod', name: 'build-3-pod', phase: 'Running' },
      { kind: 'Pod', name: 'debug-shell' },
    ]);
    assert.deepEqual(item(LIVE, 'pvc-aa-0').heldBy, [{ kind: 'StatefulSet', name: 'affinity-assistant-7f3e' }]);
    assert.equal('heldBy' in item(LIVE, 'pvc-build-1'), false);
    assert.equal('heldBy' in item(buildReport({ ...LEFTOVERS_LIVE, decisions: [{ ...decisionOf('pvc-build-2'), heldBy: [] }] }), 'pvc-build-2'), false);
  });

  it('takes terminating from the delete phase, and counts it as a result', () => {
    assert.equal(item(LIVE, 'pvc-build-2').result, 'terminating');
    assert.deepEqual(LIVE.summary.results, { deleted: 3, terminating: 1, kept: 3 });
  });

  it('counts reasons of every table in one order', () => {
    const occurred: Reason[] = ['unreferenced', 'owner-gone', 'runs-finished', 'referenced-by-active-run', 'in-use-by-statefulset', 'in-use-by-pod'];
    assert.deepEqual(Object.keys(LIVE.summary.reasons), occurred.sort(byRuleOrder));
    assert.deepEqual(Object.keys(LIVE.summary.reasons), ['referenced-by-active-run', 'in-use-by-pod', 'in-use-by-statefulset', 'runs-finished', 'owner-gone', 'unreferenced']);
  });

  it('counts targets, deletes and keeps by kind: every kind collected, zeros included, in kind order', () => {
    assert.deepEqual(LIVE.summary.byKind, {
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
    assert.deepEqual(LIVE.summary.bytes, { candidates: 50 * GIBIBYTE + 1500 * MEBIBYTE, released: 50 * GIBIBYTE, pending: 1500 * MEBIBYTE });
    assert.deepEqual(DRY_RUN.summary.bytes, { candidates: 50 * GIBIBYTE + 1500 * MEBIBYTE, released: 0, pending: 0 });
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

describe('renderJson with leftovers', () => {
  it("writes an item's keys in the schema's order, the optional ones only when set", () => {
    const parsed = JSON.parse(renderJson(LIVE)) as { items: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]; summary: Record<string, unknown> };
    assert.deepEqual(Object.keys(parsed.items[1]), ['namespace', 'kind', 'collector', 'name', 'uid', 'createdAt', 'bytes', 'bytesFrom', 'action', 'reason', 'message', 'references', 'heldBy', 'result']);
    assert.deepEqual(Object.keys(parsed.items[3]), ['namespace', 'kind', 'collector', 'name', 'uid', 'createdAt', 'action', 'reason', 'message', 'references', 'result']);
    assert.deepEqual(Object.keys(parsed.summary), ['targets', 'runs', 'delete', 'keep', 'results', 'reasons', 'byKind', 'bytes']);
    assert.deepEqual(parsed.items[1]['heldBy'], [{ kind: 'Pod', name: 'build-2-pod', phase: 'Succeeded' }]);
  });

  it('keeps that order whoever assembled the Report', () => {
    const shuffled: Report = {
      ...LIVE,
      summary: { ...(LIVE.summary.bytes !== undefined && { bytes: LIVE.summary.bytes }), byKind: LIVE.summary.byKind, reasons: LIVE.summary.reasons, results: LIVE.summary.results, keep: LIVE.summary.keep, delete: LIVE.summary.delete, runs: LIVE.summary.runs, targets: LIVE.summary.targets },
      items: [...LIVE.items].map(({ result, heldBy, references, message, reason, action, bytesFrom, bytes, createdAt, uid, name, collector, kind, namespace }) => ({
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
    assert.equal(renderJson(shuffled), renderJson(LIVE));
  });

  it('matches docs/gcreport.schema.json, live and dry run', () => {
    for (const report of [LIVE, DRY_RUN]) assert.deepEqual(reportSchemaErrors(JSON.parse(renderJson(report))), []);
  });
});

/** ALL_REASONS order, as the summary keeps it. */
function byRuleOrder(a: Reason, b: Reason): number {
  return ALL_REASONS.indexOf(a) - ALL_REASONS.indexOf(b);
}

describe('renderText with leftovers', () => {
  it('matches the golden live table: KIND, SIZE, LINKED RUNS and HELD BY, and the bytes line', () => assertGolden('report-leftovers-live.txt', renderText(LIVE)));
  it('matches the golden dry-run table', () => assertGolden('report-leftovers-dry-run.txt', renderText(DRY_RUN)));

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
    assert.equal(bytesLine(DRY_RUN), 'bytes: 51.5Gi would be released (2 claims to delete)');
    assert.equal(bytesLine(LIVE), 'bytes: 50Gi released, 1500Mi pending (terminating), of 51.5Gi (2 claims to delete)');
    const lines = renderText(LIVE).trimEnd().split('\n');
    assert.equal(lines.at(-2), bytesLine(LIVE));
    assert.equal(lines.at(-1), summaryLine(LIVE));
    const withPlanAndWarnings = renderText({ ...LIVE, warnings: ['w'], errors: ['e'] }).trimEnd().split('\n');
    assert.deepEqual(withPlanAndWarnings.slice(-4), [bytesLine(LIVE), 'warning: w', 'error: e', summaryLine(LIVE)]);
  });

  it('counts terminating in the summary line with its reasons', () => {
    assert.equal(summaryLine(LIVE), 'live: 7 targets, 5 runs: 3 deleted (runs-finished 2, unreferenced 1), 1 left terminating (owner-gone 1), 3 kept (referenced-by-active-run 1, in-use-by-pod 1, in-use-by-statefulset 1)');
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

describe('renderMarkdown with leftovers', () => {
  it('matches the golden live report: bytes, counts by kind, a section per kind', () => assertGolden('report-leftovers-live.md', renderMarkdown(LIVE)));

  it('groups by kind in kind order, each table across namespaces', () => {
    const markdown = renderMarkdown(LIVE);
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
    const live = renderMarkdown(LIVE);
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

describe('explain of a leftover', () => {
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

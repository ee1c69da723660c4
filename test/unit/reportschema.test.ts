import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../src/core/decide.js';
import { buildReport } from '../../src/report/build.js';
import { renderJson } from '../../src/report/json.js';
import type { Report } from '../../src/report/model.js';
import { NOW, POLICY, activeRun, run, target } from '../fixtures/unit/records.js';
import { reportSchemaErrors } from '../support/reportschema.js';

const decisions = decide(
  { targets: [target('done'), target('busy'), target('orphan'), target('kept', { labels: { 'tekton-resource-gc.io/retain': 'true' } })], runs: [run('old', ['done']), activeRun('build', ['busy'])], namespaces: new Map() },
  POLICY,
  NOW,
);
const base = {
  dryRun: false,
  startedAt: NOW,
  finishedAt: new Date(NOW.getTime() + 1250),
  scope: { namespaces: [], excludeNamespaces: ['kube-system'], selector: 'app=ci' },
  runs: 2,
  decisions,
};

/** The JSON report as printed, parsed back: what a reader of --output json gets. */
function printed(report: Report): unknown {
  return JSON.parse(renderJson(report));
}

describe('docs/gcreport.schema.json', () => {
  it('accepts the reports the collector prints: dry run, live with every result, a plan, warnings and errors', () => {
    const reports: Array<[string, Report]> = [
      ['dry run', buildReport({ ...base, dryRun: true, results: new Map() })],
      ['no targets', buildReport({ ...base, decisions: [], results: new Map() })],
      [
        'live, every result',
        buildReport({
          ...base,
          results: new Map([
            ['uid-done', 'deleted'],
            ['uid-orphan', 'failed'],
          ]),
          plan: { mode: 'applied', file: 'plan.json', digest: `sha256:${'a'.repeat(64)}`, entries: 2 },
          warnings: ['--min-age 0s is under a minute'],
          errors: ['could not list taskruns.tekton.dev in namespace "ci": HTTP 503\nsecond line from the server'],
        }),
      ],
    ];
    for (const [what, report] of reports) assert.deepEqual(reportSchemaErrors(printed(report)), [], what);
  });

  it('refuses what the collector never prints: an unknown result or reason, a missing key, an extra key, a two-line message', () => {
    const report = printed(buildReport({ ...base, dryRun: true, results: new Map() })) as Record<string, unknown> & { items: Record<string, unknown>[]; summary: Record<string, unknown> };
    const item = report.items[0] as Record<string, unknown>;
    const broken: Array<[string, unknown]> = [
      ['result', { ...report, items: [{ ...item, result: 'removed' }] }],
      ['reason', { ...report, items: [{ ...item, reason: 'because' }] }],
      ['summary.results key', { ...report, summary: { ...report.summary, results: { erased: 1 } } }],
      ['no items', Object.fromEntries(Object.entries(report).filter(([key]) => key !== 'items'))],
      ['an extra key', { ...report, extra: true }],
      ['a two-line message', { ...report, items: [{ ...item, message: 'a\nb' }] }],
      ['a bad digest', { ...report, plan: { mode: 'written', file: 'p.json', digest: 'sha256:12', entries: 0 } }],
      ['empty warnings', { ...report, warnings: [] }],
    ];
    for (const [what, document] of broken) assert.notDeepEqual(reportSchemaErrors(document), [], what);
  });
});

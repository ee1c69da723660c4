import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../src/core/decide.js';
import { buildReport } from '../../src/report/build.js';
import { renderJson } from '../../src/report/json.js';
import type { Report } from '../../src/report/model.js';
import { LEFTOVERS_LIVE } from '../fixtures/unit/leftoverreport.js';
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
          unreadablePrunerConfigMaps: [{ namespace: 'ci', name: 'tekton-pruner-namespace-spec', error: '--pruner-config: ConfigMap ci/tekton-pruner-namespace-spec, key ns-config, field historyLimit: expected a whole number' }],
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
      ['an unreadable ConfigMap of another name', { ...report, unreadablePrunerConfigMaps: [{ namespace: 'ci', name: 'other', error: 'x' }] }],
      ['an unreadable ConfigMap without its error', { ...report, unreadablePrunerConfigMaps: [{ namespace: 'ci', name: 'tekton-pruner-namespace-spec' }] }],
    ];
    for (const [what, document] of broken) assert.notDeepEqual(reportSchemaErrors(document), [], what);
  });

  it('accepts reports with leftovers: kinds, collectors, bytes, holders, gone owners, terminating', () => {
    assert.deepEqual(reportSchemaErrors(printed(buildReport(LEFTOVERS_LIVE))), []);
    assert.deepEqual(reportSchemaErrors(printed(buildReport({ ...LEFTOVERS_LIVE, dryRun: true, results: new Map() }))), []);
  });

  it('refuses leftover items the collector never prints', () => {
    const report = printed(buildReport(LEFTOVERS_LIVE)) as Record<string, unknown> & { items: Record<string, unknown>[]; summary: Record<string, unknown> };
    const claim = report.items.find((item) => item['name'] === 'pvc-build-2') as Record<string, unknown>;
    const secret = report.items.find((item) => item['kind'] === 'Secret') as Record<string, unknown>;
    const { bytesFrom: _, ...claimWithoutFrom } = claim;
    const { kind: __, ...claimWithoutKind } = claim;
    const broken: Array<[string, Record<string, unknown>]> = [
      ['a kind with another collector', { ...claim, collector: 'pac-secrets' }],
      ['an unknown kind', { ...claim, kind: 'ConfigMap' }],
      ['no kind', claimWithoutKind],
      ['bytes on a Secret', { ...secret, bytes: 1, bytesFrom: 'request' }],
      ['bytes without bytesFrom', claimWithoutFrom],
      ['bytes that are not whole', { ...claim, bytes: 1.5 }],
      ['an unknown bytesFrom', { ...claim, bytesFrom: 'limit' }],
      ['an empty heldBy', { ...claim, heldBy: [] }],
      ['a holder of another kind', { ...claim, heldBy: [{ kind: 'Deployment', name: 'x' }] }],
      ['an unknown via', { ...claim, references: [{ kind: 'PipelineRun', name: 'r', state: 'gone', via: 'guess' }] }],
      ['an unknown state', { ...claim, references: [{ kind: 'PipelineRun', name: 'r', state: 'vanished' }] }],
    ];
    for (const [what, item] of broken) assert.notDeepEqual(reportSchemaErrors({ ...report, items: [item] }), [], what);
    const summaries: Array<[string, Record<string, unknown>]> = [
      ['no byKind', Object.fromEntries(Object.entries(report.summary).filter(([key]) => key !== 'byKind'))],
      ['a byKind of an unknown kind', { ...report.summary, byKind: { ConfigMap: { targets: 0, delete: 0, keep: 0 } } }],
      ['bytes without pending', { ...report.summary, bytes: { candidates: 1, released: 1 } }],
    ];
    for (const [what, summary] of summaries) assert.notDeepEqual(reportSchemaErrors({ ...report, summary }), [], what);
  });
});

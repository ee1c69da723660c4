import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decide, decideWithFacts } from '../../src/core/decide.js';
import { explain, type Explanation } from '../../src/core/explain.js';
import { buildGraph } from '../../src/core/graph.js';
import { REASONS, type Action, type ClusterView, type NamespaceRecord, type Policy, type Reason, type ReferenceView, type RunRecord, type RunState, type TargetRecord } from '../../src/core/types.js';
import { DAY, HOUR, NOW, POLICY, activeRun, at, namespaces, ownerRef, run, target } from '../fixtures/unit/records.js';

const KEY = 'tekton-resource-gc.io';

interface Row {
  row: string;
  target: TargetRecord;
  runs?: readonly RunRecord[];
  namespace?: NamespaceRecord;
  policy?: Partial<Policy>;
  action: Action;
  reason: Reason;
  message: string;
  warnings?: readonly string[];
}

const dayAgo = at(-DAY);
// NamespaceRecord carries no annotations; an object that has one anyway must not retain.
const annotatedNamespace: NamespaceRecord = Object.assign({ name: 'ci', labels: {} }, { annotations: { [`${KEY}/retain`]: 'true' } });
const twoDaysAgo = at(-2 * DAY);

const rows: readonly Row[] = [
  // 1: retained
  {
    row: 'rule 1: retain label "true" keeps even an unreferenced old target',
    target: target('t', { labels: { [`${KEY}/retain`]: 'true' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true"`,
  },
  {
    row: 'rule 1: retain annotation "true"',
    target: target('t', { annotations: { [`${KEY}/retain`]: 'true' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by annotation ${KEY}/retain="true"`,
  },
  {
    row: 'rule 1: a value other than true/false retains, with a warning',
    target: target('t', { labels: { [`${KEY}/retain`]: 'yes' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="yes"`,
    warnings: [`label ${KEY}/retain "yes" is neither "true" nor "false"; any value but "false" retains`],
  },
  {
    row: 'rule 1: retain "false" does not retain: the target is collected',
    target: target('t', { labels: { [`${KEY}/retain`]: 'false' } }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 1: label or annotation: label "false", annotation "true" is retained by the annotation, with a warning',
    target: target('t', { labels: { [`${KEY}/retain`]: 'false' }, annotations: { [`${KEY}/retain`]: 'true' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by annotation ${KEY}/retain="true"`,
    warnings: [`label ${KEY}/retain "false" and the annotation of the same key, "true", differ; the annotation retains, and either one is enough`],
  },
  {
    row: 'rule 1: label "true", annotation "false" is retained by the label, with a warning',
    target: target('t', { labels: { [`${KEY}/retain`]: 'true' }, annotations: { [`${KEY}/retain`]: 'false' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true"`,
    warnings: [`label ${KEY}/retain "true" and the annotation of the same key, "false", differ; the label retains, and either one is enough`],
  },
  {
    row: 'rule 1: label "false", annotation "keep": the annotation retains, and both warnings are given',
    target: target('t', { labels: { [`${KEY}/retain`]: 'false' }, annotations: { [`${KEY}/retain`]: 'keep' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by annotation ${KEY}/retain="keep"`,
    warnings: [
      `annotation ${KEY}/retain "keep" is neither "true" nor "false"; any value but "false" retains`,
      `label ${KEY}/retain "false" and the annotation of the same key, "keep", differ; the annotation retains, and either one is enough`,
    ],
  },
  {
    row: 'rule 1: both retain with different values: the label is named, and the difference warned of',
    target: target('t', { labels: { [`${KEY}/retain`]: 'yes' }, annotations: { [`${KEY}/retain`]: 'true' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="yes"`,
    warnings: [
      `label ${KEY}/retain "yes" is neither "true" nor "false"; any value but "false" retains`,
      `label ${KEY}/retain "yes" and the annotation of the same key, "true", differ; both retain`,
    ],
  },
  {
    row: 'rule 1: label and annotation both "false": not retained, no warning',
    target: target('t', { labels: { [`${KEY}/retain`]: 'false' }, annotations: { [`${KEY}/retain`]: 'false' } }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 1: an annotation "false" alone does not retain',
    target: target('t', { annotations: { [`${KEY}/retain`]: 'false' } }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 1 before rule 5: retained even while an active run references it',
    target: target('t', { labels: { [`${KEY}/retain`]: 'true' } }),
    runs: [activeRun('build-1', ['t'])],
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true"`,
  },
  {
    row: 'rule 1 under another prefix: the default key means nothing',
    target: target('t', { labels: { [`${KEY}/retain`]: 'true', 'example.com/retain': 'true' } }),
    policy: { labelPrefix: 'example.com' },
    action: 'keep',
    reason: 'retained',
    message: 'retained by label example.com/retain="true"',
  },
  // 2: namespace-retained
  {
    row: 'rule 2: namespace label retain "true"',
    target: target('t'),
    namespace: { name: 'ci', labels: { [`${KEY}/retain`]: 'true' } },
    action: 'keep',
    reason: 'namespace-retained',
    message: `namespace ci is retained by label ${KEY}/retain="true"`,
  },
  {
    row: 'rule 2: namespace label with another value retains too, with a warning',
    target: target('t'),
    namespace: { name: 'ci', labels: { [`${KEY}/retain`]: 'keep' } },
    action: 'keep',
    reason: 'namespace-retained',
    message: `namespace ci is retained by label ${KEY}/retain="keep"`,
    warnings: [`namespace ci: label ${KEY}/retain "keep" is neither "true" nor "false"; any value but "false" retains`],
  },
  {
    row: 'rule 2: namespace label "false" retains nothing',
    target: target('t'),
    namespace: { name: 'ci', labels: { [`${KEY}/retain`]: 'false' } },
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 2: a retain annotation on the namespace retains nothing: rule 2 reads its label only',
    target: target('t'),
    namespace: annotatedNamespace,
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 2: another namespace retained does not retain this one',
    target: target('t'),
    namespace: { name: 'prod', labels: { [`${KEY}/retain`]: 'true' } },
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  // 3: retention-invalid
  {
    row: 'rule 3: retain-for that is not a duration',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '2x' } }),
    action: 'keep',
    reason: 'retention-invalid',
    message: `label ${KEY}/retain-for "2x": expected a duration such as 12h, 7d, P7D or forever`,
    warnings: [`label ${KEY}/retain-for "2x": expected a duration such as 12h, 7d, P7D or forever`],
  },
  {
    row: 'rule 3: retain-until that is not a date, in an annotation',
    target: target('t', { annotations: { [`${KEY}/retain-until`]: 'next friday' } }),
    action: 'keep',
    reason: 'retention-invalid',
    message: `annotation ${KEY}/retain-until "next friday": expected a date such as 2026-12-31 or a timestamp such as 2026-12-31T18:00:00Z`,
    warnings: [`annotation ${KEY}/retain-until "next friday": expected a date such as 2026-12-31 or a timestamp such as 2026-12-31T18:00:00Z`],
  },
  {
    row: 'rule 3 after rule 1: a retained target with an invalid value stays retained, and warns',
    target: target('t', { labels: { [`${KEY}/retain`]: 'true', [`${KEY}/retain-for`]: 'P' } }),
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true"`,
    warnings: [`label ${KEY}/retain-for "P": expected a duration such as 12h, 7d, P7D or forever`],
  },
  // 4: unreadable-run
  {
    row: 'rule 4: a run in the namespace with references of an unexpected shape',
    target: target('t'),
    runs: [run('odd-1', null, { kind: 'TaskRun' })],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'TaskRun odd-1 in namespace ci has fields of an unexpected shape (spec.resources: expected an array, found a string), so what it links is unknown',
  },
  {
    row: 'rule 4: several unreadable runs are counted',
    target: target('t'),
    runs: [run('odd-1', null), run('odd-2', null), run('odd-3', null)],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun odd-1 in namespace ci has fields of an unexpected shape (spec.resources: expected an array, found a string) and 2 more unreadable runs, so what it links is unknown',
  },
  {
    row: 'rule 4: an unreadable run in another namespace does not matter',
    target: target('t'),
    runs: [run('odd-1', null, { namespace: 'other' })],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 4: a run whose namespace cannot be read counts against every namespace',
    target: target('t'),
    runs: [run('', null, { namespace: '', problems: [{ field: 'metadata.namespace', problem: 'expected a non-empty string, found a number' }] })],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun (unnamed) whose namespace cannot be read has fields of an unexpected shape (metadata.namespace: expected a non-empty string, found a number), so what it links is unknown',
  },
  {
    row: 'rule 4 before rule 5: an unreadable run wins over an active one',
    target: target('t'),
    runs: [activeRun('build-1', ['t']), run('odd-1', null)],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun odd-1 in namespace ci has fields of an unexpected shape (spec.resources: expected an array, found a string), so what it links is unknown',
  },
  // 5: referenced-by-active-run
  {
    row: 'rule 5: a running PipelineRun',
    target: target('t'),
    runs: [activeRun('build-42', ['t'])],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'referenced by active PipelineRun build-42 (running)',
  },
  {
    row: 'rule 5: a pending run counts as active',
    target: target('t'),
    runs: [run('build-43', ['t'], { state: 'pending' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'referenced by active PipelineRun build-43 (pending)',
  },
  {
    row: 'rule 5: one active among finished runs is enough, and others are counted',
    target: target('t'),
    runs: [run('a-done', ['t']), activeRun('b-run', ['t']), activeRun('c-run', ['t'], { kind: 'TaskRun' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'referenced by active PipelineRun b-run (running) and 1 more active run',
  },
  {
    row: 'rule 5: a TaskRun done but its PipelineRun still running is active',
    target: target('t'),
    runs: [
      run('child', ['t'], { kind: 'TaskRun', state: 'failed', parentPipelineRun: { name: 'parent', uid: 'uid-parent' } }),
      activeRun('parent', []),
    ],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'referenced by active TaskRun child (running)',
  },
  {
    row: 'rule 5: a run referencing the target as its owner (ownerReference) keeps it while active',
    target: target('t', { ownerReferences: [ownerRef(activeRun('owner', []))] }),
    runs: [activeRun('owner', [])],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun owner (running)',
  },
  {
    row: 'rule 5: an active run in another namespace naming the same name is no reference',
    target: target('t'),
    runs: [activeRun('build-1', ['t'], { namespace: 'other' })],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 5: an active run naming another target is no reference',
    target: target('t'),
    runs: [activeRun('build-1', ['t-other'])],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  // 6: too-young
  {
    row: 'rule 6: created 20m ago with min age 1h',
    target: target('t', { createdAt: at(-20 * 60_000) }),
    action: 'keep',
    reason: 'too-young',
    message: 'created 20m ago; min age 1h',
  },
  {
    row: 'rule 6 boundary: exactly min age old is not too young',
    target: target('t', { createdAt: at(-HOUR) }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 6 boundary: one millisecond short of min age is too young',
    target: target('t', { createdAt: new Date(NOW.getTime() - HOUR + 1).toISOString() }),
    action: 'keep',
    reason: 'too-young',
    message: 'created 59m59s ago; min age 1h',
  },
  {
    row: 'rule 6: a creation time in the future (clock skew) is young',
    target: target('t', { createdAt: at(5 * 60_000) }),
    action: 'keep',
    reason: 'too-young',
    message: 'created 5m from now by this clock; min age 1h',
  },
  {
    row: 'rule 6: a creation time that cannot be read keeps the target',
    target: target('t', { createdAt: 'yesterday' }),
    action: 'keep',
    reason: 'too-young',
    message: 'creation time "yesterday" cannot be read; min age 1h',
  },
  {
    row: 'rule 6 with min age 0: a brand new target is old enough',
    target: target('t', { createdAt: at(0) }),
    policy: { minAgeMs: 0 },
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  // 7: retain-until
  {
    row: 'rule 7: retain-until tomorrow',
    target: target('t', { labels: { [`${KEY}/retain-until`]: '2026-11-30' } }),
    action: 'keep',
    reason: 'retain-until',
    message: `retained until 2026-11-30T00:00:00Z by label ${KEY}/retain-until`,
  },
  {
    row: 'rule 7 boundary: retain-until equal to now is not in the future',
    target: target('t', { annotations: { [`${KEY}/retain-until`]: '2026-11-29T12:00:00Z' } }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 7: retain-until one second from now keeps',
    target: target('t', { annotations: { [`${KEY}/retain-until`]: '2026-11-29T12:00:01Z' } }),
    action: 'keep',
    reason: 'retain-until',
    message: `retained until 2026-11-29T12:00:01Z by annotation ${KEY}/retain-until`,
  },
  {
    row: 'rule 7: retain-until in the past lets the target go',
    target: target('t', { labels: { [`${KEY}/retain-until`]: '2026-11-01' } }),
    runs: [run('build-1', ['t'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${dayAgo}`,
  },
  // 8: retain-for
  {
    row: 'rule 8: per-target retain-for 7d from the last run finishing a day ago',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '7d' } }),
    runs: [run('build-1', ['t'], { finishedAt: twoDaysAgo }), run('build-2', ['t'])],
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 7d (label ${KEY}/retain-for) lasts until 2026-12-05T12:00:00Z, counted from the last run finishing at ${dayAgo}`,
  },
  {
    row: 'rule 8: retain-for elapsed since the last finish lets the target go',
    target: target('t', { annotations: { [`${KEY}/retain-for`]: 'PT12H' } }),
    runs: [run('build-1', ['t'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 8 boundary: retain-for exactly elapsed is no longer retained',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '1d' } }),
    runs: [run('build-1', ['t'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 8: no referencing run: counted from the creation time (3 days ago)',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '4d' } }),
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 4d (label ${KEY}/retain-for) lasts until 2026-11-30T12:00:00Z, counted from its creation at 2026-11-26T12:00:00Z`,
  },
  {
    row: 'rule 8: the global retain-for applies when the target has none',
    target: target('t'),
    runs: [run('build-1', ['t'])],
    policy: { retainFor: { kind: 'duration', ms: 2 * DAY, text: '2d' } },
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 2d (the global retain-for) lasts until 2026-11-30T12:00:00Z, counted from the last run finishing at ${dayAgo}`,
  },
  {
    row: "rule 8: the target's own retain-for wins over the global one (shorter here)",
    target: target('t', { labels: { [`${KEY}/retain-for`]: '1h' } }),
    runs: [run('build-1', ['t'])],
    policy: { retainFor: { kind: 'forever' } },
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 8: retain-for forever',
    target: target('t', { labels: { [`${KEY}/retain-for`]: 'forever' } }),
    runs: [run('build-1', ['t'])],
    action: 'keep',
    reason: 'retain-for',
    message: `retained forever by label ${KEY}/retain-for`,
  },
  {
    row: 'rule 8: the global retain-for forever keeps unreferenced targets too',
    target: target('t'),
    policy: { retainFor: { kind: 'forever' } },
    action: 'keep',
    reason: 'retain-for',
    message: 'retained forever by the global retain-for',
  },
  {
    row: 'rule 8 after rule 6: a young target is too young first',
    target: target('t', { createdAt: at(-10 * 60_000), labels: { [`${KEY}/retain-for`]: 'forever' } }),
    action: 'keep',
    reason: 'too-young',
    message: 'created 10m ago; min age 1h',
  },
  // 9: runs-finished
  {
    row: 'rule 9: all referencing runs finished (succeeded, failed, cancelled)',
    target: target('t'),
    runs: [
      run('a', ['t'], { finishedAt: at(-3 * HOUR) }),
      run('b', ['t'], { state: 'failed', finishedAt: at(-2 * HOUR) }),
      run('c', ['t'], { kind: 'TaskRun', state: 'cancelled', finishedAt: at(-5 * HOUR) }),
    ],
    action: 'delete',
    reason: 'runs-finished',
    message: 'all 3 linked runs finished; last at 2026-11-29T10:00:00Z',
  },
  {
    row: 'rule 9: a child TaskRun done while its PipelineRun is finished too',
    target: target('t'),
    runs: [run('child', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'parent', uid: 'uid-parent' } }), run('parent', [])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, TaskRun child (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 9: a child TaskRun done whose PipelineRun is gone',
    target: target('t'),
    runs: [run('child', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'parent', uid: 'uid-parent' } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, TaskRun child (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 9: a running PipelineRun of the same name but another uid is not the parent (recreated)',
    target: target('t'),
    runs: [
      run('child', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'parent', uid: 'uid-old-parent' } }),
      activeRun('parent', []),
    ],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, TaskRun child (by its spec), finished at ${dayAgo}`,
  },
  {
    row: 'rule 9: a finished owner (ownerReference) is a finished reference',
    target: target('t', { ownerReferences: [ownerRef(run('owner', []))] }),
    runs: [run('owner', [])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun owner (its owner), finished at ${dayAgo}`,
  },
  // 10: unreferenced
  {
    row: 'rule 10: no run at all',
    target: target('t'),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 10: an owner that is gone references nothing',
    target: target('t', { ownerReferences: [{ kind: 'PipelineRun', name: 'gone', uid: 'uid-gone', controller: true }] }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 10: an owner of the same name but another uid is gone',
    target: target('t', { ownerReferences: [{ kind: 'PipelineRun', name: 'owner', uid: 'uid-earlier-owner', controller: true }] }),
    runs: [activeRun('owner', [])],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 10: an owner uid that matches a run in another namespace is no owner (ownerReferences never cross namespaces)',
    target: target('t', { ownerReferences: [ownerRef(activeRun('owner', []))] }),
    runs: [activeRun('owner', [], { namespace: 'other' })],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 10: an owner that is not a run (ConfigMap) references nothing',
    target: target('t', { ownerReferences: [{ kind: 'ConfigMap', name: 'c', uid: 'uid-c', controller: false }] }),
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
];

describe('decide: the rules of docs/spec.md, first match wins', () => {
  for (const row of rows) {
    it(row.row, () => {
      const view = {
        targets: [row.target],
        runs: row.runs ?? [],
        namespaces: row.namespace === undefined ? new Map() : namespaces(row.namespace),
      };
      const [decision, ...others] = decide(view, { ...POLICY, ...row.policy }, NOW);
      assert.equal(others.length, 0);
      assert.ok(decision !== undefined);
      assert.deepEqual(
        { action: decision.action, reason: decision.reason, message: decision.message, warnings: decision.warnings },
        { action: row.action, reason: row.reason, message: row.message, warnings: row.warnings ?? [] },
      );
    });
  }
});

describe('decide: the decisions as a whole', () => {
  it('lists the referencing runs with effective states, sorted by kind then name', () => {
    const runs = [
      run('z-pr', ['t'], { finishedAt: '2026-11-28T10:00:00Z' }),
      run('a-tr', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'p', uid: 'uid-p' } }),
      activeRun('p', []),
      activeRun('owner', []),
    ];
    const [decision] = decide({ targets: [target('t', { ownerReferences: [ownerRef(activeRun('owner', []))] })], runs, namespaces: new Map() }, POLICY, NOW);
    const expected: ReferenceView[] = [
      { kind: 'PipelineRun', name: 'owner', state: 'running', via: 'ownerReference' },
      { kind: 'PipelineRun', name: 'z-pr', state: 'succeeded', finishedAt: '2026-11-28T10:00:00Z', via: 'spec' },
      { kind: 'TaskRun', name: 'a-tr', state: 'running', finishedAt: dayAgo, via: 'spec' },
    ];
    assert.deepEqual(decision?.references, expected);
  });

  it('a run that names the target and owns it is listed once, as spec', () => {
    const owner = run('owner', ['t']);
    const [decision] = decide({ targets: [target('t', { ownerReferences: [ownerRef(owner)] })], runs: [owner], namespaces: new Map() }, POLICY, NOW);
    assert.deepEqual(decision?.references.map((ref) => ref.via), ['spec']);
  });

  it('names the same unreadable run whatever the order of the runs', () => {
    const runs = [run('odd-b', null), run('odd-a', null, { kind: 'TaskRun' }), run('odd-a', null)];
    const messages = [runs, [...runs].reverse()].map((list) => decide({ targets: [target('t')], runs: list, namespaces: new Map() }, POLICY, NOW)[0]?.message);
    assert.deepEqual(messages, [
      'PipelineRun odd-a in namespace ci has fields of an unexpected shape (spec.resources: expected an array, found a string) and 2 more unreadable runs, so what it links is unknown',
      'PipelineRun odd-a in namespace ci has fields of an unexpected shape (spec.resources: expected an array, found a string) and 2 more unreadable runs, so what it links is unknown',
    ]);
  });

  it('sorts decisions by namespace, then name', () => {
    const targets = [target('b'), target('a', { namespace: 'z' }), target('a'), target('c', { namespace: 'b' })];
    const decisions = decide({ targets, runs: [], namespaces: new Map() }, POLICY, NOW);
    assert.deepEqual(decisions.map((d) => `${d.target.namespace}/${d.target.name}`), ['b/c', 'ci/a', 'ci/b', 'z/a']);
  });

  it('never reads the clock: the same view at two instants decides by the instant given', () => {
    const view = { targets: [target('t', { createdAt: '2026-11-29T11:30:00Z' })], runs: [], namespaces: new Map() };
    assert.equal(decide(view, POLICY, new Date('2026-11-29T12:00:00Z'))[0]?.reason, 'too-young');
    assert.equal(decide(view, POLICY, new Date('2026-11-29T12:30:00Z'))[0]?.reason, 'unreferenced');
  });
});

describe('buildGraph', () => {
  it('a child of an active parent in another namespace is not its child (ownerReferences never cross namespaces)', () => {
    const child = run('child', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'parent', uid: 'uid-parent' } });
    const graph = buildGraph([child, activeRun('parent', [], { namespace: 'other' })]);
    assert.equal(graph.links(target('t'), ['resource-binding', 'owner-reference']).linked[0]?.state, 'succeeded');
  });

  it('unreadable runs are per namespace, and runs of unknown namespace count everywhere', () => {
    const unknown = run('', null, { namespace: '' });
    const graph = buildGraph([run('odd', null, { namespace: 'a' }), unknown]);
    assert.deepEqual(graph.unreadableRuns('a').map((r) => r.name), ['odd', '']);
    assert.deepEqual(graph.unreadableRuns('b'), [unknown]);
  });
});

// ---- explain and decide: one decision ----

const MINUTE = 60_000;
const FC_RUNS = { seed: Number(process.env['TRGC_FC_SEED'] ?? 20261129), numRuns: 400 };
const TIME_REASONS: readonly Reason[] = ['too-young', 'retain-until', 'retain-for'];
/** Far enough that every end the generator can make has passed. */
const CENTURY = 100 * 365 * DAY;

/** A value for a retention key: mostly absent, else valid or not, in the past or the future. */
const sometimes = <T>(values: readonly T[]) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constantFrom(...values), weight: 1 });
const retentionArb = fc.record({
  retain: sometimes(['true', 'false', 'yes']),
  'retain-until': sometimes([at(-DAY), at(2 * HOUR), at(3 * DAY), '2026-11-29', 'soon']),
  'retain-for': sometimes(['30m', '2h', '2d', 'P7D', 'forever', '2x']),
});
const keyed = (values: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).flatMap(([key, value]) => (value === undefined ? [] : [[`${KEY}/${key}`, value]])));

const explainTargetArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom('t0', 't1', 't2', 't3'),
  // Now and then a creation time that cannot be read.
  created: fc.oneof({ arbitrary: fc.integer({ min: -4 * DAY, max: 10 * MINUTE }).map(at), weight: 20 }, { arbitrary: fc.constant('yesterday'), weight: 1 }),
  labels: retentionArb,
  annotations: retentionArb,
});

const explainRunArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom('r0', 'r1', 'r2', 'r3', 'r4'),
  references: fc.oneof({ arbitrary: fc.subarray(['t0', 't1', 't2', 't3']), weight: 30 }, { arbitrary: fc.constant(null), weight: 1 }),
  state: fc.constantFrom<RunState>('pending', 'running', 'succeeded', 'failed', 'cancelled'),
  finishedAgo: fc.integer({ min: 0, max: 4 * DAY }),
});

const explainClusterArb = fc.record({
  targets: fc.uniqueArray(explainTargetArb, { selector: (t) => `${t.namespace}/${t.name}`, maxLength: 8 }),
  runs: fc.uniqueArray(explainRunArb, { selector: (r) => `${r.namespace}/${r.name}`, maxLength: 8 }),
  retainedNamespace: sometimes(['a', 'b']),
  minAgeMs: fc.constantFrom(0, 20 * MINUTE, HOUR, DAY),
  retainFor: sometimes(['1h', '3d', 'forever']),
  clockOffset: fc.oneof(fc.constant(0), fc.integer({ min: -HOUR, max: 5 * DAY })),
});

function explainClusterOf(generated: typeof explainClusterArb extends fc.Arbitrary<infer T> ? T : never): { view: ClusterView; policy: Policy; now: Date } {
  const targets = generated.targets.map((t) => target(t.name, { namespace: t.namespace, uid: `uid-${t.namespace}-${t.name}`, createdAt: t.created, labels: keyed(t.labels), annotations: keyed(t.annotations) }));
  const runs = generated.runs.map((r) => run(r.name, r.references, { namespace: r.namespace, uid: `uid-${r.namespace}-${r.name}`, state: r.state, ...(r.state === 'pending' || r.state === 'running' ? {} : { finishedAt: at(-r.finishedAgo) }) }));
  const namespaceRecords = ['a', 'b'].map((name) => ({ name, labels: keyed({ retain: name === generated.retainedNamespace ? 'true' : undefined }) }));
  const retainFor = generated.retainFor === undefined ? undefined : generated.retainFor === 'forever' ? ({ kind: 'forever' } as const) : { kind: 'duration' as const, ms: generated.retainFor === '1h' ? HOUR : 3 * DAY, text: generated.retainFor };
  return {
    view: { targets, runs, namespaces: namespaces(...namespaceRecords) },
    policy: { labelPrefix: KEY, minAgeMs: generated.minAgeMs, ...(retainFor !== undefined && { retainFor }) },
    now: new Date(NOW.getTime() + generated.clockOffset),
  };
}

/** explain as the CLI runs it: the target, the runs of its namespace and its namespace, nothing else of the cluster. */
function explainOne(view: ClusterView, policy: Policy, now: Date, one: TargetRecord): Explanation {
  const input = {
    target: one,
    runs: view.runs.filter((r) => r.namespace === one.namespace),
    namespace: view.namespaces.get(one.namespace),
    scope: { inScope: true as const },
    origins: { 'min-age': 'default', 'retain-for': 'default' },
  };
  return explain(input, policy, now);
}

const decisionFor = (view: ClusterView, policy: Policy, now: Date, one: TargetRecord) => decide(view, policy, now).find((d) => d.target.uid === one.uid);

describe('explain and decide: one decision', () => {
  it('decideWithFacts gives decide()\'s decisions, in its order', () => {
    fc.assert(
      fc.property(explainClusterArb, (generated) => {
        const { view, policy, now } = explainClusterOf(generated);
        assert.deepEqual(decideWithFacts(view, policy, now).map(({ decision }) => decision), decide(view, policy, now));
      }),
      FC_RUNS,
    );
  });

  it('for every rule, explain over one namespace decides as decide over the cluster, and its facts and its "collectable" agree with decide at other instants', (t) => {
    const reached = new Map<string, number>([...REASONS, 'collectable now', 'collectable at', 'collectable never'].map((branch) => [branch, 0]));
    const reach = (branch: string): void => void reached.set(branch, (reached.get(branch) ?? 0) + 1);
    fc.assert(
      fc.property(explainClusterArb, (generated) => {
        const { view, policy, now } = explainClusterOf(generated);
        const nowMs = now.getTime();
        for (const one of view.targets) {
          const explanation = explainOne(view, policy, now, one);
          const { decision, collectable } = explanation;
          assert.deepEqual(decision, decisionFor(view, policy, now, one));
          assert.equal(explanation.rule, REASONS.indexOf(decision.reason) + 1);
          reach(decision.reason);
          reach(`collectable ${collectable.when}`);
          // A setting explain shows as keeping the target keeps it; a deleted one is kept by none.
          const keeping = explanation.retention.filter((fact) => fact.expiresMs !== undefined && (typeof fact.expiresMs !== 'number' || fact.expiresMs > nowMs));
          if (decision.action === 'delete') assert.deepEqual(keeping, [], 'a setting shown as keeping a target decided for deletion');
          if (TIME_REASONS.includes(decision.reason)) {
            const setting = decision.reason === 'too-young' ? 'min-age' : decision.reason;
            assert.ok(keeping.some((fact) => fact.setting === setting), `${decision.reason}, but explain shows ${setting} as not keeping it`);
          }
          switch (collectable.when) {
            case 'now':
              assert.equal(decision.action, 'delete');
              break;
            case 'at':
              // Nothing changes but the clock: collectable at the instant named, kept by a time rule just before it.
              assert.equal(decision.action, 'keep');
              assert.ok(collectable.atMs > nowMs);
              assert.equal(decisionFor(view, policy, new Date(collectable.atMs), one)?.action, 'delete');
              assert.ok(TIME_REASONS.includes(decisionFor(view, policy, new Date(collectable.atMs - 1), one)?.reason ?? 'unreferenced'));
              break;
            case 'never':
              assert.equal(decision.action, 'keep');
              assert.equal(decisionFor(view, policy, new Date(nowMs + CENTURY), one)?.action, 'keep');
              break;
          }
        }
      }),
      FC_RUNS,
    );
    t.diagnostic(`branches checked: ${JSON.stringify(Object.fromEntries(reached))}`);
    for (const [branch, count] of reached) assert.ok(count >= 20, `${branch} met ${count} times: the generator hardly reaches it`);
  });
});

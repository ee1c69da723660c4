/**
 * The decision tables of docs/spec.md as core-level cases on plain records, rule by rule,
 * first match wins: the PipelineResources' ("The decision") and the leftovers' ("The
 * leftovers' decision": claims, Pipelines-as-Code Secrets, affinity-assistant StatefulSets);
 * then, whatever the kind, the links between runs, Pods, StatefulSets and targets, the pass
 * as a whole, the acceptance scenarios that are pure decisions, explain and decide making one
 * decision, and the collectors, as data. The ResolutionRequests' rows are in
 * resolution-requests.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { collectableAt } from '../../src/core/collectable.js';
import { COLLECTOR_NAMES, COLLECTORS, collectorOf } from '../../src/core/collectors.js';
import { decide, decideWithFacts } from '../../src/core/decide.js';
import { explain, type Explanation } from '../../src/core/explain.js';
import { buildGraph } from '../../src/core/graph.js';
import { toClaimTarget, toPacSecretTarget } from '../../src/core/markers.js';
import { toRunRecord } from '../../src/core/runs.js';
import {
  ALL_REASONS,
  LEFTOVER_REASONS,
  REASONS,
  RESOLUTION_REASONS,
  RUN_REASONS,
  type Action,
  type ClusterView,
  type Decision,
  type Holder,
  type NamespaceRecord,
  type PodRecord,
  type Policy,
  type Reason,
  type ReferenceView,
  type RunRecord,
  type RunState,
  type StatefulSetRecord,
  type TargetKindName,
  type TargetRecord,
} from '../../src/core/types.js';
import {
  activeLrun,
  affinityClaim,
  affinityStatefulSet,
  childLrun,
  claim,
  lrun,
  ownedClaimObject,
  ownerReference,
  pacSecret,
  pacSecretObject,
  pod,
  statefulSet,
} from '../fixtures/unit/leftovers.js';
import { DAY, HOUR, NOW, POLICY, activeRun, at, namespaces, ownerRef, run, runObject, succeededStatus, target } from '../fixtures/unit/records.js';

const KEY = 'tekton-resource-gc.io';
const DAY_AGO = at(-DAY);
const TWO_DAYS_AGO = at(-2 * DAY);

// ---- The PipelineResources' table ----

interface PipelineResourceRow {
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

// NamespaceRecord carries no annotations; an object that has one anyway must not retain.
const annotatedNamespace: NamespaceRecord = Object.assign({ name: 'ci', labels: {} }, { annotations: { [`${KEY}/retain`]: 'true' } });

const pipelineResourceRows: readonly PipelineResourceRow[] = [
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
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${DAY_AGO}`,
  },
  // 8: retain-for
  {
    row: 'rule 8: per-target retain-for 7d from the last run finishing a day ago',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '7d' } }),
    runs: [run('build-1', ['t'], { finishedAt: TWO_DAYS_AGO }), run('build-2', ['t'])],
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 7d (label ${KEY}/retain-for) lasts until 2026-12-05T12:00:00Z, counted from the last run finishing at ${DAY_AGO}`,
  },
  {
    row: 'rule 8: retain-for elapsed since the last finish lets the target go',
    target: target('t', { annotations: { [`${KEY}/retain-for`]: 'PT12H' } }),
    runs: [run('build-1', ['t'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 8 boundary: retain-for exactly elapsed is no longer retained',
    target: target('t', { labels: { [`${KEY}/retain-for`]: '1d' } }),
    runs: [run('build-1', ['t'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${DAY_AGO}`,
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
    message: `retain-for 2d (the global retain-for) lasts until 2026-11-30T12:00:00Z, counted from the last run finishing at ${DAY_AGO}`,
  },
  {
    row: "rule 8: the target's own retain-for wins over the global one (shorter here)",
    target: target('t', { labels: { [`${KEY}/retain-for`]: '1h' } }),
    runs: [run('build-1', ['t'])],
    policy: { retainFor: { kind: 'forever' } },
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun build-1 (by its spec), finished at ${DAY_AGO}`,
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
    message: `its only linked run, TaskRun child (by its spec), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 9: a child TaskRun done whose PipelineRun is gone',
    target: target('t'),
    runs: [run('child', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'parent', uid: 'uid-parent' } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, TaskRun child (by its spec), finished at ${DAY_AGO}`,
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
    message: `its only linked run, TaskRun child (by its spec), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 9: a finished owner (ownerReference) is a finished reference',
    target: target('t', { ownerReferences: [ownerRef(run('owner', []))] }),
    runs: [run('owner', [])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun owner (its owner), finished at ${DAY_AGO}`,
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

describe('decide: the PipelineResources’ table, first match wins', () => {
  for (const row of pipelineResourceRows) {
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

// ---- The leftovers' table ----

interface View {
  runs?: readonly RunRecord[];
  pods?: readonly PodRecord[];
  statefulSets?: readonly StatefulSetRecord[];
  namespace?: NamespaceRecord;
  /** Other targets decided in the same pass. */
  others?: readonly TargetRecord[];
  policy?: Partial<Policy>;
  now?: Date;
}

interface LeftoverRow extends View {
  row: string;
  target: TargetRecord;
  action: Action;
  reason: Reason;
  message: string;
  references?: readonly ReferenceView[];
  heldBy?: readonly Holder[];
  warnings?: readonly string[];
}

function viewOf(targets: readonly TargetRecord[], view: View): ClusterView {
  return {
    targets,
    runs: view.runs ?? [],
    namespaces: new Map(view.namespace === undefined ? [] : [[view.namespace.name, view.namespace]]),
    ...(view.pods !== undefined && { pods: view.pods }),
    ...(view.statefulSets !== undefined && { statefulSets: view.statefulSets }),
  };
}

function decideOne(one: TargetRecord, view: View = {}): Decision {
  const decisions = decide(viewOf([...(view.others ?? []), one], view), { ...POLICY, ...view.policy }, view.now ?? NOW);
  const decision = decisions.find((d) => d.target === one);
  assert.ok(decision !== undefined, 'no decision for the target');
  return decision;
}

// Runs the leftovers' rows use. A finished owner and its child; other runs; an owner that is gone.
const owner = lrun('pr-1');
const ownerChild = childLrun('pr-1-fetch', owner, { workspaces: { claims: ['pvc-1'], secrets: [] } });
const other = lrun('pr-2', { workspaces: { claims: ['pvc-1'], secrets: [] } });
const goneOwner = { kind: 'PipelineRun' as const, name: 'pr-gone', uid: 'uid-pr-gone' };
const retainOn = (labels: Record<string, string>, annotations: Record<string, string> = {}): RunRecord['retain'] => ({ labels, annotations });

const leftoverRows: readonly LeftoverRow[] = [
  // ---- 1: retained (on the object, or on its owner run that still exists)
  {
    row: 'rule 1: retain on the claim keeps it, whatever else holds (a running owner, a Pod)',
    target: claim('pvc-1', activeLrun('pr-1'), { labels: { [`${KEY}/retain`]: 'true' } }),
    runs: [activeLrun('pr-1')],
    pods: [pod('p', { claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true"`,
    heldBy: [{ kind: 'Pod', name: 'p', phase: 'Running' }],
  },
  {
    row: 'rule 1: retain on its owner run (scenario 15)',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1', { retain: retainOn({ [`${KEY}/retain`]: 'true' }) })],
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="true" on its owner PipelineRun pr-1`,
  },
  {
    row: 'rule 1: retain as an annotation on the owner of a Pipelines-as-Code Secret',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [lrun('pr-1', { retain: retainOn({}, { [`${KEY}/retain`]: 'true' }) })],
    action: 'keep',
    reason: 'retained',
    message: `retained by annotation ${KEY}/retain="true" on its owner PipelineRun pr-1`,
  },
  {
    row: 'rule 1: retain on the PipelineRun an affinity-assistant claim is labelled for (its owner)',
    target: affinityClaim('pvc-aa', 'pr-1'),
    runs: [lrun('pr-1', { retain: retainOn({ [`${KEY}/retain`]: 'yes' }) })],
    action: 'keep',
    reason: 'retained',
    message: `retained by label ${KEY}/retain="yes" on its owner PipelineRun pr-1`,
  },
  {
    row: 'rule 1: retain "false" on the owner retains nothing',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1', { retain: retainOn({ [`${KEY}/retain`]: 'false' }) })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 1: retain on a linked run that is not its owner (a child TaskRun) does not retain',
    target: claim('pvc-1', owner),
    runs: [owner, childLrun('pr-1-fetch', owner, { workspaces: { claims: ['pvc-1'], secrets: [] }, retain: retainOn({ [`${KEY}/retain`]: 'true' }) })],
    action: 'delete',
    reason: 'runs-finished',
    message: `all 2 linked runs finished; last at ${DAY_AGO}`,
  },
  {
    row: 'rule 1: a run of the StatefulSet owner’s name but another uid is another run: its retain does not count',
    target: affinityStatefulSet('affinity-assistant-0123456789', goneOwner, { leftover: { marker: 'statefulset', pipelineRunLabel: 'pr-1' } }),
    runs: [lrun('pr-1', { retain: retainOn({ [`${KEY}/retain`]: 'true' }) })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (by its tekton.dev/pipelineRun label), finished at ${DAY_AGO}`,
  },
  // ---- 2: namespace retained
  {
    row: 'rule 2: its namespace is retained (scenario 15)',
    target: claim('pvc-1', goneOwner),
    namespace: { name: 'ci', labels: { [`${KEY}/retain`]: 'true' } },
    action: 'keep',
    reason: 'namespace-retained',
    message: `namespace ci is retained by label ${KEY}/retain="true"`,
  },
  // ---- 3: retention invalid
  {
    row: 'rule 3: a retention value that cannot be parsed (scenario 15), before an unreadable run',
    target: pacSecret('pac-gitauth-abcd', undefined, { labels: { [`${KEY}/retain-for`]: 'soon' } }),
    runs: [lrun('odd', { workspaces: null, leftoverProblems: [{ field: 'spec.workspaces', problem: 'expected an array, found a string' }] })],
    action: 'keep',
    reason: 'retention-invalid',
    message: `label ${KEY}/retain-for "soon": expected a duration such as 12h, 7d, P7D or forever`,
    warnings: [`label ${KEY}/retain-for "soon": expected a duration such as 12h, 7d, P7D or forever`],
  },
  // ---- 4: unreadable run
  {
    row: 'rule 4: a run of the namespace links leftovers in a shape it cannot read (scenario 20), before a user claim',
    target: claim('pvc-1', owner),
    runs: [owner, other, lrun('odd', { workspaces: null, leftoverProblems: [{ field: 'spec.workspaces', problem: 'expected an array, found a string' }] })],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun odd in namespace ci has fields of an unexpected shape (spec.workspaces: expected an array, found a string), so what it links is unknown',
  },
  {
    row: 'rule 4: a run read without the leftovers option links what nobody knows',
    target: pacSecret('pac-gitauth-abcd'),
    runs: [run('plain', [])],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun plain in namespace ci was read without its workspaces and annotations, so what it links is unknown',
  },
  {
    row: 'rule 4: a run whose namespace cannot be read counts in every namespace',
    target: affinityStatefulSet('affinity-assistant-0123456789', goneOwner),
    runs: [lrun('', { namespace: '', leftoverProblems: [{ field: 'metadata.namespace', problem: 'expected a non-empty string, found nothing' }] }), lrun('odd', { namespace: 'other', workspaces: null, leftoverProblems: [{ field: 'spec.workspaces', problem: 'x' }] })],
    action: 'keep',
    reason: 'unreadable-run',
    message: 'PipelineRun (unnamed) whose namespace cannot be read has fields of an unexpected shape (metadata.namespace: expected a non-empty string, found nothing), so what it links is unknown',
  },
  {
    row: 'rule 4: an unreadable run in another namespace does not keep it',
    target: claim('pvc-1', goneOwner),
    runs: [lrun('odd', { namespace: 'other', workspaces: null, leftoverProblems: [{ field: 'spec.workspaces', problem: 'x' }] })],
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
  },
  {
    row: 'rule 4: a run whose PipelineResource references cannot be read, but whose links can, keeps no leftover',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1'), lrun('odd-resources', { references: null, problems: [{ field: 'spec.resources', problem: 'expected an array, found a string' }] })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  // ---- 5: user-claimed
  {
    row: 'rule 5: a run other than its owner binds the claim by name (scenario 9), even a finished one',
    target: claim('pvc-1', owner),
    runs: [owner, other],
    action: 'keep',
    reason: 'user-claimed',
    message: 'bound by name in a workspace of PipelineRun pr-2, which is not its owner',
    references: [
      { kind: 'PipelineRun', name: 'pr-1', state: 'succeeded', finishedAt: DAY_AGO, via: 'ownerReference' },
      { kind: 'PipelineRun', name: 'pr-2', state: 'succeeded', finishedAt: DAY_AGO, via: 'workspace' },
    ],
  },
  {
    row: 'rule 5 before 6: claimed by a running run that is not its owner',
    target: claim('pvc-1', owner),
    runs: [owner, activeLrun('pr-2', { workspaces: { claims: ['pvc-1'], secrets: [] } }), lrun('pr-3', { workspaces: { claims: ['pvc-1'], secrets: [] } })],
    action: 'keep',
    reason: 'user-claimed',
    message: 'bound by name in a workspace of PipelineRun pr-2, which is not its owner and 1 more such run',
  },
  {
    row: 'rule 5: a TaskRun of another PipelineRun binding the claim is a user claim',
    target: claim('pvc-1', owner),
    runs: [owner, lrun('pr-2'), childLrun('pr-2-use', lrun('pr-2'), { workspaces: { claims: ['pvc-1'], secrets: [] } })],
    action: 'keep',
    reason: 'user-claimed',
    message: 'bound by name in a workspace of TaskRun pr-2-use, which is not its owner',
  },
  {
    row: 'rule 5: the owner’s child TaskRun bound to its parent’s claim is a link, not a user claim (scenario 10)',
    target: claim('pvc-1', owner),
    runs: [owner, ownerChild],
    action: 'delete',
    reason: 'runs-finished',
    message: `all 2 linked runs finished; last at ${DAY_AGO}`,
    references: [
      { kind: 'PipelineRun', name: 'pr-1', state: 'succeeded', finishedAt: DAY_AGO, via: 'ownerReference' },
      { kind: 'TaskRun', name: 'pr-1-fetch', state: 'succeeded', finishedAt: DAY_AGO, via: 'workspace' },
    ],
  },
  {
    row: 'rule 5: the owner binding its own claim by name is no user claim',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1', { workspaces: { claims: ['pvc-1'], secrets: [] } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 5: a child TaskRun of a gone owner (same parent uid) is still the owner’s',
    target: claim('pvc-1', goneOwner),
    runs: [childLrun('pr-gone-fetch', lrun('pr-gone'), { workspaces: { claims: ['pvc-1'], secrets: [] } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, TaskRun pr-gone-fetch (by a workspace), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 5: a TaskRun bound to an affinity-assistant claim whose parent the label names is the owner’s',
    target: affinityClaim('pvc-aa', 'pr-1'),
    runs: [owner, childLrun('pr-1-build', owner, { workspaces: { claims: ['pvc-aa'], secrets: [] } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `all 2 linked runs finished; last at ${DAY_AGO}`,
  },
  {
    row: 'rule 5 is for claims: a Secret bound by another run’s secret workspace is linked, not claimed',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [owner, lrun('pr-2', { workspaces: { claims: [], secrets: ['pac-gitauth-abcd'] } })],
    action: 'delete',
    reason: 'runs-finished',
    message: `all 2 linked runs finished; last at ${DAY_AGO}`,
  },
  // ---- 6: a linked run is active
  {
    row: 'rule 6: its owner is running',
    target: claim('pvc-1', activeLrun('pr-1')),
    runs: [activeLrun('pr-1')],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (running)',
  },
  {
    row: 'rule 6: its owner is pending (scenario 4)',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1', { state: 'pending' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (pending)',
  },
  {
    row: 'rule 6: its owner is a finished TaskRun whose PipelineRun runs (scenario 6)',
    target: claim('pvc-1', { kind: 'TaskRun', name: 'tr-1', uid: 'uid-tr-1' }),
    runs: [activeLrun('pr-1'), childLrun('tr-1', activeLrun('pr-1'))],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active TaskRun tr-1 (running)',
  },
  {
    row: 'rule 6: an affinity-assistant claim whose PipelineRun still runs (scenario 12)',
    target: affinityClaim('pvc-aa', 'pr-1'),
    runs: [activeLrun('pr-1')],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'made for active PipelineRun pr-1 (running)',
  },
  {
    row: 'rule 6: an affinity-assistant StatefulSet whose owner runs (scenario 14)',
    target: affinityStatefulSet('affinity-assistant-0123456789', activeLrun('pr-1')),
    runs: [activeLrun('pr-1')],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (running)',
  },
  {
    row: 'rule 6: a Pipelines-as-Code Secret whose owner is pending (scenario 16)',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [lrun('pr-1', { state: 'pending' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (pending)',
  },
  {
    row: 'rule 6: an ownerless Secret named by a running run’s git-auth annotation (scenario 17)',
    target: pacSecret('pac-gitauth-abcd'),
    runs: [activeLrun('pr-1', { gitAuthSecret: 'pac-gitauth-abcd' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'named as the git-auth Secret of active PipelineRun pr-1 (running)',
  },
  {
    row: 'rule 6: a Secret bound in a running TaskRun’s secret workspace',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [owner, activeLrun('tr-1', { kind: 'TaskRun', workspaces: { claims: [], secrets: ['pac-gitauth-abcd'] } })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'bound in a workspace of active TaskRun tr-1 (running)',
  },
  {
    row: 'rule 6: the owner’s child TaskRun still runs: every active run is counted',
    target: claim('pvc-1', owner),
    runs: [activeLrun('pr-1'), childLrun('pr-1-a', activeLrun('pr-1'), { workspaces: { claims: ['pvc-1'], secrets: [] } })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (running) and 1 more active run',
  },
  {
    row: 'rule 6 before 7: a running owner and a running Pod: the run is named',
    target: claim('pvc-1', activeLrun('pr-1')),
    runs: [activeLrun('pr-1')],
    pods: [pod('pr-1-build-pod', { claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (running)',
    heldBy: [{ kind: 'Pod', name: 'pr-1-build-pod', phase: 'Running' }],
  },
  // ---- 7: in use by a Pod
  {
    row: 'rule 7: a Running Pod mounts the claim (scenario 7)',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [pod('user', { claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod user (Running)',
    heldBy: [{ kind: 'Pod', name: 'user', phase: 'Running' }],
  },
  {
    row: 'rule 7: an unscheduled Pending Pod holds it too (scenario 7)',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [pod('user', { phase: 'Pending', claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod user (Pending)',
    heldBy: [{ kind: 'Pod', name: 'user', phase: 'Pending' }],
  },
  {
    row: 'rule 7: a Pod with no phase counts as active (scenario 7)',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [{ namespace: 'ci', name: 'fresh', claims: ['pvc-1'], secrets: [] }],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod fresh (no phase yet)',
    heldBy: [{ kind: 'Pod', name: 'fresh' }],
  },
  {
    row: 'rule 7: a phase of Unknown counts as active; two Pods: the first by name is named',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [pod('b', { phase: 'Unknown', claims: ['pvc-1'] }), pod('a', { claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod a (Running) and 1 more active Pod',
    heldBy: [
      { kind: 'Pod', name: 'a', phase: 'Running' },
      { kind: 'Pod', name: 'b', phase: 'Unknown' },
    ],
  },
  {
    row: 'rule 7: no Pod listed uses it, but its Unused condition is False (KEP-5541): kept, the condition named',
    target: claim('pvc-1', owner, { leftover: { marker: 'owned', inUseCondition: { reason: 'PodUsingPVC', since: '2026-11-29T10:00:00Z' } } }),
    runs: [owner],
    pods: [pod('done', { phase: 'Succeeded', claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by a Pod, by its Unused=False condition (PodUsingPVC) since 2026-11-29T10:00:00Z',
  },
  {
    row: 'rule 7: an Unused=False condition with no reason and no time says only what it says',
    target: claim('pvc-1', goneOwner, { leftover: { marker: 'owned', inUseCondition: {} } }),
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by a Pod, by its Unused=False condition',
  },
  {
    row: 'rule 7: a Pod and the condition: the Pod is named first, then the condition',
    target: claim('pvc-1', owner, { leftover: { marker: 'owned', inUseCondition: { reason: 'PodUsingPVC', since: '2026-11-29T10:00:00Z' } } }),
    runs: [owner],
    pods: [pod('user', { phase: 'Pending', claims: ['pvc-1'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod user (Pending), and by its Unused=False condition (PodUsingPVC) since 2026-11-29T10:00:00Z',
    heldBy: [{ kind: 'Pod', name: 'user', phase: 'Pending' }],
  },
  {
    row: 'rule 6 before 7: an active owner and the condition',
    target: claim('pvc-1', activeLrun('pr-1'), { leftover: { marker: 'owned', inUseCondition: { reason: 'PodUsingPVC' } } }),
    runs: [activeLrun('pr-1')],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'owned by active PipelineRun pr-1 (running)',
  },
  {
    row: 'rule 7 before 8: the condition and a StatefulSet',
    target: claim('pvc-1', goneOwner, { leftover: { marker: 'owned', inUseCondition: { reason: 'PodUsingPVC' } } }),
    statefulSets: [statefulSet('db', ['pvc-1'])],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by a Pod, by its Unused=False condition (PodUsingPVC)',
    heldBy: [{ kind: 'StatefulSet', name: 'db' }],
  },
  {
    row: 'rule 7: Succeeded and Failed Pods do not hold it (scenario 7)',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [pod('done', { phase: 'Succeeded', claims: ['pvc-1'] }), pod('broken', { phase: 'Failed', claims: ['pvc-1'] })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 7: a Pod of another namespace, or one using another claim or only a Secret of that name, does not hold it',
    target: claim('pvc-1', owner),
    runs: [owner],
    pods: [pod('elsewhere', { namespace: 'other', claims: ['pvc-1'] }), pod('next', { claims: ['pvc-2'] }), pod('secretive', { secrets: ['pvc-1'] })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 7: a Running Pod reads the Pipelines-as-Code Secret through envFrom (scenario 19)',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [owner],
    pods: [pod('pr-1-clone-pod', { secrets: ['pac-gitauth-abcd'] })],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod pr-1-clone-pod (Running)',
    heldBy: [{ kind: 'Pod', name: 'pr-1-clone-pod', phase: 'Running' }],
  },
  {
    row: 'rules 7 and 8 skip affinity-assistant StatefulSets: the Pod using its claim does not keep it',
    target: affinityStatefulSet('affinity-assistant-0123456789', owner),
    runs: [owner],
    pods: [pod('affinity-assistant-0123456789-0', { claims: ['pvc-0123abcd-affinity-assistant-0123456789-0'] })],
    statefulSets: [statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  // ---- 8: in use by a StatefulSet
  {
    row: 'rule 8: an affinity-assistant claim whose StatefulSet still exists (scenario 13)',
    target: affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1'),
    runs: [owner],
    statefulSets: [statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'])],
    action: 'keep',
    reason: 'in-use-by-statefulset',
    message: 'named by StatefulSet affinity-assistant-0123456789',
    heldBy: [{ kind: 'StatefulSet', name: 'affinity-assistant-0123456789' }],
  },
  {
    row: 'rule 8: any StatefulSet whose template mounts the claim',
    target: claim('pvc-1', goneOwner),
    statefulSets: [statefulSet('db', ['pvc-1']), statefulSet('cache', ['pvc-1'])],
    action: 'keep',
    reason: 'in-use-by-statefulset',
    message: 'named by StatefulSet cache and 1 more StatefulSet',
    heldBy: [
      { kind: 'StatefulSet', name: 'cache' },
      { kind: 'StatefulSet', name: 'db' },
    ],
  },
  {
    row: 'rule 7 before 8: a Pod and a StatefulSet',
    target: claim('pvc-1', goneOwner),
    pods: [pod('db-0', { claims: ['pvc-1'] })],
    statefulSets: [statefulSet('db', ['pvc-1'])],
    action: 'keep',
    reason: 'in-use-by-pod',
    message: 'in use by Pod db-0 (Running)',
    heldBy: [
      { kind: 'Pod', name: 'db-0', phase: 'Running' },
      { kind: 'StatefulSet', name: 'db' },
    ],
  },
  {
    row: 'rule 8 is for claims: a StatefulSet in the namespace holds no Secret',
    target: pacSecret('pac-gitauth-abcd'),
    statefulSets: [statefulSet('db', ['pac-gitauth-abcd'])],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
  {
    row: 'rule 8: a StatefulSet this pass keeps (retained) still holds its claim',
    target: affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1'),
    others: [affinityStatefulSet('affinity-assistant-0123456789', owner, { labels: { [`${KEY}/retain`]: 'true' } })],
    runs: [owner],
    statefulSets: [statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'])],
    action: 'keep',
    reason: 'in-use-by-statefulset',
    message: 'named by StatefulSet affinity-assistant-0123456789',
    heldBy: [{ kind: 'StatefulSet', name: 'affinity-assistant-0123456789' }],
  },
  {
    row: 'rule 8: a StatefulSet this pass deletes first no longer holds its claim: both go (scenario 13, both collectors on)',
    target: affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1'),
    others: [affinityStatefulSet('affinity-assistant-0123456789', owner)],
    runs: [owner],
    statefulSets: [statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'])],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (by its tekton.dev/pipelineRun label), finished at ${DAY_AGO}`,
    warnings: ['StatefulSet affinity-assistant-0123456789 names it and is deleted before it in this pass'],
  },
  // ---- 9-11: time
  {
    row: 'rule 9: owner gone, but younger than --min-age 1h (scenario 5)',
    target: claim('pvc-1', goneOwner, { createdAt: at(-20 * 60_000) }),
    action: 'keep',
    reason: 'too-young',
    message: 'created 20m ago; min age 1h',
  },
  {
    row: 'rule 9 after 8: a young claim a StatefulSet names is in use',
    target: claim('pvc-1', goneOwner, { createdAt: at(-20 * 60_000) }),
    statefulSets: [statefulSet('db', ['pvc-1'])],
    action: 'keep',
    reason: 'in-use-by-statefulset',
    message: 'named by StatefulSet db',
    heldBy: [{ kind: 'StatefulSet', name: 'db' }],
  },
  {
    row: 'rule 10: retain-until in the future',
    target: pacSecret('pac-gitauth-abcd', undefined, { annotations: { [`${KEY}/retain-until`]: '2026-12-31' } }),
    action: 'keep',
    reason: 'retain-until',
    message: `retained until 2026-12-31T00:00:00Z by annotation ${KEY}/retain-until`,
  },
  {
    row: 'rule 11: retain-for counts from its owner’s completionTime (scenario 15)',
    target: claim('pvc-1', owner, { labels: { [`${KEY}/retain-for`]: '7d' } }),
    runs: [owner],
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 7d (label ${KEY}/retain-for) lasts until 2026-12-05T12:00:00Z, counted from the last run finishing at ${DAY_AGO}`,
  },
  {
    row: 'rule 11: from the newest completion among its linked runs',
    target: claim('pvc-1', owner),
    runs: [lrun('pr-1', { finishedAt: TWO_DAYS_AGO }), childLrun('pr-1-fetch', owner, { workspaces: { claims: ['pvc-1'], secrets: [] }, finishedAt: at(-HOUR) })],
    policy: { retainFor: { kind: 'duration', ms: 2 * HOUR, text: '2h' } },
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 2h (the global retain-for) lasts until 2026-11-29T13:00:00Z, counted from the last run finishing at ${at(-HOUR)}`,
  },
  {
    row: 'rule 11: a gone owner finished nobody knows when: from its creation',
    target: claim('pvc-1', goneOwner, { labels: { [`${KEY}/retain-for`]: '7d' } }),
    action: 'keep',
    reason: 'retain-for',
    message: `retain-for 7d (label ${KEY}/retain-for) lasts until 2026-12-03T12:00:00Z, counted from its creation at 2026-11-26T12:00:00Z`,
  },
  {
    row: 'rule 11: elapsed since its creation: the gone owner decides',
    target: claim('pvc-1', goneOwner, { labels: { [`${KEY}/retain-for`]: '2d' } }),
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
  },
  // ---- 12: every linked run finished
  {
    row: 'rule 12: a claim owned by a finished PipelineRun, no Pod (scenario 2)',
    target: claim('pvc-1', owner),
    runs: [owner],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
    references: [{ kind: 'PipelineRun', name: 'pr-1', state: 'succeeded', finishedAt: DAY_AGO, via: 'ownerReference' }],
  },
  {
    row: 'rule 12: a Pipelines-as-Code Secret whose owner finished (scenario 16)',
    target: pacSecret('pac-gitauth-abcd', owner),
    runs: [lrun('pr-1', { state: 'failed' })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (its owner), finished at ${DAY_AGO}`,
  },
  {
    row: 'rule 12: an ownerless Secret named by a finished run’s annotation (scenario 17)',
    target: pacSecret('pac-gitauth-abcd'),
    runs: [lrun('pr-1', { state: 'cancelled', gitAuthSecret: 'pac-gitauth-abcd' })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-1 (by its git-auth annotation), finished at ${DAY_AGO}`,
    references: [{ kind: 'PipelineRun', name: 'pr-1', state: 'cancelled', finishedAt: DAY_AGO, via: 'annotation' }],
  },
  {
    row: 'rule 12: the owner is gone, but a run of the same name (the StatefulSet’s label) exists and finished',
    target: affinityStatefulSet('affinity-assistant-0123456789', goneOwner, { leftover: { marker: 'statefulset', pipelineRunLabel: 'pr-gone' } }),
    runs: [lrun('pr-gone', { uid: 'uid-pr-gone-recreated' })],
    action: 'delete',
    reason: 'runs-finished',
    message: `its only linked run, PipelineRun pr-gone (by its tekton.dev/pipelineRun label), finished at ${DAY_AGO}`,
    references: [
      { kind: 'PipelineRun', name: 'pr-gone', state: 'succeeded', finishedAt: DAY_AGO, via: 'label' },
      { kind: 'PipelineRun', name: 'pr-gone', state: 'gone', via: 'ownerReference' },
    ],
  },
  {
    row: 'rule 12 while the PipelineRun of the StatefulSet’s label runs again: kept',
    target: affinityStatefulSet('affinity-assistant-0123456789', goneOwner, { leftover: { marker: 'statefulset', pipelineRunLabel: 'pr-gone' } }),
    runs: [activeLrun('pr-gone', { uid: 'uid-pr-gone-recreated' })],
    action: 'keep',
    reason: 'referenced-by-active-run',
    message: 'made for active PipelineRun pr-gone (running)',
  },
  // ---- 13: owner gone
  {
    row: 'rule 13: its owner’s uid is no listed run (scenario 5)',
    target: claim('pvc-1', goneOwner),
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
    references: [{ kind: 'PipelineRun', name: 'pr-gone', state: 'gone', via: 'ownerReference' }],
  },
  {
    row: 'rule 13: a run of the owner’s name with another uid is another run (scenario 5)',
    target: claim('pvc-1', goneOwner),
    runs: [activeLrun('pr-gone', { uid: 'uid-pr-gone-recreated' })],
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
  },
  {
    row: 'rule 13: an owner of the same uid in another namespace is not its owner (ownerReferences never cross namespaces)',
    target: claim('pvc-1', owner),
    runs: [activeLrun('pr-1', { namespace: 'other' })],
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-1 is gone and no other run links it',
  },
  {
    row: 'rule 13: an affinity-assistant claim whose PipelineRun is gone (p#7618, scenario 12)',
    target: affinityClaim('pvc-aa', 'pr-gone'),
    runs: [lrun('pr-gone', { kind: 'TaskRun' })],
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
    references: [{ kind: 'PipelineRun', name: 'pr-gone', state: 'gone', via: 'label' }],
  },
  {
    row: 'rule 13: a StatefulSet whose owner and labelled PipelineRun are both gone: one gone owner shown',
    target: affinityStatefulSet('affinity-assistant-0123456789', goneOwner),
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
    references: [{ kind: 'PipelineRun', name: 'pr-gone', state: 'gone', via: 'ownerReference' }],
  },
  {
    row: 'rule 13: legacy names (<pr>-pvc, ws-prname) with a gone controller owner (scenario 26)',
    target: claim('build-pvc', { kind: 'PipelineRun', name: 'build', uid: 'uid-build' }),
    others: [claim('ws-build', { kind: 'PipelineRun', name: 'build', uid: 'uid-build' })],
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun build is gone and no other run links it',
  },
  {
    row: 'rule 13: a Pipelines-as-Code Secret whose owner is gone (scenario 16)',
    target: pacSecret('pac-gitauth-abcd', goneOwner),
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
  },
  {
    row: 'rule 13: an object being deleted is decided the same way',
    target: claim('pvc-1', goneOwner, { deletionTimestamp: at(-HOUR) }),
    action: 'delete',
    reason: 'owner-gone',
    message: 'its owner PipelineRun pr-gone is gone and no other run links it',
  },
  // ---- 14: unreferenced
  {
    row: 'rule 14: a Pipelines-as-Code Secret whose owner was never set, named by no run (scenario 17)',
    target: pacSecret('pac-gitauth-abcd'),
    runs: [lrun('pr-1', { gitAuthSecret: 'pac-gitauth-other' })],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
    references: [],
  },
  {
    row: 'rule 14: a TaskRun’s copy of the git-auth annotation links nothing (PipelineRuns carry it)',
    target: pacSecret('pac-gitauth-abcd'),
    runs: [activeLrun('tr-1', { kind: 'TaskRun', gitAuthSecret: 'pac-gitauth-abcd' })],
    action: 'delete',
    reason: 'unreferenced',
    message: 'no run links it',
  },
];

describe('decide: the leftovers’ table, first match wins', () => {
  for (const row of leftoverRows) {
    it(row.row, () => {
      const decision = decideOne(row.target, row);
      assert.equal(decision.reason, row.reason);
      assert.equal(decision.message, row.message);
      assert.equal(decision.action, row.action);
      if (row.references !== undefined) assert.deepEqual(decision.references, row.references);
      assert.deepEqual(decision.heldBy, row.heldBy);
      assert.deepEqual(decision.warnings, row.warnings ?? []);
    });
  }
});

// ---- Whatever the kind ----

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

describe('links', () => {
  it('ownerReference by kind and uid: the name in the reference is ignored', () => {
    const renamed = claim('pvc-1', { kind: 'PipelineRun', name: 'old-name', uid: owner.uid });
    assert.deepEqual(decideOne(renamed, { runs: [activeLrun('pr-1')] }).references, [{ kind: 'PipelineRun', name: 'pr-1', state: 'running', via: 'ownerReference' }]);
  });

  it('ownerReference by kind: a TaskRun of the owner’s uid is not its PipelineRun', () => {
    const decision = decideOne(claim('pvc-1', owner), { runs: [activeLrun('tr', { kind: 'TaskRun', uid: owner.uid })] });
    assert.equal(decision.reason, 'owner-gone');
  });

  it('a run found through two links is shown once, as the first link its collector lists', () => {
    const decision = decideOne(pacSecret('pac-gitauth-abcd', owner), { runs: [lrun('pr-1', { gitAuthSecret: 'pac-gitauth-abcd', workspaces: { claims: [], secrets: ['pac-gitauth-abcd'] } })] });
    assert.deepEqual(decision.references, [{ kind: 'PipelineRun', name: 'pr-1', state: 'succeeded', finishedAt: DAY_AGO, via: 'ownerReference' }]);
  });

  it('workspaces link claims to claims and Secrets to Secrets only', () => {
    const runs = [lrun('pr-1', { workspaces: { claims: ['shared'], secrets: ['pac-gitauth-abcd'] } })];
    assert.equal(decideOne(pacSecret('shared'), { runs }).reason, 'unreferenced');
    assert.equal(decideOne(claim('pac-gitauth-abcd', goneOwner), { runs }).reason, 'owner-gone');
  });

  it('the label links only an affinity-assistant object, by name, to a PipelineRun of its namespace', () => {
    assert.equal(decideOne(affinityClaim('pvc-aa', 'pr-1'), { runs: [activeLrun('pr-1', { namespace: 'other' })] }).reason, 'owner-gone');
    // An owned claim carrying the label (a template label) is not linked through it.
    const owned = claim('pvc-1', goneOwner, { leftover: { marker: 'owned' } });
    assert.equal(decideOne(owned, { runs: [activeLrun('pr-1')] }).reason, 'owner-gone');
  });

  it('the decision shows every linked run with its effective state and how it links, sorted by kind then name', () => {
    const decision = decideOne(claim('pvc-1', owner), { runs: [activeLrun('pr-1'), childLrun('pr-1-fetch', activeLrun('pr-1'), { workspaces: { claims: ['pvc-1'], secrets: [] } })] });
    assert.deepEqual(decision.references, [
      { kind: 'PipelineRun', name: 'pr-1', state: 'running', via: 'ownerReference' },
      { kind: 'TaskRun', name: 'pr-1-fetch', state: 'running', finishedAt: DAY_AGO, via: 'workspace' },
    ]);
  });
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
      { kind: 'TaskRun', name: 'a-tr', state: 'running', finishedAt: DAY_AGO, via: 'spec' },
    ];
    assert.deepEqual(decision?.references, expected);
  });

  it('a run below a child PipelineRun counts running while any PipelineRun above it runs, at any depth; a loop of owners ends', () => {
    // release (running) -> release-build (succeeded) -> deep (succeeded) -> deep-compile (a TaskRun, succeeded).
    const runs = [
      activeRun('release', []),
      run('release-build', [], { parentPipelineRun: { name: 'release', uid: 'uid-release' } }),
      run('deep', [], { parentPipelineRun: { name: 'release-build', uid: 'uid-release-build' } }),
      run('deep-compile', ['t'], { kind: 'TaskRun', parentPipelineRun: { name: 'deep', uid: 'uid-deep' } }),
      // Two finished PipelineRuns that own each other (never made by Tekton): finished.
      run('loop-a', ['t'], { parentPipelineRun: { name: 'loop-b', uid: 'uid-loop-b' } }),
      run('loop-b', [], { parentPipelineRun: { name: 'loop-a', uid: 'uid-loop-a' } }),
    ];
    const [decision] = decide({ targets: [target('t')], runs, namespaces: new Map() }, POLICY, NOW);
    assert.deepEqual(
      decision?.references.map((ref) => [ref.kind, ref.name, ref.state]),
      [
        ['PipelineRun', 'loop-a', 'succeeded'],
        ['TaskRun', 'deep-compile', 'running'],
      ],
    );
    assert.equal(decision?.action, 'keep');
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

  it('decisions are sorted by namespace, kind, then name', () => {
    const targets = [pacSecret('pac-gitauth-a'), claim('b', goneOwner), target('a'), claim('a', goneOwner, { namespace: 'alpha' }), affinityStatefulSet('affinity-assistant-1', goneOwner)];
    const decisions = decide({ targets, runs: [], namespaces: new Map() }, POLICY, NOW);
    assert.deepEqual(
      decisions.map((d) => `${d.target.namespace}/${d.target.kind}/${d.target.name}`),
      ['alpha/PersistentVolumeClaim/a', 'ci/PersistentVolumeClaim/b', 'ci/PipelineResource/a', 'ci/Secret/pac-gitauth-a', 'ci/StatefulSet/affinity-assistant-1'],
    );
  });

  it('decideWithFacts gives decide()’s decisions for leftovers too', () => {
    const view = viewOf([claim('pvc-1', owner), pacSecret('pac-gitauth-a'), affinityStatefulSet('affinity-assistant-1', owner)], { runs: [owner], pods: [pod('p', { claims: ['pvc-1'] })] });
    assert.deepEqual(decideWithFacts(view, POLICY, NOW).map((d) => d.decision), decide(view, POLICY, NOW));
  });

  it('a StatefulSet is released only by a delete decision of the same pass, whatever the order of the targets', () => {
    const sts = affinityStatefulSet('affinity-assistant-0123456789', owner);
    const aa = affinityClaim('pvc-0123abcd-affinity-assistant-0123456789-0', 'pr-1');
    const holders = [statefulSet('affinity-assistant-0123456789', ['pvc-0123abcd-affinity-assistant-0123456789-0'])];
    for (const targets of [[sts, aa], [aa, sts]]) {
      const decisions = decide({ targets, runs: [owner], namespaces: new Map(), statefulSets: holders }, POLICY, NOW);
      assert.deepEqual(decisions.map((d) => d.action), ['delete', 'delete']);
    }
    // The claim decided alone (the delete phase's re-check) is held while the StatefulSet is listed.
    assert.equal(decide({ targets: [aa], runs: [owner], namespaces: new Map(), statefulSets: holders }, POLICY, NOW)[0]?.reason, 'in-use-by-statefulset');
  });
});

describe('scenarios from raw objects', () => {
  const policy = { ...POLICY, minAgeMs: 0 };
  const pipelineRunObject = (name: string, status: unknown, more: Record<string, unknown> = {}): RunRecord =>
    toRunRecord(runObject({ ...more }, { status, metadata: { name, uid: `uid-${name}` } }), 'PipelineRun', { leftovers: true });

  it('scenario 4: an owner Unknown, PipelineRunPending, or False without completionTime keeps its claim', () => {
    const claimRecord = toClaimTarget(ownedClaimObject('pvc-1', ownerReference('PipelineRun', 'pr-1')));
    assert.ok(claimRecord !== null);
    const owners: [string, RunRecord][] = [
      ['Unknown', pipelineRunObject('pr-1', succeededStatus('Unknown', 'Running'))],
      ['PipelineRunPending', toRunRecord(runObject({ status: 'PipelineRunPending' }, { metadata: { name: 'pr-1', uid: 'uid-pr-1' } }), 'PipelineRun', { leftovers: true })],
      ['False without completionTime', pipelineRunObject('pr-1', succeededStatus('False', 'Failed'))],
    ];
    for (const [why, ownerRecord] of owners) {
      const [decision] = decide({ targets: [claimRecord], runs: [ownerRecord], namespaces: new Map() }, policy, NOW);
      assert.equal(decision?.reason, 'referenced-by-active-run', why);
    }
  });

  it('scenario 20: spec.workspaces "oops" keeps the namespace’s claims and Secrets, and its PipelineResources are decided as before', () => {
    const odd = toRunRecord(runObject({ workspaces: 'oops', resources: [{ name: 'src', resourceRef: { name: 'git-1' } }] }, { status: succeededStatus('True', 'Succeeded', DAY_AGO), metadata: { name: 'odd', uid: 'uid-odd' } }), 'PipelineRun', { leftovers: true });
    const claimRecord = toClaimTarget(ownedClaimObject('pvc-1', ownerReference('PipelineRun', 'odd')));
    const secretRecord = toPacSecretTarget(pacSecretObject());
    assert.ok(claimRecord !== null && secretRecord !== null);
    const targets = [target('git-1'), target('git-2'), claimRecord, secretRecord];
    const decisions = decide({ targets, runs: [odd], namespaces: new Map() }, policy, NOW);
    assert.deepEqual(
      decisions.map((d) => [d.target.kind, d.target.name, d.reason]),
      [
        ['PersistentVolumeClaim', 'pvc-1', 'unreadable-run'],
        ['PipelineResource', 'git-1', 'runs-finished'],
        ['PipelineResource', 'git-2', 'unreferenced'],
        ['Secret', 'pac-gitauth-abcdef', 'unreadable-run'],
      ],
    );
    // The PipelineResources' decisions are those of a pass without leftovers.
    const plain = decide({ targets: [target('git-1'), target('git-2')], runs: [toRunRecord(runObject({ workspaces: 'oops', resources: [{ name: 'src', resourceRef: { name: 'git-1' } }] }, { status: succeededStatus('True', 'Succeeded', DAY_AGO), metadata: { name: 'odd', uid: 'uid-odd' } }), 'PipelineRun')], namespaces: new Map() }, policy, NOW);
    assert.deepEqual(decisions.filter((d) => d.target.kind === 'PipelineResource'), plain);
  });

  it("a claim's Unused condition: False keeps it whatever the Pod list says; True, Unknown or none leave it to the Pod list", () => {
    const condition = (status: string | undefined): unknown => (status === undefined ? {} : { conditions: [{ type: 'Unused', status, reason: status === 'False' ? 'PodUsingPVC' : 'NoPodsUsingPVC', lastTransitionTime: DAY_AGO }] });
    const owned = lrun('pr-1');
    const cases: [string | undefined, PodRecord[], Reason][] = [
      ['False', [], 'in-use-by-pod'],
      ['True', [], 'runs-finished'],
      ['Unknown', [], 'runs-finished'],
      [undefined, [], 'runs-finished'],
      ['True', [pod('late', { claims: ['pvc-1'] })], 'in-use-by-pod'],
      [undefined, [pod('late', { claims: ['pvc-1'] })], 'in-use-by-pod'],
    ];
    for (const [status, pods, reason] of cases) {
      const claimRecord = toClaimTarget(ownedClaimObject('pvc-1', ownerReference('PipelineRun', 'pr-1'), { status: condition(status) as Record<string, unknown> }));
      assert.ok(claimRecord !== null);
      const [decision] = decide({ targets: [claimRecord], runs: [owned], namespaces: new Map(), pods, statefulSets: [] }, policy, NOW);
      assert.equal(decision?.reason, reason, `Unused=${status ?? '(none)'} with ${pods.length} Pods`);
    }
  });

  it('scenario 9: a claim a finished run binds by name is not reported when unmarked', () => {
    const userClaim = ownedClaimObject('data', undefined, { metadata: { ownerReferences: [] } });
    assert.equal(toClaimTarget(userClaim), null);
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

describe('explain: the rule by its kind’s table, retain on the owner run, collectable', () => {
  const input = (one: TargetRecord, runs: readonly RunRecord[], more: { pods?: readonly PodRecord[] } = {}) => ({
    target: one,
    runs,
    namespace: undefined,
    scope: { inScope: true as const },
    origins: { 'min-age': 'default', 'retain-for': 'default' },
    ...more,
  });

  it('numbers the rule by its kind’s table: 13 for a gone owner, 7 for a Pod holding a Secret, 9 for a PipelineResource’s runs-finished', () => {
    assert.equal(explain(input(claim('pvc-1', goneOwner), []), POLICY, NOW).rule, 13);
    assert.equal(explain(input(pacSecret('pac-gitauth-a'), [], { pods: [pod('p', { secrets: ['pac-gitauth-a'] })] }), POLICY, NOW).rule, 7);
    assert.equal(explain(input(target('git-1'), [run('r', ['git-1'])]), POLICY, NOW).rule, 9);
  });

  it('shows retain on the owner run among the settings, and when it is collectable', () => {
    const explanation = explain(input(claim('pvc-1', owner), [lrun('pr-1', { retain: retainOn({ [`${KEY}/retain`]: 'true' }) })]), POLICY, NOW);
    assert.deepEqual(explanation.retention[0], { setting: 'retain', source: `label ${KEY}/retain on PipelineRun pr-1`, value: 'true', expiresMs: 'never' });
    assert.equal(explanation.collectable.when, 'never');
  });

  it('collectable: owner-gone now; in use by a Pod or a StatefulSet, or user-claimed, until someone changes it', () => {
    const ends = { 'min-age': 0 };
    assert.deepEqual(collectableAt('owner-gone', ends), { when: 'now' });
    assert.deepEqual(collectableAt('in-use-by-pod', ends), { when: 'never', until: 'every Pod that uses it has finished (Succeeded or Failed) or is deleted' });
    assert.deepEqual(collectableAt('in-use-by-statefulset', ends), { when: 'never', until: 'the StatefulSet that names it is deleted' });
    assert.deepEqual(collectableAt('user-claimed', ends), { when: 'never', until: 'no run but its owner binds it by name in a workspace' });
  });
});

describe('the collectors, as data', () => {
  it('one collector per kind, in delete order: a StatefulSet before the claims it names, runs last', () => {
    const kinds: TargetKindName[] = ['PipelineResource', 'StatefulSet', 'Secret', 'PersistentVolumeClaim', 'ResolutionRequest', 'PipelineRun', 'TaskRun'];
    assert.deepEqual(COLLECTOR_NAMES.map((name) => COLLECTORS[name].kind), kinds);
    for (const kind of kinds) assert.equal(collectorOf(kind).kind, kind);
    assert.ok(COLLECTOR_NAMES.indexOf('affinity-assistants') < COLLECTOR_NAMES.indexOf('workspace-pvcs'));
  });

  it('the holders each collector reads are those its rules read', () => {
    assert.deepEqual(COLLECTORS['workspace-pvcs'].reads, { pods: true, statefulSets: true });
    assert.deepEqual(COLLECTORS['pac-secrets'].reads, { pods: true, statefulSets: false });
    assert.deepEqual(COLLECTORS['affinity-assistants'].reads, { pods: false, statefulSets: false });
    assert.deepEqual(COLLECTORS.pipelineresources.reads, { pods: false, statefulSets: false });
    assert.deepEqual(COLLECTORS['resolution-requests'].reads, { pods: false, statefulSets: false });
  });

  it('the PipelineResources’ table is the leftovers’ without the four new rows, in the same order; ALL_REASONS holds every code once', () => {
    assert.deepEqual(
      LEFTOVER_REASONS.filter((reason) => (REASONS as readonly string[]).includes(reason)),
      [...REASONS],
    );
    assert.deepEqual(LEFTOVER_REASONS.filter((reason) => !REASONS.includes(reason)), ['user-claimed', 'in-use-by-pod', 'in-use-by-statefulset', 'owner-gone']);
    assert.equal(new Set(ALL_REASONS).size, 23);
    assert.deepEqual(ALL_REASONS.filter((reason) => !LEFTOVER_REASONS.includes(reason) && !RUN_REASONS.includes(reason)), ['resolution-stored']);
    // Each table's order is ALL_REASONS' order.
    for (const table of [REASONS, LEFTOVER_REASONS, RESOLUTION_REASONS, RUN_REASONS]) assert.deepEqual(ALL_REASONS.filter((reason) => table.includes(reason)), [...table]);
  });

  it('the ResolutionRequests’ table is the leftovers’ without the holders’ rows, and resolution-stored before runs-finished', () => {
    assert.deepEqual(
      RESOLUTION_REASONS.filter((reason) => reason !== 'resolution-stored'),
      LEFTOVER_REASONS.filter((reason) => !['user-claimed', 'in-use-by-pod', 'in-use-by-statefulset'].includes(reason)),
    );
    assert.equal(RESOLUTION_REASONS.indexOf('resolution-stored') + 1, RESOLUTION_REASONS.indexOf('runs-finished'));
    assert.deepEqual(
      COLLECTORS['resolution-requests'].rules.map((rule) => rule.name),
      ['retained', 'namespaceRetained', 'retentionInvalid', 'unreadableRun', 'referencedByActiveRun', 'tooYoung', 'retainUntil', 'retainFor', 'resolutionStored', 'runsFinished', 'ownerGone'],
    );
  });
});

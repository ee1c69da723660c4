/**
 * The leftovers' decision table (docs/spec.md, "Leftovers"): every rule, the links between runs,
 * Pods, StatefulSets and leftovers, and the acceptance scenarios that are pure decisions, as
 * core-level cases on plain records.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectableAt } from '../../src/core/collectable.js';
import { COLLECTOR_NAMES, COLLECTORS, collectorOf } from '../../src/core/collectors.js';
import { decide, decideWithFacts } from '../../src/core/decide.js';
import { explain } from '../../src/core/explain.js';
import { toClaimTarget, toPacSecretTarget } from '../../src/core/markers.js';
import { toRunRecord } from '../../src/core/runs.js';
import {
  ALL_REASONS,
  LEFTOVER_REASONS,
  REASONS,
  RESOLUTION_REASONS,
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
import { DAY, HOUR, NOW, POLICY, at, run, runObject, succeededStatus, target } from '../fixtures/unit/records.js';

const KEY = 'tekton-resource-gc.io';
const DAY_AGO = at(-DAY);
const TWO_DAYS_AGO = at(-2 * DAY);

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

interface Row extends View {
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

// Runs the rows use. A finished owner and its child; other runs; an owner that is gone.
const owner = lrun('pr-1');
const ownerChild = childLrun('pr-1-fetch', owner, { workspaces: { claims: ['pvc-1'], secrets: [] } });
const other = lrun('pr-2', { workspaces: { claims: ['pvc-1'], secrets: [] } });
const goneOwner = { kind: 'PipelineRun' as const, name: 'pr-gone', uid: 'uid-pr-gone' };
const retainOn = (labels: Record<string, string>, annotations: Record<string, string> = {}): RunRecord['retain'] => ({ labels, annotations });

const rows: readonly Row[] = [
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
  for (const row of rows) {
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

  it('scenario 9: a claim a finished run binds by name is not reported when unmarked', () => {
    const userClaim = ownedClaimObject('data', undefined, { metadata: { ownerReferences: [] } });
    assert.equal(toClaimTarget(userClaim), null);
  });
});

describe('the pass', () => {
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

describe('explain for leftovers', () => {
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
  it('one collector per kind, in delete order: a StatefulSet before the claims it names', () => {
    const kinds: TargetKindName[] = ['PipelineResource', 'StatefulSet', 'Secret', 'PersistentVolumeClaim', 'ResolutionRequest'];
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
    assert.equal(new Set(ALL_REASONS).size, 15);
    assert.deepEqual(ALL_REASONS.filter((reason) => !LEFTOVER_REASONS.includes(reason)), ['resolution-stored']);
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

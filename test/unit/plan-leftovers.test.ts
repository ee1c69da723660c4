/**
 * Plans with leftovers (plan.ts): entries carry their kind, a PVC and a Secret of one name are
 * two entries, the collectors that decided a plan are in its settings, and a plan written
 * before there were kinds (entries without one) still reads, as PipelineResources, with its
 * digest intact.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { decide } from '../../src/core/decide.js';
import type { ClusterView } from '../../src/core/types.js';
import { PlanError, buildPlan, canonicalJson, parsePlan, planPolicy, planVerdict, renderPlan, restrictToPlan, type PlanSettings } from '../../src/plan.js';
import { claim, lrun, pacSecret } from '../fixtures/unit/leftovers.js';
import { HOUR, NOW, run, target } from '../fixtures/unit/records.js';

const SETTINGS: PlanSettings = { namespaces: ['ci'], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: 0, collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'] };
const PR = lrun('pr-1');
/** A PipelineResource, a claim and a Secret, all named `build-cache`. */
const VIEW: ClusterView = {
  targets: [target('build-cache'), claim('build-cache', PR, { uid: 'uid-claim' }), pacSecret('build-cache', PR, { uid: 'uid-secret' })],
  runs: [run('old', ['build-cache'], { workspaces: { claims: [], secrets: [] }, leftoverProblems: [] }), PR],
  namespaces: new Map(),
  pods: [],
  statefulSets: [],
};
const PLAN = buildPlan({ decisions: decide(VIEW, planPolicy(SETTINGS), NOW), settings: SETTINGS, cluster: { server: 'https://127.0.0.1:6443' }, createdAt: NOW });

describe('plans of several kinds', () => {
  it('lists each kind with its name, sorted by namespace, kind and name, and the collectors in the settings', () => {
    assert.deepEqual(
      PLAN.entries.map((entry) => `${entry.kind} ${entry.name} ${entry.reason}`),
      ['PersistentVolumeClaim build-cache runs-finished', 'PipelineResource build-cache runs-finished', 'Secret build-cache runs-finished'],
    );
    assert.deepEqual(parsePlan(renderPlan(PLAN), 'plan.json'), PLAN);
  });

  it('restricts a pass to the planned object of each kind: one of the three changed since is changed, the others deletable', () => {
    const now: ClusterView = { ...VIEW, targets: [target('build-cache'), claim('build-cache', PR, { uid: 'uid-claim', resourceVersion: '9' }), pacSecret('build-cache', PR, { uid: 'uid-secret' })] };
    const planned = restrictToPlan(PLAN, decide(now, planPolicy(SETTINGS), NOW));
    assert.deepEqual([...planned.deletable].sort(), ['uid-build-cache', 'uid-secret']);
    assert.deepEqual([...planned.results], [['uid-claim', 'changed']]);
    assert.deepEqual(planned.unlisted, []);
  });

  it('says whether explain\'s object is in the plan by its kind too', () => {
    const secret = PLAN.entries.find((entry) => entry.kind === 'Secret');
    assert.ok(secret !== undefined);
    assert.match(planVerdict(PLAN, { ...secret }, { namespace: 'ci', name: 'build-cache', kind: 'Secret' }), /^in the plan sha256:.* \(runs-finished, uid uid-secret, .*unchanged since/);
    const onlyClaims = { ...PLAN, entries: PLAN.entries.filter((entry) => entry.kind === 'PersistentVolumeClaim') };
    assert.match(planVerdict(onlyClaims, null, { namespace: 'ci', name: 'build-cache', kind: 'Secret' }), /^not in the plan/);
    // Without a kind: a PipelineResource, as explain NAMESPACE/NAME always named one.
    assert.match(planVerdict(onlyClaims, null, { namespace: 'ci', name: 'build-cache' }), /^not in the plan/);
  });
});

describe('a plan written before kinds', () => {
  /** What a plan file held before entries could be of other kinds: no collect, and here no kind either. */
  const old = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'GCPlan',
    createdAt: NOW.toISOString(),
    cluster: { server: 'https://127.0.0.1:6443' },
    settings: { namespaces: ['ci'], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: HOUR },
    entries: [{ namespace: 'ci', name: 'src-old', uid: 'uid-src-old', resourceVersion: '3', reason: 'unreferenced' }],
  };
  const withDigest = (body: object): string => JSON.stringify({ ...body, digest: `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}` });

  it('reads its entries as PipelineResources, its collectors as PipelineResources alone, and keeps its digest', () => {
    const plan = parsePlan(withDigest(old), 'old.json');
    assert.deepEqual(plan.entries.map((entry) => [entry.kind, entry.name]), [['PipelineResource', 'src-old']]);
    assert.equal(plan.settings.collect, undefined);
  });

  it('is still refused when edited after it was written', () => {
    const text = withDigest(old).replace('"src-old"', '"src-other"');
    assert.throws(() => parsePlan(text, 'old.json'), (error: unknown) => error instanceof PlanError && /was changed after it was written/.test(error.message));
  });

  it('refuses a kind no collector deletes, and a collector that does not exist', () => {
    const badKind = { ...old, entries: [{ ...old.entries[0], kind: 'Pod' }] };
    assert.throws(() => parsePlan(withDigest(badKind), 'bad.json'), /entries\[0\]\.kind should be one of PipelineResource, StatefulSet, Secret, PersistentVolumeClaim/);
    const badCollector = { ...old, settings: { ...old.settings, collect: ['pods'] } };
    assert.throws(() => parsePlan(withDigest(badCollector), 'bad.json'), /settings\.collect should be a list of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs/);
  });
});

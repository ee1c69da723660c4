/**
 * Properties of decide() over generated clusters, checked against oracles written here
 * from docs/spec.md rather than from the graph code, for every kind the generators make:
 * PipelineResources (the rules of "The decision", from records and from runs as the API
 * server returns them), and the leftovers ("Leftovers": claims, Pipelines-as-Code Secrets,
 * affinity-assistant StatefulSets), whose oracle scans every run, Pod and StatefulSet rather
 * than the graph's indexes. Seeded: set TRGC_FC_SEED to replay a failure (fast-check prints
 * the seed and path when a property fails).
 *
 * A check guarded by a condition proves nothing when the generator never meets the
 * condition: each property counts how often each of its branches was checked and fails
 * when one was checked fewer times than its minimum (the counts are printed as test
 * diagnostics).
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { actionFor, decide } from '../../src/core/decide.js';
import { runsNeededBy } from '../../src/core/needed.js';
import { isActive, toRunRecord } from '../../src/core/runs.js';
import type {
  ClusterView,
  Decision,
  LeftoverTarget,
  NamespaceRecord,
  OwnerRef,
  PodRecord,
  Policy,
  ReadProblem,
  RunKindName,
  RunRecord,
  RunState,
  StatefulSetRecord,
  TargetKindName,
  TargetRecord,
} from '../../src/core/types.js';
import { NOW } from '../fixtures/unit/records.js';

const SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261129);
const RUNS = { seed: SEED, numRuns: 300 };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const PREFIX = 'tekton-resource-gc.io';
const POLICY: Policy = { labelPrefix: PREFIX, minAgeMs: HOUR };
const NAMESPACES = ['a', 'b'] as const;
const TARGET_NAMES = ['t0', 't1', 't2', 't3', 't4'] as const;
const RUN_NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'] as const;

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;

const instant = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString();
const runUid = (kind: RunKindName, namespace: string, name: string): string => `uid-${kind}-${namespace}-${name}`;

/** `absent` most of the time (weight 4 to 1), so that many targets reach the later rules. */
function rarely<T, A>(arbitrary: fc.Arbitrary<T>, absent: A): fc.Arbitrary<T | A> {
  return fc.oneof({ arbitrary: fc.constant(absent), weight: 4 }, { arbitrary, weight: 1 });
}

/** Values a retention key may carry, valid and not, boundaries included. */
const retainText = rarely(fc.constantFrom('true', 'false', 'yes', ''), undefined);
const untilText = rarely(fc.constantFrom('2026-11-29T12:00:00Z', '2026-11-30', '2026-11-01', 'soon'), undefined);
const forText = rarely(fc.constantFrom('1h', '1d', '2d', 'P7D', 'forever', '2x'), undefined);

const keyValues = (retain: fc.Arbitrary<string | undefined>) => fc.record({ retain, 'retain-until': untilText, 'retain-for': forText });

function prefixed(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).flatMap(([key, value]) => (value === undefined ? [] : [[`${PREFIX}/${key}`, value]])),
  );
}

const runArb = fc.record({
  kind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  // '' (namespace unreadable) and null references are rare: each one keeps whole namespaces.
  namespace: fc.oneof({ arbitrary: fc.constantFrom('a', 'b'), weight: 60 }, { arbitrary: fc.constant(''), weight: 1 }),
  name: fc.constantFrom(...RUN_NAMES),
  references: fc.oneof({ arbitrary: fc.subarray([...TARGET_NAMES]), weight: 40 }, { arbitrary: fc.constant(null), weight: 1 }),
  state: fc.constantFrom<RunState>('pending', 'running', 'succeeded', 'failed', 'cancelled'),
  finishedAgo: fc.oneof(fc.constantFrom(0, DAY, 2 * DAY), fc.integer({ min: 0, max: 10 * DAY })),
  parent: fc.option(fc.constantFrom(...RUN_NAMES), { nil: undefined, freq: 2 }),
});

function toRun(generated: Generated<typeof runArb>): RunRecord {
  const finished = generated.state !== 'pending' && generated.state !== 'running';
  // A record with an unknown namespace always has unknown references (toRunRecord).
  const references = generated.namespace === '' ? null : generated.references;
  return {
    kind: generated.kind,
    namespace: generated.namespace,
    name: generated.name,
    uid: runUid(generated.kind, generated.namespace, generated.name),
    resourceVersion: '1',
    state: generated.state,
    ...(finished && { finishedAt: instant(-generated.finishedAgo) }),
    references,
    ...(generated.kind === 'TaskRun' &&
      generated.parent !== undefined && {
        parentPipelineRun: { name: generated.parent, uid: runUid('PipelineRun', generated.namespace, generated.parent) },
      }),
    problems: references === null ? [{ field: 'spec.resources', problem: 'expected an array, found a string' }] : [],
  };
}

/** A target whose label and annotation `retain` are each drawn from `retain`. */
const targetArbOf = (retain: fc.Arbitrary<string | undefined>) =>
  fc.record({
    namespace: fc.constantFrom(...NAMESPACES),
    name: fc.constantFrom(...TARGET_NAMES),
    createdOffset: fc.oneof(fc.constantFrom(-HOUR, -HOUR + 1, -20 * MINUTE, 0, 5 * MINUTE), fc.integer({ min: -5 * DAY, max: -HOUR })),
    labels: keyValues(retain),
    annotations: keyValues(retain),
    owner: rarely(fc.record({ kind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'), name: fc.constantFrom(...RUN_NAMES) }), undefined),
  });

const targetArb = targetArbOf(retainText);

function toTarget(generated: Generated<typeof targetArb>): TargetRecord {
  const owners: OwnerRef[] =
    generated.owner === undefined
      ? []
      : [{ ...generated.owner, uid: runUid(generated.owner.kind, generated.namespace, generated.owner.name), controller: false }];
  return {
    kind: 'PipelineResource',
    namespace: generated.namespace,
    name: generated.name,
    uid: `uid-${generated.namespace}-${generated.name}`,
    resourceVersion: '1',
    createdAt: instant(generated.createdOffset),
    labels: prefixed(generated.labels),
    annotations: prefixed(generated.annotations),
    ownerReferences: owners,
  };
}

const namespaceArb = fc.record({ a: retainText, b: retainText });

function toNamespaces(generated: Generated<typeof namespaceArb>): NamespaceRecord[] {
  return NAMESPACES.map((name) => ({ name, labels: prefixed({ retain: generated[name] }) }));
}

const clusterOf = (targets: typeof targetArb) =>
  fc
    .record({
      targets: fc.uniqueArray(targets, { selector: (t) => `${t.namespace}/${t.name}`, maxLength: 10 }),
      runs: fc.uniqueArray(runArb, { selector: (r) => `${r.kind}/${r.namespace}/${r.name}`, maxLength: 14 }),
      namespaces: namespaceArb,
    })
    .map((generated) => ({
      targets: generated.targets.map(toTarget),
      runs: generated.runs.map(toRun),
      namespaces: toNamespaces(generated.namespaces),
    }));

const clusterArb = clusterOf(targetArb);

/** Half the runs name nothing (as a PipelineRun's child TaskRuns do), so that many are passed over. */
const namingLessClusterArb = clusterArb.chain((cluster) =>
  fc.array(fc.boolean(), { minLength: cluster.runs.length, maxLength: cluster.runs.length }).map((nameless) => ({
    ...cluster,
    runs: cluster.runs.map((run, index) => (nameless[index] === true && run.references !== null ? { ...run, references: [] } : run)),
  })),
);

/** `retain` set on a target's label and annotation as often as not, so that every pairing of the two is met. */
const retainPairsClusterArb = clusterOf(targetArbOf(fc.constantFrom(undefined, 'true', 'false', 'yes', '')));

/**
 * The instant of the pass: mostly the fixtures' NOW, else anywhere from two days before it
 * (a clock behind the API server's) to a month after it, boundaries included.
 */
const clockArb = fc
  .oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.constantFrom(-HOUR, HOUR, DAY, 2 * DAY), weight: 1 }, { arbitrary: fc.integer({ min: -2 * DAY, max: 30 * DAY }), weight: 2 })
  .map((offset) => new Date(NOW.getTime() + offset));

function viewOf(cluster: { targets: TargetRecord[]; runs: RunRecord[]; namespaces: NamespaceRecord[] }): ClusterView {
  return { targets: cluster.targets, runs: cluster.runs, namespaces: new Map(cluster.namespaces.map((ns) => [ns.name, ns])) };
}

// Oracles, from docs/spec.md's words.

const isActiveState = (state: RunState): boolean => state === 'pending' || state === 'running';

function isEffectivelyActive(run: RunRecord, runs: readonly RunRecord[]): boolean {
  if (isActiveState(run.state)) return true;
  const parent = run.parentPipelineRun;
  return (
    parent !== undefined &&
    runs.some((p) => p.kind === 'PipelineRun' && p.uid === parent.uid && p.namespace === run.namespace && isActiveState(p.state))
  );
}

function names(run: RunRecord, target: TargetRecord): boolean {
  if (run.namespace !== target.namespace) return false;
  const bySpec = run.references?.includes(target.name) ?? false;
  return bySpec || target.ownerReferences.some((owner) => owner.kind === run.kind && owner.uid === run.uid);
}

/** docs/spec.md: `retain-until` and `retain-for` "are read from the label first, then from the annotation of the same key". */
function retainValue(target: TargetRecord, key: string): string | undefined {
  return target.labels[`${PREFIX}/${key}`] ?? target.annotations[`${PREFIX}/${key}`];
}

/**
 * docs/spec.md rule 1: "label or annotation `<prefix>/retain` is `true` (any value but
 * `false` also retains, with a warning)": either source is enough on its own.
 */
function isRetained(target: TargetRecord): boolean {
  return [target.labels, target.annotations].some((source) => {
    const value = source[`${PREFIX}/retain`];
    return value !== undefined && value !== 'false';
  });
}

const oracles: Record<string, (target: TargetRecord, view: ClusterView, now: Date) => boolean> = {
  'referenced by an active run': (target, view) => view.runs.some((run) => names(run, target) && isEffectivelyActive(run, view.runs)),
  retained: isRetained,
  'in a retained namespace': (target, view) => {
    const value = view.namespaces.get(target.namespace)?.labels[`${PREFIX}/retain`];
    return value !== undefined && value !== 'false';
  },
  'too young': (target, _view, now) => now.getTime() - Date.parse(target.createdAt) < POLICY.minAgeMs,
  'in a namespace with an unreadable run': (target, view) =>
    view.runs.some((run) => run.references === null && (run.namespace === target.namespace || run.namespace === '')),
  'retained until a future instant': (target, _view, now) => {
    const value = retainValue(target, 'retain-until');
    return value !== undefined && Date.parse(value) > now.getTime();
  },
  'carrying a retention value that cannot be parsed': (target) => retainValue(target, 'retain-for') === '2x' || retainValue(target, 'retain-until') === 'soon',
  'retained forever': (target) => retainValue(target, 'retain-for') === 'forever',
};

/**
 * How often each branch of a property's check was taken, over the runs of fc.assert. A
 * property replayed while shrinking counts again, but shrinking only follows a failure.
 */
class Branches {
  private readonly counts = new Map<string, number>();

  constructor(private readonly minimums: Readonly<Record<string, number>>) {
    for (const name of Object.keys(minimums)) this.counts.set(name, 0);
  }

  hit(name: string): void {
    assert.ok(this.counts.has(name), `no minimum for branch ${name}`);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Prints the counts and fails when a branch was checked fewer times than its minimum. */
  assertReached(t: TestContext): void {
    t.diagnostic(`branches checked: ${JSON.stringify(Object.fromEntries(this.counts))}`);
    for (const [name, minimum] of Object.entries(this.minimums)) {
      const count = this.counts.get(name) ?? 0;
      assert.ok(count >= minimum, `branch "${name}" checked ${count} times over ${RUNS.numRuns} runs, fewer than ${minimum}: the generator hardly reaches it`);
    }
  }
}

/**
 * Checked targets the oracle must have met over the 300 runs (about 1,500 generated targets),
 * each well under what the seeded generator gives (printed), but far from zero.
 */
const ORACLE_MINIMUMS: Readonly<Record<string, number>> = {
  'referenced by an active run': 100,
  retained: 100,
  'in a retained namespace': 100,
  'too young': 100,
  'in a namespace with an unreadable run': 50,
  'retained until a future instant': 50,
  'carrying a retention value that cannot be parsed': 50,
  'retained forever': 50,
};

/** Rule 1's cases, each of which must be generated: which source says what. */
function retainCase(target: TargetRecord): string {
  const say = (value: string | undefined): string => (value === undefined ? 'unset' : value === 'false' ? 'false' : 'retains');
  return `label ${say(target.labels[`${PREFIX}/retain`])}, annotation ${say(target.annotations[`${PREFIX}/retain`])}`;
}

describe('properties of decide over generated clusters', () => {
  for (const [what, holds] of Object.entries(oracles)) {
    it(`a target ${what} is never decided for deletion, whatever the clock says`, (t) => {
      const minimum = ORACLE_MINIMUMS[what];
      assert.ok(minimum !== undefined, `no minimum for oracle ${what}`);
      // The second branch shows that the generated clusters are not all kept for other reasons:
      // a decide() that kept everything would pass the first alone.
      const branches = new Branches({ 'oracle held: kept': minimum, 'oracle did not hold: deleted': 100 });
      fc.assert(
        fc.property(clusterArb, clockArb, (cluster, now) => {
          const view = viewOf(cluster);
          for (const decision of decide(view, POLICY, now)) {
            if (holds(decision.target, view, now)) {
              assert.equal(decision.action, 'keep', `${decision.target.namespace}/${decision.target.name}: ${decision.reason}`);
              branches.hit('oracle held: kept');
            } else if (decision.action === 'delete') {
              branches.hit('oracle did not hold: deleted');
            }
          }
        }),
        RUNS,
      );
      branches.assertReached(t);
    });
  }

  it('rule 1 comes first: the reason is `retained` exactly when the label or the annotation retains', (t) => {
    // Every pairing of the two sources, the ones where they disagree above all.
    const branches = new Branches({
      'label unset, annotation unset': 20,
      'label unset, annotation false': 20,
      'label unset, annotation retains': 20,
      'label false, annotation unset': 20,
      'label false, annotation false': 20,
      'label false, annotation retains': 20,
      'label retains, annotation unset': 20,
      'label retains, annotation false': 20,
      'label retains, annotation retains': 20,
    });
    fc.assert(
      fc.property(retainPairsClusterArb, clockArb, (cluster, now) => {
        for (const decision of decide(viewOf(cluster), POLICY, now)) {
          branches.hit(retainCase(decision.target));
          assert.equal(decision.reason === 'retained', isRetained(decision.target), `${decision.target.name} (${retainCase(decision.target)}): ${decision.reason}`);
        }
      }),
      RUNS,
    );
    branches.assertReached(t);
  });

  it('one decision per target, its action the one its reason implies', () => {
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const decisions = decide(viewOf(cluster), POLICY, NOW);
        assert.equal(decisions.length, cluster.targets.length);
        for (const decision of decisions) assert.equal(decision.action, actionFor(decision.reason));
      }),
      RUNS,
    );
  });

  it('the runs a listing passes over change no decision (runsNeededBy)', (t) => {
    // The second and third branches are the runs that would change decisions if passed over:
    // a TaskRun naming nothing that owns a target, and a child TaskRun naming a target while
    // its parent is active. The first shows the filter does pass runs over.
    const branches = new Branches({ 'run passed over': 300, 'TaskRun owning a target kept': 15, 'child TaskRun naming a target kept': 60 });
    fc.assert(
      fc.property(namingLessClusterArb, clockArb, (cluster, now) => {
        const view = viewOf(cluster);
        const needed = runsNeededBy(view.targets);
        const owners = new Set(view.targets.flatMap((target) => target.ownerReferences.map((owner) => owner.uid)));
        for (const run of view.runs) {
          if (!needed(run)) branches.hit('run passed over');
          else if (run.kind === 'TaskRun' && run.references?.length === 0 && owners.has(run.uid)) branches.hit('TaskRun owning a target kept');
          else if (run.parentPipelineRun !== undefined && (run.references?.length ?? 0) > 0) branches.hit('child TaskRun naming a target kept');
        }
        assert.deepEqual(decide({ ...view, runs: view.runs.filter(needed) }, POLICY, now), decide(view, POLICY, now));
      }),
      RUNS,
    );
    branches.assertReached(t);
  });

  it('the decisions do not depend on the order of the lists', () => {
    const shuffled = clusterArb.chain((cluster) =>
      fc.record({
        cluster: fc.constant(cluster),
        targets: fc.shuffledSubarray(cluster.targets, { minLength: cluster.targets.length }),
        runs: fc.shuffledSubarray(cluster.runs, { minLength: cluster.runs.length }),
        namespaces: fc.shuffledSubarray(cluster.namespaces, { minLength: cluster.namespaces.length }),
      }),
    );
    fc.assert(
      fc.property(shuffled, ({ cluster, ...reordered }) => {
        assert.deepEqual(decide(viewOf(reordered), POLICY, NOW), decide(viewOf(cluster), POLICY, NOW));
      }),
      RUNS,
    );
  });
});

// Runs as the API server returns them, in every shape a Tekton version writes, read by
// toRunRecord: the properties above hold from the raw objects too.

type RawState = 'no-status' | 'pending' | 'unknown' | 'false-retrying' | 'succeeded' | 'failed' | 'cancelled';
type Shape = 'pr-spec' | 'pr-annotation' | 'tr-spec' | 'tr-legacy' | 'tr-annotation';
type Damage = 'none' | 'resources-string' | 'name-number' | 'annotation-not-json';

const FINISHED_RAW: readonly RawState[] = ['succeeded', 'failed', 'cancelled'];

const rawRunArb = fc.record({
  shape: fc.constantFrom<Shape>('pr-spec', 'pr-annotation', 'tr-spec', 'tr-legacy', 'tr-annotation'),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom(...RUN_NAMES),
  refs: fc.subarray([...TARGET_NAMES]),
  state: fc.constantFrom<RawState>('no-status', 'pending', 'unknown', 'false-retrying', 'succeeded', 'failed', 'cancelled'),
  damage: fc.oneof({ arbitrary: fc.constant<Damage>('none'), weight: 12 }, { arbitrary: fc.constantFrom<Damage>('resources-string', 'name-number', 'annotation-not-json'), weight: 1 }),
});

type RawRun = Generated<typeof rawRunArb>;

const kindOf = (shape: Shape): RunKindName => (shape.startsWith('pr') ? 'PipelineRun' : 'TaskRun');

function rawStatus(state: RawState): unknown {
  const condition = (status: string, reason: string): unknown => ({ type: 'Succeeded', status, reason });
  const completionTime = instant(-DAY);
  switch (state) {
    case 'no-status':
    case 'pending':
      return undefined;
    case 'unknown':
      return { conditions: [condition('Unknown', 'Running')] };
    case 'false-retrying':
      return { conditions: [condition('False', 'Failed')] };
    case 'succeeded':
      return { completionTime, conditions: [condition('True', 'Succeeded')] };
    case 'failed':
      return { completionTime, conditions: [condition('False', 'Failed')] };
    case 'cancelled':
      return { completionTime, conditions: [condition('False', 'Cancelled')] };
  }
}

/** The object a run of this shape is stored as; `damage` breaks where it names targets. */
function rawObject(run: RawRun): unknown {
  const bindings: unknown[] = run.refs.map((name) => ({ name: 'slot', resourceRef: { name } }));
  if (run.damage === 'name-number') bindings.push({ name: 'slot', resourceRef: { name: 42 } });
  const list = run.damage === 'resources-string' ? 'oops' : bindings;
  const annotations: Record<string, string> = {};
  const spec: Record<string, unknown> = run.state === 'pending' ? { status: 'PipelineRunPending' } : {};
  switch (run.shape) {
    case 'pr-spec':
      spec['resources'] = list;
      break;
    case 'tr-spec':
      spec['resources'] = { inputs: list, outputs: [] };
      break;
    case 'tr-legacy':
      spec['inputs'] = { resources: list };
      break;
    case 'pr-annotation':
      annotations['tekton.dev/v1beta1Resources'] = JSON.stringify(list);
      break;
    case 'tr-annotation':
      annotations['tekton.dev/v1beta1Resources'] = JSON.stringify({ inputs: [], outputs: list });
      break;
  }
  if (run.damage === 'annotation-not-json') annotations['tekton.dev/v1beta1Resources'] = '[{"resourceRef": ';
  const kind = kindOf(run.shape);
  return {
    apiVersion: 'tekton.dev/v1beta1',
    kind,
    metadata: { namespace: run.namespace, name: run.name, uid: runUid(kind, run.namespace, run.name), resourceVersion: '1', creationTimestamp: instant(-11 * DAY), annotations },
    spec,
    status: rawStatus(run.state),
  };
}

const rawClusterArb = fc.record({
  targets: fc.uniqueArray(targetArb, { selector: (t) => `${t.namespace}/${t.name}`, maxLength: 10 }),
  runs: fc.uniqueArray(rawRunArb, { selector: (r) => `${kindOf(r.shape)}/${r.namespace}/${r.name}`, maxLength: 12 }),
});

describe('properties of decide over runs as the API server returns them', () => {
  it('a target named by an unfinished run of any shape, or beside a damaged one, is never decided for deletion', (t) => {
    const branches = new Branches({ 'named by an unfinished run, none damaged': 100, 'beside a damaged run': 50, 'neither, deleted': 50 });
    fc.assert(
      fc.property(rawClusterArb, clockArb, (raw, now) => {
        const view: ClusterView = {
          targets: raw.targets.map(toTarget),
          runs: raw.runs.map((run) => toRunRecord(rawObject(run), kindOf(run.shape))),
          namespaces: new Map(),
        };
        for (const decision of decide(view, POLICY, now)) {
          const { namespace, name } = decision.target;
          const here = raw.runs.filter((run) => run.namespace === namespace);
          const named = here.some((run) => (run.refs as readonly string[]).includes(name) && !FINISHED_RAW.includes(run.state));
          const damaged = here.some((run) => run.damage !== 'none');
          if (named || damaged) assert.equal(decision.action, 'keep', `${namespace}/${name}: ${decision.reason}`);
          // Rules 1-3 come first; after them, the damaged run is the reason.
          if (damaged) assert.ok(['retained', 'retention-invalid', 'unreadable-run'].includes(decision.reason), `${namespace}/${name}: ${decision.reason}`);
          if (damaged) branches.hit('beside a damaged run');
          else if (named) branches.hit('named by an unfinished run, none damaged');
          else if (decision.action === 'delete') branches.hit('neither, deleted');
        }
      }),
      RUNS,
    );
    branches.assertReached(t);
  });
});

// ---- The leftovers: claims, Pipelines-as-Code Secrets, affinity-assistant StatefulSets ----
//
// The oracle: a leftover decided `delete` has no active linked run (its owner by kind and uid,
// the PipelineRun its label names, the PipelineRun whose git-auth annotation names it, a run
// whose workspace binds it; a child TaskRun of an active PipelineRun is active), no Pod that
// has not finished using it, no StatefulSet naming it that this pass does not delete, no run
// in its namespace whose links are unknown, and no retain on it or on an owner run. Each guard
// counts how often it was met, so a generator that never meets one fails the test.

const LEFTOVER_SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261201);
const LEFTOVER_RUN_NAMES = ['r0', 'r1', 'r2'] as const;
const UIDS = ['u0', 'u1', 'u2', 'u3'] as const;
const CLAIMS = ['c0', 'c1', 'c2'] as const;
const SECRETS = ['pac-gitauth-s0', 'pac-gitauth-s1'] as const;
const STS_NAMES = ['affinity-assistant-a', 'affinity-assistant-b'] as const;
const ACTIVE_POD = (phase: string | undefined): boolean => phase !== 'Succeeded' && phase !== 'Failed';

const leftoverRunNamespaceArb = fc.oneof({ arbitrary: fc.constantFrom('a', 'b'), weight: 30 }, { arbitrary: fc.constant(''), weight: 1 });
const problemsArb = fc.oneof(
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>([]), weight: 25 },
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>([{ field: 'spec.workspaces', problem: 'expected an array, found a string' }]), weight: 1 },
  { arbitrary: fc.constant<readonly ReadProblem[] | undefined>(undefined), weight: 1 },
);

const leftoverRunArb = fc.record({
  kind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  namespace: leftoverRunNamespaceArb,
  name: fc.constantFrom(...LEFTOVER_RUN_NAMES),
  uid: fc.constantFrom(...UIDS),
  state: fc.constantFrom<RunState>('pending', 'running', 'succeeded', 'failed', 'cancelled'),
  parentUid: fc.option(fc.constantFrom(...UIDS), { nil: undefined }),
  claims: fc.subarray([...CLAIMS, ...STS_NAMES.map((sts) => `data-${sts}-0`)], { maxLength: 2 }),
  secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
  gitAuthSecret: fc.option(fc.constantFrom(...SECRETS), { nil: undefined, freq: 3 }),
  retain: fc.option(fc.constantFrom('true', 'false'), { nil: undefined, freq: 5 }),
  leftoverProblems: problemsArb,
});

/** A PipelineRun and a finished child TaskRun that binds leftovers of its parent: a link whose state is its parent's. */
const familyArb = fc
  .record({
    namespace: fc.constantFrom('a', 'b'),
    parentUid: fc.constantFrom(...UIDS),
    parentName: fc.constantFrom(...LEFTOVER_RUN_NAMES),
    parentState: fc.constantFrom<RunState>('pending', 'running', 'succeeded'),
    childUid: fc.constantFrom('k0', 'k1'),
    claims: fc.subarray([...CLAIMS, ...STS_NAMES.map((sts) => `data-${sts}-0`)], { minLength: 1, maxLength: 2 }),
    secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
  })
  .map((f) => [
    { kind: 'PipelineRun' as const, namespace: f.namespace, name: f.parentName, uid: f.parentUid, state: f.parentState, parentUid: undefined, claims: [], secrets: [], gitAuthSecret: undefined, retain: undefined, leftoverProblems: [] },
    { kind: 'TaskRun' as const, namespace: f.namespace, name: `${f.parentName}-task`, uid: f.childUid, state: 'succeeded' as const, parentUid: f.parentUid, claims: f.claims, secrets: f.secrets, gitAuthSecret: undefined, retain: undefined, leftoverProblems: [] },
  ]);

const podArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom('p0', 'p1', 'p2'),
  phase: fc.constantFrom(undefined, 'Running', 'Pending', 'Succeeded', 'Failed', 'Unknown'),
  claims: fc.subarray([...CLAIMS], { maxLength: 1 }),
  secrets: fc.subarray([...SECRETS], { maxLength: 1 }),
});

const holderStsArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom(...STS_NAMES, 'db'),
  claims: fc.subarray([...CLAIMS], { maxLength: 1 }),
});

const leftoverTargetArb = fc.record({
  kind: fc.constantFrom<TargetKindName>('PersistentVolumeClaim', 'Secret', 'StatefulSet'),
  namespace: fc.constantFrom('a', 'b'),
  index: fc.nat({ max: 2 }),
  ownerKind: fc.constantFrom<RunKindName>('PipelineRun', 'TaskRun'),
  ownerUid: fc.option(fc.constantFrom(...UIDS, 'u-gone'), { nil: undefined, freq: 4 }),
  ownerName: fc.constantFrom(...LEFTOVER_RUN_NAMES),
  affinity: fc.boolean(),
  label: fc.constantFrom(...LEFTOVER_RUN_NAMES, 'r-gone'),
  retain: fc.option(fc.constantFrom('true', 'false'), { nil: undefined, freq: 6 }),
  young: fc.boolean(),
});

const leftoverClusterArb = fc.record({
  runs: fc.tuple(fc.array(leftoverRunArb, { maxLength: 6 }), fc.array(familyArb, { maxLength: 2 })).map(([runs, families]) => [...runs, ...families.flat()]),
  pods: fc.array(podArb, { maxLength: 3 }),
  statefulSets: fc.array(holderStsArb, { maxLength: 2 }),
  targets: fc.array(leftoverTargetArb, { minLength: 1, maxLength: 6 }),
});

type LeftoverCluster = typeof leftoverClusterArb extends fc.Arbitrary<infer T> ? T : never;

function toLeftoverRun(generated: LeftoverCluster['runs'][number]): RunRecord {
  const finished = !isActive(generated.state);
  return {
    kind: generated.kind,
    namespace: generated.namespace,
    name: generated.name,
    uid: generated.uid,
    resourceVersion: '1',
    state: generated.state,
    ...(finished && { finishedAt: new Date(NOW.getTime() - 2 * HOUR).toISOString() }),
    references: [],
    ...(generated.kind === 'TaskRun' && generated.parentUid !== undefined && { parentPipelineRun: { name: 'r0', uid: generated.parentUid } }),
    problems: [],
    workspaces: generated.leftoverProblems?.length === 0 ? { claims: generated.claims, secrets: generated.secrets } : generated.leftoverProblems === undefined ? { claims: [], secrets: [] } : null,
    ...(generated.gitAuthSecret !== undefined && { gitAuthSecret: generated.gitAuthSecret }),
    ...(generated.retain !== undefined && { retain: { labels: { [`${PREFIX}/retain`]: generated.retain }, annotations: {} } }),
    ...(generated.leftoverProblems !== undefined && { leftoverProblems: generated.leftoverProblems }),
  };
}

function toLeftoverTarget(generated: LeftoverCluster['targets'][number], position: number): TargetRecord {
  const owner: OwnerRef[] = generated.ownerUid === undefined ? [] : [{ kind: generated.kind === 'StatefulSet' ? 'PipelineRun' : generated.ownerKind, name: generated.ownerName, uid: generated.ownerUid, controller: generated.kind !== 'Secret' }];
  const common: Pick<TargetRecord, 'namespace' | 'uid' | 'resourceVersion' | 'createdAt' | 'labels' | 'annotations'> = {
    namespace: generated.namespace,
    uid: `t-${position}`,
    resourceVersion: '1',
    createdAt: new Date(NOW.getTime() - (generated.young ? 0.5 : 30) * HOUR).toISOString(),
    labels: generated.retain === undefined ? {} : { [`${PREFIX}/retain`]: generated.retain },
    annotations: {},
  };
  switch (generated.kind) {
    case 'PersistentVolumeClaim': {
      const affinity = generated.affinity || owner.length === 0;
      const leftover: LeftoverTarget = affinity ? { marker: 'affinity-assistant', pipelineRunLabel: generated.label } : { marker: 'owned' };
      const name = affinity ? `data-${STS_NAMES[generated.index % 2] ?? ''}-0` : CLAIMS[generated.index] ?? 'c0';
      return {
        ...common,
        kind: 'PersistentVolumeClaim',
        name,
        ownerReferences: affinity ? [] : owner,
        finalizers: ['kubernetes.io/pvc-protection'],
        leftover,
      };
    }
    case 'Secret':
      return { ...common, kind: 'Secret', name: SECRETS[generated.index % 2] ?? 'pac-gitauth-s0', ownerReferences: owner, leftover: { marker: 'pac-secret' } };
    default:
      return {
        ...common,
        kind: 'StatefulSet',
        name: STS_NAMES[generated.index % 2] ?? 'affinity-assistant-a',
        ownerReferences: owner.length === 0 ? [{ kind: 'PipelineRun', name: generated.ownerName, uid: 'u-gone', controller: true }] : owner,
        leftover: { marker: 'statefulset', pipelineRunLabel: generated.label },
      };
  }
}

function leftoverViewOf(cluster: LeftoverCluster): ClusterView {
  const targets = cluster.targets.map(toLeftoverTarget);
  // One object per namespace and name: the API server has no two.
  const unique = [...new Map(targets.map((t) => [`${t.namespace}/${t.kind}/${t.name}`, t])).values()];
  const pods: PodRecord[] = cluster.pods.map((p) => ({ namespace: p.namespace, name: p.name, ...(p.phase !== undefined && { phase: p.phase }), claims: p.claims, secrets: p.secrets }));
  // A StatefulSet target is also listed as a holder, with the claim its template makes.
  const holders: StatefulSetRecord[] = [
    ...cluster.statefulSets.map((s, i) => ({ namespace: s.namespace, name: `${s.name}-${i}`, uid: `h-${i}`, claims: s.claims, claimStems: [] })),
    ...unique.filter((t) => t.kind === 'StatefulSet').map((t) => ({ namespace: t.namespace, name: t.name, uid: t.uid, claims: [`data-${t.name}-0`], claimStems: [] })),
  ];
  const runs = [...new Map(cluster.runs.map(toLeftoverRun).map((r) => [`${r.kind}/${r.uid}`, r])).values()];
  return { targets: unique, runs, namespaces: new Map(), pods, statefulSets: holders };
}

/** Why the oracle says the decision must keep `target`, or null. Counts each guard it meets. */
function mustKeep(target: TargetRecord, view: ClusterView, deleted: ReadonlySet<string>, met: Map<string, number>): string | null {
  const count = (guard: string): void => void met.set(guard, (met.get(guard) ?? 0) + 1);
  const here = view.runs.filter((r) => r.namespace === target.namespace || r.namespace === '');
  if (here.some((r) => r.leftoverProblems === undefined || r.leftoverProblems.length > 0)) return (count('unreadable run'), 'a run whose links are unknown');
  if (target.labels[`${PREFIX}/retain`] === 'true') return (count('retained'), 'retained');
  const effective = (r: RunRecord): boolean => {
    if (isActive(r.state)) return true;
    const parent = r.parentPipelineRun && view.runs.find((p) => p.kind === 'PipelineRun' && p.uid === r.parentPipelineRun?.uid && p.namespace === r.namespace);
    return parent !== undefined && isActive(parent.state);
  };
  const sameNamespace = view.runs.filter((r) => r.namespace === target.namespace);
  const owners = sameNamespace.filter((r) => target.ownerReferences.some((o) => o.kind === r.kind && o.uid === r.uid));
  const labelOwners = target.ownerReferences.length === 0 ? sameNamespace.filter((r) => r.kind === 'PipelineRun' && r.name === target.leftover?.pipelineRunLabel) : [];
  if ([...owners, ...labelOwners].some((r) => r.retain?.labels[`${PREFIX}/retain`] === 'true')) return (count('owner retained'), 'retained on its owner');
  const linked = sameNamespace.filter(
    (r) =>
      owners.includes(r) ||
      (r.kind === 'PipelineRun' && target.kind !== 'Secret' && r.name === target.leftover?.pipelineRunLabel) ||
      (target.kind === 'Secret' && r.kind === 'PipelineRun' && r.gitAuthSecret === target.name) ||
      (target.kind === 'PersistentVolumeClaim' && r.workspaces?.claims.includes(target.name) === true) ||
      (target.kind === 'Secret' && r.workspaces?.secrets.includes(target.name) === true),
  );
  if (linked.some((r) => isActive(r.state))) return (count('active linked run'), 'an active linked run');
  if (linked.some(effective)) return (count('child of an active PipelineRun'), 'a linked TaskRun of an active PipelineRun');
  const named = (p: PodRecord): boolean => (target.kind === 'PersistentVolumeClaim' ? p.claims.includes(target.name) : target.kind === 'Secret' && p.secrets.includes(target.name));
  if ((view.pods ?? []).some((p) => p.namespace === target.namespace && named(p) && ACTIVE_POD(p.phase))) return (count('active Pod'), 'an active Pod');
  if (target.kind === 'PersistentVolumeClaim' && (view.statefulSets ?? []).some((s) => s.namespace === target.namespace && s.claims.includes(target.name) && !deleted.has(s.uid))) {
    return (count('StatefulSet kept'), 'a StatefulSet this pass keeps');
  }
  count('free');
  return null;
}

describe('properties of decide over generated leftovers, their runs, Pods and StatefulSets', () => {
  it('decide never deletes a leftover an active linked run, an active Pod, a kept StatefulSet, retain or an unreadable run holds', (t) => {
    const met = new Map<string, number>();
    let deletes = 0;
    fc.assert(
      fc.property(leftoverClusterArb, (cluster) => {
        const view = leftoverViewOf(cluster);
        const decisions: Decision[] = decide(view, POLICY, NOW);
        assert.equal(decisions.length, view.targets.length);
        const deleted = new Set(decisions.filter((d) => d.action === 'delete').map((d) => d.target.uid));
        for (const decision of decisions) {
          const why = mustKeep(decision.target, view, deleted, met);
          if (decision.action === 'delete') {
            deletes++;
            assert.equal(why, null, `${decision.target.kind} ${decision.target.namespace}/${decision.target.name} deleted (${decision.reason}: ${decision.message}) though ${why ?? ''}`);
            assert.ok(['runs-finished', 'owner-gone', 'unreferenced'].includes(decision.reason));
          }
        }
      }),
      { seed: LEFTOVER_SEED, numRuns: 500 },
    );
    t.diagnostic(`guards met: ${JSON.stringify(Object.fromEntries(met))}; deletes: ${deletes}`);
    for (const guard of ['unreadable run', 'retained', 'owner retained', 'active linked run', 'child of an active PipelineRun', 'active Pod', 'StatefulSet kept', 'free']) {
      assert.ok((met.get(guard) ?? 0) >= 20, `${guard} met ${met.get(guard) ?? 0} times: the generator hardly reaches it`);
    }
    assert.ok(deletes >= 100, `only ${deletes} deletes: the property is hardly checked`);
  });
});

/**
 * What goes with the runs a pass deletes (docs/spec.md, "What goes with a run").
 *
 * A run is deleted with `propagationPolicy: Background`: the API server removes it, and
 * Kubernetes' garbage collector then deletes each dependent none of whose owners is left
 * standing. The collector keeps a dependent while it has a "solid" owner, one that exists and
 * is not being deleted (kubernetes pkg/controller/garbagecollector/garbagecollector.go,
 * `attemptToDeleteItem` and `classifyReferences`). So an object goes with the runs when every
 * owner its ownerReferences name goes too: one of the runs, or an object that itself goes,
 * matched by kind, name and uid in the object's own namespace (ownerReferences are
 * namespace-local). An owner the pass did not list is taken to stand: the count is a floor,
 * never more than will go.
 *
 * Pure: the pass hands in the runs it decided to delete and the objects it listed anyway
 * (TaskRuns, Pods, claims, Secrets, StatefulSets, requests); nothing is listed for this.
 */
import { flat } from './flat.js';
import { readOwnerRef } from './runs.js';
import { amendDecision, CASCADE_KINDS, type CascadeCounts, type ChildCounts, type CascadeKind, type ClusterView, type Decision, type OwnerRef, type RetainedOwnedRecord, type TargetRecord } from './types.js';

/** An object as the cascade reads it: who it is and who owns it. */
export interface OwnedObject {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  ownerReferences: readonly OwnerRef[];
}

/** A run the pass deletes: the root of a cascade. */
export interface CascadeRoot {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** What would go with the roots, and through which root each object is counted. */
export interface Cascade<T extends OwnedObject> {
  /** Root uid to the objects counted with it, in the order they would go (owners before what they own). */
  byRoot: ReadonlyMap<string, readonly T[]>;
  /** Every object that goes, once each: the sum of byRoot. */
  size: number;
}

function key(namespace: string, uid: string): string {
  return `${namespace}\u0000${uid}`;
}

interface Going {
  kind: string;
  name: string;
  /** The root it is counted with (itself for a root). */
  root: string;
}

/**
 * The objects that go with `roots`. Each object is counted once, with the root of its first
 * ownerReference (its owners have all gone by then, so that root is known): a Pod owned by a
 * TaskRun goes with the TaskRun's PipelineRun.
 */
export function cascadeOf<T extends OwnedObject>(roots: readonly CascadeRoot[], objects: readonly T[]): Cascade<T> {
  const going = new Map<string, Going>();
  for (const root of roots) going.set(key(root.namespace, root.uid), { kind: root.kind, name: root.name, root: root.uid });
  // Owner key to the objects that name it, each object once per distinct owner: an object
  // that names one owner twice still waits for its other owners (the property test found it).
  const dependents = new Map<string, { object: T; waiting: { left: number } }[]>();
  for (const object of objects) {
    if (object.ownerReferences.length === 0 || going.has(key(object.namespace, object.uid))) continue;
    const owners = new Set(object.ownerReferences.map((ref) => key(object.namespace, ref.uid)));
    const waiting = { left: owners.size };
    for (const owner of owners) {
      const list = dependents.get(owner);
      if (list === undefined) dependents.set(owner, [{ object, waiting }]);
      else list.push({ object, waiting });
    }
  }
  const byRoot = new Map<string, T[]>();
  let size = 0;
  // Read by index, not shift(): a pass may cascade a hundred thousand TaskRuns and Pods.
  const queue = [...going.keys()];
  for (let at = 0; at < queue.length; at += 1) {
    for (const { object, waiting } of dependents.get(queue[at] as string) ?? []) {
      waiting.left -= 1;
      if (waiting.left > 0) continue;
      const firstOwner = ownersGoing(object, going);
      if (firstOwner === undefined) continue;
      const objectKey = key(object.namespace, object.uid);
      going.set(objectKey, { kind: object.kind, name: object.name, root: firstOwner.root });
      const list = byRoot.get(firstOwner.root);
      if (list === undefined) byRoot.set(firstOwner.root, [object]);
      else list.push(object);
      size += 1;
      queue.push(objectKey);
    }
  }
  return { byRoot, size };
}

/**
 * The going owner of the object's first ownerReference when every reference names a going
 * object by kind, name and uid; undefined when one names an object of that uid by another kind
 * or name: not the object that goes, so an owner that may stand.
 */
function ownersGoing(object: OwnedObject, going: ReadonlyMap<string, Going>): Going | undefined {
  let first: Going | undefined;
  for (const ref of object.ownerReferences) {
    const owner = going.get(key(object.namespace, ref.uid));
    if (owner === undefined || owner.kind !== ref.kind || owner.name !== ref.name) return undefined;
    first ??= owner;
  }
  return first;
}

/** Counts of a cascade by kind, with the bytes of those that have a size (claims). */
export function cascadeTotals<T extends OwnedObject>(objects: Iterable<T>, bytesOf: (object: T) => number | undefined): Map<string, { count: number; bytes: number }> {
  const totals = new Map<string, { count: number; bytes: number }>();
  for (const object of objects) {
    const total = totals.get(object.kind) ?? { count: 0, bytes: 0 };
    total.count += 1;
    total.bytes += bytesOf(object) ?? 0;
    totals.set(object.kind, total);
  }
  return totals;
}

/**
 * The roots to keep so that no protected object goes with the others: a run whose cascade
 * would take an object the pass keeps for a reason of its own (a `retain` label, a Pod using
 * it) is kept, and the cascade is taken again, since keeping one run can keep what another
 * owned jointly with it. Returns each kept root's uid with the first protected object that
 * kept it. Ends: every round keeps at least one more root.
 */
export function rootsKeptForDependents<T extends OwnedObject>(
  roots: readonly CascadeRoot[],
  objects: readonly T[],
  isProtected: (object: T) => boolean,
): { kept: ReadonlyMap<string, T>; cascade: Cascade<T> } {
  const kept = new Map<string, T>();
  let remaining = roots;
  for (;;) {
    const cascade = cascadeOf(remaining, objects);
    let keptMore = false;
    for (const [root, going] of cascade.byRoot) {
      const protectedObject = going.find(isProtected);
      if (protectedObject !== undefined && !kept.has(root)) {
        kept.set(root, protectedObject);
        keptMore = true;
      }
    }
    if (!keptMore) return { kept, cascade };
    remaining = remaining.filter((root) => !kept.has(root.uid));
  }
}

/**
 * What the census reads of a listed run that goes with another: a TaskRun (a child of a
 * PipelineRun, or a standalone one for its Pod) or a child (pipeline-in-pipeline) PipelineRun.
 */
export interface ChildRunReading {
  kind: 'PipelineRun' | 'TaskRun';
  namespace: string;
  name: string;
  uid: string;
  /** The PipelineRun that owns it, for a child TaskRun or a child PipelineRun. */
  parent?: { name: string; uid: string };
  /** A TaskRun's `status.podName`: the Pod Tekton made for it, which it owns. */
  podName?: string;
  /** Why it may not go (it has not finished, it is retained), when it may not. */
  stays?: string;
}

/** `status.podName` and the `retain` label or annotation of a listed TaskRun, read leniently: what cannot be read keeps it. */
export function readTaskRunExtras(obj: unknown, retainKey: string): { podName?: string; retained?: string } {
  const podName = record(record(obj)?.['status'])?.['podName'];
  const retained = retainedBy(obj, retainKey);
  return { ...(typeof podName === 'string' && podName !== '' && { podName }), ...(retained !== undefined && { retained }) };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** What retains a listed object, said as `its label KEY is "VALUE"` (label first), or undefined. */
function retainedBy(obj: unknown, retainKey: string): string | undefined {
  const metadata = record(record(obj)?.['metadata']);
  for (const source of ['labels', 'annotations'] as const) {
    const value = record(metadata?.[source])?.[retainKey];
    // Any text but "false" retains, as for a target (docs/spec.md, "Retention labels and annotations").
    if (value !== undefined && value !== 'false') return `its ${source === 'labels' ? 'label' : 'annotation'} ${retainKey} is ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * An object a run may own, listed as metadata only by the retain label (kube/cluster.ts
 * listRetainedOwned), as the cascade reads it: null when nothing retains it after all, or
 * when it names no owner (then no run's deletion takes it). An ownerReference that cannot be
 * read is left out: the others still lead to the run that would take it.
 */
export function toRetainedOwned(obj: unknown, kind: string, retainKey: string): RetainedOwnedRecord | null {
  const retained = retainedBy(obj, retainKey);
  const metadata = record(record(obj)?.['metadata']);
  const refs = metadata?.['ownerReferences'];
  if (retained === undefined || !Array.isArray(refs) || refs.length === 0) return null;
  const text = (key: string): string => (typeof metadata?.[key] === 'string' ? metadata[key] : '');
  const ownerReferences = refs.flatMap((ref: unknown) => readOwnerRef(ref, 'metadata.ownerReferences', []) ?? []).map(({ kind: owner, name, uid, controller }) => ({ kind: owner, name, uid, controller }));
  if (ownerReferences.length === 0 || text('namespace') === '' || text('uid') === '') return null;
  return { kind, namespace: text('namespace'), name: text('name'), uid: text('uid'), ownerReferences, retained };
}

/** Counts packed in one number a run: TaskRuns in the low 26 bits, Pods above (a Map of numbers costs a fraction of a Map of objects). */
const TASKRUN_UNIT = 1;
const POD_UNIT = 2 ** 26;

/**
 * What the run listing says goes with each run: a PipelineRun's TaskRuns and their Pods, its
 * child (pipeline-in-pipeline) PipelineRuns and, at any depth, what they own; a standalone
 * TaskRun's Pod. Counted as the runs are read, so that no record of a child TaskRun is kept
 * for it. A child that must stay (not finished, retained) is remembered for its parent, and so
 * is a child TaskRun that owns a listed target, as an OwnedObject: the claim or request it
 * owns goes with the PipelineRun through it. Every child PipelineRun is remembered as an
 * OwnedObject too (they are few), so that what it and its TaskRuns own leads to the root.
 * What is counted under a child PipelineRun is added to its parent's when asked (of, stays),
 * since a child may be listed before or after its parent and its own children.
 */
export class RunChildren {
  private readonly counts = new Map<string, number>();
  private readonly staying = new Map<string, string>();
  private readonly owning: OwnedObject[] = [];
  /** A parent PipelineRun's uid to its child PipelineRuns. */
  private readonly childPipelineRuns = new Map<string, { name: string; uid: string }[]>();

  /** `ownerUids`: the uids listed targets (and retained objects) name in their ownerReferences (listed before runs). */
  constructor(private readonly ownerUids: ReadonlySet<string>) {}

  add(child: ChildRunReading): void {
    if (child.kind === 'PipelineRun') {
      this.addPipelineRun(child);
      return;
    }
    const root = child.parent?.uid ?? child.uid;
    const add = (child.parent === undefined ? 0 : TASKRUN_UNIT) + (child.podName === undefined ? 0 : POD_UNIT);
    if (add > 0) this.counts.set(root, (this.counts.get(root) ?? 0) + add);
    if (child.parent === undefined) return;
    if (child.stays !== undefined && !this.staying.has(root)) this.staying.set(root, `its TaskRun ${child.name} ${child.stays}`);
    if (this.ownerUids.has(child.uid)) this.owning.push(ownedChild(child, child.parent));
  }

  private addPipelineRun(child: ChildRunReading): void {
    const { parent } = child;
    if (parent === undefined) return;
    const list = this.childPipelineRuns.get(parent.uid);
    if (list === undefined) this.childPipelineRuns.set(parent.uid, [{ name: child.name, uid: child.uid }]);
    else list.push({ name: child.name, uid: child.uid });
    if (child.stays !== undefined && !this.staying.has(parent.uid)) this.staying.set(parent.uid, `its PipelineRun ${child.name} ${child.stays}`);
    this.owning.push(ownedChild(child, parent));
  }

  /** The child PipelineRuns and TaskRuns, at every depth, and the Pods that go with the run of `uid`. */
  of(uid: string): ChildCounts {
    const total = { pipelineRuns: 0, taskRuns: 0, pods: 0 };
    const addOwn = (one: string): void => {
      const packed = this.counts.get(one) ?? 0;
      total.taskRuns += packed % POD_UNIT;
      total.pods += Math.floor(packed / POD_UNIT);
    };
    addOwn(uid);
    if (!this.childPipelineRuns.has(uid)) return total;
    for (const child of this.descendants(uid)) {
      total.pipelineRuns += 1;
      addOwn(child.uid);
    }
    return total;
  }

  /** Why the PipelineRun of `uid` must stay for one of its children, at any depth, if it must. */
  stays(uid: string): string | undefined {
    const own = this.staying.get(uid);
    if (own !== undefined || !this.childPipelineRuns.has(uid)) return own;
    for (const child of this.descendants(uid)) {
      const why = this.staying.get(child.uid);
      if (why !== undefined) return `its PipelineRun ${child.name}: ${why}`;
    }
    return undefined;
  }

  /** The child TaskRuns that own a listed target, and every child PipelineRun. */
  owners(): readonly OwnedObject[] {
    return this.owning;
  }

  /** The child PipelineRuns below `uid`, nearest first, each once (a loop of owners, never made by Tekton, ends). */
  private descendants(uid: string): { name: string; uid: string }[] {
    const found: { name: string; uid: string }[] = [];
    const seen = new Set<string>([uid]);
    for (let at = -1; at < found.length; at += 1) {
      const parent = at < 0 ? uid : (found[at] as { uid: string }).uid;
      for (const child of this.childPipelineRuns.get(parent) ?? []) {
        if (seen.has(child.uid)) continue;
        seen.add(child.uid);
        found.push(child);
      }
    }
    return found;
  }
}

/** A child run as the cascade reads it: owned by its parent PipelineRun. */
function ownedChild(child: ChildRunReading, parent: { name: string; uid: string }): OwnedObject {
  return { kind: child.kind, namespace: child.namespace, name: child.name, uid: child.uid, ownerReferences: [{ kind: 'PipelineRun', name: parent.name, uid: parent.uid, controller: true }] };
}

const COUNTED_KINDS: ReadonlySet<string> = new Set<string>(CASCADE_KINDS);

const NOTHING_OWNED: { kept: ReadonlyMap<string, OwnedObject>; cascade: Cascade<OwnedObject> } = { kept: new Map(), cascade: { byRoot: new Map(), size: 0 } };

/** How withCascade reads the decision of each item it is given, and puts an amended one back. */
export interface DecisionOf<T> {
  decision: (item: T) => Decision;
  amended: (item: T, decision: Decision) => T;
}

/** Plain decisions: a pass's, whose facts are dropped as each is decided. */
const PLAIN: DecisionOf<Decision> = { decision: (decision) => decision, amended: (_, decision) => decision };

/**
 * The pass's decisions with what goes with each run it deletes (docs/spec.md, "What goes with
 * a run"). Decisions come in and go out in the same order; only these change:
 * - a run decided `delete` that must stay for what would go with it is kept
 *   (`dependent-kept`): a TaskRun of it that has not finished or is retained, or a listed
 *   target its collector keeps (a retained claim, one a Pod uses). Deleting the run would
 *   have Kubernetes' garbage collector delete them whatever this pass decided for them;
 * - a run that goes carries its cascade: the TaskRuns and Pods the run listing counted,
 *   and the listed targets that go with it, with their claims' bytes;
 * - a target its own collector deletes that also goes with a run says which (`goesWith`),
 *   so that a reader counts it once: it is in the run's cascade and its collector's deletes.
 * A run already being deleted (`deletionTimestamp`) is no root: the pass sends it nothing
 * (it is reported `terminating`), so nothing goes by this pass's hand and nothing it owns can
 * keep it; Kubernetes' garbage collector takes what it owns whatever the pass decides.
 * `as` reads each item's decision (explain's items carry their facts: decide.ts decideWithFacts).
 */
export function withCascade(decisions: readonly Decision[], view: Pick<ClusterView, 'targets' | 'children' | 'retainedOwned'>): Decision[];
export function withCascade<T>(items: readonly T[], view: Pick<ClusterView, 'targets' | 'children' | 'retainedOwned'>, as: DecisionOf<T>): T[];
export function withCascade<T>(items: readonly T[], view: Pick<ClusterView, 'targets' | 'children' | 'retainedOwned'>, as: DecisionOf<T> = PLAIN as unknown as DecisionOf<T>): T[] {
  const children = view.children;
  const roots: CascadeRoot[] = [];
  const stays = new Map<string, string>();
  for (const item of items) {
    const decision = as.decision(item);
    const { target } = decision;
    if (!isRoot(decision)) continue;
    const why = children?.stays(target.uid);
    if (why !== undefined) stays.set(target.uid, why);
    else roots.push(target);
  }
  if (roots.length === 0 && stays.size === 0) return [...items];
  const byUid = new Map<string, Decision>();
  for (const item of items) {
    const decision = as.decision(item);
    if (decision.target.run === undefined) byUid.set(decision.target.uid, decision);
  }
  const owned: OwnedObject[] = [...(children?.owners() ?? [])];
  for (const target of view.targets) if (target.run === undefined && target.ownerReferences.length > 0) owned.push(target);
  // A retained object no collector lists as a target (its collector is off, or it lacks the marker) is kept all the same.
  const retained = new Map<string, string>();
  for (const object of view.retainedOwned ?? []) {
    if (byUid.has(object.uid) || retained.has(object.uid)) continue;
    retained.set(object.uid, object.retained);
    owned.push(object);
  }
  // Nothing listed that a run may own (only runs are collected): nothing goes with a run but the children the listing counted, and cascadeOf's table of every root is not made.
  const { kept, cascade } = owned.length === 0 ? NOTHING_OWNED : rootsKeptForDependents(roots, owned, (object) => retained.has(object.uid) || byUid.get(object.uid)?.action === 'keep');
  for (const [uid, object] of kept) stays.set(uid, `its ${object.kind} ${object.name} would go with it and is kept (${keptBecause(byUid.get(object.uid), retained.get(object.uid))})`);
  const goesWith = new Map<string, string>();
  const counts = new Map<string, CascadeCounts>();
  const rootOf = cascade.byRoot.size === 0 ? undefined : new Map(roots.map((root) => [root.uid, root]));
  for (const [root, objects] of cascade.byRoot) {
    const tally: Partial<Record<CascadeKind, number>> = {};
    let bytes = 0;
    for (const object of objects) {
      if (byUid.get(object.uid)?.action === 'delete') {
        const owner = rootOf?.get(root);
        goesWith.set(object.uid, owner === undefined ? root : `${owner.kind}/${owner.name}`);
      }
      if (!COUNTED_KINDS.has(object.kind)) continue;
      const kind = object.kind as CascadeKind;
      tally[kind] = (tally[kind] ?? 0) + 1;
      bytes += (object as Partial<TargetRecord>).leftover?.bytes?.value ?? 0;
    }
    counts.set(root, { objects: tally, ...(bytes > 0 && { bytes }) });
  }
  const shared = new SharedCounts();
  return items.map((item) => {
    const decision = as.decision(item);
    const { target } = decision;
    const why = stays.get(target.uid);
    if (why !== undefined) return as.amended(item, amendDecision(decision, { action: 'keep', reason: 'dependent-kept', message: flat`${decision.message}; but ${why}` }));
    if (isRoot(decision)) return as.amended(item, amendDecision(decision, { cascade: withChildren(counts.get(target.uid), children?.of(target.uid), shared) }));
    const run = goesWith.get(target.uid);
    return run === undefined ? item : as.amended(item, amendDecision(decision, { goesWith: run }));
  });
}

/** Why a protected object is kept: its own decision, or the retain label it was listed by. */
function keptBecause(decision: Decision | undefined, retained: string | undefined): string {
  if (decision !== undefined) return `${decision.reason}: ${decision.message}`;
  return `retained: ${retained ?? 'it is kept'}`;
}

/** A run the pass deletes, and so sends a DELETE: decided `delete` and not being deleted already. */
function isRoot(decision: Decision): boolean {
  return decision.target.run !== undefined && decision.action === 'delete' && decision.target.deletionTimestamp === undefined;
}

/**
 * One frozen CascadeCounts for each count of TaskRuns and Pods that nothing else goes with: a
 * pass deletes a hundred thousand runs at the benchmark's 4x, most with one of a few dozen
 * counts, and a count of its own for each was 96 bytes a run, held to the end of the pass.
 */
class SharedCounts {
  private readonly known = new Map<number, CascadeCounts>();

  of(taskRuns: number, pods: number): CascadeCounts {
    const key = taskRuns * TASKRUN_UNIT + pods * POD_UNIT;
    let counts = this.known.get(key);
    if (counts === undefined) {
      const objects: Partial<Record<CascadeKind, number>> = {};
      if (taskRuns > 0) objects.TaskRun = taskRuns;
      if (pods > 0) objects.Pod = pods;
      this.known.set(key, (counts = Object.freeze({ objects: Object.freeze(objects) })));
    }
    return counts;
  }
}

function withChildren(listed: CascadeCounts | undefined, counted: ChildCounts | undefined, shared: SharedCounts): CascadeCounts {
  if (listed === undefined && (counted?.pipelineRuns ?? 0) === 0) return shared.of(counted?.taskRuns ?? 0, counted?.pods ?? 0);
  const objects: Partial<Record<CascadeKind, number>> = { ...listed?.objects };
  // The listing counted every child run; those that own a target are in `listed` too.
  if (counted !== undefined && counted.pipelineRuns > 0) objects.PipelineRun = counted.pipelineRuns;
  if (counted !== undefined && counted.taskRuns > 0) objects.TaskRun = counted.taskRuns;
  if (counted !== undefined && counted.pods > 0) objects.Pod = counted.pods;
  return { objects, ...(listed?.bytes !== undefined && { bytes: listed.bytes }) };
}

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
import type { OwnerRef } from './types.js';

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

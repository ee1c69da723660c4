/**
 * What a run collector reads beside the runs about what goes with them (docs/spec.md, "What
 * goes with a run"), read the same way by a pass (sweep.ts) and by `explain` of a run
 * (cli/explaincmd.ts), so that both decide on the same objects: the objects a run owns that
 * carry the retain label (one metadata-only list per kind, kube/cluster.ts
 * listRetainedOwned), and the census of child runs that the run listing fills
 * (core/cascade.ts RunChildren), which remembers the child TaskRuns that own a listed target
 * or a retained object.
 */
import { RunChildren } from '../core/cascade.js';
import { retentionKeys } from '../core/retention.js';
import type { RetainedOwnedRecord, TargetRecord } from '../core/types.js';
import type { KubeCluster, RunChildrenSink, Scope, ServedApis } from '../kube/cluster.js';

/** The retained objects a run owns, and the census the run listing fills (its sink). */
export interface RunDependents {
  retainedOwned: readonly RetainedOwnedRecord[];
  children: RunChildren;
  sink: RunChildrenSink;
}

/**
 * Read before the runs: the census must know, as the TaskRuns go by, which of them own a
 * listed target or a retained object. `namespaces`: where to look (explain: the run's own);
 * absent, every namespace in scope, as the runs are listed.
 */
export async function readRunDependents(
  cluster: Pick<KubeCluster, 'listRetainedOwned'>,
  apis: ServedApis,
  where: { scope: Scope; labelPrefix: string; namespaces?: readonly string[] },
  targets: readonly TargetRecord[],
): Promise<RunDependents> {
  const retainKey = retentionKeys(where.labelPrefix).retain;
  const retainedOwned = (apis.runOwned?.length ?? 0) === 0 ? [] : await cluster.listRetainedOwned(apis, where.scope, retainKey, where.namespaces);
  const children = new RunChildren(taskRunOwnerUids([...targets, ...retainedOwned]));
  return { retainedOwned, children, sink: { add: (child) => children.add(child), retainKey } };
}

/** The uids these objects name as TaskRun owners: the TaskRuns among them are remembered by the census (core/cascade.ts). */
function taskRunOwnerUids(objects: readonly { ownerReferences: readonly { kind: string; uid: string }[] }[]): Set<string> {
  const uids = new Set<string>();
  for (const object of objects) for (const owner of object.ownerReferences) if (owner.kind === 'TaskRun') uids.add(owner.uid);
  return uids;
}

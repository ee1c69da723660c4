/**
 * Targets <- the runs that reference them, per namespace. Built once per pass from the
 * compact records with maps keyed by namespace and name (or kind and uid), so a lookup
 * costs the number of references it returns, never a scan of all runs.
 */
import { isRunKindName } from './kinds.js';
import { isActive } from './runs.js';
import type { ReferenceView, RunKindName, RunRecord, RunState, TargetRecord } from './types.js';

export interface ReferenceGraph {
  /** Runs that name the target (spec or the target's ownerReferences), with effective states, sorted by kind then name. */
  referencingRuns(target: TargetRecord): readonly ReferenceView[];
  /** Runs whose references are unknown and that may sit in `namespace`. */
  unreadableRuns(namespace: string): readonly RunRecord[];
}

/**
 * Runs by kind, then uid: maps within maps rather than one map keyed `kind/uid`, so that no
 * key string is made per run (160,000 of them at the benchmark's 4x).
 */
type RunsByUid = Readonly<Record<RunKindName, Map<string, RunRecord>>>;

export function buildGraph(runs: readonly RunRecord[]): ReferenceGraph {
  const byUid: RunsByUid = { PipelineRun: new Map(), TaskRun: new Map() };
  // By namespace, then the name of the target named: no key string per reference either.
  const bySpecReference = new Map<string, Map<string, RunRecord[]>>();
  const unreadableByNamespace = new Map<string, RunRecord[]>();
  // Runs whose namespace could not be read (namespace ''): they count against every namespace.
  const unattributed: RunRecord[] = [];
  for (const run of runs) {
    if (run.uid !== '') byUid[run.kind].set(run.uid, run);
    if (run.references === null) {
      if (run.namespace === '') unattributed.push(run);
      else append(unreadableByNamespace, run.namespace, run);
      continue;
    }
    if (run.references.length === 0) continue;
    let inNamespace = bySpecReference.get(run.namespace);
    if (inNamespace === undefined) bySpecReference.set(run.namespace, (inNamespace = new Map()));
    for (const name of run.references) append(inNamespace, name, run);
  }
  // The decision names the first unreadable run: the same one whatever the order of the list.
  for (const list of [...unreadableByNamespace.values(), unattributed]) list.sort(byKindNameUid);

  const stateOf = (run: RunRecord): RunState => effectiveState(run, parentOf(run, byUid));
  const view = (run: RunRecord, via: ReferenceView['via']): ReferenceView => ({
    kind: run.kind,
    name: run.name,
    state: stateOf(run),
    ...(run.finishedAt !== undefined && { finishedAt: run.finishedAt }),
    via,
  });

  return {
    referencingRuns(target) {
      const named = bySpecReference.get(target.namespace)?.get(target.name) ?? [];
      // A run that names the target in its spec and owns it is listed once, as `spec`.
      const owners = new Set(owningRuns(target, byUid).filter((run) => !named.includes(run)));
      return [...named.map((run) => view(run, 'spec')), ...[...owners].map((run) => view(run, 'ownerReference'))].sort(byKindThenName);
    },
    unreadableRuns(namespace) {
      const here = unreadableByNamespace.get(namespace) ?? [];
      return unattributed.length === 0 ? here : [...here, ...unattributed];
    },
  };
}

/**
 * A run's state once its parent is taken into account: a child TaskRun is finished only
 * while its PipelineRun is finished or gone, because before v0.43 a PipelineRun retrying a
 * task reset a failed child to Unknown (docs/spec.md, "Finished run").
 */
function effectiveState(run: RunRecord, parent: RunRecord | undefined): RunState {
  if (parent !== undefined && isActive(parent.state) && !isActive(run.state)) return 'running';
  return run.state;
}

/** The parent run that exists: same uid (a recreated parent of the same name is another object) and same namespace. */
function parentOf(run: RunRecord, byUid: RunsByUid): RunRecord | undefined {
  if (run.parentPipelineRun === undefined) return undefined;
  const parent = byUid.PipelineRun.get(run.parentPipelineRun.uid);
  return parent?.namespace === run.namespace ? parent : undefined;
}

/** ownerReferences of the target that point at a run that still exists (kind + uid); a gone owner names nothing. */
function owningRuns(target: TargetRecord, byUid: RunsByUid): RunRecord[] {
  return target.ownerReferences.flatMap((owner) => {
    if (!isRunKindName(owner.kind)) return [];
    const run = byUid[owner.kind].get(owner.uid);
    // ownerReferences never cross namespaces.
    return run !== undefined && run.namespace === target.namespace ? [run] : [];
  });
}

function byKindNameUid(a: RunRecord, b: RunRecord): number {
  return compareText(a.kind, b.kind) || compareText(a.name, b.name) || compareText(a.uid, b.uid);
}

function byKindThenName(a: ReferenceView, b: ReferenceView): number {
  return compareText(a.kind, b.kind) || compareText(a.name, b.name);
}

export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

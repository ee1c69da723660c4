/**
 * Which listed runs a pass keeps. The graph finds a run only by a name it references in its
 * spec (its `resource-binding` link), by uid as a target's owner (`owner-reference`), or as the parent of a
 * TaskRun (PipelineRuns only); a leftover's links read more of it. So a TaskRun read without
 * the leftovers' links that references nothing, was read whole and owns none of the targets
 * can change no decision: a PipelineRun's children, which carry their resources embedded, are
 * about half the runs of an old CI cluster. The pass counts them and forgets them (at the
 * benchmark's 4x, about 78,000 of its 160,000 runs).
 */
import { collectorOf } from './collectors.js';
import type { RunRecord, TargetRecord } from './types.js';

/** Whether the decisions over `targets` may read `run`; targets are listed before runs, so their owners are known. */
export function runsNeededBy(targets: readonly TargetRecord[]): (run: RunRecord) => boolean {
  const owningTaskRuns = new Set<string>();
  for (const target of targets) {
    for (const owner of target.ownerReferences) if (owner.kind === 'TaskRun') owningTaskRuns.add(owner.uid);
  }
  return (run) =>
    run.kind === 'PipelineRun' ||
    run.references === null ||
    run.references.length > 0 ||
    run.problems.length > 0 ||
    // Read with the leftovers' links: a workspace, a label or an annotation may link it.
    run.leftoverProblems !== undefined ||
    owningTaskRuns.has(run.uid);
}

/**
 * The one copy of each namespace and name the targets hold, for the runs' records to share:
 * a run's namespace and the names it references are otherwise a copy each, parsed from its
 * JSON (at the benchmark's 4x, about 80,000 runs kept, most naming two targets). A string no
 * target holds is answered as it is.
 */
export function targetStrings(targets: readonly TargetRecord[]): (value: string) => string {
  const table = new Map<string, string>();
  for (const { namespace, name } of targets) {
    if (!table.has(namespace)) table.set(namespace, namespace);
    if (!table.has(name)) table.set(name, name);
  }
  return (value) => table.get(value) ?? value;
}

/** Who a run is, as releasingOwners asks. */
export type RunIdentity = Pick<RunRecord, 'uid' | 'namespace' | 'name'>;

/**
 * Which runs may have released a target: the owners of the targets whose collector reads a
 * released request (`releasedByStoredSpec`), by uid, and the runs of an owner's name in its
 * namespace (a rerun by name reads, and may release, its predecessor's request: docs/spec.md,
 * "Reruns by name"). Naming that request hashes the run's ref (resolution.ts, about 14 µs a
 * run): a pass reads it for these runs only, not for every run that resolved something remotely.
 */
export function releasingOwners(targets: readonly TargetRecord[]): (run: RunIdentity) => boolean {
  const owners = new Set<string>();
  const names = new Map<string, Set<string>>();
  for (const target of targets) {
    if (!collectorOf(target.kind).releasedByStoredSpec) continue;
    for (const owner of target.ownerReferences) {
      owners.add(owner.uid);
      let inNamespace = names.get(target.namespace);
      if (inNamespace === undefined) names.set(target.namespace, (inNamespace = new Set()));
      inNamespace.add(owner.name);
    }
  }
  return (run) => owners.has(run.uid) || names.get(run.namespace)?.has(run.name) === true;
}

/**
 * The runs a listing passed over: how many (the report counts every run read), and, for a pass
 * that will re-check before deleting, each one's resourceVersion by uid, so that the re-check
 * tells a run it passed over from a new one (runsChangedSince) and lists again only the
 * namespaces where something changed. A dry run never re-checks and keeps no versions.
 * `strings` (targetStrings) and `releasing` (releasingOwners) are what the records of the runs
 * it keeps are read with.
 */
export class PassedOverRuns {
  count = 0;
  readonly versions: Map<string, string> | undefined;
  readonly strings: ((value: string) => string) | undefined;
  readonly releasing: ((run: RunIdentity) => boolean) | undefined;

  constructor(
    private readonly needed: (run: RunRecord) => boolean,
    options: { versions: boolean; strings?: (value: string) => string; releasing?: (run: RunIdentity) => boolean },
  ) {
    this.versions = options.versions ? new Map() : undefined;
    this.strings = options.strings;
    this.releasing = options.releasing;
  }

  /** Whether to keep `run`; one that is not kept is counted (and its version noted). */
  keeps(run: RunRecord): boolean {
    if (this.needed(run)) return true;
    this.count++;
    this.versions?.set(run.uid, run.resourceVersion);
    return false;
  }
}

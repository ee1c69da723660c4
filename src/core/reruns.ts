/**
 * What the delete phase reads of the runs right before it deletes a target a rerun by name
 * finds by name (docs/spec.md, "Reruns by name"): the runs that rerun would be. A run of one of
 * these names that the view the target was decided on does not hold was made since, and may be
 * finding the target now. Pure.
 */
import type { ParentNames } from './childnames.js';
import type { RerunFinds } from './collectors.js';
import { isRunKindName } from './kinds.js';
import type { RunKindName, TargetRecord } from './types.js';

/** One GET: a run of this kind and name in the target's namespace. */
export interface RunName {
  kind: RunKindName;
  name: string;
}

/**
 * The runs to read before deleting `target`, each once: its run owners' names (of `finds.owner`'s
 * kinds), its label's PipelineRun, and the PipelineRuns of the view (`pipelineRunsInView`, of its
 * namespace) whose child would have an owner's name. A parent the view does not hold is not
 * named: a child's name does not say its parent's (the task's name is not known), and reading every
 * name it may be would cost a GET per `-` in it.
 */
export function rerunReads(target: Pick<TargetRecord, 'ownerReferences' | 'leftover'>, finds: RerunFinds, pipelineRunsInView: () => ParentNames): RunName[] {
  const reads = new Map<string, RunName>();
  const add = (kind: RunKindName, name: string): void => {
    if (name !== '') reads.set(`${kind}/${name}`, { kind, name });
  };
  const owners = target.ownerReferences.filter((owner) => isRunKindName(owner.kind)).map((owner) => owner.name);
  for (const name of owners) for (const kind of finds.owner) add(kind, name);
  if (finds.label && target.leftover?.pipelineRunLabel !== undefined) add('PipelineRun', target.leftover.pipelineRunLabel);
  if (finds.parents && owners.length > 0) {
    const inView = pipelineRunsInView();
    for (const name of owners) for (const parent of inView.parentsOf(name)) add('PipelineRun', parent);
  }
  return [...reads.values()];
}

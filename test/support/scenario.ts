/**
 * A namespace with one target for each way the rules (docs/spec.md) keep one, and some it lets go, so a
 * test can compare what is left after a pass with what must be left.
 */
import type { Seeder } from './seed.js';
import { gitResource, hoursAgo, imageResource, pipelineRun, taskRun } from './tekton.js';

export interface Scenario {
  namespace: string;
  /** Targets the rules say must survive any pass, sorted. */
  keep: string[];
  /** Targets a pass that ran as planned deletes, sorted. */
  collectable: string[];
}

/**
 * Keeps: referenced by a running PipelineRun, by a pending one, by a TaskRun whose failure
 * may still be retried, and a target labelled retain. Collectable: two referenced only by a
 * finished run and `orphans` that nothing references.
 */
export async function seedMixedNamespace(seed: Seeder, namespace: string, orphans = 3): Promise<Scenario> {
  await seed.namespace(namespace);
  const meta = (name: string) => ({ name, namespace });
  await seed.create(gitResource(meta('keep-active'), 'a1'));
  await seed.create(pipelineRun('v1beta1', meta('build-running'), { resources: ['keep-active'] }), { state: 'running' });
  await seed.create(gitResource(meta('keep-pending'), 'a2'));
  await seed.create(pipelineRun('v1beta1', meta('build-pending'), { resources: ['keep-pending'], pending: true }), { state: 'pending' });
  await seed.create(imageResource(meta('keep-retrying'), 'a3'));
  await seed.create(taskRun('v1beta1', meta('push-retrying'), { inputs: [], outputs: ['keep-retrying'] }), { state: 'failed-retrying' });
  await seed.create(gitResource({ ...meta('keep-retained'), labels: { 'tekton-resource-gc.io/retain': 'true' } }, 'a4'));
  await seed.create(gitResource(meta('del-finished-a'), 'b1'));
  await seed.create(imageResource(meta('del-finished-b'), 'b2'));
  await seed.create(pipelineRun('v1beta1', meta('build-done'), { resources: ['del-finished-a', 'del-finished-b'] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
  const orphanNames = Array.from({ length: orphans }, (_, index) => `del-orphan-${String(index).padStart(2, '0')}`);
  for (const name of orphanNames) await seed.create(gitResource(meta(name), name));
  return {
    namespace,
    keep: ['keep-active', 'keep-pending', 'keep-retained', 'keep-retrying'],
    collectable: ['del-finished-a', 'del-finished-b', ...orphanNames].sort(),
  };
}

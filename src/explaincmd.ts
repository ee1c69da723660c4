/**
 * The `explain` command's I/O: one target, the runs of its namespace and the namespace
 * read, then the core's explanation of the decision. Beside sweep.ts, not in it: explain
 * reads one target and never deletes.
 */
import { settingOrigin, type Config, type TargetName } from './config.js';
import { explain, scopeVerdict, type Explanation } from './core/explain.js';
import type { Policy } from './core/types.js';
import type { KubeCluster, Scope } from './kube/cluster.js';
import type { SweepDeps } from './sweep.js';

export type ExplainOutcome = { kind: 'not-served' } | { kind: 'not-found' } | { kind: 'done'; explanation: Explanation };

/**
 * `explain`: reads the target, the runs of its namespace and the namespace (never a list
 * across the cluster), and whether the selector matches it; the decision is the core's.
 */
export async function explainTarget(config: Config, name: TargetName, deps: Pick<SweepDeps, 'now'> & { cluster: Pick<KubeCluster, 'discover' | 'readTarget' | 'listRuns' | 'readNamespaces' | 'targetMatches'> }): Promise<ExplainOutcome> {
  const apis = await deps.cluster.discover();
  if (apis === null) return { kind: 'not-served' };
  const target = await deps.cluster.readTarget(apis, name.namespace, name.name);
  if (target === null) return { kind: 'not-found' };
  const only: Scope = { namespaces: [name.namespace], excludeNamespaces: [], selector: '' };
  const runs = await deps.cluster.listRuns(apis, only);
  const namespaces = await deps.cluster.readNamespaces(only);
  const selectorMatches = await deps.cluster.targetMatches(apis, target, config.selector);
  const policy: Policy = { labelPrefix: config.labelPrefix, minAgeMs: config.minAgeMs, retainFor: config.retainFor };
  const scope = scopeVerdict(config, name.namespace, selectorMatches);
  const origins = { 'min-age': settingOrigin(config, 'min-age'), 'retain-for': settingOrigin(config, 'retain-for') };
  const explanation = explain({ target, runs, namespace: namespaces.get(name.namespace), scope, origins }, policy, deps.now());
  return { kind: 'done', explanation };
}

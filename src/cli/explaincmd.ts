/**
 * The `explain` command's I/O: one target, the runs of its namespace and the namespace
 * read, then the core's explanation of the decision. Beside sweep.ts, not in it: explain
 * reads one target and never deletes.
 */
import { passSettings, settingOrigin, type Config, type TargetName } from './config.js';
import { COLLECTORS } from '../core/collectors.js';
import { explain, scopeVerdict, type Explanation } from '../core/explain.js';
import type { KubeCluster, Scope } from '../kube/cluster.js';
import type { SweepDeps } from '../pass/sweep.js';

/** `not-served`: the kind cannot be explained on this cluster, and `why` says so in one line. */
export type ExplainOutcome = { kind: 'not-served'; why: string } | { kind: 'not-found' } | { kind: 'not-a-target'; why: string } | { kind: 'done'; explanation: Explanation };

/**
 * `explain`: reads the target, the runs of its namespace (and for a leftover its Pods and
 * StatefulSets, as its collector's rules read them) and the namespace, never a list across
 * the cluster, and whether the selector matches it; the decision is the core's.
 */
export async function explainTarget(
  config: Config,
  name: TargetName,
  deps: Pick<SweepDeps, 'now'> & { cluster: Pick<KubeCluster, 'discover' | 'readObject' | 'listRuns' | 'listPods' | 'listStatefulSets' | 'readNamespaces' | 'targetMatches'> },
): Promise<ExplainOutcome> {
  const collector = COLLECTORS[name.collector];
  const apis = await deps.cluster.discover([name.collector]);
  if (apis.targets[name.collector] === undefined) {
    return { kind: 'not-served', why: `${apis.skipped.map((skip) => skip.missing).join('; ')}: there is nothing to explain` };
  }
  const target = await deps.cluster.readObject(apis, name.namespace, name.name, collector.kind);
  if (target === 'absent') return { kind: 'not-found' };
  if (target === 'unmarked') {
    // Only objects with a collector's marker are ever targets (docs/spec.md): this one is never deleted.
    return { kind: 'not-a-target', why: `${collector.kind} ${name.namespace}/${name.name} is not a target of ${collector.name}: it does not carry its marker, so no pass decides for it or deletes it` };
  }
  const only: Scope = { namespaces: [name.namespace], excludeNamespaces: [], selector: '' };
  const runs = await deps.cluster.listRuns(apis, only);
  const pods = collector.reads.pods ? { pods: await deps.cluster.listPods(apis, only, [name.namespace]) } : {};
  const statefulSets = collector.reads.statefulSets ? { statefulSets: await deps.cluster.listStatefulSets(apis, only, [name.namespace]) } : {};
  const namespaces = await deps.cluster.readNamespaces(only);
  const { scope, policy } = passSettings(config);
  const selectorMatches = await deps.cluster.targetMatches(apis, target, scope.selector);
  const verdict = scopeVerdict(scope, name.namespace, selectorMatches);
  const origins = { 'min-age': settingOrigin(config, 'min-age'), 'retain-for': settingOrigin(config, 'retain-for') };
  const explanation = explain({ target, runs, ...pods, ...statefulSets, namespace: namespaces.get(name.namespace), scope: verdict, origins }, policy, deps.now());
  return { kind: 'done', explanation };
}

/**
 * The `explain` command's I/O: one target, the runs of its namespace and the namespace
 * read, then the core's explanation of the decision. Beside sweep.ts, not in it: explain
 * reads one target and never deletes.
 */
import { passSettings, settingOrigin, type Config, type TargetName } from './config.js';
import { COLLECTORS } from '../core/collectors.js';
import { explain, explainRun, scopeVerdict, type Explanation, type RunSettingOrigins } from '../core/explain.js';
import { runSelection } from '../core/labelselector.js';
import { readPrunerConfig, withPrunerPolicy, type PrunerConfig, type PrunerConfigMaps } from '../core/prunerconfig.js';
import type { KubeCluster, Scope, ServedApis } from '../kube/cluster.js';
import { readCluster, type SweepDeps } from '../pass/sweep.js';

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
  deps: ExplainDeps,
): Promise<ExplainOutcome> {
  const collector = COLLECTORS[name.collector];
  // A run is decided with what goes with it: the targets of every collector that is on (config.ts).
  const apis = await deps.cluster.discover(collector.decides === 'history' ? config.collect : [name.collector]);
  if (apis.targets[name.collector] === undefined) {
    return { kind: 'not-served', why: `${apis.skipped.map((skip) => skip.missing).join('; ')}: there is nothing to explain` };
  }
  if (collector.decides === 'history') return explainRunTarget(config, name, apis, deps);
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

type ExplainDeps = Pick<SweepDeps, 'now'> & { cluster: Pick<KubeCluster, 'discover' | 'readObject' | 'listTargets' | 'listRuns' | 'listRetainedOwned' | 'listPods' | 'listStatefulSets' | 'readNamespaces' | 'targetMatches' | 'readPrunerConfigMaps'> };

/** pruner's ConfigMaps as read; one that cannot be read ends explain with its one line, as it ends a pass. */
function prunerPolicies(maps: PrunerConfigMaps): PrunerConfig {
  const read = readPrunerConfig(maps);
  if (!read.ok) throw new Error(read.error);
  return read.config;
}

/**
 * A run: its namespace read as a pass reads it (pass/sweep.ts readCluster: the targets of the
 * collectors that are on, the runs as targets with their TaskRuns' census, the Pods and
 * StatefulSets the leftovers' rules read, the namespace), and the run decided by the pass's
 * own path (explain.ts explainRun): its history is its namespace's, and what goes with it is
 * its namespace's too. A TaskRun a PipelineRun owns is no target: it goes with its parent,
 * which explain names.
 */
async function explainRunTarget(config: Config, name: TargetName, apis: ServedApis, deps: ExplainDeps): Promise<ExplainOutcome> {
  const { kind } = COLLECTORS[name.collector];
  const { scope, policy: flagged, prunerConfig } = passSettings(config);
  const only: Scope = { namespaces: [name.namespace], excludeNamespaces: [], selector: '' };
  // --pruner-config: pruner's global ConfigMap and the run's namespace's, as a pass reads them.
  const policy = prunerConfig === undefined ? flagged : withPrunerPolicy(flagged, prunerPolicies(await deps.cluster.readPrunerConfigMaps(prunerConfig, only)));
  const labelledOnly = new Map<string, string>();
  const { view } = (await readCluster(deps, apis, only, { recheck: false, policy, explain: { labelledOnly } })).listed;
  const target = view.targets.find((one) => one.kind === kind && one.name === name.name);
  if (target === undefined) {
    const parent = view.runs.find((run) => run.kind === kind && run.name === name.name)?.parentPipelineRun;
    const labelled = labelledOnly.get(`${kind}/${name.namespace}/${name.name}`);
    if (parent !== undefined) {
      return {
        kind: 'not-a-target',
        why: `${kind} ${name.namespace}/${name.name} is not a target of ${name.collector}: it goes with its PipelineRun ${name.namespace}/${parent.name}; explain pipelinerun/${name.namespace}/${parent.name}`,
      };
    }
    if (labelled === undefined) return { kind: 'not-found' };
    return {
      kind: 'not-a-target',
      why: `${kind} ${name.namespace}/${name.name} is not a target of ${name.collector}: no PipelineRun owns it, but its tekton.dev/pipelineRun label names PipelineRun ${name.namespace}/${labelled}, so it is taken for that run's and never deleted alone (delete it by hand once no run of that name is running)`,
    };
  }
  // --selector picks the runs a pass decides and may delete, by the labels the listing kept for it
  // (core/labelselector.ts); the run is decided all the same, ranked among its whole group.
  const selects = runSelection(policy.runs?.selector);
  const verdict = scopeVerdict(scope, name.namespace, selects === undefined || selects(target.labels));
  const origins: RunSettingOrigins = {
    'min-age': settingOrigin(config, 'min-age'),
    'retain-for': settingOrigin(config, 'retain-for'),
    keep: settingOrigin(config, 'keep'),
    'keep-successful': settingOrigin(config, 'keep-successful'),
    'keep-failed': settingOrigin(config, 'keep-failed'),
    'run-ttl': settingOrigin(config, 'run-ttl'),
  };
  const explanation = explainRun({ target, view, scope: verdict, origins }, policy, deps.now());
  return { kind: 'done', explanation };
}

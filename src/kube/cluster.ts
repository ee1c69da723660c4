import { COLLECTORS, COLLECTOR_NAMES, DEFAULT_COLLECTORS, collectorOf, type Collector, type CollectorName } from '../core/collectors.js';
import { toPodRecord, toStatefulSetRecord } from '../core/holders.js';
import { RUN_KINDS, RUN_KIND_NAMES, RUN_OWNED_KINDS, TARGET_KIND, preferredRunVersion } from '../core/kinds.js';
import type { PassedOverRuns } from '../core/needed.js';
import { isActive, toNamespaceRecord, toRunRecord, unreadRunMember } from '../core/runs.js';
import { readTaskRunExtras, toRetainedOwned, type ChildRunReading } from '../core/cascade.js';
import { labelledPipelineRun, toRunTarget, type RunTargetReading } from '../core/runtargets.js';
import type { PrunerConfigMaps } from '../core/prunerconfig.js';
import { isExcluded } from '../core/scope.js';
import type { NamespaceRecord, PodRecord, RetainedOwnedRecord, RunKindName, RunRecord, StatefulSetRecord, TargetRecord } from '../core/types.js';
import {
  deleteUnlessChanged,
  getObject,
  listAll,
  removeFinalizer,
  resourceName,
  servedPlurals,
  servedResources,
  type ApiResource,
  type DeleteOutcome,
  type Remaining,
} from './api.js';
import { KubeError } from './errors.js';
import type { KubeHttp } from './http.js';
import type { OmitMember } from './listbody.js';
import { readPrunerConfigMaps } from './prunerconfig.js';

/**
 * Which namespaces a pass looks at, and which targets. The namespaces are an intersection:
 * those named (all when none are), that the namespace selector matches (when there is one),
 * less the excluded ones, which always win.
 */
export interface Scope {
  /** Empty: all namespaces. */
  namespaces: readonly string[];
  excludeNamespaces: readonly string[];
  /** Label selector on targets. */
  selector: string;
  /** Label selector on Namespaces (a shard of the cluster); absent or empty: none. */
  namespaceSelector?: string;
}

/** The versions this server serves that the collector reads through. */
export interface ServedApis {
  /** Where each collector that is on and can run here lists and deletes its targets; one that cannot has no entry. */
  targets: Partial<Record<CollectorName, ApiResource>>;
  /** A run kind the server does not serve at all has no entry: it has no runs. */
  runs: Partial<Record<RunKindName, { resource: ApiResource }>>;
  /** Where the holders of leftovers are listed: present only when a collector that runs reads them. */
  pods?: ApiResource;
  statefulSets?: ApiResource;
  /** A leftover collector runs: runs are read with what links them to leftovers (toRunRecord's `leftovers`). */
  leftovers: boolean;
  /**
   * With a run collector on: the kinds a run owns that this server serves (core/kinds.ts
   * RUN_OWNED_KINDS), listed by the retain label (listRetainedOwned) whatever collectors are on.
   */
  runOwned?: { kind: string; resource: ApiResource }[];
  /**
   * Collectors that are on but cannot run on this cluster, and the line that says why (one line
   * for several); `missing` is its first part, what this cluster does not serve.
   */
  skipped: { collectors: CollectorName[]; missing: string; why: string }[];
}

/** What the DELETE of a target left: `terminating` when the object remains, with what remains of it. */
export interface TargetDeleteOutcome {
  outcome: DeleteOutcome | 'terminating';
  /** Set with `terminating`: the object's resourceVersion and finalizers after the DELETE. */
  remaining?: Remaining;
}

/** `a is not served by this cluster`, `a and b are not served by this cluster`. */
function notServed(apis: readonly string[]): string {
  return `${apis.join(' and ')} ${apis.length === 1 ? 'is' : 'are'} not served by this cluster`;
}

/** The finalizer the API server puts on every claim, and that kube-controller-manager removes once no Pod uses it. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

/** Above this many namespaces with candidates, one cluster-wide re-check beats one per namespace. */
const PER_NAMESPACE_RECHECK_LIMIT = 10;

/**
 * The first read of a pass lists one namespace at a time while the namespaces it wants are at
 * most this share of those a list across the cluster covers, and across the cluster above it.
 * Measured (bench/RESULTS.md, "Skewed clusters"; `npm run bench -- --shape skew --crossover`):
 * reading k of 200 namespaces of runs one by one cost about k/200 of the list across the
 * cluster plus about a millisecond per request, so it won up to 70% of the namespaces with 10
 * runs in each, up to 95% with 125, and at every share with 500 (watch cache off).
 */
export const PER_NAMESPACE_READ_SHARE = 0.75;

/**
 * Whether to read `wanted` namespaces one by one rather than in one list across the
 * `clusterWide` namespaces such a list covers: a list across the cluster reads every
 * namespace's objects, one by one only the wanted ones, for one request more per namespace.
 */
export function readsPerNamespace(wanted: number, clusterWide: number): boolean {
  return wanted <= 1 || wanted <= PER_NAMESPACE_READ_SHARE * clusterWide;
}

const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/**
 * A metadata-only collector's lists (Secrets) and single objects: no fallback to full objects, so
 * a server that cannot answer with metadata alone refuses (406) rather than send a Secret's data.
 */
export const METADATA_LIST_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
export const METADATA_OBJECT_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

const PODS: ApiResource = { group: '', version: 'v1', plural: 'pods' };
const STATEFULSETS: ApiResource = { group: 'apps', version: 'v1', plural: 'statefulsets' };

const NAMESPACES: ApiResource = { group: '', version: 'v1', plural: 'namespaces' };

/**
 * The collector's view of a cluster: discovery, paged lists turned into compact records,
 * the re-check before deleting, and guarded deletes. No decisions are made here.
 */
export class KubeCluster {
  /** namespacesAcrossCluster's count: a measure for choosing how to list, not a fact a decision stands on. */
  private clusterNamespaceCount: Promise<number> | undefined;

  constructor(
    private readonly http: KubeHttp,
    private readonly pageSize: number,
  ) {}

  /**
   * What of `collect` this server serves, collector by collector in the same way: one whose
   * kind, or a holder kind its rules read, is not served is skipped, and so is one whose
   * targets have an owner run (`ownerRun`) when a run kind is not served: a run that cannot be
   * read would make its targets look ownerless. Tekton serves PipelineResources and runs in
   * one group, so one discovery answers both (all a pass over PipelineResources asks); other
   * groups are asked only for a collector that lists there.
   */
  async discover(collect: readonly CollectorName[] = DEFAULT_COLLECTORS): Promise<ServedApis> {
    const served = await servedResources(this.http, TARGET_KIND.group);
    const runs: ServedApis['runs'] = {};
    for (const kind of RUN_KIND_NAMES) {
      const { group, plural } = RUN_KINDS[kind];
      const versions = [...served].filter(([, plurals]) => plurals.has(plural)).map(([version]) => version);
      const version = preferredRunVersion(kind, versions);
      if (version !== undefined) {
        runs[kind] = { resource: { group, version, plural } };
      }
    }
    const apis: ServedApis = { targets: {}, runs, leftovers: false, skipped: [] };
    // tekton.dev is known already: asked again only for the versions it does not serve.
    const plurals = new Map<string, Promise<Set<string>>>([...served].map(([version, known]) => [`${TARGET_KIND.group}/${version}`, Promise.resolve(known)]));
    const isServed = async (resource: ApiResource): Promise<boolean> => {
      const key = `${resource.group}/${resource.version}`;
      let known = plurals.get(key);
      if (known === undefined) {
        known = resource.group === TARGET_KIND.group ? Promise.resolve(new Set<string>()) : servedPlurals(this.http, resource);
        plurals.set(key, known);
      }
      return (await known).has(resource.plural);
    };
    const on = COLLECTOR_NAMES.filter((name) => collect.includes(name));
    const noRuns = RUN_KIND_NAMES.filter((kind) => apis.runs[kind] === undefined).map((kind) => `${RUN_KINDS[kind].plural}.${RUN_KINDS[kind].group}`);
    const ownerless = noRuns.length === 0 ? [] : on.filter((name) => COLLECTORS[name].ownerRun);
    for (const name of on) {
      const collector = COLLECTORS[name];
      if (ownerless.includes(name)) {
        // One line for all of them, where the first of them would stand.
        if (name === ownerless[0]) apis.skipped.push({ collectors: [...ownerless], missing: notServed(noRuns), why: `${notServed(noRuns)}: ${ownerless.join(', ')} skipped, since without runs every leftover would look ownerless` });
        continue;
      }
      if (collector.decides === 'history') {
        // A run collector deletes through the version the run listing reads (its targets are those runs).
        const kind = collector.kind as RunKindName;
        const runs = apis.runs[kind];
        if (runs === undefined) {
          const missing = notServed([`${RUN_KINDS[kind].plural}.${RUN_KINDS[kind].group}`]);
          apis.skipped.push({ collectors: [name], missing, why: `${missing}: ${name} skipped` });
        } else {
          apis.targets[name] = runs.resource;
        }
        continue;
      }
      const resource = apiResource(collector);
      const unserved = [
        ...((await isServed(resource)) ? [] : [resource]),
        ...(collector.reads.pods && !(await isServed(PODS)) ? [PODS] : []),
        ...(collector.reads.statefulSets && !(await isServed(STATEFULSETS)) ? [STATEFULSETS] : []),
      ];
      if (unserved.length > 0) {
        const missing = notServed(unserved.map((api) => `${resourceName(api)}/${api.version}`));
        apis.skipped.push({ collectors: [name], missing, why: `${missing}: ${name} skipped` });
        continue;
      }
      apis.targets[name] = resource;
      if (collector.ownerRun) apis.leftovers = true;
      if (collector.reads.pods) apis.pods = PODS;
      if (collector.reads.statefulSets) apis.statefulSets = STATEFULSETS;
    }
    if (on.some((name) => COLLECTORS[name].decides === 'history' && apis.targets[name] !== undefined)) {
      const runOwned: { kind: string; resource: ApiResource }[] = [];
      for (const { kind, api } of RUN_OWNED_KINDS) if (await isServed(api)) runOwned.push({ kind, resource: api });
      apis.runOwned = runOwned;
    }
    return apis;
  }

  /**
   * The targets in scope of every collector that runs, in COLLECTOR_NAMES order; with a
   * namespace selector, only in the namespaces it matches. Each collector's objects go
   * through its toRecord: those without its marker are no targets and are dropped.
   */
  async listTargets(apis: ServedApis, scope: Scope): Promise<TargetRecord[]> {
    const selected = hasNamespaceSelector(scope) ? await this.selectNamespaces(scope) : undefined;
    const targets: TargetRecord[] = [];
    for (const name of COLLECTOR_NAMES) {
      const resource = apis.targets[name];
      const collector = COLLECTORS[name];
      // A run collector's targets come with the run listing (listRuns' `runTargets`): runs are listed once.
      if (resource === undefined || collector.decides === 'history') continue;
      const labelSelector = bothSelectors(collector.listLabelSelector, scope.selector);
      const accept = collector.metadataOnly ? { accept: METADATA_LIST_ONLY } : {};
      const toRecord = (item: unknown): TargetRecord | null => collector.toRecord(item);
      let records: (TargetRecord | null)[];
      if (selected !== undefined) {
        records = await this.listIn(resource, { namespaces: selected, scope, labelSelector, ...accept }, toRecord, namespaceOf);
      } else {
        const lists = await this.inScope(scope, (namespace, fieldSelector) =>
          listAll(this.http, resource, { namespace, fieldSelector, labelSelector, pageSize: this.pageSize, ...accept }, toRecord),
        );
        records = lists.flatMap((list) => list.records);
      }
      // One push per record: a spread of tens of thousands overflows the call stack.
      for (const record of records) if (record !== null) targets.push(record);
    }
    return targets;
  }

  /**
   * With a run collector on, the objects of the kinds a run owns (apis.runOwned) that carry
   * the retain label `retainKey` with any value but "false" and name an owner: one list per
   * kind, selected by that label and answered as metadata only (never a Secret's data), in
   * `namespaces` or, when none are given, in every namespace in scope. Only the label can be
   * selected on: a retain annotation is seen only on the targets of a collector that is on
   * (docs/spec.md, "What goes with a run"; the cost, docs/scale.md).
   */
  async listRetainedOwned(apis: ServedApis, scope: Scope, retainKey: string, namespaces?: readonly string[]): Promise<RetainedOwnedRecord[]> {
    const labelSelector = `${retainKey},${retainKey}!=false`;
    const where = namespaces ?? (hasNamespaceSelector(scope) ? await this.selectNamespaces(scope) : undefined);
    const found: RetainedOwnedRecord[] = [];
    for (const { kind, resource } of apis.runOwned ?? []) {
      const toRecord = (item: unknown): RetainedOwnedRecord | null => toRetainedOwned(item, kind, retainKey);
      const lists =
        where === undefined
          ? (await this.inScope(scope, (namespace, fieldSelector) => listAll(this.http, resource, { namespace, fieldSelector, labelSelector, pageSize: this.pageSize, accept: METADATA_LIST_ONLY }, toRecord))).map((list) => list.records)
          : [await this.listIn(resource, { namespaces: where, scope, labelSelector, accept: METADATA_LIST_ONLY }, toRecord, namespaceOf)];
      for (const list of lists) for (const record of list) if (record !== null) found.push(record);
    }
    return found;
  }

  /**
   * The Pods (with what they use) in `namespaces`: those that hold leftovers' targets, for the
   * first read of a pass (as listRuns reads), or (`recheck`) those with candidates, for a
   * re-check or a purge. Empty when no collector that runs reads Pods.
   */
  async listPods(apis: ServedApis, scope: Scope, namespaces: readonly string[], how: { recheck?: boolean } = {}): Promise<PodRecord[]> {
    return this.listHolders(apis.pods, scope, namespaces, how, toPodRecord);
  }

  /**
   * The claims of workspace-pvcs in `namespaces`, listed again for a re-check: their `Unused`
   * condition may have turned False since the listing. Empty when that collector does not run.
   */
  async listClaims(apis: ServedApis, scope: Scope, namespaces: readonly string[]): Promise<TargetRecord[]> {
    const resource = apis.targets['workspace-pvcs'];
    if (resource === undefined || namespaces.length === 0) return [];
    const wanted = new Set(namespaces);
    const records = await this.listInNamespaces(resource, namespaces, scope, undefined, COLLECTORS['workspace-pvcs'].toRecord);
    return records.filter((record): record is TargetRecord => record !== null && wanted.has(record.namespace));
  }

  /** The StatefulSets (with the claims they name) in `namespaces`, as listPods reads Pods. */
  async listStatefulSets(apis: ServedApis, scope: Scope, namespaces: readonly string[], how: { recheck?: boolean } = {}): Promise<StatefulSetRecord[]> {
    return this.listHolders(apis.statefulSets, scope, namespaces, how, toStatefulSetRecord);
  }

  private async listHolders<T extends { namespace: string }>(
    resource: ApiResource | undefined,
    scope: Scope,
    namespaces: readonly string[],
    how: { recheck?: boolean },
    toRecord: (item: unknown) => T,
  ): Promise<T[]> {
    if (resource === undefined || namespaces.length === 0) return [];
    if (how.recheck !== true) return this.listIn(resource, { namespaces, scope }, toRecord);
    const wanted = new Set(namespaces);
    return (await this.listInNamespaces(resource, namespaces, scope, undefined, toRecord)).filter((record) => wanted.has(record.namespace));
  }

  /**
   * The runs in `namespaces` (those that hold targets in scope; a run names targets in its own
   * namespace only, so runs elsewhere cannot change a decision), or in every namespace in
   * scope when none are given. The lists go one namespace at a time or across the cluster,
   * as readsPerNamespace weighs them; what a list across the cluster brings from other
   * namespaces is dropped. With `passedOver`, only the runs it keeps are answered; it counts
   * the others.
   */
  async listRuns(apis: ServedApis, scope: Scope, namespaces?: readonly string[], passedOver?: PassedOverRuns, runTargets?: RunTargetSink): Promise<RunRecord[]> {
    const where = namespaces ?? (hasNamespaceSelector(scope) ? await this.selectNamespaces(scope) : undefined);
    const wanted = where === undefined ? undefined : new Set(where);
    const runs: RunRecord[] = [];
    for (const kind of RUN_KIND_NAMES) {
      const served = apis.runs[kind];
      if (served === undefined) {
        continue;
      }
      // Dropped as its page is read (undefined here), never held with the others: a run of
      // another namespace (a list across the cluster brings them; not counted), and one the
      // pass passes over (core/needed.ts; counted).
      const asTargets = runTargets !== undefined && collectsRunKind(apis, kind);
      const toRecord = (item: unknown): RunRecord | undefined => {
        const run = toRunRecord(item, kind, {
          leftovers: apis.leftovers,
          ...(passedOver?.strings !== undefined && { strings: passedOver.strings }),
          ...(passedOver?.releasing !== undefined && { releasing: passedOver.releasing }),
        });
        if (wanted !== undefined && run.namespace !== '' && !wanted.has(run.namespace)) return undefined;
        // The run as a target of its own collector, from the same object, before the graph may pass it over.
        if (asTargets) {
          const target = toRunTarget(item, run, runTargets.reading);
          if (target !== null) runTargets.targets.push(target);
          else if (runTargets.labelledOnly !== undefined && run.parentPipelineRun === undefined) {
            const pipelineRun = labelledPipelineRun(item);
            if (pipelineRun !== undefined) runTargets.labelledOnly.set(`${kind}/${run.namespace}/${run.name}`, pipelineRun);
          }
        }
        // What goes with each run is counted here, as the TaskRuns and child PipelineRuns go by: none of them is kept for it (core/cascade.ts).
        if ((kind === 'TaskRun' || run.parentPipelineRun !== undefined) && runTargets?.children !== undefined && run.namespace !== '') runTargets.children.add(childRunReading(item, run, runTargets.children.retainKey));
        return passedOver === undefined || passedOver.keeps(run) ? run : undefined;
      };
      const records =
        where === undefined
          ? (await this.inScope(scope, (namespace, fieldSelector) => listAll(this.http, served.resource, { namespace, fieldSelector, pageSize: this.pageSize, omit: unreadRunMember }, toRecord))).map(
              (list) => list.records,
            )
          : [await this.listIn(served.resource, { namespaces: where, scope, omit: unreadRunMember }, toRecord, (run) => run?.namespace)];
      // One push per record: a spread of 150,000 records overflows the call stack.
      for (const list of records) {
        for (const run of list) if (run !== undefined) runs.push(run);
      }
    }
    return runs;
  }

  /**
   * The namespaces the namespace selector matches, by the API server's reading of it (a list
   * of Namespaces with labelSelector: cluster-scope `list namespaces`), within the named ones
   * when some are named, less the excluded ones; sorted.
   */
  async selectNamespaces(scope: Scope): Promise<string[]> {
    const list = await listAll(this.http, NAMESPACES, { namespace: '', labelSelector: scope.namespaceSelector ?? '', pageSize: this.pageSize }, identityOf);
    const named = new Set(scope.namespaces);
    return list.records
      .map((namespace) => namespace.name)
      .filter((name) => (named.size === 0 || named.has(name)) && !isExcluded(scope, name))
      .sort();
  }

  /**
   * `--pruner-config`: tektoncd/pruner's ConfigMaps, the global one in `systemNamespace` and the
   * namespace ones in `scope` (kube/prunerconfig.ts); with a namespace selector, only those of
   * the namespaces it selects, so that one shard never fails on another's.
   */
  async readPrunerConfigMaps(systemNamespace: string, scope: Scope): Promise<PrunerConfigMaps> {
    const selected = hasNamespaceSelector(scope) ? new Set(await this.selectNamespaces(scope)) : undefined;
    return readPrunerConfigMaps(this.http, this.pageSize, systemNamespace, scope, selected);
  }

  /** The namespaces whose labels the decision needs: all of them, or the named ones that exist. */
  async readNamespaces(scope: Scope): Promise<Map<string, NamespaceRecord>> {
    const records: NamespaceRecord[] = [];
    if (scope.namespaces.length === 0) {
      const list = await listAll(this.http, NAMESPACES, { namespace: '', pageSize: this.pageSize }, toNamespaceRecord);
      records.push(...list.records);
    } else {
      // Excluded namespaces are never looked at, so their labels are not needed (nor readable
      // under the chart's least-privilege RBAC).
      for (const name of scope.namespaces.filter((namespace) => !isExcluded(scope, namespace))) {
        const namespace = await getObject(this.http, NAMESPACES, '', name);
        if (namespace !== null) {
          records.push(toNamespaceRecord(namespace));
        }
      }
    }
    return new Map(records.map((record) => [record.name, record]));
  }

  /**
   * The runs in `namespaces` that are new or changed compared with `listed`, and the uids
   * of listed runs that are gone. Costs a few lists per kind, never a request per run: a
   * metadata-only list finds the namespaces where anything changed, and only those are
   * listed again in full (one by one when few, else once across the cluster). `scope`
   * keeps the reads inside what the pass may read: named namespaces are always read one
   * by one. The caller dates the answer by when it called, before the first read.
   * `passedOver`: the resourceVersions, by uid, of runs the listing read and did not keep.
   */
  async runsChangedSince(
    apis: ServedApis,
    listed: readonly RunRecord[],
    namespaces: readonly string[],
    scope: Scope,
    passedOver?: ReadonlyMap<string, string>,
    runTargets?: { reading: RunTargetReading; listed: readonly TargetRecord[] },
  ): Promise<{ changed: RunRecord[]; goneUids: Set<string>; changedTargets: TargetRecord[] }> {
    const wanted = new Set(namespaces);
    const changed: RunRecord[] = [];
    const changedTargets: TargetRecord[] = [];
    const goneUids = new Set<string>();
    for (const kind of RUN_KIND_NAMES) {
      const served = apis.runs[kind];
      if (served === undefined) {
        continue;
      }
      const asTargets = runTargets !== undefined && collectsRunKind(apis, kind);
      const keptOfKind = listed.filter((run) => run.kind === kind && wanted.has(run.namespace));
      // A run target the graph passed over is listed too: that it is gone or changed counts as well.
      const kept = new Set(keptOfKind.map((run) => run.uid));
      const targetsOfKind = asTargets ? runTargets.listed.filter((target) => target.kind === kind && wanted.has(target.namespace) && !kept.has(target.uid)) : [];
      const listedOfKind: readonly Pick<RunRecord, 'uid' | 'namespace' | 'resourceVersion'>[] = [...keptOfKind, ...targetsOfKind];
      const listedVersions = new Map(listedOfKind.map((run) => [run.uid, run.resourceVersion]));
      const metadata = (await this.listInNamespaces(served.resource, namespaces, scope, METADATA_ONLY, identityOf)).filter((item) =>
        wanted.has(item.namespace),
      );
      const seen = new Set(metadata.map((item) => item.uid));
      for (const run of listedOfKind) {
        if (!seen.has(run.uid)) goneUids.add(run.uid);
      }
      // A run the listing passed over (PassedOverRuns) is not new: unchanged, it changes nothing.
      const versionOf = (uid: string): string | undefined => listedVersions.get(uid) ?? passedOver?.get(uid);
      const touched = [...new Set(metadata.filter((item) => versionOf(item.uid) !== item.resourceVersion).map((item) => item.namespace))];
      if (touched.length === 0) {
        continue;
      }
      // Read after the metadata, so at least as new: it decides for the namespaces it covers.
      const touchedSet = new Set(touched);
      const toRecords = (item: unknown): { run: RunRecord; target: TargetRecord | null } => {
        const run = toRunRecord(item, kind, { leftovers: apis.leftovers });
        return { run, target: asTargets ? toRunTarget(item, run, runTargets.reading) : null };
      };
      const current = (await this.listInNamespaces(served.resource, touched, scope, undefined, toRecords)).filter(({ run }) => touchedSet.has(run.namespace));
      const present = new Set(current.map(({ run }) => run.uid));
      for (const { run, target } of current) {
        if (versionOf(run.uid) === run.resourceVersion) continue;
        changed.push(run);
        if (target !== null) changedTargets.push(target);
      }
      for (const run of listedOfKind) {
        if (touchedSet.has(run.namespace) && !present.has(run.uid)) goneUids.add(run.uid);
      }
    }
    return { changed, goneUids, changedTargets };
  }

  /**
   * The runs, of the kinds given that are served (both unless told), named `name` in `namespace`:
   * their metadata only, one GET per kind. What a delete reads last of a target a rerun by name
   * would find (core/reruns.ts).
   */
  async runsNamed(apis: ServedApis, namespace: string, name: string, kinds: readonly RunKindName[] = RUN_KIND_NAMES): Promise<ObjectIdentity[]> {
    const found: ObjectIdentity[] = [];
    for (const kind of kinds) {
      const served = apis.runs[kind];
      if (served === undefined) continue;
      const object = await getObject(this.http, served.resource, namespace, name, METADATA_OBJECT_ONLY);
      if (object !== null) found.push(identityOf(object));
    }
    return found;
  }

  /**
   * The uid of the kube-system Namespace: what names this cluster however it is reached.
   * undefined when it cannot be read (this identity may not get it).
   */
  async clusterId(): Promise<string | undefined> {
    try {
      const namespace = await getObject(this.http, NAMESPACES, '', 'kube-system');
      const uid = (namespace as { metadata?: { uid?: unknown } } | null)?.metadata?.uid;
      return typeof uid === 'string' && uid !== '' ? uid : undefined;
    } catch (error) {
      if (error instanceof KubeError && error.status === 403) return undefined;
      throw error;
    }
  }

  /**
   * One target by kind and name (explain, and a delete whose answer was lost); null when it
   * does not exist, or exists without its collector's marker (it is no target).
   */
  async readTarget(apis: ServedApis, namespace: string, name: string, kind: TargetRecord['kind']): Promise<TargetRecord | null> {
    const read = await this.readObject(apis, namespace, name, kind);
    return read === 'absent' || read === 'unmarked' ? null : read;
  }

  /** One object of a target kind by name: the target, `unmarked` when it has no marker of its collector, `absent` when there is none. */
  async readObject(apis: ServedApis, namespace: string, name: string, kind: TargetRecord['kind']): Promise<TargetRecord | 'unmarked' | 'absent'> {
    const collector = collectorOf(kind);
    const object = await getObject(this.http, servedFor(apis, collector), namespace, name, collector.metadataOnly ? METADATA_OBJECT_ONLY : undefined);
    if (object === null) return 'absent';
    return collector.toRecord(object) ?? 'unmarked';
  }

  /**
   * Whether the label selector matches the target, as the API server reads the selector (with
   * the collector's own selector, as its lists carry it).
   */
  async targetMatches(apis: ServedApis, target: Pick<TargetRecord, 'kind' | 'namespace' | 'name'>, selector: string): Promise<boolean> {
    if (selector === '') return true;
    const collector = collectorOf(target.kind);
    const fieldSelector = `metadata.name=${target.name}`;
    const labelSelector = bothSelectors(collector.listLabelSelector, selector);
    const accept = collector.metadataOnly ? { accept: METADATA_LIST_ONLY } : {};
    const list = await listAll(this.http, servedFor(apis, collector), { namespace: target.namespace, fieldSelector, labelSelector, pageSize: 1, ...accept }, identityOf);
    return list.records.length > 0;
  }

  /**
   * One attempt (`attempt` counts the caller's tries): a refused delete throws, and is not
   * retried here. One DELETE for every kind: its answer says whether the object remains
   * (`terminating`: a claim whose finalizer waits for its Pods, or any target another
   * controller's finalizer holds).
   */
  async deleteTarget(apis: ServedApis, target: TargetRecord, attempt = 1): Promise<TargetDeleteOutcome> {
    const collector = collectorOf(target.kind);
    const resource = servedFor(apis, collector);
    const preconditions = { uid: target.uid, resourceVersion: target.resourceVersion };
    const answer = await deleteUnlessChanged(this.http, resource, target, { preconditions, attempt, ...(collector.metadataOnly && { accept: METADATA_OBJECT_ONLY }) });
    return answer.remaining === undefined ? { outcome: answer.outcome } : { outcome: 'terminating', remaining: answer.remaining };
  }

  /**
   * Removes `kubernetes.io/pvc-protection` from a Terminating claim, guarded by its uid, the
   * resourceVersion it was last seen with and the finalizer's index: `deleted` once no finalizer
   * is left, `terminating` while others are (they are never touched), `changed` when the claim
   * is no longer as seen, `gone` when it vanished. The caller has made sure no Pod still runs
   * with it.
   */
  async purgeClaimProtection(apis: ServedApis, target: Pick<TargetRecord, 'kind' | 'namespace' | 'name' | 'uid'>, seen: Remaining): Promise<TargetDeleteOutcome> {
    const index = seen.finalizers.indexOf(PVC_PROTECTION_FINALIZER);
    if (index === -1) return { outcome: 'terminating', remaining: seen };
    const resource = servedFor(apis, collectorOf(target.kind));
    const purged = await removeFinalizer(this.http, resource, target, { uid: target.uid, resourceVersion: seen.resourceVersion, finalizer: PVC_PROTECTION_FINALIZER, index });
    if (purged.outcome !== 'removed') return { outcome: purged.outcome };
    return purged.remaining === undefined ? { outcome: 'deleted' } : { outcome: 'terminating', remaining: purged.remaining };
  }

  /**
   * Every object of `resource` in `namespaces` for a re-check: one list per namespace when
   * the scope names its namespaces (that may be all this identity can read, as with the
   * chart's Roles) or when they are few, else one list across the cluster less the excluded
   * namespaces (the caller drops what lies outside `namespaces`).
   */
  private async listInNamespaces<T>(
    resource: ApiResource,
    namespaces: readonly string[],
    scope: Scope,
    accept: string | undefined,
    toRecord: (item: unknown) => T,
  ): Promise<T[]> {
    const perNamespace = scope.namespaces.length > 0 || namespaces.length <= PER_NAMESPACE_RECHECK_LIMIT;
    return this.listEach(resource, { namespaces, scope, perNamespace, ...(accept !== undefined && { accept }) }, toRecord, () => true);
  }

  /**
   * Every object of `resource` in `where.namespaces` for the first read of a pass: one list
   * per namespace when the scope names its namespaces (Roles in them may be all this identity
   * has) or when readsPerNamespace says so, else one list across the cluster less the
   * excluded namespaces, of which only what lies in `where.namespaces` is kept (and what has no
   * namespace: a run whose namespace cannot be read counts against every namespace).
   */
  private async listIn<T extends { namespace: string }>(
    resource: ApiResource,
    where: { namespaces: readonly string[]; scope: Scope; labelSelector?: string; accept?: string; omit?: OmitMember },
    toRecord: (item: unknown) => T,
  ): Promise<T[]>;
  private async listIn<T>(
    resource: ApiResource,
    where: { namespaces: readonly string[]; scope: Scope; labelSelector?: string; accept?: string; omit?: OmitMember },
    toRecord: (item: unknown) => T,
    namespaceOfRecord: (record: T) => string | undefined,
  ): Promise<T[]>;
  private async listIn<T>(
    resource: ApiResource,
    where: { namespaces: readonly string[]; scope: Scope; labelSelector?: string; accept?: string; omit?: OmitMember },
    toRecord: (item: unknown) => T,
    namespaceOfRecord: (record: T) => string | undefined = (record) => (record as { namespace: string }).namespace,
  ): Promise<T[]> {
    const { namespaces, scope } = where;
    if (namespaces.length === 0) return [];
    const perNamespace = scope.namespaces.length > 0 || readsPerNamespace(namespaces.length, await this.namespacesAcrossCluster(scope));
    const wanted = new Set(namespaces);
    return this.listEach(resource, { ...where, perNamespace }, toRecord, (record) => {
      if (perNamespace) return true;
      const namespace = namespaceOfRecord(record);
      return namespace === undefined || namespace === '' || wanted.has(namespace);
    });
  }

  /** The lists themselves: one per namespace, or one across the cluster less the excluded namespaces; `keep` picks the records. */
  private async listEach<T>(
    resource: ApiResource,
    how: { namespaces: readonly string[]; scope: Scope; perNamespace: boolean; labelSelector?: string; accept?: string; omit?: OmitMember },
    toRecord: (item: unknown) => T,
    keep: (record: T) => boolean,
  ): Promise<T[]> {
    const fieldSelector = how.perNamespace ? '' : excludedNamespacesSelector(how.scope);
    const records: T[] = [];
    for (const namespace of how.perNamespace ? how.namespaces : ['']) {
      const options = {
        namespace,
        fieldSelector,
        pageSize: this.pageSize,
        ...(how.labelSelector !== undefined && { labelSelector: how.labelSelector }),
        ...(how.accept !== undefined && { accept: how.accept }),
        ...(how.omit !== undefined && { omit: how.omit }),
      };
      const list = await listAll(this.http, resource, options, toRecord);
      // One push per record: a spread of 150,000 records overflows the call stack.
      for (const record of list.records) if (keep(record)) records.push(record);
    }
    return records;
  }

  /** How many namespaces a list across the cluster less the excluded ones covers; counted once per KubeCluster. */
  private namespacesAcrossCluster(scope: Scope): Promise<number> {
    this.clusterNamespaceCount ??= listAll(this.http, NAMESPACES, { namespace: '', pageSize: this.pageSize }, identityOf).then(
      (list) => list.records.filter((namespace) => !isExcluded(scope, namespace.name)).length,
    );
    return this.clusterNamespaceCount;
  }

  /** One list per named namespace, or one across all namespaces less the excluded ones. */
  private async inScope<T>(scope: Scope, list: (namespace: string, fieldSelector: string) => Promise<T>): Promise<T[]> {
    if (scope.namespaces.length > 0) {
      const results: T[] = [];
      for (const namespace of scope.namespaces.filter((name) => !isExcluded(scope, name))) {
        results.push(await list(namespace, ''));
      }
      return results;
    }
    return [await list('', excludedNamespacesSelector(scope))];
  }
}

/** Where listRuns puts the runs that are targets of a run collector that is on, read as `reading` says, and the census of their children. */
export interface RunTargetSink {
  reading: RunTargetReading;
  targets: TargetRecord[];
  children?: RunChildrenSink;
  /** KIND/NAMESPACE/NAME of each run no PipelineRun owns that is no target by its tekton.dev/pipelineRun label, to the PipelineRun it names (explain says so). */
  labelledOnly?: Map<string, string>;
}

/** The census of what goes with each run, and the retain key a child run that must stay carries. */
export interface RunChildrenSink {
  add(child: ChildRunReading): void;
  retainKey: string;
}

/** A listed TaskRun or child PipelineRun as the census reads it: its parent, its Pod, and whether it must stay. */
function childRunReading(item: unknown, run: RunRecord, retainKey: string): ChildRunReading {
  const extras = readTaskRunExtras(item, retainKey);
  const stays = isActive(run.state) ? `has not finished (${run.state})` : extras.retained;
  return {
    kind: run.kind,
    namespace: run.namespace,
    name: run.name,
    uid: run.uid,
    ...(run.parentPipelineRun !== undefined && { parent: run.parentPipelineRun }),
    ...(extras.podName !== undefined && { podName: extras.podName }),
    ...(stays !== undefined && { stays }),
  };
}

/** Whether the run collector of `kind` is on and served. */
function collectsRunKind(apis: ServedApis, kind: RunKindName): boolean {
  return COLLECTOR_NAMES.some((name) => COLLECTORS[name].decides === 'history' && COLLECTORS[name].kind === kind && apis.targets[name] !== undefined);
}

/** The resource a collector that runs reads and deletes through; a collector that does not run has none. */
function servedFor(apis: ServedApis, collector: Collector): ApiResource {
  const resource = apis.targets[collector.name];
  if (resource === undefined) throw new Error(`${collector.name} is not served by this cluster or not on`);
  return resource;
}

function apiResource(collector: Collector): ApiResource {
  return { group: collector.api.group, version: collector.api.version, plural: collector.api.plural };
}

/** A collector's own selector ANDed with --selector: a comma joins requirements. */
function bothSelectors(own: string | undefined, given: string): string {
  return [own ?? '', given].filter((part) => part.trim() !== '').join(',');
}

/** A nullable record's namespace (a dropped item has none: it is filtered out later anyway). */
function namespaceOf(record: { namespace: string } | null): string | undefined {
  return record === null ? undefined : record.namespace;
}

function hasNamespaceSelector(scope: Scope): boolean {
  return scope.namespaceSelector !== undefined && scope.namespaceSelector !== '';
}

function excludedNamespacesSelector(scope: Scope): string {
  return scope.excludeNamespaces.map((name) => `metadata.namespace!=${name}`).join(',');
}

export interface ObjectIdentity {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
}

function identityOf(item: unknown): ObjectIdentity {
  const metadata = (item as { metadata?: Record<string, unknown> }).metadata ?? {};
  const text = (key: string): string => (typeof metadata[key] === 'string' ? metadata[key] : '');
  return { namespace: text('namespace'), name: text('name'), uid: text('uid'), resourceVersion: text('resourceVersion') };
}

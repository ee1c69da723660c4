import { RUN_KINDS, RUN_KIND_NAMES, TARGET_KIND, preferredRunVersion } from '../core/kinds.js';
import { toNamespaceRecord, toRunRecord, toTargetRecord } from '../core/runs.js';
import type { NamespaceRecord, RunKindName, RunRecord, TargetRecord } from '../core/types.js';
import {
  deleteIfUnchanged,
  getObject,
  listAll,
  servedResources,
  type ApiResource,
  type DeleteOutcome,
} from './api.js';
import type { KubeHttp } from './http.js';

/** Which namespaces a pass looks at, and which targets. */
export interface Scope {
  /** Empty: all namespaces. */
  namespaces: readonly string[];
  excludeNamespaces: readonly string[];
  /** Label selector on targets. */
  selector: string;
}

/** The versions this server serves that the collector reads through. */
export interface ServedApis {
  target: ApiResource;
  /** A run kind the server does not serve at all has no entry: it has no runs. */
  runs: Partial<Record<RunKindName, { resource: ApiResource }>>;
}

/** Above this many namespaces with candidates, one cluster-wide re-check beats one per namespace. */
const PER_NAMESPACE_RECHECK_LIMIT = 10;

const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

const NAMESPACES: ApiResource = { group: '', version: 'v1', plural: 'namespaces' };

/**
 * The collector's view of a cluster: discovery, paged lists turned into compact records,
 * the re-check before deleting, and guarded deletes. No decisions are made here.
 */
export class KubeCluster {
  constructor(
    private readonly http: KubeHttp,
    private readonly pageSize: number,
  ) {}

  /** null when the server does not serve the target kind (PipelineResources are gone). */
  async discover(): Promise<ServedApis | null> {
    // Tekton serves targets and runs in one group, so one discovery answers both.
    const served = await servedResources(this.http, TARGET_KIND.group);
    if (!served.get(TARGET_KIND.version)?.has(TARGET_KIND.plural)) {
      return null;
    }
    const target: ApiResource = { group: TARGET_KIND.group, version: TARGET_KIND.version, plural: TARGET_KIND.plural };
    const runs: ServedApis['runs'] = {};
    for (const kind of RUN_KIND_NAMES) {
      const { group, plural } = RUN_KINDS[kind];
      const versions = [...served].filter(([, plurals]) => plurals.has(plural)).map(([version]) => version);
      const version = preferredRunVersion(kind, versions);
      if (version !== undefined) {
        runs[kind] = { resource: { group, version, plural } };
      }
    }
    return { target, runs };
  }

  async listTargets(apis: ServedApis, scope: Scope): Promise<TargetRecord[]> {
    const lists = await this.inScope(scope, (namespace, fieldSelector) =>
      listAll(this.http, apis.target, { namespace, fieldSelector, labelSelector: scope.selector, pageSize: this.pageSize }, toTargetRecord),
    );
    return lists.flatMap((list) => list.records);
  }

  async listRuns(apis: ServedApis, scope: Scope): Promise<RunRecord[]> {
    const runs: RunRecord[] = [];
    for (const kind of RUN_KIND_NAMES) {
      const served = apis.runs[kind];
      if (served === undefined) {
        continue;
      }
      const lists = await this.inScope(scope, (namespace, fieldSelector) =>
        listAll(this.http, served.resource, { namespace, fieldSelector, pageSize: this.pageSize }, (item) =>
          toRunRecord(item, kind),
        ),
      );
      // One push per record: a spread of 150,000 records overflows the call stack.
      for (const list of lists) {
        for (const run of list.records) runs.push(run);
      }
    }
    return runs;
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
      for (const name of scope.namespaces.filter((namespace) => !scope.excludeNamespaces.includes(namespace))) {
        const namespace = await getObject(this.http, NAMESPACES, '', name);
        if (namespace !== null) {
          records.push(toNamespaceRecord(namespace));
        }
      }
    }
    return new Map(records.map((record) => [record.name, record]));
  }

  /**
   * The runs in `namespaces` that are new or changed compared with `listed`, read in full,
   * and the uids of listed runs that are gone. Reads metadata only for the comparison, so
   * a re-check costs a fraction of the first listing. `scope` keeps the reads inside what
   * the pass may read: named namespaces are always read one by one.
   */
  async runsChangedSince(
    apis: ServedApis,
    listed: readonly RunRecord[],
    namespaces: readonly string[],
    scope: Scope,
  ): Promise<{ changed: RunRecord[]; goneUids: Set<string> }> {
    const listedVersions = new Map(listed.map((run) => [run.uid, run.resourceVersion]));
    const wanted = new Set(namespaces);
    const changed: RunRecord[] = [];
    const seen = new Set<string>();
    for (const kind of RUN_KIND_NAMES) {
      const served = apis.runs[kind];
      if (served === undefined) {
        continue;
      }
      const metadata = await this.metadataOf(served.resource, namespaces, scope);
      for (const item of metadata.filter((entry) => wanted.has(entry.namespace))) {
        seen.add(item.uid);
        if (listedVersions.get(item.uid) === item.resourceVersion) {
          continue;
        }
        const object = await getObject(this.http, served.resource, item.namespace, item.name);
        if (object !== null) {
          changed.push(toRunRecord(object, kind));
        }
      }
    }
    const goneUids = new Set(
      listed.filter((run) => wanted.has(run.namespace) && !seen.has(run.uid)).map((run) => run.uid),
    );
    return { changed, goneUids };
  }

  /** One target by name (for explain); null when it does not exist. */
  async readTarget(apis: ServedApis, namespace: string, name: string): Promise<TargetRecord | null> {
    const object = await getObject(this.http, apis.target, namespace, name);
    return object === null ? null : toTargetRecord(object);
  }

  /** Whether the label selector matches the target, as the API server reads the selector. */
  async targetMatches(apis: ServedApis, target: Pick<TargetRecord, 'namespace' | 'name'>, selector: string): Promise<boolean> {
    if (selector === '') return true;
    const fieldSelector = `metadata.name=${target.name}`;
    const list = await listAll(this.http, apis.target, { namespace: target.namespace, fieldSelector, labelSelector: selector, pageSize: 1 }, identityOf);
    return list.records.length > 0;
  }

  async deleteTarget(apis: ServedApis, target: TargetRecord): Promise<DeleteOutcome> {
    return deleteIfUnchanged(this.http, apis.target, target, {
      uid: target.uid,
      resourceVersion: target.resourceVersion,
    });
  }

  private async metadataOf(resource: ApiResource, namespaces: readonly string[], scope: Scope): Promise<ObjectIdentity[]> {
    // A scope of named namespaces may be all this identity can read (the chart's Roles).
    const perNamespace = scope.namespaces.length > 0 || namespaces.length <= PER_NAMESPACE_RECHECK_LIMIT;
    const fieldSelector = perNamespace ? '' : excludedNamespacesSelector(scope);
    const identities: ObjectIdentity[] = [];
    for (const namespace of perNamespace ? namespaces : ['']) {
      const list = await listAll(
        this.http,
        resource,
        { namespace, fieldSelector, pageSize: this.pageSize, accept: METADATA_ONLY },
        identityOf,
      );
      for (const identity of list.records) identities.push(identity);
    }
    return identities;
  }

  /** One list per named namespace, or one across all namespaces less the excluded ones. */
  private async inScope<T>(scope: Scope, list: (namespace: string, fieldSelector: string) => Promise<T>): Promise<T[]> {
    if (scope.namespaces.length > 0) {
      const results: T[] = [];
      for (const namespace of scope.namespaces.filter((name) => !scope.excludeNamespaces.includes(name))) {
        results.push(await list(namespace, ''));
      }
      return results;
    }
    return [await list('', excludedNamespacesSelector(scope))];
  }
}

function excludedNamespacesSelector(scope: Scope): string {
  return scope.excludeNamespaces.map((name) => `metadata.namespace!=${name}`).join(',');
}

interface ObjectIdentity {
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

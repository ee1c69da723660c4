import { KubeError, type RequestPurpose } from './errors.js';
import { errorFrom, type KubeHttp, type ListPage } from './http.js';
import type { OmitMember } from './listbody.js';

/** A collection the API server serves: `group` is empty for the core group. */
export interface ApiResource {
  group: string;
  version: string;
  plural: string;
}

/** `pipelineruns.tekton.dev`, or `namespaces` for the core group: how RBAC names it. */
export function resourceName(resource: ApiResource): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

function groupVersionPath(resource: Pick<ApiResource, 'group' | 'version'>): string {
  return resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
}

/** The path of a collection, in one namespace or (namespace empty) across all. */
export function collectionPath(resource: ApiResource, namespace: string): string {
  const scope = namespace === '' ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${groupVersionPath(resource)}${scope}/${resource.plural}`;
}

export function objectPath(resource: ApiResource, namespace: string, name: string): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}`;
}

function purpose(verb: string, resource: ApiResource, namespace: string): RequestPurpose {
  return { verb, resource: resourceName(resource), namespace };
}

/**
 * The versions of `group` the server serves, each with the plurals it serves.
 * An empty map when the group is not served at all.
 */
export async function servedResources(http: KubeHttp, group: string): Promise<Map<string, Set<string>>> {
  const served = new Map<string, Set<string>>();
  const groupPurpose: RequestPurpose = { verb: 'get', resource: `apis/${group}`, namespace: '' };
  const apiGroup = await http.jsonOrNull(groupPurpose, { method: 'GET', path: `/apis/${group}` });
  if (apiGroup === null) {
    return served;
  }
  for (const version of versionsOf(apiGroup)) {
    const list = await http.json(groupPurpose, { method: 'GET', path: `/apis/${group}/${version}` });
    served.set(version, pluralsOf(list));
  }
  return served;
}

function versionsOf(apiGroup: unknown): string[] {
  const versions = (apiGroup as { versions?: unknown }).versions;
  if (!Array.isArray(versions)) {
    return [];
  }
  return versions
    .map((entry) => (entry as { version?: unknown }).version)
    .filter((version): version is string => typeof version === 'string');
}

function pluralsOf(resourceList: unknown): Set<string> {
  const resources = (resourceList as { resources?: unknown }).resources;
  const plurals = new Set<string>();
  if (Array.isArray(resources)) {
    for (const entry of resources) {
      const name = (entry as { name?: unknown }).name;
      // Subresources (`pipelineruns/status`) are listed too; only collections count.
      if (typeof name === 'string' && !name.includes('/')) {
        plurals.add(name);
      }
    }
  }
  return plurals;
}

export interface ListOptions {
  /** Empty: across all namespaces. */
  namespace: string;
  labelSelector?: string;
  fieldSelector?: string;
  pageSize: number;
  /** An Accept header, e.g. for PartialObjectMetadataList; JSON objects by default. */
  accept?: string;
  /** Members of each item the records are made without: `null` in their place (listbody.ts). */
  omit?: OmitMember;
}

export interface ListResult<T> {
  records: T[];
}

/** How often a list whose continue token expired (410) is started again from the top. */
const MAX_LIST_RESTARTS = 3;

/**
 * Pages through a collection (`limit`/`continue`) and turns each item into a record as
 * its page arrives, so only the records stay in memory, never a whole collection.
 * A continue token that expired (410) restarts the list: pages from two snapshots are
 * never mixed.
 */
export async function listAll<T>(
  http: KubeHttp,
  resource: ApiResource,
  options: ListOptions,
  toRecord: (item: unknown) => T,
): Promise<ListResult<T>> {
  for (let restart = 0; ; restart++) {
    try {
      return await listOnce(http, resource, options, toRecord);
    } catch (error) {
      if (!(error instanceof ExpiredContinue) || restart >= MAX_LIST_RESTARTS) {
        throw error instanceof ExpiredContinue ? error.cause : error;
      }
    }
  }
}

class ExpiredContinue extends Error {
  constructor(override readonly cause: KubeError) {
    super(cause.message);
  }
}

async function listOnce<T>(
  http: KubeHttp,
  resource: ApiResource,
  options: ListOptions,
  toRecord: (item: unknown) => T,
): Promise<ListResult<T>> {
  const records: T[] = [];
  const why = purpose('list', resource, options.namespace);
  let continueToken = '';
  do {
    const query = {
      limit: options.pageSize,
      continue: continueToken,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    };
    let page: ListPage<T>;
    try {
      // Item by item as the bytes arrive: a page is never held whole (http.ts list()).
      page = await http.list(
        why,
        {
          method: 'GET',
          path: collectionPath(resource, options.namespace),
          query,
          ...(options.accept === undefined ? {} : { accept: options.accept }),
        },
        toRecord,
        options.omit,
      );
    } catch (error) {
      if (error instanceof KubeError && error.status === 410 && continueToken !== '') {
        throw new ExpiredContinue(error);
      }
      throw error;
    }
    const { kind, items, metadata } = page.envelope as { kind?: unknown; items?: unknown; metadata?: { continue?: unknown } };
    // An empty PartialObjectMetadataList comes without `items`; anything else must have them.
    const emptyList = items == null && typeof kind === 'string' && kind.endsWith('List');
    if (!Array.isArray(items) && !emptyList) {
      throw new KubeError(0, why, 'the list answer has no items array');
    }
    for (const record of page.records) {
      records.push(record);
    }
    continueToken = typeof metadata?.continue === 'string' ? metadata.continue : '';
  } while (continueToken !== '');
  return { records };
}

/** One object, or null when it does not exist. */
export async function getObject(
  http: KubeHttp,
  resource: ApiResource,
  namespace: string,
  name: string,
  accept?: string,
): Promise<unknown> {
  return http.jsonOrNull(purpose('get', resource, namespace), {
    method: 'GET',
    path: objectPath(resource, namespace, name),
    ...(accept !== undefined && { accept }),
  });
}

export type DeleteOutcome = 'deleted' | 'gone' | 'changed';

/** The identity of the object as it was listed: a delete of anything else is refused. */
export interface Preconditions {
  uid: string;
  resourceVersion: string;
}

/** The plurals one group version serves (`/api/v1` for the core group); empty when it serves none. */
export async function servedPlurals(http: KubeHttp, groupVersion: Pick<ApiResource, 'group' | 'version'>): Promise<Set<string>> {
  const path = groupVersionPath(groupVersion);
  const list = await http.jsonOrNull({ verb: 'get', resource: path.slice(1), namespace: '' }, { method: 'GET', path });
  return list === null ? new Set() : pluralsOf(list);
}

/** An object a DELETE left in place: it has finalizers, and is Terminating until they are removed. */
export interface Remaining {
  /** The resourceVersion of the DELETE's answer: a later change must start from it. */
  resourceVersion: string;
  finalizers: string[];
}

/** A DELETE's outcome, and what is left when the object remains (finalizers). */
export interface DeleteAnswer {
  outcome: DeleteOutcome;
  /** Set when the object is still there after an accepted DELETE. */
  remaining?: Remaining;
}

/**
 * Deletes the object only if it is still the one that was listed (uid) and has not changed
 * since (resourceVersion); 404 and 409 are outcomes, not failures. The answer says whether it
 * is gone or still there with finalizers (a claim with `kubernetes.io/pvc-protection` in use,
 * or any object someone else's finalizer holds). One attempt: a throttled or failed delete
 * throws its KubeError, and the caller decides whether the view it stands on is still fresh
 * enough to try again. `accept` asks for the answer in another form (a Secret's as metadata
 * only: its data never crosses the wire).
 */
export async function deleteUnlessChanged(
  http: KubeHttp,
  resource: ApiResource,
  target: { namespace: string; name: string },
  options: { preconditions: Preconditions; attempt?: number; accept?: string },
): Promise<DeleteAnswer> {
  const why = purpose('delete', resource, target.namespace);
  const response = await http.sendOnce(why, {
    method: 'DELETE',
    path: objectPath(resource, target.namespace, target.name),
    body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: options.preconditions },
    ...(options.accept !== undefined && { accept: options.accept }),
  }, options.attempt ?? 1);
  if (response.status === 404) return { outcome: 'gone' };
  if (response.status === 409) return { outcome: 'changed' };
  if (response.status < 200 || response.status > 299) throw errorFrom(response, why);
  const remaining = remainingOf(response.body);
  return remaining === undefined ? { outcome: 'deleted' } : { outcome: 'deleted', remaining };
}

/**
 * What a DELETE or PATCH answer says is left: the object while it has finalizers, nothing
 * once it is gone (a Status, or the object as it was removed, without finalizers).
 */
function remainingOf(body: Buffer): Remaining | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const metadata = (answer as { kind?: unknown; metadata?: { resourceVersion?: unknown; finalizers?: unknown } } | null);
  if (metadata === null || typeof metadata !== 'object' || metadata.kind === 'Status') return undefined;
  const finalizers = metadata.metadata?.finalizers;
  const names = Array.isArray(finalizers) ? finalizers.filter((name): name is string => typeof name === 'string') : [];
  if (names.length === 0) return undefined;
  const resourceVersion = metadata.metadata?.resourceVersion;
  return { resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : '', finalizers: names };
}

export type FinalizerOutcome = 'removed' | 'gone' | 'changed';

/**
 * Removes one finalizer with a JSON patch that applies only to the object as it was seen:
 * the same uid, the same resourceVersion, and that finalizer at that index. Anything else
 * (409, or 422 for a failed test) is `changed`; 404 is `gone`. The answer says what is left.
 * One attempt, as a delete: the caller decides whether to try again.
 */
export async function removeFinalizer(
  http: KubeHttp,
  resource: ApiResource,
  target: { namespace: string; name: string },
  guard: { uid: string; resourceVersion: string; finalizer: string; index: number; accept?: string },
): Promise<{ outcome: FinalizerOutcome; remaining?: Remaining }> {
  const why = purpose('patch', resource, target.namespace);
  const at = `/metadata/finalizers/${guard.index}`;
  const response = await http.sendOnce(why, {
    method: 'PATCH',
    path: objectPath(resource, target.namespace, target.name),
    contentType: 'application/json-patch+json',
    body: [
      { op: 'test', path: '/metadata/uid', value: guard.uid },
      { op: 'test', path: '/metadata/resourceVersion', value: guard.resourceVersion },
      { op: 'test', path: at, value: guard.finalizer },
      { op: 'remove', path: at },
    ],
    ...(guard.accept !== undefined && { accept: guard.accept }),
  });
  if (response.status === 404) return { outcome: 'gone' };
  if (response.status === 409 || response.status === 422) return { outcome: 'changed' };
  if (response.status < 200 || response.status > 299) throw errorFrom(response, why);
  const remaining = remainingOf(response.body);
  return remaining === undefined ? { outcome: 'removed' } : { outcome: 'removed', remaining };
}

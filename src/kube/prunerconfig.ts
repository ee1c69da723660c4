/**
 * `--pruner-config`: tektoncd/pruner's ConfigMaps as they are in the cluster, for
 * core/prunerconfig.ts to read. The global one is one GET by name in the pruner's namespace;
 * the namespace ones are listed by name (a field selector) in the namespaces the pass reads,
 * paged like every other list. No decision is made here.
 */
import { PRUNER_GLOBAL_CONFIGMAP, PRUNER_NAMESPACE_CONFIGMAP, type ConfigMapData, type PrunerConfigMaps } from '../core/prunerconfig.js';
import { isExcluded } from '../core/scope.js';
import { getObject, listAll, type ApiResource } from './api.js';
import { KubeError } from './errors.js';
import type { KubeHttp } from './http.js';

const CONFIGMAPS: ApiResource = { group: '', version: 'v1', plural: 'configmaps' };

/** A ConfigMap reduced to what the reader needs: where it is, and its data. */
interface ConfigMapRecord {
  namespace: string;
  data: ConfigMapData;
}

function toConfigMapRecord(item: unknown): ConfigMapRecord {
  const object = item as { metadata?: { namespace?: unknown }; data?: unknown };
  const namespace = typeof object.metadata?.namespace === 'string' ? object.metadata.namespace : '';
  const data = typeof object.data === 'object' && object.data !== null && !Array.isArray(object.data) ? (object.data as Record<string, unknown>) : undefined;
  return { namespace, data };
}

/**
 * The global ConfigMap (null when it does not exist) and the namespace ones in `scope`: one
 * list per named namespace, or one across the cluster less the excluded namespaces; of
 * those, only the ones in `selected` when given (the namespaces a namespace selector picks).
 * A refusal (403) becomes one line that names the rule to grant.
 */
export async function readPrunerConfigMaps(
  http: KubeHttp,
  pageSize: number,
  systemNamespace: string,
  scope: { readonly namespaces: readonly string[]; readonly excludeNamespaces: readonly string[] },
  selected?: ReadonlySet<string>,
): Promise<PrunerConfigMaps> {
  let global: ConfigMapRecord | null;
  try {
    const object = await getObject(http, CONFIGMAPS, systemNamespace, PRUNER_GLOBAL_CONFIGMAP);
    global = object === null ? null : toConfigMapRecord(object);
  } catch (error) {
    throw forbiddenAs(error, `read ConfigMap ${systemNamespace}/${PRUNER_GLOBAL_CONFIGMAP}`, `"get" on configmaps named ${PRUNER_GLOBAL_CONFIGMAP} in namespace ${systemNamespace}`);
  }
  const byName = `metadata.name=${PRUNER_NAMESPACE_CONFIGMAP}`;
  const lists: { namespace: string; fieldSelector: string }[] =
    scope.namespaces.length > 0
      ? scope.namespaces.filter((namespace) => !isExcluded(scope, namespace)).map((namespace) => ({ namespace, fieldSelector: byName }))
      : [{ namespace: '', fieldSelector: [byName, ...scope.excludeNamespaces.map((name) => `metadata.namespace!=${name}`)].join(',') }];
  const namespaced: ConfigMapRecord[] = [];
  for (const { namespace, fieldSelector } of lists) {
    try {
      const list = await listAll(http, CONFIGMAPS, { namespace, fieldSelector, pageSize }, toConfigMapRecord);
      for (const record of list.records) if (selected === undefined || selected.has(record.namespace)) namespaced.push(record);
    } catch (error) {
      const where = namespace === '' ? 'at cluster scope' : `in namespace ${namespace}`;
      throw forbiddenAs(error, `list ConfigMaps ${PRUNER_NAMESPACE_CONFIGMAP} ${where}`, `"list" on configmaps ${where} (a list cannot be limited to one name by RBAC)`);
    }
  }
  return { systemNamespace, global: global === null ? null : { data: global.data }, namespaced };
}

/** A refusal (403) to read tektoncd/pruner's ConfigMaps, saying which rule to grant. */
export class PrunerConfigForbidden extends Error {
  override name = 'PrunerConfigForbidden';
}

/** A 403 as the line that says which rule is missing; any other error as it is. */
function forbiddenAs(error: unknown, what: string, rule: string): unknown {
  if (!(error instanceof KubeError) || error.status !== 403) return error;
  return new PrunerConfigForbidden(`--pruner-config: forbidden to ${what}: grant ${rule}`, { cause: error });
}

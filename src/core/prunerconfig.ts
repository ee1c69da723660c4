/**
 * tektoncd/pruner's policy ConfigMaps (`--pruner-config`, docs/spec.md "tektoncd/pruner's
 * ConfigMaps"), read as its controller reads them, so that a cluster moving from it keeps its
 * policies: the global `tekton-pruner-default-spec` (key `global-config`) in the pruner's own
 * namespace, and `tekton-pruner-namespace-spec` (key `ns-config`) in any namespace. Pure: the
 * adapter (kube/prunerconfig.ts) hands in the ConfigMaps' `data`.
 *
 * Every citation is tektoncd/pruner v0.4.1 (commit 0dc5f88; its pkg/config is the same at the
 * newest commit read, ed6a2c6).
 *
 * Choices (written down for users in docs/spec.md):
 * - The YAML is read as pruner's decoder reads it (goyaml.ts), not as plain js-yaml reads it:
 *   go-yaml v2's scalars (`yes` is true, `010` is 8), and a bool or an integer in a string
 *   field (a name, a label value) as its text (`enabled: yes` selects `enabled=true`). A form
 *   that is not reproduced exactly (a float as text, a merge key) is refused in one line.
 * - What pruner refuses is refused here, each as one line naming the ConfigMap, the key, the
 *   field and what would be valid: a value of the wrong type (pruner's YAML-to-JSON decode
 *   fails, config.go:136, 165), a negative number, an enforcedConfigLevel other than global,
 *   namespace or resource (its webhook, config.go:907-1039), selectors in the global ConfigMap
 *   (config.go:752-763). A YAML that does not parse, too.
 * - Such an error in the global ConfigMap ends the read (and the pass, exit 1): pruner's
 *   cleanup stops at it too (pkg/reconciler/tektonpruner/controller.go:91-94). In a namespace
 *   ConfigMap it fails that ConfigMap alone, as in pruner
 *   (pkg/reconciler/namespaceprunerconfig/reconciler.go:47-50, config.go:154-177): the
 *   namespace is `unreadable` and its runs are kept (`retention-invalid`, prunerRunPolicy),
 *   since pruner then goes on with whatever it held before, which no one can see. A namespace
 *   ConfigMap is parsed only where pruner applies it (its namespace's level is `namespace`),
 *   so that one it never reads can neither stop nor change anything.
 * - An unknown field inside `global-config` or `ns-config` is an error, where pruner drops it
 *   without a word (encoding/json): it is most often a misspelt limit, and running with a
 *   policy other than the one written is the guess this refuses to make. An unknown data key
 *   of the ConfigMap is a warning: pruner reads only its own keys, and another key holds no
 *   policy.
 * - The webhook's bounds between ConfigMaps (a namespace's limits at most the global ones, 30
 *   days and 100 runs at most, selector limits summed: config.go:904-1202) are not checked:
 *   pruner's controller applies what the ConfigMaps say (config.go:126-177 loads them
 *   unchecked), and so does this.
 * - What pruner reads but never applies is a warning: a namespace ConfigMap where the level is
 *   not `namespace` (not parsed), an enforcedConfigLevel in a namespace ConfigMap or on a pipelineRuns or
 *   taskRuns entry, a historyLimit on an entry matched by name.
 */
import { GoBigInt, GoFloat, GoScalar, GoYamlError, goNumber, goText, loadGoYaml, refusedKey } from './goyaml.js';
import type { CountedRuns, ExternalRunLimits, Policy, RunKindName, TargetRecord } from './types.js';

export const PRUNER_GLOBAL_CONFIGMAP = 'tekton-pruner-default-spec';
export const PRUNER_NAMESPACE_CONFIGMAP = 'tekton-pruner-namespace-spec';
/** The data keys pruner reads (constants.go:88-94). */
export const PRUNER_GLOBAL_KEY = 'global-config';
export const PRUNER_NAMESPACE_KEY = 'ns-config';
/** Read by pruner from the global ConfigMap too (config.go:196), for its own concurrency: no policy. */
const PRUNER_WORKER_COUNT_KEY = 'WorkerCountForNamespaceCleanup';
/** The annotation on a run that names the label pruner takes the run's name from (helper.go:27-35). */
export const PRUNER_NAME_LABEL_KEY_ANNOTATION = 'pruner.tekton.dev/resourceNameLabelKey';
/** The labels pruner takes a run's name from by default (pipelinerun/reconciler.go:433, taskrun/reconciler.go:425). */
const DEFAULT_NAME_LABEL: Readonly<Record<RunKindName, string>> = { PipelineRun: 'tekton.dev/pipeline', TaskRun: 'tekton.dev/task' };

/** enforcedConfigLevel (config.go:57-64); `resource` when no ConfigMap sets one (config.go:658-659). */
export const PRUNER_LEVELS = ['global', 'namespace', 'resource'] as const;
export type PrunerLevel = (typeof PRUNER_LEVELS)[number];

/** The fields of pruner's PrunerConfig (config.go:101-108), each absent when not written. */
export interface PrunerSettings {
  readonly enforcedConfigLevel?: PrunerLevel;
  readonly ttlSecondsAfterFinished?: number;
  readonly successfulHistoryLimit?: number;
  readonly failedHistoryLimit?: number;
  readonly historyLimit?: number;
}

/** One selector (config.go:77-81): every label and every annotation it names must be on the run. */
export interface PrunerSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchAnnotations: Readonly<Record<string, string>>;
}

/** An entry of `pipelineRuns` or `taskRuns` (config.go:69-73). */
export interface PrunerResourceSpec extends PrunerSettings {
  /** The Pipeline's or Task's name; absent when not written. */
  readonly name?: string;
  readonly selector: readonly PrunerSelector[];
  /** Where it was written, for messages: `pipelineRuns[2]` or `namespaces.dev.taskRuns[0]`. */
  readonly path: string;
}

/** A namespace's policy (config.go:86-90): a `namespaces` entry of the global ConfigMap, or a namespace ConfigMap. */
export interface PrunerNamespaceSpec extends PrunerSettings {
  readonly pipelineRuns: readonly PrunerResourceSpec[];
  readonly taskRuns: readonly PrunerResourceSpec[];
}

/** The global ConfigMap's `global-config` (config.go:95-98). */
export interface PrunerGlobalSpec extends PrunerSettings {
  readonly namespaces: ReadonlyMap<string, PrunerNamespaceSpec>;
}

/** Both ConfigMaps as pruner's store holds them (config.go:111-115). */
export interface PrunerConfig {
  /** The namespace the global ConfigMap was read in (`--pruner-config`). */
  readonly systemNamespace: string;
  /** False when the global ConfigMap does not exist: `global` is then empty. */
  readonly globalFound: boolean;
  readonly global: PrunerGlobalSpec;
  /** The namespace ConfigMaps pruner applies (their namespace's level is `namespace`), by namespace. */
  readonly namespaces: ReadonlyMap<string, PrunerNamespaceSpec>;
  /**
   * The namespaces whose applied namespace ConfigMap cannot be read, each with its one-line
   * error: their runs are kept (`retention-invalid`) while the rest of the pass goes on.
   */
  readonly unreadable: ReadonlyMap<string, string>;
}

/** A ConfigMap's `data` as the API server sent it (absent when it has none). */
export type ConfigMapData = Readonly<Record<string, unknown>> | undefined;

/** What the adapter read: the global ConfigMap (null: it does not exist) and every namespace ConfigMap. */
export interface PrunerConfigMaps {
  readonly systemNamespace: string;
  readonly global: { readonly data: ConfigMapData } | null;
  readonly namespaced: readonly { readonly namespace: string; readonly data: ConfigMapData }[];
}

export type PrunerConfigRead = { ok: true; config: PrunerConfig; warnings: string[] } | { ok: false; error: string };

/**
 * Both ConfigMaps parsed as pruner applies them. The global one first: the first field of it
 * that cannot be read is the error, as pruner's cleanup stops at it (pkg/reconciler/tektonpruner/controller.go:91-94).
 * A namespace ConfigMap only where that namespace's level is `namespace`, as pruner reads it
 * only there (config.go:453-531); one that cannot be read fails alone, as in pruner
 * (pkg/reconciler/namespaceprunerconfig/reconciler.go:47-50), and its namespace is `unreadable`.
 */
export function readPrunerConfig(maps: PrunerConfigMaps): PrunerConfigRead {
  const warnings: string[] = [];
  let global: PrunerGlobalSpec;
  try {
    global = globalConfig(maps, warnings);
  } catch (error) {
    if (error instanceof PrunerConfigError) return { ok: false, error: error.message };
    throw error;
  }
  const namespaces = new Map<string, PrunerNamespaceSpec>();
  const unreadable = new Map<string, string>();
  for (const map of [...maps.namespaced].sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0))) {
    const where = new Where(`ConfigMap ${map.namespace}/${PRUNER_NAMESPACE_CONFIGMAP}`, PRUNER_NAMESPACE_KEY, warnings);
    const level = namespaceLevel(global, map.namespace);
    if (level !== 'namespace') {
      // Not parsed: pruner never applies it, so what it holds cannot matter (nor stop the pass).
      warnings.push(
        `--pruner-config: ${where.configMap}: not applied, as tektoncd/pruner does not apply it: the level for namespace ${map.namespace} is ${level} (${PRUNER_GLOBAL_CONFIGMAP}'s enforcedConfigLevel), and only level namespace reads a namespace ConfigMap`,
      );
      continue;
    }
    try {
      namespaces.set(map.namespace, namespaceSpec(parseDocument(dataText(map.data, where, [PRUNER_NAMESPACE_KEY]), where), where, '', false));
    } catch (error) {
      if (!(error instanceof PrunerConfigError)) throw error;
      unreadable.set(map.namespace, error.message);
      warnings.push(`${error.message}; the runs of namespace ${map.namespace} are kept (retention-invalid) until it is fixed`);
    }
  }
  return { ok: true, config: { systemNamespace: maps.systemNamespace, globalFound: maps.global !== null, global, namespaces, unreadable }, warnings };
}

/** The global ConfigMap's `global-config`; an empty policy, with a warning, when the ConfigMap does not exist. */
function globalConfig(maps: PrunerConfigMaps, warnings: string[]): PrunerGlobalSpec {
  if (maps.global === null) {
    warnings.push(
      `--pruner-config: there is no ConfigMap ${PRUNER_GLOBAL_CONFIGMAP} in namespace ${maps.systemNamespace}: no tektoncd/pruner policy applies (tektoncd/pruner's own controller does not start without it)`,
    );
    return { namespaces: new Map() };
  }
  const where = new Where(`ConfigMap ${maps.systemNamespace}/${PRUNER_GLOBAL_CONFIGMAP}`, PRUNER_GLOBAL_KEY, warnings);
  const text = dataText(maps.global.data, where, [PRUNER_GLOBAL_KEY, PRUNER_WORKER_COUNT_KEY]);
  return globalSpec(parseDocument(text, where), where);
}

class PrunerConfigError extends Error {}

/** Where a value is, for its message: the ConfigMap, its key, and the warnings of the read. */
class Where {
  constructor(
    readonly configMap: string,
    readonly key: string,
    readonly warnings: string[],
  ) {}

  fail(path: string, problem: string): never {
    throw new PrunerConfigError(`--pruner-config: ${this.configMap}, key ${this.key}${path === '' ? '' : `, field ${path}`}: ${problem}`);
  }

  warn(path: string, problem: string): void {
    this.warnings.push(`--pruner-config: ${this.configMap}, key ${this.key}, field ${path}: ${problem}`);
  }
}

/** The key's text ('' when absent or empty, as pruner reads it: config.go:135, 164); other keys are warned about. */
function dataText(data: ConfigMapData, where: Where, known: readonly string[]): string {
  const entries = Object.entries(data ?? {});
  const unknown = entries.map(([key]) => key).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    where.warnings.push(`--pruner-config: ${where.configMap}: data ${plural(unknown.length, 'key')} ${unknown.map((key) => JSON.stringify(key)).join(', ')} not read (tektoncd/pruner reads ${where.key} only)`);
  }
  const text = data?.[where.key];
  if (text === undefined) return '';
  if (typeof text !== 'string') where.fail('', `expected text, found ${describe(text)}`);
  return text;
}

/** The YAML read as pruner's decoder reads it (goyaml.ts: go-yaml v2's scalars, not YAML 1.2's). */
function parseDocument(text: string, where: Where): unknown {
  try {
    return loadGoYaml(text);
  } catch (error) {
    if (error instanceof GoYamlError) where.fail('', error.message);
    throw error;
  }
}

const SETTING_FIELDS = ['enforcedConfigLevel', 'ttlSecondsAfterFinished', 'successfulHistoryLimit', 'failedHistoryLimit', 'historyLimit'] as const;
const GLOBAL_FIELDS: readonly string[] = [...SETTING_FIELDS, 'namespaces'];
const NAMESPACE_FIELDS: readonly string[] = [...SETTING_FIELDS, 'pipelineRuns', 'taskRuns'];
const RESOURCE_FIELDS: readonly string[] = [...SETTING_FIELDS, 'name', 'selector'];
const SELECTOR_FIELDS: readonly string[] = ['matchLabels', 'matchAnnotations'];

function globalSpec(document: unknown, where: Where): PrunerGlobalSpec {
  const fields = mapping(document, where, '', GLOBAL_FIELDS, {
    pipelineRuns: 'pipelineRuns and taskRuns belong inside namespaces.NAME or in a tekton-pruner-namespace-spec ConfigMap',
    taskRuns: 'pipelineRuns and taskRuns belong inside namespaces.NAME or in a tekton-pruner-namespace-spec ConfigMap',
  });
  const namespaces = new Map<string, PrunerNamespaceSpec>();
  const written = fields.namespaces;
  if (written !== undefined && written !== null) {
    for (const [name, spec] of Object.entries(mapping(written, where, 'namespaces', undefined))) {
      namespaces.set(name, namespaceSpec(spec, where, `namespaces.${segment(name)}.`, true));
    }
  }
  return { ...settings(fields, where, ''), namespaces };
}

function namespaceSpec(document: unknown, where: Where, prefix: string, inGlobal: boolean): PrunerNamespaceSpec {
  const fields = mapping(document, where, prefix.replace(/\.$/, ''), NAMESPACE_FIELDS, inGlobal ? {} : { namespaces: 'namespaces is read only in the global ConfigMap, tekton-pruner-default-spec' });
  const own = settings(fields, where, prefix);
  if (!inGlobal && own.enforcedConfigLevel !== undefined) {
    // The level comes from the global ConfigMap alone (config.go:643-660).
    where.warn(`${prefix}enforcedConfigLevel`, 'has no effect: tektoncd/pruner reads the level from the global ConfigMap only');
  }
  return {
    ...own,
    pipelineRuns: resourceSpecs(fields.pipelineRuns, where, `${prefix}pipelineRuns`, inGlobal),
    taskRuns: resourceSpecs(fields.taskRuns, where, `${prefix}taskRuns`, inGlobal),
  };
}

function resourceSpecs(written: unknown, where: Where, path: string, inGlobal: boolean): PrunerResourceSpec[] {
  if (written === undefined || written === null) return [];
  if (!Array.isArray(written)) where.fail(path, `expected a list of entries (each with a name or a selector), found ${describe(written)}`);
  return written.map((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    const fields = mapping(entry, where, at, RESOURCE_FIELDS);
    const name = optionalString(fields.name, where, `${at}.name`);
    const selector = selectors(fields.selector, where, `${at}.selector`);
    if (inGlobal && selector.length > 0) {
      // Refused by pruner's webhook (config.go:752-763), although its controller would read them at level resource.
      where.fail(`${at}.selector`, 'selectors are not supported in the global ConfigMap (tektoncd/pruner refuses them); write them in a tekton-pruner-namespace-spec ConfigMap');
    }
    const own = settings(fields, where, `${at}.`);
    if (own.enforcedConfigLevel !== undefined) {
      // Read only for an entry matched by name and a run without labels (config.go:577-587), which has no name.
      where.warn(`${at}.enforcedConfigLevel`, 'has no effect: tektoncd/pruner never reads the level of a pipelineRuns or taskRuns entry');
    }
    if (name !== undefined && own.historyLimit !== undefined) {
      where.warn(`${at}.historyLimit`, 'is not read when the entry matches by name (tektoncd/pruner reads successfulHistoryLimit and failedHistoryLimit only then)');
    }
    return { ...own, ...(name !== undefined && { name }), selector, path: at };
  });
}

function selectors(written: unknown, where: Where, path: string): PrunerSelector[] {
  if (written === undefined || written === null) return [];
  if (!Array.isArray(written)) where.fail(path, `expected a list of selectors such as "- matchLabels: {app: web}", found ${describe(written)}`);
  return written.map((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    const fields = mapping(entry, where, at, SELECTOR_FIELDS);
    return { matchLabels: stringMap(fields.matchLabels, where, `${at}.matchLabels`), matchAnnotations: stringMap(fields.matchAnnotations, where, `${at}.matchAnnotations`) };
  });
}

function settings(fields: Readonly<Record<string, unknown>>, where: Where, prefix: string): PrunerSettings {
  const level = fields.enforcedConfigLevel;
  let enforcedConfigLevel: PrunerLevel | undefined;
  if (level !== undefined && level !== null) {
    // A string field: `yes` is "true" to pruner (goyaml.ts goText), no level either.
    const text = goText(level);
    enforcedConfigLevel = text !== undefined && 'text' in text ? PRUNER_LEVELS.find((known) => known === text.text) : undefined;
    if (enforcedConfigLevel === undefined) where.fail(`${prefix}enforcedConfigLevel`, `expected global, namespace or resource, found ${describe(level)}`);
  }
  const read = (field: (typeof SETTING_FIELDS)[number]): number | undefined => whole(fields[field], where, `${prefix}${field}`);
  const ttl = read('ttlSecondsAfterFinished');
  const successful = read('successfulHistoryLimit');
  const failed = read('failedHistoryLimit');
  const history = read('historyLimit');
  return {
    ...(enforcedConfigLevel !== undefined && { enforcedConfigLevel }),
    ...(ttl !== undefined && { ttlSecondsAfterFinished: ttl }),
    ...(successful !== undefined && { successfulHistoryLimit: successful }),
    ...(failed !== undefined && { failedHistoryLimit: failed }),
    ...(history !== undefined && { historyLimit: history }),
  };
}

/** pruner's fields are *int32 (config.go:103-107); negative values its webhook refuses (config.go:930-1022). */
const INT32_MAX = 2_147_483_647;

/**
 * An *int32 as encoding/json fills it from the number sigs.k8s.io/yaml wrote: an integer, or
 * a float with no fraction (`5.0` and `1e3` are read; `08` is go-yaml's float 8).
 */
function whole(value: unknown, where: Where, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = goNumber(value);
  if (number === undefined || !Number.isInteger(number) || number < 0 || number > INT32_MAX) {
    where.fail(path, `expected a whole number from 0 to ${INT32_MAX}, such as 5, found ${describe(value)}`);
  }
  return number + 0; // -0.0 is 0
}

/** A string field as sigs.k8s.io/yaml fills it: a bool or an integer as its text (goyaml.ts goText). */
function text(value: unknown, where: Where, path: string, expected: string): string {
  const read = goText(value);
  if (read === undefined) where.fail(path, `expected ${expected}, found ${describe(value)}`);
  if ('refused' in read) where.fail(path, read.refused);
  return read.text;
}

function optionalString(value: unknown, where: Where, path: string): string | undefined {
  if (value === undefined) return undefined;
  const name = text(value, where, path, "a Pipeline's or Task's name");
  return name === '' ? undefined : name;
}

function stringMap(value: unknown, where: Where, path: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  const entries = Object.entries(mapping(value, where, path, undefined));
  const map: Record<string, string> = {};
  for (const [key, value] of entries) {
    // A map[string]string: `enabled: yes` is "true" and `v: 010` "8", as pruner reads them; null is "".
    map[key] = text(value, where, `${path}.${segment(key)}`, 'a string');
  }
  return map;
}

/** A YAML mapping whose keys are all `known` (any key when undefined); null is an empty one, as in pruner. */
function mapping(value: unknown, where: Where, path: string, known: readonly string[] | undefined, hints: Readonly<Record<string, string>> = {}): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof GoScalar) where.fail(path, `expected a mapping of fields, found ${describe(value)}`);
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = path === '' ? segment(key) : `${path}.${segment(key)}`;
    const refused = refusedKey(key);
    if (refused !== undefined) where.fail(path, refused);
    if (known === undefined || known.includes(key)) continue;
    // encoding/json matches a field ignoring case (pruner reads SuccessfulHistoryLimit): refused as written.
    const meant = known.find((name) => name.toLowerCase() === key.toLowerCase());
    const hint = meant === undefined ? undefined : `tektoncd/pruner reads it as ${meant} (its JSON decoding ignores case): write ${meant}`;
    where.fail(field, `unknown field; ${hint ?? hints[key] ?? `valid ${path === '' ? 'at the top' : 'here'}: ${known.join(', ')}`}`);
  }
  return fields;
}

/** A key as a field path shows it: as written when plain, else quoted, so that a message stays one line. */
function segment(key: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(key) ? key : JSON.stringify(key);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof GoFloat) return `float ${value.text}`;
  if (value instanceof GoBigInt) return `number ${value.text}`;
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

// ---------------------------------------------------------------------------------------------
// The resolver: which limits pruner applies to one run, and where they come from.

/** A run as pruner looks at it: all its labels and annotations (history_limiter.go:204-214). */
export interface PrunerRun {
  readonly kind: RunKindName;
  readonly namespace: string;
  /** The run's own name, for messages. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /**
   * Whether it has no label and no annotation at all. A run collector's record keeps only the
   * keys a rule reads, so its maps can be empty on a run that has others: the record says
   * (RunTarget.bare). Absent: read from the maps, which are then taken to be whole.
   */
  readonly bare?: boolean;
}

/**
 * The runs a history limit counts, as pruner lists them (history_limiter.go:269-342): those of
 * the run's kind in its namespace that carry `labelKey=value` (a limit matched by name), that
 * match the selector (a limit matched by a selector: its labels, then its annotations), or all
 * of them (a limit of the namespace or the global level). Only those of the same outcome
 * count, newest first by creationTimestamp (history_limiter.go:348-379).
 */
export type PrunerHistoryGroup =
  | { readonly by: 'namespace' }
  | { readonly by: 'name'; readonly labelKey: string; readonly value: string }
  | { readonly by: 'selector'; readonly selector: PrunerSelector };

/** One limit pruner applies, and the ConfigMap, field and level it came from. */
export interface PrunerLimit {
  readonly value: number;
  /** E.g. `ConfigMap dev/tekton-pruner-namespace-spec, ns-config pipelineRuns[1].successfulHistoryLimit (selector app=web)`. */
  readonly from: string;
}

export interface PrunerHistoryLimit extends PrunerLimit {
  readonly group: PrunerHistoryGroup;
}

/**
 * What pruner applies to a run. `historyLimit` has no field of its own: pruner reads it only
 * in place of an absent successfulHistoryLimit or failedHistoryLimit (config.go:299-309,
 * 415-427), and `from` says when it did.
 */
export interface PrunerLimits {
  readonly level: PrunerLevel;
  /** The name pruner selects by name with: the value of the run's name label; '' when it has none. */
  readonly resourceName: string;
  readonly successfulHistoryLimit?: PrunerHistoryLimit;
  readonly failedHistoryLimit?: PrunerHistoryLimit;
  readonly ttlSecondsAfterFinished?: PrunerLimit;
  /** One line: each limit and where it came from, or that none applies, with the level. */
  readonly from: string;
}

type Field = 'ttlSecondsAfterFinished' | 'successfulHistoryLimit' | 'failedHistoryLimit';

/** A field's value found, and where: the text for `from`, and the runs its history limit counts. */
interface Found {
  value: number;
  from: string;
  group: PrunerHistoryGroup;
}

/** The label pruner takes a run's name from, and that name ('' without the label): helper.go:27-46. */
export function prunerResourceName(run: Pick<PrunerRun, 'kind' | 'labels' | 'annotations'>): { labelKey: string; value: string } {
  const chosen = own(run.annotations, PRUNER_NAME_LABEL_KEY_ANNOTATION);
  const labelKey = chosen !== undefined && chosen !== '' ? chosen : DEFAULT_NAME_LABEL[run.kind];
  return { labelKey, value: own(run.labels, labelKey) ?? '' };
}

/**
 * The level for a namespace: the global ConfigMap's entry for it, else its top level, else
 * `resource` (config.go:559-660; an entry's own level is never reached, see resourceSpecs).
 */
export function namespaceLevel(global: PrunerGlobalSpec, namespace: string): PrunerLevel {
  return global.namespaces.get(namespace)?.enforcedConfigLevel ?? global.enforcedConfigLevel ?? 'resource';
}

/** The limits pruner applies to `run`, field by field, as getResourceFieldData looks them up (config.go:397-557). */
export function prunerLimitsFor(config: PrunerConfig, run: PrunerRun): PrunerLimits {
  const level = namespaceLevel(config.global, run.namespace);
  const name = prunerResourceName(run);
  const lookup = (field: Field): Found | undefined => fieldFor(config, run, name, level, field);
  const successful = lookup('successfulHistoryLimit');
  const failed = lookup('failedHistoryLimit');
  const ttl = lookup('ttlSecondsAfterFinished');
  const parts = [
    successful === undefined ? 'no successfulHistoryLimit' : `successfulHistoryLimit ${successful.value} from ${successful.from}`,
    failed === undefined ? 'no failedHistoryLimit' : `failedHistoryLimit ${failed.value} from ${failed.from}`,
    ttl === undefined ? 'no ttlSecondsAfterFinished' : `ttlSecondsAfterFinished ${ttl.value} from ${ttl.from}`,
  ];
  return {
    level,
    resourceName: name.value,
    ...(successful !== undefined && { successfulHistoryLimit: successful }),
    ...(failed !== undefined && { failedHistoryLimit: failed }),
    ...(ttl !== undefined && { ttlSecondsAfterFinished: { value: ttl.value, from: ttl.from } }),
    from: `tektoncd/pruner level ${level}: ${parts.join('; ')}`,
  };
}

function fieldFor(config: PrunerConfig, run: PrunerRun, name: { labelKey: string; value: string }, level: PrunerLevel, field: Field): Found | undefined {
  const globalMap = `ConfigMap ${config.systemNamespace}/${PRUNER_GLOBAL_CONFIGMAP}, ${PRUNER_GLOBAL_KEY}`;
  const namespaceMap = `ConfigMap ${run.namespace}/${PRUNER_NAMESPACE_CONFIGMAP}, ${PRUNER_NAMESPACE_KEY}`;
  const inGlobal = config.global.namespaces.get(run.namespace);
  const atRoot = (): Found | undefined => rootField(config.global, field, globalMap, '');
  switch (level) {
    case 'global':
      return atRoot();
    case 'resource': {
      // config.go:402-452: an entry of the global ConfigMap's namespace, else that namespace's
      // own fields (even when they lack this one), else the top level.
      const entry = entryField(inGlobal, run, name, field, globalMap);
      if (entry !== undefined) return entry;
      return inGlobal !== undefined ? rootField(inGlobal, field, globalMap, `namespaces.${run.namespace}.`) : atRoot();
    }
    case 'namespace': {
      // config.go:453-531: the namespace ConfigMap's entries, then its own fields, then the
      // global ConfigMap's entry for the namespace (even when it lacks this field), else its top level.
      const own = config.namespaces.get(run.namespace);
      const entry = entryField(own, run, name, field, namespaceMap);
      if (entry !== undefined) return entry;
      const root = own === undefined ? undefined : rootField(own, field, namespaceMap, '');
      if (root !== undefined) return root;
      return inGlobal !== undefined ? rootField(inGlobal, field, globalMap, `namespaces.${run.namespace}.`) : atRoot();
    }
  }
}

/** A level's own field; for a history limit, historyLimit in its place when absent (config.go:415-427). */
function rootField(spec: PrunerSettings, field: Field, configMap: string, prefix: string): Found | undefined {
  const group: PrunerHistoryGroup = { by: 'namespace' };
  const value = spec[field];
  if (value !== undefined) return { value, from: `${configMap} ${prefix}${field}`, group };
  if (field !== 'ttlSecondsAfterFinished' && spec.historyLimit !== undefined) {
    return { value: spec.historyLimit, from: `${configMap} ${prefix}historyLimit`, group };
  }
  return undefined;
}

/**
 * The field of the first entry matching the run (getFromPrunerConfigResourceLevelwithSelector,
 * config.go:214-318): an entry of that name first, whose field is read without historyLimit in
 * its place, and then, only when none has the name, the first entry with a matching selector.
 * The entry found answers even when it lacks the field: the lookup then goes on at the
 * namespace's own fields, never at a later entry.
 */
function entryField(spec: PrunerNamespaceSpec | undefined, run: PrunerRun, name: { labelKey: string; value: string }, field: Field, configMap: string): Found | undefined {
  if (spec === undefined) return undefined;
  const entries = run.kind === 'PipelineRun' ? spec.pipelineRuns : spec.taskRuns;
  if (name.value !== '') {
    const named = entries.find((entry) => entry.name === name.value);
    if (named !== undefined) {
      const value = named[field];
      return value === undefined ? undefined : { value, from: `${configMap} ${named.path}.${field} (name ${name.value})`, group: { by: 'name', labelKey: name.labelKey, value: name.value } };
    }
  }
  // Only a run with labels or annotations is matched by selector (config.go:249): any at all,
  // not only those a selector names (Tekton gives every TaskRun app.kubernetes.io/managed-by).
  if (run.bare ?? (Object.keys(run.labels).length === 0 && Object.keys(run.annotations).length === 0)) return undefined;
  for (const entry of entries) {
    const selector = entry.selector.find((candidate) => selectorMatches(candidate, run));
    if (selector === undefined) continue;
    const group: PrunerHistoryGroup = { by: 'selector', selector };
    const shown = `(selector ${selectorText(selector)})`;
    const value = entry[field];
    if (value !== undefined) return { value, from: `${configMap} ${entry.path}.${field} ${shown}`, group };
    if (field !== 'ttlSecondsAfterFinished' && entry.historyLimit !== undefined) return { value: entry.historyLimit, from: `${configMap} ${entry.path}.historyLimit ${shown}`, group };
    return undefined;
  }
  return undefined;
}

/** Every label and annotation the selector names, with that value (config.go:253-293); an empty selector matches every run. */
export function selectorMatches(selector: PrunerSelector, run: Pick<PrunerRun, 'labels' | 'annotations'>): boolean {
  const all = (wanted: Readonly<Record<string, string>>, present: Readonly<Record<string, string>>): boolean => Object.entries(wanted).every(([key, value]) => own(present, key) === value);
  return all(selector.matchLabels, run.labels) && all(selector.matchAnnotations, run.annotations);
}

/** A label's or annotation's value: the map's own key only, never one it inherits (`constructor`). */
function own(map: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function selectorText(selector: PrunerSelector): string {
  const pairs = (map: Readonly<Record<string, string>>): string[] => Object.entries(map).map(([key, value]) => `${key}=${value}`);
  const labels = pairs(selector.matchLabels);
  const annotations = pairs(selector.matchAnnotations);
  const parts = [...(labels.length > 0 ? [`labels ${labels.join(',')}`] : []), ...(annotations.length > 0 ? [`annotations ${annotations.join(',')}`] : [])];
  return parts.length === 0 ? 'matching every run' : parts.join(' and ');
}

/**
 * What the run collectors read of tektoncd/pruner's policy (history.ts, RunPolicy.external):
 * the limits prunerLimitsFor gives a run, as history limits and a TTL, each history limit with
 * the runs pruner counts it among (CountedRuns: history.ts ranks the run there, newest first
 * by creation, as pruner does: history_limiter.go:269-371), and which labels and annotations
 * each run's record keeps for that (runtargets.ts):
 * - the keys the ConfigMaps' selectors name, and the annotation that names a run's name label;
 * - a label whose value is the `name` of an entry that applies in the run's namespace: the
 *   label an annotation names may be on runs that lack the annotation (pruner lists the runs
 *   labelled `<labelKey>=<name>`, whatever their annotations: history_limiter.go:271-274), and
 *   a limit matched by name always has an entry's name as its value. That keeps those labels
 *   without keeping every map (a pass holds 200,000 records at the benchmark's 4x).
 * A TTL is applied with this tool's rows (docs/spec.md, "Runs"): it decides only an outcome no
 * limit covers, where pruner applies it beside the limits, which keeps more.
 */
export function prunerRunPolicy(config: PrunerConfig): { external: (run: TargetRecord) => ExternalRunLimits | undefined; keeps: (key: string, value: string, namespace: string) => boolean } {
  const keys = new Set<string>([PRUNER_NAME_LABEL_KEY_ANNOTATION]);
  const names = new Map<string, Set<string>>();
  const addSpec = (namespace: string, spec: PrunerNamespaceSpec): void => {
    for (const entry of [...spec.pipelineRuns, ...spec.taskRuns]) {
      for (const selector of entry.selector) for (const key of [...Object.keys(selector.matchLabels), ...Object.keys(selector.matchAnnotations)]) keys.add(key);
      if (entry.name !== undefined && entry.name !== '') names.set(namespace, (names.get(namespace) ?? new Set()).add(entry.name));
    }
  };
  for (const [namespace, spec] of config.global.namespaces) addSpec(namespace, spec);
  for (const [namespace, spec] of config.namespaces) addSpec(namespace, spec);
  const counted = new CountedRunsTable();
  return {
    keeps: (key, value, namespace) => keys.has(key) || names.get(namespace)?.has(value) === true,
    external: (run) => {
      if (run.kind !== 'PipelineRun' && run.kind !== 'TaskRun') return undefined;
      // A namespace ConfigMap pruner applies that cannot be read: no limit is guessed (readPrunerConfig).
      const unreadable = config.unreadable.get(run.namespace);
      if (unreadable !== undefined) return { from: `ConfigMap ${run.namespace}/${PRUNER_NAMESPACE_CONFIGMAP}`, invalid: unreadable };
      const limits = prunerLimitsFor(config, { kind: run.kind, namespace: run.namespace, name: run.name, labels: run.labels, annotations: run.annotations, bare: run.run?.bare === true });
      const { successfulHistoryLimit: successful, failedHistoryLimit: failed, ttlSecondsAfterFinished: ttl } = limits;
      if (successful === undefined && failed === undefined && ttl === undefined) return undefined;
      return {
        ...(successful !== undefined && { keepSuccessful: successful.value, successfulCounts: counted.of(run.kind, run.namespace, successful.group) }),
        ...(failed !== undefined && { keepFailed: failed.value, failedCounts: counted.of(run.kind, run.namespace, failed.group) }),
        ...(ttl !== undefined && { ttl: { kind: 'duration', ms: ttl.value * 1000, text: `${ttl.value}s` } }),
        from: limits.from,
        // Each setting named by the field that gave it (explain's limit and TTL lines, the decision's message).
        fieldFrom: {
          ...(limits.successfulHistoryLimit !== undefined && { keepSuccessful: limits.successfulHistoryLimit.from }),
          ...(limits.failedHistoryLimit !== undefined && { keepFailed: limits.failedHistoryLimit.from }),
          ...(ttl !== undefined && { ttl: ttl.from }),
        },
      };
    },
  };
}

/** One CountedRuns per set pruner lists, shared by every run whose limit counts it. */
class CountedRunsTable {
  private readonly known = new Map<string, CountedRuns>();

  of(kind: RunKindName, namespace: string, group: PrunerHistoryGroup): CountedRuns {
    const key = `${kind}\u0000${namespace}\u0000${countedKey(group)}`;
    const found = this.known.get(key);
    if (found !== undefined) return found;
    const made: CountedRuns = { key, text: `the ${kind}s of namespace ${namespace}${countedText(group)}`, includes: countedIncludes(group) };
    this.known.set(key, made);
    return made;
  }
}

function countedKey(group: PrunerHistoryGroup): string {
  const pairs = (map: Readonly<Record<string, string>>): [string, string][] => Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  switch (group.by) {
    case 'namespace':
      return 'namespace';
    case 'name':
      return `name\u0000${group.labelKey}\u0000${group.value}`;
    case 'selector':
      return `selector\u0000${JSON.stringify([pairs(group.selector.matchLabels), pairs(group.selector.matchAnnotations)])}`;
  }
}

function countedText(group: PrunerHistoryGroup): string {
  switch (group.by) {
    case 'namespace':
      return '';
    case 'name':
      return ` labelled ${group.labelKey}=${group.value}`;
    case 'selector':
      return ` that selector ${selectorText(group.selector)} matches`;
  }
}

/**
 * Which runs of the kind and namespace pruner lists for a limit: the name label with the
 * name (history_limiter.go:271-274); the selector's labels, then its annotations
 * (:275-318); every one for a namespace's or the top's own limit (:339-342). No run's own
 * labels or annotations beyond those are asked for, and an empty selector lists all.
 */
function countedIncludes(group: PrunerHistoryGroup): (run: TargetRecord) => boolean {
  switch (group.by) {
    case 'namespace':
      return () => true;
    case 'name': {
      const { labelKey, value } = group;
      return (run) => own(run.labels, labelKey) === value;
    }
    case 'selector': {
      const { selector } = group;
      return (run) => selectorMatches(selector, run);
    }
  }
}

/**
 * The policy with tektoncd/pruner's read in: kept whole on `pruner`, and its limits on the
 * runs' policy, between a Namespace's labels and the flags (history.ts). A pass and explain
 * decide with the same.
 */
export function withPrunerPolicy(policy: Policy, config: PrunerConfig): Policy {
  const { external, keeps } = prunerRunPolicy(config);
  return { ...policy, pruner: config, runs: { requireResultsStored: false, ...policy.runs, external, keeps } };
}

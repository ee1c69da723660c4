/**
 * The settings of the collector and the one table of its flags. A flag is written here once:
 * its name (from which its variable, `TRGC_…`, follows), the setting it fills, its default,
 * its parser, its help text, the commands that take it and the chart value that sets it.
 * config.ts reads the command line and the environment with it, help.ts lays out --help from
 * it (and docs/cli.md follows from --help), and harness/chart-flags.ts writes the chart's
 * mapping of values to flags from it (`npm run chart:flags`).
 */
import { COLLECTOR_NAMES, COLLECTORS, DEFAULT_COLLECTORS, type CollectorName } from '../core/collectors.js';
import type { RetentionDuration } from '../core/types.js';
import { formatDuration, parseDurationMs, parseRetentionDuration, type Parsed } from '../core/retention.js';
import { parseHistoryLimit, parseRunTtl } from '../core/history.js';
import { RETRY_WINDOW_MS } from '../kube/http.js';
import { LOG_LEVELS, type LogLevel } from '../ops/log.js';
import { gatewayPathProblem, parseGroupingLabel, type GroupingLabel } from '../ops/pushgateway.js';
import { PROGRESS_MODES, type ProgressMode } from '../ops/progress.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../report/model.js';
import { parseSchedule, parseTimeZone } from '../process/schedule.js';
import { isDnsSubdomain, isLabelKey, parseSelector } from './selector.js';

/** The longest line of a flag's help, as the hand-wrapped rows keep to. */
const HELP_WIDTH = 90;

export { LOG_LEVELS, type LogLevel };

export const PVC_FINALIZER_MODES = ['keep', 'purge'] as const;
export type PvcFinalizerMode = (typeof PVC_FINALIZER_MODES)[number];

/** Every setting a flag fills, by the name it has in the Config (and the chart's values). */
export interface ConfigValues {
  dryRun: boolean;
  /** Empty: all namespaces. */
  namespaces: string[];
  excludeNamespaces: string[];
  /** Label selector on targets, applied by the API server. Empty: none. */
  selector: string;
  /** The collectors on, in COLLECTOR_NAMES order (their delete order); `pipelineresources` alone by default. */
  collect: readonly CollectorName[];
  /**
   * What becomes of a deleted workspace PVC's `kubernetes.io/pvc-protection` finalizer: `keep`
   * leaves it to Kubernetes (the claim stays Terminating while a Pod names it), `purge` removes
   * it once every Pod naming the claim has finished.
   */
  pvcFinalizer: PvcFinalizerMode;
  /** `--pruner-config`: the namespace of tektoncd/pruner's global ConfigMap, whose policies the run collectors apply; absent: none read. */
  prunerConfig?: string;
  /**
   * Label selector on Namespaces, applied by the API server: a pass reads only in those it
   * matches (one shard of the cluster). Absent when not set (or set empty).
   */
  namespaceSelector?: string;
  minAgeMs: number;
  /** Global retain-for; undefined when not set. */
  retainFor?: RetentionDuration;
  /** --keep: the history limit of both outcomes, where --keep-successful or --keep-failed does not set one. */
  keep?: number;
  keepSuccessful?: number;
  keepFailed?: number;
  /** --run-ttl: a finished run goes this long after its completion. */
  runTtl?: RetentionDuration;
  /** --group-by: the label naming a run's group before Tekton's. */
  groupBy?: string;
  /** --require-results-stored. */
  requireResultsStored: boolean;
  labelPrefix: string;
  /** Abort the whole pass when more would be deleted. */
  maxDeletions: number;
  /** Abort the whole pass when more of one collector's targets would be deleted; absent when no collector has a cap. */
  maxDeletionsPerKind?: Partial<Record<CollectorName, number>>;
  /** Abort the whole pass when more objects would go with the runs it deletes (their cascade). */
  maxCascadeDeletions: number;
  /** Stop the delete phase after this many deletes in a row failed with the same status and reason; 0: never. */
  maxConsecutiveFailures: number;
  qps: number;
  concurrency: number;
  pageSize: number;
  /** Retries of one API request after its first attempt (429, 5xx, broken connections). */
  maxRetries: number;
  /** One attempt of an API request with no complete answer after this long is abandoned. */
  requestTimeoutMs: number;
  output: OutputFormat;
  reportFile?: string;
  logLevel: LogLevel;
  kubeconfig?: string;
  context?: string;
  /** Record an events.k8s.io/v1 Event for each deletion (and each would-be deletion in a dry run). */
  events: boolean;
  /** Schedule mode: a cron schedule (five fields) to make a pass at each tick of. */
  schedule?: { text: string; fields: string };
  /** Time zone of `schedule`; only with it. */
  timeZone?: string;
  /** The progress line on stderr: on a terminal that can take it (`auto`), or `never`. */
  progress: ProgressMode;
  /** Push metrics to this Prometheus Pushgateway at the end of each pass. */
  pushgatewayUrl?: string;
  /** Labels besides `job` of the group the metrics go to; only with `pushgatewayUrl`. */
  pushgatewayGrouping?: GroupingLabel[];
  /** A dry run writes its plan (what it would delete) here, for `apply`. */
  planFile?: string;
  /** `apply` refuses a plan older than this. */
  planMaxAgeMs: number;
  /** `apply` refuses a plan whose digest is not this one (the digest that was reviewed). */
  planDigest?: string;
  /** `explain --plan`: also say whether the target is in this plan. */
  plan?: string;
}

/** Every setting of a pass; one name per setting through flag, env var and Helm value. */
export interface Config extends ConfigValues {
  /** Where each setting that was given came from, `--min-age` or `TRGC_MIN_AGE`; absent when every setting has its default. */
  origins?: { readonly [F in FlagName]?: string };
}

/** The commands: `run` (the default), `explain [KIND/]NAMESPACE/NAME` and `apply PATH`. */
export type Command = 'run' | 'explain' | 'apply';

/** A value parser: the value, or what was expected (`expected …, such as …`). */
export type Parse<T> = (text: string) => Parsed<T>;

/** One flag's raw values, as its `read` sees them: parsed on demand, errors naming where the value came from. */
export interface FlagReader {
  /** The value, if given. */
  one<T>(parse: Parse<T>): T | undefined;
  /** Comma-separated values of every occurrence, each parsed, duplicates dropped; undefined when not given. */
  list<T>(parse: Parse<T>): T[] | undefined;
  /** A boolean flag's value (`--flag`, `--flag=false`, `TRGC_FLAG=true`), if given. */
  boolean(): boolean | undefined;
  /** Refuses the values given (as `given` shows them), saying why, in the one line of a parse error. */
  refuse(given: string, why: string): never;
}

/** One flag: everything about it but the rules between flags (config.ts). */
export interface FlagSpec<K extends keyof ConfigValues = keyof ConfigValues> {
  /** `boolean` takes no value (or `=true`/`=false`), `value` one value, `list` any number of comma-separated values. */
  kind: 'boolean' | 'value' | 'list';
  /** The setting it fills. */
  key: K;
  /** Its value when not given; absent: the setting is left out of the Config. */
  default?: ConfigValues[K];
  /** The setting from the flag's values; undefined when not given. */
  read(from: FlagReader): ConfigValues[K] | undefined;
  /** The default as --help shows it; without: as written (a list comma-separated). */
  show?(value: ConfigValues[K]): string;
  /** The value's placeholder in --help, e.g. `DURATION`; none for a boolean. */
  value?: string;
  /** What it does, in lines of --help. */
  help: readonly string[];
  /** One typical use, for error messages and --help. */
  example: string;
  /**
   * The chart's value that sets it and how the container gets it: as its variable, or
   * (`arg`) as a flag only when set away from its default. `npm run chart:flags` writes
   * chart/templates/_helpers.tpl's mapping of values to flags from this column, in table
   * order (the order of the container's variables), and test/unit/chart-values.test.ts
   * fails when the committed mapping is not what it writes. Absent: the chart has no value
   * for it.
   */
  chart?: { value: string; as: 'env' | 'arg' };
  /**
   * The commands that take it. On the command line of another it is an error; in the
   * environment (a pod's, where it may be the chart's for another mode) it is left alone, but
   * for `run`, which reads every variable.
   */
  commands: readonly Command[];
}

/** A table row, its default's type kept (for DEFAULTS). */
function flag<K extends keyof ConfigValues, const D extends ConfigValues[K] | undefined = undefined>(spec: FlagSpec<K> & { default?: D }): FlagSpec<K> & { default: D } {
  return spec as FlagSpec<K> & { default: D };
}

const EVERY: readonly Command[] = ['run', 'explain', 'apply'];

/** A scope flag naming namespaces (`--namespace`, `--exclude-namespace`): none by default. */
function namespaceList<K extends 'namespaces' | 'excludeNamespaces'>(key: K, help: readonly string[], example: string) {
  return flag({ kind: 'list', key, default: [], read: (from) => from.list(parseNamespace), value: 'NAME', help, example, chart: { value: key, as: 'env' }, commands: EVERY });
}
/** The runs' policy: what a pass and explain decide runs with, and apply compares with its plan's. */
const RUNS: readonly Command[] = EVERY;
/** A pass's own flags: a run's and an apply's, not explain's. */
const PASS: readonly Command[] = ['run', 'apply'];

const HOUR_MS = 3_600_000;
export const MAX_PAGE_SIZE = 10_000;
/**
 * Bounds of the retry settings. Past 20 retries (minutes of backoff) a request is failing
 * for good; past an hour an attempt is not slow, it is stuck.
 */
export const MAX_RETRIES = 20;
export const MAX_REQUEST_TIMEOUT_MS = HOUR_MS;

/**
 * Every flag, in the order of --help, which is also the order of the variables the chart
 * gives the container (harness/chart-flags.ts). Defaults: `min-age` and `page-size` are the
 * contract's (docs/spec.md). `max-deletions` 1000: above a night of per-commit resources on a busy CI
 * cluster, far below "every resource in the cluster" after a mistake in scope or in the rules.
 * `max-cascade-deletions` 20000: twenty objects for each of those 1000 runs (a PipelineRun of
 * a few tasks brings a TaskRun and a Pod per task, and a claim or a Secret).
 * `qps` 20 with `concurrency` 4 deletes 1000 targets in under a minute while holding 4 of the
 * API server's default 200 mutating requests in flight.
 */
export const FLAGS = {
  'dry-run': flag({
    kind: 'boolean',
    key: 'dryRun',
    default: false,
    read: (from) => from.boolean(),
    help: ['Decide and report, delete nothing. --dry-run=false turns it off again.'],
    example: '--dry-run=false',
    chart: { value: 'dryRun', as: 'env' },
    commands: ['run'],
  }),
  namespace: namespaceList('namespaces', ['Only look in this namespace. Repeatable, or comma-separated: --namespace ci,team-a.', 'Without it: all namespaces.'], '--namespace ci'),
  'exclude-namespace': namespaceList(
    'excludeNamespaces',
    ['Never look in this namespace, even when --namespace names it. Repeatable, or', 'comma-separated.'],
    '--exclude-namespace kube-system',
  ),
  selector: flag({
    kind: 'value',
    key: 'selector',
    default: '',
    read: (from) => from.one(parseSelector),
    value: 'SELECTOR',
    help: [
      'Only targets matching this label selector (=, ==, !=, in, notin, key, !key), whatever',
      'their collector. Without it: all. A run it does not match is no target, but still holds',
      'its place in its group\'s history (--keep).',
    ],
    example: '--selector app=ci',
    chart: { value: 'selector', as: 'env' },
    commands: EVERY,
  }),
  'namespace-selector': flag({
    kind: 'value',
    key: 'namespaceSelector',
    // Set empty (as the chart renders every variable): none.
    read: (from) => from.one(parseSelector) || undefined,
    value: 'SELECTOR',
    help: [
      'Only look in the Namespaces whose labels match this label selector (same grammar as',
      '--selector): one shard of the cluster, e.g. for one CronJob of several. With --namespace,',
      'only the named ones it matches; --exclude-namespace still wins. Needs RBAC to list',
      'namespaces at cluster scope. Without it: all.',
    ],
    example: '--namespace-selector tekton-resource-gc.io/shard=a',
    chart: { value: 'namespaceSelector', as: 'env' },
    commands: PASS,
  }),
  collect: flag({
    kind: 'list',
    key: 'collect',
    // A user who never names a collector sees no change, and no upgrade turns a new one on.
    default: DEFAULT_COLLECTORS,
    read: (from) => inDeleteOrder(from.list(parseCollector)),
    value: 'LIST',
    help: wrapped(
      `What to collect, comma-separated or repeated: ${COLLECTOR_NAMES.map((name) => `${name} (${COLLECTORS[name].describes})`).join('; ')}. A target is deleted once no run that links it needs it any more (explain says why for one). There is no all: name each, so that no upgrade turns a new collector on. Each needs its own RBAC. explain of a run reads the targets of the collectors named beside it in its namespace, as a pass with them on does (a run stays while something that goes with it is kept).`,
    ),
    example: '--collect pipelineresources,workspace-pvcs',
    chart: { value: 'collect', as: 'arg' },
    commands: EVERY,
  }),
  'pvc-finalizer': flag({
    kind: 'value',
    key: 'pvcFinalizer',
    default: 'keep',
    read: (from) => from.one(oneOfParser(PVC_FINALIZER_MODES, 'purge')),
    value: 'MODE',
    help: [
      "A deleted workspace PVC keeps Kubernetes' kubernetes.io/pvc-protection finalizer while a",
      'Pod names it, and is reported terminating. keep leaves it to Kubernetes; purge removes',
      'it with one guarded patch once every Pod naming the claim has Succeeded or Failed (needs',
      'patch on persistentvolumeclaims). Other finalizers are never touched. purge only with',
      '--collect workspace-pvcs.',
    ],
    example: '--pvc-finalizer purge',
    chart: { value: 'pvcFinalizer', as: 'arg' },
    commands: PASS,
  }),
  'pruner-config': flag({
    kind: 'value',
    key: 'prunerConfig',
    read: (from) => from.one(parseNamespace),
    value: 'NAMESPACE',
    help: [
      "Read tektoncd/pruner's policies as pruner applies them: the ConfigMap",
      'tekton-pruner-default-spec in NAMESPACE (where pruner runs, usually tekton-pipelines) and',
      'each tekton-pruner-namespace-spec in the namespaces the pass reads, for the run',
      'collectors. A field that cannot be read, or a refusal (403), ends the pass with exit 1',
      'before anything is listed. Needs get on that ConfigMap and list on configmaps.',
      "explain of a run reads them too (the run's namespace's); apply, its plan's.",
      'Without it: none read.',
    ],
    example: '--pruner-config tekton-pipelines',
    chart: { value: 'prunerConfig', as: 'arg' },
    commands: EVERY,
  }),
  'min-age': flag({
    kind: 'value',
    key: 'minAgeMs',
    default: HOUR_MS,
    read: (from) => from.one(parseDurationMs),
    show: formatDuration,
    value: 'DURATION',
    help: [
      'Keep anything younger than this (reason too-young). Under 1m is allowed with a warning in the',
      'report: Tekton resolves references a few seconds after a run is created.',
      'Durations: 30m, 12h, 7d, 2w (s, m, h, d, w), or ISO 8601 such as PT12H or P7D.',
    ],
    example: '--min-age 1h',
    chart: { value: 'minAge', as: 'env' },
    commands: EVERY,
  }),
  'retain-for': flag({
    kind: 'value',
    key: 'retainFor',
    read: (from) => from.one(parseRetentionDuration),
    value: 'DURATION',
    help: [
      'Keep each PipelineResource this long after its last referencing run finished, or after',
      'its creation when no run is known (reason retain-for). A DURATION or forever. A',
      '<prefix>/retain-for label or annotation on the resource wins. Without it: none.',
    ],
    example: '--retain-for 7d',
    chart: { value: 'retainFor', as: 'env' },
    commands: EVERY,
  }),
  keep: flag({
    kind: 'value',
    key: 'keep',
    read: (from) => from.one(parseHistoryLimit),
    value: 'N',
    help: [
      'pipelineruns, taskruns: keep the N newest finished runs of each outcome (succeeded;',
      'failed, cancelled and timed out included) per group, and delete the older ones',
      '(history-kept, history-exceeded). --keep-successful and --keep-failed win for their',
      'outcome; <prefix>/keep on the run or its namespace wins over all three. Without it: none.',
    ],
    example: '--keep 5',
    chart: { value: 'keep', as: 'arg' },
    commands: RUNS,
  }),
  'keep-successful': flag({
    kind: 'value',
    key: 'keepSuccessful',
    read: (from) => from.one(parseHistoryLimit),
    value: 'N',
    help: ['The same, for the runs that succeeded only (<prefix>/keep-successful wins).'],
    example: '--keep-successful 10',
    chart: { value: 'keepSuccessful', as: 'arg' },
    commands: RUNS,
  }),
  'keep-failed': flag({
    kind: 'value',
    key: 'keepFailed',
    read: (from) => from.one(parseHistoryLimit),
    value: 'N',
    help: ['The same, for the runs that failed, were cancelled or timed out (<prefix>/keep-failed wins).'],
    example: '--keep-failed 3',
    chart: { value: 'keepFailed', as: 'arg' },
    commands: RUNS,
  }),
  'run-ttl': flag({
    kind: 'value',
    key: 'runTtl',
    read: (from) => from.one(parseRunTtl),
    value: 'DURATION',
    help: [
      'pipelineruns, taskruns: delete a finished run this long after its completionTime',
      "(ttl-expired), for an outcome no history limit covers: a limit's N newest always stay.",
      'A DURATION or forever; <prefix>/run-ttl on the run or its namespace wins. Without it: none.',
    ],
    example: '--run-ttl 7d',
    chart: { value: 'runTtl', as: 'arg' },
    commands: RUNS,
  }),
  'group-by': flag({
    kind: 'value',
    key: 'groupBy',
    read: (from) => from.one(parseGroupBy),
    value: 'LABEL',
    help: [
      "The label that names a run's group for the history limits, before tekton.dev/pipeline",
      '(PipelineRuns) and tekton.dev/task, tekton.dev/clusterTask (TaskRuns); a run without it',
      "is grouped by those. E.g. Pipelines-as-Code's pipelinesascode.tekton.dev/original-prname.",
    ],
    example: '--group-by pipelinesascode.tekton.dev/original-prname',
    chart: { value: 'groupBy', as: 'arg' },
    commands: RUNS,
  }),
  'require-results-stored': flag({
    kind: 'boolean',
    key: 'requireResultsStored',
    default: false,
    read: (from) => from.boolean(),
    help: [
      'pipelineruns, taskruns: delete a run only once Tekton Results has stored it (annotation',
      'results.tekton.dev/stored: "true"); until then it is kept (results-not-stored).',
    ],
    example: '--require-results-stored',
    chart: { value: 'requireResultsStored', as: 'arg' },
    commands: RUNS,
  }),
  'label-prefix': flag({
    kind: 'value',
    key: 'labelPrefix',
    default: 'tekton-resource-gc.io',
    read: (from) => from.one(parseLabelPrefix),
    value: 'PREFIX',
    help: ['Prefix of the retention labels and annotations (see below); a DNS subdomain.'],
    example: '--label-prefix gc.example.com',
    chart: { value: 'labelPrefix', as: 'env' },
    commands: EVERY,
  }),
  'max-deletions': flag({
    kind: 'value',
    key: 'maxDeletions',
    default: 1000,
    read: (from) => from.one(integerParser(0, Number.MAX_SAFE_INTEGER, 1000)),
    value: 'N',
    help: [
      'If a pass would delete more than N (of every collector; removing a PVC\'s finalizer counts',
      'too), delete nothing at all, report every candidate as aborted and exit 3: a guard',
      'against a mistake in scope. 0 deletes nothing.',
    ],
    example: '--max-deletions 1000',
    chart: { value: 'maxDeletions', as: 'env' },
    commands: PASS,
  }),
  'max-deletions-per-kind': flag({
    kind: 'list',
    key: 'maxDeletionsPerKind',
    // Only for collectors that are on: config.ts, which knows --collect.
    read: (from) => collectorCaps(from, from.list(parseCollectorCap)),
    value: 'COLLECTOR=N',
    help: [
      "The same guard for one collector's targets. Repeatable, or comma-separated:",
      'workspace-pvcs=200,pac-secrets=500; only for collectors that are on. Without it:',
      '--max-deletions alone.',
    ],
    example: '--max-deletions-per-kind workspace-pvcs=200',
    chart: { value: 'maxDeletionsPerKind', as: 'arg' },
    commands: PASS,
  }),
  'max-cascade-deletions': flag({
    kind: 'value',
    key: 'maxCascadeDeletions',
    default: 20000,
    read: (from) => from.one(integerParser(0, Number.MAX_SAFE_INTEGER, 20000)),
    value: 'N',
    help: [
      'pipelineruns, taskruns: the same guard for what goes with the runs a pass deletes',
      '(their TaskRuns, Pods and owned leftovers, as the report\'s cascade counts them), counted',
      'apart from --max-deletions, which counts the runs. Only with a run collector.',
    ],
    example: '--max-cascade-deletions 5000',
    chart: { value: 'maxCascadeDeletions', as: 'arg' },
    commands: PASS,
  }),
  'max-consecutive-failures': flag({
    kind: 'value',
    key: 'maxConsecutiveFailures',
    default: 5,
    read: (from) => from.one(integerParser(0, Number.MAX_SAFE_INTEGER, 5)),
    value: 'N',
    help: [
      'Stop the delete phase after N deletes in a row fail with the same HTTP status and reason',
      '(a 403 after an RBAC change, a webhook refusing deletes): the candidates not tried are',
      'reported skipped, exit 3. A delete that succeeds starts the count again; gone (404) and',
      'changed (409) do not count. 0 never stops.',
    ],
    example: '--max-consecutive-failures 5',
    chart: { value: 'maxConsecutiveFailures', as: 'env' },
    commands: PASS,
  }),
  qps: flag({
    kind: 'value',
    key: 'qps',
    default: 20,
    read: (from) => from.one(parseQps),
    value: 'NUMBER',
    help: ['Deletes per second at most.'],
    example: '--qps 20',
    chart: { value: 'qps', as: 'env' },
    commands: PASS,
  }),
  concurrency: flag({
    kind: 'value',
    key: 'concurrency',
    default: 4,
    read: (from) => from.one(integerParser(1, Number.MAX_SAFE_INTEGER, 4)),
    value: 'N',
    help: ['Deletes in flight at most.'],
    example: '--concurrency 4',
    chart: { value: 'concurrency', as: 'env' },
    commands: PASS,
  }),
  'page-size': flag({
    kind: 'value',
    key: 'pageSize',
    default: 500,
    read: (from) => from.one(integerParser(1, MAX_PAGE_SIZE, 500)),
    value: 'N',
    help: [`Objects per list request (limit/continue), 1 to ${MAX_PAGE_SIZE}.`],
    example: '--page-size 500',
    chart: { value: 'pageSize', as: 'env' },
    commands: EVERY,
  }),
  'max-retries': flag({
    kind: 'value',
    key: 'maxRetries',
    default: 5,
    read: (from) => from.one(integerParser(0, MAX_RETRIES, 5)),
    value: 'N',
    help: [
      `Retry an API request at most N times (0 to ${MAX_RETRIES}) when it is throttled (429, honouring`,
      'Retry-After), meets a server error (5xx) or a broken connection, with backoff; no retry',
      `starts later than ${formatDuration(RETRY_WINDOW_MS)} after the first attempt. A list that still fails stops the pass`,
      '(exit 1, nothing deleted); a delete that still fails is reported failed (exit 3). A refused',
      'delete is tried again only after the runs are re-checked, if the last check is over 5s old.',
    ],
    example: '--max-retries 5',
    chart: { value: 'maxRetries', as: 'env' },
    commands: EVERY,
  }),
  'request-timeout': flag({
    kind: 'value',
    key: 'requestTimeoutMs',
    default: 60_000,
    read: (from) => from.one(parseRequestTimeout),
    show: formatDuration,
    value: 'DURATION',
    help: ['Abandon (and retry) one attempt of an API request with no complete answer after this', 'long, 1s to 1h.'],
    example: '--request-timeout 30s',
    chart: { value: 'requestTimeout', as: 'env' },
    commands: EVERY,
  }),
  output: flag({
    kind: 'value',
    key: 'output',
    default: 'text',
    read: (from) => from.one(oneOfParser(OUTPUT_FORMATS, 'json')),
    value: 'FORMAT',
    help: ['Report on stdout: text (a table), json (see docs/reports.md) or markdown (for a pull', 'request or a chat message).'],
    example: '--output json',
    chart: { value: 'output', as: 'env' },
    commands: EVERY,
  }),
  'report-file': flag({
    kind: 'value',
    key: 'reportFile',
    read: (from) => from.one(nonEmptyParser('reports/gc.md')),
    value: 'PATH',
    help: ['Also write the report, in the --output format, to PATH.'],
    example: '--report-file reports/gc.md',
    commands: PASS,
  }),
  'log-level': flag({
    kind: 'value',
    key: 'logLevel',
    default: 'info',
    read: (from) => from.one(oneOfParser(LOG_LEVELS, 'debug')),
    value: 'LEVEL',
    help: ['Logs (JSON lines on stderr): trace, debug, info, warn, error, fatal or silent.'],
    example: '--log-level debug',
    chart: { value: 'logLevel', as: 'env' },
    commands: EVERY,
  }),
  kubeconfig: flag({
    kind: 'value',
    key: 'kubeconfig',
    read: (from) => from.one(nonEmptyParser('~/.kube/config')),
    value: 'PATH',
    help: [
      'Kubeconfig file. Without it: $KUBECONFIG, then ~/.kube/config, then the in-cluster',
      'service account. Tokens, token files, client certificates, exec credential plugins and',
      'auth-providers work; proxy-url does not.',
    ],
    example: '--kubeconfig ~/.kube/config',
    commands: EVERY,
  }),
  context: flag({
    kind: 'value',
    key: 'context',
    read: (from) => from.one(nonEmptyParser('kind-ci')),
    value: 'NAME',
    help: ["Context of the kubeconfig to use. Without it: the kubeconfig's current context."],
    example: '--context kind-ci',
    commands: EVERY,
  }),
  events: flag({
    kind: 'boolean',
    key: 'events',
    default: false,
    read: (from) => from.boolean(),
    help: [
      'Record Kubernetes Events (events.k8s.io/v1), so kubectl get events shows them: one per',
      'target deleted (reason Deleted, regarding it by its own kind) or whose delete failed',
      '(DeleteFailed), and for a dry run one per namespace (WouldDelete, regarding the',
      'Namespace: how many of each kind, by reason, and which). At most 1000 a pass; a log line',
      'counts the rest. Needs create on events.k8s.io events; an Event that cannot be created is',
      'logged and never fails the pass.',
    ],
    example: '--events',
    chart: { value: 'events', as: 'env' },
    commands: PASS,
  }),
  schedule: flag({
    kind: 'value',
    key: 'schedule',
    read: (from) => from.one(parseScheduleSetting),
    value: 'CRON',
    help: [
      'Stay running and make a pass at each tick: five cron fields (minute hour day-of-month',
      'month day-of-week), @hourly, @daily, @weekly, @monthly, @yearly or @every DURATION',
      '(at least 1m), read and ticked as Kubernetes does a CronJob schedule: day of week 0-6;',
      'a day field written with * (*/1 too) makes both day fields have to match, else either.',
      'Passes never overlap: ticks a pass ran past get none, and one warning says how many.',
      'Logs when the next pass is. SIGTERM ends it between passes. Without it: one pass.',
    ],
    example: '--schedule "17 * * * *"',
    commands: ['run'],
  }),
  'time-zone': flag({
    kind: 'value',
    key: 'timeZone',
    read: (from) => from.one(parseTimeZone),
    value: 'ZONE',
    help: [
      "Time zone of --schedule, a tz database name, as a CronJob's timeZone: on the day clocks",
      'go forward, ticks in the hour skipped do not happen; on the day they go back, ticks in',
      "the hour repeated happen twice. Without it: the machine's time zone.",
    ],
    example: '--time-zone Europe/Berlin',
    commands: ['run'],
  }),
  progress: flag({
    kind: 'value',
    key: 'progress',
    default: 'auto',
    read: (from) => from.one(oneOfParser(PROGRESS_MODES, 'never')),
    value: 'WHEN',
    help: [
      'The updating progress line on stderr: auto draws it when stderr is a terminal and TERM',
      'is set and not dumb; never leaves stderr to the JSON log lines (for a terminal that is',
      'recorded and read line by line, such as docker run -t or a CI runner).',
    ],
    example: '--progress never',
    commands: PASS,
  }),
  'pushgateway-url': flag({
    kind: 'value',
    key: 'pushgatewayUrl',
    read: (from) => from.one(parsePushgatewayUrl),
    value: 'URL',
    help: [
      'At the end of each pass, push its metrics (targets, decisions by reason, deletions by',
      'result, errors, duration, time of the last successful pass) to this Prometheus',
      'Pushgateway, as job tekton-resource-gc. A pass that ran as planned (exit 0) replaces its',
      'group; exit 3 adds its counts and keeps the last success; exit 1 pushes only its exit',
      'code, errors, duration and time, so the last counts stay. The address alone, or with a',
      'proxy\'s path prefix: a path with /metrics is refused (use --pushgateway-grouping). A',
      'failed push is logged, never fails the pass. Credentials in the URL are never logged.',
    ],
    example: '--pushgateway-url http://pushgateway.monitoring:9091',
    chart: { value: 'pushgatewayUrl', as: 'env' },
    commands: PASS,
  }),
  'pushgateway-grouping': flag({
    kind: 'list',
    key: 'pushgatewayGrouping',
    // Only with --pushgateway-url and each label once: config.ts.
    read: (from) => from.list(parseGroupingLabel),
    value: 'NAME=VALUE',
    help: [
      'Labels besides job of the group the metrics go to, comma-separated or repeated. Give',
      'each install that pushes to one gateway its own (the chart sets instance and namespace):',
      'installs in one group replace each other\'s metrics. Prometheus label names; not job,',
      'action, reason, result or __*. Values non-empty, without commas. Only with',
      '--pushgateway-url. Without it: job alone.',
    ],
    example: '--pushgateway-grouping instance=ci-gc,cluster=prod',
    chart: { value: 'pushgatewayGrouping', as: 'env' },
    commands: PASS,
  }),
  'plan-file': flag({
    kind: 'value',
    key: 'planFile',
    read: (from) => from.one(nonEmptyParser('plan.json')),
    value: 'PATH',
    help: [
      'With --dry-run: also write the plan, what this dry run would delete (namespace, name, uid,',
      'resourceVersion, reason), the settings that decided it, the cluster and the time, with a',
      'SHA-256 digest of the whole. The report names the digest. `apply PATH` deletes from it.',
    ],
    example: '--plan-file plan.json',
    commands: ['run'],
  }),
  'plan-digest': flag({
    kind: 'value',
    key: 'planDigest',
    read: (from) => from.one(parsePlanDigest),
    value: 'DIGEST',
    help: [
      'apply refuses a plan whose digest is not this one (exit 2): pin the plan that was reviewed.',
      'Without it the plan\'s own digest still refuses a plan edited after it was written.',
    ],
    example: '--plan-digest sha256:3f5a…',
    chart: { value: 'planDigest', as: 'env' },
    commands: ['apply'],
  }),
  'plan-max-age': flag({
    kind: 'value',
    key: 'planMaxAgeMs',
    // A plan reviewed on one working day is applied on the next at the latest.
    default: 24 * HOUR_MS,
    read: (from) => from.one(parseDurationMs),
    show: formatDuration,
    value: 'DURATION',
    help: ['apply refuses a plan older than this (exit 2).'],
    example: '--plan-max-age 12h',
    chart: { value: 'planMaxAge', as: 'env' },
    commands: ['apply'],
  }),
  plan: flag({
    kind: 'value',
    key: 'plan',
    read: (from) => from.one(nonEmptyParser('plan.json')),
    value: 'PATH',
    help: ['explain also says whether the target is in this plan, and what apply would do with it.'],
    example: '--plan plan.json',
    commands: ['explain'],
  }),
};

export type FlagName = keyof typeof FLAGS;
export const FLAG_NAMES = Object.keys(FLAGS) as FlagName[];

/** A flag's row, as a row of the whole table. */
export function flagSpec(name: FlagName): FlagSpec {
  return FLAGS[name];
}

/** `min-age` -> `TRGC_MIN_AGE` */
export function envVarName(name: FlagName): string {
  return `TRGC_${name.toUpperCase().replace(/-/g, '_')}`;
}

/** The flags `command` takes, in table order. */
export function flagsOf(command: Command): FlagName[] {
  return FLAG_NAMES.filter((name) => flagSpec(name).commands.includes(command));
}

type Row<F extends FlagName> = (typeof FLAGS)[F];
type WithDefault = { [F in FlagName]: Row<F>['default'] extends undefined ? never : F }[FlagName];

/** The default of each setting that has one, by its Config key: the table's. */
export const DEFAULTS = Object.fromEntries(
  FLAG_NAMES.flatMap((name) => {
    const spec = flagSpec(name);
    return spec.default === undefined ? [] : [[spec.key, spec.default]];
  }),
) as { readonly [F in WithDefault as Row<F>['key']]: Row<F>['default'] };

/** The default as --help shows it; none for a flag without one or with an empty one (no namespace, no selector). */
export function shownDefault(name: FlagName): string | undefined {
  const spec = flagSpec(name);
  const value = spec.default;
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return undefined;
  if (spec.show !== undefined) return spec.show(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isTextList(value)) return value.join(',');
  throw new Error(`--${name}: a default other than text, a number, a boolean or a list of names needs its own show`);
}

function isTextList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

// ---- value parsers ----

export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

function expected(what: string): Parsed<never> {
  return { ok: false, error: `expected ${what}` };
}

/** A boolean flag's parser; its error shows that flag's own forms. */
export function parseBoolean(name: FlagName): Parse<boolean> {
  return (text) => {
    if (text === 'true' || text === 'false') return ok(text === 'true');
    return expected(`true or false, such as --${name}, --${name}=false or ${envVarName(name)}=true`);
  };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Namespace names are DNS-1123 labels. */
export function parseNamespace(text: string): Parsed<string> {
  if (text.length <= 63 && DNS_LABEL.test(text)) return ok(text);
  return expected("a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit) such as team-a");
}

/** The prefix of a label key is a DNS-1123 subdomain. */
function parseGroupBy(text: string): Parsed<string> {
  if (isLabelKey(text)) return ok(text);
  return expected('a label key ([prefix/]name, the name at most 63 letters, digits, -, _ or .) such as pipelinesascode.tekton.dev/original-prname');
}

function parseLabelPrefix(text: string): Parsed<string> {
  if (isDnsSubdomain(text)) return ok(text);
  return expected("a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters) such as tekton-resource-gc.io or gc.example.com");
}

function integerParser(min: number, max: number, sample: number): Parse<number> {
  const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
  return (text) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (Number.isSafeInteger(value) && value >= min && value <= max) return ok(value);
    return expected(`a whole number ${range}, such as ${sample}`);
  };
}

function parseQps(text: string): Parsed<number> {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isFinite(value) && value > 0) return ok(value);
  return expected('a number greater than 0, such as 20 or 2.5');
}

/** A duration of a second (an attempt with less hardly gets an answer) to an hour. */
function parseRequestTimeout(text: string): Parsed<number> {
  const parsed = parseDurationMs(text);
  if (parsed.ok && parsed.value >= 1_000 && parsed.value <= MAX_REQUEST_TIMEOUT_MS) return parsed;
  return expected('a duration from 1s to 1h, such as 30s, 2m or PT45S');
}

/** A paragraph of help as the lines `--help` prints: at most HELP_WIDTH characters each, broken between words. */
export function wrapped(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

const COLLECT_EXPECTED = `one or more of ${COLLECTOR_NAMES.join(', ')}, such as pipelineresources,workspace-pvcs`;

/** One collector's name. There is no `all`: an upgrade that adds a collector must never turn it on. */
function parseCollector(text: string): Parsed<CollectorName> {
  const name = COLLECTOR_NAMES.find((candidate) => candidate === text);
  if (name !== undefined) return ok(name);
  if (text === 'all') return { ok: false, error: `there is no all, so that no upgrade turns a new collector on; name each, ${COLLECT_EXPECTED}` };
  return expected(COLLECT_EXPECTED);
}

/** The collectors given, in table order (their delete order). */
function inDeleteOrder(given: readonly CollectorName[] | undefined): readonly CollectorName[] | undefined {
  return given === undefined ? undefined : COLLECTOR_NAMES.filter((name) => given.includes(name));
}

const CAP_EXAMPLE = 'workspace-pvcs=200,pac-secrets=500';

/** `COLLECTOR=N`: at most N deletions of that collector's targets in a pass. */
function parseCollectorCap(text: string): Parsed<{ collector: CollectorName; max: number }> {
  const equals = text.indexOf('=');
  const collector = COLLECTOR_NAMES.find((candidate) => candidate === text.slice(0, equals).trim());
  const max = integerParser(0, Number.MAX_SAFE_INTEGER, 200)(text.slice(equals + 1).trim());
  if (equals === -1 || collector === undefined) return expected(`COLLECTOR=N with COLLECTOR one of ${COLLECTOR_NAMES.join(', ')}, such as ${CAP_EXAMPLE}`);
  if (!max.ok) return expected(`COLLECTOR=N with N a whole number of 0 or more, such as ${CAP_EXAMPLE}`);
  return ok({ collector, max: max.value });
}

/** `COLLECTOR=N,…` as the caps were given: what an error about them quotes. */
export function capsText(caps: readonly { collector: CollectorName; max: number }[]): string {
  return caps.map(({ collector, max }) => `${collector}=${max}`).join(',');
}

/** The caps given, by collector, in the order given; each collector once. */
function collectorCaps(from: FlagReader, caps: readonly { collector: CollectorName; max: number }[] | undefined): Partial<Record<CollectorName, number>> | undefined {
  if (caps === undefined) return undefined;
  const twice = caps.find((cap, index) => caps.findIndex((other) => other.collector === cap.collector) !== index);
  if (twice !== undefined) from.refuse(capsText(caps), `${twice.collector} given twice; give each collector once, such as ${CAP_EXAMPLE}`);
  return Object.fromEntries(caps.map(({ collector, max }) => [collector, max]));
}

function oneOfParser<T extends string>(choices: readonly T[], sample: T): Parse<T> {
  return (text) => {
    const choice = choices.find((candidate) => candidate === text);
    if (choice !== undefined) return ok(choice);
    return expected(`one of ${choices.join(', ')}, such as ${sample}`);
  };
}

/** A Pushgateway's http or https URL: its address, and a path prefix when it is behind a proxy. */
function parsePushgatewayUrl(text: string): Parsed<string> {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    return expected('an http or https URL without a query, such as http://pushgateway.monitoring:9091');
  }
  const problem = gatewayPathProblem(url);
  return problem === undefined ? ok(text) : { ok: false, error: problem };
}

function nonEmptyParser(sample: string): Parse<string> {
  return (text) => (text === '' ? expected(`a non-empty value, such as ${sample}`) : ok(text));
}

function parseScheduleSetting(text: string): Parsed<{ text: string; fields: string }> {
  const parsed = parseSchedule(text);
  return parsed.ok ? ok({ text: text.trim(), fields: parsed.value }) : parsed;
}

/** `sha256:` and 64 hex digits, as a plan and its report give it. */
function parsePlanDigest(text: string): Parsed<string> {
  const trimmed = text.trim().toLowerCase();
  return /^sha256:[0-9a-f]{64}$/.test(trimmed) ? ok(trimmed) : { ok: false, error: 'expected the plan digest a dry run reported, such as sha256:3f5a… (64 hex digits)' };
}

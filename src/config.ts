/**
 * Command line and environment -> Config. Pure: the caller passes argv (without node and
 * the script) and the environment, so tests need no process.
 *
 * Choices (written down for users in docs/spec.md):
 * - Every flag `--some-flag` is also read from `TRGC_SOME_FLAG`; a flag given on the command
 *   line wins over its variable. Repeatable flags take a comma-separated list in their
 *   variable, and commas on the command line too (`--namespace ci,team-a`).
 * - An empty variable counts as unset, so a chart can always render every variable.
 * - A `TRGC_` variable that names no flag is an error, as an unknown flag is: a typo in a
 *   chart would otherwise go unnoticed. Kubernetes' service-link variables, injected into
 *   every pod for every Service of its namespace (`TRGC_METRICS_SERVICE_HOST` for a Service
 *   `trgc-metrics`), are ignored: exactly their patterns, nothing else.
 * - A flag that takes one value may be given once; a second one is an error rather than
 *   a silent override.
 * - `--help` and `--version` win over anything else on the command line.
 */
import { COLLECTOR_NAMES, DEFAULT_COLLECTORS, type CollectorName } from './core/collectors.js';
import type { RetentionDuration } from './core/types.js';
import { parseDurationMs, parseRetentionDuration, type Parsed } from './core/retention.js';
import { gatewayPathProblem, parseGroupingLabel, type GroupingLabel } from './pushgateway.js';
import { quote } from './redact.js';
import { PROGRESS_MODES, type ProgressMode } from './progress.js';
import { OUTPUT_FORMATS, type OutputFormat } from './report/model.js';
import { parseSchedule, parseTimeZone } from './schedule.js';
import { isDnsSubdomain, parseSelector } from './selector.js';
import { nearestName } from './suggest.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every setting of a pass; one name per setting through flag, env var and Helm value. */
export interface Config {
  command: 'run';
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
  /**
   * Label selector on Namespaces, applied by the API server: a pass reads only in those it
   * matches (one shard of the cluster). Absent when not set (or set empty).
   */
  namespaceSelector?: string;
  minAgeMs: number;
  /** Global retain-for; undefined when not set. */
  retainFor?: RetentionDuration;
  labelPrefix: string;
  /** Abort the whole pass when more would be deleted. */
  maxDeletions: number;
  /** Abort the whole pass when more of one collector's targets would be deleted; absent when no collector has a cap. */
  maxDeletionsPerKind?: Partial<Record<CollectorName, number>>;
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
  /** Where each setting that was given came from, `--min-age` or `TRGC_MIN_AGE`; absent when every setting has its default. */
  origins?: { readonly [F in FlagName]?: string };
}

export const PVC_FINALIZER_MODES = ['keep', 'purge'] as const;
export type PvcFinalizerMode = (typeof PVC_FINALIZER_MODES)[number];

/** A target named on the command line: `explain [KIND/]NAMESPACE/NAME`, KIND naming the collector whose target it is. */
export interface TargetName {
  collector: CollectorName;
  namespace: string;
  name: string;
}

/** The KIND words of `explain KIND/NAMESPACE/NAME`, each the collector of that kind; a bare NAMESPACE/NAME is a PipelineResource. */
export const EXPLAIN_KINDS = {
  pipelineresource: 'pipelineresources',
  pvc: 'workspace-pvcs',
  statefulset: 'affinity-assistants',
  secret: 'pac-secrets',
} as const satisfies Record<string, CollectorName>;
export type ExplainKind = keyof typeof EXPLAIN_KINDS;
const EXPLAIN_KIND_WORDS = Object.keys(EXPLAIN_KINDS) as ExplainKind[];

/** What the command line asks for. */
export type Invocation =
  | { kind: 'run'; config: Config }
  | { kind: 'explain'; config: Config; target: TargetName }
  | { kind: 'apply'; config: Config; planFile: string }
  | { kind: 'help' }
  | { kind: 'version' };

/** Bad usage or configuration (exit 2). The message is one line naming the flag or variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * How each flag is given: `boolean` takes no value (or `=true`/`=false`), `value` one
 * value, `list` any number of comma-separated values.
 */
const FLAG_KINDS = {
  'dry-run': 'boolean',
  namespace: 'list',
  'exclude-namespace': 'list',
  selector: 'value',
  'namespace-selector': 'value',
  collect: 'list',
  'pvc-finalizer': 'value',
  'min-age': 'value',
  'retain-for': 'value',
  'label-prefix': 'value',
  'max-deletions': 'value',
  'max-deletions-per-kind': 'list',
  qps: 'value',
  concurrency: 'value',
  'page-size': 'value',
  'max-retries': 'value',
  'request-timeout': 'value',
  output: 'value',
  'report-file': 'value',
  'log-level': 'value',
  kubeconfig: 'value',
  context: 'value',
  events: 'boolean',
  schedule: 'value',
  'time-zone': 'value',
  progress: 'value',
  'pushgateway-url': 'value',
  'pushgateway-grouping': 'list',
  'plan-file': 'value',
  'plan-max-age': 'value',
  'plan-digest': 'value',
  plan: 'value',
} as const satisfies Record<string, 'boolean' | 'value' | 'list'>;

export type FlagName = keyof typeof FLAG_KINDS;
export const FLAG_NAMES = Object.keys(FLAG_KINDS) as FlagName[];

/** `min-age` -> `TRGC_MIN_AGE` */
export function envVarName(flag: FlagName): string {
  return `TRGC_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * Defaults of the settings that have one. `minAgeMs` and `pageSize` are the contract's (docs/spec.md).
 * `maxDeletions` 1000: above a night of per-commit resources on a busy CI cluster, far
 * below "every resource in the cluster" after a mistake in scope or in the rules.
 * `qps` 20 with `concurrency` 4 deletes 1000 targets in under a minute while holding 4 of
 * the API server's default 200 mutating requests in flight.
 */
export const DEFAULTS = {
  dryRun: false,
  // A user who never names a collector sees no change, and no upgrade turns a new one on.
  collect: DEFAULT_COLLECTORS,
  pvcFinalizer: 'keep',
  minAgeMs: 3_600_000,
  labelPrefix: 'tekton-resource-gc.io',
  maxDeletions: 1000,
  qps: 20,
  concurrency: 4,
  pageSize: 500,
  maxRetries: 5,
  requestTimeoutMs: 60_000,
  output: 'text',
  logLevel: 'info',
  events: false,
  progress: 'auto',
  // A plan reviewed on one working day is applied on the next at the latest.
  planMaxAgeMs: 24 * 3_600_000,
} as const satisfies Partial<Config>;

export const MAX_PAGE_SIZE = 10_000;
/**
 * Bounds of the retry settings. Past 20 retries (minutes of backoff) a request is failing
 * for good; past an hour an attempt is not slow, it is stuck.
 */
export const MAX_RETRIES = 20;
export const MAX_REQUEST_TIMEOUT_MS = 3_600_000;

const PROGRAM = 'tekton-resource-gc';

export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv.includes('--version')) return { kind: 'version' };
  const { given, command, operands } = readCommandLine(argv);
  checkEnvNames(env);
  if (command === 'explain') return explainInvocation(given, operands, env);
  if (command === 'apply') return applyInvocation(given, operands, env);
  const sources = new Map(FLAG_NAMES.flatMap((flag) => sourceOf(flag, given, env)));
  const config = toConfig(new Settings(sources));
  // On the command line of a run these are a mistake; in a pod's environment they may be the
  // chart's for another mode, and are left alone.
  const planOnly = (['plan-digest', 'plan-max-age', 'plan'] as const).find((flag) => given.has(flag));
  if (planOnly !== undefined) {
    throw new ConfigError(`--${planOnly} applies only to ${planOnly === 'plan' ? `explain, such as ${EXPLAIN_EXAMPLE} --plan plan.json` : `apply, such as ${APPLY_EXAMPLE}`}`);
  }
  if (config.planFile !== undefined && !config.dryRun) {
    throw new ConfigError(`${sources.get('plan-file')?.origin ?? '--plan-file'} writes the plan of a dry run: add --dry-run, such as ${PROGRAM} --dry-run --plan-file plan.json; a live pass from a plan is ${APPLY_EXAMPLE}`);
  }
  return { kind: 'run', config };
}

/**
 * The flags `explain` reads: what the decision depends on, the scope, the output and the
 * connection. Others on its command line are an error; in the environment (a pod's, say)
 * they are left alone.
 */
export const EXPLAIN_FLAGS: readonly FlagName[] = [
  'namespace',
  'exclude-namespace',
  'selector',
  'min-age',
  'retain-for',
  'label-prefix',
  'page-size',
  'max-retries',
  'request-timeout',
  'output',
  'log-level',
  'kubeconfig',
  'context',
  'plan',
];

const EXPLAIN_EXAMPLE = `${PROGRAM} explain ci/src-abc123`;
const EXPLAIN_KIND_EXAMPLE = `${PROGRAM} explain pvc/ci/pvc-3f5a0c9e1b`;
const APPLY_EXAMPLE = `${PROGRAM} apply plan.json`;

/**
 * What `apply` may not be given: it is one live pass of a plan, deciding with the plan's own
 * settings (a scope or rule flag that differs from the plan's is refused once the plan is read).
 */
const NOT_FOR_APPLY: readonly FlagName[] = ['dry-run', 'plan-file', 'schedule', 'time-zone', 'plan'];

function applyInvocation(given: ReadonlyMap<FlagName, string[]>, operands: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  const wrong = NOT_FOR_APPLY.find((flag) => given.has(flag));
  if (wrong !== undefined) throw new ConfigError(`--${wrong} does not apply to apply, which deletes what a plan lists in one live pass, such as ${APPLY_EXAMPLE}`);
  const [planFile] = operands;
  if (planFile === undefined || planFile === '') throw new ConfigError(`apply needs the plan file a dry run wrote with --plan-file, such as ${APPLY_EXAMPLE}`);
  // In a pod's environment the scheduling and dry-run variables are the chart's; apply leaves them alone.
  const sources = new Map(FLAG_NAMES.filter((flag) => !NOT_FOR_APPLY.includes(flag)).flatMap((flag) => sourceOf(flag, given, env)));
  const config = toConfig(new Settings(sources));
  return { kind: 'apply', config, planFile };
}

function explainInvocation(given: ReadonlyMap<FlagName, string[]>, operands: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  const other = [...given.keys()].find((flag) => !EXPLAIN_FLAGS.includes(flag));
  if (other !== undefined) throw new ConfigError(`--${other} does not apply to explain, which reads ${EXPLAIN_FLAGS.map((flag) => `--${flag}`).join(', ')}`);
  const [operand] = operands;
  if (operand === undefined) throw new ConfigError(`explain needs the target as [KIND/]NAMESPACE/NAME, such as ${EXPLAIN_EXAMPLE} or ${EXPLAIN_KIND_EXAMPLE}`);
  const target = parseTargetName(operand);
  const sources = new Map(EXPLAIN_FLAGS.flatMap((flag) => sourceOf(flag, given, env)));
  const config = toConfig(new Settings(sources));
  if (config.output === 'markdown') {
    const origin = sources.get('output')?.origin ?? '--output';
    throw new ConfigError(`${origin} "markdown": explain writes text or json, such as --output json`);
  }
  return { kind: 'explain', config, target };
}

/** `NAMESPACE/NAME` (a PipelineResource, as before there were other kinds) or `KIND/NAMESPACE/NAME`. */
function parseTargetName(text: string): TargetName {
  const parts = text.split('/');
  if (parts.length !== 3) {
    const [namespace = '', name = '', ...rest] = parts;
    if (rest.length === 0 && parseNamespace(namespace).ok && isDnsSubdomain(name)) return { collector: EXPLAIN_KINDS.pipelineresource, namespace, name };
    throw new ConfigError(`explain ${quote(text)}: expected NAMESPACE/NAME of a PipelineResource, such as ${EXPLAIN_EXAMPLE}`);
  }
  const [kind = '', namespace = '', name = ''] = parts;
  const word = EXPLAIN_KIND_WORDS.find((candidate) => candidate === kind);
  if (word === undefined) {
    throw new ConfigError(`explain ${quote(text)}: unknown kind ${quote(kind)}; expected KIND/NAMESPACE/NAME with KIND one of ${EXPLAIN_KIND_WORDS.join(', ')}, such as ${EXPLAIN_KIND_EXAMPLE}`);
  }
  if (parseNamespace(namespace).ok && isDnsSubdomain(name)) return { collector: EXPLAIN_KINDS[word], namespace, name };
  throw new ConfigError(`explain ${quote(text)}: expected KIND/NAMESPACE/NAME with a namespace and a name, such as ${EXPLAIN_KIND_EXAMPLE}`);
}

/** Where a flag's raw values came from: `--min-age` or `TRGC_MIN_AGE`, for error messages. */
interface Source {
  origin: string;
  values: string[];
}

function sourceOf(flag: FlagName, given: ReadonlyMap<FlagName, string[]>, env: Readonly<Record<string, string | undefined>>): [FlagName, Source][] {
  const fromArgs = given.get(flag);
  if (fromArgs !== undefined) return [[flag, { origin: `--${flag}`, values: fromArgs }]];
  const fromEnv = env[envVarName(flag)];
  if (fromEnv === undefined || fromEnv === '') return [];
  return [[flag, { origin: envVarName(flag), values: [fromEnv] }]];
}

function toConfig(settings: Settings): Config {
  const config: Config = {
    command: 'run',
    dryRun: settings.one('dry-run', parseBoolean('dry-run'), DEFAULTS.dryRun),
    namespaces: settings.list('namespace', parseNamespace),
    excludeNamespaces: settings.list('exclude-namespace', parseNamespace),
    selector: settings.one('selector', parseSelector, ''),
    collect: collectorsInOrder(settings.list('collect', parseCollector), DEFAULTS.collect),
    pvcFinalizer: settings.one('pvc-finalizer', oneOfParser(PVC_FINALIZER_MODES, 'purge'), DEFAULTS.pvcFinalizer),
    minAgeMs: settings.one('min-age', parseDurationMs, DEFAULTS.minAgeMs),
    labelPrefix: settings.one('label-prefix', parseLabelPrefix, DEFAULTS.labelPrefix),
    maxDeletions: settings.one('max-deletions', integerParser(0, Number.MAX_SAFE_INTEGER, DEFAULTS.maxDeletions), DEFAULTS.maxDeletions),
    qps: settings.one('qps', parseQps, DEFAULTS.qps),
    concurrency: settings.one('concurrency', integerParser(1, Number.MAX_SAFE_INTEGER, DEFAULTS.concurrency), DEFAULTS.concurrency),
    pageSize: settings.one('page-size', integerParser(1, MAX_PAGE_SIZE, DEFAULTS.pageSize), DEFAULTS.pageSize),
    maxRetries: settings.one('max-retries', integerParser(0, MAX_RETRIES, DEFAULTS.maxRetries), DEFAULTS.maxRetries),
    requestTimeoutMs: settings.one('request-timeout', parseRequestTimeout, DEFAULTS.requestTimeoutMs),
    output: settings.one('output', oneOfParser(OUTPUT_FORMATS, 'json'), DEFAULTS.output),
    logLevel: settings.one('log-level', oneOfParser(LOG_LEVELS, 'debug'), DEFAULTS.logLevel),
    events: settings.one('events', parseBoolean('events'), DEFAULTS.events),
    progress: settings.one('progress', oneOfParser(PROGRESS_MODES, 'never'), DEFAULTS.progress),
    planMaxAgeMs: settings.one('plan-max-age', parseDurationMs, DEFAULTS.planMaxAgeMs),
  };
  addOptionalSettings(config, settings);
  const origins = settings.origins();
  if (Object.keys(origins).length > 0) config.origins = origins;
  return config;
}

/** Where a setting came from, as `explain` names it: its flag (`--min-age`), its variable (`TRGC_MIN_AGE`) or `default`. */
export function settingOrigin(config: Pick<Config, 'origins'>, flag: FlagName): string {
  return config.origins?.[flag] ?? 'default';
}

/** Settings without a default are left out of the Config, not set to undefined. */
function addOptionalSettings(config: Config, settings: Settings): void {
  const namespaceSelector = settings.one('namespace-selector', parseSelector, '');
  if (namespaceSelector !== '') config.namespaceSelector = namespaceSelector;
  const retainFor = settings.one('retain-for', parseRetentionDuration);
  if (retainFor !== undefined) config.retainFor = retainFor;
  const reportFile = settings.one('report-file', nonEmptyParser('reports/gc.md'));
  if (reportFile !== undefined) config.reportFile = reportFile;
  const kubeconfig = settings.one('kubeconfig', nonEmptyParser('~/.kube/config'));
  if (kubeconfig !== undefined) config.kubeconfig = kubeconfig;
  const context = settings.one('context', nonEmptyParser('kind-ci'));
  if (context !== undefined) config.context = context;
  addScheduleSettings(config, settings);
  addPushgatewaySettings(config, settings);
  addCollectorSettings(config, settings);
  const planFile = settings.one('plan-file', nonEmptyParser('plan.json'));
  if (planFile !== undefined) config.planFile = planFile;
  const planDigest = settings.one('plan-digest', parsePlanDigest);
  if (planDigest !== undefined) config.planDigest = planDigest;
  const plan = settings.one('plan', nonEmptyParser('plan.json'));
  if (plan !== undefined) config.plan = plan;
}

/** `sha256:` and 64 hex digits, as a plan and its report give it. */
function parsePlanDigest(text: string): Parsed<string> {
  const trimmed = text.trim().toLowerCase();
  return /^sha256:[0-9a-f]{64}$/.test(trimmed) ? ok(trimmed) : { ok: false, error: 'expected the plan digest a dry run reported, such as sha256:3f5a… (64 hex digits)' };
}

/**
 * The settings that only mean something with a collector on: a cap per collector (each
 * collector once, each one that is on), and purge only with workspace PVCs.
 */
function addCollectorSettings(config: Config, settings: Settings): void {
  if (config.pvcFinalizer === 'purge' && !config.collect.includes('workspace-pvcs')) {
    throw new ConfigError(`${settings.origin('pvc-finalizer')} "purge": applies only with --collect workspace-pvcs, such as --collect ${[...config.collect, 'workspace-pvcs'].join(',')} --pvc-finalizer purge`);
  }
  const caps = settings.list('max-deletions-per-kind', parseCollectorCap);
  if (caps.length === 0) return;
  const origin = settings.origin('max-deletions-per-kind');
  const given = caps.map(({ collector, max }) => `${collector}=${max}`).join(',');
  const twice = caps.find((cap, index) => caps.findIndex((other) => other.collector === cap.collector) !== index);
  if (twice !== undefined) throw new ConfigError(`${origin} ${quote(given)}: ${twice.collector} given twice; give each collector once, such as ${CAP_EXAMPLE}`);
  const off = caps.find((cap) => !config.collect.includes(cap.collector));
  if (off !== undefined) {
    throw new ConfigError(`${origin} ${quote(given)}: ${off.collector} is not collected (--collect ${config.collect.join(',')}); add it, such as --collect ${[...config.collect, off.collector].join(',')}`);
  }
  config.maxDeletionsPerKind = Object.fromEntries(caps.map(({ collector, max }) => [collector, max]));
}

function addScheduleSettings(config: Config, settings: Settings): void {
  const schedule = settings.one('schedule', (text) => {
    const parsed = parseSchedule(text);
    return parsed.ok ? ok({ text: text.trim(), fields: parsed.value }) : parsed;
  });
  if (schedule !== undefined) config.schedule = schedule;
  const timeZone = settings.one('time-zone', parseTimeZone);
  if (timeZone === undefined) return;
  if (schedule === undefined) throw new ConfigError(`${settings.origin('time-zone')} ${quote(timeZone)}: applies only with --schedule, such as --schedule "0 3 * * *" --time-zone ${timeZone}`);
  config.timeZone = timeZone;
}

function addPushgatewaySettings(config: Config, settings: Settings): void {
  const pushgatewayUrl = settings.one('pushgateway-url', parsePushgatewayUrl);
  if (pushgatewayUrl !== undefined) config.pushgatewayUrl = pushgatewayUrl;
  const grouping = settings.list('pushgateway-grouping', parseGroupingLabel);
  if (grouping.length === 0) return;
  const origin = settings.origin('pushgateway-grouping');
  const given = grouping.map(({ name, value }) => `${name}=${value}`).join(',');
  if (pushgatewayUrl === undefined) {
    throw new ConfigError(`${origin} ${quote(given)}: applies only with --pushgateway-url, such as --pushgateway-url http://pushgateway.monitoring:9091 --pushgateway-grouping ${given}`);
  }
  const twice = grouping.find((label, index) => grouping.findIndex((other) => other.name === label.name) !== index);
  if (twice !== undefined) throw new ConfigError(`${origin} ${quote(given)}: label ${twice.name} given twice; give each label once, such as instance=ci-gc,cluster=prod`);
  config.pushgatewayGrouping = grouping;
}

/** A value parser: the value, or what was expected (`expected …, such as …`). */
type Parse<T> = (text: string) => Parsed<T>;

/** The raw values of the flags that were given, parsed on demand with errors naming their origin. */
class Settings {
  constructor(private readonly sources: ReadonlyMap<FlagName, Source>) {}

  one<T>(flag: FlagName, parse: Parse<T>): T | undefined;
  one<T>(flag: FlagName, parse: Parse<T>, fallback: T): T;
  one<T>(flag: FlagName, parse: Parse<T>, fallback?: T): T | undefined {
    const source = this.sources.get(flag);
    const text = source?.values[0];
    if (source === undefined || text === undefined) return fallback;
    return parseOrThrow(source.origin, text, parse);
  }

  /** `--flag` or `TRGC_FLAG`, whichever gave it. */
  origin(flag: FlagName): string {
    return this.sources.get(flag)?.origin ?? `--${flag}`;
  }

  /** The origin of each setting given; a setting not given has its default. */
  origins(): { [F in FlagName]?: string } {
    return Object.fromEntries([...this.sources].map(([flag, source]) => [flag, source.origin]));
  }

  /** Comma-separated values of every occurrence, each parsed, duplicates dropped. */
  list<T>(flag: FlagName, parse: Parse<T>): T[] {
    const source = this.sources.get(flag);
    if (source === undefined) return [];
    const parsed = source.values.flatMap((text) => text.split(',').map((part) => parseListPart(source.origin, text, part, parse)));
    return [...new Set(parsed)];
  }
}

function parseOrThrow<T>(origin: string, text: string, parse: Parse<T>): T {
  const parsed = parse(text);
  if (!parsed.ok) throw new ConfigError(`${origin} ${quote(text)}: ${parsed.error}`);
  return parsed.value;
}

function parseListPart<T>(origin: string, text: string, part: string, parse: Parse<T>): T {
  const parsed = parse(part.trim());
  if (parsed.ok) return parsed.value;
  const which = part === text ? '' : `${quote(part.trim())} in it is not valid; `;
  throw new ConfigError(`${origin} ${quote(text)}: ${which}${parsed.error}`);
}

// ---- the command line ----

/** Raw values per flag, in the order given. Validates the shape of the command line only. */
interface CommandLine {
  given: Map<FlagName, string[]>;
  command: 'run' | 'explain' | 'apply';
  /** What follows `explain` (its NAMESPACE/NAME) or `apply` (its plan file). */
  operands: string[];
}

function readCommandLine(argv: readonly string[]): CommandLine {
  const line: CommandLine = { given: new Map<FlagName, string[]>(), command: 'run', operands: [] };
  let commandSeen = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (!arg.startsWith('-') || arg === '-') {
      readPositional(arg, { line, commandSeen }, argv[index - 1]);
      commandSeen = true;
      continue;
    }
    const { flag, value, consumedNext } = readFlag(arg, argv[index + 1]);
    if (consumedNext) index++;
    addValue(line.given, flag, value);
  }
  return line;
}

function readPositional(arg: string, state: { line: CommandLine; commandSeen: boolean }, previous: string | undefined): void {
  const { line, commandSeen } = state;
  if (!commandSeen && (arg === 'run' || arg === 'explain' || arg === 'apply')) {
    line.command = arg;
    return;
  }
  if ((arg === 'true' || arg === 'false') && previous !== undefined && flagKind(previous) === 'boolean') {
    throw new ConfigError(`unexpected argument ${quote(arg)} after ${previous}: write ${previous}=${arg}`);
  }
  if (!commandSeen) throw new ConfigError(`unknown command ${quote(arg)}: the commands are run (the default), explain and apply, such as ${PROGRAM} run --dry-run`);
  if ((line.command === 'explain' || line.command === 'apply') && line.operands.length === 0) {
    line.operands.push(arg);
    return;
  }
  if (line.command === 'explain') throw new ConfigError(`unexpected argument ${quote(arg)}: explain takes one NAMESPACE/NAME, such as ${EXPLAIN_EXAMPLE}`);
  if (line.command === 'apply') throw new ConfigError(`unexpected argument ${quote(arg)}: apply takes one plan file, such as ${APPLY_EXAMPLE}`);
  throw new ConfigError(`unexpected argument ${quote(arg)}: ${PROGRAM} run takes flags only, such as ${PROGRAM} run --dry-run --namespace ci`);
}

function flagKind(arg: string): 'boolean' | 'value' | 'list' | undefined {
  const name = arg.replace(/^--/, '');
  return isFlagName(name) ? FLAG_KINDS[name] : undefined;
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAG_KINDS, name);
}

function readFlag(arg: string, next: string | undefined): { flag: FlagName; value: string; consumedNext: boolean } {
  const equals = arg.indexOf('=');
  const written = equals === -1 ? arg : arg.slice(0, equals);
  const name = written.replace(/^--/, '');
  const inline = equals === -1 ? undefined : arg.slice(equals + 1);
  if (!isFlagName(name)) throw new ConfigError(unknownMessage(`flag ${written}`, name, FLAG_NAMES, (flag) => `--${flag}`));
  if (FLAG_KINDS[name] === 'boolean') return { flag: name, value: inline ?? 'true', consumedNext: false };
  if (inline !== undefined) return { flag: name, value: inline, consumedNext: false };
  // A value never starts with `--`; taking one would hide a forgotten value.
  if (next === undefined || next.startsWith('--')) throw new ConfigError(`--${name} needs a value, such as ${FLAG_EXAMPLES[name]}`);
  return { flag: name, value: next, consumedNext: true };
}

function addValue(given: Map<FlagName, string[]>, flag: FlagName, value: string): void {
  const values = given.get(flag) ?? [];
  const first = values[0];
  if (FLAG_KINDS[flag] !== 'list' && first !== undefined) {
    throw new ConfigError(`--${flag} given twice (${quote(first)}, then ${quote(value)}): give it once`);
  }
  given.set(flag, [...values, value]);
}

/** One typical use of each flag, for error messages and --help. */
export const FLAG_EXAMPLES: { readonly [F in FlagName]: string } = {
  'dry-run': '--dry-run=false',
  namespace: '--namespace ci',
  'exclude-namespace': '--exclude-namespace kube-system',
  selector: '--selector app=ci',
  'namespace-selector': '--namespace-selector tekton-resource-gc.io/shard=a',
  collect: '--collect pipelineresources,workspace-pvcs',
  'pvc-finalizer': '--pvc-finalizer purge',
  'min-age': '--min-age 1h',
  'retain-for': '--retain-for 7d',
  'label-prefix': '--label-prefix gc.example.com',
  'max-deletions': '--max-deletions 1000',
  'max-deletions-per-kind': '--max-deletions-per-kind workspace-pvcs=200',
  qps: '--qps 20',
  concurrency: '--concurrency 4',
  'page-size': '--page-size 500',
  'max-retries': '--max-retries 5',
  'request-timeout': '--request-timeout 30s',
  output: '--output json',
  'report-file': '--report-file reports/gc.md',
  'log-level': '--log-level debug',
  kubeconfig: '--kubeconfig ~/.kube/config',
  context: '--context kind-ci',
  events: '--events',
  schedule: '--schedule "17 * * * *"',
  'time-zone': '--time-zone Europe/Berlin',
  progress: '--progress never',
  'pushgateway-url': '--pushgateway-url http://pushgateway.monitoring:9091',
  'pushgateway-grouping': '--pushgateway-grouping instance=ci-gc,cluster=prod',
  'plan-file': '--plan-file plan.json',
  'plan-max-age': '--plan-max-age 12h',
  'plan-digest': '--plan-digest sha256:3f5a…',
  plan: '--plan plan.json',
};

// ---- the environment ----

/**
 * The variables Kubernetes injects for each Service of the pod's namespace (kubelet's
 * envvars.FromServices): `<SERVICE>_SERVICE_HOST`, `<SERVICE>_SERVICE_PORT`,
 * `<SERVICE>_SERVICE_PORT_<PORT NAME>`, `<SERVICE>_PORT` and
 * `<SERVICE>_PORT_<n>_<TCP|UDP|SCTP>[_PROTO|_PORT|_ADDR]`, the Service's name upper-cased
 * with `_` for `-`. Those of a Service whose name starts with `trgc-` (or is `trgc`) are
 * not ours. Nothing else is ignored: a misspelt setting still fails.
 */
const SERVICE_LINK = new RegExp(
  [
    '^TRGC(_[A-Z0-9_]*[A-Z0-9])?_', // the Service: trgc, or trgc-<rest>
    '(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9]([A-Z0-9_]*[A-Z0-9])?)?|PORT(_[1-9][0-9]{0,4}_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$',
  ].join(''),
);

function checkEnvNames(env: Readonly<Record<string, string | undefined>>): void {
  const known = FLAG_NAMES.map(envVarName);
  for (const name of Object.keys(env)) {
    if (!name.startsWith('TRGC_') || known.includes(name) || SERVICE_LINK.test(name)) continue;
    throw new ConfigError(unknownMessage(`variable ${name}`, name, known, (known) => known));
  }
}

// ---- nearest names ----

function unknownMessage<T extends string>(what: string, name: string, candidates: readonly T[], show: (candidate: T) => string): string {
  const nearest = nearestName(name, candidates);
  const hint = nearest === undefined ? 'see --help for the flags and variables' : `did you mean ${show(nearest)}?`;
  return `unknown ${what}: ${hint}`;
}

// ---- value parsers ----

function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

function expected(what: string): Parsed<never> {
  return { ok: false, error: `expected ${what}` };
}

/** A boolean flag's parser; its error shows that flag's own forms. */
function parseBoolean(flag: FlagName): (text: string) => Parsed<boolean> {
  return (text) => {
    if (text === 'true' || text === 'false') return ok(text === 'true');
    return expected(`true or false, such as --${flag}, --${flag}=false or ${envVarName(flag)}=true`);
  };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Namespace names are DNS-1123 labels. */
function parseNamespace(text: string): Parsed<string> {
  if (text.length <= 63 && DNS_LABEL.test(text)) return ok(text);
  return expected("a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit) such as team-a");
}

/** The prefix of a label key is a DNS-1123 subdomain. */
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

const COLLECT_EXPECTED = `one or more of ${COLLECTOR_NAMES.join(', ')}, such as pipelineresources,workspace-pvcs`;

/** One collector's name. There is no `all`: an upgrade that adds a collector must never turn it on. */
function parseCollector(text: string): Parsed<CollectorName> {
  const name = COLLECTOR_NAMES.find((candidate) => candidate === text);
  if (name !== undefined) return ok(name);
  if (text === 'all') return { ok: false, error: `there is no all, so that no upgrade turns a new collector on; name each, ${COLLECT_EXPECTED}` };
  return expected(COLLECT_EXPECTED);
}

/** The collectors given, in table order (their delete order), or the default when none is. */
function collectorsInOrder(given: readonly CollectorName[], fallback: readonly CollectorName[]): readonly CollectorName[] {
  const on = given.length === 0 ? fallback : given;
  return COLLECTOR_NAMES.filter((name) => on.includes(name));
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

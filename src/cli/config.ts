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
import { COLLECTOR_NAMES, COLLECTORS, type CollectorName } from '../core/collectors.js';
import type { Policy, RunPolicy } from '../core/types.js';
import {
  FLAGS,
  FLAG_NAMES,
  capsText,
  envVarName,
  flagSpec,
  flagsOf,
  parseBoolean,
  parseNamespace,
  type Command,
  type Config,
  type ConfigValues,
  type FlagName,
  type FlagReader,
  type Parse,
} from './flags.js';
import type { Scope } from '../kube/cluster.js';
import { quote } from '../text/redact.js';
import { isDnsSubdomain } from './selector.js';
import { nearestName } from './suggest.js';

export { DEFAULTS, FLAG_NAMES, LOG_LEVELS, MAX_PAGE_SIZE, MAX_REQUEST_TIMEOUT_MS, MAX_RETRIES, PVC_FINALIZER_MODES, envVarName } from './flags.js';
export type { Config, FlagName, LogLevel, PvcFinalizerMode } from './flags.js';

/** A target named on the command line: `explain [KIND/]NAMESPACE/NAME`, KIND naming the collector whose target it is. */
export interface TargetName {
  collector: CollectorName;
  namespace: string;
  name: string;
}

/** The KIND words of `explain KIND/NAMESPACE/NAME`, each its collector's (collectors.ts); a bare NAMESPACE/NAME is a PipelineResource. */
const EXPLAIN_KINDS: ReadonlyMap<string, CollectorName> = new Map(COLLECTOR_NAMES.map((name) => [COLLECTORS[name].explainWord, name]));
/** The KIND words explain decides: every collector's. */
export const EXPLAIN_KIND_WORDS: readonly string[] = COLLECTOR_NAMES.map((name) => COLLECTORS[name].explainWord);

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

const PROGRAM = 'tekton-resource-gc';

export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv.includes('--version')) return { kind: 'version' };
  const { given, command, operands } = readCommandLine(argv);
  checkEnvNames(env);
  if (command === 'explain') return explainInvocation(given, operands, env);
  if (command === 'apply') return applyInvocation(given, operands, env);
  notTaken('run', given);
  // A run reads every variable: one of another command's, in a pod's environment the chart's
  // for another mode, is read (and must be valid) but decides nothing.
  const sources = new Map(FLAG_NAMES.flatMap((flag) => sourceOf(flag, given, env)));
  const config = toConfig(new Settings(sources));
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
export const EXPLAIN_FLAGS: readonly FlagName[] = flagsOf('explain');

const EXPLAIN_EXAMPLE = `${PROGRAM} explain ci/src-abc123`;
const EXPLAIN_KIND_EXAMPLE = `${PROGRAM} explain pvc/ci/pvc-3f5a0c9e1b`;
const EXPLAIN_RUN_EXAMPLE = `${PROGRAM} explain pipelinerun/ci/build-1`;
const APPLY_EXAMPLE = `${PROGRAM} apply plan.json`;

/**
 * A flag on the command line of a command that does not take it: one line saying which
 * command does, or what the command reads.
 */
const NOT_TAKEN: { readonly [C in Command]: (flag: FlagName) => string } = {
  // A flag of another command's alone: explain's is shown there.
  run: (flag) => (flagSpec(flag).commands.includes('explain') ? `applies only to explain, such as ${EXPLAIN_EXAMPLE} ${FLAGS[flag].example}` : `applies only to apply, such as ${APPLY_EXAMPLE}`),
  explain: () => `does not apply to explain, which reads ${EXPLAIN_FLAGS.map((flag) => `--${flag}`).join(', ')}`,
  // apply is one live pass of a plan, deciding with the plan's own settings (a scope or rule
  // flag that differs from the plan's is refused once the plan is read).
  apply: () => `does not apply to apply, which deletes what a plan lists in one live pass, such as ${APPLY_EXAMPLE}`,
};

function notTaken(command: Command, given: ReadonlyMap<FlagName, string[]>): void {
  const wrong = [...given.keys()].find((flag) => !flagSpec(flag).commands.includes(command));
  if (wrong !== undefined) throw new ConfigError(`--${wrong} ${NOT_TAKEN[command](wrong)}`);
}

/** The sources of the flags `command` takes; in a pod's environment the others are the chart's for another mode. */
function sourcesOf(command: Command, given: ReadonlyMap<FlagName, string[]>, env: Readonly<Record<string, string | undefined>>): Map<FlagName, Source> {
  return new Map(flagsOf(command).flatMap((flag) => sourceOf(flag, given, env)));
}

function applyInvocation(given: ReadonlyMap<FlagName, string[]>, operands: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  notTaken('apply', given);
  const [planFile] = operands;
  if (planFile === undefined || planFile === '') throw new ConfigError(`apply needs the plan file a dry run wrote with --plan-file, such as ${APPLY_EXAMPLE}`);
  const config = toConfig(new Settings(sourcesOf('apply', given, env)), undefined, true);
  return { kind: 'apply', config, planFile };
}

function explainInvocation(given: ReadonlyMap<FlagName, string[]>, operands: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  notTaken('explain', given);
  const [operand] = operands;
  if (operand === undefined) throw new ConfigError(`explain needs the target as [KIND/]NAMESPACE/NAME, such as ${EXPLAIN_EXAMPLE} or ${EXPLAIN_KIND_EXAMPLE}`);
  const target = parseTargetName(operand);
  const sources = sourcesOf('explain', given, env);
  if (COLLECTORS[target.collector].decides === 'rules') {
    // The runs' policy decides no other kind: in the environment (a pod's, a pass's) it is left alone.
    for (const flag of [...RUN_POLICY_FLAGS, 'pruner-config' as const]) if (sources.get(flag)?.origin === envVarName(flag)) sources.delete(flag);
    if (sources.has('pruner-config')) {
      throw new ConfigError(`--pruner-config: tektoncd/pruner's policies decide only runs, explained as pipelinerun/NAMESPACE/NAME or taskrun/NAMESPACE/NAME, such as ${EXPLAIN_RUN_EXAMPLE} --pruner-config tekton-pipelines`);
    }
    // Only a run is decided with other collectors' targets (what goes with it); any other kind as its collector alone.
    if (sources.get('collect')?.origin === envVarName('collect')) sources.delete('collect');
    if (sources.has('collect')) {
      throw new ConfigError(
        `--collect: explain of a ${COLLECTORS[target.collector].kind} decides it as its collector alone; --collect names what goes with a run, explained as pipelinerun/NAMESPACE/NAME or taskrun/NAMESPACE/NAME, such as ${EXPLAIN_RUN_EXAMPLE} --collect pipelineruns,workspace-pvcs`,
      );
    }
  }
  // explain decides as a pass that collects the target's kind.
  const config = toConfig(new Settings(sources), target.collector);
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
    if (rest.length === 0 && parseNamespace(namespace).ok && isDnsSubdomain(name)) return { collector: 'pipelineresources', namespace, name };
    throw new ConfigError(`explain ${quote(text)}: expected NAMESPACE/NAME of a PipelineResource, such as ${EXPLAIN_EXAMPLE}`);
  }
  const [kind = '', namespace = '', name = ''] = parts;
  const collector = EXPLAIN_KINDS.get(kind);
  if (collector === undefined) {
    throw new ConfigError(`explain ${quote(text)}: unknown kind ${quote(kind)}; expected KIND/NAMESPACE/NAME with KIND one of ${EXPLAIN_KIND_WORDS.join(', ')}, such as ${EXPLAIN_KIND_EXAMPLE}`);
  }
  if (parseNamespace(namespace).ok && isDnsSubdomain(name)) return { collector, namespace, name };
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

/**
 * Every setting from its flag's row: the value given, else the default, else left out; then
 * the rules between flags. `explained`: the collector of the target explain decides for,
 * which is then the one collector (explain takes no --collect). `applying`: apply's, whose
 * collectors are its plan's, so a run flag is not refused for want of a run collector here.
 */
function toConfig(settings: Settings, explained?: CollectorName, applying = false): Config {
  const config: Partial<Record<keyof ConfigValues, unknown>> = {};
  for (const flag of FLAG_NAMES) {
    const spec = flagSpec(flag);
    const value = spec.read(settings.reader(flag)) ?? (Array.isArray(spec.default) ? [...(spec.default as unknown[])] : spec.default);
    if (value !== undefined) config[spec.key] = value;
  }
  // explain decides as a pass that collects the target's kind, and for a run the collectors --collect names beside it (what goes with it).
  if (explained !== undefined) config.collect = settings.has('collect') ? COLLECTOR_NAMES.filter((name) => name === explained || (config.collect as readonly CollectorName[]).includes(name)) : [explained];
  // Each row's read gives its key's type (FlagSpec), and every setting without a `?` has a default.
  const built = config as Config;
  checkBetweenFlags(built, settings, explained !== undefined, applying);
  const origins = settings.origins();
  if (Object.keys(origins).length > 0) built.origins = origins;
  return built;
}

/**
 * What a pass decides with: where it looks, the rules, and the collectors. Built once from a
 * Config; a pass and explain decide with it, and apply with the one its plan holds (plan.ts).
 */
export interface PassSettings {
  scope: Scope;
  policy: Policy;
  collect: readonly CollectorName[];
  /** --pruner-config: where tektoncd/pruner's global ConfigMap is, read before anything is listed (its policies join `policy.runs`). */
  prunerConfig?: string;
}

export function passSettings(config: Config): PassSettings {
  return {
    scope: {
      namespaces: config.namespaces,
      excludeNamespaces: config.excludeNamespaces,
      selector: config.selector,
      ...(config.namespaceSelector !== undefined && { namespaceSelector: config.namespaceSelector }),
    },
    policy: {
      labelPrefix: config.labelPrefix,
      minAgeMs: config.minAgeMs,
      ...(config.retainFor !== undefined && { retainFor: config.retainFor }),
      ...(collectsRuns(config.collect) && { runs: runPolicy(config) }),
    },
    collect: config.collect,
    ...(config.prunerConfig !== undefined && { prunerConfig: config.prunerConfig }),
  };
}

/** The runs' policy from the flags: --keep-successful and --keep-failed each over --keep. */
export function runPolicy(config: Pick<Config, 'keep' | 'keepSuccessful' | 'keepFailed' | 'runTtl' | 'groupBy' | 'requireResultsStored' | 'selector'>): RunPolicy {
  const keepSuccessful = config.keepSuccessful ?? config.keep;
  const keepFailed = config.keepFailed ?? config.keep;
  return {
    ...(keepSuccessful !== undefined && { keepSuccessful }),
    ...(keepFailed !== undefined && { keepFailed }),
    ...(config.runTtl !== undefined && { ttl: config.runTtl }),
    ...(config.groupBy !== undefined && { groupBy: config.groupBy }),
    requireResultsStored: config.requireResultsStored,
    // --selector picks the runs that are targets; the run listing is read whole (core/labelselector.ts).
    ...(config.selector !== '' && { selector: config.selector }),
    // A limit --keep gave is named so in each decision.
    ...(config.keep !== undefined &&
      (config.keepSuccessful === undefined || config.keepFailed === undefined) && {
        limitFlags: { ...(config.keepSuccessful === undefined && { keepSuccessful: '--keep' }), ...(config.keepFailed === undefined && { keepFailed: '--keep' }) },
      }),
  };
}

/** The run collectors among `collect`. */
export function runCollectors(collect: readonly CollectorName[]): CollectorName[] {
  return collect.filter((name) => COLLECTORS[name].decides === 'history');
}

export function collectsRuns(collect: readonly CollectorName[]): boolean {
  return runCollectors(collect).length > 0;
}

/** The runs' flags: each only with a run collector on. */
const RUN_POLICY_FLAGS: readonly FlagName[] = ['keep', 'keep-successful', 'keep-failed', 'run-ttl', 'group-by', 'require-results-stored', 'max-cascade-deletions'];

/**
 * The runs' flags only with a run collector. --selector picks the runs that are targets (the
 * listing reads them all, for their groups' history); but a run is kept while an object that
 * would go with it is kept (dependent-kept), and the selector hides from the pass the objects
 * it does not match: so with a run collector it is refused beside a collector whose targets a
 * run owns, rather than let a run go with an object that pass would keep.
 */
function checkRunFlags(config: Config, settings: Settings, explaining: boolean, applying: boolean): void {
  const runs = runCollectors(config.collect);
  // apply decides with its plan's collectors: a run flag given is compared with the plan's once it is read (main.ts).
  if (runs.length === 0) {
    // --require-results-stored=false, or its variable set false, asks nothing of runs.
    const given = RUN_POLICY_FLAGS.find((flag) => settings.has(flag) && (flag !== 'require-results-stored' || config.requireResultsStored));
    if (given === undefined || applying) return;
    if (explaining) throw new ConfigError(`${settings.origin(given)}: applies only to runs, explained as pipelinerun/NAMESPACE/NAME or taskrun/NAMESPACE/NAME, such as ${EXPLAIN_RUN_EXAMPLE} ${FLAGS[given].example}`);
    throw new ConfigError(`${settings.origin(given)}: applies only to runs, with --collect pipelineruns or taskruns, such as --collect ${[...config.collect, 'pipelineruns'].join(',')} ${FLAGS[given].example}`);
  }
  const owned = config.collect.filter((name) => COLLECTORS[name].ownerRun);
  if (config.selector !== '' && owned.length > 0) {
    throw new ConfigError(
      `${settings.origin('selector')} ${quote(config.selector)}: with ${runs.join(' and ')}, it cannot also narrow ${owned.join(', ')} (a run is kept while something that goes with it is kept, and the selector would hide those it does not match); collect runs in a pass of their own, such as --collect ${runs.join(',')} --selector ${quote(config.selector)}`,
    );
  }
}

/** Where a setting came from, as `explain` names it: its flag (`--min-age`), its variable (`TRGC_MIN_AGE`) or `default`. */
export function settingOrigin(config: Pick<Config, 'origins'>, flag: FlagName): string {
  return config.origins?.[flag] ?? 'default';
}

/**
 * The settings that only mean something with another: --time-zone with --schedule,
 * --pushgateway-grouping with --pushgateway-url (each label once), purge with workspace
 * PVCs, a cap per collector only for a collector that is on.
 */
function checkBetweenFlags(config: Config, settings: Settings, explaining: boolean, applying: boolean): void {
  if (config.timeZone !== undefined && config.schedule === undefined) {
    throw new ConfigError(`${settings.origin('time-zone')} ${quote(config.timeZone)}: applies only with --schedule, such as --schedule "0 3 * * *" --time-zone ${config.timeZone}`);
  }
  const grouping = config.pushgatewayGrouping;
  if (grouping !== undefined) {
    const origin = settings.origin('pushgateway-grouping');
    const given = grouping.map(({ name, value }) => `${name}=${value}`).join(',');
    if (config.pushgatewayUrl === undefined) {
      throw new ConfigError(`${origin} ${quote(given)}: applies only with --pushgateway-url, such as --pushgateway-url http://pushgateway.monitoring:9091 --pushgateway-grouping ${given}`);
    }
    const twice = grouping.find((label, index) => grouping.findIndex((other) => other.name === label.name) !== index);
    if (twice !== undefined) throw new ConfigError(`${origin} ${quote(given)}: label ${twice.name} given twice; give each label once, such as instance=ci-gc,cluster=prod`);
  }
  if (config.pvcFinalizer === 'purge' && !config.collect.includes('workspace-pvcs')) {
    throw new ConfigError(`${settings.origin('pvc-finalizer')} "purge": applies only with --collect workspace-pvcs, such as --collect ${[...config.collect, 'workspace-pvcs'].join(',')} --pvc-finalizer purge`);
  }
  checkRunFlags(config, settings, explaining, applying);
  const caps = Object.entries(config.maxDeletionsPerKind ?? {}).map(([collector, max]) => ({ collector: collector as CollectorName, max }));
  const off = caps.find((cap) => !config.collect.includes(cap.collector));
  if (off !== undefined) {
    throw new ConfigError(`${settings.origin('max-deletions-per-kind')} ${quote(capsText(caps))}: ${off.collector} is not collected (--collect ${config.collect.join(',')}); add it, such as --collect ${[...config.collect, off.collector].join(',')}`);
  }
}

/** The raw values of the flags that were given, parsed on demand with errors naming their origin. */
class Settings {
  constructor(private readonly sources: ReadonlyMap<FlagName, Source>) {}

  /** What one flag's row reads its values through. */
  reader(flag: FlagName): FlagReader {
    const source = this.sources.get(flag);
    const origin = this.origin(flag);
    return {
      one: (parse) => {
        const text = source?.values[0];
        return text === undefined ? undefined : parseOrThrow(origin, text, parse);
      },
      list: (parse) => (source === undefined ? undefined : [...new Set(source.values.flatMap((text) => text.split(',').map((part) => parseListPart(origin, text, part, parse))))]),
      boolean: () => {
        const text = source?.values[0];
        return text === undefined ? undefined : parseOrThrow(origin, text, parseBoolean(flag));
      },
      refuse: (given, why) => {
        throw new ConfigError(`${origin} ${quote(given)}: ${why}`);
      },
    };
  }

  has(flag: FlagName): boolean {
    return this.sources.has(flag);
  }

  /** `--flag` or `TRGC_FLAG`, whichever gave it. */
  origin(flag: FlagName): string {
    return this.sources.get(flag)?.origin ?? `--${flag}`;
  }

  /** The origin of each setting given; a setting not given has its default. */
  origins(): { [F in FlagName]?: string } {
    return Object.fromEntries([...this.sources].map(([flag, source]) => [flag, source.origin]));
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
  command: Command;
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
  return isFlagName(name) ? FLAGS[name].kind : undefined;
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

function readFlag(arg: string, next: string | undefined): { flag: FlagName; value: string; consumedNext: boolean } {
  const equals = arg.indexOf('=');
  const written = equals === -1 ? arg : arg.slice(0, equals);
  const name = written.replace(/^--/, '');
  const inline = equals === -1 ? undefined : arg.slice(equals + 1);
  if (!isFlagName(name)) throw new ConfigError(unknownMessage(`flag ${written}`, name, FLAG_NAMES, (flag) => `--${flag}`));
  if (FLAGS[name].kind === 'boolean') return { flag: name, value: inline ?? 'true', consumedNext: false };
  if (inline !== undefined) return { flag: name, value: inline, consumedNext: false };
  // A value never starts with `--`; taking one would hide a forgotten value.
  if (next === undefined || next.startsWith('--')) throw new ConfigError(`--${name} needs a value, such as ${FLAGS[name].example}`);
  return { flag: name, value: next, consumedNext: true };
}

function addValue(given: Map<FlagName, string[]>, flag: FlagName, value: string): void {
  const values = given.get(flag) ?? [];
  const first = values[0];
  if (FLAGS[flag].kind !== 'list' && first !== undefined) {
    throw new ConfigError(`--${flag} given twice (${quote(first)}, then ${quote(value)}): give it once`);
  }
  given.set(flag, [...values, value]);
}

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

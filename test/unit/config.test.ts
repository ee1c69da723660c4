import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ConfigError, DEFAULTS, FLAG_NAMES, envVarName, parseConfig, passSettings, type Config, type FlagName } from '../../src/cli/config.js';
import { helpText } from '../../src/cli/help.js';

type Env = Record<string, string | undefined>;

/** The Config of a run, or of `apply PATH` / `explain NS/NAME` when argv starts with them. */
function configOf(argv: string[], env: Env = {}): Config {
  const invocation = parseConfig(argv, env);
  assert.equal(invocation.kind, argv[0] === 'apply' || argv[0] === 'explain' ? argv[0] : 'run');
  return (invocation as { config: Config }).config;
}

function errorOf(argv: string[], env: Env = {}): ConfigError {
  try {
    parseConfig(argv, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected a ConfigError for ${JSON.stringify({ argv, env })}`);
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('parseConfig: defaults', () => {
  it('runs a live pass over all namespaces with the documented defaults', () => {
    assert.deepEqual(configOf([]), {
      dryRun: false,
      namespaces: [],
      excludeNamespaces: [],
      selector: '',
      collect: ['pipelineresources'],
      pvcFinalizer: 'keep',
      requireResultsStored: false,
      minAgeMs: HOUR,
      labelPrefix: 'tekton-resource-gc.io',
      maxDeletions: 1000,
      maxCascadeDeletions: 20000,
      maxConsecutiveFailures: 5,
      qps: 20,
      concurrency: 4,
      pageSize: 500,
      maxRetries: 5,
      requestTimeoutMs: 60_000,
      output: 'text',
      logLevel: 'info',
      events: false,
      progress: 'auto',
      planMaxAgeMs: DAY,
    });
  });

  it('treats the explicit run command like none', () => {
    assert.deepEqual(configOf(['run']), configOf([]));
  });
});

interface ValidRow {
  flag: FlagName;
  argv: string[];
  env?: Env;
  expect: Partial<Config>;
}

const VALID: ValidRow[] = [
  // A bare boolean flag is true.
  { flag: 'dry-run', argv: ['--dry-run'], expect: { dryRun: true } },
  // `=false` turns it off, e.g. to override TRGC_DRY_RUN=true.
  { flag: 'dry-run', argv: ['--dry-run=false'], env: { TRGC_DRY_RUN: 'true' }, expect: { dryRun: false } },
  // `=true` is the same as the bare flag.
  { flag: 'dry-run', argv: ['--dry-run=true'], expect: { dryRun: true } },
  // The variable takes true or false.
  { flag: 'dry-run', argv: [], env: { TRGC_DRY_RUN: 'true' }, expect: { dryRun: true } },
  // The command may come after flags.
  { flag: 'dry-run', argv: ['--dry-run', 'run'], expect: { dryRun: true } },
  // Repeatable, comma-separated, `=` form, spaces around commas; duplicates dropped, order kept.
  {
    flag: 'namespace',
    argv: ['--namespace', 'ci', '--namespace=team-a, ci', '--namespace', 'b2'],
    expect: { namespaces: ['ci', 'team-a', 'b2'] },
  },
  // A 63-character name is the longest allowed.
  { flag: 'namespace', argv: ['--namespace', 'a'.repeat(63)], expect: { namespaces: ['a'.repeat(63)] } },
  // The variable is a comma-separated list.
  { flag: 'namespace', argv: [], env: { TRGC_NAMESPACE: 'ci,team-a' }, expect: { namespaces: ['ci', 'team-a'] } },
  // Exclusions: repeatable and comma-separated alike; they may name an included namespace (exclusion wins later).
  {
    flag: 'exclude-namespace',
    argv: ['--namespace', 'ci', '--exclude-namespace', 'ci,kube-system', '--exclude-namespace', 'tekton-pipelines'],
    expect: { namespaces: ['ci'], excludeNamespaces: ['ci', 'kube-system', 'tekton-pipelines'] },
  },
  // The variable alone.
  { flag: 'exclude-namespace', argv: [], env: { TRGC_EXCLUDE_NAMESPACE: 'kube-system' }, expect: { excludeNamespaces: ['kube-system'] } },
  // Equality, inequality, set membership and existence, with a prefixed key; kept as written.
  {
    flag: 'selector',
    argv: ['--selector', 'app.kubernetes.io/part-of=ci,tier!=cache,env in (prod, staging),track notin (canary),release,!legacy'],
    expect: { selector: 'app.kubernetes.io/part-of=ci,tier!=cache,env in (prod, staging),track notin (canary),release,!legacy' },
  },
  // `==`, an empty value, spaces around the operator, and `()` as Kubernetes takes them.
  { flag: 'selector', argv: ['--selector', 'app == ci,owner=,x in ()'], expect: { selector: 'app == ci,owner=,x in ()' } },
  // `<` and `>` against integers, which the API server accepts.
  { flag: 'selector', argv: ['--selector=priority>3,age<10'], expect: { selector: 'priority>3,age<10' } },
  // An explicit empty selector selects everything.
  { flag: 'selector', argv: ['--selector', ''], expect: { selector: '' } },
  // The variable alone.
  { flag: 'selector', argv: [], env: { TRGC_SELECTOR: 'app=ci' }, expect: { selector: 'app=ci' } },
  // A shard: the grammar of --selector, on Namespaces.
  { flag: 'namespace-selector', argv: ['--namespace-selector', 'tekton-resource-gc.io/shard in (a, b),!legacy'], expect: { namespaceSelector: 'tekton-resource-gc.io/shard in (a, b),!legacy' } },
  // Empty selects every namespace, as no selector does: the setting is absent.
  { flag: 'namespace-selector', argv: ['--namespace-selector', ''], expect: { namespaceSelector: undefined } },
  { flag: 'namespace-selector', argv: [], env: { TRGC_NAMESPACE_SELECTOR: 'team=a' }, expect: { namespaceSelector: 'team=a' } },
  // Repeatable and comma-separated; kept in the collectors' own order (their delete order), duplicates dropped.
  {
    flag: 'collect',
    argv: ['--collect', 'workspace-pvcs, pipelineresources', '--collect=pac-secrets,workspace-pvcs'],
    expect: { collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'] },
  },
  // Leftovers alone: the PipelineResource collector is off when not named.
  { flag: 'collect', argv: [], env: { TRGC_COLLECT: 'affinity-assistants,workspace-pvcs' }, expect: { collect: ['affinity-assistants', 'workspace-pvcs'] } },
  // An empty variable is the default, as for every setting.
  { flag: 'collect', argv: [], env: { TRGC_COLLECT: '' }, expect: { collect: ['pipelineresources'] } },
  // purge with the collector it is about.
  { flag: 'pvc-finalizer', argv: ['--collect', 'workspace-pvcs', '--pvc-finalizer', 'purge'], expect: { collect: ['workspace-pvcs'], pvcFinalizer: 'purge' } },
  // keep, the default, is harmless without workspace PVCs (a chart may always render it).
  { flag: 'pvc-finalizer', argv: [], env: { TRGC_PVC_FINALIZER: 'keep' }, expect: { pvcFinalizer: 'keep' } },
  // The namespace of tektoncd/pruner's global ConfigMap; read by the pass, not here.
  { flag: 'pruner-config', argv: ['--pruner-config', 'tekton-pipelines'], expect: { prunerConfig: 'tekton-pipelines' } },
  { flag: 'pruner-config', argv: [], env: { TRGC_PRUNER_CONFIG: 'pruner' }, expect: { prunerConfig: 'pruner' } },
  // One cap per collector, repeated or comma-separated; 0 means a pass that would delete one of them deletes nothing.
  {
    flag: 'max-deletions-per-kind',
    argv: ['--collect', 'workspace-pvcs,pac-secrets', '--max-deletions-per-kind', 'workspace-pvcs=5', '--max-deletions-per-kind=pac-secrets = 0'],
    expect: { maxDeletionsPerKind: { 'workspace-pvcs': 5, 'pac-secrets': 0 } },
  },
  // The PipelineResource collector, on by default, may have one too.
  { flag: 'max-deletions-per-kind', argv: [], env: { TRGC_MAX_DELETIONS_PER_KIND: 'pipelineresources=100' }, expect: { maxDeletionsPerKind: { pipelineresources: 100 } } },
  // None given: absent.
  { flag: 'max-deletions-per-kind', argv: [], env: { TRGC_MAX_DELETIONS_PER_KIND: '' }, expect: { maxDeletionsPerKind: undefined } },
  // Minutes.
  { flag: 'min-age', argv: ['--min-age', '30m'], expect: { minAgeMs: 30 * 60_000 } },
  // Weeks, the largest short unit.
  { flag: 'min-age', argv: ['--min-age', '2w'], expect: { minAgeMs: 14 * DAY } },
  // Zero: no age protection at all.
  { flag: 'min-age', argv: ['--min-age', '0s'], expect: { minAgeMs: 0 } },
  // ISO 8601 with a time part.
  { flag: 'min-age', argv: ['--min-age=PT12H'], expect: { minAgeMs: 12 * HOUR } },
  // ISO 8601 days, from the variable.
  { flag: 'min-age', argv: [], env: { TRGC_MIN_AGE: 'P1D' }, expect: { minAgeMs: DAY } },
  // A duration, kept with its text for the report.
  { flag: 'retain-for', argv: ['--retain-for', '7d'], expect: { retainFor: { kind: 'duration', ms: 7 * DAY, text: '7d' } } },
  // forever.
  { flag: 'retain-for', argv: [], env: { TRGC_RETAIN_FOR: 'forever' }, expect: { retainFor: { kind: 'forever' } } },
  // The runs' policy, with a run collector on.
  { flag: 'keep', argv: ['--collect', 'pipelineruns', '--keep', '5'], expect: { collect: ['pipelineruns'], keep: 5 } },
  { flag: 'keep', argv: [], env: { TRGC_COLLECT: 'taskruns', TRGC_KEEP: '0' }, expect: { collect: ['taskruns'], keep: 0 } },
  { flag: 'keep-successful', argv: ['--collect', 'pipelineruns', '--keep-successful', '10'], expect: { collect: ['pipelineruns'], keepSuccessful: 10 } },
  { flag: 'keep-successful', argv: [], env: { TRGC_COLLECT: 'pipelineruns', TRGC_KEEP_SUCCESSFUL: '3' }, expect: { collect: ['pipelineruns'], keepSuccessful: 3 } },
  { flag: 'keep-failed', argv: ['--collect', 'pipelineruns', '--keep-failed', '3'], expect: { collect: ['pipelineruns'], keepFailed: 3 } },
  { flag: 'keep-failed', argv: [], env: { TRGC_COLLECT: 'pipelineruns', TRGC_KEEP_FAILED: '1' }, expect: { collect: ['pipelineruns'], keepFailed: 1 } },
  { flag: 'run-ttl', argv: ['--collect', 'pipelineruns', '--run-ttl', '7d'], expect: { collect: ['pipelineruns'], runTtl: { kind: 'duration', ms: 7 * DAY, text: '7d' } } },
  { flag: 'run-ttl', argv: [], env: { TRGC_COLLECT: 'taskruns', TRGC_RUN_TTL: 'P1D' }, expect: { collect: ['taskruns'], runTtl: { kind: 'duration', ms: DAY, text: 'P1D' } } },
  {
    flag: 'group-by',
    argv: ['--collect', 'pipelineruns', '--group-by', 'pipelinesascode.tekton.dev/original-prname'],
    expect: { collect: ['pipelineruns'], groupBy: 'pipelinesascode.tekton.dev/original-prname' },
  },
  { flag: 'group-by', argv: [], env: { TRGC_COLLECT: 'pipelineruns', TRGC_GROUP_BY: 'app' }, expect: { collect: ['pipelineruns'], groupBy: 'app' } },
  { flag: 'require-results-stored', argv: ['--collect', 'pipelineruns', '--require-results-stored'], expect: { collect: ['pipelineruns'], requireResultsStored: true } },
  { flag: 'max-cascade-deletions', argv: ['--collect', 'pipelineruns', '--max-cascade-deletions', '500'], expect: { collect: ['pipelineruns'], maxCascadeDeletions: 500 } },
  { flag: 'max-cascade-deletions', argv: [], env: { TRGC_COLLECT: 'taskruns', TRGC_MAX_CASCADE_DELETIONS: '0' }, expect: { collect: ['taskruns'], maxCascadeDeletions: 0 } },
  // false asks nothing of runs: allowed without a run collector.
  { flag: 'require-results-stored', argv: [], env: { TRGC_REQUIRE_RESULTS_STORED: 'false' }, expect: { requireResultsStored: false } },
  // A DNS subdomain with several parts.
  { flag: 'label-prefix', argv: ['--label-prefix', 'gc.example.com'], expect: { labelPrefix: 'gc.example.com' } },
  // A single DNS label is a subdomain too.
  { flag: 'label-prefix', argv: [], env: { TRGC_LABEL_PREFIX: 'cleanup' }, expect: { labelPrefix: 'cleanup' } },
  // Zero is allowed: a pass that would delete anything aborts.
  { flag: 'max-deletions', argv: ['--max-deletions', '0'], expect: { maxDeletions: 0 } },
  // A large cleanup, from the variable.
  { flag: 'max-deletions', argv: [], env: { TRGC_MAX_DELETIONS: '25000' }, expect: { maxDeletions: 25000 } },
  // Zero: the breaker never stops the deletes.
  { flag: 'max-consecutive-failures', argv: ['--max-consecutive-failures', '0'], expect: { maxConsecutiveFailures: 0 } },
  { flag: 'max-consecutive-failures', argv: [], env: { TRGC_MAX_CONSECUTIVE_FAILURES: '20' }, expect: { maxConsecutiveFailures: 20 } },
  // Fractions below one per second.
  { flag: 'qps', argv: ['--qps', '0.5'], expect: { qps: 0.5 } },
  // A whole number, from the variable.
  { flag: 'qps', argv: [], env: { TRGC_QPS: '100' }, expect: { qps: 100 } },
  // One delete at a time.
  { flag: 'concurrency', argv: ['--concurrency', '1'], expect: { concurrency: 1 } },
  // More in flight, from the variable.
  { flag: 'concurrency', argv: [], env: { TRGC_CONCURRENCY: '16' }, expect: { concurrency: 16 } },
  // The smallest page.
  { flag: 'page-size', argv: ['--page-size', '1'], expect: { pageSize: 1 } },
  // The largest page, from the variable.
  { flag: 'page-size', argv: [], env: { TRGC_PAGE_SIZE: '10000' }, expect: { pageSize: 10000 } },
  // No retries at all: the first failure counts.
  { flag: 'max-retries', argv: ['--max-retries', '0'], expect: { maxRetries: 0 } },
  // The most, from the variable.
  { flag: 'max-retries', argv: [], env: { TRGC_MAX_RETRIES: '20' }, expect: { maxRetries: 20 } },
  // Seconds.
  { flag: 'request-timeout', argv: ['--request-timeout', '30s'], expect: { requestTimeoutMs: 30_000 } },
  // ISO 8601, from the variable.
  { flag: 'request-timeout', argv: [], env: { TRGC_REQUEST_TIMEOUT: 'PT2M' }, expect: { requestTimeoutMs: 120_000 } },
  // An hour is the longest.
  { flag: 'request-timeout', argv: ['--request-timeout=1h'], expect: { requestTimeoutMs: HOUR } },
  // JSON, for machines.
  { flag: 'output', argv: ['--output', 'json'], expect: { output: 'json' } },
  // Markdown, in the `=` form.
  { flag: 'output', argv: ['--output=markdown'], expect: { output: 'markdown' } },
  // Text, from the variable.
  { flag: 'output', argv: [], env: { TRGC_OUTPUT: 'text' }, expect: { output: 'text' } },
  // Any path, spaces included.
  { flag: 'report-file', argv: ['--report-file', '/tmp/gc report.md'], expect: { reportFile: '/tmp/gc report.md' } },
  // A relative path, from the variable.
  { flag: 'report-file', argv: [], env: { TRGC_REPORT_FILE: 'gc.json' }, expect: { reportFile: 'gc.json' } },
  // The most verbose level.
  { flag: 'log-level', argv: ['--log-level', 'trace'], expect: { logLevel: 'trace' } },
  // No logs at all, from the variable.
  { flag: 'log-level', argv: [], env: { TRGC_LOG_LEVEL: 'silent' }, expect: { logLevel: 'silent' } },
  // An absolute path.
  { flag: 'kubeconfig', argv: ['--kubeconfig', '/etc/gc/kubeconfig'], expect: { kubeconfig: '/etc/gc/kubeconfig' } },
  // From the variable; KUBECONFIG itself is left to the client.
  { flag: 'kubeconfig', argv: [], env: { TRGC_KUBECONFIG: '/k', KUBECONFIG: '/other' }, expect: { kubeconfig: '/k' } },
  // Context names are free text in a kubeconfig.
  { flag: 'context', argv: ['--context', 'arn:aws:eks:eu-west-1:1:cluster/ci'], expect: { context: 'arn:aws:eks:eu-west-1:1:cluster/ci' } },
  // From the variable.
  { flag: 'context', argv: [], env: { TRGC_CONTEXT: 'kind-ci' }, expect: { context: 'kind-ci' } },
  // A bare boolean flag is true.
  { flag: 'events', argv: ['--events'], expect: { events: true } },
  // The chart turns Events on through the variable.
  { flag: 'events', argv: [], env: { TRGC_EVENTS: 'true' }, expect: { events: true } },
  // Five fields with names, ranges and steps, kept as written and as five fields.
  { flag: 'schedule', argv: ['--schedule', '*/15 8-18 * * MON-FRI'], expect: { schedule: { text: '*/15 8-18 * * MON-FRI', fields: '*/15 8-18 * * MON-FRI' } } },
  // A descriptor, written out as five fields, from the variable.
  { flag: 'schedule', argv: [], env: { TRGC_SCHEDULE: '@hourly' }, expect: { schedule: { text: '@hourly', fields: '0 * * * *' } } },
  // A tz database name, with a schedule.
  { flag: 'time-zone', argv: ['--schedule', '@daily', '--time-zone', 'Europe/Berlin'], expect: { timeZone: 'Europe/Berlin' } },
  // From the variables.
  { flag: 'time-zone', argv: [], env: { TRGC_SCHEDULE: '0 3 * * *', TRGC_TIME_ZONE: 'America/New_York' }, expect: { timeZone: 'America/New_York' } },
  // A Pushgateway in the cluster.
  { flag: 'pushgateway-url', argv: ['--pushgateway-url', 'http://pushgateway.monitoring:9091'], expect: { pushgatewayUrl: 'http://pushgateway.monitoring:9091' } },
  // https with a path, from the variable.
  { flag: 'pushgateway-url', argv: [], env: { TRGC_PUSHGATEWAY_URL: 'https://metrics.example.com/push' }, expect: { pushgatewayUrl: 'https://metrics.example.com/push' } },
  // No progress line, for a terminal that is recorded.
  { flag: 'progress', argv: ['--progress', 'never'], expect: { progress: 'never' } },
  // The default, from the variable.
  { flag: 'progress', argv: [], env: { TRGC_PROGRESS: 'auto' }, expect: { progress: 'auto' } },
  // A proxy's prefix that merely contains the word is not a grouping key.
  { flag: 'pushgateway-url', argv: ['--pushgateway-url', 'https://example.com/metrics-gateway/'], expect: { pushgatewayUrl: 'https://example.com/metrics-gateway/' } },
  // Repeated and comma-separated, in the order given; a value may hold '=', '/' and spaces.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'instance=ci-gc,path=/var/tmp', '--pushgateway-grouping', '_shard=a=b c'],
    expect: {
      pushgatewayGrouping: [
        { name: 'instance', value: 'ci-gc' },
        { name: 'path', value: '/var/tmp' },
        { name: '_shard', value: 'a=b c' },
      ],
    },
  },
  // The chart's variables.
  {
    flag: 'pushgateway-grouping',
    argv: [],
    env: { TRGC_PUSHGATEWAY_URL: 'http://gw:9091', TRGC_PUSHGATEWAY_GROUPING: 'instance=gc,namespace=tekton-resource-gc' },
    expect: { pushgatewayGrouping: [{ name: 'instance', value: 'gc' }, { name: 'namespace', value: 'tekton-resource-gc' }] },
  },
  // Without the URL the chart renders the variable empty: unset.
  { flag: 'pushgateway-grouping', argv: [], env: { TRGC_PUSHGATEWAY_URL: '', TRGC_PUSHGATEWAY_GROUPING: '' }, expect: { pushgatewayUrl: undefined, pushgatewayGrouping: undefined } },
  // Plans: written by a dry run, read by apply and explain.
  { flag: 'plan-file', argv: ['--dry-run', '--plan-file', 'reviews/plan.json'], expect: { planFile: 'reviews/plan.json' } },
  { flag: 'plan-file', argv: [], env: { TRGC_DRY_RUN: 'true', TRGC_PLAN_FILE: '/reports/plan.json' }, expect: { planFile: '/reports/plan.json' } },
  { flag: 'plan-max-age', argv: ['apply', 'plan.json', '--plan-max-age', '12h'], expect: { planMaxAgeMs: 12 * HOUR } },
  { flag: 'plan-max-age', argv: [], env: { TRGC_PLAN_MAX_AGE: 'P2D' }, expect: { planMaxAgeMs: 2 * DAY } },
  // The digest as a report shows it; upper case hex is the same digest.
  { flag: 'plan-digest', argv: ['apply', 'plan.json', '--plan-digest', `sha256:${'AB'.repeat(32)}`], expect: { planDigest: `sha256:${'ab'.repeat(32)}` } },
  { flag: 'plan-digest', argv: [], env: { TRGC_PLAN_DIGEST: `sha256:${'0'.repeat(64)}` }, expect: { planDigest: `sha256:${'0'.repeat(64)}` } },
  { flag: 'plan', argv: ['explain', 'ci/src', '--plan', 'plan.json'], expect: { plan: 'plan.json' } },
  // In a pod's environment a variable explain does not use is left alone; this one it does.
  { flag: 'plan', argv: [], env: { TRGC_PLAN: '' }, expect: { plan: undefined } },
];

describe('parseConfig: valid values', () => {
  for (const row of VALID) {
    it(`${row.argv.join(' ')} ${JSON.stringify(row.env ?? {})}`, () => {
      const config = configOf(row.argv, row.env);
      for (const [key, value] of Object.entries(row.expect)) assert.deepEqual(config[key as keyof Config], value, key);
    });
  }
});

interface InvalidRow {
  /** The flag the row is about, or undefined for command-line shape errors. */
  flag?: FlagName;
  argv: string[];
  env?: Env;
  /** The exact message: one line naming the flag or variable and the bad value, with an example. */
  message: string;
}

const NAMESPACE_EXPECTED =
  "expected a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit) such as team-a";
const SELECTOR_EXPECTED = 'expected a label selector such as "app=ci,tier!=cache,env in (prod,staging),!legacy"';
const MIN_AGE_EXPECTED = 'expected a duration such as 30m, 1h, 2d or PT1H';

const GROUPING_EXPECTED = 'expected NAME=VALUE labels, such as instance=ci-gc,cluster=prod';
const GATEWAY_PATH_REFUSED = (base: string): string =>
  `its path holds a grouping key (/metrics/…), which the collector writes itself; give the gateway's address and the labels apart, such as --pushgateway-url ${base} --pushgateway-grouping instance=ci-gc`;

const COLLECT_EXPECTED = 'expected one or more of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs, resolution-requests, pipelineruns, taskruns, such as pipelineresources,workspace-pvcs';
const NO_ALL = 'there is no all, so that no upgrade turns a new collector on; name each, one or more of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs, resolution-requests, pipelineruns, taskruns, such as pipelineresources,workspace-pvcs';
const CAP_COLLECTOR_EXPECTED = 'expected COLLECTOR=N with COLLECTOR one of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs, resolution-requests, pipelineruns, taskruns, such as workspace-pvcs=200,pac-secrets=500';
const CAP_NUMBER_EXPECTED = 'expected COLLECTOR=N with N a whole number of 0 or more, such as workspace-pvcs=200,pac-secrets=500';

const SCHEDULE_EXPECTED = 'expected five cron fields such as "17 * * * *" or "0 3 * * MON-FRI", or @hourly, @daily, @weekly, @monthly, @yearly, @every 6h';

const INVALID: InvalidRow[] = [
  // auto or never; a TTY alone does not force the line.
  { flag: 'progress', argv: ['--progress', 'always'], message: '--progress "always": expected one of auto, never, such as never' },
  { flag: 'progress', argv: [], env: { TRGC_PROGRESS: 'off' }, message: 'TRGC_PROGRESS "off": expected one of auto, never, such as never' },
  // A boolean takes only true or false.
  { flag: 'events', argv: ['--events=on'], message: '--events "on": expected true or false, such as --events, --events=false or TRGC_EVENTS=true' },
  // Six fields (seconds): Kubernetes takes five.
  { flag: 'schedule', argv: ['--schedule', '0 */5 * * * *'], message: `--schedule "0 */5 * * * *": 6 fields; ${SCHEDULE_EXPECTED}` },
  // A minute out of range, named with its field.
  { flag: 'schedule', argv: [], env: { TRGC_SCHEDULE: '60 * * * *' }, message: `TRGC_SCHEDULE "60 * * * *": the minute field "60": 60 is above the maximum, 59; ${SCHEDULE_EXPECTED}` },
  // An unknown zone.
  {
    flag: 'time-zone',
    argv: ['--schedule', '@daily', '--time-zone', 'Europe/Berlinn'],
    message: '--time-zone "Europe/Berlinn": expected a tz database time zone such as Europe/Berlin, America/New_York or Etc/UTC',
  },
  // A zone without a schedule does nothing, so it is a mistake.
  { flag: 'time-zone', argv: ['--time-zone', 'Etc/UTC'], message: '--time-zone "Etc/UTC": applies only with --schedule, such as --schedule "0 3 * * *" --time-zone Etc/UTC' },
  // Not a URL a push can go to.
  {
    flag: 'pushgateway-url',
    argv: ['--pushgateway-url', 'pushgateway:9091'],
    message: '--pushgateway-url "pushgateway:9091": expected an http or https URL without a query, such as http://pushgateway.monitoring:9091',
  },
  // A path that already names a group would be mangled by the grouping the collector adds.
  {
    flag: 'pushgateway-url',
    argv: ['--pushgateway-url', 'http://gw:9091/metrics/job/gc/instance/a'],
    message: `--pushgateway-url "http://gw:9091/metrics/job/gc/instance/a": ${GATEWAY_PATH_REFUSED('http://gw:9091')}`,
  },
  // Behind a proxy, the prefix before /metrics is the address to give; the password never shows.
  {
    flag: 'pushgateway-url',
    argv: [],
    env: { TRGC_PUSHGATEWAY_URL: 'https://robot:s3cret@example.com/gw/metrics' },
    message: `TRGC_PUSHGATEWAY_URL "https://REDACTED@example.com/gw/metrics": ${GATEWAY_PATH_REFUSED('https://example.com/gw')}`,
  },
  // Not NAME=VALUE.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'instance'],
    message: `--pushgateway-grouping "instance": ${GROUPING_EXPECTED}`,
  },
  // Not a Prometheus label name; the bad part is named.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'instance=a,my-label=b'],
    message: `--pushgateway-grouping "instance=a,my-label=b": "my-label=b" in it is not valid; "my-label" is not a Prometheus label name (letters, digits and _, not starting with a digit); ${GROUPING_EXPECTED}`,
  },
  // job is the collector's, always.
  {
    flag: 'pushgateway-grouping',
    argv: [],
    env: { TRGC_PUSHGATEWAY_URL: 'http://gw:9091', TRGC_PUSHGATEWAY_GROUPING: 'job=gc' },
    message: `TRGC_PUSHGATEWAY_GROUPING "job=gc": job is always tekton-resource-gc and cannot be set; name the install with another label; ${GROUPING_EXPECTED}`,
  },
  // A label of the samples would fold every reason into one series.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'reason=x'],
    message: `--pushgateway-grouping "reason=x": reason is a label of the pushed metrics and cannot also group them; ${GROUPING_EXPECTED}`,
  },
  // Reserved to Prometheus.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', '__name__=x'],
    message: `--pushgateway-grouping "__name__=x": label names starting with __ are reserved to Prometheus; ${GROUPING_EXPECTED}`,
  },
  // An empty value.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'instance='],
    message: `--pushgateway-grouping "instance=": label instance has an empty value; ${GROUPING_EXPECTED}`,
  },
  // One label twice: which would win?
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'instance=a', '--pushgateway-grouping', 'instance=b'],
    message: '--pushgateway-grouping "instance=a,instance=b": label instance given twice; give each label once, such as instance=ci-gc,cluster=prod',
  },
  // A grouping without a gateway does nothing, so it is a mistake.
  {
    flag: 'pushgateway-grouping',
    argv: ['--pushgateway-grouping', 'instance=a'],
    message: '--pushgateway-grouping "instance=a": applies only with --pushgateway-url, such as --pushgateway-url http://pushgateway.monitoring:9091 --pushgateway-grouping instance=a',
  },
  // A boolean takes only true or false after `=`.
  {
    flag: 'dry-run',
    argv: ['--dry-run=yes'],
    message: '--dry-run "yes": expected true or false, such as --dry-run, --dry-run=false or TRGC_DRY_RUN=true',
  },
  // The same from the variable names the variable; `1` is not a boolean here.
  {
    flag: 'dry-run',
    argv: [],
    env: { TRGC_DRY_RUN: '1' },
    message: 'TRGC_DRY_RUN "1": expected true or false, such as --dry-run, --dry-run=false or TRGC_DRY_RUN=true',
  },
  // `--dry-run false` would otherwise leave a dry run on and a stray word.
  { flag: 'dry-run', argv: ['--dry-run', 'false'], message: 'unexpected argument "false" after --dry-run: write --dry-run=false' },
  // Upper case and underscores are not DNS-1123.
  { flag: 'namespace', argv: ['--namespace', 'Team_A'], message: `--namespace "Team_A": ${NAMESPACE_EXPECTED}` },
  // An empty name would silently widen the scope to every namespace.
  { flag: 'namespace', argv: ['--namespace', ''], message: `--namespace "": ${NAMESPACE_EXPECTED}` },
  // A bad part of a list is named inside the whole value.
  { flag: 'namespace', argv: ['--namespace', 'ci,,team-a'], message: `--namespace "ci,,team-a": "" in it is not valid; ${NAMESPACE_EXPECTED}` },
  // 64 characters is one too many.
  { flag: 'namespace', argv: ['--namespace', 'a'.repeat(64)], message: `--namespace "${'a'.repeat(64)}": ${NAMESPACE_EXPECTED}` },
  // `*` is how the report shows "all", not a name.
  { flag: 'namespace', argv: [], env: { TRGC_NAMESPACE: '*' }, message: `TRGC_NAMESPACE "*": ${NAMESPACE_EXPECTED}` },
  // A namespace cannot end with '-'.
  { flag: 'exclude-namespace', argv: ['--exclude-namespace', 'kube-'], message: `--exclude-namespace "kube-": ${NAMESPACE_EXPECTED}` },
  // From the variable, the bad part named.
  {
    flag: 'exclude-namespace',
    argv: [],
    env: { TRGC_EXCLUDE_NAMESPACE: 'ok,Bad' },
    message: `TRGC_EXCLUDE_NAMESPACE "ok,Bad": "Bad" in it is not valid; ${NAMESPACE_EXPECTED}`,
  },
  // A trailing comma leaves an empty requirement.
  { flag: 'selector', argv: ['--selector', 'app=ci,'], message: `--selector "app=ci,": requirement "" is not valid; ${SELECTOR_EXPECTED}` },
  // An unclosed set.
  { flag: 'selector', argv: ['--selector', 'env in (prod'], message: `--selector "env in (prod": parentheses do not balance; ${SELECTOR_EXPECTED}` },
  // `in` without parentheses.
  { flag: 'selector', argv: ['--selector', 'env in prod'], message: `--selector "env in prod": requirement "env in prod" is not valid; ${SELECTOR_EXPECTED}` },
  // A value with a space.
  { flag: 'selector', argv: ['--selector', 'app=my app'], message: `--selector "app=my app": requirement "app=my app" is not valid; ${SELECTOR_EXPECTED}` },
  // `=>` is a typo for nothing.
  { flag: 'selector', argv: ['--selector', 'app=>ci'], message: `--selector "app=>ci": requirement "app=>ci" is not valid; ${SELECTOR_EXPECTED}` },
  // A key prefix must be a DNS subdomain.
  { flag: 'selector', argv: [], env: { TRGC_SELECTOR: 'Example.com/app=ci' }, message: `TRGC_SELECTOR "Example.com/app=ci": requirement "Example.com/app=ci" is not valid; ${SELECTOR_EXPECTED}` },
  { flag: 'namespace-selector', argv: ['--namespace-selector', 'shard in a'], message: `--namespace-selector "shard in a": requirement "shard in a" is not valid; ${SELECTOR_EXPECTED}` },
  { flag: 'namespace-selector', argv: [], env: { TRGC_NAMESPACE_SELECTOR: 'shard=(a' }, message: `TRGC_NAMESPACE_SELECTOR "shard=(a": parentheses do not balance; ${SELECTOR_EXPECTED}` },
  // A collector that does not exist: the valid ones named, in one line.
  { flag: 'collect', argv: ['--collect', 'pvcs'], message: `--collect "pvcs": ${COLLECT_EXPECTED}` },
  // No all: an upgrade that adds a collector must never turn it on.
  { flag: 'collect', argv: ['--collect', 'pipelineresources,all'], message: `--collect "pipelineresources,all": "all" in it is not valid; ${NO_ALL}` },
  { flag: 'collect', argv: [], env: { TRGC_COLLECT: 'all' }, message: `TRGC_COLLECT "all": ${NO_ALL}` },
  // An empty value on the command line collects nothing, which is not a pass: refused.
  { flag: 'collect', argv: ['--collect='], message: `--collect "": ${COLLECT_EXPECTED}` },
  // Names are lower case, as Kubernetes writes resources.
  { flag: 'collect', argv: [], env: { TRGC_COLLECT: 'Workspace-PVCs' }, message: `TRGC_COLLECT "Workspace-PVCs": ${COLLECT_EXPECTED}` },
  { flag: 'pvc-finalizer', argv: ['--collect', 'workspace-pvcs', '--pvc-finalizer', 'remove'], message: '--pvc-finalizer "remove": expected one of keep, purge, such as purge' },
  // purge without workspace PVCs would purge nothing: a mistake.
  {
    flag: 'pvc-finalizer',
    argv: [],
    env: { TRGC_PVC_FINALIZER: 'purge' },
    message: 'TRGC_PVC_FINALIZER "purge": applies only with --collect workspace-pvcs, such as --collect pipelineresources,workspace-pvcs --pvc-finalizer purge',
  },
  { flag: 'pruner-config', argv: ['--pruner-config', 'Tekton_Pipelines'], message: `--pruner-config "Tekton_Pipelines": expected a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit) such as team-a` },
  { flag: 'pruner-config', argv: [], env: { TRGC_PRUNER_CONFIG: 'a/b' }, message: `TRGC_PRUNER_CONFIG "a/b": expected a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit) such as team-a` },
  // A collector that does not exist.
  { flag: 'max-deletions-per-kind', argv: ['--max-deletions-per-kind', 'pvcs=5'], message: `--max-deletions-per-kind "pvcs=5": ${CAP_COLLECTOR_EXPECTED}` },
  // No collector at all.
  { flag: 'max-deletions-per-kind', argv: ['--max-deletions-per-kind', '5'], message: `--max-deletions-per-kind "5": ${CAP_COLLECTOR_EXPECTED}` },
  // A cap that is not a whole number, the bad part named.
  {
    flag: 'max-deletions-per-kind',
    argv: ['--collect', 'workspace-pvcs', '--max-deletions-per-kind', 'pipelineresources=1,workspace-pvcs=-1'],
    message: `--max-deletions-per-kind "pipelineresources=1,workspace-pvcs=-1": "workspace-pvcs=-1" in it is not valid; ${CAP_NUMBER_EXPECTED}`,
  },
  { flag: 'max-deletions-per-kind', argv: [], env: { TRGC_MAX_DELETIONS_PER_KIND: 'pipelineresources=' }, message: `TRGC_MAX_DELETIONS_PER_KIND "pipelineresources=": ${CAP_NUMBER_EXPECTED}` },
  // One collector twice: which would win?
  {
    flag: 'max-deletions-per-kind',
    argv: ['--collect', 'workspace-pvcs', '--max-deletions-per-kind', 'workspace-pvcs=5', '--max-deletions-per-kind', 'workspace-pvcs=6'],
    message: '--max-deletions-per-kind "workspace-pvcs=5,workspace-pvcs=6": workspace-pvcs given twice; give each collector once, such as workspace-pvcs=200,pac-secrets=500',
  },
  // A cap on a collector that is off does nothing: a mistake.
  {
    flag: 'max-deletions-per-kind',
    argv: [],
    env: { TRGC_MAX_DELETIONS_PER_KIND: 'pac-secrets=5' },
    message: 'TRGC_MAX_DELETIONS_PER_KIND "pac-secrets=5": pac-secrets is not collected (--collect pipelineresources); add it, such as --collect pipelineresources,pac-secrets',
  },
  // The runs' policy: values, and only with a run collector.
  { flag: 'keep', argv: ['--collect', 'pipelineruns', '--keep', '-1'], message: '--keep "-1": expected a whole number from 0 to 1000000, such as 5' },
  { flag: 'keep', argv: ['--keep', '5'], message: '--keep: applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --keep 5' },
  { flag: 'keep-successful', argv: ['--collect', 'pipelineruns', '--keep-successful', 'all'], message: '--keep-successful "all": expected a whole number from 0 to 1000000, such as 5' },
  { flag: 'keep-failed', argv: [], env: { TRGC_KEEP_FAILED: '3' }, message: 'TRGC_KEEP_FAILED: applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --keep-failed 3' },
  { flag: 'keep-failed', argv: ['--collect', 'taskruns', '--keep-failed', '2.5'], message: '--keep-failed "2.5": expected a whole number from 0 to 1000000, such as 5' },
  { flag: 'run-ttl', argv: ['--collect', 'taskruns', '--run-ttl', '7days'], message: '--run-ttl "7days": expected a duration such as 12h, 7d, P7D or forever' },
  { flag: 'group-by', argv: ['--collect', 'pipelineruns', '--group-by', 'a b'], message: '--group-by "a b": expected a label key ([prefix/]name, the name at most 63 letters, digits, -, _ or .) such as pipelinesascode.tekton.dev/original-prname' },
  { flag: 'require-results-stored', argv: ['--require-results-stored'], message: '--require-results-stored: applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --require-results-stored' },
  { flag: 'max-cascade-deletions', argv: ['--max-cascade-deletions', '500'], message: '--max-cascade-deletions: applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --max-cascade-deletions 5000' },
  { flag: 'max-cascade-deletions', argv: ['--collect', 'pipelineruns', '--max-cascade-deletions', 'lots'], message: '--max-cascade-deletions "lots": expected a whole number of 0 or more, such as 20000' },
  // A selector with a run collector, beside a collector whose targets a run owns: a run kept for what goes with it would not see them all.
  {
    flag: 'selector',
    argv: ['--collect', 'pipelineruns,workspace-pvcs', '--selector', 'app=ci'],
    message:
      '--selector "app=ci": with pipelineruns, it cannot also narrow workspace-pvcs (a run is kept while something that goes with it is kept, and the selector would hide those it does not match); collect runs in a pass of their own, such as --collect pipelineruns --selector "app=ci"',
  },
  // Not a duration.
  { flag: 'min-age', argv: ['--min-age', 'abc'], message: `--min-age "abc": ${MIN_AGE_EXPECTED}` },
  // forever makes no sense as a minimum age.
  { flag: 'min-age', argv: [], env: { TRGC_MIN_AGE: 'forever' }, message: `TRGC_MIN_AGE "forever": ${MIN_AGE_EXPECTED}` },
  // Units are single letters.
  { flag: 'retain-for', argv: ['--retain-for', '7days'], message: '--retain-for "7days": expected a duration such as 12h, 7d, P7D or forever' },
  // Negative durations cannot be written.
  { flag: 'retain-for', argv: [], env: { TRGC_RETAIN_FOR: '-1d' }, message: 'TRGC_RETAIN_FOR "-1d": expected a duration such as 12h, 7d, P7D or forever' },
  // Label key prefixes are lower case, no slash.
  {
    flag: 'label-prefix',
    argv: ['--label-prefix', 'GC.example.com/'],
    message: `--label-prefix "GC.example.com/": expected a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters) such as tekton-resource-gc.io or gc.example.com`,
  },
  // A DNS subdomain cannot start with a dot.
  {
    flag: 'label-prefix',
    argv: [],
    env: { TRGC_LABEL_PREFIX: '.io' },
    message: `TRGC_LABEL_PREFIX ".io": expected a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters) such as tekton-resource-gc.io or gc.example.com`,
  },
  // Negative numbers are values, not flags, and are rejected as values.
  { flag: 'max-deletions', argv: ['--max-deletions', '-1'], message: '--max-deletions "-1": expected a whole number of 0 or more, such as 1000' },
  // Exponents are not whole numbers as written here.
  { flag: 'max-deletions', argv: [], env: { TRGC_MAX_DELETIONS: '1e3' }, message: 'TRGC_MAX_DELETIONS "1e3": expected a whole number of 0 or more, such as 1000' },
  { flag: 'max-consecutive-failures', argv: ['--max-consecutive-failures', '2.5'], message: '--max-consecutive-failures "2.5": expected a whole number of 0 or more, such as 5' },
  // Zero would never delete and never finish.
  { flag: 'qps', argv: ['--qps', '0'], message: '--qps "0": expected a number greater than 0, such as 20 or 2.5' },
  // Not a number.
  { flag: 'qps', argv: [], env: { TRGC_QPS: 'fast' }, message: 'TRGC_QPS "fast": expected a number greater than 0, such as 20 or 2.5' },
  // Zero in flight would never delete.
  { flag: 'concurrency', argv: ['--concurrency', '0'], message: '--concurrency "0": expected a whole number of 1 or more, such as 4' },
  // Not whole.
  { flag: 'concurrency', argv: [], env: { TRGC_CONCURRENCY: '2.5' }, message: 'TRGC_CONCURRENCY "2.5": expected a whole number of 1 or more, such as 4' },
  // One past the largest page.
  { flag: 'page-size', argv: ['--page-size', '10001'], message: '--page-size "10001": expected a whole number from 1 to 10000, such as 500' },
  // An empty page.
  { flag: 'page-size', argv: [], env: { TRGC_PAGE_SIZE: '0' }, message: 'TRGC_PAGE_SIZE "0": expected a whole number from 1 to 10000, such as 500' },
  // More retries than any request is worth.
  { flag: 'max-retries', argv: ['--max-retries', '21'], message: '--max-retries "21": expected a whole number from 0 to 20, such as 5' },
  // Negative.
  { flag: 'max-retries', argv: [], env: { TRGC_MAX_RETRIES: '-1' }, message: 'TRGC_MAX_RETRIES "-1": expected a whole number from 0 to 20, such as 5' },
  // A bare number has no unit.
  { flag: 'request-timeout', argv: ['--request-timeout', '30'], message: '--request-timeout "30": expected a duration from 1s to 1h, such as 30s, 2m or PT45S' },
  // Zero would abandon every request at once.
  { flag: 'request-timeout', argv: [], env: { TRGC_REQUEST_TIMEOUT: '0s' }, message: 'TRGC_REQUEST_TIMEOUT "0s": expected a duration from 1s to 1h, such as 30s, 2m or PT45S' },
  // Longer than an hour.
  { flag: 'request-timeout', argv: ['--request-timeout', '2h'], message: '--request-timeout "2h": expected a duration from 1s to 1h, such as 30s, 2m or PT45S' },
  // Not a format this tool writes.
  { flag: 'output', argv: ['--output', 'yaml'], message: '--output "yaml": expected one of text, json, markdown, such as json' },
  // Formats are lower case.
  { flag: 'output', argv: [], env: { TRGC_OUTPUT: 'JSON' }, message: 'TRGC_OUTPUT "JSON": expected one of text, json, markdown, such as json' },
  // An empty path.
  { flag: 'report-file', argv: ['--report-file='], message: '--report-file "": expected a non-empty value, such as reports/gc.md' },
  // A value flag at the end of the line has no value.
  { flag: 'report-file', argv: ['--report-file'], message: '--report-file needs a value, such as --report-file reports/gc.md' },
  // Not a pino level.
  { flag: 'log-level', argv: ['--log-level', 'verbose'], message: '--log-level "verbose": expected one of trace, debug, info, warn, error, fatal, silent, such as debug' },
  // Levels are lower case.
  { flag: 'log-level', argv: [], env: { TRGC_LOG_LEVEL: 'INFO' }, message: 'TRGC_LOG_LEVEL "INFO": expected one of trace, debug, info, warn, error, fatal, silent, such as debug' },
  // An empty path.
  { flag: 'kubeconfig', argv: ['--kubeconfig', ''], message: '--kubeconfig "": expected a non-empty value, such as ~/.kube/config' },
  // A flag where a value should be means the value was forgotten.
  { flag: 'kubeconfig', argv: ['--kubeconfig', '--dry-run'], message: '--kubeconfig needs a value, such as --kubeconfig ~/.kube/config' },
  // An empty name.
  { flag: 'context', argv: ['--context='], message: '--context "": expected a non-empty value, such as kind-ci' },
  // No value at all.
  { flag: 'context', argv: ['--context'], message: '--context needs a value, such as --context kind-ci' },
  // A second value would silently override the first.
  { flag: 'min-age', argv: ['--min-age', '1h', '--min-age=2h'], message: '--min-age given twice ("1h", then "2h"): give it once' },
  // Typos get the nearest flag.
  { argv: ['--dryrun'], message: 'unknown flag --dryrun: did you mean --dry-run?' },
  // A plural is one edit away.
  { argv: ['--namespaces', 'ci'], message: 'unknown flag --namespaces: did you mean --namespace?' },
  // A prefix of a flag gets the flag.
  { argv: ['--retain=7d'], message: 'unknown flag --retain: did you mean --retain-for?' },
  // Nothing near: point at --help.
  { argv: ['-n', 'ci'], message: 'unknown flag -n: see --help for the flags and variables' },
  // Typos in a chart's variables are caught too.
  { argv: [], env: { TRGC_DRYRUN: 'true' }, message: 'unknown variable TRGC_DRYRUN: did you mean TRGC_DRY_RUN?' },
  // run, explain and apply are the only commands.
  { argv: ['delete'], message: 'unknown command "delete": the commands are run (the default), explain and apply, such as tekton-resource-gc run --dry-run' },
  // Plans.
  { flag: 'plan-file', argv: ['--plan-file', 'plan.json'], message: '--plan-file writes the plan of a dry run: add --dry-run, such as tekton-resource-gc --dry-run --plan-file plan.json; a live pass from a plan is tekton-resource-gc apply plan.json' },
  { flag: 'plan-file', argv: ['--dry-run', '--plan-file='], message: '--plan-file "": expected a non-empty value, such as plan.json' },
  { flag: 'plan-max-age', argv: ['apply', 'plan.json', '--plan-max-age', 'a day'], message: `--plan-max-age "a day": ${MIN_AGE_EXPECTED}` },
  { flag: 'plan-max-age', argv: ['--plan-max-age', '2h'], message: '--plan-max-age applies only to apply, such as tekton-resource-gc apply plan.json' },
  { flag: 'plan-digest', argv: ['apply', 'plan.json', '--plan-digest', 'sha256:abc'], message: '--plan-digest "sha256:abc": expected the plan digest a dry run reported, such as sha256:3f5a… (64 hex digits)' },
  { flag: 'plan', argv: ['--plan', 'plan.json'], message: '--plan applies only to explain, such as tekton-resource-gc explain ci/src-abc123 --plan plan.json' },
  { flag: 'plan', argv: ['apply', 'plan.json', '--plan', 'other.json'], message: '--plan does not apply to apply, which deletes what a plan lists in one live pass, such as tekton-resource-gc apply plan.json' },
  { argv: ['apply'], message: 'apply needs the plan file a dry run wrote with --plan-file, such as tekton-resource-gc apply plan.json' },
  { argv: ['apply', 'a.json', 'b.json'], message: 'unexpected argument "b.json": apply takes one plan file, such as tekton-resource-gc apply plan.json' },
  { argv: ['apply', 'plan.json', '--dry-run'], message: '--dry-run does not apply to apply, which deletes what a plan lists in one live pass, such as tekton-resource-gc apply plan.json' },
  // Nothing follows the command but flags.
  { argv: ['run', 'ci'], message: 'unexpected argument "ci": tekton-resource-gc run takes flags only, such as tekton-resource-gc run --dry-run --namespace ci' },
];

describe('parseConfig: --selector with the run collectors', () => {
  it("picks the runs that are targets: the runs' policy holds it, and the scope as for every kind", () => {
    const run = parseConfig(['--collect', 'pipelineruns,taskruns', '--keep', '2', '--selector', 'team=a'], {});
    assert.ok(run.kind === 'run');
    const settings = passSettings(run.config);
    assert.equal(settings.scope.selector, 'team=a');
    assert.equal(settings.policy.runs?.selector, 'team=a');
  });

  it('is taken beside PipelineResources, which no run owns', () => {
    const run = parseConfig(['--collect', 'pipelineresources,pipelineruns', '--selector', 'team=a'], {});
    assert.ok(run.kind === 'run');
    assert.equal(passSettings(run.config).policy.runs?.selector, 'team=a');
  });

  it("is absent from the runs' policy without a selector", () => {
    const run = parseConfig(['--collect', 'pipelineruns', '--keep', '2'], {});
    assert.ok(run.kind === 'run');
    assert.equal(passSettings(run.config).policy.runs?.selector, undefined);
  });

  for (const owned of ['affinity-assistants', 'pac-secrets', 'workspace-pvcs', 'resolution-requests']) {
    it(`is refused beside ${owned}, whose targets a run owns`, () => {
      assert.match(errorOf(['--collect', `taskruns,${owned}`, '--selector', 'team=a']).message, new RegExp(`^--selector "team=a": with taskruns, it cannot also narrow ${owned} `));
    });
  }
});

describe('parseConfig: invalid values', () => {
  for (const row of INVALID) {
    it(`${row.argv.join(' ')} ${JSON.stringify(row.env ?? {})}`, () => {
      const { message } = errorOf(row.argv, row.env);
      assert.equal(message, row.message);
    });
  }

  it('says every error in one line that names the flag or variable', () => {
    for (const row of INVALID) {
      const { message } = errorOf(row.argv, row.env);
      assert.doesNotMatch(message, /[\r\n]/, message);
      if (row.flag === undefined) continue;
      const names = [`--${row.flag}`, envVarName(row.flag)];
      assert.ok(names.some((name) => message.includes(name)), `${message} names ${names.join(' or ')}`);
    }
  });

  it('keeps a value with a line break on one line', () => {
    assert.equal(errorOf(['--output', 'json\nyaml']).message, '--output "json\\nyaml": expected one of text, json, markdown, such as json');
  });

  it('has a valid and an invalid row for every flag, from the command line and from the environment', () => {
    for (const flag of FLAG_NAMES) {
      for (const [name, rows] of [
        ['VALID', VALID],
        ['INVALID', INVALID],
      ] as const) {
        const forFlag = rows.filter((row) => row.flag === flag);
        assert.ok(forFlag.some((row) => row.argv.length > 0), `${name} has a command-line row for --${flag}`);
        if (name === 'VALID') assert.ok(forFlag.some((row) => row.argv.length === 0), `VALID has an env row for ${envVarName(flag)}`);
      }
    }
  });
});

describe('parseConfig: explain KIND/NAMESPACE/NAME', () => {
  const targetOf = (operand: string): unknown => {
    const invocation = parseConfig(['explain', operand], {});
    assert.equal(invocation.kind, 'explain');
    return invocation.target;
  };

  const valid: [string, unknown][] = [
    // NAMESPACE/NAME alone stays a PipelineResource, as before there were other kinds.
    ['ci/src-abc123', { collector: 'pipelineresources', namespace: 'ci', name: 'src-abc123' }],
    ['pipelineresource/ci/src-abc123', { collector: 'pipelineresources', namespace: 'ci', name: 'src-abc123' }],
    ['pvc/ci/pvc-3f5a0c9e1b', { collector: 'workspace-pvcs', namespace: 'ci', name: 'pvc-3f5a0c9e1b' }],
    ['statefulset/ci/affinity-assistant-3f5a0c9e1b', { collector: 'affinity-assistants', namespace: 'ci', name: 'affinity-assistant-3f5a0c9e1b' }],
    ['secret/ci/pac-gitauth-abcdef', { collector: 'pac-secrets', namespace: 'ci', name: 'pac-gitauth-abcdef' }],
    ['pipelinerun/ci/build-1', { collector: 'pipelineruns', namespace: 'ci', name: 'build-1' }],
    ['taskrun/ci/lint-1', { collector: 'taskruns', namespace: 'ci', name: 'lint-1' }],
  ];
  for (const [operand, target] of valid) it(`reads ${operand}`, () => assert.deepEqual(targetOf(operand), target));

  it("a run decides with the runs' flags and variables, as a pass collecting its kind does", () => {
    const invocation = parseConfig(['explain', 'pipelinerun/ci/build-1', '--keep', '3', '--run-ttl', '7d', '--group-by', 'app', '--require-results-stored'], { TRGC_KEEP_FAILED: '1' });
    assert.equal(invocation.kind, 'explain');
    const { config } = invocation;
    assert.deepEqual(config.collect, ['pipelineruns']);
    assert.deepEqual(passSettings(config).policy.runs, {
      keepSuccessful: 3,
      keepFailed: 1,
      ttl: { kind: 'duration', ms: 7 * DAY, text: '7d' },
      groupBy: 'app',
      requireResultsStored: true,
      limitFlags: { keepSuccessful: '--keep' },
    });
    assert.deepEqual(config.origins, { keep: '--keep', 'keep-failed': 'TRGC_KEEP_FAILED', 'run-ttl': '--run-ttl', 'group-by': '--group-by', 'require-results-stored': '--require-results-stored' });
  });

  it("another kind leaves the runs' variables alone, and refuses their flags, naming the runs' KIND words", () => {
    const invocation = parseConfig(['explain', 'pvc/ci/x'], { TRGC_KEEP: '3', TRGC_RUN_TTL: '7d', TRGC_PRUNER_CONFIG: 'tekton-pipelines' });
    assert.equal(invocation.kind, 'explain');
    assert.equal(invocation.config.keep, undefined);
    assert.equal(invocation.config.prunerConfig, undefined);
    assert.match(errorOf(['explain', 'pvc/ci/x', '--pruner-config', 'tekton-pipelines']).message, /^--pruner-config: tektoncd\/pruner's policies decide only runs/);
    const run = parseConfig(['explain', 'pipelinerun/ci/build-1', '--pruner-config', 'tekton-pipelines'], {});
    assert.equal(run.kind === 'explain' && run.config.prunerConfig, 'tekton-pipelines');
    assert.equal(passSettings(invocation.config).policy.runs, undefined);
    assert.equal(
      errorOf(['explain', 'ci/src', '--keep', '3']).message,
      '--keep: applies only to runs, explained as pipelinerun/NAMESPACE/NAME or taskrun/NAMESPACE/NAME, such as tekton-resource-gc explain pipelinerun/ci/build-1 --keep 5',
    );
  });

  it('a run takes --collect: the collectors named beside its own, in delete order; another kind refuses it in one line and leaves TRGC_COLLECT alone', () => {
    const rows: [string[], readonly string[]][] = [
      [['explain', 'pipelinerun/ci/build-1'], ['pipelineruns']], // its own collector alone, as before
      [['explain', 'pipelinerun/ci/build-1', '--collect', 'workspace-pvcs,pac-secrets'], ['pac-secrets', 'workspace-pvcs', 'pipelineruns']], // its own added
      [['explain', 'taskrun/ci/lint-1', '--collect', 'pipelineruns,taskruns,resolution-requests'], ['resolution-requests', 'pipelineruns', 'taskruns']],
    ];
    for (const [args, collect] of rows) {
      const invocation = parseConfig(args, {});
      assert.deepEqual(invocation.kind === 'explain' && invocation.config.collect, collect, args.join(' '));
    }
    const fromEnv = parseConfig(['explain', 'pvc/ci/x'], { TRGC_COLLECT: 'workspace-pvcs,pipelineruns' });
    assert.deepEqual(fromEnv.kind === 'explain' && fromEnv.config.collect, ['workspace-pvcs']);
    assert.equal(
      errorOf(['explain', 'pvc/ci/x', '--collect', 'pipelineruns']).message,
      '--collect: explain of a PersistentVolumeClaim decides it as its collector alone; --collect names what goes with a run, explained as pipelinerun/NAMESPACE/NAME or taskrun/NAMESPACE/NAME, such as tekton-resource-gc explain pipelinerun/ci/build-1 --collect pipelineruns,workspace-pvcs',
    );
  });

  it('a run takes --selector, as a pass collecting runs does: its runs\' policy holds it', () => {
    const run = parseConfig(['explain', 'taskrun/ci/lint-1', '--selector', 'app=ci'], {});
    assert.equal(run.kind === 'explain' && passSettings(run.config).policy.runs?.selector, 'app=ci');
  });

  const invalid: [string, string][] = [
    // A kind that is not one of the four, the valid ones named.
    ['pod/ci/x', 'explain "pod/ci/x": unknown kind "pod"; expected KIND/NAMESPACE/NAME with KIND one of pipelineresource, statefulset, secret, pvc, resolutionrequest, pipelinerun, taskrun, such as tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b'],
    // kubectl's plural is not one of them either.
    ['pvcs/ci/x', 'explain "pvcs/ci/x": unknown kind "pvcs"; expected KIND/NAMESPACE/NAME with KIND one of pipelineresource, statefulset, secret, pvc, resolutionrequest, pipelinerun, taskrun, such as tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b'],
    // A known kind with a namespace that is not a name.
    ['pvc/Ci/x', 'explain "pvc/Ci/x": expected KIND/NAMESPACE/NAME with a namespace and a name, such as tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b'],
    ['secret/ci/', 'explain "secret/ci/": expected KIND/NAMESPACE/NAME with a namespace and a name, such as tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b'],
  ];
  for (const [operand, message] of invalid) it(`refuses ${operand}`, () => assert.equal(errorOf(['explain', operand]).message, message));

  it('needs an operand, and says both forms', () => {
    assert.equal(
      errorOf(['explain']).message,
      'explain needs the target as [KIND/]NAMESPACE/NAME, such as tekton-resource-gc explain ci/src-abc123 or tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b',
    );
  });
});

describe('parseConfig: environment', () => {
  const cases: { argv: string[]; env: Env; expect: Partial<Config> }[] = [
    // A flag wins over its variable.
    { argv: ['--min-age', '2h'], env: { TRGC_MIN_AGE: '5m' }, expect: { minAgeMs: 2 * HOUR } },
    // For lists, the flag's values replace the variable's rather than adding to them.
    { argv: ['--namespace', 'ci'], env: { TRGC_NAMESPACE: 'team-a,team-b' }, expect: { namespaces: ['ci'] } },
    // A variable overridden by its flag is not read, so it cannot fail the pass.
    { argv: ['--output', 'json'], env: { TRGC_OUTPUT: 'yaml' }, expect: { output: 'json' } },
    // Flags and variables for different settings combine.
    { argv: ['--dry-run'], env: { TRGC_NAMESPACE: 'ci', TRGC_QPS: '5' }, expect: { dryRun: true, namespaces: ['ci'], qps: 5 } },
    // An empty variable is unset: a chart may render every variable.
    { argv: [], env: { TRGC_MIN_AGE: '', TRGC_NAMESPACE: '', TRGC_RETAIN_FOR: '' }, expect: { minAgeMs: HOUR, namespaces: [] } },
    // Unrelated variables, and Kubernetes service links for a Service named trgc, are ignored.
    { argv: [], env: { HOME: '/root', TRGC_SERVICE_HOST: '10.0.0.1', TRGC_PORT: 'tcp://10.0.0.1:80', TRGC_PORT_80_TCP: 'x' }, expect: { dryRun: false } },
  ];
  for (const row of cases) {
    it(`${row.argv.join(' ')} ${JSON.stringify(row.env)}`, () => {
      const config = configOf(row.argv, row.env);
      for (const [key, value] of Object.entries(row.expect)) assert.deepEqual(config[key as keyof Config], value, key);
    });
  }

  it('leaves retainFor unset when nothing sets it', () => {
    assert.equal('retainFor' in configOf([], { TRGC_RETAIN_FOR: '' }), false);
  });

  it('reads the variable named after the flag', () => {
    assert.equal(envVarName('dry-run'), 'TRGC_DRY_RUN');
    assert.equal(envVarName('exclude-namespace'), 'TRGC_EXCLUDE_NAMESPACE');
  });
});

describe('parseConfig: Kubernetes service links', () => {
  // What the kubelet injects for the Services of the pod's namespace (envvars.FromServices),
  // for Services named trgc, trgc-metrics (named port http-metrics, and UDP 8125) and trgc--x.
  const INJECTED = [
    'TRGC_SERVICE_HOST',
    'TRGC_SERVICE_PORT',
    'TRGC_PORT',
    'TRGC_PORT_80_TCP',
    'TRGC_PORT_80_TCP_PROTO',
    'TRGC_PORT_80_TCP_PORT',
    'TRGC_PORT_80_TCP_ADDR',
    'TRGC_METRICS_SERVICE_HOST',
    'TRGC_METRICS_SERVICE_PORT',
    'TRGC_METRICS_SERVICE_PORT_HTTP_METRICS',
    'TRGC_METRICS_PORT',
    'TRGC_METRICS_PORT_9091_TCP',
    'TRGC_METRICS_PORT_8125_UDP_ADDR',
    'TRGC_METRICS_PORT_65535_SCTP_PROTO',
    // A Service named after a setting is still a Service.
    'TRGC_DRY_RUN_SERVICE_HOST',
    'TRGC__X_PORT_1_TCP_PORT',
  ];

  it('ignores every variable of a trgc-... Service', () => {
    const env = Object.fromEntries(INJECTED.map((name) => [name, name.endsWith('_PORT') ? '9091' : '10.0.0.1']));
    assert.deepEqual(configOf([], env), configOf([]));
  });

  // Near misses: not what the kubelet writes, so a typo of ours or a stray setting.
  const NOT_INJECTED: [string, string][] = [
    ['TRGC_METRICS_SERVICE_HOSTS', 'an S too many'],
    ['TRGC_METRICS_SERVICE', 'no HOST or PORT'],
    ['TRGC_METRICS_PORT_80', 'a port without its protocol'],
    ['TRGC_METRICS_PORT_80_HTTP', 'a protocol Kubernetes has not'],
    ['TRGC_METRICS_PORT_0_TCP', 'port 0'],
    ['TRGC_METRICS_PORT_80_TCP_HOST', '_HOST is not a link suffix'],
    ['TRGC_SERVICE_HOST_X', 'something after the suffix'],
    ['TRGC_METRICS_SERVICE_PORT_', 'an empty port name'],
    ['TRGC_PUSHGATEWAY_PORT_X', 'not a link either'],
    ['TRGC_MAX_RETRY', 'a plain typo'],
  ];
  for (const [name, why] of NOT_INJECTED) {
    it(`refuses ${name} (${why})`, () => {
      assert.match(errorOf([], { [name]: 'x' }).message, new RegExp(`^unknown variable ${name}: `));
    });
  }
});

describe('parseConfig: help and version', () => {
  const cases: { argv: string[]; env?: Env; kind: 'help' | 'version' }[] = [
    { argv: ['--help'], kind: 'help' },
    { argv: ['-h'], kind: 'help' },
    { argv: ['run', '--help'], kind: 'help' },
    // Help wins over errors elsewhere on the line or in the environment: it is how to fix them.
    { argv: ['--bogus', '--min-age', 'abc', '-h'], env: { TRGC_TYPO: 'x' }, kind: 'help' },
    // Help wins over version.
    { argv: ['--version', '--help'], kind: 'help' },
    { argv: ['--version'], kind: 'version' },
    { argv: ['--dry-run', '--version'], kind: 'version' },
  ];
  for (const row of cases) {
    it(row.argv.join(' '), () => assert.deepEqual(parseConfig(row.argv, row.env ?? {}), { kind: row.kind }));
  }
});

describe('helpText', () => {
  const help = helpText();

  it('documents every flag with its variable', () => {
    for (const flag of FLAG_NAMES) {
      assert.match(help, new RegExp(`^  --${flag}\\b`, 'm'), `--${flag}`);
      assert.ok(help.includes(envVarName(flag)), envVarName(flag));
    }
  });

  it('shows the defaults the parser uses', () => {
    const defaults: [string, string][] = [
      ['TRGC_DRY_RUN', String(DEFAULTS.dryRun)],
      ['TRGC_MIN_AGE', '1h'],
      ['TRGC_LABEL_PREFIX', DEFAULTS.labelPrefix],
      ['TRGC_MAX_DELETIONS', String(DEFAULTS.maxDeletions)],
      ['TRGC_QPS', String(DEFAULTS.qps)],
      ['TRGC_CONCURRENCY', String(DEFAULTS.concurrency)],
      ['TRGC_PAGE_SIZE', String(DEFAULTS.pageSize)],
      ['TRGC_MAX_RETRIES', String(DEFAULTS.maxRetries)],
      ['TRGC_REQUEST_TIMEOUT', '1m'],
      ['TRGC_OUTPUT', DEFAULTS.output],
      ['TRGC_LOG_LEVEL', DEFAULTS.logLevel],
    ];
    for (const [variable, value] of defaults) assert.ok(help.includes(`(env ${variable}; default: ${value})`), variable);
  });

  it('lists the exit codes of docs/spec.md', () => {
    for (const code of ['0', '1', '2', '3']) assert.match(help, new RegExp(`^  ${code}  \\S`, 'm'), `exit ${code}`);
  });

  it('has examples that parse', () => {
    const examples = help.split('\n').filter((line) => line.startsWith('  tekton-resource-gc --'));
    assert.ok(examples.length >= 3);
    for (const line of examples) {
      // These examples quote only single words, so dropping the quotes is the shell's split.
      const argv = line.replace(/\s*\\$/, '').replace(/'/g, '').trim().split(/\s+/).slice(1);
      assert.equal(parseConfig(argv, {}).kind, 'run', line);
    }
  });

  it('fits in 100 columns', () => {
    for (const line of help.split('\n')) assert.ok(line.length <= 100, line);
  });
});

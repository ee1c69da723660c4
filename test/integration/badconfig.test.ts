/**
 * Bad configuration through the CLI, as a user or a chart gives it: every flag and its
 * variable with an invalid value, and missing or broken kubeconfigs. Each exits 2 before
 * touching any cluster, with one line on stderr that names the flag (or variable, or file)
 * and shows what a valid value looks like; nothing on stdout.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FLAG_NAMES, envVarName } from '../../src/cli/config.js';
import { runCli, type CliResult } from '../support/cli.js';

interface BadCase {
  /** What is wrong, for the test name. */
  what: string;
  argv: string[];
  env?: Record<string, string>;
  /** The flag, variable or file the line must name. */
  names: string;
  /** What the line must show: an example or the valid choices. */
  shows: RegExp;
  /** What stderr must not hold: a credential in the value. */
  hides?: string;
}

const FLAG_CASES: BadCase[] = [
  { what: 'a boolean that is not true or false', argv: ['--dry-run=maybe'], names: '--dry-run', shows: /such as --dry-run, --dry-run=false/ },
  { what: 'a boolean variable of 1', argv: [], env: { TRGC_DRY_RUN: '1' }, names: 'TRGC_DRY_RUN', shows: /such as --dry-run/ },
  { what: 'an events switch that is not true or false', argv: [], env: { TRGC_EVENTS: 'yes' }, names: 'TRGC_EVENTS', shows: /such as --events, --events=false/ },
  { what: 'a schedule with a minute out of range', argv: ['--schedule', '61 * * * *'], names: '--schedule', shows: /such as "17 \* \* \* \*"/ },
  { what: 'a time zone nobody has', argv: ['--schedule', '@hourly', '--time-zone', 'Mars/Olympus'], names: '--time-zone', shows: /such as Europe\/Berlin/ },
  { what: 'a pushgateway that is not http', argv: [], env: { TRGC_PUSHGATEWAY_URL: 'ftp://pushgateway:9091' }, names: 'TRGC_PUSHGATEWAY_URL', shows: /such as http:\/\/pushgateway\.monitoring:9091/ },
  {
    what: 'a pushgateway URL that names a group, with a password',
    argv: [],
    env: { TRGC_PUSHGATEWAY_URL: 'http://robot:s3cret@gw:9091/metrics/job/gc/instance/a' },
    names: 'TRGC_PUSHGATEWAY_URL "http://REDACTED@gw:9091/metrics/job/gc/instance/a"',
    shows: /such as --pushgateway-url http:\/\/gw:9091 --pushgateway-grouping instance=ci-gc$/,
    hides: 's3cret',
  },
  { what: 'a grouping that sets job', argv: ['--pushgateway-url', 'http://gw:9091', '--pushgateway-grouping', 'job=gc'], names: '--pushgateway-grouping', shows: /job is always tekton-resource-gc.*such as instance=ci-gc,cluster=prod/ },
  { what: 'a grouping without a gateway', argv: [], env: { TRGC_PUSHGATEWAY_GROUPING: 'instance=gc' }, names: 'TRGC_PUSHGATEWAY_GROUPING', shows: /applies only with --pushgateway-url, such as/ },
  {
    what: "a bad setting beside the variables of a Service named trgc-metrics, which are not the collector's",
    argv: [],
    env: { TRGC_METRICS_SERVICE_HOST: '10.0.0.9', TRGC_METRICS_SERVICE_PORT: '9091', TRGC_METRICS_PORT: 'tcp://10.0.0.9:9091', TRGC_METRICS_PORT_9091_TCP_ADDR: '10.0.0.9', TRGC_QPS: 'fast' },
    names: 'TRGC_QPS',
    shows: /such as 20/,
  },
  { what: 'a namespace with upper case', argv: ['--namespace', 'Team_A'], names: '--namespace', shows: /such as team-a/ },
  { what: 'a namespace list with an empty member', argv: [], env: { TRGC_NAMESPACE: 'ci,,b' }, names: 'TRGC_NAMESPACE', shows: /such as team-a/ },
  { what: 'an exclusion ending in a dash', argv: ['--exclude-namespace', 'kube-'], names: '--exclude-namespace', shows: /such as team-a/ },
  { what: 'a namespace selector with a bad operator', argv: ['--namespace-selector', 'shard=>a'], names: '--namespace-selector', shows: /such as "app=ci/ },
  { what: 'a selector with unbalanced parentheses', argv: ['--selector', 'env in (prod'], names: '--selector', shows: /such as "app=ci/ },
  { what: 'a selector variable with a space in a value', argv: [], env: { TRGC_SELECTOR: 'app=my app' }, names: 'TRGC_SELECTOR', shows: /such as "app=ci/ },
  { what: 'a minimum age in years', argv: ['--min-age', '1y'], names: '--min-age', shows: /such as 30m, 1h/ },
  { what: 'a minimum age of forever', argv: [], env: { TRGC_MIN_AGE: 'forever' }, names: 'TRGC_MIN_AGE', shows: /such as 30m, 1h/ },
  { what: 'a retention with a spelled-out unit', argv: ['--retain-for', '7days'], names: '--retain-for', shows: /such as 12h, 7d, P7D or forever/ },
  { what: 'a history limit below zero', argv: ['--collect', 'pipelineruns', '--keep', '-1'], names: '--keep', shows: /a whole number from 0 to 1000000, such as 5$/ },
  { what: 'a history limit without a run collector', argv: ['--keep', '5'], names: '--keep', shows: /applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --keep 5$/ },
  { what: 'a successful-runs limit that is a word', argv: [], env: { TRGC_COLLECT: 'pipelineruns', TRGC_KEEP_SUCCESSFUL: 'ten' }, names: 'TRGC_KEEP_SUCCESSFUL', shows: /such as 5$/ },
  { what: 'a failed-runs limit with a fraction', argv: ['--collect', 'taskruns', '--keep-failed', '1.5'], names: '--keep-failed', shows: /such as 5$/ },
  { what: 'a run TTL with a spelled-out unit', argv: ['--collect', 'pipelineruns', '--run-ttl', '7days'], names: '--run-ttl', shows: /such as 12h, 7d, P7D or forever$/ },
  { what: 'a group label with a space', argv: ['--collect', 'pipelineruns', '--group-by', 'my label'], names: '--group-by', shows: /such as pipelinesascode\.tekton\.dev\/original-prname$/ },
  { what: 'Results required without a run collector', argv: [], env: { TRGC_REQUIRE_RESULTS_STORED: 'true' }, names: 'TRGC_REQUIRE_RESULTS_STORED', shows: /--require-results-stored$/ },
  { what: 'a negative cap on what goes with the runs', argv: ['--collect', 'pipelineruns', '--max-cascade-deletions', '-1'], names: '--max-cascade-deletions', shows: /expected a whole number of 0 or more, such as 20000$/ },
  { what: 'a cap on what goes with the runs without a run collector', argv: [], env: { TRGC_MAX_CASCADE_DELETIONS: '5000' }, names: 'TRGC_MAX_CASCADE_DELETIONS', shows: /applies only to runs, with --collect pipelineruns or taskruns, such as --collect pipelineresources,pipelineruns --max-cascade-deletions 5000$/ },
  {
    what: 'a run collector with a selector, beside a collector whose targets a run owns',
    argv: ['--collect', 'pipelineruns,workspace-pvcs', '--selector', 'app=ci'],
    names: '--selector',
    shows: /with pipelineruns, it cannot also narrow workspace-pvcs .*; collect runs in a pass of their own, such as --collect pipelineruns --selector "app=ci"$/,
  },
  { what: 'a negative retention', argv: [], env: { TRGC_RETAIN_FOR: '-1d' }, names: 'TRGC_RETAIN_FOR', shows: /such as 12h, 7d/ },
  { what: 'a label prefix with a slash', argv: ['--label-prefix', 'gc.example.com/'], names: '--label-prefix', shows: /such as tekton-resource-gc\.io/ },
  { what: 'a negative deletion cap', argv: ['--max-deletions', '-1'], names: '--max-deletions', shows: /such as 1000/ },
  { what: 'a collector that does not exist', argv: ['--collect', 'pipelineresources,pvcs'], names: '--collect', shows: /one or more of pipelineresources, affinity-assistants, pac-secrets, workspace-pvcs, resolution-requests, pipelineruns, taskruns, such as pipelineresources,workspace-pvcs$/ },
  { what: 'every collector at once, which there is no way to ask for', argv: [], env: { TRGC_COLLECT: 'all' }, names: 'TRGC_COLLECT', shows: /there is no all, so that no upgrade turns a new collector on/ },
  { what: 'a finalizer mode not known', argv: ['--collect', 'workspace-pvcs', '--pvc-finalizer', 'remove'], names: '--pvc-finalizer', shows: /one of keep, purge, such as purge/ },
  { what: 'purge without the workspace PVCs it is about', argv: [], env: { TRGC_PVC_FINALIZER: 'purge' }, names: 'TRGC_PVC_FINALIZER', shows: /applies only with --collect workspace-pvcs, such as --collect pipelineresources,workspace-pvcs --pvc-finalizer purge/ },
  { what: "a namespace for tektoncd/pruner's ConfigMaps with upper case", argv: ['--pruner-config', 'Tekton-Pipelines'], names: '--pruner-config', shows: /expected a namespace name .* such as team-a$/ },
  { what: "a namespace variable for tektoncd/pruner's ConfigMaps with a slash", argv: [], env: { TRGC_PRUNER_CONFIG: 'tekton/pipelines' }, names: 'TRGC_PRUNER_CONFIG', shows: /such as team-a$/ },
  { what: 'a negative breaker', argv: ['--max-consecutive-failures', '-2'], names: '--max-consecutive-failures', shows: /expected a whole number of 0 or more, such as 5$/ },
  { what: 'a breaker in words', argv: [], env: { TRGC_MAX_CONSECUTIVE_FAILURES: 'many' }, names: 'TRGC_MAX_CONSECUTIVE_FAILURES', shows: /such as 5$/ },
  { what: 'a cap per kind for a collector that does not exist', argv: ['--max-deletions-per-kind', 'pvcs=5'], names: '--max-deletions-per-kind', shows: /COLLECTOR one of pipelineresources, .*such as workspace-pvcs=200,pac-secrets=500/ },
  { what: 'a cap per kind that is not a number', argv: ['--collect', 'workspace-pvcs'], env: { TRGC_MAX_DELETIONS_PER_KIND: 'workspace-pvcs=lots' }, names: 'TRGC_MAX_DELETIONS_PER_KIND', shows: /N a whole number of 0 or more, such as workspace-pvcs=200/ },
  { what: 'a cap per kind for a collector that is off', argv: ['--max-deletions-per-kind', 'pac-secrets=5'], names: '--max-deletions-per-kind', shows: /pac-secrets is not collected \(--collect pipelineresources\); add it, such as --collect pipelineresources,pac-secrets/ },
  { what: 'explain with a kind it does not know', argv: ['explain', 'pod/ci/build-pod'], names: 'explain "pod/ci/build-pod"', shows: /KIND one of pipelineresource, statefulset, secret, pvc, resolutionrequest, pipelinerun, taskrun, such as tekton-resource-gc explain pvc\/ci\/pvc-3f5a0c9e1b/ },
  { what: 'a deletion cap with an exponent', argv: [], env: { TRGC_MAX_DELETIONS: '1e3' }, names: 'TRGC_MAX_DELETIONS', shows: /such as 1000/ },
  { what: 'a rate of zero', argv: ['--qps', '0'], names: '--qps', shows: /such as 20 or 2\.5/ },
  { what: 'a rate in words', argv: [], env: { TRGC_QPS: 'fast' }, names: 'TRGC_QPS', shows: /such as 20/ },
  { what: 'no deletes in flight', argv: ['--concurrency', '0'], names: '--concurrency', shows: /such as 4/ },
  { what: 'a page larger than the largest', argv: [], env: { TRGC_PAGE_SIZE: '10001' }, names: 'TRGC_PAGE_SIZE', shows: /such as 500/ },
  { what: 'more retries than allowed', argv: ['--max-retries', '21'], names: '--max-retries', shows: /from 0 to 20, such as 5/ },
  { what: 'retries in words', argv: [], env: { TRGC_MAX_RETRIES: 'many' }, names: 'TRGC_MAX_RETRIES', shows: /such as 5/ },
  { what: 'a request timeout without a unit', argv: ['--request-timeout', '30'], names: '--request-timeout', shows: /such as 30s, 2m or PT45S/ },
  { what: 'a request timeout of zero', argv: [], env: { TRGC_REQUEST_TIMEOUT: '0s' }, names: 'TRGC_REQUEST_TIMEOUT', shows: /such as 30s/ },
  { what: 'an output format not written', argv: ['--output', 'yaml'], names: '--output', shows: /one of text, json, markdown, such as json/ },
  { what: 'an empty report file', argv: ['--report-file='], names: '--report-file', shows: /such as reports\/gc\.md/ },
  { what: 'a log level not known', argv: [], env: { TRGC_LOG_LEVEL: 'verbose' }, names: 'TRGC_LOG_LEVEL', shows: /such as debug/ },
  { what: 'an empty kubeconfig path', argv: ['--kubeconfig', ''], names: '--kubeconfig', shows: /such as ~\/\.kube\/config/ },
  { what: 'a context without a value', argv: ['--context'], names: '--context', shows: /such as --context kind-ci/ },
  { what: 'a progress mode not known', argv: ['--progress', 'always'], names: '--progress', shows: /one of auto, never, such as never/ },
  { what: 'a plan file without a dry run', argv: ['--plan-file', 'plan.json'], names: '--plan-file', shows: /add --dry-run, such as tekton-resource-gc --dry-run --plan-file plan\.json/ },
  { what: 'an empty plan file', argv: ['--dry-run', '--plan-file='], names: '--plan-file', shows: /such as plan\.json/ },
  { what: 'a plan age without a unit', argv: ['apply', 'plan.json', '--plan-max-age', '24'], names: '--plan-max-age', shows: /such as 30m, 1h/ },
  { what: 'a plan digest that is not sha256', argv: ['apply', 'plan.json'], env: { TRGC_PLAN_DIGEST: 'md5:abc' }, names: 'TRGC_PLAN_DIGEST', shows: /such as sha256:3f5a… \(64 hex digits\)/ },
  { what: 'a plan for explain given to a pass', argv: ['--plan', 'plan.json'], names: '--plan', shows: /applies only to explain, such as tekton-resource-gc explain ci\/src-abc123 --plan plan\.json/ },
  // A value's C1 control (CSI) and bidi override are shown, never obeyed (C0 is quoted as \u001b already).
  { what: 'a value holding a C1 terminal control and a bidi override', argv: ['--output', '\u009b2J\u202etxt'], names: '--output', shows: /"\\u009b2J\\u202etxt": expected one of text, json, markdown/, hides: '\u009b' },
  { what: 'a misspelt flag', argv: ['--dryrun'], names: '--dryrun', shows: /did you mean --dry-run\?/ },
  { what: 'a misspelt variable', argv: [], env: { TRGC_MAXRETRIES: '3' }, names: 'TRGC_MAXRETRIES', shows: /did you mean TRGC_MAX_RETRIES\?/ },
];

/** Runs the cases two at a time: each is a process start, and CI has two cores. */
async function runAll(cases: readonly BadCase[], base: Record<string, string>): Promise<Map<BadCase, CliResult>> {
  const results = new Map<BadCase, CliResult>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const row = cases[next++] as BadCase;
      results.set(row, await runCli(row.argv, { env: { ...base, ...row.env } }));
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

function assertOneLine(row: BadCase, result: CliResult | undefined): void {
  assert.ok(result !== undefined);
  assert.equal(result.code, 2, `exit ${result.code ?? 'on a signal'}: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.split('\n');
  assert.equal(lines.length, 2, `one line and its newline: ${JSON.stringify(result.stderr)}`);
  const [line] = lines as [string];
  assert.ok(line.startsWith('tekton-resource-gc: '), line);
  assert.ok(line.includes(row.names), `${line} names ${row.names}`);
  assert.match(line, row.shows);
  if (row.hides !== undefined) assert.ok(!result.stderr.includes(row.hides), `${line} shows ${row.hides}`);
}

describe('bad configuration through the CLI: exit 2 and one line', () => {
  let dir: string;
  let home: string;
  let flagResults: Map<BadCase, CliResult>;
  let kubeconfigResults: Map<BadCase, CliResult>;
  const kubeconfigCases: BadCase[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'trgc-badconfig-'));
    // An empty home: no ~/.kube/config to fall back on.
    home = path.join(dir, 'home');
    await mkdir(home);
    const file = async (name: string, text: string): Promise<string> => {
      const at = path.join(dir, name);
      await writeFile(at, text);
      return at;
    };
    const context = (cluster: string, server = 'https://127.0.0.1:1'): string =>
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: ci, context: {cluster: ${cluster}, user: u}}]\n`;
    const badYaml = await file('bad.yaml', 'clusters: [oops\n');
    const empty = await file('empty.yaml', 'apiVersion: v1\nkind: Config\n');
    const noCurrent = await file('no-current.yaml', context('c'));
    const missingCluster = await file('missing-cluster.yaml', `${context('elsewhere')}current-context: ci\n`);
    const plainHttp = await file('plain-http.yaml', `${context('c', 'http://127.0.0.1:8001')}current-context: ci\n`);
    const plainHttpWithPassword = await file('plain-http-password.yaml', `${context('c', 'http://admin:hunter2@127.0.0.1:8001')}current-context: ci\n`);
    const good = await file('good.yaml', `${context('c')}current-context: ci\n`);
    const execPlugin = await file(
      'exec.yaml',
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: /nonexistent/credential-plugin}}}]\ncontexts: [{name: ci, context: {cluster: c, user: u}}]\ncurrent-context: ci\n',
    );
    const missing = path.join(dir, 'missing.yaml');
    kubeconfigCases.push(
      { what: 'a --kubeconfig file that does not exist', argv: ['--kubeconfig', missing], names: `--kubeconfig "${missing}"`, shows: /no such file; give the path of a kubeconfig such as ~\/\.kube\/config/ },
      { what: 'a KUBECONFIG file that does not exist', argv: [], env: { KUBECONFIG: missing }, names: `KUBECONFIG "${missing}"`, shows: /such as ~\/\.kube\/config/ },
      { what: 'a kubeconfig that is not YAML', argv: ['--kubeconfig', badYaml], names: '--kubeconfig', shows: /not a valid kubeconfig \(.+\); give a file such as ~\/\.kube\/config/ },
      { what: 'a kubeconfig that is a directory', argv: ['--kubeconfig', dir], names: '--kubeconfig', shows: /not a valid kubeconfig \(EISDIR.*\); give a file such as/ },
      { what: 'a kubeconfig with no clusters', argv: [], env: { TRGC_KUBECONFIG: empty }, names: '--kubeconfig', shows: /names no clusters or contexts\); give a file such as ~\/\.kube\/config/ },
      { what: 'a kubeconfig with no current context', argv: ['--kubeconfig', noCurrent], names: '--kubeconfig', shows: /no current context; choose one with --context, such as --context ci/ },
      { what: 'an unknown --context', argv: ['--kubeconfig', good, '--context', 'prod'], names: '--context "prod"', shows: /no such context in the kubeconfig; valid: ci/ },
      { what: 'a context whose cluster is missing', argv: ['--kubeconfig', missingCluster], names: '--kubeconfig', shows: /context "ci" names no cluster with a server URL; .*--context \(valid: ci\)/ },
      { what: 'a plain http server', argv: ['--kubeconfig', plainHttp], names: '--kubeconfig', shows: /plain http server http:\/\/127\.0\.0\.1:8001: use https, or set insecure-skip-tls-verify: true/ },
      {
        what: 'a plain http server with a password in its URL',
        argv: ['--kubeconfig', plainHttpWithPassword],
        names: '--kubeconfig',
        shows: /plain http server http:\/\/REDACTED@127\.0\.0\.1:8001\/: use https/,
        hides: 'hunter2',
      },
      { what: 'a credential plugin that cannot run', argv: ['--kubeconfig', execPlugin], names: 'kubeconfig context "ci"', shows: /cannot be used: spawn \/nonexistent\/credential-plugin ENOENT/ },
      { what: 'no kubeconfig anywhere', argv: [], names: 'no Kubernetes credentials', shows: /pass --kubeconfig FILE, set KUBECONFIG/ },
    );
    const started = Date.now();
    flagResults = await runAll(FLAG_CASES, { HOME: home });
    kubeconfigResults = await runAll(kubeconfigCases, { HOME: home });
    process.stdout.write(`# ${FLAG_CASES.length + kubeconfigCases.length} bad configurations in ${Date.now() - started} ms\n`);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('every flag has a bad value here, from the command line or its variable', () => {
    for (const flag of FLAG_NAMES) {
      assert.ok(
        FLAG_CASES.some((row) => row.names === `--${flag}` || row.names === envVarName(flag)),
        `a case for --${flag} or ${envVarName(flag)}`,
      );
    }
  });

  describe('flags and variables', () => {
    for (const row of FLAG_CASES) {
      test(`${row.what}: ${[...row.argv, ...Object.entries(row.env ?? {}).map(([k, v]) => `${k}=${v}`)].join(' ')}`, () => assertOneLine(row, flagResults.get(row)));
    }
  });

  describe('kubeconfigs', () => {
    // The cases exist once before() has made their files; one test checks them all.
    test('missing, not YAML, empty, without a current context or cluster, plain http (its password hidden), a broken plugin, none at all', () => {
      assert.equal(kubeconfigCases.length, 12);
      for (const row of kubeconfigCases) {
        try {
          assertOneLine(row, kubeconfigResults.get(row));
        } catch (error) {
          throw new Error(`${row.what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
    });
  });
});

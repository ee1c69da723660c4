/**
 * The chart's PrometheusRule and Grafana dashboard (`prometheusRule`, `grafanaDashboard`) as
 * `helm template` renders them, without a cluster: every metric each alert expression and
 * each dashboard query names is one the collector pushes (src/ops/metrics.ts's own registry, not
 * a copied list), with labels those metrics carry and label values they take, so that
 * renaming a metric, a label or a result in the code fails here; the rules select this
 * release's own group on the Pushgateway; the window of "has not run for 2 schedules" is
 * worked out from the schedule as src/process/cron.ts ticks it; both stay off by default (the
 * default render's goldens: test/unit/chart-collect.test.ts).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import type { V1ConfigMap, V1CronJob } from '@kubernetes/client-node';
import { parseConfig } from '../../src/cli/config.js';
import { COLLECTOR_NAMES } from '../../src/core/collectors.js';
import { parseCron, nextTick } from '../../src/process/cron.js';
import { PUSH_PLANS, passKind, passMetrics } from '../../src/ops/metrics.js';
import { PUSH_JOB } from '../../src/ops/pushgateway.js';
import type { Exit } from '../support/exec.js';
import { CHART, chartHelm, type Values } from '../support/helm.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Manifest = { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, unknown>;
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface PrometheusRule extends Manifest {
  spec: { groups: { name: string; rules: Rule[] }[] };
}

/** Both on, with every collector: every alert renders. */
const BOTH_ON: Values = {
  pushgatewayUrl: 'http://pushgateway.monitoring:9091',
  collect: [...COLLECTOR_NAMES],
  prometheusRule: { enabled: true },
  grafanaDashboard: { enabled: true },
};

const helm = chartHelm('chart-alerts');
const template = (values: Values): Promise<Exit> => helm.template([values]);
const render = (values: Values): Promise<Manifest[]> => helm.render<Manifest>([values]);

function only(objects: readonly Manifest[], kind: string): Manifest {
  const found = objects.filter((object) => object.kind === kind);
  assert.equal(found.length, 1, `one ${kind}, found ${found.length}`);
  return found[0] as Manifest;
}

function rulesOf(objects: readonly Manifest[]): Rule[] {
  return (only(objects, 'PrometheusRule') as PrometheusRule).spec.groups.flatMap((group) => group.rules);
}

// ---- what the code pushes ----

/** A pushed metric: its own labels, and the values each takes. */
type Pushed = Map<string, Map<string, Set<string>>>;

/**
 * Every metric a pass pushes, from src/ops/metrics.ts's own registry: a pass that ran as planned
 * (the plan that pushes every metric) with every collector on, so that the bytes of claims
 * and every kind are there; no report, so that every reason and result is pushed at 0.
 */
async function pushedMetrics(): Promise<Pushed> {
  const at = new Date('2026-11-29T12:00:00Z');
  const registry = passMetrics({ report: undefined, collect: [...COLLECTOR_NAMES], exitCode: 0, dryRun: false, startedAt: at, finishedAt: at, api: { requests: 0, retries: 0 } });
  const pushed: Pushed = new Map();
  for (const metric of await registry.getMetricsAsJSON()) {
    const labels = new Map<string, Set<string>>();
    for (const sample of metric.values) {
      for (const [name, value] of Object.entries(sample.labels)) labels.set(name, (labels.get(name) ?? new Set()).add(String(value)));
    }
    pushed.set(metric.name, labels);
  }
  return pushed;
}

/**
 * The labels of the release's group on the Pushgateway, with job: the grouping its CronJob's
 * collector reads from its container (src/cli/config.ts, as a pass does) and PUSH_JOB, which the
 * gateway sets on every series it serves.
 */
function groupOf(objects: readonly Manifest[]): Map<string, string> {
  const container = (only(objects, 'CronJob') as V1CronJob & Manifest).spec?.jobTemplate.spec?.template.spec?.containers[0];
  const env = Object.fromEntries((container?.env ?? []).map((variable) => [variable.name, variable.value]));
  const invocation = parseConfig(container?.args ?? [], env);
  assert.equal(invocation.kind, 'run');
  return new Map([['job', PUSH_JOB], ...(invocation.config.pushgatewayGrouping ?? []).map(({ name, value }): [string, string] => [name, value])]);
}

// ---- PromQL, as far as these expressions use it ----

interface Matcher {
  label: string;
  op: string;
  value: string;
}

interface Selector {
  metric: string;
  matchers: Matcher[];
}

/** What an expression names: its series selectors, and the labels of its by, without, on and ignoring lists. */
interface Named {
  selectors: Selector[];
  groupingLabels: string[];
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/** Aggregations, which may take their by or without list before their `(`. */
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile']);

/**
 * The names in a PromQL expression: an identifier followed by `(` is a function (or, for by,
 * without, on and ignoring, a list of labels), so is an aggregation, a keyword is a keyword,
 * any other is a metric,
 * with the matchers of its `{...}`. Strings, `[ranges]` and numbers name nothing.
 */
export function namesIn(expr: string): Named {
  const named: Named = { selectors: [], groupingLabels: [] };
  let at = 0;
  const skipBlanks = (): void => {
    while (/\s/.test(expr[at] ?? '')) at++;
  };
  const identifier = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
  const matcher = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?/y;
  while (at < expr.length) {
    const char = expr[at] ?? '';
    if (char === '"' || char === "'") {
      at = expr.indexOf(char, at + 1) + 1;
    } else if (char === '[') {
      at = expr.indexOf(']', at) + 1;
    } else if (/[0-9.]/.test(char)) {
      at = at + (/^[0-9.]+[a-z]*/.exec(expr.slice(at))?.[0].length ?? 1);
    } else if (/[a-zA-Z_:]/.test(char)) {
      identifier.lastIndex = at;
      const name = identifier.exec(expr)?.[0] ?? '';
      at += name.length;
      skipBlanks();
      if (GROUPING.has(name) && expr[at] === '(') {
        const close = expr.indexOf(')', at);
        named.groupingLabels.push(...expr.slice(at + 1, close).split(',').map((label) => label.trim()).filter((label) => label !== ''));
        at = close + 1;
      } else if (expr[at] === '(' || KEYWORDS.has(name) || AGGREGATIONS.has(name)) {
        if (name === 'offset') at += /^[0-9a-z]+/.exec(expr.slice(at))?.[0].length ?? 0;
      } else {
        const selector: Selector = { metric: name, matchers: [] };
        if (expr[at] === '{') {
          at++;
          for (let found = matcherAt(); found !== null; found = matcherAt()) selector.matchers.push(found);
          skipBlanks();
          assert.equal(expr[at], '}', `a selector's matchers end with }: ${expr.slice(at)}`);
          at++;
        }
        named.selectors.push(selector);
      }
    } else {
      at++;
    }
  }
  return named;

  function matcherAt(): Matcher | null {
    matcher.lastIndex = at;
    const found = matcher.exec(expr);
    if (found === null) return null;
    at = matcher.lastIndex;
    return { label: found[1] ?? '', op: found[2] ?? '', value: found[3] ?? '' };
  }
}

/**
 * What is wrong with one expression, one line each: a metric the code does not push, a label
 * it does not carry (nor its group on the gateway), a value of a label the code never sets.
 * `group` maps each label of the group to its value, or to undefined where any value goes (a
 * dashboard's variables).
 */
export function problemsOf(expr: string, pushed: Pushed, group: ReadonlyMap<string, string | undefined>): string[] {
  const problems: string[] = [];
  const { selectors, groupingLabels } = namesIn(expr);
  if (selectors.length === 0) problems.push(`names no metric: ${expr}`);
  for (const { metric, matchers } of selectors) {
    const labels = pushed.get(metric);
    if (labels === undefined) {
      problems.push(`${metric}: not a metric the collector pushes`);
      continue;
    }
    for (const { label, op, value } of matchers) {
      const values = labels.get(label);
      if (values === undefined && !group.has(label)) problems.push(`${metric}{${label}}: not a label of it, nor of the group`);
      else if (values !== undefined && (op === '=' || op === '=~')) {
        for (const each of op === '=' ? [value] : value.split('|')) {
          if (!values.has(each)) problems.push(`${metric}{${label}${op}"${value}"}: ${label} is never "${each}"`);
        }
      } else if (values === undefined && group.get(label) !== undefined && !(op === '=' && value === group.get(label))) {
        problems.push(`${metric}{${label}${op}"${value}"}: the group's ${label} is "${String(group.get(label))}"`);
      }
    }
  }
  const carried = new Set([...group.keys(), ...selectors.flatMap(({ metric }) => [...(pushed.get(metric)?.keys() ?? [])])]);
  for (const label of groupingLabels) {
    if (!carried.has(label)) problems.push(`by/without (${label}): no metric of the expression carries it`);
  }
  return problems;
}

// ---- the dashboard ----

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
  gridPos: { x: number; y: number; w: number; h: number };
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: { uid: string };
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

const DASHBOARD_FILE = path.join(CHART, 'dashboards/tekton-resource-gc.json');
/** A dashboard's group: any value, through its variables. */
const ANY_GROUP = new Map<string, string | undefined>([['job', undefined], ['namespace', undefined], ['instance', undefined]]);

/** `label_values(SELECTOR, LABEL)`: the selector's problems, and the label's if the metric lacks it. */
function variableProblems(query: string, pushed: Pushed): string[] {
  const found = /^label_values\((.+),\s*([a-zA-Z_]\w*)\)$/.exec(query);
  if (found === null) return [`not a label_values query: ${query}`];
  const [, selector = '', label = ''] = found;
  const problems = problemsOf(selector, pushed, ANY_GROUP);
  const metric = namesIn(selector).selectors[0]?.metric ?? '';
  if (!ANY_GROUP.has(label) && !pushed.get(metric)?.has(label)) problems.push(`label_values(${metric}, ${label}): no such label`);
  return problems;
}

// ---- tests ----

describe('every alert expression and dashboard query against the metrics the code pushes', () => {
  let pushed: Pushed;
  let objects: Manifest[];

  before(async () => {
    pushed = await pushedMetrics();
    objects = await render({ ...BOTH_ON, pushgatewayGrouping: { cluster: 'eu/prod' } });
  });

  it('the registry holds the metrics the docs list (a sanity check of the source)', () => {
    assert.ok(pushed.size >= 15, [...pushed.keys()].join(' '));
    assert.deepEqual([...(pushed.get('tekton_resource_gc_deletions')?.keys() ?? [])].sort(), ['kind', 'result']);
  });

  it('each alert names only pushed metrics, labels they or their group carry, and values the code sets', () => {
    const group = groupOf(objects);
    assert.deepEqual([...group.keys()].sort(), ['cluster', 'instance', 'job', 'namespace']);
    const problems = rulesOf(objects).flatMap((rule) => problemsOf(rule.expr, pushed, group).map((problem) => `${rule.alert}: ${problem}`));
    assert.deepEqual(problems, []);
  });

  it("each alert's every selector picks this release's group, exactly as its CronJob pushes it", () => {
    const group = groupOf(objects);
    for (const rule of rulesOf(objects)) {
      for (const { metric, matchers } of namesIn(rule.expr).selectors) {
        const picked = new Map(matchers.filter((each) => group.has(each.label)).map((each) => [each.label, `${each.op}${each.value}`]));
        assert.deepEqual(picked, new Map([...group].map(([label, value]) => [label, `=${value}`])), `${rule.alert}: ${metric}`);
      }
    }
  });

  it('the dashboard file is what the ConfigMap holds, and each query and variable names only pushed metrics and their labels', async () => {
    const text = await readFile(DASHBOARD_FILE, 'utf8');
    const configMap = (only(objects, 'ConfigMap') as V1ConfigMap & Manifest);
    assert.deepEqual(JSON.parse(configMap.data?.['tekton-resource-gc.json'] ?? ''), JSON.parse(text));
    const dashboard = JSON.parse(text) as Dashboard;
    const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => [panel.title, target.expr] as const));
    assert.ok(queries.length >= 12, `${queries.length} queries`);
    const problems = queries.flatMap(([title, expr]) => problemsOf(expr, pushed, ANY_GROUP).map((problem) => `${title}: ${problem}`));
    const variables = dashboard.templating.list.filter((variable) => variable.type === 'query');
    problems.push(...variables.flatMap((variable) => variableProblems(typeof variable.query === 'string' ? variable.query : variable.query.query, pushed)));
    assert.deepEqual(problems, []);
  });

  it('the dashboard shows what issue 31 asks for: targets, decisions and deletions by kind and reason, bytes released, pass duration, API requests', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD_FILE, 'utf8')) as Dashboard;
    const shown = new Set(dashboard.panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => namesIn(target.expr).selectors.map((selector) => selector.metric))));
    const grouped = dashboard.panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => namesIn(target.expr).groupingLabels));
    for (const metric of ['targets', 'decisions', 'deletions', 'released_bytes', 'pass_duration_seconds', 'api_requests']) assert.ok(shown.has(`tekton_resource_gc_${metric}`), metric);
    for (const label of ['kind', 'reason', 'result']) assert.ok(grouped.includes(label), label);
  });

  it('the checks bite: a renamed metric, a missing label, a wrong value, a foreign group', () => {
    const group = new Map<string, string | undefined>([['job', PUSH_JOB], ['instance', 'gc']]);
    const rows: [string, RegExp][] = [
      ['tekton_resource_gc_last_pass_time{job="tekton-resource-gc"}', /not a metric the collector pushes/],
      ['tekton_resouce_gc_exit_code != 0', /not a metric/],
      ['sum by (reason) (tekton_resource_gc_deletions)', /by\/without \(reason\)/],
      ['tekton_resource_gc_deletions{result="stopped"} > 0', /result is never "stopped"/],
      ['tekton_resource_gc_deletions{result=~"deleted|removed"}', /never "removed"/],
      ['tekton_resource_gc_exit_code{shard="a"}', /not a label of it/],
      ['tekton_resource_gc_exit_code{instance="other"}', /the group's instance is "gc"/],
      ['time()', /names no metric/],
    ];
    for (const [expr, problem] of rows) assert.match(problemsOf(expr, pushed, group).join('\n'), problem, expr);
    assert.deepEqual(problemsOf('sum without (kind, result) (tekton_resource_gc_deletions{job="tekton-resource-gc",result="aborted"}[7d] offset 1h) > 0', pushed, group), []);
  });
});

describe('the PrometheusRule', () => {
  it('is a monitoring.coreos.com/v1 PrometheusRule with the labels, namespace and alert labels asked for, each alert with a severity, a summary, a description and its runbook', async () => {
    const objects = await render({ ...BOTH_ON, prometheusRule: { enabled: true, namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' }, alertLabels: { team: 'ci' } } });
    const rule = (only(objects, 'PrometheusRule') as PrometheusRule);
    assert.equal((rule as unknown as { apiVersion: string }).apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(rule.metadata.namespace, 'monitoring');
    assert.equal(rule.metadata.labels?.['release'], 'kube-prometheus-stack');
    assert.equal(rule.metadata.labels?.['app.kubernetes.io/name'], 'tekton-resource-gc');
    const rules = rulesOf(objects);
    assert.deepEqual([...new Set(rules.map((each) => each.alert))], [
      'TektonResourceGcPassFailed',
      'TektonResourceGcNotRunning',
      'TektonResourceGcNoSuccess',
      'TektonResourceGcDeletionSurge',
      'TektonResourceGcGuardStopped',
      'TektonResourceGcClaimsTerminating',
    ]);
    const operations = await readFile(path.join(ROOT, 'docs/operations.md'), 'utf8');
    for (const each of rules) {
      assert.equal(each.labels['team'], 'ci', each.alert);
      assert.match(each.labels['severity'] ?? '', /^(warning|critical)$/, each.alert);
      assert.ok(each.annotations['summary'] !== undefined && each.annotations['description'] !== undefined, each.alert);
      const anchor = each.annotations['runbook_url']?.replace(/^.*\/docs\/operations\.md#/, '') ?? '';
      assert.ok(operations.includes(`\n### ${each.alert}\n`) && anchor === each.alert.toLowerCase(), `${each.alert}: a section of docs/operations.md to link`);
    }
  });

  it('each alert follows its values: off, severity, for, thresholds', async () => {
    const alerts = {
      passFailed: { enabled: false, severity: 'warning', for: '0m' },
      deletionSurge: { enabled: true, severity: 'page', for: '15m', factor: 3, minimum: 20, baseline: '14d' },
    };
    const rules = rulesOf(await render({ ...BOTH_ON, prometheusRule: { enabled: true, alerts } }));
    assert.ok(!rules.some((rule) => rule.alert === 'TektonResourceGcPassFailed'));
    const surge = rules.find((rule) => rule.alert === 'TektonResourceGcDeletionSurge');
    assert.deepEqual([surge?.labels['severity'], surge?.for], ['page', '15m']);
    assert.match(surge?.expr ?? '', /> 3 \* sum without \(result\) \(avg_over_time\(.*\[14d\]\)\) and .* >= 20$/);
  });

  it('has no alert on terminating claims without workspace-pvcs', async () => {
    const rules = rulesOf(await render({ ...BOTH_ON, collect: ['pipelineresources'] }));
    assert.ok(!rules.some((rule) => rule.alert === 'TektonResourceGcClaimsTerminating'));
  });

  it('the guard alert counts deletes aborted (the caps, SIGTERM) and skipped (the breaker), by result over kinds, while the last pass exited 3', async () => {
    const guard = rulesOf(await render(BOTH_ON)).find((rule) => rule.alert === 'TektonResourceGcGuardStopped');
    const found = /^sum without \(kind\) \(tekton_resource_gc_deletions\{[^}]*result=~"aborted\|skipped"\}\) > 0 and ignoring \(result\) tekton_resource_gc_exit_code\{[^}]*\} == (\d+)$/.exec(guard?.expr ?? '');
    assert.ok(found !== null, guard?.expr);
    // The exit status of a pass that read the cluster and decided, but did not run as planned: it pushes its counts.
    assert.equal(passKind(Number(found[1])), 'partial');
    assert.equal(PUSH_PLANS.partial.counts, true);
    assert.match(guard?.annotations['summary'] ?? '', /\{\{ \$labels\.result \}\}/);
  });

  /** Seconds in the NotRunning and NoSuccess windows of a release with these values. */
  async function windows(values: Values): Promise<number[]> {
    const rules = rulesOf(await render({ ...BOTH_ON, ...values, prometheusRule: { enabled: true, ...(values['prometheusRule'] as Values | undefined) } }));
    return rules
      .filter((rule) => rule.alert === 'TektonResourceGcNotRunning' || rule.alert === 'TektonResourceGcNoSuccess')
      .map((rule) => Number(/> (\d+)$/.exec(rule.expr)?.[1] ?? /^(\d+)s$/.exec(rule.for ?? '')?.[1]));
  }

  /** The longest gap between two ticks over 15 days from a Monday, in seconds, as src/process/cron.ts ticks the schedule. */
  function longestGap(schedule: string): number {
    const parsed = parseCron(schedule);
    assert.ok(parsed.ok, schedule);
    let at = Date.parse('2026-11-30T00:00:00Z');
    const end = at + 15 * 86_400_000;
    let previous: number | undefined;
    let gap = 0;
    for (let tick = nextTick(parsed.value, 'Etc/UTC', at); tick !== undefined && tick <= end; tick = nextTick(parsed.value, 'Etc/UTC', at)) {
      if (previous !== undefined) gap = Math.max(gap, tick - previous);
      previous = tick;
      at = tick;
    }
    return gap / 1000;
  }

  // Schedules, each a row: the chart's window must be the longest gap src/process/cron.ts finds, times missedSchedules, plus the deadlines.
  const SCHEDULES: readonly string[] = [
    '17 * * * *', // the default
    '*/5 * * * *', '*/7 * * * *', '5/20 * * * ?', '0,45 * * * *', // minutes
    '0 3 * * *', '0 */6 * * *', '30 9-17/4 * * *', // hours
    '0 3 * * MON-FRI', '0 3 * * 1,4', '* * * * 1', '0 0 * * sun', // days of the week
  ];

  for (const schedule of SCHEDULES) {
    it(`"${schedule}": the windows are 2 of its longest gap plus startingDeadlineSeconds and activeDeadlineSeconds`, async () => {
      assert.deepEqual(await windows({ schedule }), Array(4).fill(2 * longestGap(schedule) + 300 + 1800));
    });
  }

  it('the macros, missedSchedules, the deadlines, the widest shard, and passInterval', async () => {
    assert.equal((await windows({ schedule: '@daily' }))[0], 2 * 86400 + 2100);
    assert.equal((await windows({ schedule: '@monthly' }))[0], 2 * 31 * 86400 + 2100);
    assert.equal((await windows({ prometheusRule: { missedSchedules: 3 }, startingDeadlineSeconds: 60, activeDeadlineSeconds: 600 }))[0], 3 * 3600 + 660);
    const shards = [{ name: 'a', namespaceSelector: 'shard=a' }, { name: 'b', namespaceSelector: 'shard=b', schedule: '0 3 * * *' }];
    assert.equal((await windows({ shards }))[0], 2 * 86400 + 2100);
    assert.equal((await windows({ schedule: '0 3 1 * *', prometheusRule: { passInterval: '31d' } }))[0], 2 * 31 * 86400 + 2100);
  });

  it('refuses, in one line naming the value to set, a schedule it cannot read and a release that pushes nothing', async () => {
    const monthly = await template({ ...BOTH_ON, schedule: '0 3 1 * *', prometheusRule: { enabled: true } });
    assert.notEqual(monthly.code, 0);
    assert.match(monthly.stderr, /prometheusRule\.passInterval: .* the schedule "0 3 1 \* \*" .*--set prometheusRule\.passInterval=31d/);
    for (const value of ['prometheusRule', 'grafanaDashboard']) {
      const silent = await template({ [value]: { enabled: true } });
      assert.notEqual(silent.code, 0, value);
      assert.match(silent.stderr, new RegExp(`${value}\\.enabled: .* pushgatewayUrl is empty; set it too`));
    }
  });
});

describe('the Grafana dashboard', () => {
  it('is an importable dashboard: a schemaVersion, a uid, every panel and query on ${datasource}, variables for the data source, job, namespace and instance', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD_FILE, 'utf8')) as Dashboard;
    assert.ok(dashboard.schemaVersion >= 36 && dashboard.uid !== '' && dashboard.title !== '');
    const variables = dashboard.templating.list;
    assert.deepEqual(variables.map((variable) => [variable.name, variable.type]), [['datasource', 'datasource'], ['job', 'query'], ['namespace', 'query'], ['instance', 'query']]);
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    for (const panel of panels) {
      assert.equal(panel.datasource?.uid, '${datasource}', panel.title);
      for (const target of panel.targets ?? []) {
        assert.equal(target.datasource?.uid, '${datasource}', panel.title);
        assert.match(target.expr, /\{job=~"\$job",namespace=~"\$namespace",instance=~"\$instance"\}/, panel.title);
      }
      assert.ok(panel.gridPos.x + panel.gridPos.w <= 24, panel.title);
    }
    assert.equal(new Set(dashboard.panels.map((panel) => JSON.stringify(panel.gridPos))).size, dashboard.panels.length, 'no two panels in one place');
  });

  it("is a ConfigMap with the sidecar's label, the chart's labels, and the folder's annotation", async () => {
    const objects = await render({ ...BOTH_ON, grafanaDashboard: { enabled: true, namespace: 'grafana', folder: 'CI', labels: { grafana_dashboard: '1', team: 'ci' } } });
    const configMap = (only(objects, 'ConfigMap') as V1ConfigMap & Manifest);
    assert.equal(configMap.metadata.namespace, 'grafana');
    assert.equal(configMap.metadata.labels?.['grafana_dashboard'], '1');
    assert.equal(configMap.metadata.labels?.['team'], 'ci');
    assert.equal(configMap.metadata.labels?.['app.kubernetes.io/instance'], 'gc');
    assert.deepEqual(configMap.metadata.annotations, { grafana_folder: 'CI' });
    const defaults = (only(await render(BOTH_ON), 'ConfigMap') as V1ConfigMap & Manifest);
    assert.equal(defaults.metadata.labels?.['grafana_dashboard'], '1', 'the sidecar label by default');
    assert.equal(defaults.metadata.annotations, undefined);
  });
});

describe('off by default', () => {
  it('the defaults, and pushgatewayUrl alone, render neither', async () => {
    for (const values of [{}, { pushgatewayUrl: 'http://pushgateway.monitoring:9091' }]) {
      const kinds = (await render(values)).map((object) => object.kind);
      assert.ok(!kinds.includes('PrometheusRule') && !kinds.includes('ConfigMap'), kinds.join(', '));
    }
  });
});

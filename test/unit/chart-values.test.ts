/**
 * The chart's values without Helm: values.yaml, values.schema.json, Chart.yaml and
 * chart/README.md's values table agree with each other and with the collector's own parsers, so
 * the schema refuses what the collector would refuse and documents what it takes.
 * (Rendering, Helm's own schema check and the API server: test/integration/chart.test.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadYaml } from '@kubernetes/client-node';
import { chartFlagsDrift, withChartFlags } from '../../harness/chart-flags.js';
import { CHART_REPOSITORY, currentChartReadme, documentedValues } from '../../harness/chart-readme.js';
import { DEFAULTS, LOG_LEVELS, MAX_PAGE_SIZE, MAX_RETRIES, PVC_FINALIZER_MODES, parseConfig, type Config } from '../../src/cli/config.js';
import { COLLECTOR_NAMES } from '../../src/core/collectors.js';
import { FLAG_NAMES, flagSpec } from '../../src/cli/flags.js';
import { parseDurationMs, parseRetentionDuration } from '../../src/core/retention.js';
import { OUTPUT_FORMATS, type Report, type ReportItem } from '../../src/report/model.js';
import { summaryLine } from '../../src/report/text.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

const VALUES_TEXT = read('chart/values.yaml');
const VALUES = loadYaml<Record<string, unknown>>(VALUES_TEXT);
const CHART = loadYaml<{
  apiVersion: string;
  name: string;
  version: string;
  appVersion: string;
  home: string;
  sources: string[];
  maintainers: { name: string; url?: string }[];
  icon: string;
  annotations: Record<string, string>;
}>(read('chart/Chart.yaml'));
const PACKAGE = JSON.parse(read('package.json')) as { name: string; version: string; license: string };

interface Schema {
  type?: string | string[];
  pattern?: string;
  not?: Schema;
  patternProperties?: Record<string, Schema | boolean>;
  allOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  $ref?: string;
  additionalProperties?: boolean | Schema;
  properties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
  uniqueItems?: boolean;
  definitions?: Record<string, Schema>;
}

const SCHEMA = JSON.parse(read('chart/values.schema.json')) as Schema;

function resolve(schema: Schema): Schema {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace('#/definitions/', '');
  const target = SCHEMA.definitions?.[name];
  assert.ok(target !== undefined, `no definition ${schema.$ref}`);
  return resolve(target);
}

function property(...keys: string[]): Schema {
  let schema = SCHEMA;
  for (const key of keys) {
    const next = resolve(schema).properties?.[key];
    assert.ok(next !== undefined, `the schema has no ${keys.join('.')}`);
    schema = next;
  }
  return resolve(schema);
}

/** The string checks of a schema as Helm applies them: its pattern and every pattern under allOf. */
function schemaAccepts(schema: Schema, text: string): boolean {
  const patterns = [schema.pattern, ...(schema.allOf ?? []).map((part) => part.pattern)].filter((pattern): pattern is string => pattern !== undefined);
  assert.ok(patterns.length > 0, 'a string with no pattern');
  return patterns.every((pattern) => new RegExp(pattern).test(text));
}

/** The setting's value parsed by the collector from its variable, as the chart passes it. */
function collectorAccepts(variable: string, text: string, others: Record<string, string> = {}): boolean {
  try {
    parseConfig([], { ...others, [variable]: text });
    return true;
  } catch {
    return false;
  }
}

function configFrom(env: Record<string, string>): Config {
  const invocation = parseConfig([], env);
  assert.equal(invocation.kind, 'run');
  return invocation.config;
}

describe('Chart.yaml', () => {
  it('is an apiVersion v2 chart named after the package, whose appVersion (the default image tag) is the package version', () => {
    assert.deepEqual([CHART.apiVersion, CHART.name, CHART.appVersion], ['v2', PACKAGE.name, PACKAGE.version]);
  });

  it('has a home, sources and maintainers in the repository of the released image, and an icon there', () => {
    const owner = /^ghcr\.io\/([^/]+)\/tekton-resource-gc$/.exec(String((VALUES['image'] as Record<string, unknown>)['repository']))?.[1];
    assert.ok(owner !== undefined, 'the default image is the release on ghcr.io');
    const home = `https://github.com/${owner}/tekton-resource-gc`;
    assert.equal(CHART.home, home);
    assert.deepEqual(CHART.sources, [home]);
    assert.ok(CHART.maintainers.length > 0 && CHART.maintainers.every((maintainer) => maintainer.name !== '' && maintainer.url?.startsWith(home)));
    const icon = new RegExp(`^https://raw\\.githubusercontent\\.com/${owner}/tekton-resource-gc/main/(.+)$`).exec(CHART.icon)?.[1];
    assert.ok(icon !== undefined && existsSync(path.join(ROOT, icon)), `the icon is a file of the repository: ${CHART.icon}`);
  });

  it("has Artifact Hub's annotations: the package's license, links, changes, and the chart's default image", () => {
    const annotations = CHART.annotations;
    assert.equal(annotations['artifacthub.io/license'], PACKAGE.license);
    const links = loadYaml<{ name: string; url: string }[]>(annotations['artifacthub.io/links'] ?? '');
    assert.ok(links.some((link) => link.url === CHART.home), 'links to the source');
    assert.ok(links.every((link) => link.name !== '' && link.url.startsWith(CHART.home)));
    const changes = loadYaml<{ kind: string; description: string }[]>(annotations['artifacthub.io/changes'] ?? '');
    assert.ok(changes.length > 0 && changes.every((change) => ['added', 'changed', 'deprecated', 'removed', 'fixed', 'security'].includes(change.kind) && change.description !== ''));
    const images = loadYaml<{ name: string; image: string; platforms: string[] }[]>(annotations['artifacthub.io/images'] ?? '');
    const image = VALUES['image'] as { repository: string; tag: string; digest: string };
    assert.deepEqual(images.map((entry) => entry.image), [`${image.repository}:${image.tag === '' ? CHART.appVersion : image.tag}`], "the chart's default image");
    assert.deepEqual(images[0]?.platforms, ['linux/amd64', 'linux/arm64']);
  });

  it('.helmignore names nothing the chart does not hold, and leaves the icon out of the package', () => {
    const entries = read('chart/.helmignore').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    const literal = entries.filter((entry) => !/[*?[]/.test(entry) && !entry.startsWith('.'));
    assert.deepEqual(literal.filter((entry) => !existsSync(path.join(ROOT, 'chart', entry))), [], 'stale entries');
    assert.ok(entries.includes('icon.svg'));
  });
});

describe('values.yaml', () => {
  it('documents every value with a "# --" comment: each top-level key, or each key of a group', () => {
    const lines = VALUES_TEXT.split('\n');
    const undocumented: string[] = [];
    let group: string | undefined;
    lines.forEach((line, index) => {
      const key = /^( {0,2})([A-Za-z]\w*):/.exec(line);
      if (key === null) return;
      const [, indent = '', name = ''] = key;
      const documented = commentAbove(lines, index).startsWith('# --');
      if (indent === '') {
        group = documented ? undefined : name;
        const value = line.slice(line.indexOf(':') + 1).trim();
        if (!documented && value !== '') undocumented.push(name);
      } else if (group !== undefined && !documented) {
        undocumented.push(`${group}.${name}`);
      }
    });
    assert.deepEqual(undocumented, []);
  });

  it("has a schema entry for every value and a value for every schema entry, at every level the schema closes", () => {
    assert.equal(SCHEMA.additionalProperties, false);
    assert.deepEqual(Object.keys(SCHEMA.properties ?? {}).filter((key) => key !== 'global').sort(), Object.keys(VALUES).sort());
    for (const group of ['image', 'serviceAccount', 'rbac', 'resources', 'prometheusRule', 'grafanaDashboard']) {
      const schema = property(group);
      assert.equal(schema.additionalProperties, false, `${group} refuses unknown keys`);
      assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), Object.keys(VALUES[group] as object).sort(), group);
    }
  });

  it("defaults to a dry run, and otherwise to the collector's own defaults", () => {
    assert.equal(VALUES['dryRun'], true);
    const env = {
      TRGC_MIN_AGE: String(VALUES['minAge']),
      TRGC_REQUEST_TIMEOUT: String(VALUES['requestTimeout']),
    };
    const config = configFrom(env);
    assert.deepEqual(
      {
        minAgeMs: config.minAgeMs,
        requestTimeoutMs: config.requestTimeoutMs,
        labelPrefix: VALUES['labelPrefix'],
        maxDeletions: VALUES['maxDeletions'],
        qps: VALUES['qps'],
        concurrency: VALUES['concurrency'],
        pageSize: VALUES['pageSize'],
        maxRetries: VALUES['maxRetries'],
        output: VALUES['output'],
        logLevel: VALUES['logLevel'],
      },
      {
        minAgeMs: DEFAULTS.minAgeMs,
        requestTimeoutMs: DEFAULTS.requestTimeoutMs,
        labelPrefix: DEFAULTS.labelPrefix,
        maxDeletions: DEFAULTS.maxDeletions,
        qps: DEFAULTS.qps,
        concurrency: DEFAULTS.concurrency,
        pageSize: DEFAULTS.pageSize,
        maxRetries: DEFAULTS.maxRetries,
        output: DEFAULTS.output,
        logLevel: DEFAULTS.logLevel,
      },
    );
    assert.deepEqual([VALUES['namespaces'], VALUES['excludeNamespaces'], VALUES['selector'], VALUES['retainFor']], [[], [], '', '']);
    // The chart passes these as flags only away from their defaults: its defaults must be the collector's.
    assert.deepEqual([VALUES['collect'], VALUES['pvcFinalizer'], VALUES['maxDeletionsPerKind']], [[...DEFAULTS.collect], DEFAULTS.pvcFinalizer, {}]);
    assert.equal(configFrom({}).maxDeletionsPerKind, undefined);
  });

  it('gives a stopped pass longer than the deletes in flight (requestTimeout) and its metrics push (again requestTimeout) take', () => {
    const requestTimeoutSeconds = configFrom({ TRGC_REQUEST_TIMEOUT: String(VALUES['requestTimeout']) }).requestTimeoutMs / 1000;
    assert.ok((VALUES['terminationGracePeriodSeconds'] as number) > 2 * requestTimeoutSeconds, `${String(VALUES['terminationGracePeriodSeconds'])} s against ${requestTimeoutSeconds} s`);
  });
});

/** Mebibytes in a Kubernetes memory quantity such as 512Mi or 1Gi. */
function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  assert.ok(match !== null, `a memory quantity in Mi or Gi: ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

describe('resources against the benchmark (bench/RESULTS.md)', () => {
  const results = read('bench/RESULTS.md');
  const flatMemory = results.slice(results.indexOf('### Target 2: flat memory'));
  /** Peak RSS in MiB, the least and the most of every round, text and JSON, in the `size` row of the flat-memory table. */
  const peaks = (size: '1x' | '4x'): { least: number; most: number } => {
    const row = new RegExp(`^\\| ${size}: [^\\n]*$`, 'm').exec(flatMemory);
    assert.ok(row !== null, `bench/RESULTS.md has a ${size} row in its flat-memory table`);
    // The last two cells: peak RSS of each round, JSON then text, such as "110, 128, 113 MiB".
    const cells = row[0].split('|').slice(-3, -1);
    const mib = cells.flatMap((cell) => /^\s*([\d, ]+) MiB\s*$/.exec(cell)?.[1]?.split(',').map(Number) ?? []);
    assert.equal(mib.length, 6, `three rounds of JSON and of text in ${row[0]}`);
    return { least: Math.min(...mib), most: Math.max(...mib) };
  };
  const resources = VALUES['resources'] as { requests: Record<string, string>; limits: Record<string, string> };

  it('limits memory with room for the peak at 4x the default size (40k targets, 160k runs), and not CPU', () => {
    const limit = mebibytes(resources.limits['memory'] ?? '');
    assert.ok(limit >= 1.5 * peaks('4x').most, `limit ${limit} MiB against a 4x peak of ${peaks('4x').most} MiB`);
    assert.deepEqual(Object.keys(resources.limits), ['memory'], 'no CPU limit: a throttled pass holds its lists open longer');
  });

  it('requests memory with room for the peak at the default size (10k targets, 40k runs)', () => {
    const request = mebibytes(resources.requests['memory'] ?? '');
    assert.ok(request >= 1.5 * peaks('1x').most, `request ${request} MiB against a 1x peak of ${peaks('1x').most} MiB`);
    assert.ok(request <= mebibytes(resources.limits['memory'] ?? ''));
  });

  it("values.yaml's sizing note quotes the benchmark's peaks", () => {
    const [small, large] = [peaks('1x'), peaks('4x')];
    assert.match(
      VALUES_TEXT,
      new RegExp(`measured peaks ${small.least}-${small.most} MiB at 10,000\\s+#\\s+PipelineResources and 40,000 runs, ${large.least}-${large.most} MiB at 40,000 and 160,000`),
    );
  });
});

/** The lines of the comment block right above line `index`, joined. */
function commentAbove(lines: readonly string[], index: number): string {
  const block: string[] = [];
  for (let at = index - 1; at >= 0 && /^\s*#/.test(lines[at] ?? ''); at--) block.unshift((lines[at] ?? '').trim());
  return block.join(' ');
}

describe("the chart's mapping of values to flags (templates/_helpers.tpl)", () => {
  const HELPERS = read('chart/templates/_helpers.tpl');
  /** A `value: flag` block of _helpers.tpl, as [value, flag] rows. */
  const mapping = (name: string): string[][] => {
    const body = new RegExp(`define "tekton-resource-gc\\.${name}" -}}\\n([^{]*)\\n\\{\\{- end`).exec(HELPERS)?.[1];
    assert.ok(body !== undefined, `_helpers.tpl defines ${name}`);
    return body.split('\n').map((line) => line.split(': '));
  };
  const fromTable = (as: 'env' | 'arg'): string[][] =>
    FLAG_NAMES.flatMap((flag) => {
      const chart = flagSpec(flag).chart;
      return chart?.as === as ? [[chart.value, flag]] : [];
    });

  it('is what npm run chart:flags writes from src/cli/flags.ts now', () => {
    const drift = chartFlagsDrift(HELPERS);
    assert.ok(drift === undefined, drift);
  });

  it('says which line differs and what to run when the mapping is edited by hand, and refuses a file without its markers', () => {
    const edited = HELPERS.replace('\nminAge: min-age\n', '\nminAge: min-age\nmaxAge: max-age\n');
    assert.notEqual(edited, HELPERS);
    assert.match(chartFlagsDrift(edited) ?? '', /^chart\/templates\/_helpers\.tpl's flag mapping is not what src\/cli\/flags\.ts makes \(line \d+: has "maxAge: max-age", the table makes "retainFor: retain-for"\): run npm run chart:flags$/);
    assert.equal(withChartFlags(edited), HELPERS);
    assert.match(chartFlagsDrift(HELPERS.replace(/\{\{\/\* END generated[^\n]*\n/, '')) ?? '', /needs one BEGIN and one END line/);
  });

  it("passes as variables exactly the flags src/cli/flags.ts's chart column does, each from its value, in table order (the order of the container's variables)", () => {
    assert.deepEqual(mapping('settingFlags'), fromTable('env'));
  });

  it('passes as flags exactly the ones the chart column passes so, in its order', () => {
    assert.deepEqual(mapping('argumentFlags'), fromTable('arg'));
  });

  it('names only values that exist', () => {
    for (const [value = ''] of [...fromTable('env'), ...fromTable('arg')]) assert.ok(Object.hasOwn(VALUES, value), value);
  });
});

describe('values.schema.json against the collector', () => {
  it("offers exactly the collector's output formats and log levels", () => {
    assert.deepEqual(property('output').enum, [...OUTPUT_FORMATS]);
    assert.deepEqual(property('logLevel').enum, [...LOG_LEVELS]);
  });

  it("bounds numbers as the collector does (qps's minimum keeps Helm from printing an exponent)", () => {
    assert.deepEqual([property('pageSize').minimum, property('pageSize').maximum], [1, MAX_PAGE_SIZE]);
    assert.deepEqual([property('maxRetries').minimum, property('maxRetries').maximum], [0, MAX_RETRIES]);
    assert.equal(property('concurrency').minimum, 1);
    assert.equal(property('maxDeletions').minimum, 0);
    assert.equal(property('qps').minimum, 0.001);
    assert.ok(collectorAccepts('TRGC_QPS', '0.001'));
  });

  // Forms of duration, each a row: the schema and the collector must agree on all of them.
  const DURATIONS: readonly string[] = [
    '0s', '30s', '30m', '1h', '12h', '7d', '2w', '90m', // short forms
    'PT12H', 'P7D', 'P2W', 'P1DT6H', 'PT1H30M', 'PT45S', 'P1Y2M3W4DT5H6M7S', 'P1M', 'PT1M', // ISO 8601
    '', '1', 'h', '1x', '1H', '1 h', '-1h', '1h30m', '1.5h', 'forever', 'Forever', // not durations
    'P', 'PT', 'P1DT', 'P1D1Y', 'PT1S1M', 'P1H', 'PT1D', 'p1d', 'P-1D', '1hP', // malformed ISO
  ];

  it('minAge: the schema takes exactly the durations the collector takes', () => {
    const schema = property('minAge');
    const disagreements = DURATIONS.filter((text) => schemaAccepts(schema, text) !== parseDurationMs(text).ok);
    assert.deepEqual(disagreements, []);
  });

  it('retainFor: the schema takes exactly the retention durations the collector takes, and empty for none', () => {
    const schema = property('retainFor');
    const disagreements = DURATIONS.filter((text) => text !== '' && schemaAccepts(schema, text) !== parseRetentionDuration(text).ok);
    assert.deepEqual(disagreements, []);
    assert.ok(schemaAccepts(schema, ''), 'empty: none');
    assert.ok(collectorAccepts('TRGC_RETAIN_FOR', ''), 'an empty variable is unset');
  });

  it('requestTimeout: the schema takes the form of a duration; the collector alone checks 1s to 1h', () => {
    const schema = property('requestTimeout');
    for (const text of DURATIONS) {
      if (schemaAccepts(schema, text)) assert.ok(parseDurationMs(text).ok, text);
    }
    assert.ok(collectorAccepts('TRGC_REQUEST_TIMEOUT', String(VALUES['requestTimeout'])));
  });

  it('is stricter than the collector only where documented: ISO fractions and surrounding blanks', () => {
    const schema = property('minAge');
    for (const text of ['PT1.5H', 'P0.5D', ' 1h', '1h\n']) {
      assert.ok(parseDurationMs(text).ok, `the collector takes ${JSON.stringify(text)}`);
      assert.ok(!schemaAccepts(schema, text), `the schema refuses ${JSON.stringify(text)}`);
    }
  });

  // (The collector also trims blanks around list items, ' ci'; the schema refuses them.)
  const NAMESPACES: readonly string[] = ['ci', 'team-a', 'a', '0', 'a'.repeat(63), 'Team-A', 'team_a', '-team', 'team-', 'a.b', 'a'.repeat(64), 'ci team-a'];

  it('namespaces and excludeNamespaces: the schema takes exactly the names the collector takes', () => {
    for (const key of ['namespaces', 'excludeNamespaces']) {
      const item = resolve(property(key).items ?? {});
      const takes = (text: string): boolean => schemaAccepts(item, text) && text.length <= 63;
      const disagreements = NAMESPACES.filter((text) => takes(text) !== collectorAccepts('TRGC_NAMESPACE', text));
      assert.deepEqual(disagreements, [], key);
    }
  });

  const PREFIXES: readonly string[] = ['tekton-resource-gc.io', 'gc.example.com', 'a', 'a-b.c-d', 'Example.com', 'example.com/', '.example.com', 'example..com', '-a.com', 'a_b.com'];

  // Pushgateway addresses, each a row; the collector reads the URL and the schema must agree.
  const GATEWAYS: readonly string[] = [
    'http://pushgateway.monitoring:9091', 'https://example.com/push/', 'https://example.com/metrics-gateway', 'http://robot:s3cret@gw:9091', // taken
    'http://gw:9091/metrics', 'http://gw:9091/metrics/', 'http://gw:9091/metrics/job/gc/instance/a', 'https://example.com/gw/metrics/job/x', // a grouping key in the path
    'pushgateway:9091', 'ftp://gw:9091', 'http://gw:9091/?x=1', // not a gateway's URL
  ];
  // (The collector also takes blanks around a URL, as URL parsing drops them; the schema refuses them.)

  it('pushgatewayUrl: the schema takes exactly the URLs the collector takes, a path holding /metrics refused by both', () => {
    const schema = property('pushgatewayUrl');
    const takes = (text: string): boolean => schemaAccepts(schema, text) && !(schema.not !== undefined && schemaAccepts(schema.not, text));
    const disagreements = GATEWAYS.filter((text) => takes(text) !== collectorAccepts('TRGC_PUSHGATEWAY_URL', text));
    assert.deepEqual(disagreements, []);
    assert.ok(takes('') && collectorAccepts('TRGC_PUSHGATEWAY_URL', ''), 'empty: no metrics');
  });

  // Grouping labels, each a row (name and value); the chart passes them as NAME=VALUE,....
  const GROUPINGS: readonly [string, string][] = [
    ['instance', 'gc'], ['cluster', 'eu/prod'], ['_shard', '1'], ['Team2', 'a b'], // taken
    ['job', 'gc'], ['reason', 'x'], ['action', 'x'], ['result', 'x'], ['__name__', 'x'], // reserved
    ['my-label', 'x'], ['2nd', 'x'], ['a.b', 'x'], // not label names
    ['instance', ''], ['instance', ' '], ['instance', 'a,b'], // values that do not make it
  ];

  it('pushgatewayGrouping: the schema takes exactly the labels the collector takes', () => {
    const schema = property('pushgatewayGrouping');
    assert.equal(schema.additionalProperties, false);
    const valueSchema = (name: string): Schema | boolean | undefined => {
      if (Object.hasOwn(schema.properties ?? {}, name)) return false;
      const matching = Object.entries(schema.patternProperties ?? {}).filter(([pattern]) => new RegExp(pattern).test(name));
      if (matching.length === 0) return undefined;
      return matching.some(([, each]) => each === false) ? false : matching[0]?.[1];
    };
    const takes = ([name, value]: [string, string]): boolean => {
      const each = valueSchema(name);
      return typeof each === 'object' && schemaAccepts(each, value);
    };
    const collectorTakes = ([name, value]: [string, string]): boolean =>
      collectorAccepts('TRGC_PUSHGATEWAY_GROUPING', `${name}=${value}`, { TRGC_PUSHGATEWAY_URL: 'http://gw:9091' });
    const disagreements = GROUPINGS.filter((row) => takes(row) !== collectorTakes(row));
    assert.deepEqual(disagreements, []);
  });

  it("collect and pvcFinalizer: the schema offers exactly the collector's collectors (no all) and finalizer modes, each collector once", () => {
    const collect = property('collect');
    assert.deepEqual(resolve(collect.items ?? {}).enum, [...COLLECTOR_NAMES]);
    assert.deepEqual([collect.minItems, collect.uniqueItems], [1, true]);
    assert.ok(!collectorAccepts('TRGC_COLLECT', 'all'));
    for (const name of COLLECTOR_NAMES) assert.ok(collectorAccepts('TRGC_COLLECT', name), name);
    assert.deepEqual(property('pvcFinalizer').enum, [...PVC_FINALIZER_MODES]);
  });

  // Caps per collector, each a row (collector, N); the chart passes one as --max-deletions-per-kind=COLLECTOR=N.
  const CAPS: readonly [string, number][] = [
    ['workspace-pvcs', 200], ['pac-secrets', 0], ['pipelineresources', 2000000], ['affinity-assistants', 1], // taken
    ['pvcs', 5], ['all', 5], ['Workspace-pvcs', 5], // no such collector
    ['pac-secrets', -1], ['pac-secrets', 2.5], // not a whole number of 0 or more
  ];

  it('maxDeletionsPerKind: the schema takes exactly the caps the collector takes, with every collector on', () => {
    const schema = property('maxDeletionsPerKind');
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual(Object.keys(schema.properties ?? {}), [...COLLECTOR_NAMES]);
    const takes = ([name, max]: [string, number]): boolean => {
      const each = schema.properties?.[name];
      if (each === undefined) return false;
      const value = resolve(each);
      return value.type === 'integer' && Number.isInteger(max) && max >= (value.minimum ?? -Infinity);
    };
    const collectorTakes = ([name, max]: [string, number]): boolean =>
      collectorAccepts('TRGC_MAX_DELETIONS_PER_KIND', `${name}=${max}`, { TRGC_COLLECT: COLLECTOR_NAMES.join(',') });
    const disagreements = CAPS.filter((row) => takes(row) !== collectorTakes(row));
    assert.deepEqual(disagreements, []);
  });

  it('labelPrefix: the schema takes exactly the prefixes the collector takes', () => {
    const schema = property('labelPrefix');
    const disagreements = PREFIXES.filter((text) => schemaAccepts(schema, text) !== collectorAccepts('TRGC_LABEL_PREFIX', text));
    assert.deepEqual(disagreements, []);
  });
});

/** A Markdown file's section, from its `## heading` to the next section of the same level. */
function section(file: string, heading: string): string {
  const text = read(file);
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${file} has a section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? text.length : end);
}

describe('chart/README.md', () => {
  const README = read('chart/README.md');
  const rows = new Map(
    [...README.matchAll(/^\| `([\w.]+)` \| ([^|]+) \| `((?:[^`]|\\\|)*)` \| (.+) \|$/gm)].map((match) => [match[1] ?? '', { type: match[2] ?? '', defaultValue: match[3] ?? '' }]),
  );

  /** Every value as the table names it: top-level keys, and the keys of the groups. */
  function leaves(): [string, unknown][] {
    return Object.entries(VALUES).flatMap(([key, value]): [string, unknown][] =>
      ['image', 'serviceAccount', 'rbac', 'prometheusRule', 'grafanaDashboard'].includes(key) ? Object.entries(value as object).map(([child, inner]) => [`${key}.${child}`, inner]) : [[key, value]],
    );
  }

  it('is what npm run chart:readme writes from Chart.yaml, values.yaml and values.schema.json now', () => {
    assert.equal(README, currentChartReadme(), 'chart/README.md is not current: run npm run chart:readme');
  });

  it('has a row for every value, with its default as values.yaml sets it, and none for a value that does not exist', () => {
    assert.deepEqual([...rows.keys()].sort(), leaves().map(([key]) => key).sort());
    const wrong = leaves().filter(([key, value]) => rows.get(key)?.defaultValue !== JSON.stringify(value));
    assert.deepEqual(wrong.map(([key]) => key), []);
    assert.deepEqual(
      ['dryRun', 'ttlSecondsAfterFinished', 'resources', 'image.digest'].map((key) => rows.get(key)?.type.trim()),
      ['bool', 'int or null', 'object', 'string'],
      "types as the schema gives them",
    );
  });

  it("takes each value's description from its # -- comment, every line of it, and a # --set inside one for text", () => {
    const docs = documentedValues(['# A file comment.', '', '# -- Uid and gid: `--set', '# --set a=null`.', 'a: 1', '# -- Not documenting b.', '', 'b: 2', 'group:', '  # -- Its c.', '  c: "x"'].join('\n'));
    assert.deepEqual(docs, [
      { key: 'a', value: 1, description: 'Uid and gid: `--set --set a=null`.' },
      { key: 'group.c', value: 'x', description: 'Its c.' },
    ]);
  });

  it('installs the chart from where the release workflow pushes it', () => {
    const workflow = read('.github/workflows/release.yml');
    assert.equal(/^ {2}CHART_REPOSITORY: (\S+)$/m.exec(workflow)?.[1], CHART_REPOSITORY);
    assert.ok(README.includes(`helm install tekton-resource-gc ${CHART_REPOSITORY}/${CHART.name} --version ${CHART.version}`));
  });
});

describe("the README's quick start, and the operations guide's upgrade and uninstall", () => {
  const README = section('README.md', 'Quick start');
  const CHART_REF = `${CHART_REPOSITORY}/${CHART.name}`;

  it("shows the summary line the collector prints for the counts it names", () => {
    const example = /^dry run: 212 targets, .+$/m.exec(README)?.[0];
    assert.ok(example !== undefined, "the README's quick start shows a summary line");
    const items = (counts: [ReportItem['result'], ReportItem['reason'], number][]): ReportItem[] =>
      counts.flatMap(([result, reason, count]) => Array.from({ length: count }, () => ({ result, reason }) as ReportItem));
    const report = {
      dryRun: true,
      summary: { targets: 212, runs: 1840 },
      items: items([
        ['would-delete', 'runs-finished', 171],
        ['would-delete', 'unreferenced', 9],
        ['kept', 'referenced-by-active-run', 20],
        ['kept', 'too-young', 12],
      ]),
    } as unknown as Report;
    assert.equal(example, summaryLine(report));
  });

  it('installs as a dry run first from the released chart, reads a report, goes live, then upgrades and uninstalls, each with its command', () => {
    const inOrder = (text: string, sections: [string, string][], where: string): void => {
      const starts = sections.map(([heading]) => text.indexOf(`\n${heading}\n`));
      assert.ok(starts.every((at) => at >= 0), `${where} headings: ${starts.join(', ')}`);
      assert.deepEqual([...starts].sort((a, b) => a - b), starts, `${where}: in that order`);
      sections.forEach(([heading, command], index) => {
        const body = text.slice(starts[index], starts[index + 1] ?? text.length);
        assert.ok(body.includes(command), `${where}: ${heading} shows ${command}`);
      });
    };
    inOrder(README, [
      ['### 1. Install as a dry run', `helm install tekton-resource-gc ${CHART_REF} \\\n  --version ${CHART.version} --namespace tekton-resource-gc`],
      ['### 2. Read a report', 'kubectl create job --namespace tekton-resource-gc --from=cronjob/tekton-resource-gc'],
      ['### 3. Go live', '--reset-then-reuse-values --set dryRun=false'],
    ], 'README.md');
    assert.ok(README.slice(README.indexOf('\n### 3. Go live\n')).includes('[chart/README.md](chart/README.md)'), 'the quick start links every value');
    const operations = read('docs/operations.md');
    inOrder(operations, [
      ['## Upgrading', `helm upgrade tekton-resource-gc ${CHART_REF} \\\n  --version ${CHART.version} --namespace tekton-resource-gc --reset-then-reuse-values\n`],
      ['## Uninstalling', 'helm uninstall tekton-resource-gc'],
    ], 'docs/operations.md');
    assert.ok(section('docs/operations.md', 'Chart settings worth knowing').includes('[chart/README.md](../chart/README.md)'), 'the operations guide links every value');
  });
});

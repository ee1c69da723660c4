/**
 * Bad objects through a real API server. The CRDs preserve unknown fields, so any JSON the
 * server accepts reaches the collector: every field it reads from runs and targets is
 * replaced by wrong types, nulls, huge values, deep nesting and odd Unicode. The collector
 * never crashes, keeps what it cannot understand, and says which object and field it could
 * not read: in the report for references, in a warning for a status or an owner.
 *
 * Each case is a namespace with one run that names `src-named` twice (in its spec and in
 * the tekton.dev/v1beta1Resources annotation, so damaging one place never makes it
 * unreferenced), `src-unnamed` beside it, and one damaged field. Retention cases damage a
 * target's retention label or annotation instead. Seeded: TRGC_FUZZ_SEED replays it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { renderReport } from '../../src/report/render.js';
import type { ReportDocument, ReportItem } from '../../src/report/model.js';
import { reportOf, runCli } from '../support/cli.js';
import { seededRandom } from '../support/faultproxy.js';
import { passInProcess, type LogLine } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, runStatus, type KubeObject } from '../support/tekton.js';

const FUZZ_SEED = Number(process.env['TRGC_FUZZ_SEED'] ?? 20261129);
const RUN_CASES = 110;
const RETENTION_CASES = 30;
const PREFIX = 'tekton-resource-gc.io';
const ANNOTATION = 'tekton.dev/v1beta1Resources';
const GROUP = 'tekton.dev';

type Random = () => number;

/** The JSON type the collector expects at a fuzzed place; a value of another type is a problem it must report. */
type Expected = 'array' | 'object' | 'string' | 'condition-status' | 'timestamp' | 'json-array' | 'json-object' | 'owner';

interface FuzzPoint {
  kind: 'PipelineRun' | 'TaskRun';
  /** The field as the collector names it in a problem. */
  field: string;
  /** Where the damage is: the spec and annotation name the target; a status or owner does not. */
  part: 'references' | 'status' | 'owner';
  expected: Expected;
  /** Whether the base run is finished (a status fuzz on a finished run must not keep it finished). */
  finished?: boolean;
  set: (run: MutableRun, value: unknown) => void;
}

interface MutableRun {
  object: Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  status: Record<string, unknown>;
}

const binding = (target: string): Record<string, unknown> => ({ name: 'source', resourceRef: { name: target } });

function baseRun(kind: FuzzPoint['kind'], namespace: string, finished: boolean): MutableRun {
  const prBindings = [binding('src-named')];
  const trBindings = { inputs: [binding('src-named')], outputs: [] };
  const annotations = { [ANNOTATION]: JSON.stringify(kind === 'PipelineRun' ? prBindings : trBindings) };
  const spec = kind === 'PipelineRun' ? { pipelineRef: { name: 'build' }, resources: prBindings } : { taskRef: { name: 'build' }, resources: trBindings };
  const status = runStatus(kind, finished ? { state: 'succeeded', finishedAt: hoursAgo(2) } : { state: 'running' }, hoursAgo(3)) as Record<string, unknown>;
  return { object: { apiVersion: 'tekton.dev/v1beta1', kind, metadata: { name: 'fuzzed', namespace, annotations }, spec }, status };
}

const at = (object: unknown, ...keys: (string | number)[]): Record<string, unknown> =>
  keys.reduce<unknown>((current, key) => (current as Record<string | number, unknown>)[key], object) as Record<string, unknown>;
const condition = (run: MutableRun): Record<string, unknown> => at(run.status, 'conditions', 0);

const POINTS: FuzzPoint[] = [
  { kind: 'PipelineRun', field: 'spec.resources', part: 'references', expected: 'array', set: (r, v) => (r.object.spec['resources'] = v) },
  { kind: 'PipelineRun', field: 'spec.resources[0]', part: 'references', expected: 'object', set: (r, v) => (at(r.object.spec, 'resources')[0] = v) },
  { kind: 'PipelineRun', field: 'spec.resources[0].resourceRef', part: 'references', expected: 'object', set: (r, v) => (at(r.object.spec, 'resources', 0)['resourceRef'] = v) },
  { kind: 'PipelineRun', field: 'spec.resources[0].resourceRef.name', part: 'references', expected: 'string', set: (r, v) => (at(r.object.spec, 'resources', 0, 'resourceRef')['name'] = v) },
  { kind: 'PipelineRun', field: `metadata.annotations["${ANNOTATION}"]`, part: 'references', expected: 'json-array', set: (r, v) => (at(r.object.metadata, 'annotations')[ANNOTATION] = v) },
  { kind: 'TaskRun', field: 'spec.resources', part: 'references', expected: 'object', set: (r, v) => (r.object.spec['resources'] = v) },
  { kind: 'TaskRun', field: 'spec.resources.inputs', part: 'references', expected: 'array', set: (r, v) => (at(r.object.spec, 'resources')['inputs'] = v) },
  { kind: 'TaskRun', field: 'spec.resources.inputs[0].resourceRef.name', part: 'references', expected: 'string', set: (r, v) => (at(r.object.spec, 'resources', 'inputs', 0, 'resourceRef')['name'] = v) },
  { kind: 'TaskRun', field: 'spec.inputs', part: 'references', expected: 'object', set: (r, v) => (r.object.spec['inputs'] = v) },
  { kind: 'TaskRun', field: 'spec.inputs.resources', part: 'references', expected: 'array', set: (r, v) => (r.object.spec['inputs'] = { resources: v }) },
  { kind: 'TaskRun', field: `metadata.annotations["${ANNOTATION}"]`, part: 'references', expected: 'json-object', set: (r, v) => (at(r.object.metadata, 'annotations')[ANNOTATION] = v) },
  { kind: 'PipelineRun', field: 'status', part: 'status', expected: 'object', finished: true, set: (r, v) => (r.status = v as Record<string, unknown>) },
  { kind: 'TaskRun', field: 'status.conditions', part: 'status', expected: 'array', finished: true, set: (r, v) => (r.status['conditions'] = v) },
  { kind: 'PipelineRun', field: 'status.conditions[0]', part: 'status', expected: 'object', finished: true, set: (r, v) => (at(r.status, 'conditions')[0] = v) },
  { kind: 'PipelineRun', field: 'status.conditions[0].status', part: 'status', expected: 'condition-status', finished: true, set: (r, v) => (condition(r)['status'] = v) },
  { kind: 'TaskRun', field: 'status.completionTime', part: 'status', expected: 'timestamp', finished: true, set: (r, v) => (r.status['completionTime'] = v) },
  { kind: 'TaskRun', field: 'metadata.ownerReferences[0]', part: 'owner', expected: 'owner', set: (r, v) => (r.object.metadata['ownerReferences'] = [v]) },
];

/** Strings nobody plans for: bidi overrides, emoji, NUL, BOM, combining marks, lone surrogates, invalid dates. */
const ODD_STRINGS = [
  '\u202Egnp.exe',
  '🦀'.repeat(40),
  'a\u0000b',
  '\uFEFFsrc-named',
  'src-named\u0301',
  '\uD800',
  'ｓｒｃ－ｎａｍｅｄ',
  'true',
  'null',
  '2026-13-45T99:99:99Z',
  'Unknown ',
  '',
  ' '.repeat(3),
  '{"resourceRef":',
  'line one\nline two\r\n',
];

function oddString(random: Random): string {
  if (random() < 0.15) return 'x'.repeat(50_000 + Math.floor(random() * 150_000));
  return ODD_STRINGS[Math.floor(random() * ODD_STRINGS.length)] as string;
}

function nested(random: Random, depth: number): unknown {
  let value: unknown = oddString(random);
  for (let level = 0; level < depth; level++) value = random() < 0.5 ? [value] : { [oddString(random).slice(0, 8) || 'k']: value };
  return value;
}

/** A value of any JSON shape, weighted to the ones that break readers. */
function badValue(random: Random): unknown {
  const choice = Math.floor(random() * 11);
  switch (choice) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return [0, -1, 1.7976931348623157e308, -0.5, 2 ** 53 + 1][Math.floor(random() * 5)];
    case 3:
    case 4:
      return oddString(random);
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return [badValue(random), oddString(random), 7];
    case 8:
      return { name: badValue(random), resourceRef: oddString(random), [oddString(random).slice(0, 20) || 'k']: 1 };
    default:
      return nested(random, 20 + Math.floor(random() * 180));
  }
}

/** An annotation is a string: JSON of any shape, or not JSON at all. */
function badAnnotation(random: Random): string {
  if (random() < 0.3) return oddString(random);
  return JSON.stringify(badValue(random)) ?? 'undefined';
}

/** An ownerReference the server accepts (it validates them) pointing at no PipelineRun that exists. */
function badOwner(random: Random): unknown {
  return { apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: `gone-${Math.floor(random() * 1e6)}`, uid: `${Math.floor(random() * 1e9)}-${oddString(random).length}`, controller: random() < 0.5 };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Whether the collector must report a problem for `value` at a place expecting `expected`. */
function isProblem(expected: Expected, value: unknown): boolean {
  switch (expected) {
    case 'array':
    case 'object':
    case 'string':
      return value !== null && jsonType(value) !== expected;
    case 'condition-status':
      return value !== null && !['True', 'False', 'Unknown'].includes(value as string);
    case 'timestamp':
      return value !== null && value !== '' && (typeof value !== 'string' || Number.isNaN(Date.parse(value)));
    case 'json-array':
    case 'json-object': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value as string);
      } catch {
        return true;
      }
      return parsed !== null && jsonType(parsed) !== (expected === 'json-array' ? 'array' : 'object');
    }
    case 'owner':
      return false;
  }
}

interface RunCase {
  namespace: string;
  point: FuzzPoint;
  value: unknown;
  rejected?: string;
}

interface RetentionCase {
  namespace: string;
  source: 'label' | 'annotation';
  key: string;
  value: string;
  rejected?: string;
}

/** Label values the server accepts (63 characters of [-_.A-Za-z0-9], alphanumeric at both ends) that no retention parser does. */
const BAD_LABEL_RETENTION = ['7x', '99999999999999999999d', '2026-13-45', 'P', 'PT', '1.5d', 'tomorrow', 'Forever', '0x10h', '2026-02-30'];

function retentionValue(random: Random, key: string, source: 'label' | 'annotation'): string {
  if (key === 'retain') return source === 'label' ? ['yes', 'no', 'FALSE', '0', 'True'][Math.floor(random() * 5)] as string : oddString(random);
  if (source === 'label') return BAD_LABEL_RETENTION[Math.floor(random() * BAD_LABEL_RETENTION.length)] as string;
  // Annotations take any text; `x` in front keeps a valid duration or date from passing.
  return random() < 0.5 ? `x${oddString(random)}` : ['-1d', 'P-1D', '1e3h', 'soon', '2026-12-31T25:00:00Z', 'forever and ever', '\u202E7d'][Math.floor(random() * 7)] as string;
}

describe(`fuzzed objects through the API server (seed ${FUZZ_SEED})`, () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  const runCases: RunCase[] = [];
  const retentionCases: RetentionCase[] = [];
  let report: ReportDocument;
  let exitCode: number;
  let logs: LogLine[];
  const items = new Map<string, ReportItem>();

  const fail = (what: string, detail: string): never => {
    throw new Error(`${what}; replay with TRGC_FUZZ_SEED=${FUZZ_SEED}\n${detail}`);
  };

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    const random = seededRandom(FUZZ_SEED);
    for (let index = 0; index < RUN_CASES; index++) {
      const point = POINTS[index % POINTS.length] as FuzzPoint;
      const value = point.expected === 'owner' ? badOwner(random) : point.expected.startsWith('json') ? badAnnotation(random) : badValue(random);
      const fuzzCase: RunCase = { namespace: `fuzz-run-${index}`, point, value };
      runCases.push(fuzzCase);
      await createRunCase(seed, fuzzCase);
    }
    for (let index = 0; index < RETENTION_CASES; index++) {
      const key = ['retain', 'retain-until', 'retain-for'][index % 3] as string;
      const source = random() < 0.5 ? 'label' : 'annotation';
      const fuzzCase: RetentionCase = { namespace: `fuzz-retention-${index}`, source, key: `${PREFIX}/${key}`, value: retentionValue(random, key, source) };
      retentionCases.push(fuzzCase);
      await createRetentionCase(seed, fuzzCase);
    }
    const pass = await passInProcess(controlPlane.kubeConfig(), ['--min-age', '0s']);
    ({ report, exitCode } = pass.outcome);
    logs = pass.logs;
    for (const item of report.items) items.set(`${item.namespace}/${item.name}`, item);
    const rejected = [...runCases, ...retentionCases].filter((fuzzCase) => fuzzCase.rejected !== undefined).length;
    const unreadable = runCases.filter((fuzzCase) => isProblem(fuzzCase.point.expected, fuzzCase.value)).length;
    process.stdout.write(`# fuzz figures: ${JSON.stringify({ seed: FUZZ_SEED, runCases: RUN_CASES, runCasesWithAnUnreadableField: unreadable, retentionCases: RETENTION_CASES, rejectedByServer: rejected, targets: report.summary.targets, results: report.summary.results, reasons: report.summary.reasons })}\n`);
  });
  after(() => controlPlane?.stop());

  test('the pass ends as planned and every report format renders', () => {
    assert.equal(exitCode, 0, JSON.stringify(report.errors));
    for (const format of ['text', 'json', 'markdown'] as const) assert.ok(renderReport(report, format).length > 0);
  });

  test('the server accepted most cases, so the fuzz is not vacuous', () => {
    const rejected = [...runCases, ...retentionCases].filter((fuzzCase) => fuzzCase.rejected !== undefined);
    assert.ok(rejected.length <= (RUN_CASES + RETENTION_CASES) / 5, rejected.map((fuzzCase) => `${fuzzCase.namespace}: ${fuzzCase.rejected ?? ''}`).join('\n'));
  });

  test('a target a damaged run names is never deleted, and what could not be read is said', async () => {
    const listed = (await seed.custom.listClusterCustomObject({ group: GROUP, version: 'v1alpha1', plural: 'pipelineresources' })) as { items: KubeObject[] };
    const remaining = new Set(listed.items.map((item: KubeObject) => `${item.metadata.namespace}/${item.metadata.name}`));
    for (const fuzzCase of runCases.filter((candidate) => candidate.rejected === undefined)) {
      const { namespace, point, value } = fuzzCase;
      const detail = `${namespace}: ${point.kind} ${point.field} = ${JSON.stringify(value)?.slice(0, 200)}`;
      const named = items.get(`${namespace}/src-named`);
      if (!remaining.has(`${namespace}/src-named`) || named?.result !== 'kept') fail('a named target was deleted', `${detail}\n${JSON.stringify(named)}`);
      if (!isProblem(point.expected, value)) continue;
      if (point.part === 'references') {
        // Unknown references keep the namespace: both targets, the field named in the report.
        for (const name of ['src-named', 'src-unnamed']) {
          const item = items.get(`${namespace}/${name}`);
          if (item === undefined || item.reason !== 'unreadable-run' || !item.message.includes(point.field) || !item.message.includes(`${point.kind} fuzzed`)) {
            return fail(`${name} is not kept as unreadable-run naming ${point.field}`, `${detail}\n${JSON.stringify(item)}`);
          }
          if (item.message.length > 1_100) fail('a report message is longer than 1000 characters and a note', `${detail}\n${item.message.slice(0, 300)}`);
        }
      } else {
        // An unreadable status counts as running: the target stays, a warning names run and field.
        const warned = logs.some((line) => line.level === 'warn' && line.fields['namespace'] === namespace && line.message.includes(point.field));
        if (!warned) fail(`no warning names ${point.field}`, detail);
        if (named?.reason !== 'referenced-by-active-run') fail('the named target is not kept as referenced by an active run', `${detail}\n${JSON.stringify(named)}`);
      }
    }
  });

  test('warnings stay one short line whatever the damaged value holds', () => {
    for (const line of logs.filter((entry) => entry.level === 'warn')) {
      assert.ok(line.message.length < 1_100, line.message.slice(0, 300));
      assert.doesNotMatch(line.message, /[\r\n]/);
    }
    for (const item of report.items) {
      assert.doesNotMatch(item.message, /[\r\n]/, `${item.namespace}/${item.name}`);
    }
  });

  test('a target with a retention value nobody can parse is kept, and the key is named', async () => {
    for (const fuzzCase of retentionCases.filter((candidate) => candidate.rejected === undefined)) {
      const detail = `${fuzzCase.namespace}: ${fuzzCase.source} ${fuzzCase.key} = ${JSON.stringify(fuzzCase.value).slice(0, 200)}`;
      const item = items.get(`${fuzzCase.namespace}/src-retention`);
      if (item?.result !== 'kept') return fail('a target with a damaged retention value was not kept', `${detail}\n${JSON.stringify(item)}`);
      if (!['retained', 'retention-invalid'].includes(item.reason) || !item.message.includes(fuzzCase.key)) {
        fail('the reason does not name the retention key', `${detail}\n${JSON.stringify(item)}`);
      }
      if (item.message.length > 1_100) fail('a report message is longer than 1000 characters and a note', `${detail}\n${item.message.slice(0, 300)}`);
      const left = await seed.remainingTargets(fuzzCase.namespace);
      assert.deepEqual(left, ['src-retention'], detail);
    }
  });

  test('the CLI reads the same damaged cluster: a dry run as markdown exits 0', async () => {
    const result = await runCli(['--dry-run', '--min-age', '0s', '--output', 'markdown', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(result.code, 0, result.stderr.slice(0, 2_000));
    assert.match(result.stdout, /unreadable-run/);
    const json = await runCli(['--dry-run', '--min-age', '0s', '--output', 'json', '--log-level', 'silent', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(reportOf(json).summary.targets, report.summary.targets - (report.summary.results.deleted ?? 0));
  });
});

/** Creates the namespace, the two targets, and the run with its damaged field and status. */
async function createRunCase(seed: Seeder, fuzzCase: RunCase): Promise<void> {
  const { namespace, point, value } = fuzzCase;
  await seed.namespace(namespace);
  await seed.create(gitResource({ name: 'src-named', namespace }, 'a'));
  await seed.create(gitResource({ name: 'src-unnamed', namespace }, 'b'));
  const run = baseRun(point.kind, namespace, point.finished === true);
  point.set(run, value);
  const plural = point.kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
  try {
    const created = (await seed.custom.createNamespacedCustomObject({ group: GROUP, version: 'v1beta1', namespace, plural, body: run.object })) as KubeObject;
    await seed.custom.replaceNamespacedCustomObjectStatus({ group: GROUP, version: 'v1beta1', namespace, plural, name: 'fuzzed', body: { ...created, status: run.status } });
  } catch (error) {
    fuzzCase.rejected = (error instanceof Error ? error.message : String(error)).slice(0, 300);
  }
}

async function createRetentionCase(seed: Seeder, fuzzCase: RetentionCase): Promise<void> {
  const { namespace, source, key, value } = fuzzCase;
  await seed.namespace(namespace);
  const where = source === 'label' ? { labels: { [key]: value } } : { annotations: { [key]: value } };
  try {
    await seed.create(gitResource({ name: 'src-retention', namespace, ...where }, 'a'));
  } catch (error) {
    fuzzCase.rejected = (error instanceof Error ? error.message : String(error)).slice(0, 300);
  }
}

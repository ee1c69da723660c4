/**
 * Issue 8 against a real kube-apiserver: explain for a target kept by each rule and for a
 * collectable one (reading only its namespace), Events with the right reason and object
 * (and none when off), metrics pushed to a receiver that match the pass's report, schedule
 * mode on an injected clock with real passes, SIGTERM while waiting, bad schedules and
 * zones, and the progress line on a terminal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { Explanation } from '../../src/core/explain.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { MAX_EVENTS_PER_PASS } from '../../src/ops/events.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import { runOnSchedule } from '../../src/process/schedule.js';
import { explainTarget } from '../../src/cli/explaincmd.js';
import { reportOf, runCli } from '../support/cli.js';
import { capturingLogger, configFor, connectionFor, passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, imageResource, pipelineRun, taskRun } from '../support/tekton.js';

const PREFIX = 'tekton-resource-gc.io';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let controlPlane: ControlPlane;
let seed: Seeder;

before(async () => {
  controlPlane = await startControlPlane({ crds: 'v0.45' });
  seed = new Seeder(controlPlane.kubeConfig());
});
after(() => controlPlane?.stop());

function kube(args: readonly string[]): string[] {
  return [...args, '--kubeconfig', controlPlane.kubeconfigPath];
}

// ---- explain ----

/** explain in this process, with every request path the adapter sent. */
async function explainInProcess(args: readonly string[], target: { namespace: string; name: string }): Promise<{ explanation: Explanation; paths: string[] }> {
  // explain reads a subset of the run flags, parsed the same way.
  const config = configFor(args);
  const http = await KubeHttp.create(await connectionFor(controlPlane.kubeConfig()), httpOptions(config));
  const paths: string[] = [];
  const json = http.json.bind(http);
  const jsonOrNull = http.jsonOrNull.bind(http);
  http.json = (purpose, request) => (paths.push(request.path), json(purpose, request));
  http.jsonOrNull = (purpose, request) => (paths.push(request.path), jsonOrNull(purpose, request));
  try {
    const outcome = await explainTarget(config, { collector: 'pipelineresources', ...target }, { cluster: new KubeCluster(http, config.pageSize), now: () => new Date() });
    assert.equal(outcome.kind, 'done');
    return { explanation: (outcome as { explanation: Explanation }).explanation, paths };
  } finally {
    http.close();
  }
}

describe('explain', () => {
  const ns = 'explain';
  before(async () => {
    await seed.namespace(ns);
    await seed.namespace('explain-frozen', { [`${PREFIX}/retain`]: 'true' });
    await seed.namespace('explain-broken');
    // Targets elsewhere, and runs elsewhere naming the same names, that explain must never read.
    await seed.namespace('explain-elsewhere');
    await seed.create(pipelineRun('v1beta1', { name: 'build-elsewhere', namespace: 'explain-elsewhere' }, { resources: ['src-done'] }), { state: 'running' });
    const meta = (name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}) => ({ name, namespace: ns, ...extra });
    await seed.create(gitResource(meta('src-retained', { labels: { [`${PREFIX}/retain`]: 'true' } }), 'a1'));
    await seed.create(gitResource({ name: 'src-frozen', namespace: 'explain-frozen' }, 'a2'));
    await seed.create(gitResource(meta('src-bad', { annotations: { [`${PREFIX}/retain-for`]: '2x' } }), 'a3'));
    await seed.create(gitResource({ name: 'src-broken', namespace: 'explain-broken' }, 'a4'));
    await seed.create(
      { apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', metadata: { name: 'weird', namespace: 'explain-broken' }, spec: { resources: 'oops' } },
      { state: 'succeeded', finishedAt: hoursAgo(5) },
    );
    await seed.create(gitResource(meta('src-active'), 'a5'));
    await seed.create(pipelineRun('v1beta1', meta('build-active'), { resources: ['src-active'] }), { state: 'running' });
    await seed.create(gitResource(meta('src-until', { annotations: { [`${PREFIX}/retain-until`]: '2099-01-01' } }), 'a6'));
    await seed.create(gitResource(meta('src-for', { labels: { [`${PREFIX}/retain-for`]: '7d' } }), 'a7'));
    await seed.create(pipelineRun('v1beta1', meta('build-for'), { resources: ['src-for'] }), { state: 'succeeded', finishedAt: hoursAgo(3) });
    await seed.create(gitResource(meta('src-done'), 'a8'));
    await seed.create(pipelineRun('v1beta1', meta('build-done'), { resources: ['src-done'] }), { state: 'succeeded', finishedAt: hoursAgo(2) });
    await seed.create(taskRun('v1beta1', meta('push-done'), { inputs: ['src-done'], outputs: [] }), { state: 'failed', finishedAt: hoursAgo(1) });
    await seed.create(imageResource(meta('img-orphan'), 'a9'));
  });

  // Each rule that keeps a target, and both that collect one: rule, reason, when collectable.
  const rows: { name: string; namespace?: string; args?: string[]; rule: number; reason: string; collectable: string }[] = [
    { name: 'src-retained', rule: 1, reason: 'retained', collectable: 'never' },
    { name: 'src-frozen', namespace: 'explain-frozen', rule: 2, reason: 'namespace-retained', collectable: 'never' },
    { name: 'src-bad', rule: 3, reason: 'retention-invalid', collectable: 'never' },
    { name: 'src-broken', namespace: 'explain-broken', rule: 4, reason: 'unreadable-run', collectable: 'never' },
    { name: 'src-active', rule: 5, reason: 'referenced-by-active-run', collectable: 'never' },
    // Just created: min-age 1h keeps it until an hour after its creation.
    { name: 'img-orphan', args: ['--min-age', '1h'], rule: 6, reason: 'too-young', collectable: 'at min-age' },
    { name: 'src-until', rule: 7, reason: 'retain-until', collectable: 'at retain-until' },
    { name: 'src-for', rule: 8, reason: 'retain-for', collectable: 'at retain-for' },
    { name: 'src-done', rule: 9, reason: 'runs-finished', collectable: 'now' },
    { name: 'img-orphan', rule: 10, reason: 'unreferenced', collectable: 'now' },
  ];

  for (const row of rows) {
    test(`rule ${row.rule}: ${row.reason} (${row.namespace ?? ns}/${row.name})`, async () => {
      const target = { namespace: row.namespace ?? ns, name: row.name };
      const { explanation, paths } = await explainInProcess(row.args ?? ['--min-age', '0s'], target);
      const { collectable } = explanation;
      assert.deepEqual(
        [explanation.rule, explanation.decision.reason, collectable.when === 'at' ? `at ${collectable.bound}` : collectable.when],
        [row.rule, row.reason, row.collectable],
      );
      // Only this target, its namespace's runs and its namespace: discovery aside, every path names the namespace.
      const reads = paths.filter((p) => !/^\/apis\/tekton\.dev(\/v\w+)?$/.test(p));
      assert.ok(reads.length > 0);
      for (const read of reads) assert.ok(read.includes(`/namespaces/${target.namespace}`), `${read} reads outside ${target.namespace}`);
    });
  }

  test('retain-until and retain-for: when they end, from the label or annotation', async () => {
    const until = (await explainInProcess(['--min-age', '0s'], { namespace: ns, name: 'src-until' })).explanation;
    assert.deepEqual(
      until.retention.filter((fact) => fact.setting === 'retain-until').map((fact) => [fact.source, fact.expiresMs]),
      [[`annotation ${PREFIX}/retain-until`, Date.parse('2099-01-01T00:00:00Z')]],
    );
    const forDays = (await explainInProcess(['--min-age', '0s'], { namespace: ns, name: 'src-for' })).explanation;
    const finished = Date.parse(hoursAgo(3));
    const fact = forDays.retention.find((candidate) => candidate.setting === 'retain-for');
    assert.ok(typeof fact?.expiresMs === 'number' && Math.abs(fact.expiresMs - (finished + 7 * 86_400_000)) < 120_000, JSON.stringify(fact));
  });

  test('the CLI: text for a collectable target, with each run, its state and finish time', async () => {
    const result = await runCli(kube(['explain', `${ns}/src-done`, '--min-age', '0s']));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^target: +explain\/src-done$/m);
    assert.match(result.stdout, /^kind: +PipelineResource \(collector pipelineresources\)$/m);
    assert.match(result.stdout, /^decision: +delete \(rule 9, runs-finished\)$/m);
    assert.match(result.stdout, /^runs: +PipelineRun\/build-done succeeded, finished \S+Z \(names it in its spec\)$/m);
    assert.match(result.stdout, /^ +TaskRun\/push-done failed, finished \S+Z \(names it in its spec\)$/m);
    assert.match(result.stdout, /^collectable: now: a pass would delete it$/m);
    // build-elsewhere names src-done too, but in another namespace: not a reference.
    assert.doesNotMatch(result.stdout, /build-elsewhere/);
  });

  test('the CLI: each setting of the collector named with where it came from: the command line, a TRGC_ variable, or its default', async () => {
    const given = await runCli(kube(['explain', `${ns}/src-done`, '--min-age', '0s']), { env: { TRGC_RETAIN_FOR: '30d' } });
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, /^decision: +keep \(rule 8, retain-for\)$/m);
    assert.match(given.stdout, /^retention: +--retain-for 30d \(TRGC_RETAIN_FOR\): keeps it until \S+Z \(in 29d2\dh\)$/m);
    assert.match(given.stdout, /^ +--min-age 0s \(command line\): ended \S+Z \(\S+ ago\)$/m);
    const defaults = await runCli(kube(['explain', `${ns}/src-done`, '--output', 'json']));
    assert.equal(defaults.code, 0, defaults.stderr);
    const document = JSON.parse(defaults.stdout) as { retention: { setting: string; source: string; value: string }[] };
    assert.deepEqual(document.retention.map(({ setting, source, value }) => [setting, source, value]), [['min-age', 'default', '1h']]);
  });

  test('the CLI: JSON for a kept target; out of scope said; a missing one is exit 1 in one line', async () => {
    const result = await runCli(kube(['explain', `${ns}/src-active`, '--output', 'json', '--selector', 'team=none']));
    assert.equal(result.code, 0, result.stderr);
    const document = JSON.parse(result.stdout) as { decision: { reason: string; rule: number }; references: { name: string; state: string }[]; scope: unknown; collectable: unknown };
    assert.deepEqual(document.decision, { action: 'keep', reason: 'referenced-by-active-run', rule: 5, message: 'referenced by active PipelineRun build-active (running)' });
    assert.deepEqual(document.references.map((ref) => `${ref.name} ${ref.state}`), ['build-active running']);
    assert.deepEqual(document.scope, { inScope: false, why: 'its labels do not match --selector "team=none"' });
    assert.deepEqual(document.collectable, { when: 'never', until: 'every run that links it has finished, or no longer reads it' });

    const missing = await runCli(kube(['explain', `${ns}/nope`]));
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'tekton-resource-gc: PipelineResource explain/nope not found\n');
  });
});

// ---- events ----

async function eventsIn(namespace: string): Promise<EventsV1Event[]> {
  const list = await controlPlane.kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
  return list.items.filter((event) => event.reportingController === 'tekton-resource-gc.io/collector');
}

async function seedCollectable(ns: string): Promise<Map<string, string>> {
  await seed.namespace(ns);
  const uids = new Map<string, string>();
  for (const name of ['src-old-1', 'src-old-2']) uids.set(name, (await seed.create(gitResource({ name, namespace: ns }, name))).uid);
  await seed.create(gitResource({ name: 'src-busy', namespace: ns }, 'busy'));
  await seed.create(pipelineRun('v1beta1', { name: 'build-busy', namespace: ns }, { resources: ['src-busy'] }), { state: 'running' });
  return uids;
}

/** `count` unreferenced PipelineResources src-00000, src-00001, …, created twenty at a time. */
async function createTargets(namespace: string, count: number): Promise<void> {
  const names = Array.from({ length: count }, (_, index) => `src-${String(index).padStart(5, '0')}`);
  for (let start = 0; start < names.length; start += 20) {
    await Promise.all(names.slice(start, start + 20).map((name) => seed.create(gitResource({ name, namespace }, name))));
  }
}

describe('--events', () => {
  test('a live pass records a Deleted Event regarding each PipelineResource it deleted, and none for the kept', async () => {
    const ns = 'events-live';
    const uids = await seedCollectable(ns);
    const result = await runCli(kube(['--events', '--namespace', ns, '--min-age', '0s', '--output', 'json']));
    assert.equal(result.code, 0, result.stderr);
    const events = (await eventsIn(ns)).sort((a, b) => (a.regarding?.name ?? '').localeCompare(b.regarding?.name ?? ''));
    assert.deepEqual(
      events.map((event) => [event.reason, event.type, event.action, event.regarding?.apiVersion, event.regarding?.kind, event.regarding?.namespace, event.regarding?.name, event.regarding?.uid, event.note]),
      ['src-old-1', 'src-old-2'].map((name) => ['Deleted', 'Normal', 'Delete', 'tekton.dev/v1alpha1', 'PipelineResource', ns, name, uids.get(name), 'unreferenced: no run links it']),
    );
    assert.ok(events.every((event) => event.reportingInstance?.startsWith('tekton-resource-gc-') && event.eventTime !== undefined));
  });

  test('a dry run records one WouldDelete Event per namespace, regarding the Namespace, however many it would delete there, and deletes nothing', async () => {
    const ns = 'events-dry';
    const many = 'events-dry-many';
    await seedCollectable(ns);
    await seed.namespace(many);
    await createTargets(many, 40);
    const dryRun = kube(['--events', '--dry-run', '--namespace', `${ns},${many}`, '--min-age', '0s', '--output', 'json']);
    const result = await runCli(dryRun);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(reportOf(result).summary.results['would-delete'], 42);
    const summaries = async (namespace: string): Promise<string[]> =>
      (await eventsIn(namespace)).map((event) => [event.reason, event.type, event.action, event.regarding?.kind, event.regarding?.name, event.note].join(' | '));
    assert.deepEqual(await summaries(ns), [
      `WouldDelete | Normal | Delete | Namespace | ${ns} | dry run: would delete 2 PipelineResources here (unreferenced 2): PipelineResource/src-old-1, PipelineResource/src-old-2; the report lists each with its reason`,
    ]);
    const [manyEvent, ...others] = await summaries(many);
    assert.deepEqual(others, [], 'one Event for 40 would-be deletions');
    assert.match(manyEvent ?? '', new RegExp(`^WouldDelete \\| Normal \\| Delete \\| Namespace \\| ${many} \\| dry run: would delete 40 PipelineResources here \\(unreferenced 40\\): PipelineResource/src-00000, PipelineResource/src-00001, `));
    assert.deepEqual(await seed.remainingTargets(ns), ['src-busy', 'src-old-1', 'src-old-2']);
    // Every pass adds one per namespace, not one per would-be deletion.
    assert.equal((await runCli(dryRun)).code, 0);
    assert.deepEqual([(await eventsIn(ns)).length, (await eventsIn(many)).length], [2, 2]);
  });

  test(`a live pass records at most ${MAX_EVENTS_PER_PASS} Events, and says so in a log line`, async () => {
    const ns = 'events-cap';
    await seed.namespace(ns);
    await createTargets(ns, MAX_EVENTS_PER_PASS + 3);
    const args = ['--events', '--namespace', ns, '--min-age', '0s', '--output', 'json', '--max-deletions', '2000', '--qps', '1000', '--concurrency', '16'];
    const result = await runCli(kube(args));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(reportOf(result).summary.results.deleted, MAX_EVENTS_PER_PASS + 3);
    const events = await eventsIn(ns);
    assert.equal(events.length, MAX_EVENTS_PER_PASS);
    assert.ok(events.every((event) => event.reason === 'Deleted' && event.regarding?.kind === 'PipelineResource'));
    const line = result.stderr.split('\n').find((text) => text.includes('the most a pass records'));
    assert.ok(line !== undefined, result.stderr.slice(-2000));
    const logged = JSON.parse(line) as { msg: string; maxEvents: number; omitted: number };
    assert.deepEqual([logged.maxEvents, logged.omitted], [MAX_EVENTS_PER_PASS, 3]);
    assert.equal(logged.msg, `recording ${MAX_EVENTS_PER_PASS} Events, the most a pass records; 3 more results have none (the report has them all)`);
  });

  test('an identity that may not create Events still deletes, logs one warning, and exits 0', async () => {
    const ns = 'events-denied';
    await seedCollectable(ns);
    await controlPlane.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'no-events', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'no-events', namespace: ns },
        rules: [
          { apiGroups: ['tekton.dev'], resources: ['pipelineresources'], verbs: ['get', 'list', 'delete'] },
          { apiGroups: ['tekton.dev'], resources: ['pipelineruns', 'taskruns'], verbs: ['get', 'list', 'watch'] },
        ],
      },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'no-events', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'no-events' }, subjects: [{ kind: 'ServiceAccount', name: 'no-events', namespace: ns }] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'no-events-ns' }, rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [ns], verbs: ['get'] }] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'no-events-ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'no-events-ns' }, subjects: [{ kind: 'ServiceAccount', name: 'no-events', namespace: ns }] },
    ]);
    const token = await controlPlane.createServiceAccountToken(ns, 'no-events');
    const kubeconfig = path.join(controlPlane.dir, 'no-events.kubeconfig');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(kubeconfig, controlPlane.kubeConfig(token).exportConfig(), { mode: 0o600 });
    const result = await runCli(['--events', '--namespace', ns, '--min-age', '0s', '--output', 'json', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(reportOf(result).summary.results.deleted, 2);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('Events; the pass goes on'));
    assert.equal(warnings.length, 1);
    const warning = JSON.parse(warnings[0] ?? '{}') as { msg: string; err: string };
    assert.equal(warning.msg, 'could not record 2 of 2 Events; the pass goes on');
    assert.match(warning.err, /^forbidden: this identity may not create events\.events\.k8s\.io in namespace "events-denied"/);
  });
});

// ---- metrics ----

interface Push {
  method: string;
  url: string;
  contentType: string;
  body: string;
}

async function receiver(status = 200): Promise<{ server: Server; url: string; pushes: Push[] }> {
  const pushes: Push[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      pushes.push({ method: request.method ?? '', url: request.url ?? '', contentType: request.headers['content-type'] ?? '', body });
      response.writeHead(status).end(status === 200 ? '' : 'gateway unhappy');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pushes };
}

function samples(body: string): Map<string, number> {
  return new Map(
    body
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]),
  );
}

describe('--pushgateway-url', () => {
  test('pushes, at the end of the pass, metrics that match its report', async () => {
    const ns = 'metrics';
    await seedCollectable(ns);
    await seed.create(gitResource({ name: 'src-retained', namespace: ns, labels: { [`${PREFIX}/retain`]: 'true' } }, 'r'));
    const gateway = await receiver();
    try {
      const result = await runCli(kube(['--namespace', ns, '--min-age', '0s', '--output', 'json', '--pushgateway-url', gateway.url]));
      assert.equal(result.code, 0, result.stderr);
      const report = reportOf(result);
      assert.equal(gateway.pushes.length, 1);
      const [push] = gateway.pushes;
      assert.deepEqual([push?.method, push?.url], ['PUT', '/metrics/job/tekton-resource-gc']);
      assert.match(push?.contentType ?? '', /^text\/plain; version=0\.0\.4/);
      const values = samples(push?.body ?? '');
      assert.equal(values.get('tekton_resource_gc_targets{kind="PipelineResource"}'), report.summary.targets);
      assert.equal(values.get('tekton_resource_gc_runs'), report.summary.runs);
      for (const [reason, count] of Object.entries(report.summary.reasons)) {
        const action = reason === 'unreferenced' || reason === 'runs-finished' ? 'delete' : 'keep';
        assert.equal(values.get(`tekton_resource_gc_decisions{kind="PipelineResource",action="${action}",reason="${reason}"}`), count, reason);
      }
      assert.equal([...values].filter(([key, value]) => key.startsWith('tekton_resource_gc_decisions{') && value > 0).length, Object.keys(report.summary.reasons).length);
      assert.equal(values.get('tekton_resource_gc_deletions{kind="PipelineResource",result="deleted"}'), report.summary.results.deleted);
      assert.equal(values.get('tekton_resource_gc_deletions{kind="PipelineResource",result="failed"}'), 0);
      assert.equal(values.get('tekton_resource_gc_errors'), 0);
      assert.equal(values.get('tekton_resource_gc_exit_code'), 0);
      assert.equal(values.get('tekton_resource_gc_pass_duration_seconds'), (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000);
      assert.equal(values.get('tekton_resource_gc_last_success_timestamp_seconds'), Date.parse(report.finishedAt) / 1000);
      // Without --events (the CLI's default), this live pass recorded no Event at all.
      assert.equal(report.summary.results.deleted, 2);
      assert.deepEqual(await eventsIn(ns), []);
    } finally {
      gateway.server.close();
    }
  });

  test('a refused push leaves the exit status alone; a pass stopped by the cap adds to the group, claiming no success', async () => {
    const gateway = await receiver(500);
    try {
      // The namespace does not exist: every list answers empty and the pass runs as planned (exit 0); the push is refused.
      const result = await runCli(kube(['--namespace', 'metrics-none', '--pushgateway-url', gateway.url]));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /"msg":"could not push the metrics; the pass is not affected"/);
      assert.match(result.stderr, /the Pushgateway answered HTTP 500: gateway unhappy/);
    } finally {
      gateway.server.close();
    }
    const failing = await receiver();
    try {
      // --max-deletions 0 with something to delete: exit 3.
      const ns = 'metrics-capped';
      await seedCollectable(ns);
      const result = await runCli(kube(['--namespace', ns, '--min-age', '0s', '--max-deletions', '0', '--pushgateway-url', failing.url]));
      assert.equal(result.code, 3, result.stderr);
      const [push] = failing.pushes;
      assert.equal(push?.method, 'POST');
      const values = samples(push?.body ?? '');
      assert.equal(values.get('tekton_resource_gc_deletions{kind="PipelineResource",result="aborted"}'), 2);
      assert.equal(values.get('tekton_resource_gc_errors'), 1);
      assert.equal(values.get('tekton_resource_gc_exit_code'), 3);
      assert.ok(!values.has('tekton_resource_gc_last_success_timestamp_seconds'));
    } finally {
      failing.server.close();
    }
  });
});

// ---- schedule mode ----

describe('--schedule', () => {
  test('every minute on an injected clock: two real passes, the second sees what changed, then a clean stop', async () => {
    const ns = 'schedule';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-first', namespace: ns }, 'first'));
    let nowMs = Date.parse('2026-11-29T12:00:30Z');
    const controller = new AbortController();
    const { log, lines } = capturingLogger();
    const reports: string[][] = [];
    const status = await runOnSchedule(
      { text: '* * * * *', fields: '* * * * *', timeZone: 'Europe/Berlin' },
      {
        now: () => new Date(nowMs),
        sleep: (ms) => {
          nowMs += ms;
          return Promise.resolve();
        },
        signal: controller.signal,
        log,
        pass: async () => {
          const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', ns, '--min-age', '0s']);
          reports.push(outcome.report.items.map((item) => `${item.name} ${item.result}`));
          if (reports.length === 1) await seed.create(gitResource({ name: 'src-second', namespace: ns }, 'second'));
          if (reports.length === 2) controller.abort();
          return outcome.exitCode;
        },
      },
    );
    assert.equal(status, 0);
    assert.deepEqual(reports, [['src-first deleted'], ['src-second deleted']]);
    assert.deepEqual(
      lines.filter((line) => line.message.startsWith('next pass')).map((line) => line.message),
      ['next pass at 2026-11-29T13:01:00+01:00 (Europe/Berlin)', 'next pass at 2026-11-29T13:02:00+01:00 (Europe/Berlin)'],
    );
    assert.deepEqual(await seed.remainingTargets(ns), []);
  });

  test('the CLI says when the next pass is, and SIGTERM while it waits ends it at once with 0', async () => {
    let pid = 0;
    let signalledAt = 0;
    const result = await runCli(kube(['--schedule', '0 3 * * *', '--time-zone', 'Asia/Tokyo', '--namespace', 'schedule']), {
      onStart: (started) => (pid = started),
      onStderr: (line) => {
        if (!line.includes('next pass at')) return;
        signalledAt = Date.now();
        process.kill(pid, 'SIGTERM');
      },
    });
    const stopMs = Date.now() - signalledAt;
    assert.equal(result.code, 0, result.stderr);
    assert.ok(stopMs < 2_000, `stopped ${stopMs} ms after SIGTERM`);
    assert.equal(result.stdout, '', 'no pass ran');
    const next = JSON.parse(result.stderr.split('\n').find((line) => line.includes('next pass at')) ?? '{}') as { msg: string; nextPass: string; timeZone: string };
    assert.match(next.msg, /^next pass at \d{4}-\d{2}-\d{2}T03:00:00\+09:00 \(Asia\/Tokyo\)$/);
    assert.equal(new Date(next.nextPass).getUTCHours(), 18);
    assert.match(result.stderr, /"msg":"stopped between passes"/);
  });

  const bad: [string[], RegExp][] = [
    [['--schedule', '*/5 * * * * *'], /^tekton-resource-gc: --schedule "\*\/5 \* \* \* \* \*": 6 fields; expected five cron fields/],
    [['--schedule', '@daily', '--time-zone', 'Mars/Olympus_Mons'], /^tekton-resource-gc: --time-zone "Mars\/Olympus_Mons": expected a tz database time zone/],
    [['--time-zone', 'Europe/Berlin'], /^tekton-resource-gc: --time-zone "Europe\/Berlin": applies only with --schedule/],
  ];
  // (Every other refusal is a row of test/unit/operator.test.ts; these check the CLI's exit.)
  test(`invalid schedules and zones exit 2 with one line, before connecting`, async () => {
    const results = await Promise.all(bad.map(([args]) => runCli(kube(args))));
    results.forEach((result, index) => {
      const [args, message] = bad[index] ?? [[], /$^/];
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.split('\n').filter((line) => line !== '').length, 1, result.stderr);
      assert.match(result.stderr, message);
    });
  });
});

// ---- progress ----

/**
 * The CLI on a terminal: script(1) gives it one, and its output is what the terminal was
 * sent, stdout and stderr together, each line feed written as CR LF by the pty.
 */
async function onTerminal(args: readonly string[], env: Record<string, string>): Promise<{ code: number; screen: string }> {
  const command = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src', 'main.ts'), ...kube(args)].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const [code] = (await once(child, 'close')) as [number];
  return { code, screen };
}

describe('progress', () => {
  test('on a terminal: one updating line (listing, deciding, deleting n of m), cleared before the report; every log line a whole line of its own', async () => {
    const ns = 'progress';
    await seed.namespace(ns);
    for (let index = 0; index < 5; index++) await seed.create(gitResource({ name: `src-${index}`, namespace: ns }, `p${index}`));
    // At info, a line per deletion: log lines while the progress line is drawn.
    const { code, screen } = await onTerminal(['--namespace', ns, '--min-age', '0s', '--log-level', 'info'], { TERM: 'xterm-256color' });
    assert.equal(code, 0, screen);
    assert.match(screen, /\rlisting PipelineResources…\x1b\[K/);
    assert.match(screen, /\rdeciding… \(5 PipelineResources, 0 runs\)\x1b\[K/);
    assert.match(screen, /\rdeleting 5 of 5 \(100%\)\x1b\[K/);
    // The line is erased and ended before the report, which starts a line of its own.
    assert.match(screen, /\r\x1b\[2K\x1b\[A\r\nNAMESPACE +KIND +NAME/);
    assert.match(screen, /live: 5 targets, 0 runs: 5 deleted \(unreferenced 5\)/);
    // Read line by line, as whatever records a terminal reads it: each log line is JSON, whole.
    const lines = screen.split('\n').map((line) => line.replace(/\r$/, ''));
    const logLines = lines.filter((line) => line.includes('"level":'));
    assert.equal(logLines.filter((line) => line.includes('"msg":"deleted"')).length, 5, screen);
    for (const line of logLines) assert.doesNotThrow(() => JSON.parse(line), JSON.stringify(line));
  });

  test('a terminal whose TERM is dumb or unset, or --progress never: no progress line', async () => {
    const ns = 'progress-none';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-0', namespace: ns }, 'n0'));
    const cases: [string, string[], Record<string, string>][] = [
      ['TERM=dumb', [], { TERM: 'dumb' }],
      ['no TERM (a pod with tty: true)', [], {}],
      ['--progress never', ['--progress', 'never'], { TERM: 'xterm-256color' }],
      ['TRGC_PROGRESS=never', [], { TERM: 'xterm-256color', TRGC_PROGRESS: 'never' }],
    ];
    for (const [what, args, env] of cases) {
      const { code, screen } = await onTerminal(['--namespace', ns, '--min-age', '0s', '--dry-run', ...args], env);
      assert.equal(code, 0, `${what}: ${screen}`);
      assert.doesNotMatch(screen, /\x1b|listing PipelineResources/, what);
      assert.match(screen, /dry run: 1 target, 0 runs: 1 would be deleted/, what);
    }
  });

  test('off a terminal: nothing but JSON log lines on stderr', async () => {
    const ns = 'progress-off';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-0', namespace: ns }, 'q0'));
    const result = await runCli(kube(['--namespace', ns, '--min-age', '0s']));
    assert.equal(result.code, 0, result.stderr);
    for (const line of result.stderr.split('\n').filter((text) => text !== '')) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.doesNotMatch(result.stderr, /\r|\x1b/);
  });
});

// ---- untrusted text ----

describe('untrusted text', () => {
  /** Retitles the terminal, clears it, clears it again with a C1 CSI, then reverses what follows. */
  const ATTACK = '7d\x1b]0;owned\x07\x1b[2J\u009b2J\u202e';
  const UNSAFE_BUT_LINE_FEED = /(?!\n)[\p{Cc}\p{Bidi_Control}]/u;

  test('an annotation that attacks the terminal reaches the reports, explain and the logs escaped; the JSON report keeps it as it was', async () => {
    const ns = 'untrusted';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-0', namespace: ns, annotations: { 'tekton-resource-gc.io/retain-for': ATTACK } }, 'u0'));
    for (const output of ['text', 'markdown', 'json']) {
      const result = await runCli(kube(['--namespace', ns, '--dry-run', '--min-age', '0s', '--output', output, '--log-level', 'debug']));
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, UNSAFE_BUT_LINE_FEED, output);
      assert.doesNotMatch(result.stderr, UNSAFE_BUT_LINE_FEED, `${output}: the log lines`);
      for (const line of result.stderr.split('\n').filter((text) => text !== '')) assert.doesNotThrow(() => JSON.parse(line), line);
      if (output === 'text') assert.match(result.stdout, /"7d\\x1b\]0;owned\\x07\\x1b\[2J\\u009b2J\\u202e"/);
      if (output === 'json') assert.ok(reportOf(result).items[0]?.message.includes(ATTACK), 'the JSON report parses back to the value');
    }
    for (const output of ['text', 'json']) {
      const result = await runCli(kube(['explain', `${ns}/src-0`, '--min-age', '0s', '--output', output]));
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, UNSAFE_BUT_LINE_FEED, `explain --output ${output}`);
    }
  });
});

/**
 * Plan and apply through the CLI on a real API server: the plan file, the digest in every
 * report, `apply PATH`, `explain --plan`, and the plans apply refuses in one line (exit 2).
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { Plan } from '../../src/pass/plan.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { startFaultProxy, type FaultProxy } from '../support/faultproxy.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, pipelineRun, type RunStatusSpec } from '../support/tekton.js';
import { V1Runs } from '../support/v1runs.js';

describe('plan and apply through the CLI', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let proxy: FaultProxy;
  let viaProxy: string;
  let counter = 0;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
    proxy = await startFaultProxy({ upstream: controlPlane.server, token: controlPlane.adminToken });
    viaProxy = path.join(controlPlane.dir, 'via-proxy.kubeconfig');
    await writeFile(viaProxy, proxy.kubeconfigYaml());
  });
  after(async () => {
    await proxy?.stop();
    await controlPlane?.stop();
  });

  const cli = (args: string[], kubeconfig = controlPlane.kubeconfigPath): Promise<CliResult> => runCli([...args, '--kubeconfig', kubeconfig]);

  /** A namespace with two orphans and one target a running run names; its plan file. */
  async function planned(): Promise<{ ns: string; file: string; plan: Plan; dry: CliResult }> {
    const ns = `plancli-${++counter}`;
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'orphan-a', namespace: ns }, 'a'));
    await seed.create(gitResource({ name: 'orphan-b', namespace: ns }, 'b'));
    await seed.create(gitResource({ name: 'busy', namespace: ns }, 'c'));
    await seed.create(pipelineRun('v1beta1', { name: 'running', namespace: ns }, { resources: ['busy'] }), { state: 'running' });
    const file = path.join(controlPlane.dir, `${ns}.plan.json`);
    const dry = await cli(['--dry-run', '--namespace', ns, '--min-age', '0s', '--output', 'json', '--plan-file', file]);
    assert.equal(dry.code, 0, dry.stderr);
    const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
    return { ns, file, plan, dry };
  }

  function refusedInOneLine(result: CliResult, pattern: RegExp): void {
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', pattern);
  }

  test('a dry run writes the plan and every report names its digest; apply deletes exactly it', async () => {
    const { ns, file, plan, dry } = await planned();
    assert.deepEqual(plan.entries.map((entry) => `${entry.name} ${entry.reason}`), ['orphan-a unreferenced', 'orphan-b unreferenced']);
    assert.deepEqual(plan.settings, { namespaces: [ns], excludeNamespaces: [], selector: '', labelPrefix: 'tekton-resource-gc.io', minAgeMs: 0 });
    assert.deepEqual(reportOf(dry).plan, { mode: 'written', file, digest: plan.digest, entries: 2 });
    assert.match(dry.stderr, /"msg":"plan written"/);
    const text = await cli(['--dry-run', '--namespace', ns, '--min-age', '0s', '--plan-file', `${file}.again`]);
    assert.match(text.stdout, new RegExp(`^plan: sha256:[0-9a-f]{64} \\(2 to delete\\) written to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.again$`, 'm'));
    const markdown = await cli(['--dry-run', '--namespace', ns, '--min-age', '0s', '--output', 'markdown', '--plan-file', `${file}.md`]);
    assert.match(markdown.stdout, /^plan: sha256:[0-9a-f]{64} \(2 to delete\) written to /m);

    // A collectable object created after the plan is not in it.
    await seed.create(gitResource({ name: 'orphan-late', namespace: ns }, 'late'));
    const applied = await cli(['apply', file, '--output', 'json', '--plan-digest', plan.digest]);
    assert.equal(applied.code, 0, applied.stderr);
    const report = reportOf(applied);
    assert.equal(report.dryRun, false);
    assert.deepEqual(report.plan, { mode: 'applied', file, digest: plan.digest, entries: 2 });
    // apply was given no --namespace: it decided, and says it decided, in the plan's.
    assert.deepEqual(report.scope, { namespaces: [ns], excludedNamespaces: [], selector: '' });
    assert.deepEqual(report.items.map((item) => `${item.name} ${item.result}`), ['orphan-a deleted', 'orphan-b deleted']);
    assert.deepEqual(await seed.remainingTargets(ns), ['busy', 'orphan-late']);
  });

  test('explain --plan says whether an object is in the plan and what apply would do', async () => {
    const { ns, file } = await planned();
    const inPlan = await cli(['explain', `${ns}/orphan-a`, '--min-age', '0s', '--plan', file]);
    assert.equal(inPlan.code, 0, inPlan.stderr);
    assert.match(inPlan.stdout, /^plan: +in the plan sha256:[0-9a-f]{64} \(unreferenced, uid [\w-]+, resourceVersion \d+\); unchanged since, so apply deletes it if a fresh decision still says delete$/m);
    const notInPlan = await cli(['explain', `${ns}/busy`, '--min-age', '0s', '--plan', file, '--output', 'json']);
    assert.match((JSON.parse(notInPlan.stdout) as { plan: string }).plan, /^not in the plan sha256:\w+: the dry run of .* did not decide to delete .*\/busy, so apply never deletes it$/);
  });

  test('apply refuses, in one line with exit 2 and nothing read or deleted: an edited plan, another cluster, an old plan, another digest, a missing file', async () => {
    const { ns, file, plan } = await planned();
    const edited = `${file}.edited`;
    await writeFile(edited, JSON.stringify({ ...plan, entries: [...plan.entries, { ...plan.entries[0], name: 'busy' }] }, null, 2));
    refusedInOneLine(await cli(['apply', edited]), /^tekton-resource-gc: .*\.edited was changed after it was written \(its digest does not match its content\): write a new plan with a dry run and --plan-file$/);
    // Another cluster: a second control plane of its own, with its own kube-system.
    const other = await startControlPlane({ crds: 'v0.45' });
    try {
      refusedInOneLine(await cli(['apply', file], other.kubeconfigPath), /^tekton-resource-gc: .* was made for another cluster \(kube-system uid [\w-]+, here [\w-]+; server https:\/\/127\.0\.0\.1:\d+\/?\): make a plan on this cluster$/);
    } finally {
      await other.stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    refusedInOneLine(await cli(['apply', file, '--plan-max-age', '1s']), /^tekton-resource-gc: .* is \d+s old, older than --plan-max-age 1s: make a new plan, or raise --plan-max-age$/);
    refusedInOneLine(await cli(['apply', file, '--plan-digest', `sha256:${'0'.repeat(64)}`]), /has digest sha256:[0-9a-f]{64}, not the sha256:0{64} given with --plan-digest: apply the plan that was reviewed$/);
    refusedInOneLine(await cli(['apply', `${file}.missing`]), /^tekton-resource-gc: cannot read the plan .*\.missing: no such file; write one with --dry-run --plan-file /);
    assert.deepEqual(await seed.remainingTargets(ns), ['busy', 'orphan-a', 'orphan-b']);
  });

  test('the same cluster reached at another address (in-cluster and out differ): its kube-system uid says it is the same, and apply goes ahead', async () => {
    const { ns, file, plan } = await planned();
    assert.match(plan.cluster.id ?? '', /^[\w-]{36}$/, 'the plan names the cluster by its kube-system uid');
    proxy.reset([]);
    const applied = await cli(['apply', file, '--output', 'json'], viaProxy);
    assert.equal(applied.code, 0, applied.stderr);
    assert.deepEqual(reportOf(applied).items.map((item) => `${item.name} ${item.result}`), ['orphan-a deleted', 'orphan-b deleted']);
    assert.ok(proxy.requests.some((request) => request.path === '/api/v1/namespaces/kube-system'));
    assert.deepEqual(await seed.remainingTargets(ns), ['busy']);
  });

  test('bad usage: a plan file without --dry-run, apply with a setting the plan decided otherwise, apply with --dry-run, plan flags elsewhere', async () => {
    const { ns, file } = await planned();
    refusedInOneLine(await cli(['--namespace', ns, '--plan-file', file]), /^tekton-resource-gc: --plan-file writes the plan of a dry run: add --dry-run/);
    refusedInOneLine(await cli(['apply', file, '--min-age', '1h']), /^tekton-resource-gc: --min-age differs from the plan, which was decided with its own --min-age 0s: apply decides with the plan's settings; leave --min-age out$/);
    refusedInOneLine(await cli(['apply', file, '--dry-run']), /^tekton-resource-gc: --dry-run does not apply to apply/);
    refusedInOneLine(await cli(['apply']), /^tekton-resource-gc: apply needs the plan file a dry run wrote with --plan-file/);
    refusedInOneLine(await cli(['--dry-run', '--plan-digest', `sha256:${'a'.repeat(64)}`]), /^tekton-resource-gc: --plan-digest applies only to apply/);
    // The same value as the plan's is fine.
    const same = await cli(['apply', file, '--namespace', ns, '--min-age', '0s', '--output', 'json']);
    assert.equal(same.code, 0, same.stderr);
  });

  test('runs: the plan holds their policy; apply decides every run again and deletes only planned runs still beyond it', async () => {
    const runs = new V1Runs(controlPlane.kubeConfig());
    const ns = `plancli-${++counter}`;
    await seed.namespace(ns);
    const done = (hours: number, state: 'succeeded' | 'failed' = 'succeeded'): RunStatusSpec => ({ state, finishedAt: hoursAgo(hours) });
    for (const [name, hours] of [['r1', 1], ['r2', 2], ['r3', 3], ['r4', 4]] as const) await runs.create(ns, name, done(hours));
    await runs.create(ns, 'f1', done(2, 'failed'));
    const file = path.join(controlPlane.dir, `${ns}.plan.json`);
    const dry = await cli(['--dry-run', '--namespace', ns, '--min-age', '0s', '--collect', 'pipelineruns', '--keep', '1', '--output', 'json', '--plan-file', file]);
    assert.equal(dry.code, 0, dry.stderr);
    const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
    assert.deepEqual(plan.entries.map((entry) => `${entry.kind} ${entry.name} ${entry.reason}`), ['PipelineRun r2 history-exceeded', 'PipelineRun r3 history-exceeded', 'PipelineRun r4 history-exceeded']);
    assert.deepEqual(plan.settings.runs, { keepSuccessful: 1, keepFailed: 1, limitFlags: { keepSuccessful: '--keep', keepFailed: '--keep' }, requireResultsStored: false });

    const inPlan = await cli(['explain', `pipelinerun/${ns}/r4`, '--min-age', '0s', '--keep', '1', '--plan', file]);
    assert.equal(inPlan.code, 0, inPlan.stderr);
    assert.match(inPlan.stdout, /^plan: +in the plan sha256:[0-9a-f]{64} \(history-exceeded, uid [\w-]+, resourceVersion \d+\); unchanged since, so apply deletes it if a fresh decision still says delete$/m);

    // Since the plan: the newest run was deleted (r2 is the newest now), and r3 was run again under its name.
    await runs.delete(ns, 'r1');
    await runs.delete(ns, 'r3');
    await runs.create(ns, 'r3', done(5));
    // A run policy other than the plan's is refused before anything is read; the same one is fine.
    refusedInOneLine(await cli(['apply', file, '--keep', '2']), /^tekton-resource-gc: --keep differs from the plan, which was decided with its own --keep 1: apply decides with the plan's settings; leave --keep out$/);
    refusedInOneLine(await cli(['apply', file, '--run-ttl', '7d']), /^tekton-resource-gc: --run-ttl differs from the plan, which was decided with its own --run-ttl \(none\): apply decides with the plan's settings; leave --run-ttl out$/);
    const applied = await cli(['apply', file, '--collect', 'pipelineruns', '--keep-successful', '1', '--output', 'json']);
    assert.equal(applied.code, 0, applied.stderr);
    const report = reportOf(applied);
    assert.deepEqual(
      report.items.map((item) => `${item.name} ${item.reason} ${item.result}`),
      ['r2 history-kept kept', 'r3 history-exceeded changed', 'r4 history-exceeded deleted'],
    );
    assert.match(report.items.find((item) => item.name === 'r3')?.message ?? '', /not deleted: it was deleted and created again since the plan was made/);
    assert.deepEqual(await runs.names(ns), ['f1', 'r2', 'r3']);
  });
});

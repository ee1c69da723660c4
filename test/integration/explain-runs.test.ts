/**
 * `explain pipelinerun/NS/NAME` and `explain taskrun/NS/NAME` against a real kube-apiserver:
 * a run kept by its place with its rank, one past its limit, one past its TTL, one kept by a
 * limit its Namespace's label sets (named there), a child TaskRun (its parent named, exit 1),
 * a run that does not exist, text and JSON from the CLI, and for every run of a namespace the
 * same decision as the dry run's. Tekton's controller does not run: runs are made as it leaves
 * them (the object, then its status through /status).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { parseConfig } from '../../src/cli/config.js';
import { explainTarget, type ExplainOutcome } from '../../src/cli/explaincmd.js';
import type { Explanation } from '../../src/core/explain.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import { runCli } from '../support/cli.js';
import { connectionFor, passInProcess } from '../support/pass.js';
import { useControlPlane } from '../support/realserver.js';
import { hoursAgo, type KubeObject, type RunStatusSpec } from '../support/tekton.js';

const PREFIX = 'tekton-resource-gc.io';
const PAC = 'pipelinesascode.tekton.dev/original-prname';

type Kind = 'PipelineRun' | 'TaskRun';

/** A v1 run of `labels`' Pipeline or Task; `owner`: a child TaskRun of that PipelineRun. */
function runObject(kind: Kind, namespace: string, name: string, labels: Record<string, string>, owner?: { name: string; uid: string }): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind,
    metadata: {
      name,
      namespace,
      labels,
      ...(owner !== undefined && { ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: owner.name, uid: owner.uid, controller: true }] }),
    },
    spec: kind === 'PipelineRun' ? { pipelineRef: { name: 'build' } } : { taskRef: { name: 'lint' } },
  };
}

const done = (hours: number, state: 'succeeded' | 'failed' | 'cancelled' = 'succeeded'): RunStatusSpec => ({ state, finishedAt: hoursAgo(hours) });
const pipeline = (name: string): Record<string, string> => ({ 'tekton.dev/pipeline': name });
const task = (name: string): Record<string, string> => ({ 'tekton.dev/task': name });

describe('explain pipelinerun/... and taskrun/... on a bare kube-apiserver', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  const ns = 'explain-runs';
  const labelled = 'explain-runs-labelled';
  const mixed = 'explain-runs-mixed';

  const create = async (kind: Kind, namespace: string, name: string, status: RunStatusSpec, labels: Record<string, string>, owner?: { name: string; uid: string }) =>
    server.seed.create(runObject(kind, namespace, name, labels, owner), status);

  before(async () => {
    await server.seed.namespace(ns);
    for (const [name, hours] of [['build-1', 1], ['build-2', 2], ['build-3', 3], ['build-4', 4]] as const) await create('PipelineRun', ns, name, done(hours), pipeline('build'));
    await create('PipelineRun', ns, 'build-f1', done(5, 'failed'), pipeline('build'));
    const parent = await create('PipelineRun', ns, 'build-f2', done(30, 'failed'), pipeline('build'));
    await create('TaskRun', ns, 'build-f2-compile', done(30, 'failed'), task('compile'), parent);
    // A TaskRun of build-f1 by its label alone (orphaned by hand): Tekton reads it by name, so it is no target either.
    await create('TaskRun', ns, 'build-f1-compile', done(5, 'failed'), { ...task('compile'), 'tekton.dev/pipelineRun': 'build-f1' });
    await create('TaskRun', ns, 'lint-1', done(1), task('lint'));
    await create('TaskRun', ns, 'lint-2', done(2), task('lint'));
    // Pipelines-as-Code's: each its own Pipeline, one group by the PipelineRun they come from.
    await create('PipelineRun', ns, 'on-push-abc', done(1), { ...pipeline('on-push-abc'), [PAC]: 'on-push' });
    await create('PipelineRun', ns, 'on-push-def', done(2), { ...pipeline('on-push-def'), [PAC]: 'on-push' });
    // Runs elsewhere of the same Pipeline: never read, never ranked with these.
    await server.seed.namespace('explain-runs-elsewhere');
    await create('PipelineRun', 'explain-runs-elsewhere', 'build-0', done(0.5), pipeline('build'));

    await server.seed.namespace(labelled, { [`${PREFIX}/keep-successful`]: '5' });
    for (const [name, hours] of [['deploy-1', 1], ['deploy-2', 2], ['deploy-3', 3]] as const) await create('PipelineRun', labelled, name, done(hours), pipeline('deploy'));

    await server.seed.namespace(mixed);
    for (const [name, hours, state] of [
      ['a-1', 1, 'succeeded'],
      ['a-2', 2, 'succeeded'],
      ['a-3', 3, 'succeeded'],
      ['a-4', 50, 'succeeded'],
      ['a-f1', 4, 'failed'],
      ['a-f2', 40, 'cancelled'],
      ['b-1', 60, 'succeeded'],
    ] as const) {
      await create('PipelineRun', mixed, name, done(hours, state), pipeline(name.startsWith('a') ? 'a' : 'b'));
    }
    await create('PipelineRun', mixed, 'a-running', { state: 'running' }, pipeline('a'));
    await server.seed.create({ ...runObject('PipelineRun', mixed, 'a-kept', { ...pipeline('a'), [`${PREFIX}/retain`]: 'true' }) }, done(100));
    await create('PipelineRun', mixed, 'loose', done(70), {});
    await create('TaskRun', mixed, 't-1', done(1), task('t'));
    await create('TaskRun', mixed, 't-2', done(80), task('t'));
  });

  /** explain in this process as the CLI runs it (the same parser, adapter and command), with every request path it sent. */
  async function explainInProcess(operand: string, args: readonly string[]): Promise<{ outcome: ExplainOutcome; paths: string[] }> {
    const invocation = parseConfig(['explain', operand, ...args], {});
    assert.equal(invocation.kind, 'explain');
    const { config, target } = invocation;
    const http = await KubeHttp.create(await connectionFor(server.controlPlane.kubeConfig()), httpOptions(config));
    const paths: string[] = [];
    const json = http.json.bind(http);
    const jsonOrNull = http.jsonOrNull.bind(http);
    const list = http.list.bind(http);
    http.json = (purpose, request) => (paths.push(request.path), json(purpose, request));
    http.jsonOrNull = (purpose, request) => (paths.push(request.path), jsonOrNull(purpose, request));
    http.list = (purpose, request, toRecord, omit) => (paths.push(request.path), list(purpose, request, toRecord, omit));
    try {
      return { outcome: await explainTarget(config, target, { cluster: new KubeCluster(http, config.pageSize), now: () => new Date() }), paths };
    } finally {
      http.close();
    }
  }

  async function explained(operand: string, args: readonly string[]): Promise<Explanation> {
    const { outcome, paths } = await explainInProcess(operand, args);
    assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
    // The run's namespace only: discovery aside, every path names it.
    const namespace = operand.split('/')[1] ?? '';
    // Discovery: tekton.dev's, and core v1, apps/v1 and resolution.tekton.dev's for the kinds a run owns (pass/dependents.ts).
    const reads = paths.filter((p) => !/^\/apis(\/tekton\.dev(\/v\w+)?)?$/.test(p) && !/^\/(api\/v1|apis\/apps\/v1|apis\/resolution\.tekton\.dev\/v1beta1)$/.test(p));
    assert.ok(reads.length > 0);
    for (const read of reads) assert.ok(read.includes(`/namespaces/${namespace}`), `${read} reads outside ${namespace}`);
    return (outcome as { explanation: Explanation }).explanation;
  }

  const LIMITS = ['--min-age', '0s', '--keep-successful', '3', '--keep-failed', '1'];

  test('kept by its place: its group, its rank among the runs of its outcome, the limit and where it was set', async () => {
    const one = await explained(`pipelinerun/${ns}/build-2`, LIMITS);
    assert.deepEqual([one.rule, one.decision.action, one.decision.reason], [9, 'keep', 'history-kept']);
    assert.deepEqual(one.run && { group: one.run.group, rank: one.run.rank, of: one.run.ofOutcome, limit: one.run.limit }, {
      group: 'tekton.dev/pipeline=build',
      // build-0 elsewhere is newer, and of the same Pipeline: another namespace's history.
      rank: 2,
      of: 4,
      limit: { value: '3', source: '--keep-successful', flag: '--keep-successful' },
    });
    assert.equal(one.collectable.when, 'unknown');
    assert.match(one.collectable.when === 'unknown' ? one.collectable.why : '', /^it goes once 2 more succeeded runs in tekton\.dev\/pipeline=build finish after it/);
  });

  test('past its limit: delete now; a standalone TaskRun ranked by its Task', async () => {
    const exceeded = await explained(`pipelinerun/${ns}/build-4`, LIMITS);
    assert.deepEqual([exceeded.rule, exceeded.decision.reason, exceeded.run?.rank, exceeded.collectable], [10, 'history-exceeded', 4, { when: 'now' }]);
    const failed = await explained(`pipelinerun/${ns}/build-f2`, LIMITS);
    assert.deepEqual([failed.decision.reason, failed.run?.outcome, failed.run?.rank, failed.run?.ofOutcome, failed.run?.limit?.flag], ['history-exceeded', 'failed', 2, 2, '--keep-failed']);
    const lint = await explained(`taskrun/${ns}/lint-2`, ['--min-age', '0s', '--keep', '1']);
    assert.deepEqual([lint.decision.reason, lint.run?.group, lint.run?.rank, lint.run?.limit], ['history-exceeded', 'tekton.dev/task=lint', 2, { value: '1', source: '--keep', flag: '--keep' }]);
  });

  test('--group-by: the run read with the label it names, as the pass reads it', async () => {
    const one = await explained(`pipelinerun/${ns}/on-push-def`, ['--min-age', '0s', '--keep', '1', '--group-by', PAC]);
    assert.deepEqual([one.decision.reason, one.run?.group, one.run?.rank, one.run?.ofOutcome], ['history-exceeded', `${PAC}=on-push`, 2, 2]);
    const without = await explained(`pipelinerun/${ns}/on-push-def`, ['--min-age', '0s', '--keep', '1']);
    assert.deepEqual([without.decision.reason, without.run?.group, without.run?.rank], ['history-kept', 'tekton.dev/pipeline=on-push-def', 1]);
  });

  test('past its TTL: ttl-expired, the TTL named with its origin; a younger one goes at the instant its TTL ends', async () => {
    const old = await explained(`pipelinerun/${ns}/build-f2`, ['--min-age', '0s', '--run-ttl', '1d']);
    assert.deepEqual([old.rule, old.decision.reason, old.run?.ttl, old.collectable], [11, 'ttl-expired', { value: '1d', source: '--run-ttl', flag: '--run-ttl' }, { when: 'now' }]);
    const young = await explained(`pipelinerun/${ns}/build-f1`, ['--min-age', '0s', '--run-ttl', '1d']);
    assert.equal(young.decision.reason, 'ttl-not-reached');
    const finished = Date.parse(young.run?.finishedAt ?? '');
    assert.deepEqual(young.collectable, { when: 'at', atMs: finished + 86_400_000, bound: 'run-ttl' });
  });

  test("kept by its Namespace's limit: the label named as where the limit was set, over the flag", async () => {
    const one = await explained(`pipelinerun/${labelled}/deploy-3`, LIMITS);
    assert.deepEqual([one.decision.reason, one.run?.rank, one.run?.limit], ['history-kept', 3, { value: '5', source: `namespace ${labelled} label ${PREFIX}/keep-successful` }]);
    assert.match(one.decision.message, new RegExp(`namespace ${labelled} label ${PREFIX}/keep-successful keeps 5`));
  });

  test("for every run of a namespace, explain's decision is the dry run's", async () => {
    const policy = ['--min-age', '0s', '--keep-successful', '2', '--run-ttl', '1d'];
    const dry = await passInProcess(server.controlPlane.kubeConfig(), ['--namespace', mixed, '--collect', 'pipelineruns,taskruns', '--dry-run', ...policy]);
    assert.equal(dry.outcome.exitCode, 0);
    const items = [...dry.outcome.report.items];
    // Every row the namespace's runs reach: a place, past it, past the TTL, before it, retained, running, no group label.
    assert.deepEqual(new Set(items.map((item) => item.reason)), new Set(['history-kept', 'history-exceeded', 'ttl-expired', 'ttl-not-reached', 'retained', 'run-active']));
    assert.equal(items.length, 12);
    for (const item of items) {
      const one = await explained(`${item.kind === 'PipelineRun' ? 'pipelinerun' : 'taskrun'}/${mixed}/${item.name}`, policy);
      assert.deepEqual([one.decision.action, one.decision.reason, one.decision.message], [item.action, item.reason, item.message], `${item.kind} ${item.name}`);
    }
  });

  test('the CLI: text with the group, rank, limit and TTL and where each was set; JSON the same', async () => {
    const kube = ['--kubeconfig', server.controlPlane.kubeconfigPath];
    const text = await runCli(['explain', `pipelinerun/${ns}/build-4`, '--min-age', '0s', '--keep', '3', ...kube], { env: { TRGC_RUN_TTL: '30d' } });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^kind: +PipelineRun \(collector pipelineruns\)$/m);
    assert.match(text.stdout, /^decision: +delete \(rule 10, history-exceeded\)$/m);
    assert.match(text.stdout, /^group: +tekton\.dev\/pipeline=build$/m);
    assert.match(text.stdout, /^rank: +the 4th newest of 4 succeeded runs in tekton\.dev\/pipeline=build$/m);
    assert.match(text.stdout, /^limit: +--keep 3 \(command line\)$/m);
    assert.match(text.stdout, /^run TTL: +--run-ttl 30d \(TRGC_RUN_TTL\): does not decide it, a history limit covers succeeded runs$/m);
    assert.match(text.stdout, /^collectable: now: a pass would delete it$/m);

    const json = await runCli(['explain', `taskrun/${ns}/lint-1`, '--min-age', '0s', '--keep-successful', '1', '--output', 'json', ...kube]);
    assert.equal(json.code, 0, json.stderr);
    const document = JSON.parse(json.stdout) as { decision: unknown; run: { group: string; rank: number; ofOutcome: number; limit: unknown } };
    assert.deepEqual(document.decision, { action: 'keep', reason: 'history-kept', rule: 9, message: '1st newest of 2 succeeded runs in group tekton.dev/task=lint; --keep-successful keeps 1' });
    assert.deepEqual([document.run.group, document.run.rank, document.run.ofOutcome, document.run.limit], ['tekton.dev/task=lint', 1, 2, { value: '1', source: '--keep-successful', flag: '--keep-successful' }]);
  });

  test('the CLI: a child TaskRun names its PipelineRun (by owner or by label alone), and a run that does not exist is not found: each exit 1 in one line', async () => {
    const kube = ['--kubeconfig', server.controlPlane.kubeconfigPath];
    const child = await runCli(['explain', `taskrun/${ns}/build-f2-compile`, '--keep', '1', ...kube]);
    assert.equal(child.code, 1);
    assert.equal(
      child.stderr,
      `tekton-resource-gc: TaskRun ${ns}/build-f2-compile is not a target of taskruns: it goes with its PipelineRun ${ns}/build-f2; explain pipelinerun/${ns}/build-f2\n`,
    );
    const labelledOnly = await runCli(['explain', `taskrun/${ns}/build-f1-compile`, '--keep', '0', ...kube]);
    assert.equal(labelledOnly.code, 1);
    assert.equal(
      labelledOnly.stderr,
      `tekton-resource-gc: TaskRun ${ns}/build-f1-compile is not a target of taskruns: no PipelineRun owns it, but its tekton.dev/pipelineRun label names PipelineRun ${ns}/build-f1, so it is taken for that run's and never deleted alone (delete it by hand once no run of that name is running)\n`,
    );
    const missing = await runCli(['explain', `pipelinerun/${ns}/nope`, ...kube]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `tekton-resource-gc: PipelineRun ${ns}/nope not found\n`);
    // A PipelineRun's name asked as a TaskRun is no TaskRun either.
    const wrongKind = await runCli(['explain', `taskrun/${ns}/build-1`, ...kube]);
    assert.equal(wrongKind.code, 1);
    assert.equal(wrongKind.stderr, `tekton-resource-gc: TaskRun ${ns}/build-1 not found\n`);
  });
});

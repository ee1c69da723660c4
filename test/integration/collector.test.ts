/**
 * The collector end to end through its CLI against a real kube-apiserver and etcd, for
 * both Tekton CRD sets: every decision of docs/spec.md's table, what a dry run leaves alone,
 * and what a live pass leaves behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { outcomes, reportOf, runCli } from '../support/cli.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, imageResource, pipelineRun, taskRun, type RunVersionName } from '../support/tekton.js';

const PREFIX = 'tekton-resource-gc.io';

interface CrdCase {
  crds: 'v0.37' | 'v0.45';
  /** The version a CI system of that era creates runs through. */
  runVersion: RunVersionName;
}

const CASES: CrdCase[] = [
  { crds: 'v0.45', runVersion: 'v1beta1' },
  { crds: 'v0.37', runVersion: 'v1alpha1' },
];

/**
 * One namespace per team: per-commit git and image resources, runs in every state, and
 * the labels that keep things. Returns nothing: the expectations below name every target.
 */
async function seedScenario(seed: Seeder, version: RunVersionName, crds: CrdCase['crds']): Promise<void> {
  const ns = 'shop-ci';
  await seed.namespace(ns);
  await seed.namespace('frozen', { [`${PREFIX}/retain`]: 'true' });
  await seed.namespace('broken');
  const meta = (name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}) => ({ name, namespace: ns, ...extra });

  // Rules 1-3: labels and annotations that keep a target whatever its runs.
  await seed.create(gitResource(meta('src-retained', { labels: { [`${PREFIX}/retain`]: 'true' } }), 'aaa111'));
  await seed.create(gitResource(meta('src-retain-yes', { annotations: { [`${PREFIX}/retain`]: 'yes' } }), 'aaa112'));
  await seed.create(gitResource({ name: 'src-frozen', namespace: 'frozen' }, 'aaa113'));
  await seed.create(gitResource(meta('src-bad-retention', { annotations: { [`${PREFIX}/retain-for`]: '2x' } }), 'aaa114'));

  // Rule 4: a run whose spec.resources is a string hides what it names.
  await seed.create(gitResource({ name: 'src-broken', namespace: 'broken' }, 'bbb111'));
  await seed.create(
    { apiVersion: `tekton.dev/${version}`, kind: 'PipelineRun', metadata: { name: 'weird', namespace: 'broken' }, spec: { resources: 'oops' } },
    { state: 'succeeded', finishedAt: hoursAgo(5) },
  );

  // Rule 5: active runs in every form.
  await seed.create(gitResource(meta('src-running'), 'ccc111'));
  const running = await seed.create(pipelineRun(version, meta('build-running'), { resources: ['src-running'] }), { state: 'running' });
  await seed.create(gitResource(meta('src-pending'), 'ccc112'));
  await seed.create(pipelineRun(version, meta('build-pending'), { resources: ['src-pending'], pending: true }), { state: 'pending' });
  await seed.create(imageResource(meta('img-retrying'), 'ccc113'));
  await seed.create(taskRun(version, meta('push-retrying'), { inputs: [], outputs: ['img-retrying'] }), { state: 'failed-retrying' });
  // A TaskRun that is done, but its PipelineRun still runs (and may retry it).
  await seed.create(gitResource(meta('src-child'), 'ccc114'));
  await seed.create(
    taskRun(version, { ...meta('build-running-fetch'), ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build-running', uid: running.uid, controller: true }] }, { inputs: ['src-child'], outputs: [] }),
    { state: 'succeeded', finishedAt: hoursAgo(0.1) },
  );
  // Owned by a running PipelineRun: an ownerReference is a reference too.
  await seed.create(
    gitResource({ ...meta('src-owned'), ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build-running', uid: running.uid }] }, 'ccc115'),
  );
  if (crds === 'v0.45') {
    // Created through v1: the bindings live only in the tekton.dev/v1beta1Resources annotation.
    await seed.create(gitResource(meta('src-v1'), 'ccc116'));
    await seed.create(pipelineRun('v1', meta('build-v1'), { resources: ['src-v1'] }), { state: 'running' });
  } else {
    // Tekton before v0.11: TaskRun spec.inputs.resources.
    await seed.create(gitResource(meta('src-legacy'), 'ccc117'));
    await seed.create(taskRun('v1alpha1', meta('fetch-legacy'), { inputs: ['src-legacy'], outputs: [], legacy: true }), { state: 'running' });
  }

  // Rules 7-8: retention in time.
  await seed.create(gitResource(meta('src-until', { annotations: { [`${PREFIX}/retain-until`]: '2099-01-01' } }), 'ddd111'));
  await seed.create(gitResource(meta('src-retain-for', { labels: { [`${PREFIX}/retain-for`]: '7d' } }), 'ddd112'));
  await seed.create(pipelineRun(version, meta('build-ddd112'), { resources: ['src-retain-for'] }), { state: 'succeeded', finishedAt: hoursAgo(3) });
  // Shared by two runs: the newest completion (1h ago) counts, so 2h has not elapsed.
  await seed.create(imageResource(meta('img-shared', { labels: { [`${PREFIX}/retain-for`]: '2h' } }), 'shared'));
  await seed.create(taskRun(version, meta('push-shared-a'), { inputs: [], outputs: ['img-shared'] }), { state: 'succeeded', finishedAt: hoursAgo(30) });
  await seed.create(taskRun(version, meta('push-shared-b'), { inputs: [], outputs: ['img-shared'] }), { state: 'succeeded', finishedAt: hoursAgo(1) });

  // Rules 9-10: garbage.
  await seed.create(gitResource(meta('src-abc123'), 'abc123'));
  await seed.create(imageResource(meta('img-abc123'), 'abc123'));
  await seed.create(pipelineRun(version, meta('build-abc123'), { resources: ['src-abc123'] }), { state: 'succeeded', finishedAt: hoursAgo(3) });
  await seed.create(taskRun(version, meta('push-abc123'), { inputs: ['src-abc123'], outputs: ['img-abc123'] }), { state: 'failed', finishedAt: hoursAgo(2) });
  await seed.create(gitResource(meta('src-cancelled'), 'eee111'));
  await seed.create(pipelineRun(version, meta('build-cancelled'), { resources: ['src-cancelled'] }), { state: 'cancelled', finishedAt: hoursAgo(4) });
  await seed.create(gitResource(meta('src-orphan'), 'fff111'));
  await seed.create(gitResource({ ...meta('src-owner-gone'), ownerReferences: [{ apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build-gone', uid: '00000000-0000-0000-0000-000000000000' }] }, 'fff112'));
  // A run that embeds its resource (resourceSpec) and has an empty resourceRef names nothing.
  await seed.create(gitResource(meta('src-embedded'), 'fff113'));
  await seed.create(
    {
      apiVersion: `tekton.dev/${version}`,
      kind: 'PipelineRun',
      metadata: meta('build-embedded'),
      spec: { resources: [{ name: 'source', resourceRef: {}, resourceSpec: { type: 'git', params: [{ name: 'revision', value: 'fff113' }] } }] },
    },
    { state: 'running' },
  );
}

/** What rules 1-5 decide in any pass, whatever the minimum age. */
function keptWhateverTheAge(crds: CrdCase['crds']): Record<string, string> {
  return {
    'shop-ci/src-retained': 'retained kept',
    'shop-ci/src-retain-yes': 'retained kept',
    'frozen/src-frozen': 'namespace-retained kept',
    'shop-ci/src-bad-retention': 'retention-invalid kept',
    'broken/src-broken': 'unreadable-run kept',
    'shop-ci/src-running': 'referenced-by-active-run kept',
    'shop-ci/src-pending': 'referenced-by-active-run kept',
    'shop-ci/img-retrying': 'referenced-by-active-run kept',
    'shop-ci/src-child': 'referenced-by-active-run kept',
    'shop-ci/src-owned': 'referenced-by-active-run kept',
    ...(crds === 'v0.45' ? { 'shop-ci/src-v1': 'referenced-by-active-run kept' } : { 'shop-ci/src-legacy': 'referenced-by-active-run kept' }),
  };
}

const AGING = ['src-until', 'src-retain-for', 'img-shared', 'src-abc123', 'img-abc123', 'src-cancelled', 'src-orphan', 'src-owner-gone', 'src-embedded'];

for (const { crds, runVersion } of CASES) {
  describe(`collector on Tekton ${crds} CRDs (runs created as ${runVersion})`, () => {
    let controlPlane: ControlPlane;
    let seed: Seeder;

    before(async () => {
      controlPlane = await startControlPlane({ crds });
      seed = new Seeder(controlPlane.kubeConfig());
      await seedScenario(seed, runVersion, crds);
    });
    after(() => controlPlane?.stop());

    test('a dry run with min-age 1h keeps the young garbage and deletes nothing', async () => {
      const result = await runCli(['--dry-run', '--min-age', '1h', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
      assert.equal(result.code, 0, result.stderr);
      const report = reportOf(result);
      const expected = {
        ...keptWhateverTheAge(crds),
        ...Object.fromEntries(AGING.map((name) => [`shop-ci/${name}`, 'too-young kept'])),
      };
      assert.deepEqual(outcomes(report), sortedKeys(expected));
      assert.equal(report.dryRun, true);
      assert.equal(report.summary.delete, 0);
      assert.equal((await seed.remainingTargets('shop-ci')).length, Object.keys(expected).filter((key) => key.startsWith('shop-ci/')).length);
    });

    test('a dry run with min-age 0s reports what would go and still deletes nothing', async () => {
      const before = await seed.remainingTargets('shop-ci');
      const result = await runCli(['--dry-run', '--min-age', '0s', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
      assert.equal(result.code, 0, result.stderr);
      const report = reportOf(result);
      assert.equal(report.summary.results['would-delete'], 6);
      assert.deepEqual(await seed.remainingTargets('shop-ci'), before);
    });

    test('a live pass deletes exactly the targets whose runs are all finished or gone', async () => {
      const result = await runCli(['--min-age', '0s', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
      assert.equal(result.code, 0, result.stderr);
      const report = reportOf(result);
      const expected = {
        ...keptWhateverTheAge(crds),
        'shop-ci/src-until': 'retain-until kept',
        'shop-ci/src-retain-for': 'retain-for kept',
        'shop-ci/img-shared': 'retain-for kept',
        'shop-ci/src-abc123': 'runs-finished deleted',
        'shop-ci/img-abc123': 'runs-finished deleted',
        'shop-ci/src-cancelled': 'runs-finished deleted',
        'shop-ci/src-orphan': 'unreferenced deleted',
        'shop-ci/src-owner-gone': 'unreferenced deleted',
        'shop-ci/src-embedded': 'unreferenced deleted',
      };
      assert.deepEqual(outcomes(report), sortedKeys(expected));
      const abc = report.items.find((item) => item.name === 'src-abc123');
      assert.deepEqual(
        abc?.references.map((reference) => `${reference.kind}/${reference.name} ${reference.state}`),
        ['PipelineRun/build-abc123 succeeded', 'TaskRun/push-abc123 failed'],
      );
      const survivors = Object.entries(expected)
        .filter(([key, outcome]) => key.startsWith('shop-ci/') && outcome.endsWith('kept'))
        .map(([key]) => key.slice('shop-ci/'.length))
        .sort();
      assert.deepEqual(await seed.remainingTargets('shop-ci'), survivors);
      assert.deepEqual(await seed.remainingTargets('frozen'), ['src-frozen']);
      assert.deepEqual(await seed.remainingTargets('broken'), ['src-broken']);
      // One log line per deletion on stderr, JSON, and one summary line.
      const logLines = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
      assert.equal(logLines.filter((line) => line.msg === 'deleted').length, 6);
      assert.equal(logLines.filter((line) => line.msg === 'pass finished').length, 1);
    });
  });
}

function sortedKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The safe-delete rules of docs/spec.md ("Deleting safely") against a real API server: paging, objects
 * that change between listing and deleting, runs that appear during a pass, the deletion
 * cap, a cluster without PipelineResources, and an identity that may not list runs.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { DEFAULT_RETRY, KubeHttp } from '../../src/kube/http.js';
import { outcomes, reportOf, runCli } from '../support/cli.js';
import { connectionFor, passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, pipelineRun } from '../support/tekton.js';

describe('safe deletes on Tekton v0.45 CRDs', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  test('paging with --page-size 2 reads all 25 targets', async () => {
    await seed.namespace('paging');
    for (let index = 0; index < 25; index++) {
      await seed.create(gitResource({ name: `src-${String(index).padStart(2, '0')}`, namespace: 'paging' }, `rev${index}`));
    }
    const result = await runCli(['--dry-run', '--namespace', 'paging', '--page-size', '2', '--min-age', '0s', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.equal(report.items.length, 25);
    assert.deepEqual(report.summary.results, { 'would-delete': 25 });
    assert.deepEqual(report.scope, { namespaces: ['paging'], excludedNamespaces: [], selector: '' });

    // The same pass in process: 13 pages of targets prove the server paged.
    const http = await KubeHttp.create(await connectionFor(controlPlane.kubeConfig()), { maxSockets: 2, retry: DEFAULT_RETRY, requestTimeoutMs: 30_000 });
    try {
      const cluster = new KubeCluster(http, 2);
      const apis = await cluster.discover();
      assert.ok(apis !== null);
      const before = http.stats.requests;
      const targets = await cluster.listTargets(apis, { namespaces: ['paging'], excludeNamespaces: [], selector: '' });
      assert.equal(targets.length, 25);
      assert.equal(http.stats.requests - before, 13);
    } finally {
      http.close();
    }
  });

  test('a target changed between listing and deleting is reported changed and survives', async () => {
    await seed.namespace('race-changed');
    await seed.create(gitResource({ name: 'src-relabelled', namespace: 'race-changed' }, 'abc'));
    await seed.create(gitResource({ name: 'src-untouched', namespace: 'race-changed' }, 'def'));
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', 'race-changed', '--min-age', '0s'], {
      afterRunsListed: () => seed.label('PipelineResource', 'race-changed', 'src-relabelled', { 'tekton-resource-gc.io/retain': 'true' }),
    });
    assert.deepEqual(outcomes(outcome.report), {
      'race-changed/src-relabelled': 'unreferenced changed',
      'race-changed/src-untouched': 'unreferenced deleted',
    });
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(await seed.remainingTargets('race-changed'), ['src-relabelled']);
  });

  test('a run created during the pass that names a candidate saves it', async () => {
    await seed.namespace('race-new-run');
    await seed.create(gitResource({ name: 'src-claimed', namespace: 'race-new-run' }, 'abc'));
    await seed.create(gitResource({ name: 'src-free', namespace: 'race-new-run' }, 'def'));
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), ['--namespace', 'race-new-run', '--min-age', '0s'], {
      afterRunsListed: async () => {
        await seed.create(pipelineRun('v1beta1', { name: 'build-late', namespace: 'race-new-run' }, { resources: ['src-claimed'] }), { state: 'pending' });
      },
    });
    assert.deepEqual(outcomes(outcome.report), {
      'race-new-run/src-claimed': 'referenced-by-active-run kept',
      'race-new-run/src-free': 'unreferenced deleted',
    });
    const claimed = outcome.report.items.find((item) => item.name === 'src-claimed');
    assert.match(claimed?.message ?? '', /re-checking/);
    assert.deepEqual(await seed.remainingTargets('race-new-run'), ['src-claimed']);
  });

  test('a plan larger than --max-deletions deletes nothing and exits 3', async () => {
    await seed.namespace('capped');
    for (const name of ['src-a', 'src-b', 'src-c']) {
      await seed.create(gitResource({ name, namespace: 'capped' }, name));
    }
    const result = await runCli(['--namespace', 'capped', '--max-deletions', '2', '--min-age', '0s', '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.summary.results, { aborted: 3 });
    assert.match(report.errors?.[0] ?? '', /max-deletions 2/);
    assert.deepEqual(await seed.remainingTargets('capped'), ['src-a', 'src-b', 'src-c']);
  });

  test('an identity that may not list runs exits 1 naming the verb and resource, and deletes nothing', async () => {
    await seed.namespace('rbac');
    await seed.create(gitResource({ name: 'src-orphan', namespace: 'rbac' }, 'abc'));
    await controlPlane.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace: 'rbac' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'gc-without-runs' },
        rules: [
          { apiGroups: ['tekton.dev'], resources: ['pipelineresources'], verbs: ['get', 'list', 'delete'] },
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'gc-without-runs' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gc-without-runs' },
        subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: 'rbac' }],
      },
    ] as never);
    const token = await controlPlane.createServiceAccountToken('rbac', 'gc');
    const kubeconfig = path.join(controlPlane.dir, 'gc-without-runs.kubeconfig');
    await writeFile(kubeconfig, controlPlane.kubeConfig(token).exportConfig());
    const result = await runCli(['--namespace', 'rbac', '--min-age', '0s', '--output', 'json', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 1, result.stderr);
    const report = reportOf(result);
    assert.equal(report.items.length, 0);
    assert.match(report.errors?.[0] ?? '', /may not list pipelineruns\.tekton\.dev in namespace "rbac"/);
    assert.deepEqual(await seed.remainingTargets('rbac'), ['src-orphan']);
  });
  test('a live pass over 11 named namespaces re-checks each by name, within namespaced RBAC', async () => {
    // More candidate namespaces than the re-check reads one by one when all are in scope:
    // with named namespaces it must still never list across the cluster, which this
    // identity may not do.
    const namespaces = Array.from({ length: 11 }, (_, index) => `team-${String(index).padStart(2, '0')}`);
    for (const namespace of namespaces) {
      await seed.namespace(namespace);
      await seed.create(gitResource({ name: 'src-orphan', namespace }, namespace));
    }
    const rules = {
      rules: [
        { apiGroups: ['tekton.dev'], resources: ['pipelineresources'], verbs: ['get', 'list', 'delete'] },
        { apiGroups: ['tekton.dev'], resources: ['pipelineruns', 'taskruns'], verbs: ['get', 'list', 'watch'] },
      ],
    };
    const subjects = [{ kind: 'ServiceAccount', name: 'gc', namespace: 'team-00' }];
    await controlPlane.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace: 'team-00' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'gc-team-namespaces' },
        rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: namespaces, verbs: ['get'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'gc-team-namespaces' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gc-team-namespaces' },
        subjects,
      },
      ...namespaces.flatMap((namespace) => [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'gc', namespace }, ...rules },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'gc', namespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc' },
          subjects,
        },
      ]),
    ] as never);
    const token = await controlPlane.createServiceAccountToken('team-00', 'gc');
    const kubeconfig = path.join(controlPlane.dir, 'gc-teams.kubeconfig');
    await writeFile(kubeconfig, controlPlane.kubeConfig(token).exportConfig());
    const result = await runCli([...namespaces.flatMap((namespace) => ['--namespace', namespace]), '--min-age', '0s', '--output', 'json', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(reportOf(result).summary.results, { deleted: 11 });
    for (const namespace of namespaces) {
      assert.deepEqual(await seed.remainingTargets(namespace), []);
    }
  });
});

describe('a cluster without the PipelineResource CRD', () => {
  let controlPlane: ControlPlane;
  before(async () => {
    controlPlane = await startControlPlane({ crds: 'none' });
  });
  after(() => controlPlane?.stop());

  test('exits 0 with one line', async () => {
    const result = await runCli(['--kubeconfig', controlPlane.kubeconfigPath, '--output', 'json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'pipelineresources.tekton.dev/v1alpha1 is not served by this cluster: pipelineresources skipped\n');
    // A pass that found nothing to read still ends with its summary line, as every pass does.
    const finished = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as { msg?: string; served?: boolean; exitCode?: number }).filter((line) => line.msg === 'pass finished');
    assert.deepEqual(finished.map(({ served, exitCode }) => ({ served, exitCode })), [{ served: false, exitCode: 0 }]);
  });
});

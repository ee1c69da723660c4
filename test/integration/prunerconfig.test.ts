/**
 * `--pruner-config` against a real kube-apiserver (docs/spec.md, "tektoncd/pruner's
 * ConfigMaps"): tektoncd/pruner's global ConfigMap read by name in its namespace and the
 * namespace ones listed by name, page by page, in the pass's scope; the limits they give a
 * run; a missing global ConfigMap (a warning); a global one that cannot be read or that this
 * identity may not read (exit 1 in one line, nothing deleted); a namespace one that cannot be
 * read, ignored where pruner does not apply it and keeping its namespace's runs where it does
 * (exit 3, the rest collected); and the chart's Role, which grants get
 * on that one ConfigMap and list where runs are collected, as the API server enforces it.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { readPrunerConfig, prunerLimitsFor, type PrunerConfig } from '../../src/core/prunerconfig.js';
import { KubeCluster } from '../../src/kube/cluster.js';
import { KubeHttp, httpOptions } from '../../src/kube/http.js';
import type { Manifest } from '../../harness/controlplane.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { chartHelm } from '../support/helm.js';
import { configFor, connectionFor } from '../support/pass.js';
import { useControlPlane } from '../support/realserver.js';
import { statusOf } from '../support/seed.js';
import { gitResource, hoursAgo } from '../support/tekton.js';
import { V1Runs } from '../support/v1runs.js';

const SYSTEM = 'pruner-system';
const BROKEN = 'pruner-broken';
const EMPTY = 'pruner-empty';
/** A global ConfigMap at level namespace everywhere, for the namespaces below. */
const TENANTS = 'pruner-tenants';
/** At level namespace under TENANTS, with a namespace ConfigMap that does not parse; and one without. */
const TENANT_BAD = 'tenant-bad';
const TENANT_OK = 'tenant-ok';
/** At level namespace under TENANTS, with ConfigMaps whose scalars YAML 1.1 (go-yaml v2) reads otherwise than YAML 1.2. */
const YAML_OCTAL = 'yaml-octal';
const YAML_BOOL = 'yaml-bool';
const TENANT_BAD_ERROR = `--pruner-config: ConfigMap ${TENANT_BAD}/tekton-pruner-namespace-spec, key ns-config, field successfulHistoryLimit: expected a whole number from 0 to 2147483647, such as 5, found the string "many"`;
const TEAMS = ['dev', 'prod', 'web', 'outside'] as const;
const ORPHAN = 'src-orphan';
/** The namespaces `--namespace-selector shard=a` picks. */
const SHARD_A: readonly string[] = ['dev', 'web'];
const MIN_AGE_WARNING_PREFIX = '--min-age 0s is under a minute';
const NO_RUN_COLLECTOR = (namespace: string): string =>
  `--pruner-config ${namespace}: no run collector is on (pipelineruns, taskruns), so nothing applies tektoncd/pruner's policies in this pass`;

const GLOBAL_CONFIG = `enforcedConfigLevel: resource
ttlSecondsAfterFinished: 86400
historyLimit: 10
namespaces:
  dev:
    enforcedConfigLevel: namespace
    successfulHistoryLimit: 7
  prod:
    failedHistoryLimit: 20
    pipelineRuns:
      - name: release
        successfulHistoryLimit: 50
`;

const DEV_CONFIG = `ttlSecondsAfterFinished: 600
pipelineRuns:
  - selector:
    - matchLabels:
        tier: web
      matchAnnotations:
        owner: team-a
    successfulHistoryLimit: 2
`;

function configMap(namespace: string, name: string, data: Record<string, string>): Manifest {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels: { 'app.kubernetes.io/part-of': 'tekton-pruner' } }, data };
}

describe('--pruner-config on a real API server', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  const helm = chartHelm('prunerconfig');

  before(async () => {
    const { seed, controlPlane } = server;
    for (const namespace of [SYSTEM, BROKEN, EMPTY, TENANTS, TENANT_BAD, TENANT_OK, YAML_OCTAL, YAML_BOOL, ...TEAMS]) await seed.namespace(namespace, SHARD_A.includes(namespace) ? { shard: 'a' } : {});
    for (const namespace of TEAMS) await seed.create(gitResource({ name: ORPHAN, namespace }, 'orphan'));
    await controlPlane.apply([
      configMap(SYSTEM, 'tekton-pruner-default-spec', { 'global-config': GLOBAL_CONFIG }),
      // Another ConfigMap in the pruner's namespace: never read.
      configMap(SYSTEM, 'config-logging', { 'global-config': 'not: [pruner' }),
      configMap('dev', 'tekton-pruner-namespace-spec', { 'ns-config': DEV_CONFIG }),
      // A namespace ConfigMap the level never reaches (prod is at level resource): not read, and warned about.
      configMap('prod', 'tekton-pruner-namespace-spec', { 'ns-config': 'historyLimit: 1' }),
      configMap('web', 'tekton-pruner-namespace-spec', { 'ns-config': '' }),
      // Another name in a collected namespace: not listed.
      configMap('web', 'tekton-pruner-namespace-spec-old', { 'ns-config': 'broken: [' }),
      // An unreadable namespace ConfigMap at level resource (under SYSTEM): pruner never reads it.
      configMap('outside', 'tekton-pruner-namespace-spec', { 'ns-config': 'succesfulHistoryLimit: 3' }),
      configMap(BROKEN, 'tekton-pruner-default-spec', { 'global-config': 'historyLimit: [5\nnamespaces: {}\n' }),
      configMap(TENANTS, 'tekton-pruner-default-spec', { 'global-config': 'enforcedConfigLevel: namespace\nsuccessfulHistoryLimit: 1\n' }),
      configMap(TENANT_BAD, 'tekton-pruner-namespace-spec', { 'ns-config': 'successfulHistoryLimit: many\n' }),
      // 010 is 8 to pruner (go-yaml v2: strconv.ParseInt base 0), 10 to YAML 1.2.
      configMap(YAML_OCTAL, 'tekton-pruner-namespace-spec', { 'ns-config': 'successfulHistoryLimit: 010\n' }),
      // yes is true to pruner, so the selector is enabled=true; "yes" to YAML 1.2, which selects nothing here.
      configMap(YAML_BOOL, 'tekton-pruner-namespace-spec', { 'ns-config': 'successfulHistoryLimit: 5\npipelineRuns:\n  - selector: [{matchLabels: {enabled: yes}}]\n    successfulHistoryLimit: 2\n' }),
    ]);
  });

  /** What the adapter reads with `scope`, in pages of one ConfigMap. */
  async function readThrough(systemNamespace: string, scope: { namespaces: string[]; excludeNamespaces: string[]; namespaceSelector?: string }): Promise<{ config: PrunerConfig; warnings: string[]; requests: number }> {
    const config = configFor(['--page-size', '1']);
    const http = await KubeHttp.create(await connectionFor(server.controlPlane.kubeConfig()), httpOptions(config));
    try {
      const maps = await new KubeCluster(http, 1).readPrunerConfigMaps(systemNamespace, { ...scope, selector: '' });
      const read = readPrunerConfig(maps);
      if (!read.ok) assert.fail(read.error);
      return { config: read.config, warnings: read.warnings, requests: http.stats.requests };
    } finally {
      http.close();
    }
  }

  test('reads the global ConfigMap by name and every namespace one across the cluster, page by page, less the excluded namespaces', async () => {
    const { config, warnings, requests } = await readThrough(SYSTEM, { namespaces: [], excludeNamespaces: ['outside', TENANT_BAD, YAML_OCTAL, YAML_BOOL] });
    assert.equal(config.globalFound, true);
    // Listed, all three; parsed, only dev's: prod and web are at level resource, where pruner never reads theirs.
    assert.deepEqual([...config.namespaces.keys()], ['dev']);
    // One GET, three pages of one ConfigMap each, and an empty last one: behind a field
    // selector the API server cannot tell that a full page was the last.
    assert.equal(requests, 5);
    assert.deepEqual(warnings, [
      "--pruner-config: ConfigMap prod/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace prod is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
      "--pruner-config: ConfigMap web/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace web is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
    ]);
    const limits = (namespace: string, labels: Record<string, string>, annotations: Record<string, string> = {}): [number | undefined, number | undefined, number | undefined] => {
      const found = prunerLimitsFor(config, { kind: 'PipelineRun', namespace, name: 'run-1', labels, annotations });
      return [found.successfulHistoryLimit?.value, found.failedHistoryLimit?.value, found.ttlSecondsAfterFinished?.value];
    };
    // dev is at level namespace: its own ConfigMap's selector, then its ttl, then the global entry for dev.
    assert.deepEqual(limits('dev', { tier: 'web' }, { owner: 'team-a' }), [2, undefined, 600]);
    assert.deepEqual(limits('dev', { tier: 'web' }), [7, undefined, 600]);
    // prod at level resource: the global ConfigMap's entry by name, then prod's own fields alone.
    assert.deepEqual(limits('prod', { 'tekton.dev/pipeline': 'release' }), [50, 20, undefined]);
    assert.deepEqual(limits('prod', { 'tekton.dev/pipeline': 'test' }), [undefined, 20, undefined]);
    assert.deepEqual(limits('web', {}), [10, 10, 86400]);
  });

  test('named namespaces: one list per namespace, and only there', async () => {
    const { config, warnings } = await readThrough(SYSTEM, { namespaces: ['dev', 'web', 'outside'], excludeNamespaces: ['outside'] });
    assert.deepEqual([...config.namespaces.keys()], ['dev']);
    assert.deepEqual(warnings.map((line) => /ConfigMap (\S+)\/tekton-pruner-namespace-spec: not applied/.exec(line)?.[1]), ['web']);
  });

  test("a namespace selector: only the ConfigMaps of the namespaces it selects, so a shard never fails on another's", async () => {
    const { config, warnings } = await readThrough(SYSTEM, { namespaces: [], excludeNamespaces: [], namespaceSelector: 'shard=a' });
    // dev's parsed; web's listed, and not applied at its level resource; no other namespace's read.
    assert.deepEqual([...config.namespaces.keys()], ['dev']);
    assert.deepEqual(warnings.map((line) => /ConfigMap (\S+)\/tekton-pruner-namespace-spec: not applied/.exec(line)?.[1]), ['web']);
    const result = await pass(['--dry-run', '--namespace-selector', 'shard=a', '--pruner-config', SYSTEM]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(reportOf(result).items.map((item) => item.namespace), [...SHARD_A]);
  });

  function pass(args: readonly string[], kubeconfig = server.controlPlane.kubeconfigPath): Promise<CliResult> {
    return runCli(['--kubeconfig', kubeconfig, '--output', 'json', '--min-age', '0s', ...args]);
  }

  async function exists(namespace: string): Promise<boolean> {
    try {
      await server.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'tekton.dev', version: 'v1alpha1', namespace, plural: 'pipelineresources', name: ORPHAN });
      return true;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return false;
      throw error;
    }
  }

  test('a pass reads them and says that no run collector applies them; the rest of the pass is as without', async () => {
    const result = await pass(['--dry-run', '--namespace', 'web', '--pruner-config', SYSTEM]);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.warnings?.filter((line) => !line.startsWith(MIN_AGE_WARNING_PREFIX)), [
      "--pruner-config: ConfigMap web/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace web is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
      NO_RUN_COLLECTOR(SYSTEM),
    ]);
    assert.deepEqual(report.items.map((item) => `${item.namespace}/${item.name} ${item.action}`), [`web/${ORPHAN} delete`]);
  });

  test('without the global ConfigMap: an empty policy and a warning, and the pass goes on', async () => {
    const result = await pass(['--dry-run', '--namespace', 'web', '--pruner-config', EMPTY]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(reportOf(result).warnings?.filter((line) => !line.startsWith(MIN_AGE_WARNING_PREFIX)), [
      `--pruner-config: there is no ConfigMap tekton-pruner-default-spec in namespace ${EMPTY}: no tektoncd/pruner policy applies (tektoncd/pruner's own controller does not start without it)`,
      "--pruner-config: ConfigMap web/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace web is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
      NO_RUN_COLLECTOR(EMPTY),
    ]);
  });

  test('a global ConfigMap that does not parse: a live pass ends with exit 1 in one line, before anything is listed, and deletes nothing', async () => {
    const result = await pass(['--dry-run=false', '--namespace', 'prod', '--pruner-config', BROKEN]);
    assert.equal(result.code, 1, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.errors, [
      `--pruner-config: ConfigMap ${BROKEN}/tekton-pruner-default-spec, key global-config: not YAML: missed comma between flow collection entries at line 2, column 1`,
    ]);
    assert.deepEqual(report.items, []);
    assert.equal(await exists('prod'), true);
  });

  test('a namespace ConfigMap that does not parse where its level is not namespace: not read, a warning, and the pass collects as usual (issue 42, 9)', async () => {
    // Before issue 42 this ended the pass with exit 1 and deleted nothing: any tenant could stop collection.
    const result = await pass(['--dry-run=false', '--namespace', 'outside', '--pruner-config', SYSTEM]);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.equal(report.errors, undefined);
    assert.equal(report.unreadablePrunerConfigMaps, undefined);
    assert.deepEqual(report.warnings?.filter((line) => !line.startsWith(MIN_AGE_WARNING_PREFIX)), [
      "--pruner-config: ConfigMap outside/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace outside is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
      NO_RUN_COLLECTOR(SYSTEM),
    ]);
    assert.deepEqual(report.items.map((item) => `${item.namespace}/${item.name} ${item.result}`), [`outside/${ORPHAN} deleted`]);
    assert.equal(await exists('outside'), false);
  });

  test("one that does not parse where its level is namespace: that namespace's runs kept, naming it, another's collected, exit 3, in the report and explain (issue 42, 9)", async () => {
    const runs = new V1Runs(server.controlPlane.kubeConfig());
    // build-1 created a second before build-2, so that it is the older by creation (pruner's order) as by completion.
    for (const namespace of [TENANT_BAD, TENANT_OK]) await runs.create(namespace, 'build-1', { state: 'succeeded', finishedAt: hoursAgo(3) });
    await nextSecond();
    for (const namespace of [TENANT_BAD, TENANT_OK]) await runs.create(namespace, 'build-2', { state: 'succeeded', finishedAt: hoursAgo(2) });
    const args = ['--namespace', `${TENANT_BAD},${TENANT_OK}`, '--collect', 'pipelineruns', '--pruner-config', TENANTS];
    // A dry run says the same, with exit 3: that namespace's policy was not applied.
    const dry = await pass(['--dry-run', ...args]);
    assert.equal(dry.code, 3, dry.stderr);
    assert.deepEqual(
      reportOf(dry).items.map((item) => `${item.namespace}/${item.name} ${item.result}`),
      [`${TENANT_BAD}/build-1 kept`, `${TENANT_BAD}/build-2 kept`, `${TENANT_OK}/build-1 would-delete`, `${TENANT_OK}/build-2 kept`],
    );
    const result = await pass(['--dry-run=false', ...args]);
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.equal(report.errors, undefined);
    assert.deepEqual(report.unreadablePrunerConfigMaps, [{ namespace: TENANT_BAD, name: 'tekton-pruner-namespace-spec', error: TENANT_BAD_ERROR }]);
    assert.ok(report.warnings?.includes(`${TENANT_BAD_ERROR}; the runs of namespace ${TENANT_BAD} are kept (retention-invalid) until it is fixed`), JSON.stringify(report.warnings));
    assert.deepEqual(
      report.items.map((item) => `${item.namespace}/${item.name} ${item.reason} ${item.result}`),
      [`${TENANT_BAD}/build-1 retention-invalid kept`, `${TENANT_BAD}/build-2 retention-invalid kept`, `${TENANT_OK}/build-1 history-exceeded deleted`, `${TENANT_OK}/build-2 history-kept kept`],
    );
    assert.equal(report.items.find((item) => item.namespace === TENANT_BAD)?.message, TENANT_BAD_ERROR);
    assert.deepEqual(await runs.names(TENANT_BAD), ['build-1', 'build-2']);
    assert.deepEqual(await runs.names(TENANT_OK), ['build-2']);
    // explain says the same of a run there.
    const explained = await runCli(['explain', `pipelinerun/${TENANT_BAD}/build-1`, '--kubeconfig', server.controlPlane.kubeconfigPath, '--min-age', '0s', '--pruner-config', TENANTS, '--output', 'json']);
    assert.equal(explained.code, 0, explained.stderr);
    const explanation = JSON.parse(explained.stdout) as { decision: { reason: string; message: string } };
    assert.deepEqual(explanation.decision, { ...explanation.decision, reason: 'retention-invalid', message: TENANT_BAD_ERROR });
  });

  test('the ConfigMaps read as pruner reads YAML: 010 is 8, a selector {enabled: yes} selects enabled=true (issue 42, 5)', async () => {
    // Before issue 42 (js-yaml's YAML 1.2 core schema) the limit was 10 and the selector matched
    // no run, so every run here was kept where pruner deletes the oldest.
    const runs = new V1Runs(server.controlPlane.kubeConfig());
    // Created oldest first, so that the oldest is the same by creation (pruner's order) and by completion.
    for (let hours = 9; hours >= 1; hours--) await runs.create(YAML_OCTAL, `octal-${hours}`, { state: 'succeeded', finishedAt: hoursAgo(hours) });
    for (let hours = 3; hours >= 1; hours--) await runs.create(YAML_BOOL, `bool-${hours}`, { state: 'succeeded', finishedAt: hoursAgo(hours) }, { labels: { 'tekton.dev/pipeline': 'build', enabled: 'true' } });
    const result = await pass(['--dry-run', '--namespace', `${YAML_OCTAL},${YAML_BOOL}`, '--collect', 'pipelineruns', '--pruner-config', TENANTS]);
    assert.equal(result.code, 0, result.stderr);
    const deleted = reportOf(result).items.filter((item) => item.action === 'delete').map((item) => `${item.namespace}/${item.name} ${item.reason}`);
    assert.deepEqual(deleted, [`${YAML_BOOL}/bool-3 history-exceeded`, `${YAML_OCTAL}/octal-9 history-exceeded`]);
  });

  describe('RBAC', () => {
    const NS = 'dev';
    let kubeconfig: string;

    before(async () => {
      const { controlPlane } = server;
      await controlPlane.apply([
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace: NS } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'gc', namespace: NS },
          rules: [
            { apiGroups: ['tekton.dev'], resources: ['pipelineresources'], verbs: ['get', 'list'] },
            { apiGroups: ['tekton.dev'], resources: ['pipelineruns', 'taskruns'], verbs: ['get', 'list'] },
          ],
        },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'gc', namespace: NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: NS }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-prunerconfig-ns' }, rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [NS], verbs: ['get'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'gc-prunerconfig-ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gc-prunerconfig-ns' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: NS }] },
      ]);
      const token = await controlPlane.createServiceAccountToken(NS, 'gc');
      kubeconfig = path.join(controlPlane.dir, 'kubeconfig-gc');
      await writeFile(kubeconfig, controlPlane.kubeConfig(token).exportConfig(), { mode: 0o600 });
    });

    test('an identity that may not get the global ConfigMap: exit 1 in one line naming the rule to grant', async () => {
      const result = await pass(['--dry-run', '--namespace', NS, '--pruner-config', SYSTEM], kubeconfig);
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(reportOf(result).errors, [
        `--pruner-config: forbidden to read ConfigMap ${SYSTEM}/tekton-pruner-default-spec: grant "get" on configmaps named tekton-pruner-default-spec in namespace ${SYSTEM}`,
      ]);
    });

    test('one that may get it but not list ConfigMaps where it collects: exit 1 naming list', async () => {
      await server.controlPlane.apply([
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'gc-pruner', namespace: SYSTEM }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['tekton-pruner-default-spec'], verbs: ['get'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'gc-pruner', namespace: SYSTEM }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc-pruner' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: NS }] },
      ]);
      const result = await pass(['--dry-run', '--namespace', NS, '--pruner-config', SYSTEM], kubeconfig);
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(reportOf(result).errors, [
        `--pruner-config: forbidden to list ConfigMaps tekton-pruner-namespace-spec in namespace ${NS}: grant "list" on configmaps in namespace ${NS} (a list cannot be limited to one name by RBAC)`,
      ]);
    });
  });

  test("the chart's RBAC: its ServiceAccount reads both ConfigMaps, and no other ConfigMap of the pruner's namespace", async () => {
    const { controlPlane } = server;
    const release = 'trgc';
    await server.seed.namespace(release);
    const objects = await helm.render<Manifest>([{ prunerConfig: SYSTEM, namespaces: ['web', 'dev'] }], { namespace: release });
    const rbacKinds = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);
    const rbac = objects.filter((object) => rbacKinds.has(object.kind ?? ''));
    assert.ok(rbac.some((object) => object.kind === 'Role' && object.metadata?.namespace === SYSTEM), 'a Role in the pruner namespace');
    await controlPlane.apply(rbac);
    const serviceAccount = rbac.find((object) => object.kind === 'ServiceAccount')?.metadata?.name ?? '';
    const token = await controlPlane.createServiceAccountToken(release, serviceAccount);
    const kubeconfig = path.join(controlPlane.dir, 'kubeconfig-chart');
    await writeFile(kubeconfig, controlPlane.kubeConfig(token).exportConfig(), { mode: 0o600 });

    const result = await pass(['--dry-run', '--namespace', 'web,dev', '--pruner-config', SYSTEM], kubeconfig);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(reportOf(result).warnings?.filter((line) => !line.startsWith(MIN_AGE_WARNING_PREFIX)), [
      "--pruner-config: ConfigMap web/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace web is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
      NO_RUN_COLLECTOR(SYSTEM),
    ]);

    const core = controlPlane.kubeConfig(token).makeApiClient(CoreV1Api);
    assert.equal(await statusOf(core.readNamespacedConfigMap({ namespace: SYSTEM, name: 'tekton-pruner-default-spec' })), 200);
    assert.equal(await statusOf(core.readNamespacedConfigMap({ namespace: SYSTEM, name: 'config-logging' })), 403);
    assert.equal(await statusOf(core.listNamespacedConfigMap({ namespace: SYSTEM })), 403);
    assert.equal(await statusOf(core.listNamespacedConfigMap({ namespace: 'web' })), 200);
    assert.equal(await statusOf(core.listNamespacedConfigMap({ namespace: 'outside' })), 403);
    // Across the cluster it lists nothing: a pass of every namespace needs the release of every namespace.
    assert.equal(await statusOf(core.listConfigMapForAllNamespaces()), 403);
  });

  test("explain of a run decides it with pruner's limits, as a pass with --pruner-config does; another kind refuses the flag", async () => {
    const runs = new V1Runs(server.controlPlane.kubeConfig());
    // dev is at level namespace: its own ConfigMap keeps 2 successes of what it selects, newest
    // by creation: web-3 first, a second apart (creationTimestamp has whole seconds), so that
    // web-1 is the newest by creation as by completion.
    const selected = { labels: { 'tekton.dev/pipeline': 'build', tier: 'web' }, annotations: { owner: 'team-a' } };
    for (const [name, hours] of [['web-3', 3], ['web-2', 2], ['web-1', 1]] as const) {
      await runs.create('dev', name, { state: 'succeeded', finishedAt: hoursAgo(hours) }, selected);
      await nextSecond();
    }
    const explained = await runCli(['explain', 'pipelinerun/dev/web-3', '--kubeconfig', server.controlPlane.kubeconfigPath, '--min-age', '0s', '--pruner-config', SYSTEM, '--output', 'json']);
    assert.equal(explained.code, 0, explained.stderr);
    const explanation = JSON.parse(explained.stdout) as { decision: { reason: string; message: string } };
    assert.equal(explanation.decision.reason, 'history-exceeded');
    assert.match(explanation.decision.message, /3rd newest of 3 succeeded runs by creation among .*keeps 2/);
    // The pass agrees.
    const dry = await pass(['--dry-run', '--namespace', 'dev', '--collect', 'pipelineruns', '--pruner-config', SYSTEM]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(reportOf(dry).items.map((item) => `${item.name} ${item.reason}`), ['web-1 history-kept', 'web-2 history-kept', 'web-3 history-exceeded']);
    // Without it, no limit applies: the run is kept.
    const without = await runCli(['explain', 'pipelinerun/dev/web-3', '--kubeconfig', server.controlPlane.kubeconfigPath, '--min-age', '0s', '--output', 'json']);
    assert.equal((JSON.parse(without.stdout) as { decision: { reason: string } }).decision.reason, 'no-run-policy');
    const refused = await runCli(['explain', `pvc/dev/${ORPHAN}`, '--kubeconfig', server.controlPlane.kubeconfigPath, '--pruner-config', SYSTEM]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr.trim(), /^tekton-resource-gc: --pruner-config: tektoncd\/pruner's policies decide only runs, explained as pipelinerun\/NAMESPACE\/NAME or taskrun\/NAMESPACE\/NAME/);
  });

  describe("each of pruner's limits counts the runs pruner counts for it, newest by creation (issue 42)", () => {
    const RANK_SYSTEM = 'pruner-rank';
    const SELECTED = 'rank-selector';
    const NAMED = 'rank-name';
    const ORDER = 'rank-order';
    const EMPTY_SELECTOR = 'rank-empty-selector';
    const runs = (): V1Runs => new V1Runs(server.controlPlane.kubeConfig());

    before(async () => {
      for (const namespace of [RANK_SYSTEM, SELECTED, NAMED, ORDER, EMPTY_SELECTOR]) await server.seed.namespace(namespace);
      await server.controlPlane.apply([
        configMap(RANK_SYSTEM, 'tekton-pruner-default-spec', { 'global-config': 'enforcedConfigLevel: namespace\n' }),
        configMap(SELECTED, 'tekton-pruner-namespace-spec', { 'ns-config': 'pipelineRuns:\n  - selector: [{matchLabels: {env: prod}}]\n    successfulHistoryLimit: 2\n' }),
        configMap(NAMED, 'tekton-pruner-namespace-spec', { 'ns-config': 'pipelineRuns:\n  - name: web\n    successfulHistoryLimit: 1\n' }),
        configMap(ORDER, 'tekton-pruner-namespace-spec', { 'ns-config': 'pipelineRuns:\n  - name: build\n    successfulHistoryLimit: 1\n' }),
        configMap(EMPTY_SELECTOR, 'tekton-pruner-namespace-spec', { 'ns-config': 'successfulHistoryLimit: 1\ntaskRuns:\n  - selector: [{}]\n    successfulHistoryLimit: 10\n' }),
      ]);
    });

    /** A live pass of the run collectors in `namespace` with pruner-rank's ConfigMaps: each run's reason, and the runs left. */
    async function collect(namespace: string, kind: 'PipelineRun' | 'TaskRun' = 'PipelineRun'): Promise<{ reasons: Record<string, string>; left: string[] }> {
      const result = await pass(['--dry-run=false', '--namespace', namespace, '--collect', kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns', '--pruner-config', RANK_SYSTEM]);
      assert.equal(result.code, 0, result.stderr);
      return { reasons: Object.fromEntries(reportOf(result).items.map((item) => [item.name, item.reason])), left: await runs().names(namespace, kind) };
    }

    test("a selector's limit: both prod runs stay, though the Pipeline's group has four newer or older", async () => {
      const deploy = (env: string): { labels: Record<string, string> } => ({ labels: { 'tekton.dev/pipeline': 'deploy', env } });
      // Oldest first.
      for (const [name, env, hours] of [['deploy-prod-1', 'prod', 4], ['deploy-dev-1', 'dev', 3], ['deploy-dev-2', 'dev', 2], ['deploy-prod-2', 'prod', 1]] as const) {
        await runs().create(SELECTED, name, { state: 'succeeded', finishedAt: hoursAgo(hours) }, deploy(env));
        await nextSecond();
      }
      const explained = await runCli(['explain', `pipelinerun/${SELECTED}/deploy-prod-1`, '--kubeconfig', server.controlPlane.kubeconfigPath, '--min-age', '0s', '--pruner-config', RANK_SYSTEM, '--output', 'json']);
      assert.equal(explained.code, 0, explained.stderr);
      const explanation = JSON.parse(explained.stdout) as { decision: { reason: string }; run: { rank: number; ofOutcome: number; countedAmong: string } };
      assert.equal(explanation.decision.reason, 'history-kept');
      assert.deepEqual([explanation.run.rank, explanation.run.ofOutcome, explanation.run.countedAmong], [2, 2, `the PipelineRuns of namespace ${SELECTED} that selector labels env=prod matches`]);
      const { reasons, left } = await collect(SELECTED);
      assert.deepEqual(reasons, { 'deploy-dev-1': 'no-run-policy', 'deploy-dev-2': 'no-run-policy', 'deploy-prod-1': 'history-kept', 'deploy-prod-2': 'history-kept' });
      assert.deepEqual(left, ['deploy-dev-1', 'deploy-dev-2', 'deploy-prod-1', 'deploy-prod-2']);
    });

    test('a name limit counts the runs labelled <labelKey>=<name>, the key pruner.tekton.dev/resourceNameLabelKey names', async () => {
      const byApp = (app: string): { labels: Record<string, string>; annotations: Record<string, string> } => ({ labels: { 'tekton.dev/pipeline': 'build', app }, annotations: { 'pruner.tekton.dev/resourceNameLabelKey': 'app' } });
      await runs().create(NAMED, 'web-1', { state: 'succeeded', finishedAt: hoursAgo(2) }, byApp('web'));
      await nextSecond();
      await runs().create(NAMED, 'api-1', { state: 'succeeded', finishedAt: hoursAgo(1) }, byApp('api'));
      const { reasons, left } = await collect(NAMED);
      assert.deepEqual(reasons, { 'api-1': 'no-run-policy', 'web-1': 'history-kept' });
      assert.deepEqual(left, ['api-1', 'web-1']);
    });

    test('newest by creation: the run created last stays, though another finished after it', async () => {
      await runs().create(ORDER, 'build-long', { state: 'succeeded', finishedAt: hoursAgo(1) });
      await nextSecond();
      await runs().create(ORDER, 'build-short', { state: 'succeeded', finishedAt: hoursAgo(2) });
      const { reasons, left } = await collect(ORDER);
      assert.deepEqual(reasons, { 'build-long': 'history-exceeded', 'build-short': 'history-kept' });
      assert.deepEqual(left, ['build-short']);
    });

    test('an empty selector matches a TaskRun whose only label is app.kubernetes.io/managed-by: its limit of 10 applies, not the namespace one of 1', async () => {
      for (const [name, hours] of [['t-1', 2], ['t-2', 1]] as const) {
        await runs().create(EMPTY_SELECTOR, name, { state: 'succeeded', finishedAt: hoursAgo(hours) }, { kind: 'TaskRun', labels: { 'app.kubernetes.io/managed-by': 'tekton-pipelines' } });
        await nextSecond();
      }
      const { reasons, left } = await collect(EMPTY_SELECTOR, 'TaskRun');
      assert.deepEqual(reasons, { 't-1': 'history-kept', 't-2': 'history-kept' });
      assert.deepEqual(left, ['t-1', 't-2']);
    });
  });
});

/** Waits into the next second: creationTimestamp has whole seconds, and runs created in one second are ranked by name. */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
}

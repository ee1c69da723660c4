/**
 * The chart's `prunerConfig` as `helm template` renders it: `--pruner-config` on the
 * container, `get` on tektoncd/pruner's global ConfigMap alone (a Role in its namespace), and
 * `list` on ConfigMaps where runs are collected. What the API server makes of these rules:
 * test/integration/prunerconfig.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ClusterRole, V1CronJob, V1Pod, V1PolicyRule, V1Role, V1RoleBinding } from '@kubernetes/client-node';
import { chartHelm, type Values } from '../support/helm.js';
type Manifest = { kind: string; metadata: { name: string; namespace?: string } } & Record<string, unknown>;

const helm = chartHelm('chart-prunerconfig');
const render = (values: Values = {}): Promise<Manifest[]> => helm.render<Manifest>([values]);

function rulesOf(rules: V1PolicyRule[] | undefined): string[] {
  return (rules ?? []).map((rule) => `${(rule.apiGroups ?? []).join(',')} ${(rule.resources ?? []).join(',')} [${(rule.resourceNames ?? []).join(',')}] ${rule.verbs.join(',')}`).sort();
}

function named(objects: Manifest[], kind: string, name: string): Manifest | undefined {
  return objects.find((object) => object.kind === kind && object.metadata.name === name);
}

const LIST_CONFIGMAPS = ' configmaps [] list';
const GET_GLOBAL = ' configmaps [tekton-pruner-default-spec] get';
const PRUNER_ROLE = 'gc-tekton-resource-gc-pruner-config';

function argsOf(objects: Manifest[]): { cronJob: unknown; testPod: unknown } {
  const cronJob = objects.find((object) => object.kind === 'CronJob') as V1CronJob | undefined;
  const pod = objects.find((object) => object.kind === 'Pod') as V1Pod | undefined;
  return { cronJob: cronJob?.spec?.jobTemplate.spec?.template.spec?.containers[0]?.args, testPod: pod?.spec?.containers[0]?.args };
}

describe('prunerConfig', () => {
  it('unset: no flag, no rule on ConfigMaps, no Role of its own', async () => {
    const objects = await render({});
    assert.deepEqual(argsOf(objects), { cronJob: ['run'], testPod: ['run'] });
    for (const object of objects.filter((each) => each.kind === 'ClusterRole' || each.kind === 'Role')) {
      assert.ok(!rulesOf((object as V1ClusterRole).rules).some((rule) => rule.includes('configmaps')), `${object.kind} ${object.metadata.name}`);
    }
    assert.equal(named(objects, 'Role', PRUNER_ROLE), undefined);
  });

  it('every namespace: --pruner-config, get on the one ConfigMap in its namespace, list on ConfigMaps cluster-wide', async () => {
    const objects = await render({ prunerConfig: 'tekton-pipelines' });
    assert.deepEqual(argsOf(objects), { cronJob: ['run', '--pruner-config=tekton-pipelines'], testPod: ['run', '--pruner-config=tekton-pipelines'] });
    const role = named(objects, 'Role', PRUNER_ROLE) as V1Role | undefined;
    assert.equal(role?.metadata?.namespace, 'tekton-pipelines');
    assert.deepEqual(rulesOf(role?.rules), [GET_GLOBAL]);
    const binding = named(objects, 'RoleBinding', PRUNER_ROLE) as V1RoleBinding | undefined;
    assert.equal(binding?.metadata?.namespace, 'tekton-pipelines');
    assert.deepEqual(binding?.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: PRUNER_ROLE });
    assert.deepEqual(binding?.subjects, [{ kind: 'ServiceAccount', name: 'gc-tekton-resource-gc', namespace: 'trgc-system' }]);
    const clusterRole = objects.find((object) => object.kind === 'ClusterRole') as V1ClusterRole;
    assert.ok(rulesOf(clusterRole.rules).includes(LIST_CONFIGMAPS));
    assert.ok(!rulesOf(clusterRole.rules).some((rule) => rule.includes('configmaps') && rule !== LIST_CONFIGMAPS), 'nothing but list on ConfigMaps cluster-wide');
  });

  it('named namespaces: list on ConfigMaps in each Role only, get on the global one in its namespace', async () => {
    const objects = await render({ prunerConfig: 'pruner', namespaces: ['team-a', 'team-b'] });
    for (const namespace of ['team-a', 'team-b']) {
      const role = objects.find((object) => object.kind === 'Role' && object.metadata.namespace === namespace) as V1Role;
      assert.ok(rulesOf(role.rules).includes(LIST_CONFIGMAPS), namespace);
    }
    const clusterRoles = objects.filter((object) => object.kind === 'ClusterRole') as V1ClusterRole[];
    assert.ok(clusterRoles.every((role) => !rulesOf(role.rules).some((rule) => rule.includes('configmaps'))));
    assert.deepEqual(rulesOf((named(objects, 'Role', PRUNER_ROLE) as V1Role).rules), [GET_GLOBAL]);
    assert.equal(named(objects, 'Role', PRUNER_ROLE)?.metadata.namespace, 'pruner');
  });

  it('apply mode passes it after the plan', async () => {
    const objects = await render({ dryRun: false, prunerConfig: 'tekton-pipelines', planConfigMap: 'reviewed-plan' });
    assert.deepEqual(argsOf(objects).cronJob, ['apply', '/etc/tekton-resource-gc/plan/plan.json', '--pruner-config=tekton-pipelines']);
  });

  it('rbac.create false: no Role, the flag still passed', async () => {
    const objects = await render({ prunerConfig: 'tekton-pipelines', rbac: { create: false } });
    assert.equal(named(objects, 'Role', PRUNER_ROLE), undefined);
    assert.deepEqual(argsOf(objects).cronJob, ['run', '--pruner-config=tekton-pipelines']);
  });

  for (const bad of ['Tekton-Pipelines', 'tekton_pipelines', 'a'.repeat(64)]) {
    it(`refuses ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 20)}…` : bad)}, which is no namespace name`, async () => {
      const exit = await helm.template([{ prunerConfig: bad }], { namespace: 'trgc-system' });
      assert.notEqual(exit.code, 0, exit.stdout);
      assert.match(exit.stderr, /prunerConfig/);
    });
  }

  it('refuses an extraEnv that sets TRGC_PRUNER_CONFIG behind the RBAC', async () => {
    const exit = await helm.template([{ extraEnv: [{ name: 'TRGC_PRUNER_CONFIG', value: 'tekton-pipelines' }] }], { namespace: 'trgc-system' });
    assert.notEqual(exit.code, 0, exit.stdout);
    assert.match(exit.stderr, /extraEnv: TRGC_PRUNER_CONFIG is the chart's own variable for a setting; set the setting's value instead/);
  });
});

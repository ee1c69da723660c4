/**
 * The chart on OpenShift, as `helm template` renders it, without a cluster: with the uid and
 * gid left to the restricted-v2 SecurityContextConstraints (the values docs/install.md
 * gives, as a values file and as `--set`), every pod the chart renders (each CronJob's, one
 * per shard, and the `helm test` pod), in every mode (dry run, live, a plan, named
 * namespaces, shards), fixes no uid or gid and still passes the checks of restricted-v2 and
 * of the restricted Pod Security Standard. What the API server admits as "restricted":
 * test/integration/chart.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { chartHelm, type Values } from '../support/helm.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Json = Record<string, unknown>;

/** The values docs/install.md gives for OpenShift ("OpenShift"), and the same as `--set`. */
const OPENSHIFT: Values = { podSecurityContext: { runAsUser: null, runAsGroup: null } };
const OPENSHIFT_SET = ['--set', 'podSecurityContext.runAsUser=null', '--set', 'podSecurityContext.runAsGroup=null'];

/**
 * An OpenShift overlay over values that fix a uid and gid everywhere (`-f base.yaml -f
 * openshift.yaml`): every uid and gid set to null, including keys the chart's defaults lack,
 * which Helm does not delete but passes on as null.
 */
const FIXED_EVERYWHERE: Values = {
  podSecurityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
  securityContext: { runAsUser: 1000, runAsGroup: 1000 },
};
const OPENSHIFT_OVERLAY: Values = {
  podSecurityContext: { runAsUser: null, runAsGroup: null, fsGroup: null },
  securityContext: { runAsUser: null, runAsGroup: null },
};

/** Every mode that changes the pod the chart renders. */
const MODES: readonly [string, Values][] = [
  ['a dry run of every namespace (the default)', {}],
  ['a live release', { dryRun: false }],
  ['a live release in named namespaces applying a plan', { dryRun: false, namespaces: ['team-a', 'team-b'], planConfigMap: 'reviewed-plan' }],
  ['a dry run in named namespaces', { namespaces: ['team-a'] }],
  ['shards, every collector', { shards: [{ name: 'a', namespaceSelector: 'shard=a' }, { name: 'b', namespaceSelector: 'shard=b', schedule: '47 * * * *' }], collect: ['pipelineresources', 'workspace-pvcs', 'affinity-assistants', 'pac-secrets'] }],
];

const helm = chartHelm('chart-openshift');

/** `helm template` with each values object as a file of its own, in order (JSON keeps null), then `extra`. */
const renderYaml = (valueFiles: readonly Values[], extra: readonly string[] = []): Promise<string> => helm.renderYaml(valueFiles, { extra });
const render = (valueFiles: readonly Values[], extra: readonly string[] = []): Promise<Json[]> => helm.render<Json>(valueFiles, { extra });

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every pod spec in a rendered object, wherever it sits (a Pod's spec, a CronJob's job
 * template, any other template): every object that has a `containers` list, with its path.
 */
export function podSpecs(value: unknown, where = ''): [string, Json][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => podSpecs(item, `${where}[${index}]`));
  if (!isObject(value)) return [];
  const found: [string, Json][] = Array.isArray(value.containers) ? [[where, value]] : [];
  for (const [key, child] of Object.entries(value)) found.push(...podSpecs(child, `${where}.${key}`));
  return found;
}

/** Volume sources restricted-v2 allows (and the restricted Pod Security Standard). */
const ALLOWED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

/**
 * What OpenShift's restricted-v2 SecurityContextConstraints, or the restricted Pod Security
 * Standard, would hold against one pod spec, one line each; none: it passes. A uid or gid is
 * the namespace's to assign, so the spec names none at all, not even as null.
 */
export function restrictedV2Violations(spec: Json): string[] {
  const violations: string[] = [];
  const pod = isObject(spec.securityContext) ? spec.securityContext : {};
  for (const key of ['runAsUser', 'runAsGroup', 'fsGroup']) {
    if (key in pod) violations.push(`securityContext.${key} is ${JSON.stringify(pod[key])}: restricted-v2 assigns it`);
  }
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (spec[key] === true) violations.push(`${key} is true`);
  }
  if (isObject(pod.seLinuxOptions)) violations.push('securityContext.seLinuxOptions is set: restricted-v2 assigns it');
  const podSeccomp = isObject(pod.seccompProfile) ? pod.seccompProfile.type : undefined;
  if (podSeccomp !== undefined && podSeccomp !== 'RuntimeDefault' && podSeccomp !== 'Localhost') violations.push(`securityContext.seccompProfile.type is ${JSON.stringify(podSeccomp)}`);
  for (const volume of Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : []) {
    const sources = isObject(volume) ? Object.keys(volume).filter((key) => key !== 'name') : [];
    for (const source of sources.filter((key) => !ALLOWED_VOLUMES.has(key))) violations.push(`volume ${String((volume as Json).name)} is a ${source}`);
  }
  const lists = ['initContainers', 'containers', 'ephemeralContainers'] as const;
  const containers = lists.flatMap((list) => (Array.isArray(spec[list]) ? (spec[list] as unknown[]) : []).map((container, index): [string, Json] => [`${list}[${index}]`, isObject(container) ? container : {}]));
  for (const [where, container] of containers) {
    const context = isObject(container.securityContext) ? container.securityContext : {};
    for (const key of ['runAsUser', 'runAsGroup']) {
      if (key in context) violations.push(`${where}.securityContext.${key} is ${JSON.stringify(context[key])}: restricted-v2 assigns it`);
    }
    if (context.runAsNonRoot === false || (context.runAsNonRoot !== true && pod.runAsNonRoot !== true)) violations.push(`${where} may run as root (runAsNonRoot is not true)`);
    if (context.allowPrivilegeEscalation !== false) violations.push(`${where}.securityContext.allowPrivilegeEscalation is not false`);
    if (context.privileged === true) violations.push(`${where} is privileged`);
    if (isObject(context.seLinuxOptions)) violations.push(`${where}.securityContext.seLinuxOptions is set: restricted-v2 assigns it`);
    const capabilities = isObject(context.capabilities) ? context.capabilities : {};
    if (!(Array.isArray(capabilities.drop) && capabilities.drop.includes('ALL'))) violations.push(`${where} does not drop ALL capabilities`);
    for (const added of Array.isArray(capabilities.add) ? (capabilities.add as unknown[]) : []) {
      if (added !== 'NET_BIND_SERVICE') violations.push(`${where} adds capability ${String(added)}`);
    }
    const seccomp = isObject(context.seccompProfile) ? context.seccompProfile.type : podSeccomp;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') violations.push(`${where} has seccomp ${JSON.stringify(seccomp ?? 'unset')}, not RuntimeDefault`);
    for (const port of Array.isArray(container.ports) ? (container.ports as unknown[]) : []) {
      if (isObject(port) && port.hostPort !== undefined && port.hostPort !== 0) violations.push(`${where} has hostPort ${JSON.stringify(port.hostPort)}`);
    }
  }
  return violations;
}

/** Every rendered pod's violations, by `<kind>/<name><path>`; the pods found, to be sure some were. */
function check(objects: readonly Json[]): { pods: string[]; violations: string[] } {
  const pods: string[] = [];
  const violations: string[] = [];
  for (const object of objects) {
    const name = `${String(object.kind)}/${String((object.metadata as Json | undefined)?.name)}`;
    for (const [where, spec] of podSpecs(object)) {
      pods.push(`${name}${where}`);
      violations.push(...restrictedV2Violations(spec).map((violation) => `${name}${where}: ${violation}`));
    }
  }
  return { pods, violations };
}

describe('OpenShift: the uid and gid left to restricted-v2', () => {
  for (const [mode, values] of MODES) {
    it(`${mode}: every pod fixes no uid or gid and passes restricted-v2 and restricted`, async () => {
      const { pods, violations } = check(await render([values, OPENSHIFT]));
      const cronJobs = 'shards' in values ? 2 : 1;
      assert.equal(pods.length, cronJobs + 1, `a pod per CronJob and the helm test pod, found ${pods.join(', ')}`);
      assert.ok(pods.some((pod) => pod.startsWith('Pod/')), 'the helm test pod');
      assert.deepEqual(violations, []);
    });
  }

  it('docs/install.md gives exactly these values, as a file and as --set', async () => {
    const install = await readFile(path.join(ROOT, 'docs/install.md'), 'utf8');
    const start = install.indexOf('\n## OpenShift\n');
    assert.ok(start >= 0, 'an OpenShift section');
    const section = install.slice(start, install.indexOf('\n## ', start + 1));
    assert.ok(section.includes('```yaml\n# openshift.yaml\npodSecurityContext:\n  runAsUser: null\n  runAsGroup: null\n```'), 'the values file');
    assert.ok(section.replace(/\s+/g, ' ').includes(`\`${OPENSHIFT_SET.join(' ')}\``), 'the --set line');
  });

  it('the --set line docs/install.md gives renders as its values file', async () => {
    assert.equal(await renderYaml([], OPENSHIFT_SET), await renderYaml([OPENSHIFT]));
  });

  it('the pods stay non-root with RuntimeDefault seccomp, and the container keeps its own context', async () => {
    const objects = await render([OPENSHIFT]);
    const defaults = await render([]);
    for (const [, spec] of podSpecs(objects)) assert.deepEqual(spec.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const containers = (found: Json[]) => podSpecs(found).map(([, spec]) => (spec.containers as Json[])[0]?.securityContext);
    assert.deepEqual(containers(objects), containers(defaults));
  });

  for (const [mode, values] of MODES) {
    it(`${mode}: an OpenShift overlay over values that fix a uid and gid everywhere leaves none, not even as null`, async () => {
      const { violations } = check(await render([values, FIXED_EVERYWHERE, OPENSHIFT_OVERLAY]));
      assert.deepEqual(violations, []);
    });
  }

  it('the same overlay renders as the plain OpenShift values, and as the same --set', async () => {
    const plain = await renderYaml([OPENSHIFT]);
    assert.equal(await renderYaml([FIXED_EVERYWHERE, OPENSHIFT_OVERLAY]), plain);
    const set = ['podSecurityContext.fsGroup', 'securityContext.runAsUser', 'securityContext.runAsGroup'].flatMap((key) => ['--set', `${key}=null`]);
    assert.equal(await renderYaml([], [...OPENSHIFT_SET, ...set]), plain);
  });
});

describe('the checks bite', () => {
  it('the defaults fix uid and gid 65532, which restricted-v2 refuses, and nothing else', async () => {
    const { pods, violations } = check(await render([]));
    assert.deepEqual(
      violations,
      pods.flatMap((pod) => [`${pod}: securityContext.runAsUser is 65532: restricted-v2 assigns it`, `${pod}: securityContext.runAsGroup is 65532: restricted-v2 assigns it`]),
    );
  });

  it('each loosening of the OpenShift pod is caught', async () => {
    const [[, rendered] = ['', {}]] = podSpecs(await render([OPENSHIFT]));
    const loosenings: [string, (spec: Json, container: Json, context: Json) => void][] = [
      ['a pod uid', (spec) => ((spec.securityContext as Json).runAsUser = 1000)],
      ['a pod gid', (spec) => ((spec.securityContext as Json).runAsGroup = 1000)],
      ['an fsGroup', (spec) => ((spec.securityContext as Json).fsGroup = 1000)],
      ['a null uid', (spec) => ((spec.securityContext as Json).runAsUser = null)],
      ['a container uid', (_spec, _container, context) => (context.runAsUser = 1000)],
      ['a container gid', (_spec, _container, context) => (context.runAsGroup = 1000)],
      ['root', (spec, _container, context) => ((spec.securityContext as Json).runAsNonRoot = (context.runAsNonRoot = false))],
      ['no runAsNonRoot', (spec, _container, context) => (delete (spec.securityContext as Json).runAsNonRoot, delete context.runAsNonRoot)],
      ['privilege escalation', (_spec, _container, context) => (context.allowPrivilegeEscalation = true)],
      ['capabilities kept', (_spec, _container, context) => delete context.capabilities],
      ['a capability added', (_spec, _container, context) => (context.capabilities = { drop: ['ALL'], add: ['SYS_ADMIN'] })],
      ['no seccomp', (spec) => delete (spec.securityContext as Json).seccompProfile],
      ['Unconfined seccomp', (_spec, _container, context) => (context.seccompProfile = { type: 'Unconfined' })],
      ['privileged', (_spec, _container, context) => (context.privileged = true)],
      ['hostNetwork', (spec) => (spec.hostNetwork = true)],
      ['hostPID', (spec) => (spec.hostPID = true)],
      ['hostIPC', (spec) => (spec.hostIPC = true)],
      ['a hostPath volume', (spec) => (spec.volumes = [{ name: 'root', hostPath: { path: '/' } }])],
      ['a hostPort', (_spec, container) => (container.ports = [{ containerPort: 9091, hostPort: 9091 }])],
      ['an SELinux type', (spec) => ((spec.securityContext as Json).seLinuxOptions = { type: 'spc_t' })],
    ];
    assert.deepEqual(restrictedV2Violations(rendered), [], 'the rendered pod passes');
    for (const [loosening, loosen] of loosenings) {
      const spec = structuredClone(rendered);
      const container = (spec.containers as Json[])[0] as Json;
      loosen(spec, container, container.securityContext as Json);
      assert.notDeepEqual(restrictedV2Violations(spec), [], loosening);
    }
  });
});

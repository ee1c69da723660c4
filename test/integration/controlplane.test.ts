// Smoke tests of the harness against a real etcd + kube-apiserver (issue 3).
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { ApiException, ApisApi, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { CrdSetName } from '../../harness/crds.js';
import { STOP_DEADLINE_MS } from '../../harness/lifetime.js';

const GROUP = 'tekton.dev';
const NAMESPACE = 'smoke';

let controlPlane: ControlPlane;

before(async () => {
  controlPlane = await startControlPlane({ crds: 'v0.45' });
  await controlPlane.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
});

after(async () => {
  await controlPlane?.stop();
});

test('a PipelineResource and a PipelineRun are stored and read back through @kubernetes/client-node', async () => {
  const api = controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
  await api.createNamespacedCustomObject({
    group: GROUP,
    version: 'v1alpha1',
    namespace: NAMESPACE,
    plural: 'pipelineresources',
    body: {
      apiVersion: 'tekton.dev/v1alpha1',
      kind: 'PipelineResource',
      metadata: { name: 'repo' },
      spec: { type: 'git', params: [{ name: 'url', value: 'https://example.com/repo.git' }] },
    },
  });
  const created = (await api.createNamespacedCustomObject({
    group: GROUP,
    version: 'v1beta1',
    namespace: NAMESPACE,
    plural: 'pipelineruns',
    body: {
      apiVersion: 'tekton.dev/v1beta1',
      kind: 'PipelineRun',
      metadata: { name: 'build-1' },
      spec: { pipelineRef: { name: 'build' }, resources: [{ name: 'source', resourceRef: { name: 'repo' } }] },
      status: { conditions: [{ type: 'Succeeded', status: 'True' }] },
    },
  })) as TektonObject;
  assert.equal(created.status, undefined, 'the status subresource drops status sent on create');

  const finished = { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }], completionTime: '2026-01-02T03:04:05Z' };
  await api.replaceNamespacedCustomObjectStatus({
    group: GROUP,
    version: 'v1beta1',
    namespace: NAMESPACE,
    plural: 'pipelineruns',
    name: 'build-1',
    body: { ...created, status: finished },
  });

  const resource = (await api.getNamespacedCustomObject({ group: GROUP, version: 'v1alpha1', namespace: NAMESPACE, plural: 'pipelineresources', name: 'repo' })) as TektonObject;
  assert.deepEqual(resource.spec, { type: 'git', params: [{ name: 'url', value: 'https://example.com/repo.git' }] });
  const run = (await api.getNamespacedCustomObject({ group: GROUP, version: 'v1beta1', namespace: NAMESPACE, plural: 'pipelineruns', name: 'build-1' })) as TektonObject;
  assert.deepEqual(run.spec?.['resources'], [{ name: 'source', resourceRef: { name: 'repo' } }]);
  assert.deepEqual(run.status, finished);

  // Conversion `None`: the v1 view is the same object under another apiVersion.
  const runAsV1 = (await api.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: NAMESPACE, plural: 'pipelineruns', name: 'build-1' })) as TektonObject;
  assert.equal(runAsV1.apiVersion, 'tekton.dev/v1');
  assert.deepEqual(runAsV1.spec, run.spec);
});

test('a ServiceAccount token is refused (403) without a binding and allowed with a Role that lists pipelineresources', async () => {
  await controlPlane.apply([
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'unbound', namespace: NAMESPACE } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'collector', namespace: NAMESPACE } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'list-pipelineresources', namespace: NAMESPACE },
      rules: [{ apiGroups: [GROUP], resources: ['pipelineresources'], verbs: ['list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'collector', namespace: NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'list-pipelineresources' },
      subjects: [{ kind: 'ServiceAccount', name: 'collector', namespace: NAMESPACE }],
    },
  ]);
  const unbound = await controlPlane.createServiceAccountToken(NAMESPACE, 'unbound', { expirationSeconds: 600 });
  const collector = await controlPlane.createServiceAccountToken(NAMESPACE, 'collector');

  assert.equal(await listStatus(controlPlane.kubeConfig(unbound)), 403);
  // RBAC reads bindings from an informer: a new binding takes effect within moments.
  assert.equal(await eventually(() => listStatus(controlPlane.kubeConfig(collector)), 200), 200);
});

test('the v0.45 set serves runs as v1beta1 and v1 and pipelineresources as v1alpha1', async () => {
  assert.deepEqual(await servedVersions(controlPlane.kubeConfig()), {
    pipelineresources: ['v1alpha1'],
    pipelineruns: ['v1', 'v1beta1'],
    taskruns: ['v1', 'v1beta1'],
  });
});

test('the v0.37 set serves runs as v1alpha1 and v1beta1', async () => {
  await withControlPlane('v0.37', async (other) => {
    assert.deepEqual(await servedVersions(other.kubeConfig()), {
      pipelineresources: ['v1alpha1'],
      pipelineruns: ['v1alpha1', 'v1beta1'],
      taskruns: ['v1alpha1', 'v1beta1'],
    });
  });
});

test('the none set has runs but no PipelineResource CRD, like a cluster upgraded past v0.46', async () => {
  await withControlPlane('none', async (other) => {
    assert.deepEqual(await servedVersions(other.kubeConfig()), {
      pipelineruns: ['v1', 'v1beta1'],
      taskruns: ['v1', 'v1beta1'],
    });
  });
});

test('stop() leaves no process and no directory behind, and may be called again', async () => {
  const other = await startControlPlane({ crds: 'none' });
  assert.notDeepEqual(await processesMentioning(other.dir), [], 'etcd and kube-apiserver run while started');
  await other.stop();
  await other.stop();
  assert.deepEqual(await processesMentioning(other.dir), []);
  assert.equal(existsSync(other.dir), false);
});

test('the watchdog stops the servers when the process that started them is killed with SIGKILL', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'trgc-test-'));
  try {
    const cli = spawn(process.execPath, ['--import', 'tsx', 'harness/cli.ts', '--kubeconfig', join(scratch, 'kubeconfig'), '--crds', 'none'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const dir = await readyDir(cli);
    cli.kill('SIGKILL');
    await exitCode(cli);
    // The watchdog gives each server STOP_DEADLINE_MS after SIGTERM, one after the other.
    const watchdogDeadline = 2 * STOP_DEADLINE_MS + 10_000;
    assert.deepEqual(await eventually(() => processesMentioning(dir), [], watchdogDeadline), []);
    assert.equal(await eventually(() => Promise.resolve(existsSync(dir)), false, watchdogDeadline), false);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

test('Ctrl-C of `npm run controlplane` stops both servers before it exits', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'trgc-test-'));
  try {
    // Its own process group, which a terminal's Ctrl-C signals as a whole.
    const npm = spawn('npm', ['run', '--silent', 'controlplane', '--', '--kubeconfig', join(scratch, 'kubeconfig')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const dir = await readyDir(npm);
    assert.ok(npm.pid !== undefined);
    process.kill(-npm.pid, 'SIGINT');
    await exitCode(npm);
    assert.deepEqual(await processesMentioning(dir), []);
    assert.equal(existsSync(dir), false);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

test('npm run controlplane rejects a bad flag with one line and exit code 2', async () => {
  const cli = spawn(process.execPath, ['--import', 'tsx', 'harness/cli.ts', '--kubeconfig', '/tmp/x', '--crds', 'v0.99'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  assert.equal(await exitCode(cli), 2);
  assert.match(stderr, /^error: --crds v0\.99 is not one of v0\.37, v0\.45, upgraded, none \(e\.g\. npm run controlplane -- --kubeconfig \S+ --crds v0\.45\)\n$/);
});

async function withControlPlane(crds: CrdSetName, body: (controlPlane: ControlPlane) => Promise<void>): Promise<void> {
  const other = await startControlPlane({ crds });
  try {
    await body(other);
  } finally {
    await other.stop();
  }
}

/** HTTP status of listing pipelineresources in the smoke namespace as the holder of `config`. */
async function listStatus(config: KubeConfig): Promise<number> {
  try {
    await config.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ group: GROUP, version: 'v1alpha1', namespace: NAMESPACE, plural: 'pipelineresources' });
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

/** tekton.dev resources by plural, with the versions discovery serves them in, sorted. */
async function servedVersions(config: KubeConfig): Promise<Record<string, string[]>> {
  const groups = await config.makeApiClient(ApisApi).getAPIVersions();
  const tekton = groups.groups.find((group) => group.name === GROUP);
  assert.ok(tekton !== undefined, 'tekton.dev is in discovery');
  const served: Record<string, string[]> = {};
  for (const { version } of tekton.versions) {
    const list = await config.makeApiClient(CustomObjectsApi).getAPIResources({ group: GROUP, version });
    for (const resource of list.resources.filter((candidate) => !candidate.name.includes('/'))) {
      (served[resource.name] ??= []).push(version);
    }
  }
  for (const versions of Object.values(served)) versions.sort();
  return served;
}

/** Command lines of running processes that mention `dir` (etcd, kube-apiserver, the watchdog). */
async function processesMentioning(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,args=']);
  return stdout.split('\n').filter((line) => line.includes(dir));
}

/** Calls `probe` until it returns `expected` or `ms` pass; returns the last value for the assertion. */
/** What these tests read of a Tekton object; client-node types a custom object as any. */
interface TektonObject {
  apiVersion?: string;
  spec?: Record<string, unknown>;
  status?: unknown;
}

async function eventually<T>(probe: () => Promise<T>, expected: T, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!isDeepEqual(value, expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await probe();
  }
  return value;
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Waits for the CLI's ready line and returns the control plane directory it names. */
function readyDir(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const dir = /logs in (\S+);/.exec(stdout)?.[1];
      if (dir !== undefined) resolve(dir);
    });
    child.once('exit', (code) => reject(new Error(`the CLI exited (${code ?? 'on a signal'}) before it was ready; stdout: ${stdout}`)));
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/**
 * Every way of authenticating that src/kube/connect.ts reads, against the real API server:
 * a verified CA instead of insecure-skip-tls-verify, a CA that does not match, a token file
 * holding a ServiceAccount token, a credential plugin (handed to @kubernetes/client-node),
 * and the in-cluster service account mount. Each pass must reach the server as that identity
 * and decide the same one target.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { loadConnection } from '../../src/kube/connect.js';
import { KubeHttp, DEFAULT_RETRY } from '../../src/kube/http.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { Seeder } from '../support/seed.js';
import { gitResource } from '../support/tekton.js';

const NS = 'credentials';
let controlPlane: ControlPlane;
let dir: string;
/** kube-apiserver's self-signed serving certificate followed by the CA that signed it. */
let servingChain: string;

before(async () => {
  controlPlane = await startControlPlane({ crds: 'v0.45' });
  dir = path.join(controlPlane.dir, 'credentials');
  await mkdir(dir);
  servingChain = await readFile(path.join(controlPlane.dir, 'certs', 'apiserver.crt'), 'utf8');
  const seed = new Seeder(controlPlane.kubeConfig());
  await seed.namespace(NS);
  await seed.create(gitResource({ name: 'src-orphan', namespace: NS }, 'orphan'));
  await controlPlane.apply([
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace: NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'gc', namespace: NS },
      rules: [
        { apiGroups: ['tekton.dev'], resources: ['pipelineresources'], verbs: ['get', 'list', 'delete'] },
        { apiGroups: ['tekton.dev'], resources: ['pipelineruns', 'taskruns'], verbs: ['get', 'list'] },
      ],
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'gc', namespace: NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: NS }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-credentials-ns' }, rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [NS], verbs: ['get'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'gc-credentials-ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gc-credentials-ns' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: NS }] },
  ]);
});

after(async () => {
  await controlPlane?.stop();
});

/** A kubeconfig with one context, written into its own directory so relative paths mean something. */
async function kubeconfigFile(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>, files: Record<string, string> = {}): Promise<string> {
  const home = path.join(dir, name);
  await mkdir(home, { recursive: true });
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(home, file), content, { mode: 0o600 });
  const file = path.join(home, 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server: controlPlane.server, ...cluster } }],
    users: [{ name: name, user }],
    contexts: [{ name, context: { cluster: 'local', user: name } }],
    'current-context': name,
  };
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

async function dryRun(kubeconfig: string): Promise<CliResult> {
  return runCli(['--kubeconfig', kubeconfig, '--namespace', NS, '--min-age', '0s', '--dry-run', '--output', 'json']);
}

function assertDecidedTheOrphan(result: CliResult): void {
  assert.equal(result.code, 0, result.stderr);
  const report = reportOf(result);
  assert.deepEqual(report.items.map((item) => [item.name, item.reason, item.result]), [['src-orphan', 'unreferenced', 'would-delete']]);
}

describe('credentials against the real API server', () => {
  test('the server certificate verified against certificate-authority, a file relative to the kubeconfig', async () => {
    const file = await kubeconfigFile('verified', { 'certificate-authority': 'ca.crt' }, { token: controlPlane.adminToken }, { 'ca.crt': servingChain });
    assertDecidedTheOrphan(await dryRun(file));
  });

  test('a CA that did not sign the server certificate: the pass fails on the first request, without retrying it, and says why', async () => {
    // The serving certificate alone, without the CA that signed it, does not anchor the chain.
    const leafOnly = `${servingChain.split('-----END CERTIFICATE-----')[0] ?? ''}-----END CERTIFICATE-----\n`;
    const file = await kubeconfigFile('wrong-ca', { 'certificate-authority-data': Buffer.from(leafOnly).toString('base64') }, { token: controlPlane.adminToken });
    const result = await dryRun(file);
    assert.equal(result.code, 1, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.items, []);
    assert.deepEqual(report.errors, ['could not get apis/tekton.dev at cluster scope: self-signed certificate in certificate chain']);
    // A certificate the client rejects stays rejected: one attempt, no retries.
    const finished = result.stderr.split('\n').find((line) => line.includes('"pass finished"'));
    assert.ok(finished !== undefined, result.stderr);
    assert.deepEqual((JSON.parse(finished) as { api: { requests: number; retries: number } }).api, { requests: 1, retries: 0, bytesReceived: 0 });
  });

  test('a ServiceAccount token in tokenFile: the pass runs as that account (its Role allows this namespace only)', async () => {
    const token = await controlPlane.createServiceAccountToken(NS, 'gc');
    const file = await kubeconfigFile('token-file', { 'insecure-skip-tls-verify': true }, { tokenFile: 'token' }, { token: `${token}\n` });
    assertDecidedTheOrphan(await dryRun(file));
    const elsewhere = await runCli(['--kubeconfig', file, '--namespace', 'default', '--min-age', '0s', '--dry-run', '--output', 'json']);
    assert.equal(elsewhere.code, 1, elsewhere.stderr);
    assert.match(elsewhere.stderr, /forbidden/);
  });

  test('a credential plugin (exec) that prints an ExecCredential', async () => {
    const plugin = path.join(dir, 'credential-plugin.sh');
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: controlPlane.adminToken } };
    await writeFile(plugin, `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify(credential)}'\n`);
    await chmod(plugin, 0o755);
    const file = await kubeconfigFile('exec', { 'certificate-authority-data': Buffer.from(servingChain).toString('base64') }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } });
    assertDecidedTheOrphan(await dryRun(file));
  });

  test('in a pod: the service account mount and KUBERNETES_SERVICE_HOST/PORT', async () => {
    // The CLI always reads /var/run/secrets/...; the same loader is pointed at a directory laid out like it.
    const mount = path.join(dir, 'serviceaccount');
    await mkdir(mount);
    await writeFile(path.join(mount, 'token'), await controlPlane.createServiceAccountToken(NS, 'gc'));
    await writeFile(path.join(mount, 'ca.crt'), servingChain);
    const url = new URL(controlPlane.server);
    const connection = await loadConnection({}, { HOME: mount, KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port }, { serviceAccountDir: mount });
    assert.equal(connection.server, controlPlane.server);
    const http = await KubeHttp.create(connection, { maxSockets: 1, retry: DEFAULT_RETRY, requestTimeoutMs: 30_000 });
    try {
      const list = (await http.json({ verb: 'list', resource: 'pipelineresources.tekton.dev', namespace: NS }, { method: 'GET', path: `/apis/tekton.dev/v1alpha1/namespaces/${NS}/pipelineresources` })) as { items: Array<{ metadata: { name: string } }> };
      assert.deepEqual(list.items.map((item) => item.metadata.name), ['src-orphan']);
    } finally {
      http.close();
    }
  });
});

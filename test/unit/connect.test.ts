// The kubeconfig reader (src/kube/connect.ts) on files written here. That the connections
// it makes work against a real API server is shown by every integration test, which run the
// CLI with --kubeconfig; the bad-kubeconfig messages are in test/integration/badconfig.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../src/config.js';
import { TOKEN_FILE_REFRESH_MS, loadConnection } from '../../src/kube/connect.js';

const root = mkdtempSync(join(tmpdir(), 'trgc-connect-'));
after(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
/** A new directory holding `files` (name -> content); returns its path. */
function dirWith(files: Record<string, string>): string {
  const dir = join(root, String(counter++));
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function kubeconfig(options: { cluster?: object; user?: object; context?: object; current?: string; name?: string } = {}): string {
  const name = options.name ?? 'ci';
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: `${name}-cluster`, cluster: { server: 'https://10.1.2.3:6443/', ...options.cluster } }],
    users: [{ name: `${name}-user`, user: { token: 'abc', ...options.user } }],
    contexts: [{ name, context: { cluster: `${name}-cluster`, user: `${name}-user`, ...options.context } }],
    'current-context': options.current ?? name,
  });
}

async function rejects(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return true;
  });
}

describe('a kubeconfig file', () => {
  test('token, server without its trailing slash, and the context it came from', async () => {
    const dir = dirWith({ config: kubeconfig() });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.equal(connection.server, 'https://10.1.2.3:6443');
    assert.equal(connection.origin, 'kubeconfig context "ci"');
    assert.deepEqual(connection.tls, {});
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer abc' });
  });

  test('YAML as kubectl writes it, with certificate and key data, CA data and a TLS server name', async () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: kind',
      '  cluster:',
      '    server: https://127.0.0.1:34567',
      `    certificate-authority-data: ${b64('CA PEM')}`,
      '    tls-server-name: kubernetes.default',
      'users:',
      '- name: admin',
      '  user:',
      `    client-certificate-data: ${b64('CERT PEM')}`,
      `    client-key-data: ${b64('KEY PEM')}`,
      'contexts:',
      '- name: kind-ci',
      '  context: {cluster: kind, user: admin, namespace: default}',
      'current-context: kind-ci',
    ].join('\n');
    const dir = dirWith({ config: yaml });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.deepEqual(connection.tls, { servername: 'kubernetes.default', ca: Buffer.from('CA PEM'), cert: Buffer.from('CERT PEM'), key: Buffer.from('KEY PEM') });
    assert.deepEqual(await connection.headers(), {});
  });

  test('relative certificate and key paths are read from the kubeconfig file\'s directory, not the working directory', async () => {
    const dir = dirWith({
      'kube/config': kubeconfig({ cluster: { 'certificate-authority': 'pki/ca.crt' }, user: { token: undefined, 'client-certificate': 'pki/me.crt', 'client-key': '../keys/me.key' } }),
      'kube/pki/ca.crt': 'CA',
      'kube/pki/me.crt': 'CERT',
      'keys/me.key': 'KEY',
    });
    const connection = await loadConnection({ kubeconfig: join(dir, 'kube/config') }, {});
    assert.deepEqual(connection.tls, { ca: Buffer.from('CA'), cert: Buffer.from('CERT'), key: Buffer.from('KEY') });
  });

  test('insecure-skip-tls-verify turns certificate checks off, and allows a plain http server', async () => {
    const dir = dirWith({ config: kubeconfig({ cluster: { server: 'http://127.0.0.1:8001', 'insecure-skip-tls-verify': true } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.equal(connection.server, 'http://127.0.0.1:8001');
    assert.deepEqual(connection.tls, { rejectUnauthorized: false });
  });

  test('a token file is read again once a minute has passed, not on every request', async () => {
    const dir = dirWith({ config: kubeconfig({ user: { token: undefined, tokenFile: 'token' } }), token: 'first\n' });
    let now = 1_000_000;
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {}, { now: () => now });
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer first' });
    writeFileSync(join(dir, 'token'), 'second');
    now += TOKEN_FILE_REFRESH_MS;
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer first' }, 'exactly a minute later: still the token read');
    now += 1;
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer second' });
  });

  test('basic auth and impersonation', async () => {
    const dir = dirWith({ config: kubeconfig({ user: { token: undefined, username: 'ops', password: 's3cret', as: 'gc', 'as-groups': ['a', 'b'] } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.deepEqual(await connection.headers(), { authorization: `Basic ${b64('ops:s3cret')}`, 'impersonate-user': 'gc', 'impersonate-group': ['a', 'b'] });
  });

  test('--context chooses another context than the current one', async () => {
    const config = JSON.parse(kubeconfig()) as { clusters: object[]; users: object[]; contexts: object[] };
    const other = JSON.parse(kubeconfig({ name: 'prod', cluster: { server: 'https://prod:443' }, user: { token: 'p' } })) as typeof config;
    const dir = dirWith({ config: JSON.stringify({ ...config, clusters: [...config.clusters, ...other.clusters], users: [...config.users, ...other.users], contexts: [...config.contexts, ...other.contexts] }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config'), context: 'prod' }, {});
    assert.equal(connection.server, 'https://prod:443');
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer p' });
  });
});

describe('$KUBECONFIG with several files', () => {
  test('as kubectl merges them: the first file to name an entry or a current context wins', async () => {
    const dir = dirWith({
      // The first names the cluster "ci-cluster" and the current context, but not the user.
      a: JSON.stringify({ clusters: [{ name: 'ci-cluster', cluster: { server: 'https://first:443' } }], contexts: [], 'current-context': 'ci' }),
      b: kubeconfig({ current: 'elsewhere' }),
    });
    const connection = await loadConnection({}, { KUBECONFIG: `${join(dir, 'a')}:${join(dir, 'b')}` });
    assert.equal(connection.server, 'https://first:443', 'the cluster of the first file');
    assert.equal(connection.origin, 'kubeconfig context "ci"', 'the current context of the first file');
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer abc' }, 'the user from the second file');
  });

  test('--kubeconfig reads its one file only, whatever $KUBECONFIG says', async () => {
    const dir = dirWith({ a: kubeconfig({ cluster: { server: 'https://a:443' } }), b: kubeconfig({ cluster: { server: 'https://b:443' } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'b') }, { KUBECONFIG: join(dir, 'a') });
    assert.equal(connection.server, 'https://b:443');
  });

  test('~/.kube/config when $KUBECONFIG is unset', async () => {
    const home = dirWith({ '.kube/config': kubeconfig({ cluster: { server: 'https://home:443' } }) });
    const connection = await loadConnection({}, { HOME: home });
    assert.equal(connection.server, 'https://home:443');
  });
});

describe('in a pod', () => {
  test('the service account token and CA, the service host and port (IPv6 in brackets)', async () => {
    const serviceAccountDir = dirWith({ token: 'pod-token', 'ca.crt': 'CLUSTER CA' });
    const home = dirWith({});
    let now = 0;
    const connection = await loadConnection({}, { HOME: home, KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, { serviceAccountDir, now: () => now });
    assert.equal(connection.server, 'https://[fd00::1]:443');
    assert.equal(connection.origin, 'the in-cluster service account');
    assert.deepEqual(connection.tls, { ca: Buffer.from('CLUSTER CA') });
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer pod-token' });
    // The kubelet rotates projected tokens; a scheduled collector runs for days.
    writeFileSync(join(serviceAccountDir, 'token'), 'rotated');
    now += TOKEN_FILE_REFRESH_MS + 1;
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer rotated' });
  });

  test('no kubeconfig and no service account: an error, not localhost:8080', async () => {
    const home = dirWith({});
    await rejects(loadConnection({}, { HOME: home, KUBERNETES_SERVICE_HOST: '10.0.0.1' }, { serviceAccountDir: join(home, 'none') }), /^no Kubernetes credentials: pass --kubeconfig FILE/);
  });
});

describe('credential plugins go through @kubernetes/client-node', () => {
  test('exec: the plugin\'s token is sent', async () => {
    const plugin = join(dirWith({}), 'plugin.sh');
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-plugin' } };
    writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`);
    chmodSync(plugin, 0o755);
    const dir = dirWith({ config: kubeconfig({ user: { token: undefined, exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } }, cluster: { 'certificate-authority-data': b64('CA') } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.equal(connection.server, 'https://10.1.2.3:6443');
    assert.equal(connection.origin, 'kubeconfig context "ci"');
    assert.deepEqual(connection.tls, { ca: Buffer.from('CA') });
    assert.equal((await connection.headers()).authorization, 'Bearer from-plugin');
  });
});

describe('kubeconfigs that cannot be used: one line that names the file and the fault', () => {
  const cases: Array<{ what: string; content: string; shows: RegExp }> = [
    { what: 'a YAML list', content: '- a\n- b\n', shows: /not a valid kubeconfig \(it is a YAML list, not a mapping\); give a file such as ~\/\.kube\/config/ },
    { what: 'clusters that are not a list', content: 'clusters: {a: 1}\n', shows: /not a valid kubeconfig \(clusters is not a list\)/ },
    { what: 'a cluster without a name', content: 'clusters: [{cluster: {server: "https://a"}}]\n', shows: /not a valid kubeconfig \(clusters\[0\]\.name is missing\)/ },
    { what: 'a context naming an undefined user', content: kubeconfig({ context: { user: 'ghost' } }), shows: /context "ci" names user "ghost", which the kubeconfig does not define/ },
    { what: 'a proxy-url', content: kubeconfig({ cluster: { 'proxy-url': 'http://proxy:3128' } }), shows: /cluster "ci-cluster" sets proxy-url, which tekton-resource-gc does not support/ },
    { what: 'a CA file that is not there', content: kubeconfig({ cluster: { 'certificate-authority': 'nope/ca.crt' } }), shows: /cluster "ci-cluster" has certificate-authority ".*\/nope\/ca\.crt", which cannot be read \(ENOENT\); fix the path or use certificate-authority-data/ },
    { what: 'a server that is a number', content: kubeconfig({ cluster: { server: 6443 } }), shows: /cluster "ci-cluster" has a server that is not a string/ },
  ];
  for (const row of cases) {
    test(row.what, async () => {
      const dir = dirWith({ config: row.content });
      await rejects(loadConnection({ kubeconfig: join(dir, 'config') }, {}), row.shows);
    });
  }
});

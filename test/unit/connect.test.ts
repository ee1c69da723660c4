// The kubeconfig reader (src/kube/connect.ts) on files written here. That the connections
// it makes work against a real API server is shown by every integration test, which run the
// CLI with --kubeconfig; the bad-kubeconfig messages are in test/integration/badconfig.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { TOKEN_FILE_REFRESH_MS, loadConnection } from '../../src/kube/connect.js';
import { KubeconfigError } from '../../src/kube/connection.js';

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
    assert.ok(error instanceof KubeconfigError, `a KubeconfigError, not ${String(error)}`);
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

  test('impersonation of a uid and extra fields, their keys escaped as client-go escapes them', async () => {
    const extra = { scopes: ['view', 'edit'], 'example.com/team name': ['ci'], 'a%b': [] };
    const dir = dirWith({ config: kubeconfig({ user: { as: 'gc', 'as-uid': '1234', 'as-user-extra': extra } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.deepEqual(await connection.headers(), {
      authorization: 'Bearer abc',
      'impersonate-user': 'gc',
      'impersonate-uid': '1234',
      'impersonate-extra-scopes': ['view', 'edit'],
      'impersonate-extra-example.com%2Fteam%20name': ['ci'],
    });
  });

  test('token and tokenFile: the file\'s token while the file can be read, the inline one when it cannot', async () => {
    const dir = dirWith({ config: kubeconfig({ user: { token: 'inline', tokenFile: 'token' } }), token: 'from-file' });
    let now = 0;
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {}, { now: () => now });
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer from-file' });
    rmSync(join(dir, 'token'));
    now += TOKEN_FILE_REFRESH_MS + 1;
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer inline' });
  });

  test('an entry without a name is the entry named "", as client-go keys it', async () => {
    const dir = dirWith({ config: JSON.stringify({ clusters: [{ cluster: { server: 'https://nameless:443' } }], contexts: [{ name: 'ci', context: {} }], 'current-context': 'ci' }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'config') }, {});
    assert.equal(connection.server, 'https://nameless:443');
    assert.deepEqual(await connection.headers(), {}, 'no user: no credentials');
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

/** KUBECONFIG's value for these files, in this order. */
const list = (...files: string[]): string => files.join(':');

describe('$KUBECONFIG with several files, merged as client-go merges them', () => {
  test('the first file to name an entry or a current context wins', async () => {
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

  test('a missing file is skipped, even the first', async () => {
    const dir = dirWith({ b: kubeconfig({ cluster: { server: 'https://b:443' } }) });
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'missing'), join(dir, 'b')) });
    assert.equal(connection.server, 'https://b:443');
  });

  test('a file that holds only users lends them to the contexts of the others, before or after them', async () => {
    const dir = dirWith({
      users: 'users:\n- name: robot\n  user: {token: from-users-file}\n',
      main: kubeconfig({ context: { user: 'robot' } }),
    });
    for (const order of [list(join(dir, 'users'), join(dir, 'main')), list(join(dir, 'main'), join(dir, 'users'))]) {
      const connection = await loadConnection({}, { KUBECONFIG: order });
      assert.equal(connection.server, 'https://10.1.2.3:6443');
      assert.deepEqual(await connection.headers(), { authorization: 'Bearer from-users-file' }, order);
    }
  });

  test('empty files, and files of only comments, add nothing and break nothing', async () => {
    const dir = dirWith({ empty: '', comments: '# nothing yet\n', main: kubeconfig() });
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'empty'), join(dir, 'comments'), join(dir, 'main')) });
    assert.equal(connection.origin, 'kubeconfig context "ci"');
  });

  test('a name in two files: the first file\'s entry whole, none of the second\'s fields merged into it', async () => {
    const dir = dirWith({
      a: JSON.stringify({ users: [{ name: 'ci-user', user: { token: 'first' } }] }),
      b: kubeconfig({ user: { token: 'second', as: 'someone-else' } }),
    });
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'a'), join(dir, 'b')) });
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer first' }, 'no impersonation from the second file\'s ci-user');
  });

  test('current-context comes from the first file that sets one, even if a later file defines that context', async () => {
    const dir = dirWith({
      a: JSON.stringify({ clusters: [{ name: 'x', cluster: { server: 'https://x:443' } }] }),
      b: JSON.stringify({ 'current-context': 'prod' }),
      c: kubeconfig({ current: 'ci' }),
      d: kubeconfig({ name: 'prod', cluster: { server: 'https://prod:443' } }),
    });
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'a'), join(dir, 'b'), join(dir, 'c'), join(dir, 'd')) });
    assert.equal(connection.server, 'https://prod:443');
  });

  test('--context chooses a context that only a later file defines', async () => {
    const dir = dirWith({ a: kubeconfig(), b: kubeconfig({ name: 'prod', cluster: { server: 'https://prod:443' } }) });
    const connection = await loadConnection({ context: 'prod' }, { KUBECONFIG: list(join(dir, 'a'), join(dir, 'b')) });
    assert.equal(connection.server, 'https://prod:443');
  });

  test('relative paths are read from the directory of the file that names them, not of the file with the context', async () => {
    const dir = dirWith({
      'ctx/config': JSON.stringify({ contexts: [{ name: 'ci', context: { cluster: 'ci-cluster', user: 'ci-user' } }], 'current-context': 'ci' }),
      'clusters/config': JSON.stringify({ clusters: [{ name: 'ci-cluster', cluster: { server: 'https://a:443', 'certificate-authority': 'ca.crt' } }] }),
      'clusters/ca.crt': 'CA of clusters/',
      'users/config': JSON.stringify({ users: [{ name: 'ci-user', user: { tokenFile: 'token', 'client-certificate': 'me.crt', 'client-key': 'me.key' } }] }),
      'users/token': 'token of users/\n',
      'users/me.crt': 'CERT',
      'users/me.key': 'KEY',
    });
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'ctx/config'), join(dir, 'clusters/config'), join(dir, 'users/config')) });
    assert.deepEqual(connection.tls, { ca: Buffer.from('CA of clusters/'), cert: Buffer.from('CERT'), key: Buffer.from('KEY') });
    assert.deepEqual(await connection.headers(), { authorization: 'Bearer token of users/' });
  });

  test('every file missing: an error naming $KUBECONFIG, and ~/.kube/config is not read instead', async () => {
    const home = dirWith({ '.kube/config': kubeconfig() });
    await rejects(
      loadConnection({}, { HOME: home, KUBECONFIG: list(join(home, 'a'), join(home, 'b')) }),
      /^KUBECONFIG ".*\/a:.*\/b": none of these files exists; give the path of a kubeconfig such as ~\/\.kube\/config$/,
    );
  });

  test('every file missing in a pod: the service account, as kubectl does', async () => {
    const serviceAccountDir = dirWith({ token: 'pod-token' });
    const env = { KUBECONFIG: join(serviceAccountDir, 'missing'), KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const connection = await loadConnection({}, env, { serviceAccountDir });
    assert.equal(connection.origin, 'the in-cluster service account');
  });

  test('files that name no context: the one line says what they lack and which are missing', async () => {
    const dir = dirWith({ users: 'users: [{name: u, user: {token: t}}]\n', clusters: 'clusters: [{name: c, cluster: {server: "https://c"}}]\n' });
    await rejects(loadConnection({}, { KUBECONFIG: list(join(dir, 'users'), join(dir, 'gone')) }), /nothing to connect to \(the files it lists name no clusters or contexts, and .*\/gone does not exist\); give a file such as ~\/\.kube\/config/);
    await rejects(loadConnection({}, { KUBECONFIG: list(join(dir, 'users'), join(dir, 'clusters')) }), /nothing to connect to \(the files it lists name no contexts\)/);
  });

  test('a file that cannot be parsed fails the whole list, named', async () => {
    const dir = dirWith({ good: kubeconfig(), bad: 'clusters: [oops\n' });
    await rejects(loadConnection({}, { KUBECONFIG: list(join(dir, 'good'), join(dir, 'bad')) }), /^KUBECONFIG file ".*\/bad": not a valid kubeconfig \(/);
  });

  test('--kubeconfig reads its one file only, whatever $KUBECONFIG says', async () => {
    const dir = dirWith({ a: kubeconfig({ cluster: { server: 'https://a:443' } }), b: kubeconfig({ cluster: { server: 'https://b:443' } }) });
    const connection = await loadConnection({ kubeconfig: join(dir, 'b') }, { KUBECONFIG: join(dir, 'a') });
    assert.equal(connection.server, 'https://b:443');
  });

  test('--kubeconfig naming a missing file is an error, though $KUBECONFIG names a good one', async () => {
    const dir = dirWith({ a: kubeconfig() });
    await rejects(loadConnection({ kubeconfig: join(dir, 'missing') }, { KUBECONFIG: join(dir, 'a') }), /^--kubeconfig ".*\/missing": no such file; give the path of a kubeconfig such as ~\/\.kube\/config$/);
  });

  test('~/.kube/config when $KUBECONFIG is unset or empty', async () => {
    const home = dirWith({ '.kube/config': kubeconfig({ cluster: { server: 'https://home:443' } }) });
    assert.equal((await loadConnection({}, { HOME: home })).server, 'https://home:443');
    assert.equal((await loadConnection({}, { HOME: home, KUBECONFIG: '' })).server, 'https://home:443');
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

  test('a kubeconfig that names no context: the service account, as kubectl does', async () => {
    const serviceAccountDir = dirWith({ token: 'pod-token' });
    const dir = dirWith({ empty: '', users: 'users: [{name: u, user: {token: t}}]\n' });
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    for (const file of ['empty', 'users']) {
      const connection = await loadConnection({ kubeconfig: join(dir, file) }, env, { serviceAccountDir });
      assert.equal(connection.origin, 'the in-cluster service account', file);
    }
  });

  test('contexts but none chosen, or one without its cluster: refused, where kubectl would use the service account', async () => {
    // A deleter must not end up in the pod's own cluster because a kubeconfig for another one is incomplete.
    const serviceAccountDir = dirWith({ token: 'pod-token' });
    const dir = dirWith({ 'no-current': kubeconfig({ current: '' }), 'no-cluster': kubeconfig({ context: { cluster: 'elsewhere' } }) });
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    await rejects(loadConnection({ kubeconfig: join(dir, 'no-current') }, env, { serviceAccountDir }), /the kubeconfig has no current context; choose one with --context, such as --context ci/);
    await rejects(loadConnection({ kubeconfig: join(dir, 'no-cluster') }, env, { serviceAccountDir }), /context "ci" names no cluster with a server URL/);
  });

  test('the service account needs KUBERNETES_SERVICE_PORT as well as the host, as in client-go', async () => {
    const serviceAccountDir = dirWith({ token: 'pod-token' });
    const home = dirWith({});
    await rejects(loadConnection({}, { HOME: home, KUBERNETES_SERVICE_HOST: '10.0.0.1' }, { serviceAccountDir }), /^no Kubernetes credentials: /);
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

  test('exec: a command with a slash is relative to the kubeconfig that names it, one without is looked up on PATH', async () => {
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'relative-plugin' } };
    const exec = (command: string): object => ({ token: undefined, exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } });
    const dir = dirWith({
      'main/config': kubeconfig({ context: { user: 'robot' } }),
      'users/config': JSON.stringify({ users: [{ name: 'robot', user: exec('./bin/plugin.sh') }] }),
      'users/bin/plugin.sh': `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`,
    });
    chmodSync(join(dir, 'users/bin/plugin.sh'), 0o755);
    const connection = await loadConnection({}, { KUBECONFIG: list(join(dir, 'main/config'), join(dir, 'users/config')) });
    assert.equal((await connection.headers()).authorization, 'Bearer relative-plugin');
    // Not a path: not made one (it would be ENOENT at <dir>/plugin.sh otherwise, not a PATH lookup).
    const bare = dirWith({ config: kubeconfig({ user: exec('trgc-no-such-plugin') }) });
    await rejects(loadConnection({ kubeconfig: join(bare, 'config') }, {}), /spawn trgc-no-such-plugin ENOENT/);
  });
});

describe('kubeconfigs that cannot be used: one line that names the file and the fault', () => {
  const cases: Array<{ what: string; content: string; shows: RegExp }> = [
    { what: 'a YAML list', content: '- a\n- b\n', shows: /not a valid kubeconfig \(it is a YAML list, not a mapping\); give a file such as ~\/\.kube\/config/ },
    { what: 'clusters that are not a list', content: 'clusters: {a: 1}\n', shows: /not a valid kubeconfig \(clusters is not a list\)/ },
    { what: 'a cluster that is a string', content: 'clusters: [a]\n', shows: /not a valid kubeconfig \(clusters\[0\] is not a mapping\)/ },
    // client-go's decoding refuses a name twice in one file; across files the first wins.
    { what: 'a user named twice in one file', content: 'users: [{name: u, user: {token: a}}, {name: u, user: {token: b}}]\n', shows: /not a valid kubeconfig \(users names "u" twice\)/ },
    { what: 'a current-context that is a list', content: 'current-context: [a]\n', shows: /not a valid kubeconfig \(current-context is not a string\)/ },
    { what: 'a current-context naming no context', content: kubeconfig({ current: 'prod' }), shows: /current-context "prod" names no context in the kubeconfig; choose one with --context \(valid: ci\)/ },
    { what: 'a CA file and CA data', content: kubeconfig({ cluster: { 'certificate-authority': 'ca.crt', 'certificate-authority-data': b64('CA') } }), shows: /cluster "ci-cluster" sets both certificate-authority and certificate-authority-data, which kubectl refuses; keep one/ },
    { what: 'a CA and insecure-skip-tls-verify', content: kubeconfig({ cluster: { 'certificate-authority-data': b64('CA'), 'insecure-skip-tls-verify': true } }), shows: /sets insecure-skip-tls-verify beside a certificate authority, which kubectl refuses/ },
    { what: 'insecure-skip-tls-verify as a string', content: kubeconfig({ cluster: { 'insecure-skip-tls-verify': 'true' } }), shows: /cluster "ci-cluster" has insecure-skip-tls-verify: "true", which is not a boolean; write true or false, unquoted/ },
    { what: 'a client certificate without its key', content: kubeconfig({ user: { token: undefined, 'client-certificate-data': b64('CERT') } }), shows: /user "ci-user" has a client certificate without client-key or client-key-data; add the key/ },
    { what: 'a token and a password', content: kubeconfig({ user: { username: 'ops', password: 'x' } }), shows: /user "ci-user" sets both a token and a username\/password, which kubectl refuses; keep one/ },
    { what: 'groups to impersonate without a user', content: kubeconfig({ user: { 'as-groups': ['a'] } }), shows: /user "ci-user" sets as-uid, as-groups or as-user-extra without as, which kubectl refuses; name the user to impersonate with as/ },
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

/**
 * The collector reads kubeconfigs as kubectl reads them. Each row below is a kubeconfig
 * variant given to both the harness's kubectl (`get pipelineresources -o name`) and the
 * collector's CLI (a dry run), pointed at it the same way (--kubeconfig, $KUBECONFIG,
 * --context). Each row says what kubectl does with it, and that is asserted too, so the row
 * is known to exercise what it claims. Then: where kubectl lists, the collector sees the same
 * PipelineResources; where kubectl fails, the collector fails, with exit 1 or 2 and the
 * reason in one line.
 *
 * client-go's rules: https://github.com/kubernetes/client-go/blob/master/tools/clientcmd/loader.go
 * (ClientConfigLoadingRules.Load) and client_config.go (DirectClientConfig).
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { ensureBinaries } from '../../harness/build.js';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { Seeder } from '../support/seed.js';
import { gitResource } from '../support/tekton.js';
import { exec as execCommand, type Exit } from '../support/exec.js';

const NS = 'parity';
const SEEDED = ['src-a', 'src-b', 'src-c'];

/** What the rows' files are made of, known once the control plane runs. */
interface Fixture {
  server: string;
  /** A ServiceAccount's token whose Role reads NS: an identity other than the harness's admin. */
  token: string;
  /** The serving certificate and the CA that signed it: what verifies the server. */
  ca: string;
  /**
   * A CA that did not sign the serving certificate: one of Node's bundled roots. Not the
   * serving certificate alone: Go trusts a leaf certificate given as a root, so kubectl
   * connects with it (OpenSSL, under Node, does not).
   */
  wrongCa: string;
}

/** A file's content: a kubeconfig (written as YAML), text, or an executable script. */
type FileContent = Record<string, unknown> | string | { script: string };

interface Variant {
  what: string;
  /** The files, by path under the row's own directory. */
  files: (f: Fixture) => Record<string, FileContent>;
  /** How both are pointed at the files: paths under the row's directory. */
  kubeconfig?: string;
  KUBECONFIG?: string[];
  context?: string;
  /** The directory (under the row's) put first on PATH. */
  path?: string;
  /** What kubectl does: lists NS, or fails with a message matching this. */
  kubectl: 'lists' | RegExp;
  /** Where kubectl fails: the collector's exit code and what its one line says. */
  collector?: { exit: 1 | 2; says: RegExp };
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function config(parts: { clusters?: object[]; users?: object[]; contexts?: object[]; current?: string }): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    ...(parts.clusters && { clusters: parts.clusters }),
    ...(parts.users && { users: parts.users }),
    ...(parts.contexts && { contexts: parts.contexts }),
    ...(parts.current !== undefined && { 'current-context': parts.current }),
  };
}
const cluster = (name: string, body: Record<string, unknown>): object => ({ name, cluster: body });
const user = (name: string, body: Record<string, unknown>): object => ({ name, user: body });
const context = (name: string, clusterName: string, userName: string): object => ({ name, context: { cluster: clusterName, user: userName } });

/** The server, verified with the CA. */
const verified = (f: Fixture): Record<string, unknown> => ({ server: f.server, 'certificate-authority-data': b64(f.ca) });
/** One context "ci" of cluster "local" and user "robot". */
const single = (clusterBody: Record<string, unknown>, userBody: Record<string, unknown>): Record<string, unknown> =>
  config({ clusters: [cluster('local', clusterBody)], users: [user('robot', userBody)], contexts: [context('ci', 'local', 'robot')], current: 'ci' });

function plugin(token: string): { script: string } {
  const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } };
  return { script: `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify(credential)}'\n` };
}
const exec = (command: string): Record<string, unknown> => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } });

/** kubectl with no kubeconfig to read falls back to http://localhost:8080, and finds nothing there. */
const LOCALHOST_8080 = /The connection to the server localhost:8080 was refused/;

const VARIANTS: Variant[] = [
  // Paths and credentials
  {
    what: 'a CA file and a token file, both relative to the kubeconfig (not to the working directory)',
    files: (f) => ({ 'kube/config': single({ server: f.server, 'certificate-authority': 'pki/ca.crt' }, { tokenFile: 'secrets/token' }), 'kube/pki/ca.crt': f.ca, 'kube/secrets/token': `${f.token}\n` }),
    kubeconfig: 'kube/config',
    kubectl: 'lists',
  },
  {
    what: 'a credential plugin named by a path relative to the kubeconfig',
    files: (f) => ({ 'kube/config': single(verified(f), exec('./bin/credential')), 'kube/bin/credential': plugin(f.token) }),
    kubeconfig: 'kube/config',
    kubectl: 'lists',
  },
  {
    what: 'a credential plugin named without a slash: looked up on PATH, not beside the kubeconfig',
    files: (f) => ({ 'kube/config': single(verified(f), exec('trgc-parity-credential')), 'bin/trgc-parity-credential': plugin(f.token) }),
    kubeconfig: 'kube/config',
    path: 'bin',
    kubectl: 'lists',
  },
  // TLS
  {
    what: 'insecure-skip-tls-verify without a CA',
    files: (f) => ({ config: single({ server: f.server, 'insecure-skip-tls-verify': true }, { token: f.token }) }),
    kubeconfig: 'config',
    kubectl: 'lists',
  },
  {
    what: 'tls-server-name that the serving certificate names (the server URL is an IP address)',
    files: (f) => ({ config: single({ ...verified(f), 'tls-server-name': 'kubernetes.default' }, { token: f.token }) }),
    kubeconfig: 'config',
    kubectl: 'lists',
  },
  {
    what: 'tls-server-name that the serving certificate does not name',
    files: (f) => ({ config: single({ ...verified(f), 'tls-server-name': 'elsewhere.example' }, { token: f.token }) }),
    kubeconfig: 'config',
    kubectl: /x509: certificate is valid for .*, not elsewhere\.example/,
    collector: { exit: 1, says: /Hostname\/IP does not match certificate's altnames: Host: elsewhere\.example\. is not in the cert's altnames/ },
  },
  {
    what: 'a CA that did not sign the serving certificate',
    files: (f) => ({ config: single({ server: f.server, 'certificate-authority-data': b64(f.wrongCa) }, { token: f.token }) }),
    kubeconfig: 'config',
    kubectl: /x509: certificate signed by unknown authority/,
    collector: { exit: 1, says: /could not get apis\/tekton\.dev at cluster scope: self-signed certificate in certificate chain/ },
  },
  {
    what: 'a CA beside insecure-skip-tls-verify',
    files: (f) => ({ config: single({ ...verified(f), 'insecure-skip-tls-verify': true }, { token: f.token }) }),
    kubeconfig: 'config',
    kubectl: /specifying a root certificates file with the insecure flag is not allowed/,
    collector: { exit: 2, says: /cluster "local" sets insecure-skip-tls-verify beside a certificate authority, which kubectl refuses/ },
  },
  // $KUBECONFIG lists
  {
    what: '$KUBECONFIG whose first file does not exist',
    files: (f) => ({ config: single(verified(f), { token: f.token }) }),
    KUBECONFIG: ['missing', 'config'],
    kubectl: 'lists',
  },
  {
    what: '$KUBECONFIG with an empty file and a file of users only, each file\'s relative paths read from its own directory',
    files: (f) => ({
      empty: '',
      'users/config': config({ users: [user('robot', { tokenFile: 'token' })] }),
      'users/token': f.token,
      'clusters/config': config({ clusters: [cluster('local', { server: f.server, 'certificate-authority': 'ca.crt' })], contexts: [context('ci', 'local', 'robot')], current: 'ci' }),
      'clusters/ca.crt': f.ca,
    }),
    KUBECONFIG: ['empty', 'users/config', 'clusters/config'],
    kubectl: 'lists',
  },
  {
    what: '$KUBECONFIG naming a cluster and a user in two files: the first file\'s entries win whole',
    files: (f) => ({
      good: single(verified(f), { token: f.token }),
      // The same names with a CA that does not verify the server and a token nobody issued.
      bad: single({ server: f.server, 'certificate-authority-data': b64(f.wrongCa) }, { token: 'not-a-token', as: 'someone-else' }),
    }),
    KUBECONFIG: ['good', 'bad'],
    kubectl: 'lists',
  },
  {
    what: '$KUBECONFIG with the same two files the other way round: the bad entries win',
    files: (f) => ({
      good: single(verified(f), { token: f.token }),
      bad: single({ server: f.server, 'certificate-authority-data': b64(f.wrongCa) }, { token: 'not-a-token' }),
    }),
    KUBECONFIG: ['bad', 'good'],
    kubectl: /x509: certificate signed by unknown authority/,
    collector: { exit: 1, says: /could not get apis\/tekton\.dev at cluster scope: self-signed certificate in certificate chain/ },
  },
  {
    what: '$KUBECONFIG: current-context from the first file that sets one, not from the file that defines the context',
    files: (f) => ({
      contexts: config({
        clusters: [cluster('local', verified(f)), cluster('unverifiable', { server: f.server, 'certificate-authority-data': b64(f.wrongCa) })],
        users: [user('robot', { token: f.token })],
        contexts: [context('good', 'local', 'robot'), context('broken', 'unverifiable', 'robot')],
      }),
      'first-current': config({ current: 'good' }),
      'second-current': config({ current: 'broken' }),
    }),
    KUBECONFIG: ['contexts', 'first-current', 'second-current'],
    kubectl: 'lists',
  },
  {
    what: '$KUBECONFIG listing only files that do not exist',
    files: () => ({}),
    KUBECONFIG: ['missing-a', 'missing-b'],
    kubectl: LOCALHOST_8080,
    collector: { exit: 2, says: /KUBECONFIG ".*missing-a:.*missing-b": none of these files exists; give the path of a kubeconfig such as ~\/\.kube\/config/ },
  },
  // Choosing the context
  {
    what: '--context choosing a context that is not the current one',
    files: (f) => ({
      config: config({
        clusters: [cluster('local', verified(f)), cluster('unverifiable', { server: f.server, 'certificate-authority-data': b64(f.wrongCa) })],
        users: [user('robot', { token: f.token })],
        contexts: [context('good', 'local', 'robot'), context('broken', 'unverifiable', 'robot')],
        current: 'broken',
      }),
    }),
    kubeconfig: 'config',
    context: 'good',
    kubectl: 'lists',
  },
  {
    what: '--context naming no context',
    files: (f) => ({ config: single(verified(f), { token: f.token }) }),
    kubeconfig: 'config',
    context: 'nope',
    kubectl: /context "nope" does not exist/,
    collector: { exit: 2, says: /--context "nope": no such context in the kubeconfig; valid: ci/ },
  },
  {
    what: 'current-context naming no context',
    files: (f) => ({ config: { ...single(verified(f), { token: f.token }), 'current-context': 'ghost' } }),
    kubeconfig: 'config',
    kubectl: /context was not found for specified context: ghost/,
    collector: { exit: 2, says: /current-context "ghost" names no context in the kubeconfig; choose one with --context \(valid: ci\)/ },
  },
  {
    what: 'an empty current-context',
    files: (f) => ({ config: { ...single(verified(f), { token: f.token }), 'current-context': '' } }),
    kubeconfig: 'config',
    kubectl: LOCALHOST_8080,
    collector: { exit: 2, says: /the kubeconfig has no current context; choose one with --context, such as --context ci/ },
  },
  {
    what: 'a context naming a user the kubeconfig does not define',
    files: (f) => ({ config: config({ clusters: [cluster('local', verified(f))], contexts: [context('ci', 'local', 'ghost')], current: 'ci' }) }),
    kubeconfig: 'config',
    // kubectl, with no credentials to send, asks for a username and, with no terminal, fails.
    kubectl: /Please enter Username: error: EOF/,
    collector: { exit: 2, says: /context "ci" names user "ghost", which the kubeconfig does not define/ },
  },
  {
    what: 'a context naming a cluster the kubeconfig does not define',
    files: (f) => ({ config: config({ users: [user('robot', { token: f.token })], contexts: [context('ci', 'ghost', 'robot')], current: 'ci' }) }),
    kubeconfig: 'config',
    kubectl: LOCALHOST_8080,
    collector: { exit: 2, says: /context "ci" names no cluster with a server URL/ },
  },
  // Files that cannot be used
  {
    what: '--kubeconfig naming a file that does not exist',
    files: () => ({}),
    kubeconfig: 'missing',
    kubectl: /stat .*missing: no such file or directory/,
    collector: { exit: 2, says: /--kubeconfig ".*missing": no such file; give the path of a kubeconfig such as ~\/\.kube\/config/ },
  },
  {
    what: 'an empty --kubeconfig',
    files: () => ({ config: '' }),
    kubeconfig: 'config',
    kubectl: LOCALHOST_8080,
    collector: { exit: 2, says: /--kubeconfig ".*config": nothing to connect to \(it names no clusters or contexts\)/ },
  },
  {
    what: 'broken YAML in one file of $KUBECONFIG',
    files: (f) => ({ good: single(verified(f), { token: f.token }), broken: 'clusters: [oops\n' }),
    KUBECONFIG: ['good', 'broken'],
    kubectl: /error loading config file ".*broken"/,
    collector: { exit: 2, says: /KUBECONFIG file ".*broken": not a valid kubeconfig \(/ },
  },
  {
    what: 'a user named twice in one file',
    files: (f) => ({ config: { ...single(verified(f), { token: f.token }), users: [user('robot', { token: f.token }), user('robot', { token: 'other' })] } }),
    kubeconfig: 'config',
    kubectl: /duplicate name "robot" in list/,
    collector: { exit: 2, says: /not a valid kubeconfig \(users names "robot" twice\)/ },
  },
];

interface Outcome {
  kubectl: Exit;
  collector: CliResult;
}


let controlPlane: ControlPlane;
let kubectlPath: string;
let root: string;
const outcomes = new Map<Variant, Outcome>();

before(async () => {
  [controlPlane, { kubectl: kubectlPath }] = await Promise.all([startControlPlane({ crds: 'v0.45' }), ensureBinaries(['kubectl'])]);
  root = path.join(controlPlane.dir, 'parity');
  await mkdir(path.join(root, 'home'), { recursive: true });
  const seed = new Seeder(controlPlane.kubeConfig());
  await seed.namespace(NS);
  for (const name of SEEDED) await seed.create(gitResource({ name, namespace: NS }, name));
  await controlPlane.apply(readerRbac());
  const chain = await readFile(path.join(controlPlane.dir, 'certs', 'apiserver.crt'), 'utf8');
  const fixture: Fixture = {
    server: controlPlane.server,
    token: await controlPlane.createServiceAccountToken(NS, 'reader'),
    ca: chain,
    wrongCa: rootCertificates[0] ?? '',
  };
  const started = Date.now();
  let next = 0;
  // Two rows at a time: each is two process starts, and CI has two cores.
  const worker = async (): Promise<void> => {
    while (next < VARIANTS.length) {
      const row = VARIANTS[next] as Variant;
      const dir = path.join(root, String(next++));
      await writeFiles(dir, row.files(fixture));
      outcomes.set(row, await runBoth(row, dir));
    }
  };
  await Promise.all([worker(), worker()]);
  process.stdout.write(`# ${VARIANTS.length} kubeconfig variants through kubectl and the collector in ${Date.now() - started} ms\n`);
});

after(async () => {
  await controlPlane?.stop();
});

/** A ServiceAccount that may read NS, and the namespace itself, as the collector needs. */
function readerRbac(): Parameters<ControlPlane['apply']>[0] {
  const subjects = [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace: NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: NS },
      rules: [{ apiGroups: ['tekton.dev'], resources: ['pipelineresources', 'pipelineruns', 'taskruns'], verbs: ['get', 'list'] }],
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader', namespace: NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'parity-reader-ns' }, rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [NS], verbs: ['get'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'parity-reader-ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'parity-reader-ns' }, subjects },
  ];
}

async function writeFiles(dir: string, files: Record<string, FileContent>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    if (typeof content === 'string') {
      await writeFile(file, content, { mode: 0o600 });
    } else if ('script' in content && typeof content.script === 'string') {
      await writeFile(file, content.script);
      await chmod(file, 0o755);
    } else {
      await writeFile(file, yaml.dump(content), { mode: 0o600 });
    }
  }
}

/** kubectl, then the collector, with the same kubeconfig settings and otherwise empty environments. */
async function runBoth(row: Variant, dir: string): Promise<Outcome> {
  const flags = [
    ...(row.kubeconfig === undefined ? [] : ['--kubeconfig', path.join(dir, row.kubeconfig)]),
    ...(row.context === undefined ? [] : ['--context', row.context]),
  ];
  const env: Record<string, string> = {
    // An empty home: no ~/.kube/config to fall back on.
    HOME: path.join(root, 'home'),
    ...(row.KUBECONFIG !== undefined && { KUBECONFIG: row.KUBECONFIG.map((file) => path.join(dir, file)).join(path.delimiter) }),
    ...(row.path !== undefined && { PATH: `${path.join(dir, row.path)}${path.delimiter}${process.env.PATH ?? ''}` }),
  };
  // From the filesystem root: relative paths must be read against the kubeconfig's directory, not here.
  const kubectl = await run(kubectlPath, ['get', 'pipelineresources.tekton.dev', '--namespace', NS, '--output', 'name', '--request-timeout', '20s', ...flags], env, '/');
  const collector = await runCli(['--namespace', NS, '--min-age', '0s', '--dry-run', '--output', 'json', '--log-level', 'error', ...flags], { env });
  return { kubectl, collector };
}

function run(command: string, args: readonly string[], env: Record<string, string>, cwd: string): Promise<Exit> {
  return execCommand(command, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
}

/** `pipelineresource.tekton.dev/src-a` lines, as names. */
function kubectlNames(exit: Exit): string[] {
  return exit.stdout.split('\n').filter((line) => line !== '').map((line) => line.replace(/^pipelineresource\.tekton\.dev\//, '')).sort();
}

function describeRun(outcome: Outcome): string {
  const { kubectl, collector } = outcome;
  return `kubectl exit ${kubectl.code ?? 'on a signal'}: ${kubectl.stdout}${kubectl.stderr}\ncollector exit ${collector.code ?? 'on a signal'}: ${collector.stdout}${collector.stderr}`;
}

/**
 * The collector's failure, one line on stderr: its usage line (exit 2), or at --log-level
 * error the one log line of a pass that could not read the cluster (exit 1), whose reason is
 * also the report's one error.
 */
function collectorFailure(result: CliResult): string {
  assert.match(result.stderr, /^[^\n]+\n$/, 'one line and its newline');
  if (result.code === 2) {
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^tekton-resource-gc: /);
    return result.stderr;
  }
  assert.equal(result.code, 1);
  const line = JSON.parse(result.stderr) as { err: string; msg: string };
  assert.equal(line.msg, 'could not read the cluster; nothing deleted');
  const report = reportOf(result);
  assert.deepEqual(report.items, [], 'nothing decided');
  assert.deepEqual(report.errors, [line.err]);
  return line.err;
}

describe('kubeconfigs read as kubectl reads them', () => {
  for (const row of VARIANTS) {
    const expected = row.kubectl === 'lists' ? 'kubectl lists' : `kubectl fails (${row.kubectl.source})`;
    test(`${row.what}: ${expected}`, () => {
      const outcome = outcomes.get(row);
      assert.ok(outcome !== undefined, 'run in before()');
      const { kubectl, collector } = outcome;
      if (row.kubectl === 'lists') {
        assert.equal(kubectl.code, 0, describeRun(outcome));
        assert.deepEqual(kubectlNames(kubectl), SEEDED, 'kubectl sees what was seeded');
        assert.equal(row.collector, undefined, 'no collector failure is expected where kubectl lists');
        assert.equal(collector.code, 0, describeRun(outcome));
        const report = reportOf(collector);
        assert.deepEqual(report.items.map((item) => `${item.namespace}/${item.name}`).sort(), SEEDED.map((name) => `${NS}/${name}`), 'the collector sees what kubectl sees');
        return;
      }
      assert.notEqual(kubectl.code, 0, describeRun(outcome));
      // Its prompts go to stdout, its errors to stderr.
      assert.match(`${kubectl.stdout}${kubectl.stderr}`, row.kubectl, describeRun(outcome));
      assert.ok(row.collector !== undefined, 'a row where kubectl fails says how the collector fails');
      assert.equal(collector.code, row.collector.exit, describeRun(outcome));
      assert.match(collectorFailure(collector), row.collector.says);
    });
  }
});

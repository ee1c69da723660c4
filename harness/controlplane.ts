// A real control plane (etcd + kube-apiserver) on loopback ports in a temporary
// directory, for tests, the demo and the benchmark. What it builds, the stop order and
// the variables that point at binaries: docs/development.md; how no process outlives us:
// lifetime.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPair, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  dumpYaml,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { ensureBinaries } from './build.js';
import type { BuildOutput } from './buildprogress.js';
import { CRD_SETS, type CrdSetName } from './crds.js';
import { Watchdog, exitOf, terminate, track, untrack } from './lifetime.js';

export { stopAll as stopAllControlPlanes } from './lifetime.js';

export interface ControlPlaneOptions {
  /** Which Tekton CRDs to install; 'v0.45' by default. */
  crds?: CrdSetName;
  /** Where to write the administrator's kubeconfig; inside the temporary directory by default. */
  kubeconfigPath?: string;
  /** How long etcd + kube-apiserver may take to answer /readyz; 60 s by default. */
  readyTimeoutMs?: number;
  /** Where binaries are looked up (TRGC_*, KUBEBUILDER_ASSETS, XDG_CACHE_HOME); process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Where a build's progress line goes, when binaries are missing; stderr by default. */
  output?: BuildOutput;
  /**
   * etcd's data directory, kept by stop() so that the next start with the same directory
   * finds every object again (the benchmark seeds once and measures many times). Created
   * when missing; the CRDs are installed only when the data has none yet. By default
   * etcd's data lives in `dir` and goes with it.
   */
  dataDir?: string;
  /**
   * kube-apiserver's watch cache (on by default, as in every cluster). It holds every object
   * decoded in memory: 6.5-9.3 GB for the benchmark's default size, so the benchmark turns it
   * off to fit four times that on one machine; lists are then served by etcd.
   */
  watchCache?: boolean;
}

/** A manifest as `kubectl apply` takes it: any kind, any fields besides the header. */
export type Manifest = KubernetesObject & Record<string, unknown>;

export interface TokenOptions {
  expirationSeconds?: number;
  /** The API server's own audience when empty. */
  audiences?: string[];
}

export interface ControlPlane {
  /** Temporary directory holding etcd's data (unless options.dataDir), certificates, keys and both logs. */
  readonly dir: string;
  /** https://127.0.0.1:PORT */
  readonly server: string;
  /** Bearer token of `admin`, a member of system:masters. */
  readonly adminToken: string;
  readonly kubeconfigPath: string;
  readonly crds: CrdSetName;
  /** Resolves with a description if etcd or kube-apiserver exits without stop(). */
  readonly unexpectedExit: Promise<string>;
  /** A client configuration for the administrator, or for the holder of `token`. */
  kubeConfig(token?: string): KubeConfig;
  /** A token for the ServiceAccount from the TokenRequest API (the account must exist). */
  createServiceAccountToken(namespace: string, serviceAccount: string, options?: TokenOptions): Promise<string>;
  /** Server-side apply as the administrator; objects need apiVersion, kind, metadata.name (and namespace). */
  apply(objects: readonly Manifest[]): Promise<KubernetesObject[]>;
  /** Creates more CRDs (another operator's, say) and waits until each is Established and served in discovery. */
  installCrds(crds: readonly V1CustomResourceDefinition[]): Promise<void>;
  /** Stops kube-apiserver, then etcd, and removes `dir`. Safe to call more than once. */
  stop(): Promise<void>;
}

const DEFAULT_READY_TIMEOUT_MS = 60_000;
const CRD_READY_TIMEOUT_MS = 30_000;
const POLL_MS = 100;
const LOG_TAIL_LINES = 25;
const FIELD_MANAGER = 'tekton-resource-gc-harness';

/** The servers started but did not become ready: their logs say why. */
class NotReadyError extends Error {}

interface ServerProcess {
  name: 'etcd' | 'kube-apiserver';
  child: ChildProcess;
  exited: Promise<void>;
  logPath: string;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const crds = options.crds ?? 'v0.45';
  const binaries = await ensureBinaries(['etcd', 'kube-apiserver'], {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.output === undefined ? {} : { output: options.output }),
  });
  const dir = await mkdtemp(join(tmpdir(), 'trgc-controlplane-'));
  // Started before any server so that it covers them from their first instant.
  const watchdog = new Watchdog(dir);
  const processes: ServerProcess[] = [];
  let stopping: Promise<void> | undefined;
  const controlPlane = {
    stop(): Promise<void> {
      stopping ??= stopProcesses(processes, watchdog, dir).finally(() => untrack(controlPlane));
      return stopping;
    },
  };
  track(controlPlane);

  try {
    const { etcdClientPort, etcdPeerPort, apiserverPort } = await freePorts();
    const adminToken = randomBytes(24).toString('hex');
    await writeSecrets(dir, adminToken);
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const etcdData = options.dataDir ?? dir;
    await checkDataDir(options.dataDir, crds);
    const launches: [ServerProcess['name'], string, string[]][] = [
      ['etcd', binaries.etcd, etcdArgs(etcdData, etcdUrl, `http://127.0.0.1:${etcdPeerPort}`)],
      ['kube-apiserver', binaries['kube-apiserver'], apiserverArgs(dir, etcdUrl, apiserverPort, options.watchCache ?? true)],
    ];
    for (const [name, binary, args] of launches) {
      // A signal may have stopped us while we awaited; nothing may start after stop().
      if (stopping !== undefined) throw new Error('stopped while starting');
      const started = startServer(name, binary, args, dir, watchdog);
      processes.push(started);
      await once(started.child, 'spawn');
    }
    const server = `https://127.0.0.1:${apiserverPort}`;
    await waitUntilReady(server, adminToken, processes, options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);

    const kubeconfigPath = options.kubeconfigPath ?? join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml(server, adminToken), { mode: 0o600 });
    const kubeConfig = (token = adminToken): KubeConfig => clientConfig(server, token);
    await installCrds(kubeConfig(), server, adminToken, CRD_SETS[crds]);

    return Object.assign(controlPlane, {
      dir,
      server,
      adminToken,
      kubeconfigPath,
      crds,
      unexpectedExit: firstUnexpectedExit(processes, () => stopping !== undefined),
      kubeConfig,
      createServiceAccountToken: (namespace: string, serviceAccount: string, tokenOptions: TokenOptions = {}) =>
        createServiceAccountToken(kubeConfig(), namespace, serviceAccount, tokenOptions),
      apply: (objects: readonly Manifest[]) => apply(kubeConfig(), objects),
      installCrds: (more: readonly V1CustomResourceDefinition[]) => installCrds(kubeConfig(), server, adminToken, more),
    });
  } catch (error) {
    // Read the logs before stop() removes them: they say why a server did not come up.
    const logs = error instanceof NotReadyError ? await logTails(processes) : '';
    await controlPlane.stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`control plane did not start: ${message}${logs}`, { cause: error });
  }
}

async function stopProcesses(processes: readonly ServerProcess[], watchdog: Watchdog, dir: string): Promise<void> {
  // kube-apiserver first: stopped after etcd it waits on etcd for minutes.
  for (const server of [...processes].reverse()) await terminate(server.child, server.exited);
  await watchdog.release();
  await rm(dir, { recursive: true, force: true });
}

function firstUnexpectedExit(processes: readonly ServerProcess[], isStopping: () => boolean): Promise<string> {
  return new Promise((resolve) => {
    for (const server of processes) {
      server.child.once('exit', (code, signal) => {
        if (!isStopping()) resolve(`${server.name} exited (${signal ?? `code ${code ?? 'none'}`}); its log: ${server.logPath}`);
      });
    }
  });
}

async function freePorts(): Promise<{ etcdClientPort: number; etcdPeerPort: number; apiserverPort: number }> {
  // All listeners stay open until every port is known, so the ports are distinct.
  const servers = await Promise.all(
    [1, 2, 3].map(() => {
      const server = createServer();
      return new Promise<typeof server>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    }),
  );
  const [etcdClientPort, etcdPeerPort, apiserverPort] = servers.map((server) => (server.address() as AddressInfo).port) as [number, number, number];
  await Promise.all(servers.map((server) => promisify(server.close.bind(server))()));
  return { etcdClientPort, etcdPeerPort, apiserverPort };
}

async function writeSecrets(dir: string, adminToken: string): Promise<void> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  await writeFile(join(dir, 'sa.key'), privateKey, { mode: 0o600 });
  await writeFile(join(dir, 'tokens.csv'), `${adminToken},admin,admin-uid,system:masters\n`, { mode: 0o600 });
  await mkdir(join(dir, 'certs'));
}

/** What a kept data directory holds: one CRD set, named in a file beside etcd's data. */
const DATA_DIR_CRDS_FILE = 'trgc-crds';

/** A kept data directory serves one CRD set: a start that asks for another is refused. */
async function checkDataDir(dataDir: string | undefined, crds: CrdSetName): Promise<void> {
  if (dataDir === undefined) return;
  await mkdir(dataDir, { recursive: true });
  const marker = join(dataDir, DATA_DIR_CRDS_FILE);
  const existing = (await readFile(marker, 'utf8').catch(() => '')).trim();
  if (existing !== '' && existing !== crds) {
    throw new Error(`data directory ${dataDir} holds the ${existing} CRD set, not ${crds}: remove it or choose another`);
  }
  await writeFile(marker, `${crds}\n`);
}

/** etcd's default 2 GiB quota is below what a benchmark at 4x its default size stores. */
const ETCD_QUOTA_BYTES = 8 * 1024 ** 3;

function etcdArgs(dataDir: string, clientUrl: string, peerUrl: string): string[] {
  return [
    '--data-dir', join(dataDir, 'etcd'),
    '--quota-backend-bytes', String(ETCD_QUOTA_BYTES),
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', `default=${peerUrl}`,
    // The data is thrown away with the directory; fsync only slows tests down.
    '--unsafe-no-fsync',
  ];
}

function apiserverArgs(dir: string, etcdUrl: string, port: number, watchCache: boolean): string[] {
  const serviceAccountKey = join(dir, 'sa.key');
  return [
    ...(watchCache ? [] : ['--watch-cache=false']),
    '--etcd-servers', etcdUrl,
    '--bind-address', '127.0.0.1',
    // Without it kube-apiserver looks for a default route, which a sandbox may lack.
    '--advertise-address', '127.0.0.1',
    '--secure-port', String(port),
    '--cert-dir', join(dir, 'certs'),
    '--authorization-mode', 'RBAC',
    '--token-auth-file', join(dir, 'tokens.csv'),
    '--service-account-issuer', 'https://kubernetes.default.svc',
    '--service-account-key-file', serviceAccountKey,
    '--service-account-signing-key-file', serviceAccountKey,
    '--service-cluster-ip-range', '10.0.0.0/24',
    // It would wait for a token controller that does not run here.
    '--disable-admission-plugins', 'ServiceAccount',
  ];
}

function startServer(name: ServerProcess['name'], binary: string, args: readonly string[], dir: string, watchdog: Watchdog): ServerProcess {
  const logPath = join(dir, `${name}.log`);
  const log = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, args, {
      // Own session: a terminal's Ctrl-C must not reach both servers at once (lifetime.ts).
      detached: true,
      stdio: ['ignore', log, log],
      env: serverEnv(),
    });
  } finally {
    closeSync(log);
  }
  const exited = exitOf(child);
  if (child.pid !== undefined) watchdog.watch(child.pid);
  // Like the watchdog: a forgotten stop() must not keep the process alive.
  child.unref();
  return { name, child, exited, logPath };
}

/** Our environment without ETCD_* variables, which etcd would read as flags. */
function serverEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('ETCD_')));
}

async function waitUntilReady(server: string, token: string, processes: readonly ServerProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastAnswer: string;
  for (;;) {
    for (const { name, child } of processes) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new NotReadyError(`${name} exited (${child.signalCode ?? `code ${child.exitCode ?? 'none'}`}) before ${server}/readyz answered 200`);
      }
    }
    try {
      const answer = await get(`${server}/readyz`, token);
      if (answer.status === 200) return;
      lastAnswer = `${answer.status}: ${answer.body.split('\n').filter((line) => line.includes('failed')).join('; ')}`;
    } catch (error) {
      lastAnswer = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new NotReadyError(`${server}/readyz did not answer 200 within ${timeoutMs / 1000} s (last: ${lastAnswer})`);
    await sleep(POLL_MS);
  }
}

async function logTails(processes: readonly ServerProcess[]): Promise<string> {
  const tails = await Promise.all(
    processes.map(async ({ name, logPath }) => {
      const text = await readFile(logPath, 'utf8').catch(() => '');
      const tail = text.trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
      return `\n--- last ${LOG_TAIL_LINES} lines of ${name}'s log ---\n${tail}`;
    }),
  );
  return tails.join('');
}

/** A GET that accepts the server's self-signed certificate. */
function get(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

function kubeconfigYaml(server: string, token: string): string {
  return dumpYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'trgc', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'trgc', context: { cluster: 'trgc', user: 'admin' } }],
    'current-context': 'trgc',
  });
}

function clientConfig(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'trgc', server, skipTLSVerify: true }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'trgc', cluster: 'trgc', user: 'user' }],
    currentContext: 'trgc',
  });
  return config;
}

/** Creates the CRDs and waits until each is Established and every served version is in discovery. */
async function installCrds(config: KubeConfig, server: string, token: string, crds: readonly V1CustomResourceDefinition[]): Promise<void> {
  const api = config.makeApiClient(ApiextensionsV1Api);
  for (const body of crds) {
    try {
      await api.createCustomResourceDefinition({ body });
    } catch (error) {
      // Already there: a kept data directory (options.dataDir) from an earlier start.
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    }
  }
  const deadline = Date.now() + CRD_READY_TIMEOUT_MS;
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    await pollUntil(deadline, `CRD ${name} Established`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      return current.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') ?? false;
    });
    for (const version of crd.spec.versions.filter((candidate) => candidate.served)) {
      const path = `/apis/${crd.spec.group}/${version.name}`;
      await pollUntil(deadline, `${crd.spec.names.plural} in discovery at ${path}`, async () => {
        const answer = await get(`${server}${path}`, token);
        if (answer.status !== 200) return false;
        const list = JSON.parse(answer.body) as { resources?: { name: string }[] };
        return list.resources?.some((resource) => resource.name === crd.spec.names.plural) ?? false;
      });
    }
  }
}

async function pollUntil(deadline: number, what: string, check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) {
    if (Date.now() > deadline) throw new NotReadyError(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

async function createServiceAccountToken(config: KubeConfig, namespace: string, serviceAccount: string, options: TokenOptions): Promise<string> {
  const answer = await config.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: {
      spec: {
        audiences: options.audiences ?? [],
        ...(options.expirationSeconds === undefined ? {} : { expirationSeconds: options.expirationSeconds }),
      },
    },
  });
  const token = answer.status?.token;
  if (token === undefined) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  return token;
}

async function apply(config: KubeConfig, objects: readonly Manifest[]): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(config);
  const applied: KubernetesObject[] = [];
  for (const object of objects) {
    applied.push(await client.patch(object, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply));
  }
  return applied;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

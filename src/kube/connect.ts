import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isIPv6 } from 'node:net';
import yaml from 'js-yaml';
import { ConfigError } from '../config.js';

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How long a token read from a file is used before the file is read again (client-go's figure). */
export const TOKEN_FILE_REFRESH_MS = 60_000;

export interface ConnectionSettings {
  kubeconfig?: string;
  context?: string;
}

/** The TLS material of one connection: what an https.Agent takes. */
export interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

export type AuthHeaders = Record<string, string | string[]>;

/** How to reach one API server as one identity. */
export interface Connection {
  /** https://host:port, without a trailing slash. */
  readonly server: string;
  /** Where the settings came from, for messages: `kubeconfig context "ci"`, or the pod's service account. */
  readonly origin: string;
  readonly tls: TlsMaterial;
  /** The headers that authenticate one request; asked before each, since tokens rotate. */
  headers(): Promise<AuthHeaders>;
}

export interface LoadOptions {
  /** The service account mount read in a pod; SERVICE_ACCOUNT_DIR by default. */
  serviceAccountDir?: string;
  /** The clock deciding when a token file is read again; Date.now by default. */
  now?: () => number;
}

/**
 * The credentials to use, in kubectl's order: --kubeconfig, $KUBECONFIG, ~/.kube/config,
 * then the pod's service account. Finding nothing is an error, never a silent
 * http://localhost:8080.
 *
 * The kubeconfig is read here rather than by @kubernetes/client-node's KubeConfig: loading
 * that class loads the whole generated API (about 60 MiB of memory and a second of CPU on
 * every pass, a third of the collector's memory). Users authenticated by a credential
 * plugin (`exec`) or an `auth-provider` are still handed to client-node, loaded only then,
 * so that those behave exactly as client-node makes them behave.
 */
export async function loadConnection(
  settings: ConnectionSettings,
  env: Readonly<Record<string, string | undefined>>,
  options: LoadOptions = {},
): Promise<Connection> {
  const now = options.now ?? Date.now;
  const listed = kubeconfigList(env);
  const source = settings.kubeconfig ?? listed[0] ?? homeKubeconfig(env);
  if (source === undefined) {
    const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    if (env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(path.join(serviceAccountDir, 'token'))) {
      return inClusterConnection(env, serviceAccountDir, now);
    }
    throw new ConfigError(
      'no Kubernetes credentials: pass --kubeconfig FILE, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
    );
  }
  const origin = settings.kubeconfig !== undefined ? '--kubeconfig' : 'KUBECONFIG';
  const files = settings.kubeconfig === undefined && listed.length > 0 ? listed : [source];
  const merged = mergeKubeconfigs(files.map((file) => readKubeconfig(file, origin)));
  const contexts = [...merged.contexts.keys()];
  const valid = `valid: ${contexts.join(', ') || '(none)'}`;
  if (settings.context !== undefined && !merged.contexts.has(settings.context)) {
    throw new ConfigError(`--context "${settings.context}": no such context in the kubeconfig; ${valid}`);
  }
  const contextName = settings.context ?? merged.currentContext;
  const where = settings.context !== undefined ? `--context "${settings.context}"` : `${origin} "${source}"`;
  const context = contextName === undefined ? undefined : merged.contexts.get(contextName);
  if (contextName === undefined || context === undefined) {
    throw new ConfigError(`${where}: the kubeconfig has no current context; choose one with --context, such as --context ${contexts[0] ?? 'kind-ci'} (${valid})`);
  }
  const cluster = merged.clusters.get(context.cluster);
  const server = cluster === undefined ? '' : optionalString(cluster.body, 'server', cluster) ?? '';
  if (cluster === undefined || server === '') {
    throw new ConfigError(`${where}: context "${contextName}" names no cluster with a server URL; fix the kubeconfig or choose another context with --context (${valid})`);
  }
  const skipTlsVerify = cluster.body['insecure-skip-tls-verify'] === true;
  // The token would travel in clear; say so here, in one line, not at the first request.
  if (server.startsWith('http:') && !skipTlsVerify) {
    throw new ConfigError(
      `${where}: cluster "${context.cluster}" has a plain http server ${server}: use https, or set insecure-skip-tls-verify: true on that cluster to send credentials unencrypted`,
    );
  }
  if (optionalString(cluster.body, 'proxy-url', cluster) !== undefined) {
    // Requests would otherwise go straight to the server, past the proxy the kubeconfig asks for.
    throw new ConfigError(`${where}: cluster "${context.cluster}" sets proxy-url, which tekton-resource-gc does not support; run it where the API server is reachable directly (such as in the cluster)`);
  }
  const user = context.user === undefined ? undefined : merged.users.get(context.user);
  if (context.user !== undefined && user === undefined) {
    throw new ConfigError(`${where}: context "${contextName}" names user "${context.user}", which the kubeconfig does not define; fix the kubeconfig or choose another context with --context (${valid})`);
  }
  if (user !== undefined && (user.body.exec !== undefined || user.body['auth-provider'] !== undefined)) {
    const { clientNodeConnection } = await import('./clientnode.js');
    return clientNodeConnection(kubeconfigFor(contextName, context, cluster, user));
  }
  const serverUrl = server.replace(/\/$/, '');
  return {
    server: serverUrl,
    origin: `kubeconfig context "${contextName}"`,
    tls: {
      ...(skipTlsVerify && { rejectUnauthorized: false }),
      ...optional('servername', optionalString(cluster.body, 'tls-server-name', cluster)),
      ...optional('ca', material(cluster, 'certificate-authority')),
      ...(user !== undefined && optional('cert', material(user, 'client-certificate'))),
      ...(user !== undefined && optional('key', material(user, 'client-key'))),
    },
    headers: user === undefined ? async () => ({}) : userHeaders(user, now),
  };
}

/** Credentials that fail when first asked for (a plugin that cannot run, a missing file), in one line. */
export function unusableCredentials(origin: string, error: unknown): ConfigError {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new ConfigError(`the credentials of ${origin} cannot be used: ${reason}`);
}

/** A named entry of a kubeconfig, with the directory its relative paths are read from. */
interface Entry {
  kind: 'cluster' | 'user' | 'context';
  name: string;
  body: Record<string, unknown>;
  file: string;
}

interface ParsedKubeconfig {
  clusters: Entry[];
  users: Entry[];
  contexts: Entry[];
  currentContext: string | undefined;
}

interface MergedKubeconfig {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, { cluster: string; user: string | undefined }>;
  currentContext: string | undefined;
}

function invalid(file: string, origin: string, reason: string): ConfigError {
  return new ConfigError(`${origin} "${file}": not a valid kubeconfig (${reason}); give a file such as ~/.kube/config, as kubectl config view --raw writes it`);
}

function readKubeconfig(file: string, origin: string): ParsedKubeconfig {
  if (!existsSync(file)) {
    throw new ConfigError(`${origin} "${file}": no such file; give the path of a kubeconfig such as ~/.kube/config`);
  }
  let document: unknown;
  try {
    document = yaml.load(readFileSync(file, 'utf8'), { filename: file });
  } catch (error) {
    throw invalid(file, origin, (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unreadable');
  }
  if (document === null || document === undefined) document = {};
  if (!isRecord(document)) {
    throw invalid(file, origin, `it is a YAML ${Array.isArray(document) ? 'list' : typeof document}, not a mapping`);
  }
  const entries = (key: 'clusters' | 'users' | 'contexts', kind: Entry['kind']): Entry[] => {
    const list = document[key] ?? [];
    if (!Array.isArray(list)) throw invalid(file, origin, `${key} is not a list`);
    return list.map((item: unknown, i) => {
      if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') throw invalid(file, origin, `${key}[${i}].name is missing`);
      const body = item[kind] ?? {};
      if (!isRecord(body)) throw invalid(file, origin, `${key}[${i}].${kind} is not a mapping`);
      return { kind, name: item.name, body, file };
    });
  };
  const parsed: ParsedKubeconfig = {
    clusters: entries('clusters', 'cluster'),
    users: entries('users', 'user'),
    contexts: entries('contexts', 'context'),
    currentContext: typeof document['current-context'] === 'string' && document['current-context'] !== '' ? document['current-context'] : undefined,
  };
  if (parsed.clusters.length === 0 && parsed.contexts.length === 0) {
    throw invalid(file, origin, 'it names no clusters or contexts');
  }
  return parsed;
}

/** kubectl's rule for $KUBECONFIG lists: the first file to name a cluster, user, context or current context wins. */
function mergeKubeconfigs(files: readonly ParsedKubeconfig[]): MergedKubeconfig {
  const merged: MergedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: undefined };
  for (const file of files) {
    for (const cluster of file.clusters) if (!merged.clusters.has(cluster.name)) merged.clusters.set(cluster.name, cluster);
    for (const user of file.users) if (!merged.users.has(user.name)) merged.users.set(user.name, user);
    for (const context of file.contexts) {
      if (merged.contexts.has(context.name)) continue;
      merged.contexts.set(context.name, {
        cluster: optionalString(context.body, 'cluster', context) ?? '',
        user: optionalString(context.body, 'user', context),
      });
    }
    merged.currentContext ??= file.currentContext;
  }
  return merged;
}

/** The files $KUBECONFIG lists, in order. */
function kubeconfigList(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env.KUBECONFIG ?? '').split(path.delimiter).filter((file) => file !== '');
}

function homeKubeconfig(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const home = path.join(env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

function optionalString(body: Record<string, unknown>, key: string, entry: Entry): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new ConfigError(`kubeconfig "${entry.file}": ${entry.kind} "${entry.name}" has a ${key} that is not a string; give it as kubectl config view --raw writes it`);
  }
  return value;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** A relative path in a kubeconfig is relative to that file's directory, as kubectl reads it. */
function resolvePath(entry: Entry, file: string): string {
  return path.resolve(path.dirname(path.resolve(entry.file)), file);
}

/** `<name>-data` (base64) or the file `<name>` names. */
function material(entry: Entry, name: string): Buffer | undefined {
  const data = optionalString(entry.body, `${name}-data`, entry);
  if (data !== undefined) {
    return Buffer.from(data, 'base64');
  }
  const file = optionalString(entry.body, name, entry);
  return file === undefined ? undefined : readCredentialFile(entry, name, resolvePath(entry, file));
}

function readCredentialFile(entry: Entry, field: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigError(`kubeconfig "${entry.file}": ${entry.kind} "${entry.name}" has ${field} "${file}", which cannot be read (${code}); fix the path or use ${field}-data`);
  }
}

/** Bearer token, token file (read again once a minute: projected tokens rotate), basic auth, impersonation. */
function userHeaders(user: Entry, now: () => number): () => Promise<AuthHeaders> {
  const fixed: AuthHeaders = {};
  const username = optionalString(user.body, 'username', user);
  const password = optionalString(user.body, 'password', user);
  if (username !== undefined) {
    fixed.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }
  const impersonate = optionalString(user.body, 'as', user);
  if (impersonate !== undefined) fixed['impersonate-user'] = impersonate;
  const groups = user.body['as-groups'];
  if (Array.isArray(groups) && groups.length > 0) fixed['impersonate-group'] = groups.map(String);
  const token = optionalString(user.body, 'token', user);
  if (token !== undefined) {
    fixed.authorization = `Bearer ${token.trim()}`;
    return async () => fixed;
  }
  const tokenFile = optionalString(user.body, 'tokenFile', user);
  if (tokenFile === undefined) {
    return async () => fixed;
  }
  const read = tokenFileReader(resolvePath(user, tokenFile), now, (file) => readCredentialFile(user, 'tokenFile', file));
  return async () => ({ ...fixed, authorization: `Bearer ${read()}` });
}

function tokenFileReader(file: string, now: () => number, readFile: (file: string) => Buffer): () => string {
  let token = '';
  let readAt = -Infinity;
  return () => {
    if (now() - readAt > TOKEN_FILE_REFRESH_MS) {
      token = readFile(file).toString('utf8').trim();
      readAt = now();
    }
    return token;
  };
}

/** What client-node's loadFromCluster reads, without client-node. */
function inClusterConnection(env: Readonly<Record<string, string | undefined>>, serviceAccountDir: string, now: () => number): Connection {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const entry: Entry = { kind: 'user', name: 'in-cluster service account', body: {}, file: path.join(serviceAccountDir, 'token') };
  const read = tokenFileReader(path.join(serviceAccountDir, 'token'), now, (file) => readCredentialFile(entry, 'token', file));
  const caFile = path.join(serviceAccountDir, 'ca.crt');
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    origin: 'the in-cluster service account',
    tls: existsSync(caFile) ? { ca: readCredentialFile(entry, 'ca.crt', caFile) } : {},
    headers: async () => ({ authorization: `Bearer ${read()}` }),
  };
}

/** One context, its cluster and its user as a kubeconfig document, file paths made absolute. */
function kubeconfigFor(contextName: string, context: { cluster: string; user: string | undefined }, cluster: Entry, user: Entry): string {
  const absolute = (entry: Entry, keys: readonly string[]): Record<string, unknown> => {
    const body = { ...entry.body };
    for (const key of keys) {
      if (typeof body[key] === 'string' && body[key] !== '') body[key] = resolvePath(entry, body[key]);
    }
    return body;
  };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: absolute(cluster, ['certificate-authority']) }],
    users: [{ name: user.name, user: absolute(user, ['client-certificate', 'client-key', 'tokenFile']) }],
    contexts: [{ name: contextName, context: { cluster: context.cluster, user: context.user } }],
    'current-context': contextName,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

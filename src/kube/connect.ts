import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isIPv6 } from 'node:net';
import yaml from 'js-yaml';
import { redactUrl } from '../text/redact.js';
import { KubeconfigError, type AuthHeaders, type Connection } from './connection.js';

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How long a token read from a file is used before the file is read again (client-go's figure). */
export const TOKEN_FILE_REFRESH_MS = 60_000;

export interface ConnectionSettings {
  kubeconfig?: string;
  context?: string;
}

export interface LoadOptions {
  /** The service account mount read in a pod; SERVICE_ACCOUNT_DIR by default. */
  serviceAccountDir?: string;
  /** The clock deciding when a token file is read again; Date.now by default. */
  now?: () => number;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The credentials to use, read as kubectl reads them (client-go's ClientConfigLoadingRules
 * and DeferredLoadingClientConfig): --kubeconfig, else every file $KUBECONFIG lists, merged,
 * else ~/.kube/config; when none of those names a context, the pod's service account.
 * Finding nothing is an error, never kubectl's silent http://localhost:8080.
 *
 * The kubeconfig is read here rather than by @kubernetes/client-node's KubeConfig: loading
 * that class loads the whole generated API (about 60 MiB of memory and a second of CPU on
 * every pass, a third of the collector's memory). Users authenticated by a credential
 * plugin (`exec`) or an `auth-provider` are still handed to client-node, loaded only then,
 * so that those behave exactly as client-node makes them behave.
 */
export async function loadConnection(settings: ConnectionSettings, env: Env, options: LoadOptions = {}): Promise<Connection> {
  const now = options.now ?? Date.now;
  const sources = kubeconfigSources(settings, env);
  const { parsed, missing } = readKubeconfigs(sources);
  const merged = mergeKubeconfigs(parsed);
  const chosen = chooseContext(merged, settings.context, sources.where);
  if (chosen === undefined) {
    // Nothing names a context: client-go then uses the in-cluster configuration when it can.
    const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    if (inClusterPossible(env, serviceAccountDir)) return inClusterConnection(env, serviceAccountDir, now);
    throw nothingToConnectTo(sources, parsed.length, merged, missing);
  }
  const { contextName, cluster, user, where } = chosen;
  checkCluster(cluster, where);
  if (user !== undefined) checkUser(user);
  if (user !== undefined && (user.body.exec !== undefined || user.body['auth-provider'] !== undefined)) {
    const { clientNodeConnection } = await import('./clientnode.js');
    return clientNodeConnection(kubeconfigFor(contextName, cluster, user));
  }
  const cert = user === undefined ? undefined : material(user, 'client-certificate');
  return {
    server: serverOf(cluster).replace(/\/$/, ''),
    origin: `kubeconfig context "${contextName}"`,
    tls: {
      ...(optionalBoolean(cluster, 'insecure-skip-tls-verify') && { rejectUnauthorized: false }),
      ...optional('servername', optionalString(cluster.body, 'tls-server-name', cluster)),
      ...optional('ca', material(cluster, 'certificate-authority')),
      // client-go sends a key only with a certificate, and checkUser has made sure a certificate has its key.
      ...(cert !== undefined && user !== undefined && { cert, ...optional('key', material(user, 'client-key')) }),
    },
    headers: user === undefined ? () => Promise.resolve({}) : userHeaders(user, now),
  };
}

/** A named entry of a kubeconfig, with the file its relative paths are read from. */
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
  /** '' when the file sets none, as client-go reads an absent current-context. */
  currentContext: string;
}

interface MergedKubeconfig {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext: string;
}

/** The files to read, in kubectl's order, and how messages name them. */
interface Sources {
  /** A file --kubeconfig names must exist; files $KUBECONFIG lists, or ~/.kube/config, may be missing. */
  from: '--kubeconfig' | 'KUBECONFIG' | 'home';
  files: string[];
  /** `--kubeconfig "f"`, `KUBECONFIG "a:b"` or `kubeconfig "~/.kube/config"`. */
  where: string;
  /** How messages name one of the files. */
  label(file: string): string;
}

/**
 * client-go's NewDefaultClientConfigLoadingRules: a non-empty $KUBECONFIG is split on the path
 * list separator and its duplicates dropped, and then ~/.kube/config is not read even if every
 * file it lists is missing; an empty one counts as unset.
 * https://github.com/kubernetes/client-go/blob/master/tools/clientcmd/loader.go
 */
function kubeconfigSources(settings: ConnectionSettings, env: Env): Sources {
  if (settings.kubeconfig !== undefined) {
    const where = `--kubeconfig "${settings.kubeconfig}"`;
    return { from: '--kubeconfig', files: [settings.kubeconfig], where, label: () => where };
  }
  const listed = env.KUBECONFIG ?? '';
  if (listed !== '') {
    const files = [...new Set(listed.split(path.delimiter).filter((file) => file !== ''))];
    return { from: 'KUBECONFIG', files, where: `KUBECONFIG "${listed}"`, label: (file) => `KUBECONFIG ${files.length > 1 ? 'file ' : ''}"${file}"` };
  }
  const home = path.join(env.HOME ?? homedir(), '.kube', 'config');
  return { from: 'home', files: [home], where: `kubeconfig "${home}"`, label: (file) => `kubeconfig "${file}"` };
}

/**
 * client-go's ClientConfigLoadingRules.Load: a missing file is skipped unless --kubeconfig
 * names it; any other file that cannot be read or parsed fails the whole load.
 */
function readKubeconfigs(sources: Sources): { parsed: ParsedKubeconfig[]; missing: string[] } {
  const parsed: ParsedKubeconfig[] = [];
  const missing: string[] = [];
  for (const file of sources.files) {
    const label = sources.label(file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw invalid(label, errorLine(error));
      if (sources.from === '--kubeconfig') throw new KubeconfigError(`${label}: no such file; give the path of a kubeconfig such as ~/.kube/config`);
      missing.push(file);
      continue;
    }
    parsed.push(parseKubeconfig(text, file, label));
  }
  return { parsed, missing };
}

function invalid(label: string, reason: string): KubeconfigError {
  return new KubeconfigError(`${label}: not a valid kubeconfig (${reason}); give a file such as ~/.kube/config, as kubectl config view --raw writes it`);
}

/** As client-go decodes a kubeconfig: an empty file is an empty config; a name given twice in one list is an error. */
function parseKubeconfig(text: string, file: string, label: string): ParsedKubeconfig {
  let document: unknown;
  try {
    document = yaml.load(text, { filename: file });
  } catch (error) {
    throw invalid(label, errorLine(error));
  }
  if (document === null || document === undefined) document = {};
  if (!isRecord(document)) {
    throw invalid(label, `it is a YAML ${Array.isArray(document) ? 'list' : typeof document}, not a mapping`);
  }
  const entries = (key: 'clusters' | 'users' | 'contexts', kind: Entry['kind']): Entry[] => {
    const list = document[key] ?? [];
    if (!Array.isArray(list)) throw invalid(label, `${key} is not a list`);
    const names = new Set<string>();
    return list.map((item: unknown, i) => {
      if (!isRecord(item)) throw invalid(label, `${key}[${i}] is not a mapping`);
      // client-go keys entries by name; a missing name is the name "".
      const name = item.name ?? '';
      if (typeof name !== 'string') throw invalid(label, `${key}[${i}].name is not a string`);
      if (names.has(name)) throw invalid(label, `${key} names "${name}" twice`);
      names.add(name);
      const body = item[kind] ?? {};
      if (!isRecord(body)) throw invalid(label, `${key}[${i}].${kind} is not a mapping`);
      return { kind, name, body, file };
    });
  };
  const currentContext = document['current-context'] ?? '';
  if (typeof currentContext !== 'string') throw invalid(label, 'current-context is not a string');
  return { clusters: entries('clusters', 'cluster'), users: entries('users', 'user'), contexts: entries('contexts', 'context'), currentContext };
}

/**
 * client-go's merge of several files: the first file to name a cluster, user or context wins
 * that name whole (later files' fields for it are dropped, not merged in), and the first file
 * that sets current-context wins it. Files that name nothing, or only users, are fine.
 */
function mergeKubeconfigs(files: readonly ParsedKubeconfig[]): MergedKubeconfig {
  const merged: MergedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '' };
  const add = (map: Map<string, Entry>, entries: readonly Entry[]): void => {
    for (const entry of entries) if (!map.has(entry.name)) map.set(entry.name, entry);
  };
  for (const file of files) {
    add(merged.clusters, file.clusters);
    add(merged.users, file.users);
    add(merged.contexts, file.contexts);
    if (merged.currentContext === '') merged.currentContext = file.currentContext;
  }
  return merged;
}

interface Chosen {
  contextName: string;
  cluster: Entry;
  user: Entry | undefined;
  /** How messages name what chose the context. */
  where: string;
}

/**
 * The context, its cluster and its user, as client-go's DirectClientConfig picks them;
 * undefined when nothing names a context (client-go's empty configuration). Where client-go
 * would fall back to http://localhost:8080 or to the pod's service account although contexts
 * exist (no current context; a context whose cluster is missing) this refuses instead: a
 * collector that deletes must not guess which cluster it is in.
 */
function chooseContext(merged: MergedKubeconfig, contextFlag: string | undefined, sourcesWhere: string): Chosen | undefined {
  const names = [...merged.contexts.keys()];
  const valid = `valid: ${names.map((name) => name || '""').join(', ') || '(none)'}`;
  if (contextFlag !== undefined && !merged.contexts.has(contextFlag)) {
    throw new KubeconfigError(`--context "${contextFlag}": no such context in the kubeconfig; ${valid}`);
  }
  const contextName = contextFlag ?? merged.currentContext;
  const where = contextFlag !== undefined ? `--context "${contextFlag}"` : sourcesWhere;
  const context = merged.contexts.get(contextName);
  if (context === undefined && contextName === '') {
    if (names.length === 0) return undefined;
    throw new KubeconfigError(`${where}: the kubeconfig has no current context; choose one with --context, such as --context ${names[0] || 'kind-ci'} (${valid})`);
  }
  if (context === undefined) {
    throw new KubeconfigError(`${where}: current-context "${contextName}" names no context in the kubeconfig; choose one with --context (${valid})`);
  }
  const clusterName = optionalString(context.body, 'cluster', context) ?? '';
  const cluster = merged.clusters.get(clusterName);
  if (cluster === undefined || optionalString(cluster.body, 'server', cluster) === undefined) {
    throw new KubeconfigError(`${where}: context "${contextName}" names no cluster with a server URL; fix the kubeconfig or choose another context with --context (${valid})`);
  }
  const userName = optionalString(context.body, 'user', context) ?? '';
  const user = merged.users.get(userName);
  // client-go would send such requests anonymously, which no cluster lets list these.
  if (userName !== '' && user === undefined) {
    throw new KubeconfigError(`${where}: context "${contextName}" names user "${userName}", which the kubeconfig does not define; fix the kubeconfig or choose another context with --context (${valid})`);
  }
  return { contextName, cluster, user, where };
}

/** Why nothing could be chosen, naming the files read and the files missing. */
function nothingToConnectTo(sources: Sources, read: number, merged: MergedKubeconfig, missing: readonly string[]): KubeconfigError {
  if (read === 0 && sources.from === 'home') {
    return new KubeconfigError('no Kubernetes credentials: pass --kubeconfig FILE, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account');
  }
  if (read === 0) {
    const none = sources.files.length === 0 ? 'it lists no files' : sources.files.length === 1 ? 'no such file' : 'none of these files exists';
    return new KubeconfigError(`${sources.where}: ${none}; give the path of a kubeconfig such as ~/.kube/config`);
  }
  const subject = sources.files.length === 1 ? 'it names' : 'the files it lists name';
  const lacking = merged.clusters.size === 0 ? 'no clusters or contexts' : 'no contexts';
  const absent = missing.length === 0 ? '' : `, and ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`;
  return new KubeconfigError(`${sources.where}: nothing to connect to (${subject} ${lacking}${absent}); give a file such as ~/.kube/config, as kubectl config view --raw writes it`);
}

/**
 * What client-go refuses of a cluster before connecting (validateClusterInfo, and
 * transport.TLSConfigFor for a CA beside insecure-skip-tls-verify), and what this collector
 * refuses besides: a plain http server, a proxy.
 */
function checkCluster(cluster: Entry, where: string): void {
  const caFile = optionalString(cluster.body, 'certificate-authority', cluster);
  const caData = optionalString(cluster.body, 'certificate-authority-data', cluster);
  const insecure = optionalBoolean(cluster, 'insecure-skip-tls-verify');
  const server = serverOf(cluster);
  if (caFile !== undefined && caData !== undefined) {
    throw entryError(cluster, 'sets both certificate-authority and certificate-authority-data, which kubectl refuses; keep one');
  }
  if (insecure && (caFile !== undefined || caData !== undefined)) {
    throw entryError(cluster, 'sets insecure-skip-tls-verify beside a certificate authority, which kubectl refuses; keep the certificate authority, which verifies the server');
  }
  // The token would travel in clear; say so here, in one line, not at the first request.
  if (server.startsWith('http:') && !insecure) {
    throw new KubeconfigError(
      `${where}: cluster "${cluster.name}" has a plain http server ${redactUrl(server)}: use https, or set insecure-skip-tls-verify: true on that cluster to send credentials unencrypted`,
    );
  }
  if (optionalString(cluster.body, 'proxy-url', cluster) !== undefined) {
    // Requests would otherwise go straight to the server, past the proxy the kubeconfig asks for.
    throw new KubeconfigError(`${where}: cluster "${cluster.name}" sets proxy-url, which tekton-resource-gc does not support; run it where the API server is reachable directly (such as in the cluster)`);
  }
}

/** What client-go refuses of a user before connecting (validateAuthInfo, and HTTPWrappersForConfig for a token beside a password). */
function checkUser(user: Entry): void {
  const has = (key: string): boolean => optionalString(user.body, key, user) !== undefined;
  for (const field of ['client-certificate', 'client-key']) {
    if (has(field) && has(`${field}-data`)) throw entryError(user, `sets both ${field} and ${field}-data, which kubectl refuses; keep one`);
  }
  if ((has('client-certificate') || has('client-certificate-data')) && !has('client-key') && !has('client-key-data')) {
    throw entryError(user, 'has a client certificate without client-key or client-key-data; add the key that goes with it');
  }
  if ((has('token') || has('tokenFile')) && (has('username') || has('password'))) {
    throw entryError(user, 'sets both a token and a username/password, which kubectl refuses; keep one');
  }
  if (!has('as') && (has('as-uid') || user.body['as-groups'] !== undefined || user.body['as-user-extra'] !== undefined)) {
    throw entryError(user, 'sets as-uid, as-groups or as-user-extra without as, which kubectl refuses; name the user to impersonate with as');
  }
}

function entryError(entry: Entry, fault: string): KubeconfigError {
  return new KubeconfigError(`kubeconfig "${entry.file}": ${entry.kind} "${entry.name}" ${fault}`);
}

function serverOf(cluster: Entry): string {
  return optionalString(cluster.body, 'server', cluster) ?? '';
}

function optionalString(body: Record<string, unknown>, key: string, entry: Entry): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw entryError(entry, `has a ${key} that is not a string; give it as kubectl config view --raw writes it`);
  }
  return value;
}

function optionalBoolean(entry: Entry, key: string): boolean {
  const value = entry.body[key] ?? false;
  if (typeof value !== 'boolean') throw entryError(entry, `has ${key}: ${JSON.stringify(value)}, which is not a boolean; write true or false, unquoted`);
  return value;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function errorLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] || 'unreadable';
}

/** A relative path in a kubeconfig is relative to the directory of the file that names it (client-go's ResolveLocalPaths). */
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
    const code = (error as NodeJS.ErrnoException).code ?? errorLine(error);
    throw entryError(entry, `has ${field} "${file}", which cannot be read (${code}); fix the path or use ${field}-data`);
  }
}

/**
 * Bearer token, token file (read again once a minute: projected tokens rotate), basic auth,
 * impersonation. With both token and tokenFile, client-go sends the file's token whenever the
 * file can be read and the inline one only when it cannot (transport.bearerAuthRoundTripper).
 */
function userHeaders(user: Entry, now: () => number): () => Promise<AuthHeaders> {
  const fixed = impersonationHeaders(user);
  const username = optionalString(user.body, 'username', user);
  const password = optionalString(user.body, 'password', user);
  // client-go sends basic auth only with a username (transport.Config.HasBasicAuth).
  if (username !== undefined) {
    fixed.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }
  const token = optionalString(user.body, 'token', user)?.trim();
  const tokenFile = optionalString(user.body, 'tokenFile', user);
  if (tokenFile === undefined) {
    if (token !== undefined) fixed.authorization = `Bearer ${token}`;
    return () => Promise.resolve(fixed);
  }
  const read = tokenFileReader(resolvePath(user, tokenFile), now, (file) => readCredentialFile(user, 'tokenFile', file));
  // In a promise's executor, a read that throws rejects, as a failing headers() must.
  return () =>
    new Promise((resolve) => {
      let current: string;
      try {
        current = read();
      } catch (error) {
        if (token === undefined) throw error;
        current = token;
      }
      resolve({ ...fixed, authorization: `Bearer ${current}` });
    });
}

/** The headers client-go's impersonatingRoundTripper sends for as, as-uid, as-groups and as-user-extra. */
function impersonationHeaders(user: Entry): AuthHeaders {
  const headers: AuthHeaders = {};
  const impersonate = optionalString(user.body, 'as', user);
  if (impersonate === undefined) return headers;
  headers['impersonate-user'] = impersonate;
  const uid = optionalString(user.body, 'as-uid', user);
  if (uid !== undefined) headers['impersonate-uid'] = uid;
  const groups = stringList(user, 'as-groups', user.body['as-groups']);
  if (groups.length > 0) headers['impersonate-group'] = groups;
  const extra = user.body['as-user-extra'] ?? {};
  if (!isRecord(extra)) throw entryError(user, 'has an as-user-extra that is not a mapping of lists; give it as kubectl config view --raw writes it');
  for (const [key, values] of Object.entries(extra)) {
    const list = stringList(user, `as-user-extra.${key}`, values);
    if (list.length > 0) headers[`impersonate-extra-${headerKeyEscape(key)}`] = list;
  }
  return headers;
}

function stringList(entry: Entry, key: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw entryError(entry, `has an ${key} that is not a list of strings; give it as kubectl config view --raw writes it`);
  }
  return value;
}

/** client-go's headerKeyEscape: bytes that may not appear in a header name, and %, are %-encoded. */
function headerKeyEscape(key: string): string {
  return [...Buffer.from(key, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
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

/** client-go's inClusterClientConfig.Possible: both service variables set and a token file. */
function inClusterPossible(env: Env, serviceAccountDir: string): boolean {
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) return false;
  try {
    return statSync(path.join(serviceAccountDir, 'token')).isFile();
  } catch {
    return false;
  }
}

/** What client-node's loadFromCluster reads, without client-node. */
function inClusterConnection(env: Env, serviceAccountDir: string, now: () => number): Connection {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const entry: Entry = { kind: 'user', name: 'in-cluster service account', body: {}, file: path.join(serviceAccountDir, 'token') };
  const read = tokenFileReader(path.join(serviceAccountDir, 'token'), now, (file) => readCredentialFile(entry, 'token', file));
  const caFile = path.join(serviceAccountDir, 'ca.crt');
  let ca: Buffer | undefined;
  try {
    ca = readFileSync(caFile);
  } catch {
    // client-go logs a missing CA and connects with the system's roots.
  }
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    origin: 'the in-cluster service account',
    tls: ca === undefined ? {} : { ca },
    // A read that throws rejects (the executor's throw), as a failing headers() must.
    headers: () => new Promise((resolve) => resolve({ authorization: `Bearer ${read()}` })),
  };
}

/**
 * One context, its cluster and its user as a kubeconfig document for client-node, with the
 * paths client-go resolves made absolute against the file that named them: client-node reads
 * a string and knows no file. An exec command is a path only when it holds a separator;
 * otherwise it is looked up on PATH, as client-go does.
 */
function kubeconfigFor(contextName: string, cluster: Entry, user: Entry): string {
  const absolute = (entry: Entry, keys: readonly string[]): Record<string, unknown> => {
    const body = { ...entry.body };
    for (const key of keys) {
      if (typeof body[key] === 'string' && body[key] !== '') body[key] = resolvePath(entry, body[key]);
    }
    return body;
  };
  const userBody = absolute(user, ['client-certificate', 'client-key', 'tokenFile']);
  if (isRecord(userBody.exec) && typeof userBody.exec.command === 'string' && userBody.exec.command.includes(path.sep)) {
    userBody.exec = { ...userBody.exec, command: resolvePath(user, userBody.exec.command) };
  }
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: absolute(cluster, ['certificate-authority']) }],
    users: [{ name: user.name, user: userBody }],
    contexts: [{ name: contextName, context: { cluster: cluster.name, user: user.name } }],
    'current-context': contextName,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

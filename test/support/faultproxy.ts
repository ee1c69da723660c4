/**
 * A fault-injecting HTTP proxy for tests: plain http on 127.0.0.1 in front of the control
 * plane's https API server. The collector's kubeconfig points at the proxy with the same
 * bearer token; the proxy forwards every request it does not break, and breaks the ones a
 * rule picks: the nth matching request, a seeded share of them, or all of them.
 *
 * Every request it saw and every fault it injected is recorded, so a test can assert on
 * how often the collector retried, what it asked for after a fault, and how long it took.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** What the proxy does instead of (or on top of) forwarding a request. */
export type Fault =
  /** An error answer with a Status body, e.g. 429 with `Retry-After`, 500, 503. */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** The connection is destroyed before the request reaches the server. */
  | { kind: 'reset' }
  /** The server acts on the request, then the connection is destroyed: the answer is lost. */
  | { kind: 'reset-after-forward' }
  /** The request is held this long, then forwarded (whether or not the client still waits). */
  | { kind: 'delay'; ms: number }
  /**
   * The server's answer, cut: `short-body` announces the whole Content-Length, sends half
   * and closes; `cut-json` sends half the JSON with a Content-Length that matches it.
   */
  | { kind: 'truncate'; how: 'short-body' | 'cut-json' }
  /** 410 with the Status the server sends for an expired continue token. */
  | { kind: 'expired' };

export type FaultKind = Fault['kind'];

/** A request as the proxy saw it. */
export interface SeenRequest {
  /** 1-based, in order of arrival. */
  seq: number;
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  accept: string;
  /** Milliseconds since the proxy started. */
  at: number;
  /** The fault injected into this request, if any. */
  fault?: FaultKind;
  /** The rule that injected it. */
  rule?: string;
  /** The status the client was sent (the server's or the fault's); undefined when none was. */
  status?: number;
}

/** Which of the requests a rule matches it breaks. */
export type When =
  /** Every one. */
  | { always: true }
  /** The nth matching requests, 1-based. */
  | { nth: readonly number[] }
  /** Each with this probability, drawn from the proxy's seeded generator. */
  | { share: number; max?: number }
  /** The first `first` ones. */
  | { first: number };

export interface FaultRule {
  /** For the record, e.g. `503 on taskrun lists`. */
  name: string;
  match: (request: SeenRequest) => boolean;
  /** One fault, or a seeded choice among several for each request picked. */
  fault: Fault | readonly Fault[];
  when: When;
}

export interface InjectedFault {
  seq: number;
  rule: string;
  kind: FaultKind;
  method: string;
  path: string;
}

export interface FaultProxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly requests: readonly SeenRequest[];
  readonly injected: readonly InjectedFault[];
  /** Replaces the rules and the records, and reseeds the generator. */
  reset(rules: readonly FaultRule[], seed?: number): void;
  /** A client configuration that reaches the API server through the proxy. */
  kubeConfig(): KubeConfig;
  /** The same as a kubeconfig file's text, for the CLI. */
  kubeconfigYaml(): string;
  /** Injected faults counted by kind. */
  countByKind(): Partial<Record<FaultKind, number>>;
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  /** https://127.0.0.1:PORT of the API server. */
  upstream: string;
  /** Bearer token the kubeconfig carries (the proxy forwards the client's own header). */
  token: string;
  seed?: number;
}

/** Requests that match these rules (helpers for `match`). */
export const matches = {
  /** A list (GET on a collection) of `plural`, in any namespace or across all. */
  list: (plural: string) => (request: SeenRequest) => request.method === 'GET' && request.path.endsWith(`/${plural}`),
  /** A list page asked for with a continue token. */
  continued: (plural: string) => (request: SeenRequest) => matches.list(plural)(request) && request.query.has('continue'),
  /** A list of metadata only, as the re-check before deleting makes. */
  metadataList: (request: SeenRequest) => request.method === 'GET' && request.accept.includes('PartialObjectMetadataList'),
  /** A DELETE of one `plural`. */
  delete: (plural: string) => (request: SeenRequest) => request.method === 'DELETE' && request.path.includes(`/${plural}/`),
  /** Anything under a namespace, so that a test's faults stay in its own namespace. */
  inNamespace: (namespace: string) => (request: SeenRequest) => request.path.includes(`/namespaces/${namespace}/`),
  any: () => true,
};

/** A small seeded generator (mulberry32): the same seed, the same faults. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface RuleState {
  rule: FaultRule;
  matched: number;
  fired: number;
}

const EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const REASONS: Record<number, string> = { 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout' };

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const started = Date.now();
  const upstream = new URL(options.upstream);
  const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  let rules: RuleState[] = [];
  let random = seededRandom(options.seed ?? 1);
  let requests: SeenRequest[] = [];
  let injected: InjectedFault[] = [];
  let seq = 0;

  /** The first rule that picks this request, and the fault it injects. */
  const pick = (request: SeenRequest): { rule: string; fault: Fault } | undefined => {
    for (const state of rules) {
      if (!state.rule.match(request)) continue;
      state.matched++;
      if (!fires(state, random)) continue;
      state.fired++;
      const faults = Array.isArray(state.rule.fault) ? (state.rule.fault as readonly Fault[]) : [state.rule.fault as Fault];
      const fault = faults[Math.floor(random() * faults.length)] ?? faults[0];
      if (fault === undefined) continue;
      return { rule: state.rule.name, fault };
    }
    return undefined;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const seen: SeenRequest = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      accept: req.headers.accept ?? '',
      at: Date.now() - started,
    };
    requests.push(seen);
    const picked = pick(seen);
    if (picked !== undefined) {
      seen.fault = picked.fault.kind;
      seen.rule = picked.rule;
      injected.push({ seq: seen.seq, rule: picked.rule, kind: picked.fault.kind, method: seen.method, path: seen.path });
    }
    readBody(req)
      .then((body) => serve({ req, res, seen, body, fault: picked?.fault }))
      .catch(() => res.socket?.destroy());
  });

  const serve = async (call: { req: http.IncomingMessage; res: http.ServerResponse; seen: SeenRequest; body: Buffer; fault: Fault | undefined }): Promise<void> => {
    const { res, seen, fault } = call;
    switch (fault?.kind) {
      case 'status':
        seen.status = fault.status;
        sendStatus(res, fault.status, REASONS[fault.status] ?? 'InternalError', `injected ${fault.status}`, fault.retryAfterSeconds);
        return;
      case 'expired':
        seen.status = 410;
        sendStatus(res, 410, 'Expired', EXPIRED_MESSAGE);
        return;
      case 'reset':
        res.socket?.destroy();
        return;
      case 'delay':
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        break;
      default:
        break;
    }
    const answer = await forward(agent, upstream, call.req, call.body);
    if (fault?.kind === 'reset-after-forward') {
      res.socket?.destroy();
      return;
    }
    if (res.socket === null || res.socket.destroyed) return;
    seen.status = answer.status;
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    if (fault?.kind === 'truncate') {
      const half = answer.body.subarray(0, Math.floor(answer.body.length / 2));
      const length = fault.how === 'short-body' ? answer.body.length : half.length;
      res.writeHead(answer.status, { ...headers, 'content-length': length });
      if (fault.how === 'short-body') {
        res.write(half, () => res.socket?.destroy());
      } else {
        res.end(half);
      }
      return;
    }
    res.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
    res.end(answer.body);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const kubeConfig = (): KubeConfig => {
    const config = new KubeConfig();
    config.loadFromOptions({
      // client-node sends credentials over plain http only when told TLS checks are off.
      clusters: [{ name: 'proxy', server: url, skipTLSVerify: true }],
      users: [{ name: 'user', token: options.token }],
      contexts: [{ name: 'proxy', cluster: 'proxy', user: 'user' }],
      currentContext: 'proxy',
    });
    return config;
  };

  return {
    url,
    get requests() {
      return requests;
    },
    get injected() {
      return injected;
    },
    reset(next, seed) {
      rules = next.map((rule) => ({ rule, matched: 0, fired: 0 }));
      requests = [];
      injected = [];
      if (seed !== undefined) random = seededRandom(seed);
    },
    kubeConfig,
    kubeconfigYaml: () => kubeConfig().exportConfig(),
    countByKind() {
      const counts: Partial<Record<FaultKind, number>> = {};
      for (const fault of injected) counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
      return counts;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

function fires(state: RuleState, random: () => number): boolean {
  const { when } = state.rule;
  if ('always' in when) return true;
  if ('nth' in when) return when.nth.includes(state.matched);
  if ('first' in when) return state.matched <= when.first;
  if (when.max !== undefined && state.fired >= when.max) return false;
  return random() < when.share;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Headers of one connection, not of the answer: the proxy's own connection sets them. */
const HOP_BY_HOP = new Set(['transfer-encoding', 'connection', 'keep-alive', 'content-length']);

interface Answer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** The request as the client sent it, to the API server; the whole answer, buffered. */
function forward(agent: https.Agent, upstream: URL, req: http.IncomingMessage, body: Buffer): Promise<Answer> {
  const headers = { ...req.headers, host: upstream.host };
  delete headers.connection;
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function sendStatus(res: http.ServerResponse, code: number, reason: string, message: string, retryAfterSeconds?: number): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  res.writeHead(code, headers);
  res.end(body);
}

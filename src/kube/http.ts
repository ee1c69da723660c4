import http from 'node:http';
import https from 'node:https';
import type { Connection } from './connection.js';
import { CERTIFICATE_REJECTED, Interrupted, KubeError, isRetryable, type RequestPurpose } from './errors.js';
import { ListScanner, MalformedListError, type OmitMember } from './listbody.js';
import { abortableSleep } from '../process/sleep.js';

/** How hard to try before a request counts as failed for good. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
}

/** No retry starts later than this after a request's first attempt, however many are left. */
export const RETRY_WINDOW_MS = 60_000;

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  maxTotalMs: RETRY_WINDOW_MS,
};

/**
 * The options the CLI's settings imply: a request is tried at most `maxRetries + 1` times,
 * each attempt for at most `requestTimeoutMs`, and no retry starts after RETRY_WINDOW_MS,
 * so one request takes at most RETRY_WINDOW_MS + requestTimeoutMs whatever the server does.
 */
export function httpOptions(settings: { concurrency: number; maxRetries: number; requestTimeoutMs: number }, signal?: AbortSignal): HttpOptions {
  return {
    ...(signal !== undefined && { signal }),
    // The deletes in flight, plus a list or re-check beside them.
    maxSockets: settings.concurrency + 2,
    retry: { ...DEFAULT_RETRY, maxAttempts: settings.maxRetries + 1 },
    requestTimeoutMs: settings.requestTimeoutMs,
  };
}

/** Counters a benchmark or report can read. */
export interface TrafficStats {
  requests: number;
  retries: number;
  bytesReceived: number;
}

export interface KubeRequest {
  method: 'GET' | 'DELETE' | 'POST' | 'PATCH';
  /** Path below the server URL, e.g. `/apis/tekton.dev/v1beta1/pipelineruns`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content-Type of the body; JSON by default (a PATCH names its patch type, e.g. application/json-patch+json). */
  contentType?: string;
  /** Accept header; JSON by default. */
  accept?: string;
}

export interface KubeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Empty when a 2xx body went to a sink instead (list()). */
  body: Buffer;
  /** What the sink made of a 2xx body. */
  streamed?: unknown;
}

/** Takes a 2xx body chunk by chunk instead of it being collected whole. */
interface BodySink {
  write(chunk: Buffer): void;
  end(): unknown;
}

/** A failure of the caller's own code while a body streamed: passed on as it is, never retried. */
class ConsumerFailure extends Error {
  constructor(readonly error: unknown) {
    super("the caller's code failed on a streamed body");
  }
}

/** The answer of list(): the list without its items (kind, metadata), and a record per item. */
export interface ListPage<T> {
  envelope: unknown;
  records: T[];
}

export interface HttpOptions {
  /** Sockets kept open to the server; deletes in flight never exceed it. */
  maxSockets: number;
  retry: RetryPolicy;
  /** An attempt with no complete answer (headers and body) after this long is abandoned (and retried). */
  requestTimeoutMs: number;
  /** Injected so tests and the sweep decide how waiting happens; it ends early when `signal` is aborted. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * SIGTERM: no request of json(), jsonOrNull() or list() starts after it (each page of a
   * list is one), and a backoff wait ends at once. A delete (sendOnce) is the caller's to stop.
   */
  signal?: AbortSignal;
}

const NEVER = new AbortController().signal;

/**
 * The one way this program talks to the API server: JSON over HTTP(S) with the
 * credentials of a Connection, one keep-alive agent for all requests, and retries with
 * backoff for throttling and server errors. It knows nothing about decisions.
 */
export class KubeHttp {
  readonly stats: TrafficStats = { requests: 0, retries: 0, bytesReceived: 0 };
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly signal: AbortSignal;

  private constructor(
    private readonly connection: Connection,
    private readonly options: HttpOptions,
  ) {
    this.base = new URL(connection.server);
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, ...connection.tls };
    this.agent = this.base.protocol === 'http:' ? new http.Agent(agentOptions) : new https.Agent(agentOptions);
    this.sleep = options.sleep ?? abortableSleep;
    this.signal = options.signal ?? NEVER;
  }

  /** Asks for credentials once, so that a credential plugin that cannot run fails here and not at the first list. */
  static async create(connection: Connection, options: HttpOptions): Promise<KubeHttp> {
    await connection.headers();
    return new KubeHttp(connection, options);
  }

  get server(): string {
    return this.base.toString();
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * Sends the request and parses the JSON answer, retrying what is worth retrying
   * (a truncated body included); any answer but 2xx throws a KubeError.
   */
  async json(purpose: RequestPurpose, request: KubeRequest): Promise<unknown> {
    return this.withRetries(purpose, request, (response) => parseJson(response, purpose));
  }

  /** Like json(), but a 404 (the object or API is not there) answers null. */
  async jsonOrNull(purpose: RequestPurpose, request: KubeRequest): Promise<unknown> {
    return this.withRetries(purpose, request, (response) =>
      response.status === 404 ? null : parseJson(response, purpose),
    );
  }

  /**
   * One attempt and no retry: the answer (4xx included: a delete's 404 and 409 are
   * results, not failures), or a KubeError for throttling, a server error or a broken
   * connection. Deletes go this way: a delete retried here, below the re-check, would act
   * on a view of the runs as old as its backoff (the delete phase retries it on a fresh one).
   * `attempt` is which attempt of the caller's this is.
   */
  async sendOnce(purpose: RequestPurpose, request: KubeRequest, attempt = 1): Promise<KubeResponse> {
    // Counted like this client's own retries, so a pass's figures show every attempt after a first.
    if (attempt > 1) this.stats.retries++;
    const response = await this.attempt(purpose, request);
    if (response instanceof KubeError) throw response;
    return response;
  }

  /**
   * A GET of a list whose items are turned into records one by one as the bytes arrive
   * (listbody.ts): neither the page's text nor its whole tree is ever held, only each item's.
   * Retried like json(); an attempt that fails leaves no records behind. What `toRecord`
   * throws ends the call as it is. `omit`: members of each item `toRecord` never reads, handed
   * to it as `null` (listbody.ts).
   */
  async list<T>(purpose: RequestPurpose, request: KubeRequest, toRecord: (item: unknown) => T, omit?: OmitMember): Promise<ListPage<T>> {
    let records: T[] = [];
    const sink = (): BodySink => {
      records = [];
      const scanner = new ListScanner((item) => {
        try {
          records.push(toRecord(item));
        } catch (error) {
          throw new ConsumerFailure(error);
        }
      }, omit);
      return { write: (chunk) => scanner.write(chunk), end: () => scanner.end() };
    };
    return this.withRetries(
      purpose,
      request,
      (response) => (response.status >= 200 && response.status <= 299 ? { envelope: response.streamed, records } : errorFrom(response, purpose)),
      sink,
    );
  }

  private async withRetries<T>(
    purpose: RequestPurpose,
    request: KubeRequest,
    interpret: (response: KubeResponse) => T | KubeError,
    sink?: () => BodySink,
  ): Promise<T> {
    const { retry } = this.options;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      if (this.signal.aborted) throw new Interrupted(purpose);
      const response = await this.attempt(purpose, request, sink);
      const outcome = response instanceof KubeError ? response : interpret(response);
      if (!(outcome instanceof KubeError)) {
        return outcome;
      }
      const delay = retryDelayMs(retry, attempt, outcome.retryAfterMs);
      const elapsed = Date.now() - started;
      if (!isRetryable(outcome) || attempt >= retry.maxAttempts || elapsed + delay > retry.maxTotalMs) {
        throw outcome;
      }
      this.stats.retries++;
      await this.sleep(delay, this.signal);
    }
  }

  private transport(): typeof http | typeof https {
    return this.base.protocol === 'http:' ? http : https;
  }

  private async requestOptions(request: KubeRequest, payload?: string): Promise<https.RequestOptions> {
    const url = new URL(request.path, this.base);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== '') {
        url.searchParams.set(key, String(value));
      }
    }
    // Fresh credentials each time: exec plugins and projected tokens rotate.
    const headers: http.OutgoingHttpHeaders = {
      ...(await this.connection.headers()),
      accept: request.accept ?? 'application/json',
      'user-agent': 'tekton-resource-gc',
    };
    if (payload !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/json';
      // Without a length Node sends the body chunked; state it, as every Kubernetes client does.
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return {
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      agent: this.agent,
    };
  }

  private async attempt(purpose: RequestPurpose, request: KubeRequest, sink?: () => BodySink): Promise<KubeResponse | KubeError> {
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const options = await this.requestOptions(request, payload);
    this.stats.requests++;
    try {
      const response = await new Promise<KubeResponse>((resolve, reject) => {
        const req = this.transport().request(options, (res) => {
          const status = res.statusCode ?? 0;
          const answer =
            sink !== undefined && status >= 200 && status <= 299
              ? drain(res, sink()).then(({ bytes, streamed }) => ({ status, headers: res.headers, body: Buffer.alloc(0), streamed, bytes }))
              : collect(res).then((body) => ({ status, headers: res.headers, body, bytes: body.length }));
          answer
            .then(({ bytes, ...received }) => {
              this.stats.bytesReceived += bytes;
              resolve(received);
            })
            .catch(reject)
            .finally(() => clearTimeout(deadline));
        });
        // A deadline for the whole answer, not only for a silent socket: a server that
        // trickles a byte at a time must not hold the pass for ever.
        const deadline = setTimeout(() => {
          const error = new Error(`no complete answer within ${this.options.requestTimeoutMs} ms`);
          req.destroy(error);
          reject(error);
        }, this.options.requestTimeoutMs);
        req.on('error', (error) => {
          clearTimeout(deadline);
          reject(error);
        });
        req.end(payload);
      });
      return response.status >= 429 || response.status === 0 ? errorFrom(response, purpose) : response;
    } catch (error) {
      if (error instanceof ConsumerFailure) throw error.error;
      return networkError(error, purpose);
    }
  }
}

/**
 * The wait before attempt `attempt + 1`: exponential backoff with jitter, never shorter
 * than what the server asked for with Retry-After.
 */
export function retryDelayMs(policy: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs'>, attempt: number, retryAfterMs: number, random: () => number = Math.random): number {
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  const jittered = backoff / 2 + random() * (backoff / 2);
  return Math.max(jittered, retryAfterMs);
}

function collect(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      if (!res.complete) {
        reject(new Error('the connection closed before the whole response arrived'));
        return;
      }
      resolve(Buffer.concat(chunks));
    });
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('the response was aborted')));
  });
}

/**
 * Hands a 2xx body to `sink` as it arrives. A body cut short, or not JSON, is rejected like
 * a broken connection (and so retried); a failure of the caller's code is passed on as it is.
 */
function drain(res: http.IncomingMessage, sink: BodySink): Promise<{ bytes: number; streamed: unknown }> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let failed = false;
    const fail = (error: unknown): void => {
      failed = true;
      res.destroy();
      reject(error instanceof MalformedListError ? new Error(`the response was not valid JSON (${error.message})`) : error);
    };
    res.on('data', (chunk: Buffer) => {
      if (failed) return;
      bytes += chunk.length;
      try {
        sink.write(chunk);
      } catch (error) {
        fail(error);
      }
    });
    res.on('end', () => {
      if (failed) return;
      if (!res.complete) {
        reject(new Error('the connection closed before the whole response arrived'));
        return;
      }
      try {
        resolve({ bytes, streamed: sink.end() });
      } catch (error) {
        fail(error);
      }
    });
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('the response was aborted')));
  });
}

/**
 * OpenSSL's verdicts on a server certificate (Node.js gives them as the error's code). They
 * do not change from one attempt to the next, so they are not retried.
 */
const CERTIFICATE_ERRORS = new Set([
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'CERT_REJECTED', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'INVALID_CA', 'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function networkError(error: unknown, purpose: RequestPurpose): KubeError {
  const detail = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new KubeError(0, purpose, detail, { ...(code !== undefined && CERTIFICATE_ERRORS.has(code) && { reason: CERTIFICATE_REJECTED }) });
}

/** The server's Status object says most; fall back to the raw body. */
export function errorFrom(response: KubeResponse, purpose: RequestPurpose): KubeError {
  let detail = response.body.toString('utf8').slice(0, 500).trim();
  let reason = '';
  try {
    const status = JSON.parse(response.body.toString('utf8')) as { message?: unknown; reason?: unknown };
    if (typeof status.message === 'string') {
      detail = status.message;
    }
    if (typeof status.reason === 'string') {
      reason = status.reason;
    }
  } catch {
    // Not a Status object (a proxy's HTML page, a truncated body): keep the raw text.
  }
  return new KubeError(response.status, purpose, detail || `HTTP ${response.status}`, {
    reason,
    retryAfterMs: retryAfterMs(response.headers['retry-after']),
  });
}

function retryAfterMs(header: string | undefined): number {
  if (header === undefined) {
    return 0;
  }
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return seconds * 1000;
  }
  const date = Date.parse(header);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

function parseJson(response: KubeResponse, purpose: RequestPurpose): unknown {
  if (response.status < 200 || response.status > 299) {
    return errorFrom(response, purpose);
  }
  try {
    return JSON.parse(response.body.toString('utf8')) as unknown;
  } catch {
    // Status 0: a broken answer is treated like a broken connection, and retried.
    return new KubeError(0, purpose, `the response was not valid JSON (${response.body.length} bytes)`);
  }
}

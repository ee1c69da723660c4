/** What a request was for, so an error can say what the identity lacks. */
export interface RequestPurpose {
  /** Kubernetes verb: get, list, watch, delete. */
  verb: string;
  /** `plural.group` or `plural` for the core group. */
  resource: string;
  /** Empty for cluster-scoped requests and lists across all namespaces. */
  namespace: string;
}

/**
 * A request the API server refused or that never got an answer. `status` is the HTTP
 * status, 0 when no response arrived (connection refused, reset, timed out).
 */
export class KubeError extends Error {
  readonly status: number;
  readonly purpose: RequestPurpose;
  /** The Status object's `reason` (e.g. `Expired`, `Conflict`) when the server sent one. */
  readonly reason: string;
  /** From a Retry-After header; 0 when there was none. */
  readonly retryAfterMs: number;

  constructor(status: number, purpose: RequestPurpose, detail: string, extra: { reason?: string; retryAfterMs?: number } = {}) {
    super(describe(status, purpose, detail));
    this.name = 'KubeError';
    this.status = status;
    this.purpose = purpose;
    this.reason = extra.reason ?? '';
    this.retryAfterMs = extra.retryAfterMs ?? 0;
  }
}

function where(purpose: RequestPurpose): string {
  return purpose.namespace === '' ? 'at cluster scope' : `in namespace "${purpose.namespace}"`;
}

function describe(status: number, purpose: RequestPurpose, detail: string): string {
  const what = `${purpose.verb} ${purpose.resource} ${where(purpose)}`;
  if (status === 403) {
    return `forbidden: this identity may not ${what}; grant "${purpose.verb}" on "${purpose.resource}" (${detail})`;
  }
  if (status === 401) {
    return `unauthorized: the API server did not accept the credentials to ${what} (${detail})`;
  }
  if (status === 0) {
    return `could not ${what}: ${detail}`;
  }
  return `could not ${what}: HTTP ${status}: ${detail}`;
}

/** The `reason` of a KubeError for a server certificate the client did not accept. */
export const CERTIFICATE_REJECTED = 'CertificateRejected';

/** Errors worth another try: throttling, server trouble, and connections that broke (not a rejected certificate). */
export function isRetryable(error: KubeError): boolean {
  if (error.reason === CERTIFICATE_REJECTED) return false;
  return error.status === 0 || error.status === 429 || error.status >= 500;
}

/**
 * The pass was asked to stop (SIGTERM, Ctrl-C) while it read: no further request or retry
 * was started. Not a failure of the cluster, so never retried.
 */
export class Interrupted extends Error {
  override name = 'Interrupted';
  constructor(readonly purpose: RequestPurpose) {
    super(`stopped by a signal before it could ${purpose.verb} ${purpose.resource} ${where(purpose)}`);
  }
}

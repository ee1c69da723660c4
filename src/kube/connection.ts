/**
 * What a connection to an API server is, and the error of settings that cannot make one:
 * shared by connect.ts (kubeconfigs read here) and clientnode.ts (credentials only
 * @kubernetes/client-node can produce), which connect.ts loads on demand.
 */

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

/**
 * A kubeconfig, context or credentials that cannot be used: the user's to fix, not the
 * cluster's (the CLI answers it as bad usage, exit status 2). The message says what was
 * wrong, where, and what a valid value looks like.
 */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/** Credentials that fail when first asked for (a plugin that cannot run, a missing file), in one line. */
export function unusableCredentials(origin: string, error: unknown): KubeconfigError {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return new KubeconfigError(`the credentials of ${origin} cannot be used: ${reason}`);
}

// Credentials that only @kubernetes/client-node knows how to produce: credential plugins
// (`exec`) and `auth-provider`s. Loading this module loads client-node's whole generated API
// (see loadConnection), so connect.ts imports it only for such users.
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { unusableCredentials, type AuthHeaders, type Connection, type TlsMaterial } from './connection.js';

/** A connection from a kubeconfig document (YAML or JSON) through client-node's KubeConfig. */
export async function clientNodeConnection(kubeconfig: string): Promise<Connection> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfig);
  return connectionOf(kubeConfig);
}

/** What a client-node KubeConfig authenticates as; the tests build theirs this way. */
export async function connectionOf(kubeConfig: KubeConfig): Promise<Connection> {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    throw new Error('the kubeconfig has no current cluster');
  }
  const origin = `kubeconfig context "${kubeConfig.getCurrentContext()}"`;
  const probe: https.RequestOptions = {};
  try {
    await kubeConfig.applyToHTTPSOptions(probe);
  } catch (error) {
    throw unusableCredentials(origin, error);
  }
  const tls: TlsMaterial = {};
  // client-node builds a new agent per call; keep its TLS material for our one agent.
  for (const key of ['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'] as const) {
    if (probe[key] !== undefined) {
      Object.assign(tls, { [key]: probe[key] });
    }
  }
  return {
    server: cluster.server.replace(/\/$/, ''),
    origin,
    tls,
    headers: async () => {
      // Asked each time: an exec plugin's credential expires and client-node renews it.
      const auth: https.RequestOptions = { headers: {} };
      await kubeConfig.applyToHTTPSOptions(auth);
      const headers: AuthHeaders = {};
      for (const [name, value] of Object.entries(auth.headers ?? {})) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value : String(value);
      }
      if (typeof auth.auth === 'string') {
        headers.authorization = `Basic ${Buffer.from(auth.auth).toString('base64')}`;
      }
      return headers;
    },
  };
}

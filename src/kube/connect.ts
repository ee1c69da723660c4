import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError } from '../config.js';

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface ConnectionSettings {
  kubeconfig?: string;
  context?: string;
}

/**
 * The credentials to use, in kubectl's order: --kubeconfig, $KUBECONFIG, ~/.kube/config,
 * then the pod's service account. Unlike client-node's loadFromDefault, finding nothing
 * is an error rather than a silent http://localhost:8080.
 */
export function loadKubeConfig(settings: ConnectionSettings, env: Readonly<Record<string, string | undefined>>): KubeConfig {
  const kubeConfig = new KubeConfig();
  const source = settings.kubeconfig ?? firstKubeconfigFile(env);
  const origin = settings.kubeconfig !== undefined ? '--kubeconfig' : 'KUBECONFIG';
  if (source !== undefined) {
    loadFile(kubeConfig, source, origin);
    if (settings.kubeconfig === undefined) {
      mergeOtherKubeconfigs(kubeConfig, env);
    }
  } else if (env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(IN_CLUSTER_TOKEN)) {
    kubeConfig.loadFromCluster();
  } else {
    throw new ConfigError(
      'no Kubernetes credentials: pass --kubeconfig FILE, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
    );
  }
  const contexts = kubeConfig.getContexts().map((context) => context.name);
  const valid = `valid: ${contexts.join(', ') || '(none)'}`;
  if (settings.context !== undefined) {
    if (!contexts.includes(settings.context)) {
      throw new ConfigError(`--context "${settings.context}": no such context in the kubeconfig; ${valid}`);
    }
    kubeConfig.setCurrentContext(settings.context);
  }
  // client-node reads a missing current-context as the text "undefined".
  const current = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  const where = settings.context !== undefined ? `--context "${settings.context}"` : `${source === undefined ? 'the in-cluster config' : `${origin} "${source}"`}`;
  if (current === null) {
    throw new ConfigError(`${where}: the kubeconfig has no current context; choose one with --context, such as --context ${contexts[0] ?? 'kind-ci'} (${valid})`);
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    throw new ConfigError(`${where}: context "${current.name}" names no cluster with a server URL; fix the kubeconfig or choose another context with --context (${valid})`);
  }
  // client-node refuses plain http unless TLS checks are off (the token would travel in clear),
  // and would say so only at the first request, as an unexpected failure: say it here, in one line.
  if (cluster.server.startsWith('http:') && cluster.skipTLSVerify !== true) {
    throw new ConfigError(
      `${where}: cluster "${cluster.name}" has a plain http server ${cluster.server}: use https, or set insecure-skip-tls-verify: true on that cluster to send credentials unencrypted`,
    );
  }
  return kubeConfig;
}

function firstKubeconfigFile(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).find((file) => file !== '');
  if (fromEnv !== undefined) {
    return fromEnv;
  }
  const home = path.join(env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

/** $KUBECONFIG may list several files; like kubectl, the first one's settings win. */
function mergeOtherKubeconfigs(kubeConfig: KubeConfig, env: Readonly<Record<string, string | undefined>>): void {
  const files = (env.KUBECONFIG ?? '').split(path.delimiter).filter((file) => file !== '');
  for (const file of files.slice(1)) {
    const other = new KubeConfig();
    loadFile(other, file, 'KUBECONFIG');
    kubeConfig.mergeConfig(other, true);
  }
}

function loadFile(kubeConfig: KubeConfig, file: string, origin: string): void {
  if (!existsSync(file)) {
    throw new ConfigError(`${origin} "${file}": no such file; give the path of a kubeconfig such as ~/.kube/config`);
  }
  try {
    kubeConfig.loadFromFile(file);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new ConfigError(`${origin} "${file}": not a valid kubeconfig (${reason}); give a file such as ~/.kube/config, as kubectl config view --raw writes it`);
  }
  if (kubeConfig.getContexts().length === 0 && kubeConfig.getClusters().length === 0) {
    throw new ConfigError(`${origin} "${file}": not a valid kubeconfig (it names no clusters or contexts); give a file such as ~/.kube/config, as kubectl config view --raw writes it`);
  }
}

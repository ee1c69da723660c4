// npm run controlplane -- --kubeconfig FILE [--crds v0.45|v0.37|upgraded|none]
// Runs a local control plane until SIGINT/SIGTERM; lifetime.ts stops it on the signal.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from './build.js';
import { startControlPlane } from './controlplane.js';
import { CRD_SET_NAMES, isCrdSetName, type CrdSetName } from './crds.js';

const EXAMPLE = 'npm run controlplane -- --kubeconfig /tmp/trgc.kubeconfig --crds v0.45';

class UsageError extends Error {}

function parseFlags(args: readonly string[]): { kubeconfigPath: string; crds: CrdSetName } {
  let values: { kubeconfig?: string; crds?: string };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { kubeconfig: { type: 'string' }, crds: { type: 'string', default: 'v0.45' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.kubeconfig === undefined || values.kubeconfig === '') throw new UsageError('--kubeconfig FILE is required');
  const crds = values.crds ?? 'v0.45';
  if (!isCrdSetName(crds)) throw new UsageError(`--crds ${crds} is not one of ${CRD_SET_NAMES.join(', ')}`);
  return { kubeconfigPath: resolve(values.kubeconfig), crds };
}

async function main(args: readonly string[]): Promise<number> {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message} (e.g. ${EXAMPLE})\n`);
    return 2;
  }
  // kubectl is not needed to run the server, only to tell the user how to look at it.
  const { kubectl } = await ensureBinaries(['kubectl']);
  const started = Date.now();
  const controlPlane = await startControlPlane({ crds: flags.crds, kubeconfigPath: flags.kubeconfigPath });
  process.stdout.write(
    `control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${controlPlane.server} with Tekton ${flags.crds} CRDs; kubeconfig ${flags.kubeconfigPath}; ` +
      `try: KUBECONFIG=${flags.kubeconfigPath} ${kubectl} get pipelineresources -A; logs in ${controlPlane.dir}; Ctrl-C stops it\n`,
  );
  // The servers do not keep the event loop alive (see lifetime.ts); this timer does,
  // until a signal ends the process or a server dies.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const reason = await controlPlane.unexpectedExit;
  clearInterval(keepAlive);
  process.stderr.write(`error: ${reason}\n`);
  await controlPlane.stop();
  return 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

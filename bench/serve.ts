// npx tsx bench/serve.ts DATA_DIR KUBECONFIG [--watch-cache]
// A control plane on the data a `npm run bench -- --reuse` seeded (in $TMPDIR/trgc-bench/<size>),
// until SIGINT or SIGTERM: to run the collector, bench/stages.ts or a profiler against the
// benchmark's cluster by hand. Its kubeconfig is written to KUBECONFIG.
import { copyFile } from 'node:fs/promises';
import { startControlPlane } from '../harness/controlplane.js';

const [dataDir, kubeconfig, ...rest] = process.argv.slice(2);
if (dataDir === undefined || kubeconfig === undefined) {
  process.stderr.write('usage: npx tsx bench/serve.ts DATA_DIR KUBECONFIG [--watch-cache]\n');
  process.exitCode = 2;
} else {
  const controlPlane = await startControlPlane({ crds: 'v0.45', dataDir, watchCache: rest.includes('--watch-cache') });
  await copyFile(controlPlane.kubeconfigPath, kubeconfig);
  process.stdout.write(`serving ${dataDir} at ${controlPlane.server}; kubeconfig ${kubeconfig}\n`);
  // The harness stops the servers on SIGINT or SIGTERM (harness/lifetime.ts); this timer keeps
  // the process alive until then, or until a server dies.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  process.stderr.write(`${await controlPlane.unexpectedExit}\n`);
  clearInterval(keepAlive);
  await controlPlane.stop();
  process.exitCode = 1;
}

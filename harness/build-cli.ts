// npm run controlplane:build [-- NAME...]: builds (or finds) the control plane's binaries.
import { BINARY_NAMES, BinaryError, ensureBinaries, type BinaryName } from './build.js';

function isBinaryName(value: string): value is BinaryName {
  return (BINARY_NAMES as readonly string[]).includes(value);
}

async function main(args: readonly string[]): Promise<number> {
  const unknown = args.filter((arg) => !isBinaryName(arg));
  if (unknown.length > 0) {
    process.stderr.write(`error: unknown binary ${unknown.join(', ')}; choose from ${BINARY_NAMES.join(', ')} (e.g. npm run controlplane:build -- etcd kube-apiserver)\n`);
    return 2;
  }
  const names = args.length > 0 ? args.filter(isBinaryName) : BINARY_NAMES;
  try {
    const paths = await ensureBinaries(names);
    for (const name of names) process.stdout.write(`${name}: ${paths[name]}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof BinaryError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

// npm run lint:workflows [-- ROOT]: lints the GitHub Actions workflows of the repository at
// ROOT (this one by default) with actionlint, built from the Go module proxy like the
// control plane's binaries. Exit 0 when they are clean, 1 when actionlint reports errors.
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BinaryError, ensureBinaries } from './build.js';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The workflow files actionlint reads, relative to the repository root. */
async function workflowFiles(root: string): Promise<string[]> {
  const dir = join(root, '.github', 'workflows');
  const names = await readdir(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  return names.filter((name) => /\.ya?ml$/.test(name)).sort().map((name) => join('.github', 'workflows', name));
}

async function onPath(command: string, path: string | undefined): Promise<boolean> {
  for (const dir of (path ?? '').split(delimiter).filter((entry) => entry !== '')) {
    try {
      await access(join(dir, command), fsConstants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

function run(command: string, args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise(code ?? 1));
  });
}

async function main(args: readonly string[]): Promise<number> {
  if (args.length > 1) {
    process.stderr.write(`error: lint-workflows takes at most one argument, the repository root (e.g. npm run lint:workflows -- ${PROJECT_ROOT})\n`);
    return 2;
  }
  const root = resolve(args[0] ?? PROJECT_ROOT);
  const files = await workflowFiles(root);
  if (files.length === 0) {
    process.stderr.write(`error: ${join(root, '.github', 'workflows')} holds no .yml or .yaml workflow to lint\n`);
    return 2;
  }
  let actionlint: string;
  try {
    actionlint = (await ensureBinaries(['actionlint'])).actionlint;
  } catch (error) {
    if (!(error instanceof BinaryError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
  // actionlint runs shellcheck on every `run:` script when it finds it on PATH, and skips
  // that check silently otherwise; say so, since GitHub's runners do have shellcheck.
  if (!(await onPath('shellcheck', process.env.PATH))) {
    process.stderr.write('note: shellcheck is not on PATH, so the workflows\' run: scripts are not shell-checked (apt-get install shellcheck)\n');
  }
  const code = await run(actionlint, ['-no-color', ...files], root);
  if (code === 0) process.stdout.write(`actionlint: ${files.join(', ')} clean\n`);
  return code;
}

process.exitCode = await main(process.argv.slice(2));

/**
 * A command run to its end, as tests run kubectl, helm, actionlint and scripts: its exit
 * code and everything it printed. The caller names the working directory and the whole
 * environment (tests never pass on their own).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the command's standard input, which is then closed; without it stdin is closed at once. */
  input?: string;
}

export function exec(command: string, args: readonly string[], options: ExecOptions): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) {
      // A child that exits before it reads its input closes the pipe: EPIPE is no failure of ours.
      child.stdin?.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') reject(error);
      });
      child.stdin?.end(options.input);
    }
  });
}

/** The environment of helm and kubectl in a test: PATH only, with their caches and settings in the test's directory `work`. */
export function toolEnv(work: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: work,
    HELM_CACHE_HOME: join(work, 'helm', 'cache'),
    HELM_CONFIG_HOME: join(work, 'helm', 'config'),
    HELM_DATA_HOME: join(work, 'helm', 'data'),
  };
}

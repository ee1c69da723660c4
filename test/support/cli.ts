import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReportDocument } from '../../src/report/model.js';
import { assertValidReport } from './reportschema.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src', 'main.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Called once the process has started, e.g. to send it a signal. */
  onStart?: (pid: number) => void;
  /** Called with each complete line on stderr as it arrives (the JSON log lines). */
  onStderr?: (line: string) => void;
}

/** Runs the CLI exactly as a user would, with a clean environment but for `env`. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    let partial = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onStderr?.(line);
    });
    child.on('error', reject);
    child.on('spawn', () => options.onStart?.(child.pid ?? 0));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * The JSON report on stdout; fails with the whole output when it is not one, or when it does
 * not match the published schema (docs/gcreport.schema.json): every report a test reads
 * this way is checked against it.
 */
export function reportOf(result: CliResult): ReportDocument {
  let report: unknown;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`not a JSON report (exit ${result.code ?? 'on a signal'}):\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
  assertValidReport(report, `the JSON report (exit ${result.code ?? 'on a signal'})`);
  return report as ReportDocument;
}

/** `name -> reason/result` for compact, readable assertions. */
export function outcomes(report: Pick<ReportDocument, 'items'>): Record<string, string> {
  return Object.fromEntries(report.items.map((item) => [`${item.namespace}/${item.name}`, `${item.reason} ${item.result}`]));
}

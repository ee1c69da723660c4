// PLACEHOLDER: the Config shape is fixed here; parseConfig is being written (see test/unit/config.test.ts).
import type { RetentionDuration } from './core/types.js';
import type { OutputFormat } from './report/model.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** Every setting of a pass; one name per setting through flag, env var and Helm value. */
export interface Config {
  command: 'run';
  dryRun: boolean;
  /** Empty: all namespaces. */
  namespaces: string[];
  excludeNamespaces: string[];
  /** Label selector on targets, applied by the API server. Empty: none. */
  selector: string;
  minAgeMs: number;
  /** Global retain-for; undefined when not set. */
  retainFor?: RetentionDuration;
  labelPrefix: string;
  /** Abort the whole pass when more would be deleted. */
  maxDeletions: number;
  qps: number;
  concurrency: number;
  pageSize: number;
  output: OutputFormat;
  reportFile?: string;
  logLevel: LogLevel;
  kubeconfig?: string;
  context?: string;
}

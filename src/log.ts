import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error'>;

/** JSON lines on stderr, so stdout carries only the report. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { name: 'tekton-resource-gc' } }, pino.destination({ fd: 2, sync: true }));
}

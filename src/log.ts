import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * JSON lines on stderr, so stdout carries only the report. No `name`/`pid`/`hostname`
 * base fields: `name` is the target's name in every line about a target, and the pod
 * already says which process wrote the line.
 */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: null }, pino.destination({ fd: 2, sync: true }));
}

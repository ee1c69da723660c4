import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * JSON lines on stderr, so stdout carries only the report. No `name`/`pid`/`hostname`
 * base fields: `name` is the target's name in every line about a target, and the pod
 * already says which process wrote the line.
 */
export function createLogger(level: LogLevel, progress?: { clear(): void; redraw(): void }): Logger {
  const destination = pino.destination({ fd: 2, sync: true });
  if (progress === undefined) return pino({ level, base: null }, destination);
  // On a terminal the progress line is taken away for each log line and drawn again below it.
  const aroundProgress = {
    write(line: string): void {
      progress.clear();
      destination.write(line);
      progress.redraw();
    },
  };
  return pino({ level, base: null }, aroundProgress);
}

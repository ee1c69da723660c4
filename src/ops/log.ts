import { pino, type Logger as PinoLogger } from 'pino';
import { escapeControlsInJson } from '../text/escape.js';

/**
 * pino's levels, as --log-level takes them. Here, not in flags.ts, so that the logger imports
 * nothing of the command line: config, flags, schedule and signals all import the logger.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error'>;

/** Where log lines go: stderr, or a test's buffer. */
export interface LogDestination {
  write(line: string): unknown;
}

/** The one updating progress line, taken away for each log line and drawn again below it. */
export interface ProgressAround {
  clear(): void;
  redraw(): void;
}

/**
 * JSON lines on stderr, so stdout carries only the report. No `name`/`pid`/`hostname`
 * base fields: `name` is the target's name in every line about a target, and the pod
 * already says which process wrote the line.
 */
export function createLogger(level: LogLevel, progress?: ProgressAround): Logger {
  return pino({ level, base: null }, logDestination(pino.destination({ fd: 2, sync: true }), progress));
}

/**
 * Each line made safe for a terminal (pino escapes C0 in strings, not DEL, C1 or
 * bidirectional controls, which log lines quoting annotation values can hold; see
 * escape.ts), and with a progress line, written on a line of its own: the progress line is
 * cleared before it and drawn again after it.
 */
export function logDestination(destination: LogDestination, progress?: ProgressAround): LogDestination {
  return {
    write(line: string): void {
      progress?.clear();
      destination.write(escapeControlsInJson(line));
      progress?.redraw();
    },
  };
}

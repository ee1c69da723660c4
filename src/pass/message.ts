import { KubeError } from '../kube/errors.js';

/**
 * Longest message or warning a report item or log line carries. Messages quote the values
 * they could not parse, and an annotation may hold 256 KiB: a report stays readable.
 */
export const MAX_MESSAGE_CHARS = 1_000;

/** One line (a quoted value may hold line breaks) of at most MAX_MESSAGE_CHARS and a note. */
export function bounded(text: string): string {
  const line = text.replace(/\r\n|\r|\n/g, '\\n');
  if (line.length <= MAX_MESSAGE_CHARS) return line;
  const omitted = line.length - MAX_MESSAGE_CHARS;
  return `${line.slice(0, MAX_MESSAGE_CHARS)}… (${omitted} more characters)`;
}

export function errorMessage(error: unknown): string {
  if (error instanceof KubeError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}

/**
 * Small readers of optional fields for the leftovers' conversions: absent and `null` are the
 * same thing (Go decodes `null` as the zero value), anything of another shape is a ReadProblem
 * that says where and what was found.
 */
import { describeValue, isRecord } from './refs.js';
import type { ReadProblem } from './types.js';

/** An optional list: its items, or none (with a problem when it is not a list). */
export function listAt(value: unknown, field: string, problems: ReadProblem[]): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problems.push({ field, problem: `expected an array, found ${describeValue(value)}` });
  return [];
}

/** An optional object: itself, or undefined (with a problem when it is something else). */
export function objectAt(value: unknown, field: string, problems: ReadProblem[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (isRecord(value)) return value;
  problems.push({ field, problem: `expected an object, found ${describeValue(value)}` });
  return undefined;
}

/** An optional name at `object[key]`: a non-empty string, or undefined (absent, null or empty names nothing). */
export function nameAt(object: Record<string, unknown>, key: string, field: string, problems: ReadProblem[]): string | undefined {
  const value = object[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  problems.push({ field: `${field}.${key}`, problem: `expected a string, found ${describeValue(value)}` });
  return undefined;
}

/** Follows `path` through optional objects from `object`, recording a problem at the first step of another shape. */
export function objectPath(object: unknown, path: readonly string[], field: string, problems: ReadProblem[]): Record<string, unknown> | undefined {
  let current = objectAt(object, field === '' ? '(object)' : field, problems);
  let at = field;
  for (const key of path) {
    if (current === undefined) return undefined;
    at = at === '' ? key : `${at}.${key}`;
    current = objectAt(current[key], at, problems);
  }
  return current;
}

/** Sorted and deduplicated; the shared empty list when there is nothing. */
export function sortedNames(names: readonly string[], empty: readonly string[]): readonly string[] {
  return names.length === 0 ? empty : [...new Set(names)].sort();
}

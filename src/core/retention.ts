/**
 * Retention labels and annotations, durations and instants (docs/spec.md). Pure
 * parsers whose errors say what a valid value looks like; config parsing reuses them.
 *
 * Choices (written down for users in docs/spec.md):
 * - `retain` (rule 1: "label or annotation"): the label and the annotation are both
 *   read, and either one that retains keeps the target; the decision names the one that
 *   did (the label when both do). When both are set and differ, a warning says so. On a
 *   Namespace (rule 2) only the label counts.
 * - `retain-until` and `retain-for` are read from the label first, then from the annotation
 *   of the same key; when both are set and differ, the label is used and a
 *   warning says so.
 * - Durations: `^\d+[smhdw]$`, an ISO 8601 duration (`P7D`, `PT12H`, `P1DT6H`, `P2W`) or
 *   `forever`. Zero is allowed (`0s`: no waiting, useful for `--min-age`); negative
 *   durations cannot be written. ISO months and years count as 30 and 365 days (luxon's
 *   conversion). Surrounding whitespace is ignored (an annotation written with `|` in YAML
 *   ends in a newline).
 * - Instants: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time (`2026-12-31T18:00:00Z`);
 *   without an offset the time is UTC. Label values cannot hold `:`, so a time of day needs
 *   the annotation.
 */
import { DateTime, Duration } from 'luxon';
import type { RetentionDuration } from './types.js';

/** A parser's answer: the value, or a message saying what was expected. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const DURATION_EXAMPLES = 'a duration such as 12h, 7d, P7D or forever';
const MIN_AGE_EXAMPLES = 'a duration such as 30m, 1h, 2d or PT1H';
const INSTANT_EXAMPLES = 'a date such as 2026-12-31 or a timestamp such as 2026-12-31T18:00:00Z';

const SHORT_DURATION = /^(\d+)([smhdw])$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
// luxon alone accepts `P`, `PT` and `P1DT`, and negative parts; this admits only real, non-negative ISO durations.
const ISO_DURATION = /^P(?=\d|T\d)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/i;

/** A duration in milliseconds (`--min-age`): like a retention duration, but never `forever`. */
export function parseDurationMs(text: string): Parsed<number> {
  const ms = durationMs(text.trim());
  if (ms === undefined) return { ok: false, error: `expected ${MIN_AGE_EXAMPLES}` };
  if (!Number.isSafeInteger(Math.round(ms))) return { ok: false, error: `too long; expected ${MIN_AGE_EXAMPLES}` };
  return { ok: true, value: ms };
}

/** A retention duration (`retain-for`, `--retain-for`): a length of time or `forever`. */
export function parseRetentionDuration(text: string): Parsed<RetentionDuration> {
  const trimmed = text.trim();
  if (trimmed === 'forever') return { ok: true, value: { kind: 'forever' } };
  const ms = durationMs(trimmed);
  if (ms === undefined) return { ok: false, error: `expected ${DURATION_EXAMPLES}` };
  if (!Number.isSafeInteger(Math.round(ms))) return { ok: false, error: `too long; use forever, or ${DURATION_EXAMPLES}` };
  return { ok: true, value: { kind: 'duration', ms, text: trimmed } };
}

function durationMs(text: string): number | undefined {
  const short = SHORT_DURATION.exec(text);
  if (short !== null) return Number(short[1]) * (UNIT_MS[short[2] ?? ''] ?? Number.NaN);
  if (!ISO_DURATION.test(text)) return undefined;
  const duration = Duration.fromISO(text);
  return duration.isValid ? duration.toMillis() : undefined;
}

/** An instant (`retain-until`) as epoch milliseconds. */
export function parseRetentionInstant(text: string): Parsed<number> {
  const trimmed = text.trim();
  if (!DATE_ONLY.test(trimmed) && !DATE_TIME.test(trimmed)) return { ok: false, error: `expected ${INSTANT_EXAMPLES}` };
  const ms = parseTimestampMs(trimmed);
  if (ms === undefined) return { ok: false, error: `not a real date or time; expected ${INSTANT_EXAMPLES}` };
  return { ok: true, value: ms };
}

/** An ISO 8601 timestamp (as the API server writes `creationTimestamp`) in epoch ms; UTC when no offset is given. */
export function parseTimestampMs(text: string): number | undefined {
  const fast = apiTimestampMs(text);
  if (fast !== undefined) return fast;
  const instant = DateTime.fromISO(text, { zone: 'utc' });
  return instant.isValid ? instant.toMillis() : undefined;
}

// The API server writes every metav1.Time as RFC 3339 in UTC to the second. A pass reads
// one per run and per target, and one per reference twice: through luxon that was 2.6 s of
// a dry run over 35,000 objects; read by hand it costs a tenth (bench/RESULTS.md).
const API_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** That form read directly; undefined for anything else (luxon decides), a real date only. */
function apiTimestampMs(text: string): number | undefined {
  const match = API_TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  // Date.UTC reads years below 100 as 19xx; leave those, and out-of-range fields, to luxon.
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 31 April over to 1 May: only a real date keeps its day.
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the years Date writes in four digits. */
const FOUR_DIGIT_YEARS = { from: -62_167_219_200_000, to: 253_402_300_799_999 } as const;

/**
 * `2026-11-29T10:00:00Z`: UTC, whole seconds unless there are milliseconds. Written by Date,
 * as luxon writes it, for years 0 to 9999; luxon writes the others. A pass writes one in
 * most decisions' messages, and a luxon DateTime reads the system's locale through
 * Intl.DateTimeFormat, which maps in ICU's data: about 8 MiB of a dry run's peak RSS
 * (bench/RESULTS.md, issue 24).
 */
export function formatInstant(ms: number): string {
  if (ms >= FOUR_DIGIT_YEARS.from && ms <= FOUR_DIGIT_YEARS.to && Number.isInteger(ms)) {
    const text = new Date(ms).toISOString();
    return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
  }
  return DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? String(ms);
}

const FORMAT_UNITS: readonly (readonly [string, number])[] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** A length of time for a person: its two largest units, e.g. `20m`, `1h30m`, `2d3h`, `0s`. */
export function formatDuration(ms: number): string {
  let rest = Math.floor(Math.abs(ms) / 1_000) * 1_000;
  const parts: string[] = [];
  for (const [unit, size] of FORMAT_UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 && parts.length < 2) parts.push(`${count}${unit}`);
  }
  return parts.length === 0 ? '0s' : parts.join('');
}

export function formatRetentionDuration(duration: RetentionDuration): string {
  switch (duration.kind) {
    case 'forever':
      return 'forever';
    case 'duration':
      return duration.text;
  }
}

/** The three keys under a prefix, e.g. `tekton-resource-gc.io/retain`. */
export interface RetentionKeys {
  retain: string;
  retainUntil: string;
  retainFor: string;
}

export function retentionKeys(prefix: string): RetentionKeys {
  return { retain: `${prefix}/retain`, retainUntil: `${prefix}/retain-until`, retainFor: `${prefix}/retain-for` };
}

export type RetentionSource = 'label' | 'annotation';

/** A retention value as written on an object, and what it means. */
export interface RetentionValue<T> {
  key: string;
  source: RetentionSource;
  text: string;
  value: T;
}

/** Labels and annotations of the object the values are read from. */
export interface Labelled {
  labels: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
}

/** What a target's retention labels and annotations say. */
export interface TargetRetention {
  /** The label or annotation that retains it (any text but `false` does), else the one set to `false`. */
  retain?: RetentionValue<boolean>;
  /** `value`: epoch milliseconds. */
  retainUntil?: RetentionValue<number>;
  retainFor?: RetentionValue<RetentionDuration>;
  /** One message per value that could not be parsed, e.g. `label …/retain-for "2x": expected …`. */
  invalid: readonly string[];
  /** Worth a log line: retain values other than true/false, label and annotation disagreeing, invalid values. */
  warnings: readonly string[];
}

/** Reads the label, else the annotation, of `key`, warning when both are set and differ. */
function readRetentionText(object: Labelled, key: string, warnings: string[]): Omit<RetentionValue<string>, 'value'> | undefined {
  const label = object.labels[key];
  const annotation = object.annotations?.[key];
  if (label !== undefined && annotation !== undefined && label !== annotation) {
    warnings.push(`label ${key} "${label}" is used; the annotation of the same key, "${annotation}", is ignored`);
  }
  if (label !== undefined) return { key, source: 'label', text: label };
  if (annotation !== undefined) return { key, source: 'annotation', text: annotation };
  return undefined;
}

/** `retain` as each source on the object writes it, the label first: any text but `false` retains. */
export function retainValues(object: Labelled, key: string): RetentionValue<boolean>[] {
  const sources: [RetentionSource, string | undefined][] = [
    ['label', object.labels[key]],
    ['annotation', object.annotations?.[key]],
  ];
  return sources.flatMap(([source, text]) => (text === undefined ? [] : [{ key, source, text, value: text !== 'false' }]));
}

/**
 * `retain` on a target (rule 1, "label or annotation"): the first source that
 * retains, else the one that is set (and says `false`). A text other than `true` or `false`
 * warns, as do a label and an annotation that differ.
 */
export function readRetain(object: Labelled, key: string, warnings: string[]): RetentionValue<boolean> | undefined {
  const values = retainValues(object, key);
  for (const { source, text } of values) {
    if (text !== 'true' && text !== 'false') warnings.push(`${source} ${key} "${text}" is neither "true" nor "false"; any value but "false" retains`);
  }
  const label = values.find((value) => value.source === 'label');
  const annotation = values.find((value) => value.source === 'annotation');
  // Two different texts cannot both be `false`: when they differ, at least one retains.
  if (label !== undefined && annotation !== undefined && label.text !== annotation.text) {
    const outcome = label.value && annotation.value ? 'both retain' : `the ${label.value ? 'label' : 'annotation'} retains, and either one is enough`;
    warnings.push(`label ${key} "${label.text}" and the annotation of the same key, "${annotation.text}", differ; ${outcome}`);
  }
  return values.find((value) => value.value) ?? values[0];
}

/** `retain` on a Namespace (rule 2): its label only, read like a target's. */
export function readNamespaceRetain(namespace: { labels: Readonly<Record<string, string>> }, key: string, warnings: string[]): RetentionValue<boolean> | undefined {
  return readRetain({ labels: namespace.labels }, key, warnings);
}

export function readTargetRetention(target: Labelled, prefix: string): TargetRetention {
  const keys = retentionKeys(prefix);
  const warnings: string[] = [];
  const invalid: string[] = [];
  const retain = readRetain(target, keys.retain, warnings);
  const retainUntil = readParsed(target, keys.retainUntil, parseRetentionInstant, { warnings, invalid });
  const retainFor = readParsed(target, keys.retainFor, parseRetentionDuration, { warnings, invalid });
  return {
    ...(retain && { retain }),
    ...(retainUntil && { retainUntil }),
    ...(retainFor && { retainFor }),
    invalid,
    warnings: [...warnings, ...invalid],
  };
}

function readParsed<T>(
  target: Labelled,
  key: string,
  parse: (text: string) => Parsed<T>,
  found: { warnings: string[]; invalid: string[] },
): RetentionValue<T> | undefined {
  const text = readRetentionText(target, key, found.warnings);
  if (text === undefined) return undefined;
  const parsed = parse(text.text);
  if (parsed.ok) return { ...text, value: parsed.value };
  found.invalid.push(`${text.source} ${key} "${text.text}": ${parsed.error}`);
  return undefined;
}

/** `/retain`, `/retain-until`, `/retain-for`: what every retention key ends with, whatever --label-prefix is. */
const RETENTION_KEY_ENDINGS: readonly string[] = Object.values(retentionKeys(''));

/**
 * A key a retention rule could read with some --label-prefix (`<prefix>/retain` ...). A
 * target's other labels and annotations are never read once it is listed (its selector is
 * the API server's), and can be large: kubectl's last-applied-configuration annotation holds
 * the whole object.
 */
export function isRetentionKey(key: string): boolean {
  return RETENTION_KEY_ENDINGS.some((ending) => key.endsWith(ending) && key.length > ending.length);
}

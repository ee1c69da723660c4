/**
 * A schedule as the API server validates a CronJob's `spec.schedule`: robfig/cron v3's
 * `ParseStandard` (`validateScheduleFormat` in
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/batch/validation/validation.go),
 * ported from its parser.go (`getField`, `getRange`, `parseDescriptor` of v3.0.1) with the
 * same errors, and the Go library calls it makes (`strings.Fields`, `strconv.Atoi`,
 * `time.ParseDuration`).
 *
 * Why not cron-parser's own parser: it has no mode that takes what robfig takes. It takes
 * more (six fields, `L`, `#`, `H`, `W`, 7 for Sunday, `@weekdays`, `@minutely`), takes less
 * (`+5`, `*-5`, a value given twice, an empty list item, `@every`, `@midnight`), and reads
 * some fields to other values (`MON/2` runs on to Sunday; `*\/1` and `*,5` are not `*` to it,
 * which decides whether both day fields must match). The values read here are what
 * cron-parser is then given (cron.ts), so it computes the ticks of exactly this schedule.
 *
 * Pure; test/unit/cron.test.ts runs robfig's own parser rows against it.
 */
import type { Parsed } from '../core/retention.js';

/** The values one field takes, and whether it was written with `*` or `?` (robfig's `starBit`). */
export interface CronField {
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

/** The five fields as robfig reads them: what a tick's wall time must match. */
export interface CronFields {
  readonly kind: 'fields';
  readonly minute: CronField;
  readonly hour: CronField;
  readonly dayOfMonth: CronField;
  readonly month: CronField;
  readonly dayOfWeek: CronField;
}

/** `@every DURATION`: robfig's ConstantDelaySchedule. */
export interface EveryDelay {
  readonly kind: 'every';
  readonly delayMs: number;
}

/** robfig's `ParseStandard` read: what the API server takes. */
export type StandardSpec = CronFields | EveryDelay;

const SECOND_MS = 1_000;

interface Bounds {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MINUTE: Bounds = { name: 'minute', min: 0, max: 59 };
const HOUR: Bounds = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: Bounds = { name: 'day of month', min: 1, max: 31 };
const MONTH: Bounds = {
  name: 'month',
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
// 0-6: robfig/cron refuses 7 for Sunday, and so does the API server.
const DAY_OF_WEEK: Bounds = { name: 'day of week', min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELD_BOUNDS = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK] as const;

/** The fields' names, in order, as errors say them. */
export const FIELD_NAMES: readonly string[] = FIELD_BOUNDS.map((bounds) => bounds.name);

/** robfig's descriptors written out; each parses to the bitsets `parseDescriptor` builds. */
export const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const EVERY = '@every ';

/** Go's `strings.Fields` separators: `unicode.IsSpace`. */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/**
 * robfig/cron's `ParseStandard`, for a spec without a `TZ=` prefix: the API server's check,
 * kept here because cron-parser takes other things (see above).
 */
export function parseStandard(spec: string): Parsed<StandardSpec> {
  if (spec.length === 0) return refuse('it is empty');
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = cronFields(spec);
  if (fields[0]?.startsWith('@') === true && fields.length === 1) return refuse('a descriptor is read only with nothing around it');
  if (fields.length !== 5) return refuse(`${fields.length} field${fields.length === 1 ? '' : 's'}`);
  const parsed: CronField[] = [];
  for (const [index, bounds] of FIELD_BOUNDS.entries()) {
    const text = fields[index] ?? '';
    const field = parseField(text, bounds);
    if (!field.ok) return refuse(`the ${bounds.name} field ${JSON.stringify(text)}: ${field.error}`);
    parsed.push(field.value);
  }
  const [minute, hour, dayOfMonth, month, dayOfWeek] = parsed as [CronField, CronField, CronField, CronField, CronField];
  return { ok: true, value: { kind: 'fields', minute, hour, dayOfMonth, month, dayOfWeek } };
}

/** `strings.Fields`: split at runs of white space, none at either end. */
export function cronFields(spec: string): string[] {
  return spec.split(GO_SPACE).filter((field) => field !== '');
}

export function refuse(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function parseDescriptor(spec: string): Parsed<StandardSpec> {
  const fields = DESCRIPTORS[spec];
  if (fields !== undefined) return parseStandard(fields);
  if (!spec.startsWith(EVERY)) return refuse(`unknown descriptor ${JSON.stringify(spec)}`);
  const duration = spec.slice(EVERY.length);
  const nanoseconds = parseGoDuration(duration);
  if (nanoseconds === undefined) return refuse(`${JSON.stringify(duration)} is not a duration such as 90m, 6h or 1h30m`);
  // `Every`: under a second counts as a second; what is under a second is dropped.
  const delayMs = nanoseconds < 1_000_000_000n ? SECOND_MS : Number(nanoseconds / 1_000_000_000n) * SECOND_MS;
  return { ok: true, value: { kind: 'every', delayMs } };
}

/** `getField`: comma-separated ranges (empty ones dropped, as `strings.FieldsFunc` drops them), their values joined. */
function parseField(text: string, bounds: Bounds): Parsed<CronField> {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',').filter((range) => range !== '')) {
    const range = parseRange(expr, bounds);
    if (!range.ok) return range;
    for (const value of range.value.values) values.add(value);
    star ||= range.value.star;
  }
  return { ok: true, value: { values, star } };
}

/**
 * `getRange`: `*` or `?`, a number or name, or `low-high`, each with an optional `/step`;
 * `N/step` runs to the field's maximum. A `*` (or `?`) with no step over 1, `*\/1`
 * included, keeps the star: for the day fields that is what decides between "both must
 * match" and "either matches" (`dayMatches`). After a `*`, robfig reads nothing up to the
 * slash, so `*-5` is `*`.
 */
function parseRange(expr: string, bounds: Bounds): Parsed<{ values: number[]; star: boolean }> {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  const low = lowAndHigh[0] ?? '';
  let start: number;
  let end: number;
  let star = false;
  if (low === '*' || low === '?') {
    [start, end, star] = [bounds.min, bounds.max, true];
  } else {
    const first = parseIntOrName(low, bounds);
    if (!first.ok) return first;
    start = first.value;
    if (lowAndHigh.length > 2) return refuse(`${expr} has too many hyphens`);
    const last = lowAndHigh.length === 2 ? parseIntOrName(lowAndHigh[1] ?? '', bounds) : first;
    if (!last.ok) return last;
    end = last.value;
  }
  let step = 1;
  if (rangeAndStep.length > 2) return refuse(`${expr} has too many slashes`);
  if (rangeAndStep.length === 2) {
    const parsedStep = parseGoInt(rangeAndStep[1] ?? '');
    if (!parsedStep.ok) return parsedStep;
    step = parsedStep.value;
    if (lowAndHigh.length === 1) end = bounds.max;
    if (step > 1) star = false;
  }
  if (start < bounds.min) return refuse(`${start} is below the minimum, ${bounds.min}`);
  if (end > bounds.max) return refuse(`${end} is above the maximum, ${bounds.max}${bounds === DAY_OF_WEEK ? ' (Sunday is 0, as Kubernetes reads it)' : ''}`);
  if (start > end) return refuse(`${start} is after ${end}`);
  if (step === 0) return refuse(`a step of 0`);
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return { ok: true, value: { values, star } };
}

function parseIntOrName(text: string, bounds: Bounds): Parsed<number> {
  const names = bounds.names === undefined ? [] : Object.keys(bounds.names);
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return { ok: true, value: named };
  const number = parseGoInt(text);
  if (number.ok || names.length === 0 || /^[+-]?[0-9]+$/.test(text)) return number;
  return refuse(`${JSON.stringify(text)} is neither a number nor a name (${names.map((name) => name.toUpperCase()).join(', ')})`);
}

const INT64_MAX = 2n ** 63n - 1n;

/** `mustParseInt`: `strconv.Atoi` (an optional sign, decimal digits, 64 bits), not negative. */
function parseGoInt(text: string): Parsed<number> {
  if (!/^[+-]?[0-9]+$/.test(text)) return refuse(`${JSON.stringify(text)} is not a number`);
  const value = BigInt(text);
  if (value > INT64_MAX || value < -INT64_MAX - 1n) return refuse(`${text} is out of range`);
  if (value < 0n) return refuse(`${text} is negative`);
  return { ok: true, value: Number(value) };
}

const DURATION_UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5
  'μs': 1_000n, // U+03BC
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/**
 * Go's `time.ParseDuration`, in nanoseconds: a sign, then numbers with optional fractions
 * and units (`1h30m`, `1.5h`, `90s`); `0` alone needs no unit. Undefined where Go refuses.
 */
export function parseGoDuration(text: string): bigint | undefined {
  const match = /^([+-]?)(.*)$/su.exec(text);
  const negative = match?.[1] === '-';
  let rest = match?.[2] ?? '';
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  const limit = 2n ** 63n;
  while (rest !== '') {
    const part = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/u.exec(rest);
    const [whole, integer = '', fraction, unitName = ''] = part ?? [''];
    const hasFraction = fraction !== undefined && fraction !== '';
    if (whole === '' || (integer === '' && !hasFraction)) return undefined;
    const unit = DURATION_UNITS[unitName];
    if (unit === undefined) return undefined;
    let value = integer === '' ? 0n : BigInt(integer);
    if (value > limit / unit) return undefined;
    value *= unit;
    if (hasFraction) {
      // Go scales the fraction through float64, as here.
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / 10 ** fraction.length)));
      if (value > limit) return undefined;
    }
    total += value;
    if (total > limit) return undefined;
    rest = rest.slice(whole.length);
  }
  if (negative) return -total;
  return total > limit - 1n ? undefined : total;
}

/** `dayMatches`: with a star in either day field both must match, else either one. */
export function dayMatches(cron: Pick<CronFields, 'dayOfMonth' | 'dayOfWeek'>, wall: { day: number; weekday: number }): boolean {
  const byDay = cron.dayOfMonth.values.has(wall.day);
  const byWeekday = cron.dayOfWeek.values.has(wall.weekday);
  return cron.dayOfMonth.star || cron.dayOfWeek.star ? byDay && byWeekday : byDay || byWeekday;
}

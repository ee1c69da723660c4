/**
 * A schedule read as Kubernetes reads a CronJob's `spec.schedule`, its ticks computed with
 * cron-parser (https://github.com/harrisiirak/cron-parser, the design card's package; time
 * zones through luxon). This module is the wrapper the project's brief asks for where
 * cron-parser falls short of Kubernetes, and each part of it says why it is here:
 *
 * - What the API server takes (`validateScheduleFormat` in
 *   https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/batch/validation/validation.go)
 *   is what robfig/cron v3's `ParseStandard` takes, with no `TZ` in it. cron-parser takes
 *   more (six fields, `L`, `#`, `H`, 7 for Sunday, @weekdays …) and a little less (`+5`,
 *   `*-5`, a value twice in a list), so the fields are checked here as robfig checks them
 *   (parser.go `getField`, `getRange`, `parseDescriptor` of v3.0.1), with the same errors.
 * - Before cron-parser reads a schedule, each field is normalised (`normalised`): robfig and
 *   cron-parser differ on which fields count as `*`, on values given twice and on a step in
 *   the day of week.
 * - `@every DURATION` is a constant delay in robfig (constantdelay.go) and unknown to
 *   cron-parser: it is computed here.
 * - On the days clocks change, the controller's ticks are the instants whose wall time
 *   matches: none for a wall time that does not exist, two for one that exists twice.
 *   cron-parser moves a tick in a spring-forward gap to the hour after it, and gives a
 *   repeated hour's ticks once; `nextTick` drops the first and adds the second.
 *
 * Where this is stricter than Kubernetes, on purpose: a schedule that no date matches
 * (`0 0 30 2 *`, or a field of only commas) and `@every` under a minute are refused here;
 * the API server takes them, and the controller then never starts a Job, or tries every
 * second with a Job name that changes once a minute.
 *
 * test/unit/cron.test.ts runs robfig/cron's own test rows against this module; the rows
 * where cron-parser still differs, and the differences, are in docs/operations.md.
 */
import { CronExpression, CronExpressionParser, type CronFieldCollection } from 'cron-parser';
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import type { Parsed } from '../core/retention.js';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** The values one field takes, and whether it was written with `*` or `?` (robfig's `starBit`). */
export interface CronField {
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

export type Cron =
  | {
      readonly kind: 'fields';
      /** The fields as robfig reads them: what a tick's wall time must match. */
      readonly minute: CronField;
      readonly hour: CronField;
      readonly dayOfMonth: CronField;
      readonly month: CronField;
      readonly dayOfWeek: CronField;
      /** What cron-parser was given (see `normalised`), and what it read from it. */
      readonly expression: string;
      readonly parsed: CronFieldCollection;
    }
  | { readonly kind: 'every'; readonly delayMs: number };

type FieldsCron = Extract<Cron, { kind: 'fields' }>;

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
const SHORTEST_EVERY_MS = MINUTE_MS;

/** Go's `strings.Fields` separators: `unicode.IsSpace`. */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** robfig's `ParseStandard` read: what the API server takes, before this module's own refusals. */
export type StandardSpec = Omit<FieldsCron, 'expression' | 'parsed'> | Extract<Cron, { kind: 'every' }>;

/**
 * What Kubernetes takes, less what this module refuses on purpose (see above): robfig's
 * `ParseStandard`, with no `TZ` anywhere (the zone is the CronJob's timeZone, here
 * --time-zone); then normalised and read by cron-parser.
 */
export function parseCron(spec: string): Parsed<Cron> {
  if (spec.includes('TZ')) return refuse('a time zone in the schedule is not taken, as Kubernetes does not; give it with --time-zone');
  const parsed = parseStandard(spec);
  if (!parsed.ok) return parsed;
  const standard = parsed.value;
  if (standard.kind === 'every') {
    return standard.delayMs < SHORTEST_EVERY_MS ? refuse(`${spec} is more often than once a minute; the shortest is @every 1m`) : { ok: true, value: standard };
  }
  const never = neverMatches(standard);
  if (never !== undefined) return refuse(never);
  const expression = normalised(standard);
  return { ok: true, value: { ...standard, expression, parsed: CronExpressionParser.parse(expression, { strict: false }).fields } };
}

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

/**
 * The expression cron-parser is given: each field that robfig reads as `*` written `*`, any
 * other as the list of its values, each once, in order. The list has the values robfig
 * reads, and cron-parser reads it to those values. Why not the text as written:
 * - cron-parser counts a day field as `*` only when it is exactly `*` or `?`; robfig
 *   whenever it has a `*` or `?` with no step over 1 in it (`*\/1`, `*,5`). That decides
 *   whether both day fields must match or either (robfig `dayMatches`): `0 0 1 * *\/1` is
 *   monthly in Kubernetes and would be daily in cron-parser.
 * - cron-parser refuses a value given twice (`0-10,5`: "duplicate values found"); robfig
 *   joins the list.
 * - cron-parser runs a day-of-week step on to 7, Sunday (`MON/2` is Monday, Wednesday,
 *   Friday and Sunday there; Monday, Wednesday, Friday in robfig), and refuses `+5` and
 *   `*-5`, which robfig reads as 5 and `*`.
 */
export function normalised(spec: Omit<FieldsCron, 'expression' | 'parsed'>): string {
  return [spec.minute, spec.hour, spec.dayOfMonth, spec.month, spec.dayOfWeek]
    .map((field) => (field.star ? '*' : [...field.values].sort((a, b) => a - b).join(',')))
    .join(' ');
}

/** `strings.Fields`: split at runs of white space, none at either end. */
export function cronFields(spec: string): string[] {
  return spec.split(GO_SPACE).filter((field) => field !== '');
}

function refuse(error: string): { ok: false; error: string } {
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
function dayMatches(cron: Pick<FieldsCron, 'dayOfMonth' | 'dayOfWeek'>, wall: { day: number; weekday: number }): boolean {
  const byDay = cron.dayOfMonth.values.has(wall.day);
  const byWeekday = cron.dayOfWeek.values.has(wall.weekday);
  return cron.dayOfMonth.star || cron.dayOfWeek.star ? byDay && byWeekday : byDay || byWeekday;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why no tick ever comes, or undefined. robfig takes a field of only commas (no value) and
 * a day that no month it names has, and its `Next` then answers "none within five years"
 * (cron-parser refuses both). Checked here, to say why in one line.
 * Every pairing of a day of month with a day of week comes in some year, so trying them all
 * is enough.
 */
function neverMatches(cron: Omit<FieldsCron, 'expression' | 'parsed'>): string | undefined {
  const fields = [cron.minute, cron.hour, cron.dayOfMonth, cron.month, cron.dayOfWeek];
  for (const [index, field] of fields.entries()) {
    if (field.values.size === 0) return `the ${FIELD_BOUNDS[index]?.name ?? ''} field names no value`;
  }
  for (const month of cron.month.values) {
    for (let day = 1; day <= (DAYS_IN_MONTH[month - 1] ?? 31); day++) {
      for (let weekday = 0; weekday < 7; weekday++) if (dayMatches(cron, { day, weekday })) return undefined;
    }
  }
  return 'no date matches it: none of its days of month is in any of its months';
}

/** robfig's `Next` looks five years ahead, no further; so does this (only Feb 29 near 2100 reaches it). */
const YEARS_AHEAD = 5;
/**
 * Moved ticks dropped in a row before giving up. Asked afresh from a moved tick, cron-parser
 * is past the gap, so one is all a gap gives (`* 2 * * *` included); a day's minutes bound it.
 */
const MOST_MOVED_TICKS = 24 * 60;
/** Clocks move back by at most this much (an hour nearly everywhere, 30 minutes on Lord Howe Island). */
const LONGEST_FALL_BACK_MS = 3 * HOUR_MS;

/**
 * The first tick strictly after `afterMs` in `timeZone` (whole seconds, as robfig starts at
 * the next second), or undefined when none comes within five years.
 */
export function nextTick(cron: Cron, timeZone: string, afterMs: number): number | undefined {
  const start = afterMs - (((afterMs % SECOND_MS) + SECOND_MS) % SECOND_MS) + SECOND_MS;
  // `@every`: robfig's ConstantDelaySchedule, from the whole second asked about; cron-parser has no such schedule.
  if (cron.kind === 'every') return start - SECOND_MS + cron.delayMs;
  const zone = IANAZone.create(timeZone);
  const yearLimit = DateTime.fromMillis(start, { zone }).year + YEARS_AHEAD;
  let after = afterMs;
  for (let moved = 0; moved <= MOST_MOVED_TICKS; moved++) {
    const tick = earlier(cronParserNext(cron, timeZone, after), secondOccurrence(cron, zone, after));
    if (tick === undefined || DateTime.fromMillis(tick, { zone }).year > yearLimit) return undefined;
    // A tick cron-parser moved out of a spring-forward gap (02:30 on the day 02:00 becomes
    // 03:00 comes as 03:30) is no tick in Kubernetes: robfig never reaches a wall time that
    // does not exist, so that day has none. Dropped, and the next one asked for.
    if (wallMatches(cron, zone, tick)) return tick;
    after = tick;
  }
  return undefined;
}

function earlier(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined || a <= b ? a : b;
}

/** cron-parser's next tick after `afterMs`; undefined where it gives up (its 10,000 steps). */
function cronParserNext(cron: FieldsCron, timeZone: string, afterMs: number): number | undefined {
  try {
    return CronExpression.fieldsToExpression(cron.parsed, { tz: timeZone, currentDate: new Date(afterMs) }).next().getTime();
  } catch {
    return undefined;
  }
}

/** Whether the wall time of `instantMs` in the zone matches every field, as robfig's `Next` checks it. */
function wallMatches(cron: FieldsCron, zone: IANAZone, instantMs: number): boolean {
  const wall = DateTime.fromMillis(instantMs, { zone });
  return (
    wall.second === 0 &&
    cron.minute.values.has(wall.minute) &&
    cron.hour.values.has(wall.hour) &&
    cron.month.values.has(wall.month) &&
    dayMatches(cron, { day: wall.day, weekday: wall.weekday % 7 })
  );
}

/**
 * On the day clocks go back, the tick in the repeated wall time's second run, when it is the
 * next one: robfig adds minutes and hours to an instant, so the repeated hour's ticks come
 * twice (Kubernetes starts two Jobs), while cron-parser gives them once. That tick is the
 * next one only when `afterMs` is within the repeated span's length of the change (else the
 * first run of the same wall time comes first), so only then is it looked for: as
 * cron-parser's next tick at the fixed offset after the change, if it falls in the span.
 */
function secondOccurrence(cron: FieldsCron, zone: IANAZone, afterMs: number): number | undefined {
  let low = afterMs - LONGEST_FALL_BACK_MS;
  let high = afterMs + LONGEST_FALL_BACK_MS;
  const before = zone.offset(low);
  const after = zone.offset(high);
  if (after >= before) return undefined;
  // The change: the first millisecond with the later offset.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zone.offset(middle) === before) low = middle;
    else high = middle;
  }
  const change = high;
  const repeatedMs = (before - after) * MINUTE_MS;
  if (afterMs < change - repeatedMs || afterMs >= change + repeatedMs) return undefined;
  const tick = cronParserNext(cron, FixedOffsetZone.instance(after).name, Math.max(afterMs, change - 1));
  return tick !== undefined && tick < change + repeatedMs ? tick : undefined;
}

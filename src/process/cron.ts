/**
 * A schedule's ticks as Kubernetes' CronJob controller computes them, with cron-parser
 * (https://github.com/harrisiirak/cron-parser, the design card's package; time zones
 * through luxon). What the API server takes is checked first, in cronspec.ts; cron-parser is
 * given the values read there (`normalised`) and computes the ticks. What it lacks, and so
 * what this module adds:
 *
 * - `@every DURATION`: a constant delay in robfig (constantdelay.go), unknown to cron-parser.
 * - Clock changes: the controller's ticks are the instants whose wall time matches, so none
 *   for a wall time that does not exist and two for one that exists twice. cron-parser moves
 *   a tick in a spring-forward gap to the hour after it and gives a repeated hour's ticks
 *   once; `nextTick` drops the first and adds the second.
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
import { FIELD_NAMES, dayMatches, parseStandard, refuse, type CronFields, type EveryDelay } from './cronspec.js';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

export type Cron =
  | (CronFields & {
      /** What cron-parser was given (see `normalised`), and what it read from it. */
      readonly expression: string;
      readonly parsed: CronFieldCollection;
    })
  | EveryDelay;

type FieldsCron = Extract<Cron, { kind: 'fields' }>;

const SHORTEST_EVERY_MS = MINUTE_MS;

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
export function normalised(spec: CronFields): string {
  return [spec.minute, spec.hour, spec.dayOfMonth, spec.month, spec.dayOfWeek]
    .map((field) => (field.star ? '*' : [...field.values].sort((a, b) => a - b).join(',')))
    .join(' ');
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why no tick ever comes, or undefined. robfig takes a field of only commas (no value) and
 * a day that no month it names has, and its `Next` then answers "none within five years"
 * (cron-parser refuses both). Checked here, to say why in one line.
 * Every pairing of a day of month with a day of week comes in some year, so trying them all
 * is enough.
 */
function neverMatches(cron: CronFields): string | undefined {
  const fields = [cron.minute, cron.hour, cron.dayOfMonth, cron.month, cron.dayOfWeek];
  for (const [index, field] of fields.entries()) {
    if (field.values.size === 0) return `the ${FIELD_NAMES[index] ?? ''} field names no value`;
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


/**
 * Schedule mode (`--schedule`): the process stays up and makes a pass at each tick of a
 * cron schedule, for people who run the collector as a Deployment or on a workstation.
 *
 * Choices (for the README):
 * - A schedule is read as Kubernetes reads a CronJob's (robfig/cron's standard parser):
 *   five fields (minute hour day-of-month month day-of-week) with `*`, `?`, `,`, `-`, `/`
 *   and names (`JAN`, `MON`), or one of `@yearly`, `@annually`, `@monthly`, `@weekly`,
 *   `@daily`, `@midnight`, `@hourly`. Seconds, `L`, `W`, `#`, `H`, a day of week 7, and a
 *   `TZ=` prefix are refused (Kubernetes refuses them too; the zone is `--time-zone`).
 *   `@every` is refused: it is not a cron schedule.
 * - `--time-zone` is a tz database name (luxon checks it); without it, the machine's zone.
 * - No pass at start: the first one is at the first tick, as a CronJob's. A pass that runs
 *   past a tick skips it (a CronJob's `concurrencyPolicy: Forbid`): the next pass is at the
 *   first tick after the pass ended.
 * - SIGTERM while waiting ends the process at once with 0; during a pass, the pass stops
 *   starting deletes as it always does, and the process ends after it with its status.
 */
import { CronExpressionParser } from 'cron-parser';
import { DateTime, IANAZone } from 'luxon';
import type { Parsed } from './core/retention.js';
import type { Logger } from './log.js';

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const SCHEDULE_EXAMPLES = 'five cron fields such as "17 * * * *" or "0 3 * * MON-FRI", or @hourly, @daily, @weekly, @monthly, @yearly';
const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
/** What robfig/cron's standard parser takes in a field: numbers, names, `*`, `?`, `,`, `-`, `/`. */
const FIELD = /^[0-9A-Za-z*?,/-]+$/;

/** A schedule as five fields, descriptors written out. */
export function parseSchedule(text: string): Parsed<string> {
  const trimmed = text.trim();
  const fail = (why: string): Parsed<string> => ({ ok: false, error: `${why}; expected ${SCHEDULE_EXAMPLES}` });
  if (/^(CRON_)?TZ=/.test(trimmed)) return fail('a time zone in the schedule is not taken, as Kubernetes does not; give it with --time-zone');
  if (trimmed.startsWith('@')) {
    const fields = DESCRIPTORS[trimmed];
    return fields === undefined ? fail(`unknown descriptor ${JSON.stringify(trimmed)}`) : { ok: true, value: fields };
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) return fail(`${fields.length} fields`);
  for (const [index, value] of fields.entries()) {
    const name = FIELD_NAMES[index] ?? 'field';
    // L, W, # and H are cron-parser's extensions; robfig/cron has none of them.
    if (!FIELD.test(value) || /[LWH#]/.test(value.replace(/[A-Za-z]{3}/g, (word) => (isName(word) ? '' : word)))) return fail(`the ${name} field ${JSON.stringify(value)} is not valid`);
  }
  if (/(^|[,-])7($|[^0-9])/.test(fields[4] ?? '')) return fail('day of week 7 is not taken (Sunday is 0), as Kubernetes reads it');
  try {
    CronExpressionParser.parse(fields.join(' '), { currentDate: 0, tz: 'UTC' });
  } catch (error) {
    return fail(error instanceof Error ? error.message.replace(/\.$/, '') : String(error));
  }
  return { ok: true, value: fields.join(' ') };
}

const NAMES = new Set(['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC', 'SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);

function isName(word: string): boolean {
  return NAMES.has(word.toUpperCase());
}

/** A tz database name, such as Europe/Berlin or Etc/UTC. */
export function parseTimeZone(text: string): Parsed<string> {
  if (IANAZone.isValidZone(text)) return { ok: true, value: text };
  return { ok: false, error: 'expected a tz database time zone such as Europe/Berlin, America/New_York or Etc/UTC' };
}

/** The machine's own zone, for when --time-zone is not given. */
export function localTimeZone(): string {
  return DateTime.local().zoneName ?? 'UTC';
}

/** The first tick strictly after `after`. */
export function nextTick(schedule: string, timeZone: string, after: Date): Date {
  return CronExpressionParser.parse(schedule, { currentDate: after, tz: timeZone }).next().toDate();
}

export interface ScheduleDeps {
  now: () => Date;
  /** Resolves after `ms` or as soon as `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted by SIGTERM: no further pass starts. */
  signal: AbortSignal;
  log: Logger;
  /** One pass, answering its exit status. */
  pass: () => Promise<number>;
}

/** Longest single wait: a machine that slept (a laptop's lid) notices the time soon after waking. */
const MAX_WAIT_MS = 60_000;

/**
 * Passes at each tick until the signal aborts. Answers 0 when stopped between passes, and
 * the status of the pass that was running when it was stopped during one.
 */
export async function runOnSchedule(schedule: { text: string; fields: string; timeZone: string }, deps: ScheduleDeps): Promise<number> {
  while (!deps.signal.aborted) {
    const next = nextTick(schedule.fields, schedule.timeZone, deps.now());
    const local = DateTime.fromJSDate(next, { zone: schedule.timeZone }).toISO({ suppressMilliseconds: true });
    deps.log.info({ nextPass: next.toISOString(), schedule: schedule.text, timeZone: schedule.timeZone }, `next pass at ${local} (${schedule.timeZone})`);
    while (!deps.signal.aborted && deps.now().getTime() < next.getTime()) {
      await deps.sleep(Math.min(next.getTime() - deps.now().getTime(), MAX_WAIT_MS), deps.signal);
    }
    if (deps.signal.aborted) break;
    const status = await deps.pass();
    if (deps.signal.aborted) return status;
  }
  deps.log.info({}, 'stopped between passes');
  return 0;
}

/**
 * Schedule mode (`--schedule`): the process stays up and makes a pass at each tick of a
 * cron schedule, for people who run the collector as a Deployment or on a workstation.
 *
 * Choices (written down for users in docs/operations.md):
 * - A schedule, and its ticks, are read as Kubernetes reads a CronJob's, the ticks computed
 *   with cron-parser: see cron.ts.
 * - `--time-zone` is a tz database name (luxon checks it); without it, the machine's zone.
 * - No pass at start: the first one is at the first tick, as a CronJob's first Job.
 * - The next tick is the first after the later of now and the last pass's tick, so a
 *   clock stepped back during a pass never gives that tick a second pass.
 * - Passes never overlap, and ticks that came while a pass ran get none: the next pass is
 *   at the first tick after it ended, and one warning per gap says how many ticks were
 *   skipped, the first and the last. One line per gap, not per tick: after a three-hour
 *   pass on a per-minute schedule, 180 lines would say what one says, and an alert on the
 *   line counts overruns, not minutes. (A CronJob with `concurrencyPolicy: Forbid` differs:
 *   when its Job ends, Kubernetes starts one at once for the latest missed tick, unless
 *   that is older than `startingDeadlineSeconds`.)
 * - SIGTERM while waiting ends the process at once with 0; during a pass, the pass stops
 *   starting deletes as it always does, and the process ends after it with its status.
 */
import { DateTime, IANAZone } from 'luxon';
import { nextTick as cronNextTick, parseCron, type Cron } from './cron.js';
import { DESCRIPTORS, cronFields } from './cronspec.js';
import type { Parsed } from '../core/retention.js';
import type { Logger } from '../ops/log.js';
import { isAborted } from './signals.js';

const SCHEDULE_EXAMPLES = 'five cron fields such as "17 * * * *" or "0 3 * * MON-FRI", or @hourly, @daily, @weekly, @monthly, @yearly, @every 6h';

/** A schedule as five fields, descriptors written out, or `@every` and its duration as given. */
export function parseSchedule(text: string): Parsed<string> {
  const parsed = parseCron(text);
  if (!parsed.ok) return { ok: false, error: `${parsed.error}; expected ${SCHEDULE_EXAMPLES}` };
  return { ok: true, value: DESCRIPTORS[text] ?? (text.startsWith('@') ? text : cronFields(text).join(' ')) };
}

/** A schedule that parseSchedule wrote out; anything else is a mistake in the caller. */
function cronOf(fields: string): Cron {
  const parsed = parseCron(fields);
  if (!parsed.ok) throw new Error(`not a schedule: ${fields}: ${parsed.error}`);
  return parsed.value;
}

/** A tz database name, such as Europe/Berlin or Etc/UTC. */
export function parseTimeZone(text: string): Parsed<string> {
  if (IANAZone.isValidZone(text)) return { ok: true, value: text };
  return { ok: false, error: 'expected a tz database time zone such as Europe/Berlin, America/New_York or Etc/UTC' };
}

/** The machine's own zone, for when --time-zone is not given. */
export function localTimeZone(): string {
  return DateTime.local().zoneName;
}

/** The first tick strictly after `after`, or undefined when none comes within five years. */
export function nextTick(fields: string, timeZone: string, after: Date): Date | undefined {
  const tick = cronNextTick(cronOf(fields), timeZone, after.getTime());
  return tick === undefined ? undefined : new Date(tick);
}

/** Counting skipped ticks stops here: past it the line says "more than". */
export const MAX_COUNTED_SKIPS = 1_000;

/** What to do after a pass (or at start), from the last pass's tick and the clock. */
export interface NextPass {
  /** The tick of the next pass; undefined when none comes within five years. */
  at: number | undefined;
  /** Ticks after the last pass's tick that are already past: they get no pass. */
  skipped?: { count: number; first: number; last: number; countedAll: boolean };
  /** The clock reads earlier than the last pass's tick (it was stepped back). */
  clockBehind?: { now: number; lastTick: number };
}

/**
 * The next pass's tick: the first after the later of `now` and `lastTick`, found by walking
 * the ticks after `lastTick` (so an `@every` schedule keeps its rhythm), and the ticks
 * walked over on the way, which were skipped.
 */
export function planNextPass(cron: Cron, timeZone: string, lastTick: number | undefined, now: number): NextPass {
  if (lastTick === undefined) return { at: cronNextTick(cron, timeZone, now) };
  const plan: NextPass = { at: undefined };
  if (now < lastTick) plan.clockBehind = { now, lastTick };
  let tick = cronNextTick(cron, timeZone, lastTick);
  let skipped: NextPass['skipped'];
  while (tick !== undefined && tick <= now) {
    if (skipped !== undefined && skipped.count === MAX_COUNTED_SKIPS) {
      skipped.countedAll = false;
      tick = cronNextTick(cron, timeZone, now);
      break;
    }
    skipped = skipped === undefined ? { count: 1, first: tick, last: tick, countedAll: true } : { ...skipped, count: skipped.count + 1, last: tick };
    tick = cronNextTick(cron, timeZone, tick);
  }
  plan.at = tick;
  if (skipped !== undefined) plan.skipped = skipped;
  return plan;
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
const EXIT_COULD_NOT_RUN = 1;

/**
 * Passes at each tick until the signal aborts. Answers 0 when stopped between passes, and
 * the status of the pass that was running when it was stopped during one.
 */
export async function runOnSchedule(schedule: { text: string; fields: string; timeZone: string }, deps: ScheduleDeps): Promise<number> {
  const cron = cronOf(schedule.fields);
  const local = (ms: number): string => DateTime.fromMillis(ms, { zone: schedule.timeZone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString();
  const about = { schedule: schedule.text, timeZone: schedule.timeZone };
  let lastTick: number | undefined;
  while (!isAborted(deps.signal)) {
    const plan = planNextPass(cron, schedule.timeZone, lastTick, deps.now().getTime());
    logPlan(plan, deps.log, about, local);
    if (plan.at === undefined) return EXIT_COULD_NOT_RUN;
    const at = plan.at;
    while (!isAborted(deps.signal) && deps.now().getTime() < at) {
      await deps.sleep(Math.min(at - deps.now().getTime(), MAX_WAIT_MS), deps.signal);
    }
    if (isAborted(deps.signal)) break;
    const status = await deps.pass();
    lastTick = at;
    if (isAborted(deps.signal)) return status;
  }
  deps.log.info({}, 'stopped between passes');
  return 0;
}

function logPlan(plan: NextPass, log: Logger, about: { schedule: string; timeZone: string }, local: (ms: number) => string): void {
  const zone = `(${about.timeZone})`;
  if (plan.clockBehind !== undefined) {
    const { now, lastTick } = plan.clockBehind;
    log.warn({ ...about, clock: new Date(now).toISOString(), lastTick: new Date(lastTick).toISOString() }, `the clock reads ${local(now)}, before the last pass's tick at ${local(lastTick)} ${zone}: it was stepped back; the next pass is at the first tick after that one`);
  }
  const skipped = plan.skipped;
  if (skipped !== undefined) {
    const fields = { ...about, skippedTicks: skipped.count, firstSkipped: new Date(skipped.first).toISOString(), ...(skipped.countedAll ? { lastSkipped: new Date(skipped.last).toISOString() } : {}) };
    const which = !skipped.countedAll
      ? `more than ${skipped.count} ticks from ${local(skipped.first)} ${zone}`
      : skipped.count === 1
        ? `the tick at ${local(skipped.first)} ${zone}`
        : `${skipped.count} ticks, ${local(skipped.first)} to ${local(skipped.last)} ${zone}`;
    log.warn(fields, `skipped ${which}: the last pass ended after ${skipped.count === 1 && skipped.countedAll ? 'it' : 'them'}; passes never overlap`);
  }
  if (plan.at === undefined) {
    log.error(about, `no tick of ${JSON.stringify(about.schedule)} within five years: no further pass`);
    return;
  }
  log.info({ nextPass: new Date(plan.at).toISOString(), ...about }, `next pass at ${local(plan.at)} ${zone}`);
}

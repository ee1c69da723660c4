/**
 * Wall-clock arithmetic in a tz database zone, done as Go's time package does it, so that
 * cron.ts can follow robfig/cron's `SpecSchedule.Next` step for step: Kubernetes' CronJob
 * controller computes its ticks with that code, and its answers on days when the clocks
 * change (a 02:30 tick skipped in spring, the repeated hour run twice in autumn) come from
 * how `time.Date` and `Time.AddDate` settle a wall time that does not exist or exists twice.
 *
 * Instants are milliseconds since the Unix epoch; the zone's offsets come from the tz data
 * of Node's ICU, through luxon.
 */
import { IANAZone } from 'luxon';

/** A wall-clock reading: month 1-12, day 1-31, weekday 0 (Sunday) to 6. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;

/** A zone's offset from UTC at an instant, in milliseconds (luxon answers minutes). */
export type OffsetAt = (instantMs: number) => number;

export function offsetIn(zoneName: string): OffsetAt {
  const zone = IANAZone.create(zoneName);
  if (!zone.isValid) throw new Error(`unknown time zone ${zoneName}`);
  return (instantMs) => Math.round(zone.offset(instantMs) * MINUTE_MS);
}

/** `t.In(loc)` read field by field: `Year()`, `Month()`, `Day()`, `Hour()`, … */
export function wallTime(instantMs: number, offsetAt: OffsetAt): WallTime {
  const wall = new Date(instantMs + offsetAt(instantMs));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    weekday: wall.getUTCDay(),
  };
}

/**
 * `time.Date(year, month, day, hour, minute, second, 0, loc)`: fields out of range carry
 * over (month 13 is January of the next year, day 32 the first of the next month), and a
 * wall time in a gap or an overlap settles as Go settles it. Go reads the zone's offset at
 * the wall time taken as UTC, then, unless the instant that offset gives lies in the same
 * zone period, the offset at that instant (`func Date` in
 * https://github.com/golang/go/blob/master/src/time/time.go): in both cases the offset at
 * `wall - offset(wall)`. So 02:30 on a spring-forward day in Europe/Berlin is
 * 03:30 CEST, and 02:30 on the autumn day is the second 02:30 (CET), while 01:30 on the
 * autumn day in America/New_York is the first (EDT).
 */
export function goDate(wall: Omit<WallTime, 'weekday'>, offsetAt: OffsetAt): number {
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const offset = offsetAt(wallAsUtc);
  if (offset === 0) return wallAsUtc;
  return wallAsUtc - offsetAt(wallAsUtc - offset);
}

/** `t.AddDate(0, months, days)`: the wall fields moved, then settled by `time.Date`. */
export function addDate(instantMs: number, months: number, days: number, offsetAt: OffsetAt): number {
  const wall = wallTime(instantMs, offsetAt);
  return goDate({ ...wall, month: wall.month + months, day: wall.day + days }, offsetAt);
}

/** `t.Truncate(d)`: down to a multiple of `d` in absolute time, whatever the zone. */
export function truncate(instantMs: number, stepMs: number): number {
  return instantMs - (((instantMs % stepMs) + stepMs) % stepMs);
}

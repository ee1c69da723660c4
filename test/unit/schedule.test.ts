/**
 * Schedule mode's pure parts: --schedule and --time-zone as Kubernetes reads a CronJob's
 * schedule and timeZone (the rows of issue 16 where it used to differ), the next pass after
 * a pass (skipped ticks, a clock stepped back), and the loop on an injected clock and sleep.
 * robfig/cron's own test rows are in cron.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCron } from '../../src/process/cron.js';
import type { Logger } from '../../src/ops/log.js';
import { MAX_COUNTED_SKIPS, nextTick, parseSchedule, parseTimeZone, planNextPass, runOnSchedule, type ScheduleDeps } from '../../src/process/schedule.js';

const EXPECTED = 'expected five cron fields such as "17 * * * *" or "0 3 * * MON-FRI", or @hourly, @daily, @weekly, @monthly, @yearly, @every 6h';

describe('parseSchedule: what Kubernetes takes for a CronJob schedule, written out', () => {
  const rows: [string, string | undefined][] = [
    // Five fields as Kubernetes takes them, kept.
    ['17 * * * *', '17 * * * *'],
    ['*/15 8-18 * * MON-FRI', '*/15 8-18 * * MON-FRI'],
    ['0 0 1,15 JAN-JUN ?', '0 0 1,15 JAN-JUN ?'],
    // A step and a value in one list: robfig's getField joins any ranges.
    ['*/5,10 * * * *', '*/5,10 * * * *'],
    // Space around and between fields is any run of white space, as strings.Fields splits.
    ['  0\t3 *  * * ', '0 3 * * *'],
    // Names in any case, ? for *, a leading + or 0 on a number (strconv.Atoi).
    ['0 0 ? jan-Mar sun', '0 0 ? jan-Mar sun'],
    ['+5 03 * * *', '+5 03 * * *'],
    // After a *, robfig reads nothing up to the slash: *-5 is *.
    ['*-5 * * * *', '*-5 * * * *'],
    // Descriptors, written out; @every kept as given (it has no fields).
    ['@hourly', '0 * * * *'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@weekly', '0 0 * * 0'],
    ['@monthly', '0 0 1 * *'],
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@every 6h', '@every 6h'],
    ['@every 1h30m', '@every 1h30m'],
    // Refused, as Kubernetes refuses them.
    ['0 */5 * * * *', undefined], // seconds
    ['* * * *', undefined],
    ['0 0 L * *', undefined],
    ['0 0 LW * *', undefined],
    ['0 0 * * 1#2', undefined],
    ['0 0 * * 5L', undefined],
    ['H * * * *', undefined],
    ['0 0 * * 7', undefined], // Sunday is 0 only
    ['0 0 * * 07', undefined],
    ['0 0 * * 5-7', undefined],
    ['0 0 * * SAT-SUN', undefined], // a range that runs backwards
    ['0 0 * * MONDAY', undefined],
    ['TZ=Europe/Berlin 0 3 * * *', undefined],
    ['CRON_TZ=UTC 0 3 * * *', undefined],
    ['@reboot', undefined],
    ['@every 1x', undefined],
    ['@every  1h', undefined], // two spaces: robfig reads " 1h" as the duration
    ['@daily ', undefined], // a descriptor is matched whole
    [' @daily', undefined],
    ['61 * * * *', undefined],
    ['hourly', undefined],
    ['', undefined],
    // Refused here though Kubernetes takes them: no tick would ever come, or one a second.
    ['0 0 30 2 *', undefined],
    ['0 0 , * *', undefined],
    ['@every 30s', undefined],
  ];
  for (const [text, fields] of rows) {
    it(`${JSON.stringify(text)} -> ${fields ?? 'refused'}`, () => {
      const parsed = parseSchedule(text);
      assert.deepEqual(parsed.ok ? parsed.value : undefined, fields, parsed.ok ? '' : parsed.error);
      if (!parsed.ok) {
        assert.doesNotMatch(parsed.error, /\n/);
        assert.ok(parsed.error.endsWith(`; ${EXPECTED}`), parsed.error);
      }
    });
  }

  it('says what is wrong in the field it is in', () => {
    const errors: [string, string][] = [
      ['0 0 * * 07', 'the day of week field "07": 7 is above the maximum, 6 (Sunday is 0, as Kubernetes reads it)'],
      ['60 * * * *', 'the minute field "60": 60 is above the maximum, 59'],
      ['0 0 * JANUARY *', 'the month field "JANUARY": "JANUARY" is neither a number nor a name (JAN, FEB, MAR, APR, MAY, JUN, JUL, AUG, SEP, OCT, NOV, DEC)'],
      ['*/0 * * * *', 'the minute field "*/0": a step of 0'],
      ['0 */5 * * * *', '6 fields'],
      ['TZ=Europe/Berlin 0 3 * * *', 'a time zone in the schedule is not taken, as Kubernetes does not; give it with --time-zone'],
      ['0 0 31 2,4 *', 'no date matches it: none of its days of month is in any of its months'],
      ['@every 30s', '@every 30s is more often than once a minute; the shortest is @every 1m'],
      [' @daily', 'a descriptor is read only with nothing around it'],
    ];
    for (const [text, error] of errors) assert.deepEqual(parseSchedule(text), { ok: false, error: `${error}; ${EXPECTED}` }, text);
  });

  it('time zones are tz database names', () => {
    for (const zone of ['Etc/UTC', 'UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires']) assert.ok(parseTimeZone(zone).ok, zone);
    for (const zone of ['Europe/Berlinn', 'CEST+1', '', 'Mars/Olympus', 'Local']) assert.ok(!parseTimeZone(zone).ok, zone);
  });
});

/** The first `count` ticks after `fromIso`, as ISO instants. */
function ticks(fields: string, timeZone: string, fromIso: string, count: number): string[] {
  const out: string[] = [];
  let after = new Date(fromIso);
  for (let index = 0; index < count; index++) {
    const tick = nextTick(fields, timeZone, after);
    if (tick === undefined) break;
    out.push(tick.toISOString());
    after = tick;
  }
  return out;
}

describe('nextTick: the ticks Kubernetes would start Jobs at', () => {
  it('a day field written with * counts as *, */1 included: both day fields must match (robfig dayMatches, starBit)', () => {
    // Monthly, as in Kubernetes; it used to run daily here.
    assert.deepEqual(ticks('0 0 1 * */1', 'Etc/UTC', '2026-03-02T00:00:00Z', 2), ['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z']);
    assert.deepEqual(ticks('0 0 */1 * 1', 'Etc/UTC', '2026-03-02T00:00:00Z', 2), ['2026-03-09T00:00:00.000Z', '2026-03-16T00:00:00.000Z']);
    // A step over 1 restricts the field: then either one matching is enough.
    assert.deepEqual(ticks('0 0 */10 * 1', 'Etc/UTC', '2026-03-02T00:00:00Z', 3), ['2026-03-09T00:00:00.000Z', '2026-03-11T00:00:00.000Z', '2026-03-16T00:00:00.000Z']);
    // Both restricted: either matches, as in cron.
    assert.deepEqual(ticks('0 0 13 * 5', 'Etc/UTC', '2026-03-01T00:00:00Z', 2), ['2026-03-06T00:00:00.000Z', '2026-03-13T00:00:00.000Z']);
  });

  it('a step and a value in one field', () => {
    assert.deepEqual(ticks('*/20,10 * * * *', 'Etc/UTC', '2026-03-02T00:00:00Z', 4), [
      '2026-03-02T00:10:00.000Z',
      '2026-03-02T00:20:00.000Z',
      '2026-03-02T00:40:00.000Z',
      '2026-03-02T01:00:00.000Z',
    ]);
  });

  it('in the zone given; strictly after', () => {
    assert.deepEqual(ticks('0 3 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 1), ['2026-03-29T01:00:00.000Z']);
    assert.deepEqual(ticks('0 3 * * *', 'Etc/UTC', '2026-03-28T12:00:00Z', 1), ['2026-03-29T03:00:00.000Z']);
    assert.deepEqual(ticks('* * * * *', 'Etc/UTC', '2026-03-28T12:00:00Z', 1), ['2026-03-28T12:01:00.000Z']);
    // A fraction of a second past a tick is past it: robfig starts at the next whole second.
    assert.deepEqual(ticks('* * * * *', 'Etc/UTC', '2026-03-28T11:59:59.500Z', 1), ['2026-03-28T12:00:00.000Z']);
  });

  it('Europe/Berlin, spring forward (29 March 2026, 02:00 -> 03:00): the 02:30 tick does not happen that day', () => {
    assert.deepEqual(ticks('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2), [
      '2026-03-30T00:30:00.000Z', // 02:30 CEST on the 30th; it used to be 03:30 CEST on the 29th
      '2026-03-31T00:30:00.000Z',
    ]);
    assert.deepEqual(ticks('0 * * * *', 'Europe/Berlin', '2026-03-28T23:30:00Z', 3), [
      '2026-03-29T00:00:00.000Z', // 01:00 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST
      '2026-03-29T02:00:00.000Z',
    ]);
  });

  it('Europe/Berlin, fall back (25 October 2026, 03:00 -> 02:00): the repeated hour has its ticks twice', () => {
    assert.deepEqual(ticks('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 3), [
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:30:00.000Z', // 02:30 CET; it used to run once
      '2026-10-26T01:30:00.000Z',
    ]);
    assert.deepEqual(ticks('*/30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 5), [
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-26T01:00:00.000Z',
    ]);
  });

  it('@every counts from the instant it is asked about, whole seconds', () => {
    assert.deepEqual(ticks('@every 90m', 'Europe/Berlin', '2026-10-25T00:15:00.700Z', 2), ['2026-10-25T01:45:00.000Z', '2026-10-25T03:15:00.000Z']);
  });
});

const BERLIN = 'Europe/Berlin';
const UTC = 'Etc/UTC';

function cronOf(text: string) {
  const parsed = parseCron(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const ms = (iso: string): number => Date.parse(iso);

describe('planNextPass: the next pass is at the first tick after the later of now and the last tick', () => {
  it('at start: the first tick after now', () => {
    assert.deepEqual(planNextPass(cronOf('*/5 * * * *'), UTC, undefined, ms('2026-11-29T12:01:00Z')), { at: ms('2026-11-29T12:05:00Z') });
  });

  it('after a pass that ended before the next tick: that tick, nothing skipped', () => {
    assert.deepEqual(planNextPass(cronOf('*/5 * * * *'), UTC, ms('2026-11-29T12:05:00Z'), ms('2026-11-29T12:07:00Z')), { at: ms('2026-11-29T12:10:00Z') });
  });

  it('after a pass that ran past ticks: the first tick after it ended, and the ticks skipped (a tick the pass ended on included)', () => {
    assert.deepEqual(planNextPass(cronOf('*/5 * * * *'), UTC, ms('2026-11-29T12:05:00Z'), ms('2026-11-29T12:20:00Z')), {
      at: ms('2026-11-29T12:25:00Z'),
      skipped: { count: 3, first: ms('2026-11-29T12:10:00Z'), last: ms('2026-11-29T12:20:00Z'), countedAll: true },
    });
  });

  it('a clock stepped back during a pass: the next tick after the last one, never the last one again', () => {
    assert.deepEqual(planNextPass(cronOf('0 3 * * *'), BERLIN, ms('2026-11-29T02:00:00Z'), ms('2026-11-29T01:30:00Z')), {
      at: ms('2026-11-30T02:00:00Z'),
      clockBehind: { now: ms('2026-11-29T01:30:00Z'), lastTick: ms('2026-11-29T02:00:00Z') },
    });
  });

  it('a gap of more ticks than are counted: the first, and "more than"', () => {
    const plan = planNextPass(cronOf('* * * * *'), UTC, ms('2026-11-29T00:00:00Z'), ms('2026-12-01T00:00:30Z'));
    assert.deepEqual(plan, {
      at: ms('2026-12-01T00:01:00Z'),
      skipped: { count: MAX_COUNTED_SKIPS, first: ms('2026-11-29T00:01:00Z'), last: ms('2026-11-29T00:01:00Z') + (MAX_COUNTED_SKIPS - 1) * 60_000, countedAll: false },
    });
  });

  it('@every keeps its rhythm from the last tick, as the CronJob controller counts from the last scheduled time', () => {
    assert.deepEqual(planNextPass(cronOf('@every 1h'), UTC, ms('2026-11-29T12:00:00Z'), ms('2026-11-29T12:20:00Z')), { at: ms('2026-11-29T13:00:00Z') });
    assert.deepEqual(planNextPass(cronOf('@every 1h'), UTC, ms('2026-11-29T12:00:00Z'), ms('2026-11-29T14:20:00Z')), {
      at: ms('2026-11-29T15:00:00Z'),
      skipped: { count: 2, first: ms('2026-11-29T13:00:00Z'), last: ms('2026-11-29T14:00:00Z'), countedAll: true },
    });
  });
});

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

function capturingLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: unknown, message?: string): void =>
      void lines.push({ level, fields: fields as Record<string, unknown>, message: message ?? '' });
  return { log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

/** A clock that moves only when the loop sleeps or a pass says so. */
function fakeClock(startIso: string) {
  let nowMs = Date.parse(startIso);
  const sleeps: number[] = [];
  return {
    now: (): Date => new Date(nowMs),
    sleep: (waitMs: number): Promise<void> => {
      sleeps.push(waitMs);
      nowMs += waitMs;
      return Promise.resolve();
    },
    set: (iso: string) => (nowMs = Date.parse(iso)),
    advance: (byMs: number) => (nowMs += byMs),
    sleeps,
  };
}

function schedule(text: string, timeZone = 'Etc/UTC'): { text: string; fields: string; timeZone: string } {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return { text, fields: parsed.value, timeZone };
}

describe('runOnSchedule, on an injected clock and sleep', () => {
  it('makes a pass at each tick, skips ticks a long pass overran with one warning, and stops with the status of the pass it stopped in', async () => {
    const clock = fakeClock('2026-11-29T12:00:30Z');
    const controller = new AbortController();
    const passesAt: string[] = [];
    const { log, lines } = capturingLog();
    const deps: ScheduleDeps = {
      now: clock.now,
      sleep: clock.sleep,
      signal: controller.signal,
      log,
      pass: () => {
        passesAt.push(clock.now().toISOString());
        // The second pass takes 3.5 minutes: the ticks at 12:03, 12:04 and 12:05 get no pass.
        if (passesAt.length === 2) clock.advance(210_000);
        if (passesAt.length === 3) controller.abort();
        return Promise.resolve(3);
      },
    };
    const status = await runOnSchedule(schedule('* * * * *'), deps);
    assert.deepEqual(passesAt, ['2026-11-29T12:01:00.000Z', '2026-11-29T12:02:00.000Z', '2026-11-29T12:06:00.000Z']);
    assert.equal(status, 3);
    assert.deepEqual(
      lines.map((line) => `${line.level} ${line.message}`),
      [
        'info next pass at 2026-11-29T12:01:00+00:00 (Etc/UTC)',
        'info next pass at 2026-11-29T12:02:00+00:00 (Etc/UTC)',
        'warn skipped 3 ticks, 2026-11-29T12:03:00+00:00 to 2026-11-29T12:05:00+00:00 (Etc/UTC): the last pass ended after them; passes never overlap',
        'info next pass at 2026-11-29T12:06:00+00:00 (Etc/UTC)',
      ],
    );
    assert.deepEqual(lines[2]?.fields, {
      schedule: '* * * * *',
      timeZone: 'Etc/UTC',
      skippedTicks: 3,
      firstSkipped: '2026-11-29T12:03:00.000Z',
      lastSkipped: '2026-11-29T12:05:00.000Z',
    });
  });

  it('one skipped tick is named', async () => {
    const clock = fakeClock('2026-11-29T12:00:30Z');
    const controller = new AbortController();
    const { log, lines } = capturingLog();
    let passes = 0;
    await runOnSchedule(schedule('*/10 * * * *'), {
      now: clock.now,
      sleep: clock.sleep,
      signal: controller.signal,
      log,
      pass: () => {
        passes++;
        if (passes === 1) clock.advance(11 * 60_000);
        else controller.abort();
        return Promise.resolve(0);
      },
    });
    assert.ok(lines.some((line) => line.message === 'skipped the tick at 2026-11-29T12:20:00+00:00 (Etc/UTC): the last pass ended after it; passes never overlap'));
  });

  it('a clock stepped back during a pass: no second pass for that tick, and a warning', async () => {
    const clock = fakeClock('2026-11-29T11:59:00Z');
    const controller = new AbortController();
    const passesAt: string[] = [];
    const { log, lines } = capturingLog();
    const status = await runOnSchedule(schedule('*/30 * * * *'), {
      now: clock.now,
      sleep: clock.sleep,
      signal: controller.signal,
      log,
      pass: () => {
        passesAt.push(clock.now().toISOString());
        // During the first pass, the clock is set back 40 minutes.
        if (passesAt.length === 1) clock.set('2026-11-29T11:20:00Z');
        else controller.abort();
        return Promise.resolve(0);
      },
    });
    assert.equal(status, 0);
    // Not 11:30 and 12:00 again: the next tick after 12:00.
    assert.deepEqual(passesAt, ['2026-11-29T12:00:00.000Z', '2026-11-29T12:30:00.000Z']);
    const warning = lines.find((line) => line.level === 'warn');
    assert.equal(
      warning?.message,
      "the clock reads 2026-11-29T11:20:00+00:00, before the last pass's tick at 2026-11-29T12:00:00+00:00 (Etc/UTC): it was stepped back; the next pass is at the first tick after that one",
    );
    assert.ok(!lines.some((line) => line.message.startsWith('skipped')), 'nothing skipped');
  });

  it('the repeated autumn hour in Europe/Berlin: two passes, as two Jobs in Kubernetes', async () => {
    const clock = fakeClock('2026-10-24T22:00:00Z');
    const controller = new AbortController();
    const passesAt: string[] = [];
    await runOnSchedule(schedule('30 2 * * *', 'Europe/Berlin'), {
      now: clock.now,
      sleep: clock.sleep,
      signal: controller.signal,
      log: capturingLog().log,
      pass: () => {
        passesAt.push(clock.now().toISOString());
        if (passesAt.length === 3) controller.abort();
        return Promise.resolve(0);
      },
    });
    assert.deepEqual(passesAt, ['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('SIGTERM while waiting: no pass, 0, and it says it stopped', async () => {
    const controller = new AbortController();
    const { log, lines } = capturingLog();
    let passes = 0;
    const waits: number[] = [];
    const running = runOnSchedule(schedule('0 3 * * *', 'Asia/Tokyo'), {
      now: () => new Date('2026-11-29T12:00:00Z'),
      // A sleep that ends only when the signal aborts, as abortableSleep does on SIGTERM.
      sleep: (waitMs, signal) => {
        waits.push(waitMs);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
      signal: controller.signal,
      log,
      pass: () => {
        passes++;
        return Promise.resolve(1);
      },
    });
    // SIGTERM, once the loop is waiting.
    setImmediate(() => controller.abort());
    assert.equal(await running, 0);
    assert.equal(passes, 0);
    assert.deepEqual(waits, [60_000]);
    assert.deepEqual(
      lines.map((line) => line.message),
      ['next pass at 2026-11-30T03:00:00+09:00 (Asia/Tokyo)', 'stopped between passes'],
    );
  });

  it('waits in steps of at most a minute, so a clock that jumps is noticed', async () => {
    const clock = fakeClock('2026-11-29T12:00:00Z');
    const controller = new AbortController();
    let passes = 0;
    const status = await runOnSchedule(schedule('@hourly'), {
      now: clock.now,
      sleep: async (waitMs) => {
        await clock.sleep(waitMs);
        if (clock.sleeps.length === 70) controller.abort();
      },
      signal: controller.signal,
      log: capturingLog().log,
      pass: () => {
        passes++;
        return Promise.resolve(0);
      },
    });
    assert.equal(status, 0, 'stopped while waiting');
    assert.equal(passes, 1);
    assert.ok(clock.sleeps.every((waitMs) => waitMs <= 60_000));
  });
});

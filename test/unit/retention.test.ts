import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  formatDuration,
  formatInstant,
  parseDurationMs,
  parseRetentionDuration,
  parseRetentionInstant,
  readNamespaceRetain,
  readTargetRetention,
} from '../../src/core/retention.js';
import type { RetentionDuration } from '../../src/core/types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DURATION_ERROR = 'expected a duration such as 12h, 7d, P7D or forever';
const INSTANT_EXAMPLES = 'a date such as 2026-12-31 or a timestamp such as 2026-12-31T18:00:00Z';

describe('parseRetentionDuration', () => {
  // Each row: text -> the duration it means.
  const valid: readonly [string, RetentionDuration][] = [
    ['30s', { kind: 'duration', ms: 30_000, text: '30s' }],
    ['90m', { kind: 'duration', ms: 90 * MINUTE, text: '90m' }],
    ['12h', { kind: 'duration', ms: 12 * HOUR, text: '12h' }],
    ['7d', { kind: 'duration', ms: 7 * DAY, text: '7d' }],
    ['2w', { kind: 'duration', ms: 14 * DAY, text: '2w' }],
    // zero is allowed: nothing to wait for
    ['0s', { kind: 'duration', ms: 0, text: '0s' }],
    ['P7D', { kind: 'duration', ms: 7 * DAY, text: 'P7D' }],
    ['PT12H', { kind: 'duration', ms: 12 * HOUR, text: 'PT12H' }],
    ['P1DT6H', { kind: 'duration', ms: 30 * HOUR, text: 'P1DT6H' }],
    ['P2W', { kind: 'duration', ms: 14 * DAY, text: 'P2W' }],
    ['PT1.5H', { kind: 'duration', ms: 90 * MINUTE, text: 'PT1.5H' }],
    // luxon counts a month as 30 days
    ['P1M', { kind: 'duration', ms: 30 * DAY, text: 'P1M' }],
    // an annotation written with `|` in YAML ends in a newline
    ['7d\n', { kind: 'duration', ms: 7 * DAY, text: '7d' }],
    ['forever', { kind: 'forever' }],
  ];
  for (const [text, expected] of valid) {
    it(`accepts ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseRetentionDuration(text), { ok: true, value: expected });
    });
  }

  // Each row: text that is not a duration.
  const invalid: readonly [string, string][] = [
    ['2x', 'unknown unit'],
    ['7D', 'upper-case short unit'],
    ['1.5h', 'fractional short form'],
    ['-1h', 'negative short form'],
    ['7', 'no unit'],
    ['', 'empty'],
    ['P', 'ISO without any part (luxon alone accepts it)'],
    ['PT', 'ISO time designator without a part (luxon alone accepts it)'],
    ['P1DT', 'trailing time designator (luxon alone accepts it)'],
    ['-P1D', 'negative ISO duration'],
    ['P-1D', 'negative ISO part'],
    ['p7d', 'lower-case ISO'],
    ['Forever', 'forever is lower-case'],
    ['7 days', 'words'],
  ];
  for (const [text, why] of invalid) {
    it(`rejects ${JSON.stringify(text)} (${why}) with examples`, () => {
      assert.deepEqual(parseRetentionDuration(text), { ok: false, error: DURATION_ERROR });
    });
  }

  it('rejects a duration too long to count in milliseconds, suggesting forever', () => {
    assert.deepEqual(parseRetentionDuration('99999999999999w'), { ok: false, error: 'too long; use forever, or a duration such as 12h, 7d, P7D or forever' });
  });
});

describe('parseDurationMs (for --min-age)', () => {
  // Each row: text -> milliseconds.
  const valid: readonly [string, number][] = [
    ['1h', HOUR],
    ['0s', 0],
    ['45m', 45 * MINUTE],
    ['PT1H', HOUR],
    ['P1D', DAY],
  ];
  for (const [text, ms] of valid) {
    it(`accepts ${text}`, () => assert.deepEqual(parseDurationMs(text), { ok: true, value: ms }));
  }

  // Each row: not a --min-age.
  for (const text of ['forever', '1y', 'PT', '']) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseDurationMs(text), { ok: false, error: 'expected a duration such as 30m, 1h, 2d or PT1H' });
    });
  }
});

describe('parseRetentionInstant', () => {
  // Each row: text -> the instant it means.
  const valid: readonly [string, string, string][] = [
    ['2026-12-31', '2026-12-31T00:00:00.000Z', 'a date is midnight UTC'],
    ['2026-12-31T18:00:00Z', '2026-12-31T18:00:00.000Z', 'UTC timestamp'],
    ['2026-12-31T18:00:00+02:00', '2026-12-31T16:00:00.000Z', 'offset honoured'],
    ['2026-12-31T18:00', '2026-12-31T18:00:00.000Z', 'no offset given: UTC'],
    ['2026-12-31T18:00:00.250Z', '2026-12-31T18:00:00.250Z', 'fractional seconds'],
  ];
  for (const [text, iso, why] of valid) {
    it(`accepts ${text} (${why})`, () => {
      assert.deepEqual(parseRetentionInstant(text), { ok: true, value: Date.parse(iso) });
    });
  }

  // Each row: text that is not an instant, and the error.
  const invalid: readonly [string, string][] = [
    ['tomorrow', `expected ${INSTANT_EXAMPLES}`],
    ['2026-12', `expected ${INSTANT_EXAMPLES}`],
    ['31.12.2026', `expected ${INSTANT_EXAMPLES}`],
    ['2026-W53', `expected ${INSTANT_EXAMPLES}`],
    ['1798675200', `expected ${INSTANT_EXAMPLES}`],
    ['2026-02-30', `not a real date or time; expected ${INSTANT_EXAMPLES}`],
    ['2026-12-31T25:00:00Z', `not a real date or time; expected ${INSTANT_EXAMPLES}`],
  ];
  for (const [text, error] of invalid) {
    it(`rejects ${JSON.stringify(text)}`, () => assert.deepEqual(parseRetentionInstant(text), { ok: false, error }));
  }
});

describe('readTargetRetention', () => {
  const prefix = 'tekton-resource-gc.io';
  const key = (name: string): string => `${prefix}/${name}`;

  it('reads the label before the annotation of the same key, and warns when they differ', () => {
    const read = readTargetRetention({ labels: { [key('retain-for')]: '7d' }, annotations: { [key('retain-for')]: '30d' } }, prefix);
    assert.deepEqual(read.retainFor, { key: key('retain-for'), source: 'label', text: '7d', value: { kind: 'duration', ms: 7 * DAY, text: '7d' } });
    assert.deepEqual(read.warnings, [`label ${key('retain-for')} "7d" is used; the annotation of the same key, "30d", is ignored`]);
  });

  it('falls back to the annotation (where a timestamp with ":" can be written)', () => {
    const read = readTargetRetention({ labels: {}, annotations: { [key('retain-until')]: '2026-12-01T08:30:00Z' } }, prefix);
    assert.deepEqual(read.retainUntil, { key: key('retain-until'), source: 'annotation', text: '2026-12-01T08:30:00Z', value: Date.parse('2026-12-01T08:30:00Z') });
    assert.deepEqual(read.warnings, []);
  });

  it('an invalid label is not rescued by a valid annotation', () => {
    const read = readTargetRetention({ labels: { [key('retain-for')]: '2x' }, annotations: { [key('retain-for')]: '2d' } }, prefix);
    assert.equal(read.retainFor, undefined);
    assert.deepEqual(read.invalid, [`label ${key('retain-for')} "2x": ${DURATION_ERROR}`]);
  });

  // Each row: retain text -> whether it retains, and whether it warns.
  const retainRows: readonly [string, boolean, boolean][] = [
    ['true', true, false],
    ['false', false, false],
    ['yes', true, true],
    ['False', true, true],
    ['', true, true],
  ];
  for (const [text, retains, warns] of retainRows) {
    it(`retain "${text}" ${retains ? 'retains' : 'does not retain'}${warns ? ', with a warning' : ''}`, () => {
      const read = readTargetRetention({ labels: { [key('retain')]: text } }, prefix);
      assert.equal(read.retain?.value, retains);
      const expected = warns ? [`label ${key('retain')} "${text}" is neither "true" nor "false"; any value but "false" retains`] : [];
      assert.deepEqual(read.warnings, expected);
    });
  }

  // Each row: label text, annotation text -> the source named (undefined: nothing set), whether it retains.
  const eitherRows: readonly [string | undefined, string | undefined, 'label' | 'annotation' | undefined, boolean][] = [
    ['false', 'true', 'annotation', true],
    ['true', 'false', 'label', true],
    ['true', 'true', 'label', true],
    ['false', 'false', 'label', false],
    [undefined, 'false', 'annotation', false],
    ['false', undefined, 'label', false],
    [undefined, undefined, undefined, false],
  ];
  for (const [label, annotation, source, retains] of eitherRows) {
    it(`retain: label ${JSON.stringify(label)}, annotation ${JSON.stringify(annotation)} -> ${source ?? 'nothing'}${retains ? ' retains' : ''} (SPEC rule 1: label or annotation)`, () => {
      const read = readTargetRetention(
        { labels: label === undefined ? {} : { [key('retain')]: label }, annotations: annotation === undefined ? {} : { [key('retain')]: annotation } },
        prefix,
      );
      assert.equal(read.retain?.source, source);
      assert.equal(read.retain?.value ?? false, retains);
    });
  }

  it('a namespace retains by its label only', () => {
    const annotated = Object.assign({ labels: {} }, { annotations: { [key('retain')]: 'true' } });
    assert.equal(readNamespaceRetain(annotated, key('retain'), []), undefined);
    assert.equal(readNamespaceRetain({ labels: { [key('retain')]: 'true' } }, key('retain'), [])?.value, true);
  });

  it('another prefix reads other keys only', () => {
    const read = readTargetRetention({ labels: { [key('retain')]: 'true', 'example.com/retain': 'true' } }, 'example.com');
    assert.equal(read.retain?.key, 'example.com/retain');
  });
});

describe('formatting for messages', () => {
  // Each row: milliseconds -> the text a person reads.
  const durations: readonly [number, string][] = [
    [0, '0s'],
    [999, '0s'],
    [45_000, '45s'],
    [20 * MINUTE, '20m'],
    [HOUR, '1h'],
    [90 * MINUTE, '1h30m'],
    [DAY + 3 * HOUR + 5 * MINUTE, '1d3h'],
    [-5 * MINUTE, '5m'],
  ];
  for (const [ms, text] of durations) {
    it(`${ms} ms is ${text}`, () => assert.equal(formatDuration(ms), text));
  }

  it('instants are UTC with whole seconds', () => {
    assert.equal(formatInstant(Date.parse('2026-11-29T10:00:00Z')), '2026-11-29T10:00:00Z');
    assert.equal(formatInstant(Date.parse('2026-11-29T10:00:00.5Z')), '2026-11-29T10:00:00.500Z');
  });

  it('property: an instant is written as luxon writes it, at any millisecond, in any year', () => {
    const luxon = (ms: number): string => DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? String(ms);
    const edges = [-62_167_219_200_001, -62_167_219_200_000, 0, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 0.5, Number.NaN];
    for (const ms of edges) assert.equal(formatInstant(ms), luxon(ms), String(ms));
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -62_167_219_200_000 * 2, max: 253_402_300_799_999 * 2 }), fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 })), (ms) => {
        assert.equal(formatInstant(ms), luxon(ms));
      }),
      { numRuns: 2000 },
    );
  });
});

/**
 * Kubernetes quantities as whole bytes, rounded up (a claim's size in the report): the
 * grammar of apimachinery's resource.Quantity, and no size for anything else.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseQuantityBytes } from '../../src/core/quantity.js';

const KI = 1024;
const MI = KI * KI;
const GI = MI * KI;

describe('parseQuantityBytes', () => {
  const rows: [string, number | undefined, string][] = [
    ['1500Mi', 1500 * MI, 'binary suffix (the acceptance request)'],
    ['50Gi', 50 * GI, 'binary suffix (the acceptance capacity)'],
    ['1Ki', KI, 'Ki'],
    ['1Ti', 1024 * GI, 'Ti'],
    ['2Pi', 2 * 1024 * 1024 * GI, 'Pi'],
    ['1Ei', undefined, 'an exbibyte is past MAX_SAFE_INTEGER: no size rather than a wrong one'],
    ['1k', 1_000, 'decimal k'],
    ['1M', 1_000_000, 'decimal M'],
    ['1G', 1_000_000_000, 'decimal G'],
    ['1T', 1e12, 'decimal T'],
    ['1P', 1e15, 'decimal P'],
    ['9E', undefined, 'decimal E, past MAX_SAFE_INTEGER'],
    ['0E', 0, 'zero of any size is zero'],
    ['1e3', 1_000, 'decimal exponent'],
    ['1E3', 1_000, 'decimal exponent, capital E followed by digits (not exa)'],
    ['1e+3', 1_000, 'signed exponent'],
    ['15e-1', 2, 'negative exponent, rounded up'],
    ['1500m', 2, 'milli, rounded up to a whole byte'],
    ['1000m', 1, 'milli, exact'],
    ['1n', 1, 'nano: any positive size is at least one byte'],
    ['1u', 1, 'micro'],
    ['1e-99', 1, 'a tiny positive size is one byte, without building 10^99'],
    ['1e99', undefined, 'a huge size has no byte count, without building 10^99'],
    ['0.1Gi', 107_374_183, 'a fraction of a binary unit: exact, then rounded up'],
    ['1.5Gi', 1.5 * GI, 'a fraction that is exact'],
    ['.5Ki', 512, 'no whole part'],
    ['5.', 5, 'no fraction digits'],
    ['+1Ki', KI, 'explicit plus'],
    ['0', 0, 'zero'],
    ['-0', 0, 'minus zero is zero'],
    ['-1Gi', undefined, 'a negative size'],
    ['123', 123, 'plain bytes'],
    ['', undefined, 'empty'],
    ['1 Gi', undefined, 'a space'],
    [' 1Gi', undefined, 'leading space'],
    ['1GB', undefined, 'not a Kubernetes suffix'],
    ['1gi', undefined, 'suffixes are case-sensitive'],
    ['1K', undefined, 'K is not a suffix (k is)'],
    ['Gi', undefined, 'no number'],
    ['1e', undefined, 'an exponent without digits'],
    ['1.2.3', undefined, 'two points'],
    ['1Mi1', undefined, 'trailing digits'],
    ['9007199254740991', Number.MAX_SAFE_INTEGER, 'the largest count kept'],
    ['9007199254740992', undefined, 'one more has no size'],
  ];
  for (const [text, bytes, why] of rows) {
    it(`${JSON.stringify(text)} -> ${bytes ?? 'no size'} (${why})`, () => assert.equal(parseQuantityBytes(text), bytes));
  }

  it('agrees with the arithmetic for whole numbers of every unit', () => {
    const units: [string, number][] = [['', 1], ['k', 1e3], ['M', 1e6], ['G', 1e9], ['Ki', KI], ['Mi', MI], ['Gi', GI]];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(...units), (count, [suffix, size]) => {
        assert.equal(parseQuantityBytes(`${count}${suffix}`), count * size);
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });

  it('rounds up: a decimal fraction of bytes gives the next whole byte', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 999 }), (whole, thousandths) => {
        const text = `${whole}.${String(thousandths).padStart(3, '0')}`;
        assert.equal(parseQuantityBytes(text), whole + 1);
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });
});

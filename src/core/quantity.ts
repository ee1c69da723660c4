/**
 * Kubernetes resource quantities (`1500Mi`, `50Gi`, `1e3`, `500m`) as a whole number of bytes,
 * rounded up: a claim's size in the report. The grammar is apimachinery's
 * (k8s.io/apimachinery/pkg/api/resource/quantity.go):
 *
 *   <quantity> ::= <signedNumber><suffix>
 *   <number>   ::= <digits> | <digits>. | <digits>.<digits> | .<digits>
 *   <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei            (powers of 1024)
 *                | n | u | m | "" | k | M | G | T | P | E  (powers of 1000)
 *                | e<signedNumber> | E<signedNumber>     (powers of 10)
 *
 * Computed exactly with integers, so `0.1Gi` is 107374183 bytes and not a float's guess.
 * Anything else, a negative size, or a size beyond Number.MAX_SAFE_INTEGER bytes (8 PiB) has
 * no byte count: the report shows no size rather than a wrong one.
 */

const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const BINARY_EXPONENT: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Beyond this many powers of ten a non-zero quantity is far past MAX_SAFE_INTEGER (or below one byte): no need to build the power. */
const EXPONENT_LIMIT = 40;

/** The quantity in bytes, rounded up; undefined when it is not a quantity or not a size this can count. */
export function parseQuantityBytes(text: string): number | undefined {
  const match = QUANTITY.exec(text);
  if (match === null) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  const digits = BigInt(`${whole}${fraction}` || '0');
  if (digits === 0n) return 0;
  if (sign === '-') return undefined;
  // value = digits * 10^(exponent10 - fraction.length) * 2^exponent2
  let exponent10 = -fraction.length;
  let exponent2 = 0;
  const binary = BINARY_EXPONENT[suffix];
  const decimal = DECIMAL_EXPONENT[suffix];
  if (binary !== undefined) exponent2 = binary;
  else if (decimal !== undefined) exponent10 += decimal;
  else exponent10 += Number(suffix.slice(1));
  if (exponent10 > EXPONENT_LIMIT) return undefined;
  // A positive quantity smaller than a byte is one byte, rounded up.
  if (exponent10 < -EXPONENT_LIMIT - number.length) return 1;
  let numerator = digits * 2n ** BigInt(exponent2);
  let denominator = 1n;
  if (exponent10 >= 0) numerator *= 10n ** BigInt(exponent10);
  else denominator = 10n ** BigInt(-exponent10);
  const bytes = (numerator + denominator - 1n) / denominator;
  return bytes <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(bytes) : undefined;
}

/**
 * Strings a pass holds to its end, built flat.
 *
 * V8 builds a template literal piece by piece, and a piece added to a string of 13 or more
 * characters makes a ConsString: a 32-byte node pointing at the two halves. A decision's
 * message is such a tree of five to eight nodes and their pieces, about 320 bytes for a
 * 90-character message where one flat string takes about 120; at the benchmark's 4x a dry run
 * holds 121,600 run decisions to the end of the pass (bench/RESULTS.md, "Issue 30").
 * Array.prototype.join writes its result into one flat string.
 */

/** A template literal's text as one flat string: write `flat\`...\`` where `\`...\`` would be held by every decision. */
export function flat(parts: TemplateStringsArray, ...values: readonly unknown[]): string {
  const pieces: string[] = [parts[0] ?? ''];
  // String(value), as the literal would: join alone writes undefined and null as ''.
  for (let i = 0; i < values.length; i += 1) pieces.push(String(values[i]), parts[i + 1] ?? '');
  return pieces.join('');
}

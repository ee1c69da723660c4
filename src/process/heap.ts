/**
 * The young generation kept small, for plain `node` as the image's flags keep it.
 *
 * A pass keeps a record of every target and run it lists, so much of what V8's scavenges see
 * survives them, and V8 doubles each semi-space each time the bytes that survived since its
 * last growth pass its size: without flags it goes from 1 to 16 MiB, and both halves stay
 * committed, 32 MiB of the peak RSS (bench/RESULTS.md, "Issue 24" and "Issue 31"). Only V8's
 * flags change that; the image's ENTRYPOINT gives `--max-semi-space-size=4`, but `node
 * dist/main.js` and `npx` run without it.
 *
 * V8 reads `--semi-space-growth-factor` each time it grows the young generation (new-spaces.cc,
 * `SemiSpaceNewSpace::Grow`: the new size is the factor times the current one, capped), not
 * once at start as it reads the semi-space sizes, so setting it to 1 before the first pass
 * leaves the young generation at the size it has then (2 MiB a semi-space: it grows once while
 * the modules load): more scavenges, each of 2 MiB, and none of the 28 MiB more. An operator's own young-generation flag, on the command line or in NODE_OPTIONS, wins:
 * then nothing is set.
 */
import { setFlagsFromString } from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

/** The flag to set, or undefined when the process was started with a young-generation flag of its own. */
export function youngGenerationFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return given.some((arg) => arg.startsWith('--') && /semi[-_]space|young[-_]generation/.test(arg)) ? undefined : YOUNG_GENERATION_FLAG;
}

/** Sets the flag unless the process has one of its own; main.ts calls it before a pass allocates anything. */
export function keepYoungGenerationSmall(): void {
  const flag = youngGenerationFlag(process.execArgv, process.env['NODE_OPTIONS']);
  if (flag !== undefined) setFlagsFromString(flag);
}

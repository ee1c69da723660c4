/**
 * The heap kept small, for plain `node` as the image's flags keep it: the young generation,
 * and how far the old one may grow past what is live.
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
 * the modules load): more scavenges, each of 2 MiB, and none of the 28 MiB more. An operator's own flag for either generation, on the command line or in NODE_OPTIONS, wins:
 * then that one is not set.
 */
import { setFlagsFromString } from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

/**
 * The old generation: after each mark-compact V8 lets the heap grow to a limit some factor
 * above what survived, up to 4 times by default; with `--optimize-for-size` it grows
 * conservatively. V8 reads that flag each time it sets the limit (heap.cc,
 * `Heap::ShouldOptimizeForMemoryUsage`), so setting it at start works as the image's flag
 * does. A dry run at the benchmark's 4x peaked at 238 MiB with plain `node` and 173 MiB with
 * this set (bench/RESULTS.md, "Issue 30"); it costs CPU: 27.0 s of user CPU against 18.1 s in
 * one dry run each of that pass.
 */
export const OLD_GENERATION_FLAG = '--optimize-for-size';

/** The flag to set, or undefined when the process was started with a young-generation flag of its own. */
export function youngGenerationFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  return givenFlags(execArgv, nodeOptions).some((arg) => /semi[-_]space|young[-_]generation/.test(arg)) ? undefined : YOUNG_GENERATION_FLAG;
}

/** The flag to set, or undefined when the process was started with `--optimize-for-size` or `--no-optimize-for-size`. */
export function oldGenerationFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  return givenFlags(execArgv, nodeOptions).some((arg) => /optimize[-_]for[-_]size/.test(arg)) ? undefined : OLD_GENERATION_FLAG;
}

function givenFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].filter((arg) => arg.startsWith('--'));
}

/** Sets each flag the process has none of its own for; main.ts calls it before a pass allocates anything. */
export function keepHeapSmall(): void {
  for (const flag of [youngGenerationFlag(process.execArgv, process.env['NODE_OPTIONS']), oldGenerationFlag(process.execArgv, process.env['NODE_OPTIONS'])]) {
    if (flag !== undefined) setFlagsFromString(flag);
  }
}

/**
 * process/heap.ts: which processes get each flag, and that setting them when the process has
 * started does keep V8's heap small on the Node.js running the tests: a child process that
 * keeps 40 MiB of small objects alive (the young generation), and one that keeps more while
 * pages of garbage come and go (the old generation), with and without them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { OLD_GENERATION_FLAG, oldGenerationFlag, YOUNG_GENERATION_FLAG, youngGenerationFlag } from '../../src/process/heap.js';

const MIB = 1024 * 1024;

/** New space committed (both semi-spaces, MiB) in a child that keeps 40 MiB of records alive, built as a pass builds them. */
function newSpaceAfterSurvivors(callIt: boolean, execArgv: readonly string[] = []): number {
  const heapModule = new URL('../../src/process/heap.ts', import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { keepHeapSmall } = await import(${JSON.stringify(heapModule)});
    if (${String(callIt)}) keepHeapSmall();
    const kept = [];
    for (let i = 0; i < 400000; i++) kept.push({ name: 'run-' + i, namespace: 'ns-' + (i % 50), uid: String(i).padStart(36, '0'), links: [i, i + 1] });
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / ${MIB}) + ' ' + kept.length);
  `;
  const out = execFileSync(process.execPath, [...execArgv, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return Number(out.split(' ')[0]);
}

describe('youngGenerationFlag', () => {
  it('sets the growth factor for plain node', () => {
    assert.equal(youngGenerationFlag([], undefined), YOUNG_GENERATION_FLAG);
    assert.equal(youngGenerationFlag(['--enable-source-maps'], '--max-old-space-size=512'), YOUNG_GENERATION_FLAG);
  });
  it("leaves an operator's own young-generation flag alone, on the command line or in NODE_OPTIONS", () => {
    for (const flag of ['--max-semi-space-size=4', '--min-semi-space-size=2', '--semi-space-growth-factor=4', '--max_semi_space_size=8', '--max-young-generation-size=16']) {
      assert.equal(youngGenerationFlag([flag], undefined), undefined, flag);
      assert.equal(youngGenerationFlag([], `--enable-source-maps ${flag}`), undefined, flag);
    }
  });
});

/**
 * The largest heap V8 committed (MiB) in a child that keeps 300,000 records alive while a page
 * of 5,000 garbage objects is made for every 5,000 of them, as a listing does; with the young
 * generation's flag alone, as before the old generation's was set, or with both.
 */
function heapPeakWithGarbage(flags: 'young' | 'both'): number {
  const heapModule = new URL('../../src/process/heap.ts', import.meta.url).href;
  const script = `
    import { getHeapStatistics } from 'node:v8';
    import { setFlagsFromString } from 'node:v8';
    const { keepHeapSmall, YOUNG_GENERATION_FLAG } = await import(${JSON.stringify(heapModule)});
    if (${JSON.stringify(flags)} === 'both') keepHeapSmall();
    else setFlagsFromString(YOUNG_GENERATION_FLAG);
    const kept = [];
    let page = [];
    let peak = 0;
    for (let i = 0; i < 300000; i++) {
      kept.push({ name: 'run-' + i, namespace: 'ns-' + (i % 50), uid: String(i).padStart(36, '0'), links: [i, i + 1] });
      if (i % 5000 === 0) page = Array.from({ length: 5000 }, (_, j) => ({ text: 'x'.repeat(100) + j, n: [j] }));
      if (i % 1000 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size);
    }
    process.stdout.write(String(peak / ${MIB}) + ' ' + kept.length + ' ' + page.length);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return Number(out.split(' ')[0]);
}

describe('oldGenerationFlag', () => {
  it('sets --optimize-for-size for plain node', () => {
    assert.equal(oldGenerationFlag([], undefined), OLD_GENERATION_FLAG);
    assert.equal(oldGenerationFlag(['--max-semi-space-size=4'], '--max-old-space-size=512'), OLD_GENERATION_FLAG);
  });
  it("leaves an operator's own choice alone, on the command line or in NODE_OPTIONS", () => {
    for (const flag of ['--optimize-for-size', '--no-optimize-for-size', '--optimize_for_size']) {
      assert.equal(oldGenerationFlag([flag], undefined), undefined, flag);
      assert.equal(oldGenerationFlag([], `--enable-source-maps ${flag}`), undefined, flag);
    }
  });
});

describe('keepHeapSmall', () => {
  it('keeps the young generation at most 4 MiB where V8 would grow it to 16 MiB or more', () => {
    const without = newSpaceAfterSurvivors(false);
    const withIt = newSpaceAfterSurvivors(true);
    assert.ok(without >= 16, `without the flag V8 grows new space (${without} MiB): else this test shows nothing`);
    assert.ok(withIt <= 4, `with the flag new space stays at most 4 MiB, got ${withIt} MiB`);
  });
  it('an explicit --max-semi-space-size is kept as given', () => {
    // --no-optimize-for-size: the old generation's flag is left out, which with V8 may grow new space less.
    assert.ok(newSpaceAfterSurvivors(true, ['--max-semi-space-size=16', '--no-optimize-for-size']) >= 16);
  });
  it('keeps the old generation nearer what is live than V8 lets it grow by default', () => {
    const without = heapPeakWithGarbage('young');
    const withIt = heapPeakWithGarbage('both');
    assert.ok(withIt < 0.9 * without, `with the flag the heap peaks at ${withIt.toFixed(1)} MiB, without it at ${without.toFixed(1)} MiB: expected at least a tenth less`);
  });
});

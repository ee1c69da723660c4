/**
 * process/heap.ts: which processes get the young-generation flag, and that setting it when
 * the process has started does keep V8's young generation small on the Node.js running the
 * tests (a child process that keeps 40 MiB of small objects alive, with and without it).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { YOUNG_GENERATION_FLAG, youngGenerationFlag } from '../../src/process/heap.js';

const MIB = 1024 * 1024;

/** New space committed (both semi-spaces, MiB) in a child that keeps 40 MiB of records alive, built as a pass builds them. */
function newSpaceAfterSurvivors(callIt: boolean, execArgv: readonly string[] = []): number {
  const heapModule = new URL('../../src/process/heap.ts', import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(heapModule)});
    if (${String(callIt)}) keepYoungGenerationSmall();
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

describe('keepYoungGenerationSmall', () => {
  it('keeps the young generation at most 4 MiB where V8 would grow it to 16 MiB or more', () => {
    const without = newSpaceAfterSurvivors(false);
    const withIt = newSpaceAfterSurvivors(true);
    assert.ok(without >= 16, `without the flag V8 grows new space (${without} MiB): else this test shows nothing`);
    assert.ok(withIt <= 4, `with the flag new space stays at most 4 MiB, got ${withIt} MiB`);
  });
  it('an explicit --max-semi-space-size is kept as given', () => {
    assert.ok(newSpaceAfterSurvivors(true, ['--max-semi-space-size=16']) >= 16);
  });
});

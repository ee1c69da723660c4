/**
 * core/flat.ts: `flat` gives the text the template literal would, whatever its values; and a
 * child process with natives syntax shows V8 holds it as one flat string where the literal's
 * is a tree of ConsStrings (what the helper is for).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { flat } from '../../src/core/flat.js';

describe('flat', () => {
  it('is the template literal’s text', () => {
    const place = 12;
    const values: unknown[] = ['', 0, -1.5, undefined, null, true, ['a', 'b'], { toString: () => 'x' }];
    assert.equal(flat``, ``);
    assert.equal(flat`plain`, `plain`);
    const [of, group, limit] = [40, 'tekton.dev/pipeline=build', 10];
    assert.equal(flat`${place}th newest of ${of} runs in group ${group}; --keep keeps ${limit}`, `${place}th newest of ${of} runs in group ${group}; --keep keeps ${limit}`);
    for (const value of values) assert.equal(flat`<${value}>${value}`, `<${String(value)}>${String(value)}`);
  });

  it('makes one flat string where the literal makes a ConsString', () => {
    const module = new URL('../../src/core/flat.ts', import.meta.url).href;
    const script = `
      const { flat } = await import(${JSON.stringify(module)});
      const group = 'tekton.dev/pipeline=' + String(Math.random()).slice(2, 8);
      const literal = \`12th newest of 40 succeeded runs in group \${group}; --keep-successful keeps 10\`;
      const made = flat\`12th newest of 40 succeeded runs in group \${group}; --keep-successful keeps 10\`;
      eval('%DebugPrint(literal)');
      eval('%DebugPrint(made)');
      process.stdout.write('equal: ' + String(literal === made));
    `;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    // %DebugPrint names each string's map: ' - type: CONS_ONE_BYTE_STRING_TYPE' and the like.
    const types = [...out.matchAll(/^ - type: (\w+)$/gm)].map((match) => match[1]);
    assert.equal(types.length, 2, out);
    assert.match(types[0] ?? '', /^CONS_/, 'the literal: a tree of ConsStrings, else this test shows nothing');
    // Flat: a sequential string (ONE_BYTE_STRING_TYPE in Node 20's V8, SEQ_ONE_BYTE_STRING_TYPE in others), no cons, slice or thin string pointing elsewhere.
    assert.doesNotMatch(types[1] ?? '', /CONS|SLICED|THIN|EXTERNAL/);
    assert.match(out, /equal: true$/);
  });
});

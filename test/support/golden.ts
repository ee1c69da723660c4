/**
 * Compares output with test/golden/<name>. `UPDATE_GOLDEN=1` rewrites the file instead;
 * review the diff before committing it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'golden');

export function assertGolden(name: string, actual: string): void {
  const path = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `golden file ${path} is missing: run the tests with UPDATE_GOLDEN=1 to create it`);
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from ${path}; if the change is intended, run with UPDATE_GOLDEN=1`);
}

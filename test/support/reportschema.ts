/**
 * The report's JSON Schema (docs/gcreport.schema.json), compiled once: tests validate the
 * reports real passes print against the schema the docs publish.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';

const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/gcreport.schema.json');

const ajv = new Ajv2020.default({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);

/** The schema's complaints about `report`, one line each; empty when it is valid. */
export function reportSchemaErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

export function assertValidReport(report: unknown, what = 'the report'): void {
  const errors = reportSchemaErrors(report);
  assert.deepEqual(errors, [], `${what} does not match docs/gcreport.schema.json`);
}

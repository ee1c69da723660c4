/**
 * What a run references: the names of targets its bindings point at, for every shape in
 * docs/spec.md ("Reference", under "Words"). Pure; never throws.
 *
 * Absent and `null` are the same thing (Go decodes `null` as the zero value, so Tekton
 * does too). Anything else of the wrong shape makes the run's references unknown: the
 * decision then keeps every target in its namespace (`unreadable-run`).
 */
import { BINDING_REFERENCE, RUN_KINDS, type BindingSource, type FieldPath } from './kinds.js';
import type { ReadProblem, RunKindName } from './types.js';

/** The references of one run, or `null` with the problems when what it names is unknown. */
export interface References {
  references: readonly string[] | null;
  problems: readonly ReadProblem[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a string`, `an array`, `null`… for messages such as `expected an array, found a string`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

function childField(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** Names and problems found so far in one run. */
interface Reading {
  names: string[];
  problems: ReadProblem[];
}

/**
 * The names of the targets `run` (a `kind`) references, sorted and deduplicated: the union
 * over every place a run of that kind may name one (RUN_KINDS[kind].bindings), whichever
 * version it was read through. A wrong shape in any of them makes the references unknown.
 */
export function extractReferences(run: unknown, kind: RunKindName): References {
  const reading: Reading = { names: [], problems: [] };
  for (const source of RUN_KINDS[kind].bindings) {
    const root = bindingRoot(run, source, reading);
    if (root === undefined) continue;
    for (const list of source.lists) readBindingList(root, list, reading);
  }
  if (reading.problems.length > 0) return { references: null, problems: uniqueProblems(reading.problems) };
  return { references: [...new Set(reading.names)].sort(), problems: [] };
}

/**
 * Lists that share a parent (`spec.resources.inputs` and `.outputs`), or sources that share
 * the object (a run that is not an object at all), meet the same bad value once each.
 */
function uniqueProblems(problems: readonly ReadProblem[]): ReadProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.field}\n${p.problem}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Where the binding list paths start: the object itself, or the parsed annotation. */
interface Root {
  value: unknown;
  field: string;
}

function bindingRoot(run: unknown, source: BindingSource, reading: Reading): Root | undefined {
  switch (source.from) {
    case 'spec':
      return { value: run, field: '' };
    case 'annotation':
      return annotationRoot(run, source.key, reading);
  }
}

function annotationRoot(run: unknown, key: string, reading: Reading): Root | undefined {
  const annotations = walk({ value: run, field: '' }, ['metadata', 'annotations'], reading);
  if (annotations === undefined) return undefined;
  const field = `metadata.annotations["${key}"]`;
  const text = annotations.value[key];
  if (text === undefined || text === null) return undefined;
  if (typeof text !== 'string') {
    reading.problems.push({ field, problem: `expected a string, found ${describeValue(text)}` });
    return undefined;
  }
  try {
    return { value: JSON.parse(text) as unknown, field };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    reading.problems.push({ field, problem: `not valid JSON: ${reason}` });
    return undefined;
  }
}

/** An object found at a field. */
interface ObjectAt {
  value: Record<string, unknown>;
  field: string;
}

/**
 * Follows `path` through objects from `root`. Undefined when a step is absent or null (no
 * bindings there) or of the wrong shape (then a problem is recorded).
 */
function walk(root: Root, path: FieldPath, reading: Reading): ObjectAt | undefined {
  let current = objectAt(root.value, root.field, reading);
  for (const key of path) {
    if (current === undefined) return undefined;
    current = objectAt(current.value[key], childField(current.field, key), reading);
  }
  return current;
}

function objectAt(value: unknown, field: string, reading: Reading): ObjectAt | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    reading.problems.push({ field: field === '' ? '(object)' : field, problem: `expected an object, found ${describeValue(value)}` });
    return undefined;
  }
  return { value, field };
}

function readBindingList(root: Root, list: FieldPath, reading: Reading): void {
  const bindings = listAt(root, list, reading);
  if (bindings === undefined || bindings.value === undefined || bindings.value === null) return;
  if (!Array.isArray(bindings.value)) {
    reading.problems.push({ field: bindings.field, problem: `expected an array, found ${describeValue(bindings.value)}` });
    return;
  }
  bindings.value.forEach((binding: unknown, index) => readBinding(binding, `${bindings.field}[${index}]`, reading));
}

/** The value at `list`; an empty path is the root itself (the PipelineRun annotation is the list). */
function listAt(root: Root, list: FieldPath, reading: Reading): Root | undefined {
  const key = list.at(-1);
  if (key === undefined) return root;
  const container = walk(root, list.slice(0, -1), reading);
  if (container === undefined) return undefined;
  return { value: container.value[key], field: childField(container.field, key) };
}

/** One `{name, resourceRef, resourceSpec}`: only a non-empty `resourceRef.name` is a reference. */
function readBinding(binding: unknown, field: string, reading: Reading): void {
  const ref = walk({ value: binding, field }, [BINDING_REFERENCE.object], reading);
  if (ref === undefined) return;
  const name = ref.value[BINDING_REFERENCE.name];
  if (name === undefined || name === null || name === '') return;
  if (typeof name !== 'string') {
    reading.problems.push({ field: childField(ref.field, BINDING_REFERENCE.name), problem: `expected a string, found ${describeValue(name)}` });
    return;
  }
  reading.names.push(name);
}

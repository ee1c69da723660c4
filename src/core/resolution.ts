/**
 * Which ResolutionRequest a run no longer reads (docs/spec.md, "ResolutionRequests").
 *
 * Tekton resolves a run's remote `pipelineRef` or `taskRef` (one with a `resolver`) through a
 * ResolutionRequest the run owns, named deterministically: `<resolver>-<hash>`, the hash an
 * FNV-128a of `<namespace>/<run name>` and the request's params (tektoncd/pipeline,
 * pkg/resolution/resource/name.go). Once the run has stored what it resolved in its status
 * (`status.pipelineSpec`, `status.taskSpec`), it reads that request never again
 * (pipelineref.go and taskref.go take the stored spec first). Its other requests (a
 * pipeline's tasks, a Task's StepActions, a child pipeline) are read on every reconcile
 * while the run is active, so only this one request is ever released early.
 *
 * The name is computed only when it can be computed exactly: string params whose
 * `$(params.*)` and `$(context.*)` references can all be replaced from the run itself. A run
 * whose ref cannot be named that way releases nothing before it finishes: a name that is
 * not computed is a request kept, never one deleted.
 */
import { isRecord } from './refs.js';
import type { RunKindName } from './types.js';

/** Each kind's own ref, the status field that stores what it resolved, and the context its params may name. */
const OWN_REF: Readonly<Record<RunKindName, { ref: string; stored: string; context: (run: RunIdentity) => Record<string, string> }>> = {
  PipelineRun: {
    ref: 'pipelineRef',
    stored: 'pipelineSpec',
    // GetContextReplacements("", pipelineRun): the pipeline's name is not known yet.
    context: (run) => ({ 'context.pipelineRun.name': run.name, 'context.pipeline.name': '', 'context.pipelineRun.namespace': run.namespace, 'context.pipelineRun.uid': run.uid }),
  },
  TaskRun: {
    ref: 'taskRef',
    stored: 'taskSpec',
    // getContextReplacements("", taskRun) also has context.task.retry-count, read from a
    // status member the list leaves out: a param naming it is left unreplaced, so no name.
    context: (run) => ({ 'context.taskRun.name': run.name, 'context.task.name': '', 'context.taskRun.namespace': run.namespace, 'context.taskRun.uid': run.uid }),
  },
};

export interface RunIdentity {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * The name of the ResolutionRequest through which `run` resolved its own pipelineRef or
 * taskRef, when the run has stored what it resolved and the name can be computed exactly;
 * otherwise undefined. A stored spec the list left out (replaced by null) counts as stored:
 * the member is there.
 */
export function releasedRequestName(run: unknown, kind: RunKindName, identity: RunIdentity): string | undefined {
  if (!isRecord(run) || identity.name === '' || identity.namespace === '') return undefined;
  const { ref: refKey, stored, context } = OWN_REF[kind];
  const status = run['status'];
  if (!isRecord(status) || !(stored in status) || status[stored] === undefined) return undefined;
  const spec = run['spec'];
  const ref = isRecord(spec) ? spec[refKey] : undefined;
  if (!isRecord(ref)) return undefined;
  const resolver = ref['resolver'];
  // A ref with a name as well is a URL (the concise form): its request carries the URL too.
  if (typeof resolver !== 'string' || resolver === '' || (ref['name'] !== undefined && ref['name'] !== '')) return undefined;
  const replacements = { ...paramReplacements(isRecord(spec) ? spec['params'] : undefined), ...context(identity) };
  const params = stringParams(ref['params'], replacements);
  if (params === undefined) return undefined;
  return deterministicName(resolver, `${identity.namespace}/${identity.name}`, params);
}

/**
 * The run's own string params as `$(...)` keys to their values, in the three spellings Tekton
 * replaces (`params.x`, `params["x"]`, `params['x']`). Array and object params are left out:
 * a ref param that names one stays unreplaced, and the name is not computed.
 */
function paramReplacements(params: unknown): Record<string, string> {
  const replacements: Record<string, string> = {};
  if (!Array.isArray(params)) return replacements;
  for (const param of params) {
    // A value that is itself a reference is replaced or not by the order Go walks a map in: left out.
    if (!isRecord(param) || typeof param['name'] !== 'string' || typeof param['value'] !== 'string' || param['value'].includes('$(')) continue;
    const { name, value } = param as { name: string; value: string };
    replacements[`params.${name}`] = value;
    replacements[`params[${JSON.stringify(name)}]`] = value;
    replacements[`params['${name}']`] = value;
  }
  return replacements;
}

/** A ref's params with every `$(...)` replaced; undefined when one is not a string or a reference is left. */
function stringParams(params: unknown, replacements: Readonly<Record<string, string>>): { name: string; value: string }[] | undefined {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params)) return undefined;
  const result: { name: string; value: string }[] = [];
  for (const param of params) {
    if (!isRecord(param) || typeof param['name'] !== 'string' || typeof param['value'] !== 'string') return undefined;
    let value = param['value'];
    for (const [key, replacement] of Object.entries(replacements)) value = value.split(`$(${key})`).join(replacement);
    if (value.includes('$(')) return undefined;
    result.push({ name: param['name'], value });
  }
  return result;
}

/** The longest name of a ResolutionRequest: a DNS-1123 label. */
const MAX_NAME = 63;

/**
 * Tekton's GenerateDeterministicNameFromSpec for string params and no URL: FNV-128a over the
 * base, then each param's name and value in name order (a stable sort), as `<prefix>-<hex>`,
 * the prefix cut so that the name fits a DNS-1123 label.
 */
export function deterministicName(prefix: string, base: string, params: readonly { name: string; value: string }[]): string {
  const hash = new Fnv128a();
  hash.write(base);
  // Go compares strings byte by byte; Array.prototype.sort is stable, as sort.SliceStable is.
  const sorted = [...params].sort((a, b) => Buffer.compare(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8')));
  for (const param of sorted) {
    hash.write(param.name);
    hash.write(param.value);
  }
  const hex = hash.hex();
  return `${prefix.slice(0, MAX_NAME - hex.length - 1)}-${hex}`;
}

const FNV128_OFFSET = 0x6c62272e07bb014262b821756295c58dn;
const FNV128_PRIME = 0x0000000001000000000000000000013bn;
const MASK128 = (1n << 128n) - 1n;

/** Go's hash/fnv New128a: xor each byte in, then multiply by the prime, modulo 2^128. */
class Fnv128a {
  private state = FNV128_OFFSET;

  write(text: string): void {
    for (const byte of Buffer.from(text, 'utf8')) this.state = ((this.state ^ BigInt(byte)) * FNV128_PRIME) & MASK128;
  }

  hex(): string {
    return this.state.toString(16).padStart(32, '0');
  }
}

/**
 * Kubernetes Events (events.k8s.io/v1) about what a pass did to a PipelineResource, so
 * `kubectl get events` and `kubectl describe` show who deleted what and why. The Event's
 * shape is built by a pure function; KubeEvents only sends it.
 */
import { hostname } from 'node:os';
import { TARGET_KIND } from '../core/kinds.js';
import type { Decision } from '../core/types.js';
import { collectionPath, type ApiResource } from './api.js';
import type { KubeHttp } from './http.js';

/** The controller named in every Event: `kubectl get events --field-selector reportingComponent=…`. */
export const REPORTING_CONTROLLER = 'tekton-resource-gc.io/collector';

/** What happened, as an Event's reason: CamelCase, as Kubernetes' own controllers write them. */
export const EVENT_REASONS = { deleted: 'Deleted', 'would-delete': 'WouldDelete', failed: 'DeleteFailed' } as const;
export type EventfulResult = keyof typeof EVENT_REASONS;

export const EVENTS: ApiResource = { group: 'events.k8s.io', version: 'v1', plural: 'events' };

/** events.k8s.io/v1 refuses a note above 1 kB. */
const MAX_NOTE_BYTES = 1024;

export interface EventContext {
  now: Date;
  /** reportingInstance: which process said it (the pod's name in a cluster). */
  instance: string;
}

/** The Event for one result; pure. */
export function eventFor(decision: Decision, result: EventfulResult, context: EventContext): Record<string, unknown> {
  const { target } = decision;
  const note = result === 'failed' ? decision.message : `${decision.reason}: ${decision.message}`;
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    // Named as Kubernetes' own recorder names Events: `<object>.<nanoseconds in hex>`.
    metadata: { name: eventName(target.name, context.now), namespace: target.namespace },
    // A MicroTime: RFC 3339 with six fractional digits.
    eventTime: context.now.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: context.instance.slice(0, 128),
    action: 'Delete',
    reason: EVENT_REASONS[result],
    type: result === 'failed' ? 'Warning' : 'Normal',
    regarding: {
      apiVersion: `${TARGET_KIND.group}/${TARGET_KIND.version}`,
      kind: TARGET_KIND.kind,
      namespace: target.namespace,
      name: target.name,
      uid: target.uid,
      resourceVersion: target.resourceVersion,
    },
    note: truncateBytes(note, MAX_NOTE_BYTES),
  };
}

/** `src-abc123.18b7a5c3e4f0a000`: unique per target and nanosecond, at most 253 characters. */
export function eventName(targetName: string, now: Date, nanos: number = Math.floor(Math.random() * 1_000_000)): string {
  const stamp = (BigInt(now.getTime()) * 1_000_000n + BigInt(nanos)).toString(16);
  return `${targetName.slice(0, 253 - stamp.length - 1)}.${stamp}`;
}

function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let cut = text.slice(0, max - 3);
  while (Buffer.byteLength(`${cut}…`) > max) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** `<prefix>-<hostname>`: in a pod, the hostname is the pod's name. */
export function defaultInstance(): string {
  return `tekton-resource-gc-${hostname()}`;
}

/** Creates Events through the API server; throws a KubeError when it refuses. */
export class KubeEvents {
  constructor(
    private readonly http: KubeHttp,
    private readonly instance: string = defaultInstance(),
  ) {}

  async record(decision: Decision, result: EventfulResult, now: Date): Promise<void> {
    const { namespace } = decision.target;
    await this.http.json(
      { verb: 'create', resource: 'events.events.k8s.io', namespace },
      { method: 'POST', path: collectionPath(EVENTS, namespace), body: eventFor(decision, result, { now, instance: this.instance }) },
    );
  }
}

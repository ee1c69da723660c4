/**
 * Kubernetes Events (events.k8s.io/v1) about what a pass did, so `kubectl get events` and
 * `kubectl describe` show who deleted what and why: one per PipelineResource deleted or
 * whose delete failed, and for a dry run one per namespace that sums up what it would
 * delete there (a dry run repeats every pass, and one Event per would-be deletion would
 * be tens of thousands an hour on a cluster with that many leftovers). Which Events, and
 * their shape, are pure functions; KubeEvents only sends them.
 */
import { hostname } from 'node:os';
import { collectorOf } from '../core/collectors.js';
import type { Decision, TargetKindName } from '../core/types.js';
import { collectionPath, type ApiResource } from '../kube/api.js';
import type { KubeHttp } from '../kube/http.js';

/** The controller named in every Event: `kubectl get events --field-selector reportingComponent=…`. */
export const REPORTING_CONTROLLER = 'tekton-resource-gc.io/collector';

/** What happened, as an Event's reason: CamelCase, as Kubernetes' own controllers write them. */
export const EVENT_REASONS = { deleted: 'Deleted', 'would-delete': 'WouldDelete', failed: 'DeleteFailed' } as const;
export type EventfulResult = keyof typeof EVENT_REASONS;

export const EVENTS: ApiResource = { group: 'events.k8s.io', version: 'v1', plural: 'events' };

/** events.k8s.io/v1 refuses a note above 1 kB. */
const MAX_NOTE_BYTES = 1024;

/**
 * Events a pass records at most. The default --max-deletions (1000) keeps a live pass
 * under it, so by default every deletion has its Event; past it, the rest are in the
 * report only, and a log line says how many.
 */
export const MAX_EVENTS_PER_PASS = 1000;

/** One Event to record: about one PipelineResource, or summing up a dry run's namespace. */
export type PlannedEvent =
  | { kind: 'target'; decision: Decision; result: 'deleted' | 'failed' }
  | { kind: 'namespace'; namespace: string; result: 'would-delete'; decisions: readonly Decision[] };

export interface EventPlan {
  events: PlannedEvent[];
  /** Results past MAX_EVENTS_PER_PASS that get no Event. */
  omitted: number;
}

/**
 * The Events of a pass's results; pure. Would-be deletions: one Event per namespace, in
 * name order. Deletions and failed deletes: one each, failures first (they want a look),
 * then in the order given. At most `max` in all.
 */
export function planEvents(items: readonly { decision: Decision; result: EventfulResult }[], max: number = MAX_EVENTS_PER_PASS): EventPlan {
  const byNamespace = new Map<string, Decision[]>();
  const failed: PlannedEvent[] = [];
  const deleted: PlannedEvent[] = [];
  for (const { decision, result } of items) {
    if (result === 'would-delete') {
      const namespace = decision.target.namespace;
      const decisions = byNamespace.get(namespace);
      if (decisions === undefined) byNamespace.set(namespace, [decision]);
      else decisions.push(decision);
    } else {
      (result === 'failed' ? failed : deleted).push({ kind: 'target', decision, result });
    }
  }
  const summaries = [...byNamespace.keys()]
    .sort()
    .map((namespace): PlannedEvent => ({ kind: 'namespace', namespace, result: 'would-delete', decisions: byNamespace.get(namespace) ?? [] }));
  const all = [...failed, ...deleted, ...summaries];
  // A namespace's summary left out stands for each of its would-be deletions.
  const omitted = all.slice(max).reduce((sum, event) => sum + (event.kind === 'namespace' ? event.decisions.length : 1), 0);
  return { events: all.slice(0, max), omitted };
}

/** The Event of a planned one; pure. */
export function plannedEventBody(event: PlannedEvent, context: EventContext): Record<string, unknown> {
  return event.kind === 'target' ? eventFor(event.decision, event.result, context) : namespaceEventFor(event.namespace, event.decisions, context);
}

/**
 * A dry run's Event for one namespace, regarding the Namespace: how many it would delete,
 * by reason, and their names as far as the note's kilobyte goes.
 */
export function namespaceEventFor(namespace: string, decisions: readonly Decision[], context: EventContext): Record<string, unknown> {
  const reasons = new Map<string, number>();
  for (const decision of decisions) reasons.set(decision.reason, (reasons.get(decision.reason) ?? 0) + 1);
  const byReason = [...reasons].sort(([a], [b]) => a.localeCompare(b)).map(([reason, count]) => `${reason} ${count}`).join(', ');
  const head = `dry run: would delete ${countedKinds(decisions)} here (${byReason}): `;
  // Each named with its kind: a claim and a Secret may share a name.
  const names = decisions.map(({ target }) => `${target.kind}/${target.name}`).sort();
  return {
    ...eventEnvelope(namespace, namespace, context),
    reason: EVENT_REASONS['would-delete'],
    type: 'Normal',
    // A Namespace is cluster-scoped, but an Event about it lives in it: the API server
    // wants the Event's namespace in `regarding`.
    regarding: { apiVersion: 'v1', kind: 'Namespace', namespace, name: namespace },
    note: listedNote(head, names, '; the report lists each with its reason'),
  };
}

/** Each kind counted, in the order the decisions come (by kind): `4 PersistentVolumeClaims, 2 StatefulSets`. */
function countedKinds(decisions: readonly Decision[]): string {
  const counts = new Map<TargetKindName, number>();
  for (const decision of decisions) counts.set(decision.target.kind, (counts.get(decision.target.kind) ?? 0) + 1);
  if (counts.size === 0) return 'nothing';
  return [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 ? '' : 's'}`).join(', ');
}

/** `head` and as many names as fit in the note, then how many more there are, then `tail`. */
function listedNote(head: string, names: readonly string[], tail: string): string {
  const note = (shown: number): string => `${head}${names.slice(0, shown).join(', ')}${shown < names.length ? `, and ${names.length - shown} more` : ''}${tail}`;
  // A name and its comma take 3 bytes at least: no more than this many can fit.
  let shown = Math.min(names.length, Math.floor(MAX_NOTE_BYTES / 3));
  while (shown > 0 && Buffer.byteLength(note(shown)) > MAX_NOTE_BYTES) shown--;
  return truncateBytes(note(shown), MAX_NOTE_BYTES);
}

/** What every Event of ours has: its name, namespace and time, who reports it, the action. */
function eventEnvelope(namespace: string, about: string, context: EventContext): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    // Named as Kubernetes' own recorder names Events: `<object>.<nanoseconds in hex>`.
    metadata: { name: eventName(about, context.now), namespace },
    // A MicroTime: RFC 3339 with six fractional digits.
    eventTime: context.now.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: context.instance.slice(0, 128),
    action: 'Delete',
  };
}

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
    ...eventEnvelope(target.namespace, target.name, context),
    reason: EVENT_REASONS[result],
    type: result === 'failed' ? 'Warning' : 'Normal',
    regarding: {
      apiVersion: apiVersionOf(decision.target.kind),
      kind: decision.target.kind,
      namespace: target.namespace,
      name: target.name,
      uid: target.uid,
      resourceVersion: target.resourceVersion,
    },
    note: truncateBytes(note, MAX_NOTE_BYTES),
  };
}

/** `tekton.dev/v1alpha1`, `apps/v1`, or `v1` for the core group: what an object reference names. */
function apiVersionOf(kind: TargetKindName): string {
  const { group, version } = collectorOf(kind).api;
  return group === '' ? version : `${group}/${version}`;
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

  async record(event: PlannedEvent, now: Date): Promise<void> {
    const namespace = event.kind === 'target' ? event.decision.target.namespace : event.namespace;
    await this.http.json(
      { verb: 'create', resource: 'events.events.k8s.io', namespace },
      { method: 'POST', path: collectionPath(EVENTS, namespace), body: plannedEventBody(event, { now, instance: this.instance }) },
    );
  }
}

/**
 * Which Events a pass records (planEvents) and a dry run's per-namespace Event, on plain
 * data. (Each PipelineResource's own Event: operator.test.ts; the Events on the real API
 * server: test/integration/operator.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decision, Reason } from '../../src/core/types.js';
import { MAX_EVENTS_PER_PASS, REPORTING_CONTROLLER, namespaceEventFor, planEvents, plannedEventBody, type EventfulResult, type PlannedEvent } from '../../src/ops/events.js';
import { NOW, target } from '../fixtures/unit/records.js';

function decision(namespace: string, name: string, reason: Reason = 'unreferenced'): Decision {
  return { target: target(name, { namespace }), action: 'delete', reason, message: 'no run links it', references: [], warnings: [] };
}

/** `kind namespace/name result` per planned Event, for compact assertions. */
function shown(events: readonly PlannedEvent[]): string[] {
  return events.map((event) =>
    event.kind === 'target' ? `target ${event.decision.target.namespace}/${event.decision.target.name} ${event.result}` : `namespace ${event.namespace} ${event.decisions.length}`,
  );
}

const CONTEXT = { now: NOW, instance: 'tekton-resource-gc-pod-1' };

describe('planEvents', () => {
  it('a dry run: one Event per namespace, in name order, however many it would delete there', () => {
    const items = [
      ...Array.from({ length: 30_000 }, (_, index) => ({ decision: decision('team-b', `src-${index}`), result: 'would-delete' as const })),
      { decision: decision('ci', 'src-a'), result: 'would-delete' as const },
      { decision: decision('ci', 'src-b'), result: 'would-delete' as const },
    ];
    const plan = planEvents(items);
    assert.deepEqual(shown(plan.events), ['namespace ci 2', 'namespace team-b 30000']);
    assert.equal(plan.omitted, 0);
  });

  it('a live pass: one Event per deletion and failed delete, failures first', () => {
    const items: { decision: Decision; result: EventfulResult }[] = [
      { decision: decision('ci', 'src-a'), result: 'deleted' },
      { decision: decision('ci', 'src-b'), result: 'failed' },
      { decision: decision('team-a', 'src-c'), result: 'deleted' },
    ];
    assert.deepEqual(shown(planEvents(items).events), ['target ci/src-b failed', 'target ci/src-a deleted', 'target team-a/src-c deleted']);
  });

  it(`records at most ${MAX_EVENTS_PER_PASS} (or the cap given), failures kept first, and counts the results left without one`, () => {
    const items: { decision: Decision; result: EventfulResult }[] = [
      ...Array.from({ length: MAX_EVENTS_PER_PASS + 4 }, (_, index) => ({ decision: decision('ci', `src-${index}`), result: 'deleted' as const })),
      { decision: decision('ci', 'src-broken'), result: 'failed' },
    ];
    const plan = planEvents(items);
    assert.equal(plan.events.length, MAX_EVENTS_PER_PASS);
    assert.equal(plan.omitted, 5);
    assert.deepEqual(shown(plan.events.slice(0, 2)), ['target ci/src-broken failed', 'target ci/src-0 deleted']);

    // A namespace's summary left out stands for each of its would-be deletions.
    const dry = ['a', 'b', 'c'].flatMap((namespace) => [1, 2].map((index) => ({ decision: decision(namespace, `src-${index}`), result: 'would-delete' as const })));
    const capped = planEvents(dry, 2);
    assert.deepEqual([shown(capped.events), capped.omitted], [['namespace a 2', 'namespace b 2'], 2]);
  });

  it('nothing to record: no Event', () => {
    assert.deepEqual(planEvents([]), { events: [], omitted: 0 });
  });
});

describe("a dry run's Event for a namespace", () => {
  it('regards the Namespace, from the controller, and says how many it would delete, by reason, and which', () => {
    const decisions = [decision('ci', 'src-b', 'runs-finished'), decision('ci', 'src-a'), decision('ci', 'src-c', 'runs-finished')];
    const event = namespaceEventFor('ci', decisions, CONTEXT);
    assert.deepEqual(event, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: (event['metadata'] as { name: string }).name, namespace: 'ci' },
      eventTime: '2026-11-29T12:00:00.000000Z',
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: 'tekton-resource-gc-pod-1',
      action: 'Delete',
      reason: 'WouldDelete',
      type: 'Normal',
      regarding: { apiVersion: 'v1', kind: 'Namespace', namespace: 'ci', name: 'ci' },
      note: 'dry run: would delete 3 PipelineResources here (runs-finished 2, unreferenced 1): PipelineResource/src-a, PipelineResource/src-b, PipelineResource/src-c; the report lists each with its reason',
    });
    assert.match((event['metadata'] as { name: string }).name, /^ci\.[0-9a-f]+$/);
    assert.equal(plannedEventBody({ kind: 'namespace', namespace: 'ci', result: 'would-delete', decisions }, CONTEXT)['note'], event['note']);
  });

  it('names as many as fit in the 1 kB note, and counts the rest', () => {
    const decisions = Array.from({ length: 30_000 }, (_, index) => decision('ci', `src-${String(index).padStart(5, '0')}`));
    const note = namespaceEventFor('ci', decisions, CONTEXT)['note'] as string;
    assert.ok(Buffer.byteLength(note) <= 1024, `${Buffer.byteLength(note)} bytes`);
    assert.match(note, /^dry run: would delete 30000 PipelineResources here \(unreferenced 30000\): PipelineResource\/src-00000, PipelineResource\/src-00001, /);
    const listed = note.split(': ')[2]?.split(', ').filter((name) => name.startsWith('PipelineResource/src-')) ?? [];
    assert.match(note, new RegExp(`, and ${30_000 - listed.length} more; the report lists each with its reason$`));
    // As many as fit: one more name would not.
    assert.ok(Buffer.byteLength(note) + ', PipelineResource/src-00000'.length > 1024 - 2);
  });

  it('one PipelineResource: the singular', () => {
    assert.match(namespaceEventFor('ci', [decision('ci', 'src-a')], CONTEXT)['note'] as string, /^dry run: would delete 1 PipelineResource here \(unreferenced 1\): PipelineResource\/src-a;/);
  });
});

describe('Events of leftovers', () => {
  const leftover = (kind: 'PersistentVolumeClaim' | 'StatefulSet' | 'Secret', name: string): Decision => ({
    ...decision('ci', name, 'owner-gone'),
    target: { ...target(name), kind, leftover: { marker: kind === 'Secret' ? 'pac-secret' : kind === 'StatefulSet' ? 'statefulset' : 'owned' } },
  });

  it('regards each object by its own kind and apiVersion', () => {
    const regarding = (one: Decision): unknown => plannedEventBody({ kind: 'target', decision: one, result: 'deleted' }, CONTEXT)['regarding'];
    assert.deepEqual(regarding(leftover('PersistentVolumeClaim', 'pvc-1')), { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ci', name: 'pvc-1', uid: 'uid-pvc-1', resourceVersion: '1' });
    assert.deepEqual(regarding(leftover('StatefulSet', 'affinity-assistant-1')), { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'ci', name: 'affinity-assistant-1', uid: 'uid-affinity-assistant-1', resourceVersion: '1' });
    assert.deepEqual((regarding(decision('ci', 'src-a')) as { apiVersion: string }).apiVersion, 'tekton.dev/v1alpha1');
  });

  it("a dry run's namespace Event counts each kind and names leftovers with their kind", () => {
    const note = namespaceEventFor('ci', [leftover('PersistentVolumeClaim', 'pvc-1'), leftover('PersistentVolumeClaim', 'pvc-2'), leftover('Secret', 'pac-gitauth-x')], CONTEXT)['note'];
    assert.equal(note, 'dry run: would delete 2 PersistentVolumeClaims, 1 Secret here (owner-gone 3): PersistentVolumeClaim/pvc-1, PersistentVolumeClaim/pvc-2, Secret/pac-gitauth-x; the report lists each with its reason');
  });
});

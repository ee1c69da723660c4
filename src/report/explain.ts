/**
 * `tekton-resource-gc explain`: an Explanation as text for a person or JSON for a script.
 * Pure, like the report renderers.
 */
import type { Collectable } from '../core/collectable.js';
import type { Explanation, RetentionFact } from '../core/explain.js';
import { formatDuration, formatInstant } from '../core/retention.js';
import { escapeControls, escapeControlsInJson } from '../escape.js';

export const EXPLAIN_FORMATS = ['text', 'json'] as const;
export type ExplainFormat = (typeof EXPLAIN_FORMATS)[number];

export const EXPLAIN_RENDERERS: { readonly [F in ExplainFormat]: (explanation: Explanation) => string } = {
  text: renderExplanationText,
  json: renderExplanationJson,
};

const BOUND_PHRASES = { 'min-age': 'it is older than --min-age', 'retain-until': 'its retain-until passes', 'retain-for': 'its retain-for ends' } as const;

/** `2026-12-06T09:00:00Z (in 6d21h)` or `… (3h ago)`. */
function when(ms: number, nowMs: number): string {
  const distance = ms - nowMs;
  if (distance === 0) return `${formatInstant(ms)} (now)`;
  return distance > 0 ? `${formatInstant(ms)} (in ${formatDuration(distance)})` : `${formatInstant(ms)} (${formatDuration(distance)} ago)`;
}

export function describeCollectable(collectable: Collectable, nowMs: number): string {
  switch (collectable.when) {
    case 'now':
      return 'now: a pass would delete it';
    case 'at':
      return `at ${when(collectable.atMs, nowMs)}, when ${BOUND_PHRASES[collectable.bound]}, if nothing else changes`;
    case 'never':
      return `never, until ${collectable.until}`;
  }
}

/** `label …/retain-for "7d"`; a setting of the collector with where it came from: `--min-age 1h (default)`, `--retain-for 7d (TRGC_RETAIN_FOR)`. */
function factHead(fact: RetentionFact): string {
  if (fact.flag === undefined) return `${fact.source} ${JSON.stringify(fact.value)}`;
  return `${fact.flag} ${fact.value} (${fact.source === fact.flag ? 'command line' : fact.source})`;
}

function describeFact(fact: RetentionFact, nowMs: number): string {
  const head = factHead(fact);
  if (fact.expiresMs === undefined) return `${head}: does not keep it`;
  if (fact.expiresMs === 'never') return `${head}: keeps it while set`;
  if (fact.expiresMs === 'unknown') return `${head}: keeps it; when it ends cannot be known while the creation time cannot be read`;
  return `${head}: ${fact.expiresMs > nowMs ? 'keeps it until' : 'ended'} ${when(fact.expiresMs, nowMs)}`;
}

const LABEL_WIDTH = 13;

function field(label: string, lines: readonly string[]): string[] {
  const [first = '-', ...rest] = lines;
  return [`${`${label}:`.padEnd(LABEL_WIDTH)}${first}`, ...rest.map((line) => `${' '.repeat(LABEL_WIDTH)}${line}`)];
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

export function renderExplanationText(explanation: Explanation): string {
  const { target, decision, nowMs } = explanation;
  const created = Number.isNaN(Date.parse(target.createdAt)) ? target.createdAt : when(Date.parse(target.createdAt), nowMs);
  const runs = decision.references.map(
    (ref) => `${ref.kind}/${ref.name} ${ref.state}${ref.finishedAt === undefined ? '' : `, finished ${ref.finishedAt}`}${ref.via === 'ownerReference' ? ' (owns it)' : ''}`,
  );
  const lines = [
    ...field('target', [`${target.namespace}/${target.name}`]),
    ...field('uid', [target.uid]),
    ...field('created', [created]),
    ...field('in scope', [explanation.scope.inScope ? 'yes' : `no: ${explanation.scope.why}; a pass never looks at it`]),
    ...field('decision', [`${decision.action} (rule ${explanation.rule}, ${decision.reason})`]),
    ...field('why', [oneLine(decision.message)]),
    ...field('runs', runs.length === 0 ? ['none reference it'] : runs),
    ...field('retention', explanation.retention.map((fact) => oneLine(describeFact(fact, nowMs)))),
    ...(explanation.invalid.length === 0 ? [] : field('invalid', explanation.invalid.map(oneLine))),
    ...field('collectable', [describeCollectable(explanation.collectable, nowMs)]),
    ...(explanation.plan === undefined ? [] : field('plan', [explanation.plan])),
    ...decision.warnings.map((warning) => `warning: ${oneLine(warning)}`),
  ];
  // Names, annotation values and run fields are the cluster's text: safe to print (see escape.ts).
  return `${lines.map(escapeControls).join('\n')}\n`;
}

function collectableJson(collectable: Collectable): Record<string, string> {
  switch (collectable.when) {
    case 'now':
      return { when: 'now' };
    case 'at':
      return { when: 'at', at: formatInstant(collectable.atMs), bound: collectable.bound };
    case 'never':
      return { when: 'never', until: collectable.until };
  }
}

export function renderExplanationJson(explanation: Explanation): string {
  const { target, decision } = explanation;
  const document = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'Explanation',
    now: new Date(explanation.nowMs).toISOString(),
    target: { namespace: target.namespace, name: target.name, uid: target.uid, createdAt: target.createdAt },
    scope: explanation.scope,
    decision: { action: decision.action, reason: decision.reason, rule: explanation.rule, message: decision.message },
    references: decision.references.map((ref) => ({ kind: ref.kind, name: ref.name, state: ref.state, ...(ref.finishedAt !== undefined && { finishedAt: ref.finishedAt }), via: ref.via })),
    retention: explanation.retention.map((fact) => ({
      setting: fact.setting,
      source: fact.source,
      value: fact.value,
      expiresAt: fact.expiresMs === undefined ? null : typeof fact.expiresMs === 'number' ? formatInstant(fact.expiresMs) : fact.expiresMs,
    })),
    invalid: explanation.invalid,
    collectable: collectableJson(explanation.collectable),
    ...(explanation.plan !== undefined && { plan: explanation.plan }),
    warnings: decision.warnings,
  };
  return `${escapeControlsInJson(JSON.stringify(document, null, 2))}\n`;
}

/**
 * `tekton-resource-gc explain`: an Explanation as text for a person or JSON for a script.
 * Pure, like the report renderers.
 */
import type { Collectable } from '../core/collectable.js';
import { collectorOf } from '../core/collectors.js';
import { whereRanked, type Explanation, type RetentionFact, type RunExplanation, type RunSetting } from '../core/explain.js';
import { ordinal } from '../core/history.js';
import { formatDuration, formatInstant } from '../core/retention.js';
import { unusedFalseDetail } from '../core/rules.js';
import type { LinkVia, ReferenceView, TargetRecord } from '../core/types.js';
import { escapeControls, escapeControlsInJson } from '../text/escape.js';
import { SIZED_KIND, toReportHolder } from './build.js';
import { formatBytes } from './text.js';

export const EXPLAIN_FORMATS = ['text', 'json'] as const;
export type ExplainFormat = (typeof EXPLAIN_FORMATS)[number];

export const EXPLAIN_RENDERERS: { readonly [F in ExplainFormat]: (explanation: Explanation) => string } = {
  text: renderExplanationText,
  json: renderExplanationJson,
};

const BOUND_PHRASES = { 'min-age': 'it is older than --min-age', 'retain-until': 'its retain-until passes', 'retain-for': 'its retain-for ends', 'run-ttl': 'its run TTL ends' } as const;

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
    case 'unknown':
      return collectable.notBefore === undefined
        ? `unknown: ${collectable.why}`
        : `unknown: not before ${when(collectable.notBefore.atMs, nowMs)}, when ${BOUND_PHRASES[collectable.notBefore.bound]}; ${collectable.why}`;
  }
}

/**
 * `label …/retain-for "7d"`; a setting of the collector with where it came from: `--min-age 1h
 * (default)`, `--retain-for 7d (TRGC_RETAIN_FOR)`, `--keep 3 (command line)`.
 */
function factHead(fact: Pick<RetentionFact, 'source' | 'flag' | 'value'>): string {
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

/** How a run links the target, as the runs field says it. */
const VIA_PHRASES: { readonly [V in LinkVia]: string } = {
  spec: ' (names it in its spec)',
  ownerReference: ' (owns it)',
  label: ' (named by its tekton.dev/pipelineRun label)',
  annotation: ' (names it in its pipelinesascode.tekton.dev/git-auth-secret annotation)',
  workspace: ' (binds it as a workspace)',
  ownerName: ' (same name as its owner: Tekton finds the request by that name)',
  ownerChildName: ' (named as a child run of its owner: Tekton finds the request by that name)',
  ownerParentName: " (a PipelineRun whose child run would have its owner's name: that child finds the request by it)",
};

/** e.g. `PipelineRun/build-1 succeeded, finished …`; a gone owner `PipelineRun/build-2 gone (owned it; no listed run is it)`. */
function describeRun(ref: ReferenceView): string {
  const finished = ref.finishedAt === undefined ? '' : `, finished ${ref.finishedAt}`;
  const via = ref.state === 'gone' ? ` (${ref.via === 'label' ? 'named by its label' : 'owned it'}; no run listed is it)` : VIA_PHRASES[ref.via];
  return `${ref.kind}/${ref.name} ${ref.state}${finished}${via}`;
}

/** `50Gi (53687091200 bytes, from status.capacity.storage)`; for a claim stating no size, says so. */
function describeSize(target: TargetRecord): string {
  const bytes = target.leftover?.bytes;
  if (bytes === undefined) return 'unknown: the claim states neither status.capacity.storage nor spec.resources.requests.storage';
  return `${formatBytes(bytes.value)} (${bytes.value} bytes, from ${bytes.from === 'capacity' ? 'status.capacity.storage' : 'spec.resources.requests.storage'})`;
}

/** What the target is: its kind and collector, a claim's size, what holds it. */
function kindFields(explanation: Explanation): string[] {
  const { target, decision } = explanation;
  const holders = (decision.heldBy ?? []).map((holder) => `${holder.kind}/${holder.name}${holder.kind === 'Pod' ? ` (${holder.phase ?? 'no phase yet'})` : ''}`);
  // A claim's Unused=False condition names no Pod, but holds it as one does (rule 7).
  const condition = target.leftover?.inUseCondition;
  if (condition !== undefined) holders.push(`condition Unused=False${unusedFalseDetail(condition)}`);
  return [
    ...field('kind', [`${target.kind} (collector ${collectorOf(target.kind).name})`]),
    ...(target.kind === SIZED_KIND ? field('size', [describeSize(target)]) : []),
    ...(holders.length === 0 ? [] : field('held by', holders)),
  ];
}

/** `the 3rd newest of 12 succeeded runs in tekton.dev/pipeline=build`, or why it holds no place. */
function describeRank(run: RunExplanation): string {
  if (run.rank === undefined) return `none: ${run.noPlace ?? 'it holds no place'}`;
  const of = run.ofOutcome ?? run.rank;
  return `the ${ordinal(run.rank)} newest of ${of} ${run.outcome ?? 'finished'} ${of === 1 ? 'run' : 'runs'} ${whereRanked(run)}`;
}

function describeRunSetting(setting: RunSetting | undefined, none: string): string {
  return setting === undefined ? none : factHead(setting);
}

/** `succeeded, finished 2026-… (3h ago)`; a cancelled run counts as failed. */
function describeState(run: RunExplanation, nowMs: number): string {
  if (run.finishedAt === undefined) return `${run.state}: not finished`;
  const at = Number.isNaN(Date.parse(run.finishedAt)) ? run.finishedAt : when(Date.parse(run.finishedAt), nowMs);
  return `${run.state}, finished ${at}${run.state === 'cancelled' ? ' (counts as failed)' : ''}`;
}

/** A run's history: its state, group, place and the limit and TTL that apply, each with where it was set. */
function runFields(run: RunExplanation, nowMs: number): string[] {
  return [
    ...field('state', [describeState(run, nowMs)]),
    ...field('group', [run.group]),
    ...field('rank', [describeRank(run)]),
    ...field('limit', [describeRunSetting(run.limit, run.outcome === undefined ? 'none read: it has not finished' : `none for ${run.outcome} runs`)]),
    // A limit's N newest stay and every other run of its outcome goes, whatever its age (docs/spec.md, "Runs").
    ...field('run TTL', [`${describeRunSetting(run.ttl, 'none')}${run.ttl !== undefined && run.limit !== undefined ? `: does not decide it, a history limit covers ${run.outcome ?? 'its'} runs` : ''}`]),
  ];
}

export function renderExplanationText(explanation: Explanation): string {
  const { target, decision, nowMs, run } = explanation;
  const created = Number.isNaN(Date.parse(target.createdAt)) ? target.createdAt : when(Date.parse(target.createdAt), nowMs);
  const runs = decision.references.map(describeRun);
  const lines = [
    ...field('target', [`${target.namespace}/${target.name}`]),
    ...kindFields(explanation),
    ...field('uid', [target.uid]),
    ...field('created', [created]),
    // A run out of the selector's scope is still read, for its group's history: it is only never a target.
    ...field('in scope', [explanation.scope.inScope ? 'yes' : `no: ${explanation.scope.why}; ${run === undefined ? 'a pass never looks at it' : 'a pass never decides or deletes it'}`]),
    ...field('decision', [`${decision.action} (rule ${explanation.rule}, ${decision.reason})`]),
    ...field('why', [oneLine(decision.message)]),
    // A run is decided by its history, not by runs that link it.
    ...(run === undefined ? field('runs', runs.length === 0 ? ['none links it'] : runs) : runFields(run, nowMs)),
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
    case 'unknown':
      return { when: 'unknown', why: collectable.why, ...(collectable.notBefore !== undefined && { notBefore: formatInstant(collectable.notBefore.atMs), bound: collectable.notBefore.bound }) };
  }
}

function runSettingJson(setting: RunSetting | undefined): Record<string, string> | null {
  return setting === undefined ? null : { value: setting.value, source: setting.source, ...(setting.flag !== undefined && { flag: setting.flag }) };
}

/** A run's history in JSON: the text's state, group, rank, limit and run TTL fields. */
function runJson(run: RunExplanation): Record<string, unknown> {
  return {
    state: run.state,
    ...(run.finishedAt !== undefined && { finishedAt: run.finishedAt }),
    group: run.group,
    ...(run.outcome !== undefined && { outcome: run.outcome }),
    ...(run.rank !== undefined && { rank: run.rank, ofOutcome: run.ofOutcome }),
    ...(run.countedAmong !== undefined && { countedAmong: run.countedAmong }),
    ...(run.noPlace !== undefined && { noPlace: run.noPlace }),
    limit: runSettingJson(run.limit),
    ttl: runSettingJson(run.ttl),
  };
}

export function renderExplanationJson(explanation: Explanation): string {
  const { target, decision } = explanation;
  const bytes = target.leftover?.bytes;
  const document = {
    apiVersion: 'tekton-resource-gc.io/v1',
    kind: 'Explanation',
    now: new Date(explanation.nowMs).toISOString(),
    // The target says what it is, as the report's items do.
    target: {
      namespace: target.namespace,
      kind: target.kind,
      collector: collectorOf(target.kind).name,
      name: target.name,
      uid: target.uid,
      createdAt: target.createdAt,
      ...(bytes !== undefined && { bytes: bytes.value, bytesFrom: bytes.from }),
    },
    scope: explanation.scope,
    decision: { action: decision.action, reason: decision.reason, rule: explanation.rule, message: decision.message },
    ...(explanation.run !== undefined && { run: runJson(explanation.run) }),
    references: decision.references.map((ref) => ({ kind: ref.kind, name: ref.name, state: ref.state, ...(ref.finishedAt !== undefined && { finishedAt: ref.finishedAt }), via: ref.via })),
    ...(decision.heldBy !== undefined && decision.heldBy.length > 0 && { heldBy: decision.heldBy.map(toReportHolder) }),
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

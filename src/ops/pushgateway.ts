/**
 * The Pushgateway's grouping key: which labels may name a group, and the URL path that
 * names one. Pure; the push itself is in metrics.ts.
 *
 * A group is `job` plus the labels given, and a PUT replaces the whole group
 * (https://github.com/prometheus/pushgateway#url). Several installs that push to one
 * gateway must therefore differ in at least one label, or each pass erases the others'.
 */
import type { Parsed } from '../core/retention.js';

/** The job every group of this collector is under; not a setting, so alerts can rely on it. */
export const PUSH_JOB = 'tekton-resource-gc';

/** The label of the kind every pass's counts carry (metrics.ts). */
export const KIND_LABEL = 'kind';

/**
 * Labels the pushed samples carry themselves. The gateway overwrites a sample's label with
 * the grouping label of the same name, which would fold every kind or reason into one series.
 */
export const SAMPLE_LABELS = [KIND_LABEL, 'action', 'reason', 'result'] as const;

/** What a grouping label may not be named: a label of the pushed samples. */
const PUSHED_LABELS: readonly string[] = SAMPLE_LABELS;

/** One label of the grouping key besides `job`. */
export interface GroupingLabel {
  name: string;
  value: string;
}

/** Prometheus' label names (the classic set, which every Pushgateway takes). */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const GROUPING_EXAMPLE = 'instance=ci-gc,cluster=prod';

/** `NAME=VALUE`, split at the first `=`. */
export function parseGroupingLabel(text: string): Parsed<GroupingLabel> {
  const equals = text.indexOf('=');
  if (equals === -1) return { ok: false, error: `expected NAME=VALUE labels, such as ${GROUPING_EXAMPLE}` };
  const name = text.slice(0, equals).trim();
  const value = text.slice(equals + 1).trim();
  const problem = labelNameProblem(name);
  if (problem !== undefined) return { ok: false, error: `${problem}; expected NAME=VALUE labels, such as ${GROUPING_EXAMPLE}` };
  if (value === '') return { ok: false, error: `label ${name} has an empty value; expected NAME=VALUE labels, such as ${GROUPING_EXAMPLE}` };
  return { ok: true, value: { name, value } };
}

function labelNameProblem(name: string): string | undefined {
  if (!LABEL_NAME.test(name)) return `${JSON.stringify(name)} is not a Prometheus label name (letters, digits and _, not starting with a digit)`;
  if (name.startsWith('__')) return `label names starting with __ are reserved to Prometheus`;
  if (name === 'job') return `job is always ${PUSH_JOB} and cannot be set; name the install with another label`;
  if (PUSHED_LABELS.includes(name)) return `${name} is a label of the pushed metrics and cannot also group them`;
  return undefined;
}

/**
 * `/metrics/job/tekton-resource-gc/<name>/<value>...`. A value the router would split or
 * drop (one with `/`, an empty one, `.` and `..`, which path cleaning removes) goes as
 * `<name>@base64/<base64url>`, as the Pushgateway's README says; others percent-encoded.
 */
export function groupingPath(labels: readonly GroupingLabel[]): string {
  const pairs = labels.map(({ name, value }) => {
    if (value === '') return `${name}@base64/=`;
    if (value.includes('/') || value === '.' || value === '..') return `${name}@base64/${Buffer.from(value, 'utf8').toString('base64url')}`;
    return `${name}/${encodeURIComponent(value)}`;
  });
  return ['/metrics/job', encodeURIComponent(PUSH_JOB), ...pairs].join('/');
}

/**
 * Why a gateway URL cannot take the grouping path, or undefined. A path that already holds
 * `/metrics` names a group (or would be doubled); a plain prefix (a gateway behind a proxy
 * at `https://example.com/pushgateway`) is kept.
 */
export function gatewayPathProblem(url: URL): string | undefined {
  const segments = url.pathname.split('/');
  const at = segments.indexOf('metrics');
  if (at === -1) return undefined;
  const base = `${url.protocol}//${url.host}${segments.slice(0, at).join('/')}`;
  return `its path holds a grouping key (/metrics/…), which the collector writes itself; give the gateway's address and the labels apart, such as --pushgateway-url ${base} --pushgateway-grouping instance=ci-gc`;
}

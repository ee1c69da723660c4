/**
 * Label selectors as the API server reads and matches them (k8s.io/apimachinery/pkg/labels,
 * selector.go: Parse and Requirement.Matches). The API server applies --selector to every
 * collector's listing but the runs': the run listing is read whole, since a run's history is
 * its whole group's (docs/spec.md, "Runs"), and the runs a pass may delete are the ones whose
 * labels this matches. Pure: text in, requirements out; labels in, a boolean out.
 */
import type { Parsed } from './retention.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** At most 253 lowercase letters, digits, '-' and '.', in dot-separated DNS labels. */
export function isDnsSubdomain(text: string): boolean {
  return text.length <= 253 && DNS_SUBDOMAIN.test(text);
}

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefixOk = slash === -1 || isDnsSubdomain(key.slice(0, slash));
  return prefixOk && name.length <= 63 && LABEL_NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}

/** One requirement of a selector; all of a selector's must hold. */
export type Requirement =
  | { key: string; operator: 'exists' | 'does-not-exist' }
  /** `=`, `==` and `in` are `in`; `!=` and `notin` are `notin` (true too when the label is absent). */
  | { key: string; operator: 'in' | 'notin'; values: readonly string[] }
  /** `>` and `<` against a whole number (int64); only a label whose value is one can match. */
  | { key: string; operator: 'gt' | 'lt'; value: bigint };

/** A parsed selector: no requirement matches everything (the empty selector). */
export interface LabelSelector {
  text: string;
  requirements: readonly Requirement[];
}

export const SELECTOR_EXAMPLE = 'a label selector such as "app=ci,tier!=cache,env in (prod,staging),!legacy"';
const KEY = String.raw`([^\s!=<>(),]+)`;
const EXISTS = new RegExp(`^(!?)\\s*${KEY}$`);
const EQUALS = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([^\\s!=<>(),]*)$`);
// Kubernetes takes `()` and empty members as the empty value.
const IN = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^()]*)\\)$`);
// > and < against a whole number, which the API server accepts too: a label value (so never
// negative; kube-apiserver 1.35 refuses `n>-1`) that strconv.ParseInt reads in 64 bits.
const COMPARE = new RegExp(`^${KEY}\\s*([<>])\\s*(\\d+)$`);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A whole number as Go's strconv.ParseInt(text, 10, 64) reads it; undefined when it reads none. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/**
 * A selector's requirements, checked closely enough to catch typos before the API server sees
 * it: the requirement grammar of k8s.io/apimachinery/pkg/labels, and the syntax of label keys
 * and values. The error names the first requirement that is not valid.
 */
export function parseLabelSelector(text: string): Parsed<LabelSelector> {
  const parts = splitRequirements(text);
  if (parts === undefined) return { ok: false, error: `parentheses do not balance; expected ${SELECTOR_EXAMPLE}` };
  if (text.trim() === '') return { ok: true, value: { text: '', requirements: [] } };
  const requirements: Requirement[] = [];
  for (const part of parts) {
    const requirement = parseRequirement(part.trim());
    if (requirement === undefined) return { ok: false, error: `requirement "${part.trim()}" is not valid; expected ${SELECTOR_EXAMPLE}` };
    requirements.push(requirement);
  }
  return { ok: true, value: { text, requirements } };
}

/** Splits at commas outside parentheses; undefined when the parentheses do not balance. */
export function splitRequirements(text: string): string[] | undefined {
  const requirements: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (depth < 0 || depth > 1) return undefined;
    if (char === ',' && depth === 0) {
      requirements.push(text.slice(start, index));
      start = index + 1;
    }
  }
  requirements.push(text.slice(start));
  return depth === 0 ? requirements : undefined;
}

export function parseRequirement(text: string): Requirement | undefined {
  const exists = EXISTS.exec(text);
  if (exists !== null) {
    const key = exists[2] ?? '';
    return isLabelKey(key) ? { key, operator: exists[1] === '!' ? 'does-not-exist' : 'exists' } : undefined;
  }
  const equals = EQUALS.exec(text);
  if (equals !== null) {
    const [, key = '', operator, value = ''] = equals;
    return isLabelKey(key) && isLabelValue(value) ? { key, operator: operator === '!=' ? 'notin' : 'in', values: [value] } : undefined;
  }
  const list = IN.exec(text);
  if (list !== null) {
    const [, key = '', operator, members = ''] = list;
    const values = members.split(',').map((value) => value.trim());
    return isLabelKey(key) && values.every(isLabelValue) ? { key, operator: operator === 'notin' ? 'notin' : 'in', values } : undefined;
  }
  const compare = COMPARE.exec(text);
  if (compare !== null) {
    const [, key = '', operator, number = ''] = compare;
    const value = parseInt64(number);
    return isLabelKey(key) && isLabelValue(number) && value !== undefined ? { key, operator: operator === '>' ? 'gt' : 'lt', value } : undefined;
  }
  return undefined;
}

/** Whether labels match every requirement, as Requirement.Matches decides each. */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  return selector.requirements.every((requirement) => matchesRequirement(requirement, labels));
}

function matchesRequirement(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const value = Object.hasOwn(labels, requirement.key) ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'exists':
      return value !== undefined;
    case 'does-not-exist':
      return value === undefined;
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case 'notin':
      return value === undefined || !requirement.values.includes(value);
    case 'gt':
    case 'lt': {
      if (value === undefined) return false;
      const number = parseInt64(value);
      if (number === undefined) return false;
      return requirement.operator === 'gt' ? number > requirement.value : number < requirement.value;
    }
  }
}

/** The label keys a selector reads: a record that keeps only some of its labels must keep these. */
export function selectorKeys(selector: LabelSelector): string[] {
  return [...new Set(selector.requirements.map((requirement) => requirement.key))];
}

/**
 * The runs a pass may delete, from --selector as text: undefined when every run may be (no
 * selector). A selector that cannot be read selects none: checked before any pass (config.ts,
 * plan.ts), so only a hand-made value gets here, and then nothing is deleted for it.
 */
export function runSelection(text: string | undefined): ((labels: Readonly<Record<string, string>>) => boolean) | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseLabelSelector(text);
  if (!parsed.ok) return () => false;
  const selector = parsed.value;
  return (labels) => matchesLabels(selector, labels);
}

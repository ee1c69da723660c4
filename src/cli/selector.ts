/**
 * Label selectors as the API server reads them (k8s.io/apimachinery/pkg/labels), checked
 * before a pass sends one, and the DNS-1123 subdomain that label key prefixes are.
 */
import type { Parsed } from '../core/retention.js';
import { quote } from '../text/redact.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** At most 253 lowercase letters, digits, '-' and '.', in dot-separated DNS labels. */
export function isDnsSubdomain(text: string): boolean {
  return text.length <= 253 && DNS_SUBDOMAIN.test(text);
}

const SELECTOR_EXAMPLE = 'a label selector such as "app=ci,tier!=cache,env in (prod,staging),!legacy"';
const KEY = String.raw`([^\s!=<>(),]+)`;
const REQUIREMENTS: readonly { pattern: RegExp; valuesAt?: number; listAt?: number }[] = [
  // exists, !exists
  { pattern: new RegExp(`^!?\\s*${KEY}$`) },
  // =, ==, !=
  { pattern: new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([^\\s!=<>(),]*)$`), valuesAt: 3 },
  // in, notin: Kubernetes takes `()` and empty members as the empty value
  { pattern: new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^()]*)\\)$`), listAt: 3 },
  // >, < against an integer, which the API server accepts too
  { pattern: new RegExp(`^${KEY}\\s*[<>]\\s*-?\\d+$`) },
];

/**
 * Checks a Kubernetes label selector closely enough to catch typos before the API server
 * sees it: the requirement grammar of k8s.io/apimachinery/pkg/labels, and the syntax of
 * label keys and values.
 */
export function parseSelector(text: string): Parsed<string> {
  const requirements = splitRequirements(text);
  if (requirements === undefined) return { ok: false, error: `parentheses do not balance; expected ${SELECTOR_EXAMPLE}` };
  if (text.trim() === '') return { ok: true, value: '' };
  const bad = requirements.find((requirement) => !isRequirement(requirement.trim()));
  if (bad === undefined) return { ok: true, value: text };
  return { ok: false, error: `requirement ${quote(bad.trim())} is not valid; expected ${SELECTOR_EXAMPLE}` };
}

/** Splits at commas outside parentheses; undefined when the parentheses do not balance. */
function splitRequirements(text: string): string[] | undefined {
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

function isRequirement(requirement: string): boolean {
  return REQUIREMENTS.some(({ pattern, valuesAt, listAt }) => {
    const match = pattern.exec(requirement);
    if (match === null || !isLabelKey(match[1] ?? '')) return false;
    if (valuesAt !== undefined) return isLabelValue(match[valuesAt] ?? '');
    if (listAt !== undefined) return (match[listAt] ?? '').split(',').every((value) => isLabelValue(value.trim()));
    return true;
  });
}

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefixOk = slash === -1 || isDnsSubdomain(key.slice(0, slash));
  return prefixOk && name.length <= 63 && LABEL_NAME.test(name);
}

function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}

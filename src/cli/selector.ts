/**
 * Label selectors as the API server reads them (k8s.io/apimachinery/pkg/labels), checked
 * before a pass sends one, and the DNS-1123 subdomain that label key prefixes are. The
 * grammar is the core's (core/labelselector.ts), which matches the runs' labels with it.
 */
import { parseRequirement, SELECTOR_EXAMPLE, splitRequirements } from '../core/labelselector.js';
import type { Parsed } from '../core/retention.js';
import { quote } from '../text/redact.js';

export { isDnsSubdomain, isLabelKey } from '../core/labelselector.js';

/**
 * Checks a Kubernetes label selector closely enough to catch typos before the API server
 * sees it: the requirement grammar of k8s.io/apimachinery/pkg/labels, and the syntax of
 * label keys and values.
 */
export function parseSelector(text: string): Parsed<string> {
  const requirements = splitRequirements(text);
  if (requirements === undefined) return { ok: false, error: `parentheses do not balance; expected ${SELECTOR_EXAMPLE}` };
  if (text.trim() === '') return { ok: true, value: '' };
  const bad = requirements.find((requirement) => parseRequirement(requirement.trim()) === undefined);
  if (bad === undefined) return { ok: true, value: text };
  return { ok: false, error: `requirement ${quote(bad.trim())} is not valid; expected ${SELECTOR_EXAMPLE}` };
}

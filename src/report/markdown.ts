import { REASONS } from '../core/types.js';
import { countReasons, countResults } from './build.js';
import { RESULTS, type Report, type ReportItem } from './model.js';
import { describeReasons, describeReferences, describeResults, plural } from './text.js';

/**
 * A report to paste into a pull-request comment or a chat message: the title says dry run
 * or live, the counts come first, and each namespace's targets sit in a collapsed
 * `<details>` block, so a pass over thousands of targets still reads in one screen.
 */
export function renderMarkdown(report: Report): string {
  const blocks = [title(report), overview(report), ...errorBlock(report), ...summaryTables(report)];
  for (const [namespace, items] of groupByNamespace(report.items)) blocks.push(...namespaceSection(namespace, items));
  return `${blocks.join('\n\n')}\n`;
}

/**
 * Makes text from the cluster (names, messages that quote annotation values) show as
 * written inside a table cell: no HTML, no emphasis, links, strike-through or math, no
 * cell break, no line break.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~$]/g, '\\$&');
}

function title(report: Report): string {
  return `## tekton-resource-gc: ${report.dryRun ? 'dry run' : 'live pass'}`;
}

function overview(report: Report): string {
  const { summary } = report;
  const namespaces = plural(new Set(report.items.map((item) => item.namespace)).size, 'namespace');
  const counts = `${plural(summary.targets, 'target')} in ${namespaces}, ${plural(summary.runs, 'run')} seen.`;
  const lead = report.dryRun ? `**Dry run: nothing was deleted.** ${counts}` : counts;
  return `${lead}\n\n${scopeLine(report)}`;
}

function scopeLine(report: Report): string {
  const { scope } = report;
  const namespaces = scope.namespaces.includes('*') ? 'all namespaces' : listOrNone(scope.namespaces);
  const selector = scope.selector === '' ? 'none' : escapeMarkdown(scope.selector);
  const seconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  return [
    `Scope: ${namespaces}; excluded: ${listOrNone(scope.excludedNamespaces)}; selector: ${selector}.`,
    `Started ${report.startedAt}, took ${seconds} s.`,
  ].join(' ');
}

function listOrNone(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.map(escapeMarkdown).join(', ');
}

function errorBlock(report: Report): string[] {
  const errors = report.errors ?? [];
  if (errors.length === 0) return [];
  return [`**Errors:**\n\n${errors.map((error) => `- ${escapeMarkdown(error)}`).join('\n')}`];
}

function summaryTables(report: Report): string[] {
  if (report.items.length === 0) return ['Nothing in scope.'];
  const { results, reasons } = report.summary;
  const resultRows = RESULTS.flatMap((result) => countRow(`\`${result}\``, results[result]));
  const reasonRows = REASONS.flatMap((reason) => countRow(`\`${reason}\``, reasons[reason]));
  return [
    ['| result | targets |', '| --- | ---: |', ...resultRows].join('\n'),
    ['| reason | targets |', '| --- | ---: |', ...reasonRows].join('\n'),
  ];
}

function countRow(label: string, count: number | undefined): string[] {
  return count === undefined || count === 0 ? [] : [`| ${label} | ${count} |`];
}

/** Items are already sorted by namespace, so each group keeps the report's order. */
function groupByNamespace(items: readonly ReportItem[]): Map<string, ReportItem[]> {
  const groups = new Map<string, ReportItem[]>();
  for (const item of items) {
    const group = groups.get(item.namespace);
    if (group === undefined) groups.set(item.namespace, [item]);
    else group.push(item);
  }
  return groups;
}

function namespaceSection(namespace: string, items: readonly ReportItem[]): string[] {
  const counts = `${plural(items.length, 'target')}: ${describeResults(countResults(items))}`;
  const table = [
    '| name | action | result | reason | referencing runs | message |',
    '| --- | --- | --- | --- | --- | --- |',
    ...items.map(itemRow),
  ].join('\n');
  return [
    `### ${escapeMarkdown(namespace)}`,
    `${counts} (${describeReasons(countReasons(items))})`,
    // GitHub renders Markdown inside <details> only with a blank line after <summary>.
    `<details>\n<summary>${plural(items.length, 'target')} in ${escapeMarkdown(namespace)}</summary>\n\n${table}\n\n</details>`,
  ];
}

function itemRow(item: ReportItem): string {
  const cells = [
    escapeMarkdown(item.name),
    item.action,
    `\`${item.result}\``,
    `\`${item.reason}\``,
    escapeMarkdown(describeReferences(item.references)),
    escapeMarkdown(item.message),
  ];
  return `| ${cells.join(' | ')} |`;
}

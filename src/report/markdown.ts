import { REASONS } from '../core/types.js';
import { escapeControls } from '../escape.js';
import { countResults } from './build.js';
import { RESULTS, type Report, type ReportItem, type Result } from './model.js';
import { describeReferences, describeResults, describeResultsWithReasons, planLine, plural } from './text.js';

/**
 * A report to paste into a pull-request comment or a chat message: the title says dry run
 * or live, the counts come first (overall, then one row per namespace), and each
 * namespace's targets sit in a collapsed `<details>` block, so a pass over thousands of
 * targets still reads in one screen.
 */
export function renderMarkdown(report: Report): string {
  const groups = groupByNamespace(report.items);
  const blocks = [title(report), overview(report), ...errorBlock(report), ...summaryTables(report), ...namespaceTable(groups)];
  let used = blocks.join('\n\n').length;
  const left: ReportItem[] = [];
  let namespacesLeft = 0;
  for (const [namespace, items] of groups) {
    const section = namespacesLeft === 0 ? namespaceSection(namespace, items, MARKDOWN_MAX_CHARS - used - 2 - NOT_SHOWN_RESERVE) : undefined;
    if (section === undefined) {
      namespacesLeft++;
      left.push(...items);
      continue;
    }
    blocks.push(...section);
    used += section.join('\n\n').length + 2;
  }
  if (namespacesLeft > 0) {
    blocks.push(
      `${plural(namespacesLeft, 'more namespace')} with ${plural(left.length, 'target')} not shown (${describeResults(countResults(left))}), to keep this report under ${MARKDOWN_MAX_CHARS} characters. The JSON report (\`--output json\`) lists every one.`,
    );
  }
  return `${blocks.join('\n\n')}\n`;
}

/**
 * The whole report stays under this many characters: a GitHub comment holds 65,536.
 * Namespace sections are added while they fit (a section's table losing its least important
 * rows first); the namespaces left over are counted in one closing line.
 */
export const MARKDOWN_MAX_CHARS = 60_000;

/** Room kept for that closing line. */
const NOT_SHOWN_RESERVE = 400;

/** Rows of the per-namespace counts table before the rest are summed in one row. */
export const MARKDOWN_NAMESPACE_ROWS = 200;

/**
 * Rows shown per namespace. A GitHub comment holds 65,536 characters and a table row
 * about 200: past this many, the rows that matter most are shown (failures first, then
 * what was or would be deleted, kept ones last) and the rest are counted; the JSON
 * report has every one.
 */
export const MARKDOWN_ROWS_PER_NAMESPACE = 100;

/** Which results a capped table shows first. */
const RESULT_PRIORITY: readonly Result[] = ['failed', 'aborted', 'changed', 'gone', 'deleted', 'would-delete', 'kept'];

/**
 * Makes text from the cluster (names, messages that quote annotation values) show as
 * written inside a table cell: no HTML, no emphasis, links, strike-through or math, no
 * cell break, no line break; control characters shown as escapes (see escape.ts); and
 * nothing GitHub turns into a notification or a link (see neutraliseReferences).
 */
export function escapeMarkdown(text: string): string {
  const escaped = text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~$]/g, '\\$&');
  return neutraliseReferences(escapeControls(escaped));
}

/**
 * A zero-width space, written as a character reference so that it shows in the Markdown
 * source. Hexadecimal, so that no `#` it adds is followed by a digit.
 */
const ZERO_WIDTH_SPACE = '&#x200B;';

/**
 * GitHub turns `@name` into a mention (a notification, to a whole team for `@org/team`),
 * `#42`, `GH-42` and `owner/repo#42` into links to issues, and a URL of an issue into a
 * link and a back-reference in that issue
 * (https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/autolinked-references-and-urls).
 * A zero-width space after `@` and `#`, inside `GH-42`, after a URL's `:` and after `www`
 * leaves the text as it reads and stops each of them: what Renovate does in the release
 * notes it quotes in pull requests. `&` is escaped before this, so a character reference
 * in the cluster's text (`&#64;team`) cannot make an `@` of its own.
 */
function neutraliseReferences(text: string): string {
  return text
    .replace(/[@#]/g, `$&${ZERO_WIDTH_SPACE}`)
    .replace(/(gh-)(?=\d)/gi, `$1${ZERO_WIDTH_SPACE}`)
    .replace(/:(?=\/\/)/g, `:${ZERO_WIDTH_SPACE}`)
    .replace(/(www)(?=\.)/gi, `$1${ZERO_WIDTH_SPACE}`);
}

function title(report: Report): string {
  return `## tekton-resource-gc: ${report.dryRun ? 'dry run' : 'live pass'}`;
}

function overview(report: Report): string {
  const { summary } = report;
  const namespaces = plural(new Set(report.items.map((item) => item.namespace)).size, 'namespace');
  const counts = `${plural(summary.targets, 'target')} in ${namespaces}, ${plural(summary.runs, 'run')} seen.`;
  const lead = report.dryRun ? `**Dry run: nothing was deleted.** ${counts}` : counts;
  const plan = report.plan === undefined ? '' : `\n\n${escapeMarkdown(planLine(report.plan))}`;
  return `${lead}\n\n${scopeLine(report)}${plan}`;
}

function scopeLine(report: Report): string {
  const { scope } = report;
  const namespaces = scope.namespaces.includes('*') ? 'all namespaces' : listOrNone(scope.namespaces);
  const selector = scope.selector === '' ? 'none' : escapeMarkdown(scope.selector);
  const shard = scope.namespaceSelector === undefined ? '' : `; namespace selector: ${escapeMarkdown(scope.namespaceSelector)}`;
  const seconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  return [
    `Scope: ${namespaces}; excluded: ${listOrNone(scope.excludedNamespaces)}; selector: ${selector}${shard}.`,
    `Started ${report.startedAt}, took ${seconds} s.`,
  ].join(' ');
}

function listOrNone(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.map(escapeMarkdown).join(', ');
}

function errorBlock(report: Report): string[] {
  const block = (heading: string, lines: readonly string[] = []): string[] =>
    lines.length === 0 ? [] : [`**${heading}:**\n\n${lines.map((line) => `- ${escapeMarkdown(line)}`).join('\n')}`];
  return [...block('Errors', report.errors), ...block('Warnings', report.warnings)];
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

/** One row per namespace with its count of each result, when there is more than one namespace. */
function namespaceTable(groups: ReadonlyMap<string, readonly ReportItem[]>): string[] {
  if (groups.size < 2) return [];
  const all = [...groups.values()].flat();
  const columns = RESULTS.filter((result) => all.some((item) => item.result === result));
  const row = (label: string, items: readonly ReportItem[]): string => {
    const counts = columns.map((result) => String(items.filter((item) => item.result === result).length));
    return `| ${label} | ${items.length} | ${counts.join(' | ')} |`;
  };
  const named = [...groups];
  const rows = named.slice(0, MARKDOWN_NAMESPACE_ROWS).map(([namespace, items]) => row(escapeMarkdown(namespace), items));
  const rest = named.slice(MARKDOWN_NAMESPACE_ROWS);
  if (rest.length > 0) rows.push(row(`${plural(rest.length, 'more namespace')}`, rest.flatMap(([, items]) => items)));
  return [
    [
      `| namespace | targets | ${columns.map((result) => `\`${result}\``).join(' | ')} |`,
      `| --- | ---: | ${columns.map(() => '---:').join(' | ')} |`,
      ...rows,
    ].join('\n'),
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

/**
 * A namespace's heading, counts and collapsed table, in at most `budget` characters: up to
 * MARKDOWN_ROWS_PER_NAMESPACE rows, the most important first, fewer when the budget is
 * short; undefined when not even one row fits.
 */
function namespaceSection(namespace: string, items: readonly ReportItem[], budget: number): string[] | undefined {
  const rank = (item: ReportItem): number => RESULT_PRIORITY.indexOf(item.result);
  const ranked = items.length <= MARKDOWN_ROWS_PER_NAMESPACE ? items : [...items].sort((a, b) => rank(a) - rank(b)).slice(0, MARKDOWN_ROWS_PER_NAMESPACE);
  // Everything but the rows, with room for the longest counts those texts can hold.
  const frame = namespaceSectionText(namespace, items, [], items).join('\n\n').length + 200;
  const chosen = new Set<ReportItem>();
  let length = frame;
  for (const item of ranked) {
    length += itemRow(item).length + 1;
    if (length > budget) break;
    chosen.add(item);
  }
  if (chosen.size === 0) return undefined;
  // Still in name order.
  const shown = items.filter((item) => chosen.has(item));
  const hidden = items.filter((item) => !chosen.has(item));
  return namespaceSectionText(namespace, items, shown, hidden);
}

function namespaceSectionText(namespace: string, items: readonly ReportItem[], shown: readonly ReportItem[], hidden: readonly ReportItem[]): string[] {
  const table = [
    '| name | action | result | reason | referencing runs | message |',
    '| --- | --- | --- | --- | --- | --- |',
    ...shown.map(itemRow),
  ].join('\n');
  const more = hidden.length === 0 ? '' : `\n\n${plural(hidden.length, 'more target')} not shown: ${describeResults(countResults(hidden))}. The JSON report (\`--output json\`) lists every one.`;
  const summary = hidden.length === 0 ? `${plural(items.length, 'target')} in ${escapeMarkdown(namespace)}` : `${shown.length} of ${items.length} targets in ${escapeMarkdown(namespace)}`;
  return [
    `### ${escapeMarkdown(namespace)}`,
    // Each result with the reasons of its own targets, as the text report's summary line says it.
    `${plural(items.length, 'target')}: ${describeResultsWithReasons(items)}`,
    // GitHub renders Markdown inside <details> only with a blank line after <summary>.
    `<details>\n<summary>${summary}</summary>\n\n${table}${more}\n\n</details>`,
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

import { ALL_REASONS } from '../core/types.js';
import { escapeControls } from '../escape.js';
import { countResults, showsLeftovers } from './build.js';
import { RESULTS, type Report, type ReportItem, type Result } from './model.js';
import { bytesLine, describeHolders, describeReferences, describeResults, describeResultsWithReasons, formatBytes, planLine, plural } from './text.js';

/**
 * A report to paste into a pull-request comment or a chat message: the title says dry run
 * or live, the counts come first (overall, then one row per namespace), and each
 * namespace's targets sit in a collapsed `<details>` block, so a pass over thousands of
 * targets still reads in one screen. With a leftover collector on, the sections are by
 * kind instead (SECTIONS_BY_KIND), after a table of the counts by kind.
 */
export function renderMarkdown(report: Report): string {
  const sections = showsLeftovers(report) ? SECTIONS_BY_KIND : SECTIONS_BY_NAMESPACE;
  // Made once: the sections hold every item anyway, and a pass's report makes them at each reading (build.ts).
  const items = [...report.items];
  const byNamespace = groupBy(items, SECTIONS_BY_NAMESPACE.keyOf);
  const groups = sections === SECTIONS_BY_NAMESPACE ? byNamespace : groupBy(items, sections.keyOf);
  const blocks = [title(report), overview(report, byNamespace.size), ...errorBlock(report), ...summaryTables(report), ...namespaceTable(byNamespace)];
  let used = blocks.join('\n\n').length;
  const left: ReportItem[] = [];
  let groupsLeft = 0;
  for (const [key, items] of groups) {
    const section = groupsLeft === 0 ? groupSection(sections, key, items, MARKDOWN_MAX_CHARS - used - 2 - NOT_SHOWN_RESERVE) : undefined;
    if (section === undefined) {
      groupsLeft++;
      left.push(...items);
      continue;
    }
    blocks.push(...section);
    used += section.join('\n\n').length + 2;
  }
  if (groupsLeft > 0) {
    blocks.push(
      `${plural(groupsLeft, `more ${sections.unit}`)} with ${plural(left.length, 'target')} not shown (${describeResults(countResults(left))}), to keep this report under ${MARKDOWN_MAX_CHARS} characters. The JSON report (\`--output json\`) lists every one.`,
    );
  }
  return `${blocks.join('\n\n')}\n`;
}

/** How targets are put in sections, each a heading, its counts and a collapsed table. */
interface Sections {
  keyOf: (item: ReportItem) => string;
  /** What a section is of, for the line that counts those not shown: `3 more namespaces`. */
  unit: string;
  /** The `<summary>` of a section's table: `4 targets in ci`, or `100 of 250 targets in ci` when capped. */
  summary: (key: string, shown: number, total: number) => string;
  columns: readonly string[];
  /** Cluster text is escaped; action, result, reason, kind and size are our own words. */
  row: (item: ReportItem) => string[];
}

/** PipelineResources alone: one section per namespace, as before leftovers. */
const SECTIONS_BY_NAMESPACE: Sections = {
  keyOf: (item) => item.namespace,
  unit: 'namespace',
  summary: (namespace, shown, total) => (shown === total ? `${plural(total, 'target')} in ${escapeMarkdown(namespace)}` : `${shown} of ${total} targets in ${escapeMarkdown(namespace)}`),
  columns: ['name', 'action', 'result', 'reason', 'referencing runs', 'message'],
  row: (item) => [
    escapeMarkdown(item.name),
    item.action,
    `\`${item.result}\``,
    `\`${item.reason}\``,
    escapeMarkdown(describeReferences(item.references)),
    escapeMarkdown(item.message),
  ],
};

/** A leftover collector on: one section per kind, each table across namespaces, with sizes and holders. */
const SECTIONS_BY_KIND: Sections = {
  keyOf: (item) => item.kind,
  unit: 'kind',
  summary: (kind, shown, total) => (shown === total ? plural(total, kind) : `${shown} of ${plural(total, kind)}`),
  columns: ['namespace', 'name', 'size', 'action', 'result', 'reason', 'linked runs', 'held by', 'message'],
  row: (item) => [
    escapeMarkdown(item.namespace),
    escapeMarkdown(item.name),
    item.bytes === undefined ? '-' : formatBytes(item.bytes),
    item.action,
    `\`${item.result}\``,
    `\`${item.reason}\``,
    escapeMarkdown(describeReferences(item.references)),
    escapeMarkdown(describeHolders(item.heldBy ?? [])),
    escapeMarkdown(item.message),
  ],
};

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
const RESULT_PRIORITY: readonly Result[] = ['failed', 'aborted', 'changed', 'gone', 'terminating', 'deleted', 'would-delete', 'kept'];

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

function overview(report: Report, namespaceCount: number): string {
  const { summary } = report;
  const namespaces = plural(namespaceCount, 'namespace');
  const counts = `${plural(summary.targets, 'target')} in ${namespaces}, ${plural(summary.runs, 'run')} seen.`;
  const lead = report.dryRun ? `**Dry run: nothing was deleted.** ${counts}` : counts;
  const plan = report.plan === undefined ? '' : `\n\n${escapeMarkdown(planLine(report.plan))}`;
  const bytes = report.summary.bytes === undefined ? '' : `\n\n${escapeMarkdown(bytesLine(report))}`;
  return `${lead}\n\n${scopeLine(report)}${plan}${bytes}`;
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
  const kinds = showsLeftovers(report) ? [kindTable(report)] : [];
  if (report.items.length === 0) return [...kinds, 'Nothing in scope.'];
  const { results, reasons } = report.summary;
  const resultRows = RESULTS.flatMap((result) => countRow(`\`${result}\``, results[result]));
  const reasonRows = ALL_REASONS.flatMap((reason) => countRow(`\`${reason}\``, reasons[reason]));
  return [
    ...kinds,
    ['| result | targets |', '| --- | ---: |', ...resultRows].join('\n'),
    ['| reason | targets |', '| --- | ---: |', ...reasonRows].join('\n'),
  ];
}

/** Every kind collected, zeros included: a reader sees what the pass looked for. */
function kindTable(report: Report): string {
  const rows = Object.entries(report.summary.byKind).map(([kind, counts]) => `| ${kind} | ${counts.targets} | ${counts.delete} | ${counts.keep} |`);
  return ['| kind | targets | delete | keep |', '| --- | ---: | ---: | ---: |', ...rows].join('\n');
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
  if (rest.length > 0) rows.push(row(plural(rest.length, 'more namespace'), rest.flatMap(([, items]) => items)));
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

/**
 * Items in groups, in key order (code units, as the report sorts). Items are sorted by
 * namespace, kind and name, so each group keeps the report's order.
 */
function groupBy(items: readonly ReportItem[], keyOf: (item: ReportItem) => string): Map<string, ReportItem[]> {
  const groups = new Map<string, ReportItem[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return new Map([...groups].sort(([a], [b]) => (a === b ? 0 : a < b ? -1 : 1)));
}

/**
 * A section's heading, counts and collapsed table, in at most `budget` characters: up to
 * MARKDOWN_ROWS_PER_NAMESPACE rows, the most important first, fewer when the budget is
 * short; undefined when not even one row fits.
 */
function groupSection(sections: Sections, key: string, items: readonly ReportItem[], budget: number): string[] | undefined {
  const rank = (item: ReportItem): number => RESULT_PRIORITY.indexOf(item.result);
  const ranked = items.length <= MARKDOWN_ROWS_PER_NAMESPACE ? items : [...items].sort((a, b) => rank(a) - rank(b)).slice(0, MARKDOWN_ROWS_PER_NAMESPACE);
  // Everything but the rows, with room for the longest counts those texts can hold.
  const frame = groupSectionText(sections, key, items, [], items).join('\n\n').length + 200;
  const chosen = new Set<ReportItem>();
  let length = frame;
  for (const item of ranked) {
    length += tableRow(sections.row(item)).length + 1;
    if (length > budget) break;
    chosen.add(item);
  }
  if (chosen.size === 0) return undefined;
  // Still in the report's order.
  const shown = items.filter((item) => chosen.has(item));
  const hidden = items.filter((item) => !chosen.has(item));
  return groupSectionText(sections, key, items, shown, hidden);
}

function groupSectionText(sections: Sections, key: string, items: readonly ReportItem[], shown: readonly ReportItem[], hidden: readonly ReportItem[]): string[] {
  const table = [tableRow(sections.columns), tableRow(sections.columns.map(() => '---')), ...shown.map((item) => tableRow(sections.row(item)))].join('\n');
  const more = hidden.length === 0 ? '' : `\n\n${plural(hidden.length, 'more target')} not shown: ${describeResults(countResults(hidden))}. The JSON report (\`--output json\`) lists every one.`;
  return [
    `### ${escapeMarkdown(key)}`,
    // Each result with the reasons of its own targets, as the text report's summary line says it.
    `${plural(items.length, 'target')}: ${describeResultsWithReasons(items)}`,
    // GitHub renders Markdown inside <details> only with a blank line after <summary>.
    `<details>\n<summary>${sections.summary(key, shown.length, items.length)}</summary>\n\n${table}${more}\n\n</details>`,
  ];
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

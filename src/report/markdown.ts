import { ALL_REASONS } from '../core/types.js';
import { escapeControls } from '../text/escape.js';
import { countResults } from './build.js';
import { RESULTS, type Report, type ReportItem, type Result } from './model.js';
import { bytesLine, cascadeLine, describeHolders, describeReferences, describeResults, describeResultsWithReasons, formatBytes, planLine, plural } from './text.js';

/**
 * A report to paste into a pull-request comment or a chat message: the title says dry run
 * or live, the counts come first (overall, by kind, by result, by reason, then one row per
 * namespace), and each kind's targets sit in a collapsed `<details>` block, one table
 * across namespaces, so a pass over thousands of targets still reads in one screen. The
 * same layout for every pass, whatever its collectors: PipelineResources are one more kind.
 */
export function renderMarkdown(report: Report): string {
  // Made once: the sections hold every item anyway, and a pass's report makes them at each reading (build.ts).
  const items = [...report.items];
  const byNamespace = groupBy(items, (item) => item.namespace);
  const blocks = [title(report), overview(report, byNamespace.size), ...errorBlock(report), ...summaryTables(report), ...namespaceTable(byNamespace)];
  let used = blocks.join('\n\n').length;
  const left: ReportItem[] = [];
  let kindsLeft = 0;
  for (const [kind, ofKind] of groupBy(items, (item) => item.kind)) {
    const section = kindsLeft === 0 ? kindSection(kind, ofKind, MARKDOWN_MAX_CHARS - used - 2 - NOT_SHOWN_RESERVE) : undefined;
    if (section === undefined) {
      kindsLeft++;
      left.push(...ofKind);
      continue;
    }
    blocks.push(...section);
    used += section.join('\n\n').length + 2;
  }
  if (kindsLeft > 0) {
    blocks.push(
      `${plural(kindsLeft, 'more kind')} with ${plural(left.length, 'target')} not shown (${describeResults(countResults(left))}), to keep this report under ${MARKDOWN_MAX_CHARS} characters. The JSON report (\`--output json\`) lists every one.`,
    );
  }
  return `${blocks.join('\n\n')}\n`;
}

/**
 * The columns of every kind's table, the same for each kind: size is a claim's (`-` for
 * other kinds and for a claim of unknown size), held by what holds a leftover (`-` when
 * nothing does), as in the text report.
 */
const COLUMNS = ['namespace', 'name', 'size', 'action', 'result', 'reason', 'linked runs', 'held by', 'message'] as const;

/** One item's cells, in COLUMNS order. Cluster text is escaped; action, result, reason and size are our own words. */
function itemRow(item: ReportItem): string[] {
  return [
    escapeMarkdown(item.namespace),
    escapeMarkdown(item.name),
    item.bytes === undefined ? '-' : formatBytes(item.bytes),
    item.action,
    `\`${item.result}\``,
    `\`${item.reason}\``,
    escapeMarkdown(describeReferences(item.references)),
    escapeMarkdown(describeHolders(item.heldBy ?? [])),
    escapeMarkdown(item.message),
  ];
}

/**
 * The whole report stays under this many characters: a GitHub comment holds 65,536.
 * Kind sections are added while they fit (a section's table losing its least important
 * rows first); the kinds left over are counted in one closing line.
 */
export const MARKDOWN_MAX_CHARS = 60_000;

/** Room kept for that closing line. */
const NOT_SHOWN_RESERVE = 400;

/** Rows of the per-namespace counts table before the rest are summed in one row. */
export const MARKDOWN_NAMESPACE_ROWS = 200;

/**
 * Rows shown per kind. A GitHub comment holds 65,536 characters and a table row about
 * 200: past this many, the rows that matter most are shown (failures first, then what was
 * or would be deleted, kept ones last) and the rest are counted; the JSON report has every
 * one.
 */
export const MARKDOWN_ROWS_PER_KIND = 100;

/** Which results a capped table shows first. */
const RESULT_PRIORITY: readonly Result[] = ['failed', 'aborted', 'skipped', 'changed', 'gone', 'terminating', 'deleted', 'would-delete', 'kept'];

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
  const cascade = report.summary.cascade === undefined ? '' : `\n\n${escapeMarkdown(cascadeLine(report))}`;
  return `${lead}\n\n${scopeLine(report)}${plan}${bytes}${cascade}`;
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
  const kinds = kindTable(report);
  if (report.items.length === 0) return [kinds, 'Nothing in scope.'];
  const { results, reasons } = report.summary;
  const resultRows = RESULTS.flatMap((result) => countRow(`\`${result}\``, results[result]));
  const reasonRows = ALL_REASONS.flatMap((reason) => countRow(`\`${reason}\``, reasons[reason]));
  return [
    kinds,
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
 * A kind's heading, counts and collapsed table, in at most `budget` characters: up to
 * MARKDOWN_ROWS_PER_KIND rows, the most important first, fewer when the budget is short;
 * undefined when not even one row fits.
 */
function kindSection(kind: string, items: readonly ReportItem[], budget: number): string[] | undefined {
  const rank = (item: ReportItem): number => RESULT_PRIORITY.indexOf(item.result);
  const ranked = items.length <= MARKDOWN_ROWS_PER_KIND ? items : [...items].sort((a, b) => rank(a) - rank(b)).slice(0, MARKDOWN_ROWS_PER_KIND);
  // Everything but the rows, with room for the longest counts those texts can hold.
  const frame = kindSectionText(kind, items, [], items).join('\n\n').length + 200;
  const chosen = new Set<ReportItem>();
  let length = frame;
  for (const item of ranked) {
    length += tableRow(itemRow(item)).length + 1;
    if (length > budget) break;
    chosen.add(item);
  }
  if (chosen.size === 0) return undefined;
  // Still in the report's order.
  const shown = items.filter((item) => chosen.has(item));
  const hidden = items.filter((item) => !chosen.has(item));
  return kindSectionText(kind, items, shown, hidden);
}

function kindSectionText(kind: string, items: readonly ReportItem[], shown: readonly ReportItem[], hidden: readonly ReportItem[]): string[] {
  const table = [tableRow(COLUMNS), tableRow(COLUMNS.map(() => '---')), ...shown.map((item) => tableRow(itemRow(item)))].join('\n');
  const more = hidden.length === 0 ? '' : `\n\n${plural(hidden.length, 'more target')} not shown: ${describeResults(countResults(hidden))}. The JSON report (\`--output json\`) lists every one.`;
  // `4 PersistentVolumeClaims`, or `100 of 250 PersistentVolumeClaims` when capped.
  const summary = shown.length === items.length ? plural(items.length, kind) : `${shown.length} of ${plural(items.length, kind)}`;
  return [
    `### ${escapeMarkdown(kind)}`,
    // Each result with the reasons of its own targets, as the text report's summary line says it.
    `${plural(items.length, 'target')}: ${describeResultsWithReasons(items)}`,
    // GitHub renders Markdown inside <details> only with a blank line after <summary>.
    `<details>\n<summary>${summary}</summary>\n\n${table}${more}\n\n</details>`,
  ];
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

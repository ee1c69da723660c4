import { REASONS, type Reason } from '../core/types.js';
import { escapeControls } from '../escape.js';
import { countReasons } from './build.js';
import { RESULTS, type Report, type ReportItem, type ReportReference, type Result } from './model.js';

/** What each result means, as the summary line says it: `3 would be deleted`. */
const RESULT_PHRASES: { readonly [R in Result]: string } = {
  'would-delete': 'would be deleted',
  deleted: 'deleted',
  gone: 'already gone',
  changed: 'changed since listed',
  failed: 'failed',
  aborted: 'aborted',
  kept: 'kept',
};

/**
 * A target shared by many runs would stretch its row across the screen; the first few
 * say enough here, and the JSON report has them all.
 */
export const REFERENCES_SHOWN = 3;

/**
 * The longest the referencing runs of one target are described in: run names may hold 253
 * characters, and three of them made an 880-column row. Fewer runs are shown when they do
 * not fit, and a single one too long for it has its name cut.
 */
export const REFERENCES_MAX_CHARS = 120;

/** About how many characters renderTextChunks hands over at a time. */
export const CHUNK_CHARS = 64 * 1024;

const COLUMNS = ['NAMESPACE', 'NAME', 'ACTION', 'RESULT', 'REASON', 'REFERENCING RUNS', 'WHY'] as const;

/** A table a person reads, widths fitting the content, then one summary line. */
export function renderText(report: Report): string {
  return [...renderTextChunks(report)].join('');
}

/**
 * renderText's output in pieces of about CHUNK_CHARS, so that a report of 40,000 targets is
 * never one string: each row's cells are made once to measure the columns and again to
 * print it, instead of all being held at once.
 */
export function* renderTextChunks(report: Report): Generator<string> {
  if (report.items.length > 0) {
    const widths = COLUMNS.map((title) => title.length);
    for (const item of report.items) {
      row(item).forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
    }
    let chunk = `${line([...COLUMNS], widths)}\n`;
    for (const item of report.items) {
      chunk += `${line(row(item), widths)}\n`;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    yield chunk;
  }
  const tail = [
    ...(report.plan === undefined ? [] : [`${planLine(report.plan)}\n`]),
    ...(report.warnings ?? []).map((warning) => `warning: ${oneLine(warning)}\n`),
    ...(report.errors ?? []).map((error) => `error: ${oneLine(error)}\n`),
  ];
  yield `${tail.join('')}${summaryLine(report)}\n`;
}

/**
 * e.g. `dry run: 3 targets, 7 runs: 1 would be deleted (runs-finished 1), 2 kept (retained 1,
 * too-young 1)`: each result with the reasons of the targets that got it, so the reasons
 * in brackets always add up to the count before them.
 */
export function summaryLine(report: Report): string {
  const { summary } = report;
  const counted = `${modeName(report)}: ${plural(summary.targets, 'target')}, ${plural(summary.runs, 'run')}`;
  if (summary.targets === 0) return `${counted}: nothing to do`;
  return `${counted}: ${describeResultsWithReasons(report.items)}`;
}

/** e.g. `1 would be deleted (runs-finished 1), 2 kept (retained 1, too-young 1)`, in RESULTS order. */
export function describeResultsWithReasons(items: readonly Pick<ReportItem, 'result' | 'reason'>[]): string {
  return RESULTS.flatMap((result) => {
    const withResult = items.filter((item) => item.result === result);
    return withResult.length === 0 ? [] : [`${withResult.length} ${RESULT_PHRASES[result]} (${describeReasons(countReasons(withResult))})`];
  }).join(', ');
}

export function modeName(report: Pick<Report, 'dryRun'>): string {
  return report.dryRun ? 'dry run' : 'live';
}

/** e.g. `1 would be deleted, 2 kept`, in RESULTS order. */
export function describeResults(results: Partial<Record<Result, number>>): string {
  return RESULTS.flatMap((result) => {
    const count = results[result];
    return count === undefined || count === 0 ? [] : [`${count} ${RESULT_PHRASES[result]}`];
  }).join(', ');
}

/** e.g. `retained 1, runs-finished 1`, in rule order. */
export function describeReasons(reasons: Partial<Record<Reason, number>>): string {
  return REASONS.flatMap((reason) => {
    const count = reasons[reason];
    return count === undefined || count === 0 ? [] : [`${reason} ${count}`];
  }).join(', ');
}

/**
 * e.g. `PipelineRun/build-1 (succeeded), TaskRun/lint-1 (running), +2 more`; `-` for none. At
 * most REFERENCES_SHOWN runs in at most REFERENCES_MAX_CHARS characters, control characters
 * in run names escaped (a run's spec names its PipelineResources in free text).
 */
export function describeReferences(references: readonly ReportReference[]): string {
  if (references.length === 0) return '-';
  const described = references.slice(0, REFERENCES_SHOWN).map((ref) => `${ref.kind}/${escapeControls(ref.name)} (${ref.state})`);
  for (let shown = described.length; shown > 1; shown--) {
    const cell = withMore(described.slice(0, shown), references.length - shown);
    if (cell.length <= REFERENCES_MAX_CHARS) return cell;
  }
  const [first] = references;
  const cell = withMore(described.slice(0, 1), references.length - 1);
  if (first === undefined || cell.length <= REFERENCES_MAX_CHARS) return cell;
  const name = escapeControls(first.name);
  const room = REFERENCES_MAX_CHARS - (cell.length - name.length) - 1;
  return withMore([`${first.kind}/${cutAt(name, room)}… (${first.state})`], references.length - 1);
}

function withMore(shown: readonly string[], hidden: number): string {
  return [...shown, ...(hidden > 0 ? [`+${hidden} more`] : [])].join(', ');
}

/** The first `length` characters, one fewer rather than half of a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Cluster text in cells is made safe to print; action, result and reason are our own words. */
function row(item: ReportItem): string[] {
  return [escapeControls(item.namespace), escapeControls(item.name), item.action, item.result, item.reason, describeReferences(item.references), oneLine(item.message)];
}

/** Columns two spaces apart, the last one unpadded so no line ends in spaces. */
function line(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
}

/** On one line, line breaks folded into a space, and safe to print (see escape.ts). */
function oneLine(text: string): string {
  return escapeControls(text.replace(/\s*[\r\n]+\s*/g, ' '));
}

/** e.g. `plan: sha256:3f5a… (4 to delete) written to plan.json`. */
export function planLine(plan: NonNullable<Report['plan']>): string {
  const what = `${plan.digest} (${plan.entries} to delete)`;
  return plan.mode === 'written' ? `plan: ${what} written to ${oneLine(plan.file)}` : `applied plan: ${what} from ${oneLine(plan.file)}`;
}

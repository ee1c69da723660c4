import { describeTrip } from '../pass/breaker.js';
import { ALL_REASONS, type Reason } from '../core/types.js';
import { escapeControls } from '../text/escape.js';
import { SIZED_KIND } from './build.js';
import { RESULTS, type Report, type ReportHolder, type ReportItem, type ReportReference, type Result } from './model.js';

/** What each result means, as the summary line says it: `3 would be deleted`. */
const RESULT_PHRASES: { readonly [R in Result]: string } = {
  'would-delete': 'would be deleted',
  deleted: 'deleted',
  terminating: 'left terminating',
  gone: 'already gone',
  changed: 'changed since listed',
  failed: 'failed',
  aborted: 'aborted',
  skipped: 'skipped',
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

/**
 * The table's columns, the same for every pass whatever its collectors: a PipelineResource
 * is one more kind. SIZE is a claim's (`-` for other kinds and for a claim of unknown
 * size), HELD BY what holds a leftover (`-` when nothing does, as for every
 * PipelineResource), so a column always holds the same thing and scripts can count on it.
 */
const COLUMNS = ['NAMESPACE', 'KIND', 'NAME', 'SIZE', 'ACTION', 'RESULT', 'REASON', 'LINKED RUNS', 'HELD BY', 'WHY'] as const;

/** One item's cells, in COLUMNS order. Cluster text is made safe to print; action, result, reason, kind and size are our own words. */
function row(item: ReportItem): string[] {
  return [
    escapeControls(item.namespace),
    item.kind,
    escapeControls(item.name),
    item.bytes === undefined ? '-' : formatBytes(item.bytes),
    item.action,
    item.result,
    item.reason,
    describeReferences(item.references),
    describeHolders(item.heldBy ?? []),
    oneLine(item.message),
  ];
}

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
    const widths: number[] = COLUMNS.map((title) => title.length);
    for (const item of report.items) {
      row(item).forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
    }
    let chunk = `${line(COLUMNS, widths)}\n`;
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
    ...(report.summary.bytes === undefined ? [] : [`${bytesLine(report)}\n`]),
    ...(report.summary.cascade === undefined ? [] : [`${cascadeLine(report)}\n`]),
    ...(report.warnings ?? []).map((warning) => `warning: ${oneLine(warning)}\n`),
    ...(report.errors ?? []).map((error) => `error: ${oneLine(error)}\n`),
  ];
  yield `${tail.join('')}${summaryLine(report)}\n`;
}

/**
 * e.g. `dry run: 3 targets, 7 runs: 1 would be deleted (runs-finished 1), 2 kept (retained 1,
 * too-young 1)`: each result with the reasons of the targets that got it, so the reasons
 * in brackets always add up to the count before them. A pass the breaker stopped ends with
 * `; the breaker stopped the delete phase: 5 deletes in a row failed with 403 Forbidden`.
 */
export function summaryLine(report: Report): string {
  const { summary } = report;
  const counted = `${modeName(report)}: ${plural(summary.targets, 'target')}, ${plural(summary.runs, 'run')}`;
  if (summary.targets === 0) return `${counted}: nothing to do`;
  const stopped = report.breaker === undefined ? '' : `; the breaker stopped the delete phase: ${describeTrip(report.breaker)}`;
  return `${counted}: ${describeResultsWithReasons(report.items)}${stopped}`;
}

/** e.g. `1 would be deleted (runs-finished 1), 2 kept (retained 1, too-young 1)`, in RESULTS order. */
export function describeResultsWithReasons(items: Iterable<Pick<ReportItem, 'result' | 'reason'>>): string {
  // One pass, counts only: the items may be made as they are read (build.ts).
  const tally = new Map<Result, Partial<Record<Reason, number>>>();
  for (const { result, reason } of items) {
    let reasons = tally.get(result);
    if (reasons === undefined) tally.set(result, (reasons = {}));
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  return RESULTS.flatMap((result) => {
    const reasons = tally.get(result);
    if (reasons === undefined) return [];
    const count = Object.values(reasons).reduce((sum, n) => sum + n, 0);
    return [`${count} ${RESULT_PHRASES[result]} (${describeReasons(reasons)})`];
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
  return ALL_REASONS.flatMap((reason) => {
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
  return describeCapped(
    references.slice(0, REFERENCES_SHOWN).map((ref) => ({ head: `${ref.kind}/`, name: escapeControls(ref.name), tail: ` (${ref.state})` })),
    references.length,
  );
}

/**
 * e.g. `Pod/build-1-pod (Running), StatefulSet/affinity-assistant-3c1d2e`; `(no phase yet)` for
 * a Pod without one; `-` for none. Capped like describeReferences, names escaped (anyone
 * who may create a Pod names it).
 */
export function describeHolders(holders: readonly ReportHolder[]): string {
  return describeCapped(
    holders.slice(0, REFERENCES_SHOWN).map((holder) => ({
      head: `${holder.kind}/`,
      name: escapeControls(holder.name),
      tail: holder.kind === 'Pod' ? ` (${holder.phase === undefined ? 'no phase yet' : shortened(escapeControls(holder.phase), PHASE_MAX_CHARS)})` : '',
    })),
    holders.length,
  );
}

/** Pod phases are one word (`Running`); a longer one, which a status update may write, is cut so the name keeps the room. */
const PHASE_MAX_CHARS = 20;

function shortened(text: string, length: number): string {
  return text.length <= length ? text : `${cutAt(text, length - 1)}…`;
}

/** One entry of a capped cell: `head`, then the (escaped) name that may be cut, then `tail`. */
interface CellEntry {
  head: string;
  name: string;
  tail: string;
}

/**
 * The first entries (at most REFERENCES_SHOWN of `total`) in at most REFERENCES_MAX_CHARS
 * characters: fewer when they do not fit, a single one too long for it with its name cut,
 * then `+N more`; `-` for none.
 */
function describeCapped(entries: readonly CellEntry[], total: number): string {
  if (total === 0) return '-';
  const described = entries.map((entry) => `${entry.head}${entry.name}${entry.tail}`);
  for (let shown = described.length; shown > 1; shown--) {
    const cell = withMore(described.slice(0, shown), total - shown);
    if (cell.length <= REFERENCES_MAX_CHARS) return cell;
  }
  const [first] = entries;
  const cell = withMore(described.slice(0, 1), total - 1);
  if (first === undefined || cell.length <= REFERENCES_MAX_CHARS) return cell;
  const room = REFERENCES_MAX_CHARS - (cell.length - first.name.length) - 1;
  return withMore([`${first.head}${cutAt(first.name, room)}…${first.tail}`], total - 1);
}

/** Binary units, as Kubernetes writes quantities: `50Gi`, `1500Mi`, `512`. */
const BYTE_UNITS = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/**
 * A size as a person reads it: in the largest unit that divides it and leaves a number
 * below 10000 (`50Gi`, `1500Mi`), else with one decimal in the largest unit it reaches
 * (`953.7Mi` for 1G); whole bytes below 1Ki.
 */
export function formatBytes(bytes: number): string {
  const scaled = BYTE_UNITS.map((unit, index) => ({ unit, value: bytes / 1024 ** (index + 1) })).reverse();
  const exact = scaled.find(({ value }) => Number.isInteger(value) && value >= 1 && value < 10_000);
  if (exact !== undefined) return `${exact.value}${exact.unit}`;
  const reached = scaled.find(({ value }) => value >= 1);
  if (reached === undefined) return String(bytes);
  return `${reached.value.toFixed(1)}${reached.unit}`;
}

/**
 * e.g. `bytes: 51.5Gi would be released (3 claims to delete)` in a dry run, `bytes: 50Gi
 * released, 1.5Gi pending (terminating), of 51.5Gi (3 claims to delete)` in a live pass
 * (docs/reports.md, "Leftovers in the report").
 */
export function bytesLine(report: Pick<Report, 'dryRun' | 'summary'>): string {
  const { bytes, byKind } = report.summary;
  const claims = plural(byKind[SIZED_KIND]?.delete ?? 0, 'claim');
  const candidates = formatBytes(bytes?.candidates ?? 0);
  if (report.dryRun) return `bytes: ${candidates} would be released (${claims} to delete)`;
  return `bytes: ${formatBytes(bytes?.released ?? 0)} released, ${formatBytes(bytes?.pending ?? 0)} pending (terminating), of ${candidates} (${claims} to delete)`;
}

/**
 * e.g. `cascade: 12 runs decided for deletion would take 48 TaskRuns, 48 Pods, 3 PersistentVolumeClaims (3Gi) with
 * them; 2 targets above go with them too` (docs/reports.md, "What goes with a run").
 */
export function cascadeLine(report: Pick<Report, 'dryRun' | 'summary'>): string {
  const cascade = report.summary.cascade;
  const runs = plural(cascade?.runs ?? 0, 'run');
  const objects = Object.entries(cascade?.objects ?? {}).map(([kind, count]) => plural(count, kind));
  const bytes = (cascade?.bytes ?? 0) > 0 ? ` (${formatBytes(cascade?.bytes ?? 0)})` : '';
  const what = objects.length === 0 ? 'nothing else listed' : `${objects.join(', ')}${bytes}`;
  const also = (cascade?.alsoCollected ?? 0) > 0 ? `; ${plural(cascade?.alsoCollected ?? 0, 'target')} above go with them too` : '';
  return `cascade: ${runs} decided for deletion ${report.dryRun ? 'would take' : 'take'} ${what} with them${also}`;
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

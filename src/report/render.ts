import { renderJsonChunks } from './json.js';
import { renderMarkdown } from './markdown.js';
import type { OutputFormat, Report } from './model.js';
import { renderTextChunks } from './text.js';

/** A renderer hands its output over in pieces, so that a large report is never one string. */
export type Renderer = (report: Report) => Iterable<string>;

/** One pure renderer per format; a format added to OUTPUT_FORMATS without one fails to compile. */
export const RENDERERS: { readonly [F in OutputFormat]: Renderer } = {
  text: renderTextChunks,
  json: renderJsonChunks,
  // Capped at 100 rows per namespace: small whatever the cluster, one string is fine.
  markdown: (report) => [renderMarkdown(report)],
};

export function renderReportChunks(report: Report, format: OutputFormat): Iterable<string> {
  return RENDERERS[format](report);
}

export function renderReport(report: Report, format: OutputFormat): string {
  return [...renderReportChunks(report, format)].join('');
}

import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import type { OutputFormat, Report } from './model.js';
import { renderText } from './text.js';

export type Renderer = (report: Report) => string;

/** One pure renderer per format; a format added to OUTPUT_FORMATS without one fails to compile. */
export const RENDERERS: { readonly [F in OutputFormat]: Renderer } = {
  text: renderText,
  json: renderJson,
  markdown: renderMarkdown,
};

export function renderReport(report: Report, format: OutputFormat): string {
  return RENDERERS[format](report);
}

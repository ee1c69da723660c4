// docs/cli.md from `tekton-resource-gc --help` (src/cli/help.ts, its flags from src/cli/flags.ts): `npm run docs:cli` writes it,
// `npm run docs:cli -- --check` fails when it is not current, and test/unit/docs.test.ts
// checks the committed one. The help text is the one source: the page is that text laid
// out as Markdown, so the two cannot drift apart.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText } from '../src/cli/help.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_DOC = path.join(ROOT, 'docs', 'cli.md');

/** One flag as --help shows it. */
export interface FlagEntry {
  /** `--min-age DURATION`, `-h, --help` */
  usage: string;
  /** The flag's own name, `--min-age`. */
  flag: string;
  /** `TRGC_MIN_AGE`; none for --help and --version. */
  variable?: string;
  /** `1h`; none for a flag that has no default. */
  defaultValue?: string;
  /** `--namespace ci`, for a flag without a default. */
  example?: string;
  /** The description, its lines joined. */
  text: string;
}

/** The help text cut at its section headings (a line at column 0 that ends with `:`). */
function sections(help: string): { lead: string[]; byHeading: Map<string, string[]> } {
  const lead: string[] = [];
  const byHeading = new Map<string, string[]>();
  let current = lead;
  for (const line of help.replace(/\n$/, '').split('\n')) {
    if (/^\S.*:$/.test(line)) {
      current = [];
      byHeading.set(line.slice(0, -1), current);
    } else {
      current.push(line);
    }
  }
  return { lead, byHeading };
}

function section(byHeading: Map<string, string[]>, prefix: string): { heading: string; lines: string[] } {
  const found = [...byHeading.entries()].find(([heading]) => heading.startsWith(prefix));
  if (found === undefined) throw new Error(`--help has no section "${prefix}...:": src/cli/help.ts and harness/cli-doc.ts disagree`);
  return { heading: found[0], lines: found[1] };
}

/** Blank-line separated paragraphs, each one line of text. */
function paragraphs(lines: readonly string[]): string[] {
  return lines
    .join('\n')
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').map((line) => line.trim()).join(' ').trim())
    .filter((block) => block !== '');
}

/** The flags section: a heading line per flag, its text indented below, `(env …; …)` last. */
export function parseFlags(lines: readonly string[]): FlagEntry[] {
  const entries: FlagEntry[] = [];
  for (const line of lines) {
    if (/^ {2}-/.test(line)) {
      const usage = line.trim();
      const flag = /(--[\w-]+)/.exec(usage)?.[1];
      if (flag === undefined) throw new Error(`--help: no flag name in "${usage}"`);
      entries.push({ usage, flag, text: '' });
      continue;
    }
    const entry = entries.at(-1);
    if (entry === undefined || line.trim() === '') continue;
    const env = /^\(env (TRGC_\w+); (?:default: (.*)|e\.g\. (.*))\)$/.exec(line.trim());
    if (env !== null) {
      entry.variable = env[1];
      if (env[2] !== undefined) entry.defaultValue = env[2];
      if (env[3] !== undefined) entry.example = env[3];
    } else {
      entry.text = `${entry.text} ${line.trim()}`.trim();
    }
  }
  return entries;
}

/** Text shown as written: Markdown's own characters escaped, outside `code` spans. */
function escapeText(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/[\\*_<>[\]|#]/g, (char) => `\\${char}`)))
    .join('');
}

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** The commands' paragraphs: each starts with the command's name, shown as code. */
function commandParagraph(paragraph: string): string {
  const match = /^(run|explain|apply)\b(.*)$/.exec(paragraph);
  return match === null ? escapeText(paragraph) : `${code(match[1] ?? '')}${escapeText(match[2] ?? '')}`;
}

/** docs/cli.md's text for a --help text; pure. */
export function cliDoc(help: string): string {
  const { lead, byHeading } = sections(help);
  const usage = section(byHeading, 'Usage');
  const usageLines = usage.lines.filter((line) => /^ {2}tekton-resource-gc\b/.test(line)).map((line) => line.trim());
  const usageProse = usage.lines.filter((line) => !/^ {2}tekton-resource-gc\b/.test(line));
  const flags = parseFlags(section(byHeading, 'Flags').lines);
  const environment = paragraphs(section(byHeading, 'Environment').lines);
  const labels = section(byHeading, 'Labels and annotations');
  const exits = section(byHeading, 'Exit status').lines.flatMap((line) => {
    const match = /^\s+(\d)\s+(.*)$/.exec(line);
    return match === null ? [] : [`| ${match[1] ?? ''} | ${escapeText(match[2] ?? '')} |`];
  });
  const examples = section(byHeading, 'Examples').lines.map((line) => line.replace(/^ {2}/, ''));

  const table = flags.map((entry) => {
    const shown = entry.defaultValue !== undefined ? code(entry.defaultValue) : entry.variable === undefined ? '' : '–';
    return `| [${code(entry.usage)}](#${anchor(entry.usage)}) | ${entry.variable === undefined ? '' : code(entry.variable)} | ${shown} |`;
  });
  const details = flags.map((entry) => {
    const facts = [
      ...(entry.variable === undefined ? [] : [`Variable: ${code(entry.variable)}.`]),
      ...(entry.defaultValue === undefined ? [] : [`Default: ${code(entry.defaultValue)}.`]),
      ...(entry.example === undefined ? [] : [`Example: ${code(entry.example)}.`]),
    ];
    return [`### ${code(entry.usage)}`, '', escapeText(entry.text), ...(facts.length === 0 ? [] : ['', facts.join(' ')])].join('\n');
  });

  return `# Command line

<!-- Written by \`npm run docs:cli\` from \`tekton-resource-gc --help\` (src/cli/help.ts, its flags from src/cli/flags.ts): edit those, not this file. -->

${paragraphs(lead).map(escapeText).join('\n\n')}

This page is its \`--help\`, laid out. [spec.md](spec.md) says what the rules mean,
[reports.md](reports.md) what a pass prints, [operations.md](operations.md) how to run it
unattended, and [plans.md](plans.md) how \`apply\` deletes from a reviewed plan.

## Usage

\`\`\`text
${usageLines.join('\n')}
\`\`\`

${paragraphs(usageProse).map(commandParagraph).join('\n\n')}

## Flags

| flag | variable | default |
|---|---|---|
${table.join('\n')}

${details.join('\n\n')}

## Environment

${environment.map(escapeText).join('\n\n')}

## ${escapeText(labels.heading.replace(/ \(.*\)$/, ''))}
${/ \((.*)\)$/.test(labels.heading) ? `\n${escapeText(capitalized(/ \((.*)\)$/.exec(labels.heading)?.[1] ?? ''))}.\n` : ''}
\`\`\`text
${labels.lines.map((line) => line.replace(/^ {2}/, '')).join('\n').trim()}
\`\`\`

## Exit status

| code | meaning |
|---|---|
${exits.join('\n')}

What each means for an operator, and what to do: [operations.md](operations.md#troubleshooting-by-exit-code).

## Examples

\`\`\`sh
${examples.join('\n').trim()}
\`\`\`
`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The anchor GitHub gives a heading that is one code span: lower case, punctuation but `-` dropped, spaces as `-`. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The page the help text makes now. */
export function currentCliDoc(): string {
  return cliDoc(helpText());
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = currentCliDoc();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(CLI_DOC, 'utf8');
    } catch {
      // No page yet: not current.
    }
    if (committed !== text) {
      process.stderr.write('docs/cli.md is not current: run npm run docs:cli\n');
      process.exitCode = 1;
    }
  } else {
    writeFileSync(CLI_DOC, text);
    process.stdout.write(`wrote ${path.relative(process.cwd(), CLI_DOC)}\n`);
  }
}

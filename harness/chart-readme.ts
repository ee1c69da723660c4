// chart/README.md from chart/Chart.yaml, values.yaml's `# --` comments and the types of
// values.schema.json, as helm-docs writes such READMEs: `npm run chart:readme` writes it,
// `npm run chart:readme -- --check` fails when it is not current, and
// test/unit/chart-values.test.ts checks the committed one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHART_DIR = path.join(ROOT, 'chart');

/** Where the release workflow pushes the chart (.github/workflows/release.yml's CHART_REPOSITORY). */
export const CHART_REPOSITORY = 'oci://ghcr.io/tekton-resource-gc/charts';

/** One documented value: its dotted key, its default, and its `# --` comment. */
export interface ValueDoc {
  key: string;
  value: unknown;
  description: string;
}

interface Schema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
}

interface ChartMetadata {
  name: string;
  description: string;
  version: string;
  appVersion: string;
  kubeVersion: string;
  home: string;
}

/**
 * The documented values in file order: each top-level key with a `# --` comment right
 * above it, and, under a top-level key without one (a group such as `image`), each of its
 * keys with one (`image.tag`).
 */
export function documentedValues(valuesText: string): ValueDoc[] {
  const values = yaml.load(valuesText) as Record<string, unknown>;
  const docs: ValueDoc[] = [];
  let group: string | undefined;
  let comment: string[] | undefined;
  for (const line of valuesText.split('\n')) {
    const text = line.trim();
    // `# -- ` starts a value's comment; `# --set` within one does not.
    if (/^# --(\s|$)/.test(text)) {
      comment = [text.slice('# --'.length).trim()];
      continue;
    }
    if (text.startsWith('#')) {
      comment?.push(text.replace(/^#\s?/, ''));
      continue;
    }
    const key = /^( {0,2})([A-Za-z]\w*):/.exec(line);
    if (key !== null) {
      const [, indent = '', name = ''] = key;
      if (indent === '') {
        group = comment === undefined ? name : undefined;
        if (comment !== undefined) docs.push({ key: name, value: values[name], description: comment.join(' ') });
      } else if (group !== undefined && comment !== undefined) {
        docs.push({ key: `${group}.${name}`, value: (values[group] as Record<string, unknown>)[name], description: comment.join(' ') });
      }
    }
    // A comment documents only the key right below it.
    comment = undefined;
  }
  return docs;
}

/** The value's type as the schema gives it (`integer or null`), else as its default shows it. */
function typeOf(schema: Schema, key: string, value: unknown): string {
  const resolve = (entry: Schema | undefined): Schema | undefined =>
    entry?.$ref === undefined ? entry : resolve(schema.definitions?.[entry.$ref.replace('#/definitions/', '')]);
  let entry: Schema | undefined = schema;
  for (const part of key.split('.')) entry = resolve(resolve(entry)?.properties?.[part]);
  const names: Record<string, string> = { integer: 'int', number: 'number', string: 'string', boolean: 'bool', array: 'list', object: 'object', null: 'null' };
  const types = entry?.type === undefined ? [] : Array.isArray(entry.type) ? entry.type : [entry.type];
  if (types.length > 0) return types.map((type) => names[type] ?? type).join(' or ');
  return Array.isArray(value) ? 'list' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value;
}

/** A table cell: pipes escaped, so that a description's `a | b` stays in its column. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** chart/README.md's text; pure. */
export function chartReadme(chartText: string, valuesText: string, schemaText: string): string {
  const chart = yaml.load(chartText) as ChartMetadata;
  const schema = JSON.parse(schemaText) as Schema;
  const reference = `${CHART_REPOSITORY}/${chart.name}`;
  const rows = documentedValues(valuesText).map(
    (doc) => `| \`${doc.key}\` | ${typeOf(schema, doc.key, doc.value)} | \`${cell(JSON.stringify(doc.value ?? null))}\` | ${cell(doc.description)} |`,
  );
  return `# ${chart.name}

<!-- Written by \`npm run chart:readme\` from Chart.yaml, values.yaml and values.schema.json: edit those, not this file. -->

${chart.description}

Chart ${chart.version}, collector ${chart.appVersion}, Kubernetes ${chart.kubeVersion.replace(/-0$/, '')}. Source, rules and reports: ${chart.home}#readme.

## Install

Until \`dryRun\` is false each pass only reports what it would delete. \`helm test\` makes
one such pass now, with the release's ServiceAccount and settings, and prints its report.

\`\`\`sh
helm install tekton-resource-gc ${reference} --version ${chart.version} \\
  --namespace tekton-resource-gc --create-namespace
helm test tekton-resource-gc --namespace tekton-resource-gc --logs
\`\`\`

Go live once a report holds what you expect. \`--reset-then-reuse-values\` (Helm 3.14 or
later) keeps the values you set and takes the chart's defaults for the others; with an
older Helm, pass your values file instead.

\`\`\`sh
helm upgrade tekton-resource-gc ${reference} --version ${chart.version} \\
  --namespace tekton-resource-gc --reset-then-reuse-values --set dryRun=false
\`\`\`

On OpenShift, leave the uid and gid to the restricted-v2 SecurityContextConstraints:
\`--set podSecurityContext.runAsUser=null --set podSecurityContext.runAsGroup=null\`.

## Values

\`values.schema.json\` refuses a wrong type, an unknown key or an invalid choice at
install time.

| Key | Type | Default | Description |
|---|---|---|---|
${rows.join('\n')}
`;
}

/** The README the chart's files make now. */
export function currentChartReadme(): string {
  const read = (file: string): string => readFileSync(path.join(CHART_DIR, file), 'utf8');
  return chartReadme(read('Chart.yaml'), read('values.yaml'), read('values.schema.json'));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(CHART_DIR, 'README.md');
  const text = currentChartReadme();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      // No README yet: not current.
    }
    if (committed !== text) {
      process.stderr.write('chart/README.md is not current: run npm run chart:readme\n');
      process.exitCode = 1;
    }
  } else {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  }
}

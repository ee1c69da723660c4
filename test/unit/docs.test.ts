/**
 * The user docs hold together: docs/cli.md is what --help says now, every relative link and
 * #anchor in README.md and docs/ leads somewhere, every test that docs/safety.md names
 * exists, the README stays short with the quick start of docs/install.md, and nothing in
 * the repository names a file that is not in it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { cliDoc, currentCliDoc, parseFlags } from '../../harness/cli-doc.js';
import { FLAG_NAMES, envVarName } from '../../src/cli/config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** README.md and every Markdown file in docs/, as paths from the root. */
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

/** The text outside fenced code blocks (``` or longer fences), line by line; code lines blank. */
function outsideFences(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (opening !== undefined) {
        fence = opening;
        return '';
      }
      return line;
    }
    if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = undefined;
    return '';
  });
}

/** The anchor GitHub gives a heading: its text, lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file's headings give, repeated ones numbered as GitHub numbers them. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of outsideFences(text)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The destinations of a file's inline links and images, outside code. */
function linksOf(text: string): string[] {
  return outsideFences(text).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? ''),
  );
}

/** What is wrong with one link of `file`, or undefined when it leads somewhere. */
function brokenLink(file: string, link: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return undefined; // https:, mailto:: not ours to check here
  const [target = '', anchor] = link.split('#', 2);
  const resolved = target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURI(target));
  if (path.relative(ROOT, resolved).startsWith('..')) return `${link} leaves the repository`;
  if (!existsSync(resolved)) return `${link}: no such file`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return `${link}: an anchor into a file that has no headings`;
  return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `${link}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`;
}

describe('docs/cli.md', () => {
  it('is what npm run docs:cli writes from --help now', () => {
    const committed = read('docs/cli.md').split('\n');
    const current = currentCliDoc().split('\n');
    const first = current.findIndex((line, index) => committed[index] !== line);
    const at = first < 0 && committed.length !== current.length ? current.length : first;
    assert.equal(at, -1, `docs/cli.md is not current (line ${at + 1}: has ${JSON.stringify(committed[at])}, --help makes ${JSON.stringify(current[at])}): run npm run docs:cli`);
  });

  it('lists every flag with its variable, in a row and a section of its own', () => {
    const page = read('docs/cli.md');
    const missing = FLAG_NAMES.filter((flag) => {
      const row = new RegExp(`^\\| \\[\`--${flag}(?: [^\`]+)?\`\\]\\(#[^)]+\\) \\| \`${envVarName(flag)}\` \\| .+ \\|$`, 'm');
      const heading = new RegExp(`^### \`--${flag}(?: [^\`]+)?\`$`, 'm');
      return !row.test(page) || !heading.test(page);
    });
    assert.deepEqual(missing, []);
  });

  it('reads each flag of --help with its variable and its default or example, and escapes Markdown outside code', () => {
    const help = [
      'tool: does things.',
      '',
      'Usage:',
      '  tekton-resource-gc [run] [flags]',
      '',
      '  run makes one pass.',
      '',
      'Flags:',
      '  --min-age DURATION',
      '      Keep <prefix>/x younger',
      '      than this; `code *stays*`.',
      '      (env TRGC_MIN_AGE; default: 1h)',
      '  --namespace NAME',
      '      Only here.',
      '      (env TRGC_NAMESPACE; e.g. --namespace ci)',
      '  --version',
      '      Print the version.',
      '',
      'Environment:',
      '  TRGC_ variables.',
      '',
      'Labels and annotations on a PipelineResource:',
      '  <prefix>/retain: "true"   keep it',
      '',
      'Exit status:',
      '  0  fine',
      '',
      'Examples:',
      '  tekton-resource-gc --dry-run',
      '',
    ].join('\n');
    const flagsStart = help.split('\n').indexOf('Flags:') + 1;
    assert.deepEqual(parseFlags(help.split('\n').slice(flagsStart, flagsStart + 9)), [
      { usage: '--min-age DURATION', flag: '--min-age', variable: 'TRGC_MIN_AGE', defaultValue: '1h', text: 'Keep <prefix>/x younger than this; `code *stays*`.' },
      { usage: '--namespace NAME', flag: '--namespace', variable: 'TRGC_NAMESPACE', example: '--namespace ci', text: 'Only here.' },
      { usage: '--version', flag: '--version', text: 'Print the version.' },
    ]);
    const page = cliDoc(help);
    assert.ok(page.includes('Keep \\<prefix\\>/x younger than this; `code *stays*`.'), page);
    assert.ok(page.includes('| [`--min-age DURATION`](#--min-age-duration) | `TRGC_MIN_AGE` | `1h` |'), page);
    assert.ok(page.includes('Variable: `TRGC_NAMESPACE`. Example: `--namespace ci`.'), page);
    assert.ok(page.includes('| 0 | fine |'), page);
    assert.throws(() => cliDoc(help.replace('Exit status:', 'Exits:')), /no section "Exit status\.\.\.:"/);
  });
});

describe('links between the docs', () => {
  it('every relative link and #anchor in README.md and docs/*.md leads to a file and heading in the repository', () => {
    const broken = DOCS.flatMap((file) => linksOf(read(file)).flatMap((link) => {
      const problem = brokenLink(file, link);
      return problem === undefined ? [] : [`${file}: ${problem}`];
    }));
    assert.deepEqual(broken, []);
  });

  it('every doc in docs/ is reachable from the README', () => {
    const linked = new Set(linksOf(read('README.md')).map((link) => link.split('#')[0]));
    const unlinked = readdirSync(path.join(ROOT, 'docs')).filter((name) => !linked.has(`docs/${name}`));
    assert.deepEqual(unlinked, []);
  });

  it('the link checker finds what is broken: a missing file, a missing heading, a way out of the repository, and not a link inside code', () => {
    assert.equal(brokenLink('docs/spec.md', 'safety.md#stopping'), undefined);
    assert.equal(brokenLink('README.md', '#quick-start'), undefined);
    assert.match(brokenLink('docs/spec.md', 'nowhere.md') ?? '', /no such file/);
    assert.match(brokenLink('docs/spec.md', 'safety.md#no-such-heading') ?? '', /no heading #no-such-heading/);
    assert.match(brokenLink('docs/spec.md', '../../outside.md') ?? '', /leaves the repository/);
    assert.deepEqual(linksOf('see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](d.md#x)'), ['a.md', 'd.md#x']);
    assert.deepEqual(
      [...anchorsOf('# A: `b` and --c\n## Why\n## Why\n```\n## In code\n```\n### `-h, --help`')],
      ['a-b-and---c', 'why', 'why-1', '-h---help'],
    );
  });
});

describe('docs/safety.md', () => {
  /** `file › *name*, *name*` references in the last cell of each table row; "…" elides part of a name. */
  function references(): { file: string; name: string }[] {
    return read('docs/safety.md')
      .split('\n')
      .filter((line) => line.startsWith('| ') && line.includes('›'))
      .flatMap((line) => {
        const cell = line.slice(line.lastIndexOf(' | ') + 3);
        return cell.split(/;\s*/).flatMap((part) => {
          const file = /`([^`]+\.test\.ts)`/.exec(part)?.[1];
          const after = part.split('›')[1];
          if (file === undefined || after === undefined) return file === undefined ? [] : [{ file, name: '' }];
          return [...after.matchAll(/\*([^*]+)\*/g)].map((match) => ({ file, name: match[1] ?? '' }));
        });
      });
  }

  it('names each test file by its path from the root, and each test by words that its file holds on one line', () => {
    const refs = references();
    assert.ok(refs.length >= 40, `${refs.length} references`);
    const missing = refs.filter(({ file, name }) => {
      if (!file.startsWith('test/') || !existsSync(path.join(ROOT, file))) return true;
      const fragments = name.split('…').map((fragment) => fragment.trim()).filter((fragment) => fragment !== '');
      return !read(file).split('\n').some((line) => fragments.every((fragment) => line.includes(fragment)));
    });
    assert.deepEqual(missing, []);
  });
});

describe('README.md', () => {
  const README = read('README.md');

  it('is under 300 lines', () => {
    assert.ok(README.split('\n').length < 300, `${README.split('\n').length} lines`);
  });

  it("its quick start is docs/install.md's: the same install, report and go-live commands", () => {
    const commands = (text: string): string[] =>
      [...text.matchAll(/^(helm (?:install|upgrade) .*(?:\\\n.*)*|kubectl (?:create job|logs) .*)$/gm)].map((match) => match[1] ?? '');
    const quickStart = (text: string, heading: string): string => {
      const start = text.indexOf(`\n## ${heading}\n`);
      assert.ok(start >= 0, `## ${heading}`);
      const end = text.indexOf('\n## ', start + 1);
      return text.slice(start, end < 0 ? text.length : end);
    };
    const ours = commands(quickStart(README, 'Quick start'));
    assert.equal(ours.length, 4, ours.join('\n'));
    assert.deepEqual(ours, commands(quickStart(read('docs/install.md'), 'Quick start')));
  });
});

describe('the repository stands alone', () => {
  // Files that were never in the repository, named in pieces so that this test does not name them.
  const OUTSIDE = new RegExp(['SPEC', 'SPEC-LEFTOVERS', 'CONTROL' + 'PLANE', 'TEK' + 'TON', 'STY' + 'LE'].map((name) => `\\b${name}\\.md\\b`).join('|') + '|\\bshared/');
  const SKIP = new Set(['node_modules', 'dist', '.git']);

  function files(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : files(relative);
      return /\.(ts|md|ya?ml|json|tpl|txt)$/.test(entry.name) || entry.name === 'Dockerfile' ? [relative] : [];
    });
  }

  it('no source, test, chart or doc names a file outside the repository', () => {
    const named = [...['src', 'test', 'harness', 'bench', 'demo', 'docs', 'chart', '.github'].flatMap(files), 'README.md', 'Dockerfile']
      .filter((file) => existsSync(path.join(ROOT, file)))
      .flatMap((file) => read(file).split('\n').flatMap((line, index) => (OUTSIDE.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])));
    assert.deepEqual(named, []);
  });
});

// --report-file (src/ops/reportfile.ts) on the real filesystem, in a temporary directory.
//
// A rename that cannot replace its destination is made two ways. For real: a file
// bind-mounted onto another (what a Kubernetes subPath or ConfigMap file is) refuses a
// rename with EBUSY, and a read-only directory around such a file takes no temporary file;
// both need a mount namespace (`unshare -rm`, a user namespace mapped to root), and are
// skipped, saying so, where the system does not allow one. Everywhere: the rename function
// is replaced by one that fails with the code the kernel gives (EBUSY, EXDEV, EPERM), since
// a rename between two names of one directory cannot be made to fail so on an ordinary
// filesystem.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { replaceFile, writeReportFile, type ReportFileSystem } from '../../src/ops/reportfile.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const root = mkdtempSync(join(tmpdir(), 'trgc-reportfile-'));
after(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
/** A new directory holding `files` (name -> content); returns its path. */
function dirWith(files: Record<string, string> = {}): string {
  const dir = join(root, String(counter++));
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const REPORT = ['# report\n', 'line 2\n', 'é and the end\n'];
const WHOLE = REPORT.join('');

/** No `<file>.partial-<pid>` stays behind. */
function assertNoPartial(dir: string): void {
  assert.deepEqual(readdirSync(dir).filter((name) => name.includes('.partial-')), []);
}

function refusingRename(code: string): ReportFileSystem & { calls: number } {
  const fs = {
    calls: 0,
    rename: (from: string, to: string): Promise<void> => {
      fs.calls++;
      return Promise.reject(Object.assign(new Error(`${code}: rename '${from}' -> '${to}'`), { code }));
    },
  };
  return fs;
}

describe('replaceFile', () => {
  test('writes the report whole over the old one, and leaves no temporary file', async () => {
    const dir = dirWith({ 'gc.md': 'old report, longer than the new one '.repeat(10) });
    await replaceFile(join(dir, 'gc.md'), REPORT);
    assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), WHOLE);
    assertNoPartial(dir);
  });

  test('creates the file when there is none', async () => {
    const dir = dirWith();
    await replaceFile(join(dir, 'gc.md'), REPORT);
    assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), WHOLE);
  });

  test('a symlink stays a link: the file it names is replaced, through a chain of links and relative targets', async () => {
    const reports = dirWith({ 'real.md': 'old' });
    const links = dirWith();
    // links/latest.md -> current.md -> ../<reports>/real.md
    symlinkSync(relative(links, join(reports, 'real.md')), join(links, 'current.md'));
    symlinkSync('current.md', join(links, 'latest.md'));
    await replaceFile(join(links, 'latest.md'), REPORT);
    assert.ok(lstatSync(join(links, 'latest.md')).isSymbolicLink(), 'latest.md is still a link');
    assert.ok(lstatSync(join(links, 'current.md')).isSymbolicLink(), 'current.md is still a link');
    assert.equal(readlinkSync(join(links, 'latest.md')), 'current.md');
    assert.equal(readFileSync(join(reports, 'real.md'), 'utf8'), WHOLE);
    assertNoPartial(links);
    assertNoPartial(reports);
  });

  test('a link to a file not there yet: that file is created, and the link stays', async () => {
    const dir = dirWith();
    symlinkSync('report.md', join(dir, 'link.md'));
    await replaceFile(join(dir, 'link.md'), REPORT);
    assert.ok(lstatSync(join(dir, 'link.md')).isSymbolicLink());
    assert.equal(readFileSync(join(dir, 'report.md'), 'utf8'), WHOLE);
  });

  test('links that loop are an error, not a hang', async () => {
    const dir = dirWith();
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    await assert.rejects(replaceFile(join(dir, 'a'), REPORT), /more than 40 symbolic links/);
  });

  for (const code of ['EBUSY', 'EXDEV', 'EPERM']) {
    test(`a rename refused with ${code}: the file is written in place (same inode), from the flushed temporary copy, which is then removed`, async () => {
      const dir = dirWith({ 'gc.md': 'old report, longer than the new one '.repeat(10) });
      const inode = statSync(join(dir, 'gc.md')).ino;
      const fs = refusingRename(code);
      await replaceFile(join(dir, 'gc.md'), REPORT, fs);
      assert.equal(fs.calls, 1);
      assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), WHOLE, 'truncated, then written');
      assert.equal(statSync(join(dir, 'gc.md')).ino, inode);
      assertNoPartial(dir);
    });
  }

  test('a rename refused for another reason fails, and removes the temporary file', async () => {
    const dir = dirWith({ 'gc.md': 'old' });
    await assert.rejects(replaceFile(join(dir, 'gc.md'), REPORT, refusingRename('EIO')), /EIO/);
    assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), 'old');
    assertNoPartial(dir);
  });

  test('a directory where the file should be: the rename fails (EISDIR), the temporary file is removed, the directory is left alone', async () => {
    const dir = dirWith();
    mkdirSync(join(dir, 'gc.md'));
    writeFileSync(join(dir, 'gc.md', 'inside'), 'x');
    await assert.rejects(replaceFile(join(dir, 'gc.md'), REPORT), (error: NodeJS.ErrnoException) => error.code === 'EISDIR' || error.code === 'ENOTEMPTY');
    assert.deepEqual(readdirSync(join(dir, 'gc.md')), ['inside']);
    assertNoPartial(dir);
  });

  test('a report that fails while it is rendered leaves the old one whole and no temporary file', async () => {
    const dir = dirWith({ 'gc.md': 'old' });
    function* failing(): Generator<string> {
      yield 'half a report';
      throw new Error('render failed');
    }
    await assert.rejects(replaceFile(join(dir, 'gc.md'), failing()), /render failed/);
    assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), 'old');
    assertNoPartial(dir);
  });

  test('a directory that does not exist is an error naming the path', async () => {
    const dir = dirWith();
    await assert.rejects(replaceFile(join(dir, 'missing', 'gc.md'), REPORT), (error: NodeJS.ErrnoException) => error.code === 'ENOENT' && error.message.includes(join(dir, 'missing')));
  });
});

describe('writeReportFile', () => {
  test('logs a failure with the file and returns false', async () => {
    const dir = dirWith();
    const errors: unknown[] = [];
    const log = { error: (fields: unknown, message: string) => errors.push([fields, message]) } as unknown as Parameters<typeof writeReportFile>[2];
    assert.equal(await writeReportFile(join(dir, 'missing', 'gc.md'), REPORT, log), false);
    assert.equal(errors.length, 1);
    assert.deepEqual((errors[0] as [Record<string, unknown>, string])[1], 'could not write the report file');
    assert.equal((errors[0] as [Record<string, unknown>, string])[0]['file'], join(dir, 'missing', 'gc.md'));
    assert.equal(await writeReportFile(join(dir, 'gc.md'), REPORT, log), true);
  });
});

// ---- single-file mounts, for real ----

const UNSHARE = spawnSync('unshare', ['-rm', 'true']).status === 0;
const NO_UNSHARE = UNSHARE ? false : 'needs a mount namespace (unshare -rm), which this system does not allow';

/**
 * Runs replaceFile on `file` in a new mount namespace after `mounts` (shell commands), as
 * a pod sees a volume mounted by subPath. The mounts end with the namespace; what was
 * written through them stays in the files they bound.
 */
function replaceInNamespace(mounts: string, file: string): { status: number | null; stderr: string } {
  const code = `const { replaceFile } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/ops/reportfile.ts')).href)}); await replaceFile(process.argv[1], ${JSON.stringify(REPORT)});`;
  const script = `${mounts} && exec "$0" --import tsx --input-type=module -e "$1" "$2"`;
  const result = spawnSync('unshare', ['-rm', 'sh', '-c', script, process.execPath, code, file], { cwd: ROOT, encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

describe('a file mounted on its own (a subPath or ConfigMap file)', () => {
  test('rename onto it fails with EBUSY: the report is written into the mounted file', { skip: NO_UNSHARE }, () => {
    const dir = dirWith({ 'gc.md': 'what the image holds', 'volume-file.md': 'old report, longer than the new one '.repeat(10) });
    const result = replaceInNamespace(`mount --bind '${join(dir, 'volume-file.md')}' '${join(dir, 'gc.md')}'`, join(dir, 'gc.md'));
    assert.equal(result.status, 0, result.stderr);
    // Written through the mount into the volume's file; the file under the mount point is untouched.
    assert.equal(readFileSync(join(dir, 'volume-file.md'), 'utf8'), WHOLE);
    assert.equal(readFileSync(join(dir, 'gc.md'), 'utf8'), 'what the image holds');
    assertNoPartial(dir);
  });

  test('in a read-only directory (readOnlyRootFilesystem) no temporary file can be made: the report is written into the mounted file', { skip: NO_UNSHARE }, () => {
    const dir = dirWith({ 'volume-file.md': 'old' });
    const image = join(dir, 'image');
    mkdirSync(image);
    writeFileSync(join(image, 'gc.md'), 'what the image holds');
    const mounts = [`mount --bind '${image}' '${image}'`, `mount -o remount,bind,ro '${image}'`, `mount --bind '${join(dir, 'volume-file.md')}' '${join(image, 'gc.md')}'`].join(' && ');
    const result = replaceInNamespace(mounts, join(image, 'gc.md'));
    assert.equal(result.status, 0, result.stderr);
    assert.equal(readFileSync(join(dir, 'volume-file.md'), 'utf8'), WHOLE);
    assertNoPartial(image);
  });
});

/**
 * `--report-file`: the report written so that a reader sees the old report or the new one,
 * through a symlink, and onto a file mounted on its own.
 *
 * Choices (written down for users in docs/reports.md):
 * - The path is resolved first: a symlink, or a chain of them, is followed to the file it
 *   names, and that file is replaced; the link stays a link. A link to a file that does not
 *   exist yet creates that file.
 * - The report is written to `<file>.partial-<pid>` beside that file, flushed to disk
 *   (fsync), and renamed over it; then the directory is flushed, where the platform allows,
 *   so that the rename itself survives a crash.
 * - Where a rename cannot replace the file, it is written in place (truncated, written,
 *   flushed) from that temporary copy: a file mounted on its own (EBUSY: a Kubernetes
 *   `subPath` or ConfigMap file, a single-file bind mount), another filesystem (EXDEV), a
 *   mount point the rename may not touch (EPERM). So is an existing file whose directory
 *   takes no new file (EROFS, EACCES, EPERM: a read-only root filesystem around a mounted
 *   file). A reader may then see a report partly written.
 * - On any failure the temporary file is removed and the error is logged; the caller decides
 *   the exit status.
 */
import { constants, createReadStream } from 'node:fs';
import { lstat, open, readlink, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Logger } from './log.js';

/** The calls a test may replace to stand for a filesystem that refuses them. */
export interface ReportFileSystem {
  rename(from: string, to: string): Promise<void>;
}

const NODE_FILE_SYSTEM: ReportFileSystem = { rename };

/** A rename that cannot replace this file, though writing into it may work. */
const RENAME_CANNOT_REPLACE = new Set(['EBUSY', 'EXDEV', 'EPERM']);
/** A directory that takes no new file, though a file in it may be writable. */
const DIRECTORY_TAKES_NO_FILE = new Set(['EROFS', 'EACCES', 'EPERM']);
/** Linux follows at most 40 links in one path (MAXSYMLINKS). */
const MAX_LINKS = 40;

/** Writes the report, logging a failure; false when the file could not be written. */
export async function writeReportFile(file: string, chunks: Iterable<string>, log: Logger): Promise<boolean> {
  try {
    await replaceFile(file, chunks);
    return true;
  } catch (error) {
    log.error({ err: error instanceof Error ? error.message : String(error), file }, 'could not write the report file');
    return false;
  }
}

/** Replaces the file `file` names (through any symlinks) with `chunks`, whole or not at all where rename can do it. */
export async function replaceFile(file: string, chunks: Iterable<string>, fs: ReportFileSystem = NODE_FILE_SYSTEM): Promise<void> {
  const destination = await resolveLinks(file);
  const partial = `${destination}.partial-${process.pid}`;
  let handle: FileHandle;
  try {
    handle = await open(partial, 'w');
  } catch (error) {
    if (!(hasCode(error, DIRECTORY_TAKES_NO_FILE) && (await isFile(destination)))) throw error;
    await writeInPlace(destination, chunks);
    return;
  }
  try {
    try {
      await writeAll(handle, chunks);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameOrWriteInPlace(partial, destination, fs);
  } finally {
    // Renamed, it is gone already; otherwise the old report stays as it was, or was written in place.
    await rm(partial, { force: true }).catch(() => undefined);
  }
}

async function renameOrWriteInPlace(partial: string, destination: string, fs: ReportFileSystem): Promise<void> {
  try {
    await fs.rename(partial, destination);
  } catch (error) {
    if (!hasCode(error, RENAME_CANNOT_REPLACE)) throw error;
    await writeInPlace(destination, createReadStream(partial));
    return;
  }
  await syncDirectory(dirname(destination));
}

/** The file a path names: each symlink of its last component followed, relative to the link's directory. */
async function resolveLinks(file: string): Promise<string> {
  let path = resolve(file);
  for (let followed = 0; followed <= MAX_LINKS; followed++) {
    const stats = await lstat(path).catch((error: unknown) => {
      if (hasCode(error, new Set(['ENOENT']))) return undefined;
      throw error;
    });
    if (stats === undefined || !stats.isSymbolicLink()) return path;
    path = resolve(dirname(path), await readlink(path));
  }
  throw Object.assign(new Error(`${file}: more than ${MAX_LINKS} symbolic links to follow`), { code: 'ELOOP' });
}

/** Truncates an existing file and writes it; never creates one (a missing mount is an error, not a new file). */
async function writeInPlace(file: string, content: Iterable<string> | AsyncIterable<Uint8Array>): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_TRUNC);
  try {
    await writeAll(handle, content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Each piece written whole (writeFile loops over short writes), one after the other, from where the handle stands. */
async function writeAll(handle: FileHandle, content: Iterable<string> | AsyncIterable<Uint8Array>): Promise<void> {
  for await (const chunk of content) await handle.writeFile(chunk);
}

/** Makes a rename in `directory` durable; some platforms and filesystems cannot sync a directory, and that is all right. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r').catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL or EISDIR where directories cannot be synced: the rename is done, only not yet durable.
  } finally {
    await handle.close();
  }
}

async function isFile(path: string): Promise<boolean> {
  return lstat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

function hasCode(error: unknown, codes: ReadonlySet<string>): boolean {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && codes.has(error.code);
}

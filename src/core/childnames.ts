/**
 * The names Tekton gives the runs a PipelineRun makes, and which PipelineRuns a run's name may
 * be a child's of (docs/spec.md, "Reruns by name"). Pure.
 *
 * A pipeline task's TaskRun, or child PipelineRun, is named `kmeta.ChildName(<pipelinerun>,
 * "-<task>")`, a matrix's `-<task>-<i>` (tektoncd/pipeline
 * pkg/reconciler/pipelinerun/resources/pipelinerunresolution.go:900-907, :937-961), and its
 * taskRef is resolved under that name (pkg/reconciler/pipelinerun/pipelinerun.go:415-436), as
 * the child's StepActions and its own taskRef are (pkg/reconciler/taskrun/resources/taskref.go:74,
 * :150-155). A rerun by name of the PipelineRun makes a child of the same name, which finds the
 * requests its predecessor's child left. The task's name is not known here (the pipeline may not
 * be resolved yet), so a name is matched to a parent by what the parent fixes in it.
 */
import { createHash } from 'node:crypto';

/** The longest name ChildName makes: a DNS-1123 label. */
const LONGEST = 63;
/** An md5 in hex. */
const MD5_HEX = 32;
/** How much of a parent ChildName keeps before a hash: LONGEST - MD5_HEX. */
const HEAD = LONGEST - MD5_HEX;
/** Hex digits that must follow a parent's head for the whole-hash form (a matrix may cut the hash short). */
const MIN_HASH_SHOWN = 16;

function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/**
 * knative.dev/pkg/kmeta ChildName (names.go:42-67): `parent + suffix` when it fits in 63; else,
 * for a suffix shorter than 31, the parent cut to `31 - len(suffix)`, the parent's md5 and the
 * suffix; else the parent's first 31 characters and the md5 of `parent + suffix`, padded with the
 * suffix's start to 63, non-alphanumerics cut from its end. Names are ASCII (DNS labels).
 */
export function childName(parent: string, suffix: string): string {
  if (parent.length <= LONGEST - suffix.length) return parent + suffix;
  if (HEAD - suffix.length > 0) return `${parent.slice(0, HEAD - suffix.length)}${md5Hex(parent)}${suffix}`;
  let name = `${parent.slice(0, HEAD)}${md5Hex(parent + suffix)}`;
  if (name.length < LONGEST) name += suffix.slice(0, LONGEST - name.length);
  return name.replace(/[^a-zA-Z0-9]+$/, '');
}

function isHex(text: string): boolean {
  return /^[0-9a-f]+$/.test(text);
}

/**
 * A set of PipelineRun names, asked which of them a run's name may be a child's of: every name
 * ChildName makes of one of them with any suffix that starts with `-` is matched to it (a few
 * others too, which only links a request to one more run, never fewer).
 */
export class ParentNames {
  private readonly names = new Set<string>();
  /** By md5: the names long enough for ChildName to hash them (over 33 characters). */
  private readonly byDigest = new Map<string, string[]>();
  /** By their first 31 characters: the names longer than that. */
  private readonly byHead = new Map<string, string[]>();

  constructor(names: Iterable<string> = []) {
    for (const name of names) this.add(name);
  }

  add(name: string): void {
    if (name === '' || this.names.has(name)) return;
    this.names.add(name);
    // The md5 form needs `len(parent) > 63 - len(suffix)` with a suffix of at most 30.
    if (name.length > LONGEST - (HEAD - 1)) append(this.byDigest, md5Hex(name), name);
    if (name.length > HEAD) append(this.byHead, name.slice(0, HEAD), name);
  }

  get size(): number {
    return this.names.size;
  }

  /** The names in the set that ChildName may have made `child` from, each once. */
  parentsOf(child: string): string[] {
    const found = new Set<string>();
    // parent + "-<task>".
    for (let at = child.indexOf('-', 1); at !== -1; at = child.indexOf('-', at + 1)) {
      const parent = child.slice(0, at);
      if (this.names.has(parent)) found.add(parent);
    }
    // parent[:31-k] + md5(parent) + a suffix of k, starting with "-".
    if (this.byDigest.size > 0) {
      for (let head = 1; head < HEAD - 1; head++) {
        if (child[head + MD5_HEX] !== '-') continue;
        for (const parent of this.byDigest.get(child.slice(head, head + MD5_HEX)) ?? []) {
          if (parent.startsWith(child.slice(0, head))) found.add(parent);
        }
      }
    }
    // parent[:31] + md5(parent + suffix), for a suffix of 31 or more.
    for (let head = 1; head <= HEAD; head++) {
      if (!isHex(child.slice(head, head + MIN_HASH_SHOWN)) || child.length < head + MIN_HASH_SHOWN) continue;
      const parent = child.slice(0, head);
      if (this.names.has(parent)) found.add(parent);
      if (head === HEAD) for (const long of this.byHead.get(parent) ?? []) found.add(long);
    }
    return [...found];
  }
}

function append(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

// node --max-old-space-size=8192 --import tsx bench/heapsummary.ts FILE.heapsnapshot [TOP]
//
// What a heap snapshot (bench/stages.ts, STAGES_HEAP_SNAPSHOT=STAGE) holds, by the bytes of
// each kind of node: a plain object by its shape (the names of its properties, so that a
// TargetRecord and a Decision are told apart where DevTools calls both "Object"), anything
// else by V8's type and name (strings by type alone: there are hundreds of thousands). Self
// sizes only, summed; the TOP largest groups (30 by default) are printed, largest first, with
// their count and average size. Read two snapshots of the same pass side by side to see what a
// stage adds.
import { readFile } from 'node:fs/promises';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, topText] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node --import tsx bench/heapsummary.ts FILE.heapsnapshot [TOP]\n');
  process.exit(2);
}
const top = Number(topText ?? 30);
const heap = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
const { meta } = heap.snapshot;
const nodeFieldCount = meta.node_fields.length;
const edgeFieldCount = meta.edge_fields.length;
const typeAt = meta.node_fields.indexOf('type');
const nameAt = meta.node_fields.indexOf('name');
const sizeAt = meta.node_fields.indexOf('self_size');
const edgeCountAt = meta.node_fields.indexOf('edge_count');
const edgeTypeAt = meta.edge_fields.indexOf('type');
const edgeNameAt = meta.edge_fields.indexOf('name_or_index');
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];

const groups = new Map<string, { count: number; bytes: number }>();
let total = 0;
let edgeIndex = 0;
for (let at = 0; at < heap.nodes.length; at += nodeFieldCount) {
  const type = nodeTypes[heap.nodes[at + typeAt] ?? 0] ?? '?';
  const name = heap.strings[heap.nodes[at + nameAt] ?? 0] ?? '?';
  const size = heap.nodes[at + sizeAt] ?? 0;
  const edgeCount = heap.nodes[at + edgeCountAt] ?? 0;
  let group: string;
  if (type === 'object' && name === 'Object') {
    const properties: string[] = [];
    for (let edge = edgeIndex; edge < edgeIndex + edgeCount * edgeFieldCount; edge += edgeFieldCount) {
      if (edgeTypes[heap.edges[edge + edgeTypeAt] ?? 0] === 'property') properties.push(heap.strings[heap.edges[edge + edgeNameAt] ?? 0] ?? '?');
    }
    group = `{${properties.filter((property) => property !== '__proto__' && property !== 'map').join(',')}}`;
  } else if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
    group = type;
  } else {
    group = `${type} ${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
  }
  edgeIndex += edgeCount * edgeFieldCount;
  const entry = groups.get(group) ?? { count: 0, bytes: 0 };
  entry.count += 1;
  entry.bytes += size;
  groups.set(group, entry);
  total += size;
}

const MB = 1e6;
process.stdout.write(`${file}: ${(total / MB).toFixed(1)} MB in ${heap.nodes.length / nodeFieldCount} nodes\n`);
for (const [group, { count, bytes }] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  process.stdout.write(`${(bytes / MB).toFixed(1).padStart(7)} MB ${String(count).padStart(9)} × ${Math.round(bytes / count).toString().padStart(5)} B  ${group.length > 160 ? `${group.slice(0, 160)}…` : group}\n`);
}

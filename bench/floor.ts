// node --import tsx bench/floor.ts SERVER TOKEN PAGE_SIZE [REACH]
// The read floor in a process of its own (a fresh heap, like the collector's), timed from its
// first request to its last parse; one JSON line on stdout. bench.ts runs it. REACH is a
// FloorReach as JSON (measure.ts): which collections, and the runs of which namespaces.
import { readFloor, type FloorReach } from './measure.js';
import { RawApi } from './seed.js';

const [server, token, pageSize, reach = '{}'] = process.argv.slice(2);
if (server === undefined || token === undefined || pageSize === undefined) {
  process.stderr.write('usage: node --import tsx bench/floor.ts SERVER TOKEN PAGE_SIZE [REACH]\n');
  process.exitCode = 2;
} else {
  const api = new RawApi(server, token, 1);
  try {
    process.stdout.write(`${JSON.stringify(await readFloor(api, Number(pageSize), JSON.parse(reach) as FloorReach))}\n`);
  } finally {
    api.close();
  }
}

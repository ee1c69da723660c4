/**
 * How the first read of a pass lists what it wants: one namespace at a time, or one list
 * across the cluster (kube/cluster.ts readsPerNamespace, the share measured by
 * `npm run bench -- --shape skew --crossover`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PER_NAMESPACE_READ_SHARE, readsPerNamespace } from '../../src/kube/cluster.js';

describe('readsPerNamespace', () => {
  const rows: { wanted: number; clusterWide: number; perNamespace: boolean; why: string }[] = [
    { wanted: 5, clusterWide: 205, perNamespace: true, why: "the issue's skewed cluster: targets in 5 namespaces of 205" },
    { wanted: 1, clusterWide: 1, perNamespace: true, why: 'one namespace: its own list is never more than the whole' },
    { wanted: 1, clusterWide: 0, perNamespace: true, why: 'one namespace, whatever the count' },
    { wanted: 3, clusterWide: 7, perNamespace: true, why: 'a small cluster: 3 of 7, the server having 4 of its own' },
    { wanted: 50, clusterWide: 54, perNamespace: false, why: "the benchmark's default shape: targets in 50 of 54" },
    { wanted: 200, clusterWide: 200, perNamespace: false, why: 'every namespace' },
    { wanted: 75, clusterWide: 100, perNamespace: true, why: 'exactly the share' },
    { wanted: 76, clusterWide: 100, perNamespace: false, why: 'just above it' },
  ];
  for (const row of rows) {
    it(`${row.wanted} of ${row.clusterWide}: ${row.perNamespace ? 'one by one' : 'across the cluster'} (${row.why})`, () => {
      assert.equal(readsPerNamespace(row.wanted, row.clusterWide), row.perNamespace);
    });
  }

  it('reads one by one up to the share, never above it', () => {
    for (let clusterWide = 2; clusterWide <= 300; clusterWide++) {
      for (let wanted = 2; wanted <= clusterWide; wanted++) {
        assert.equal(readsPerNamespace(wanted, clusterWide), wanted / clusterWide <= PER_NAMESPACE_READ_SHARE, `${wanted} of ${clusterWide}`);
      }
    }
  });
});

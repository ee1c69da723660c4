/**
 * The names Tekton gives a PipelineRun's child runs (knative.dev/pkg/kmeta ChildName, as
 * tektoncd/pipeline pkg/reconciler/pipelinerun/resources/pipelinerunresolution.go:900-961 calls
 * it), and which PipelineRuns a name may be a child's of (src/core/childnames.ts). The rows'
 * expected names are what kmeta.ChildName v1.15.0's vendored copy printed for them (run once,
 * outside the repository). Seeded: set TRGC_FC_SEED to replay a failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ParentNames, childName } from '../../src/core/childnames.js';

const SEED = Number(process.env['TRGC_FC_SEED'] ?? 20261207);
const LONG = 'a-very-long-pipelinerun-name-for-the-release-train-x1-abcdef';

/** [parent, suffix, what ChildName made of them], one row per form of ChildName. */
const ROWS: readonly [string, string, string][] = [
  // It fits: parent + suffix.
  ['build-1', '-fetch', 'build-1-fetch'],
  ['build-1', `-${'t'.repeat(40)}`, `build-1-${'t'.repeat(40)}`],
  ['q'.repeat(31), `-${'u'.repeat(30)}-`, `${'q'.repeat(31)}-${'u'.repeat(30)}-`],
  // Too long, a suffix under 31: the parent cut, its md5, the suffix (a matrix's too).
  [LONG, '-fetch', 'a-very-long-pipelinerun-n4e8c75a9dc537c743c78ca7a2352c7fe-fetch'],
  [LONG, '-fetch-0', 'a-very-long-pipelinerun4e8c75a9dc537c743c78ca7a2352c7fe-fetch-0'],
  // A suffix of 31 or more: the parent's first 31 characters and the md5 of both, padded with the suffix.
  [LONG, `-${'t'.repeat(40)}`, 'a-very-long-pipelinerun-name-fo9b6c8589d9497b3848d7d149a76e7b51'],
  [LONG, `-${'t'.repeat(29)}-12`, 'a-very-long-pipelinerun-name-fo641669403a6e120bcc6a18290732882b'],
  ['build-1', `-${'t'.repeat(60)}`, `build-1f04fe6545b09b2ff773254cd37635dfc-${'t'.repeat(23)}`],
];

describe('childName: kmeta.ChildName', () => {
  for (const [parent, suffix, made] of ROWS) {
    it(`${parent} + ${suffix}`, () => {
      assert.equal(childName(parent, suffix), made);
      assert.deepEqual(new ParentNames([parent, 'other', `z${parent}`]).parentsOf(made), [parent]);
    });
  }
});

describe('ParentNames.parentsOf', () => {
  it('a name no PipelineRun of the set makes is no child: not a prefix cut at a dash, not an md5 of another name', () => {
    const parents = new ParentNames(['build', LONG]);
    assert.deepEqual(parents.parentsOf('builder-fetch'), []);
    assert.deepEqual(parents.parentsOf('build'), []);
    assert.deepEqual(parents.parentsOf(childName(`${LONG}z`, '-fetch')), []);
  });

  it('the whole-hash form keeps only 31 characters of its parent: every long name with that head is matched (one link more, never one fewer)', () => {
    const made = childName(LONG, `-${'t'.repeat(40)}`);
    assert.deepEqual(new ParentNames([LONG, `${LONG}x`]).parentsOf(made), [LONG, `${LONG}x`]);
  });

  it('every parent a name may be a child of, nested ones too (a child PipelineRun’s own child)', () => {
    assert.deepEqual(new ParentNames(['build-1', 'build-1-ci', 'build']).parentsOf('build-1-ci-fetch').sort(), ['build', 'build-1', 'build-1-ci']);
  });

  it('property: whatever the parent and the task (or matrix) suffix, the child ChildName makes is matched to its parent', () => {
    const dnsName = (min: number, max: number): fc.Arbitrary<string> =>
      fc.stringMatching(new RegExp(`^[a-z0-9]([-a-z0-9]{${Math.max(0, min - 2)},${max - 2}}[a-z0-9])?$`)).filter((name) => name.length >= min && name.length <= max);
    fc.assert(
      fc.property(dnsName(1, 63), dnsName(1, 63), fc.option(fc.nat(200), { nil: undefined }), (parent, task, matrix) => {
        const suffix = matrix === undefined ? `-${task}` : `-${task}-${matrix}`;
        const child = childName(parent, suffix);
        assert.ok(child.length <= 63, child);
        assert.ok(new ParentNames([parent]).parentsOf(child).includes(parent), `${child} from ${parent} + ${suffix}`);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

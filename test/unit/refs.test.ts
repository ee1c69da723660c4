import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { preferredRunVersion, runVersion } from '../../src/core/kinds.js';
import { extractReferences } from '../../src/core/refs.js';
import type { ReadProblem, RunKindName } from '../../src/core/types.js';
import { runObject } from '../fixtures/unit/records.js';

const ANNOTATION = 'tekton.dev/v1beta1Resources';

/** A run read through the v1 view: no spec.resources, the bindings as JSON in the annotation. */
function v1Run(annotation: unknown): Record<string, unknown> {
  return runObject({ pipelineRef: { name: 'build' } }, { metadata: { annotations: { [ANNOTATION]: annotation } } });
}

interface Row {
  row: string;
  kind: RunKindName;
  version: string;
  object: unknown;
  expected: readonly string[];
}

const readable: readonly Row[] = [
  {
    row: 'PipelineRun v1beta1 spec.resources[].resourceRef.name; the slot name is not a target',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ resources: [{ name: 'source-repo', resourceRef: { name: 'skaffold-git' } }] }),
    expected: ['skaffold-git'],
  },
  {
    row: 'PipelineRun v1alpha1 has the same shape as v1beta1',
    kind: 'PipelineRun',
    version: 'v1alpha1',
    object: runObject({ resources: [{ name: 'src', resourceRef: { name: 'git-abc', apiVersion: 'tekton.dev/v1alpha1' } }] }),
    expected: ['git-abc'],
  },
  {
    row: 'PipelineRun resourceSpec embeds a resource: no reference',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ resources: [{ name: 'pipeline-git', resourceSpec: { type: 'git', params: [{ name: 'url', value: 'https://example.test/r' }] } }] }),
    expected: [],
  },
  {
    row: 'v0.1-v0.8 objects: resourceRef {} and resourceRef {name: ""} beside a resourceSpec reference nothing',
    kind: 'PipelineRun',
    version: 'v1alpha1',
    object: runObject({
      resources: [
        { name: 'a', resourceRef: {}, resourceSpec: { type: 'git' } },
        { name: 'b', resourceRef: { name: '' }, resourceSpec: { type: 'image' } },
        { name: 'c', resourceRef: { name: null } },
      ],
    }),
    expected: [],
  },
  {
    row: 'PipelineRun with several bindings: sorted and deduplicated',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({
      resources: [
        { name: 'image', resourceRef: { name: 'web-image' } },
        { name: 'source', resourceRef: { name: 'app-git' } },
        { name: 'again', resourceRef: { name: 'web-image' } },
      ],
    }),
    expected: ['app-git', 'web-image'],
  },
  {
    row: 'PipelineRun without resources, or with resources: null (Go reads null as absent)',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ pipelineRef: { name: 'p' }, resources: null }),
    expected: [],
  },
  {
    row: 'a null binding is a zero-value binding: no reference',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ resources: [null, { name: 's', resourceRef: { name: 'kept' } }] }),
    expected: ['kept'],
  },
  {
    row: 'TaskRun v1beta1 spec.resources.inputs and outputs',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject({
      taskRef: { name: 'build-push' },
      resources: {
        inputs: [{ name: 'sourcerepo', resourceRef: { name: 'skaffold-git-output-image' } }],
        outputs: [{ name: 'builtImage', resourceRef: { name: 'leeroy-web-image' } }],
      },
    }),
    expected: ['leeroy-web-image', 'skaffold-git-output-image'],
  },
  {
    row: 'TaskRun v1beta1 with an embedded resourceSpec input only',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject({ resources: { inputs: [{ name: 'skaffold', resourceSpec: { type: 'git' } }] } }),
    expected: [],
  },
  {
    row: 'TaskRun v1alpha1 legacy spec.inputs.resources and spec.outputs.resources',
    kind: 'TaskRun',
    version: 'v1alpha1',
    object: runObject({
      inputs: { resources: [{ name: 'sourcerepo', resourceRef: { name: 'old-git' } }], params: [{ name: 'x', value: 'y' }] },
      outputs: { resources: [{ name: 'builtImage', resourceRef: { name: 'old-image' } }] },
    }),
    expected: ['old-git', 'old-image'],
  },
  {
    row: 'TaskRun v1alpha1 from v0.11 also takes the v1beta1 shape',
    kind: 'TaskRun',
    version: 'v1alpha1',
    object: runObject({ resources: { inputs: [{ name: 'src', resourceRef: { name: 'new-git' } }] } }),
    expected: ['new-git'],
  },
  {
    row: 'TaskRun v1alpha1 with params but no input resources (an optional resource left out)',
    kind: 'TaskRun',
    version: 'v1alpha1',
    object: runObject({ inputs: { params: [{ name: 'filename', value: 'README.md' }] }, taskRef: { name: 't' } }),
    expected: [],
  },
  {
    row: 'TaskRun v1beta1 ignores the legacy v1alpha1 fields (not part of that view)',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject({ inputs: { resources: [{ name: 'src', resourceRef: { name: 'legacy-only' } }] } }),
    expected: [],
  },
  {
    row: 'taskSpec and status.taskSpec declare slots, not objects',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject(
      { taskSpec: { resources: { inputs: [{ name: 'pr', type: 'pullRequest' }] } } },
      { status: { taskSpec: { resources: { inputs: [{ name: 'pr', type: 'pullRequest' }] } } } },
    ),
    expected: [],
  },
  {
    row: 'PipelineRun through v1: the annotation holds an array of bindings',
    kind: 'PipelineRun',
    version: 'v1',
    object: v1Run(JSON.stringify([{ name: 'source-repo', resourceRef: { name: 'v1-git' } }, { name: 'img', resourceSpec: { type: 'image' } }])),
    expected: ['v1-git'],
  },
  {
    row: 'TaskRun through v1: the annotation holds {inputs, outputs}',
    kind: 'TaskRun',
    version: 'v1',
    object: v1Run(JSON.stringify({ inputs: [{ name: 'src', resourceRef: { name: 'v1-in' } }], outputs: [{ name: 'out', resourceRef: { name: 'v1-out' } }] })),
    expected: ['v1-in', 'v1-out'],
  },
  {
    row: 'a run through v1 without the annotation names nothing',
    kind: 'TaskRun',
    version: 'v1',
    object: runObject({ taskRef: { name: 't' } }),
    expected: [],
  },
  {
    row: 'the annotation JSON "null" (a nil slice serialized) names nothing',
    kind: 'PipelineRun',
    version: 'v1',
    object: v1Run('null'),
    expected: [],
  },
  {
    row: 'the annotation is not read through v1beta1 (the conversion restores spec.resources there)',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: v1Run(JSON.stringify([{ name: 's', resourceRef: { name: 'only-in-annotation' } }])),
    expected: [],
  },
  {
    row: 'a v1 view reads only the annotation, not a spec.resources left by a conversion-less server',
    kind: 'PipelineRun',
    version: 'v1',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'spec-only' } }] }),
    expected: [],
  },
];

const unreadable: readonly (Omit<Row, 'expected'> & { problems: readonly ReadProblem[] })[] = [
  {
    row: 'spec.resources is a string where an array must be',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ resources: 'skaffold-git' }),
    problems: [{ field: 'spec.resources', problem: 'expected an array, found a string' }],
  },
  {
    row: 'TaskRun spec.resources is an array where an object {inputs, outputs} must be',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'x' } }] }),
    problems: [{ field: 'spec.resources', problem: 'expected an object, found an array' }],
  },
  {
    row: 'a binding that is a string, not an object; the readable binding beside it does not make the run readable',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'fine' } }, 'git-abc'] }),
    problems: [{ field: 'spec.resources[1]', problem: 'expected an object, found a string' }],
  },
  {
    row: 'resourceRef is a string, not an object',
    kind: 'TaskRun',
    version: 'v1beta1',
    object: runObject({ resources: { outputs: [{ name: 'img', resourceRef: 'web-image' }] } }),
    problems: [{ field: 'spec.resources.outputs[0].resourceRef', problem: 'expected an object, found a string' }],
  },
  {
    row: 'resourceRef.name is a number',
    kind: 'TaskRun',
    version: 'v1alpha1',
    object: runObject({ inputs: { resources: [{ name: 'src', resourceRef: { name: 42 } }] } }),
    problems: [{ field: 'spec.inputs.resources[0].resourceRef.name', problem: 'expected a string, found a number' }],
  },
  {
    row: 'legacy spec.outputs is a string',
    kind: 'TaskRun',
    version: 'v1alpha1',
    object: runObject({ outputs: 'image' }),
    problems: [{ field: 'spec.outputs', problem: 'expected an object, found a string' }],
  },
  {
    row: 'spec itself is not an object',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: runObject(['resources']),
    problems: [{ field: 'spec', problem: 'expected an object, found an array' }],
  },
  {
    row: 'the object is not an object at all',
    kind: 'PipelineRun',
    version: 'v1beta1',
    object: 'PipelineRun',
    problems: [{ field: '(object)', problem: 'expected an object, found a string' }],
  },
  {
    row: 'annotation that is not JSON',
    kind: 'PipelineRun',
    version: 'v1',
    object: v1Run('[{"name": "s", "resourceRef": '),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'not valid JSON: ' }],
  },
  {
    row: 'PipelineRun annotation holding an object where the array of bindings must be',
    kind: 'PipelineRun',
    version: 'v1',
    object: v1Run(JSON.stringify({ inputs: [] })),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected an array, found an object' }],
  },
  {
    row: 'TaskRun annotation whose inputs hold a resourceRef of the wrong shape',
    kind: 'TaskRun',
    version: 'v1',
    object: v1Run(JSON.stringify({ inputs: [{ name: 'src', resourceRef: ['x'] }] })),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"].inputs[0].resourceRef`, problem: 'expected an object, found an array' }],
  },
  {
    row: 'annotation value that is not a string',
    kind: 'TaskRun',
    version: 'v1',
    object: v1Run({ inputs: [] }),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected a string, found an object' }],
  },
  {
    row: 'a version this collector does not read',
    kind: 'TaskRun',
    version: 'v2',
    object: runObject({}),
    problems: [{ field: 'apiVersion', problem: 'TaskRun is not read through v2 (known: v1beta1, v1alpha1, v1)' }],
  },
];

describe('extractReferences', () => {
  for (const row of readable) {
    it(row.row, () => {
      assert.deepEqual(extractReferences(row.object, row.kind, row.version), { references: row.expected, problems: [] });
    });
  }

  for (const row of unreadable) {
    it(`unexpected shape: ${row.row}`, () => {
      const result = extractReferences(row.object, row.kind, row.version);
      assert.equal(result.references, null);
      // JSON.parse's own wording varies between Node versions: compare up to the expected text.
      const got = result.problems.map((p, i) => ({ field: p.field, problem: p.problem.slice(0, row.problems[i]?.problem.length) }));
      assert.deepEqual(got, row.problems);
    });
  }

  it('reports every problem of a run, not only the first', () => {
    const result = extractReferences(runObject({ inputs: { resources: 'a' }, outputs: { resources: [7] } }), 'TaskRun', 'v1alpha1');
    assert.deepEqual(result.problems, [
      { field: 'spec.inputs.resources', problem: 'expected an array, found a string' },
      { field: 'spec.outputs.resources[0]', problem: 'expected an object, found a number' },
    ]);
  });
});

describe('run versions', () => {
  // Each row: the versions a server serves -> the one to read through.
  const rows: readonly [string, readonly string[], string | undefined][] = [
    ['v0.11-v0.37 serve v1alpha1 and v1beta1: v1beta1', ['v1alpha1', 'v1beta1'], 'v1beta1'],
    ['v0.43-v0.45 serve v1beta1 and v1: v1beta1', ['v1', 'v1beta1'], 'v1beta1'],
    ['v0.1-v0.10 serve only v1alpha1', ['v1alpha1'], 'v1alpha1'],
    ['only v1 served: v1, through the annotation', ['v1'], 'v1'],
    ['nothing known served', ['v2'], undefined],
  ];
  for (const [row, served, expected] of rows) {
    it(row, () => {
      assert.equal(preferredRunVersion('PipelineRun', served)?.version, expected);
      assert.equal(preferredRunVersion('TaskRun', served)?.version, expected);
    });
  }

  it('v1 reads bindings from the annotation, the others from spec', () => {
    assert.equal(runVersion('TaskRun', 'v1')?.bindings.from, 'annotation');
    assert.equal(runVersion('TaskRun', 'v1beta1')?.bindings.from, 'spec');
    assert.equal(runVersion('PipelineRun', 'v1alpha1')?.bindings.from, 'spec');
  });
});

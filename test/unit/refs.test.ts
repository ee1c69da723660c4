import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { preferredRunVersion, RUN_KINDS } from '../../src/core/kinds.js';
import { extractReferences } from '../../src/core/refs.js';
import type { ReadProblem, RunKindName } from '../../src/core/types.js';
import { runObject } from '../fixtures/unit/records.js';

const ANNOTATION = 'tekton.dev/v1beta1Resources';

/** A run as the v1 view shows it: no spec.resources, the bindings as JSON in the annotation. */
function v1Run(annotation: unknown): Record<string, unknown> {
  return annotated({ pipelineRef: { name: 'build' } }, annotation);
}

/** A run with this spec and this annotation value. */
function annotated(spec: unknown, annotation: unknown): Record<string, unknown> {
  return runObject(spec, { metadata: { annotations: { [ANNOTATION]: annotation } } });
}

interface Row {
  row: string;
  kind: RunKindName;
  object: unknown;
  expected: readonly string[];
}

const readable: readonly Row[] = [
  {
    row: 'PipelineRun v1beta1 spec.resources[].resourceRef.name; the slot name is not a target',
    kind: 'PipelineRun',
    object: runObject({ resources: [{ name: 'source-repo', resourceRef: { name: 'skaffold-git' } }] }),
    expected: ['skaffold-git'],
  },
  {
    row: 'PipelineRun v1alpha1 has the same shape as v1beta1',
    kind: 'PipelineRun',
    object: runObject({ resources: [{ name: 'src', resourceRef: { name: 'git-abc', apiVersion: 'tekton.dev/v1alpha1' } }] }),
    expected: ['git-abc'],
  },
  {
    row: 'PipelineRun resourceSpec embeds a resource: no reference',
    kind: 'PipelineRun',
    object: runObject({ resources: [{ name: 'pipeline-git', resourceSpec: { type: 'git', params: [{ name: 'url', value: 'https://example.test/r' }] } }] }),
    expected: [],
  },
  {
    row: 'v0.1-v0.8 objects: resourceRef {} and resourceRef {name: ""} beside a resourceSpec reference nothing',
    kind: 'PipelineRun',
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
    object: runObject({ pipelineRef: { name: 'p' }, resources: null }),
    expected: [],
  },
  {
    row: 'a null binding is a zero-value binding: no reference',
    kind: 'PipelineRun',
    object: runObject({ resources: [null, { name: 's', resourceRef: { name: 'kept' } }] }),
    expected: ['kept'],
  },
  {
    row: 'TaskRun v1beta1 spec.resources.inputs and outputs',
    kind: 'TaskRun',
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
    object: runObject({ resources: { inputs: [{ name: 'skaffold', resourceSpec: { type: 'git' } }] } }),
    expected: [],
  },
  {
    row: 'TaskRun v1alpha1 legacy spec.inputs.resources and spec.outputs.resources',
    kind: 'TaskRun',
    object: runObject({
      inputs: { resources: [{ name: 'sourcerepo', resourceRef: { name: 'old-git' } }], params: [{ name: 'x', value: 'y' }] },
      outputs: { resources: [{ name: 'builtImage', resourceRef: { name: 'old-image' } }] },
    }),
    expected: ['old-git', 'old-image'],
  },
  {
    row: 'TaskRun v1alpha1 from v0.11 also takes the v1beta1 shape',
    kind: 'TaskRun',
    object: runObject({ resources: { inputs: [{ name: 'src', resourceRef: { name: 'new-git' } }] } }),
    expected: ['new-git'],
  },
  {
    row: 'TaskRun v1alpha1 with params but no input resources (an optional resource left out)',
    kind: 'TaskRun',
    object: runObject({ inputs: { params: [{ name: 'filename', value: 'README.md' }] }, taskRef: { name: 't' } }),
    expected: [],
  },
  {
    // No conversion webhook: a legacy TaskRun seen through v1beta1 still names its resources.
    row: 'TaskRun: the legacy spec.inputs.resources counts whatever the version read through',
    kind: 'TaskRun',
    object: runObject({ inputs: { resources: [{ name: 'src', resourceRef: { name: 'legacy-only' } }] } }),
    expected: ['legacy-only'],
  },
  {
    // Every place is read and the names united: a reference found anywhere must count.
    row: 'TaskRun: the union of spec.resources, the legacy fields and the annotation',
    kind: 'TaskRun',
    object: annotated(
      {
        resources: { inputs: [{ name: 'a', resourceRef: { name: 'in-new' } }], outputs: [{ name: 'b', resourceRef: { name: 'out-new' } }] },
        inputs: { resources: [{ name: 'c', resourceRef: { name: 'in-legacy' } }] },
        outputs: { resources: [{ name: 'd', resourceRef: { name: 'out-legacy' } }] },
      },
      JSON.stringify({ inputs: [{ name: 'e', resourceRef: { name: 'in-annotation' } }], outputs: [{ name: 'f', resourceRef: { name: 'out-new' } }] }),
    ),
    expected: ['in-annotation', 'in-legacy', 'in-new', 'out-legacy', 'out-new'],
  },
  {
    row: 'taskSpec and status.taskSpec declare slots, not objects',
    kind: 'TaskRun',
    object: runObject(
      { taskSpec: { resources: { inputs: [{ name: 'pr', type: 'pullRequest' }] } } },
      { status: { taskSpec: { resources: { inputs: [{ name: 'pr', type: 'pullRequest' }] } } } },
    ),
    expected: [],
  },
  {
    row: 'PipelineRun through v1: the annotation holds an array of bindings',
    kind: 'PipelineRun',
    object: v1Run(JSON.stringify([{ name: 'source-repo', resourceRef: { name: 'v1-git' } }, { name: 'img', resourceSpec: { type: 'image' } }])),
    expected: ['v1-git'],
  },
  {
    row: 'TaskRun through v1: the annotation holds {inputs, outputs}',
    kind: 'TaskRun',
    object: v1Run(JSON.stringify({ inputs: [{ name: 'src', resourceRef: { name: 'v1-in' } }], outputs: [{ name: 'out', resourceRef: { name: 'v1-out' } }] })),
    expected: ['v1-in', 'v1-out'],
  },
  {
    row: 'a run through v1 without the annotation names nothing',
    kind: 'TaskRun',
    object: runObject({ taskRef: { name: 't' } }),
    expected: [],
  },
  {
    row: 'the annotation JSON "null" (a nil slice serialized) names nothing',
    kind: 'PipelineRun',
    object: v1Run('null'),
    expected: [],
  },
  {
    // No conversion webhook: a run created through v1 shows only the annotation through v1beta1.
    row: 'PipelineRun: the annotation counts whatever the version read through',
    kind: 'PipelineRun',
    object: v1Run(JSON.stringify([{ name: 's', resourceRef: { name: 'only-in-annotation' } }])),
    expected: ['only-in-annotation'],
  },
  {
    // No conversion webhook: a run created through v1beta1 shows spec.resources through v1.
    row: 'PipelineRun: spec.resources counts without the annotation whatever the version read through',
    kind: 'PipelineRun',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'spec-only' } }] }),
    expected: ['spec-only'],
  },
  {
    // A converted object can carry both (the annotation kept beside the restored spec): one reference, once.
    row: 'a reference in both spec.resources and the annotation: united and deduplicated',
    kind: 'PipelineRun',
    object: annotated(
      { resources: [{ name: 's', resourceRef: { name: 'both' } }] },
      JSON.stringify([{ name: 's', resourceRef: { name: 'both' } }, { name: 'i', resourceRef: { name: 'annotation-only' } }]),
    ),
    expected: ['annotation-only', 'both'],
  },
];

const unreadable: readonly (Omit<Row, 'expected'> & { problems: readonly ReadProblem[] })[] = [
  {
    row: 'spec.resources is a string where an array must be',
    kind: 'PipelineRun',
    object: runObject({ resources: 'skaffold-git' }),
    problems: [{ field: 'spec.resources', problem: 'expected an array, found a string' }],
  },
  {
    row: 'TaskRun spec.resources is an array where an object {inputs, outputs} must be',
    kind: 'TaskRun',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'x' } }] }),
    problems: [{ field: 'spec.resources', problem: 'expected an object, found an array' }],
  },
  {
    row: 'a binding that is a string, not an object; the readable binding beside it does not make the run readable',
    kind: 'PipelineRun',
    object: runObject({ resources: [{ name: 's', resourceRef: { name: 'fine' } }, 'git-abc'] }),
    problems: [{ field: 'spec.resources[1]', problem: 'expected an object, found a string' }],
  },
  {
    row: 'resourceRef is a string, not an object',
    kind: 'TaskRun',
    object: runObject({ resources: { outputs: [{ name: 'img', resourceRef: 'web-image' }] } }),
    problems: [{ field: 'spec.resources.outputs[0].resourceRef', problem: 'expected an object, found a string' }],
  },
  {
    row: 'resourceRef.name is a number',
    kind: 'TaskRun',
    object: runObject({ inputs: { resources: [{ name: 'src', resourceRef: { name: 42 } }] } }),
    problems: [{ field: 'spec.inputs.resources[0].resourceRef.name', problem: 'expected a string, found a number' }],
  },
  {
    row: 'legacy spec.outputs is a string',
    kind: 'TaskRun',
    object: runObject({ outputs: 'image' }),
    problems: [{ field: 'spec.outputs', problem: 'expected an object, found a string' }],
  },
  {
    row: 'spec itself is not an object',
    kind: 'PipelineRun',
    object: runObject(['resources']),
    problems: [{ field: 'spec', problem: 'expected an object, found an array' }],
  },
  {
    row: 'the object is not an object at all',
    kind: 'PipelineRun',
    object: 'PipelineRun',
    problems: [{ field: '(object)', problem: 'expected an object, found a string' }],
  },
  {
    row: 'annotation that is not JSON',
    kind: 'PipelineRun',
    object: v1Run('[{"name": "s", "resourceRef": '),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'not valid JSON: ' }],
  },
  {
    row: 'PipelineRun annotation holding an object where the array of bindings must be',
    kind: 'PipelineRun',
    object: v1Run(JSON.stringify({ inputs: [] })),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected an array, found an object' }],
  },
  {
    row: 'TaskRun annotation whose inputs hold a resourceRef of the wrong shape',
    kind: 'TaskRun',
    object: v1Run(JSON.stringify({ inputs: [{ name: 'src', resourceRef: ['x'] }] })),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"].inputs[0].resourceRef`, problem: 'expected an object, found an array' }],
  },
  {
    row: 'annotation value that is not a string',
    kind: 'TaskRun',
    object: v1Run({ inputs: [] }),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected a string, found an object' }],
  },
  {
    // The kind picks the shapes: a TaskRun's annotation is {inputs, outputs}, never the PipelineRun array.
    row: "TaskRun annotation holding a PipelineRun's array of bindings",
    kind: 'TaskRun',
    object: v1Run(JSON.stringify([{ name: 's', resourceRef: { name: 'x' } }])),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected an object, found an array' }],
  },
  {
    // The good spec bindings do not make the run readable: the annotation may name another target.
    row: 'a bad annotation next to good spec bindings',
    kind: 'PipelineRun',
    object: annotated({ resources: [{ name: 's', resourceRef: { name: 'fine' } }] }, '[{"name": "s", "resourceRef": '),
    problems: [{ field: `metadata.annotations["${ANNOTATION}"]`, problem: 'not valid JSON: ' }],
  },
  {
    // Legacy fields are read through every version (no webhook may have converted them), so their shape counts too.
    row: 'a legacy field of the wrong shape next to good v1beta1 bindings',
    kind: 'TaskRun',
    object: runObject({ resources: { inputs: [{ name: 'src', resourceRef: { name: 'fine' } }] }, inputs: { resources: 'old-git' } }),
    problems: [{ field: 'spec.inputs.resources', problem: 'expected an array, found a string' }],
  },
  {
    // Every place that is wrong is reported, spec and annotation alike.
    row: 'bad spec and bad annotation: both problems',
    kind: 'PipelineRun',
    object: annotated({ resources: 'skaffold-git' }, 7),
    problems: [
      { field: 'spec.resources', problem: 'expected an array, found a string' },
      { field: `metadata.annotations["${ANNOTATION}"]`, problem: 'expected a string, found a number' },
    ],
  },
];

describe('extractReferences', () => {
  for (const row of readable) {
    it(row.row, () => {
      assert.deepEqual(extractReferences(row.object, row.kind), { references: row.expected, problems: [] });
    });
  }

  for (const row of unreadable) {
    it(`unexpected shape: ${row.row}`, () => {
      const result = extractReferences(row.object, row.kind);
      assert.equal(result.references, null);
      // JSON.parse's own wording varies between Node versions: compare up to the expected text.
      const got = result.problems.map((p, i) => ({ field: p.field, problem: p.problem.slice(0, row.problems[i]?.problem.length) }));
      assert.deepEqual(got, row.problems);
    });
  }

  it('reports every problem of a run, not only the first', () => {
    const result = extractReferences(runObject({ inputs: { resources: 'a' }, outputs: { resources: [7] } }), 'TaskRun');
    assert.deepEqual(result.problems, [
      { field: 'spec.inputs.resources', problem: 'expected an array, found a string' },
      { field: 'spec.outputs.resources[0]', problem: 'expected an object, found a number' },
    ]);
  });
});

describe('run versions', () => {
  // Each row: the versions a server serves -> the one to read through. The version only picks
  // the endpoint: every version gives the same references.
  const rows: readonly [string, readonly string[], string | undefined][] = [
    ['v0.11-v0.37 serve v1alpha1 and v1beta1: v1beta1', ['v1alpha1', 'v1beta1'], 'v1beta1'],
    ['v0.43-v0.45 serve v1beta1 and v1: v1beta1', ['v1', 'v1beta1'], 'v1beta1'],
    ['v0.1-v0.10 serve only v1alpha1', ['v1alpha1'], 'v1alpha1'],
    ['only v1 served: v1', ['v1'], 'v1'],
    ['nothing known served', ['v2'], undefined],
    ['nothing served', [], undefined],
  ];
  for (const [row, served, expected] of rows) {
    it(row, () => {
      assert.equal(preferredRunVersion('PipelineRun', served), expected);
      assert.equal(preferredRunVersion('TaskRun', served), expected);
    });
  }

  // No conversion webhook may have rewritten a run: each kind reads spec and the annotation,
  // whichever version it is read through.
  it('each kind reads its spec and the annotation', () => {
    for (const kind of ['PipelineRun', 'TaskRun'] as const) {
      assert.deepEqual(
        RUN_KINDS[kind].bindings.map((source) => (source.from === 'annotation' ? `annotation ${source.key}` : source.from)),
        ['spec', `annotation ${ANNOTATION}`],
      );
    }
  });
});

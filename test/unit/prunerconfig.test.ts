/**
 * tektoncd/pruner's ConfigMaps read and resolved as its controller does (src/core/prunerconfig.ts).
 * The YAML of the examples is copied from tektoncd/pruner v0.4.1 (commit 0dc5f88), each with its
 * file; the expectations follow its code (pkg/config/config.go), cited where they are not obvious.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  prunerLimitsFor,
  prunerResourceName,
  prunerRunPolicy,
  readPrunerConfig,
  type PrunerConfig,
  type PrunerConfigMaps,
  type PrunerLimits,
  type PrunerRun,
} from '../../src/core/prunerconfig.js';
import { runTarget } from '../fixtures/unit/records.js';

const SYSTEM = 'tekton-pipelines';

function read(global: string | null, namespaced: Record<string, string> = {}): { config: PrunerConfig; warnings: string[] } {
  const maps: PrunerConfigMaps = {
    systemNamespace: SYSTEM,
    global: global === null ? null : { data: { 'global-config': global } },
    namespaced: Object.entries(namespaced).map(([namespace, text]) => ({ namespace, data: { 'ns-config': text } })),
  };
  const result = readPrunerConfig(maps);
  if (!result.ok) assert.fail(`expected the ConfigMaps to be read, got: ${result.error}`);
  return { config: result.config, warnings: result.warnings };
}

function refused(maps: PrunerConfigMaps): string {
  const result = readPrunerConfig(maps);
  if (result.ok) assert.fail('expected an error');
  assert.doesNotMatch(result.error, /\n/, 'one line');
  return result.error;
}

function globalOnly(text: string): PrunerConfigMaps {
  return { systemNamespace: SYSTEM, global: { data: { 'global-config': text } }, namespaced: [] };
}

function namespaceOnly(namespace: string, text: string): PrunerConfigMaps {
  return { systemNamespace: SYSTEM, global: { data: { 'global-config': 'enforcedConfigLevel: namespace' } }, namespaced: [{ namespace, data: { 'ns-config': text } }] };
}

function run(namespace: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}, kind: PrunerRun['kind'] = 'PipelineRun'): PrunerRun {
  return { kind, namespace, name: 'run-1', labels, annotations };
}

/** The three numbers, absent as undefined: what a table row compares. */
function numbers(limits: PrunerLimits): [number | undefined, number | undefined, number | undefined] {
  return [limits.successfulHistoryLimit?.value, limits.failedHistoryLimit?.value, limits.ttlSecondsAfterFinished?.value];
}

describe("pruner's limits as the run collectors read them", () => {
  it('each setting names the field of the ConfigMap that gave it (explain\'s limit and TTL lines), not the three at once', () => {
    const { config } = read(`enforcedConfigLevel: global
ttlSecondsAfterFinished: 3600
successfulHistoryLimit: 50
`);
    const limits = prunerRunPolicy(config).external(runTarget('r1', { labels: { 'tekton.dev/pipeline': 'build' } }));
    assert.deepEqual(limits?.fieldFrom, {
      keepSuccessful: 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config successfulHistoryLimit',
      ttl: 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config ttlSecondsAfterFinished',
    });
    assert.match(limits?.from ?? '', /^tektoncd\/pruner level global: successfulHistoryLimit 50 from .*; no failedHistoryLimit; ttlSecondsAfterFinished 3600 from /);
  });
});

describe("pruner's documented examples", () => {
  it('01-basic-global.yaml: one policy for every namespace', () => {
    // docs/tutorials/sample-configMaps/01-basic-global.yaml
    const { config, warnings } = read(`enforcedConfigLevel: global
ttlSecondsAfterFinished: 3600
successfulHistoryLimit: 50
failedHistoryLimit: 3
`);
    assert.deepEqual(warnings, []);
    const limits = prunerLimitsFor(config, run('anywhere', { 'tekton.dev/pipeline': 'build' }));
    assert.equal(limits.level, 'global');
    assert.deepEqual(numbers(limits), [50, 3, 3600]);
    assert.equal(limits.successfulHistoryLimit?.from, 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config successfulHistoryLimit');
    assert.deepEqual(limits.successfulHistoryLimit?.group, { by: 'namespace' });
  });

  it('02-global-with-namespace-inline.yaml: namespaces listed in the global ConfigMap', () => {
    // docs/tutorials/sample-configMaps/02-global-with-namespace-inline.yaml
    const { config } = read(`enforcedConfigLevel: namespace

ttlSecondsAfterFinished: 604800
successfulHistoryLimit: 50
failedHistoryLimit: 50

namespaces:
  development:
    ttlSecondsAfterFinished: 300
    successfulHistoryLimit: 30
    failedHistoryLimit: 20

  staging:
    ttlSecondsAfterFinished: 86400
    successfulHistoryLimit: 25
    failedHistoryLimit: 5

  production:
    ttlSecondsAfterFinished: 604800
    successfulHistoryLimit: 20
    failedHistoryLimit: 10
`);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('development'))), [30, 20, 300]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('staging'))), [25, 5, 86400]);
    const elsewhere = prunerLimitsFor(config, run('other'));
    assert.deepEqual(numbers(elsewhere), [50, 50, 604800]);
    assert.match(elsewhere.from, /^tektoncd\/pruner level namespace: successfulHistoryLimit 50 from ConfigMap tekton-pipelines\/tekton-pruner-default-spec, global-config successfulHistoryLimit;/);
    assert.equal(prunerLimitsFor(config, run('production')).ttlSecondsAfterFinished?.from, 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config namespaces.production.ttlSecondsAfterFinished');
  });

  it('03-global-enable-namespace-configmaps.yaml: a namespace ConfigMap wins over the global one', () => {
    // docs/tutorials/sample-configMaps/03-global-enable-namespace-configmaps.yaml (both ConfigMaps)
    const { config, warnings } = read(
      `enforcedConfigLevel: namespace

ttlSecondsAfterFinished: 3600
successfulHistoryLimit: 5
failedHistoryLimit: 5
`,
      { 'my-app-namespace': 'ttlSecondsAfterFinished: 300\nsuccessfulHistoryLimit: 3\nfailedHistoryLimit: 5\n' },
    );
    assert.deepEqual(warnings, []);
    const limits = prunerLimitsFor(config, run('my-app-namespace'));
    assert.deepEqual(numbers(limits), [3, 5, 300]);
    assert.equal(limits.ttlSecondsAfterFinished?.from, 'ConfigMap my-app-namespace/tekton-pruner-namespace-spec, ns-config ttlSecondsAfterFinished');
    assert.deepEqual(numbers(prunerLimitsFor(config, run('other'))), [5, 5, 3600]);
  });

  it('05-namespace-label-selectors.yaml: the first entry whose selector matches', () => {
    // docs/tutorials/sample-configMaps/05-namespace-label-selectors.yaml
    const { config } = read('enforcedConfigLevel: namespace', {
      development: `ttlSecondsAfterFinished: 600
successfulHistoryLimit: 30
failedHistoryLimit: 30

pipelineRuns:
  - selector:
    - matchLabels:
        priority: high
    ttlSecondsAfterFinished: 3600
    successfulHistoryLimit: 10
    failedHistoryLimit: 5

  - selector:
    - matchLabels:
        priority: low
    ttlSecondsAfterFinished: 300
    successfulHistoryLimit: 1
    failedHistoryLimit: 2

  - selector:
    - matchLabels:
        pipeline-type: ci
    ttlSecondsAfterFinished: 600
    successfulHistoryLimit: 3

  - selector:
    - matchLabels:
        pipeline-type: cd
    ttlSecondsAfterFinished: 1800
    successfulHistoryLimit: 5

taskRuns:
  - selector:
    - matchLabels:
        task-type: test
    ttlSecondsAfterFinished: 300
    successfulHistoryLimit: 2

  - selector:
    - matchLabels:
        task-type: build
    ttlSecondsAfterFinished: 600
    successfulHistoryLimit: 3
`,
    });
    const high = prunerLimitsFor(config, run('development', { priority: 'high', 'pipeline-type': 'ci' }));
    assert.deepEqual(numbers(high), [10, 5, 3600], 'the first entry that matches, though a later one does too');
    assert.deepEqual(high.successfulHistoryLimit?.group, { by: 'selector', selector: { matchLabels: { priority: 'high' }, matchAnnotations: {} } });
    assert.equal(high.successfulHistoryLimit?.from, 'ConfigMap development/tekton-pruner-namespace-spec, ns-config pipelineRuns[0].successfulHistoryLimit (selector labels priority=high)');
    // The ci entry sets no failedHistoryLimit: the namespace's own 30 applies, counted over the whole namespace.
    const ci = prunerLimitsFor(config, run('development', { 'pipeline-type': 'ci' }));
    assert.deepEqual(numbers(ci), [3, 30, 600]);
    assert.deepEqual(ci.failedHistoryLimit?.group, { by: 'namespace' });
    assert.deepEqual(numbers(prunerLimitsFor(config, run('development', { 'task-type': 'build' }, {}, 'TaskRun'))), [3, 30, 600]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('development', { 'task-type': 'build' }))), [30, 30, 600], "a PipelineRun is matched by pipelineRuns' entries only");
  });

  it('07-namespace-mixed-selectors.yaml: labels and annotations must all match', () => {
    // docs/tutorials/sample-configMaps/07-namespace-mixed-selectors.yaml (its pipelineRuns)
    const { config } = read('enforcedConfigLevel: namespace', {
      production: `ttlSecondsAfterFinished: 2592000
successfulHistoryLimit: 100
failedHistoryLimit: 100

pipelineRuns:
  - selector:
    - matchLabels:
        app: payment-service
        tier: critical
      matchAnnotations:
        compliance-required: "true"
        audit-log: "enabled"
    ttlSecondsAfterFinished: 3600
    successfulHistoryLimit: 50
    failedHistoryLimit: 50

  - selector:
    - matchLabels:
        app: payment-service
        environment: production
    ttlSecondsAfterFinished: 3600
    successfulHistoryLimit: 20
    failedHistoryLimit: 10
`,
    });
    const labels = { app: 'payment-service', tier: 'critical', environment: 'production' };
    assert.deepEqual(numbers(prunerLimitsFor(config, run('production', labels, { 'compliance-required': 'true', 'audit-log': 'enabled' }))), [50, 50, 3600]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('production', labels, { 'compliance-required': 'true' }))), [20, 10, 3600], 'one annotation missing: the second entry');
    assert.deepEqual(numbers(prunerLimitsFor(config, run('production', { app: 'payment-service' }))), [100, 100, 2592000]);
  });

  it('08-namespace-name-based.yaml: an entry by the Pipeline or Task name, from the tekton.dev/pipeline or tekton.dev/task label', () => {
    // docs/tutorials/sample-configMaps/08-namespace-name-based.yaml
    const { config } = read('enforcedConfigLevel: namespace', {
      'app-builds': `ttlSecondsAfterFinished: 2592000
successfulHistoryLimit: 100
failedHistoryLimit: 100

pipelineRuns:
  - name: production-deployment
    ttlSecondsAfterFinished: 3600
    successfulHistoryLimit: 50
    failedHistoryLimit: 30

  - name: pr-validation
    ttlSecondsAfterFinished: 300
    successfulHistoryLimit: 1
    failedHistoryLimit: 2

taskRuns:
  - name: sonar-scan
    ttlSecondsAfterFinished: 3600
    successfulHistoryLimit: 20
`,
    });
    const validation = prunerLimitsFor(config, run('app-builds', { 'tekton.dev/pipeline': 'pr-validation' }));
    assert.deepEqual(numbers(validation), [1, 2, 300]);
    assert.equal(validation.resourceName, 'pr-validation');
    assert.deepEqual(validation.successfulHistoryLimit?.group, { by: 'name', labelKey: 'tekton.dev/pipeline', value: 'pr-validation' });
    assert.equal(validation.failedHistoryLimit?.from, 'ConfigMap app-builds/tekton-pruner-namespace-spec, ns-config pipelineRuns[1].failedHistoryLimit (name pr-validation)');
    const sonar = prunerLimitsFor(config, run('app-builds', { 'tekton.dev/task': 'sonar-scan' }, {}, 'TaskRun'));
    assert.deepEqual(numbers(sonar), [20, 100, 3600], 'failedHistoryLimit from the namespace, as the entry has none');
    assert.deepEqual(sonar.failedHistoryLimit?.group, { by: 'namespace' });
    // A Pipeline's name in the TaskRun's tekton.dev/pipeline label does not name the Task.
    assert.deepEqual(numbers(prunerLimitsFor(config, run('app-builds', { 'tekton.dev/pipeline': 'sonar-scan' }, {}, 'TaskRun'))), [100, 100, 2592000]);
  });

  it('09-namespace-complete.yaml is read whole', () => {
    // docs/tutorials/sample-configMaps/09-namespace-complete.yaml (its first three pipelineRuns)
    const { config, warnings } = read('enforcedConfigLevel: namespace', {
      'ecommerce-prod': `ttlSecondsAfterFinished: 604800
successfulHistoryLimit: 100
failedHistoryLimit: 100

pipelineRuns:
  - name: production-release-pipeline
    ttlSecondsAfterFinished: 2592000
    successfulHistoryLimit: 50
    failedHistoryLimit: 50

  - selector:
    - matchLabels:
        deployment-type: critical
        service: payment
      matchAnnotations:
        compliance: "pci-dss"
        audit-required: "true"
    ttlSecondsAfterFinished: 2592000
    successfulHistoryLimit: 30
    failedHistoryLimit: 30

  - selector:
    - matchAnnotations:
        tekton.dev/release: "true"
    ttlSecondsAfterFinished: 1209600
    successfulHistoryLimit: 15
    failedHistoryLimit: 10
`,
    });
    assert.deepEqual(warnings, []);
    // The name wins over a selector that also matches (config.go:230-246).
    const named = prunerLimitsFor(config, run('ecommerce-prod', { 'tekton.dev/pipeline': 'production-release-pipeline' }, { 'tekton.dev/release': 'true' }));
    assert.deepEqual(numbers(named), [50, 50, 2592000]);
    const released = prunerLimitsFor(config, run('ecommerce-prod', { 'tekton.dev/pipeline': 'other' }, { 'tekton.dev/release': 'true' }));
    assert.deepEqual(numbers(released), [15, 10, 1209600]);
    assert.deepEqual(released.ttlSecondsAfterFinished, {
      value: 1209600,
      from: 'ConfigMap ecommerce-prod/tekton-pruner-namespace-spec, ns-config pipelineRuns[2].ttlSecondsAfterFinished (selector annotations tekton.dev/release=true)',
    });
  });

  it('history-based-pruning.md: historyLimit keeps N of each outcome', () => {
    // docs/tutorials/history-based-pruning.md, "Same limit for both"
    const { config } = read('historyLimit: 5  # Keep last 5 successful AND last 5 failed\n');
    const limits = prunerLimitsFor(config, run('ci'));
    assert.deepEqual(numbers(limits), [5, 5, undefined]);
    assert.equal(limits.level, 'resource', 'no enforcedConfigLevel: resource (config.go:658-659)');
    assert.equal(limits.failedHistoryLimit?.from, 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config historyLimit');
    assert.match(limits.from, /; no ttlSecondsAfterFinished$/);
  });

  it("namespace-configuration.md's inheritance example: pruner's code, not its prose", () => {
    // docs/tutorials/namespace-configuration.md, "Configuration Inheritance", says dev
    // "Inherits successfulHistoryLimit: 5 from global". pruner's code does not: a namespace
    // listed in the global ConfigMap answers for itself even without the field
    // (config.go:487-508), so dev has no successfulHistoryLimit at all.
    const { config } = read(`enforcedConfigLevel: namespace
ttlSecondsAfterFinished: 3600     # Global default
successfulHistoryLimit: 5          # Global default
namespaces:
  dev:
    ttlSecondsAfterFinished: 300   # Override TTL
    # Inherits successfulHistoryLimit: 5 from global
`);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev'))), [undefined, undefined, 300]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('prod'))), [5, undefined, 3600]);
  });

  it("config_selector_test.go's precedence cases, read from a namespace ConfigMap", () => {
    // pkg/config/config_selector_test.go TestSelectorMatching_Precedence
    const { config } = read('enforcedConfigLevel: namespace', {
      dev: `pipelineRuns:
  - name: build-pipeline
    ttlSecondsAfterFinished: 1800
  - selector:
    - matchLabels: {app: myapp}
    ttlSecondsAfterFinished: 3600
`,
    });
    const ttl = (labels: Record<string, string>): number | undefined => prunerLimitsFor(config, run('dev', labels)).ttlSecondsAfterFinished?.value;
    assert.equal(ttl({ 'tekton.dev/pipeline': 'build-pipeline', app: 'myapp' }), 1800, 'name match takes precedence over selector');
    assert.equal(ttl({ app: 'myapp' }), 3600, 'selector match when no name provided');
    assert.equal(ttl({ 'tekton.dev/pipeline': 'non-existent', app: 'myapp' }), 3600, "selector match when name doesn't exist");
    assert.equal(ttl({ 'tekton.dev/pipeline': 'non-existent', app: 'different' }), undefined, "no match when both name and selector don't match");
  });
});

describe("pruner's precedence", () => {
  it('level global reads only the top of the global ConfigMap', () => {
    const { config } = read('enforcedConfigLevel: global\nhistoryLimit: 7\nnamespaces:\n  dev:\n    historyLimit: 2\n', { dev: 'historyLimit: 1' });
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev'))), [7, 7, undefined]);
  });

  it("level resource: the global ConfigMap's entries by name, then its namespace (even without the field), then its top", () => {
    const { config, warnings } = read(
      `ttlSecondsAfterFinished: 100
successfulHistoryLimit: 9
namespaces:
  dev:
    failedHistoryLimit: 4
    pipelineRuns:
      - name: build
        successfulHistoryLimit: 2
`,
      { dev: 'successfulHistoryLimit: 1' },
    );
    assert.match(warnings.join('\n'), /ConfigMap dev\/tekton-pruner-namespace-spec: not applied, as tektoncd\/pruner does not apply it: the level for namespace dev is resource/);
    const build = prunerLimitsFor(config, run('dev', { 'tekton.dev/pipeline': 'build' }));
    assert.deepEqual(numbers(build), [2, 4, undefined], "dev is listed: the top's ttl does not reach it (config.go:409-429)");
    assert.equal(build.successfulHistoryLimit?.from, 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, global-config namespaces.dev.pipelineRuns[0].successfulHistoryLimit (name build)');
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev', { 'tekton.dev/pipeline': 'test' }))), [undefined, 4, undefined]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('prod'))), [9, undefined, 100]);
  });

  it("a namespace's level wins over the global one", () => {
    const { config, warnings } = read('enforcedConfigLevel: global\nhistoryLimit: 7\nnamespaces:\n  dev:\n    enforcedConfigLevel: namespace\n', { dev: 'historyLimit: 1' });
    assert.deepEqual(warnings, []);
    assert.equal(prunerLimitsFor(config, run('dev')).level, 'namespace');
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev'))), [1, 1, undefined]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('prod'))), [7, 7, undefined]);
  });

  it('successfulHistoryLimit before historyLimit, at each level', () => {
    const { config } = read('enforcedConfigLevel: namespace', {
      dev: `historyLimit: 8
successfulHistoryLimit: 6
pipelineRuns:
  - selector: [{matchLabels: {tier: web}}]
    historyLimit: 3
    failedHistoryLimit: 1
`,
    });
    const web = prunerLimitsFor(config, run('dev', { tier: 'web' }));
    assert.deepEqual(numbers(web), [3, 1, undefined]);
    assert.match(web.successfulHistoryLimit?.from ?? '', /pipelineRuns\[0\]\.historyLimit \(selector labels tier=web\)$/);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev'))), [6, 8, undefined]);
  });

  it('an entry matched by name lends no historyLimit, and says so when read', () => {
    const { config, warnings } = read('enforcedConfigLevel: namespace', { dev: 'successfulHistoryLimit: 6\npipelineRuns:\n  - name: build\n    historyLimit: 2\n' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /^--pruner-config: ConfigMap dev\/tekton-pruner-namespace-spec, key ns-config, field pipelineRuns\[0\]\.historyLimit: is not read when the entry matches by name/);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev', { 'tekton.dev/pipeline': 'build' }))), [6, undefined, undefined]);
  });

  it('the entry a name matches answers alone: a matching selector after it is not read', () => {
    const { config } = read('enforcedConfigLevel: namespace', {
      dev: 'pipelineRuns:\n  - name: build\n    ttlSecondsAfterFinished: 60\n  - selector: [{matchLabels: {tier: web}}]\n    successfulHistoryLimit: 3\n',
    });
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev', { 'tekton.dev/pipeline': 'build', tier: 'web' }))), [undefined, undefined, 60]);
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev', { 'tekton.dev/pipeline': 'test', tier: 'web' }))), [3, undefined, undefined]);
  });

  it('the first matching selector answers alone, even without the field', () => {
    const { config } = read('enforcedConfigLevel: namespace', {
      dev: 'ttlSecondsAfterFinished: 900\npipelineRuns:\n  - selector: [{matchLabels: {tier: web}}]\n    successfulHistoryLimit: 3\n  - selector: [{matchLabels: {tier: web}}]\n    ttlSecondsAfterFinished: 60\n',
    });
    assert.deepEqual(numbers(prunerLimitsFor(config, run('dev', { tier: 'web' }))), [3, undefined, 900]);
  });

  it('an empty selector matches a run with any label or annotation, and not one with none', () => {
    const { config } = read('enforcedConfigLevel: namespace', { dev: 'pipelineRuns:\n  - selector: [{}]\n    ttlSecondsAfterFinished: 60\n' });
    assert.equal(prunerLimitsFor(config, run('dev', { a: 'b' })).ttlSecondsAfterFinished?.value, 60);
    assert.equal(prunerLimitsFor(config, run('dev')).ttlSecondsAfterFinished, undefined);
  });

  it('the name label is the one pruner.tekton.dev/resourceNameLabelKey names', () => {
    assert.deepEqual(prunerResourceName(run('dev', { 'tekton.dev/pipeline': 'p', 'pipelinesascode.tekton.dev/original-prname': 'pac' }, { 'pruner.tekton.dev/resourceNameLabelKey': 'pipelinesascode.tekton.dev/original-prname' })), {
      labelKey: 'pipelinesascode.tekton.dev/original-prname',
      value: 'pac',
    });
    assert.deepEqual(prunerResourceName(run('dev', { 'tekton.dev/task': 't' }, {}, 'TaskRun')), { labelKey: 'tekton.dev/task', value: 't' });
    assert.deepEqual(prunerResourceName(run('dev', {}, {}, 'TaskRun')), { labelKey: 'tekton.dev/task', value: '' });
    assert.deepEqual(prunerResourceName(run('dev', {}, { 'pruner.tekton.dev/resourceNameLabelKey': 'constructor' })), { labelKey: 'constructor', value: '' }, 'only own keys');
  });
});

describe('what is refused, in one line', () => {
  const cases: readonly [string, PrunerConfigMaps, string][] = [
    ['YAML that does not parse', globalOnly('historyLimit: [5\n'), 'key global-config: not YAML: '],
    ['a number as a string', globalOnly('historyLimit: "5"'), 'field historyLimit: expected a whole number from 0 to 2147483647, such as 5, found the string "5"'],
    ['a negative number', globalOnly('namespaces:\n  dev:\n    ttlSecondsAfterFinished: -1'), 'field namespaces.dev.ttlSecondsAfterFinished: expected a whole number from 0 to 2147483647, such as 5, found number -1'],
    ['a fraction', globalOnly('successfulHistoryLimit: 2.5'), 'field successfulHistoryLimit: expected a whole number'],
    ['beyond int32', globalOnly('failedHistoryLimit: 2147483648'), 'field failedHistoryLimit: expected a whole number'],
    ['a level pruner does not know', globalOnly('enforcedConfigLevel: cluster'), 'field enforcedConfigLevel: expected global, namespace or resource, found the string "cluster"'],
    ['a misspelt field', globalOnly('succesfulHistoryLimit: 5'), 'field succesfulHistoryLimit: unknown field; valid at the top: enforcedConfigLevel, ttlSecondsAfterFinished, successfulHistoryLimit, failedHistoryLimit, historyLimit, namespaces'],
    ['pipelineRuns at the top of the global ConfigMap', globalOnly('pipelineRuns: []'), 'field pipelineRuns: unknown field; pipelineRuns and taskRuns belong inside namespaces.NAME'],
    ['selectors in the global ConfigMap', globalOnly('namespaces:\n  dev:\n    pipelineRuns:\n      - selector:\n        - matchLabels: {app: myapp}\n        ttlSecondsAfterFinished: 1800'), 'field namespaces.dev.pipelineRuns[0].selector: selectors are not supported in the global ConfigMap'],
    ['a top that is no mapping', globalOnly('- historyLimit: 5'), 'key global-config: expected a mapping of fields, found a list'],
    ['an unknown field with a line break in its name', globalOnly('"a\\nb": 1'), 'field "a\\nb": unknown field'],
    ['a key whose value is no text', { systemNamespace: SYSTEM, global: { data: { 'global-config': 5 } }, namespaced: [] }, 'ConfigMap tekton-pipelines/tekton-pruner-default-spec, key global-config: expected text, found number 5'],
  ];
  for (const [what, maps, message] of cases) {
    it(what, () => {
      const error = refused(maps);
      assert.ok(error.startsWith('--pruner-config: ConfigMap '), error);
      assert.ok(error.includes(message), `${error}\nshould include\n${message}`);
    });
  }
});

/** The one line a namespace ConfigMap of `dev` (level namespace) could not be read with: it fails alone, as in pruner. */
function unreadableLine(text: string): string {
  const result = readPrunerConfig(namespaceOnly('dev', text));
  if (!result.ok) assert.fail(`a namespace ConfigMap never ends the read, got: ${result.error}`);
  const line = result.config.unreadable.get('dev');
  if (line === undefined) assert.fail('expected dev to be unreadable');
  assert.doesNotMatch(line, /\n/, 'one line');
  assert.equal(result.config.namespaces.has('dev'), false, 'no policy is guessed from it');
  assert.ok(result.warnings.some((warning) => warning.startsWith(line) && warning.includes('the runs of namespace dev are kept (retention-invalid)')), result.warnings.join('\n'));
  return line;
}

describe('a namespace ConfigMap that cannot be read: its namespace only, in one line (issue 42, 9)', () => {
  // Each was refused as the whole read (exit 1) before issue 42; pruner fails only that ConfigMap
  // (pkg/reconciler/namespaceprunerconfig/reconciler.go:47-50).
  const cases: readonly [string, string, string][] = [
    ['YAML that does not parse', 'historyLimit: [5\n', 'key ns-config: not YAML: '],
    ['namespaces in a namespace ConfigMap', 'namespaces: {}', 'field namespaces: unknown field; namespaces is read only in the global ConfigMap'],
    ['a label value that is a float', 'pipelineRuns:\n  - selector:\n    - matchLabels:\n        version: 1.5\n    historyLimit: 1', 'field pipelineRuns[0].selector[0].matchLabels.version: the float 1.5, which tektoncd/pruner reads as the text of its float32; quote it as it should read, as "1.5"'],
    ['a label value that is a list', 'pipelineRuns:\n  - selector:\n    - matchLabels:\n        "my key": [5]', 'field pipelineRuns[0].selector[0].matchLabels."my key": expected a string, found a list'],
    ['a selector that is no list', 'taskRuns:\n  - selector: {matchLabels: {a: b}}', 'field taskRuns[0].selector: expected a list of selectors'],
    ['a name that is no text', 'taskRuns:\n  - name: {a: b}', "field taskRuns[0].name: expected a Pipeline's or Task's name, found a mapping"],
    ['an unknown field of a selector', 'pipelineRuns:\n  - selector:\n    - matchLabel: {a: b}', 'field pipelineRuns[0].selector[0].matchLabel: unknown field; valid here: matchLabels, matchAnnotations'],
    ['a field in another case', 'SuccessfulHistoryLimit: 3', 'field SuccessfulHistoryLimit: unknown field; tektoncd/pruner reads it as successfulHistoryLimit (its JSON decoding ignores case): write successfulHistoryLimit'],
    ['a merge key', 'taskRuns:\n  - &base {name: a, successfulHistoryLimit: 1}\n  - <<: *base\n    name: t', 'field taskRuns[1]: a merge key (<<), which tektoncd/pruner applies in place and this does not; write the fields out (written <<)'],
    ['a null label key', 'pipelineRuns:\n  - selector:\n    - matchLabels: {~: a}', 'field pipelineRuns[0].selector[0].matchLabels: a null key (~, null or nothing), which tektoncd/pruner refuses'],
    ['a float label key', 'pipelineRuns:\n  - selector:\n    - matchLabels: {1.5: a}', 'field pipelineRuns[0].selector[0].matchLabels: a float as a key, which tektoncd/pruner reads as the text of its float32; quote the key as it should read (written 1.5)'],
    ['a uint64 label key', 'pipelineRuns:\n  - selector:\n    - matchLabels: {18446744073709551615: a}', 'a key above 9223372036854775807, which tektoncd/pruner refuses'],
    ['two documents', 'historyLimit: 1\n---\nhistoryLimit: 2\n', 'key ns-config: more than one YAML document; tektoncd/pruner reads the first one only: remove the others'],
    ['a %YAML 1.2 directive', '%YAML 1.2\n---\nhistoryLimit: 1\n', 'key ns-config: a %YAML 1.2 directive, which tektoncd/pruner refuses (go-yaml v2 reads YAML 1.1 only); remove it'],
    ['a tag js-yaml does not know', 'taskRuns:\n  - name: !!binary dGVzdA==', 'key ns-config: not YAML: unknown tag'],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => {
      const line = unreadableLine(text);
      assert.ok(line.startsWith('--pruner-config: ConfigMap dev/tekton-pruner-namespace-spec, key ns-config'), line);
      assert.ok(line.includes(message), `${line}\nshould include\n${message}`);
    });
  }

  it('a malformed one where the level is not namespace is not parsed: a warning, no error (it failed the whole read before issue 42)', () => {
    const result = readPrunerConfig({
      systemNamespace: SYSTEM,
      global: { data: { 'global-config': 'enforcedConfigLevel: resource\nsuccessfulHistoryLimit: 2' } },
      namespaced: [{ namespace: 'tenant', data: { 'ns-config': 'historyLimit: [5\n' } }],
    });
    if (!result.ok) assert.fail(result.error);
    assert.equal(result.config.unreadable.size, 0);
    assert.equal(result.config.namespaces.size, 0);
    assert.deepEqual(result.warnings, [
      "--pruner-config: ConfigMap tenant/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace tenant is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
    ]);
    assert.deepEqual(numbers(prunerLimitsFor(result.config, run('tenant'))), [2, undefined, undefined]);
  });

  it('one unreadable namespace leaves the others read', () => {
    const result = readPrunerConfig({
      systemNamespace: SYSTEM,
      global: { data: { 'global-config': 'enforcedConfigLevel: namespace' } },
      namespaced: [
        { namespace: 'bad', data: { 'ns-config': 'successfulHistoryLimit: many' } },
        { namespace: 'good', data: { 'ns-config': 'successfulHistoryLimit: 1' } },
      ],
    });
    if (!result.ok) assert.fail(result.error);
    assert.deepEqual([...result.config.unreadable.keys()], ['bad']);
    assert.deepEqual(numbers(prunerLimitsFor(result.config, run('good'))), [1, undefined, undefined]);
  });

  it('the global ConfigMap that cannot be read still ends the read (pruner stops its cleanup at it: controller.go:91-94)', () => {
    assert.match(refused({ ...namespaceOnly('dev', 'historyLimit: 1'), global: { data: { 'global-config': 'historyLimit: [5\n' } } }), /^--pruner-config: ConfigMap tekton-pipelines\/tekton-pruner-default-spec, key global-config: not YAML: /);
  });
});

describe('what is read with a warning', () => {
  it('no global ConfigMap: an empty policy', () => {
    const result = readPrunerConfig({ systemNamespace: 'pruner', global: null, namespaced: [{ namespace: 'dev', data: { 'ns-config': 'historyLimit: 1' } }] });
    assert.ok(result.ok);
    assert.equal(result.config.globalFound, false);
    assert.deepEqual(result.warnings, [
      "--pruner-config: there is no ConfigMap tekton-pruner-default-spec in namespace pruner: no tektoncd/pruner policy applies (tektoncd/pruner's own controller does not start without it)",
      "--pruner-config: ConfigMap dev/tekton-pruner-namespace-spec: not applied, as tektoncd/pruner does not apply it: the level for namespace dev is resource (tekton-pruner-default-spec's enforcedConfigLevel), and only level namespace reads a namespace ConfigMap",
    ]);
    assert.deepEqual(numbers(prunerLimitsFor(result.config, run('dev'))), [undefined, undefined, undefined]);
  });

  it('an empty or absent key: an empty policy, as pruner reads it', () => {
    const result = readPrunerConfig({ systemNamespace: SYSTEM, global: { data: undefined }, namespaced: [{ namespace: 'dev', data: { 'ns-config': '' } }] });
    assert.ok(result.ok);
    assert.equal(result.config.globalFound, true);
    // Level resource (an empty global policy): dev's ConfigMap is not applied, so not read (issue 42, 9).
    assert.equal(result.config.namespaces.size, 0);
    const atNamespace = readPrunerConfig(namespaceOnly('dev', ''));
    assert.ok(atNamespace.ok);
    assert.deepEqual(atNamespace.config.namespaces.get('dev'), { pipelineRuns: [], taskRuns: [] });
  });

  it("other data keys, and a namespace ConfigMap's own level", () => {
    const result = readPrunerConfig({
      systemNamespace: SYSTEM,
      global: { data: { 'global-config': 'enforcedConfigLevel: namespace', WorkerCountForNamespaceCleanup: '5', notes: 'x' } },
      namespaced: [{ namespace: 'dev', data: { 'ns-config': 'enforcedConfigLevel: global\ntaskRuns:\n  - name: t\n    enforcedConfigLevel: resource\n' } }],
    });
    assert.ok(result.ok);
    assert.deepEqual(result.warnings, [
      '--pruner-config: ConfigMap tekton-pipelines/tekton-pruner-default-spec: data key "notes" not read (tektoncd/pruner reads global-config only)',
      '--pruner-config: ConfigMap dev/tekton-pruner-namespace-spec, key ns-config, field enforcedConfigLevel: has no effect: tektoncd/pruner reads the level from the global ConfigMap only',
      '--pruner-config: ConfigMap dev/tekton-pruner-namespace-spec, key ns-config, field taskRuns[0].enforcedConfigLevel: has no effect: tektoncd/pruner never reads the level of a pipelineRuns or taskRuns entry',
    ]);
  });
});

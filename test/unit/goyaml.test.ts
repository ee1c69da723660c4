/**
 * tektoncd/pruner's ConfigMaps read as pruner's decoder reads them (src/core/goyaml.ts, through
 * src/core/prunerconfig.ts): YAML 1.1 as go-yaml v2 resolves it, and sigs.k8s.io/yaml's
 * conversion of a scalar into a Go string field or a map key (issue 42, item 5).
 *
 * Every row of the table is what sigs.k8s.io/yaml v1.6.0 over go.yaml.in/yaml/v2 v2.4.3 (as
 * tektoncd/pruner v0.4.1 vendors them) gave for that scalar, run on each: as a label value
 * (map[string]string, pruner's matchLabels), as a limit (*int32, successfulHistoryLimit) and
 * as a label key. NO is an error there, and here the namespace ConfigMap is refused (its
 * namespace kept). Where this refuses what pruner reads, the row says what pruner read: a float
 * as text (its float32 text is not reproduced), a negative limit (pruner's webhook refuses it),
 * a tag js-yaml does not know.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prunerLimitsFor, readPrunerConfig, type PrunerNamespaceSpec } from '../../src/core/prunerconfig.js';

const NO = Symbol('refused');
type Read = string | number | null | typeof NO;

/** dev's namespace ConfigMap at level namespace, as read; NO when it cannot be read. */
function devSpec(text: string): PrunerNamespaceSpec | typeof NO {
  const result = readPrunerConfig({ systemNamespace: 'tekton-pipelines', global: { data: { 'global-config': 'enforcedConfigLevel: namespace' } }, namespaced: [{ namespace: 'dev', data: { 'ns-config': text } }] });
  if (!result.ok) assert.fail(`a namespace ConfigMap never ends the read: ${result.error}`);
  if (result.config.unreadable.has('dev')) {
    assert.doesNotMatch(result.config.unreadable.get('dev') ?? '', /\n/, 'one line');
    return NO;
  }
  const spec = result.config.namespaces.get('dev');
  assert.ok(spec !== undefined);
  return spec;
}

const selectorOf = (spec: PrunerNamespaceSpec): Readonly<Record<string, string>> => spec.pipelineRuns[0]?.selector[0]?.matchLabels ?? {};

/** matchLabels written as `lines` (indented under it), ending the text as written. */
function asLabels(lines: string): Readonly<Record<string, string>> | typeof NO {
  const spec = devSpec(`pipelineRuns:\n  - selector:\n      - matchLabels:\n          ${lines.replace(/\n(?!$)/g, '\n      ')}`);
  return spec === NO ? NO : selectorOf(spec);
}

function asValue(scalar: string): Read {
  const spec = devSpec(`pipelineRuns:\n  - selector:\n      - matchLabels:\n          k: ${scalar}\n`);
  return spec === NO ? NO : (selectorOf(spec)['k'] ?? 'absent');
}

function asLimit(scalar: string): Read {
  const spec = devSpec(`successfulHistoryLimit: ${scalar}\n`);
  return spec === NO ? NO : (spec.successfulHistoryLimit ?? null);
}

function asKey(scalar: string): Read {
  const spec = devSpec(`pipelineRuns:\n  - selector:\n      - matchLabels:\n          ${scalar}: v\n`);
  return spec === NO ? NO : (Object.keys(selectorOf(spec))[0] ?? 'absent');
}

// [scalar as written, as a label value, as a limit (null: unset), as a label key]
const TABLE: readonly [string, Read, Read, Read][] = [
  // go-yaml v2's bools (resolve.go:37-42), and words that are not
  ["y", "true", NO, "true"],
  ["Y", "true", NO, "true"],
  ["yes", "true", NO, "true"],
  ["Yes", "true", NO, "true"],
  ["YES", "true", NO, "true"],
  ["true", "true", NO, "true"],
  ["True", "true", NO, "true"],
  ["TRUE", "true", NO, "true"],
  ["on", "true", NO, "true"],
  ["On", "true", NO, "true"],
  ["ON", "true", NO, "true"],
  ["n", "false", NO, "false"],
  ["N", "false", NO, "false"],
  ["no", "false", NO, "false"],
  ["No", "false", NO, "false"],
  ["NO", "false", NO, "false"],
  ["false", "false", NO, "false"],
  ["False", "false", NO, "false"],
  ["FALSE", "false", NO, "false"],
  ["off", "false", NO, "false"],
  ["Off", "false", NO, "false"],
  ["OFF", "false", NO, "false"],
  ["yEs", "yEs", NO, "yEs"],
  ["tRue", "tRue", NO, "tRue"],
  ["o", "o", NO, "o"],
  ["\"yes\"", "yes", NO, "yes"],
  ["'no'", "no", NO, "no"],
  ["!!str yes", "yes", NO, "yes"],
  ["!!bool yes", "true", NO, "true"],
  ["!!bool 1", NO, NO, NO],
  // null (resolve.go:43): an empty value, a null limit; a null key is refused by sigs.k8s.io/yaml (yaml.go:246-248)
  ["~", "", null, NO],
  ["null", "", null, NO],
  ["Null", "", null, NO],
  ["NULL", "", null, NO],
  ["", "", null, NO],
  ["nULL", "nULL", NO, "nULL"],
  ["!!null ~", "", null, NO],
  ["!!null \"\"", "", null, NO],
  // floats (resolve.go:44-47, 132-137, 163-168): a float as text is its float32 text in pruner, refused here
  [".nan", NO, NO, NO], // pruner: value "NaN", key ".nan"
  [".NaN", NO, NO, NO], // pruner: value "NaN", key ".nan"
  [".NAN", NO, NO, NO], // pruner: value "NaN", key ".nan"
  [".inf", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  [".Inf", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  [".INF", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  ["+.inf", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  ["+.Inf", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  ["+.INF", NO, NO, NO], // pruner: value "+Inf", key ".inf"
  ["-.inf", NO, NO, NO], // pruner: value "-Inf", key "-.inf"
  ["-.Inf", NO, NO, NO], // pruner: value "-Inf", key "-.inf"
  ["-.INF", NO, NO, NO], // pruner: value "-Inf", key "-.inf"
  [".iNf", ".iNf", NO, ".iNf"],
  [".5", NO, NO, NO], // pruner: value "0.5", key "0.5"
  ["+.5", NO, NO, NO], // pruner: value "0.5", key "0.5"
  ["-.5", NO, NO, NO], // pruner: value "-0.5", key "-0.5"
  [".5_0", NO, NO, NO], // pruner: value "0.5", key "0.5"
  ["._5", "._5", NO, "._5"],
  [".5e1_0", NO, NO, NO], // pruner: value "5e+09", key "5e+09"
  [".e1", ".e1", NO, ".e1"],
  ["1.5", NO, NO, NO], // pruner: value "1.5", key "1.5"
  ["1.", NO, 1, NO], // pruner: value "1", key "1"
  ["1e3", NO, 1000, NO], // pruner: value "1000", key "1000"
  ["1E3", NO, 1000, NO], // pruner: value "1000", key "1000"
  ["1e+3", NO, 1000, NO], // pruner: value "1000", key "1000"
  ["1.5e-3", NO, NO, NO], // pruner: value "0.0015", key "0.0015"
  ["5.0", NO, 5, NO], // pruner: value "5", key "5"
  ["-0.0", NO, 0, NO], // pruner: value "-0", key "-0"
  ["08", NO, 8, NO], // pruner: value "8", key "8"
  ["09", NO, 9, NO], // pruner: value "9", key "9"
  ["1_000.5", NO, NO, NO], // pruner: value "1000.5", key "1000.5"
  ["1e400", "1e400", NO, "1e400"],
  ["-1e400", "-1e400", NO, "-1e400"],
  ["1e-400", NO, 0, NO], // pruner: value "0", key "0"
  ["99999999999999999999", NO, NO, NO], // pruner: value "1e+20", key "1e+20"
  // integers: strconv.ParseInt base 0 once every _ is removed, else ParseUint, else a float, else the 0b forms (resolve.go:139-191)
  ["0", "0", 0, "0"],
  ["00", "0", 0, "0"],
  ["010", "8", 8, "8"],
  ["-010", "-8", NO, "-8"], // pruner: limit -8 (its webhook refuses a negative one)
  ["+010", "8", 8, "8"],
  ["0o17", "15", 15, "15"],
  ["0O17", "15", 15, "15"],
  ["0x1F", "31", 31, "31"],
  ["0X1f", "31", 31, "31"],
  ["-0x1F", "-31", NO, "-31"], // pruner: limit -31 (its webhook refuses a negative one)
  ["0b101", "5", 5, "5"],
  ["0B101", "5", 5, "5"],
  ["-0b101", "-5", NO, "-5"], // pruner: limit -5 (its webhook refuses a negative one)
  ["0b-1", "-1", NO, "-1"], // pruner: limit -1 (its webhook refuses a negative one)
  ["0b+1", "1", 1, "1"],
  ["-0b-1", "-0b-1", NO, "-0b-1"],
  ["-0b+1", "-0b+1", NO, "-0b+1"],
  ["1_000", "1000", 1000, "1000"],
  ["0x_1F", "31", 31, "31"],
  ["1__0", "10", 10, "10"],
  ["_1", "_1", NO, "_1"],
  ["1_", "1", 1, "1"],
  ["9223372036854775807", "9223372036854775807", NO, "9223372036854775807"],
  ["9223372036854775808", "9223372036854775808", NO, NO],
  ["-9223372036854775808", "-9223372036854775808", NO, "-9223372036854775808"],
  ["-9223372036854775809", NO, NO, NO], // pruner: value "-9.223372e+18", key "-9.223372e+18"
  ["18446744073709551615", "18446744073709551615", NO, NO],
  ["18446744073709551616", NO, NO, NO], // pruner: value "1.8446744e+19", key "1.8446744e+19"
  ["0x8000000000000000", "9223372036854775808", NO, NO],
  ["0xFFFFFFFFFFFFFFFF", "18446744073709551615", NO, NO],
  ["2147483647", "2147483647", 2147483647, "2147483647"],
  ["2147483648", "2147483648", NO, "2147483648"],
  ["-1", "-1", NO, "-1"], // pruner: limit -1 (its webhook refuses a negative one)
  ["+1", "1", 1, "1"],
  ["-0", "0", 0, "0"],
  ["0x", "0x", NO, "0x"],
  ["0b", "0b", NO, "0b"],
  ["0o", "0o", NO, "0o"],
  ["0b2", "0b2", NO, "0b2"],
  ["012345678", NO, 12345678, NO], // pruner: value "1.2345678e+07", key "1.2345678e+07"
  ["1:20", "1:20", NO, "1:20"],
  ["190:20:30", "190:20:30", NO, "190:20:30"],
  ["0x1p3", "0x1p3", NO, "0x1p3"],
  ["1e1_0", NO, NO, NO], // pruner: value "1e+10", key "1e+10"
  ["+", "+", NO, "+"],
  // text: no sexagesimal, no hex float, timestamps as text (decode.go:474-480), quoted and tagged scalars
  ["1-2", "1-2", NO, "1-2"],
  ["2001-12-14", "2001-12-14", NO, "2001-12-14"],
  ["2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00", NO, "2001-12-14t21:59:43.10-05:00"],
  ["abc", "abc", NO, "abc"],
  ["\"010\"", "010", NO, "010"],
  ["'010'", "010", NO, "010"],
  ["!!str 010", "010", NO, "010"],
  ["!!int \"010\"", "8", 8, "8"],
  ["!!int 010", "8", 8, "8"],
  ["!!float 1", NO, 1, NO], // pruner: value "1", key "1"
  ["!!int 1.5", NO, NO, NO],
  ["!!float 18446744073709551615", NO, NO, NO],
  ["!!float 9223372036854775808", NO, NO, NO],
  ["!!float \"1e3\"", NO, 1000, NO], // pruner: value "1000", key "1000"
  ["<<", "<<", NO, NO],
  ["\"<<\"", "<<", NO, "<<"],
  ["!!binary aGk=", NO, NO, NO], // pruner: value "hi", key "hi"
  ["!foo bar", NO, NO, NO], // pruner: value "bar", key "bar"
  ["!!timestamp 2001-01-01", NO, NO, NO], // pruner: value "2001-01-01", key "2001-01-01"
];

describe('scalars as tektoncd/pruner reads them (go-yaml v2, sigs.k8s.io/yaml)', () => {
  for (const [scalar, value, limit, key] of TABLE) {
    it(JSON.stringify(scalar), () => {
      assert.deepEqual([asValue(scalar), asLimit(scalar), asKey(scalar)], [value, limit, key]);
    });
  }
});

describe('the cases of issue 42, item 5', () => {
  it('matchLabels {enabled: yes} selects the runs labelled enabled=true, as in pruner (js-yaml read "yes")', () => {
    const spec = devSpec('pipelineRuns:\n  - selector: [{matchLabels: {enabled: yes}}]\n    successfulHistoryLimit: 1\n');
    assert.ok(spec !== NO);
    assert.deepEqual(selectorOf(spec), { enabled: 'true' });
  });

  it('successfulHistoryLimit: 010 is 8, as in pruner (js-yaml read 10)', () => {
    const result = readPrunerConfig({ systemNamespace: 'p', global: { data: { 'global-config': 'successfulHistoryLimit: 010' } }, namespaced: [] });
    assert.ok(result.ok);
    const limits = prunerLimitsFor(result.config, { kind: 'PipelineRun', namespace: 'ci', name: 'r', labels: {}, annotations: {} });
    assert.equal(limits.successfulHistoryLimit?.value, 8);
  });
});

describe('documents as go-yaml v2 reads them', () => {
  it('a key written twice: the last one, as go-yaml v2 Unmarshal sets it (js-yaml refused it)', () => {
    const spec = devSpec('successfulHistoryLimit: 1\nsuccessfulHistoryLimit: 2\n');
    assert.ok(spec !== NO);
    assert.equal(spec.successfulHistoryLimit, 2);
  });

  it('anchors and aliases', () => {
    const spec = devSpec('pipelineRuns:\n  - selector: [&web {matchLabels: {tier: web, on: yes}}]\ntaskRuns:\n  - selector: [*web]\n    historyLimit: 4\n');
    assert.ok(spec !== NO);
    assert.deepEqual(spec.taskRuns[0]?.selector[0]?.matchLabels, { tier: 'web', true: 'true' });
  });

  it('a name that is a number or a bool is its text; a null name is none', () => {
    const spec = devSpec('taskRuns:\n  - name: 0x10\n    historyLimit: 1\n  - name: off\n    historyLimit: 1\n  - name: ~\n    historyLimit: 1\n');
    assert.ok(spec !== NO);
    assert.deepEqual(
      spec.taskRuns.map((entry) => entry.name),
      ['16', 'false', undefined],
    );
  });

  it('a block scalar that ends a text without a line break is refused; with one, or chomped, it is read as pruner reads it', () => {
    // sigs.k8s.io/yaml gave "web" for each of the first three, "web\n" for the fourth; js-yaml alone read "web\n" for all four.
    for (const written of ['k: |\n      web', 'k: |+\n      web', 'k: >\n      web']) assert.equal(asLabels(written), NO, written);
    assert.deepEqual(asLabels('k: |\n      web\n'), { k: 'web\n' });
    assert.deepEqual(asLabels('k: |-\n      web'), { k: 'web' });
    assert.deepEqual(asLabels('k: "web\\n"'), { k: 'web\n' }, 'a quoted scalar at the end is read as written');
    // A last line of spaces beyond the indentation is content: sigs.k8s.io/yaml gave "web\n ", js-yaml alone "web\n \n".
    assert.equal(asLabels('k: |\n      web\n       '), NO);
  });

  it('a level as text, and a %YAML 1.1 directive, are read', () => {
    const result = readPrunerConfig({ systemNamespace: 'p', global: { data: { 'global-config': '%YAML 1.1\n---\nenforcedConfigLevel: !!str namespace\n' } }, namespaced: [] });
    assert.ok(result.ok, result.ok ? '' : result.error);
  });
});

/**
 * The chart's collectors (`collect`, `pvcFinalizer`, `maxDeletionsPerKind`) as `helm template`
 * renders them, without a cluster: the RBAC of each collector on and of none off, `delete`
 * and `patch` only for a live release, the flags the container gets, the values refused in
 * one line, and the defaults rendered exactly as before collectors existed (golden files).
 * What the API server makes of these rules, with the ServiceAccount's token:
 * test/integration/chart.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ClusterRole, V1Container, V1CronJob, V1Pod, V1PolicyRule, V1Role } from '@kubernetes/client-node';
import type { Exit } from '../support/exec.js';
import { assertGolden } from '../support/golden.js';
import { CHART, chartHelm, type Values } from '../support/helm.js';
type Manifest = { kind: string; metadata: { name: string; namespace?: string } } & Record<string, unknown>;

const helm = chartHelm('chart-collect');

function template(values: Values, namespace = 'trgc-system'): Promise<Exit> {
  return helm.template([values], { namespace });
}

const renderYaml = (values: Values): Promise<string> => helm.renderYaml([values]);
const render = (values: Values = {}): Promise<Manifest[]> => helm.render<Manifest>([values]);

function rulesOf(rules: V1PolicyRule[] | undefined): string[] {
  return (rules ?? []).map((rule) => `${(rule.apiGroups ?? []).join(',')} ${(rule.resources ?? []).join(',')} [${(rule.resourceNames ?? []).join(',')}] ${rule.verbs.join(',')}`).sort();
}

function one(objects: Manifest[], kind: string, namespace?: string): Manifest {
  const found = objects.filter((object) => object.kind === kind && (namespace === undefined || object.metadata.namespace === namespace));
  assert.equal(found.length, 1, `one ${kind}${namespace === undefined ? '' : ` in ${namespace}`}, found ${found.length}`);
  return found[0] as Manifest;
}

/** The rules of the release's one ClusterRole (every namespace). */
async function clusterRules(values: Values): Promise<string[]> {
  return rulesOf((one(await render(values), 'ClusterRole') as V1ClusterRole).rules);
}

function containerOf(objects: Manifest[]): V1Container {
  const containers = (one(objects, 'CronJob') as V1CronJob).spec?.jobTemplate.spec?.template.spec?.containers ?? [];
  assert.equal(containers.length, 1);
  return containers[0] as V1Container;
}

/** Whether `rule` (as rulesOf writes it) changes anything: delete, patch, or any verb that writes. */
const writes = (rule: string): boolean => /[ ,](delete|patch|update|create|deletecollection)(,|$)/.test(rule) && !rule.startsWith('events.k8s.io ');

const LIVE = { dryRun: false };
const RUNS = 'tekton.dev pipelineruns,taskruns [] get,list';
const NAMESPACES = ' namespaces [] get,list';
const EVENTS = 'events.k8s.io events [] create';
/** With a run collector: the kinds a run owns, listed by the retain label (kube/cluster.ts listRetainedOwned), list alone. */
const RUN_OWNED = [' persistentvolumeclaims,pods,secrets [] list', 'apps statefulsets [] list', 'resolution.tekton.dev resolutionrequests [] list'];
const withRunOwned = (rules: readonly string[]): string[] => [...rules, ...RUN_OWNED].sort();

describe('the defaults render exactly as before collectors existed', () => {
  it('the default release (a dry run of every namespace): the same objects, rules, args and variables, byte for byte', async () => {
    assertGolden('chart-defaults.yaml', await renderYaml({}));
  });

  it('a live release in named namespaces applying a plan: the same, byte for byte', async () => {
    assertGolden('chart-live-named-apply.yaml', await renderYaml({ dryRun: false, namespaces: ['team-a', 'team-b'], planConfigMap: 'reviewed-plan' }));
  });

  it('the defaults written out (collect [pipelineresources], pvcFinalizer keep, no caps) render as the defaults', async () => {
    assert.equal(await renderYaml({ collect: ['pipelineresources'], pvcFinalizer: 'keep', maxDeletionsPerKind: {} }), await renderYaml({}));
  });
});

describe('RBAC per collector: rules only for the collectors on', () => {
  it('scenario 28: collect [pipelineresources, workspace-pvcs] grants PVCs, Pods and StatefulSets, nothing on Secrets', async () => {
    const rules = await clusterRules({ ...LIVE, collect: ['pipelineresources', 'workspace-pvcs'] });
    assert.deepEqual(rules, [
      NAMESPACES,
      ' persistentvolumeclaims [] get,list,delete',
      ' pods [] list',
      'apps statefulsets [] list',
      EVENTS,
      'tekton.dev pipelineresources [] get,list,delete',
      RUNS,
    ]);
    assert.ok(!rules.some((rule) => rule.includes('secrets')));
  });

  // Each collector alone, live and cluster-wide: exactly its rules, the runs and namespaces every collector reads, and Events.
  const ALONE: Record<string, string[]> = {
    pipelineresources: [NAMESPACES, EVENTS, 'tekton.dev pipelineresources [] get,list,delete', RUNS],
    'workspace-pvcs': [NAMESPACES, ' persistentvolumeclaims [] get,list,delete', ' pods [] list', 'apps statefulsets [] list', EVENTS, RUNS],
    'affinity-assistants': [NAMESPACES, 'apps statefulsets [] get,list,delete', EVENTS, RUNS],
    'pac-secrets': [NAMESPACES, ' pods [] list', ' secrets [] get,list,delete', EVENTS, RUNS],
    'resolution-requests': [NAMESPACES, EVENTS, 'resolution.tekton.dev resolutionrequests [] get,list,delete', RUNS],
  };

  for (const [collector, expected] of Object.entries(ALONE)) {
    it(`${collector} alone: its own rules and no other collector's`, async () => {
      assert.deepEqual(await clusterRules({ ...LIVE, collect: [collector] }), expected);
    });
  }

  it('all five at once: the union, StatefulSets once with the verbs of affinity-assistants', async () => {
    assert.deepEqual(await clusterRules({ ...LIVE, collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs', 'resolution-requests'] }), [
      NAMESPACES,
      ' persistentvolumeclaims [] get,list,delete',
      ' pods [] list',
      ' secrets [] get,list,delete',
      'apps statefulsets [] get,list,delete',
      EVENTS,
      'resolution.tekton.dev resolutionrequests [] get,list,delete',
      'tekton.dev pipelineresources [] get,list,delete',
      RUNS,
    ]);
  });

  it('runs: delete on pipelineruns or taskruns only when live and that run collector is named; list as before', async () => {
    assert.deepEqual(await clusterRules({ ...LIVE, collect: ['pipelineruns'] }), withRunOwned([NAMESPACES, EVENTS, 'tekton.dev pipelineruns [] delete', RUNS]));
    assert.deepEqual(await clusterRules({ ...LIVE, collect: ['taskruns'] }), withRunOwned([NAMESPACES, EVENTS, RUNS, 'tekton.dev taskruns [] delete']));
    assert.deepEqual(
      await clusterRules({ ...LIVE, collect: ['pipelineresources', 'pipelineruns', 'taskruns'] }),
      withRunOwned([NAMESPACES, EVENTS, 'tekton.dev pipelineresources [] get,list,delete', 'tekton.dev pipelineruns,taskruns [] delete', RUNS]),
    );
    // A dry run, or a release that names no run collector, may not delete a run; the kinds a run owns are listed all the same.
    assert.deepEqual(await clusterRules({ collect: ['pipelineruns', 'taskruns'] }), withRunOwned([NAMESPACES, EVENTS, RUNS]));
    // Without a run collector, those lists are not granted.
    assert.deepEqual(await clusterRules({ collect: ['pipelineresources'] }), [NAMESPACES, EVENTS, 'tekton.dev pipelineresources [] get,list', RUNS]);
    assert.ok(!(await clusterRules({ ...LIVE, collect: ['workspace-pvcs'] })).some((rule) => rule.startsWith('tekton.dev pipelineruns') && writes(rule)));
    // Named namespaces: the same rules in each Role.
    const roles = (await render({ ...LIVE, collect: ['pipelineruns'], namespaces: ['ci'] })).filter((object) => object.kind === 'Role');
    assert.ok(roles.length > 0);
    for (const role of roles) {
      assert.ok(rulesOf((role as V1Role).rules).includes('tekton.dev pipelineruns [] delete'), role.metadata.name);
      for (const rule of RUN_OWNED) assert.ok(rulesOf((role as V1Role).rules).includes(rule), `${role.metadata.name}: ${rule}`);
    }
  });

  it("runs: the runs' settings go as flags only when set, and only with a run collector", async () => {
    const args = (values: Values): Promise<string[]> => render(values).then((objects) => containerOf(objects).args ?? []);
    assert.deepEqual(await args({ ...LIVE, collect: ['pipelineruns'] }), ['run', '--collect=pipelineruns']);
    assert.deepEqual(await args({ ...LIVE, collect: ['pipelineruns'], keep: 5, keepFailed: 2, runTtl: '7d', groupBy: 'app', requireResultsStored: true }), [
      'run',
      '--collect=pipelineruns',
      '--keep=5',
      '--keep-failed=2',
      '--run-ttl=7d',
      '--group-by=app',
      '--require-results-stored',
    ]);
  });

  it('pvcFinalizer purge adds patch on PersistentVolumeClaims, and nothing else', async () => {
    const keep = await clusterRules({ ...LIVE, collect: ['workspace-pvcs'] });
    const purge = await clusterRules({ ...LIVE, collect: ['workspace-pvcs'], pvcFinalizer: 'purge' });
    assert.deepEqual(
      purge,
      keep.map((rule) => (rule === ' persistentvolumeclaims [] get,list,delete' ? ' persistentvolumeclaims [] get,list,delete,patch' : rule)),
    );
  });

  it('a dry run may neither delete nor patch, for any collector, purge included; its reads are the live ones', async () => {
    const all = { collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs'], pvcFinalizer: 'purge' };
    const dry = await clusterRules(all);
    assert.deepEqual(dry.filter(writes), []);
    const live = await clusterRules({ ...all, ...LIVE });
    const readsOf = (rules: string[]): string[] => rules.map((rule) => rule.replace(/,(delete|patch)/g, '')).sort();
    assert.deepEqual(readsOf(live), dry);
    assert.deepEqual(live.filter(writes), [
      ' persistentvolumeclaims [] get,list,delete,patch',
      ' secrets [] get,list,delete',
      'apps statefulsets [] get,list,delete',
      'tekton.dev pipelineresources [] get,list,delete',
    ]);
  });

  it('without pipelineresources, nothing on PipelineResources; runs are still read', async () => {
    const rules = await clusterRules({ ...LIVE, collect: ['pac-secrets'] });
    assert.ok(!rules.some((rule) => rule.includes('pipelineresources')));
    assert.ok(rules.includes(RUNS));
  });

  it('without events, no Event rule for the leftover collectors either', async () => {
    assert.deepEqual(await clusterRules({ ...LIVE, events: false, collect: ['affinity-assistants'] }), [NAMESPACES, 'apps statefulsets [] get,list,delete', RUNS]);
  });

  it('named namespaces: a Role in each collected one with the collectors\' rules, and nothing of theirs cluster-wide', async () => {
    const objects = await render({ ...LIVE, namespaces: ['team-a', 'team-b', 'team-c'], excludeNamespaces: ['team-c'], collect: ['workspace-pvcs', 'pac-secrets'], pvcFinalizer: 'purge' });
    assert.deepEqual(
      objects.filter((object) => object.kind === 'Role').map((object) => object.metadata.namespace),
      ['team-a', 'team-b'],
    );
    for (const namespace of ['team-a', 'team-b']) {
      assert.deepEqual(rulesOf((one(objects, 'Role', namespace) as V1Role).rules), [
        ' persistentvolumeclaims [] get,list,delete,patch',
        ' pods [] list',
        ' secrets [] get,list,delete',
        'apps statefulsets [] list',
        EVENTS,
        RUNS,
      ]);
    }
    assert.deepEqual(rulesOf((one(objects, 'ClusterRole') as V1ClusterRole).rules), [' namespaces [team-a,team-b] get']);
    assert.equal(objects.filter((object) => object.kind === 'ClusterRoleBinding').length, 1);
  });

  it('shards: one ClusterRole with the collectors\' rules, and list on Namespaces for the selectors', async () => {
    const rules = await clusterRules({ ...LIVE, collect: ['affinity-assistants'], shards: [{ name: 'a', namespaceSelector: 'shard=a' }, { name: 'b', namespaceSelector: 'shard=b' }] });
    assert.deepEqual(rules, ALONE['affinity-assistants']);
  });

  it('rbac.create false renders no RBAC whatever is collected', async () => {
    const objects = await render({ ...LIVE, collect: ['pac-secrets'], rbac: { create: false } });
    assert.deepEqual(objects.map((object) => object.kind).sort(), ['CronJob', 'Pod', 'ServiceAccount']);
  });
});

describe('the collectors reach the container as flags', () => {
  it('collect as --collect=a,b in the order given; the defaults pass no flag', async () => {
    assert.deepEqual(containerOf(await render({})).args, ['run']);
    assert.deepEqual(containerOf(await render({ collect: ['workspace-pvcs', 'pipelineresources'] })).args, ['run', '--collect=workspace-pvcs,pipelineresources']);
    assert.deepEqual(containerOf(await render({ collect: ['pac-secrets'] })).args, ['run', '--collect=pac-secrets']);
  });

  it('pvcFinalizer purge as --pvc-finalizer=purge; caps as one --max-deletions-per-kind=COLLECTOR=N each, in the collectors\' order, whole numbers as written', async () => {
    const objects = await render({
      collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'],
      pvcFinalizer: 'purge',
      maxDeletionsPerKind: { 'workspace-pvcs': 2000000, pipelineresources: 0, 'pac-secrets': 500 },
    });
    assert.deepEqual(containerOf(objects).args, [
      'run',
      '--collect=pipelineresources,pac-secrets,workspace-pvcs',
      '--pvc-finalizer=purge',
      '--max-deletions-per-kind=pipelineresources=0',
      '--max-deletions-per-kind=pac-secrets=500',
      '--max-deletions-per-kind=workspace-pvcs=2000000',
    ]);
    // A cap on the default collector alone: only that flag.
    assert.deepEqual(containerOf(await render({ maxDeletionsPerKind: { pipelineresources: 10 } })).args, ['run', '--max-deletions-per-kind=pipelineresources=10']);
  });

  it('the variables are the same with or without collectors: only the args change', async () => {
    const env = (objects: Manifest[]): unknown => containerOf(objects).env;
    assert.deepEqual(env(await render({ collect: ['workspace-pvcs'], pvcFinalizer: 'purge', maxDeletionsPerKind: { 'workspace-pvcs': 5 } })), env(await render({})));
  });

  it("apply mode passes them after the plan; helm test's pod makes its dry run with them; every shard's CronJob has them", async () => {
    const values = { ...LIVE, collect: ['pipelineresources', 'workspace-pvcs'], pvcFinalizer: 'purge', planConfigMap: 'reviewed-plan' };
    const objects = await render(values);
    assert.deepEqual(containerOf(objects).args, ['apply', '/etc/tekton-resource-gc/plan/plan.json', '--collect=pipelineresources,workspace-pvcs', '--pvc-finalizer=purge']);
    assert.deepEqual((one(objects, 'Pod') as V1Pod).spec?.containers[0]?.args, ['run', '--collect=pipelineresources,workspace-pvcs', '--pvc-finalizer=purge']);
    // A plan of runs: the runs' settings go to apply too, which compares them with the plan's.
    const runs = await render({ ...LIVE, collect: ['pipelineruns'], keep: 3, maxCascadeDeletions: 5000, planConfigMap: 'reviewed-plan' });
    assert.deepEqual(containerOf(runs).args, ['apply', '/etc/tekton-resource-gc/plan/plan.json', '--collect=pipelineruns', '--keep=3', '--max-cascade-deletions=5000']);
    const sharded = await render({ collect: ['pac-secrets'], shards: [{ name: 'a', namespaceSelector: 'shard=a' }, { name: 'b', namespaceSelector: 'shard=b' }] });
    const cronJobs = sharded.filter((object) => object.kind === 'CronJob') as V1CronJob[];
    assert.deepEqual(
      cronJobs.map((cronJob) => cronJob.spec?.jobTemplate.spec?.template.spec?.containers[0]?.args),
      [['run', '--collect=pac-secrets'], ['run', '--collect=pac-secrets']],
    );
  });
});

describe('bad collector values fail the render, each in one line that says what to set', () => {
  /** The one line of stderr that states the error, whatever Helm prints around it. */
  async function refusal(values: Values): Promise<string> {
    const exit = await template(values);
    assert.notEqual(exit.code, 0, `rendered:\n${exit.stdout}`);
    return exit.stderr;
  }

  const VALID = "'pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs', 'resolution-requests', 'pipelineruns', 'taskruns'";

  // The schema's checks: Helm names the value's path and what it takes, on one line.
  const SCHEMA: { why: string; values: Values; line: RegExp }[] = [
    { why: 'an unknown collector', values: { collect: ['pipelineresources', 'pvcs'] }, line: new RegExp(`^.*at '/collect/1': value must be one of ${VALID}$`, 'm') },
    { why: 'all, which does not exist', values: { collect: ['all'] }, line: new RegExp(`^.*at '/collect/0': value must be one of ${VALID}$`, 'm') },
    { why: 'one collector as a string', values: { collect: 'workspace-pvcs' }, line: /^.*at '\/collect': got string, want array$/m },
    { why: 'no collector', values: { collect: [] }, line: /^.*at '\/collect': minItems: got 0, want 1$/m },
    { why: 'a collector twice', values: { collect: ['pac-secrets', 'pac-secrets'] }, line: /^.*at '\/collect': items at 0 and 1 are equal$/m },
    { why: 'an unknown pvcFinalizer', values: { pvcFinalizer: 'delete' }, line: /^.*at '\/pvcFinalizer': value must be one of 'keep', 'purge'$/m },
    { why: 'a cap on an unknown collector', values: { maxDeletionsPerKind: { pvcs: 5 } }, line: /^.*at '\/maxDeletionsPerKind': additional properties 'pvcs' not allowed$/m },
    { why: 'a negative cap', values: { maxDeletionsPerKind: { 'pac-secrets': -1 } }, line: /^.*at '\/maxDeletionsPerKind\/pac-secrets': minimum: got -1, want 0$/m },
    { why: 'a fractional cap', values: { maxDeletionsPerKind: { 'pac-secrets': 2.5 } }, line: /^.*at '\/maxDeletionsPerKind\/pac-secrets': got number, want integer$/m },
    { why: 'a history limit that is not a whole number', values: { collect: ['pipelineruns'], keep: 'five' }, line: /^.*at '\/keep': 'five' does not match pattern/m },
    { why: 'a run TTL that is not a duration', values: { collect: ['pipelineruns'], runTtl: '7days' }, line: /^.*at '\/runTtl': '7days' does not match pattern/m },
  ];

  for (const { why, values, line } of SCHEMA) {
    it(`refuses ${why}`, async () => {
      const stderr = await refusal(values);
      assert.match(stderr, /values don't meet the specifications of the schema/);
      assert.match(stderr, line);
    });
  }

  // The chart's own checks, across values: the whole error is one line (and Helm's hint to use --debug).
  const CHART: { why: string; values: Values; line: RegExp }[] = [
    {
      why: 'purge without workspace-pvcs',
      values: { pvcFinalizer: 'purge' },
      line: /pvcFinalizer: purge applies to the claims of workspace-pvcs, which collect \(pipelineresources\) does not name; add it, such as --set 'collect=\{pipelineresources,workspace-pvcs\}'$/,
    },
    {
      why: 'a cap on a collector that is off',
      values: { collect: ['pipelineresources', 'workspace-pvcs'], maxDeletionsPerKind: { 'pac-secrets': 5 } },
      line: /maxDeletionsPerKind: pac-secrets is capped but not in collect \(pipelineresources, workspace-pvcs\); cap only collectors that are on, or add it, such as --set 'collect=\{pipelineresources,workspace-pvcs,pac-secrets\}'$/,
    },
    {
      why: "a run setting without a run collector",
      values: { keep: 3 },
      line: /keep: 3 applies to runs, which collect \(pipelineresources\) does not name; add pipelineruns or taskruns, such as --set 'collect=\{pipelineresources,pipelineruns\}'$/,
    },
    {
      why: 'a cap on the cascade without a run collector',
      values: { maxCascadeDeletions: 500 },
      line: /maxCascadeDeletions: 500 caps what goes with runs, which collect \(pipelineresources\) does not name; add pipelineruns or taskruns, such as --set 'collect=\{pipelineresources,pipelineruns\}'$/,
    },
    {
      why: 'a selector with a run collector beside one whose targets a run owns',
      values: { collect: ['pipelineruns', 'workspace-pvcs', 'pac-secrets'], selector: 'app=ci' },
      line: /selector: app=ci cannot narrow workspace-pvcs, pac-secrets beside pipelineruns \(a run is kept while something that goes with it is kept, and the selector would hide those it does not match\); collect runs in a release of their own, such as --set 'collect=\{pipelineruns\}'$/,
    },
    {
      why: 'extraEnv setting TRGC_COLLECT, which would collect behind the RBAC',
      values: { extraEnv: [{ name: 'TRGC_COLLECT', value: 'pac-secrets' }] },
      line: /extraEnv: TRGC_COLLECT is the chart's own variable for a setting; set the setting's value instead/,
    },
  ];

  for (const { why, values, line } of CHART) {
    it(`refuses ${why}`, async () => {
      const lines = (await refusal(values)).split('\n').filter((text) => text.trim() !== '' && !text.startsWith('Use --debug flag'));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0] ?? '', line);
    });
  }

  it('takes the same kinds of value when they are right', async () => {
    await render({ ...LIVE, collect: ['workspace-pvcs'], pvcFinalizer: 'purge', maxDeletionsPerKind: { 'workspace-pvcs': 0 } });
  });
});

describe('NOTES', () => {
  async function notes(values: Values): Promise<string> {
    const exit = await helm.run(['install', 'gc', CHART, '--namespace', 'trgc-system', '--dry-run=client'], [values]);
    assert.equal(exit.code, 0, exit.stderr);
    return exit.stdout.slice(exit.stdout.indexOf('NOTES:\n'));
  }

  it('name the collectors, the finalizer mode and the caps when set; warn that pac-secrets in every namespace reads every Secret', async () => {
    const text = await notes({ ...LIVE, collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'], pvcFinalizer: 'purge', maxDeletionsPerKind: { 'pac-secrets': 50 } });
    assert.match(text, /LIVE: this release DELETES what it collects on every pass\./);
    assert.match(text, /^Collects: +pipelineresources, pac-secrets, workspace-pvcs; PVC finalizer: purge; at most 50 pac-secrets per pass$/m);
    assert.match(text, /this ServiceAccount may read every Secret of\s+the cluster/);
    const named = await notes({ collect: ['pac-secrets'], namespaces: ['team-a'] });
    assert.match(named, /^Collects: +pac-secrets$/m);
    assert.doesNotMatch(named, /every Secret/);
  });

  it('say nothing of collectors for the defaults', async () => {
    const text = await notes(LIVE);
    assert.match(text, /LIVE: this release DELETES PipelineResources on every pass\./);
    assert.doesNotMatch(text, /Collects:/);
  });
});

describe('selector with the run collectors', () => {
  it('renders with runs alone, or beside PipelineResources: the selector picks the runs that are targets', async () => {
    for (const collect of [['pipelineruns', 'taskruns'], ['pipelineresources', 'pipelineruns']]) {
      const container = containerOf(await render({ collect, keep: 3, selector: 'team=a' }));
      assert.deepEqual(container.args, ['run', `--collect=${collect.join(',')}`, '--keep=3']);
      assert.deepEqual(container.env?.find((variable) => variable.name === 'TRGC_SELECTOR'), { name: 'TRGC_SELECTOR', value: 'team=a' });
    }
  });
});

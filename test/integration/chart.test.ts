/**
 * The Helm chart and the container image (issue 5), against one real kube-apiserver:
 * lint and render for the defaults and both scopes, create the rendered objects so the
 * API server validates them (Pod Security "restricted" included), refuse bad values,
 * map every value to the collector's own configuration, run the collector with a token
 * of the chart's ServiceAccount under the chart's RBAC, and replay the Dockerfile without
 * Docker to run what the image would hold.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  loadAllYaml,
  PatchStrategy,
  setHeaderOptions,
  type V1ClusterRole,
  type V1Container,
  type V1CronJob,
  type V1OwnerReference,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1PolicyRule,
  type V1Role,
} from '@kubernetes/client-node';
import { ensureBinaries } from '../../harness/build.js';
import { startControlPlane, type ControlPlane, type Manifest as ObjectManifest } from '../../harness/controlplane.js';
import { PROMETHEUS_RULE_CRD } from '../../harness/crds.js';
import { FLAG_NAMES, envVarName, parseConfig, type Config, type FlagName } from '../../src/cli/config.js';
import { flagSpec } from '../../src/cli/flags.js';
import { parseDurationMs } from '../../src/core/retention.js';
import { outcomes, reportOf, runCli, type CliResult } from '../support/cli.js';
import { startGroupStore } from '../support/pushgateway.js';
import { Seeder, statusOf } from '../support/seed.js';
import { gitResource, pipelineRun } from '../support/tekton.js';
import { exec, toolEnv as toolEnvIn, type Exit } from '../support/exec.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHART = path.join(ROOT, 'chart');
const PACKAGE = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

/**
 * Flags the chart deliberately does not set (no chart column in src/cli/flags.ts): the pod has no report file and uses its own
 * credentials, and the CronJob itself schedules the passes (its own `schedule` and
 * `timeZone` values), so the collector never runs in schedule mode there. Its log is no
 * terminal (`progress`). A person writes a plan (`plan-file`: the pod's root is read-only)
 * and asks `explain --plan`; the CronJob only applies a reviewed one (`planConfigMap`,
 * with `planDigest` and `planMaxAge`, which it does set).
 */
const FLAGS_NOT_IN_CHART: readonly FlagName[] = FLAG_NAMES.filter((flag) => flagSpec(flag).chart === undefined);

/**
 * Flags the chart passes as flags rather than variables (chart column `arg`), and only when set away from their
 * defaults (collect, pvcFinalizer, prunerConfig, maxDeletionsPerKind): a release that leaves them alone
 * renders as it did before they existed.
 */
const FLAGS_AS_ARGS: readonly FlagName[] = FLAG_NAMES.filter((flag) => flagSpec(flag).chart?.as === 'arg');

/** A pass over everything, with no waiting: what the RBAC tests run. */
const LIVE = { dryRun: false, minAge: '0s', output: 'json' };
/** The PrometheusRule and the Grafana dashboard on, with every alert (workspace-pvcs for the claims'). */
const MONITORED: Values = {
  pushgatewayUrl: 'http://pushgateway.monitoring:9091',
  collect: ['pipelineresources', 'workspace-pvcs'],
  prometheusRule: { enabled: true, alertLabels: { team: 'ci' } },
  grafanaDashboard: { enabled: true, folder: 'CI' },
};

type Values = Record<string, unknown>;
type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } & Record<string, unknown>;

interface Release {
  name: string;
  namespace: string;
  values: Values;
  /** helm template's output, as created on the API server. */
  yaml: string;
  objects: Manifest[];
}

let controlPlane: ControlPlane;
let helmPath: string;
let kubectlPath: string;
let work: string;
let imageBuild: Promise<ImageReplay>;

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'trgc-chart-'));
  const binaries = await ensureBinaries(['helm', 'kubectl']);
  helmPath = binaries.helm;
  kubectlPath = binaries.kubectl;
  // The slowest part (two npm installs and a compile) runs while the cluster tests do.
  imageBuild = replayDockerfile(path.join(work, 'image'));
  imageBuild.catch(() => undefined);
  controlPlane = await startControlPlane({ crds: 'v0.45' });
});

after(async () => {
  await imageBuild?.catch(() => undefined);
  await controlPlane?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

// ---- processes ----

function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Exit> {
  return exec(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? toolEnv(), input: options.input ?? '' });
}

/** Helm and kubectl keep their caches and settings in the test's directory. */
function toolEnv(): NodeJS.ProcessEnv {
  return toolEnvIn(work);
}

function succeeded(exit: Exit, what: string): string {
  assert.equal(exit.code, 0, `${what} failed (exit ${exit.code ?? 'on a signal'}):\n${exit.stderr}${exit.stdout}`);
  return exit.stdout;
}

// ---- helm ----

async function valuesFile(values: Values): Promise<string> {
  const dir = await mkdtemp(path.join(work, 'values-'));
  const file = path.join(dir, 'values.yaml');
  // JSON is YAML; a file keeps types exactly (--set would turn 2.5 into a string).
  await writeFile(file, JSON.stringify(values));
  return file;
}

async function helmTemplate(name: string, namespace: string, values: Values): Promise<Exit> {
  return run(helmPath, ['template', name, CHART, '--namespace', namespace, '--values', await valuesFile(values)]);
}

async function render(name: string, namespace: string, values: Values = {}): Promise<Release> {
  const yaml = succeeded(await helmTemplate(name, namespace, values), `helm template ${name}`);
  // loadAllYaml builds client-node's model classes; JSON makes them plain objects to compare.
  // (The models drop fields they do not know; install() has the API server refuse those.)
  const parsed = (loadAllYaml(yaml) as (Manifest | null)[]).filter((object): object is Manifest => object !== null);
  const objects = JSON.parse(JSON.stringify(parsed)) as Manifest[];
  return { name, namespace, values, yaml, objects };
}

async function helmLint(values: Values): Promise<void> {
  succeeded(await run(helmPath, ['lint', '--strict', CHART, '--values', await valuesFile(values)]), 'helm lint');
}

/** NOTES.txt as `helm install` prints it. */
async function notes(name: string, namespace: string, values: Values): Promise<string> {
  const out = succeeded(
    await run(helmPath, ['install', name, CHART, '--namespace', namespace, '--dry-run=client', '--values', await valuesFile(values)]),
    'helm install --dry-run=client',
  );
  const start = out.indexOf('NOTES:\n');
  assert.notEqual(start, -1, `no NOTES in:\n${out}`);
  return out.slice(start + 'NOTES:\n'.length);
}

function find(release: Release, kind: string, name?: string, namespace?: string): Manifest {
  const found = release.objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata.name === name) && (namespace === undefined || object.metadata.namespace === namespace),
  );
  assert.equal(found.length, 1, `expected one ${kind} ${namespace ?? ''}/${name ?? '*'}, found ${found.length}`);
  return found[0] as Manifest;
}

function cronJobOf(release: Release): V1CronJob {
  return find(release, 'CronJob');
}

function containerOf(release: Release): V1Container {
  const containers = cronJobOf(release).spec?.jobTemplate.spec?.template.spec?.containers ?? [];
  assert.equal(containers.length, 1);
  return containers[0] as V1Container;
}

/** The container's environment, every variable a plain value. */
function envOf(container: V1Container): Record<string, string> {
  return Object.fromEntries(
    (container.env ?? []).map((variable) => {
      assert.equal(variable.valueFrom, undefined, `${variable.name} should be a plain value`);
      return [variable.name, variable.value ?? ''];
    }),
  );
}

const RESTRICTED = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' };

let defaults: Promise<{ release: Release; created: Exit }> | undefined;

/** The defaults, installed once in a namespace that enforces Pod Security "restricted"; tests that need them share them. */
function installedDefaults(): Promise<{ release: Release; created: Exit }> {
  defaults ??= (async () => {
    await createNamespace('trgc-defaults', RESTRICTED);
    const release = await render('defaults', 'trgc-defaults');
    return { release, created: await install(release) };
  })();
  return defaults;
}

/** The `helm test` hook: a Pod. */
function testPodOf(release: Release): V1Pod {
  return find(release, 'Pod');
}

/** The ServiceAccount the release's CronJobs run as (with shards, every CronJob's: one is checked to be all's). */
function serviceAccountOf(release: Release): string {
  const names = new Set((release.objects.filter((object) => object.kind === 'CronJob') as V1CronJob[]).map((cronJob) => cronJob.spec?.jobTemplate.spec?.template.spec?.serviceAccountName));
  assert.equal(names.size, 1, 'every CronJob of a release runs as its one ServiceAccount');
  const [name] = names;
  assert.ok(name !== undefined);
  return name;
}

/**
 * The settings the collector reads from the container. Where each came from (Config.origins)
 * is checked here, not returned: every setting the chart passes, from its own variable, or
 * from its flag for those it passes as flags.
 */
function configOf(container: V1Container): Omit<Config, 'origins'> {
  const invocation = parseConfig(container.args ?? [], envOf(container));
  assert.equal(invocation.kind, 'run');
  const { origins, ...config } = invocation.config;
  for (const [flag, origin] of Object.entries(origins ?? {})) {
    assert.equal(origin, FLAGS_AS_ARGS.includes(flag as FlagName) ? `--${flag}` : envVarName(flag as FlagName), flag);
  }
  return config;
}

// ---- the API server ----

async function kubectl(args: readonly string[], input?: string): Promise<Exit> {
  return run(kubectlPath, ['--kubeconfig', controlPlane.kubeconfigPath, ...args], input === undefined ? {} : { input });
}

/** helm template's documents less its hooks (the `helm test` pod), which `helm install` does not create. */
function withoutHooks(yaml: string): string {
  return yaml
    .split(/^---$/m)
    .filter((document) => !/^\s+helm\.sh\/hook:/m.test(document))
    .join('---');
}

/** Creates the release's objects as `helm install` would, with the server refusing unknown or invalid fields. */
async function install(release: Release): Promise<Exit> {
  const exit = await kubectl(['create', '--validate=strict', '-f', '-'], withoutHooks(release.yaml));
  succeeded(exit, `creating release ${release.name}`);
  return exit;
}

/** `helm install` itself on the API server: what an operator runs (it creates no test hook). */
async function helmInstall(name: string, namespace: string, values: Values = {}): Promise<string> {
  const args = ['install', name, CHART, '--namespace', namespace, '--kubeconfig', controlPlane.kubeconfigPath, '--values', await valuesFile(values)];
  return succeeded(await run(helmPath, args), `helm install ${name}`);
}

async function createNamespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  await controlPlane.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name, labels } } });
}

/** A kubeconfig holding a fresh token of the release's ServiceAccount (TokenRequest API). */
async function serviceAccountKubeconfig(release: Release): Promise<string> {
  const token = await controlPlane.createServiceAccountToken(release.namespace, serviceAccountOf(release));
  const file = path.join(work, `kubeconfig-${release.name}`);
  await writeFile(file, controlPlane.kubeConfig(token).exportConfig(), { mode: 0o600 });
  return file;
}

/** The collector as the CronJob's container would run it: its args and env, and the ServiceAccount's token. */
async function runAsCronJob(release: Release, extraArgs: readonly string[] = []): Promise<CliResult> {
  const container = containerOf(release);
  return runCli([...(container.args ?? []), ...extraArgs], { env: { ...envOf(container), KUBECONFIG: await serviceAccountKubeconfig(release) } });
}

/**
 * A variable's `$(NAME)` references expanded as the kubelet expands them: `$$` is `$`, a
 * name defined before (by envFrom or an earlier env entry) its value, anything else as
 * written (k8s.io/kubernetes third_party/forked/golang/expansion).
 */
function expandVariables(text: string, defined: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) => (match === '$$' ? '$' : (defined.get(name ?? '') ?? match)));
}

/** The container's environment as the kubelet would give it: envFrom's Secrets, then env in order, Secret keys read from the API server. */
async function kubeletEnv(container: V1Container, namespace: string): Promise<Record<string, string>> {
  const core = controlPlane.kubeConfig().makeApiClient(CoreV1Api);
  const secretData = async (name: string): Promise<Record<string, string>> => {
    const secret = await core.readNamespacedSecret({ name, namespace });
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
  };
  const defined = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    assert.ok(source.secretRef !== undefined, 'this replay reads Secrets only');
    for (const [key, value] of Object.entries(await secretData(source.secretRef.name ?? ''))) defined.set(`${source.prefix ?? ''}${key}`, value);
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (variable.valueFrom !== undefined) assert.ok(ref !== undefined, `${variable.name}: this replay reads Secret keys only`);
    const value = ref !== undefined ? (await secretData(ref.name ?? ''))[ref.key] : expandVariables(variable.value ?? '', defined);
    assert.ok(value !== undefined, `${variable.name}: no such key`);
    defined.set(variable.name, value);
  }
  return Object.fromEntries(defined);
}

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;
const RESOURCES = [
  ['tekton.dev', 'pipelineresources'],
  ['tekton.dev', 'pipelineruns'],
  ['tekton.dev', 'taskruns'],
  ['', 'namespaces'],
  ['events.k8s.io', 'events'],
  ['', 'secrets'],
  ['', 'pods'],
  ['', 'persistentvolumeclaims'],
  ['apps', 'statefulsets'],
  ['rbac.authorization.k8s.io', 'roles'],
] as const;

/**
 * What the API server's authorizer lets the release's ServiceAccount do in `namespace`
 * ('' = cluster-wide), on an object called `name` when given: `verb resource` pairs.
 */
async function allowed(release: Release, namespace: string, name?: string): Promise<string[]> {
  const api = controlPlane.kubeConfig().makeApiClient(AuthorizationV1Api);
  const user = `system:serviceaccount:${release.namespace}:${serviceAccountOf(release)}`;
  const checks = RESOURCES.flatMap(([group, resource]) => VERBS.map((verb) => ({ group, resource, verb })));
  const answers = await Promise.all(
    checks.map(async ({ group, resource, verb }) => {
      const review = await api.createSubjectAccessReview({
        body: {
          spec: {
            user,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${release.namespace}`, 'system:authenticated'],
            resourceAttributes: { group, resource, verb, namespace, ...(name === undefined ? {} : { name }) },
          },
        },
      });
      return review.status?.allowed === true ? `${verb} ${resource}` : undefined;
    }),
  );
  return answers.filter((answer): answer is string => answer !== undefined).sort();
}

/** What a live release may do with Tekton's objects; a dry run, the same but delete. */
const TEKTON_ALLOWED = ['delete pipelineresources', 'get pipelineresources', 'get pipelineruns', 'get taskruns', 'list pipelineresources', 'list pipelineruns', 'list taskruns'];


// ---- lint, render, create ----

describe('helm lint and helm template', () => {
  test('lint passes for the defaults, every namespace, and named namespaces', async () => {
    await helmLint({});
    await helmLint({ ...LIVE, excludeNamespaces: ['kube-system'], retainFor: '7d', selector: 'app=ci' });
    await helmLint({ namespaces: ['team-a', 'team-b'], excludeNamespaces: ['team-b'] });
    await helmLint(MONITORED);
  });

  test('helm package holds the templates, values, schema and README, and leaves the icon out (.helmignore)', async () => {
    const out = path.join(work, 'package');
    succeeded(await run(helmPath, ['package', CHART, '--destination', out]), 'helm package');
    const listing = await run('tar', ['-tzf', path.join(out, `tekton-resource-gc-${PACKAGE.version}.tgz`)]);
    assert.deepEqual(succeeded(listing, 'tar -t').trim().split('\n').sort(), [
      'tekton-resource-gc/.helmignore',
      'tekton-resource-gc/Chart.yaml',
      'tekton-resource-gc/README.md',
      'tekton-resource-gc/dashboards/tekton-resource-gc.json',
      'tekton-resource-gc/templates/NOTES.txt',
      'tekton-resource-gc/templates/_helpers.tpl',
      'tekton-resource-gc/templates/_monitoring.tpl',
      'tekton-resource-gc/templates/cronjob.yaml',
      'tekton-resource-gc/templates/grafana-dashboard.yaml',
      'tekton-resource-gc/templates/prometheusrule.yaml',
      'tekton-resource-gc/templates/rbac.yaml',
      'tekton-resource-gc/templates/serviceaccount.yaml',
      'tekton-resource-gc/templates/tests/dry-run.yaml',
      'tekton-resource-gc/values.schema.json',
      'tekton-resource-gc/values.yaml',
    ]);
  });

  test('the defaults render a dry run of every namespace: a ServiceAccount, a ClusterRole and its binding, a CronJob, and the helm test pod', async () => {
    const release = await render('gc', 'trgc-system');
    assert.deepEqual(release.objects.map((object) => `${object.kind}/${object.metadata.name}`).sort(), [
      'ClusterRole/gc-tekton-resource-gc',
      'ClusterRoleBinding/gc-tekton-resource-gc',
      'CronJob/gc-tekton-resource-gc',
      'Pod/gc-tekton-resource-gc-dry-run',
      'ServiceAccount/gc-tekton-resource-gc',
    ]);
    assert.equal(envOf(containerOf(release))['TRGC_DRY_RUN'], 'true');
    const cronJob = cronJobOf(release);
    assert.equal(cronJob.metadata?.namespace, 'trgc-system');
    assert.deepEqual(
      { ...cronJob.spec, jobTemplate: undefined },
      {
        schedule: '17 * * * *',
        timeZone: 'Etc/UTC',
        suspend: false,
        concurrencyPolicy: 'Forbid',
        startingDeadlineSeconds: 300,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 3,
        jobTemplate: undefined,
      },
    );
    const job = cronJob.spec?.jobTemplate.spec;
    assert.deepEqual(
      { ...job, template: undefined },
      {
        backoffLimit: 0,
        activeDeadlineSeconds: 1800,
        // No ttlSecondsAfterFinished: the history limits keep the last failures for a weekly review.
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
        template: undefined,
      },
    );
    assert.equal(job?.template.spec?.terminationGracePeriodSeconds, 150);
    const container = containerOf(release);
    assert.equal(container.image, `ghcr.io/tekton-resource-gc/tekton-resource-gc:${PACKAGE.version}`, 'the released image; the tag defaults to appVersion, the package version');
    assert.deepEqual(container.args, ['run']);
    assert.equal(container.command, undefined, "the image's entrypoint runs the CLI");
  });

  test('the pod is restricted: non-root 65532, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp, resources', async () => {
    const release = await render('gc', 'trgc-system');
    const pod = cronJobOf(release).spec?.jobTemplate.spec?.template.spec;
    assert.equal(pod?.restartPolicy, 'Never');
    assert.deepEqual(pod?.securityContext, { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    const container = containerOf(release);
    assert.deepEqual(container.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    // Memory from the benchmark's figures (test/unit/chart-values.test.ts checks them); no CPU limit.
    assert.deepEqual(container.resources, { requests: { cpu: '50m', memory: '256Mi' }, limits: { memory: '512Mi' } });
    // The token is mounted where it is used, the pod, and nowhere else by default.
    assert.equal(pod?.automountServiceAccountToken, true);
    assert.equal((find(release, 'ServiceAccount') as { automountServiceAccountToken?: boolean }).automountServiceAccountToken, false);
  });

  test('OpenShift: with podSecurityContext runAsUser and runAsGroup null the pod names no uid or gid, stays non-root with RuntimeDefault seccomp, and is admitted as "restricted"', async () => {
    const release = await render('openshift', 'trgc-openshift', { podSecurityContext: { runAsUser: null, runAsGroup: null } });
    const pod = cronJobOf(release).spec?.jobTemplate.spec?.template.spec;
    assert.deepEqual(pod?.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    assert.deepEqual(containerOf(release).securityContext, containerOf(await render('gc', 'trgc-system')).securityContext, "the container's own context is unchanged");
    assert.doesNotMatch(release.yaml, /runAsUser|runAsGroup/);
    // --set, as the values' documentation says, renders the same.
    const set = await run(helmPath, ['template', 'openshift', CHART, '--namespace', 'trgc-openshift', '--set', 'podSecurityContext.runAsUser=null', '--set', 'podSecurityContext.runAsGroup=null']);
    assert.equal(succeeded(set, 'helm template --set ...=null'), release.yaml);
    await createNamespace('trgc-openshift', RESTRICTED);
    assert.doesNotMatch((await install(release)).stderr, /PodSecurity/);
    const admitted = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'collector', namespace: 'trgc-openshift' }, spec: pod };
    succeeded(await kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], JSON.stringify(admitted)), 'admitting the pod');
  });

  test('the pod gets no Service-link variables (enableServiceLinks false, as the API server stores it), and the collector would ignore them', async () => {
    const release = await render('gc', 'trgc-system');
    assert.equal(cronJobOf(release).spec?.jobTemplate.spec?.template.spec?.enableServiceLinks, false);
    const { release: installed } = await installedDefaults();
    const stored = JSON.parse(succeeded(await kubectl(['get', 'cronjob', '--namespace', installed.namespace, '-o', 'json', '-l', `app.kubernetes.io/instance=${installed.name}`]), 'kubectl get cronjob')) as {
      items: V1CronJob[];
    };
    assert.deepEqual(stored.items.map((cronJob) => cronJob.spec?.jobTemplate.spec?.template.spec?.enableServiceLinks), [false]);
    // What the kubelet would inject for a Service trgc-metrics (port 9091, named http) without it.
    const links = {
      TRGC_METRICS_SERVICE_HOST: '10.96.0.10',
      TRGC_METRICS_SERVICE_PORT: '9091',
      TRGC_METRICS_SERVICE_PORT_HTTP: '9091',
      TRGC_METRICS_PORT: 'tcp://10.96.0.10:9091',
      TRGC_METRICS_PORT_9091_TCP: 'tcp://10.96.0.10:9091',
      TRGC_METRICS_PORT_9091_TCP_PROTO: 'tcp',
      TRGC_METRICS_PORT_9091_TCP_PORT: '9091',
      TRGC_METRICS_PORT_9091_TCP_ADDR: '10.96.0.10',
    };
    const container = containerOf(release);
    assert.deepEqual(parseConfig(container.args ?? [], { ...envOf(container), ...links }), parseConfig(container.args ?? [], envOf(container)));
  });

  test('image.digest: the image is repository@digest, or repository:tag@digest with a tag', async () => {
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const image = async (values: Values): Promise<string | undefined> => containerOf(await render('gc', 'trgc-system', { image: values })).image;
    assert.equal(await image({ repository: 'registry.example.com/gc', digest }), `registry.example.com/gc@${digest}`);
    assert.equal(await image({ repository: 'registry.example.com:5000/gc', tag: '1.2.3', digest }), `registry.example.com:5000/gc:1.2.3@${digest}`);
    assert.equal(await image({ repository: 'registry.example.com/gc', tag: '1.2.3' }), 'registry.example.com/gc:1.2.3');
  });

  test('every namespace: one ClusterRole with exactly the rules the collector needs, delete only when live', async () => {
    const release = await render('gc', 'trgc-system');
    const role = find(release, 'ClusterRole') as V1ClusterRole;
    assert.deepEqual(rulesOf(role.rules), [
      ' namespaces [] get,list',
      'events.k8s.io events [] create',
      'tekton.dev pipelineresources [] get,list',
      'tekton.dev pipelineruns,taskruns [] get,list',
    ]);
    const live = find(await render('gc', 'trgc-system', { dryRun: false }), 'ClusterRole') as V1ClusterRole;
    assert.deepEqual(rulesOf(live.rules), [
      ' namespaces [] get,list',
      'events.k8s.io events [] create',
      'tekton.dev pipelineresources [] get,list,delete',
      'tekton.dev pipelineruns,taskruns [] get,list',
    ]);
    const binding = find(release, 'ClusterRoleBinding') as Manifest & { roleRef: unknown; subjects: unknown };
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata?.name });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: serviceAccountOf(release), namespace: 'trgc-system' }]);
  });

  test('named namespaces: a Role and RoleBinding in each collected one, and namespaces readable by name only', async () => {
    const release = await render('gc', 'trgc-system', { dryRun: false, namespaces: ['team-a', 'team-b', 'team-c'], excludeNamespaces: ['team-c'] });
    assert.equal(release.objects.filter((object) => object.kind === 'Role').length, 2, 'no Role where nothing is collected');
    for (const namespace of ['team-a', 'team-b']) {
      const role = find(release, 'Role', 'gc-tekton-resource-gc', namespace) as V1Role;
      assert.deepEqual(rulesOf(role.rules), ['events.k8s.io events [] create', 'tekton.dev pipelineresources [] get,list,delete', 'tekton.dev pipelineruns,taskruns [] get,list']);
      const binding = find(release, 'RoleBinding', 'gc-tekton-resource-gc', namespace) as Manifest & { roleRef: unknown; subjects: unknown };
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc-tekton-resource-gc' });
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: serviceAccountOf(release), namespace: 'trgc-system' }]);
    }
    // The collector GETs only the namespaces it collects in (KubeCluster.readNamespaces skips excluded ones).
    const namespaces = find(release, 'ClusterRole') as V1ClusterRole;
    assert.deepEqual(rulesOf(namespaces.rules), [' namespaces [team-a,team-b] get']);
    assert.deepEqual(configOf(containerOf(release)).namespaces, ['team-a', 'team-b', 'team-c']);
    assert.deepEqual(configOf(containerOf(release)).excludeNamespaces, ['team-c']);
  });

  test('without events, neither scope may create Events', async () => {
    const everywhere = await render('gc', 'trgc-system', { events: false });
    assert.deepEqual(rulesOf((find(everywhere, 'ClusterRole') as V1ClusterRole).rules), [
      ' namespaces [] get,list',
      'tekton.dev pipelineresources [] get,list',
      'tekton.dev pipelineruns,taskruns [] get,list',
    ]);
    const named = await render('gc', 'trgc-system', { events: false, namespaces: ['team-a'] });
    assert.deepEqual(rulesOf((find(named, 'Role', 'gc-tekton-resource-gc', 'team-a') as V1Role).rules), [
      'tekton.dev pipelineresources [] get,list',
      'tekton.dev pipelineruns,taskruns [] get,list',
    ]);
    assert.equal(envOf(containerOf(named))['TRGC_EVENTS'], 'false');
  });

  test("helm test's pod is the CronJob's pod, a dry run even for a live release, without metrics, that stops itself at activeDeadlineSeconds", async () => {
    for (const values of [{}, { ...LIVE, pushgatewayUrl: 'http://pushgateway.monitoring:9091', podSecurityContext: { runAsUser: null, runAsGroup: null }, priorityClassName: 'batch-low' }] as Values[]) {
      const release = await render('gc', 'trgc-system', values);
      const pod = testPodOf(release);
      assert.equal(pod.metadata?.name, 'gc-tekton-resource-gc-dry-run');
      assert.deepEqual(pod.metadata?.annotations, { 'helm.sh/hook': 'test', 'helm.sh/hook-delete-policy': 'before-hook-creation' });
      assert.equal(pod.metadata?.labels?.['app.kubernetes.io/instance'], 'gc');
      const podSpec = cronJobOf(release).spec?.jobTemplate.spec?.template.spec;
      assert.ok(podSpec !== undefined);
      const container = podSpec.containers[0] as V1Container;
      const testContainer = pod.spec?.containers[0] as V1Container;
      // Everything the CronJob's pod has (its ServiceAccount, image, args, security, resources), and a deadline of its own.
      assert.deepEqual(
        { ...pod.spec, containers: [{ ...testContainer, env: undefined }] },
        { ...podSpec, activeDeadlineSeconds: 1800, containers: [{ ...container, env: undefined }] },
      );
      assert.equal(pod.spec?.serviceAccountName, serviceAccountOf(release));
      assert.deepEqual(testContainer.args, ['run']);
      const settings = { ...envOf(container), TRGC_DRY_RUN: 'true', TRGC_PUSHGATEWAY_URL: '', TRGC_PUSHGATEWAY_GROUPING: '' };
      assert.deepEqual(envOf(testContainer), settings);
      const config = configOf(testContainer);
      assert.deepEqual([config.dryRun, config.pushgatewayUrl, config.pushgatewayGrouping], [true, undefined, undefined]);
    }
  });

  test('ttlSecondsAfterFinished, when set, reaches the Job', async () => {
    const job = cronJobOf(await render('gc', 'trgc-system', { ttlSecondsAfterFinished: 604800 })).spec?.jobTemplate.spec;
    assert.equal(job?.ttlSecondsAfterFinished, 604800);
  });

  // requestTimeout, and its seconds as the collector reads it: the grace period must be above.
  const TIMEOUTS: readonly string[] = ['45s', '2m', '1h', 'PT1M30S', 'PT1H', 'P1DT1S'];

  test('terminationGracePeriodSeconds at or below requestTimeout is refused, above it taken, for each form of duration', async () => {
    for (const requestTimeout of TIMEOUTS) {
      const parsed = parseDurationMs(requestTimeout);
      assert.ok(parsed.ok, requestTimeout);
      const seconds = parsed.value / 1000;
      const refused = await helmTemplate('gc', 'trgc-system', { requestTimeout, terminationGracePeriodSeconds: seconds });
      assert.notEqual(refused.code, 0, `${requestTimeout} with ${seconds} s rendered`);
      assert.match(refused.stderr, new RegExp(`terminationGracePeriodSeconds: ${seconds} is not above requestTimeout ${requestTimeout} \\(${seconds} s\\)`));
      const taken = await render('gc', 'trgc-system', { requestTimeout, terminationGracePeriodSeconds: seconds + 1 });
      assert.equal(cronJobOf(taken).spec?.jobTemplate.spec?.template.spec?.terminationGracePeriodSeconds, seconds + 1);
    }
  });

  test('commonLabels on every object (the chart\'s own win), CronJob and Job annotations, priorityClassName, envFrom, and extraEnv before the chart\'s variables', async () => {
    const release = await render('gc', 'trgc-system', {
      namespaces: ['team-a'],
      commonLabels: { team: 'ci', 'app.kubernetes.io/name': 'other' },
      cronJobAnnotations: { 'example.com/cron': 'yes' },
      jobAnnotations: { 'example.com/job': 'yes' },
      priorityClassName: 'batch-low',
      envFrom: [{ secretRef: { name: 'pushgateway-auth' } }],
      extraEnv: [{ name: 'PUSHGATEWAY_PASSWORD', valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } } }],
    });
    assert.ok(release.objects.length >= 6);
    for (const object of release.objects) {
      const labels = (object.metadata as { labels?: Record<string, string> }).labels ?? {};
      assert.deepEqual([labels['team'], labels['app.kubernetes.io/name']], ['ci', 'tekton-resource-gc'], `${object.kind} ${object.metadata.name}`);
    }
    const cronJob = cronJobOf(release);
    assert.deepEqual(cronJob.metadata?.annotations, { 'example.com/cron': 'yes' });
    assert.deepEqual(cronJob.spec?.jobTemplate.metadata?.annotations, { 'example.com/job': 'yes' });
    assert.equal(cronJob.spec?.jobTemplate.metadata?.labels?.['team'], 'ci');
    assert.equal(cronJob.spec?.jobTemplate.spec?.template.metadata?.labels?.['team'], 'ci');
    assert.equal(cronJob.spec?.jobTemplate.spec?.template.spec?.priorityClassName, 'batch-low');
    const container = containerOf(release);
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'pushgateway-auth' } }]);
    assert.deepEqual(container.env?.[0], { name: 'PUSHGATEWAY_PASSWORD', valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } } });
    assert.deepEqual(container.env?.slice(1).map((variable) => variable.name), containerOf(await render('gc', 'trgc-system', { namespaces: ['team-a'] })).env?.map((variable) => variable.name));
  });

  test("extraEnv may not set a variable of the chart's own", async () => {
    const exit = await helmTemplate('gc', 'trgc-system', { extraEnv: [{ name: 'TRGC_DRY_RUN', value: 'false' }] });
    assert.notEqual(exit.code, 0);
    assert.match(exit.stderr, /extraEnv: TRGC_DRY_RUN is the chart's own variable for a setting; set the setting's value instead/);
  });

  test('a scope that excludes every namespace it names is refused', async () => {
    const exit = await helmTemplate('gc', 'trgc-system', { namespaces: ['team-a'], excludeNamespaces: ['team-a'] });
    assert.notEqual(exit.code, 0);
    assert.match(exit.stderr, /namespaces: every namespace named \(team-a\) is also in excludeNamespaces/);
  });

  test('without a ServiceAccount of its own the chart needs one named, and binds its RBAC to it', async () => {
    const refused = await helmTemplate('gc', 'trgc-system', { serviceAccount: { create: false } });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /serviceAccount\.name: with serviceAccount\.create=false, name the existing ServiceAccount/);
    const release = await render('gc', 'trgc-system', { serviceAccount: { create: false, name: 'ci-janitor' }, rbac: { create: true } });
    assert.equal(release.objects.filter((object) => object.kind === 'ServiceAccount').length, 0);
    assert.equal(serviceAccountOf(release), 'ci-janitor');
    assert.equal((find(release, 'ClusterRoleBinding') as Manifest & { subjects: { name: string }[] }).subjects[0]?.name, 'ci-janitor');
    const withoutRbac = await render('gc', 'trgc-system', { rbac: { create: false } });
    assert.deepEqual(withoutRbac.objects.map((object) => object.kind).sort(), ['CronJob', 'Pod', 'ServiceAccount']);
  });

  test("podLabels and podAnnotations reach the pod; the chart's own labels win", async () => {
    const release = await render('gc', 'trgc-system', { podLabels: { team: 'ci', 'app.kubernetes.io/name': 'other' }, podAnnotations: { 'example.com/owner': 'ci' } });
    const metadata = cronJobOf(release).spec?.jobTemplate.spec?.template.metadata;
    assert.equal(metadata?.labels?.['team'], 'ci');
    assert.equal(metadata?.labels?.['app.kubernetes.io/name'], 'tekton-resource-gc');
    assert.deepEqual(metadata?.annotations, { 'example.com/owner': 'ci' });
  });

  test('the API server creates the rendered objects of the defaults and of both scopes, and the pod passes Pod Security "restricted"', async () => {
    const { release: defaults, created } = await installedDefaults();
    assert.doesNotMatch(created.stderr, /PodSecurity/, 'the CronJob draws no Pod Security warning');

    await createNamespace('trgc-render', RESTRICTED);
    for (const team of ['render-a', 'render-b']) await createNamespace(team);
    const named = await render('named', 'trgc-render', { namespaces: ['render-a', 'render-b'] });
    assert.doesNotMatch((await install(named)).stderr, /PodSecurity/);

    const stored = await kubectl(['get', 'cronjob', '--namespace', 'trgc-defaults', 'defaults-tekton-resource-gc', '-o', 'json']);
    const cronJob = JSON.parse(succeeded(stored, 'kubectl get cronjob')) as V1CronJob;
    assert.deepEqual(envOf(cronJob.spec?.jobTemplate.spec?.template.spec?.containers[0] ?? { name: '' }), envOf(containerOf(defaults)));
    // batch/v1 takes the podFailurePolicy and keeps it (a server without the feature would drop it).
    assert.deepEqual(cronJob.spec?.jobTemplate.spec?.podFailurePolicy, cronJobOf(defaults).spec?.jobTemplate.spec?.podFailurePolicy);
    assert.equal(cronJob.spec?.jobTemplate.spec?.template.spec?.terminationGracePeriodSeconds, 150);
    // And checks it: the policy needs restartPolicy Never, which the pod has.
    const restarting = structuredClone(cronJob.spec?.jobTemplate.spec);
    if (restarting?.template.spec !== undefined) restarting.template.spec.restartPolicy = 'OnFailure';
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'restarting', namespace: 'trgc-defaults' }, spec: restarting };
    const refusedJob = await kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(job));
    assert.notEqual(refusedJob.code, 0);
    assert.match(refusedJob.stderr, /restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified/);

    // The pod the CronJob's jobs would create, admitted by the API server in enforce mode.
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'collector', namespace: 'trgc-defaults' }, spec: cronJob.spec?.jobTemplate.spec?.template.spec };
    succeeded(await kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], JSON.stringify(pod)), 'admitting the pod');
    // And the check bites: the same pod without its seccomp profile is refused.
    const loosened = structuredClone(pod);
    delete loosened.spec?.securityContext?.seccompProfile;
    const refused = await kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(loosened));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /violates PodSecurity "restricted:latest".*seccompProfile/);
  });
});

describe('with prometheusRule and grafanaDashboard on', () => {
  test("the API server creates every object, the PrometheusRule under the Prometheus Operator's CRD and stored as rendered, the dashboard whole; commonLabels reach both", async () => {
    await controlPlane.installCrds([PROMETHEUS_RULE_CRD]);
    const namespace = 'trgc-monitored';
    await createNamespace(namespace, RESTRICTED);
    const release = await render('monitored', namespace, { ...MONITORED, commonLabels: { team: 'ci' } });
    assert.deepEqual(release.objects.map((object) => object.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'CronJob', 'Pod', 'PrometheusRule', 'ServiceAccount']);
    for (const object of release.objects) assert.equal((object.metadata as { labels?: Record<string, string> }).labels?.['team'], 'ci', `${object.kind} ${object.metadata.name}`);
    assert.doesNotMatch((await install(release)).stderr, /PodSecurity/);

    const rendered = find(release, 'PrometheusRule') as Manifest & { spec: { groups: { rules: unknown[] }[] } };
    const stored = JSON.parse(succeeded(await kubectl(['get', 'prometheusrule', '--namespace', namespace, rendered.metadata.name, '-o', 'json']), 'kubectl get prometheusrule')) as typeof rendered;
    assert.deepEqual(stored.spec, rendered.spec, 'nothing pruned or defaulted');
    assert.equal(stored.spec.groups[0]?.rules.length, 8);
    const configMap = JSON.parse(succeeded(await kubectl(['get', 'configmap', '--namespace', namespace, 'monitored-tekton-resource-gc-dashboard', '-o', 'json']), 'kubectl get configmap')) as {
      data: Record<string, string>;
      metadata: { annotations?: Record<string, string> };
    };
    assert.deepEqual(JSON.parse(configMap.data['tekton-resource-gc.json'] ?? ''), JSON.parse(await readFile(path.join(CHART, 'dashboards/tekton-resource-gc.json'), 'utf8')));
    assert.equal(configMap.metadata.annotations?.['grafana_folder'], 'CI');

    // And the CRD's check bites: the same rule with a `for` that is no Prometheus duration, or a field Prometheus does not know, is refused.
    for (const [change, refusal] of [
      [(rule: Record<string, unknown>) => (rule['for'] = '1h30'), /spec\.groups\[0\]\.rules\[0\]\.for: Invalid value: "1h30"/],
      [(rule: Record<string, unknown>) => (rule['severity'] = 'warning'), /unknown field "spec\.groups\[0\]\.rules\[0\]\.severity"/],
    ] as const) {
      const changed = structuredClone(rendered);
      change(changed.spec.groups[0]?.rules[0] as Record<string, unknown>);
      changed.metadata.name = 'changed';
      const refused = await kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], JSON.stringify(changed));
      assert.notEqual(refused.code, 0, refused.stdout);
      assert.match(refused.stderr, refusal);
    }
  });
});

describe('a release name of 53 characters, the most Helm takes', () => {
  test("installs: each CronJob's name fits in 52 characters, two names that differ only at the end stay apart, and the NOTES command makes a Job", async () => {
    const namespace = 'trgc-long-names';
    await createNamespace(namespace, RESTRICTED);
    // Full names of 63 characters (<release>-tekton-resource-gc, cut): the API server refuses such a CronJob.
    const names = ['a'.repeat(52) + 'b', 'a'.repeat(52) + 'c'];
    const outputs: string[] = [];
    for (const name of names) outputs.push(await helmInstall(name, namespace));
    const stored = JSON.parse(succeeded(await kubectl(['get', 'cronjobs', '--namespace', namespace, '-o', 'json']), 'kubectl get cronjobs')) as { items: V1CronJob[] };
    const cronJobs = stored.items.map((cronJob) => cronJob.metadata?.name ?? '').sort();
    assert.equal(cronJobs.length, 2, `stored: ${cronJobs.join(', ')}`);
    assert.ok(cronJobs.every((name) => name.length <= 52 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)), cronJobs.join(', '));
    assert.notEqual(cronJobs[0], cronJobs[1]);

    // The NOTES name the stored CronJob, and their Job name (with its 14-digit timestamp) is one the API server takes.
    const text = outputs[0] ?? '';
    const prefix = /^ +JOB=(\S+)-\$\(date \+%Y%m%d%H%M%S\)$/m.exec(text)?.[1];
    const create = /^ +kubectl (create job .+) "\$JOB"$/m.exec(text)?.[1];
    assert.ok(prefix !== undefined && create !== undefined, `no JOB= or kubectl create job line in:\n${text}`);
    assert.ok(cronJobs.some((name) => create.endsWith(`--from=cronjob/${name}`)), create);
    const job = `${prefix}-20261201000000`;
    assert.equal(job.length, 63);
    succeeded(await kubectl([...create.split(' '), job]), 'the NOTES command');
  });
});

function rulesOf(rules: V1PolicyRule[] | undefined): string[] {
  return (rules ?? []).map((rule) => `${(rule.apiGroups ?? []).join(',')} ${(rule.resources ?? []).join(',')} [${(rule.resourceNames ?? []).join(',')}] ${rule.verbs.join(',')}`).sort();
}

// ---- NOTES ----

describe('NOTES.txt', () => {
  test('says loudly that a dry run deletes nothing, and how to go live', async () => {
    const text = await notes('gc', 'trgc-system', {});
    assert.match(text, /DRY RUN: this release only REPORTS\. It deletes NOTHING\./);
    assert.doesNotMatch(text, /LIVE/);
    assert.match(text, /helm upgrade gc CHART --namespace trgc-system --reset-then-reuse-values --set dryRun=false/);
    assert.match(text, /^ +helm test gc --namespace trgc-system --logs$/m);
  });

  test("its command to go live keeps the operator's values and takes a newer chart's defaults, where --reuse-values keeps the old chart's", async () => {
    const namespace = 'trgc-upgrade';
    await createNamespace(namespace);
    const installed = await helmInstall('upgrade', namespace, { selector: 'app=ci' });
    const command = /^ +helm (upgrade .+)$/m.exec(installed)?.[1];
    assert.ok(command !== undefined, `no helm upgrade line in:\n${installed}`);
    /** A copy of the chart whose default minAge is `minAge`: the next version of the chart. */
    const chartWithMinAge = async (minAge: string): Promise<string> => {
      const dir = path.join(work, `chart-min-age-${minAge}`);
      await cp(CHART, dir, { recursive: true });
      const values = await readFile(path.join(dir, 'values.yaml'), 'utf8');
      assert.match(values, /^minAge: 1h$/m);
      await writeFile(path.join(dir, 'values.yaml'), values.replace(/^minAge: 1h$/m, `minAge: ${minAge}`));
      return dir;
    };
    const stored = async (): Promise<Record<string, string>> => {
      const cronJob = JSON.parse(succeeded(await kubectl(['get', 'cronjob', '--namespace', namespace, 'upgrade-tekton-resource-gc', '-o', 'json']), 'kubectl get cronjob')) as V1CronJob;
      return envOf(cronJob.spec?.jobTemplate.spec?.template.spec?.containers[0] ?? { name: '' });
    };

    const args = command.split(' ').map((word) => (word === 'CHART' ? '' : word));
    args[args.indexOf('')] = await chartWithMinAge('2h');
    succeeded(await run(helmPath, [...args, '--kubeconfig', controlPlane.kubeconfigPath]), 'the NOTES upgrade command');
    const live = await stored();
    assert.deepEqual([live['TRGC_DRY_RUN'], live['TRGC_SELECTOR'], live['TRGC_MIN_AGE']], ['false', 'app=ci', '2h'], "dryRun and the operator's selector as set, minAge the new chart's");

    // What the NOTES used to say: the next chart's new default never arrives.
    const reuse = ['upgrade', 'upgrade', await chartWithMinAge('3h'), '--namespace', namespace, '--reuse-values', '--kubeconfig', controlPlane.kubeconfigPath];
    succeeded(await run(helmPath, reuse), 'helm upgrade --reuse-values');
    assert.equal((await stored())['TRGC_MIN_AGE'], '2h');
  });

  test('says loudly that a live release deletes, with its cap and scope', async () => {
    const text = await notes('gc', 'trgc-system', { dryRun: false, maxDeletions: 2000000, namespaces: ['team-a'] });
    assert.match(text, /LIVE: this release DELETES PipelineResources on every pass\./);
    assert.doesNotMatch(text, /DRY RUN/);
    assert.match(text, /at most 2000000 per pass/);
    assert.match(text, /Scope: +namespaces team-a only/);
  });

  test('its command to run a pass now creates a Job from the CronJob on the API server', async () => {
    const text = await notes('defaults', 'trgc-defaults', {});
    const create = /^ +kubectl (create job .+) "\$JOB"$/m.exec(text);
    assert.ok(create?.[1] !== undefined, `no kubectl create job line in:\n${text}`);
    assert.match(text, /kubectl logs --namespace trgc-defaults --follow --pod-running-timeout=5m "job\/\$JOB"/);
    const args = create[1].split(' ');
    const { release } = await installedDefaults();
    succeeded(await kubectl([...args, 'defaults-manual']), 'the NOTES command');
    const job = JSON.parse(succeeded(await kubectl(['get', 'job', '--namespace', 'trgc-defaults', 'defaults-manual', '-o', 'json']), 'kubectl get job')) as {
      spec: { template: { spec: { containers: V1Container[] } } };
    };
    assert.deepEqual(envOf(job.spec.template.spec.containers[0] ?? { name: '' }), envOf(containerOf(release)));
  });
});

// ---- values ----

// Each case is one helm process; four at a time.
describe('values.schema.json', { concurrency: 4 }, () => {
  // Each kind of mistake, and the path the message must name.
  const BAD: { why: string; values: Values; names: RegExp }[] = [
    { why: 'wrong type: a string for a boolean', values: { dryRun: 'yes' }, names: /at '\/dryRun': got string, want boolean/ },
    { why: 'wrong type: a string for an integer', values: { maxDeletions: '100' }, names: /at '\/maxDeletions': got string, want integer/ },
    { why: 'wrong type: a fraction for an integer', values: { pageSize: 2.5 }, names: /at '\/pageSize': got number, want integer/ },
    { why: 'wrong type: one namespace instead of a list', values: { namespaces: 'team-a' }, names: /at '\/namespaces': got string, want array/ },
    { why: 'unknown key: a misspelt setting', values: { dryrun: false }, names: /additional properties 'dryrun' not allowed/ },
    { why: 'unknown key: nested', values: { image: { tagg: '1.0.0' } }, names: /at '\/image': additional properties 'tagg' not allowed/ },
    { why: 'invalid enum: output', values: { output: 'yaml' }, names: /at '\/output': value must be one of 'text', 'json', 'markdown'/ },
    { why: 'invalid enum: logLevel', values: { logLevel: 'verbose' }, names: /at '\/logLevel': value must be one of/ },
    { why: 'invalid enum: image.pullPolicy', values: { image: { pullPolicy: 'Sometimes' } }, names: /at '\/image\/pullPolicy': value must be one of/ },
    { why: 'a digest given as the tag', values: { image: { tag: `@sha256:${'a'.repeat(64)}` } }, names: /at '\/image\/tag': '@sha256:a+' does not match pattern/ },
    { why: 'a digest without its algorithm', values: { image: { digest: 'a'.repeat(64) } }, names: /at '\/image\/digest': 'a+' does not match pattern/ },
    { why: 'bad duration: no such unit', values: { minAge: '2x' }, names: /at '\/minAge': '2x' does not match pattern/ },
    { why: 'bad duration: ISO parts out of order', values: { retainFor: 'P1D1Y' }, names: /at '\/retainFor': 'P1D1Y' does not match pattern/ },
    { why: 'bad duration: ISO without a number', values: { minAge: 'PT' }, names: /at '\/minAge': 'PT' does not match pattern/ },
    { why: 'bad duration: forever is no minimum age', values: { minAge: 'forever' }, names: /at '\/minAge': 'forever' does not match pattern/ },
    { why: 'bad namespace name', values: { excludeNamespaces: ['Team_A'] }, names: /at '\/excludeNamespaces\/0': 'Team_A' does not match pattern/ },
    { why: 'bad label prefix', values: { labelPrefix: 'Example.com/' }, names: /at '\/labelPrefix': 'Example.com\/' does not match pattern/ },
    { why: 'out of range: qps', values: { qps: 0 }, names: /at '\/qps': minimum: got 0, want 0.001/ },
    { why: 'out of range: maxRetries', values: { maxRetries: 21 }, names: /at '\/maxRetries': maximum: got 21, want 20/ },
    { why: 'bad duration: requestTimeout', values: { requestTimeout: '1 minute' }, names: /at '\/requestTimeout': '1 minute' does not match pattern/ },
    { why: 'out of range: pageSize', values: { pageSize: 20000 }, names: /at '\/pageSize': maximum: got 20,?000, want 10,?000/ },
    { why: 'bad schedule', values: { schedule: 'hourly' }, names: /at '\/schedule': 'hourly' does not match pattern/ },
    { why: 'wrong type: a string for events', values: { events: 'on' }, names: /at '\/events': got string, want boolean/ },
    { why: 'bad Pushgateway URL', values: { pushgatewayUrl: 'pushgateway:9091' }, names: /at '\/pushgatewayUrl': 'pushgateway:9091' does not match pattern/ },
    { why: 'a Pushgateway URL whose path names a group', values: { pushgatewayUrl: 'http://gw:9091/metrics/job/gc' }, names: /at '\/pushgatewayUrl': 'not' failed/ },
    { why: 'a grouping that sets job', values: { pushgatewayGrouping: { job: 'gc' } }, names: /at '\/pushgatewayGrouping\/job': false schema/ },
    { why: 'a grouping label that is no Prometheus label name', values: { pushgatewayGrouping: { 'my-label': 'x' } }, names: /at '\/pushgatewayGrouping': additional properties 'my-label' not allowed/ },
    { why: 'a grouping value with a comma', values: { pushgatewayGrouping: { cluster: 'a,b' } }, names: /at '\/pushgatewayGrouping\/cluster': 'a,b' does not match pattern/ },
    { why: 'bad resource quantity', values: { resources: { requests: { cpu: 'lots' } } }, names: /at '\/resources\/requests\/cpu': 'lots' does not match pattern/ },
    { why: 'a plan ConfigMap name that is no object name', values: { dryRun: false, planConfigMap: 'Reviewed_Plan' }, names: /at '\/planConfigMap': 'Reviewed_Plan' does not match pattern/ },
    { why: 'a plan digest that is not sha256', values: { planDigest: 'md5:abc' }, names: /at '\/planDigest': 'md5:abc' does not match pattern/ },
    { why: 'bad duration: planMaxAge', values: { planMaxAge: 'a day' }, names: /at '\/planMaxAge': 'a day' does not match pattern/ },
    { why: 'a shard without a namespace selector', values: { shards: [{ name: 'a' }] }, names: /at '\/shards\/0': missing property 'namespaceSelector'/ },
    {
      why: "a Prometheus duration with its units out of order, which the PrometheusRule CRD refuses",
      values: { prometheusRule: { alerts: { claimsTerminating: { for: '30m6h' } } } },
      names: /at '\/prometheusRule\/alerts\/claimsTerminating\/for': '30m6h' does not match pattern/,
    },
    { why: 'a shard name that is no DNS label', values: { shards: [{ name: 'Shard_A', namespaceSelector: 'x=1' }] }, names: /at '\/shards\/0\/name': 'Shard_A' does not match pattern/ },
  ];

  for (const { why, values, names } of BAD) {
    test(`refuses ${why}`, async () => {
      const exit = await helmTemplate('gc', 'trgc-system', values);
      assert.notEqual(exit.code, 0, `rendered:\n${exit.stdout}`);
      assert.match(exit.stderr, /values don't meet the specifications of the schema/);
      assert.match(exit.stderr, names);
    });
  }

  test('accepts the same kinds of value when they are right', async () => {
    const good: Values = {
      dryRun: false,
      maxDeletions: 100,
      pageSize: 250,
      namespaces: ['team-a'],
      image: { tag: '1.0.0', digest: `sha256:${'a'.repeat(64)}`, pullPolicy: 'Always' },
      output: 'markdown',
      logLevel: 'debug',
      minAge: 'PT30M',
      retainFor: 'P1Y2M3W4DT5H6M7S',
      excludeNamespaces: ['team-b'],
      labelPrefix: 'gc.example.com',
      qps: 0.5,
      schedule: '@daily',
      resources: { requests: { cpu: '0.1', memory: '64Mi' } },
      pushgatewayUrl: 'https://example.com/pushgateway',
      pushgatewayGrouping: { cluster: 'eu/west', shard: 2 },
    };
    succeeded(await helmTemplate('gc', 'trgc-system', good), 'helm template with good values');
  });
});

describe('values reach the collector', () => {
  test('each release pushes to a group of its own: instance and namespace by default, more labels or others from pushgatewayGrouping', async () => {
    const pushgatewayUrl = 'http://pushgateway.monitoring:9091';
    const groupingOf = async (name: string, namespace: string, values: Values): Promise<string[]> =>
      (configOf(containerOf(await render(name, namespace, { pushgatewayUrl, ...values }))).pushgatewayGrouping ?? []).map((label) => `${label.name}=${label.value}`);
    // A shard beside another, the same release name in another namespace: three groups.
    const groups = [await groupingOf('gc', 'team-a', {}), await groupingOf('gc-dry', 'team-a', {}), await groupingOf('gc', 'team-b', {})];
    assert.deepEqual(groups, [
      ['instance=gc', 'namespace=team-a'],
      ['instance=gc-dry', 'namespace=team-a'],
      ['instance=gc', 'namespace=team-b'],
    ]);
    // Two clusters: a label more. A value may replace a default; numbers are written as numbers.
    assert.deepEqual(await groupingOf('gc', 'team-a', { pushgatewayGrouping: { cluster: 'eu/west', instance: 'shard-1', shard: 1000000 } }), [
      'cluster=eu/west',
      'instance=shard-1',
      'namespace=team-a',
      'shard=1000000',
    ]);
    // Without a gateway the variable is empty, and the collector has no grouping.
    const without = containerOf(await render('gc', 'team-a', { pushgatewayGrouping: { cluster: 'prod' } }));
    assert.equal(envOf(without)['TRGC_PUSHGATEWAY_GROUPING'], '');
    assert.equal(configOf(without).pushgatewayGrouping, undefined);
  });


  test('the container passes every collector flag as its variable, and only those, but for the ones it passes as flags', async () => {
    const names = Object.keys(envOf(containerOf(await render('gc', 'trgc-system')))).sort();
    const expected = FLAG_NAMES.filter((flag) => !FLAGS_NOT_IN_CHART.includes(flag) && !FLAGS_AS_ARGS.includes(flag)).map(envVarName).sort();
    assert.deepEqual(names, expected);
    // Those, set away from their defaults, as flags after the command.
    const container = containerOf(
      await render('gc', 'trgc-system', {
        collect: ['pipelineresources', 'workspace-pvcs', 'pipelineruns'],
        pvcFinalizer: 'purge',
        prunerConfig: 'tekton-pipelines',
        keep: 3,
        keepSuccessful: 4,
        keepFailed: 2,
        runTtl: '240h',
        groupBy: 'app',
        requireResultsStored: true,
        maxDeletionsPerKind: { 'workspace-pvcs': 10 },
        maxCascadeDeletions: 5000,
      }),
    );
    assert.deepEqual(
      // In any order (the CLI reads flags in any order); a boolean flag bare, the others with `=`.
      (container.args ?? [])
        .slice(1)
        .map((arg) => /^--([a-z-]+)(=|$)/.exec(arg)?.[1])
        .sort(),
      [...FLAGS_AS_ARGS].sort(),
    );
  });

  test("the collector's parser reads the defaults' container as a dry run with the collector's defaults", async () => {
    assert.deepEqual(configOf(containerOf(await render('gc', 'trgc-system'))), {
      dryRun: true,
      requireResultsStored: false,
      namespaces: [],
      excludeNamespaces: [],
      selector: '',
      minAgeMs: 3_600_000,
      labelPrefix: 'tekton-resource-gc.io',
      maxDeletions: 1000,
      maxCascadeDeletions: 20000,
      maxConsecutiveFailures: 5,
      qps: 20,
      concurrency: 4,
      pageSize: 500,
      maxRetries: 5,
      requestTimeoutMs: 60_000,
      output: 'text',
      logLevel: 'info',
      events: true,
      progress: 'auto',
      planMaxAgeMs: 86_400_000,
      collect: ['pipelineresources'],
      pvcFinalizer: 'keep',
    });
  });

  test("the collector's parser reads every value, set away from its default, as the same setting", async () => {
    const values: Values = {
      dryRun: false,
      namespaces: ['team-a', 'team-b'],
      excludeNamespaces: ['team-b'],
      selector: 'app.kubernetes.io/part-of=ci,tier notin (cache)',
      minAge: 'PT90M',
      retainFor: '7d',
      labelPrefix: 'gc.example.com',
      // Helm reads numbers as floats; 2000000 must not reach the collector as 2e+06.
      maxDeletions: 2000000,
      qps: 2.5,
      concurrency: 8,
      pageSize: 250,
      maxRetries: 0,
      requestTimeout: '45s',
      output: 'markdown',
      logLevel: 'warn',
      events: false,
      pushgatewayUrl: 'http://pushgateway.monitoring:9091',
      pushgatewayGrouping: { cluster: 'prod' },
      planDigest: `sha256:${'ab'.repeat(32)}`,
      planMaxAge: '7d',
      collect: ['workspace-pvcs', 'pipelineresources', 'pac-secrets'],
      pvcFinalizer: 'purge',
      maxDeletionsPerKind: { 'workspace-pvcs': 2000000, 'pac-secrets': 0 },
      maxConsecutiveFailures: 12,
    };
    assert.deepEqual(configOf(containerOf(await render('gc', 'trgc-system', values))), {
      dryRun: false,
      requireResultsStored: false,
      namespaces: ['team-a', 'team-b'],
      excludeNamespaces: ['team-b'],
      selector: 'app.kubernetes.io/part-of=ci,tier notin (cache)',
      minAgeMs: 90 * 60_000,
      retainFor: { kind: 'duration', ms: 7 * 86_400_000, text: '7d' },
      labelPrefix: 'gc.example.com',
      maxDeletions: 2000000,
      maxCascadeDeletions: 20000,
      qps: 2.5,
      concurrency: 8,
      pageSize: 250,
      maxRetries: 0,
      requestTimeoutMs: 45_000,
      output: 'markdown',
      logLevel: 'warn',
      events: false,
      progress: 'auto',
      planMaxAgeMs: 7 * 86_400_000,
      planDigest: `sha256:${'ab'.repeat(32)}`,
      pushgatewayUrl: 'http://pushgateway.monitoring:9091',
      pushgatewayGrouping: [
        { name: 'cluster', value: 'prod' },
        { name: 'instance', value: 'gc' },
        { name: 'namespace', value: 'trgc-system' },
      ],
      // In the collectors' order, whatever order the values give.
      collect: ['pipelineresources', 'pac-secrets', 'workspace-pvcs'],
      pvcFinalizer: 'purge',
      maxDeletionsPerKind: { 'pac-secrets': 0, 'workspace-pvcs': 2000000 },
      maxConsecutiveFailures: 12,
    });
    const forever = configOf(containerOf(await render('gc', 'trgc-system', { retainFor: 'forever', maxDeletions: 0, qps: 1000 })));
    assert.deepEqual([forever.retainFor, forever.maxDeletions, forever.qps], [{ kind: 'forever' }, 0, 1000]);
  });
});

// ---- RBAC in action ----

describe("the collector under the chart's RBAC, with a token of the chart's ServiceAccount", () => {
  test('every namespace: deletes the unreferenced target, keeps the one a running run uses', async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    // Only targets with this label are in the release's scope, so other tests' targets are safe.
    const labels = { 'trgc-test': 'cluster-scope' };
    await seed.namespace('shop');
    await seed.create(gitResource({ name: 'src-old', namespace: 'shop', labels }, 'aaa111'));
    await seed.create(gitResource({ name: 'src-busy', namespace: 'shop', labels }, 'bbb222'));
    await seed.create(pipelineRun('v1beta1', { name: 'build-busy', namespace: 'shop' }, { resources: ['src-busy'] }), { state: 'running' });

    await createNamespace('trgc-system');
    const release = await render('gc', 'trgc-system', { ...LIVE, selector: 'trgc-test=cluster-scope' });
    await install(release);

    const result = await runAsCronJob(release);
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.equal(report.dryRun, false);
    assert.deepEqual(outcomes(report), { 'shop/src-busy': 'referenced-by-active-run kept', 'shop/src-old': 'unreferenced deleted' });
    assert.deepEqual(await seed.remainingTargets('shop'), ['src-busy']);

    // What the authorizer allows it: exactly the chart's rules, in any namespace and cluster-wide.
    const everywhere = [...TEKTON_ALLOWED, 'create events', 'get namespaces', 'list namespaces'].sort();
    assert.deepEqual(await allowed(release, 'shop'), everywhere);
    assert.deepEqual(await allowed(release, ''), everywhere);
  });

  test('pipelineruns alone: its token may list what runs own by the retain label, and a run stays for its retained claim', async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    const namespace = 'chart-owned';
    await seed.namespace(namespace);
    const done = (hours: number) => ({ state: 'succeeded' as const, finishedAt: new Date(Date.now() - hours * 3_600_000).toISOString() });
    const v1Run = (name: string) => ({ ...pipelineRun('v1', { name, namespace, labels: { 'tekton.dev/pipeline': 'deploy' } }, { resources: [] }) });
    await seed.create(v1Run('deploy-3'), done(1));
    const owner = await seed.create(v1Run('deploy-2'), done(2));
    await seed.create(v1Run('deploy-1'), done(3));
    await controlPlane
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedPersistentVolumeClaim({
        namespace,
        body: {
          metadata: { name: 'ws-kept', labels: { 'tekton-resource-gc.io/retain': 'true' }, ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: 'deploy-2', uid: owner.uid, controller: true }] },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      });

    await createNamespace('trgc-owned');
    const release = await render('owned', 'trgc-owned', { ...LIVE, collect: ['pipelineruns'], keep: 1, namespaces: [namespace] });
    await install(release);
    const result = await runAsCronJob(release);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(outcomes(reportOf(result)), {
      [`${namespace}/deploy-1`]: 'history-exceeded deleted',
      [`${namespace}/deploy-2`]: 'dependent-kept kept',
      [`${namespace}/deploy-3`]: 'history-kept kept',
    });
    // list alone on the kinds a run owns: no get, and no delete of a claim or Secret the runs' collector does not collect.
    const granted = await allowed(release, namespace);
    for (const verb of ['list persistentvolumeclaims', 'list pods', 'list secrets', 'list statefulsets']) assert.ok(granted.includes(verb), `${verb}: ${granted.join(', ')}`);
    for (const verb of ['get secrets', 'delete secrets', 'get persistentvolumeclaims', 'delete persistentvolumeclaims', 'delete pods']) assert.ok(!granted.includes(verb), verb);
  });

  test("a dry run's ServiceAccount may not delete: the API server refuses its DELETE (403); upgraded to live, the same token deletes", async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    await seed.namespace('dry-guard');
    await seed.create(gitResource({ name: 'src-guarded', namespace: 'dry-guard' }, 'ddd111'));
    await createNamespace('trgc-guard');
    await helmInstall('guard', 'trgc-guard');
    const release = await render('guard', 'trgc-guard');
    const token = await controlPlane.createServiceAccountToken('trgc-guard', serviceAccountOf(release));
    const custom = controlPlane.kubeConfig(token).makeApiClient(CustomObjectsApi);
    const target = { group: 'tekton.dev', version: 'v1alpha1', plural: 'pipelineresources', namespace: 'dry-guard', name: 'src-guarded' };
    assert.equal(await statusOf(custom.getNamespacedCustomObject(target)), 200);
    assert.equal(await statusOf(custom.deleteNamespacedCustomObject(target)), 403);
    assert.deepEqual(await seed.remainingTargets('dry-guard'), ['src-guarded']);
    assert.deepEqual(await allowed(release, 'dry-guard'), TEKTON_ALLOWED.filter((verb) => verb !== 'delete pipelineresources').concat('create events', 'get namespaces', 'list namespaces').sort());

    const upgrade = ['upgrade', 'guard', CHART, '--namespace', 'trgc-guard', '--reset-then-reuse-values', '--set', 'dryRun=false', '--kubeconfig', controlPlane.kubeconfigPath];
    succeeded(await run(helmPath, upgrade), 'helm upgrade --set dryRun=false');
    assert.equal(await statusOf(custom.deleteNamespacedCustomObject(target)), 200);
    assert.deepEqual(await seed.remainingTargets('dry-guard'), []);
  });

  test("a Pushgateway password from a Secret (extraEnv, named as $(NAME) in pushgatewayUrl) reaches the gateway as basic auth, and the pod's spec holds no password", async () => {
    const gateway = await startGroupStore();
    try {
      const namespace = 'trgc-pushgateway';
      await createNamespace(namespace);
      await controlPlane.apply([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pushgateway-auth', namespace }, stringData: { password: 's3cret' } }]);
      const release = await render('metrics', namespace, {
        namespaces: [namespace],
        extraEnv: [{ name: 'PUSHGATEWAY_PASSWORD', valueFrom: { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } } }],
        pushgatewayUrl: gateway.url.replace('http://', 'http://robot:$(PUSHGATEWAY_PASSWORD)@'),
        // And the other values of the pod and its owners, for the API server to check.
        commonLabels: { team: 'ci' },
        cronJobAnnotations: { 'example.com/cron': 'yes' },
        jobAnnotations: { 'example.com/job': 'yes' },
        priorityClassName: 'batch-low',
      });
      assert.doesNotMatch(release.yaml, /s3cret/);
      await install(release);
      const stored = JSON.parse(succeeded(await kubectl(['get', 'cronjob', '--namespace', namespace, 'metrics-tekton-resource-gc', '-o', 'json']), 'kubectl get cronjob')) as V1CronJob;
      const storedEnv = stored.spec?.jobTemplate.spec?.template.spec?.containers[0]?.env ?? [];
      assert.deepEqual(storedEnv.map((variable) => variable.name), containerOf(release).env?.map((variable) => variable.name));
      assert.deepEqual(storedEnv[0]?.valueFrom, { secretKeyRef: { name: 'pushgateway-auth', key: 'password' } });
      assert.equal(stored.spec?.jobTemplate.spec?.template.spec?.priorityClassName, 'batch-low');
      const container = containerOf(release);
      const env = await kubeletEnv(container, namespace);
      assert.equal(env['TRGC_PUSHGATEWAY_URL'], gateway.url.replace('http://', 'http://robot:s3cret@'));
      const pass = await runCli(container.args ?? [], { env: { ...env, KUBECONFIG: await serviceAccountKubeconfig(release) } });
      assert.equal(pass.code, 0, pass.stderr);
      assert.deepEqual(gateway.requests.map((request) => request.authorization), [`Basic ${Buffer.from('robot:s3cret').toString('base64')}`]);
      assert.ok(!pass.stderr.includes('s3cret'), 'the logs never show the password');
    } finally {
      await gateway.close();
    }
  });

  test('apply mode: a reviewed plan in a ConfigMap, applied by the CronJob\'s pod with the chart\'s ServiceAccount, deletes exactly the planned objects', async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    const labels = { 'trgc-test': 'apply' };
    await seed.namespace('reviewed');
    await seed.create(gitResource({ name: 'src-old-1', namespace: 'reviewed', labels }, 'ddd111'));
    await seed.create(gitResource({ name: 'src-old-2', namespace: 'reviewed', labels }, 'ddd222'));
    await seed.create(gitResource({ name: 'src-busy', namespace: 'reviewed', labels }, 'ddd333'));
    await seed.create(pipelineRun('v1beta1', { name: 'build-busy', namespace: 'reviewed' }, { resources: ['src-busy'] }), { state: 'running' });
    // The plan, made by a person with their own kubeconfig, reviewed, put in a ConfigMap.
    const planFile = path.join(work, 'reviewed-plan.json');
    const scope = ['--namespace', 'reviewed', '--selector', 'trgc-test=apply', '--min-age', '0s'];
    const dry = await runCli(['--dry-run', ...scope, '--plan-file', planFile, '--output', 'json', '--kubeconfig', controlPlane.kubeconfigPath]);
    assert.equal(dry.code, 0, dry.stderr);
    const digest = reportOf(dry).plan?.digest ?? '';
    await createNamespace('trgc-apply');
    const core = controlPlane.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'trgc-apply', body: { metadata: { name: 'reviewed-plan' }, data: { 'plan.json': await readFile(planFile, 'utf8') } } });
    // Collectable too, but created after the review: not in the plan.
    await seed.create(gitResource({ name: 'src-late', namespace: 'reviewed', labels }, 'ddd444'));

    const release = await render('gc', 'trgc-apply', { dryRun: false, planConfigMap: 'reviewed-plan', planDigest: digest, namespaces: ['reviewed'], selector: 'trgc-test=apply', minAge: '0s', output: 'json' });
    await install(release);
    const container = containerOf(release);
    assert.deepEqual(container.args, ['apply', '/etc/tekton-resource-gc/plan/plan.json']);
    assert.deepEqual(testPodOf(release).spec?.containers[0]?.args, ['run'], "helm test's pod makes a dry run, never an apply");

    // The pod as the kubelet runs it: the ConfigMap's key mounted at the container's path.
    const mount = container.volumeMounts?.find((entry) => entry.name === 'plan');
    const volume = cronJobOf(release).spec?.jobTemplate.spec?.template.spec?.volumes?.find((entry) => entry.name === 'plan');
    assert.equal(mount?.readOnly, true);
    const configMap = await core.readNamespacedConfigMap({ name: volume?.configMap?.name ?? '', namespace: 'trgc-apply' });
    const mounted = await mkdtemp(path.join(work, 'plan-volume-'));
    for (const item of volume?.configMap?.items ?? []) await writeFile(path.join(mounted, item.path), configMap.data?.[item.key] ?? '');
    const args = (container.args ?? []).map((arg) => arg.replace(mount?.mountPath ?? '', mounted));
    const result = await runCli(args, { env: { ...envOf(container), KUBECONFIG: await serviceAccountKubeconfig(release) } });
    assert.equal(result.code, 0, result.stderr);
    const report = reportOf(result);
    assert.equal(report.plan?.mode, 'applied');
    assert.equal(report.plan?.digest, digest);
    assert.deepEqual(outcomes(report), { 'reviewed/src-old-1': 'unreferenced deleted', 'reviewed/src-old-2': 'unreferenced deleted' });
    assert.deepEqual(await seed.remainingTargets('reviewed'), ['src-busy', 'src-late']);
    // It names the cluster by kube-system's uid: its ServiceAccount may read that one Namespace.
    assert.ok((await allowed(release, '', 'kube-system')).includes('get namespaces'));

    // A digest other than the reviewed one: refused in one line, exit 2, nothing read.
    const other = await render('gc', 'trgc-apply', { dryRun: false, planConfigMap: 'reviewed-plan', planDigest: `sha256:${'0'.repeat(64)}`, namespaces: ['reviewed'], selector: 'trgc-test=apply', minAge: '0s' });
    const refused = await runCli(args, { env: { ...envOf(containerOf(other)), KUBECONFIG: await serviceAccountKubeconfig(release) } });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /has digest sha256:[0-9a-f]{64}, not the sha256:0{64} given with --plan-digest/);
  });

  test('shards: one CronJob per entry, each with its namespace selector and schedule; with the chart\'s ServiceAccount each deletes only in its own namespaces, and together what one pass would', async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    const labels = { 'trgc-test': 'shards' };
    const namespaces = { 'shard-a-1': 'a', 'shard-a-2': 'a', 'shard-b-1': 'b' } as const;
    for (const [namespace, shard] of Object.entries(namespaces)) {
      await createNamespace(namespace, { 'tekton-resource-gc.io/shard': shard });
      await seed.create(gitResource({ name: 'src-orphan', namespace, labels }, namespace));
    }
    await createNamespace('trgc-shards');
    // A release name of its own: the ClusterRole is cluster-wide, and other tests' releases are called gc.
    const release = await render('shards', 'trgc-shards', {
      ...LIVE,
      selector: 'trgc-test=shards',
      shards: [
        { name: 'a', namespaceSelector: 'tekton-resource-gc.io/shard=a' },
        { name: 'b', namespaceSelector: 'tekton-resource-gc.io/shard=b', schedule: '47 * * * *' },
      ],
    });
    await install(release);
    const cronJobs = release.objects.filter((object) => object.kind === 'CronJob') as V1CronJob[];
    assert.deepEqual(
      cronJobs.map((cronJob) => [cronJob.metadata?.name, cronJob.spec?.schedule, cronJob.metadata?.labels?.['tekton-resource-gc.io/shard']]),
      [
        ['shards-tekton-resource-gc-a', '17 * * * *', 'a'],
        ['shards-tekton-resource-gc-b', '47 * * * *', 'b'],
      ],
    );
    // Reading Namespace labels takes a list across the cluster: granted with shards.
    assert.ok((await allowed(release, '')).includes('list namespaces'));
    const kubeconfig = await serviceAccountKubeconfig(release);
    const deletedBy: Record<string, string[]> = {};
    for (const cronJob of cronJobs) {
      const container = cronJob.spec?.jobTemplate.spec?.template.spec?.containers[0] as V1Container;
      const result = await runCli([...(container.args ?? []), '--output', 'json'], { env: { ...envOf(container), KUBECONFIG: kubeconfig } });
      assert.equal(result.code, 0, result.stderr);
      deletedBy[cronJob.metadata?.name ?? ''] = reportOf(result).items.filter((item) => item.result === 'deleted').map((item) => item.namespace);
    }
    assert.deepEqual(deletedBy, { 'shards-tekton-resource-gc-a': ['shard-a-1', 'shard-a-2'], 'shards-tekton-resource-gc-b': ['shard-b-1'] });
    for (const namespace of Object.keys(namespaces)) assert.deepEqual(await seed.remainingTargets(namespace), []);
  });

  test('shards: a name given twice is refused, and one too long for a CronJob is cut to 52 characters', async () => {
    const twice = await helmTemplate('gc', 'trgc-system', { shards: [{ name: 'a', namespaceSelector: 'x=1' }, { name: 'a', namespaceSelector: 'x=2' }] });
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /shards: the name a is given twice; each shard needs a name of its own/);
    const long = await render('a-release-name-that-is-quite-long-indeed', 'trgc-system', { shards: [{ name: 'shard-number-one', namespaceSelector: 'x=1' }] });
    const name = cronJobOf(long).metadata?.name ?? '';
    assert.ok(name.length <= 52, name);
    assert.match(name, /^a-release-name-that-is-quite-long-indeed-tekt-[0-9a-f]{6}$/);
  });

  test('apply mode needs a live release: planConfigMap with dryRun true is refused', async () => {
    const exit = await helmTemplate('gc', 'trgc-system', { planConfigMap: 'reviewed-plan' });
    assert.notEqual(exit.code, 0);
    assert.match(exit.stderr, /planConfigMap: reviewed-plan applies a reviewed plan, which is a live pass; set dryRun=false with it/);
  });

  test('named namespaces: collects in them and cannot read or delete anywhere else', async () => {
    const seed = new Seeder(controlPlane.kubeConfig());
    for (const namespace of ['team-a', 'team-b', 'team-c', 'elsewhere']) await seed.namespace(namespace);
    await seed.create(gitResource({ name: 'src-old', namespace: 'team-a' }, 'ccc111'));
    await seed.create(gitResource({ name: 'src-busy', namespace: 'team-a' }, 'ccc222'));
    await seed.create(pipelineRun('v1beta1', { name: 'build-busy', namespace: 'team-a' }, { resources: ['src-busy'] }), { state: 'running' });
    await seed.create(gitResource({ name: 'src-old', namespace: 'team-b' }, 'ccc333'));
    await seed.create(gitResource({ name: 'src-excluded', namespace: 'team-c' }, 'ccc444'));
    await seed.create(gitResource({ name: 'src-elsewhere', namespace: 'elsewhere' }, 'ccc555'));

    await createNamespace('trgc-teams');
    const release = await render('teams', 'trgc-teams', { ...LIVE, namespaces: ['team-a', 'team-b', 'team-c'], excludeNamespaces: ['team-c'] });
    await install(release);

    const result = await runAsCronJob(release);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(outcomes(reportOf(result)), {
      'team-a/src-busy': 'referenced-by-active-run kept',
      'team-a/src-old': 'unreferenced deleted',
      'team-b/src-old': 'unreferenced deleted',
    });
    assert.deepEqual(await seed.remainingTargets('team-a'), ['src-busy']);
    assert.deepEqual(await seed.remainingTargets('team-b'), []);
    assert.deepEqual(await seed.remainingTargets('team-c'), ['src-excluded']);
    assert.deepEqual(await seed.remainingTargets('elsewhere'), ['src-elsewhere']);

    // Pointed at another namespace, the same pod can list nothing there and deletes nothing.
    const outside = await runAsCronJob(release, ['--namespace', 'elsewhere']);
    assert.equal(outside.code, 1, `${outside.stdout}\n${outside.stderr}`);
    assert.match(`${outside.stdout}\n${outside.stderr}`, /forbidden: this identity may not list pipelineresources\.tekton\.dev in namespace \\?"elsewhere\\?"/);
    assert.deepEqual(await seed.remainingTargets('elsewhere'), ['src-elsewhere']);

    // The token itself, straight at the API server.
    const token = await controlPlane.createServiceAccountToken('trgc-teams', serviceAccountOf(release));
    const custom = controlPlane.kubeConfig(token).makeApiClient(CustomObjectsApi);
    const core = controlPlane.kubeConfig(token).makeApiClient(CoreV1Api);
    const where = { group: 'tekton.dev', version: 'v1alpha1', plural: 'pipelineresources' };
    assert.equal(await statusOf(custom.listNamespacedCustomObject({ ...where, namespace: 'team-a' })), 200);
    assert.equal(await statusOf(custom.listNamespacedCustomObject({ ...where, namespace: 'elsewhere' })), 403);
    assert.equal(await statusOf(custom.listNamespacedCustomObject({ ...where, namespace: 'team-c' })), 403);
    assert.equal(await statusOf(custom.listClusterCustomObject(where)), 403);
    assert.equal(await statusOf(custom.deleteNamespacedCustomObject({ ...where, namespace: 'elsewhere', name: 'src-elsewhere' })), 403);
    // Excluded namespaces are never read, so not even their Namespace object is granted.
    assert.equal(await statusOf(core.readNamespace({ name: 'team-a' })), 200);
    assert.equal(await statusOf(core.readNamespace({ name: 'team-c' })), 403);
    assert.equal(await statusOf(core.readNamespace({ name: 'elsewhere' })), 403);
    assert.equal(await statusOf(core.listNamespace()), 403);
    assert.deepEqual(await seed.remainingTargets('elsewhere'), ['src-elsewhere']);

    // And the authorizer's whole answer: the Tekton rules in the collected namespaces, nothing elsewhere.
    assert.deepEqual(await allowed(release, 'team-a'), [...TEKTON_ALLOWED, 'create events'].sort());
    for (const namespace of ['team-c', 'elsewhere', '']) assert.deepEqual(await allowed(release, namespace), []);
    for (const name of ['team-a', 'team-b']) assert.deepEqual(await allowed(release, '', name), ['get namespaces']);
    for (const name of ['team-c', 'elsewhere']) assert.deepEqual(await allowed(release, '', name), []);
  });
});

// ---- the leftover collectors' RBAC in action ----

/** What the leftover tests name their objects: as Tekton and Pipelines-as-Code name theirs. */
const CLAIM = 'pvc-3f5a0c9e1b';
const POD = 'build-3f5a-pod';
const STATEFUL_SET = 'affinity-assistant-3f5a0c9e1b';
const SECRET = 'pac-gitauth-qwerty';

/** A namespace holding one object of each kind the leftover collectors read, created by the administrator. */
async function seedLeftovers(namespace: string): Promise<void> {
  await createNamespace(namespace);
  const labels = { 'app.kubernetes.io/component': 'affinity-assistant', 'app.kubernetes.io/instance': STATEFUL_SET, 'tekton.dev/pipelineRun': 'build-3f5a' };
  await controlPlane.apply([
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: CLAIM, namespace }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: POD, namespace }, spec: { containers: [{ name: 'step', image: 'busybox' }], volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: CLAIM } }] } },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: STATEFUL_SET, namespace, labels },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'affinity-assistant', image: 'nop' }] } } },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: SECRET, namespace, labels: { 'app.kubernetes.io/managed-by': 'pipelinesascode.tekton.dev' } }, stringData: { '.git-credentials': 'https://git:token@example.com' } },
  ]);
}

/** Clients that act with a fresh token of the release's ServiceAccount, straight at the API server. */
async function clientsOf(release: Release): Promise<{ core: CoreV1Api; apps: AppsV1Api; custom: CustomObjectsApi }> {
  const token = await controlPlane.createServiceAccountToken(release.namespace, serviceAccountOf(release));
  const config = controlPlane.kubeConfig(token);
  return { core: config.makeApiClient(CoreV1Api), apps: config.makeApiClient(AppsV1Api), custom: config.makeApiClient(CustomObjectsApi) };
}

/** The preconditions the collector sends with each DELETE: the uid and resourceVersion it decided on, read by the administrator. */
async function preconditionsOf(kind: 'claim' | 'statefulSet' | 'secret', namespace: string): Promise<{ uid: string; resourceVersion: string }> {
  const admin = controlPlane.kubeConfig();
  const metadata =
    kind === 'claim'
      ? (await admin.makeApiClient(CoreV1Api).readNamespacedPersistentVolumeClaim({ name: CLAIM, namespace })).metadata
      : kind === 'secret'
        ? (await admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: SECRET, namespace })).metadata
        : (await admin.makeApiClient(AppsV1Api).readNamespacedStatefulSet({ name: STATEFUL_SET, namespace })).metadata;
  return { uid: metadata?.uid ?? '', resourceVersion: metadata?.resourceVersion ?? '' };
}

/** The patch the collector sends with pvcFinalizer purge: test the uid, the resourceVersion and the finalizer at its index, then remove it. */
function purgePatch(uid: string, resourceVersion: string, finalizers: readonly string[]): object[] {
  const index = finalizers.indexOf('kubernetes.io/pvc-protection');
  assert.ok(index >= 0, `no pvc-protection finalizer in ${finalizers.join(', ')}`);
  return [
    { op: 'test', path: '/metadata/uid', value: uid },
    { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
    { op: 'test', path: `/metadata/finalizers/${index}`, value: 'kubernetes.io/pvc-protection' },
    { op: 'remove', path: `/metadata/finalizers/${index}` },
  ];
}

const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/** The claim as the administrator sees it; undefined once it is gone. */
async function storedClaim(namespace: string): Promise<V1PersistentVolumeClaim | undefined> {
  try {
    return await controlPlane.kubeConfig().makeApiClient(CoreV1Api).readNamespacedPersistentVolumeClaim({ name: CLAIM, namespace });
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    throw error;
  }
}

const PIPELINE_RESOURCES = { group: 'tekton.dev', version: 'v1alpha1', plural: 'pipelineresources' };
/** What any collector reads besides its targets: runs, and (every namespace) Namespaces. */
const RUNS_ALLOWED = ['get pipelineruns', 'get taskruns', 'list pipelineruns', 'list taskruns'];
const NAMESPACES_ALLOWED = ['get namespaces', 'list namespaces'];

describe("each leftover collector under the chart's RBAC, with a token of the chart's ServiceAccount", () => {
  test('workspace-pvcs (keep): lists and gets claims, lists Pods and StatefulSets, deletes a claim, which stays Terminating; may not patch it, nor touch Secrets or PipelineResources', async () => {
    const namespace = 'leftovers-keep';
    await seedLeftovers(namespace);
    await createNamespace('trgc-pvcs');
    const release = await render('pvcs', 'trgc-pvcs', { ...LIVE, collect: ['workspace-pvcs'] });
    await install(release);
    const { core, apps, custom } = await clientsOf(release);

    assert.equal(await statusOf(core.listNamespacedPersistentVolumeClaim({ namespace })), 200);
    assert.equal(await statusOf(core.readNamespacedPersistentVolumeClaim({ name: CLAIM, namespace })), 200);
    assert.equal(await statusOf(core.listNamespacedPod({ namespace })), 200);
    assert.equal(await statusOf(apps.listNamespacedStatefulSet({ namespace })), 200);
    // Only lists of the holders: no get, and nothing of the other collectors'.
    assert.equal(await statusOf(core.readNamespacedPod({ name: POD, namespace })), 403);
    assert.equal(await statusOf(apps.readNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 403);
    assert.equal(await statusOf(apps.deleteNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 403);
    assert.equal(await statusOf(core.listNamespacedSecret({ namespace })), 403);
    assert.equal(await statusOf(core.readNamespacedSecret({ name: SECRET, namespace })), 403);
    assert.equal(await statusOf(custom.listNamespacedCustomObject({ ...PIPELINE_RESOURCES, namespace })), 403);

    // The DELETE the collector sends; the API server's pvc-protection finalizer keeps the claim Terminating.
    const preconditions = await preconditionsOf('claim', namespace);
    assert.equal(await statusOf(core.deleteNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: { preconditions } })), 200);
    const terminating = await storedClaim(namespace);
    assert.ok(terminating?.metadata?.deletionTimestamp !== undefined, 'the claim is Terminating');
    assert.deepEqual(terminating.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    // keep: the finalizer is Kubernetes' to remove, never this ServiceAccount's.
    const patch = purgePatch(terminating.metadata.uid ?? '', terminating.metadata.resourceVersion ?? '', terminating.metadata.finalizers ?? []);
    assert.equal(await statusOf(core.patchNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: patch }, JSON_PATCH)), 403);
    assert.deepEqual((await storedClaim(namespace))?.metadata?.finalizers, ['kubernetes.io/pvc-protection']);

    const expected = [...RUNS_ALLOWED, ...NAMESPACES_ALLOWED, 'create events', 'delete persistentvolumeclaims', 'get persistentvolumeclaims', 'list persistentvolumeclaims', 'list pods', 'list statefulsets'].sort();
    assert.deepEqual(await allowed(release, namespace), expected);
    assert.deepEqual(await allowed(release, ''), expected);
  });

  test("workspace-pvcs (purge) in a named namespace: the collector's own finalizer patch removes pvc-protection from the deleted claim, a stale one is refused; outside the namespace nothing", async () => {
    const namespace = 'leftovers-purge';
    await seedLeftovers(namespace);
    await seedLeftovers('leftovers-outside-purge');
    await createNamespace('trgc-purge');
    const release = await render('purge', 'trgc-purge', { ...LIVE, collect: ['workspace-pvcs'], pvcFinalizer: 'purge', namespaces: [namespace] });
    await install(release);
    const { core } = await clientsOf(release);

    // The DELETE's answer is the Terminating claim: its resourceVersion is the one the patch tests.
    const answer = await core.deleteNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: { preconditions: await preconditionsOf('claim', namespace) } });
    assert.ok(answer.metadata?.deletionTimestamp !== undefined, 'the DELETE answers with the Terminating claim');
    const { uid = '', resourceVersion = '', finalizers = [] } = answer.metadata;
    const stale = purgePatch(uid, '1', finalizers);
    const refused = await statusOf(core.patchNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: stale }, JSON_PATCH));
    // A failed test operation: 422 (Invalid), which the collector reports as `changed`.
    assert.equal(refused, 422);
    assert.ok((await storedClaim(namespace)) !== undefined);
    assert.equal(await statusOf(core.patchNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: purgePatch(uid, resourceVersion, finalizers) }, JSON_PATCH)), 200);
    assert.equal(await storedClaim(namespace), undefined, 'without its finalizer the deleted claim is gone');

    const outside = 'leftovers-outside-purge';
    assert.equal(await statusOf(core.listNamespacedPersistentVolumeClaim({ namespace: outside })), 403);
    assert.equal(await statusOf(core.deleteNamespacedPersistentVolumeClaim({ name: CLAIM, namespace: outside })), 403);
    assert.equal(await statusOf(core.listPersistentVolumeClaimForAllNamespaces()), 403);
    assert.deepEqual(await allowed(release, namespace), [...RUNS_ALLOWED, 'create events', 'delete persistentvolumeclaims', 'get persistentvolumeclaims', 'list persistentvolumeclaims', 'list pods', 'list statefulsets', 'patch persistentvolumeclaims'].sort());
    for (const elsewhere of [outside, '']) assert.deepEqual(await allowed(release, elsewhere), []);
    assert.deepEqual(await allowed(release, '', namespace), ['get namespaces']);
  });

  test('affinity-assistants: lists, gets and deletes StatefulSets (Background, with preconditions); no claims, Pods or Secrets', async () => {
    const namespace = 'leftovers-assistants';
    await seedLeftovers(namespace);
    await createNamespace('trgc-assistants');
    const release = await render('assistants', 'trgc-assistants', { ...LIVE, collect: ['affinity-assistants'] });
    await install(release);
    const { core, apps } = await clientsOf(release);

    assert.equal(await statusOf(apps.listNamespacedStatefulSet({ namespace })), 200);
    assert.equal(await statusOf(apps.readNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 200);
    assert.equal(await statusOf(apps.patchNamespacedStatefulSet({ name: STATEFUL_SET, namespace, body: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] }, JSON_PATCH)), 403);
    assert.equal(await statusOf(core.listNamespacedPersistentVolumeClaim({ namespace })), 403);
    assert.equal(await statusOf(core.listNamespacedPod({ namespace })), 403);
    assert.equal(await statusOf(core.listNamespacedSecret({ namespace })), 403);
    const preconditions = await preconditionsOf('statefulSet', namespace);
    assert.equal(await statusOf(apps.deleteNamespacedStatefulSet({ name: STATEFUL_SET, namespace, body: { preconditions, propagationPolicy: 'Background' } })), 200);
    assert.equal(await statusOf(controlPlane.kubeConfig().makeApiClient(AppsV1Api).readNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 404);

    const expected = [...RUNS_ALLOWED, ...NAMESPACES_ALLOWED, 'create events', 'delete statefulsets', 'get statefulsets', 'list statefulsets'].sort();
    assert.deepEqual(await allowed(release, namespace), expected);
  });

  test('pac-secrets in a named namespace: lists, gets and deletes Secrets there, lists Pods; no Secret elsewhere, no claims or StatefulSets', async () => {
    const namespace = 'leftovers-pac';
    const outside = 'leftovers-outside-pac';
    await seedLeftovers(namespace);
    await seedLeftovers(outside);
    await createNamespace('trgc-pac');
    const release = await render('pac', 'trgc-pac', { ...LIVE, collect: ['pac-secrets'], namespaces: [namespace] });
    await install(release);
    const { core, apps } = await clientsOf(release);

    assert.equal(await statusOf(core.listNamespacedSecret({ namespace, labelSelector: 'app.kubernetes.io/managed-by in (pipelinesascode.tekton.dev,pipelines-as-code)' })), 200);
    assert.equal(await statusOf(core.readNamespacedSecret({ name: SECRET, namespace })), 200);
    assert.equal(await statusOf(core.listNamespacedPod({ namespace })), 200);
    assert.equal(await statusOf(core.readNamespacedPod({ name: POD, namespace })), 403);
    assert.equal(await statusOf(core.patchNamespacedSecret({ name: SECRET, namespace, body: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] }, JSON_PATCH)), 403);
    assert.equal(await statusOf(core.listNamespacedPersistentVolumeClaim({ namespace })), 403);
    assert.equal(await statusOf(apps.listNamespacedStatefulSet({ namespace })), 403);
    assert.equal(await statusOf(core.listNamespacedSecret({ namespace: outside })), 403);
    assert.equal(await statusOf(core.readNamespacedSecret({ name: SECRET, namespace: outside })), 403);
    assert.equal(await statusOf(core.listSecretForAllNamespaces()), 403);
    assert.equal(await statusOf(core.deleteNamespacedSecret({ name: SECRET, namespace, body: { preconditions: await preconditionsOf('secret', namespace) } })), 200);
    assert.equal(await statusOf(core.deleteNamespacedSecret({ name: SECRET, namespace: outside })), 403);

    assert.deepEqual(await allowed(release, namespace), [...RUNS_ALLOWED, 'create events', 'delete secrets', 'get secrets', 'list pods', 'list secrets'].sort());
    for (const elsewhere of [outside, '']) assert.deepEqual(await allowed(release, elsewhere), []);
  });

  test('a dry run with every collector (and purge): lists and gets each kind, deletes and patches none (403)', async () => {
    const namespace = 'leftovers-dry';
    await seedLeftovers(namespace);
    await createNamespace('trgc-leftovers-dry');
    const release = await render('leftovers-dry', 'trgc-leftovers-dry', {
      collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs'],
      pvcFinalizer: 'purge',
    });
    await install(release);
    const { core, apps, custom } = await clientsOf(release);

    assert.equal(await statusOf(core.readNamespacedPersistentVolumeClaim({ name: CLAIM, namespace })), 200);
    assert.equal(await statusOf(apps.readNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 200);
    assert.equal(await statusOf(core.readNamespacedSecret({ name: SECRET, namespace })), 200);
    assert.equal(await statusOf(custom.listNamespacedCustomObject({ ...PIPELINE_RESOURCES, namespace })), 200);
    assert.equal(await statusOf(core.deleteNamespacedPersistentVolumeClaim({ name: CLAIM, namespace })), 403);
    assert.equal(await statusOf(apps.deleteNamespacedStatefulSet({ name: STATEFUL_SET, namespace })), 403);
    assert.equal(await statusOf(core.deleteNamespacedSecret({ name: SECRET, namespace })), 403);
    const claim = await storedClaim(namespace);
    const patch = purgePatch(claim?.metadata?.uid ?? '', claim?.metadata?.resourceVersion ?? '', claim?.metadata?.finalizers ?? []);
    assert.equal(await statusOf(core.patchNamespacedPersistentVolumeClaim({ name: CLAIM, namespace, body: patch }, JSON_PATCH)), 403);
    assert.equal((await storedClaim(namespace))?.metadata?.deletionTimestamp, undefined);

    assert.deepEqual(await allowed(release, namespace), [
      ...RUNS_ALLOWED,
      ...NAMESPACES_ALLOWED,
      'create events',
      'get persistentvolumeclaims',
      'get pipelineresources',
      'get secrets',
      'get statefulsets',
      'list persistentvolumeclaims',
      'list pipelineresources',
      'list pods',
      'list secrets',
      'list statefulsets',
    ].sort());
  });

  test("a live pass of every leftover collector, as the CronJob's pod runs it with the chart's ServiceAccount in a named namespace: deletes what is done (the claim's finalizer purged), keeps what a running run or Pod uses, and needs no permission the chart did not grant", async () => {
    const namespace = 'leftovers-pass';
    const seed = new Seeder(controlPlane.kubeConfig());
    await createNamespace(namespace);
    const finished = await seed.create(pipelineRun('v1beta1', { name: 'build-done', namespace }, { resources: [] }), { state: 'succeeded', finishedAt: new Date(Date.now() - 3_600_000).toISOString() });
    const running = await seed.create(pipelineRun('v1beta1', { name: 'build-busy', namespace }, { resources: [] }), { state: 'running' });
    const ownedBy = (run: { name: string; uid: string }, controller: boolean): V1OwnerReference[] => [
      { apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: run.name, uid: run.uid, controller, blockOwnerDeletion: true },
    ];
    const claim = (name: string, run: { name: string; uid: string }): ObjectManifest => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace, ownerReferences: ownedBy(run, true) },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    // An assistant whose PipelineRun was deleted mid-flight: its owner is gone.
    const gone = { name: 'build-deleted', uid: '00000000-0000-4000-8000-000000000001' };
    const assistant = 'affinity-assistant-0a1b2c3d4e';
    const assistantLabels = { 'app.kubernetes.io/component': 'affinity-assistant', 'app.kubernetes.io/instance': assistant, 'tekton.dev/pipelineRun': gone.name };
    await controlPlane.apply([
      claim('pvc-done', finished),
      claim('pvc-busy', running),
      claim('pvc-held', finished),
      // A Pod without a phase is active: the claim it mounts is in use.
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'debug-shell', namespace }, spec: { containers: [{ name: 'sh', image: 'busybox' }], volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: 'pvc-held' } }] } },
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: assistant, namespace, labels: assistantLabels, ownerReferences: ownedBy(gone, true) },
        spec: { selector: { matchLabels: assistantLabels }, template: { metadata: { labels: assistantLabels }, spec: { containers: [{ name: 'affinity-assistant', image: 'nop' }] } } },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pac-gitauth-abcdef', namespace, labels: { 'app.kubernetes.io/managed-by': 'pipelinesascode.tekton.dev' }, ownerReferences: ownedBy(finished, false) },
        stringData: { '.git-credentials': 'https://git:token@example.com' },
      },
    ]);

    await createNamespace('trgc-leftovers-pass');
    const release = await render('leftovers-pass', 'trgc-leftovers-pass', {
      ...LIVE,
      namespaces: [namespace],
      collect: ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs'],
      pvcFinalizer: 'purge',
    });
    await install(release);
    const result = await runAsCronJob(release);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.doesNotMatch(result.stderr, /forbidden/);
    const report = reportOf(result);
    assert.deepEqual(Object.fromEntries(report.items.map((item) => [`${item.kind}/${item.name}`, `${item.reason} ${item.result}`])), {
      'PersistentVolumeClaim/pvc-busy': 'referenced-by-active-run kept',
      'PersistentVolumeClaim/pvc-done': 'runs-finished deleted',
      'PersistentVolumeClaim/pvc-held': 'in-use-by-pod kept',
      'Secret/pac-gitauth-abcdef': 'runs-finished deleted',
      [`StatefulSet/${assistant}`]: 'owner-gone deleted',
    });
    const admin = controlPlane.kubeConfig();
    const claims = await admin.makeApiClient(CoreV1Api).listNamespacedPersistentVolumeClaim({ namespace });
    assert.deepEqual(claims.items.map((item) => item.metadata?.name).sort(), ['pvc-busy', 'pvc-held'], 'the deleted claim is gone: its pvc-protection finalizer was purged');
    assert.deepEqual((await admin.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace })).items.map((item) => item.metadata?.name), []);
    assert.deepEqual((await admin.makeApiClient(AppsV1Api).listNamespacedStatefulSet({ namespace })).items.map((item) => item.metadata?.name), []);
  });

  test('pipelineruns live: deletes a PipelineRun (Background, with preconditions), never a TaskRun; a dry release, or one that names no run collector, deletes no run', async () => {
    const namespace = 'runs-rbac';
    await createNamespace(namespace);
    const admin = controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
    const runs = { group: 'tekton.dev', version: 'v1', namespace };
    const made = (await admin.createNamespacedCustomObject({
      ...runs,
      plural: 'pipelineruns',
      body: { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', metadata: { name: 'nightly-1', namespace }, spec: { pipelineRef: { name: 'build' } } },
    })) as { metadata: { uid: string; resourceVersion: string } };
    await admin.createNamespacedCustomObject({ ...runs, plural: 'taskruns', body: { apiVersion: 'tekton.dev/v1', kind: 'TaskRun', metadata: { name: 'lint-1', namespace }, spec: { taskRef: { name: 'lint' } } } });

    await createNamespace('trgc-runs');
    const release = await render('runs', 'trgc-runs', { ...LIVE, collect: ['pipelineruns'], keep: 3 });
    await install(release);
    const { custom } = await clientsOf(release);
    assert.equal(await statusOf(custom.deleteNamespacedCustomObject({ ...runs, plural: 'taskruns', name: 'lint-1' })), 403);
    const body = { preconditions: { uid: made.metadata.uid, resourceVersion: made.metadata.resourceVersion }, propagationPolicy: 'Background' };
    assert.equal(await statusOf(custom.deleteNamespacedCustomObject({ ...runs, plural: 'pipelineruns', name: 'nightly-1', body })), 200);
    assert.equal(await statusOf(admin.getNamespacedCustomObject({ ...runs, plural: 'pipelineruns', name: 'nightly-1' })), 404);
    // And list alone on what a run owns, for the retained objects that keep a run (resolutionrequests too, not in this matrix).
    const runOwned = ['list persistentvolumeclaims', 'list pods', 'list secrets', 'list statefulsets'];
    assert.deepEqual(await allowed(release, namespace), [...RUNS_ALLOWED, ...NAMESPACES_ALLOWED, ...runOwned, 'create events', 'delete pipelineruns'].sort());

    for (const [name, values] of [
      ['runs-dry', { collect: ['pipelineruns', 'taskruns'], keep: 3 }],
      ['runs-none', { ...LIVE, collect: ['workspace-pvcs'] }],
    ] as const) {
      await createNamespace(`trgc-${name}`);
      const other = await render(name, `trgc-${name}`, values);
      await install(other);
      const granted = await allowed(other, namespace);
      assert.ok(!granted.includes('delete pipelineruns') && !granted.includes('delete taskruns'), `${name}: ${granted.join(', ')}`);
      assert.ok(granted.includes('list pipelineruns'), name);
    }
  });
});

// ---- the image ----

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

interface ImageReplay {
  stages: Stage[];
  /** Where the final stage's filesystem root was replayed. */
  root: string;
  workdir: string;
  user: string;
  entrypoint: string[];
}

/** Instructions of a Dockerfile: continuation lines joined, comments and parser directives dropped. */
function dockerInstructions(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const space = line.search(/\s/);
      return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim().replace(/\s+/g, ' ') };
    });
}

function dockerStages(text: string): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of dockerInstructions(text)) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value] = instruction.args.split('=');
      globalArgs.set(name ?? '', value ?? '');
    } else if (instruction.keyword === 'FROM') {
      const [base = '', , name = `stage-${stages.length}`] = instruction.args.replace(/\$\{(\w+)\}/g, (_, arg: string) => globalArgs.get(arg) ?? '').split(' ');
      stages.push({ name, base, instructions: [] });
    } else {
      const stage = stages.at(-1);
      assert.ok(stage !== undefined, `${instruction.keyword} before FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** .dockerignore as Docker reads it: the last pattern that matches a path, or a parent of it, decides. */
async function dockerignore(): Promise<(relative: string) => boolean> {
  const rules = (await readFile(path.join(ROOT, '.dockerignore'), 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclude = !line.startsWith('!');
      const glob = (exclude ? line : line.slice(1)).replace(/\/+$/, '');
      const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\u0000/g, '.*');
      return { exclude, pattern: new RegExp(`^${source}$`) };
    });
  return (relative) => {
    const parts = relative.split('/');
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let included = true;
    for (const rule of rules) if (candidates.some((candidate) => rule.pattern.test(candidate))) included = !rule.exclude;
    return included;
  };
}

/**
 * Builds the image without Docker: every stage gets a directory as its root, WORKDIR and
 * COPY act on it (sources from the build context through .dockerignore, or from an
 * earlier stage), RUN runs in it with sh. RUN may use only relative paths, which this
 * replay can map. The final stage's base image cannot be replayed; the test checks its
 * name and the entrypoint's interpreter instead.
 */
async function replayDockerfile(dir: string): Promise<ImageReplay> {
  const stages = dockerStages(await readFile(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const included = await dockerignore();
  const roots = new Map<string, string>();
  let last: Omit<ImageReplay, 'stages'> | undefined;
  for (const stage of stages) {
    const root = path.join(dir, stage.name);
    roots.set(stage.name, root);
    await mkdir(root, { recursive: true });
    let workdir = '/';
    let user = '';
    let entrypoint: string[] = [];
    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        workdir = path.posix.resolve(workdir, args);
        await mkdir(path.join(root, workdir), { recursive: true });
      } else if (keyword === 'COPY') {
        await replayCopy(args, { root, workdir, roots, included });
      } else if (keyword === 'RUN') {
        assert.doesNotMatch(args, /(^|\s)\//, `RUN uses an absolute path, which the replay cannot map: ${args}`);
        const exit = await run('sh', ['-c', args], {
          cwd: path.join(root, workdir),
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
        });
        succeeded(exit, `RUN ${args}`);
      } else if (keyword === 'USER') {
        user = args;
      } else if (keyword === 'ENTRYPOINT') {
        entrypoint = JSON.parse(args) as string[];
      } else if (keyword === 'ARG' || keyword === 'LABEL') {
        // A stage's build arguments and labels: the image's metadata, which no RUN reads
        // (the replay expands no build argument).
      } else {
        assert.fail(`the replay does not know ${keyword}; teach it or keep the Dockerfile simple`);
      }
    }
    last = { root, workdir, user, entrypoint };
  }
  assert.ok(last !== undefined, 'the Dockerfile has no stage');
  return { stages, ...last };
}

/** The entrypoint's arguments to node, its script moved into the replayed image's root. */
function imageEntrypoint(image: ImageReplay): string[] {
  const script = image.entrypoint.at(-1) ?? '';
  return [...image.entrypoint.slice(1, -1), path.join(image.root, script)];
}

async function replayCopy(
  args: string,
  context: { root: string; workdir: string; roots: ReadonlyMap<string, string>; included: (relative: string) => boolean },
): Promise<void> {
  const words = args.split(' ');
  const from = words[0]?.startsWith('--from=') ? words.shift()?.slice('--from='.length) : undefined;
  const dest = words.pop() ?? '';
  assert.ok(words.length > 0 && words.every((source) => !/[*?[]/.test(source)), `COPY ${args}: the replay takes plain paths`);
  const destPath = path.join(context.root, path.posix.resolve(context.workdir, dest));
  const intoDirectory = dest.endsWith('/') || words.length > 1;
  for (const source of words) {
    let sourcePath: string;
    let filter: ((file: string) => boolean) | undefined;
    if (from === undefined) {
      sourcePath = path.join(ROOT, source);
      filter = (file) => context.included(path.relative(ROOT, file));
      assert.ok(context.included(source.replace(/\/+$/, '')), `COPY ${source}: .dockerignore leaves it out of the build context`);
    } else {
      const stageRoot = context.roots.get(from);
      assert.ok(stageRoot !== undefined, `COPY --from=${from}: no such stage before this one`);
      sourcePath = path.join(stageRoot, source);
    }
    assert.ok(existsSync(sourcePath), `COPY ${from === undefined ? '' : `--from=${from} `}${source}: no such file`);
    const isDirectory = (await stat(sourcePath)).isDirectory();
    const target = isDirectory || !intoDirectory ? destPath : path.join(destPath, path.basename(source));
    await cp(sourcePath, target, { recursive: true, verbatimSymlinks: true, ...(filter === undefined ? {} : { filter }) });
  }
}

describe('the image, replayed from the Dockerfile without Docker', () => {
  test('holds exactly the packed package and its production dependencies, runs as 65532, and its entrypoint is the CLI', async () => {
    const image = await imageBuild;
    const final = image.stages.at(-1);
    assert.ok(final !== undefined);
    assert.equal(image.stages.length >= 2, true, 'multi-stage');
    assert.deepEqual(final.instructions.filter((instruction) => instruction.keyword === 'RUN'), [], 'distroless has no shell to RUN with');

    // Node.js: the same LTS major to build with and to run on, distroless, its node the entrypoint's.
    const buildMajor = /^node:(\d+)-/.exec(image.stages[0]?.base ?? '')?.[1];
    const runtimeMajor = /^gcr\.io\/distroless\/nodejs(\d+)-debian\d+:nonroot$/.exec(final.base)?.[1];
    assert.ok(buildMajor !== undefined && runtimeMajor !== undefined, `bases: ${image.stages.map((stage) => stage.base).join(', ')}`);
    assert.equal(runtimeMajor, buildMajor);
    assert.equal(Number(runtimeMajor) % 2, 0, 'even Node.js majors become LTS');
    assert.equal(image.entrypoint[0], '/nodejs/bin/node', "distroless's node");

    // What the final stage holds: the package's files and production dependencies only.
    assert.deepEqual((await readdir(path.join(image.root, image.workdir))).sort(), ['dist', 'node_modules', 'package.json']);
    // Every package the lockfile needs in production is there, and none that only development needs.
    const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean }> };
    const installed = (key: string): boolean => existsSync(path.join(image.root, image.workdir, key));
    const packages = Object.entries(lock.packages).filter(([key]) => key.startsWith('node_modules/'));
    const missing = packages.filter(([key, entry]) => entry.dev !== true && entry.optional !== true && !installed(key)).map(([key]) => key);
    const development = packages.filter(([key, entry]) => entry.dev === true && installed(key)).map(([key]) => key);
    assert.deepEqual({ missing, development }, { missing: [], development: [] });
    assert.ok(packages.some(([, entry]) => entry.dev === true), 'the lockfile has development-only packages to leave out');
    assert.ok(!installed('node_modules/typescript') && !installed('node_modules/tsx'));
    assert.ok(!existsSync(path.join(image.root, image.workdir, 'dist', 'main.ts')), 'compiled JavaScript, no sources');

    // The entrypoint's script is the package's bin, after node's flags (bench/measure.ts imageNodeFlags reads them).
    const [binName, binPath] = Object.entries(PACKAGE.bin)[0] ?? [];
    assert.equal(binName, 'tekton-resource-gc');
    assert.equal(image.entrypoint.at(-1), path.posix.join(image.workdir, binPath ?? ''));
    assert.ok(image.entrypoint.slice(1, -1).every((word) => word.startsWith('--')), `node flags only between node and the script: ${image.entrypoint.join(' ')}`);

    // The chart runs the image as the user the image names.
    const pod = cronJobOf(await render('gc', 'trgc-system')).spec?.jobTemplate.spec?.template.spec;
    assert.equal(image.user, `${pod?.securityContext?.runAsUser ?? 'unset'}:${pod?.securityContext?.runAsGroup ?? 'unset'}`);

    const entrypoint = imageEntrypoint(image);
    const version = await run(process.execPath, [...entrypoint, '--version'], { env: { PATH: '' } });
    assert.equal(succeeded(version, '--version'), `tekton-resource-gc ${PACKAGE.version}\n`);
    const help = await run(process.execPath, [...entrypoint, '--help'], { env: { PATH: '' } });
    assert.match(succeeded(help, '--help'), /^Usage:\n {2}tekton-resource-gc \[run\] \[flags\]/m);
  });

  test("helm test on the real API server: its pod, created by helm and admitted as restricted, replayed with the image as the kubelet would run it, makes a dry run of a live release and passes", async () => {
    const image = await imageBuild;
    const seed = new Seeder(controlPlane.kubeConfig());
    await seed.namespace('helm-test-ci');
    await seed.create(gitResource({ name: 'src-old', namespace: 'helm-test-ci', labels: { 'trgc-test': 'helm-test' } }, 'eee111'));
    const namespace = 'trgc-helm-test';
    await createNamespace(namespace, RESTRICTED);
    const values = { ...LIVE, selector: 'trgc-test=helm-test', output: 'text' };
    await helmInstall('smoke', namespace, values);
    const release = await render('smoke', namespace, values);

    const helmTest = run(helmPath, ['test', 'smoke', '--namespace', namespace, '--timeout', '3m', '--kubeconfig', controlPlane.kubeconfigPath]);
    const core = controlPlane.kubeConfig().makeApiClient(CoreV1Api);
    const name = testPodOf(release).metadata?.name ?? '';
    let pod: V1Pod | undefined;
    // helm creates the pod and waits for its phase; with no kubelet here, the test runs it and reports the phase.
    for (let tries = 0; pod === undefined; tries++) {
      assert.ok(tries < 300, 'helm test created no pod');
      pod = await core.readNamespacedPod({ name, namespace }).catch(() => undefined);
      if (pod === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(pod.spec?.serviceAccountName, serviceAccountOf(release));
    assert.equal(pod.metadata?.annotations?.['helm.sh/hook'], 'test');
    const container = pod.spec?.containers[0] as V1Container;
    const pass = await run(process.execPath, [...imageEntrypoint(image), ...(container.args ?? [])], {
      env: { ...(await kubeletEnv(container, namespace)), KUBECONFIG: await serviceAccountKubeconfig(release) },
    });
    const phase = pass.code === 0 ? 'Succeeded' : 'Failed';
    succeeded(await kubectl(['patch', 'pod', name, '--namespace', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase } })]), 'reporting the phase');

    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, /^dry run: 1 target, \d+ runs?: 1 would be deleted \(unreferenced 1\)/m);
    assert.deepEqual(await seed.remainingTargets('helm-test-ci'), ['src-old'], 'a live release, yet its test deleted nothing');
    const tested = await helmTest;
    assert.equal(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, new RegExp(`TEST SUITE: +${name}\\n[^]*Phase: +Succeeded`));
  });

  test("runs a pass with the chart's defaults and the chart's ServiceAccount", async () => {
    const image = await imageBuild;
    const { release } = await installedDefaults();
    const container = containerOf(release);
    const pass = await run(process.execPath, [...imageEntrypoint(image), ...(container.args ?? [])], {
      env: { ...envOf(container), KUBECONFIG: await serviceAccountKubeconfig(release) },
    });
    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, /^dry run: \d+ targets?, \d+ runs?/m);
  });
});

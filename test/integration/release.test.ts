/**
 * The release machinery (.github/workflows): actionlint passes the workflows and fails a
 * broken one, and what a tag publishes is what the chart installs by default. The release
 * workflow's own version step runs here as GitHub would run it, and the chart is rendered
 * by the harness's Helm; the operator quick start (docs/install.md) names the same chart,
 * image and CronJob. No control plane: nothing here talks to Kubernetes.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { ensureBinaries } from '../../harness/build.js';
import { exec, toolEnv, type Exit } from '../support/exec.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): Promise<string> => readFile(path.join(ROOT, file), 'utf8');

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}
interface Job {
  uses?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps?: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const WORKFLOW_FILES = ['.github/workflows/ci.yml', '.github/workflows/release.yml'];
const release = yaml.load(await read('.github/workflows/release.yml')) as Workflow;
const ci = yaml.load(await read('.github/workflows/ci.yml')) as Workflow;
const CHART = yaml.load(await read('chart/Chart.yaml')) as { name: string; version: string; appVersion: string };
const VALUES = yaml.load(await read('chart/values.yaml')) as { image: { repository: string; tag: string; digest?: string } };
const PACKAGE = JSON.parse(await read('package.json')) as { version: string };

let work: string;
let helmPath: string;
let actionlintPath: string;

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'trgc-release-'));
  ({ helm: helmPath, actionlint: actionlintPath } = await ensureBinaries(['helm', 'actionlint']));
});

after(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Exit> {
  return exec(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? { PATH: process.env.PATH ?? '', HOME: work } });
}

function stepOf(job: Job | undefined, match: (step: Step) => boolean, what: string): Step {
  const step = job?.steps?.find(match);
  assert.ok(step !== undefined, `no step ${what}`);
  return step;
}

const usesAction = (action: string) => (step: Step): boolean => step.uses?.startsWith(`${action}@`) === true;

/**
 * Runs the release workflow's version step as a runner does (`shell: bash`), in a copy of
 * the files it reads, with the variables GitHub sets for a tag push.
 */
async function versionStep(tag: string, options: { owner?: string; files?: Record<string, string> } = {}): Promise<Exit & { outputs: Record<string, string> }> {
  const step = stepOf(release.jobs.version, (candidate) => candidate.id === 'version', 'with id version in the version job');
  const dir = await mkdtemp(path.join(work, 'version-'));
  await mkdir(path.join(dir, 'chart'));
  for (const file of ['package.json', 'chart/Chart.yaml']) await writeFile(path.join(dir, file), options.files?.[file] ?? (await read(file)));
  const script = path.join(dir, 'step.sh');
  await writeFile(script, step.run ?? '');
  const outputFile = path.join(dir, 'output');
  await writeFile(outputFile, '');
  const exit = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      ...release.env,
      ...step.env,
      GITHUB_REF_NAME: tag,
      GITHUB_REPOSITORY_OWNER: options.owner ?? imageOwner(),
      GITHUB_OUTPUT: outputFile,
    },
  });
  const outputs = Object.fromEntries(
    (await readFile(outputFile, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { ...exit, outputs };
}

/** The owner the release publishes under: ghcr.io/<owner>/... */
function imageOwner(): string {
  return /^ghcr\.io\/([^/]+)\//.exec(release.env?.IMAGE ?? '')?.[1] ?? '';
}

/** The chart's default CronJob and its container, as `helm template` renders them. */
async function renderDefaults(releaseName: string, namespace: string): Promise<{ cronJob: string; image: string }> {
  const exit = await run(helmPath, ['template', releaseName, path.join(ROOT, 'chart'), '--namespace', namespace], {
    env: toolEnv(work),
  });
  assert.equal(exit.code, 0, exit.stderr);
  const cronJob = (yaml.loadAll(exit.stdout) as { kind?: string; metadata: { name: string }; spec: { jobTemplate: { spec: { template: { spec: { containers: { image: string }[] } } } } } }[]).find(
    (object) => object?.kind === 'CronJob',
  );
  assert.ok(cronJob !== undefined, 'the chart renders a CronJob');
  return { cronJob: cronJob.metadata.name, image: cronJob.spec.jobTemplate.spec.template.spec.containers[0]?.image ?? '' };
}

describe('the workflows, linted by actionlint', () => {
  /** A repository root for actionlint: the workflows and a .git (actionlint's mark of a project). */
  async function repositoryCopy(name: string): Promise<string> {
    const dir = path.join(work, name);
    await mkdir(path.join(dir, '.git'), { recursive: true });
    await cp(path.join(ROOT, '.github'), path.join(dir, '.github'), { recursive: true });
    return dir;
  }

  const lint = (root: string): Promise<Exit> =>
    run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'harness', 'lint-workflows.ts'), root], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work, TEST_ASSET_ACTIONLINT: actionlintPath },
    });

  test('npm run lint:workflows passes the repository\'s workflows', async () => {
    const exit = await lint(ROOT);
    assert.equal(exit.code, 0, exit.stdout + exit.stderr);
    assert.match(exit.stdout, new RegExp(`actionlint: ${WORKFLOW_FILES.join(', ')} clean`));
  });

  test('and fails a copy with a misspelt job output, naming the file, line and property', async () => {
    const intact = await repositoryCopy('intact');
    assert.equal((await lint(intact)).code, 0, 'the copy as it is passes');

    const broken = await repositoryCopy('broken');
    const file = path.join(broken, '.github', 'workflows', 'release.yml');
    const text = await readFile(file, 'utf8');
    const typo = text.replace('tags: ${{ env.IMAGE }}:${{ needs.version.outputs.version }}', 'tags: ${{ env.IMAGE }}:${{ needs.version.outputs.verison }}');
    assert.notEqual(typo, text, 'the build step tags the image with the version job\'s output');
    await writeFile(file, typo);
    const exit = await lint(broken);
    assert.equal(exit.code, 1, exit.stdout + exit.stderr);
    assert.match(exit.stdout, /^\.github\/workflows\/release\.yml:\d+:\d+: property "verison" is not defined/m);
  });

  test('every third-party action is pinned to a commit, with the tag it carries', async () => {
    for (const file of WORKFLOW_FILES) {
      const uses = [...(await read(file)).matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/gm)];
      assert.ok(uses.length > 0, file);
      for (const [line, action = '', comment = ''] of uses) {
        if (action.startsWith('./')) continue;
        assert.match(action, /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/, `${file}: ${line.trim()}`);
        assert.match(comment, /^ # v\d+\.\d+\.\d+$/, `${file}: ${line.trim()}`);
      }
    }
  });

  test('scripts read workflow values from the environment, never through ${{ }} in the script', () => {
    for (const [file, workflow] of [['ci.yml', ci], ['release.yml', release]] as const) {
      for (const [name, job] of Object.entries(workflow.jobs)) {
        for (const step of job.steps ?? []) {
          assert.doesNotMatch(step.run ?? '', /\$\{\{/, `${file} ${name}: ${step.name ?? step.run ?? ''}`);
        }
      }
    }
  });
});

describe('the chart installs what a release publishes', () => {
  test('a tag of the package version passes the version step, which yields the version without the v', async () => {
    assert.equal(CHART.appVersion, PACKAGE.version, "Chart.yaml's appVersion is package.json's version");
    const exit = await versionStep(`v${PACKAGE.version}`);
    assert.equal(exit.code, 0, exit.stdout + exit.stderr);
    assert.deepEqual(exit.outputs, { version: PACKAGE.version });
  });

  test('the version step fails a tag that is not the version of package.json and the chart, or not a version, or of another owner', async () => {
    const other = await versionStep('v99.0.0');
    assert.equal(other.code, 1);
    for (const what of [`package.json version is ${PACKAGE.version}`, `chart/Chart.yaml version is ${CHART.version}`, `chart/Chart.yaml appVersion is ${CHART.appVersion}`]) {
      assert.ok(other.stdout.includes(`releases 99.0.0, but ${what}`), `${what}:\n${other.stdout}`);
    }
    const chartOnly = await versionStep(`v${PACKAGE.version}`, { files: { 'chart/Chart.yaml': (await read('chart/Chart.yaml')).replace(/^appVersion:.*$/m, 'appVersion: "9.9.9" # a comment') } });
    assert.equal(chartOnly.code, 1);
    assert.match(chartOnly.stdout, /^::error::tag v[\d.]+ releases [\d.]+, but chart\/Chart\.yaml appVersion is 9\.9\.9: /m);
    assert.doesNotMatch(chartOnly.stdout, /package\.json version is/);

    const notVersion = await versionStep('vnext');
    assert.equal(notVersion.code, 1);
    assert.match(notVersion.stdout, /^::error::tag vnext: a release tag is v and a semantic version, such as v0\.1\.0$/m);

    const fork = await versionStep(`v${PACKAGE.version}`, { owner: 'Someone-Else' });
    assert.equal(fork.code, 1);
    assert.match(fork.stdout, /GITHUB_TOKEN publishes only under someone-else/);
  });

  test("the chart's default image is the image the release pushes, at the tag's version", async () => {
    const image = release.env?.IMAGE ?? '';
    assert.match(image, /^ghcr\.io\/[a-z0-9-]+\/tekton-resource-gc$/);
    assert.equal(VALUES.image.repository, image, 'values.yaml image.repository');
    assert.equal(VALUES.image.tag, '', 'the tag defaults to appVersion');
    assert.ok(!VALUES.image.digest, 'no digest by default: a digest would pin another image than the tag');

    const build = stepOf(release.jobs.image, usesAction('docker/build-push-action'), 'docker/build-push-action in the image job');
    assert.equal(build.with?.tags, '${{ env.IMAGE }}:${{ needs.version.outputs.version }}');
    assert.equal(build.with?.push, true);
    assert.deepEqual(String(build.with?.platforms).split(','), ['linux/amd64', 'linux/arm64']);
    assert.equal(build.with?.sbom, true);
    assert.match(String(build.with?.provenance), /^mode=max$/);
    assert.deepEqual(release.jobs.image?.needs, ['version', 'test']);
    assert.equal(release.jobs.test?.uses, './.github/workflows/ci.yml', 'the release runs the tests first');

    // The version the release derives from a tag of appVersion, and the image the chart renders.
    const { outputs } = await versionStep(`v${CHART.appVersion}`);
    const rendered = await renderDefaults('tekton-resource-gc', 'tekton-resource-gc');
    assert.equal(rendered.image, `${image}:${outputs.version ?? '(no version output)'}`);

    // Signed at the digest that was pushed.
    const sign = stepOf(release.jobs.image, (step) => step.run?.includes('cosign sign') === true, 'that signs the image');
    assert.match(sign.run ?? '', /cosign sign --yes "\$\{IMAGE\}@\$\{DIGEST\}"/);
    assert.equal(sign.env?.DIGEST, '${{ steps.build.outputs.digest }}');
    assert.deepEqual(release.jobs.image?.permissions, { contents: 'read', packages: 'write', 'id-token': 'write' });
  });

  test('the chart is pushed, at the version, to the OCI repository the install guide names', async () => {
    const repository = release.env?.CHART_REPOSITORY ?? '';
    assert.equal(repository, `oci://ghcr.io/${imageOwner()}/charts`);
    const push = stepOf(release.jobs.chart, (step) => step.run?.includes('helm push') === true, 'that pushes the chart');
    assert.match(push.run ?? '', /^helm package chart --version "\$VERSION" --app-version "\$VERSION" /m);
    assert.match(push.run ?? '', /^helm push "\$RUNNER_TEMP\/chart\/tekton-resource-gc-\$\{VERSION\}\.tgz" "\$CHART_REPOSITORY"/m);
    assert.equal(CHART.name, 'tekton-resource-gc', 'the pushed file is named after the chart');
    const sign = stepOf(release.jobs.chart, (step) => step.run?.includes('cosign sign') === true, 'that signs the chart');
    assert.match(sign.run ?? '', /cosign sign --yes "\$\{chart\}@\$\{DIGEST\}"/);

    const guide = await read('docs/install.md');
    const install = /^helm install (\S+) (\S+) \\\n\s+--version (\S+) --namespace (\S+) --create-namespace$/m.exec(guide);
    assert.ok(install !== null, 'no "helm install NAME CHART \\ --version VERSION --namespace NS --create-namespace" in docs/install.md');
    const [, releaseName = '', chartRef = '', version = '', namespace = ''] = install;
    assert.equal(chartRef, `${repository}/${CHART.name}`);
    assert.equal(version, CHART.version, 'the guide installs the current release');

    // Its next commands name the CronJob that this release name renders, in the same namespace.
    const { cronJob } = await renderDefaults(releaseName, namespace);
    const create = /^kubectl create job --namespace (\S+) --from=cronjob\/(\S+) (\S+)$/m.exec(guide);
    assert.ok(create !== null, 'no kubectl create job --from=cronjob/... in docs/install.md');
    assert.deepEqual([create[1], create[2]], [namespace, cronJob]);
    assert.match(guide, new RegExp(`^kubectl logs --namespace ${namespace} (?:--\\S+ )*job/${create[3] ?? ''}$`, 'm'));
    assert.match(guide, new RegExp(`^helm upgrade ${releaseName} ${chartRef} \\\\\n\\s+--version ${version} --namespace ${namespace} --reset-then-reuse-values --set dryRun=false$`, 'm'));
  });

  test('the image carries the OCI labels, from build arguments the release sets', async () => {
    const dockerfile = await read('Dockerfile');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const labels = [...finalStage.replace(/\\\n/g, ' ').matchAll(/(org\.opencontainers\.image\.[\w.]+)="([^"]*)"/g)].map(([, key = '', value = '']) => [key, value]);
    assert.deepEqual(
      labels.map(([key]) => key),
      ['title', 'description', 'licenses', 'source', 'version', 'revision', 'base.name'].map((key) => `org.opencontainers.image.${key}`),
    );
    const build = stepOf(release.jobs.image, usesAction('docker/build-push-action'), 'docker/build-push-action');
    const buildArgs = String(build.with?.['build-args']).trim().split('\n').map((line) => line.slice(0, line.indexOf('=')));
    assert.deepEqual(buildArgs, ['NODE_IMAGE', 'RUNTIME_IMAGE', 'VERSION', 'REVISION', 'SOURCE']);
    // A build argument the Dockerfile does not declare would be dropped with only a warning.
    const declared = [...dockerfile.matchAll(/^ARG (\w+)/gm)].map(([, name]) => name);
    for (const name of buildArgs) assert.ok(declared.includes(name), `the Dockerfile declares ARG ${name}`);
    // The base-image step reads the two global ARGs' tags, which it resolves to digests.
    const bases = stepOf(release.jobs.image, (step) => step.id === 'bases', 'with id bases');
    assert.match(bases.run ?? '', /for arg in NODE_IMAGE RUNTIME_IMAGE; do/);
    for (const name of ['NODE_IMAGE', 'RUNTIME_IMAGE']) assert.match(dockerfile, new RegExp(`^ARG ${name}=[^@\\s]+:[^@\\s]+$`, 'm'));
  });
});

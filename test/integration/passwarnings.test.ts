/**
 * What a pass says about itself beyond its decisions, on a real API server through the CLI:
 * warnings in every report format and in the log, and exit codes when the report file
 * cannot be written.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { Seeder } from '../support/seed.js';
import { gitResource } from '../support/tekton.js';

interface LogLine {
  level: number;
  msg: string;
}

function logLines(result: CliResult): LogLine[] {
  return result.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const WARN = 40;

describe('pass warnings and report-file exit codes', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;
  let counter = 0;

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
  });
  after(() => controlPlane?.stop());

  async function namespaceWith(count: number): Promise<string> {
    const namespace = `warn-${++counter}`;
    await seed.namespace(namespace);
    for (let index = 0; index < count; index++) await seed.create(gitResource({ name: `orphan-${index}`, namespace }, `r${index}`));
    return namespace;
  }

  /** The targets are seconds old: --min-age 0s unless a test names its own. */
  const cli = (namespace: string, more: string[]): Promise<CliResult> =>
    runCli(['--namespace', namespace, ...(more.includes('--min-age') ? [] : ['--min-age', '0s']), '--kubeconfig', controlPlane.kubeconfigPath, ...more]);

  test('a dry run over --max-deletions says a live pass would delete nothing and exit 3, in every format and the log; it exits 0', async () => {
    const namespace = await namespaceWith(4);
    const expected = 'a live pass with these settings would delete nothing and exit 3: its 4 candidates are more than --max-deletions 3';
    const json = await cli(namespace, ['--dry-run', '--max-deletions', '3', '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const report = reportOf(json);
    assert.ok(report.warnings?.includes(expected), JSON.stringify(report.warnings));
    assert.equal(report.errors, undefined);
    assert.deepEqual(report.summary.results, { 'would-delete': 4 });
    assert.ok(logLines(json).some((line) => line.level === WARN && line.msg === expected));

    const text = await cli(namespace, ['--dry-run', '--max-deletions', '3']);
    assert.equal(text.code, 0);
    assert.ok(text.stdout.includes(`warning: ${expected}\n`), text.stdout);
    const markdown = await cli(namespace, ['--dry-run', '--max-deletions', '3', '--output', 'markdown']);
    assert.match(markdown.stdout, /\*\*Warnings:\*\*\n\n(- .*\n)*- a live pass with these settings would delete nothing and exit 3/);

    // At the cap exactly: no warning of that kind.
    const atCap = reportOf(await cli(namespace, ['--dry-run', '--max-deletions', '4', '--output', 'json']));
    assert.ok(!(atCap.warnings ?? []).some((warning) => warning.includes('--max-deletions')));
  });

  test('--min-age under a minute is allowed, and the report and the log say why it is risky', async () => {
    const namespace = await namespaceWith(1);
    const result = await cli(namespace, ['--dry-run', '--min-age', '30s', '--output', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const warning = reportOf(result).warnings?.find((entry) => entry.startsWith('--min-age 30s is under a minute'));
    assert.ok(warning !== undefined);
    assert.ok(logLines(result).some((line) => line.level === WARN && line.msg === warning));
    const hour = reportOf(await cli(namespace, ['--dry-run', '--min-age', '1m', '--output', 'json']));
    assert.equal(hour.warnings, undefined);
  });

  test('a report file that cannot be written: exit 1 when nothing was deleted, exit 3 after deletions', async () => {
    const namespace = await namespaceWith(2);
    const missingDir = path.join(controlPlane.dir, 'no-such-dir', 'report.json');
    const dry = await cli(namespace, ['--dry-run', '--report-file', missingDir]);
    assert.equal(dry.code, 1, dry.stderr);
    assert.match(dry.stderr, /could not write the report file/);

    const live = await cli(namespace, ['--report-file', missingDir]);
    assert.equal(live.code, 3, live.stderr);
    assert.deepEqual(await seed.remainingTargets(namespace), []);

    // Written when it can be: exit 0.
    const dir = path.join(controlPlane.dir, 'reports');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'report.json'), 'old');
    const written = await cli(namespace, ['--report-file', path.join(dir, 'report.json'), '--output', 'json']);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(reportOf(written).summary.targets, 0);
  });

  test('a cluster that serves PipelineResources but not TaskRuns: the report and the log say TaskRuns were not read', async () => {
    const namespace = await namespaceWith(1);
    const api = controlPlane.kubeConfig().makeApiClient(ApiextensionsV1Api);
    await api.deleteCustomResourceDefinition({ name: 'taskruns.tekton.dev' });
    // Discovery drops the resource once the CRD is gone.
    const deadline = Date.now() + 30_000;
    let result: CliResult;
    for (;;) {
      result = await cli(namespace, ['--dry-run', '--output', 'json']);
      if ((reportOf(result).warnings ?? []).some((warning) => warning.startsWith('taskruns')) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(result.code, 0, result.stderr);
    const expected = 'taskruns.tekton.dev is not served by this cluster: no TaskRuns were read, and none can name a target';
    assert.deepEqual(reportOf(result).warnings?.slice(1), [expected], 'after the --min-age warning');
    assert.ok(logLines(result).some((line) => line.level === WARN && line.msg === expected));
    assert.deepEqual(reportOf(result).summary.results, { 'would-delete': 1 });
  });
});

/**
 * Issue 16's metrics against a real kube-apiserver and a receiver that keeps groups as the
 * Pushgateway does (test/support/pushgateway.ts): two installs with their own grouping push
 * to one gateway, one fails and one succeeds, and both groups survive with their own exit
 * code, counts and last success; a pass that could not read the cluster keeps the last good
 * counts; the gateway's credentials are used and never logged.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import type { ReportDocument } from '../../src/report/model.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { startGroupStore, valueOf, type Group, type GroupStore } from '../support/pushgateway.js';
import { Seeder } from '../support/seed.js';
import { gitResource } from '../support/tekton.js';

const JOB = 'tekton-resource-gc';

let controlPlane: ControlPlane;
let seed: Seeder;

before(async () => {
  controlPlane = await startControlPlane({ crds: 'v0.45' });
  seed = new Seeder(controlPlane.kubeConfig());
});
after(() => controlPlane?.stop());

/** A kubeconfig for a ServiceAccount the API server knows but no role binds: every list is forbidden. */
async function forbiddenKubeconfig(namespace: string): Promise<string> {
  await controlPlane.apply([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace } }]);
  const token = await controlPlane.createServiceAccountToken(namespace, 'nobody');
  const file = path.join(controlPlane.dir, `nobody-${namespace}.kubeconfig`);
  await writeFile(file, controlPlane.kubeConfig(token).exportConfig(), { mode: 0o600 });
  return file;
}

function groupWith(store: GroupStore, labels: Record<string, string>): Group | undefined {
  return [...store.groups.values()].find((group) => JSON.stringify(Object.entries(group.labels).sort()) === JSON.stringify(Object.entries(labels).sort()));
}

function finishedSeconds(report: ReportDocument): number {
  return Date.parse(report.finishedAt) / 1000;
}

function passed(result: CliResult, code: number): CliResult {
  assert.equal(result.code, code, result.stderr);
  assert.doesNotMatch(result.stderr, /could not push the metrics/);
  return result;
}

describe('several installs, one Pushgateway', () => {
  test('a failing install and a succeeding one keep their own groups: exit code, counts and last success each', async () => {
    for (const [ns, count] of [['shard-a', 3], ['shard-b', 2]] as const) {
      await seed.namespace(ns);
      for (let index = 0; index < count; index++) await seed.create(gitResource({ name: `src-${index}`, namespace: ns }, `${ns}-${index}`));
    }
    const nobody = await forbiddenKubeconfig('shard-a');
    // Behind a proxy at /gw: the grouping path goes below the prefix.
    const gateway = await startGroupStore('/gw');
    try {
      const kube = ['--kubeconfig', controlPlane.kubeconfigPath];
      // Install A: on the command line. Install B: from the variables, as the chart passes them,
      // with a value holding "/" (base64 in the path).
      const installA = (kubeconfig: string[]): Promise<CliResult> =>
        runCli(['--dry-run', '--namespace', 'shard-a', '--min-age', '0s', '--output', 'json', '--pushgateway-url', gateway.url, '--pushgateway-grouping', 'instance=gc-a,namespace=ci', ...kubeconfig]);
      const installB = (): Promise<CliResult> =>
        runCli(['--dry-run', '--namespace', 'shard-b', '--min-age', '0s', '--output', 'json', ...kube], {
          env: { TRGC_PUSHGATEWAY_URL: gateway.url, TRGC_PUSHGATEWAY_GROUPING: 'instance=gc-b,namespace=ci,cluster=eu/west' },
        });

      const firstA = reportOf(passed(await installA(kube), 0));
      passed(await installB(), 0);
      // A cannot read the cluster now: exit 1.
      const failedA = passed(await installA(['--kubeconfig', nobody]), 1);
      assert.match(failedA.stderr, /could not read the cluster/);
      // B succeeds again: its PUT replaces its own group only.
      const secondB = reportOf(passed(await installB(), 0));

      assert.equal(gateway.groups.size, 2);

      const a = groupWith(gateway, { job: JOB, instance: 'gc-a', namespace: 'ci' });
      const b = groupWith(gateway, { job: JOB, instance: 'gc-b', namespace: 'ci', cluster: 'eu/west' });
      assert.ok(a !== undefined && b !== undefined, JSON.stringify([...gateway.groups.keys()]));
      // A's failure survived B's success, and the time of A's last success is its first pass's.
      assert.equal(valueOf(a, 'tekton_resource_gc_exit_code'), 1);
      assert.equal(valueOf(a, 'tekton_resource_gc_errors'), 1);
      assert.equal(valueOf(a, 'tekton_resource_gc_last_success_timestamp_seconds'), finishedSeconds(firstA));
      assert.ok((valueOf(a, 'tekton_resource_gc_last_pass_timestamp_seconds') ?? 0) > finishedSeconds(firstA));
      // The failed pass pushed no zeros: A's last good counts stay.
      assert.equal(valueOf(a, 'tekton_resource_gc_targets', { kind: 'PipelineResource' }), 3);
      assert.equal(valueOf(a, 'tekton_resource_gc_decisions', { kind: 'PipelineResource', reason: 'unreferenced' }), 3);
      assert.equal(valueOf(a, 'tekton_resource_gc_deletions', { kind: 'PipelineResource', result: 'would-delete' }), 3);
      assert.equal(valueOf(a, 'tekton_resource_gc_dry_run'), 1);
      // B: its own latest success.
      assert.equal(valueOf(b, 'tekton_resource_gc_exit_code'), 0);
      assert.equal(valueOf(b, 'tekton_resource_gc_targets', { kind: 'PipelineResource' }), 2);
      assert.equal(valueOf(b, 'tekton_resource_gc_last_success_timestamp_seconds'), finishedSeconds(secondB));
      // Every sample carries its group's labels, as the gateway exposes them.
      for (const [name, samples] of b.metrics) for (const sample of samples) assert.equal(sample.labels['cluster'], 'eu/west', name);
      // The paths the Pushgateway's README prescribes, below the proxy's prefix.
      assert.deepEqual(
        gateway.requests.map((request) => `${request.method} ${request.path}`),
        [
          `PUT /gw/metrics/job/${JOB}/instance/gc-a/namespace/ci`,
          `PUT /gw/metrics/job/${JOB}/instance/gc-b/namespace/ci/cluster@base64/ZXUvd2VzdA`,
          `POST /gw/metrics/job/${JOB}/instance/gc-a/namespace/ci`,
          `PUT /gw/metrics/job/${JOB}/instance/gc-b/namespace/ci/cluster@base64/ZXUvd2VzdA`,
        ],
      );
    } finally {
      await gateway.close();
    }
  });
});

describe("the gateway's credentials", () => {
  test('are sent as basic auth and never logged, whether the push succeeds or is refused', async () => {
    const gateway = await startGroupStore();
    try {
      const withPassword = gateway.url.replace('http://', 'http://robot:s3cret@');
      const args = ['--namespace', 'credentials-none', '--log-level', 'debug', '--pushgateway-url', withPassword, '--kubeconfig', controlPlane.kubeconfigPath];
      const pushed = await runCli(args);
      assert.equal(pushed.code, 0, pushed.stderr);
      gateway.refuseWith = 401;
      const refused = await runCli(args);
      assert.equal(refused.code, 0, refused.stderr);

      assert.deepEqual(
        gateway.requests.map((request) => request.authorization),
        [`Basic ${Buffer.from('robot:s3cret').toString('base64')}`, `Basic ${Buffer.from('robot:s3cret').toString('base64')}`],
      );
      const shown = gateway.url.replace('http://', 'http://REDACTED@');
      const line = (result: CliResult, message: string): { pushgateway?: string } =>
        JSON.parse(result.stderr.split('\n').find((text) => text.includes(message)) ?? '{}') as { pushgateway?: string };
      assert.equal(line(pushed, '"msg":"metrics pushed"').pushgateway, `${shown}/`);
      assert.equal(line(refused, 'could not push the metrics').pushgateway, `${shown}/`);
      for (const result of [pushed, refused]) {
        assert.ok(!result.stderr.includes('s3cret'), result.stderr);
        assert.ok(!result.stdout.includes('s3cret'), result.stdout);
      }
    } finally {
      await gateway.close();
    }
  });
});

/**
 * The delete phase's breaker on a real API server (docs/spec.md, "Deleting safely"): an
 * identity that may list and get but not delete has its first deletes refused with 403
 * Forbidden; after --max-consecutive-failures of them in a row (5) the phase stops, the
 * candidates not tried are `skipped`, the pass exits 3 and says why in its report. A
 * delete that succeeds starts the count again; `apply` stops the same way.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { ReportDocument } from '../../src/report/model.js';
import { reportOf, runCli, type CliResult } from '../support/cli.js';
import { useControlPlane } from '../support/realserver.js';
import { gitResource } from '../support/tekton.js';

const CANDIDATES = 12;
const BREAKER = 5;

describe('the breaker on a real API server', () => {
  const server = useControlPlane({ crds: 'v0.45' });
  let counter = 0;

  /**
   * A namespace of CANDIDATES unreferenced PipelineResources `cand-NN` and a kubeconfig for a
   * ServiceAccount that may get and list everything a pass reads there, and delete only
   * the targets named in `deletable` (none: it may not delete at all).
   */
  async function forbidden(deletable: readonly string[] = []): Promise<{ ns: string; names: string[]; kubeconfig: string }> {
    const { controlPlane, seed } = server;
    const ns = `breaker-${++counter}`;
    await seed.namespace(ns);
    const names = Array.from({ length: CANDIDATES }, (_, index) => `cand-${String(index).padStart(2, '0')}`);
    for (const name of names) await seed.create(gitResource({ name, namespace: ns }, name));
    const read = { verbs: ['get', 'list'] };
    await controlPlane.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'gc', namespace: ns },
        rules: [
          { apiGroups: ['tekton.dev'], resources: ['pipelineresources', 'pipelineruns', 'taskruns'], ...read },
          ...(deletable.length === 0 ? [] : [{ apiGroups: ['tekton.dev'], resources: ['pipelineresources'], resourceNames: [...deletable], verbs: ['delete'] }]),
        ],
      },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'gc', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gc' }, subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: ns }] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `gc-${ns}` }, rules: [{ apiGroups: [''], resources: ['namespaces'], ...read }] },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `gc-${ns}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `gc-${ns}` },
        subjects: [{ kind: 'ServiceAccount', name: 'gc', namespace: ns }],
      },
    ] as never);
    const kubeconfig = path.join(controlPlane.dir, `${ns}.kubeconfig`);
    await writeFile(kubeconfig, controlPlane.kubeConfig(await controlPlane.createServiceAccountToken(ns, 'gc')).exportConfig());
    return { ns, names, kubeconfig };
  }

  const pass = (ns: string, kubeconfig: string, more: string[] = []): Promise<CliResult> => runCli(['--namespace', ns, '--min-age', '0s', '--kubeconfig', kubeconfig, ...more]);

  function namesWith(report: ReportDocument, result: string): string[] {
    return report.items.filter((item) => item.result === result).map((item) => item.name);
  }

  /** What every stopped pass's JSON report says, whatever the concurrency. */
  function assertStopped(result: CliResult, names: readonly string[], failed: number): ReportDocument {
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.summary.results, { failed, skipped: CANDIDATES - failed });
    // The candidates go in order: the first ones failed, the rest were never tried.
    assert.deepEqual(namesWith(report, 'failed'), names.slice(0, failed));
    assert.deepEqual(namesWith(report, 'skipped'), names.slice(failed));
    for (const item of report.items.filter((each) => each.result === 'failed')) {
      assert.match(item.message, /delete failed: forbidden: this identity may not delete pipelineresources\.tekton\.dev in namespace "breaker-\d+"/);
    }
    for (const item of report.items.filter((each) => each.result === 'skipped')) {
      assert.match(item.message, /; skipped: the breaker stopped the delete phase after 5 deletes in a row failed with 403 Forbidden \(--max-consecutive-failures 5\)$/);
    }
    assert.deepEqual(report.breaker, { status: 403, reason: 'Forbidden', failures: BREAKER, skipped: CANDIDATES - failed });
    assert.equal(report.errors?.length, 1);
    assert.match(
      report.errors?.[0] ?? '',
      new RegExp(`^the breaker stopped the delete phase: 5 deletes in a row failed with 403 Forbidden \\(--max-consecutive-failures 5\\), so ${CANDIDATES - failed} candidates were skipped; the last: forbidden: this identity may not delete pipelineresources`),
    );
    return report;
  }

  test('an identity that may list but not delete: 5 refusals in a row stop the phase, the other 7 are skipped, exit 3, nothing deleted', async () => {
    const { ns, names, kubeconfig } = await forbidden();
    const logged: string[] = [];
    const result = await runCli(['--namespace', ns, '--min-age', '0s', '--kubeconfig', kubeconfig, '--concurrency', '1', '--output', 'json'], { onStderr: (line) => logged.push(line) });
    assertStopped(result, names, BREAKER);
    // One error line says it; a skipped candidate has no delete line of its own.
    assert.equal(logged.filter((line) => line.includes('"msg":"the breaker stopped the delete phase"')).length, 1, result.stderr);
    assert.equal(logged.filter((line) => line.includes('"msg":"delete failed"')).length, BREAKER, result.stderr);
    const finished = logged.find((line) => line.includes('"msg":"pass finished"'));
    assert.match(finished ?? '', /"breaker":\{"status":403,"reason":"Forbidden","failures":5,"skipped":7\}/);
    assert.deepEqual(await server.seed.remainingTargets(ns), names);

    // The text report, at the default --concurrency 4: the deletes in flight when it trips settle, no new one starts.
    const text = await pass(ns, kubeconfig);
    assert.equal(text.code, 3, text.stderr);
    const summary = text.stdout.trimEnd().split('\n').at(-1) ?? '';
    const stopped = /^live: 12 targets, 0 runs: (\d) failed \(unreferenced \1\), (\d+) skipped \(unreferenced \2\); the breaker stopped the delete phase: 5 deletes in a row failed with 403 Forbidden$/.exec(summary);
    assert.ok(stopped !== null, text.stdout);
    const failed = Number(stopped[1]);
    assert.ok(failed >= BREAKER && failed <= BREAKER + 3, summary);
    assert.equal(failed + Number(stopped[2]), CANDIDATES);
    assert.match(text.stdout, /^error: the breaker stopped the delete phase: 5 deletes in a row failed with 403 Forbidden/m);
    assert.deepEqual(await server.seed.remainingTargets(ns), names);
  });

  test('a delete that succeeds starts the count again: refusals 4 at a time never stop the phase', async () => {
    // Deletable: every fifth, so that between two successes 4 deletes are refused, one short of the breaker.
    const deletable = ['cand-04', 'cand-09'];
    const { ns, names, kubeconfig } = await forbidden(deletable);
    const result = await pass(ns, kubeconfig, ['--concurrency', '1', '--output', 'json']);
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.summary.results, { deleted: 2, failed: CANDIDATES - 2 });
    assert.deepEqual(namesWith(report, 'deleted'), deletable);
    assert.equal(report.breaker, undefined);
    assert.equal(report.errors, undefined);
    assert.deepEqual(await server.seed.remainingTargets(ns), names.filter((name) => !deletable.includes(name)));
  });

  test('--max-consecutive-failures 0 never stops the phase: every candidate is tried and fails', async () => {
    const { ns, names, kubeconfig } = await forbidden();
    const result = await pass(ns, kubeconfig, ['--max-consecutive-failures', '0', '--output', 'json']);
    assert.equal(result.code, 3, result.stderr);
    const report = reportOf(result);
    assert.deepEqual(report.summary.results, { failed: CANDIDATES });
    assert.equal(report.breaker, undefined);
    assert.deepEqual(await server.seed.remainingTargets(ns), names);
  });

  test('apply goes through the same delete phase: 5 refusals in a row stop it, the rest of the plan skipped, exit 3', async () => {
    const { ns, names, kubeconfig } = await forbidden();
    const file = path.join(server.controlPlane.dir, `${ns}.plan.json`);
    const dry = await pass(ns, kubeconfig, ['--dry-run', '--plan-file', file, '--output', 'json']);
    assert.equal(dry.code, 0, dry.stderr);
    const { digest } = JSON.parse(await readFile(file, 'utf8')) as { digest: string };
    const applied = await runCli(['apply', file, '--kubeconfig', kubeconfig, '--concurrency', '1', '--output', 'json']);
    const report = assertStopped(applied, names, BREAKER);
    assert.deepEqual(report.plan, { mode: 'applied', file, digest, entries: CANDIDATES });
    assert.deepEqual(await server.seed.remainingTargets(ns), names);
  });
});

/**
 * Races with a pass in flight, on a real API server: runs created, started, retried and
 * deleted between the listing and the deletes, targets relabelled or replaced, a namespace
 * retained, and a run created late in a long delete phase. None leads to a wrong deletion.
 *
 * The seeded rounds replay with TRGC_RACE_SEED; a failure prints the seed and the mutations.
 */
import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import { after, before, describe, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../harness/controlplane.js';
import { outcomes } from '../support/cli.js';
import { seededRandom } from '../support/faultproxy.js';
import { passInProcess } from '../support/pass.js';
import { Seeder } from '../support/seed.js';
import { gitResource, hoursAgo, pipelineRun, taskRun, type KubeObject, type RunStatusSpec } from '../support/tekton.js';

const RACE_SEED = Number(process.env['TRGC_RACE_SEED'] ?? 20261129);
const RACE_ROUNDS = 20;
const PREFIX = 'tekton-resource-gc.io';
const GROUP = 'tekton.dev';

const figures = { racesTried: 0, passes: 0, wrongDeletions: 0 };

const running: RunStatusSpec = { state: 'running' };
const succeeded = (): RunStatusSpec => ({ state: 'succeeded', finishedAt: hoursAgo(1) });

describe('races with a pass in flight (Tekton v0.45 CRDs)', () => {
  let controlPlane: ControlPlane;
  let seed: Seeder;

  const deleteObject = async (plural: string, namespace: string, name: string, version = 'v1beta1'): Promise<void> => {
    await seed.custom.deleteNamespacedCustomObject({ group: GROUP, version, namespace, plural, name });
  };
  const replaceSpec = async (object: KubeObject, spec: unknown): Promise<void> => {
    const version = object.apiVersion.split('/')[1] ?? '';
    const plural = object.kind === 'PipelineRun' ? 'pipelineruns' : 'taskruns';
    const { namespace, name } = object.metadata;
    const current = (await seed.custom.getNamespacedCustomObject({ group: GROUP, version, namespace, plural, name })) as KubeObject;
    await seed.custom.replaceNamespacedCustomObject({ group: GROUP, version, namespace, plural, name, body: { ...current, spec } });
  };
  const uidOf = async (namespace: string, name: string): Promise<string> => {
    const object = (await seed.custom.getNamespacedCustomObject({ group: GROUP, version: 'v1alpha1', namespace, plural: 'pipelineresources', name })) as KubeObject;
    return object.metadata.uid ?? '';
  };
  const race = async (mutate: () => Promise<void>): Promise<void> => {
    figures.racesTried++;
    await mutate();
  };
  const settle = async (namespace: string, expected: string[]): Promise<void> => {
    figures.passes++;
    const remaining = await seed.remainingTargets(namespace);
    const lost = expected.filter((name) => !remaining.includes(name));
    figures.wrongDeletions += lost.length;
    assert.deepEqual(lost, [], `wrongly deleted: ${lost.join(', ')}`);
  };
  const args = (namespace: string, extra: string[] = []): string[] => ['--namespace', namespace, '--min-age', '0s', ...extra];

  before(async () => {
    controlPlane = await startControlPlane({ crds: 'v0.45' });
    seed = new Seeder(controlPlane.kubeConfig());
  });
  after(async () => {
    await controlPlane?.stop();
    process.stdout.write(`# races figures: ${JSON.stringify(figures)}\n`);
  });

  test('a finished run retried after the listing (its status back to running) saves its target', async () => {
    const ns = 'race-retried';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-retried', namespace: ns }, 'a'));
    await seed.create(gitResource({ name: 'src-free', namespace: ns }, 'b'));
    const run = pipelineRun('v1beta1', { name: 'build-flaky', namespace: ns }, { resources: ['src-retried'] });
    await seed.create(run, succeeded());
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterRunsListed: () =>
        race(async () => {
          await seed.setStatus(run, { state: 'failed-retrying' });
        }),
    });
    assert.deepEqual(outcomes(outcome.report), {
      [`${ns}/src-free`]: 'unreferenced deleted',
      [`${ns}/src-retried`]: 'referenced-by-active-run kept',
    });
    assert.match(outcome.report.items.find((item) => item.name === 'src-retried')?.message ?? '', /re-checking/);
    await settle(ns, ['src-retried']);
  });

  test("a PipelineRun retried after the listing makes its finished child TaskRun's target active again", async () => {
    const ns = 'race-parent';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-child', namespace: ns }, 'a'));
    const parent = pipelineRun('v1beta1', { name: 'build-parent', namespace: ns }, { resources: [] });
    const created = await seed.create(parent, succeeded());
    const owner = { apiVersion: 'tekton.dev/v1beta1', kind: 'PipelineRun', name: 'build-parent', uid: created.uid, controller: true };
    await seed.create(taskRun('v1beta1', { name: 'build-parent-fetch', namespace: ns, ownerReferences: [owner] }, { inputs: ['src-child'], outputs: [] }), succeeded());
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterRunsListed: () =>
        race(async () => {
          await seed.setStatus(parent, running);
        }),
    });
    assert.deepEqual(outcomes(outcome.report), { [`${ns}/src-child`]: 'referenced-by-active-run kept' });
    await settle(ns, ['src-child']);
  });

  test('a pending run that starts after the listing, now naming a candidate, saves it', async () => {
    const ns = 'race-started';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-queued', namespace: ns }, 'a'));
    await seed.create(gitResource({ name: 'src-late-bound', namespace: ns }, 'b'));
    const run = pipelineRun('v1beta1', { name: 'build-queued', namespace: ns }, { resources: ['src-queued'], pending: true });
    await seed.create(run, { state: 'pending' });
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterRunsListed: () =>
        race(async () => {
          // Pending runs may still be edited; then Tekton starts it.
          const started = pipelineRun('v1beta1', run.metadata, { resources: ['src-queued', 'src-late-bound'] });
          await replaceSpec(run, started.spec);
          await seed.setStatus(run, running);
        }),
    });
    assert.deepEqual(outcomes(outcome.report), {
      [`${ns}/src-late-bound`]: 'referenced-by-active-run kept',
      [`${ns}/src-queued`]: 'referenced-by-active-run kept',
    });
    await settle(ns, ['src-late-bound', 'src-queued']);
  });

  test('runs created after the listing through v1 (annotation) and as a TaskRun output save their targets', async () => {
    const ns = 'race-created';
    await seed.namespace(ns);
    for (const name of ['src-v1', 'img-output', 'src-free']) await seed.create(gitResource({ name, namespace: ns }, name));
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterRunsListed: () =>
        race(async () => {
          await seed.create(pipelineRun('v1', { name: 'build-v1', namespace: ns }, { resources: ['src-v1'] }), running);
          await seed.create(taskRun('v1beta1', { name: 'push', namespace: ns }, { inputs: [], outputs: ['img-output'] }), { state: 'pending' });
        }),
    });
    assert.deepEqual(outcomes(outcome.report), {
      [`${ns}/img-output`]: 'referenced-by-active-run kept',
      [`${ns}/src-free`]: 'unreferenced deleted',
      [`${ns}/src-v1`]: 'referenced-by-active-run kept',
    });
    await settle(ns, ['img-output', 'src-v1']);
  });

  test('the active run deleted after the listing: its target is still kept this pass', async () => {
    const ns = 'race-run-deleted';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-was-active', namespace: ns }, 'a'));
    await seed.create(gitResource({ name: 'src-was-finished', namespace: ns }, 'b'));
    await seed.create(pipelineRun('v1beta1', { name: 'build-active', namespace: ns }, { resources: ['src-was-active'] }), running);
    await seed.create(pipelineRun('v1beta1', { name: 'build-done', namespace: ns }, { resources: ['src-was-finished'] }), succeeded());
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterRunsListed: () =>
        race(async () => {
          await deleteObject('pipelineruns', ns, 'build-active');
          await deleteObject('pipelineruns', ns, 'build-done');
        }),
    });
    // A re-check only ever keeps more: what the listing kept stays kept until the next pass.
    // What is deleted carries the decision it was deleted on: its run is gone by then.
    assert.deepEqual(outcomes(outcome.report), {
      [`${ns}/src-was-active`]: 'referenced-by-active-run kept',
      [`${ns}/src-was-finished`]: 'unreferenced deleted',
    });
    await settle(ns, ['src-was-active']);
  });

  test('a target relabelled retain, or deleted and recreated, during the delete phase is not deleted', async () => {
    const ns = 'race-targets';
    await seed.namespace(ns);
    for (const name of ['src-a', 'src-b', 'src-c', 'src-d']) await seed.create(gitResource({ name, namespace: ns }, name));
    const before = await uidOf(ns, 'src-d');
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns, ['--concurrency', '1']), {
      beforeDelete: async (_target, sent) => {
        if (sent !== 0) return;
        await race(() => seed.label('PipelineResource', ns, 'src-c', { [`${PREFIX}/retain`]: 'true' }));
        await race(async () => {
          await deleteObject('pipelineresources', ns, 'src-d', 'v1alpha1');
          await seed.create(gitResource({ name: 'src-d', namespace: ns }, 'recreated'));
        });
      },
    });
    assert.deepEqual(outcomes(outcome.report), {
      [`${ns}/src-a`]: 'unreferenced deleted',
      [`${ns}/src-b`]: 'unreferenced deleted',
      [`${ns}/src-c`]: 'unreferenced changed',
      [`${ns}/src-d`]: 'unreferenced changed',
    });
    await settle(ns, ['src-c', 'src-d']);
    assert.notEqual(await uidOf(ns, 'src-d'), before, 'the new src-d is the one left');
  });

  test('a namespace labelled retain after the listing keeps its targets', async () => {
    const ns = 'race-namespace';
    await seed.namespace(ns);
    await seed.create(gitResource({ name: 'src-a', namespace: ns }, 'a'));
    const { outcome } = await passInProcess(controlPlane.kubeConfig(), args(ns), {
      afterListing: () =>
        race(async () => {
          const current = await seed.core.readNamespace({ name: ns });
          current.metadata = { ...current.metadata, labels: { ...current.metadata?.labels, [`${PREFIX}/retain`]: 'true' } };
          await seed.core.replaceNamespace({ name: ns, body: current });
        }),
    });
    assert.deepEqual(outcomes(outcome.report), { [`${ns}/src-a`]: 'namespace-retained kept' });
    await settle(ns, ['src-a']);
  });

  test('a run created late in a long delete phase saves a later candidate (the phase re-checks every few seconds)', async () => {
    const ns = 'race-long-phase';
    await seed.namespace(ns);
    const names = Array.from({ length: 13 }, (_, index) => `src-${String(index).padStart(2, '0')}`);
    for (const name of [...names, 'zz-late']) await seed.create(gitResource({ name, namespace: ns }, name));
    // --qps 2: 14 deletes take 6.5 s; the run appears after the second, about 1 s in.
    const { outcome, elapsedMs } = await passInProcess(controlPlane.kubeConfig(), args(ns, ['--qps', '2', '--concurrency', '1']), {
      beforeDelete: async (_target, sent) => {
        if (sent === 2) {
          await race(async () => {
            await seed.create(pipelineRun('v1beta1', { name: 'build-late', namespace: ns }, { resources: ['zz-late'] }), running);
          });
        }
      },
    });
    assert.ok(elapsedMs >= 6_000, `the delete phase lasted ${elapsedMs} ms`);
    const late = outcome.report.items.find((item) => item.name === 'zz-late');
    assert.deepEqual([late?.reason, late?.result], ['referenced-by-active-run', 'kept']);
    assert.match(late?.message ?? '', /re-checking/);
    assert.equal(outcome.report.summary.results.deleted, 13);
    assert.equal(outcome.exitCode, 0);
    await settle(ns, ['zz-late']);
  });

  describe(`seeded rounds (seed ${RACE_SEED}): random runs and labels changing between listing and deleting`, () => {
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const roundSeed = RACE_SEED + round;
      test(`round ${round + 1} (seed ${roundSeed})`, async () => {
        const log: string[] = [];
        try {
          await randomRound({ kubeConfig: controlPlane.kubeConfig(), seed, ns: `race-round-${round}`, random: seededRandom(roundSeed), log, race, settle });
        } catch (error) {
          process.stdout.write(`# race round failed: replay with TRGC_RACE_SEED=${RACE_SEED} (round seed ${roundSeed}); mutations: ${log.join('; ')}\n`);
          throw error;
        }
      });
    }
  });
});

type State = 'pending' | 'running' | 'failed-retrying' | 'succeeded' | 'failed';
const STATES: readonly State[] = ['pending', 'running', 'failed-retrying', 'succeeded', 'failed'];
const isActive = (state: State): boolean => state === 'pending' || state === 'running' || state === 'failed-retrying';

function statusOf(state: State): RunStatusSpec {
  return state === 'succeeded' || state === 'failed' ? { state, finishedAt: hoursAgo(1) } : { state };
}

interface ModelRun {
  object: KubeObject;
  refs: string[];
  state: State;
  gone: boolean;
}

/**
 * One round: 6 targets and 4 runs in random states, then 1-4 random mutations after the
 * runs are listed and a relabel or replacement at the first delete. Must remain: every target
 * an active run named before or after the mutations, every target labelled retain, every
 * replaced target, all of them when the namespace was retained.
 */
interface Round {
  kubeConfig: KubeConfig;
  seed: Seeder;
  ns: string;
  random: () => number;
  /** The mutations made, for the failure message. */
  log: string[];
  race: (mutate: () => Promise<void>) => Promise<void>;
  settle: (namespace: string, expected: string[]) => Promise<void>;
}

async function randomRound({ kubeConfig, seed, ns, random, log, race, settle }: Round): Promise<void> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const subset = (items: readonly string[]): string[] => items.filter(() => random() < 0.3);
  const targets = Array.from({ length: 6 }, (_, index) => `src-${index}`);
  await seed.namespace(ns);
  for (const name of targets) await seed.create(gitResource({ name, namespace: ns }, name));
  const runs: ModelRun[] = [];
  const addRun = async (name: string): Promise<ModelRun> => {
    const state = pick(STATES);
    const refs = subset(targets);
    const object = pipelineRun('v1beta1', { name, namespace: ns }, { resources: refs, pending: state === 'pending' });
    await seed.create(object, statusOf(state));
    const run = { object, refs, state, gone: false };
    runs.push(run);
    log.push(`${name} ${state} -> ${refs.join(',') || '-'}`);
    return run;
  };
  for (let index = 0; index < 4; index++) await addRun(`build-${index}`);

  const mustRemain = new Set<string>();
  const protect = (): void => {
    for (const run of runs) if (!run.gone && isActive(run.state)) run.refs.forEach((name) => mustRemain.add(name));
  };
  protect();
  let created = 0;
  const mutations: (() => Promise<void>)[] = [
    async () => {
      await addRun(`late-${created++}`);
    },
    async () => {
      const run = pick(runs.filter((candidate) => !candidate.gone));
      if (run === undefined) return;
      run.state = pick(STATES);
      log.push(`${run.object.metadata.name} now ${run.state}`);
      await seed.setStatus(run.object, statusOf(run.state));
    },
    async () => {
      const run = pick(runs.filter((candidate) => !candidate.gone));
      if (run === undefined) return;
      run.gone = true;
      log.push(`${run.object.metadata.name} deleted`);
      await seed.custom.deleteNamespacedCustomObject({ group: GROUP, version: 'v1beta1', namespace: ns, plural: 'pipelineruns', name: run.object.metadata.name });
    },
    async () => {
      const name = pick(targets);
      mustRemain.add(name);
      log.push(`${name} retained`);
      await seed.label('PipelineResource', ns, name, { [`${PREFIX}/retain`]: 'true' });
    },
  ];
  const count = 1 + Math.floor(random() * 4);
  const { outcome } = await passInProcess(kubeConfig, ['--namespace', ns, '--min-age', '0s', '--concurrency', '1'], {
    afterRunsListed: async () => {
      for (let index = 0; index < count; index++) await race(pick(mutations));
      protect();
    },
    beforeDelete: async (_target, sent) => {
      if (sent !== 0) return;
      const name = pick(targets);
      mustRemain.add(name);
      log.push(`${name} relabelled at the first delete`);
      await race(() => seed.label('PipelineResource', ns, name, { [`${PREFIX}/retain`]: 'true' }));
    },
  });
  assert.equal(outcome.exitCode, 0, JSON.stringify(outcome.report.errors));
  await settle(ns, [...mustRemain].sort());
  const remaining = await seed.remainingTargets(ns);
  for (const item of outcome.report.items) {
    assert.equal(item.result === 'deleted', !remaining.includes(item.name), `${item.name}: ${item.result}`);
  }
}

/**
 * What the demo puts in its cluster: a CI namespace that creates a git and an image
 * PipelineResource for every commit, and a namespace left behind by a Tekton upgrade.
 * Each entry says what it is and what the collector should do with it, so the demo can
 * explain it before the pass and check it after.
 */
import { gitResource, hoursAgo, imageResource, pipelineRun, type KubeObject, type RunStatusSpec } from '../test/support/tekton.js';

export const PREFIX = 'tekton-resource-gc.io';
export const CI = 'shop-ci';
export const LEGACY = 'legacy-app';

export interface Entry {
  namespace: string;
  /** PipelineResources, created first. */
  resources: KubeObject[];
  /** The run that names them, with the status Tekton's controller would have written. */
  run?: { object: KubeObject; status: RunStatusSpec };
  /** What the entry is, in a few words. */
  story: string;
  expect: 'delete' | 'keep';
  /** The reason code the report should show. */
  reason: string;
  /** The same in words. */
  why: string;
}

const meta = (namespace: string, name: string, labels?: Record<string, string>) => ({ name, namespace, ...(labels === undefined ? {} : { labels }) });
const src = (sha: string, labels?: Record<string, string>) => gitResource(meta(CI, `src-${sha}`, labels), sha);
const img = (sha: string) => imageResource(meta(CI, `img-${sha}`), sha);
const build = (sha: string, resources: string[], pending = false) => pipelineRun('v1beta1', meta(CI, `build-${sha}`), { resources, pending });

/** Shared by every finished build; kept for a week after the last one that used it. */
const SHARED = 'img-base';

/** Everything but the young one, created `MIN_AGE` before the pass. */
export function oldEntries(now = new Date()): Entry[] {
  return [
    {
      namespace: CI,
      resources: [src('3f9c2a1'), img('3f9c2a1')],
      run: { object: build('3f9c2a1', ['src-3f9c2a1', 'img-3f9c2a1', SHARED]), status: { state: 'succeeded', finishedAt: hoursAgo(26, now) } },
      story: 'build-3f9c2a1 succeeded 26h ago',
      expect: 'delete',
      reason: 'runs-finished',
      why: 'its run is finished',
    },
    {
      namespace: CI,
      resources: [src('8d41e07'), img('8d41e07')],
      run: { object: build('8d41e07', ['src-8d41e07', 'img-8d41e07', SHARED]), status: { state: 'failed', finishedAt: hoursAgo(5, now) } },
      story: 'build-8d41e07 failed 5h ago',
      expect: 'delete',
      reason: 'runs-finished',
      why: 'its run is finished',
    },
    {
      namespace: CI,
      resources: [src('c0ffee4'), img('c0ffee4')],
      run: { object: build('c0ffee4', ['src-c0ffee4', 'img-c0ffee4', SHARED]), status: { state: 'cancelled', finishedAt: hoursAgo(3, now) } },
      story: 'build-c0ffee4 was cancelled 3h ago',
      expect: 'delete',
      reason: 'runs-finished',
      why: 'its run is finished',
    },
    {
      namespace: CI,
      resources: [src('a1b2c3d')],
      run: { object: build('a1b2c3d', ['src-a1b2c3d']), status: { state: 'running' } },
      story: 'build-a1b2c3d is running',
      expect: 'keep',
      reason: 'referenced-by-active-run',
      why: 'deleting it would fail the run',
    },
    {
      namespace: CI,
      resources: [src('e5f6a7b')],
      run: { object: build('e5f6a7b', ['src-e5f6a7b'], true), status: { state: 'pending' } },
      story: 'build-e5f6a7b is pending (not started)',
      expect: 'keep',
      reason: 'referenced-by-active-run',
      why: 'the run reads it when it starts',
    },
    {
      namespace: CI,
      resources: [gitResource(meta(CI, 'src-release-1.4.0', { [`${PREFIX}/retain`]: 'true' }), 'v1.4.0')],
      run: {
        object: pipelineRun('v1beta1', meta(CI, 'release-1.4.0'), { resources: ['src-release-1.4.0'] }),
        status: { state: 'succeeded', finishedAt: hoursAgo(24 * 40, now) },
      },
      story: 'release-1.4.0 succeeded 40d ago; label retain=true',
      expect: 'keep',
      reason: 'retained',
      why: 'the label says so',
    },
    {
      namespace: CI,
      resources: [imageResource(meta(CI, SHARED, { [`${PREFIX}/retain-for`]: '7d' }), 'base')],
      story: 'used by the 3 builds above; label retain-for=7d',
      expect: 'keep',
      reason: 'retain-for',
      why: 'its last run finished only 3h ago',
    },
    {
      namespace: LEGACY,
      resources: [
        gitResource(meta(LEGACY, 'src-0b5e1f2'), '0b5e1f2'),
        imageResource(meta(LEGACY, 'img-0b5e1f2'), '0b5e1f2'),
      ],
      story: 'no run names them (runs pruned after an upgrade)',
      expect: 'delete',
      reason: 'unreferenced',
      why: 'nothing uses them',
    },
  ];
}

/**
 * Created seconds before the dry run, as a trigger does just before it creates the run
 * that uses it; the run (youngRun) follows after the dry run.
 */
export function youngEntry(): Entry {
  return {
    namespace: CI,
    resources: [src('9e8d7c6')],
    story: 'just created by a trigger; its run comes next',
    expect: 'keep',
    reason: 'too-young',
    why: 'younger than --min-age',
  };
}

/** The run the trigger creates for the young resource, between the dry run and the live pass. */
export function youngRun(): { object: KubeObject; status: RunStatusSpec } {
  return { object: build('9e8d7c6', ['src-9e8d7c6']), status: { state: 'running' } };
}

export function namesOf(entries: readonly Entry[], expect?: Entry['expect']): string[] {
  return entries
    .filter((entry) => expect === undefined || entry.expect === expect)
    .flatMap((entry) => entry.resources.map((resource) => `${resource.metadata.namespace}/${resource.metadata.name}`))
    .sort();
}

/**
 * Helm on the chart without a cluster, for the unit tests of its templates: the helm the
 * harness builds, with its caches and settings in a directory of the test file's own, made
 * before its tests and removed after them, and each values object as a file of its own
 * (JSON keeps types exactly, and null, which `--set` would not).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { loadAllYaml } from '@kubernetes/client-node';
import { ensureBinaries } from '../../harness/build.js';
import { exec, toolEnv, type Exit } from './exec.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHART = path.join(ROOT, 'chart');

export type Values = Record<string, unknown>;

export interface TemplateOptions {
  /** The release's namespace; trgc-system by default. The release is always `gc`. */
  namespace?: string;
  /** More arguments after the values files, such as `--set`. */
  extra?: readonly string[];
}

export interface ChartHelm {
  /** `helm ARGS --values FILE... EXTRA`, one file for each values object, in order. */
  run(args: readonly string[], valueFiles: readonly Values[], extra?: readonly string[]): Promise<Exit>;
  /** `helm template gc chart` with these values files. */
  template(valueFiles: readonly Values[], options?: TemplateOptions): Promise<Exit>;
  /** What template prints; the test fails when helm does. */
  renderYaml(valueFiles: readonly Values[], options?: TemplateOptions): Promise<string>;
  /** renderYaml's documents as plain objects (client-node's model classes would drop fields they do not know). */
  render<T>(valueFiles: readonly Values[], options?: TemplateOptions): Promise<T[]>;
}

/** A ChartHelm for one test file: call it at the file's top level, where its before and after hooks belong. */
export function chartHelm(name: string): ChartHelm {
  let helm: string;
  let work: string;
  let files = 0;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), `trgc-${name}-`));
    helm = (await ensureBinaries(['helm'])).helm;
  });

  after(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  const run = async (args: readonly string[], valueFiles: readonly Values[], extra: readonly string[] = []): Promise<Exit> => {
    const valueArgs: string[] = [];
    for (const values of valueFiles) {
      const file = path.join(work, `values-${files++}.json`);
      await writeFile(file, JSON.stringify(values));
      valueArgs.push('--values', file);
    }
    return exec(helm, [...args, ...valueArgs, ...extra], { cwd: ROOT, env: toolEnv(work) });
  };
  const template = (valueFiles: readonly Values[], options: TemplateOptions = {}): Promise<Exit> =>
    run(['template', 'gc', CHART, '--namespace', options.namespace ?? 'trgc-system'], valueFiles, options.extra);
  const renderYaml = async (valueFiles: readonly Values[], options: TemplateOptions = {}): Promise<string> => {
    const exit = await template(valueFiles, options);
    assert.equal(exit.code, 0, `helm template failed:\n${exit.stderr}`);
    return exit.stdout;
  };
  return {
    run,
    template,
    renderYaml,
    async render<T>(valueFiles: readonly Values[], options: TemplateOptions = {}): Promise<T[]> {
      const parsed = (loadAllYaml(await renderYaml(valueFiles, options)) as unknown[]).filter((object) => object !== null);
      return JSON.parse(JSON.stringify(parsed)) as T[];
    },
  };
}

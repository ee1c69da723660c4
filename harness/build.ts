// Builds the control plane's binaries (and actionlint, the workflows' linter) from Go
// modules, once per version, into a cache directory of the project's own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, createWriteStream, type WriteStream } from 'node:fs';
import { access, link, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { BuildProgress, formatDuration, type BuildOutput } from './buildprogress.js';

export const VERSIONS = {
  etcd: 'v3.6.16',
  kubernetes: 'v1.35.4',
  helm: 'v4.3.1',
  actionlint: 'v1.7.12',
} as const;

export type BinaryName = 'etcd' | 'kube-apiserver' | 'kubectl' | 'helm' | 'actionlint';
export const BINARY_NAMES: readonly BinaryName[] = ['etcd', 'kube-apiserver', 'kubectl', 'helm', 'actionlint'];

/**
 * Environment variables that point at an existing binary instead of building one: the
 * names controller-runtime's envtest reads. Not TRGC_*: the collector refuses a TRGC_
 * variable that names none of its flags.
 */
export const BINARY_ENV: Readonly<Record<BinaryName, string>> = {
  etcd: 'TEST_ASSET_ETCD',
  'kube-apiserver': 'TEST_ASSET_KUBE_APISERVER',
  kubectl: 'TEST_ASSET_KUBECTL',
  helm: 'TEST_ASSET_HELM',
  actionlint: 'TEST_ASSET_ACTIONLINT',
};

/** Binaries looked up in `KUBEBUILDER_ASSETS`; kubectl only when present there. */
const KUBEBUILDER_REQUIRED: readonly BinaryName[] = ['etcd', 'kube-apiserver'];
const KUBEBUILDER_OPTIONAL: readonly BinaryName[] = ['kubectl'];

export class BinaryError extends Error {
  override name = 'BinaryError';
}

export type BinaryPaths<N extends BinaryName> = Record<N, string>;

export interface EnsureOptions {
  env?: NodeJS.ProcessEnv;
  /** Where a build's progress line goes; stderr by default. Go's own output goes to a log file. */
  output?: BuildOutput;
}

/** One `go` invocation sequence that produces one or more binaries of one version. */
interface Recipe {
  id: string;
  version: string;
  binaries: readonly BinaryName[];
  /** What the first build took on a 2-core machine with a cold Go cache. */
  coldDuration: string;
  build(context: RecipeContext): Promise<void>;
}

interface RecipeContext {
  /** Scratch directory for wrapper modules. */
  workDir: string;
  /** Directory the recipe leaves its binaries in, named as in `binaries`. */
  outDir: string;
  go: (args: readonly string[], cwd: string) => Promise<void>;
  goOutput: (args: readonly string[], cwd: string) => Promise<string>;
}

const LOCK_POLL_MS = 1_000;
/** How much of go's output a failed build shows; the whole of it is in the build's log file. */
const FAILURE_TAIL_LINES = 40;

const etcdRecipe: Recipe = {
  id: 'etcd',
  version: VERSIONS.etcd,
  binaries: ['etcd'],
  coldDuration: 'about 30 s',
  async build({ workDir, outDir, go }) {
    // The server module's root package is etcd's main; a wrapper that only requires it
    // needs no replace directives.
    await writeFile(
      join(workDir, 'go.mod'),
      `module trgc.local/etcd\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 ${VERSIONS.etcd}\n`,
    );
    await writeFile(join(workDir, 'tools.go'), toolsGo(['go.etcd.io/etcd/server/v3']));
    await go(['mod', 'tidy'], workDir);
    await go(['build', '-trimpath', '-ldflags', '-s -w', '-o', join(outDir, 'etcd'), 'go.etcd.io/etcd/server/v3'], workDir);
  },
};

const kubernetesRecipe: Recipe = {
  id: 'kubernetes',
  version: VERSIONS.kubernetes,
  binaries: ['kube-apiserver', 'kubectl'],
  coldDuration: 'about 5 min',
  async build({ workDir, outDir, go, goOutput }) {
    // k8s.io/kubernetes points its staging modules at ./staging, so `go install pkg@version`
    // is refused. The wrapper replaces each with its published v0.Y.Z instead, reading the
    // list from the release's own go.mod because it changes between releases.
    const download = JSON.parse(
      await goOutput(['mod', 'download', '-json', `k8s.io/kubernetes@${VERSIONS.kubernetes}`], workDir),
    ) as { GoMod?: string; Error?: string };
    if (download.GoMod === undefined) {
      throw new BinaryError(`go mod download k8s.io/kubernetes@${VERSIONS.kubernetes} failed: ${download.Error ?? 'no go.mod'}`);
    }
    const upstreamGoMod = await readFile(download.GoMod, 'utf8');
    await writeFile(join(workDir, 'go.mod'), kubernetesWrapperGoMod(upstreamGoMod, VERSIONS.kubernetes));
    const commands = ['k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kubectl'];
    await writeFile(join(workDir, 'tools.go'), toolsGo(commands));
    await go(['mod', 'tidy'], workDir);
    // Without the stamps the binaries report v0.0.0.
    const [major = '', minor = ''] = VERSIONS.kubernetes.slice(1).split('.');
    const ldflags = [
      '-s -w',
      `-X k8s.io/component-base/version.gitVersion=${VERSIONS.kubernetes}`,
      `-X k8s.io/component-base/version.gitMajor=${major}`,
      `-X k8s.io/component-base/version.gitMinor=${minor}`,
      `-X k8s.io/client-go/pkg/version.gitVersion=${VERSIONS.kubernetes}`,
    ].join(' ');
    // A trailing separator makes go write one binary per package into the directory.
    await go(['build', '-trimpath', '-ldflags', ldflags, '-o', outDir + '/', ...commands], workDir);
  },
};

const helmRecipe: Recipe = {
  id: 'helm',
  version: VERSIONS.helm,
  binaries: ['helm'],
  coldDuration: 'about 2.5 min',
  async build({ workDir, go }) {
    const ldflags = `-s -w -X helm.sh/helm/v4/internal/version.version=${VERSIONS.helm}`;
    await go(['install', '-trimpath', '-ldflags', ldflags, `helm.sh/helm/v4/cmd/helm@${VERSIONS.helm}`], workDir);
    // `go install` writes to GOBIN, which the runner sets to outDir.
  },
};

/** The linter of .github/workflows (npm run lint:workflows). */
const actionlintRecipe: Recipe = {
  id: 'actionlint',
  version: VERSIONS.actionlint,
  binaries: ['actionlint'],
  coldDuration: 'about 1 min',
  async build({ workDir, go }) {
    // No version stamp needed: actionlint reads its version from the module's build info,
    // which `go install module@version` records.
    await go(['install', '-trimpath', '-ldflags', '-s -w', `github.com/rhysd/actionlint/cmd/actionlint@${VERSIONS.actionlint}`], workDir);
  },
};

const RECIPES: readonly Recipe[] = [etcdRecipe, kubernetesRecipe, helmRecipe, actionlintRecipe];

/** The wrapper go.mod for k8s.io/kubernetes, generated from that release's go.mod. */
export function kubernetesWrapperGoMod(upstreamGoMod: string, version: string): string {
  const stagingVersion = version.replace(/^v1\./, 'v0.');
  const stagingModules = upstreamGoMod
    .split('\n')
    .map((line) => /^\s*(?:replace\s+)?(k8s\.io\/[A-Za-z0-9._-]+)\s+=>\s+\.\/staging\//.exec(line)?.[1])
    .filter((module): module is string => module !== undefined);
  if (stagingModules.length === 0) {
    throw new BinaryError(`k8s.io/kubernetes ${version}: its go.mod has no "k8s.io/NAME => ./staging/..." replace lines`);
  }
  const goDirective = /^go\s+(\S+)/m.exec(upstreamGoMod)?.[1] ?? '1.25.0';
  return [
    'module trgc.local/kubernetes',
    '',
    `go ${goDirective}`,
    '',
    `require k8s.io/kubernetes ${version}`,
    '',
    ...stagingModules.map((module) => `replace ${module} => ${module} ${stagingVersion}`),
    '',
  ].join('\n');
}

function toolsGo(packages: readonly string[]): string {
  return ['//go:build tools', '', 'package tools', '', 'import (', ...packages.map((p) => `\t_ "${p}"`), ')', ''].join('\n');
}

function recipeFor(name: BinaryName): Recipe {
  const recipe = RECIPES.find((candidate) => candidate.binaries.includes(name));
  if (recipe === undefined) throw new BinaryError(`no recipe builds ${name}`);
  return recipe;
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'tekton-resource-gc', 'bin');
}

/** Where the build puts a binary: `<cache>/bin/<name>-<version>/<name>`. */
export function cachedBinaryPath(name: BinaryName, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), `${name}-${recipeFor(name).version}`, name);
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, fsConstants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** A path given by the environment, checked; undefined when the environment names none. */
async function overridePath(name: BinaryName, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const variable = BINARY_ENV[name];
  const explicit = env[variable];
  if (explicit !== undefined && explicit !== '') {
    if (!(await isExecutableFile(explicit))) {
      throw new BinaryError(`${variable}=${explicit} is not an executable file; set it to the path of the ${name} binary to use (e.g. ${variable}=${cachedBinaryPath(name, env)}) or unset it to build one`);
    }
    return explicit;
  }
  const assets = env.KUBEBUILDER_ASSETS;
  if (assets === undefined || assets === '' || !(KUBEBUILDER_REQUIRED.includes(name) || KUBEBUILDER_OPTIONAL.includes(name))) {
    return undefined;
  }
  const inAssets = join(assets, name);
  if (await isExecutableFile(inAssets)) return inAssets;
  if (KUBEBUILDER_REQUIRED.includes(name)) {
    throw new BinaryError(`KUBEBUILDER_ASSETS=${assets} has no executable ${name}; it must hold etcd and kube-apiserver, or unset it to build them`);
  }
  return undefined;
}

/**
 * Paths of the named binaries: from `TRGC_*` variables, then `KUBEBUILDER_ASSETS`, then
 * the cache, building what is missing (minutes the first time, once per version).
 */
export async function ensureBinaries<N extends BinaryName>(names: readonly N[], options: EnsureOptions = {}): Promise<BinaryPaths<N>> {
  const env = options.env ?? process.env;
  const output = options.output ?? { stream: process.stderr };
  const paths: Partial<BinaryPaths<N>> = {};
  const missing: N[] = [];
  for (const name of names) {
    const path = (await overridePath(name, env)) ?? cachedBinaryPath(name, env);
    paths[name] = path;
    if (!(await isExecutableFile(path))) missing.push(name);
  }
  const recipes = [...new Set(missing.map(recipeFor))];
  // Sequentially: on a small machine parallel go builds only compete for the same cores.
  for (const recipe of recipes) await buildOnce(recipe, env, output);
  return paths as BinaryPaths<N>;
}

/** Builds already running in this process, so concurrent callers share one. */
const buildsInProgress = new Map<string, Promise<void>>();

function buildOnce(recipe: Recipe, env: NodeJS.ProcessEnv, output: BuildOutput): Promise<void> {
  const key = `${cacheRoot(env)}:${recipe.id}`;
  let build = buildsInProgress.get(key);
  if (build === undefined) {
    build = withLock(recipe, env, output, () => buildRecipe(recipe, env, output)).finally(() => buildsInProgress.delete(key));
    buildsInProgress.set(key, build);
  }
  return build;
}

async function allInstalled(recipe: Recipe, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const name of recipe.binaries) {
    if (!(await isExecutableFile(cachedBinaryPath(name, env)))) return false;
  }
  return true;
}

/**
 * A lock file per recipe, so that two processes (two test files, a test and the demo)
 * never build the same thing at once. It holds the owner's pid: a lock whose owner is
 * gone (a build killed with Ctrl-C) is stale and taken over.
 */
async function withLock(recipe: Recipe, env: NodeJS.ProcessEnv, output: BuildOutput, build: () => Promise<void>): Promise<void> {
  const root = cacheRoot(env);
  await mkdir(root, { recursive: true });
  const lockPath = join(root, `.lock-${recipe.id}`);
  let announcedWait = false;
  for (;;) {
    if (await tryLock(lockPath)) break;
    const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (!isAlive(owner)) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (!announcedWait) {
      output.stream.write(`${output.indent ?? ''}waiting for process ${owner} that is building ${recipe.binaries.join(', ')} ${recipe.version} (lock ${lockPath})\n`);
      announcedWait = true;
    }
    await sleep(LOCK_POLL_MS);
  }
  try {
    if (!(await allInstalled(recipe, env))) await build();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

/** Creates the lock with its content in one step: link(2) fails if the name exists. */
async function tryLock(lockPath: string): Promise<boolean> {
  const candidate = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(candidate, String(process.pid));
  try {
    await link(candidate, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(candidate);
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `<cache>/tekton-resource-gc/build-logs`: go's output of each build, one file per build, kept. */
export function buildLogDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(cacheRoot(env)), 'build-logs');
}

async function buildRecipe(recipe: Recipe, env: NodeJS.ProcessEnv, output: BuildOutput): Promise<void> {
  const root = cacheRoot(env);
  const what = `${recipe.binaries.join(', ')} ${recipe.version}`;
  // Leftovers of builds that were interrupted; safe to remove while holding the lock.
  for (const entry of await readdir(root)) {
    if (entry.startsWith(`.building-${recipe.id}-`)) await rm(join(root, entry), { recursive: true, force: true });
  }
  // Inside the cache directory, so that the final rename stays on one file system.
  const buildDir = await mkdtemp(join(root, `.building-${recipe.id}-`));
  const workDir = await mkdtemp(join(tmpdir(), `trgc-go-${recipe.id}-`));
  const outDir = join(buildDir, 'out');
  await mkdir(outDir);
  await mkdir(buildLogDir(env), { recursive: true });
  const logPath = join(buildLogDir(env), `${recipe.id}-${recipe.version}-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
  const logFile = createWriteStream(logPath, { flags: 'a' });
  const progress = new BuildProgress(output, what, env);
  progress.note(`building ${what} with Go into ${root} (once per version; ${recipe.coldDuration} on a 2-core machine with a cold Go cache, seconds with a warm one); go's output: ${logPath}`);
  const started = Date.now();
  progress.start();
  try {
    const goEnv = { ...env, GOBIN: outDir, GOWORK: 'off' };
    const context = { env: goEnv, logFile, logPath, progress };
    await recipe.build({
      workDir,
      outDir,
      go: async (args, cwd) => {
        await runGo(verbose(args), cwd, context);
      },
      goOutput: (args, cwd) => runGo(args, cwd, context, { capture: true }),
    });
    for (const name of recipe.binaries) await install(name, recipe.version, buildDir, root);
    progress.finish(`built ${what} in ${formatDuration(Date.now() - started)} (once per version); go's output: ${logPath}`);
  } catch (error) {
    // The error that follows names the log and shows its end.
    progress.finish(`building ${what} failed after ${formatDuration(Date.now() - started)}`);
    throw error;
  } finally {
    await closed(logFile);
    await rm(buildDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  }
}

/** `go build` and `go install` with -v, which names each package as it compiles: the progress line counts them. */
function verbose(args: readonly string[]): readonly string[] {
  const [command, ...rest] = args;
  return command === 'build' || command === 'install' ? [command, '-v', ...rest] : args;
}

function closed(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => stream.end(() => resolve()));
}

/**
 * Moves a built binary into `<root>/<name>-<version>/` with one rename of its directory,
 * so the cache never holds a partly written binary that would count as built.
 */
async function install(name: BinaryName, version: string, buildDir: string, root: string): Promise<void> {
  const target = join(root, `${name}-${version}`);
  // A recipe builds all its binaries; one of them may have been there already.
  if (await isExecutableFile(join(target, name))) return;
  const built = join(buildDir, 'out', name);
  if (!(await isExecutableFile(built))) throw new BinaryError(`the build of ${name} ${version} produced no executable at ${built}`);
  const staged = join(buildDir, `${name}-${version}`);
  await mkdir(staged);
  await rename(built, join(staged, name));
  await rename(staged, target);
}

interface GoContext {
  env: NodeJS.ProcessEnv;
  /** Every go command of the build, and all it printed, in order. */
  logFile: WriteStream;
  logPath: string;
  progress: BuildProgress;
}

/** Runs go with its stderr (and stdout, unless captured) in the log file, each stderr line shown to the progress line. */
function runGo(args: readonly string[], cwd: string, context: GoContext, options: { capture?: boolean } = {}): Promise<string> {
  const { logFile, progress } = context;
  logFile.write(`$ go ${args.join(' ')}    (in ${cwd})\n`);
  progress.command(args);
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd, env: context.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      if (options.capture === true) stdout.push(chunk);
      else logFile.write(chunk);
    });
    const stderr = createInterface({ input: child.stderr, crlfDelay: Infinity });
    stderr.on('line', (line) => {
      logFile.write(`${line}\n`);
      progress.goLine(line);
    });
    const stderrEnded = new Promise((ended) => stderr.once('close', ended));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new BinaryError(`go is not on PATH: building the control plane needs Go 1.25 or later, or existing binaries (KUBEBUILDER_ASSETS, ${Object.values(BINARY_ENV).join(', ')})`)
          : error,
      );
    });
    child.on('close', (code) => {
      void stderrEnded.then(async () => {
        logFile.write(`(exit code ${code ?? 'none: stopped by a signal'})\n`);
        if (code === 0) {
          resolve(Buffer.concat(stdout).toString('utf8'));
          return;
        }
        reject(new BinaryError(`go ${args.join(' ')} failed with exit code ${code ?? 'none (stopped by a signal)'}; the last lines of its output${await logTail(context)}`));
      });
    });
  });
}

/** The end of the build's log so far, indented, and where the whole of it is. */
async function logTail(context: GoContext): Promise<string> {
  // What was written so far, flushed: the stream writes in order, and this callback runs after it.
  await new Promise((resolve) => context.logFile.write('', resolve));
  const lines = (await readFile(context.logPath, 'utf8')).trimEnd().split('\n').slice(-FAILURE_TAIL_LINES);
  return ` (all of it: ${context.logPath}):\n${lines.map((line) => `    ${line}`).join('\n')}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

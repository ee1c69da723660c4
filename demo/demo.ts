/**
 * npm run demo: tekton-resource-gc against a real, local kube-apiserver, explained step by
 * step. Starts the control plane, fills two namespaces with what a CI cluster
 * accumulates, runs a dry run and a live pass of the CLI exactly as a user would, shows
 * what is left; then does the same with the leftovers of a third namespace, a current
 * Tekton's (workspace claims, affinity-assistant claims, Pipelines-as-Code Secrets,
 * ResolutionRequests), and
 * stops the control plane (also on Ctrl-C and on failure).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBinaries } from '../harness/build.js';
import { startControlPlane, type ControlPlane } from '../harness/controlplane.js';
import { runCli, type CliResult } from '../test/support/cli.js';
import { Seeder } from '../test/support/seed.js';
import { LEFTOVER_COLLECTORS, PAC_NAMESPACE, remainingLeftovers, seedLeftovers, type Leftover, type LeftoversLeft } from './leftovers.js';
import { CI, LEGACY, PREFIX, namesOf, oldEntries, youngEntry, youngRun, type Entry } from './scenario.js';

/**
 * Every object is created seconds before the passes and creation times cannot be
 * backdated, so the passes use a minimum age of seconds instead of the default 1h: the
 * demo waits that long after creating the others, then creates the young one just before
 * the dry run, which must decide while it is younger than that. The live pass cannot be
 * timed as closely (a dry run and a CLI start later, tens of seconds on a loaded machine),
 * so before it the young one's run appears, as a trigger creates it, and keeps it instead.
 * At least this many seconds; more on a machine where one pass takes long (see minAgeFor).
 */
const MIN_AGE_SECONDS = 10;
const NAMESPACES = [CI, LEGACY];
const INDENT = '    ';

const started = Date.now();
const say = (line = ''): void => void process.stdout.write(`${line}\n`);
const indent = (text: string): string =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `${INDENT}${line}`.trimEnd())
    .join('\n');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  say('tekton-resource-gc demo');
  say('=======================');
  say('CI systems create a Tekton PipelineResource (a git revision, an image tag) for every commit,');
  say('and nothing deletes them. tekton-resource-gc deletes the ones no unfinished run still needs,');
  say('and keeps what a label or a time window says to keep. This demo runs it against a real,');
  say('local kube-apiserver with the Tekton v0.45 CRDs (the last release with PipelineResources).');
  say('Then (steps 8-10) it collects what current Tekton runs leave behind: workspace claims,');
  say('affinity-assistant claims, Pipelines-as-Code git-auth Secrets and ResolutionRequests.');
  say();

  say('1. Start a local control plane (etcd + kube-apiserver, Tekton v0.45 CRDs and ResolutionRequests)');
  let step = Date.now();
  // Missing binaries are built once from source (minutes); say so where the reader looks.
  const output = { stream: process.stdout, indent: INDENT };
  const { kubectl } = await ensureBinaries(['kubectl'], { output });
  // v0.45's CRDs, which still have PipelineResources, and the ResolutionRequests of a current Tekton.
  const controlPlane = await startControlPlane({ crds: 'upgraded', output });
  try {
    say(`${INDENT}ready at ${controlPlane.server} in ${seconds(Date.now() - step)}`);
    say();
    await demo(controlPlane, kubectl);
  } finally {
    step = Date.now();
    await controlPlane.stop();
    say(`11. Stopped the control plane in ${seconds(Date.now() - step)}: no etcd or kube-apiserver left running.`);
  }
  say(`Demo finished in ${seconds(Date.now() - started)}.`);
}

async function demo(controlPlane: ControlPlane, kubectl: string): Promise<void> {
  const seed = new Seeder(controlPlane.kubeConfig());
  const old = oldEntries();
  const logDir = await mkdtemp(join(tmpdir(), 'trgc-demo-logs-'));
  const kubeconfig = ['--kubeconfig', controlPlane.kubeconfigPath];

  say('2. Create what a CI cluster accumulates');
  say(`${INDENT}namespace ${CI}: for every commit CI creates src-<sha> (git) and img-<sha> (image) and a`);
  say(`${INDENT}PipelineRun build-<sha> that uses them and the shared img-base. Completion times are set in`);
  say(`${INDENT}the past, as Tekton would have written them; labels are ${PREFIX}/<key>.`);
  for (const namespace of NAMESPACES) await seed.namespace(namespace);
  // Resources first, then their runs, as a trigger template creates them.
  for (const entry of old) for (const resource of entry.resources) await seed.create(resource);
  for (const entry of old) if (entry.run !== undefined) await seed.create(entry.run.object, entry.run.status);
  // Created now so that they are as old as the rest by step 8: no second wait for --min-age.
  const leftovers = await seedLeftovers(controlPlane.kubeConfig(), seed);
  const lastCreated = Date.now();
  for (const entry of old.filter((candidate) => candidate.namespace === CI)) say(describe(entry));
  say(`${INDENT}namespace ${LEGACY}: left behind when an upgrade to Tekton v0.46 dropped PipelineResources:`);
  for (const entry of old.filter((candidate) => candidate.namespace === LEGACY)) say(describe(entry));
  say(`${INDENT}namespace ${PAC_NAMESPACE}: runs of a current Tekton (no PipelineResources) and what they leave behind;`);
  say(`${INDENT}step 8 shows them.`);
  say();

  say('3. With the defaults, nothing goes yet');
  say(`${INDENT}$ tekton-resource-gc --dry-run`);
  const defaults = await pass(['--dry-run', ...kubeconfig], join(logDir, 'defaults.log'), 'summary');
  say(`${INDENT}Everything here is seconds old and the default --min-age is 1h: a resource a trigger has just`);
  say(`${INDENT}created may be about to be used by a run it creates next. Creation times cannot be backdated,`);
  const minAge = minAgeFor(defaults.ms);
  // Creation times are whole seconds: one more second keeps the old ones clear of the limit.
  const wait = Math.max(minAge * 1000 + 1000 - (Date.now() - lastCreated), 0);
  say(`${INDENT}so the passes below use --min-age ${minAge}s, ample for one pass to start on this machine.`);
  say(`${INDENT}Waiting ${seconds(wait)} until everything above is older than that; then CI creates one more:`);
  await sleep(wait);
  const young = youngEntry();
  for (const resource of young.resources) await seed.create(resource);
  say(describe(young));
  const entries = [...old, young];
  const total = namesOf(entries).length;
  say();

  const flags = ['--min-age', `${minAge}s`];
  say('4. Dry run: decide and report, delete nothing');
  say(`${INDENT}$ tekton-resource-gc --dry-run ${flags.join(' ')}`);
  const dry = await pass(['--dry-run', ...flags, ...kubeconfig], join(logDir, 'dry-run.log'), 'report');
  const afterDry = await remaining(seed);
  const youngName = young.resources[0]?.metadata.name ?? '';
  const youngKept = new RegExp(`^\\S+\\s+PipelineResource\\s+${youngName}\\s+-\\s+keep\\s+kept\\s+too-young\\s`, 'm').test(dry.stdout);
  say(`${INDENT}Still ${afterDry.length} of ${total} PipelineResources: the dry run deleted nothing.`);
  say(`${INDENT}ACTION is the decision, RESULT what became of it, REASON the rule that decided (the first that`);
  say(`${INDENT}matches wins), LINKED RUNS the runs that name it, WHY the details. SIZE and HELD BY are for the`);
  say(`${INDENT}leftovers of step 8. The last line counts each result with the reasons behind it.`);
  say();

  say('5. Live pass: the same rules, and the deletes');
  const { object: run, status } = youngRun();
  await seed.create(run, status);
  say(`${INDENT}Meanwhile the trigger has created ${run.metadata.name}, which uses ${youngName}: from now on that running`);
  say(`${INDENT}run keeps it, whatever its age. This gap between a resource and its run is what --min-age covers.`);
  say(`${INDENT}$ tekton-resource-gc ${flags.join(' ')}`);
  const live = await pass([...flags, ...kubeconfig], join(logDir, 'live.log'), 'report');
  const logLines = live.stderr.split('\n').filter((line) => line.trim() !== '');
  say(`${INDENT}Logs are JSON lines on stderr (${logLines.length} in this pass: one per delete and a summary), e.g.:`);
  for (const line of [logLines.find((candidate) => candidate.includes('"msg":"deleted"')), logLines.at(-1)]) {
    if (line !== undefined) say(`${INDENT}  ${line}`);
  }
  say(`${INDENT}All of them: ${logDir}`);
  say();

  say('6. What is left');
  say(`${INDENT}$ kubectl get pipelineresources -A -L ${PREFIX}/retain,${PREFIX}/retain-for`);
  const listing = await promisify(execFile)(kubectl, [...kubeconfig, 'get', 'pipelineresources', '-A', '-L', `${PREFIX}/retain,${PREFIX}/retain-for`]);
  say(indent(listing.stdout));
  const runs = await promisify(execFile)(kubectl, [...kubeconfig, 'get', 'pipelineruns', '-A', '--no-headers', '-o', 'custom-columns=NAMESPACE:.metadata.namespace']);
  const runCount = runs.stdout.split('\n').filter((namespace) => NAMESPACES.includes(namespace.trim())).length;
  say(`${INDENT}The ${runCount} PipelineRuns are all still there: the collector never deletes a run.`);
  say();

  say('7. Did it do what we said?');
  const left = await remaining(seed);
  const expectedKept = namesOf(entries, 'keep');
  const deleted = afterDry.filter((name) => !left.includes(name));
  say(`${INDENT}deleted: ${deleted.join(', ')}`);
  say(`${INDENT}kept:    ${left.join(', ')}`);
  if (afterDry.length !== total || left.join() !== expectedKept.join()) {
    throw new Error(`expected to keep exactly ${expectedKept.join(', ')}; left: ${left.join(', ')}`);
  }
  if (!youngKept) {
    throw new Error(`the dry run did not report ${youngName} too-young: it was older than --min-age ${minAge}s by the time the dry run decided (this machine was slower than the demo allows for)`);
  }
  say(`${INDENT}As expected. Try it on your cluster with --dry-run first; tekton-resource-gc --help lists every flag.`);
  say();

  await collectLeftovers({ controlPlane, kubectl, logDir, minAgeFlags: flags, leftovers });
}

/**
 * Steps 8-10: the leftovers of a current Tekton, seeded in step 2 and so as old as the
 * rest: a dry run, a live pass (Secrets and ResolutionRequests deleted, claims left Terminating by their
 * finalizer), then a pass with --pvc-finalizer purge that releases the claims.
 */
async function collectLeftovers(context: { controlPlane: ControlPlane; kubectl: string; logDir: string; minAgeFlags: readonly string[]; leftovers: readonly Leftover[] }): Promise<void> {
  const { controlPlane, kubectl, logDir, leftovers } = context;
  const kubeconfig = ['--kubeconfig', controlPlane.kubeconfigPath];
  const flags = [...context.minAgeFlags, '--collect', LEFTOVER_COLLECTORS];

  say('8. Leftovers: what current Tekton runs leave behind');
  say(`${INDENT}Tekton v0.46 dropped PipelineResources, but its runs still leave objects behind. In ${PAC_NAMESPACE},`);
  say(`${INDENT}Pipelines-as-Code starts a PipelineRun (tekton.dev/v1) for every push and pull request, with a`);
  say(`${INDENT}pac-gitauth-* Secret holding a copy of the git token; each run's volumeClaimTemplate gets it a`);
  say(`${INDENT}claim of its own, owned by the run and kept as long as the run is. A push runs the organisation's`);
  say(`${INDENT}shared pipeline, which Tekton's git resolver fetches through a ResolutionRequest the run owns (with`);
  say(`${INDENT}the pipeline's YAML in its status), and one more for each remote task, kept as long as the run is:`);
  for (const line of describeLeftovers(leftovers)) say(line);
  say(`${INDENT}Steps 3 to 5 neither reported nor touched any of them: --collect defaults to pipelineresources.`);
  say(`${INDENT}$ tekton-resource-gc --dry-run ${flags.join(' ')}`);
  await pass(['--dry-run', ...flags, ...kubeconfig], join(logDir, 'leftovers-dry-run.log'), 'report');
  say(`${INDENT}The same table, other kinds: SIZE is a claim's bound capacity, else its request. LINKED RUNS are the`);
  say(`${INDENT}runs that own it, bind it as a workspace or name it in Pipelines-as-Code's git-auth annotation; an`);
  say(`${INDENT}owner deleted reads "gone". HELD BY are the Pods and StatefulSets still using it. The bytes line`);
  say(`${INDENT}adds up the claims to delete. A running run's request goes early (resolution-stored) only when it is`);
  say(`${INDENT}the run's own pipelineRef and the run has stored that pipeline; its other requests it reads on every`);
  say(`${INDENT}reconcile, and a request of a finished run goes with the rest.`);
  say();

  say('9. Live pass: the Secrets and ResolutionRequests go, the claims stay Terminating');
  say(`${INDENT}$ tekton-resource-gc ${flags.join(' ')}`);
  await pass([...flags, ...kubeconfig], join(logDir, 'leftovers-live.log'), 'report');
  await showKubectl(kubectl, [...kubeconfig, 'get', 'pvc', '-n', PAC_NAMESPACE]);
  const afterLive = await remainingLeftovers(controlPlane.kubeConfig());
  say(`${INDENT}The Secrets and the two ResolutionRequests are gone. The claims are deleted but stay Terminating:`);
  say(`${INDENT}the API server puts the kubernetes.io/pvc-protection finalizer on every claim, and`);
  say(`${INDENT}kube-controller-manager removes it once no Pod names the claim, whatever the Pod's phase (this`);
  say(`${INDENT}demo's server runs no controller: here nothing ever would). A finished TaskRun's Pod (HELD BY)`);
  say(`${INDENT}stays until the TaskRun is deleted, so on a real cluster too the claim of a run you keep stays`);
  say(`${INDENT}Terminating, its volume still allocated: the bytes line counts it as pending. --pvc-finalizer`);
  say(`${INDENT}purge removes that one finalizer itself, and only once every Pod that names the claim has finished.`);
  say();

  say('10. Purge: release the volumes');
  const purge = [...flags, '--pvc-finalizer', 'purge'];
  say(`${INDENT}$ tekton-resource-gc ${purge.join(' ')}`);
  await pass([...purge, ...kubeconfig], join(logDir, 'leftovers-purge.log'), 'report');
  await showKubectl(kubectl, [...kubeconfig, 'get', 'pvc,secrets,statefulsets,resolutionrequests', '-n', PAC_NAMESPACE]);
  const left = await remainingLeftovers(controlPlane.kubeConfig());
  checkLeftovers(leftovers, afterLive, left);
  say(`${INDENT}As expected: what the running run uses or may still read is kept, the rest is gone. keep is the`);
  say(`${INDENT}default; purge frees the volumes of finished runs' claims before the runs themselves are pruned.`);
  say();
}

/** The leftovers under the run that made each, one line each. */
function describeLeftovers(leftovers: readonly Leftover[]): string[] {
  const nameOf = (leftover: Leftover): string => `${KUBECTL_KIND[leftover.kind]}/${leftover.name}`;
  const width = Math.max(...leftovers.map((leftover) => nameOf(leftover).length));
  const lines: string[] = [];
  let run = '';
  for (const leftover of leftovers) {
    if (leftover.run !== run) {
      run = leftover.run;
      lines.push(`${INDENT}  ${run}:`);
    }
    lines.push(`${INDENT}    ${nameOf(leftover).padEnd(width)} ${(leftover.size ?? '').padEnd(5)} ${leftover.what.padEnd(43)} => ${leftover.expect}: ${leftover.why}`);
  }
  return lines;
}

const KUBECTL_KIND: Readonly<Record<Leftover['kind'], string>> = { PersistentVolumeClaim: 'pvc', Secret: 'secret', StatefulSet: 'statefulset', ResolutionRequest: 'resolutionrequest' };

/**
 * After the live pass, every claim to delete is Terminating and every other leftover to
 * delete is gone; after the purge, exactly the ones to keep are left.
 */
function checkLeftovers(leftovers: readonly Leftover[], afterLive: LeftoversLeft, left: LeftoversLeft): void {
  const names = (kind: Leftover['kind'], expect?: Leftover['expect']): string[] =>
    leftovers.filter((leftover) => leftover.kind === kind && (expect === undefined || leftover.expect === expect)).map((leftover) => leftover.name).sort();
  const terminating = afterLive.claims.filter((claim) => claim.terminating).map((claim) => claim.name);
  const problems = [
    ...(terminating.join() === names('PersistentVolumeClaim', 'delete').join() ? [] : [`after the live pass, Terminating: ${terminating.join(', ') || 'none'}`]),
    ...(afterLive.secrets.join() === names('Secret', 'keep').join() ? [] : [`after the live pass, Secrets: ${afterLive.secrets.join(', ') || 'none'}`]),
    ...(left.claims.map((claim) => claim.name).join() === names('PersistentVolumeClaim', 'keep').join() ? [] : [`claims left: ${left.claims.map((claim) => claim.name).join(', ') || 'none'}`]),
    ...(left.secrets.join() === names('Secret', 'keep').join() ? [] : [`Secrets left: ${left.secrets.join(', ') || 'none'}`]),
    ...(left.statefulSets.join() === names('StatefulSet', 'keep').join() ? [] : [`StatefulSets left: ${left.statefulSets.join(', ') || 'none'}`]),
    ...(afterLive.requests.join() === names('ResolutionRequest', 'keep').join() ? [] : [`after the live pass, ResolutionRequests: ${afterLive.requests.join(', ') || 'none'}`]),
    ...(left.requests.join() === names('ResolutionRequest', 'keep').join() ? [] : [`ResolutionRequests left: ${left.requests.join(', ') || 'none'}`]),
  ];
  if (problems.length > 0) throw new Error(`the leftovers are not as expected: ${problems.join('; ')}`);
}

async function showKubectl(kubectl: string, args: readonly string[]): Promise<void> {
  say(`${INDENT}$ kubectl ${args.filter((arg, index) => arg !== '--kubeconfig' && args[index - 1] !== '--kubeconfig').join(' ')}`);
  const { stdout } = await promisify(execFile)(kubectl, [...args]);
  say(indent(stdout));
}

/**
 * The young one must still be young when the dry run decides, a CLI start after its
 * creation: three times what one pass took here, and never less than MIN_AGE_SECONDS (a
 * loaded 2-core machine can take 15 s for a pass that takes 2 s on an idle one).
 */
function minAgeFor(passMs: number): number {
  return Math.max(MIN_AGE_SECONDS, Math.ceil((3 * passMs) / 1000));
}

/** One line per entry: its resources, their story, what should happen and why. */
function describe(entry: Entry): string {
  const names = entry.resources.map((resource) => resource.metadata.name).join(' ');
  return `${INDENT}  ${names.padEnd(24)} ${entry.story.padEnd(50)} => ${entry.expect}: ${entry.why}`;
}

/**
 * Runs the CLI; its logs go to `logPath`; shows its whole report or only its summary line;
 * anything but exit 0 ends the demo.
 */
async function pass(args: readonly string[], logPath: string, show: 'report' | 'summary'): Promise<CliResult & { ms: number }> {
  const step = Date.now();
  const result = await runCli(args);
  const ms = Date.now() - step;
  await writeFile(logPath, result.stderr);
  if (result.signal !== null) throw new Error(`tekton-resource-gc was stopped by ${result.signal}`);
  if (result.code !== 0) {
    throw new Error(`tekton-resource-gc ${args.join(' ')} exited ${result.code ?? 'on a signal'}:\n${result.stdout}${result.stderr}`);
  }
  say(indent(show === 'report' ? result.stdout : (result.stdout.trimEnd().split('\n').at(-1) ?? '')));
  say(`${INDENT}(exit status 0, ${seconds(ms)})`);
  return { ...result, ms };
}

async function remaining(seed: Seeder): Promise<string[]> {
  const names: string[] = [];
  for (const namespace of NAMESPACES) names.push(...(await seed.remainingTargets(namespace)).map((name) => `${namespace}/${name}`));
  return names.sort();
}

try {
  await main();
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

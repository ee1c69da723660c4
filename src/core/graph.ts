/**
 * Targets <- the runs that reference or link them, per namespace; leftovers <- the Pods and
 * StatefulSets that hold them. Built once per pass from the compact records with maps keyed
 * by namespace and name (or kind and uid), so a lookup costs the number of runs it returns,
 * never a scan of all runs. The leftovers' maps are built on their first use: a pass over
 * PipelineResources alone builds none of them.
 */
import { ParentNames } from './childnames.js';
import type { HeldBy, LinkSource } from './collectors.js';
import type { HolderFacts } from './facts.js';
import { claimStem } from './holders.js';
import { isRunKindName } from './kinds.js';
import { isActive } from './runs.js';
import type { LinkVia, PodRecord, ReferenceView, RunKindName, RunRecord, RunState, StatefulSetRecord, TargetRecord } from './types.js';

export interface ReferenceGraph {
  /** Runs whose references are unknown and that may sit in `namespace`. */
  unreadableRuns(namespace: string): readonly RunRecord[];
  /** The runs linked to a target through `sources`, and what else its decision reads of them. */
  links(target: TargetRecord, sources: readonly LinkSource[]): Links;
  /** Runs whose leftover links are unknown (or were not read) and that may sit in `namespace`. */
  unreadableLinkRuns(namespace: string): readonly RunRecord[];
  /** The Pods and StatefulSets that hold a target; a StatefulSet whose uid is in `released` is deleted first by this pass. */
  holders(target: TargetRecord, heldBy: HeldBy, released: ReadonlySet<string>): HolderFacts;
}

/** What a target's links say. */
export interface Links {
  /** Runs that exist and link it, each once (as the first source that finds it), sorted by kind then name. */
  linked: readonly ReferenceView[];
  /** Owners no listed run is: by uid for an ownerReference, by name for the label; sorted by kind then name. */
  goneOwners: readonly ReferenceView[];
  /** The owner runs that exist: by ownerReference, else the PipelineRun its label names. */
  ownerRuns: readonly RunRecord[];
  /** Runs that bind it by name in a workspace and are neither an owner nor an owner's child TaskRun. */
  userClaims: readonly ReferenceView[];
  /**
   * Runs that find it by a name Tekton hashed it from and are not its owner (`owner-name`): of an
   * owner's name (a rerun by name, or a run of the other kind), named as a child of an owner, or
   * PipelineRuns whose child would have an owner's name.
   */
  ownerNameRuns: readonly RunRecord[];
}

/** The holder lists of a pass, when a collector on reads them. */
export interface Holders {
  pods?: readonly PodRecord[];
  statefulSets?: readonly StatefulSetRecord[];
}

/** Pod phases after which a Pod uses nothing any more; any other phase, or none, is active. */
const FINISHED_POD_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

/** Lists by namespace, then by a name: maps within maps, so that no key string is made per entry. */
type ByNamespaceName<V> = Map<string, Map<string, V[]>>;

/** The leftovers' indexes, built on first use. */
interface LeftoverIndex {
  pipelineRunsByName: ByNamespaceName<RunRecord>;
  byClaimWorkspace: ByNamespaceName<RunRecord>;
  bySecretWorkspace: ByNamespaceName<RunRecord>;
  byGitAuthSecret: ByNamespaceName<RunRecord>;
  unreadableByNamespace: Map<string, RunRecord[]>;
  unattributed: RunRecord[];
}

interface HolderIndex {
  podsByClaim: ByNamespaceName<PodRecord>;
  podsBySecret: ByNamespaceName<PodRecord>;
  statefulSetsByClaim: ByNamespaceName<StatefulSetRecord>;
  /** By `<template>-<statefulset>`: each names the claim of that stem at every ordinal. */
  statefulSetsByStem: ByNamespaceName<StatefulSetRecord>;
}

/**
 * Runs by kind, then uid: maps within maps rather than one map keyed `kind/uid`, so that no
 * key string is made per run (160,000 of them at the benchmark's 4x).
 */
type RunsByUid = Readonly<Record<RunKindName, Map<string, RunRecord>>>;

/**
 * `ownerNamed`: the targets whose owners' names link runs (`owner-name`), so that only runs of
 * those names are indexed by name, not every run of the pass.
 */
export function buildGraph(runs: readonly RunRecord[], holderLists: Holders = {}, ownerNamed: readonly TargetRecord[] = []): ReferenceGraph {
  const byUid: RunsByUid = { PipelineRun: new Map(), TaskRun: new Map() };
  // By namespace, then the name of the target named: no key string per reference either.
  const bySpecReference = new Map<string, Map<string, RunRecord[]>>();
  const unreadableByNamespace = new Map<string, RunRecord[]>();
  // Runs whose namespace could not be read (namespace ''): they count against every namespace.
  const unattributed: RunRecord[] = [];
  for (const run of runs) {
    if (run.uid !== '') byUid[run.kind].set(run.uid, run);
    if (run.references === null) {
      if (run.namespace === '') unattributed.push(run);
      else append(unreadableByNamespace, run.namespace, run);
      continue;
    }
    if (run.references.length === 0) continue;
    let inNamespace = bySpecReference.get(run.namespace);
    if (inNamespace === undefined) bySpecReference.set(run.namespace, (inNamespace = new Map<string, RunRecord[]>()));
    for (const name of run.references) append(inNamespace, name, run);
  }
  // The decision names the first unreadable run: the same one whatever the order of the list.
  for (const list of [...unreadableByNamespace.values(), unattributed]) list.sort(byKindNameUid);

  const stateOf = (run: RunRecord): RunState => effectiveState(run, byUid);
  const view = (run: RunRecord, via: ReferenceView['via']): ReferenceView => ({
    kind: run.kind,
    name: run.name,
    state: stateOf(run),
    ...(run.finishedAt !== undefined && { finishedAt: run.finishedAt }),
    via,
  });

  let leftoverIndex: LeftoverIndex | undefined;
  const leftovers = (): LeftoverIndex => (leftoverIndex ??= indexLeftoverLinks(runs));
  let holderIndex: HolderIndex | undefined;
  const holdersIn = (): HolderIndex => (holderIndex ??= indexHolders(holderLists));
  let nameIndex: ByNamespaceName<RunRecord> | undefined;
  const byOwnerName = (): ByNamespaceName<RunRecord> => (nameIndex ??= indexRunsByOwnerName(runs, ownerNamed));
  let familyIndex: FamilyIndex | undefined;
  const family = (): FamilyIndex => (familyIndex ??= indexRunsByFamilyName(runs, ownerNamed));

  return {
    unreadableRuns(namespace) {
      const here = unreadableByNamespace.get(namespace) ?? [];
      return unattributed.length === 0 ? here : [...here, ...unattributed];
    },
    links(target, sources) {
      const found = new LinkCollector(target);
      for (const source of sources) {
        switch (source) {
          case 'resource-binding':
            found.add(bySpecReference.get(target.namespace)?.get(target.name), 'spec');
            break;
          case 'owner-reference':
            found.addOwnerReferences(byUid);
            break;
          case 'pipelinerun-label':
            found.addLabelOwner(leftovers().pipelineRunsByName);
            break;
          case 'git-auth-annotation':
            found.add(lookup(leftovers().byGitAuthSecret, target), 'annotation');
            break;
          case 'claim-workspace':
            found.addClaims(lookup(leftovers().byClaimWorkspace, target));
            break;
          case 'secret-workspace':
            found.add(lookup(leftovers().bySecretWorkspace, target), 'workspace');
            break;
          case 'owner-name':
            found.addOwnerNames(byOwnerName());
            found.addOwnerFamily(family(), byUid);
            break;
        }
      }
      return found.result(view);
    },
    unreadableLinkRuns(namespace) {
      const { unreadableByNamespace: byNamespace, unattributed: everywhere } = leftovers();
      const here = byNamespace.get(namespace) ?? [];
      return everywhere.length === 0 ? here : [...here, ...everywhere];
    },
    holders(target, heldBy, released) {
      const index = holdersIn();
      const pods = heldBy.pods === undefined ? [] : lookup(heldBy.pods === 'claims' ? index.podsByClaim : index.podsBySecret, target) ?? [];
      const statefulSets = heldBy.statefulSets === true ? statefulSetsNaming(index, target) : [];
      return {
        activePods: pods.filter((pod) => pod.phase === undefined || !FINISHED_POD_PHASES.has(pod.phase)).sort(byName),
        statefulSets: statefulSets.filter((sts) => !released.has(sts.uid)).sort(byName),
        released: statefulSets.filter((sts) => released.has(sts.uid)).sort(byName),
      };
    },
  };
}

/**
 * The runs found linked to one target, each once, as the first source found it; its owners,
 * existing and gone; and the runs that claim it by name without being its owner's.
 */
class LinkCollector {
  private readonly found = new Map<RunRecord, LinkVia>();
  private readonly owners: RunRecord[] = [];
  private readonly gone: ReferenceView[] = [];
  /** uids of its owners by ownerReference, existing or gone: their child TaskRuns are theirs. */
  private readonly ownerUids = new Set<string>();
  /** The PipelineRun its label names, when the label is what names its owner. */
  private labelOwner: string | undefined;
  private claimants: RunRecord[] = [];
  private readonly ownerNamed: RunRecord[] = [];

  constructor(private readonly target: TargetRecord) {}

  add(runs: readonly RunRecord[] | undefined, via: LinkVia): void {
    for (const run of runs ?? []) if (!this.found.has(run)) this.found.set(run, via);
  }

  /** Owners by kind and uid (name and version ignored); ownerReferences never cross namespaces. */
  addOwnerReferences(byUid: RunsByUid): void {
    for (const owner of this.target.ownerReferences) {
      if (!isRunKindName(owner.kind)) continue;
      this.ownerUids.add(owner.uid);
      const run = byUid[owner.kind].get(owner.uid);
      if (run !== undefined && run.namespace === this.target.namespace) {
        this.add([run], 'ownerReference');
        if (!this.owners.includes(run)) this.owners.push(run);
      } else {
        this.addGone(owner.kind, owner.name, 'ownerReference');
      }
    }
  }

  /**
   * The `tekton.dev/pipelineRun` label: a link to the PipelineRun of that name. It names the
   * owner only when no ownerReference does (an affinity-assistant claim); with one (a
   * StatefulSet), a run of the label's name and another uid is another run, linked but not
   * the owner.
   */
  addLabelOwner(pipelineRunsByName: ByNamespaceName<RunRecord>): void {
    const name = this.target.leftover?.pipelineRunLabel;
    if (name === undefined) return;
    const runs = pipelineRunsByName.get(this.target.namespace)?.get(name) ?? [];
    this.add(runs, 'label');
    if (this.target.ownerReferences.some((owner) => isRunKindName(owner.kind))) return;
    this.labelOwner = name;
    if (runs.length === 0) this.addGone('PipelineRun', name, 'label');
    for (const run of runs) if (!this.owners.includes(run)) this.owners.push(run);
  }

  /**
   * Runs of either kind named as one of its owner runs, but not that owner (another uid, or the
   * other kind). Tekton names what it makes for a run after the run's name and reuses an object
   * of that name whoever owns it (docs/spec.md, "Reruns by name"), so such a run reads it.
   */
  addOwnerNames(runsByName: ByNamespaceName<RunRecord>): void {
    for (const owner of this.target.ownerReferences) {
      if (!isRunKindName(owner.kind)) continue;
      for (const run of runsByName.get(this.target.namespace)?.get(owner.name) ?? []) {
        if ((run.kind === owner.kind && run.uid === owner.uid) || this.found.has(run)) continue;
        this.add([run], 'ownerName');
        this.ownerNamed.push(run);
      }
    }
  }

  /**
   * The runs that find it by a name a child of Tekton's hashes it from (docs/spec.md, "Reruns by
   * name"): a request a PipelineRun owns may be named after one of its child runs (a task's
   * taskRef is resolved under the child TaskRun's name), so a run named as such a child reads it;
   * and a request a child run owns is read by the child of that name a rerun of its PipelineRun
   * makes, so a PipelineRun whose child would have the owner's name reads it. Not linked: a
   * PipelineRun owner's children, where a run of the owner's name released the request (it is that
   * run's own pipelineRef's, named after the owner's name alone); the owner's own parent, whose
   * child it is (it links through that child).
   */
  addOwnerFamily(index: FamilyIndex, byUid: RunsByUid): void {
    const inNamespace = index.get(this.target.namespace);
    if (inNamespace === undefined) return;
    const ownNamed = [...this.owners, ...this.ownerNamed].some((run) => run.releasedRequest === this.target.name);
    for (const owner of this.target.ownerReferences) {
      if (!isRunKindName(owner.kind)) continue;
      if (owner.kind === 'PipelineRun' && !ownNamed) this.addFamily(inNamespace.children.get(owner.name), 'ownerChildName');
      const parentUid = byUid[owner.kind].get(owner.uid)?.parentPipelineRun?.uid;
      const parents = inNamespace.pipelineRuns.parentsOf(owner.name).flatMap((name) => inNamespace.pipelineRunsByName.get(name) ?? []);
      this.addFamily(
        parents.filter((run) => run.uid !== parentUid),
        'ownerParentName',
      );
    }
  }

  private addFamily(runs: readonly RunRecord[] | undefined, via: LinkVia): void {
    for (const run of runs ?? []) {
      if (this.found.has(run) || this.ownerUids.has(run.uid)) continue;
      this.add([run], via);
      this.ownerNamed.push(run);
    }
  }

  /** Runs that bind the claim in a `persistentVolumeClaim` workspace: links, and user claims unless the owner's. */
  addClaims(runs: readonly RunRecord[] | undefined): void {
    this.add(runs, 'workspace');
    this.claimants = [...(runs ?? [])];
  }

  private addGone(kind: RunKindName, name: string, via: LinkVia): void {
    if (!this.gone.some((ref) => ref.kind === kind && ref.name === name)) this.gone.push({ kind, name, state: 'gone', via });
  }

  /** Whether `run` is an owner of the target, or a TaskRun of an owner PipelineRun (it is bound to its parent's claim). */
  private isOwners(run: RunRecord): boolean {
    if (this.ownerUids.has(run.uid) || this.owners.includes(run)) return true;
    if (this.labelOwner !== undefined && run.kind === 'PipelineRun' && run.name === this.labelOwner) return true;
    const parent = run.parentPipelineRun;
    if (parent === undefined) return false;
    return this.ownerUids.has(parent.uid) || (this.labelOwner !== undefined && parent.name === this.labelOwner);
  }

  result(view: (run: RunRecord, via: LinkVia) => ReferenceView): Links {
    // Owners are known once every source is read: a claimant is judged against all of them.
    const userClaims = this.claimants.filter((run) => !this.isOwners(run));
    return {
      linked: [...this.found].map(([run, via]) => view(run, via)).sort(byKindThenName),
      goneOwners: [...this.gone].sort(byKindThenName),
      ownerRuns: this.owners,
      userClaims: userClaims.map((run) => view(run, 'workspace')).sort(byKindThenName),
      ownerNameRuns: this.ownerNamed,
    };
  }
}

function lookup<V>(index: ByNamespaceName<V>, target: TargetRecord): V[] | undefined {
  return index.get(target.namespace)?.get(target.name);
}

function indexLeftoverLinks(runs: readonly RunRecord[]): LeftoverIndex {
  const index: LeftoverIndex = {
    pipelineRunsByName: new Map(),
    byClaimWorkspace: new Map(),
    bySecretWorkspace: new Map(),
    byGitAuthSecret: new Map(),
    unreadableByNamespace: new Map(),
    unattributed: [],
  };
  for (const run of runs) {
    // A run read without the leftovers option links what nobody knows: as unreadable as a wrong shape.
    if (run.leftoverProblems === undefined || run.leftoverProblems.length > 0) {
      if (run.namespace === '') index.unattributed.push(run);
      else append(index.unreadableByNamespace, run.namespace, run);
    }
    if (run.namespace === '') continue;
    if (run.kind === 'PipelineRun' && run.name !== '') appendIn(index.pipelineRunsByName, run.namespace, run.name, run);
    // The annotation is Pipelines-as-Code's, on the PipelineRun it creates (a child TaskRun's copy adds nothing).
    if (run.kind === 'PipelineRun' && run.gitAuthSecret !== undefined) appendIn(index.byGitAuthSecret, run.namespace, run.gitAuthSecret, run);
    for (const claim of run.workspaces?.claims ?? []) appendIn(index.byClaimWorkspace, run.namespace, claim, run);
    for (const secret of run.workspaces?.secrets ?? []) appendIn(index.bySecretWorkspace, run.namespace, secret, run);
  }
  for (const list of [...index.unreadableByNamespace.values(), index.unattributed]) list.sort(byKindNameUid);
  return index;
}

/**
 * The runs, of either kind, named as a run that owns one of `targets`, by namespace and name.
 * Only those names: a pass lists tens of thousands of runs, and few share a name with an owner.
 */
/**
 * The names of a target's run owners (`owner-name`): a run of either kind by one of these
 * names in the target's namespace reads it, whatever its uid (a rerun by name).
 */
function runOwnerNames(target: Pick<TargetRecord, 'ownerReferences'>): string[] {
  return [...new Set(target.ownerReferences.filter((owner) => isRunKindName(owner.kind)).map((owner) => owner.name))];
}

function indexRunsByOwnerName(runs: readonly RunRecord[], targets: readonly TargetRecord[]): ByNamespaceName<RunRecord> {
  const wanted = new Map<string, Set<string>>();
  for (const target of targets) {
    for (const name of runOwnerNames(target)) {
      let names = wanted.get(target.namespace);
      if (names === undefined) wanted.set(target.namespace, (names = new Set()));
      names.add(name);
    }
  }
  const index: ByNamespaceName<RunRecord> = new Map();
  for (const run of runs) {
    if (run.name !== '' && wanted.get(run.namespace)?.has(run.name) === true) appendIn(index, run.namespace, run.name, run);
  }
  return index;
}

/** Per namespace: the runs named as a child of a PipelineRun owner, by that owner's name; every PipelineRun, by name and as parents. */
type FamilyIndex = Map<string, { children: Map<string, RunRecord[]>; pipelineRuns: ParentNames; pipelineRunsByName: Map<string, RunRecord[]> }>;

/**
 * The family names of the `owner-name` targets' namespaces (addOwnerFamily). Built only where
 * such targets are: every run there is matched against the PipelineRun owners' names.
 */
function indexRunsByFamilyName(runs: readonly RunRecord[], targets: readonly TargetRecord[]): FamilyIndex {
  const owners = new Map<string, ParentNames>();
  for (const target of targets) {
    let names = owners.get(target.namespace);
    if (names === undefined) owners.set(target.namespace, (names = new ParentNames()));
    for (const owner of target.ownerReferences) if (owner.kind === 'PipelineRun') names.add(owner.name);
  }
  const index: FamilyIndex = new Map();
  for (const run of runs) {
    const ownerNames = owners.get(run.namespace);
    if (ownerNames === undefined || run.name === '') continue;
    let entry = index.get(run.namespace);
    if (entry === undefined) index.set(run.namespace, (entry = { children: new Map(), pipelineRuns: new ParentNames(), pipelineRunsByName: new Map() }));
    if (run.kind === 'PipelineRun') {
      entry.pipelineRuns.add(run.name);
      append(entry.pipelineRunsByName, run.name, run);
    }
    if (ownerNames.size > 0) for (const parent of ownerNames.parentsOf(run.name)) append(entry.children, parent, run);
  }
  return index;
}

function indexHolders(lists: Holders): HolderIndex {
  const index: HolderIndex = { podsByClaim: new Map(), podsBySecret: new Map(), statefulSetsByClaim: new Map(), statefulSetsByStem: new Map() };
  for (const pod of lists.pods ?? []) {
    for (const claim of pod.claims) appendIn(index.podsByClaim, pod.namespace, claim, pod);
    for (const secret of pod.secrets) appendIn(index.podsBySecret, pod.namespace, secret, pod);
  }
  for (const sts of lists.statefulSets ?? []) {
    for (const claim of sts.claims) appendIn(index.statefulSetsByClaim, sts.namespace, claim, sts);
    for (const stem of sts.claimStems) appendIn(index.statefulSetsByStem, sts.namespace, stem, sts);
  }
  return index;
}

/** The StatefulSets that name a claim: by a mount of its name, or by a template whose stem it has (any ordinal); each once. */
function statefulSetsNaming(index: HolderIndex, target: TargetRecord): StatefulSetRecord[] {
  const mounting = lookup(index.statefulSetsByClaim, target) ?? [];
  const stem = claimStem(target.name);
  const templating = stem === undefined ? [] : (index.statefulSetsByStem.get(target.namespace)?.get(stem) ?? []);
  if (templating.length === 0) return mounting;
  return [...new Set([...mounting, ...templating])];
}

/**
 * A run's state once its parents are taken into account: a child TaskRun is finished only
 * while its PipelineRun is finished or gone, because before v0.43 a PipelineRun retrying a
 * task reset a failed child to Unknown (docs/spec.md, "Finished run"); and a child
 * (pipeline-in-pipeline) PipelineRun and what it owns are finished only while every
 * PipelineRun above them is, at any depth. A loop of owners (never made by Tekton) ends the walk.
 */
function effectiveState(run: RunRecord, byUid: RunsByUid): RunState {
  if (isActive(run.state)) return run.state;
  let parent = parentOf(run, byUid);
  if (parent === undefined) return run.state;
  if (isActive(parent.state)) return 'running';
  // Deeper only for a child PipelineRun's own children: most runs stop above, with no set made.
  const seen = new Set<string>([run.uid, parent.uid]);
  for (parent = parentOf(parent, byUid); parent !== undefined && !seen.has(parent.uid); parent = parentOf(parent, byUid)) {
    if (isActive(parent.state)) return 'running';
    seen.add(parent.uid);
  }
  return run.state;
}

/** The parent run that exists: same uid (a recreated parent of the same name is another object) and same namespace. */
function parentOf(run: RunRecord, byUid: RunsByUid): RunRecord | undefined {
  if (run.parentPipelineRun === undefined) return undefined;
  const parent = byUid.PipelineRun.get(run.parentPipelineRun.uid);
  return parent?.namespace === run.namespace ? parent : undefined;
}

/** ownerReferences of the target that point at a run that still exists (kind + uid); a gone owner names nothing. */
function byKindNameUid(a: RunRecord, b: RunRecord): number {
  return compareText(a.kind, b.kind) || compareText(a.name, b.name) || compareText(a.uid, b.uid);
}

function byKindThenName(a: ReferenceView, b: ReferenceView): number {
  return compareText(a.kind, b.kind) || compareText(a.name, b.name);
}

export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Up to this length a list grows by an exact copy. Most lists hold one or two entries (the
 * runs that name one target), and `push` gives an array room for 16 more (V8 grows it by half
 * plus 16): about 210 bytes for a list of two against 75 copied, at tens of thousands of lists
 * (40,000 at the benchmark's 4x). Longer lists grow by `push`, so copying stays cheap.
 */
const LISTS_COPIED_UP_TO = 8;

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (list.length < LISTS_COPIED_UP_TO) map.set(key, list.concat([value]));
  else list.push(value);
}

function appendIn<V>(index: ByNamespaceName<V>, namespace: string, name: string, value: V): void {
  let inNamespace = index.get(namespace);
  if (inNamespace === undefined) index.set(namespace, (inNamespace = new Map<string, V[]>()));
  append(inNamespace, name, value);
}

function byName(a: { name: string }, b: { name: string }): number {
  return compareText(a.name, b.name);
}

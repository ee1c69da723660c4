/**
 * The collectors, as data: what each deletes (its kind and API), which objects are its
 * targets (its marker, in toRecord), what links runs to them and what holds them, and the rows
 * of its decision table in order. Adding a collector is adding an entry here; decide(), the
 * graph and the adapters read the entries and have no branch per kind.
 * (docs/spec.md, "The decision" for PipelineResources, "Leftovers" for the others.)
 */
import type { Rule } from './facts.js';
import { RUN_KINDS, TARGET_KIND, type ApiKind } from './kinds.js';
import { AFFINITY_ASSISTANT_COMPONENT, COMPONENT_LABEL, MANAGED_BY_LABEL, PAC_MANAGED_BY, RESOLVER_TYPE_LABEL } from './labels.js';
import { toClaimTarget, toPacSecretTarget, toResolutionRequestTarget, toStatefulSetTarget } from './markers.js';
import {
  inUseByPod,
  inUseByStatefulSet,
  namespaceRetained,
  ownerGone,
  referencedByActiveRun,
  resolutionStored,
  retained,
  retainFor,
  retainUntil,
  retentionInvalid,
  runsFinished,
  tooYoung,
  unreadableRun,
  userClaimed,
} from './rules.js';
import { toTargetRecord } from './runs.js';
import { toRunTargetRecord } from './runtargets.js';
import { LEFTOVER_REASONS, REASONS, RESOLUTION_REASONS, RUN_REASONS, type Reason, type RunKindName, type TargetKindName, type TargetRecord } from './types.js';

export type { TargetKindName } from './types.js';

/**
 * Every collector, in the order a pass deletes: a StatefulSet before the claim it names, and
 * runs last, after what they leave behind was decided while they still existed.
 */
export const COLLECTOR_NAMES = ['pipelineresources', 'affinity-assistants', 'pac-secrets', 'workspace-pvcs', 'resolution-requests', 'pipelineruns', 'taskruns'] as const;
export type CollectorName = (typeof COLLECTOR_NAMES)[number];

/** The collectors a pass runs when `--collect` is not given: PipelineResources only, as before leftovers existed. */
export const DEFAULT_COLLECTORS: readonly CollectorName[] = ['pipelineresources'];

/**
 * Where a run, or the target itself, links the two:
 * - `resource-binding`: a PipelineResource binding in the run's spec (kinds.ts);
 * - `owner-reference`: the target's ownerReference to the run (kind and uid);
 * - `pipelinerun-label`: the target's `tekton.dev/pipelineRun` label, a PipelineRun by name;
 * - `git-auth-annotation`: the PipelineRun's `pipelinesascode.tekton.dev/git-auth-secret`;
 * - `claim-workspace`, `secret-workspace`: a run's `spec.workspaces[].persistentVolumeClaim.claimName`
 *   or `.secret.secretName`;
 * - `owner-name`: a run of either kind, in the target's namespace, whose name is that of a run
 *   the target's ownerReferences name, whatever its uid: Tekton names a ResolutionRequest after
 *   the run's name and reuses one of that name whoever owns it, so a rerun by name reads its
 *   predecessor's (docs/spec.md, "Reruns by name").
 */
export type LinkSource = 'resource-binding' | 'owner-reference' | 'pipelinerun-label' | 'git-auth-annotation' | 'claim-workspace' | 'secret-workspace' | 'owner-name';

/** What may hold a target (rules 7 and 8): Pods through their claims or their Secrets, StatefulSets through their claims. */
export interface HeldBy {
  pods?: 'claims' | 'secrets';
  statefulSets?: boolean;
}

export interface Collector {
  name: CollectorName;
  kind: TargetKindName;
  /**
   * How its targets are decided: each alone by the rows of its table (`rules`, decide.ts), or
   * (`history`) all of its kind together, by their history per group (history.ts). A `history`
   * collector's targets are the listed runs themselves: they are read from the pass's one run
   * listing (not listed again), and `rules`, `links` and `heldBy` are empty.
   */
  decides: 'rules' | 'history';
  /** What it collects, as `--help` says it after its name, e.g. `(PipelineResources)`. */
  describes: string;
  /** The KIND word of `explain KIND/NAMESPACE/NAME`. */
  explainWord: string;
  /** Where it is listed and deleted. */
  api: ApiKind;
  /** Listed as PartialObjectMetadataList, never as full objects (Secrets: their data is never read). */
  metadataOnly: boolean;
  /** ANDed with --selector by the adapter: the part of the marker the API server can select on. */
  listLabelSelector?: string;
  /** Null: no marker (not a target, not reported). Throws UnreadableObjectError on a marked object, or one whose marker cannot be read, of an unexpected shape. */
  toRecord: (obj: unknown) => TargetRecord | null;
  /** The rows of its decision table that apply to it, in order; the first verdict wins, and what is left is `unreferenced`. */
  rules: readonly Rule[];
  /** The documented table its rows are numbered by (explain's "rule N"). */
  table: readonly Reason[];
  /** Where runs link to its targets, in the order a run found twice is shown. */
  links: readonly LinkSource[];
  /**
   * Whether its targets have an owner run that counts: a gone owner is a fact of the decision
   * (leftovers' rule 13) and `retain` on an owner that exists retains it (rule 1). A
   * PipelineResource's gone owner leaves no trace.
   */
  ownerRun: boolean;
  /**
   * Whether an owner run that stored what it resolved through a target releases it before it
   * finishes (a ResolutionRequest's, resolution.ts): its runs' `releasedRequest` is read.
   */
  releasedByStoredSpec: boolean;
  /** Which run problems make its targets' namespace unreadable: PipelineResource references, or leftover links. */
  runProblems: 'references' | 'links';
  heldBy: HeldBy;
  /** The holders this collector's rules read: the adapter lists Pods and StatefulSets only for a collector that reads them. */
  reads: { pods: boolean; statefulSets: boolean };
  /**
   * Whether a rerun by name of its owner finds its targets by name, and so which runs the delete
   * phase reads right before each DELETE (core/reruns.ts, docs/spec.md "Reruns by name"); none
   * when no rerun finds them by name.
   */
  rerunFinds?: RerunFinds;
}

/**
 * The runs a rerun by name would be, for a target found by name: of an owner's name (`owner`,
 * of these kinds), of its `tekton.dev/pipelineRun` label's name (`label`, a PipelineRun), and
 * the PipelineRuns whose child run would have an owner's name (`parents`).
 */
export interface RerunFinds {
  owner: readonly RunKindName[];
  label: boolean;
  parents: boolean;
}

/** The leftovers' table (docs/spec.md, "Leftovers"); rows 5, 7 and 8 apply to some kinds only. */
const LEFTOVER_TABLE: readonly Reason[] = LEFTOVER_REASONS;

/** Rules 1-4 of the leftovers' table, shared by every leftover kind. */
const LEFTOVER_KEEPS: readonly Rule[] = [retained, namespaceRetained, retentionInvalid, unreadableRun];
/** Rules 9-13 of the leftovers' table, shared by every leftover kind (14 is what is left). */
const LEFTOVER_TIME_AND_RUNS: readonly Rule[] = [tooYoung, retainUntil, retainFor, runsFinished, ownerGone];

function reads(heldBy: HeldBy): Collector['reads'] {
  return { pods: heldBy.pods !== undefined, statefulSets: heldBy.statefulSets === true };
}

const CLAIM_HELD_BY: HeldBy = { pods: 'claims', statefulSets: true };
const SECRET_HELD_BY: HeldBy = { pods: 'secrets' };

export const COLLECTORS: Readonly<Record<CollectorName, Collector>> = {
  pipelineresources: {
    name: 'pipelineresources',
    kind: 'PipelineResource',
    decides: 'rules',
    describes: 'PipelineResources',
    explainWord: 'pipelineresource',
    api: TARGET_KIND,
    metadataOnly: false,
    toRecord: toTargetRecord,
    rules: [retained, namespaceRetained, retentionInvalid, unreadableRun, referencedByActiveRun, tooYoung, retainUntil, retainFor, runsFinished],
    table: REASONS,
    links: ['resource-binding', 'owner-reference'],
    ownerRun: false,
    releasedByStoredSpec: false,
    runProblems: 'references',
    heldBy: {},
    reads: reads({}),
  },
  'affinity-assistants': {
    name: 'affinity-assistants',
    decides: 'rules',
    kind: 'StatefulSet',
    describes: 'the StatefulSets of affinity assistants',
    explainWord: 'statefulset',
    api: { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet' },
    metadataOnly: false,
    listLabelSelector: `${COMPONENT_LABEL}=${AFFINITY_ASSISTANT_COMPONENT}`,
    toRecord: toStatefulSetTarget,
    // Rules 7 and 8 do not apply: its own Pod uses its claim by design, and nothing names a StatefulSet.
    rules: [...LEFTOVER_KEEPS, referencedByActiveRun, ...LEFTOVER_TIME_AND_RUNS],
    table: LEFTOVER_TABLE,
    links: ['owner-reference', 'pipelinerun-label'],
    ownerRun: true,
    releasedByStoredSpec: false,
    runProblems: 'links',
    heldBy: {},
    reads: reads({}),
    // Named after the workspace and the PipelineRun's name, got by that name and used as it is
    // (tektoncd/pipeline pkg/reconciler/pipelinerun/affinity_assistant.go:101, :112, :118, :145-176, :292-296).
    rerunFinds: { owner: ['PipelineRun'], label: true, parents: false },
  },
  'pac-secrets': {
    name: 'pac-secrets',
    decides: 'rules',
    kind: 'Secret',
    describes: 'the pac-gitauth-* Secrets of Pipelines-as-Code, read as metadata only, never their data',
    explainWord: 'secret',
    api: { group: '', version: 'v1', plural: 'secrets', kind: 'Secret' },
    metadataOnly: true,
    listLabelSelector: `${MANAGED_BY_LABEL} in (${PAC_MANAGED_BY.join(',')})`,
    toRecord: toPacSecretTarget,
    // Rule 5 is for claims, rule 8 for what a StatefulSet names: neither applies to a Secret.
    rules: [...LEFTOVER_KEEPS, referencedByActiveRun, inUseByPod, ...LEFTOVER_TIME_AND_RUNS],
    table: LEFTOVER_TABLE,
    links: ['owner-reference', 'git-auth-annotation', 'secret-workspace'],
    ownerRun: true,
    releasedByStoredSpec: false,
    runProblems: 'links',
    heldBy: SECRET_HELD_BY,
    reads: reads(SECRET_HELD_BY),
    // A random name per run, but a rerun by name made from its predecessor's object names it in its
    // workspaces and its git-auth annotation, and its Pods mount it by that name.
    rerunFinds: { owner: ['PipelineRun'], label: false, parents: false },
  },
  'workspace-pvcs': {
    name: 'workspace-pvcs',
    decides: 'rules',
    kind: 'PersistentVolumeClaim',
    describes: "PersistentVolumeClaims Tekton made for a run's workspaces or its affinity assistant",
    explainWord: 'pvc',
    api: { group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' },
    metadataOnly: false,
    toRecord: toClaimTarget,
    rules: [...LEFTOVER_KEEPS, userClaimed, referencedByActiveRun, inUseByPod, inUseByStatefulSet, ...LEFTOVER_TIME_AND_RUNS],
    table: LEFTOVER_TABLE,
    links: ['owner-reference', 'pipelinerun-label', 'claim-workspace'],
    ownerRun: true,
    releasedByStoredSpec: false,
    runProblems: 'links',
    heldBy: CLAIM_HELD_BY,
    reads: reads(CLAIM_HELD_BY),
  },
  'resolution-requests': {
    name: 'resolution-requests',
    decides: 'rules',
    kind: 'ResolutionRequest',
    describes: 'the ResolutionRequests of remote pipelineRefs, taskRefs and StepActions, read as metadata only',
    explainWord: 'resolutionrequest',
    api: { group: 'resolution.tekton.dev', version: 'v1beta1', plural: 'resolutionrequests', kind: 'ResolutionRequest' },
    // Its status.data is the whole resolved YAML: never listed.
    metadataOnly: true,
    listLabelSelector: RESOLVER_TYPE_LABEL,
    toRecord: toResolutionRequestTarget,
    // Only the run that asked holds a request: no claim, no Pod, no StatefulSet.
    rules: [...LEFTOVER_KEEPS, referencedByActiveRun, tooYoung, retainUntil, retainFor, resolutionStored, runsFinished, ownerGone],
    table: RESOLUTION_REASONS,
    links: ['owner-reference', 'owner-name'],
    ownerRun: true,
    releasedByStoredSpec: true,
    runProblems: 'links',
    heldBy: {},
    reads: reads({}),
    // Named after `<namespace>/<run name>` and got by that name whoever owns it
    // (pkg/resolution/resource/name.go:57-76, pkg/remoteresolution/resource/crd_resource.go:52-82),
    // a child's name for a PipelineRun's tasks and the child's StepActions (core/childnames.ts).
    rerunFinds: { owner: ['PipelineRun', 'TaskRun'], label: false, parents: true },
  },
  pipelineruns: runCollector('pipelineruns', 'PipelineRun', 'finished PipelineRuns, by history per Pipeline and age', 'pipelinerun'),
  taskruns: runCollector('taskruns', 'TaskRun', 'finished standalone TaskRuns (one a PipelineRun owns goes with it), by history per Task and age', 'taskrun'),
};

/**
 * A run collector (docs/spec.md, "Runs"): its targets are the runs the pass lists anyway, and
 * their version is the one the run listing reads through (kube/cluster.ts discover); `api`
 * names v1, as an Event's regarding object does.
 */
function runCollector(name: CollectorName, kind: 'PipelineRun' | 'TaskRun', describes: string, explainWord: string): Collector {
  return {
    name,
    kind,
    decides: 'history',
    describes,
    explainWord,
    api: { group: RUN_KINDS[kind].group, version: 'v1', plural: RUN_KINDS[kind].plural, kind },
    metadataOnly: false,
    toRecord: (obj) => toRunTargetRecord(obj, kind),
    rules: [],
    table: RUN_REASONS,
    links: [],
    ownerRun: false,
    releasedByStoredSpec: false,
    runProblems: 'references',
    heldBy: {},
    reads: reads({}),
  };
}

const BY_KIND: ReadonlyMap<TargetKindName, Collector> = new Map(Object.values(COLLECTORS).map((collector) => [collector.kind, collector]));

/** The collector of a target kind: one each. */
export function collectorOf(kind: TargetKindName): Collector {
  const collector = BY_KIND.get(kind);
  // Every TargetKindName has an entry: decide.test.ts ("the collectors, as data") checks it.
  if (collector === undefined) throw new Error(`no collector deletes ${kind}`);
  return collector;
}

export function isCollectorName(name: string): name is CollectorName {
  return (COLLECTOR_NAMES as readonly string[]).includes(name);
}

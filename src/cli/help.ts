import { EXPLAIN_KIND_WORDS } from './config.js';
import { FLAG_NAMES, envVarName, flagSpec, shownDefault, wrapped, type FlagName } from './flags.js';

const INDENT = '      ';

/** A flag as its row in src/cli/flags.ts gives it: the heading, its help, its variable and its default or, without one, an example. */
function flagSection(flag: FlagName): string {
  const spec = flagSpec(flag);
  const heading = `  --${flag}${spec.value === undefined ? '' : ` ${spec.value}`}`;
  const shown = shownDefault(flag);
  const usage = shown === undefined ? `e.g. ${spec.example}` : `default: ${shown}`;
  return [heading, ...spec.help.map((line) => INDENT + line), `${INDENT}(env ${envVarName(flag)}; ${usage})`].join('\n');
}

/** The KIND words of explain, the default first: `pipelineresource (the default), pvc, ... or secret`. */
function explainKindsHelp(): string {
  const [first = '', ...others] = EXPLAIN_KIND_WORDS;
  const last = others.pop();
  return `${[`${first} (the default)`, ...others].join(', ')}${last === undefined ? '' : ` or ${last}`}`;
}

/** The --help text: usage, every flag with its variable and default, labels, exit codes, examples. */
export function helpText(): string {
  return `tekton-resource-gc: deletes Tekton PipelineResources whose referencing runs are all
finished or gone, and with --collect what runs leave behind (its collectors are listed under
--collect below).

Usage:
  tekton-resource-gc [run] [flags]
  tekton-resource-gc explain [KIND/]NAMESPACE/NAME [--plan PATH] [flags]
  tekton-resource-gc apply PATH [flags]

  run (the default) makes one pass: it lists the targets of each collector (--collect), then
  PipelineRuns and TaskRuns (and the Pods and StatefulSets that may use a PVC or Secret),
  decides for each target, deletes the collectable ones, prints a report and exits (or, with
  --schedule, waits for the next tick).

  explain says what a pass would decide for one target now, and why: the rule, every run
  that links it, its retention labels and when they end, and when it would become
  collectable if nothing changed. It reads only that object, the runs (and Pods and
  StatefulSets) of its namespace and the namespace, and takes the flags the decision depends
  on (--min-age, --retain-for, --label-prefix, the scope), --output text or json, and the
  connection flags. A PipelineRun or standalone TaskRun is decided with the runs of its
  namespace, as a pass decides it: its group, its place in it, the history limit and run TTL
  with where each was set, and when it would go; it takes the runs' flags too (--keep,
  --keep-successful, --keep-failed, --run-ttl, --group-by, --require-results-stored), and
  --collect: its TaskRuns and, for the collectors named, the targets that would go with it
  are read as a pass reads them, and the run decided as that pass decides it.
${wrapped(`KIND is ${explainKindsHelp()}.`)
  .map((line) => `  ${line}`)
  .join('\n')}

  apply makes one live pass from a plan that a dry run wrote with --plan-file: it deletes at
  most what the plan lists, each only if it is still the same object (uid and
  resourceVersion) and a fresh decision with the plan's settings still deletes it; every
  safety rule of a live pass holds. Changed objects are reported changed, vanished ones
  gone, needed ones kept. A plan for another cluster, edited after it was written, older
  than --plan-max-age or not the --plan-digest given is refused (exit 2). Scope and rule
  flags are the plan's: one given with another value is refused.

Flags:
${FLAG_NAMES.map(flagSection).join('\n')}
  -h, --help
      Show this text.
  --version
      Print the version.

Environment:
  Every flag can be set by the variable shown (repeatable flags: a comma-separated list).
  A flag on the command line wins over its variable. An empty variable counts as unset.
  A TRGC_ variable that names no flag is an error, but for the service-link variables
  Kubernetes injects for a Service named trgc-... (TRGC_..._SERVICE_HOST, TRGC_..._PORT...).
  KUBECONFIG is read as kubectl reads it.

Labels and annotations on a target (label first, then annotation of the same key):
  <prefix>/retain: "true"         keep it (on a Namespace, as a label: keep all in it; on a
                                  run, keep the leftovers it owns)
  <prefix>/retain-until: DATE     keep it until then, e.g. 2026-12-31 or 2026-12-31T18:00:00Z
  <prefix>/retain-for: DURATION   keep it this long after its last run finished, or forever

Exit status:
  0  the pass ran as planned (nothing to do counts)
  1  it could not run and deleted nothing (API unreachable, a list failed, RBAC missing, the
     re-check before the first delete failed, SIGTERM while reading, an unwritable report file)
  2  bad usage or configuration (a plan apply refuses included), said in one line
  3  it ran, but not as planned: some deletions failed, --max-deletions or
     --max-deletions-per-kind stopped it, SIGTERM in the delete phase, a re-check failed after
     deletes began, or the report file could not be written after something was deleted

Examples:
  # See what would be deleted, without deleting
  tekton-resource-gc --dry-run

  # Collect in two namespaces; keep what a run used in the last 3 days
  tekton-resource-gc --namespace ci --namespace team-a --retain-for 3d

  # Everything but kube-system, as JSON; delete nothing if more than 200 would go
  tekton-resource-gc --exclude-namespace kube-system --output json --max-deletions 200

  # A dry-run report for a pull request
  tekton-resource-gc --dry-run --selector 'app.kubernetes.io/part-of=ci' \\
    --output markdown --report-file gc.md

  # One shard of the cluster: only the namespaces labelled tekton-resource-gc.io/shard=a
  tekton-resource-gc --namespace-selector tekton-resource-gc.io/shard=a

  # Also the workspace PVCs and PaC Secrets runs leave behind, at most 200 PVCs a pass
  tekton-resource-gc --collect pipelineresources,workspace-pvcs,pac-secrets \\
    --max-deletions-per-kind workspace-pvcs=200

  # Why is this one still here?
  tekton-resource-gc explain ci/src-abc123
  tekton-resource-gc explain pvc/ci/pvc-3f5a0c9e1b

  # Stay running: a pass every midnight, Berlin time, with Events and metrics
  tekton-resource-gc --schedule @daily --time-zone Europe/Berlin --events \\
    --pushgateway-url http://pushgateway.monitoring:9091 --pushgateway-grouping instance=ci-gc

  # Settings from the environment, as the Helm chart passes them
  TRGC_DRY_RUN=true TRGC_NAMESPACE=ci,team-a TRGC_MIN_AGE=2h tekton-resource-gc
`;
}

import { DEFAULTS, FLAG_EXAMPLES, FLAG_NAMES, MAX_PAGE_SIZE, MAX_RETRIES, envVarName, type FlagName } from './config.js';
import { RETRY_WINDOW_MS } from './kube/http.js';
import { formatDuration } from './core/retention.js';

interface FlagDoc {
  /** The value's placeholder, e.g. `DURATION`; none for a boolean. */
  value?: string;
  /** What it does, one or more lines. */
  text: string[];
  /** Shown as `default: …`; a flag without one shows an example instead. */
  default?: string;
}

/** Every flag documented: a flag added to config.ts without a line here fails to compile. */
const FLAG_DOCS: { readonly [F in FlagName]: FlagDoc } = {
  'dry-run': {
    text: ['Decide and report, delete nothing. --dry-run=false turns it off again.'],
    default: String(DEFAULTS.dryRun),
  },
  namespace: {
    value: 'NAME',
    text: ['Only look in this namespace. Repeatable, or comma-separated: --namespace ci,team-a.', 'Without it: all namespaces.'],
  },
  'exclude-namespace': {
    value: 'NAME',
    text: ['Never look in this namespace, even when --namespace names it. Repeatable, or', 'comma-separated.'],
  },
  selector: {
    value: 'SELECTOR',
    text: [
      'Only targets matching this label selector (=, ==, !=, in, notin, key, !key), whatever',
      'their collector. Without it: all.',
    ],
  },
  'namespace-selector': {
    value: 'SELECTOR',
    text: [
      'Only look in the Namespaces whose labels match this label selector (same grammar as',
      '--selector): one shard of the cluster, e.g. for one CronJob of several. With --namespace,',
      'only the named ones it matches; --exclude-namespace still wins. Needs RBAC to list',
      'namespaces at cluster scope. Without it: all.',
    ],
  },
  collect: {
    value: 'LIST',
    text: [
      'What to collect, comma-separated or repeated: pipelineresources (PipelineResources);',
      "workspace-pvcs (PersistentVolumeClaims Tekton made for a run's workspaces or its affinity",
      'assistant); affinity-assistants (their StatefulSets); pac-secrets (the pac-gitauth-*',
      'Secrets of Pipelines-as-Code, read as metadata only, never their data). A leftover is',
      'deleted once every run that links it is finished, or its owner run is gone. There is no',
      'all: name each, so that no upgrade turns a new collector on. Each needs its own RBAC.',
    ],
    default: DEFAULTS.collect.join(','),
  },
  'pvc-finalizer': {
    value: 'MODE',
    text: [
      "A deleted workspace PVC keeps Kubernetes' kubernetes.io/pvc-protection finalizer while a",
      'Pod names it, and is reported terminating. keep leaves it to Kubernetes; purge removes',
      'it with one guarded patch once every Pod naming the claim has Succeeded or Failed (needs',
      'patch on persistentvolumeclaims). Other finalizers are never touched. purge only with',
      '--collect workspace-pvcs.',
    ],
    default: DEFAULTS.pvcFinalizer,
  },
  'min-age': {
    value: 'DURATION',
    text: [
      'Keep anything younger than this (reason too-young). Under 1m is allowed with a warning in the',
      'report: Tekton resolves references a few seconds after a run is created.',
      'Durations: 30m, 12h, 7d, 2w (s, m, h, d, w), or ISO 8601 such as PT12H or P7D.',
    ],
    default: formatDuration(DEFAULTS.minAgeMs),
  },
  'retain-for': {
    value: 'DURATION',
    text: [
      'Keep each PipelineResource this long after its last referencing run finished, or after',
      'its creation when no run is known (reason retain-for). A DURATION or forever. A',
      '<prefix>/retain-for label or annotation on the resource wins. Without it: none.',
    ],
  },
  'label-prefix': {
    value: 'PREFIX',
    text: ['Prefix of the retention labels and annotations (see below); a DNS subdomain.'],
    default: DEFAULTS.labelPrefix,
  },
  'max-deletions': {
    value: 'N',
    text: [
      'If a pass would delete more than N (of every collector; removing a PVC\'s finalizer counts',
      'too), delete nothing at all, report every candidate as aborted and exit 3: a guard',
      'against a mistake in scope. 0 deletes nothing.',
    ],
    default: String(DEFAULTS.maxDeletions),
  },
  'max-deletions-per-kind': {
    value: 'COLLECTOR=N',
    text: [
      "The same guard for one collector's targets. Repeatable, or comma-separated:",
      'workspace-pvcs=200,pac-secrets=500; only for collectors that are on. Without it:',
      '--max-deletions alone.',
    ],
  },
  qps: {
    value: 'NUMBER',
    text: ['Deletes per second at most.'],
    default: String(DEFAULTS.qps),
  },
  concurrency: {
    value: 'N',
    text: ['Deletes in flight at most.'],
    default: String(DEFAULTS.concurrency),
  },
  'page-size': {
    value: 'N',
    text: [`Objects per list request (limit/continue), 1 to ${MAX_PAGE_SIZE}.`],
    default: String(DEFAULTS.pageSize),
  },
  'max-retries': {
    value: 'N',
    text: [
      `Retry an API request at most N times (0 to ${MAX_RETRIES}) when it is throttled (429, honouring`,
      'Retry-After), meets a server error (5xx) or a broken connection, with backoff; no retry',
      `starts later than ${formatDuration(RETRY_WINDOW_MS)} after the first attempt. A list that still fails stops the pass`,
      '(exit 1, nothing deleted); a delete that still fails is reported failed (exit 3). A refused',
      'delete is tried again only after the runs are re-checked, if the last check is over 5s old.',
    ],
    default: String(DEFAULTS.maxRetries),
  },
  'request-timeout': {
    value: 'DURATION',
    text: ['Abandon (and retry) one attempt of an API request with no complete answer after this', 'long, 1s to 1h.'],
    default: formatDuration(DEFAULTS.requestTimeoutMs),
  },
  output: {
    value: 'FORMAT',
    text: ['Report on stdout: text (a table), json (see docs/reports.md) or markdown (for a pull', 'request or a chat message).'],
    default: DEFAULTS.output,
  },
  'report-file': {
    value: 'PATH',
    text: ['Also write the report, in the --output format, to PATH.'],
  },
  'log-level': {
    value: 'LEVEL',
    text: ['Logs (JSON lines on stderr): trace, debug, info, warn, error, fatal or silent.'],
    default: DEFAULTS.logLevel,
  },
  kubeconfig: {
    value: 'PATH',
    text: [
      'Kubeconfig file. Without it: $KUBECONFIG, then ~/.kube/config, then the in-cluster',
      'service account. Tokens, token files, client certificates, exec credential plugins and',
      'auth-providers work; proxy-url does not.',
    ],
  },
  context: {
    value: 'NAME',
    text: ["Context of the kubeconfig to use. Without it: the kubeconfig's current context."],
  },
  events: {
    text: [
      'Record Kubernetes Events (events.k8s.io/v1), so kubectl get events shows them: one per',
      'target deleted (reason Deleted, regarding it by its own kind) or whose delete failed',
      '(DeleteFailed), and for a dry run one per namespace (WouldDelete, regarding the',
      'Namespace: how many of each kind, by reason, and which). At most 1000 a pass; a log line',
      'counts the rest. Needs create on events.k8s.io events; an Event that cannot be created is',
      'logged and never fails the pass.',
    ],
    default: String(DEFAULTS.events),
  },
  schedule: {
    value: 'CRON',
    text: [
      'Stay running and make a pass at each tick: five cron fields (minute hour day-of-month',
      'month day-of-week), @hourly, @daily, @weekly, @monthly, @yearly or @every DURATION',
      '(at least 1m), read and ticked as Kubernetes does a CronJob schedule: day of week 0-6;',
      'a day field written with * (*/1 too) makes both day fields have to match, else either.',
      'Passes never overlap: ticks a pass ran past get none, and one warning says how many.',
      'Logs when the next pass is. SIGTERM ends it between passes. Without it: one pass.',
    ],
  },
  'time-zone': {
    value: 'ZONE',
    text: [
      "Time zone of --schedule, a tz database name, as a CronJob's timeZone: on the day clocks",
      'go forward, ticks in the hour skipped do not happen; on the day they go back, ticks in',
      "the hour repeated happen twice. Without it: the machine's time zone.",
    ],
  },
  progress: {
    value: 'WHEN',
    text: [
      'The updating progress line on stderr: auto draws it when stderr is a terminal and TERM',
      'is set and not dumb; never leaves stderr to the JSON log lines (for a terminal that is',
      'recorded and read line by line, such as docker run -t or a CI runner).',
    ],
    default: DEFAULTS.progress,
  },
  'pushgateway-url': {
    value: 'URL',
    text: [
      'At the end of each pass, push its metrics (targets, decisions by reason, deletions by',
      'result, errors, duration, time of the last successful pass) to this Prometheus',
      'Pushgateway, as job tekton-resource-gc. A pass that ran as planned (exit 0) replaces its',
      'group; exit 3 adds its counts and keeps the last success; exit 1 pushes only its exit',
      'code, errors, duration and time, so the last counts stay. The address alone, or with a',
      'proxy\'s path prefix: a path with /metrics is refused (use --pushgateway-grouping). A',
      'failed push is logged, never fails the pass. Credentials in the URL are never logged.',
    ],
  },
  'pushgateway-grouping': {
    value: 'NAME=VALUE',
    text: [
      'Labels besides job of the group the metrics go to, comma-separated or repeated. Give',
      'each install that pushes to one gateway its own (the chart sets instance and namespace):',
      'installs in one group replace each other\'s metrics. Prometheus label names; not job,',
      'action, reason, result or __*. Values non-empty, without commas. Only with',
      '--pushgateway-url. Without it: job alone.',
    ],
  },
  'plan-file': {
    value: 'PATH',
    text: [
      'With --dry-run: also write the plan, what this dry run would delete (namespace, name, uid,',
      'resourceVersion, reason), the settings that decided it, the cluster and the time, with a',
      'SHA-256 digest of the whole. The report names the digest. `apply PATH` deletes from it.',
    ],
  },
  'plan-max-age': {
    value: 'DURATION',
    text: ['apply refuses a plan older than this (exit 2).'],
    default: formatDuration(DEFAULTS.planMaxAgeMs),
  },
  'plan-digest': {
    value: 'DIGEST',
    text: [
      'apply refuses a plan whose digest is not this one (exit 2): pin the plan that was reviewed.',
      'Without it the plan\'s own digest still refuses a plan edited after it was written.',
    ],
  },
  plan: {
    value: 'PATH',
    text: ['explain also says whether the target is in this plan, and what apply would do with it.'],
  },
};

const INDENT = '      ';

function flagSection(flag: FlagName): string {
  const doc = FLAG_DOCS[flag];
  const heading = `  --${flag}${doc.value === undefined ? '' : ` ${doc.value}`}`;
  const usage = doc.default === undefined ? `e.g. ${FLAG_EXAMPLES[flag]}` : `default: ${doc.default}`;
  return [heading, ...doc.text.map((line) => INDENT + line), `${INDENT}(env ${envVarName(flag)}; ${usage})`].join('\n');
}

/** The --help text: usage, every flag with its variable and default, labels, exit codes, examples. */
export function helpText(): string {
  return `tekton-resource-gc: deletes Tekton PipelineResources whose referencing runs are all
finished or gone, and with --collect what runs leave behind: workspace PVCs, affinity-assistant
StatefulSets and Pipelines-as-Code Secrets.

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
  collectable if nothing changed. KIND is pipelineresource (the default), pvc, statefulset or
  secret. It reads only that object, the runs (and Pods and StatefulSets) of its namespace
  and the namespace, and takes the flags the decision depends on (--min-age, --retain-for,
  --label-prefix, the scope), --output text or json, and the connection flags.

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

{{/*
The chart's name, or nameOverride; 63 characters at most (a DNS label).
*/}}
{{- define "tekton-resource-gc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of the release's objects: fullnameOverride, or <release>-<chart> unless the
release's name already holds the chart's.
*/}}
{{- define "tekton-resource-gc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The CronJob's name: the full name when it fits in 52 characters, the most a CronJob may
have (its jobs add an 11-character suffix and their pods' job-name label holds 63).
Longer, it is cut to 45 and ends in 6 hex digits of the full name's hash, so two releases
whose names differ only past the cut still get CronJobs of different names.
*/}}
{{- define "tekton-resource-gc.cronJobName" -}}
{{- $fullname := include "tekton-resource-gc.fullname" . }}
{{- if le (len $fullname) 52 }}
{{- $fullname }}
{{- else }}
{{- printf "%s-%s" (regexReplaceAll "-+$" ($fullname | trunc 45) "") ($fullname | sha256sum | trunc 6) }}
{{- end }}
{{- end }}

{{/*
The chart label: <chart>-<version>.
*/}}
{{/*
The CronJobs of the release, as JSON: one with the release's own namespaceSelector and
schedule, or one per entry of shards, each `<fullname>-<shard>` cut as cronJobName cuts.
*/}}
{{- define "tekton-resource-gc.shards" -}}
{{- $fullname := include "tekton-resource-gc.fullname" . }}
{{- $jobs := list }}
{{- if not .Values.shards }}
{{- $jobs = append $jobs (dict "name" "" "cronJobName" (include "tekton-resource-gc.cronJobName" .) "namespaceSelector" .Values.namespaceSelector "schedule" .Values.schedule) }}
{{- else }}
{{- $names := list }}
{{- range .Values.shards }}
{{- if has .name $names }}
{{- fail (printf "shards: the name %s is given twice; each shard needs a name of its own" .name) }}
{{- end }}
{{- $names = append $names .name }}
{{- $full := printf "%s-%s" $fullname .name }}
{{- $cut := $full }}
{{- if gt (len $full) 52 }}
{{- $cut = printf "%s-%s" (regexReplaceAll "-+$" ($full | trunc 45) "") ($full | sha256sum | trunc 6) }}
{{- end }}
{{- $jobs = append $jobs (dict "name" .name "cronJobName" $cut "namespaceSelector" .namespaceSelector "schedule" (.schedule | default $.Values.schedule)) }}
{{- end }}
{{- end }}
{{- toJson $jobs }}
{{- end }}

{{- define "tekton-resource-gc.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object: the chart's own, and commonLabels (the chart's own win a key
both set).
*/}}
{{- define "tekton-resource-gc.labels" -}}
{{- $own := include "tekton-resource-gc.ownLabels" . | fromYaml }}
{{- merge $own (.Values.commonLabels | default dict) | toYaml }}
{{- end }}

{{- define "tekton-resource-gc.ownLabels" -}}
helm.sh/chart: {{ include "tekton-resource-gc.chart" . }}
{{ include "tekton-resource-gc.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels that pick this release's objects out, for `kubectl get -l`.
*/}}
{{- define "tekton-resource-gc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tekton-resource-gc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The ServiceAccount the collector runs as. Without one of our own, the name must be
given: falling back to "default" would bind the collector's permissions to every pod
in the namespace that runs as the default account.
*/}}
{{- define "tekton-resource-gc.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tekton-resource-gc.fullname" .) .Values.serviceAccount.name }}
{{- else if .Values.serviceAccount.name }}
{{- .Values.serviceAccount.name }}
{{- else }}
{{- fail "serviceAccount.name: with serviceAccount.create=false, name the existing ServiceAccount to run as, such as --set serviceAccount.name=tekton-resource-gc" }}
{{- end }}
{{- end }}

{{/*
A security context (podSecurityContext, securityContext) as YAML, without the keys set to
null at any depth; empty when none is left. Helm deletes a null only for a key the
chart's defaults hold: an OpenShift overlay that nulls securityContext.runAsUser or
podSecurityContext.fsGroup, which they lack, would otherwise render `runAsUser: null`.
*/}}
{{- define "tekton-resource-gc.securityContext" -}}
{{- with include "tekton-resource-gc.withoutNulls" . | fromJson }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{- define "tekton-resource-gc.withoutNulls" -}}
{{- $kept := dict }}
{{- range $key, $value := . }}
{{- if kindIs "map" $value }}
{{- $_ := set $kept $key (include "tekton-resource-gc.withoutNulls" $value | fromJson) }}
{{- else if not (kindIs "invalid" $value) }}
{{- $_ := set $kept $key $value }}
{{- end }}
{{- end }}
{{- toJson $kept }}
{{- end }}

{{/*
The image: repository:tag, the tag defaulting to the chart's appVersion; with a digest,
repository@digest, or repository:tag@digest when a tag is set too (the digest decides
what runs; the tag only tells people which version it is).
*/}}
{{- define "tekton-resource-gc.image" -}}
{{- $image := .Values.image }}
{{- if $image.digest }}
{{- $image.repository }}{{ with $image.tag }}:{{ . }}{{ end }}@{{ $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{/* BEGIN generated by `npm run chart:flags` from the chart column of src/cli/flags.ts and the collectors of src/core/collectors.ts: edit those, not these lines. */}}
{{/*
The one mapping from the collector's settings to its flags: value name -> flag name,
in the order of src/cli/flags.ts, which is the order of the container's variables. The
container gets each as the flag's variable (`min-age` -> TRGC_MIN_AGE), which the
collector reads as it reads the flag (src/cli/config.ts). Every variable is always set: an
empty one counts as unset, so the collector's own default applies.
*/}}
{{- define "tekton-resource-gc.settingFlags" -}}
dryRun: dry-run
namespaces: namespace
excludeNamespaces: exclude-namespace
selector: selector
namespaceSelector: namespace-selector
minAge: min-age
retainFor: retain-for
labelPrefix: label-prefix
maxDeletions: max-deletions
maxConsecutiveFailures: max-consecutive-failures
qps: qps
concurrency: concurrency
pageSize: page-size
maxRetries: max-retries
requestTimeout: request-timeout
output: output
logLevel: log-level
events: events
pushgatewayUrl: pushgateway-url
pushgatewayGrouping: pushgateway-grouping
planDigest: plan-digest
planMaxAge: plan-max-age
{{- end }}

{{/*
The settings passed as flags rather than variables: value name -> flag name. Each is
passed only when set away from its default, so that a release that leaves them alone
renders exactly as it did before they existed (its CronJob unchanged by an upgrade).
*/}}
{{- define "tekton-resource-gc.argumentFlags" -}}
collect: collect
pvcFinalizer: pvc-finalizer
prunerConfig: pruner-config
keep: keep
keepSuccessful: keep-successful
keepFailed: keep-failed
runTtl: run-ttl
groupBy: group-by
requireResultsStored: require-results-stored
maxDeletionsPerKind: max-deletions-per-kind
maxCascadeDeletions: max-cascade-deletions
{{- end }}

{{/*
The collectors, in the collector's order (its delete order: src/core/collectors.ts), as
values.schema.json's collectorName lists them.
*/}}
{{- define "tekton-resource-gc.collectorNames" -}}
{{- toJson (list "pipelineresources" "affinity-assistants" "pac-secrets" "workspace-pvcs" "resolution-requests" "pipelineruns" "taskruns") }}
{{- end }}
{{/* END generated by `npm run chart:flags` */}}

{{/*
A setting as its variable's text: a list comma-separated, a whole number without an
exponent (Helm reads 1000000 as a float that prints as 1e+06), anything else as is.
*/}}
{{- define "tekton-resource-gc.settingText" -}}
{{- if kindIs "slice" . }}
{{- join "," . }}
{{- else if and (kindIs "float64" .) (eq . (float64 (int64 .))) }}
{{- int64 . }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/*
The collector's flags for collect, pvcFinalizer, prunerConfig, maxDeletionsPerKind, the runs'
settings and maxCascadeDeletions, as
JSON: none at their defaults; `--collect=a,b` in the order given, `--pvc-finalizer=purge`,
`--pruner-config=NAMESPACE`, and one `--max-deletions-per-kind=COLLECTOR=N` per cap in
the collectors' order. Refuses, in one
line each, what the collector would refuse: purge without workspace-pvcs, a cap on a
collector that is off (the schema refuses unknown names and values).
*/}}
{{- define "tekton-resource-gc.collectorArgs" -}}
{{- $collect := .Values.collect }}
{{- $flags := list }}
{{- if ne (join "," $collect) "pipelineresources" }}
{{- $flags = append $flags (printf "--collect=%s" (join "," $collect)) }}
{{- end }}
{{- if ne .Values.pvcFinalizer "keep" }}
{{- if not (has "workspace-pvcs" $collect) }}
{{- fail (printf "pvcFinalizer: %s applies to the claims of workspace-pvcs, which collect (%s) does not name; add it, such as --set 'collect={%s}'" .Values.pvcFinalizer (join ", " $collect) (join "," (append $collect "workspace-pvcs"))) }}
{{- end }}
{{- $flags = append $flags (printf "--pvc-finalizer=%s" .Values.pvcFinalizer) }}
{{- end }}
{{- with .Values.prunerConfig }}
{{- $flags = append $flags (printf "--pruner-config=%s" .) }}
{{- end }}
{{- range $name := keys .Values.maxDeletionsPerKind | sortAlpha }}
{{- if not (has $name $collect) }}
{{- fail (printf "maxDeletionsPerKind: %s is capped but not in collect (%s); cap only collectors that are on, or add it, such as --set 'collect={%s}'" $name (join ", " $collect) (join "," (append $collect $name))) }}
{{- end }}
{{- end }}
{{- range $name := include "tekton-resource-gc.collectorNames" . | fromJsonArray }}
{{- if hasKey $.Values.maxDeletionsPerKind $name }}
{{- $flags = append $flags (printf "--max-deletions-per-kind=%s=%s" $name (include "tekton-resource-gc.settingText" (get $.Values.maxDeletionsPerKind $name))) }}
{{- end }}
{{- end }}
{{- $runs := include "tekton-resource-gc.runCollectors" . | fromJsonArray }}
{{- range $pair := list (list "keep" "keep") (list "keepSuccessful" "keep-successful") (list "keepFailed" "keep-failed") (list "runTtl" "run-ttl") (list "groupBy" "group-by") }}
{{- $value := include "tekton-resource-gc.settingText" (get $.Values (index $pair 0)) }}
{{- if ne $value "" }}
{{- if not $runs }}
{{- fail (printf "%s: %s applies to runs, which collect (%s) does not name; add pipelineruns or taskruns, such as --set 'collect={%s}'" (index $pair 0) $value (join ", " $collect) (join "," (append $collect "pipelineruns"))) }}
{{- end }}
{{- $flags = append $flags (printf "--%s=%s" (index $pair 1) $value) }}
{{- end }}
{{- end }}
{{- $cascadeCap := include "tekton-resource-gc.settingText" .Values.maxCascadeDeletions }}
{{- if ne $cascadeCap "20000" }}
{{- if not $runs }}
{{- fail (printf "maxCascadeDeletions: %s caps what goes with runs, which collect (%s) does not name; add pipelineruns or taskruns, such as --set 'collect={%s}'" $cascadeCap (join ", " $collect) (join "," (append $collect "pipelineruns"))) }}
{{- end }}
{{- $flags = append $flags (printf "--max-cascade-deletions=%s" $cascadeCap) }}
{{- end }}
{{- if .Values.requireResultsStored }}
{{- if not $runs }}
{{- fail (printf "requireResultsStored: applies to runs, which collect (%s) does not name; add pipelineruns or taskruns, such as --set 'collect={%s}'" (join ", " $collect) (join "," (append $collect "pipelineruns"))) }}
{{- end }}
{{- $flags = append $flags "--require-results-stored" }}
{{- end }}
{{- $owned := list }}
{{- range $collect }}
{{- if has . (list "affinity-assistants" "pac-secrets" "workspace-pvcs" "resolution-requests") }}
{{- $owned = append $owned . }}
{{- end }}
{{- end }}
{{- if and $runs .Values.selector $owned }}
{{- fail (printf "selector: %s cannot narrow %s beside %s (a run is kept while something that goes with it is kept, and the selector would hide those it does not match); collect runs in a release of their own, such as --set 'collect={%s}'" .Values.selector (join ", " $owned) (join " and " $runs) (join "," $runs)) }}
{{- end }}
{{- toJson $flags }}
{{- end }}

{{/*
The run collectors of collect (pipelineruns, taskruns), in its order.
*/}}
{{- define "tekton-resource-gc.runCollectors" -}}
{{- $runs := list }}
{{- range .Values.collect }}
{{- if or (eq . "pipelineruns") (eq . "taskruns") }}
{{- $runs = append $runs . }}
{{- end }}
{{- end }}
{{- toJson $runs }}
{{- end }}

{{/*
The container's environment: extraEnv first, so that a setting's value may name one of
its variables as $(NAME) (a password from a Secret in pushgatewayUrl); then one TRGC_
variable per setting, in the order of the mapping. extraEnv may not set a variable of
the chart's: two definitions of one name would leave which one wins to the reader. Nor
the variables of the settings passed as flags: at their defaults no flag is passed, and
such a variable would turn on a collector the RBAC does not cover.
*/}}
{{- define "tekton-resource-gc.containerEnv" -}}
{{- $settings := list }}
{{- range $line := concat (splitList "\n" (include "tekton-resource-gc.settingFlags" .)) (splitList "\n" (include "tekton-resource-gc.argumentFlags" .)) }}
{{- $settings = append $settings (printf "TRGC_%s" (index (splitList ": " $line) 1 | upper | replace "-" "_")) }}
{{- end }}
{{- range .Values.extraEnv }}
{{- if has .name $settings }}
{{- fail (printf "extraEnv: %s is the chart's own variable for a setting; set the setting's value instead (extraEnv is for other variables, such as PUSHGATEWAY_PASSWORD from a Secret, named in pushgatewayUrl as $(PUSHGATEWAY_PASSWORD))" .name) }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{ include "tekton-resource-gc.env" . | trim }}
{{- end }}

{{/*
One TRGC_ variable per setting, in the order of the mapping.
*/}}
{{- define "tekton-resource-gc.env" -}}
{{- $values := .Values }}
{{- range $line := splitList "\n" (include "tekton-resource-gc.settingFlags" .) }}
{{- $pair := splitList ": " $line }}
{{- $value := index $pair 0 }}
{{- $flag := index $pair 1 }}
{{- if not (hasKey $values $value) }}
{{- fail (printf "the chart maps the value %s, which values.yaml lacks" $value) }}
{{- end }}
- name: {{ printf "TRGC_%s" ($flag | upper | replace "-" "_") }}
  {{- if eq $value "pushgatewayGrouping" }}
  value: {{ include "tekton-resource-gc.pushgatewayGrouping" $ | quote }}
  {{- else }}
  value: {{ include "tekton-resource-gc.settingText" (get $values $value) | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
The labels of this install's group on the Pushgateway, as NAME=VALUE,...: instance (the
release) and namespace (the release's) unless pushgatewayGrouping sets them, then the rest
of pushgatewayGrouping. Two releases, or one release name in two namespaces, never share
a group, so neither's push replaces the other's metrics. Empty without pushgatewayUrl:
the collector refuses a grouping it would not use.
*/}}
{{- define "tekton-resource-gc.pushgatewayGrouping" -}}
{{- if .Values.pushgatewayUrl }}
{{- $grouping := merge (dict) .Values.pushgatewayGrouping (dict "instance" .Release.Name "namespace" .Release.Namespace) }}
{{- $labels := list }}
{{- range $name := keys $grouping | sortAlpha }}
{{- $labels = append $labels (printf "%s=%s" $name (include "tekton-resource-gc.settingText" (get $grouping $name))) }}
{{- end }}
{{- join "," $labels }}
{{- end }}
{{- end }}

{{/*
Whole seconds in a duration as the schema takes it: 30s, 2m, 1h, 1d, 1w, or ISO 8601 such
as PT1M30S (a month as 30 days, a year as 365). Checks terminationGracePeriodSeconds
against requestTimeout.
*/}}
{{- define "tekton-resource-gc.durationSeconds" -}}
{{- $text := toString . }}
{{- $units := dict "s" 1 "m" 60 "h" 3600 "d" 86400 "w" 604800 }}
{{- $dateUnits := dict "Y" 31536000 "M" 2592000 "W" 604800 "D" 86400 }}
{{- $timeUnits := dict "H" 3600 "M" 60 "S" 1 }}
{{- if regexMatch "^[0-9]+[smhdw]$" $text }}
{{- $unit := trunc -1 $text }}
{{- mul (trimSuffix $unit $text | atoi) (get $units $unit) }}
{{- else }}
{{- $parts := splitList "T" (trimPrefix "P" $text) }}
{{- $seconds := 0 }}
{{- range regexFindAll "[0-9]+[YMWD]" (first $parts) -1 }}
{{- $seconds = add $seconds (mul (trunc (sub (len .) 1 | int) . | atoi) (get $dateUnits (trunc -1 .))) }}
{{- end }}
{{- range regexFindAll "[0-9]+[HMS]" (last $parts | default "") -1 }}
{{- if gt (len $parts) 1 }}
{{- $seconds = add $seconds (mul (trunc (sub (len .) 1 | int) . | atoi) (get $timeUnits (trunc -1 .))) }}
{{- end }}
{{- end }}
{{- $seconds }}
{{- end }}
{{- end }}

{{/*
The namespaces the collector looks in: all (empty), or the named ones less the excluded.
*/}}
{{- define "tekton-resource-gc.collectedNamespaces" -}}
{{- $collected := list }}
{{- range .Values.namespaces }}
{{- if not (has . $.Values.excludeNamespaces) }}
{{- $collected = append $collected . }}
{{- end }}
{{- end }}
{{- if and .Values.namespaces (not $collected) }}
{{- fail (printf "namespaces: every namespace named (%s) is also in excludeNamespaces, so the collector would look nowhere; name one that is not excluded, or none for every namespace" (join ", " .Values.namespaces)) }}
{{- end }}
{{- toJson $collected }}
{{- end }}

{{/*
What the collector does, per collector on (`collect`): the same rules cluster-wide
(ClusterRole) and per namespace (Role). It reads runs (a pass re-checks them with lists,
never a watch) and the holders its collectors judge by (Pods and StatefulSets, by lists),
and deletes only targets of the collectors on (runs only with pipelineruns or taskruns),
and only when `dryRun` is false: a dry
run's ServiceAccount may not delete, so the API server itself keeps it one. `patch` on
PersistentVolumeClaims, to remove kubernetes.io/pvc-protection, only with purge. It
changes nothing else but the Events it creates when `events` is on.
*/}}
{{- define "tekton-resource-gc.collectorRules" -}}
{{- $collect := .Values.collect }}
{{- $live := not .Values.dryRun }}
{{- if has "pipelineresources" $collect }}
- apiGroups: ["tekton.dev"]
  resources: ["pipelineresources"]
  verbs: {{ if .Values.dryRun }}["get", "list"]{{ else }}["get", "list", "delete"]{{ end }}
{{- end }}
- apiGroups: ["tekton.dev"]
  resources: ["pipelineruns", "taskruns"]
  verbs: ["get", "list"]
{{- $runs := include "tekton-resource-gc.runCollectors" . | fromJsonArray }}
{{- if and $live $runs }}
# {{ join ", " $runs }}: the runs themselves, deleted with propagationPolicy Background (what they own goes with them).
- apiGroups: ["tekton.dev"]
  resources: {{ toJson $runs }}
  verbs: ["delete"]
{{- end }}
{{- if $runs }}
# {{ join ", " $runs }}: a run stays while an object it owns carries the retain label, so
# those kinds are listed by that label, as metadata only (list alone; `list` on Secrets
# grants their data too: prefer named namespaces).
- apiGroups: [""]
  resources: ["persistentvolumeclaims", "pods", "secrets"]
  verbs: ["list"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["list"]
- apiGroups: ["resolution.tekton.dev"]
  resources: ["resolutionrequests"]
  verbs: ["list"]
{{- end }}
{{- if has "workspace-pvcs" $collect }}
# workspace-pvcs: the claims Tekton made for runs.
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list"{{ if $live }}, "delete"{{ if eq .Values.pvcFinalizer "purge" }}, "patch"{{ end }}{{ end }}]
{{- end }}
{{- if has "affinity-assistants" $collect }}
# affinity-assistants: the StatefulSets themselves{{ if has "workspace-pvcs" $collect }}; workspace-pvcs keeps a claim a StatefulSet names{{ end }}.
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list"{{ if $live }}, "delete"{{ end }}]
{{- else if has "workspace-pvcs" $collect }}
# workspace-pvcs keeps a claim a StatefulSet names.
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["list"]
{{- end }}
{{- if has "pac-secrets" $collect }}
# pac-secrets: read as metadata only by the collector, but `list` and `get` on Secrets
# grant their data too: prefer named namespaces.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list"{{ if $live }}, "delete"{{ end }}]
{{- end }}
{{- if has "resolution-requests" $collect }}
# resolution-requests: listed as metadata only; their resolved data is never read.
- apiGroups: ["resolution.tekton.dev"]
  resources: ["resolutionrequests"]
  verbs: ["get", "list"{{ if $live }}, "delete"{{ end }}]
{{- end }}
{{- if or (has "workspace-pvcs" $collect) (has "pac-secrets" $collect) }}
# A claim or Secret a running Pod uses is kept.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
{{- end }}
{{- if .Values.prunerConfig }}
# prunerConfig: tektoncd/pruner's tekton-pruner-namespace-spec ConfigMaps, listed by name;
# RBAC cannot limit a list to one name, so this reads every ConfigMap here.
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list"]
{{- end }}
{{- if .Values.events }}
# An Event about each {{ if eq (join "," $collect) "pipelineresources" }}PipelineResource{{ else }}target{{ end }} deleted or that a dry run would delete.
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create"]
{{- end }}
{{- end }}

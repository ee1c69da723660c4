{{/*
Helpers of the PrometheusRule and the Grafana dashboard (prometheusrule.yaml,
grafana-dashboard.yaml): both read the metrics the passes push, so both need pushgatewayUrl.
*/}}
{{- define "tekton-resource-gc.needsPushgateway" -}}
{{- if not .root.Values.pushgatewayUrl }}
{{- fail (printf "%s.enabled: the %s reads the metrics each pass pushes to a Pushgateway, and pushgatewayUrl is empty; set it too, such as --set pushgatewayUrl=http://pushgateway.monitoring:9091" .value .what) }}
{{- end }}
{{- end }}

{{/*
This install's series, as a PromQL selector's matchers: job="tekton-resource-gc" and the
labels of its group on the Pushgateway (pushgatewayGrouping: instance, namespace and any
others), so that the rules of one release fire for its own passes only. Values escaped as
PromQL strings.
*/}}
{{- define "tekton-resource-gc.seriesMatchers" -}}
{{- $matchers := list `job="tekton-resource-gc"` }}
{{- range splitList "," (include "tekton-resource-gc.pushgatewayGrouping" .) }}
{{- $name := regexReplaceAll "=.*$" . "" }}
{{- $value := trimPrefix (printf "%s=" $name) . }}
{{- $matchers = append $matchers (printf "%s=\"%s\"" $name ($value | replace "\\" "\\\\" | replace "\"" "\\\"")) }}
{{- end }}
{{- join "," $matchers }}
{{- end }}

{{/*
The values one cron field takes (list, range and step; day-of-week names SUN to SAT read as
0 to 6), as ",v1,v2,...," for `contains`; empty when the field holds anything else or a value
outside min..max. Takes (list FIELD MIN MAX).
*/}}
{{- define "tekton-resource-gc.cronFieldSet" -}}
{{- $field := index . 0 | upper }}
{{- $min := index . 1 | int }}
{{- $max := index . 2 | int }}
{{- range $number, $name := list "SUN" "MON" "TUE" "WED" "THU" "FRI" "SAT" }}
{{- $field = replace $name (toString $number) $field }}
{{- end }}
{{- $taken := list }}
{{- $ok := true }}
{{- range splitList "," $field }}
{{- if not (regexMatch "^(\\*|\\?|[0-9]+(-[0-9]+)?)(/[0-9]+)?$" .) }}
{{- $ok = false }}
{{- else }}
{{- $parts := splitList "/" . }}
{{- $span := first $parts }}
{{- $step := 1 }}
{{- if gt (len $parts) 1 }}{{ $step = last $parts | atoi }}{{ end }}
{{- $lo := $min }}
{{- $hi := $max }}
{{- if regexMatch "^[0-9]" $span }}
{{- $bounds := splitList "-" $span }}
{{- $lo = first $bounds | atoi }}
{{- $hi = last $bounds | atoi }}
{{- /* N/STEP is N-max/STEP, as robfig/cron reads it. */}}
{{- if and (eq (len $bounds) 1) (gt (len $parts) 1) }}{{ $hi = $max }}{{ end }}
{{- end }}
{{- if or (lt $lo $min) (gt $hi $max) (gt $lo $hi) (lt $step 1) }}
{{- $ok = false }}
{{- else }}
{{- range untilStep $lo (add $hi 1 | int) $step }}{{ $taken = append $taken . }}{{ end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $ok $taken }},{{ join "," $taken }},{{ end }}
{{- end }}

{{/*
The longest time, in seconds, between two ticks of a schedule: each macro (@monthly as 31
days, @yearly as 366), and five fields whose day of month and month are `*` or `?` (every
tick of a day, or of a week when the day of week is limited, in order). Empty for any other
schedule. The time zone is left out: a change of clocks moves a tick by an hour at most.
*/}}
{{- define "tekton-resource-gc.scheduleInterval" -}}
{{- $spec := trim . }}
{{- $macros := dict "@hourly" 3600 "@daily" 86400 "@midnight" 86400 "@weekly" 604800 "@monthly" 2678400 "@yearly" 31622400 "@annually" 31622400 }}
{{- $fields := regexSplit "\\s+" $spec -1 }}
{{- if hasKey $macros $spec }}
{{- get $macros $spec }}
{{- else if and (eq (len $fields) 5) (has (index $fields 2) (list "*" "?")) (has (index $fields 3) (list "*" "?")) }}
{{- $minutes := include "tekton-resource-gc.cronFieldSet" (list (index $fields 0) 0 59) }}
{{- $hours := include "tekton-resource-gc.cronFieldSet" (list (index $fields 1) 0 23) }}
{{- $days := include "tekton-resource-gc.cronFieldSet" (list (index $fields 4) 0 6) }}
{{- if and $minutes $hours $days }}
{{- $weekly := ne $days ",0,1,2,3,4,5,6," }}
{{- $period := ternary 10080 1440 $weekly }}
{{- $first := -1 }}
{{- $previous := -1 }}
{{- $gap := 0 }}
{{- range $day := until (ternary 7 1 $weekly) }}
{{- if or (not $weekly) (contains (printf ",%d," $day) $days) }}
{{- range $hour := until 24 }}
{{- if contains (printf ",%d," $hour) $hours }}
{{- range $minute := until 60 }}
{{- if contains (printf ",%d," $minute) $minutes }}
{{- $tick := add (mul $day 1440) (mul $hour 60) $minute }}
{{- if lt $first 0 }}{{ $first = $tick }}{{ else }}{{ $gap = max $gap (sub $tick $previous) }}{{ end }}
{{- $previous = $tick }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- mul (max $gap (sub (add $first $period) $previous)) 60 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Seconds without a pass (or a success) before the alerts on passes that stop fire:
prometheusRule.missedSchedules times the longest time between two passes (passInterval, or
worked out from schedule and each shard's), plus startingDeadlineSeconds and
activeDeadlineSeconds, the latest a pass due at a tick may still finish.
*/}}
{{- define "tekton-resource-gc.stalenessSeconds" -}}
{{- $rule := .Values.prometheusRule }}
{{- $interval := 0 }}
{{- if $rule.passInterval }}
{{- $interval = include "tekton-resource-gc.durationSeconds" $rule.passInterval | int64 }}
{{- else }}
{{- range include "tekton-resource-gc.shards" . | fromJsonArray }}
{{- $each := include "tekton-resource-gc.scheduleInterval" .schedule }}
{{- if not $each }}
{{- fail (printf "prometheusRule.passInterval: the alerts on passes that stop need the longest time between two passes, and the chart cannot work it out from the schedule %q (it reads @hourly, @daily, @weekly, @monthly, @yearly, and five fields whose day of month and month are * or ?); set it, such as --set prometheusRule.passInterval=31d" .schedule) }}
{{- end }}
{{- $interval = max $interval ($each | int64) }}
{{- end }}
{{- end }}
{{- add (mul $rule.missedSchedules $interval) .Values.startingDeadlineSeconds .Values.activeDeadlineSeconds }}
{{- end }}

{{/*
One alerting rule: (dict "root" $ "alert" NAME "config" its prometheusRule.alerts entry
"expr" PROMQL "for" DURATION "summary" TEXT "description" TEXT). Its labels are its
severity and prometheusRule.alertLabels (the severity wins); its runbook is its section of
docs/operations.md at the chart's own version.
*/}}
{{- define "tekton-resource-gc.alertRule" -}}
- alert: {{ .alert }}
  expr: |-
    {{ .expr }}
  {{- with .for }}
  for: {{ . }}
  {{- end }}
  labels:
    {{- merge (dict "severity" .config.severity) .root.Values.prometheusRule.alertLabels | toYaml | nindent 4 }}
  annotations:
    summary: {{ .summary | quote }}
    description: {{ .description | quote }}
    runbook_url: {{ printf "%s/blob/v%s/docs/operations.md#%s" .root.Chart.Home .root.Chart.AppVersion (lower .alert) | quote }}
{{- end }}

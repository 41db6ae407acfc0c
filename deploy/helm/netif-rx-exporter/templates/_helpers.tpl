{{/*
The chart name, also app.kubernetes.io/name and so the scrape job name of the monitors.
*/}}
{{- define "netif-rx-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of every object: the release name, followed by the chart name unless the release
name already contains it.
*/}}
{{- define "netif-rx-exporter.fullname" -}}
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

{{- define "netif-rx-exporter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "netif-rx-exporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{/*
Namespace of an optional object (monitor, rule, dashboards): its own setting, else the chart's.
Call with (list $ .Values.serviceMonitor.namespace).
*/}}
{{- define "netif-rx-exporter.objectNamespace" -}}
{{- $root := index . 0 }}
{{- default (include "netif-rx-exporter.namespace" $root) (index . 1) }}
{{- end }}

{{- define "netif-rx-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "netif-rx-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "netif-rx-exporter.labels" -}}
helm.sh/chart: {{ include "netif-rx-exporter.chart" . }}
{{ include "netif-rx-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/component: metrics
app.kubernetes.io/part-of: {{ include "netif-rx-exporter.name" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ tpl (toYaml .) $ }}
{{- end }}
{{- end }}

{{- define "netif-rx-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "netif-rx-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
An image reference from {registry, repository, tag, digest}. Call with
(dict "image" .Values.image "defaultTag" .Chart.AppVersion).
*/}}
{{- define "netif-rx-exporter.imageRef" -}}
{{- $image := .image }}
{{- $ref := $image.repository }}
{{- with $image.registry }}
{{- $ref = printf "%s/%s" . $ref }}
{{- end }}
{{- $ref = printf "%s:%s" $ref (default .defaultTag $image.tag) }}
{{- with $image.digest }}
{{- $ref = printf "%s@%s" $ref . }}
{{- end }}
{{- $ref }}
{{- end }}

{{/*
BPF statistics mode as the exporter will run it: the configured one, else its default.
*/}}
{{- define "netif-rx-exporter.bpfStatsMode" -}}
{{- $mode := "sampled" }}
{{- with .Values.config }}
{{- with .bpf_stats }}
{{- with .mode }}
{{- $mode = . }}
{{- end }}
{{- end }}
{{- end }}
{{- $mode }}
{{- end }}

{{/*
Capabilities the container keeps, one per line: BPF and PERFMON to load and attach the probe,
SYS_ADMIN to enable the kernel's BPF run-time statistics (every mode but off), and any extra.
*/}}
{{- define "netif-rx-exporter.capabilities" -}}
{{- $caps := list "BPF" "PERFMON" }}
{{- if ne (include "netif-rx-exporter.bpfStatsMode" .) "off" }}
{{- $caps = append $caps "SYS_ADMIN" }}
{{- end }}
{{- range .Values.securityContext.extraCapabilities }}
{{- $caps = append $caps . }}
{{- end }}
{{- toYaml (uniq $caps) }}
{{- end }}

{{/*
"true" when the exporter tells who owns each network namespace: config.namespaces all and
config.attribution.enabled not false (the exporter's default is on).
*/}}
{{- define "netif-rx-exporter.attribution" -}}
{{- $config := .Values.config | default dict }}
{{- $attribution := $config.attribution | default dict }}
{{- if and (eq ($config.namespaces | default "host") "all") (ne $attribution.enabled false) }}true{{ end }}
{{- end }}

{{/*
Names of the volumes of attribution.hostPaths: node- and the path's words.
*/}}
{{- define "netif-rx-exporter.hostPathVolume" -}}
{{- printf "node%s" (regexReplaceAll "[^a-z0-9]+" (lower .) "-") | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Relabelings that every monitor starts with: the pod's node as the node label.
*/}}
{{- define "netif-rx-exporter.nodeRelabelings" -}}
- sourceLabels: [__meta_kubernetes_pod_node_name]
  targetLabel: node
  action: replace
{{- end }}

{{- define "netif-rx-exporter.validate" -}}
{{- if and .Values.serviceMonitor.enabled .Values.podMonitor.enabled }}
{{- fail "serviceMonitor.enabled and podMonitor.enabled are both true: every node would be scraped twice; enable one of them" }}
{{- end }}
{{- if and .Values.serviceMonitor.enabled (not .Values.service.enabled) }}
{{- fail "serviceMonitor.enabled needs service.enabled: a ServiceMonitor selects a Service" }}
{{- end }}
{{- with .Values.updateStrategy.rollingUpdate }}
{{- if and .maxSurge (ne (toString .maxSurge) "0") (ne (toString .maxSurge) "0%") }}
{{- fail "updateStrategy.rollingUpdate.maxSurge must be 0: with hostNetwork two pods of one node would compete for the same port" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The monitors' sampleLimit: the value given (0: none), or, when null, config.max_series (the
exporter's default 20000) + 1000 for the exporter's own metrics. A limit at or below max_series
would fail whole scrapes before the exporter's cap folds devices: refused.
Argument: (list . $monitor).
*/}}
{{- define "netif-rx-exporter.sampleLimit" -}}
{{- $root := index . 0 -}}
{{- $monitor := index . 1 -}}
{{- $maxSeries := 20000 -}}
{{- if and (kindIs "map" $root.Values.config) (hasKey $root.Values.config "max_series") -}}
{{- $maxSeries = int $root.Values.config.max_series -}}
{{- end -}}
{{- if kindIs "invalid" $monitor.sampleLimit -}}
{{- add $maxSeries 1000 -}}
{{- else -}}
{{- $limit := int $monitor.sampleLimit -}}
{{- if and (gt $limit 0) (le $limit $maxSeries) -}}
{{- fail (printf "sampleLimit %d is not above config.max_series %d: Prometheus would fail whole scrapes before the exporter folds devices; raise sampleLimit (max_series + 1000) or lower max_series" $limit $maxSeries) -}}
{{- end -}}
{{- $limit -}}
{{- end -}}
{{- end -}}

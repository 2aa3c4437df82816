{{/* The chart name, overridable. */}}
{{- define "toolnexus.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release-qualified name every object is called by. */}}
{{- define "toolnexus.fullname" -}}
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

{{- define "toolnexus.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "toolnexus.labels" -}}
helm.sh/chart: {{ include "toolnexus.chart" . }}
{{ include "toolnexus.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the pods: never change them on upgrade. */}}
{{- define "toolnexus.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolnexus.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "toolnexus.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "toolnexus.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The ConfigMap mounted at /etc/toolnexus: the user's own, or the one this chart renders. */}}
{{- define "toolnexus.configMapName" -}}
{{- default (printf "%s-config" (include "toolnexus.fullname" .)) .Values.config.existingConfigMap }}
{{- end }}

{{/*
terminationGracePeriodSeconds, refusing a value the drain cannot fit in: the kubelet SIGKILLs
at the deadline, so it must outlast the preStop sleep plus server.shutdownGraceMs.
*/}}
{{- define "toolnexus.terminationGracePeriodSeconds" -}}
{{- $graceMs := 10000 }}
{{- if and (not .Values.config.existingConfigMap) (kindIs "map" .Values.config.toolnexus) }}
{{- with .Values.config.toolnexus.server }}
{{- if hasKey . "shutdownGraceMs" }}
{{- $graceMs = int .shutdownGraceMs }}
{{- end }}
{{- end }}
{{- end }}
{{- $needMs := add (mul (int .Values.lifecycle.preStopSleepSeconds) 1000) $graceMs }}
{{- $haveMs := mul (int .Values.terminationGracePeriodSeconds) 1000 }}
{{- if le $haveMs $needMs }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed lifecycle.preStopSleepSeconds + server.shutdownGraceMs (%d ms)" (int .Values.terminationGracePeriodSeconds) $needMs) }}
{{- end }}
{{- int .Values.terminationGracePeriodSeconds }}
{{- end }}

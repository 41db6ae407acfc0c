#!/usr/bin/env bash
# Validates the Helm chart deploy/helm/netif-rx-exporter with a real Helm binary:
#   - helm lint --strict (which enforces values.schema.json) for every ci/*-values.yaml case and
#     every Kubernetes version in KUBE_VERSIONS;
#   - helm template of the same matrix, every rendered object checked by validate-manifests.js
#     (Kubernetes and prometheus-operator schemas, unknown fields, least-privilege policy, one
#     source of truth for dashboards and rules), and every rendered PrometheusRule by promtool;
#   - the values the chart must refuse (unknown keys, wrong types, unsafe settings) and a Kubernetes
#     version it does not support;
#   - a configuration change rolls the pods (the checksum annotation changes).
#
#   helm-check.sh TOOLS_DIR      (TOOLS_DIR as prepared by setup-tools.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools=$(cd "${1:?usage: helm-check.sh TOOLS_DIR}" && pwd)
chart="$root/deploy/helm/netif-rx-exporter"
helm="$tools/helm/helm"
KUBE_VERSIONS=(1.25.0 1.29.0 1.33.0)

die() {
  echo "helm-check: FAIL: $*" >&2
  exit 1
}
for tool in node promtool sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian packages: nodejs prometheus coreutils)"
done
[[ -x "$helm" ]] || die "$helm is missing: run setup-tools.sh $tools first"
(cd "$tools" && sha256sum --check --status "$here/helm.sha256") || die "$helm does not match helm.sha256"

# Helm keeps its caches and configuration here, not in the user's home.
export HELM_CACHE_HOME="$tools/helm-home/cache" HELM_CONFIG_HOME="$tools/helm-home/config" \
  HELM_DATA_HOME="$tools/helm-home/data"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

passed=0
failed=0
pass() {
  passed=$((passed + 1))
  echo "helm-check: ok: $*"
}
fail() {
  failed=$((failed + 1))
  echo "helm-check: FAIL: $*" >&2
}

# Helm logs every symlink it follows at INFO level; keep stderr for real errors.
quiet_stderr() { grep -v 'found symbolic link in path' "$1" >&2 || true; }

# One source of truth: the chart links to the project's dashboards and rules.
[[ "$(readlink -f "$chart/files/dashboards")" == "$root/dashboards" ]] ||
  die "$chart/files/dashboards must be a symlink to $root/dashboards"
[[ "$(readlink -f "$chart/files/netif_rx_exporter.rules.yml")" == "$root/rules/netif_rx_exporter.rules.yml" ]] ||
  die "$chart/files/netif_rx_exporter.rules.yml must be a symlink to $root/rules/netif_rx_exporter.rules.yml"

# The schema lists the alerts that may be disabled: they must be the rules file's alerts.
# shellcheck disable=SC2016 # JavaScript, not shell
if node -e '
  const fs = require("fs");
  const schema = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const listed = schema.properties.prometheusRule.properties.disabledAlerts.items.enum.slice().sort();
  const alerts = [...fs.readFileSync(process.argv[2], "utf8").matchAll(/^\s*- alert: (\S+)\s*$/gm)].map((m) => m[1]).sort();
  if (JSON.stringify(listed) !== JSON.stringify(alerts)) {
    console.error(`values.schema.json lists [${listed}] but the rules file has [${alerts}]`);
    process.exit(1);
  }' "$chart/values.schema.json" "$root/rules/netif_rx_exporter.rules.yml"; then
  pass "values.schema.json knows every alert of the rules file"
else
  fail "values.schema.json and rules/netif_rx_exporter.rules.yml disagree on the alert names"
fi

# The README documents every value the schema defines (objects passed through whole count as one).
# shellcheck disable=SC2016 # JavaScript, not shell
if node -e '
  const fs = require("fs");
  const schema = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const readme = fs.readFileSync(process.argv[2], "utf8");
  const whole = new Set(["resources", "tests.resources", "securityContext.seccompProfile", "updateStrategy", "global"]);
  const missing = [];
  const walk = (node, prefix) => {
    for (const [key, sub] of Object.entries(node.properties || {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (path === "global") continue;
      if (sub.properties && !whole.has(path)) walk(sub, path);
      if (!sub.properties || whole.has(path) || path === "config") {
        if (!readme.includes("`" + path + "`")) missing.push(path);
      }
    }
  };
  walk(schema, "");
  if (missing.length) { console.error(`README.md does not document: ${missing.join(", ")}`); process.exit(1); }' \
  "$chart/values.schema.json" "$chart/README.md"; then
  pass "README.md documents every value"
else
  fail "README.md misses values (see above)"
fi

cases=("$chart"/ci/*-values.yaml)
((${#cases[@]} > 0)) || die "no ci/*-values.yaml cases in $chart"

validate() { # NAME [validator options...] < rendered
  local name=$1
  shift
  node "$here/validate-manifests.js" --modules "$tools" --rules "$root/rules/netif_rx_exporter.rules.yml" \
    --dashboards "$root/dashboards" --case "$name" "$@"
}

for values in "${cases[@]}"; do
  case_name=$(basename "$values" -values.yaml)
  for kube in "${KUBE_VERSIONS[@]}"; do
    id="$case_name@$kube"
    if "$helm" lint --strict --kube-version "$kube" -f "$values" "$chart" >"$scratch/lint.out" 2>"$scratch/lint.err"; then
      pass "$id: helm lint --strict"
    else
      cat "$scratch/lint.out"
      quiet_stderr "$scratch/lint.err"
      fail "$id: helm lint --strict"
      continue
    fi
    if ! "$helm" template netif-rx "$chart" --namespace netif-rx --kube-version "$kube" -f "$values" \
      >"$scratch/rendered.yaml" 2>"$scratch/template.err"; then
      quiet_stderr "$scratch/template.err"
      fail "$id: helm template"
      continue
    fi
    rm -f "$scratch/rules.yml"
    if validate "$id" --rules-out "$scratch/rules.yml" <"$scratch/rendered.yaml"; then
      pass "$id: rendered objects valid"
    else
      fail "$id: rendered objects"
      continue
    fi
    if [[ -f "$scratch/rules.yml" ]]; then
      if promtool check rules "$scratch/rules.yml" >"$scratch/promtool.out" 2>&1; then
        pass "$id: PrometheusRule passes promtool check rules"
      else
        cat "$scratch/promtool.out" >&2
        fail "$id: PrometheusRule fails promtool check rules"
      fi
    fi
  done
done

# With default values the PrometheusRule is the rules file, unchanged.
if "$helm" template netif-rx "$chart" --set prometheusRule.enabled=true,serviceMonitor.enabled=true \
  >"$scratch/rendered.yaml" 2>"$scratch/template.err" &&
  validate rules-unchanged --rules-unchanged <"$scratch/rendered.yaml"; then
  pass "PrometheusRule with default values equals rules/netif_rx_exporter.rules.yml"
else
  quiet_stderr "$scratch/template.err"
  fail "PrometheusRule with default values differs from rules/netif_rx_exporter.rules.yml"
fi

# prometheusRule.runbookUrl replaces the base of every alert's runbook_url.
if "$helm" template netif-rx "$chart" \
  --set prometheusRule.enabled=true,prometheusRule.runbookUrl=https://wiki.example.org/netif-rx/ \
  >"$scratch/rendered.yaml" 2>"$scratch/template.err" &&
  validate runbook-base --runbook-base https://wiki.example.org/netif-rx <"$scratch/rendered.yaml"; then
  pass "prometheusRule.runbookUrl sets the base of every alert's runbook_url"
else
  quiet_stderr "$scratch/template.err"
  fail "prometheusRule.runbookUrl does not set the base of every alert's runbook_url"
fi

# dashboards.clusterLabel names the cluster label in every dashboard.
if "$helm" template netif-rx "$chart" --set dashboards.enabled=true,dashboards.clusterLabel=k8s_cluster \
  >"$scratch/rendered.yaml" 2>"$scratch/template.err" &&
  validate cluster-label --cluster-label k8s_cluster <"$scratch/rendered.yaml"; then
  pass "dashboards.clusterLabel sets the dashboards' cluster label"
else
  quiet_stderr "$scratch/template.err"
  fail "dashboards.clusterLabel does not set the dashboards' cluster label"
fi

# The packaged chart carries the dashboards and rules themselves, not links.
if "$helm" package "$chart" --destination "$scratch/package" >"$scratch/package.out" 2>&1 &&
  tar -tvzf "$scratch"/package/netif-rx-exporter-*.tgz >"$scratch/package.list" &&
  ! grep -q '^l' "$scratch/package.list" &&
  grep -q 'netif-rx-exporter/files/netif_rx_exporter.rules.yml$' "$scratch/package.list" &&
  "$helm" template netif-rx "$scratch"/package/netif-rx-exporter-*.tgz \
    --set prometheusRule.enabled=true,dashboards.enabled=true >"$scratch/rendered.yaml" 2>"$scratch/template.err" &&
  validate packaged --rules-unchanged <"$scratch/rendered.yaml"; then
  pass "helm package resolves the links: the packaged chart renders the same dashboards and rules"
else
  quiet_stderr "$scratch/package.out"
  quiet_stderr "$scratch/template.err"
  fail "the packaged chart does not carry the dashboards and rules"
fi

# Namespace attribution's view of the node: exactly its read-only host paths and hostPID, and none
# of them with namespaces: host; the policy refuses any other host path. (Pinning off here: the
# pins' /sys/fs/bpf is checked below.)
if "$helm" template netif-rx "$chart" --set bpf.pinPath= >"$scratch/rendered.yaml" 2>"$scratch/template.err" &&
  [[ $(grep -c 'type: DirectoryOrCreate' "$scratch/rendered.yaml") == 4 && $(grep -c '^ *hostPID: true' "$scratch/rendered.yaml") == 1 ]] &&
  "$helm" template netif-rx "$chart" --set bpf.pinPath= --set config.namespaces=host >"$scratch/host.yaml" 2>>"$scratch/template.err" &&
  ! grep -Eq 'hostPath|hostPID' "$scratch/host.yaml" && validate attribution-off <"$scratch/host.yaml"; then
  pass "namespaces: all mounts the 4 runtime and pod log folders and sets hostPID; namespaces: host neither"
else
  quiet_stderr "$scratch/template.err"
  fail "the attribution's host paths and hostPID do not follow config.namespaces"
fi
# A change of the exporter's configuration rolls the pods.
checksum() {
  "$helm" template netif-rx "$chart" "$@" 2>/dev/null | sed -n 's/^ *checksum\/config: *//p'
}
before=$(checksum)
after=$(checksum --set config.poll_interval=5s)
if [[ -n "$before" && -n "$after" && "$before" != "$after" ]]; then
  pass "a configuration change changes the pods' checksum/config annotation"
else
  fail "checksum/config did not change with the configuration ('$before' -> '$after')"
fi

# Beside the attribution's, the pins' /sys/fs/bpf (bpf.pinPath) is the only host path the policy
# allows; pinning off mounts none.
"$helm" template netif-rx "$chart" --set 'extraVolumes[0].name=host,extraVolumes[0].hostPath.path=/etc' \
  >"$scratch/hostpath.yaml" 2>/dev/null
if validate hostpath <"$scratch/hostpath.yaml" >"$scratch/hostpath.out" 2>&1; then
  fail "another hostPath passes the policy"
elif grep -q "hostPath volume host (/etc)" "$scratch/hostpath.out"; then
  pass "the policy refuses any hostPath but the attribution's and the pins' /sys/fs/bpf"
else
  cat "$scratch/hostpath.out" >&2
  fail "another hostPath fails the policy, but not for its host path"
fi
"$helm" template netif-rx "$chart" --set bpf.pinPath= >"$scratch/unpinned.yaml"
if grep -q 'bpf-maps\|bpf.pin-path' "$scratch/unpinned.yaml"; then
  fail "bpf.pinPath='' still mounts /sys/fs/bpf or pins"
else
  pass "bpf.pinPath='' mounts no host path and pins nothing"
fi

# What the chart must refuse.
refuse() { # DESCRIPTION EXPECTED-MESSAGE-REGEX helm-arguments...
  local what=$1 pattern=$2
  shift 2
  if "$helm" "$@" >"$scratch/refuse.out" 2>&1; then
    fail "accepted $what"
  elif grep -Eq "$pattern" "$scratch/refuse.out"; then
    pass "refuses $what"
  else
    grep -v 'found symbolic link' "$scratch/refuse.out" >&2 || true
    fail "refused $what, but without the expected message /$pattern/"
  fi
}
refuse "an unknown configuration key" "additional properties 'bogus' not allowed" \
  lint --strict "$chart" --set config.bogus=1
refuse "an unknown top-level value" "additional properties 'replicas' not allowed" \
  lint --strict "$chart" --set replicas=3
refuse "a port of the wrong type" "got string, want integer" \
  lint --strict "$chart" --set-string web.port=metrics
refuse "an unknown bpf_stats mode" "value must be one of" \
  lint --strict "$chart" --set config.bpf_stats.mode=sometimes
refuse "a malformed duration" "does not match pattern" \
  lint --strict "$chart" --set config.poll_interval=fast
refuse "capability ALL" "extraCapabilities" \
  lint --strict "$chart" --set 'securityContext.extraCapabilities={ALL}'
refuse "a host path other than the attribution's" "value must be one of" \
  lint --strict "$chart" --set 'attribution.hostPaths={/etc}'
refuse "maxSurge above 0" "maxSurge" \
  lint --strict "$chart" --set updateStrategy.rollingUpdate.maxSurge=1
refuse "disabling an alert that does not exist" "disabledAlerts" \
  lint --strict "$chart" --set 'prometheusRule.disabledAlerts={NoSuchAlert}'
refuse "a ServiceMonitor and a PodMonitor together" "scraped twice" \
  template netif-rx "$chart" --set serviceMonitor.enabled=true,podMonitor.enabled=true
refuse "a ServiceMonitor without a Service" "needs service.enabled" \
  template netif-rx "$chart" --set serviceMonitor.enabled=true,service.enabled=false
refuse "a pin path outside /sys/fs/bpf" "does not match pattern" \
  lint --strict "$chart" --set bpf.pinPath=/tmp/pins
refuse "Kubernetes 1.24" "incompatible with Kubernetes" \
  template netif-rx "$chart" --kube-version 1.24.0

echo "helm-check: $passed passed, $failed failed"
((failed == 0))

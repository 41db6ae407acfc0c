#!/usr/bin/env bash
# Checks the jsonnet mixin (mixin/) against the files it generates:
#   - rendered with its default _config, it reproduces dashboards/*.json and
#     rules/netif_rx_exporter.rules.yml byte for byte (one source: run `make mixin` after editing
#     mixin/), so every other fleet test keeps testing the mixin's output;
#   - rendered with another _config (cluster label, selectors, runbook base, a threshold), the
#     change reaches every place it should and nothing of the defaults is left; the rules still
#     pass promtool check rules and the dashboards still pass check-dashboards.js.
#
#   check-mixin.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

die() {
  echo "check-mixin: FAIL: $*" >&2
  exit 1
}
for tool in jsonnet promtool node; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian packages: jsonnet prometheus nodejs)"
done

passed=0
failed=0
pass() {
  passed=$((passed + 1))
  echo "check-mixin: ok: $*"
}
fail() {
  failed=$((failed + 1))
  echo "check-mixin: FAIL: $*" >&2
}
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- default _config: the shipped files ------------------------------------------------------
bash "$root/mixin/render.sh" "$work/default" || die "the mixin does not render"
shipped=("$root"/dashboards/*.json "$root/rules/netif_rx_exporter.rules.yml")
for file in "${shipped[@]}"; do
  relative=${file#"$root"/}
  if diff -u "$file" "$work/default/$relative" >"$work/diff"; then
    pass "$relative is the mixin's rendering"
  else
    head -n 40 "$work/diff" >&2
    fail "$relative differs from the mixin's rendering (edit mixin/, then run: make mixin)"
  fi
done
rendered=$(cd "$work/default" && ls dashboards/*.json rules/*.yml | sort)
in_tree=$(cd "$root" && ls dashboards/*.json rules/*.yml | sort)
check "the mixin renders exactly the shipped files" test "$rendered" == "$in_tree"

# ---- another _config ---------------------------------------------------------------------------
config='{
  netifRxSelector: "job=\"rx\", env=\"prod\"",
  clusterLabel: "region",
  netifRxDashboardSelector: "job=\"rx\"",
  nodeExporterSelector: "job=\"node\"",
  runbookURLPattern: "https://runbooks.test/netif.md#%s",
  thresholds+: { deviceBusyPackets: 1234567, probeCpuShare: 0.05 },
}'
bash "$root/mixin/render.sh" "$work/custom" "$config" || die "the mixin does not render with $config"
rules="$work/custom/rules/netif_rx_exporter.rules.yml"
default_rules="$work/default/rules/netif_rx_exporter.rules.yml"

check "promtool check rules accepts the rules of another _config" promtool check rules "$rules"
# Every selector of the default rules becomes the new one; the default job appears nowhere else
# than in the header comment.
expected=$(grep -o 'job="netif-rx-exporter"' <(grep -v '^#' "$default_rules") | wc -l)
got=$(grep -o 'job="rx", env="prod"' "$rules" | wc -l)
check "netifRxSelector replaces all $expected selectors of the rules (got $got)" test "$got" -eq "$expected" -a "$expected" -gt 10
check "no default selector is left in the rules" test -z "$(grep -v '^#' "$rules" | grep 'netif-rx-exporter"' || true)"
alerts=$(grep -c -- '- alert:' "$rules")
urls=$(grep -c 'runbook_url: https://runbooks.test/netif.md#netifrx[a-z]*$' "$rules")
check "runbookURLPattern sets all $alerts runbook_url annotations (got $urls)" test "$urls" -eq "$alerts"
check "thresholds set the threshold recording rules" \
  grep -qzP 'device_busy_packets:threshold\n\s+expr: vector\(1234567\)' "$rules"
check "fractional thresholds keep their value" \
  grep -qzP 'probe_cpu_share:threshold\n\s+expr: vector\(0.05\)' "$rules"

# The dashboards: the hidden cluster_label constant and the variables' extra matchers.
if node - "$work/custom/dashboards" "$work/default/dashboards" <<'JS'; then pass "the dashboards take clusterLabel and the selectors"; else fail "the dashboards do not take clusterLabel and the selectors"; fi
const fs = require('fs');
const path = require('path');
const [custom, defaults] = process.argv.slice(2);
let ok = true;
const want = (cond, what) => { if (!cond) { ok = false; console.error('check-mixin: ' + what); } };
for (const name of fs.readdirSync(custom)) {
  const d = JSON.parse(fs.readFileSync(path.join(custom, name)));
  const base = JSON.parse(fs.readFileSync(path.join(defaults, name)));
  const vars = Object.fromEntries(d.templating.list.map(v => [v.name, v]));
  want(vars.cluster_label && vars.cluster_label.query === 'region', `${name}: cluster_label is not "region"`);
  for (const v of ['cluster', 'job', 'instance', 'device', 'node_job']) {
    if (!vars[v]) continue;
    const q = vars[v].query.query;
    const sel = v === 'node_job' ? 'job="node"' : 'job="rx"';
    want(q.includes(sel) && vars[v].definition === q, `${name}: variable ${v} lacks ${sel}: ${q}`);
  }
  // Everything outside the variables is unchanged.
  const strip = x => JSON.stringify({ ...x, templating: null });
  want(strip(d) === strip(base), `${name}: the panels changed`);
}
process.exit(ok ? 0 : 1);
JS
# check-dashboards.js holds the shipped dashboards to the default cluster label: give it the
# other selectors only.
bash "$root/mixin/render.sh" "$work/selectors" "$config + { clusterLabel: 'cluster' }" ||
  die "the mixin does not render with other selectors"
if node "$here/check-dashboards.js" "$work/selectors/dashboards" </dev/null >"$work/dashboards.log" 2>&1; then
  pass "check-dashboards.js accepts the dashboards with other selectors"
else
  tail -n 20 "$work/dashboards.log" >&2
  fail "check-dashboards.js refuses the dashboards with other selectors"
fi

echo "check-mixin: $passed passed, $failed failed"
((failed == 0))

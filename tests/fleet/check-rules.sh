#!/usr/bin/env bash
# Checks the alerting rules rules/netif_rx_exporter.rules.yml:
#   - promtool check rules (syntax, PromQL, templates) and promtool test rules (rules/tests/);
#   - every alert has severity, summary and description, a runbook section in docs/runbook.md,
#     a runbook_url pointing at that section's anchor (one base shared by every alert), and unit
#     tests where it fires and where it stays quiet;
#   - every metric it queries belongs to the exporter's metric contract.
#
#   check-rules.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rules="$root/rules/netif_rx_exporter.rules.yml"
runbook="$root/docs/runbook.md"

die() {
  echo "check-rules: FAIL: $*" >&2
  exit 1
}
for tool in promtool node awk; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian packages: prometheus nodejs gawk)"
done
[[ -f "$rules" ]] || die "$rules is missing"
shopt -s nullglob
tests=("$root"/rules/tests/*.yml)
((${#tests[@]} > 0)) || die "no promtool unit tests in $root/rules/tests"

passed=0
failed=0
pass() {
  passed=$((passed + 1))
  echo "check-rules: ok: $*"
}
fail() {
  failed=$((failed + 1))
  echo "check-rules: FAIL: $*" >&2
}

if promtool check rules "$rules"; then pass "promtool check rules"; else fail "promtool check rules"; fi
if promtool test rules "${tests[@]}"; then pass "promtool test rules (${#tests[@]} files)"; else fail "promtool test rules"; fi

mapfile -t alerts < <(sed -n 's/^[[:space:]]*- alert:[[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*$/\1/p' "$rules")
((${#alerts[@]} > 0)) || die "no alerts found in $rules"

# Each alert's block, from its "- alert:" line to the next rule.
block() {
  awk -v name="$1" '
    /^[[:space:]]*- (alert|record):/ { inside = ($0 ~ ("- alert:[[:space:]]*" name "[[:space:]]*$")) }
    inside { print }' "$rules"
}
# The runbook base: the runbook_url of the first alert up to '#'; every alert must share it.
runbook_base=$(sed -n 's/^[[:space:]]*runbook_url:[[:space:]]*\([^#[:space:]]*\)#.*$/\1/p' "$rules" | head -n 1)
[[ "$runbook_base" == https://*/runbook.md ]] || die "no runbook_url with an https://.../runbook.md base in $rules"
# Alert names with a quiet (exp_alerts: []) and a firing (exp_alerts: + items) unit test.
quiet=$(awk '/alertname:/ { a = $2 } /exp_alerts:[[:space:]]*\[\][[:space:]]*$/ { print a }' "${tests[@]}" | sort -u)
firing=$(awk '/alertname:/ { a = $2 } /exp_alerts:[[:space:]]*$/ { print a }' "${tests[@]}" | sort -u)

for alert in "${alerts[@]}"; do
  text=$(block "$alert")
  missing=()
  for field in 'severity:' 'summary:' 'description:'; do
    grep -q "^[[:space:]]*$field" <<<"$text" || missing+=("${field%:}")
  done
  grep -Eq '^[[:space:]]*severity:[[:space:]]*(critical|warning|info)[[:space:]]*$' <<<"$text" ||
    missing+=("a severity of critical, warning or info")
  if ((${#missing[@]})); then fail "$alert lacks ${missing[*]}"; else pass "$alert has severity, summary and description"; fi
  if [[ -f "$runbook" ]] && grep -q "^## $alert\$" "$runbook"; then
    pass "$alert has a runbook section"
  else
    fail "$alert has no '## $alert' section in docs/runbook.md"
  fi
  anchor=$(tr '[:upper:]' '[:lower:]' <<<"$alert") # GitHub/GitLab anchor of '## $alert'
  url=$(sed -n 's/^[[:space:]]*runbook_url:[[:space:]]*\([^[:space:]]*\)[[:space:]]*$/\1/p' <<<"$text")
  if [[ "$url" == "$runbook_base#$anchor" ]]; then
    pass "$alert links its runbook section: $url"
  else
    fail "$alert has runbook_url '$url', expected '$runbook_base#$anchor'"
  fi
  if grep -qx "$alert" <<<"$firing"; then pass "$alert has a unit test where it fires"; else fail "$alert has no unit test where it fires"; fi
  if grep -qx "$alert" <<<"$quiet"; then pass "$alert has a unit test where it stays quiet"; else fail "$alert has no unit test where it stays quiet"; fi
done

# Runbook sections for alerts that no longer exist.
if [[ -f "$runbook" ]]; then
  while read -r section; do
    grep -qx "$section" < <(printf '%s\n' "${alerts[@]}") ||
      fail "docs/runbook.md has a section for $section, which is not an alert"
  done < <(sed -n 's/^## \(NetifRx[A-Za-z0-9_]*\)$/\1/p' "$runbook")
fi

if unknown=$(node -e '
  const { CONTRACT_METRICS, metricNames } = require(process.argv[1]);
  // The expressions: "expr: X" lines and the "expr: |" blocks under them.
  const lines = require("fs").readFileSync(process.argv[2], "utf8").split("\n");
  const exprs = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]);
    if (!m) continue;
    if (m[2] !== "|" && m[2] !== ">") { exprs.push(m[2]); continue; }
    const body = [];
    while (i + 1 < lines.length && (lines[i + 1].trim() === "" || lines[i + 1].search(/\S/) > m[1].length)) body.push(lines[++i]);
    exprs.push(body.join("\n"));
  }
  if (!exprs.length) { console.log("(no expressions found)"); process.exit(1); }
  const bad = [...metricNames(exprs.join("\n"))].filter((n) => !CONTRACT_METRICS.has(n));
  if (bad.length) { console.log(bad.join(" ")); process.exit(1); }' "$here/lib/promql-sources.js" "$rules"); then
  pass "every metric the rules query is in the metric contract"
else
  fail "the rules query metrics outside the contract: $unknown"
fi

echo "check-rules: $passed passed, $failed failed"
((failed == 0))

#!/usr/bin/env bash
# End to end: the real binary as a user runs it. Scrapes it, lints the
# exposition with promtool, and checks every bad input's one-line answer.
# Usage: exporter_e2e.sh <netif_rx_exporter binary> <source dir>
set -uo pipefail

binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools curl promtool setpriv python3 gzip
require_root

# expect_failure NAME EXIT_CODE PATTERN -- ARGS...: the binary must exit with
# EXIT_CODE and print one line matching PATTERN.
expect_failure() {
  local name=$1 code=$2 pattern=$3
  shift 4
  local out rc
  out=$(timeout 10 "$@" 2>&1)
  rc=$?
  if [[ $rc -ne $code ]]; then
    fail "$name: exit $rc, expected $code; output: $out"
  elif ! grep -Eq -- "$pattern" <<<"$out"; then
    fail "$name: output does not match /$pattern/: $out"
  elif [[ $(grep -c 'level=error\|error:' <<<"$out") -gt 1 ]]; then
    fail "$name: more than one error line: $out"
  else
    pass "$name: $(grep -E -- "$pattern" <<<"$out" | head -1)"
  fi
}

# --- A normal start, scrape and stop. ---
port=$(free_port)
start_exporter "$work/run.log" --web.listen-address="127.0.0.1:$port" --log.level=info
if ! wait_http "http://127.0.0.1:$port/-/ready" 200; then
  echo "FAIL: the exporter did not become ready; its log:" >&2
  cat "$work/run.log" >&2
  exit 1
fi
pass "exporter ready on 127.0.0.1:$port"

# Loopback traffic, so that lo has series.
for _ in 1 2 3; do curl -s -o /dev/null "http://127.0.0.1:$port/"; done
sleep 1.2
curl -s "http://127.0.0.1:$port/metrics" >"$work/metrics.txt"
for family in netif_rx_packets_total netif_rx_skbs_total netif_rx_bytes_total \
              netif_rx_busiest_cpu_packets_total \
              netif_rx_untracked_packets_total netif_rx_gso_fallbacks_total \
              netif_rx_exporter_build_info netif_rx_exporter_probe_attached \
              netif_rx_exporter_poll_duration_seconds netif_rx_exporter_poll_errors_total \
              netif_rx_exporter_last_poll_timestamp_seconds; do
  if grep -q "^# TYPE $family " "$work/metrics.txt"; then pass "family $family"; else fail "family $family missing"; fi
done
# lo is not of the physical class that keeps per-CPU series by default: one series, no cpu label.
if grep -Eq '^netif_rx_packets_total\{device="lo"\} [1-9]' "$work/metrics.txt"; then
  pass "loopback traffic counted (one series, no cpu label)"
else
  fail "no netif_rx_packets_total for lo: $(grep netif_rx_packets_total "$work/metrics.txt")"
fi
if lint=$(promtool check metrics <"$work/metrics.txt" 2>&1); then
  pass "promtool check metrics"
else
  fail "promtool check metrics: $lint"
fi

status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[[ $(status "http://127.0.0.1:$port/") == 200 ]] && grep -q 'href="/metrics"' <(curl -s "http://127.0.0.1:$port/") \
  && pass "landing page links to /metrics" || fail "landing page"
[[ $(status "http://127.0.0.1:$port/-/healthy") == 200 ]] && pass "/-/healthy 200" || fail "/-/healthy"
[[ $(status "http://127.0.0.1:$port/nope") == 404 ]] && pass "unknown path 404" || fail "unknown path not 404"
[[ $(status -X POST "http://127.0.0.1:$port/metrics") == 405 ]] && pass "POST /metrics 405" || fail "POST not 405"
[[ $(status -I "http://127.0.0.1:$port/metrics") == 200 ]] && pass "HEAD /metrics 200" || fail "HEAD /metrics"
# Accept-Encoding: gzip (as Prometheus sends it): a gzip body of the same exposition.
headers=$(curl -s -D - -o "$work/metrics.gz" -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/metrics")
if grep -qi '^Content-Encoding: gzip' <<<"$headers" && gzip -t "$work/metrics.gz" 2>/dev/null \
   && gzip -dc "$work/metrics.gz" | promtool check metrics >/dev/null 2>&1 \
   && gzip -dc "$work/metrics.gz" | grep -q '^# TYPE netif_rx_packets_total counter'; then
  pass "/metrics gzip-compressed when asked"
else
  fail "/metrics with Accept-Encoding: gzip: $(head -c 300 <<<"$headers")"
fi
grep -qi '^Content-Encoding' < <(curl -s -D - -o /dev/null "http://127.0.0.1:$port/metrics") \
  && fail "/metrics compressed without Accept-Encoding" || pass "/metrics plain without Accept-Encoding"

# --- Bad input, each with its one line. ---
expect_failure "port in use" 1 "cannot listen on 127.0.0.1:$port: Address already in use.*--web.listen-address" \
  -- "$binary" --web.listen-address="127.0.0.1:$port"

start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
pids=()
if [[ $rc -eq 0 && $elapsed_ms -lt 2000 ]]; then pass "SIGTERM: exit 0 in ${elapsed_ms} ms"; else fail "SIGTERM: exit $rc after ${elapsed_ms} ms"; fi
grep -q 'level=error' "$work/run.log" && fail "errors logged during a clean run: $(grep level=error "$work/run.log")"

expect_failure "unknown flag" 2 "unknown flag '--nope'" -- "$binary" --nope
expect_failure "flag without value" 2 "needs a value" -- "$binary" --config.file
expect_failure "bad log level" 2 "--log.level: 'loud' is not one of" -- "$binary" --log.level=loud
expect_failure "bad listen address" 1 "--web.listen-address: 'nowhere' has no port" -- "$binary" --web.listen-address=nowhere

printf 'poll_interval: 1s\nper_cpu: maybe\n' >"$work/bad-type.yaml"
expect_failure "config wrong type" 1 "$work/bad-type.yaml:2:10: key 'per_cpu': 'maybe' is not a boolean" \
  -- "$binary" --config.file="$work/bad-type.yaml"
printf 'pol_interval: 1s\n' >"$work/unknown-key.yaml"
expect_failure "config unknown key" 1 "$work/unknown-key.yaml:1:1: key 'pol_interval': unknown key" \
  -- "$binary" --config.file="$work/unknown-key.yaml"
printf 'max_devices: 0\n' >"$work/range.yaml"
expect_failure "config out of range" 1 "$work/range.yaml:1:14: key 'max_devices': 0 is out of range" \
  -- "$binary" --config.file="$work/range.yaml"
expect_failure "config missing" 1 "$work/none.yaml: cannot read the configuration file" \
  -- "$binary" --config.file="$work/none.yaml"
expect_failure "kernel without BTF" 1 "kernel BTF not readable at $work/no-btf.*CONFIG_DEBUG_INFO_BTF" \
  -- "$binary" --bpf.btf-path="$work/no-btf" --web.listen-address="127.0.0.1:$(free_port)"
expect_failure "missing privileges" 1 "missing privileges to load the probe: it needs CAP_BPF and CAP_PERFMON" \
  -- setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$binary" \
     --web.listen-address="127.0.0.1:$(free_port)"

# The shipped example configuration is valid as it is.
port=$(free_port)
start_exporter "$work/example.log" --config.file="$source_dir/config/netif_rx_exporter.yaml" \
  --web.listen-address="127.0.0.1:$port"
wait_http "http://127.0.0.1:$port/-/ready" 200 && pass "starts with config/netif_rx_exporter.yaml" \
  || fail "example config: $(cat "$work/example.log")"
stop_exporter; pids=()

echo "$((checks - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]

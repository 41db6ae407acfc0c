#!/usr/bin/env bash
# Issue 34's item 5: the exporter's poll time, scrape time and RSS with 1,000
# devices (500 veth pairs) in one guest kind booted twice, with 2 and with 128
# possible CPUs (possible_cpus=; 2 online in both, so that only the per-CPU
# maps' width differs), the chart's configuration. Not part of make test.
#   many-cpu-bench.sh CPU_SCALE EXPORTER OUT_DIR
# CPU_SCALE is build/bench/bench/netif_rx_cpu_scale, EXPORTER an optimized
# build's (build/bench/netif_rx_exporter: make bench builds both). Prints a
# table, the ratios and the goals (RSS <= 24 MiB at 128; poll and scrape at
# 128 at most 8x their 2-CPU figures); exit status 0 when both guests ran.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=${1:?usage: many-cpu-bench.sh CPU_SCALE EXPORTER OUT_DIR}
exporter=${2:?}
out=${3:?}
name=6.1
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
values="$here/../../deploy/helm/netif-rx-exporter/values.yaml"
chart_config=$(awk '/^config:/ { inside = 1; next } inside && /^[^ #]/ { exit }
  inside && !/^ *#/ && NF { print substr($0, 3) }' "$values")
kernel_dir=$("$here/fetch-kernel.sh" "$name") || { echo "cannot fetch kernel $name" >&2; exit 1; }
{
  echo '#!/bin/sh'
  printf "chart_config='%s'\n" "$chart_config"
  cat "$here/many-cpu-bench-guest.sh"
} >"$work/guest.sh"
"$here/make-initramfs.sh" "$work/initrd.gz" "$kernel_dir" "$work/guest.sh" "$exporter" "$tool" \
  "$(command -v ip)" || exit 1

declare -A rows
for possible in 2 128; do
  console="$out/cpu-scale-$possible.console"
  started=$(date +%s)
  NETIF_RX_VM_APPEND="possible_cpus=$possible tsc=reliable lpj=4000000" \
    "$here/boot-guest.sh" "$kernel_dir" "$work/initrd.gz" "$console" 400 1024
  row=$(tr -d '\r' <"$console" | sed -n 's/^CPUSCALE //p')
  echo "guest with $possible possible CPUs: $(tr -d '\r' <"$console" | sed -n 's/^CPUSCALE_CPUS //p'), $(($(date +%s) - started)) s"
  [[ -n "$row" ]] || { echo "no figures from the guest with $possible possible CPUs: $(grep -a netif_rx_cpu_scale "$console" | tail -n 1)" >&2; exit 1; }
  rows[$possible]=$row
done
echo "| possible CPUs | devices | series | poll ms (mean) | scrape ms (median, p25 .. p75) | RSS MiB | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|"
echo "${rows[2]}"
echo "${rows[128]}"
# Columns of a row: | cpus | devices | series | poll (N polls) | scrape (p25 .. p75) | rss | peak |
field() { awk -F '|' -v n="$2" '{ split($(n + 1), a, " "); print a[1] }' <<<"$1"; }
awk -v p2="$(field "${rows[2]}" 4)" -v p128="$(field "${rows[128]}" 4)" \
  -v s2="$(field "${rows[2]}" 5)" -v s128="$(field "${rows[128]}" 5)" -v rss="$(field "${rows[128]}" 6)" 'BEGIN {
  printf "poll 128 / 2: %.2fx (goal <= 8: %s); scrape 128 / 2: %.2fx (goal <= 8: %s); RSS at 128: %s MiB (goal <= 24: %s)\n",
    p128 / p2, p128 / p2 <= 8 ? "met" : "MISSED", s128 / s2, s128 / s2 <= 8 ? "met" : "MISSED",
    rss, rss <= 24 ? "met" : "MISSED" }'

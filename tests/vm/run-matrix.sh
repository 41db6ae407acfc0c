#!/usr/bin/env bash
# The kernel matrix: every kernel of kernels.list, two guests at a time,
# then one markdown table of what the guests measured.
#   run-matrix.sh EXPORTER OUT_DIR [NAME...]
# Writes OUT_DIR/matrix.md (the README's table comes from it). Fails when any
# kernel cannot be fetched, booted or fails a check; never skips one.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: run-matrix.sh EXPORTER OUT_DIR [NAME...]}
out=${2:?}
shift 2
list=${NETIF_RX_KERNEL_LIST:-$here/kernels.list}
names=("$@")
[[ ${#names[@]} -gt 0 ]] || mapfile -t names < <(awk '$1 !~ /^#/ && NF >= 4 {print $1}' "$list")
[[ -x "$exporter" ]] || { echo "run-matrix: $exporter is not an executable" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
started=$(date +%s)

# Fetch first, one after the other (one apt cache), so that a guest's time
# is not the download's.
for name in "${names[@]}"; do
  "$here/fetch-kernel.sh" "$name" >/dev/null 2>"$out/$name.fetch.log" &&
    echo "kernel $name: fetched" || echo "kernel $name: fetch failed: $(tail -n 1 "$out/$name.fetch.log")"
done

parallel=${NETIF_RX_VM_PARALLEL:-2}
pids=()
for name in "${names[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do wait -n; done
  "$here/run-kernel.sh" "$name" "$exporter" "$out" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

fact() { sed -n "s/^$2=//p" "$out/$1.facts" 2>/dev/null | head -n 1; }
{
  echo "| kernel | unprivileged_bpf_disabled | attach | capability kept | counts exact | check | bpf_stats | SIGHUP reload | result |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for name in "${names[@]}"; do
    for mode in tp_btf tracepoint; do
      kernel=$(fact "$name" kernel)
      echo "| ${kernel:-$name} | $(fact "$name" unprivileged_bpf_disabled) | $mode |" \
        "$(fact "$name" "capabilities_$mode") | $(fact "$name" "exact_$mode") |" \
        "$(fact "$name" check) | $(fact "$name" "bpf_stats_$mode") | $(fact "$name" "reload_$mode") |" \
        "$(fact "$name" status) |"
    done
  done
} >"$out/matrix.md"
echo
cat "$out/matrix.md"
echo
for name in "${names[@]}"; do
  [[ "$(fact "$name" status)" == pass ]] && continue
  echo "kernel $name failed: $(fact "$name" reason); its console: $out/$name.console"
  grep -a '^FAIL: ' "$out/$name.console" 2>/dev/null | head -n 20
done
echo "matrix: ${#names[@]} kernels in $(($(date +%s) - started)) s"
exit $failed

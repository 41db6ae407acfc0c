#!/usr/bin/env bash
# The kernel matrix: every kernel of kernels.list, two guests at a time,
# then one markdown table of what the guests measured.
#   run-matrix.sh EXPORTER|DEB_DIR OUT_DIR [NAME...]
# The guests run EXPORTER, or the release binary of the Debian package in
# DEB_DIR (unpacked once, into OUT_DIR/package; guest-exporter.sh).
# Writes OUT_DIR/matrix.md (docs/development.md's table comes from it). Fails when any
# kernel cannot be fetched, booted or fails a check; never skips one.
# On amd64, two more boots: the largest max_devices on the first kernel
# (large-map) and the integration tests on 6.1 (integration); see
# run-kernel.sh. The integration boot runs the test build's integration_tests,
# which start the exporter at the path compiled into them: it gets the test
# build's exporter, NETIF_RX_VM_INTEGRATION_EXPORTER (tests/integration_tests
# beside it), or when that is unset EXPORTER, which must then be one.
# NETIF_RX_VM_ARCH=arm64: the kernels of kernels-arm64.list with an arm64
# EXPORTER (run-arm64.sh), and neither of those boots (the large map is a
# question of kernels before 5.11, which arm64 servers of today do not run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
given=${1:?usage: run-matrix.sh EXPORTER|DEB_DIR OUT_DIR [NAME...]}
out=${2:?usage: run-matrix.sh EXPORTER|DEB_DIR OUT_DIR [NAME...]}
shift 2
arch=${NETIF_RX_VM_ARCH:-amd64}
list=$here/kernels.list
[[ $arch == amd64 ]] || list=$here/kernels-$arch.list
export NETIF_RX_KERNEL_LIST=${NETIF_RX_KERNEL_LIST:-$list}
list=$NETIF_RX_KERNEL_LIST
names=("$@")
[[ ${#names[@]} -gt 0 ]] || mapfile -t names < <(awk '$1 !~ /^#/ && NF >= 4 {print $1}' "$list")
integration_exporter=
if [[ $arch == amd64 && " ${names[*]} " == *" 6.1 "* ]]; then
  integration_exporter=${NETIF_RX_VM_INTEGRATION_EXPORTER:-}
  if [[ -z $integration_exporter ]]; then
    [[ -d "$given" ]] && { echo "run-matrix: the integration boot needs the test build's exporter: set NETIF_RX_VM_INTEGRATION_EXPORTER ($given is the package's directory)" >&2; exit 1; }
    integration_exporter=$given
  fi
  [[ -x "$integration_exporter" ]] || { echo "run-matrix: $integration_exporter is not an executable" >&2; exit 1; }
fi
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
started=$(date +%s)
exporter=$(bash "$here/guest-exporter.sh" "$given" "$out" 2>"$out/exporter.log") ||
  { echo "run-matrix: $(cat "$out/exporter.log")" >&2; exit 1; }

# Fetch first, one after the other (one apt cache), so that a guest's time
# is not the download's.
for name in "${names[@]}"; do
  "$here/fetch-kernel.sh" "$name" >/dev/null 2>"$out/$name.fetch.log" &&
    echo "kernel $name: fetched" || echo "kernel $name: fetch failed: $(tail -n 1 "$out/$name.fetch.log")"
done

# The longest boots first, so that the two slots end close together: the
# integration tests on 6.1 (their identity churn and traffic shapes: under
# emulation about as long as the four other boots together, which share the
# other slot), then the largest max_devices on the first (oldest) kernel,
# which charges maps to RLIMIT_MEMLOCK, then the kernels in order. The
# integration boot stays one: in two (the churn, the shapes) the matrix was
# no shorter (150, 160 and 170 s against 145, 152 and 168 s), the shapes
# beside another guest instead of alone on both cores, and one boot more.
jobs_to_run=()
large=
integration=
if [[ $arch == amd64 ]]; then
  if [[ -n $integration_exporter ]]; then
    integration=6.1-integration
    jobs_to_run=("6.1 integration")
  fi
  large="${names[0]}-large-map"
  jobs_to_run+=("${names[0]} large-map")
fi
for name in "${names[@]}"; do jobs_to_run+=("$name"); done
parallel=${NETIF_RX_VM_PARALLEL:-2}
pids=()
for job in "${jobs_to_run[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do wait -n; done
  read -r name variant <<<"$job"
  # The integration boot runs the test build's exporter, the others EXPORTER.
  job_exporter=$exporter
  [[ $variant == integration ]] && job_exporter=$integration_exporter
  # shellcheck disable=SC2086 # no variant: no argument
  "$here/run-kernel.sh" "$name" "$job_exporter" "$out" $variant &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

fact() { sed -n "s/^$2=//p" "$out/$1.facts" 2>/dev/null | head -n 1; }
{
  echo "| kernel | unprivileged_bpf_disabled | attach | capability kept after startup | check says | counts exact (per CPU, veth between namespaces, namespaces: all) | default bpf_stats | SIGHUP reload | bond: live ports kept | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for name in "${names[@]}"; do
    kernel=$(fact "$name" kernel)
    for label in tp_btf tracepoint sysctl0; do
      [[ -n "$(fact "$name" "capabilities_$label")" || $label != sysctl0 ]] || continue
      sysctl=$(fact "$name" unprivileged_bpf_disabled) mode=$label check=default
      [[ $label == sysctl0 ]] && sysctl="0 (set before starting)" mode=tp_btf check=sysctl0
      # The bond check runs once per kernel, with the tp_btf exporter.
      bond="(with tp_btf)"
      [[ $label == tp_btf ]] &&
        bond="$(fact "$name" bond_ports_kept); its looped-back multicast uncounted: $(fact "$name" bond_looped_back_uncounted)"
      echo "| ${kernel:-$name} | $sysctl | $mode |" \
        "$(fact "$name" "capabilities_$label") | $(fact "$name" "check_$check"), keeps $(fact "$name" "check_keeps_$check") |" \
        "$(fact "$name" "exact_$label") | $(fact "$name" "bpf_stats_$label" || true) | $(fact "$name" "reload_$label") |" \
        "$bond | $(fact "$name" status) |"
    done
  done
  if [[ -n $large ]]; then
    echo
    echo "Largest \`max_devices\` (1048576) on $(fact "$large" kernel), possible CPUs" \
      "$(fact "$large" large_map_possible_cpus), started with RLIMIT_MEMLOCK at 8 MiB:" \
      "loaded: $(fact "$large" large_map), RLIMIT_MEMLOCK raised to $(fact "$large" large_map_memlock)," \
      "result: $(fact "$large" status)."
  fi
  if [[ -n $integration ]]; then
    kernel=$(fact "$integration" kernel)
    kernel=${kernel:-$integration}
    echo
    echo "Churn test with a bond on $kernel: $(fact "$integration" churn)."
    echo
    echo "Namespace reuse on $kernel: $(fact "$integration" netns_reuse)."
    echo
    echo "The namespace salt on $kernel: $(fact "$integration" salt_identity)."
    echo
    echo "Traffic shapes on $kernel: $(fact "$integration" traffic_shapes)," \
      "result of the integration boot: $(fact "$integration" status)."
  fi
} >"$out/matrix.md"
echo
cat "$out/matrix.md"
echo
for name in "${names[@]}" $large $integration; do
  [[ "$(fact "$name" status)" == pass ]] && continue
  echo "kernel $name failed: $(fact "$name" reason); its console: $out/$name.console"
  grep -a '^FAIL: ' "$out/$name.console" 2>/dev/null | head -n 20
done
boots="${#names[@]} kernels"
if [[ -n $integration ]]; then
  boots+="${large:+, the large map} and the integration tests' boot on ${integration%-integration}"
else
  boots+="${large:+ and the large map}"
fi
echo "matrix ($arch): $boots in $(($(date +%s) - started)) s"
exit $failed

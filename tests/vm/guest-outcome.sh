# Sourced by the runners of one-kernel guests (run-virtio-gro.sh,
# run-cpu-hotadd.sh): the verdict and the end of a guest, alike for each.
# The runner sets: name, started, facts, console, host_log, seconds, booted,
# qemu_pid, and `what` (how its verdict line names the test).

# Writes the verdict to the facts and the log, and exits: 0 only for pass.
verdict() {
  echo "status=$1" >>"$facts"
  echo "reason=$2" >>"$facts"
  echo "seconds=$(($(date +%s) - started))" >>"$facts"
  echo "$what, kernel $name: $1: $2 ($(($(date +%s) - started)) s)"
  [[ "$1" == pass ]]
  exit $?
}

# After the host's side exited with HOST_STATUS: waits for the guest (it
# powers off after its checks; when the host's side gave up, 10 s, then it is
# ended), keeps the console lines starting with FACT_PREFIX as facts, prints
# HEADING and the console lines matching SHOWN, and gives the verdict.
#   finish_guest HOST_STATUS FACT_PREFIX HEADING SHOWN HOST_SIDE
finish_guest() {
  local host_status=$1 prefix=$2 heading=$3 shown=$4 host_side=$5
  if [[ $host_status != 0 ]]; then
    for _ in $(seq 1 50); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.2; done
    kill -TERM "$qemu_pid" 2>/dev/null
  fi
  wait "$qemu_pid"
  local qemu_status=$?
  qemu_pid=
  local guest_seconds=$(($(date +%s) - booted))
  tr -d '\r' <"$console" >"$console.tmp" && mv "$console.tmp" "$console"
  grep -a "^$prefix " "$console" | sed "s/^$prefix //" >>"$facts"
  echo "guest_seconds=$guest_seconds" >>"$facts"
  echo "--- kernel $name: $heading (guest: ${guest_seconds} s from qemu's start to power-off)"
  grep -a -E "$shown" "$console"
  local exit_line
  exit_line=$(grep -a -m 1 '^NETIF_RX_VM_EXIT=' "$console")
  if [[ -z "$exit_line" ]]; then
    [[ $qemu_status == 124 ]] && verdict fail "the guest did not finish in $seconds s (console: $console)"
    verdict fail "the guest did not reach its end, qemu exit $qemu_status; last console line: $(grep -av '^\s*$' "$console" | tail -n 1)"
  fi
  if [[ "$exit_line" != NETIF_RX_VM_EXIT=0 ]]; then
    # The exporter's last log lines in the guest, so that the test's own
    # output says why (the console is overwritten by the next run).
    echo "--- kernel $name: the exporter's last log lines in the guest"
    grep -a '^ts=' "$console" | tail -n 8
    verdict fail "guest exit ${exit_line#*=}, $(grep -ac '^FAIL: ' "$console") checks failed: $(grep -a -m 1 '^FAIL: ' "$console")"
  fi
  [[ $host_status == 0 ]] || verdict fail "$host_side exited $host_status: $(tail -n 1 "$host_log")"
  verdict pass "every check passed"
}

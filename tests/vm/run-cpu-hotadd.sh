#!/usr/bin/env bash
# A CPU that becomes present after the exporter started: a guest of one
# kernel of kernels.list booted with one CPU of two possible (qemu
# -smp 1,maxcpus=2), the second added from the host through qemu's monitor
# (QMP device_add of the CPU query-hotpluggable-cpus offers) while the
# exporter runs, then unplugged in the same boot (QMP device_del; the guest's
# kernel ejects it) (cpu-hotadd-guest.sh says what is checked).
#   run-cpu-hotadd.sh EXPORTER|DEB_DIR OUT_DIR [NAME...]   default: 5.10 6.1;
#                                                          several names run at once
# The guests run EXPORTER, or the release binary of the Debian package in
# DEB_DIR (unpacked once, guest-exporter.sh: with several names, into
# OUT_DIR/package).
# Not 6.12: its MADT parsing leaves out qemu's disabled LAPIC entries (the
# CPUs it may add later; qemu 7.2's MADT is revision 1, without the online
# capable bit) when it detects no hypervisor, and under software emulation it
# detects none: it boots with 1 possible CPU ("Allowing 1 present CPUs plus
# 0 hotplug CPUs"), and the guest fails at its first check. 5.10 and 6.1
# count them (possible 0-1).
# The host's end (cpu-hotadd-host.py) is driven by the guest over its second
# serial port. No network namespace or device on the host: the guest's
# traffic stays inside it (a veth pair).
# Writes OUT_DIR/hotadd-NAME.console, .host.log and .facts (the guest's
# "HOTADD key=value" lines, status=, reason=, seconds=). Exit status 0 only
# when every check passed on every kernel.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: run-cpu-hotadd.sh EXPORTER|DEB_DIR OUT_DIR [NAME...]}
out=${2:?}
shift 2
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(5.10 6.1)
seconds=${NETIF_RX_HOTADD_TIMEOUT:-240}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ ${#names[@]} -gt 1 ]]; then
  all_started=$(date +%s)
  # The package unpacked once, its binary given to every guest.
  exporter=$(bash "$here/guest-exporter.sh" "$exporter" "$out" 2>"$out/exporter.log") ||
    { echo "run-cpu-hotadd: $(cat "$out/exporter.log")"; exit 1; }
  for kernel in "${names[@]}"; do "$here/fetch-kernel.sh" "$kernel" >/dev/null 2>&1; done
  pids=()
  trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait; exit 130' INT TERM
  for kernel in "${names[@]}"; do
    bash "$0" "$exporter" "$out" "$kernel" >"$out/hotadd-$kernel.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  for kernel in "${names[@]}"; do cat "$out/hotadd-$kernel.log"; echo; done
  echo "CPU hot-add: ${#names[@]} kernels in $(($(date +%s) - all_started)) s"
  exit $failed
fi

name=${names[0]}
label=hotadd-$name
facts="$out/$label.facts"
console="$out/$label.console"
host_log="$out/$label.host.log"
: >"$facts"
started=$(date +%s)

work=$(mktemp -d)
qemu_pid=
host_pid=
# On a signal too: the host's side and qemu (its timeout's PID, which passes
# the signal on) ended by their PIDs.
cleanup() {
  [[ -n "$host_pid" ]] && kill -TERM "$host_pid" 2>/dev/null
  if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -TERM "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

what="CPU hot-add"
# shellcheck source=guest-outcome.sh
source "$here/guest-outcome.sh"

exporter=$(bash "$here/guest-exporter.sh" "$exporter" "$work" 2>"$work/exporter.log") ||
  verdict fail "$(cat "$work/exporter.log")"
for tool in qemu-system-x86_64 python3; do
  command -v $tool >/dev/null || verdict fail "no $tool (scripts/install-deps.sh installs it)"
done
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
kernel_dir=$("$here/fetch-kernel.sh" "$name" 2>"$out/$label.fetch.log") ||
  verdict fail "cannot fetch: $(tail -n 1 "$out/$label.fetch.log")"
initrd="$work/initrd.gz"
"$here/make-initramfs.sh" "$initrd" "$kernel_dir" "$here/cpu-hotadd-guest.sh" \
  "$exporter" "$(command -v ip)" 2>"$out/$label.initramfs.log" ||
  verdict fail "cannot build the initramfs: $(tail -n 1 "$out/$label.initramfs.log")"

ctl="$work/ctl.sock"
qmp="$work/qmp.sock"
# As the virtio-net GRO guest: -cx16, no_timer_check. A host thread per
# virtual CPU (thread=multi), not one for all as the other guests: with one
# thread, qemu 7.2 aborts when the guest ejects the unplugged CPU
# ("qemu_thread_join: Resource deadlock avoided": the eject runs on the
# thread that runs every virtual CPU, and removing the CPU joins that very
# thread). NETIF_RX_VM_TCG_THREAD=single brings that back.
# shellcheck disable=SC2054 # commas inside qemu's options
qemu=(qemu-system-x86_64 -machine pc -accel "tcg,thread=${NETIF_RX_VM_TCG_THREAD:-multi}" -cpu max,-cx16
  -smp 1,maxcpus=2 -m 768 -display none -vga none -nic none -monitor none -no-reboot
  -serial stdio -serial "unix:$ctl,server=on,wait=off" -qmp "unix:$qmp,server=on,wait=off"
  -kernel "$kernel_dir/vmlinuz" -initrd "$initrd"
  -append "console=ttyS0 panic=-1 quiet no_timer_check watchdog_thresh=60 softlockup_panic=1 ${NETIF_RX_VM_APPEND:-}")
booted=$(date +%s)
timeout --kill-after=5 "$seconds" "${qemu[@]}" </dev/null >"$console" 2>&1 &
qemu_pid=$!

# In the background, so that a signal (ctest's timeout) is handled at once.
"$python" "$here/cpu-hotadd-host.py" "$ctl" "$qmp" "$seconds" >"$host_log" 2>&1 &
host_pid=$!
wait "$host_pid"
host_status=$?
host_pid=
finish_guest "$host_status" HOTADD "CPU hot-add" '^(CPUs at boot|CPU 1 (present|gone)|online CPUs|host: (ADDED|DELETED)|(before|added|online|after|unplugged): v[ab] |summed: |ok: |FAIL: |hot-add checks)' "the host's side"

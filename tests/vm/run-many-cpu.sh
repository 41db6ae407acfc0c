#!/usr/bin/env bash
# The many-CPU guest: one kernel of kernels.list (6.1) booted with many
# virtual CPUs under software emulation, the chart's default configuration
# (the config block of the Helm chart's values.yaml, as it is), PAIRS network
# namespaces with veth pairs, pings from every CPU, two virtio-net NICs joined
# by qemu's own hub (no device on the host: the guest's traffic stays inside
# qemu). many-cpu-guest.sh says what is checked.
#   run-many-cpu.sh EXPORTER|DEB_DIR OUT_DIR
# NETIF_RX_MANY_CPUS (default 64) sets the virtual CPUs, NETIF_RX_MANY_PAIRS
# (default 300) the namespaces, NETIF_RX_MANY_TIMEOUT (default 540) the
# guest's limit in seconds. Boots lean: tsc=reliable and a fixed lpj skip
# each CPU's calibration (64 CPUs: about 40 s to /init instead of 150). Not
# quiet: one boot of several hung before /init, and the console should say where.
# Writes OUT_DIR/many-cpu.console and .facts (the guest's "MANYCPU key=value"
# lines, status=, reason=, seconds=). Exit status 0 only when every check passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: run-many-cpu.sh EXPORTER OUT_DIR}
out=${2:?}
name=6.1
vcpus=${NETIF_RX_MANY_CPUS:-64}
pairs=${NETIF_RX_MANY_PAIRS:-300}
seconds=${NETIF_RX_MANY_TIMEOUT:-540}
mkdir -p "$out"
out=$(cd "$out" && pwd)
label=many-cpu
facts="$out/$label.facts"
console="$out/$label.console"
host_log="$out/$label.host.log"
: >"$facts"
: >"$host_log"
started=$(date +%s)

work=$(mktemp -d)
qemu_pid=
cleanup() {
  if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -TERM "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

what="many-CPU guest ($vcpus CPUs, $pairs namespaces)"
# shellcheck source=guest-outcome.sh
source "$here/guest-outcome.sh"

# A directory: the package's release binary (the ctest package_deb built it),
# which polls and serves a 64-CPU emulated guest several times faster than
# the sanitizer build.
# (guest-exporter.sh, as the other guests' runners).
exporter=$(bash "$here/guest-exporter.sh" "$exporter" "$work" 2>"$work/exporter.log") ||
  verdict fail "$(tail -n 1 "$work/exporter.log")"
command -v qemu-system-x86_64 >/dev/null || verdict fail "no qemu-system-x86_64 (scripts/install-deps.sh installs it)"
values="$here/../../deploy/helm/netif-rx-exporter/values.yaml"
# The chart's config block: the lines under "config:" up to the next
# top-level key, comments dropped, two spaces of indentation less.
chart_config=$(awk '/^config:/ { inside = 1; next } inside && /^[^ #]/ { exit }
  inside && !/^ *#/ && NF { print substr($0, 3) }' "$values")
[[ -n "$chart_config" ]] || verdict fail "no config block in $values"
echo "$chart_config" >"$out/$label.config.yaml"
kernel_dir=$("$here/fetch-kernel.sh" "$name" 2>"$out/$label.fetch.log") ||
  verdict fail "cannot fetch: $(tail -n 1 "$out/$label.fetch.log")"
{
  echo '#!/bin/sh'
  printf "chart_config='%s'\n" "$chart_config"
  cat "$here/many-cpu-guest.sh"
} >"$work/guest.sh"
# virtio_pci is built in from 6.12 on, a module before.
modules=virtio_net
grep -q '/virtio_pci\.ko' "$kernel_dir/modules/modules.builtin" || modules="virtio_pci $modules"
initrd="$work/initrd.gz"
NETIF_RX_VM_MODULES=$modules "$here/make-initramfs.sh" "$initrd" "$kernel_dir" "$work/guest.sh" \
  "$exporter" "$(command -v ip)" 2>"$out/$label.initramfs.log" ||
  verdict fail "cannot build the initramfs: $(tail -n 1 "$out/$label.initramfs.log")"

# As the other guests: -cx16, no_timer_check; two NICs on hub 0. One
# emulation thread takes the 64 vCPUs in turn (thread=single): with a thread
# per vCPU (thread=multi) on a busy 2-core host, boots hung after
# "sched_clock: Marking stable", both boots of one full make test; in turn,
# /init comes at about 30 s of guest time, every boot.
# shellcheck disable=SC2054 # commas inside qemu's options
qemu=(qemu-system-x86_64 -machine pc -accel tcg,thread=single -cpu max,-cx16
  -smp "$vcpus" -m 3072 -display none -vga none -monitor none -no-reboot -serial stdio
  -netdev hubport,id=nic,hubid=0 -device virtio-net-pci,netdev=nic,mac=52:54:00:64:00:01
  -netdev hubport,id=wire,hubid=0 -device virtio-net-pci,netdev=wire,mac=52:54:00:64:00:02
  -kernel "$kernel_dir/vmlinuz" -initrd "$initrd"
  -append "console=ttyS0 panic=-1 no_timer_check tsc=reliable lpj=4000000 watchdog_thresh=60 softlockup_panic=1 netif_rx_many_pairs=$pairs ${NETIF_RX_VM_APPEND:-}")
# A boot of this many emulated CPUs has hung before /init now and then (one
# in six, no message): one that has not reached /init in 150 s is stopped
# and booted once more, its console kept beside the second's.
for boot in 1 2; do
  booted=$(date +%s)
  timeout --kill-after=5 "$seconds" "${qemu[@]}" </dev/null >"$console" 2>&1 &
  qemu_pid=$!
  for _ in $(seq 1 150); do
    grep -aq 'Run /init as init process' "$console" && break
    kill -0 "$qemu_pid" 2>/dev/null || break
    sleep 1
  done
  if grep -aq 'Run /init as init process' "$console" || ! kill -0 "$qemu_pid" 2>/dev/null ||
    [[ $boot == 2 ]]; then
    break
  fi
  echo "the guest did not reach /init in 150 s: stopping it and booting again (console: $console.hung)"
  kill -TERM "$qemu_pid" 2>/dev/null
  wait "$qemu_pid"
  mv "$console" "$console.hung"
done
finish_guest 0 MANYCPU "many-CPU guest, $vcpus CPUs, $pairs namespaces" '^(ok: |FAIL: |many-CPU checks)' "qemu"

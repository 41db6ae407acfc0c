#!/usr/bin/env bash
# GRO and offload frames on a real NIC driver: a guest of one kernel of
# kernels.list with two virtio-net NICs (two queue pairs each, two CPUs),
# TCP and UDP sent into it from the host, and the exporter's per-CPU
# series compared with the driver's per-queue counters and with what the
# host sent; the per-queue and CPU series too, and with RPS on a queue the
# steered ones (virtio-gro-guest.sh says what is checked).
#   run-virtio-gro.sh NAME EXPORTER|DEB_DIR OUT_DIR [fixed|pre-fix|auto]
#   run-virtio-gro.sh all EXPORTER|DEB_DIR OUT_DIR [...]   every kernel of kernels.list,
#                                                          NETIF_RX_VM_PARALLEL (3) at once
# The guests run EXPORTER, or the release binary of the Debian package in
# DEB_DIR (unpacked once, guest-exporter.sh: with all, into OUT_DIR/package).
# The last argument says what the exporter counts (default fixed: packets
# an skb carries, netif_rx_skbs_total the skbs; pre-fix: one per skb; auto:
# fixed when the exporter has netif_rx_skbs_total).
# The host's end: a network namespace of its own (deleted on exit, failure
# included) holding the two taps qemu serves (vhost off, two queues each)
# and the sender (virtio-gro-host.py), which the guest drives over its
# second serial port. NIC a's device offers no guest offloads and its tap
# neither TSO nor GSO: the host hands MTU frames. NIC b's device has the
# guest offloads: the host hands its TCP send as offload frames.
# Writes OUT_DIR/gro-NAME.console, OUT_DIR/gro-NAME.host.log and
# OUT_DIR/gro-NAME.facts (the guest's "GRO key=value" lines, status=,
# reason=, seconds=). Exit status 0 only when every check passed.
# NETIF_RX_VM_TCG_THREAD (single, the default, or multi) picks qemu's
# emulation threads.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run-virtio-gro.sh NAME|all EXPORTER|DEB_DIR OUT_DIR [fixed|pre-fix|auto]}
exporter=${2:?}
out=${3:?}
expect=${4:-fixed}
case $expect in fixed | pre-fix | auto) ;; *) echo "run-virtio-gro: unknown expectation $expect" >&2; exit 2 ;; esac
seconds=${NETIF_RX_GRO_TIMEOUT:-300}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ $name == all ]]; then
  list=${NETIF_RX_KERNEL_LIST:-$here/kernels.list}
  mapfile -t names < <(awk '$1 !~ /^#/ && NF >= 4 {print $1}' "$list")
  # One host thread per guest: three guests share two cores well enough
  # (the guests wait on each other's sender far less than they compute).
  parallel=${NETIF_RX_VM_PARALLEL:-3}
  all_started=$(date +%s)
  # The package unpacked once, its binary given to every guest.
  exporter=$(bash "$here/guest-exporter.sh" "$exporter" "$out" 2>"$out/exporter.log") ||
    { echo "run-virtio-gro: $(cat "$out/exporter.log")"; exit 1; }
  # Fetched one after the other (one apt cache) before the guests start.
  for kernel in "${names[@]}"; do "$here/fetch-kernel.sh" "$kernel" >/dev/null 2>&1; done
  pids=()
  for kernel in "${names[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do wait -n; done
    bash "$here/run-virtio-gro.sh" "$kernel" "$exporter" "$out" "$expect" >"$out/gro-$kernel.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  for kernel in "${names[@]}"; do cat "$out/gro-$kernel.log"; echo; done
  fact() { sed -n "s/^$2=//p" "$out/gro-$1.facts" 2>/dev/null | head -n 1; }
  {
    echo "| kernel | phase | counted by | CPU 0: driver frames / packets / skbs / bytes | CPU 1: driver frames / packets / skbs / bytes | sent: segments or datagrams / L3 bytes | result |"
    echo "|---|---|---|---|---|---|---|"
    for kernel in "${names[@]}"; do
      for phase in a-tcp a-udp b-tcp b-udp; do
        cells=()
        for cpu in 0 1; do
          line=$(fact "$kernel" "${phase}_cpu$cpu")
          cells+=("$(echo "$line" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "%s / %s / %s / %s", v["driver"], v["packets"], v["skbs"], v["bytes"] }')")
        done
        sent=$(fact "$kernel" "${phase}_sent" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          printf "%s / %s", v["segments"], v["l3_bytes"] }')
        echo "| $(fact "$kernel" kernel) | $phase | $(fact "$kernel" "${phase}_rules") | ${cells[0]} | ${cells[1]} | $sent | $(fact "$kernel" status) |"
      done
    done
    # The queue x CPU matrix (netif_rx_queue_packets_total) against the
    # driver's frames per queue, and the steered packets; a-rps with queue
    # 0 steered to CPU 1.
    echo
    echo "| kernel (driver counters) | phase | queue 0: CPU 0 / CPU 1 / driver | queue 1: CPU 0 / CPU 1 / driver | queues' sum / device packets | steered to 1 from 0 / to 0 from 1 | queue checks |"
    echo "|---|---|---|---|---|---|---|"
    for kernel in "${names[@]}"; do
      for phase in a-tcp a-udp b-tcp b-udp a-rps; do
        fact "$kernel" "${phase}_queues" |
          awk -v k="$(fact "$kernel" kernel) ($(fact "$kernel" driver_counters))" -v p="$phase" '
          { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
          END { printf "| %s | %s | %s / %s / %s | %s / %s / %s | %s / %s | %s / %s | %s |\n", k, p,
            v["q0cpu0"], v["q0cpu1"], v["driver0"], v["q1cpu0"], v["q1cpu1"], v["driver1"],
            v["sum"], v["packets"], v["steered10"], v["steered01"], v["ok"] == "" ? "-" : v["ok"] == "yes" ? "pass" : "fail" }'
      done
    done
  } >"$out/gro.md"
  cat "$out/gro.md"
  echo "virtio-net GRO: ${#names[@]} kernels in $(($(date +%s) - all_started)) s"
  exit $failed
fi
label=gro-$name
facts="$out/$label.facts"
console="$out/$label.console"
host_log="$out/$label.host.log"
: >"$facts"
started=$(date +%s)

netns=nrx-gro-$$
work=$(mktemp -d)
qemu_pid=
cleanup() {
  if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -TERM "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
  fi
  ip netns del "$netns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

what="virtio-net GRO"
# shellcheck source=guest-outcome.sh
source "$here/guest-outcome.sh"

exporter=$(bash "$here/guest-exporter.sh" "$exporter" "$work" 2>"$work/exporter.log") ||
  verdict fail "$(cat "$work/exporter.log")"
for tool in qemu-system-x86_64 ethtool python3; do
  command -v $tool >/dev/null || verdict fail "no $tool (scripts/install-deps.sh installs it)"
done
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
kernel_dir=$("$here/fetch-kernel.sh" "$name" 2>"$out/$label.fetch.log") ||
  verdict fail "cannot fetch: $(tail -n 1 "$out/$label.fetch.log")"

# virtio_pci is built in from 6.12 on, a module before.
modules=virtio_net
grep -q '/virtio_pci\.ko' "$kernel_dir/modules/modules.builtin" || modules="virtio_pci $modules"
# From 6.10 on virtio-net's per-queue counters are in netlink's qstats, not
# in ethtool -S: the guest reads them with qstats.
cc -O2 -Wall -o "$work/qstats" "$here/qstats.c" 2>"$out/$label.qstats.log" ||
  verdict fail "cannot build qstats: $(head -n 1 "$out/$label.qstats.log")"
initrd="$work/initrd.gz"
NETIF_RX_VM_MODULES=$modules "$here/make-initramfs.sh" "$initrd" "$kernel_dir" "$here/virtio-gro-guest.sh" \
  "$exporter" "$(command -v ip)" "$(command -v ethtool)" "$work/qstats" 2>"$out/$label.initramfs.log" ||
  verdict fail "cannot build the initramfs: $(tail -n 1 "$out/$label.initramfs.log")"

# The host's end. No IPv6 (no router or neighbour solicitations) and static
# neighbours (no ARP): the guest receives only what the sender sends.
ip netns add "$netns" || verdict fail "ip netns add $netns"
in_ns() { ip netns exec "$netns" "$@"; }
in_ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 >/dev/null
# tap  address  tap MAC  guest address  guest MAC
taps=("gro0 198.51.100.1 02:98:00:00:00:01 198.51.100.2 52:54:00:98:00:02"
  "gro1 203.0.113.1 02:98:00:00:01:01 203.0.113.2 52:54:00:98:01:02")
for tap in "${taps[@]}"; do
  read -r dev address mac guest_address guest_mac <<<"$tap"
  ip -n "$netns" tuntap add dev "$dev" mode tap multi_queue || verdict fail "ip tuntap add $dev"
  ip -n "$netns" link set "$dev" address "$mac"
  ip -n "$netns" addr add "$address/24" dev "$dev"
  ip -n "$netns" link set "$dev" up
  ip -n "$netns" neigh replace "$guest_address" lladdr "$guest_mac" dev "$dev" nud permanent
done
# NIC a: the host segments before its tap.
in_ns ethtool -K gro0 tso off gso off gro off >/dev/null 2>&1 || verdict fail "ethtool -K gro0"

ctl="$work/ctl.sock"
# One host thread runs both virtual CPUs (thread=single), as the systemd
# guest does; -cx16 and no_timer_check as boot-guest.sh.
# shellcheck disable=SC2054 # commas inside qemu's options
qemu=(qemu-system-x86_64 -machine pc -accel "tcg,thread=${NETIF_RX_VM_TCG_THREAD:-single}" -cpu max,-cx16
  -smp 2 -m 768 -display none -vga none -monitor none -no-reboot
  -serial stdio -serial "unix:$ctl,server=on,wait=off"
  -netdev tap,id=na,ifname=gro0,script=no,downscript=no,queues=2,vhost=off
  -device virtio-net-pci,netdev=na,mac=52:54:00:98:00:02,mq=on,vectors=6,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off
  -netdev tap,id=nb,ifname=gro1,script=no,downscript=no,queues=2,vhost=off
  -device virtio-net-pci,netdev=nb,mac=52:54:00:98:01:02,mq=on,vectors=6
  -kernel "$kernel_dir/vmlinuz" -initrd "$initrd"
  -append "console=ttyS0 panic=-1 quiet no_timer_check watchdog_thresh=60 softlockup_panic=1 netif_rx_gro_expect=$expect ${NETIF_RX_VM_APPEND:-}")
booted=$(date +%s)
in_ns timeout --kill-after=5 "$seconds" "${qemu[@]}" </dev/null >"$console" 2>&1 &
qemu_pid=$!

in_ns "$python" "$here/virtio-gro-host.py" "$ctl" "$seconds" 198.51.100.2=gro0 203.0.113.2=gro1 >"$host_log" 2>&1
host_status=$?
finish_guest "$host_status" GRO "per-CPU and per-queue figures" \
  '^(--- phase|[ab]-(tcp|udp|rps) |ok: |FAIL: |host: SENT final)' "the host's sender"

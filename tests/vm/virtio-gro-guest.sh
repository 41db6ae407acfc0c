#!/bin/sh
# Runs inside the virtio-net GRO guest (busybox sh as PID 1's child, root),
# started by run-virtio-gro.sh. Two virtio-net NICs, two queue pairs each,
# two CPUs; each rx queue's interrupt on its own CPU (queue N on CPU N), RPS
# off, GRO on (the kernel's default):
#   NIC a (MAC 52:54:00:98:00:02, 198.51.100.2): the device offers no guest
#     offloads (guest_tso4/6, guest_ufo off), so the host hands MTU-sized
#     frames and the guest's GRO merges them into skbs of many packets.
#   NIC b (MAC 52:54:00:98:01:02, 203.0.113.2): guest offloads on, so the host
#     hands its TCP send as offload frames of up to 64 KiB (gso_size set,
#     gso_segs 0).
# For each NIC, a TCP phase (8 connections from the host, received by
# busybox nc) and a UDP phase (datagrams from the host to a port no one
# listens on: they are counted on receipt, then dropped as Udp NoPorts).
# The host's sender (virtio-gro-host.py) is driven over the second serial
# port (ttyS1): the guest asks "SEND ...", the host answers "SENT key=value".
# Per CPU, the exporter's eth series are compared with the driver's own
# per-queue counters (ethtool -S rx_queue_N_packets / _bytes: virtio-net
# counts the frames the device handed over), and their totals with what the
# host sent (its namespace's Tcp OutSegs, its datagrams, its L3 bytes).
# Per queue and CPU, netif_rx_queue_packets_total: queue N's packets all on
# CPU N, and against the same driver counters; nothing steered.
# Then an RPS phase: NIC a's rx queue 0 steered to CPU 1 (rps_cpus), UDP of
# sixteen flows: queue 0's packets still queue 0's, all on CPU 1, and from
# 5.19 on (skb->alloc_cpu) netif_rx_steered_packets_total{cpu="1",
# from_cpu="0"} counts exactly them; before 5.19 that family is absent.
#
# Expectations (netif_rx_gro_expect= on the kernel command line):
#   fixed    netif_rx_packets_total counts the packets an skb carries and
#            netif_rx_skbs_total the skbs (tracepoint events); bytes carry
#            every packet's headers.
#   pre-fix  the exporter before that change: packets count skbs, bytes are
#            the skbs' lengths (a merged skb's headers once).
#   auto     fixed when the scrape has netif_rx_skbs_total, else pre-fix.
# Prints "ok: ..." / "FAIL: ..." lines, per-CPU figures, and "GRO key=value"
# lines for the runner; exits 1 on any failure.
exporter=/usr/local/bin/netif_rx_exporter
port=19400
failures=0
iproute=/usr/local/bin/ip
ip() { $iproute "$@"; }
ethtool() { /usr/local/bin/ethtool "$@"; }

ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
fact() { echo "GRO $1=$2"; }

expect=$(sed -n 's/.*netif_rx_gro_expect=\([a-z-]*\).*/\1/p' /proc/cmdline)
expect=${expect:-fixed}
# Eight flows of each protocol (the host's tap picks a queue per flow: both
# queues get some but for one time in 128). Per TCP connection, in bytes;
# UDP datagrams per port and their payload.
tcp_bytes=$(sed -n 's/.*netif_rx_gro_tcp_bytes=\([0-9]*\).*/\1/p' /proc/cmdline)
tcp_bytes=${tcp_bytes:-1048576}
udp_count=150
udp_payload=1200
tcp_ports=5001,5002,5003,5004,5005,5006,5007,5008
udp_ports=6001,6002,6003,6004,6005,6006,6007,6008
# The RPS phase: sixteen flows, so that queue 0 gets some but for one time
# in 32,768 (it needs packets to steer).
rps_ports=6101,6102,6103,6104,6105,6106,6107,6108
rps_ports=$rps_ports,6109,6110,6111,6112,6113,6114,6115,6116
rps_count=50

http_get() { printf 'GET %s HTTP/1.0\r\n\r\n' "$1" | nc -w 5 127.0.0.1 $port 2>/dev/null; }
# Sum of a series' values over the lines matching every given pattern (up
# to two): series_value SCRAPE NAME [PATTERN [PATTERN]].
series_value() {
  echo "$1" | awk -v name="$2{" -v p1="${3:-}" -v p2="${4:-}" '
    index($0, name) == 1 && (p1 == "" || index($0, p1)) && (p2 == "" || index($0, p2)) { sum += $NF }
    END { printf "%.0f\n", sum }'
}
# route_figures NIC: the phase's changes (from the scrape $before to
# $after) of NIC's queue, packet and steered series, in one awk (a process
# costs under emulation): $qQcpuC (queue Q on CPU C), $qsum (all queues),
# $cpuC_packets, $dev_packets, $s10 (steered to CPU 1 from CPU 0), $s01,
# $s_all; $has_queues and $has_steered: whether $after has the families.
route_figures() {
  q0cpu0=? q0cpu1=? q1cpu0=? q1cpu1=? qsum=? cpu0_packets=? cpu1_packets=? dev_packets=?
  s10=? s01=? s_all=? has_queues=? has_steered=?
  eval "$(printf '%s\n=== after\n%s\n' "$before" "$after" | awk -v dev="$1" '
    $0 == "=== after" { sign = 1; next }
    BEGIN { sign = -1 }
    $1 == "#" && $2 == "TYPE" { if (sign > 0) type[$3] = 1; next }
    {
      open = index($0, "{"); shut = index($0, "}")
      if (!open || !shut) next
      family = substr($0, 1, open - 1)
      n = split(substr($0, open + 1, shut - open - 1), parts, ",")
      split("", l)
      for (i = 1; i <= n; i++) {
        eq = index(parts[i], "=")
        l[substr(parts[i], 1, eq - 1)] = substr(parts[i], eq + 2, length(parts[i]) - eq - 2)
      }
      if (l["device"] != dev) next
      v = sign * $NF
      if (family == "netif_rx_queue_packets_total") { q[l["queue"] "cpu" l["cpu"]] += v; qsum += v }
      else if (family == "netif_rx_packets_total") { p[l["cpu"]] += v; packets += v }
      else if (family == "netif_rx_steered_packets_total") {
        s[l["cpu"] l["from_cpu"]] += v; s_all += v
      }
    }
    END {
      printf "q0cpu0=%.0f q0cpu1=%.0f q1cpu0=%.0f q1cpu1=%.0f qsum=%.0f\n",
        q["0cpu0"], q["0cpu1"], q["1cpu0"], q["1cpu1"], qsum
      printf "cpu0_packets=%.0f cpu1_packets=%.0f dev_packets=%.0f\n", p["0"], p["1"], packets
      printf "s10=%.0f s01=%.0f s_all=%.0f\n", s["10"], s["01"], s_all
      printf "has_queues=%s has_steered=%s\n",
        type["netif_rx_queue_packets_total"] ? "yes" : "no", type["netif_rx_steered_packets_total"] ? "yes" : "no"
    }')"
}
# A driver counter of queue N from `ethtool -S` output: rx_queue_N_WHAT
# (virtio-net's name up to 6.9) or rxN_WHAT (from 6.10 on).
driver_value() {
  echo "$1" | awk -v a="rx_queue_$2_$3:" -v b="rx$2_$3:" '$1 == a || $1 == b { print $2; found = 1; exit }
    END { if (!found) print "?" }'
}
# The driver's counters: `ethtool -S`, and where the kernel reports the
# per-queue ones through netlink instead (virtio-net from 6.10 on), those
# in the same form (qstats, built from qstats.c).
driver_stats() {
  ethtool -S "$1"
  if [ -x /usr/local/bin/qstats ] && ! ethtool -S "$1" | grep -q 'rx_queue_0_packets:\|rx0_packets:'; then
    /usr/local/bin/qstats "$1"
  fi
}
# The per-queue rx packet and byte counters of driver_stats' output.
rx_counters() {
  grep -E 'rx_queue_[0-9]+_(packets|bytes):|rx[0-9]+_(packets|bytes):'
}
# A field of /proc/net/snmp: snmp_value PROTO FIELD (e.g. Tcp InSegs).
snmp_value() {
  awk -v p="$1:" -v f="$2" '$1 == p && !header { for (i = 2; i <= NF; i++) col[$i] = i; header = 1; next }
    $1 == p && header { print $(col[f]); exit }' /proc/net/snmp
}
# a <= b * (1 + pct/100) and a >= b * (1 - pct/100)
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b * p) }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.2f%%", (a - b) * 100 / b; else print "n/a" }'; }

fact kernel "$(uname -r)"
# skb->alloc_cpu, which the steered family reads, is in Linux 5.19 on.
release=$(uname -r)
major=${release%%.*}
minor=${release#*.}
minor=${minor%%[!0-9]*}
steering=no
[ "$major" -gt 5 ] || { [ "$major" = 5 ] && [ "$minor" -ge 19 ]; } && steering=yes
fact steering $steering
ip link set lo up
# Only the virtio modules (and what they need): the initramfs also carries
# veth and bonding, which this test does not use.
for module in $(cat /lib/modules/load-order); do
  case $module in veth | bonding) continue ;; esac
  insmod "/lib/modules/$module.ko" 2>/dev/null || fail "insmod $module.ko"
done
sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 2>/dev/null

nic_for_mac() {
  for dir in /sys/class/net/*; do
    [ "$(cat "$dir/address" 2>/dev/null)" = "$1" ] && { basename "$dir"; return; }
  done
}
nic_a=
nic_b=
for _ in $(seq 1 100); do
  nic_a=$(nic_for_mac 52:54:00:98:00:02)
  nic_b=$(nic_for_mac 52:54:00:98:01:02)
  [ -n "$nic_a" ] && [ -n "$nic_b" ] && break
  sleep 0.1
done
if [ -z "$nic_a" ] || [ -z "$nic_b" ]; then
  fail "the two virtio-net NICs did not appear (a: '$nic_a', b: '$nic_b'): $(ls /sys/class/net)"
  exit 1
fi
fact nic_a "$nic_a"
fact nic_b "$nic_b"

virtio_of() { basename "$(readlink "/sys/class/net/$1/device")"; }
# take_host_reply: the host sender's answer in $reply (key=value words),
# printed, each key set as sent_KEY.
take_host_reply() {
  echo "host: $reply"
  for kv in $reply; do
    case $kv in
      [a-z]*=*) eval "sent_${kv%%=*}=\"${kv#*=}\"" ;;
    esac
  done
}

# rx_irq NIC QUEUE: the interrupt of the NIC's rx queue (virtioN-input.Q).
rx_irq() {
  awk -v name="$(virtio_of "$1")-input.$2" '$NF == name { sub(":", "", $1); print $1 }' /proc/interrupts
}
# rx_irq_counts NIC: "Q:CPU0_COUNT:CPU1_COUNT" for each rx queue.
rx_irq_counts() {
  awk -v prefix="$(virtio_of "$1")-input." 'index($NF, prefix) == 1 {
    q = substr($NF, length(prefix) + 1); printf "%s:%s:%s ", q, $2, $3 }' /proc/interrupts
}
# The CPU an interrupt is delivered to now: its effective affinity. On x86
# a move (the driver's own at probe, or ours) takes effect at the
# interrupt's next arrival, which is still delivered (and its NAPI poll run)
# on the old CPU: traffic must reach every queue once before the counts.
effective_cpu() { cat "/proc/irq/$1/effective_affinity_list" 2>/dev/null || cat "/proc/irq/$1/smp_affinity_list"; }
irqs_settled() {
  settled=yes
  for nic in "$nic_a" "$nic_b"; do
    for queue in 0 1; do
      irq=$(rx_irq "$nic" $queue)
      [ "$(effective_cpu "$irq")" = $queue ] || settled=no
    done
  done
  [ $settled = yes ]
}

# setup_nic NIC GUEST_IP HOST_IP HOST_MAC: two combined queues, each rx
# queue's interrupt on its own CPU, RPS off, static neighbour (no ARP).
setup_nic() {
  nic=$1
  ethtool -L "$nic" combined 2 2>/dev/null
  combined=$(ethtool -l "$nic" | awk '/^Current hardware settings/ { cur = 1 } cur && /^Combined:/ { print $2; exit }')
  [ "$combined" = 2 ] || fail "$nic: $combined combined queues, want 2"
  for rps in /sys/class/net/"$nic"/queues/rx-*/rps_cpus; do echo 0 >"$rps"; done
  ip addr add "$2/24" dev "$nic"
  ip link set "$nic" up
  ip neigh replace "$3" lladdr "$4" dev "$nic" nud permanent
  for queue in 0 1; do
    irq=$(rx_irq "$nic" $queue)
    if [ -z "$irq" ]; then
      fail "$nic: no interrupt $(virtio_of "$nic")-input.$queue in /proc/interrupts"
      continue
    fi
    echo "$queue" >"/proc/irq/$irq/smp_affinity_list" || fail "$nic: irq $irq: smp_affinity_list $queue refused"
  done
  gro=$(ethtool -k "$nic" | awk -F': ' '$1 == "generic-receive-offload" { print $2 }')
  hw=$(ethtool -k "$nic" | awk -F': ' '$1 == "rx-gro-hw" || $1 == "large-receive-offload" { printf "%s %s; ", $1, $2 }')
  [ "$gro" = on ] || fail "$nic: GRO is '$gro', want on"
  echo "$nic: generic-receive-offload $gro; $hw"
  stats=$(driver_stats "$nic")
  for queue in 0 1; do
    for what in packets bytes; do
      case $(driver_value "$stats" $queue $what) in
        "" | *[!0-9]*) fail "$nic: no per-queue counter rx_queue_${queue}_$what or rx${queue}_$what (ethtool -S, qstats): $(echo $stats)" ;;
      esac
    done
  done
  # Which of the two the driver's per-queue counters come from (as
  # driver_stats picks): said with the figures.
  counters_from="ethtool -S"
  ethtool -S "$nic" | grep -q 'rx_queue_0_packets:\|rx0_packets:' || counters_from=qstats
  echo "$nic: per-queue counters from $counters_from"
  fact driver_counters "$counters_from"
}
setup_nic "$nic_a" 198.51.100.2 198.51.100.1 02:98:00:00:00:01
setup_nic "$nic_b" 203.0.113.2 203.0.113.1 02:98:00:00:01:01

# The exporter: the default attach mode, its own namespace (the NICs are
# there), no BPF statistics (their helper patches kernel code, which costs
# under emulation and is not what this test is about).
printf 'poll_interval: 200ms\nbpf_stats:\n  mode: off\n' >/tmp/config.yaml
$exporter --config.file=/tmp/config.yaml --web.listen-address=127.0.0.1:$port >/tmp/exporter.log 2>&1 &
exporter_pid=$!
ready=0
for _ in $(seq 1 300); do
  case "$(http_get /-/ready | head -n 1)" in *" 200 "*) ready=1; break ;; esac
  kill -0 $exporter_pid 2>/dev/null || break
  sleep 0.2
done
if [ $ready = 0 ]; then
  fail "the exporter did not become ready"
  cat /tmp/exporter.log
  exit 1
fi
ok "exporter ready after $(cut -d ' ' -f 1 /proc/uptime) s of uptime"

# The control line to the host's sender.
stty -F /dev/ttyS1 raw -echo 2>/dev/null || fail "stty on /dev/ttyS1"
exec 3<>/dev/ttyS1

# ask LINE: one request to the host's sender; its answer in $reply. An
# answer that arrives without its start (seen under heavy receive on the
# emulated serial port: the first 16 or 40 bytes gone) is asked for again.
ask() {
  echo "$1" >&3
  for _ in 1 2 3; do
    reply=
    read -t 180 -r reply <&3
    case "$reply" in SENT*) return 0 ;; "") return 1 ;; esac
    echo "the host's answer arrived cut ('$reply'): asked again"
    echo "REPEAT" >&3
  done
  return 1
}

# Every rx queue's interrupt moved to its CPU: datagrams of many flows from
# the host (its tap picks a queue per flow) until each queue's interrupt
# arrived on its CPU.
for attempt in 1 2 3 4 5; do
  for guest_ip in 198.51.100.2 203.0.113.2; do
    ask "SEND warm $guest_ip 7000 32" || fail "warm-up: no answer from the host's sender (got '$reply')"
  done
  sleep 0.5
  irqs_settled && break
done
for nic in "$nic_a" "$nic_b"; do
  for queue in 0 1; do
    irq=$(rx_irq "$nic" $queue)
    echo "$nic: rx queue $queue: $(virtio_of "$nic")-input.$queue, irq $irq, CPUs $(cat "/proc/irq/$irq/smp_affinity_list"), effective $(effective_cpu "$irq")"
  done
  echo "$nic: interrupts per rx queue (queue:cpu0:cpu1): $(rx_irq_counts "$nic")"
done
if irqs_settled; then
  ok "every rx queue's interrupt on its own CPU (after $attempt warm-up rounds)"
else
  fail "rx queue interrupts not on their CPUs after $attempt warm-up rounds"
fi

# tcp_listening PORT: a listening socket on PORT (busybox nc listens on
# IPv6's any address where the kernel has IPv6).
tcp_listening() {
  hex=$(printf '%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }'
}

# Waits until the driver's counters of NIC stand still, then until two
# scrapes (a poll apart) agree; leaves the last in $scrape and the driver's
# counters read before it in $driver. A frame that arrives meanwhile (a late
# retransmit, a neighbour solicitation) moves the driver's counters: then it
# starts over, so that the two are of the same frames.
settle() {
  for _ in $(seq 1 5); do
    last=
    for _ in $(seq 1 30); do
      now=$(driver_stats "$1" | awk '/rx_queue_[0-9]+_packets:|rx[0-9]+_packets:/ { s += $2 } END { print s + 0 }')
      [ "$now" = "$last" ] && break
      last=$now
      sleep 0.3
    done
    driver=$(driver_stats "$1")
    scrape=$(http_get /metrics)
    for _ in $(seq 1 20); do
      sleep 0.5
      next=$(http_get /metrics)
      # Every family of the device's, the queue and steering ones included.
      a=$(echo "$scrape" | grep "^netif_rx_[a-z_]*_total{.*device=\"$1\"")
      b=$(echo "$next" | grep "^netif_rx_[a-z_]*_total{.*device=\"$1\"")
      scrape=$next
      [ "$a" = "$b" ] && break
    done
    [ "$(driver_stats "$1" | rx_counters)" = "$(echo "$driver" | rx_counters)" ] && return
    echo "$1: the driver counted frames while the exporter settled: once more"
  done
}

# queue_cells NAME NIC: route_figures, the driver's frames per queue in
# $driverQ, and the families' presence checked: the queue family always,
# the steered one from 5.19 on (skb->alloc_cpu), never before, when the
# steered figures are "absent". Prints the queue x CPU matrix.
queue_cells() {
  route_figures "$2"
  frames() { echo $(($(driver_value "$driver_after" "$1" packets) - $(driver_value "$driver_before" "$1" packets))); }
  driver0=$(frames 0) driver1=$(frames 1)
  echo "$1 queue 0: exporter $q0cpu0 on CPU 0, $q0cpu1 on CPU 1 | driver rx_queue_0 $driver0 frames"
  echo "$1 queue 1: exporter $q1cpu0 on CPU 0, $q1cpu1 on CPU 1 | driver rx_queue_1 $driver1 frames"
  [ "$has_queues" = yes ] || { fail "$1: no netif_rx_queue_packets_total"; qok=no; }
  if [ $steering = yes ]; then
    [ "$has_steered" = yes ] ||
      { fail "$1: no netif_rx_steered_packets_total (5.19 on has skb->alloc_cpu)"; qok=no; }
  else
    if [ "$has_steered" != no ] || [ "$s_all" != 0 ]; then
      fail "$1: netif_rx_steered_packets_total before 5.19 (no skb->alloc_cpu): $s_all of $2"
      qok=no
    fi
    s10=absent s01=absent s_all=absent
  fi
}

# queue_fact NAME: the runner's line of the phase's queue figures.
queue_fact() {
  fact "${1}_queues" "q0cpu0=$q0cpu0 q0cpu1=$q0cpu1 q1cpu0=$q1cpu0 q1cpu1=$q1cpu1 driver0=$driver0 driver1=$driver1 sum=$qsum packets=$dev_packets steered10=$s10 steered01=$s01 ok=$qok"
}

# queues_checked SCRAPE: whether the queue checks run. The queue family came
# after the fix (netif_rx_skbs_total): required by fixed, not looked for by
# pre-fix, checked by auto where SCRAPE has it.
queues_checked() {
  case $expect in
    fixed) return 0 ;;
    auto) echo "$1" | grep -q '^# TYPE netif_rx_queue_packets_total ' ;;
    *) return 1 ;;
  esac
}

# queue_checks NAME NIC FRAMES: the phase's queue and CPU matrix of NIC.
# Each queue's interrupt is on the CPU of its number and RPS is off: queue
# N's packets all on CPU N, and they are that CPU's packets. FRAMES mtu:
# a driver frame is a packet, so queue N's packets are its driver count;
# offload: a driver frame is an skb of one packet or more (the packets are
# checked against the sender in the totals), so no fewer. Every packet of
# virtio-net records its queue: the queues sum to the device's packets.
# Nothing is steered: each packet is processed where its poll built it.
queue_checks() {
  name=$1 nic=$2 frames=$3 qok=yes
  queue_cells "$name" "$nic"
  for queue in 0 1; do
    if [ $queue = 0 ]; then
      own=$q0cpu0 other=$q0cpu1 d=$driver0 cpu_packets=$cpu0_packets
    else
      own=$q1cpu1 other=$q1cpu0 d=$driver1 cpu_packets=$cpu1_packets
    fi
    [ "$other" = 0 ] ||
      { fail "$name: queue $queue: $other packets on CPU $((1 - queue)), its interrupt is on CPU $queue"; qok=no; }
    [ "$own" = "$cpu_packets" ] ||
      { fail "$name: queue $queue: $own packets on CPU $queue, the CPU has $cpu_packets"; qok=no; }
    if [ "$frames" = mtu ]; then
      [ "$own" = "$d" ] ||
        { fail "$name: queue $queue: $own packets, the driver's rx_queue_$queue has $d frames"; qok=no; }
    else
      [ "$own" -ge "$d" ] ||
        { fail "$name: queue $queue: $own packets < the driver's $d offload frames"; qok=no; }
    fi
  done
  [ "$qsum" = "$dev_packets" ] ||
    { fail "$name: the queues sum to $qsum packets, $nic has $dev_packets"; qok=no; }
  [ $steering = no ] || [ "$s_all" = 0 ] ||
    { fail "$name: $s_all packets of $nic steered with RPS off"; qok=no; }
  echo "$name queues: sum $qsum, device packets $dev_packets, steered 0->1 $s10, 1->0 $s01"
  queue_fact "$name"
  [ $qok = yes ] && ok "$name: queue x CPU packets match the driver's queues, nothing steered"
}

# phase NAME NIC MODE PROTO GUEST_IP
#   MODE a: MTU frames; b: offload frames.
phase() {
  name=$1 nic=$2 mode=$3 proto=$4 guest_ip=$5
  echo "--- phase $name: $proto into $nic ($([ "$mode" = a ] && echo "MTU frames, the guest's GRO merges" || echo "the host's offload frames"))"
  receivers=
  if [ "$proto" = tcp ]; then
    for p in $(echo $tcp_ports | tr , ' '); do
      nc -l -p "$p" </dev/null >/dev/null 2>&1 &
      receivers="$receivers $!"
    done
    for p in $(echo $tcp_ports | tr , ' '); do
      for _ in $(seq 1 50); do tcp_listening "$p" && break; sleep 0.1; done
      tcp_listening "$p" || fail "$name: nc does not listen on $p"
    done
    request="SEND tcp $guest_ip $tcp_ports $tcp_bytes"
  else
    request="SEND udp $guest_ip $udp_ports $udp_count $udp_payload"
  fi
  settle "$nic"
  before=$scrape
  driver_before=$driver
  insegs_before=$(snmp_value Tcp InSegs)
  noports_before=$(snmp_value Udp NoPorts)
  irqs_before=$(rx_irq_counts "$nic")
  if ! ask "$request"; then
    fail "$name: no answer from the host's sender (got '$reply')"
    kill $receivers 2>/dev/null
    return
  fi
  # The host's figures: sent_conns, sent_segs (every segment sent,
  # retransmits included: in the totals), sent_payload, sent_retrans_segs,
  # sent_l3_bytes, sent_datagrams, sent_tap_tx_dropped, sent_error ...
  sent_error=
  take_host_reply
  [ -n "$sent_error" ] && fail "$name: the host's sender: $sent_error"
  if [ -n "$receivers" ]; then
    for _ in $(seq 1 100); do
      alive=
      for r in $receivers; do kill -0 "$r" 2>/dev/null && alive="$alive $r"; done
      [ -z "$alive" ] && break
      sleep 0.1
    done
    [ -n "$alive" ] && { fail "$name: nc still running after the host closed"; kill $alive 2>/dev/null; }
    wait $receivers 2>/dev/null
  fi
  settle "$nic"
  # The host's totals now that the traffic ended (what it sent after its
  # sockets closed, a reset to a late retransmit, included).
  if ask TOTAL; then
    take_host_reply
  else
    fail "$name: no totals from the host's sender (got '$reply')"
  fi
  settle "$nic"  # once more: what the host sent until its totals included
  after=$scrape
  driver_after=$driver
  insegs=$(($(snmp_value Tcp InSegs) - insegs_before))
  # Each queue's interrupts of the phase: all on the queue's own CPU.
  irqs_after=$(rx_irq_counts "$nic")
  for entry in $irqs_after; do
    queue=${entry%%:*}
    was=$(echo "$irqs_before" | tr ' ' '\n' | grep "^$queue:")
    on0=$(($(echo "$entry" | cut -d: -f2) - $(echo "$was" | cut -d: -f2)))
    on1=$(($(echo "$entry" | cut -d: -f3) - $(echo "$was" | cut -d: -f3)))
    echo "$name: rx queue $queue interrupts: $on0 on CPU 0, $on1 on CPU 1"
    [ $queue = 0 ] && [ $on1 != 0 ] && fail "$name: rx queue 0 interrupted CPU 1 $on1 times"
    [ $queue = 1 ] && [ $on0 != 0 ] && fail "$name: rx queue 1 interrupted CPU 0 $on0 times"
  done
  noports=$(($(snmp_value Udp NoPorts) - noports_before))

  # Which expectations: the fixed exporter has netif_rx_skbs_total.
  has_skbs=no
  echo "$after" | grep -q "^netif_rx_skbs_total{.*device=\"$nic\"" && has_skbs=yes
  rules=$expect
  [ "$rules" = auto ] && { [ $has_skbs = yes ] && rules=fixed || rules=pre-fix; }
  [ "$rules" = fixed ] && [ $has_skbs = no ] && fail "$name: no netif_rx_skbs_total for $nic (the fixed exporter's family)"
  fact "${name}_rules" "$rules"
  # Aggregates the probe could not count exactly (the fixed exporter's).
  fallbacks=$(echo "$after" | grep '^netif_rx_gso_fallbacks_total' | tr '\n' ' ')
  [ -n "$fallbacks" ] && echo "$name: exporter: $fallbacks"

  total_driver=0 total_driver_l3=0 total_packets=0 total_skbs=0 total_bytes=0 exact=yes
  for cpu in 0 1; do
    d_packets=$(($(driver_value "$driver_after" $cpu packets) - $(driver_value "$driver_before" $cpu packets)))
    d_bytes=$(($(driver_value "$driver_after" $cpu bytes) - $(driver_value "$driver_before" $cpu bytes)))
    # virtio-net's bytes are whole frames: an Ethernet header each.
    d_l3=$((d_bytes - 14 * d_packets))
    packets=$(($(series_value "$after" netif_rx_packets_total "device=\"$nic\"" "cpu=\"$cpu\"") -
      $(series_value "$before" netif_rx_packets_total "device=\"$nic\"" "cpu=\"$cpu\"")))
    bytes=$(($(series_value "$after" netif_rx_bytes_total "device=\"$nic\"" "cpu=\"$cpu\"") -
      $(series_value "$before" netif_rx_bytes_total "device=\"$nic\"" "cpu=\"$cpu\"")))
    if [ $has_skbs = yes ]; then
      skbs=$(($(series_value "$after" netif_rx_skbs_total "device=\"$nic\"" "cpu=\"$cpu\"") -
        $(series_value "$before" netif_rx_skbs_total "device=\"$nic\"" "cpu=\"$cpu\"")))
    else
      skbs=-
    fi
    echo "$name cpu $cpu: driver rx_queue_$cpu $d_packets frames, $d_bytes bytes ($d_l3 L3) | exporter packets $packets, skbs $skbs, bytes $bytes"
    fact "${name}_cpu${cpu}" "driver=$d_packets driver_l3_bytes=$d_l3 packets=$packets skbs=$skbs bytes=$bytes"
    total_driver=$((total_driver + d_packets))
    total_driver_l3=$((total_driver_l3 + d_l3))
    total_packets=$((total_packets + packets))
    [ $has_skbs = yes ] && total_skbs=$((total_skbs + skbs))
    total_bytes=$((total_bytes + bytes))

    # Per CPU: what the driver handed over on the queue whose interrupt is on
    # this CPU. MTU frames (mode a, and UDP in both) are packets; offload
    # frames (mode b TCP) are skbs.
    if [ "$rules" = fixed ]; then
      if [ "$mode" = a ] || [ "$proto" = udp ]; then
        [ "$packets" = "$d_packets" ] || { fail "$name: cpu $cpu: $packets packets, the driver's queue $cpu has $d_packets frames"; exact=no; }
        within "$bytes" "$d_l3" 0.5 ||
          { fail "$name: cpu $cpu: $bytes bytes, the frames' L3 bytes are $d_l3 ($(percent "$bytes" "$d_l3"))"; exact=no; }
        if [ "$proto" = udp ]; then
          [ "$skbs" = "$packets" ] || { fail "$name: cpu $cpu: $skbs skbs for $packets datagrams (UDP is not merged)"; exact=no; }
        else
          [ "$skbs" -le "$packets" ] || { fail "$name: cpu $cpu: $skbs skbs > $packets packets"; exact=no; }
        fi
      else
        # Each offload frame is an skb, unless the guest's GRO merged two that
        # arrived together (a few under load): never more skbs than frames,
        # and at most one in twenty merged. The packets are checked exactly
        # in the totals, against the segments the host sent.
        [ "$skbs" -le "$d_packets" ] && [ $((20 * (d_packets - skbs))) -le "$d_packets" ] ||
          { fail "$name: cpu $cpu: $skbs skbs, the driver's queue $cpu has $d_packets frames"; exact=no; }
        [ "$packets" -ge "$skbs" ] || { fail "$name: cpu $cpu: $packets packets < $skbs skbs"; exact=no; }
      fi
    else
      # Before the fix: one per skb, an skb's own length.
      if [ "$mode" = a ] && [ "$proto" = tcp ]; then
        [ "$packets" -le "$d_packets" ] || { fail "$name: cpu $cpu: $packets packets (skbs) > $d_packets frames"; exact=no; }
      else
        [ "$packets" = "$d_packets" ] || { fail "$name: cpu $cpu: $packets packets (skbs), the driver's queue $cpu has $d_packets frames"; exact=no; }
      fi
      if [ "$mode" = a ] || [ "$proto" = udp ]; then
        # The merged packets' headers are missing: 52 bytes (IP, TCP with
        # timestamps) for each frame merged into another.
        restored=$((bytes + 52 * (d_packets - packets)))
        within "$restored" "$d_l3" 0.5 ||
          { fail "$name: cpu $cpu: $bytes bytes + 52 per merged frame = $restored, the frames' L3 bytes are $d_l3"; exact=no; }
      fi
    fi
  done

  # Totals against the sender.
  if [ "$proto" = tcp ]; then
    sent_segments=$sent_segs
    echo "$name sent: $sent_conns connections, $sent_payload payload bytes in $sent_segs segments ($sent_retrans_segs retransmitted), $sent_l3_bytes L3 bytes; guest Tcp InSegs +$insegs (one per skb)"
  else
    sent_segments=$sent_datagrams
    echo "$name sent: $sent_datagrams datagrams, $sent_l3_bytes L3 bytes ($sent_tap_tx_dropped dropped by the host's tap); guest Udp NoPorts +$noports"
  fi
  echo "$name total: driver $total_driver frames, $total_driver_l3 L3 bytes | exporter packets $total_packets, skbs $([ $has_skbs = yes ] && echo $total_skbs || echo -), bytes $total_bytes ($(percent "$total_bytes" "$sent_l3_bytes") of the sender's L3 bytes)"
  fact "${name}_sent" "segments=$sent_segments l3_bytes=$sent_l3_bytes retrans=${sent_retrans_segs:-0} tap_dropped=${sent_tap_tx_dropped:-0}"
  fact "${name}_total" "driver=$total_driver packets=$total_packets skbs=$([ $has_skbs = yes ] && echo $total_skbs || echo -) bytes=$total_bytes"
  [ "$total_driver" -gt 0 ] || fail "$name: the driver counted nothing on $nic"
  # Which CPUs the flows landed on is the host's choice (its tap's queue per
  # flow): said, not required.
  # Retransmits are sent and received like any segment; what the host's tap
  # dropped never reached the guest.
  lossless=yes
  [ "${sent_tap_tx_dropped:-0}" = 0 ] || lossless=no
  if [ "$rules" = fixed ]; then
    if [ "$proto" = tcp ] && [ "$mode" = a ]; then
      [ "$total_skbs" -lt "$total_packets" ] ||
        fail "$name: $total_skbs skbs for $total_packets packets: the guest's GRO merged nothing"
    fi
    if [ $lossless = yes ]; then
      [ "$total_packets" = "$sent_segments" ] ||
        fail "$name: $total_packets packets, the host sent $sent_segments"
    else
      echo "$name: the host's tap dropped $sent_tap_tx_dropped: the sent count is not compared"
    fi
    within "$total_bytes" "$sent_l3_bytes" 0.5 ||
      fail "$name: $total_bytes bytes, the host sent $sent_l3_bytes L3 bytes ($(percent "$total_bytes" "$sent_l3_bytes"))"
  else
    if [ "$proto" = tcp ] && [ "$mode" = a ]; then
      [ "$total_packets" -lt "$total_driver" ] ||
        fail "$name: $total_packets skbs for $total_driver frames: the guest's GRO merged nothing"
      [ $lossless = no ] || [ "$total_driver" = "$sent_segments" ] ||
        fail "$name: the driver has $total_driver frames, the host sent $sent_segments segments"
    elif [ $lossless = yes ] && [ "$proto" = udp ]; then
      [ "$total_packets" = "$sent_segments" ] || fail "$name: $total_packets packets, the host sent $sent_segments datagrams"
    fi
    # The merged or offloaded packets' headers restored: 52 bytes each.
    restored=$((total_bytes + 52 * (sent_segments - total_packets)))
    within "$restored" "$sent_l3_bytes" 0.5 ||
      fail "$name: $total_bytes bytes + 52 per packet not seen = $restored, the host sent $sent_l3_bytes L3 bytes ($(percent "$restored" "$sent_l3_bytes"))"
  fi
  [ $exact = yes ] && ok "$name: per-CPU counts match the driver's queues ($rules)"
  if queues_checked "$after"; then
    if [ "$mode" = a ] || [ "$proto" = udp ]; then frames=mtu; else frames=offload; fi
    queue_checks "$name" "$nic" $frames
  fi
}

# The summed dropped column of /proc/net/softnet_stat (hex, one CPU a line):
# a packet RPS could not queue on its CPU (backlog full) is dropped there.
softnet_dropped() {
  total=0
  while read -r _ dropped _; do total=$((total + 0x$dropped)); done </proc/net/softnet_stat
  echo $total
}

# rps_phase NAME NIC GUEST_IP: rx queue 0's packets steered to CPU 1
# (rps_cpus 2: CPU 1's mask), UDP of sixteen flows (MTU frames: a driver
# frame a packet). Queue 0's packets are still queue 0's and its driver
# count, all processed on CPU 1 now; queue 1's on CPU 1 as before. From 5.19
# on, the steered packets to CPU 1 from CPU 0 are queue 0's on CPU 1 (built
# in its poll on CPU 0), and none the other way. rps_cpus back to 0 after.
rps_phase() {
  name=$1 nic=$2 guest_ip=$3 qok=yes
  rps=/sys/class/net/$nic/queues/rx-0/rps_cpus
  echo "--- phase $name: udp into $nic, rx queue 0 steered to CPU 1 (rps_cpus 2)"
  settle "$nic"
  if ! queues_checked "$scrape"; then
    echo "$name: not run: the exporter is not expected to have netif_rx_queue_packets_total ($expect)"
    return
  fi
  before=$scrape
  driver_before=$driver
  dropped_before=$(softnet_dropped)
  if ! echo 2 >"$rps"; then
    fail "$name: $rps refused 2"
    return
  fi
  echo "$name: $rps: $(cat "$rps"), rx-1: $(cat "/sys/class/net/$nic/queues/rx-1/rps_cpus")"
  ask "SEND udp $guest_ip $rps_ports $rps_count $udp_payload"
  asked=$?
  [ $asked = 0 ] && settle "$nic"
  # Restored whatever happened: later checks count with RPS off.
  echo 0 >"$rps" || fail "$name: $rps refused 0"
  if [ $asked != 0 ]; then
    fail "$name: no answer from the host's sender (got '$reply')"
    return
  fi
  sent_datagrams='' sent_tap_tx_dropped='' sent_error=''
  take_host_reply
  [ -n "$sent_error" ] && fail "$name: the host's sender: $sent_error"
  after=$scrape
  driver_after=$driver
  dropped=$(($(softnet_dropped) - dropped_before))
  queue_cells "$name" "$nic"
  echo "$name sent: $sent_datagrams datagrams ($sent_tap_tx_dropped dropped by the host's tap); queues' sum $qsum, device packets $dev_packets; steered 0->1 $s10, 1->0 $s01; softnet dropped +$dropped"
  [ "$driver0" -gt 0 ] || { fail "$name: queue 0 received nothing: nothing to steer"; qok=no; }
  [ "$q0cpu0" = 0 ] || { fail "$name: queue 0: $q0cpu0 packets on CPU 0, RPS sends them to CPU 1"; qok=no; }
  [ "$q0cpu1" = "$driver0" ] ||
    { fail "$name: queue 0: $q0cpu1 packets on CPU 1, the driver's rx_queue_0 has $driver0 frames (softnet dropped +$dropped)"; qok=no; }
  [ "$q1cpu0" = 0 ] || { fail "$name: queue 1: $q1cpu0 packets on CPU 0"; qok=no; }
  [ "$q1cpu1" = "$driver1" ] ||
    { fail "$name: queue 1: $q1cpu1 packets on CPU 1, the driver's rx_queue_1 has $driver1 frames"; qok=no; }
  [ "$qsum" = "$dev_packets" ] ||
    { fail "$name: the queues sum to $qsum packets, $nic has $dev_packets"; qok=no; }
  if [ "${sent_tap_tx_dropped:-0}" = 0 ]; then
    [ "$qsum" = "$sent_datagrams" ] ||
      { fail "$name: the queues sum to $qsum packets, the host sent $sent_datagrams"; qok=no; }
  fi
  if [ $steering = yes ]; then
    [ "$s10" = "$q0cpu1" ] ||
      { fail "$name: $s10 packets steered to CPU 1 from CPU 0, queue 0 has $q0cpu1 on CPU 1"; qok=no; }
    if [ "$s01" != 0 ] || [ "$s_all" != "$s10" ]; then
      fail "$name: $s_all packets steered, $s01 of them to CPU 0 from CPU 1: only queue 0's to CPU 1"
      qok=no
    fi
  fi
  queue_fact "$name"
  if [ $qok = yes ] && [ $steering = yes ]; then
    ok "$name: queue 0 on CPU 1, its counts the driver's; $s10 steered to CPU 1 from 0, queue 0's there"
  elif [ $qok = yes ]; then
    ok "$name: queue 0 on CPU 1, its counts the driver's; no steered family before 5.19"
  fi
}

started=$(cut -d ' ' -f 1 /proc/uptime)
phase a-tcp "$nic_a" a tcp 198.51.100.2
phase a-udp "$nic_a" a udp 198.51.100.2
phase b-tcp "$nic_b" b tcp 203.0.113.2
phase b-udp "$nic_b" b udp 203.0.113.2
rps_phase a-rps "$nic_a" 198.51.100.2
echo "DONE" >&3

# CPU 1 offline and back: the NICs' series on CPU 1 keep their counts (the
# probe's per-CPU values stay; the exporter must not drop or reset them).
hotplug() {
  echo "--- CPU 1 offline and back"
  cpu1_series() {
    # The packet families and the queue and steering ones (the NAPI families
    # aside: a transmit completion may poll on CPU 1 once it is back).
    echo "$1" | grep "^netif_rx_\([a-z]*\|queue_packets\|steered_packets\)_total{.*cpu=\"1\"" |
      grep "device=\"\($nic_a\|$nic_b\)\"" | sort
  }
  held=$(cpu1_series "$(http_get /metrics)")
  if ! echo 0 >/sys/devices/system/cpu/cpu1/online; then
    fail "hotplug: CPU 1 cannot go offline"
    return
  fi
  sleep 1 # five polls
  offline=$(cpu1_series "$(http_get /metrics)")
  echo 1 >/sys/devices/system/cpu/cpu1/online || fail "hotplug: CPU 1 cannot come back online"
  sleep 1
  online=$(cpu1_series "$(http_get /metrics)")
  echo "$held"
  if [ -z "$held" ]; then
    fail "hotplug: no series on CPU 1 before"
  elif [ "$offline" != "$held" ]; then
    fail "hotplug: CPU 1's series changed while it was offline: $(echo $offline)"
  elif [ "$online" != "$held" ]; then
    fail "hotplug: CPU 1's series changed once it was back: $(echo $online)"
  else
    ok "hotplug: the NICs' $(echo "$held" | wc -l) series on CPU 1 kept their counts while it was offline and after"
  fi
  fact hotplug_cpu1 "$([ -n "$held" ] && [ "$offline" = "$held" ] && [ "$online" = "$held" ] && echo kept || echo changed)"
}
hotplug
echo "phases and hotplug: $(awk -v start="$started" '{printf "%.1f", $1 - start}' /proc/uptime) s"

errors=$(series_value "$(http_get /metrics)" netif_rx_exporter_poll_errors_total)
[ "$errors" = 0 ] || fail "poll errors: $errors"
kill -TERM $exporter_pid
wait $exporter_pid || fail "the exporter exited $? after SIGTERM"
echo "--- exporter log"
cat /tmp/exporter.log
fact seconds "$(cut -d ' ' -f 1 /proc/uptime)"
[ $failures = 0 ] && exit 0
echo "$failures failures"
exit 1

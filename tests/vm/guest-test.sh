#!/bin/sh
# Runs inside a matrix guest (busybox sh, as PID 1's child, root, the
# kernel's defaults untouched). For each attach mode: starts the exporter
# with namespaces: all, sends known traffic through a veth pair between two
# namespaces pinned to CPU 1, and checks the exact per-CPU counts, the
# capabilities of every thread, check's verdict, the default bpf_stats mode
# and a SIGHUP reload; and a bond over two veth ports whose counts must go
# on through enslave, release, bond down/up and the bond's deletion. Booted
# with netif_rx_large_map (run-kernel.sh's large-map variant), only the
# largest max_devices; with netif_rx_integration (its integration variant,
# 6.1 in the matrix), only the integration tests' identity churn, bond steps
# included, and their traffic shapes. Prints "ok: ..." / "FAIL: ..." lines and
# "MATRIX key=value" lines for the table; exits 1 on any failure.
exporter=/usr/local/bin/netif_rx_exporter
port=19400
pings=40
payload=100
failures=0

# iproute2's ip (busybox's lacks netns and veth; busybox's sh prefers its own
# applets to PATH, hence the full path).
iproute=/usr/local/bin/ip
ip() { $iproute "$@"; }

ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
fact() { echo "MATRIX $1=$2"; }

http_get() { printf 'GET %s HTTP/1.0\r\n\r\n' "$1" | nc -w 5 127.0.0.1 $port 2>/dev/null; }
# Sum of a series' values over the lines matching every given pattern (up
# to two): series_value SCRAPE NAME [PATTERN [PATTERN]].
series_value() {
  echo "$1" | awk -v name="$2{" -v p1="${3:-}" -v p2="${4:-}" '
    index($0, name) == 1 && (p1 == "" || index($0, p1)) && (p2 == "" || index($0, p2)) { sum += $NF }
    END { printf "%.0f\n", sum }'
}

# The largest max_devices on 64 possible CPUs (booted with possible_cpus=64),
# from a low RLIMIT_MEMLOCK: on kernels before 5.11 the maps are charged to it
# and libbpf must raise it. Only this, then the verdict.
large_map() {
  echo "--- max_devices: 1048576, $(cat /sys/devices/system/cpu/possible) possible CPUs, RLIMIT_MEMLOCK 8 MiB"
  printf 'max_devices: 1048576\npoll_interval: 1s\nbpf_stats:\n  mode: off\n' >/tmp/large.yaml
  (ulimit -H -l 8192 && ulimit -S -l 8192 &&
    exec $exporter --config.file=/tmp/large.yaml --web.listen-address=127.0.0.1:$port) \
    >/tmp/exporter.log 2>&1 &
  pid=$!
  loaded=no
  # Creating 64 x 1M per-CPU entries takes about two minutes under emulation.
  for _ in $(seq 1 1500); do
    grep -q "netif_rx_exporter is ready" /tmp/exporter.log && { loaded=yes; break; }
    kill -0 $pid 2>/dev/null || break
    sleep 0.2
  done
  memlock=$(awk '/Max locked memory/ {print $4}' /proc/$pid/limits 2>/dev/null)
  scrape=$(http_get /metrics)
  max_entries=$(echo "$scrape" | awk '/^netif_rx_bpf_map_max_entries\{map="device_counters"\}/ {print $2}')
  fact large_map "$loaded"
  fact large_map_memlock "${memlock:-?}"
  fact large_map_possible_cpus "$(cat /sys/devices/system/cpu/possible)"
  if [ $loaded = yes ] && [ "$max_entries" = 1048576 ]; then
    ok "max_devices 1048576 loads on 64 possible CPUs (RLIMIT_MEMLOCK raised to $memlock)"
  else
    fail "max_devices 1048576 on 64 possible CPUs: loaded=$loaded max_entries=$max_entries"
  fi
  kill -TERM $pid 2>/dev/null
  wait $pid
  cat /tmp/exporter.log
}

# The integration tests' identity churn (veths, a bridge, a bond, renames,
# namespaces created and deleted, a full names map), their bond test (a
# port enslaved, released, enslaved again, its bond deleted), with this
# kernel's bonding driver: the bond steps must run, and pass; and their
# namespace reuse test (a dead namespace's inode number reused: this kernel's
# namespace salt must tell the two apart); and that salt against the
# namespace's cookie (SO_NETNS_COOKIE), which it must be where the kernel sets
# the cookie at namespace setup (5.12+).
integration_churn() {
  echo "--- integration tests: identity churn"
  churn_started=$(cut -d ' ' -f 1 /proc/uptime)
  /usr/local/bin/integration_tests \
    --gtest_filter='IdentityChurnTest.*:LiveDeviceEventsTest.Bond*:NamespaceReuse.*:NetnsIdentity.TheProbesSalt*' \
    >/tmp/churn.log 2>&1
  churn_status=$?
  cat /tmp/churn.log
  churn_seconds=$(awk -v start="$churn_started" '{printf "%.1f", $1 - start}' /proc/uptime)
  churn_line=$(grep -m 1 '^identity churn: [0-9]* rounds' /tmp/churn.log)
  if grep -q 'no bonding driver' /tmp/churn.log; then
    fail "integration churn: the bond steps were left out"
  elif [ $churn_status != 0 ] || ! grep -q '^\[  PASSED  \] 4 tests' /tmp/churn.log || [ -z "$churn_line" ]; then
    fail "integration churn: exit status $churn_status: $(grep -m 1 'FAILED\|Failure' /tmp/churn.log)"
  else
    ok "integration churn, bond, namespace reuse and salt identity tests: passed"
  fi
  fact churn "${churn_line:-none} (exit status $churn_status, $churn_seconds s)"
  fact netns_reuse "$(grep -m 1 '^namespace reuse: (netns' /tmp/churn.log || echo none)"
  fact salt_identity "$(grep -m 1 '^identity: salt' /tmp/churn.log || echo none)"
  echo "integration churn: $churn_seconds s"
}

# The integration tests' traffic shapes (tests/integration/traffic_shapes_test.cpp)
# with this kernel's drivers, which the host running make test may lack:
# VXLAN, Geneve and GRE aggregates on their underlay, VLAN and QinQ tags in
# the payload, IPsec tunnel mode, looped-back multicast and macvlan's
# copies. Every test must run here: a skip is a failure.
traffic_shapes() {
  echo "--- integration tests: traffic shapes"
  shapes_started=$(cut -d ' ' -f 1 /proc/uptime)
  /usr/local/bin/integration_tests --gtest_filter='TrafficShapesTest.*' >/tmp/shapes.log 2>&1
  shapes_status=$?
  cat /tmp/shapes.log
  shapes_seconds=$(awk -v start="$shapes_started" '{printf "%.1f", $1 - start}' /proc/uptime)
  if grep -q 'SKIPPED \]' /tmp/shapes.log; then
    fail "traffic shapes: skipped here: $(grep -m 1 'this kernel' /tmp/shapes.log)"
  elif [ $shapes_status != 0 ] || ! grep -q '^\[  PASSED  \] 7 tests' /tmp/shapes.log; then
    fail "traffic shapes: exit status $shapes_status: $(grep -m 1 'FAILED\|Failure' /tmp/shapes.log)"
  else
    ok "traffic shapes (VXLAN, Geneve, GRE, VLAN, QinQ, IPsec, multicast loopback): passed"
  fi
  fact traffic_shapes "exit status $shapes_status, $shapes_seconds s"
  echo "traffic shapes: $shapes_seconds s"
}

fact kernel "$(uname -r)"
fact unprivileged_bpf_disabled "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)"
[ -e /sys/kernel/btf/vmlinux ] || fail "no /sys/kernel/btf/vmlinux"
ip link set lo up
if grep -q netif_rx_large_map /proc/cmdline; then
  large_map
  [ $failures = 0 ]
  exit
fi
# veth and bonding, dependencies first (make-initramfs.sh wrote the order).
for module in $(cat /lib/modules/load-order); do
  insmod "/lib/modules/$module.ko" || fail "insmod $module.ko"
done
# Tunnel drivers (ip_gre) would add their fallback devices (gre0, ...) to
# every new namespace, taking the ifindexes the tests expect of their veths:
# only the first namespace gets them, as on a node that sets this.
[ -e /proc/sys/net/core/fb_tunnels_only_for_init_net ] &&
  echo 2 >/proc/sys/net/core/fb_tunnels_only_for_init_net
# The integration boot: the integration tests alone, then the verdict.
if grep -q netif_rx_integration /proc/cmdline; then
  integration_churn
  traffic_shapes
  [ $failures = 0 ] && exit 0
  echo "$failures failures"
  exit 1
fi

# Two namespaces joined by a veth pair; static neighbours and no IPv6, so
# that only the pings cross it.
ip netns add a && ip netns add b || fail "ip netns add"
ip link add va netns a type veth peer name vb netns b || fail "ip link add veth"
for side in a b; do
  ip netns exec $side sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
  ip netns exec $side sysctl -q -w net.ipv6.conf.default.disable_ipv6=1
  ip netns exec $side sysctl -q -w net.ipv6.conf.v$side.disable_ipv6=1
done
ip -n a addr add 10.99.0.1/24 dev va
ip -n b addr add 10.99.0.2/24 dev vb
ip -n a link set va up
ip -n b link set vb up
mac_a=$(cat /sys/class/net/va/address 2>/dev/null || ip netns exec a cat /sys/class/net/va/address)
mac_b=$(ip netns exec b cat /sys/class/net/vb/address)
ip -n a neigh replace 10.99.0.2 lladdr "$mac_b" dev va nud permanent
ip -n b neigh replace 10.99.0.1 lladdr "$mac_a" dev vb nud permanent

# run_check LABEL: check's verdict and what it says it keeps.
run_check() {
  echo "--- check ($1)"
  check_output=$($exporter check 2>&1)
  check_status=$?
  echo "$check_output"
  if [ $check_status = 0 ]; then ok "$1: check passes"; else fail "$1: check exited $check_status"; fi
  case "$(echo "$check_output" | tail -n 1)" in
    *"can run on this machine"*) fact "check_$1" "✓ can run" ;;
    *) fact "check_$1" "✗ $(echo "$check_output" | grep '✗' | head -n 1)" ;;
  esac
  kept_by_check=$(echo "$check_output" | grep -o 'keeps CAP_[A-Z_]*' | head -n 1 | sed 's/keeps //')
  fact "check_keeps_$1" "${kept_by_check:-none}"
}

# burst_ports N [MULTICAST]: N pings from namespace c through each of bq1 and
# bq2 at the same time, to an address no one has (static neighbours: no ARP;
# the host neither answers nor forwards), so each lands on port bp1 / bp2
# once and nothing comes back. With MULTICAST, the bond pings 224.0.0.1 at
# the same time: the kernel loops each one back to the bond, which is not a
# packet the bond received (the probe leaves PACKET_LOOPBACK events), so the
# bond gets no series (its ports' counts are not touched either: it sends,
# they don't receive). Without replies a ping waits for one (-W 1) after its last
# packet: once both ports' own rx counters show all N, the pings are
# interrupted (not before: an interrupted busybox ping may count a packet it
# has not sent yet). sent1/sent2 say how many went.
burst_ports() {
  rx1=$(cat /sys/class/net/bp1/statistics/rx_packets)
  rx2=$(cat /sys/class/net/bp2/statistics/rx_packets)
  $iproute netns exec c ping -q -c "$1" -i 0.02 -W 1 10.97.1.1 >/tmp/burst1.log 2>&1 &
  ping1=$!
  $iproute netns exec c ping -q -c "$1" -i 0.02 -W 1 10.97.2.1 >/tmp/burst2.log 2>&1 &
  ping2=$!
  ping3=
  if [ -n "${2:-}" ]; then
    ping -q -c 3 -i 0.05 -W 1 -I "$2" 224.0.0.1 >/dev/null 2>&1 &
    ping3=$!
  fi
  for _ in $(seq 1 40); do
    sleep 0.05
    [ $(($(cat /sys/class/net/bp1/statistics/rx_packets) - rx1)) -ge "$1" ] &&
      [ $(($(cat /sys/class/net/bp2/statistics/rx_packets) - rx2)) -ge "$1" ] && break
  done
  [ -n "$ping3" ] && sleep 0.1 # its three packets, 0.05 s apart
  kill -INT "$ping1" "$ping2" $ping3 2>/dev/null
  wait "$ping1" "$ping2" $ping3
  sent1=$(awk '/packets transmitted/ {print $1}' /tmp/burst1.log)
  sent2=$(awk '/packets transmitted/ {print $1}' /tmp/burst2.log)
}

# expect_ports_continue STEP [MULTICAST]: after a burst, each port's count
# grew by what was sent to it, from what it held: never back, never reset.
# Up to 2 more are accepted, as the host's bridge test does: the kernel
# itself may hand a port a frame of its own while a master is torn down
# (extra_frames reports how many came). Leaves the last scrape in $scrape.
expect_ports_continue() {
  burst_ports 10 "${2:-}"
  want1=$((held1 + sent1))
  want2=$((held2 + sent2))
  for _ in $(seq 1 15); do
    sleep 0.3 # a poll (300ms after the reload)
    scrape=$(http_get /metrics)
    now1=$(series_value "$scrape" netif_rx_packets_total 'device="bp1"')
    now2=$(series_value "$scrape" netif_rx_packets_total 'device="bp2"')
    [ "$now1" -ge "$want1" ] && [ "$now2" -ge "$want2" ] && break
  done
  for i in 1 2; do
    eval "want=\$want$i now=\$now$i"
    if [ "$now" -lt "$want" ] || [ "$now" -gt $((want + 2)) ]; then
      fail "bond: bp$i after $1: $now packets, want $want (+2 at most)"
      bond_kept=no
    fi
    [ "$now" -gt "$want" ] && echo "bond: bp$i after $1: $((now - want)) frame(s) more than sent"
    extra_frames=$((extra_frames + now - want))
    eval "held$i=\$now"
  done
}

# Series of the bond in a scrape.
bond_series() { echo "$1" | grep -c '^netif_rx_packets_total{.*device="nrxbond"'; }

# bond_check: a bond over two veth ports (bp1, bp2 here; their peers in
# namespace c), with the exporter of run_mode still running: enslave both,
# bond down and up, release one, delete the bond with the other still in it.
# The ports' counts go on; the bond never has a series of its own: its
# ports' frames are counted on the ports (the kernel hands them to the bond
# without another event), and the multicast it loops back to itself is not
# counted. The links are changed through `ip -batch`: one
# process per step, not one per command (each costs under emulation).
bond_check() {
  echo "--- bond"
  bond_started=$(cut -d ' ' -f 1 /proc/uptime)
  bond_kept=yes
  extra_frames=0
  held1=0
  held2=0
  ip netns add c || fail "bond: ip netns add c"
  ip netns exec c sysctl -q -w net.ipv6.conf.default.disable_ipv6=1
  sysctl -q -w net.ipv6.conf.default.disable_ipv6=1
  printf '%s\n' "link add bp1 type veth peer name bq1 netns c" "link add bp2 type veth peer name bq2 netns c" \
    "link set bp1 up" "link set bp2 up" | ip -batch - || fail "bond: making the ports"
  printf '%s\n' "addr add 10.97.1.2/24 dev bq1" "addr add 10.97.2.2/24 dev bq2" \
    "link set bq1 up" "link set bq2 up" \
    "neigh replace 10.97.1.1 lladdr $(cat /sys/class/net/bp1/address) dev bq1 nud permanent" \
    "neigh replace 10.97.2.1 lladdr $(cat /sys/class/net/bp2/address) dev bq2 nud permanent" |
    ip -n c -batch - || fail "bond: the peers"
  expect_ports_continue "start"
  printf '%s\n' "link add nrxbond type bond" "link set bp1 down" "link set bp1 master nrxbond" \
    "link set bp2 down" "link set bp2 master nrxbond" "link set bp1 up" "link set bp2 up" \
    "addr add 10.96.0.1/24 dev nrxbond" "link set nrxbond up" | ip -batch - ||
    fail "bond: enslaving bp1 and bp2"
  expect_ports_continue "enslaved" nrxbond
  printf '%s\n' "link set nrxbond down" "link set nrxbond up" | ip -batch - || fail "bond: down and up"
  expect_ports_continue "bond down and up"
  bond_before=$(bond_series "$scrape")
  printf '%s\n' "link set bp2 nomaster" "link set bp2 up" | ip -batch - || fail "bond: releasing bp2"
  expect_ports_continue "bp2 released"
  printf '%s\n' "link del nrxbond" "link set bp1 up" | ip -batch - || fail "bond: deleting the bond"
  expect_ports_continue "the bond deleted under bp1"
  bond_after=$(bond_series "$scrape")
  [ "$bond_before" = 0 ] || fail "bond: the multicast the bond looped back to itself was counted ($bond_before series)"
  [ "$bond_after" = 0 ] || fail "bond: the deleted bond has $bond_after series"
  [ $bond_kept = yes ] && ok "bond: live ports kept their counts ($extra_frames extra frames)"
  fact bond_ports_kept "$bond_kept (extra frames $extra_frames)"
  fact bond_looped_back_uncounted "$([ "$bond_before" = 0 ] && [ "$bond_after" = 0 ] && echo yes || echo "no ($bond_before series before its deletion, $bond_after after)")"
  printf '%s\n' "link del bp1" "link del bp2" | ip -batch -
  ip netns del c
  echo "bond check: $(awk -v start="$bond_started" '{printf "%.1f", $1 - start}' /proc/uptime) s"
}

# run_mode ATTACH [LABEL]: LABEL (default ATTACH) names the facts.
run_mode() {
  mode=$1
  label=${2:-$1}
  echo "--- attach: $mode ($label)"
  cat >/tmp/config.yaml <<CONFIG
attach: $mode
namespaces: all
poll_interval: 200ms
per_cpu:
  devices: all
CONFIG
  $exporter --config.file=/tmp/config.yaml --web.listen-address=127.0.0.1:$port >/tmp/exporter.log 2>&1 &
  pid=$!
  ready=0
  for _ in $(seq 1 150); do
    case "$(http_get /-/ready | head -n 1)" in *" 200 "*) ready=1; break ;; esac
    kill -0 $pid 2>/dev/null || break
    sleep 0.2
  done
  if [ $ready = 0 ]; then
    fail "$mode: the exporter did not become ready"
    cat /tmp/exporter.log
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    return
  fi
  # /-/ready turns 200 once capabilities are given up; the exporter logs that
  # it is ready just after.
  for _ in $(seq 1 50); do
    grep -q "netif_rx_exporter is ready" /tmp/exporter.log && break
    sleep 0.1
  done
  grep -q "netif_rx_exporter is ready" /tmp/exporter.log || fail "$mode: no 'is ready' in the log"
  ok "$mode: ready"

  # Every thread's capabilities after startup: one awk over every thread's
  # status (a process or two per thread of 260 takes tens of seconds under
  # emulation), then shell comparisons only.
  threads=""
  retained=none
  zero=0000000000000000
  thread_caps=$(awk '/^Name:/ {name = $2} /^CapInh:/ {inh = $2} /^CapPrm:/ {prm = $2}
    /^CapEff:/ {eff = $2} /^CapAmb:/ {print name, eff, prm, inh, $2}' /proc/$pid/task/*/status 2>/dev/null)
  while read -r name eff prm inh amb; do
    [ -n "$name" ] || continue
    case $eff in
      $zero) caps=none ;;
      0000008000000000) caps=CAP_BPF ;; # capability 39 alone
      0000000000080000) caps=CAP_SYS_PTRACE ;; # capability 19 alone
      *) caps=0x$eff ;;
    esac
    threads="$threads $name=$caps"
    if [ "$eff" != "$prm" ] || [ "$inh" != $zero ] || [ "$amb" != $zero ]; then
      fail "$mode: thread $name: CapEff=$eff CapPrm=$prm CapInh=$inh CapAmb=$amb"
    fi
    case $caps in
      none) ;;
      CAP_BPF)
        if [ "$name" = netif_rx_poll ] && [ "$retained" = none ]; then retained=CAP_BPF; else
          fail "$mode: thread $name holds CAP_BPF"
        fi ;;
      CAP_SYS_PTRACE)
        # namespaces: all, started as root: the namespace attribution's
        # thread alone keeps it, to read other users' /proc/<pid>/ns/net.
        [ "$name" = netif_rx_owners ] || fail "$mode: thread $name holds CAP_SYS_PTRACE" ;;
      *) fail "$mode: thread $name holds capabilities $eff" ;;
    esac
  done <<THREADS
$thread_caps
THREADS
  echo "threads:$threads"
  # Told independently of the exporter: before 5.19 a non-zero
  # unprivileged_bpf_disabled refuses bpf(2) to threads without CAP_BPF.
  release=$(uname -r)
  major=${release%%.*}
  minor=${release#*.}
  minor=${minor%%[.-]*}
  expected=none
  if [ $((major * 1000 + minor)) -lt 5019 ] && [ "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)" != 0 ]; then
    expected=CAP_BPF
  fi
  [ "$retained" = "$expected" ] || fail "$mode: the polling thread keeps $retained; want $expected"
  fact "capabilities_$label" "$retained"

  scrape=$(http_get /metrics)
  exported=$(series_value "$scrape" netif_rx_exporter_capabilities_retained 'capability="CAP_BPF"')
  want_exported=0
  [ "$retained" = CAP_BPF ] && want_exported=1
  if [ "$exported" != $want_exported ]; then
    fail "$mode: netif_rx_exporter_capabilities_retained{capability=\"CAP_BPF\"} is $exported, want $want_exported"
  fi
  if [ "$retained" != "$kept_by_check" ] && [ "$retained:${kept_by_check:-none}" != none:none ]; then
    fail "$mode: check said it keeps ${kept_by_check:-none}, the exporter keeps $retained"
  fi

  # Exact per-CPU counts: pings from a to b pinned to CPU 1; each request is
  # received by vb and each reply by va, both on CPU 1 (veth delivers on the
  # sending CPU). Bytes: IP header + ICMP header + payload.
  before=$(http_get /metrics)
  taskset -c 1 $iproute netns exec a ping -q -c $pings -i 0.05 -s $payload 10.99.0.2 >/tmp/ping.log 2>&1 ||
    fail "$mode: ping: $(tail -n 2 /tmp/ping.log)"
  sleep 1
  after=$(http_get /metrics)
  exact=yes
  for device in va vb; do
    for cpu in 0 1; do
      want_packets=0
      [ $cpu = 1 ] && want_packets=$pings
      want_bytes=$((want_packets * (20 + 8 + payload)))
      packets=$(($(series_value "$after" netif_rx_packets_total "device=\"$device\"" "cpu=\"$cpu\"") -
        $(series_value "$before" netif_rx_packets_total "device=\"$device\"" "cpu=\"$cpu\"")))
      bytes=$(($(series_value "$after" netif_rx_bytes_total "device=\"$device\"" "cpu=\"$cpu\"") -
        $(series_value "$before" netif_rx_bytes_total "device=\"$device\"" "cpu=\"$cpu\"")))
      if [ $packets != $want_packets ] || [ $bytes != $want_bytes ]; then
        fail "$mode: $device cpu $cpu: $packets packets, $bytes bytes; want $want_packets, $want_bytes"
        exact=no
      fi
    done
  done
  [ $exact = yes ] && ok "$mode: exact per-CPU packets and bytes on va and vb"
  fact "exact_$label" "$exact"
  # Counting from the first poll on: no failed poll at all.
  if grep -q 'first poll failed\|msg="poll failed"' /tmp/exporter.log; then
    fail "$mode: a poll failed: $(grep -m 1 'first poll failed\|msg="poll failed"' /tmp/exporter.log)"
  fi
  errors=$(series_value "$after" netif_rx_exporter_poll_errors_total)
  [ "$errors" = 0 ] || fail "$mode: poll errors: $(echo "$after" | grep '^netif_rx_exporter_poll_errors_total')"

  if [ "$label" = sysctl0 ]; then
    # Capabilities and counts only: the rest was checked with the default.
    fact "bpf_stats_$label" "(not rechecked)"
    fact "reload_$label" "(not rechecked)"
    kill -TERM $pid
    wait $pid || fail "$mode: exit status $? after SIGTERM"
    return
  fi
  # The default bpf_stats mode: sampled, through the helper process.
  if grep -q "BPF statistics helper started" /tmp/exporter.log; then
    ok "$mode: bpf_stats sampled by the helper"
    fact "bpf_stats_$label" sampled
  else
    fail "$mode: no BPF statistics helper started"
    fact "bpf_stats_$label" none
  fi

  # SIGHUP reload, then still counting.
  echo "poll_interval: 300ms" >>/tmp/config.yaml
  sed -i 's/^poll_interval: 200ms$//' /tmp/config.yaml
  kill -HUP $pid
  reloaded=no
  for _ in $(seq 1 50); do
    grep -q "configuration reloaded" /tmp/exporter.log && { reloaded=yes; break; }
    sleep 0.1
  done
  before=$(http_get /metrics)
  taskset -c 0 $iproute netns exec a ping -q -c 5 -i 0.05 -s $payload 10.99.0.2 >/dev/null 2>&1
  sleep 1
  after=$(http_get /metrics)
  grown=$(($(series_value "$after" netif_rx_packets_total 'device="vb"' 'cpu="0"') -
    $(series_value "$before" netif_rx_packets_total 'device="vb"' 'cpu="0"')))
  if [ $reloaded = yes ] && [ $grown = 5 ] && kill -0 $pid 2>/dev/null; then
    ok "$mode: SIGHUP reloads and counting goes on"
    fact "reload_$label" yes
  else
    fail "$mode: SIGHUP reload: reloaded=$reloaded, vb grew by $grown (want 5)"
    fact "reload_$label" no
  fi
  [ "$label" = tp_btf ] && bond_check

  kill -TERM $pid
  wait $pid
  status=$?
  [ $status = 0 ] || fail "$mode: exit status $status after SIGTERM"
  echo "--- exporter log ($mode)"
  cat /tmp/exporter.log
}

run_check default
run_mode tp_btf
run_mode tracepoint
# Where the kernel's default refused reads (before 5.19), the same kernel with
# the sysctl at 0 keeps nothing.
if [ "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)" != 0 ] && [ "$retained" != none ]; then
  echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled || fail "setting unprivileged_bpf_disabled=0"
  run_check sysctl0
  run_mode tp_btf sysctl0
fi

[ $failures = 0 ] && exit 0
echo "$failures failures"
exit 1

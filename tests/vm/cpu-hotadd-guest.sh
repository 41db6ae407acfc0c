#!/bin/sh
# Runs inside the CPU hot-add guest (busybox sh as PID 1's child, root),
# started by run-cpu-hotadd.sh: the guest boots with one CPU of two possible
# (qemu -smp 1,maxcpus=2), the exporter starts, and the host adds the second
# CPU through qemu's monitor when asked over the second serial port (ttyS1:
# the guest writes "ADD", the host answers "ADDED key=value ...").
# Traffic: pings through a veth pair between two namespaces (static
# neighbours, no IPv6: nothing else crosses it); each request is received by
# vb and each reply by va, on the CPU the pinging process runs on.
# Checked:
#   - before: only cpu="0" series, the pings' exact counts on CPU 0;
#   - CPU 1's series (va and vb among them) appear by the second poll after
#     CPU 1 became present (/sys/devices/system/cpu/present), counted in the
#     exporter's polls, online or not (these kernels leave it offline and
#     busybox has no udev: the guest onlines it afterwards);
#   - pings pinned to CPU 1: exactly their packets and bytes on cpu="1",
#     CPU 0's unchanged;
#   - then a reload makes vb, lo and the totals summed (va keeps its per-CPU
#     series), and the host unplugs CPU 1 (QMP device_del; the guest's
#     kernel ejects it: /sys/devices/system/cpu/present goes back to 0):
#     va's cpu="1" series stay with their counts, vb's summed series and the
#     summed totals keep CPU 1's counts (exactly the pings of both CPUs),
#     netif_rx_exporter_cpus says 1, and pings after it count on CPU 0;
#   - at every scrape (before, during the hot-add, during the pings, during
#     the unplug, after): no series goes down or disappears, and packets +
#     untracked + removed >= counted (summed over CPUs); equal when no
#     traffic (checked quiet).
# Prints "ok: ..." / "FAIL: ..." lines and "HOTADD key=value" lines for the
# runner; exits 1 on any failure.
exporter=/usr/local/bin/netif_rx_exporter
port=19400
# The exporter's poll interval (netif_rx_hotadd_poll_ms= on the kernel
# command line changes it).
poll_ms=$(sed -n 's/.*netif_rx_hotadd_poll_ms=\([0-9]*\).*/\1/p' /proc/cmdline)
poll_ms=${poll_ms:-500}
pings0=20
pings1=30
pings2=10
payload=100
failures=0
scrapes=0
iproute=/usr/local/bin/ip
ip() { $iproute "$@"; }

ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
fact() { echo "HOTADD $1=$2"; }
uptime_s() { cut -d ' ' -f 1 /proc/uptime; }
# seconds between two uptimes, 2 decimals
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

http_get() { printf 'GET %s HTTP/1.0\r\n\r\n' "$1" | nc -w 5 127.0.0.1 $port 2>/dev/null; }
# Sum of a series' values over the lines matching every given pattern (up
# to two): series_value SCRAPE NAME [PATTERN [PATTERN]].
series_value() {
  echo "$1" | awk -v name="$2{" -v p1="${3:-}" -v p2="${4:-}" '
    index($0, name) == 1 && (p1 == "" || index($0, p1)) && (p2 == "" || index($0, p2)) { sum += $NF }
    END { printf "%.0f\n", sum }'
}
# packets + untracked + removed and counted, summed over every CPU:
# "EXPORTED COUNTED PACKETS UNTRACKED REMOVED".
invariant_sums() {
  echo "$1" | awk '
    /^netif_rx_packets_total[{ ]/ { p += $NF }
    /^netif_rx_untracked_packets_total[{ ]/ { u += $NF }
    /^netif_rx_removed_packets_total[{ ]/ { r += $NF }
    /^netif_rx_counted_packets_total[{ ]/ { c += $NF }
    END { printf "%.0f %.0f %.0f %.0f %.0f\n", p + u + r, c, p, u, r }'
}

# check_scrape SCRAPE LABEL: every per-CPU series of the counting families
# against the previous scrape (none went down, none disappeared) and the
# invariant's inequality. Leaves the sums in $exported $counted.
check_scrape() {
  echo "$1" | grep -E '^netif_rx_(packets|skbs|bytes|busiest_cpu_packets|counted_packets|untracked_packets|removed_packets|gso_fallbacks)_total[{ ]' >/tmp/current
  if [ ! -s /tmp/current ]; then
    fail "$2: a scrape without netif_rx series"
    return
  fi
  if [ -s /tmp/previous ]; then
    bad=$(awk 'NR == FNR { k = $0; sub(/ [^ ]*$/, "", k); prev[k] = $NF; next }
      { k = $0; sub(/ [^ ]*$/, "", k); cur[k] = $NF }
      END { for (k in prev) { if (!(k in cur)) print "gone: " k; else if (cur[k] + 0 < prev[k] + 0) print "down: " k " " prev[k] " -> " cur[k] } }' \
      /tmp/previous /tmp/current)
    [ -z "$bad" ] || fail "$2: $(echo $bad | cut -c 1-600)"
  fi
  mv /tmp/current /tmp/previous
  set -- "$1" "$2" $(invariant_sums "$1")
  exported=$3 counted=$4
  [ "$exported" -ge "$counted" ] ||
    fail "$2: packets + untracked + removed = $exported ($5 + $6 + $7) < counted $counted"
  scrapes=$((scrapes + 1))
}
# scrape LABEL: a scrape, checked, in $scrape.
scrape() {
  scrape=$(http_get /metrics)
  check_scrape "$scrape" "$1"
}
# quiet_invariant LABEL: no traffic: packets + untracked + removed = counted.
# A poll that read the maps while a scrape's own packets crossed lo sees
# them on a device and not in the total read just before: up to 8 scrapes.
quiet_invariant() {
  for _ in 1 2 3 4 5 6 7 8; do
    scrape "$1"
    [ "$exported" = "$counted" ] && break
    sleep 0.25
  done
  set -- "$1" $(invariant_sums "$scrape")
  if [ "$2" = "$3" ]; then
    ok "$1: packets $4 + untracked $5 + removed $6 = $2 = counted $3"
  else
    fail "$1: packets $4 + untracked $5 + removed $6 = $2, counted $3 (quiet)"
  fi
  fact "invariant_$1" "exported=$2 counted=$3 packets=$4 untracked=$5 removed=$6"
}
# cpus_of SCRAPE: the cpu label values of the scrape, sorted.
cpus_of() { echo "$1" | grep '^netif_rx_' | grep -o 'cpu="[0-9]*"' | sort -u | tr -d 'cpu="' | tr '\n' ' '; }
# per_cpu SCRAPE DEVICE CPU: "PACKETS SKBS BYTES" of a device on a CPU, or "-"
# when there is no such series.
per_cpu() {
  if echo "$1" | grep "^netif_rx_packets_total{" | grep "device=\"$2\"" | grep -q "cpu=\"$3\""; then
    echo "$(series_value "$1" netif_rx_packets_total "device=\"$2\"" "cpu=\"$3\"")" \
      "$(series_value "$1" netif_rx_skbs_total "device=\"$2\"" "cpu=\"$3\"")" \
      "$(series_value "$1" netif_rx_bytes_total "device=\"$2\"" "cpu=\"$3\"")"
  else
    echo "-"
  fi
}
table() {
  for device in va vb; do
    echo "$1: $device cpu 0: $(per_cpu "$2" $device 0) | cpu 1: $(per_cpu "$2" $device 1) (packets skbs bytes)"
  done
}
# ping_checked LABEL COUNT [CPU]: pings from a to b (pinned to CPU), a
# checked scrape every 0.3 s while they run.
ping_checked() {
  if [ -n "${3:-}" ]; then
    taskset -c "$3" $iproute netns exec a ping -q -c "$2" -i 0.05 -s $payload 10.99.0.2 >/tmp/ping.log 2>&1 &
  else
    $iproute netns exec a ping -q -c "$2" -i 0.05 -s $payload 10.99.0.2 >/tmp/ping.log 2>&1 &
  fi
  pinger=$!
  while kill -0 $pinger 2>/dev/null; do
    scrape "$1 (pinging)"
    sleep 0.3
  done
  wait $pinger || fail "$1: ping: $(tail -n 2 /tmp/ping.log)"
  # Two polls: every reply is in the snapshot.
  sleep "$two_polls"
}

two_polls=$(awk -v p="$poll_ms" 'BEGIN { printf "%.2f", 2.4 * p / 1000 }')
fact kernel "$(uname -r)"
possible=$(cat /sys/devices/system/cpu/possible)
present=$(cat /sys/devices/system/cpu/present)
online=$(cat /sys/devices/system/cpu/online)
echo "CPUs at boot: possible $possible, present $present, online $online"
fact boot_cpus "possible=$possible present=$present online=$online"
if [ "$possible" != 0-1 ] || [ "$present" != 0 ]; then
  fail "the guest boots with possible $possible, present $present; want 0-1 and 0 (qemu -smp 1,maxcpus=2)"
  exit 1
fi
ip link set lo up
insmod /lib/modules/veth.ko || fail "insmod veth.ko"

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
mac_a=$(ip netns exec a cat /sys/class/net/va/address)
mac_b=$(ip netns exec b cat /sys/class/net/vb/address)
ip -n a neigh replace 10.99.0.2 lladdr "$mac_b" dev va nud permanent
ip -n b neigh replace 10.99.0.1 lladdr "$mac_a" dev vb nud permanent

# The exporter: every namespace (the veth pair is in two of their own), no
# BPF statistics (their helper patches kernel code, which costs under
# emulation and is not what this test is about).
printf 'namespaces: all\npoll_interval: %sms\nper_cpu:\n  devices: all\nbpf_stats:\n  mode: off\n' "$poll_ms" \
  >/tmp/config.yaml
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
ok "exporter ready after $(uptime_s) s of uptime"
started=$(uptime_s)

stty -F /dev/ttyS1 raw -echo 2>/dev/null || fail "stty on /dev/ttyS1"
exec 3<>/dev/ttyS1

echo "--- one CPU: $pings0 pings"
ping_checked one-cpu $pings0
quiet_invariant one-cpu
one=$scrape
table before "$one"
cpus=$(cpus_of "$one")
fact cpus_before "$cpus"
[ "$cpus" = "0 " ] || fail "one CPU present: series of CPUs $cpus, want only 0"
for device in va vb; do
  set -- $(per_cpu "$one" $device 0)
  [ "$1" = $pings0 ] && [ "$3" = $((pings0 * (20 + 8 + payload))) ] ||
    fail "one CPU: $device cpu 0: $1 packets, $3 bytes; want $pings0, $((pings0 * (20 + 8 + payload)))"
  fact "before_${device}_cpu0" "$*"
done
[ "$cpus" = "0 " ] && ok "one CPU present: only cpu=\"0\" series, va and vb $pings0 packets each"

echo "--- CPU 1 added by the host"
asked_at=$(uptime_s)
echo ADD >&3
reply=
read -t 60 -r reply <&3
echo "host: $reply"
case "$reply" in
  ADDED*error=* | "") fail "the host did not add a CPU: '$reply'" ;;
  ADDED*) fact host_added "${reply#ADDED }" ;;
esac
# Until CPU 1 is present (the kernel handles qemu's ACPI notification on
# its own), checked scrapes.
present_at=
for _ in $(seq 1 150); do
  if [ "$(cat /sys/devices/system/cpu/present)" = 0-1 ]; then
    present_at=$(uptime_s)
    asked=$present_at
    break
  fi
  scrape "hot-add (waiting for present)"
  sleep 0.05
done
if [ -z "$present_at" ]; then
  fail "CPU 1 not present 30 s after the host added it (present: $(cat /sys/devices/system/cpu/present))"
  echo DONE >&3
  exit 1
fi
online_then=$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null)
echo "CPU 1 present $(elapsed "$asked_at" "$present_at") s after the guest asked for it; online: '$online_then'; possible $(cat /sys/devices/system/cpu/possible), online CPUs $(cat /sys/devices/system/cpu/online)"
fact present_online "${online_then:-?}"
# CPU 1's series, counted in polls: a poll publishes its snapshot (the
# present CPUs read then) before it counts itself in
# netif_rx_exporter_poll_duration_seconds_count. With N the count of a scrape
# taken once CPU 1 was present, poll N+1 may have read the CPUs before; poll
# N+2 began after it: every scrape counting N+2 or more must have CPU 1's
# series. A scrape every 0.1 s; the seconds (from the present file's change
# seen to the start of the first scrape with them) are said, not judged.
polls() {
  echo "$1" | awk '$1 == "netif_rx_exporter_poll_duration_seconds_count" || index($1, "netif_rx_exporter_poll_duration_seconds_count{") == 1 { n = $NF; found = 1 }
    END { if (found) printf "%.0f\n", n; else print "none" }'
}
scrape "hot-add (CPU 1 present)"
polls_present=$(polls "$scrape")
if [ "$polls_present" = none ] || [ "$polls_present" = 0 ]; then
  fail "no poll count (netif_rx_exporter_poll_duration_seconds_count) in the scrape: '$polls_present'"
  polls_present=0
fi
appeared_after=
# A device's per-CPU series start at its first packet on that CPU (none for a CPU it never used):
# the CPU shows first in the totals by CPU (per_cpu.devices: all) and in netif_rx_exporter_cpus.
for _ in $(seq 1 100); do
  if echo "$scrape" | grep -q '^netif_rx_counted_packets_total{cpu="1"}' &&
    [ "$(echo "$scrape" | awk '$1 == "netif_rx_exporter_cpus" { print $2 }')" = 2 ]; then
    appeared_after=$(elapsed "$present_at" "$asked")
    break
  fi
  [ "$(polls "$scrape")" -ge $((polls_present + 2)) ] && break
  sleep 0.1
  asked=$(uptime_s)
  scrape "hot-add (waiting for cpu 1's series)"
done
polls_seen=$(($(polls "$scrape") - polls_present))
fact cpu1_series_after "polls=$polls_seen seconds=${appeared_after:-never}"
if [ -n "$appeared_after" ]; then
  ok "CPU 1 in the totals by CPU and netif_rx_exporter_cpus 2: first in a scrape $polls_seen polls after one taken with CPU 1 present (required from 2 on), $appeared_after s after the present file said 0-1 (poll interval ${poll_ms} ms)"
else
  fail "CPU 1 not in the totals by CPU or netif_rx_exporter_cpus $polls_seen polls after CPU 1 became present (CPUs: $(cpus_of "$scrape"))"
fi
added=$scrape
[ "$(per_cpu "$added" va 1)$(per_cpu "$added" vb 1)" = "--" ] &&
  ok "no cpu=\"1\" series for va and vb before they counted a packet there" ||
  fail "cpu=\"1\" series for va or vb before any packet there: va $(per_cpu "$added" va 1), vb $(per_cpu "$added" vb 1)"
table added "$added"

if [ "$(cat /sys/devices/system/cpu/cpu1/online)" != 1 ]; then
  echo 1 >/sys/devices/system/cpu/cpu1/online || fail "echo 1 > cpu1/online refused"
fi
for _ in $(seq 1 50); do
  [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ] && break
  sleep 0.1
done
echo "online CPUs: $(cat /sys/devices/system/cpu/online)"
fact online_after "$(cat /sys/devices/system/cpu/online)"
if [ "$(cat /sys/devices/system/cpu/online)" != 0-1 ]; then
  fail "CPU 1 did not come online"
  echo DONE >&3
  exit 1
fi
sleep "$two_polls"
quiet_invariant cpu1-online
online_scrape=$scrape
table online "$online_scrape"

echo "--- $pings1 pings pinned to CPU 1"
ping_checked cpu1 $pings1 1
quiet_invariant after
after=$scrape
table after "$after"
fact cpus_after "$(cpus_of "$after")"
exact=yes
for device in va vb; do
  set -- $(per_cpu "$after" $device 1)
  fact "after_${device}_cpu1" "$*"
  if [ "$1" != $pings1 ] || [ "$3" != $((pings1 * (20 + 8 + payload))) ]; then
    fail "$device cpu 1: $1 packets, $3 bytes; want $pings1, $((pings1 * (20 + 8 + payload))) (the pings pinned to it)"
    exact=no
  fi
  set -- $(per_cpu "$after" $device 0)
  fact "after_${device}_cpu0" "$*"
  [ "$*" = "$(per_cpu "$one" $device 0)" ] ||
    { fail "$device cpu 0: $* after, $(per_cpu "$one" $device 0) before the hot-add"; exact=no; }
done
[ $exact = yes ] && ok "pings pinned to the added CPU: va and vb $pings1 packets each on cpu 1, cpu 0 unchanged"

echo "--- summed series, then CPU 1 unplugged by the host"
# A reload: va keeps its series by CPU, vb, lo and the totals are summed
# (one series each, without a cpu label), so that the unplug is checked on
# both. The series change shape here: the scrapes compare from the next one.
printf 'namespaces: all\npoll_interval: %sms\nper_cpu:\n  devices: none\n  include: ["va"]\nbpf_stats:\n  mode: off\n' "$poll_ms" \
  >/tmp/config.yaml
kill -HUP $exporter_pid
reloaded=no
for _ in $(seq 1 50); do
  scrape=$(http_get /metrics)
  if echo "$scrape" | grep -q '^netif_rx_packets_total{device="vb"' &&
    echo "$scrape" | grep -q '^netif_rx_counted_packets_total '; then
    reloaded=yes
    break
  fi
  sleep 0.2
done
[ $reloaded = yes ] || fail "after SIGHUP, no summed series of vb and the totals: $(echo "$scrape" | grep '^netif_rx_counted_packets_total' | head -n 2)"
rm -f /tmp/previous
quiet_invariant summed
summed=$scrape
# summed_of SCRAPE FAMILY DEVICE: the one series of DEVICE without a cpu label.
# Empty when there is none.
summed_of() {
  echo "$1" | awk -v p="$2{device=\"$3\"," 'index($0, p) == 1 { sum += $NF; found = 1 }
    END { if (found) printf "%.0f\n", sum }'
}
# total_of SCRAPE NAME: a total's value, summed over its series (by CPU or not).
total_of() {
  echo "$1" | awk -v n="$2" '$1 == n || index($1, n "{") == 1 { sum += $NF } END { printf "%.0f\n", sum }'
}
vb_packets=$(summed_of "$summed" netif_rx_packets_total vb)
vb_bytes=$(summed_of "$summed" netif_rx_bytes_total vb)
want_packets=$((pings0 + pings1))
want_bytes=$((want_packets * (20 + 8 + payload)))
echo "summed: vb $vb_packets packets, $vb_bytes bytes; va cpu 1: $(per_cpu "$summed" va 1)"
[ "$vb_packets" = $want_packets ] && [ "$vb_bytes" = $want_bytes ] ||
  fail "summed: vb $vb_packets packets, $vb_bytes bytes; want $want_packets, $want_bytes"

asked_at=$(uptime_s)
echo DEL >&3
# Until CPU 1 is no longer present (the guest's kernel offlines and ejects
# it when qemu's ACPI notification comes), checked scrapes.
gone_at=
for _ in $(seq 1 300); do
  if [ "$(cat /sys/devices/system/cpu/present)" = 0 ]; then
    gone_at=$(uptime_s)
    break
  fi
  scrape "hot-unplug (waiting for CPU 1 to leave)"
  sleep 0.1
done
reply=
read -t 45 -r reply <&3
echo "host: $reply"
case "$reply" in
  DELETED*error=* | "") fail "the host did not unplug the CPU: '$reply'" ;;
  DELETED*) fact host_deleted "${reply#DELETED }" ;;
esac
if [ -z "$gone_at" ]; then
  fail "CPU 1 still present after the host's device_del (present: $(cat /sys/devices/system/cpu/present), online: $(cat /sys/devices/system/cpu/online))"
  echo DONE >&3
  exit 1
fi
echo "CPU 1 gone $(elapsed "$asked_at" "$gone_at") s after the guest asked; present $(cat /sys/devices/system/cpu/present), online $(cat /sys/devices/system/cpu/online), possible $(cat /sys/devices/system/cpu/possible)"
fact unplugged "present=$(cat /sys/devices/system/cpu/present) online=$(cat /sys/devices/system/cpu/online) seconds=$(elapsed "$asked_at" "$gone_at")"
# The exporter reads the present CPUs at each poll: netif_rx_exporter_cpus
# says 1 by the second poll after a scrape taken with CPU 1 gone.
scrape "hot-unplug (CPU 1 gone)"
polls_gone=$(polls "$scrape")
left=no
for _ in $(seq 1 100); do
  if [ "$(echo "$scrape" | awk '$1 == "netif_rx_exporter_cpus" { print $2 }')" = 1 ]; then
    left=yes
    break
  fi
  [ "$(polls "$scrape")" -ge $((polls_gone + 2)) ] && break
  sleep 0.1
  scrape "hot-unplug (waiting for netif_rx_exporter_cpus 1)"
done
[ $left = yes ] && ok "netif_rx_exporter_cpus 1 once CPU 1 left" ||
  fail "netif_rx_exporter_cpus $(echo "$scrape" | awk '$1 == "netif_rx_exporter_cpus" { print $2 }') two polls after CPU 1 left"
quiet_invariant unplugged
unplugged=$scrape
table unplugged "$unplugged"
kept=yes
for cpu in 0 1; do
  [ "$(per_cpu "$unplugged" va $cpu)" = "$(per_cpu "$summed" va $cpu)" ] ||
    { fail "va cpu $cpu: $(per_cpu "$unplugged" va $cpu) after the unplug, $(per_cpu "$summed" va $cpu) before"; kept=no; }
done
for family in netif_rx_packets_total netif_rx_skbs_total netif_rx_bytes_total; do
  for device in vb lo; do
    was=$(summed_of "$summed" $family $device)
    now=$(summed_of "$unplugged" $family $device)
    [ -n "$now" ] && [ "$now" -ge "$was" ] || { fail "$family of $device: $was before the unplug, '$now' after"; kept=no; }
  done
done
[ "$(summed_of "$unplugged" netif_rx_packets_total vb)" = $want_packets ] ||
  { fail "vb after the unplug: $(summed_of "$unplugged" netif_rx_packets_total vb) packets, want $want_packets"; kept=no; }
for family in counted_packets untracked_packets removed_packets; do
  was=$(total_of "$summed" "netif_rx_${family}_total")
  now=$(total_of "$unplugged" "netif_rx_${family}_total")
  [ "$now" -ge "$was" ] || { fail "netif_rx_${family}_total: $was before the unplug, $now after"; kept=no; }
done
fact unplugged_va_cpu1 "$(per_cpu "$unplugged" va 1)"
fact unplugged_vb "$(summed_of "$unplugged" netif_rx_packets_total vb) $(summed_of "$unplugged" netif_rx_bytes_total vb)"
[ $kept = yes ] && ok "CPU 1 unplugged: va's cpu=\"1\" series kept ($(per_cpu "$unplugged" va 1)), vb summed $want_packets packets (CPU 1's included), no summed counter down"

echo "--- $pings2 pings after the unplug"
ping_checked unplugged-pings $pings2
quiet_invariant last
last=$scrape
want_packets=$((want_packets + pings2))
set -- $(per_cpu "$last" va 0)
[ "$(summed_of "$last" netif_rx_packets_total vb)" = $want_packets ] && [ "$1" = $((pings0 + pings2)) ] &&
  [ "$(per_cpu "$last" va 1)" = "$(per_cpu "$summed" va 1)" ] &&
  ok "pings after the unplug on CPU 0: va cpu 0 $1, vb summed $want_packets, va cpu 1 unchanged" ||
  fail "after the unplug's pings: va cpu 0 $1 (want $((pings0 + pings2))), vb $(summed_of "$last" netif_rx_packets_total vb) (want $want_packets), va cpu 1 $(per_cpu "$last" va 1)"
echo DONE >&3

[ "$(series_value "$last" netif_rx_exporter_poll_errors_total)" = 0 ] ||
  fail "poll errors: $(echo "$last" | grep '^netif_rx_exporter_poll_errors_total')"
ok "$scrapes scrapes checked: no series went down or disappeared, packets + untracked + removed >= counted in each"
fact scrapes "$scrapes"
echo "hot-add checks: $(elapsed "$started" "$(uptime_s)") s"
kill -TERM $exporter_pid
wait $exporter_pid || fail "the exporter exited $? after SIGTERM"
echo "--- exporter log"
cat /tmp/exporter.log
fact seconds "$(uptime_s)"
[ $failures = 0 ] && exit 0
echo "$failures failures"
exit 1

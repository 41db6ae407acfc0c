#!/bin/sh
# Runs inside the many-CPU guest (busybox sh as PID 1's child, root), started
# by run-many-cpu.sh, which prepends the chart's default configuration as
# $chart_config (the config block of the Helm chart's values.yaml).
# The guest: every vCPU online, two virtio-net NICs joined by qemu's hub
# (eth0 here: a device with a parent in sysfs, the physical class; eth1 in
# the namespace "wire"), and PAIRS namespaces n0..n(PAIRS-1), each with one
# end of a veth pair (pN; hN in this namespace). Static neighbours, no IPv6
# (new namespaces inherit it off): nothing crosses a device but what is sent.
# Checked, with the chart's configuration (per_cpu.devices: physical,
# namespaces: all, max_series):
#   - pings to every pair, each pair's pinned to one CPU (pair i to CPU
#     i mod CPUs: every CPU sends); every device's netif_rx_packets_total is
#     exactly what it was sent (hN the replies, pN the requests);
#   - the spread summary, all traffic in one poll interval (the exporter
#     stopped with SIGSTOP while it is sent, so that one poll reads it all):
#     pair 0 pinned to the last CPU (busiest = packets), pair 1 one ping from
#     every CPU (busiest = 1, packets = CPUs);
#   - eth0 with its receive interrupt on each of a few CPUs in turn: its
#     per-CPU packets grow by exactly what was sent on that CPU, nowhere else;
#   - the series: netif_rx_exporter_series equals the lines of the data
#     families, equals the Sizing formula of docs/metrics.md for the devices
#     seen, is within the budget node's formula at this guest's CPUs, and the
#     data families' text is within 512 KiB; nothing folded;
#   - quiet: packets + untracked + removed = counted; no failed poll once
#     the pairs are made.
# Prints "ok: ..." / "FAIL: ..." lines and "MANYCPU key=value" facts.
exporter=/usr/local/bin/netif_rx_exporter
iproute=/usr/local/bin/ip
ip() { $iproute "$@"; }
port=19100
pairs=$(sed -n 's/.*netif_rx_many_pairs=\([0-9]*\).*/\1/p' /proc/cmdline)
pairs=${pairs:-300}
failures=0
ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
fact() { echo "MANYCPU $1=$2"; }
uptime_s() { cut -d ' ' -f 1 /proc/uptime; }
phase_start=$(uptime_s)
# phase NAME: the guest seconds since the previous phase, as a fact.
phase() {
  now=$(uptime_s)
  fact "seconds_$1" "$(awk -v a="$phase_start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')"
  phase_start=$now
}
http_get() { printf 'GET %s HTTP/1.0\r\n\r\n' "$1" | nc -w 20 127.0.0.1 $port 2>/dev/null; }
# value SCRAPE NAME [PATTERN [PATTERN]]: the sum of a family's lines that
# contain every pattern.
value() {
  echo "$1" | awk -v name="$2" -v p1="${3:-}" -v p2="${4:-}" '
    (index($0, name "{") == 1 || index($0, name " ") == 1) && (p1 == "" || index($0, p1)) &&
      (p2 == "" || index($0, p2)) { sum += $NF }
    END { printf "%.0f\n", sum }'
}
polls() { value "$(http_get /metrics)" netif_rx_exporter_poll_duration_seconds_count; }
# after_polls N: returns once the exporter finished N more polls (at most 60 s).
after_polls() {
  target=$(($(polls) + $1))
  for _ in $(seq 1 120); do
    [ "$(polls)" -ge $target ] && return 0
    sleep 0.5
  done
  fail "the exporter did not finish $1 polls within 60 s"
}
finish() {
  fact failures $failures
  [ $failures = 0 ] && echo "many-CPU checks: all passed" || echo "many-CPU checks: $failures failed"
  exit $((failures != 0))
}

cpus=$(grep -c '^processor' /proc/cpuinfo)
last=$((cpus - 1))
fact kernel "$(uname -r)"
fact cpus "online=$(cat /sys/devices/system/cpu/online) possible=$(cat /sys/devices/system/cpu/possible) count=$cpus"
fact boot_seconds "$(uptime_s)"
[ "$(cat /sys/devices/system/cpu/online)" = "0-$last" ] || fail "not every CPU is online"

ip link set lo up
for module in $(cat /lib/modules/load-order); do insmod /lib/modules/$module.ko || fail "insmod $module"; done
sysctl -q -w net.core.devconf_inherit_init_net=1
sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
sysctl -q -w net.ipv6.conf.default.disable_ipv6=1

# The NICs, by the MACs run-many-cpu.sh gave them; each one's receive
# interrupt (virtioN-input.0).
nic_of() { grep -l "$1" /sys/class/net/*/address | cut -d / -f 5; }
irq_of() { grep "$(basename "$(readlink "/sys/class/net/$1/device")")-input.0" /proc/interrupts | cut -d : -f 1 | tr -d ' '; }
nic=$(nic_of 52:54:00:64:00:01)
wire=$(nic_of 52:54:00:64:00:02)
nic_irq=$(irq_of "$nic")
wire_irq=$(irq_of "$wire")
[ -n "$nic" ] && [ -n "$wire" ] && [ -n "$nic_irq" ] && [ -n "$wire_irq" ] ||
  { fail "the NICs: '$nic' (irq '$nic_irq') and '$wire' (irq '$wire_irq')"; finish; }
echo 0 >"/proc/irq/$wire_irq/smp_affinity_list"
ip netns add wire
ip link set "$wire" netns wire
ip addr add 198.51.100.1/24 dev "$nic"
ip link set "$nic" up
ip -n wire addr add 198.51.100.2/24 dev "$wire"
ip -n wire link set "$wire" up
ip neigh replace 198.51.100.2 lladdr 52:54:00:64:00:02 dev "$nic" nud permanent
ip -n wire neigh replace 198.51.100.1 lladdr 52:54:00:64:00:01 dev "$wire" nud permanent
phase nics

# The chart's configuration as it is; the exporter starts while the pairs are made.
# shellcheck disable=SC2154 # prepended by the runner
echo "$chart_config" >/tmp/config.yaml
$exporter --config.file=/tmp/config.yaml --web.listen-address=127.0.0.1:$port >/tmp/exporter.log 2>&1 &
exporter_pid=$!

# The pairs: hI here (10.B.C.1), pI in nI (10.B.C.2); MACs 02:00:0S:00:HH:LL.
mac() { printf '02:00:%02x:00:%02x:%02x' "$1" $(($2 / 256)) $(($2 % 256)); }
address() { echo "10.$((100 + $1 / 64)).$(($1 % 64 * 4)).$2"; }
i=0
: >/tmp/pairs.batch
while [ $i -lt "$pairs" ]; do
  echo "netns add n$i"
  echo "link add h$i address $(mac 1 $i) type veth peer name p$i address $(mac 2 $i) netns n$i"
  echo "addr add $(address $i 1)/30 dev h$i"
  echo "link set h$i up"
  echo "neigh replace $(address $i 2) lladdr $(mac 2 $i) dev h$i nud permanent"
  i=$((i + 1))
done >/tmp/pairs.batch
ip -batch /tmp/pairs.batch || fail "creating the pairs"
# The namespaces' ends: busybox's ip and arp applets in one busybox shell
# per namespace (one exec: iproute2's start, its libraries loaded, costs
# about 0.8 s each under emulation), two at a time (the host's two cores). IPv6 off on each end
# before it is up (new namespaces do not take it from this one's default).
configure_ends() {
  i=$1
  while [ $i -lt "$pairs" ]; do
    nsenter --net=/run/netns/n$i /bin/sh -c "echo 1 >/proc/sys/net/ipv6/conf/p$i/disable_ipv6 &&
      ip addr add $(address $i 2)/30 dev p$i && ip link set p$i up && arp -s $(address $i 1) $(mac 1 $i)" ||
      echo "n$i" >>/tmp/ends.failed
    i=$((i + 2))
  done
}
configurers=
for first in 0 1; do
  configure_ends $first &
  configurers="$configurers $!"
done
for pid in $configurers; do wait "$pid"; done
[ -s /tmp/ends.failed ] && fail "configuring the namespaces' ends: $(head -n 5 /tmp/ends.failed | tr '\n' ' ')"
phase pairs

ready=0
for _ in $(seq 1 600); do
  case "$(http_get /-/ready | head -n 1)" in *" 200 "*) ready=1; break ;; esac
  kill -0 $exporter_pid 2>/dev/null || break
  sleep 0.2
done
if [ $ready = 0 ]; then
  fail "the exporter did not become ready"
  cat /tmp/exporter.log
  finish
fi
# Polls that failed while the pairs were made (the exporter started
# meanwhile): a link dump the kernel interrupted (NLM_F_DUMP_INTR, EINTR)
# while namespaces and devices were added fails its poll. Reported; from
# here on none may fail.
errors_at_ready=$(value "$(http_get /metrics)" netif_rx_exporter_poll_errors_total)
fact poll_errors_while_pairs_were_made "$errors_at_ready"
phase exporter_ready

# Every pair but 0 and 1: 1 to 3 pings (pair i: 1 + i mod 3), from CPU i mod CPUs.
pings_of() { echo $((1 + $1 % 3)); }
senders=
c=0
while [ $c -lt $cpus ]; do
  i=$c
  [ $i -ge 2 ] || i=$((i + cpus))
  list=
  while [ $i -lt "$pairs" ]; do
    list="$list $i"
    i=$((i + cpus))
  done
  if [ -n "$list" ]; then
    taskset -c $c sh -c "for i in $list; do
      ping -q -c \$((1 + i % 3)) -i 0.05 -W 10 -w 60 10.\$((100 + i / 64)).\$((i % 64 * 4)).2 >/dev/null ||
        echo \"pair \$i from CPU $c\"
      done" >/tmp/sender.$c 2>&1 &
    senders="$senders $!"
  fi
  c=$((c + 1))
done
for pid in $senders; do wait "$pid"; done
# A ping's own verdict is not the check (busy, it may give up on a reply
# that did arrive): what each device counted is, below.
late=$(cat /tmp/sender.* 2>/dev/null | head -n 5 | tr '\n' ' ')
[ -z "$late" ] || fact pings_without_reply_in_time "$late"
phase bulk_pings

# The spread summary: a ping to pairs 0 and 1 first (the first poll that
# reads a device is its baseline), then all of their traffic while the
# exporter is stopped.
ping -q -c 1 -W 5 "$(address 0 2)" >/dev/null && ping -q -c 1 -W 5 "$(address 1 2)" >/dev/null ||
  fail "the first pings to pairs 0 and 1"
after_polls 2
before=$(http_get /metrics)
kill -STOP $exporter_pid
taskset -c $last ping -q -c 8 -i 0.05 -W 5 "$(address 0 2)" >/tmp/pinned.log 2>&1 ||
  fail "pinned pings: $(tail -n 1 /tmp/pinned.log)"
senders=
c=0
while [ $c -lt $cpus ]; do
  taskset -c $c ping -q -c 1 -W 5 -w 20 "$(address 1 2)" >/tmp/spread.$c 2>&1 || echo "CPU $c" >>/tmp/spread.lost &
  senders="$senders $!"
  c=$((c + 1))
done
for pid in $senders; do wait "$pid"; done
[ -s /tmp/spread.lost ] && fail "spread pings without reply: $(head -n 3 /tmp/spread.lost | tr '\n' ' ')"
kill -CONT $exporter_pid
after_polls 2
after=$(http_get /metrics)
for device in h0 p0 h1 p1; do
  packets=$(($(value "$after" netif_rx_packets_total "device=\"$device\"") - $(value "$before" netif_rx_packets_total "device=\"$device\"")))
  busiest=$(($(value "$after" netif_rx_busiest_cpu_packets_total "device=\"$device\"") - $(value "$before" netif_rx_busiest_cpu_packets_total "device=\"$device\"")))
  case $device in
    ?0) want_packets=8 want_busiest=8 ;;
    *) want_packets=$cpus want_busiest=1 ;;
  esac
  fact "spread_$device" "packets=$packets busiest=$busiest"
  if [ $packets = $want_packets ] && [ $busiest = $want_busiest ]; then
    ok "$device: $packets packets, $busiest on its busiest CPU (one interval)"
  else
    fail "$device: $packets packets, $busiest on its busiest CPU; want $want_packets and $want_busiest"
  fi
done
phase spread

# eth0 per CPU: its interrupt on a CPU, one ping to settle the move, two
# polls, then COUNT pings: the CPU's series grows by COUNT, no other.
nic_sent=0
per_cpu_lines() { echo "$1" | grep "^netif_rx_packets_total{" | grep "device=\"$nic\"" | sort; }
n=0
for c in 1 $last; do
  n=$((n + 1))
  count=$((4 + n))
  echo $c >"/proc/irq/$nic_irq/smp_affinity_list" || fail "IRQ $nic_irq to CPU $c"
  ip netns exec wire ping -q -c 1 -W 5 198.51.100.1 >/dev/null || fail "settling ping, CPU $c"
  after_polls 2
  before=$(http_get /metrics)
  ip netns exec wire ping -q -c $count -i 0.05 -W 5 198.51.100.1 >/dev/null || fail "pings to $nic, CPU $c"
  nic_sent=$((nic_sent + 1 + count))
  after_polls 2
  after=$(http_get /metrics)
  per_cpu_lines "$before" >/tmp/before.lines
  per_cpu_lines "$after" >/tmp/after.lines
  grown=$(awk 'NR == FNR { k = $1; prev[k] = $2; next }
    { d = $2 - prev[$1]; if (d != 0) { match($1, /cpu="[0-9]+"/); printf "%s:%d ", substr($1, RSTART + 5, RLENGTH - 6), d } }' \
    /tmp/before.lines /tmp/after.lines)
  fact "nic_cpu_$c" "sent=$count grown=$grown"
  if [ "$grown" = "$c:$count " ]; then
    ok "$nic: $count packets on cpu=\"$c\" exactly, no other CPU"
  else
    fail "$nic: interrupt on CPU $c, $count sent; grown (cpu:packets): ${grown:-nothing}"
  fi
done
phase nic_per_cpu

# The totals of every device, quiet (no traffic but these scrapes on lo).
after_polls 2
final=$(http_get /metrics)
echo "$final" | awk '/^netif_rx_packets_total\{/ { match($0, /device="[^"]*"/); d = substr($0, RSTART + 8, RLENGTH - 9); sum[d] += $NF }
  END { for (d in sum) print d, sum[d] }' | sort >/tmp/got
i=0
{
  while [ $i -lt "$pairs" ]; do
    case $i in
      0) want=9 ;;
      1) want=$((1 + cpus)) ;;
      *) want=$(pings_of $i) ;;
    esac
    echo "h$i $want"
    echo "p$i $want"
    i=$((i + 1))
  done
  echo "$nic $nic_sent"
  echo "$wire $nic_sent"
} | sort >/tmp/want
wrong=$(awk 'NR == FNR { got[$1] = $2; next } got[$1] != $2 { printf "%s %s (want %s) ", $1, got[$1] == "" ? "none" : got[$1], $2 }' /tmp/got /tmp/want)
checked=$(wc -l </tmp/want)
fact devices_exact "$((checked - $(echo "$wrong" | awk '{ print NF / 4 }' | cut -d . -f 1))) of $checked"
if [ -z "$wrong" ]; then
  ok "$checked devices: each one's packets exactly what it was sent"
else
  fail "devices whose packets differ from what was sent: $(echo "$wrong" | cut -c 1-400)"
fi

# The series: the gauge, the lines, the formula, the budget.
data_lines=$(echo "$final" | grep -c -E '^netif_rx_(packets|skbs|bytes|busiest_cpu_packets|untracked_packets|removed_packets|counted_packets|gso_fallbacks|drops|backlog_drops|untracked_drops|napi_polls|napi_polled_packets|napi_budget_exhausted|backlog_polls|backlog_polled_packets|backlog_budget_exhausted|napi_untracked_polls|queue_packets|queue_untracked_packets|steered_packets|steered_untracked_packets)_total[{ ]|^netif_rx_netns_info\{')
# The drop families' lines (only non-zero series, and the untracked drops): in the gauge too.
drop_lines=$(echo "$final" | grep -c -E '^netif_rx_(drops|backlog_drops|untracked_drops)_total[{ ]' || true)
# The NAPI families' lines (CPUs that polled, and the untracked polls): in the gauge too.
napi_lines=$(echo "$final" | grep -c -E '^netif_rx_(napi_polls|napi_polled_packets|napi_budget_exhausted|backlog_polls|backlog_polled_packets|backlog_budget_exhausted|napi_untracked_polls)_total[{ ]' || true)
# The queue and steering families' lines (pairs that counted, and their untracked totals): in the gauge too.
route_lines=$(echo "$final" | grep -c -E '^netif_rx_(queue_packets|queue_untracked_packets|steered_packets|steered_untracked_packets)_total[{ ]' || true)
data_bytes=$(echo "$final" | grep -E '^netif_rx_(packets|skbs|bytes|busiest_cpu_packets|untracked_packets|removed_packets|counted_packets|gso_fallbacks)_total|^netif_rx_netns_info|^# (HELP|TYPE) netif_rx_(packets|skbs|bytes|busiest_cpu_packets|untracked_packets|removed_packets|counted_packets|gso_fallbacks)_total|^# (HELP|TYPE) netif_rx_netns_info' | wc -c)
gauge=$(value "$final" netif_rx_exporter_series)
folded=$(value "$final" netif_rx_exporter_folded_devices)
nic_cpus=$(echo "$final" | grep "^netif_rx_packets_total{" | grep -c "device=\"$nic\"")
summed=$(echo "$final" | grep "^netif_rx_packets_total{" | grep -vc 'cpu="')
infos=$(echo "$final" | grep -c '^netif_rx_netns_info{')
formula=$((3 * nic_cpus + 1 + 4 * summed + infos + 6 + drop_lines + napi_lines + route_lines))
budget=$((6 * cpus + 3913))
fact series "gauge=$gauge lines=$data_lines formula=$formula nic_cpus=$nic_cpus summed_devices=$summed netns_info=$infos drop_lines=$drop_lines napi_lines=$napi_lines route_lines=$route_lines budget=$budget bytes=$data_bytes folded=$folded"
[ "$gauge" = "$data_lines" ] && [ "$gauge" = "$formula" ] ||
  fail "series: netif_rx_exporter_series $gauge, lines $data_lines, the formula $formula"
[ "$summed" = $((2 * pairs + 2)) ] || fail "summed devices: $summed, want $((2 * pairs + 2)) (the pairs, lo, $wire)"
[ "$infos" = $((pairs + 2)) ] || fail "netif_rx_netns_info: $infos, want $((pairs + 2))"
[ "$gauge" -le "$budget" ] && [ "$data_bytes" -le 524288 ] && [ "$folded" = 0 ] &&
  ok "series $gauge = the formula, within the budget at $cpus CPUs ($budget); data families $data_bytes bytes; none folded" ||
  fail "series $gauge (budget $budget), $data_bytes bytes (512 KiB), $folded folded"

# packets + untracked + removed = counted, quiet (a scrape's own lo packets
# may fall between two reads of a poll: a few tries).
for _ in 1 2 3 4 5 6; do
  sums=$(http_get /metrics | awk '/^netif_rx_packets_total\{/ { p += $NF } /^netif_rx_untracked_packets_total/ { u += $NF }
    /^netif_rx_removed_packets_total/ { r += $NF } /^netif_rx_counted_packets_total/ { c += $NF }
    END { printf "%.0f %.0f", p + u + r, c }')
  [ "${sums% *}" = "${sums#* }" ] && break
  sleep 1
done
fact invariant "$sums"
[ "${sums% *}" = "${sums#* }" ] && ok "packets + untracked + removed = counted = ${sums#* }" ||
  fail "packets + untracked + removed, counted: $sums"
errors=$(($(value "$final" netif_rx_exporter_poll_errors_total) - errors_at_ready))
fact poll "count=$(value "$final" netif_rx_exporter_poll_duration_seconds_count) seconds=$(value "$final" netif_rx_exporter_poll_duration_seconds_sum) errors_after_ready=$errors"
[ "$errors" = 0 ] || fail "$errors failed polls: $(grep -i -m 3 -E 'level=(error|warn)' /tmp/exporter.log | tr '\n' ' ')"
fact exporter_rss_kib "$(awk '/^VmRSS:/ { print $2 }' /proc/$exporter_pid/status)"
phase checks
kill $exporter_pid
wait $exporter_pid
finish

#!/bin/sh
# Runs inside a guest of many-cpu-bench.sh (busybox sh as PID 1's child,
# root), which prepends the chart's configuration as $chart_config: PAIRS
# veth pairs in this namespace, then netif_rx_cpu_scale runs the exporter on
# them and prints its row, as "CPUSCALE <row>". Every end receives its peer's
# IPv6 neighbour and multicast messages when the pairs come up; they are
# brought down and up again 20 s after the exporter started, so that each has
# counted packets (a series) whatever the boot's pace; the measurement starts
# 40 s after the exporter, past those links' events.
iproute=/usr/local/bin/ip
pairs=$(sed -n 's/.*netif_rx_bench_pairs=\([0-9]*\).*/\1/p' /proc/cmdline)
pairs=${pairs:-500}
echo "CPUSCALE_CPUS possible=$(cat /sys/devices/system/cpu/possible) online=$(cat /sys/devices/system/cpu/online)"
$iproute link set lo up
for module in $(cat /lib/modules/load-order); do insmod "/lib/modules/$module.ko" || exit 1; done
i=0
while [ $i -lt "$pairs" ]; do
  echo "link add a$i type veth peer name b$i"
  echo "link set a$i up"
  echo "link set b$i up"
  echo "link set a$i down" >&3
  echo "link set b$i down" >&3
  echo "link set a$i up" >&3
  echo "link set b$i up" >&3
  i=$((i + 1))
done >/tmp/pairs.batch 3>/tmp/flap.batch
$iproute -batch /tmp/pairs.batch || exit 1
# shellcheck disable=SC2154 # prepended by the runner
echo "$chart_config" >/tmp/config.yaml
/usr/local/bin/netif_rx_cpu_scale /usr/local/bin/netif_rx_exporter /tmp/config.yaml $((2 * pairs)) 40 30 >/tmp/row &
scale=$!
sleep 20
$iproute -batch /tmp/flap.batch || exit 1
wait $scale || exit 1
echo "CPUSCALE $(cat /tmp/row)"

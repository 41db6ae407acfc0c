#!/usr/bin/env bash
# SIGHUP re-reads --config.file: a good file applies (per_cpu at once,
# max_devices only after a restart, said so), a bad one is logged with its
# file:line and the running configuration stays; the last-reload metrics
# follow, and counts never reset.
# Usage: reload_test.sh <netif_rx_exporter binary> <source dir>
binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools curl python3
require_root

config="$work/reload.yaml"
printf 'poll_interval: 500ms\nper_cpu: true\n' >"$config"
port=$(free_port)
start_exporter "$work/run.log" --config.file="$config" --web.listen-address="127.0.0.1:$port"
if ! wait_http "http://127.0.0.1:$port/-/ready" 200; then
  echo "FAIL: the exporter did not become ready; its log:" >&2
  cat "$work/run.log" >&2
  exit 1
fi

scrape() { # scrape FILE: after loopback traffic and a poll
  for _ in 1 2 3; do curl -s -o /dev/null "http://127.0.0.1:$port/"; done
  sleep 0.7
  curl -s "http://127.0.0.1:$port/metrics" >"$1"
}
lo_packets() { awk '/^netif_rx_packets_total\{.*device="lo"/ { sum += $2 } END { printf "%d\n", sum }' "$1"; }

scrape "$work/m0.txt"
expect "startup: config_last_reload_successful 1" \
  test "$(metric netif_rx_exporter_config_last_reload_successful "$work/m0.txt")" = 1
t0=$(metric netif_rx_exporter_config_last_reload_success_timestamp_seconds "$work/m0.txt")
expect "startup: last_reload_success_timestamp_seconds set ($t0)" test "${t0%%.*}" -gt 1600000000 2>/dev/null
p0=$(lo_packets "$work/m0.txt")
expect "lo counted per CPU before the reload ($p0 packets)" \
  grep -Eq '^netif_rx_packets_total\{cpu="[0-9]+",device="lo"\}' "$work/m0.txt"

# A good file: per_cpu applies now; max_devices needs a restart.
sleep 1.1
printf 'poll_interval: 500ms\nper_cpu: false\nmax_devices: 100\n' >"$config"
kill -HUP "$pid"
sleep 0.3
scrape "$work/m1.txt"
expect "good reload: config_last_reload_successful 1" \
  test "$(metric netif_rx_exporter_config_last_reload_successful "$work/m1.txt")" = 1
t1=$(metric netif_rx_exporter_config_last_reload_success_timestamp_seconds "$work/m1.txt")
expect "good reload: the success timestamp moved ($t0 -> $t1)" \
  python3 -c "import sys; sys.exit(0 if float('$t1') > float('$t0') else 1)"
expect "good reload: per_cpu: false applies at once (lo without cpu label)" \
  grep -Eq '^netif_rx_packets_total\{device="lo"\}' "$work/m1.txt"
p1=$(lo_packets "$work/m1.txt")
expect "good reload: counts do not reset ($p0 -> $p1)" test "$p1" -ge "$p0"
expect "good reload: max_devices is said to need a restart" \
  grep -q 'msg="configuration reload" detail="max_devices: 4096 -> 100 needs a restart; keeping 4096"' "$work/run.log"

# A bad file: logged with file:line, the running configuration stays.
printf 'poll_interval: fast\nper_cpu: true\n' >"$config"
kill -HUP "$pid"
sleep 0.3
scrape "$work/m2.txt"
expect "bad reload: config_last_reload_successful 0" \
  test "$(metric netif_rx_exporter_config_last_reload_successful "$work/m2.txt")" = 0
expect "bad reload: the success timestamp stays" \
  test "$(metric netif_rx_exporter_config_last_reload_success_timestamp_seconds "$work/m2.txt")" = "$t1"
expect "bad reload: logged with file:line:column" \
  grep -q "msg=\"configuration reload failed, keeping the running configuration\" err=\"$config:1:16: key 'poll_interval'" "$work/run.log"
expect "bad reload: the old per_cpu: false stays" \
  grep -Eq '^netif_rx_packets_total\{device="lo"\}' "$work/m2.txt"
p2=$(lo_packets "$work/m2.txt")
expect "bad reload: counts do not reset ($p1 -> $p2)" test "$p2" -ge "$p1"
expect "bad reload: still ready" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready")" = 200

# Fixed again.
printf 'poll_interval: 500ms\nper_cpu: true\n' >"$config"
kill -HUP "$pid"
sleep 0.3
scrape "$work/m3.txt"
expect "fixed: config_last_reload_successful 1" \
  test "$(metric netif_rx_exporter_config_last_reload_successful "$work/m3.txt")" = 1
expect "fixed: per_cpu: true again" grep -Eq '^netif_rx_packets_total\{cpu="[0-9]+",device="lo"\}' "$work/m3.txt"

# Device filters apply live too.
printf 'poll_interval: 500ms\ndevices:\n  exclude: [lo]\n' >"$config"
kill -HUP "$pid"
sleep 0.3
scrape "$work/m4.txt"
expect "devices.exclude applies at once (no lo series)" \
  bash -c "! grep -q 'device=\"lo\"' '$work/m4.txt'"
printf 'poll_interval: 500ms\n' >"$config"
kill -HUP "$pid"
sleep 0.3
scrape "$work/m5.txt"
p5=$(lo_packets "$work/m5.txt")
expect "filter removed: lo back, counts not reset ($p2 -> $p5)" test "$p5" -ge "$p2"

stop_exporter
rc=$?
expect "SIGTERM after reloads: exit 0 (got $rc)" test "$rc" = 0
finish

#!/usr/bin/env bash
# The systemd notify protocol, with a real unix datagram socket as
# NOTIFY_SOCKET: STATUS per phase, READY=1 only once the exporter serves a
# ready probe, WATCHDOG=1 when WATCHDOG_USEC asks for it, RELOADING=1 +
# MONOTONIC_USEC then READY=1 on SIGHUP, STOPPING=1 on SIGTERM.
# Usage: notify_test.sh <netif_rx_exporter binary> <source dir>
binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools curl python3
require_root

printf 'poll_interval: 500ms\n' >"$work/config.yaml"

# wait_line FILE PATTERN: until a line of FILE matches (10 s).
wait_line() {
  for _ in $(seq 100); do
    grep -Eq -- "$2" "$1" && return 0
    sleep 0.1
  done
  return 1
}

# run_with_listener NAME SECONDS ENV...: starts the listener and the exporter.
run_with_listener() {
  local name=$1 seconds=$2
  shift 2
  port=$(free_port)
  socket="$work/$name.sock"
  python3 "$source_dir/tests/service/notify_listener.py" "$socket" "$port" "$seconds" >"$work/$name.notify" &
  pids+=("$!")
  wait_line "$work/$name.notify" '^listening' || { fail "$name: the notify listener did not start"; return 1; }
  env NOTIFY_SOCKET="$socket" "$@" "$binary" --config.file="$work/config.yaml" \
    --web.listen-address="127.0.0.1:$port" >"$work/$name.log" 2>&1 &
  pid=$!
  pids+=("$pid")
}

# --- With a watchdog. ---
run_with_listener main 20 WATCHDOG_USEC=2000000
if ! wait_line "$work/main.notify" ' READY=1'; then
  fail "no READY=1 within 10 s; exporter log:"
  cat "$work/main.log" >&2
  finish
fi
ready_line=$(grep -n ' READY=1' "$work/main.notify" | head -1)
ready_at=${ready_line%%:*}
read -r _ ready_status _ <<<"${ready_line#*:}"
expect "READY=1 is sent when /-/ready already answers 200 (got $ready_status)" test "$ready_status" = 200
before=$(head -n $((ready_at - 1)) "$work/main.notify" | tail -n +2)
for phase in 'STATUS=loading and attaching the probe' 'STATUS=first poll' 'STATUS=starting the HTTP listeners'; do
  expect "'$phase' before READY=1" grep -q "$phase" <<<"$before"
done
expect "READY=1 carries STATUS=serving" grep -q ' READY=1|STATUS=serving$' <<<"${ready_line#*:}"
expect "/-/healthy answers 200 after READY=1" \
  test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/healthy")" = 200

sleep 2.5
watchdogs=$(tail -n +"$ready_at" "$work/main.notify" | grep -c 'WATCHDOG=1$')
expect "WATCHDOG=1 from the poll loop: $watchdogs in 2.5 s with poll_interval 500ms and WATCHDOG_USEC=2s" \
  test "$watchdogs" -ge 3

kill -HUP "$pid"
expect "SIGHUP: RELOADING=1 with MONOTONIC_USEC" wait_line "$work/main.notify" ' RELOADING=1\|MONOTONIC_USEC=[0-9]+\|STATUS='
reload_at=$(grep -n ' RELOADING=1' "$work/main.notify" | head -1 | cut -d: -f1)
expect "SIGHUP: READY=1 after RELOADING=1" \
  bash -c "for _ in \$(seq 50); do tail -n +$((reload_at + 1)) '$work/main.notify' | grep -q ' READY=1' && exit 0; sleep 0.1; done; exit 1"

stop_exporter
rc=$?
expect "SIGTERM: exit status 0 (got $rc)" test "$rc" = 0
expect "SIGTERM: STOPPING=1" wait_line "$work/main.notify" ' STOPPING=1'

# --- No READY=1 when the listener can't be bound or the probe can't load. ---
# run_failing NAME [setpriv ARGS...]: the exporter must exit 1 without READY=1.
run_failing() {
  local name=$1
  shift
  port=$busy_port
  socket="$work/$name.sock"
  python3 "$source_dir/tests/service/notify_listener.py" "$socket" 0 6 >"$work/$name.notify" &
  local listener=$!
  pids+=("$listener")
  wait_line "$work/$name.notify" '^listening' || { fail "$name: the notify listener did not start"; return; }
  NOTIFY_SOCKET="$socket" timeout 20 "$@" "$binary" --config.file="$work/config.yaml" \
    --web.listen-address="127.0.0.1:$port" >"$work/$name.log" 2>&1
  local rc=$?
  sleep 0.2
  expect "$name: exit 1 (got $rc)" test "$rc" = 1
  expect "$name: no READY=1" bash -c "! grep -q 'READY=1' '$work/$name.notify'"
  expect "$name: STATUS says why" grep -q 'STATUS=failed to start: ' "$work/$name.notify"
  kill "$listener" 2>/dev/null
}
busy_port=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$busy_port" &
holder=$!
pids+=("$holder")
# Until the holder listens (python may start slowly on a busy machine).
for _ in $(seq 100); do ss -Hltn "sport = :$busy_port" | grep -q . && break; sleep 0.1; done
run_failing busy_port
kill "$holder" 2>/dev/null
busy_port=$(free_port)
chmod 0711 "$work"  # the unprivileged exporter reaches the socket through it
run_failing no_privileges setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all
expect "no_privileges: the probe was never attached before failing" \
  bash -c "! grep -q 'STATUS=first poll' '$work/no_privileges.notify'"

# --- Without WATCHDOG_USEC: no watchdog pings. ---
run_with_listener nowatchdog 6
if wait_line "$work/nowatchdog.notify" ' READY=1'; then
  sleep 1.5
  expect "no WATCHDOG=1 without WATCHDOG_USEC" bash -c "! grep -q 'WATCHDOG=1' '$work/nowatchdog.notify'"
  # A watchdog meant for another process is not ours either.
else
  fail "no READY=1 without a watchdog; exporter log: $(cat "$work/nowatchdog.log")"
fi
stop_exporter >/dev/null

run_with_listener otherpid 6 WATCHDOG_USEC=1000000 WATCHDOG_PID=1
if wait_line "$work/otherpid.notify" ' READY=1'; then
  sleep 1.5
  expect "no WATCHDOG=1 when WATCHDOG_PID names another process" \
    bash -c "! grep -q 'WATCHDOG=1' '$work/otherpid.notify'"
else
  fail "no READY=1 with WATCHDOG_PID=1; exporter log: $(cat "$work/otherpid.log")"
fi
stop_exporter >/dev/null

finish

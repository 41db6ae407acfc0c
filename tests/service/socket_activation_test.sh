#!/usr/bin/env bash
# Socket activation (--web.systemd-socket, the .socket unit) without a running
# systemd: systemd-socket-activate listens, as a .socket unit does, and starts
# the exporter on the first connection with the socket passed as fd 3
# ($LISTEN_FDS, $LISTEN_PID). The connection that activated it is answered.
# Usage: socket_activation_test.sh <netif_rx_exporter binary> <source dir>
binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_root
require_tools systemd-socket-activate curl

port=$(free_port)
systemd-socket-activate -l "127.0.0.1:$port" "$binary" --web.systemd-socket >"$work/activated.log" 2>&1 &
pid=$!
pids+=("$pid")
for _ in $(seq 50); do grep -q '^Listening on' "$work/activated.log" && break; sleep 0.1; done
expect "nothing runs before the first connection" bash -c "! grep -q 'starting netif_rx_exporter' '$work/activated.log'"
code=$(curl -s -m 30 -o "$work/first.txt" -w '%{http_code}' "http://127.0.0.1:$port/metrics")
# The exporter serves as soon as it has adopted the socket, before the probe is attached: the
# activating scrape is answered at once, 503 with the startup step (or 200 if startup won the race).
expect "the first scrape starts the exporter and is answered (HTTP $code: $(head -c 80 "$work/first.txt"))" \
  bash -c "[[ $code == 200 ]] || grep -q '^Not ready: starting (' '$work/first.txt'"
expect "the log names the passed socket" grep -q "msg=\"listening\" address=127.0.0.1:$port " "$work/activated.log"
expect "/-/ready on the passed socket" wait_http "http://127.0.0.1:$port/-/ready" 200
code=$(curl -s -m 10 -o "$work/ready.txt" -w '%{http_code}' "http://127.0.0.1:$port/metrics")
expect "once ready, the exporter's exposition (HTTP $code)" grep -q '^netif_rx_exporter_probe_attached 1$' "$work/ready.txt"
served=0
for _ in $(seq 20); do
  [[ $(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/healthy") == 200 ]] && served=$((served + 1))
done
expect "20 more requests on the passed socket: $served answered" test "$served" = 20
started=$(date +%s%N)
stop_exporter
rc=$?
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
expect "SIGTERM: exit 0 (got $rc)" test "$rc" = 0
echo "stop took ${elapsed_ms} ms"
expect "stop within 5 s" test "$elapsed_ms" -lt 5000

# Without systemd's sockets the flag fails at once, saying what to do.
start_exporter "$work/none.log" --web.systemd-socket
wait "$pid"
rc=$?
expect "--web.systemd-socket without sockets: exit 1 (got $rc)" test "$rc" = 1
expect "... with the fix in one line" grep -q 'systemd passed no socket; start the service through its .socket unit' "$work/none.log"
finish

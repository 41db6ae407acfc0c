# Shared by the shell tests (end to end, service): checks, the exporter's lifecycle, free ports.
# Every test sources it after setting `binary`.
set -uo pipefail

work=$(mktemp -d)
pids=()
failures=0
checks=0
failed_checks=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

pass() { checks=$((checks + 1)); echo "ok: $1"; }
fail() {
  checks=$((checks + 1))
  failures=$((failures + 1))
  failed_checks+=("$1")
  echo "FAIL: $1" >&2
}
expect() { # expect NAME COMMAND...: passes when the command succeeds
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
finish() { # the failed checks again last, where a log's tail shows them
  local name
  for name in "${failed_checks[@]}"; do echo "failed: $name"; done
  echo "$checks checks, $failures failed"
  [[ $failures -eq 0 ]]
  exit $?
}

require_tools() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
  done
}
require_root() {
  [[ $(id -u) -eq 0 ]] || { echo "FAIL: this test loads BPF: run it as root" >&2; exit 1; }
}

# Tests never use the host's CA bundle: only the certificates they make.
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_exporter LOG ARGS...: starts the binary in the background; sets $pid.
start_exporter() {
  local log=$1
  shift
  "$binary" "$@" >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
}

# wait_http URL CODE [CURL ARGS...]: until URL answers CODE (10 s).
wait_http() {
  local url=$1 code=$2
  shift 2
  for _ in $(seq 100); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$@" "$url") == "$code" ]] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# stop_exporter: SIGTERM, wait; echoes the exit status.
stop_exporter() {
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
}

# metric NAME FILE: the value of an unlabelled series.
metric() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }

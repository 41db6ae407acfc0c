#!/usr/bin/env bash
# `netif_rx_exporter check`: ✓ for every requirement on this machine (as
# root), ✗ with a fix and a non-zero exit for a busy listen address, a bad
# configuration file and missing privileges; plain text when not a terminal.
# Usage: check_test.sh <netif_rx_exporter binary> <source dir>
binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools python3 setpriv
require_root

port=$(free_port)
out=$("$binary" check --web.listen-address="127.0.0.1:$port" 2>&1)
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: check exits $rc on this machine, which runs the exporter; output:" >&2
  echo "$out" >&2
  exit 1
fi
pass "check as root: exit 0"
for line in '✓ kernel ' '✓ kernel BTF readable at /sys/kernel/btf/vmlinux' \
            '✓ privileges to load and attach' '✓ the probe loads and attaches (tp_btf)' \
            '✓ the maps can be read as the exporter reads them after startup' \
            '✓ BPF run-time statistics can be enabled' "✓ listen address 127.0.0.1:$port is free"; do
  expect "check as root: '$line'" grep -qF "$line" <<<"$out"
done
expect "check as root: no ✗" bash -c '! grep -q "✗" <<<"$0"' "$out"
expect "check: no terminal colours when not a tty" bash -c '! grep -q $'"'"'\033'"'"' <<<"$0"' "$out"
expect "check: leaves no probe behind (nothing else on stdout)" \
  test "$(grep -vc '^[✓✗]\|^    fix: \|^netif_rx_exporter can' <<<"$out")" = 0

# A busy port.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$port" &
pids+=("$!")
# Until the holder listens (python may start slowly on a busy machine).
for _ in $(seq 100); do ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
out=$("$binary" check --web.listen-address="127.0.0.1:$port" 2>&1)
rc=$?
expect "busy port: exit 1 (got $rc)" test "$rc" = 1
expect "busy port: ✗ with the reason and fix" \
  bash -c 'grep -qF "✗ listen address 127.0.0.1:$1 is free" <<<"$0" && grep -q "fix: .*Address already in use" <<<"$0"' "$out" "$port"

# A bad configuration file.
printf 'per_cpu: maybe\n' >"$work/bad.yaml"
out=$("$binary" check --config.file="$work/bad.yaml" --web.listen-address="127.0.0.1:$(free_port)" 2>&1)
rc=$?
expect "bad config: exit 1 (got $rc)" test "$rc" = 1
expect "bad config: ✗ with file:line:column" \
  grep -qF "fix: $work/bad.yaml:1:10: key 'per_cpu': 'maybe' is not a boolean" <<<"$out"

# A web configuration naming a certificate that isn't there.
printf 'tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n' >"$work/web.yml"
out=$("$binary" check --web.config.file="$work/web.yml" --web.listen-address="127.0.0.1:$(free_port)" 2>&1)
rc=$?
expect "missing certificate: exit 1 (got $rc)" test "$rc" = 1
expect "missing certificate: ✗ naming the file" \
  grep -q "fix: cannot load the TLS certificate $work/missing.crt" <<<"$out"

# Without privileges.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
  "$binary" check --web.listen-address="127.0.0.1:$(free_port)" 2>&1)
rc=$?
expect "unprivileged: exit 1 (got $rc)" test "$rc" = 1
expect "unprivileged: ✗ privileges with the fix" \
  bash -c "grep -qF '✗ privileges to load and attach' <<<\"\$0\" && grep -q 'fix: run as root, or grant them' <<<\"\$0\"" "$out"
finish

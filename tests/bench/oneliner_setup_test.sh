#!/usr/bin/env bash
# make bench's set-up of the bpftrace one-liner on the hosts it meets: tracefs
# already mounted at /sys/kernel/tracing (every systemd host) and not mounted.
# Each case runs in a private mount namespace made here; the host's own mounts
# must be the same after as before.
#   oneliner_setup_test.sh ONELINER_SETUP_BINARY
set -euo pipefail
setup=$1
[[ $(id -u) -eq 0 ]] || { echo "oneliner_setup_test: needs root (BPF and mounts)" >&2; exit 1; }

mounts_before=$(awk '{print $5, $9}' /proc/self/mountinfo | sort)

echo "== tracefs mounted at /sys/kernel/tracing"
unshare -m --propagation private sh -c '
  mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
  exec "$0"' "$setup"

echo "== no tracefs at /sys/kernel/tracing"
unshare -m --propagation private sh -c '
  while mountpoint -q /sys/kernel/tracing; do umount /sys/kernel/tracing; done
  exec "$0"' "$setup"

mounts_after=$(awk '{print $5, $9}' /proc/self/mountinfo | sort)
if [[ "$mounts_before" != "$mounts_after" ]]; then
  echo "oneliner_setup_test: the host's mounts changed:" >&2
  diff <(echo "$mounts_before") <(echo "$mounts_after") >&2 || true
  exit 1
fi
echo "oneliner_setup_test: both cases loaded the one-liner; the host's mounts are unchanged"

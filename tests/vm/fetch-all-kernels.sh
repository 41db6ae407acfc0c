#!/usr/bin/env bash
# Fetches every kernel the guests boot (kernels.list, then kernels-arm64.list) into
# fetch-kernel.sh's cache, one after the other, and prints a line for each. make test runs it
# beside the builds (scripts/test-suite.sh): on a machine with no cache the downloads then overlap
# the compiles instead of holding the guests' lane. Exit status 1 when a kernel could not be
# fetched; the guests that boot it fail then, with the reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
failed=0
for list in "$here/kernels.list" "$here/kernels-arm64.list"; do
  for name in $(awk '$1 !~ /^#/ && NF >= 4 {print $1}' "$list"); do
    started=$(date +%s)
    if error=$(NETIF_RX_KERNEL_LIST=$list "$here/fetch-kernel.sh" "$name" 2>&1 >/dev/null); then
      echo "kernel $name ($(basename "$list")): ready in $(($(date +%s) - started)) s"
    else
      echo "kernel $name ($(basename "$list")): ${error:-fetch-kernel.sh failed}"
      failed=1
    fi
  done
done
exit $failed

#!/usr/bin/env bash
# Builds the daemon with ThreadSanitizer in build/tsan (only the targets the
# storm needs) and runs the reload storm (tests/tsan/reload_storm.sh) on it.
# As root: the exporter loads its probe.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TSAN_BUILD_DIR:-build/tsan}
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETIF_RX_TSAN=ON \
  -DNETIF_RX_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target netif_rx_exporter netif_rx_civetweb_tls >/dev/null
echo "tsan: build took $(($(date +%s) - start)) s"
bash tests/tsan/reload_storm.sh "$build/netif_rx_exporter" "$PWD"

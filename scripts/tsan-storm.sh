#!/usr/bin/env bash
# Builds the daemon with ThreadSanitizer in build/tsan (only the targets the
# storm needs) and runs the reload storm (tests/tsan/reload_storm.sh) on it.
# As root: the exporter loads its probe.
#   tsan-storm.sh                 build, then the storm
#   tsan-storm.sh --build-only    the build alone (make test's ctest tsan_build, which holds no
#                                 lock, so that the host's kernel tests go on meanwhile)
#   tsan-storm.sh --storm-only    the storm alone, on the build already made (ctest
#                                 tsan_reload_storm)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TSAN_BUILD_DIR:-build/tsan}
mode=${1:-all}
case $mode in
  all | --build-only | --storm-only) ;;
  *) echo "tsan-storm: unknown argument '$mode' (--build-only or --storm-only)" >&2; exit 2 ;;
esac
if [[ $mode != --storm-only ]]; then
  start=$(date +%s)
  # -O1 with line tables only (-g1), as ThreadSanitizer's own documentation builds: reports keep
  # their files and lines, and the build takes about a quarter less than -O2 -g.
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS="-O1 -g1 -DNDEBUG" -DNETIF_RX_TSAN=ON -DNETIF_RX_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target netif_rx_exporter netif_rx_civetweb_tls >/dev/null
  echo "tsan: build took $(($(date +%s) - start)) s"
fi
if [[ $mode != --build-only ]]; then
  [[ -x "$build/netif_rx_exporter" ]] ||
    { echo "tsan-storm: no ThreadSanitizer build in $build (run it without --storm-only)" >&2; exit 1; }
  bash tests/tsan/reload_storm.sh "$build/netif_rx_exporter" "$PWD"
fi

#!/usr/bin/env bash
# make build ARCH=arm64: the exporter for arm64, cross-built on this machine with clang and lld
# against Debian's arm64 packages in a sysroot (scripts/arm64-sysroot.sh), release build
# (RelWithDebInfo, as make build). The BPF object is the same as a native build's.
#   cross-build.sh ARCH BUILD_DIR [TARGET...]    (ARCH: arm64, the only one so far)
# Prints the time it took; the binary is BUILD_DIR/netif_rx_exporter.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: cross-build.sh ARCH BUILD_DIR [TARGET...]}
build_dir=${2:?usage: cross-build.sh ARCH BUILD_DIR [TARGET...]}
shift 2
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(netif_rx_exporter netif_rx_civetweb_tls)
[[ "$arch" == arm64 ]] || { echo "cross-build: ARCH=$arch is not supported (arm64 is)" >&2; exit 1; }
for tool in clang ld.lld bpftool; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
    { echo "cross-build: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
started=$(date +%s)
sysroot=$(bash "$source_dir/scripts/arm64-sysroot.sh")
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE="${CROSS_BUILD_TYPE:-RelWithDebInfo}" \
  -DNETIF_RX_BUILD_TESTS=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$source_dir/cmake/toolchain-arm64.cmake" -DNETIF_RX_SYSROOT="$sysroot" \
  >"$build_dir.configure.log" 2>&1 ||
  { tail -n 20 "$build_dir.configure.log" >&2; echo "cross-build: cmake failed (log: $build_dir.configure.log)" >&2; exit 1; }
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
echo "cross-build: $arch in $build_dir in $(($(date +%s) - started)) s"

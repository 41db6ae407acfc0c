#!/usr/bin/env bash
# The kernel matrix on arm64: boots the kernels of kernels-arm64.list on an
# emulated arm64 machine and runs the matrix's own guest checks in each
# (run-matrix.sh with NETIF_RX_VM_ARCH=arm64), with EXPORTER built for arm64
# (scripts/cross-build.sh; ctest vm_arm64_build builds it first).
#   run-arm64.sh EXPORTER OUT_DIR
# A release build, like the amd64 guests' (the package's binary): clang's
# sanitizer runtimes for arm64 are not in the sysroot, and under emulation a
# sanitizer build would multiply the guest's time; the same code's sanitizer
# build runs in every amd64 test on the host and in the kernel matrix's
# integration boot.
# Fails (never skips) when the exporter is not an arm64 executable, or a
# kernel's fetch, its boot or a check fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: run-arm64.sh EXPORTER OUT_DIR}
out=${2:?usage: run-arm64.sh EXPORTER OUT_DIR}
[[ -x "$exporter" ]] || { echo "arm64: no $exporter (scripts/cross-build.sh arm64 builds it)"; exit 1; }
readelf -h "$exporter" | grep -q 'Machine:.*AArch64' ||
  { echo "arm64: $exporter is not an arm64 executable"; exit 1; }
NETIF_RX_VM_ARCH=arm64 exec bash "$here/run-matrix.sh" "$exporter" "$out"

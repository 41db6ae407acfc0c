#!/usr/bin/env bash
# One kernel of the matrix: fetch it, build its initramfs with the exporter,
# boot it, run guest-test.sh inside, and judge the console.
#   run-kernel.sh NAME EXPORTER OUT_DIR [large-map|integration]
# With large-map, the guest has 64 possible CPUs and 3 GiB, and checks only
# that the largest max_devices loads from a low RLIMIT_MEMLOCK (results under
# NAME-large-map). With integration (amd64's 6.1 in the matrix), the guest
# runs only the integration tests' identity churn and traffic shapes (results
# under NAME-integration): the tests/integration_tests beside EXPORTER, which
# must be the test build's exporter. Without a variant, only the checks of
# every kernel.
# Writes OUT_DIR/NAME.console (the whole console) and OUT_DIR/NAME.facts
# (the guest's "MATRIX key=value" lines plus status=pass|fail and reason=).
# Exit status 0 only when the guest ran to its end and every check passed.
# NETIF_RX_VM_ARCH=arm64: NAME is a kernel of kernels-arm64.list and EXPORTER
# an arm64 build; busybox, ip and the libraries come from the arm64 sysroot
# (scripts/arm64-sysroot.sh), and qemu emulates an arm64 machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run-kernel.sh NAME EXPORTER OUT_DIR}
exporter=${2:?}
out=${3:?}
variant=${4:-}
mkdir -p "$out"
label=$name${variant:+-$variant}
facts="$out/$label.facts"
console="$out/$label.console"
memory=768
seconds=420
case "$variant" in
  "") ;;
  large-map)
    # 1048576 devices x 24-byte per-CPU values x 64 CPUs: 1.5 GiB of maps.
    memory=3072
    seconds=600
    export NETIF_RX_VM_APPEND="possible_cpus=64 netif_rx_large_map=1"
    ;;
  integration)
    memory=1024
    seconds=600
    export NETIF_RX_VM_APPEND="netif_rx_integration=1"
    ;;
  *) echo "run-kernel: unknown variant $variant" >&2; exit 2 ;;
esac
: >"$facts"
started=$(date +%s)

verdict() {
  echo "status=$1" >>"$facts"
  echo "reason=$2" >>"$facts"
  echo "seconds=$(($(date +%s) - started))" >>"$facts"
  echo "kernel $label: $1: $2 ($(($(date +%s) - started)) s)"
  [[ "$1" == pass ]]
  exit $?
}

arch=${NETIF_RX_VM_ARCH:-amd64}
ip_binary=$(command -v ip)
if [[ $arch != amd64 ]]; then
  export NETIF_RX_KERNEL_LIST=${NETIF_RX_KERNEL_LIST:-$here/kernels-$arch.list}
  sysroot=$(bash "$here/../../scripts/$arch-sysroot.sh" 2>"$out/$label.sysroot.log") ||
    verdict fail "no $arch sysroot: $(tail -n 1 "$out/$label.sysroot.log")"
  export NETIF_RX_VM_SYSROOT=$sysroot
  ip_binary=$sysroot/bin/ip
fi
kernel_dir=$("$here/fetch-kernel.sh" "$name" 2>"$out/$label.fetch.log") ||
  verdict fail "cannot fetch: $(tail -n 1 "$out/$label.fetch.log")"
# The integration variant runs the integration tests' identity churn (and the
# bond events) with a bonding driver, and their traffic shapes with the
# drivers this host may lack: the test binary next to the exporter, the
# exporter at the path compiled into it, ethtool, bridge.ko and the shapes'
# modules.
extra=()
if [[ $variant == integration ]]; then
  integration="$(dirname "$exporter")/tests/integration_tests"
  [[ -x "$integration" ]] || verdict fail "no $integration (make test-build builds it): the integration tests run on $name"
  compiled=$(strings "$integration" | grep -m 1 '^/.*/netif_rx_exporter$')
  [[ -n "$compiled" ]] || verdict fail "no exporter path compiled into $integration"
  ethtool_binary=$(command -v ethtool) || verdict fail "no ethtool (Debian package ethtool): the traffic shapes need it"
  extra=("$integration" "$ethtool_binary")
  # The traffic shapes' drivers (tests/integration/traffic_shapes_test.cpp).
  shapes="vxlan geneve ip_gre 8021q macvlan xfrm_user esp4 authenc"
  export NETIF_RX_VM_MODULES="bridge $shapes" NETIF_RX_VM_LINKS="$compiled=/usr/local/bin/netif_rx_exporter"
fi
initrd="$out/$label.initrd.gz"
"$here/make-initramfs.sh" "$initrd" "$kernel_dir" "$here/guest-test.sh" "$exporter" \
  "$ip_binary" "${extra[@]}" 2>"$out/$label.initramfs.log" ||
  verdict fail "cannot build the initramfs: $(tail -n 1 "$out/$label.initramfs.log")"
"$here/boot-guest.sh" "$kernel_dir" "$initrd" "$console" "$seconds" "$memory"
qemu_status=$?
tr -d '\r' <"$console" >"$console.tmp" && mv "$console.tmp" "$console"
grep '^MATRIX ' "$console" | sed 's/^MATRIX //' >>"$facts"
rm -f "$initrd"
exit_line=$(grep -a -m 1 '^NETIF_RX_VM_EXIT=' "$console")
if [[ -z "$exit_line" ]]; then
  [[ $qemu_status == 124 ]] && verdict fail "the guest did not finish in $seconds s (console: $console)"
  verdict fail "the guest did not reach its end, qemu exit $qemu_status; last console line: $(grep -av '^\s*$' "$console" | tail -n 1)"
fi
[[ "$exit_line" == NETIF_RX_VM_EXIT=0 ]] ||
  verdict fail "$(grep -ac '^FAIL: ' "$console") checks failed: $(grep -a -m 1 '^FAIL: ' "$console")"
verdict pass "every check passed"

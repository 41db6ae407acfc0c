#!/usr/bin/env bash
# The exporter a guest runs, from what a runner was given: an executable, as
# it is (a build's netif_rx_exporter), or a directory holding the Debian
# package (ctest package_deb builds it in build/test/deb), whose release
# binary is unpacked (dpkg-deb -x, the newest netif-rx-exporter_*_ARCH.deb)
# into UNPACK_DIR/package.
#   guest-exporter.sh EXPORTER|DEB_DIR UNPACK_DIR
# Prints the executable's path. Exit status 1, the reason on stderr, when
# there is none. ARCH is NETIF_RX_VM_ARCH (default amd64).
set -uo pipefail
given=${1:?usage: guest-exporter.sh EXPORTER|DEB_DIR UNPACK_DIR}
unpack=${2:?usage: guest-exporter.sh EXPORTER|DEB_DIR UNPACK_DIR}
arch=${NETIF_RX_VM_ARCH:-amd64}
if [[ -d "$given" ]]; then
  deb=$(ls -t "$given"/netif-rx-exporter_*_"$arch".deb 2>/dev/null | head -n 1)
  [[ -n "$deb" ]] || { echo "no netif-rx-exporter_*_$arch.deb in $given (make deb builds it)" >&2; exit 1; }
  rm -rf "$unpack/package"
  mkdir -p "$unpack"
  dpkg-deb -x "$deb" "$unpack/package" || { echo "cannot unpack $deb" >&2; exit 1; }
  given="$unpack/package/usr/bin/netif_rx_exporter"
fi
[[ -f "$given" && -x "$given" ]] || { echo "$given is not an executable" >&2; exit 1; }
echo "$given"

#!/usr/bin/env bash
# The systemd unit and the install tree: `systemd-analyze verify` is clean,
# `systemd-analyze security --offline=true` scores at most 2.0, and
# `cmake --install` under a DESTDIR puts every file where it belongs, with
# the unit naming the installed paths (and /usr/bin, /etc for prefix /usr).
# Usage: packaging_test.sh <build dir> <source dir>
build_dir=$1
source_dir=$2
binary="$build_dir/netif_rx_exporter"
source "$source_dir/tests/lib/checks.sh"
require_tools systemd-analyze cmake

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build_dir/CMakeCache.txt")
root="$work/root"
if ! out=$(DESTDIR="$root" cmake --install "$build_dir" 2>&1); then
  echo "FAIL: cmake --install under DESTDIR failed: $out" >&2
  exit 1
fi
pass "cmake --install with DESTDIR=$root (prefix $prefix)"
case $prefix in
  /usr) etc=/etc ;;
  *) etc=$prefix/etc ;;
esac
unit="$root$prefix/lib/systemd/system/netif_rx_exporter.service"
for file in "$prefix/bin/netif_rx_exporter" "$prefix/lib/systemd/system/netif_rx_exporter.service" \
            "$etc/default/netif_rx_exporter" "$etc/netif_rx_exporter/netif_rx_exporter.yaml" \
            "$prefix/lib/netif_rx_exporter/libnetif_rx_civetweb_tls.so" \
            "$prefix/lib/netif_rx_exporter/libnetif_rx_civetweb_crypto.so" \
            "$prefix/lib/systemd/system/netif_rx_exporter.socket"; do
  expect "installed: $file" test -f "$root$file"
done
expect "nothing installed outside DESTDIR" test -z "$(grep -v "^-- \(Install configuration\|Installing\|Up-to-date\): $root" <<<"$out" | grep -v '^-- Install configuration')"
expect "the installed binary runs" "$root$prefix/bin/netif_rx_exporter" --version
expect "the unit starts the installed binary" grep -q "^ExecStart=$prefix/bin/netif_rx_exporter --bpf.fd-store \$ARGS$" "$unit"
expect "the unit reads the installed environment file" grep -q "^EnvironmentFile=-$etc/default/netif_rx_exporter$" "$unit"
expect "the environment file names the installed configuration" \
  grep -q "^ARGS=\"--config.file=$etc/netif_rx_exporter/netif_rx_exporter.yaml\"$" "$root$etc/default/netif_rx_exporter"

# systemd-analyze verify checks that ExecStart exists: point it into DESTDIR.
mkdir -p "$work/verify"
sed "s|^ExecStart=$prefix/bin/|ExecStart=$root$prefix/bin/|" "$unit" >"$work/verify/netif_rx_exporter.service"
cp "$root$prefix/lib/systemd/system/netif_rx_exporter.socket" "$work/verify/"
verify=$(cd "$work/verify" && systemd-analyze verify netif_rx_exporter.service netif_rx_exporter.socket 2>&1)
rc=$?
expect "systemd-analyze verify: clean (exit $rc${verify:+, output: $verify})" test "$rc" = 0 -a -z "$verify"
security=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
score=$(sed -n 's/.*Overall exposure level for netif_rx_exporter.service: \([0-9.]*\).*/\1/p' <<<"$security")
expect "systemd-analyze security --offline=true: exposure ${score:-?} <= 2.0" \
  awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
for setting in Type=notify 'ExecReload=/bin/kill -HUP $MAINPID' Restart=on-failure DynamicUser=yes \
               'AmbientCapabilities=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN' \
               'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN' NoNewPrivileges=yes \
               ProtectSystem=strict MemoryDenyWriteExecute=yes; do
  expect "unit: $setting" grep -qxF "$setting" "$unit"
done
expect "unit: WatchdogSec set" grep -q '^WatchdogSec=[0-9]' "$unit"
expect "unit: the probe kept in the file-descriptor store" grep -q '^FileDescriptorStoreMax=16$' "$unit"
expect "unit: bpf allowed by the system call filter" grep -q '^SystemCallFilter=@system-service bpf' "$unit"

# Prefix /usr: GNUInstallDirs maps the configuration directory to /etc.
if cmake -S "$source_dir" -B "$work/usr" -DCMAKE_INSTALL_PREFIX=/usr -DNETIF_RX_BUILD_TESTS=OFF >/dev/null 2>&1; then
  expect "prefix /usr: unit runs /usr/bin/netif_rx_exporter" \
    grep -q '^ExecStart=/usr/bin/netif_rx_exporter --bpf.fd-store \$ARGS$' "$work/usr/packaging/netif_rx_exporter.service"
  expect "prefix /usr: environment file in /etc/default" grep -q '"/etc/default"' "$work/usr/cmake_install.cmake"
  expect "prefix /usr: configuration in /etc/netif_rx_exporter" grep -q '"/etc/netif_rx_exporter"' "$work/usr/cmake_install.cmake"
  expect "prefix /usr: unit in /usr/lib/systemd/system" grep -q '"/usr/lib/systemd/system"' "$work/usr/cmake_install.cmake"
else
  fail "configuring with prefix /usr failed"
fi
finish

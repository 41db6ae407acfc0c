#!/usr/bin/env bash
# systemd as PID 1: boots Debian bookworm (a root built by mmdebstrap from
# Debian's archive, packed as an initramfs) with bookworm's 6.1 kernel under
# qemu (software emulation), installs the package with dpkg under the running
# systemd and runs tests/systemd/guest-test.sh there (see its checks).
#   run-guest.sh DEB_DIR      (DEB_DIR: where `make deb` puts the package)
# Downloads are cached outside the source tree:
#   $NETIF_RX_CACHE (default ~/.cache/netif_rx_exporter)/systemd-guest
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
deb_dir=${1:?usage: run-guest.sh DEB_DIR}
cache=${NETIF_RX_CACHE:-${HOME:-/root}/.cache/netif_rx_exporter}
guest_cache="$cache/systemd-guest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$guest_cache"

die() { echo "FAIL: $*" >&2; exit 1; }
for tool in mmdebstrap qemu-system-x86_64 cpio dpkg-deb; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done
[[ $(id -u) -eq 0 ]] || die "building the guest's root needs root"

# 1. The package, built by Debian's tooling (ccache keeps rebuilds cheap).
started=$(date +%s)
deb=$(bash "$source_dir/scripts/build-deb.sh" "$deb_dir" | tail -n 1) || die "make deb failed"
[[ -f "$deb" ]] || die "no package at '$deb'"
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB), built in $(($(date +%s) - started)) s"
# The same package as a newer version, for the upgrade.
dpkg-deb -R "$deb" "$work/upgrade" || die "dpkg-deb -R failed"
sed -i 's/^Version: .*/&+upgrade1/' "$work/upgrade/DEBIAN/control"
dpkg-deb -b "$work/upgrade" "$work/upgrade.deb" >/dev/null || die "dpkg-deb -b failed"

# 2. Bookworm's kernel: the kernel matrix's fetcher when present, or the same
#    private apt download into the same cache.
if [[ -x "$source_dir/tests/vm/fetch-kernel.sh" ]]; then
  kernel_dir=$(bash "$source_dir/tests/vm/fetch-kernel.sh" 6.1) || die "fetching the 6.1 kernel failed"
else
  kernel_dir=$(bash "$here/fetch-bookworm-kernel.sh" "$cache/kernels") || die "fetching the 6.1 kernel failed"
fi
veth=$(find "$kernel_dir/modules" -name 'veth.ko*' | head -n 1)
[[ -f "$kernel_dir/vmlinuz" && -n "$veth" ]] || die "no vmlinuz or veth module in $kernel_dir"

# 3. The root: systemd, the test's tools, and the package's dependencies as
#    the package declares them (so dpkg -i works offline in the guest and
#    shows the declared dependencies suffice).
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' | grep -v '^$' | sort -u | paste -sd,)
include="systemd,systemd-sysv,dbus,iproute2,kmod,curl,iputils-ping,$depends"
key=$(printf '%s' "bookworm $include" | sha256sum | cut -c1-16)
base="$guest_cache/root-$key.cpio"
if [[ ! -s "$base" ]]; then
  started=$(date +%s)
  mmdebstrap --quiet --variant=minbase --include="$include" \
    --customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer' \
    --customize-hook='echo guest >"$1/etc/hostname"' \
    bookworm "$work/root.tar" >"$work/mmdebstrap.log" 2>&1 || { tail -n 20 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
  mkdir "$work/root"
  tar -C "$work/root" -xf "$work/root.tar"
  (cd "$work/root" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$base.partial" || die "packing the root failed"
  mv "$base.partial" "$base"
  rm -rf "$work/root" "$work/root.tar"
  echo "root: built in $(($(date +%s) - started)) s ($(du -m "$base" | cut -f1) MiB, cached as $base)"
fi

# 4. What the test adds to the root, as a second archive after the cached one.
overlay="$work/overlay"
mkdir -p "$overlay/root" "$overlay/usr/local/sbin" "$overlay/etc/systemd/system/multi-user.target.wants"
cp "$deb" "$overlay/root/netif-rx-exporter.deb"
cp "$work/upgrade.deb" "$overlay/root/netif-rx-exporter-upgrade.deb"
case $veth in
  *.xz) xz -dc "$veth" >"$overlay/root/veth.ko" ;;
  *) cp "$veth" "$overlay/root/veth.ko" ;;
esac
install -m 0755 "$here/guest-test.sh" "$overlay/usr/local/sbin/guest-test"
cat >"$overlay/etc/systemd/system/guest-test.service" <<'UNIT'
[Unit]
Description=netif_rx_exporter checks under systemd
After=basic.target dbus.service systemd-journald.service

[Service]
Type=simple
ExecStart=/usr/local/sbin/guest-test
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0

[Install]
WantedBy=multi-user.target
UNIT
ln -s ../guest-test.service "$overlay/etc/systemd/system/multi-user.target.wants/guest-test.service"
(cd "$overlay" && find . -mindepth 1 | cpio --quiet -o -H newc -R 0:0) >"$work/overlay.cpio"
cat "$base" "$work/overlay.cpio" >"$work/initrd.cpio"

# 5. Boot. systemd powers the guest off when the checks are done.
echo "booting bookworm's $(basename "$kernel_dir") with systemd as PID 1 under qemu (tcg)"
started=$(date +%s)
timeout 900 qemu-system-x86_64 -machine pc -accel tcg,thread=multi -cpu max -m 2048 -smp 2 \
  -nographic -no-reboot -kernel "$kernel_dir/vmlinuz" -initrd "$work/initrd.cpio" \
  -append 'console=ttyS0 panic=-1 rdinit=/lib/systemd/systemd systemd.unit=multi-user.target systemd.show_status=0 quiet' \
  </dev/null >"$work/console.log" 2>&1
rc=$?
elapsed=$(($(date +%s) - started))
grep -E '^(ok|FAIL|figure): |^netif_rx_packets_total|^guest-test: |^---|level=' "$work/console.log" | tr -d '\r'
echo "qemu: exit $rc after ${elapsed} s (boot, checks, power-off)"
summary=$(grep -a '^guest-test: ' "$work/console.log" | tr -d '\r' | tail -n 1)
if [[ -z "$summary" ]]; then
  tail -n 60 "$work/console.log" >&2
  die "the guest did not finish its checks (qemu exit $rc)"
fi
[[ "$summary" == *", 0 failed" ]] || die "$summary"
echo "PASS: $summary"

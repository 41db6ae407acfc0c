#!/usr/bin/env bash
# systemd as PID 1: boots Debian bookworm (a root built by mmdebstrap from
# Debian's archive, packed as an initramfs) under qemu (software emulation),
# once with bookworm's 6.1 kernel and once with bullseye's 5.10 (both from
# tests/vm/kernels.list), installs the package with dpkg under the running
# systemd and runs tests/systemd/guest-test.sh there (see its checks). The
# package, the root and the initramfs are built once; both guests boot at once.
#   run-guest.sh [--built] DEB_DIR   (DEB_DIR: where `make deb` puts the package; --built: it is
#                                     there already, built by the ctest package_deb)
# Downloads are cached outside the source tree: the root in
#   $NETIF_RX_CACHE (default ~/.cache/netif_rx_exporter)/systemd-guest, the
#   kernels where tests/vm/fetch-kernel.sh keeps them.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
built=false
[[ ${1:-} == --built ]] && { built=true; shift; }
deb_dir=${1:?usage: run-guest.sh [--built] DEB_DIR}
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

# 1. The package, built by Debian's tooling (ccache keeps rebuilds cheap), or the one built already.
started=$(date +%s)
if $built; then
  deb=$(bash "$source_dir/scripts/built-deb.sh" "$deb_dir") || die "no package in $deb_dir"
else
  deb=$(bash "$source_dir/scripts/build-deb.sh" "$deb_dir" | tail -n 1) || die "make deb failed"
fi
[[ -f "$deb" ]] || die "no package at '$deb'"
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB), ready in $(($(date +%s) - started)) s"
# The same package as a newer version, for the upgrade.
dpkg-deb -R "$deb" "$work/upgrade" || die "dpkg-deb -R failed"
sed -i 's/^Version: .*/&+upgrade1/' "$work/upgrade/DEBIAN/control"
dpkg-deb -b "$work/upgrade" "$work/upgrade.deb" >/dev/null || die "dpkg-deb -b failed"
# And a second one, for the upgrade during a packet stream (counting never stops).
sed -i 's/+upgrade1$/+upgrade2/' "$work/upgrade/DEBIAN/control"
dpkg-deb -b "$work/upgrade" "$work/upgrade2.deb" >/dev/null || die "dpkg-deb -b failed"

# 2. The kernels, pinned in tests/vm/kernels.list: bookworm's 6.1 and
#    bullseye's 5.10 (before 5.19: the polling thread keeps CAP_BPF there).
kernels=(6.1 5.10)
declare -A kernel_dirs
for name in "${kernels[@]}"; do
  kernel_dir=$(bash "$source_dir/tests/vm/fetch-kernel.sh" "$name") || die "fetching the $name kernel failed"
  [[ -f "$kernel_dir/vmlinuz" ]] || die "no vmlinuz in $kernel_dir"
  kernel_dirs[$name]=$kernel_dir
done

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
cp "$work/upgrade2.deb" "$overlay/root/netif-rx-exporter-upgrade2.deb"
# Each kernel's veth module, named after its release (the package name
# without linux-image-), for the guest's insmod /root/veth-$(uname -r).ko.
for name in "${kernels[@]}"; do
  kernel_dir=${kernel_dirs[$name]}
  release=$(basename "$kernel_dir")
  release=${release#linux-image-}
  release=${release%%_*}
  veth=$(find "$kernel_dir/modules" -name 'veth.ko*' | head -n 1)
  [[ -n "$veth" ]] || die "no veth module in $kernel_dir"
  case $veth in
    *.xz) xz -dc "$veth" >"$overlay/root/veth-$release.ko" ;;
    *) cp "$veth" "$overlay/root/veth-$release.ko" ;;
  esac
done
install -m 0755 "$here/guest-test.sh" "$overlay/usr/local/sbin/guest-test"
# A self-signed certificate for the TLS check (the guest has no openssl command).
mkdir -p "$overlay/root/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=guest \
  -keyout "$overlay/root/tls/key.pem" -out "$overlay/root/tls/cert.pem" 2>/dev/null || die "openssl req failed"
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

# 5. Boot every kernel at once with the same initrd (most of a guest's time
#    is waiting: systemd's start-up, the test's sleeps, the watchdog).
#    systemd powers each guest off when its checks are done.
boot() {
  local name=$1 kernel_dir=${kernel_dirs[$1]} started rc
  started=$(date +%s)
  # One host thread runs both virtual CPUs (thread=single): with a thread per CPU, qemu 7.2 left
  # 6.1 stuck (soft lockups, then RCU stalls) while the statistics helper patched the kernel's
  # code every few seconds (cross-modifying code under multi-threaded emulation); the two guests
  # run at once, a host core each. -cx16 and no_timer_check as in tests/vm/boot-guest.sh. A
  # kernel stuck for two minutes (watchdog_thresh=60: soft lockups are reported after 120 s)
  # panics and the guest ends at once, its console saying why, rather than at the timeout.
  timeout 900 qemu-system-x86_64 -machine pc -accel tcg,thread=single -cpu max,-cx16 -m 2048 -smp 2 \
    -nographic -no-reboot -kernel "$kernel_dir/vmlinuz" -initrd "$work/initrd.cpio" \
    -append 'console=ttyS0 panic=-1 no_timer_check watchdog_thresh=60 softlockup_panic=1 rdinit=/lib/systemd/systemd systemd.unit=multi-user.target systemd.show_status=0 quiet' \
    </dev/null >"$work/console-$name.log" 2>&1
  rc=$?
  echo "$rc $(($(date +%s) - started))" >"$work/boot-$name.result"
}
echo "booting $(for name in "${kernels[@]}"; do printf '%s ' "$(basename "${kernel_dirs[$name]}")"; done)at once, systemd as PID 1, qemu (tcg); load: $(cut -d' ' -f1-3 /proc/loadavg)"
started=$(date +%s)
pids=()
for name in "${kernels[@]}"; do
  boot "$name" &
  pids+=($!)
done
wait "${pids[@]}"
echo "both guests done after $(($(date +%s) - started)) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"

failed=()
for name in "${kernels[@]}"; do
  log="$work/console-$name.log"
  read -r rc elapsed <"$work/boot-$name.result"
  echo "=== kernel $name ($(basename "${kernel_dirs[$name]}"))"
  grep -aE '^(ok|FAIL|figure): |^netif_rx_packets_total|^guest-test: |^---|level=' "$log" | tr -d '\r' | sed "s/^/[$name] /"
  echo "[$name] qemu: exit $rc after ${elapsed} s (boot, checks, power-off)"
  summary=$(grep -a '^guest-test: ' "$log" | tr -d '\r' | tail -n 1)
  if [[ -z "$summary" ]]; then
    tail -n 60 "$log" | sed "s/^/[$name] /" >&2
    failed+=("$name: the guest did not finish its checks (qemu exit $rc)")
  elif [[ "$summary" != *", 0 failed" ]]; then
    failed+=("$name: $summary")
  else
    echo "[$name] PASS: $summary"
  fi
done
[[ ${#failed[@]} -eq 0 ]] || die "$(IFS=';'; echo "${failed[*]}")"
echo "PASS: every kernel (${kernels[*]})"

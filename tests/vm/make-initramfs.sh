#!/usr/bin/env bash
# Builds a busybox initramfs (cpio newc, gzip) for one kernel of the matrix.
#   make-initramfs.sh OUT KERNEL_DIR GUEST_SCRIPT FILE...
# KERNEL_DIR is what fetch-kernel.sh printed; its veth module goes to
# /lib/modules/veth.ko (decompressed when the kernel ships .ko.xz). Each FILE
# (an executable of the host) is copied to /usr/local/bin (first in PATH,
# before busybox's applets) with every library `ldd`
# lists, at the same paths, the loader included. GUEST_SCRIPT becomes
# /guest-test.sh, run by /init, which mounts the usual file systems, prints
# the script's exit status as "NETIF_RX_VM_EXIT=<status>" on the console
# and powers the guest off.
set -euo pipefail

out=${1:?usage: make-initramfs.sh OUT KERNEL_DIR GUEST_SCRIPT FILE...}
kernel_dir=${2:?}
guest_script=${3:?}
shift 3

busybox=/bin/busybox
[[ -x "$busybox" ]] && "$busybox" --list >/dev/null 2>&1 ||
  { echo "make-initramfs: no static busybox (Debian package busybox-static)" >&2; exit 1; }
ldd "$busybox" >/dev/null 2>&1 &&
  { echo "make-initramfs: $busybox is dynamically linked; install busybox-static" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,run,etc,lib/modules,var/run}
cp "$busybox" "$root/bin/busybox"

copy_with_libraries() {
  local file=$1 destination=$2
  cp -L "$file" "$root$destination"
  # ldd prints "name => /path (addr)" and the loader as "/path (addr)".
  ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | while read -r library; do
    mkdir -p "$root$(dirname "$library")"
    [[ -e "$root$library" ]] || cp -L "$library" "$root$library"
  done
}
for file in "$@"; do
  [[ -x "$file" ]] || { echo "make-initramfs: $file is not an executable" >&2; exit 1; }
  copy_with_libraries "$file" "/usr/local/bin/$(basename "$file")"
done

veth=$(find "$kernel_dir/modules/kernel/drivers/net" -maxdepth 1 -name 'veth.ko*' | head -n 1)
[[ -n "$veth" ]] || { echo "make-initramfs: no veth module in $kernel_dir" >&2; exit 1; }
case "$veth" in
  *.xz) xz -dc "$veth" >"$root/lib/modules/veth.ko" ;;
  *.zst) zstd -dc "$veth" >"$root/lib/modules/veth.ko" ;;
  *) cp "$veth" "$root/lib/modules/veth.ko" ;;
esac

cp "$guest_script" "$root/guest-test.sh"
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
sh /guest-test.sh
echo "NETIF_RX_VM_EXIT=$?"
poweroff -f
INIT
chmod +x "$root/init" "$root/guest-test.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"

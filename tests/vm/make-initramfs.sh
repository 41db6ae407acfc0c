#!/usr/bin/env bash
# Builds a busybox initramfs (cpio newc, gzip) for one kernel of the matrix.
#   make-initramfs.sh OUT KERNEL_DIR GUEST_SCRIPT FILE...
# KERNEL_DIR is what fetch-kernel.sh printed; its veth and bonding modules
# (and what they depend on) go to /lib/modules/NAME.ko (decompressed when
# the kernel ships .ko.xz), in /lib/modules/load-order; NETIF_RX_VM_MODULES
# names other modules to add (bridge). Each FILE
# (an executable of the host) is copied to /usr/local/bin (first in PATH,
# before busybox's applets) with every library `ldd`
# lists, at the same paths, the loader included. For another architecture
# NETIF_RX_VM_SYSROOT names a tree of that architecture's Debian packages
# (scripts/arm64-sysroot.sh): busybox comes from it, and each FILE's
# libraries are found there from its ELF headers (ldd cannot run a foreign
# binary). NETIF_RX_VM_LINKS lists
# "PATH=TARGET" symbolic links to make (a binary at the absolute path another
# one has compiled in). GUEST_SCRIPT becomes
# /guest-test.sh, run by /init, which mounts the usual file systems, prints
# the script's exit status as "NETIF_RX_VM_EXIT=<status>" on the console
# and powers the guest off.
set -euo pipefail

out=${1:?usage: make-initramfs.sh OUT KERNEL_DIR GUEST_SCRIPT FILE...}
kernel_dir=${2:?}
guest_script=${3:?}
shift 3

sysroot=${NETIF_RX_VM_SYSROOT:-}
busybox=$sysroot/bin/busybox
[[ -x "$busybox" ]] || { echo "make-initramfs: no $busybox (Debian package busybox-static)" >&2; exit 1; }
readelf -l "$busybox" | grep -q 'program interpreter' &&
  { echo "make-initramfs: $busybox is dynamically linked; install busybox-static" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,run,etc,lib/modules,var/run}
cp "$busybox" "$root/bin/busybox"

# The guest paths of the loader and of every library FILE needs, directly or
# not: ldd's answer on this machine; in a sysroot, the ELF headers' loader
# and NEEDED names looked up in the sysroot's library directories.
libraries_of() {
  if [[ -z "$sysroot" ]]; then
    # ldd prints "name => /path (addr)" and the loader as "/path (addr)".
    ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
    return
  fi
  readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p'
  local pending=("$1") found=" " name directory
  while [[ ${#pending[@]} -gt 0 ]]; do
    for name in $(readelf -d "${pending[0]}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
      [[ $found == *" $name "* ]] && continue
      found+="$name "
      for directory in "$sysroot"/lib/*-linux-gnu "$sysroot"/usr/lib/*-linux-gnu "$sysroot/lib" "$sysroot/usr/lib"; do
        directory=${directory#"$sysroot"}
        [[ -e "$sysroot$directory/$name" ]] || continue
        echo "$directory/$name"
        pending+=("$sysroot$directory/$name")
        continue 2
      done
      echo "make-initramfs: $name (needed by ${pending[0]}) is not in $sysroot" >&2
      return 1
    done
    pending=("${pending[@]:1}")
  done
}
copy_with_libraries() {
  local file=$1 destination=$2 libraries
  cp -L "$file" "$root$destination"
  libraries=$(libraries_of "$file") || exit 1
  for library in $libraries; do
    mkdir -p "$root$(dirname "$library")"
    [[ -e "$root$library" ]] || cp -L "$sysroot$library" "$root$library"
  done
}
for file in "$@"; do
  [[ -x "$file" ]] || { echo "make-initramfs: $file is not an executable" >&2; exit 1; }
  copy_with_libraries "$file" "/usr/local/bin/$(basename "$file")"
done

# Modules the guest loads, each with its dependencies first (from the
# module's own "depends=" field), decompressed to /lib/modules/NAME.ko;
# /lib/modules/load-order lists them in the order to insmod.
add_module() {
  local name=$1 file depends dependency
  [[ -e "$root/lib/modules/$name.ko" ]] && return 0
  file=$(find "$kernel_dir/modules/kernel" \( -name "$name.ko" -o -name "$name.ko.xz" -o -name "$name.ko.zst" \) | head -n 1)
  [[ -n "$file" ]] || { echo "make-initramfs: no $name module in $kernel_dir" >&2; return 1; }
  case "$file" in
    *.xz) xz -dc "$file" >"$root/lib/modules/$name.ko" ;;
    *.zst) zstd -dc "$file" >"$root/lib/modules/$name.ko" ;;
    *) cp "$file" "$root/lib/modules/$name.ko" ;;
  esac
  depends=$(LC_ALL=C tr '\0' '\n' <"$root/lib/modules/$name.ko" | LC_ALL=C sed -n 's/^depends=//p' | head -n 1)
  for dependency in ${depends//,/ }; do add_module "$dependency" || return 1; done
  echo "$name" >>"$root/lib/modules/load-order"
}
for module in veth bonding ${NETIF_RX_VM_MODULES:-}; do add_module "$module" || exit 1; done
# Made by /init after it mounted /tmp and /run: a path under either would be
# hidden by the mount (a build tree under /tmp, say).
: >"$root/links"
for link in ${NETIF_RX_VM_LINKS:-}; do
  echo "${link%%=*} ${link#*=}" >>"$root/links"
done

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
while read -r path target; do
  mkdir -p "$(dirname "$path")" && ln -s "$target" "$path"
done </links
sh /guest-test.sh
echo "NETIF_RX_VM_EXIT=$?"
poweroff -f
INIT
chmod +x "$root/init" "$root/guest-test.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"

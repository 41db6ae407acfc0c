#!/usr/bin/env bash
# The arm64 sysroot of the cross build: Debian bookworm's arm64 packages the
# exporter links against (with their headers), extracted from Debian's
# archive by mmdebstrap (no arm64 machine, no emulation, no change to this
# machine's dpkg), plus what an arm64 guest of the kernel matrix runs beside
# the exporter (busybox-static, iproute2). Prints the sysroot's directory.
#   arm64-sysroot.sh
# bookworm, bookworm-updates and bookworm-security, so that the libraries
# are the ones an up-to-date bookworm server has. Cached under
# $NETIF_RX_CACHE (default ~/.cache/netif_rx_exporter)/sysroot-arm64-<hash of
# the package list>: another list makes another sysroot; delete the
# directory to take newer packages. apt checks the archive's signatures.
# The sysroot also gets a dpkg database of what it holds (var/lib/dpkg, made
# from the very packages extracted, no maintainer script run): the file lists
# name each file where it is, under the sysroot, so that dpkg-shlibdeps
# --admindir finds the package, shlibs and symbols of each arm64 library
# (make deb ARCH=arm64). This machine's own dpkg database is never touched.
# Exit status 1 with one line on stderr saying why when it fails.
set -euo pipefail

packages=(
  # the C and C++ runtime and headers clang links against
  libc6-dev libstdc++-12-dev libgcc-12-dev
  # the exporter's libraries, as scripts/install-deps.sh lists them for the native build
  libbpf-dev libelf-dev zlib1g-dev
  prometheus-cpp-dev libcivetweb-dev libyaml-cpp-dev libsystemd-dev libspdlog-dev libfmt-dev
  libcap-dev libcrypt-dev libssl-dev nlohmann-json3-dev
  # the arm64 guest of the kernel matrix (tests/vm): its shell and iproute2's ip
  busybox-static iproute2
)
suite=bookworm
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security

die() { echo "arm64-sysroot: $*" >&2; exit 1; }
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (Debian package mmdebstrap)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r "$keyring" ]] || die "no $keyring (Debian package debian-archive-keyring)"

cache=${NETIF_RX_CACHE:-${HOME:-/root}/.cache/netif_rx_exporter}
hash=$(printf '%s\n' "with a dpkg database" "$suite" "${packages[@]}" | sha256sum | cut -c1-12)
sysroot="$cache/sysroot-arm64-$hash"
if [[ -f "$sysroot/.complete" ]]; then
  echo "$sysroot"
  exit 0
fi
mkdir -p "$cache"
# One build at a time (parallel builds and tests share the cache).
exec 9>"$cache/.sysroot-arm64.lock"
flock 9
if [[ -f "$sysroot/.complete" ]]; then
  echo "$sysroot"
  exit 0
fi

work="$sysroot.partial"
rm -rf "$work"
started=$(date +%s)
include=$(IFS=,; echo "${packages[*]}")
mmdebstrap --quiet --mode=root --variant=extract --arch=arm64 --include="$include" \
  --skip=cleanup/apt/cache \
  --keyring="$keyring" "$suite" "$work" \
  "deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security $suite-security main" \
  >"$cache/sysroot-arm64.log" 2>&1 ||
  die "mmdebstrap failed: $(tail -n 1 "$cache/sysroot-arm64.log") (whole log: $cache/sysroot-arm64.log)"
# The extract variant leaves / unmerged: lib/ beside usr/lib/. Absolute links
# (libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1) would point into this
# machine's root; make them relative to the sysroot.
find "$work" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$work$target")" "$link"
done
[[ -e "$work/usr/lib/aarch64-linux-gnu/libbpf.so" ]] || die "no libbpf.so in the extracted tree"

# The dpkg database: status (each package's control fields, installed), and
# per package its file list (paths under the final sysroot), shlibs and
# symbols. A package of several architectures' libraries (Multi-Arch: same)
# has its files named PACKAGE:ARCH, as dpkg names them.
admin="$work/var/lib/dpkg"
mkdir -p "$admin/info" "$admin/updates"
: >"$admin/status"
echo 1 >"$admin/info/format" # PACKAGE:ARCH file names
printf '%s\n' "$(dpkg --print-architecture)" arm64 >"$admin/arch"
control=$(mktemp -d)
trap 'rm -rf "$control"' EXIT
shopt -s nullglob
debs=("$work"/var/cache/apt/archives/*.deb)
shopt -u nullglob
[[ ${#debs[@]} -gt 0 ]] || die "mmdebstrap left no package in var/cache/apt/archives"
for deb in "${debs[@]}"; do
  package=$(dpkg-deb -f "$deb" Package)
  name=$package
  [[ "$(dpkg-deb -f "$deb" Multi-Arch)" == same ]] && name="$package:$(dpkg-deb -f "$deb" Architecture)"
  { dpkg-deb -f "$deb" | sed '1a Status: install ok installed'; echo; } >>"$admin/status"
  dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' |
    sed "s|^|$sysroot|" >"$admin/info/$name.list"
  rm -rf "${control:?}"/*
  dpkg-deb -e "$deb" "$control"
  for file in shlibs symbols; do
    [[ -f "$control/$file" ]] && cp "$control/$file" "$admin/info/$name.$file"
  done
done
rm -f "$work"/var/cache/apt/archives/*.deb
touch "$work/.complete"
rm -rf "$sysroot"
mv "$work" "$sysroot"
echo "arm64-sysroot: $sysroot in $(($(date +%s) - started)) s, $(du -sm "$sysroot" | cut -f1) MB" >&2
echo "$sysroot"

#!/usr/bin/env bash
# Fetches one Debian kernel pinned in kernels.list and unpacks it into a
# cache outside the source tree, then prints the unpacked directory.
#   fetch-kernel.sh NAME          e.g. fetch-kernel.sh 6.1
# The kernel's architecture is its package's (linux-image-...-amd64, -arm64);
# $NETIF_RX_KERNEL_LIST names another list (kernels-arm64.list).
# The directory holds vmlinuz (the kernel) and modules/ (its lib/modules
# tree). apt runs with a private configuration (its own sources list, lists
# and cache under the cache directory): the host's apt sources and state are
# never read or changed. apt checks the archive's signatures with the
# keyring of the debian-archive-keyring package.
# Cache: $NETIF_RX_KERNEL_CACHE, default ~/.cache/netif_rx_exporter/kernels.
# Exit status 1 with one line on stderr saying why when it fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
list=${NETIF_RX_KERNEL_LIST:-$here/kernels.list}
cache=${NETIF_RX_KERNEL_CACHE:-${HOME:-/root}/.cache/netif_rx_exporter/kernels}
name=${1:?usage: fetch-kernel.sh NAME (a name in kernels.list)}

fail() {
  echo "fetch-kernel: $name: $*" >&2
  exit 1
}

read -r suite package version < <(awk -v n="$name" '$1 == n && $1 !~ /^#/ {print $2, $3, $4}' "$list") ||
  fail "not pinned in $list"
[[ -n "${package:-}" && -n "${version:-}" ]] || fail "incomplete line in $list"
arch=${package##*-}
[[ $arch == amd64 || $arch == arm64 ]] || fail "$package: not an amd64 or arm64 kernel package"

target="$cache/${package}_${version}"
if [[ -f "$target/.complete" ]]; then
  echo "$target"
  exit 0
fi

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r "$keyring" ]] || fail "no $keyring (Debian package debian-archive-keyring)"
# One apt state per architecture: apt update drops the lists of the other.
apt_dir="$cache/apt"
[[ $arch == amd64 ]] || apt_dir="$cache/apt-$arch"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
# One fetch at a time per cache (parallel ctest runs share it).
exec 9>"$cache/.lock"
flock 9
# Fetched meanwhile by another run, which held the lock.
if [[ -f "$target/.complete" ]]; then
  echo "$target"
  exit 0
fi
# Every suite of kernels.list, one sources list.
awk '$1 !~ /^#/ && NF >= 4 {print $2}' "$list" | sort -u |
  sed "s|.*|deb [signed-by=$keyring] http://deb.debian.org/debian & main|" >"$apt_dir/sources.list"
apt_options=(
  -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
  -o Dir::State::status=/dev/null -o "APT::Architecture=$arch" -o Acquire::Languages=none
  -o Debug::NoLocking=1
)

# The lists are refreshed only when the pinned version is not in them.
known() { apt-cache "${apt_options[@]}" show "$package=$version" >/dev/null 2>&1; }
if ! known; then
  apt-get "${apt_options[@]}" -qq update >"$apt_dir/update.log" 2>&1 ||
    fail "apt-get update failed: $(tail -n 1 "$apt_dir/update.log")"
  known || fail "$package=$version is not in $suite any more (update kernels.list)"
fi

deb="$apt_dir/debs/${package}_${version}_$arch.deb"
if [[ ! -s "$deb" ]]; then
  (cd "$apt_dir/debs" && apt-get "${apt_options[@]}" -qq download "$package=$version" \
    >"$apt_dir/download.log" 2>&1) || fail "download failed: $(tail -n 1 "$apt_dir/download.log")"
  # apt names the file after the version with ':' escaped; take what it wrote.
  shopt -s nullglob
  written=("$apt_dir/debs/${package}_"*"_$arch.deb")
  shopt -u nullglob
  [[ ${#written[@]} -ge 1 ]] || fail "apt-get download left no .deb"
  [[ "${written[0]}" == "$deb" ]] || mv "${written[0]}" "$deb"
fi

work="$target.partial"
rm -rf "$work"
mkdir -p "$work/root"
dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x $deb failed"
shopt -s nullglob
kernels=("$work/root/boot/vmlinuz-"*)
module_trees=("$work/root/lib/modules/"* "$work/root/usr/lib/modules/"*)
shopt -u nullglob
[[ ${#kernels[@]} -eq 1 ]] || fail "expected one boot/vmlinuz-* in $deb, found ${#kernels[@]}"
[[ ${#module_trees[@]} -eq 1 ]] || fail "expected one lib/modules/* in $deb, found ${#module_trees[@]}"
vmlinuz=${kernels[0]}
modules=${module_trees[0]}
mv "$vmlinuz" "$work/vmlinuz"
mv "$modules" "$work/modules"
rm -rf "$work/root"
touch "$work/.complete"
rm -rf "$target"
mv "$work" "$target"
echo "$target"

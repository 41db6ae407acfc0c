#!/usr/bin/env bash
# Used only where the kernel matrix's tests/vm/fetch-kernel.sh is absent:
# downloads bookworm's 6.1 cloud kernel, pinned, with a private apt
# configuration (the host's sources and state untouched; apt checks the
# archive's signatures), into CACHE/<package>_<version>/{vmlinuz,modules}.
#   fetch-bookworm-kernel.sh CACHE     prints the kernel's directory
set -euo pipefail
cache=${1:?usage: fetch-bookworm-kernel.sh CACHE}
package=linux-image-6.1.0-50-cloud-amd64
version=6.1.176-1
target="$cache/${package}_${version}"
[[ -f "$target/.complete" ]] && { echo "$target"; exit 0; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt_dir="$cache/apt-bookworm"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian bookworm main" >"$apt_dir/sources.list"
apt_options=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Dir::State::status=/dev/null
  -o APT::Architecture=amd64 -o Acquire::Languages=none -o Debug::NoLocking=1)
apt-get "${apt_options[@]}" -qq update >&2
(cd "$apt_dir/debs" && apt-get "${apt_options[@]}" -qq download "$package=$version" >&2)
rm -rf "$target.partial"
mkdir -p "$target.partial/root"
dpkg-deb -x "$apt_dir/debs/${package}_${version}_amd64.deb" "$target.partial/root"
mv "$target.partial"/root/boot/vmlinuz-* "$target.partial/vmlinuz"
mv "$target.partial"/root/lib/modules/* "$target.partial/modules"
rm -rf "$target.partial/root"
touch "$target.partial/.complete"
mv "$target.partial" "$target"
echo "$target"

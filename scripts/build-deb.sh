#!/usr/bin/env bash
# make deb: builds the Debian package with Debian's tooling (dpkg-buildpackage,
# debhelper) from a copy of the source tree under OUT_DIR, so that nothing is
# written into the source tree or beside it, then runs lintian on it.
#   build-deb.sh OUT_DIR [ARCH]
# ARCH (default: this machine's) arm64 on another machine: a cross build with clang against
# Debian's arm64 packages in a sysroot (scripts/arm64-sysroot.sh), see debian/rules.
# Prints the .deb's path last. Exit status 1 on a build failure or a lintian error. A package
# already built from the same sources (names, contents, ARCH, DEB_BUILD_OPTIONS) is not built
# again: its path is printed.
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/.." && pwd)
out_dir=$(mkdir -p "${1:?usage: build-deb.sh OUT_DIR [ARCH]}" && cd "$1" && pwd)
version=$(dpkg-parsechangelog -l "$source_dir/debian/changelog" -S Version)
package=$(dpkg-parsechangelog -l "$source_dir/debian/changelog" -S Source)
build_arch=$(dpkg --print-architecture)
arch=${2:-$build_arch}
cross=()
if [[ $arch != "$build_arch" ]]; then
  [[ $arch == arm64 ]] || { echo "build-deb: ARCH=$arch is not supported (arm64 is)" >&2; exit 1; }
  sysroot=$(bash "$source_dir/scripts/arm64-sysroot.sh")
  # help2man runs the arm64 binary: qemu-user through binfmt_misc.
  bash "$source_dir/scripts/arm64-binfmt.sh"
  export NETIF_RX_SYSROOT=$sysroot CC=clang CXX=clang++
  # -d: the arm64 build dependencies are in the sysroot, not installed on this machine.
  cross=(-a "$arch" -d)
fi
tree="$out_dir/src/$package-$version"
deb_out="$out_dir/${package}_${version}_${arch}.deb"
stamp="$deb_out.sources"

# The files git tracks (and new ones it would track), as they are in the
# working tree, NUL-separated.
source_files() {
  (cd "$source_dir" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh)
}
in_git=false
git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=true

# The package of these very sources is there already (make test builds it before its tests, and
# the ctest package_deb, the systemd guest and the image then take it): their names and contents,
# the architecture and the build options, hashed.
fingerprint=
if $in_git; then
  fingerprint=$({
    echo "$arch ${DEB_BUILD_OPTIONS:-}"
    source_files | (cd "$source_dir" && tar --null -T - --mtime=@0 --owner=0 --group=0 \
      --numeric-owner --sort=name -cf -)
  } | sha256sum | cut -d' ' -f1)
  if [[ -f "$deb_out" && -f "$stamp" && $(cat "$stamp") == "$fingerprint" ]]; then
    echo "build-deb: $deb_out is of these sources already (built and checked by lintian then)"
    echo "$deb_out"
    exit 0
  fi
fi
rm -f "$stamp"

# A source tree without git is copied without its build dirs.
rm -rf "$tree"
mkdir -p "$tree"
if $in_git; then
  source_files | (cd "$source_dir" && tar --null -T - -cf -) | tar -C "$tree" -xf -
else
  tar -C "$source_dir" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
fi

# The compiler cache (the launcher make exports): debhelper gives the build a HOME of its own
# inside the tree, which this script deletes, so ccache is told where the user's cache is; and
# the tree's own path is left out of its hashes (base_dir), so that another output directory or
# clone of the same sources hits the same entries.
if command -v ccache >/dev/null; then
  CCACHE_DIR=${CCACHE_DIR:-$(ccache -k cache_dir)}
  export CCACHE_DIR CCACHE_BASEDIR=$tree
fi

echo "build-deb: dpkg-buildpackage in $tree"
# No -dbgsym package: it is for an archive's debug service, and costs a third of the build. Without
# it dh_strip throws the debug information away, so none is generated (-g stripped from the
# compiler flags: GCC's code does not depend on -g, the installed binary is the same, and the
# compiles take about a quarter less).
(cd "$tree" && DEB_CFLAGS_STRIP=-g DEB_CXXFLAGS_STRIP=-g \
  DEB_BUILD_OPTIONS="parallel=${JOBS:-$(nproc)} noautodbgsym ${DEB_BUILD_OPTIONS:-}" \
  dpkg-buildpackage -us -uc -b "${cross[@]}" >"$out_dir/dpkg-buildpackage.log" 2>&1) || {
  tail -n 30 "$out_dir/dpkg-buildpackage.log" >&2
  echo "build-deb: dpkg-buildpackage failed; the whole log: $out_dir/dpkg-buildpackage.log" >&2
  exit 1
}
deb="$out_dir/src/${package}_${version}_${arch}.deb"
changes="$out_dir/src/${package}_${version}_${arch}.changes"
[[ -f "$deb" ]] || { echo "build-deb: $deb was not built" >&2; exit 1; }

# Errors fail the build; warnings and notes are printed.
lintian_out=$(lintian --tag-display-limit 0 "$changes" 2>&1) || true
[[ -z "$lintian_out" ]] || printf '%s\n' "$lintian_out"
if grep -q '^E: ' <<<"$lintian_out"; then
  echo "build-deb: lintian reports errors" >&2
  exit 1
fi
cp -f "$deb" "$out_dir/"
[[ -z "$fingerprint" ]] || echo "$fingerprint" >"$stamp"
echo "build-deb: $(du -k "$deb" | cut -f1) KiB, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "$deb_out"

#!/usr/bin/env bash
# make image: builds the OCI image from packaging/container/Containerfile with podman, with no
# container registry: the Debian base images come from Debian's archive (mmdebstrap, then
# podman import as localhost/debian:bookworm and localhost/debian:bookworm-slim).
# Tags localhost/netif-rx-exporter:<version> and :latest; prints the image's size.
# The base's tarball is cached in $NETIF_RX_CACHE (default ~/.cache/netif_rx_exporter)/container.
#   build-image.sh [--from-deb DEB] [ARCH]
# --from-deb DEB: the exporter and its libraries come from that Debian package (make deb) instead
# of the build stage, the same way: the package's binary is what the image ships, and nothing is
# compiled again (make test builds the package once for the systemd guest and the image).
# ARCH arm64 (on another machine): the image for arm64 servers, tagged :<version>-arm64 and
# :latest-arm64, on an arm64 base (localhost/arm64/debian:*). Its build stage is not run: the
# exporter comes from the cross build (scripts/cross-build.sh, stripped), given to the
# Containerfile as the build context named "build", which takes the build stage's place; the
# runtime stage's RUN steps run the arm64 image's own programs under qemu-user (binfmt_misc).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETIF_RX_CACHE:-${HOME:-/root}/.cache/netif_rx_exporter}/container
version=$(sed -n 's/^project(netif_rx_exporter VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
image=localhost/netif-rx-exporter
# This machine's podman needs runc and cgroupfs, and no raise of the open-file limit.
podman=(podman --runtime runc --cgroup-manager cgroupfs)
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

die() { echo "build-image: $*" >&2; exit 1; }
for tool in podman mmdebstrap runc; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done
[[ -n "$version" ]] || die "no version in CMakeLists.txt"
from_deb=""
if [[ ${1:-} == --from-deb ]]; then
  from_deb=${2:?usage: build-image.sh [--from-deb DEB] [ARCH]}
  shift 2
  [[ -f "$from_deb" ]] || die "--from-deb: no package at $from_deb"
fi
native=$(dpkg --print-architecture)
arch=${1:-$native}
registry=localhost  # where the Containerfile's debian:* bases are
suffix=""           # of the base's tarball and of the image's tags
cross=()
if [[ $arch != "$native" ]]; then
  [[ $arch == arm64 ]] || die "ARCH=$arch is not supported (arm64 is)"
  bash "$source_dir/scripts/arm64-binfmt.sh" || die "arm64 programs cannot run here (above)"
  registry=localhost/$arch
  suffix=-$arch
  cross=(--arch "$arch")
fi

# 1. The base: a minimal bookworm from Debian's archive, without documentation (the "slim"
#    flavour), imported under the names the Containerfile's stages use.
# mmdebstrap converts to merged /usr with the usrmerge package, which brings perl (~50 MB);
# neither is needed afterwards.
base_tar="$cache/debian-bookworm-slim-v2$suffix.tar"
if [[ ! -s "$base_tar" ]]; then
  mkdir -p "$cache"
  rm -rf "$base_tar.partial"
  echo "build-image: mmdebstrap bookworm $arch (minbase, no documentation)"
  mmdebstrap --quiet --variant=minbase --format=tar --arch="$arch" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='chroot "$1" apt-get install -y -qq usr-is-merged usrmerge- perl- libperl5.36- perl-modules-5.36-' \
    --customize-hook='chroot "$1" apt-get autoremove --purge -y -qq' \
    bookworm "$base_tar.partial" || die "mmdebstrap failed"
  mv "$base_tar.partial" "$base_tar"
fi
stamp=$(sha256sum "$base_tar" | cut -c1-12)
if [[ "$("${podman[@]}" image inspect --format '{{index .Labels "netif_rx.base"}}' "$registry/debian:bookworm" 2>/dev/null)" != "$stamp" ]]; then
  "${podman[@]}" import --arch "$arch" --change "LABEL netif_rx.base=$stamp" --change 'CMD ["/bin/bash"]' \
    "$base_tar" "$registry/debian:bookworm" >/dev/null || die "podman import failed"
  "${podman[@]}" tag "$registry/debian:bookworm" "$registry/debian:bookworm-slim"
fi

# The cross build, stripped as the build stage strips, where the build stage would find it.
if [[ ${#cross[@]} -gt 0 ]]; then
  bash "$source_dir/scripts/cross-build.sh" "$arch" "$source_dir/build/$arch" || die "the cross build failed"
  built="$source_dir/build/$arch-image-context"
  rm -rf "$built"
  mkdir -p "$built/build"
  aarch64-linux-gnu-strip --strip-unneeded -o "$built/build/netif_rx_exporter" "$source_dir/build/$arch/netif_rx_exporter" ||
    die "strip failed (Debian package binutils-aarch64-linux-gnu)"
  cp "$source_dir/build/$arch/libnetif_rx_civetweb_tls.so" "$source_dir/build/$arch/libnetif_rx_civetweb_crypto.so" \
    "$built/build/"
  cross+=(--build-context "build=$built")
fi

# Or the package's binary and libraries, as they are installed.
if [[ -n "$from_deb" ]]; then
  [[ ${#cross[@]} -eq 0 ]] || die "--from-deb is for this machine's architecture"
  built="$source_dir/build/deb-image-context"
  rm -rf "$built"
  mkdir -p "$built/build"
  dpkg-deb -x "$from_deb" "$built/root" || die "dpkg-deb -x $from_deb failed"
  cp "$built/root/usr/bin/netif_rx_exporter" "$built/root/usr/lib/netif_rx_exporter/"*.so "$built/build/" ||
    die "$from_deb lacks usr/bin/netif_rx_exporter or usr/lib/netif_rx_exporter/*.so"
  rm -rf "$built/root"
  cross+=(--build-context "build=$built")
fi

# 2. The image. The one the tags named before, when this build replaces it and no tag is left on
#    it, is removed: each build would otherwise leave an untagged image of the same size behind.
previous=$("${podman[@]}" image inspect --format '{{.Id}}' "$image:latest$suffix" 2>/dev/null || true)
started=$(date +%s)
"${podman[@]}" build "${limits[@]}" --network host --layers \
  --build-arg BASE_REGISTRY="$registry" -f "$source_dir/packaging/container/Containerfile" "${cross[@]}" \
  -t "$image:$version$suffix" -t "$image:latest$suffix" "$source_dir" || die "podman build failed"
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$image:$version$suffix")
if [[ -n "$previous" && "$previous" != "$("${podman[@]}" image inspect --format '{{.Id}}' "$image:latest$suffix")" &&
  "$("${podman[@]}" image inspect --format '{{len .RepoTags}}' "$previous" 2>/dev/null)" == 0 ]]; then
  "${podman[@]}" rmi "$previous" >/dev/null 2>&1 || echo "build-image: the replaced image $previous was not removed" >&2
fi
echo "build-image: $image:$version$suffix and :latest$suffix, $((size / 1024 / 1024)) MiB, built in $(($(date +%s) - started)) s"

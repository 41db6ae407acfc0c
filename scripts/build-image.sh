#!/usr/bin/env bash
# make image: builds the OCI image from packaging/container/Containerfile with podman, with no
# container registry: the Debian base images come from Debian's archive (mmdebstrap, then
# podman import as localhost/debian:bookworm and localhost/debian:bookworm-slim).
# Tags localhost/netif-rx-exporter:<version> and :latest; prints the image's size.
# The base's tarball is cached in $NETIF_RX_CACHE (default ~/.cache/netif_rx_exporter)/container.
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

# 1. The base: a minimal bookworm from Debian's archive, without documentation (the "slim"
#    flavour), imported under the names the Containerfile's stages use.
# mmdebstrap converts to merged /usr with the usrmerge package, which brings perl (~50 MB);
# neither is needed afterwards.
base_tar="$cache/debian-bookworm-slim-v2.tar"
if [[ ! -s "$base_tar" ]]; then
  mkdir -p "$cache"
  rm -rf "$base_tar.partial"
  echo "build-image: mmdebstrap bookworm (minbase, no documentation)"
  mmdebstrap --quiet --variant=minbase --format=tar \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='chroot "$1" apt-get install -y -qq usr-is-merged usrmerge- perl- libperl5.36- perl-modules-5.36-' \
    --customize-hook='chroot "$1" apt-get autoremove --purge -y -qq' \
    bookworm "$base_tar.partial" || die "mmdebstrap failed"
  mv "$base_tar.partial" "$base_tar"
fi
stamp=$(sha256sum "$base_tar" | cut -c1-12)
if [[ "$("${podman[@]}" image inspect --format '{{index .Labels "netif_rx.base"}}' localhost/debian:bookworm 2>/dev/null)" != "$stamp" ]]; then
  "${podman[@]}" import --change "LABEL netif_rx.base=$stamp" --change 'CMD ["/bin/bash"]' \
    "$base_tar" localhost/debian:bookworm >/dev/null || die "podman import failed"
  "${podman[@]}" tag localhost/debian:bookworm localhost/debian:bookworm-slim
fi

# 2. The image.
started=$(date +%s)
"${podman[@]}" build "${limits[@]}" --network host --layers \
  --build-arg BASE_REGISTRY=localhost -f "$source_dir/packaging/container/Containerfile" \
  -t "$image:$version" -t "$image:latest" "$source_dir" || die "podman build failed"
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$image:$version")
echo "build-image: $image:$version and :latest, $((size / 1024 / 1024)) MiB, built in $(($(date +%s) - started)) s"

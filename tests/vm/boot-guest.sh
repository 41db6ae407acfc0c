#!/usr/bin/env bash
# Boots a fetched kernel with an initramfs under qemu's software emulation
# and writes the serial console to LOG.
#   boot-guest.sh KERNEL_DIR INITRD LOG [TIMEOUT_SECONDS] [MEMORY_MB]
# Software emulation (tcg), not /dev/kvm: on this kind of machine /dev/kvm
# is not hardware-assisted and Debian kernels die in it. Exit status: qemu's
# (124 when TIMEOUT_SECONDS, default 240, passed). A kernel stuck for two
# minutes (a soft lockup, watchdog_thresh=60) panics and ends the guest at once.
# NETIF_RX_VM_APPEND adds kernel parameters.
set -euo pipefail
kernel_dir=${1:?usage: boot-guest.sh KERNEL_DIR INITRD LOG [TIMEOUT_SECONDS] [MEMORY_MB]}
initrd=${2:?}
log=${3:?}
seconds=${4:-240}
memory=${5:-768}
cpu=${NETIF_RX_VM_CPU:-max,-cx16}
command -v qemu-system-x86_64 >/dev/null ||
  { echo "boot-guest: no qemu-system-x86_64 (Debian package qemu-system-x86)" >&2; exit 1; }
exec timeout --kill-after=5 "$seconds" qemu-system-x86_64 \
  -machine pc -accel tcg,thread=multi -cpu "$cpu" -smp 2 -m "$memory" \
  -display none -vga none -nic none -monitor none -serial stdio -no-reboot \
  -kernel "$kernel_dir/vmlinuz" -initrd "$initrd" \
  -append "console=ttyS0 panic=-1 quiet no_timer_check watchdog_thresh=60 softlockup_panic=1 ${NETIF_RX_VM_APPEND:-}" </dev/null >"$log" 2>&1

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
# NETIF_RX_VM_ARCH=arm64 boots an arm64 kernel (a raw Image, -kernel needs no
# firmware) on qemu's virt machine, its console on the PL011 UART.
case ${NETIF_RX_VM_ARCH:-amd64} in
  amd64)
    qemu=(qemu-system-x86_64 -machine pc -cpu "${NETIF_RX_VM_CPU:-max,-cx16}" -vga none)
    console=ttyS0 package=qemu-system-x86 ;;
  arm64)
    # pauth-impdef: pointer authentication with qemu's own cheap hash instead of QARMA, which
    # costs much of an emulated arm64 CPU's time.
    qemu=(qemu-system-aarch64 -machine virt -cpu "${NETIF_RX_VM_CPU:-max,pauth-impdef=on}")
    console=ttyAMA0 package=qemu-system-arm ;;
  *) echo "boot-guest: unknown NETIF_RX_VM_ARCH ${NETIF_RX_VM_ARCH}" >&2; exit 1 ;;
esac
command -v "${qemu[0]}" >/dev/null ||
  { echo "boot-guest: no ${qemu[0]} (Debian package $package)" >&2; exit 1; }
boot() {
  timeout --kill-after=5 "$seconds" "${qemu[@]}" \
    -accel tcg,thread=multi -smp 2 -m "$memory" \
    -display none -nic none -monitor none -serial stdio -no-reboot \
    -kernel "$kernel_dir/vmlinuz" -initrd "$initrd" \
    -append "console=$console panic=-1 quiet no_timer_check watchdog_thresh=60 softlockup_panic=1 ${NETIF_RX_VM_APPEND:-}" </dev/null >"$log" 2>&1
}
# True when the kernel panicked before the guest's init printed its first
# line: every console line up to the panic is a kernel message.
panicked_before_init() {
  grep -aq 'Kernel panic' "$log" &&
    ! sed '/Kernel panic/q' "$log" | tr -d '\r' | grep -av '^\s*$' | grep -aqv '^\s*\['
}
# Such a boot failed before any code of ours ran (seen once in about forty
# boots: 6.12 under emulation, an int3 Oops in the timer interrupt 3 s into
# the boot). It boots once more, its console kept as LOG.first-panic; a panic
# after init's first line is the guest's result and is not retried.
status=0
boot || status=$?
if panicked_before_init; then
  mv "$log" "$log.first-panic"
  echo "boot-guest: the kernel panicked before init (console: $log.first-panic); booting again" >&2
  status=0
  boot || status=$?
fi
exit "$status"

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Benchmark only: an empty program on the same tracepoint as the probe. Its
 * kernel-measured cost is the floor of any tp_btf program (mostly the two
 * clock reads that statistics add, and the trampoline).
 */
#include "../../bpf/vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(empty_floor, struct sk_buff *skb) { return 0; }

char LICENSE[] SEC("license") = "Dual BSD/GPL";

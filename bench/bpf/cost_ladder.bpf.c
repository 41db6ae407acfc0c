// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Benchmark only: the rungs between the empty program and the probe, each a
 * program on the same tracepoint that does a part of the probe's work, so
 * that the table shows what each part costs above the floor on the machine
 * of the run. Each rung does what the one before it does, and one thing more.
 *
 * 1. one_increment: one increment of one per-CPU slot (the least that any
 *    program that counts does).
 * 2. by_ifindex: a per-CPU array slot by the device's ifindex, skbs and
 *    bytes (a counter per device that ignores namespaces and aggregates).
 * 3. by_namespace: the same, only for the devices of one namespace (its
 *    inode number read through the device): the least a counter that keeps
 *    namespaces apart does.
 * The probe's array layout adds to the third: its control gate (counting
 * only while its generation is the control map's), its own total (with the
 * handover's mark while a handover is on), the arrival test, the aggregate
 * test (skb length against the MTU) and the queue and steering reads.
 */
#include "../../bpf/vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../../bpf/netif_rx.h"

/* Set before load: the namespace whose devices by_namespace counts. */
const volatile __u32 counted_netns_inum = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_DEFAULT_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} ladder_counters SEC(".maps");

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(one_increment, struct sk_buff *skb)
{
	__u32 slot = 0;
	struct netif_rx_counters *counters = bpf_map_lookup_elem(&ladder_counters, &slot);

	if (counters)
		counters->skbs++;
	return 0;
}

static __always_inline void count_by_ifindex(struct sk_buff *skb, struct net_device *dev)
{
	__u32 ifindex = dev->ifindex;
	struct netif_rx_counters *counters = bpf_map_lookup_elem(&ladder_counters, &ifindex);

	if (counters) {
		counters->skbs++;
		counters->bytes += skb->len;
	}
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(by_ifindex, struct sk_buff *skb)
{
	count_by_ifindex(skb, skb->dev);
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(by_namespace, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	if (dev->nd_net.net->ns.inum == counted_netns_inum)
		count_by_ifindex(skb, dev);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

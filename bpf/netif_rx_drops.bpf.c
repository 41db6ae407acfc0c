// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counts packets dropped on the receive path per (network namespace,
 * ifindex, drop reason) and per CPU at the tracepoint skb:kfree_skb, which
 * carries the kernel's drop reason since Linux 5.17.
 *
 * A drop is counted when all of these hold:
 * - its reason is one of the receive path's (the bitmap `rx_reasons`, which
 *   the daemon fills from the running kernel's BTF: the enum's values differ
 *   between kernels and builds, so none is compiled in);
 * - the skb names a device (skb->dev, a device with an ifindex and a
 *   namespace);
 * - the skb went through a device's receive core (skb_iif set: the kernel
 *   sets it in __netif_receive_skb_core, before generic XDP, tc ingress,
 *   netfilter and the protocols), or the reason is the per-CPU backlog's,
 *   which drops an skb before that (enqueue_to_backlog; skb->dev is the
 *   receiving device).
 * The device counted is skb->dev at the drop. Transmit-side drops have other
 * reasons (qdisc, neighbour, device not ready, ...) and are not counted.
 *
 * Not the hot path of the exporter: kfree_skb fires only for drops (a
 * consumed skb takes consume_skb). Every drop of a counted reason is also
 * added to the slot NETIF_RX_DROP_SLOT_COUNTED of `drop_totals`; one that
 * finds the map full is added to NETIF_RX_DROP_SLOT_UNTRACKED.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "netif_rx.h"

#define EEXIST 17

/* Set by the daemon before load. */
const volatile __u32 host_netns_inum = 0;
const volatile bool count_all_namespaces = false;
/* The value of SKB_DROP_REASON_CPU_BACKLOG on this kernel, or
 * NETIF_RX_DROP_REASONS when it has none (before 5.18). */
const volatile __u32 backlog_reason = NETIF_RX_DROP_REASONS;
/* Bit r set: the reason with value r is one of the receive path's. */
const volatile __u64 rx_reasons[NETIF_RX_DROP_REASON_WORDS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_MAX_DROP_ENTRIES);
	__type(key, struct netif_rx_drop_key);
	__type(value, __u64);
} drop_counters SEC(".maps");

/* The device's name at its first drop, so that devices of other namespaces
 * (and devices gone since) can be named. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NETIF_RX_MAX_DROP_ENTRIES);
	__type(key, struct netif_rx_device_key);
	__type(value, struct netif_rx_device_name);
} drop_device_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_DROP_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} drop_totals SEC(".maps");

static __always_inline void add_total(__u32 slot)
{
	__u64 *total = bpf_map_lookup_elem(&drop_totals, &slot);

	if (total)
		*total += 1;
}

/* As netns_salt() of netif_rx.bpf.c: the low half of net_cookie (5.12+),
 * else hash_mix, else 0; 0 for the exporter's own namespace. */
static __always_inline __u32 drop_netns_salt(struct net_device *dev, __u32 netns_inum)
{
	if (netns_inum == host_netns_inum)
		return 0;
	if (bpf_core_field_exists(dev->nd_net.net->net_cookie) &&
	    bpf_core_field_size(dev->nd_net.net->net_cookie) == 8)
		return (__u32)dev->nd_net.net->net_cookie;
	if (!bpf_core_field_exists(dev->nd_net.net->hash_mix))
		return 0;
	return dev->nd_net.net->hash_mix;
}

static __noinline int count_new_entry(struct netif_rx_drop_key *key, struct net_device *dev)
{
	struct netif_rx_device_key name_key = {
	    .netns_inum = key->netns_inum, .ifindex = key->ifindex, .netns_salt = key->netns_salt};
	struct netif_rx_device_name name = {};
	__u64 one = 1, *count;
	int err; /* the low 32 bits: before 6.4 the helper's int is zero-extended */

	bpf_probe_read_kernel_str(name.name, sizeof(name.name), &dev->name);
	err = bpf_map_update_elem(&drop_device_names, &name_key, &name, BPF_NOEXIST);
	if (err != 0 && err != -EEXIST)
		return -1;
	err = bpf_map_update_elem(&drop_counters, key, &one, BPF_NOEXIST);
	if (err == 0)
		return 0;
	if (err != -EEXIST)
		return -1;
	/* Created on another CPU meanwhile: this CPU's value is there, 0. */
	count = bpf_map_lookup_elem(&drop_counters, key);
	if (!count)
		return -1;
	*count += 1;
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(netif_rx_drops, struct sk_buff *skb, void *location, int reason)
{
	struct netif_rx_drop_key key = {};
	struct net_device *dev;
	__u32 value = (__u32)reason;
	__u64 *count;

	__u32 word = value / 64;

	/* The bound checked on the word itself, as the verifier sees it. */
	barrier_var(word);
	if (word >= NETIF_RX_DROP_REASON_WORDS)
		return 0;
	if (!(rx_reasons[word] & (1ULL << (value % 64))))
		return 0;
	/* BTF-typed loads (tp_btf): a pointer that is not a device's reads
	 * as 0 rather than faulting, as a probe read would. */
	dev = skb->dev;
	if (!dev)
		return 0;
	if (value != backlog_reason && skb->skb_iif == 0)
		return 0;
	key.netns_inum = dev->nd_net.net->ns.inum;
	if (!count_all_namespaces && key.netns_inum != host_netns_inum)
		return 0;
	key.ifindex = dev->ifindex;
	/* Not a device: UDP keeps its own scratch data in the union that
	 * holds skb->dev once a datagram is queued to its socket (an skb
	 * freed from the queue later names no device), and the reads fail. */
	if (key.ifindex == 0 || key.netns_inum == 0)
		return 0;
	key.netns_salt = drop_netns_salt(dev, key.netns_inum);
	key.reason = value;
	add_total(NETIF_RX_DROP_SLOT_COUNTED);
	count = bpf_map_lookup_elem(&drop_counters, &key);
	if (count) {
		*count += 1;
		return 0;
	}
	if (count_new_entry(&key, dev) < 0)
		add_total(NETIF_RX_DROP_SLOT_UNTRACKED);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

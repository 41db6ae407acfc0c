// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counts NAPI polls per (network namespace, ifindex) and per CPU at the
 * tracepoint napi:napi_poll, which fires once per poll with the poll's work
 * (packets handed on) and budget (Linux >= 4.8):
 * - polls, their work, and the polls whose work reached the budget (the
 *   poll that leaves packets for the next round: the per-device cause of
 *   softnet_stat's time_squeeze). A budget of 0 (netpoll) is no pressure:
 *   such a poll is counted, never as exhausted;
 * - a context without a device is a CPU's backlog (process_backlog: packets
 *   queued by netif_rx() or steered by RPS): its polls go to the slot
 *   NETIF_RX_NAPI_SLOT_BACKLOG of `napi_totals`, by CPU;
 * - a device that finds the map full is added to NETIF_RX_NAPI_SLOT_UNTRACKED.
 * The device identity is the drop counter's (netif_rx_drops.bpf.c): the
 * namespace's inode, the ifindex and the namespace's salt (0 for the
 * exporter's own namespace).
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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_MAX_NAPI_ENTRIES);
	__type(key, struct netif_rx_device_key);
	__type(value, struct netif_rx_napi_counters);
} napi_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_NAPI_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, struct netif_rx_napi_counters);
} napi_totals SEC(".maps");

static __always_inline void add_poll(struct netif_rx_napi_counters *counters, __u64 work,
				     __u64 exhausted)
{
	counters->polls += 1;
	counters->packets += work;
	counters->exhausted += exhausted;
}

static __always_inline void add_total(__u32 slot, __u64 work, __u64 exhausted)
{
	struct netif_rx_napi_counters *total = bpf_map_lookup_elem(&napi_totals, &slot);

	if (total)
		add_poll(total, work, exhausted);
}

/* As drop_netns_salt() of netif_rx_drops.bpf.c. */
static __always_inline __u32 napi_netns_salt(struct net_device *dev, __u32 netns_inum)
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

/* A device's first poll on any CPU. The daemon names devices from its own
 * view of them (the data families' series), so no name is recorded here. */
static __noinline int count_new_entry(struct netif_rx_device_key *key, __u64 work, __u64 exhausted)
{
	struct netif_rx_napi_counters first = {.polls = 1, .packets = work, .exhausted = exhausted};
	struct netif_rx_napi_counters *counters;
	int err; /* the low 32 bits: before 6.4 the helper's int is zero-extended */

	err = bpf_map_update_elem(&napi_counters, key, &first, BPF_NOEXIST);
	if (err == 0)
		return 0;
	if (err != -EEXIST)
		return -1;
	/* Created on another CPU meanwhile: this CPU's value is there, 0. */
	counters = bpf_map_lookup_elem(&napi_counters, key);
	if (!counters)
		return -1;
	add_poll(counters, work, exhausted);
	return 0;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(netif_rx_napi, struct napi_struct *napi, int work, int budget)
{
	struct netif_rx_device_key key = {};
	struct netif_rx_napi_counters *counters;
	struct net_device *dev;
	__u64 done = work > 0 ? (__u64)work : 0;
	__u64 exhausted = budget > 0 && work >= budget;

	/* BTF-typed loads (tp_btf): a NULL device reads as 0. */
	dev = napi->dev;
	if (!dev) {
		add_total(NETIF_RX_NAPI_SLOT_BACKLOG, done, exhausted);
		return 0;
	}
	key.netns_inum = dev->nd_net.net->ns.inum;
	if (!count_all_namespaces && key.netns_inum != host_netns_inum)
		return 0;
	key.ifindex = dev->ifindex;
	if (key.ifindex == 0 || key.netns_inum == 0)
		return 0;
	key.netns_salt = napi_netns_salt(dev, key.netns_inum);
	counters = bpf_map_lookup_elem(&napi_counters, &key);
	if (counters) {
		add_poll(counters, done, exhausted);
		return 0;
	}
	if (count_new_entry(&key, done, exhausted) < 0)
		add_total(NETIF_RX_NAPI_SLOT_UNTRACKED, done, exhausted);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tests only: what a handover may bring between the runs of two counting
 * programs for one event, made certain. Attached after the old program and
 * before the new one, on the first event of one device once armed, it
 * - writes the control map's entry (as a handover writes it): the old program
 *   has counted that event with the old generation, the new one sees its own;
 * - or forges the mark the old program leaves on an event it counts (see
 *   claim_event() in bpf/netif_rx.bpf.c), as if it had counted an earlier
 *   event whose skb had this event's address.
 */
#include "../../../bpf/vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../../../bpf/netif_rx.h"

/* The device whose event it acts in. */
const volatile __u32 netns_inum = 0;
const volatile int ifindex = 0;

/* The probe's control map and totals, reused from the pins. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct netif_rx_control);
} probe_control SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_PROBE_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} probe_totals SEC(".maps");

struct flip_state {
	struct netif_rx_control to; /* the entry to write; generation 0: not armed */
	__u64 forge;		    /* 1 + the parity of the mark to forge; 0: not armed */
	__u64 flips;		    /* events that wrote the entry (two CPUs may both) */
	__u64 forges;		    /* events that got a forged mark */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flip_state);
} flip SEC(".maps");

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(flip_between, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct netif_rx_control *control;
	struct netif_rx_counters *total;
	struct flip_state *state;
	__u32 slot = NETIF_RX_SLOT_COUNTED;
	__u32 key = 0;

	if (dev->ifindex != ifindex || dev->nd_net.net->ns.inum != netns_inum)
		return 0;
	state = bpf_map_lookup_elem(&flip, &key);
	control = bpf_map_lookup_elem(&probe_control, &key);
	total = bpf_map_lookup_elem(&probe_totals, &slot);
	if (!state || !control || !total)
		return 0;
	if (state->to.generation != 0) {
		control->counting_since_ns = state->to.counting_since_ns;
		control->generation = state->to.generation;
		state->to.generation = 0;
		__sync_fetch_and_add(&state->flips, 1);
	}
	if (state->forge != 0) {
		total->bytes = state->forge == 2 ? (__u64)((const char *)skb + 1) : (__u64)skb;
		state->forge = 0;
		__sync_fetch_and_add(&state->forges, 1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

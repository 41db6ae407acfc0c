// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counts received packets per (network namespace, ifindex) and per CPU at the
 * tracepoint net:netif_receive_skb.
 *
 * Two twins of the same program: `netif_rx_btf` (tp_btf, needs no tracefs) is
 * preferred; `netif_rx_tp` (classic tracepoint) is the fallback that the daemon
 * enables at load time on kernels without BTF-typed tracepoints.
 *
 * Hot path, a device of the exporter's own namespace: one lookup in the
 * per-CPU array `host_counters` indexed by ifindex (no hashing; the kernel
 * inlines it since 6.10) and two increments, plus the probe's own total (slot
 * NETIF_RX_SLOT_COUNTED of `probe_totals`, also an inlined array
 * lookup). Other namespaces, and an ifindex beyond the array, take the per-CPU
 * hash `device_counters` keyed by (netns, ifindex, netns salt): a device's first packet
 * records its name (other namespaces) and inserts its entry; if a map is full
 * the packet is counted as untracked, so nothing is lost silently, and the
 * device's next packet tries again.
 *
 * A slot of the array is zeroed by the daemon when its device is deleted,
 * only after the kernel announced the deletion (RTM_DELLINK): the kernel
 * sends it after closing the device and after synchronize_net(), so no run of
 * this program for that device is in flight or can start later, and the
 * daemon's write never races with an increment of the device it clears.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "netif_rx.h"

#define E2BIG 7
#define EEXIST 17

/* Set by the daemon before load; frozen afterwards, so the verifier prunes
 * the branch that does not apply. */
const volatile __u32 host_netns_inum = 0;
const volatile bool count_all_namespaces = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_DEFAULT_MAX_DEVICES); /* resized by the daemon */
	__type(key, struct netif_rx_device_key);
	__type(value, struct netif_rx_counters);
} device_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_DEFAULT_MAX_DEVICES); /* resized by the daemon */
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} host_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NETIF_RX_DEFAULT_MAX_DEVICES); /* same as device_counters */
	__type(key, struct netif_rx_device_key);
	__type(value, struct netif_rx_device_name);
} device_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_PROBE_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} probe_totals SEC(".maps");

static __always_inline void add_to_slot(__u32 slot, __u32 len)
{
	struct netif_rx_counters *counters = bpf_map_lookup_elem(&probe_totals, &slot);

	if (counters) {
		counters->packets++;
		counters->bytes += len;
	}
}

static __always_inline void add_to_counted_total(void)
{
	__u32 slot = NETIF_RX_SLOT_COUNTED;
	struct netif_rx_counters *total = bpf_map_lookup_elem(&probe_totals, &slot);

	if (total)
		total->packets++;
}

/* Records the name of a device of another namespace. Returns 1 when this call
 * inserted it, 0 when it was there already, -1 when the map is full. */
static __always_inline int record_name(struct netif_rx_device_key *key, struct net_device *dev)
{
	struct netif_rx_device_name name = {};
	long err;

	bpf_probe_read_kernel_str(name.name, sizeof(name.name), &dev->name);
	err = bpf_map_update_elem(&device_names, key, &name, BPF_NOEXIST);
	if (err == 0)
		return 1;
	return err == -EEXIST ? 0 : -1;
}

/* First packet of a device on this CPU: create its entry, or count the packet
 * as untracked when a map is full (the next packet tries again). Off the hot
 * path. Devices of another namespace get their name recorded first, so that
 * no entry ever exists without a name. */
static __noinline int count_new_device(struct netif_rx_device_key *key, struct net_device *dev,
				       __u32 len)
{
	struct netif_rx_counters first = {.packets = 1, .bytes = len};
	struct netif_rx_counters *counters;
	int named = 0;
	long err;

	if (key->netns_inum != host_netns_inum) {
		named = record_name(key, dev);
		if (named < 0)
			goto untracked;
	}
	err = bpf_map_update_elem(&device_counters, key, &first, BPF_NOEXIST);
	if (err == 0)
		return 0;
	if (err == -EEXIST) {
		/* Another CPU created it between our lookup and our insert. */
		counters = bpf_map_lookup_elem(&device_counters, key);
		if (counters) {
			counters->packets++;
			counters->bytes += len;
			return 0;
		}
	}
	if (named > 0)
		bpf_map_delete_elem(&device_names, key); /* no entry to name */
untracked:
	add_to_slot(NETIF_RX_SLOT_UNTRACKED, len);
	return 0;
}

/* The salt of the device's namespace (see struct netif_rx_device_key): its
 * hash_mix, 0 where the kernel has none (before 5.1). Read on the hash path
 * only: the array path of the own namespace loads nothing more. `typed`
 * (constant once inlined) picks the twin's way of reading: direct access
 * (tp_btf) or probe reads (classic tracepoint). */
static __always_inline __u32 netns_salt(struct net_device *dev, bool typed)
{
	if (!bpf_core_field_exists(dev->nd_net.net->hash_mix))
		return 0;
	if (typed)
		return dev->nd_net.net->hash_mix;
	return BPF_CORE_READ(dev, nd_net.net, hash_mix);
}

/* A device of another namespace, or of an ifindex beyond the array. */
static __always_inline int count_in_hash(__u32 netns_inum, __u32 ifindex, __u32 len,
					 struct net_device *dev, bool typed)
{
	struct netif_rx_device_key key = {.netns_inum = netns_inum, .ifindex = ifindex};
	struct netif_rx_counters *counters;

	/* The own namespace outlives the probe: salt 0, one key form with the
	 * array's slots. */
	if (netns_inum != host_netns_inum)
		key.netns_salt = netns_salt(dev, typed);
	counters = bpf_map_lookup_elem(&device_counters, &key);
	if (counters) {
		counters->packets++;
		counters->bytes += len;
		return 0;
	}
	return count_new_device(&key, dev, len);
}

static __always_inline int count_packet(__u32 netns_inum, __u32 ifindex, __u32 len,
					struct net_device *dev, bool typed)
{
	struct netif_rx_counters *counters;
	bool own_namespace = netns_inum == host_netns_inum;

	if (!own_namespace && !count_all_namespaces)
		return 0;

	/* The probe's own total of both layouts, so that "exported + untracked +
	 * removed" can be checked against it: packets only (the invariant is
	 * about packets), one increment less on the hot path. */
	add_to_counted_total();
	if (own_namespace) {
		/* NULL when ifindex is beyond the array: the hash takes it. */
		counters = bpf_map_lookup_elem(&host_counters, &ifindex);
		if (counters) {
			counters->packets++;
			counters->bytes += len;
			return 0;
		}
	}
	return count_in_hash(netns_inum, ifindex, len, dev, typed);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(netif_rx_btf, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	return count_packet(dev->nd_net.net->ns.inum, dev->ifindex, skb->len, dev, true);
}

SEC("tracepoint/net/netif_receive_skb")
int netif_rx_tp(struct trace_event_raw_net_dev_template *ctx)
{
	struct sk_buff *skb = ctx->skbaddr;
	struct net_device *dev = BPF_CORE_READ(skb, dev);

	return count_packet(BPF_CORE_READ(dev, nd_net.net, ns.inum), BPF_CORE_READ(dev, ifindex),
			    ctx->len, dev, false);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

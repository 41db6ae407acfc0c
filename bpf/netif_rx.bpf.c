// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counts received packets per (network namespace, ifindex) and per CPU at the
 * tracepoint net:netif_receive_skb.
 *
 * Two twins of the same program: `netif_rx_btf` (tp_btf, needs no tracefs) is
 * preferred; `netif_rx_tp` (classic tracepoint) is the fallback that the daemon
 * enables at load time on kernels without BTF-typed tracepoints.
 *
 * Hot path, a linear skb (never an aggregate) of a device of the exporter's
 * own namespace: one lookup in the per-CPU array `host_counters` indexed by
 * ifindex (no hashing; the kernel inlines it since 6.10) and two increments,
 * plus the probe's own total (slot NETIF_RX_SLOT_COUNTED of `probe_totals`,
 * also an inlined array lookup). A non-linear skb leaves the hot path: if
 * its shared info says it is an aggregate (gso_size set), it is counted as
 * the packets it carries (see measure_aggregate()). Other namespaces, and an ifindex beyond the
 * array, take the per-CPU hash `device_counters` keyed by (netns, ifindex, netns salt): a device's
 * first packet records its name (other namespaces) and inserts its entry; if a map is full the
 * packet is counted as untracked, so nothing is lost silently, and the device's next packet tries
 * again.
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
#include <bpf/bpf_endian.h>
#include "netif_rx.h"

#define E2BIG 7
#define EEXIST 17
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define GSO_BY_FRAGS 0xFFFF

/* What one event carries: the skb's bytes and, for an aggregate, the packets
 * beyond the first and their header sets, which merging dropped. */
struct arrival {
	__u64 bytes;
	__u32 merged_packets;
};

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

/* Adds one event to `counters`. `arrival->merged_packets` is a constant 0
 * on the hot path (linear skbs): then the compiler drops its increment. */
static __always_inline void add_arrival(struct netif_rx_counters *counters,
					const struct arrival *arrival)
{
	counters->skbs++;
	if (arrival->merged_packets)
		counters->merged_packets += arrival->merged_packets;
	counters->bytes += arrival->bytes;
}

static __always_inline void add_to_slot(__u32 slot, const struct arrival *arrival)
{
	struct netif_rx_counters *counters = bpf_map_lookup_elem(&probe_totals, &slot);

	if (counters)
		add_arrival(counters, arrival);
}

/* The probe's own total: skbs and packets, no bytes (the invariant is about
 * packets), one increment less on the hot path. */
static __always_inline void add_to_counted_total(const struct arrival *arrival)
{
	__u32 slot = NETIF_RX_SLOT_COUNTED;
	struct netif_rx_counters *total = bpf_map_lookup_elem(&probe_totals, &slot);

	if (!total)
		return;
	total->skbs++;
	if (arrival->merged_packets)
		total->merged_packets += arrival->merged_packets;
}

/* An aggregate whose packets could not be counted exactly (slot: why). */
static __always_inline void count_fallback(__u32 slot)
{
	struct netif_rx_counters *counters = bpf_map_lookup_elem(&probe_totals, &slot);

	if (counters)
		counters->skbs++;
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
				       __u64 bytes, __u32 merged_packets)
{
	const struct arrival arrival = {.bytes = bytes, .merged_packets = merged_packets};
	struct netif_rx_counters first = {
	    .skbs = 1, .merged_packets = merged_packets, .bytes = bytes};
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
			add_arrival(counters, &arrival);
			return 0;
		}
	}
	if (named > 0)
		bpf_map_delete_elem(&device_names, key); /* no entry to name */
untracked:
	add_to_slot(NETIF_RX_SLOT_UNTRACKED, &arrival);
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
static __always_inline int count_in_hash(__u32 netns_inum, __u32 ifindex,
					 const struct arrival *arrival, struct net_device *dev,
					 bool typed)
{
	struct netif_rx_device_key key = {.netns_inum = netns_inum, .ifindex = ifindex};
	struct netif_rx_counters *counters;

	/* The own namespace outlives the probe: salt 0, one key form with the
	 * array's slots. */
	if (netns_inum != host_netns_inum)
		key.netns_salt = netns_salt(dev, typed);
	counters = bpf_map_lookup_elem(&device_counters, &key);
	if (counters) {
		add_arrival(counters, arrival);
		return 0;
	}
	return count_new_device(&key, dev, arrival->bytes, arrival->merged_packets);
}

static __always_inline int count_packet(__u32 netns_inum, __u32 ifindex,
					const struct arrival *arrival, struct net_device *dev,
					bool typed)
{
	struct netif_rx_counters *counters;
	bool own_namespace = netns_inum == host_netns_inum;

	if (!own_namespace && !count_all_namespaces)
		return 0;

	/* The probe's own total of both layouts, so that "exported + untracked +
	 * removed" can be checked against it. */
	add_to_counted_total(arrival);
	if (own_namespace) {
		/* NULL when ifindex is beyond the array: the hash takes it. */
		counters = bpf_map_lookup_elem(&host_counters, &ifindex);
		if (counters) {
			add_arrival(counters, arrival);
			return 0;
		}
	}
	return count_in_hash(netns_inum, ifindex, arrival, dev, typed);
}

/* Bytes of the network and transport headers that each packet of an
 * aggregate carried (IPv4 with options or IPv6, then TCP with options or
 * UDP), read at skb->data (the network header at this tracepoint); 0 when
 * the probe cannot tell (another protocol, IPv6 extension headers, headers
 * outside the linear area, a read that failed). */
static __always_inline __u32 header_length(struct sk_buff *skb)
{
	unsigned char *data = BPF_CORE_READ(skb, data);
	__u32 linear = BPF_CORE_READ(skb, len) - BPF_CORE_READ(skb, data_len);
	__u16 protocol = BPF_CORE_READ(skb, protocol);
	__u8 network[40];
	__u8 transport_protocol;
	__u8 tcp_offset;
	__u32 l3, l4;

	if (bpf_probe_read_kernel(network, sizeof(network), data))
		return 0;
	if (protocol == bpf_htons(ETH_P_IP)) {
		if (network[0] >> 4 != 4)
			return 0;
		l3 = (network[0] & 0xf) * 4;
		transport_protocol = network[9];
		if (l3 < 20)
			return 0;
	} else if (protocol == bpf_htons(ETH_P_IPV6)) {
		l3 = 40;
		transport_protocol = network[6];
	} else {
		return 0;
	}
	if (transport_protocol == IPPROTO_TCP) {
		if (bpf_probe_read_kernel(&tcp_offset, 1, data + l3 + 12))
			return 0;
		l4 = (tcp_offset >> 4) * 4;
		if (l4 < 20)
			return 0;
	} else if (transport_protocol == IPPROTO_UDP) {
		l4 = 8;
	} else {
		return 0;
	}
	if (l3 + l4 > linear)
		return 0;
	return l3 + l4;
}

/* A non-linear skb: an aggregate when its shared info has gso_size set.
 * Fills `arrival` with the packets it carries: gso_segs, or where the
 * driver left that 0 (virtio-net and tun offload frames, hardware LRO) the
 * payload over gso_size rounded up, as the kernel computes it for qdisc
 * accounting (qdisc_pkt_len_init); and adds to the bytes the header sets
 * that merging dropped. What it cannot count exactly counts 1 packet, and
 * in a fallback slot of `probe_totals`. */
static __noinline void measure_aggregate(struct sk_buff *skb, struct arrival *arrival)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	struct skb_shared_info *shinfo = (void *)(head + BPF_CORE_READ(skb, end));
	__u16 gso_size = BPF_CORE_READ(shinfo, gso_size);
	__u32 gso_segs, headers, payload;

	if (gso_size == 0)
		return; /* one packet in pages */
	if (gso_size == GSO_BY_FRAGS) {
		count_fallback(NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS);
		return;
	}
	gso_segs = BPF_CORE_READ(shinfo, gso_segs);
	headers = header_length(skb);
	if (headers == 0) {
		if (gso_segs > 1)
			arrival->merged_packets = gso_segs - 1;
		count_fallback(gso_segs ? NETIF_RX_SLOT_FALLBACK_HEADERS
					: NETIF_RX_SLOT_FALLBACK_UNPARSED);
		return;
	}
	if (gso_segs == 0) {
		if (arrival->bytes <= headers) {
			count_fallback(NETIF_RX_SLOT_FALLBACK_UNPARSED);
			return;
		}
		payload = arrival->bytes - headers;
		gso_segs = (payload + gso_size - 1) / gso_size;
	}
	if (gso_segs < 2)
		return;
	arrival->merged_packets = gso_segs - 1;
	arrival->bytes += (__u64)(gso_segs - 1) * headers;
}

/* A non-linear skb, measured first; off the hot path, one instance per twin
 * (`typed` is a constant in each). */
static __always_inline int count_nonlinear(struct sk_buff *skb, __u32 len, __u32 netns_inum,
					   __u32 ifindex, struct net_device *dev, bool typed)
{
	struct arrival arrival = {.bytes = len, .merged_packets = 0};

	measure_aggregate(skb, &arrival);
	return count_packet(netns_inum, ifindex, &arrival, dev, typed);
}

/* A linear skb is never an aggregate: the hot path, with merged_packets a
 * constant 0, so that it costs one load and one branch (data_len) more than
 * counting one packet per event. */
static __always_inline int count_linear(__u32 len, __u32 netns_inum, __u32 ifindex,
					struct net_device *dev, bool typed)
{
	struct arrival arrival = {.bytes = len, .merged_packets = 0};

	return count_packet(netns_inum, ifindex, &arrival, dev, typed);
}

static __noinline int count_nonlinear_btf(struct sk_buff *skb, __u32 len, __u32 netns_inum,
					  __u32 ifindex, struct net_device *dev)
{
	return count_nonlinear(skb, len, netns_inum, ifindex, dev, true);
}

static __noinline int count_nonlinear_tp(struct sk_buff *skb, __u32 len, __u32 netns_inum,
					 __u32 ifindex, struct net_device *dev)
{
	return count_nonlinear(skb, len, netns_inum, ifindex, dev, false);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(netif_rx_btf, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	__u32 netns_inum = dev->nd_net.net->ns.inum;

	if (skb->data_len)
		return count_nonlinear_btf(skb, skb->len, netns_inum, dev->ifindex, dev);
	return count_linear(skb->len, netns_inum, dev->ifindex, dev, true);
}

SEC("tracepoint/net/netif_receive_skb")
int netif_rx_tp(struct trace_event_raw_net_dev_template *ctx)
{
	struct sk_buff *skb = ctx->skbaddr;
	struct net_device *dev = BPF_CORE_READ(skb, dev);
	__u32 netns_inum = BPF_CORE_READ(dev, nd_net.net, ns.inum);

	if (BPF_CORE_READ(skb, data_len))
		return count_nonlinear_tp(skb, ctx->len, netns_inum, BPF_CORE_READ(dev, ifindex),
					  dev);
	return count_linear(ctx->len, netns_inum, BPF_CORE_READ(dev, ifindex), dev, false);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

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
 * also an inlined array lookup, by a key in .rodata). The gate (whether this
 * program counts) reads the control entry in place, without a lookup (see
 * probe_control). The own namespace's path is inlined apart from the other
 * namespaces' (count_event_btf()): it tests the namespace once and keeps no
 * register for it. An skb that may be an aggregate (non-linear,
 * or longer than the MTU) leaves the hot path: if its shared info says it is
 * one (gso_size set), it is counted as the packets it carries (see
 * measure_aggregate()). An event that may not be a packet arriving at its
 * device (looped back, or carrying an skb extension such as IPsec's sec path)
 * leaves it too, for not_an_arrival(). Beyond counting the event, the hot
 * path reads and tests only this: the arrival test, one 4-byte load and one
 * branch (may_not_be_an_arrival()); the aggregate test, data_len and the
 * MTU (may_be_aggregate()); and the queue and steering test, two loads
 * (queue_mapping, alloc_cpu), the CPU number and two branches, no map for an
 * skb without a recorded queue built on its CPU (see count_route()). Its
 * rule: whatever is added to it costs at most one load and one branch for a
 * plain skb (the queue and steering test: two loads); everything else is off
 * the hot path, in a __noinline function reached only through such a test.
 *
 * Other namespaces, and an ifindex beyond the array, take the per-CPU hash `device_counters` keyed
 * by (netns, ifindex, netns salt): a device's first packet records its name (other namespaces) and
 * inserts its entry; if a map is full the packet is counted as untracked, so nothing is lost
 * silently, and the device's next packet tries again.
 *
 * A namespace the daemon placed has a block of slots in the per-CPU array
 * `netns_slots`: its devices (ifindex below the block's size) are counted
 * there after one lookup in the direct-mapped table `netns_table` (both
 * inlined array lookups) instead of hashing a key. The first packet of a
 * slot on a CPU records the device's name (a full name map: untracked).
 * The daemon zeroes a block before it publishes its table entry, and after
 * it emptied the entry waits a poll and an RCU grace period before it reads
 * the block's last counts and frees it, so that no run of this program that read the old entry is
 * still writing (see daemon/probe/netns_blocks.h).
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
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define GSO_BY_FRAGS 0xFFFF
#define PACKET_LOOPBACK 5
/* gso_type bits of an aggregate of encapsulated packets (SKB_GSO_GRE,
 * _GRE_CSUM, _IPXIP4, _IPXIP6, _UDP_TUNNEL, _UDP_TUNNEL_CSUM: bits 6-11 on
 * every kernel since 4.x): GRO set their inner headers' offsets. */
#define SKB_GSO_TUNNELS 0xFC0

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
/* Queues and steering are counted (see count_route()). The benchmark builds
 * the probe a second time without them (NETIF_RX_WITHOUT_ROUTES) to measure
 * what they cost the hot path: a constant, so that the hot path tests
 * nothing for it. */
#ifdef NETIF_RX_WITHOUT_ROUTES
static const bool count_routes = false;
#else
static const bool count_routes = true;
#endif
/* This program's generation: it counts only while the control map's entry
 * says so (see struct netif_rx_control). */
const volatile __u64 generation = 0;

/* The control entry (layout-stable: see struct netif_rx_control), the one
 * variable of its section: the section is an array map of one entry, which
 * the program reads in place (the kernel gives its value's address at load),
 * without a lookup. The daemon hands the object the control map it keeps
 * (bpf_map__reuse_fd), so that every program of every exporter reads the
 * same entry; volatile: the daemon writes it while programs run. */
volatile struct netif_rx_control probe_control SEC(".data.control");

/* Whether this program is the one that counts: an exporter attaches its
 * program before it hands the counting over, and retires the old one after,
 * so that one counts each event (see claim_event() for the event whose two
 * runs straddle the handover). */
static __always_inline bool counting(void) { return probe_control.generation == generation; }

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

/* The blocks of other namespaces (see struct netif_rx_netns_block). Set by
 * the daemon before load; netns_blocks 0: none, the hash counts them all. */
const volatile __u32 netns_blocks = 0;
const volatile __u32 netns_block_slots = 0;
const volatile __u32 netns_table_mask = 0; /* entries of netns_table - 1, a power of two */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized by the daemon */
	__type(key, __u32);
	__type(value, struct netif_rx_netns_block);
} netns_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* resized by the daemon: blocks x slots */
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} netns_slots SEC(".maps");

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

/* The counted totals of the program this one takes the counting over from,
 * where that program leaves its handover mark (see claim_event()): the
 * adopted probe's `probe_totals` (this one's own, same layout) or the
 * previous layout's, of the same shape. Its one entry is set by the daemon
 * for the handover and emptied after it; never pinned. */
struct totals_of_old_program {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_PROBE_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct totals_of_old_program);
} handover_totals SEC(".maps");

/* The counts an exporter carried over from a probe of another layout
 * (NETIF_RX_PIN_LAYOUT): per device, keyed and valued as `device_counters`,
 * and the totals, slotted as `probe_totals`. Written and read by the daemon
 * only, never by these programs: a device's count is its entries here and in
 * the counting maps summed. Pinned with the layout's other maps. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_DEFAULT_MAX_DEVICES); /* same as device_counters */
	__uint(map_flags, BPF_F_NO_PREALLOC);		   /* empty but after a layout change */
	__type(key, struct netif_rx_device_key);
	__type(value, struct netif_rx_counters);
} carried_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_PROBE_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, struct netif_rx_counters);
} carried_totals SEC(".maps");

/* Packets by RX queue and steered packets (see struct netif_rx_queue_slot
 * and the keys beside it in netif_rx.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NETIF_RX_QUEUE_SLOTS); /* resized by the daemon: x possible CPUs */
	__type(key, __u32);
	__type(value, struct netif_rx_queue_slot);
} queue_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_MAX_QUEUE_ENTRIES);
	__type(key, struct netif_rx_queue_key);
	__type(value, __u64);
} queue_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NETIF_RX_MAX_STEER_ENTRIES);
	__type(key, struct netif_rx_steer_key);
	__type(value, __u64);
} steer_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NETIF_RX_ROUTE_TOTALS_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} route_totals SEC(".maps");

#ifdef NETIF_RX_NEXT_LAYOUT_TEST
/* The test build's layout change: a map no earlier layout has. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} next_layout_test SEC(".maps");
#endif

/* Constant keys, in .rodata: a lookup by one stores nothing on the stack.
 * The counted total's slot of `probe_totals`, and the one entry of
 * `handover_totals`. */
static const __u32 counted_slot = NETIF_RX_SLOT_COUNTED;
static const __u32 first_entry = 0;

/* Adds one event to `counters`. `arrival->merged_packets` is a constant 0
 * on the hot path (an skb that cannot be an aggregate): then the compiler
 * drops its increment. */
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
 * packets), one increment less on the hot path. `total` is claim_event()'s. */
static __always_inline void add_to_counted_total(struct netif_rx_counters *total,
						 const struct arrival *arrival)
{
	total->skbs++;
	if (arrival->merged_packets)
		total->merged_packets += arrival->merged_packets;
}

/* The handover's mark: the event (its skb's address, 8-byte aligned) that
 * this CPU's counting program counted last while a handover was on, plus
 * the parity of that program's generation, or 0; kept in the `bytes` word
 * of the counted total's per-CPU slot, which the probe counts nothing in.
 *
 * For a moment during a handover two programs are attached, the old one
 * first, and the kernel runs them in that order for each event. If the
 * control map's write lands between the two runs of one event, the old
 * program saw its generation and counted the event, and the new one sees
 * its own: it finds the old one's mark of this very event and leaves it.
 * The opposite (an event that neither counts) cannot happen in that order.
 * Successive generations differ by one, so the two programs of a handover
 * have different parities.
 *
 * The old program marks in its own `probe_totals`, which this program reads
 * through `handover_totals`: between two layouts too.
 *
 * Marks are written, and trusted, only while the control entry says
 * NETIF_RX_CONTROL_HANDOVER. The daemon sets the flag first, beside the old
 * generation, and writes the new generation only after an RCU grace period
 * (continuity/probe_handover.cpp): both runs of one event are within one
 * read-side section of the tracepoint, so when the new program's run sees
 * the new generation, the old program's run of the same event saw the
 * flag, and marked the event (counting) or cleared the mark (not counting).
 * The new program therefore never meets a mark older than the event, such
 * as one left on a CPU that received nothing since, for an skb whose
 * address the allocator gives the next packet again. Outside a handover
 * nothing is marked: the hot path stores nothing for it.
 *
 * Claims the event for this program: returns the counted total's slot, or
 * NULL when the program that ran just before this one for the same event
 * counted it (its mark: this event, the other parity). */
static __always_inline struct netif_rx_counters *claim_in_handover(const void *event,
								   struct netif_rx_counters *total)
{
	/* Pointer arithmetic, not bit operations: the verifier lets a privileged
	 * program store and compare a pointer, not mask it. */
	__u64 parity = generation & 1;
	const char *mine = (const char *)event + parity;
	const char *other = (const char *)event + (parity ^ 1);
	struct netif_rx_counters *old_total = NULL;
	void *old_totals = bpf_map_lookup_elem(&handover_totals, &first_entry);

	if (old_totals)
		old_total = bpf_map_lookup_elem(old_totals, &counted_slot);
	if (old_total && old_total->bytes == (__u64)other) {
		old_total->bytes = 0; /* counted once, by the other one */
		return NULL;
	}
	total->bytes = (__u64)mine;
	return total;
}

/* The counted total's slot of this CPU for the event, or NULL when it is
 * not this program's to count (see claim_in_handover(); outside a handover
 * every event is). */
static __always_inline struct netif_rx_counters *claim_event(const void *event)
{
	struct netif_rx_counters *total = bpf_map_lookup_elem(&probe_totals, &counted_slot);

	if (!total)
		return NULL;
	if (probe_control.counting_since_ns & NETIF_RX_CONTROL_HANDOVER)
		return claim_in_handover(event, total);
	return total;
}

/* A program that does not count (before its handover, or after it handed
 * over) clears the mark; see claim_event(). */
static __always_inline void clear_event_mark(void)
{
	struct netif_rx_counters *total = bpf_map_lookup_elem(&probe_totals, &counted_slot);

	if (total && total->bytes)
		total->bytes = 0;
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
	/* An int: before 6.4 the map's update returns an int that reaches the
	 * program zero-extended (-EEXIST as 4294967279), so only its low 32
	 * bits are compared. */
	int err;

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
	int err; /* the low 32 bits: see record_name() */

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

/* The salt of the device's namespace (see struct netif_rx_device_key): the
 * low 32 bits of its net_cookie where the kernel assigns it at namespace
 * setup (Linux >= 5.12; never reused within a boot), else its hash_mix
 * (5.1-5.11), else 0. Read on the hash path only: the array path of the own
 * namespace loads nothing more. `typed` (constant once inlined) picks the
 * twin's way of reading: direct access (tp_btf) or probe reads (classic
 * tracepoint). */
static __always_inline __u32 netns_salt(struct net_device *dev, bool typed)
{
	/* An 8-byte integer: CO-RE matches an integer field of any size. */
	if (bpf_core_field_exists(dev->nd_net.net->net_cookie) &&
	    bpf_core_field_size(dev->nd_net.net->net_cookie) == 8) {
		if (typed)
			return (__u32)dev->nd_net.net->net_cookie;
		return (__u32)BPF_CORE_READ(dev, nd_net.net, net_cookie);
	}
	if (!bpf_core_field_exists(dev->nd_net.net->hash_mix))
		return 0;
	if (typed)
		return dev->nd_net.net->hash_mix;
	return BPF_CORE_READ(dev, nd_net.net, hash_mix);
}

/* Records the name of a device whose slot counts its first packet on this
 * CPU. Returns -1 when the name map is full. Off the hot path. */
static __noinline int record_slot_name(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
				       struct net_device *dev)
{
	struct netif_rx_device_key key = {
	    .netns_inum = netns_inum, .ifindex = ifindex, .netns_salt = netns_salt};

	return record_name(&key, dev) < 0 ? -1 : 0;
}

/* A device of a placed namespace: counted in its block's slot. False when
 * the namespace has no block (or another namespace holds its table entry)
 * or the ifindex is beyond the block: the hash takes it. */
static __always_inline bool count_in_block(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
					   const struct arrival *arrival, struct net_device *dev)
{
	__u32 entry_index = netns_inum & netns_table_mask;
	struct netif_rx_netns_block *entry;
	struct netif_rx_counters *counters;
	__u32 block, slot;

	if (netns_blocks == 0 || ifindex >= netns_block_slots)
		return false;
	entry = bpf_map_lookup_elem(&netns_table, &entry_index);
	if (!entry || entry->netns_inum != netns_inum || entry->netns_salt != netns_salt)
		return false;
	block = *(volatile __u32 *)&entry->block;
	if (block >= netns_blocks || *(volatile __u32 *)&entry->check !=
					 netif_rx_netns_block_check(netns_inum, netns_salt, block))
		return false; /* empty, or read while it was being written */
	slot = block * netns_block_slots + ifindex;
	counters = bpf_map_lookup_elem(&netns_slots, &slot);
	if (!counters)
		return false;
	if (counters->skbs == 0 && record_slot_name(netns_inum, netns_salt, ifindex, dev) < 0) {
		add_to_slot(NETIF_RX_SLOT_UNTRACKED, arrival);
		return true;
	}
	add_arrival(counters, arrival);
	return true;
}

/* A device of another namespace, or of an ifindex beyond the array. */
static __always_inline int count_in_hash(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
					 const struct arrival *arrival, struct net_device *dev)
{
	struct netif_rx_device_key key = {
	    .netns_inum = netns_inum, .ifindex = ifindex, .netns_salt = netns_salt};
	struct netif_rx_counters *counters;

	counters = bpf_map_lookup_elem(&device_counters, &key);
	if (counters) {
		add_arrival(counters, arrival);
		return 0;
	}
	return count_new_device(&key, dev, arrival->bytes, arrival->merged_packets);
}

/* The namespace's inode number where a path off the hot one needs it: for
 * the own namespace (`own`, a constant once inlined) read again from
 * .rodata there, so that the hot path keeps no register for it. */
static __always_inline __u32 namespace_inum(bool own, __u32 netns_inum)
{
	return own ? host_netns_inum : netns_inum;
}

/* Counts an event on its device: its slot, its block's slot or its hash
 * entry, or the untracked total. `own`: the device is of the exporter's
 * namespace (netns_inum is host_netns_inum), a constant once inlined. */
static __always_inline void count_on_device(bool own, __u32 netns_inum, __u32 ifindex,
					    const struct arrival *arrival, struct net_device *dev,
					    bool typed)
{
	struct netif_rx_counters *counters;
	__u32 salt;

	if (own) {
		/* NULL when ifindex is beyond the array: the hash takes it. The
		 * own namespace outlives the probe: salt 0, one key form with
		 * the array's slots. */
		counters = bpf_map_lookup_elem(&host_counters, &ifindex);
		if (counters) {
			add_arrival(counters, arrival);
			return;
		}
		count_in_hash(namespace_inum(own, netns_inum), 0, ifindex, arrival, dev);
		return;
	}
	salt = netns_salt(dev, typed);
	if (count_in_block(netns_inum, salt, ifindex, arrival, dev))
		return;
	count_in_hash(netns_inum, salt, ifindex, arrival, dev);
}

/* Adds `packets` to `key`'s entry of a per-CPU hash of packets, creating it
 * (this CPU's value set, the others 0); when the map is full, to the
 * route_totals slot `full_slot` instead. */
static __always_inline void add_to_route_hash(void *map, const void *key, __u64 packets,
					      __u32 full_slot)
{
	__u64 *counter = bpf_map_lookup_elem(map, key);
	int err; /* the low 32 bits: see record_name() */

	if (counter) {
		*counter += packets;
		return;
	}
	err = bpf_map_update_elem(map, key, &packets, BPF_NOEXIST);
	if (err == 0)
		return;
	if (err == -EEXIST) {
		counter = bpf_map_lookup_elem(map, key);
		if (counter) {
			*counter += packets;
			return;
		}
	}
	counter = bpf_map_lookup_elem(&route_totals, &full_slot);
	if (counter)
		*counter += packets;
}

/* A queue whose slot another one holds, or of another namespace. */
static __noinline void count_queue_in_hash(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
					   __u32 queue, __u64 packets)
{
	struct netif_rx_queue_key key = {
	    .netns_inum = netns_inum, .ifindex = ifindex, .netns_salt = netns_salt, .queue = queue};

	add_to_route_hash(&queue_counters, &key, packets, NETIF_RX_ROUTE_SLOT_QUEUE_UNTRACKED);
}

/* Packets processed on `cpu` that another CPU built. */
static __noinline void count_steered(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
				     __u32 from_cpu, __u64 packets)
{
	struct netif_rx_steer_key key = {.netns_inum = netns_inum,
					 .ifindex = ifindex,
					 .netns_salt = netns_salt,
					 .from_cpu = from_cpu};

	add_to_route_hash(&steer_counters, &key, packets, NETIF_RX_ROUTE_SLOT_STEER_UNTRACKED);
}

/* Packets of a recorded queue on this CPU: in the CPU's slot of the queue
 * (own namespace), taking it when it is empty; else in the hash. */
static __noinline void count_queue(__u32 netns_inum, __u32 netns_salt, __u32 ifindex,
				   __u32 queue_mapping, __u64 packets)
{
	__u32 index = bpf_get_smp_processor_id() * NETIF_RX_QUEUE_SLOTS +
		      netif_rx_queue_slot_index(ifindex, queue_mapping);
	struct netif_rx_queue_slot *slot;

	if (netns_inum == host_netns_inum) {
		slot = bpf_map_lookup_elem(&queue_slots, &index);
		if (slot && slot->ifindex == ifindex && slot->queue_mapping == queue_mapping) {
			slot->packets += packets;
			return;
		}
		if (slot && slot->ifindex == 0) {
			slot->queue_mapping = queue_mapping;
			slot->packets = packets;
			slot->ifindex = ifindex; /* last: a read of a slot half taken skips it */
			return;
		}
	}
	count_queue_in_hash(netns_inum, netns_salt, ifindex, queue_mapping - 1, packets);
}

/* Counts the event's queue and steering, read once the event is counted:
 * the RX queue its driver recorded (queue_mapping: queue + 1, 0 none) and
 * the CPU that built it (alloc_cpu, Linux >= 5.19) when that is not this
 * CPU. An event without a recorded queue, built on this CPU (a veth's or
 * lo's, a NIC's without RPS), costs the hot path two loads, the CPU number
 * and two branches (on kernels without alloc_cpu, one load and one branch);
 * the rest is off it. */
static __always_inline void count_route(struct sk_buff *skb, bool own, __u32 netns_inum,
					const struct arrival *arrival, struct net_device *dev,
					bool typed)
{
	__u32 queue_mapping, alloc_cpu, cpu, from_cpu_plus_one = 0, salt, ifindex;
	__u64 packets;

	if (!count_routes)
		return;
	queue_mapping = typed ? skb->queue_mapping : BPF_CORE_READ(skb, queue_mapping);
	if (bpf_core_field_exists(skb->alloc_cpu)) {
		alloc_cpu = typed ? skb->alloc_cpu : BPF_CORE_READ(skb, alloc_cpu);
		cpu = bpf_get_smp_processor_id();
		if (alloc_cpu == cpu) {
			if (!queue_mapping)
				return;
		} else {
			from_cpu_plus_one = alloc_cpu + 1;
		}
	} else if (!queue_mapping) {
		return;
	}
	packets = 1 + (__u64)arrival->merged_packets;
	/* Read again here, off the hot path, which then keeps no copy of it. */
	ifindex = typed ? dev->ifindex : BPF_CORE_READ(dev, ifindex);
	salt = own ? 0 : netns_salt(dev, typed);
	if (queue_mapping)
		count_queue(namespace_inum(own, netns_inum), salt, ifindex, queue_mapping, packets);
	if (from_cpu_plus_one)
		count_steered(namespace_inum(own, netns_inum), salt, ifindex, from_cpu_plus_one - 1,
			      packets);
}

/* Counts a claimed event (`total`: claim_event()'s): on its device first,
 * then in the probe's own total of both layouts, so that a poll, which reads
 * that total before the devices, never finds "exported + untracked +
 * removed" below it; then its queue and steering, read last, so that no
 * value of them is kept across the counting. */
static __always_inline int count_packet(struct sk_buff *skb, bool own, __u32 netns_inum,
					__u32 ifindex, const struct arrival *arrival,
					struct net_device *dev, bool typed,
					struct netif_rx_counters *total)
{
	count_on_device(own, netns_inum, ifindex, arrival, dev, typed);
	add_to_counted_total(total, arrival);
	count_route(skb, own, netns_inum, arrival, dev, typed);
	return 0;
}

/* What measure_aggregate() needs of an skb, read by each twin its own way
 * (direct loads in tp_btf, probe reads in the classic tracepoint). */
struct skb_view {
	unsigned char *head;
	unsigned char *data; /* the network header at this tracepoint */
	__u32 end;	     /* offset of the shared info from head */
	__u32 len;
	__u32 data_len;
	__u16 protocol;		    /* big endian */
	__u16 inner_network_header; /* offsets from head, for a tunnel aggregate */
	__u16 inner_transport_header;
};

static __always_inline bool is_vlan(__u16 protocol)
{
	return protocol == bpf_htons(ETH_P_8021Q) || protocol == bpf_htons(ETH_P_8021AD);
}

/* VLAN tags left in the payload (a device without receive VLAN offload: a
 * virtio-net guest on a trunk port, the host side of a tap, a QinQ outer
 * tag): skb->data is at the first tag, not at the network header. Returns the
 * tags' bytes (0, 4 or 8) and sets `network_protocol` to the protocol they
 * carry; -1 for more than two tags or a read that failed. */
static __always_inline int vlan_tag_bytes(const struct skb_view *skb, __u16 *network_protocol)
{
	__u16 tags[4]; /* TCI and protocol of each tag, big endian */

	if (!is_vlan(skb->protocol)) {
		*network_protocol = skb->protocol;
		return 0;
	}
	if (bpf_probe_read_kernel(tags, sizeof(tags), skb->data))
		return -1;
	if (!is_vlan(tags[1])) {
		*network_protocol = tags[1];
		return 4;
	}
	if (is_vlan(tags[3]))
		return -1;
	*network_protocol = tags[3];
	return 8;
}

/* Bytes of a TCP header (its data offset byte: `tcp_offset`) or a UDP
 * header; 0 for another protocol or a data offset below TCP's minimum. */
static __always_inline __u32 transport_header_length(__u8 protocol, __u8 tcp_offset)
{
	if (protocol == IPPROTO_TCP)
		return (tcp_offset >> 4) >= 5 ? (tcp_offset >> 4) * 4 : 0;
	return protocol == IPPROTO_UDP ? 8 : 0;
}

/* Bytes of the headers that each packet of an aggregate carried: VLAN tags
 * left in the payload (two at most), IPv4 with options or IPv6, then TCP
 * with options or UDP; read at skb->data in one read after the tags (a
 * second one only for IPv4 options). 0 when the probe cannot tell (another
 * protocol, IPv6 extension headers, headers outside the linear area, a read
 * that failed). */
static __always_inline __u32 header_length(const struct skb_view *skb)
{
	__u8 headers[64]; /* IPv6 (40) + TCP up to its data offset (13) */
	__u8 transport_protocol, tcp_offset;
	const unsigned char *network;
	__u16 network_protocol;
	__u32 l3, l4;
	int tags;

	tags = vlan_tag_bytes(skb, &network_protocol);
	if (tags < 0)
		return 0;
	network = skb->data + tags;
	if (bpf_probe_read_kernel(headers, sizeof(headers), network))
		return 0;
	if (network_protocol == bpf_htons(ETH_P_IP)) {
		if (headers[0] >> 4 != 4 || (headers[0] & 0xf) < 5)
			return 0;
		l3 = (headers[0] & 0xf) * 4;
		transport_protocol = headers[9];
		tcp_offset = headers[20 + 12];
		if (l3 > 20 && bpf_probe_read_kernel(&tcp_offset, 1, network + l3 + 12))
			return 0;
	} else if (network_protocol == bpf_htons(ETH_P_IPV6)) {
		l3 = 40;
		transport_protocol = headers[6];
		tcp_offset = headers[40 + 12];
	} else {
		return 0;
	}
	l4 = transport_header_length(transport_protocol, tcp_offset);
	if (l4 == 0 || tags + l3 + l4 > skb->len - skb->data_len)
		return 0;
	return tags + l3 + l4;
}

/* Bytes of the headers that each packet of a tunnel aggregate carried: from
 * the outer network header (skb->data, after any VLAN tags) to the end of the
 * inner transport header (VXLAN and Geneve: outer IP, UDP, the tunnel's
 * header, the inner Ethernet and IP headers, then TCP or UDP; GRE and IPIP
 * likewise), at the inner offsets GRO set. 0 when the probe cannot tell (an
 * inner protocol other than TCP or UDP over IPv4 or IPv6, IPv6 extension
 * headers, offsets outside the linear area, a read that failed). */
static __always_inline __u32 tunnel_header_length(const struct skb_view *skb)
{
	__u64 outer = (__u64)skb->data - (__u64)skb->head;
	__u32 inner_l3 = skb->inner_network_header, inner_l4 = skb->inner_transport_header;
	__u8 network[10], transport_protocol, tcp_offset;
	__u32 l4, length;

	if (inner_l3 <= outer || inner_l4 <= inner_l3)
		return 0;
	if (bpf_probe_read_kernel(network, sizeof(network), skb->head + inner_l3))
		return 0;
	if (network[0] >> 4 == 4 && (network[0] & 0xf) * 4 == inner_l4 - inner_l3)
		transport_protocol = network[9];
	else if (network[0] >> 4 == 6 && inner_l4 - inner_l3 == 40)
		transport_protocol = network[6];
	else
		return 0;
	/* TCP's data offset (for UDP a byte of its payload, unused). */
	if (bpf_probe_read_kernel(&tcp_offset, 1, skb->head + inner_l4 + 12))
		return 0;
	l4 = transport_header_length(transport_protocol, tcp_offset);
	if (l4 == 0)
		return 0;
	length = inner_l4 - (__u32)outer + l4;
	if (length > skb->len - skb->data_len)
		return 0;
	return length;
}

/* gso_size and gso_segs of the skb's shared info, in one read where they
 * are adjacent (every kernel so far). False when the read failed. */
static __always_inline bool read_gso(const struct skb_shared_info *shinfo, __u16 *gso_size,
				     __u16 *gso_segs)
{
	__u16 both[2];

	if (bpf_core_field_offset(shinfo->gso_segs) ==
	    bpf_core_field_offset(shinfo->gso_size) + 2) {
		if (bpf_probe_read_kernel(both, sizeof(both), &shinfo->gso_size))
			return false;
		*gso_size = both[0];
		*gso_segs = both[1];
		return true;
	}
	return !bpf_probe_read_kernel(gso_size, sizeof(*gso_size), &shinfo->gso_size) &&
	       !bpf_probe_read_kernel(gso_segs, sizeof(*gso_segs), &shinfo->gso_segs);
}

/* The header bytes each packet of an aggregate carried, tunnels included. */
static __always_inline __u32 aggregate_header_length(const struct skb_view *skb,
						     const struct skb_shared_info *shinfo)
{
	__u32 gso_type = 0;

	if (bpf_probe_read_kernel(&gso_type, sizeof(gso_type), &shinfo->gso_type))
		return 0;
	if (gso_type & SKB_GSO_TUNNELS)
		return tunnel_header_length(skb);
	return header_length(skb);
}

/* An skb that may be an aggregate: one whose shared info has gso_size set.
 * Fills `arrival` with the packets it carries: gso_segs, or where the
 * driver left that 0 (virtio-net and tun offload frames, hardware LRO) the
 * payload over gso_size rounded up, as the kernel computes it for qdisc
 * accounting (qdisc_pkt_len_init); and adds to the bytes the header sets
 * that merging dropped. What it cannot count exactly counts 1 packet, and
 * in a fallback slot of `probe_totals`. */
static __noinline void measure_aggregate(const struct skb_view *skb, struct arrival *arrival)
{
	const struct skb_shared_info *shinfo = (void *)(skb->head + skb->end);
	__u16 gso_size = 0, gso_segs = 0;
	__u32 segments, headers, payload;

	if (!read_gso(shinfo, &gso_size, &gso_segs) || gso_size == 0)
		return; /* one packet, in pages or larger than the MTU */
	if (gso_size == GSO_BY_FRAGS) {
		count_fallback(NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS);
		return;
	}
	segments = gso_segs;
	headers = aggregate_header_length(skb, shinfo);
	if (headers == 0) {
		if (segments > 1)
			arrival->merged_packets = segments - 1;
		count_fallback(segments ? NETIF_RX_SLOT_FALLBACK_HEADERS
					: NETIF_RX_SLOT_FALLBACK_UNPARSED);
		return;
	}
	if (segments == 0) {
		if (skb->len <= headers) {
			count_fallback(NETIF_RX_SLOT_FALLBACK_UNPARSED);
			return;
		}
		payload = skb->len - headers;
		segments = (payload + gso_size - 1) / gso_size;
	}
	if (segments < 2)
		return;
	arrival->merged_packets = segments - 1;
	arrival->bytes += (__u64)(segments - 1) * headers;
}

/* An skb that may be an aggregate (`view`: what it needs of `skb`),
 * measured first; off the hot path. */
static __always_inline int count_measured(struct sk_buff *skb, const struct skb_view *view,
					  bool own, __u32 netns_inum, __u32 ifindex,
					  struct net_device *dev, bool typed,
					  struct netif_rx_counters *total)
{
	struct arrival arrival = {.bytes = view->len, .merged_packets = 0};

	measure_aggregate(view, &arrival);
	return count_packet(skb, own, netns_inum, ifindex, &arrival, dev, typed, total);
}

/* An skb that cannot be an aggregate: the hot path, with merged_packets a
 * constant 0. */
static __always_inline int count_single(struct sk_buff *skb, __u32 len, bool own, __u32 netns_inum,
					__u32 ifindex, struct net_device *dev, bool typed,
					struct netif_rx_counters *total)
{
	struct arrival arrival = {.bytes = len, .merged_packets = 0};

	return count_packet(skb, own, netns_inum, ifindex, &arrival, dev, typed, total);
}

/* An aggregate is either non-linear (GRO and LRO merge into pages) or longer
 * than the device's MTU (an offload frame that virtio-net or tun built
 * linear). An skb that is neither is one packet: two loads and branches
 * more than counting one packet per event. A linear offload frame of two or
 * more packets shorter than the MTU (only with an MSS below half the MTU) is
 * the one aggregate this misses: it counts one packet. */
static __always_inline bool may_be_aggregate(__u32 len, __u32 data_len, __u32 mtu)
{
	return data_len != 0 || len > mtu;
}

/* Whether an event that may not be a packet arriving at its device is not
 * one (see may_not_be_an_arrival(), which sends here only the events that
 * may not be): a copy of a packet this host sent, looped back to itself
 * (multicast and broadcast with IP_MULTICAST_LOOP, the default: pkt_type
 * PACKET_LOOPBACK; the device's rx_packets never counts them), or a packet
 * the device already received and receives again decrypted (IPsec tunnel
 * mode without an xfrm interface: xfrm_input hands the inner packet back
 * through a GRO cell with skb->dev unchanged; it carries the IPsec state,
 * its sec path extension, and skb_iif names the device: the kernel sets
 * skb_iif after this tracepoint, so it is 0 in a new skb). Such events are
 * left uncounted: a packet is counted once per device, as it arrived (the
 * ESP packet, not its content). A first arrival that carries a sec path
 * already (a NIC's IPsec offload sets it in the driver; the decrypted packet
 * on an xfrm interface or a VTI device), one with another extension, and a
 * PACKET_OUTGOING one are arrivals. Off the hot path. */
static __noinline bool not_an_arrival(struct sk_buff *skb, __u32 ifindex, bool typed)
{
	__u8 extensions;

	if (typed ? BPF_CORE_READ_BITFIELD(skb, pkt_type) == PACKET_LOOPBACK
		  : BPF_CORE_READ_BITFIELD_PROBED(skb, pkt_type) == PACKET_LOOPBACK)
		return true;
	if (!bpf_core_field_exists(skb->active_extensions) ||
	    !bpf_core_enum_value_exists(enum skb_ext_id, SKB_EXT_SEC_PATH))
		return false;
	extensions = typed ? skb->active_extensions : BPF_CORE_READ(skb, active_extensions);
	if (!(extensions & (1U << bpf_core_enum_value(enum skb_ext_id, SKB_EXT_SEC_PATH))))
		return false;
	return (typed ? skb->skb_iif : BPF_CORE_READ(skb, skb_iif)) == (int)ifindex;
}

/* The hot path's arrival test: false for every event that is a packet
 * arriving at its device and carries no skb extension (a plain skb), true
 * for every event not_an_arrival() may leave. One load and one branch: the
 * byte of the bitfield `cloned`, active_extensions and the byte of pkt_type
 * follow each other in struct sk_buff (5.10 to 6.18 at least, found by the
 * kernel's own markers __cloned_offset and __pkt_type_offset), so one 4-byte
 * load at __cloned_offset holds active_extensions (non-zero for any
 * extension: the IPsec sec path among them) and pkt_type's bit 2 (set for
 * PACKET_OUTGOING and PACKET_LOOPBACK; little-endian bitfields: the byte's
 * low 3 bits). The load is not 4-byte aligned (x86_64 and arm64 load it as
 * one; the verifier allows it for BTF-typed pointers on them) and starts at a
 * bitfield's byte that it covers whole, which the verifier's BTF access check
 * accepts. Masks and offsets are CO-RE constants: the verifier removes the
 * branches of the layouts that do not apply. Where the bytes are farther
 * apart, or on a big-endian kernel, each is read: pkt_type's byte, then
 * active_extensions. `typed` (constant once inlined): direct loads (tp_btf)
 * or one probe read (classic tracepoint). */
static __always_inline bool may_not_be_an_arrival(struct sk_buff *skb, bool typed)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Byte positions in the word loaded at __cloned_offset; 64-bit, so
	 * that no instruction zero-extends them. */
	__u64 cloned, pkt_type, extensions = 0, mask;
	__u32 word = 0;

	/* The layout of 5.10 to 6.18, known by its absolute offsets: the word
	 * at 126 (the byte of the bitfield `cloned`, which precedes
	 * active_extensions wherever it exists, as before) holds
	 * active_extensions (byte 1) and pkt_type (byte 2), tested with a
	 * constant mask at a constant offset. The offsets are relocated
	 * at load, so the compiler cannot fold what is computed from them and
	 * the kernel runs each such instruction on every event: here only the
	 * three relocated constants are loaded (the verifier knows them and
	 * removes the branches of the layouts that do not apply). */
	if (bpf_core_field_exists(skb->active_extensions) &&
	    bpf_core_field_offset(skb->active_extensions) == 127 &&
	    bpf_core_field_offset(skb->__pkt_type_offset) == 128) {
		if (typed)
			word = *(__u32 *)((char *)skb + 126);
		else
			bpf_probe_read_kernel(&word, sizeof(word), (char *)skb + 126);
		return (word & 0x0004ff00) != 0;
	}
	/* Another layout whose bytes are close enough: its mask computed. */
	cloned = bpf_core_field_offset(skb->__cloned_offset);
	pkt_type = bpf_core_field_offset(skb->__pkt_type_offset) - cloned;
	if (bpf_core_field_exists(skb->active_extensions))
		extensions = bpf_core_field_offset(skb->active_extensions) - cloned;
	if (pkt_type < 4 && extensions < 4) {
		mask = 4ULL << (8 * pkt_type) |
		       (bpf_core_field_exists(skb->active_extensions) ? 0xffULL << (8 * extensions)
								      : 0);
		if (typed)
			word = *(__u32 *)((char *)skb + cloned);
		else
			bpf_probe_read_kernel(&word, sizeof(word), (char *)skb + cloned);
		return (word & mask) != 0;
	}
#endif
	if (typed ? BPF_CORE_READ_BITFIELD(skb, pkt_type) & 4
		  : BPF_CORE_READ_BITFIELD_PROBED(skb, pkt_type) & 4)
		return true;
	if (!bpf_core_field_exists(skb->active_extensions))
		return false;
	return typed ? skb->active_extensions : BPF_CORE_READ(skb, active_extensions);
}

/* Five arguments at most (BPF calls): the ifindex is read here. */
static __noinline int count_measured_btf(struct sk_buff *skb, bool own, __u32 netns_inum,
					 struct net_device *dev, struct netif_rx_counters *total)
{
	const struct skb_view view = {
	    .head = skb->head,
	    .data = skb->data,
	    .end = skb->end,
	    .len = skb->len,
	    .data_len = skb->data_len,
	    .protocol = skb->protocol,
	    .inner_network_header = skb->inner_network_header,
	    .inner_transport_header = skb->inner_transport_header,
	};

	return count_measured(skb, &view, own, netns_inum, dev->ifindex, dev, true, total);
}

/* Five arguments at most (BPF calls): the ifindex and the length are read
 * here. */
static __noinline int count_measured_tp(struct sk_buff *skb, bool own, __u32 netns_inum,
					struct net_device *dev, struct netif_rx_counters *total)
{
	const struct skb_view view = {
	    .head = BPF_CORE_READ(skb, head),
	    .data = BPF_CORE_READ(skb, data),
	    .end = BPF_CORE_READ(skb, end),
	    .len = BPF_CORE_READ(skb, len),
	    .data_len = BPF_CORE_READ(skb, data_len),
	    .protocol = BPF_CORE_READ(skb, protocol),
	    .inner_network_header = BPF_CORE_READ(skb, inner_network_header),
	    .inner_transport_header = BPF_CORE_READ(skb, inner_transport_header),
	};

	return count_measured(skb, &view, own, netns_inum, BPF_CORE_READ(dev, ifindex), dev, false,
			      total);
}

/* An event of a namespace this probe counts, in tp_btf. `own` (a constant
 * once inlined): the device is of the exporter's namespace, which the
 * program tested already; each case is inlined apart, so that the own
 * namespace's path tests it once. */
static __always_inline int count_event_btf(struct sk_buff *skb, struct net_device *dev, bool own,
					   __u32 netns_inum)
{
	struct netif_rx_counters *total;
	__u32 len;

	if (may_not_be_an_arrival(skb, true) && not_an_arrival(skb, dev->ifindex, true))
		return 0;
	total = claim_event(skb);
	if (!total)
		return 0;
	len = skb->len;
	if (may_be_aggregate(len, skb->data_len, dev->mtu))
		return count_measured_btf(skb, own, namespace_inum(own, netns_inum), dev, total);
	return count_single(skb, len, own, netns_inum, dev->ifindex, dev, true, total);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(netif_rx_btf, struct sk_buff *skb)
{
	struct net_device *dev;
	__u32 netns_inum;

	if (!counting()) {
		clear_event_mark();
		return 0;
	}
	dev = skb->dev;
	netns_inum = dev->nd_net.net->ns.inum;
	if (netns_inum == host_netns_inum)
		return count_event_btf(skb, dev, true, netns_inum);
	if (!count_all_namespaces)
		return 0;
	return count_event_btf(skb, dev, false, netns_inum);
}

/* An event of a namespace this probe counts, in the classic tracepoint
 * (see count_event_btf()). Each field is a probe read here: the ifindex is
 * read once. */
static __always_inline int count_event_tp(struct trace_event_raw_net_dev_template *ctx,
					  struct sk_buff *skb, struct net_device *dev, bool own,
					  __u32 netns_inum)
{
	__u32 ifindex = BPF_CORE_READ(dev, ifindex);
	struct netif_rx_counters *total;

	if (may_not_be_an_arrival(skb, false) && not_an_arrival(skb, ifindex, false))
		return 0;
	total = claim_event(skb);
	if (!total)
		return 0;
	if (may_be_aggregate(ctx->len, BPF_CORE_READ(skb, data_len), BPF_CORE_READ(dev, mtu)))
		return count_measured_tp(skb, own, namespace_inum(own, netns_inum), dev, total);
	return count_single(skb, ctx->len, own, netns_inum, ifindex, dev, false, total);
}

SEC("tracepoint/net/netif_receive_skb")
int netif_rx_tp(struct trace_event_raw_net_dev_template *ctx)
{
	struct sk_buff *skb = ctx->skbaddr;
	struct net_device *dev;
	__u32 netns_inum;

	if (!counting()) {
		clear_event_mark();
		return 0;
	}
	dev = BPF_CORE_READ(skb, dev);
	netns_inum = BPF_CORE_READ(dev, nd_net.net, ns.inum);
	if (netns_inum == host_netns_inum)
		return count_event_tp(ctx, skb, dev, true, netns_inum);
	if (!count_all_namespaces)
		return 0;
	return count_event_tp(ctx, skb, dev, false, netns_inum);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types and constants shared by the probe (netif_rx.bpf.c) and the daemon.
 * This is the only definition of the map layouts: never copy these structs.
 */
#ifndef NETIF_RX_H
#define NETIF_RX_H

#ifndef __VMLINUX_MIN_H__
#include <linux/types.h>
#endif

/* The layout of the maps and the meaning of their slots, as pinned: a pinned
 * probe is adopted as it is only by an exporter of the same layout (its pins
 * live in the pin directory's subdirectory v<layout>); an exporter of another
 * layout carries its counts into its own maps (`carried_counters`,
 * `carried_totals`) by the maps' names and shapes. Bump it whenever a map, a
 * key, a value or a slot changes. Layout 4: the carried maps. Layout 5: the
 * queue and steering maps (queue_slots, queue_counters, steer_counters,
 * route_totals), which a carry from another layout does not carry.
 * NETIF_RX_NEXT_LAYOUT_TEST builds the layout after it, for the tests of a
 * layout change (an extra map). */
#ifdef NETIF_RX_NEXT_LAYOUT_TEST
#define NETIF_RX_PIN_LAYOUT 6
#else
#define NETIF_RX_PIN_LAYOUT 5
#endif

/* The control map (`probe_control`, a one-entry array): which loaded program
 * counts. Every program of every layout from 3 on counts only while
 * generation equals its own (its read-only `generation`); an exporter hands
 * the counting over to its program by writing the generation. Every write of
 * the daemon changes one word only (the kernel copies an aligned word whole),
 * so that a program never reads a mix of two entries: at a handover the flag
 * below first, then, after an RCU grace period, the generation. Kept beside the
 * layout's pins, not in them (<pin directory>/control): its definition never
 * changes, whatever NETIF_RX_PIN_LAYOUT becomes. Written by the daemon only.
 * Programs of later builds (the same layout: the map does not change) declare
 * the entry as the one variable of the section .data.control and read it in
 * place, without a lookup: the daemon gives the object the map (the kept one,
 * or one it creates) before load. */
struct netif_rx_control {
	__u64 generation;	 /* the program that counts; 0: none */
	__u64 counting_since_ns; /* CLOCK_BOOTTIME when the counts started, and: */
};

/* Set in counting_since_ns by the handover's first write and cleared once
 * every program run that could have read the entry before the new
 * generation is over (an RCU grace period), before the old program is
 * detached: while it is set, a program that counts marks each event it
 * counts, and leaves an event that the program run just before it for the
 * same event counted (see claim_in_handover() in netif_rx.bpf.c). Programs
 * of earlier builds mark every event they count and read only the
 * generation. */
#define NETIF_RX_CONTROL_HANDOVER (1ULL << 63)

/* Kernel interface names are at most IFNAMSIZ bytes, NUL included. */
#define NETIF_RX_NAME_LEN 16

/* Default capacity of the per-device map (configuration key max_devices). */
#define NETIF_RX_DEFAULT_MAX_DEVICES 4096

/* The exporter's own namespace has a per-CPU array indexed by ifindex
 * (`host_counters`, no hashing on the hot path) with min(max_devices,
 * NETIF_RX_MAX_HOST_SLOTS) slots; a larger ifindex, and every device of other
 * namespaces, is counted in the `device_counters` hash. Slot 0 is never a
 * device (ifindex 0 is never valid). */
#define NETIF_RX_MAX_HOST_SLOTS 65536

/* Devices of other namespaces: the daemon hands each namespace it has seen a
 * block of slots in the per-CPU array `netns_slots` (configuration keys
 * netns_blocks and netns_block_slots), a slot per ifindex below the block's
 * size. The probe finds the block in the direct-mapped table `netns_table`
 * (an array indexed by the namespace's inode number modulo its size) and
 * uses it only when the entry holds the namespace's inode number and salt;
 * otherwise (a collision, a namespace not placed yet, an ifindex beyond the
 * block) the device is counted in the `device_counters` hash. A device's
 * count is its hash entry plus its slot. */
#define NETIF_RX_DEFAULT_NETNS_BLOCKS 64
#define NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS 64
#define NETIF_RX_MAX_NETNS_BLOCKS 4096
#define NETIF_RX_MAX_NETNS_BLOCK_SLOTS 4096
#define NETIF_RX_MAX_NETNS_SLOTS (1U << 20) /* blocks x slots */
/* The block of an empty entry: never a block, so that a read of an entry
 * torn between empty and placed never points into another namespace's
 * block (the probe checks block < netns_blocks). */
#define NETIF_RX_NO_BLOCK 0xFFFFFFFFU

/* An entry of `netns_table`: empty (netns_inum 0, block NETIF_RX_NO_BLOCK),
 * or the namespace that owns `block`. Written by the daemon only. */
struct netif_rx_netns_block {
	__u32 netns_inum; /* inode number of the namespace; 0: empty */
	__u32 netns_salt; /* its salt (see struct netif_rx_device_key) */
	__u32 block;	  /* its block: slots block x netns_block_slots + ifindex */
	__u32 check;	  /* netif_rx_netns_block_check() of the three above */
};

/* The kernel copies a map value with memcpy, whose stores another CPU may see
 * in any order (x86's `rep movsb`): an entry read while it is written can mix
 * bytes of the old and the new entry. The probe uses an entry only when its
 * check word matches its other words, which a torn read does with a chance of
 * about 2^-32: never a block of another namespace, or a block not zeroed. */
static inline __u32 netif_rx_netns_block_check(__u32 netns_inum, __u32 netns_salt, __u32 block)
{
	__u32 hash = netns_inum * 0x9E3779B1U;

	hash = (hash ^ (hash >> 15) ^ netns_salt) * 0x85EBCA77U;
	hash = (hash ^ (hash >> 13) ^ block) * 0xC2B2AE3DU;
	return hash ^ (hash >> 16);
}

/* A table entry with its check word. */
static inline struct netif_rx_netns_block netif_rx_netns_block_entry(__u32 netns_inum,
								     __u32 netns_salt, __u32 block)
{
	struct netif_rx_netns_block entry = {
	    netns_inum, netns_salt, block,
	    netif_rx_netns_block_check(netns_inum, netns_salt, block)};
	return entry;
}

/* Identity of a receiving device: the network namespace and the ifindex
 * within it. An ifindex alone is ambiguous: every namespace has its own 2.
 * The inode number alone is ambiguous over time: the kernel reuses a dead
 * namespace's number (lowest free), so a new namespace would continue a dead
 * one's entries (in Kubernetes every pod's eth0 has the same ifindex). The
 * salt tells them apart: the low 32 bits of `struct net`'s net_cookie where
 * the kernel assigns it when the namespace is set up (Linux >= 5.12): a
 * counter, never reused within a boot (it wraps after 2^32 namespace
 * creations), and equal to the namespace's id from the NS_GET_ID ioctl
 * (Linux >= 6.18), so user space can check which namespace a key is. Before
 * 5.12, `struct net`'s hash_mix, random bytes drawn when the namespace is
 * created (Linux >= 5.1; 0 on older kernels): two namespaces that share an
 * inode number over time share it with a chance of 2^-32. Layout 2: the
 * salt was hash_mix on every kernel in layout 1.
 * The exporter's own namespace outlives the probe: its salt is always 0, so
 * that its array slots and its hash entries have one key form. All u32 words:
 * the hash map hashes the key as u32 words, with no padding. */
struct netif_rx_device_key {
	__u32 netns_inum; /* inode number of the device's network namespace */
	__u32 ifindex;	  /* dev->ifindex, unique only within that namespace */
	__u32 netns_salt; /* low half of net_cookie (or hash_mix); 0 for the own namespace */
};

/* Per-CPU counters of one device (the value of the `device_counters` map and
 * of the `host_counters` slots), and of each slot of the `probe_totals`
 * map. Cumulative since the probe was attached; the daemon resets only a
 * deleted device's `host_counters` slot (an array slot cannot be deleted).
 *
 * One netif_receive_skb event is one skb; an skb that GRO, LRO or a
 * paravirtual driver built from several packets carries them all. So that an
 * skb that is not an aggregate costs no more than one increment of each
 * field it changes, the packets beyond the first of each skb are kept apart:
 * packets = skbs + merged_packets (netif_rx_packets()). */
struct netif_rx_counters {
	__u64 skbs;	      /* netif_receive_skb events */
	__u64 merged_packets; /* packets beyond the first of each aggregate */
	__u64 bytes;	      /* network-layer bytes of every packet, merged headers restored */
};

/* Slots of the `probe_totals` map (a per-CPU array). */
#define NETIF_RX_SLOT_UNTRACKED 0 /* devices that got no entry: skbs, packets, bytes */
/* Everything the probe counted, tracked or not. Its `bytes` word counts
 * nothing: it is the handover's mark (an skb address, see claim_event() in
 * netif_rx.bpf.c), which the daemon never reads as a count. */
#define NETIF_RX_SLOT_COUNTED 1
/* Aggregates (gso_size set) whose packets the probe could not count exactly.
 * Only `skbs` is used: how many such skbs. */
#define NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS                                                        \
	2				  /* gso_size GSO_BY_FRAGS (SCTP): counted as 1 packet */
#define NETIF_RX_SLOT_FALLBACK_UNPARSED 3 /* no gso_segs and headers not parsed: 1 packet */
#define NETIF_RX_SLOT_FALLBACK_HEADERS                                                             \
	4 /* gso_segs exact, merged headers not restored in bytes                                  \
	   */
/* Written by the daemon only, never by the probe: the packets of devices whose
 * entries the daemon removed (netif_rx_removed_packets_total), kept in the
 * map so that they outlive the daemon when the probe is pinned. The slots of
 * `carried_totals` have the same meanings. */
#define NETIF_RX_SLOT_REMOVED 5
#define NETIF_RX_PROBE_TOTALS_SLOTS 6 /* how many slots the map has */

/* The name the probe saw when it first counted a device of another network
 * namespace (`device_names` map), so that those devices can be named without
 * entering their namespace. Recorded before the device's counters entry is
 * created, on its first packet: a device whose name could not be recorded
 * gets no entry, its packets are counted as untracked, and its next packet
 * tries again. Never written on the hot path. */
struct netif_rx_device_name {
	char name[NETIF_RX_NAME_LEN];
};

/* Drops on the receive path (netif_rx_drops.bpf.c at skb:kfree_skb, Linux >=
 * 5.17: the tracepoint carries the drop reason). A second object, loaded
 * beside the probe and never pinned: its maps start from zero with each
 * exporter. The reasons counted are the receive path's, chosen by the daemon
 * from the running kernel's BTF (enum skb_drop_reason, whose values differ
 * between kernels) and handed to the program as a bitmap of reason values
 * below NETIF_RX_DROP_REASONS. */
#define NETIF_RX_DROP_REASONS 512
#define NETIF_RX_DROP_REASON_WORDS (NETIF_RX_DROP_REASONS / 64)
/* Capacity of the drop map (device x reason entries) and of its name map. */
#define NETIF_RX_MAX_DROP_ENTRIES 8192

/* A device (as struct netif_rx_device_key: namespace, ifindex, salt) and a
 * drop reason (the kernel's enum skb_drop_reason value). Four u32 words. */
struct netif_rx_drop_key {
	__u32 netns_inum;
	__u32 ifindex;
	__u32 netns_salt;
	__u32 reason;
};

/* Slots of the `drop_totals` map (a per-CPU array). */
#define NETIF_RX_DROP_SLOT_COUNTED 0   /* every drop the program counted */
#define NETIF_RX_DROP_SLOT_UNTRACKED 1 /* drops that got no entry: a map was full */
#define NETIF_RX_DROP_TOTALS_SLOTS 2

/* NAPI polls (netif_rx_napi.bpf.c at napi:napi_poll): a third object, loaded
 * beside the probe and never pinned, like the drop counter. Each poll is
 * counted for the device its NAPI context serves (as struct
 * netif_rx_device_key) and the CPU that ran it; the per-CPU backlog's polls
 * (their context has no device: RPS, netif_rx()) in a slot of their own. */
#define NETIF_RX_MAX_NAPI_ENTRIES 4096 /* capacity of the NAPI map and its name map */

/* Per-CPU counters of one NAPI context's device, and of each slot of the
 * `napi_totals` map. */
struct netif_rx_napi_counters {
	__u64 polls;	 /* napi_poll events */
	__u64 packets;	 /* the polls' work: packets (skbs, frames) the driver handed on */
	__u64 exhausted; /* polls whose work reached their budget (budget > 0) */
};

/* Slots of the `napi_totals` map (a per-CPU array). */
#define NETIF_RX_NAPI_SLOT_BACKLOG 0   /* the per-CPU backlog's polls (no device) */
#define NETIF_RX_NAPI_SLOT_UNTRACKED 1 /* polls of devices that got no entry: a map was full */
#define NETIF_RX_NAPI_TOTALS_SLOTS 2

/* The receive path's way in (netif_rx.bpf.c, at the same event as the
 * counters): packets by the RX queue their driver recorded
 * (skb->queue_mapping: queue + 1, 0 when none was recorded) and the CPU that
 * processed them, and packets processed on another CPU than the one that built
 * the skb (skb->alloc_cpu, Linux >= 5.19: RPS/RFS steering, veth's cross-CPU
 * work), by both CPUs. A packet of an aggregate counts as in the counters.
 *
 * Queues of the exporter's own namespace are counted in `queue_slots`, a
 * plain array of NETIF_RX_QUEUE_SLOTS slots per possible CPU (entry cpu x
 * NETIF_RX_QUEUE_SLOTS + netif_rx_queue_slot_index()): a slot is taken by the
 * first (ifindex, queue) that lands on it on that CPU and holds it until the
 * daemon zeroes it (its device was deleted). With RSS a CPU mostly sees one
 * queue of a NIC, so a NIC's packets take one inlined array lookup; a queue
 * whose slot another one holds, and every device of another namespace, is
 * counted in the per-CPU hash `queue_counters`. A queue's count is its slots
 * and its hash entry summed. Only this CPU writes its slots: the daemon zeroes
 * a slot of one CPU without touching another's. */
#define NETIF_RX_QUEUE_SLOT_BITS 6
#define NETIF_RX_QUEUE_SLOTS (1U << NETIF_RX_QUEUE_SLOT_BITS) /* per possible CPU */
#define NETIF_RX_MAX_QUEUE_ENTRIES 4096			      /* capacity of queue_counters */
#define NETIF_RX_MAX_STEER_ENTRIES 4096			      /* capacity of steer_counters */
/* A slot of `queue_slots`: empty (all 0), or the packets of one queue of a
 * device of the own namespace on the slot's CPU. */
struct netif_rx_queue_slot {
	__u32 ifindex;	     /* 0: empty */
	__u32 queue_mapping; /* the queue + 1 */
	__u64 packets;
};

/* The slot of (ifindex, queue_mapping) within a CPU's NETIF_RX_QUEUE_SLOTS:
 * Fibonacci hashing of both. */
static inline __u32 netif_rx_queue_slot_index(__u32 ifindex, __u32 queue_mapping)
{
	return ((ifindex << 16 ^ queue_mapping) * 0x9E3779B1U) >> (32 - NETIF_RX_QUEUE_SLOT_BITS);
}

/* A device (as struct netif_rx_device_key) and its RX queue (from 0): the key
 * of the per-CPU hash `queue_counters`, whose value is the packets (__u64). */
struct netif_rx_queue_key {
	__u32 netns_inum;
	__u32 ifindex;
	__u32 netns_salt;
	__u32 queue;
};

/* A device and the CPU that built its skbs: the key of the per-CPU hash
 * `steer_counters` (value: packets, __u64), whose per-CPU values are by the
 * CPU that processed them. Only packets built on another CPU are counted. */
struct netif_rx_steer_key {
	__u32 netns_inum;
	__u32 ifindex;
	__u32 netns_salt;
	__u32 from_cpu;
};

/* Slots of the `route_totals` map (a per-CPU array of __u64 packets). */
#define NETIF_RX_ROUTE_SLOT_QUEUE_UNTRACKED 0 /* queue_counters was full */
#define NETIF_RX_ROUTE_SLOT_STEER_UNTRACKED 1 /* steer_counters was full */
#define NETIF_RX_ROUTE_TOTALS_SLOTS 2

/* Packets the counters stand for: each skb, and each packet merged into one. */
static inline __u64 netif_rx_packets(const struct netif_rx_counters *counters)
{
	return counters->skbs + counters->merged_packets;
}

#ifdef __cplusplus
#define NETIF_RX_STATIC_ASSERT static_assert
#else
#define NETIF_RX_STATIC_ASSERT _Static_assert
#endif

NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_device_key) == 12,
		       "device key is three u32 words, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_counters) % 8 == 0,
		       "per-CPU values must be a multiple of 8 bytes");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_netns_block) == 16,
		       "netns table entry is four u32 words, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_control) == 16,
		       "the control value never changes: two u64 words");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_device_name) == NETIF_RX_NAME_LEN,
		       "device name is IFNAMSIZ bytes");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_drop_key) == 16,
		       "drop key is four u32 words, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_queue_slot) == 16,
		       "queue slot is two u32 words and a u64, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_queue_key) == 16,
		       "queue key is four u32 words, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_steer_key) == 16,
		       "steer key is four u32 words, no padding");
NETIF_RX_STATIC_ASSERT(sizeof(struct netif_rx_napi_counters) % 8 == 0,
		       "per-CPU values must be a multiple of 8 bytes");

#endif /* NETIF_RX_H */

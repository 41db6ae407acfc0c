/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The few kernel types the probe reads, declared for CO-RE.
 *
 * Field offsets are not taken from here: preserve_access_index makes clang
 * emit relocations by field name, and libbpf resolves them at load time
 * against the running kernel's BTF. So the build never reads the build host's
 * kernel, and one object runs on every kernel >= 5.10 with BTF.
 */
#ifndef __VMLINUX_MIN_H__
#define __VMLINUX_MIN_H__

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
enum { false = 0, true = 1 };

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_F_NO_PREALLOC = 1,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct ns_common {
	unsigned int inum;
};

struct net {
	struct ns_common ns;
	__u32 hash_mix; /* random per namespace since Linux 5.1; absent before */
	/* A counter's value, never reused within a boot, set when the namespace
	 * is set up since Linux 5.12. 5.7-5.11 have an atomic64_t of that name,
	 * assigned on first use: CO-RE finds no __u64 field there. */
	__u64 net_cookie;
};

typedef struct {
	struct net *net;
} possible_net_t;

struct net_device {
	char name[16];
	int ifindex;
	unsigned int mtu;
	possible_net_t nd_net;
};

/* A NAPI context: a device's receive queue, or a CPU's backlog (dev NULL). */
struct napi_struct {
	struct net_device *dev;
};

/* The end of every skb's data area: the GSO/GRO state of an aggregate. */
struct skb_shared_info {
	unsigned short gso_size; /* payload bytes of each packet; GSO_BY_FRAGS: by frags */
	unsigned short gso_segs; /* packets carried; 0 where the driver left it to the stack */
	unsigned int gso_type;	 /* SKB_GSO_* bits: the packets' protocols, tunnels included */
};

/* The skb extensions (include/linux/skbuff.h): which bit of active_extensions
 * is which depends on the kernel's configuration, so the probe takes the
 * value from the running kernel's BTF (bpf_core_enum_value). */
enum skb_ext_id {
	SKB_EXT_SEC_PATH = 1, /* the IPsec state that decrypted the packet */
};

/* `end` is an offset from `head` on 64-bit kernels (NET_SKBUFF_DATA_USES_OFFSET),
 * the only ones the probe supports. */
struct sk_buff {
	struct net_device *dev;
	unsigned int len;
	unsigned int data_len; /* bytes outside the linear area */
	__be16 protocol;
	unsigned char *head;
	unsigned char *data; /* the network header at netif_receive_skb */
	unsigned int end;
	/* Offsets from head of an encapsulated packet's inner headers, set by
	 * GRO for a tunnel aggregate (gso_type's tunnel bits). */
	__u16 inner_network_header;
	__u16 inner_transport_header;
	/* The ifindex of the device that last received the skb, set by the
	 * kernel after netif_receive_skb's tracepoint; 0 in a new skb. */
	int skb_iif;
	/* Markers without storage: the kernel's own names for the byte of the
	 * bitfield `cloned` and the byte of pkt_type (CLONED_OFFSET(),
	 * PKT_TYPE_OFFSET()). That byte of cloned, active_extensions (with
	 * CONFIG_SKB_EXTENSIONS) and pkt_type's byte follow each other (bytes
	 * 126, 127 and 128 on Debian's 5.10, 6.1 and 6.12 and on 6.18): the
	 * probe's arrival test reads them in one load. */
	__u8 __cloned_offset[0];
	__u8 __pkt_type_offset[0];
	__u8 pkt_type : 3;	/* PACKET_HOST, ..., PACKET_LOOPBACK */
	__u8 active_extensions; /* bit (1 << enum skb_ext_id) per extension */
	/* The RX queue the driver recorded + 1 (skb_record_rx_queue); 0: none. */
	__u16 queue_mapping;
	/* The CPU that built the skb (Linux >= 5.19). */
	__u16 alloc_cpu;
};

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* Context of the classic tracepoint net:netif_receive_skb. */
struct trace_event_raw_net_dev_template {
	struct trace_entry ent;
	void *skbaddr;
	unsigned int len;
	__u32 __data_loc_name;
	char __data[0];
};

#pragma clang attribute pop

#endif /* __VMLINUX_MIN_H__ */

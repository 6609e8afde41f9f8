/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace-bpf-annotate: what the BPF program hands to the loader through
 * its ring buffer.  Shared by both sides; fixed-size types only.
 */
#ifndef __GRTRACE_ANNOTATE_H
#define __GRTRACE_ANNOTATE_H

#define GA_COMM_LEN	16

enum ga_type {
	GA_IOCTL_ENTER = 1,
	GA_IOCTL_EXIT = 2,
};

/* Indexes of the "counters" array map */
enum ga_counter {
	GA_CNT_ENTER,		/* 'd' and 'F' ioctls entered (after the pid filter) */
	GA_CNT_EXIT,		/* and left */
	GA_CNT_LOST,		/* events the ring buffer had no room for */
	GA_CNT_NESTED,		/* enter while the last one had no exit */
	GA_CNT_NO_SLOT,		/* enter not kept for its exit: the map is full */
	GA_CNT_NR,
};

struct ga_event {
	__u64 ts;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC, ns */
	__u64 cmd;
	__u64 arg;		/* ENTER: the ioctl's argument */
	__s64 ret;		/* EXIT: its return value */
	__u64 duration;		/* EXIT: ns since the ENTER */
	__u32 tgid;
	__u32 tid;
	__u32 type;		/* enum ga_type */
	__u32 fd;		/* the ioctl's file descriptor */
	char comm[GA_COMM_LEN];
};

#ifndef __bpf__
/* The BPF object, linked into the loader by grtrace_annotate_obj.S */
extern const char grtrace_annotate_bpf_obj[];
extern const char grtrace_annotate_bpf_obj_end[];
#endif

#endif /* __GRTRACE_ANNOTATE_H */

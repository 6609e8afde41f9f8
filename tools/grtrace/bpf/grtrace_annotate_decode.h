/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace-bpf-annotate: the events of the BPF program as lines of text.
 * Plain C, without libbpf: tests/annotate-decode.c feeds it synthetic
 * events and a stand-in for /proc.
 */
#ifndef __GRTRACE_ANNOTATE_DECODE_H
#define __GRTRACE_ANNOTATE_DECODE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "grtrace_annotate.h"

/* What the file behind an ioctl's fd is */
enum ga_fd_kind {
	GA_FD_GONE,		/* not found: fd closed, or thread exited */
	GA_FD_OTHER,		/* not a character device */
	GA_FD_CHR,		/* a character device, major:minor */
};

struct ga_fd_dev {
	enum ga_fd_kind kind;
	unsigned int major;
	unsigned int minor;
};

/* Find what fd @fd of thread @tid of process @tgid is now */
typedef void (*ga_resolve_t)(void *priv, __u32 tgid, __u32 tid, __u32 fd,
			     struct ga_fd_dev *dev);

/* @priv: the proc file system's root, NULL for /proc */
void ga_resolve_proc(void *priv, __u32 tgid, __u32 tid, __u32 fd,
		     struct ga_fd_dev *dev);

#define GA_SLOTS	4096

/* The 'F' ioctl a thread is in, and what its ENTER found */
struct ga_slot {
	__u64 cmd;
	__u32 tid;
	__u32 fd;
	struct ga_fd_dev dev;
	bool used;
};

/* The device last found behind an fd of a process */
struct ga_seen {
	__u32 tgid;
	__u32 fd;
	struct ga_fd_dev dev;
	bool used;
};

struct ga_decoder {
	ga_resolve_t resolve;
	void *priv;
	unsigned long long lines;	/* printed */
	unsigned long long nvidia;	/* NVIDIA ioctls entered */
	unsigned long long other_dev;	/* 'F' left out: not NVIDIA's device */
	unsigned long long gone;	/* 'F' left out: the fd was not found */
	unsigned long long remembered;	/* of those, by an fd gone: as seen before */
	struct ga_slot slot[GA_SLOTS];	/* by tid % GA_SLOTS */
	struct ga_seen seen[GA_SLOTS];	/* by (tgid, fd) */
};

void ga_decoder_init(struct ga_decoder *d, ga_resolve_t resolve, void *priv);
bool ga_decode(struct ga_decoder *d, const struct ga_event *e, FILE *out);
const char *ga_nv_escape_name(unsigned int nr);

#endif /* __GRTRACE_ANNOTATE_DECODE_H */

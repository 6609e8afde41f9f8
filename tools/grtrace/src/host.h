/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the host's side of a virtio-gpu guest's jobs, from QEMU's own
 * trace events, joined with the guest's recording by fence id.
 */
#ifndef __GRTRACE_HOST_H
#define __GRTRACE_HOST_H

#include <stdbool.h>
#include <stdio.h>

#include "events.h"

/*
 * A fenced virtio-gpu command seen on both sides.  Guest times are those of
 * the recording; host times are QEMU's, moved into the guest's clock by
 * the offset and rate the join found (gr_host.off, gr_host.rate).
 */
struct gr_host_job {
	__u64 fctx;		/* the guest job: fence context and seqno */
	__u64 fseq;
	__u64 fence_id;		/* the virtio-gpu fence id, on both sides */
	__u32 type;		/* VIRTIO_GPU_CMD_* */
	__u32 ctx_id;
	__u32 ring_id;
	__u32 pid;
	char comm[17];
	__u64 commit;		/* guest: COMMIT and END */
	__u64 end;
	__u64 after;		/* guest: QEMU took it later (0: no bound) */
	__u64 added_after;	/* guest: QEMU surely took it later (0: none) */
	__u64 take;		/* host, in the guest's clock: QEMU took it */
	__u64 ctrl;		/* QEMU handed its fence to the renderer */
	__u64 resp;		/* the fence signalled, QEMU answered */
	bool take_known;	/* else take = ctrl */
};

struct gr_host {
	const char *path;
	__u32 tid;		/* QEMU's thread that processed the commands */
	struct gr_host_job *job;	/* sorted by fctx, fseq */
	size_t nr;
	size_t no_take;		/* joined, with no QEMU event of the command */
	size_t early;		/* joined, taken before the COMMIT's stamp */
	size_t host_fences;	/* fences in the host recording */
	size_t guest_fences;	/* fenced commands of the guest's jobs */
	long long off;		/* host time - guest time at off_at, ns */
	long long off_lo;	/* the bounds the jobs put on it */
	long long off_hi;
	__u64 off_at;		/* guest time: the first joined COMMIT */
	double rate;		/* d(host - guest) / d(guest) */
};

int gr_host_join(struct gr_host *h, const char *path, const struct gr_trace *t);
const struct gr_host_job *gr_host_find(const struct gr_host *h, __u64 fctx, __u64 fseq);
void gr_host_split(const struct gr_host_job *hj, __s64 *to, __s64 *on, __s64 *back);
const char *gr_host_type_name(__u32 type);
void gr_host_free(struct gr_host *h);

#endif /* __GRTRACE_HOST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace export: the phases of the jobs placed on KernelShark lanes
 * (lanes.c); the bound on the lanes of a ring, shared with the Chrome tracks.
 */
#ifndef __GRTRACE_EXPORT_H
#define __GRTRACE_EXPORT_H

#include <stdio.h>

#include "events.h"
#include "jobs.h"

#define GR_LANES	500	/* lanes of a ring at most */

/* The phases of a job on its KernelShark lane, in their order */
enum { GR_PH_HOST, GR_PH_QUEUE, GR_PH_EXEC, GR_PH_DEVICE, GR_PH_COMPLETE, GR_PH_NR };

struct gr_export_params {
	const char *input;
	const char *chrome;
	const char *ks_session;
	int session;		/* --session N: the Nth of the input; 0: its only one */
	const char *kernelshark;
	const char *host;
	char *last_boot;	/* --last-boot: "instance:NAME" or a file (allocated) */
};

/* One phase of a job on a KernelShark lane: its kind and the job's lane (of the ring) */
struct gr_slice {
	size_t job;
	__u32 ring;
	int kind;
	__u64 start;
	__u64 end;
	int lane;
};

/*
 * --kernelshark: every event and job in memory.  (--chrome streams; its
 * state is export.c's own.)
 */
struct gr_exporter {
	struct gr_trace t;
	struct gr_jobs jobs;
	struct gr_slice *sl;	/* phases, by ring, lane, kind, start */
	size_t nr_sl;
	size_t cap_sl;
};

int gr_export_kernelshark(struct gr_exporter *ex, const char *path, const char *session);

#endif /* __GRTRACE_EXPORT_H */

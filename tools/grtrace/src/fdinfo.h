/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the DRM clients' own counts of their GPU time, from their
 * fdinfo (Documentation/gpu/drm-usage-stats.rst).
 */
#ifndef __GRTRACE_FDINFO_H
#define __GRTRACE_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define GR_DRM_ENGINES	16

/* An engine class of a client: what its keys gave at the last scan */
struct gr_drm_engine {
	char name[24];
	__u64 ns;		/* drm-engine-<name>, busy ns */
	__u64 cycles;		/* drm-cycles-<name> */
	__u64 total;		/* drm-total-cycles-<name> */
	__u32 capacity;		/* drm-engine-capacity-<name>, else 1 */
	bool has_ns, has_cycles, has_total;
	double busy;		/* % of the interval it ended, -1 if unknown */
};

/* A DRM client: one open of a device, however many fds and processes share it */
struct gr_drm_client {
	char pdev[32];		/* drm-pdev, else the driver's name */
	__u64 id;		/* drm-client-id */
	__u32 tgid;		/* the lowest process id that holds it */
	char comm[17];
	struct gr_drm_engine eng[GR_DRM_ENGINES];
	unsigned int nr_eng;
};

struct gr_fdinfo {
	const char *proc;	/* /proc, or $GRTRACE_PROC */
	struct gr_drm_client *cur, *prev;
	size_t nr_cur, nr_prev, cap_cur, cap_prev;
	__u64 t_cur, t_prev;	/* CLOCK_MONOTONIC ns of the scans */
};

void gr_fdinfo_init(struct gr_fdinfo *fi);
void gr_fdinfo_scan(struct gr_fdinfo *fi);
void gr_fdinfo_free(struct gr_fdinfo *fi);

#endif /* __GRTRACE_FDINFO_H */

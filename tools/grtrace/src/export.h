/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace export: the phases of the jobs, placed on tracks, shared by the
 * output formats.
 */
#ifndef __GRTRACE_EXPORT_H
#define __GRTRACE_EXPORT_H

#include <stdio.h>

#include "events.h"
#include "jobs.h"

#define GR_LANES	500	/* lanes of a ring and kind at most */

enum { GR_EXEC, GR_QUEUE };

struct gr_export_params {
	const char *input;
	const char *chrome;
	const char *kernelshark;
};

/*
 * One phase of a job on a track (KernelShark), or a whole job (Chrome):
 * kind and lane (of the ring)
 */
struct gr_slice {
	size_t job;
	__u32 ring;
	int kind;
	__u64 start;
	__u64 end;
	int lane;
};

struct gr_exporter {
	struct gr_trace t;
	struct gr_jobs jobs;
	struct gr_slice *sl;	/* phases, by ring, kind, start */
	size_t nr_sl;
	size_t cap_sl;
	struct gr_slice *js;	/* jobs, by ring, start */
	size_t nr_js;
	size_t cap_js;
	long *job_js;		/* per job: its index in js, or -1 */
	long *tids;		/* tracks named so far */
	size_t nr_tids;
	char **devs;		/* device index -> name */
	int nr_devs;
	FILE *f;
	size_t events;
	__u64 origin;		/* time 0 of the Chrome trace */
};

int gr_export_kernelshark(struct gr_exporter *ex, const char *path);

#endif /* __GRTRACE_EXPORT_H */

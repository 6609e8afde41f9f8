/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: CPU/GPU correlation.  The DRM (and NVIDIA) ioctls printed by
 * grtrace-bpf-annotate, and which of them submitted which GPU job.
 */
#ifndef __GRTRACE_CORRELATE_H
#define __GRTRACE_CORRELATE_H

#include <stdbool.h>
#include <stdio.h>

#include "events.h"
#include "jobs.h"

#define GR_DRV_LEN	16
#define GR_NAME_LEN	32

/* One ioctl of one thread: an IOCTL_ENTER and its IOCTL_EXIT */
struct gr_ioctl {
	__u64 enter;		/* ns; from EXIT - duration_ns without ENTER */
	__u64 exit;		/* ns; 0: no IOCTL_EXIT seen */
	__u64 cmd;
	__u64 arg;
	__s64 ret;
	__u32 pid;		/* process (tgid) */
	__u32 tid;
	bool have_enter;
	bool have_exit;
	unsigned int line;	/* of the ENTER, or of the EXIT without one */
	unsigned int jobs;	/* GPU jobs it submitted */
	char comm[17];
	char drv[GR_DRV_LEN];	/* drv=: "" for DRM, "nvidia" */
	char name[GR_NAME_LEN];	/* name=: the annotator's name of it */
};

/* The annotator's output */
struct gr_cpu {
	const char *path;
	struct gr_ioctl *io;	/* sorted by tid, then enter */
	size_t nr;
	size_t lines;		/* event lines taken */
	size_t bad;		/* lines skipped, each reported */
	size_t no_exit;		/* ENTER without EXIT */
	size_t no_enter;	/* EXIT without ENTER */
	__u64 first_ts;
	__u64 last_ts;
};

int gr_cpu_load(struct gr_cpu *c, const char *path);
void gr_cpu_free(struct gr_cpu *c);

/* Why a job has no ioctl */
enum gr_why {
	GR_MATCHED,
	GR_NO_SUBMIT,		/* its SUBMIT is not in the recording */
	GR_NO_SUBMITTER,	/* SUBMIT without a pid */
	GR_NO_THREAD,		/* the thread made no DRM ioctl at all */
	GR_OUTSIDE,		/* SUBMIT outside every ioctl of its thread */
	GR_WHY_NR,
};

extern const char * const gr_why_names[GR_WHY_NR];

/* Gaps of a job, ns; a gap is valid when its bit is set in .valid */
enum gr_gap {
	GR_GAP_IOCTL,		/* SUBMIT - IOCTL_ENTER */
	GR_GAP_QUEUE,		/* START (or COMMIT without START) - SUBMIT */
	GR_GAP_EXEC,		/* END - START (or COMMIT without START) */
	GR_GAP_RETURN,		/* IOCTL_EXIT - SUBMIT */
	GR_GAP_NR,
};

extern const char * const gr_gap_names[GR_GAP_NR];

struct gr_match {
	long io;		/* index in gr_cpu.io, -1: none */
	enum gr_why why;
	unsigned int valid;	/* bit N: gap N is known */
	bool by_commit;		/* no START: COMMIT stands in for it */
	bool queued;		/* no SUBMIT its events tell: matched at COMMIT */
	__s64 gap[GR_GAP_NR];
};

/* What merge and timeline share */
struct gr_corr {
	struct gr_trace t;
	struct gr_jobs jobs;
	struct gr_cpu cpu;
	bool have_cpu;
	__s64 offset;		/* added to every GPU time */
	struct gr_match *m;	/* per job */
	size_t nr_why[GR_WHY_NR];
};

int gr_corr_load(struct gr_corr *in, const char *gpu, int session, const char *cpu,
		 __s64 offset);
void gr_corr_free(struct gr_corr *in);
FILE *gr_output_open(const char *path);
int gr_output_close(FILE *f, const char *path);

__u64 gr_corr_job_ts(const struct gr_corr *in, const struct gr_job *j, int type);
bool gr_job_seen(const struct gr_job *j, int type);

int gr_parse_offset(const char *s, __s64 *ns);
const char *gr_ioctl_name(const struct gr_ioctl *io, char *buf, size_t len);
const char *gr_ts(const struct gr_corr *in, __s64 ts, char *buf, size_t len);
__s64 gr_origin(const struct gr_corr *in);
const char *gr_dur(__s64 ns, char *buf, size_t len);

#endif /* __GRTRACE_CORRELATE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: CPU/GPU correlation.  The DRM ioctls printed by
 * grtrace-bpf-annotate, and which of them submitted which GPU job.
 */
#ifndef __GRTRACE_CORRELATE_H
#define __GRTRACE_CORRELATE_H

#include <stdbool.h>
#include <stdio.h>

#include "jobs.h"
#include "stream.h"

/* One DRM ioctl of one thread: an IOCTL_ENTER and its IOCTL_EXIT */
struct gc_ioctl {
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
};

/* The annotator's output */
struct gc_cpu {
	const char *path;
	struct gc_ioctl *io;	/* sorted by tid, then enter */
	size_t nr;
	size_t lines;		/* event lines taken */
	size_t bad;		/* lines skipped, each reported */
	size_t no_exit;		/* ENTER without EXIT */
	size_t no_enter;	/* EXIT without ENTER */
	__u64 first_ts;
	__u64 last_ts;
};

int gc_cpu_load(struct gc_cpu *c, const char *path);
void gc_cpu_free(struct gc_cpu *c);

/* Why a job has no ioctl */
enum gc_why {
	GC_MATCHED,
	GC_NO_SUBMIT,		/* its SUBMIT is not in the recording */
	GC_NO_SUBMITTER,	/* SUBMIT without a pid */
	GC_NO_THREAD,		/* the thread made no DRM ioctl at all */
	GC_OUTSIDE,		/* SUBMIT outside every ioctl of its thread */
	GC_WHY_NR,
};

extern const char * const gc_why_names[GC_WHY_NR];

/* Gaps of a job, ns; a gap is valid when its bit is set in .valid */
enum gc_gap {
	GC_GAP_IOCTL,		/* SUBMIT - IOCTL_ENTER */
	GC_GAP_QUEUE,		/* START (or COMMIT without START) - SUBMIT */
	GC_GAP_EXEC,		/* END - START (or COMMIT without START) */
	GC_GAP_RETURN,		/* IOCTL_EXIT - SUBMIT */
	GC_GAP_NR,
};

extern const char * const gc_gap_names[GC_GAP_NR];

struct gc_match {
	long io;		/* index in gc_cpu.io, -1: none */
	enum gc_why why;
	unsigned int valid;	/* bit N: gap N is known */
	bool by_commit;		/* no START: COMMIT stands in for it */
	__s64 gap[GC_GAP_NR];
};

/* What merge and timeline share */
struct gc_input {
	struct gr_trace t;
	struct gr_jobs jobs;
	struct gc_cpu cpu;
	bool have_cpu;
	__s64 offset;		/* added to every GPU time */
	struct gc_match *m;	/* per job */
	size_t nr_why[GC_WHY_NR];
};

int gc_input_load(struct gc_input *in, const char *gpu, const char *cpu, __s64 offset);
void gc_input_free(struct gc_input *in);
FILE *gc_output_open(const char *path);
int gc_output_close(FILE *f, const char *path);

__u64 gc_job_ts(const struct gc_input *in, const struct gr_job *j, int type);
bool gc_job_seen(const struct gr_job *j, int type);

int parse_offset(const char *s, __s64 *ns);
const char *gc_ioctl_name(__u64 cmd, char *buf, size_t len);
const char *gc_ts(__u64 ns, char *buf, size_t len);
const char *gc_dur(__s64 ns, char *buf, size_t len);

#endif /* __GRTRACE_CORRELATE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the records of an input, one at a time, in gseq order, in
 * memory bounded by the number of files (not by their length).
 */
#ifndef __GRTRACE_SOURCE_H
#define __GRTRACE_SOURCE_H

#include "events.h"

struct gr_run;
struct gr_reader;

struct gr_dat;

struct gr_src {
	struct gr_trace *t;
	int *fd;		/* per file of t->files, -1 if not open */
	__u64 *size;
	int nr_fd;
	struct gr_run *run;	/* sorted runs of records, by file and offset */
	int nr_run;
	int *heap;		/* runs with records left, by head gseq */
	int nr_heap;
	size_t win;		/* bytes of window per run */
	bool array;		/* trace.dat read whole, an instance: the events are in t->ev */
	struct gr_dat *dat;	/* ...or a trace.dat read as a stream */
	size_t next;		/* array: next event */
	bool have_prev;
	__u64 prev_gseq;	/* the last record returned, for duplicates */
	__u32 prev_file;
	__u64 prev_off;
	int spool;		/* live: the relay files' records, copied */
	__u64 *sids;		/* the session ids met, by session number - 1 */
	int nr_sids;
};

int gr_src_open(struct gr_src *s, struct gr_trace *t, const char *path);
int gr_src_next(struct gr_src *s, struct gr_event *ev);
int gr_src_rewind(struct gr_src *s);
void gr_src_close(struct gr_src *s);
int gr_session_number(__u64 **sids, int *nr_sids, __u64 id);
void gr_src_no_records(const char *input, const char *file, int nr_files, bool live);
int gr_input_cpus_read(const struct gr_trace *t);
void gr_input_partial_warn(const struct gr_trace *t);

#endif /* __GRTRACE_SOURCE_H */

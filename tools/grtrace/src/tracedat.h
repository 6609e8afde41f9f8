/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: reading the grtrace events of a trace-cmd recording (trace.dat)
 * or of an ftrace instance.
 */
#ifndef __GRTRACE_TRACEDAT_H
#define __GRTRACE_TRACEDAT_H

#include <stdbool.h>

#include "events.h"

bool gr_is_tracedat(const char *path);
int gr_tracedat_load(struct gr_trace *t, const char *path);
int gr_instance_load(struct gr_trace *t, const char *name);

struct gr_dat;
struct gr_dat *gr_dat_open(struct gr_trace *t, const char *path);
void gr_dat_rewind(struct gr_dat *d);
int gr_dat_next(struct gr_dat *d, struct gr_event *ev);
void gr_dat_close(struct gr_dat *d);

struct tep_handle;
struct tep_event;
struct tep_record;
struct gr_upstream;
int gr_tep_event(struct gr_trace *t, struct tep_handle *tep, struct gr_upstream *up,
		 __u64 *gseq, struct tep_event *event, struct tep_record *rec, int cpu);

#endif /* __GRTRACE_TRACEDAT_H */

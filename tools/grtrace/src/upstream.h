/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: GPU jobs from the kernel's own tracepoints (gpu_scheduler,
 * dma_fence, virtio_gpu), for a recording made without grtrace's events.
 */
#ifndef __GRTRACE_UPSTREAM_H
#define __GRTRACE_UPSTREAM_H

#include <stdbool.h>

#include "events.h"

struct tep_event;
struct tep_handle;
struct tep_record;

extern const char * const gr_upstream_names[GR_UP_NR];

struct gr_upstream;

struct gr_upstream *gr_upstream_new(void);
void gr_upstream_free(struct gr_upstream *u);
bool gr_upstream_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
		       struct tep_event *event, struct tep_record *rec, int cpu,
		       __u64 *gseq);
void gr_upstream_reset(struct gr_upstream *u);
bool gr_upstream_no_complete(const struct gr_upstream *u, const struct gr_trace *t);
void gr_upstream_finish(struct gr_upstream *u, struct gr_trace *t);
void gr_upstream_number(struct gr_upstream *u, struct gr_trace *t);

__u64 gr_tep_num(struct tep_event *event, struct tep_record *rec, const char *name);
void gr_tep_str(struct tep_event *event, struct tep_record *rec, const char *name,
		char *buf, size_t len);
bool gr_tracefs_system(const char *system);

#endif /* __GRTRACE_UPSTREAM_H */

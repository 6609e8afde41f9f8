/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace - the DRM GPU scheduler's jobs, recorded from its tracepoints.
 */
#ifndef _GRTRACE_SCHED_H
#define _GRTRACE_SCHED_H

#include <linux/types.h>

struct drm_gpu_scheduler;
struct drm_sched_fence;
struct grtrace_job;
struct grtrace_ring;

#if IS_ENABLED(CONFIG_GRTRACE_DRM_SCHED)
int grtrace_sched_get(void);
void grtrace_sched_put(void);
u64 grtrace_sched_waits_untracked(void);
void grtrace_sched_init(void);
void grtrace_sched_exit(void);
const struct grtrace_ring *
grtrace_sched_ring(const struct drm_gpu_scheduler *sched);
void grtrace_sched_fill(struct grtrace_job *gj, struct drm_sched_fence *s_fence);
#else
static inline int grtrace_sched_get(void) { return 0; }
static inline void grtrace_sched_put(void) { }
static inline u64 grtrace_sched_waits_untracked(void) { return 0; }
static inline void grtrace_sched_init(void) { }
static inline void grtrace_sched_exit(void) { }
#endif

#endif /* _GRTRACE_SCHED_H */

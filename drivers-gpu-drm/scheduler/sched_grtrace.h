/* SPDX-License-Identifier: MIT */
#ifndef _DRM_SCHED_GRTRACE_H_
#define _DRM_SCHED_GRTRACE_H_

#include <drm/gpu_scheduler.h>
#include <linux/grtrace.h>

/**
 * struct drm_sched_grtrace_timeout - a timed-out job, named before the
 *	driver's &drm_sched_backend_ops.timedout_job may free it
 * @report: whether grtrace was enabled when the timeout fired
 * @done: whether the job had finished by then, by its hardware fence or a
 *	earlier reset
 * @job: the job's identity, ring and context
 */
struct drm_sched_grtrace_timeout {
	bool report;
	bool done;
	struct grtrace_job job;
};

#if IS_ENABLED(CONFIG_GRTRACE_DRM_BRIDGE)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool drm_sched_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void drm_sched_grtrace_init(struct drm_gpu_scheduler *sched);
void drm_sched_grtrace_fini(struct drm_gpu_scheduler *sched);
void drm_sched_grtrace_fence(struct drm_sched_fence *s_fence, u16 type, s32 arg);
void drm_sched_grtrace_wait_enter(struct drm_sched_entity *entity,
				  struct drm_sched_job *sched_job,
				  struct dma_fence *dep);
void __drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity, int status);

void drm_sched_grtrace_timeout_begin(struct drm_sched_grtrace_timeout *gt,
				     struct drm_sched_job *job);
void drm_sched_grtrace_timeout_end(struct drm_sched_grtrace_timeout *gt,
				   enum drm_gpu_sched_stat status,
				   struct drm_sched_job *job);

/* One plain load on the hot path; the report only if a wait was entered. */
static inline void drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity,
					       int status)
{
	if (atomic_read(&entity->grtrace_wait.armed))
		__drm_sched_grtrace_wait_exit(entity, status);
}

#else

static inline bool drm_sched_grtrace_enabled(void) { return false; }
static inline void drm_sched_grtrace_init(struct drm_gpu_scheduler *sched) { }
static inline void drm_sched_grtrace_fini(struct drm_gpu_scheduler *sched) { }
static inline void drm_sched_grtrace_fence(struct drm_sched_fence *s_fence,
					   u16 type, s32 arg) { }
static inline void
drm_sched_grtrace_timeout_begin(struct drm_sched_grtrace_timeout *gt,
				struct drm_sched_job *job) { }
static inline void
drm_sched_grtrace_timeout_end(struct drm_sched_grtrace_timeout *gt,
			      enum drm_gpu_sched_stat status,
			      struct drm_sched_job *job) { }
static inline void drm_sched_grtrace_wait_enter(struct drm_sched_entity *entity,
						struct drm_sched_job *sched_job,
						struct dma_fence *dep) { }
static inline void drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity,
					       int status) { }

#endif

static inline void drm_sched_grtrace_job(struct drm_sched_job *sched_job,
					 u16 type, s32 arg)
{
	drm_sched_grtrace_fence(sched_job->s_fence, type, arg);
}

#endif /* _DRM_SCHED_GRTRACE_H_ */

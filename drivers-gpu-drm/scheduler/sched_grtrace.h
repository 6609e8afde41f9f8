/* SPDX-License-Identifier: MIT */
#ifndef _DRM_SCHED_GRTRACE_H_
#define _DRM_SCHED_GRTRACE_H_

#include <drm/gpu_scheduler.h>
#include <linux/grtrace.h>

#if IS_ENABLED(CONFIG_GRTRACE_DRM_BRIDGE)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool drm_sched_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void drm_sched_grtrace_init(struct drm_gpu_scheduler *sched);
void drm_sched_grtrace_fini(struct drm_gpu_scheduler *sched);
void drm_sched_grtrace_fence(struct drm_sched_fence *s_fence, u16 type, s32 arg);
void drm_sched_grtrace_error(struct drm_gpu_scheduler *sched,
			     struct drm_sched_job *sched_job, s32 code);
void drm_sched_grtrace_wait_enter(struct drm_sched_entity *entity,
				  struct drm_sched_job *sched_job,
				  struct dma_fence *dep);
void __drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity, int status);

/* One plain load on the hot path; the report only if a wait was entered. */
static inline void drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity,
					       int status)
{
	if (READ_ONCE(entity->grtrace_wait.seqno))
		__drm_sched_grtrace_wait_exit(entity, status);
}

#else

static inline bool drm_sched_grtrace_enabled(void) { return false; }
static inline void drm_sched_grtrace_init(struct drm_gpu_scheduler *sched) { }
static inline void drm_sched_grtrace_fini(struct drm_gpu_scheduler *sched) { }
static inline void drm_sched_grtrace_fence(struct drm_sched_fence *s_fence,
					   u16 type, s32 arg) { }
static inline void drm_sched_grtrace_error(struct drm_gpu_scheduler *sched,
					   struct drm_sched_job *sched_job,
					   s32 code) { }
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

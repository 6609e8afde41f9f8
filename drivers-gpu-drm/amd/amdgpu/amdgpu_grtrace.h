/* SPDX-License-Identifier: MIT */
#ifndef __AMDGPU_GRTRACE_H__
#define __AMDGPU_GRTRACE_H__

#include <linux/grtrace.h>

struct amdgpu_ring;
struct drm_sched_job;

#if IS_ENABLED(CONFIG_GRTRACE_AMDGPU)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool amdgpu_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void amdgpu_grtrace_ring_init(struct amdgpu_ring *ring);
void amdgpu_grtrace_ring_fini(struct amdgpu_ring *ring);
void amdgpu_grtrace_irq(struct amdgpu_ring *ring);
void amdgpu_grtrace_error(struct amdgpu_ring *ring,
			  struct drm_sched_job *s_job, s32 code);

#else

static inline bool amdgpu_grtrace_enabled(void) { return false; }
static inline void amdgpu_grtrace_ring_init(struct amdgpu_ring *ring) { }
static inline void amdgpu_grtrace_ring_fini(struct amdgpu_ring *ring) { }
static inline void amdgpu_grtrace_irq(struct amdgpu_ring *ring) { }
static inline void amdgpu_grtrace_error(struct amdgpu_ring *ring,
					struct drm_sched_job *s_job,
					s32 code) { }

#endif

#endif /* __AMDGPU_GRTRACE_H__ */

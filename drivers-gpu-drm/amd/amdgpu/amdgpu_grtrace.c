// SPDX-License-Identifier: MIT
/*
 * Report what the DRM scheduler cannot see of amdgpu jobs to grtrace.
 */

#include <linux/grtrace.h>

#include "amdgpu.h"
#include "amdgpu_grtrace.h"

/**
 * DOC: grtrace
 *
 * With CONFIG_GRTRACE_AMDGPU, amdgpu adds to the events grtrace records of
 * its jobs from the DRM scheduler's tracepoints (SUBMIT, COMMIT, END,
 * COMPLETE, dependency waits, timeouts and resets, see
 * drivers/gpu/grtrace/grtrace_sched.c) what only amdgpu knows, on a ring of
 * its own with the device and name of the scheduler's ring, so that every
 * event of a job is recorded once.  The two rings have ids of their own
 * in a recording, under one name:
 *
 * ============= ============================== ============================
 * event         where                          why there
 * ============= ============================== ============================
 * (ring class)  amdgpu_device_init_schedulers() the engine class of the ring
 *                                              from its &amdgpu_ring_funcs
 *                                              type
 * IRQ           amdgpu_fence_process()         an IP block's end-of-pipe
 *                                              interrupt handler processes
 *                                              the ring's fences; the
 *                                              scheduler's END and COMPLETE
 *                                              of the jobs it completes
 *                                              follow
 * ERROR(reset)  amdgpu_job_timedout()          a per-queue reset, an IP
 *                                              block soft reset or a full
 *                                              GPU recovery succeeded for
 *                                              a timed out job
 * ============= ============================== ============================
 *
 * amdgpu's timeout handler returns %DRM_GPU_SCHED_STAT_NO_HANG whatever it
 * did (but for an unplugged device), and resets without drm_sched_stop(),
 * so the scheduler cannot tell a reset: it reports the job's
 * ERROR(timeout) from the error amdgpu puts on the job's fences (-ETIME
 * for a reset, -ENODATA for soft recovery), and amdgpu reports the reset,
 * naming the job: the reset comes first, from the handler, the timeout
 * once it returned.  A full recovery is reported only if it ended the
 * job's hardware fence with an error: amdgpu_device_gpu_recover() also
 * returns 0 when RAS recovery takes over, or when the job ended meanwhile
 * and nothing was reset.  Soft recovery kills the job's waves and resets
 * nothing: the job's ERROR(timeout) and its COMPLETE with -ENODATA tell
 * it.
 *
 * Submission (amdgpu_cs_ioctl() pushing the job to its entity, in the
 * submitting task) and the doorbell (amdgpu_ring_commit(), called from the
 * scheduler's run_job callback) are already reported by the scheduler as
 * SUBMIT and COMMIT; the hardware writes a job's fence at its end of pipe
 * only, so there is no START.  Rings without a scheduler (KIQ, MES) and
 * direct submissions that bypass it (ring and IB tests, some VM updates)
 * are not traced.
 */

static u16 amdgpu_grtrace_engine(const struct amdgpu_ring *ring)
{
	switch (ring->funcs->type) {
	case AMDGPU_RING_TYPE_GFX:
		return GRTRACE_ENGINE_GRAPHICS;
	case AMDGPU_RING_TYPE_COMPUTE:
		return GRTRACE_ENGINE_COMPUTE;
	case AMDGPU_RING_TYPE_SDMA:
		return GRTRACE_ENGINE_COPY;
	case AMDGPU_RING_TYPE_UVD:
	case AMDGPU_RING_TYPE_VCN_DEC:
	case AMDGPU_RING_TYPE_VCN_JPEG:
		return GRTRACE_ENGINE_VIDEO_DECODE;
	case AMDGPU_RING_TYPE_UVD_ENC:
	case AMDGPU_RING_TYPE_VCE:
	case AMDGPU_RING_TYPE_VCN_ENC:
		/* VCN 4+ unified rings decode too; they are VCN_ENC rings. */
		return GRTRACE_ENGINE_VIDEO_ENCODE;
	default:
		return GRTRACE_ENGINE_OTHER;
	}
}

/**
 * amdgpu_grtrace_ring_init - trace a ring whose scheduler was initialized
 * @ring: the ring, right after drm_sched_init() succeeded on it
 *
 * Registers the ring, named as its scheduler is, with the engine class of
 * its type; no interrupt of the ring is handled yet.
 */
void amdgpu_grtrace_ring_init(struct amdgpu_ring *ring)
{
	ring->grtrace = (struct grtrace_ring) {
		.dev = dev_name(ring->adev->dev),
		.name = ring->name,
		.engine = amdgpu_grtrace_engine(ring),
	};
	grtrace_ring_register(&ring->grtrace);
	WRITE_ONCE(ring->grtrace_on, true);
}

/**
 * amdgpu_grtrace_ring_fini - stop tracing a ring
 * @ring: the ring, before drm_sched_fini() on it
 */
void amdgpu_grtrace_ring_fini(struct amdgpu_ring *ring)
{
	if (!ring->grtrace_on)
		return;
	WRITE_ONCE(ring->grtrace_on, false);
	grtrace_ring_unregister(&ring->grtrace);
}

/**
 * amdgpu_grtrace_irq - report a fence interrupt of a ring
 * @ring: the ring
 */
void amdgpu_grtrace_irq(struct amdgpu_ring *ring)
{
	struct grtrace_job gj = { .ring = &ring->grtrace };

	if (READ_ONCE(ring->grtrace_on))
		grtrace_irq(&gj);
}

/**
 * amdgpu_grtrace_error - report an error of a ring
 * @ring: the ring
 * @s_job: the job at fault, or NULL
 * @code: enum grtrace_error
 *
 * The job is named as the scheduler names it: its finished fence, and the
 * entity's scheduled fence context as its context.
 */
void amdgpu_grtrace_error(struct amdgpu_ring *ring,
			  struct drm_sched_job *s_job, s32 code)
{
	struct grtrace_job gj = {
		.ring = &ring->grtrace,
		.status = code,
	};

	if (!READ_ONCE(ring->grtrace_on))
		return;
	if (s_job && s_job->s_fence) {
		gj.ctx_id = s_job->s_fence->scheduled.context;
		gj.fence_context = s_job->s_fence->finished.context;
		gj.fence_seqno = s_job->s_fence->finished.seqno;
	}
	grtrace_error(&gj);
}

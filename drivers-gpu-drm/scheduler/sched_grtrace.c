// SPDX-License-Identifier: MIT
/*
 * Report the jobs of every DRM GPU scheduler to grtrace.
 */

#include <drm/gpu_scheduler.h>
#include <linux/device.h>
#include <linux/grtrace.h>

#include "sched_grtrace.h"

/**
 * DOC: grtrace
 *
 * With CONFIG_GRTRACE_DRM_BRIDGE, every &drm_gpu_scheduler is a grtrace ring
 * named after the scheduler, on the device of the scheduler, with the engine
 * class guessed from the scheduler name.  Its jobs are reported as follows;
 * a job is identified by its finished fence, its context is the entity's
 * scheduled fence context.
 *
 * ================ ================================ ========================
 * event            where                            why there
 * ================ ================================ ========================
 * SUBMIT           drm_sched_entity_push_job()      the submitting task
 *                                                   hands the job over;
 *                                                   depth is the entity's
 *                                                   queue including the job
 * SYNC_WAIT_ENTER  drm_sched_entity_pop_job()       the job's next
 *                                                   dependency is looked at
 *                                                   before it can run
 * SYNC_WAIT_EXIT   drm_sched_entity_wakeup(), or    the dependency signalled
 *                  at once if already signalled     (or had already)
 * COMMIT           drm_sched_run_job_work()         right before
 *                                                   &drm_sched_backend_ops.run_job
 *                                                   writes it to the ring
 * END              drm_sched_job_done()             the hardware fence
 *                                                   signalled
 * COMPLETE         drm_sched_job_done()             the finished fence was
 *                                                   signalled, with its error
 * ERROR(timeout)   drm_sched_job_timedout()         the job exceeded the
 *                                                   scheduler timeout
 * ERROR(reset)     drm_sched_stop()                 the driver stops the
 *                                                   scheduler to recover
 * ================ ================================ ========================
 *
 * The scheduler cannot see when the hardware starts a job, switches
 * contexts or raises interrupts; drivers report those themselves on the same
 * ring (drm_sched_grtrace_ring()), and leave the events above to the
 * scheduler, so each event of a job is recorded once.
 */

/**
 * drm_sched_grtrace_init - register a scheduler as a grtrace ring
 * @sched: the scheduler, with @name and @dev set
 */
void drm_sched_grtrace_init(struct drm_gpu_scheduler *sched)
{
	struct grtrace_ring *ring = &sched->grtrace_ring;

	ring->dev = sched->dev ? dev_name(sched->dev) : "drm_sched";
	ring->name = sched->name ? sched->name : "unnamed";
	ring->engine = grtrace_engine_from_name(sched->name);
	grtrace_ring_register(ring);
}

/**
 * drm_sched_grtrace_fini - unregister a scheduler's grtrace ring
 * @sched: the scheduler
 */
void drm_sched_grtrace_fini(struct drm_gpu_scheduler *sched)
{
	grtrace_ring_unregister(&sched->grtrace_ring);
}

static void drm_sched_grtrace_fill(struct grtrace_job *gj,
				   struct drm_gpu_scheduler *sched,
				   struct drm_sched_fence *s_fence)
{
	*gj = (struct grtrace_job) {
		.ring = &sched->grtrace_ring,
	};
	if (s_fence) {
		gj->ctx_id = s_fence->scheduled.context;
		gj->fence_context = s_fence->finished.context;
		gj->fence_seqno = s_fence->finished.seqno;
	}
}

/**
 * drm_sched_grtrace_fence - report an event of a scheduler job
 * @s_fence: the job's scheduler fence
 * @type: GRTRACE_EV_SUBMIT, _COMMIT, _END, _COMPLETE or _ERROR
 * @arg: queue depth for SUBMIT, fence status for COMPLETE, enum
 *       grtrace_error for ERROR
 *
 * Takes the fence rather than the job so that the finished fence can be
 * reported after it was signalled, when the job may already be freed.
 */
void drm_sched_grtrace_fence(struct drm_sched_fence *s_fence, u16 type, s32 arg)
{
	struct grtrace_job gj;

	drm_sched_grtrace_fill(&gj, s_fence->sched, s_fence);
	switch (type) {
	case GRTRACE_EV_SUBMIT:
		gj.depth = arg;
		grtrace_submit(&gj);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&gj);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&gj);
		break;
	case GRTRACE_EV_COMPLETE:
		gj.status = arg;
		grtrace_complete(&gj);
		break;
	case GRTRACE_EV_ERROR:
		gj.status = arg;
		grtrace_error(&gj);
		break;
	}
}

/**
 * drm_sched_grtrace_error - report a scheduler error, with or without job
 * @sched: the scheduler
 * @sched_job: the job at fault, or NULL
 * @code: enum grtrace_error
 */
void drm_sched_grtrace_error(struct drm_gpu_scheduler *sched,
			     struct drm_sched_job *sched_job, s32 code)
{
	struct grtrace_job gj;

	drm_sched_grtrace_fill(&gj, sched, sched_job ? sched_job->s_fence : NULL);
	gj.status = code;
	grtrace_error(&gj);
}

/**
 * drm_sched_grtrace_dep - report a job waiting for a dependency, or done
 * @sched_job: the job at the head of its entity's queue
 * @dep: the dependency; a scheduler fence is named by its finished fence
 * @enter: true when the wait starts, false when @dep signalled
 */
void drm_sched_grtrace_dep(struct drm_sched_job *sched_job,
			   struct dma_fence *dep, bool enter)
{
	struct drm_sched_fence *dep_s_fence = to_drm_sched_fence(dep);
	struct grtrace_job gj;

	if (!sched_job || !sched_job->s_fence)
		return;
	if (dep_s_fence)
		dep = &dep_s_fence->finished;
	drm_sched_grtrace_fill(&gj, sched_job->s_fence->sched, sched_job->s_fence);
	gj.aux_context = dep->context;
	gj.aux_seqno = dep->seqno;
	if (enter)
		grtrace_sync_wait_enter(&gj);
	else
		grtrace_sync_wait_exit(&gj);
}

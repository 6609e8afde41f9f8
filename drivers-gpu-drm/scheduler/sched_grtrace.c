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
 * SYNC_WAIT_ENTER  drm_sched_entity_pop_job()       the job's next foreign
 *                                                   dependency is looked at
 *                                                   before it can run
 * SYNC_WAIT_EXIT   drm_sched_entity_wakeup(), at    the dependency signalled
 *                  once if already signalled, or    (status 0), or the
 *                  drm_sched_entity_kill()          entity was killed first
 *                                                   (-ESRCH); once per ENTER
 * COMMIT           drm_sched_run_job_work()         right before
 *                                                   &drm_sched_backend_ops.run_job
 *                                                   writes it to the ring
 * END              drm_sched_job_done()             the hardware fence
 *                                                   signalled; none if
 *                                                   run_job failed or gave
 *                                                   no fence, or a reset
 *                                                   took the fence away
 * COMPLETE         drm_sched_fence_finished()       the finished fence was
 *                                                   signalled, with its
 *                                                   error; every path,
 *                                                   killed jobs included
 * ERROR(timeout)   drm_sched_job_timedout()         the job exceeded the
 *                                                   scheduler timeout;
 *                                                   reported before the
 *                                                   driver's timedout_job()
 *                                                   decides what to do
 * ERROR(reset)     drm_sched_stop()                 the driver stops the
 *                                                   scheduler to recover;
 *                                                   the job is named only
 *                                                   on its own scheduler
 * ================ ================================ ========================
 *
 * ERROR(timeout) says that the scheduler's timer expired, not that the job
 * hung: the driver may find it done, or reset and resubmit it.  What the
 * driver decided follows as ERROR(reset) on each ring it stopped, and the
 * job's COMPLETE carries the error its finished fence got.
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
 * drm_sched_grtrace_wait_enter - report a job starting to wait for a dependency
 * @entity: the job's entity
 * @sched_job: the job at the head of @entity's queue
 * @dep: the dependency; a scheduler fence is named by its finished fence
 *
 * Context: the scheduler worker, in drm_sched_entity_pop_job(), before the
 * callback on @dep is armed.  Remembers the wait in @entity for
 * drm_sched_grtrace_wait_exit().
 */
void drm_sched_grtrace_wait_enter(struct drm_sched_entity *entity,
				  struct drm_sched_job *sched_job,
				  struct dma_fence *dep)
{
	struct drm_sched_fence *dep_s_fence = to_drm_sched_fence(dep);
	struct grtrace_job gj;

	if (dep_s_fence)
		dep = &dep_s_fence->finished;
	drm_sched_grtrace_fill(&gj, sched_job->s_fence->sched, sched_job->s_fence);
	gj.aux_context = dep->context;
	gj.aux_seqno = dep->seqno;
	grtrace_sync_wait_enter(&gj);

	entity->grtrace_wait.dep_context = dep->context;
	entity->grtrace_wait.dep_seqno = dep->seqno;
	/* Published by the fence lock dma_fence_add_callback() takes next. */
	WRITE_ONCE(entity->grtrace_wait.seqno, sched_job->s_fence->finished.seqno);
}

/**
 * __drm_sched_grtrace_wait_exit - report the end of the wait entered last
 * @entity: the entity
 * @status: 0 when the dependency signalled, -ESRCH when the entity was
 *	killed first
 *
 * Context: the dependency's fence callback (any context, the fence lock
 * held), the scheduler worker, or entity teardown after the worker is done
 * with @entity.  Only @entity is read: the waiting job may be freed by the
 * time a callback runs.  The xchg() makes exactly one caller report.
 */
void __drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity, int status)
{
	unsigned int seqno = xchg(&entity->grtrace_wait.seqno, 0);
	struct grtrace_job gj;

	if (!seqno || !grtrace_enabled())
		return;
	gj = (struct grtrace_job) {
		.ring = &entity->rq->sched->grtrace_ring,
		.ctx_id = entity->fence_context,
		.fence_context = entity->fence_context + 1,
		.fence_seqno = seqno,
		.aux_context = entity->grtrace_wait.dep_context,
		.aux_seqno = entity->grtrace_wait.dep_seqno,
		.status = status,
	};
	grtrace_sync_wait_exit(&gj);
}

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
 * class guessed from the scheduler name.  A job is identified as the
 * scheduler's own gpu_scheduler events identify it, by its finished fence
 * context:seqno on the device and ring of the same names, so a recording of
 * both joins job by job; its context is the entity's scheduled fence
 * context.  Each event is reported where the scheduler fires the matching
 * gpu_scheduler event, and grtrace adds what those do not say: the end of a
 * dependency wait, and a COMPLETE for every job, its error included.
 *
 * ================ =================================== ===========================
 * event            where                               gpu_scheduler event
 * ================ =================================== ===========================
 * SUBMIT           drm_sched_entity_push_job(), in     drm_sched_job_queue; depth
 *                  the submitting task                 is the entity's queue with
 *                                                      the job
 * SYNC_WAIT_ENTER  drm_sched_entity_pop_job(), for a   drm_sched_job_unschedulable
 *                  dependency not signalled yet        on the same fence: for a
 *                                                      job of the same scheduler
 *                                                      its scheduled fence
 * SYNC_WAIT_EXIT   drm_sched_entity_wakeup(), at once  none; once per ENTER,
 *                  if it signalled meanwhile, or       status 0, or -ESRCH if
 *                  drm_sched_entity_kill()             the entity was killed
 * COMMIT           drm_sched_run_job_work(), before    drm_sched_job_run
 *                  the driver's run_job()
 * END              drm_sched_job_done(), if a          drm_sched_job_done (also
 *                  hardware fence signalled            for jobs without one)
 * COMPLETE         drm_sched_fence_finished(), on      drm_sched_job_error, for
 *                  every path, killed jobs too         an error only; with the
 *                                                      finished fence's error
 * ERROR(timeout),  drm_sched_job_timedout(), once      drm_sched_job_timedout,
 * ERROR(reset)     the driver's timedout_job()         for every verdict
 *                  returned, as below
 * ================ =================================== ===========================
 *
 * drm_sched_job_add_dep has no grtrace event: a dependency matters when the
 * job waits for it, which SYNC_WAIT_ENTER/EXIT report.
 *
 * A timeout is reported once the driver said what it was: a job the driver
 * found running normally (%DRM_GPU_SCHED_STAT_NO_HANG, its hardware fence
 * without error) reports nothing; one it failed itself and handed back
 * (%DRM_GPU_SCHED_STAT_NO_HANG, its hardware fence with an error, as xe
 * does) and a device that is gone (%DRM_GPU_SCHED_STAT_ENODEV) report
 * ERROR(timeout) alone; a hang the driver reset ERROR(timeout) then
 * ERROR(reset), both naming the job.  drm_sched_stop() reports nothing:
 * drivers also stop schedulers for reasons other than a hang.  A driver
 * that resets other rings with the faulty one reports those resets itself.
 * The job's COMPLETE carries the error its finished fence got; as the
 * driver's recovery completes the job before timedout_job() returns, the
 * ERROR events of a timeout follow the job's COMPLETE.
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
	/* Guessed when the ring first reports while something traces. */
	ring->engine = GRTRACE_ENGINE_FROM_NAME;
	grtrace_ring_register(ring);
}

/**
 * drm_sched_grtrace_fini - unregister a scheduler's grtrace ring
 * @sched: the scheduler
 *
 * Called by drm_sched_fini() once its workers are stopped and its timeout
 * cancelled: no event of @sched can be reported after.  While nothing
 * traces, it is one atomic exchange, so drivers that create a scheduler per
 * queue pay nothing more for it.
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
		gj->client_id = s_fence->drm_client_id;
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
 * drm_sched_grtrace_timeout_begin - name a job whose timeout fired
 * @gt: where to keep the job's identity
 * @job: the job, off the pending list and alive until
 *	&drm_sched_backend_ops.timedout_job is called
 *
 * Context: the scheduler's timeout worker.
 */
void drm_sched_grtrace_timeout_begin(struct drm_sched_grtrace_timeout *gt,
				     struct drm_sched_job *job)
{
	struct dma_fence *parent = READ_ONCE(job->s_fence->parent);
	struct dma_fence *finished = &job->s_fence->finished;

	gt->report = grtrace_enabled();
	if (!gt->report)
		return;
	/*
	 * Its hardware fence signalled before the free worker ran, or a reset
	 * completed it (and cleared @parent) and drm_sched_start() re-armed
	 * the timeout before it was freed.
	 */
	gt->done = test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &finished->flags) ||
		   (parent && test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &parent->flags));
	drm_sched_grtrace_fill(&gt->job, job->sched, job->s_fence);
}

/**
 * drm_sched_grtrace_timeout_end - report a timeout as the driver decided it
 * @gt: the job named by drm_sched_grtrace_timeout_begin()
 * @status: what &drm_sched_backend_ops.timedout_job returned
 * @job: the job; read only for %DRM_GPU_SCHED_STAT_NO_HANG
 *
 * Context: the scheduler's timeout worker.  After a reset the job may be
 * freed by now, and only @gt is read; after %DRM_GPU_SCHED_STAT_NO_HANG the
 * timeout worker still holds it, off the pending list.
 *
 * A job that had finished when its timeout fired did not time out, whatever
 * the driver returns: nothing is reported, and a job is reported timed out
 * at most once.  %DRM_GPU_SCHED_STAT_NO_HANG is a benign timeout unless the
 * driver failed the job's hardware fence while handling it: xe returns it
 * for the jobs it timed out and cancelled itself, to have the scheduler
 * keep them until they are freed.
 */
void drm_sched_grtrace_timeout_end(struct drm_sched_grtrace_timeout *gt,
				   enum drm_gpu_sched_stat status,
				   struct drm_sched_job *job)
{
	struct dma_fence *parent;

	if (!gt->report || gt->done || !grtrace_enabled())
		return;
	if (status == DRM_GPU_SCHED_STAT_NO_HANG) {
		parent = READ_ONCE(job->s_fence->parent);
		if (!parent || !READ_ONCE(parent->error))
			return;
	}
	gt->job.status = GRTRACE_ERROR_TIMEOUT;
	grtrace_error(&gt->job);
	if (status != DRM_GPU_SCHED_STAT_RESET)
		return;
	gt->job.status = GRTRACE_ERROR_RESET;
	grtrace_error(&gt->job);
}

/**
 * drm_sched_grtrace_wait_enter - report a job starting to wait for a dependency
 * @entity: the job's entity
 * @sched_job: the job at the head of @entity's queue
 * @dep: the fence the job waits for, named as drm_sched_job_unschedulable
 *	names it
 *
 * Context: the scheduler worker, in drm_sched_entity_pop_job(), before the
 * callback on @dep is armed, so no exit can race with the enter.  Remembers
 * the wait in @entity for drm_sched_grtrace_wait_exit().
 */
void drm_sched_grtrace_wait_enter(struct drm_sched_entity *entity,
				  struct drm_sched_job *sched_job,
				  struct dma_fence *dep)
{
	struct grtrace_job gj;

	drm_sched_grtrace_fill(&gj, sched_job->s_fence->sched, sched_job->s_fence);
	gj.aux_context = dep->context;
	gj.aux_seqno = dep->seqno;
	grtrace_sync_wait_enter(&gj);

	entity->grtrace_wait.seqno = sched_job->s_fence->finished.seqno;
	entity->grtrace_wait.dep_context = dep->context;
	entity->grtrace_wait.dep_seqno = dep->seqno;
	/* Ordered before the callback by the fence lock it is armed under. */
	atomic_set_release(&entity->grtrace_wait.armed, 1);
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
 * time a callback runs.  The atomic_xchg() makes exactly one caller report,
 * and orders the reads of the wait after the enter's stores.
 */
void __drm_sched_grtrace_wait_exit(struct drm_sched_entity *entity, int status)
{
	struct grtrace_job gj;

	if (!atomic_xchg(&entity->grtrace_wait.armed, 0) || !grtrace_enabled())
		return;
	gj = (struct grtrace_job) {
		.ring = &entity->rq->sched->grtrace_ring,
		.ctx_id = entity->fence_context,
		.fence_context = entity->fence_context + 1,
		.fence_seqno = entity->grtrace_wait.seqno,
		.aux_context = entity->grtrace_wait.dep_context,
		.aux_seqno = entity->grtrace_wait.dep_seqno,
		.status = status,
	};
	grtrace_sync_wait_exit(&gj);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - record what only amdgpu knows of its scheduler's jobs, from
 * amdgpu's own tracepoints.
 */

#include <drm/gpu_scheduler.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <trace/events/amdgpu.h>

#include "grtrace_sched.h"

/**
 * DOC: amdgpu
 *
 * amdgpu runs every user job, and most of its own, through the DRM GPU
 * scheduler, one scheduler per ring, so grtrace records their SUBMIT,
 * COMMIT, END, COMPLETE, dependency waits and timeouts from the
 * scheduler's tracepoints.  With
 * CONFIG_GRTRACE_AMDGPU, the grtrace_amdgpu module adds what only amdgpu
 * knows, from amdgpu's own tracepoints, on the scheduler's ring:
 *
 * ============= ============================ ==============================
 * event         probe on                     notes
 * ============= ============================ ==============================
 * IRQ           amdgpu_fence_process         each pass over a ring's
 *                                            fences that found new ones
 *                                            written: its fence
 *                                            interrupts, and the rare
 *                                            passes of the fallback timer,
 *                                            a forced completion, a
 *                                            re-emit and debugfs; the END
 *                                            and COMPLETE of the jobs it
 *                                            ends follow
 * ERROR(reset)  amdgpu_job_recovery          a reset of the ring's queue
 *                                            or a soft reset of its IP
 *                                            block that worked, or a GPU
 *                                            recovery that ended the job's
 *                                            hardware fence with an error
 * ============= ============================ ==============================
 *
 * amdgpu's timeout handler returns %DRM_GPU_SCHED_STAT_NO_HANG whatever it
 * did, so the scheduler's probe reports the job's ERROR(timeout) from the
 * error amdgpu put on its fences, after the handler returned: a job's
 * ERROR(reset) comes before its ERROR(timeout), and its COMPLETE with
 * its error may come before both (a reset completes the ring's fences).
 * A queue reset of a job that had ended meanwhile puts no error on it:
 * its ERROR(reset) comes alone.  A GPU recovery that returned 0 without
 * an error on the job's hardware fence found the job ended, or left the
 * recovery to RAS, which is not reported.  One exception: a job whose
 * fence signalled late with a failed soft recovery's -ENODATA, and whose
 * recovery was then left to RAS, counts as reset.  Soft recovery kills
 * the job's waves and resets nothing; the job's ERROR(timeout) and its
 * COMPLETE with its error tell it.  The other jobs a reset cancels have
 * their COMPLETE with -ECANCELED, and no ERROR.
 *
 * Rings without a scheduler (KIQ, MES) are not recorded, nor are the
 * submissions that bypass the scheduler (ring and IB tests, some page
 * table updates).  The engine class of a ring is guessed from its name, as
 * for every scheduler (the SDMA page rings, ``page0``, are other).  The
 * hardware writes a job's fence at its end of pipe only: nothing tells when
 * a job starts.
 */

/*
 * Whether amdgpu reset something for a job: a method that worked and
 * resets, or a GPU recovery that ended the job's hardware fence.
 */
static bool grtrace_amdgpu_reset(enum amdgpu_recovery method, int result,
				 int hw_status)
{
	if (result)
		return false;
	switch (method) {
	case AMDGPU_RECOVERY_QUEUE:
	case AMDGPU_RECOVERY_IP:
		return true;
	case AMDGPU_RECOVERY_GPU:
		return hw_status < 0;
	default:
		return false;
	}
}

/*
 * In the ring's interrupt handler, or in the other passes (DOC above).  A
 * pass that found nothing new (a pass beside another, the fallback timer
 * of a ring that had its interrupt) is no IRQ.
 */
static void grtrace_amdgpu_fence_process(void *data,
					 struct drm_gpu_scheduler *sched,
					 struct device *dev, const char *ring,
					 u32 last_seq, u32 seq)
{
	struct grtrace_job gj = {};

	if (!grtrace_enabled() || !sched || seq == last_seq)
		return;
	/* The tables stay while the probes are attached (grtrace_amdgpu_get()). */
	gj.ring = grtrace_sched_ring(sched);
	if (gj.ring)
		grtrace_irq(&gj);
}

/*
 * In the scheduler's timeout handler, which holds @s_job.  amdgpu returns
 * %DRM_GPU_SCHED_STAT_NO_HANG: were it to return
 * %DRM_GPU_SCHED_STAT_RESET, the scheduler's probe would report the reset
 * too.
 */
static void grtrace_amdgpu_job_recovery(void *data, struct drm_sched_job *s_job,
					enum amdgpu_recovery method, int result,
					int hw_status)
{
	struct grtrace_job gj;

	if (!grtrace_enabled() ||
	    !grtrace_amdgpu_reset(method, result, hw_status))
		return;
	grtrace_sched_fill(&gj, s_job->s_fence);
	gj.status = GRTRACE_ERROR_RESET;
	grtrace_error(&gj);
}

/*
 * The scheduler's probes first: their tables name the rings, and stay
 * until grtrace_sched_put().
 */
static int grtrace_amdgpu_get(void)
{
	int ret;

	ret = grtrace_sched_get();
	if (ret)
		return ret;
	ret = register_trace_amdgpu_fence_process(grtrace_amdgpu_fence_process,
						  NULL);
	if (ret)
		goto err;
	ret = register_trace_amdgpu_job_recovery(grtrace_amdgpu_job_recovery,
						 NULL);
	if (ret)
		goto err_fence;
	return 0;

err_fence:
	unregister_trace_amdgpu_fence_process(grtrace_amdgpu_fence_process, NULL);
	tracepoint_synchronize_unregister();
err:
	grtrace_sched_put();
	return ret;
}

static void grtrace_amdgpu_put(void)
{
	unregister_trace_amdgpu_job_recovery(grtrace_amdgpu_job_recovery, NULL);
	unregister_trace_amdgpu_fence_process(grtrace_amdgpu_fence_process, NULL);
	/* No probe runs on any CPU after this: the tables can go. */
	tracepoint_synchronize_unregister();
	grtrace_sched_put();
}

static struct grtrace_source grtrace_amdgpu_source = {
	.get = grtrace_amdgpu_get,
	.put = grtrace_amdgpu_put,
};

static int __init grtrace_amdgpu_init(void)
{
	grtrace_source_add(&grtrace_amdgpu_source);
	return 0;
}

static void __exit grtrace_amdgpu_exit(void)
{
	grtrace_source_remove(&grtrace_amdgpu_source);
}

module_init(grtrace_amdgpu_init);
module_exit(grtrace_amdgpu_exit);

MODULE_DESCRIPTION("grtrace: amdgpu's interrupts and recoveries from amdgpu's tracepoints");
MODULE_LICENSE("GPL");

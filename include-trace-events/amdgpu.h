/* SPDX-License-Identifier: MIT */
/*
 * amdgpu's events whose arguments are of public types, so that a tool
 * outside amdgpu can attach to them; the others are in amdgpu_trace.h.
 */

#ifndef _TRACE_AMDGPU_ENUMS
#define _TRACE_AMDGPU_ENUMS

/**
 * enum amdgpu_recovery - how amdgpu recovered from a job's timeout
 * @AMDGPU_RECOVERY_SOFT: the job's waves were killed; nothing was reset
 * @AMDGPU_RECOVERY_QUEUE: the ring's queue was reset
 * @AMDGPU_RECOVERY_IP: the ring's IP block was soft reset
 * @AMDGPU_RECOVERY_GPU: a GPU recovery, which may reset the whole device
 */
enum amdgpu_recovery {
	AMDGPU_RECOVERY_SOFT,
	AMDGPU_RECOVERY_QUEUE,
	AMDGPU_RECOVERY_IP,
	AMDGPU_RECOVERY_GPU,
};

#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM amdgpu

#if !defined(_TRACE_AMDGPU_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_AMDGPU_H

#include <drm/gpu_scheduler.h>
#include <linux/device.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(AMDGPU_RECOVERY_SOFT);
TRACE_DEFINE_ENUM(AMDGPU_RECOVERY_QUEUE);
TRACE_DEFINE_ENUM(AMDGPU_RECOVERY_IP);
TRACE_DEFINE_ENUM(AMDGPU_RECOVERY_GPU);

/*
 * amdgpu_fence_process - a pass over a ring's fences
 * @sched: the ring's scheduler, NULL for a ring without one (KIQ, MES)
 * @dev: the device
 * @ring: the ring's name
 * @last_seq: the last sequence number signalled before the pass
 * @seq: the last one the ring wrote, signalled by the pass
 *
 * The fence interrupts of amdgpu's kernel rings come here, before the
 * fences up to @seq are signalled (user queues signal theirs elsewhere);
 * so do the fallback timer of a ring whose interrupt did not come, a
 * forced completion, the re-emit after a queue reset, the debugfs fence
 * file and IB preemption test.  A pass that found nothing new has
 * @seq == @last_seq.
 */
TRACE_EVENT(amdgpu_fence_process,
	    TP_PROTO(struct drm_gpu_scheduler *sched, struct device *dev,
		     const char *ring, u32 last_seq, u32 seq),
	    TP_ARGS(sched, dev, ring, last_seq, seq),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __string(ring, ring)
			     __field(u32, last_seq)
			     __field(u32, seq)),
	    TP_fast_assign(__assign_str(dev);
			   __assign_str(ring);
			   __entry->last_seq = last_seq;
			   __entry->seq = seq;),
	    TP_printk("dev=%s ring=%s last_seq=%u seq=%u", __get_str(dev),
		      __get_str(ring), __entry->last_seq, __entry->seq)
);

/*
 * amdgpu_job_recovery - amdgpu recovered from a job's timeout, or tried
 * @s_job: the job that timed out
 * @method: an enum amdgpu_recovery
 * @result: 0 if the method succeeded, else a negative errno
 * @hw_status: dma_fence_get_status() of the job's hardware fence after
 *	it, 0 if that fence was never emitted
 *
 * In the scheduler's timeout handler, before the scheduler's
 * drm_sched_job_timedout event: once for each method tried, soft recovery
 * only when it worked.  A GPU recovery also succeeds when it found the
 * job ended meanwhile, or when it left the recovery to RAS; one that
 * reset the device ended the job's hardware fence with an error.
 */
TRACE_EVENT(amdgpu_job_recovery,
	    TP_PROTO(struct drm_sched_job *s_job, enum amdgpu_recovery method,
		     int result, int hw_status),
	    TP_ARGS(s_job, method, result, hw_status),
	    TP_STRUCT__entry(__string(dev, dev_name(s_job->sched->dev))
			     __string(ring, s_job->sched->name)
			     __field(u64, fence_context)
			     __field(u64, fence_seqno)
			     __field(int, method)
			     __field(int, result)
			     __field(int, hw_status)),
	    TP_fast_assign(__assign_str(dev);
			   __assign_str(ring);
			   __entry->fence_context = s_job->s_fence->finished.context;
			   __entry->fence_seqno = s_job->s_fence->finished.seqno;
			   __entry->method = method;
			   __entry->result = result;
			   __entry->hw_status = hw_status;),
	    TP_printk("dev=%s ring=%s fence=%llu:%llu method=%s result=%d hw_status=%d",
		      __get_str(dev), __get_str(ring), __entry->fence_context,
		      __entry->fence_seqno,
		      __print_symbolic(__entry->method,
				       { AMDGPU_RECOVERY_SOFT, "soft" },
				       { AMDGPU_RECOVERY_QUEUE, "queue" },
				       { AMDGPU_RECOVERY_IP, "ip" },
				       { AMDGPU_RECOVERY_GPU, "gpu" }),
		      __entry->result, __entry->hw_status)
);

#endif /* _TRACE_AMDGPU_H */

#include <trace/define_trace.h>

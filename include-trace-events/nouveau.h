/* SPDX-License-Identifier: MIT */
/*
 * nouveau's events of its channels: the fences emitted on them, their
 * non-stall interrupts, and channels killed.  Their arguments are of
 * public types, so that a tool outside nouveau can attach to them.
 */

#ifndef _TRACE_NOUVEAU_ENUMS
#define _TRACE_NOUVEAU_ENUMS

/**
 * enum nouveau_fence_job - what a fence ends
 * @NOUVEAU_FENCE_KERNEL: the kernel's own work on a channel other than its
 *	copy engine channel: buffer moves without a copy engine, page flips,
 *	a channel's idling (on any channel, a client's too)
 * @NOUVEAU_FENCE_COPY: the kernel's own work on its copy engine channel:
 *	buffer moves, device memory migrations
 * @NOUVEAU_FENCE_SCHED: a job of the EXEC ioctl (VM_BIND uAPI), which the
 *	DRM GPU scheduler runs and traces under its own fences
 * @NOUVEAU_FENCE_PUSHBUF: a job of the legacy PUSHBUF ioctl
 */
enum nouveau_fence_job {
	NOUVEAU_FENCE_KERNEL,
	NOUVEAU_FENCE_COPY,
	NOUVEAU_FENCE_SCHED,
	NOUVEAU_FENCE_PUSHBUF,
};

#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM nouveau

#if !defined(_TRACE_NOUVEAU_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NOUVEAU_H

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(NOUVEAU_FENCE_KERNEL);
TRACE_DEFINE_ENUM(NOUVEAU_FENCE_COPY);
TRACE_DEFINE_ENUM(NOUVEAU_FENCE_SCHED);
TRACE_DEFINE_ENUM(NOUVEAU_FENCE_PUSHBUF);

/*
 * nouveau_fence_emit - a fence was emitted on a channel, or failed to be
 * @fence: the fence, with its context (the channel's) and seqno
 * @dev: the device
 * @runlist: the channel's runlist
 * @chid: the channel's id
 * @job: an enum nouveau_fence_job: what the fence ends
 * @error: 0, or why the fence will never signal: the error of writing it,
 *	or -ENODEV for a channel killed meanwhile (the fence was written, and
 *	dropped); its seqno is not used again
 *
 * In nouveau_fence_emit(), by the task that emits the fence (the PUSHBUF
 * ioctl's, the scheduler's run_job worker, a buffer move's, a channel's
 * idling), once per fence.  An emitted fence is traced under its channel's
 * fence lock, after the channel was given the fence behind the work and
 * before the fence can signal: its dma_fence_signaled event comes after.
 */
TRACE_EVENT(nouveau_fence_emit,
	    TP_PROTO(const struct dma_fence *fence, struct device *dev,
		     int runlist, int chid, enum nouveau_fence_job job,
		     int error),
	    TP_ARGS(fence, dev, runlist, chid, job, error),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(int, runlist)
			     __field(int, chid)
			     __field(int, job)
			     __field(int, error)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->context = fence->context;
			   __entry->seqno = fence->seqno;
			   __entry->runlist = runlist;
			   __entry->chid = chid;
			   __entry->job = job;
			   __entry->error = error;),
	    TP_printk("dev=%s chan=%d.%d job=%s fence=%llu:%llu error=%d",
		      __get_str(dev), __entry->runlist, __entry->chid,
		      __print_symbolic(__entry->job,
				       { NOUVEAU_FENCE_KERNEL, "kernel" },
				       { NOUVEAU_FENCE_COPY, "copy" },
				       { NOUVEAU_FENCE_SCHED, "sched" },
				       { NOUVEAU_FENCE_PUSHBUF, "pushbuf" }),
		      __entry->context, __entry->seqno, __entry->error)
);

/*
 * nouveau_fence_uevent - a non-stall interrupt, delivered to a channel
 * @context: the channel's fence context, that of its fences' events
 *
 * In the channel's event handler, which queues the work that signals the
 * fences the channel passed: their dma_fence_signaled events come after.
 * The interrupt is the runlist's (on some GPUs, every runlist's): each
 * channel on it that has fences waited on gets one, the others none.
 */
TRACE_EVENT(nouveau_fence_uevent,
	    TP_PROTO(u64 context),
	    TP_ARGS(context),
	    TP_STRUCT__entry(__field(u64, context)),
	    TP_fast_assign(__entry->context = context;),
	    TP_printk("context=%llu", __entry->context)
);

/*
 * nouveau_channel_killed - the GPU killed a channel, as after a fault
 * @dev: the device
 * @runlist: the channel's runlist
 * @chid: the channel's id
 * @context: the channel's fence context, 0 for a channel without one
 *
 * In the channel's kill event handler, once per channel, for a kill the
 * GPU reports (Fermi and later); unless nouveau killed the channel itself
 * before (an EXEC job's timeout does), the fences left on the channel then
 * signal with -ENODEV.
 */
TRACE_EVENT(nouveau_channel_killed,
	    TP_PROTO(struct device *dev, int runlist, int chid, u64 context),
	    TP_ARGS(dev, runlist, chid, context),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(int, runlist)
			     __field(int, chid)
			     __field(u64, context)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->runlist = runlist;
			   __entry->chid = chid;
			   __entry->context = context;),
	    TP_printk("dev=%s chan=%d.%d context=%llu", __get_str(dev),
		      __entry->runlist, __entry->chid, __entry->context)
);

#endif /* _TRACE_NOUVEAU_H */

#include <trace/define_trace.h>

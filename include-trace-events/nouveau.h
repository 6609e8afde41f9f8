/* SPDX-License-Identifier: MIT */
/*
 * nouveau's events of its channels: the fences emitted on them, their
 * non-stall interrupts, and channels killed.  Their arguments are of
 * public types, so that a tool outside nouveau can attach to them.
 */

#ifndef _TRACE_NOUVEAU_ENUMS
#define _TRACE_NOUVEAU_ENUMS

/**
 * enum nouveau_chan_kind - whose a channel is, and so what its fences end
 * @NOUVEAU_CHAN_COPY: the kernel's copy engine channel: buffer moves
 * @NOUVEAU_CHAN_KERNEL: the kernel's other channel
 * @NOUVEAU_CHAN_SCHED: a channel of a client of the VM_BIND uAPI, whose
 *	jobs (EXEC) go through the DRM GPU scheduler, which traces them
 * @NOUVEAU_CHAN_PUSHBUF: a channel of a client of the legacy PUSHBUF ioctl
 */
enum nouveau_chan_kind {
	NOUVEAU_CHAN_COPY,
	NOUVEAU_CHAN_KERNEL,
	NOUVEAU_CHAN_SCHED,
	NOUVEAU_CHAN_PUSHBUF,
};

#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM nouveau

#if !defined(_TRACE_NOUVEAU_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NOUVEAU_H

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(NOUVEAU_CHAN_COPY);
TRACE_DEFINE_ENUM(NOUVEAU_CHAN_KERNEL);
TRACE_DEFINE_ENUM(NOUVEAU_CHAN_SCHED);
TRACE_DEFINE_ENUM(NOUVEAU_CHAN_PUSHBUF);

/*
 * nouveau_fence_emit - a fence was written on a channel, or could not be
 * @fence: the fence, with its context (the channel's) and seqno
 * @dev: the device
 * @runlist: the channel's runlist
 * @chid: the channel's id
 * @kind: an enum nouveau_chan_kind
 * @error: 0, or why the fence was not written: the error of writing it,
 *	or -ENODEV for a channel killed meanwhile; such a fence never
 *	signals, and its seqno is not used again
 *
 * In nouveau_fence_emit(), by the task that emits the fence (the PUSHBUF
 * ioctl's, the scheduler's run_job worker, a buffer move's), once per
 * fence.  A written fence is traced under its channel's fence lock, after
 * the work before it was kicked off and before the fence can signal: its
 * dma_fence_signaled event comes after.
 */
TRACE_EVENT(nouveau_fence_emit,
	    TP_PROTO(const struct dma_fence *fence, struct device *dev,
		     int runlist, int chid, enum nouveau_chan_kind kind,
		     int error),
	    TP_ARGS(fence, dev, runlist, chid, kind, error),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(int, runlist)
			     __field(int, chid)
			     __field(int, kind)
			     __field(int, error)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->context = fence->context;
			   __entry->seqno = fence->seqno;
			   __entry->runlist = runlist;
			   __entry->chid = chid;
			   __entry->kind = kind;
			   __entry->error = error;),
	    TP_printk("dev=%s chan=%d.%d kind=%s fence=%llu:%llu error=%d",
		      __get_str(dev), __entry->runlist, __entry->chid,
		      __print_symbolic(__entry->kind,
				       { NOUVEAU_CHAN_COPY, "copy" },
				       { NOUVEAU_CHAN_KERNEL, "kernel" },
				       { NOUVEAU_CHAN_SCHED, "sched" },
				       { NOUVEAU_CHAN_PUSHBUF, "pushbuf" }),
		      __entry->context, __entry->seqno, __entry->error)
);

/*
 * nouveau_fence_uevent - a channel's non-stall interrupt
 * @context: the channel's fence context, that of its fences' events
 *
 * In the channel's event handler, which queues the work that signals the
 * fences the channel passed: their dma_fence_signaled events come after.
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
 * In the channel's kill event handler, before the fences left on the
 * channel signal with -ENODEV.
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The baseline of the grtrace benchmark: a bare TRACE_EVENT with the
 * payload of grtrace_submit, recorded by ftrace like any other event.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM grtrace_bench

#if !defined(_GRTRACE_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GRTRACE_BENCH_TRACE_H

#include <linux/grtrace.h>
#include <linux/tracepoint.h>

TRACE_EVENT(grtrace_bench_bare,
	    TP_PROTO(const struct grtrace_job *job, const char *comm),
	    TP_ARGS(job, comm),
	    TP_STRUCT__entry(__string(dev, job->ring->dev)
			     __string(ring, job->ring->name)
			     __field(u64, ctx_id)
			     __field(u64, fence_context)
			     __field(u64, fence_seqno)
			     __field(u32, ring_id)
			     __field(u16, engine)
			     __field(u32, depth)
			     __field(u32, pid)
			     __field(u32, tgid)
			     __array(char, comm, 16)),
	    TP_fast_assign(__assign_str(dev);
			   __assign_str(ring);
			   __entry->ctx_id = job->ctx_id;
			   __entry->fence_context = job->fence_context;
			   __entry->fence_seqno = job->fence_seqno;
			   __entry->ring_id = (u32)atomic64_read(&job->ring->stamp);
			   __entry->engine = job->ring->engine;
			   __entry->depth = job->depth;
			   __entry->pid = current->pid;
			   __entry->tgid = current->tgid;
			   memcpy(__entry->comm, comm, 16);),
	    TP_printk("dev=%s ring=%s fence=%llu:%llu comm=%s",
		      __get_str(dev), __get_str(ring), __entry->fence_context,
		      __entry->fence_seqno, __entry->comm)
);

#endif /* _GRTRACE_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE grtrace_bench_trace
#include <trace/define_trace.h>

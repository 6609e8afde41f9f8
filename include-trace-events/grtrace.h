/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace tracepoints: the lifecycle of GPU jobs.
 *
 * Fired by the grtrace_<event>() calls of <linux/grtrace.h>.  The field
 * names and types are those of struct grtrace_job_payload in
 * <uapi/linux/grtrace.h>, so a relay record and a trace event of the same
 * job read the same.  Jobs are identified by their fence (context:seqno),
 * device and ring; no kernel pointer is recorded.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM grtrace

#if !defined(_TRACE_GRTRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_GRTRACE_H

#include <linux/grtrace.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(GRTRACE_ENGINE_GRAPHICS);
TRACE_DEFINE_ENUM(GRTRACE_ENGINE_COMPUTE);
TRACE_DEFINE_ENUM(GRTRACE_ENGINE_COPY);
TRACE_DEFINE_ENUM(GRTRACE_ENGINE_VIDEO_DECODE);
TRACE_DEFINE_ENUM(GRTRACE_ENGINE_VIDEO_ENCODE);
TRACE_DEFINE_ENUM(GRTRACE_ENGINE_OTHER);
TRACE_DEFINE_ENUM(GRTRACE_ERROR_OTHER);
TRACE_DEFINE_ENUM(GRTRACE_ERROR_TIMEOUT);
TRACE_DEFINE_ENUM(GRTRACE_ERROR_RESET);

#define grtrace_show_engine(engine)					\
	__print_symbolic(engine,					\
			 { GRTRACE_ENGINE_GRAPHICS,	"graphics" },	\
			 { GRTRACE_ENGINE_COMPUTE,	"compute" },	\
			 { GRTRACE_ENGINE_COPY,		"copy" },	\
			 { GRTRACE_ENGINE_VIDEO_DECODE,	"video_decode" }, \
			 { GRTRACE_ENGINE_VIDEO_ENCODE,	"video_encode" }, \
			 { GRTRACE_ENGINE_OTHER,	"other" })

#define grtrace_show_error(code)					\
	__print_symbolic(code,						\
			 { GRTRACE_ERROR_OTHER,		"other" },	\
			 { GRTRACE_ERROR_TIMEOUT,	"timeout" },	\
			 { GRTRACE_ERROR_RESET,		"reset" })

int grtrace_tp_reg(void);
void grtrace_tp_unreg(void);

/**
 * DOC: grtrace job events
 *
 * All events carry ``dev`` and ``ring`` (names), ``ring_id``, ``engine``
 * (class), ``ctx_id`` and the job identity ``fence=context:seqno``.
 *
 * ======================= ==============================================
 * grtrace_submit          job handed over by a process; adds ``depth``,
 *                         ``pid``, ``tgid``, ``comm``
 * grtrace_commit          job written to the hardware ring
 * grtrace_start           hardware started the job
 * grtrace_end             hardware finished the job
 * grtrace_complete        job fence signalled; adds ``status``
 * grtrace_ctx_switch      engine switched from ``ctx_id`` to
 *                         ``next_ctx``; adds ``preempt``
 * grtrace_irq             interrupt for the ring
 * grtrace_sync_wait_enter job waits on ``dep=context:seqno``
 * grtrace_sync_wait_exit  the wait ended, ``status`` 0 or its error
 * grtrace_error           ring error; adds ``code``
 * grtrace_ring_remove     the ring was unregistered, after its last event;
 *                         ``dev``, ``ring``, ``ring_id``, ``engine`` only
 * grtrace_summary         one ring's aggregator window, fired with
 *                         ``aggregate_only`` only: the fields of the SUMMARY
 *                         record, ``dropped`` summed over the causes
 * ======================= ==============================================
 *
 * Readers find the fields by name in each event's ``format`` file, as
 * libtraceevent does, so that a field added later changes nothing for them.
 */

/* Events that carry only the job identity. */
DECLARE_EVENT_CLASS(grtrace_job,
		    TP_PROTO(const struct grtrace_event *ev),
		    TP_ARGS(ev),
		    TP_STRUCT__entry(__string(dev, ev->ring->dev)
				     __string(ring, ev->ring->name)
				     __field(u64, ctx_id)
				     __field(u64, fence_context)
				     __field(u64, fence_seqno)
				     __field(u32, ring_id)
				     __field(u16, engine)),
		    TP_fast_assign(__assign_str(dev);
				   __assign_str(ring);
				   __entry->ctx_id = ev->job.ctx_id;
				   __entry->fence_context = ev->job.fence_context;
				   __entry->fence_seqno = ev->job.fence_seqno;
				   __entry->ring_id = ev->job.ring_id;
				   __entry->engine = ev->job.engine;),
		    TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu",
			      __get_str(dev), __get_str(ring), __entry->ring_id,
			      grtrace_show_engine(__entry->engine),
			      __entry->ctx_id, __entry->fence_context, __entry->fence_seqno)
);

/* grtrace_commit - job written to the hardware ring */
DEFINE_EVENT_FN(grtrace_job, grtrace_commit,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_start - hardware started executing the job */
DEFINE_EVENT_FN(grtrace_job, grtrace_start,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_end - hardware finished executing the job */
DEFINE_EVENT_FN(grtrace_job, grtrace_end,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_irq - the device raised an interrupt for the ring */
DEFINE_EVENT_FN(grtrace_job, grtrace_irq,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_submit - job handed to the driver by a process */
TRACE_EVENT_FN(grtrace_submit,
	       TP_PROTO(const struct grtrace_event *ev),
	       TP_ARGS(ev),
	       TP_STRUCT__entry(__string(dev, ev->ring->dev)
				__string(ring, ev->ring->name)
				__field(u64, ctx_id)
				__field(u64, fence_context)
				__field(u64, fence_seqno)
				__field(u32, ring_id)
				__field(u16, engine)
				__field(u32, depth)
				__field(u32, pid)
				__field(u32, tgid)
				__array(char, comm, 16)
				__field(u64, client_id)),
	       TP_fast_assign(__assign_str(dev);
			      __assign_str(ring);
			      __entry->ctx_id = ev->job.ctx_id;
			      __entry->fence_context = ev->job.fence_context;
			      __entry->fence_seqno = ev->job.fence_seqno;
			      __entry->ring_id = ev->job.ring_id;
			      __entry->engine = ev->job.engine;
			      __entry->depth = ev->job.depth;
			      __entry->pid = ev->job.pid;
			      __entry->tgid = ev->job.tgid;
			      memcpy(__entry->comm, ev->job.comm, sizeof(__entry->comm));
			      __entry->client_id = ev->job.client_id;),
	       TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu depth=%u pid=%u tgid=%u comm=%s client_id=%llu",
			 __get_str(dev), __get_str(ring), __entry->ring_id,
			 grtrace_show_engine(__entry->engine),
			 __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
			 __entry->depth, __entry->pid, __entry->tgid, __entry->comm,
			 __entry->client_id),
	       grtrace_tp_reg, grtrace_tp_unreg
);

/* grtrace_complete - the job's fence signalled, status 0 or -errno */
TRACE_EVENT_FN(grtrace_complete,
	       TP_PROTO(const struct grtrace_event *ev),
	       TP_ARGS(ev),
	       TP_STRUCT__entry(__string(dev, ev->ring->dev)
				__string(ring, ev->ring->name)
				__field(u64, ctx_id)
				__field(u64, fence_context)
				__field(u64, fence_seqno)
				__field(u32, ring_id)
				__field(u16, engine)
				__field(s32, status)),
	       TP_fast_assign(__assign_str(dev);
			      __assign_str(ring);
			      __entry->ctx_id = ev->job.ctx_id;
			      __entry->fence_context = ev->job.fence_context;
			      __entry->fence_seqno = ev->job.fence_seqno;
			      __entry->ring_id = ev->job.ring_id;
			      __entry->engine = ev->job.engine;
			      __entry->status = ev->job.status;),
	       TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu status=%d",
			 __get_str(dev), __get_str(ring), __entry->ring_id,
			 grtrace_show_engine(__entry->engine),
			 __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
			 __entry->status),
	       grtrace_tp_reg, grtrace_tp_unreg
);

/* Events that also carry a dependency fence. */
DECLARE_EVENT_CLASS(grtrace_sync_wait,
		    TP_PROTO(const struct grtrace_event *ev),
		    TP_ARGS(ev),
		    TP_STRUCT__entry(__string(dev, ev->ring->dev)
				     __string(ring, ev->ring->name)
				     __field(u64, ctx_id)
				     __field(u64, fence_context)
				     __field(u64, fence_seqno)
				     __field(u32, ring_id)
				     __field(u16, engine)
				     __field(u64, aux_context)
				     __field(u64, aux_seqno)
				     __field(s32, status)),
		    TP_fast_assign(__assign_str(dev);
				   __assign_str(ring);
				   __entry->ctx_id = ev->job.ctx_id;
				   __entry->fence_context = ev->job.fence_context;
				   __entry->fence_seqno = ev->job.fence_seqno;
				   __entry->ring_id = ev->job.ring_id;
				   __entry->engine = ev->job.engine;
				   __entry->aux_context = ev->job.aux_context;
				   __entry->aux_seqno = ev->job.aux_seqno;
				   __entry->status = ev->job.status;),
		    TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu dep=%llu:%llu status=%d",
			      __get_str(dev), __get_str(ring), __entry->ring_id,
			      grtrace_show_engine(__entry->engine),
			      __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
			      __entry->aux_context, __entry->aux_seqno, __entry->status)
);

/* grtrace_sync_wait_enter - the job starts waiting on aux_context:aux_seqno */
DEFINE_EVENT_FN(grtrace_sync_wait, grtrace_sync_wait_enter,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_sync_wait_exit - the wait ended: the dependency signalled (status 0) or not */
DEFINE_EVENT_FN(grtrace_sync_wait, grtrace_sync_wait_exit,
		TP_PROTO(const struct grtrace_event *ev),
		TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/* grtrace_ctx_switch - the engine switched from ctx_id to aux_context */
TRACE_EVENT_FN(grtrace_ctx_switch,
	       TP_PROTO(const struct grtrace_event *ev),
	       TP_ARGS(ev),
	       TP_STRUCT__entry(__string(dev, ev->ring->dev)
				__string(ring, ev->ring->name)
				__field(u64, ctx_id)
				__field(u64, aux_context)
				__field(u32, ring_id)
				__field(u16, engine)
				__field(u16, flags)),
	       TP_fast_assign(__assign_str(dev);
			      __assign_str(ring);
			      __entry->ctx_id = ev->job.ctx_id;
			      __entry->aux_context = ev->job.aux_context;
			      __entry->ring_id = ev->job.ring_id;
			      __entry->engine = ev->job.engine;
			      __entry->flags = ev->job.flags;),
	       TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu next_ctx=%llu preempt=%d",
			 __get_str(dev), __get_str(ring), __entry->ring_id,
			 grtrace_show_engine(__entry->engine),
			 __entry->ctx_id, __entry->aux_context,
			 !!(__entry->flags & GRTRACE_JOB_F_PREEMPT)),
	       grtrace_tp_reg, grtrace_tp_unreg
);

/* grtrace_error - a ring error, status is an enum grtrace_error */
TRACE_EVENT_FN(grtrace_error,
	       TP_PROTO(const struct grtrace_event *ev),
	       TP_ARGS(ev),
	       TP_STRUCT__entry(__string(dev, ev->ring->dev)
				__string(ring, ev->ring->name)
				__field(u64, ctx_id)
				__field(u64, fence_context)
				__field(u64, fence_seqno)
				__field(u32, ring_id)
				__field(u16, engine)
				__field(s32, status)),
	       TP_fast_assign(__assign_str(dev);
			      __assign_str(ring);
			      __entry->ctx_id = ev->job.ctx_id;
			      __entry->fence_context = ev->job.fence_context;
			      __entry->fence_seqno = ev->job.fence_seqno;
			      __entry->ring_id = ev->job.ring_id;
			      __entry->engine = ev->job.engine;
			      __entry->status = ev->job.status;),
	       TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu code=%s",
			 __get_str(dev), __get_str(ring), __entry->ring_id,
			 grtrace_show_engine(__entry->engine),
			 __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
			 grtrace_show_error(__entry->status)),
	       grtrace_tp_reg, grtrace_tp_unreg
);

/*
 * grtrace_ring_remove - the ring ring_id was unregistered, after its last
 * event; while any grtrace event is enabled its id names no other ring
 */
TRACE_EVENT_FN(grtrace_ring_remove,
	       TP_PROTO(const struct grtrace_ring *ring, u32 id),
	       TP_ARGS(ring, id),
	       TP_STRUCT__entry(__string(dev, ring->dev)
				__string(ring, ring->name)
				__field(u32, ring_id)
				__field(u16, engine)),
	       TP_fast_assign(__assign_str(dev);
			      __assign_str(ring);
			      __entry->ring_id = id;
			      __entry->engine = ring->engine;),
	       TP_printk("dev=%s ring=%s ring_id=%u engine=%s",
			 __get_str(dev), __get_str(ring), __entry->ring_id,
			 grtrace_show_engine(__entry->engine)),
	       grtrace_tp_reg, grtrace_tp_unreg
);

/*
 * grtrace_summary - what ring_id did in one aggregator window; fired by the
 * relay stream's aggregator, with aggregate_only, where it writes the
 * ring's SUMMARY record (struct grtrace_summary).  dev and ring are empty
 * if the aggregator did not see the ring's description; dropped is the
 * sum of the record's drops by cause.
 */
TRACE_EVENT(grtrace_summary,
	    TP_PROTO(const struct grtrace_summary *s,
		     const struct grtrace_ring_info *ring_info, u64 dropped),
	    TP_ARGS(s, ring_info, dropped),
	    TP_STRUCT__entry(__string(dev, ring_info ? ring_info->dev : "")
			     __string(ring, ring_info ? ring_info->name : "")
			     __field(u32, ring_id)
			     __field(u64, window_start)
			     __field(u64, window_ns)
			     __field(u64, events)
			     __field(u64, jobs)
			     __field(u64, lat_sum)
			     __field(u64, lat_min)
			     __field(u64, lat_max)
			     __field(u64, dev_jobs)
			     __field(u64, dev_sum)
			     __field(u64, depth_sum)
			     __field(u64, depth_n)
			     __field(u64, depth_peak)
			     __field(u64, errors)
			     __field(u64, dropped)
			     __array(u32, lat_hist, GRTRACE_SUMMARY_HIST)),
	    TP_fast_assign(__assign_str(dev);
			   __assign_str(ring);
			   __entry->ring_id = s->ring_id;
			   __entry->window_start = s->window_start;
			   __entry->window_ns = s->window_ns;
			   __entry->events = s->events;
			   __entry->jobs = s->jobs;
			   __entry->lat_sum = s->lat_sum;
			   __entry->lat_min = s->lat_min;
			   __entry->lat_max = s->lat_max;
			   __entry->dev_jobs = s->dev_jobs;
			   __entry->dev_sum = s->dev_sum;
			   __entry->depth_sum = s->depth_sum;
			   __entry->depth_n = s->depth_n;
			   __entry->depth_peak = s->depth_peak;
			   __entry->errors = s->errors;
			   __entry->dropped = dropped;
			   memcpy(__entry->lat_hist, s->lat_hist,
				  sizeof(__entry->lat_hist));),
	    TP_printk("dev=%s ring=%s ring_id=%u window=%llu+%llu events=%llu jobs=%llu lat_sum=%llu lat_min=%llu lat_max=%llu dev_jobs=%llu dev_sum=%llu depth_sum=%llu depth_n=%llu depth_peak=%llu errors=%llu dropped=%llu",
		      __get_str(dev), __get_str(ring), __entry->ring_id,
		      __entry->window_start, __entry->window_ns,
		      __entry->events, __entry->jobs, __entry->lat_sum,
		      __entry->lat_min, __entry->lat_max, __entry->dev_jobs,
		      __entry->dev_sum, __entry->depth_sum, __entry->depth_n,
		      __entry->depth_peak, __entry->errors, __entry->dropped)
);

#endif /* _TRACE_GRTRACE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

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

#define GRTRACE_ENGINES					\
	EM(GRTRACE_ENGINE_GRAPHICS,	"graphics")	\
	EM(GRTRACE_ENGINE_COMPUTE,	"compute")	\
	EM(GRTRACE_ENGINE_COPY,		"copy")		\
	EM(GRTRACE_ENGINE_VIDEO_DECODE,	"video_decode")	\
	EM(GRTRACE_ENGINE_VIDEO_ENCODE,	"video_encode")	\
	EMe(GRTRACE_ENGINE_OTHER,	"other")

#define GRTRACE_ERRORS					\
	EM(GRTRACE_ERROR_OTHER,		"other")	\
	EM(GRTRACE_ERROR_TIMEOUT,	"timeout")	\
	EMe(GRTRACE_ERROR_RESET,	"reset")

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);

GRTRACE_ENGINES
GRTRACE_ERRORS

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

int grtrace_tp_reg(void);
void grtrace_tp_unreg(void);

/**
 * DOC: grtrace job events
 *
 * All events carry ``dev`` and ``ring`` (names), ``ring_id``, ``engine``
 * (class), ``ctx_id`` and the job identity ``fence=context:seqno``.
 *
 * ============================ =========================================
 * grtrace_submit               job handed over by a process; adds
 *                              ``depth``, ``pid``, ``tgid``, ``comm``
 * grtrace_commit               job written to the hardware ring
 * grtrace_start                hardware started the job
 * grtrace_end                  hardware finished the job
 * grtrace_complete             job fence signalled; adds ``status``
 * grtrace_ctx_switch           engine switched from ``ctx_id`` to
 *                              ``next_ctx``; adds ``preempt``
 * grtrace_irq                  interrupt for the ring
 * grtrace_sync_wait_enter      job waits on ``dep=context:seqno``
 * grtrace_sync_wait_exit       that dependency signalled
 * grtrace_error                ring error; adds ``code``
 * ============================ =========================================
 */

DECLARE_EVENT_CLASS(grtrace_job,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		fence_context		)
		__field(	u64,		fence_seqno		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->fence_context	= ev->job.fence_context;
		__entry->fence_seqno	= ev->job.fence_seqno;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->fence_context, __entry->fence_seqno)
);

/**
 * grtrace_commit - job written to the hardware ring
 * @ev: the event
 */
DEFINE_EVENT_FN(grtrace_job, grtrace_commit,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_start - hardware started executing the job
 * @ev: the event
 */
DEFINE_EVENT_FN(grtrace_job, grtrace_start,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_end - hardware finished executing the job
 * @ev: the event
 */
DEFINE_EVENT_FN(grtrace_job, grtrace_end,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_irq - the device raised an interrupt for the ring
 * @ev: the event
 */
DEFINE_EVENT_FN(grtrace_job, grtrace_irq,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_submit - job handed to the driver by a process
 * @ev: the event
 */
TRACE_EVENT_FN(grtrace_submit,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		fence_context		)
		__field(	u64,		fence_seqno		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
		__field(	u32,		depth			)
		__field(	u32,		pid			)
		__field(	u32,		tgid			)
		__array(	char,		comm,	16		)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->fence_context	= ev->job.fence_context;
		__entry->fence_seqno	= ev->job.fence_seqno;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
		__entry->depth		= ev->job.depth;
		__entry->pid		= ev->job.pid;
		__entry->tgid		= ev->job.tgid;
		memcpy(__entry->comm, ev->job.comm, sizeof(__entry->comm));
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu depth=%u pid=%u tgid=%u comm=%s",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
		  __entry->depth, __entry->pid, __entry->tgid, __entry->comm),
	grtrace_tp_reg, grtrace_tp_unreg
);

/**
 * grtrace_complete - the job's fence signalled
 * @ev: the event; ev->job.status is 0 or a negative errno
 */
TRACE_EVENT_FN(grtrace_complete,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		fence_context		)
		__field(	u64,		fence_seqno		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
		__field(	s32,		status			)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->fence_context	= ev->job.fence_context;
		__entry->fence_seqno	= ev->job.fence_seqno;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
		__entry->status		= ev->job.status;
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu status=%d",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
		  __entry->status),
	grtrace_tp_reg, grtrace_tp_unreg
);

DECLARE_EVENT_CLASS(grtrace_sync_wait,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		fence_context		)
		__field(	u64,		fence_seqno		)
		__field(	u64,		aux_context		)
		__field(	u64,		aux_seqno		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->fence_context	= ev->job.fence_context;
		__entry->fence_seqno	= ev->job.fence_seqno;
		__entry->aux_context	= ev->job.aux_context;
		__entry->aux_seqno	= ev->job.aux_seqno;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu dep=%llu:%llu",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
		  __entry->aux_context, __entry->aux_seqno)
);

/**
 * grtrace_sync_wait_enter - the job starts waiting on a dependency fence
 * @ev: the event; the dependency is aux_context:aux_seqno
 */
DEFINE_EVENT_FN(grtrace_sync_wait, grtrace_sync_wait_enter,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_sync_wait_exit - the dependency fence signalled
 * @ev: the event; the dependency is aux_context:aux_seqno
 */
DEFINE_EVENT_FN(grtrace_sync_wait, grtrace_sync_wait_exit,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev), grtrace_tp_reg, grtrace_tp_unreg);

/**
 * grtrace_ctx_switch - the engine switched hardware contexts
 * @ev: the event; from ctx_id to aux_context, GRTRACE_JOB_F_PREEMPT in flags
 */
TRACE_EVENT_FN(grtrace_ctx_switch,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		aux_context		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
		__field(	u16,		flags			)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->aux_context	= ev->job.aux_context;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
		__entry->flags		= ev->job.flags;
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu next_ctx=%llu preempt=%d",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->aux_context,
		  !!(__entry->flags & GRTRACE_JOB_F_PREEMPT)),
	grtrace_tp_reg, grtrace_tp_unreg
);

/**
 * grtrace_error - a ring error: timeout, reset or other
 * @ev: the event; ev->job.status is an enum grtrace_error
 */
TRACE_EVENT_FN(grtrace_error,
	TP_PROTO(const struct grtrace_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__string(	dev,		ev->ring->dev		)
		__string(	ring,		ev->ring->name		)
		__field(	u64,		ctx_id			)
		__field(	u64,		fence_context		)
		__field(	u64,		fence_seqno		)
		__field(	u32,		ring_id			)
		__field(	u16,		engine			)
		__field(	s32,		status			)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(ring);
		__entry->ctx_id		= ev->job.ctx_id;
		__entry->fence_context	= ev->job.fence_context;
		__entry->fence_seqno	= ev->job.fence_seqno;
		__entry->ring_id	= ev->job.ring_id;
		__entry->engine		= ev->job.engine;
		__entry->status		= ev->job.status;
	),
	TP_printk("dev=%s ring=%s ring_id=%u engine=%s ctx=%llu fence=%llu:%llu code=%s",
		  __get_str(dev), __get_str(ring), __entry->ring_id,
		  __print_symbolic(__entry->engine, GRTRACE_ENGINES),
		  __entry->ctx_id, __entry->fence_context, __entry->fence_seqno,
		  __print_symbolic(__entry->status, GRTRACE_ERRORS)),
	grtrace_tp_reg, grtrace_tp_unreg
);

#endif /* _TRACE_GRTRACE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

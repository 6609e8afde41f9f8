// SPDX-License-Identifier: MIT
/*
 * Report i915 requests to grtrace.
 */

#include <linux/grtrace.h>

#include "gt/intel_engine_types.h"
#include "i915_drv.h"
#include "i915_grtrace.h"
#include "i915_request.h"

/**
 * DOC: grtrace
 *
 * With CONFIG_GRTRACE_I915, every physical engine (``rcs0``, ``bcs0``,
 * ``vcs0``, ...) is a grtrace ring, registered once the engines have their
 * user-visible names.  Every request is a job, identified by its fence
 * context:seqno; its context is the fence context of its timeline, which is
 * one per &intel_context.  i915 does not use the DRM scheduler, so the
 * scheduler reports none of these jobs.
 *
 * ============= ================================ ==========================
 * event         where                            why there
 * ============= ================================ ==========================
 * SUBMIT        __i915_request_commit()          the request is added, by
 *                                                the submitting task (for
 *                                                execbuf, the ioctl)
 * COMMIT        __i915_request_submit()          the request is handed to
 *                                                the backend (execlists,
 *                                                GuC, ring buffer) with
 *                                                its breadcrumb; again
 *                                                after a preemption unwound
 *                                                it
 * START         execlists_schedule_in()          the request is placed in
 *                                                an execlists port
 * END           execlists_schedule_out()         its execlists port was
 *                                                completed or preempted
 * CTX_SWITCH    process_csb()                    the hardware acknowledged
 *                                                a switch of the active
 *                                                context; preempt flag when
 *                                                the outgoing request was
 *                                                not complete
 * COMPLETE      signal_irq_work(),               the request's fence
 *               i915_request_retire()            signalled (interrupt
 *                                                breadcrumb, or at retire)
 * ERROR         heartbeat reset_engine(),        heartbeat stopped
 *               __intel_engine_reset_bh(),       (timeout), engine reset,
 *               intel_gt_reset(), GuC context    full GT reset (each
 *               reset                            engine), GuC reset of a
 *                                                context of a physical
 *                                                engine
 * ============= ================================ ==========================
 *
 * An execlists port holds the last request of a run of one context, so
 * START and END name that request; the requests before it in the same port
 * have no START and END of their own.  With GuC submission, the hardware
 * schedule is not visible: there is no START (the request is only handed
 * to the GuC), END nor CTX_SWITCH, and a context the GuC reset on a virtual
 * engine is not reported.  Requests on a virtual (load-balanced) engine are
 * not reported at SUBMIT, because the physical engine is only chosen at
 * COMMIT.  A request's COMPLETE may be reported twice, when the breadcrumb
 * irq work signals it between i915_request_retire()'s test and its signal.
 */

static const struct grtrace_ring *
i915_grtrace_ring(const struct intel_engine_cs *engine)
{
	return engine && engine->grtrace_ring.dev ? &engine->grtrace_ring : NULL;
}

static u16 i915_grtrace_engine(const struct intel_engine_cs *engine)
{
	switch (engine->class) {
	case RENDER_CLASS:
		return GRTRACE_ENGINE_GRAPHICS;
	case COMPUTE_CLASS:
		return GRTRACE_ENGINE_COMPUTE;
	case COPY_ENGINE_CLASS:
		return GRTRACE_ENGINE_COPY;
	case VIDEO_DECODE_CLASS:
		/* VCS also encodes, with VDENC; decode is its first use. */
		return GRTRACE_ENGINE_VIDEO_DECODE;
	default:
		/* VECS (scaling, colour conversion), GSC */
		return GRTRACE_ENGINE_OTHER;
	}
}

/**
 * i915_grtrace_engine_register - make an engine a grtrace ring
 * @engine: a physical engine with its final name
 */
void i915_grtrace_engine_register(struct intel_engine_cs *engine)
{
	struct grtrace_ring *ring = &engine->grtrace_ring;

	ring->name = engine->name;
	ring->engine = i915_grtrace_engine(engine);
	ring->dev = dev_name(engine->i915->drm.dev);
	grtrace_ring_register(ring);
}

/**
 * i915_grtrace_engine_unregister - forget the ring of an engine
 * @engine: the engine, idle; registered or not
 */
void i915_grtrace_engine_unregister(struct intel_engine_cs *engine)
{
	if (!engine->grtrace_ring.dev)
		return;
	grtrace_ring_unregister(&engine->grtrace_ring);
	engine->grtrace_ring.dev = NULL;
}

static bool i915_grtrace_fill(struct grtrace_job *gj,
			      const struct intel_engine_cs *engine,
			      const struct i915_request *rq)
{
	*gj = (struct grtrace_job) { .ring = i915_grtrace_ring(engine) };
	if (!gj->ring)
		return false;
	if (rq) {
		gj->ctx_id = rq->fence.context;
		gj->fence_context = rq->fence.context;
		gj->fence_seqno = rq->fence.seqno;
	}
	return true;
}

/**
 * i915_grtrace_request - report an event of a request on its engine
 * @rq: the request
 * @type: GRTRACE_EV_SUBMIT, _COMMIT, _START, _END or _COMPLETE; COMPLETE
 *        carries the fence error
 */
void i915_grtrace_request(const struct i915_request *rq, u16 type)
{
	struct grtrace_job gj;

	if (!i915_grtrace_fill(&gj, READ_ONCE(rq->engine), rq))
		return;
	switch (type) {
	case GRTRACE_EV_SUBMIT:
		grtrace_submit(&gj);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&gj);
		break;
	case GRTRACE_EV_START:
		grtrace_start(&gj);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&gj);
		break;
	case GRTRACE_EV_COMPLETE:
		gj.status = rq->fence.error;
		grtrace_complete(&gj);
		break;
	}
}

/**
 * i915_grtrace_ctx_switch - report a context switch acknowledged by an engine
 * @engine: the engine
 * @prev: the request that was active, or NULL if the engine was idle
 * @next: the request now active, or NULL if the engine went idle
 *
 * A switch away from an incomplete request is a preemption.
 */
void i915_grtrace_ctx_switch(struct intel_engine_cs *engine,
			     const struct i915_request *prev,
			     const struct i915_request *next)
{
	struct grtrace_job gj;

	if (!i915_grtrace_fill(&gj, engine, prev))
		return;
	if (next)
		gj.aux_context = next->fence.context;
	if (prev && !__i915_request_is_complete(prev))
		gj.flags |= GRTRACE_JOB_F_PREEMPT;
	grtrace_ctx_switch(&gj);
}

/**
 * i915_grtrace_error - report an error of an engine
 * @engine: the engine
 * @rq: the request at fault, or NULL
 * @code: enum grtrace_error
 */
void i915_grtrace_error(struct intel_engine_cs *engine,
			const struct i915_request *rq, s32 code)
{
	struct grtrace_job gj;

	if (!i915_grtrace_fill(&gj, engine, rq))
		return;
	gj.status = code;
	grtrace_error(&gj);
}

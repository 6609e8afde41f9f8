// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - record i915's requests from i915's own tracepoints.
 */

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/dma_fence.h>

/*
 * i915's own headers (the Makefile adds i915's directory), as blktrace
 * includes the block layer's: the probes get i915's requests and engines
 * and read their identity, the fence, the engine's name and class.
 */
#include "gt/intel_engine.h"
#include "gt/intel_gt.h"
#include "i915_drv.h"
#include "i915_request.h"
#include "i915_trace.h"

/**
 * DOC: i915
 *
 * i915 does not use the DRM GPU scheduler.  With CONFIG_GRTRACE_I915, the
 * grtrace_i915 module records its requests from i915's own tracepoints and
 * from ``dma_fence_signaled``.  A ring is a physical engine: the device
 * and the engine's name (``rcs0``, ``bcs0``, ``vcs0``, ``vecs0``,
 * ``ccs0``), its engine class from i915's class; with GuC submission also
 * a virtual engine (below).  A job is a request,
 * named by its fence context:seqno; its context is the fence context of
 * its timeline, one per &intel_context.
 *
 * =========== ==================================== =====================
 * event       probe on                             notes
 * =========== ==================================== =====================
 * SUBMIT      ``i915_request_add``                 the request is added,
 *                                                  by the submitting task
 * COMMIT      ``i915_request_execute`` (low-level) handed to the backend
 *                                                  with its breadcrumb;
 *                                                  again after a
 *                                                  preemption unwound it
 * START       ``i915_request_in`` (low-level)      placed in an execlists
 *                                                  port
 * END         ``i915_request_out`` (low-level)     its port completed or
 *                                                  was preempted
 * CTX_SWITCH  ``intel_engine_context_switch``      the engine acknowledged
 *             (low-level)                          a switch of context;
 *                                                  preempt flag when the
 *                                                  outgoing request had
 *                                                  not completed
 * COMPLETE    ``dma_fence_signaled``               the request's fence
 *                                                  signalled, once, with
 *                                                  its error
 * ERROR       ``intel_engine_heartbeat_stopped``   timeout: the heartbeat
 *                                                  gave up on the engine
 *                                                  (no job named)
 * ERROR       ``intel_engine_reset``,              reset: of an engine, of
 *             ``intel_gt_reset``,                  each engine of a GT, of
 *             ``intel_context_reset`` (low-level)  a context by the GuC
 *                                                  (no job named)
 * =========== ==================================== =====================
 *
 * The events marked low-level exist only with
 * CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS, i915's option "for driver
 * developers"; without it a request has SUBMIT, COMPLETE and the errors.
 *
 * Where i915's events break grtrace's rule of one event of each kind per
 * job, in order: COMMIT comes again when a
 * preemption unwound the request and it is submitted anew; START and END
 * come again at each timeslice, preemption and resubmission of its port;
 * START is the request written to a port, which may come before the END
 * of the request leaving it; END (i915 taking it out of its port) often
 * comes after COMPLETE.  An execlists port holds the last request of a run
 * of one context: START and END name that request, the requests before it
 * in the port have none.  CTX_SWITCH is one per pass over the context
 * status buffer that found the context changed, several switches of one
 * pass being one.  ERROR(timeout) names no job: the heartbeat's pulse, the
 * kernel's request that did not complete, is not the request that hung.
 *
 * What the events do not tell: a request i915 makes without
 * i915_request_add() (its heartbeat pulses, the switch to the kernel context
 * when an engine parks, GGTT updates) has no SUBMIT.  With execlists, a
 * request on a virtual (load-balanced) engine has no SUBMIT, its physical
 * engine being chosen at COMMIT.  With GuC submission the hardware schedule
 * is hidden: i915_request_in fires when the request is handed to the GuC,
 * which is not its start, and is not recorded; there is no END, CTX_SWITCH
 * or engine reset; and a request on a virtual engine never learns its
 * physical engine, so it is recorded on a ring of the virtual engine's name
 * (``v<class>x<siblings>``, one for all virtual engines of that class and
 * width), as are the GuC's resets of their contexts.  An engine is a ring
 * once it has its name for users: requests of i915's probe, before the
 * engines are renamed (``rcs'0``), are not recorded.  i915's fences are
 * known by the fence operations of the requests the probes have seen added
 * or executed: a request that completes before any of them has no COMPLETE.
 *
 * The rings are a table of engines by device and name, kept while the
 * probes are attached; past %GRTRACE_I915_RINGS engines the events of a
 * new one are dropped and counted (``events_no_ring``).  The module reads
 * i915's structures, so it is built with i915's headers and only where
 * i915 builds its tracepoints (not with PREEMPT_RT).
 */

#define GRTRACE_I915_RINGS	64

/* An engine; immutable once @ready is set. */
struct grtrace_i915_ring {
	struct grtrace_ring ring;
	int ready;
	char dev[64];
	char name[INTEL_ENGINE_CS_MAX_NAME];
};

struct grtrace_i915_tables {
	struct grtrace_i915_ring rings[GRTRACE_I915_RINGS];
	unsigned int nr_rings;	/* lock */
	raw_spinlock_t lock;
};

/*
 * The tables of the probes attached last: made before they are attached,
 * kept after they are detached for the ids their rings had, and freed
 * when they are attached again or the module goes.
 */
static struct grtrace_i915_tables *grtrace_i915_tables;

/* i915's fence operations, as the requests the probes saw carry them. */
static const struct dma_fence_ops *grtrace_i915_fence_ops;

/* Never registered: its events are dropped and counted as events_no_ring. */
static struct grtrace_ring grtrace_i915_no_ring = {
	.dev = "i915", .name = "full",
};

static u16 grtrace_i915_class(const struct intel_engine_cs *engine)
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

static bool grtrace_i915_match(const struct grtrace_i915_ring *r,
			       const char *dev, const char *name)
{
	return !strncmp(r->name, name, sizeof(r->name)) &&
	       !strncmp(r->dev, dev, sizeof(r->dev) - 1);
}

/*
 * The ring of @engine, made when it first reports; NULL for an engine that
 * is no ring: not yet named for users, or virtual with execlists, whose
 * requests are on a physical engine from COMMIT on.  Lookups take no lock:
 * an entry is published by the release of @ready.  A miss takes the
 * table's lock, a leaf lock.
 */
static struct grtrace_ring *grtrace_i915_ring(const struct intel_engine_cs *engine)
{
	struct grtrace_i915_tables *t = READ_ONCE(grtrace_i915_tables);
	struct grtrace_i915_ring *r;
	const char *dev;
	unsigned long flags;
	unsigned int i;

	if (strchr(engine->name, '\'') ||
	    (intel_engine_is_virtual(engine) && !intel_engine_uses_guc(engine)))
		return NULL;
	dev = dev_name(engine->i915->drm.dev);
	for (i = 0; i < GRTRACE_I915_RINGS; i++) {
		r = &t->rings[i];
		/* Pairs with the release below: the entry is whole. */
		if (!smp_load_acquire(&r->ready))
			break;
		if (grtrace_i915_match(r, dev, engine->name))
			return &r->ring;
	}

	raw_spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->nr_rings; i++) {
		r = &t->rings[i];
		if (grtrace_i915_match(r, dev, engine->name))
			goto out;
	}
	if (t->nr_rings == GRTRACE_I915_RINGS) {
		r = NULL;
		goto out;
	}
	r = &t->rings[t->nr_rings++];
	strscpy(r->dev, dev);
	strscpy(r->name, engine->name);
	r->ring.dev = r->dev;
	r->ring.name = r->name;
	r->ring.engine = grtrace_i915_class(engine);
	grtrace_ring_register(&r->ring);
	/* Pairs with the lockless lookup's acquire: publish it whole. */
	smp_store_release(&r->ready, 1);
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (!r) {
		pr_warn_once("more than %u i915 engines, their events are dropped\n",
			     GRTRACE_I915_RINGS);
		return &grtrace_i915_no_ring;
	}
	return &r->ring;
}

/* @rq's job on @engine's ring; false if that engine is no ring. */
static bool grtrace_i915_job(struct grtrace_job *gj,
			     const struct intel_engine_cs *engine,
			     const struct i915_request *rq)
{
	*gj = (struct grtrace_job) { .ring = grtrace_i915_ring(engine) };
	if (!gj->ring)
		return false;
	if (rq) {
		gj->ctx_id = rq->fence.context;
		gj->fence_context = rq->fence.context;
		gj->fence_seqno = rq->fence.seqno;
	}
	return true;
}

static void grtrace_i915_saw(const struct i915_request *rq)
{
	const struct dma_fence_ops *ops = rcu_access_pointer(rq->fence.ops);

	/* Only compared, never called. */
	if (unlikely(READ_ONCE(grtrace_i915_fence_ops) != ops))
		WRITE_ONCE(grtrace_i915_fence_ops, ops);
}

/* In the submitting task, before the request is committed. */
static void grtrace_i915_add(void *data, struct i915_request *rq)
{
	struct grtrace_job gj;

	grtrace_i915_saw(rq);
	if (grtrace_enabled() && grtrace_i915_job(&gj, READ_ONCE(rq->engine), rq))
		grtrace_submit(&gj);
}

/*
 * Once per fence of any driver, when it signals, under its lock, in any
 * context.  An i915 fence is a request's, which it is the first member of.
 */
static void grtrace_i915_signaled(void *data, struct dma_fence *fence)
{
	const struct dma_fence_ops *ops = READ_ONCE(grtrace_i915_fence_ops);
	struct i915_request *rq;
	struct grtrace_job gj;

	if (!grtrace_enabled() || !ops || rcu_access_pointer(fence->ops) != ops)
		return;
	rq = container_of(fence, struct i915_request, fence);
	if (!grtrace_i915_job(&gj, READ_ONCE(rq->engine), rq))
		return;
	gj.status = fence->error;
	grtrace_complete(&gj);
}

/*
 * In the heartbeat's worker.  @rq is its pulse, or NULL: not the request
 * that hung, which i915 does not know here, so the error names no job.
 */
static void grtrace_i915_heartbeat_stopped(void *data,
					   struct intel_engine_cs *engine,
					   struct i915_request *rq)
{
	struct grtrace_job gj;

	if (!grtrace_enabled() || !grtrace_i915_job(&gj, engine, NULL))
		return;
	gj.status = GRTRACE_ERROR_TIMEOUT;
	grtrace_error(&gj);
}

static void grtrace_i915_reset(struct intel_engine_cs *engine)
{
	struct grtrace_job gj;

	if (!grtrace_i915_job(&gj, engine, NULL))
		return;
	gj.status = GRTRACE_ERROR_RESET;
	grtrace_error(&gj);
}

/* Before the engine is reset, in the resetting task or tasklet. */
static void grtrace_i915_engine_reset(void *data,
				      struct intel_engine_cs *engine,
				      const char *msg)
{
	if (grtrace_enabled())
		grtrace_i915_reset(engine);
}

/* Before the GT is reset, under its reset mutex: every engine is reset. */
static void grtrace_i915_gt_reset(void *data, struct intel_gt *gt,
				  intel_engine_mask_t stalled_mask,
				  const char *reason)
{
	struct intel_engine_cs *engine;
	enum intel_engine_id id;

	if (!grtrace_enabled())
		return;
	for_each_engine(engine, gt, id)
		grtrace_i915_reset(engine);
}

#if IS_ENABLED(CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS)

/* Under the engine's lock, when the backend takes the request. */
static void grtrace_i915_execute(void *data, struct i915_request *rq)
{
	struct grtrace_job gj;

	grtrace_i915_saw(rq);
	if (grtrace_enabled() && grtrace_i915_job(&gj, READ_ONCE(rq->engine), rq))
		grtrace_commit(&gj);
}

static void grtrace_i915_in(void *data, struct i915_request *rq,
			    unsigned int port)
{
	struct intel_engine_cs *engine = READ_ONCE(rq->engine);
	struct grtrace_job gj;

	/* With GuC submission, the hand-off to the GuC: not a start. */
	if (!grtrace_enabled() || intel_engine_uses_guc(engine))
		return;
	if (grtrace_i915_job(&gj, engine, rq))
		grtrace_start(&gj);
}

static void grtrace_i915_out(void *data, struct i915_request *rq)
{
	struct grtrace_job gj;

	if (grtrace_enabled() && grtrace_i915_job(&gj, READ_ONCE(rq->engine), rq))
		grtrace_end(&gj);
}

/* In process_csb(), the engine's submission tasklet. */
static void grtrace_i915_context_switch(void *data,
					struct intel_engine_cs *engine,
					struct i915_request *prev,
					struct i915_request *next)
{
	struct grtrace_job gj;

	if (!grtrace_enabled() || !grtrace_i915_job(&gj, engine, prev))
		return;
	if (next)
		gj.aux_context = next->fence.context;
	if (prev && !__i915_request_is_complete(prev))
		gj.flags |= GRTRACE_JOB_F_PREEMPT;
	grtrace_ctx_switch(&gj);
}

/* The GuC reset a context: on its engine's ring, a virtual engine's too. */
static void grtrace_i915_context_reset(void *data, struct intel_context *ce)
{
	if (grtrace_enabled())
		grtrace_i915_reset(ce->engine);
}

static int grtrace_i915_attach_low_level(void)
{
	int ret;

	ret = register_trace_i915_request_execute(grtrace_i915_execute, NULL);
	if (ret)
		return ret;
	ret = register_trace_i915_request_in(grtrace_i915_in, NULL);
	if (ret)
		goto err_execute;
	ret = register_trace_i915_request_out(grtrace_i915_out, NULL);
	if (ret)
		goto err_in;
	ret = register_trace_intel_engine_context_switch(grtrace_i915_context_switch,
							 NULL);
	if (ret)
		goto err_out;
	ret = register_trace_intel_context_reset(grtrace_i915_context_reset, NULL);
	if (ret)
		goto err_switch;
	return 0;

err_switch:
	unregister_trace_intel_engine_context_switch(grtrace_i915_context_switch,
						     NULL);
err_out:
	unregister_trace_i915_request_out(grtrace_i915_out, NULL);
err_in:
	unregister_trace_i915_request_in(grtrace_i915_in, NULL);
err_execute:
	unregister_trace_i915_request_execute(grtrace_i915_execute, NULL);
	return ret;
}

static void grtrace_i915_detach_low_level(void)
{
	unregister_trace_intel_context_reset(grtrace_i915_context_reset, NULL);
	unregister_trace_intel_engine_context_switch(grtrace_i915_context_switch,
						     NULL);
	unregister_trace_i915_request_out(grtrace_i915_out, NULL);
	unregister_trace_i915_request_in(grtrace_i915_in, NULL);
	unregister_trace_i915_request_execute(grtrace_i915_execute, NULL);
}

#else

static int grtrace_i915_attach_low_level(void) { return 0; }
static void grtrace_i915_detach_low_level(void) { }

#endif

/* Forget the rings of tables no probe uses any more, and free them. */
static void grtrace_i915_free(struct grtrace_i915_tables *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nr_rings; i++)
		grtrace_ring_unregister(&t->rings[i].ring);
	kvfree(t);
}

static int grtrace_i915_get(void)
{
	struct grtrace_i915_tables *t;
	int ret;

	grtrace_i915_free(grtrace_i915_tables);
	WRITE_ONCE(grtrace_i915_tables, NULL);
	t = kvzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	raw_spin_lock_init(&t->lock);
	WRITE_ONCE(grtrace_i915_tables, t);

	ret = register_trace_i915_request_add(grtrace_i915_add, NULL);
	if (ret)
		goto err;
	ret = register_trace_dma_fence_signaled(grtrace_i915_signaled, NULL);
	if (ret)
		goto err_add;
	ret = register_trace_intel_engine_heartbeat_stopped(grtrace_i915_heartbeat_stopped,
							    NULL);
	if (ret)
		goto err_signaled;
	ret = register_trace_intel_engine_reset(grtrace_i915_engine_reset, NULL);
	if (ret)
		goto err_heartbeat;
	ret = register_trace_intel_gt_reset(grtrace_i915_gt_reset, NULL);
	if (ret)
		goto err_engine_reset;
	ret = grtrace_i915_attach_low_level();
	if (ret)
		goto err_gt_reset;
	return 0;

err_gt_reset:
	unregister_trace_intel_gt_reset(grtrace_i915_gt_reset, NULL);
err_engine_reset:
	unregister_trace_intel_engine_reset(grtrace_i915_engine_reset, NULL);
err_heartbeat:
	unregister_trace_intel_engine_heartbeat_stopped(grtrace_i915_heartbeat_stopped,
							NULL);
err_signaled:
	unregister_trace_dma_fence_signaled(grtrace_i915_signaled, NULL);
err_add:
	unregister_trace_i915_request_add(grtrace_i915_add, NULL);
err:
	tracepoint_synchronize_unregister();
	WRITE_ONCE(grtrace_i915_tables, NULL);
	grtrace_i915_free(t);
	return ret;
}

static void grtrace_i915_put(void)
{
	grtrace_i915_detach_low_level();
	unregister_trace_intel_gt_reset(grtrace_i915_gt_reset, NULL);
	unregister_trace_intel_engine_reset(grtrace_i915_engine_reset, NULL);
	unregister_trace_intel_engine_heartbeat_stopped(grtrace_i915_heartbeat_stopped,
							NULL);
	unregister_trace_dma_fence_signaled(grtrace_i915_signaled, NULL);
	unregister_trace_i915_request_add(grtrace_i915_add, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

static struct grtrace_source grtrace_i915_source = {
	.get = grtrace_i915_get,
	.put = grtrace_i915_put,
};

static int __init grtrace_i915_init(void)
{
	grtrace_source_add(&grtrace_i915_source);
	return 0;
}

static void __exit grtrace_i915_exit(void)
{
	grtrace_source_remove(&grtrace_i915_source);
	grtrace_i915_free(grtrace_i915_tables);
}

module_init(grtrace_i915_init);
module_exit(grtrace_i915_exit);

MODULE_DESCRIPTION("grtrace: i915's requests from i915's tracepoints");
MODULE_LICENSE("GPL");

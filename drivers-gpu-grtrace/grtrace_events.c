// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - the driver facing half, always built in when CONFIG_GRTRACE is
 * enabled so that drivers never depend on the (possibly modular) core.
 */

#include <linux/export.h>
#include <linux/grtrace.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include <trace/events/grtrace.h>

#include "grtrace_events.h"

/**
 * DOC: Overview
 *
 * grtrace records the life of every GPU job: SUBMIT when a process hands the
 * job over, COMMIT when it is written to the hardware ring, START and END
 * around its execution, COMPLETE when its fence signals, and the context
 * switches, interrupts, dependency waits and errors in between.
 *
 * Drivers call the grtrace_<event>() functions of ``<linux/grtrace.h>`` at
 * the places where those things happen.  Each call fires one tracepoint of
 * the ``grtrace`` trace system; nothing else.  Consumers attach to the
 * tracepoints: ftrace, perf and BPF directly, and the grtrace core, which
 * writes a versioned binary stream to per-CPU relay files while a session
 * runs.  This is the arrangement blktrace uses.
 *
 * The functions and tracepoints live in a small object built into the
 * kernel whenever CONFIG_GRTRACE is enabled, so drivers do not depend on the
 * core module.  While no consumer is attached, grtrace_enabled() is a
 * patched-out branch (a static key counting attached tracepoints) and a
 * call site costs nothing else.
 */

EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_submit);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_commit);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_end);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_complete);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_ctx_switch);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_irq);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_sync_wait_enter);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_sync_wait_exit);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_error);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_ring_remove);
EXPORT_TRACEPOINT_SYMBOL_GPL(grtrace_summary);

/* Counts the grtrace tracepoints that have a probe attached. */
DEFINE_STATIC_KEY_FALSE(grtrace_active_key);
EXPORT_SYMBOL_GPL(grtrace_active_key);

/**
 * DOC: Ring ids
 *
 * grtrace_ring_register() gives a ring an id from 1 to 255; 0 means no
 * ring.  A ring's id is 0 until it is registered and again once it is
 * unregistered.  Events of a ring whose id is 0 are dropped and counted
 * (``events_no_ring`` in ``stats``), so a driver that reports while its
 * ring is being registered or unregistered names no other ring.
 *
 * While any grtrace tracepoint has a consumer, the id of an unregistered
 * ring is retired rather than freed: within a session, an id names one
 * ring.  The relay stream writes a RING_REMOVED record for a ring it
 * described.  Retired ids are freed when the last consumer detaches.
 *
 * When all ids are in use or retired, grtrace_ring_register() fails with
 * -ENOSPC and counts the ring (``rings_refused``); its events are dropped
 * and counted.  Drivers with a ring per queue or per channel (nouveau, xe,
 * panthor) can get there in a long session.
 */
static DEFINE_IDA(grtrace_ring_ida);
static DEFINE_SPINLOCK(grtrace_retired_lock);
static DECLARE_BITMAP(grtrace_retired, GRTRACE_MAX_RINGS);	/* retired_lock */
static atomic64_t grtrace_rings_refused;
static atomic64_t grtrace_no_ring_events;

/* Called by the tracepoint core, under tracepoints_mutex, on the first probe. */
int grtrace_tp_reg(void)
{
	static_branch_inc(&grtrace_active_key);
	return 0;
}

/* Called by the tracepoint core, under tracepoints_mutex, on the last probe. */
void grtrace_tp_unreg(void)
{
	unsigned int id;

	static_branch_dec(&grtrace_active_key);
	if (static_key_enabled(&grtrace_active_key))
		return;
	/*
	 * grtrace_ring_unregister() retires an id only after it saw the key
	 * enabled, under the lock: this frees that id, or it saw the key off.
	 */
	spin_lock(&grtrace_retired_lock);
	for_each_set_bit(id, grtrace_retired, GRTRACE_MAX_RINGS) {
		__clear_bit(id, grtrace_retired);
		ida_free(&grtrace_ring_ida, id);
	}
	spin_unlock(&grtrace_retired_lock);
}

/* Registered rings, for the METADATA records of the stream. */
static DEFINE_MUTEX(grtrace_rings_lock);
static LIST_HEAD(grtrace_rings);

/**
 * grtrace_ring_register - give a ring a stream-wide id
 * @ring: ring with @dev, @name and @engine filled in, @id 0
 *
 * The ring is listed in the METADATA of every session from now on.  Its
 * events are reported from the moment its id is published, which is the
 * last thing this does.  May sleep.
 *
 * Returns: 0, or -ENOSPC when no id is left; the events of such a ring are
 * dropped and counted.
 */
int grtrace_ring_register(struct grtrace_ring *ring)
{
	int id;

	if (ring->engine >= GRTRACE_ENGINE_NR)
		ring->engine = GRTRACE_ENGINE_OTHER;
	INIT_LIST_HEAD(&ring->node);

	id = ida_alloc_range(&grtrace_ring_ida, 1, GRTRACE_MAX_RINGS - 1,
			     GFP_KERNEL);
	if (id < 0) {
		atomic64_inc(&grtrace_rings_refused);
		pr_warn_ratelimited("grtrace: no ring id left for %s %s\n",
				    ring->dev, ring->name);
		return id == -ENOMEM ? id : -ENOSPC;
	}

	mutex_lock(&grtrace_rings_lock);
	list_add_tail(&ring->node, &grtrace_rings);
	mutex_unlock(&grtrace_rings_lock);
	/* Pairs with grtrace_fill(): whoever sees the id sees the names. */
	smp_store_release(&ring->id, id);
	return 0;
}
EXPORT_SYMBOL_GPL(grtrace_ring_register);

/**
 * grtrace_ring_unregister - forget a ring
 * @ring: ring passed to grtrace_ring_register() before, whether that
 *        succeeded or not, or a ring never registered
 *
 * Events reported for @ring from now on are dropped and counted.  When this
 * returns, no event of @ring is being reported on any CPU, so the caller
 * may free @ring and its names.  May sleep.
 */
void grtrace_ring_unregister(struct grtrace_ring *ring)
{
	u32 id = ring->id;

	if (!id)
		return;
	WRITE_ONCE(ring->id, 0);
	mutex_lock(&grtrace_rings_lock);
	list_del_init(&ring->node);
	mutex_unlock(&grtrace_rings_lock);
	/* Reporting runs under rcu_read_lock(), probes included. */
	synchronize_rcu();
	/* After the last event of the ring: tell the consumers it is gone. */
	trace_grtrace_ring_remove(ring, id);

	spin_lock(&grtrace_retired_lock);
	if (static_key_enabled(&grtrace_active_key))
		__set_bit(id, grtrace_retired);
	else
		ida_free(&grtrace_ring_ida, id);
	spin_unlock(&grtrace_retired_lock);
}
EXPORT_SYMBOL_GPL(grtrace_ring_unregister);

/**
 * grtrace_ring_id_counts - what the ring ids cost, since boot
 * @refused: set to the number of rings refused an id
 * @no_ring: set to the number of events dropped because their ring had no
 *           id (not registered yet, refused, or unregistered)
 */
void grtrace_ring_id_counts(u64 *refused, u64 *no_ring)
{
	*refused = atomic64_read(&grtrace_rings_refused);
	*no_ring = atomic64_read(&grtrace_no_ring_events);
}
EXPORT_SYMBOL_GPL(grtrace_ring_id_counts);

/**
 * grtrace_walk_rings - call @fn for every registered ring
 * @fn: callback; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Runs @fn with the ring list locked, so @fn may report events for the
 * ring but must not register or unregister rings.  May sleep.
 *
 * Returns: the first non-zero value returned by @fn, or 0.
 */
int grtrace_walk_rings(grtrace_ring_fn fn, void *data)
{
	const struct grtrace_ring *ring;
	int ret = 0;

	mutex_lock(&grtrace_rings_lock);
	list_for_each_entry(ring, &grtrace_rings, node) {
		ret = fn(ring, data);
		if (ret)
			break;
	}
	mutex_unlock(&grtrace_rings_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_walk_rings);

/*
 * Ring names as drivers spell them, e.g. amdgpu "gfx_0.0.0", "comp_1.0.0",
 * "sdma0", "vcn_dec", "vcn_enc0", i915 "rcs0", "ccs0", "bcs0", "vcs0",
 * "vecs0", or "blit", "copy", "video".  First match wins.
 */
static const struct {
	const char *prefix;
	u16 engine;
} grtrace_engine_prefixes[] = {
	{ "gfx",	GRTRACE_ENGINE_GRAPHICS },
	{ "rcs",	GRTRACE_ENGINE_GRAPHICS },
	{ "render",	GRTRACE_ENGINE_GRAPHICS },
	{ "comp",	GRTRACE_ENGINE_COMPUTE },
	{ "ccs",	GRTRACE_ENGINE_COMPUTE },
	{ "sdma",	GRTRACE_ENGINE_COPY },
	{ "bcs",	GRTRACE_ENGINE_COPY },
	{ "blit",	GRTRACE_ENGINE_COPY },
	{ "copy",	GRTRACE_ENGINE_COPY },
	{ "dma",	GRTRACE_ENGINE_COPY },
	{ "vcn_enc",	GRTRACE_ENGINE_VIDEO_ENCODE },
	{ "uvd_enc",	GRTRACE_ENGINE_VIDEO_ENCODE },
	{ "vce",	GRTRACE_ENGINE_VIDEO_ENCODE },
	{ "vecs",	GRTRACE_ENGINE_VIDEO_ENCODE },
	{ "enc",	GRTRACE_ENGINE_VIDEO_ENCODE },
	{ "vcn",	GRTRACE_ENGINE_VIDEO_DECODE },
	{ "uvd",	GRTRACE_ENGINE_VIDEO_DECODE },
	{ "jpeg",	GRTRACE_ENGINE_VIDEO_DECODE },
	{ "vcs",	GRTRACE_ENGINE_VIDEO_DECODE },
	{ "dec",	GRTRACE_ENGINE_VIDEO_DECODE },
	{ "video",	GRTRACE_ENGINE_VIDEO_DECODE },
};

/**
 * grtrace_engine_from_name - guess the engine class from a ring name
 * @name: ring or scheduler name, may be NULL
 *
 * For drivers that do not know the class of a ring, such as the generic
 * DRM scheduler.
 *
 * Returns: an enum grtrace_engine, %GRTRACE_ENGINE_OTHER if nothing matches.
 */
u16 grtrace_engine_from_name(const char *name)
{
	int i;

	for (i = 0; name && i < ARRAY_SIZE(grtrace_engine_prefixes); i++)
		if (!strncasecmp(name, grtrace_engine_prefixes[i].prefix,
				 strlen(grtrace_engine_prefixes[i].prefix)))
			return grtrace_engine_prefixes[i].engine;
	return GRTRACE_ENGINE_OTHER;
}
EXPORT_SYMBOL_GPL(grtrace_engine_from_name);

/* grtrace_fill() sets the payload field by field: no byte is left out. */
static_assert(sizeof(struct grtrace_job_payload) ==
	      6 * sizeof(u64) + 5 * sizeof(u32) + 2 * sizeof(u16) +
	      sizeof_field(struct grtrace_job_payload, comm),
	      "a hole in struct grtrace_job_payload");

/*
 * Fill @ev for the tracepoint of @type, or return false when @job's ring
 * has no id.  Called under the RCU read lock that grtrace_ring_unregister()
 * waits for, which also covers the tracepoint fired with @ev: the probes
 * never see a ring being unregistered, nor a ring before its names.
 *
 * Every byte of the payload, which the relay stream copies out, is set
 * here one field at a time: @ev is not zeroed first (see
 * GRTRACE_DEFINE_EVENT).
 */
static bool grtrace_fill(struct grtrace_event *ev, u16 type,
			 const struct grtrace_job *job)
{
	const struct grtrace_ring *ring = job->ring;
	struct grtrace_job_payload *p = &ev->job;
	u32 id = smp_load_acquire(&ring->id);	/* pairs with register */

	if (unlikely(!id)) {
		atomic64_inc(&grtrace_no_ring_events);
		return false;
	}
	ev->type = type;
	ev->ring = ring;
	p->ctx_id = job->ctx_id;
	p->fence_context = job->fence_context;
	p->fence_seqno = job->fence_seqno;
	p->aux_context = job->aux_context;
	p->aux_seqno = job->aux_seqno;
	p->ring_id = id;
	p->engine = READ_ONCE(ring->engine);
	p->flags = job->flags;
	p->status = job->status;
	p->depth = job->depth;
	/*
	 * The task that submits is named, and the task that waits when the
	 * caller is that task: whoever else reports is no party to the job.
	 */
	if (type == GRTRACE_EV_SUBMIT ||
	    (job->waiter && (type == GRTRACE_EV_SYNC_WAIT_ENTER ||
			     type == GRTRACE_EV_SYNC_WAIT_EXIT))) {
		p->pid = task_pid_nr(current);
		p->tgid = task_tgid_nr(current);
		/* comm is NUL terminated and padded (__set_task_comm()) */
		memcpy(p->comm, current->comm, sizeof(p->comm));
		p->client_id = type == GRTRACE_EV_SUBMIT ? job->client_id : 0;
	} else {
		p->pid = 0;
		p->tgid = 0;
		memset(p->comm, 0, sizeof(p->comm));
		p->client_id = 0;
	}
	return true;
}

/*
 * @ev is not initialized on the stack: with CONFIG_INIT_STACK_ALL_ZERO
 * zeroing its 104 bytes took a fifth of the cost of an event recorded by
 * ftrace alone (Documentation/gpu/grtrace/benchmark.rst), and
 * grtrace_fill() sets all that leaves the kernel.
 */
#define GRTRACE_DEFINE_EVENT(name, type)				\
void grtrace_##name(const struct grtrace_job *job)			\
{									\
	struct grtrace_event ev __uninitialized;			\
									\
	guard(rcu)();							\
	if (grtrace_fill(&ev, type, job))				\
		trace_grtrace_##name(&ev);				\
}									\
EXPORT_SYMBOL_GPL(grtrace_##name)

/* The reporting functions, documented in <linux/grtrace.h>. */
GRTRACE_DEFINE_EVENT(submit, GRTRACE_EV_SUBMIT);
GRTRACE_DEFINE_EVENT(commit, GRTRACE_EV_COMMIT);
GRTRACE_DEFINE_EVENT(start, GRTRACE_EV_START);
GRTRACE_DEFINE_EVENT(end, GRTRACE_EV_END);
GRTRACE_DEFINE_EVENT(complete, GRTRACE_EV_COMPLETE);
GRTRACE_DEFINE_EVENT(ctx_switch, GRTRACE_EV_CTX_SWITCH);
GRTRACE_DEFINE_EVENT(irq, GRTRACE_EV_IRQ);
GRTRACE_DEFINE_EVENT(sync_wait_enter, GRTRACE_EV_SYNC_WAIT_ENTER);
GRTRACE_DEFINE_EVENT(sync_wait_exit, GRTRACE_EV_SYNC_WAIT_EXIT);
GRTRACE_DEFINE_EVENT(error, GRTRACE_EV_ERROR);

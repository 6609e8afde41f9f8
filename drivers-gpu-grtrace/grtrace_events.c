// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - the driver facing half, always built in when CONFIG_GRTRACE is
 * enabled so that drivers never depend on the (possibly modular) core.
 */

#include <linux/cleanup.h>
#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/grtrace.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

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
 * A ring has no id while nothing consumes grtrace events: registering and
 * unregistering it takes no lock, allocates nothing and waits for nothing,
 * so rings may come and go at any rate: one per scheduler, which xe and
 * panthor create per queue, or one per channel (nouveau's).
 *
 * The time during which any grtrace tracepoint has a consumer is an
 * *epoch*.  A ring gets an id the first time it reports an event in an
 * epoch, and keeps it until it is unregistered or the epoch ends.  Within an
 * epoch, ids are given in order from %GRTRACE_FIRST_RING_ID and never given
 * twice; ids below it are the test rings of the core's ``emit`` file.  A
 * session of the relay stream lies within one epoch (the stream is a
 * consumer), so an id names one ring in a session, which describes the ring
 * in a METADATA record before its first event on each CPU.  There is no
 * limit on the number of rings registered; an epoch that met 2^32 - 256
 * rings has no id left for the next ones.
 *
 * The rings with an id are listed, under a lock taken only when a ring gets
 * its id, is unregistered while it has one, or the epoch ends; that list is
 * the ``rings`` file of the core.  Events reported for a ring being
 * registered or after it was unregistered, and those of a ring met when the
 * epoch had no id left, are dropped and counted (``events_no_ring`` in
 * ``stats``).
 */
static DEFINE_RAW_SPINLOCK(grtrace_rings_lock);
static LIST_HEAD(grtrace_rings);		/* rings_lock */
static u32 grtrace_epoch = 1;			/* rings_lock for writes */
static u32 grtrace_next_id = GRTRACE_FIRST_RING_ID;	/* rings_lock */
static atomic64_t grtrace_no_ring;

/*
 * A ring's stamp is the epoch it got its id in, and that id; or 0 before it
 * is registered, NEW once registered, GONE once unregistered, and an epoch
 * of FIXED for the test rings of emit.  Epochs count from 1 and never get
 * near those.
 */
#define GRTRACE_STAMP(epoch, id)	((u64)(epoch) << 32 | (id))
#define GRTRACE_STAMP_EPOCH(s)		((u32)((s) >> 32))
#define GRTRACE_STAMP_FIXED		(U32_MAX - 1)
#define GRTRACE_STAMP_NEW		GRTRACE_STAMP(U32_MAX - 2, 0)
#define GRTRACE_STAMP_GONE		GRTRACE_STAMP(U32_MAX, 0)

/**
 * DOC: Sources
 *
 * Much of what grtrace records comes from the tracepoints of the drivers
 * and subsystems themselves: a *source*, the probes of a module on such
 * tracepoints, reports grtrace events from them as long as something
 * consumes those events: a relay session, or ftrace, perf or BPF on a
 * ``grtrace`` event.  The sources cannot follow
 * the consumers from grtrace_tp_reg(), which runs under tracepoints_mutex
 * as register_trace_*() would again, so a work item does, after every
 * change of the static key; a session calls grtrace_sources_sync() itself
 * so that its first events are not missed.  No work is queued while there
 * is no source: a tracepoint enabled from the kernel command line may get
 * its first consumer before workqueues run.
 */
static DEFINE_MUTEX(grtrace_sources_lock);
static LIST_HEAD(grtrace_sources);		/* sources_lock */

/**
 * grtrace_sources_sync - attach or detach every source as consumers need
 *
 * Attaches the sources while any grtrace tracepoint has a consumer, and
 * detaches them after the last one went; a source that could not be
 * attached is tried again at the next call.  Context: process context;
 * may sleep.
 *
 * Returns: 0, or the error of the first source that could not be attached.
 */
int grtrace_sources_sync(void)
{
	struct grtrace_source *src;
	int ret = 0, err;
	bool active;

	guard(mutex)(&grtrace_sources_lock);
	/*
	 * Pairs with grtrace_sources_changed(): a source added before is
	 * seen by its work, or the key changed after is seen here.
	 */
	smp_mb();
	active = static_key_enabled(&grtrace_active_key);
	list_for_each_entry(src, &grtrace_sources, node) {
		if (src->attached == active)
			continue;
		if (!active) {
			src->put();
			src->attached = false;
			continue;
		}
		err = src->get();
		if (!err)
			src->attached = true;
		else if (!ret)
			ret = err;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_sources_sync);

static void grtrace_sources_work_fn(struct work_struct *work)
{
	int ret = grtrace_sources_sync();

	if (ret)
		pr_warn("a source of grtrace events could not be attached: %d\n",
			ret);
}

static DECLARE_WORK(grtrace_sources_work, grtrace_sources_work_fn);

/* After a change of the static key: bring the sources in line. */
static void grtrace_sources_changed(void)
{
	/* Pairs with the barrier of grtrace_sources_sync(). */
	smp_mb();
	if (!list_empty(&grtrace_sources))
		schedule_work(&grtrace_sources_work);
}

/**
 * grtrace_source_add - add a source of grtrace events
 * @src: with @get and @put set
 *
 * Attaches it at once if grtrace events have consumers.  Context: process
 * context; may sleep.
 */
void grtrace_source_add(struct grtrace_source *src)
{
	int ret;

	scoped_guard(mutex, &grtrace_sources_lock) {
		src->attached = false;
		list_add_tail(&src->node, &grtrace_sources);
	}
	ret = grtrace_sources_sync();
	if (ret)
		pr_warn("a source of grtrace events could not be attached: %d\n",
			ret);
}
EXPORT_SYMBOL_GPL(grtrace_source_add);

/**
 * grtrace_source_remove - remove a source added before
 * @src: the source
 *
 * Detaches it if it is attached; once this returns, neither of its
 * functions runs nor will be called.  Context: process context; may sleep.
 */
void grtrace_source_remove(struct grtrace_source *src)
{
	guard(mutex)(&grtrace_sources_lock);
	if (src->attached)
		src->put();
	list_del(&src->node);
}
EXPORT_SYMBOL_GPL(grtrace_source_remove);

/* Called by the tracepoint core, under tracepoints_mutex, on the first probe. */
int grtrace_tp_reg(void)
{
	static_branch_inc(&grtrace_active_key);
	grtrace_sources_changed();
	return 0;
}

/*
 * Called by the tracepoint core, under tracepoints_mutex, on the last probe:
 * the last consumer gone, the epoch ends.  No ring keeps its id, so their
 * unregistration takes no lock until the next epoch gives them new ids.
 */
void grtrace_tp_unreg(void)
{
	struct grtrace_ring *ring, *tmp;
	unsigned long flags;

	static_branch_dec(&grtrace_active_key);
	if (static_key_enabled(&grtrace_active_key))
		return;
	grtrace_sources_changed();
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	list_for_each_entry_safe(ring, tmp, &grtrace_rings, node)
		list_del_init(&ring->node);
	/* Pairs with grtrace_ring_unregister(): the list before the epoch. */
	smp_store_release(&grtrace_epoch, grtrace_epoch + 1);
	grtrace_next_id = GRTRACE_FIRST_RING_ID;
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
}

#if IS_ENABLED(CONFIG_KUNIT)
static void (*grtrace_meet_hook)(struct grtrace_ring *ring);	/* rings_lock */

/**
 * grtrace_set_meet_hook - for tests: a function to run as a ring gets its id
 * @hook: called with the ring under the lock of the ring list, interrupts
 *	disabled, before the ring gets its id; NULL for none
 *
 * Once this returns, the hook set before runs no more.
 */
void grtrace_set_meet_hook(void (*hook)(struct grtrace_ring *ring))
{
	guard(raw_spinlock_irqsave)(&grtrace_rings_lock);
	grtrace_meet_hook = hook;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_set_meet_hook);

/**
 * grtrace_set_next_ring_id - for tests: the id the next ring met gets
 * @id: the id, 0 for none left in this epoch
 *
 * The epoch's end gives ids from %GRTRACE_FIRST_RING_ID again.
 */
void grtrace_set_next_ring_id(u32 id)
{
	guard(raw_spinlock_irqsave)(&grtrace_rings_lock);
	grtrace_next_id = id;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_set_next_ring_id);

static void grtrace_meet_test(struct grtrace_ring *ring)
{
	if (grtrace_meet_hook)
		grtrace_meet_hook(ring);
}
#else
static inline void grtrace_meet_test(struct grtrace_ring *ring) { }
#endif

/*
 * Give @ring an id in this epoch, the first time it reports in it.  Returns
 * the id, or 0 when @ring is not registered or the epoch has no id left
 * (both counted), or when nothing consumes events any more.
 */
static noinline u32 grtrace_ring_meet(struct grtrace_ring *ring)
{
	unsigned long flags;
	bool guess, out = false;
	u64 s, id, prev;
	u16 engine = 0;

	/* Pairs with grtrace_ring_register(): the ring's fields first. */
	s = atomic64_read_acquire(&ring->stamp);
	if (!s || s == GRTRACE_STAMP_GONE)
		goto no_ring;
	/* Guessed once, here rather than on the driver's init path. */
	guess = READ_ONCE(ring->engine) == GRTRACE_ENGINE_FROM_NAME;
	if (guess)
		engine = grtrace_engine_from_name(ring->name);
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	s = atomic64_read(&ring->stamp);
	if (s != GRTRACE_STAMP_GONE &&
	    GRTRACE_STAMP_EPOCH(s) != grtrace_epoch &&
	    static_key_enabled(&grtrace_active_key)) {
		out = !grtrace_next_id;
		if (!out) {
			if (guess)
				WRITE_ONCE(ring->engine, engine);
			grtrace_meet_test(ring);
			/*
			 * Unregistering takes no lock: a ring unregistered
			 * since the read above keeps GONE and is not listed,
			 * even if its driver broke the rule and reported
			 * meanwhile.  Pairs with grtrace_ring_id(): the
			 * engine before the id.
			 */
			id = GRTRACE_STAMP(grtrace_epoch, grtrace_next_id);
			prev = atomic64_cmpxchg_release(&ring->stamp, s, id);
			if (prev == s) {
				s = id;
				grtrace_next_id++;
				list_add_tail(&ring->node, &grtrace_rings);
			} else {
				s = prev;
			}
		}
	}
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	if (out)
		pr_warn_once("no grtrace ring id left: events of new rings are dropped until tracing stops\n");
	else if (s != GRTRACE_STAMP_GONE)
		return GRTRACE_STAMP_EPOCH(s) == READ_ONCE(grtrace_epoch) ? (u32)s : 0;
no_ring:
	atomic64_inc(&grtrace_no_ring);
	return 0;
}

/* The id of @ring in this epoch, given now if it has none; 0 if none. */
static inline u32 grtrace_ring_id(const struct grtrace_ring *ring)
{
	/* Pairs with grtrace_ring_meet(): its engine is known. */
	u64 s = atomic64_read_acquire(&ring->stamp);

	if (likely(GRTRACE_STAMP_EPOCH(s) == READ_ONCE(grtrace_epoch)) ||
	    GRTRACE_STAMP_EPOCH(s) == GRTRACE_STAMP_FIXED)
		return (u32)s;
	/* The ring is the driver's, const only to the reporting calls. */
	return grtrace_ring_meet((struct grtrace_ring *)ring);
}

/**
 * grtrace_ring_register - make a ring known to grtrace
 * @ring: ring with @dev, @name and @engine filled in
 *
 * Takes no lock and allocates nothing: the ring gets an id when it first
 * reports an event while something consumes them.  Any context.
 */
void grtrace_ring_register(struct grtrace_ring *ring)
{
	if (ring->engine >= GRTRACE_ENGINE_NR &&
	    ring->engine != GRTRACE_ENGINE_FROM_NAME)
		ring->engine = GRTRACE_ENGINE_OTHER;
	INIT_LIST_HEAD(&ring->node);
	/* Pairs with grtrace_ring_meet(): a reporter sees the fields. */
	atomic64_set_release(&ring->stamp, GRTRACE_STAMP_NEW);
}
EXPORT_SYMBOL_GPL(grtrace_ring_register);

/**
 * grtrace_ring_unregister - forget a ring
 * @ring: ring passed to grtrace_ring_register() before
 *
 * Call it once no event of @ring can be reported any more, as for any other
 * object the driver frees next; events reported afterwards are dropped and
 * counted.  If @ring has an id, the consumers are told that it went away
 * (grtrace_ring_remove).  Takes no lock and does not wait while nothing
 * consumes grtrace events.  May sleep.
 */
void grtrace_ring_unregister(struct grtrace_ring *ring)
{
	u64 s = atomic64_xchg(&ring->stamp, GRTRACE_STAMP_GONE);
	unsigned long flags;
	bool listed;

	/*
	 * Listed only with the stamp of the current epoch; the epoch's end
	 * empties the list under the lock before it moves on, and a ring
	 * stamped GONE is never listed again.
	 */
	if (GRTRACE_STAMP_EPOCH(s) != smp_load_acquire(&grtrace_epoch))
		return;
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	listed = GRTRACE_STAMP_EPOCH(s) == grtrace_epoch;
	if (listed)
		list_del_init(&ring->node);
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	if (listed)
		trace_grtrace_ring_remove(ring, (u32)s);
}
EXPORT_SYMBOL_GPL(grtrace_ring_unregister);

/**
 * grtrace_ring_init_fixed - set up a test ring with a fixed id
 * @ring: ring with @dev, @name and @engine filled in
 * @id: its id, from 1 to %GRTRACE_FIRST_RING_ID - 1
 *
 * For the core's emit file: such a ring is never listed nor unregistered.
 */
void grtrace_ring_init_fixed(struct grtrace_ring *ring, u32 id)
{
	INIT_LIST_HEAD(&ring->node);
	atomic64_set(&ring->stamp, GRTRACE_STAMP(GRTRACE_STAMP_FIXED, id));
}
EXPORT_SYMBOL_GPL(grtrace_ring_init_fixed);

/**
 * grtrace_no_ring_events - events dropped for want of a ring id
 *
 * Returns: the events reported since boot for rings that had no id: not
 * registered yet, unregistered, or met when the epoch had no id left.
 */
u64 grtrace_no_ring_events(void)
{
	return atomic64_read(&grtrace_no_ring);
}
EXPORT_SYMBOL_GPL(grtrace_no_ring_events);

/*
 * The rings a walk visits at most before it lets interrupts in: the lock is
 * raw and taken by the reporting paths, in any context, and a session's
 * header walks every ring with an id, hundreds on a machine with many queues.
 */
#define GRTRACE_WALK_BATCH	32

/**
 * grtrace_walk_rings - call @fn for every ring that has an id
 * @fn: callback; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Runs @fn with the ring list locked and interrupts disabled, for
 * %GRTRACE_WALK_BATCH rings at most before it drops the lock and takes it
 * again, which lets interrupts in if the caller had them enabled: @fn must
 * not sleep nor report events, and a ring is valid only during its call.
 * The walk visits the rings in the order they got their ids, each once.  A
 * ring that gets its id during the walk is visited too; one unregistered
 * during it is visited only if it came before.  The end of the epoch ends
 * the walk, which then returns 0.  Any context but NMI.
 *
 * Returns: the first non-zero value returned by @fn, or 0.
 */
int grtrace_walk_rings(grtrace_ring_fn fn, void *data)
{
	/* Where the walk resumes: a ring stamped GONE, which walks skip. */
	struct grtrace_ring cursor = { .stamp = ATOMIC64_INIT(GRTRACE_STAMP_GONE) };
	struct grtrace_ring *ring;
	unsigned int batch = 0;
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	list_add(&cursor.node, &grtrace_rings);
	while (!list_is_last(&cursor.node, &grtrace_rings)) {
		u64 s;

		ring = list_next_entry(&cursor, node);
		list_move(&cursor.node, &ring->node);
		s = atomic64_read(&ring->stamp);
		/* Being unregistered (its ring_remove follows), or a cursor */
		if (s == GRTRACE_STAMP_GONE)
			continue;
		ret = fn(ring, (u32)s, data);
		if (ret)
			break;
		if (++batch < GRTRACE_WALK_BATCH)
			continue;
		batch = 0;
		raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
		raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
		/* The epoch's end took every ring off the list, and the cursor. */
		if (list_empty(&cursor.node))
			break;
	}
	list_del(&cursor.node);
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_walk_rings);

/*
 * Ring names as drivers spell them, e.g. amdgpu "gfx_0.0.0", "comp_1.0.0",
 * "sdma0", "vcn_dec", "vcn_enc0", i915 "rcs0", "ccs0", "bcs0", "vcs0",
 * "vecs0", or "blit", "copy", "video".  First match wins.
 */
#define GRTRACE_PREFIX(p, e)	{ p, sizeof(p) - 1, e }
static const struct {
	const char *prefix;
	u8 len;
	u16 engine;
} grtrace_engine_prefixes[] = {
	GRTRACE_PREFIX("gfx", GRTRACE_ENGINE_GRAPHICS),
	GRTRACE_PREFIX("rcs", GRTRACE_ENGINE_GRAPHICS),
	GRTRACE_PREFIX("render", GRTRACE_ENGINE_GRAPHICS),
	GRTRACE_PREFIX("comp", GRTRACE_ENGINE_COMPUTE),
	GRTRACE_PREFIX("ccs", GRTRACE_ENGINE_COMPUTE),
	GRTRACE_PREFIX("sdma", GRTRACE_ENGINE_COPY),
	GRTRACE_PREFIX("bcs", GRTRACE_ENGINE_COPY),
	GRTRACE_PREFIX("blit", GRTRACE_ENGINE_COPY),
	GRTRACE_PREFIX("copy", GRTRACE_ENGINE_COPY),
	GRTRACE_PREFIX("dma", GRTRACE_ENGINE_COPY),
	GRTRACE_PREFIX("vcn_enc", GRTRACE_ENGINE_VIDEO_ENCODE),
	GRTRACE_PREFIX("uvd_enc", GRTRACE_ENGINE_VIDEO_ENCODE),
	GRTRACE_PREFIX("vce", GRTRACE_ENGINE_VIDEO_ENCODE),
	GRTRACE_PREFIX("vecs", GRTRACE_ENGINE_VIDEO_ENCODE),
	GRTRACE_PREFIX("enc", GRTRACE_ENGINE_VIDEO_ENCODE),
	GRTRACE_PREFIX("vcn", GRTRACE_ENGINE_VIDEO_DECODE),
	GRTRACE_PREFIX("uvd", GRTRACE_ENGINE_VIDEO_DECODE),
	GRTRACE_PREFIX("jpeg", GRTRACE_ENGINE_VIDEO_DECODE),
	GRTRACE_PREFIX("vcs", GRTRACE_ENGINE_VIDEO_DECODE),
	GRTRACE_PREFIX("dec", GRTRACE_ENGINE_VIDEO_DECODE),
	GRTRACE_PREFIX("video", GRTRACE_ENGINE_VIDEO_DECODE),
};

/**
 * grtrace_engine_from_name - guess the engine class from a ring name
 * @name: ring or scheduler name, may be NULL
 *
 * For drivers that do not know the class of a ring, such as the generic
 * DRM scheduler.  A prefix whose first letter differs costs a compare.
 *
 * Returns: an enum grtrace_engine, %GRTRACE_ENGINE_OTHER if nothing matches.
 */
u16 grtrace_engine_from_name(const char *name)
{
	char c = name ? tolower(name[0]) : 0;
	int i;

	for (i = 0; c && i < ARRAY_SIZE(grtrace_engine_prefixes); i++)
		if (c == grtrace_engine_prefixes[i].prefix[0] &&
		    !strncasecmp(name, grtrace_engine_prefixes[i].prefix,
				 grtrace_engine_prefixes[i].len))
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
 * has no id.
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
	u32 id = grtrace_ring_id(ring);

	if (unlikely(!id))
		return false;
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

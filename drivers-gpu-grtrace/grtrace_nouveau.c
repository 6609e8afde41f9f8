// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - record nouveau's channel work from nouveau's own tracepoints.
 */

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/dma_fence.h>
#include <trace/events/nouveau.h>

/**
 * DOC: nouveau
 *
 * nouveau runs the jobs of its EXEC ioctl through the DRM GPU scheduler,
 * whose tracepoints give grtrace those jobs, but the jobs of its legacy
 * PUSHBUF ioctl and the kernel's own fenced work (buffer moves on the copy
 * engine channel, page flips, channel idling) go straight to a channel.
 * With CONFIG_GRTRACE_NOUVEAU, the grtrace_nouveau module records them
 * from nouveau's own tracepoints and from ``dma_fence_signaled``.  A ring
 * is a channel: the device and ``chan<runlist>.<channel id>``.  A job is
 * named by its nouveau fence, the channel's fence context and the fence's
 * seqno.
 *
 * ========================== ========================== ==================
 * event                      probe on                   notes
 * ========================== ========================== ==================
 * SUBMIT and COMMIT          ``nouveau_fence_emit``     a PUSHBUF job's
 *                                                       fence emitted, in
 *                                                       the submitting
 *                                                       task; the kernel's
 *                                                       fences have COMMIT
 *                                                       only
 * SUBMIT and COMPLETE        ``nouveau_fence_emit``     a PUSHBUF job's
 *                                                       fence that will
 *                                                       never signal (not
 *                                                       written, or its
 *                                                       channel killed)
 * END, then COMPLETE         ``dma_fence_signaled``     a fence recorded
 *                                                       at its emit
 *                                                       signalled: END,
 *                                                       then COMPLETE with
 *                                                       its error; a fence
 *                                                       with an error
 *                                                       (-ENODEV after a
 *                                                       kill) has no END
 * IRQ                        ``nouveau_fence_uevent``   a non-stall
 *                                                       interrupt
 *                                                       delivered to the
 *                                                       channel
 * ERROR(other)               ``nouveau_channel_killed`` the GPU killed the
 *                                                       channel, as after
 *                                                       a fault
 * ========================== ========================== ==================
 *
 * The hardware fences of EXEC jobs are not recorded: the scheduler's
 * events name those jobs by their finished fences.  Their channel's
 * interrupts and kill are, on the channel's ring, which the scheduler's
 * ring (``nouveau_sched``) does not name; so are the kernel's fences on
 * such a channel (its idling).
 *
 * What the events do not tell: the start of a job (the hardware reports
 * none); SUBMIT is stamped with COMMIT, the fence being emitted right after
 * the job's pushes; a channel allocated for an engine other than graphics
 * (every channel is graphics but the kernel's copy engine channel, copy);
 * interrupts delivered to no channel (one whose fences nobody waits on);
 * a kill by nouveau itself (an EXEC job's timeout).  A fence that nouveau
 * signals without an error when it tears a channel down that did not go
 * idle has an END the GPU did not reach.
 *
 * The rings are a table of channels by fence context, kept while the
 * probes are attached, and lasting as long: a channel id used again has
 * the same ring, whose fences start again from seqno 1 as nouveau's own
 * do, and on GPUs whose channel ids are global (Kepler to Turing) keeps
 * the name of its first runlist.  Past %GRTRACE_NV_RINGS channels the
 * events of a new one are dropped, those that name a ring counted
 * (``events_no_ring``).  A channel remembers its last %GRTRACE_NV_SLOTS
 * recorded fences: a fence that signals after that many more were
 * emitted on its channel has no END or COMPLETE.
 */

#define GRTRACE_NV_TABLE	256	/* slots, a power of two */
#define GRTRACE_NV_RINGS	192	/* channels at most: 3/4 of the slots */
#define GRTRACE_NV_SLOTS	128	/* recorded fences per channel, by seqno */

/*
 * A channel, by its fence context; immutable once @ready is set but for
 * @ring.engine, written by the channel's emits, and @seqno, written by
 * its emits and signals under the channel's fence lock.
 */
struct grtrace_nv_ring {
	struct grtrace_ring ring;
	int ready;
	u64 context;
	char dev[64];
	char name[24];
	u32 seqno[GRTRACE_NV_SLOTS];	/* recorded fences pending, 0 free */
};

struct grtrace_nv_tables {
	struct grtrace_nv_ring rings[GRTRACE_NV_TABLE];	/* by context */
	unsigned int nr_rings;	/* lock */
	raw_spinlock_t lock;
};

/*
 * The tables of the probes attached last: made before they are attached,
 * kept after they are detached for the ids their rings had, and freed
 * when they are attached again or the module goes.
 */
static struct grtrace_nv_tables *grtrace_nv_tables;

/* Never registered: its events are dropped and counted as events_no_ring. */
static struct grtrace_ring grtrace_nv_no_ring = {
	.dev = "nouveau", .name = "full",
};

/*
 * Where the search for fence context @context ends: its channel's entry,
 * or the free one where it would go.  Open addressing from the context's
 * hash, at most 3/4 full, so a miss ends at a free entry soon; entries are
 * never removed while the probes are attached.  Takes no lock: an entry is
 * published by the release of @ready.
 */
static struct grtrace_nv_ring *grtrace_nv_slot(struct grtrace_nv_tables *t,
					       u64 context)
{
	u32 h = hash_64(context, ilog2(GRTRACE_NV_TABLE));
	struct grtrace_nv_ring *r;
	unsigned int i;

	for (i = 0; ; i++) {
		r = &t->rings[(h + i) % GRTRACE_NV_TABLE];
		/* Pairs with the release below: the entry is whole. */
		if (!smp_load_acquire(&r->ready) || r->context == context)
			return r;
	}
}

/* The channel of fence context @context, or NULL. */
static struct grtrace_nv_ring *grtrace_nv_find(struct grtrace_nv_tables *t,
					       u64 context)
{
	struct grtrace_nv_ring *r = grtrace_nv_slot(t, context);

	/* A free entry may have been published since, for another context. */
	return smp_load_acquire(&r->ready) && r->context == context ? r : NULL;
}

/*
 * The channel of fence context @context, made when it first reports with
 * its device, ids and class.  A miss takes the table's lock, a leaf lock.
 */
static struct grtrace_nv_ring *grtrace_nv_ring_of(struct grtrace_nv_tables *t,
						  u64 context, struct device *dev,
						  int runlist, int chid,
						  u16 engine)
{
	struct grtrace_nv_ring *r;
	unsigned long flags;

	r = grtrace_nv_find(t, context);
	if (r)
		return r;

	raw_spin_lock_irqsave(&t->lock, flags);
	r = grtrace_nv_slot(t, context);
	if (r->ready)		/* made meanwhile */
		goto out;
	if (t->nr_rings == GRTRACE_NV_RINGS) {
		r = NULL;
		goto out;
	}
	t->nr_rings++;
	r->context = context;
	strscpy(r->dev, dev_name(dev));
	snprintf(r->name, sizeof(r->name), "chan%d.%d", runlist, chid);
	r->ring.dev = r->dev;
	r->ring.name = r->name;
	r->ring.engine = engine;
	grtrace_ring_register(&r->ring);
	/* Pairs with the lockless lookup's acquire: publish it whole. */
	smp_store_release(&r->ready, 1);
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (!r)
		pr_warn_once("more than %u nouveau channels, their events are dropped\n",
			     GRTRACE_NV_RINGS);
	return r;
}

static struct grtrace_job grtrace_nv_job(struct grtrace_nv_ring *r,
					 const struct dma_fence *fence)
{
	return (struct grtrace_job) {
		.ring = r ? &r->ring : &grtrace_nv_no_ring,
		.ctx_id = fence->context,
		.fence_context = fence->context,
		.fence_seqno = fence->seqno,
	};
}

/*
 * By the task that emits @fence; an emitted fence under its channel's
 * fence lock, before it can signal.
 */
static void grtrace_nv_fence_emit(void *data, const struct dma_fence *fence,
				  struct device *dev, int runlist, int chid,
				  enum nouveau_fence_job job, int error)
{
	u16 engine = job == NOUVEAU_FENCE_COPY ? GRTRACE_ENGINE_COPY :
						 GRTRACE_ENGINE_GRAPHICS;
	struct grtrace_nv_ring *r;
	struct grtrace_job gj;
	u32 *slot;

	if (!grtrace_enabled())
		return;
	r = grtrace_nv_ring_of(grtrace_nv_tables, fence->context, dev, runlist,
			       chid, engine);
	slot = r ? &r->seqno[fence->seqno % GRTRACE_NV_SLOTS] : NULL;
	if (job == NOUVEAU_FENCE_SCHED) {
		/*
		 * Not recorded: a slot left by a fence that signalled while
		 * nothing consumed events, on a channel whose id was used
		 * again since, would take this fence's signal for its own.
		 */
		if (slot && !error && *slot >= fence->seqno)
			*slot = 0;
		return;
	}
	/* A channel id used again may be another engine's channel. */
	if (r && READ_ONCE(r->ring.engine) != engine)
		WRITE_ONCE(r->ring.engine, engine);
	gj = grtrace_nv_job(r, fence);
	if (job == NOUVEAU_FENCE_PUSHBUF)
		grtrace_submit(&gj);
	if (!error) {
		/* Its signal finds it here (seqno 0 is never a fence's). */
		if (slot)
			*slot = fence->seqno;
		grtrace_commit(&gj);
	} else if (job == NOUVEAU_FENCE_PUSHBUF) {
		gj.status = error;
		grtrace_complete(&gj);
	}
}

/*
 * Once per fence of any driver, when it signals, under its lock, in any
 * context: a fence recorded at its emit ends its job.  A nouveau fence's
 * lock is its channel's fence lock, which its emit held too.
 */
static void grtrace_nv_signaled(void *data, struct dma_fence *fence)
{
	struct grtrace_nv_ring *r;
	struct grtrace_job gj;
	u32 *slot;

	if (!grtrace_enabled())
		return;
	r = grtrace_nv_find(grtrace_nv_tables, fence->context);
	if (!r)
		return;
	slot = &r->seqno[fence->seqno % GRTRACE_NV_SLOTS];
	if (*slot != (u32)fence->seqno)
		return;
	*slot = 0;
	gj = grtrace_nv_job(r, fence);
	if (!fence->error)
		grtrace_end(&gj);
	gj.status = fence->error;
	grtrace_complete(&gj);
}

/* In the channel's non-stall interrupt handler. */
static void grtrace_nv_uevent(void *data, u64 context)
{
	struct grtrace_job gj = {};
	struct grtrace_nv_ring *r;

	if (!grtrace_enabled())
		return;
	/* A channel that emitted nothing since the probes came has no ring. */
	r = grtrace_nv_find(grtrace_nv_tables, context);
	if (!r)
		return;
	gj.ring = &r->ring;
	grtrace_irq(&gj);
}

/* In the channel's kill handler. */
static void grtrace_nv_killed(void *data, struct device *dev, int runlist,
			      int chid, u64 context)
{
	struct grtrace_job gj = { .status = GRTRACE_ERROR_OTHER };
	struct grtrace_nv_ring *r;

	if (!grtrace_enabled() || !context)
		return;
	r = grtrace_nv_ring_of(grtrace_nv_tables, context, dev, runlist, chid,
			       GRTRACE_ENGINE_GRAPHICS);
	gj.ring = r ? &r->ring : &grtrace_nv_no_ring;
	gj.ctx_id = context;
	grtrace_error(&gj);
}

/* Forget the rings of tables no probe uses any more, and free them. */
static void grtrace_nv_free(struct grtrace_nv_tables *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < GRTRACE_NV_TABLE; i++)
		if (t->rings[i].ready)
			grtrace_ring_unregister(&t->rings[i].ring);
	kvfree(t);
}

static int grtrace_nv_get(void)
{
	struct grtrace_nv_tables *t;
	int ret;

	grtrace_nv_free(grtrace_nv_tables);
	WRITE_ONCE(grtrace_nv_tables, NULL);
	t = kvzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	raw_spin_lock_init(&t->lock);
	WRITE_ONCE(grtrace_nv_tables, t);

	ret = register_trace_nouveau_fence_emit(grtrace_nv_fence_emit, NULL);
	if (ret)
		goto err;
	ret = register_trace_dma_fence_signaled(grtrace_nv_signaled, NULL);
	if (ret)
		goto err_emit;
	ret = register_trace_nouveau_fence_uevent(grtrace_nv_uevent, NULL);
	if (ret)
		goto err_signaled;
	ret = register_trace_nouveau_channel_killed(grtrace_nv_killed, NULL);
	if (ret)
		goto err_uevent;
	return 0;

err_uevent:
	unregister_trace_nouveau_fence_uevent(grtrace_nv_uevent, NULL);
err_signaled:
	unregister_trace_dma_fence_signaled(grtrace_nv_signaled, NULL);
err_emit:
	unregister_trace_nouveau_fence_emit(grtrace_nv_fence_emit, NULL);
err:
	tracepoint_synchronize_unregister();
	WRITE_ONCE(grtrace_nv_tables, NULL);
	grtrace_nv_free(t);
	return ret;
}

static void grtrace_nv_put(void)
{
	unregister_trace_nouveau_channel_killed(grtrace_nv_killed, NULL);
	unregister_trace_nouveau_fence_uevent(grtrace_nv_uevent, NULL);
	unregister_trace_dma_fence_signaled(grtrace_nv_signaled, NULL);
	unregister_trace_nouveau_fence_emit(grtrace_nv_fence_emit, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

static struct grtrace_source grtrace_nv_source = {
	.get = grtrace_nv_get,
	.put = grtrace_nv_put,
};

static int __init grtrace_nv_init(void)
{
	grtrace_source_add(&grtrace_nv_source);
	return 0;
}

static void __exit grtrace_nv_exit(void)
{
	grtrace_source_remove(&grtrace_nv_source);
	grtrace_nv_free(grtrace_nv_tables);
}

module_init(grtrace_nv_init);
module_exit(grtrace_nv_exit);

MODULE_DESCRIPTION("grtrace: nouveau's channel work from nouveau's tracepoints");
MODULE_LICENSE("GPL");

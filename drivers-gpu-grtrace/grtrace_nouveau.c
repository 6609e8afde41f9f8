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
 * engine channel, channel idling) go straight to a channel.  With
 * CONFIG_GRTRACE_NOUVEAU, the grtrace_nouveau module records them from
 * nouveau's own tracepoints and from ``dma_fence_signaled``.  A ring is a
 * channel: the device and ``chan<runlist>.<channel id>``.  A job is named
 * by its nouveau fence, the channel's fence context and the fence's seqno.
 *
 * ===================== ================= ===============================
 * event                 probe on          notes
 * ===================== ================= ===============================
 * SUBMIT, then COMMIT   nouveau_fence_    a PUSHBUF job's fence written,
 *                       emit              in the submitting task; the
 *                                         kernel's fences have COMMIT
 *                                         only
 * SUBMIT, then          nouveau_fence_    a PUSHBUF job's fence not
 * COMPLETE              emit              written (an error, or the
 *                                         channel killed): it never
 *                                         signals
 * END, then COMPLETE    dma_fence_        a fence of such a channel
 *                       signaled          signalled: the channel passed
 *                                         it (END), and COMPLETE with
 *                                         the fence's error; a fence
 *                                         with an error (-ENODEV after a
 *                                         kill) has no END
 * IRQ                   nouveau_fence_    the channel's non-stall
 *                       uevent            interrupt, on every channel
 * ERROR(other)          nouveau_channel_  the channel was killed, as
 *                       killed            after a fault, on every channel
 * ===================== ================= ===============================
 *
 * The fences of a channel whose jobs go through the scheduler are not
 * recorded: the scheduler's events name those jobs by their finished
 * fences.  Their channel's interrupts and kill are, on the channel's ring,
 * which the scheduler's ring (``nouveau_sched``) does not name.
 *
 * The hardware reports no start of a job.  The kernel's copy engine
 * channel is of class copy and every other channel graphics: a client's
 * channel allocated for another engine is not told apart.  A channel whose
 * id is used again has the same ring, and its fences start again from
 * seqno 1, as nouveau's own fences do.  The rings are a table of
 * %GRTRACE_NV_RINGS channels per session; the events of channels beyond
 * are dropped and counted (``events_no_ring``).
 */

#define GRTRACE_NV_RINGS	256	/* a power of two */

/*
 * A channel, by its fence context; immutable once @ready is set but for
 * @ring.engine and @recorded, written by each emit on the channel.
 */
struct grtrace_nv_ring {
	struct grtrace_ring ring;
	int ready;
	bool recorded;		/* its fences are recorded here */
	u64 context;
	char dev[64];
	char name[24];
};

struct grtrace_nv_tables {
	struct grtrace_nv_ring rings[GRTRACE_NV_RINGS];	/* by context */
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
 * The channel of fence context @context, or NULL.  Open addressing from the
 * context's hash; entries are never removed while the probes are attached.
 * Lookups take no lock: an entry is published by the release of @ready.
 */
static struct grtrace_nv_ring *grtrace_nv_find(struct grtrace_nv_tables *t,
					       u64 context)
{
	u32 h = hash_64(context, ilog2(GRTRACE_NV_RINGS));
	struct grtrace_nv_ring *r;
	unsigned int i;

	for (i = 0; i < GRTRACE_NV_RINGS; i++) {
		r = &t->rings[(h + i) % GRTRACE_NV_RINGS];
		/* Pairs with the release below: the entry is whole. */
		if (!smp_load_acquire(&r->ready))
			return NULL;
		if (r->context == context)
			return r;
	}
	return NULL;
}

/*
 * The channel of fence context @context, made when it first reports with
 * its device and ids.  A miss takes the table's lock, a leaf lock.
 */
static struct grtrace_nv_ring *grtrace_nv_ring_of(struct grtrace_nv_tables *t,
						  u64 context, struct device *dev,
						  int runlist, int chid)
{
	u32 h = hash_64(context, ilog2(GRTRACE_NV_RINGS));
	struct grtrace_nv_ring *r;
	unsigned long flags;
	unsigned int i;

	r = grtrace_nv_find(t, context);
	if (r)
		return r;

	raw_spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < GRTRACE_NV_RINGS; i++) {
		r = &t->rings[(h + i) % GRTRACE_NV_RINGS];
		if (!r->ready)
			break;
		if (r->context == context)
			goto out;
	}
	if (i == GRTRACE_NV_RINGS) {
		r = NULL;
		goto out;
	}
	r->context = context;
	strscpy(r->dev, dev_name(dev));
	snprintf(r->name, sizeof(r->name), "chan%d.%d", runlist, chid);
	r->ring.dev = r->dev;
	r->ring.name = r->name;
	r->ring.engine = GRTRACE_ENGINE_GRAPHICS;
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
 * By the task that emits @fence; a written fence under its channel's fence
 * lock, before it can signal.
 */
static void grtrace_nv_fence_emit(void *data, const struct dma_fence *fence,
				  struct device *dev, int runlist, int chid,
				  enum nouveau_chan_kind kind, int error)
{
	bool recorded = kind != NOUVEAU_CHAN_SCHED;
	struct grtrace_nv_ring *r;
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	r = grtrace_nv_ring_of(grtrace_nv_tables, fence->context, dev, runlist,
			       chid);
	if (r) {
		/* A channel id used again may be another kind's channel. */
		WRITE_ONCE(r->recorded, recorded);
		WRITE_ONCE(r->ring.engine, kind == NOUVEAU_CHAN_COPY ?
			   GRTRACE_ENGINE_COPY : GRTRACE_ENGINE_GRAPHICS);
	}
	if (!recorded)
		return;
	gj = grtrace_nv_job(r, fence);
	if (kind == NOUVEAU_CHAN_PUSHBUF)
		grtrace_submit(&gj);
	if (!error) {
		grtrace_commit(&gj);
	} else if (kind == NOUVEAU_CHAN_PUSHBUF) {
		gj.status = error;
		grtrace_complete(&gj);
	}
}

/*
 * Once per fence of any driver, when it signals, under its lock, in any
 * context: a fence of a recorded channel ends its job.
 */
static void grtrace_nv_signaled(void *data, struct dma_fence *fence)
{
	struct grtrace_nv_ring *r;
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	r = grtrace_nv_find(grtrace_nv_tables, fence->context);
	if (!r || !READ_ONCE(r->recorded))
		return;
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
	r = grtrace_nv_ring_of(grtrace_nv_tables, context, dev, runlist, chid);
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
	for (i = 0; i < GRTRACE_NV_RINGS; i++)
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

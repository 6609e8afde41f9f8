// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - record the jobs of the DRM GPU scheduler from its own
 * gpu_scheduler tracepoints.
 */

#include <drm/gpu_scheduler.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/export.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/dma_fence.h>

#include "../drm/scheduler/gpu_scheduler_trace.h"
#include "grtrace_events.h"
#include "grtrace_sched.h"

/**
 * DOC: DRM GPU scheduler
 *
 * With CONFIG_GRTRACE_DRM_SCHED, grtrace records the jobs of every driver
 * built on the DRM GPU scheduler from the scheduler's own stable
 * ``gpu_scheduler`` events, as blktrace records the block layer: it attaches
 * probes to those tracepoints while something consumes grtrace events (a
 * relay session, or ftrace, perf or BPF on a ``grtrace`` event) and detaches
 * them after.  The scheduler has no grtrace code and keeps no grtrace state.
 *
 * A ring is a scheduler's device and name, as the ``gpu_scheduler`` events
 * name it; schedulers of the same device and name are one ring.  A job is
 * identified as those events identify it, by its finished fence
 * context:seqno; its context is the entity's scheduled fence context.
 *
 * ================ ============================== ==========================
 * event            probe on                       notes
 * ================ ============================== ==========================
 * SUBMIT           drm_sched_job_queue            in the submitting task;
 *                                                 depth counts the job
 * COMMIT           drm_sched_job_run              before the driver's
 *                                                 run_job()
 * END              drm_sched_job_done             only if a hardware fence
 *                                                 signalled
 * COMPLETE         dma_fence_signaled             of a finished fence, every
 *                                                 path (killed jobs too),
 *                                                 with its error
 * SYNC_WAIT_ENTER  drm_sched_job_unschedulable    the fence it names
 * SYNC_WAIT_EXIT   dma_fence_signaled             of that fence, once per
 *                                                 ENTER
 * ERROR(timeout),  drm_sched_job_timedout         as below
 * ERROR(reset)
 * ================ ============================== ==========================
 *
 * A timeout is reported as the driver decided it: nothing for a job that
 * was done when its timeout was handled, nor for one the driver found
 * running (%DRM_GPU_SCHED_STAT_NO_HANG, its fences without error);
 * ERROR(timeout) alone for one it failed itself and handed back
 * (%DRM_GPU_SCHED_STAT_NO_HANG with an error on its hardware fence, as xe
 * does, or on its finished fence, as amdgpu does when it leaves the
 * recovery to another path) and for a device that is gone
 * (%DRM_GPU_SCHED_STAT_ENODEV); ERROR(timeout) then ERROR(reset) for a
 * hang the driver reset.
 *
 * A dependency wait ends when its fence signals: the probe on
 * dma_fence_signaled looks the fence up in a table of the open waits.  The
 * wait of a killed entity's job ends there too, with status 0, before the
 * job's COMPLETE with -ESRCH.
 *
 * The scheduler cannot see when the hardware starts a job, switches
 * contexts or raises interrupts; a driver reports those on a ring of its
 * own.
 *
 * The rings are kept in a table of copies of their names, made when a ring
 * first reports and freed when the probes are attached again: no pointer
 * of the scheduler is kept, and a scheduler may be destroyed at any time.  The
 * table holds %GRTRACE_SCHED_RINGS rings; the events of more are dropped and
 * counted in ``events_no_ring``.  The open waits table holds
 * %GRTRACE_SCHED_WAITS waits; a wait that does not fit is reported without
 * its end and counted in ``sched_waits_untracked``.
 */

#define GRTRACE_SCHED_RINGS	1024
#define GRTRACE_SCHED_WAITS	1024
#define GRTRACE_SCHED_WAIT_BITS	8

/* A scheduler ring, its names copied; immutable once @ready is set. */
struct grtrace_sched_ring {
	struct grtrace_ring ring;
	u32 hash;
	int ready;
	char dev[64];
	char name[64];
};

/* A job waiting for a fence, until that fence signals. */
struct grtrace_sched_wait {
	struct hlist_node node;
	struct grtrace_job job;
};

struct grtrace_sched_tables {
	struct grtrace_sched_ring rings[GRTRACE_SCHED_RINGS];
	unsigned int nr_rings;			/* lock */
	struct hlist_head waits[1 << GRTRACE_SCHED_WAIT_BITS];	/* lock */
	struct hlist_head free_waits;		/* lock */
	struct grtrace_sched_wait wait_pool[GRTRACE_SCHED_WAITS];
	raw_spinlock_t lock;
};

static DEFINE_MUTEX(grtrace_sched_lock);
static unsigned int grtrace_sched_users;	/* grtrace_sched_lock */
/*
 * The tables of the probes attached last: made before they are attached,
 * kept after they are detached, for the ids the rings had, and freed when
 * they are attached again or the module goes.
 */
static struct grtrace_sched_tables *grtrace_sched_tables;
static atomic_t grtrace_sched_nr_waits = ATOMIC_INIT(0);
static atomic64_t grtrace_sched_untracked = ATOMIC64_INIT(0);

/* Never registered: its events are dropped and counted as events_no_ring. */
static struct grtrace_ring grtrace_sched_no_ring = {
	.dev = "drm_sched", .name = "full",
};

static u32 grtrace_sched_hash(const char *dev, const char *name)
{
	return jhash(name, strlen(name), jhash(dev, strlen(dev), 0));
}

static bool grtrace_sched_ring_is(const struct grtrace_sched_ring *r, u32 hash,
				  const char *dev, const char *name)
{
	return r->hash == hash &&
	       !strncmp(r->dev, dev, sizeof(r->dev) - 1) &&
	       !strncmp(r->name, name, sizeof(r->name) - 1);
}

/*
 * The ring of @sched, made when it first reports.  Lookups take no lock:
 * an entry is published by the release of @ready and never changes after.
 * A miss takes the table lock, a leaf lock, as the probes run in any
 * context, hard IRQ and under fence locks included.
 */
static const struct grtrace_ring *
grtrace_sched_ring_of(struct grtrace_sched_tables *t,
		      const struct drm_gpu_scheduler *sched)
{
	const char *dev = sched->dev ? dev_name(sched->dev) : "drm_sched";
	const char *name = sched->name ? sched->name : "unnamed";
	u32 hash = grtrace_sched_hash(dev, name);
	struct grtrace_sched_ring *r;
	unsigned long flags;
	unsigned int i, slot;

	for (i = 0; i < GRTRACE_SCHED_RINGS; i++) {
		r = &t->rings[(hash + i) % GRTRACE_SCHED_RINGS];
		/* Pairs with the release below: the entry is whole. */
		if (!smp_load_acquire(&r->ready))
			break;
		if (grtrace_sched_ring_is(r, hash, dev, name))
			return &r->ring;
	}

	raw_spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < GRTRACE_SCHED_RINGS; i++) {
		slot = (hash + i) % GRTRACE_SCHED_RINGS;
		r = &t->rings[slot];
		if (!r->ready)
			break;
		if (grtrace_sched_ring_is(r, hash, dev, name))
			goto out;
	}
	/* Half full at most, so that a miss ends soon. */
	if (t->nr_rings >= GRTRACE_SCHED_RINGS / 2) {
		r = NULL;
		goto out;
	}
	t->nr_rings++;
	r->hash = hash;
	strscpy(r->dev, dev);
	strscpy(r->name, name);
	r->ring.dev = r->dev;
	r->ring.name = r->name;
	r->ring.engine = GRTRACE_ENGINE_FROM_NAME;
	grtrace_ring_register(&r->ring);
	/* Pairs with the lockless lookup's acquire: publish it whole. */
	smp_store_release(&r->ready, 1);
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (!r) {
		pr_warn_once("more than %u DRM scheduler rings, their events are dropped\n",
			     GRTRACE_SCHED_RINGS / 2);
		return &grtrace_sched_no_ring;
	}
	return &r->ring;
}

/**
 * grtrace_sched_fill - a job as the scheduler's events name it
 * @gj: the job to fill
 * @s_fence: the job's scheduler fence
 *
 * Also for the probes of a driver's own tracepoints on a scheduler's job.
 * The caller keeps the tables: it holds the probes attached
 * (grtrace_sched_get()).
 */
void grtrace_sched_fill(struct grtrace_job *gj, struct drm_sched_fence *s_fence)
{
	*gj = (struct grtrace_job) {
		.ring = grtrace_sched_ring_of(grtrace_sched_tables,
					      s_fence->sched),
		.ctx_id = s_fence->scheduled.context,
		.fence_context = s_fence->finished.context,
		.fence_seqno = s_fence->finished.seqno,
		.client_id = s_fence->drm_client_id,
	};
}
EXPORT_SYMBOL_GPL(grtrace_sched_fill);

/* In the submitting task, before the job is pushed to @entity's queue. */
static void grtrace_sched_queue(void *data, struct drm_sched_job *sched_job,
				struct drm_sched_entity *entity)
{
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	grtrace_sched_fill(&gj, sched_job->s_fence);
	gj.depth = spsc_queue_count(&entity->job_queue) + 1;
	grtrace_submit(&gj);
}

static void grtrace_sched_run(void *data, struct drm_sched_job *sched_job,
			      struct drm_sched_entity *entity)
{
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	grtrace_sched_fill(&gj, sched_job->s_fence);
	grtrace_commit(&gj);
}

/*
 * END only if a hardware fence signalled: not for a job that run_job
 * failed or gave no fence, nor for one whose hardware fence a reset took
 * away (drm_sched_stop() cleared the parent).
 */
static void grtrace_sched_done(void *data, struct drm_sched_fence *s_fence)
{
	struct grtrace_job gj;

	if (!grtrace_enabled() || !READ_ONCE(s_fence->parent))
		return;
	grtrace_sched_fill(&gj, s_fence);
	grtrace_end(&gj);
}

static void grtrace_sched_timedout(void *data, struct drm_sched_fence *s_fence,
				   enum drm_gpu_sched_stat status, bool done)
{
	struct dma_fence *parent;
	struct grtrace_job gj;

	if (!grtrace_enabled() || done)
		return;
	if (status == DRM_GPU_SCHED_STAT_NO_HANG) {
		parent = READ_ONCE(s_fence->parent);
		if (!(parent && READ_ONCE(parent->error)) &&
		    !READ_ONCE(s_fence->finished.error))
			return;
	}
	grtrace_sched_fill(&gj, s_fence);
	gj.status = GRTRACE_ERROR_TIMEOUT;
	grtrace_error(&gj);
	if (status != DRM_GPU_SCHED_STAT_RESET)
		return;
	gj.status = GRTRACE_ERROR_RESET;
	grtrace_error(&gj);
}

static struct hlist_head *grtrace_sched_wait_head(struct grtrace_sched_tables *t,
						  u64 context, u64 seqno)
{
	return &t->waits[hash_64(context ^ (seqno << 20), GRTRACE_SCHED_WAIT_BITS)];
}

/*
 * End the open waits for @fence: each is taken off the table under its
 * lock, by the signal or by the enter that saw @fence signalled, so each
 * ends once.
 */
static void grtrace_sched_end_waits(struct grtrace_sched_tables *t,
				    struct dma_fence *fence)
{
	struct grtrace_sched_wait *w;
	struct hlist_node *tmp;
	unsigned long flags;
	HLIST_HEAD(ended);

	raw_spin_lock_irqsave(&t->lock, flags);
	hlist_for_each_entry_safe(w, tmp, grtrace_sched_wait_head(t, fence->context,
								  fence->seqno), node) {
		if (w->job.aux_context != fence->context ||
		    w->job.aux_seqno != fence->seqno)
			continue;
		hlist_del(&w->node);
		hlist_add_head(&w->node, &ended);
		atomic_dec(&grtrace_sched_nr_waits);
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (hlist_empty(&ended))
		return;

	hlist_for_each_entry(w, &ended, node)
		grtrace_sync_wait_exit(&w->job);

	raw_spin_lock_irqsave(&t->lock, flags);
	hlist_for_each_entry_safe(w, tmp, &ended, node) {
		hlist_del(&w->node);
		hlist_add_head(&w->node, &t->free_waits);
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * In the scheduler's worker, for the job at the head of its entity, before
 * the callback on @fence is armed.  The wait goes into the table before
 * @fence is tested again: a signal that came first, and found no wait,
 * set the flag this test reads.
 */
static void grtrace_sched_unschedulable(void *data,
					struct drm_sched_job *sched_job,
					struct dma_fence *fence)
{
	struct grtrace_sched_tables *t = grtrace_sched_tables;
	struct grtrace_sched_wait *w = NULL;
	unsigned long flags;
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	grtrace_sched_fill(&gj, sched_job->s_fence);
	gj.aux_context = fence->context;
	gj.aux_seqno = fence->seqno;
	grtrace_sync_wait_enter(&gj);

	raw_spin_lock_irqsave(&t->lock, flags);
	if (!hlist_empty(&t->free_waits)) {
		w = hlist_entry(t->free_waits.first, struct grtrace_sched_wait,
				node);
		hlist_del(&w->node);
		w->job = gj;
		hlist_add_head(&w->node,
			       grtrace_sched_wait_head(t, fence->context,
						       fence->seqno));
		atomic_inc(&grtrace_sched_nr_waits);
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (!w) {
		atomic64_inc(&grtrace_sched_untracked);
		return;
	}
	/*
	 * Pairs with the ordered test_and_set_bit() of the signal, before
	 * its probe reads the count of open waits: either the signal sees
	 * this wait, or this test sees the signal.
	 */
	smp_mb();
	if (dma_fence_test_signaled_flag(fence))
		grtrace_sched_end_waits(t, fence);
}

/*
 * Once per fence, when it signals, under its lock, in any context: before
 * its callbacks run, so a finished fence's COMPLETE comes before what its
 * waiters do next.
 */
static void grtrace_sched_signaled(void *data, struct dma_fence *fence)
{
	struct drm_sched_fence *s_fence;
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	s_fence = to_drm_sched_fence(fence);
	if (s_fence && fence == &s_fence->finished) {
		grtrace_sched_fill(&gj, s_fence);
		gj.status = fence->error;
		grtrace_complete(&gj);
	}
	if (atomic_read(&grtrace_sched_nr_waits))
		grtrace_sched_end_waits(grtrace_sched_tables, fence);
}

/* Forget the rings of tables no probe uses any more, and free them. */
static void grtrace_sched_free(struct grtrace_sched_tables *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < GRTRACE_SCHED_RINGS; i++)
		if (t->rings[i].ready)
			grtrace_ring_unregister(&t->rings[i].ring);
	kvfree(t);
}

static int grtrace_sched_attach(void)
{
	struct grtrace_sched_tables *t;
	unsigned int i;
	int ret;

	grtrace_sched_free(grtrace_sched_tables);
	WRITE_ONCE(grtrace_sched_tables, NULL);
	atomic_set(&grtrace_sched_nr_waits, 0);
	t = kvzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	raw_spin_lock_init(&t->lock);
	for (i = 0; i < GRTRACE_SCHED_WAITS; i++)
		hlist_add_head(&t->wait_pool[i].node, &t->free_waits);
	WRITE_ONCE(grtrace_sched_tables, t);

	ret = register_trace_drm_sched_job_queue(grtrace_sched_queue, NULL);
	if (ret)
		goto err;
	ret = register_trace_drm_sched_job_run(grtrace_sched_run, NULL);
	if (ret)
		goto err_queue;
	ret = register_trace_drm_sched_job_done(grtrace_sched_done, NULL);
	if (ret)
		goto err_run;
	ret = register_trace_drm_sched_job_timedout(grtrace_sched_timedout, NULL);
	if (ret)
		goto err_done;
	ret = register_trace_drm_sched_job_unschedulable(grtrace_sched_unschedulable,
							 NULL);
	if (ret)
		goto err_timedout;
	/*
	 * Below the default priority, after the drivers' own probes on it:
	 * a dependency's COMPLETE, which grtrace's i915 and nouveau modules
	 * report there, comes before the end of the waits for it.
	 */
	ret = register_trace_prio_dma_fence_signaled(grtrace_sched_signaled, NULL,
						     TRACEPOINT_DEFAULT_PRIO - 1);
	if (ret)
		goto err_unschedulable;
	return 0;

err_unschedulable:
	unregister_trace_drm_sched_job_unschedulable(grtrace_sched_unschedulable,
						     NULL);
err_timedout:
	unregister_trace_drm_sched_job_timedout(grtrace_sched_timedout, NULL);
err_done:
	unregister_trace_drm_sched_job_done(grtrace_sched_done, NULL);
err_run:
	unregister_trace_drm_sched_job_run(grtrace_sched_run, NULL);
err_queue:
	unregister_trace_drm_sched_job_queue(grtrace_sched_queue, NULL);
err:
	tracepoint_synchronize_unregister();
	WRITE_ONCE(grtrace_sched_tables, NULL);
	grtrace_sched_free(t);
	return ret;
}

static void grtrace_sched_detach(void)
{
	unregister_trace_dma_fence_signaled(grtrace_sched_signaled, NULL);
	unregister_trace_drm_sched_job_unschedulable(grtrace_sched_unschedulable,
						     NULL);
	unregister_trace_drm_sched_job_timedout(grtrace_sched_timedout, NULL);
	unregister_trace_drm_sched_job_done(grtrace_sched_done, NULL);
	unregister_trace_drm_sched_job_run(grtrace_sched_run, NULL);
	unregister_trace_drm_sched_job_queue(grtrace_sched_queue, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

/**
 * grtrace_sched_get - attach the probes on the scheduler's tracepoints
 *
 * Context: process context; may sleep.
 * Returns: 0, or a negative errno if they could not be attached.
 */
int grtrace_sched_get(void)
{
	int ret = 0;

	guard(mutex)(&grtrace_sched_lock);
	if (!grtrace_sched_users)
		ret = grtrace_sched_attach();
	if (!ret)
		grtrace_sched_users++;
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_sched_get);

/**
 * grtrace_sched_put - detach them after the last user
 *
 * Context: process context; may sleep.  Waits until no probe runs.
 */
void grtrace_sched_put(void)
{
	guard(mutex)(&grtrace_sched_lock);
	if (!WARN_ON(!grtrace_sched_users) && !--grtrace_sched_users)
		grtrace_sched_detach();
}
EXPORT_SYMBOL_GPL(grtrace_sched_put);

/* Attached while grtrace events have consumers (DOC: Sources). */
static struct grtrace_source grtrace_sched_source = {
	.get = grtrace_sched_get,
	.put = grtrace_sched_put,
};

/**
 * grtrace_sched_ring - the ring of a scheduler
 * @sched: the scheduler
 *
 * For the probes of a driver's own tracepoints, which report on the
 * scheduler's ring what the scheduler cannot see, and for tests.  Takes
 * no sleeping lock: it runs in any context, hard IRQ and the fence
 * signalling path included.  The caller keeps the tables: it holds the
 * probes attached (grtrace_sched_get()), or nothing attaches them again.
 *
 * Returns: its ring in the tables of the probes attached last, made if it
 * has none, or NULL if they never were.
 */
const struct grtrace_ring *
grtrace_sched_ring(const struct drm_gpu_scheduler *sched)
{
	struct grtrace_sched_tables *t = READ_ONCE(grtrace_sched_tables);

	return t ? grtrace_sched_ring_of(t, sched) : NULL;
}
EXPORT_SYMBOL_GPL(grtrace_sched_ring);

/**
 * grtrace_sched_waits_untracked - waits reported without their end
 *
 * Returns: the dependency waits whose end was not reported since the
 * module was loaded, for want of room in the table of open waits.
 */
u64 grtrace_sched_waits_untracked(void)
{
	return atomic64_read(&grtrace_sched_untracked);
}

/**
 * grtrace_sched_init - follow the consumers of the grtrace tracepoints
 *
 * Context: module init.
 */
void grtrace_sched_init(void)
{
	grtrace_source_add(&grtrace_sched_source);
}

/**
 * grtrace_sched_exit - detach the probes for good
 *
 * Context: module exit, after the session stopped.
 */
void grtrace_sched_exit(void)
{
	grtrace_source_remove(&grtrace_sched_source);
	/* A user still holding the probes would leave them on freed tables. */
	if (WARN_ON(grtrace_sched_users)) {
		grtrace_sched_users = 1;
		grtrace_sched_put();
	}
	grtrace_sched_free(grtrace_sched_tables);
	WRITE_ONCE(grtrace_sched_tables, NULL);
}

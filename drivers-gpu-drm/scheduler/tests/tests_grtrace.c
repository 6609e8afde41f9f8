// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what grtrace records of the DRM GPU scheduler's jobs from
 * the scheduler's tracepoints.
 *
 * The jobs run on the mock scheduler; probes on the grtrace tracepoints
 * record what grtrace reports about them, and the tests check those
 * records against the job lifecycle documented in
 * drivers/gpu/grtrace/grtrace_sched.c.
 */

#include <kunit/device.h>
#include <linux/delay.h>
#include <linux/grtrace.h>
#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <trace/events/dma_fence.h>
#include <trace/events/grtrace.h>

#include "sched_tests.h"
#include "../gpu_scheduler_trace.h"

#define GT_TIMEOUT	(HZ / 5)	/* scheduler timeout of the timeout cases */
#define GT_WAIT		(5 * HZ)	/* the longest an expected event may take */
#define GT_MAX_EVENTS	1024		/* events kept by a capture, by default */
#define GT_JOB_US	100		/* duration of a job that completes */

/**
 * struct gt_event - one grtrace event as a probe saw it
 * @type: enum grtrace_event_type
 * @dev: the device name of its ring, copied: grtrace frees its copies of
 *	the scheduler rings when it attaches to the scheduler again
 * @name: the name of its ring, copied
 * @job: the payload
 */
struct gt_event {
	u16 type;
	char dev[64];
	char name[64];
	struct grtrace_job_payload job;
};

/**
 * struct gt_capture - the events seen while the probes were attached
 * @lock: serialises the probes, which run in any context, and the readers
 *	that look at the events while the probes are still attached
 * @n: number of events in @ev
 * @lost: number of events that found @ev full
 * @max: capacity of @ev
 * @ev: the events, in the order the probes ran
 */
struct gt_capture {
	spinlock_t lock;	/* protects n, lost and ev */
	unsigned int n;
	unsigned int lost;
	unsigned int max;
	struct gt_event *ev;
};

/**
 * struct gt_id - the identity of a job in grtrace events
 * @context: fence context of the job's finished fence
 * @seqno: seqno of the job's finished fence
 * @client_id: the DRM client the job was initialized with
 *
 * The scheduler's context, its entity's fence context, is one less than
 * @context.
 */
struct gt_id {
	u64 context;
	u64 seqno;
	u64 client_id;
};

static const char * const gt_type_name[GRTRACE_EV_NR] = {
	[GRTRACE_EV_SUBMIT] = "SUBMIT",
	[GRTRACE_EV_COMMIT] = "COMMIT",
	[GRTRACE_EV_START] = "START",
	[GRTRACE_EV_END] = "END",
	[GRTRACE_EV_COMPLETE] = "COMPLETE",
	[GRTRACE_EV_CTX_SWITCH] = "CTX_SWITCH",
	[GRTRACE_EV_IRQ] = "IRQ",
	[GRTRACE_EV_SYNC_WAIT_ENTER] = "SYNC_WAIT_ENTER",
	[GRTRACE_EV_SYNC_WAIT_EXIT] = "SYNC_WAIT_EXIT",
	[GRTRACE_EV_ERROR] = "ERROR",
};

static void gt_store(struct gt_capture *c, u16 type,
		     const struct grtrace_ring *ring,
		     const struct grtrace_job_payload *job)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (c->n < c->max) {
		c->ev[c->n].type = type;
		strscpy(c->ev[c->n].dev, ring->dev);
		strscpy(c->ev[c->n].name, ring->name);
		c->ev[c->n].job = *job;
		c->n++;
	} else {
		c->lost++;
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

static void gt_probe(void *data, const struct grtrace_event *ev)
{
	gt_store(data, ev->type, ev->ring, &ev->job);
}

#define GT_TP(name) { register_trace_grtrace_##name, unregister_trace_grtrace_##name }

/* Every job event; the scheduler must not report those it leaves to drivers. */
static const struct {
	int (*reg)(void (*probe)(void *data, const struct grtrace_event *ev),
		   void *data);
	int (*unreg)(void (*probe)(void *data, const struct grtrace_event *ev),
		     void *data);
} gt_tracepoints[] = {
	GT_TP(submit),
	GT_TP(commit),
	GT_TP(start),
	GT_TP(end),
	GT_TP(complete),
	GT_TP(ctx_switch),
	GT_TP(irq),
	GT_TP(sync_wait_enter),
	GT_TP(sync_wait_exit),
	GT_TP(error),
};

/*
 * Detach the probes; a probe that was never attached is skipped.  grtrace
 * then detaches from the scheduler's tracepoints, from a work item: wait
 * for it, so that the next capture does not take its probes for attached
 * while that work item is about to detach them.
 */
static void gt_capture_release(void *data)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gt_tracepoints); i++)
		gt_tracepoints[i].unreg(gt_probe, data);
	tracepoint_synchronize_unregister();
	for (i = 0; i < 250 && trace_dma_fence_signaled_enabled(); i++)
		msleep(20);
}

KUNIT_DEFINE_ACTION_WRAPPER(gt_vfree, vfree, const void *);

/**
 * gt_capture_start - attach probes to every grtrace event
 * @test: the test, which owns the capture
 * @max: the number of events to keep
 *
 * Attaching a probe to a grtrace event has grtrace attach its own probes to
 * the scheduler's tracepoints, from a work item: wait until they are.  The
 * probes are detached by gt_capture_stop(), or when the test ends.
 *
 * Returns: the capture
 */
static struct gt_capture *gt_capture_start(struct kunit *test, unsigned int max)
{
	struct gt_capture *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->ev = vcalloc(max, sizeof(*c->ev));
	KUNIT_ASSERT_NOT_NULL(test, c->ev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_vfree, c->ev), 0);
	c->max = max;
	spin_lock_init(&c->lock);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_capture_release, c), 0);
	for (i = 0; i < ARRAY_SIZE(gt_tracepoints); i++)
		KUNIT_ASSERT_EQ(test, gt_tracepoints[i].reg(gt_probe, c), 0);
	/*
	 * grtrace attaches to dma_fence_signaled last; the capture before
	 * waited until it had detached.
	 */
	for (i = 0; i < 250 && !(trace_drm_sched_job_queue_enabled() &&
				 trace_dma_fence_signaled_enabled()); i++)
		msleep(20);
	KUNIT_ASSERT_TRUE_MSG(test, trace_dma_fence_signaled_enabled(),
			      "grtrace did not attach to the scheduler's events");
	return c;
}

/* Detach the probes: from now on @c can be read without its lock. */
static void gt_capture_stop(struct kunit *test, struct gt_capture *c)
{
	kunit_release_action(test, gt_capture_release, c);
	KUNIT_EXPECT_EQ_MSG(test, c->lost, 0, "events lost: capture too small");
}

static bool gt_is(const struct gt_event *ev, u16 type, struct gt_id id)
{
	return ev->type == type && ev->job.fence_context == id.context &&
	       ev->job.fence_seqno == id.seqno;
}

/* Index of the @nth (from 0) event of @type for job @id, or -1. */
static int gt_find(const struct gt_capture *c, u16 type, struct gt_id id,
		   unsigned int nth)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (gt_is(&c->ev[i], type, id) && !nth--)
			return i;
	return -1;
}

static unsigned int gt_count(const struct gt_capture *c, u16 type, struct gt_id id)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->n; i++)
		n += gt_is(&c->ev[i], type, id);
	return n;
}

/*
 * Wait until @c has seen @nr events of @type for job @id.  A job's COMPLETE
 * is reported just after its finished fence signals: a test that waited
 * for the fence waits for the COMPLETE too before it stops the capture.
 */
static bool gt_wait_event(struct gt_capture *c, u16 type, struct gt_id id,
			  unsigned int nr)
{
	unsigned long end = jiffies + GT_WAIT;
	unsigned int n;

	for (;;) {
		spin_lock_irq(&c->lock);
		n = gt_count(c, type, id);
		spin_unlock_irq(&c->lock);
		if (n >= nr)
			return true;
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
}

/**
 * gt_submit - arm and push a mock job, as drm_mock_sched_job_submit()
 * @job: the job
 * @finished: if not NULL, set to a reference to the job's finished fence,
 *	for a job that may be freed before the test looks at it
 *
 * Returns: the job's identity in grtrace events
 */
static struct gt_id gt_submit(struct drm_mock_sched_job *job,
			      struct dma_fence **finished)
{
	struct dma_fence *f;
	struct gt_id id;

	drm_sched_job_arm(&job->base);
	f = &job->base.s_fence->finished;
	id.context = f->context;
	id.seqno = f->seqno;
	id.client_id = job->base.s_fence->drm_client_id;
	if (finished)
		*finished = dma_fence_get(f);
	drm_sched_entity_push_job(&job->base);
	return id;
}

/* A job of the scheduler's queue, with a duration or none (held). */
static struct drm_mock_sched_job *gt_job(struct kunit *test,
					 struct drm_mock_sched_entity *entity,
					 unsigned int duration_us)
{
	struct drm_mock_sched_job *job = drm_mock_sched_job_new(test, entity);

	drm_mock_sched_job_set_duration_us(job, duration_us);
	return job;
}

/* The job lifecycle events, in the order a job goes through them. */
static const u16 gt_lifecycle[] = {
	GRTRACE_EV_SUBMIT, GRTRACE_EV_COMMIT, GRTRACE_EV_START, GRTRACE_EV_END,
	GRTRACE_EV_COMPLETE, GRTRACE_EV_CTX_SWITCH, GRTRACE_EV_IRQ,
};

/* Whether @ev was reported on the ring of @sched: its device and name. */
static bool gt_on(const struct gt_event *ev, const struct drm_gpu_scheduler *sched)
{
	return !strcmp(ev->dev, dev_name(sched->dev)) && !strcmp(ev->name, sched->name);
}

/* The id of the ring of @sched in capture @c, 0 if it has none. */
static u32 gt_ring_id(const struct gt_capture *c, const struct drm_gpu_scheduler *sched)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (gt_on(&c->ev[i], sched))
			return c->ev[i].job.ring_id;
	return 0;
}

/**
 * gt_expect_job - check the lifecycle events of one job
 * @test: the test
 * @c: the capture, stopped
 * @sched: the job's scheduler
 * @ring_id: the id its grtrace ring had while the job ran
 * @id: the job
 * @once: the lifecycle events (BIT(type)) the job must have exactly once;
 *	it must have none of the others
 * @status: the status its COMPLETE must carry
 *
 * The events of @once must come in lifecycle order.  Every event of the job,
 * the dependency waits and errors included, must name the scheduler's ring
 * and the entity's context.
 *
 * Returns: true if all of that held
 */
static bool gt_expect_job(struct kunit *test, const struct gt_capture *c,
			  struct drm_gpu_scheduler *sched, u32 ring_id,
			  struct gt_id id, unsigned long once, int status)
{
	u16 engine = grtrace_engine_from_name(sched->name);
	int at, prev = -1;
	unsigned int i, n;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(gt_lifecycle); i++) {
		u16 type = gt_lifecycle[i];
		unsigned int want = once & BIT(type) ? 1 : 0;

		n = gt_count(c, type, id);
		ok &= n == want;
		KUNIT_EXPECT_EQ_MSG(test, n, want, "%s of job %llu:%llu",
				    gt_type_name[type], id.context, id.seqno);
		if (!want)
			continue;
		at = gt_find(c, type, id, 0);
		ok &= at > prev;
		KUNIT_EXPECT_GT_MSG(test, at, prev, "%s of job %llu:%llu out of order",
				    gt_type_name[type], id.context, id.seqno);
		prev = at;
	}

	at = gt_find(c, GRTRACE_EV_COMPLETE, id, 0);
	if (at >= 0) {
		ok &= c->ev[at].job.status == status;
		KUNIT_EXPECT_EQ_MSG(test, c->ev[at].job.status, status,
				    "COMPLETE of job %llu:%llu", id.context, id.seqno);
	}

	for (i = 0, n = 0; i < c->n; i++) {
		const struct gt_event *ev = &c->ev[i];

		if (ev->job.fence_context != id.context ||
		    ev->job.fence_seqno != id.seqno)
			continue;
		if (gt_on(ev, sched) && ev->job.ring_id == ring_id &&
		    ev->job.ctx_id == id.context - 1 && ev->job.engine == engine)
			continue;
		n++;
	}
	ok &= !n;
	KUNIT_EXPECT_EQ_MSG(test, n, 0,
			    "events of job %llu:%llu not on ring %u of its scheduler or context",
			    id.context, id.seqno, ring_id);
	return ok;
}

#define GT_RAN		(BIT(GRTRACE_EV_SUBMIT) | BIT(GRTRACE_EV_COMMIT) | \
			 BIT(GRTRACE_EV_END) | BIT(GRTRACE_EV_COMPLETE))
#define GT_NO_HW	(BIT(GRTRACE_EV_SUBMIT) | BIT(GRTRACE_EV_COMMIT) | \
			 BIT(GRTRACE_EV_COMPLETE))
#define GT_KILLED	(BIT(GRTRACE_EV_SUBMIT) | BIT(GRTRACE_EV_COMPLETE))

/**
 * gt_expect_wait - check the dependency wait of a job
 * @test: the test
 * @c: the capture, stopped
 * @id: the waiting job
 * @dep: the fence it must wait for, as drm_sched_job_unschedulable names it
 * @status: the status its SYNC_WAIT_EXIT must carry
 *
 * Exactly one SYNC_WAIT_ENTER and one SYNC_WAIT_EXIT, in that order, both
 * naming @dep and no task (a job waits, and the worker or the callback that
 * reports it is no party to it), and the waiting job committed only after
 * the wait ended.
 *
 * Returns: the index of the SYNC_WAIT_EXIT, or -1
 */
static int gt_expect_wait(struct kunit *test, const struct gt_capture *c,
			  struct gt_id id, struct gt_id dep, int status)
{
	int enter = gt_find(c, GRTRACE_EV_SYNC_WAIT_ENTER, id, 0);
	int exit = gt_find(c, GRTRACE_EV_SYNC_WAIT_EXIT, id, 0);
	int commit = gt_find(c, GRTRACE_EV_COMMIT, id, 0);

	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_ENTER, id), 1);
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_EXIT, id), 1);
	if (enter < 0 || exit < 0)
		return -1;
	KUNIT_EXPECT_LT(test, enter, exit);
	if (commit >= 0)
		KUNIT_EXPECT_LT(test, exit, commit);
	KUNIT_EXPECT_EQ(test, c->ev[enter].job.aux_context, dep.context);
	KUNIT_EXPECT_EQ(test, c->ev[enter].job.aux_seqno, dep.seqno);
	KUNIT_EXPECT_EQ(test, c->ev[exit].job.aux_context, dep.context);
	KUNIT_EXPECT_EQ(test, c->ev[exit].job.aux_seqno, dep.seqno);
	KUNIT_EXPECT_EQ(test, c->ev[enter].job.status, 0);
	KUNIT_EXPECT_EQ(test, c->ev[exit].job.status, status);
	KUNIT_EXPECT_EQ(test, c->ev[enter].job.pid, 0);
	KUNIT_EXPECT_EQ(test, c->ev[exit].job.pid, 0);
	KUNIT_EXPECT_EQ(test, c->ev[enter].job.tgid, 0);
	KUNIT_EXPECT_EQ(test, c->ev[exit].job.tgid, 0);
	KUNIT_EXPECT_STREQ(test, c->ev[enter].job.comm, "");
	KUNIT_EXPECT_STREQ(test, c->ev[exit].job.comm, "");
	return exit;
}

/* The fence a job of the same scheduler waits on: its scheduled fence. */
static struct gt_id gt_scheduled(struct gt_id id)
{
	return (struct gt_id){ .context = id.context - 1, .seqno = id.seqno };
}

/* Run one job on @sched, through an entity of its own. */
static void gt_run_one(struct kunit *test, struct drm_mock_scheduler *sched)
{
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = gt_job(test, entity, GT_JOB_US);
	gt_submit(job, NULL);
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(job, GT_WAIT));
	drm_mock_sched_entity_free(entity);
}

/*
 * A scheduler's ring is its device and name, as the gpu_scheduler events
 * name it: schedulers of one device and name are one ring, with one id for
 * as long as the events are consumed, one made after another gone
 * included; a scheduler of another device is another ring.
 */
static void drm_sched_grtrace_ring_test(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "drm-sched-grtrace-ring");
	struct drm_mock_scheduler *a, *a2, *b;
	struct gt_capture *c;
	unsigned int i, n;
	u32 ida, idb;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	a = drm_mock_sched_new_on(test, MAX_SCHEDULE_TIMEOUT, dev);
	b = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	KUNIT_ASSERT_STRNEQ(test, dev_name(a->base.dev), dev_name(b->base.dev));

	c = gt_capture_start(test, GT_MAX_EVENTS);
	gt_run_one(test, a);
	gt_run_one(test, b);
	drm_mock_sched_fini(a);
	a2 = drm_mock_sched_new_on(test, MAX_SCHEDULE_TIMEOUT, dev);
	gt_run_one(test, a2);
	gt_capture_stop(test, c);
	ida = gt_ring_id(c, &a->base);
	idb = gt_ring_id(c, &b->base);
	drm_mock_sched_fini(a2);
	drm_mock_sched_fini(b);

	KUNIT_EXPECT_GT(test, ida, 0);
	KUNIT_EXPECT_GT(test, idb, 0);
	KUNIT_EXPECT_NE(test, ida, idb);
	for (i = 0, n = 0; i < c->n; i++) {
		bool on_a = gt_on(&c->ev[i], &a->base);

		/* Another driver's, such as the guest's virtio-gpu. */
		if (!on_a && !gt_on(&c->ev[i], &b->base))
			continue;
		n++;
		KUNIT_EXPECT_EQ(test, c->ev[i].job.ring_id, on_a ? ida : idb);
		/* "drm-mock-scheduler" names no engine class. */
		KUNIT_EXPECT_EQ(test, c->ev[i].job.engine, GRTRACE_ENGINE_OTHER);
	}
	/* Three jobs, four events each. */
	KUNIT_EXPECT_EQ(test, n, 12);
}

#define GT_NR_LIFECYCLE	16

/*
 * Jobs of two entities of one scheduler, each depending on the one before:
 * each job is reported once per lifecycle event, in order, on the
 * scheduler's ring, submitted by this task.  Whether a job waits for the
 * one before depends on timing; if it does, the wait names that job's
 * scheduled fence, is entered and exited once, and ends before the job is
 * committed.
 */
static void drm_sched_grtrace_lifecycle_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_job *job[GT_NR_LIFECYCLE];
	struct drm_mock_sched_entity *entity[2];
	struct gt_id id[GT_NR_LIFECYCLE];
	struct dma_fence *prev = NULL;
	struct gt_capture *c;
	unsigned int i, waits = 0;
	u32 ring_id;
	int at;

	for (i = 0; i < ARRAY_SIZE(entity); i++)
		entity[i] = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL,
						      sched);
	for (i = 0; i < GT_NR_LIFECYCLE; i++)
		job[i] = gt_job(test, entity[i % 2], GT_JOB_US);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	for (i = 0; i < GT_NR_LIFECYCLE; i++) {
		if (prev)
			KUNIT_EXPECT_EQ(test, drm_sched_job_add_dependency(&job[i]->base, prev),
					0);
		id[i] = gt_submit(job[i], i + 1 < GT_NR_LIFECYCLE ? &prev : NULL);
	}
	for (i = 0; i < GT_NR_LIFECYCLE; i++)
		KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(job[i], GT_WAIT));
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);

	for (i = 0; i < ARRAY_SIZE(entity); i++)
		drm_mock_sched_entity_free(entity[i]);
	drm_mock_sched_fini(sched);

	for (i = 0; i < GT_NR_LIFECYCLE; i++) {
		if (!gt_expect_job(test, c, &sched->base, ring_id, id[i], GT_RAN, 0))
			break;
		KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id[i]), 0);
		at = gt_find(c, GRTRACE_EV_SUBMIT, id[i], 0);
		KUNIT_EXPECT_EQ(test, c->ev[at].job.pid, task_pid_nr(current));
		KUNIT_EXPECT_GE(test, c->ev[at].job.depth, 1);
		/* The mock scheduler's jobs have a client, as a DRM file's do. */
		KUNIT_EXPECT_NE(test, id[i].client_id, 0);
		KUNIT_EXPECT_EQ(test, c->ev[at].job.client_id, id[i].client_id);
		if (!i || !gt_count(c, GRTRACE_EV_SYNC_WAIT_ENTER, id[i])) {
			KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_ENTER, id[i]), 0);
			KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_EXIT, id[i]), 0);
			continue;
		}
		waits++;
		gt_expect_wait(test, c, id[i], gt_scheduled(id[i - 1]), 0);
	}
	kunit_info(test, "%u of %u jobs waited for the job before\n", waits,
		   GT_NR_LIFECYCLE - 1);
}

/*
 * Two waits that last until the test ends them: A waits for X of another
 * scheduler, which names X's finished fence, and B for A of its own
 * scheduler, which names A's scheduled fence.  Each wait is entered and
 * exited once, before the job is committed; A's wait ends after X's
 * COMPLETE, and B's only once A was handed to the hardware.
 */
static void drm_sched_grtrace_dependency_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *other = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *ea, *eb, *ex;
	struct drm_mock_sched_job *a, *b, *x;
	struct dma_fence *fx, *fa;
	struct gt_id ida, idb, idx;
	struct gt_capture *c;
	u32 ring_id, other_id;
	int exit_a, exit_b;

	ea = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	eb = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	ex = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, other);
	x = gt_job(test, ex, 0);
	a = gt_job(test, ea, GT_JOB_US);
	b = gt_job(test, eb, GT_JOB_US);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	idx = gt_submit(x, &fx);
	KUNIT_EXPECT_EQ(test, drm_sched_job_add_dependency(&a->base, dma_fence_get(fx)), 0);
	ida = gt_submit(a, &fa);
	KUNIT_EXPECT_EQ(test, drm_sched_job_add_dependency(&b->base, dma_fence_get(fa)), 0);
	idb = gt_submit(b, NULL);

	/* X never ends by itself: both jobs wait until the test ends X. */
	KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_SYNC_WAIT_ENTER, ida, 1));
	KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_SYNC_WAIT_ENTER, idb, 1));
	KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(other, 1), 1);
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(b, GT_WAIT));
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(a, GT_WAIT));
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);
	other_id = gt_ring_id(c, &other->base);

	drm_mock_sched_entity_free(ea);
	drm_mock_sched_entity_free(eb);
	drm_mock_sched_entity_free(ex);
	drm_mock_sched_fini(sched);
	drm_mock_sched_fini(other);
	dma_fence_put(fa);
	dma_fence_put(fx);

	gt_expect_job(test, c, &other->base, other_id, idx, GT_RAN, 0);
	gt_expect_job(test, c, &sched->base, ring_id, ida, GT_RAN, 0);
	gt_expect_job(test, c, &sched->base, ring_id, idb, GT_RAN, 0);
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_ENTER, idx), 0);

	exit_a = gt_expect_wait(test, c, ida, idx, 0);
	if (exit_a >= 0)
		KUNIT_EXPECT_LT(test, gt_find(c, GRTRACE_EV_COMPLETE, idx, 0), exit_a);
	exit_b = gt_expect_wait(test, c, idb, gt_scheduled(ida), 0);
	/* A's scheduled fence signals after A's COMMIT. */
	if (exit_b >= 0)
		KUNIT_EXPECT_LT(test, gt_find(c, GRTRACE_EV_COMMIT, ida, 0), exit_b);
}

/*
 * A job that hangs until its timeout, and the driver resets: ERROR(timeout)
 * then ERROR(reset), both naming the job, once the driver returned
 * DRM_GPU_SCHED_STAT_RESET, so after the job's COMPLETE with the timeout
 * error that the mock's handler gave it.  The mock's handler signals the
 * job's hardware fence (with the error) rather than taking it away with
 * drm_sched_stop(): the scheduler sees a hardware fence signal, so END is
 * reported, before the COMPLETE.
 */
static void drm_sched_grtrace_timeout_reset_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, GT_TIMEOUT);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;
	struct dma_fence *finished;
	struct gt_capture *c;
	int complete, to, reset;
	struct gt_id id;
	u32 ring_id;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = gt_job(test, entity, 0);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	id = gt_submit(job, &finished);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(finished, false, GT_TIMEOUT + GT_WAIT), 0);
	/*
	 * The errors are reported once the handler returned, after the
	 * COMPLETE that the handler caused.
	 */
	KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_ERROR, id, 2));
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);

	KUNIT_EXPECT_EQ(test, job->flags & DRM_MOCK_SCHED_JOB_TIMEDOUT,
			DRM_MOCK_SCHED_JOB_TIMEDOUT);
	KUNIT_EXPECT_EQ(test, finished->error, -ETIMEDOUT);
	dma_fence_put(finished);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	gt_expect_job(test, c, &sched->base, ring_id, id, GT_RAN, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id), 2);
	to = gt_find(c, GRTRACE_EV_ERROR, id, 0);
	reset = gt_find(c, GRTRACE_EV_ERROR, id, 1);
	complete = gt_find(c, GRTRACE_EV_COMPLETE, id, 0);
	KUNIT_ASSERT_GE(test, to, 0);
	KUNIT_ASSERT_GE(test, reset, 0);
	KUNIT_EXPECT_EQ(test, c->ev[to].job.status, GRTRACE_ERROR_TIMEOUT);
	KUNIT_EXPECT_EQ(test, c->ev[reset].job.status, GRTRACE_ERROR_RESET);
	KUNIT_EXPECT_LT(test, complete, to);
}

/*
 * A timeout the driver finds benign (DRM_GPU_SCHED_STAT_NO_HANG) is no
 * error: no ERROR, and the job ends and completes normally afterwards.
 */
static void drm_sched_grtrace_timeout_no_hang_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, GT_TIMEOUT);
	unsigned long end = jiffies + GT_TIMEOUT + GT_WAIT;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;
	struct gt_capture *c;
	struct gt_id id;
	u32 ring_id;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = gt_job(test, entity, 0);
	job->flags = DRM_MOCK_SCHED_JOB_DONT_RESET;

	c = gt_capture_start(test, GT_MAX_EVENTS);
	id = gt_submit(job, NULL);
	while (!(READ_ONCE(job->flags) & DRM_MOCK_SCHED_JOB_RESET_SKIPPED) &&
	       time_before(jiffies, end))
		msleep(20);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(job->flags) & DRM_MOCK_SCHED_JOB_RESET_SKIPPED);
	KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(sched, 1), 1);
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(job, GT_WAIT));
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);

	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	gt_expect_job(test, c, &sched->base, ring_id, id, GT_RAN, 0);
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id), 0);
}

/*
 * A timeout the driver handles without a reset and hands back
 * (DRM_GPU_SCHED_STAT_NO_HANG) with the job failed: on its hardware fence
 * (xe), or on its finished fence alone (amdgpu, when another recovery
 * takes over).  ERROR(timeout) alone, and COMPLETE with that error once
 * the job ends.
 */
static void drm_sched_grtrace_timeout_failed_test(struct kunit *test)
{
	/* No timeout of its own: the test fires it once the job failed. */
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job[2];
	struct gt_capture *c;
	struct gt_id id[2];
	u32 ring_id;
	int i, err;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	c = gt_capture_start(test, GT_MAX_EVENTS);
	for (i = 0; i < 2; i++) {
		job[i] = gt_job(test, entity, 0);
		job[i]->flags = DRM_MOCK_SCHED_JOB_DONT_RESET;
		id[i] = gt_submit(job[i], NULL);
		/* Run: its hardware fence is set up.  Failed before its timeout. */
		KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(job[i], GT_WAIT));
		dma_fence_set_error(i ? &job[i]->base.s_fence->finished : &job[i]->hw_fence,
				    -ETIME);
		drm_sched_fault(&sched->base);
		flush_delayed_work(&sched->base.work_tdr);
		KUNIT_EXPECT_TRUE(test, READ_ONCE(job[i]->flags) &
					DRM_MOCK_SCHED_JOB_RESET_SKIPPED);
		KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(sched, 1), 1);
		KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(job[i], GT_WAIT));
		/* Off the pending list: the next timeout is the next job's. */
		flush_work(&sched->base.work_free_job);
		/* The handler's ERROR follows its return. */
		KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_ERROR, id[i], 1));
	}
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	for (i = 0; i < 2; i++) {
		gt_expect_job(test, c, &sched->base, ring_id, id[i], GT_RAN, -ETIME);
		KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id[i]), 1);
		err = gt_find(c, GRTRACE_EV_ERROR, id[i], 0);
		if (err >= 0)
			KUNIT_EXPECT_EQ(test, c->ev[err].job.status, GRTRACE_ERROR_TIMEOUT);
	}
}

#define GT_NR_RESET	2

/*
 * A reset the way drivers do it outside the timeout handler, e.g. for the
 * other rings of a device: drm_sched_stop() takes the running jobs'
 * hardware fences away, the reset retires what the ring held, and
 * drm_sched_start() completes the jobs with its error.  No hardware fence
 * signalled for the scheduler: no END.  drm_sched_stop() and
 * drm_sched_start() report nothing themselves: no ERROR.
 */
static void drm_sched_grtrace_reset_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_job *job[GT_NR_RESET];
	struct dma_fence *finished[GT_NR_RESET];
	struct drm_mock_sched_entity *entity;
	struct gt_id id[GT_NR_RESET];
	struct gt_capture *c;
	unsigned int i;
	u32 ring_id;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	for (i = 0; i < GT_NR_RESET; i++)
		job[i] = gt_job(test, entity, 0);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	for (i = 0; i < GT_NR_RESET; i++)
		id[i] = gt_submit(job[i], &finished[i]);
	for (i = 0; i < GT_NR_RESET; i++)
		KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_scheduled(job[i], GT_WAIT));

	drm_sched_stop(&sched->base, NULL);
	/* Before drm_sched_start() frees the jobs the mock still tracks. */
	KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(sched, GT_NR_RESET), GT_NR_RESET);
	drm_sched_start(&sched->base, -EIO);

	for (i = 0; i < GT_NR_RESET; i++) {
		KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(finished[i], false, GT_WAIT), 0);
		KUNIT_EXPECT_EQ(test, finished[i]->error, -EIO);
		dma_fence_put(finished[i]);
		KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_COMPLETE, id[i], 1));
	}
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	for (i = 0; i < GT_NR_RESET; i++) {
		gt_expect_job(test, c, &sched->base, ring_id, id[i], GT_NO_HW, -EIO);
		KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id[i]), 0);
	}
}

/*
 * A job whose run_job() fails never had a hardware fence: COMMIT, then
 * COMPLETE with run_job()'s error, and no END.
 */
static void drm_sched_grtrace_run_fails_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job, *next;
	struct dma_fence *finished;
	struct gt_id id, id_next;
	struct gt_capture *c;
	u32 ring_id;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = gt_job(test, entity, 0);
	job->flags = DRM_MOCK_SCHED_JOB_RUN_FAILS;
	next = gt_job(test, entity, GT_JOB_US);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	id = gt_submit(job, &finished);
	id_next = gt_submit(next, NULL);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(finished, false, GT_WAIT), 0);
	KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_COMPLETE, id, 1));
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(next, GT_WAIT));
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);

	KUNIT_EXPECT_EQ(test, finished->error, -EIO);
	dma_fence_put(finished);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	gt_expect_job(test, c, &sched->base, ring_id, id, GT_NO_HW, -EIO);
	/* The scheduler goes on with the next job, which runs normally. */
	gt_expect_job(test, c, &sched->base, ring_id, id_next, GT_RAN, 0);
}

/*
 * An entity torn down while its first job waits for a dependency and a
 * second is queued behind it: the kill waits for the dependency too, so
 * the wait ends, once, when it signals, and both jobs complete with -ESRCH
 * without ever being committed or ended.
 *
 * drm_mock_sched_entity_free() would wait for the queue to drain, which it
 * never does here, so the entity is torn down with drm_sched_entity_fini(),
 * as a driver does for a process that is killed.
 */
static void drm_sched_grtrace_kill_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *other = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity, *ex;
	struct drm_mock_sched_job *job[2], *x;
	struct dma_fence *finished[2], *fx;
	struct gt_id id[2], idx;
	struct gt_capture *c;
	unsigned int i;
	u32 ring_id;
	int exit;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	ex = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, other);
	x = gt_job(test, ex, 0);
	for (i = 0; i < ARRAY_SIZE(job); i++)
		job[i] = gt_job(test, entity, GT_JOB_US);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	idx = gt_submit(x, &fx);
	KUNIT_EXPECT_EQ(test, drm_sched_job_add_dependency(&job[0]->base, dma_fence_get(fx)), 0);
	for (i = 0; i < ARRAY_SIZE(job); i++)
		id[i] = gt_submit(job[i], &finished[i]);
	KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_SYNC_WAIT_ENTER, id[0], 1));

	drm_sched_entity_fini(&entity->base);
	/* Killed jobs may still wait for their dependencies to signal. */
	KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(other, 1), 1);
	for (i = 0; i < ARRAY_SIZE(job); i++) {
		KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(finished[i], false, GT_WAIT), 0);
		KUNIT_EXPECT_EQ(test, finished[i]->error, -ESRCH);
		dma_fence_put(finished[i]);
		KUNIT_EXPECT_TRUE(test, gt_wait_event(c, GRTRACE_EV_COMPLETE, id[i], 1));
	}
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);
	drm_mock_sched_entity_free(ex);
	drm_mock_sched_fini(sched);
	drm_mock_sched_fini(other);
	dma_fence_put(fx);

	for (i = 0; i < ARRAY_SIZE(job); i++) {
		gt_expect_job(test, c, &sched->base, ring_id, id[i], GT_KILLED, -ESRCH);
		KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_ERROR, id[i]), 0);
	}
	/* The kill waits for the dependency: the wait ends when it signals. */
	exit = gt_expect_wait(test, c, id[0], idx, 0);
	if (exit >= 0)
		KUNIT_EXPECT_LT(test, exit, gt_find(c, GRTRACE_EV_COMPLETE, id[0], 0));
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_ENTER, id[1]), 0);
	KUNIT_EXPECT_EQ(test, gt_count(c, GRTRACE_EV_SYNC_WAIT_EXIT, id[1]), 0);
}

/*
 * drm_sched_fini() with a job still on the hardware: the mock cancels it
 * (its hardware fence signals with -ECANCELED), and the job is reported
 * completed on the scheduler's ring.
 */
static void drm_sched_grtrace_fini_test(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;
	struct gt_capture *c;
	struct gt_id id;
	u32 ring_id;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = gt_job(test, entity, 0);

	c = gt_capture_start(test, GT_MAX_EVENTS);
	id = gt_submit(job, NULL);
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_scheduled(job, GT_WAIT));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);
	gt_capture_stop(test, c);
	ring_id = gt_ring_id(c, &sched->base);

	KUNIT_EXPECT_EQ(test, job->hw_fence.error, -ECANCELED);
	gt_expect_job(test, c, &sched->base, ring_id, id, GT_RAN, -ECANCELED);
}

#define GT_NR_SCHEDS	64
#define GT_NR_ALIVE	8
#define GT_NR_JOBS	4

/**
 * struct gt_many - one of the schedulers of the many schedulers cases
 * @test: the case
 * @sched: the scheduler
 * @entity: its only entity
 * @last: its last job
 * @fini: finishes the scheduler, for the scale case
 * @ring_id: the id of its grtrace ring in the capture
 * @id: its jobs
 */
struct gt_many {
	struct kunit *test;
	struct drm_mock_scheduler *sched;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *last;
	struct work_struct fini;
	u32 ring_id;
	struct gt_id id[GT_NR_JOBS];
};

/*
 * The schedulers of the many schedulers cases all belong to one device, as
 * a driver's per-queue schedulers do.
 */
static struct device *gt_many_device(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "drm-sched-grtrace-many");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	return dev;
}

static void gt_many_start(struct kunit *test, struct gt_many *m,
			  struct device *dev)
{
	unsigned int i;

	m->test = test;
	m->sched = drm_mock_sched_new_on(test, MAX_SCHEDULE_TIMEOUT, dev);
	m->entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL,
					      m->sched);
	for (i = 0; i < GT_NR_JOBS; i++) {
		m->last = gt_job(test, m->entity, GT_JOB_US / 2);
		m->id[i] = gt_submit(m->last, NULL);
	}
}

static void gt_many_stop(struct kunit *test, struct gt_many *m)
{
	KUNIT_EXPECT_TRUE(test, drm_mock_sched_job_wait_finished(m->last, GT_WAIT));
	drm_mock_sched_entity_free(m->entity);
	drm_mock_sched_fini(m->sched);
}

/*
 * Many schedulers created and torn down while the events are captured,
 * GT_NR_ALIVE of them alive at a time, each running a few jobs, all of one
 * device and name as a driver's per-queue schedulers may be: they are one
 * ring, with one id, and every job is reported on it exactly once per
 * event.  No scheduler pointer is kept: they are freed meanwhile.
 */
static void drm_sched_grtrace_many_test(struct kunit *test)
{
	struct gt_many *m = kunit_kcalloc(test, GT_NR_SCHEDS, sizeof(*m), GFP_KERNEL);
	struct device *dev = gt_many_device(test);
	struct gt_capture *c;
	unsigned int i, j;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, m);
	c = gt_capture_start(test, 2 * GT_NR_SCHEDS * (4 * GT_NR_JOBS + 1));
	for (i = 0; i < GT_NR_SCHEDS + GT_NR_ALIVE; i++) {
		if (i >= GT_NR_ALIVE)
			gt_many_stop(test, &m[i - GT_NR_ALIVE]);
		if (i < GT_NR_SCHEDS)
			gt_many_start(test, &m[i], dev);
	}
	gt_capture_stop(test, c);
	m[0].ring_id = gt_ring_id(c, &m[0].sched->base);
	KUNIT_EXPECT_NE(test, m[0].ring_id, 0);

	for (i = 0; i < GT_NR_SCHEDS && ok; i++)
		for (j = 0; j < GT_NR_JOBS && ok; j++)
			ok = gt_expect_job(test, c, &m[i].sched->base, m[0].ring_id,
					   m[i].id[j], GT_RAN, 0);
	for (i = 0, j = 0; i < c->n; i++)
		j += gt_on(&c->ev[i], &m[0].sched->base);
	KUNIT_EXPECT_EQ(test, j, GT_NR_SCHEDS * GT_NR_JOBS * 4);
}

static unsigned int scale_schedulers = 64;
module_param(scale_schedulers, uint, 0600);
MODULE_PARM_DESC(scale_schedulers,
		 "schedulers the drm_sched_grtrace_scale suite creates (default 64)");

static void gt_many_fini_work(struct work_struct *work)
{
	struct gt_many *m = container_of(work, struct gt_many, fini);

	gt_many_stop(m->test, m);
	KUNIT_EXPECT_EQ(m->test, m->last->hw_fence.error, 0);
}

static void gt_destroy_workqueue(void *wq)
{
	destroy_workqueue(wq);
}

/*
 * Schedulers created and destroyed as drivers with a scheduler per queue
 * (xe, panthor) create and destroy them: all on one device, GT_NR_ALIVE of
 * them alive at a time, each running GT_NR_JOBS jobs and finished from a
 * work item, half of them at once, while the case creates the next ones.
 * The schedulers have no probe of their own: the case checks only that
 * every job finished without error.  It is there to be run again through
 * debugfs with a larger scale_schedulers while a session of the relay
 * stream and trace-cmd record: the guest test checks in both recordings
 * that every job was reported on its own scheduler's ring, each event once.
 */
static void drm_sched_grtrace_scale_test(struct kunit *test)
{
	unsigned int n = READ_ONCE(scale_schedulers), i;
	struct device *dev = gt_many_device(test);
	struct gt_many *m = kunit_kcalloc(test, GT_NR_ALIVE, sizeof(*m), GFP_KERNEL);
	struct workqueue_struct *wq;

	KUNIT_ASSERT_NOT_NULL(test, m);
	wq = alloc_workqueue("drm-sched-grtrace-fini", WQ_UNBOUND, GT_NR_ALIVE / 2);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	/* Released before m, should an assertion end the case early. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_destroy_workqueue, wq), 0);
	for (i = 0; i < GT_NR_ALIVE; i++)
		INIT_WORK(&m[i].fini, gt_many_fini_work);

	/*
	 * The scheduler started GT_NR_ALIVE / 2 turns ago is finished; the
	 * one of the slot reused now was queued as many turns ago, and is
	 * waited for.
	 */
	for (i = 0; i < n + GT_NR_ALIVE / 2; i++) {
		if (i >= GT_NR_ALIVE / 2)
			queue_work(wq, &m[(i - GT_NR_ALIVE / 2) % GT_NR_ALIVE].fini);
		if (i < n) {
			flush_work(&m[i % GT_NR_ALIVE].fini);
			gt_many_start(test, &m[i % GT_NR_ALIVE], dev);
		}
	}
	flush_workqueue(wq);
	kunit_info(test, "%u schedulers, %u jobs each\n", n, GT_NR_JOBS);
}

static struct kunit_case drm_sched_grtrace_tests[] = {
	KUNIT_CASE(drm_sched_grtrace_ring_test),
	KUNIT_CASE(drm_sched_grtrace_lifecycle_test),
	KUNIT_CASE(drm_sched_grtrace_dependency_test),
	KUNIT_CASE(drm_sched_grtrace_timeout_reset_test),
	KUNIT_CASE(drm_sched_grtrace_timeout_no_hang_test),
	KUNIT_CASE(drm_sched_grtrace_timeout_failed_test),
	KUNIT_CASE(drm_sched_grtrace_reset_test),
	KUNIT_CASE(drm_sched_grtrace_run_fails_test),
	KUNIT_CASE(drm_sched_grtrace_kill_test),
	KUNIT_CASE(drm_sched_grtrace_fini_test),
	KUNIT_CASE(drm_sched_grtrace_many_test),
	{}
};

static struct kunit_suite drm_sched_grtrace = {
	.name = "drm_sched_grtrace_tests",
	.test_cases = drm_sched_grtrace_tests,
};

static struct kunit_case drm_sched_grtrace_scale_tests[] = {
	KUNIT_CASE(drm_sched_grtrace_scale_test),
	{}
};

static struct kunit_suite drm_sched_grtrace_scale = {
	.name = "drm_sched_grtrace_scale",
	.test_cases = drm_sched_grtrace_scale_tests,
};

kunit_test_suites(&drm_sched_grtrace, &drm_sched_grtrace_scale);

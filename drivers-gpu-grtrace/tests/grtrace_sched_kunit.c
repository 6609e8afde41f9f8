// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of grtrace on the DRM GPU scheduler's tracepoints: a real
 * drm_gpu_scheduler with a fake hardware backend whose fences signal from
 * hrtimers (softirq: a fence's spinlock_t is no lock for hard interrupt
 * context), two entities with dependencies between
 * them, and a job that outlives its timeout, also as the flight recorder's
 * trigger.
 */

#include <drm/gpu_scheduler.h>
#include <kunit/test.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/pid.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include <trace/events/dma_fence.h>
#include <trace/events/grtrace.h>

#include "../grtrace_internal.h"

#define NR_JOBS		16
#define MAX_EVENTS	512

/* ---- the fake hardware ---- */

struct hw_fence {
	struct dma_fence base;
	spinlock_t lock;		/* protects base */
	struct hrtimer timer;
};

struct fake_job {
	struct drm_sched_job base;
	struct hw_fence *hw;
	bool hang;		/* the hardware never signals */
	bool slow;		/* signals only once its timeout fired */
	bool cancel;		/* its timeout fails it, as xe does */
	int fail;		/* run_job returns ERR_PTR(@fail) */
	bool nofence;		/* run_job returns no hardware fence */
	bool blind;		/* its timeout resets without a look at it */
};

struct fake_gpu {
	struct drm_gpu_scheduler sched;
	u64 context;
	atomic_t seqno;
	/* Stopped and restarted with this one, as a full GPU reset does. */
	struct fake_gpu *sibling;
};

static const char *hw_fence_name(struct dma_fence *f)
{
	return "grtrace-kunit";
}

static const struct dma_fence_ops hw_fence_ops = {
	.get_driver_name = hw_fence_name,
	.get_timeline_name = hw_fence_name,
};

/* The "interrupt" that tells the job is done. */
static enum hrtimer_restart hw_fence_irq(struct hrtimer *timer)
{
	struct hw_fence *hw = container_of(timer, struct hw_fence, timer);

	dma_fence_signal(&hw->base);
	return HRTIMER_NORESTART;
}

static struct dma_fence *fake_run_job(struct drm_sched_job *sched_job)
{
	struct fake_job *job = container_of(sched_job, struct fake_job, base);
	struct fake_gpu *gpu = container_of(sched_job->sched, struct fake_gpu, sched);
	struct hw_fence *hw;

	if (job->fail)
		return ERR_PTR(job->fail);
	if (job->nofence)
		return NULL;
	hw = kzalloc_obj(*hw);
	if (!hw)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&hw->lock);
	dma_fence_init(&hw->base, &hw_fence_ops, &hw->lock, gpu->context,
		       atomic_inc_return(&gpu->seqno));
	hrtimer_setup(&hw->timer, hw_fence_irq, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	job->hw = hw;
	dma_fence_get(&hw->base);		/* for job->hw */

	/*
	 * A driver reports what the scheduler cannot see, such as the start
	 * of execution, and nothing else; here on the scheduler's own ring.
	 */
	if (grtrace_enabled()) {
		struct grtrace_job gj = {
			.ring = grtrace_sched_ring(sched_job->sched),
			.ctx_id = sched_job->s_fence->scheduled.context,
			.fence_context = sched_job->s_fence->finished.context,
			.fence_seqno = sched_job->s_fence->finished.seqno,
		};

		grtrace_start(&gj);
	}
	if (!job->hang && !job->slow && !job->cancel)
		hrtimer_start(&hw->timer, ns_to_ktime(200 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
	return &hw->base;
}

static enum drm_gpu_sched_stat fake_timedout_job(struct drm_sched_job *sched_job)
{
	struct fake_job *job = container_of(sched_job, struct fake_job, base);
	struct fake_gpu *gpu = container_of(sched_job->sched, struct fake_gpu, sched);

	/*
	 * Timed out again after a reset completed it, before it was freed:
	 * drm_sched_start() re-armed the timeout while the job was still
	 * pending.  A driver finds the job done and has nothing to reset.
	 */
	if (!job->blind && dma_fence_is_signaled(&job->hw->base))
		return DRM_GPU_SCHED_STAT_NO_HANG;
	/*
	 * A job that is slow, not hung: the driver lets it run and says so,
	 * as xe does for a job that is still making progress.
	 */
	if (job->slow) {
		hrtimer_start(&job->hw->timer, ns_to_ktime(200 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
		return DRM_GPU_SCHED_STAT_NO_HANG;
	}
	/*
	 * xe's way: fail the job's hardware fence without a reset, and hand
	 * the job back to the scheduler with DRM_GPU_SCHED_STAT_NO_HANG.
	 */
	if (job->cancel) {
		dma_fence_set_error(&job->hw->base, -ETIME);
		dma_fence_signal(&job->hw->base);
		return DRM_GPU_SCHED_STAT_NO_HANG;
	}
	/*
	 * What a driver does: stop, reset the engine (fail the job), restart;
	 * a full reset stops every scheduler of the device with the same job.
	 */
	drm_sched_stop(sched_job->sched, sched_job);
	if (gpu->sibling)
		drm_sched_stop(&gpu->sibling->sched, sched_job);
	if (!dma_fence_is_signaled(&job->hw->base)) {
		dma_fence_set_error(&job->hw->base, -ETIMEDOUT);
		dma_fence_signal(&job->hw->base);
	}
	drm_sched_start(sched_job->sched, 0);
	if (gpu->sibling)
		drm_sched_start(&gpu->sibling->sched, 0);
	return DRM_GPU_SCHED_STAT_RESET;
}

static void fake_free_job(struct drm_sched_job *sched_job)
{
	struct fake_job *job = container_of(sched_job, struct fake_job, base);

	drm_sched_job_cleanup(sched_job);
	if (job->hw) {
		hrtimer_cancel(&job->hw->timer);
		dma_fence_put(&job->hw->base);
	}
	kfree(job);
}

static const struct drm_sched_backend_ops fake_ops = {
	.run_job = fake_run_job,
	.timedout_job = fake_timedout_job,
	.free_job = fake_free_job,
};

static struct fake_gpu *fake_gpu_create(struct kunit *test, const char *name,
					long timeout)
{
	struct fake_gpu *gpu = kunit_kzalloc(test, sizeof(*gpu), GFP_KERNEL);
	struct drm_sched_init_args args = {
		.ops = &fake_ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = NR_JOBS,
		.timeout = timeout,
		.name = name,
	};

	KUNIT_ASSERT_NOT_NULL(test, gpu);
	gpu->context = dma_fence_context_alloc(1);
	KUNIT_ASSERT_EQ(test, drm_sched_init(&gpu->sched, &args), 0);
	return gpu;
}

/* An entity on @gpu's scheduler, as a driver's queue would have. */
static struct drm_sched_entity *fake_entity_create(struct kunit *test,
						   struct fake_gpu *gpu)
{
	struct drm_sched_entity *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct drm_gpu_scheduler *list[1] = { &gpu->sched };

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_EQ(test, drm_sched_entity_init(e, DRM_SCHED_PRIORITY_NORMAL,
						    list, 1, NULL), 0);
	return e;
}

/* Wait until the scheduler freed every job, then tear it down. */
static void fake_gpu_destroy(struct fake_gpu *gpu)
{
	int i;

	for (i = 0; i < 100; i++) {
		bool empty;

		spin_lock(&gpu->sched.job_list_lock);
		empty = list_empty(&gpu->sched.pending_list);
		spin_unlock(&gpu->sched.job_list_lock);
		if (empty)
			break;
		msleep(20);
	}
	drm_sched_fini(&gpu->sched);
}

/* ---- what the tracepoints saw ---- */

struct seen {
	u16 type;
	u64 gseq;			/* relay records only */
	struct grtrace_job_payload job;
};

struct capture {
	spinlock_t lock;	/* protects n and ev; probes run in any context */
	int n;
	struct seen ev[MAX_EVENTS];
};

static void capture_probe(void *data, const struct grtrace_event *ev)
{
	struct capture *c = data;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (c->n < MAX_EVENTS) {
		c->ev[c->n].type = ev->type;
		c->ev[c->n].job = ev->job;
		c->n++;
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

typedef int (*reg_fn)(void (*probe)(void *, const struct grtrace_event *), void *);

static const struct {
	reg_fn reg, unreg;
} tps[] = {
	{ register_trace_grtrace_submit, unregister_trace_grtrace_submit },
	{ register_trace_grtrace_commit, unregister_trace_grtrace_commit },
	{ register_trace_grtrace_start, unregister_trace_grtrace_start },
	{ register_trace_grtrace_end, unregister_trace_grtrace_end },
	{ register_trace_grtrace_complete, unregister_trace_grtrace_complete },
	{ register_trace_grtrace_sync_wait_enter,
	  unregister_trace_grtrace_sync_wait_enter },
	{ register_trace_grtrace_sync_wait_exit,
	  unregister_trace_grtrace_sync_wait_exit },
	{ register_trace_grtrace_error, unregister_trace_grtrace_error },
};

static struct capture *capture_start(struct kunit *test)
{
	struct capture *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	spin_lock_init(&c->lock);
	for (i = 0; i < ARRAY_SIZE(tps); i++)
		KUNIT_ASSERT_EQ(test, tps[i].reg(capture_probe, c), 0);
	/*
	 * A work item attaches grtrace to the scheduler's tracepoints now
	 * that its own have a consumer: attach at once instead.
	 */
	KUNIT_ASSERT_EQ(test, grtrace_sched_get(), 0);
	return c;
}

/*
 * The test's hold on the scheduler's probes goes last, after the sources
 * are brought in line with no consumer: the source work queued by
 * capture_start(), late or still running, must not attach the probes
 * again once the test lets them go, with new tables in which a ring the
 * test looks up next would have no id.
 */
static void capture_stop(struct capture *c)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		tps[i].unreg(capture_probe, c);
	tracepoint_synchronize_unregister();
	grtrace_sources_sync();
	grtrace_sched_put();
}

/* Relay records, in gseq order, as struct seen. */
struct relay_seen {
	int n;
	struct seen ev[MAX_EVENTS];
};

static int relay_one(const struct grtrace_record *rec, void *data)
{
	struct relay_seen *r = data;
	const struct grtrace_job_payload *p = (const void *)(rec + 1);

	if (rec->type >= GRTRACE_EV_NR || r->n >= MAX_EVENTS)
		return 0;
	r->ev[r->n].type = rec->type;
	r->ev[r->n].gseq = rec->gseq;
	r->ev[r->n].job = *p;
	r->n++;
	return 0;
}

static int cmp_seen_gseq(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/* Index of the @nth event of @type for job @ctx:@seqno, or -1. */
static int find(const struct seen *ev, int n, u16 type, u64 ctx, u64 seqno)
{
	int i;

	for (i = 0; i < n; i++)
		if (ev[i].type == type && ev[i].job.fence_context == ctx &&
		    ev[i].job.fence_seqno == seqno)
			return i;
	return -1;
}

static int count(const struct seen *ev, int n, u16 type, u64 ctx, u64 seqno)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += ev[i].type == type && ev[i].job.fence_context == ctx &&
		     ev[i].job.fence_seqno == seqno;
	return c;
}

struct job_id {
	u64 ctx, seqno;
	int dep;		/* index of the job it depends on, or -1 */
};

/*
 * Every job: one SUBMIT, COMMIT, START, END, COMPLETE, in that order, the
 * START from the driver and the rest from the scheduler; its dependencies.
 */
static void check_jobs(struct kunit *test, const char *sink,
		       const struct seen *ev, int n, const struct job_id *ids,
		       int nr, u32 ring_id)
{
	int j;

	for (j = 0; j < nr; j++) {
		u64 c = ids[j].ctx, s = ids[j].seqno;
		int sub = find(ev, n, GRTRACE_EV_SUBMIT, c, s);
		int com = find(ev, n, GRTRACE_EV_COMMIT, c, s);
		int sta = find(ev, n, GRTRACE_EV_START, c, s);
		int end = find(ev, n, GRTRACE_EV_END, c, s);
		int cpl = find(ev, n, GRTRACE_EV_COMPLETE, c, s);

		KUNIT_EXPECT_EQ_MSG(test, count(ev, n, GRTRACE_EV_SUBMIT, c, s), 1,
				    "%s job %d", sink, j);
		KUNIT_EXPECT_EQ_MSG(test, count(ev, n, GRTRACE_EV_COMMIT, c, s), 1,
				    "%s job %d", sink, j);
		KUNIT_EXPECT_EQ_MSG(test, count(ev, n, GRTRACE_EV_START, c, s), 1,
				    "%s job %d", sink, j);
		KUNIT_EXPECT_EQ_MSG(test, count(ev, n, GRTRACE_EV_END, c, s), 1,
				    "%s job %d", sink, j);
		KUNIT_EXPECT_EQ_MSG(test, count(ev, n, GRTRACE_EV_COMPLETE, c, s), 1,
				    "%s job %d", sink, j);
		KUNIT_EXPECT_TRUE_MSG(test, sub >= 0 && sub < com && com < sta &&
				      sta < end && end < cpl,
				      "%s job %d order %d %d %d %d %d",
				      sink, j, sub, com, sta, end, cpl);
		if (sub >= 0) {
			KUNIT_EXPECT_EQ(test, ev[sub].job.ring_id, ring_id);
			KUNIT_EXPECT_EQ(test, ev[sub].job.engine, GRTRACE_ENGINE_GRAPHICS);
			KUNIT_EXPECT_EQ(test, ev[sub].job.pid, task_pid_nr(current));
			KUNIT_EXPECT_GE(test, ev[sub].job.depth, 1);
		}
		if (cpl >= 0)
			KUNIT_EXPECT_EQ(test, ev[cpl].job.status, 0);

		if (ids[j].dep >= 0) {
			const struct job_id *d = &ids[ids[j].dep];
			int enter = -1, exit = -1, i;

			for (i = 0; i < n; i++) {
				if (ev[i].job.fence_context != c || ev[i].job.fence_seqno != s ||
				    ev[i].job.aux_context != d->ctx ||
				    ev[i].job.aux_seqno != d->seqno)
					continue;
				if (ev[i].type == GRTRACE_EV_SYNC_WAIT_ENTER)
					enter = i;
				else if (ev[i].type == GRTRACE_EV_SYNC_WAIT_EXIT)
					exit = i;
				else
					continue;
				/* A job waits, not a task: none is named. */
				KUNIT_EXPECT_EQ_MSG(test, ev[i].job.pid, 0,
						    "%s job %d wait", sink, j);
			}
			/*
			 * A wait is reported only if the job had to wait: its
			 * dependency had not finished when the job came up,
			 * which depends on timing here (the mock scheduler's
			 * test of the hooks forces the waits).
			 */
			if (enter >= 0 || exit >= 0)
				KUNIT_EXPECT_TRUE_MSG(test, enter >= 0 && enter < exit &&
						      exit < com,
						      "%s job %d dep edge %d %d %d",
						      sink, j, enter, exit, com);
		}
	}
}

static size_t saved_buffer_size;

/* As grtrace's own suite: beside someone else's session, skip and leave it. */
static bool grtrace_sched_test_owns;

static int grtrace_sched_test_init(struct kunit *test)
{
	if (grtrace_session_running())
		kunit_skip(test, "a grtrace session is running");
	grtrace_sched_test_owns = true;
	saved_buffer_size = grtrace_get_buffer_size();
	KUNIT_ASSERT_EQ(test, grtrace_config_write("level=verbose\nreset_stats=1"), 0);
	return 0;
}

static void grtrace_sched_test_exit(struct kunit *test)
{
	if (!grtrace_sched_test_owns)
		return;
	grtrace_sched_test_owns = false;
	if (grtrace_session_running())
		grtrace_session_stop();
	grtrace_config_write("level=normal\nflight_recorder=0\naggregate_only=0\nreset_stats=1");
	if (grtrace_get_buffer_size() != saved_buffer_size)
		grtrace_set_buffer_size(saved_buffer_size);
}

/* N jobs on two entities, every job of the second waiting on the first. */
static void grtrace_sched_test_lifecycle(struct kunit *test)
{
	struct drm_sched_entity *e = kunit_kcalloc(test, 2, sizeof(*e), GFP_KERNEL);
	struct relay_seen *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct dma_fence **done = kunit_kcalloc(test, NR_JOBS, sizeof(*done), GFP_KERNEL);
	struct job_id *ids = kunit_kcalloc(test, NR_JOBS, sizeof(*ids), GFP_KERNEL);
	struct drm_gpu_scheduler *list[1];
	struct grtrace_totals t;
	struct fake_gpu *gpu;
	struct capture *c;
	u32 ring_id;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, done);
	KUNIT_ASSERT_NOT_NULL(test, ids);

	gpu = fake_gpu_create(test, "gfx_kunit", MAX_SCHEDULE_TIMEOUT);
	list[0] = &gpu->sched;
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, drm_sched_entity_init(&e[i], DRM_SCHED_PRIORITY_NORMAL,
							    list, 1, NULL), 0);

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	c = capture_start(test);

	for (i = 0; i < NR_JOBS; i++) {
		struct fake_job *job = kzalloc_obj(*job);
		struct dma_fence *dep;

		KUNIT_ASSERT_NOT_NULL(test, job);
		KUNIT_ASSERT_EQ(test, drm_sched_job_init(&job->base, &e[i % 2], 1,
							 NULL, 0), 0);
		ids[i].dep = -1;
		if (i % 2) {
			/*
			 * Odd jobs (entity 1) wait for the previous even job
			 * to finish: not pipelined, the wait is for its
			 * finished fence, not its scheduled one.
			 */
			ids[i].dep = i - 1;
			dep = dma_fence_get(done[i - 1]);
			set_bit(DRM_SCHED_FENCE_DONT_PIPELINE, &dep->flags);
			KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&job->base, dep), 0);
		}
		drm_sched_job_arm(&job->base);
		done[i] = dma_fence_get(&job->base.s_fence->finished);
		ids[i].ctx = done[i]->context;
		ids[i].seqno = done[i]->seqno;
		drm_sched_entity_push_job(&job->base);
	}

	for (i = 0; i < NR_JOBS; i++) {
		KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done[i], false, 10 * HZ), 0);
		dma_fence_put(done[i]);
	}

	capture_stop(c);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	for (i = 0; i < 2; i++)
		drm_sched_entity_destroy(&e[i]);

	ring_id = grtrace_ring_last_id(grtrace_sched_ring(&gpu->sched));
	check_jobs(test, "tracepoint", c->ev, c->n, ids, NR_JOBS, ring_id);

	KUNIT_ASSERT_EQ(test, grtrace_walk_records(relay_one, r), 0);
	sort(r->ev, r->n, sizeof(r->ev[0]), cmp_seen_gseq, NULL);
	check_jobs(test, "relay", r->ev, r->n, ids, NR_JOBS, ring_id);

	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.written, t.offered);
	KUNIT_EXPECT_GE(test, t.written, 5 * NR_JOBS);

	fake_gpu_destroy(gpu);
}

/*
 * Wait for the timeout handler that completed a job to return, its ERRORs
 * reported, and keep the timeout it re-armed from firing later.  Flushing
 * the timeout instead would run the handler once more at once, while the
 * finished job may still be pending.
 */
static void timeout_handled(struct fake_gpu *gpu)
{
	cancel_delayed_work_sync(&gpu->sched.work_tdr);
}

/* One job whose timeout fires, as run by timed_job(). */
struct timed {
	struct fake_gpu *gpu;
	struct capture *c;
	u64 ctx, seqno;
	int error;
};

/*
 * Run one job on a scheduler of its own whose timeout is 100 ms: @hang, the
 * hardware never ends it (the driver resets); @slow, it ends after its
 * timeout (the driver calls it benign); @cancel, the driver fails it (xe).
 * Returns once the job completed and its timeout was handled, the events
 * captured meanwhile in @t->c.
 */
static void timed_job(struct kunit *test, struct timed *t, const char *name,
		      bool hang, bool slow, bool cancel)
{
	struct drm_sched_entity *e;
	struct dma_fence *done;
	struct fake_job *job;

	t->gpu = fake_gpu_create(test, name, msecs_to_jiffies(100));
	e = fake_entity_create(test, t->gpu);
	t->c = capture_start(test);

	job = kzalloc_obj(*job);
	KUNIT_ASSERT_NOT_NULL(test, job);
	job->hang = hang;
	job->slow = slow;
	job->cancel = cancel;
	KUNIT_ASSERT_EQ(test, drm_sched_job_init(&job->base, e, 1, NULL, 0), 0);
	drm_sched_job_arm(&job->base);
	done = dma_fence_get(&job->base.s_fence->finished);
	t->ctx = done->context;
	t->seqno = done->seqno;
	drm_sched_entity_push_job(&job->base);

	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done, false, 10 * HZ), 0);
	/* A job the driver completes in timedout_job(): its ERRORs follow. */
	timeout_handled(t->gpu);
	t->error = done->error;
	dma_fence_put(done);
	capture_stop(t->c);
	drm_sched_entity_destroy(e);
}

/* A job that hangs: ERROR(timeout), ERROR(reset), COMPLETE with the error. */
static void grtrace_sched_test_timeout(struct kunit *test)
{
	struct timed t;
	struct capture *c;
	u64 ctx, seqno;
	int to, rst, cpl, error;

	timed_job(test, &t, "comp_kunit", true, false, false);
	c = t.c;
	ctx = t.ctx;
	seqno = t.seqno;
	/* drm_sched_start() cancels the jobs whose hardware fence is gone. */
	error = t.error;
	KUNIT_EXPECT_LT(test, error, 0);

	to = find(c->ev, c->n, GRTRACE_EV_ERROR, ctx, seqno);
	cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno);
	KUNIT_ASSERT_GE(test, to, 0);
	KUNIT_EXPECT_EQ(test, c->ev[to].job.status, GRTRACE_ERROR_TIMEOUT);
	KUNIT_EXPECT_EQ(test, c->ev[to].job.engine, GRTRACE_ENGINE_COMPUTE);
	/*
	 * The driver reset the engine (DRM_GPU_SCHED_STAT_RESET): reported
	 * after the timeout, same job, once the driver returned, so after the
	 * COMPLETE its drm_sched_start() gave the job.
	 */
	for (rst = to + 1; rst < c->n; rst++)
		if (c->ev[rst].type == GRTRACE_EV_ERROR)
			break;
	KUNIT_ASSERT_LT(test, rst, c->n);
	KUNIT_EXPECT_EQ(test, c->ev[rst].job.status, GRTRACE_ERROR_RESET);
	KUNIT_EXPECT_EQ(test, c->ev[rst].job.fence_seqno, seqno);
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_ERROR, ctx, seqno), 2);
	KUNIT_ASSERT_GE(test, cpl, 0);
	KUNIT_EXPECT_LT(test, cpl, to);
	KUNIT_EXPECT_EQ(test, c->ev[cpl].job.status, error);
	/* The hardware fence was taken away by the reset: no END. */
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_END, ctx, seqno), 0);
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno), 1);

	fake_gpu_destroy(t.gpu);
}

/*
 * A timeout for which the driver returns DRM_GPU_SCHED_STAT_NO_HANG: no
 * ERROR if the job was only slow and ends normally; ERROR(timeout) alone,
 * no reset, if the driver failed the job itself (xe).  The job ends and
 * completes once either way, with its hardware fence's error.
 */
static void no_hang_case(struct kunit *test, bool cancel)
{
	struct timed t;
	struct capture *c;
	int cpl, to, error;
	u64 ctx, seqno;

	timed_job(test, &t, cancel ? "comp_cancel" : "comp_slow", false, !cancel,
		  cancel);
	c = t.c;
	ctx = t.ctx;
	seqno = t.seqno;
	error = t.error;
	KUNIT_EXPECT_EQ(test, error, cancel ? -ETIME : 0);

	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_ERROR, ctx, seqno),
			cancel ? 1 : 0);
	to = find(c->ev, c->n, GRTRACE_EV_ERROR, ctx, seqno);
	if (cancel) {
		KUNIT_ASSERT_GE(test, to, 0);
		KUNIT_EXPECT_EQ(test, c->ev[to].job.status, GRTRACE_ERROR_TIMEOUT);
	}
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_END, ctx, seqno), 1);
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno), 1);
	cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno);
	KUNIT_ASSERT_GE(test, cpl, 0);
	KUNIT_EXPECT_EQ(test, c->ev[cpl].job.status, error);

	fake_gpu_destroy(t.gpu);
}

static void grtrace_sched_test_timeout_no_hang(struct kunit *test)
{
	no_hang_case(test, false);
}

static void grtrace_sched_test_timeout_cancelled(struct kunit *test)
{
	no_hang_case(test, true);
}

/* Push one job on @e; returns its finished fence, referenced. */
static struct dma_fence *push_one(struct kunit *test, struct drm_sched_entity *e,
				  struct fake_job *job, struct dma_fence *dep)
{
	struct dma_fence *done;

	KUNIT_ASSERT_EQ(test, drm_sched_job_init(&job->base, e, 1, NULL, 0), 0);
	if (dep)
		KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&job->base, dep), 0);
	drm_sched_job_arm(&job->base);
	done = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	return done;
}

static struct fake_job *new_job(struct kunit *test)
{
	struct fake_job *job = kzalloc_obj(*job);

	KUNIT_ASSERT_NOT_NULL(test, job);
	return job;
}

#define FLIGHT_MAX	4096

/* What a flight recorder's buffers hold, walked CPU by CPU. */
struct flight_walk {
	u64 session_id;
	u32 ring_id;
	int cpu;
	bool described;		/* the ring, in this sub-buffer */
	int infos, foreign_infos, undescribed, n;
	u64 max_gseq, min_gseq;	/* the ring's last, anything's first */
	struct {
		u16 type;
		u64 gseq, seqno;
	} ev[FLIGHT_MAX];
};

static int flight_one(const struct grtrace_record *rec, void *data)
{
	const struct grtrace_stream_info *si = (const void *)(rec + 1);
	const struct grtrace_ring_info *ri = (const void *)(rec + 1);
	const struct grtrace_job_payload *p = (const void *)(rec + 1);
	struct flight_walk *w = data;

	w->min_gseq = min(w->min_gseq, rec->gseq);
	if (rec->cpu != w->cpu) {
		w->cpu = rec->cpu;
		w->described = false;
	}
	if (rec->type == GRTRACE_EV_STREAM_INFO) {
		w->infos++;
		w->foreign_infos += si->session_id != w->session_id;
		w->described = false;
	} else if (rec->type == GRTRACE_EV_METADATA) {
		w->described |= ri->ring_id == w->ring_id;
	} else if (rec->type < GRTRACE_EV_NR && p->ring_id == w->ring_id) {
		w->undescribed += !w->described;
		w->max_gseq = max(w->max_gseq, rec->gseq);
		if (w->n < FLIGHT_MAX) {
			w->ev[w->n].type = rec->type;
			w->ev[w->n].gseq = rec->gseq;
			w->ev[w->n].seqno = p->fence_seqno;
			w->n++;
		}
	}
	return 0;
}

static int flight_find(const struct flight_walk *w, u16 type, u64 seqno)
{
	int i;

	for (i = 0; i < w->n; i++)
		if (w->ev[i].type == type && w->ev[i].seqno == seqno)
			return i;
	return -1;
}

/* Push @nr jobs, @NR_JOBS at a time, and wait for them. */
static void flight_jobs(struct kunit *test, struct drm_sched_entity *e, int nr)
{
	struct dma_fence *done[NR_JOBS];
	int i, j;

	for (i = 0; i < nr; i += NR_JOBS) {
		for (j = 0; j < NR_JOBS; j++)
			done[j] = push_one(test, e, new_job(test), NULL);
		for (j = 0; j < NR_JOBS; j++) {
			KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done[j], false, 10 * HZ), 0);
			dma_fence_put(done[j]);
		}
	}
}

/*
 * The flight recorder: jobs wrap a 16 KiB buffer several times, then one
 * hangs, and its timeout freezes the recorder once the driver reset it.
 * The buffers keep the hung job's SUBMIT, COMMIT and the COMPLETE the
 * driver's recovery gave it, the ERROR(timeout) and the jobs before,
 * nothing after;
 * every sub-buffer of a CPU that wrapped starts with the session's
 * STREAM_INFO, and the ring is described before its first event in each.
 */
static void grtrace_sched_test_flight(struct kunit *test)
{
	struct drm_sched_entity *e;
	struct flight_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct grtrace_flight f;
	struct grtrace_totals t;
	struct fake_job *job;
	struct fake_gpu *gpu;
	struct dma_fence *done;
	int sub, com, cpl, err, i, later;
	u64 seqno;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(SZ_16K), 0);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("flight_recorder=1"), 0);
	gpu = fake_gpu_create(test, "flight_kunit", msecs_to_jiffies(100));
	e = fake_entity_create(test, gpu);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	/* Not while it runs: a session is a flight recorder or not. */
	KUNIT_EXPECT_EQ(test, grtrace_config_write("flight_recorder=0"), -EBUSY);

	/* 5 records of 120 bytes a job: 320 jobs fill 16 KiB 11 times over. */
	flight_jobs(test, e, 320);
	grtrace_stream_flight(&f);
	KUNIT_EXPECT_TRUE(test, f.on);
	KUNIT_EXPECT_FALSE(test, f.frozen);

	job = new_job(test);
	job->hang = true;
	done = push_one(test, e, job, NULL);
	seqno = done->seqno;
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done, false, 10 * HZ), 0);
	dma_fence_put(done);
	/* The job completed inside timedout_job(); its ERRORs follow. */
	timeout_handled(gpu);
	grtrace_stream_flight(&f);
	KUNIT_EXPECT_TRUE(test, f.frozen);
	KUNIT_EXPECT_EQ(test, f.by, GRTRACE_FROZEN_ERROR);

	/* After the freeze: dropped, each counted. */
	flight_jobs(test, e, NR_JOBS);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	drm_sched_entity_destroy(e);

	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.offered, t.written + t.dropped[GRTRACE_DROP_FROZEN] +
			t.dropped[GRTRACE_DROP_OVERRUN] + t.dropped[GRTRACE_DROP_FILTERED]);
	KUNIT_EXPECT_EQ(test, t.dropped[GRTRACE_DROP_OVERRUN], 0);
	/* The hung job's ERROR(reset), and every later job's events. */
	KUNIT_EXPECT_GE(test, t.dropped[GRTRACE_DROP_FROZEN], 1 + 5 * NR_JOBS);

	w->session_id = grtrace_stream_session_id();
	w->ring_id = grtrace_ring_last_id(grtrace_sched_ring(&gpu->sched));
	w->cpu = -1;
	w->min_gseq = U64_MAX;
	KUNIT_ASSERT_EQ(test, grtrace_walk_records(flight_one, w), 0);

	/* Wrapped: the session's first records are gone. */
	KUNIT_EXPECT_GT(test, w->min_gseq, 1);
	KUNIT_EXPECT_GE(test, w->infos, 2);
	KUNIT_EXPECT_EQ(test, w->foreign_infos, 0);
	KUNIT_EXPECT_EQ(test, w->undescribed, 0);
	/*
	 * Nothing of the ring after the ERROR that froze it: its later events
	 * follow the freeze on this thread.  Another ring's event, written on
	 * another CPU as the freeze happens, may (see "Flight recorder").
	 */
	KUNIT_EXPECT_EQ(test, w->max_gseq, f.gseq);

	sub = flight_find(w, GRTRACE_EV_SUBMIT, seqno);
	com = flight_find(w, GRTRACE_EV_COMMIT, seqno);
	err = flight_find(w, GRTRACE_EV_ERROR, seqno);
	KUNIT_ASSERT_GE(test, sub, 0);
	KUNIT_ASSERT_GE(test, com, 0);
	KUNIT_ASSERT_GE(test, err, 0);
	KUNIT_EXPECT_EQ(test, w->ev[err].gseq, f.gseq);
	KUNIT_EXPECT_LT(test, w->ev[sub].gseq, w->ev[com].gseq);
	KUNIT_EXPECT_LT(test, w->ev[com].gseq, w->ev[err].gseq);
	cpl = flight_find(w, GRTRACE_EV_COMPLETE, seqno);
	KUNIT_ASSERT_GE(test, cpl, 0);
	KUNIT_EXPECT_LT(test, w->ev[cpl].gseq, w->ev[err].gseq);
	/* The history: the job before it completed, and is still there. */
	KUNIT_EXPECT_GE(test, flight_find(w, GRTRACE_EV_COMPLETE, seqno - 1), 0);
	for (i = 0, later = 0; i < w->n; i++)
		later += w->ev[i].seqno > seqno;
	KUNIT_EXPECT_EQ(test, later, 0);

	fake_gpu_destroy(gpu);
}

/*
 * A full reset stops two schedulers with the job of one: the job's reset is
 * reported once, on its own ring.  drm_sched_stop() itself reports nothing,
 * as drivers also call it for other reasons than a hang (amdgpu's KFD
 * debugger does): the other ring has no ERROR.
 */
static void grtrace_sched_test_reset_sibling(struct kunit *test)
{
	struct drm_sched_entity *e;
	struct fake_gpu *a, *b;
	struct fake_job *job;
	struct dma_fence *done;
	struct capture *c;
	int i, job_resets = 0, b_resets = 0;
	u64 ctx, seqno;

	a = fake_gpu_create(test, "gfx_reset", msecs_to_jiffies(100));
	b = fake_gpu_create(test, "comp_reset", MAX_SCHEDULE_TIMEOUT);
	a->sibling = b;
	e = fake_entity_create(test, a);
	c = capture_start(test);
	job = new_job(test);
	job->hang = true;
	done = push_one(test, e, job, NULL);
	ctx = done->context;
	seqno = done->seqno;
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done, false, 10 * HZ), 0);
	timeout_handled(a);
	dma_fence_put(done);
	capture_stop(c);
	drm_sched_entity_destroy(e);

	for (i = 0; i < c->n; i++) {
		if (c->ev[i].type != GRTRACE_EV_ERROR ||
		    c->ev[i].job.status != GRTRACE_ERROR_RESET)
			continue;
		if (c->ev[i].job.fence_context == ctx &&
		    c->ev[i].job.fence_seqno == seqno) {
			job_resets++;
			KUNIT_EXPECT_EQ(test, c->ev[i].job.ring_id,
					grtrace_ring_last_id(grtrace_sched_ring(&a->sched)));
		}
		if (c->ev[i].job.ring_id == grtrace_ring_last_id(grtrace_sched_ring(&b->sched)))
			b_resets++;
	}
	KUNIT_EXPECT_EQ_MSG(test, job_resets, 1, "resets naming the job");
	KUNIT_EXPECT_EQ_MSG(test, b_resets, 0, "resets of the other ring");
	fake_gpu_destroy(a);
	fake_gpu_destroy(b);
}

/*
 * A job that finished before its timeout fired, while the free worker had
 * not run yet, did not time out: no ERROR, even though the driver resets.
 */
static void grtrace_sched_test_timeout_finished(struct kunit *test)
{
	struct drm_sched_entity *e;
	struct fake_job *job;
	struct dma_fence *done;
	struct fake_gpu *gpu;
	struct capture *c;
	u64 ctx, seqno;
	int i, cpl;

	/* No timeout of its own: the test fires it. */
	gpu = fake_gpu_create(test, "gfx_done", MAX_SCHEDULE_TIMEOUT);
	e = fake_entity_create(test, gpu);
	c = capture_start(test);
	job = new_job(test);
	job->hang = true;
	job->blind = true;
	done = push_one(test, e, job, NULL);
	ctx = done->context;
	seqno = done->seqno;
	for (i = 0; i < 500 && !READ_ONCE(job->hw); i++)
		msleep(20);
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(job->hw));

	/* The job ends with the free worker held off: finished, still pending. */
	drm_sched_wqueue_stop(&gpu->sched);
	dma_fence_signal(&job->hw->base);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(done));
	mod_delayed_work(gpu->sched.timeout_wq, &gpu->sched.work_tdr, 0);
	flush_delayed_work(&gpu->sched.work_tdr);
	drm_sched_wqueue_start(&gpu->sched);
	capture_stop(c);
	dma_fence_put(done);
	drm_sched_entity_destroy(e);

	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_ERROR, ctx, seqno), 0);
	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno), 1);
	cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno);
	KUNIT_ASSERT_GE(test, cpl, 0);
	KUNIT_EXPECT_EQ(test, c->ev[cpl].job.status, 0);
	fake_gpu_destroy(gpu);
}

/*
 * run_job failing and run_job with no hardware fence: no hardware ran the
 * job, so no END; COMPLETE with run_job's error, or 0.
 */
static void grtrace_sched_test_no_hw_fence(struct kunit *test)
{
	struct drm_sched_entity *e;
	struct dma_fence *done[2];
	struct fake_job *job[2];
	struct fake_gpu *gpu;
	struct capture *c;
	int i, cpl;

	gpu = fake_gpu_create(test, "gfx_nofence", MAX_SCHEDULE_TIMEOUT);
	e = fake_entity_create(test, gpu);
	c = capture_start(test);
	job[0] = new_job(test);
	job[0]->fail = -EIO;
	job[1] = new_job(test);
	job[1]->nofence = true;
	for (i = 0; i < 2; i++)
		done[i] = push_one(test, e, job[i], NULL);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done[i], false, 10 * HZ), 0);
	capture_stop(c);
	drm_sched_entity_destroy(e);

	for (i = 0; i < 2; i++) {
		u64 ctx = done[i]->context, seqno = done[i]->seqno;

		KUNIT_EXPECT_EQ_MSG(test, count(c->ev, c->n, GRTRACE_EV_COMMIT, ctx, seqno), 1,
				    "job %d", i);
		KUNIT_EXPECT_EQ_MSG(test, count(c->ev, c->n, GRTRACE_EV_END, ctx, seqno), 0,
				    "job %d: END without a hardware fence", i);
		KUNIT_EXPECT_EQ_MSG(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno), 1,
				    "job %d", i);
		cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno);
		if (cpl >= 0)
			KUNIT_EXPECT_EQ(test, c->ev[cpl].job.status, i ? 0 : -EIO);
		dma_fence_put(done[i]);
	}
	fake_gpu_destroy(gpu);
}

/*
 * Entity teardown with queued jobs: the first waits for a dependency that
 * has not signalled, the second is behind it.  Both are killed (-ESRCH)
 * once the dependency signals:
 * each gets exactly one COMPLETE and no COMMIT or END, and the wait the
 * first one entered is closed by one SYNC_WAIT_EXIT.
 */
static void grtrace_sched_test_kill(struct kunit *test)
{
	struct drm_sched_entity *e;
	struct hw_fence *dep = kzalloc_obj(*dep);
	struct dma_fence *done[2];
	struct fake_gpu *gpu;
	struct capture *c;
	int i, tries, ext;

	KUNIT_ASSERT_NOT_NULL(test, dep);
	spin_lock_init(&dep->lock);
	dma_fence_init(&dep->base, &hw_fence_ops, &dep->lock,
		       dma_fence_context_alloc(1), 1);

	gpu = fake_gpu_create(test, "gfx_kill", MAX_SCHEDULE_TIMEOUT);
	e = fake_entity_create(test, gpu);
	c = capture_start(test);
	done[0] = push_one(test, e, new_job(test), dma_fence_get(&dep->base));
	done[1] = push_one(test, e, new_job(test), NULL);

	/* The scheduler found the first job's dependency. */
	for (tries = 0; tries < 250; tries++) {
		if (find(c->ev, READ_ONCE(c->n), GRTRACE_EV_SYNC_WAIT_ENTER,
			 done[0]->context, done[0]->seqno) >= 0)
			break;
		msleep(20);
	}
	drm_sched_entity_fini(e);
	/*
	 * The entity's callback is gone; the killed job still waits for its
	 * dependencies before its fence is signalled.
	 */
	dma_fence_signal(&dep->base);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done[i], false, 10 * HZ), 0);
	capture_stop(c);

	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_SYNC_WAIT_ENTER,
				    done[0]->context, done[0]->seqno), 1);
	KUNIT_EXPECT_EQ_MSG(test, count(c->ev, c->n, GRTRACE_EV_SYNC_WAIT_EXIT,
					done[0]->context, done[0]->seqno), 1,
			    "the abandoned wait is closed once");
	ext = find(c->ev, c->n, GRTRACE_EV_SYNC_WAIT_EXIT, done[0]->context,
		   done[0]->seqno);
	if (ext >= 0) {
		/* Ended when the dependency signalled, before the job was. */
		KUNIT_EXPECT_EQ(test, c->ev[ext].job.status, 0);
		KUNIT_EXPECT_LT(test, ext, find(c->ev, c->n, GRTRACE_EV_COMPLETE,
						done[0]->context, done[0]->seqno));
		KUNIT_EXPECT_EQ(test, c->ev[ext].job.aux_context, dep->base.context);
		KUNIT_EXPECT_EQ(test, c->ev[ext].job.aux_seqno, 1);
		KUNIT_EXPECT_EQ(test, c->ev[ext].job.ring_id,
				grtrace_ring_last_id(grtrace_sched_ring(&gpu->sched)));
	}
	for (i = 0; i < 2; i++) {
		u64 ctx = done[i]->context, seqno = done[i]->seqno;
		int cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno);

		KUNIT_EXPECT_EQ(test, done[i]->error, -ESRCH);
		KUNIT_EXPECT_EQ_MSG(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, ctx, seqno), 1,
				    "killed job %d", i);
		if (cpl >= 0)
			KUNIT_EXPECT_EQ(test, c->ev[cpl].job.status, -ESRCH);
		KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_COMMIT, ctx, seqno), 0);
		KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_END, ctx, seqno), 0);
		dma_fence_put(done[i]);
	}
	dma_fence_put(&dep->base);
	fake_gpu_destroy(gpu);
}

/*
 * A scheduler is a ring named after its device and name, its class guessed
 * from its name, with an id once it reported while events are consumed.
 */
static void grtrace_sched_test_ring(struct kunit *test)
{
	struct fake_gpu *gpu = fake_gpu_create(test, "sdma_kunit", MAX_SCHEDULE_TIMEOUT);
	const struct grtrace_ring *ring;
	struct grtrace_job gj = {};

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	ring = grtrace_sched_ring(&gpu->sched);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	gj.ring = ring;
	grtrace_irq(&gj);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_GE(test, grtrace_ring_last_id(ring), GRTRACE_FIRST_RING_ID);
	KUNIT_EXPECT_EQ(test, ring->engine, GRTRACE_ENGINE_COPY);
	KUNIT_EXPECT_STREQ(test, ring->name, "sdma_kunit");
	KUNIT_EXPECT_STREQ(test, ring->dev, "drm_sched");
	fake_gpu_destroy(gpu);
}

/* Relay records that name ring @id. */
struct ring_seen {
	u32 id;
	int metadata;		/* METADATA records */
	unsigned long metadata_cpus, event_cpus;	/* where they were written */
	int removed;		/* RING_REMOVED records */
	int events;		/* job events */
	char name[32];		/* ring name of the last METADATA */
};

static int ring_one(const struct grtrace_record *rec, void *data)
{
	const struct grtrace_ring_info *ring_info = (const void *)(rec + 1);
	const struct grtrace_job_payload *p = (const void *)(rec + 1);
	struct ring_seen *s = data;

	if (rec->type == GRTRACE_EV_METADATA && ring_info->ring_id == s->id) {
		s->metadata++;
		s->metadata_cpus |= BIT(rec->cpu % BITS_PER_LONG);
		strscpy(s->name, ring_info->name, sizeof(s->name));
	} else if (rec->type == GRTRACE_EV_RING_REMOVED &&
		   ring_info->ring_id == s->id) {
		s->removed++;
	} else if (rec->type < GRTRACE_EV_NR && p->ring_id == s->id) {
		s->events++;
		s->event_cpus |= BIT(rec->cpu % BITS_PER_LONG);
	}
	return 0;
}

/* A fence context no real driver uses: a real GPU may report meanwhile. */
#define MARK_CTX	0x6772747261636500ULL

/* Another driver's fence, whose COMPLETE that driver's own probe reports. */
struct driver_fence {
	struct hw_fence hw;	/* first: the fence's release frees it all */
	struct grtrace_ring ring;
};

static void driver_signaled(void *data, struct dma_fence *fence)
{
	struct driver_fence *d = data;
	struct grtrace_job gj = {
		.ring = &d->ring,
		.fence_context = fence->context,
		.fence_seqno = fence->seqno,
	};

	if (fence == &d->hw.base && grtrace_enabled())
		grtrace_complete(&gj);
}

/*
 * A job waits for another driver's fence, whose COMPLETE that driver's
 * probe on dma_fence_signaled reports, as grtrace's i915 and nouveau
 * modules do: the COMPLETE comes before the end of the wait for it,
 * whichever probe was attached first.
 */
static void grtrace_sched_test_dep_complete_first(struct kunit *test)
{
	struct driver_fence *d = kzalloc(sizeof(*d), GFP_KERNEL);
	struct drm_sched_entity *e;
	struct dma_fence *done;
	struct fake_gpu *gpu;
	struct capture *c;
	int cpl, ext, tries;

	KUNIT_ASSERT_NOT_NULL(test, d);
	spin_lock_init(&d->hw.lock);
	dma_fence_init(&d->hw.base, &hw_fence_ops, &d->hw.lock,
		       dma_fence_context_alloc(1), 1);
	d->ring = (struct grtrace_ring) {
		.dev = "kunit", .name = "other0", .engine = GRTRACE_ENGINE_GRAPHICS,
	};
	grtrace_ring_register(&d->ring);

	gpu = fake_gpu_create(test, "gfx_dep", MAX_SCHEDULE_TIMEOUT);
	e = fake_entity_create(test, gpu);
	c = capture_start(test);
	/* After the scheduler's probes, as a driver's module loaded later */
	KUNIT_ASSERT_EQ(test, register_trace_dma_fence_signaled(driver_signaled, d), 0);
	done = push_one(test, e, new_job(test), dma_fence_get(&d->hw.base));
	for (tries = 0; tries < 250; tries++) {
		if (find(c->ev, READ_ONCE(c->n), GRTRACE_EV_SYNC_WAIT_ENTER,
			 done->context, done->seqno) >= 0)
			break;
		msleep(20);
	}
	dma_fence_signal(&d->hw.base);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(done, false, 10 * HZ), 0);
	unregister_trace_dma_fence_signaled(driver_signaled, d);
	capture_stop(c);
	drm_sched_entity_destroy(e);

	cpl = find(c->ev, c->n, GRTRACE_EV_COMPLETE, d->hw.base.context, 1);
	ext = find(c->ev, c->n, GRTRACE_EV_SYNC_WAIT_EXIT, done->context, done->seqno);
	KUNIT_EXPECT_GE(test, cpl, 0);
	KUNIT_EXPECT_GE(test, ext, 0);
	KUNIT_EXPECT_LT_MSG(test, cpl, ext,
			    "the dependency's COMPLETE before the end of the wait for it");
	dma_fence_put(done);
	grtrace_ring_unregister(&d->ring);
	dma_fence_put(&d->hw.base);
	fake_gpu_destroy(gpu);
}

/*
 * A ring that is not registered yet, as a driver's zeroed ring before
 * grtrace_ring_register() returns, reports nothing: its id is not the id
 * of some other ring.
 */
static void grtrace_sched_test_ring_unregistered(struct kunit *test)
{
	struct grtrace_ring ring = { .dev = "kunit", .name = "unregistered" };
	struct grtrace_job gj = { .ring = &ring, .fence_context = MARK_CTX };
	u64 no_ring[2];
	struct capture *c;

	no_ring[0] = grtrace_no_ring_events();
	c = capture_start(test);
	grtrace_complete(&gj);
	capture_stop(c);
	no_ring[1] = grtrace_no_ring_events();

	KUNIT_EXPECT_EQ(test, count(c->ev, c->n, GRTRACE_EV_COMPLETE, MARK_CTX, 0), 0);
	KUNIT_EXPECT_EQ(test, no_ring[1] - no_ring[0], 1);
	/* Unregistering a ring that never was is allowed, and a no-op. */
	grtrace_ring_unregister(&ring);
}

/*
 * A scheduler torn down in the middle of a session, one created after it
 * with the same name and one with another name: the first two are one
 * ring, with one id and one METADATA on each CPU it reported on (the test
 * may move between its two reports), as their device and name identify
 * them; the third is a new ring.  No ring is said to go away: the ring
 * outlives its schedulers.
 */
static void grtrace_sched_test_ring_removed(struct kunit *test)
{
	struct ring_seen *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct ring_seen *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct fake_gpu *ga, *ga2, *gb;
	struct grtrace_job gj = {};

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);

	ga = fake_gpu_create(test, "gfx_removed", MAX_SCHEDULE_TIMEOUT);
	gj.ring = grtrace_sched_ring(&ga->sched);
	grtrace_irq(&gj);
	a->id = grtrace_ring_last_id(gj.ring);
	fake_gpu_destroy(ga);

	ga2 = fake_gpu_create(test, "gfx_removed", MAX_SCHEDULE_TIMEOUT);
	gj.ring = grtrace_sched_ring(&ga2->sched);
	grtrace_irq(&gj);
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(gj.ring), a->id);
	gb = fake_gpu_create(test, "sdma_added", MAX_SCHEDULE_TIMEOUT);
	gj.ring = grtrace_sched_ring(&gb->sched);
	grtrace_irq(&gj);
	b->id = grtrace_ring_last_id(gj.ring);
	KUNIT_EXPECT_NE(test, b->id, a->id);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	KUNIT_ASSERT_EQ(test, grtrace_walk_records(ring_one, a), 0);
	KUNIT_ASSERT_EQ(test, grtrace_walk_records(ring_one, b), 0);
	KUNIT_EXPECT_EQ(test, a->events, 2);
	KUNIT_EXPECT_EQ(test, a->metadata, (int)hweight_long(a->metadata_cpus));
	KUNIT_EXPECT_EQ(test, a->metadata_cpus, a->event_cpus);
	KUNIT_EXPECT_STREQ(test, a->name, "gfx_removed");
	KUNIT_EXPECT_EQ(test, a->removed, 0);
	KUNIT_EXPECT_EQ(test, b->events, 1);
	KUNIT_EXPECT_EQ(test, b->metadata, 1);
	KUNIT_EXPECT_STREQ(test, b->name, "sdma_added");
	KUNIT_EXPECT_EQ(test, b->removed, 0);

	fake_gpu_destroy(ga2);
	fake_gpu_destroy(gb);
}

#define NR_SCALE_RINGS	3000
#define SCALE_ALIVE	8

/* SUMMARY records of the scale test, per ring. */
struct scale_walk {
	struct grtrace_ring *rings;
	u32 *id;		/* per ring: its id in the session */
	u64 *jobs;		/* per ring: jobs summed over its SUMMARY records */
	u64 *events;		/* per ring: events, likewise */
	u32 *named;		/* per ring: METADATA records naming it right */
};

static int scale_find(const struct scale_walk *w, u32 id)
{
	int lo = 0, hi = NR_SCALE_RINGS - 1;

	/* Ids are given in the order the rings first reported: sorted. */
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (w->id[mid] == id)
			return mid;
		if (w->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static int scale_one(const struct grtrace_record *rec, void *data)
{
	const struct grtrace_summary *sum = (const void *)(rec + 1);
	const struct grtrace_ring_info *ri = (const void *)(rec + 1);
	struct scale_walk *w = data;
	int i;

	if (rec->type == GRTRACE_EV_SUMMARY) {
		/* The guest's own GPU may report meanwhile. */
		i = scale_find(w, sum->ring_id);
		if (i < 0)
			return 0;
		w->jobs[i] += sum->jobs;
		w->events[i] += sum->events;
	} else if (rec->type == GRTRACE_EV_METADATA) {
		i = scale_find(w, ri->ring_id);
		if (i >= 0 && !strcmp(ri->name, w->rings[i].name))
			w->named[i]++;
	}
	return 0;
}

/*
 * Many more rings than the aggregator has slots, SCALE_ALIVE of them alive
 * at a time as with a scheduler per queue, each with one job, while an
 * aggregate_only session runs: every ring gets an id of its own, and the
 * SUMMARY records add up to exactly its job and its events, under the
 * METADATA of its name; the rings whose slot was taken are counted.
 */
static void grtrace_sched_test_ring_scale(struct kunit *test)
{
	struct scale_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	char (*names)[16];
	u64 no_ring, evicted;
	int i, wrong = 0;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->rings = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*w->rings), GFP_KERNEL);
	w->id = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*w->id), GFP_KERNEL);
	w->jobs = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*w->jobs), GFP_KERNEL);
	w->events = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*w->events), GFP_KERNEL);
	w->named = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*w->named), GFP_KERNEL);
	names = kunit_kcalloc(test, NR_SCALE_RINGS, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, w->rings && w->id && w->jobs && w->events &&
			  w->named && names);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=1\n"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(SZ_8M), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	no_ring = grtrace_no_ring_events();

	for (i = 0; i < NR_SCALE_RINGS + SCALE_ALIVE; i++) {
		struct grtrace_job gj = {
			.fence_context = MARK_CTX + i - SCALE_ALIVE,
			.fence_seqno = 1,
		};

		if (i >= SCALE_ALIVE) {
			gj.ring = &w->rings[i - SCALE_ALIVE];
			grtrace_start(&gj);
			grtrace_end(&gj);
			grtrace_complete(&gj);
			grtrace_ring_unregister(&w->rings[i - SCALE_ALIVE]);
		}
		/*
		 * A CPU's aggregates hold 64 rings; the collection a full
		 * table kicks would come in time, or count what it had no
		 * room for: as the window's end does, without waiting on it.
		 */
		if (i % 32 == 0)
			grtrace_govern_collect();
		if (i < NR_SCALE_RINGS) {
			snprintf(names[i], sizeof(names[i]), "q%d", i);
			w->rings[i].dev = "kunit-scale";
			w->rings[i].name = names[i];
			grtrace_ring_register(&w->rings[i]);
			gj.ring = &w->rings[i];
			gj.fence_context = MARK_CTX + i;
			gj.depth = 1;
			grtrace_submit(&gj);
			w->id[i] = grtrace_ring_last_id(&w->rings[i]);
		}
	}
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_no_ring_events(), no_ring);
	evicted = grtrace_govern_evicted();
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=0\n"), 0);

	KUNIT_ASSERT_EQ(test, grtrace_walk_records(scale_one, w), 0);
	for (i = 0; i < NR_SCALE_RINGS; i++) {
		if (i)
			wrong += w->id[i] <= w->id[i - 1];
		wrong += w->jobs[i] != 1 || w->events[i] != 4 || !w->named[i];
		if (wrong == 1)
			KUNIT_FAIL(test, "ring %d (id %u): %llu jobs, %llu events, named %u times",
				   i, w->id[i], w->jobs[i], w->events[i], w->named[i]);
		wrong += wrong == 1;
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_GE(test, w->id[0], GRTRACE_FIRST_RING_ID);
	/* Every ring but the last slots' worth took the slot of one before. */
	KUNIT_EXPECT_GE(test, evicted, NR_SCALE_RINGS - GRTRACE_RING_SLOTS);
}

static struct kunit_case grtrace_sched_test_cases[] = {
	KUNIT_CASE(grtrace_sched_test_ring),
	KUNIT_CASE(grtrace_sched_test_lifecycle),
	KUNIT_CASE(grtrace_sched_test_timeout),
	KUNIT_CASE(grtrace_sched_test_timeout_no_hang),
	KUNIT_CASE(grtrace_sched_test_timeout_cancelled),
	KUNIT_CASE(grtrace_sched_test_flight),
	KUNIT_CASE(grtrace_sched_test_reset_sibling),
	KUNIT_CASE(grtrace_sched_test_timeout_finished),
	KUNIT_CASE(grtrace_sched_test_no_hw_fence),
	KUNIT_CASE(grtrace_sched_test_kill),
	KUNIT_CASE(grtrace_sched_test_dep_complete_first),
	KUNIT_CASE(grtrace_sched_test_ring_unregistered),
	KUNIT_CASE(grtrace_sched_test_ring_removed),
	KUNIT_CASE(grtrace_sched_test_ring_scale),
	{}
};

static struct kunit_suite grtrace_sched_test_suite = {
	.name = "grtrace_drm_sched",
	.init = grtrace_sched_test_init,
	.exit = grtrace_sched_test_exit,
	.test_cases = grtrace_sched_test_cases,
};

kunit_test_suite(grtrace_sched_test_suite);

MODULE_DESCRIPTION("KUnit tests of grtrace on the DRM scheduler's tracepoints");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

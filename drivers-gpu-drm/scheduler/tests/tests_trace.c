// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's trace events as a probe sees them: each fires once per
 * job, for the jobs and with the values its description gives.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <trace/events/dma_fence.h>

#include "sched_tests.h"
#include "../gpu_scheduler_trace.h"

#define TRACE_TEST_MAX 16

enum sched_trace_event {
	SCHED_TRACE_QUEUE,
	SCHED_TRACE_RUN,
	SCHED_TRACE_DONE,
	SCHED_TRACE_ADD_DEP,
	SCHED_TRACE_UNSCHEDULABLE,
	SCHED_TRACE_SIGNALED,
	SCHED_TRACE_ERROR,
	SCHED_TRACE_TIMEDOUT,
};

/**
 * struct sched_trace_rec - one event as a probe saw it
 * @event: enum sched_trace_event
 * @context: the job's finished fence context; 0 for %SCHED_TRACE_SIGNALED
 * @seqno: the job's finished fence seqno; 0 for %SCHED_TRACE_SIGNALED
 * @fence: the fence the event names besides the job's own, or NULL
 * @value: what the test checks of the event, as its probe says
 */
struct sched_trace_rec {
	int event;
	u64 context;
	u64 seqno;
	const struct dma_fence *fence;
	int value;
};

/* What the probes saw of one scheduler's jobs, in order. */
struct sched_trace_seen {
	struct drm_gpu_scheduler *sched;
	struct task_struct *task;
	const struct dma_fence *watch;
	spinlock_t lock; /* the probes may run in the mock's timer interrupt */
	unsigned int count;
	struct sched_trace_rec rec[TRACE_TEST_MAX];
};

static void sched_trace_seen_add(struct sched_trace_seen *seen, int event,
				 const struct dma_fence *job,
				 const struct dma_fence *fence, int value)
{
	unsigned long flags;

	spin_lock_irqsave(&seen->lock, flags);
	if (seen->count < TRACE_TEST_MAX)
		seen->rec[seen->count] = (struct sched_trace_rec) {
			.event = event,
			.context = job ? job->context : 0,
			.seqno = job ? job->seqno : 0,
			.fence = fence,
			.value = value,
		};
	seen->count++;
	spin_unlock_irqrestore(&seen->lock, flags);
}

static void sched_trace_job(struct sched_trace_seen *seen, int event,
			    struct drm_sched_job *job,
			    const struct dma_fence *fence, int value)
{
	if (job->sched == seen->sched)
		sched_trace_seen_add(seen, event, &job->s_fence->finished, fence,
				     value);
}

static void sched_trace_fence(struct sched_trace_seen *seen, int event,
			      struct drm_sched_fence *fence, int value)
{
	if (fence->sched == seen->sched)
		sched_trace_seen_add(seen, event, &fence->finished, NULL,
				     value);
}

/* Queued in the task that pushes the job: the test's. */
static void sched_trace_on_drm_sched_job_queue(void *data,
					       struct drm_sched_job *job,
					       struct drm_sched_entity *entity)
{
	struct sched_trace_seen *seen = data;

	sched_trace_job(seen, SCHED_TRACE_QUEUE, job, NULL, current == seen->task);
}

static void sched_trace_on_drm_sched_job_run(void *data,
					     struct drm_sched_job *job,
					     struct drm_sched_entity *entity)
{
	sched_trace_job(data, SCHED_TRACE_RUN, job, NULL, 0);
}

/* Done with or without a hardware fence. */
static void sched_trace_on_drm_sched_job_done(void *data,
					      struct drm_sched_fence *fence)
{
	sched_trace_fence(data, SCHED_TRACE_DONE, fence,
			  !!READ_ONCE(fence->parent));
}

static void sched_trace_on_drm_sched_job_add_dep(void *data,
						 struct drm_sched_job *job,
						 struct dma_fence *fence)
{
	sched_trace_job(data, SCHED_TRACE_ADD_DEP, job, fence, 0);
}

static void sched_trace_on_drm_sched_job_unschedulable(void *data,
						       struct drm_sched_job *job,
						       struct dma_fence *fence)
{
	sched_trace_job(data, SCHED_TRACE_UNSCHEDULABLE, job, fence, 0);
}

static void sched_trace_on_dma_fence_signaled(void *data,
					      struct dma_fence *fence)
{
	struct sched_trace_seen *seen = data;

	if (fence == READ_ONCE(seen->watch))
		sched_trace_seen_add(seen, SCHED_TRACE_SIGNALED, NULL, fence,
				     fence->error);
}

static void sched_trace_on_drm_sched_job_error(void *data,
					       struct drm_sched_fence *fence)
{
	sched_trace_fence(data, SCHED_TRACE_ERROR, fence,
			  fence->finished.error);
}

/* The verdict, and SCHED_TRACE_WAS_DONE if the job had finished before. */
#define SCHED_TRACE_WAS_DONE	0x100

static void sched_trace_on_drm_sched_job_timedout(void *data,
						  struct drm_sched_fence *fence,
						  enum drm_gpu_sched_stat status,
						  bool done)
{
	sched_trace_fence(data, SCHED_TRACE_TIMEDOUT, fence,
			  status | (done ? SCHED_TRACE_WAS_DONE : 0));
}

/*
 * sched_trace_attach_<event>() attaches sched_trace_on_<event>() for the rest
 * of the test; the probe is detached, and done running, when the test ends.
 */
#define SCHED_TRACE_PROBE(tp)						\
static void sched_trace_detach_##tp(void *data)				\
{									\
	unregister_trace_##tp(sched_trace_on_##tp, data);		\
	tracepoint_synchronize_unregister();				\
}									\
									\
static void sched_trace_attach_##tp(struct kunit *test,			\
				    struct sched_trace_seen *seen)	\
{									\
	int ret = register_trace_##tp(sched_trace_on_##tp, seen);	\
									\
	KUNIT_ASSERT_EQ(test, ret, 0);					\
	ret = kunit_add_action_or_reset(test, sched_trace_detach_##tp,	\
					seen);				\
	KUNIT_ASSERT_EQ(test, ret, 0);					\
}

SCHED_TRACE_PROBE(drm_sched_job_queue)
SCHED_TRACE_PROBE(drm_sched_job_run)
SCHED_TRACE_PROBE(drm_sched_job_done)
SCHED_TRACE_PROBE(drm_sched_job_add_dep)
SCHED_TRACE_PROBE(drm_sched_job_unschedulable)
SCHED_TRACE_PROBE(dma_fence_signaled)
SCHED_TRACE_PROBE(drm_sched_job_error)
SCHED_TRACE_PROBE(drm_sched_job_timedout)

static const char *const sched_trace_names[] = {
	[SCHED_TRACE_QUEUE] = "queue",
	[SCHED_TRACE_RUN] = "run",
	[SCHED_TRACE_DONE] = "done",
	[SCHED_TRACE_ADD_DEP] = "add_dep",
	[SCHED_TRACE_UNSCHEDULABLE] = "unschedulable",
	[SCHED_TRACE_SIGNALED] = "signaled",
	[SCHED_TRACE_ERROR] = "error",
	[SCHED_TRACE_TIMEDOUT] = "timedout",
};

#define SCHED_TRACE_STORY_SIZE 256

/*
 * The events of the job whose finished fence is @job and of the watched
 * fence, in order, as text: a name each, and in brackets the probe's
 * value, or for a dependency whether it is the watched fence.  Allocated
 * for the test.
 */
static const char *sched_trace_story(struct kunit *test,
				     struct sched_trace_seen *seen,
				     const struct dma_fence *job)
{
	char *buf = kunit_kzalloc(test, SCHED_TRACE_STORY_SIZE, GFP_KERNEL);
	size_t len = 0, size = SCHED_TRACE_STORY_SIZE;
	const struct sched_trace_rec *rec;
	unsigned long flags;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	spin_lock_irqsave(&seen->lock, flags);
	for (i = 0; i < min(seen->count, TRACE_TEST_MAX); i++) {
		rec = &seen->rec[i];
		if (rec->event != SCHED_TRACE_SIGNALED &&
		    (rec->context != job->context || rec->seqno != job->seqno))
			continue;
		len += scnprintf(buf + len, size - len, "%s%s", len ? " " : "",
				 sched_trace_names[rec->event]);
		if (rec->event == SCHED_TRACE_ADD_DEP ||
		    rec->event == SCHED_TRACE_UNSCHEDULABLE)
			len += scnprintf(buf + len, size - len, "(%s)",
					 rec->fence == seen->watch ? "watched" : "other");
		else if (rec->event != SCHED_TRACE_RUN)
			len += scnprintf(buf + len, size - len, "(%d)", rec->value);
	}
	if (seen->count > TRACE_TEST_MAX)
		scnprintf(buf + len, size - len, " and more");
	spin_unlock_irqrestore(&seen->lock, flags);

	return buf;
}

static struct sched_trace_seen *
sched_trace_seen_new(struct kunit *test, struct drm_mock_scheduler *sched)
{
	struct sched_trace_seen *seen;

	seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	seen->sched = &sched->base;
	seen->task = current;
	spin_lock_init(&seen->lock);

	return seen;
}

static unsigned int sched_trace_count(struct sched_trace_seen *seen)
{
	unsigned long flags;
	unsigned int count;

	spin_lock_irqsave(&seen->lock, flags);
	count = seen->count;
	spin_unlock_irqrestore(&seen->lock, flags);

	return count;
}

/* Whether @event was seen, waiting for it up to a second. */
static bool sched_trace_wait_event(struct sched_trace_seen *seen, int event)
{
	unsigned long end = jiffies + HZ, flags;
	unsigned int i;
	bool found;

	do {
		found = false;
		spin_lock_irqsave(&seen->lock, flags);
		for (i = 0; i < min(seen->count, TRACE_TEST_MAX); i++)
			found |= seen->rec[i].event == event;
		spin_unlock_irqrestore(&seen->lock, flags);
		if (found)
			return true;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));

	return false;
}

/* Whether a callback waits on @f, waiting for one up to a second. */
static bool sched_trace_wait_callback(struct dma_fence *f)
{
	unsigned long end = jiffies + HZ, flags;
	bool armed;

	do {
		dma_fence_lock_irqsave(f, flags);
		armed = !test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &f->flags) &&
			!list_empty(&f->cb_list);
		dma_fence_unlock_irqrestore(f, flags);
		if (armed)
			return true;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));

	return false;
}

KUNIT_DEFINE_ACTION_WRAPPER(sched_trace_fini, drm_mock_sched_fini,
			    struct drm_mock_scheduler *);

/*
 * Finish @sched when the test ends, also when it fails half way, and
 * before KUnit frees what the test made before this call (it releases in
 * reverse order): the scheduler's workers and timeout use the test's
 * entities and jobs, and must not outlive them.  Called once they are made.
 */
static void sched_trace_fini_at_exit(struct kunit *test,
				     struct drm_mock_scheduler *sched)
{
	int ret = kunit_add_action_or_reset(test, sched_trace_fini, sched);

	KUNIT_ASSERT_EQ(test, ret, 0);
}

/*
 * drm_sched_job_queue fires once per job, in the task that pushes it;
 * drm_sched_job_run once, when the job is handed to run_job(); and
 * drm_sched_job_done once, when the job completed: by its hardware fence,
 * or at once, with no hardware fence, when run_job() failed.
 */
static void drm_sched_trace_job_lifecycle(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct sched_trace_seen *seen = sched_trace_seen_new(test, sched);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *ok, *fails;
	struct dma_fence *f_ok, *f_fails;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	ok = drm_mock_sched_job_new(test, entity);
	fails = drm_mock_sched_job_new(test, entity);
	fails->flags |= DRM_MOCK_SCHED_JOB_RUN_FAILS;
	sched_trace_fini_at_exit(test, sched);

	sched_trace_attach_drm_sched_job_queue(test, seen);
	sched_trace_attach_drm_sched_job_run(test, seen);
	sched_trace_attach_drm_sched_job_done(test, seen);

	f_ok = drm_mock_sched_job_submit_get_finished(ok);
	f_fails = drm_mock_sched_job_submit_get_finished(fails);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_fails, false, HZ), 0);
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, 1), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_ok, false, HZ), 0);

	KUNIT_EXPECT_STREQ(test, sched_trace_story(test, seen, f_ok),
			   "queue(1) run done(1)");
	KUNIT_EXPECT_STREQ(test, sched_trace_story(test, seen, f_fails),
			   "queue(1) run done(0)");
	KUNIT_EXPECT_EQ(test, sched_trace_count(seen), 6);

	dma_fence_put(f_ok);
	dma_fence_put(f_fails);
	drm_mock_sched_entity_free(entity);
	kunit_release_action(test, sched_trace_fini, sched);
}

/*
 * A job whose dependency has not signalled: drm_sched_job_add_dep names the
 * fence when the job is pushed, drm_sched_job_unschedulable when the
 * scheduler finds that the job cannot run yet, and once the job waits
 * for it, the fence's own dma_fence_signaled, which ends the wait, comes
 * before the job runs.  The dependency is a job of another scheduler,
 * waited for by its finished fence.
 */
static void drm_sched_trace_job_dependency(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *other = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct sched_trace_seen *seen = sched_trace_seen_new(test, sched);
	struct drm_mock_sched_entity *entity, *blocker;
	struct drm_mock_sched_job *waits, *blocks;
	struct dma_fence *f_waits, *f_blocks;
	int ret;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	blocker = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, other);
	waits = drm_mock_sched_job_new(test, entity);
	blocks = drm_mock_sched_job_new(test, blocker);
	sched_trace_fini_at_exit(test, sched);
	sched_trace_fini_at_exit(test, other);

	f_blocks = drm_mock_sched_job_submit_get_finished(blocks);
	WRITE_ONCE(seen->watch, f_blocks);
	sched_trace_attach_drm_sched_job_queue(test, seen);
	sched_trace_attach_drm_sched_job_run(test, seen);
	sched_trace_attach_drm_sched_job_done(test, seen);
	sched_trace_attach_drm_sched_job_add_dep(test, seen);
	sched_trace_attach_drm_sched_job_unschedulable(test, seen);
	sched_trace_attach_dma_fence_signaled(test, seen);

	ret = drm_sched_job_add_dependency(&waits->base, dma_fence_get(f_blocks));
	KUNIT_ASSERT_EQ(test, ret, 0);
	f_waits = drm_mock_sched_job_submit_get_finished(waits);
	KUNIT_ASSERT_TRUE(test, sched_trace_wait_event(seen, SCHED_TRACE_UNSCHEDULABLE));
	/*
	 * The job waits once the scheduler's callback is on the fence: had
	 * the fence signalled between the event and the callback, the job
	 * would run at once, not wait, and could run before the signal's
	 * event.
	 */
	KUNIT_ASSERT_TRUE(test, sched_trace_wait_callback(f_blocks));
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(blocks, HZ));
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(other, 1), 1);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(waits, HZ));
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, 1), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_waits, false, HZ), 0);

	KUNIT_EXPECT_STREQ(test, sched_trace_story(test, seen, f_waits),
			   "queue(1) add_dep(watched) unschedulable(watched) signaled(0) run done(1)");

	WRITE_ONCE(seen->watch, NULL);
	dma_fence_put(f_waits);
	dma_fence_put(f_blocks);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_entity_free(blocker);
	kunit_release_action(test, sched_trace_fini, other);
	kunit_release_action(test, sched_trace_fini, sched);
}

/*
 * drm_sched_job_error fires once for each job whose finished fence signals
 * with an error, with that error: one whose run_job() fails (-EIO), and one
 * killed with its entity before it ran (-ESRCH, and no drm_sched_job_done).
 * A job that completes without an error is not reported.
 *
 * The killed job waits for a job of another scheduler, so that it cannot
 * run before its entity is torn down.  drm_mock_sched_entity_free() would
 * wait for its queue to drain; drm_sched_entity_fini() kills it, as for a
 * process that is killed.
 */
static void drm_sched_trace_job_error(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *other = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity, *killed, *blocker;
	struct drm_mock_sched_job *ok, *fails, *waits, *blocks;
	struct dma_fence *f_ok, *f_fails, *f_waits, *f_blocks;
	struct sched_trace_seen *seen = sched_trace_seen_new(test, sched);
	int ret;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	killed = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	blocker = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, other);
	ok = drm_mock_sched_job_new(test, entity);
	fails = drm_mock_sched_job_new(test, entity);
	fails->flags |= DRM_MOCK_SCHED_JOB_RUN_FAILS;
	waits = drm_mock_sched_job_new(test, killed);
	blocks = drm_mock_sched_job_new(test, blocker);
	sched_trace_fini_at_exit(test, sched);
	sched_trace_fini_at_exit(test, other);

	sched_trace_attach_drm_sched_job_error(test, seen);

	f_blocks = drm_mock_sched_job_submit_get_finished(blocks);
	ret = drm_sched_job_add_dependency(&waits->base, dma_fence_get(f_blocks));
	KUNIT_ASSERT_EQ(test, ret, 0);
	f_waits = drm_mock_sched_job_submit_get_finished(waits);
	f_ok = drm_mock_sched_job_submit_get_finished(ok);
	f_fails = drm_mock_sched_job_submit_get_finished(fails);

	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_fails, false, HZ), 0);
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, 1), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_ok, false, HZ), 0);
	KUNIT_EXPECT_EQ(test, sched_trace_count(seen), 1);

	drm_sched_entity_fini(&killed->base);
	/* A killed job still waits for its dependencies to signal. */
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(blocks, HZ));
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(other, 1), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_waits, false, HZ), 0);
	/* The killed job is freed after its fence signalled, by its work. */
	flush_work(&waits->base.work);

	KUNIT_EXPECT_EQ(test, f_ok->error, 0);
	KUNIT_EXPECT_EQ(test, f_fails->error, -EIO);
	KUNIT_EXPECT_EQ(test, f_waits->error, -ESRCH);
	KUNIT_EXPECT_EQ(test, sched_trace_count(seen), 2);
	KUNIT_EXPECT_STREQ(test, sched_trace_story(test, seen, f_fails), "error(-5)");
	KUNIT_EXPECT_STREQ(test, sched_trace_story(test, seen, f_waits), "error(-3)");

	dma_fence_put(f_ok);
	dma_fence_put(f_fails);
	dma_fence_put(f_waits);
	dma_fence_put(f_blocks);
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_entity_free(blocker);
	/* Finished before KUnit frees the jobs, which its free_job() uses. */
	kunit_release_action(test, sched_trace_fini, other);
	kunit_release_action(test, sched_trace_fini, sched);
}

#define MOCK_TIMEOUT (HZ / 5)

/*
 * The count once it reached @count, or after a second: the event of a
 * timedout_job() that signalled the fence waited for fires after it.
 */
static unsigned int sched_trace_wait_count(struct sched_trace_seen *seen,
					   unsigned int count)
{
	unsigned long end = jiffies + HZ;

	while (sched_trace_count(seen) < count && time_before(jiffies, end))
		usleep_range(1000, 2000);

	return sched_trace_count(seen);
}

/*
 * drm_sched_job_timedout gives the verdict of each call of timedout_job():
 * once "reset" for a job that hung, after which the mock scheduler has
 * cleaned it up and cleared its s_fence; and "no_hang" at each expiry for
 * a job that still runs, until it completes.  Neither job was done when
 * its timeout was handled, but for an expiry handled as the slow job ends.
 */
static void drm_sched_trace_job_timedout(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MOCK_TIMEOUT);
	struct sched_trace_seen *seen = sched_trace_seen_new(test, sched);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *hangs, *slow;
	struct dma_fence *f_hangs, *f_slow;
	unsigned int i, count, before;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	hangs = drm_mock_sched_job_new(test, entity);
	slow = drm_mock_sched_job_new(test, entity);
	slow->flags |= DRM_MOCK_SCHED_JOB_DONT_RESET;
	sched_trace_fini_at_exit(test, sched);

	sched_trace_attach_drm_sched_job_timedout(test, seen);

	f_hangs = drm_mock_sched_job_submit_get_finished(hangs);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_hangs, false, 4 * MOCK_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, f_hangs->error, -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, sched_trace_wait_count(seen, 1), 1);
	KUNIT_EXPECT_EQ(test, seen->rec[0].seqno, f_hangs->seqno);
	KUNIT_EXPECT_EQ(test, seen->rec[0].value, DRM_GPU_SCHED_STAT_RESET);

	f_slow = drm_mock_sched_job_submit_get_finished(slow);
	KUNIT_ASSERT_EQ(test, dma_fence_wait_timeout(f_slow, false, 3 * MOCK_TIMEOUT), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(slow->flags) & DRM_MOCK_SCHED_JOB_RESET_SKIPPED);
	/*
	 * The hung job took the mock timeline's first seqno.  An expiry
	 * handled once the job ended sees it done: it is recorded after
	 * the records counted here.
	 */
	before = sched_trace_count(seen);
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, 2), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_slow, false, HZ), 0);
	KUNIT_EXPECT_EQ(test, f_slow->error, 0);

	count = sched_trace_wait_count(seen, 2);
	KUNIT_EXPECT_GE(test, count, 2);
	for (i = 1; i < min(count, TRACE_TEST_MAX); i++) {
		KUNIT_EXPECT_EQ(test, seen->rec[i].seqno, f_slow->seqno);
		KUNIT_EXPECT_EQ(test, seen->rec[i].value &
				~(i >= before ? SCHED_TRACE_WAS_DONE : 0),
				DRM_GPU_SCHED_STAT_NO_HANG);
	}

	dma_fence_put(f_hangs);
	dma_fence_put(f_slow);
	drm_mock_sched_entity_free(entity);
	kunit_release_action(test, sched_trace_fini, sched);
}

static struct kunit_case drm_sched_trace_tests[] = {
	KUNIT_CASE(drm_sched_trace_job_lifecycle),
	KUNIT_CASE(drm_sched_trace_job_dependency),
	KUNIT_CASE(drm_sched_trace_job_error),
	KUNIT_CASE(drm_sched_trace_job_timedout),
	{}
};

static struct kunit_suite drm_sched_trace = {
	.name = "drm_sched_trace_tests",
	.test_cases = drm_sched_trace_tests,
};

kunit_test_suite(drm_sched_trace);

// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's trace events as a probe sees them: each fires once per
 * job, for the jobs and with the values its description gives.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "sched_tests.h"
#include "../gpu_scheduler_trace.h"

#define TRACE_TEST_MAX 8

/* What the probes saw of one scheduler's jobs, in order. */
struct sched_trace_seen {
	struct drm_gpu_scheduler *sched;
	spinlock_t lock; /* the probes may run in the mock's timer interrupt */
	unsigned int count;
	u64 seqno[TRACE_TEST_MAX];
	int value[TRACE_TEST_MAX];
};

static void sched_trace_seen_add(struct sched_trace_seen *seen, u64 seqno,
				 int value)
{
	unsigned long flags;

	spin_lock_irqsave(&seen->lock, flags);
	if (seen->count < TRACE_TEST_MAX) {
		seen->seqno[seen->count] = seqno;
		seen->value[seen->count] = value;
	}
	seen->count++;
	spin_unlock_irqrestore(&seen->lock, flags);
}

static void sched_trace_job_error(void *data, struct drm_sched_fence *fence)
{
	struct sched_trace_seen *seen = data;

	if (fence->sched == seen->sched)
		sched_trace_seen_add(seen, fence->finished.seqno,
				     fence->finished.error);
}

static void sched_trace_unregister_job_error(void *data)
{
	unregister_trace_drm_sched_job_error(sched_trace_job_error, data);
	tracepoint_synchronize_unregister();
}

static void sched_trace_job_timedout(void *data, struct drm_sched_fence *fence,
				     enum drm_gpu_sched_stat status)
{
	struct sched_trace_seen *seen = data;

	if (fence->sched == seen->sched)
		sched_trace_seen_add(seen, fence->finished.seqno, status);
}

static void sched_trace_unregister_job_timedout(void *data)
{
	unregister_trace_drm_sched_job_timedout(sched_trace_job_timedout, data);
	tracepoint_synchronize_unregister();
}

static struct sched_trace_seen *
sched_trace_seen_new(struct kunit *test, struct drm_mock_scheduler *sched)
{
	struct sched_trace_seen *seen;

	seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	seen->sched = &sched->base;
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

KUNIT_DEFINE_ACTION_WRAPPER(sched_trace_fini, drm_mock_sched_fini,
			    struct drm_mock_scheduler *);

/*
 * A mock scheduler finished when the test ends, also when it fails half
 * way: its timeout work must not outlive it.
 */
static struct drm_mock_scheduler *
sched_trace_sched_new(struct kunit *test, long timeout)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, timeout);
	int ret;

	ret = kunit_add_action_or_reset(test, sched_trace_fini, sched);
	KUNIT_ASSERT_EQ(test, ret, 0);

	return sched;
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
	struct drm_mock_scheduler *sched = sched_trace_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *other = sched_trace_sched_new(test, MAX_SCHEDULE_TIMEOUT);
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

	ret = register_trace_drm_sched_job_error(sched_trace_job_error, seen);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, sched_trace_unregister_job_error, seen);
	KUNIT_ASSERT_EQ(test, ret, 0);

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
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(other, 1), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_waits, false, HZ), 0);
	/* The killed job is freed after its fence signalled, by its work. */
	flush_work(&waits->base.work);

	KUNIT_EXPECT_EQ(test, f_ok->error, 0);
	KUNIT_EXPECT_EQ(test, f_fails->error, -EIO);
	KUNIT_EXPECT_EQ(test, f_waits->error, -ESRCH);
	KUNIT_ASSERT_EQ(test, sched_trace_count(seen), 2);
	KUNIT_EXPECT_EQ(test, seen->seqno[0], f_fails->seqno);
	KUNIT_EXPECT_EQ(test, seen->value[0], -EIO);
	KUNIT_EXPECT_EQ(test, seen->seqno[1], f_waits->seqno);
	KUNIT_EXPECT_EQ(test, seen->value[1], -ESRCH);

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
 * a job that still runs, until it completes.
 */
static void drm_sched_trace_job_timedout(struct kunit *test)
{
	struct drm_mock_scheduler *sched = sched_trace_sched_new(test, MOCK_TIMEOUT);
	struct sched_trace_seen *seen = sched_trace_seen_new(test, sched);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *hangs, *slow;
	struct dma_fence *f_hangs, *f_slow;
	unsigned int i, count;
	int ret;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	hangs = drm_mock_sched_job_new(test, entity);
	slow = drm_mock_sched_job_new(test, entity);
	slow->flags |= DRM_MOCK_SCHED_JOB_DONT_RESET;

	ret = register_trace_drm_sched_job_timedout(sched_trace_job_timedout, seen);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, sched_trace_unregister_job_timedout, seen);
	KUNIT_ASSERT_EQ(test, ret, 0);

	f_hangs = drm_mock_sched_job_submit_get_finished(hangs);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_hangs, false, 4 * MOCK_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, f_hangs->error, -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, sched_trace_wait_count(seen, 1), 1);
	KUNIT_EXPECT_EQ(test, seen->seqno[0], f_hangs->seqno);
	KUNIT_EXPECT_EQ(test, seen->value[0], DRM_GPU_SCHED_STAT_RESET);

	f_slow = drm_mock_sched_job_submit_get_finished(slow);
	KUNIT_ASSERT_EQ(test, dma_fence_wait_timeout(f_slow, false, 3 * MOCK_TIMEOUT), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(slow->flags) & DRM_MOCK_SCHED_JOB_RESET_SKIPPED);
	/* The hung job took the mock timeline's first seqno. */
	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, 2), 1);
	KUNIT_ASSERT_GT(test, dma_fence_wait_timeout(f_slow, false, HZ), 0);
	KUNIT_EXPECT_EQ(test, f_slow->error, 0);

	count = sched_trace_count(seen);
	KUNIT_EXPECT_GE(test, count, 2);
	for (i = 1; i < min(count, TRACE_TEST_MAX); i++) {
		KUNIT_EXPECT_EQ(test, seen->seqno[i], f_slow->seqno);
		KUNIT_EXPECT_EQ(test, seen->value[i], DRM_GPU_SCHED_STAT_NO_HANG);
	}

	dma_fence_put(f_hangs);
	dma_fence_put(f_slow);
	drm_mock_sched_entity_free(entity);
	kunit_release_action(test, sched_trace_fini, sched);
}

static struct kunit_case drm_sched_trace_tests[] = {
	KUNIT_CASE(drm_sched_trace_job_error),
	KUNIT_CASE(drm_sched_trace_job_timedout),
	{}
};

static struct kunit_suite drm_sched_trace = {
	.name = "drm_sched_trace_tests",
	.test_cases = drm_sched_trace_tests,
};

kunit_test_suite(drm_sched_trace);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the grtrace core: record encoding, ordering, drop
 * accounting, hard-IRQ emission and the independence of the two sinks.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <trace/events/grtrace.h>

#include "../grtrace_internal.h"

#define MAX_RECS 4096

struct rec_copy {
	struct grtrace_record hdr;
	union {
		struct grtrace_job_payload job;
		struct grtrace_stream_info si;
		struct grtrace_ring_info ri;
		struct grtrace_summary sum;
	};
};

struct collect {
	struct rec_copy *recs;
	int n;
};

static int collect_one(const struct grtrace_record *rec, void *data)
{
	struct collect *c = data;
	struct rec_copy *r;

	if (c->n >= MAX_RECS)
		return -ENOSPC;
	r = &c->recs[c->n++];
	memset(r, 0, sizeof(*r));
	memcpy(r, rec, min_t(size_t, rec->size, sizeof(*r)));
	return 0;
}

static int cmp_gseq(const void *a, const void *b)
{
	const struct rec_copy *x = a, *y = b;

	return x->hdr.gseq < y->hdr.gseq ? -1 : x->hdr.gseq > y->hdr.gseq;
}

KUNIT_DEFINE_ACTION_WRAPPER(vfree_action, vfree, const void *);

static struct collect *collect_alloc(struct kunit *test)
{
	struct collect *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->recs = vzalloc(MAX_RECS * sizeof(*c->recs));
	KUNIT_ASSERT_NOT_NULL(test, c->recs);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, c->recs), 0);
	return c;
}

/* (Re)fill @c with all records of the stopped session, in gseq order. */
static void collect_into(struct kunit *test, struct collect *c)
{
	c->n = 0;
	KUNIT_ASSERT_EQ(test, grtrace_walk_records(collect_one, c), 0);
	sort(c->recs, c->n, sizeof(*c->recs), cmp_gseq, NULL);
}

/* Collect all records of the stopped session, in gseq order. */
static struct collect *collect(struct kunit *test)
{
	struct collect *c = collect_alloc(test);

	collect_into(test, c);
	return c;
}

/* Job records of @type on ring @ring_id; other rings may be busy meanwhile. */
static int count_type(struct collect *c, u16 type, u32 ring_id)
{
	int i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->recs[i].hdr.type == type && c->recs[i].job.ring_id == ring_id;
	return n;
}

static struct rec_copy *find_type(struct collect *c, u16 type, u32 ring_id)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->recs[i].hdr.type == type && c->recs[i].job.ring_id == ring_id)
			return &c->recs[i];
	return NULL;
}

/*
 * A test ring of a fixed id, as the emit file's: its id is known before it
 * reports, for the settings that name it.
 */
#define TEST_RING_ID	(GRTRACE_FIRST_RING_ID - 1)

static struct grtrace_ring test_ring = {
	.dev = "kunit-gpu",
	.name = "copy0",
	.engine = GRTRACE_ENGINE_COPY,
};

/*
 * The cases start and stop grtrace's one session: beside a session they did
 * not start they skip, and the exit leaves it alone.  A session started
 * while a case runs is not told apart from the case's own.
 */
static bool grtrace_test_owns;

static int grtrace_test_init(struct kunit *test)
{
	if (grtrace_session_running())
		kunit_skip(test, "a grtrace session is running");
	grtrace_test_owns = true;
	grtrace_ring_init_fixed(&test_ring, TEST_RING_ID);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("level=normal\nfilter_type_mask=0x3ff\n"
						   "filter_engine_mask=0x3f\nfilter_ring_id=-1\n"
						   "reset_stats=1\n"), 0);
	return 0;
}

static void grtrace_test_exit(struct kunit *test)
{
	if (!grtrace_test_owns)
		return;
	grtrace_test_owns = false;
	if (grtrace_session_running())
		grtrace_session_stop();
	grtrace_set_buffer_size(SZ_4M);
	grtrace_config_write("level=normal\nfilter_type_mask=0x3ff\n"
			     "filter_engine_mask=0x3f\nfilter_ring_id=-1\nreset_stats=1\n");
}

/* For the cases that inject their events through emit */
static void needs_emit(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_GRTRACE_EMIT))
		kunit_skip(test, "CONFIG_GRTRACE_EMIT is not set");
}

static int grtrace_config_ring(u32 ring_id)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "filter_ring_id=%u", ring_id);
	return grtrace_config_write(buf);
}

static void grtrace_test_job(struct grtrace_job *job, u64 seqno)
{
	*job = (struct grtrace_job) {
		.ring = &test_ring,
		.ctx_id = 7,
		.fence_context = 11,
		.fence_seqno = seqno,
		.depth = 3,
	};
}

/* A SUBMIT and a COMPLETE are encoded field by field as documented. */
static void grtrace_test_encoding(struct kunit *test)
{
	struct grtrace_job job;
	struct rec_copy *r;
	struct collect *c;

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	grtrace_test_job(&job, 22);
	grtrace_submit(&job);
	job.status = -EIO;
	grtrace_complete(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	KUNIT_ASSERT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, TEST_RING_ID), 1);
	KUNIT_ASSERT_EQ(test, count_type(c, GRTRACE_EV_COMPLETE, TEST_RING_ID), 1);

	r = find_type(c, GRTRACE_EV_SUBMIT, TEST_RING_ID);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->hdr.size,
			sizeof(struct grtrace_record) + sizeof(struct grtrace_job_payload));
	KUNIT_EXPECT_EQ(test, r->hdr.size % 8, 0);
	KUNIT_EXPECT_EQ(test, r->job.ctx_id, 7);
	KUNIT_EXPECT_EQ(test, r->job.fence_context, 11);
	KUNIT_EXPECT_EQ(test, r->job.fence_seqno, 22);
	KUNIT_EXPECT_EQ(test, r->job.ring_id, TEST_RING_ID);
	KUNIT_EXPECT_EQ(test, r->job.engine, GRTRACE_ENGINE_COPY);
	KUNIT_EXPECT_EQ(test, r->job.depth, 3);
	KUNIT_EXPECT_EQ(test, r->job.pid, task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, r->job.tgid, task_tgid_nr(current));
	KUNIT_EXPECT_STREQ(test, r->job.comm, current->comm);

	r = find_type(c, GRTRACE_EV_COMPLETE, TEST_RING_ID);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->job.status, -EIO);
	/* Nothing of the SUBMIT before it, built in the same stack slot */
	KUNIT_EXPECT_EQ(test, r->job.pid, 0);
	KUNIT_EXPECT_EQ(test, r->job.tgid, 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(r->job.comm, 0, sizeof(r->job.comm)));
	KUNIT_EXPECT_GT(test, r->hdr.gseq, find_type(c, GRTRACE_EV_SUBMIT, TEST_RING_ID)->hdr.gseq);
	KUNIT_EXPECT_GE(test, r->hdr.ts, find_type(c, GRTRACE_EV_SUBMIT, TEST_RING_ID)->hdr.ts);
}

/*
 * A wait reported before its job has a fence (virtio-gpu's in-fences) is
 * recorded with the ring, context, dependency and the waiting task, which
 * reports it; a wait reported by anyone else names no task.
 */
static void grtrace_test_jobless_wait(struct kunit *test)
{
	struct grtrace_job job = {
		.ring = &test_ring,
		.ctx_id = 5,
		.aux_context = 99,
		.aux_seqno = 3,
		.waiter = true,
	};
	struct rec_copy *r;
	struct collect *c;

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	grtrace_sync_wait_enter(&job);
	job.status = -ERESTARTSYS;
	grtrace_sync_wait_exit(&job);
	job.waiter = false;
	job.ctx_id = 6;
	grtrace_sync_wait_enter(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	r = find_type(c, GRTRACE_EV_SYNC_WAIT_ENTER, TEST_RING_ID);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->job.fence_context, 0);
	KUNIT_EXPECT_EQ(test, r->job.ctx_id, 5);
	KUNIT_EXPECT_EQ(test, r->job.aux_context, 99);
	KUNIT_EXPECT_EQ(test, r->job.aux_seqno, 3);
	KUNIT_EXPECT_EQ(test, r->job.pid, task_pid_nr(current));
	KUNIT_EXPECT_STREQ(test, r->job.comm, current->comm);
	r = find_type(c, GRTRACE_EV_SYNC_WAIT_EXIT, TEST_RING_ID);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->job.status, -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, r->job.tgid, task_tgid_nr(current));
	KUNIT_ASSERT_EQ(test, count_type(c, GRTRACE_EV_SYNC_WAIT_ENTER, TEST_RING_ID), 2);
	r = find_type(c, GRTRACE_EV_SYNC_WAIT_ENTER, TEST_RING_ID) + 1;
	while (r->hdr.type != GRTRACE_EV_SYNC_WAIT_ENTER || r->job.ring_id != TEST_RING_ID)
		r++;
	KUNIT_EXPECT_EQ(test, r->job.ctx_id, 6);
	KUNIT_EXPECT_EQ(test, r->job.pid, 0);
	KUNIT_EXPECT_EQ(test, r->job.tgid, 0);
	KUNIT_EXPECT_STREQ(test, r->job.comm, "");
}

/*
 * A task's waits before its jobs exist are governed as its jobs are: a
 * pid filter keeps those of the processes it names, and sampling keeps or
 * drops a wait's ENTER and EXIT together.
 */
static void grtrace_test_task_wait_governed(struct kunit *test)
{
	struct grtrace_job job = {
		.ring = &test_ring,
		.ctx_id = 5,
		.aux_context = 77,
		.waiter = true,
	};
	int i, j, kept = 0, split = 0;
	bool seen[2][101];
	struct collect *c;
	char cfg[64];

	snprintf(cfg, sizeof(cfg), "filter_enabled=1\nfilter_pid=%d",
		 task_tgid_nr(current));
	KUNIT_ASSERT_EQ(test, grtrace_config_write(cfg), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	grtrace_sync_wait_enter(&job);
	grtrace_sync_wait_exit(&job);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("filter_pid=1"), 0);
	grtrace_sync_wait_enter(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SYNC_WAIT_ENTER, TEST_RING_ID), 1);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SYNC_WAIT_EXIT, TEST_RING_ID), 1);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("filter_enabled=0\nfilter_pid=none\n"
						   "sample=33"), 0);

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	for (i = 1; i <= 100; i++) {
		job.aux_seqno = i;
		grtrace_sync_wait_enter(&job);
		grtrace_sync_wait_exit(&job);
	}
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("sample=100"), 0);
	memset(seen, 0, sizeof(seen));
	c = collect(test);
	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i];

		if (r->job.ring_id != TEST_RING_ID || r->job.aux_context != 77 ||
		    r->job.aux_seqno > 100)
			continue;
		if (r->hdr.type == GRTRACE_EV_SYNC_WAIT_ENTER)
			seen[0][r->job.aux_seqno] = true;
		else if (r->hdr.type == GRTRACE_EV_SYNC_WAIT_EXIT)
			seen[1][r->job.aux_seqno] = true;
	}
	for (j = 1; j <= 100; j++) {
		kept += seen[0][j] && seen[1][j];
		split += seen[0][j] != seen[1][j];
	}
	KUNIT_EXPECT_EQ(test, split, 0);
	KUNIT_EXPECT_EQ(test, kept, 33);
}

/*
 * STREAM_INFO first, then one METADATA per ring that had an id, then
 * events, each ring's first one after a METADATA of the ring.  How many
 * rings had an id is what the header says: a ring that reports while the
 * session starts (virtio-gpu's, in a guest whose console draws) gets one
 * before the header is written.  grtrace_test_header_epoch checks that
 * the header names a ring that had one.
 */
static void grtrace_test_header(struct kunit *test)
{
	struct grtrace_job job;
	struct collect *c;
	int i, rings;
	bool seen_ring = false;

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	grtrace_test_job(&job, 1);
	grtrace_commit(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	KUNIT_ASSERT_GE(test, c->n, 2);
	KUNIT_ASSERT_EQ(test, c->recs[0].hdr.type, GRTRACE_EV_STREAM_INFO);
	rings = c->recs[0].si.nr_rings;
	KUNIT_ASSERT_GE(test, c->n, 1 + rings + 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].hdr.gseq, 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].si.magic, GRTRACE_MAGIC);
	KUNIT_EXPECT_EQ(test, c->recs[0].si.version, GRTRACE_FORMAT_VERSION);
	KUNIT_EXPECT_EQ(test, c->recs[0].si.record_size, sizeof(struct grtrace_record));
	KUNIT_EXPECT_EQ(test, c->recs[0].si.clock_id, GRTRACE_CLOCK_MONOTONIC);
	for (i = 1; i <= rings; i++)
		KUNIT_EXPECT_EQ(test, c->recs[i].hdr.type, GRTRACE_EV_METADATA);
	for (i = 1; i < c->n; i++) {
		if (c->recs[i].hdr.type == GRTRACE_EV_COMMIT &&
		    c->recs[i].job.ring_id == TEST_RING_ID)
			break;
		if (c->recs[i].hdr.type == GRTRACE_EV_METADATA &&
		    c->recs[i].ri.ring_id == TEST_RING_ID) {
			seen_ring = true;
			KUNIT_EXPECT_STREQ(test, c->recs[i].ri.dev, "kunit-gpu");
			KUNIT_EXPECT_STREQ(test, c->recs[i].ri.name, "copy0");
			KUNIT_EXPECT_EQ(test, c->recs[i].ri.engine, GRTRACE_ENGINE_COPY);
			KUNIT_EXPECT_EQ(test, c->recs[i].ri.flags, 0);
		}
	}
	KUNIT_EXPECT_TRUE(test, seen_ring);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_COMMIT, TEST_RING_ID), 1);
}

/* A consumer of the events other than the session's, as an ftrace instance */
static bool other_consumer_on;

static void other_consumer(void *data, const struct grtrace_event *ev)
{
}

static void other_consumer_goes(void *unused)
{
	if (!other_consumer_on)
		return;
	other_consumer_on = false;
	unregister_trace_grtrace_submit(other_consumer, NULL);
	tracepoint_synchronize_unregister();
}

/* grtrace_stream_start(), and then the other consumer goes */
static int stream_start_then_consumer_goes(bool flight_recorder)
{
	int ret;

	kunit_deactivate_static_stub(kunit_get_current_test(), grtrace_stream_start);
	ret = grtrace_stream_start(flight_recorder);
	other_consumer_goes(NULL);
	return ret;
}

static void ring_unregister_action(void *ring)
{
	grtrace_ring_unregister(ring);
}

static const char * const test_ring_names[] = { "gfx0", "gfx1" };

/* Two rings of kunit-gpu, unregistered when the test ends. */
static struct grtrace_ring *test_rings(struct kunit *test, u16 engine)
{
	struct grtrace_ring *rings;
	int i;

	rings = kunit_kcalloc(test, ARRAY_SIZE(test_ring_names), sizeof(*rings), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rings);
	for (i = 0; i < ARRAY_SIZE(test_ring_names); i++) {
		rings[i] = (struct grtrace_ring) {
			.dev = "kunit-gpu", .name = test_ring_names[i], .engine = engine,
		};
		grtrace_ring_register(&rings[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ring_unregister_action,
								&rings[i]), 0);
	}
	return rings;
}

/* The ring a METADATA of @c names @id, or NULL */
static const struct rec_copy *ring_of(struct kunit *test, struct collect *c, u32 id)
{
	const struct rec_copy *found = NULL;
	int i;

	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i];

		if (r->hdr.type != GRTRACE_EV_METADATA || r->ri.ring_id != id)
			continue;
		if (found)
			KUNIT_EXPECT_TRUE_MSG(test, !strcmp(found->ri.dev, r->ri.dev) &&
					      !strcmp(found->ri.name, r->ri.name),
					      "ring id %u is %s/%s and %s/%s", id,
					      found->ri.dev, found->ri.name, r->ri.dev, r->ri.name);
		found = r;
	}
	return found;
}

/*
 * The ring ids the header names stay the session's: a ring that first
 * reports after the last other consumer went, while the session started,
 * gets an id of its own, not one the header gave another ring.
 */
static void grtrace_test_header_epoch(struct kunit *test)
{
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 21 };
	struct grtrace_ring *rings;
	struct collect *c;
	bool named = false;
	int i, n = 0, header;

	if (grtrace_enabled())
		kunit_skip(test, "grtrace events have a consumer already");
	rings = test_rings(test, GRTRACE_ENGINE_GRAPHICS);
	KUNIT_ASSERT_EQ(test, register_trace_grtrace_submit(other_consumer, NULL), 0);
	other_consumer_on = true;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, other_consumer_goes, NULL), 0);
	/* gfx0 gets its id in the other consumer's epoch */
	job.ring = &rings[0];
	job.fence_seqno = 1;
	grtrace_submit(&job);

	kunit_activate_static_stub(test, grtrace_stream_start,
				   stream_start_then_consumer_goes);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_FALSE(test, other_consumer_on);
	for (i = 0; i < 4; i++) {
		job.ring = &rings[i % 2 ? 0 : 1];
		job.fence_seqno = 2 + i;
		grtrace_submit(&job);
	}
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	/* The header's rings, which it counts, named gfx0 */
	KUNIT_ASSERT_GE(test, c->n, 1);
	KUNIT_ASSERT_EQ(test, c->recs[0].hdr.type, GRTRACE_EV_STREAM_INFO);
	header = c->recs[0].si.nr_rings;
	KUNIT_ASSERT_GE(test, c->n, 1 + header);
	for (i = 1; i <= header; i++)
		named |= c->recs[i].hdr.type == GRTRACE_EV_METADATA &&
			 !strcmp(c->recs[i].ri.dev, "kunit-gpu") &&
			 !strcmp(c->recs[i].ri.name, test_ring_names[0]);
	KUNIT_EXPECT_TRUE(test, named);
	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i], *ring;

		if (r->hdr.type != GRTRACE_EV_SUBMIT || r->job.fence_context != 21)
			continue;
		n++;
		ring = ring_of(test, c, r->job.ring_id);
		KUNIT_ASSERT_NOT_NULL(test, ring);
		KUNIT_EXPECT_STREQ(test, ring->ri.name,
				   test_ring_names[r->job.fence_seqno % 2 ? 0 : 1]);
	}
	KUNIT_EXPECT_EQ(test, n, 4);
}

static int ring_is(const struct grtrace_ring *ring, u32 id, void *data)
{
	return ring == data;
}

/*
 * An epoch that gave out its last ring id drops the events of the rings it
 * meets next, and counts them.
 */
static void grtrace_test_ring_ids_used_up(struct kunit *test)
{
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 31 };
	struct grtrace_ring *rings;
	struct collect *c;
	u64 no_ring;

	if (grtrace_enabled())
		kunit_skip(test, "grtrace events have a consumer already");
	rings = test_rings(test, GRTRACE_ENGINE_GRAPHICS);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	/* Until the session's end ends the epoch */
	grtrace_set_next_ring_id(U32_MAX);
	no_ring = grtrace_no_ring_events();
	job.ring = &rings[0];
	job.fence_seqno = 1;
	grtrace_submit(&job);
	job.ring = &rings[1];
	job.fence_seqno = 2;
	grtrace_submit(&job);
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(&rings[0]), U32_MAX);
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(&rings[1]), 0);
	KUNIT_EXPECT_EQ(test, grtrace_walk_rings(ring_is, &rings[1]), 0);
	KUNIT_EXPECT_EQ(test, grtrace_no_ring_events(), no_ring + 1);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, U32_MAX), 1);
}

static struct grtrace_ring *ring_going;

/* The meet's hook: the driver unregisters the ring as it gets its id. */
static void ring_goes(struct grtrace_ring *ring)
{
	if (ring == ring_going)
		grtrace_ring_unregister(ring);
}

static void meet_hook_off(void *unused)
{
	grtrace_set_meet_hook(NULL);
}

/*
 * A ring unregistered while it gets its id is not listed, since its driver
 * may free it as soon as grtrace_ring_unregister() returned, and its event
 * is counted as one without a ring.
 */
static void grtrace_test_ring_gone_while_met(struct kunit *test)
{
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 32, .fence_seqno = 1 };
	u64 no_ring;

	ring_going = test_rings(test, GRTRACE_ENGINE_GRAPHICS);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, meet_hook_off, NULL), 0);
	grtrace_set_meet_hook(ring_goes);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	no_ring = grtrace_no_ring_events();
	job.ring = ring_going;
	grtrace_submit(&job);
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(ring_going), 0);
	KUNIT_EXPECT_EQ(test, grtrace_walk_rings(ring_is, ring_going), 0);
	KUNIT_EXPECT_EQ(test, grtrace_no_ring_events(), no_ring + 1);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
}

#define WALK_RINGS	100

struct walk_ctx {
	struct irq_work work;
	struct grtrace_ring *rings;	/* WALK_RINGS, then one met during the walk */
	unsigned int walked;		/* of the test's rings */
	unsigned int at;		/* rings walked when the irq_work ran */
	u32 last;
	bool in_order;
};

/* Runs as soon as the walk lets interrupts in (x86), or at the next tick. */
static void walk_irq_work(struct irq_work *work)
{
	struct walk_ctx *w = container_of(work, struct walk_ctx, work);
	struct grtrace_job job = {
		.ring = &w->rings[WALK_RINGS], .ctx_id = 1, .fence_context = 33,
		.fence_seqno = WALK_RINGS + 1,
	};

	w->at = READ_ONCE(w->walked);
	grtrace_submit(&job);
}

/*
 * 300 us a ring: the irq_work queued at the first is pending until the walk
 * lets interrupts in, after 32 rings (9.6 ms), or until the next tick after
 * that where irq_work waits for it (UML's HZ is 100), before the walk's end.
 * Not udelay(), whose loops UML does not calibrate.
 */
static int walk_slowly(const struct grtrace_ring *ring, u32 id, void *data)
{
	struct walk_ctx *w = data;
	u64 end;

	if (ring < w->rings || ring > w->rings + WALK_RINGS)
		return 0;
	if (!w->walked)
		irq_work_queue(&w->work);
	w->in_order &= id > w->last;
	w->last = id;
	WRITE_ONCE(w->walked, w->walked + 1);
	end = ktime_get_ns() + 300 * NSEC_PER_USEC;
	while (ktime_get_ns() < end)
		cpu_relax();
	return 0;
}

/*
 * A walk of the rings lets interrupts in between batches of them, visits
 * each ring with an id once, in the order they got it, and also the ring
 * that got its id in an interrupt during the walk.
 */
static void grtrace_test_walk_lets_irqs_in(struct kunit *test)
{
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 33 };
	struct walk_ctx *w;
	int i;

	if (grtrace_enabled())
		kunit_skip(test, "grtrace events have a consumer already");
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->rings = kunit_kcalloc(test, WALK_RINGS + 1, sizeof(*w->rings), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w->rings);
	for (i = 0; i <= WALK_RINGS; i++) {
		w->rings[i] = (struct grtrace_ring) {
			.dev = "kunit-gpu", .name = "walk", .engine = GRTRACE_ENGINE_GRAPHICS,
		};
		grtrace_ring_register(&w->rings[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ring_unregister_action,
								&w->rings[i]), 0);
	}
	init_irq_work(&w->work, walk_irq_work);
	w->in_order = true;

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	for (i = 0; i < WALK_RINGS; i++) {
		job.ring = &w->rings[i];
		job.fence_seqno = i + 1;
		grtrace_submit(&job);
	}
	KUNIT_EXPECT_EQ(test, grtrace_walk_rings(walk_slowly, w), 0);
	irq_work_sync(&w->work);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	kunit_info(test, "the irq_work ran after %u of %u rings\n", w->at, w->walked);
	/* The old walk held the lock, interrupts off, over all of them. */
	KUNIT_EXPECT_GT(test, w->at, 0);
	KUNIT_EXPECT_LT(test, w->at, WALK_RINGS);
	KUNIT_EXPECT_EQ(test, w->walked, WALK_RINGS + 1);
	KUNIT_EXPECT_TRUE(test, w->in_order);
}

static void watchlist_all(void *unused)
{
	grtrace_config_write("watchlist=all");
}

/* SUBMITs of fence context @ctx in @c on the ring @dev/@name */
static int count_named(struct kunit *test, struct collect *c, u64 ctx, const char *dev,
		       const char *name)
{
	int i, n = 0;

	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i], *ring;

		if (r->hdr.type != GRTRACE_EV_SUBMIT || r->job.fence_context != ctx)
			continue;
		ring = ring_of(test, c, r->job.ring_id);
		KUNIT_ASSERT_NOT_NULL(test, ring);
		n += !strcmp(ring->ri.dev, dev) && !strcmp(ring->ri.name, name);
	}
	return n;
}

/*
 * A driver's ring is named in the watchlist, device and ring, and the name
 * holds in the next session, where the ring has another id; its id, which
 * would then name another ring, is refused.  A ring of fixed id is listed
 * by its id beside the names.
 */
static void grtrace_test_watchlist_names(struct kunit *test)
{
	static const char * const bad[] = {
		"watchlist=256", "filter_ring_id=256", "watchlist=/gfx1", "watchlist=kunit-gpu/",
		"watchlist=!", "watchlist=kunit-gpu/gfx1,257",
		"watchlist=a/0,a/1,a/2,a/3,a/4,a/5,a/6,a/7,a/8",
		"watchlist=kunit-gpu/a-ring-name-of-64-characters-which-is-one-more-than-the-most-cut",
	};
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 41 };
	struct grtrace_ring *rings, *other, *order[4];
	struct collect *c;
	char buf[48], keep[48], deny_it[48];
	int s, i;

	if (grtrace_enabled())
		kunit_skip(test, "grtrace events have a consumer already");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, watchlist_all, NULL), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, grtrace_config_write(bad[i]), -EINVAL,
				    "accepted \"%s\"", bad[i]);
	/* A ninth name that repeats one fits */
	KUNIT_EXPECT_EQ(test, grtrace_config_write("watchlist=a/0,a/1,a/2,a/3,a/4,a/5,a/6,a/7,a/0"),
			0);
	rings = test_rings(test, GRTRACE_ENGINE_GRAPHICS);
	/* The same ring name on another device */
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	*other = (struct grtrace_ring) {
		.dev = "kunit-gpu2", .name = "gfx1", .engine = GRTRACE_ENGINE_GRAPHICS,
	};
	grtrace_ring_register(other);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ring_unregister_action, other), 0);
	snprintf(keep, sizeof(keep), "watchlist=kunit-gpu/gfx1,%u", TEST_RING_ID);
	snprintf(deny_it, sizeof(deny_it), "watchlist=!kunit-gpu/gfx1,%u", TEST_RING_ID);
	KUNIT_ASSERT_EQ(test, grtrace_config_write(keep), 0);
	c = collect_alloc(test);
	for (s = 0; s < 3; s++) {
		bool deny = s == 2;

		if (deny)
			KUNIT_ASSERT_EQ(test, grtrace_config_write(deny_it), 0);
		KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
		/* gfx0 reports first in the first session, gfx1 in the second */
		order[0] = &rings[s % 2];
		order[1] = &rings[(s + 1) % 2];
		order[2] = other;
		order[3] = &test_ring;
		for (i = 0; i < ARRAY_SIZE(order); i++) {
			job.ring = order[i];
			job.fence_seqno = 10 * s + i + 1;
			grtrace_submit(&job);
		}
		/*
		 * Ids go in the order rings first report in a session, so the
		 * two rings' ids come in the other order in the second: an id
		 * does not outlive its session.  (Not which ids: a ring of the
		 * machine's, a console's, may report first.)
		 */
		if (s < 2)
			KUNIT_EXPECT_LT_MSG(test, grtrace_ring_last_id(order[0]),
					    grtrace_ring_last_id(order[1]), "session %d", s);
		snprintf(buf, sizeof(buf), "watchlist=%u", grtrace_ring_last_id(&rings[1]));
		KUNIT_EXPECT_EQ(test, grtrace_config_write(buf), -EINVAL);
		KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

		collect_into(test, c);
		KUNIT_EXPECT_EQ_MSG(test, count_named(test, c, 41, "kunit-gpu", "gfx1"), !deny,
				    "session %d", s);
		KUNIT_EXPECT_EQ_MSG(test, count_named(test, c, 41, "kunit-gpu", "copy0"), !deny,
				    "session %d", s);
		KUNIT_EXPECT_EQ_MSG(test, count_named(test, c, 41, "kunit-gpu", "gfx0"), deny,
				    "session %d", s);
		KUNIT_EXPECT_EQ_MSG(test, count_named(test, c, 41, "kunit-gpu2", "gfx1"), deny,
				    "session %d", s);
	}
}

/* A name longer than its METADATA field is cut, and says so. */
static void grtrace_test_long_names(struct kunit *test)
{
	static struct grtrace_ring ring = {
		.dev = "0000:00:02.0-a-device-name-of-40-bytes",
		.name = "a-queue-name-longer-than-31-bytes-0",
		.engine = GRTRACE_ENGINE_COMPUTE,
	};
	struct grtrace_job job;
	struct collect *c;
	int i, seen = 0;

	grtrace_ring_init_fixed(&ring, TEST_RING_ID - 1);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	grtrace_test_job(&job, 1);
	job.ring = &ring;
	grtrace_commit(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	for (i = 0; i < c->n; i++) {
		if (c->recs[i].hdr.type != GRTRACE_EV_METADATA ||
		    c->recs[i].ri.ring_id != TEST_RING_ID - 1)
			continue;
		seen++;
		KUNIT_EXPECT_EQ(test, strlen(c->recs[i].ri.dev), 31);
		KUNIT_EXPECT_EQ(test, strncmp(c->recs[i].ri.dev, ring.dev, 31), 0);
		KUNIT_EXPECT_EQ(test, strncmp(c->recs[i].ri.name, ring.name, 31), 0);
		KUNIT_EXPECT_EQ(test, c->recs[i].ri.flags,
				GRTRACE_RING_F_DEV_CUT | GRTRACE_RING_F_NAME_CUT);
	}
	KUNIT_EXPECT_EQ(test, seen, 1);
}

static void emit_irqs(void *unused)
{
	struct grtrace_job job;
	int i;

	grtrace_test_job(&job, smp_processor_id());
	for (i = 0; i < 50; i++)
		grtrace_irq(&job);
}

/* gseq is unique and gapless over all CPUs, cseq per CPU. */
static void grtrace_test_sequence(struct kunit *test)
{
	struct collect *c;
	int i, events = 0;
	u64 *last_cseq;

	last_cseq = kunit_kcalloc(test, nr_cpu_ids, sizeof(*last_cseq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, last_cseq);

	KUNIT_ASSERT_EQ(test, grtrace_config_write("level=verbose"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	on_each_cpu(emit_irqs, NULL, 1);
	emit_irqs(NULL);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	for (i = 0; i < c->n; i++) {
		struct grtrace_record *h = &c->recs[i].hdr;

		KUNIT_ASSERT_LT(test, h->cpu, nr_cpu_ids);
		KUNIT_EXPECT_EQ(test, h->gseq, i + 1);
		KUNIT_EXPECT_EQ(test, h->cseq, last_cseq[h->cpu] + 1);
		last_cseq[h->cpu] = h->cseq;
		events += h->type == GRTRACE_EV_IRQ && c->recs[i].job.ring_id == TEST_RING_ID;
	}
	KUNIT_EXPECT_EQ(test, events, 50 * (num_online_cpus() + 1));
}

/* With a tiny buffer every event is written or counted as an overrun. */
static void grtrace_test_drop_accounting(struct kunit *test)
{
	struct grtrace_totals t;
	struct grtrace_job job;
	struct collect *c;
	int i;

	KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(SZ_16K), 0);
	/* Other rings may be busy: keep them out of the buffer. */
	KUNIT_ASSERT_EQ(test, grtrace_config_ring(TEST_RING_ID), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_set_buffer_size(SZ_8M), -EBUSY);
	grtrace_test_job(&job, 0);
	for (i = 0; i < 1000; i++) {
		job.fence_seqno = i;
		grtrace_submit(&job);
	}
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	grtrace_get_totals(&t);
	c = collect(test);
	KUNIT_EXPECT_GT(test, t.dropped[GRTRACE_DROP_OVERRUN], 0);
	KUNIT_EXPECT_EQ(test, t.written + t.dropped[GRTRACE_DROP_OVERRUN], 1000);
	KUNIT_EXPECT_EQ(test, t.offered, t.written + t.dropped[GRTRACE_DROP_OVERRUN] +
			t.dropped[GRTRACE_DROP_FILTERED]);
	KUNIT_EXPECT_EQ(test, t.written, count_type(c, GRTRACE_EV_SUBMIT, TEST_RING_ID));
	KUNIT_EXPECT_EQ(test, t.by_type[GRTRACE_EV_SUBMIT], t.written);
}

/*
 * Under sustained overrun, records of two sizes: an event of a ring this
 * CPU has not described yet (with its METADATA) and one of a ring it has.
 * A small write after a bigger one that found the buffer full must not pass
 * for written: every event counted as written is in the buffer, and the
 * gseqs run without a gap (a gap stalls the live merged reader).  Each
 * session starts with one more small event, so that the last sub-buffer
 * ends at a different place.
 */
static void grtrace_test_overrun_mixed_sizes(struct kunit *test)
{
	static struct grtrace_ring rings[64];
	struct grtrace_totals t;
	struct grtrace_job job;
	struct collect *c;
	char cfg[48];
	int k, i, n;

	KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(SZ_16K), 0);
	/* Other rings may be busy: keep them out of the buffer. */
	snprintf(cfg, sizeof(cfg), "filter_engine_mask=%#lx", BIT(GRTRACE_ENGINE_COPY));
	KUNIT_ASSERT_EQ(test, grtrace_config_write(cfg), 0);
	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		rings[i] = test_ring;
		grtrace_ring_init_fixed(&rings[i], i + 1);
	}
	c = collect_alloc(test);
	for (k = 0; k < 16; k++) {
		KUNIT_ASSERT_EQ(test, grtrace_config_write("reset_stats=1"), 0);
		KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
		grtrace_test_job(&job, 0);
		/* One CPU: one buffer fills */
		get_cpu();
		for (i = 0; i < k; i++) {
			job.fence_seqno = i;
			grtrace_submit(&job);
		}
		for (i = 0; i < ARRAY_SIZE(rings); i++) {
			job.ring = &rings[i];
			grtrace_submit(&job);
			job.ring = &test_ring;
			job.fence_seqno++;
			grtrace_submit(&job);
		}
		put_cpu();
		KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

		grtrace_get_totals(&t);
		collect_into(test, c);
		for (i = 0, n = 0; i < c->n; i++)
			n += c->recs[i].hdr.type == GRTRACE_EV_SUBMIT;
		KUNIT_EXPECT_GT_MSG(test, t.dropped[GRTRACE_DROP_OVERRUN], 0, "session %d", k);
		KUNIT_EXPECT_EQ_MSG(test, t.offered, t.written + grtrace_totals_dropped(&t),
				    "session %d", k);
		KUNIT_EXPECT_EQ_MSG(test, t.by_type[GRTRACE_EV_SUBMIT], n,
				    "session %d: SUBMITs counted as written, in the buffer", k);
		for (i = 0; i < c->n; i++)
			if (c->recs[i].hdr.gseq != i + 1)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, c->n, "session %d: a gap in gseq", k);
	}
}

struct racer {
	struct completion started;
	bool stop;
	int jobs;
	u8 seen[];	/* per job: bit k for the event race_order[k] */
};

static const u16 race_order[] = { GRTRACE_EV_SUBMIT, GRTRACE_EV_COMMIT,
				  GRTRACE_EV_END, GRTRACE_EV_COMPLETE };

#define RACE_JOBS	SZ_32K

/* Jobs of four events each, one after the other, until told to stop. */
static int race_jobs(void *data)
{
	struct racer *r = data;
	struct grtrace_job job;

	grtrace_test_job(&job, 0);
	complete(&r->started);
	while (!READ_ONCE(r->stop) && r->jobs < RACE_JOBS) {
		job.fence_seqno = r->jobs;
		WRITE_ONCE(r->jobs, r->jobs + 1);
		grtrace_submit(&job);
		grtrace_commit(&job);
		grtrace_end(&job);
		grtrace_complete(&job);
		usleep_range(20, 40);
	}
	return 0;
}

static int race_seen(const struct grtrace_record *rec, void *data)
{
	const struct grtrace_job_payload *job = (const void *)(rec + 1);
	struct racer *r = data;
	int k;

	if (rec->type >= GRTRACE_EV_NR || rec->size < sizeof(*rec) + sizeof(*job) ||
	    job->ring_id != TEST_RING_ID || job->fence_seqno >= RACE_JOBS)
		return 0;
	for (k = 0; k < ARRAY_SIZE(race_order); k++)
		if (rec->type == race_order[k])
			r->seen[job->fence_seqno] |= BIT(k);
	return 0;
}

/*
 * A session starts and stops for all event types at once: while another
 * CPU reports jobs, each job in the stream has all of its four events,
 * but for the first (cut by the start: the last events) and the last (cut
 * by the stop: the first events).
 */
static void grtrace_test_start_stop_atomic(struct kunit *test)
{
	int i, first = -1, last = -1, whole = 0, at_start, at_stop;
	struct grtrace_totals t;
	struct task_struct *tsk;
	struct racer *r;
	u64 t0, t1;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU to report while the session starts");
	r = kunit_kzalloc(test, struct_size(r, seen, RACE_JOBS), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	init_completion(&r->started);
	tsk = kthread_create(race_jobs, r, "grtrace-race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	kthread_bind(tsk, cpumask_any_but(cpu_online_mask, raw_smp_processor_id()));
	get_task_struct(tsk);
	wake_up_process(tsk);
	wait_for_completion(&r->started);

	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, grtrace_session_start(), 0);
	t1 = ktime_get_ns();
	at_start = READ_ONCE(r->jobs);
	/*
	 * Until a job begun after the start has ended, which the job after
	 * it beginning shows: however slowly the other CPU runs (a vCPU of a
	 * loaded host), one job at least is whole, none cut by the stop.
	 */
	for (i = 0; i < 2000 && READ_ONCE(r->jobs) < min(at_start + 2, RACE_JOBS); i++)
		usleep_range(5000, 6000);
	at_stop = READ_ONCE(r->jobs);
	KUNIT_EXPECT_GE(test, at_stop, min(at_start + 2, RACE_JOBS));
	KUNIT_EXPECT_EQ(test, grtrace_session_stop(), 0);
	WRITE_ONCE(r->stop, true);
	kthread_stop(tsk);
	put_task_struct(tsk);
	kunit_info(test, "start took %llu us, jobs %d at start, %d at stop, %d in all\n",
		   div_u64(t1 - t0, 1000), at_start, at_stop, r->jobs);

	grtrace_get_totals(&t);
	KUNIT_ASSERT_EQ(test, t.dropped[GRTRACE_DROP_OVERRUN], 0);
	KUNIT_ASSERT_EQ(test, grtrace_walk_records(race_seen, r), 0);
	for (i = 0; i < RACE_JOBS; i++) {
		if (!r->seen[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	KUNIT_ASSERT_GE_MSG(test, first, 0, "no job recorded");
	for (i = first; i <= last; i++) {
		u8 m = r->seen[i];

		if (m == 0xf)
			whole++;
		/* The start cuts a job's first events, the stop its last. */
		else if (!(i == first && !((m + (m & -m)) & 0xf)) &&
			 !(i == last && !(m & (m + 1))))
			KUNIT_FAIL(test, "job %d of %d..%d: events 0x%x of 0xf (%s)",
				   i, first, last, m, "submit, commit, end, complete");
	}
	KUNIT_EXPECT_GT(test, whole, 0);
}

struct irq_ctx {
	struct hrtimer timer;
	struct completion done;
	bool hardirq;
};

static enum hrtimer_restart fire_in_irq(struct hrtimer *timer)
{
	struct irq_ctx *ctx = container_of(timer, struct irq_ctx, timer);
	struct grtrace_job job;
	int i;

	ctx->hardirq = in_hardirq();
	grtrace_test_job(&job, 0);
	for (i = 0; i < 100; i++) {
		job.fence_seqno = i;
		grtrace_end(&job);
	}
	complete(&ctx->done);
	return HRTIMER_NORESTART;
}

/* Events reported from a hard interrupt handler are recorded. */
static void grtrace_test_hardirq(struct kunit *test)
{
	struct irq_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct collect *c;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	init_completion(&ctx->done);
	hrtimer_setup(&ctx->timer, fire_in_irq, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	hrtimer_start(&ctx->timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->done, 5 * HZ), 0);
	hrtimer_cancel(&ctx->timer);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	KUNIT_EXPECT_TRUE(test, ctx->hardirq);
	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_END, TEST_RING_ID), 100);
}

/* Only the test ring's: a driver may report on another CPU meanwhile. */
static void count_probe(void *data, const struct grtrace_event *ev)
{
	if (ev->job.ring_id == TEST_RING_ID)
		atomic_inc(data);
}

/* The tracepoints work without the relay stream and the reverse. */
static void grtrace_test_sinks(struct kunit *test)
{
	struct grtrace_totals before, after;
	struct grtrace_job job;
	atomic_t hits = ATOMIC_INIT(0);
	int i;

	KUNIT_EXPECT_FALSE(test, grtrace_enabled());
	grtrace_get_totals(&before);
	KUNIT_ASSERT_EQ(test, register_trace_grtrace_submit(count_probe, &hits), 0);
	KUNIT_EXPECT_TRUE(test, grtrace_enabled());
	grtrace_test_job(&job, 1);
	for (i = 0; i < 5; i++)
		grtrace_submit(&job);
	unregister_trace_grtrace_submit(count_probe, &hits);
	tracepoint_synchronize_unregister();
	grtrace_get_totals(&after);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 5);
	KUNIT_EXPECT_EQ(test, after.offered, before.offered);
	KUNIT_EXPECT_FALSE(test, grtrace_enabled());

	KUNIT_ASSERT_EQ(test, grtrace_config_ring(TEST_RING_ID), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_TRUE(test, grtrace_enabled());
	for (i = 0; i < 5; i++)
		grtrace_submit(&job);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_FALSE(test, grtrace_enabled());
	grtrace_get_totals(&after);
	KUNIT_EXPECT_EQ(test, after.written, before.written + 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 5);
}

/* Records of rings 200 and up: the emit rings of the config test. */
static int count_emitted(struct collect *c, u16 type, u32 ring_id, u16 engine)
{
	int i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->recs[i].hdr.type == type && c->recs[i].job.ring_id == ring_id &&
		     c->recs[i].job.engine == engine;
	return n;
}

/* Filters drop exactly what they should; bad config changes nothing. */
static void grtrace_test_config(struct kunit *test)
{
	static const char * const bad[] = {
		"nosuchkey=1", "level=loud", "level=4", "filter_ring_id=2147483648",
		"filter_ring_id=-2", "filter_type_mask=0x400", "filter_engine_mask=x",
		"reset_stats=0", "level", "filter_ring_id=201\nbogus=2",
	};
	struct grtrace_totals t;
	struct collect *c;
	int i;

	needs_emit(test);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, grtrace_config_write(bad[i]), -EINVAL,
				    "accepted \"%s\"", bad[i]);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 1 0 256 1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 1 0 0 1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 1 6 201 1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("launch 1 0 201 1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 1 0 201"), -EINVAL);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 1 0 201 1\nsubmit x"), -EINVAL);

	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	/* The failed "filter_ring_id=201\nbogus=2" must not have set ring 201. */
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("submit 100 0 202 1"), 1);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("filter_ring_id=201"), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("emit submit 100 0 201 1\nsubmit 100 0 202 2"), 2);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("filter_ring_id=-1\nfilter_engine_mask=0x2"), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("commit 5 1 203 1\ncommit 5 0 203 2"), 2);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("filter_engine_mask=0x3f\nlevel=normal"), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line("irq 5 0 203 3"), 1);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_emitted(c, GRTRACE_EV_SUBMIT, 202, 0), 1);
	KUNIT_EXPECT_EQ(test, count_emitted(c, GRTRACE_EV_SUBMIT, 201, 0), 1);
	KUNIT_EXPECT_EQ(test, count_emitted(c, GRTRACE_EV_COMMIT, 203, 1), 1);
	KUNIT_EXPECT_EQ(test, count_emitted(c, GRTRACE_EV_COMMIT, 203, 0), 0);
	KUNIT_EXPECT_EQ(test, count_emitted(c, GRTRACE_EV_IRQ, 203, 0), 0);

	grtrace_get_totals(&t);
	KUNIT_EXPECT_GE(test, t.offered, 6);
	KUNIT_EXPECT_GE(test, t.dropped[GRTRACE_DROP_FILTERED], 3);
	KUNIT_EXPECT_EQ(test, t.offered, t.written + t.dropped[GRTRACE_DROP_FILTERED] +
			t.dropped[GRTRACE_DROP_OVERRUN]);
}

/*
 * The token bucket is charged under its lock, in whatever order the CPUs
 * get there: an event stamped before the last one charged must not
 * refill it, and a long gap must not overflow it.
 */
static void grtrace_test_rate_limit_order(struct kunit *test)
{
	struct grtrace_event ev = { .type = GRTRACE_EV_SUBMIT };
	u64 t = ktime_get_mono_fast_ns();
	u64 tokens, gap;
	int v[4];

	KUNIT_ASSERT_EQ(test, grtrace_config_write("rate_limiter_mode=token_bucket\n"
						   "max_events_per_sec=1000\n"
						   "rate_limit_burst=1"), 0);
	scoped_guard(irqsave) {
		v[0] = grtrace_govern(&ev, t, -1);
		v[1] = grtrace_govern(&ev, t - NSEC_PER_MSEC, -1);
		v[2] = grtrace_govern(&ev, t + NSEC_PER_MSEC, -1);
		v[3] = grtrace_govern(&ev, t + NSEC_PER_MSEC, -1);
	}
	KUNIT_EXPECT_EQ_MSG(test, v[0], -1, "a full bucket");
	KUNIT_EXPECT_EQ_MSG(test, v[1], GRTRACE_DROP_RATE_LIMITED,
			    "an earlier event refilled the bucket");
	KUNIT_EXPECT_EQ_MSG(test, v[2], -1, "one token a millisecond");
	KUNIT_EXPECT_EQ(test, v[3], GRTRACE_DROP_RATE_LIMITED);

	/*
	 * The largest bucket, one event charged, then a gap that makes
	 * tokens + refill just exceed 2^64: a full bucket, not an empty one.
	 */
	KUNIT_ASSERT_EQ(test, grtrace_config_write("max_events_per_sec=100000000\n"
						   "rate_limit_burst=1000000000"), 0);
	tokens = 1000000000ULL * NSEC_PER_SEC - NSEC_PER_SEC;
	gap = div64_u64(U64_MAX - tokens, 100000000) + 1;
	scoped_guard(irqsave) {
		v[0] = grtrace_govern(&ev, t, -1);
		v[1] = grtrace_govern(&ev, t + gap, -1);
	}
	KUNIT_EXPECT_EQ(test, v[0], -1);
	KUNIT_EXPECT_EQ_MSG(test, v[1], -1, "the refill wrapped around");
	KUNIT_EXPECT_EQ(test, grtrace_config_write("rate_limiter_mode=window\n"
						   "max_events_per_sec=0\n"
						   "rate_limit_burst=0"), 0);
}

/*
 * The probe takes the governance's default path while every setting is at
 * its default, and the governed path as soon as one is not: a rate limit
 * of one event a second drops the second and third SUBMIT, and drops
 * nothing once it is off again.  A token bucket of one, not a window: a
 * window ends on the second, which may fall between two SUBMITs.
 */
static void grtrace_test_default_path(struct kunit *test)
{
	struct grtrace_totals t0, t1, t2;
	struct grtrace_job job;
	int i;

	KUNIT_EXPECT_FALSE(test, static_key_enabled(&grtrace_governed));
	/* A driver's events (virtio-gpu's, at boot) must not take the token. */
	KUNIT_ASSERT_EQ(test, grtrace_config_ring(TEST_RING_ID), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("rate_limiter_mode=token_bucket\n"
						   "max_events_per_sec=1\n"
						   "rate_limit_burst=1"), 0);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&grtrace_governed));
	grtrace_get_totals(&t0);
	for (i = 0; i < 3; i++) {
		grtrace_test_job(&job, i + 1);
		grtrace_submit(&job);
	}
	grtrace_get_totals(&t1);
	KUNIT_EXPECT_EQ(test, t1.dropped[GRTRACE_DROP_RATE_LIMITED] -
			      t0.dropped[GRTRACE_DROP_RATE_LIMITED], 2);

	KUNIT_ASSERT_EQ(test, grtrace_config_write("rate_limiter_mode=window\n"
						   "max_events_per_sec=0\n"
						   "rate_limit_burst=0"), 0);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&grtrace_governed));
	for (i = 0; i < 3; i++) {
		grtrace_test_job(&job, i + 4);
		grtrace_submit(&job);
	}
	grtrace_get_totals(&t2);
	KUNIT_EXPECT_EQ(test, t2.written - t1.written, 3);
	KUNIT_EXPECT_EQ(test, t2.dropped[GRTRACE_DROP_RATE_LIMITED],
			t1.dropped[GRTRACE_DROP_RATE_LIMITED]);
	grtrace_session_stop();
}

/*
 * aggregate_only turns the aggregator on for as long as it is set: set back
 * to 0, the governance is at its defaults again and the probe takes the
 * default path, as before.
 */
static void grtrace_test_aggregate_only_off(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&grtrace_governed));
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=1"), 0);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&grtrace_governed));
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=0"), 0);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&grtrace_governed));
}

/*
 * The largest write emit takes: 64 KiB of blank lines is no event (and no
 * allocation warning), 64 KiB of events are all fired.
 */
static void grtrace_test_emit_size(struct kunit *test)
{
	const size_t size = SZ_64K;
	const char *line = "submit 1 0 201 1\n";
	size_t len = strlen(line), n = size / len, i;
	char *buf = kunit_kzalloc(test, size + 1, GFP_KERNEL);

	needs_emit(test);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, '\n', size);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), -EINVAL);
	for (i = 0; i < n; i++)
		memcpy(buf + i * len, line, len);
	buf[n * len] = '\0';
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), (int)n);
}

/*
 * A pid filter keeps a table entry per job from SUBMIT to COMPLETE: more
 * jobs than the table holds, one after the other, must all be written.
 */
static void grtrace_test_job_table_reuse(struct kunit *test)
{
	const int jobs = 1100;	/* more than the job table holds */
	size_t size = jobs * 64, len = 0;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	struct grtrace_totals t;
	char cfg[64];
	int i;

	needs_emit(test);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < jobs; i++)
		len += scnprintf(buf + len, size - len,
				 "submit 7 0 201 %d\ncomplete 7 0 201 %d\n", i + 1, i + 1);
	snprintf(cfg, sizeof(cfg), "filter_enabled=1\nfilter_pid=%d",
		 task_tgid_nr(current));
	KUNIT_ASSERT_EQ(test, grtrace_config_write(cfg), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), 2 * jobs);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.dropped[GRTRACE_DROP_UNTRACKED], 0);
	/* A real GPU's events meanwhile are other tasks': filtered. */
	KUNIT_EXPECT_EQ(test, t.written, 2 * jobs);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("filter_enabled=0\nfilter_pid=none"), 0);
}

/* "<type> <ctx> 0 201 <seqno>" lines for jobs 1..@jobs, @types of each. */
static char *job_lines(struct kunit *test, u64 ctx, int jobs,
		       const char * const *types, int ntypes, bool by_type)
{
	size_t size = jobs * ntypes * 32, len = 0;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < jobs * ntypes; i++) {
		/* by_type: every job's first event, then every job's second */
		int job = by_type ? i % jobs : i / ntypes;
		int type = by_type ? i / jobs : i % ntypes;

		j = scnprintf(buf + len, size - len, "%s %llu 0 201 %d\n",
			      types[type], ctx, job + 1);
		len += j;
	}
	return buf;
}

/*
 * Held jobs whose COMPLETE is filtered: their held events are dropped with
 * it, under its cause, and their entries freed for the jobs that follow.
 */
static void grtrace_test_held_complete_filtered(struct kunit *test)
{
	static const char * const types[] = { "submit", "complete" };
	const int jobs = 1100;	/* more than the job table holds */
	char *buf = job_lines(test, 7, jobs, types, 2, false);
	struct grtrace_totals t;

	needs_emit(test);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("sampling_mode=threshold\n"
						   "sampling_threshold=0\n"
						   "filter_type_mask=0x3ef"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), 2 * jobs);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	grtrace_get_totals(&t);
	/* All were filtered; a real GPU's events meanwhile may be too. */
	KUNIT_EXPECT_EQ(test, t.dropped[GRTRACE_DROP_UNTRACKED], 0);
	KUNIT_EXPECT_GE(test, t.dropped[GRTRACE_DROP_FILTERED], 2 * jobs);
	KUNIT_EXPECT_EQ(test, t.written + grtrace_totals_dropped(&t), t.offered);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("sampling_mode=static"), 0);
}

/*
 * Settings put back to their defaults while jobs hold events: the events
 * are decided at once, as at a stop, and written before the COMPLETEs that
 * follow, not after them.
 */
static void grtrace_test_held_released_by_config(struct kunit *test)
{
	static const char * const submit[] = { "submit" };
	static const char * const complete[] = { "complete" };
	const int jobs = 8;
	char *submits = job_lines(test, 7, jobs, submit, 1, false);
	char *completes = job_lines(test, 7, jobs, complete, 1, false);
	bool submitted[9] = {};
	int i, late = 0;
	struct collect *c;

	needs_emit(test);
	/*
	 * The test's ring only: the held events are counted for all rings,
	 * and a real GPU's jobs meanwhile (fbcon's on virtio-gpu, as KUnit
	 * prints) would be held too.
	 */
	KUNIT_ASSERT_EQ(test, grtrace_config_write("sampling_mode=threshold\n"
						   "sampling_threshold=0\n"
						   "filter_ring_id=201"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(submits), jobs);
	KUNIT_EXPECT_EQ(test, grtrace_govern_held(), jobs);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("sampling_mode=static"), 0);
	KUNIT_EXPECT_EQ(test, grtrace_govern_held(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(completes), jobs);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i];

		if (r->hdr.type >= GRTRACE_EV_NR || r->job.ring_id != 201 ||
		    r->job.fence_context != 7 || r->job.fence_seqno > jobs)
			continue;
		if (r->hdr.type == GRTRACE_EV_SUBMIT)
			submitted[r->job.fence_seqno] = true;
		else if (r->hdr.type == GRTRACE_EV_COMPLETE)
			late += !submitted[r->job.fence_seqno];
	}
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, 201), jobs);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_COMPLETE, 201), jobs);
	KUNIT_EXPECT_EQ_MSG(test, late, 0, "COMPLETEs written before their SUBMIT");
}

static long emit_here(void *line)
{
	return grtrace_emit_line(line);
}

/*
 * Each CPU's buffer describes a ring before its own first record of it:
 * whichever CPU met the ring first, no record precedes a METADATA of its
 * ring from the same CPU, in gseq order as in that CPU's file.
 */
static void grtrace_test_described_per_cpu(struct kunit *test)
{
	unsigned int cpu, n = 0;
	struct collect *c;
	char line[64];
	int i, j;

	needs_emit(test);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs to report on");
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	for_each_online_cpu(cpu) {
		snprintf(line, sizeof(line), "submit 7 0 203 %u\n", ++n);
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, emit_here, line), 1);
	}
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, 203), n);
	for (i = 0; i < c->n; i++) {
		const struct rec_copy *r = &c->recs[i];
		bool described = false;

		if (r->hdr.type != GRTRACE_EV_SUBMIT || r->job.ring_id != 203)
			continue;
		for (j = 0; j < i; j++)
			described |= c->recs[j].hdr.type == GRTRACE_EV_METADATA &&
				     c->recs[j].ri.ring_id == 203 &&
				     c->recs[j].hdr.cpu == r->hdr.cpu;
		KUNIT_EXPECT_TRUE_MSG(test, described,
				      "a record of ring 203 on CPU %u before its METADATA there",
				      r->hdr.cpu);
	}
}

/*
 * Two rings whose events alternate on one CPU are each described once there:
 * their ids are 1792 apart, fewer than the cache's 2048 entries.  The ids are
 * far above those the session gives, which a ring met meanwhile takes (a
 * virtio-gpu one, in a guest).
 */
static void grtrace_test_described_once(struct kunit *test)
{
	struct grtrace_job job = { .ctx_id = 1, .fence_context = 34 };
	const u32 ids[] = { 1U << 30, (1U << 30) + 1792 };
	struct grtrace_ring *rings;
	struct collect *c;
	int i, r, meta;

	if (grtrace_enabled())
		kunit_skip(test, "grtrace events have a consumer already");
	rings = test_rings(test, GRTRACE_ENGINE_GRAPHICS);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	migrate_disable();
	for (i = 0; i < 8; i++) {
		r = i % 2;
		if (i < 2)
			grtrace_set_next_ring_id(ids[r]);
		job.ring = &rings[r];
		job.fence_seqno = i + 1;
		grtrace_submit(&job);
	}
	migrate_enable();
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(&rings[0]), ids[0]);
	KUNIT_EXPECT_EQ(test, grtrace_ring_last_id(&rings[1]), ids[1]);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);

	c = collect(test);
	for (r = 0; r < 2; r++) {
		KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, ids[r]), 4);
		for (meta = 0, i = 0; i < c->n; i++)
			meta += c->recs[i].hdr.type == GRTRACE_EV_METADATA &&
				c->recs[i].ri.ring_id == ids[r] &&
				!strcmp(c->recs[i].ri.dev, "kunit-gpu");
		KUNIT_EXPECT_EQ_MSG(test, meta, 1, "METADATA records of ring %u", ids[r]);
	}
}

/*
 * Jobs that never complete: when the table is full the oldest is
 * forgotten, and new jobs are still tracked.
 */
static void grtrace_test_job_table_evicts(struct kunit *test)
{
	static const char * const types[] = { "submit" };
	const int jobs = 1100;
	char *buf = job_lines(test, 7, jobs, types, 1, false);
	struct grtrace_totals t;
	char cfg[64];

	needs_emit(test);
	snprintf(cfg, sizeof(cfg), "filter_enabled=1\nfilter_pid=%d",
		 task_tgid_nr(current));
	KUNIT_ASSERT_EQ(test, grtrace_config_write(cfg), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), jobs);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.dropped[GRTRACE_DROP_UNTRACKED], 0);
	KUNIT_EXPECT_EQ(test, t.written, jobs);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("filter_enabled=0\nfilter_pid=none"), 0);
}

/*
 * Adaptive sampling decides once per job: as the buffer fills between a
 * job's SUBMIT and its COMPLETE, the job keeps both events or neither.
 */
static void grtrace_test_adaptive_per_job(struct kunit *test)
{
	static const char * const types[] = { "submit", "complete" };
	const int jobs = 60;
	int per_job[61] = {}, i, partial = 0, kept = 0;
	struct grtrace_totals t;
	struct collect *c;
	u64 ctx = 1;
	char *buf;

	needs_emit(test);
	/*
	 * Job k's sampling key is (k + hash_64(ctx, 32)) % 100.  With 40 for
	 * the hash, the later SUBMITs, written while the 16 KiB buffer is a
	 * third full, have keys above the lowered rate: some jobs are
	 * dropped at SUBMIT, some kept.
	 */
	while (hash_64(ctx, 32) % 100 != 40)
		ctx++;
	buf = job_lines(test, ctx, jobs, types, 2, true);
	KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(SZ_16K), 0);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("sampling_mode=adaptive\n"
						   "backpressure_threshold=1"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), 2 * jobs);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	grtrace_get_totals(&t);
	c = collect(test);
	for (i = 0; i < c->n; i++)
		if (c->recs[i].hdr.type < GRTRACE_EV_NR &&
		    c->recs[i].job.ring_id == 201 &&
		    c->recs[i].job.fence_context == ctx &&
		    c->recs[i].job.fence_seqno <= jobs)
			per_job[c->recs[i].job.fence_seqno]++;
	for (i = 1; i <= jobs; i++) {
		partial += per_job[i] == 1;
		kept += per_job[i] == 2;
	}
	/* The buffer did fill: some jobs were dropped, some kept. */
	KUNIT_EXPECT_GT(test, t.dropped[GRTRACE_DROP_BACKPRESSURE], 0);
	KUNIT_EXPECT_GT(test, kept, 0);
	KUNIT_EXPECT_EQ(test, partial, 0);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("sampling_mode=static\n"
						   "backpressure_threshold=80"), 0);
}

/*
 * Run a session of 10 jobs (20 events) on ring 201 in aggregate_only mode,
 * a window of 10 s, and change @cfg before its end; return the one
 * SUMMARY of ring 201, or NULL, and the times around the jobs.
 */
static const struct rec_copy *aggregate_window(struct kunit *test, const char *cfg,
					       u64 *t0, u64 *t1)
{
	static const char * const types[] = { "submit", "complete" };
	char *buf = job_lines(test, 9, 10, types, 2, false);
	const struct rec_copy *sum = NULL;
	struct collect *c;
	int i;

	needs_emit(test);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=1\n"
						   "aggregator_window=10000"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	*t0 = ktime_get_mono_fast_ns();
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(buf), 20);
	*t1 = ktime_get_mono_fast_ns();
	KUNIT_EXPECT_EQ(test, grtrace_config_write(cfg), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("aggregate_only=0\n"
						   "aggregator_window=1000"), 0);
	c = collect(test);
	for (i = 0; i < c->n; i++) {
		if (c->recs[i].hdr.type != GRTRACE_EV_SUMMARY ||
		    c->recs[i].sum.ring_id != 201)
			continue;
		KUNIT_EXPECT_NULL_MSG(test, sum, "two SUMMARY records of one window");
		sum = &c->recs[i];
	}
	return sum;
}

/*
 * A window's SUMMARY says when the window it counted started, whatever the
 * window size is by the time it ends; and the window open when
 * aggregate_only is turned off ends then, with its SUMMARY: its events were
 * counted, not written.
 */
static void grtrace_test_aggregate_window(struct kunit *test)
{
	const struct rec_copy *sum;
	u64 t0, t1;

	sum = aggregate_window(test, "aggregator_window=100", &t0, &t1);
	KUNIT_ASSERT_NOT_NULL(test, sum);
	KUNIT_EXPECT_EQ(test, sum->sum.events, 20);
	KUNIT_EXPECT_LE(test, sum->sum.window_start, t0);
	KUNIT_EXPECT_GE(test, sum->sum.window_start + sum->sum.window_ns, t1);

	sum = aggregate_window(test, "aggregate_only=0", &t0, &t1);
	KUNIT_ASSERT_NOT_NULL_MSG(test, sum, "no SUMMARY of the window aggregate_only=0 ended");
	KUNIT_EXPECT_EQ(test, sum->sum.events, 20);
	KUNIT_EXPECT_LE(test, sum->sum.window_start, t0);
}

/* Where the SUMMARY records of ring 201 were written while a session ran. */
struct summary_writers {
	struct task_struct *reporter;
	atomic_t by_reporter;
	atomic_t irqs_off;
	atomic_t by_other;
	atomic64_t events;
};

static void summary_probe(void *data, const struct grtrace_summary *s,
			  const struct grtrace_ring_info *ring_info, u64 dropped)
{
	struct summary_writers *w = data;

	if (s->ring_id != 201)
		return;
	/* A probe runs with interrupts off; the collection fires it with them on. */
	if (irqs_disabled())
		atomic_inc(&w->irqs_off);
	atomic_inc(current == w->reporter ? &w->by_reporter : &w->by_other);
	atomic64_add(s->events, &w->events);
}

/*
 * aggregate_only writes a window's SUMMARY records when the window ends,
 * from the aggregator's work item: not from the probe of the next event
 * (interrupts off, in whatever context that runs, the reporting task's or
 * another driver's), and not only at the stop, which an idle GPU's last
 * busy window would wait for.  Two bursts of 10 jobs, windows apart.
 */
static void grtrace_test_aggregate_worker(struct kunit *test)
{
	static const char * const types[] = { "submit", "complete" };
	char *one = job_lines(test, 11, 10, types, 2, false);
	char *two = job_lines(test, 12, 10, types, 2, false);
	struct summary_writers w = { .reporter = current };
	struct collect *c;
	u64 sum = 0;
	int i;

	needs_emit(test);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregate_only=1\n"
						   "aggregator_window=100"), 0);
	KUNIT_ASSERT_EQ(test, register_trace_grtrace_summary(summary_probe, &w), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(one), 20);
	/* Windows of 100 ms: up to 30 of them for a worker late under TCG */
	for (i = 0; i < 150 && atomic64_read(&w.events) < 20; i++)
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&w.events), 20,
			    "no SUMMARY of an idle ring's window before the stop");
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(two), 20);
	for (i = 0; i < 150 && atomic64_read(&w.events) < 40; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic64_read(&w.events), 40);
	KUNIT_EXPECT_GE(test, atomic_read(&w.by_other), 2);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&w.by_reporter), 0,
			    "a SUMMARY written by the task that reported the events");
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&w.irqs_off), 0,
			    "a SUMMARY written with interrupts off, as in a probe");
	unregister_trace_grtrace_summary(summary_probe, &w);
	tracepoint_synchronize_unregister();
	KUNIT_EXPECT_EQ(test, grtrace_config_write("aggregate_only=0\n"
						   "aggregator_window=1000"), 0);
	c = collect(test);
	for (i = 0; i < c->n; i++)
		if (c->recs[i].hdr.type == GRTRACE_EV_SUMMARY &&
		    c->recs[i].sum.ring_id == 201)
			sum += c->recs[i].sum.events;
	KUNIT_EXPECT_EQ(test, sum, 40);
}

/*
 * Turning aggregate_only on while the aggregator runs ends the window the
 * aggregator counted so far, whose events were written: the first SUMMARY
 * counts only the events aggregate_only did not write.
 */
static void grtrace_test_aggregate_only_on(struct kunit *test)
{
	static const char * const types[] = { "submit", "complete" };
	char *written = job_lines(test, 13, 10, types, 2, false);
	char *counted = job_lines(test, 14, 5, types, 2, false);
	struct collect *c;
	u64 sum = 0;
	int i;

	needs_emit(test);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("aggregator_enable=1\n"
						   "aggregator_window=10000"), 0);
	KUNIT_ASSERT_EQ(test, grtrace_session_start(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(written), 20);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("aggregate_only=1"), 0);
	KUNIT_EXPECT_EQ(test, grtrace_emit_line(counted), 10);
	KUNIT_ASSERT_EQ(test, grtrace_session_stop(), 0);
	KUNIT_EXPECT_EQ(test, grtrace_config_write("aggregate_only=0\n"
						   "aggregator_enable=0\n"
						   "aggregator_window=1000"), 0);
	c = collect(test);
	KUNIT_EXPECT_EQ(test, count_type(c, GRTRACE_EV_SUBMIT, 201), 10);
	for (i = 0; i < c->n; i++)
		if (c->recs[i].hdr.type == GRTRACE_EV_SUMMARY &&
		    c->recs[i].sum.ring_id == 201)
			sum += c->recs[i].sum.events;
	KUNIT_EXPECT_EQ(test, sum, 10);
}

/* The sum of /proc/grtrace_stats' offered column and what it says it lost. */
static u64 proc_offered(struct kunit *test, u64 *ring_506, bool *ring_250)
{
	static const char lost[] = "\n# not shown, of rings whose slot another took: ";
	struct seq_file m = { .size = SZ_64K };
	unsigned long long lost_off, lost_wr, off, wr, drop;
	char util[16], rate[16], lat[16], *p, *line;
	u64 sum = 0;
	u32 id;
	int n;

	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	KUNIT_ASSERT_EQ(test, grtrace_govern_show_rings(&m), 0);
	KUNIT_ASSERT_LT(test, m.count, m.size);
	p = strstr(m.buf, lost);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "%s", m.buf);
	n = sscanf(p + strlen(lost), "offered %llu written %llu", &lost_off, &lost_wr);
	KUNIT_ASSERT_EQ(test, n, 2);
	*ring_506 = 0;
	*ring_250 = false;
	p = m.buf;
	while ((line = strsep(&p, "\n"))) {
		if (sscanf(line, "%u %15s %15s %15s %llu %llu %llu", &id, util, rate, lat,
			   &off, &wr, &drop) != 7)
			continue;
		sum += off;
		if (id == 506)
			*ring_506 = off;
		*ring_250 |= id == 250;
	}
	return sum + lost_off;
}

/*
 * /proc/grtrace_stats counts events per ring in slots by id: ring 506
 * takes ring 250's slot on this CPU, and the file says what 250 had.
 */
static void grtrace_test_proc_slot_taken(struct kunit *test)
{
	struct grtrace_event ev = { .type = GRTRACE_EV_SUBMIT };
	u64 before, after, off_506;
	bool has_250;
	int i;

	if (!IS_ENABLED(CONFIG_GRTRACE_PERF_MON))
		kunit_skip(test, "no /proc/grtrace_stats (CONFIG_GRTRACE_PERF_MON)");
	before = proc_offered(test, &off_506, &has_250);
	scoped_guard(irqsave) {
		ev.job.ring_id = 250;
		for (i = 0; i < 2; i++)
			grtrace_govern(&ev, ktime_get_mono_fast_ns(), -1);
		ev.job.ring_id = 506;
		for (i = 0; i < 3; i++)
			grtrace_govern(&ev, ktime_get_mono_fast_ns(), -1);
	}
	after = proc_offered(test, &off_506, &has_250);
	KUNIT_EXPECT_EQ(test, off_506, 3);
	KUNIT_EXPECT_FALSE(test, has_250);
	KUNIT_EXPECT_EQ_MSG(test, after, before + 5, "every event counted once, shown or lost");
}

static struct kunit_case grtrace_test_cases[] = {
	KUNIT_CASE(grtrace_test_encoding),
	KUNIT_CASE(grtrace_test_jobless_wait),
	KUNIT_CASE(grtrace_test_task_wait_governed),
	KUNIT_CASE(grtrace_test_header),
	KUNIT_CASE(grtrace_test_header_epoch),
	KUNIT_CASE(grtrace_test_ring_ids_used_up),
	KUNIT_CASE(grtrace_test_ring_gone_while_met),
	KUNIT_CASE(grtrace_test_walk_lets_irqs_in),
	KUNIT_CASE(grtrace_test_watchlist_names),
	KUNIT_CASE(grtrace_test_long_names),
	KUNIT_CASE(grtrace_test_sequence),
	KUNIT_CASE(grtrace_test_drop_accounting),
	KUNIT_CASE(grtrace_test_overrun_mixed_sizes),
	KUNIT_CASE_SLOW(grtrace_test_start_stop_atomic),
	KUNIT_CASE(grtrace_test_hardirq),
	KUNIT_CASE(grtrace_test_sinks),
	KUNIT_CASE(grtrace_test_config),
	KUNIT_CASE(grtrace_test_rate_limit_order),
	KUNIT_CASE(grtrace_test_default_path),
	KUNIT_CASE(grtrace_test_aggregate_only_off),
	KUNIT_CASE(grtrace_test_aggregate_window),
	KUNIT_CASE(grtrace_test_aggregate_worker),
	KUNIT_CASE(grtrace_test_aggregate_only_on),
	KUNIT_CASE(grtrace_test_emit_size),
	KUNIT_CASE(grtrace_test_job_table_reuse),
	KUNIT_CASE(grtrace_test_held_complete_filtered),
	KUNIT_CASE(grtrace_test_held_released_by_config),
	KUNIT_CASE(grtrace_test_described_per_cpu),
	KUNIT_CASE(grtrace_test_described_once),
	KUNIT_CASE(grtrace_test_job_table_evicts),
	KUNIT_CASE(grtrace_test_adaptive_per_job),
	KUNIT_CASE(grtrace_test_proc_slot_taken),
	{}
};

static struct kunit_suite grtrace_test_suite = {
	.name = "grtrace",
	.init = grtrace_test_init,
	.exit = grtrace_test_exit,
	.test_cases = grtrace_test_cases,
};

kunit_test_suite(grtrace_test_suite);

MODULE_DESCRIPTION("KUnit tests for grtrace");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace benchmark: the cost of one event through each sink, next to a
 * bare TRACE_EVENT of the same payload recorded by ftrace.  A KUnit suite
 * of slow cases, built only with CONFIG_GRTRACE_BENCH; it measures and
 * reports, it does not judge (scripts/bench-report.py does).
 *
 * Each case runs REPS rounds of NR_EVENTS events with preemption off and
 * prints one line:
 *
 *   bench <case>: median <ns> min <ns> max <ns> ns/event (<reps> x <n>)
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/grtrace.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/trace_events.h>

#define CREATE_TRACE_POINTS
#include "grtrace_bench_trace.h"

#include "../grtrace_internal.h"

#define NR_EVENTS	20000
#define REPS		9

static struct grtrace_ring bench_ring = {
	.dev = "bench",
	.name = "gfx0",
	.engine = GRTRACE_ENGINE_GRAPHICS,
};

enum bench_op {
	OP_NONE,	/* the loop alone */
	OP_HOOK,	/* a call site: grtrace_enabled() then grtrace_submit() */
	OP_BARE,	/* the baseline tracepoint */
};

static void bench_one(enum bench_op op, struct grtrace_job *job)
{
	switch (op) {
	case OP_NONE:
		barrier();
		break;
	case OP_HOOK:
		if (grtrace_enabled())
			grtrace_submit(job);
		break;
	case OP_BARE:
		trace_grtrace_bench_bare(job, current->comm);
		break;
	}
}

/* ns per event of one round on this CPU. */
static u64 bench_round(enum bench_op op)
{
	struct grtrace_job job = {
		.ring = &bench_ring,
		.ctx_id = 1,
		.fence_context = 2,
		.depth = 1,
	};
	u64 t0, t1;
	int i;

	preempt_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < NR_EVENTS; i++) {
		job.fence_seqno = i;
		bench_one(op, &job);
	}
	t1 = ktime_get_ns();
	preempt_enable();
	return div_u64((t1 - t0) * 1000, NR_EVENTS);	/* ps, for precision */
}

struct bench_sinks {
	bool relay;
	bool ftrace_grtrace;
	bool ftrace_bare;
};

static int bench_attach(const struct bench_sinks *s)
{
	int ret;

	ret = trace_set_clr_event("grtrace", NULL, s->ftrace_grtrace);
	if (!ret)
		ret = trace_set_clr_event("grtrace_bench", NULL, s->ftrace_bare);
	if (!ret && s->relay)
		ret = grtrace_session_start();
	return ret;
}

static void bench_detach(const struct bench_sinks *s)
{
	if (s->relay)
		grtrace_session_stop();
	trace_set_clr_event("grtrace", NULL, 0);
	trace_set_clr_event("grtrace_bench", NULL, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void bench_report(struct kunit *test, const char *name, u64 *ps)
{
	sort(ps, REPS, sizeof(*ps), cmp_u64, NULL);
	kunit_info(test,
		   "bench %s: median %llu.%03llu min %llu.%03llu max %llu.%03llu ns/event (%d x %d)\n",
		   name, ps[REPS / 2] / 1000, ps[REPS / 2] % 1000, ps[0] / 1000,
		   ps[0] % 1000, ps[REPS - 1] / 1000, ps[REPS - 1] % 1000,
		   REPS, NR_EVENTS);
}

/* One CPU: rounds of @op with @s attached, each round in a new session. */
static void bench_case(struct kunit *test, const char *name, enum bench_op op,
		       const struct bench_sinks *s)
{
	u64 ps[REPS];
	int r;

	for (r = 0; r < REPS; r++) {
		KUNIT_ASSERT_EQ(test, bench_attach(s), 0);
		ps[r] = bench_round(op);
		bench_detach(s);
	}
	bench_report(test, name, ps);
}

static int grtrace_bench_init(struct kunit *test)
{
	KUNIT_ASSERT_FALSE(test, grtrace_session_running());
	KUNIT_ASSERT_EQ(test, grtrace_ring_register(&bench_ring), 0);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("level=verbose\nfilter_ring_id=-1\n"
						   "reset_stats=1"), 0);
	tracing_on();
	return 0;
}

static void grtrace_bench_exit(struct kunit *test)
{
	grtrace_ring_unregister(&bench_ring);
	grtrace_config_write("level=normal");
}

/* (a) a call site while nothing listens, and the same loop without it */
static void grtrace_bench_stopped(struct kunit *test)
{
	static const struct bench_sinks none = {};

	bench_case(test, "a_no_hook", OP_NONE, &none);
	bench_case(test, "a_hook_stopped", OP_HOOK, &none);
	KUNIT_EXPECT_FALSE(test, grtrace_enabled());
}

/* (b) relay only, (c) ftrace only, (d) both, (e) the bare baseline */
static void grtrace_bench_sinks(struct kunit *test)
{
	static const struct bench_sinks relay = { .relay = true };
	static const struct bench_sinks ftrace = { .ftrace_grtrace = true };
	static const struct bench_sinks both = { .relay = true, .ftrace_grtrace = true };
	static const struct bench_sinks bare = { .ftrace_bare = true };
	struct grtrace_totals t;

	bench_case(test, "e_bare_trace_event", OP_BARE, &bare);
	bench_case(test, "b_relay", OP_HOOK, &relay);
	bench_case(test, "c_ftrace", OP_HOOK, &ftrace);
	bench_case(test, "d_relay_and_ftrace", OP_HOOK, &both);

	/* The relay rounds wrote everything: nothing was dropped. */
	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.written, t.offered);
}

struct bench_cpu {
	struct completion go;
	struct completion done;
	enum bench_op op;
	u64 ps;
};

static int bench_cpu_fn(void *data)
{
	struct bench_cpu *bc = data;

	wait_for_completion(&bc->go);
	bc->ps = bench_round(bc->op);
	complete(&bc->done);
	return 0;
}

/* One round on every online CPU at once; the slowest CPU's ns/event. */
static u64 bench_all_cpus(struct kunit *test, enum bench_op op)
{
	struct bench_cpu *bc;
	u64 worst = 0;
	int cpu, n = 0;

	bc = kunit_kcalloc(test, nr_cpu_ids, sizeof(*bc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bc);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		init_completion(&bc[cpu].go);
		init_completion(&bc[cpu].done);
		bc[cpu].op = op;
		t = kthread_create_on_cpu(bench_cpu_fn, &bc[cpu], cpu, "grtrace_bench/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		wake_up_process(t);
		n++;
	}
	for_each_online_cpu(cpu)
		complete(&bc[cpu].go);
	for_each_online_cpu(cpu) {
		wait_for_completion(&bc[cpu].done);
		worst = max(worst, bc[cpu].ps);
	}
	return worst;
}

/* (f) (b)-(d) on all CPUs at once */
static void grtrace_bench_all_cpus(struct kunit *test)
{
	static const struct bench_sinks sinks[] = {
		{ .relay = true },
		{ .ftrace_grtrace = true },
		{ .relay = true, .ftrace_grtrace = true },
		{ .ftrace_bare = true },
	};
	static const char * const names[] = {
		"f_relay_all_cpus", "f_ftrace_all_cpus",
		"f_relay_and_ftrace_all_cpus", "f_bare_trace_event_all_cpus",
	};
	u64 ps[REPS];
	int i, r;

	for (i = 0; i < ARRAY_SIZE(sinks); i++) {
		for (r = 0; r < REPS; r++) {
			KUNIT_ASSERT_EQ(test, bench_attach(&sinks[i]), 0);
			ps[r] = bench_all_cpus(test, sinks[i].ftrace_bare ? OP_BARE : OP_HOOK);
			bench_detach(&sinks[i]);
		}
		bench_report(test, names[i], ps);
	}
	kunit_info(test, "bench cpus: %u online\n", num_online_cpus());
}

static struct kunit_case grtrace_bench_cases[] = {
	KUNIT_CASE_SLOW(grtrace_bench_stopped),
	KUNIT_CASE_SLOW(grtrace_bench_sinks),
	KUNIT_CASE_SLOW(grtrace_bench_all_cpus),
	{}
};

static struct kunit_suite grtrace_bench_suite = {
	.name = "grtrace_bench",
	.init = grtrace_bench_init,
	.exit = grtrace_bench_exit,
	.test_cases = grtrace_bench_cases,
};

kunit_test_suite(grtrace_bench_suite);

MODULE_DESCRIPTION("grtrace emit path benchmark");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace benchmark: the cost of one event through each sink, next to a
 * bare TRACE_EVENT of the same payload recorded by ftrace.  A KUnit suite
 * of slow cases, built only with CONFIG_GRTRACE_BENCH; it measures and
 * reports, it does not judge (scripts/bench-report.py does).
 *
 * A case is timed against its baseline in pairs of rounds ("pairs", a
 * module parameter) of a number of events each ("events"), after a
 * warm-up of up to 1000 more, with preemption off.  The pairs of all the
 * comparisons are spread over the whole run: pass r times one pair of
 * each comparison in turn, the case first or second as r goes ABBA
 * ABBA..., so that a change of the machine's speed, brief or lasting
 * seconds, weighs on both rounds of a pair and on every comparison alike.
 * Each pair gives a ratio (or, for a call site that does nothing, a
 * difference); the median over the pairs is the figure, the smallest and
 * largest its spread:
 *
 *   bench <case>: median <ns> min <ns> max <ns> ns/event (<pairs> x <n>)
 *   bench ratio <case>: median <r> min <r> max <r> x <baseline> (<pairs> pairs)
 *   bench diff <case>: median <ns> min <ns> max <ns> ns vs <baseline> (...)
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
#include <linux/trace.h>
#include <linux/trace_events.h>

#if IS_ENABLED(CONFIG_GRTRACE_DRM_SCHED)
#include <drm/gpu_scheduler.h>

#include "../../drm/scheduler/gpu_scheduler_trace.h"
#endif

#define CREATE_TRACE_POINTS
#include "grtrace_bench_trace.h"

#include "../grtrace_internal.h"

/*
 * Where the machine's speed changes from one millisecond to the next (a
 * virtual CPU that shares its core), a pair of rounds each well under a
 * millisecond sees one speed: shorter rounds in more pairs.
 */
static unsigned int bench_events = 2000;
module_param_named(events, bench_events, uint, 0444);
MODULE_PARM_DESC(events, "events per round (default 2000)");

#define BENCH_WARM_UP	1000U

static unsigned int bench_pairs = 101;
module_param_named(pairs, bench_pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "pairs of rounds per comparison (default 101)");

/*
 * A persistent ftrace instance (a ring buffer in memory that reserve_mem=
 * set aside at boot, made by trace_instance=NAME@LABEL), for the cost of
 * recording the grtrace events across a crash: "grtrace persist".
 */
static char *bench_instance;
module_param_named(instance, bench_instance, charp, 0444);
MODULE_PARM_DESC(instance, "a boot-mapped ftrace instance: time the grtrace events recorded there too");

static struct trace_array *bench_tr;

static struct grtrace_ring bench_ring = {
	.dev = "bench",
	.name = "gfx0",
	.engine = GRTRACE_ENGINE_GRAPHICS,
};

enum bench_op {
	OP_NONE,	/* the loop alone */
	OP_HOOK,	/* a call site: grtrace_enabled() then grtrace_submit() */
	OP_JOBS,	/* as OP_HOOK, a SUBMIT and a COMPLETE per job */
	OP_BARE,	/* the baseline tracepoint */
	OP_ATOMIC,	/* one shared atomic increment, as gseq takes */
	OP_PERCPU,	/* one per-CPU increment, as cseq takes */
	OP_CLOCK,	/* the relay stream's clock read */
	OP_SCHED,	/* drm_sched_job_queue, which grtrace's probe makes a SUBMIT */
};

#if IS_ENABLED(CONFIG_GRTRACE_DRM_SCHED)
/*
 * A scheduler job as far as grtrace's probe on drm_sched_job_queue reads it, and
 * the event itself if ftrace records it too: its scheduler and device,
 * its fences, its entity's queue.
 */
static struct device bench_dev = { .init_name = "grtrace_bench" };
static struct drm_gpu_scheduler bench_sched = { .name = "gfx0", .dev = &bench_dev };
static struct drm_sched_fence bench_s_fence = {
	.scheduled = { .context = 1 },
	.finished = { .context = 2 },
	.sched = &bench_sched,
};

static struct drm_sched_job bench_sched_job = {
	.sched = &bench_sched,
	.s_fence = &bench_s_fence,
};

static struct drm_sched_entity bench_entity;

static void bench_sched_one(unsigned int i)
{
	bench_s_fence.finished.seqno = i;
	trace_drm_sched_job_queue(&bench_sched_job, &bench_entity);
}
#else
static void bench_sched_one(unsigned int i) { }
#endif

static atomic64_t bench_shared;
static DEFINE_PER_CPU(u64, bench_local);

static void bench_one(enum bench_op op, struct grtrace_job *job, unsigned int i)
{
	switch (op) {
	case OP_NONE:
		barrier();
		break;
	case OP_HOOK:
		if (grtrace_enabled())
			grtrace_submit(job);
		break;
	case OP_JOBS:
		if (!grtrace_enabled())
			break;
		job->fence_seqno = i / 2;
		if (i & 1)
			grtrace_complete(job);
		else
			grtrace_submit(job);
		break;
	case OP_BARE:
		trace_grtrace_bench_bare(job, current->comm);
		break;
	case OP_ATOMIC:
		atomic64_inc_return(&bench_shared);
		break;
	case OP_PERCPU:
		this_cpu_inc(bench_local);
		break;
	case OP_CLOCK:
		ktime_get_mono_fast_ns();
		break;
	case OP_SCHED:
		bench_sched_one(i);
		break;
	}
}

/* ns per event of one round on this CPU. */
static u64 bench_round(enum bench_op op)
{
	struct grtrace_job job = {
		.ring = &bench_ring,
		.ctx_id = 1,
		.depth = 1,
	};
	unsigned int i;
	u64 t0, t1;

	preempt_disable();
	/* Each CPU its own jobs, as each queue of a driver has its own fences */
	job.fence_context = 2 + smp_processor_id();
	/* What a session start leaves cold: caches, an emulator's code */
	for (i = 0; i < min(bench_events, BENCH_WARM_UP); i++)
		bench_one(op, &job, i);
	t0 = ktime_get_ns();
	for (i = 0; i < bench_events; i++) {
		job.fence_seqno = i;
		bench_one(op, &job, i);
	}
	t1 = ktime_get_ns();
	preempt_enable();
	return div_u64((t1 - t0) * 1000, bench_events);	/* ps, for precision */
}

struct bench_sinks {
	bool relay;
	bool ftrace_grtrace;
	bool ftrace_bare;
	bool ftrace_instance;	/* the grtrace events in bench_tr */
	bool governed;		/* a governance setting on that drops nothing */
	const char *mode;	/* a config key set for the session */
};

static int bench_attach(const struct bench_sinks *s)
{
	int ret;

	ret = grtrace_config_write(s->governed ? "max_events_per_sec=100000000" :
				   "max_events_per_sec=0");
	if (!ret)
		ret = trace_set_clr_event("grtrace", NULL, s->ftrace_grtrace);
	if (!ret)
		ret = trace_set_clr_event("grtrace_bench", NULL, s->ftrace_bare);
	if (!ret && s->ftrace_instance)
		ret = trace_array_set_clr_event(bench_tr, "grtrace", NULL, true);
	if (!ret && s->mode)
		ret = grtrace_config_write(s->mode);
	if (!ret && s->relay)
		ret = grtrace_session_start();
	return ret;
}

static void bench_detach(const struct bench_sinks *s)
{
	if (s->relay)
		grtrace_session_stop();
	if (s->mode)
		grtrace_config_write("aggregate_only=0\nflight_recorder=0");
	trace_set_clr_event("grtrace", NULL, 0);
	trace_set_clr_event("grtrace_bench", NULL, 0);
	if (s->ftrace_instance)
		trace_array_set_clr_event(bench_tr, "grtrace", NULL, false);
}

static int cmp_s64(const void *a, const void *b)
{
	const s64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* @v: bench_pairs values in thousandths; printed as median, min, max */
static void bench_line(struct kunit *test, const char *what, const char *name,
		       s64 *v, const char *unit, const char *tail)
{
	s64 m;
	int i;
	char buf[3][24];

	sort(v, bench_pairs, sizeof(*v), cmp_s64, NULL);
	for (i = 0; i < 3; i++) {
		m = i == 0 ? v[bench_pairs / 2] : i == 1 ? v[0] : v[bench_pairs - 1];
		snprintf(buf[i], sizeof(buf[i]), "%s%lld.%03lld", m < 0 ? "-" : "",
			 abs(m) / 1000, abs(m) % 1000);
	}
	kunit_info(test, "bench %s%s: median %s min %s max %s %s%s\n", what, name,
		   buf[0], buf[1], buf[2], unit, tail);
}

struct bench_case {
	const char *name;
	enum bench_op op;
	bool all;		/* on every online CPU at once */
	struct bench_sinks s;
};

struct bench_cpu {
	struct completion go;
	struct completion done;
	enum bench_op op;
	u64 ps;
};

/* The CPUs that reached the start of a round on all CPUs */
static atomic_t bench_ready;

static int bench_cpu_fn(void *data)
{
	struct bench_cpu *bc = data;

	wait_for_completion(&bc->go);
	/* Start together: rounds that overlap only in part share less */
	atomic_inc(&bench_ready);
	while (atomic_read(&bench_ready) < num_online_cpus())
		cpu_relax();
	bc->ps = bench_round(bc->op);
	complete(&bc->done);
	return 0;
}

/*
 * One round on every online CPU at once: ps per event at the CPUs' summed
 * rate, times their number (their harmonic mean).  The slowest CPU's
 * figure would be biased by the noise: of two noisy times, the larger.
 */
static u64 bench_all_cpus(struct kunit *test, enum bench_op op)
{
	struct bench_cpu *bc;
	u64 rate = 0;	/* events per second, summed */
	int cpu;

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
	}
	atomic_set(&bench_ready, 0);
	for_each_online_cpu(cpu)
		complete(&bc[cpu].go);
	for_each_online_cpu(cpu) {
		wait_for_completion(&bc[cpu].done);
		rate += div64_u64(1000ULL * NSEC_PER_SEC, max_t(u64, bc[cpu].ps, 1));
	}
	kunit_kfree(test, bc);
	return div64_u64((u64)num_online_cpus() * 1000ULL * NSEC_PER_SEC, max_t(u64, rate, 1));
}

/* One round of @c, in a new session: ps per event (on all CPUs, as above) */
static u64 bench_run(struct kunit *test, const struct bench_case *c)
{
	u64 ps;

	KUNIT_ASSERT_EQ(test, bench_attach(&c->s), 0);
	ps = c->all ? bench_all_cpus(test, c->op) : bench_round(c->op);
	bench_detach(&c->s);
	return ps;
}

enum bench_kind {
	CMP_RATIO,	/* case / baseline */
	CMP_DIFF,	/* case - baseline, ns */
	CMP_SCALE,	/* events/s of all CPUs (case) / of one (baseline) */
};

/* A case against its baseline */
struct bench_cmp {
	const struct bench_case *c;
	const struct bench_case *base;
	enum bench_kind kind;
};

/* The rounds of a comparison: ps per event of case and baseline, and per pair */
struct bench_res {
	s64 *a;
	s64 *b;
	s64 *q;
};

/* Whether pair @r times the baseline first: ABBA ABBA... */
static bool bench_base_first(unsigned int r)
{
	return r % 4 == 0 || r % 4 == 3;
}

/* Pair @r of @cmp, the case second or first as r goes ABBA ABBA... */
static void bench_pair(struct kunit *test, const struct bench_cmp *cmp,
		       unsigned int r, struct bench_res *res)
{
	u64 a, b;

	if (bench_base_first(r)) {
		b = bench_run(test, cmp->base);
		a = bench_run(test, cmp->c);
	} else {
		a = bench_run(test, cmp->c);
		b = bench_run(test, cmp->base);
	}
	res->a[r] = a;
	res->b[r] = b;
	if (cmp->kind == CMP_DIFF)
		res->q[r] = (s64)a - (s64)b;
	else if (cmp->kind == CMP_RATIO)
		res->q[r] = div64_u64(a * 1000, max_t(u64, b, 1));
	else	/* (n / a) / (1 / b) events/s, in thousandths */
		res->q[r] = div64_u64((u64)num_online_cpus() * b * 1000, max_t(u64, a, 1));
}

static void bench_report(struct kunit *test, const struct bench_cmp *cmp,
			 struct bench_res *res)
{
	static const char * const what[] = { "ratio ", "diff ", "scaling " };
	char tail[64];

	snprintf(tail, sizeof(tail), " (%u x %u)", bench_pairs, bench_events);
	bench_line(test, "", cmp->c->name, res->a, "ns/event", tail);
	if (cmp->kind != CMP_SCALE)
		bench_line(test, "", cmp->base->name, res->b, "ns/event", tail);
	snprintf(tail, sizeof(tail), " %s (%u pairs)", cmp->base->name, bench_pairs);
	bench_line(test, what[cmp->kind], cmp->c->name, res->q,
		   cmp->kind == CMP_DIFF ? "ns vs" : cmp->kind == CMP_RATIO ? "x" : "x one CPU of",
		   tail);
}

static size_t bench_buffer_size;

static int grtrace_bench_init(struct kunit *test)
{
	/* A relay buffer that holds a round and its warm-up, and sub-buffer ends */
	size_t round = PAGE_ALIGN(((size_t)bench_events + BENCH_WARM_UP) * 3 / 2 *
				  (sizeof(struct grtrace_record) +
				   sizeof(struct grtrace_job_payload)));

	KUNIT_ASSERT_GT(test, bench_events, 0);
	KUNIT_ASSERT_GT(test, bench_pairs, 0);
	KUNIT_ASSERT_FALSE(test, grtrace_session_running());
	bench_buffer_size = grtrace_get_buffer_size();
	if (round > bench_buffer_size)
		KUNIT_ASSERT_EQ(test, grtrace_set_buffer_size(round), 0);
	/*
	 * The instance the command line made: trace_array_get_by_name() would
	 * make a plain one of a name it does not find, so the caller names
	 * only a boot-mapped one (scripts/guest/tests/bench.sh)
	 */
	if (bench_instance && !bench_tr) {
		bench_tr = trace_array_get_by_name(bench_instance, NULL);
		KUNIT_ASSERT_NOT_NULL(test, bench_tr);
	}
	grtrace_ring_register(&bench_ring);
	KUNIT_ASSERT_EQ(test, grtrace_config_write("level=verbose\nfilter_ring_id=-1\n"
						   "reset_stats=1"), 0);
	tracing_on();
	return 0;
}

static void grtrace_bench_exit(struct kunit *test)
{
	if (bench_tr)
		trace_array_put(bench_tr);
	bench_tr = NULL;
	grtrace_set_buffer_size(bench_buffer_size);
	grtrace_ring_unregister(&bench_ring);
	grtrace_config_write("level=normal");
}

static const struct bench_case bench_no_hook = { "a_no_hook", OP_NONE };
static const struct bench_case bench_stopped = { "a_hook_stopped", OP_HOOK };
static const struct bench_case bench_bare = { "e_bare_trace_event", OP_BARE, false,
					      { .ftrace_bare = true } };
static const struct bench_case bench_relay = { "b_relay", OP_HOOK, false, { .relay = true } };
static const struct bench_case bench_ftrace = { "c_ftrace", OP_HOOK, false,
						{ .ftrace_grtrace = true } };
static const struct bench_case bench_persistent = { "c_ftrace_persistent", OP_HOOK, false,
						    { .ftrace_instance = true } };
static const struct bench_case bench_both = { "d_relay_and_ftrace", OP_HOOK, false,
					      { .relay = true, .ftrace_grtrace = true } };
static const struct bench_case bench_governed = { "b_relay_governed", OP_HOOK, false,
						  { .relay = true, .governed = true } };
static const struct bench_case bench_jobs = { "h_relay_jobs", OP_JOBS, false, { .relay = true } };
static const struct bench_case bench_aggregate = { "h_aggregate_only", OP_JOBS, false,
						   { .relay = true, .mode = "aggregate_only=1" } };
static const struct bench_case bench_flight = { "h_flight_recorder", OP_JOBS, false,
						{ .relay = true, .mode = "flight_recorder=1" } };
static const struct bench_case bench_relay_all = { "f_relay_all_cpus", OP_HOOK, true,
						   { .relay = true } };
static const struct bench_case bench_ftrace_all = { "f_ftrace_all_cpus", OP_HOOK, true,
						    { .ftrace_grtrace = true } };
static const struct bench_case bench_both_all = { "f_relay_and_ftrace_all_cpus", OP_HOOK, true,
						  { .relay = true, .ftrace_grtrace = true } };
static const struct bench_case bench_jobs_all = { "f_relay_jobs_all_cpus", OP_JOBS, true,
						  { .relay = true } };
static const struct bench_case bench_aggregate_all = {
	"f_aggregate_only_all_cpus", OP_JOBS, true, { .relay = true, .mode = "aggregate_only=1" }
};

static const struct bench_case bench_bare_all = { "f_bare_trace_event_all_cpus", OP_BARE, true,
						  { .ftrace_bare = true } };
static const struct bench_case bench_clock = { "g_clock_read", OP_CLOCK };
static const struct bench_case bench_clock_all = { "g_clock_read_all_cpus", OP_CLOCK, true };
static const struct bench_case bench_no_hook_all = { "g_no_hook_all_cpus", OP_NONE, true };
static const struct bench_case bench_atomic = { "g_atomic_inc", OP_ATOMIC };
static const struct bench_case bench_atomic_all = { "g_atomic_inc_all_cpus", OP_ATOMIC, true };
static const struct bench_case bench_percpu = { "g_percpu_inc", OP_PERCPU };
static const struct bench_case bench_percpu_all = { "g_percpu_inc_all_cpus", OP_PERCPU, true };
static const struct bench_case bench_sched_stopped = { "i_sched_event_stopped", OP_SCHED };
static const struct bench_case bench_sched_relay = { "i_sched_probe_relay", OP_SCHED, false,
						     { .relay = true } };

static const struct bench_cmp bench_cmps[] = {
	/* (a) a call site while nothing listens, against the loop without it */
	{ &bench_stopped, &bench_no_hook, CMP_DIFF },
	/* (b) relay only, (c) ftrace only, (d) both, against (e) the baseline */
	{ &bench_relay, &bench_bare, CMP_RATIO },
	{ &bench_ftrace, &bench_bare, CMP_RATIO },
	{ &bench_both, &bench_bare, CMP_RATIO },
	/* (c') the grtrace events in a persistent instance (instance=) */
	{ &bench_persistent, &bench_bare, CMP_RATIO },
	/* What the governance's default path saves: a setting on, against (b) */
	{ &bench_governed, &bench_relay, CMP_RATIO },
	/*
	 * (h) the relay stream's modes, jobs of a SUBMIT and a COMPLETE,
	 * against (e): the full stream, aggregate_only (a SUBMIT looks its
	 * job up in the job table, a COMPLETE adds its latency to the
	 * window's aggregate; the job table and the aggregates are shared,
	 * under one lock) and flight_recorder (the full stream, overwriting)
	 */
	{ &bench_jobs, &bench_bare, CMP_RATIO },
	{ &bench_aggregate, &bench_bare, CMP_RATIO },
	{ &bench_flight, &bench_bare, CMP_RATIO },
	/*
	 * (f) (b) to (d) on all CPUs at once against (e) on all CPUs, and
	 * the relay stream's events/s on all CPUs against one
	 */
	{ &bench_relay_all, &bench_bare_all, CMP_RATIO },
	{ &bench_ftrace_all, &bench_bare_all, CMP_RATIO },
	{ &bench_both_all, &bench_bare_all, CMP_RATIO },
	{ &bench_relay_all, &bench_relay, CMP_SCALE },
	/*
	 * The jobs of (h) on all CPUs against one: the full stream's
	 * events/s, and aggregate_only's, which shares nothing between CPUs
	 * but the job table's shards
	 */
	{ &bench_jobs_all, &bench_jobs, CMP_SCALE },
	{ &bench_aggregate_all, &bench_aggregate, CMP_SCALE },
	/*
	 * (g) what of (b), and of (d) over (c), is the relay stream's clock
	 * read, on one CPU and on all; what the shared sequence number
	 * costs: an atomic increment against a per-CPU one, on one and on all
	 */
	{ &bench_clock, &bench_no_hook, CMP_DIFF },
	{ &bench_clock_all, &bench_no_hook_all, CMP_DIFF },
	{ &bench_atomic, &bench_percpu, CMP_DIFF },
	{ &bench_atomic_all, &bench_percpu_all, CMP_DIFF },
	/*
	 * (i) the scheduler's drm_sched_job_queue, with grtrace's probe
	 * attached while a session runs (it looks the ring up and fills the
	 * job), against (b), a driver's direct call of grtrace_submit(); and
	 * the same tracepoint while nothing listens, against the loop alone
	 */
	{ &bench_sched_relay, &bench_relay, CMP_RATIO },
	{ &bench_sched_stopped, &bench_no_hook, CMP_DIFF },
};

/* A comparison this kernel can make: instance=, the scheduler's probes */
static bool bench_cmp_runs(const struct bench_cmp *cmp)
{
	if (cmp->c->s.ftrace_instance && !bench_tr)
		return false;
	return cmp->c->op != OP_SCHED || IS_ENABLED(CONFIG_GRTRACE_DRM_SCHED);
}

/* Every comparison, their pairs interleaved; then the lines, in table order */
static void grtrace_bench_run(struct kunit *test)
{
	unsigned int n = ARRAY_SIZE(bench_cmps), i, r;
	struct bench_res *res;
	struct grtrace_totals t;

	res = kunit_kcalloc(test, n, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, res);
	for (i = 0; i < n; i++) {
		res[i].a = kunit_kmalloc_array(test, 3 * bench_pairs, sizeof(s64), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, res[i].a);
		res[i].b = res[i].a + bench_pairs;
		res[i].q = res[i].b + bench_pairs;
	}
	for (r = 0; r < bench_pairs; r++)
		for (i = 0; i < n; i++)
			if (bench_cmp_runs(&bench_cmps[i]))
				bench_pair(test, &bench_cmps[i], r, &res[i]);
	for (i = 0; i < n; i++)
		if (bench_cmp_runs(&bench_cmps[i]))
			bench_report(test, &bench_cmps[i], &res[i]);
	kunit_info(test, "bench cpus: %u online\n", num_online_cpus());

	/* Each round's session ended with it */
	KUNIT_EXPECT_FALSE(test, grtrace_enabled());
	/*
	 * Every event was written or, in the aggregate_only sessions,
	 * counted; those sessions ended with their SUMMARY records.
	 */
	grtrace_get_totals(&t);
	KUNIT_EXPECT_EQ(test, t.offered, t.written + t.dropped[GRTRACE_DROP_AGGREGATED]);
	KUNIT_EXPECT_GT(test, t.dropped[GRTRACE_DROP_AGGREGATED], 0);
	KUNIT_EXPECT_GE(test, t.summaries, bench_pairs);
	KUNIT_EXPECT_EQ(test, t.summaries_lost, 0);
}

static struct kunit_case grtrace_bench_cases[] = {
	KUNIT_CASE_SLOW(grtrace_bench_run),
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
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace governance selftests: sampling, rate limiting, filters, the
 * watchlist and the aggregator, each checked against the relay stream of
 * the same run, and the drop accounting: written + drops == offered.
 *
 * The events are injected through the emit file on rings 250-252 with the
 * copy engine class, and filter_engine_mask keeps only that class, so a
 * real GPU busy meanwhile does not disturb the counts.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/grtrace.h>

#include "../kselftest_harness.h"
#include "grtrace_util.h"

#define ENGINE GRTRACE_ENGINE_COPY
#define MAX_RECS 40000

static const char defaults[] =
	"level=normal\nfilter_type_mask=0x3ff\nfilter_engine_mask=0x4\n"
	"filter_ring_id=-1\nsample=100\nsampling_mode=static\n"
	"sampling_threshold=1000000\nbackpressure_threshold=80\n"
	"max_events_per_sec=0\nrate_limiter_mode=window\nrate_limit_burst=0\n"
	"watchlist=all\nwatch_ctx_clear=1\nwatch_allow_mode=1\n"
	"filter_enabled=0\nfilter_pid=\nfilter_uid=-1\nfilter_latency=0\n"
	"filter_events=0x3ff\naggregator_enable=0\naggregator_window=1000\n"
	"reset_stats=1\n";

static long long drops(void)
{
	static const char * const causes[] = {
		"filtered", "overrun", "sampled", "backpressure",
		"rate_limited", "untracked",
	};
	long long sum = 0;
	char key[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(causes); i++) {
		snprintf(key, sizeof(key), "dropped_%s", causes[i]);
		sum += stat_value(DIR "stats", key);
	}
	return sum;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Emit @n events "<type> <ctx> ENGINE <ring> <seq0 + i>", in big writes. */
static int emit_n(const char *type, unsigned long long ctx, int ring,
		  unsigned long long seq0, int n)
{
	static char buf[60000];
	int i = 0, ret = 0;
	size_t len;

	while (i < n && !ret) {
		len = 0;
		for (; i < n && len < sizeof(buf) - 80; i++)
			len += snprintf(buf + len, sizeof(buf) - len,
					"%s %llu %d %d %llu\n", type, ctx,
					ENGINE, ring, seq0 + i);
		ret = write_file(DIR "emit", buf);
	}
	return ret;
}

static int emit1(const char *type, unsigned long long ctx, int ring,
		 unsigned long long seq)
{
	return emit_n(type, ctx, ring, seq, 1);
}

static struct rec recs[MAX_RECS];

/* The job records of the stopped session, gseq order; -1 if malformed. */
static int read_jobs(void)
{
	static char buf[1 << 22];
	int cpu, n = 0;

	for (cpu = 0; ; cpu++) {
		ssize_t len = 0, off = 0, r;
		char name[64];
		int fd;

		snprintf(name, sizeof(name), DIR "events%d", cpu);
		fd = open(name, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			break;
		while ((r = read(fd, buf + len, sizeof(buf) - len)) > 0)
			len += r;
		close(fd);
		while (off + (ssize_t)sizeof(struct grtrace_record) <= len) {
			struct grtrace_record *h = (void *)(buf + off);

			if (h->size < sizeof(*h) || off + h->size > len)
				return -1;
			if (h->type < GRTRACE_EV_NR && n < MAX_RECS) {
				memcpy(&recs[n], h, sizeof(recs[n]));
				n++;
			}
			off += h->size;
		}
	}
	qsort(recs, n, sizeof(*recs), cmp_gseq);
	return n;
}

static int count_recs(int n, int type, long long ctx, int ring)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if ((type < 0 || recs[i].h.type == type) &&
		    (ctx < 0 || recs[i].job.fence_context == (unsigned long long)ctx) &&
		    (ring < 0 || recs[i].job.ring_id == (unsigned int)ring))
			c++;
	return c;
}

/* The original design's name of a counter, and the counter */
static const char * const seed_names[][2] = {
	{ "writes_ok", "written" },
	{ "writes_short", "dropped_overrun" },
	{ "overruns", "dropped_overrun" },
	{ "rate_limited_drops", "dropped_rate_limited" },
	{ "backpressure_drops", "dropped_backpressure" },
};

static void stop_and_check_accounting(struct __test_metadata *_metadata)
{
	unsigned int i;

	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	EXPECT_EQ(0, stat_value(DIR "stats", "held"));
	EXPECT_EQ(stat_value(DIR "stats", "offered"),
		  stat_value(DIR "stats", "written") + drops());
	EXPECT_EQ(stat_value(DIR "stats", "dropped"), drops());
	/* The original design's names of the same counters */
	for (i = 0; i < ARRAY_SIZE(seed_names); i++) {
		long long want = stat_value(DIR "stats", seed_names[i][1]);
		long long got = stat_value(DIR "stats", seed_names[i][0]);

		if (got != want)
			ksft_print_msg("stats %s=%lld, %s=%lld\n", seed_names[i][0], got,
				       seed_names[i][1], want);
		EXPECT_EQ(want, got);
	}
	EXPECT_EQ(stat_value(DIR "stats", "dropped_overrun") +
		  stat_value(DIR "stats", "dropped_untracked"),
		  stat_value(DIR "stats", "lost_events"));
	EXPECT_EQ(stat_value(DIR "filter_stats", "filtered_watch_ring") +
		  stat_value(DIR "filter_stats", "filtered_watch_ctx"),
		  stat_value(DIR "stats", "filtered_watch"));
	EXPECT_LE(stat_value(DIR "filter_stats", "filtered_events"),
		  stat_value(DIR "stats", "filtered_type"));
}

FIXTURE(gov) {
	char config[8192];
};

FIXTURE_SETUP(gov)
{
	if (access(DIR "control", W_OK))
		SKIP(return, "grtrace debugfs not available (CONFIG_GRTRACE, root)");
	if (access(DIR "sampling_stats", R_OK) || access(DIR "filter_stats", R_OK) ||
	    access(DIR "aggregator_stats", R_OK))
		SKIP(return, "CONFIG_GRTRACE_SAMPLING, _FILTER or _AGGREGATOR off");
	if (access(DIR "emit", W_OK))
		SKIP(return, "no emit file (CONFIG_GRTRACE_EMIT)");
	write_file(DIR "control", "stop");
	ASSERT_EQ(0, write_file(DIR "buffer_size", "4194304"));
	ASSERT_EQ(0, write_file(DIR "config", defaults));
	ASSERT_LT(0, read_file(DIR "config", self->config, sizeof(self->config)));
}

FIXTURE_TEARDOWN(gov)
{
	write_file(DIR "control", "stop");
	write_file(DIR "config", defaults);
	write_file(DIR "config", "filter_engine_mask=0x3f");
}

/* Static 25%: a quarter of the jobs, each with all its events. */
TEST_F(gov, sampling_static)
{
	int n, kept = 0, i;

	ASSERT_EQ(0, write_file(DIR "sampling_mode", "static"));
	ASSERT_EQ(0, write_file(DIR "sampling_rate", "25"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit_n("submit", 1000, 250, 1, 10000));
	ASSERT_EQ(0, emit_n("complete", 1000, 250, 1, 10000));
	stop_and_check_accounting(_metadata);

	n = read_jobs();
	ASSERT_LE(0, n);
	kept = count_recs(n, GRTRACE_EV_SUBMIT, 1000, 250);
	TH_LOG("static 25%%: %d of 10000 jobs kept", kept);
	EXPECT_GE(kept, 2500 - 75);
	EXPECT_LE(kept, 2500 + 75);
	EXPECT_EQ(kept, count_recs(n, GRTRACE_EV_COMPLETE, 1000, 250));
	/* Whole jobs: the kept COMPLETEs are the kept SUBMITs. */
	for (i = 0; i < n; i++) {
		int j, found = 0;

		if (recs[i].h.type != GRTRACE_EV_COMPLETE)
			continue;
		for (j = 0; j < n && !found; j++)
			found = recs[j].h.type == GRTRACE_EV_SUBMIT &&
				recs[j].job.fence_seqno == recs[i].job.fence_seqno;
		if (!found) {
			TH_LOG("COMPLETE of job %llu without its SUBMIT",
			       recs[i].job.fence_seqno);
			EXPECT_TRUE(found);
			break;
		}
	}
	EXPECT_EQ(20000 - 2 * kept, stat_value(DIR "stats", "dropped_sampled"));
	EXPECT_EQ(2 * kept, stat_value(DIR "sampling_stats", "kept"));
}

/* Threshold: exactly the jobs slower than the threshold, whole. */
TEST_F(gov, sampling_threshold)
{
	const unsigned long long thr = 200000000;	/* 200 ms */
	unsigned long long t0, took[16];
	int n, i, slow = 0, fast_ok = 0, dropped = 0;

	ASSERT_EQ(0, write_file(DIR "sampling_mode", "threshold"));
	ASSERT_EQ(0, write_file(DIR "sampling_threshold", "200000000"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	for (i = 0; i < 16; i++) {
		t0 = now_ns();
		ASSERT_EQ(0, emit1("submit", 2000, 250, i));
		ASSERT_EQ(0, emit1("commit", 2000, 250, i));
		if (i % 2)
			usleep(300000);
		ASSERT_EQ(0, emit1("complete", 2000, 250, i));
		took[i] = now_ns() - t0;
	}
	EXPECT_LT(0, stat_value(DIR "stats", "dropped_sampled"));
	stop_and_check_accounting(_metadata);

	n = read_jobs();
	ASSERT_LE(0, n);
	for (i = 0; i < 16; i++) {
		unsigned long long sub = 0, comp = 0;
		int k = 0, j;

		for (j = 0; j < n; j++) {
			if (recs[j].job.fence_seqno != (unsigned int)i ||
			    recs[j].job.fence_context != 2000)
				continue;
			k++;
			if (recs[j].h.type == GRTRACE_EV_SUBMIT)
				sub = recs[j].h.ts;
			if (recs[j].h.type == GRTRACE_EV_COMPLETE)
				comp = recs[j].h.ts;
		}
		/* A job is kept or dropped whole. */
		EXPECT_TRUE(k == 0 || k == 3);
		dropped += k == 0;
		if (i % 2) {
			/* Slow: all three events, timed as slower. */
			EXPECT_EQ(3, k);
			EXPECT_GT(comp - sub, thr);
			slow += k == 3;
		} else if (took[i] < thr) {
			/* Fast (unless the machine stalled us): none. */
			EXPECT_EQ(0, k);
			fast_ok++;
		}
	}
	TH_LOG("threshold: %d slow jobs kept, %d fast jobs dropped", slow, fast_ok);
	EXPECT_EQ(8, slow);
	EXPECT_LE(6, fast_ok);
	/*
	 * The kernel times a job from its SUBMIT to its COMPLETE, this test
	 * around the three writes: a fast job the machine stalled may be
	 * dropped and not counted in fast_ok, so count the drops by record.
	 */
	EXPECT_EQ(3 * dropped, stat_value(DIR "stats", "dropped_sampled"));
}

static int cpu0_rate(void)
{
	return stat_value(DIR "sampling_stats", "cpu0_rate");
}

/* Adaptive: the rate falls above backpressure_threshold, recovers below. */
TEST_F(gov, sampling_adaptive)
{
	long long bp1, bp2, bp3;
	char buf[1 << 16];
	cpu_set_t set;
	int fd, seq = 0;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, write_file(DIR "buffer_size", "65536"));
	ASSERT_EQ(0, write_file(DIR "config", "sampling_mode=adaptive\nsample=100\n"
				"backpressure_threshold=50"));
	ASSERT_EQ(1, stat_value(DIR "config", "adaptive_sampling"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));

	/* 64 KiB hold ~560 records: 150 fill it to ~27%. */
	ASSERT_EQ(0, emit_n("submit", 3000, 250, seq, 150));
	seq += 150;
	bp1 = stat_value(DIR "stats", "dropped_backpressure");
	EXPECT_EQ(0, bp1);
	EXPECT_EQ(100, cpu0_rate());

	/* Past 50%, jobs are rejected more and more. */
	ASSERT_EQ(0, emit_n("submit", 3000, 250, seq, 400));
	seq += 400;
	bp2 = stat_value(DIR "stats", "dropped_backpressure");
	TH_LOG("adaptive: %lld dropped for backpressure, rate now %d%%, fill %lld%%",
	       bp2, cpu0_rate(), stat_value(DIR "sampling_stats", "cpu0_fill"));
	EXPECT_LT(0, bp2);
	EXPECT_GT(100, cpu0_rate());

	/* Drain the buffer: the rate recovers. */
	fd = open(DIR "events0", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	ASSERT_EQ(0, emit_n("submit", 3000, 250, seq, 50));
	bp3 = stat_value(DIR "stats", "dropped_backpressure");
	EXPECT_EQ(bp2, bp3);
	EXPECT_EQ(100, cpu0_rate());
	stop_and_check_accounting(_metadata);
}

/* Window limiter: at most N per second of the clock, the rest counted. */
TEST_F(gov, rate_limit_window)
{
	int n, i, written, win = 0, maxwin = 0;
	unsigned long long sec = 0;

	ASSERT_EQ(0, write_file(DIR "rate_limit_mode", "window"));
	ASSERT_EQ(0, write_file(DIR "rate_limit", "1000"));
	ASSERT_EQ(1000, stat_value(DIR "config", "max_events_per_sec"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit_n("submit", 4000, 250, 0, 5000));
	stop_and_check_accounting(_metadata);

	n = read_jobs();
	ASSERT_LE(0, n);
	written = count_recs(n, -1, 4000, 250);
	for (i = 0; i < n; i++) {
		if (recs[i].job.fence_context != 4000)
			continue;
		if (recs[i].h.ts / 1000000000ULL != sec) {
			sec = recs[i].h.ts / 1000000000ULL;
			win = 0;
		}
		win++;
		if (win > maxwin)
			maxwin = win;
	}
	TH_LOG("window: %d written, at most %d in a second", written, maxwin);
	EXPECT_LE(maxwin, 1000);
	EXPECT_GE(written, 1000);
	EXPECT_EQ(5000 - written, stat_value(DIR "stats", "dropped_rate_limited"));
	EXPECT_EQ(5000 - written, stat_value(DIR "stats", "rate_limited_drops"));
}

/* The original design's numbers for the limiter's modes: 0 and 1. */
TEST_F(gov, rate_limit_mode_numbers)
{
	char buf[4096];

	ASSERT_EQ(0, write_file(DIR "config", "rate_limiter_mode=1"));
	ASSERT_LT(0, read_file(DIR "config", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "rate_limiter_mode=token_bucket\n"));
	ASSERT_EQ(0, write_file(DIR "rate_limit_mode", "0"));
	ASSERT_LT(0, read_file(DIR "config", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "rate_limiter_mode=window\n"));
	EXPECT_EQ(-EINVAL, write_file(DIR "config", "rate_limiter_mode=2"));
	ASSERT_LT(0, read_file(DIR "config", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "rate_limiter_mode=window\n"));
}

/*
 * Without the aggregator, /proc/grtrace_stats has no utilisation or
 * latency to show, and says why under its header.
 */
TEST_F(gov, proc_stats_without_aggregator)
{
	static const char note[] =
		"\n# utilization% and avg_latency_us: - until aggregator_enable=1\n";
	char buf[8192], util[32], rate[32], lat[32], *line;
	unsigned long long off, wr, dr;
	int n;

	if (access("/proc/grtrace_stats", R_OK))
		SKIP(return, "no /proc/grtrace_stats (CONFIG_GRTRACE_PERF_MON)");
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit1("submit", 7000, 250, 1));
	ASSERT_EQ(0, emit1("complete", 7000, 250, 1));
	ASSERT_LT(0, read_file("/proc/grtrace_stats", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, note));
	line = strstr(buf, "\n250 ");
	ASSERT_NE(NULL, line);
	n = sscanf(line, " 250 %31s %31s %31s %llu %llu %llu", util, rate, lat, &off, &wr, &dr);
	ASSERT_EQ(6, n);
	EXPECT_STREQ("-", util);
	EXPECT_STREQ("-", lat);
	EXPECT_LE(2, wr);
	stop_and_check_accounting(_metadata);
}

/* Token bucket: a full bucket of burst, then the rate. */
TEST_F(gov, rate_limit_token_bucket)
{
	unsigned long long t0, t1, t2, t3, ts0, ts1 = 0;
	int i, n, first, second;
	double span;

	ASSERT_EQ(0, write_file(DIR "config", "rate_limiter_mode=token_bucket\n"
				"max_events_per_sec=1000\nrate_limit_burst=2000"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	t0 = now_ns();
	ASSERT_EQ(0, emit_n("submit", 5000, 250, 0, 5000));
	t1 = now_ns();
	usleep(500000);
	t2 = now_ns();
	ASSERT_EQ(0, emit_n("submit", 5001, 250, 0, 2000));
	t3 = now_ns();
	stop_and_check_accounting(_metadata);

	n = read_jobs();
	ASSERT_LE(0, n);
	first = count_recs(n, -1, 5000, 250);
	second = count_recs(n, -1, 5001, 250);
	span = (t1 - t0) / 1e9;
	TH_LOG("token bucket: burst %d in %.3f s, then %d in %.3f s after 0.5 s",
	       first, span, second, (t3 - t2) / 1e9);
	EXPECT_GE(first, 2000);
	EXPECT_LE(first, 2000 + (int)(1000 * span) + 1);
	/* The bucket refilled for at least 0.5 s, give or take a token. */
	EXPECT_GE(second, 500 - 1);
	/*
	 * What a token bucket promises, on the bucket's own clock, the time
	 * stamps of the records (the GPU's own included): from the first
	 * event on, no more than a full bucket plus the rate times the time
	 * elapsed, give or take a fraction of a token.  The test's clock
	 * would also count its own stalls between two reads of it (seen under
	 * QEMU TCG: 14 ms between the burst's last event and t1).
	 */
	ts0 = recs[0].h.ts;
	for (i = 0; i < n; i++) {
		ts0 = recs[i].h.ts < ts0 ? recs[i].h.ts : ts0;
		ts1 = recs[i].h.ts > ts1 ? recs[i].h.ts : ts1;
	}
	TH_LOG("token bucket: %d records in %.3f s of their time stamps",
	       n, (ts1 - ts0) / 1e9);
	EXPECT_LE(n, 2000 + (int)(1000 * ((ts1 - ts0) / 1e9)) + 1);
	EXPECT_EQ(7000 - first - second,
		  stat_value(DIR "stats", "dropped_rate_limited"));
}

static void emit_rings(struct __test_metadata *_metadata, unsigned long long ctx)
{
	int r;

	for (r = 250; r <= 252; r++) {
		ASSERT_EQ(0, emit_n("submit", ctx, r, 0, 10));
		ASSERT_EQ(0, emit_n("complete", ctx, r, 0, 10));
	}
}

/* The ring watchlist, as an allow list and as a deny list. */
TEST_F(gov, watchlist_rings)
{
	int n;

	ASSERT_EQ(0, write_file(DIR "watchlist", "250,251"));
	ASSERT_EQ(2, stat_value(DIR "config", "watch_ring_count"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	emit_rings(_metadata, 6000);
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(20, count_recs(n, -1, 6000, 250));
	EXPECT_EQ(20, count_recs(n, -1, 6000, 251));
	EXPECT_EQ(0, count_recs(n, -1, 6000, 252));
	EXPECT_EQ(20, stat_value(DIR "filter_stats", "filtered_watch_ring"));
	EXPECT_EQ(20, stat_value(DIR "stats", "filtered_watch"));

	ASSERT_EQ(0, write_file(DIR "config", "reset_stats=1"));
	ASSERT_EQ(0, write_file(DIR "watchlist", "!251"));
	ASSERT_EQ(1, stat_value(DIR "config", "watch_ring_count"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	emit_rings(_metadata, 6001);
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(20, count_recs(n, -1, 6001, 250));
	EXPECT_EQ(0, count_recs(n, -1, 6001, 251));
	EXPECT_EQ(20, count_recs(n, -1, 6001, 252));
	EXPECT_EQ(20, stat_value(DIR "filter_stats", "filtered_watch_ring"));
}

/* The context watchlist: emit uses the fence context as the ctx id. */
TEST_F(gov, watchlist_ctx)
{
	int n;

	ASSERT_EQ(0, write_file(DIR "config", "watch_ctx_add=7001\nwatch_ctx_add=7003\n"
				"watch_allow_mode=1"));
	ASSERT_EQ(2, stat_value(DIR "config", "watch_count"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	emit_rings(_metadata, 7001);
	emit_rings(_metadata, 7002);
	emit_rings(_metadata, 7003);
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(60, count_recs(n, -1, 7001, -1));
	EXPECT_EQ(0, count_recs(n, -1, 7002, -1));
	EXPECT_EQ(60, count_recs(n, -1, 7003, -1));
	EXPECT_EQ(60, stat_value(DIR "filter_stats", "filtered_watch_ctx"));

	ASSERT_EQ(0, write_file(DIR "config", "watch_allow_mode=0\nreset_stats=1"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	emit_rings(_metadata, 7001);
	emit_rings(_metadata, 7002);
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(0, count_recs(n, -1, 7001, -1));
	EXPECT_EQ(60, count_recs(n, -1, 7002, -1));

	ASSERT_EQ(0, write_file(DIR "config", "watch_ctx_clear=1"));
	ASSERT_EQ(0, stat_value(DIR "config", "watch_count"));
}

/*
 * With a type filter of SUBMIT and COMPLETE set: 10 events of each of four
 * types, of which the 20 COMMITs and ENDs are dropped as filtered_type.
 */
static void only_submit_complete(struct __test_metadata *_metadata,
				 unsigned long long ctx)
{
	static const char * const types[] = { "submit", "commit", "end", "complete" };
	unsigned int i;
	int n;

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	for (i = 0; i < ARRAY_SIZE(types); i++)
		ASSERT_EQ(0, emit_n(types[i], ctx, 250, 0, 10));
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(10, count_recs(n, GRTRACE_EV_SUBMIT, ctx, 250));
	EXPECT_EQ(0, count_recs(n, GRTRACE_EV_COMMIT, ctx, 250));
	EXPECT_EQ(0, count_recs(n, GRTRACE_EV_END, ctx, 250));
	EXPECT_EQ(10, count_recs(n, GRTRACE_EV_COMPLETE, ctx, 250));
	EXPECT_EQ(20, stat_value(DIR "stats", "filtered_type"));
}

/* filter_events keeps the types of its mask. */
TEST_F(gov, filter_events)
{
	ASSERT_EQ(0, write_file(DIR "filter_enabled", "1"));
	ASSERT_EQ(0, write_file(DIR "filter_events", "0x11"));	/* submit, complete */
	only_submit_complete(_metadata, 8000);
	EXPECT_EQ(20, stat_value(DIR "filter_stats", "filtered_events"));
}

/* So does filter_type_mask, before the governance. */
TEST_F(gov, filter_type_mask)
{
	ASSERT_EQ(0, write_file(DIR "config", "filter_type_mask=0x11"));
	only_submit_complete(_metadata, 8100);
	EXPECT_EQ(0, stat_value(DIR "filter_stats", "filtered_events"));
}

/* Emit 5 jobs (SUBMIT, COMMIT, COMPLETE) of context @ctx, as user @uid if >= 0. */
static int do_emit(unsigned long long ctx, int uid)
{
	char buf[4096];
	size_t len = 0;
	int fd, i;

	fd = open(DIR "emit", O_WRONLY);
	if (fd < 0 || (uid >= 0 && setuid(uid)))
		return 1;
	for (i = 0; i < 5; i++)
		len += snprintf(buf + len, sizeof(buf) - len,
				"submit %llu %d 250 %d\ncommit %llu %d 250 %d\n"
				"complete %llu %d 250 %d\n", ctx, ENGINE, i,
				ctx, ENGINE, i, ctx, ENGINE, i);
	return write(fd, buf, len) == (ssize_t)len ? 0 : 1;
}

static pid_t emit_child(unsigned long long ctx, int uid)
{
	pid_t pid = fork();

	if (!pid)
		_exit(do_emit(ctx, uid));
	return pid;
}

static int wait_ok(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

/* filter_pid keeps the jobs of the listed processes, all their events. */
TEST_F(gov, filter_pid)
{
	char pids[64];
	int n, go[2];
	pid_t a, b;

	/* Fork first, list the child's pid, then let it emit. */
	ASSERT_EQ(0, pipe(go));
	a = fork();
	ASSERT_LE(0, a);
	if (!a) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(do_emit(9001, -1));
	}
	close(go[0]);
	snprintf(pids, sizeof(pids), "%d,4194305", a);
	ASSERT_EQ(0, write_file(DIR "filter_enabled", "1"));
	ASSERT_EQ(-EINVAL, write_file(DIR "filter_pid", pids));
	snprintf(pids, sizeof(pids), "1,%d", a);
	ASSERT_EQ(0, write_file(DIR "filter_pid", pids));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(1, write(go[1], "x", 1));
	close(go[1]);
	ASSERT_TRUE(wait_ok(a));
	b = emit_child(9002, -1);
	ASSERT_TRUE(wait_ok(b));
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(15, count_recs(n, -1, 9001, 250));
	EXPECT_EQ(0, count_recs(n, -1, 9002, 250));
	EXPECT_EQ(15, stat_value(DIR "filter_stats", "filtered_pid"));
}

/* filter_uid keeps the jobs submitted by that user. */
TEST_F(gov, filter_uid)
{
	pid_t a, b;
	int n;

	ASSERT_EQ(0, write_file(DIR "config", "filter_enabled=1\nfilter_uid=4321"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	a = emit_child(9101, 4321);
	ASSERT_TRUE(wait_ok(a));
	b = emit_child(9102, -1);
	ASSERT_TRUE(wait_ok(b));
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	EXPECT_EQ(15, count_recs(n, -1, 9101, 250));
	EXPECT_EQ(0, count_recs(n, -1, 9102, 250));
	EXPECT_EQ(15, stat_value(DIR "filter_stats", "filtered_uid"));
}

/*
 * filter_latency keeps the jobs slower than it, whole.  A job that took
 * less between the two writes of the test took less in the kernel too; one
 * that took more here, with no sleep, may have been fast in the kernel.
 */
TEST_F(gov, filter_latency)
{
	unsigned long long t0, took[8];
	int n, i, fast_ok = 0, dropped = 0;

	ASSERT_EQ(0, write_file(DIR "config", "filter_enabled=1\nfilter_latency=200000"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	for (i = 0; i < 8; i++) {
		t0 = now_ns();
		ASSERT_EQ(0, emit1("submit", 9200, 250, i));
		if (i % 2)
			usleep(300000);
		ASSERT_EQ(0, emit1("complete", 9200, 250, i));
		took[i] = now_ns() - t0;
	}
	stop_and_check_accounting(_metadata);
	n = read_jobs();
	for (i = 0; i < 8; i++) {
		int j, k = 0;

		for (j = 0; j < n; j++)
			k += recs[j].job.fence_context == 9200 &&
			     recs[j].job.fence_seqno == (unsigned int)i;
		if (i % 2) {
			EXPECT_EQ(2, k);
			continue;
		}
		EXPECT_TRUE(k == 0 || k == 2);
		dropped += !k;
		if (took[i] < 200000000) {
			EXPECT_EQ(0, k);
			fast_ok++;
		}
	}
	EXPECT_LE(3, fast_ok);
	EXPECT_EQ(2 * dropped, stat_value(DIR "filter_stats", "filtered_latency"));
}

struct agg {
	unsigned long long events, jobs, lat_sum, lat_min, lat_max;
	unsigned long long depth_sum, depth_n, depth_peak, busy;
};

/* The aggregator's totals equal a recomputation from the relay stream. */
TEST_F(gov, aggregator)
{
	static char buf[16384];
	struct agg want[3] = {}, got;
	int n, i, j, r, ring, matched = 0;
	char scope[16], *p;

	ASSERT_EQ(0, write_file(DIR "aggregator_enable", "1"));
	ASSERT_EQ(0, write_file(DIR "aggregator_window", "60000"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	for (i = 0; i < 12; i++) {
		r = 250 + i % 3;
		ASSERT_EQ(0, emit1("submit", 9300, r, i));
		ASSERT_EQ(0, emit1("commit", 9300, r, i));
		usleep(1000 * (i % 4));
		ASSERT_EQ(0, emit1("end", 9300, r, i));
		ASSERT_EQ(0, emit1("complete", 9300, r, i));
	}
	/* A job that never completes: counted, but no latency. */
	ASSERT_EQ(0, emit1("submit", 9300, 250, 100));
	stop_and_check_accounting(_metadata);

	n = read_jobs();
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		struct grtrace_job_payload *job = &recs[i].job;
		struct agg *a;

		if (job->fence_context != 9300)
			continue;
		a = &want[job->ring_id - 250];
		a->events++;
		if (recs[i].h.type == GRTRACE_EV_SUBMIT) {
			a->depth_sum += job->depth;
			a->depth_n++;
			if (job->depth > a->depth_peak)
				a->depth_peak = job->depth;
		}
		for (j = i - 1; j >= 0; j--) {
			if (recs[j].job.fence_seqno != job->fence_seqno ||
			    recs[j].job.fence_context != 9300)
				continue;
			if (recs[i].h.type == GRTRACE_EV_COMPLETE &&
			    recs[j].h.type == GRTRACE_EV_SUBMIT) {
				unsigned long long lat = recs[i].h.ts - recs[j].h.ts;

				if (!a->jobs || lat < a->lat_min)
					a->lat_min = lat;
				if (lat > a->lat_max)
					a->lat_max = lat;
				a->lat_sum += lat;
				a->jobs++;
				break;
			}
			if (recs[i].h.type == GRTRACE_EV_END &&
			    recs[j].h.type == GRTRACE_EV_COMMIT) {
				a->busy += recs[i].h.ts - recs[j].h.ts;
				break;
			}
		}
	}

	ASSERT_LT(0, read_file(DIR "aggregator_stats", buf, sizeof(buf)));
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long avg, davg_i, davg_f;

		if (sscanf(p, "%d %15s %llu %llu %llu %llu %llu %llu %llu.%llu %llu %llu",
			   &ring, scope, &got.events, &got.jobs, &got.lat_sum, &avg,
			   &got.lat_min, &got.lat_max, &davg_i, &davg_f,
			   &got.depth_peak, &got.busy) != 12 ||
		    strcmp(scope, "total") || ring < 250 || ring > 252)
			continue;
		r = ring - 250;
		EXPECT_EQ(want[r].events, got.events);
		EXPECT_EQ(want[r].jobs, got.jobs);
		EXPECT_EQ(want[r].lat_sum, got.lat_sum);
		EXPECT_EQ(want[r].lat_min, got.lat_min);
		EXPECT_EQ(want[r].lat_max, got.lat_max);
		EXPECT_EQ(want[r].depth_peak, got.depth_peak);
		EXPECT_EQ(want[r].busy, got.busy);
		EXPECT_EQ(want[r].depth_sum * 100 / want[r].depth_n,
			  davg_i * 100 + davg_f);
		matched++;
	}
	EXPECT_EQ(3, matched);
	TH_LOG("aggregator: ring 250 %llu events, %llu jobs, latency %llu..%llu ns",
	       want[0].events, want[0].jobs, want[0].lat_min, want[0].lat_max);

	/* /proc/grtrace_stats: per ring figures adding up to stats. */
	if (read_file("/proc/grtrace_stats", buf, sizeof(buf)) > 0) {
		unsigned long long off, wr, dr, so = 0, sw = 0;
		char util[32], rate[32], lat[32];

		for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
			if (sscanf(p, "%d %31s %31s %31s %llu %llu %llu", &ring,
				   util, rate, lat, &off, &wr, &dr) != 7)
				continue;
			so += off;
			sw += wr;
			EXPECT_EQ(off, wr + dr);
			if (ring == 250) {
				EXPECT_EQ(want[0].events, wr);
				EXPECT_EQ(want[0].lat_sum / want[0].jobs / 1000,
					  strtoull(lat, NULL, 10));
			}
		}
		EXPECT_EQ(stat_value(DIR "stats", "offered"), so);
		EXPECT_EQ(stat_value(DIR "stats", "written"), sw);
	}
}

/* Every key refuses bad values with EINVAL and changes nothing. */
TEST_F(gov, invalid_values)
{
	static const char * const bad[] = {
		"sample=101", "sample=-1", "sample=x", "sampling=200",
		"sampling_rate=", "sampling_mode=fast", "sampling_threshold=-5",
		"sampling_threshold=1ms", "adaptive_sampling=maybe",
		"backpressure_threshold=101", "max_events_per_sec=-1",
		"rate_limit=lots", "rate_limiter_mode=leaky", "rate_limit_mode=",
		"rate_limiter_mode=2", "rate_limiter_mode=-1",
		"rate_limit_burst=-1", "watchlist=4294967296", "watchlist=1,x",
		"watchlist=!", "watch_allow_mode=2", "watch_ctx_add=ctx",
		"watch_ctx_clear=0", "watch_count=3", "watch_ring_count=1",
		"filter_enabled=yesno", "filter_pid=12,abc", "filter_pid=0",
		"filter_pid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		"filter_uid=-2", "filter_uid=bob", "filter_latency=-1",
		"filter_events=0x400", "aggregator_enable=2",
		"aggregator_window=99", "aggregator_window=60001",
		"sample=50\naggregator_window=5",
	};
	static const char * const files[][2] = {
		{ "sampling", "101" }, { "sampling_rate", "abc" },
		{ "sampling_mode", "random" }, { "sampling_threshold", "x" },
		{ "rate_limit", "-3" }, { "rate_limit_mode", "bucket" },
		{ "rate_limit_burst", "z" }, { "watchlist", "0,-1" },
		{ "filter_enabled", "7" }, { "filter_pid", "-4" },
		{ "filter_uid", "u" }, { "filter_latency", "fast" },
		{ "filter_events", "0x800" }, { "aggregator_enable", "on?" },
		{ "aggregator_window", "50" }, { "level", "4" },
		{ "sampling", "50\n60" },
	};
	char after[8192];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = write_file(DIR "config", bad[i]);

		if (ret != -EINVAL)
			TH_LOG("config accepted \"%s\" (%d)", bad[i], ret);
		EXPECT_EQ(-EINVAL, ret);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char name[128];
		int ret;

		snprintf(name, sizeof(name), DIR "%s", files[i][0]);
		ret = write_file(name, files[i][1]);
		if (ret != -EINVAL)
			TH_LOG("%s accepted \"%s\" (%d)", files[i][0], files[i][1], ret);
		EXPECT_EQ(-EINVAL, ret);
	}
	ASSERT_LT(0, read_file(DIR "config", after, sizeof(after)));
	EXPECT_STREQ(self->config, after);

	/* A full context list is a different error. */
	for (i = 0; i < 16; i++) {
		char line[64];

		snprintf(line, sizeof(line), "watch_ctx_add=%u", 100 + i);
		ASSERT_EQ(0, write_file(DIR "config", line));
	}
	EXPECT_EQ(-ENOSPC, write_file(DIR "config", "watch_ctx_add=999"));
	EXPECT_EQ(16, stat_value(DIR "config", "watch_count"));
}

/* events / trace_pipe: the merged stream, in gseq order, ends after stop. */
TEST_F(gov, merged_stream)
{
	static char buf[1 << 20];
	unsigned long long last = 0;
	ssize_t len = 0, r, off = 0;
	int fd, recs_n = 0, jobs = 0;

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	fd = open(DIR "trace_pipe", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, open(DIR "events", O_RDONLY) < 0 ? -errno : 0);
	ASSERT_EQ(0, emit_n("submit", 9400, 250, 0, 300));
	ASSERT_EQ(0, emit_n("complete", 9400, 250, 0, 300));
	/* Some of it while running... */
	r = read(fd, buf, sizeof(buf));
	ASSERT_LT(0, r);
	len = r;
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	/* ...the rest after stop, then end of file. */
	while ((r = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += r;
	EXPECT_EQ(0, r);
	close(fd);

	while (off + (ssize_t)sizeof(struct grtrace_record) <= len) {
		struct grtrace_record *h = (void *)(buf + off);
		struct grtrace_job_payload *job = (void *)(h + 1);

		ASSERT_LE(sizeof(*h), h->size);
		EXPECT_EQ(last + 1, h->gseq);
		last = h->gseq;
		if (h->type < GRTRACE_EV_NR && job->fence_context == 9400)
			jobs++;
		recs_n++;
		off += h->size;
	}
	EXPECT_EQ(off, len);
	TH_LOG("trace_pipe: %d records, %d of the test's jobs", recs_n, jobs);
	EXPECT_EQ(600, jobs);
	EXPECT_EQ(600, stat_value(DIR "stats", "written"));
	/* gseq counts every record written: none is missing. */
	EXPECT_EQ(recs_n, (long long)last);
}

TEST_HARNESS_MAIN

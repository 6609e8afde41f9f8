// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace selftests: control state machine, config validation, and the
 * relay stream of a few injected events decoded record by record.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/grtrace.h>

#include "../kselftest_harness.h"
#include "grtrace_util.h"

/* Read every events<N> file into @recs; returns count or -1 if malformed. */
static int read_stream(struct rec *recs, int max)
{
	static char buf[1 << 20];
	int cpu, n = 0;

	for (cpu = 0; ; cpu++) {
		char name[64];
		ssize_t len, off = 0;
		int fd;

		snprintf(name, sizeof(name), DIR "events%d", cpu);
		fd = open(name, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			break;
		len = 0;
		for (;;) {
			ssize_t r = read(fd, buf + len, sizeof(buf) - len);

			if (r <= 0)
				break;
			len += r;
		}
		close(fd);
		while (off + (ssize_t)sizeof(struct grtrace_record) <= len) {
			struct grtrace_record *h = (void *)(buf + off);

			if (h->size < sizeof(*h) || h->size % 8 || off + h->size > len)
				return -1;
			if (n < max) {
				memset(&recs[n], 0, sizeof(recs[n]));
				memcpy(&recs[n], h, h->size < sizeof(recs[n]) ?
				       h->size : sizeof(recs[n]));
				n++;
			}
			off += h->size;
		}
		if (off != len)
			return -1;
	}
	qsort(recs, n, sizeof(*recs), cmp_gseq);
	return n;
}

FIXTURE(grtrace) {
	char config[4096];
};

FIXTURE_SETUP(grtrace)
{
	if (access(DIR "control", W_OK))
		SKIP(return, "grtrace debugfs not available (CONFIG_GRTRACE, root)");
	write_file(DIR "control", "stop");
	/* Ring 250 is ours; real GPUs may be busy meanwhile and are filtered. */
	ASSERT_EQ(0, write_file(DIR "config", "level=normal\nfilter_type_mask=0x3ff\n"
				"filter_engine_mask=0x3f\nfilter_ring_id=250\nreset_stats=1\n"));
	ASSERT_LT(0, read_file(DIR "config", self->config, sizeof(self->config)));
}

FIXTURE_TEARDOWN(grtrace)
{
	write_file(DIR "control", "stop");
	write_file(DIR "config", "filter_ring_id=-1");
}

/* start, emit x3, stop: stats and the relay stream show exactly those. */
TEST_F(grtrace, smoke)
{
	static const int want[] = {
		GRTRACE_EV_SUBMIT, GRTRACE_EV_COMMIT, GRTRACE_EV_COMPLETE,
	};
	static struct rec recs[256];
	int n, i, jobs = 0, si = 0;
	char comm[16] = "";
	FILE *f;

	f = fopen("/proc/self/comm", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(1, stat_value(DIR "stats", "enabled"));
	ASSERT_EQ(0, write_file(DIR "emit", "submit 100 0 250 7"));
	ASSERT_EQ(0, write_file(DIR "emit", "emit commit 100 0 250 7"));
	ASSERT_EQ(0, write_file(DIR "emit", "complete 100 0 250 7"));
	ASSERT_EQ(0, write_file(DIR "control", "stop"));

	EXPECT_EQ(3, stat_value(DIR "stats", "written"));
	EXPECT_EQ(0, stat_value(DIR "stats", "dropped_overrun"));
	EXPECT_EQ(stat_value(DIR "stats", "offered"),
		  stat_value(DIR "stats", "written") + stat_value(DIR "stats", "dropped"));
	EXPECT_EQ(1, stat_value(DIR "events_by_type", "submit"));
	EXPECT_EQ(1, stat_value(DIR "events_by_type", "commit"));
	EXPECT_EQ(1, stat_value(DIR "events_by_type", "complete"));

	n = read_stream(recs, 256);
	ASSERT_LT(0, n);
	ASSERT_EQ(GRTRACE_EV_STREAM_INFO, recs[0].h.type);
	EXPECT_EQ(GRTRACE_MAGIC, recs[0].si.magic);
	EXPECT_EQ(GRTRACE_FORMAT_VERSION, recs[0].si.version);
	for (i = 0; i < n; i++) {
		struct grtrace_job_payload *j = &recs[i].job;

		EXPECT_EQ(i + 1, recs[i].h.gseq);
		if (recs[i].h.type == GRTRACE_EV_STREAM_INFO) {
			si++;
			continue;
		}
		if (recs[i].h.type == GRTRACE_EV_METADATA)
			continue;
		ASSERT_LT(jobs, 3);
		EXPECT_EQ(want[jobs], recs[i].h.type);
		EXPECT_EQ(100, j->ctx_id);
		EXPECT_EQ(100, j->fence_context);
		EXPECT_EQ(7, j->fence_seqno);
		EXPECT_EQ(250, j->ring_id);
		EXPECT_EQ(GRTRACE_ENGINE_GRAPHICS, j->engine);
		if (recs[i].h.type == GRTRACE_EV_SUBMIT) {
			EXPECT_EQ(getpid(), j->pid);
			EXPECT_EQ(getpid(), j->tgid);
			EXPECT_STREQ(comm, j->comm);
		} else {
			EXPECT_EQ(0, j->pid);
		}
		jobs++;
	}
	EXPECT_EQ(1, si);
	EXPECT_EQ(3, jobs);
}

/* Wrong-state commands and bad values fail with EINVAL, changing nothing. */
TEST_F(grtrace, invalid_input)
{
	static const char * const bad_config[] = {
		"nosuchkey=1", "level=loud", "level=9", "level=", "=1",
		"filter_ring_id=999", "filter_type_mask=0x400",
		"filter_engine_mask=banana", "reset_stats=0",
		"level=verbose\nfilter_ring_id=x",
	};
	static const char * const bad_emit[] = {
		"submit", "launch 1 0 250 1", "submit 1 9 250 1", "submit 1 0 256 1",
		"submit 1 0 0 1",
		"submit 1 0 250 1 extra", "submit -1 0 250 1", "\n",
	};
	char after[4096];
	unsigned int i;

	for (i = 0; i < sizeof(bad_config) / sizeof(*bad_config); i++) {
		int ret = write_file(DIR "config", bad_config[i]);

		if (ret != -EINVAL)
			TH_LOG("config accepted \"%s\"", bad_config[i]);
		EXPECT_EQ(-EINVAL, ret);
	}
	EXPECT_EQ(-EINVAL, write_file(DIR "level", "loud"));
	ASSERT_LT(0, read_file(DIR "config", after, sizeof(after)));
	EXPECT_STREQ(self->config, after);

	EXPECT_EQ(-EINVAL, write_file(DIR "control", "stop"));
	EXPECT_EQ(-EINVAL, write_file(DIR "control", "restart"));
	EXPECT_EQ(-EINVAL, write_file(DIR "buffer_size", "12345"));
	EXPECT_EQ(-EINVAL, write_file(DIR "buffer_size", "0"));
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	EXPECT_EQ(-EINVAL, write_file(DIR "control", "start"));
	EXPECT_EQ(-EBUSY, write_file(DIR "buffer_size", "8388608"));
	for (i = 0; i < sizeof(bad_emit) / sizeof(*bad_emit); i++) {
		int ret = write_file(DIR "emit", bad_emit[i]);

		if (ret != -EINVAL)
			TH_LOG("emit accepted \"%s\"", bad_emit[i]);
		EXPECT_EQ(-EINVAL, ret);
	}
	EXPECT_EQ(0, stat_value(DIR "stats", "written"));
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	ASSERT_LT(0, read_file(DIR "buffer_size", after, sizeof(after)));
	EXPECT_EQ(4194304, strtoll(after, NULL, 0));
}

TEST_HARNESS_MAIN

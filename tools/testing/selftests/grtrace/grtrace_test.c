// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace selftests: control state machine, config validation, and the
 * relay stream of a few injected events decoded record by record.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/grtrace.h>
#include <linux/userfaultfd.h>

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
	if (access(DIR "emit", W_OK))
		SKIP(return, "no emit file (CONFIG_GRTRACE_EMIT)");
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
		"filter_ring_id=-2", "filter_type_mask=0x400",
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

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/* Write @line to emit from CPU @cpu: 0 or -errno. */
static int emit_on(int cpu, const char *line)
{
	cpu_set_t set, old;
	int ret;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	ret = write_file(DIR "emit", line);
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}

/*
 * A CPU that is offline while the counters are reset or a session starts
 * is reset too: stats count nothing of it, and its first record of the
 * new session has cseq 1, as for every other CPU.
 */
TEST_F(grtrace, offline_cpu)
{
	static struct rec recs[256];
	int n, i, first = -1;

	if (access(CPU1_ONLINE, W_OK) || write_file(CPU1_ONLINE, "1"))
		SKIP(return, "CPU 1 cannot go offline");
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit_on(1, "submit 100 0 250 1\ncomplete 100 0 250 1"));
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	/* Ours, and whatever the real GPU reported meanwhile. */
	ASSERT_LE(2, stat_value(DIR "stats", "offered"));

	ASSERT_EQ(0, write_file(CPU1_ONLINE, "0"));
	EXPECT_EQ(0, write_file(DIR "config", "reset_stats=1"));
	EXPECT_EQ(0, stat_value(DIR "stats", "offered"));
	EXPECT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, write_file(CPU1_ONLINE, "1"));
	EXPECT_EQ(0, emit_on(1, "submit 100 0 250 2"));
	ASSERT_EQ(0, write_file(DIR "control", "stop"));

	n = read_stream(recs, 256);
	ASSERT_LT(0, n);
	for (i = 0; i < n && first < 0; i++)
		if (recs[i].h.cpu == 1)
			first = i;
	/* The METADATA of ring 250, then the SUBMIT. */
	ASSERT_LE(0, first);
	EXPECT_EQ(1, recs[first].h.cseq);
}

struct pipe_reader {
	void *page;
	ssize_t ret;
};

static void *read_pipe(void *arg)
{
	struct pipe_reader *r = arg;
	int fd = open(DIR "trace_pipe", O_RDONLY);

	r->ret = fd < 0 ? -errno : read(fd, r->page, 4096);
	if (r->ret < 0 && fd >= 0)
		r->ret = -errno;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *stop_session(void *arg)
{
	*(int *)arg = write_file(DIR "control", "stop");
	return NULL;
}

/*
 * A reader of trace_pipe whose buffer faults and does not get its page (a
 * userfaultfd nobody serves) does not hold up stop.  Closing the
 * userfaultfd lets the fault in: the reader then gets its records.
 */
TEST_F(grtrace, pipe_fault)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct pipe_reader r = { .ret = 1 };
	pthread_t reader, stopper;
	int uffd, stopped = 1, i;
	struct pollfd pfd;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "no userfaultfd (CONFIG_USERFAULTFD)");
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	r.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.page);
	reg.range.start = (unsigned long)r.page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, write_file(DIR "emit", "submit 100 0 250 1"));
	ASSERT_EQ(0, pthread_create(&reader, NULL, read_pipe, &r));
	/* The reader is stuck in its fault once the fault is queued. */
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));

	ASSERT_EQ(0, pthread_create(&stopper, NULL, stop_session, &stopped));
	for (i = 0; i < 50 && stopped == 1; i++)
		usleep(100000);
	EXPECT_EQ(0, stopped);

	close(uffd);
	pthread_join(reader, NULL);
	pthread_join(stopper, NULL);
	EXPECT_LT(0, r.ret);
	munmap(r.page, 4096);
}

/* Read @fd in pieces of 1, 7 and 13 bytes into @buf from *@len, until 0 or -1. */
static ssize_t read_pieces(int fd, char *buf, size_t size, size_t *len)
{
	static const size_t piece[] = { 1, 7, 13 };
	ssize_t r;
	int i = 0;

	for (;;) {
		size_t n = piece[i++ % 3];

		if (*len + n > size)
			return -1;
		r = read(fd, buf + *len, n);
		if (r <= 0)
			return r;
		*len += r;
	}
}

/*
 * The records of a session read from the merged stream: whole, in gseq
 * order from 1, its SUBMITs numbered from 1.  Returns the SUBMITs, and in
 * *@on_cpu those written on CPU @cpu.
 */
static int pipe_submits(struct __test_metadata *_metadata, const char *buf,
			size_t len, int cpu, int *on_cpu)
{
	size_t off = 0;
	__u64 gseq = 0;
	int jobs = 0;

	while (off + sizeof(struct grtrace_record) <= len) {
		const struct grtrace_record *h = (const void *)(buf + off);
		const struct grtrace_job_payload *j = (const void *)(h + 1);

		if (h->size < sizeof(*h) || h->size % 8 || off + h->size > len)
			break;
		EXPECT_EQ(++gseq, h->gseq);
		if (h->type == GRTRACE_EV_SUBMIT) {
			EXPECT_EQ(++jobs, j->fence_seqno);
			*on_cpu += (int)h->cpu == cpu;
		}
		off += h->size;
	}
	EXPECT_EQ(len, off);
	return jobs;
}

/*
 * The merged stream read a few bytes at a time, while the session runs
 * and after it stopped, by one reader and then another: the pieces make
 * up whole records in gseq order, none lost or repeated.  The SUBMITs are
 * written on two CPUs this task may run on, two on one then one on the
 * other, so that the next record is now in the buffer just read, now in
 * the other.
 */
TEST_F(grtrace, pipe_small_reads)
{
	static char buf[1 << 16];
	int cpu[2] = { -1, -1 }, cpus = 0, on_second = 0;
	size_t len = 0;
	cpu_set_t set;
	char cmd[64];
	int fd, i;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (i = 0; i < CPU_SETSIZE && cpus < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[cpus++] = i;
	if (cpus < 2)
		TH_LOG("one CPU: no records of two CPUs to merge");
	ASSERT_EQ(0, write_file(DIR "control", "start"));
	for (i = 1; i <= 20; i++) {
		snprintf(cmd, sizeof(cmd), "submit 100 0 250 %d", i);
		ASSERT_EQ(0, emit_on(cpu[i % 3 == 0 && cpus == 2], cmd));
	}
	fd = open(DIR "trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	/* Live: what is there, then EAGAIN. */
	EXPECT_EQ(-1, read_pieces(fd, buf, sizeof(buf), &len));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LT(0, len);
	close(fd);
	for (i = 21; i <= 40; i++) {
		snprintf(cmd, sizeof(cmd), "submit 100 0 250 %d", i);
		ASSERT_EQ(0, emit_on(cpu[i % 3 == 0 && cpus == 2], cmd));
	}
	/* Another reader goes on where the first stopped. */
	fd = open(DIR "trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read_pieces(fd, buf, sizeof(buf), &len));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	/* Stopped: the rest, then end of file. */
	EXPECT_EQ(0, read_pieces(fd, buf, sizeof(buf), &len));
	close(fd);
	EXPECT_EQ(40, pipe_submits(_metadata, buf, len, cpu[1], &on_second));
	/* 3, 6, ..., 39 */
	EXPECT_EQ(cpus == 2 ? 13 : 0, on_second);
}

/* Opening @path fails with EBUSY. */
static void open_busy(struct __test_metadata *_metadata, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
}

/*
 * The merged stream takes whole records from the buffers and holds one of
 * each CPU, the events<N> files take any bytes: they do not read the same
 * session.  Neither opens while the other is open, nor on a session the
 * other read from, until the next start; the merged stream of a session
 * of its own gives whole records.
 */
TEST_F(grtrace, pipe_or_cpu_files)
{
	static char buf[1 << 16];
	int on_cpu = 0;
	size_t len = 0;
	char byte;
	int fd;

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit_on(0, "submit 100 0 250 1"));
	fd = open(DIR "events0", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	open_busy(_metadata, DIR "trace_pipe");
	/* One byte of a record, the rest left in the buffer. */
	ASSERT_EQ(1, read(fd, &byte, 1));
	close(fd);
	open_busy(_metadata, DIR "trace_pipe");
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	open_busy(_metadata, DIR "trace_pipe");

	ASSERT_EQ(0, write_file(DIR "control", "start"));
	ASSERT_EQ(0, emit_on(0, "submit 100 0 250 1"));
	fd = open(DIR "trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	open_busy(_metadata, DIR "events0");
	ASSERT_EQ(0, write_file(DIR "control", "stop"));
	EXPECT_EQ(0, read_pieces(fd, buf, sizeof(buf), &len));
	close(fd);
	open_busy(_metadata, DIR "events0");
	EXPECT_EQ(1, pipe_submits(_metadata, buf, len, -1, &on_cpu));
}

TEST_HARNESS_MAIN

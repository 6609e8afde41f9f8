// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace record: save the relay stream of all CPUs into one file.
 *
 * The output is itself a grtrace stream: the records of every events<N>
 * file, unchanged, in gseq order, followed by one GR_TOOL_STATS record with
 * the kernel's stats at the end of the recording.  Any grtrace reader reads
 * it like a single per-CPU file.
 *
 * Relay files cannot be spliced; they are read with read() after poll(),
 * which only reports a full sub-buffer, so they are also read on a short
 * timeout.  Records are held back until no CPU can still produce a lower
 * gseq: after a pass that read every file to its current end, every record
 * whose gseq is below the highest gseq seen before that pass has been read
 * (gseq is taken after the space is reserved), so those are written out.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "input.h"
#include "stream.h"
#include "utils.h"

#define POLL_MS		200
#define IDLE_NS		(100 * 1000 * 1000)

struct record_params {
	const char *output;
	__u64 duration;
	bool start;
	bool quiet;
};

struct pending {
	__u64 gseq;
	size_t off;		/* in the arena */
	__u16 size;
};

struct recorder {
	struct record_params *p;
	char **files;
	int nr_files;
	struct gr_reader *rd;
	struct pollfd *pfd;
	int out;
	unsigned char *arena;
	size_t arena_len;
	size_t arena_cap;
	struct pending *pend;
	size_t nr_pend;
	size_t cap_pend;
	__u64 seen_gseq;	/* highest gseq read */
	__u64 out_gseq;		/* highest gseq written */
	__u64 records;
	__u64 bytes;
	__u64 dropped0;		/* kernel "dropped" at the start */
	__u64 t0;
	bool started;		/* the session was started by us */
};

/* Set by the SIGINT and SIGTERM handler; lock-free, so async-signal-safe. */
static atomic_int record_stop;

static void record_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace record [-h] [-D] -o FILE [-d DURATION] [-s] [-q]",
		"",
		"  Read the relay files of all CPUs into FILE, in gseq order, until",
		"  Ctrl-C, SIGTERM, the duration, or the end of the session.  On a",
		"  session that is not running, save what the relay files still hold",
		"  and stop.  Reading the relay files consumes their data.",
		"",
		"    -o/--output FILE: the output file, - for stdout",
		"    -d/--duration DURATION: stop after DURATION seconds (or Nm, Nh)",
		"    -s/--start: reset the kernel counters and start a session if none",
		"                runs; stop it at the end",
		"    -q/--quiet: no live status line",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void record_parse_args(int argc, char *argv[], struct record_params *p)
{
	static const struct option opts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "start",	no_argument,		NULL, 's' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "o:d:sqDh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			p->output = optarg;
			break;
		case 'd':
			if (gr_parse_seconds(optarg, &p->duration) || !p->duration)
				record_usage("invalid --duration: seconds above 0, or Nm, Nh");
			break;
		case 's':
			p->start = true;
			break;
		case 'q':
			p->quiet = true;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			record_usage(NULL);
			break;
		default:
			record_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		record_usage("unexpected argument");
	if (!p->output)
		record_usage("-o/--output FILE is required");
}

static void on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static int write_all(struct recorder *rc, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(rc->out, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			gr_err_msg("%s: write error: %s\n", rc->p->output, strerror(errno));
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static void add_pending(struct recorder *rc, const struct grtrace_record *rec)
{
	struct pending *pd;

	if (rc->arena_len + rec->size > rc->arena_cap) {
		rc->arena_cap = (rc->arena_cap + rec->size) * 2;
		rc->arena = gr_realloc(rc->arena, rc->arena_cap, 1);
	}
	if (rc->nr_pend == rc->cap_pend) {
		rc->cap_pend = rc->cap_pend ? 2 * rc->cap_pend : 4096;
		rc->pend = gr_realloc(rc->pend, rc->cap_pend, sizeof(*rc->pend));
	}
	pd = &rc->pend[rc->nr_pend++];
	pd->gseq = rec->gseq;
	pd->off = rc->arena_len;
	pd->size = rec->size;
	memcpy(rc->arena + rc->arena_len, rec, rec->size);
	rc->arena_len += rec->size;
	if (rec->gseq > rc->seen_gseq)
		rc->seen_gseq = rec->gseq;
}

/* Read every file to its current end.  Returns: records read, or -1. */
static long drain(struct recorder *rc)
{
	const struct grtrace_record *rec;
	long n = 0;
	__u64 off;
	int i, ret;

	for (i = 0; i < rc->nr_files; i++) {
		while ((ret = gr_reader_next(&rc->rd[i], &rec, &off)) > 0) {
			add_pending(rc, rec);
			n++;
		}
		if (ret < 0)
			return -1;
	}
	return n;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/* Write the pending records up to gseq @last, in gseq order. */
static int flush(struct recorder *rc, __u64 last)
{
	unsigned char *keep;
	size_t i, k, len = 0;
	int ret = 0;

	qsort(rc->pend, rc->nr_pend, sizeof(*rc->pend), cmp_pending);
	for (i = 0; i < rc->nr_pend && rc->pend[i].gseq <= last; i++) {
		ret = write_all(rc, rc->arena + rc->pend[i].off, rc->pend[i].size);
		if (ret)
			return ret;
		rc->records++;
		rc->bytes += rc->pend[i].size;
		rc->out_gseq = rc->pend[i].gseq;
	}
	if (!i)
		return 0;
	/* Keep the rest, compacted */
	keep = gr_zalloc(rc->arena_cap);
	for (k = i; k < rc->nr_pend; k++) {
		memcpy(keep + len, rc->arena + rc->pend[k].off, rc->pend[k].size);
		rc->pend[k - i] = rc->pend[k];
		rc->pend[k - i].off = len;
		len += rc->pend[k].size;
	}
	free(rc->arena);
	rc->arena = keep;
	rc->arena_len = len;
	rc->nr_pend -= i;
	return 0;
}

/* The GR_TOOL_STATS record: the kernel stats, after the last record. */
static int write_stats(struct recorder *rc, const char *stats)
{
	size_t len = strlen(stats) + 1, size;
	struct grtrace_record *rec;
	int ret;

	if (len > GR_REC_MAX - GR_REC_MIN)
		len = GR_REC_MAX - GR_REC_MIN;
	size = GR_REC_MIN + ((len + 7) & ~7UL);
	rec = gr_zalloc(size);
	rec->type = GR_TOOL_STATS;
	rec->size = size;
	rec->cpu = GR_TOOL_CPU;
	rec->ts = gr_now_ns();
	rec->gseq = rc->out_gseq + 1;
	memcpy(rec + 1, stats, len - 1);
	ret = write_all(rc, rec, size);
	free(rec);
	return ret;
}

static __u64 kernel_dropped(void)
{
	char *stats = gr_kernel_read("stats");
	char buf[32] = "0";

	if (stats)
		gr_stats_get(stats, "dropped", buf, sizeof(buf));
	free(stats);
	return strtoull(buf, NULL, 10);
}

static void status_line(struct recorder *rc)
{
	__u64 sec = (gr_now_ns() - rc->t0) / NSEC_PER_SEC;

	fprintf(stderr, "\rgrtrace record: %llu records, %llu KiB, %llu dropped, %llu s ",
		(unsigned long long)rc->records, (unsigned long long)rc->bytes / 1024,
		(unsigned long long)(kernel_dropped() - rc->dropped0),
		(unsigned long long)sec);
}

static int open_inputs(struct recorder *rc)
{
	int i;

	rc->files = gr_kernel_relay_files();
	if (!rc->files) {
		gr_err_msg("%s: %s\n", gr_kernel_dir(), strerror(errno));
		return -1;
	}
	while (rc->files[rc->nr_files])
		rc->nr_files++;
	if (!rc->nr_files) {
		gr_err_msg("%s: no events<N> files: no session since grtrace was loaded (try -s)\n",
			   gr_kernel_dir());
		return -1;
	}
	rc->rd = gr_zalloc(rc->nr_files * sizeof(*rc->rd));
	rc->pfd = gr_zalloc(rc->nr_files * sizeof(*rc->pfd));
	for (i = 0; i < rc->nr_files; i++) {
		rc->rd[i].fd = -1;
		if (gr_reader_open(&rc->rd[i], rc->files[i], true))
			return -1;
		rc->pfd[i].fd = rc->rd[i].fd;
		rc->pfd[i].events = POLLIN;
	}
	return 0;
}

static int open_output(struct recorder *rc)
{
	if (!strcmp(rc->p->output, "-")) {
		rc->out = STDOUT_FILENO;
		return 0;
	}
	rc->out = open(rc->p->output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rc->out < 0) {
		gr_err_msg("%s: %s\n", rc->p->output, strerror(errno));
		return -1;
	}
	return 0;
}

/* Start a session for -s.  Returns: 1 if running, 0 if stopped, -1. */
static int record_start(struct recorder *rc)
{
	int running = gr_session_running();
	int ret;

	if (running || !rc->p->start)
		return running;
	ret = gr_kernel_write("config", "reset_stats=1\n");
	if (!ret)
		ret = gr_kernel_write("control", "start\n");
	if (ret) {
		gr_err_msg("cannot start a session: %s\n", strerror(-ret));
		return -1;
	}
	rc->started = true;
	return 1;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	nanosleep(&ts, NULL);
}

/* Record while the session runs, until a signal or the duration. */
static int record_loop(struct recorder *rc)
{
	__u64 end = rc->p->duration ? rc->t0 + rc->p->duration * NSEC_PER_SEC : 0;
	bool tty = !rc->p->quiet && isatty(STDERR_FILENO);
	__u64 next_tick = 0, last;
	long n;

	while (!record_stop && (!end || gr_now_ns() < end)) {
		if (poll(rc->pfd, rc->nr_files, POLL_MS) < 0 && errno != EINTR) {
			gr_err_msg("poll: %s\n", strerror(errno));
			return -1;
		}
		last = rc->seen_gseq;
		n = drain(rc);
		if (n < 0 || flush(rc, last))
			return -1;
		if (gr_now_ns() >= next_tick) {
			next_tick = gr_now_ns() + NSEC_PER_SEC;
			if (!rc->started && gr_session_running() == 0) {
				gr_debug_msg("the session was stopped\n");
				break;
			}
			if (tty)
				status_line(rc);
		}
		if (!n && !record_stop)
			sleep_ns(IDLE_NS);
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

static void print_totals(struct recorder *rc, const char *stats)
{
	FILE *f = rc->out == STDOUT_FILENO ? stderr : stdout;
	double sec = (gr_now_ns() - rc->t0) / 1e9;
	const char *line;
	char buf[64];

	fprintf(f, "grtrace record: %llu records, %llu bytes in %s, %.1f s\n",
		(unsigned long long)rc->records, (unsigned long long)rc->bytes,
		rc->p->output, sec);
	if (!stats)
		return;
	fprintf(f, "  kernel: offered %s",
		gr_stats_get(stats, "offered", buf, sizeof(buf)) ?: "?");
	fprintf(f, ", written %s", gr_stats_get(stats, "written", buf, sizeof(buf)) ?: "?");
	fprintf(f, ", dropped %s (counters since the last reset_stats)\n",
		gr_stats_get(stats, "dropped", buf, sizeof(buf)) ?: "?");
	for (line = stats; line; line = gr_next_line(line))
		if (!strncmp(line, "dropped_", 8))
			fprintf(f, "  dropped %.*s\n", (int)strcspn(line + 8, "\n"), line + 8);
}

static void record_cleanup(struct recorder *rc)
{
	int i;

	for (i = 0; rc->rd && i < rc->nr_files; i++)
		gr_reader_close(&rc->rd[i]);
	free(rc->rd);
	free(rc->pfd);
	gr_free_list(rc->files);
	free(rc->arena);
	free(rc->pend);
	if (rc->out > STDOUT_FILENO)
		close(rc->out);
}

static int record_finish(struct recorder *rc)
{
	char *stats;
	int i, ret = 0;

	if (rc->started && gr_kernel_write("control", "stop\n"))
		gr_err_msg("cannot stop the session\n");
	if (drain(rc) < 0 || flush(rc, ~0ULL))
		return -1;
	for (i = 0; i < rc->nr_files; i++)
		ret |= gr_reader_finish(&rc->rd[i]);
	stats = gr_kernel_read("stats");
	if (stats)
		ret |= write_stats(rc, stats);
	print_totals(rc, stats);
	free(stats);
	return ret ? -1 : 0;
}

int gr_record_main(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct record_params params;
	struct recorder rc = { .p = &params, .out = -1 };
	int running, ret = EXIT_FAILURE;

	record_parse_args(argc, argv, &params);
	if (gr_kernel_check())
		return EXIT_FAILURE;
	running = record_start(&rc);
	if (running < 0 || open_inputs(&rc) || open_output(&rc))
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc.t0 = gr_now_ns();
	rc.dropped0 = kernel_dropped();
	if (!running)
		fprintf(stderr, "grtrace: no session running: saving what the relay files hold\n");
	else if (record_loop(&rc))
		goto out;
	if (!record_finish(&rc))
		ret = EXIT_SUCCESS;
out:
	if (ret && rc.started)
		gr_kernel_write("control", "stop\n");
	record_cleanup(&rc);
	return ret;
}

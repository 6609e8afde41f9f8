// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace record: save the relay stream of all CPUs into one file.
 *
 * The output is itself a grtrace stream: the records of every events<N>
 * file, unchanged, in strictly increasing gseq order, followed by one
 * GR_TOOL_STATS record with the kernel's stats at the end of the recording.
 * Any grtrace reader reads it like a single per-CPU file.
 *
 * The merge.  The kernel takes a record's gseq (one counter for all CPUs)
 * after reserving its space in the relay buffer of its CPU, and publishes
 * the record in the same section, with interrupts disabled; dropped events
 * take no gseq.  So each events<N> file is in gseq order, and the files are
 * merged as k sorted queues: a pass reads every file (at most READ_PASS_MAX
 * bytes each, so that the clock and the stop flag are looked at often) into
 * the queue of its CPU, then the merge writes, lowest head first (a heap of
 * the queues), every record whose gseq is the next one, the last written
 * plus one, as soon as it has been read.
 *
 * Gaps.  When the next gseq is in no queue, its record is either not
 * published yet (a CPU took the gseq and is still writing the record), or
 * gone: read before by another reader of the relay files.  The records
 * after the gap are held back until it is filled or declared lost:
 *
 *  - at once, when every file is past it: a file whose last record read has
 *    a higher gseq can no longer bring it;
 *  - otherwise (a file behind it: a quiet CPU, or one whose backlog is not
 *    read yet), when the gap has stayed open for GAP_NS of wall time and
 *    every file behind it was since read to its end, by a read begun after
 *    that time; so a gap is never lost because the recorder itself was slow;
 *  - or when the records held back reach HOLD_MAX bytes.
 *
 * A record that arrives after its gap was declared lost ("late") would break
 * the gseq order (readers reject a backwards gseq): it is counted and not
 * written.  The gseqs below the first record written are not counted: they
 * were read before this recording began.
 *
 * Output goes through an OUT_BUF buffer, written when full and when its
 * oldest byte is OUT_MAX_AGE_NS old: a slow file system (9p) sees a few
 * large writes, not one per record.  The stop flag (SIGINT, SIGTERM) and
 * the end of the duration are checked after every pass and every write of
 * the buffer, so they take effect within a pass at any load; what was read
 * is written before the exit.
 *
 * The end.  What the relay files hold then is read, at most one relay
 * buffer (buffer_size bytes) per file, not chasing a producer that keeps
 * writing, and written: on an output slower than the events came, that
 * takes the time the output needs for them (at most a relay buffer per
 * CPU); a second SIGINT or SIGTERM cuts it short.  Let M be the highest
 * gseq read, or, if lower, the last gseq read from a file that still had
 * more than its relay buffer (a producer writing on): what that file holds
 * above it is past the end.  If the session still runs, the files behind M
 * are read again until every gap below M is filled, for at most GAP_NS from
 * then, whatever the first read took of their relay buffer: a record a CPU
 * added below M after its file was read is no producer's backlog.  A file
 * is read again only while it is behind M, so a producer writing on adds
 * at most one pass (READ_PASS_MAX) above M.  The gaps left below M are
 * lost.
 * Records above M follow the cut: they are written as long as no gap comes
 * before them, the others are counted as read past the end and not written.
 * A stopped session publishes nothing more: its gaps are lost at once.
 *
 * The files cannot be spliced or polled: they are read with read() every
 * BATCH_MS while records come in, every IDLE_MS when none do.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "input.h"
#include "stream.h"
#include "upstream.h"
#include "utils.h"

#include <tracefs.h>

#define MSEC_NS		(1000 * 1000ULL)

/*
 * How long a gap stays open before it is lost.  A record is published in
 * the same interrupts-disabled section that took its gseq, a few hundred
 * instructions later; only a CPU stopped by the hypervisor (a descheduled
 * vCPU thread, a TCG stall: 14 ms seen in the project's guest) stretches
 * that.  500 ms is far above any such stall and still short next to the
 * time a relay buffer takes to fill (4 MiB hold 35,000 job records: 1.7 s
 * at 20,000 events/s on one CPU).
 */
#define GAP_NS		(500 * MSEC_NS)
#define MIB		(1024UL * 1024)
#define HOLD_MAX	(64 * MIB)	/* bytes held back behind a gap */
#define READ_PASS_MAX	MIB		/* bytes read from one file per pass */
#define OUT_BUF		MIB		/* output buffer */
#define OUT_MAX_AGE_NS	(200 * MSEC_NS)
#define BATCH_BYTES	(64UL << 10)	/* a pass reading less sleeps BATCH_MS */
#define BATCH_MS	10
#define IDLE_MS		50		/* sleep after a pass reading nothing */
#define TICK_NS		NSEC_PER_SEC	/* status line, session check */
#define FINAL_MAX	(256UL << 20)	/* final read per file, buffer_size unknown */
#define DEBUG_GAPS	20		/* gaps and late records told one by one */

struct record_params {
	const char *output;
	__u64 duration;	/* ns, 0 for none */
	bool start;
	bool quiet;
	enum gr_use use;
};

enum { OPT_EVENTS = 256 };

/* One CPU's events<N> file and the records read from it, not yet written. */
struct cpu_queue {
	struct gr_reader rd;
	unsigned char *buf;
	size_t head;		/* first record held */
	size_t tail;		/* end of the records held */
	size_t cap;
	__u64 last_gseq;	/* of the last record read: later ones are higher */
	__u64 end_ns;		/* start of the last read that reached the end */
	__u64 final_bytes;	/* read by the end's first read */
	bool at_end;		/* the last read reached the end */
};

struct recorder {
	struct record_params *p;
	char **files;
	int nr_files;
	struct cpu_queue *q;
	int *heap;		/* queues holding records, by their head's gseq */
	int nr_heap;
	size_t held;		/* bytes in all queues */
	int out;
	unsigned char *obuf;
	size_t olen;
	__u64 ons;		/* when the oldest byte of obuf was put there */
	__u64 out_gseq;		/* highest gseq written or declared lost */
	__u64 seen_gseq;	/* highest gseq read */
	__u64 gap_ns;		/* when the gap after out_gseq was seen, or 0 */
	__u64 records;
	__u64 bytes;
	__u64 lost;		/* gseqs declared lost */
	__u64 gaps;		/* gaps declared lost */
	__u64 late;		/* records of lost gseqs, read afterwards */
	__u64 unwritten;	/* records read past the end, not written */
	__u64 before;		/* gseqs below the first record written */
	__u64 dropped0;		/* kernel "dropped" at the start */
	char *config0;		/* kernel "config" at the start */
	__u64 t0;
	__u64 end;		/* end of the duration, or 0 */
	bool started;		/* the session was started by us */
	bool finishing;		/* in record_finish() */
};

/*
 * Set by the SIGINT and SIGTERM handler: the number of signals.  Lock-free,
 * so async-signal-safe.
 */
static atomic_int record_stop;

static void record_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace record [-h] [-D] [-o FILE] [-d DURATION] [-s] [-q]",
		"         [--events grtrace|kernel]",
		"",
		"  Read the relay files of all CPUs into FILE, in gseq order, until",
		"  Ctrl-C, SIGTERM, the duration, or the end of the session.  On a",
		"  session that is not running, save what the relay files still hold",
		"  and stop.  Reading the relay files consumes their data.  A gap in",
		"  gseq is lost once every file is past it, or after 500 ms.",
		"",
		"    -o/--output FILE: the output file, - for stdout; default " GR_DEFAULT_INPUT,
		"    -d/--duration DURATION: stop after DURATION seconds (1.5, 250ms, 10m, 1h)",
		"    -s/--start: reset the kernel counters and start a session if none",
		"                runs; stop it at the end",
		"    -q/--quiet: no live status line",
		"       --events grtrace|kernel: kernel: record the kernel's own GPU",
		"                job events (gpu_scheduler, dma_fence_signaled,",
		"                virtio_gpu, i915's requests) into a trace.dat with",
		"                trace-cmd, as on a kernel without grtrace (the",
		"                default there)",
		"    -D/--debug: print debug messages (gaps, late records)",
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
		{ "events",	required_argument,	NULL, OPT_EVENTS },
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
			if (gr_parse_duration(optarg, &p->duration))
				record_usage("invalid --duration: 1.5, 250ms, 10m; up to a year");
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
		case OPT_EVENTS:
			if (gr_use_parse(optarg, &p->use) || p->use == GR_USE_AUTO)
				record_usage("invalid --events: grtrace or kernel");
			break;
		default:
			record_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		record_usage(gr_unexpected(argv[optind]));
	if (!p->output)
		p->output = GR_DEFAULT_INPUT;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&record_stop, 1);
}

/* Stop the recording: a signal, or the end of the duration. */
static bool time_to_stop(const struct recorder *rc)
{
	return record_stop || (rc->end && gr_now_ns() >= rc->end);
}

/* Stop writing: while recording, time_to_stop(); at the end, a second signal. */
static bool merge_stop(const struct recorder *rc)
{
	return rc->finishing ? record_stop >= 2 : time_to_stop(rc);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * MSEC_NS };

	nanosleep(&ts, NULL);	/* a signal ends it early: fine */
}

/* ---- output ---- */

static int out_flush(struct recorder *rc)
{
	const unsigned char *p = rc->obuf;
	size_t len = rc->olen;
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
	rc->olen = 0;
	return 0;
}

static int out_put(struct recorder *rc, const void *rec, size_t size)
{
	if (rc->olen + size > OUT_BUF && out_flush(rc))
		return -1;
	if (!rc->olen)
		rc->ons = gr_now_ns();
	memcpy(rc->obuf + rc->olen, rec, size);
	rc->olen += size;
	return 0;
}

/* ---- the queues of the CPUs, and the heap of their heads ---- */

static const struct grtrace_record *q_head(const struct cpu_queue *q)
{
	return (const void *)(q->buf + q->head);
}

static __u64 heap_key(const struct recorder *rc, int i)
{
	return q_head(&rc->q[rc->heap[i]])->gseq;
}

static void heap_swap(struct recorder *rc, int a, int b)
{
	int t = rc->heap[a];

	rc->heap[a] = rc->heap[b];
	rc->heap[b] = t;
}

static void heap_down(struct recorder *rc, int i)
{
	int c;

	for (; (c = 2 * i + 1) < rc->nr_heap; i = c) {
		if (c + 1 < rc->nr_heap && heap_key(rc, c + 1) < heap_key(rc, c))
			c++;
		if (heap_key(rc, i) <= heap_key(rc, c))
			break;
		heap_swap(rc, i, c);
	}
}

static void heap_push(struct recorder *rc, int qi)
{
	int i = rc->nr_heap++, parent;

	rc->heap[i] = qi;
	for (; i && heap_key(rc, (parent = (i - 1) / 2)) > heap_key(rc, i); i = parent)
		heap_swap(rc, i, parent);
}

/* The queue with the lowest gseq at its head, or NULL if none holds any. */
static struct cpu_queue *heap_top(struct recorder *rc)
{
	return rc->nr_heap ? &rc->q[rc->heap[0]] : NULL;
}

/* Drop the head record of the top queue. */
static void heap_pop_record(struct recorder *rc)
{
	struct cpu_queue *q = heap_top(rc);
	size_t size = q_head(q)->size;

	q->head += size;
	rc->held -= size;
	if (q->head == q->tail) {
		q->head = 0;
		q->tail = 0;
		rc->heap[0] = rc->heap[--rc->nr_heap];
	}
	heap_down(rc, 0);
}

static void q_append(struct recorder *rc, struct cpu_queue *q,
		     const struct grtrace_record *rec)
{
	if (q->tail + rec->size > q->cap) {
		if (q->head >= q->cap / 2) {
			memmove(q->buf, q->buf + q->head, q->tail - q->head);
			q->tail -= q->head;
			q->head = 0;
		}
		if (q->tail + rec->size > q->cap) {
			q->cap = q->cap ? 2 * q->cap : 256 * 1024;
			q->buf = gr_realloc(q->buf, q->cap, 1);
		}
	}
	memcpy(q->buf + q->tail, rec, rec->size);
	q->tail += rec->size;
	q->last_gseq = rec->gseq;
	rc->held += rec->size;
	if (rec->gseq > rc->seen_gseq)
		rc->seen_gseq = rec->gseq;
}

/*
 * A bad record in a relay file: the kernel writes whole records, but a read
 * that ends inside a record leaves the rest to the next read of the file,
 * whoever makes it.
 */
static long bad_input(void)
{
	gr_err_msg("is another process reading the relay files? It splits their records\n");
	return -1;
}

/*
 * read_pass - read the files into their queues
 * @max: bytes at most from each file
 * @below: only the files whose last record read is below this gseq
 * @final: at the end: @max bounds all the reads of a file since the end
 *
 * Returns: the bytes read, or -1 on a bad file (printed).
 */
static long read_pass(struct recorder *rc, size_t max, __u64 below, bool final)
{
	const struct grtrace_record *rec;
	struct cpu_queue *q;
	long total = 0;
	size_t n, limit;
	__u64 off, start;
	bool was_empty, at_end;
	int i, ret;

	for (i = 0; i < rc->nr_files; i++) {
		q = &rc->q[i];
		if (q->last_gseq >= below || (final && q->final_bytes >= max))
			continue;
		limit = final ? max - q->final_bytes : max;
		was_empty = q->head == q->tail;
		at_end = false;
		start = gr_now_ns();
		for (n = 0; n < limit; n += rec->size) {
			ret = gr_reader_next(&q->rd, &rec, &off);
			if (ret < 0)
				return bad_input();
			if (!ret) {
				q->end_ns = start;
				at_end = true;
				break;
			}
			q_append(rc, q, rec);
		}
		if (final)
			q->final_bytes += n;
		q->at_end = at_end;
		if (was_empty && q->head != q->tail)
			heap_push(rc, i);
		total += n;
	}
	return total;
}

/* ---- the merge ---- */

/* Debug output of the first DEBUG_GAPS events of a kind, then of 1 in 1000. */
static bool tell(__u64 nr)
{
	return gr_debug && (nr <= DEBUG_GAPS || !(nr % 1000));
}

static void declare_lost(struct recorder *rc, __u64 last, const char *why)
{
	__u64 first = rc->out_gseq + 1;

	rc->lost += last - first + 1;
	rc->gaps++;
	if (tell(rc->gaps))
		gr_debug_msg("gap %llu: gseq %llu-%llu lost (%s); %llu lost, %llu late so far\n",
			     (unsigned long long)rc->gaps, (unsigned long long)first,
			     (unsigned long long)last, why, (unsigned long long)rc->lost,
			     (unsigned long long)rc->late);
	rc->out_gseq = last;
	rc->gap_ns = 0;
}

/*
 * Decide on the gap between out_gseq and @h, the lowest gseq held (see the
 * comment at the top).  Returns: true if it was declared lost.
 */
static bool gap_lost(struct recorder *rc, __u64 h, bool force)
{
	__u64 next = rc->out_gseq + 1, behind = ~0ULL, now;
	int i;

	if (force) {
		declare_lost(rc, h - 1, "session stopped, or end of the recording");
		return true;
	}
	for (i = 0; i < rc->nr_files; i++)
		if (rc->q[i].last_gseq < behind)
			behind = rc->q[i].last_gseq;
	if (behind >= next) {	/* then every file holds a record above h - 1 */
		declare_lost(rc, h - 1, "every file is past it");
		return true;
	}
	now = gr_now_ns();
	if (!rc->gap_ns) {
		rc->gap_ns = now;
		return false;
	}
	if (rc->held >= HOLD_MAX) {
		declare_lost(rc, h - 1, "too many records held back");
		return true;
	}
	if (now < rc->gap_ns + GAP_NS)
		return false;
	for (i = 0; i < rc->nr_files; i++)
		if (rc->q[i].last_gseq < next && rc->q[i].end_ns < rc->gap_ns + GAP_NS)
			return false;
	declare_lost(rc, h - 1, "open for 500 ms");
	return true;
}

/* Write the record at the head of the top queue. */
static int emit(struct recorder *rc)
{
	const struct grtrace_record *rec = q_head(heap_top(rc));

	if (rc->olen + rec->size > OUT_BUF && out_flush(rc))
		return -1;
	if (out_put(rc, rec, rec->size))
		return -1;
	rc->records++;
	rc->bytes += rec->size;
	rc->out_gseq = rec->gseq;
	rc->gap_ns = 0;
	heap_pop_record(rc);
	return 0;
}

/*
 * merge - write every record that can be written now
 * @limit: write no record above this gseq
 * @force: declare every gap below @limit lost at once
 *
 * Returns: 0, or -1 on a write error.  Returns early, with records still
 * to write, when it is time to stop (merge_stop()).
 */
static int merge(struct recorder *rc, __u64 limit, bool force)
{
	const struct grtrace_record *rec;
	struct cpu_queue *q;

	while ((q = heap_top(rc))) {
		rec = q_head(q);
		if (rec->gseq <= rc->out_gseq) {
			rc->late++;
			if (tell(rc->late))
				gr_debug_msg("late record: gseq %llu (cpu %u), its gap lost\n",
					     (unsigned long long)rec->gseq, rec->cpu);
			heap_pop_record(rc);
			continue;
		}
		if (rec->gseq > limit)
			break;
		if (!rc->records && !rc->lost) {
			/* The first record: gseqs below it are not ours. */
			rc->before = rec->gseq - 1 - rc->out_gseq;
			rc->out_gseq = rec->gseq - 1;
		}
		if (rec->gseq != rc->out_gseq + 1) {
			if (!gap_lost(rc, rec->gseq, force))
				break;
			continue;
		}
		if (rc->olen + rec->size > OUT_BUF) {
			if (out_flush(rc))
				return -1;
			if (merge_stop(rc))
				break;
		}
		if (emit(rc))
			return -1;
	}
	return 0;
}

/* ---- the recording ---- */

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

	fprintf(stderr, "\rgrtrace record: %llu records, %llu KiB, %llu dropped, %llu lost, %llu s",
		(unsigned long long)rc->records, (unsigned long long)rc->bytes / 1024,
		(unsigned long long)(kernel_dropped() - rc->dropped0),
		(unsigned long long)rc->lost, (unsigned long long)sec);
}

static void debug_line(struct recorder *rc)
{
	gr_debug_msg("%.1f s: %llu records written, %zu bytes held; gseq %llu written, %llu read\n",
		     (gr_now_ns() - rc->t0) / 1e9, (unsigned long long)rc->records, rc->held,
		     (unsigned long long)rc->out_gseq, (unsigned long long)rc->seen_gseq);
	gr_debug_msg("%.1f s: %llu gseqs lost in %llu gaps, %llu late records\n",
		     (gr_now_ns() - rc->t0) / 1e9, (unsigned long long)rc->lost,
		     (unsigned long long)rc->gaps, (unsigned long long)rc->late);
}

/* How long to sleep after a pass that read @n bytes: 0 for no sleep. */
static unsigned int idle_ms(const struct recorder *rc, long n)
{
	unsigned int ms = n >= (long)BATCH_BYTES ? 0 : n ? BATCH_MS : IDLE_MS;
	__u64 now = gr_now_ns(), left;

	if (ms && rc->end) {
		left = rc->end > now ? (rc->end - now + MSEC_NS - 1) / MSEC_NS : 0;
		if (left < ms)
			ms = left;
	}
	return ms;
}

/* Record while the session runs, until a signal or the duration. */
static int record_loop(struct recorder *rc)
{
	bool tty = !rc->p->quiet && isatty(STDERR_FILENO);
	__u64 next_tick = 0, now;
	unsigned int ms;
	long n;

	while (!time_to_stop(rc)) {
		n = read_pass(rc, READ_PASS_MAX, ~0ULL, false);
		if (n < 0 || merge(rc, ~0ULL, false))
			return -1;
		now = gr_now_ns();
		if (rc->olen && now - rc->ons >= OUT_MAX_AGE_NS && out_flush(rc))
			return -1;
		if (now >= next_tick) {
			next_tick = now + TICK_NS;
			if (!rc->started && gr_session_running() == 0) {
				gr_debug_msg("the session was stopped\n");
				break;
			}
			if (tty)
				status_line(rc);
			if (gr_debug)
				debug_line(rc);
		}
		ms = idle_ms(rc, n);
		if (ms && !time_to_stop(rc))
			sleep_ms(ms);
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

/* The bound of the final read of one file: a relay buffer. */
static __u64 final_bound(void)
{
	char *s = gr_kernel_read("buffer_size");
	__u64 size = 0;

	if (s && gr_parse_u64(strtok(s, "\n") ?: "", &size))
		size = 0;
	free(s);
	return size ? size : FINAL_MAX;
}

/*
 * The end (see the comment at the top): read what the files hold, write
 * every record up to the cut, count the rest.  @running: the session may
 * still publish records.
 */
static int record_drain(struct recorder *rc, bool running)
{
	__u64 bound = final_bound(), t0 = gr_now_ns(), gap_t0, cut;
	struct cpu_queue *q;
	__u64 gseq;

	if (read_pass(rc, bound, ~0ULL, true) < 0 || merge(rc, ~0ULL, !running))
		return -1;
	cut = rc->seen_gseq;
	for (q = rc->q; q < rc->q + rc->nr_files; q++)
		if (!q->at_end && q->final_bytes >= bound && q->last_gseq < cut)
			cut = q->last_gseq;
	gr_debug_msg("end: cut at gseq %llu, %llu written\n", (unsigned long long)cut,
		     (unsigned long long)rc->out_gseq);
	/* Only a file behind the cut can fill a gap below it */
	gap_t0 = gr_now_ns();
	while (running && rc->out_gseq < cut && record_stop < 2 && gr_now_ns() < gap_t0 + GAP_NS) {
		sleep_ms(1);
		if (read_pass(rc, READ_PASS_MAX, cut, false) < 0 || merge(rc, cut, false))
			return -1;
	}
	if (record_stop < 2 && merge(rc, cut, true))
		return -1;
	/* Above the cut: what follows without a gap; after a second signal: nothing */
	while ((q = heap_top(rc))) {
		gseq = q_head(q)->gseq;
		if (gseq == rc->out_gseq + 1 && record_stop < 2) {
			if (emit(rc))
				return -1;
			continue;
		}
		if (gseq > rc->out_gseq)
			rc->unwritten++;
		else
			rc->late++;
		heap_pop_record(rc);
	}
	if (rc->unwritten)
		gr_debug_msg("%llu records past the end (above gseq %llu, after a gap or signal)\n",
			     (unsigned long long)rc->unwritten, (unsigned long long)cut);
	gr_debug_msg("end: %.3f s to read and write what the relay files held\n",
		     (gr_now_ns() - t0) / 1e9);
	return 0;
}

/*
 * A text record of the tool after the last record: GR_TOOL_STATS, the
 * kernel stats, then GR_TOOL_CONFIG, each a gseq above the one before.
 */
static int write_text(struct recorder *rc, __u16 type, const char *text)
{
	size_t len = strlen(text) + 1, size;
	struct grtrace_record *rec;
	int ret;

	if (len > GR_REC_MAX - GR_REC_MIN)
		len = GR_REC_MAX - GR_REC_MIN;
	size = GR_REC_MIN + ((len + 7) & ~7UL);
	rec = gr_zalloc(size);
	rec->type = type;
	rec->size = size;
	rec->cpu = GR_TOOL_CPU;
	rec->ts = gr_now_ns();
	rec->gseq = rc->out_gseq + (type == GR_TOOL_STATS ? 1 : 2);
	memcpy(rec + 1, text, len - 1);
	ret = out_put(rc, rec, size);
	free(rec);
	return ret;
}

/* The sysfs file @name of device @dev, one line, or "-" */
static void sysfs_line(const char *dev, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX], *s;

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	s = gr_read_text(path);
	snprintf(buf, len, "%s", s && *s ? s : "-");
	buf[strcspn(buf, "\n")] = '\0';
	free(s);
}

/* The first path that @pattern matches, into @buf: false if none */
static bool first_match(const char *pattern, char *buf, size_t len)
{
	glob_t g = { 0 };
	bool found = !glob(pattern, 0, NULL, &g) && g.gl_pathc;

	if (found)
		snprintf(buf, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return found;
}

/*
 * "device:NAME=DRIVER VENDOR:DEVICE" for device @name: the driver of the
 * DRM card below it if there is one (virtio-gpu's card is under the PCI
 * device's virtio device), else its own; the PCI ids if it has them.
 */
static void device_line(FILE *f, const char *name)
{
	const char *root = getenv("GRTRACE_SYSFS") ?: "/sys";
	char pat[PATH_MAX + 64], dev[PATH_MAX], link[PATH_MAX + 64], drv[PATH_MAX];
	char vendor[16], device[16];
	const char *base;
	ssize_t n;

	snprintf(pat, sizeof(pat), "%s/bus/*/devices/%s", root, name);
	if (!first_match(pat, dev, sizeof(dev))) {
		fprintf(f, "device:%s=- -\n", name);
		return;
	}
	snprintf(pat, sizeof(pat), "%s/drm/card[0-9]*/device/driver", dev);
	if (!first_match(pat, link, sizeof(link))) {
		snprintf(pat, sizeof(pat), "%s/*/drm/card[0-9]*/device/driver", dev);
		if (!first_match(pat, link, sizeof(link)))
			snprintf(link, sizeof(link), "%s/driver", dev);
	}
	n = readlink(link, drv, sizeof(drv) - 1);
	drv[n > 0 ? n : 0] = '\0';
	base = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : *drv ? drv : "-";
	sysfs_line(dev, "vendor", vendor, sizeof(vendor));
	sysfs_line(dev, "device", device, sizeof(device));
	if (strcmp(vendor, "-") && strcmp(device, "-"))
		fprintf(f, "device:%s=%s %s:%s\n", name, base,
			vendor + 2 * !strncmp(vendor, "0x", 2),
			device + 2 * !strncmp(device, "0x", 2));
	else
		fprintf(f, "device:%s=%s -\n", name, base);
}

/* A grtrace file's text, or NULL without a word: a kernel may lack it */
static char *kernel_text(const char *file)
{
	char path[PATH_MAX];

	if (!gr_kernel_dir())
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", gr_kernel_dir(), file);
	return gr_read_text(path);
}

/* The GR_TOOL_CONFIG record: what the recording was made under. */
static int write_config(struct recorder *rc)
{
	char *config = kernel_text("config"), *rings = kernel_text("rings");
	char *text = NULL, **devs = NULL;
	const char *line;
	size_t len = 0, nr = 0, i;
	FILE *f;
	int ret;

	f = open_memstream(&text, &len);
	if (!f) {
		gr_err_msg("out of memory\n");
		free(config);
		free(rings);
		return -1;
	}
	fputs(rc->config0 ?: "", f);
	if (rc->config0 && config && strcmp(rc->config0, config))
		fputs("config_changed=1\n", f);
	/* "# id engine dev ring": each device once */
	for (line = rings; line && *line; line = gr_next_line(line)) {
		char dev[64];

		if (*line == '#' || sscanf(line, "%*u %*s %63s", dev) != 1)
			continue;
		for (i = 0; i < nr && strcmp(devs[i], dev); i++)
			;
		if (i < nr)
			continue;
		devs = gr_realloc(devs, nr + 1, sizeof(*devs));
		devs[nr++] = gr_strdup(dev);
		device_line(f, dev);
	}
	fclose(f);
	ret = write_text(rc, GR_TOOL_CONFIG, text);
	for (i = 0; i < nr; i++)
		free(devs[i]);
	free(devs);
	free(text);
	free(config);
	free(rings);
	return ret;
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
	fprintf(f, "  lost %llu gseqs in %llu gaps (read by another reader, or unpublished",
		(unsigned long long)rc->lost, (unsigned long long)rc->gaps);
	fprintf(f, " for 500 ms), late %llu (read after their gap was lost: not written)\n",
		(unsigned long long)rc->late);
	if (rc->unwritten)
		fprintf(f, "  %llu records read past the end or a 2nd signal: not written\n",
			(unsigned long long)rc->unwritten);
	if (rc->before)
		gr_debug_msg("%llu gseqs below the first record were read before the recording\n",
			     (unsigned long long)rc->before);
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
	rc->q = gr_zalloc(rc->nr_files * sizeof(*rc->q));
	rc->heap = gr_zalloc(rc->nr_files * sizeof(*rc->heap));
	for (i = 0; i < rc->nr_files; i++) {
		rc->q[i].rd.fd = -1;
		if (gr_reader_open(&rc->q[i].rd, rc->files[i], true))
			return -1;
	}
	return 0;
}

static int open_output(struct recorder *rc)
{
	rc->obuf = gr_zalloc(OUT_BUF);
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

static void record_cleanup(struct recorder *rc)
{
	int i;

	/* After an error: the records merged so far, a valid stream */
	if (rc->olen && rc->out >= 0)
		out_flush(rc);
	for (i = 0; rc->q && i < rc->nr_files; i++) {
		gr_reader_close(&rc->q[i].rd);
		free(rc->q[i].buf);
	}
	free(rc->q);
	free(rc->heap);
	gr_free_list(rc->files);
	free(rc->obuf);
	free(rc->config0);
	if (rc->out > STDOUT_FILENO)
		close(rc->out);
}

static int record_finish(struct recorder *rc)
{
	bool running = false;
	char *stats;
	int i, ret = 0;

	rc->finishing = true;
	if (rc->started && gr_kernel_write("control", "stop\n"))
		gr_err_msg("cannot stop the session\n");
	else if (!rc->started)
		running = gr_session_running() == 1;
	if (record_drain(rc, running))
		return -1;
	/*
	 * A file read to its end holds no part of a record, but a plain file
	 * (a copy, a test's) while the session runs: the writer's next one,
	 * not yet whole when the final read passed.  A file not read to its
	 * end holds whole records unread.
	 */
	for (i = 0; i < rc->nr_files; i++)
		if (rc->q[i].at_end &&
		    (!running || gr_kernel_relay_fd(rc->q[i].rd.fd)))
			ret |= gr_reader_finish(&rc->q[i].rd);
	stats = gr_kernel_read("stats");
	if (stats)
		ret |= write_text(rc, GR_TOOL_STATS, stats);
	if (rc->config0)
		ret |= write_config(rc);
	ret |= out_flush(rc);
	if (gr_debug)
		debug_line(rc);
	print_totals(rc, stats);
	free(stats);
	return ret ? -1 : 0;
}

/* Returns: whether the running kernel has GPU job events of its own. */
static bool kernel_gpu_events(void)
{
	return gr_tracefs_system("gpu_scheduler") || gr_tracefs_system("virtio_gpu") ||
	       gr_tracefs_system("i915");
}

/*
 * The kernel's own GPU job events, on a kernel without grtrace or when
 * asked: trace-cmd records them into a trace.dat (the format every reader
 * of ftrace recordings takes), system-wide, for @p->duration ns or
 * until Ctrl-C; report, export and dump read it (upstream.c).  An event
 * system is asked for only if the running kernel has it: gpu_scheduler,
 * virtio_gpu and i915 come with their modules (of i915's, only its
 * requests').  The clock is CLOCK_MONOTONIC
 * (trace-cmd's "mono"), that of the relay stream and of
 * grtrace-bpf-annotate, whose ioctls merge then joins to the jobs.
 *
 * Returns: only on failure, with the problem printed.
 */
static int record_kernel_events(const struct record_params *p)
{
	static const char * const events[][2] = {
		{ "gpu_scheduler", "gpu_scheduler" },
		{ "dma_fence", "dma_fence:dma_fence_signaled" },
		{ "virtio_gpu", "virtio_gpu" },
		{ "i915", "i915:i915_request_*" },
	};
	const char *argv[6 + 2 * ARRAY_SIZE(events) + 4], *dir = tracefs_tracing_dir();
	char path[PATH_MAX], secs[32];
	bool gpu = false;
	size_t i;
	int n = 0;

	if (!dir) {
		gr_err_msg("tracefs is not mounted (mount -t tracefs none MOUNTPOINT)\n");
		return -1;
	}
	if (!strcmp(p->output, "-")) {
		gr_err_msg("-o -: the kernel's events go to a trace.dat file, not to stdout\n");
		return -1;
	}
	argv[n++] = "trace-cmd";
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = p->output;
	argv[n++] = "-C";
	argv[n++] = "mono";
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), "%s/events/%s", dir, events[i][0]);
		if (access(path, F_OK))
			continue;
		argv[n++] = "-e";
		argv[n++] = events[i][1];
		gpu |= i != 1;
	}
	if (!gpu) {
		gr_err_msg("%s/events: no gpu_scheduler, virtio_gpu or i915: %s\n",
			   dir, "is a GPU driver loaded?");
		return -1;
	}
	if (p->duration) {
		snprintf(secs, sizeof(secs), "%llu.%09llu",
			 (unsigned long long)(p->duration / NSEC_PER_SEC),
			 (unsigned long long)(p->duration % NSEC_PER_SEC));
		argv[n++] = "sleep";
		argv[n++] = secs;
	}
	argv[n] = NULL;
	if (!p->quiet)
		fprintf(stderr, "grtrace: the kernel's own GPU job events, into %s\n", p->output);
	execvp(argv[0], (char **)argv);
	gr_err_msg("trace-cmd: %s (it records the kernel's events: install trace-cmd)\n",
		   strerror(errno));
	return -1;
}

int gr_record_main(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct record_params params;
	struct recorder rc = { .p = &params, .out = -1 };
	int running, ret = EXIT_FAILURE;

	record_parse_args(argc, argv, &params);
	/*
	 * On a kernel without grtrace (no grtrace events, as top decides),
	 * its own events if it has some to record
	 */
	if (params.use == GR_USE_AUTO)
		params.use = !gr_tracefs_system("grtrace") &&
			     kernel_gpu_events() ? GR_USE_UPSTREAM : GR_USE_GRTRACE;
	if (params.use == GR_USE_UPSTREAM) {
		record_kernel_events(&params);
		return EXIT_FAILURE;
	}
	if (gr_kernel_check())
		return EXIT_FAILURE;
	running = record_start(&rc);
	rc.config0 = kernel_text("config");
	if (running < 0 || open_inputs(&rc) || open_output(&rc))
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc.t0 = gr_now_ns();
	if (params.duration)
		rc.end = rc.t0 + params.duration;
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

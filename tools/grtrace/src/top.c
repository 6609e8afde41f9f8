// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace top: what every GPU ring and every process does, refreshed every
 * second, like intel_gpu_top or nvtop, for every driver with grtrace hooks
 * (virtio-gpu, which has no fdinfo, included).
 *
 * It reads the grtrace tracepoints through an ftrace instance of its own
 * (grtrace_top_<pid>), which a relay session or any other consumer does
 * not notice: each refresh writes a marker into the instance
 * (trace_marker), then takes what its ring buffer holds (libtracefs,
 * consuming).  The markers cut the intervals in the trace clock: the
 * events are counted in time order once the marker after them is read,
 * and one stamped after a refresh's marker waits for the next interval.
 * A job is followed from its SUBMIT to its COMPLETE in a table of the jobs
 * in flight; each refresh shows,
 * per ring, the share of the interval with a job between COMMIT and END
 * (BUSY%), the jobs completed, the jobs in flight and their peak, the
 * latency (SUBMIT to COMPLETE) p50 and p99 of the jobs that completed,
 * the errors; per process, report's columns (jobs, GPU time, share,
 * latency p50 and p99) of the jobs it completed in the interval, a job's
 * GPU time as report takes it (EXEC or DEVICE, gr_job_phase()) and all of
 * it in the interval of its COMPLETE: the intervals add up to report's
 * figures of the same jobs.  Times in us, as report gives them; the events
 * lost by cause.  With
 * --summary, it shows the relay stream's aggregate_only windows instead
 * (the grtrace_summary event): what a ring did, from the aggregator.
 * Where a driver counts its clients' GPU time in their DRM fdinfo, each
 * refresh reads it too (fdinfo.c): per client and engine class, the busy
 * share of the interval, as gputop and nvtop show it; --events fdinfo
 * shows that alone, without events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracefs.h>

#include "commands.h"
#include "events.h"
#include "fdinfo.h"
#include "input.h"
#include "jobs.h"
#include "stat.h"
#include "tracedat.h"
#include "upstream.h"
#include "utils.h"

struct top_params {
	long long period;	/* ns */
	__u64 iterations;	/* 0: until q */
	bool batch;
	enum gr_fmt format;
	bool summary;
	enum gr_use use;	/* --events */
	bool fdinfo_only;	/* --events fdinfo */
	const char *trace;	/* --trace FILE */
};

/* A job in flight, by ring and fence */
struct top_job {
	__u64 fctx, fseq;
	__u32 ring;		/* local index */
	bool used;
	bool open;		/* counted in flight, its submitter known */
	bool on_dev;		/* between COMMIT and END */
	__u64 submit, commit, start, end;
	size_t proc;		/* its submitter, in tp->proc */
};

/* The job of the highest latency of those (with nr_lat), as report's SLOWEST */
struct top_slow {
	__s64 lat;
	__u64 fctx, fseq;
};

/* What a ring did in the current interval */
struct top_ring {
	__u32 in_dev;		/* its jobs between COMMIT and END */
	__u64 busy_from;	/* when in_dev became non-zero, or the interval start */
	__u64 busy;		/* ns of the interval with in_dev > 0 */
	__u64 jobs;		/* completed */
	__s64 gpu;		/* ns: the GPU time of those */
	__u64 errors;
	__u32 flying;		/* jobs in flight */
	__u32 peak;
	__s64 *lat;		/* latencies of the completed jobs */
	size_t nr_lat, cap_lat;
	struct top_slow slow;
	/* --summary: the last window */
	bool have_sum;
	__u64 s_window, s_jobs, s_lat_sum, s_dev_sum, s_depth_sum, s_depth_n, s_peak;
	__u64 s_errors, s_dropped, s_lat_max;
};

/* A process's jobs in the interval; the process stays for the next ones */
struct top_proc {
	__u32 tgid;
	char comm[17];		/* its leader's, else the first to submit */
	bool leader;
	bool named;		/* the kernel's events: as /proc names its leader */
	bool workers;		/* the kernel's workers' row (proc_rows()) */
	__u64 jobs;		/* completed */
	__s64 gpu;		/* ns: the GPU time of those */
	__s64 *lat;		/* latencies of the completed jobs */
	size_t nr_lat, cap_lat;
	struct top_slow slow;
};

#define UNSEEN		256

/* time: a ring's BUSY%, a process's GPU time */
enum top_sort { SORT_TIME, SORT_JOBS, SORT_P99, SORT_NAME, SORT_NR };
static const char * const sort_names[SORT_NR] = { "time", "jobs", "p99", "name" };

struct top {
	struct top_params *p;
	struct gr_trace t;
	struct tep_handle *tep;
	struct gr_upstream *up;	/* the kernel's own events, on a kernel without grtrace */
	struct tracefs_instance *inst;
	FILE *trace;		/* --trace: every event read, as text */
	char name[64];
	__u64 gseq;
	struct top_job *job;	/* open addressing by fence */
	size_t job_size, nr_job;
	struct top_ring *ring;
	__u32 nr_ring;
	struct top_proc *proc;
	size_t nr_proc, cap_proc;
	__u64 from, to;		/* the interval: its markers' times, trace clock */
	__u64 marker;		/* the number of the last marker written */
	bool cut;		/* this refresh's marker was read */
	__u64 start;		/* the first marker's time: top's start */
	struct gr_event *pending;	/* events read, not yet counted */
	size_t nr_pending, cap_pending;
	unsigned int nr_read;	/* events read: the terminal is looked at every 256 */
	__u64 lost_unseen;	/* COMPLETE of a job whose SUBMIT it did not see */
	struct top_fence {	/* the last of those: their SUBMIT, read late, is not a job */
		__u64 fctx, fseq;
		__u32 ring;
	} unseen[UNSEEN];
	unsigned int nr_unseen;
	int sort;
	bool procs;		/* the process view */
	bool tty;
	bool drawn;		/* an interval was shown: a new size redraws it */
	bool csv_head;		/* -f csv: the header was printed */
	struct termios saved;
	struct gr_fdinfo fi;	/* the DRM clients' fdinfo, scanned at each refresh */
};

static atomic_int top_quit;
static atomic_int top_resized;	/* SIGWINCH: the screen is drawn again */

static void top_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace top [-h] [-D] [-d SECS] [-n N] [-b] [-f text|json|csv]",
		"         [--summary] [--events grtrace|kernel|fdinfo]",
		"         [--trace FILE]",
		"",
		"  Show, refreshed every second, what each GPU ring does (BUSY%, jobs,",
		"  jobs in flight, latency p50/p99, errors), what each process asks",
		"  of them (report's columns: jobs, GPU time, share, latency p50/p99,",
		"  in us), and the events lost, from",
		"  the grtrace tracepoints of every driver with hooks; on a kernel",
		"  without grtrace, from its own GPU job events (gpu_scheduler,",
		"  virtio_gpu, i915's requests, dma_fence_signaled).  Per DRM client",
		"  and engine, the busy share the drivers count in their fdinfo,",
		"  where they do.",
		"",
		"    -d/--delay SECS: the interval (default 1; 0.5, 2...)",
		"    -n/--iterations N: stop after N intervals",
		"    -b/--batch: print each interval as text, no keys (not a terminal)",
		"    -f/--format FMT: text (default), json (an object per interval",
		"                         and line) or csv (a row per ring and per",
		"                         process and interval), for scripts: batch",
		"       --summary: the relay stream's aggregate_only windows per ring",
		"                         (grtrace_summary) instead of the jobs",
		"       --events grtrace|kernel|fdinfo: the events to read (default",
		"                         grtrace's if the kernel has them, else its",
		"                         own), or none: DRM fdinfo alone",
		"       --trace FILE: write every event read to FILE as text, stamped",
		"                         in ns, its markers too (what each interval",
		"                         counted)",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		"",
		"  keys: q quit, v rings or processes, s the next sort order",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void top_parse_args(int argc, char *argv[], struct top_params *p)
{
	static const struct option opts[] = {
		{ "delay",	required_argument,	NULL, 'd' },
		{ "iterations",	required_argument,	NULL, 'n' },
		{ "batch",	no_argument,		NULL, 'b' },
		{ "format",	required_argument,	NULL, 'f' },
		{ "summary",	no_argument,		NULL, 'S' },
		{ "events",	required_argument,	NULL, 'E' },
		{ "trace",	required_argument,	NULL, 'T' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	double d;
	int c;

	memset(p, 0, sizeof(*p));
	p->period = NSEC_PER_SEC;
	while ((c = getopt_long(argc, argv, "d:n:bf:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			d = strtod(optarg, &end);
			/* NaN fails both comparisons */
			if (end == optarg || *end || !(d >= 0.1 && d <= 3600))
				top_usage("invalid --delay: seconds, 0.1 to 3600");
			p->period = (long long)(d * NSEC_PER_SEC);
			break;
		case 'n':
			if (gr_parse_u64(optarg, &p->iterations) || !p->iterations)
				top_usage("invalid --iterations: a number above 0");
			break;
		case 'b':
			p->batch = true;
			break;
		case 'f':
			if (gr_parse_format(optarg, &p->format))
				top_usage("invalid --format: text, json or csv");
			/* Data for a script, never a screen with keys */
			p->batch |= p->format != GR_FMT_TEXT;
			break;
		case 'S':
			p->summary = true;
			break;
		case 'E':
			p->fdinfo_only = !strcmp(optarg, "fdinfo");
			if (!p->fdinfo_only &&
			    (gr_use_parse(optarg, &p->use) || p->use == GR_USE_AUTO))
				top_usage("invalid --events: grtrace, kernel or fdinfo");
			break;
		case 'T':
			p->trace = optarg;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			top_usage(NULL);
			break;
		default:
			top_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		top_usage(gr_unexpected(argv[optind]));
	if (p->fdinfo_only && (p->summary || p->trace))
		top_usage("--events fdinfo reads no events: no --summary, no --trace");
}

/* The marker of refresh @n (0: the start), an ftrace print event */
static int top_mark(struct top *tp, __u64 n)
{
	tp->marker = n;
	tp->cut = false;
	return tracefs_printf(tp->inst, "grtrace_top %llu %d\n", (unsigned long long)n,
			      getpid()) < 0 ? -1 : 0;
}

static struct top_ring *top_ring(struct top *tp, __u32 id)
{
	if (id >= tp->nr_ring) {
		tp->ring = gr_realloc(tp->ring, id + 1, sizeof(*tp->ring));
		memset(tp->ring + tp->nr_ring, 0, (id + 1 - tp->nr_ring) * sizeof(*tp->ring));
		tp->nr_ring = id + 1;
	}
	return &tp->ring[id];
}

/* ---- the jobs in flight ---- */

static size_t job_hash(__u32 ring, __u64 fctx, __u64 fseq, size_t size)
{
	__u64 h = (fctx * 0x9e3779b97f4a7c15ULL) ^ (fseq * 0xc2b2ae3d27d4eb4fULL) ^ ring;

	return (h ^ (h >> 29)) & (size - 1);
}

static struct top_job *job_find(struct top *tp, __u32 ring, __u64 fctx, __u64 fseq, bool add)
{
	size_t h, i;

	if (add && 2 * (tp->nr_job + 1) > tp->job_size) {
		struct top_job *old = tp->job;
		size_t n = tp->job_size;

		tp->job_size = n ? 2 * n : 256;
		tp->job = gr_zalloc(tp->job_size * sizeof(*tp->job));
		for (i = 0; i < n; i++) {
			if (!old[i].used)
				continue;
			h = job_hash(old[i].ring, old[i].fctx, old[i].fseq, tp->job_size);
			while (tp->job[h].used)
				h = (h + 1) & (tp->job_size - 1);
			tp->job[h] = old[i];
		}
		free(old);
	}
	if (!tp->job_size)
		return NULL;
	for (h = job_hash(ring, fctx, fseq, tp->job_size); tp->job[h].used;
	     h = (h + 1) & (tp->job_size - 1)) {
		struct top_job *j = &tp->job[h];

		if (j->ring == ring && j->fctx == fctx && j->fseq == fseq)
			return j;
	}
	if (!add)
		return NULL;
	tp->job[h] = (struct top_job){ .used = true, .ring = ring, .fctx = fctx, .fseq = fseq };
	tp->nr_job++;
	return &tp->job[h];
}

/* Remove @j, moving the entries after it that probed past its slot */
static void job_remove(struct top *tp, struct top_job *j)
{
	size_t i = j - tp->job, k, h;

	tp->job[i].used = false;
	tp->nr_job--;
	for (k = (i + 1) & (tp->job_size - 1); tp->job[k].used; k = (k + 1) & (tp->job_size - 1)) {
		struct top_job e = tp->job[k];

		tp->job[k].used = false;
		h = job_hash(e.ring, e.fctx, e.fseq, tp->job_size);
		while (tp->job[h].used)
			h = (h + 1) & (tp->job_size - 1);
		tp->job[h] = e;
	}
}

/* The process @tgid, an index in tp->proc (which moves as it grows) */
static size_t top_proc(struct top *tp, __u32 tgid, __u32 pid, const char *comm)
{
	struct top_proc *pr;
	size_t i;

	for (i = 0; i < tp->nr_proc && tp->proc[i].tgid != tgid; i++)
		;
	if (i == tp->nr_proc) {
		if (tp->nr_proc == tp->cap_proc) {
			tp->cap_proc = tp->cap_proc ? 2 * tp->cap_proc : 16;
			tp->proc = gr_realloc(tp->proc, tp->cap_proc, sizeof(*tp->proc));
		}
		tp->proc[tp->nr_proc++] = (struct top_proc){ .tgid = tgid };
	}
	pr = &tp->proc[i];
	/* Named as report names it: its leader, else the first to submit */
	if (!pr->leader && !pr->named && comm[0] && (!pr->comm[0] || pid == tgid)) {
		snprintf(pr->comm, sizeof(pr->comm), "%s", comm);
		pr->leader = pid == tgid;
	}
	return i;
}

/* A job of ring @r enters (@on) or leaves the device: its BUSY% */
static void on_device(struct top_ring *r, bool on, __u64 ts)
{
	if (on) {
		if (!r->in_dev++)
			r->busy_from = ts;
	} else if (r->in_dev && !--r->in_dev && ts > r->busy_from) {
		r->busy += ts - r->busy_from;
	}
}

/*
 * A SUBMIT whose COMPLETE was counted before as of an unseen job: a
 * writer stamped it, then committed it after top had read past that
 * time.  Counting it now would leave a job in flight for ever.
 */
static bool was_unseen(const struct top *tp, const struct grtrace_job_payload *p)
{
	unsigned int i, n = tp->nr_unseen < UNSEEN ? tp->nr_unseen : UNSEEN;

	for (i = 0; i < n; i++)
		if (tp->unseen[i].fseq == p->fence_seqno &&
		    tp->unseen[i].fctx == p->fence_context && tp->unseen[i].ring == p->ring_id)
			return true;
	return false;
}

/* Job @j in flight on ring @r, submitted by @p's task */
static void job_open(struct top *tp, struct top_ring *r, struct top_job *j,
		     const struct grtrace_job_payload *p)
{
	j->open = true;
	j->proc = top_proc(tp, p->tgid ? p->tgid : p->pid, p->pid, p->comm);
	r->flying++;
	if (r->flying > r->peak)
		r->peak = r->flying;
}

static void lat_add(__s64 **lat, size_t *nr, size_t *cap, __s64 v)
{
	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*lat = gr_realloc(*lat, *cap, sizeof(**lat));
	}
	(*lat)[(*nr)++] = v;
}

/* A latency of job @fctx:@fseq, slower than @s's if the first or higher */
static void slow_add(struct top_slow *s, size_t nr_lat, __s64 lat, __u64 fctx, __u64 fseq)
{
	if (nr_lat && lat <= s->lat)
		return;
	s->lat = lat;
	s->fctx = fctx;
	s->fseq = fseq;
}

/*
 * The GPU time of job @j, done at event @done, by report's rule
 * (gr_job_gpu()), from each stage's last stamp; 0 if its events cannot
 * tell it
 */
static __s64 job_gpu(const struct top_job *j, const struct gr_event *done)
{
	const __u64 at[] = {
		[GRTRACE_EV_SUBMIT] = j->submit, [GRTRACE_EV_COMMIT] = j->commit,
		[GRTRACE_EV_START] = j->start, [GRTRACE_EV_END] = j->end,
	};
	struct gr_job g = { .cannot = done->cannot };
	__s64 ns;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(at); k++) {
		if (at[k]) {
			g.seen |= BIT(k);
			g.ts[k] = at[k];
		}
	}
	g.seen |= BIT(done->type);
	g.ts[done->type] = done->ts;
	return gr_job_gpu(&g, &ns) ? ns : 0;
}

/*
 * Job @j done at @ev: its GPU time, and its latency if its SUBMIT was seen
 * and its events can tell its COMPLETE (as report, which has none for a
 * job done at END)
 */
static void job_done(struct top *tp, struct top_ring *r, struct top_job *j,
		     const struct gr_event *ev, __u64 ts)
{
	struct top_proc *pr = &tp->proc[j->proc];
	__s64 gpu = job_gpu(j, ev);

	if (j->on_dev)
		on_device(r, false, ts);
	r->gpu += gpu;
	pr->gpu += gpu;
	r->jobs++;
	if (j->submit && !(ev->cannot & BIT(GRTRACE_EV_COMPLETE))) {
		__s64 lat = ev->ts - j->submit;

		slow_add(&r->slow, r->nr_lat, lat, j->fctx, j->fseq);
		slow_add(&pr->slow, pr->nr_lat, lat, j->fctx, j->fseq);
		lat_add(&r->lat, &r->nr_lat, &r->cap_lat, lat);
		lat_add(&pr->lat, &pr->nr_lat, &pr->cap_lat, lat);
	}
	pr->jobs++;
	if (r->flying)
		r->flying--;
	job_remove(tp, j);
}

/* One job event, in time order */
static void top_event(struct top *tp, const struct gr_event *ev)
{
	const struct grtrace_job_payload *p = &ev->job;
	struct top_ring *r = top_ring(tp, p->ring_id);
	struct top_job *j;
	/* A job on the device since before the interval: from its start */
	__u64 ts = ev->ts < tp->from ? tp->from : ev->ts;

	switch (ev->type) {
	case GRTRACE_EV_SUBMIT:
		if (was_unseen(tp, p))
			break;
		j = job_find(tp, p->ring_id, p->fence_context, p->fence_seqno, true);
		if (j->submit)
			break;
		j->submit = ev->ts;
		job_open(tp, r, j, p);
		break;
	case GRTRACE_EV_COMMIT:
		/* A job whose events cannot tell its SUBMIT starts here */
		j = job_find(tp, p->ring_id, p->fence_context, p->fence_seqno,
			     ev->cannot & BIT(GRTRACE_EV_SUBMIT));
		if (j && !j->open)
			job_open(tp, r, j, p);
		/* On the device (BUSY%) from its first; its GPU time from its last */
		if (j && !j->commit) {
			j->on_dev = true;
			on_device(r, true, ts);
		}
		if (j)
			j->commit = ev->ts;
		break;
	case GRTRACE_EV_START:
		j = job_find(tp, p->ring_id, p->fence_context, p->fence_seqno, false);
		if (j)
			j->start = ev->ts;
		break;
	case GRTRACE_EV_END:
		j = job_find(tp, p->ring_id, p->fence_context, p->fence_seqno, false);
		if (j)
			j->end = ev->ts;
		if (j && j->on_dev) {
			j->on_dev = false;
			on_device(r, false, ts);
		}
		/* ...and one whose events cannot tell its COMPLETE ends here */
		if (j && (ev->cannot & BIT(GRTRACE_EV_COMPLETE)))
			job_done(tp, r, j, ev, ts);
		break;
	case GRTRACE_EV_ERROR:
		r->errors++;
		break;
	case GRTRACE_EV_COMPLETE:
		j = job_find(tp, p->ring_id, p->fence_context, p->fence_seqno, false);
		if (!j) {
			struct top_fence *u = &tp->unseen[tp->nr_unseen++ % UNSEEN];

			u->fctx = p->fence_context;
			u->fseq = p->fence_seqno;
			u->ring = p->ring_id;
			tp->lost_unseen++;
			break;
		}
		if (p->status < 0)
			r->errors++;
		job_done(tp, r, j, ev, ts);
		break;
	}
}

/* A grtrace_summary event: the aggregator's window of one ring */
static void top_summary(struct top *tp, struct tep_event *e, struct tep_record *rec)
{
	char dev[sizeof(tp->t.rings[0].dev)], ring[sizeof(tp->t.rings[0].name)];
	__u32 id = gr_ring_local(&tp->t, gr_tep_num(e, rec, "ring_id"));
	struct top_ring *r = top_ring(tp, id);
	struct gr_ring *gr = &tp->t.rings[id];

	if (!gr->known) {
		gr_tep_str(e, rec, "dev", dev, sizeof(dev));
		gr_tep_str(e, rec, "ring", ring, sizeof(ring));
		if (*dev && *ring) {
			gr->known = true;
			memcpy(gr->dev, dev, sizeof(dev));
			memcpy(gr->name, ring, sizeof(ring));
			gr_name_clean(gr->dev, sizeof(gr->dev));
			gr_name_clean(gr->name, sizeof(gr->name));
		}
	}
	gr->used = true;
	r->have_sum = true;
	r->s_window = gr_tep_num(e, rec, "window_ns");
	r->s_jobs = gr_tep_num(e, rec, "jobs");
	r->s_lat_sum = gr_tep_num(e, rec, "lat_sum");
	r->s_lat_max = gr_tep_num(e, rec, "lat_max");
	r->s_dev_sum = gr_tep_num(e, rec, "dev_sum");
	r->s_depth_sum = gr_tep_num(e, rec, "depth_sum");
	r->s_depth_n = gr_tep_num(e, rec, "depth_n");
	r->s_peak = gr_tep_num(e, rec, "depth_peak");
	r->s_errors = gr_tep_num(e, rec, "errors");
	r->s_dropped = gr_tep_num(e, rec, "dropped");
}

/* A marker: the end of this interval, or (0) the start of the first */
static void top_marker(struct top *tp, struct tep_event *e, struct tep_record *rec)
{
	unsigned long long n;
	const char *buf;
	int len, pid;

	/* ftrace's print: "char buf[]", of size 0 in its format, to the end */
	buf = tep_get_field_raw(NULL, e, "buf", rec, &len, 0);
	if (!buf || sscanf(buf, "grtrace_top %llu %d", &n, &pid) != 2 || pid != getpid())
		return;
	if (!n) {
		tp->start = rec->ts;
		tp->from = rec->ts;
	} else if (n == tp->marker) {
		tp->cut = true;
	}
	tp->to = rec->ts;
}

/* Key @c: q ends top; v and s change what show() draws, true for those */
static bool top_key(struct top *tp, char c)
{
	if (c == 'q')
		atomic_store(&top_quit, 1);
	else if (c == 'v')
		tp->procs = !tp->procs;
	else if (c == 's')
		tp->sort = (tp->sort + 1) % SORT_NR;
	else
		return false;
	return c != 'q';
}

/*
 * --trace: an event much as trace_pipe prints it, but stamped to the ns
 * (the intervals are cut there): task, CPU, time in the trace clock, name
 * and fields, in the order read.
 */
static void top_trace(struct top *tp, struct tep_event *e, struct tep_record *rec, int cpu)
{
	struct trace_seq s;
	int pid = tep_data_pid(tp->tep, rec);
	char ts[32];

	trace_seq_init(&s);
	tep_print_event(tp->tep, &s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	fprintf(tp->trace, "%s-%d [%03d] %s: %s: %s\n",
		tep_data_comm_from_pid(tp->tep, pid), pid, cpu,
		gr_secs(rec->ts, ts, sizeof(ts)), e->name, s.buffer);
	trace_seq_destroy(&s);
}

static int top_record(struct tep_event *e, struct tep_record *rec, int cpu, void *data)
{
	struct top *tp = data;
	size_t n = 0;
	char c;

	/*
	 * Keys typed while a refresh reads the events, looked for every 256
	 * events: the read lasts as long as events come faster than it takes
	 * them (a loaded machine), and q or a signal must end top there; v
	 * and s show in the interval drawn after the read.
	 */
	if (tp->tty && !(++tp->nr_read % 256) && read(STDIN_FILENO, &c, 1) == 1)
		top_key(tp, c);
	if (atomic_load(&top_quit))
		return 1;	/* the read stops: top ends */
	if (!e)
		return 0;
	if (tp->trace)
		top_trace(tp, e, rec, cpu);
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "print")) {
		top_marker(tp, e, rec);
		return 0;
	}
	if (!strcmp(e->name, "grtrace_summary")) {
		top_summary(tp, e, rec);
		return 0;
	}
	gr_tep_event(&tp->t, tp->tep, tp->up, &tp->gseq, e, rec, cpu);
	for (; n < tp->t.nr_ev; n++) {
		if (tp->nr_pending == tp->cap_pending) {
			tp->cap_pending = tp->cap_pending ? 2 * tp->cap_pending : 256;
			tp->pending = gr_realloc(tp->pending, tp->cap_pending,
						 sizeof(*tp->pending));
		}
		tp->pending[tp->nr_pending++] = tp->t.ev[n];
	}
	/* Each event is done with once counted: no growing array */
	tp->t.nr_ev = 0;
	return 0;
}

/* By time; in the order read (gseq) at the same time */
static int cmp_event(const void *a, const void *b)
{
	const struct gr_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/*
 * Count the events read up to the interval's end, in time order, and keep
 * the later ones for the next.  The CPUs' buffers are read one after the
 * other, and a writer interrupted between stamping an event and committing
 * it makes it readable late: an event can arrive a refresh after later
 * events of other CPUs, so every event waits for the marker that ends its
 * interval, and is sorted with the others.
 */
static void count_events(struct top *tp)
{
	size_t k, n = 0;

	qsort(tp->pending, tp->nr_pending, sizeof(*tp->pending), cmp_event);
	for (k = 0; k < tp->nr_pending; k++) {
		if (tp->pending[k].ts > tp->to)
			tp->pending[n++] = tp->pending[k];
		else if (tp->pending[k].ts >= tp->start)
			top_event(tp, &tp->pending[k]);
	}
	tp->nr_pending = n;
}

/* ---- the screen ---- */

static int cmp_s64(const void *a, const void *b)
{
	__s64 x = *(const __s64 *)a, y = *(const __s64 *)b;

	return x < y ? -1 : x > y;
}

/* The @k percentile of a ring's sorted latencies as report takes it, -1 without one */
static __s64 pct(const struct top_ring *r, unsigned int k)
{
	return r->nr_lat ? gr_pct_sorted(r->lat, r->nr_lat, k) : -1;
}

/* The same of a process's jobs, sorted by show() */
static __s64 proc_pct(const struct top_proc *pr, unsigned int k)
{
	return pr->nr_lat ? gr_pct_sorted(pr->lat, pr->nr_lat, k) : -1;
}

static double ring_busy(const struct top *tp, const struct top_ring *r)
{
	if (tp->p->summary)	/* jobs on the device, on average */
		return r->s_window ? (double)r->s_dev_sum / r->s_window : 0;
	return tp->to > tp->from ? 100.0 * r->busy / (tp->to - tp->from) : 0;
}

static int cmp_ring(const void *a, const void *b, void *arg)
{
	const struct top *tp = arg;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	struct top_ring *rx = &tp->ring[x], *ry = &tp->ring[y];
	char nx[64], ny[64];
	double dx, dy;

	switch (tp->sort) {
	case SORT_TIME:
		dx = ring_busy(tp, rx);
		dy = ring_busy(tp, ry);
		if (dx != dy)
			return dx > dy ? -1 : 1;
		break;
	case SORT_JOBS:
		if (rx->jobs != ry->jobs)
			return rx->jobs > ry->jobs ? -1 : 1;
		break;
	case SORT_P99:
		if (pct(rx, 99) != pct(ry, 99))
			return pct(rx, 99) > pct(ry, 99) ? -1 : 1;
		break;
	}
	gr_ring_label(&tp->t, x, nx, sizeof(nx));
	gr_ring_label(&tp->t, y, ny, sizeof(ny));
	return strcmp(nx, ny);
}

static int cmp_proc(const void *a, const void *b, void *arg)
{
	const struct top *tp = arg;
	const struct top_proc *x = *(struct top_proc * const *)a;
	const struct top_proc *y = *(struct top_proc * const *)b;

	switch (tp->sort) {
	case SORT_TIME:
		if (x->gpu != y->gpu)
			return x->gpu > y->gpu ? -1 : 1;
		break;
	case SORT_JOBS:
		if (x->jobs != y->jobs)
			return x->jobs > y->jobs ? -1 : 1;
		break;
	case SORT_P99:
		if (proc_pct(x, 99) != proc_pct(y, 99))
			return proc_pct(x, 99) > proc_pct(y, 99) ? -1 : 1;
		break;
	}
	return strcmp(x->comm, y->comm) ?: (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

/* A time in us, as report prints it; "-" when there is none */
static void us_str(__s64 ns, char *buf, size_t len)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", ns / 1e3);
}

/* The slowest job of @nr_lat latencies, as report's SLOWEST; "-" without */
static void slow_str(const struct top_slow *s, size_t nr_lat, char *buf, size_t len)
{
	if (nr_lat)
		snprintf(buf, len, "%llu:%llu", (unsigned long long)s->fctx,
			 (unsigned long long)s->fseq);
	else
		snprintf(buf, len, "-");
}

/* The events the instance lost, and the relay stream's drops if it runs */
static void drops_line(struct top *tp, FILE *f)
{
	char *s;

	fprintf(f, "lost: ftrace overrun %llu, dropped %llu; completes of unseen jobs %llu",
		gr_instance_cpu_sum(tp->inst, "overrun:"),
		gr_instance_cpu_sum(tp->inst, "dropped events:"),
		(unsigned long long)tp->lost_unseen);
	s = gr_kernel_dir() && !access(gr_kernel_dir(), R_OK) ? gr_kernel_read("stats") : NULL;
	if (s) {
		/* The relay stream's drop counters, by cause, if not zero */
		char *line, *save = NULL;
		int causes = 0;

		fprintf(f, "; relay stream dropped");
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *v = strchr(line, '=');

			if (!strncmp(line, "dropped_", 8) && v && strcmp(v, "=0") && ++causes)
				fprintf(f, " %s", line + 8);
		}
		if (!causes)
			fprintf(f, " nothing");
	}
	free(s);
	fputc('\n', f);
}

/*
 * The kernel's own events name no task: top names a process as its leader
 * names itself now (/proc/PID/comm), the process having submitted since it
 * last exec'd, or once it has exited, as the kernel's record of the tasks
 * it traced (saved_cmdlines) names it.  That record keeps the name a task
 * had when it was last recorded: a shell's child that exec'd a client is
 * "sh" there until the client is recorded again, and the events' names
 * come from it too (upstream.c).  A process not yet named by /proc is
 * looked up again once an interval.
 */
static void name_procs(struct top *tp)
{
	bool loaded = false;
	const char *comm;
	char path[40];
	size_t i;
	FILE *f;

	for (i = 0; tp->up && i < tp->nr_proc; i++) {
		struct top_proc *pr = &tp->proc[i];

		if (pr->named || !pr->tgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/comm", pr->tgid);
		f = fopen(path, "r");
		if (f) {
			char name[sizeof(pr->comm)];

			if (fgets(name, sizeof(name), f)) {
				name[strcspn(name, "\n")] = '\0';
				memcpy(pr->comm, name, sizeof(name));
				pr->named = true;
			}
			fclose(f);
		}
		if (!pr->comm[0]) {
			if (!loaded && tracefs_load_cmdlines(NULL, tp->tep))
				return;
			loaded = true;
			comm = tep_data_comm_from_pid(tp->tep, pr->tgid);
			if (comm && strcmp(comm, "<...>"))
				snprintf(pr->comm, sizeof(pr->comm), "%s", comm);
		}
		gr_name_clean(pr->comm, sizeof(pr->comm));
	}
}

/*
 * The processes to show, those with jobs done in the interval, in
 * @rows: as in report's summary, the kernel's workers, which submit for
 * no process in particular, in one row @kw named as report names it
 * (COMM "kworker/", a star and their number; no tgid) when several did.
 * Returns the number of rows.
 */
static size_t proc_rows(struct top *tp, struct top_proc **rows, struct top_proc *kw)
{
	struct top_proc *one = NULL;
	size_t k, n = 0, workers = 0;

	memset(kw, 0, sizeof(*kw));
	for (k = 0; k < tp->nr_proc; k++) {
		struct top_proc *pr = &tp->proc[k];
		size_t i;

		if (!pr->jobs)
			continue;
		if (!gr_kernel_worker(pr->comm)) {
			rows[n++] = pr;
			continue;
		}
		one = pr;
		workers++;
		kw->jobs += pr->jobs;
		kw->gpu += pr->gpu;
		if (pr->nr_lat)
			slow_add(&kw->slow, kw->nr_lat, pr->slow.lat, pr->slow.fctx,
				 pr->slow.fseq);
		for (i = 0; i < pr->nr_lat; i++)
			lat_add(&kw->lat, &kw->nr_lat, &kw->cap_lat, pr->lat[i]);
	}
	if (workers == 1) {
		rows[n++] = one;
	} else if (workers) {
		/* 16 characters at most */
		snprintf(kw->comm, sizeof(kw->comm), "kworker/* (%u)",
			 workers > 9999 ? 9999 : (unsigned int)workers);
		kw->workers = true;
		if (kw->nr_lat)
			qsort(kw->lat, kw->nr_lat, sizeof(*kw->lat), cmp_s64);
		rows[n++] = kw;
	}
	return n;
}

/* One figure of a row: ,"KEY":VALUE in JSON, ,VALUE in CSV */
static __printf(4, 5) void datum(FILE *f, bool json, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, json ? ",\"%s\":" : ",", key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

/* A time in ns, as report's JSON and CSV give it; null or nothing when none */
static void datum_ns(FILE *f, bool json, const char *key, __s64 ns)
{
	if (ns >= 0)
		datum(f, json, key, "%lld", (long long)ns);
	else
		datum(f, json, key, "%s", json ? "null" : "");
}

/* The slowest job as report's JSON and CSV give it: "CTX:SEQNO", null or nothing */
static void slow_cell(FILE *f, bool json, const struct top_slow *s, size_t nr_lat)
{
	char buf[48];

	if (!nr_lat) {
		datum(f, json, "slowest", "%s", json ? "null" : "");
		return;
	}
	slow_str(s, nr_lat, buf, sizeof(buf));
	datum(f, json, "slowest", json ? "\"%s\"" : "%s", buf);
}

/* What the jobs done in the interval took of the GPU (their GPU time) */
static __s64 gpu_total(const struct top *tp)
{
	__s64 sum = 0;
	size_t k;

	for (k = 0; k < tp->nr_proc; k++)
		sum += tp->proc[k].gpu;
	return sum;
}

/* @gpu's share of @total in percent, as report's SHARE% */
static double share(__s64 gpu, __s64 total)
{
	return total ? 100.0 * gpu / total : 0;
}

/* A DRM client's engine class, and its busy share of the interval (fdinfo) */
struct fd_row {
	size_t client;		/* in tp->fi.cur */
	unsigned int eng;
	double busy;
};

static int cmp_fd_row(const void *a, const void *b, void *arg)
{
	const struct fd_row *x = a, *y = b;
	const struct gr_fdinfo *fi = arg;
	const struct gr_drm_client *cx = &fi->cur[x->client], *cy = &fi->cur[y->client];

	if (x->busy != y->busy)
		return x->busy > y->busy ? -1 : 1;
	if (cx->tgid != cy->tgid)
		return cx->tgid < cy->tgid ? -1 : 1;
	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	return strcmp(cx->eng[x->eng].name, cy->eng[y->eng].name);
}

/*
 * The engines the clients used in the interval, busiest first; with @all,
 * those they did not use too (0), for scripts.  None before the second
 * scan, nor in --summary.
 */
static size_t fd_rows(struct top *tp, struct fd_row **out, bool all)
{
	struct fd_row *r = gr_zalloc((tp->fi.nr_cur * GR_DRM_ENGINES + 1) * sizeof(*r));
	size_t k, n = 0;
	unsigned int e;
	double busy;

	for (k = 0; !tp->p->summary && k < tp->fi.nr_cur; k++)
		for (e = 0; e < tp->fi.cur[k].nr_eng; e++) {
			busy = tp->fi.cur[k].eng[e].busy;
			if (busy > 0 || (all && busy == 0))
				r[n++] = (struct fd_row){ k, e, busy };
		}
	qsort_r(r, n, sizeof(*r), cmp_fd_row, &tp->fi);
	*out = r;
	return n;
}

static void fd_label(const struct gr_drm_client *c, unsigned int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->pdev, c->eng[e].name);
}

/*
 * The interval as data: JSON, an object on a line of its own; CSV, a row
 * per ring and per process, its header before the first interval.  The
 * figures are those of the text, unrounded: per ring (@ids, @n, in the
 * text's order) and per process with jobs (@procs, @nr_procs).
 */
static void show_data(struct top *tp, FILE *f, const __u32 *ids, __u32 n,
		      struct top_proc * const *procs, size_t nr_procs)
{
	bool json = tp->p->format == GR_FMT_JSON, sum = tp->p->summary;
	__s64 total = gpu_total(tp);
	unsigned int rows = 0;
	struct fd_row *fd;
	size_t nr_fd, k;
	char label[96];
	__u32 i;

	nr_fd = fd_rows(tp, &fd, true);
	if (json) {
		fprintf(f, "{\"from_s\":%.9f", tp->from / 1e9);
		datum(f, json, "to_s", "%.9f", tp->to / 1e9);
	}
	if (json && !tp->p->fdinfo_only) {
		datum(f, json, "in_flight", "%zu", tp->nr_job);
		datum(f, json, "ftrace_overrun", "%llu", gr_instance_cpu_sum(tp->inst, "overrun:"));
		datum(f, json, "ftrace_dropped", "%llu",
		      gr_instance_cpu_sum(tp->inst, "dropped events:"));
		datum(f, json, "completes_of_unseen_jobs", "%llu",
		      (unsigned long long)tp->lost_unseen);
	}
	if (json && !tp->p->fdinfo_only) {
		fputs(",\"rings\":[", f);
	} else if (!json && !tp->csv_head) {
		tp->csv_head = true;
		fprintf(f, "from_s,to_s,kind,name,pid,%s\n", sum ?
			"on_device,jobs_per_s,depth,peak,lat_avg,lat_max,errors,dropped" :
			"busy_pct,jobs,gpu_time,share_pct,in_flight,peak,lat_p50,lat_p99,lat_max,slowest,errors");
	}
	for (i = 0; i < n; i++) {
		struct top_ring *r = &tp->ring[ids[i]];
		double w = r->s_window / 1e9;

		if (sum && !r->have_sum)
			continue;
		gr_ring_label(&tp->t, ids[i], label, sizeof(label));
		if (json) {
			fprintf(f, "%s{\"ring\":", rows++ ? "," : "");
			gr_json_str(f, label);
		} else {
			fprintf(f, "%.9f,%.9f,ring,", tp->from / 1e9, tp->to / 1e9);
			gr_csv_str(f, label);
			fputs(",", f);	/* no pid */
		}
		if (sum) {
			datum(f, json, "on_device", "%.3f", ring_busy(tp, r));
			datum(f, json, "jobs_per_s", "%.3f", w > 0 ? r->s_jobs / w : 0);
			datum(f, json, "depth", "%.3f",
			      r->s_depth_n ? (double)r->s_depth_sum / r->s_depth_n : 0);
			datum(f, json, "peak", "%llu", (unsigned long long)r->s_peak);
			datum_ns(f, json, "lat_avg",
				 r->s_jobs ? (__s64)(r->s_lat_sum / r->s_jobs) : -1);
			datum_ns(f, json, "lat_max", r->s_jobs ? (__s64)r->s_lat_max : -1);
			datum(f, json, "errors", "%llu", (unsigned long long)r->s_errors);
			datum(f, json, "dropped", "%llu", (unsigned long long)r->s_dropped);
		} else {
			datum(f, json, "busy_pct", "%.3f", ring_busy(tp, r));
			datum(f, json, "jobs", "%llu", (unsigned long long)r->jobs);
			datum(f, json, "gpu_time", "%lld", (long long)r->gpu);
			datum(f, json, "share_pct", "%.3f", share(r->gpu, total));
			datum(f, json, "in_flight", "%u", r->flying);
			datum(f, json, "peak", "%u", r->peak);
			datum_ns(f, json, "lat_p50", pct(r, 50));
			datum_ns(f, json, "lat_p99", pct(r, 99));
			datum_ns(f, json, "lat_max", r->nr_lat ? r->slow.lat : -1);
			slow_cell(f, json, &r->slow, r->nr_lat);
			datum(f, json, "errors", "%llu", (unsigned long long)r->errors);
		}
		fputs(json ? "}" : "\n", f);
	}
	if (json && !tp->p->fdinfo_only)
		fputs("],\"processes\":[", f);
	for (k = 0; !sum && !tp->p->fdinfo_only && k < nr_procs; k++) {
		const struct top_proc *pr = procs[k];

		if (!pr->workers)
			snprintf(label, sizeof(label), "%u", pr->tgid);
		else	/* the kernel's workers' row: no pid */
			snprintf(label, sizeof(label), "%s", json ? "null" : "");
		if (json) {
			fprintf(f, "%s{\"pid\":%s,\"comm\":", k ? "," : "", label);
			gr_json_str(f, pr->comm);
		} else {
			fprintf(f, "%.9f,%.9f,process,", tp->from / 1e9, tp->to / 1e9);
			gr_csv_str(f, pr->comm);
			fprintf(f, ",%s", label);
		}
		if (!json)	/* no busy_pct */
			fputs(",", f);
		datum(f, json, "jobs", "%llu", (unsigned long long)pr->jobs);
		datum(f, json, "gpu_time", "%lld", (long long)pr->gpu);
		datum(f, json, "share_pct", "%.3f", share(pr->gpu, total));
		if (!json)	/* no in_flight, peak */
			fputs(",,", f);
		datum_ns(f, json, "lat_p50", proc_pct(pr, 50));
		datum_ns(f, json, "lat_p99", proc_pct(pr, 99));
		datum_ns(f, json, "lat_max", pr->nr_lat ? pr->slow.lat : -1);
		slow_cell(f, json, &pr->slow, pr->nr_lat);
		/* CSV: no errors */
		fputs(json ? "}" : ",\n", f);
	}
	if (json)
		fputs(tp->p->fdinfo_only ? ",\"fdinfo\":[" : "],\"fdinfo\":[", f);
	for (k = 0; !sum && k < nr_fd; k++) {
		const struct gr_drm_client *c = &tp->fi.cur[fd[k].client];

		if (json) {
			fprintf(f, "%s{\"pid\":%u,\"comm\":", k ? "," : "", c->tgid);
			gr_json_str(f, c->comm);
			fputs(",\"device\":", f);
			gr_json_str(f, c->pdev);
			fprintf(f, ",\"client_id\":%llu,\"engine\":", (unsigned long long)c->id);
			gr_json_str(f, c->eng[fd[k].eng].name);
			fprintf(f, ",\"busy_pct\":%.3f}", fd[k].busy);
		} else {
			/* Two clients of a process on a device: told apart by id */
			snprintf(label, sizeof(label), "%s/%s#%llu", c->pdev,
				 c->eng[fd[k].eng].name, (unsigned long long)c->id);
			fprintf(f, "%.9f,%.9f,engine,", tp->from / 1e9, tp->to / 1e9);
			gr_csv_str(f, label);
			/* busy_pct alone: no jobs of fdinfo */
			fprintf(f, ",%u,%.3f,,,,,,,,,,\n", c->tgid, fd[k].busy);
		}
	}
	if (json)
		fputs("]}\n", f);
	free(fd);
	fflush(f);
}

/*
 * The table rows a terminal holds below top's title, its lost line, a
 * blank line and the column heads; without a terminal, every row.
 */
static size_t screen_rows(const struct top *tp)
{
	struct winsize ws;

	if (!tp->tty || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row)
		return SIZE_MAX;
	return ws.ws_row > 6 ? ws.ws_row - 5 : 1;
}

/*
 * Whether row @k of @nr is past the @rows a screen holds: the last that
 * fits says how many more there are instead (a taller terminal shows them).
 */
static bool screen_full(FILE *f, size_t rows, size_t k, size_t nr)
{
	if (nr <= rows || k + 1 < rows)
		return false;
	fprintf(f, "(%zu more)\n", nr - k);
	return true;
}

/*
 * The engines the DRM clients kept busy, as their drivers count it in
 * fdinfo: nothing where no driver does (virtio-gpu) but with --events
 * fdinfo, which shows nothing else.
 */
static void show_fdinfo(struct top *tp, FILE *f, size_t rows)
{
	struct fd_row *fd;
	size_t nr = fd_rows(tp, &fd, false), k;
	char label[64];

	if ((!nr && !tp->p->fdinfo_only) || !rows) {
		free(fd);
		return;
	}
	fputs("\nDRM fdinfo: the share of the interval each client kept an engine class busy\n", f);
	fprintf(f, "%7s %-16s %-28s %8s %6s\n", "PID", "COMM", "DEVICE/ENGINE", "CLIENT", "BUSY%");
	if (!nr)
		fputs("(none)\n", f);
	for (k = 0; k < nr && !screen_full(f, rows, k, nr); k++) {
		const struct gr_drm_client *c = &tp->fi.cur[fd[k].client];

		fd_label(c, fd[k].eng, label, sizeof(label));
		fprintf(f, "%7u %-16s %-28s %8llu %6.1f\n", c->tgid, c->comm, label,
			(unsigned long long)c->id, fd[k].busy);
	}
	free(fd);
}

static void show(struct top *tp, FILE *f)
{
	__u32 *ids = gr_zalloc((tp->nr_ring + 1) * sizeof(*ids)), n = 0, i;
	struct top_proc **procs = gr_zalloc((tp->nr_proc + 1) * sizeof(*procs)), kw;
	char label[64], p50[24], p99[24], max[24], avg[24], gpu[24], slow[48], pid[16];
	size_t rows = screen_rows(tp), nr = 0, nr_procs, k;
	__s64 total;

	name_procs(tp);
	/* The rings and the processes in the order of the sort */
	for (i = 1; i < tp->nr_ring && i < tp->t.nr_rings; i++)
		if (tp->t.rings[i].used) {
			/* Sorted before the rings are ordered by their p99 */
			if (tp->ring[i].nr_lat)
				qsort(tp->ring[i].lat, tp->ring[i].nr_lat,
				      sizeof(*tp->ring[i].lat), cmp_s64);
			ids[n++] = i;
		}
	qsort_r(ids, n, sizeof(*ids), cmp_ring, tp);
	for (i = 0; i < tp->nr_proc; i++)
		if (tp->proc[i].nr_lat)
			qsort(tp->proc[i].lat, tp->proc[i].nr_lat, sizeof(*tp->proc[i].lat),
			      cmp_s64);
	nr_procs = proc_rows(tp, procs, &kw);
	qsort_r(procs, nr_procs, sizeof(*procs), cmp_proc, tp);
	if (tp->p->format != GR_FMT_TEXT) {
		show_data(tp, f, ids, n, procs, nr_procs);
		goto done;
	}
	if (tp->tty)
		fputs("\033[H\033[J", f);
	fprintf(f, "grtrace top - %.3f-%.3f s, ", tp->from / 1e9, tp->to / 1e9);
	if (tp->p->fdinfo_only) {
		fputs("the DRM clients' fdinfo alone, q quits\n", f);
		show_fdinfo(tp, f, rows == SIZE_MAX ? rows : rows > 2 ? rows - 2 : 1);
		goto out;
	}
	if (tp->p->summary)	/* no job events: the aggregator's windows */
		fprintf(f, "aggregate_only windows, sort %s (s), q quits\n",
			sort_names[tp->sort]);
	else
		fprintf(f, "%u jobs in flight, sort %s (s), view %s (v), q quits\n",
			(unsigned int)tp->nr_job, sort_names[tp->sort],
			tp->procs ? "processes" : "rings");
	drops_line(tp, f);
	/* Where a blank line would be: the unit, and whose GPU time it is */
	if (tp->p->summary)
		fputs("times in us\n", f);
	else
		fprintf(f, "%s\n",
			"times in us; JOBS, GPU_TIME (EXEC or DEVICE), SHARE%, LAT_*: the jobs completed in the interval");
	if (tp->p->summary) {
		fprintf(f, "%-24s %6s %8s %6s %5s %12s %12s %6s %7s\n", "RING", "ON_DEV", "JOBS/S",
			"DEPTH", "PEAK", "LAT_AVG", "LAT_MAX", "ERRORS", "DROPPED");
		for (i = k = 0; i < n; i++)
			nr += tp->ring[ids[i]].have_sum;
		for (i = 0; i < n; i++) {
			struct top_ring *r = &tp->ring[ids[i]];
			double w = r->s_window / 1e9;

			if (!r->have_sum)
				continue;
			if (screen_full(f, rows, k++, nr))
				break;
			gr_ring_label(&tp->t, ids[i], label, sizeof(label));
			us_str(r->s_jobs ? (__s64)(r->s_lat_sum / r->s_jobs) : -1, avg,
			       sizeof(avg));
			us_str(r->s_jobs ? (__s64)r->s_lat_max : -1, p99, sizeof(p99));
			fprintf(f, "%-24s %6.2f %8.1f %6.1f %5llu %12s %12s %6llu %7llu\n", label,
				ring_busy(tp, r), w > 0 ? r->s_jobs / w : 0,
				r->s_depth_n ? (double)r->s_depth_sum / r->s_depth_n : 0,
				(unsigned long long)r->s_peak, avg, p99,
				(unsigned long long)r->s_errors, (unsigned long long)r->s_dropped);
		}
	}
	if (!tp->p->summary && (!tp->procs || !tp->tty)) {
		fprintf(f, "%-24s %6s %7s %6s %5s %12s %12s %12s %6s\n", "RING", "BUSY%", "JOBS",
			"FLIGHT", "PEAK", "LAT_P50", "LAT_P99", "LAT_MAX", "ERRORS");
		for (i = 0; i < n && !screen_full(f, rows, i, n); i++) {
			struct top_ring *r = &tp->ring[ids[i]];

			gr_ring_label(&tp->t, ids[i], label, sizeof(label));
			us_str(pct(r, 50), p50, sizeof(p50));
			us_str(pct(r, 99), p99, sizeof(p99));
			us_str(r->nr_lat ? r->slow.lat : -1, max, sizeof(max));
			fprintf(f, "%-24s %6.1f %7llu %6u %5u %12s %12s %12s %6llu\n", label,
				ring_busy(tp, r), (unsigned long long)r->jobs, r->flying, r->peak,
				p50, p99, max, (unsigned long long)r->errors);
		}
	}
	if (!tp->p->summary && (tp->procs || !tp->tty)) {
		if (!tp->tty)
			fputc('\n', f);
		fprintf(f, "%7s %-16s %6s %13s %6s %11s %11s %11s %s\n", "PID", "COMM", "JOBS",
			"GPU_TIME", "SHARE%", "LAT_P50", "LAT_P99", "LAT_MAX", "SLOWEST");
		total = gpu_total(tp);
		for (k = 0; k < nr_procs && !screen_full(f, rows, k, nr_procs); k++) {
			const struct top_proc *pr = procs[k];

			if (!pr->workers)
				snprintf(pid, sizeof(pid), "%u", pr->tgid);
			else	/* the kernel's workers' row: no pid */
				snprintf(pid, sizeof(pid), "-");
			/* Negative if the stamps say so, as in report */
			snprintf(gpu, sizeof(gpu), "%.3f", pr->gpu / 1e3);
			us_str(proc_pct(pr, 50), p50, sizeof(p50));
			us_str(proc_pct(pr, 99), p99, sizeof(p99));
			us_str(pr->nr_lat ? pr->slow.lat : -1, max, sizeof(max));
			slow_str(&pr->slow, pr->nr_lat, slow, sizeof(slow));
			fprintf(f, "%7s %-16s %6llu %13s %6.1f %11s %11s %11s %s\n", pid, pr->comm,
				(unsigned long long)pr->jobs, gpu, share(pr->gpu, total), p50, p99,
				max, slow);
		}
		/* Below the processes, in what is left of a terminal */
		show_fdinfo(tp, f, rows == SIZE_MAX ? rows : rows > k + 3 ? rows - k - 3 : 0);
	}
out:
	if (!tp->tty)
		fputc('\n', f);
	fflush(f);
done:
	free(kw.lat);
	free(ids);
	free(procs);
}

/* A new interval: the jobs in flight carry over, the events read past its end wait */
static void next_interval(struct top *tp)
{
	size_t k;
	__u32 i;

	tp->drawn = false;	/* nothing of the new one to draw yet */
	for (i = 0; i < tp->nr_ring; i++) {
		struct top_ring *r = &tp->ring[i];

		r->busy = 0;
		r->busy_from = tp->to;
		r->jobs = 0;
		r->gpu = 0;
		r->errors = 0;
		r->nr_lat = 0;
		r->peak = r->flying;
		r->have_sum = false;
	}
	for (k = 0; k < tp->nr_proc; k++) {
		tp->proc[k].jobs = 0;
		tp->proc[k].gpu = 0;
		tp->proc[k].nr_lat = 0;
	}
	tp->from = tp->to;
	tp->to = 0;
}

/* ---- the instance and the terminal ---- */

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		atomic_store(&top_resized, 1);
	else
		atomic_store(&top_quit, 1);
}

/*
 * On a kernel without grtrace: the kernel's own GPU job events, those of
 * its systems the kernel has (gpu_scheduler, virtio_gpu and i915 come with
 * their modules; of i915's events, its requests'), and dma_fence_signaled
 * for the COMPLETE of scheduler jobs and i915's requests.
 */
static int top_kernel_events(struct top *tp)
{
	static const char * const systems[] = {
		"gpu_scheduler", "virtio_gpu", "i915", "dma_fence", "ftrace", NULL
	};
	int gpu = 0;

	if (tp->p->summary) {
		gr_err_msg("--summary: this kernel has no grtrace aggregator\n");
		return -1;
	}
	tp->tep = tracefs_local_events_system(NULL, systems);
	if (tp->tep) {
		gpu += !tracefs_event_enable(tp->inst, "gpu_scheduler", NULL);
		gpu += !tracefs_event_enable(tp->inst, "virtio_gpu", NULL);
		gpu += !tracefs_event_enable(tp->inst, "i915", "i915_request_.*");
	}
	if (!gpu || tracefs_event_enable(tp->inst, "dma_fence", "dma_fence_signaled") < 0) {
		gr_err_msg("%s: no gpu_scheduler, virtio_gpu or i915 events: %s\n",
			   tp->name, "is a GPU driver loaded?");
		return -1;
	}
	tp->up = gr_upstream_new();
	return 0;
}

static int top_open(struct top *tp)
{
	static const char * const systems[] = { "grtrace", "ftrace", NULL };
	const char *event = tp->p->summary ? "grtrace_summary" : NULL;
	bool kernel = tp->p->use == GR_USE_UPSTREAM;

	snprintf(tp->name, sizeof(tp->name), "grtrace_top_%d", getpid());
	tp->inst = tracefs_instance_create(tp->name);
	if (!tp->inst) {
		gr_err_msg("cannot make the ftrace instance %s: %s (root? tracefs?)\n", tp->name,
			   strerror(errno));
		return -1;
	}
	/* The relay stream's clock, and grtrace record's */
	if (tracefs_instance_file_write(tp->inst, "trace_clock", "mono") < 0) {
		gr_err_msg("%s: cannot set its trace_clock to mono: %s\n", tp->name,
			   strerror(errno));
		return -1;
	}
	if (tp->p->use == GR_USE_AUTO)
		kernel = !gr_tracefs_system("grtrace");
	if (kernel) {
		if (top_kernel_events(tp))
			return -1;
		return top_mark(tp, 0);
	}
	tp->tep = tracefs_local_events_system(NULL, systems);
	if (!tp->tep || tracefs_event_enable(tp->inst, "grtrace", event) < 0) {
		gr_err_msg("%s: the grtrace events cannot be enabled (no CONFIG_GRTRACE?)\n",
			   tp->name);
		return -1;
	}
	return top_mark(tp, 0);
}

static void top_close(struct top *tp)
{
	if (tp->inst) {
		tracefs_print_close(tp->inst);
		tracefs_event_disable(tp->inst, NULL, NULL);
		tracefs_instance_destroy(tp->inst);
		tracefs_instance_free(tp->inst);
	}
	tep_free(tp->tep);
	gr_upstream_free(tp->up);
}

static void term_raw(struct top *tp)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &tp->saved))
		return;
	t = tp->saved;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &t);
	/* Each screen is written whole at show()'s fflush(), not line by line */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	fputs("\033[?25l", stdout);	/* no cursor */
}

static void term_restore(struct top *tp)
{
	tcsetattr(STDIN_FILENO, TCSANOW, &tp->saved);
	fputs("\033[?25h\n", stdout);
	fflush(stdout);
}

/* Wait until @until (CLOCK_MONOTONIC ns), taking keys; false on q */
static bool top_wait(struct top *tp, __u64 until)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	__u64 now;
	char c;

	while (!atomic_load(&top_quit) && (now = gr_now_ns()) < until) {
		int ms = (until - now + 999999) / 1000000;

		if (!tp->tty) {
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			continue;
		}
		if (atomic_exchange(&top_resized, 0) && tp->drawn) {
			show(tp, stdout);	/* to the new size */
			continue;
		}
		if (poll(&pfd, 1, ms) <= 0 || read(STDIN_FILENO, &c, 1) != 1)
			continue;
		if (top_key(tp, c) && tp->drawn)
			show(tp, stdout);	/* the same interval, in the new order */
	}
	return !atomic_load(&top_quit);
}

/*
 * --events fdinfo: no events, no instance; an interval is the time between
 * two scans of the DRM clients' fdinfo, a period apart.
 */
static int top_fdinfo(struct top *tp)
{
	__u64 n = 0, next;

	if (tp->tty)
		term_raw(tp);
	gr_fdinfo_scan(&tp->fi);
	next = tp->fi.t_cur + tp->p->period;
	while (top_wait(tp, next)) {
		gr_fdinfo_scan(&tp->fi);
		tp->from = tp->fi.t_prev;
		tp->to = tp->fi.t_cur;
		show(tp, stdout);
		tp->drawn = true;
		if (tp->p->iterations && ++n >= tp->p->iterations)
			break;
		next = tp->fi.t_cur + tp->p->period;
	}
	if (tp->tty)
		term_restore(tp);
	return EXIT_SUCCESS;
}

int gr_top_main(int argc, char *argv[])
{
	struct top_params params;
	struct top tp = { .p = &params };
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	int ret = EXIT_FAILURE;
	__u64 n = 0, mark = 0, next, marked;
	bool shown = false, failed = false;
	__u32 i;

	top_parse_args(argc, argv, &params);
	tp.tty = !params.batch && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	/*
	 * SA_RESTART, as signal() had it: a read of the instance goes on, and
	 * top_wait()'s poll(), which no signal restarts, returns at once.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tp.tty)
		sigaction(SIGWINCH, &sa, NULL);
	if (params.trace) {
		tp.trace = fopen(params.trace, "w");
		if (!tp.trace) {
			gr_err_msg("cannot write %s: %s\n", params.trace, strerror(errno));
			goto out;
		}
	}
	gr_fdinfo_init(&tp.fi);
	if (params.fdinfo_only) {
		ret = top_fdinfo(&tp);
		goto out;
	}
	if (top_open(&tp))
		goto out;
	if (!params.summary)	/* the aggregator's windows alone */
		gr_fdinfo_scan(&tp.fi);
	if (tp.tty)
		term_raw(&tp);
	/*
	 * Refresh a period after the last marker was written, so that no
	 * interval is shorter than the period, however late a refresh ran; a
	 * refresh whose marker was lost (a full buffer) is tried again a tenth
	 * of a period later.  The interval shown stays whole until the next
	 * refresh starts: a key shows it again, in the new order.
	 */
	next = gr_now_ns() + params.period;
	while (top_wait(&tp, next)) {
		if (shown)
			next_interval(&tp);
		shown = false;
		failed = top_mark(&tp, ++mark);
		marked = gr_now_ns();
		if (tp.trace && !failed)
			fprintf(tp.trace, "# read %llu\n", (unsigned long long)mark);
		if (failed ||
		    tracefs_iterate_raw_events(tp.tep, tp.inst, NULL, 0, top_record, &tp) < 0) {
			gr_err_msg("%s: reading the events failed\n", tp.name);
			failed = true;
			break;
		}
		if (atomic_load(&top_quit))	/* q during the read, or a signal */
			break;
		gr_debug_msg("top: marker %llu %s, %zu events after it\n",
			     (unsigned long long)mark, tp.cut ? "read" : "lost", tp.nr_pending);
		if (!tp.cut) {
			next = gr_now_ns() + params.period / 10;
			continue;
		}
		/*
		 * Short in the trace clock (a marker written before the
		 * period was over there): marked again once it is.
		 */
		if (tp.to - tp.from < (__u64)params.period) {
			next = gr_now_ns() + params.period - (tp.to - tp.from);
			continue;
		}
		count_events(&tp);
		for (i = 0; i < tp.nr_ring; i++)
			if (tp.ring[i].in_dev && tp.to > tp.ring[i].busy_from)
				tp.ring[i].busy += tp.to - tp.ring[i].busy_from;
		if (!params.summary)
			gr_fdinfo_scan(&tp.fi);
		show(&tp, stdout);
		shown = true;
		tp.drawn = true;
		if (params.iterations && ++n >= params.iterations)
			break;
		next = marked + params.period;
	}
	ret = failed ? EXIT_FAILURE : EXIT_SUCCESS;
	if (tp.tty)
		term_restore(&tp);
out:
	top_close(&tp);
	if (tp.trace && (ferror(tp.trace) | fclose(tp.trace))) {
		gr_err_msg("writing %s failed: %s\n", params.trace, strerror(errno));
		ret = EXIT_FAILURE;
	}
	for (i = 0; i < tp.nr_ring; i++)
		free(tp.ring[i].lat);
	for (i = 0; i < tp.nr_proc; i++)
		free(tp.proc[i].lat);
	free(tp.ring);
	free(tp.proc);
	free(tp.job);
	free(tp.pending);
	gr_trace_free(&tp.t);
	gr_fdinfo_free(&tp.fi);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace export: the jobs of a stream as a Chrome / Perfetto trace (JSON
 * trace event format).
 *
 * One process per device, one thread (track) per ring.  Each job is a
 * complete event ("X") from its first stage to its last, with its phases
 * (gr_job_phase()) as nested events: host, device (or queue and exec when
 * there is a START), complete; and its sync waits inside the phase they
 * start in.  Jobs that overlap on a ring go to extra tracks of the ring,
 * so that every track nests properly.  The submitting threads have tracks
 * too (pid = tgid, tid = pid): a "submit" event at each SUBMIT, with a
 * flow to the job, and the waits before SUBMIT (the in-fence waits of a
 * submitting ioctl).  Dependencies (SYNC_WAIT) are flows from the job
 * waited for to the wait; a counter per ring counts the jobs in flight;
 * errors and preemptions are instant events.  The SUMMARY records of
 * aggregate_only are counters of their ring, a value per window.
 *
 * The input is read as a stream (source.h), twice, in memory bounded by
 * the jobs in flight, the rings, the threads and the devices, not by its
 * length.  The first reading finds what the header and the arguments need
 * before any event is written: the time origin, the names of the
 * submitting threads, the thresholds of the outlier labels per ring (as
 * report does: exact up to 8192 jobs per ring, within 1/256 beyond).  The
 * second writes each job as the stream retires it (gr_jobs_stream(), in
 * the order the jobs were created), so the events are not sorted by time:
 * Chrome and Perfetto sort them.  A job goes to the first track of its
 * ring whose last job ended by its start; the last events of a submitting
 * thread are held back (THREAD_HOLD) to end each where the next starts;
 * the dependency flows start from a map of the jobs retired last
 * (FLOW_JOBS); the counters wait in a heap per ring until a later SUBMIT.
 *
 * With --host (a trace.dat of a virtio-gpu guest and QEMU's trace log of
 * the same run, host.c), a joined job's device phase holds its three
 * parts, "to host", "on host" and "back"; QEMU is a process of its own,
 * each fence a slice from QEMU's take to its answer (its processing and
 * the renderer's part nested), with flows from the guest's job to the
 * host's work and back.
 *
 * --kernelshark keeps every event and job in memory (gr_input_load()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "host.h"
#include "input.h"
#include "jobs.h"
#include "source.h"
#include "stat.h"
#include "utils.h"

static void export_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace export [-h] [-D] [--chrome FILE] [--kernelshark FILE]",
		"                        [--kernelshark-session FILE]",
		"                        [-i FILE|DIR | --live] [--session N] [FILE]",
		"                        [--last-boot[=INSTANCE]] [--host FILE]",
		"",
		"  Write the jobs of a grtrace stream or trace.dat as a Chrome/Perfetto",
		"  trace (ui.perfetto.dev, chrome://tracing): a process per device, a",
		"  track per ring, every job with its phases and waits nested, the",
		"  submitting threads with arrows to their jobs, dependency arrows,",
		"  jobs in flight per ring, errors and preemptions, and the windows of",
		"  aggregate_only as counters per ring; or as KernelShark lanes: a",
		"  trace-cmd data file with a task per lane of a ring, running in each",
		"  job's phases, and a KernelShark session that shows them by name.",
		"",
		"       --chrome FILE: the JSON output, - for stdout",
		"    -k/--kernelshark FILE: the trace-cmd data file (KernelShark lanes)",
		"       --kernelshark-session FILE: a KernelShark session of",
		"                         the input, if a trace.dat, and the lanes:",
		"                         a named row per lane, on its busiest 120 ms",
		"    -i/--input FILE|DIR: a recorded file (relay stream or trace.dat),",
		"                         or a directory of events<N>[.bin] files;",
		"                         default: the FILE after the options, else",
		"                         " GR_DEFAULT_INPUT,
		"       --live: the live relay files instead (reading consumes them)",
		"       --session N: the Nth session of a file that holds several",
		"       --host FILE: QEMU's virtio_gpu trace log of the same run, with",
		"                         -i the guest's trace.dat: QEMU's work as a",
		"                         process, each virtio-gpu job's device phase",
		"                         split into to host, on host and back",
		"       --last-boot[=INSTANCE]: the input is the previous boot's",
		"                         events, as for report --last-boot (see",
		"                         grtrace persist); an instance is read",
		"                         once: --chrome or --kernelshark, not both",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void export_parse_args(int argc, char *argv[], struct gr_export_params *p)
{
	static const struct option opts[] = {
		{ "chrome",	required_argument,	NULL, 'c' },
		{ "kernelshark", required_argument,	NULL, 'k' },
		{ "kernelshark-session", required_argument, NULL, 'S' },
		{ "input",	required_argument,	NULL, 'i' },
		{ "live",	no_argument,		NULL, GR_OPT_LIVE },
		{ "session",	required_argument,	NULL, GR_OPT_SESSION },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "host",	required_argument,	NULL, 'H' },
		{ "last-boot",	optional_argument,	NULL, 'L' },
		{ NULL, 0, NULL, 0 }
	};
	const char *instance = NULL;
	bool last_boot = false, live = false;
	const char *err;
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "k:i:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			p->host = optarg;
			break;
		case 'c':
			p->chrome = optarg;
			break;
		case 'k':
			p->kernelshark = optarg;
			break;
		case 'S':
			p->ks_session = optarg;
			break;
		case 'i':
			err = gr_set_input(&p->input, optarg);
			if (err)
				export_usage(err);
			break;
		case 'L':
			if (optarg && !*optarg)
				export_usage("invalid --last-boot: an instance name after '='");
			last_boot = true;
			instance = optarg;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case GR_OPT_LIVE:
			live = true;
			break;
		case GR_OPT_SESSION:
			p->session = gr_input_session(optarg);
			if (!p->session)
				export_usage("invalid --session: a number above 0");
			break;
		case 'h':
			export_usage(NULL);
			break;
		default:
			export_usage(gr_invalid_option(argv));
		}
	}
	if (!last_boot) {
		p->input = gr_input_arg(p->input, live, argc, argv, &err);
		if (err)
			export_usage(err);
	} else if (live || optind < argc) {
		export_usage("--last-boot is the input: no -i, --live or FILE");
	}
	if (!p->chrome && !p->kernelshark)
		export_usage("--chrome FILE or --kernelshark FILE is required");
	if (p->host && !p->chrome)
		export_usage("--host goes with --chrome");
	if (p->chrome && p->kernelshark && !strcmp(p->chrome, "-") &&
	    !strcmp(p->kernelshark, "-"))
		export_usage("only one output can go to stdout");
	if (p->ks_session && (!p->kernelshark || !strcmp(p->kernelshark, "-")))
		export_usage("--kernelshark-session goes with --kernelshark FILE");
	if (last_boot && p->input)
		export_usage("--last-boot is the input: no -i, --live or FILE");
	if (last_boot) {
		p->last_boot = gr_input_last_boot(instance);
		if (!p->last_boot)
			exit(EXIT_FAILURE);
		p->input = p->last_boot;
		/*
		 * Each output reads the input anew, and reading an instance
		 * consumes it; the file grtrace persist --save wrote does not
		 * go away.
		 */
		if (p->chrome && p->kernelshark &&
		    !strncmp(p->input, GR_INSTANCE_PREFIX, strlen(GR_INSTANCE_PREFIX)))
			export_usage("--last-boot reads an ftrace instance once: one output");
	}
}

/* ---- KernelShark: the phases of the jobs on lanes ---- */

static void add_slice(struct gr_exporter *ex, const struct gr_job *j, size_t job, int kind,
		      __u64 start, __u64 end)
{
	struct gr_slice *s;

	if (end < start)
		return;
	if (ex->nr_sl == ex->cap_sl) {
		ex->cap_sl = ex->cap_sl ? 2 * ex->cap_sl : 1024;
		ex->sl = gr_realloc(ex->sl, ex->cap_sl, sizeof(*ex->sl));
	}
	s = &ex->sl[ex->nr_sl++];
	s->job = job;
	s->ring = j->ring_id;
	s->kind = kind;
	s->start = start;
	s->end = end;
}

/*
 * The phases of a job on the KernelShark lanes, as the Chrome export nests
 * them (gr_job_phase()): host, then queue and exec with a START, device
 * without, and complete.
 */
static void job_slices(struct gr_exporter *ex, size_t i)
{
	static const int metric[GR_PH_NR] = {
		[GR_PH_HOST] = GR_M_HOST, [GR_PH_QUEUE] = GR_M_QUEUE,
		[GR_PH_EXEC] = GR_M_EXEC, [GR_PH_DEVICE] = GR_M_DEVICE,
		[GR_PH_COMPLETE] = GR_M_COMPLETE,
	};
	const struct gr_job *j = &ex->jobs.job[i];
	bool start = j->seen & (1U << GRTRACE_EV_START);
	__u64 from, to;
	int k;

	for (k = 0; k < GR_PH_NR; k++) {
		if (k == (start ? GR_PH_DEVICE : GR_PH_QUEUE) ||
		    (!start && k == GR_PH_EXEC) || !gr_job_phase(j, metric[k], &from, &to))
			continue;
		add_slice(ex, j, i, k, from, to);
	}
}

struct job_span {
	size_t job;
	__u32 ring;
	__u64 start;
	__u64 end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct job_span *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct gr_slice *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	if (x->lane != y->lane)
		return x->lane - y->lane;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Put every job, all its phases, on the first lane of its ring that is
 * free from its first phase to its last; then the slices in the order of
 * their lanes (ring, lane, phase, time).
 */
static void assign_lanes(struct gr_exporter *ex)
{
	struct job_span *sp;
	__u64 lane_end[GR_LANES];
	size_t i, nr = 0, *span_of;
	int k, n = 0;

	if (!ex->nr_sl)	/* no slices: sl may be NULL, which qsort() must not get */
		return;
	span_of = gr_zalloc(ex->jobs.nr * sizeof(*span_of));
	sp = gr_zalloc(ex->nr_sl * sizeof(*sp));
	for (i = 0; i < ex->nr_sl; i++) {
		const struct gr_slice *s = &ex->sl[i];
		struct job_span *p;

		if (!span_of[s->job]) {
			sp[nr] = (struct job_span){ s->job, s->ring, s->start, s->end };
			span_of[s->job] = ++nr;
		}
		p = &sp[span_of[s->job] - 1];
		p->start = s->start < p->start ? s->start : p->start;
		p->end = s->end > p->end ? s->end : p->end;
	}
	qsort(sp, nr, sizeof(*sp), cmp_span);
	for (i = 0; i < nr; i++) {
		if (!i || sp[i].ring != sp[i - 1].ring)
			n = 0;
		for (k = 0; k < n && lane_end[k] > sp[i].start; k++)
			;
		if (k == GR_LANES)
			k = GR_LANES - 1;
		if (k == n && n < GR_LANES)
			n++;
		lane_end[k] = sp[i].end;
		span_of[sp[i].job] = k;
	}
	for (i = 0; i < ex->nr_sl; i++)
		ex->sl[i].lane = span_of[ex->sl[i].job];
	qsort(ex->sl, ex->nr_sl, sizeof(*ex->sl), cmp_slice);
	free(sp);
	free(span_of);
}

/* Every event and job in memory, the phases on lanes, to lanes.c */
static int kernelshark(const struct gr_export_params *p)
{
	struct gr_exporter ex = { .t.session = p->session };
	int ret = -1;
	size_t i;

	if (gr_input_load(&ex.t, p->input))
		goto out;
	gr_jobs_build(&ex.jobs, &ex.t);
	for (i = 0; i < ex.jobs.nr; i++)
		job_slices(&ex, i);
	assign_lanes(&ex);
	ret = gr_export_kernelshark(&ex, p->kernelshark, p->ks_session);
out:
	free(ex.sl);
	gr_jobs_free(&ex.jobs);
	gr_trace_free(&ex.t);
	return ret;
}

/* ---- Chrome: the state of the stream ---- */

/*
 * The pids and tids of the device tracks are above any real one (the
 * kernel's PID_MAX_LIMIT is 2^22), so that they never meet those of the
 * submitting threads: device N is pid GR_PID_BASE + N + 1, lane L of ring
 * R is tid GR_PID_BASE + (R + 1) * 1000 + L.
 */
#define GR_PID_BASE	0x40000000
#define GR_MARK_NS	1000	/* length of a "submit" event */

/*
 * Jobs retired last that a dependency flow can start from.  A job waited
 * for that is not among them, because FLOW_JOBS jobs were created after it
 * and before the waiting job, or because it was created after the waiting
 * job (jobs retire in the order they were created), has no flow: the wait
 * is written, its arrow is not.
 */
#define FLOW_JOBS	65536

#define OUT_BUF		(256 << 10)

/*
 * Events of a submitting thread held back: the jobs of a thread retire in
 * the order they were created, but the waits of a job before its SUBMIT
 * may start before the events of the thread's previous jobs.
 */
#define THREAD_HOLD	8

/* Where a slice went: its track and times */
struct place {
	int pid;
	long tid;
	__u64 start;
	__u64 end;
};

/* A job retired lately, by fence: where it went, for the flows to it */
struct fence_job {
	__u64 fctx;
	__u64 fseq;
	struct place at;
	bool placed;		/* on a track: it has two stages or more */
	__u32 hnext;		/* hash chain: index + 1, 0 ends */
};

/*
 * An event of a submitting thread not written yet: a job's submit, or a
 * wait of the thread before the job (wait)
 */
struct thread_ev {
	__u64 start;
	__u64 end;
	bool wait;
	__u32 ring;		/* submit */
	__u64 ctx_id;
	__u64 bind;		/* submit: the flow id to its job, 0 for none */
	__u64 fctx;		/* submit: the job's fence; wait: the fence waited for */
	__u64 fseq;
	__u64 enter;		/* wait: ENTER and EXIT */
	__u64 exit;
	bool has_from;		/* wait: the job waited for is on a track */
	struct place from;	/* its last ns */
	bool has_job;		/* wait: the waiting job is on a track */
	struct place job;
};

/* A submitting thread: its name, and its last events, held back */
struct thread {
	__u32 tgid;
	__u32 pid;
	char comm[17];		/* of its first job */
	size_t hnext;		/* hash chain: index + 1, 0 ends */
	struct thread_ev *ev;	/* THREAD_HOLD at most, in time order */
	int nr_ev;
	__u64 floor;		/* the end of its events written */
};

/* A change of a ring's jobs in flight */
struct depth_ev {
	__u64 ts;
	int delta;
};

struct ring_st {
	bool used;		/* named by an event of the first reading */
	bool events;		/* by a job event, not only by SUMMARY records */
	int pid;		/* of its device, 0 until known */
	int named;		/* tracks named: lanes 0 .. named - 1 */
	__u64 *lane_end;	/* per lane, the end of its last job */
	int nr_lanes;
	struct gr_stat out[2];	/* first reading: the long-queue, slow-exec times */
	bool have_thresh[2];
	__s64 thresh[2];
	struct depth_ev *heap;	/* changes not written yet, the earliest on top */
	size_t nr_heap;
	size_t cap_heap;
	long depth;
	char name[40];		/* ring_name() */
	char counter[64];	/* the name of its counter */
	bool summed;		/* a SUMMARY record written */
	__u64 sum_end;		/* the end of its last window */
};

struct chrome {
	struct gr_trace t;
	struct gr_src src;
	struct gr_jobs jobs;
	bool first;		/* the first reading: nothing written */
	bool partial_said;	/* --kernelshark's reading warned of a partial input */
	FILE *f;
	__u64 events;		/* trace events written */
	__u64 origin;		/* time 0 of the trace */
	__u64 min_submit;	/* the first SUBMIT of a job with a submitter */
	struct ring_st *ring;	/* by ring id */
	__u32 nr_ring;
	char **devs;		/* device index -> name */
	int nr_devs;
	int *dev_hash;		/* open addressing: device index + 1, 0 free */
	int dev_hash_size;	/* a power of 2, more than twice nr_devs */
	struct thread *th;
	size_t nr_th;
	size_t cap_th;
	size_t *th_hash;
	size_t th_hash_size;
	struct fence_job *fj;	/* FLOW_JOBS at most, a ring: fj_old is the oldest */
	size_t nr_fj;
	size_t cap_fj;
	size_t fj_old;
	__u32 *fj_hash;		/* FLOW_JOBS buckets */
	struct place *where;	/* per dependency slot: where its wait went */
	size_t nr_where;
	struct thread_ev *tev;	/* the thread events of a job */
	size_t cap_tev;
	__u64 flow_id;
	char *ob;		/* the output, OUT_BUF bytes */
	size_t olen;
	const char *host_path;	/* --host */
	struct gr_host *host;
	__u64 *host_lane_end;	/* per lane of QEMU's track, its last end */
	int nr_host_lanes;
};

static struct ring_st *ring_st(struct chrome *c, __u32 id)
{
	__u32 n = c->nr_ring;

	/* Doubled: the ids come one by one */
	if (id >= n) {
		c->nr_ring = id + 1 > 2 * n ? id + 1 : 2 * n;
		c->ring = gr_realloc(c->ring, c->nr_ring, sizeof(*c->ring));
		memset(c->ring + n, 0, (c->nr_ring - n) * sizeof(*c->ring));
	}
	return &c->ring[id];
}

static bool has_submitter(const struct gr_job *j)
{
	return j->seen & (1U << GRTRACE_EV_SUBMIT) && (j->pid || j->tgid);
}

/* The submitting thread @tgid/@pid, added if @add, or NULL */
static struct thread *thread_of(struct chrome *c, __u32 tgid, __u32 pid, bool add)
{
	size_t h = ((tgid * 0x9e3779b97f4a7c15ULL) ^ pid) * 0xc2b2ae3d27d4eb4fULL >> 32;
	size_t i, k;

	if (c->th_hash_size) {
		for (i = c->th_hash[h & (c->th_hash_size - 1)]; i; i = c->th[i - 1].hnext)
			if (c->th[i - 1].tgid == tgid && c->th[i - 1].pid == pid)
				return &c->th[i - 1];
	}
	if (!add)
		return NULL;
	if (c->nr_th == c->cap_th) {
		c->cap_th = c->cap_th ? 2 * c->cap_th : 64;
		c->th = gr_realloc(c->th, c->cap_th, sizeof(*c->th));
		free(c->th_hash);
		c->th_hash_size = 2 * c->cap_th;
		c->th_hash = gr_zalloc(c->th_hash_size * sizeof(*c->th_hash));
		for (k = 0; k < c->nr_th; k++) {
			struct thread *t = &c->th[k];
			size_t b = ((t->tgid * 0x9e3779b97f4a7c15ULL) ^ t->pid) *
				   0xc2b2ae3d27d4eb4fULL >> 32;

			t->hnext = c->th_hash[b & (c->th_hash_size - 1)];
			c->th_hash[b & (c->th_hash_size - 1)] = k + 1;
		}
	}
	k = c->nr_th++;
	memset(&c->th[k], 0, sizeof(c->th[k]));
	c->th[k].tgid = tgid;
	c->th[k].pid = pid;
	c->th[k].hnext = c->th_hash[h & (c->th_hash_size - 1)];
	c->th_hash[h & (c->th_hash_size - 1)] = k + 1;
	return &c->th[k];
}

static __u32 fj_bucket(__u64 fctx, __u64 fseq)
{
	__u64 h = (fctx * 0x9e3779b97f4a7c15ULL) ^ (fseq * 0xc2b2ae3d27d4eb4fULL);

	return (h ^ (h >> 29)) & (FLOW_JOBS - 1);
}

/* The last job retired with this fence, if still known */
static const struct fence_job *fj_find(const struct chrome *c, __u64 fctx, __u64 fseq)
{
	__u32 i;

	if (!c->fj_hash)
		return NULL;
	for (i = c->fj_hash[fj_bucket(fctx, fseq)]; i; i = c->fj[i - 1].hnext)
		if (c->fj[i - 1].fctx == fctx && c->fj[i - 1].fseq == fseq)
			return &c->fj[i - 1];
	return NULL;
}

/* Remember a retired job (@at NULL: not on a track); the oldest goes. */
static void fj_add(struct chrome *c, const struct gr_job *j, const struct place *at)
{
	struct fence_job *e;
	__u32 *p, b;
	size_t slot;

	if (!c->fj_hash)
		c->fj_hash = gr_zalloc(FLOW_JOBS * sizeof(*c->fj_hash));
	if (c->nr_fj < FLOW_JOBS) {
		if (c->nr_fj == c->cap_fj) {
			c->cap_fj = c->cap_fj ? 2 * c->cap_fj : 1024;
			c->fj = gr_realloc(c->fj, c->cap_fj, sizeof(*c->fj));
		}
		slot = c->nr_fj++;
	} else {
		/* The oldest is the last of its chain */
		slot = c->fj_old;
		c->fj_old = (slot + 1) % FLOW_JOBS;
		e = &c->fj[slot];
		for (p = &c->fj_hash[fj_bucket(e->fctx, e->fseq)]; *p != slot + 1;
		     p = &c->fj[*p - 1].hnext)
			;
		*p = e->hnext;
	}
	e = &c->fj[slot];
	memset(e, 0, sizeof(*e));
	e->fctx = j->fctx;
	e->fseq = j->fseq;
	if (at) {
		e->at = *at;
		e->placed = true;
	}
	b = fj_bucket(e->fctx, e->fseq);
	e->hnext = c->fj_hash[b];
	c->fj_hash[b] = slot + 1;
}

/* ---- Chrome: output ---- */

/*
 * The output goes through a buffer of its own, the numbers written by
 * hand: printf() took two thirds of the time.
 */
static void out_flush(struct chrome *c)
{
	if (c->olen)
		fwrite(c->ob, 1, c->olen, c->f);
	c->olen = 0;
}

static void put_slow(struct chrome *c, const char *s, size_t len)
{
	out_flush(c);
	if (len > OUT_BUF) {
		fwrite(s, 1, len, c->f);
		return;
	}
	memcpy(c->ob, s, len);
	c->olen = len;
}

/* Inline: the lengths of most are constants, and so are the copies */
static inline void put_mem(struct chrome *c, const char *s, size_t len)
{
	if (c->olen + len > OUT_BUF) {
		put_slow(c, s, len);
		return;
	}
	memcpy(c->ob + c->olen, s, len);
	c->olen += len;
}

static inline void put(struct chrome *c, const char *s)
{
	put_mem(c, s, strlen(s));
}

static void put_u64(struct chrome *c, unsigned long long v)
{
	char b[24];
	int n = sizeof(b);

	do
		b[--n] = '0' + v % 10;
	while (v /= 10);
	put_mem(c, b + n, sizeof(b) - n);
}

static void put_s64(struct chrome *c, long long v)
{
	if (v < 0)
		put_mem(c, "-", 1);
	put_u64(c, v < 0 ? -(unsigned long long)v : (unsigned long long)v);
}

/* A JSON string, as gr_json_str() writes it */
static void put_json(struct chrome *c, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	char esc[8];

	put_mem(c, "\"", 1);
	while (*p) {
		for (run = p; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
			;
		put_mem(c, (const char *)run, p - run);
		if (!*p)
			break;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		put(c, esc);
		p++;
	}
	put_mem(c, "\"", 1);
}

/* ", \"@key\": " */
static void put_key(struct chrome *c, const char *key)
{
	put_mem(c, ", \"", 3);
	put(c, key);
	put_mem(c, "\": ", 3);
}

static void ev_begin(struct chrome *c)
{
	put(c, c->events++ ? ",\n" : "\n");
}

/* A time in the trace's microseconds, from ns */
static void us(struct chrome *c, const char *key, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;
	char frac[4] = { '.', '0' + a % 1000 / 100, '0' + a % 100 / 10, '0' + a % 10 };

	put_key(c, key);
	if (ns < 0)
		put_mem(c, "-", 1);
	put_u64(c, a / 1000);
	put_mem(c, frac, sizeof(frac));
}

static void ts_us(struct chrome *c, __u64 ts)
{
	us(c, "ts", (long long)(ts - c->origin));
}

/* FNV-1a */
static unsigned int dev_hash(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of device @dev in the hash: its own, or the free one for it */
static int *dev_slot(struct chrome *c, const char *dev)
{
	unsigned int h = dev_hash(dev) & (c->dev_hash_size - 1);

	while (c->dev_hash[h] && strcmp(c->devs[c->dev_hash[h] - 1], dev))
		h = (h + 1) & (c->dev_hash_size - 1);
	return &c->dev_hash[h];
}

/*
 * A process per device, numbered in the order the rings meet them; found
 * by a hash of the name (a stream may name thousands of devices)
 */
static int dev_pid(struct chrome *c, __u32 ring)
{
	struct ring_st *rs = ring_st(c, ring);
	const struct gr_ring *r = gr_ring(&c->t, ring);
	const char *dev = r->known ? r->dev : "unknown device";
	int i, *slot;

	if (rs->pid)
		return rs->pid;
	if (2 * (c->nr_devs + 1) > c->dev_hash_size) {
		free(c->dev_hash);
		c->dev_hash_size = c->dev_hash_size ? 2 * c->dev_hash_size : 64;
		c->dev_hash = gr_zalloc(c->dev_hash_size * sizeof(*c->dev_hash));
		for (i = 0; i < c->nr_devs; i++)
			*dev_slot(c, c->devs[i]) = i + 1;
	}
	slot = dev_slot(c, dev);
	if (!*slot) {
		c->devs = gr_realloc(c->devs, c->nr_devs + 1, sizeof(*c->devs));
		c->devs[c->nr_devs++] = gr_strdup(dev);
		*slot = c->nr_devs;
	}
	rs->pid = GR_PID_BASE + *slot;
	return rs->pid;
}

static long tid_of(__u32 ring, int lane)
{
	return GR_PID_BASE + ((long)ring + 1) * 1000 + lane;
}

/* ", "pid": @pid, "tid": @tid", without the tid if 0 */
static void pid_tid(struct chrome *c, int pid, long tid)
{
	put_key(c, "pid");
	put_s64(c, pid);
	if (!tid)
		return;
	put_key(c, "tid");
	put_s64(c, tid);
}

static void meta(struct chrome *c, const char *what, int pid, long tid, const char *name,
		 long sort)
{
	ev_begin(c);
	put(c, "{\"ph\": \"M\", \"name\": \"");
	put(c, what);
	put(c, "_name\"");
	pid_tid(c, pid, tid);
	put(c, ", \"args\": {\"name\": ");
	put_json(c, name);
	put(c, "}}");
	if (sort < 0)
		return;
	ev_begin(c);
	put(c, "{\"ph\": \"M\", \"name\": \"");
	put(c, what);
	put(c, "_sort_index\"");
	pid_tid(c, pid, tid);
	put(c, ", \"args\": {\"sort_index\": ");
	put_s64(c, sort);
	put(c, "}}");
}

/* The name of a ring, known once the first reading is done */
static const char *ring_name(struct chrome *c, __u32 ring)
{
	struct ring_st *rs = ring_st(c, ring);
	const struct gr_ring *r = gr_ring(&c->t, ring);

	if (!rs->name[0]) {
		if (r->known)
			snprintf(rs->name, sizeof(rs->name), "%s", r->name);
		else
			snprintf(rs->name, sizeof(rs->name), "ring%u", r->id);
	}
	return rs->name;
}

static void track_name(struct chrome *c, __u32 ring, int lane)
{
	long tid = tid_of(ring, lane);
	char name[128];
	size_t n;

	snprintf(name, sizeof(name), "%s (%s)", ring_name(c, ring),
		 gr_engine_name(gr_ring(&c->t, ring)->engine));
	if (lane) {
		n = strlen(name);
		snprintf(name + n, sizeof(name) - n, " #%d", lane + 1);
	}
	meta(c, "thread", dev_pid(c, ring), tid, name, tid - GR_PID_BASE);
}

/*
 * The track of a job of @ring from @start to @end: the first lane whose
 * last job ended by @start (the last lane if none does), named when new.
 * A lane's end only grows, so its jobs never overlap (but on the last).
 */
static int lane_of(struct chrome *c, __u32 ring, __u64 start, __u64 end)
{
	struct ring_st *r = ring_st(c, ring);
	int k;

	for (k = 0; k < r->nr_lanes && r->lane_end[k] > start; k++)
		;
	if (k == GR_LANES)
		k = GR_LANES - 1;
	if (k == r->nr_lanes) {
		if (!r->lane_end)
			r->lane_end = gr_zalloc(GR_LANES * sizeof(*r->lane_end));
		r->lane_end[r->nr_lanes++] = 0;
	}
	if (end > r->lane_end[k])
		r->lane_end[k] = end;
	while (r->named <= k)
		track_name(c, ring, r->named++);
	return k;
}

struct thread_key {
	__u32 tgid;
	__u32 pid;
	size_t th;
};

/* By process, its main thread first, then by thread */
static int cmp_thread_key(const void *a, const void *b)
{
	const struct thread_key *x = a, *y = b;
	bool xmain = x->pid == x->tgid, ymain = y->pid == y->tgid;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (xmain != ymain)
		return xmain ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * The names of the submitting processes (of their main thread, else of
 * their first thread) and threads (of their first job)
 */
static void thread_names(struct chrome *c)
{
	struct thread_key *k = gr_zalloc((c->nr_th + 1) * sizeof(*k));
	size_t i;

	for (i = 0; i < c->nr_th; i++)
		k[i] = (struct thread_key){ c->th[i].tgid, c->th[i].pid, i };
	qsort(k, c->nr_th, sizeof(*k), cmp_thread_key);
	for (i = 0; i < c->nr_th; i++) {
		const char *comm = c->th[k[i].th].comm;

		if (!i || k[i].tgid != k[i - 1].tgid)
			meta(c, "process", k[i].tgid, 0, comm, -1);
		meta(c, "thread", k[i].tgid, k[i].pid, comm, -1);
	}
	free(k);
}

static void x_begin(struct chrome *c, const char *name, const char *cat, int pid, long tid,
		    __u64 start, __u64 end)
{
	ev_begin(c);
	put(c, "{\"ph\": \"X\", \"name\": ");
	put_json(c, name);
	put(c, ", \"cat\": \"");
	put(c, cat);
	put_mem(c, "\"", 1);
	pid_tid(c, pid, tid);
	ts_us(c, start);
	us(c, "dur", (long long)(end - start));
}

static void fence_arg(struct chrome *c, __u64 fctx, __u64 fseq)
{
	put(c, "\"fence\": \"");
	put_u64(c, fctx);
	put_mem(c, ":", 1);
	put_u64(c, fseq);
	put_mem(c, "\"", 1);
}

/* A job: its arguments, and the end of the flow from its submit event */
static void job_event(struct chrome *c, const struct gr_job *j, const struct place *at)
{
	char buf[128];
	__s64 v;
	int k;

	x_begin(c, j->comm[0] ? j->comm : "job", "job", at->pid, at->tid, at->start, at->end);
	if (has_submitter(j)) {
		put_key(c, "bind_id");
		put_u64(c, j->serial + 1);
		put(c, ", \"flow_in\": true");
	}
	put(c, ", \"args\": {");
	fence_arg(c, j->fctx, j->fseq);
	put_key(c, "ctx");
	put_u64(c, j->ctx_id);
	put_key(c, "pid");
	put_u64(c, j->pid);
	put_key(c, "tgid");
	put_u64(c, j->tgid);
	if (j->client_id) {
		put_key(c, "client_id");
		put_u64(c, j->client_id);
	}
	put_key(c, "status");
	put_json(c, gr_job_status(j, buf, sizeof(buf)));
	gr_job_labels(j, buf, sizeof(buf));
	put_key(c, "labels");
	put_json(c, buf);
	for (k = 0; k < GR_M_NR; k++) {
		if (!gr_job_metric(j, k, &v))
			continue;
		put_key(c, gr_metric_names[k]);
		put_s64(c, v);
	}
	put(c, "}}");
}

/* A wait on the fence @fctx:@fseq from @enter to @exit, cut to [@start, @end) */
static void wait_event(struct chrome *c, __u64 fctx, __u64 fseq, __u64 enter, __u64 exit,
		       const struct place *at)
{
	char name[64];

	snprintf(name, sizeof(name), "wait %llu:%llu", (unsigned long long)fctx,
		 (unsigned long long)fseq);
	x_begin(c, name, "wait", at->pid, at->tid, at->start, at->end);
	put(c, ", \"args\": {");
	fence_arg(c, fctx, fseq);
	us(c, "waited_us", (long long)(exit - enter));
	put(c, "}}");
}

/* The first wait of @j with both ends that enters in [@from, @to): index + 1 */
static size_t next_wait(const struct gr_jobs *jobs, const struct gr_job *j, __u64 from,
			__u64 to)
{
	size_t d, first = 0;

	for (d = j->dep_head; d; d = jobs->dep[d - 1].next) {
		const struct gr_dep *dep = &jobs->dep[d - 1];

		if (dep->enter && dep->exit > dep->enter && dep->enter >= from &&
		    dep->enter < to && (!first || dep->enter < jobs->dep[first - 1].enter))
			first = d;
	}
	return first;
}

/*
 * The phases of a job as its children, in time order, and in each the
 * waits that enter there, one after the other, cut at its end.  Waits
 * before the job go to the submitting thread (thread_events()).
 */
static void phase_events(struct chrome *c, const struct gr_jobs *jobs, const struct gr_job *j,
			 const struct place *at)
{
	static const int phases[] = {
		GR_M_HOST, GR_M_QUEUE, GR_M_EXEC, GR_M_DEVICE, GR_M_COMPLETE,
	};
	static const char * const names[] = {
		"host", "queue", "exec", "device", "complete",
	};
	bool start = j->seen & (1U << GRTRACE_EV_START);
	__u64 from, to, t = at->start, w;
	size_t k, d;

	for (k = 0; k < ARRAY_SIZE(phases); k++) {
		if ((phases[k] == GR_M_DEVICE && start) ||
		    !gr_job_phase(j, phases[k], &from, &to))
			continue;
		from = from < t ? t : from;
		to = to > at->end ? at->end : to;
		if (to <= from)
			continue;
		x_begin(c, names[k], "phase", at->pid, at->tid, from, to);
		put_mem(c, "}", 1);
		t = to;
		for (w = from; (d = next_wait(jobs, j, w, to)); ) {
			const struct gr_dep *dep = &jobs->dep[d - 1];
			struct place *p = &c->where[d - 1];

			w = dep->exit < to ? dep->exit : to;
			*p = (struct place){ at->pid, at->tid, dep->enter, w };
			wait_event(c, dep->fctx, dep->fseq, dep->enter, dep->exit, p);
		}
	}
}

static void flow_event(struct chrome *c, const char *ph, const struct place *at, __u64 id)
{
	ev_begin(c);
	put(c, "{\"ph\": \"");
	put(c, ph);
	put(c, "\", \"name\": \"dependency\", \"cat\": \"dep\"");
	put_key(c, "id");
	put_u64(c, id);
	pid_tid(c, at->pid, at->tid);
	ts_us(c, at->start);
	put(c, *ph == 'f' ? ", \"bp\": \"e\"}" : "}");
}

/* ---- --host: QEMU's side of the virtio-gpu jobs ---- */

#define HOST_PID	(GR_PID_BASE - 1)	/* QEMU's process */

static long host_tid(int lane)
{
	return (long)GR_PID_BASE - 1000 + lane;
}

/* The first lane of QEMU's track free at @start, named when new */
static int host_lane(struct chrome *c, __u64 start, __u64 end)
{
	char name[64];
	int i;

	for (i = 0; i < c->nr_host_lanes && c->host_lane_end[i] > start; i++)
		;
	if (i == GR_LANES)
		i = GR_LANES - 1;	/* nests badly, but is not lost */
	if (i == c->nr_host_lanes) {
		c->host_lane_end = gr_realloc(c->host_lane_end, ++c->nr_host_lanes,
					      sizeof(*c->host_lane_end));
		if (i)
			snprintf(name, sizeof(name), "virtio-gpu fences (%d)", i + 1);
		else
			snprintf(name, sizeof(name), "virtio-gpu fences, thread %u", c->host->tid);
		meta(c, "thread", HOST_PID, host_tid(i), name, i);
	}
	c->host_lane_end[i] = end;
	return i;
}

static void host_flow(struct chrome *c, const struct place *from, const struct place *to)
{
	const struct place *at[2] = { from, to };
	int k;

	c->flow_id++;
	for (k = 0; k < 2; k++) {
		ev_begin(c);
		put(c, k ? "{\"ph\": \"f\", \"bp\": \"e\"" : "{\"ph\": \"s\"");
		put(c, ", \"name\": \"virtio-gpu\", \"cat\": \"host\"");
		put_key(c, "id");
		put_u64(c, c->flow_id);
		pid_tid(c, at[k]->pid, at[k]->tid);
		ts_us(c, at[k]->start);
		put_mem(c, "}", 1);
	}
}

static void host_slice(struct chrome *c, const char *name, const char *cat,
		       int pid, long tid, __u64 start, __u64 end)
{
	if (end <= start)
		return;
	x_begin(c, name, cat, pid, tid, start, end);
	put_mem(c, "}", 1);
}

/*
 * A joined job: its DEVICE's parts inside its device phase (on @at's
 * track), QEMU's slice of its fence, and the flows guest -> host -> guest.
 */
static void host_events(struct chrome *c, const struct gr_job *j, const struct place *at)
{
	const struct gr_host_job *hj = gr_host_find(c->host, j->fctx, j->fseq);
	struct place g, h;
	char name[64];
	long tid;

	if (!hj || hj->commit < at->start || hj->end > at->end)
		return;
	host_slice(c, "to host", "host", at->pid, at->tid, hj->commit, hj->take);
	host_slice(c, "on host", "host", at->pid, at->tid, hj->take, hj->resp);
	host_slice(c, "back", "host", at->pid, at->tid, hj->resp, hj->end);
	tid = host_tid(host_lane(c, hj->take, hj->resp));
	snprintf(name, sizeof(name), "fence %llu %s", (unsigned long long)hj->fence_id,
		 gr_host_type_name(hj->type));
	x_begin(c, name, "qemu", HOST_PID, tid, hj->take,
		hj->resp > hj->take ? hj->resp : hj->take + 1);
	put(c, ", \"args\": {\"guest_fence\": \"");
	put_u64(c, j->fctx);
	put_mem(c, ":", 1);
	put_u64(c, j->fseq);
	put_mem(c, "\"", 1);
	put_key(c, "fence_id");
	put_u64(c, hj->fence_id);
	put_key(c, "ctx");
	put_u64(c, hj->ctx_id);
	put_key(c, "take_known");
	put(c, hj->take_known ? "true" : "false");
	put(c, "}}");
	host_slice(c, "qemu", "qemu", HOST_PID, tid, hj->take, hj->ctrl);
	host_slice(c, "renderer", "qemu", HOST_PID, tid, hj->ctrl, hj->resp);
	g = (struct place){ at->pid, at->tid, hj->commit, 0 };
	h = (struct place){ HOST_PID, tid, hj->take, 0 };
	host_flow(c, &g, &h);
	h.start = hj->resp > hj->take ? hj->resp - 1 : hj->take;
	g.start = hj->end > hj->commit ? hj->end - 1 : hj->end;
	host_flow(c, &h, &g);
}

/* The last ns of a slice, or its start if it has none */
static __u64 last_ns(__u64 start, __u64 end)
{
	return end > start ? end - 1 : start;
}

/*
 * An arrow for a dependency: from the end of the job waited for (@from at
 * its last ns) to the wait (@wait), or to the waiting job (@job) where the
 * wait has no slice, at its EXIT (@exit).  Each end binds to the innermost
 * slice around it; an arrow that would go back in time is left out.
 */
static void dep_flow(struct chrome *c, const struct place *from, const struct place *wait,
		     const struct place *job, __u64 exit)
{
	struct place to;

	if (wait) {
		to = *wait;
		to.start = last_ns(wait->start, wait->end);
	} else if (job) {
		to = *job;
		to.start = exit ? exit : from->start;
		to.start = to.start < job->start ? job->start : to.start;
		to.start = to.start > job->end ? job->end : to.start;
	} else {
		return;
	}
	if (to.start < from->start)
		return;
	flow_event(c, "s", from, ++c->flow_id);
	flow_event(c, "f", &to, c->flow_id);
}

/* Write an event of a submitting thread, with the flow of a wait */
static void thread_ev_write(struct chrome *c, const struct thread *th, const struct thread_ev *e)
{
	struct place at = { th->tgid, th->pid, e->start, e->end };

	if (e->wait) {
		if (e->end > e->start)
			wait_event(c, e->fctx, e->fseq, e->enter, e->exit, &at);
		if (e->has_from)
			dep_flow(c, &e->from, e->end > e->start ? &at : NULL,
				 e->has_job ? &e->job : NULL, e->exit);
		return;
	}
	x_begin(c, "submit", "submit", th->tgid, th->pid, e->start, e->end);
	if (e->bind) {
		put_key(c, "bind_id");
		put_u64(c, e->bind);
		put(c, ", \"flow_out\": true");
	}
	put(c, ", \"args\": {");
	fence_arg(c, e->fctx, e->fseq);
	put_key(c, "ring");
	put_json(c, ring_name(c, e->ring));
	put_key(c, "ctx");
	put_u64(c, e->ctx_id);
	put(c, "}}");
}

/* Whether @a comes before @b on their thread: by start, waits first */
static bool thread_ev_before(const struct thread_ev *a, const struct thread_ev *b)
{
	return a->start < b->start || (a->start == b->start && a->wait && !b->wait);
}

/* Write the first event held back by @th, cut where the next one starts */
static void thread_pop(struct chrome *c, struct thread *th)
{
	struct thread_ev *e = &th->ev[0];

	if (th->nr_ev > 1 && th->ev[1].start < e->end)
		e->end = th->ev[1].start;
	thread_ev_write(c, th, e);
	th->floor = e->end;
	memmove(th->ev, th->ev + 1, --th->nr_ev * sizeof(*th->ev));
}

/*
 * The next event @e of thread @th.  An event ends at the latest where the
 * next one of its thread starts: the last THREAD_HOLD events are held back
 * in time order, and the first written when one more comes.  One that
 * starts before the end of those written (th->floor), later than that, is
 * cut there, so that the thread's track still nests.
 */
static void thread_push(struct chrome *c, struct thread *th, struct thread_ev *e)
{
	int k;

	if (!th->ev)
		th->ev = gr_zalloc(THREAD_HOLD * sizeof(*th->ev));
	if (th->nr_ev == THREAD_HOLD)
		thread_pop(c, th);
	if (e->start < th->floor)
		e->start = e->end < th->floor ? e->end : th->floor;
	for (k = th->nr_ev; k > 0 && thread_ev_before(e, &th->ev[k - 1]); k--)
		th->ev[k] = th->ev[k - 1];
	th->ev[k] = *e;
	th->nr_ev++;
}

static int cmp_thread_ev(const void *a, const void *b)
{
	const struct thread_ev *x = a, *y = b;

	return thread_ev_before(x, y) ? -1 : thread_ev_before(y, x);
}

static struct thread_ev *new_tev(struct chrome *c, size_t n)
{
	if (n == c->cap_tev) {
		c->cap_tev = c->cap_tev ? 2 * c->cap_tev : 16;
		c->tev = gr_realloc(c->tev, c->cap_tev, sizeof(*c->tev));
	}
	memset(&c->tev[n], 0, sizeof(c->tev[n]));
	return &c->tev[n];
}

/* The waits of @j that go to its thread: before its SUBMIT and its slice */
static bool thread_wait(const struct gr_job *j, const struct place *job,
			const struct gr_dep *dep)
{
	__u64 before = j->ts[GRTRACE_EV_SUBMIT];

	if (job && job->start < before)
		before = job->start;
	return has_submitter(j) && dep->enter && dep->exit > dep->enter && dep->enter < before;
}

/*
 * The events of job @j on its submitting thread: a "submit" event that
 * ends at its SUBMIT, with the flow to the job, and the waits before the
 * job.  The submit event starts GR_MARK_NS before, so that it comes before
 * its job (Perfetto binds the ends of a flow to slices in time order).
 */
static void thread_events(struct chrome *c, const struct gr_jobs *jobs, const struct gr_job *j,
			  const struct place *job)
{
	__u64 ts = j->ts[GRTRACE_EV_SUBMIT];
	struct thread *th = thread_of(c, j->tgid, j->pid, true);
	const struct fence_job *fj;
	struct thread_ev *e;
	size_t d, n = 0, k;

	e = new_tev(c, n++);
	e->start = ts - GR_MARK_NS;
	e->end = ts;
	e->ring = j->ring_id;
	e->ctx_id = j->ctx_id;
	e->bind = job ? j->serial + 1 : 0;
	e->fctx = j->fctx;
	e->fseq = j->fseq;
	for (d = j->dep_head; d; d = jobs->dep[d - 1].next) {
		const struct gr_dep *dep = &jobs->dep[d - 1];

		if (!thread_wait(j, job, dep))
			continue;
		e = new_tev(c, n++);
		e->wait = true;
		e->start = dep->enter;
		e->end = dep->exit;
		e->fctx = dep->fctx;
		e->fseq = dep->fseq;
		e->enter = dep->enter;
		e->exit = dep->exit;
		fj = fj_find(c, dep->fctx, dep->fseq);
		if (fj && fj->placed) {
			e->has_from = true;
			e->from = fj->at;
			e->from.start = last_ns(fj->at.start, fj->at.end);
		}
		if (job) {
			e->has_job = true;
			e->job = *job;
		}
	}
	qsort(c->tev, n, sizeof(*c->tev), cmp_thread_ev);
	for (k = 0; k < n; k++)
		thread_push(c, th, &c->tev[k]);
}

static void depth_push(struct ring_st *r, __u64 ts, int delta)
{
	struct depth_ev e = { ts, delta };
	size_t i = r->nr_heap++, up;

	if (r->nr_heap > r->cap_heap) {
		r->cap_heap = r->cap_heap ? 2 * r->cap_heap : 64;
		r->heap = gr_realloc(r->heap, r->cap_heap, sizeof(*r->heap));
	}
	for (; i && r->heap[up = (i - 1) / 2].ts > ts; i = up)
		r->heap[i] = r->heap[up];
	r->heap[i] = e;
}

static void depth_pop(struct ring_st *r)
{
	struct depth_ev e = r->heap[--r->nr_heap];
	size_t i = 0, k;

	for (;;) {
		k = 2 * i + 1;
		if (k >= r->nr_heap)
			break;
		if (k + 1 < r->nr_heap && r->heap[k + 1].ts < r->heap[k].ts)
			k++;
		if (r->heap[k].ts >= e.ts)
			break;
		r->heap[i] = r->heap[k];
		i = k;
	}
	if (r->nr_heap)
		r->heap[i] = e;
}

/*
 * A counter per ring, "<ring> in flight": the jobs submitted and not yet
 * completed (SUBMIT seen, COMPLETE not yet), one value per time it
 * changes.  The changes wait in a heap until a job submitted later
 * retires (all of them at the end), and are written in time order.
 */
static void depth_flush(struct chrome *c, __u32 ring, bool all, __u64 before)
{
	struct ring_st *r = ring_st(c, ring);
	__u64 ts;

	while (r->nr_heap && (all || r->heap[0].ts < before)) {
		ts = r->heap[0].ts;
		while (r->nr_heap && r->heap[0].ts == ts) {
			r->depth += r->heap[0].delta;
			depth_pop(r);
		}
		if (!r->counter[0])
			snprintf(r->counter, sizeof(r->counter), "%s in flight",
				 ring_name(c, ring));
		ev_begin(c);
		put(c, "{\"ph\": \"C\", \"name\": ");
		put_json(c, r->counter);
		pid_tid(c, dev_pid(c, ring), 0);
		ts_us(c, ts);
		put(c, ", \"args\": {\"jobs\": ");
		put_s64(c, r->depth);
		put(c, "}}");
	}
}

/* Errors and preemptions, on the ring's first track, as they come */
static void instant(struct chrome *c, const struct gr_event *ev)
{
	static const char * const codes[] = { "error", "timeout", "reset" };
	const struct grtrace_job_payload *p = &ev->job;
	char name[96];

	if (ev->type == GRTRACE_EV_ERROR)
		snprintf(name, sizeof(name), "%s %llu:%llu",
			 p->status >= 0 && p->status < 3 ? codes[p->status] : "error",
			 (unsigned long long)p->fence_context,
			 (unsigned long long)p->fence_seqno);
	else if (ev->type == GRTRACE_EV_CTX_SWITCH && p->flags & GRTRACE_JOB_F_PREEMPT)
		snprintf(name, sizeof(name), "preempt ctx %llu -> %llu",
			 (unsigned long long)p->ctx_id,
			 (unsigned long long)p->aux_context);
	else
		return;
	ev_begin(c);
	put(c, "{\"ph\": \"i\", \"s\": \"t\", \"name\": ");
	put_json(c, name);
	pid_tid(c, dev_pid(c, p->ring_id), tid_of(p->ring_id, 0));
	ts_us(c, ev->ts);
	put_mem(c, "}", 1);
}

/*
 * aggregate_only: each SUMMARY record as counters of its ring, a value per
 * window from its start.  One series per counter: Perfetto makes a track
 * of each series ("<ring> <counter> <series>"), but chrome://tracing
 * stacks the series of a counter, which only sums may share.
 */
enum {
	SC_JOBS,
	SC_LAT_AVG,
	SC_LAT_MAX,
	SC_BUSY,
	SC_DEPTH_AVG,
	SC_DEPTH_PEAK,
	SC_ERRORS,
	SC_NR
};

static const char * const sum_counters[SC_NR][2] = {
	[SC_JOBS]	= { "completed", "jobs/s" },
	[SC_LAT_AVG]	= { "latency avg", "us" },
	[SC_LAT_MAX]	= { "latency max", "us" },
	[SC_BUSY]	= { "busy", "%" },
	[SC_DEPTH_AVG]	= { "queue avg", "jobs" },
	[SC_DEPTH_PEAK]	= { "queue peak", "jobs" },
	[SC_ERRORS]	= { "errors", "in window" },
};

/* The counters of @ring at @ts: @v per sum_counters[], 3 decimals at most */
static void sum_write(struct chrome *c, __u32 ring, __u64 ts, const double *v)
{
	char name[96], num[48];
	int k, n;

	for (k = 0; k < SC_NR; k++) {
		snprintf(name, sizeof(name), "%s %s", ring_name(c, ring), sum_counters[k][0]);
		n = snprintf(num, sizeof(num), "%.3f", v[k]);
		while (num[n - 1] == '0')
			n--;
		if (num[n - 1] == '.')
			n--;
		ev_begin(c);
		put(c, "{\"ph\": \"C\", \"name\": ");
		put_json(c, name);
		pid_tid(c, dev_pid(c, ring), 0);
		ts_us(c, ts);
		put(c, ", \"args\": {");
		put_json(c, sum_counters[k][1]);
		put(c, ": ");
		put_mem(c, num, n);
		put(c, "}}");
	}
}

/*
 * A window of a ring: jobs completed a second (windows differ: the last
 * is cut by the stop), their latency (SUBMIT to COMPLETE) average and
 * maximum, the device time over the window, the queue depth of the
 * SUBMITs, the errors.  A ring has no record for a window it was idle in:
 * its counters go to 0 at the end of its last window before a gap, and
 * after its last one (write_tail()).
 */
static void summary(struct chrome *c, const struct grtrace_summary *s)
{
	struct ring_st *r = ring_st(c, s->ring_id);
	double v[SC_NR] = { 0 };

	if (r->summed && r->sum_end < s->window_start)
		sum_write(c, s->ring_id, r->sum_end, v);
	if (s->window_ns) {
		v[SC_JOBS] = s->jobs * 1e9 / s->window_ns;
		v[SC_BUSY] = 100.0 * s->dev_sum / s->window_ns;
	}
	if (s->jobs)
		v[SC_LAT_AVG] = (double)s->lat_sum / s->jobs / 1000;
	v[SC_LAT_MAX] = s->lat_max / 1000.0;
	if (s->depth_n)
		v[SC_DEPTH_AVG] = (double)s->depth_sum / s->depth_n;
	v[SC_DEPTH_PEAK] = s->depth_peak;
	v[SC_ERRORS] = s->errors;
	sum_write(c, s->ring_id, s->window_start, v);
	r->summed = true;
	r->sum_end = s->window_start + s->window_ns;
}

/* ---- Chrome: the jobs as they retire ---- */

/* The first reading: the time origin, the threads, the label thresholds */
static void first_job(struct chrome *c, const struct gr_job *j)
{
	struct ring_st *r = ring_st(c, j->ring_id);
	struct thread *th;
	__s64 v;

	if (has_submitter(j)) {
		if (j->ts[GRTRACE_EV_SUBMIT] < c->min_submit)
			c->min_submit = j->ts[GRTRACE_EV_SUBMIT];
		th = thread_of(c, j->tgid, j->pid, true);
		if (!th->comm[0])
			memcpy(th->comm, j->comm, sizeof(th->comm));
	}
	if (gr_job_outlier(j, GR_L_LONG_QUEUE, &v))
		gr_stat_add(&r->out[0], v);
	if (gr_job_outlier(j, GR_L_SLOW_EXEC, &v))
		gr_stat_add(&r->out[1], v);
}

/* A job on the tracks: from its first stage to its last, if two */
static bool job_span(const struct gr_job *j, __u64 *start, __u64 *end)
{
	int k, n = 0;

	*start = ~0ULL;
	*end = 0;
	for (k = 0; k < GR_STAGES; k++) {
		if (!(j->seen & (1U << k)))
			continue;
		*start = j->ts[k] < *start ? j->ts[k] : *start;
		*end = j->ts[k] > *end ? j->ts[k] : *end;
		n++;
	}
	return n >= 2;
}

static void on_retire(void *arg, const struct gr_jobs *jobs, struct gr_job *j)
{
	static const __u32 labels[2] = { GR_L_LONG_QUEUE, GR_L_SLOW_EXEC };
	struct chrome *c = arg;
	struct ring_st *r = ring_st(c, j->ring_id);
	struct place at, *job = NULL;
	const struct fence_job *fj;
	__u64 start, end;
	size_t d;
	__s64 v;
	int k;

	if (c->first) {
		first_job(c, j);
		return;
	}
	for (k = 0; k < 2; k++)
		if (r->have_thresh[k] && gr_job_outlier(j, labels[k], &v) && v > r->thresh[k])
			j->labels |= labels[k];
	if (job_span(j, &start, &end)) {
		at = (struct place){ dev_pid(c, j->ring_id),
				     tid_of(j->ring_id, lane_of(c, j->ring_id, start, end)),
				     start, end };
		job = &at;
	}
	/* First: a job that waits on its own fence finds itself */
	fj_add(c, j, job);
	if (jobs->nr_dep > c->nr_where) {
		c->nr_where = jobs->nr_dep;
		c->where = gr_realloc(c->where, c->nr_where, sizeof(*c->where));
	}
	for (d = j->dep_head; d; d = jobs->dep[d - 1].next)
		c->where[d - 1].end = 0;
	if (job) {
		job_event(c, j, job);
		phase_events(c, jobs, j, job);
		if (c->host)
			host_events(c, j, job);
	}
	if (has_submitter(j))
		thread_events(c, jobs, j, job);
	/* The flows of the waits not on the thread (those go with it) */
	for (d = j->dep_head; d; d = jobs->dep[d - 1].next) {
		const struct gr_dep *dep = &jobs->dep[d - 1];
		const struct place *w = c->where[d - 1].end ? &c->where[d - 1] : NULL;
		struct place from;

		if (thread_wait(j, job, dep))
			continue;
		fj = fj_find(c, dep->fctx, dep->fseq);
		if (!fj || !fj->placed)
			continue;
		from = fj->at;
		from.start = last_ns(fj->at.start, fj->at.end);
		dep_flow(c, &from, w, job, dep->exit);
	}
	if (j->seen & (1U << GRTRACE_EV_SUBMIT)) {
		depth_push(r, j->ts[GRTRACE_EV_SUBMIT], 1);
		if (j->seen & (1U << GRTRACE_EV_COMPLETE))
			depth_push(r, j->ts[GRTRACE_EV_COMPLETE], -1);
		else if (gr_job_done(j))	/* at END: no event tells its COMPLETE */
			depth_push(r, j->ts[GRTRACE_EV_END], -1);
		depth_flush(c, j->ring_id, false, j->ts[GRTRACE_EV_SUBMIT]);
	}
}

/* Read the input once, each job to on_retire().  Returns: 0, or -1. */
static int pass(struct chrome *c)
{
	struct gr_event ev;
	int ret;

	gr_jobs_stream(&c->jobs, on_retire, c);
	while ((ret = gr_src_next(&c->src, &ev)) > 0) {
		if (!c->first && ev.type == GRTRACE_EV_SUMMARY)
			summary(c, &c->t.summary);
		else if (!c->first)
			instant(c, &ev);
		gr_jobs_event(&c->jobs, &ev);
	}
	if (!ret)
		gr_jobs_finish(&c->jobs);
	gr_jobs_free(&c->jobs);
	return ret < 0 ? -1 : 0;
}

/* After the first reading: what the header and the jobs need */
static void first_done(struct chrome *c)
{
	__u32 id;
	int k;

	/* The session start, or earlier for a submit event before it */
	c->origin = c->t.start_ts;
	if (c->min_submit < c->origin + GR_MARK_NS)
		c->origin = c->min_submit - GR_MARK_NS;
	for (id = 0; id < c->t.nr_rings; id++) {
		const struct gr_ring *r = &c->t.rings[id];

		ring_st(c, id)->used = r->used;
		for (k = 0; k < GRTRACE_EV_NR; k++)
			ring_st(c, id)->events |= r->by_type[k] > 0;
	}
	for (id = 0; id < c->nr_ring; id++) {
		struct ring_st *r = &c->ring[id];

		for (k = 0; k < 2; k++) {
			if (!r->out[k].n)
				continue;
			r->have_thresh[k] = true;
			r->thresh[k] = gr_label_thresh(gr_stat_pct(&r->out[k], 50));
			gr_stat_free(&r->out[k]);
		}
	}
}

static void write_head(struct chrome *c)
{
	char sid[32] = "";
	__u32 id;
	int d;

	put(c, "{\"displayTimeUnit\": \"ns\",\n");
	put(c, "\"otherData\": {\"tool\": \"grtrace\", \"session_id\": ");
	if (c->t.have_info)
		snprintf(sid, sizeof(sid), "%016llx", (unsigned long long)c->t.info.session_id);
	put_json(c, sid);
	put_key(c, "input");
	put_json(c, c->t.input);
	put(c, "},\n\"traceEvents\": [");
	for (id = 0; id < c->nr_ring; id++)
		if (c->ring[id].used)
			dev_pid(c, id);
	for (d = 0; d < c->nr_devs; d++)
		meta(c, "process", GR_PID_BASE + d + 1, 0, c->devs[d], d);
	if (c->host)
		meta(c, "process", HOST_PID, 0, "QEMU (host)", d);
	/* A track for every ring with events, more for jobs that overlap */
	for (id = 0; id < c->nr_ring; id++)
		if (c->ring[id].events && !c->ring[id].named)
			track_name(c, id, c->ring[id].named++);
	thread_names(c);
}

/* At the end: the events held back */
static void write_tail(struct chrome *c)
{
	static const double zero[SC_NR];
	size_t i;
	__u32 id;

	for (i = 0; i < c->nr_th; i++)
		while (c->th[i].nr_ev)
			thread_pop(c, &c->th[i]);
	for (id = 0; id < c->nr_ring; id++) {
		depth_flush(c, id, true, 0);
		if (c->ring[id].summed)
			sum_write(c, id, c->ring[id].sum_end, zero);
	}
	put(c, "\n]}\n");
	out_flush(c);
}

static int open_out(FILE **f, const char *path)
{
	*f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!*f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int close_out(FILE *f, const char *path)
{
	int ret = ferror(f);

	ret |= f == stdout ? fflush(f) : fclose(f);
	if (ret)
		gr_err_msg("%s: write error\n", path);
	return ret ? -1 : 0;
}

/*
 * Read the input twice: first for what the header needs, then the jobs to
 * @path as they retire.  A damaged input stops the first reading, before
 * anything is written.  Returns: 0, or -1 with the problem printed.
 */
static int chrome(struct chrome *c, const char *input, const char *path)
{
	int ret;

	/* The host join takes a trace.dat's every virtio-gpu command at once */
	if (c->host)
		c->t.whole = true;
	if (gr_src_open(&c->src, &c->t, input))
		return -1;
	if (c->host && gr_host_join(c->host, c->host_path, &c->t))
		return -1;
	c->first = true;
	c->min_submit = ~0ULL;
	if (pass(c))
		return -1;
	if (!c->partial_said)
		gr_input_partial_warn(&c->t);
	first_done(c);
	if (gr_src_rewind(&c->src) || open_out(&c->f, path))
		return -1;
	c->first = false;
	c->ob = gr_zalloc(OUT_BUF);
	write_head(c);
	ret = pass(c);
	write_tail(c);
	return close_out(c->f, path) || ret ? -1 : 0;
}

static void chrome_free(struct chrome *c)
{
	__u32 id;
	size_t i;
	int d;

	gr_src_close(&c->src);
	for (id = 0; id < c->nr_ring; id++) {
		gr_stat_free(&c->ring[id].out[0]);
		gr_stat_free(&c->ring[id].out[1]);
		free(c->ring[id].lane_end);
		free(c->ring[id].heap);
	}
	free(c->ring);
	for (d = 0; d < c->nr_devs; d++)
		free(c->devs[d]);
	free(c->devs);
	free(c->dev_hash);
	for (i = 0; i < c->nr_th; i++)
		free(c->th[i].ev);
	free(c->th);
	free(c->th_hash);
	free(c->fj);
	free(c->fj_hash);
	free(c->where);
	free(c->tev);
	free(c->ob);
	if (c->host)
		gr_host_free(c->host);
	free(c->host);
	free(c->host_lane_end);
	gr_trace_free(&c->t);
}

int gr_export_main(int argc, char *argv[])
{
	struct gr_export_params p;
	int ret = EXIT_FAILURE;

	export_parse_args(argc, argv, &p);
	if (p.kernelshark && kernelshark(&p))
		return ret;
	if (p.chrome) {
		struct chrome c = { .t.session = p.session, .partial_said = p.kernelshark };

		if (p.host)
			c.host = gr_zalloc(sizeof(*c.host));
		c.host_path = p.host;
		if (!chrome(&c, p.input, p.chrome))
			ret = EXIT_SUCCESS;
		chrome_free(&c);
	} else {
		ret = EXIT_SUCCESS;
	}
	free(p.last_boot);
	return ret;
}

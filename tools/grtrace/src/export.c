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
 * errors and preemptions are instant events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "input.h"
#include "jobs.h"
#include "utils.h"

static void export_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace export [-h] [-D] [--chrome FILE] [--kernelshark FILE]",
		"                        [-i FILE|DIR]",
		"",
		"  Write the jobs of a grtrace stream or trace.dat as a Chrome/Perfetto",
		"  trace (ui.perfetto.dev, chrome://tracing): a process per device, a",
		"  track per ring, every job with its phases and waits nested, the",
		"  submitting threads with arrows to their jobs, dependency arrows,",
		"  jobs in flight per ring, errors and preemptions; or as KernelShark",
		"  lanes: a trace-cmd data file with a CPU per ring and a task per job.",
		"",
		"    -c/--chrome FILE: the JSON output, - for stdout",
		"    -k/--kernelshark FILE: the trace-cmd data file (KernelShark lanes)",
		"    -i/--input FILE|DIR: a recorded file (relay stream or trace.dat),",
		"                         or a directory of events<N>[.bin] files;",
		"                         default: the live relay files (reading",
		"                         them consumes their data)",
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
		{ "input",	required_argument,	NULL, 'i' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "c:k:i:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			p->chrome = optarg;
			break;
		case 'k':
			p->kernelshark = optarg;
			break;
		case 'i':
			p->input = optarg;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			export_usage(NULL);
			break;
		default:
			export_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		export_usage("unexpected argument");
	if (!p->chrome && !p->kernelshark)
		export_usage("--chrome FILE or --kernelshark FILE is required");
	if (p->chrome && p->kernelshark && !strcmp(p->chrome, "-") &&
	    !strcmp(p->kernelshark, "-"))
		export_usage("only one output can go to stdout");
}

/* ---- tracks ---- */

/*
 * The pids and tids of the device tracks are above any real one (the
 * kernel's PID_MAX_LIMIT is 2^22), so that they never meet those of the
 * submitting threads: device N is pid GR_PID_BASE + N + 1, lane L of ring
 * R is tid GR_PID_BASE + (R + 1) * 1000 + L.
 */
#define GR_PID_BASE	0x40000000
#define GR_MARK_NS	1000	/* length of a "submit" event */

static int dev_pid(struct gr_exporter *ex, __u32 ring)
{
	const struct gr_ring *r = gr_ring(&ex->t, ring);
	const char *dev = r->known ? r->dev : "unknown device";
	int i;

	for (i = 0; i < ex->nr_devs; i++)
		if (!strcmp(ex->devs[i], dev))
			return GR_PID_BASE + i + 1;
	ex->devs = gr_realloc(ex->devs, ex->nr_devs + 1, sizeof(*ex->devs));
	ex->devs[ex->nr_devs++] = gr_strdup(dev);
	return GR_PID_BASE + ex->nr_devs;
}

static long tid_of(__u32 ring, int lane)
{
	return GR_PID_BASE + ((long)ring + 1) * 1000 + lane;
}

static void add_slice(struct gr_slice **sl, size_t *nr, size_t *cap, const struct gr_job *j,
		      size_t job, int kind, __u64 start, __u64 end)
{
	struct gr_slice *s;

	if (end < start)
		return;
	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*sl = gr_realloc(*sl, *cap, sizeof(**sl));
	}
	s = &(*sl)[(*nr)++];
	s->job = job;
	s->ring = j->ring_id;
	s->kind = kind;
	s->start = start;
	s->end = end;
}

/* The phases of a job on the KernelShark lanes */
static void job_slices(struct gr_exporter *ex, size_t i)
{
	const struct gr_job *j = &ex->jobs.job[i];
	int from = j->seen & (1U << GRTRACE_EV_COMMIT) ? GRTRACE_EV_COMMIT : GRTRACE_EV_SUBMIT;
	bool has_from = j->seen & (1U << from);
	int b = j->seen & (1U << GRTRACE_EV_END) ? GRTRACE_EV_END : GRTRACE_EV_COMPLETE;

	if (j->seen & (1U << GRTRACE_EV_START)) {
		if (has_from)
			add_slice(&ex->sl, &ex->nr_sl, &ex->cap_sl, j, i, GR_QUEUE, j->ts[from],
				  j->ts[GRTRACE_EV_START]);
		if (j->seen & (1U << GRTRACE_EV_END))
			add_slice(&ex->sl, &ex->nr_sl, &ex->cap_sl, j, i, GR_EXEC,
				  j->ts[GRTRACE_EV_START], j->ts[GRTRACE_EV_END]);
	} else if (has_from && j->seen & (1U << b)) {
		add_slice(&ex->sl, &ex->nr_sl, &ex->cap_sl, j, i, GR_EXEC, j->ts[from], j->ts[b]);
	}
}

/* A job on the Chrome tracks: from its first stage to its last, if two */
static void job_span(struct gr_exporter *ex, size_t i)
{
	const struct gr_job *j = &ex->jobs.job[i];
	__u64 start = ~0ULL, end = 0;
	int k, n = 0;

	for (k = 0; k < GR_STAGES; k++) {
		if (!(j->seen & (1U << k)))
			continue;
		start = j->ts[k] < start ? j->ts[k] : start;
		end = j->ts[k] > end ? j->ts[k] : end;
		n++;
	}
	if (n >= 2)
		add_slice(&ex->js, &ex->nr_js, &ex->cap_js, j, i, GR_EXEC, start, end);
}

static int cmp_slice(const void *a, const void *b)
{
	const struct gr_slice *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Put every slice on the first lane of its ring and kind where it fits. */
static void assign_lanes(struct gr_slice *sl, size_t nr)
{
	__u64 lane_end[GR_LANES];
	size_t i;
	int k, n = 0;

	qsort(sl, nr, sizeof(*sl), cmp_slice);
	for (i = 0; i < nr; i++) {
		struct gr_slice *s = &sl[i];

		if (!i || s->ring != sl[i - 1].ring || s->kind != sl[i - 1].kind)
			n = 0;
		for (k = 0; k < n && lane_end[k] > s->start; k++)
			;
		if (k == GR_LANES)
			k = GR_LANES - 1;
		if (k == n && n < GR_LANES)
			n++;
		lane_end[k] = s->end;
		s->lane = k;
	}
}

/* ---- output ---- */

static void ev_begin(struct gr_exporter *ex)
{
	fputs(ex->events++ ? ",\n" : "\n", ex->f);
}

/* A time in the trace's microseconds, from ns */
static void us(FILE *f, const char *key, long long ns)
{
	fprintf(f, "\"%s\": %s%lld.%03lld", key, ns < 0 ? "-" : "",
		(ns < 0 ? -ns : ns) / 1000, (ns < 0 ? -ns : ns) % 1000);
}

static void ts_us(FILE *f, const struct gr_exporter *ex, __u64 ts)
{
	us(f, "ts", (long long)(ts - ex->origin));
}

static void meta(struct gr_exporter *ex, const char *what, int pid, long tid,
		 const char *name, long sort)
{
	ev_begin(ex);
	fprintf(ex->f, "{\"ph\": \"M\", \"name\": \"%s_name\", \"pid\": %d", what, pid);
	if (tid)
		fprintf(ex->f, ", \"tid\": %ld", tid);
	fputs(", \"args\": {\"name\": ", ex->f);
	gr_json_str(ex->f, name);
	fputs("}}", ex->f);
	if (sort < 0)
		return;
	ev_begin(ex);
	fprintf(ex->f, "{\"ph\": \"M\", \"name\": \"%s_sort_index\", \"pid\": %d", what, pid);
	if (tid)
		fprintf(ex->f, ", \"tid\": %ld", tid);
	fprintf(ex->f, ", \"args\": {\"sort_index\": %ld}}", sort);
}

static void ring_name(const struct gr_exporter *ex, __u32 ring, char *buf, size_t len)
{
	const struct gr_ring *r = gr_ring(&ex->t, ring);

	if (r->known)
		snprintf(buf, len, "%s", r->name);
	else
		snprintf(buf, len, "ring%u", ring);
}

static void track_name(struct gr_exporter *ex, __u32 ring, int lane)
{
	long tid = tid_of(ring, lane);
	char name[128];
	size_t i, n;

	for (i = 0; i < ex->nr_tids; i++)
		if (ex->tids[i] == tid)
			return;
	ex->tids = gr_realloc(ex->tids, ex->nr_tids + 1, sizeof(*ex->tids));
	ex->tids[ex->nr_tids++] = tid;
	ring_name(ex, ring, name, sizeof(name));
	n = strlen(name);
	snprintf(name + n, sizeof(name) - n, " (%s)",
		 gr_engine_name(gr_ring(&ex->t, ring)->engine));
	if (lane) {
		n = strlen(name);
		snprintf(name + n, sizeof(name) - n, " #%d", lane + 1);
	}
	meta(ex, "thread", dev_pid(ex, ring), tid, name, tid - GR_PID_BASE);
}

/* A track for every ring with events, more for jobs that overlap. */
static void track_names(struct gr_exporter *ex)
{
	size_t i;
	__u32 id;

	for (id = 0; id < ex->t.nr_rings; id++)
		if (ex->t.rings[id].used)
			track_name(ex, id, 0);
	for (i = 0; i < ex->nr_js; i++)
		track_name(ex, ex->js[i].ring, ex->js[i].lane);
}

static bool has_submitter(const struct gr_job *j)
{
	return j->seen & (1U << GRTRACE_EV_SUBMIT) && (j->pid || j->tgid);
}

struct thread_key {
	__u32 tgid;
	__u32 pid;
	size_t job;
};

/* By process, its main thread first, then by thread and job */
static int cmp_thread_key(const void *a, const void *b)
{
	const struct thread_key *x = a, *y = b;
	bool xmain = x->pid == x->tgid, ymain = y->pid == y->tgid;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (xmain != ymain)
		return xmain ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* The names of the submitting processes (of their main thread) and threads */
static void thread_names(struct gr_exporter *ex)
{
	struct thread_key *k = gr_zalloc((ex->jobs.nr + 1) * sizeof(*k));
	size_t i, n = 0;

	for (i = 0; i < ex->jobs.nr; i++) {
		const struct gr_job *j = &ex->jobs.job[i];

		if (has_submitter(j))
			k[n++] = (struct thread_key){ j->tgid, j->pid, i };
	}
	qsort(k, n, sizeof(*k), cmp_thread_key);
	for (i = 0; i < n; i++) {
		const char *comm = ex->jobs.job[k[i].job].comm;

		if (!i || k[i].tgid != k[i - 1].tgid)
			meta(ex, "process", k[i].tgid, 0, comm, -1);
		if (!i || k[i].tgid != k[i - 1].tgid || k[i].pid != k[i - 1].pid)
			meta(ex, "thread", k[i].tgid, k[i].pid, comm, -1);
	}
	free(k);
}

static void x_begin(struct gr_exporter *ex, const char *name, const char *cat, int pid,
		    long tid, __u64 start, __u64 end)
{
	ev_begin(ex);
	fputs("{\"ph\": \"X\", \"name\": ", ex->f);
	gr_json_str(ex->f, name);
	fprintf(ex->f, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %ld, ", cat, pid, tid);
	ts_us(ex->f, ex, start);
	fputs(", ", ex->f);
	us(ex->f, "dur", (long long)(end - start));
}

static void fence_arg(struct gr_exporter *ex, __u64 fctx, __u64 fseq)
{
	fprintf(ex->f, "\"fence\": \"%llu:%llu\"", (unsigned long long)fctx,
		(unsigned long long)fseq);
}

/* A job: its arguments, and the end of the flow from its submit event */
static void job_event(struct gr_exporter *ex, const struct gr_slice *s, int pid, long tid)
{
	const struct gr_job *j = &ex->jobs.job[s->job];
	char buf[128];
	__s64 v;
	int k;

	x_begin(ex, j->comm[0] ? j->comm : "job", "job", pid, tid, s->start, s->end);
	if (has_submitter(j))
		fprintf(ex->f, ", \"bind_id\": %zu, \"flow_in\": true", s->job + 1);
	fputs(", \"args\": {", ex->f);
	fence_arg(ex, j->fctx, j->fseq);
	fprintf(ex->f, ", \"ctx\": %llu, \"pid\": %u, \"tgid\": %u, \"status\": ",
		(unsigned long long)j->ctx_id, j->pid, j->tgid);
	gr_json_str(ex->f, gr_job_status(j, buf, sizeof(buf)));
	gr_job_labels(j, buf, sizeof(buf));
	fputs(", \"labels\": ", ex->f);
	gr_json_str(ex->f, buf);
	for (k = 0; k < GR_M_NR; k++)
		if (gr_job_metric(j, k, &v))
			fprintf(ex->f, ", \"%s\": %lld", gr_metric_names[k], (long long)v);
	fputs("}}", ex->f);
}

/* Where the slice of a wait went, for the flow of its dependency */
struct place {
	int pid;
	long tid;
	__u64 start;
	__u64 end;
};

static void wait_event(struct gr_exporter *ex, size_t d, int pid, long tid,
		       __u64 start, __u64 end, struct place *where)
{
	const struct gr_dep *dep = &ex->jobs.dep[d];
	char name[64];

	snprintf(name, sizeof(name), "wait %llu:%llu", (unsigned long long)dep->fctx,
		 (unsigned long long)dep->fseq);
	x_begin(ex, name, "wait", pid, tid, start, end);
	fputs(", \"args\": {", ex->f);
	fence_arg(ex, dep->fctx, dep->fseq);
	fputs(", ", ex->f);
	us(ex->f, "waited_us", (long long)(dep->exit - dep->enter));
	fputs("}}", ex->f);
	where[d] = (struct place){ pid, tid, start, end };
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
static void phase_events(struct gr_exporter *ex, const struct gr_slice *s, int pid,
			 long tid, struct place *where)
{
	static const int phases[] = {
		GR_M_HOST, GR_M_QUEUE, GR_M_EXEC, GR_M_DEVICE, GR_M_COMPLETE,
	};
	static const char * const names[] = {
		"host", "queue", "exec", "device", "complete",
	};
	const struct gr_job *j = &ex->jobs.job[s->job];
	bool start = j->seen & (1U << GRTRACE_EV_START);
	__u64 from, to, at = s->start, w;
	size_t k, d;

	for (k = 0; k < ARRAY_SIZE(phases); k++) {
		if ((phases[k] == GR_M_DEVICE && start) ||
		    !gr_job_phase(j, phases[k], &from, &to))
			continue;
		from = from < at ? at : from;
		to = to > s->end ? s->end : to;
		if (to <= from)
			continue;
		x_begin(ex, names[k], "phase", pid, tid, from, to);
		fputs("}", ex->f);
		at = to;
		for (w = from; (d = next_wait(&ex->jobs, j, w, to)); ) {
			const struct gr_dep *dep = &ex->jobs.dep[d - 1];

			w = dep->exit < to ? dep->exit : to;
			wait_event(ex, d - 1, pid, tid, dep->enter, w, where);
		}
	}
}

static void job_events(struct gr_exporter *ex, struct place *where)
{
	size_t i;

	for (i = 0; i < ex->nr_js; i++) {
		const struct gr_slice *s = &ex->js[i];
		int pid = dev_pid(ex, s->ring);
		long tid = tid_of(s->ring, s->lane);

		job_event(ex, s, pid, tid);
		phase_events(ex, s, pid, tid, where);
	}
}

/* An event of a submitting thread: a job's submit, or a wait (dep >= 0) */
struct thread_ev {
	__u32 tgid;
	__u32 pid;
	__u64 start;
	__u64 end;
	size_t job;
	long dep;
};

static int cmp_thread_ev(const void *a, const void *b)
{
	const struct thread_ev *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->dep < 0) - (y->dep < 0);
}

/*
 * The submitting threads: a "submit" event that ends at each SUBMIT, with
 * the flow to its job, and the waits before the job.  The submit event
 * starts GR_MARK_NS before, so that it comes before its job (Perfetto
 * binds the ends of a flow to slices in time order).  An event ends at the
 * latest where the next one of its thread starts.
 */
static void thread_events(struct gr_exporter *ex, struct place *where)
{
	struct thread_ev *te = gr_zalloc((ex->jobs.nr + ex->jobs.nr_dep + 1) * sizeof(*te));
	size_t i, n = 0;
	char name[64];

	for (i = 0; i < ex->jobs.nr; i++) {
		const struct gr_job *j = &ex->jobs.job[i];
		__u64 ts = j->ts[GRTRACE_EV_SUBMIT], before = ts;
		size_t d;

		if (!has_submitter(j))
			continue;
		te[n++] = (struct thread_ev){ j->tgid, j->pid, ts - GR_MARK_NS, ts, i, -1 };
		if (ex->job_js[i] >= 0 && ex->js[ex->job_js[i]].start < ts)
			before = ex->js[ex->job_js[i]].start;
		for (d = j->dep_head; d; d = ex->jobs.dep[d - 1].next) {
			const struct gr_dep *dep = &ex->jobs.dep[d - 1];

			if (dep->enter && dep->exit > dep->enter && dep->enter < before)
				te[n++] = (struct thread_ev){ j->tgid, j->pid, dep->enter,
							      dep->exit, i, d - 1 };
		}
	}
	qsort(te, n, sizeof(*te), cmp_thread_ev);
	for (i = 0; i < n; i++) {
		const struct gr_job *j = &ex->jobs.job[te[i].job];

		if (i + 1 < n && te[i + 1].tgid == te[i].tgid && te[i + 1].pid == te[i].pid &&
		    te[i + 1].start < te[i].end)
			te[i].end = te[i + 1].start;
		if (te[i].dep >= 0) {
			if (te[i].end > te[i].start)
				wait_event(ex, te[i].dep, te[i].tgid, te[i].pid, te[i].start,
					   te[i].end, where);
			continue;
		}
		ring_name(ex, j->ring_id, name, sizeof(name));
		x_begin(ex, "submit", "submit", te[i].tgid, te[i].pid, te[i].start, te[i].end);
		if (ex->job_js[te[i].job] >= 0)
			fprintf(ex->f, ", \"bind_id\": %zu, \"flow_out\": true", te[i].job + 1);
		fputs(", \"args\": {", ex->f);
		fence_arg(ex, j->fctx, j->fseq);
		fputs(", \"ring\": ", ex->f);
		gr_json_str(ex->f, name);
		fprintf(ex->f, ", \"ctx\": %llu}}", (unsigned long long)j->ctx_id);
	}
	free(te);
}

static void flow_event(struct gr_exporter *ex, const char *ph, int pid, long tid,
		       __u64 ts, size_t id)
{
	ev_begin(ex);
	fprintf(ex->f, "{\"ph\": \"%s\", \"name\": \"dependency\", \"cat\": \"dep\", ", ph);
	fprintf(ex->f, "\"id\": %zu, \"pid\": %d, \"tid\": %ld, ", id, pid, tid);
	ts_us(ex->f, ex, ts);
	fputs(*ph == 'f' ? ", \"bp\": \"e\"}" : "}", ex->f);
}

/* The last ns of a slice, or its start if it has none */
static __u64 last_ns(__u64 start, __u64 end)
{
	return end > start ? end - 1 : start;
}

/*
 * An arrow for each dependency: from the end of the job waited for to the
 * wait in the waiting job (to the waiting job where the wait has no slice).
 * Each end binds to the innermost slice around it; an arrow that would go
 * back in time is left out.
 */
static void flows(struct gr_exporter *ex, const struct place *where)
{
	const struct gr_slice *a, *b;
	struct place to;
	size_t i, id = 0;
	__u64 from;

	for (i = 0; i < ex->jobs.nr_dep; i++) {
		const struct gr_dep *d = &ex->jobs.dep[i];

		if (d->dep < 0 || ex->job_js[d->dep] < 0 ||
		    (!where[i].end && ex->job_js[d->waiter] < 0))
			continue;
		a = &ex->js[ex->job_js[d->dep]];
		from = last_ns(a->start, a->end);
		to = where[i];
		if (to.end) {
			to.start = last_ns(to.start, to.end);
		} else {
			b = &ex->js[ex->job_js[d->waiter]];
			to = (struct place){ dev_pid(ex, b->ring), tid_of(b->ring, b->lane),
					     d->exit ? d->exit : from, 0 };
			to.start = to.start < b->start ? b->start : to.start;
			to.start = to.start > b->end ? b->end : to.start;
		}
		if (to.start < from)
			continue;
		flow_event(ex, "s", dev_pid(ex, a->ring), tid_of(a->ring, a->lane), from, ++id);
		flow_event(ex, "f", to.pid, to.tid, to.start, id);
	}
}

struct depth_ev {
	__u32 ring;
	__u64 ts;
	int delta;
};

static int cmp_depth_ev(const void *a, const void *b)
{
	const struct depth_ev *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * A counter per ring, "<ring> in flight": the jobs submitted and not yet
 * completed (SUBMIT seen, COMPLETE not yet), one value per change.
 */
static void counters(struct gr_exporter *ex)
{
	struct depth_ev *de = gr_zalloc((2 * ex->jobs.nr + 1) * sizeof(*de));
	size_t i, n = 0;
	char name[64];
	long depth = 0;

	for (i = 0; i < ex->jobs.nr; i++) {
		const struct gr_job *j = &ex->jobs.job[i];

		if (!(j->seen & (1U << GRTRACE_EV_SUBMIT)))
			continue;
		de[n++] = (struct depth_ev){ j->ring_id, j->ts[GRTRACE_EV_SUBMIT], 1 };
		if (j->seen & (1U << GRTRACE_EV_COMPLETE))
			de[n++] = (struct depth_ev){ j->ring_id, j->ts[GRTRACE_EV_COMPLETE], -1 };
	}
	qsort(de, n, sizeof(*de), cmp_depth_ev);
	for (i = 0; i < n; i++) {
		depth = i && de[i].ring == de[i - 1].ring ? depth + de[i].delta : de[i].delta;
		if (i + 1 < n && de[i + 1].ring == de[i].ring && de[i + 1].ts == de[i].ts)
			continue;
		ring_name(ex, de[i].ring, name, sizeof(name));
		strncat(name, " in flight", sizeof(name) - strlen(name) - 1);
		ev_begin(ex);
		fputs("{\"ph\": \"C\", \"name\": ", ex->f);
		gr_json_str(ex->f, name);
		fprintf(ex->f, ", \"pid\": %d, ", dev_pid(ex, de[i].ring));
		ts_us(ex->f, ex, de[i].ts);
		fprintf(ex->f, ", \"args\": {\"jobs\": %ld}}", depth);
	}
	free(de);
}

/* Errors and preemptions, on the ring's first track. */
static void instants(struct gr_exporter *ex)
{
	static const char * const codes[] = { "error", "timeout", "reset" };
	char name[96];
	size_t i;

	for (i = 0; i < ex->t.nr_ev; i++) {
		const struct gr_event *ev = &ex->t.ev[i];
		const struct grtrace_job_payload *p = &ev->job;

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
			continue;
		ev_begin(ex);
		fputs("{\"ph\": \"i\", \"s\": \"t\", \"name\": ", ex->f);
		gr_json_str(ex->f, name);
		fprintf(ex->f, ", \"pid\": %d, \"tid\": %ld, ", dev_pid(ex, p->ring_id),
			tid_of(p->ring_id, 0));
		ts_us(ex->f, ex, ev->ts);
		fputc('}', ex->f);
	}
}

static void write_trace(struct gr_exporter *ex)
{
	struct place *where = gr_zalloc((ex->jobs.nr_dep + 1) * sizeof(*where));
	char sid[32] = "";
	size_t i;
	int d;

	/* The session start, or earlier for a submit event before it */
	ex->origin = ex->t.start_ts;
	for (i = 0; i < ex->jobs.nr; i++)
		if (has_submitter(&ex->jobs.job[i]) &&
		    ex->jobs.job[i].ts[GRTRACE_EV_SUBMIT] < ex->origin + GR_MARK_NS)
			ex->origin = ex->jobs.job[i].ts[GRTRACE_EV_SUBMIT] - GR_MARK_NS;
	fputs("{\"displayTimeUnit\": \"ns\",\n", ex->f);
	fputs("\"otherData\": {\"tool\": \"grtrace\", \"session_id\": ", ex->f);
	if (ex->t.have_info)
		snprintf(sid, sizeof(sid), "%016llx", (unsigned long long)ex->t.info.session_id);
	gr_json_str(ex->f, sid);
	fputs(", \"input\": ", ex->f);
	gr_json_str(ex->f, ex->t.input);
	fputs("},\n\"traceEvents\": [", ex->f);
	for (i = 0; i < ex->t.nr_rings; i++)
		if (ex->t.rings[i].used)
			dev_pid(ex, i);
	for (d = 0; d < ex->nr_devs; d++)
		meta(ex, "process", GR_PID_BASE + d + 1, 0, ex->devs[d], d);
	track_names(ex);
	thread_names(ex);
	job_events(ex, where);
	thread_events(ex, where);
	flows(ex, where);
	counters(ex);
	instants(ex);
	fputs("\n]}\n", ex->f);
	free(where);
}

static int open_out(struct gr_exporter *ex, const char *path)
{
	ex->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!ex->f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int close_out(struct gr_exporter *ex, const char *path)
{
	int ret = ferror(ex->f);

	ret |= ex->f == stdout ? fflush(ex->f) : fclose(ex->f);
	if (ret)
		gr_err_msg("%s: write error\n", path);
	return ret ? -1 : 0;
}

int gr_export_main(int argc, char *argv[])
{
	struct gr_export_params p;
	struct gr_exporter ex = { 0 };
	int d, ret = EXIT_FAILURE;
	size_t i;

	export_parse_args(argc, argv, &p);
	if (gr_input_load(&ex.t, p.input))
		goto out;
	gr_jobs_build(&ex.jobs, &ex.t);
	ex.job_js = gr_zalloc((ex.jobs.nr + 1) * sizeof(*ex.job_js));
	for (i = 0; i < ex.jobs.nr; i++) {
		ex.job_js[i] = -1;
		job_slices(&ex, i);
		job_span(&ex, i);
	}
	assign_lanes(ex.sl, ex.nr_sl);
	assign_lanes(ex.js, ex.nr_js);
	for (i = 0; i < ex.nr_js; i++)
		ex.job_js[ex.js[i].job] = i;
	if (p.kernelshark && gr_export_kernelshark(&ex, p.kernelshark))
		goto out;
	if (p.chrome) {
		if (open_out(&ex, p.chrome))
			goto out;
		write_trace(&ex);
		if (close_out(&ex, p.chrome))
			goto out;
	}
	ret = EXIT_SUCCESS;
out:
	for (d = 0; d < ex.nr_devs; d++)
		free(ex.devs[d]);
	free(ex.devs);
	free(ex.sl);
	free(ex.js);
	free(ex.tids);
	free(ex.job_js);
	gr_jobs_free(&ex.jobs);
	gr_trace_free(&ex.t);
	return ret;
}

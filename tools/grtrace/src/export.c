// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace export: the jobs of a stream as a Chrome / Perfetto trace (JSON
 * trace event format).
 *
 * One process per device, one thread (track) per ring.  Each job is a
 * complete event ("X") for its queue phase (COMMIT or SUBMIT to START) on
 * the ring's queue track, and one for its exec phase (START to END) on the
 * ring's track; a job without START shows as one "in flight" event from
 * COMMIT or SUBMIT to END or COMPLETE.  Phases that overlap on a track go
 * to extra tracks of the same ring, so that every track nests properly.
 * Dependencies (SYNC_WAIT) are flow events from the job waited for to the
 * waiting job; errors and preemptions are instant events.
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
		"  track per ring, queue and exec phases of every job, dependency",
		"  arrows, errors and preemptions; or as KernelShark lanes: a",
		"  trace-cmd data file with a CPU per ring and a task per job.",
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

static int dev_pid(struct gr_exporter *ex, __u32 ring)
{
	const struct gr_ring *r = gr_ring(&ex->t, ring);
	const char *dev = r->known ? r->dev : "unknown device";
	int i;

	for (i = 0; i < ex->nr_devs; i++)
		if (!strcmp(ex->devs[i], dev))
			return i + 1;
	ex->devs = gr_realloc(ex->devs, ex->nr_devs + 1, sizeof(*ex->devs));
	ex->devs[ex->nr_devs++] = gr_strdup(dev);
	return ex->nr_devs;
}

static long tid_of(__u32 ring, int kind, int lane)
{
	return (long)ring * 1000 + kind * GR_LANES + lane + 1;
}

static void add_slice(struct gr_exporter *ex, size_t job, int kind, __u64 start, __u64 end)
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
	s->ring = ex->jobs.job[job].ring_id;
	s->kind = kind;
	s->start = start;
	s->end = end;
}

static void job_slices(struct gr_exporter *ex, size_t i)
{
	const struct gr_job *j = &ex->jobs.job[i];
	int from = j->seen & (1U << GRTRACE_EV_COMMIT) ? GRTRACE_EV_COMMIT : GRTRACE_EV_SUBMIT;
	bool has_from = j->seen & (1U << from);

	if (j->seen & (1U << GRTRACE_EV_START)) {
		if (has_from)
			add_slice(ex, i, GR_QUEUE, j->ts[from], j->ts[GRTRACE_EV_START]);
		if (j->seen & (1U << GRTRACE_EV_END))
			add_slice(ex, i, GR_EXEC, j->ts[GRTRACE_EV_START], j->ts[GRTRACE_EV_END]);
	} else if (has_from && j->seen & (1U << GRTRACE_EV_END)) {
		add_slice(ex, i, GR_EXEC, j->ts[from], j->ts[GRTRACE_EV_END]);
	} else if (has_from && j->seen & (1U << GRTRACE_EV_COMPLETE)) {
		add_slice(ex, i, GR_EXEC, j->ts[from], j->ts[GRTRACE_EV_COMPLETE]);
	}
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

/* Put every slice on the first track of its ring and kind where it fits. */
static void assign_lanes(struct gr_exporter *ex)
{
	__u64 lane_end[GR_LANES];
	size_t i, a;
	int k, nr = 0;

	qsort(ex->sl, ex->nr_sl, sizeof(*ex->sl), cmp_slice);
	for (i = 0; i < ex->nr_sl; i++) {
		struct gr_slice *s = &ex->sl[i];

		a = i ? i - 1 : 0;
		if (!i || s->ring != ex->sl[a].ring || s->kind != ex->sl[a].kind)
			nr = 0;
		for (k = 0; k < nr && lane_end[k] > s->start; k++)
			;
		if (k == GR_LANES)
			k = GR_LANES - 1;
		if (k == nr && nr < GR_LANES)
			nr++;
		lane_end[k] = s->end;
		s->lane = k;
		ex->job_sl[2 * s->job + s->kind] = i;
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
	us(f, "ts", (long long)(ts - ex->t.start_ts));
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
	ev_begin(ex);
	fprintf(ex->f, "{\"ph\": \"M\", \"name\": \"%s_sort_index\", \"pid\": %d", what, pid);
	if (tid)
		fprintf(ex->f, ", \"tid\": %ld", tid);
	fprintf(ex->f, ", \"args\": {\"sort_index\": %ld}}", sort);
}

static void track_name(struct gr_exporter *ex, __u32 ring, int kind, int lane)
{
	const struct gr_ring *r = gr_ring(&ex->t, ring);
	long tid = tid_of(ring, kind, lane);
	char name[128];
	size_t i;

	for (i = 0; i < ex->nr_tids; i++)
		if (ex->tids[i] == tid)
			return;
	ex->tids = gr_realloc(ex->tids, ex->nr_tids + 1, sizeof(*ex->tids));
	ex->tids[ex->nr_tids++] = tid;
	if (r->known)
		snprintf(name, sizeof(name), "%s", r->name);
	else
		snprintf(name, sizeof(name), "ring%u", ring);
	snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s (%s)",
		 kind == GR_QUEUE ? " queue" : "", gr_engine_name(r->engine));
	if (lane)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), " #%d",
			 lane + 1);
	meta(ex, "thread", dev_pid(ex, ring), tid, name, tid);
}

/* A track for every ring with events, more for overlapping phases. */
static void track_names(struct gr_exporter *ex)
{
	size_t i;
	__u32 id;

	for (id = 0; id < ex->t.nr_rings; id++)
		if (ex->t.rings[id].used)
			track_name(ex, id, GR_EXEC, 0);
	for (i = 0; i < ex->nr_sl; i++)
		track_name(ex, ex->sl[i].ring, ex->sl[i].kind, ex->sl[i].lane);
}

static void slice_event(struct gr_exporter *ex, const struct gr_slice *s)
{
	const struct gr_job *j = &ex->jobs.job[s->job];
	char buf[128];

	ev_begin(ex);
	fputs("{\"ph\": \"X\", \"name\": ", ex->f);
	snprintf(buf, sizeof(buf), "%s%s", j->comm[0] ? j->comm : "job",
		 s->kind == GR_QUEUE ? " (queue)" : "");
	gr_json_str(ex->f, buf);
	fprintf(ex->f, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %ld, ",
		s->kind == GR_QUEUE ? "queue" : "exec", dev_pid(ex, s->ring),
		tid_of(s->ring, s->kind, s->lane));
	ts_us(ex->f, ex, s->start);
	fputs(", ", ex->f);
	us(ex->f, "dur", (long long)(s->end - s->start));
	fprintf(ex->f, ", \"args\": {\"fence\": \"%llu:%llu\", \"ctx\": %llu, ",
		(unsigned long long)j->fctx, (unsigned long long)j->fseq,
		(unsigned long long)j->ctx_id);
	fprintf(ex->f, "\"pid\": %u, \"tgid\": %u, \"status\": ", j->pid, j->tgid);
	gr_json_str(ex->f, gr_job_status(j, buf, sizeof(buf)));
	gr_job_labels(j, buf, sizeof(buf));
	fputs(", \"labels\": ", ex->f);
	gr_json_str(ex->f, buf);
	fputs("}}", ex->f);
}

static void flow_end(struct gr_exporter *ex, const char *ph, long si, __u64 ts,
		     unsigned long id)
{
	const struct gr_slice *s = &ex->sl[si];

	ev_begin(ex);
	fprintf(ex->f, "{\"ph\": \"%s\", \"name\": \"dependency\", \"cat\": \"dep\", ", ph);
	fprintf(ex->f, "\"id\": %lu, \"pid\": %d, \"tid\": %ld, ", id, dev_pid(ex, s->ring),
		tid_of(s->ring, s->kind, s->lane));
	ts_us(ex->f, ex, ts);
	fputs(*ph == 'f' ? ", \"bp\": \"e\"}" : "}", ex->f);
}

static __u64 clamp_ts(__u64 ts, const struct gr_slice *s)
{
	return ts < s->start ? s->start : ts > s->end ? s->end : ts;
}

/*
 * An arrow for each dependency: from the end of the job waited for to the
 * end of the wait (or the start) in the waiting job.
 */
static void flows(struct gr_exporter *ex)
{
	unsigned long id = 0;
	const struct gr_slice *a;
	long from, to;
	__u64 ts;
	size_t i;

	for (i = 0; i < ex->jobs.nr_dep; i++) {
		const struct gr_dep *d = &ex->jobs.dep[i];

		if (d->dep < 0)
			continue;
		from = ex->job_sl[2 * d->dep + GR_EXEC];
		if (from < 0)
			from = ex->job_sl[2 * d->dep + GR_QUEUE];
		to = ex->job_sl[2 * d->waiter + GR_QUEUE];
		if (to < 0)
			to = ex->job_sl[2 * d->waiter + GR_EXEC];
		if (from < 0 || to < 0)
			continue;
		a = &ex->sl[from];
		ts = a->end > a->start ? a->end - 1 : a->start;
		flow_end(ex, "s", from, ts, ++id);
		flow_end(ex, "f", to, clamp_ts(d->exit ? d->exit : ts, &ex->sl[to]), id);
	}
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
			tid_of(p->ring_id, GR_EXEC, 0));
		ts_us(ex->f, ex, ev->ts);
		fputc('}', ex->f);
	}
}

static void write_trace(struct gr_exporter *ex)
{
	char sid[32] = "";
	size_t i;
	int d;

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
		meta(ex, "process", d + 1, 0, ex->devs[d], d);
	track_names(ex);
	for (i = 0; i < ex->nr_sl; i++)
		slice_event(ex, &ex->sl[i]);
	flows(ex);
	instants(ex);
	fputs("\n]}\n", ex->f);
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
	ex.job_sl = gr_zalloc((2 * ex.jobs.nr + 1) * sizeof(*ex.job_sl));
	for (i = 0; i < 2 * ex.jobs.nr; i++)
		ex.job_sl[i] = -1;
	for (i = 0; i < ex.jobs.nr; i++)
		job_slices(&ex, i);
	assign_lanes(&ex);
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
	free(ex.tids);
	free(ex.job_sl);
	gr_jobs_free(&ex.jobs);
	gr_trace_free(&ex.t);
	return ret;
}

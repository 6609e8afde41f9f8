// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace report: where the time of every GPU job went, and who submitted
 * it.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "input.h"
#include "jobs.h"
#include "table.h"
#include "utils.h"

enum hist_kind {
	HIST_NONE,
	HIST_LAT,
	HIST_SIZE,
	HIST_RESULT,
};

struct report_params {
	const char *input;
	enum gr_fmt fmt;
	bool per_ring;
	bool per_ctx;
	bool per_process;
	enum hist_kind hist;
	__u64 topn;
	__u64 limit;
	__u32 engine_mask;
	const char *ring;
	long long since;
	long long until;
	long long queue_thresh;
	long long exec_thresh;
};

/* What report works on: the input, its jobs, and the jobs selected. */
struct report {
	struct report_params *p;
	struct gr_trace t;
	struct gr_jobs jobs;
	size_t *sel;
	size_t nr_sel;
	struct gr_out o;
};

static void report_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace report [-h] [-D] [-i FILE|DIR] [-f text|csv|json]",
		"         [--per-ring] [--per-context] [--per-process] [--topn N]",
		"         [--hist lat|size|result] [--engine NAME|MASK] [--ring NAME|ID]",
		"         [--since T] [--until T] [--limit N]",
		"         [--queue-thresh T] [--exec-thresh T]",
		"",
		"  Report the GPU jobs of a grtrace stream: a session header, then one",
		"  line per job with its times, submitter, status and labels.  The",
		"  times add up: HOST + DEVICE + COMPL = LATENCY, and with a START",
		"  QUEUE + EXEC = DEVICE; GPUWAIT is in no sum (see grtrace-report(1)).",
		"",
		"    -i/--input FILE|DIR: a recorded file, or a directory of events<N>[.bin]",
		"                         files; default: the live relay files (reading",
		"                         them consumes their data)",
		"    -f/--format FMT: text (default, times in us), csv or json (times in ns)",
		"       --per-ring, --per-context, --per-process: job count and statistics",
		"                         of latency, device and exec time per ring, per",
		"                         context (device and ctx id) or per process,",
		"                         instead of jobs (--per-ctx: --per-context)",
		"    -n/--topn N: only the N jobs of highest latency (COMPLETE - SUBMIT)",
		"       --hist KIND: histogram instead of jobs: lat (latency, log2 ns",
		"                         buckets), size (record sizes), result (status)",
		"       --engine NAME|MASK: only jobs of these engine classes: names",
		"                         (graphics,compute,copy,video_decode,",
		"                         video_encode,other) or a mask, bit N = class N",
		"       --ring NAME|ID: only jobs of this ring (id, name or dev/name)",
		"       --since T, --until T: only jobs whose first event is in this",
		"                         window, T from the session start (ns, or",
		"                         with a unit: 10us, 5ms, 2s)",
		"       --limit N: print at most N jobs",
		"       --queue-thresh T, --exec-thresh T: label long-queue, slow-exec",
		"                         above T (default: 4x the ring's median, >= 10us)",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

enum {
	OPT_PER_RING = 256,
	OPT_PER_CTX,
	OPT_PER_PROCESS,
	OPT_HIST,
	OPT_ENGINE,
	OPT_RING,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_LIMIT,
	OPT_QUEUE_THRESH,
	OPT_EXEC_THRESH,
};

static int parse_engines(const char *arg, __u32 *mask)
{
	char *s = gr_strdup(arg), *tok, *save = NULL;
	__u64 m;
	int e, ret = 0;

	if (!gr_parse_u64(arg, &m)) {
		*mask = m;
		free(s);
		return m ? 0 : -1;
	}
	*mask = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		e = gr_engine_parse(tok);
		if (e < 0)
			ret = -1;
		else
			*mask |= 1U << e;
	}
	free(s);
	return *mask ? ret : -1;
}

static void report_parse_args(int argc, char *argv[], struct report_params *p)
{
	static const struct option opts[] = {
		{ "input",	required_argument,	NULL, 'i' },
		{ "format",	required_argument,	NULL, 'f' },
		{ "topn",	required_argument,	NULL, 'n' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "per-ring",	no_argument,		NULL, OPT_PER_RING },
		{ "per-context", no_argument,		NULL, OPT_PER_CTX },
		{ "per-ctx",	no_argument,		NULL, OPT_PER_CTX },
		{ "per-process", no_argument,		NULL, OPT_PER_PROCESS },
		{ "hist",	required_argument,	NULL, OPT_HIST },
		{ "engine",	required_argument,	NULL, OPT_ENGINE },
		{ "ring",	required_argument,	NULL, OPT_RING },
		{ "since",	required_argument,	NULL, OPT_SINCE },
		{ "until",	required_argument,	NULL, OPT_UNTIL },
		{ "limit",	required_argument,	NULL, OPT_LIMIT },
		{ "queue-thresh", required_argument,	NULL, OPT_QUEUE_THRESH },
		{ "exec-thresh", required_argument,	NULL, OPT_EXEC_THRESH },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(p, 0, sizeof(*p));
	p->engine_mask = ~0U;
	p->since = -1;
	p->until = -1;

	while ((c = getopt_long(argc, argv, "i:f:n:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			p->input = optarg;
			break;
		case 'f':
			if (gr_parse_format(optarg, &p->fmt))
				report_usage("invalid --format: use text, csv or json");
			break;
		case 'n':
			if (gr_parse_u64(optarg, &p->topn) || !p->topn)
				report_usage("invalid --topn: a number above 0");
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			report_usage(NULL);
			break;
		case OPT_PER_RING:
			p->per_ring = true;
			break;
		case OPT_PER_CTX:
			p->per_ctx = true;
			break;
		case OPT_PER_PROCESS:
			p->per_process = true;
			break;
		case OPT_HIST:
			if (!strcmp(optarg, "lat"))
				p->hist = HIST_LAT;
			else if (!strcmp(optarg, "size"))
				p->hist = HIST_SIZE;
			else if (!strcmp(optarg, "result"))
				p->hist = HIST_RESULT;
			else
				report_usage("invalid --hist: use lat, size or result");
			break;
		case OPT_ENGINE:
			if (parse_engines(optarg, &p->engine_mask))
				report_usage("invalid --engine: engine class names or a mask");
			break;
		case OPT_RING:
			p->ring = optarg;
			break;
		case OPT_SINCE:
			if (gr_parse_ns(optarg, &p->since))
				report_usage("invalid --since: a time such as 1500000, 10us, 5ms");
			break;
		case OPT_UNTIL:
			if (gr_parse_ns(optarg, &p->until))
				report_usage("invalid --until: a time such as 1500000, 10us, 5ms");
			break;
		case OPT_LIMIT:
			if (gr_parse_u64(optarg, &p->limit) || !p->limit)
				report_usage("invalid --limit: a number above 0");
			break;
		case OPT_QUEUE_THRESH:
			if (gr_parse_ns(optarg, &p->queue_thresh) || !p->queue_thresh)
				report_usage("invalid --queue-thresh: a time above 0");
			break;
		case OPT_EXEC_THRESH:
			if (gr_parse_ns(optarg, &p->exec_thresh) || !p->exec_thresh)
				report_usage("invalid --exec-thresh: a time above 0");
			break;
		default:
			report_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		report_usage("unexpected argument");
}

/* ---- selection ---- */

static bool ring_matches(const struct gr_trace *t, __u32 id, const char *name)
{
	const struct gr_ring *r = gr_ring(t, id);
	char label[80];
	__u64 n;

	if (!gr_parse_u64(name, &n))
		return n == id;
	gr_ring_label(t, id, label, sizeof(label));
	return !strcmp(label, name) || (r->known && !strcmp(r->name, name));
}

static bool job_selected(const struct report *rp, const struct gr_job *j)
{
	const struct report_params *p = rp->p;
	unsigned int engine = gr_ring(&rp->t, j->ring_id)->engine;
	long long rel = (long long)(j->first_ts - rp->t.start_ts);

	if (engine >= 32 || !(p->engine_mask & (1U << engine)))
		return false;
	if (p->ring && !ring_matches(&rp->t, j->ring_id, p->ring))
		return false;
	if (p->since >= 0 && rel < p->since)
		return false;
	return p->until < 0 || rel <= p->until;
}

static int select_jobs(struct report *rp)
{
	size_t i;
	__u32 id;

	if (rp->p->ring) {
		for (id = 0; id < rp->t.nr_rings; id++)
			if (ring_matches(&rp->t, id, rp->p->ring))
				break;
		if (id == rp->t.nr_rings) {
			gr_err_msg("no ring '%s' in the input\n", rp->p->ring);
			return -1;
		}
	}
	rp->sel = gr_zalloc((rp->jobs.nr + 1) * sizeof(*rp->sel));
	for (i = 0; i < rp->jobs.nr; i++)
		if (job_selected(rp, &rp->jobs.job[i]))
			rp->sel[rp->nr_sel++] = i;
	return 0;
}

/* ---- header ---- */

static void features_str(__u64 f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", f & GRTRACE_FEAT_CSEQ ? "cseq " : "",
		 f & GRTRACE_FEAT_SUBMITTER ? "submitter " : "",
		 f & ~(GRTRACE_FEAT_CSEQ | GRTRACE_FEAT_SUBMITTER) ? "more " : "");
	if (*buf)
		buf[strlen(buf) - 1] = '\0';
}

static void realtime_str(__u64 ns, char *buf, size_t len)
{
	time_t sec = ns / NSEC_PER_SEC;
	struct tm tm;
	size_t n;

	n = gmtime_r(&sec, &tm) ? strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) : 0;
	if (!n) {
		snprintf(buf, len, "unknown time");
		return;
	}
	snprintf(buf + n, len - n, ".%06llu UTC",
		 (unsigned long long)(ns % NSEC_PER_SEC) / 1000);
}

static __u64 ring_jobs(const struct report *rp, __u32 id)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < rp->jobs.nr; i++)
		n += rp->jobs.job[i].ring_id == id;
	return n;
}

/* The "dropped" counters of the kernel stats, as "3 (filtered 1, overrun 2)" */
static void drops_str(const char *stats, char *buf, size_t len)
{
	const char *line;
	char total[32];
	size_t n;
	int k = 0;

	if (!stats || !gr_stats_get(stats, "dropped", total, sizeof(total))) {
		snprintf(buf, len, "unknown (no kernel stats in the input)");
		return;
	}
	n = snprintf(buf, len, "%s", total);
	for (line = stats; line && n < len; line = gr_next_line(line)) {
		int klen = strcspn(line, "=\n");

		if (strncmp(line, "dropped_", 8) || line[klen] != '=')
			continue;
		n += snprintf(buf + n, len - n, "%s%.*s %.*s", k++ ? ", " : " (",
			      klen - 8, line + 8, (int)strcspn(line + klen + 1, "\n"),
			      line + klen + 1);
	}
	if (k && n < len)
		snprintf(buf + n, len - n, ")");
}

static void header_text(struct report *rp)
{
	static const char newer[] = " (newer than this tool: new fields ignored)";
	const struct gr_trace *t = &rp->t;
	const struct grtrace_stream_info *si = &t->info;
	FILE *f = rp->o.f;
	char buf[512];
	__u32 i, j;
	int k;

	fprintf(f, "grtrace report: %s (%d file%s)\n", t->input, t->nr_files,
		t->nr_files == 1 ? "" : "s");
	if (t->have_info) {
		features_str(si->features, buf, sizeof(buf));
		fprintf(f, "  session   %016llx, format %u%s, clock %s, features %s\n",
			(unsigned long long)si->session_id, si->version,
			si->version > GRTRACE_FORMAT_VERSION ? newer : "",
			si->clock_id == GRTRACE_CLOCK_MONOTONIC ? "monotonic" : "other",
			*buf ? buf : "none");
		realtime_str(si->start_realtime, buf, sizeof(buf));
		fprintf(f, "  started   %s (monotonic %llu.%09llu s), %u cpus, %u KiB buffers\n",
			buf, (unsigned long long)si->start_ts / NSEC_PER_SEC,
			(unsigned long long)si->start_ts % NSEC_PER_SEC, si->nr_cpus,
			si->buffer_size / 1024);
	} else if (t->is_tracedat) {
		fprintf(f, "  session   a trace-cmd recording: its grtrace events, in its clock\n");
	} else {
		fprintf(f, "  session   unknown: no STREAM_INFO (the input starts mid-session)\n");
	}
	fprintf(f, "  span      %.6f ms: %zu records, %zu jobs\n",
		(t->last_ts - t->first_ts) / 1e6, t->nr_ev, rp->jobs.nr);
	fprintf(f, "  events   ");
	for (k = 0; k < GRTRACE_EV_NR; k++)
		fprintf(f, " %s %llu", gr_type_name(k), (unsigned long long)t->by_type[k]);
	fprintf(f, "\n  lost      %llu records (gseq gaps)", (unsigned long long)t->lost);
	if (t->first_gseq > 1)
		fprintf(f, ", %llu before the first record",
			(unsigned long long)t->first_gseq - 1);
	fprintf(f, "\n  skipped   %llu records of unknown type",
		(unsigned long long)t->unknown);
	fprintf(f, "; %llu longer, %llu shorter payloads than known\n",
		(unsigned long long)t->longer, (unsigned long long)t->shorter);
	drops_str(t->stats, buf, sizeof(buf));
	fprintf(f, "  dropped   %s\n  devices  ", buf);
	for (i = 0, k = 0; i < t->nr_rings; i++) {
		for (j = 0; j < i; j++)
			if (t->rings[j].known && !strcmp(t->rings[j].dev, t->rings[i].dev))
				break;
		if (t->rings[i].known && j == i && ++k)
			fprintf(f, " %s", t->rings[i].dev);
	}
	fprintf(f, "%s\n", k ? "" : " none known");
}

static void json_u64(FILE *f, const char *key, __u64 v, bool more)
{
	fprintf(f, "\"%s\": %llu%s", key, (unsigned long long)v, more ? ", " : "");
}

static void json_stats(FILE *f, const char *stats)
{
	const char *line;
	int n = 0;

	if (!stats) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (line = stats; line; line = gr_next_line(line)) {
		int klen = strcspn(line, "=\n");
		char key[64], val[64];

		if (line[klen] != '=' || klen >= (int)sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", klen, line);
		snprintf(val, sizeof(val), "%.*s", (int)strcspn(line + klen + 1, "\n"),
			 line + klen + 1);
		fputs(n++ ? ", " : "", f);
		gr_json_str(f, key);
		fputs(": ", f);
		if (gr_is_decimal(val) && strcmp(key, "session_id"))
			fputs(val, f);
		else
			gr_json_str(f, val);
	}
	fputc('}', f);
}

static void header_json(struct report *rp)
{
	const struct gr_trace *t = &rp->t;
	const struct grtrace_stream_info *si = &t->info;
	FILE *f = rp->o.f;
	char buf[64];
	int k;

	gr_out_member(&rp->o, "session");
	fputs("{\"input\": ", f);
	gr_json_str(f, t->input);
	fprintf(f, ", \"files\": %d, ", t->nr_files);
	if (t->have_info) {
		snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)si->session_id);
		fputs("\"session_id\": ", f);
		gr_json_str(f, buf);
		fprintf(f, ", \"format_version\": %u, \"newer_format\": %s, ", si->version,
			si->version > GRTRACE_FORMAT_VERSION ? "true" : "false");
		json_u64(f, "features", si->features, true);
		json_u64(f, "clock_id", si->clock_id, true);
		json_u64(f, "start_ts", si->start_ts, true);
		json_u64(f, "start_realtime", si->start_realtime, true);
		json_u64(f, "nr_cpus", si->nr_cpus, true);
		json_u64(f, "buffer_size", si->buffer_size, true);
	} else {
		fputs("\"session_id\": null, ", f);
	}
	json_u64(f, "first_ts", t->first_ts, true);
	json_u64(f, "last_ts", t->last_ts, true);
	json_u64(f, "span_ns", t->last_ts - t->first_ts, true);
	json_u64(f, "records", t->nr_ev, true);
	json_u64(f, "jobs", rp->jobs.nr, true);
	json_u64(f, "lost_records", t->lost, true);
	json_u64(f, "lost_before_first", t->first_gseq - 1, true);
	json_u64(f, "unknown_records", t->unknown, true);
	json_u64(f, "longer_payloads", t->longer, true);
	json_u64(f, "shorter_payloads", t->shorter, true);
	fputs("\"events_by_type\": {", f);
	for (k = 0; k < GRTRACE_EV_NR; k++)
		json_u64(f, gr_type_name(k), t->by_type[k], k < GRTRACE_EV_NR - 1);
	fputs("}, \"kernel_stats\": ", f);
	json_stats(f, t->stats);
	fputc('}', f);
}

static void rings_table(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "id", "ID", 4, true },
		{ "engine", "ENGINE", -12, false },
		{ "dev", "DEVICE", -16, false },
		{ "name", "RING", -16, false },
		{ "events", "EVENTS", 8, true },
		{ "irqs", "IRQS", 6, true },
		{ "ctx_switches", "CTXSW", 6, true },
		{ "errors", "ERRORS", 6, true },
		{ "jobs", "JOBS", 6, true },
	};
	char b[ARRAY_SIZE(cols)][64], *cells[ARRAY_SIZE(cols)];
	const struct gr_trace *t = &rp->t;
	__u64 events;
	__u32 id;
	int k;

	for (k = 0; k < (int)ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "rings", "rings:", cols, ARRAY_SIZE(cols));
	for (id = 0; id < t->nr_rings; id++) {
		const struct gr_ring *r = &t->rings[id];

		if (!r->known && !r->used)
			continue;
		for (events = 0, k = 0; k < GRTRACE_EV_NR; k++)
			events += r->by_type[k];
		snprintf(b[0], 64, "%u", id);
		snprintf(b[1], 64, "%s", gr_engine_name(r->engine));
		snprintf(b[2], 64, "%s", r->known ? r->dev : "");
		snprintf(b[3], 64, "%s", r->known ? r->name : "");
		snprintf(b[4], 64, "%llu", (unsigned long long)events);
		snprintf(b[5], 64, "%llu", (unsigned long long)r->by_type[GRTRACE_EV_IRQ]);
		snprintf(b[6], 64, "%llu", (unsigned long long)r->by_type[GRTRACE_EV_CTX_SWITCH]);
		snprintf(b[7], 64, "%llu", (unsigned long long)r->by_type[GRTRACE_EV_ERROR]);
		snprintf(b[8], 64, "%llu", (unsigned long long)ring_jobs(rp, id));
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

/* ---- jobs ---- */

static const struct gr_col job_cols[] = {
	{ "time", "TIME", 12, true },
	{ "ring", "RING", -22, false },
	{ "engine", "ENGINE", -12, false },
	{ "fence", "FENCE", -12, false },
	{ "ctx", "CTX", 5, true },
	{ "pid", "PID", 7, true },
	{ "comm", "COMM", -15, false },
	/* the metrics, in the order of enum gr_metric */
	{ "t_submit_host", "HOST", 9, true },
	{ "t_device", "DEVICE", 9, true },
	{ "t_complete", "COMPL", 9, true },
	{ "latency", "LATENCY", 9, true },
	{ "t_queue", "QUEUE", 9, true },
	{ "t_exec", "EXEC", 9, true },
	{ "t_gpu_wait", "GPUWAIT", 9, true },
	{ "status", "STATUS", -7, false },
	{ "waits_on", "WAITS_ON", -9, false },
	{ "labels", "LABELS", 0, false },
};

#define NR_JOB_COLS	ARRAY_SIZE(job_cols)
static_assert(NR_JOB_COLS == 10 + GR_M_NR, "a column per metric");

static void deps_str(const struct gr_jobs *jobs, const struct gr_job *j, char *buf, size_t len)
{
	size_t idx[8], n = 0, i, w = 0;

	for (i = j->dep_head; i && n < ARRAY_SIZE(idx); i = jobs->dep[i - 1].next)
		idx[n++] = i - 1;
	buf[0] = '\0';
	while (n-- && w < len)
		w += snprintf(buf + w, len - w, "%s%llu:%llu", w ? " " : "",
			      (unsigned long long)jobs->dep[idx[n]].fctx,
			      (unsigned long long)jobs->dep[idx[n]].fseq);
}

static void job_row(struct report *rp, const struct gr_job *j)
{
	char b[NR_JOB_COLS][128], *cells[NR_JOB_COLS];
	const struct gr_out *o = &rp->o;
	__s64 v;
	int k;

	for (k = 0; k < (int)NR_JOB_COLS; k++)
		cells[k] = b[k];
	gr_cell_ns(o, b[0], 128, true, (long long)(j->first_ts - rp->t.start_ts));
	gr_ring_label(&rp->t, j->ring_id, b[1], 128);
	snprintf(b[2], 128, "%s", gr_engine_name(gr_ring(&rp->t, j->ring_id)->engine));
	snprintf(b[3], 128, "%llu:%llu", (unsigned long long)j->fctx,
		 (unsigned long long)j->fseq);
	snprintf(b[4], 128, "%llu", (unsigned long long)j->ctx_id);
	b[5][0] = '\0';
	if (j->pid)
		snprintf(b[5], 128, "%u", j->pid);
	snprintf(b[6], 128, "%s", j->comm);
	for (k = 0; k < GR_M_NR; k++) {
		bool valid = gr_job_metric(j, k, &v);

		gr_cell_ns(o, b[7 + k], 128, valid, v);
	}
	gr_job_status(j, b[7 + GR_M_NR], 128);
	deps_str(&rp->jobs, j, b[8 + GR_M_NR], 128);
	gr_job_labels(j, b[9 + GR_M_NR], 128);
	gr_tbl_row(&rp->o, cells);
}

static void jobs_table(struct report *rp, const size_t *idx, size_t n, const char *title)
{
	size_t i;

	gr_tbl_begin(&rp->o, "jobs", title, job_cols, NR_JOB_COLS);
	for (i = 0; i < n && (!rp->p->limit || i < rp->p->limit); i++)
		job_row(rp, &rp->jobs.job[idx[i]]);
	gr_tbl_end(&rp->o);
}

static const struct gr_jobs *cmp_jobs;

static int cmp_latency(const void *a, const void *b)
{
	__s64 x = -1, y = -1;

	gr_job_metric(&cmp_jobs->job[*(const size_t *)a], GR_M_LAT, &x);
	gr_job_metric(&cmp_jobs->job[*(const size_t *)b], GR_M_LAT, &y);
	if (x != y)
		return x < y ? 1 : -1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void topn_table(struct report *rp)
{
	size_t *idx = gr_zalloc((rp->nr_sel + 1) * sizeof(*idx));
	size_t i, n = 0;
	char title[64];
	__s64 v;

	for (i = 0; i < rp->nr_sel; i++)
		if (gr_job_metric(&rp->jobs.job[rp->sel[i]], GR_M_LAT, &v))
			idx[n++] = rp->sel[i];
	cmp_jobs = &rp->jobs;
	qsort(idx, n, sizeof(*idx), cmp_latency);
	if (n > rp->p->topn)
		n = rp->p->topn;
	snprintf(title, sizeof(title), "the %zu jobs of highest latency:", n);
	jobs_table(rp, idx, n, title);
	free(idx);
}

/* ---- aggregates ---- */

enum group_by {
	BY_RING,
	BY_CTX,
	BY_PROCESS,
};

struct gkey {
	char key[96];
	size_t job;
};

static int cmp_gkey(const void *a, const void *b)
{
	const struct gkey *x = a, *y = b;
	int r = strverscmp(x->key, y->key);

	return r ? r : (x->job < y->job ? -1 : 1);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* n, avg, min, p50, p99, max of @v as cells; empty when n is 0 */
static void stat_cells(const struct gr_out *o, long long *v, size_t n, char (*b)[96])
{
	long double sum = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_ll);
	for (i = 0; i < n; i++)
		sum += v[i];
	snprintf(b[0], 96, "%zu", n);
	gr_cell_ns(o, b[1], 96, n, n ? (long long)(sum / n + 0.5) : 0);
	gr_cell_ns(o, b[2], 96, n, n ? v[0] : 0);
	gr_cell_ns(o, b[3], 96, n, n ? v[(n + 1) / 2 - 1] : 0);
	gr_cell_ns(o, b[4], 96, n, n ? v[(n * 99 + 99) / 100 - 1] : 0);
	gr_cell_ns(o, b[5], 96, n, n ? v[n - 1] : 0);
}

static void process_name(const struct gr_job *j, char *buf, size_t len)
{
	if (j->tgid || j->comm[0])
		snprintf(buf, len, "%s[%u]", j->comm, j->tgid);
	else
		snprintf(buf, len, "unknown");
}

/* The key that groups a job; contexts by device, then ctx id */
static void group_key(const struct report *rp, const struct gr_job *j, int by, char *buf)
{
	const struct gr_ring *r = gr_ring(&rp->t, j->ring_id);

	if (by == BY_RING)
		gr_ring_label(&rp->t, j->ring_id, buf, 96);
	else if (by == BY_CTX)
		snprintf(buf, 96, "%s %llu", r->known ? r->dev : "", (unsigned long long)j->ctx_id);
	else
		process_name(j, buf, 96);
}

static bool several_devices(const struct gr_trace *t)
{
	__u32 i;

	for (i = 1; i < t->nr_rings; i++)
		if (t->rings[i].known && t->rings[0].known &&
		    strcmp(t->rings[i].dev, t->rings[0].dev))
			return true;
	return false;
}

/* Append to @buf of @len bytes, at *@w, as far as it fits */
static __printf(4, 5) void append(char *buf, size_t len, size_t *w, const char *fmt, ...)
{
	va_list ap;

	if (*w >= len)
		return;
	va_start(ap, fmt);
	*w += vsnprintf(buf + *w, len - *w, fmt, ap);
	va_end(ap);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool kernel_worker(const char *name)
{
	return !strncmp(name, "kworker/", 8);
}

/*
 * The name of a context: "ctx 2 kmscube[1286]", with the processes that
 * submitted in it (3 at most, then "+N") and "+N kworkers" for the kernel
 * workers among them, or the kernel workers if no other process did.  The
 * device comes first if the input has several.
 */
static void ctx_name(const struct report *rp, const struct gkey *g, size_t n, char *buf)
{
	const struct gr_job *j = &rp->jobs.job[g[0].job];
	const struct gr_ring *r = gr_ring(&rp->t, j->ring_id);
	char (*names)[48] = gr_zalloc(n * sizeof(*names) + 1);
	int users = 0, kworkers = 0, listed, shown = 0;
	size_t i, nr = 0, w = 0;

	for (i = 0; i < n; i++)
		process_name(&rp->jobs.job[g[i].job], names[i], sizeof(names[i]));
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++)
		if (!nr || strcmp(names[i], names[nr - 1]))
			memmove(names[nr++], names[i], sizeof(*names));
	for (i = 0; i < nr; i++) {
		if (kernel_worker(names[i]))
			kworkers++;
		else
			users++;
	}
	/* The processes, or the kernel workers if no process submitted */
	listed = users ? users : kworkers;

	buf[0] = '\0';
	if (r->known && several_devices(&rp->t))
		append(buf, 96, &w, "%s ", r->dev);
	append(buf, 96, &w, "ctx %llu", (unsigned long long)j->ctx_id);
	for (i = 0; i < nr && shown < 3; i++)
		if (kernel_worker(names[i]) == !users && ++shown)
			append(buf, 96, &w, " %s", names[i]);
	if (listed > shown)
		append(buf, 96, &w, " +%d", listed - shown);
	if (users && kworkers)
		append(buf, 96, &w, " +%d kworker%s", kworkers, kworkers > 1 ? "s" : "");
	free(names);
}

#define NR_GROUP_COLS	20

static void group_row(struct report *rp, int by, struct gkey *g, size_t n)
{
	static const int metrics[] = { GR_M_LAT, GR_M_DEVICE, GR_M_EXEC };
	char b[NR_GROUP_COLS][96], *cells[NR_GROUP_COLS];
	long long *v = gr_zalloc(n * sizeof(*v) + 1);
	size_t i, k, nv;
	__s64 val;

	for (i = 0; i < NR_GROUP_COLS; i++)
		cells[i] = b[i];
	if (by == BY_CTX)
		ctx_name(rp, g, n, b[0]);
	else
		snprintf(b[0], 96, "%s", g[0].key);
	snprintf(b[1], 96, "%zu", n);
	for (k = 0; k < ARRAY_SIZE(metrics); k++) {
		for (i = 0, nv = 0; i < n; i++)
			if (gr_job_metric(&rp->jobs.job[g[i].job], metrics[k], &val))
				v[nv++] = val;
		stat_cells(&rp->o, v, nv, &b[2 + 6 * k]);
	}
	gr_tbl_row(&rp->o, cells);
	free(v);
}

static void group_table(struct report *rp, int by)
{
	static const char * const keys[] = { "per_ring", "per_context", "per_process" };
	static const char * const titles[] = {
		"per ring:", "per context:", "per process:",
	};
	static const struct gr_col cols[NR_GROUP_COLS] = {
		{ "group", "GROUP", -32, false },
		{ "jobs", "JOBS", 6, true },
		{ "lat_n", "LAT_N", 6, true },
		{ "lat_avg", "LAT_AVG", 10, true },
		{ "lat_min", "LAT_MIN", 10, true },
		{ "lat_p50", "LAT_P50", 10, true },
		{ "lat_p99", "LAT_P99", 10, true },
		{ "lat_max", "LAT_MAX", 10, true },
		{ "dev_n", "DEV_N", 6, true },
		{ "dev_avg", "DEV_AVG", 10, true },
		{ "dev_min", "DEV_MIN", 10, true },
		{ "dev_p50", "DEV_P50", 10, true },
		{ "dev_p99", "DEV_P99", 10, true },
		{ "dev_max", "DEV_MAX", 10, true },
		{ "exec_n", "EXEC_N", 6, true },
		{ "exec_avg", "EXEC_AVG", 10, true },
		{ "exec_min", "EXEC_MIN", 10, true },
		{ "exec_p50", "EXEC_P50", 10, true },
		{ "exec_p99", "EXEC_P99", 10, true },
		{ "exec_max", "EXEC_MAX", 0, true },
	};
	struct gkey *g = gr_zalloc((rp->nr_sel + 1) * sizeof(*g));
	size_t i, a;

	for (i = 0; i < rp->nr_sel; i++) {
		g[i].job = rp->sel[i];
		group_key(rp, &rp->jobs.job[g[i].job], by, g[i].key);
	}
	qsort(g, rp->nr_sel, sizeof(*g), cmp_gkey);
	gr_tbl_begin(&rp->o, keys[by], titles[by], cols, NR_GROUP_COLS);
	for (a = 0; a < rp->nr_sel; a = i) {
		for (i = a; i < rp->nr_sel && !strcmp(g[i].key, g[a].key); i++)
			;
		group_row(rp, by, g + a, i - a);
	}
	gr_tbl_end(&rp->o);
	free(g);
}

/* ---- histograms ---- */

static void hist_lat(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "from_ns", "FROM(ns)", 14, true },
		{ "to_ns", "TO(ns)", 14, true },
		{ "jobs", "JOBS", 0, true },
	};
	char b[3][32], *cells[3] = { b[0], b[1], b[2] };
	__u64 count[64] = { 0 };
	int k, lo = 64, hi = -1;
	size_t i;
	__s64 v;

	for (i = 0; i < rp->nr_sel; i++) {
		if (!gr_job_metric(&rp->jobs.job[rp->sel[i]], GR_M_LAT, &v))
			continue;
		k = v < 2 ? 0 : 63 - __builtin_clzll(v);
		count[k]++;
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	gr_tbl_begin(&rp->o, "hist_lat", "latency (COMPLETE - SUBMIT), log2 buckets [from, to):",
		     cols, 3);
	for (k = lo; k <= hi; k++) {
		snprintf(b[0], 32, "%llu", k ? 1ULL << k : 0ULL);
		snprintf(b[1], 32, "%llu", 2ULL << k);
		snprintf(b[2], 32, "%llu", (unsigned long long)count[k]);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

static int type_bit(unsigned int type)
{
	if (type < GRTRACE_EV_NR)
		return type;
	if (type == GRTRACE_EV_STREAM_INFO)
		return GRTRACE_EV_NR;
	if (type == GRTRACE_EV_METADATA)
		return GRTRACE_EV_NR + 1;
	return GRTRACE_EV_NR + 2;
}

static void hist_size(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "size", "SIZE", 6, true },
		{ "records", "RECORDS", 9, true },
		{ "bytes", "BYTES", 11, true },
		{ "types", "TYPES", 0, false },
	};
	enum { NR = GR_REC_MAX / 8 + 1 };
	char b[4][256], *cells[4] = { b[0], b[1], b[2], b[3] };
	__u64 *count = gr_zalloc(NR * sizeof(*count));
	__u32 *types = gr_zalloc(NR * sizeof(*types));
	static const unsigned int extra[] = {
		GRTRACE_EV_STREAM_INFO, GRTRACE_EV_METADATA, 0xffff,
	};
	size_t i, n;
	int k;

	for (i = 0; i < rp->t.nr_ev; i++) {
		count[rp->t.ev[i].size / 8]++;
		types[rp->t.ev[i].size / 8] |= 1U << type_bit(rp->t.ev[i].type);
	}
	gr_tbl_begin(&rp->o, "hist_size", "record sizes:", cols, 4);
	for (i = 0; i < NR; i++) {
		if (!count[i])
			continue;
		snprintf(b[0], 256, "%zu", i * 8);
		snprintf(b[1], 256, "%llu", (unsigned long long)count[i]);
		snprintf(b[2], 256, "%llu", (unsigned long long)count[i] * i * 8);
		for (n = 0, k = 0; k < GRTRACE_EV_NR + 3; k++)
			if (types[i] & (1U << k))
				n += snprintf(b[3] + n, 256 - n, "%s%s", n ? " " : "",
					      gr_type_name(k < GRTRACE_EV_NR ? (unsigned int)k :
							   extra[k - GRTRACE_EV_NR]));
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
	free(count);
	free(types);
}

static void hist_result(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "status", "STATUS", -10, false },
		{ "jobs", "JOBS", 0, true },
	};
	struct {
		char name[32];
		__u64 n;
	} res[64];
	char b[2][32], *cells[2] = { b[0], b[1] };
	size_t i, k, nr = 0;

	for (i = 0; i < rp->nr_sel; i++) {
		gr_job_status(&rp->jobs.job[rp->sel[i]], b[0], sizeof(b[0]));
		for (k = 0; k < nr && strcmp(res[k].name, b[0]); k++)
			;
		if (k == nr && nr == ARRAY_SIZE(res))
			continue;
		if (k == nr) {
			snprintf(res[nr].name, sizeof(res[nr].name), "%s", b[0]);
			res[nr++].n = 0;
		}
		res[k].n++;
	}
	gr_tbl_begin(&rp->o, "hist_result", "job results:", cols, 2);
	for (k = 0; k < nr; k++) {
		cells[0] = res[k].name;
		snprintf(b[1], 32, "%llu", (unsigned long long)res[k].n);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

static void report_print(struct report *rp)
{
	const struct report_params *p = rp->p;
	bool other = p->per_ring || p->per_ctx || p->per_process || p->hist;

	gr_out_begin(&rp->o, stdout, p->fmt);
	if (p->fmt == GR_FMT_TEXT)
		header_text(rp);
	else if (p->fmt == GR_FMT_JSON)
		header_json(rp);
	if (p->fmt != GR_FMT_CSV)
		rings_table(rp);
	if (p->per_ring)
		group_table(rp, BY_RING);
	if (p->per_ctx)
		group_table(rp, BY_CTX);
	if (p->per_process)
		group_table(rp, BY_PROCESS);
	if (p->hist == HIST_LAT)
		hist_lat(rp);
	else if (p->hist == HIST_SIZE)
		hist_size(rp);
	else if (p->hist == HIST_RESULT)
		hist_result(rp);
	if (!other && p->topn)
		topn_table(rp);
	else if (!other)
		jobs_table(rp, rp->sel, rp->nr_sel,
			   "jobs (times in us; TIME from the session start):");
	gr_out_end(&rp->o);
}

int gr_report_main(int argc, char *argv[])
{
	struct report_params params;
	struct report rp = { .p = &params };
	int ret = EXIT_FAILURE;

	report_parse_args(argc, argv, &params);
	if (gr_input_load(&rp.t, params.input))
		goto out;
	rp.jobs.queue_thresh = params.queue_thresh;
	rp.jobs.exec_thresh = params.exec_thresh;
	gr_jobs_build(&rp.jobs, &rp.t);
	if (select_jobs(&rp))
		goto out;
	report_print(&rp);
	ret = fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
out:
	free(rp.sel);
	gr_jobs_free(&rp.jobs);
	gr_trace_free(&rp.t);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace report: where the time of every GPU job went, and who submitted
 * it.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "host.h"
#include "input.h"
#include "jobs.h"
#include "source.h"
#include "stat.h"
#include "table.h"
#include "upstream.h"
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
	const char *host;
	const char *output;	/* -o FILE */
	bool in_flight;
	bool jobs;		/* --jobs, or an option of the list alone */
	char *last_boot;	/* --last-boot: "instance:NAME" or a file (allocated) */
	int session;		/* --session N, from 1; 0: every one (text) */
	enum gr_use use;	/* --events */
};

#define NR_STATS	3		/* latency, device, exec of the groups */
#define NR_SIZES	(GR_REC_MAX / 8 + 1)
#define NR_RESULTS	64

enum group_by {
	BY_RING,
	BY_CTX,
	BY_PROCESS,
	NR_BY,
};

/* A submitter: a process (tgid), or a task of no known process by its name */
struct who {
	__u32 tgid;
	char comm[17];
};

/*
 * A process's name, as report and top give it: its leader's (a job of pid
 * tgid), else the first one its jobs gave; its threads' own names (Mesa's
 * "kmscube:disk$0") do not split it
 */
struct pname {
	__u32 tgid;		/* 0: a free slot */
	bool leader;
	char comm[17];
};

/* A ring, a context or a process, and the times of its jobs */
struct group {
	__u32 ring;		/* of its first job */
	__u64 ctx;
	__u32 tgid;
	char comm[17];		/* of its first job */
	__u64 first;		/* serial of its first job */
	__u64 jobs;
	struct gr_stat st[NR_STATS];
	__s64 part[GR_M_NR];	/* the summary: each time's sum, */
	__u64 nr_part[GR_M_NR];	/* over this many jobs */
	__s64 gpu;		/* the jobs' EXEC, or DEVICE without a START */
	__u64 nr_gpu;
	__u64 slow_fctx;	/* the job of the highest latency (st[0].max) */
	__u64 slow_fseq;
	struct who *names;	/* BY_CTX: the submitters, each process once */
	size_t nr_names;
	char key[96];		/* its name, when printed */
};

struct groups {
	struct group *g;
	size_t nr;
	size_t *hash;		/* index + 1, open addressing */
	size_t hash_size;
};

/* Per ring id */
struct ring_acc {
	__u64 jobs;
	bool selected;		/* by --engine and --ring */
	struct gr_stat out[2];	/* t_queue, t_exec: medians of the labels */
	__s64 thresh[2];
};

/* Per context of the input (gr_trace.ctx), its jobs */
struct ctx_acc {
	__u64 jobs;
	__u64 lat_n;		/* of the complete ones */
	__u64 lat_sum;
};

/* A job of --topn */
struct top {
	struct gr_job j;
	__s64 lat;
	char deps[128];
};

/*
 * What report works on: the input, read once or twice as a stream; the
 * jobs as they retire; what is counted of them.
 */
struct report {
	struct report_params *p;
	struct gr_trace t;
	struct gr_src src;
	struct gr_jobs jobs;
	struct gr_out o;
	bool rows;		/* jobs listed, not summed up */
	bool summary;		/* where the GPU time went (the default) */
	bool tables;		/* a table of all the jobs selected is asked for */
	bool first;		/* the first pass: jobs counted */
	bool final;		/* this pass counts the selected jobs */
	bool all;		/* no selection (one pass) */
	bool several_devs;	/* the rings name several devices (group_table) */
	__u64 nr_jobs;
	struct ring_acc *ring;
	__u32 nr_ring;
	struct ctx_acc *ctx;
	size_t nr_ctx;
	struct groups grp[NR_BY];
	struct pname *pn;	/* by tgid, open addressing */
	size_t nr_pn, pn_size;
	__u64 hlat[64];
	__u64 hlat_neg;		/* latencies below 0: a clock that went back */
	__s64 hlat_min;		/* the lowest of them */
	struct {
		char name[32];
		__u64 n;
	} res[NR_RESULTS];
	size_t nr_res;
	__u64 *size_count;
	__u32 *size_types;
	__u64 printed;
	struct top *top;	/* a heap, the least latency first */
	size_t nr_top;
	struct gr_host *host;	/* --host: the host's side of virtio-gpu jobs */
	struct gr_job *flying;	/* --in-flight: jobs with no COMPLETE */
	size_t nr_flying;
	struct gr_job *done;	/* the last completed, by COMPLETE, unsorted */
	size_t nr_done;
	struct gr_job *failed;	/* jobs with an ERROR or a failed COMPLETE */
	size_t nr_failed;
	struct gr_col *jcols;	/* the columns of a job */
	size_t nr_jcols;
};

static void report_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace report [-h] [-D] [-i FILE|DIR | --live] [-f text|csv|json]",
		"         [-o FILE] [--jobs] [--per-ring] [--per-context] [--per-process]",
		"         [--topn N] [--hist lat|size|result] [--engine NAME|MASK]",
		"         [--ring NAME|ID] [--since T] [--until T] [--limit N]",
		"         [--queue-thresh T] [--exec-thresh T] [--host FILE]",
		"         [--in-flight] [--last-boot[=INSTANCE]] [--session N]",
		"         [--events auto|grtrace|kernel] [FILE]",
		"",
		"  Report the GPU jobs of a recording: a session header, then where the",
		"  GPU time went: per process its jobs, GPU time (DEVICE), share, latency",
		"  and slowest job, the most first; the phases of its jobs; the same",
		"  per ring.  --jobs lists each job instead, with its times, submitter,",
		"  status and labels.  The times add up: HOST + DEVICE + COMPL =",
		"  LATENCY, and with a START QUEUE + EXEC = DEVICE; GPUWAIT is in no sum",
		"  (see grtrace-report(1)).  The contexts that grtrace probe saw, if",
		"  any, come after the rings.",
		"",
		"    -i/--input FILE|DIR: a recorded file, or a directory of events<N>[.bin]",
		"                         files, - for stdin; default: the FILE after the",
		"                         options, else " GR_DEFAULT_INPUT,
		"       --live: the live relay files instead (reading consumes them)",
		"    -f/--format FMT: text (default, times in us), csv or json (times in ns)",
		"    -o/--output FILE: write to FILE instead of stdout (- for stdout);",
		"                         a regular FILE is replaced once the report is whole",
		"       --jobs: each job, in the order they were submitted, instead of",
		"                         the summary (--limit, --queue-thresh and",
		"                         --exec-thresh imply it)",
		"       --per-ring, --per-context, --per-process: job count and statistics",
		"                         of latency, device and exec time per ring, per",
		"                         context (device and ctx id) or per process,",
		"                         instead of the summary (--per-ctx: --per-context)",
		"    -n/--topn N: only the N jobs of highest latency (COMPLETE - SUBMIT);",
		"                         with --per-* or --hist, after those",
		"       --hist KIND: histogram instead of the summary: lat (latency, log2 ns",
		"                         buckets), size (record sizes), result (status)",
		"       --engine NAME|MASK: only jobs of these engine classes: names",
		"                         (graphics,compute,copy,video_decode,",
		"                         video_encode,other) or a mask, bit N = class N",
		"       --ring NAME|ID: only jobs of this ring (id, name or dev/name)",
		"       --since T, --until T: only jobs whose first event is in this",
		"                         window, T from the session start (ns, or",
		"                         with a unit: 10us, 1.5ms, 2s)",
		"       --limit N: print at most N jobs (--jobs)",
		"       --queue-thresh T, --exec-thresh T: label long-queue, slow-exec",
		"                         above T (default: 4x the ring's median, >= 10us)",
		"       --host FILE: QEMU's virtio_gpu trace log of the same run: split",
		"                         the DEVICE time of virtio-gpu jobs into TO_HOST,",
		"                         ON_HOST and BACK (-i: the guest's trace.dat)",
		"       --in-flight: what was in flight at the input's last event:",
		"                         per ring the jobs not completed, their",
		"                         submitter and age; the last completed jobs",
		"                         (--limit, default 10); the jobs that failed",
		"       --last-boot[=INSTANCE]: --in-flight on the previous boot's",
		"                         events: what grtrace persist --save kept in",
		"                         this boot, else the persistent ftrace",
		"                         instance holding them, which reading consumes",
		"       --session N: the Nth session of a file holding several",
		"                         (recordings end to end); text reports each",
		"                         in turn without it",
		"       --events auto|grtrace|kernel: the events of a trace.dat to make",
		"                         the jobs of: grtrace's, or the kernel's own",
		"                         (gpu_scheduler, dma_fence, virtio_gpu, i915:",
		"                         any kernel); default grtrace's if it has any",
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
	OPT_HOST,
	OPT_IN_FLIGHT,
	OPT_LAST_BOOT,
	OPT_EVENTS,
	OPT_JOBS,
};

static int parse_engines(const char *arg, __u32 *mask)
{
	char *s = gr_strdup(arg), *tok, *save = NULL;
	__u64 m;
	int e, ret = 0;

	/* A mask names known engines only; a list has no empty name. */
	if (!gr_parse_u64(arg, &m)) {
		*mask = m;
		free(s);
		return m && !(m >> GRTRACE_ENGINE_NR) ? 0 : -1;
	}
	*mask = 0;
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		ret = -1;
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
		{ "live",	no_argument,		NULL, GR_OPT_LIVE },
		{ "format",	required_argument,	NULL, 'f' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "topn",	required_argument,	NULL, 'n' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "per-ring",	no_argument,		NULL, OPT_PER_RING },
		{ "per-context", no_argument,		NULL, OPT_PER_CTX },
		{ "per-ctx",	no_argument,		NULL, OPT_PER_CTX },
		{ "per-process", no_argument,		NULL, OPT_PER_PROCESS },
		{ "jobs",	no_argument,		NULL, OPT_JOBS },
		{ "hist",	required_argument,	NULL, OPT_HIST },
		{ "engine",	required_argument,	NULL, OPT_ENGINE },
		{ "ring",	required_argument,	NULL, OPT_RING },
		{ "since",	required_argument,	NULL, OPT_SINCE },
		{ "until",	required_argument,	NULL, OPT_UNTIL },
		{ "limit",	required_argument,	NULL, OPT_LIMIT },
		{ "queue-thresh", required_argument,	NULL, OPT_QUEUE_THRESH },
		{ "exec-thresh", required_argument,	NULL, OPT_EXEC_THRESH },
		{ "host",	required_argument,	NULL, OPT_HOST },
		{ "in-flight",	no_argument,		NULL, OPT_IN_FLIGHT },
		{ "last-boot",	optional_argument,	NULL, OPT_LAST_BOOT },
		{ "session",	required_argument,	NULL, GR_OPT_SESSION },
		{ "events",	required_argument,	NULL, OPT_EVENTS },
		{ NULL, 0, NULL, 0 }
	};
	bool last_boot = false, live = false;
	const char *err;
	const char *instance = NULL;
	int c, other;

	memset(p, 0, sizeof(*p));
	p->engine_mask = ~0U;
	p->since = -1;
	p->until = -1;

	while ((c = getopt_long(argc, argv, "i:f:o:n:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			err = gr_set_input(&p->input, optarg);
			if (err)
				report_usage(err);
			break;
		case 'f':
			if (gr_parse_format(optarg, &p->fmt))
				report_usage("invalid --format: use text, csv or json");
			break;
		case 'o':
			if (!*optarg)
				report_usage("invalid --output: a file name");
			p->output = optarg;
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
		case OPT_JOBS:
			p->jobs = true;
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
				report_usage("invalid --since: a time such as 10us, 1.5ms");
			break;
		case OPT_UNTIL:
			if (gr_parse_ns(optarg, &p->until))
				report_usage("invalid --until: a time such as 10us, 1.5ms");
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
		case OPT_HOST:
			p->host = optarg;
			break;
		case OPT_IN_FLIGHT:
			p->in_flight = true;
			break;
		case OPT_LAST_BOOT:
			if (optarg && !*optarg)
				report_usage("invalid --last-boot: an instance name after '='");
			last_boot = true;
			instance = optarg;
			break;
		case GR_OPT_SESSION:
			p->session = gr_input_session(optarg);
			if (!p->session)
				report_usage("invalid --session: a number above 0");
			break;
		case OPT_EVENTS:
			if (gr_use_parse(optarg, &p->use))
				report_usage("invalid --events: auto, grtrace or kernel");
			break;
		case GR_OPT_LIVE:
			live = true;
			break;
		default:
			report_usage(gr_invalid_option(argv));
		}
	}
	/* The window holds both ends: only one that ends first is empty. */
	if (p->since >= 0 && p->until >= 0 && p->until < p->since)
		report_usage("--until must not be before --since");
	if (last_boot && (p->input || live || optind < argc))
		report_usage("--last-boot reads an ftrace instance: no input with it");
	/* A CSV reader reads one table: tables of the same columns are one */
	other = (p->jobs || p->topn) + (p->per_ring || p->per_ctx || p->per_process) + !!p->hist;
	if (p->fmt == GR_FMT_CSV && other + p->in_flight > 1)
		report_usage("-f csv is one table: one of --jobs, --per-*, --hist, --in-flight");
	if (last_boot) {
		p->last_boot = gr_input_last_boot(instance);
		if (!p->last_boot)
			exit(EXIT_FAILURE);
		p->input = p->last_boot;
		/* What was in flight, and in CSV only if nothing else is asked */
		p->in_flight = p->in_flight || p->fmt != GR_FMT_CSV || !other;
		return;
	}
	p->input = gr_input_arg(p->input, live, argc, argv, &err);
	if (err)
		report_usage(err);
}

/* ---- selection ---- */

static bool ring_matches(const struct gr_trace *t, __u32 id, const char *name)
{
	const struct gr_ring *r = gr_ring(t, id);
	char label[80];
	__u64 n;

	if (!gr_parse_u64(name, &n))
		return n == r->id;
	gr_ring_label(t, id, label, sizeof(label));
	return !strcmp(label, name) || (r->known && !strcmp(r->name, name));
}

static struct ring_acc *ring_acc(struct report *rp, __u32 id)
{
	__u32 n = rp->nr_ring;

	/* Doubled: the ids come one by one */
	if (id >= n) {
		rp->nr_ring = id + 1 > 2 * n ? id + 1 : 2 * n;
		rp->ring = gr_realloc(rp->ring, rp->nr_ring, sizeof(*rp->ring));
		memset(rp->ring + n, 0, (rp->nr_ring - n) * sizeof(*rp->ring));
	}
	return &rp->ring[id];
}

/*
 * After a first pass: the rings selected by --engine and --ring, as the
 * whole input describes them.  Returns: 0, or -1 if --ring names none.
 */
static int select_rings(struct report *rp)
{
	const struct report_params *p = rp->p;
	bool found = false;
	unsigned int engine;
	__u32 id;

	for (id = 0; id < rp->t.nr_rings; id++) {
		struct ring_acc *r = ring_acc(rp, id);

		engine = gr_ring(&rp->t, id)->engine;
		r->selected = engine < 32 && (p->engine_mask & (1U << engine));
		if (p->ring) {
			bool match = ring_matches(&rp->t, id, p->ring);

			found |= match;
			r->selected &= match;
		}
	}
	if (p->ring && !found) {
		gr_err_msg("no ring '%s' in the input\n", p->ring);
		return -1;
	}
	return 0;
}

static bool job_selected(const struct report *rp, const struct gr_job *j)
{
	const struct report_params *p = rp->p;
	long long rel = (long long)(j->first_ts - rp->t.start_ts);

	if (rp->all)
		return true;
	if (j->ring_id >= rp->nr_ring || !rp->ring[j->ring_id].selected)
		return false;
	if (p->since >= 0 && rel < p->since)
		return false;
	return p->until < 0 || rel <= p->until;
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

	/* 0: not known (grtrace persist --save of an ftrace instance) */
	n = ns && gmtime_r(&sec, &tm) ? strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) : 0;
	if (!n) {
		snprintf(buf, len, "unknown time");
		return;
	}
	snprintf(buf + n, len - n, ".%06llu UTC",
		 (unsigned long long)(ns % NSEC_PER_SEC) / 1000);
}

static __u64 ring_jobs(const struct report *rp, __u32 id)
{
	return id < rp->nr_ring ? rp->ring[id].jobs : 0;
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

/*
 * A header line, "  LABEL     TEXT": TEXT broken after a ", " that
 * would leave a line past the report's 100 columns, the rest indented
 * under its start.
 */
static void header_line(FILE *f, const char *label, const char *text)
{
	const int indent = 12, width = 100;
	int col = fprintf(f, "  %-9s", label);
	bool first = true;

	while (*text) {
		const char *sep = strstr(text, ", ");
		int item = sep ? sep - text + 1 : (int)strlen(text);

		if (!first && col + 1 + item > width)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", item, text);
		text += item;
		if (*text == ' ')
			text++;
		first = false;
	}
	fprintf(f, "\n");
}

/*
 * --host: what was joined, and how well the clocks are aligned.  At the
 * rate used the offset is known within [lo, hi]; the middle is used, so
 * each host time is within half that width of the truth (plus QEMU's 1 us
 * resolution).
 */
static void host_header(struct report *rp)
{
	const struct gr_host *h = rp->host;
	FILE *f = rp->o.f;

	fprintf(f,
		"  host      %s: QEMU thread %u, %zu fences; %zu of the guest's %zu fenced virtio-gpu commands joined by fence id",
		h->path, h->tid, h->host_fences, h->nr, h->guest_fences);
	if (h->no_take)
		fprintf(f, " (%zu without a QEMU event of the command: ON_HOST from its fence)",
			h->no_take);
	if (h->early)
		fprintf(f,
			" (%zu taken by QEMU before their COMMIT's stamp, after the add: TO_HOST < 0)",
			h->early);
	fprintf(f,
		"\n  clocks    host realtime = guest + %lld.%06lld s %c %.3f ppm of (guest - %llu.%06llu s), within +-%.1f us at that rate (bounds from the joined jobs: %.1f us wide)\n",
		h->off / (long long)NSEC_PER_SEC, h->off % (long long)NSEC_PER_SEC / 1000,
		h->rate < 0 ? '-' : '+', (h->rate < 0 ? -h->rate : h->rate) * 1e6,
		(unsigned long long)(h->off_at / NSEC_PER_SEC),
		(unsigned long long)(h->off_at % NSEC_PER_SEC / 1000),
		(h->off_hi - h->off_lo) / 2e3, (h->off_hi - h->off_lo) / 1e3);
}

/* Config key @key of a GR_TOOL_CONFIG text, "" if absent */
static const char *cfg(const char *config, const char *key, char *buf, int len)
{
	return gr_stats_get(config, key, buf, len) ?: "";
}

/*
 * What the recording was made under (GR_TOOL_CONFIG): the settings of the
 * relay stream by which events were left out on purpose, or that none
 * were; empty when the input does not say (not made by grtrace record).
 */
static void recorded_under(const char *config, char *out, size_t len)
{
	char a[64], b[64], c[64], d[64];
	FILE *f;

	*out = '\0';
	if (!gr_stats_get(config, "sample", a, sizeof(a)))
		return;
	f = fmemopen(out, len, "w");
	if (!f)
		return;
	if (strcmp(cfg(config, "sample", a, sizeof(a)), "100") ||
	    strcmp(cfg(config, "sampling_mode", b, sizeof(b)), "static"))
		fprintf(f, "; SAMPLED: sample=%s, %s", a,
			cfg(config, "sampling_mode", b, sizeof(b)));
	if (strcmp(cfg(config, "max_events_per_sec", a, sizeof(a)), "0") && *a)
		fprintf(f, "; RATE LIMITED: %s events/s, %s", a,
			cfg(config, "rate_limiter_mode", b, sizeof(b)));
	if (strcmp(cfg(config, "watchlist", a, sizeof(a)), "all") && *a)
		fprintf(f, "; watchlist %s", a);
	if (!strcmp(cfg(config, "filter_enabled", a, sizeof(a)), "1"))
		fprintf(f, "; FILTERED: pid %s, uid %s, latency >= %s us, events %s",
			*cfg(config, "filter_pid", a, sizeof(a)) ? a : "any",
			cfg(config, "filter_uid", b, sizeof(b)),
			cfg(config, "filter_latency", c, sizeof(c)),
			cfg(config, "filter_events", d, sizeof(d)));
	if (strcmp(cfg(config, "filter_type_mask", a, sizeof(a)), "0x3ff") && *a)
		fprintf(f, "; event types %s", a);
	if (strcmp(cfg(config, "filter_ring_id", a, sizeof(a)), "-1") && *a)
		fprintf(f, "; ring %s only", a);
	if (!strcmp(cfg(config, "aggregate_only", a, sizeof(a)), "1"))
		fprintf(f, "; aggregate_only: SUMMARY windows instead of job events");
	if (!strcmp(cfg(config, "flight_recorder", a, sizeof(a)), "1"))
		fprintf(f, "; flight recorder: the last events only");
	fclose(f);
	if (!*out)
		snprintf(out, len, "; %s",
			 "every event offered: no sampling, filter, rate limit or watchlist");
	if (strstr(config, "\nconfig_changed=1\n") && strlen(out) + 40 < len)
		strcat(out, "; the config changed while it ran");
	memmove(out, out + 2, strlen(out + 2) + 1);
}

/* " DEV (DRIVER, VENDOR:DEVICE)", as GR_TOOL_CONFIG says, or " DEV" */
static void device_desc(FILE *f, const char *config, const char *dev)
{
	char key[96], val[128], drv[64], id[32];

	snprintf(key, sizeof(key), "device:%s", dev);
	if (gr_stats_get(config, key, val, sizeof(val)) &&
	    sscanf(val, "%63s %31s", drv, id) == 2)
		fprintf(f, " %s (%s, %s)", dev, drv, id);
	else
		fprintf(f, " %s", dev);
}

/*
 * What a recording of the kernel's own events holds, and what that leaves
 * unknown (upstream.c)
 */
static void upstream_header(FILE *f, const struct gr_trace *t)
{
	bool sched = t->upstream[GR_UP_QUEUE] || t->upstream[GR_UP_RUN] ||
		     t->upstream[GR_UP_DONE];
	bool old = t->upstream[GR_UP_OLD_QUEUE] || t->upstream[GR_UP_OLD_RUN] ||
		   t->upstream[GR_UP_OLD_DONE];
	bool virtio = t->upstream[GR_UP_VCMD_QUEUE] || t->upstream[GR_UP_VCMD_RESPONSE];
	bool signaled = t->upstream[GR_UP_SIGNALED];
	bool i915 = t->upstream[GR_UP_I915_ADD] || t->upstream[GR_UP_I915_RETIRE];
	bool i915_low = t->i915_low;
	const char *indent = "            ";
	int k, n = 0;

	fprintf(f, "  kernel   ");
	for (k = 0; k < GR_UP_NR; k++)
		if (t->upstream[k])
			fprintf(f, "%s %s %llu", n++ ? "," : "", gr_upstream_names[k],
				(unsigned long long)t->upstream[k]);
	fprintf(f, "%s\n", n ? "" : " none");
	/* One item a line: what is unknown, and why */
	if (i915_low)
		fprintf(f, "  unknown   CTX_SWITCH, IRQ, START but i915's: %s\n",
			"no kernel event sees them");
	else
		fprintf(f, "  unknown   START, CTX_SWITCH, IRQ: no kernel event sees the GPU\n");
	if (sched && !signaled)
		fprintf(f, "%sCOMPLETE of scheduler jobs: no dma_fence_signaled\n", indent);
	if (sched && !t->upstream[GR_UP_ERROR])
		fprintf(f, "%serrors: no drm_sched_job_error (the series adds it)\n", indent);
	if (old) {
		fprintf(f, "%sCOMPLETE, errors of scheduler jobs: older events (6.12's), %s\n",
			indent, "a job is 0:id of its scheduler");
		fprintf(f, "%sthe device of a scheduler: the older events name it alone\n",
			indent);
		if (t->old_shared_ids)
			fprintf(f, "%s%llu pushes of an id open on a scheduler of the %s\n",
				indent, (unsigned long long)t->old_shared_ids,
				"same name: their jobs may be mixed");
	}
	if (virtio)
		fprintf(f, "%sSUBMIT, HOST, LAT of virtio-gpu commands: queued is COMMIT\n",
			indent);
	if (virtio)
		fprintf(f, "%sCOMPLETE of virtio-gpu commands %s\n", indent,
			signaled ? "without a fence" : "(no dma_fence_signaled)");
	if (i915 && !i915_low)
		fprintf(f, "%sCOMMIT, START, END of i915 requests: %s\n", indent,
			"no low-level tracepoints in this kernel");
	if (i915 && !signaled)
		fprintf(f, "%sCOMPLETE of i915 requests: no dma_fence_signaled\n", indent);
	if (t->vcmd_unpaired)
		fprintf(f, "%s%llu events of virtio-gpu commands without a fence: %s\n",
			indent, (unsigned long long)t->vcmd_unpaired,
			"no seqno in this kernel's events pairs them");
	fprintf(f, "%sthe process: the events give the thread\n", indent);
	if (t->unused_recs)
		fprintf(f, "  unused    %llu records of grtrace's events (--events grtrace)\n",
			(unsigned long long)t->unused_recs);
}

/* For cmp_dev_pos(): the trace and its rings in id order */
struct dev_order {
	const struct gr_trace *t;
	const __u32 *by_id;
};

static const char *pos_dev(const struct dev_order *o, __u32 pos)
{
	return o->t->rings[o->by_id[pos]].dev;
}

/* Positions in id order of known rings, by device name, then position */
static int cmp_dev_pos(const void *a, const void *b, void *order)
{
	__u32 pa = *(const __u32 *)a, pb = *(const __u32 *)b;
	int d = strcmp(pos_dev(order, pa), pos_dev(order, pb));

	return d ? d : (pa > pb) - (pa < pb);
}

static void header_text(struct report *rp)
{
	static const char newer[] = " (newer than this tool: new fields ignored)";
	const struct gr_trace *t = &rp->t;
	const struct grtrace_stream_info *si = &t->info;
	FILE *f = rp->o.f;
	char buf[512], start[32];
	__u32 i, j, n, *by_id, *pos;
	struct dev_order order;
	bool *first;
	int cpus;
	size_t w;
	int k;

	if (t->instance)
		fprintf(f, "grtrace report: %s\n", t->input);
	else
		fprintf(f, "grtrace report: %s (%d file%s)\n", t->input, t->nr_files,
			t->nr_files == 1 ? "" : "s");
	if (t->have_info) {
		char line[sizeof(buf) + 160];

		features_str(si->features, buf, sizeof(buf));
		snprintf(line, sizeof(line), "%016llx, format %u%s, clock %s, features %s",
			 (unsigned long long)si->session_id, si->version,
			 si->version > GRTRACE_FORMAT_VERSION ? newer : "",
			 si->clock_id == GRTRACE_CLOCK_MONOTONIC ? "monotonic" : "other",
			 *buf ? buf : "none");
		header_line(f, "session", line);
		realtime_str(si->start_realtime, buf, sizeof(buf));
		fprintf(f, "  started   %s (monotonic %s s), %u cpus, %u KiB buffers\n",
			buf, gr_secs(si->start_ts, start, sizeof(start)), si->nr_cpus,
			si->buffer_size / 1024);
	} else if (t->instance) {
		fprintf(f, "  session   ftrace instance %s: its grtrace events, clock %s\n",
			t->instance, t->clock ? t->clock : "unknown");
	} else if (t->is_tracedat && t->use == GR_USE_UPSTREAM) {
		fprintf(f, "  session   a trace-cmd recording: the kernel's events, clock %s\n",
			t->clock ? t->clock : "unknown");
		upstream_header(f, t);
	} else if (t->is_tracedat) {
		fprintf(f, "  session   a trace-cmd recording: its grtrace events, clock %s\n",
			t->clock ? t->clock : "unknown");
		if (t->unused_recs)
			fprintf(f, "  unused    %llu records of kernel events (--events kernel)\n",
				(unsigned long long)t->unused_recs);
	} else {
		fprintf(f, "  session   unknown: no STREAM_INFO (the input starts mid-session)\n");
	}
	fprintf(f, "  span      %.9f s: %llu records, %llu jobs\n",
		(t->last_ts - t->first_ts) / 1e9, (unsigned long long)t->records,
		(unsigned long long)rp->nr_jobs);
	for (k = 0, w = 0; k < GRTRACE_EV_NR && w < sizeof(buf); k++)
		w += snprintf(buf + w, sizeof(buf) - w, "%s%s %llu", k ? ", " : "",
			      gr_type_name(k), (unsigned long long)t->by_type[k]);
	header_line(f, "events", buf);
	fprintf(f, "  lost      %llu records (gseq gaps)", (unsigned long long)t->lost);
	if (t->first_gseq > 1)
		fprintf(f, ", %llu before the first record",
			(unsigned long long)t->first_gseq - 1);
	if (t->jumps)
		fprintf(f, "; %llu gseq jump%s of 2^32 or more not counted: damaged records?",
			(unsigned long long)t->jumps, t->jumps == 1 ? "" : "s");
	cpus = gr_input_cpus_read(t);
	if (cpus >= 0)
		fprintf(f, "; records of %d of the session's %u CPUs: files missing?",
			cpus, t->info.nr_cpus);
	fprintf(f, "\n  skipped   %llu records of unknown type\n",
		(unsigned long long)t->unknown);
	fprintf(f, "  payloads  %llu longer than known (tail unread), ",
		(unsigned long long)t->longer);
	fprintf(f, "%llu shorter (missing fields read as 0)\n",
		(unsigned long long)t->shorter);
	drops_str(t->stats, buf, sizeof(buf));
	header_line(f, "dropped", buf);
	recorded_under(t->config, buf, sizeof(buf));
	if (*buf)
		fprintf(f, "  recorded  %s\n", buf);
	fprintf(f, "  devices  ");
	/*
	 * Each device once, in the order of its first ring: the known rings
	 * sorted by device, then by id, mark the first of each device (a
	 * sort, not every name against every other: a stream may name
	 * thousands of rings)
	 */
	by_id = gr_rings_by_id(t);
	pos = gr_zalloc((t->nr_rings + 1) * sizeof(*pos));
	first = gr_zalloc(t->nr_rings + 1);
	for (i = 0, n = 0; i < t->nr_rings; i++)
		if (t->rings[by_id[i]].known)
			pos[n++] = i;
	order = (struct dev_order){ .t = t, .by_id = by_id };
	if (n)
		qsort_r(pos, n, sizeof(*pos), cmp_dev_pos, &order);
	for (j = 0; j < n; j++)
		first[pos[j]] = !j || strcmp(pos_dev(&order, pos[j]),
					     pos_dev(&order, pos[j - 1]));
	for (i = 0, k = 0; i < t->nr_rings; i++)
		if (first[i] && ++k)
			device_desc(f, t->config, t->rings[by_id[i]].dev);
	free(first);
	free(pos);
	free(by_id);
	fprintf(f, "%s\n", k ? "" : " none known");
	if (rp->host)
		host_header(rp);
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
	char buf[64], under[512];
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
	json_u64(f, "records", t->records, true);
	json_u64(f, "jobs", rp->nr_jobs, true);
	json_u64(f, "lost_records", t->lost, true);
	json_u64(f, "gseq_jumps", t->jumps, true);
	json_u64(f, "lost_before_first", t->first_gseq - 1, true);
	json_u64(f, "unknown_records", t->unknown, true);
	json_u64(f, "longer_payloads", t->longer, true);
	json_u64(f, "shorter_payloads", t->shorter, true);
	fputs("\"events_by_type\": {", f);
	for (k = 0; k < GRTRACE_EV_NR; k++)
		json_u64(f, gr_type_name(k), t->by_type[k], k < GRTRACE_EV_NR - 1);
	fputs("}, ", f);
	if (t->is_tracedat) {
		/* Which events the jobs are made of, and the kernel's own read */
		fprintf(f, "\"jobs_from\": \"%s\", ",
			t->use == GR_USE_UPSTREAM ? "kernel" : "grtrace");
		json_u64(f, "unused_records", t->unused_recs, true);
		json_u64(f, "unpaired_events", t->vcmd_unpaired, true);
		json_u64(f, "shared_ids", t->old_shared_ids, true);
		fputs("\"kernel_events\": {", f);
		for (k = 0; k < GR_UP_NR; k++)
			json_u64(f, gr_upstream_names[k], t->upstream[k], k < GR_UP_NR - 1);
		fputs("}, ", f);
	}
	fputs("\"kernel_stats\": ", f);
	json_stats(f, t->stats);
	recorded_under(t->config, under, sizeof(under));
	if (*under) {
		fputs(", \"recorded_under\": ", f);
		gr_json_str(f, under);
	}
	if (rp->host) {
		const struct gr_host *h = rp->host;

		fputs(", \"host\": {\"input\": ", f);
		gr_json_str(f, h->path);
		fprintf(f, ", \"qemu_tid\": %u, ", h->tid);
		json_u64(f, "host_fences", h->host_fences, true);
		json_u64(f, "guest_fences", h->guest_fences, true);
		json_u64(f, "joined", h->nr, true);
		json_u64(f, "joined_without_take", h->no_take, true);
		json_u64(f, "joined_taken_before_commit", h->early, true);
		fprintf(f, "\"offset_ns\": %lld, \"offset_lo_ns\": %lld, \"offset_hi_ns\": %lld, ",
			h->off, h->off_lo, h->off_hi);
		fprintf(f, "\"offset_at_ns\": %llu, \"rate_ppm\": %.3f}",
			(unsigned long long)h->off_at, h->rate * 1e6);
	}
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
	__u32 i, id, *by_id;
	__u64 events;
	int k;

	for (k = 0; k < (int)ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "rings", "rings:", cols, ARRAY_SIZE(cols));
	by_id = gr_rings_by_id(t);
	for (i = 0; i < t->nr_rings; i++) {
		const struct gr_ring *r = &t->rings[by_id[i]];

		id = by_id[i];
		if (!r->known && !r->used)
			continue;
		for (events = 0, k = 0; k < GRTRACE_EV_NR; k++)
			events += r->by_type[k];
		snprintf(b[0], 64, "%u", r->id);
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
	free(by_id);
	gr_tbl_end(&rp->o);
}

/* aggregate_only: what the SUMMARY records say of each ring */
static void summaries_table(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "id", "ID", 4, true },
		{ "name", "RING", -16, false },
		{ "windows", "WINDOWS", 7, true },
		{ "events", "EVENTS", 9, true },
		{ "jobs", "JOBS", 8, true },
		{ "lat_avg", "LAT_AVG", 10, true },
		{ "lat_min", "LAT_MIN", 10, true },
		{ "lat_max", "LAT_MAX", 10, true },
		{ "dev_avg", "DEV_AVG", 10, true },
		{ "dev_max", "DEV_MAX", 10, true },
		{ "depth_avg", "DEPTH", 6, true },
		{ "depth_peak", "PEAK", 5, true },
		{ "busy_pct", "BUSY%", 6, true },
		{ "errors", "ERRORS", 6, true },
		{ "dropped", "DROPPED", 8, true },
	};
	char b[ARRAY_SIZE(cols)][64], *cells[ARRAY_SIZE(cols)];
	const struct gr_trace *t = &rp->t;
	bool any = false;
	__u32 i, *by_id;
	__u64 dropped;
	int k;

	for (i = 0; i < t->nr_rings; i++)
		any |= t->rings[i].windows > 0;
	if (!any)
		return;
	for (k = 0; k < (int)ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "summaries",
		     "summaries (aggregate_only), summed over their windows; times in ns:",
		     cols, ARRAY_SIZE(cols));
	by_id = gr_rings_by_id(t);
	for (i = 0; i < t->nr_rings; i++) {
		const struct gr_ring *r = &t->rings[by_id[i]];
		const struct grtrace_summary *s = &r->sum;

		if (!r->windows)
			continue;
		for (dropped = 0, k = 0; k < GRTRACE_SUMMARY_DROPS; k++)
			dropped += s->dropped[k];
		snprintf(b[0], 64, "%u", r->id);
		snprintf(b[1], 64, "%s", r->known ? r->name : "");
		snprintf(b[2], 64, "%llu", (unsigned long long)r->windows);
		snprintf(b[3], 64, "%llu", (unsigned long long)s->events);
		snprintf(b[4], 64, "%llu", (unsigned long long)s->jobs);
		snprintf(b[5], 64, "%llu",
			 (unsigned long long)(s->jobs ? s->lat_sum / s->jobs : 0));
		snprintf(b[6], 64, "%llu", (unsigned long long)s->lat_min);
		snprintf(b[7], 64, "%llu", (unsigned long long)s->lat_max);
		snprintf(b[8], 64, "%llu",
			 (unsigned long long)(s->dev_jobs ? s->dev_sum / s->dev_jobs : 0));
		snprintf(b[9], 64, "%llu", (unsigned long long)s->dev_max);
		snprintf(b[10], 64, "%.2f", s->depth_n ? (double)s->depth_sum / s->depth_n : 0.0);
		snprintf(b[11], 64, "%llu", (unsigned long long)s->depth_peak);
		snprintf(b[12], 64, "%.1f",
			 s->window_ns ? 100.0 * s->dev_sum / s->window_ns : 0.0);
		snprintf(b[13], 64, "%llu", (unsigned long long)s->errors);
		snprintf(b[14], 64, "%llu", (unsigned long long)dropped);
		gr_tbl_row(&rp->o, cells);
	}
	free(by_id);
	gr_tbl_end(&rp->o);
}

/* The job @j in the counts of its context, if the input has it */
static void ctx_count(struct report *rp, const struct gr_job *j)
{
	const struct gr_ctx *c = gr_ctx_at(&rp->t, j->ctx_id, j->first_ts);
	struct ctx_acc *a;
	size_t i;
	__s64 v;

	if (!c)
		return;
	i = c - rp->t.ctx;
	if (i >= rp->nr_ctx) {
		rp->ctx = gr_realloc(rp->ctx, rp->t.nr_ctx, sizeof(*rp->ctx));
		memset(rp->ctx + rp->nr_ctx, 0, (rp->t.nr_ctx - rp->nr_ctx) * sizeof(*rp->ctx));
		rp->nr_ctx = rp->t.nr_ctx;
	}
	a = &rp->ctx[i];
	a->jobs++;
	if (gr_job_metric(j, GR_M_LAT, &v)) {
		a->lat_n++;
		a->lat_sum += v;
	}
}

/*
 * The contexts of grtrace probe's GR_TOOL_CTX records, when the input has
 * any: their lives and the jobs of their ids in them (all jobs, selected
 * or not)
 */
static void contexts_table(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "ctx", "CTX", 6, true },
		{ "ring", "RING", -18, false },
		{ "created", "CREATED", 13, true },
		{ "destroyed", "DESTROYED", 13, true },
		{ "schedules", "SCHED", 5, true },
		{ "jobs", "JOBS", 6, true },
		{ "lat_avg", "LAT_AVG", 10, true },
		{ "lat_total", "LAT_TOTAL", 13, true },
		{ "attrs", "ATTRS", 0, false },
	};
	char b[ARRAY_SIZE(cols)][GR_CTX_ATTRS + 1], *cells[ARRAY_SIZE(cols)];
	const struct gr_trace *t = &rp->t;
	struct ctx_acc none = { 0 };
	const struct gr_ctx *c;
	const struct ctx_acc *a;
	size_t i, w = sizeof(b[0]);
	int k;

	if (!t->nr_ctx)
		return;
	for (k = 0; k < (int)ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "contexts",
		     "contexts (grtrace probe; times in us, CREATED and DESTROYED from the session start):",
		     cols, ARRAY_SIZE(cols));
	for (i = 0; i < t->nr_ctx; i++) {
		c = &t->ctx[i];
		a = i < rp->nr_ctx ? &rp->ctx[i] : &none;
		snprintf(b[0], w, "%llu", (unsigned long long)c->ctx_id);
		b[1][0] = '\0';
		if (c->ring_id)
			gr_ring_label(t, c->ring_id, b[1], w);
		gr_cell_ns(&rp->o, b[2], w, c->created, c->created_ts - t->start_ts);
		gr_cell_ns(&rp->o, b[3], w, c->destroyed, c->destroyed_ts - t->start_ts);
		snprintf(b[4], w, "%llu", (unsigned long long)c->schedules);
		snprintf(b[5], w, "%llu", (unsigned long long)a->jobs);
		gr_cell_ns(&rp->o, b[6], w, a->lat_n, a->lat_n ? a->lat_sum / a->lat_n : 0);
		gr_cell_ns(&rp->o, b[7], w, a->lat_n, a->lat_sum);
		snprintf(b[8], w, "%s", c->attrs);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

/* ---- jobs ---- */

static const struct gr_col job_cols[] = {
	{ "time", "TIME", 14, true },
	{ "ring", "RING", -22, false },
	{ "engine", "ENGINE", -12, false },
	{ "fence", "FENCE", -12, false },
	{ "ctx", "CTX", 5, true },
	{ "pid", "PID", 7, true },
	{ "comm", "COMM", -15, false },
	/* the metrics, in the order of enum gr_metric */
	{ "t_submit_host", "HOST", 12, true },
	{ "t_device", "DEVICE", 12, true },
	{ "t_complete", "COMPL", 12, true },
	{ "latency", "LATENCY", 12, true },
	{ "t_queue", "QUEUE", 12, true },
	{ "t_exec", "EXEC", 12, true },
	{ "t_gpu_wait", "GPUWAIT", 12, true },
	{ "status", "STATUS", -7, false },
	{ "waits_on", "WAITS_ON", -9, false },
	{ "labels", "LABELS", 0, false },
};

#define NR_JOB_COLS	ARRAY_SIZE(job_cols)
static_assert(NR_JOB_COLS == 10 + GR_M_NR, "a column per metric");

/* With --host, after DEVICE: its three parts */
static const struct gr_col host_cols[] = {
	{ "t_to_host", "TO_HOST", 12, true },
	{ "t_on_host", "ON_HOST", 12, true },
	{ "t_back", "BACK", 12, true },
};

#define NR_HOST_COLS	ARRAY_SIZE(host_cols)
#define HOST_AT		(7 + GR_M_DEVICE + 1)	/* the column after DEVICE */

/*
 * In CSV and JSON, last: the time of each stage, in the input's clock, the
 * submitter's process (PID is its thread) and its DRM client
 */
#define NR_LAST_COLS	(GR_STAGES + 2)
static const struct gr_col stage_cols[NR_LAST_COLS] = {
	{ "submit_ns", "SUBMIT_NS", 0, true },
	{ "commit_ns", "COMMIT_NS", 0, true },
	{ "start_ns", "START_NS", 0, true },
	{ "end_ns", "END_NS", 0, true },
	{ "complete_ns", "COMPLETE_NS", 0, true },
	{ "tgid", "TGID", 0, true },
	{ "client_id", "CLIENT_ID", 0, true },
};

/* The stage times, TGID and CLIENT_ID: in CSV and JSON only, after the other columns */
static bool stage_times(const struct report *rp)
{
	return rp->p->fmt != GR_FMT_TEXT;
}

static void job_columns(struct report *rp)
{
	size_t n = NR_JOB_COLS + (rp->host ? NR_HOST_COLS : 0) + NR_LAST_COLS, k, i = 0;

	rp->jcols = gr_realloc(NULL, n, sizeof(*rp->jcols));
	for (k = 0; k < NR_JOB_COLS; k++) {
		if (k == HOST_AT && rp->host) {
			memcpy(rp->jcols + i, host_cols, sizeof(host_cols));
			i += NR_HOST_COLS;
		}
		rp->jcols[i++] = job_cols[k];
	}
	for (k = 0; stage_times(rp) && k < NR_LAST_COLS; k++)
		rp->jcols[i++] = stage_cols[k];
	rp->nr_jcols = i;
}

/* The fences a job waited for, the last 8, oldest first */
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

static void job_row(struct report *rp, const struct gr_job *j, const char *deps)
{
	char b[NR_JOB_COLS + NR_HOST_COLS + NR_LAST_COLS][128];
	char *cells[NR_JOB_COLS + NR_HOST_COLS + NR_LAST_COLS];
	const struct gr_out *o = &rp->o;
	size_t i = 0;
	__s64 v;
	int k;

	for (k = 0; k < (int)NR_JOB_COLS; k++) {
		if (k == HOST_AT && rp->host) {
			const struct gr_host_job *hj = gr_host_find(rp->host, j->fctx, j->fseq);
			__s64 split[NR_HOST_COLS];
			size_t h;

			if (hj)
				gr_host_split(hj, &split[0], &split[1], &split[2]);
			for (h = 0; h < NR_HOST_COLS; h++) {
				gr_cell_ns(o, b[NR_JOB_COLS + h], 128, hj, hj ? split[h] : 0);
				cells[i++] = b[NR_JOB_COLS + h];
			}
		}
		cells[i++] = b[k];
	}
	for (k = 0; stage_times(rp) && k < GR_STAGES; k++) {
		char *c = b[NR_JOB_COLS + NR_HOST_COLS + k];

		c[0] = '\0';
		if (j->seen & (1U << k))
			snprintf(c, 128, "%llu", (unsigned long long)j->ts[k]);
		cells[i++] = c;
	}
	if (stage_times(rp)) {
		char *c = b[NR_JOB_COLS + NR_HOST_COLS + GR_STAGES];

		c[0] = '\0';
		if (j->tgid)
			snprintf(c, 128, "%u", j->tgid);
		cells[i++] = c;
		c = b[NR_JOB_COLS + NR_HOST_COLS + GR_STAGES + 1];
		c[0] = '\0';
		if (j->client_id)
			snprintf(c, 128, "%llu", (unsigned long long)j->client_id);
		cells[i++] = c;
	}
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
	snprintf(b[8 + GR_M_NR], 128, "%s", deps);
	gr_job_labels(j, b[9 + GR_M_NR], 128);
	gr_tbl_row(&rp->o, cells);
}

/* The outlier labels, by the thresholds of the first pass */
static void label_outliers(const struct report *rp, struct gr_job *j)
{
	static const __u32 labels[2] = { GR_L_LONG_QUEUE, GR_L_SLOW_EXEC };
	const struct ring_acc *r = &rp->ring[j->ring_id];
	__s64 v;
	int k;

	for (k = 0; k < 2; k++)
		if (r->out[k].n && gr_job_outlier(j, labels[k], &v) && v > r->thresh[k])
			j->labels |= labels[k];
}

/* --topn: a heap of the N jobs of highest latency, the lowest on top */
static bool top_below(const struct top *a, const struct top *b)
{
	if (a->lat != b->lat)
		return a->lat < b->lat;
	return a->j.serial > b->j.serial;
}

static void top_sift(struct top *h, size_t n, size_t i)
{
	struct top tmp;
	size_t c;

	for (;; i = c) {
		c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && top_below(&h[c + 1], &h[c]))
			c++;
		if (!top_below(&h[c], &h[i]))
			return;
		tmp = h[c];
		h[c] = h[i];
		h[i] = tmp;
	}
}

static void top_add(struct report *rp, const struct gr_jobs *jobs, const struct gr_job *j,
		    __s64 lat)
{
	struct top t = { .j = *j, .lat = lat };
	size_t i;

	if (rp->nr_top == rp->p->topn) {
		if (!top_below(&rp->top[0], &t))
			return;
		deps_str(jobs, j, t.deps, sizeof(t.deps));
		rp->top[0] = t;
		top_sift(rp->top, rp->nr_top, 0);
		return;
	}
	if (!(rp->nr_top & (rp->nr_top + 1)))
		rp->top = gr_realloc(rp->top, 2 * rp->nr_top + 1, sizeof(*rp->top));
	deps_str(jobs, j, t.deps, sizeof(t.deps));
	/* Sift up */
	for (i = rp->nr_top++; i && top_below(&t, &rp->top[(i - 1) / 2]); i = (i - 1) / 2)
		rp->top[i] = rp->top[(i - 1) / 2];
	rp->top[i] = t;
}

static int cmp_top(const void *a, const void *b)
{
	return top_below(b, a) ? -1 : 1;
}

static void topn_table(struct report *rp)
{
	char title[64];
	size_t i;

	if (rp->nr_top)	/* else rp->top is NULL, which qsort() must not get */
		qsort(rp->top, rp->nr_top, sizeof(*rp->top), cmp_top);
	snprintf(title, sizeof(title), "the %zu jobs of highest latency:", rp->nr_top);
	gr_tbl_begin(&rp->o, "jobs", title, rp->jcols, rp->nr_jcols);
	for (i = 0; i < rp->nr_top && (!rp->p->limit || i < rp->p->limit); i++)
		job_row(rp, &rp->top[i].j, rp->top[i].deps);
	gr_tbl_end(&rp->o);
}

/* ---- aggregates ---- */

static void process_name(__u32 tgid, const char *comm, char *buf, size_t len)
{
	if (tgid || comm[0])
		snprintf(buf, len, "%s[%u]", comm, tgid);
	else
		snprintf(buf, len, "unknown");
}

static __u64 group_hash(int by, const struct gr_job *j)
{
	__u64 h = by == BY_PROCESS ? j->tgid : j->ring_id;
	const char *c;

	if (by == BY_CTX)
		h = h * 0x9e3779b97f4a7c15ULL + j->ctx_id;
	/* A submitter of no known process: by its name */
	for (c = j->comm; by == BY_PROCESS && !j->tgid && *c; c++)
		h = h * 0x100000001b3ULL + (unsigned char)*c;
	h *= 0xc2b2ae3d27d4eb4fULL;
	return h ^ (h >> 31);
}

static bool group_is(int by, const struct group *g, const struct gr_job *j)
{
	if (by == BY_PROCESS)
		return g->tgid == j->tgid && (j->tgid || !strcmp(g->comm, j->comm));
	return g->ring == j->ring_id && (by == BY_RING || g->ctx == j->ctx_id);
}

/* The group of @j, added if new */
static struct group *group_of(struct groups *gs, int by, const struct gr_job *j)
{
	size_t i, k, n;
	struct group *g;

	if (gs->nr * 2 >= gs->hash_size) {
		n = gs->hash_size ? 2 * gs->hash_size : 64;
		free(gs->hash);
		gs->hash = gr_zalloc(n * sizeof(*gs->hash));
		gs->hash_size = n;
		for (k = 0; k < gs->nr; k++) {
			struct gr_job tmp = {
				.ring_id = gs->g[k].ring,
				.ctx_id = gs->g[k].ctx,
				.tgid = gs->g[k].tgid,
			};

			memcpy(tmp.comm, gs->g[k].comm, sizeof(tmp.comm));
			for (i = group_hash(by, &tmp) & (n - 1); gs->hash[i]; i = (i + 1) & (n - 1))
				;
			gs->hash[i] = k + 1;
		}
	}
	for (i = group_hash(by, j) & (gs->hash_size - 1); gs->hash[i];
	     i = (i + 1) & (gs->hash_size - 1))
		if (group_is(by, &gs->g[gs->hash[i] - 1], j))
			return &gs->g[gs->hash[i] - 1];
	if (!(gs->nr & (gs->nr - 1)))
		gs->g = gr_realloc(gs->g, gs->nr ? 2 * gs->nr : 1, sizeof(*gs->g));
	g = &gs->g[gs->nr];
	memset(g, 0, sizeof(*g));
	g->ring = j->ring_id;
	g->ctx = j->ctx_id;
	g->tgid = j->tgid;
	memcpy(g->comm, j->comm, sizeof(g->comm));
	g->first = j->serial;
	gs->hash[i] = ++gs->nr;
	return g;
}

static void add_name(struct group *g, const struct gr_job *j)
{
	size_t i;

	for (i = g->nr_names; i-- > 0;)
		if (g->names[i].tgid == j->tgid &&
		    (j->tgid || !strcmp(g->names[i].comm, j->comm)))
			return;
	if (!(g->nr_names & (g->nr_names - 1)))
		g->names = gr_realloc(g->names, g->nr_names ? 2 * g->nr_names : 1,
				      sizeof(*g->names));
	g->names[g->nr_names].tgid = j->tgid;
	memcpy(g->names[g->nr_names++].comm, j->comm, sizeof(j->comm));
}

static struct pname *pname_slot(struct pname *pn, size_t size, __u32 tgid)
{
	size_t i = (tgid * 0x9e3779b1u) & (size - 1);

	while (pn[i].tgid && pn[i].tgid != tgid)
		i = (i + 1) & (size - 1);
	return &pn[i];
}

/* Note the submitter of @j for the name of its process (struct pname) */
static void pname_note(struct report *rp, const struct gr_job *j)
{
	struct pname *p;
	size_t k;

	if (!j->tgid || !j->comm[0])
		return;
	if (rp->nr_pn * 2 >= rp->pn_size) {
		size_t n = rp->pn_size ? 2 * rp->pn_size : 64;
		struct pname *pn = gr_zalloc(n * sizeof(*pn));

		for (k = 0; k < rp->pn_size; k++)
			if (rp->pn[k].tgid)
				*pname_slot(pn, n, rp->pn[k].tgid) = rp->pn[k];
		free(rp->pn);
		rp->pn = pn;
		rp->pn_size = n;
	}
	p = pname_slot(rp->pn, rp->pn_size, j->tgid);
	if (!p->tgid) {
		p->tgid = j->tgid;
		rp->nr_pn++;
	}
	if (!p->leader && (!p->comm[0] || j->pid == j->tgid)) {
		memcpy(p->comm, j->comm, sizeof(p->comm));
		p->leader = j->pid == j->tgid;
	}
}

/* The name of process @tgid (struct pname), "comm[tgid]"; @comm without one */
static void pname_of(const struct report *rp, __u32 tgid, const char *comm,
		     char *buf, size_t len)
{
	const struct pname *p = tgid && rp->pn_size ?
				pname_slot(rp->pn, rp->pn_size, tgid) : NULL;

	process_name(tgid, p && p->tgid ? p->comm : comm, buf, len);
}

static void group_add(struct report *rp, int by, const struct gr_job *j)
{
	static const int metrics[NR_STATS] = { GR_M_LAT, GR_M_DEVICE, GR_M_EXEC };
	struct group *g = group_of(&rp->grp[by], by, j);
	__s64 v;
	int k;

	g->jobs++;
	for (k = 0; k < NR_STATS; k++) {
		if (!gr_job_metric(j, metrics[k], &v))
			continue;
		if (metrics[k] == GR_M_LAT && (!g->st[k].n || v > g->st[k].max)) {
			g->slow_fctx = j->fctx;
			g->slow_fseq = j->fseq;
		}
		gr_stat_add(&g->st[k], v);
	}
	if (gr_job_gpu(j, &v)) {
		g->gpu += v;
		g->nr_gpu++;
	}
	for (k = 0; k < GR_M_NR; k++) {
		if (!gr_job_metric(j, k, &v))
			continue;
		g->part[k] += v;
		g->nr_part[k]++;
	}
	/* A job submitted before the recording began names no submitter */
	if (by == BY_CTX && j->seen & (1U << GRTRACE_EV_SUBMIT))
		add_name(g, j);
}

/* A job the current pass is done with */
/* ---- --in-flight: what the GPUs were doing at the last event ---- */

#define LAST_DONE	10

/* Append to an array whose room doubles at 1, 2, 4, 8... jobs */
static void flight_push(struct gr_job **arr, size_t *nr, const struct gr_job *j)
{
	if (!(*nr & (*nr - 1)))
		*arr = gr_realloc(*arr, *nr ? 2 * *nr : 1, sizeof(**arr));
	(*arr)[(*nr)++] = *j;
}

/* Jobs retire in the order they were created, not completed */
static void flight_add(struct report *rp, const struct gr_job *j)
{
	size_t keep = rp->p->limit ? rp->p->limit : LAST_DONE, i, min = 0;
	bool done = gr_job_done(j);

	if (!done)
		flight_push(&rp->flying, &rp->nr_flying, j);
	if (j->errors || (done && j->status < 0))
		flight_push(&rp->failed, &rp->nr_failed, j);
	if (!done)
		return;
	if (rp->nr_done < keep) {
		flight_push(&rp->done, &rp->nr_done, j);
		return;
	}
	for (i = 1; i < rp->nr_done; i++)
		if (rp->done[i].ts[GRTRACE_EV_COMPLETE] < rp->done[min].ts[GRTRACE_EV_COMPLETE])
			min = i;
	if (j->ts[GRTRACE_EV_COMPLETE] > rp->done[min].ts[GRTRACE_EV_COMPLETE])
		rp->done[min] = *j;
}

static int cmp_flying(const void *a, const void *b, void *trace)
{
	const struct gr_job *x = a, *y = b;
	char rx[64], ry[64];
	int c;

	gr_ring_label(trace, x->ring_id, rx, sizeof(rx));
	gr_ring_label(trace, y->ring_id, ry, sizeof(ry));
	c = strcmp(rx, ry);
	if (c)
		return c;
	return x->first_ts < y->first_ts ? -1 : x->first_ts > y->first_ts;
}

static int cmp_done(const void *a, const void *b)
{
	const struct gr_job *x = a, *y = b;
	__u64 tx = x->ts[GRTRACE_EV_COMPLETE], ty = y->ts[GRTRACE_EV_COMPLETE];

	return tx > ty ? -1 : tx < ty;
}

/* The last stage a job reached */
static const char *flight_stage(const struct gr_job *j)
{
	int k;

	for (k = GRTRACE_EV_COMPLETE; k >= GRTRACE_EV_SUBMIT; k--)
		if (j->seen & (1U << k))
			return gr_type_name(k);
	return "";
}

static const struct gr_col flight_cols[] = {
	{ "ring", "RING", -22, false },
	{ "fence", "FENCE", -12, false },
	{ "ctx", "CTX", 5, true },
	{ "pid", "PID", 7, true },
	{ "comm", "COMM", -15, false },
	{ "stage", "STAGE", -8, false },
	{ "first_ns", "FIRST", 14, true },
	{ "age_ns", "AGE", 12, true },
	{ "latency_ns", "LATENCY", 10, true },
	{ "status", "STATUS", -9, false },
};

#define NR_FLIGHT_COLS	ARRAY_SIZE(flight_cols)

/*
 * A job as a row: FIRST is its first event, from the session start in the
 * text as every time report prints, in the input's clock in CSV and JSON
 * as every *_ns stamp (the session's start_ts converts); AGE the time from
 * it to the input's last event, LATENCY its latency if it completed.
 */
static void flight_row(struct report *rp, const struct gr_job *j)
{
	char b[NR_FLIGHT_COLS][96], *cells[NR_FLIGHT_COLS];
	const struct gr_out *o = &rp->o;
	bool valid;
	size_t i;
	__s64 v;

	for (i = 0; i < NR_FLIGHT_COLS; i++)
		cells[i] = b[i];
	gr_ring_label(&rp->t, j->ring_id, b[0], sizeof(b[0]));
	snprintf(b[1], sizeof(b[1]), "%llu:%llu", (unsigned long long)j->fctx,
		 (unsigned long long)j->fseq);
	snprintf(b[2], sizeof(b[2]), "%llu", (unsigned long long)j->ctx_id);
	b[3][0] = '\0';
	if (j->pid)
		snprintf(b[3], sizeof(b[3]), "%u", j->pid);
	snprintf(b[4], sizeof(b[4]), "%s", j->comm);
	snprintf(b[5], sizeof(b[5]), "%s", flight_stage(j));
	gr_cell_ns(o, b[6], sizeof(b[6]), true,
		   (long long)(j->first_ts - (o->fmt == GR_FMT_TEXT ? rp->t.start_ts : 0)));
	gr_cell_ns(o, b[7], sizeof(b[7]), true, (long long)(rp->t.last_ts - j->first_ts));
	valid = gr_job_metric(j, GR_M_LAT, &v);
	gr_cell_ns(o, b[8], sizeof(b[8]), valid, v);
	gr_job_status(j, b[9], sizeof(b[9]));
	gr_tbl_row(&rp->o, cells);
}

static void flight_tables(struct report *rp)
{
	char title[256], last[32], start[32];
	size_t i;

	if (rp->nr_flying)
		qsort_r(rp->flying, rp->nr_flying, sizeof(*rp->flying), cmp_flying, &rp->t);
	if (rp->nr_done)
		qsort(rp->done, rp->nr_done, sizeof(*rp->done), cmp_done);
	gr_cell_ns(&rp->o, last, sizeof(last), true, (long long)(rp->t.last_ts - rp->t.start_ts));
	gr_secs(rp->t.start_ts, start, sizeof(start));
	snprintf(title, sizeof(title),
		 "in flight at the last event (%s): %zu job%s, by ring (times in us from the session start, %s s in the input's clock; AGE at the last event):",
		 last, rp->nr_flying, rp->nr_flying == 1 ? "" : "s", start);
	gr_tbl_tag(&rp->o, "table", "in_flight");
	gr_tbl_begin(&rp->o, "in_flight", title, flight_cols, NR_FLIGHT_COLS);
	for (i = 0; i < rp->nr_flying; i++)
		flight_row(rp, &rp->flying[i]);
	gr_tbl_end(&rp->o);
	snprintf(title, sizeof(title), "the last %zu job%s completed, the last first:",
		 rp->nr_done, rp->nr_done == 1 ? "" : "s");
	gr_tbl_tag(&rp->o, "table", "last_completed");
	gr_tbl_begin(&rp->o, "last_completed", title, flight_cols, NR_FLIGHT_COLS);
	for (i = 0; i < rp->nr_done; i++)
		flight_row(rp, &rp->done[i]);
	gr_tbl_end(&rp->o);
	snprintf(title, sizeof(title),
		 "%zu job%s with an error (timeout, reset) or a failed fence:",
		 rp->nr_failed, rp->nr_failed == 1 ? "" : "s");
	gr_tbl_tag(&rp->o, "table", "failed");
	gr_tbl_begin(&rp->o, "failed", title, flight_cols, NR_FLIGHT_COLS);
	for (i = 0; i < rp->nr_failed; i++)
		flight_row(rp, &rp->failed[i]);
	gr_tbl_end(&rp->o);
}

static void on_retire(void *arg, const struct gr_jobs *jobs, struct gr_job *j)
{
	struct report *rp = arg;
	const struct report_params *p = rp->p;
	struct ring_acc *r;
	__s64 v;
	int k;

	if (rp->first) {
		/* The first pass: counts, and the medians of the labels */
		r = ring_acc(rp, j->ring_id);
		r->jobs++;
		rp->nr_jobs++;
		ctx_count(rp, j);
		if (rp->rows || p->topn) {
			if (gr_job_outlier(j, GR_L_LONG_QUEUE, &v))
				gr_stat_add(&r->out[0], v);
			if (gr_job_outlier(j, GR_L_SLOW_EXEC, &v))
				gr_stat_add(&r->out[1], v);
		}
	}
	if (!rp->final || !job_selected(rp, j))
		return;
	if (rp->rows || p->topn)
		label_outliers(rp, j);
	if (p->in_flight)
		flight_add(rp, j);
	/* --topn goes with the groups and histograms, if any */
	if (p->topn && gr_job_metric(j, GR_M_LAT, &v))
		top_add(rp, jobs, j, v);
	if (rp->rows && !p->topn && (!p->limit || rp->printed < p->limit)) {
		char deps[128];

		deps_str(jobs, j, deps, sizeof(deps));
		job_row(rp, j, deps);
		rp->printed++;
	}
	pname_note(rp, j);
	if (rp->summary) {
		group_add(rp, BY_PROCESS, j);
		group_add(rp, BY_RING, j);
	}
	if (p->per_ring)
		group_add(rp, BY_RING, j);
	if (p->per_ctx)
		group_add(rp, BY_CTX, j);
	if (p->per_process)
		group_add(rp, BY_PROCESS, j);
	if (p->hist == HIST_LAT && gr_job_metric(j, GR_M_LAT, &v)) {
		if (v < 0) {
			if (!rp->hlat_neg++ || v < rp->hlat_min)
				rp->hlat_min = v;
		} else {
			k = v < 2 ? 0 : 63 - __builtin_clzll(v);
			rp->hlat[k]++;
		}
	} else if (p->hist == HIST_RESULT) {
		char b[32];
		size_t i;

		gr_job_status(j, b, sizeof(b));
		for (i = 0; i < rp->nr_res && strcmp(rp->res[i].name, b); i++)
			;
		if (i == rp->nr_res && i == NR_RESULTS)
			return;
		if (i == rp->nr_res) {
			snprintf(rp->res[i].name, sizeof(rp->res[i].name), "%s", b);
			rp->res[rp->nr_res++].n = 0;
		}
		rp->res[i].n++;
	}
}

/* n, avg, min, p50, p99, max as cells; empty when n is 0 */
static void stat_cells(const struct gr_out *o, struct gr_stat *s, char (*b)[96])
{
	__u64 n = s->n;

	snprintf(b[0], 96, "%llu", (unsigned long long)n);
	gr_cell_ns(o, b[1], 96, n, gr_stat_avg(s));
	gr_cell_ns(o, b[2], 96, n, s->min);
	gr_cell_ns(o, b[3], 96, n, gr_stat_pct(s, 50));
	gr_cell_ns(o, b[4], 96, n, gr_stat_pct(s, 99));
	gr_cell_ns(o, b[5], 96, n, s->max);
}

/* The name that sorts a group; contexts by device, then ctx id */
static void group_key(const struct report *rp, int by, struct group *g)
{
	const struct gr_ring *r = gr_ring(&rp->t, g->ring);

	if (by == BY_RING)
		gr_ring_label(&rp->t, g->ring, g->key, sizeof(g->key));
	else if (by == BY_CTX)
		snprintf(g->key, sizeof(g->key), "%s %llu", r->known ? r->dev : "",
			 (unsigned long long)g->ctx);
	else
		pname_of(rp, g->tgid, g->comm, g->key, sizeof(g->key));
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int r = strverscmp(x->key, y->key);

	return r ? r : (x->first < y->first ? -1 : 1);
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

/*
 * The name of a context: "ctx 2 kmscube[1286]", with the processes that
 * submitted in it (3 at most, then "+N") and "+N kworkers" for the kernel
 * workers among them, or the kernel workers if no other process did.  The
 * device comes first if the input has several.
 */
static void ctx_name(const struct report *rp, struct group *g, char *buf)
{
	const struct gr_ring *r = gr_ring(&rp->t, g->ring);
	int users = 0, kworkers = 0, listed, shown = 0;
	size_t i, nr = 0, w = 0;
	char (*names)[48];

	/* No names if every job of the context was submitted before the input */
	names = gr_realloc(NULL, g->nr_names + 1, sizeof(*names));
	for (i = 0; i < g->nr_names; i++)
		pname_of(rp, g->names[i].tgid, g->names[i].comm, names[i], sizeof(*names));
	if (g->nr_names)
		qsort(names, g->nr_names, sizeof(*names), cmp_name);
	/* Each process once (contexts of one name are merged) */
	for (i = 0; i < g->nr_names; i++)
		if (!nr || strcmp(names[i], names[nr - 1]))
			memmove(names[nr++], names[i], sizeof(*names));
	for (i = 0; i < nr; i++) {
		if (gr_kernel_worker(names[i]))
			kworkers++;
		else
			users++;
	}
	/* The processes, or the kernel workers if no process submitted */
	listed = users ? users : kworkers;

	buf[0] = '\0';
	if (r->known && rp->several_devs)
		append(buf, 96, &w, "%s ", r->dev);
	append(buf, 96, &w, "ctx %llu", (unsigned long long)g->ctx);
	for (i = 0; i < nr && shown < 3; i++)
		if (gr_kernel_worker(names[i]) == !users && ++shown)
			append(buf, 96, &w, " %s", names[i]);
	if (listed > shown)
		append(buf, 96, &w, " +%d", listed - shown);
	if (users && kworkers)
		append(buf, 96, &w, " +%d kworker%s", kworkers, kworkers > 1 ? "s" : "");
	free(names);
}

/* Add group @from (same key) to @g, and free it */
static void group_merge(struct group *g, struct group *from)
{
	int k;

	g->jobs += from->jobs;
	/* st[0] is the latency's */
	if (from->st[0].n && (!g->st[0].n || from->st[0].max > g->st[0].max)) {
		g->slow_fctx = from->slow_fctx;
		g->slow_fseq = from->slow_fseq;
	}
	for (k = 0; k < NR_STATS; k++)
		gr_stat_merge(&g->st[k], &from->st[k]);
	for (k = 0; k < GR_M_NR; k++) {
		g->part[k] += from->part[k];
		g->nr_part[k] += from->nr_part[k];
	}
	g->gpu += from->gpu;
	g->nr_gpu += from->nr_gpu;
	/* What was @from's is @g's now */
	from->jobs = 0;
	from->gpu = 0;
	from->nr_gpu = 0;
	memset(from->part, 0, sizeof(from->part));
	memset(from->nr_part, 0, sizeof(from->nr_part));
	if (from->nr_names) {
		g->names = gr_realloc(g->names, g->nr_names + from->nr_names,
				      sizeof(*g->names));
		memcpy(g->names + g->nr_names, from->names,
		       from->nr_names * sizeof(*g->names));
		g->nr_names += from->nr_names;
	}
	free(from->names);
	from->names = NULL;
}

#define NR_GROUP_COLS	(2 + 6 * NR_STATS)

/* What a group is of: CSV's first column, one table of every --per-* */
static const char * const group_by[] = { "ring", "context", "process" };

static void group_row(struct report *rp, int by, struct group *g)
{
	char b[NR_GROUP_COLS][96], *cells[NR_GROUP_COLS];
	size_t i;

	for (i = 0; i < NR_GROUP_COLS; i++)
		cells[i] = b[i];
	if (by == BY_CTX)
		ctx_name(rp, g, b[0]);
	else
		snprintf(b[0], 96, "%s", g->key);
	snprintf(b[1], 96, "%llu", (unsigned long long)g->jobs);
	for (i = 0; i < NR_STATS; i++)
		stat_cells(&rp->o, &g->st[i], &b[2 + 6 * i]);
	gr_tbl_row(&rp->o, cells);
}

/*
 * The groups of @by, one per name (rings of one name in one; with
 * @workers, the kernel's workers, which submit for no process in
 * particular, in one), in the order of their names: an array of @nr of
 * them, to free.
 */
static struct group **merged_groups(struct report *rp, int by, bool workers, size_t *nr)
{
	struct groups *gs = &rp->grp[by];
	struct group **out = gr_realloc(NULL, gs->nr + 1, sizeof(*out));
	size_t i, a;

	workers = workers && by == BY_PROCESS;
	for (i = 0; i < gs->nr; i++) {
		group_key(rp, by, &gs->g[i]);
		if (workers && gr_kernel_worker(gs->g[i].comm))
			snprintf(gs->g[i].key, sizeof(gs->g[i].key), "kworker/*");
	}
	if (gs->nr)
		qsort(gs->g, gs->nr, sizeof(*gs->g), cmp_group);
	*nr = 0;
	for (a = 0; a < gs->nr; a = i) {
		/* Groups of one name: rings of the same name, say */
		for (i = a + 1; i < gs->nr && !strcmp(gs->g[i].key, gs->g[a].key); i++)
			group_merge(&gs->g[a], &gs->g[i]);
		if (workers && gr_kernel_worker(gs->g[a].comm) && i - a > 1)
			snprintf(gs->g[a].key, sizeof(gs->g[a].key), "kworker/* (%zu)", i - a);
		else if (workers && gr_kernel_worker(gs->g[a].comm))
			group_key(rp, by, &gs->g[a]);
		out[(*nr)++] = &gs->g[a];
	}
	return out;
}

/* The most GPU time first, then by name */
static int cmp_gpu_time(const void *a, const void *b)
{
	const struct group *x = *(const struct group * const *)a;
	const struct group *y = *(const struct group * const *)b;

	if (x->gpu != y->gpu)
		return x->gpu > y->gpu ? -1 : 1;
	return strverscmp(x->key, y->key);
}

/*
 * Text: a table per statistic, its figures in 74 columns and the group's
 * name after them (a context's lists its processes), a statistic no job
 * has named in one line.
 */
static void group_text(struct report *rp, int by, struct group **g, size_t nr)
{
	static const char * const what[] = { "per ring", "per context", "per process" };
	static const char * const stat[NR_STATS] = {
		"latency (COMPLETE - SUBMIT)", "t_device (END - COMMIT)",
		"t_exec (END - START)",
	};
	static const char * const name[] = { "RING", "CONTEXT", "PROCESS" };
	struct gr_col cols[] = {
		{ "jobs", "JOBS", 6, true },
		{ "n", "N", 6, true },
		{ "avg", "AVG", 11, true },
		{ "min", "MIN", 11, true },
		{ "p50", "P50", 11, true },
		{ "p99", "P99", 11, true },
		{ "max", "MAX", 11, true },
		{ "group", name[by], 0, false },
	};
	char b[ARRAY_SIZE(cols)][96], *cells[ARRAY_SIZE(cols)], title[96];
	size_t i, k;
	int s;

	for (k = 0; k < ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	for (s = 0; s < NR_STATS; s++) {
		for (i = 0; i < nr && !g[i]->st[s].n; i++)
			;
		if (i == nr) {
			fprintf(rp->o.f, "\n%s: %s: no job has one\n", what[by], stat[s]);
			continue;
		}
		snprintf(title, sizeof(title), "%s: %s in us", what[by], stat[s]);
		gr_tbl_begin(&rp->o, "", title, cols, ARRAY_SIZE(cols));
		for (i = 0; i < nr; i++) {
			snprintf(b[0], 96, "%llu", (unsigned long long)g[i]->jobs);
			stat_cells(&rp->o, &g[i]->st[s], &b[1]);
			if (by == BY_CTX)
				ctx_name(rp, g[i], b[7]);
			else
				snprintf(b[7], 96, "%s", g[i]->key);
			gr_tbl_row(&rp->o, cells);
		}
		gr_tbl_end(&rp->o);
	}
}

/*
 * Every statistic of each group, the most GPU time first (as the summary):
 * in CSV and JSON one table of them all, in text a table per statistic.
 */
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
	struct group **g;
	size_t i, nr;

	g = merged_groups(rp, by, false, &nr);
	if (nr)
		qsort(g, nr, sizeof(*g), cmp_gpu_time);
	/* Once, not per context: an input may describe thousands of rings */
	rp->several_devs = several_devices(&rp->t);
	if (rp->o.fmt == GR_FMT_TEXT) {
		group_text(rp, by, g, nr);
		free(g);
		return;
	}
	gr_tbl_tag(&rp->o, "by", group_by[by]);
	gr_tbl_begin(&rp->o, keys[by], titles[by], cols, NR_GROUP_COLS);
	for (i = 0; i < nr; i++)
		group_row(rp, by, g[i]);
	gr_tbl_end(&rp->o);
	free(g);
}

/* ---- the summary: where the GPU time went ---- */

/* The phases of a job, averaged per process (phase_table) */
static const int phase_metrics[] = {
	GR_M_HOST, GR_M_DEVICE, GR_M_COMPLETE, GR_M_LAT, GR_M_WAIT,
};

/* A group's average of time @m over the jobs that have it */
static void part_cell(const struct report *rp, const struct group *g, int m, char *b)
{
	gr_cell_ns(&rp->o, b, 96, g->nr_part[m], gr_avg(g->part[m], g->nr_part[m]));
}

/*
 * Per process or ring: its jobs, their GPU time (EXEC, START to END, or
 * without a START DEVICE, COMMIT to END: the device's part of a job) and
 * its share of all, the median, p99 and highest latency and the job of the
 * highest.
 */
static void share_table(struct report *rp, int by, struct group **g, size_t nr)
{
	static const struct gr_col cols[] = {
		{ "", "", -22, false },
		{ "jobs", "JOBS", 6, true },
		{ "gpu_time", "GPU_TIME", 13, true },
		{ "share_pct", "SHARE%", 6, true },
		{ "lat_p50", "LAT_P50", 11, true },
		{ "lat_p99", "LAT_P99", 11, true },
		{ "lat_max", "LAT_MAX", 11, true },
		{ "slowest", "SLOWEST", 0, false },
		/* CSV only: phase_table's averages, as one table */
		{ "t_submit_host", "", 0, true },
		{ "t_device", "", 0, true },
		{ "t_complete", "", 0, true },
		{ "latency", "", 0, true },
		{ "t_gpu_wait", "", 0, true },
	};
	bool csv = rp->o.fmt == GR_FMT_CSV;
	int nr_cols = csv ? ARRAY_SIZE(cols) : ARRAY_SIZE(cols) - ARRAY_SIZE(phase_metrics);
	char b[ARRAY_SIZE(cols)][96], *cells[ARRAY_SIZE(cols)];
	struct gr_col c[ARRAY_SIZE(cols)];
	__s64 total = 0;
	size_t i, k;

	memcpy(c, cols, sizeof(cols));
	c[0].key = csv ? "group" : by == BY_PROCESS ? "process" : "ring";
	c[0].title = by == BY_PROCESS ? "PROCESS" : "RING";
	for (i = 0; i < nr; i++)
		total += g[i]->gpu;
	for (k = 0; k < ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_tag(&rp->o, "by", group_by[by]);
	if (by == BY_PROCESS)
		gr_tbl_begin(&rp->o, "gpu_time_per_process",
			     "where the GPU time went, per process (us; GPU_TIME: its jobs' EXEC or DEVICE):",
			     c, nr_cols);
	else
		gr_tbl_begin(&rp->o, "gpu_time_per_ring", "per ring (us):", c, nr_cols);
	for (i = 0; i < nr; i++) {
		__u64 n = g[i]->st[0].n;

		snprintf(b[0], 96, "%s", g[i]->key);
		snprintf(b[1], 96, "%llu", (unsigned long long)g[i]->jobs);
		gr_cell_ns(&rp->o, b[2], 96, g[i]->nr_gpu, g[i]->gpu);
		b[3][0] = '\0';
		if (total && g[i]->nr_gpu)
			snprintf(b[3], 96, "%.1f", 100.0 * g[i]->gpu / total);
		gr_cell_ns(&rp->o, b[4], 96, n, gr_stat_pct(&g[i]->st[0], 50));
		gr_cell_ns(&rp->o, b[5], 96, n, gr_stat_pct(&g[i]->st[0], 99));
		gr_cell_ns(&rp->o, b[6], 96, n, g[i]->st[0].max);
		b[7][0] = '\0';
		if (n)
			snprintf(b[7], 96, "%llu:%llu", (unsigned long long)g[i]->slow_fctx,
				 (unsigned long long)g[i]->slow_fseq);
		/* As phase_table(): a process's */
		for (k = 0; csv && k < ARRAY_SIZE(phase_metrics); k++) {
			b[8 + k][0] = '\0';
			if (by == BY_PROCESS)
				part_cell(rp, g[i], phase_metrics[k], b[8 + k]);
		}
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

/* Per process, where its jobs' time went: each phase's average */
static void phase_table(struct report *rp, struct group **g, size_t nr)
{
	static const struct gr_col cols[] = {
		{ "process", "PROCESS", -22, false },
		{ "jobs", "JOBS", 6, true },
		{ "t_submit_host", "HOST", 11, true },
		{ "t_device", "DEVICE", 11, true },
		{ "t_complete", "COMPL", 11, true },
		{ "latency", "LATENCY", 11, true },
		{ "t_gpu_wait", "GPUWAIT", 11, true },
	};
	char b[ARRAY_SIZE(cols)][96], *cells[ARRAY_SIZE(cols)];
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "phases_per_process",
		     "where a job's time went, per process (us; averages over the jobs with each):",
		     cols, ARRAY_SIZE(cols));
	for (i = 0; i < nr; i++) {
		snprintf(b[0], 96, "%s", g[i]->key);
		snprintf(b[1], 96, "%llu", (unsigned long long)g[i]->jobs);
		for (k = 0; k < ARRAY_SIZE(phase_metrics); k++)
			part_cell(rp, g[i], phase_metrics[k], b[2 + k]);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

static void summary(struct report *rp)
{
	static const char more[] =
		"each job: --jobs; every statistic: --per-process, --per-ring, --per-context\n";
	struct group **proc, **ring;
	size_t nr_proc, nr_ring;

	proc = merged_groups(rp, BY_PROCESS, true, &nr_proc);
	ring = merged_groups(rp, BY_RING, false, &nr_ring);
	/* The most GPU time first */
	if (nr_proc)
		qsort(proc, nr_proc, sizeof(*proc), cmp_gpu_time);
	if (nr_ring)
		qsort(ring, nr_ring, sizeof(*ring), cmp_gpu_time);
	share_table(rp, BY_PROCESS, proc, nr_proc);
	/* In CSV, in share_table()'s one table */
	if (rp->o.fmt != GR_FMT_CSV)
		phase_table(rp, proc, nr_proc);
	share_table(rp, BY_RING, ring, nr_ring);
	/* The rings' counts after the answer, in text (print_head()) */
	if (rp->o.fmt == GR_FMT_TEXT) {
		rings_table(rp);
		fputs(more, rp->o.f);
	}
	free(proc);
	free(ring);
}

static void groups_free(struct groups *gs)
{
	size_t i;
	int k;

	for (i = 0; i < gs->nr; i++) {
		for (k = 0; k < NR_STATS; k++)
			gr_stat_free(&gs->g[i].st[k]);
		free(gs->g[i].names);
	}
	free(gs->g);
	free(gs->hash);
	memset(gs, 0, sizeof(*gs));
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
	int k, lo = 64, hi = -1;

	for (k = 0; k < 64; k++) {
		if (!rp->hlat[k])
			continue;
		lo = k < lo ? k : lo;
		hi = k;
	}
	gr_tbl_begin(&rp->o, "hist_lat", "latency (COMPLETE - SUBMIT), log2 buckets [from, to):",
		     cols, 3);
	/* Below 0 (a clock that went back): one row, from the lowest. */
	if (rp->hlat_neg) {
		snprintf(b[0], 32, "%lld", (long long)rp->hlat_min);
		snprintf(b[1], 32, "0");
		snprintf(b[2], 32, "%llu", (unsigned long long)rp->hlat_neg);
		gr_tbl_row(&rp->o, cells);
	}
	for (k = lo; k <= hi; k++) {
		snprintf(b[0], 32, "%llu", k ? 1ULL << k : 0ULL);
		snprintf(b[1], 32, "%llu", 2ULL << k);
		snprintf(b[2], 32, "%llu", (unsigned long long)rp->hlat[k]);
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

static void size_count(struct report *rp, const struct gr_event *ev)
{
	if (!rp->size_count) {
		rp->size_count = gr_zalloc(NR_SIZES * sizeof(*rp->size_count));
		rp->size_types = gr_zalloc(NR_SIZES * sizeof(*rp->size_types));
	}
	rp->size_count[ev->size / 8]++;
	rp->size_types[ev->size / 8] |= 1U << type_bit(ev->type);
}

static void hist_size(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "size", "SIZE", 6, true },
		{ "records", "RECORDS", 9, true },
		{ "bytes", "BYTES", 11, true },
		{ "types", "TYPES", 0, false },
	};
	char b[4][256], *cells[4] = { b[0], b[1], b[2], b[3] };
	static const unsigned int extra[] = {
		GRTRACE_EV_STREAM_INFO, GRTRACE_EV_METADATA, 0xffff,
	};
	size_t i, n;
	int k;

	gr_tbl_begin(&rp->o, "hist_size", "record sizes:", cols, 4);
	for (i = 0; rp->size_count && i < NR_SIZES; i++) {
		if (!rp->size_count[i])
			continue;
		snprintf(b[0], 256, "%zu", i * 8);
		snprintf(b[1], 256, "%llu", (unsigned long long)rp->size_count[i]);
		snprintf(b[2], 256, "%llu", (unsigned long long)rp->size_count[i] * i * 8);
		for (n = 0, k = 0; k < GRTRACE_EV_NR + 3; k++)
			if (rp->size_types[i] & (1U << k))
				n += snprintf(b[3] + n, 256 - n, "%s%s", n ? " " : "",
					      gr_type_name(k < GRTRACE_EV_NR ? (unsigned int)k :
							   extra[k - GRTRACE_EV_NR]));
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

static void hist_result(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "status", "STATUS", -10, false },
		{ "jobs", "JOBS", 0, true },
	};
	char b[2][32], *cells[2] = { b[0], b[1] };
	size_t k;

	gr_tbl_begin(&rp->o, "hist_result", "job results:", cols, 2);
	for (k = 0; k < rp->nr_res; k++) {
		cells[0] = rp->res[k].name;
		snprintf(b[1], 32, "%llu", (unsigned long long)rp->res[k].n);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

/*
 * --host: the DEVICE time of the joined jobs by command type, split into
 * its three parts; the sums add up to DEVICE's.
 */
static void host_table(struct report *rp)
{
	static const struct gr_col cols[] = {
		{ "type", "COMMAND", -20, false },
		{ "jobs", "JOBS", 6, true },
		{ "device_avg", "DEVICE", 10, true },
		{ "to_host_avg", "TO_HOST", 10, true },
		{ "on_host_avg", "ON_HOST", 10, true },
		{ "back_avg", "BACK", 10, true },
		{ "on_host_pct", "ON_HOST%", 8, true },
		{ "device_max", "DEV_MAX", 10, true },
		{ "on_host_max", "ON_MAX", 10, true },
	};
	const struct gr_host *h = rp->host;
	char b[ARRAY_SIZE(cols)][64], *cells[ARRAY_SIZE(cols)];
	__u32 types[64];
	size_t nr_types = 0, i, k;

	for (i = 0; i < h->nr; i++) {
		for (k = 0; k < nr_types && types[k] != h->job[i].type; k++)
			;
		if (k == nr_types && nr_types < ARRAY_SIZE(types))
			types[nr_types++] = h->job[i].type;
	}
	for (k = 0; k < ARRAY_SIZE(cols); k++)
		cells[k] = b[k];
	gr_tbl_begin(&rp->o, "host_split",
		     "virtio-gpu DEVICE split by the host (us; averages; DEVICE = TO_HOST + ON_HOST + BACK):",
		     cols, ARRAY_SIZE(cols));
	for (k = 0; k < nr_types; k++) {
		__s64 sum[4] = {}, max_dev = 0, max_on = 0, to, on, back;
		__u64 n = 0;

		for (i = 0; i < h->nr; i++) {
			const struct gr_host_job *hj = &h->job[i];

			if (hj->type != types[k])
				continue;
			gr_host_split(hj, &to, &on, &back);
			sum[0] += to + on + back;
			sum[1] += to;
			sum[2] += on;
			sum[3] += back;
			max_dev = to + on + back > max_dev ? to + on + back : max_dev;
			max_on = on > max_on ? on : max_on;
			n++;
		}
		snprintf(b[0], 64, "%s", gr_host_type_name(types[k]));
		snprintf(b[1], 64, "%llu", (unsigned long long)n);
		for (i = 0; i < 4; i++)
			gr_cell_ns(&rp->o, b[2 + i], 64, true, sum[i] / (__s64)n);
		snprintf(b[6], 64, "%.1f", sum[0] ? 100.0 * sum[2] / sum[0] : 0.0);
		gr_cell_ns(&rp->o, b[7], 64, true, max_dev);
		gr_cell_ns(&rp->o, b[8], 64, true, max_on);
		gr_tbl_row(&rp->o, cells);
	}
	gr_tbl_end(&rp->o);
}

/* ---- the passes ---- */

/* The header and the rings: what the first pass counted */
static void print_head(struct report *rp)
{
	const struct report_params *p = rp->p;

	gr_out_begin(&rp->o, stdout, p->fmt);
	if (p->fmt == GR_FMT_TEXT)
		header_text(rp);
	else	/* the text header names it */
		gr_input_partial_warn(&rp->t);
	if (p->fmt == GR_FMT_JSON)
		header_json(rp);
	if (p->fmt != GR_FMT_CSV) {
		/* The summary leads, as perf report's: the rings come in it */
		if (p->fmt != GR_FMT_TEXT || !rp->summary)
			rings_table(rp);
		summaries_table(rp);
		contexts_table(rp);
		if (rp->host)
			host_table(rp);
	}
}

/*
 * Read the input once, each job to on_retire().  Stops early once every
 * row asked for is printed.  Returns: 0, or -1 with the problem printed.
 */
static int pass(struct report *rp)
{
	bool sizes = rp->final && rp->p->hist == HIST_SIZE;
	struct gr_event ev;
	int ret;

	gr_jobs_stream(&rp->jobs, on_retire, rp);
	while ((ret = gr_src_next(&rp->src, &ev)) > 0) {
		if (sizes)
			size_count(rp, &ev);
		gr_jobs_event(&rp->jobs, &ev);
		if (rp->final && rp->rows && !rp->tables && !rp->p->topn && rp->p->limit &&
		    rp->printed >= rp->p->limit)
			break;
	}
	if (!ret)
		gr_jobs_finish(&rp->jobs);
	gr_jobs_free(&rp->jobs);
	return ret < 0 ? -1 : 0;
}

/* After the first pass: the thresholds of the labels, per ring */
static void thresholds(struct report *rp)
{
	const long long fixed[2] = { rp->p->queue_thresh, rp->p->exec_thresh };
	__u32 id;
	int k;

	for (id = 0; id < rp->nr_ring; id++) {
		struct ring_acc *r = &rp->ring[id];

		for (k = 0; k < 2; k++)
			if (r->out[k].n)
				r->thresh[k] = fixed[k] ? fixed[k] :
					gr_label_thresh(gr_stat_pct(&r->out[k], 50));
	}
}

/* Any ring whose engine class no --engine mask can select */
static bool odd_engine(const struct gr_trace *t)
{
	__u32 id;

	for (id = 0; id < t->nr_rings; id++)
		if (t->rings[id].used && t->rings[id].engine >= 32)
			return true;
	return false;
}

/*
 * Jobs are listed (or the --topn ones) from a second pass, once the first
 * has counted them and found the thresholds of their labels, so that the
 * header comes first and bad input stops the report before it prints
 * anything.  Groups and histograms need one pass, two if jobs are
 * selected by time, ring or engine: the rings and the time origin are
 * known at the end of the input.
 */
static int report_run(struct report *rp)
{
	const struct report_params *p = rp->p;
	bool other = p->per_ring || p->per_ctx || p->per_process || p->hist ||
		     p->in_flight;
	bool two;

	/* The list of jobs, asked for or implied by its options; else the summary */
	rp->rows = p->jobs || (!other && (p->limit || p->queue_thresh || p->exec_thresh));
	rp->summary = !other && !rp->rows && !p->topn;
	rp->tables = other;
	two = rp->rows || p->topn || p->since >= 0 || p->until >= 0 || p->ring ||
	      p->engine_mask != ~0U;
	rp->final = !two;
	rp->all = !two;
	rp->first = true;
	if (pass(rp))
		return -1;
	rp->first = false;
	rp->all = false;
	if (rp->final && odd_engine(&rp->t)) {
		/* An engine class above 31: its jobs are in no selection */
		groups_free(&rp->grp[BY_RING]);
		groups_free(&rp->grp[BY_CTX]);
		groups_free(&rp->grp[BY_PROCESS]);
		memset(rp->hlat, 0, sizeof(rp->hlat));
		rp->hlat_neg = 0;
		rp->nr_res = 0;
		free(rp->size_count);
		free(rp->size_types);
		rp->size_count = NULL;
		rp->size_types = NULL;
		rp->final = false;
	}
	if (!rp->final) {
		if (select_rings(rp))
			return -1;
		thresholds(rp);
		if (rp->rows) {
			print_head(rp);
			if (!p->topn)
				gr_tbl_begin(&rp->o, "jobs",
					     "jobs (times in us; TIME from the session start):",
					     rp->jcols, rp->nr_jcols);
		}
		rp->final = true;
		if (gr_src_rewind(&rp->src) || pass(rp))
			return -1;
		if (rp->rows && !p->topn)
			gr_tbl_end(&rp->o);
	}
	if (!rp->rows)
		print_head(rp);
	if (rp->summary)
		summary(rp);
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
	if (p->in_flight)
		flight_tables(rp);
	if (p->topn)
		topn_table(rp);
	gr_out_end(&rp->o);
	return 0;
}

/*
 * The report of session @session (from 1; 0: the input's only one).  With
 * 0, an input of more than one session is not read: @sessions is set to
 * their number, known once the input is open.
 */
static int report_session(struct report_params *params, int session, int *sessions)
{
	struct report rp = { .p = params };
	int ret = EXIT_FAILURE;
	__u32 id;
	int k;

	rp.t.session = session;
	rp.t.use = params->use;
	/* The host join takes a trace.dat's every virtio-gpu command at once */
	if (params->host)
		rp.t.whole = true;
	if (gr_src_open(&rp.src, &rp.t, params->input))
		goto out;
	if (!session && rp.t.nr_sessions > 1) {
		*sessions = rp.t.nr_sessions;
		ret = EXIT_SUCCESS;
		goto out;
	}
	/* The sizes of the records read, which the tool makes of events there */
	if (params->hist == HIST_SIZE && rp.t.is_tracedat) {
		gr_err_msg("%s: --hist size counts relay records (trace-cmd report --stat)\n",
			   params->input);
		goto out;
	}
	if (params->host) {
		rp.host = gr_zalloc(sizeof(*rp.host));
		if (gr_host_join(rp.host, params->host, &rp.t))
			goto out;
	}
	job_columns(&rp);
	if (report_run(&rp))
		goto out;
	ret = fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
out:
	gr_src_close(&rp.src);
	for (k = 0; k < NR_BY; k++)
		groups_free(&rp.grp[k]);
	for (id = 0; id < rp.nr_ring; id++)
		for (k = 0; k < 2; k++)
			gr_stat_free(&rp.ring[id].out[k]);
	free(rp.ring);
	free(rp.ctx);
	free(rp.pn);
	free(rp.top);
	free(rp.size_count);
	free(rp.size_types);
	free(rp.jcols);
	free(rp.flying);
	free(rp.done);
	free(rp.failed);
	free(rp.o.csv_keys);	/* a report that failed half way */
	if (rp.host)
		gr_host_free(rp.host);
	free(rp.host);
	gr_trace_free(&rp.t);
	return ret;
}

/*
 * -o FILE: stdout.  A regular file, or a new one, is written under another
 * name beside it (*@tmp), which takes its place once the report is whole
 * (output_close()) with the existing file's mode, or a new file's: a
 * report that fails leaves FILE as it was.  Anything else (a symbolic
 * link, a device, a FIFO) is written as it is.  The input itself is
 * refused.  Returns: 0, or -1 with the problem printed.
 */
static int output_open(const char *path, const char *input, char **tmp, mode_t *mode)
{
	struct stat st, out, in;
	bool exists = !lstat(path, &st);
	mode_t mask;
	int fd;

	if (!stat(path, &out) && input && !stat(input, &in) && out.st_dev == in.st_dev &&
	    out.st_ino == in.st_ino) {
		gr_err_msg("%s: the input: the report would replace it\n", path);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	} else {
		mask = umask(0);
		umask(mask);
		*mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
		*tmp = gr_zalloc(strlen(path) + sizeof(".grtrace-XXXXXX"));
		strcat(strcpy(*tmp, path), ".grtrace-XXXXXX");
		fd = mkstemp(*tmp);
		if (fd < 0) {
			gr_err_msg("%s: cannot make a file beside it: %s\n", path, strerror(errno));
			goto fail;
		}
	}
	if (fd < 0 || (fd != STDOUT_FILENO && dup2(fd, STDOUT_FILENO) < 0)) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		if (*tmp)
			unlink(*tmp);
		goto fail;
	}
	if (fd != STDOUT_FILENO)
		close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(*tmp);
	*tmp = NULL;
	return -1;
}

/* The end of -o FILE: the temporary file in FILE's place, or gone */
static int output_close(const char *path, char *tmp, mode_t mode, int ret)
{
	errno = 0;
	if (ret == EXIT_SUCCESS && (fflush(stdout) || ferror(stdout) ||
				    (tmp && (fchmod(STDOUT_FILENO, mode) || rename(tmp, path))))) {
		gr_err_msg("%s: %s\n", path, errno ? strerror(errno) : "write error");
		ret = EXIT_FAILURE;
	}
	if (tmp && ret != EXIT_SUCCESS)
		unlink(tmp);
	free(tmp);
	return ret;
}

int gr_report_main(int argc, char *argv[])
{
	struct report_params params;
	int ret, n = 0, k;
	char *tmp = NULL;
	mode_t mode = 0;
	struct stat st;

	report_parse_args(argc, argv, &params);
	if (params.output && strcmp(params.output, "-") &&
	    output_open(params.output, params.input, &tmp, &mode))
		return EXIT_FAILURE;
	/*
	 * An input of several sessions: each in turn (text), or the one asked;
	 * read again for each.  A pipe is read once: the one asked.
	 */
	ret = report_session(&params, params.session, &n);
	if (n > 1 && (params.fmt != GR_FMT_TEXT || !params.input ||
		      stat(params.input, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))) {
		gr_err_msg("%s: %d sessions, one after the other: choose one with --session N\n",
			   params.input ? params.input : "-", n);
		ret = EXIT_FAILURE;
	}
	for (k = 1; n > 1 && k <= n && ret == EXIT_SUCCESS; k++) {
		printf("%s==== session %d of %d ====\n", k > 1 ? "\n" : "", k, n);
		ret = report_session(&params, k, &n);
	}
	if (params.output && strcmp(params.output, "-"))
		ret = output_close(params.output, tmp, mode, ret);
	free(params.last_boot);
	return ret;
}

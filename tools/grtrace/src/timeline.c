// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace timeline: the jobs of a recording drawn in the terminal, one row
 * per ring over time, with the ioctls of every thread when the output
 * of grtrace-bpf-annotate is given; or, with --latency, where the time of
 * the jobs went, phase by phase, per ring and for the slowest jobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "commands.h"
#include "correlate.h"
#include "input.h"
#include "stat.h"
#include "utils.h"

#define LABEL_W		22
#define MIN_WIDTH	60
#define MAX_WIDTH	1000
#define DEF_WIDTH	100
#define TICK_EVERY	20	/* columns between two time labels */

/* Cell marks, weakest first */
#define C_IDLE		'.'
#define C_QUEUE		'-'
#define C_FLIGHT	'='
#define C_EXEC		'#'
#define C_IOCTL		'i'
#define C_SUBMIT	'^'
#define C_ERROR		'X'

struct timeline_params {
	const char *gpu;
	const char *cpu;
	const char *output;
	__s64 offset;
	int session;		/* --session N; 0: the input's only one */
	long long since;
	long long until;
	bool have_since;
	bool have_until;
	int width;
	bool latency;
	int top;
};

struct view {
	__u64 t0;		/* first ns shown */
	__u64 t1;		/* last ns shown */
	__u64 per_col;		/* ns per column */
	int cols;
};

static void timeline_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace timeline [-h] [-D] [-i FILE|DIR | --live] [-c CPU.txt] [--clock-offset NS]",
		"                          [-w WIDTH] [--since T] [--until T] [--latency [--topn N]]",
		"                          [--session N] [-o FILE] [FILE]",
		"",
		"  Draw the jobs of a grtrace recording in the terminal: a row per ring",
		"  over time ('-' queued: SUBMIT to START, or to COMMIT when the driver",
		"  reports no START; '#' executing: START to END; '=' in flight: COMMIT",
		"  to END without START; 'X' error), and with -c a row per thread of",
		"  its DRM ioctls ('i'), '^' where it submitted a job.  --latency shows",
		"  instead where the time of the jobs went, per ring and for the slowest",
		"  jobs.",
		"",
		"    -i/--input, -g/--gpu FILE|DIR: the recording; default: the FILE after the",
		"                         options, else " GR_DEFAULT_INPUT,
		"       --live: the live relay files instead (reading consumes them)",
		"       --session N: the Nth session of a file that holds several",
		"    -c/--cpu FILE: the output of grtrace-bpf-annotate",
		"    --clock-offset NS: added to every GPU time ([-]N[ns|us|ms|s])",
		"    -w/--width N: columns of the output (default: the terminal's, or 100)",
		"    --since T, --until T: the time window, from the session start",
		"                          (N[ns|us|ms|s]); with --latency, the jobs whose",
		"                          first event is in it, as report selects them",
		"    -l/--latency (--latency-only): latency phases instead of the timeline",
		"    -n/--topn N: with --latency, the N slowest jobs (default 10)",
		"    -o/--output FILE: write to FILE instead of stdout",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static int term_width(void)
{
	struct winsize ws;
	const char *s = getenv("COLUMNS");
	int w = s ? atoi(s) : 0;

	if (w > 0)
		return w;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return DEF_WIDTH;
}

static void timeline_parse_args(int argc, char *argv[], struct timeline_params *p)
{
	enum { OPT_OFFSET = 256, OPT_SINCE, OPT_UNTIL };
	static const struct option opts[] = {
		{ "input",		required_argument,	NULL, 'i' },
		{ "live",		no_argument,		NULL, GR_OPT_LIVE },
		{ "session",		required_argument,	NULL, GR_OPT_SESSION },
		{ "gpu",		required_argument,	NULL, 'g' },
		{ "cpu",		required_argument,	NULL, 'c' },
		{ "clock-offset",	required_argument,	NULL, OPT_OFFSET },
		{ "width",		required_argument,	NULL, 'w' },
		{ "since",		required_argument,	NULL, OPT_SINCE },
		{ "until",		required_argument,	NULL, OPT_UNTIL },
		{ "latency",		no_argument,		NULL, 'l' },
		{ "latency-only",	no_argument,		NULL, 'l' },
		{ "topn",		required_argument,	NULL, 'n' },
		{ "top",		required_argument,	NULL, 'n' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "debug",		no_argument,		NULL, 'D' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	__u64 v;
	const char *err;
	bool live = false;
	int c;

	memset(p, 0, sizeof(*p));
	p->top = 10;
	while ((c = getopt_long(argc, argv, "i:g:c:w:ln:o:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
		case 'g':
			err = gr_set_input(&p->gpu, optarg);
			if (err)
				timeline_usage(err);
			break;
		case 'c':
			p->cpu = optarg;
			break;
		case OPT_OFFSET:
			if (gr_parse_offset(optarg, &p->offset))
				timeline_usage("invalid --clock-offset: [-]N[ns|us|ms|s]");
			break;
		case 'w':
			if (gr_parse_u64(optarg, &v) || v < MIN_WIDTH || v > MAX_WIDTH)
				timeline_usage("invalid --width: 60 to 1000 columns");
			p->width = v;
			break;
		case OPT_SINCE:
			if (gr_parse_ns(optarg, &p->since))
				timeline_usage("invalid --since: N[ns|us|ms|s], such as 1.5ms");
			p->have_since = true;
			break;
		case OPT_UNTIL:
			if (gr_parse_ns(optarg, &p->until))
				timeline_usage("invalid --until: N[ns|us|ms|s], such as 1.5ms");
			p->have_until = true;
			break;
		case 'l':
			p->latency = true;
			break;
		case 'n':
			if (gr_parse_u64(optarg, &v) || v > 100000)
				timeline_usage("invalid --topn: 0 to 100000");
			p->top = v;
			break;
		case 'o':
			p->output = optarg;
			break;
		case GR_OPT_LIVE:
			live = true;
			break;
		case GR_OPT_SESSION:
			p->session = gr_input_session(optarg);
			if (!p->session)
				timeline_usage("invalid --session: a number above 0");
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			timeline_usage(NULL);
			break;
		default:
			timeline_usage(gr_invalid_option(argv));
		}
	}
	p->gpu = gr_input_arg(p->gpu, live, argc, argv, &err);
	if (err)
		timeline_usage(err);
	if (p->have_since && p->have_until && p->until <= p->since)
		timeline_usage("--until must be after --since");
	if (!p->width)
		p->width = term_width();
	if (p->width < MIN_WIDTH)
		p->width = MIN_WIDTH;
	if (p->width > MAX_WIDTH)
		p->width = MAX_WIDTH;
}

/* ---- the timeline ---- */

static __u64 shifted(const struct gr_corr *in, __u64 ts)
{
	__s64 t = (__s64)ts + in->offset;

	return t < 0 ? 0 : t;
}

static int rank(char c)
{
	static const char order[] = { C_IDLE, C_QUEUE, C_FLIGHT, C_IOCTL, C_EXEC,
				      C_SUBMIT, C_ERROR };
	size_t i;

	for (i = 0; i < sizeof(order); i++)
		if (order[i] == c)
			return i;
	return -1;
}

/* Mark [a, b] on a row, keeping stronger marks */
static void paint(const struct view *v, char *row, __u64 a, __u64 b, char c)
{
	__u64 x, y;

	if (b < v->t0 || a > v->t1)
		return;
	if (a < v->t0)
		a = v->t0;
	if (b > v->t1)
		b = v->t1;
	x = (a - v->t0) / v->per_col;
	y = (b - v->t0) / v->per_col;
	if (y >= (__u64)v->cols)
		y = v->cols - 1;
	for (; x <= y; x++)
		if (rank(row[x]) < rank(c))
			row[x] = c;
}

static void put_row(FILE *f, const char *label, const char *row)
{
	fprintf(f, "%-*.*s |%s|\n", LABEL_W, LABEL_W, label, row);
}

static void fmt_span(__u64 ns, char *buf, size_t len)
{
	if (ns >= 10 * NSEC_PER_SEC)
		snprintf(buf, len, "%.1fs", ns / 1e9);
	else if (ns >= 10000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (ns >= 10000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

static void ruler(FILE *f, const struct view *v)
{
	char *lab = gr_zalloc(v->cols + 16), *tick = gr_zalloc(v->cols + 1), buf[32];
	int c, n;

	memset(lab, ' ', v->cols + 15);
	memset(tick, '-', v->cols);
	for (c = 0; c < v->cols; c += TICK_EVERY) {
		tick[c] = '+';
		fmt_span((__u64)c * v->per_col, buf, sizeof(buf));
		n = strlen(buf);
		if (c + n <= v->cols + 1)
			memcpy(lab + c, buf, n);
	}
	lab[v->cols + 15] = '\0';
	for (n = v->cols + 14; n >= 0 && lab[n] == ' '; n--)
		lab[n] = '\0';
	fprintf(f, "%-*s  %s\n", LABEL_W, "time from left edge", lab);
	fprintf(f, "%-*s |%s|\n", LABEL_W, "", tick);
	free(lab);
	free(tick);
}

static void job_row(const struct gr_corr *in, const struct view *v, const struct gr_job *j,
		    char *row)
{
	__u64 sub = shifted(in, j->ts[GRTRACE_EV_SUBMIT]);
	__u64 com = shifted(in, j->ts[GRTRACE_EV_COMMIT]);
	__u64 start = shifted(in, j->ts[GRTRACE_EV_START]);
	__u64 end = shifted(in, j->ts[GRTRACE_EV_END]);
	bool s = gr_job_seen(j, GRTRACE_EV_SUBMIT), c = gr_job_seen(j, GRTRACE_EV_COMMIT);
	bool st = gr_job_seen(j, GRTRACE_EV_START), e = gr_job_seen(j, GRTRACE_EV_END);

	if (s)
		paint(v, row, sub, st ? start : c ? com : sub, C_QUEUE);
	if (st)
		paint(v, row, start, e ? end : start, C_EXEC);
	else if (c)
		paint(v, row, com, e ? end : com, C_FLIGHT);
}

/* What the marks mean, as many per line as the width takes */
static void legend(FILE *f, int width, bool cpu)
{
	static const char * const what[] = {
		"- queued: SUBMIT..START, or ..COMMIT without START",
		"# executing: START..END",
		"= in flight: COMMIT..END, no START",
		"X error",
		"i in an ioctl (DRM, NVIDIA)",
		"^ SUBMIT of a job",
	};
	size_t i, n = cpu ? ARRAY_SIZE(what) : ARRAY_SIZE(what) - 2;
	int col = 0, len;

	fputc('\n', f);
	for (i = 0; i < n; i++) {
		len = strlen(what[i]);
		if (col && col + 3 + len > width) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s%s", col ? "   " : "  ", what[i]);
	}
	fputc('\n', f);
}

/*
 * The jobs (or ERROR events) of each ring, in their order: those of ring
 * r are idx[at[r]] to idx[at[r + 1] - 1].  One pass over them all, not one
 * per ring: an input may describe tens of thousands of rings.
 */
struct per_ring {
	size_t *at, *idx;
};

static __u32 job_ring(const struct gr_corr *in, size_t k)
{
	return in->jobs.job[k].ring_id;
}

static __u32 error_ring(const struct gr_corr *in, size_t i)
{
	return in->t.ev[i].type == GRTRACE_EV_ERROR ? in->t.ev[i].job.ring_id : (__u32)-1;
}

static void per_ring(const struct gr_corr *in, struct per_ring *pr, size_t n,
		     __u32 (*ring_of)(const struct gr_corr *, size_t))
{
	__u32 nr = in->t.nr_rings, r;
	size_t i;

	/* Counted at r + 2, summed, then placed at r + 1: at[r] starts r */
	pr->at = gr_zalloc(((size_t)nr + 2) * sizeof(*pr->at));
	for (i = 0; i < n; i++) {
		r = ring_of(in, i);
		if (r < nr)
			pr->at[r + 2]++;
	}
	for (i = 2; i < (size_t)nr + 2; i++)
		pr->at[i] += pr->at[i - 1];
	pr->idx = gr_zalloc((pr->at[(size_t)nr + 1] + 1) * sizeof(*pr->idx));
	for (i = 0; i < n; i++) {
		r = ring_of(in, i);
		if (r < nr)
			pr->idx[pr->at[r + 1]++] = i;
	}
}

static void per_ring_free(struct per_ring *pr)
{
	free(pr->at);
	free(pr->idx);
}

static int draw_timeline(FILE *f, const struct gr_corr *in, const struct timeline_params *p)
{
	struct view v;
	char *row, label[80], buf[32], a[32], b[32];
	struct per_ring jobs, errors;
	size_t i, k, rows = 0;
	__u32 r, ri, *by_id;

	/* The job events, and the ioctls: not STREAM_INFO nor METADATA */
	v.t0 = ULLONG_MAX;
	v.t1 = 0;
	for (i = 0; i < in->t.nr_ev; i++) {
		if (in->t.ev[i].type >= GRTRACE_EV_NR)
			continue;
		if (shifted(in, in->t.ev[i].ts) < v.t0)
			v.t0 = shifted(in, in->t.ev[i].ts);
		if (shifted(in, in->t.ev[i].ts) > v.t1)
			v.t1 = shifted(in, in->t.ev[i].ts);
	}
	if (in->have_cpu && in->cpu.nr) {
		if (in->cpu.first_ts < v.t0)
			v.t0 = in->cpu.first_ts;
		if (in->cpu.last_ts > v.t1)
			v.t1 = in->cpu.last_ts;
	}
	if (p->have_since)
		v.t0 = shifted(in, in->t.start_ts + p->since);
	if (p->have_until)
		v.t1 = shifted(in, in->t.start_ts + p->until);
	/* An empty selection, as report's "(none)": no error */
	if (v.t0 == ULLONG_MAX || v.t1 <= v.t0) {
		fprintf(f, "(nothing to draw: no job event, or an empty time window)\n");
		return 0;
	}
	v.cols = p->width - LABEL_W - 3;
	v.per_col = (v.t1 - v.t0 + v.cols - 1) / v.cols;
	if (!v.per_col)
		v.per_col = 1;
	row = gr_zalloc(v.cols + 1);

	fmt_span(v.t1 - v.t0, buf, sizeof(buf));
	fmt_span(v.per_col, label, sizeof(label));
	/* Every line fits the narrowest width, 60 columns */
	fprintf(f, "grtrace timeline: %s .. %s s\n  times from the session start\n"
		"  %s, %d columns of %s\n",
		gr_ts(in, v.t0, a, sizeof(a)), gr_ts(in, v.t1, b, sizeof(b)), buf, v.cols, label);
	ruler(f, &v);

	by_id = gr_rings_by_id(&in->t);
	per_ring(in, &jobs, in->jobs.nr, job_ring);
	per_ring(in, &errors, in->t.nr_ev, error_ring);
	for (ri = 0; ri < in->t.nr_rings; ri++) {
		r = by_id[ri];
		if (!in->t.rings[r].used)
			continue;
		memset(row, C_IDLE, v.cols);
		for (k = jobs.at[r]; k < jobs.at[r + 1]; k++)
			job_row(in, &v, &in->jobs.job[jobs.idx[k]], row);
		for (k = errors.at[r]; k < errors.at[r + 1]; k++) {
			__u64 ts = shifted(in, in->t.ev[errors.idx[k]].ts);

			paint(&v, row, ts, ts, C_ERROR);
		}
		gr_ring_label(&in->t, r, label, sizeof(label));
		put_row(f, label, row);
		rows++;
		gr_debug_msg("ring %u: %zu jobs\n", in->t.rings[r].id, jobs.at[r + 1] - jobs.at[r]);
	}
	per_ring_free(&jobs);
	per_ring_free(&errors);
	free(by_id);
	if (!rows)
		fprintf(f, "(no ring has events)\n");

	/* A row per thread of the annotation */
	for (i = 0; in->have_cpu && i < in->cpu.nr; ) {
		const struct gr_ioctl *io = &in->cpu.io[i];
		bool shown = false;

		memset(row, C_IDLE, v.cols);
		for (; i < in->cpu.nr && in->cpu.io[i].tid == io->tid; i++) {
			const struct gr_ioctl *x = &in->cpu.io[i];

			if (x->enter <= v.t1 && (x->have_exit ? x->exit : x->enter) >= v.t0)
				shown = true;
			paint(&v, row, x->enter, x->have_exit ? x->exit : x->enter, C_IOCTL);
		}
		for (k = 0; k < in->jobs.nr; k++) {
			const struct gr_match *m = &in->m[k];

			if (m->io >= 0 && in->cpu.io[m->io].tid == io->tid) {
				/* Matched at COMMIT: a job without a SUBMIT */
				__u64 t = shifted(in, in->jobs.job[k].ts[m->queued ?
							GRTRACE_EV_COMMIT : GRTRACE_EV_SUBMIT]);

				paint(&v, row, t, t, C_SUBMIT);
			}
		}
		if (!shown)
			continue;
		snprintf(label, sizeof(label), "%s/%u", io->comm[0] ? io->comm : "?", io->tid);
		put_row(f, label, row);
	}
	legend(f, p->width, in->have_cpu);
	free(row);
	return 0;
}

/* ---- latency ---- */

enum { PH_IOCTL, PH_QUEUE, PH_EXEC, PH_DONE, PH_NR };

static const char ph_mark[PH_NR] = { C_IOCTL, C_QUEUE, C_EXEC, 'c' };
static const char * const ph_names[PH_NR] = {
	"ioctl->submit", "submit->start", "start->end", "end->complete",
};

/*
 * The phases of job @k, from report's split of its latency
 * (gr_job_phase()): a missing COMMIT is taken at SUBMIT, a missing END at
 * COMPLETE, so that the three after the ioctl add up to the latency that
 * report gives the job.  Returns the bits of those known.
 */
static unsigned int phases(const struct gr_corr *in, size_t k, __s64 *ph)
{
	const struct gr_job *j = &in->jobs.job[k];
	const struct gr_match *m = &in->m[k];
	bool start = gr_job_seen(j, GRTRACE_EV_START);
	unsigned int ok = 0;
	__s64 host, queue;

	memset(ph, 0, PH_NR * sizeof(*ph));
	if (m->io >= 0 && (m->valid & BIT(GR_GAP_IOCTL))) {
		ph[PH_IOCTL] = m->gap[GR_GAP_IOCTL];
		ok |= BIT(PH_IOCTL);
	}
	/* SUBMIT to START, or to COMMIT without START */
	if (gr_job_metric(j, GR_M_HOST, &host) &&
	    (!start || gr_job_metric(j, GR_M_QUEUE, &queue))) {
		ph[PH_QUEUE] = start ? host + queue : host;
		ok |= BIT(PH_QUEUE);
	}
	/* START, or COMMIT without START, to END */
	if (gr_job_metric(j, start ? GR_M_EXEC : GR_M_DEVICE, &ph[PH_EXEC]))
		ok |= BIT(PH_EXEC);
	if (gr_job_metric(j, GR_M_COMPLETE, &ph[PH_DONE]))
		ok |= BIT(PH_DONE);
	return ok;
}

/* Whether job @k is in the window of --since and --until, as in report */
static bool in_window(const struct gr_corr *in, size_t k, const struct timeline_params *p)
{
	long long rel = (long long)(in->jobs.job[k].first_ts - in->t.start_ts);

	return (!p->have_since || rel >= p->since) && (!p->have_until || rel <= p->until);
}

static __s64 total(const __s64 *ph, unsigned int ok)
{
	__s64 t = 0;
	int i;

	for (i = 0; i < PH_NR; i++)
		if (ok & BIT(i) && ph[i] > 0)
			t += ph[i];
	return t;
}

/*
 * A bar of @w columns: @total of @scale fills it in proportion, every phase
 * known and above zero gets a column at least, the rest in proportion.
 */
static void bar(FILE *f, const __s64 *ph, unsigned int ok, __s64 scale, int w)
{
	__s64 sum = 0, cum = 0;
	int i, j, k = 0, len, used = 0, end;

	for (i = 0; i < PH_NR; i++) {
		if (ok & BIT(i) && ph[i] > 0) {
			sum += ph[i];
			k++;
		}
	}
	len = scale > 0 ? (int)((double)sum * w / scale + 0.5) : 0;
	if (len < k)
		len = k;
	if (len > w)
		len = w;
	fputc('|', f);
	for (i = 0, j = 0; i < PH_NR && k; i++) {
		if (!(ok & BIT(i)) || ph[i] <= 0)
			continue;
		cum += ph[i];
		/* a column each, the len - k others by the cumulative share */
		end = ++j + (int)((double)cum * (len - k) / sum + 0.5);
		for (; used < end; used++)
			fputc(ph_mark[i], f);
	}
	for (; used < w; used++)
		fputc(' ', f);
	fputc('|', f);
}

struct slow {
	__s64 total;
	size_t job;
};

static int cmp_slow(const void *a, const void *b)
{
	const struct slow *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* A row of the phase table: n, min, median, p99 and max, as report takes them */
static void stat_row(FILE *f, const char *name, struct gr_stat *s)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "  %-16s %8llu %12s %12s %12s %12s\n", name, (unsigned long long)s->n,
		gr_dur(s->min, a, sizeof(a)), gr_dur(gr_stat_pct(s, 50), b, sizeof(b)),
		gr_dur(gr_stat_pct(s, 99), c, sizeof(c)), gr_dur(s->max, d, sizeof(d)));
}

static void print_latency(FILE *f, const struct gr_corr *in, const struct timeline_params *p)
{
	__s64 ph[PH_NR], med[PH_NR], v;
	struct slow *sl = gr_zalloc((in->jobs.nr + 1) * sizeof(*sl));
	int w = p->width - LABEL_W - 40, i;
	size_t x, k, nsl = 0, nr = 0;
	struct gr_stat st = { 0 };	/* empty again after each gr_stat_free() */
	unsigned int ok, med_ok;
	char label[80], a[32];
	struct per_ring jobs;
	__s64 scale = 0;
	__u32 r, ri, *by_id;

	if (w < 10)
		w = 10;
	for (k = 0; k < in->jobs.nr; k++)
		nr += in_window(in, k, p);
	fprintf(f, "grtrace timeline --latency: %zu jobs; us; phases: %c %s, %c %s (or ->COMMIT),\n"
		"  %c %s (or COMMIT->END), %c %s; a missing COMMIT is taken at SUBMIT,\n"
		"  a missing END at COMPLETE, as in grtrace report\n", nr,
		ph_mark[0], ph_names[0], ph_mark[1], ph_names[1], ph_mark[2], ph_names[2],
		ph_mark[3], ph_names[3]);

	by_id = gr_rings_by_id(&in->t);
	per_ring(in, &jobs, in->jobs.nr, job_ring);
	for (ri = 0; ri < in->t.nr_rings; ri++) {
		r = by_id[ri];
		if (!in->t.rings[r].used)
			continue;
		gr_ring_label(&in->t, r, label, sizeof(label));
		fprintf(f, "\n%s\n  %-16s %8s %12s %12s %12s %12s\n", label, "phase", "n",
			"min", "median", "p99", "max");
		med_ok = 0;
		for (i = 0; i <= PH_NR; i++) {
			for (x = jobs.at[r]; x < jobs.at[r + 1]; x++) {
				k = jobs.idx[x];
				if (!in_window(in, k, p))
					continue;
				/* After the phases, their sum: report's LATENCY */
				if (i == PH_NR && gr_job_metric(&in->jobs.job[k], GR_M_LAT, &v))
					gr_stat_add(&st, v);
				else if (i < PH_NR && phases(in, k, ph) & BIT(i))
					gr_stat_add(&st, ph[i]);
			}
			if (!st.n)
				continue;
			stat_row(f, i < PH_NR ? ph_names[i] : "submit->complete", &st);
			if (i < PH_NR) {
				med[i] = gr_stat_pct(&st, 50);
				med_ok |= BIT(i);
			}
			gr_stat_free(&st);
		}
		if (med_ok) {
			fprintf(f, "  %-16s ", "medians");
			bar(f, med, med_ok, total(med, med_ok), w);
			fprintf(f, " %s\n", gr_dur(total(med, med_ok), a, sizeof(a)));
		}
	}

	for (k = 0; k < in->jobs.nr; k++) {
		ok = phases(in, k, ph);
		if (!ok || !in_window(in, k, p))
			continue;
		sl[nsl].total = total(ph, ok);
		sl[nsl++].job = k;
	}
	qsort(sl, nsl, sizeof(*sl), cmp_slow);
	if (nsl > (size_t)p->top)
		nsl = p->top;
	if (nsl) {
		scale = sl[0].total;
		fprintf(f, "\nthe %zu slowest jobs (sum of the phases)\n", nsl);
	}
	for (k = 0; k < nsl; k++) {
		const struct gr_job *j = &in->jobs.job[sl[k].job];
		char fence[48];

		const struct gr_ring *ring = gr_ring(&in->t, j->ring_id);

		ok = phases(in, sl[k].job, ph);
		if (ring->known)
			snprintf(label, sizeof(label), "%s", ring->name);
		else
			snprintf(label, sizeof(label), "ring%u", ring->id);
		snprintf(fence, sizeof(fence), "%llu:%llu", (unsigned long long)j->fctx,
			 (unsigned long long)j->fseq);
		fprintf(f, "  %-14s %-12.12s %-10.10s ", fence, label, j->comm[0] ? j->comm : "-");
		bar(f, ph, ok, scale, w > 10 ? w - 8 : w);
		fprintf(f, " %s\n", gr_dur(sl[k].total, a, sizeof(a)));
	}
	per_ring_free(&jobs);
	free(by_id);
	free(sl);
}

int gr_timeline_main(int argc, char *argv[])
{
	struct timeline_params p;
	struct gr_corr in;
	int ret = EXIT_FAILURE;
	FILE *f = NULL;

	timeline_parse_args(argc, argv, &p);
	if (gr_corr_load(&in, p.gpu, p.session, p.cpu, p.offset))
		goto out;
	f = gr_output_open(p.output);
	if (!f)
		goto out;
	if (p.latency)
		print_latency(f, &in, &p);
	else if (draw_timeline(f, &in, &p))
		goto out;
	ret = EXIT_SUCCESS;
out:
	if (f && gr_output_close(f, p.output))
		ret = EXIT_FAILURE;
	gr_corr_free(&in);
	return ret;
}

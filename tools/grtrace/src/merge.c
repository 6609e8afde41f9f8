// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace merge: the DRM ioctls printed by grtrace-bpf-annotate and a grtrace
 * recording on one timeline, every GPU job next to the ioctl that submitted
 * it, with the gaps ioctl -> SUBMIT -> START (or COMMIT) -> END.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "correlate.h"
#include "input.h"
#include "stat.h"
#include "utils.h"

struct merge_params {
	const char *gpu;
	const char *cpu;
	const char *output;
	__s64 offset;
	int session;		/* --session N; 0: the input's only one */
	enum gr_fmt fmt;
	bool stats_only;
	bool jobs_only;
};

/* One line of the merged timeline */
struct mline {
	__u64 ts;
	int order;		/* at equal times: ENTER, GPU, EXIT */
	size_t idx;		/* ioctl or event index */
	__u64 seq;
};

enum { ORD_ENTER, ORD_GPU, ORD_EXIT };

static void merge_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace merge [-h] [-D] -c CPU.txt [-i FILE|DIR | --live] [--session N]",
		"                       [--clock-offset NS] [--stats-only | -j] [-f text|csv] [-o FILE] [FILE]",
		"",
		"  Put the DRM ioctls printed by grtrace-bpf-annotate and a grtrace",
		"  recording on one timeline.  Every GPU job is matched with the ioctl",
		"  of its submitting thread whose [enter, exit] window holds its SUBMIT,",
		"  and shown with the gaps ioctl->submit, submit->start (COMMIT when",
		"  the driver reports no START) and start->end.  Lines of CPU.txt that",
		"  cannot be read are reported (file:line) and skipped.",
		"",
		"    -c/--cpu FILE: the output of grtrace-bpf-annotate, - for stdin",
		"    -i/--input, -g/--gpu FILE|DIR: the recording ('grtrace record'), or a",
		"                         directory of events<N>[.bin] files; default:",
		"                         the FILE after the options, else " GR_DEFAULT_INPUT,
		"       --live: the live relay files instead (reading consumes them)",
		"       --session N: the Nth session of a file that holds several",
		"    --clock-offset NS: added to every GPU time ([-]N[ns|us|ms|s]), when",
		"                       the two clocks differ; default 0",
		"       --stats-only: only the counts and the gap statistics",
		"    -j/--jobs-only: the jobs and the statistics, no timeline",
		"    -f/--format text|csv: csv: one line per job, nothing else",
		"    -o/--output FILE: write to FILE instead of stdout",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void merge_parse_args(int argc, char *argv[], struct merge_params *p)
{
	enum { OPT_OFFSET = 256 };
	static const struct option opts[] = {
		{ "cpu",		required_argument,	NULL, 'c' },
		{ "input",		required_argument,	NULL, 'i' },
		{ "live",		no_argument,		NULL, GR_OPT_LIVE },
		{ "session",		required_argument,	NULL, GR_OPT_SESSION },
		{ "gpu",		required_argument,	NULL, 'g' },
		{ "clock-offset",	required_argument,	NULL, OPT_OFFSET },
		{ "stats-only",		no_argument,		NULL, 's' },
		{ "jobs-only",		no_argument,		NULL, 'j' },
		{ "format",		required_argument,	NULL, 'f' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "debug",		no_argument,		NULL, 'D' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *err;
	bool live = false;
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "c:i:g:jf:o:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			p->cpu = optarg;
			break;
		case 'i':
		case 'g':
			err = gr_set_input(&p->gpu, optarg);
			if (err)
				merge_usage(err);
			break;
		case OPT_OFFSET:
			if (gr_parse_offset(optarg, &p->offset))
				merge_usage("invalid --clock-offset: [-]N[ns|us|ms|s]");
			break;
		case 's':
			p->stats_only = true;
			break;
		case 'j':
			p->jobs_only = true;
			break;
		case 'f':
			if (gr_parse_format(optarg, &p->fmt) || p->fmt == GR_FMT_JSON)
				merge_usage("invalid --format: text or csv");
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
				merge_usage("invalid --session: a number above 0");
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			merge_usage(NULL);
			break;
		default:
			merge_usage(gr_invalid_option(argv));
		}
	}
	p->gpu = gr_input_arg(p->gpu, live, argc, argv, &err);
	if (err)
		merge_usage(err);
	if (!p->cpu)
		merge_usage("-c/--cpu FILE (the annotator's output) is required");
	if (!strcmp(p->cpu, "-") && p->gpu && !strcmp(p->gpu, "-"))
		merge_usage("-c - and -i -: only one input can be stdin");
	if (p->stats_only && (p->jobs_only || p->fmt == GR_FMT_CSV))
		merge_usage("--stats-only goes with neither --jobs-only nor --format csv");
}

/* ---- the timeline ---- */

static int cmp_mline(const void *a, const void *b)
{
	const struct mline *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->order != y->order)
		return x->order - y->order;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_ioctl_line(FILE *f, const struct gr_corr *in, const struct gr_ioctl *io,
			     bool exit)
{
	char ts[32], name[GR_DRV_LEN + GR_NAME_LEN];

	fprintf(f, "[%s] CPU %-16s %s pid=%u tid=%u cmd=0x%08llx %s",
		gr_ts(in, exit ? io->exit : io->enter, ts, sizeof(ts)),
		exit ? "IOCTL_EXIT" : "IOCTL_ENTER", io->comm[0] ? io->comm : "?",
		io->pid, io->tid, (unsigned long long)io->cmd,
		gr_ioctl_name(io, name, sizeof(name)));
	if (exit)
		fprintf(f, " ret=%lld duration_ns=%llu", (long long)io->ret,
			(unsigned long long)(io->exit - io->enter));
	else if (io->have_enter)
		fprintf(f, " arg=0x%llx", (unsigned long long)io->arg);
	else
		fprintf(f, " (entered before the annotation)");
	fputc('\n', f);
}

static int cmp_job_key(const struct gr_job *x, __u32 ring, __u64 fctx, __u64 fseq)
{
	if (x->ring_id != ring)
		return x->ring_id < ring ? -1 : 1;
	if (x->fctx != fctx)
		return x->fctx < fctx ? -1 : 1;
	return x->fseq < fseq ? -1 : x->fseq > fseq;
}

static int cmp_job_idx(const void *a, const void *b, void *arg)
{
	const struct gr_jobs *jobs = arg;
	const struct gr_job *y = &jobs->job[*(const size_t *)b];

	return cmp_job_key(&jobs->job[*(const size_t *)a], y->ring_id, y->fctx,
			   y->fseq);
}

/* The job of every stage event, in t.ev order; -1 for other events */
static long *event_jobs(const struct gr_corr *in)
{
	const struct gr_jobs *jobs = &in->jobs;
	long *of = gr_zalloc((in->t.nr_ev + 1) * sizeof(*of));
	size_t *idx = gr_zalloc((jobs->nr + 1) * sizeof(*idx));
	size_t i, k, lo, hi, mid;

	for (k = 0; k < jobs->nr; k++)
		idx[k] = k;
	qsort_r(idx, jobs->nr, sizeof(*idx), cmp_job_idx, (void *)jobs);
	for (i = 0; i < in->t.nr_ev; i++) {
		const struct gr_event *ev = &in->t.ev[i];
		const struct grtrace_job_payload *p = &ev->job;

		of[i] = -1;
		if (ev->type >= GR_STAGES)
			continue;
		lo = 0;
		hi = jobs->nr;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (cmp_job_key(&jobs->job[idx[mid]], p->ring_id, p->fence_context,
					p->fence_seqno) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < jobs->nr; k++) {
			const struct gr_job *j = &jobs->job[idx[k]];

			if (cmp_job_key(j, p->ring_id, p->fence_context, p->fence_seqno))
				break;

			if (gr_job_seen(j, ev->type) && j->ts[ev->type] == ev->ts) {
				of[i] = idx[k];
				break;
			}
		}
	}
	free(idx);
	return of;
}

static void print_gpu_line(FILE *f, const struct gr_corr *in, const struct gr_event *ev,
			   long job)
{
	const struct gr_match *m = job >= 0 ? &in->m[job] : NULL;
	const struct gr_job *j = job >= 0 ? &in->jobs.job[job] : NULL;
	char ts[32], ring[80], d[32];
	__s64 t = (__s64)ev->ts + in->offset;
	char type[24];
	size_t i;

	snprintf(type, sizeof(type), "%s", gr_type_name(ev->type));
	for (i = 0; type[i]; i++)
		type[i] = type[i] >= 'a' && type[i] <= 'z' ? type[i] - 32 : type[i];
	gr_ring_label(&in->t, ev->job.ring_id, ring, sizeof(ring));
	fprintf(f, "[%s] GPU %-16s %s", gr_ts(in, t, ts, sizeof(ts)), type, ring);
	if (ev->type != GRTRACE_EV_IRQ)
		fprintf(f, " job=%llu:%llu ctx=%llu",
			(unsigned long long)ev->job.fence_context,
			(unsigned long long)ev->job.fence_seqno,
			(unsigned long long)ev->job.ctx_id);
	switch (ev->type) {
	case GRTRACE_EV_SUBMIT:
		fprintf(f, " %s pid=%u tid=%u", ev->job.comm[0] ? ev->job.comm : "?",
			ev->job.tgid, ev->job.pid);
		if (m && m->io >= 0)
			fprintf(f, "  <- %s us after IOCTL_ENTER (line %u)",
				gr_dur(m->gap[GR_GAP_IOCTL], d, sizeof(d)),
				in->cpu.io[m->io].line);
		else if (m)
			fprintf(f, "  <- no ioctl: %s", gr_why_names[m->why]);
		break;
	case GRTRACE_EV_COMMIT:
		if (m && m->queued && m->io >= 0)
			fprintf(f, "  <- %s us after IOCTL_ENTER (line %u; no SUBMIT)",
				gr_dur(m->gap[GR_GAP_IOCTL], d, sizeof(d)),
				in->cpu.io[m->io].line);
		else if (m && m->queued)
			fprintf(f, "  <- no ioctl: %s", gr_why_names[m->why]);
		if (m && m->by_commit && (m->valid & BIT(GR_GAP_QUEUE)))
			fprintf(f, "  <- %s us after SUBMIT (no START)",
				gr_dur(m->gap[GR_GAP_QUEUE], d, sizeof(d)));
		break;
	case GRTRACE_EV_START:
		if (m && (m->valid & BIT(GR_GAP_QUEUE)))
			fprintf(f, "  <- %s us after SUBMIT",
				gr_dur(m->gap[GR_GAP_QUEUE], d, sizeof(d)));
		break;
	case GRTRACE_EV_END:
		if (m && (m->valid & BIT(GR_GAP_EXEC)))
			fprintf(f, "  <- %s us after %s",
				gr_dur(m->gap[GR_GAP_EXEC], d, sizeof(d)),
				m->by_commit ? "COMMIT" : "START");
		break;
	case GRTRACE_EV_COMPLETE:
		fprintf(f, " status=%d", ev->job.status);
		if (j && gr_job_seen(j, GRTRACE_EV_END))
			fprintf(f, "  <- %s us after END",
				gr_dur((__s64)(j->ts[GRTRACE_EV_COMPLETE] - j->ts[GRTRACE_EV_END]),
				       d, sizeof(d)));
		break;
	case GRTRACE_EV_CTX_SWITCH:
		fprintf(f, " to_ctx=%llu%s", (unsigned long long)ev->job.aux_context,
			ev->job.flags & GRTRACE_JOB_F_PREEMPT ? " preempt" : "");
		break;
	case GRTRACE_EV_SYNC_WAIT_ENTER:
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		fprintf(f, " on=%llu:%llu", (unsigned long long)ev->job.aux_context,
			(unsigned long long)ev->job.aux_seqno);
		break;
	case GRTRACE_EV_ERROR:
		fprintf(f, " code=%d", ev->job.status);
		break;
	}
	fputc('\n', f);
}

static void print_timeline(FILE *f, const struct gr_corr *in)
{
	size_t n = 0, i;
	char start[32];
	struct mline *ml;
	long *of;

	ml = gr_zalloc((2 * in->cpu.nr + in->t.nr_ev + 1) * sizeof(*ml));
	for (i = 0; i < in->cpu.nr; i++) {
		const struct gr_ioctl *io = &in->cpu.io[i];

		ml[n++] = (struct mline){ io->enter, ORD_ENTER, i, i };
		if (io->have_exit)
			ml[n++] = (struct mline){ io->exit, ORD_EXIT, i, i };
	}
	for (i = 0; i < in->t.nr_ev; i++) {
		const struct gr_event *ev = &in->t.ev[i];
		__s64 t = (__s64)ev->ts + in->offset;

		if (ev->type >= GRTRACE_EV_NR)
			continue;
		ml[n++] = (struct mline){ t < 0 ? 0 : t, ORD_GPU, i, ev->gseq };
	}
	qsort(ml, n, sizeof(*ml), cmp_mline);
	of = event_jobs(in);

	fprintf(f,
		"# merged timeline: [seconds from the session start, %s s of the CPU trace's clock] CPU (ioctls) and GPU (grtrace) events\n",
		gr_secs(gr_origin(in), start, sizeof(start)));
	for (i = 0; i < n; i++) {
		if (ml[i].order == ORD_GPU)
			print_gpu_line(f, in, &in->t.ev[ml[i].idx], of[ml[i].idx]);
		else
			print_ioctl_line(f, in, &in->cpu.io[ml[i].idx], ml[i].order == ORD_EXIT);
	}
	fputc('\n', f);
	free(of);
	free(ml);
}

/* ---- jobs ---- */

static void gap_cell(FILE *f, const struct gr_match *m, int gap, bool mark)
{
	char d[32];

	if (!(m->valid & BIT(gap))) {
		fprintf(f, " %13s", "-");
		return;
	}
	gr_dur(m->gap[gap], d, sizeof(d));
	if (mark && m->by_commit)
		strcat(d, "*");
	fprintf(f, " %13s", d);
}

static void job_labels(const struct gr_corr *in, size_t k, char *ring, size_t rlen,
		       char *who, size_t wlen)
{
	const struct gr_job *j = &in->jobs.job[k];

	gr_ring_label(&in->t, j->ring_id, ring, rlen);
	if (j->pid)
		snprintf(who, wlen, "%s/%u", j->comm[0] ? j->comm : "?", j->pid);
	else
		snprintf(who, wlen, "-");
}

static void print_jobs_text(FILE *f, const struct gr_corr *in)
{
	char ring[80], fence[48], who[48], name[GR_DRV_LEN + GR_NAME_LEN], ts[32];
	int wr = 4, ww = 9, wf = 3;
	size_t k;

	for (k = 0; k < in->jobs.nr; k++) {
		const struct gr_job *j = &in->jobs.job[k];

		job_labels(in, k, ring, sizeof(ring), who, sizeof(who));
		snprintf(fence, sizeof(fence), "%llu:%llu", (unsigned long long)j->fctx,
			 (unsigned long long)j->fseq);
		wr = (int)strlen(ring) > wr ? (int)strlen(ring) : wr;
		ww = (int)strlen(who) > ww ? (int)strlen(who) : ww;
		wf = (int)strlen(fence) > wf ? (int)strlen(fence) : wf;
	}
	fprintf(f, "# jobs and the ioctls that submitted them; %s\n",
		"gaps in us, * = COMMIT (no START)");
	fprintf(f, "%-*s %-*s %-*s %-22s %-20s %13s %13s %13s %13s\n", wf, "job", wr, "ring",
		ww, "submitter", "ioctl", "ioctl_enter", "ioctl->submit", "submit->start",
		"start->end", "->ioctl_exit");
	for (k = 0; k < in->jobs.nr; k++) {
		const struct gr_job *j = &in->jobs.job[k];
		const struct gr_match *m = &in->m[k];

		snprintf(fence, sizeof(fence), "%llu:%llu", (unsigned long long)j->fctx,
			 (unsigned long long)j->fseq);
		job_labels(in, k, ring, sizeof(ring), who, sizeof(who));
		fprintf(f, "%-*s %-*s %-*s ", wf, fence, wr, ring, ww, who);
		if (m->io >= 0) {
			const struct gr_ioctl *io = &in->cpu.io[m->io];

			fprintf(f, "%-22s %-20s", gr_ioctl_name(io, name, sizeof(name)),
				gr_ts(in, io->enter, ts, sizeof(ts)));
		} else {
			fprintf(f, "%-22s %-20s", "-", "-");
		}
		gap_cell(f, m, GR_GAP_IOCTL, false);
		gap_cell(f, m, GR_GAP_QUEUE, true);
		gap_cell(f, m, GR_GAP_EXEC, true);
		gap_cell(f, m, GR_GAP_RETURN, false);
		if (m->io < 0)
			fprintf(f, "  (%s)", gr_why_names[m->why]);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void csv_gap(FILE *f, const struct gr_match *m, int gap)
{
	if (m->valid & BIT(gap))
		fprintf(f, ",%lld", (long long)m->gap[gap]);
	else
		fputc(',', f);
}

static void print_jobs_csv(FILE *f, const struct gr_corr *in)
{
	static const char * const cols[] = {
		"fence", "ring", "ctx", "pid", "tgid", "comm", "submit_ns", "matched",
		"why", "ioctl_line", "ioctl_cmd", "ioctl_name", "ioctl_enter_ns",
		"ioctl_exit_ns", "ioctl_ret", "start_is_commit", "ioctl_to_submit_ns",
		"submit_to_start_ns", "start_to_end_ns", "submit_to_ioctl_exit_ns",
	};
	char ring[80], name[GR_DRV_LEN + GR_NAME_LEN];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(cols); k++)
		fprintf(f, "%s%s", k ? "," : "", cols[k]);
	fputc('\n', f);
	for (k = 0; k < in->jobs.nr; k++) {
		const struct gr_job *j = &in->jobs.job[k];
		const struct gr_match *m = &in->m[k];

		gr_ring_label(&in->t, j->ring_id, ring, sizeof(ring));
		fprintf(f, "%llu:%llu,", (unsigned long long)j->fctx,
			(unsigned long long)j->fseq);
		gr_csv_str(f, ring);
		fprintf(f, ",%llu,%u,%u,", (unsigned long long)j->ctx_id, j->pid, j->tgid);
		gr_csv_str(f, j->comm);
		if (gr_job_seen(j, GRTRACE_EV_SUBMIT))
			fprintf(f, ",%llu",
				(unsigned long long)gr_corr_job_ts(in, j, GRTRACE_EV_SUBMIT));
		else
			fputc(',', f);
		fprintf(f, ",%d,", m->io >= 0);
		gr_csv_str(f, gr_why_names[m->why]);
		if (m->io >= 0) {
			const struct gr_ioctl *io = &in->cpu.io[m->io];

			fprintf(f, ",%u,0x%08llx,%s,%llu,", io->line, (unsigned long long)io->cmd,
				gr_ioctl_name(io, name, sizeof(name)),
				(unsigned long long)io->enter);
			if (io->have_exit)
				fprintf(f, "%llu,%lld", (unsigned long long)io->exit,
					(long long)io->ret);
			else
				fputc(',', f);
		} else {
			fprintf(f, ",,,,,,");
		}
		fprintf(f, ",%d", m->by_commit);
		csv_gap(f, m, GR_GAP_IOCTL);
		csv_gap(f, m, GR_GAP_QUEUE);
		csv_gap(f, m, GR_GAP_EXEC);
		csv_gap(f, m, GR_GAP_RETURN);
		fputc('\n', f);
	}
}

/* ---- statistics ---- */

static void print_stats(FILE *f, const struct gr_corr *in, const struct merge_params *p)
{
	const struct gr_cpu *c = &in->cpu;
	size_t matched = in->nr_why[GR_MATCHED], k, threads = 0, submitting = 0;
	char a[32], b[32], d[32], e[32];
	struct gr_stat st = { 0 };
	bool first = true;
	int g, w;

	for (k = 0; k < c->nr; k++) {
		if (!k || c->io[k].tid != c->io[k - 1].tid)
			threads++;
		submitting += c->io[k].jobs > 0;
	}
	fprintf(f, "grtrace merge: %s (%zu ioctls of %zu thread%s) + ", p->cpu, c->nr,
		threads, threads == 1 ? "" : "s");
	fprintf(f, "%s (%zu jobs, %zu events), clock offset %lld ns\n", in->t.input,
		in->jobs.nr, in->t.nr_ev, (long long)in->offset);
	fprintf(f, "jobs: %zu, matched to an ioctl: %zu, not matched: %zu",
		in->jobs.nr, matched, in->jobs.nr - matched);
	for (w = GR_MATCHED + 1; w < GR_WHY_NR; w++) {
		if (!in->nr_why[w])
			continue;
		fprintf(f, "%s%s: %zu", first ? " (" : ", ", gr_why_names[w], in->nr_why[w]);
		first = false;
	}
	fprintf(f, "%s\n", first ? "" : ")");
	fprintf(f, "ioctls: %zu, that submitted jobs: %zu, without EXIT: %zu, ", c->nr,
		submitting, c->no_exit);
	fprintf(f, "without ENTER: %zu; lines skipped: %zu\n", c->no_enter, c->bad);

	fprintf(f, "%-20s %8s %13s %13s %13s %13s  (us, matched jobs)\n", "gap", "n", "min",
		"median", "avg", "max");
	for (g = 0; g < GR_GAP_NR; g++) {
		for (k = 0; k < in->jobs.nr; k++) {
			if (in->m[k].io >= 0 && (in->m[k].valid & BIT(g)))
				gr_stat_add(&st, in->m[k].gap[g]);
		}
		if (!st.n) {
			fprintf(f, "%-20s %8d %13s %13s %13s %13s\n", gr_gap_names[g], 0,
				"-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-20s %8llu %13s %13s %13s %13s\n", gr_gap_names[g],
			(unsigned long long)st.n, gr_dur(st.min, a, sizeof(a)),
			gr_dur(gr_stat_pct(&st, 50), b, sizeof(b)),
			gr_dur(gr_stat_avg(&st), d, sizeof(d)), gr_dur(st.max, e, sizeof(e)));
		gr_stat_free(&st);
	}
}

int gr_merge_main(int argc, char *argv[])
{
	struct merge_params p;
	struct gr_corr in;
	int ret = EXIT_FAILURE;
	FILE *f = NULL;

	merge_parse_args(argc, argv, &p);
	if (gr_corr_load(&in, p.gpu, p.session, p.cpu, p.offset))
		goto out;
	f = gr_output_open(p.output);
	if (!f)
		goto out;
	if (p.fmt == GR_FMT_CSV) {
		print_jobs_csv(f, &in);
	} else {
		if (!p.stats_only && !p.jobs_only)
			print_timeline(f, &in);
		if (!p.stats_only)
			print_jobs_text(f, &in);
		print_stats(f, &in, &p);
	}
	ret = EXIT_SUCCESS;
out:
	if (f && gr_output_close(f, p.output))
		ret = EXIT_FAILURE;
	gr_corr_free(&in);
	return ret;
}

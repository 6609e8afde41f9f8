// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace dump: every record of a stream as one line of text.
 *
 * A line is the record type's name, then the header (cpu, ts, gseq, cseq)
 * and the payload fields as KEY=VALUE, so that grep, awk and a diff read
 * them.  Nothing is checked beyond what cuts a file into records (sizes):
 * a dump is for looking at streams the other commands refuse.  The files
 * of a directory are merged by gseq, each file being in gseq order, or
 * printed one after the other (--per-file).  A damaged file is printed up
 * to the damage, the problem named on stderr as the reader names it (file:
 * offset N: problem), and the exit status is 1.
 *
 * A trace-cmd recording or an ftrace instance holds ftrace events, not
 * records: dump prints the records the other commands make of them
 * (tracedat.c), a METADATA line per ring and then the job events in time
 * order, so that what a report counts can be seen event by event.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "input.h"
#include "source.h"
#include "stream.h"
#include "tracedat.h"
#include "utils.h"

struct dump_params {
	const char *input;
	bool per_file;
	bool raw;
	int session;		/* --session N, from 1; 0: every one */
};

/* A file of the input and its next record */
struct dump_file {
	struct gr_reader rd;
	const struct grtrace_record *rec;	/* NULL: no more */
	__u64 off;
	int session;		/* of its last STREAM_INFO, from 1 */
};

struct dumper {
	const struct dump_params *p;
	const char *events;	/* a trace.dat or "instance:NAME" */
	char **paths;
	int nr;
	struct dump_file *f;
	int *heap;		/* files with a record, by its gseq */
	int nr_heap;
	int err;
	__u64 records;		/* printed */
	FILE *out;
	__u64 *sids;		/* the session ids met, in the order of the files */
	int nr_sids;
};

static void dump_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace dump [-h] [-D] [-i FILE|DIR | --live] [--per-file] [--raw]",
		"                      [--session N] [FILE]",
		"",
		"  Print every record of a grtrace stream as one line: its type, cpu,",
		"  ts, gseq, cseq, then its payload fields as KEY=VALUE.  Records of",
		"  unknown type show their type number and size.  The contexts that",
		"  grtrace probe writes are \"context\" lines.  A damaged file is",
		"  printed up to the damage; the problem goes to stderr, the exit",
		"  status is 1.  Of a trace-cmd recording (trace.dat) or an ftrace",
		"  instance (instance:NAME), the records made of its events, as report",
		"  makes them: a METADATA line per ring, then the job events.",
		"",
		"    -i/--input FILE|DIR: a recorded file, or a directory of",
		"                         events<N>[.bin] files, merged by gseq;",
		"                         default: the FILE after the options, else",
		"                         " GR_DEFAULT_INPUT,
		"       --live: the live relay files instead (reading consumes them)",
		"    --per-file: the files of a directory one after the other",
		"    --raw: also each record's file, byte offset and size",
		"       --session N: only the records of the Nth session of an input",
		"                         holding several (recordings end to end)",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void dump_parse_args(int argc, char *argv[], struct dump_params *p)
{
	enum { OPT_PER_FILE = 256, OPT_RAW };
	static const struct option opts[] = {
		{ "input",	required_argument,	NULL, 'i' },
		{ "live",	no_argument,		NULL, GR_OPT_LIVE },
		{ "per-file",	no_argument,		NULL, OPT_PER_FILE },
		{ "raw",	no_argument,		NULL, OPT_RAW },
		{ "session",	required_argument,	NULL, GR_OPT_SESSION },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *err;
	bool live = false;
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "i:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			err = gr_set_input(&p->input, optarg);
			if (err)
				dump_usage(err);
			break;
		case OPT_PER_FILE:
			p->per_file = true;
			break;
		case OPT_RAW:
			p->raw = true;
			break;
		case GR_OPT_SESSION:
			p->session = gr_input_session(optarg);
			if (!p->session)
				dump_usage("invalid --session: a number from 1");
			break;
		case GR_OPT_LIVE:
			live = true;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			dump_usage(NULL);
			break;
		default:
			dump_usage(gr_invalid_option(argv));
		}
	}
	p->input = gr_input_arg(p->input, live, argc, argv, &err);
	if (err)
		dump_usage(err);
}

/* ---- the files ---- */

static int count(char **list)
{
	int n = 0;

	while (list[n])
		n++;
	return n;
}

static int list_dir(struct dumper *d, const char *dir)
{
	d->paths = gr_input_list_events(dir);
	if (!d->paths) {
		gr_err_msg("%s: %s\n", dir, strerror(errno));
		return -1;
	}
	d->nr = count(d->paths);
	if (!d->nr)
		gr_err_msg("%s: no events<N> or events<N>.bin files in this directory\n", dir);
	return d->nr ? 0 : -1;
}

/* The files of the input: a file, the files of a directory, the live ones */
static int find_files(struct dumper *d, const char *path)
{
	const char *dir;
	struct stat st;

	if (!path) {
		if (gr_kernel_check())
			return -1;
		dir = gr_kernel_dir();
		d->paths = gr_kernel_relay_files();
		if (!d->paths) {
			gr_err_msg("%s: %s\n", dir, strerror(errno));
			return -1;
		}
		d->nr = count(d->paths);
		if (!d->nr)
			gr_err_msg("%s: no relay files: no session was started yet\n", dir);
		return d->nr ? 0 : -1;
	}
	if (!strncmp(path, GR_INSTANCE_PREFIX, strlen(GR_INSTANCE_PREFIX))) {
		d->events = path;
		return 0;
	}
	path = gr_input_stat(path, &st);
	if (!path)
		return -1;
	if (S_ISDIR(st.st_mode))
		return list_dir(d, path);
	if (gr_is_tracedat(path)) {
		d->events = path;
		return 0;
	}
	d->paths = gr_zalloc(2 * sizeof(*d->paths));
	d->paths[0] = gr_strdup(path);
	d->nr = 1;
	return 0;
}

/* ---- printing ---- */

/*
 * @s, of at most @len bytes, as one word: up to a NUL, \xNN for a space,
 * a backslash or a byte that does not print
 */
static void put_str(FILE *f, const char *s, size_t len)
{
	char buf[256], *b = buf;
	size_t i;

	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (b > buf + sizeof(buf) - 5) {
			fwrite(buf, 1, b - buf, f);
			b = buf;
		}
		if (c > ' ' && c < 0x7f && c != '\\')
			*b++ = c;
		else
			b += sprintf(b, "\\x%02x", c);
	}
	fwrite(buf, 1, b - buf, f);
}

static void put_engine(FILE *f, unsigned int engine)
{
	if (engine < GRTRACE_ENGINE_NR)
		fprintf(f, " engine=%s", gr_engine_name(engine));
	else
		fprintf(f, " engine=%u", engine);
}

/*
 * Copy a payload into a known struct, zero filled.  Returns: the payload
 * length if it is not the known one (another format version), else 0.
 */
static size_t take(void *dst, size_t known, const struct grtrace_record *rec)
{
	size_t len = rec->size - GR_REC_MIN;

	memset(dst, 0, known);
	memcpy(dst, rec + 1, len < known ? len : known);
	return len == known ? 0 : len;
}

static size_t put_job(FILE *f, const struct grtrace_record *rec)
{
	struct grtrace_job_payload j;
	size_t len = take(&j, sizeof(j), rec);

	fprintf(f, " ring=%u fence=%llu:%llu ctx=%llu", j.ring_id,
		(unsigned long long)j.fence_context, (unsigned long long)j.fence_seqno,
		(unsigned long long)j.ctx_id);
	put_engine(f, j.engine);
	fprintf(f, " flags=0x%x status=%d aux=%llu:%llu depth=%u pid=%u tgid=%u comm=",
		j.flags, j.status, (unsigned long long)j.aux_context,
		(unsigned long long)j.aux_seqno, j.depth, j.pid, j.tgid);
	put_str(f, j.comm, sizeof(j.comm));
	fprintf(f, " client_id=%llu", (unsigned long long)j.client_id);
	return len;
}

/*
 * A STREAM_INFO is printed as it is; one the other readers refuse is said
 * on stderr where it is met, and fails the dump once every record is out.
 */
static size_t put_info(struct dumper *d, FILE *f, const char *path,
		       const struct grtrace_record *rec, __u64 off)
{
	struct grtrace_stream_info si;
	size_t len = take(&si, sizeof(si), rec);
	char where[4200];

	snprintf(where, sizeof(where), "%s: offset %llu", path, (unsigned long long)off);
	if (gr_info_check(&si, where))
		d->err = -1;

	fprintf(f, " magic=0x%08x version=%u record_size=%u session=%016llx features=0x%llx",
		si.magic, si.version, si.record_size, (unsigned long long)si.session_id,
		(unsigned long long)si.features);
	fprintf(f, " start_ts=%llu start_realtime=%llu clock=%u nr_cpus=%u nr_rings=%u",
		(unsigned long long)si.start_ts, (unsigned long long)si.start_realtime,
		si.clock_id, si.nr_cpus, si.nr_rings);
	fprintf(f, " buffer_size=%u", si.buffer_size);
	return len;
}

static size_t put_ring(FILE *f, const struct grtrace_record *rec)
{
	struct grtrace_ring_info ri;
	size_t len = take(&ri, sizeof(ri), rec);

	fprintf(f, " ring=%u", ri.ring_id);
	put_engine(f, ri.engine);
	if (ri.flags & GRTRACE_RING_F_DEV_CUT)
		fputs(" dev_cut", f);
	if (ri.flags & GRTRACE_RING_F_NAME_CUT)
		fputs(" name_cut", f);
	fputs(" dev=", f);
	put_str(f, ri.dev, sizeof(ri.dev));
	fputs(" name=", f);
	put_str(f, ri.name, sizeof(ri.name));
	return len;
}

static size_t put_summary(FILE *f, const struct grtrace_record *rec)
{
	static const char * const drops[GRTRACE_SUMMARY_DROPS] = {
		[GRTRACE_SUMMARY_DROP_FILTERED]		= "filtered",
		[GRTRACE_SUMMARY_DROP_OVERRUN]		= "overrun",
		[GRTRACE_SUMMARY_DROP_SAMPLED]		= "sampled",
		[GRTRACE_SUMMARY_DROP_BACKPRESSURE]	= "backpressure",
		[GRTRACE_SUMMARY_DROP_RATE_LIMITED]	= "rate_limited",
		[GRTRACE_SUMMARY_DROP_UNTRACKED]	= "untracked",
		[GRTRACE_SUMMARY_DROP_AGGREGATED]	= "aggregated",
		[GRTRACE_SUMMARY_DROP_FROZEN]		= "frozen",
	};
	struct grtrace_summary s;
	size_t len = take(&s, sizeof(s), rec);
	int i;

	fprintf(f, " ring=%u window_start=%llu window_ns=%llu events=%llu jobs=%llu",
		s.ring_id, (unsigned long long)s.window_start,
		(unsigned long long)s.window_ns, (unsigned long long)s.events,
		(unsigned long long)s.jobs);
	fprintf(f, " lat_sum=%llu lat_min=%llu lat_max=%llu",
		(unsigned long long)s.lat_sum, (unsigned long long)s.lat_min,
		(unsigned long long)s.lat_max);
	fprintf(f, " dev_jobs=%llu dev_sum=%llu dev_min=%llu dev_max=%llu",
		(unsigned long long)s.dev_jobs, (unsigned long long)s.dev_sum,
		(unsigned long long)s.dev_min, (unsigned long long)s.dev_max);
	fprintf(f, " depth_sum=%llu depth_n=%llu depth_peak=%llu errors=%llu",
		(unsigned long long)s.depth_sum, (unsigned long long)s.depth_n,
		(unsigned long long)s.depth_peak, (unsigned long long)s.errors);
	for (i = 0; i < GRTRACE_SUMMARY_DROPS; i++) {
		if (!s.dropped[i])
			continue;
		/* A cause newer than this tool: by its index. */
		if (drops[i])
			fprintf(f, " dropped_%s=", drops[i]);
		else
			fprintf(f, " dropped_%d=", i);
		fprintf(f, "%llu", (unsigned long long)s.dropped[i]);
	}
	fputs(" lat_hist=", f);
	for (i = 0; i < GRTRACE_SUMMARY_HIST; i++)
		fprintf(f, "%s%u", i ? "," : "", s.lat_hist[i]);
	return len;
}

/* A context's create, schedule or destroy, written by "grtrace probe" */
static size_t put_ctx(FILE *f, const struct grtrace_record *rec)
{
	struct gr_tool_ctx c;
	size_t len = take(&c, sizeof(c), rec);

	if (c.what < GR_CTX_NR)
		fprintf(f, " what=%s", gr_ctx_what_name(c.what));
	else
		fprintf(f, " what=%u", c.what);
	fprintf(f, " ctx=%llu ring=%u", (unsigned long long)c.ctx_id, c.ring_id);
	if (c.reserved)
		fprintf(f, " reserved=0x%x", c.reserved);
	fprintf(f, " pid=%u tgid=%u comm=", c.pid, c.tgid);
	put_str(f, c.comm, sizeof(c.comm));
	fputs(" attrs=", f);
	put_str(f, c.attrs, sizeof(c.attrs));
	return len;
}

/* A text record of "grtrace record" (kernel counters, config): its lines, as words */
static void put_stats(FILE *f, const struct grtrace_record *rec)
{
	const char *p = (const char *)(rec + 1);
	const char *end = p + rec->size - GR_REC_MIN;
	const char *nl = memchr(p, '\0', end - p);

	if (nl)
		end = nl;	/* the NUL padding */
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl > p) {
			fputc(' ', f);
			put_str(f, p, nl - p);
		}
		p = nl + 1;
	}
}

static void put_record(struct dumper *d, const char *path,
		       const struct grtrace_record *rec, __u64 off)
{
	bool stats = (rec->type == GR_TOOL_STATS || rec->type == GR_TOOL_CONFIG) &&
		     rec->cpu == GR_TOOL_CPU;
	bool known = rec->type < GRTRACE_EV_NR || stats || rec->type == GR_TOOL_CTX ||
		     (rec->type >= GRTRACE_EV_STREAM_INFO &&
		      rec->type <= GRTRACE_EV_SUMMARY);
	FILE *f = d->out;
	size_t len = 0;

	d->records++;
	fputs(known ? gr_type_name(rec->type) : "unknown", f);
	if (!known)
		fprintf(f, " type=0x%x", rec->type);
	if (d->p->raw)
		fprintf(f, " file=%s off=%llu", path, (unsigned long long)off);
	if (d->p->raw || !known)
		fprintf(f, " size=%u", rec->size);
	fprintf(f, " cpu=%u ts=%llu gseq=%llu cseq=%llu", rec->cpu,
		(unsigned long long)rec->ts, (unsigned long long)rec->gseq,
		(unsigned long long)rec->cseq);
	if (rec->type < GRTRACE_EV_NR)
		len = put_job(f, rec);
	else if (rec->type == GRTRACE_EV_STREAM_INFO)
		len = put_info(d, f, path, rec, off);
	else if (rec->type == GRTRACE_EV_METADATA || rec->type == GRTRACE_EV_RING_REMOVED)
		len = put_ring(f, rec);
	else if (rec->type == GRTRACE_EV_SUMMARY)
		len = put_summary(f, rec);
	else if (rec->type == GR_TOOL_CTX)
		len = put_ctx(f, rec);
	else if (stats)
		put_stats(f, rec);
	/* A payload of another format version: the fields read, and its length */
	if (len)
		fprintf(f, " payload=%zu", len);
	fputc('\n', f);
}

/* ---- reading ---- */

/*
 * The session of a STREAM_INFO @rec, numbered from 1 in the order met, as
 * the other readers number them; 0 if @rec is none.
 */
static int session_of(struct dumper *d, const struct grtrace_record *rec)
{
	const struct grtrace_stream_info *si = (const void *)(rec + 1);

	if (rec->type != GRTRACE_EV_STREAM_INFO ||
	    rec->size < GR_REC_MIN + offsetof(struct grtrace_stream_info, features))
		return 0;
	return gr_session_number(&d->sids, &d->nr_sids, si->session_id);
}

/*
 * The next record of file @i into d->f[i].rec, of the session asked if
 * any (records before a file's first STREAM_INFO are of the first); NULL
 * at its end or damage.  The merge's first advance() of each file, in
 * file order, reads up to the session asked, or to the end: the sessions
 * are numbered as the other readers number them, file after file, up to
 * the one asked for.
 */
static void advance(struct dumper *d, int i)
{
	struct dump_file *f = &d->f[i];
	int ret, k;

	while ((ret = gr_reader_next(&f->rd, &f->rec, &f->off)) > 0) {
		k = session_of(d, f->rec);
		if (k)
			f->session = k;
		if (!d->p->session || f->session == d->p->session)
			return;
	}
	f->rec = NULL;
	if (ret < 0 || gr_reader_finish(&f->rd))
		d->err = -1;
}

static bool before(const struct dumper *d, int a, int b)
{
	__u64 x = d->f[a].rec->gseq, y = d->f[b].rec->gseq;

	return x < y || (x == y && a < b);
}

static void sift_down(struct dumper *d, int k)
{
	int *h = d->heap, n = d->nr_heap, c, t;

	for (; (c = 2 * k + 1) < n; k = c) {
		if (c + 1 < n && before(d, h[c + 1], h[c]))
			c++;
		if (!before(d, h[c], h[k]))
			break;
		t = h[c];
		h[c] = h[k];
		h[k] = t;
	}
}

/* Every record of every file, by gseq: a k-way merge on a heap of files */
static void dump_merged(struct dumper *d)
{
	int i, k;

	d->heap = gr_zalloc(d->nr * sizeof(*d->heap));
	for (i = 0; i < d->nr; i++) {
		advance(d, i);
		if (d->f[i].rec)
			d->heap[d->nr_heap++] = i;
	}
	for (k = d->nr_heap / 2 - 1; k >= 0; k--)
		sift_down(d, k);
	while (d->nr_heap) {
		i = d->heap[0];
		put_record(d, d->paths[i], d->f[i].rec, d->f[i].off);
		advance(d, i);
		if (!d->f[i].rec)
			d->heap[0] = d->heap[--d->nr_heap];
		sift_down(d, 0);
	}
}

/* The records made of the events of d->events (see the top) */
static void dump_events(struct dumper *d)
{
	struct {
		struct grtrace_record h;
		union {
			struct grtrace_ring_info ring;
			struct grtrace_job_payload job;
		} u;
	} r;
	struct gr_trace t = { 0 };
	const struct gr_event *ev;
	__u32 k;

	t.session = d->p->session;
	if (gr_input_load(&t, d->events)) {
		d->err = -1;
		goto out;
	}
	for (k = 0; k < t.nr_rings; k++) {
		if (!t.rings[k].known)
			continue;
		memset(&r, 0, sizeof(r));
		r.h.type = GRTRACE_EV_METADATA;
		r.h.size = sizeof(r.h) + sizeof(r.u.ring);
		gr_ring_info(&t, k, &r.u.ring);
		put_record(d, d->events, &r.h, 0);
	}
	for (ev = t.ev; ev < t.ev + t.nr_ev; ev++) {
		if (ev->type >= GRTRACE_EV_NR)
			continue;
		memset(&r, 0, sizeof(r));
		r.h = (struct grtrace_record) {
			.type = ev->type, .size = sizeof(r.h) + sizeof(r.u.job), .cpu = ev->cpu,
			.ts = ev->ts, .gseq = ev->gseq, .cseq = ev->cseq,
		};
		r.u.job = ev->job;
		r.u.job.ring_id = gr_ring(&t, ev->job.ring_id)->id;
		put_record(d, d->events, &r.h, ev->off);
	}
out:
	gr_trace_free(&t);
}

static void dump_per_file(struct dumper *d)
{
	int i;

	for (i = 0; i < d->nr; i++)
		for (advance(d, i); d->f[i].rec; advance(d, i))
			put_record(d, d->paths[i], d->f[i].rec, d->f[i].off);
}

int gr_dump_main(int argc, char *argv[])
{
	struct dump_params p;
	struct dumper d = { .p = &p, .out = stdout };
	int i, opened = 0;

	dump_parse_args(argc, argv, &p);
	if (find_files(&d, p.input))
		goto out;
	if (d.events) {
		dump_events(&d);
		if (fflush(d.out))
			d.err = -1;
		return d.err ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	d.f = gr_zalloc(d.nr * sizeof(*d.f));
	for (opened = 0; opened < d.nr; opened++) {
		if (gr_reader_open(&d.f[opened].rd, d.paths[opened], !p.input))
			goto out;
		d.f[opened].session = 1;
	}
	if (p.per_file || d.nr == 1)
		dump_per_file(&d);
	else
		dump_merged(&d);
	if (!d.err && p.session > (d.nr_sids > 1 ? d.nr_sids : 1)) {
		gr_err_msg("%s: no session %d: the input holds %d\n",
			   p.input ? p.input : "the relay files", p.session,
			   d.nr_sids > 1 ? d.nr_sids : 1);
		d.err = -1;
	}
	if (fflush(d.out)) {
		gr_err_msg("writing the output: %s\n", strerror(errno));
		d.err = -1;
	}
	/* An input without records is no stream. */
	if (!d.err && !d.records) {
		gr_src_no_records(p.input ? p.input : "the relay files", d.paths[0], d.nr,
				  !p.input);
		d.err = -1;
	}
	if (!d.err)
		gr_debug_msg("%d files dumped\n", d.nr);
out:
	for (i = 0; i < opened; i++)
		gr_reader_close(&d.f[i].rd);
	free(d.f);
	free(d.heap);
	free(d.sids);
	gr_free_list(d.paths);
	return d.err || opened < d.nr || !d.nr ? EXIT_FAILURE : EXIT_SUCCESS;
}

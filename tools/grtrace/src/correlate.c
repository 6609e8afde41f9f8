// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: CPU/GPU correlation.
 *
 * grtrace-bpf-annotate prints one line per DRM ioctl entry and exit:
 *
 *   [sec.nsec] IOCTL_ENTER pid=P tid=T comm=C cmd=0x... arg=0x...
 *   [sec.nsec] IOCTL_EXIT pid=P tid=T comm=C cmd=0x... ret=R duration_ns=D
 *
 * on CLOCK_MONOTONIC, the clock of the grtrace stream; the lines of
 * another driver's ioctls (NVIDIA's) end in drv=DRIVER name=NAME.  The
 * lines are paired per thread into ioctls.  A job's SUBMIT records the
 * submitting thread, so the ioctl that submitted a job is the one of that
 * thread whose [enter, exit] window holds the SUBMIT.  A line that cannot be read is
 * reported with its file and line number and skipped; keys a line has
 * beyond the known ones are ignored.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "input.h"
#include "utils.h"

#define MAX_REPORTED	20	/* bad lines reported one by one */
#define FRAC_DIGITS	9

const char * const gr_why_names[GR_WHY_NR] = {
	[GR_MATCHED]		= "matched",
	[GR_NO_SUBMIT]		= "SUBMIT not recorded",
	[GR_NO_SUBMITTER]	= "SUBMIT without a submitter",
	[GR_NO_THREAD]		= "submitter made no DRM ioctl",
	[GR_OUTSIDE]		= "SUBMIT outside the submitter's ioctls",
};

const char * const gr_gap_names[GR_GAP_NR] = {
	[GR_GAP_IOCTL]	= "ioctl->submit",
	[GR_GAP_QUEUE]	= "submit->start",
	[GR_GAP_EXEC]	= "start->end",
	[GR_GAP_RETURN]	= "submit->ioctl_exit",
};

/* A line of the annotator, before pairing */
struct gr_line {
	__u64 ts;
	__u64 cmd;
	__u64 arg;
	__u64 duration;
	__s64 ret;
	__u32 pid;
	__u32 tid;
	unsigned int line;
	bool exit;
	bool have_duration;
	char comm[17];
	char drv[GR_DRV_LEN];
	char name[GR_NAME_LEN];
};

static const struct {
	unsigned int nr;
	const char *name;
} drm_ioctls[] = {
	{ 0x00, "VERSION" }, { 0x01, "GET_UNIQUE" }, { 0x02, "GET_MAGIC" },
	{ 0x09, "GEM_CLOSE" }, { 0x0a, "GEM_FLINK" }, { 0x0b, "GEM_OPEN" },
	{ 0x0c, "GET_CAP" }, { 0x0d, "SET_CLIENT_CAP" },
	{ 0x1e, "SET_MASTER" }, { 0x1f, "DROP_MASTER" },
	{ 0x2d, "PRIME_HANDLE_TO_FD" }, { 0x2e, "PRIME_FD_TO_HANDLE" },
	{ 0x3a, "WAIT_VBLANK" },
	{ 0xa0, "MODE_GETRESOURCES" }, { 0xa1, "MODE_GETCRTC" },
	{ 0xa2, "MODE_SETCRTC" }, { 0xa3, "MODE_CURSOR" },
	{ 0xa4, "MODE_GETGAMMA" }, { 0xa5, "MODE_SETGAMMA" },
	{ 0xa6, "MODE_GETENCODER" }, { 0xa7, "MODE_GETCONNECTOR" },
	{ 0xaa, "MODE_GETPROPERTY" }, { 0xab, "MODE_SETPROPERTY" },
	{ 0xac, "MODE_GETPROPBLOB" }, { 0xad, "MODE_GETFB" },
	{ 0xae, "MODE_ADDFB" }, { 0xaf, "MODE_RMFB" },
	{ 0xb0, "MODE_PAGE_FLIP" }, { 0xb1, "MODE_DIRTYFB" },
	{ 0xb2, "MODE_CREATE_DUMB" }, { 0xb3, "MODE_MAP_DUMB" },
	{ 0xb4, "MODE_DESTROY_DUMB" }, { 0xb5, "MODE_GETPLANERESOURCES" },
	{ 0xb6, "MODE_GETPLANE" }, { 0xb7, "MODE_SETPLANE" },
	{ 0xb8, "MODE_ADDFB2" }, { 0xb9, "MODE_OBJ_GETPROPERTIES" },
	{ 0xba, "MODE_OBJ_SETPROPERTY" }, { 0xbb, "MODE_CURSOR2" },
	{ 0xbc, "MODE_ATOMIC" }, { 0xbd, "MODE_CREATEPROPBLOB" },
	{ 0xbe, "MODE_DESTROYPROPBLOB" }, { 0xbf, "SYNCOBJ_CREATE" },
	{ 0xc0, "SYNCOBJ_DESTROY" }, { 0xc1, "SYNCOBJ_HANDLE_TO_FD" },
	{ 0xc2, "SYNCOBJ_FD_TO_HANDLE" }, { 0xc3, "SYNCOBJ_WAIT" },
	{ 0xc4, "SYNCOBJ_RESET" }, { 0xc5, "SYNCOBJ_SIGNAL" },
	{ 0xca, "SYNCOBJ_TIMELINE_WAIT" }, { 0xcb, "SYNCOBJ_QUERY" },
	{ 0xcc, "SYNCOBJ_TRANSFER" }, { 0xcd, "SYNCOBJ_TIMELINE_SIGNAL" },
	{ 0xce, "MODE_GETFB2" }, { 0xcf, "SYNCOBJ_EVENTFD" },
	{ 0xd0, "MODE_CLOSEFB" },
};

/*
 * The name of @io.  DRM_IOCTL_BASE 'd': core ioctls by number, the driver
 * range as DRIVER+n.  Those of another driver (drv=, NVIDIA's) as
 * DRIVER:NAME, with the name the annotator gave them.
 */
const char *gr_ioctl_name(const struct gr_ioctl *io, char *buf, size_t len)
{
	unsigned long long cmd = io->cmd;
	unsigned int nr = cmd & 0xff;
	size_t i;

	if (io->drv[0] && strcmp(io->drv, "drm")) {
		if (io->name[0])
			snprintf(buf, len, "%s:%s", io->drv, io->name);
		else
			snprintf(buf, len, "%s:0x%08llx", io->drv, cmd);
		return buf;
	}
	if (((cmd >> 8) & 0xff) != 'd') {
		snprintf(buf, len, "0x%08llx", (unsigned long long)cmd);
		return buf;
	}
	if (nr >= 0x40 && nr < 0xa0) {
		snprintf(buf, len, "DRIVER+0x%02x", nr - 0x40);
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(drm_ioctls); i++) {
		if (drm_ioctls[i].nr == nr) {
			snprintf(buf, len, "%s", drm_ioctls[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "DRM+0x%02x", nr);
	return buf;
}

/*
 * The session start in the merged clock (the CPU trace's: a GPU time plus
 * the offset), the origin of the times merge and timeline print, as report
 * prints them
 */
__s64 gr_origin(const struct gr_corr *in)
{
	return (__s64)in->t.start_ts + in->offset;
}

/* @ts of the merged clock as seconds from the session start */
const char *gr_ts(const struct gr_corr *in, __s64 ts, char *buf, size_t len)
{
	return gr_secs(ts - gr_origin(in), buf, len);
}

/* ns as microseconds with 3 decimals */
const char *gr_dur(__s64 ns, char *buf, size_t len)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;

	snprintf(buf, len, "%s%llu.%03llu", ns < 0 ? "-" : "", a / 1000, a % 1000);
	return buf;
}

/* [-]N[ns|us|ms|s] */
int gr_parse_offset(const char *s, __s64 *ns)
{
	long long v;
	bool neg = *s == '-';

	if (*s == '-' || *s == '+')
		s++;
	if (gr_parse_ns(s, &v))
		return -1;
	*ns = neg ? -v : v;
	return 0;
}

/* ---- reading the annotator's lines ---- */

static int parse_uint(const char *s, int base, __u64 max, __u64 *val)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, base);
	return errno || *end || *val > max ? -1 : 0;
}

static int parse_sint(const char *s, __s64 *val)
{
	char *end;

	if (!*s || *s == ' ')
		return -1;
	errno = 0;
	*val = strtoll(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* A name: letters, digits and _+.- only (it goes into CSV and columns) */
static int parse_word(const char *s, char *buf, size_t len)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && !strchr("_+.-", s[n]))
			return -1;
	if (!n || n >= len)
		return -1;
	memcpy(buf, s, n + 1);
	return 0;
}

/* "[sec.frac]": fewer than 9 fraction digits are scaled. */
static const char *parse_stamp(const char *s, __u64 *ts)
{
	__u64 sec = 0, frac = 0;
	int n = 0;

	if (*s++ != '[')
		return NULL;
	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (sec > (ULLONG_MAX / NSEC_PER_SEC - 9) / 10)
			return NULL;
		sec = sec * 10 + *s - '0';
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, n++)
			if (n < FRAC_DIGITS)
				frac = frac * 10 + *s - '0';
			else if (n >= 12)
				return NULL;
		if (!n)
			return NULL;
		for (; n < FRAC_DIGITS; n++)
			frac *= 10;
	}
	if (*s != ']')
		return NULL;
	*ts = sec * NSEC_PER_SEC + frac;
	return s + 1;
}

/*
 * Read one line into @l.  Returns: 1 with an event, 0 for a comment or a
 * blank line, -1 with the problem in @why.
 */
static int parse_line(char *s, struct gr_line *l, char *why, size_t len)
{
	bool have_pid = false, have_tid = false;
	char *tok, *save = NULL, *eq;
	__u64 v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#')
		return 0;
	memset(l, 0, sizeof(*l));
	s = (char *)parse_stamp(s, &l->ts);
	if (!s) {
		snprintf(why, len, "no [seconds.nanoseconds] time stamp");
		return -1;
	}
	tok = strtok_r(s, " \t", &save);
	if (!tok) {
		snprintf(why, len, "no event after the time stamp");
		return -1;
	}
	if (!strcmp(tok, "IOCTL_ENTER")) {
		l->exit = false;
	} else if (!strcmp(tok, "IOCTL_EXIT")) {
		l->exit = true;
	} else {
		snprintf(why, len, "unknown event '%.40s'", tok);
		return -1;
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(why, len, "'%.40s' is not KEY=VALUE", tok);
			return -1;
		}
		*eq++ = '\0';
		if (!strcmp(tok, "pid")) {
			if (parse_uint(eq, 10, UINT_MAX, &v))
				goto bad;
			l->pid = v;
			have_pid = true;
		} else if (!strcmp(tok, "tid")) {
			if (parse_uint(eq, 10, UINT_MAX, &v))
				goto bad;
			l->tid = v;
			have_tid = true;
		} else if (!strcmp(tok, "comm")) {
			snprintf(l->comm, sizeof(l->comm), "%s", eq);
			gr_name_clean(l->comm, sizeof(l->comm));
		} else if (!strcmp(tok, "cmd")) {
			if (parse_uint(eq, 0, UINT_MAX, &l->cmd))
				goto bad;
		} else if (!strcmp(tok, "arg")) {
			if (parse_uint(eq, 0, ULLONG_MAX, &l->arg))
				goto bad;
		} else if (!strcmp(tok, "ret")) {
			if (parse_sint(eq, &l->ret))
				goto bad;
		} else if (!strcmp(tok, "duration_ns")) {
			if (parse_uint(eq, 10, ULLONG_MAX, &l->duration))
				goto bad;
			l->have_duration = true;
		} else if (!strcmp(tok, "drv")) {
			if (parse_word(eq, l->drv, sizeof(l->drv)))
				goto bad;
		} else if (!strcmp(tok, "name")) {
			if (parse_word(eq, l->name, sizeof(l->name)))
				goto bad;
		}
		/* other keys: a newer annotator, ignored */
	}
	if (!have_tid || !have_pid) {
		snprintf(why, len, "%s without %s", l->exit ? "IOCTL_EXIT" : "IOCTL_ENTER",
			 have_pid ? "tid=" : "pid=");
		return -1;
	}
	return 1;
bad:
	snprintf(why, len, "bad value in %.20s=%.40s", tok, eq);
	return -1;
}

static int cmp_line(const void *a, const void *b)
{
	const struct gr_line *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static struct gr_ioctl *new_ioctl(struct gr_cpu *c, size_t *cap, const struct gr_line *l)
{
	struct gr_ioctl *io;

	if (c->nr == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		c->io = gr_realloc(c->io, *cap, sizeof(*c->io));
	}
	io = &c->io[c->nr++];
	memset(io, 0, sizeof(*io));
	io->pid = l->pid;
	io->tid = l->tid;
	io->cmd = l->cmd;
	io->line = l->line;
	memcpy(io->comm, l->comm, sizeof(io->comm));
	memcpy(io->drv, l->drv, sizeof(io->drv));
	memcpy(io->name, l->name, sizeof(io->name));
	return io;
}

/* Pair ENTER and EXIT lines per thread; the lines are sorted by tid, time. */
static void pair(struct gr_cpu *c, const struct gr_line *l, size_t n)
{
	struct gr_ioctl *open = NULL;
	size_t i, cap = 0;

	for (i = 0; i < n; i++) {
		struct gr_ioctl *io;

		if (i && l[i].tid != l[i - 1].tid) {
			if (open)
				c->no_exit++;
			open = NULL;
		}
		if (!l[i].exit) {
			if (open)
				c->no_exit++;
			io = new_ioctl(c, &cap, &l[i]);
			io->enter = l[i].ts;
			io->arg = l[i].arg;
			io->have_enter = true;
			open = io;
			continue;
		}
		if (open && (!l[i].cmd || !open->cmd || l[i].cmd == open->cmd)) {
			io = open;
		} else {
			if (open)
				c->no_exit++;
			/* Entered before the annotation started */
			io = new_ioctl(c, &cap, &l[i]);
			io->enter = l[i].have_duration && l[i].duration <= l[i].ts ?
				    l[i].ts - l[i].duration : l[i].ts;
			c->no_enter++;
		}
		open = NULL;
		io->exit = l[i].ts;
		io->ret = l[i].ret;
		io->have_exit = true;
		if (!io->cmd)
			io->cmd = l[i].cmd;
		if (!io->comm[0])
			memcpy(io->comm, l[i].comm, sizeof(io->comm));
		if (!io->drv[0])
			memcpy(io->drv, l[i].drv, sizeof(io->drv));
		if (!io->name[0])
			memcpy(io->name, l[i].name, sizeof(io->name));
	}
	if (open)
		c->no_exit++;
}

/*
 * gr_cpu_load - read the output of grtrace-bpf-annotate
 *
 * Bad lines are reported (file:line: problem) and skipped.  Returns: 0,
 * or -1 if the file cannot be read (printed).  A file without any event
 * line is reported, and loads as no ioctls.
 */
int gr_cpu_load(struct gr_cpu *c, const char *path)
{
	struct gr_line *lines = NULL;
	size_t nr = 0, cap = 0, blen = 0, i;
	unsigned int lineno = 0;
	char *buf = NULL, why[128];
	ssize_t got;
	FILE *f;
	int ret;

	memset(c, 0, sizeof(*c));
	c->path = path;
	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((got = getline(&buf, &blen, f)) >= 0) {
		lineno++;
		while (got && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = '\0';
		if (strlen(buf) != (size_t)got) {
			ret = -1;
			snprintf(why, sizeof(why), "NUL byte in the line");
		} else {
			if (nr == cap) {
				cap = cap ? 2 * cap : 1024;
				lines = gr_realloc(lines, cap, sizeof(*lines));
			}
			ret = parse_line(buf, &lines[nr], why, sizeof(why));
		}
		if (ret < 0) {
			if (c->bad++ < MAX_REPORTED)
				gr_err_msg("%s:%u: %s: line skipped\n", path, lineno, why);
			continue;
		}
		if (!ret)
			continue;
		lines[nr].line = lineno;
		if (!nr || lines[nr].ts < c->first_ts)
			c->first_ts = lines[nr].ts;
		if (lines[nr].ts > c->last_ts)
			c->last_ts = lines[nr].ts;
		nr++;
	}
	if (ferror(f))
		gr_err_msg("%s:%u: read error: %s\n", path, lineno + 1, strerror(errno));
	if (f != stdin)
		fclose(f);
	free(buf);
	if (c->bad > MAX_REPORTED)
		gr_err_msg("%s: %zu more bad lines skipped\n", path, c->bad - MAX_REPORTED);
	if (!nr)
		gr_err_msg("%s:%u: no IOCTL_ENTER or IOCTL_EXIT line in this file%s\n",
			   path, lineno ? lineno : 1, lineno ? "" : " (empty)");
	c->lines = nr;
	if (nr)		/* else lines is NULL, which qsort() must not get */
		qsort(lines, nr, sizeof(*lines), cmp_line);
	pair(c, lines, nr);
	for (i = 0; i < nr; i++)
		gr_debug_msg("%s:%u: %s tid %u\n", path, lines[i].line,
			     lines[i].exit ? "exit" : "enter", lines[i].tid);
	free(lines);
	return 0;
}

void gr_cpu_free(struct gr_cpu *c)
{
	free(c->io);
	memset(c, 0, sizeof(*c));
}

/* ---- matching jobs with ioctls ---- */

bool gr_job_seen(const struct gr_job *j, int type)
{
	return j->seen & (1U << type);
}

/* A time of a job, on the CPU side's clock */
__u64 gr_corr_job_ts(const struct gr_corr *in, const struct gr_job *j, int type)
{
	__s64 t = (__s64)j->ts[type] + in->offset;

	return t < 0 ? 0 : t;
}

/* End of the window of an ioctl: its exit, or the next ioctl of the thread */
static __u64 window_end(const struct gr_cpu *c, size_t i)
{
	if (c->io[i].have_exit)
		return c->io[i].exit;
	if (i + 1 < c->nr && c->io[i + 1].tid == c->io[i].tid)
		return c->io[i + 1].enter - 1;
	return ULLONG_MAX;
}

static enum gr_why find_ioctl(const struct gr_cpu *c, __u32 tid, __u64 t, long *found)
{
	size_t lo = 0, hi = c->nr, mid;

	*found = -1;
	/* first ioctl after (tid, t) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->io[mid].tid < tid || (c->io[mid].tid == tid && c->io[mid].enter <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && c->io[lo - 1].tid == tid && t <= window_end(c, lo - 1)) {
		*found = lo - 1;
		return GR_MATCHED;
	}
	if ((lo && c->io[lo - 1].tid == tid) || (lo < c->nr && c->io[lo].tid == tid))
		return GR_OUTSIDE;
	return GR_NO_THREAD;
}

static void match_job(struct gr_corr *in, const struct gr_job *j, struct gr_match *m)
{
	__u64 sub, a, b;
	int from;

	memset(m, 0, sizeof(*m));
	m->io = -1;
	from = gr_job_seen(j, GRTRACE_EV_START) ? GRTRACE_EV_START :
	       gr_job_seen(j, GRTRACE_EV_COMMIT) ? GRTRACE_EV_COMMIT : -1;
	m->by_commit = from == GRTRACE_EV_COMMIT;
	/* EXEC, or DEVICE without START: a missing END is taken at COMPLETE */
	if (from >= 0 && gr_job_phase(j, m->by_commit ? GR_M_DEVICE : GR_M_EXEC, &a, &b)) {
		m->gap[GR_GAP_EXEC] = (__s64)(b - a);
		m->valid |= BIT(GR_GAP_EXEC);
	}
	/*
	 * A job whose events cannot tell its SUBMIT (the kernel's own
	 * virtio_gpu_cmd_queue): the thread that queued it did so at its
	 * COMMIT, in the ioctl that submitted it or in a kernel worker.
	 */
	m->queued = !gr_job_seen(j, GRTRACE_EV_SUBMIT) && gr_job_seen(j, GRTRACE_EV_COMMIT) &&
		    (j->cannot & BIT(GRTRACE_EV_SUBMIT));
	if (!gr_job_seen(j, GRTRACE_EV_SUBMIT) && !m->queued) {
		m->why = GR_NO_SUBMIT;
		return;
	}
	sub = gr_corr_job_ts(in, j, m->queued ? GRTRACE_EV_COMMIT : GRTRACE_EV_SUBMIT);
	if (from >= 0 && !m->queued) {
		m->gap[GR_GAP_QUEUE] = (__s64)(gr_corr_job_ts(in, j, from) - sub);
		m->valid |= BIT(GR_GAP_QUEUE);
	}
	if (!j->pid) {
		m->why = GR_NO_SUBMITTER;
		return;
	}
	m->why = find_ioctl(&in->cpu, j->pid, sub, &m->io);
	if (m->io < 0)
		return;
	in->cpu.io[m->io].jobs++;
	m->gap[GR_GAP_IOCTL] = (__s64)(sub - in->cpu.io[m->io].enter);
	m->valid |= BIT(GR_GAP_IOCTL);
	if (in->cpu.io[m->io].have_exit) {
		m->gap[GR_GAP_RETURN] = (__s64)(in->cpu.io[m->io].exit - sub);
		m->valid |= BIT(GR_GAP_RETURN);
	}
}

/*
 * gr_corr_load - a recording, and the annotator's output if @cpu
 * @session: of a file of several, the one to read (from 1)
 * @offset: ns added to every time of the recording
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_corr_load(struct gr_corr *in, const char *gpu, int session, const char *cpu,
		 __s64 offset)
{
	size_t i;

	memset(in, 0, sizeof(*in));
	in->offset = offset;
	in->t.session = session;
	if (cpu) {
		if (gr_cpu_load(&in->cpu, cpu))
			return -1;
		in->have_cpu = true;
	}
	if (gr_input_load(&in->t, gpu))
		return -1;
	/*
	 * Refused, unless the relay files were read (and so consumed): their
	 * times before 0 are then drawn at 0.
	 */
	if ((__s64)in->t.first_ts + offset < 0) {
		char a[32], b[32];

		gr_err_msg("%s: --clock-offset %s s puts its first event, at %s s, before 0%s\n",
			   in->t.input, gr_secs(offset, a, sizeof(a)),
			   gr_secs(in->t.first_ts, b, sizeof(b)), gpu ? "" : " (drawn at 0)");
		if (gpu)
			return -1;
	}
	if (in->have_cpu && !offset && in->t.clock && strcmp(in->t.clock, "mono"))
		gr_err_msg("%s: recorded in clock %s, the annotator's is CLOCK_MONOTONIC: %s\n",
			   in->t.input, in->t.clock,
			   "its jobs meet the ioctls only by chance (trace-cmd record -C mono, or --clock-offset)");
	gr_jobs_build(&in->jobs, &in->t);
	in->m = gr_zalloc((in->jobs.nr + 1) * sizeof(*in->m));
	for (i = 0; i < in->jobs.nr; i++) {
		match_job(in, &in->jobs.job[i], &in->m[i]);
		in->nr_why[in->m[i].why]++;
	}
	if (in->have_cpu && in->cpu.nr &&
	    ((__s64)in->t.first_ts + offset > (__s64)in->cpu.last_ts ||
	     (__s64)in->t.last_ts + offset < (__s64)in->cpu.first_ts))
		gr_err_msg("%s and %s do not overlap in time: %s\n", cpu, in->t.input,
			   "not the same boot, or the clocks differ (see --clock-offset)");
	else if (in->have_cpu && !in->nr_why[GR_MATCHED] && in->nr_why[GR_OUTSIDE])
		/* Their threads made ioctls, never at their times */
		gr_err_msg("%s: none of the %zu jobs whose thread made DRM ioctls %s: %s\n",
			   in->t.input, in->nr_why[GR_OUTSIDE], "was submitted in one",
			   "are the clocks the same? The annotator's is CLOCK_MONOTONIC: record a trace.dat with \"trace-cmd record -C mono\" (or see --clock-offset)");
	return 0;
}

void gr_corr_free(struct gr_corr *in)
{
	gr_trace_free(&in->t);
	gr_jobs_free(&in->jobs);
	gr_cpu_free(&in->cpu);
	free(in->m);
	memset(in, 0, sizeof(*in));
}

/* The output of merge and timeline: @path, or stdout for NULL or "-". */
FILE *gr_output_open(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		gr_err_msg("%s: %s\n", path, strerror(errno));
	return f;
}

/* Flush and close @f of gr_output_open(); -1 if a write failed. */
int gr_output_close(FILE *f, const char *path)
{
	int ret = 0;

	if (fflush(f) || ferror(f)) {
		gr_err_msg("%s: %s\n", path ? path : "stdout", strerror(errno));
		ret = -1;
	}
	if (f != stdout && fclose(f) && !ret) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		ret = -1;
	}
	return ret;
}

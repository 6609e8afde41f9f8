// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace export --kernelshark: GPU job lanes as a trace-cmd data file.
 *
 * KernelShark draws a box for a task from the sched_switch that switches
 * it in to the one that switches it out, on the row of its CPU and on the
 * row of the task, which is named after the task; the box has the colour
 * of the CPU.  KernelShark 2.2 names no CPU row but "CPU N", so here a
 * lane of a ring (a row of jobs that do not overlap, as in the Chrome
 * export) is a task, named "dev/ring lane N", and each phase of a job on
 * it (host, queue, exec or device, complete) is a box of that task on a
 * CPU of its own: the rows of the lanes bear their names, the phases of a
 * job their colours, and a gap ends each job.  KernelShark opens the file
 * next to the recording of the CPUs (kernelshark -i trace.dat -a
 * lanes.dat) on the same time axis, as the times are those of the input:
 * of the ring buffer for a trace.dat, CLOCK_MONOTONIC (ftrace's "mono")
 * for a relay stream; a session (--kernelshark-session) shows the tasks' rows instead
 * of the CPUs' of the lanes file.
 *
 * The file is version 6 of the format (trace-cmd.dat.v6(5)), uncompressed:
 * headers, the event formats, the task names, then per CPU the pages of an
 * ftrace ring buffer.  The headers give each CPU's length, so the pages are
 * made twice, first counted, then written a page at a time: memory is a
 * page and the rows' descriptions, not the rows' pages.  Its events:
 *
 *   lane                  at the first time, on every CPU: what the CPU is
 *   sched/sched_switch    the lane's task in and out: pid KS_PID_BASE +
 *                         lane, named "dev/ring lane N" by the file's task
 *                         list (its 16-byte comm fields say "ring lane N")
 *   grtrace_lanes/job     after the switch in: fence, ring, phase, length,
 *                         the submitter
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "export.h"
#include "utils.h"

#define KS_PAGE		4096
#define KS_PAGE_HDR	16		/* u64 timestamp, local_t commit */
#define KS_DATA		(KS_PAGE - KS_PAGE_HDR)
#define KS_DELTA_BITS	27
#define KS_TIME_EXTEND	30		/* type_len of a time extend */
#define KS_PID_BASE	100000		/* task of lane N: KS_PID_BASE + N */
#define KS_PRIO		120
#define KS_LISTED	64		/* rows named in the summary */

/* trace-cmd.dat(5): magic, "tracing", version 6; option ids */
#define TRACEDAT_MAGIC_6		"\027\010\104tracing6"
#define TRACEDAT_OPTION_TRACECLOCK	4

enum { ID_SWITCH = 1, ID_JOB, ID_LANE };

static const char * const phase_names[GR_PH_NR] = {
	[GR_PH_HOST] = "host", [GR_PH_QUEUE] = "queue", [GR_PH_EXEC] = "exec",
	[GR_PH_DEVICE] = "device", [GR_PH_COMPLETE] = "complete",
};

/*
 * The texts of the file, as lists of pieces: tracefs "format" files and
 * the ring buffer headers, in the layout of a 64-bit kernel.
 */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n", \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n", \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n", \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char * const header_page[] = {
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n",
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n",
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n",
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
	NULL
};

static const char * const header_event[] = {
	"# compressed entry header\n",
	"\ttype_len    :    5 bits\n",
	"\ttime_delta  :   27 bits\n",
	"\tarray       :   32 bits\n\n",
	"\tpadding     : type == 29\n",
	"\ttime_extend : type == 30\n",
	"\ttime_stamp : type == 31\n",
	"\tdata max type_len  == 28\n",
	NULL
};

/* The layout of the kernel's sched_switch, a simpler print fmt */
static const char * const fmt_switch[] = {
	"name: sched_switch\nID: 1\nformat:\n",
	COMMON_FIELDS,
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n",
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n",
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n",
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n",
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n",
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n",
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n",
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> ",
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, ",
	"REC->prev_prio, REC->prev_state ? \"S\" : \"R\", REC->next_comm, ",
	"REC->next_pid, REC->next_prio\n",
	NULL
};

struct ks_switch {
	__u16 type;
	__u8 flags;
	__u8 preempt;
	__s32 pid;
	char prev_comm[16];
	__s32 prev_pid;
	__s32 prev_prio;
	__s64 prev_state;
	char next_comm[16];
	__s32 next_pid;
	__s32 next_prio;
};

static const char * const fmt_job[] = {
	"name: job\nID: 2\nformat:\n",
	COMMON_FIELDS,
	"\tfield:u64 fence_context;\toffset:8;\tsize:8;\tsigned:0;\n",
	"\tfield:u64 fence_seqno;\toffset:16;\tsize:8;\tsigned:0;\n",
	"\tfield:u64 ctx_id;\toffset:24;\tsize:8;\tsigned:0;\n",
	"\tfield:u64 duration;\toffset:32;\tsize:8;\tsigned:0;\n",
	"\tfield:u32 ring_id;\toffset:40;\tsize:4;\tsigned:0;\n",
	"\tfield:u32 pid;\toffset:44;\tsize:4;\tsigned:0;\n",
	"\tfield:u32 tgid;\toffset:48;\tsize:4;\tsigned:0;\n",
	"\tfield:u16 engine;\toffset:52;\tsize:2;\tsigned:0;\n",
	"\tfield:u16 phase;\toffset:54;\tsize:2;\tsigned:0;\n",
	"\tfield:s32 status;\toffset:56;\tsize:4;\tsigned:1;\n",
	"\tfield:char comm[16];\toffset:60;\tsize:16;\tsigned:0;\n",
	"\tfield:char ring[32];\toffset:76;\tsize:32;\tsigned:0;\n\n",
	"print fmt: \"%s %s fence=%llu:%llu ctx=%llu dur_ns=%llu pid=%u comm=%s status=%d\", ",
	"REC->ring, __print_symbolic(REC->phase, { 0, \"host\" }, { 1, \"queue\" }, ",
	"{ 2, \"exec\" }, { 3, \"device\" }, { 4, \"complete\" }), ",
	"REC->fence_context, REC->fence_seqno, REC->ctx_id, ",
	"REC->duration, REC->pid, REC->comm, REC->status\n",
	NULL
};

/* Its record: naturally aligned, the size ends after ring[] */
struct ks_job {
	__u16 type;
	__u8 flags;
	__u8 preempt;
	__s32 pid;
	__u64 fence_context;
	__u64 fence_seqno;
	__u64 ctx_id;
	__u64 duration;
	__u32 ring_id;
	__u32 job_pid;
	__u32 tgid;
	__u16 engine;
	__u16 phase;
	__s32 status;
	char comm[16];
	char ring[32];
};

#define KS_JOB_SIZE	(offsetof(struct ks_job, ring) + 32)

static const char * const fmt_lane[] = {
	"name: lane\nID: 3\nformat:\n",
	COMMON_FIELDS,
	"\tfield:char name[64];\toffset:8;\tsize:64;\tsigned:0;\n",
	"\tfield:u32 ring_id;\toffset:72;\tsize:4;\tsigned:0;\n",
	"\tfield:u16 phase;\toffset:76;\tsize:2;\tsigned:0;\n",
	"\tfield:u16 lane;\toffset:78;\tsize:2;\tsigned:0;\n\n",
	"print fmt: \"%s\", REC->name\n",
	NULL
};

struct ks_lane {
	__u16 type;
	__u8 flags;
	__u8 preempt;
	__s32 pid;
	char name[64];
	__u32 ring_id;
	__u16 phase;
	__u16 lane;
};

static_assert(sizeof(struct ks_switch) == 64, "sched_switch layout");
static_assert(KS_JOB_SIZE == 108, "job layout");
static_assert(sizeof(struct ks_lane) == 80, "lane layout");

/* One CPU of the file: one phase of a lane, the slices [first, end) */
struct ks_cpu {
	__u32 ring;
	int kind;		/* the phase */
	int lane;
	__s32 pid;		/* the lane's task */
	size_t first;
	size_t end;
	size_t boxes;
	size_t pages;		/* of its ring buffer, once counted */
};

struct ks_file {
	struct ks_cpu *cpu;
	int nr_cpu;
	int nr_lanes;		/* tasks: KS_PID_BASE + 0 .. nr_lanes - 1 */
	/* the page being made of the CPU being made */
	unsigned char page[KS_PAGE];
	size_t pages;		/* of that CPU so far */
	size_t used;		/* data bytes of the page */
	__u64 last_ts;
	FILE *out;		/* NULL: count the pages */
};

/* @src into @dst of @len bytes, cut, NUL terminated */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void put32(unsigned char *p, __u32 v)
{
	memcpy(p, &v, sizeof(v));
}

/* The page made so far to the file, if it is being written */
static void page_out(struct ks_file *f)
{
	if (f->pages && f->out)
		fwrite(f->page, KS_PAGE, 1, f->out);
}

static void page_new(struct ks_file *f, __u64 ts)
{
	page_out(f);
	f->pages++;
	memset(f->page, 0, KS_PAGE);
	memcpy(f->page, &ts, sizeof(ts));
	f->used = 0;
	f->last_ts = ts;
}

/* Append an event of @len bytes (a multiple of 4, at most 112) at @ts. */
static void put_event(struct ks_file *f, __u64 ts, const void *data, size_t len)
{
	unsigned char *p;
	__u64 delta;
	size_t need;

	if (f->pages && ts < f->last_ts)
		ts = f->last_ts;
	delta = f->pages ? ts - f->last_ts : 0;
	need = 4 + len + (delta >> KS_DELTA_BITS ? 8 : 0);
	if (!f->pages || f->used + need > KS_DATA) {
		page_new(f, ts);
		delta = 0;
	}
	p = f->page + KS_PAGE_HDR + f->used;
	if (delta >> KS_DELTA_BITS) {
		put32(p, KS_TIME_EXTEND |
		      (__u32)(delta & ((1U << KS_DELTA_BITS) - 1)) << 5);
		put32(p + 4, delta >> KS_DELTA_BITS);
		p += 8;
		f->used += 8;
		delta = 0;
	}
	put32(p, len / 4 | (__u32)delta << 5);
	memcpy(p + 4, data, len);
	f->used += 4 + len;
	f->last_ts = ts;
	memcpy(f->page + 8, &(__u64){ f->used }, 8);
}

/*
 * The name of a lane's task: "dev/ring lane N" in the file's task list,
 * and, @brief, "ring lane N" for the 16 bytes of a sched_switch comm.
 */
static void task_name(const struct gr_exporter *ex, const struct ks_cpu *c, bool brief,
		      char *buf, size_t len)
{
	const struct gr_ring *r = gr_ring(&ex->t, c->ring);
	char label[80];

	if (brief && r->known)
		snprintf(label, sizeof(label), "%s", r->name);
	else
		gr_ring_label(&ex->t, c->ring, label, sizeof(label));
	snprintf(buf, len, "%s lane %d", label, c->lane + 1);
}

/* What a CPU of the file is: "dev/ring engine lane N phase" */
static void lane_name(const struct gr_exporter *ex, const struct ks_cpu *c,
		      char *buf, size_t len)
{
	const struct gr_ring *r = gr_ring(&ex->t, c->ring);
	char label[80];

	gr_ring_label(&ex->t, c->ring, label, sizeof(label));
	snprintf(buf, len, "%s %s lane %d %s", label, gr_engine_name(r->engine),
		 c->lane + 1, phase_names[c->kind]);
}

/*
 * One CPU per (ring, lane, phase) and one task per (ring, lane), in the
 * order of the slices (assign_lanes(): ring, lane, phase, time).
 */
static void make_cpus(struct gr_exporter *ex, struct ks_file *f)
{
	struct ks_cpu *c = NULL;
	size_t i;

	for (i = 0; i < ex->nr_sl; i++) {
		const struct gr_slice *s = &ex->sl[i];

		if (!c || c->ring != s->ring || c->lane != s->lane || c->kind != s->kind) {
			bool lane = !c || c->ring != s->ring || c->lane != s->lane;

			f->cpu = gr_realloc(f->cpu, f->nr_cpu + 1, sizeof(*f->cpu));
			c = &f->cpu[f->nr_cpu++];
			memset(c, 0, sizeof(*c));
			c->ring = s->ring;
			c->lane = s->lane;
			c->kind = s->kind;
			c->first = i;
			f->nr_lanes += lane;
			c->pid = KS_PID_BASE + f->nr_lanes - 1;
		}
		c->end = i + 1;
	}
}

static void box(struct gr_exporter *ex, struct ks_file *f, struct ks_cpu *c,
		const struct gr_slice *s)
{
	const struct gr_job *j = &ex->jobs.job[s->job];
	const struct gr_ring *r = gr_ring(&ex->t, s->ring);
	__s32 pid = c->pid;
	struct ks_switch sw;
	struct ks_job jb;
	char comm[64];
	__u64 start = s->start;

	if (f->pages && start < f->last_ts)	/* the last lane overflowed */
		start = f->last_ts;
	if (start > s->end)
		return;
	task_name(ex, c, true, comm, sizeof(comm));

	memset(&sw, 0, sizeof(sw));
	sw.type = ID_SWITCH;
	copy_str(sw.prev_comm, sizeof(sw.prev_comm), "swapper");
	sw.prev_prio = KS_PRIO;
	copy_str(sw.next_comm, sizeof(sw.next_comm), comm);
	sw.next_pid = pid;
	sw.next_prio = KS_PRIO;
	put_event(f, start, &sw, sizeof(sw));

	memset(&jb, 0, sizeof(jb));
	jb.type = ID_JOB;
	jb.pid = pid;
	jb.fence_context = j->fctx;
	jb.fence_seqno = j->fseq;
	jb.ctx_id = j->ctx_id;
	jb.duration = s->end - start;
	jb.ring_id = r->id;
	jb.job_pid = j->pid;
	jb.tgid = j->tgid;
	jb.engine = r->engine;
	jb.phase = s->kind;
	jb.status = j->status;
	memcpy(jb.comm, j->comm, sizeof(jb.comm));
	if (r->known)
		copy_str(jb.ring, sizeof(jb.ring), r->name);
	else
		snprintf(jb.ring, sizeof(jb.ring), "ring%u", r->id);
	put_event(f, start, &jb, KS_JOB_SIZE);

	memset(&sw, 0, sizeof(sw));
	sw.type = ID_SWITCH;
	sw.pid = pid;
	copy_str(sw.prev_comm, sizeof(sw.prev_comm), comm);
	sw.prev_pid = pid;
	sw.prev_prio = KS_PRIO;
	sw.prev_state = 1;	/* done: sleeping */
	copy_str(sw.next_comm, sizeof(sw.next_comm), "swapper");
	sw.next_prio = KS_PRIO;
	put_event(f, s->end, &sw, sizeof(sw));
	c->boxes++;
}

/*
 * The ring buffer of CPU @k: what it is at the first time @t0, then a box
 * per slice; counted (@f->out NULL), or written to @f->out.
 */
static void make_cpu(struct gr_exporter *ex, struct ks_file *f, int k, __u64 t0)
{
	struct ks_cpu *c = &f->cpu[k];
	struct ks_lane ev;
	size_t i;

	f->pages = 0;
	c->boxes = 0;
	memset(&ev, 0, sizeof(ev));
	ev.type = ID_LANE;
	lane_name(ex, c, ev.name, sizeof(ev.name));
	ev.ring_id = gr_ring(&ex->t, c->ring)->id;
	ev.phase = c->kind;
	ev.lane = c->lane;
	put_event(f, t0, &ev, sizeof(ev));
	for (i = c->first; i < c->end; i++)
		box(ex, f, c, &ex->sl[i]);
	page_out(f);
	c->pages = f->pages;
}

/* ---- the file ---- */

static void w_str(FILE *f, const char *s)
{
	fwrite(s, 1, strlen(s) + 1, f);
}

static void w_u16(FILE *f, __u16 v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void w_u32(FILE *f, __u32 v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void w_u64(FILE *f, __u64 v)
{
	fwrite(&v, sizeof(v), 1, f);
}

/* A u64 size, then the text without its NUL */
static void w_text64(FILE *f, const char *s)
{
	w_u64(f, strlen(s));
	fwrite(s, 1, strlen(s), f);
}

/* The same, of a text in pieces */
static void w_pieces64(FILE *f, const char * const *pieces)
{
	const char * const *p;
	__u64 len = 0;

	for (p = pieces; *p; p++)
		len += strlen(*p);
	w_u64(f, len);
	for (p = pieces; *p; p++)
		fwrite(*p, 1, strlen(*p), f);
}

/* The task list: each lane's task by its full name */
static char *cmdlines(const struct gr_exporter *ex, const struct ks_file *ks)
{
	char *buf = NULL, name[128];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int k;

	if (!m)
		return NULL;
	for (k = 0; k < ks->nr_cpu; k++) {
		if (k && ks->cpu[k].pid == ks->cpu[k - 1].pid)
			continue;
		task_name(ex, &ks->cpu[k], false, name, sizeof(name));
		fprintf(m, "%d %s\n", ks->cpu[k].pid, name);
	}
	fclose(m);
	return buf;
}

/*
 * The headers are made in memory, where their length is known, so that
 * @out need not be seekable: a pipe takes the file as a file does.
 */
static int write_file(struct gr_exporter *ex, struct ks_file *ks, FILE *out, __u64 t0)
{
	static const char * const *formats[] = { fmt_job, fmt_lane };
	char *cmd = cmdlines(ex, ks), *head = NULL;
	size_t i, len = 0;
	char clock[64];
	__u64 off, pos;
	FILE *f;
	int k;

	if (!cmd)
		return -1;
	f = open_memstream(&head, &len);
	if (!f) {
		free(cmd);
		return -1;
	}
	fwrite(TRACEDAT_MAGIC_6, 1, sizeof(TRACEDAT_MAGIC_6), f);
	fputc(0, f);			/* little endian */
	fputc(sizeof(long), f);
	w_u32(f, KS_PAGE);
	w_str(f, "header_page");
	w_pieces64(f, header_page);
	w_str(f, "header_event");
	w_pieces64(f, header_event);
	w_u32(f, 0);			/* ftrace formats */
	w_u32(f, 2);			/* systems */
	w_str(f, "sched");
	w_u32(f, 1);
	w_pieces64(f, fmt_switch);
	w_str(f, "grtrace_lanes");
	w_u32(f, ARRAY_SIZE(formats));
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		w_pieces64(f, formats[i]);
	w_u32(f, 0);			/* kallsyms */
	w_u32(f, 0);			/* printk formats */
	w_text64(f, cmd);
	free(cmd);
	w_u32(f, ks->nr_cpu);
	fwrite("options  ", 1, 10, f);
	if (ex->t.clock) {
		snprintf(clock, sizeof(clock), "[%s]\n", ex->t.clock);
		w_u16(f, TRACEDAT_OPTION_TRACECLOCK);
		w_u32(f, strlen(clock) + 1);
		w_str(f, clock);
	}
	w_u16(f, 0);
	fwrite("flyrecord", 1, 10, f);
	if (fflush(f)) {
		fclose(f);
		free(head);
		return -1;
	}
	off = len + 16 * ks->nr_cpu;
	off = (off + KS_PAGE - 1) / KS_PAGE * KS_PAGE;
	for (k = 0; k < ks->nr_cpu; k++) {
		w_u64(f, off);
		w_u64(f, ks->cpu[k].pages * KS_PAGE);
		off += ks->cpu[k].pages * KS_PAGE;
	}
	if (fclose(f)) {
		free(head);
		return -1;
	}
	fwrite(head, 1, len, out);
	free(head);
	for (pos = len; pos % KS_PAGE; pos++)
		fputc(0, out);
	ks->out = out;
	for (k = 0; k < ks->nr_cpu; k++)
		make_cpu(ex, ks, k, t0);
	return 0;
}

static void summary(struct gr_exporter *ex, struct ks_file *ks, FILE *out,
		    const char *path)
{
	char name[160];
	int k;

	fprintf(out, "%s: %d lanes, %d rows of phases, %zu jobs, clock %s\n", path,
		ks->nr_lanes, ks->nr_cpu, ex->jobs.nr,
		ex->t.clock ? ex->t.clock : "of the input");
	for (k = 0; k < ks->nr_cpu && k < KS_LISTED; k++) {
		lane_name(ex, &ks->cpu[k], name, sizeof(name));
		fprintf(out, "  cpu %d: %s: %zu jobs\n", k, name, ks->cpu[k].boxes);
	}
	if (ks->nr_cpu > KS_LISTED)
		fprintf(out, "  (%d rows more: trace-cmd report --cpu N names row N)\n",
			ks->nr_cpu - KS_LISTED);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The start of the 120 ms in which the most phases start: the session's view */
static __u64 busiest(const struct gr_exporter *ex)
{
	const __u64 width = 120 * 1000 * 1000ULL;
	__u64 *ts = gr_zalloc(ex->nr_sl * sizeof(*ts)), best_ts = 0;
	size_t i, j = 0, best = 0;

	for (i = 0; i < ex->nr_sl; i++)
		ts[i] = ex->sl[i].start;
	qsort(ts, ex->nr_sl, sizeof(*ts), cmp_u64);
	for (i = 0; i < ex->nr_sl; i++) {
		while (ts[i] - ts[j] >= width)
			j++;
		if (i - j + 1 > best) {
			best = i - j + 1;
			best_ts = ts[j];
		}
	}
	free(ts);
	return best_ts;
}

static void json_stream(FILE *f, int id, const char *path, int ncpu, const struct ks_file *ks)
{
	struct stat st;
	int k;

	fprintf(f, "  {\"type\": \"kshark.config.stream\", \"stream id\": %d,\n", id);
	fprintf(f, "   \"data\": {\"type\": \"kshark.config.data\", \"file\": ");
	gr_json_str(f, path);
	fprintf(f, ", \"name\": \"top buffer\", \"time\": %lld},\n",
		stat(path, &st) ? 0LL : (long long)st.st_mtime);
	fprintf(f, "   \"filters\": {\"type\": \"kshark.config.filter\", \"filter mask\": 7},\n");
	/* sched_events: the switches of the lanes give their tasks' boxes */
	fprintf(f, "   \"plugins\": {\"type\": \"kshark.config.plugins\", \"registered\": ");
	fprintf(f, "[%s]},\n   \"CPUPlots\": [", ks ? "[\"sched_events\", true]" : "");
	for (k = 0; k < ncpu; k++)
		fprintf(f, "%s%d", k ? ", " : "", k);
	fprintf(f, "], \"TaskPlots\": [");
	for (k = 0; ks && k < ks->nr_cpu; k++)
		if (!k || ks->cpu[k].pid != ks->cpu[k - 1].pid)
			fprintf(f, "%s%d", k ? ", " : "", ks->cpu[k].pid);
	fprintf(f, "]}");
}

/*
 * A KernelShark session (kshark.config.session, as KernelShark 2.2 reads
 * it): the input if it is a trace.dat, every CPU of it, and the lanes file
 * with the rows of its tasks, the lanes, instead of its CPUs; zoomed on
 * the busiest 120 ms.  KernelShark checks each file's time of change.
 */
static int write_session(const struct gr_exporter *ex, const struct ks_file *ks,
			 const char *lanes, const char *path)
{
	char *abs_lanes = realpath(lanes, NULL), *abs_in = NULL;
	__u64 from = busiest(ex);
	int id = 0, ret;
	FILE *f;

	if (ex->t.is_tracedat)
		abs_in = realpath(ex->t.input, NULL);
	f = fopen(path, "w");
	if (!f || !abs_lanes || (ex->t.is_tracedat && !abs_in)) {
		gr_err_msg("%s: %s\n", f ? lanes : path, strerror(errno));
		if (f)
			fclose(f);
		free(abs_lanes);
		free(abs_in);
		return -1;
	}
	fprintf(f, "{\"type\": \"kshark.config.session\",\n");
	fprintf(f, " \"MainWindow\": [1200, 980], \"Splitter\": [800, 120],\n");
	fprintf(f, " \"Model\": {\"type\": \"kshark.config.model\",\n");
	fprintf(f, "  \"range\": [%llu, %llu], \"bins\": 1000},\n",
		(unsigned long long)from, (unsigned long long)from + 120000000ULL);
	fprintf(f, " \"data streams\": [\n");
	if (abs_in) {
		json_stream(f, id++, abs_in, ex->t.dat_cpus, NULL);
		fprintf(f, ",\n");
	}
	json_stream(f, id, abs_lanes, 0, ks);
	fprintf(f, "\n ],\n \"ComboPlots\": [],\n");
	/* KernelShark 2.2 crashes on a session without markers */
	fprintf(f, " \"Markers\": {\"type\": \"kshark.config.markers\",\n");
	fprintf(f, "  \"markA\": {\"isSet\": false}, \"markB\": {\"isSet\": false},\n");
	fprintf(f, "  \"Active\": \"A\"},\n \"ViewTop\": 0, \"ColorScheme\": 0.75,\n");
	fprintf(f, " \"User Plugins\": {\"type\": \"kshark.config.plugins\",\n");
	fprintf(f, "  \"obj. files\": []}}\n");
	ret = ferror(f) | fclose(f);
	if (ret)
		gr_err_msg("%s: write error\n", path);
	free(abs_lanes);
	free(abs_in);
	return ret ? -1 : 0;
}

/*
 * gr_export_kernelshark - write the jobs of @ex as KernelShark lanes to @path
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_export_kernelshark(struct gr_exporter *ex, const char *path, const char *session)
{
	struct ks_file ks = { 0 };
	__u64 t0 = ~0ULL;
	int k, ret = -1;
	bool to_stdout;
	size_t i;
	FILE *f;

	if (!ex->nr_sl) {
		gr_err_msg("%s: no job with two of its stages recorded: no lanes to write\n",
			   ex->t.input);
		return -1;
	}
	make_cpus(ex, &ks);
	for (i = 0; i < ex->nr_sl; i++)
		if (ex->sl[i].start < t0)
			t0 = ex->sl[i].start;
	for (k = 0; k < ks.nr_cpu; k++)
		make_cpu(ex, &ks, k, t0);

	to_stdout = !strcmp(path, "-");
	f = to_stdout ? stdout : fopen(path, "w");
	if (!f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		goto out;
	}
	ret = write_file(ex, &ks, f, t0);
	if (ferror(f))
		ret = -1;
	if ((to_stdout ? fflush(f) : fclose(f)) || ret) {
		gr_err_msg("%s: write error\n", path);
		ret = -1;
	}
	if (!ret && session)
		ret = write_session(ex, &ks, path, session);
	if (!ret)
		summary(ex, &ks, to_stdout ? stderr : stdout, path);
out:
	free(ks.cpu);
	return ret;
}

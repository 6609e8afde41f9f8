// SPDX-License-Identifier: LGPL-2.1
/*
 * libtraceevent plugin for the grtrace (GPU ring trace) events, for
 * trace-cmd report, KernelShark and every other libtraceevent user.
 *
 * Each event prints as "<type> <dev> <ring> <engine> fence=<ctx>:<seqno>"
 * and its own details.  The plugin remembers, per trace, when the recent
 * jobs (fences) were submitted, committed, started and ended, and when
 * they began to wait on a dependency fence, so that later events of the
 * same job show durations, from the record timestamps, in microseconds:
 *
 *	exec=	START -> END		device=	COMMIT -> END, without START
 *	queue=	COMMIT -> START, when the driver reports START
 *	total=	SUBMIT -> COMPLETE	wait=	sync_wait_enter -> exit
 *
 * A duration is printed only when its first event was printed before,
 * as trace-cmd report prints the events in time order.  The last
 * GR_MAX_JOBS jobs and waits are remembered, completed ones included, so
 * that a line printed again (KernelShark redraws) reads the same; older
 * ones are evicted.  A missing field prints as "!".
 *
 * grtrace_summary, one ring's aggregator window, prints as "summary <dev>
 * <ring> window=" with its jobs' latency (average, min, max), the ring's
 * busy share of the window and its queue depth.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define GR_MAX_JOBS	4096		/* jobs and waits remembered */
#define GR_HASH_SIZE	4096		/* hash buckets, a power of two */
#define BIT(nr)		(1U << (nr))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define GR_F_PREEMPT	BIT(0)		/* ctx_switch flags: preemption */

/* Event types; the first GR_NR_STAMPS have their time remembered */
enum gr_type {
	GR_SUBMIT,
	GR_COMMIT,
	GR_START,
	GR_END,
	GR_WAIT_ENTER,
	GR_NR_STAMPS,
	GR_COMPLETE = GR_NR_STAMPS,
	GR_WAIT_EXIT,
	GR_CTX_SWITCH,
	GR_IRQ,
	GR_ERROR,
	GR_RING_REMOVE,
	GR_SUMMARY,
	GR_NR_TYPES,
};

static const char * const gr_events[GR_NR_TYPES] = {
	[GR_SUBMIT]	= "grtrace_submit",
	[GR_COMMIT]	= "grtrace_commit",
	[GR_START]	= "grtrace_start",
	[GR_END]	= "grtrace_end",
	[GR_WAIT_ENTER]	= "grtrace_sync_wait_enter",
	[GR_COMPLETE]	= "grtrace_complete",
	[GR_WAIT_EXIT]	= "grtrace_sync_wait_exit",
	[GR_CTX_SWITCH]	= "grtrace_ctx_switch",
	[GR_IRQ]	= "grtrace_irq",
	[GR_ERROR]	= "grtrace_error",
	[GR_RING_REMOVE] = "grtrace_ring_remove",
	[GR_SUMMARY]	= "grtrace_summary",
};

static const char * const gr_engines[] = {
	"graphics", "compute", "copy", "video_decode", "video_encode", "other",
};

static const char * const gr_errors[] = { "other", "timeout", "reset" };

/* A job, key {fence context, seqno, 0, 0}, or a wait of a job on a fence */
struct gr_job {
	struct gr_job *next;		/* hash chain */
	unsigned long long key[4];	/* fence, then dependency fence */
	bool used;
	bool wait;
	unsigned int seen;		/* BIT(type) of each ts[type] set */
	unsigned long long ts[GR_NR_STAMPS];
};

struct gr_state;

/* Context of the handler of one event type */
struct gr_handler {
	struct gr_state *state;
	enum gr_type type;
};

/* The jobs of one trace (tep handle) */
struct gr_state {
	struct gr_state *next;
	struct tep_handle *tep;
	struct gr_handler handler[GR_NR_TYPES];
	unsigned int oldest;		/* next entry of jobs[] to use */
	struct gr_job *hash[GR_HASH_SIZE];
	struct gr_job jobs[GR_MAX_JOBS];
};

/* KernelShark may print from several threads */
static pthread_mutex_t gr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_state *gr_states;

static unsigned int gr_hash(const unsigned long long *key, bool wait)
{
	unsigned long long h = wait;
	int i;

	for (i = 0; i < 4; i++)
		h = (h ^ key[i]) * 0x9e3779b97f4a7c15ULL;
	return (h >> 32) & (GR_HASH_SIZE - 1);
}

static struct gr_job *gr_find(struct gr_state *st,
			      const unsigned long long *key, bool wait)
{
	struct gr_job *job = st->hash[gr_hash(key, wait)];

	while (job && (job->wait != wait ||
		       memcmp(job->key, key, sizeof(job->key))))
		job = job->next;
	return job;
}

/* Reuse the oldest entry for a new job */
static struct gr_job *gr_new(struct gr_state *st,
			     const unsigned long long *key, bool wait)
{
	struct gr_job *job = &st->jobs[st->oldest];
	struct gr_job **p;

	st->oldest = (st->oldest + 1) % GR_MAX_JOBS;
	if (job->used) {
		p = &st->hash[gr_hash(job->key, job->wait)];
		while (*p && *p != job)
			p = &(*p)->next;
		if (*p)
			*p = job->next;
	}
	memset(job, 0, sizeof(*job));
	memcpy(job->key, key, sizeof(job->key));
	job->wait = wait;
	job->used = true;
	p = &st->hash[gr_hash(key, wait)];
	job->next = *p;
	*p = job;
	return job;
}

static bool gr_seen(const struct gr_job *job, enum gr_type type)
{
	return job && job->seen & BIT(type);
}

/* Remember the time of a stage; SUBMIT at another time is a new job */
static void gr_stamp(struct gr_state *st, const unsigned long long *key,
		     enum gr_type type, unsigned long long ts)
{
	bool wait = type == GR_WAIT_ENTER;
	struct gr_job *job = gr_find(st, key, wait);

	if (!job)
		job = gr_new(st, key, wait);
	else if ((type == GR_SUBMIT || wait) && gr_seen(job, type) &&
		 job->ts[type] != ts)
		job->seen = 0;
	job->seen |= BIT(type);
	job->ts[type] = ts;
}

/* " name=12.345us", nothing when unknown or negative */
static void gr_put_us(struct trace_seq *s, const char *name,
		      unsigned long long from, unsigned long long to)
{
	if (to >= from)
		trace_seq_printf(s, " %s=%llu.%03lluus", name,
				 (to - from) / 1000, (to - from) % 1000);
}

static void gr_put_stage(struct trace_seq *s, const char *name,
			 const struct gr_job *job, enum gr_type from,
			 unsigned long long to)
{
	if (gr_seen(job, from))
		gr_put_us(s, name, job->ts[from], to);
}

/* A number field: false if the event or the record lacks it */
static bool gr_val(struct tep_event *event, struct tep_record *record,
		   const char *name, unsigned long long *val)
{
	struct tep_format_field *field = tep_find_field(event, name);
	int shift;

	if (!field || field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
	    field->offset < 0 || field->offset + field->size > record->size ||
	    tep_read_number_field(field, record->data, val))
		return false;
	if (field->flags & TEP_FIELD_IS_SIGNED && field->size < 8) {
		shift = 64 - 8 * field->size;
		*val = (unsigned long long)((long long)(*val << shift) >> shift);
	}
	return true;
}

/* A string field, __string() or char array: NULL if missing */
static const char *gr_str(struct tep_event *event, struct tep_record *record,
			  const char *name, int *len)
{
	struct tep_format_field *field = tep_find_field(event, name);
	unsigned long long loc;
	int off, size;

	if (!field || field->offset < 0 ||
	    field->offset + field->size > record->size)
		return NULL;
	off = field->offset;
	size = field->size;
	if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tep_read_number_field(field, record->data, &loc))
			return NULL;
		off = loc & 0xffff;
		size = (loc >> 16) & 0xffff;
		if (field->flags & TEP_FIELD_IS_RELATIVE)
			off += field->offset + field->size;
		if (off + size > record->size)
			return NULL;
	}
	*len = (int)strnlen((const char *)record->data + off, size);
	return (const char *)record->data + off;
}

/* " name=value", " name=!" when the field is missing */
static void gr_put_val(struct trace_seq *s, struct tep_event *event,
		       struct tep_record *record, const char *name)
{
	unsigned long long val;

	if (gr_val(event, record, name, &val))
		trace_seq_printf(s, " %s=%llu", name, val);
	else
		trace_seq_printf(s, " %s=!", name);
}

static void gr_put_str(struct trace_seq *s, struct tep_event *event,
		       struct tep_record *record, const char *name,
		       const char *label)
{
	const char *str;
	int len;

	str = gr_str(event, record, name, &len);
	trace_seq_printf(s, " %s%.*s", label, str ? len : 1, str ? str : "!");
}

static void gr_put_name(struct trace_seq *s, const char * const *names,
			unsigned int nr, unsigned long long val)
{
	if (val < nr)
		trace_seq_printf(s, "%s", names[val]);
	else
		trace_seq_printf(s, "%lld", (long long)val);
}

/* COMPLETE status: "ok", "-EIO" or "-123" */
static void gr_put_status(struct trace_seq *s, long long status)
{
	const char *name = NULL;

	if (!status) {
		trace_seq_puts(s, " status=ok");
		return;
	}
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	if (status < 0 && status > -4096)
		name = strerrorname_np((int)-status);
#endif
	if (name)
		trace_seq_printf(s, " status=-%s", name);
	else
		trace_seq_printf(s, " status=%lld", status);
}

/* The dependency fence of a sync wait, into key[2..3] */
static bool gr_put_dep(struct trace_seq *s, struct tep_event *event,
		       struct tep_record *record, unsigned long long *key)
{
	if (gr_val(event, record, "aux_context", &key[2]) &&
	    gr_val(event, record, "aux_seqno", &key[3])) {
		trace_seq_printf(s, " dep=%llu:%llu", key[2], key[3]);
		return true;
	}
	trace_seq_puts(s, " dep=!");
	return false;
}

static void gr_ctx_switch(struct trace_seq *s, struct tep_event *event,
			  struct tep_record *record)
{
	unsigned long long val;

	trace_seq_puts(s, " ctx ");
	if (gr_val(event, record, "ctx_id", &val))
		trace_seq_printf(s, "%llu", val);
	else
		trace_seq_putc(s, '!');
	trace_seq_puts(s, " -> ");
	if (gr_val(event, record, "aux_context", &val))
		trace_seq_printf(s, "%llu", val);
	else
		trace_seq_putc(s, '!');
	if (gr_val(event, record, "flags", &val) && val & GR_F_PREEMPT)
		trace_seq_puts(s, " preempt");
}

static void gr_submit(struct trace_seq *s, struct tep_event *event,
		      struct tep_record *record)
{
	unsigned long long val;

	gr_put_val(s, event, record, "pid");
	gr_put_str(s, event, record, "comm", "comm=");
	gr_put_val(s, event, record, "depth");
	/* The DRM client, where the driver names it (the scheduler does) */
	if (gr_val(event, record, "client_id", &val) && val)
		trace_seq_printf(s, " client_id=%llu", val);
}

/* The details and durations of a job event; fence: key[0..1] is valid */
static void gr_job_event(struct trace_seq *s, struct tep_event *event,
			 struct tep_record *record, struct gr_handler *h,
			 unsigned long long *key, bool fence)
{
	unsigned long long ts = record->ts, val;
	struct gr_state *st = h->state;
	bool dep = false;
	struct gr_job *job;

	if (h->type == GR_SUBMIT)
		gr_submit(s, event, record);
	if (h->type == GR_WAIT_ENTER || h->type == GR_WAIT_EXIT)
		dep = gr_put_dep(s, event, record, key);
	if (h->type == GR_ERROR) {
		trace_seq_puts(s, " code=");
		if (gr_val(event, record, "status", &val))
			gr_put_name(s, gr_errors, ARRAY_SIZE(gr_errors), val);
		else
			trace_seq_putc(s, '!');
	}
	if (h->type == GR_COMPLETE) {
		if (gr_val(event, record, "status", &val))
			gr_put_status(s, (long long)val);
		else
			trace_seq_puts(s, " status=!");
	}
	if (!fence || h->type == GR_IRQ || h->type == GR_ERROR)
		return;

	pthread_mutex_lock(&gr_lock);
	job = gr_find(st, key, false);
	switch (h->type) {
	case GR_END:
		if (gr_seen(job, GR_START))
			gr_put_stage(s, "exec", job, GR_START, ts);
		else
			gr_put_stage(s, "device", job, GR_COMMIT, ts);
		break;
	case GR_COMPLETE:
		if (gr_seen(job, GR_START) && gr_seen(job, GR_END))
			gr_put_stage(s, "exec", job, GR_START, job->ts[GR_END]);
		else if (gr_seen(job, GR_END))
			gr_put_stage(s, "device", job, GR_COMMIT, job->ts[GR_END]);
		gr_put_stage(s, "total", job, GR_SUBMIT, ts);
		/* Without START, "device" is already COMMIT -> END. */
		if (gr_seen(job, GR_START))
			gr_put_stage(s, "queue", job, GR_COMMIT, job->ts[GR_START]);
		break;
	case GR_WAIT_EXIT:
		if (dep)
			gr_put_stage(s, "wait", gr_find(st, key, true),
				     GR_WAIT_ENTER, ts);
		break;
	default:
		break;
	}
	if (h->type < GR_NR_STAMPS && (dep || h->type != GR_WAIT_ENTER))
		gr_stamp(st, key, h->type, ts);
	pthread_mutex_unlock(&gr_lock);
}

/*
 * grtrace_summary: the window's length, its jobs' latency (average, min,
 * max), the ring's busy share of the window, queue depth, errors, drops
 */
static void gr_summary(struct trace_seq *s, struct tep_event *event,
		       struct tep_record *record)
{
	static const char * const name[] = {
		"window_ns", "jobs", "lat_sum", "lat_min", "lat_max",
		"dev_sum", "depth_sum", "depth_n", "depth_peak",
	};
	enum { WIN, JOBS, LSUM, LMIN, LMAX, BUSY, DSUM, DN, DPEAK, NR };
	unsigned long long v[NR];
	unsigned int i;

	for (i = 0; i < NR; i++) {
		if (!gr_val(event, record, name[i], &v[i])) {
			trace_seq_printf(s, " %s=!", name[i]);
			return;
		}
	}
	gr_put_us(s, "window", 0, v[WIN]);
	trace_seq_printf(s, " jobs=%llu", v[JOBS]);
	if (v[JOBS]) {
		gr_put_us(s, "lat_avg", 0, v[LSUM] / v[JOBS]);
		gr_put_us(s, "lat_min", 0, v[LMIN]);
		gr_put_us(s, "lat_max", 0, v[LMAX]);
	}
	if (v[WIN] && v[BUSY] <= v[WIN])
		trace_seq_printf(s, " busy=%llu.%llu%%", v[BUSY] * 100 / v[WIN],
				 v[BUSY] * 1000 / v[WIN] % 10);
	if (v[DN])
		trace_seq_printf(s, " depth_avg=%llu.%02llu depth_peak=%llu",
				 v[DSUM] / v[DN], v[DSUM] * 100 / v[DN] % 100,
				 v[DPEAK]);
	gr_put_val(s, event, record, "errors");
	gr_put_val(s, event, record, "dropped");
}

static int gr_handler(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	struct gr_handler *h = context;
	unsigned long long key[4] = { 0 }, val;
	bool fence;

	trace_seq_puts(s, gr_events[h->type] + strlen("grtrace_"));
	gr_put_str(s, event, record, "dev", "");
	gr_put_str(s, event, record, "ring", "");
	if (h->type == GR_SUMMARY) {
		gr_summary(s, event, record);
		return 0;
	}
	trace_seq_putc(s, ' ');
	if (gr_val(event, record, "engine", &val))
		gr_put_name(s, gr_engines, ARRAY_SIZE(gr_engines), val);
	else
		trace_seq_putc(s, '!');

	if (h->type == GR_CTX_SWITCH) {
		gr_ctx_switch(s, event, record);
		return 0;
	}
	if (h->type == GR_RING_REMOVE) {
		if (gr_val(event, record, "ring_id", &val))
			trace_seq_printf(s, " ring_id=%llu", val);
		return 0;
	}
	fence = gr_val(event, record, "fence_context", &key[0]) &&
		gr_val(event, record, "fence_seqno", &key[1]);
	if (fence)
		trace_seq_printf(s, " fence=%llu:%llu", key[0], key[1]);
	else
		trace_seq_puts(s, " fence=!");
	gr_job_event(s, event, record, h, key, fence);
	return 0;
}

static void gr_unregister(struct gr_state *st)
{
	int i;

	for (i = 0; i < GR_NR_TYPES; i++)
		tep_unregister_event_handler(st->tep, -1, "grtrace",
					     gr_events[i], gr_handler,
					     &st->handler[i]);
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct gr_state *st = calloc(1, sizeof(*st));
	int i;

	if (!st)
		return -1;
	st->tep = tep;
	for (i = 0; i < GR_NR_TYPES; i++) {
		st->handler[i].state = st;
		st->handler[i].type = i;
		if (tep_register_event_handler(tep, -1, "grtrace", gr_events[i],
					       gr_handler,
					       &st->handler[i]) < 0) {
			gr_unregister(st);
			free(st);
			return -1;
		}
	}
	pthread_mutex_lock(&gr_lock);
	st->next = gr_states;
	gr_states = st;
	pthread_mutex_unlock(&gr_lock);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct gr_state **p, *st;

	pthread_mutex_lock(&gr_lock);
	for (p = &gr_states; *p && (*p)->tep != tep; p = &(*p)->next)
		;
	st = *p;
	if (st)
		*p = st->next;
	pthread_mutex_unlock(&gr_lock);
	if (!st)
		return;
	gr_unregister(st);
	free(st);
}

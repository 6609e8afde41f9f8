// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the grtrace events of a trace-cmd recording (trace.dat), read
 * with libtracecmd, or of an ftrace instance, read with libtracefs, as an
 * input.
 *
 * "trace-cmd record -e grtrace" keeps the tracepoints of the same jobs as
 * the relay stream, in the clock of the ftrace ring buffer.  Reading them
 * gives the tool's reports and exports in that clock, which is also the
 * clock of every other event of the recording.  Each grtrace_<type> event
 * becomes a record of that type; its fields are those of the relay payload
 * under the same names.  The recording holds no gseq: events get one in
 * the order libtracecmd merges the CPUs (by time).  The virtio_gpu_cmd_queue
 * events, if recorded, are kept aside (gr_trace.vcmd): they give each
 * virtio-gpu command its fence id, for the host's side (host.c).
 */
#define _GNU_SOURCE		/* RTLD_DEFAULT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat.h"
#include "upstream.h"
#include "utils.h"

#include <event-parse.h>
#include <tracefs.h>

#ifdef HAVE_LIBTRACECMD
#include <dlfcn.h>
#include <trace-cmd.h>
#endif

/* @t's clock is @name (copied), or stays unknown for NULL or "" */
static void set_clock(struct gr_trace *t, const char *name)
{
	if (!name || !*name)
		return;
	snprintf(t->clock_name, sizeof(t->clock_name), "%s", name);
	t->clock = t->clock_name;
}

#define TRACEDAT_MAGIC		"\027\010\104tracing"

/* Returns: whether @path starts like a trace-cmd data file. */
bool gr_is_tracedat(const char *path)
{
	char buf[sizeof(TRACEDAT_MAGIC) - 1];
	struct stat st;
	bool ret;
	int fd;

	/*
	 * A regular file only: reading a pipe's first bytes would take them
	 * from the stream, and opening a FIFO would meet its writer
	 */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	ret = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	      read(fd, buf, sizeof(buf)) == sizeof(buf) &&
	      !memcmp(buf, TRACEDAT_MAGIC, sizeof(buf));
	close(fd);
	return ret;
}

struct dat_loader {
	struct gr_trace *t;
	struct tep_handle *tep;
	struct gr_upstream *up;	/* NULL: grtrace's events only (grtrace top) */
	__u64 gseq;
	bool live;	/* grtrace top's events: no host join to keep commands for */
	bool stream;	/* a stream (gr_dat): nor for it (report --host loads whole) */
	bool no_grtrace;	/* a stream of the kernel's events: grtrace's counted only */
	int err;
};

static int dat_type(const char *name)
{
	unsigned int i;

	if (strncmp(name, "grtrace_", 8))
		return -1;
	for (i = 0; i < GRTRACE_EV_NR; i++)
		if (!strcmp(name + 8, gr_type_name(i)))
			return i;
	return -1;
}

/* A virtio_gpu_cmd_queue event: the fence id of a queued command */
static void vcmd_record(struct dat_loader *l, struct tep_event *event,
			struct tep_record *rec)
{
	struct gr_trace *t = l->t;
	struct gr_vcmd *v;

	if (t->nr_vcmd == t->cap_vcmd) {
		t->cap_vcmd = t->cap_vcmd ? 2 * t->cap_vcmd : 1024;
		t->vcmd = gr_realloc(t->vcmd, t->cap_vcmd, sizeof(*t->vcmd));
	}
	v = &t->vcmd[t->nr_vcmd++];
	v->ts = rec->ts;
	v->fence_id = gr_tep_num(event, rec, "fence_id");
	/* Before the seqno field, a fenced command is job 0:fence id (upstream.c) */
	v->seqno = tep_find_field(event, "seqno") ? gr_tep_num(event, rec, "seqno") : v->fence_id;
	v->type = gr_tep_num(event, rec, "type");
	v->flags = gr_tep_num(event, rec, "flags");
	v->ctx_id = gr_tep_num(event, rec, "ctx_id");
	v->vq = gr_tep_num(event, rec, "vq");
	v->dev = (__s32)gr_tep_num(event, rec, "dev");
}

/* One ftrace event of CPU @cpu, in time order: a record if it is grtrace's */
static int dat_event(struct dat_loader *l, struct tep_event *event,
		     struct tep_record *rec, int cpu)
{
	struct grtrace_job_payload *p;
	struct gr_event *ev;
	struct gr_ring *r;
	char dev[sizeof(r->dev)], ring[sizeof(r->name)];
	int type;

	if (cpu >= l->t->dat_cpus)
		l->t->dat_cpus = cpu + 1;
	if (!event)
		return 0;
	if (!l->live && !l->stream && !strcmp(event->system, "virtio_gpu") &&
	    !strcmp(event->name, "virtio_gpu_cmd_queue"))
		vcmd_record(l, event, rec);
	if (l->up && gr_upstream_event(l->up, l->t, l->tep, event, rec, cpu, &l->gseq))
		return 0;
	if (strcmp(event->system, "grtrace"))
		return 0;
	type = dat_type(event->name);
	/* Ids are not reused within a recording: nothing to undo. */
	if (type < 0 && !strcmp(event->name, "grtrace_ring_remove"))
		return 0;
	if (type < 0) {
		l->t->unknown++;
		return 0;
	}
	if (l->no_grtrace)
		return 0;
	ev = gr_trace_add(l->t);
	ev->ts = rec->ts;
	ev->gseq = ++l->gseq;
	ev->cseq = ev->gseq;
	ev->cpu = cpu;
	ev->type = type;
	ev->size = GR_REC_MIN + sizeof(*p);
	ev->off = rec->offset;
	p = &ev->job;
	p->ctx_id = gr_tep_num(event, rec, "ctx_id");
	p->fence_context = gr_tep_num(event, rec, "fence_context");
	p->fence_seqno = gr_tep_num(event, rec, "fence_seqno");
	p->aux_context = gr_tep_num(event, rec, "aux_context");
	p->aux_seqno = gr_tep_num(event, rec, "aux_seqno");
	p->ring_id = gr_tep_num(event, rec, "ring_id");
	p->engine = gr_tep_num(event, rec, "engine");
	p->flags = gr_tep_num(event, rec, "flags");
	p->status = (__s32)gr_tep_num(event, rec, "status");
	p->depth = gr_tep_num(event, rec, "depth");
	p->pid = gr_tep_num(event, rec, "pid");
	p->tgid = gr_tep_num(event, rec, "tgid");
	p->client_id = gr_tep_num(event, rec, "client_id");
	gr_tep_str(event, rec, "comm", p->comm, sizeof(p->comm));
	gr_name_clean(p->comm, sizeof(p->comm));
	/* A wait of no job names its thread: the one that recorded it */
	if (!p->pid && (type == GRTRACE_EV_SYNC_WAIT_ENTER || type == GRTRACE_EV_SYNC_WAIT_EXIT))
		p->pid = tep_data_pid(l->tep, rec);
	p->ring_id = gr_ring_local(l->t, p->ring_id);
	r = &l->t->rings[p->ring_id];
	if (!r->known) {
		gr_tep_str(event, rec, "dev", dev, sizeof(dev));
		gr_tep_str(event, rec, "ring", ring, sizeof(ring));
		if (*dev && *ring) {
			r->known = true;
			memcpy(r->dev, dev, sizeof(dev));
			memcpy(r->name, ring, sizeof(ring));
			gr_name_clean(r->dev, sizeof(r->dev));
			gr_name_clean(r->name, sizeof(r->name));
		}
		r->engine = p->engine;
	}
	r->used = true;
	r->by_type[type]++;
	l->t->by_type[type]++;
	return 0;
}

/*
 * Whose records make the jobs, once @t counts those of each origin: by
 * default grtrace's if there are any, else those made of the kernel's own
 * events (gr_trace.use); the rings met in the kernel's events are numbered
 * if those are kept.
 */
static enum gr_origin dat_keep(struct gr_upstream *up, struct gr_trace *t)
{
	enum gr_origin keep;

	if (t->use == GR_USE_UPSTREAM || (t->use == GR_USE_AUTO && !t->grtrace_recs))
		keep = GR_ORIGIN_UPSTREAM;
	else
		keep = GR_ORIGIN_GRTRACE;
	t->use = keep == GR_ORIGIN_UPSTREAM ? GR_USE_UPSTREAM : GR_USE_GRTRACE;
	t->unused_recs = keep == GR_ORIGIN_UPSTREAM ? t->grtrace_recs : t->upstream_recs;
	if (keep == GR_ORIGIN_UPSTREAM)
		gr_upstream_number(up, t);
	return keep;
}

/*
 * The records of the events a trace.dat's jobs are made of (gr_trace.use):
 * by default grtrace's if it has any, else those made of the kernel's own
 * events.  The others are dropped and counted, and the rings and counts
 * are those of what is left.
 */
static void dat_choose(struct dat_loader *l)
{
	struct gr_trace *t = l->t;
	enum gr_origin keep;
	size_t i, n = 0;
	__u32 k;

	gr_upstream_finish(l->up, t);
	for (i = 0; i < t->nr_ev; i++) {
		if (t->ev[i].origin == GR_ORIGIN_UPSTREAM)
			t->upstream_recs++;
		else
			t->grtrace_recs++;
	}
	keep = dat_keep(l->up, t);
	if (!t->unused_recs)
		return;
	memset(t->by_type, 0, sizeof(t->by_type));
	for (k = 0; k < t->nr_rings; k++) {
		t->rings[k].used = false;
		memset(t->rings[k].by_type, 0, sizeof(t->rings[k].by_type));
	}
	for (i = 0; i < t->nr_ev; i++) {
		struct gr_event *ev = &t->ev[i];

		if (ev->origin != keep)
			continue;
		t->ev[n++] = *ev;
		t->rings[ev->job.ring_id].used = true;
		t->rings[ev->job.ring_id].by_type[ev->type]++;
		t->by_type[ev->type]++;
	}
	t->nr_ev = n;
	/* In the order read, numbered again: the records left out are no gap */
	for (i = 0; i < n; i++) {
		t->ev[i].gseq = i + 1;
		t->ev[i].cseq = i + 1;
	}
	/* A ring that none of the records kept names is not described */
	for (k = 0; k < t->nr_rings; k++)
		if (!t->rings[k].used)
			t->rings[k].known = false;
}

/*
 * gr_tep_event - one ftrace event, read by the caller (grtrace top), into @t
 * @up: the state of the kernel's own events (upstream.c), or NULL for
 *	grtrace's events alone
 * @gseq: the sequence number of the last event, for the next one
 *
 * Returns: 0; the records the event makes are added to @t->ev (no table
 * of virtio-gpu commands for a host join: top has none).
 */
int gr_tep_event(struct gr_trace *t, struct tep_handle *tep, struct gr_upstream *up,
		 __u64 *gseq, struct tep_event *event, struct tep_record *rec, int cpu)
{
	struct dat_loader l = { .t = t, .tep = tep, .up = up, .gseq = *gseq, .live = true };
	int ret = dat_event(&l, event, rec, cpu);

	*gseq = l.gseq;
	return ret;
}

static int inst_record(struct tep_event *event, struct tep_record *rec, int cpu,
		       void *data)
{
	return dat_event(data, event, rec, cpu);
}

static void dat_none(const struct gr_trace *t, const char *path);

/*
 * gr_instance_load - the GPU job events of ftrace instance @name into @t
 *
 * libtracefs reads the instance's per-CPU trace_pipe_raw files, merged by
 * time, which consumes what it reads: reading a persistent instance that
 * holds the previous boot's events empties it (and removes a backup
 * instance, made to be read once).  The events are decoded with the
 * formats of the running kernel, which are those of the previous boot when
 * it ran the same kernel: a persistent ring buffer written by another
 * kernel is reset at boot anyway.  grtrace's events, or the kernel's own,
 * make the jobs as in a trace.dat (dat_choose()).
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_instance_load(struct gr_trace *t, const char *name)
{
	static const char * const systems[] = {
		"grtrace", "virtio_gpu", "gpu_scheduler", "i915", "dma_fence", NULL
	};
	struct dat_loader l = { .t = t };
	struct tracefs_instance *inst;

	if (!tracefs_instance_exists(name)) {
		gr_err_msg("%s: no such ftrace instance (%s/instances)\n", name,
			   tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs");
		return -1;
	}
	inst = tracefs_instance_alloc(NULL, name);
	if (inst) {
		char *clock = tracefs_get_clock(inst);

		set_clock(t, clock);
		free(clock);
	}
	l.tep = tracefs_local_events_system(NULL, systems);
	l.up = gr_upstream_new();
	if (!inst || !l.tep) {
		gr_err_msg("%s: the instance or the event formats cannot be read\n", name);
		l.err = -1;
	} else if (tracefs_iterate_raw_events(l.tep, inst, NULL, 0, inst_record, &l) < 0) {
		gr_err_msg("%s: reading the instance's events failed\n", name);
		l.err = -1;
	}
	if (!l.err)
		dat_choose(&l);
	gr_upstream_free(l.up);
	tep_free(l.tep);
	tracefs_instance_free(inst);
	if (l.err || t->nr_ev)
		return l.err;
	dat_none(t, name);
	return -1;
}

/* Why a recording gave no job events */
static void dat_none(const struct gr_trace *t, const char *path)
{
	if (t->use == GR_USE_UPSTREAM && t->grtrace_recs)
		gr_err_msg("%s: none of the kernel's own GPU job events, only grtrace's\n", path);
	else if (t->use == GR_USE_GRTRACE && t->upstream_recs)
		gr_err_msg("%s: no grtrace events, only the kernel's own (--events kernel)\n",
			   path);
	else
		gr_err_msg("%s: no GPU job events in this recording (see grtrace record)\n",
			   path);
}

#ifdef HAVE_LIBTRACECMD

static int dat_record(struct tracecmd_input *handle, struct tep_record *rec,
		      int cpu, void *data)
{
	struct dat_loader *l = data;

	(void)handle;
	return dat_event(l, tep_find_event_by_record(l->tep, rec), rec, cpu);
}

/*
 * The clock a trace.dat was recorded in, from its TRACECLOCK option, or
 * NULL.  libtracecmd exports tracecmd_get_trace_clock() without declaring
 * it in trace-cmd.h (1.3 to 1.5): looked up, so that a library without it
 * leaves the clock unnamed.
 */
static const char *dat_clock(struct tracecmd_input *handle)
{
	const char *(*get)(struct tracecmd_input *handle);

	*(void **)&get = dlsym(RTLD_DEFAULT, "tracecmd_get_trace_clock");
	return get ? get(handle) : NULL;
}

/* A trace.dat opened for its events, @t's clock set; NULL with the problem printed */
static struct tracecmd_input *dat_open(struct gr_trace *t, const char *path)
{
	struct tracecmd_input *handle;

	handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		/* It starts as one (gr_is_tracedat()) */
		gr_err_msg("%s: a trace-cmd file libtracecmd cannot read: truncated or damaged?\n",
			   path);
		return NULL;
	}
	/*
	 * Not tracecmd_open(): on a file whose data cannot be read, it
	 * closes the half-made handle, and tracecmd_close() of libtracecmd
	 * 1.3 dereferences NULL there.  Such a handle is left unclosed, as
	 * trace-cmd report leaves it.
	 */
	if (tracecmd_init_data(handle) < 0) {
		gr_err_msg("%s: a trace-cmd data file whose events cannot be read: truncated?\n",
			   path);
		return NULL;
	}
	set_clock(t, dat_clock(handle));
	return handle;
}

/*
 * gr_tracedat_load - the grtrace events of a trace.dat into @t
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_tracedat_load(struct gr_trace *t, const char *path)
{
	struct dat_loader l = { .t = t };
	struct tracecmd_input *handle = dat_open(t, path);

	if (!handle)
		return -1;
	l.tep = tracecmd_get_tep(handle);
	l.up = gr_upstream_new();
	if (tracecmd_iterate_events(handle, NULL, 0, dat_record, &l) < 0 && !l.err) {
		gr_err_msg("%s: reading the events failed\n", path);
		l.err = -1;
	}
	dat_choose(&l);
	gr_upstream_free(l.up);
	tracecmd_close(handle);
	if (l.err || t->nr_ev)
		return l.err;
	dat_none(t, path);
	return -1;
}

/*
 * A trace.dat read as a stream (report, export --chrome): the records are
 * made of one ftrace event at a time, in the order tracecmd_iterate_events()
 * gives them (by time; at equal times, the lower CPU first), and handed out
 * before the next event is read, so that the tool holds the jobs in flight,
 * not the recording.  A first pass over the file decides what the whole
 * load decides once it has every record (dat_choose()): whose events the
 * jobs are made of, which rings they name, whether a COMPLETE can be known;
 * it counts its records and drops them as they are made.
 */
struct gr_dat {
	struct dat_loader l;
	struct gr_upstream *up;
	struct tracecmd_input *handle;
	struct tep_record **head;	/* per CPU: its next record, NULL at its end */
	int cpus;
	enum gr_origin keep;
	bool no_complete;	/* the kernel's events, and no dma_fence_signaled */
	struct gr_event *q;	/* the records made of the last event */
	size_t nr_q, cap_q, at_q;
	__u8 *used;		/* first pass: by local ring, bit 1 << origin */
	__u32 nr_used;
};

/*
 * The CPUs of a trace.dat as tracecmd_iterate_events() walks them.
 * libtracecmd exports tracecmd_cpus() without declaring it in trace-cmd.h
 * (1.3 to 1.5): looked up, else the event parser's count (the file's
 * CPUCOUNT option, which trace-cmd writes).
 */
static int dat_cpus(struct tracecmd_input *handle, struct tep_handle *tep)
{
	int (*cpus)(struct tracecmd_input *handle);

	*(void **)&cpus = dlsym(RTLD_DEFAULT, "tracecmd_cpus");
	return cpus ? cpus(handle) : tep_get_cpus(tep);
}

/* Every CPU at its first record */
static void dat_heads(struct gr_dat *d)
{
	int c;

	for (c = 0; c < d->cpus; c++) {
		if (d->head[c])
			tracecmd_free_record(d->head[c]);
		d->head[c] = tracecmd_read_cpu_first(d->handle, c);
	}
}

/* The next record in time, of CPU *@cpu, or NULL at the end */
static struct tep_record *dat_pop(struct gr_dat *d, int *cpu)
{
	struct tep_record *rec;
	int c, best = -1;

	for (c = 0; c < d->cpus; c++)
		if (d->head[c] && (best < 0 || d->head[c]->ts < d->head[best]->ts))
			best = c;
	if (best < 0)
		return NULL;
	rec = d->head[best];
	d->head[best] = tracecmd_read_data(d->handle, best);
	*cpu = best;
	return rec;
}

/* The records of @rec, freed, into the queue: dat_event() adds to t->ev */
static void dat_make(struct gr_dat *d, struct tep_record *rec, int cpu)
{
	struct gr_trace *t = d->l.t;
	struct gr_event *ev = t->ev;
	size_t nr = t->nr_ev, cap = t->cap_ev;

	t->ev = d->q;
	t->nr_ev = 0;
	t->cap_ev = d->cap_q;
	dat_event(&d->l, tep_find_event_by_record(d->l.tep, rec), rec, cpu);
	d->q = t->ev;
	d->nr_q = t->nr_ev;
	d->cap_q = t->cap_ev;
	d->at_q = 0;
	t->ev = ev;
	t->nr_ev = nr;
	t->cap_ev = cap;
	tracecmd_free_record(rec);
}

/* The first pass: counts the records of each origin and the rings they name */
static void dat_scan(struct gr_dat *d)
{
	struct gr_trace *t = d->l.t;
	struct tep_record *rec;
	size_t i;
	int cpu;

	dat_heads(d);
	while ((rec = dat_pop(d, &cpu))) {
		dat_make(d, rec, cpu);
		for (i = 0; i < d->nr_q; i++) {
			const struct gr_event *ev = &d->q[i];
			__u32 r = ev->job.ring_id;

			if (ev->origin == GR_ORIGIN_UPSTREAM)
				t->upstream_recs++;
			else
				t->grtrace_recs++;
			if (r >= d->nr_used) {
				d->used = gr_realloc(d->used, r + 1, 1);
				memset(d->used + d->nr_used, 0, r + 1 - d->nr_used);
				d->nr_used = r + 1;
			}
			d->used[r] |= 1U << ev->origin;
		}
	}
}

void gr_dat_close(struct gr_dat *d)
{
	int c;

	if (!d)
		return;
	for (c = 0; d->head && c < d->cpus; c++)
		if (d->head[c])
			tracecmd_free_record(d->head[c]);
	free(d->head);
	if (d->handle)
		tracecmd_close(d->handle);
	gr_upstream_free(d->up);
	free(d->q);
	free(d->used);
	free(d);
}

/*
 * gr_dat_open - a trace.dat as a stream of records, after a first pass
 *
 * Returns: the stream (read it from its start with gr_dat_rewind()), or
 * NULL with the problem printed.
 */
struct gr_dat *gr_dat_open(struct gr_trace *t, const char *path)
{
	struct gr_dat *d = gr_zalloc(sizeof(*d));
	__u64 kept;
	__u32 k;

	d->l.t = t;
	d->l.stream = true;
	d->handle = dat_open(t, path);
	if (!d->handle)
		goto fail;
	d->l.tep = tracecmd_get_tep(d->handle);
	d->cpus = dat_cpus(d->handle, d->l.tep);
	d->head = gr_zalloc((d->cpus ? d->cpus : 1) * sizeof(*d->head));
	d->up = gr_upstream_new();
	d->l.up = d->up;
	dat_scan(d);
	d->keep = dat_keep(d->up, t);
	kept = d->keep == GR_ORIGIN_UPSTREAM ? t->upstream_recs : t->grtrace_recs;
	if (d->keep == GR_ORIGIN_UPSTREAM)
		d->no_complete = gr_upstream_no_complete(d->up, t);
	/* As there: with records left out, a ring none of those kept names */
	for (k = 0; t->unused_recs && k < t->nr_rings; k++)
		if (k >= d->nr_used || !(d->used[k] & 1U << d->keep))
			t->rings[k].known = false;
	if (!kept) {
		dat_none(t, path);
		goto fail;
	}
	return d;
fail:
	gr_dat_close(d);
	return NULL;
}

/*
 * gr_dat_rewind - the stream at its first record again; the counts made of
 * the events kept are made again (the caller's gr_src_rewind() resets the
 * others)
 */
void gr_dat_rewind(struct gr_dat *d)
{
	struct gr_trace *t = d->l.t;

	gr_upstream_reset(d->up);
	d->l.gseq = 0;
	d->l.no_grtrace = d->keep == GR_ORIGIN_UPSTREAM;
	d->l.up = d->keep == GR_ORIGIN_UPSTREAM ? d->up : NULL;
	if (d->keep == GR_ORIGIN_UPSTREAM) {
		memset(t->upstream, 0, sizeof(t->upstream));
		t->vcmd_unpaired = 0;
		t->old_shared_ids = 0;
	}
	d->nr_q = 0;
	d->at_q = 0;
	dat_heads(d);
}

/*
 * gr_dat_next - the next record of the stream
 *
 * Returns: 1 with @ev set, 0 at the end.
 */
int gr_dat_next(struct gr_dat *d, struct gr_event *ev)
{
	struct tep_record *rec;
	int cpu;

	while (d->at_q == d->nr_q) {
		rec = dat_pop(d, &cpu);
		if (!rec)
			return 0;
		dat_make(d, rec, cpu);
	}
	*ev = d->q[d->at_q++];
	if (d->no_complete && ev->origin == GR_ORIGIN_UPSTREAM)
		ev->cannot |= BIT(GRTRACE_EV_COMPLETE);
	return 1;
}

#else /* !HAVE_LIBTRACECMD */

int gr_tracedat_load(struct gr_trace *t, const char *path)
{
	(void)t;
	gr_err_msg("%s: a trace-cmd data file: grtrace was built without libtracecmd\n",
		   path);
	return -1;
}

struct gr_dat *gr_dat_open(struct gr_trace *t, const char *path)
{
	gr_tracedat_load(t, path);
	return NULL;
}

void gr_dat_rewind(struct gr_dat *d)
{
	(void)d;
}

int gr_dat_next(struct gr_dat *d, struct gr_event *ev)
{
	(void)d;
	(void)ev;
	return 0;
}

void gr_dat_close(struct gr_dat *d)
{
	(void)d;
}

#endif /* HAVE_LIBTRACECMD */

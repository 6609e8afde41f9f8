// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: GPU jobs from the kernel's own tracepoints.
 *
 * A kernel without grtrace still traces its GPU jobs: drm/sched's stable
 * gpu_scheduler events (every scheduler-based driver), dma_fence's
 * signals, and virtio-gpu's commands.  This file turns those events of a
 * trace.dat into records of the job model (events.h), as grtrace's own
 * probes would have written them, so that report, export, dump and the
 * others read either recording:
 *
 *   event                              record    the job
 *   gpu_scheduler:drm_sched_job_queue  SUBMIT    finished fence context:seqno
 *   gpu_scheduler:drm_sched_job_run    COMMIT
 *   gpu_scheduler:drm_sched_job_done   END
 *   dma_fence:dma_fence_signaled       COMPLETE  of its finished fence
 *   gpu_scheduler:..._unschedulable    SYNC_WAIT_ENTER, and _EXIT at the
 *                                      dma_fence_signaled of that fence
 *   gpu_scheduler:drm_sched_job_error  the status of its COMPLETE
 *   gpu_scheduler:..._timedout         ERROR(timeout), (reset)
 *   gpu_scheduler:drm_sched_job        SUBMIT    0:id of its ring (6.12 and
 *   gpu_scheduler:drm_run_job          COMMIT    older: old_sched_event())
 *   gpu_scheduler:drm_sched_process_job END
 *   gpu_scheduler:..._wait_dep         SYNC_WAIT_ENTER, as _unschedulable
 *   virtio_gpu:virtio_gpu_cmd_queue    COMMIT    ring (virtqueue), seqno
 *   virtio_gpu:virtio_gpu_cmd_response END
 *   dma_fence:dma_fence_signaled       COMPLETE  of a fenced command
 *   i915:i915_request_add              SUBMIT    fence context:seqno
 *   i915:i915_request_execute          COMMIT    (low-level tracepoints)
 *   i915:i915_request_in               START     (low-level)
 *   i915:i915_request_out              END       (low-level)
 *   dma_fence:dma_fence_signaled       COMPLETE  of its fence
 *   i915:i915_request_retire           the request is forgotten, without
 *                                      dma_fence_signaled in the recording
 *
 * A ring is a device and a name, as the events name it: a scheduler's
 * device and name; a virtio device "virtio<N>" and its virtqueue; an i915
 * device "card<N>" (its DRM minor) and an engine as intel_gpu_top names
 * it ("rcs0"; a load-balanced engine "vcs-virtual").  A virtio-gpu
 * command is job 0:seqno of its ring (no fence context is 0; 0:fence id
 * in 6.1's events, which have no seqno).
 * The rings are numbered from 1 as they are met (gr_upstream_finish()),
 * and while the recording is read, above the ids the kernel gives
 * grtrace rings, whose events the recording may hold too.
 *
 * What the events cannot tell is unknown, never zero: each record says
 * which stages of its job its events lack (gr_event.cannot), and the job
 * model leaves out the phases that need them.  virtio_gpu_cmd_queue fires
 * as a command goes into the virtqueue, where the device may take it
 * (just after the add in Linux 7.3, just before it with the kernel
 * series): that is a COMMIT, and the command's SUBMIT (and so HOST and
 * the latency) is unknown.  A COMPLETE needs dma_fence_signaled in the
 * recording, and for virtio-gpu a fenced command.  The events carry a
 * thread, not its process: a job's tgid is its pid.
 *
 * drm_sched_job_error and drm_sched_job_timedout are the kernel series'
 * additions to gpu_scheduler_trace.h; a recording without them has no
 * errors.  A timeout the driver found harmless (no_hang) is taken as
 * grtrace's probe takes a no_hang without an error on the job's fences:
 * no ERROR; the event does not carry those errors.  The 6.12 backport's
 * drm_sched_job_timedout has a field of its own for a reset (6.12's
 * drivers return NOMINAL after a reset and for a job left running alike)
 * and names the job by its id, as 6.12's older events do.
 *
 * i915's execute, in and out events are built only with
 * CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS, which distributions leave off:
 * without their formats in the recording, a request's COMMIT, START and
 * END are unknown, and its latency (add to signal) is all there is.  With
 * them, in and out name the last request of an execlists port (the ones
 * before it in the port have neither, as with grtrace's own i915 events),
 * and GuC submission has no out.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event-parse.h>
#include <limits.h>
#include <stdio.h>
#include <tracefs.h>
#include <unistd.h>

#include "upstream.h"
#include "utils.h"

/* Ids of the rings met here: above any the kernel gives a grtrace ring */
#define UP_RING_BASE		0x80000000U

const char * const gr_upstream_names[GR_UP_NR] = {
	[GR_UP_QUEUE]		= "drm_sched_job_queue",
	[GR_UP_RUN]		= "drm_sched_job_run",
	[GR_UP_DONE]		= "drm_sched_job_done",
	[GR_UP_UNSCHEDULABLE]	= "drm_sched_job_unschedulable",
	[GR_UP_ERROR]		= "drm_sched_job_error",
	[GR_UP_TIMEDOUT]	= "drm_sched_job_timedout",
	[GR_UP_OLD_QUEUE]	= "drm_sched_job",
	[GR_UP_OLD_RUN]		= "drm_run_job",
	[GR_UP_OLD_DONE]	= "drm_sched_process_job",
	[GR_UP_OLD_WAIT]	= "drm_sched_job_wait_dep",
	[GR_UP_SIGNALED]	= "dma_fence_signaled",
	[GR_UP_VCMD_QUEUE]	= "virtio_gpu_cmd_queue",
	[GR_UP_VCMD_RESPONSE]	= "virtio_gpu_cmd_response",
	[GR_UP_I915_ADD]	= "i915_request_add",
	[GR_UP_I915_EXECUTE]	= "i915_request_execute",
	[GR_UP_I915_IN]		= "i915_request_in",
	[GR_UP_I915_OUT]	= "i915_request_out",
	[GR_UP_I915_RETIRE]	= "i915_request_retire",
};

static const char * const up_systems[GR_UP_NR] = {
	[GR_UP_QUEUE ... GR_UP_OLD_WAIT] = "gpu_scheduler",
	[GR_UP_SIGNALED]	= "dma_fence",
	[GR_UP_VCMD_QUEUE ... GR_UP_VCMD_RESPONSE] = "virtio_gpu",
	[GR_UP_I915_ADD ... GR_UP_I915_RETIRE] = "i915",
};

/* The statuses of drm_sched_job_timedout (enum drm_gpu_sched_stat) */
enum { STAT_NONE, STAT_RESET, STAT_ENODEV, STAT_NO_HANG };

/*
 * A map of (a, b) keys to values, open addressing with linear probing;
 * an entry is removed by moving the later ones of its run back.
 */
struct fmap_ent {
	__u64 a, b;
	__u32 val;
	bool used;
};

struct fmap {
	struct fmap_ent *e;
	size_t size;		/* a power of two */
	size_t nr;
};

static size_t fmap_hash(const struct fmap *m, __u64 a, __u64 b)
{
	__u64 h = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL);

	return (h ^ (h >> 31)) & (m->size - 1);
}

static struct fmap_ent *fmap_find(const struct fmap *m, __u64 a, __u64 b)
{
	size_t h;

	if (!m->size)
		return NULL;
	for (h = fmap_hash(m, a, b); m->e[h].used; h = (h + 1) & (m->size - 1))
		if (m->e[h].a == a && m->e[h].b == b)
			return &m->e[h];
	return NULL;
}

static void fmap_put(struct fmap *m, __u64 a, __u64 b, __u32 val);

static void fmap_grow(struct fmap *m)
{
	struct fmap old = *m;
	size_t i;

	m->size = old.size ? 2 * old.size : 256;
	m->e = gr_zalloc(m->size * sizeof(*m->e));
	m->nr = 0;
	for (i = 0; i < old.size; i++)
		if (old.e[i].used)
			fmap_put(m, old.e[i].a, old.e[i].b, old.e[i].val);
	free(old.e);
}

/* Set the value of (a, b), added if new. */
static void fmap_put(struct fmap *m, __u64 a, __u64 b, __u32 val)
{
	struct fmap_ent *e = fmap_find(m, a, b);
	size_t h;

	if (e) {
		e->val = val;
		return;
	}
	if (2 * (m->nr + 1) > m->size)
		fmap_grow(m);
	for (h = fmap_hash(m, a, b); m->e[h].used; h = (h + 1) & (m->size - 1))
		;
	m->e[h] = (struct fmap_ent){ .a = a, .b = b, .val = val, .used = true };
	m->nr++;
}

static void fmap_del(struct fmap *m, struct fmap_ent *e)
{
	size_t i = e - m->e, j = i, k;

	m->e[i].used = false;
	m->nr--;
	for (;;) {
		j = (j + 1) & (m->size - 1);
		if (!m->e[j].used)
			return;
		k = fmap_hash(m, m->e[j].a, m->e[j].b);
		/* Entry j stays if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->e[i] = m->e[j];
		m->e[j].used = false;
		i = j;
	}
}

/*
 * The maps of fences are keyed by the low 32 bits of context and seqno,
 * all that dma_fence_signaled gives; the whole values are kept for the
 * records.
 */
#define FKEY(v)		((__u64)(__u32)(v))
/* The second key of a job of the older events, by its fence's address */
#define OLD_KEY		(~0ULL)

/*
 * How many of the fences signalled last are remembered, for the older
 * events' waits (old_sched_event()): a dependency signalled before them
 * is taken for a wait, which its job's drm_run_job ends
 */
#define UP_RECENT		4096

/*
 * A scheduler job between its first event and its COMPLETE (older events:
 * END); an i915 request until its fence signals or it is retired
 */
struct up_job {
	__u64 fctx, fseq;	/* its finished fence; a request's fence */
	__u64 ctx;		/* its context: the entity's; a request's timeline */
	__u32 ring;		/* local index */
	__s32 status;		/* of drm_sched_job_error */
};

/* A job waiting for a fence (drm_sched_job_unschedulable) */
struct up_wait {
	__u64 fctx, fseq;	/* the job */
	__u64 dctx, dseq;	/* the fence it waits for */
	__u32 ring;
	__u32 next;		/* the next wait for the same fence: index + 1 */
	bool open;		/* not yet ended, its slot in use */
};

/* A fenced virtio-gpu command, until its fence signals */
struct up_vcmd {
	__u32 seqno;
	__u32 ring;
	__u32 ctx_id;
};

/* The slots of an array, and a list of the free ones */
struct up_slots {
	size_t nr, cap;
	__u32 free;		/* the first free slot: index + 1 */
	__u32 *next_free;	/* of a free slot: the next one, index + 1 */
};

/* A ring by its whole names; gr_ring keeps them cut to its size */
struct up_ring {
	char dev[64];
	char name[64];
	__u32 local;
};

struct gr_upstream {
	struct up_ring *ring;
	size_t nr_ring;
	struct fmap jobs;	/* finished fence (older events: its address) -> index in job */
	struct up_job *job;
	struct up_slots job_slots;
	struct fmap waits;	/* fence waited for -> first wait: index + 1 */
	struct up_wait *wait;
	struct up_slots wait_slots;
	struct fmap ids;	/* older events: (ring, id) -> index in job */
	struct fmap recent;	/* the fences signalled last -> index in recent_key */
	__u64 recent_key[UP_RECENT][2];
	size_t nr_recent;
	struct fmap vcmds;	/* (0, fence id) -> index in vcmd */
	struct up_vcmd *vcmd;
	struct up_slots vcmd_slots;
	size_t first_rec;	/* t->nr_ev when the first record was made */
	bool any;
	int i915_low;		/* the recording has i915's low-level events: 1, 0; -1 unknown */
	bool i915_signals;	/* and dma_fence_signaled, once i915_low is known */
	/* By event id: 0 not yet looked up, 1 none of ours, 2 + which */
	unsigned char which[1 << 16];
};

struct gr_upstream *gr_upstream_new(void)
{
	struct gr_upstream *u = gr_zalloc(sizeof(struct gr_upstream));

	u->i915_low = -1;
	return u;
}

/* The jobs, waits and commands of @u, freed */
static void up_forget(struct gr_upstream *u)
{
	free(u->jobs.e);
	free(u->job);
	free(u->job_slots.next_free);
	free(u->waits.e);
	free(u->wait);
	free(u->wait_slots.next_free);
	free(u->recent.e);
	free(u->ids.e);
	free(u->vcmds.e);
	free(u->vcmd);
	free(u->vcmd_slots.next_free);
}

void gr_upstream_free(struct gr_upstream *u)
{
	if (!u)
		return;
	up_forget(u);
	free(u->ring);
	free(u);
}

/*
 * gr_upstream_reset - forget the jobs, waits and commands met, to read the
 * events again from the first; the rings met stay, with their numbers
 */
void gr_upstream_reset(struct gr_upstream *u)
{
	struct up_ring *ring = u->ring;
	size_t nr_ring = u->nr_ring;

	up_forget(u);
	memset(u, 0, sizeof(*u));
	u->ring = ring;
	u->nr_ring = nr_ring;
	u->i915_low = -1;
}

/* gr_tep_num - a number field of an ftrace event, or 0 */
__u64 gr_tep_num(struct tep_event *event, struct tep_record *rec, const char *name)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long val;

	if (!f || (unsigned int)(f->offset + f->size) > (unsigned int)rec->size ||
	    tep_read_number_field(f, rec->data, &val))
		return 0;
	return val;
}

/* gr_tep_str - a string or char array field of an ftrace event into @buf, or "" */
void gr_tep_str(struct tep_event *event, struct tep_record *rec, const char *name,
		char *buf, size_t len)
{
	struct tep_format_field *f = tep_find_field(event, name);
	const char *p = NULL;
	int n = 0;

	*buf = '\0';
	/*
	 * A string field, and the string a __data_loc field points to, in
	 * @rec; never a pointer field's value (Linux 6.1's virtio_gpu name)
	 */
	if (f && (f->flags & TEP_FIELD_IS_STRING) &&
	    (unsigned int)(f->offset + f->size) <= (unsigned int)rec->size)
		p = tep_get_field_raw(NULL, event, name, rec, &n, 0);
	if (!p || n <= 0 || p < (const char *)rec->data ||
	    p + n > (const char *)rec->data + rec->size)
		return;
	if ((size_t)n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

/* gr_tracefs_system - whether the running kernel has event system @system */
bool gr_tracefs_system(const char *system)
{
	const char *dir = tracefs_tracing_dir();
	char path[PATH_MAX];

	if (!dir)
		return false;
	snprintf(path, sizeof(path), "%s/events/%s", dir, system);
	return !access(path, F_OK);
}

/* The class of a scheduler's ring from its name, as the kernel guesses it */
static __u16 engine_from_name(const char *name)
{
	static const struct {
		const char *prefix;
		__u16 engine;
	} prefixes[] = {
		{ "gfx", GRTRACE_ENGINE_GRAPHICS }, { "rcs", GRTRACE_ENGINE_GRAPHICS },
		{ "render", GRTRACE_ENGINE_GRAPHICS }, { "comp", GRTRACE_ENGINE_COMPUTE },
		{ "ccs", GRTRACE_ENGINE_COMPUTE }, { "sdma", GRTRACE_ENGINE_COPY },
		{ "bcs", GRTRACE_ENGINE_COPY }, { "blit", GRTRACE_ENGINE_COPY },
		{ "copy", GRTRACE_ENGINE_COPY }, { "dma", GRTRACE_ENGINE_COPY },
		{ "vcn_enc", GRTRACE_ENGINE_VIDEO_ENCODE },
		{ "uvd_enc", GRTRACE_ENGINE_VIDEO_ENCODE },
		{ "vce", GRTRACE_ENGINE_VIDEO_ENCODE }, { "vecs", GRTRACE_ENGINE_VIDEO_ENCODE },
		{ "enc", GRTRACE_ENGINE_VIDEO_ENCODE }, { "vcn", GRTRACE_ENGINE_VIDEO_DECODE },
		{ "uvd", GRTRACE_ENGINE_VIDEO_DECODE }, { "jpeg", GRTRACE_ENGINE_VIDEO_DECODE },
		{ "vcs", GRTRACE_ENGINE_VIDEO_DECODE }, { "dec", GRTRACE_ENGINE_VIDEO_DECODE },
		{ "video", GRTRACE_ENGINE_VIDEO_DECODE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncasecmp(name, prefixes[i].prefix, strlen(prefixes[i].prefix)))
			return prefixes[i].engine;
	return GRTRACE_ENGINE_OTHER;
}

/* The local index of the ring @dev, @name, described the first time. */
static __u32 up_ring(struct gr_upstream *u, struct gr_trace *t, const char *dev,
		     const char *name, __u16 engine)
{
	struct gr_ring *r;
	size_t i;
	__u32 local;

	for (i = 0; i < u->nr_ring; i++)
		if (!strcmp(u->ring[i].dev, dev) && !strcmp(u->ring[i].name, name))
			return u->ring[i].local;
	u->ring = gr_realloc(u->ring, u->nr_ring + 1, sizeof(*u->ring));
	local = gr_ring_local(t, UP_RING_BASE + u->nr_ring);
	snprintf(u->ring[u->nr_ring].dev, sizeof(u->ring[0].dev), "%s", dev);
	snprintf(u->ring[u->nr_ring].name, sizeof(u->ring[0].name), "%s", name);
	u->ring[u->nr_ring++].local = local;
	r = &t->rings[local];
	r->known = true;
	r->engine = engine;
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	snprintf(r->name, sizeof(r->name), "%s", name);
	gr_name_clean(r->dev, sizeof(r->dev));
	gr_name_clean(r->name, sizeof(r->name));
	return local;
}

/* A new record of @type on ring @ring for job @fctx:@fseq */
static struct gr_event *up_rec(struct gr_upstream *u, struct gr_trace *t, __u64 *gseq,
			       struct tep_record *rec, int cpu, int type, __u32 ring,
			       __u64 fctx, __u64 fseq)
{
	struct gr_ring *r = &t->rings[ring];
	struct gr_event *ev;

	if (!u->any) {
		u->any = true;
		u->first_rec = t->nr_ev;
	}
	ev = gr_trace_add(t);
	ev->ts = rec->ts;
	ev->gseq = ++*gseq;
	ev->cseq = ev->gseq;
	ev->cpu = cpu;
	ev->type = type;
	ev->size = GR_REC_MIN + sizeof(ev->job);
	ev->off = rec->offset;
	ev->origin = GR_ORIGIN_UPSTREAM;
	ev->job.ring_id = ring;
	ev->job.engine = r->engine;
	ev->job.fence_context = fctx;
	ev->job.fence_seqno = fseq;
	r->used = true;
	r->by_type[type]++;
	t->by_type[type]++;
	return ev;
}

/* The submitting thread of @rec, as the recording names it */
static void up_task(struct gr_event *ev, struct tep_handle *tep, struct tep_record *rec)
{
	const char *comm;

	ev->job.pid = tep_data_pid(tep, rec);
	ev->job.tgid = ev->job.pid;
	comm = tep_data_comm_from_pid(tep, ev->job.pid);
	if (comm && strcmp(comm, "<...>"))
		snprintf(ev->job.comm, sizeof(ev->job.comm), "%.*s",
			 (int)sizeof(ev->job.comm) - 1, comm);
	gr_name_clean(ev->job.comm, sizeof(ev->job.comm));
	if (!ev->job.pid)
		memset(ev->job.comm, 0, sizeof(ev->job.comm));
}

/* A slot of @s for an element of @size in *@arr: a free one, or a new one */
static __u32 slot_get(struct up_slots *s, void **arr, size_t size)
{
	__u32 i;

	if (s->free) {
		i = s->free - 1;
		s->free = s->next_free[i];
		return i;
	}
	if (s->nr == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		*arr = gr_realloc(*arr, s->cap, size);
		s->next_free = gr_realloc(s->next_free, s->cap, sizeof(*s->next_free));
	}
	return s->nr++;
}

static void slot_put(struct up_slots *s, __u32 i)
{
	s->next_free[i] = s->free;
	s->free = i + 1;
}

/*
 * The open job of key (@a, @b), made at its first event as job
 * @fctx:@fseq: a finished fence's FKEYs, or (the older events) its
 * address and OLD_KEY
 */
static struct up_job *job_at(struct gr_upstream *u, __u64 a, __u64 b, __u64 fctx,
			     __u64 fseq, __u32 ring, bool create)
{
	struct fmap_ent *e = fmap_find(&u->jobs, a, b);
	__u32 i;

	if (e)
		return &u->job[e->val];
	if (!create)
		return NULL;
	i = slot_get(&u->job_slots, (void **)&u->job, sizeof(*u->job));
	/* The entity's scheduled fence precedes its finished one */
	u->job[i] = (struct up_job){ .fctx = fctx, .fseq = fseq, .ring = ring,
				     .ctx = fctx ? fctx - 1 : 0 };
	fmap_put(&u->jobs, a, b, i);
	return &u->job[i];
}

/* The open job of a finished fence, made at its first event */
static struct up_job *up_job(struct gr_upstream *u, __u64 fctx, __u64 fseq, __u32 ring,
			     bool create)
{
	return job_at(u, FKEY(fctx), FKEY(fseq), fctx, fseq, ring, create);
}

static void job_end_at(struct gr_upstream *u, __u64 a, __u64 b)
{
	struct fmap_ent *e = fmap_find(&u->jobs, a, b);
	__u32 i;

	if (!e)
		return;
	i = e->val;
	fmap_del(&u->jobs, e);
	slot_put(&u->job_slots, i);
}

static void up_job_end(struct gr_upstream *u, __u64 fctx, __u64 fseq)
{
	job_end_at(u, FKEY(fctx), FKEY(fseq));
}

/*
 * Job @ev's wait, from its SYNC_WAIT_ENTER, for fence @dctx:@dseq: ended
 * at that fence's signal
 */
static void up_wait(struct gr_upstream *u, struct gr_event *ev, __u64 dctx, __u64 dseq)
{
	struct fmap_ent *e;
	struct up_wait *w;
	__u32 i;

	ev->job.aux_context = dctx;
	ev->job.aux_seqno = dseq;
	i = slot_get(&u->wait_slots, (void **)&u->wait, sizeof(*u->wait));
	w = &u->wait[i];
	*w = (struct up_wait){ .fctx = ev->job.fence_context, .fseq = ev->job.fence_seqno,
			       .ring = ev->job.ring_id, .dctx = dctx, .dseq = dseq,
			       .open = true };
	e = fmap_find(&u->waits, FKEY(dctx), FKEY(dseq));
	w->next = e ? e->val : 0;
	fmap_put(&u->waits, FKEY(dctx), FKEY(dseq), i + 1);
}

/* The ring of a gpu_scheduler event that names it (queue, run, error...) */
static __u32 sched_ring(struct gr_upstream *u, struct gr_trace *t, struct tep_event *event,
			struct tep_record *rec)
{
	char dev[64], name[64];

	gr_tep_str(event, rec, "dev", dev, sizeof(dev));
	gr_tep_str(event, rec, "name", name, sizeof(name));
	if (!*dev)
		snprintf(dev, sizeof(dev), "drm_sched");
	return up_ring(u, t, dev, name, engine_from_name(name));
}

/* The ring of the older events' jobs: they name no device */
static __u32 old_sched_ring(struct gr_upstream *u, struct gr_trace *t,
			    struct tep_event *event, struct tep_record *rec)
{
	char name[64];

	gr_tep_str(event, rec, "name", name, sizeof(name));
	return up_ring(u, t, "drm_sched", name, engine_from_name(name));
}

static void sched_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
			struct tep_event *event, struct tep_record *rec, int cpu,
			__u64 *gseq, int which)
{
	__u64 fctx = gr_tep_num(event, rec, "fence_context");
	__u64 fseq = gr_tep_num(event, rec, "fence_seqno");
	struct gr_event *ev;
	struct up_job *j;
	bool reset;
	__u32 ring;
	int status;

	switch (which) {
	case GR_UP_QUEUE:
	case GR_UP_RUN:
		ring = sched_ring(u, t, event, rec);
		j = up_job(u, fctx, fseq, ring, true);
		j->ring = ring;
		ev = up_rec(u, t, gseq, rec, cpu,
			    which == GR_UP_QUEUE ? GRTRACE_EV_SUBMIT : GRTRACE_EV_COMMIT,
			    ring, fctx, fseq);
		/* The entity's scheduled fence precedes its finished one */
		ev->job.ctx_id = fctx ? fctx - 1 : 0;
		if (which == GR_UP_QUEUE) {
			up_task(ev, tep, rec);
			ev->job.client_id = gr_tep_num(event, rec, "client_id");
			/* job_count is read before the job is pushed */
			ev->job.depth = gr_tep_num(event, rec, "job_count") + 1;
		}
		break;
	case GR_UP_DONE:
		j = up_job(u, fctx, fseq, 0, false);
		if (!j)
			break;
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_END, j->ring, fctx, fseq);
		ev->job.ctx_id = fctx - 1;
		break;
	case GR_UP_ERROR:
		j = up_job(u, fctx, fseq, sched_ring(u, t, event, rec), true);
		j->status = (__s32)gr_tep_num(event, rec, "error");
		break;
	case GR_UP_TIMEDOUT:
		status = (int)gr_tep_num(event, rec, "status");
		reset = status == STAT_RESET;
		ring = 0;
		if (tep_find_field(event, "reset")) {
			/*
			 * The 6.12 backport's: NOMINAL for a reset and a job
			 * left running alike, a reset said by its own field;
			 * the job as that kernel's older events name it, 0:id
			 * of ring drm_sched/NAME
			 */
			reset = gr_tep_num(event, rec, "reset");
			if (!reset && status != STAT_ENODEV)
				status = STAT_NO_HANG;
			ring = old_sched_ring(u, t, event, rec);
			fctx = 0;
			fseq = gr_tep_num(event, rec, "id");
		}
		if (gr_tep_num(event, rec, "done") || status == STAT_NO_HANG)
			break;
		if (!ring)
			ring = sched_ring(u, t, event, rec);
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_ERROR, ring, fctx, fseq);
		ev->job.ctx_id = fctx ? fctx - 1 : 0;
		ev->job.status = GRTRACE_ERROR_TIMEOUT;
		if (!reset)
			break;
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_ERROR, ring, fctx, fseq);
		ev->job.ctx_id = fctx ? fctx - 1 : 0;
		ev->job.status = GRTRACE_ERROR_RESET;
		break;
	case GR_UP_UNSCHEDULABLE:
		j = up_job(u, fctx, fseq, 0, false);
		if (!j)
			break;
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_SYNC_WAIT_ENTER, j->ring, fctx, fseq);
		ev->job.ctx_id = fctx - 1;
		up_wait(u, ev, gr_tep_num(event, rec, "ctx"), gr_tep_num(event, rec, "seqno"));
		break;
	}
}

/*
 * End the open waits of job 0:@id of @ring at its drm_run_job: it runs
 * once its dependencies are resolved, so that a wait whose fence's signal
 * was not seen (before the recording, or among more than UP_RECENT
 * signals since) ends there instead of never
 */
static void old_waits_end(struct gr_upstream *u, struct gr_trace *t, __u64 *gseq,
			  struct tep_record *rec, int cpu, __u32 ring, __u64 id)
{
	struct fmap_ent *e;
	struct gr_event *ev;
	struct up_wait *w;
	__u32 i, *link;

	for (i = 0; i < u->wait_slots.nr; i++) {
		w = &u->wait[i];
		if (!w->open || w->fctx || w->fseq != id || w->ring != ring)
			continue;
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_SYNC_WAIT_EXIT, ring, 0, id);
		ev->job.aux_context = w->dctx;
		ev->job.aux_seqno = w->dseq;
		ev->cannot = BIT(GRTRACE_EV_COMPLETE);
		/* Out of its fence's list of waits */
		e = fmap_find(&u->waits, FKEY(w->dctx), FKEY(w->dseq));
		for (link = e ? &e->val : NULL; link && *link; link = &u->wait[*link - 1].next)
			if (*link == i + 1) {
				*link = w->next;
				break;
			}
		if (e && !e->val)
			fmap_del(&u->waits, e);
		w->open = false;
		slot_put(&u->wait_slots, i);
	}
}

/* The older events' job of @fence ends: its END, or a push that reuses it */
static void old_job_end(struct gr_upstream *u, __u64 fence)
{
	struct up_job *j = job_at(u, fence, OLD_KEY, 0, 0, 0, false);
	struct fmap_ent *e;

	if (!j)
		return;
	e = fmap_find(&u->ids, j->ring, j->fseq);
	if (e && &u->job[e->val] == j)
		fmap_del(&u->ids, e);
	job_end_at(u, fence, OLD_KEY);
}

/*
 * The older gpu_scheduler events (Linux 6.12's and before) name a job by
 * its scheduler's name, its id on that scheduler and its finished fence's
 * address, which only keys the job here while it is open: a job is 0:id
 * of its ring, the ring's device is "drm_sched", and the finished fence's
 * signal cannot be told from the others, so that COMPLETE is unknown (it
 * follows drm_sched_process_job, the END, at once).
 */
static void old_sched_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
			    struct tep_event *event, struct tep_record *rec, int cpu,
			    __u64 *gseq, int which)
{
	__u64 fence = gr_tep_num(event, rec, "fence");
	__u64 id = gr_tep_num(event, rec, "id");
	struct gr_event *ev;
	struct up_job *j;
	__u32 ring;

	switch (which) {
	case GR_UP_OLD_QUEUE:
	case GR_UP_OLD_RUN:
		/*
		 * A push is a new job: a job killed before it ran had no
		 * process_job to end it, and its fence's memory is reused
		 */
		if (which == GR_UP_OLD_QUEUE)
			old_job_end(u, fence);
		ring = sched_ring(u, t, event, rec);
		j = job_at(u, fence, OLD_KEY, 0, id, ring, false);
		if (!j) {
			/*
			 * Schedulers of one name (xe's, panthor's queues) count
			 * ids apart: another's open job of this id is counted
			 */
			t->old_shared_ids += !!fmap_find(&u->ids, ring, id);
			j = job_at(u, fence, OLD_KEY, 0, id, ring, true);
			fmap_put(&u->ids, ring, id, j - u->job);
		}
		if (which == GR_UP_OLD_RUN)
			old_waits_end(u, t, gseq, rec, cpu, j->ring, j->fseq);
		ev = up_rec(u, t, gseq, rec, cpu,
			    which == GR_UP_OLD_QUEUE ? GRTRACE_EV_SUBMIT : GRTRACE_EV_COMMIT,
			    j->ring, 0, j->fseq);
		if (which == GR_UP_OLD_QUEUE) {
			up_task(ev, tep, rec);
			ev->job.depth = gr_tep_num(event, rec, "job_count") + 1;
		}
		break;
	case GR_UP_OLD_DONE:
		j = job_at(u, fence, OLD_KEY, 0, 0, 0, false);
		if (!j)
			return;
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_END, j->ring, 0, j->fseq);
		old_job_end(u, fence);
		break;
	case GR_UP_OLD_WAIT:
		/*
		 * The fence waited for, not the job's: the job by ring and id.
		 * The event comes before the scheduler checks the fence: no
		 * wait if it signalled already.
		 */
		if (fmap_find(&u->recent, FKEY(gr_tep_num(event, rec, "ctx")),
			      FKEY(gr_tep_num(event, rec, "seqno"))))
			return;
		ring = sched_ring(u, t, event, rec);
		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_SYNC_WAIT_ENTER, ring, 0, id);
		up_wait(u, ev, gr_tep_num(event, rec, "ctx"), gr_tep_num(event, rec, "seqno"));
		break;
	default:
		return;
	}
	ev->cannot = BIT(GRTRACE_EV_COMPLETE);
}

/* Fence @ctx:@seq (FKEYs) signalled: one of the last UP_RECENT */
static void recent_add(struct gr_upstream *u, __u64 ctx, __u64 seq)
{
	size_t k = u->nr_recent++ % UP_RECENT;
	struct fmap_ent *e;

	if (u->nr_recent > UP_RECENT) {
		e = fmap_find(&u->recent, u->recent_key[k][0], u->recent_key[k][1]);
		if (e && e->val == k)
			fmap_del(&u->recent, e);
	}
	u->recent_key[k][0] = ctx;
	u->recent_key[k][1] = seq;
	fmap_put(&u->recent, ctx, seq, k);
}

/* dma_fence_signaled: the end of the waits for it, the COMPLETE of its job */
static void signaled(struct gr_upstream *u, struct gr_trace *t, struct tep_event *event,
		     struct tep_record *rec, int cpu, __u64 *gseq)
{
	/* The event's context and seqno are 32-bit: a fence's low halves (FKEY) */
	__u32 ctx = gr_tep_num(event, rec, "context");
	__u32 seq = gr_tep_num(event, rec, "seqno");
	struct gr_event *ev;
	struct fmap_ent *e;
	struct up_vcmd *v;
	char driver[32], timeline[32];
	__u32 i, next;
	size_t k;

	recent_add(u, ctx, seq);
	e = fmap_find(&u->waits, ctx, seq);
	if (e) {
		for (i = e->val; i; i = next) {
			struct up_wait *w = &u->wait[i - 1];

			next = w->next;
			ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_SYNC_WAIT_EXIT, w->ring,
				    w->fctx, w->fseq);
			/* A job of the older events is 0:id, its COMPLETE unknown */
			ev->job.ctx_id = w->fctx ? w->fctx - 1 : 0;
			if (!w->fctx)
				ev->cannot = BIT(GRTRACE_EV_COMPLETE);
			ev->job.aux_context = w->dctx;
			ev->job.aux_seqno = w->dseq;
			w->open = false;
			slot_put(&u->wait_slots, i - 1);
		}
		fmap_del(&u->waits, e);
	}
	e = fmap_find(&u->jobs, ctx, seq);
	if (e) {
		struct up_job *j = &u->job[e->val];

		ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_COMPLETE, j->ring, j->fctx, j->fseq);
		ev->job.ctx_id = j->ctx;
		ev->job.status = j->status;
		up_job_end(u, j->fctx, j->fseq);
		return;
	}
	/*
	 * A command's fence is on virtio-gpu's "controlq" timeline, its seqno
	 * the fence id; the driver's other fences (a CRTC's out-fences) have
	 * seqnos of their own.
	 */
	gr_tep_str(event, rec, "driver", driver, sizeof(driver));
	gr_tep_str(event, rec, "timeline", timeline, sizeof(timeline));
	if (strcmp(driver, "virtio_gpu") || strcmp(timeline, "controlq"))
		return;
	e = fmap_find(&u->vcmds, 0, seq);
	if (!e)
		return;
	v = &u->vcmd[e->val];
	ev = up_rec(u, t, gseq, rec, cpu, GRTRACE_EV_COMPLETE, v->ring, 0, v->seqno);
	ev->job.ctx_id = v->ctx_id;
	k = e->val;
	fmap_del(&u->vcmds, e);
	slot_put(&u->vcmd_slots, k);
}

static void vcmd_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
		       struct tep_event *event, struct tep_record *rec, int cpu,
		       __u64 *gseq, int which)
{
	static const char * const vq_names[] = { "control", "cursor" };
	__u32 vq = gr_tep_num(event, rec, "vq");
	__u32 seqno = gr_tep_num(event, rec, "seqno");
	__u64 fence_id = gr_tep_num(event, rec, "fence_id");
	__u32 flags = gr_tep_num(event, rec, "flags");
	bool fenced = (flags & 1) && fence_id;
	char dev[33], name[33];
	struct gr_event *ev;
	struct up_vcmd *v;
	struct fmap_ent *e;
	__u32 ring;
	size_t k;

	/*
	 * Before the seqno field (Linux 6.1's events), a command and its
	 * answer share nothing but a fence id: a fenced command is job
	 * 0:fence id, and one without a fence is counted, not followed.
	 */
	if (!tep_find_field(event, "seqno")) {
		if (!fenced) {
			t->vcmd_unpaired++;
			return;
		}
		seqno = fence_id;
	}
	snprintf(dev, sizeof(dev), "virtio%d", (int)(__s32)gr_tep_num(event, rec, "dev"));
	/* Without the name (a pointer in 6.1's events), the queue's in the spec */
	gr_tep_str(event, rec, "name", name, sizeof(name));
	if (!*name && vq < ARRAY_SIZE(vq_names))
		snprintf(name, sizeof(name), "%s", vq_names[vq]);
	else if (!*name)
		snprintf(name, sizeof(name), "vq%u", vq);
	ring = up_ring(u, t, dev, name, vq ? GRTRACE_ENGINE_OTHER : GRTRACE_ENGINE_GRAPHICS);
	/* No fence context is a kernel's 0: a command is 0:seqno of its ring */
	ev = up_rec(u, t, gseq, rec, cpu,
		    which == GR_UP_VCMD_QUEUE ? GRTRACE_EV_COMMIT : GRTRACE_EV_END,
		    ring, 0, seqno);
	ev->job.ctx_id = gr_tep_num(event, rec, "ctx_id");
	/*
	 * Queued, not submitted: its SUBMIT is unknown; and its COMPLETE
	 * unless it has a fence (VIRTIO_GPU_FLAG_FENCE), which the device
	 * echoes in the response of a fenced command only.
	 */
	ev->cannot = BIT(GRTRACE_EV_SUBMIT);
	if (!fenced)
		ev->cannot |= BIT(GRTRACE_EV_COMPLETE);
	if (which == GR_UP_VCMD_RESPONSE)
		return;
	up_task(ev, tep, rec);
	if (ev->cannot & BIT(GRTRACE_EV_COMPLETE))
		return;
	/* A fence id queued again (its first signal unseen) takes its slot */
	e = fmap_find(&u->vcmds, 0, FKEY(fence_id));
	k = e ? e->val : slot_get(&u->vcmd_slots, (void **)&u->vcmd, sizeof(*u->vcmd));
	v = &u->vcmd[k];
	*v = (struct up_vcmd){ .seqno = seqno, .ring = ring, .ctx_id = ev->job.ctx_id };
	fmap_put(&u->vcmds, 0, FKEY(fence_id), k);
}

/* The ring of an i915 request event: its device's minor and engine */
static __u32 i915_ring(struct gr_upstream *u, struct gr_trace *t, struct tep_event *event,
		       struct tep_record *rec)
{
	/* uabi classes (I915_ENGINE_CLASS_*), as intel_gpu_top names them */
	static const char * const classes[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };
	__u32 class = (__u16)gr_tep_num(event, rec, "class");
	__u32 instance = (__u16)gr_tep_num(event, rec, "instance");
	char dev[32], name[32], cls[16];

	if (class < ARRAY_SIZE(classes))
		snprintf(cls, sizeof(cls), "%s", classes[class]);
	else
		snprintf(cls, sizeof(cls), "class%u-", class);
	snprintf(dev, sizeof(dev), "card%u", (__u32)gr_tep_num(event, rec, "dev"));
	/* A load-balanced engine: I915_ENGINE_CLASS_INVALID_VIRTUAL */
	if (instance == (__u16)-2)
		snprintf(name, sizeof(name), "%s-virtual", cls);
	else
		snprintf(name, sizeof(name), "%s%u", cls, instance);
	/* Its class from the name, as a scheduler's ring's */
	return up_ring(u, t, dev, name, engine_from_name(name));
}

/*
 * An i915 request: job fence context:seqno, whose context is its timeline
 * (one per intel_context), the fence context itself
 */
static void i915_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
		       struct tep_event *event, struct tep_record *rec, int cpu,
		       __u64 *gseq, int which)
{
	static const int types[] = {
		[GR_UP_I915_ADD - GR_UP_I915_ADD] = GRTRACE_EV_SUBMIT,
		[GR_UP_I915_EXECUTE - GR_UP_I915_ADD] = GRTRACE_EV_COMMIT,
		[GR_UP_I915_IN - GR_UP_I915_ADD] = GRTRACE_EV_START,
		[GR_UP_I915_OUT - GR_UP_I915_ADD] = GRTRACE_EV_END,
	};
	__u64 fctx = gr_tep_num(event, rec, "ctx");
	__u64 fseq = (__u32)gr_tep_num(event, rec, "seqno");
	struct gr_event *ev;
	struct up_job *j;

	if (u->i915_low < 0) {
		u->i915_low = !!tep_find_event_by_name(tep, "i915", "i915_request_in");
		u->i915_signals = !!tep_find_event_by_name(tep, "dma_fence",
							   "dma_fence_signaled");
		t->i915_low = u->i915_low;
	}
	if (which == GR_UP_I915_RETIRE) {
		/*
		 * i915_request_retire() traces before it signals a fence not
		 * signalled yet: the COMPLETE comes next, unless the
		 * recording has no dma_fence_signaled.
		 */
		if (!u->i915_signals)
			up_job_end(u, fctx, fseq);
		return;
	}
	/*
	 * A request keeps the ring of its first event: one added to a
	 * load-balanced engine stays there, though it runs on a sibling.
	 */
	j = up_job(u, fctx, fseq, 0, false);
	/*
	 * An out (or an execute after a preemption) may come after the
	 * request's signal, which ended it: not a request of its own
	 */
	if (!j && which != GR_UP_I915_ADD && fmap_find(&u->recent, FKEY(fctx), FKEY(fseq)))
		return;
	if (!j) {
		j = up_job(u, fctx, fseq, i915_ring(u, t, event, rec), true);
		j->ctx = fctx;
	}
	ev = up_rec(u, t, gseq, rec, cpu, types[which - GR_UP_I915_ADD], j->ring, fctx, fseq);
	ev->job.ctx_id = fctx;
	if (!u->i915_low)
		ev->cannot = BIT(GRTRACE_EV_COMMIT) | BIT(GRTRACE_EV_START) | BIT(GRTRACE_EV_END);
	if (which == GR_UP_I915_ADD)
		up_task(ev, tep, rec);
}

/* Which of gr_upstream_names[] @event is, GR_UP_NR for none */
static int up_which(struct gr_upstream *u, struct tep_event *event)
{
	unsigned char *w = &u->which[(__u16)event->id];
	int which;

	if (*w)
		return *w == 1 ? GR_UP_NR : *w - 2;
	for (which = 0; which < GR_UP_NR; which++)
		if (!strcmp(event->name, gr_upstream_names[which]) &&
		    !strcmp(event->system, up_systems[which]))
			break;
	*w = which == GR_UP_NR ? 1 : which + 2;
	return which;
}

/*
 * gr_upstream_event - one event of a recording, in time order
 *
 * Returns: true if it is one of gr_upstream_names[] (counted in
 * @t->upstream), with the records it makes added to @t.
 */
bool gr_upstream_event(struct gr_upstream *u, struct gr_trace *t, struct tep_handle *tep,
		       struct tep_event *event, struct tep_record *rec, int cpu,
		       __u64 *gseq)
{
	int which = up_which(u, event);

	if (which == GR_UP_NR)
		return false;
	t->upstream[which]++;
	if (which == GR_UP_SIGNALED)
		signaled(u, t, event, rec, cpu, gseq);
	else if (which >= GR_UP_I915_ADD)
		i915_event(u, t, tep, event, rec, cpu, gseq, which);
	else if (which >= GR_UP_VCMD_QUEUE)
		vcmd_event(u, t, tep, event, rec, cpu, gseq, which);
	else if (which >= GR_UP_OLD_QUEUE)
		old_sched_event(u, t, tep, event, rec, cpu, gseq, which);
	else
		sched_event(u, t, tep, event, rec, cpu, gseq, which);
	return true;
}

/*
 * gr_upstream_no_complete - whether the records made here cannot have a
 * COMPLETE: the recording has the kernel's job events but no
 * dma_fence_signaled at all (not recorded)
 */
bool gr_upstream_no_complete(const struct gr_upstream *u, const struct gr_trace *t)
{
	return u->any && !t->upstream[GR_UP_SIGNALED];
}

/*
 * gr_upstream_finish - after the last event: without dma_fence_signaled in
 * the recording, no scheduler job has a COMPLETE to wait for
 */
void gr_upstream_finish(struct gr_upstream *u, struct gr_trace *t)
{
	size_t i;

	if (!gr_upstream_no_complete(u, t))
		return;
	for (i = u->first_rec; i < t->nr_ev; i++)
		if (t->ev[i].origin == GR_ORIGIN_UPSTREAM)
			t->ev[i].cannot |= BIT(GRTRACE_EV_COMPLETE);
}

/*
 * gr_upstream_number - the rings met here numbered from 1, in the order
 * they were met, once the jobs are made of their records alone
 */
void gr_upstream_number(struct gr_upstream *u, struct gr_trace *t)
{
	size_t i;

	for (i = 0; i < u->nr_ring; i++)
		t->rings[u->ring[i].local].id = i + 1;
	gr_rings_rehash(t);
}

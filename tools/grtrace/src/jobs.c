// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: GPU jobs rebuilt from the events of a stream.
 *
 * A job is named by its ring and fence (context:seqno).  SUBMIT always opens
 * a new job; any other stage event goes to the latest job of that name that
 * has not seen this stage yet, or opens a job of its own (its SUBMIT was
 * not recorded), so a reused seqno gives a new job.  SYNC_WAIT events give
 * the dependencies, CTX_SWITCH with the preempt flag and ERROR events mark
 * the job they name; with a zero fence they only concern the ring.
 *
 * A SYNC_WAIT with a zero fence is a wait of a submitting thread in its
 * ioctl, before its job got a fence (virtio-gpu in-fences): it is kept
 * until the next SUBMIT of the same thread on the same ring and context,
 * the job that waited.  A wait that failed (EXIT with a non-zero status,
 * the ioctl was interrupted) is dropped when the thread waits again
 * before submitting; waits that no SUBMIT follows are dropped at the end.
 *
 * Streaming (gr_jobs_stream()), a job is retired, handed to the caller and
 * forgotten, in the order the jobs were created: the oldest open job goes
 * once RETIRE_LAG events have passed since its COMPLETE (later events of
 * its fence, such as an ERROR, still find it until then), or, complete or
 * not, once OPEN_MAX jobs are open.  Memory is bounded by the jobs in
 * flight, not by the length of the input; jobs still open at the end are
 * retired then, incomplete.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "stat.h"
#include "utils.h"

/* Automatic label thresholds: LABEL_FACTOR x the median of the ring. */
#define LABEL_FACTOR	4
#define LABEL_MIN_NS	10000

/* Jobless waits kept for a SUBMIT at most; the oldest go first. */
#define MAX_WAITS	1024

/*
 * Streaming: events a complete job stays findable, jobs open at most, hash
 * buckets to begin with (doubled when there are half as many open jobs)
 */
#define RETIRE_LAG	8192
#define OPEN_MAX	65536
#define STREAM_HASH	4096

const char * const gr_metric_names[GR_M_NR] = {
	[GR_M_HOST]	= "t_submit_host",
	[GR_M_DEVICE]	= "t_device",
	[GR_M_COMPLETE]	= "t_complete",
	[GR_M_LAT]	= "latency",
	[GR_M_QUEUE]	= "t_queue",
	[GR_M_EXEC]	= "t_exec",
	[GR_M_WAIT]	= "t_gpu_wait",
};

const char * const gr_label_names[GR_L_NR] = {
	"long-queue", "slow-exec", "preempted", "error", "incomplete",
};

#define SEEN(j, type)	((j)->seen & (1U << (type)))
#define CANNOT(j, type)	((j)->cannot & (1U << (type)))

/*
 * gr_job_done - whether a job has its last stage: COMPLETE, or END when
 * its events cannot tell COMPLETE
 */
bool gr_job_done(const struct gr_job *j)
{
	return SEEN(j, GRTRACE_EV_COMPLETE) ||
	       (CANNOT(j, GRTRACE_EV_COMPLETE) && SEEN(j, GRTRACE_EV_END));
}

static size_t fence_hash(const struct gr_jobs *jobs, __u64 fctx, __u64 fseq)
{
	__u64 h = (fctx * 0x9e3779b97f4a7c15ULL) ^ (fseq * 0xc2b2ae3d27d4eb4fULL);

	return (h ^ (h >> 29)) & (jobs->hash_size - 1);
}

/* Latest job with this fence, on @ring or (ring -1) on any ring. */
static long find_job(const struct gr_jobs *jobs, long ring, __u64 fctx, __u64 fseq)
{
	size_t i = jobs->hash[fence_hash(jobs, fctx, fseq)];

	for (; i; i = jobs->job[i - 1].hnext) {
		const struct gr_job *j = &jobs->job[i - 1];

		if (j->fctx == fctx && j->fseq == fseq &&
		    (ring < 0 || j->ring_id == ring))
			return i - 1;
	}
	return -1;
}

static void fifo_push(struct gr_jobs *jobs, size_t slot)
{
	size_t i, n;

	if (jobs->fifo_len == jobs->fifo_cap) {
		n = jobs->fifo_cap ? 2 * jobs->fifo_cap : 1024;
		jobs->fifo = gr_realloc(jobs->fifo, n, sizeof(*jobs->fifo));
		/* Unwrap: the entries before the head move past the old end */
		for (i = 0; i < jobs->fifo_head; i++)
			jobs->fifo[jobs->fifo_cap + i] = jobs->fifo[i];
		for (i = 0; i < jobs->fifo_len; i++)
			jobs->fifo[i] = jobs->fifo[jobs->fifo_head + i];
		jobs->fifo_head = 0;
		jobs->fifo_cap = n;
	}
	jobs->fifo[(jobs->fifo_head + jobs->fifo_len++) % jobs->fifo_cap] = slot;
}

/* Streaming: @size buckets for the open jobs */
static void rehash(struct gr_jobs *jobs, size_t size)
{
	size_t i, slot, h;

	free(jobs->hash);
	jobs->hash_size = size;
	jobs->hash = gr_zalloc(size * sizeof(*jobs->hash));
	/* Oldest first: the latest job of a fence heads its chain */
	for (i = 0; i < jobs->fifo_len; i++) {
		struct gr_job *j;

		slot = jobs->fifo[(jobs->fifo_head + i) % jobs->fifo_cap];
		j = &jobs->job[slot];
		h = fence_hash(jobs, j->fctx, j->fseq);
		j->hnext = jobs->hash[h];
		jobs->hash[h] = slot + 1;
	}
}

static long new_job(struct gr_jobs *jobs, const struct gr_event *ev)
{
	size_t h = fence_hash(jobs, ev->job.fence_context, ev->job.fence_seqno);
	size_t slot = jobs->nr;
	struct gr_job *j;

	if (jobs->free_job) {
		slot = jobs->free_job - 1;
		jobs->free_job = jobs->job[slot].hnext;
	} else {
		if (jobs->nr == jobs->cap) {
			jobs->cap = jobs->cap ? 2 * jobs->cap : 1024;
			jobs->job = gr_realloc(jobs->job, jobs->cap, sizeof(*j));
		}
		jobs->nr++;
	}
	if (jobs->retire) {
		/* The hash holds the open jobs: those of the fifo */
		if (jobs->fifo_len + 1 > jobs->hash_size / 2) {
			rehash(jobs, 2 * jobs->hash_size);
			h = fence_hash(jobs, ev->job.fence_context, ev->job.fence_seqno);
		}
		fifo_push(jobs, slot);
	}
	j = &jobs->job[slot];
	memset(j, 0, sizeof(*j));
	j->serial = jobs->serial++;
	j->fctx = ev->job.fence_context;
	j->fseq = ev->job.fence_seqno;
	j->ctx_id = ev->job.ctx_id;
	j->ring_id = ev->job.ring_id;
	j->first_ts = ev->ts;
	j->error_code = -1;
	j->hnext = jobs->hash[h];
	jobs->hash[h] = slot + 1;
	return slot;
}

/* The job an event belongs to, or -1 for a ring-only event. */
static long job_of(struct gr_jobs *jobs, const struct gr_event *ev)
{
	const struct grtrace_job_payload *p = &ev->job;
	bool no_fence = !p->fence_context && !p->fence_seqno;
	long i;

	if (ev->type == GRTRACE_EV_IRQ)
		return -1;
	if (ev->type == GRTRACE_EV_SUBMIT)
		return new_job(jobs, ev);
	if ((ev->type == GRTRACE_EV_CTX_SWITCH || ev->type == GRTRACE_EV_ERROR) &&
	    no_fence)
		return -1;

	i = find_job(jobs, p->ring_id, p->fence_context, p->fence_seqno);
	if (ev->type == GRTRACE_EV_CTX_SWITCH)
		return i;
	if (i >= 0 && ev->type < GR_STAGES && SEEN(&jobs->job[i], ev->type))
		i = -1;
	return i >= 0 ? i : new_job(jobs, ev);
}

/* A new dependency of job @waiter on the fence @fctx:@fseq */
static struct gr_dep *add_dep(struct gr_jobs *jobs, long waiter, __u64 fctx, __u64 fseq)
{
	size_t slot = jobs->nr_dep;
	struct gr_dep *d;

	if (jobs->free_dep) {
		slot = jobs->free_dep - 1;
		jobs->free_dep = jobs->dep[slot].next;
	} else {
		if (jobs->nr_dep == jobs->cap_dep) {
			jobs->cap_dep = jobs->cap_dep ? 2 * jobs->cap_dep : 256;
			jobs->dep = gr_realloc(jobs->dep, jobs->cap_dep, sizeof(*d));
		}
		jobs->nr_dep++;
	}
	d = &jobs->dep[slot];
	memset(d, 0, sizeof(*d));
	d->waiter = waiter;
	d->fctx = fctx;
	d->fseq = fseq;
	/* Streaming: the jobs waited for are not kept; nobody asks */
	d->dep = jobs->retire ? -1 : find_job(jobs, -1, fctx, fseq);
	d->next = jobs->job[waiter].dep_head;
	jobs->job[waiter].dep_head = slot + 1;
	return d;
}

static void dep_enter(struct gr_jobs *jobs, long waiter, const struct gr_event *ev)
{
	struct gr_dep *d = add_dep(jobs, waiter, ev->job.aux_context, ev->job.aux_seqno);

	if (ev->type == GRTRACE_EV_SYNC_WAIT_ENTER)
		d->enter = ev->ts;
	else
		d->exit = ev->ts;
}

static void dep_exit(struct gr_jobs *jobs, long waiter, const struct gr_event *ev)
{
	struct gr_job *j = &jobs->job[waiter];
	size_t i;

	for (i = j->dep_head; i; i = jobs->dep[i - 1].next) {
		struct gr_dep *d = &jobs->dep[i - 1];

		if (d->fctx == ev->job.aux_context && d->fseq == ev->job.aux_seqno &&
		    d->enter && !d->exit) {
			d->exit = ev->ts;
			j->wait_ns += ev->ts > d->enter ? ev->ts - d->enter : 0;
			j->waits++;
			return;
		}
	}
	dep_enter(jobs, waiter, ev);
}

static bool same_thread(const struct gr_wait *w, const struct grtrace_job_payload *p)
{
	return w->ring_id == p->ring_id && w->ctx_id == p->ctx_id && w->pid == p->pid;
}

/* A SYNC_WAIT of a thread that has no job yet: keep it for its SUBMIT. */
static void jobless_wait(struct gr_jobs *jobs, const struct gr_event *ev)
{
	const struct grtrace_job_payload *p = &ev->job;
	struct gr_wait *w;
	size_t i, n = 0;

	if (ev->type == GRTRACE_EV_SYNC_WAIT_EXIT) {
		for (i = jobs->nr_wait; i-- > 0;) {
			w = &jobs->wait[i];
			if (same_thread(w, p) && w->fctx == p->aux_context &&
			    w->fseq == p->aux_seqno && w->enter && !w->exit) {
				w->exit = ev->ts;
				w->failed = p->status != 0;
				return;
			}
		}
	} else {
		/* A wait that failed ended its ioctl: this is a new one. */
		for (i = 0; i < jobs->nr_wait; i++)
			if (!same_thread(&jobs->wait[i], p) || !jobs->wait[i].failed)
				jobs->wait[n++] = jobs->wait[i];
		jobs->nr_wait = n;
	}
	if (jobs->nr_wait == MAX_WAITS)
		memmove(jobs->wait, jobs->wait + 1, --jobs->nr_wait * sizeof(*w));
	if (jobs->nr_wait == jobs->cap_wait) {
		jobs->cap_wait = jobs->cap_wait ? 2 * jobs->cap_wait : 16;
		jobs->wait = gr_realloc(jobs->wait, jobs->cap_wait, sizeof(*w));
	}
	w = &jobs->wait[jobs->nr_wait++];
	memset(w, 0, sizeof(*w));
	w->ctx_id = p->ctx_id;
	w->ring_id = p->ring_id;
	w->pid = p->pid;
	w->fctx = p->aux_context;
	w->fseq = p->aux_seqno;
	if (ev->type == GRTRACE_EV_SYNC_WAIT_ENTER)
		w->enter = ev->ts;
	else
		w->exit = ev->ts;
	w->failed = ev->type == GRTRACE_EV_SYNC_WAIT_EXIT && p->status != 0;
}

/* The jobless waits of the thread that submitted job @i are its own. */
static void bind_waits(struct gr_jobs *jobs, long i, const struct gr_event *ev)
{
	struct gr_job *j = &jobs->job[i];
	size_t k, n = 0;

	for (k = 0; k < jobs->nr_wait; k++) {
		const struct gr_wait *w = &jobs->wait[k];
		struct gr_dep *d;

		if (!same_thread(w, &ev->job)) {
			jobs->wait[n++] = *w;
			continue;
		}
		d = add_dep(jobs, i, w->fctx, w->fseq);
		d->enter = w->enter;
		d->exit = w->exit;
		if (w->enter && w->exit) {
			j->wait_ns += w->exit > w->enter ? w->exit - w->enter : 0;
			j->waits++;
		}
	}
	jobs->nr_wait = n;
}

static void job_event(struct gr_jobs *jobs, const struct gr_event *ev)
{
	const struct grtrace_job_payload *p = &ev->job;
	struct gr_job *j;
	long i;

	if ((ev->type == GRTRACE_EV_SYNC_WAIT_ENTER || ev->type == GRTRACE_EV_SYNC_WAIT_EXIT) &&
	    !p->fence_context && !p->fence_seqno) {
		jobless_wait(jobs, ev);
		return;
	}
	i = job_of(jobs, ev);
	if (i < 0)
		return;
	j = &jobs->job[i];
	j->seen |= 1U << ev->type;
	j->cannot |= ev->cannot;
	j->last_ts = ev->ts;
	if (ev->type < GR_STAGES)
		j->ts[ev->type] = ev->ts;

	switch (ev->type) {
	case GRTRACE_EV_SUBMIT:
		j->pid = p->pid;
		j->tgid = p->tgid;
		j->client_id = p->client_id;
		j->depth = p->depth;
		memcpy(j->comm, p->comm, sizeof(p->comm));
		bind_waits(jobs, i, ev);
		break;
	case GRTRACE_EV_COMMIT:
		/* A job whose SUBMIT no event tells: its thread queued it */
		if (!SEEN(j, GRTRACE_EV_SUBMIT) && p->pid) {
			j->pid = p->pid;
			j->tgid = p->tgid;
			memcpy(j->comm, p->comm, sizeof(p->comm));
		}
		break;
	case GRTRACE_EV_END:
		if (CANNOT(j, GRTRACE_EV_COMPLETE))
			j->done_at = jobs->events;
		break;
	case GRTRACE_EV_COMPLETE:
		j->status = p->status;
		j->done_at = jobs->events;
		break;
	case GRTRACE_EV_CTX_SWITCH:
		if (p->flags & GRTRACE_JOB_F_PREEMPT)
			j->preempts++;
		break;
	case GRTRACE_EV_ERROR:
		j->errors++;
		j->error_code = p->status;
		break;
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		dep_enter(jobs, i, ev);
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		dep_exit(jobs, i, ev);
		break;
	}
}

/*
 * gr_job_phase - the span of one phase of a job
 *
 * The phases HOST (SUBMIT to COMMIT), DEVICE (COMMIT to END) and COMPLETE
 * (END to COMPLETE) cover the latency (SUBMIT to COMPLETE) end to end: a
 * missing COMMIT is taken at SUBMIT (HOST 0), a missing END at COMPLETE
 * (COMPLETE 0).  With a START, QUEUE (COMMIT to START) and EXEC (START to
 * END) cover DEVICE.  A stage that the job's events cannot tell (a job
 * rebuilt from the kernel's own tracepoints, upstream.c) is unknown, not
 * taken at another: the phases that need it are unknown.
 *
 * Returns: true with *@from and *@to set when the job has the events the
 * phase needs.
 */
bool gr_job_phase(const struct gr_job *j, int metric, __u64 *from, __u64 *to)
{
	int commit = SEEN(j, GRTRACE_EV_COMMIT) || CANNOT(j, GRTRACE_EV_SUBMIT) ||
		     CANNOT(j, GRTRACE_EV_COMMIT) ? GRTRACE_EV_COMMIT : GRTRACE_EV_SUBMIT;
	int end = SEEN(j, GRTRACE_EV_END) || CANNOT(j, GRTRACE_EV_COMPLETE) ||
		  CANNOT(j, GRTRACE_EV_END) ? GRTRACE_EV_END : GRTRACE_EV_COMPLETE;
	int a, b;

	switch (metric) {
	case GR_M_HOST:
		/* Without COMMIT, 0 once the job went past it */
		a = GRTRACE_EV_SUBMIT;
		b = commit;
		if (b == a && !(j->seen & (BIT(GRTRACE_EV_START) | BIT(GRTRACE_EV_END) |
					   BIT(GRTRACE_EV_COMPLETE))))
			return false;
		break;
	case GR_M_DEVICE:
		a = commit;
		b = end;
		break;
	case GR_M_COMPLETE:
		/* Without END, 0 when DEVICE ran to COMPLETE */
		if (end == GRTRACE_EV_COMPLETE && !SEEN(j, commit))
			return false;
		a = end;
		b = GRTRACE_EV_COMPLETE;
		break;
	case GR_M_LAT:
		a = GRTRACE_EV_SUBMIT;
		b = GRTRACE_EV_COMPLETE;
		break;
	case GR_M_QUEUE:
		a = commit;
		b = GRTRACE_EV_START;
		break;
	case GR_M_EXEC:
		a = GRTRACE_EV_START;
		b = end;
		break;
	default:
		return false;
	}
	if (!SEEN(j, a) || !SEEN(j, b) || CANNOT(j, a) || CANNOT(j, b))
		return false;
	*from = j->ts[a];
	*to = j->ts[b];
	return true;
}

/*
 * gr_job_metric - one derived time of a job: a phase (gr_job_phase()) or
 * GR_M_WAIT
 *
 * Returns: true with *@val set when the job has the events it needs.
 */
bool gr_job_metric(const struct gr_job *j, int metric, __s64 *val)
{
	__u64 from, to;

	if (metric == GR_M_WAIT) {
		*val = j->wait_ns;
		return j->waits;
	}
	if (!gr_job_phase(j, metric, &from, &to))
		return false;
	*val = (__s64)(to - from);
	return true;
}

/*
 * gr_job_gpu - the GPU time of a job, as report and top count it: EXEC
 * (START to END) when its events tell the START, else DEVICE (COMMIT to
 * END), each as gr_job_phase() takes them
 *
 * Returns: true with *@ns set when the job has the events it needs.
 */
bool gr_job_gpu(const struct gr_job *j, __s64 *ns)
{
	return gr_job_metric(j, GR_M_EXEC, ns) || gr_job_metric(j, GR_M_DEVICE, ns);
}

/*
 * gr_kernel_worker - whether task @comm is one of the kernel's workers,
 * which submit for no process in particular: report's summary and top
 * show them in one row
 */
bool gr_kernel_worker(const char *comm)
{
	return !strncmp(comm, "kworker/", 8);
}

struct lv {
	__u32 ring;
	__s64 v;
	size_t job;
};

static int cmp_lv(const void *a, const void *b)
{
	const struct lv *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/*
 * gr_job_outlier - the time of a job that @label (GR_L_LONG_QUEUE or
 * GR_L_SLOW_EXEC) compares with its ring's threshold: its t_queue, or its
 * t_exec (t_device without START)
 *
 * Returns: true with *@val set when the job has it.
 */
bool gr_job_outlier(const struct gr_job *j, __u32 label, __s64 *val)
{
	int m = label == GR_L_LONG_QUEUE ? GR_M_QUEUE : GR_M_EXEC;

	if (m == GR_M_EXEC && !SEEN(j, GRTRACE_EV_START))
		m = GR_M_DEVICE;
	return gr_job_metric(j, m, val);
}

/* The automatic threshold of a ring whose median is @median */
__s64 gr_label_thresh(__s64 median)
{
	/* A corrupt input's times can be negative: the floor, not an overflow */
	if (median < 0)
		return LABEL_MIN_NS;
	if (median > INT64_MAX / LABEL_FACTOR)
		return INT64_MAX;
	return median * LABEL_FACTOR < LABEL_MIN_NS ? LABEL_MIN_NS : median * LABEL_FACTOR;
}

/* Label the jobs whose time is above the threshold of their ring. */
static void label_outliers(struct gr_jobs *jobs, __u32 label, __s64 fixed)
{
	struct lv *lv = gr_zalloc((jobs->nr + 1) * sizeof(*lv));
	size_t n = 0, a, b, k;
	__s64 thresh;

	for (k = 0; k < jobs->nr; k++) {
		if (!gr_job_outlier(&jobs->job[k], label, &lv[n].v))
			continue;
		lv[n].ring = jobs->job[k].ring_id;
		lv[n++].job = k;
	}
	qsort(lv, n, sizeof(*lv), cmp_lv);
	for (a = 0; a < n; a = b) {
		for (b = a; b < n && lv[b].ring == lv[a].ring; b++)
			;
		thresh = fixed ? fixed : gr_label_thresh(lv[a + gr_pct_index(b - a, 50)].v);
		for (k = a; k < b; k++)
			if (lv[k].v > thresh)
				jobs->job[lv[k].job].labels |= label;
	}
	free(lv);
}

/* The labels a job has by itself */
static void label_job(struct gr_job *j)
{
	if (j->preempts)
		j->labels |= GR_L_PREEMPTED;
	if (j->errors || (SEEN(j, GRTRACE_EV_COMPLETE) && j->status < 0))
		j->labels |= GR_L_ERROR;
	if (!(SEEN(j, GRTRACE_EV_SUBMIT) ||
	      (CANNOT(j, GRTRACE_EV_SUBMIT) && SEEN(j, GRTRACE_EV_COMMIT))) ||
	    !gr_job_done(j))
		j->labels |= GR_L_INCOMPLETE;
}

static void label_jobs(struct gr_jobs *jobs)
{
	size_t k;

	for (k = 0; k < jobs->nr; k++)
		label_job(&jobs->job[k]);
	label_outliers(jobs, GR_L_LONG_QUEUE, jobs->queue_thresh);
	label_outliers(jobs, GR_L_SLOW_EXEC, jobs->exec_thresh);
}

/*
 * gr_jobs_build - rebuild the jobs of a loaded stream
 *
 * Set @jobs->queue_thresh and exec_thresh before, or zero them.
 */
void gr_jobs_build(struct gr_jobs *jobs, const struct gr_trace *t)
{
	size_t i;

	jobs->hash_size = 1024;
	while (jobs->hash_size < t->nr_ev / 2)
		jobs->hash_size *= 2;
	jobs->hash = gr_zalloc(jobs->hash_size * sizeof(*jobs->hash));

	for (i = 0; i < t->nr_ev; i++)
		if (t->ev[i].type < GRTRACE_EV_NR)
			job_event(jobs, &t->ev[i]);
	/* Dependencies on jobs that showed up later */
	for (i = 0; i < jobs->nr_dep; i++)
		if (jobs->dep[i].dep < 0)
			jobs->dep[i].dep = find_job(jobs, -1, jobs->dep[i].fctx,
						    jobs->dep[i].fseq);
	label_jobs(jobs);
}

/* ---- streaming ---- */

/*
 * gr_jobs_stream - rebuild jobs event by event (gr_jobs_event()), handing
 * each to @retire when done with it
 *
 * The job passed to @retire has its own labels (preempted, error,
 * incomplete), not the outlier ones (gr_job_outlier()); its dependencies
 * are valid until @retire returns.
 */
void gr_jobs_stream(struct gr_jobs *jobs, gr_retire_fn retire, void *arg)
{
	memset(jobs, 0, sizeof(*jobs));
	jobs->retire = retire;
	jobs->arg = arg;
	jobs->hash_size = STREAM_HASH;
	jobs->hash = gr_zalloc(jobs->hash_size * sizeof(*jobs->hash));
}

/* Hand the oldest open job over and forget it. */
static void retire_oldest(struct gr_jobs *jobs)
{
	size_t slot = jobs->fifo[jobs->fifo_head], *p, d, next;
	struct gr_job *j = &jobs->job[slot];

	jobs->fifo_head = (jobs->fifo_head + 1) % jobs->fifo_cap;
	jobs->fifo_len--;
	for (p = &jobs->hash[fence_hash(jobs, j->fctx, j->fseq)]; *p != slot + 1;
	     p = &jobs->job[*p - 1].hnext)
		;
	*p = j->hnext;
	label_job(j);
	jobs->retire(jobs->arg, jobs, j);
	for (d = j->dep_head; d; d = next) {
		next = jobs->dep[d - 1].next;
		jobs->dep[d - 1].next = jobs->free_dep;
		jobs->free_dep = d;
	}
	j->hnext = jobs->free_job;
	jobs->free_job = slot + 1;
}

/* gr_jobs_event - the next event of the input, in gseq order */
void gr_jobs_event(struct gr_jobs *jobs, const struct gr_event *ev)
{
	const struct gr_job *j;

	jobs->events++;
	if (ev->type < GRTRACE_EV_NR)
		job_event(jobs, ev);
	while (jobs->fifo_len) {
		j = &jobs->job[jobs->fifo[jobs->fifo_head]];
		if (jobs->fifo_len <= OPEN_MAX &&
		    (!gr_job_done(j) || jobs->events - j->done_at < RETIRE_LAG))
			break;
		retire_oldest(jobs);
	}
}

/* gr_jobs_finish - at the end of the input: retire every job left */
void gr_jobs_finish(struct gr_jobs *jobs)
{
	while (jobs->fifo_len)
		retire_oldest(jobs);
}

void gr_jobs_free(struct gr_jobs *jobs)
{
	free(jobs->fifo);
	free(jobs->job);
	free(jobs->dep);
	free(jobs->wait);
	free(jobs->hash);
	memset(jobs, 0, sizeof(*jobs));
}

/*
 * A negative status: "-EIO", the number if it names no errno this C library
 * knows, "bad" below the kernel's -MAX_ERRNO (no fence error: a damaged
 * record, and no number that long in a STATUS column).
 */
static const char *errno_name(int status, char *buf, size_t len)
{
	const char *name = NULL;

	if (status < -4095) {
		snprintf(buf, len, "bad");
		return buf;
	}
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	name = strerrorname_np(-status);
#endif
	if (name)
		snprintf(buf, len, "-%s", name);
	else
		snprintf(buf, len, "%d", status);
	return buf;
}

/* "ok", "pending", "-EIO" (COMPLETE status), "timeout", "reset", "error" */
const char *gr_job_status(const struct gr_job *j, char *buf, size_t len)
{
	static const char * const codes[] = {
		[GRTRACE_ERROR_OTHER]	= "error",
		[GRTRACE_ERROR_TIMEOUT]	= "timeout",
		[GRTRACE_ERROR_RESET]	= "reset",
	};
	const char *s;

	if (SEEN(j, GRTRACE_EV_COMPLETE) && j->status < 0)
		return errno_name(j->status, buf, len);
	if (j->errors)
		s = j->error_code >= 0 && j->error_code < (int)ARRAY_SIZE(codes) ?
		    codes[j->error_code] : "error";
	else
		s = gr_job_done(j) ? "ok" : "pending";
	snprintf(buf, len, "%s", s);
	return buf;
}

/* Labels joined by commas, "" for none */
void gr_job_labels(const struct gr_job *j, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < GR_L_NR; i++)
		if (j->labels & (1U << i) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      gr_label_names[i]);
}

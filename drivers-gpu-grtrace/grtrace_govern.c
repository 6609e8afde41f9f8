// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace governance: which of the events offered to the relay stream it
 * keeps (watchlist, filters, sampling, rate limiting), and what it
 * aggregates about the ones it writes.  Writes held events through the
 * stream layer; knows nothing of the core and debugfs layers above it.
 */

#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/vmalloc.h>

#include <trace/events/grtrace.h>

#include "grtrace_govern.h"

/**
 * DOC: Governance
 *
 * Every event offered to the relay stream goes through the same steps, in
 * this order, whether a driver hook or the ``emit`` file reported it.  The
 * first step that rejects it counts it under its cause in ``stats``:
 *
 * 1. ``level`` and the ``filter_type_mask``, ``filter_engine_mask`` and
 *    ``filter_ring_id`` keys (``filtered``).
 * 2. The watchlist: rings (``watchlist``: ``0,1`` keeps only rings 0 and 1,
 *    ``!2`` keeps all but ring 2) and submitting contexts (``watch_ctx_add``,
 *    ``watch_allow_mode``) (``filtered``).
 * 3. With ``filter_enabled``: ``filter_events`` (a type mask),
 *    ``filter_pid`` and ``filter_uid``, which keep the jobs submitted by
 *    those processes or that user, all their events (``filtered``).
 * 4. Sampling, by job: all events of a sampled job are kept.  ``static``
 *    keeps ``sampling_rate`` percent of the jobs (exactly that share of
 *    consecutive fence seqnos); ``adaptive`` lowers the rate linearly to
 *    1% as the CPU's buffer fills from ``backpressure_threshold`` percent
 *    to full, and restores it below (``sampled``, and ``backpressure`` for
 *    jobs only the lowered rate rejected); the verdict of a job's first
 *    event holds for all its events.
 * 5. ``max_events_per_sec``: a ``window`` limiter keeps at most that many
 *    events per second of CLOCK_MONOTONIC (whole seconds), a
 *    ``token_bucket`` one refills that many tokens a second up to
 *    ``rate_limit_burst`` (``rate_limited``).
 * 6. ``sampling_mode=threshold`` and ``filter_latency`` decide on a job
 *    only when it completes: its events are held back until its COMPLETE,
 *    then written if the job took longer than ``sampling_threshold`` ns
 *    (else ``sampled``) and at least ``filter_latency`` us (else
 *    ``filtered``), measured from its first event.  Held events are written
 *    with their own timestamps; ``stats`` shows them as ``held``.
 *
 * Events of no job (fence context and seqno 0, e.g. interrupts) are sampled
 * one in N per CPU, never held, and pass no pid or uid filter; but the wait
 * of a task before its job exists (a SYNC_WAIT naming that task and the
 * fence it waits for) is sampled by that fence, its ENTER and EXIT together,
 * and judged by the task as its SUBMIT is.  A job is known by its fence
 * context and seqno in a table of %GRTRACE_JOBS jobs, from its first event
 * to its COMPLETE; a COMPLETE that is dropped drops the events its job held,
 * under its cause.  When the table is full, the job seen first is forgotten
 * (``jobs_evicted`` in ``stats``) and its held events are dropped as
 * ``untracked``; a later event of it is judged as one of a job never seen.
 * So for a stopped session, ``written`` plus all drops equals ``offered``,
 * exactly.
 *
 * The ftrace side of the tracepoints is not governed: ftrace has its own
 * filters and triggers.
 */

#define GRTRACE_JOBS		1024
#define GRTRACE_JOB_HELD	8
const char * const grtrace_sampling_mode_names[GRTRACE_SAMPLING_NR] = {
	[GRTRACE_SAMPLING_STATIC]	= "static",
	[GRTRACE_SAMPLING_ADAPTIVE]	= "adaptive",
	[GRTRACE_SAMPLING_THRESHOLD]	= "threshold",
};

const char * const grtrace_rate_limit_mode_names[GRTRACE_RATE_LIMIT_NR] = {
	[GRTRACE_RATE_LIMIT_WINDOW]		= "window",
	[GRTRACE_RATE_LIMIT_TOKEN_BUCKET]	= "token_bucket",
};

/* Why the governance filtered an event: filter_stats. */
enum grtrace_filtered_by {
	GRTRACE_FILTERED_BY_CONFIG,
	GRTRACE_FILTERED_BY_WATCH_RING,
	GRTRACE_FILTERED_BY_WATCH_CTX,
	GRTRACE_FILTERED_BY_EVENTS,
	GRTRACE_FILTERED_BY_PID,
	GRTRACE_FILTERED_BY_UID,
	GRTRACE_FILTERED_BY_LATENCY,
	GRTRACE_FILTERED_BY_NR,
};

static const char * const grtrace_filtered_by_names[GRTRACE_FILTERED_BY_NR] = {
	[GRTRACE_FILTERED_BY_CONFIG]		= "config",
	[GRTRACE_FILTERED_BY_WATCH_RING]	= "watch_ring",
	[GRTRACE_FILTERED_BY_WATCH_CTX]	= "watch_ctx",
	[GRTRACE_FILTERED_BY_EVENTS]		= "events",
	[GRTRACE_FILTERED_BY_PID]		= "pid",
	[GRTRACE_FILTERED_BY_UID]		= "uid",
	[GRTRACE_FILTERED_BY_LATENCY]		= "latency",
};

static const struct grtrace_govern_settings grtrace_govern_defaults = {
	.rate_limit_mode	= GRTRACE_RATE_LIMIT_WINDOW,
	.watch_allow		= true,
	.sampling_rate		= 100,
	.sampling_threshold	= NSEC_PER_MSEC,
	.backpressure_threshold	= 80,
	.uid			= -1,
	.filter_events		= BIT(GRTRACE_EV_NR) - 1,
	.aggregator_window	= 1000,
};

/*
 * grtrace_govern_lock serialises the commits of new settings and the
 * decisions on held events at session stop; the allocation of the job
 * table happens under it too.  The probe reads the settings under RCU
 * (sched), without it.
 */
static DEFINE_MUTEX(grtrace_govern_lock);

/* Replaced under grtrace_govern_lock by grtrace_govern_commit(). */
static struct grtrace_govern_settings __rcu *grtrace_governance;

/* On while grtrace_governance->active: see grtrace_govern.h. */
DEFINE_STATIC_KEY_FALSE(grtrace_governed);
EXPORT_SYMBOL_IF_KUNIT(grtrace_governed);

struct grtrace_held {
	u64 ts;
	u16 type;
	struct grtrace_job_payload job;
};

/* GRTRACE_JOB_* flags of struct grtrace_job_entry */
#define GRTRACE_JOB_PASS	BIT(0)	/* passed the pid/uid filter */
#define GRTRACE_JOB_SUBMITTED	BIT(1)	/* its SUBMIT was written */
#define GRTRACE_JOB_STARTED	BIT(2)	/* its COMMIT or START was written */
#define GRTRACE_JOB_DECIDED	BIT(3)	/* adaptive sampling decided on it */
#define GRTRACE_JOB_DROPPED	BIT(4)	/* ... and dropped it */

/**
 * struct grtrace_job_entry - what the governance knows of one job
 * @node: in a hash chain, or in the free list
 * @lru: in use: in the list of entries, oldest first
 * @ctx: fence context
 * @seqno: fence seqno
 * @first_ts: its first event offered
 * @submit_ts: its SUBMIT written
 * @start_ts: its last COMMIT or START written
 * @flags: GRTRACE_JOB_*
 * @nheld: entries of @held
 * @ring_info: its ring, for the METADATA of held events
 * @held: events held until it completes
 */
struct grtrace_job_entry {
	struct hlist_node node;
	struct list_head lru;
	u64 ctx;
	u64 seqno;
	u64 first_ts;
	u64 submit_ts;
	u64 start_ts;
	u32 flags;
	u32 nheld;
	struct grtrace_ring_info ring_info;
	struct grtrace_held held[GRTRACE_JOB_HELD];
};

struct grtrace_aggregate {
	u64 events;
	u64 jobs;
	u64 lat_sum;
	u64 lat_min;
	u64 lat_max;
	u64 depth_sum;
	u64 depth_n;
	u64 depth_peak;
	u64 busy;
	u64 dev_jobs;
	u64 dev_min;
	u64 dev_max;
	u64 errors;
	u64 dropped[GRTRACE_DROP_NR];
	u32 lat_hist[GRTRACE_SUMMARY_HIST];
};

static_assert(GRTRACE_DROP_NR <= GRTRACE_SUMMARY_DROPS);

/**
 * struct grtrace_jobs - the job table and the aggregator
 * @lock: protects everything here; taken by the probe, in any context
 * @hash: chains of jobs in use
 * @free: unused entries
 * @lru: entries in use, oldest first
 * @nr_used: entries in use
 * @held: events held in all entries
 * @aggr_start: when the aggregator was (re)started
 * @win_end: end of the current aggregation window
 * @win_start: its start, for its SUMMARY records: the window may change
 * @windows: windows completed
 * @evicted: rings whose slot another ring took, since @aggr_start
 * @slot_id: per slot, the ring it holds (see grtrace_aggregate_slot())
 * @total: per slot, since @aggr_start
 * @cur: per slot, the current window
 * @last: per slot, the last complete window
 * @ring_info: per slot, its ring's description for the SUMMARY records
 * @ent: the entries
 *
 * Allocated the first time a setting needs it, freed at module exit.
 */
struct grtrace_jobs {
	raw_spinlock_t lock;
	struct hlist_head hash[GRTRACE_JOBS];
	struct hlist_head free;
	struct list_head lru;
	u32 nr_used;
	u64 held;
	u64 aggr_start;
	u64 win_end;
	u64 win_start;
	u64 windows;
	u64 evicted;
	u32 slot_id[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate total[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate cur[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate last[GRTRACE_RING_SLOTS];
	struct grtrace_ring_info ring_info[GRTRACE_RING_SLOTS];
	struct grtrace_job_entry ent[GRTRACE_JOBS];
};

static struct grtrace_jobs *grtrace_jobs;

/* Where a CPU copies the held events of a job out, with interrupts off. */
struct grtrace_scratch {
	struct grtrace_ring_info ring_info;
	struct grtrace_held held[GRTRACE_JOB_HELD];
};

static struct grtrace_scratch __percpu *grtrace_scratch;

/* The rate limiter; reset whenever the settings change. */
static struct grtrace_rate_limiter {
	raw_spinlock_t lock;
	u64 win_end;
	u64 count;
	u64 tokens;	/* in 1/NSEC_PER_SEC of an event */
	u64 last;
} grtrace_rate_limiter = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(grtrace_rate_limiter.lock),
};

/* Per-CPU counters of the governance; reset by grtrace_govern_reset(). */
struct grtrace_govern_cpu {
	u64 jobless;		/* key of the next event of no job */
	u64 sampling_kept;
	u32 eff_rate;		/* adaptive: the rate last used */
	u32 fill;		/* adaptive: the buffer fill last seen */
	u64 filtered[GRTRACE_FILTERED_BY_NR];
	u64 filter_passed;
	u64 evicted;		/* jobs forgotten while the table was full */
};

static DEFINE_PER_CPU(struct grtrace_govern_cpu, grtrace_govern_cpu);

struct grtrace_ring_count {
	u32 id;
	u64 offered;
	u64 written;
};

struct grtrace_ring_counts {
	struct grtrace_ring_count r[GRTRACE_RING_SLOTS];
};

/*
 * Per CPU, per ring slot: for /proc/grtrace_stats.  A ring takes the slot of
 * its id modulo GRTRACE_RING_SLOTS, from the ring there before it.
 */
static struct grtrace_ring_counts __percpu *grtrace_ring_counts;

static inline bool grtrace_jobless(const struct grtrace_job_payload *job)
{
	return !job->fence_context && !job->fence_seqno;
}

/* This CPU's counts of ring @id, taken over from the ring there before. */
static struct grtrace_ring_count *grtrace_ring_count(u32 id)
{
	struct grtrace_ring_count *rc =
		&this_cpu_ptr(grtrace_ring_counts)->r[id % GRTRACE_RING_SLOTS];

	if (unlikely(rc->id != id)) {
		rc->id = id;
		rc->offered = 0;
		rc->written = 0;
	}
	return rc;
}

/* Whether the ring watchlist of @g lists ring @id. */
static bool grtrace_ring_listed(const struct grtrace_govern_settings *g,
				u32 id)
{
	u32 i;

	for (i = 0; i < g->nr_watch_rings; i++)
		if (g->watch_rings[i] == id)
			return true;
	return false;
}

/* ---- job table: all under grtrace_jobs->lock ---- */

static struct hlist_head *grtrace_job_chain(u64 ctx, u64 seqno)
{
	return &grtrace_jobs->hash[hash_64(ctx ^ (seqno * GOLDEN_RATIO_64),
					   ilog2(GRTRACE_JOBS))];
}

static struct grtrace_job_entry *grtrace_job_find(u64 ctx, u64 seqno)
{
	struct grtrace_job_entry *e;

	hlist_for_each_entry(e, grtrace_job_chain(ctx, seqno), node)
		if (e->ctx == ctx && e->seqno == seqno)
			return e;
	return NULL;
}

static void grtrace_job_put(struct grtrace_job_entry *e)
{
	grtrace_jobs->held -= e->nheld;
	e->nheld = 0;
	hlist_del(&e->node);
	list_del(&e->lru);
	hlist_add_head(&e->node, &grtrace_jobs->free);
	grtrace_jobs->nr_used--;
}

static struct grtrace_job_entry *grtrace_job_get(const struct grtrace_event *ev,
						 u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	struct grtrace_job_entry *e;

	e = grtrace_job_find(job->fence_context, job->fence_seqno);
	if (e)
		return e;
	if (hlist_empty(&grtrace_jobs->free)) {
		/*
		 * Full: forget the oldest job, most likely one whose COMPLETE
		 * never comes (its ring went away, or the driver lost it).
		 */
		e = list_first_entry(&grtrace_jobs->lru,
				     struct grtrace_job_entry, lru);
		if (e->nheld)
			grtrace_stream_drop(GRTRACE_DROP_UNTRACKED, ts, e->nheld);
		grtrace_job_put(e);
		this_cpu_inc(grtrace_govern_cpu.evicted);
	}
	e = hlist_entry(grtrace_jobs->free.first, struct grtrace_job_entry, node);
	hlist_del(&e->node);
	e->ctx = job->fence_context;
	e->seqno = job->fence_seqno;
	e->first_ts = ts;
	e->submit_ts = 0;
	e->start_ts = 0;
	e->flags = 0;
	e->nheld = 0;
	if (ev->ring)
		grtrace_fill_ring_info(&e->ring_info, ev->ring, job->ring_id);
	hlist_add_head(&e->node, grtrace_job_chain(e->ctx, e->seqno));
	list_add_tail(&e->lru, &grtrace_jobs->lru);
	grtrace_jobs->nr_used++;
	return e;
}

/*
 * A COMPLETE ends its job, written or not.  When it was dropped for
 * @cause, so are the events the job held.
 */
static void grtrace_job_forget(const struct grtrace_job_payload *job,
			       int cause, u64 ts)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_job_entry *e;

	if (!jt)
		return;
	raw_spin_lock(&jt->lock);
	e = grtrace_job_find(job->fence_context, job->fence_seqno);
	if (e) {
		if (e->nheld)
			grtrace_stream_drop(cause, ts, e->nheld);
		grtrace_job_put(e);
	}
	raw_spin_unlock(&jt->lock);
}

static void grtrace_jobs_clear(void)
{
	struct grtrace_jobs *jt = grtrace_jobs;
	int i;

	INIT_HLIST_HEAD(&jt->free);
	INIT_LIST_HEAD(&jt->lru);
	for (i = 0; i < GRTRACE_JOBS; i++) {
		INIT_HLIST_HEAD(&jt->hash[i]);
		hlist_add_head(&jt->ent[i].node, &jt->free);
	}
	jt->nr_used = 0;
	jt->held = 0;
}

static void grtrace_aggregate_clear(u64 now)
{
	struct grtrace_jobs *jt = grtrace_jobs;

	memset(jt->total, 0, sizeof(jt->total));
	memset(jt->cur, 0, sizeof(jt->cur));
	memset(jt->last, 0, sizeof(jt->last));
	memset(jt->ring_info, 0, sizeof(jt->ring_info));
	memset(jt->slot_id, 0, sizeof(jt->slot_id));
	jt->aggr_start = now;
	jt->win_end = 0;
	jt->windows = 0;
	jt->evicted = 0;
}

/* ---- the steps ---- */

static int grtrace_filtered(int why)
{
	this_cpu_inc(grtrace_govern_cpu.filtered[why]);
	return GRTRACE_DROP_FILTERED;
}

static bool grtrace_ctx_listed(const struct grtrace_govern_settings *g, u64 ctx)
{
	u32 i;

	for (i = 0; i < g->nr_watch_ctx; i++)
		if (g->watch_ctx[i] == ctx)
			return true;
	return false;
}

static bool grtrace_submitter_ok(const struct grtrace_govern_settings *g,
				 const struct grtrace_job_payload *job, int *why)
{
	u32 i;

	if (g->nr_pids) {
		for (i = 0; i < g->nr_pids; i++)
			if (g->pids[i] == job->pid || g->pids[i] == job->tgid)
				break;
		if (i == g->nr_pids) {
			*why = GRTRACE_FILTERED_BY_PID;
			return false;
		}
	}
	/* SUBMIT is reported by the submitting task, a task's wait by that task. */
	if (g->uid >= 0 &&
	    from_kuid(&init_user_ns, current_uid()) != (uid_t)g->uid) {
		*why = GRTRACE_FILTERED_BY_UID;
		return false;
	}
	return true;
}

/* filter_pid, filter_uid: decided at SUBMIT, remembered in the job table. */
static int grtrace_filter_submitter(const struct grtrace_govern_settings *g,
				    const struct grtrace_event *ev, u64 ts)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	int why = g->nr_pids ? GRTRACE_FILTERED_BY_PID : GRTRACE_FILTERED_BY_UID;
	struct grtrace_job_entry *e;
	int ret = -1;

	if (grtrace_jobless(&ev->job)) {
		/*
		 * The wait of a task before its job exists (virtio-gpu's
		 * in-fences) names that task: judged as its SUBMIT is.
		 */
		if (ev->job.pid && grtrace_submitter_ok(g, &ev->job, &why))
			return -1;
		return grtrace_filtered(why);
	}
	if (ev->type == GRTRACE_EV_SUBMIT &&
	    !grtrace_submitter_ok(g, &ev->job, &why))
		return grtrace_filtered(why);
	if (!jt)
		return GRTRACE_DROP_UNTRACKED;

	raw_spin_lock(&jt->lock);
	if (ev->type == GRTRACE_EV_SUBMIT) {
		e = grtrace_job_get(ev, ts);
		if (e)
			e->flags |= GRTRACE_JOB_PASS;
		else
			ret = GRTRACE_DROP_UNTRACKED;
	} else {
		e = grtrace_job_find(ev->job.fence_context,
				     ev->job.fence_seqno);
		if (!e || !(e->flags & GRTRACE_JOB_PASS))
			ret = GRTRACE_DROP_FILTERED;
	}
	raw_spin_unlock(&jt->lock);
	if (ret == GRTRACE_DROP_FILTERED)
		return grtrace_filtered(why);
	return ret;
}

/*
 * Adaptive sampling keeps the verdict of a job's first event for all its
 * events: the buffer fill it depends on changes while the job runs.
 */
static int grtrace_job_verdict(const struct grtrace_event *ev, u64 ts,
			       int drop)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_job_entry *e;

	if (!jt)
		return drop;
	raw_spin_lock(&jt->lock);
	e = grtrace_job_get(ev, ts);
	if (e->flags & GRTRACE_JOB_DECIDED)
		drop = e->flags & GRTRACE_JOB_DROPPED ?
		       GRTRACE_DROP_BACKPRESSURE : -1;
	else
		e->flags |= GRTRACE_JOB_DECIDED |
			    (drop >= 0 ? GRTRACE_JOB_DROPPED : 0);
	raw_spin_unlock(&jt->lock);
	return drop;
}

static int grtrace_sample(const struct grtrace_govern_settings *g,
			  const struct grtrace_event *ev, u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	struct grtrace_govern_cpu *cs = this_cpu_ptr(&grtrace_govern_cpu);
	u32 r, rate = g->sampling_rate;
	int drop;
	u64 key;

	if (!grtrace_jobless(job))
		key = job->fence_seqno + hash_64(job->fence_context, 32);
	else if (job->aux_context)
		/* A wait before its job exists: its ENTER and EXIT go together. */
		key = job->aux_seqno + hash_64(job->aux_context, 32);
	else
		key = cs->jobless++;
	/* Consecutive keys keep exactly @rate of every 100. */
	r = do_div(key, 100);
	if (r >= rate)
		return GRTRACE_DROP_SAMPLED;

	if (g->sampling_mode == GRTRACE_SAMPLING_ADAPTIVE && g->backpressure_threshold < 100) {
		u32 fill = grtrace_buffer_fill();

		if (fill > g->backpressure_threshold)
			rate = max(1U, rate * (100 - fill) /
					   (100 - g->backpressure_threshold));
		cs->fill = fill;
		cs->eff_rate = rate;
		drop = r >= rate ? GRTRACE_DROP_BACKPRESSURE : -1;
		if (!grtrace_jobless(job))
			drop = grtrace_job_verdict(ev, ts, drop);
		if (drop >= 0)
			return drop;
	}
	cs->sampling_kept++;
	return -1;
}

/*
 * @ts is the event's own time stamp, read with interrupts disabled but
 * before this lock, so another CPU may have charged a later event
 * already: the bucket's clock never runs backwards, and such an event
 * refills nothing.  The tokens are kept in 1/NSEC_PER_SEC of an event.
 */
static bool grtrace_rate_ok(const struct grtrace_govern_settings *g, u64 ts)
{
	struct grtrace_rate_limiter *rl = &grtrace_rate_limiter;
	u64 cap, add;
	bool ok;

	raw_spin_lock(&rl->lock);
	if (g->rate_limit_mode == GRTRACE_RATE_LIMIT_WINDOW) {
		if (ts >= rl->win_end) {
			rl->win_end = (div_u64(ts, NSEC_PER_SEC) + 1) *
				      NSEC_PER_SEC;
			rl->count = 0;
		}
		ok = rl->count < g->max_events_per_sec;
		rl->count += ok;
	} else {
		cap = (u64)(g->rate_limit_burst ?: g->max_events_per_sec) *
		      NSEC_PER_SEC;
		/* Saturated at a full bucket, so tokens + add cannot wrap. */
		if (!rl->last ||
		    check_mul_overflow(ts - rl->last,
				       (u64)g->max_events_per_sec, &add) ||
		    add > cap)
			add = cap;
		if (ts > rl->last || !rl->last) {
			rl->tokens = min(cap, rl->tokens + add);
			rl->last = ts;
		}
		ok = rl->tokens >= NSEC_PER_SEC;
		if (ok)
			rl->tokens -= NSEC_PER_SEC;
	}
	raw_spin_unlock(&rl->lock);
	return ok;
}

/*
 * Copy the held events of @e to this CPU's scratch space and free @e, so
 * they can be written without the lock.  Interrupts disabled.
 */
static u32 grtrace_take_held(struct grtrace_job_entry *e)
{
	struct grtrace_scratch *sc = this_cpu_ptr(grtrace_scratch);
	u32 n = e->nheld;

	memcpy(sc->held, e->held, n * sizeof(sc->held[0]));
	memcpy(&sc->ring_info, &e->ring_info, sizeof(sc->ring_info));
	grtrace_job_put(e);
	return n;
}

/* Write the @n events grtrace_take_held() copied out.  Interrupts disabled. */
static void grtrace_write_held(u32 n)
{
	struct grtrace_scratch *sc = this_cpu_ptr(grtrace_scratch);
	const struct grtrace_held *h;
	bool written;
	u32 i;

	for (i = 0; i < n; i++) {
		h = &sc->held[i];
		written = grtrace_stream_write(h->type, h->ts, &h->job, NULL,
					       &sc->ring_info);
		grtrace_govern_written(h->type, h->ts, &h->job, written);
	}
}

/* sampling_mode=threshold and filter_latency: wait for COMPLETE. */
static int grtrace_hold(const struct grtrace_govern_settings *g,
			const struct grtrace_event *ev, u64 ts)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_job_entry *e;
	int ret = GRTRACE_HELD;
	u64 took = 0;
	u32 n = 0;

	if (!jt)
		return GRTRACE_DROP_UNTRACKED;
	raw_spin_lock(&jt->lock);
	if (ev->type != GRTRACE_EV_COMPLETE) {
		e = grtrace_job_get(ev, ts);
		if (!e || e->nheld == GRTRACE_JOB_HELD) {
			ret = GRTRACE_DROP_UNTRACKED;
		} else {
			e->held[e->nheld].ts = ts;
			e->held[e->nheld].type = ev->type;
			e->held[e->nheld].job = ev->job;
			e->nheld++;
			jt->held++;
		}
		raw_spin_unlock(&jt->lock);
		return ret;
	}

	e = grtrace_job_find(ev->job.fence_context, ev->job.fence_seqno);
	if (e) {
		took = ts - e->first_ts;
		n = grtrace_take_held(e);
	}
	raw_spin_unlock(&jt->lock);

	if (g->filter_enabled && took < g->min_latency)
		ret = grtrace_filtered(GRTRACE_FILTERED_BY_LATENCY);
	else if (g->sampling_mode == GRTRACE_SAMPLING_THRESHOLD && took <= g->sampling_threshold)
		ret = GRTRACE_DROP_SAMPLED;
	else
		ret = -1;

	if (ret >= 0) {
		grtrace_stream_drop(ret, ts, n);
		if (ret == GRTRACE_DROP_FILTERED)
			this_cpu_add(grtrace_govern_cpu.filtered[GRTRACE_FILTERED_BY_LATENCY], n);
		return ret;
	}
	grtrace_write_held(n);
	return -1;
}

static int grtrace_govern_slow(const struct grtrace_govern_settings *g,
			       const struct grtrace_event *ev, u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	int ret;

	if (g->nr_watch_rings &&
	    grtrace_ring_listed(g, job->ring_id) == g->ring_deny)
		return grtrace_filtered(GRTRACE_FILTERED_BY_WATCH_RING);
	if (g->nr_watch_ctx &&
	    grtrace_ctx_listed(g, job->ctx_id) != g->watch_allow)
		return grtrace_filtered(GRTRACE_FILTERED_BY_WATCH_CTX);

	if (g->filter_enabled) {
		if (!(g->filter_events & BIT(ev->type)))
			return grtrace_filtered(GRTRACE_FILTERED_BY_EVENTS);
		if (g->nr_pids || g->uid >= 0) {
			ret = grtrace_filter_submitter(g, ev, ts);
			if (ret >= 0)
				return ret;
		}
		this_cpu_inc(grtrace_govern_cpu.filter_passed);
	}

	if (g->sampling_mode != GRTRACE_SAMPLING_THRESHOLD &&
	    (g->sampling_rate < 100 || g->sampling_mode == GRTRACE_SAMPLING_ADAPTIVE)) {
		ret = grtrace_sample(g, ev, ts);
		if (ret >= 0)
			return ret;
	}

	if (g->max_events_per_sec && !grtrace_rate_ok(g, ts))
		return GRTRACE_DROP_RATE_LIMITED;

	if (g->hold && !grtrace_jobless(job))
		return grtrace_hold(g, ev, ts);
	return -1;
}

/**
 * grtrace_govern_default - write or drop an event while every governance
 * setting is at its default
 * @ev: the event
 * @ts: its time
 * @drop: the core's verdict: an enum grtrace_drop, or -1 to keep it
 *
 * What grtrace_govern() and grtrace_govern_written() do for settings that
 * are not active, in one call: the per-ring counts, the write or the drop.
 *
 * Context: the relay probe, interrupts disabled.
 */
void grtrace_govern_default(const struct grtrace_event *ev, u64 ts, int drop)
{
	struct grtrace_ring_count *rc = NULL;

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) && grtrace_ring_counts) {
		rc = grtrace_ring_count(ev->job.ring_id);
		rc->offered++;
	}
	if (drop >= 0) {
		if (drop == GRTRACE_DROP_FILTERED)
			this_cpu_inc(grtrace_govern_cpu.filtered[GRTRACE_FILTERED_BY_CONFIG]);
		grtrace_stream_drop(drop, ts, 1);
		return;
	}
	if (grtrace_stream_write(ev->type, ts, &ev->job, ev->ring, NULL) && rc)
		rc->written++;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern_default);

static void grtrace_aggregate_add(struct grtrace_aggregate *a, u16 type,
				  u64 lat, u64 busy,
				  const struct grtrace_job_payload *job)
{
	a->events++;
	if (lat != U64_MAX) {
		if (!a->jobs || lat < a->lat_min)
			a->lat_min = lat;
		a->lat_max = max(a->lat_max, lat);
		a->lat_sum += lat;
		a->jobs++;
		a->lat_hist[min_t(u32, ilog2(lat | 1), GRTRACE_SUMMARY_HIST - 1)]++;
	}
	if (type == GRTRACE_EV_END && busy) {
		if (!a->dev_jobs || busy < a->dev_min)
			a->dev_min = busy;
		a->dev_max = max(a->dev_max, busy);
		a->dev_jobs++;
	}
	if (type == GRTRACE_EV_ERROR)
		a->errors++;
	if (type == GRTRACE_EV_SUBMIT) {
		a->depth_sum += job->depth;
		a->depth_n++;
		a->depth_peak = max_t(u64, a->depth_peak, job->depth);
	}
	a->busy += busy;
}

/*
 * Write the SUMMARY record of the ring in @slot for the window of @cur, if
 * it did anything in it, and fire grtrace_summary with it for ftrace.
 */
static void grtrace_summary_write(struct grtrace_jobs *jt, u32 slot,
				  u64 start, u64 len, u64 ts)
{
	const struct grtrace_aggregate *a = &jt->cur[slot];
	const struct grtrace_ring_info *ring_info;
	struct grtrace_summary s;
	u64 dropped = 0;
	int d;

	lockdep_assert_held(&jt->lock);
	for (d = 0; d < GRTRACE_DROP_NR; d++)
		dropped += a->dropped[d];
	if (!a->events && !dropped)
		return;
	memset(&s, 0, sizeof(s));
	s.ring_id = jt->slot_id[slot];
	s.window_start = start;
	s.window_ns = len;
	s.events = a->events;
	s.jobs = a->jobs;
	s.lat_sum = a->lat_sum;
	s.lat_min = a->lat_min;
	s.lat_max = a->lat_max;
	s.dev_jobs = a->dev_jobs;
	s.dev_sum = a->busy;
	s.dev_min = a->dev_min;
	s.dev_max = a->dev_max;
	s.depth_sum = a->depth_sum;
	s.depth_n = a->depth_n;
	s.depth_peak = a->depth_peak;
	s.errors = a->errors;
	memcpy(s.dropped, a->dropped, sizeof(a->dropped));
	memcpy(s.lat_hist, a->lat_hist, sizeof(a->lat_hist));
	ring_info = jt->ring_info[slot].ring_id == s.ring_id ?
		    &jt->ring_info[slot] : NULL;
	grtrace_stream_summary(&s, ring_info, ts);
	trace_grtrace_summary(&s, ring_info, dropped);
}

/*
 * Write a SUMMARY record of each ring active in the window of @cur, and
 * fire grtrace_summary with it for ftrace.
 */
static void grtrace_summaries_write(struct grtrace_jobs *jt, u64 start,
				    u64 len, u64 ts)
{
	u32 i;

	lockdep_assert_held(&jt->lock);
	for (i = 0; i < GRTRACE_RING_SLOTS; i++)
		grtrace_summary_write(jt, i, start, len, ts);
}

/*
 * The aggregates of ring @id: its slot, its id modulo GRTRACE_RING_SLOTS,
 * taken from the ring there before if need be.  With aggregate_only, that
 * ring's window so far is written first, as a SUMMARY record of a window
 * that ends now: a reader adds the windows of a ring up, and every event
 * stays counted once.  Its totals in aggregator_stats are forgotten
 * (counted in aggregator_evicted).  Rings are numbered in the order they
 * first report, so the ring evicted is mostly one long gone.
 */
static u32 grtrace_aggregate_slot(const struct grtrace_govern_settings *g,
				  struct grtrace_jobs *jt, u32 id, u64 ts)
{
	u32 slot = id % GRTRACE_RING_SLOTS;

	lockdep_assert_held(&jt->lock);
	if (likely(jt->slot_id[slot] == id))
		return slot;
	if (jt->slot_id[slot]) {
		u64 start = max(jt->win_start, jt->aggr_start);

		if (g->aggregate_only && jt->win_end)
			grtrace_summary_write(jt, slot, start,
					      ts > start ? ts - start : 0, ts);
		jt->evicted++;
	}
	jt->slot_id[slot] = id;
	memset(&jt->total[slot], 0, sizeof(jt->total[slot]));
	memset(&jt->cur[slot], 0, sizeof(jt->cur[slot]));
	memset(&jt->last[slot], 0, sizeof(jt->last[slot]));
	memset(&jt->ring_info[slot], 0, sizeof(jt->ring_info[slot]));
	return slot;
}

/*
 * Account one event in the job table and the aggregates.  A window that
 * ended before @ts is closed first: with aggregate_only, its rings'
 * SUMMARY records are written then, by the first event after its end (or
 * by grtrace_window_close(), at the stop or when aggregate_only is turned
 * off).
 */
static void grtrace_aggregate_locked(const struct grtrace_govern_settings *g,
				     struct grtrace_jobs *jt, u16 type, u64 ts,
				     const struct grtrace_job_payload *job)
{
	struct grtrace_job_entry *e = NULL;
	u64 lat = U64_MAX, busy = 0;
	u32 slot;

	lockdep_assert_held(&jt->lock);
	if (!grtrace_jobless(job))
		e = grtrace_job_find(job->fence_context, job->fence_seqno);
	switch (type) {
	case GRTRACE_EV_SUBMIT:
		if (!e) {
			struct grtrace_event ev = { .type = type, .job = *job };

			e = grtrace_job_get(&ev, ts);
		}
		if (e) {
			e->flags |= GRTRACE_JOB_SUBMITTED;
			e->submit_ts = ts;
		}
		break;
	case GRTRACE_EV_COMMIT:
	case GRTRACE_EV_START:
		if (e) {
			e->flags |= GRTRACE_JOB_STARTED;
			e->start_ts = ts;
		}
		break;
	case GRTRACE_EV_END:
		if (e && (e->flags & GRTRACE_JOB_STARTED) && ts > e->start_ts)
			busy = ts - e->start_ts;
		break;
	case GRTRACE_EV_COMPLETE:
		if (e && (e->flags & GRTRACE_JOB_SUBMITTED))
			lat = ts - e->submit_ts;
		if (e && !e->nheld)
			grtrace_job_put(e);
		break;
	}

	if (ts >= jt->win_end) {
		u64 w = (u64)g->aggregator_window * NSEC_PER_MSEC;
		u64 t = max(ts, jt->aggr_start);

		if (jt->win_end) {
			if (g->aggregate_only)
				grtrace_summaries_write(jt, jt->win_start,
							jt->win_end - jt->win_start, ts);
			memcpy(jt->last, jt->cur, sizeof(jt->last));
			memset(jt->cur, 0, sizeof(jt->cur));
			jt->windows++;
		}
		jt->win_end = jt->aggr_start +
			      (div64_u64(t - jt->aggr_start, w) + 1) * w;
		jt->win_start = jt->win_end - w;
	}
	slot = grtrace_aggregate_slot(g, jt, job->ring_id, ts);
	grtrace_aggregate_add(&jt->total[slot], type, lat, busy, job);
	grtrace_aggregate_add(&jt->cur[slot], type, lat, busy, job);
}

/*
 * aggregate_only: count a job event that passed the filters in the
 * aggregates instead of writing it (ERRORs are written still), and one
 * that did not as a drop of its ring.
 */
static int grtrace_aggregate_only(const struct grtrace_govern_settings *g,
				  const struct grtrace_event *ev, u64 ts,
				  int drop)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_ring_info *ri;
	u32 slot;

	if (!jt || drop == GRTRACE_HELD)
		return drop;
	raw_spin_lock(&jt->lock);
	slot = grtrace_aggregate_slot(g, jt, ev->job.ring_id, ts);
	ri = &jt->ring_info[slot];
	if (ri->ring_id != ev->job.ring_id && ev->ring)
		grtrace_fill_ring_info(ri, ev->ring, ev->job.ring_id);
	if (ev->type == GRTRACE_EV_ERROR) {
		/* Written, then counted by grtrace_govern_written(). */
	} else if (drop < 0) {
		grtrace_aggregate_locked(g, jt, ev->type, ts, &ev->job);
		drop = GRTRACE_DROP_AGGREGATED;
	} else {
		jt->cur[slot].dropped[drop]++;
	}
	raw_spin_unlock(&jt->lock);
	return drop;
}

/**
 * grtrace_govern - decide on an event offered to the relay stream
 * @ev: the event
 * @ts: its time
 * @drop: the core's verdict: an enum grtrace_drop, or -1 to keep it
 *
 * Context: the relay probe, interrupts disabled.
 * Returns: -1 to write the event, %GRTRACE_HELD if it was held back (or
 * already written with the job it completes), or the enum grtrace_drop to
 * count it under.
 */
int grtrace_govern(const struct grtrace_event *ev, u64 ts, int drop)
{
	const struct grtrace_govern_settings *g;

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) && grtrace_ring_counts)
		grtrace_ring_count(ev->job.ring_id)->offered++;

	g = rcu_dereference_sched(grtrace_governance);
	if (drop < 0 && unlikely(g->active))
		drop = grtrace_govern_slow(g, ev, ts);
	else if (drop == GRTRACE_DROP_FILTERED)
		this_cpu_inc(grtrace_govern_cpu.filtered[GRTRACE_FILTERED_BY_CONFIG]);

	if (unlikely(g->track) && drop >= 0 && drop != GRTRACE_HELD &&
	    ev->type == GRTRACE_EV_COMPLETE)
		grtrace_job_forget(&ev->job, drop, ts);
	if (unlikely(g->aggregate_only))
		drop = grtrace_aggregate_only(g, ev, ts, drop);
	return drop;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern);

/**
 * grtrace_govern_written - account an event written to the relay stream
 * @type: its type
 * @ts: its time
 * @job: its payload
 * @written: false if it was dropped for want of buffer space
 *
 * Context: interrupts disabled.
 */
void grtrace_govern_written(u16 type, u64 ts,
			    const struct grtrace_job_payload *job, bool written)
{
	const struct grtrace_govern_settings *g = rcu_dereference_sched(grtrace_governance);
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) && grtrace_ring_counts && written)
		grtrace_ring_count(job->ring_id)->written++;

	if (likely(!g->track) || !jt)
		return;
	/* Without aggregates, a COMPLETE only ends the job's entry. */
	if (!written || !g->aggregating) {
		if (type == GRTRACE_EV_COMPLETE)
			grtrace_job_forget(job, GRTRACE_DROP_OVERRUN, ts);
		return;
	}

	raw_spin_lock(&jt->lock);
	grtrace_aggregate_locked(g, jt, type, ts, job);
	raw_spin_unlock(&jt->lock);
}

/* -1 to write the held events of a job that took @took ns, or a cause. */
static int grtrace_held_verdict(const struct grtrace_govern_settings *g, u64 took, u32 n)
{
	if (g->filter_enabled && took < g->min_latency) {
		this_cpu_add(grtrace_govern_cpu.filtered[GRTRACE_FILTERED_BY_LATENCY], n);
		return GRTRACE_DROP_FILTERED;
	}
	if (g->sampling_mode == GRTRACE_SAMPLING_THRESHOLD && took <= g->sampling_threshold)
		return GRTRACE_DROP_SAMPLED;
	return -1;
}

/*
 * Decide on the jobs whose events are still held, by the rules of @g and
 * the time each job has taken so far, and write or drop their events.
 * Context: process context, grtrace_govern_lock held, no probe holding
 * events meanwhile.
 */
static void grtrace_held_release(const struct grtrace_govern_settings *g)
{
	struct grtrace_jobs *jt = grtrace_jobs;
	unsigned long flags;
	u32 i, n;
	int v = -1;
	u64 ts;

	lockdep_assert_held(&grtrace_govern_lock);
	for (i = 0; i < GRTRACE_JOBS; i++) {
		local_irq_save(flags);
		ts = ktime_get_mono_fast_ns();
		raw_spin_lock(&jt->lock);
		n = 0;
		if (jt->ent[i].nheld) {
			v = grtrace_held_verdict(g, ts - jt->ent[i].first_ts,
						 jt->ent[i].nheld);
			n = grtrace_take_held(&jt->ent[i]);
		}
		raw_spin_unlock(&jt->lock);
		if (n && v >= 0)
			grtrace_stream_drop(v, ts, n);
		if (n && v < 0)
			grtrace_write_held(n);
		local_irq_restore(flags);
	}
}

/*
 * aggregate_only: write the SUMMARY records of the window still open, which
 * end now, and close it.  Between sessions there is no such window.
 * Context: process context, grtrace_govern_lock held.
 */
static void grtrace_window_close(void)
{
	struct grtrace_jobs *jt = grtrace_jobs;
	unsigned long flags;
	u64 ts, start;

	lockdep_assert_held(&grtrace_govern_lock);
	local_irq_save(flags);
	ts = ktime_get_mono_fast_ns();
	raw_spin_lock(&jt->lock);
	if (jt->win_end && grtrace_stream_live()) {
		start = max(jt->win_start, jt->aggr_start);
		grtrace_summaries_write(jt, start, ts > start ? ts - start : 0, ts);
		memset(jt->cur, 0, sizeof(jt->cur));
		jt->win_end = 0;
	}
	raw_spin_unlock(&jt->lock);
	local_irq_restore(flags);
}

/**
 * grtrace_govern_stop - decide on the jobs whose events are still held
 *
 * A job that has not completed is judged on the time it has taken so far.
 *
 * Context: session stop, after the probes were removed; takes
 * grtrace_govern_lock.
 */
void grtrace_govern_stop(void)
{
	const struct grtrace_govern_settings *g;

	guard(mutex)(&grtrace_govern_lock);
	if (!grtrace_jobs)
		return;
	g = rcu_dereference_protected(grtrace_governance,
				      lockdep_is_held(&grtrace_govern_lock));
	grtrace_held_release(g);
	if (g->aggregate_only)
		grtrace_window_close();
}

/**
 * grtrace_govern_start - reset the governance state for a new session
 *
 * Context: session start, no probe registered; takes grtrace_govern_lock.
 */
void grtrace_govern_start(void)
{
	struct grtrace_jobs *jt;

	guard(mutex)(&grtrace_govern_lock);
	jt = grtrace_jobs;

	raw_spin_lock_irq(&grtrace_rate_limiter.lock);
	grtrace_rate_limiter.win_end = 0;
	grtrace_rate_limiter.count = 0;
	grtrace_rate_limiter.last = 0;
	raw_spin_unlock_irq(&grtrace_rate_limiter.lock);
	if (!jt)
		return;
	raw_spin_lock_irq(&jt->lock);
	grtrace_jobs_clear();
	grtrace_aggregate_clear(ktime_get_mono_fast_ns());
	raw_spin_unlock_irq(&jt->lock);
}

static void grtrace_govern_reset_of(int cpu)
{
	memset(per_cpu_ptr(&grtrace_govern_cpu, cpu), 0,
	       sizeof(struct grtrace_govern_cpu));
	if (grtrace_ring_counts)
		memset(per_cpu_ptr(grtrace_ring_counts, cpu), 0,
		       sizeof(struct grtrace_ring_counts));
}

static void grtrace_govern_reset_cpu(void *unused)
{
	grtrace_govern_reset_of(smp_processor_id());
}

/**
 * grtrace_govern_reset - zero the governance counters and aggregates
 *
 * Context: process context.
 */
void grtrace_govern_reset(void)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	int cpu;

	/* As grtrace_stream_reset_stats(): IPIs, and offline CPUs directly. */
	cpus_read_lock();
	on_each_cpu(grtrace_govern_reset_cpu, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			grtrace_govern_reset_of(cpu);
	cpus_read_unlock();
	if (!jt)
		return;
	raw_spin_lock_irq(&jt->lock);
	grtrace_aggregate_clear(ktime_get_mono_fast_ns());
	raw_spin_unlock_irq(&jt->lock);
}

/**
 * grtrace_govern_evicted - rings whose aggregates another ring took over
 *
 * Context: any; a snapshot.
 * Returns: their number since the aggregates were last reset.
 */
u64 grtrace_govern_evicted(void)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	return jt ? READ_ONCE(jt->evicted) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern_evicted);

/**
 * grtrace_govern_held - events held back until their job completes
 *
 * Context: any; a snapshot.
 * Returns: their number, over all jobs.
 */
u64 grtrace_govern_held(void)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	return jt ? READ_ONCE(jt->held) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern_held);

/* The filters' per-CPU counts summed: @by[why], and *@passed unless NULL */
static void grtrace_filtered_sum(u64 by[GRTRACE_FILTERED_BY_NR], u64 *passed)
{
	int cpu, i;

	memset(by, 0, GRTRACE_FILTERED_BY_NR * sizeof(*by));
	if (passed)
		*passed = 0;
	for_each_possible_cpu(cpu) {
		const struct grtrace_govern_cpu *cs = per_cpu_ptr(&grtrace_govern_cpu, cpu);

		for (i = 0; i < GRTRACE_FILTERED_BY_NR; i++)
			by[i] += READ_ONCE(cs->filtered[i]);
		if (passed)
			*passed += READ_ONCE(cs->filter_passed);
	}
}

/**
 * grtrace_govern_filtered - events dropped by the governance's filters
 * @events: set to those of the event type filter (``filter_events``)
 * @watch: set to those of the ring and context watchlists
 *
 * Context: any; a snapshot.
 */
void grtrace_govern_filtered(u64 *events, u64 *watch)
{
	u64 by[GRTRACE_FILTERED_BY_NR];

	grtrace_filtered_sum(by, NULL);
	*events = by[GRTRACE_FILTERED_BY_EVENTS];
	*watch = by[GRTRACE_FILTERED_BY_WATCH_RING] + by[GRTRACE_FILTERED_BY_WATCH_CTX];
}

/* ---- settings ---- */

/**
 * grtrace_govern_ctx_listed - whether a context is on the watchlist
 * @settings: the settings
 * @ctx: a context id
 *
 * Context: any.
 * Returns: true if watch_ctx_add added @ctx to @settings.
 */
bool grtrace_govern_ctx_listed(const struct grtrace_govern_settings *settings,
			       u64 ctx)
{
	return grtrace_ctx_listed(settings, ctx);
}

/**
 * grtrace_govern_settings_get - copy the settings in force
 * @settings: filled in
 *
 * Context: process context, takes grtrace_govern_lock.
 */
void grtrace_govern_settings_get(struct grtrace_govern_settings *settings)
{
	guard(mutex)(&grtrace_govern_lock);
	*settings = *rcu_dereference_protected(grtrace_governance,
					       lockdep_is_held(&grtrace_govern_lock));
}

/* Allocate the job table the first time a setting needs it. */
static int grtrace_jobs_alloc_locked(void)
{
	struct grtrace_jobs *jt;

	lockdep_assert_held(&grtrace_govern_lock);

	if (grtrace_jobs)
		return 0;
	jt = vzalloc(sizeof(*jt));
	grtrace_scratch = alloc_percpu(struct grtrace_scratch);
	if (!jt || !grtrace_scratch) {
		free_percpu(grtrace_scratch);
		grtrace_scratch = NULL;
		vfree(jt);
		return -ENOMEM;
	}
	raw_spin_lock_init(&jt->lock);
	/* Published before the settings that use it. */
	WRITE_ONCE(grtrace_jobs, jt);
	grtrace_jobs_clear();
	grtrace_aggregate_clear(ktime_get_mono_fast_ns());
	return 0;
}

/**
 * grtrace_govern_commit - publish new settings
 * @settings: from grtrace_govern_settings_get(), changed; copied, not
 *	consumed
 *
 * Context: process context, takes grtrace_govern_lock.
 * Returns: 0, or -ENOMEM if the copy or the job table they need could not
 * be allocated (nothing changed).
 */
int grtrace_govern_commit(const struct grtrace_govern_settings *settings)
{
	struct grtrace_govern_settings *g, *old;
	int ret;

	g = kmemdup(settings, sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	/* Nothing is held for writing when job events are not written. */
	g->hold = !g->aggregate_only &&
		  (g->sampling_mode == GRTRACE_SAMPLING_THRESHOLD ||
		   (g->filter_enabled && g->min_latency));
	/*
	 * Derived, not stored in aggregator_enabled: the settings a later
	 * edit starts from keep the aggregator off once aggregate_only is.
	 */
	g->aggregating = g->aggregator_enabled || g->aggregate_only;
	g->track = g->hold || g->aggregating ||
		   g->sampling_mode == GRTRACE_SAMPLING_ADAPTIVE ||
		   (g->filter_enabled && (g->nr_pids || g->uid >= 0));
	g->active = g->track || g->max_events_per_sec || g->nr_watch_ctx ||
		    g->nr_watch_rings || g->sampling_rate < 100 ||
		    g->sampling_mode != GRTRACE_SAMPLING_STATIC ||
		    g->filter_enabled;

	guard(mutex)(&grtrace_govern_lock);
	if (g->track) {
		ret = grtrace_jobs_alloc_locked();
		if (ret) {
			kfree(g);
			return ret;
		}
	}

	old = rcu_replace_pointer(grtrace_governance, g,
				  lockdep_is_held(&grtrace_govern_lock));
	/*
	 * After the settings: a probe that still takes the default path for
	 * a moment writes what it would have before the commit.
	 */
	if (g->active)
		static_branch_enable(&grtrace_governed);
	else
		static_branch_disable(&grtrace_governed);
	/*
	 * Nothing is held from now on: left in the table, the events held so
	 * far would follow their own COMPLETE, written at once, at the stop.
	 * Once no probe runs with the old settings, decide on them as a stop
	 * does.  A job that completes within that grace period still has its
	 * COMPLETE written first; its events keep their own times.
	 */
	if (old->hold && !g->hold && grtrace_jobs) {
		synchronize_rcu();
		grtrace_held_release(old);
	}
	/*
	 * The events counted in the open window were not written: its
	 * summaries are due now, once no probe counts with the old settings.
	 */
	if (old->aggregate_only && !g->aggregate_only && grtrace_jobs) {
		synchronize_rcu();
		grtrace_window_close();
	}
	if (grtrace_jobs && g->aggregating && !old->aggregating) {
		raw_spin_lock_irq(&grtrace_jobs->lock);
		grtrace_aggregate_clear(ktime_get_mono_fast_ns());
		raw_spin_unlock_irq(&grtrace_jobs->lock);
	}
	raw_spin_lock_irq(&grtrace_rate_limiter.lock);
	grtrace_rate_limiter.win_end = 0;
	grtrace_rate_limiter.count = 0;
	grtrace_rate_limiter.last = 0;
	raw_spin_unlock_irq(&grtrace_rate_limiter.lock);
	kfree_rcu(old, rcu);
	return 0;
}

/* ---- statistics, printed by the debugfs layer ---- */

/**
 * grtrace_govern_show_sampling - print sampling_stats
 * @m: the file
 *
 * Context: process context.
 * Returns: 0.
 */
int grtrace_govern_show_sampling(struct seq_file *m)
{
	const struct grtrace_govern_settings *g;
	struct grtrace_totals t;
	u64 kept = 0;
	int cpu;

	grtrace_get_totals(&t);
	for_each_possible_cpu(cpu)
		kept += per_cpu(grtrace_govern_cpu, cpu).sampling_kept;
	rcu_read_lock();
	g = rcu_dereference(grtrace_governance);
	seq_printf(m, "mode=%s\n", grtrace_sampling_mode_names[g->sampling_mode]);
	seq_printf(m, "rate=%u\n", g->sampling_rate);
	seq_printf(m, "threshold_ns=%llu\n", g->sampling_threshold);
	seq_printf(m, "backpressure_threshold=%u\n", g->backpressure_threshold);
	rcu_read_unlock();
	seq_printf(m, "kept=%llu\n", kept);
	seq_printf(m, "sampled=%llu\n", t.dropped[GRTRACE_DROP_SAMPLED]);
	seq_printf(m, "backpressure=%llu\n",
		   t.dropped[GRTRACE_DROP_BACKPRESSURE]);
	seq_printf(m, "held=%llu\n", grtrace_govern_held());
	for_each_online_cpu(cpu) {
		seq_printf(m, "cpu%d_fill=%u\n", cpu,
			   READ_ONCE(per_cpu(grtrace_govern_cpu, cpu).fill));
		seq_printf(m, "cpu%d_rate=%u\n", cpu,
			   READ_ONCE(per_cpu(grtrace_govern_cpu, cpu).eff_rate));
	}
	return 0;
}

/**
 * grtrace_govern_show_filter - print filter_stats
 * @m: the file
 *
 * Context: process context.
 * Returns: 0.
 */
int grtrace_govern_show_filter(struct seq_file *m)
{
	u64 by[GRTRACE_FILTERED_BY_NR], passed;
	struct grtrace_totals t;
	int i;

	grtrace_get_totals(&t);
	grtrace_filtered_sum(by, &passed);
	rcu_read_lock();
	seq_printf(m, "enabled=%d\n", rcu_dereference(grtrace_governance)->filter_enabled);
	rcu_read_unlock();
	seq_printf(m, "passed=%llu\n", passed);
	seq_printf(m, "filtered=%llu\n", t.dropped[GRTRACE_DROP_FILTERED]);
	for (i = 0; i < GRTRACE_FILTERED_BY_NR; i++)
		seq_printf(m, "filtered_%s=%llu\n", grtrace_filtered_by_names[i],
			   by[i]);
	return 0;
}

static void grtrace_aggregate_show_ring(struct seq_file *m, u32 ring,
					const char *scope,
					const struct grtrace_aggregate *a)
{
	u64 davg = a->depth_n ? div64_u64(a->depth_sum * 100, a->depth_n) : 0;

	seq_printf(m, "%u %s %llu %llu %llu %llu %llu %llu %llu.%02llu %llu %llu\n",
		   ring, scope, a->events, a->jobs, a->lat_sum,
		   a->jobs ? div64_u64(a->lat_sum, a->jobs) : 0, a->lat_min,
		   a->lat_max, div_u64(davg, 100), davg % 100, a->depth_peak,
		   a->busy);
}

/**
 * grtrace_govern_show_aggregator - print aggregator_stats
 * @m: the file
 *
 * Context: process context, takes the job table lock.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_show_aggregator(struct seq_file *m)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_aggregate *total, *last;
	u64 windows = 0;
	u32 *id, i;

	rcu_read_lock();
	seq_printf(m, "enabled=%d\n", rcu_dereference(grtrace_governance)->aggregating);
	seq_printf(m, "window_ms=%u\n", rcu_dereference(grtrace_governance)->aggregator_window);
	rcu_read_unlock();
	total = kvcalloc(2 * GRTRACE_RING_SLOTS, sizeof(*total), GFP_KERNEL);
	id = kcalloc(GRTRACE_RING_SLOTS, sizeof(*id), GFP_KERNEL);
	if (!total || !id) {
		kvfree(total);
		kfree(id);
		return -ENOMEM;
	}
	last = total + GRTRACE_RING_SLOTS;
	if (jt) {
		raw_spin_lock_irq(&jt->lock);
		memcpy(total, jt->total, sizeof(jt->total));
		memcpy(last, jt->last, sizeof(jt->last));
		memcpy(id, jt->slot_id, sizeof(jt->slot_id));
		windows = jt->windows;
		raw_spin_unlock_irq(&jt->lock);
	}
	seq_printf(m, "windows=%llu\n", windows);
	seq_puts(m, "# ring scope events jobs lat_sum_ns lat_avg_ns lat_min_ns lat_max_ns depth_avg depth_peak busy_ns\n");
	for (i = 0; i < GRTRACE_RING_SLOTS; i++) {
		if (total[i].events)
			grtrace_aggregate_show_ring(m, id[i], "total", &total[i]);
		if (last[i].events)
			grtrace_aggregate_show_ring(m, id[i], "last", &last[i]);
	}
	kvfree(total);
	kfree(id);
	return 0;
}

/**
 * grtrace_govern_show_stats - print the governance's lines of stats
 * @m: the file
 *
 * Context: process context.
 */
void grtrace_govern_show_stats(struct seq_file *m)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	u64 evicted = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		evicted += per_cpu(grtrace_govern_cpu.evicted, cpu);
	seq_printf(m, "jobs_evicted=%llu\n", evicted);
	if (!IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR))
		return;
	rcu_read_lock();
	seq_printf(m, "aggregator_enabled=%d\n",
		   rcu_dereference(grtrace_governance)->aggregating);
	rcu_read_unlock();
	seq_printf(m, "aggregator_windows=%llu\n", jt ? READ_ONCE(jt->windows) : 0);
	seq_printf(m, "aggregator_evicted=%llu\n", grtrace_govern_evicted());
	seq_printf(m, "jobs_tracked=%u\n", jt ? READ_ONCE(jt->nr_used) : 0);
}

/**
 * grtrace_govern_show_rings - print /proc/grtrace_stats
 * @m: the file
 *
 * Context: process context, takes the job table lock.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_show_rings(struct seq_file *m)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_aggregate *total = NULL;
	u32 *slot_id = NULL;
	u64 span = 0;
	int cpu, other;
	bool aggr;
	u32 i;

	rcu_read_lock();
	aggr = rcu_dereference(grtrace_governance)->aggregating;
	rcu_read_unlock();
	if (jt && aggr) {
		total = kvcalloc(GRTRACE_RING_SLOTS, sizeof(*total), GFP_KERNEL);
		slot_id = kcalloc(GRTRACE_RING_SLOTS, sizeof(*slot_id), GFP_KERNEL);
		if (!total || !slot_id) {
			kvfree(total);
			kfree(slot_id);
			return -ENOMEM;
		}
		raw_spin_lock_irq(&jt->lock);
		memcpy(total, jt->total, sizeof(jt->total));
		memcpy(slot_id, jt->slot_id, sizeof(jt->slot_id));
		span = ktime_get_mono_fast_ns() - jt->aggr_start;
		raw_spin_unlock_irq(&jt->lock);
	}

	seq_puts(m, "# ring_id utilization% drop_rate% avg_latency_us offered written dropped\n");
	/* A slot's ring may differ from CPU to CPU: each ring once. */
	for (i = 0; i < GRTRACE_RING_SLOTS; i++) {
		for_each_possible_cpu(cpu) {
			const struct grtrace_ring_count *rc =
				&per_cpu_ptr(grtrace_ring_counts, cpu)->r[i];
			u32 id = READ_ONCE(rc->id);
			u64 off = 0, wr = 0, drop, x;
			bool seen = false;

			for_each_possible_cpu(other) {
				const struct grtrace_ring_count *o =
					&per_cpu_ptr(grtrace_ring_counts, other)->r[i];

				if (READ_ONCE(o->id) != id)
					continue;
				if (other < cpu) {
					seen = true;
					break;
				}
				off += READ_ONCE(o->offered);
				wr += READ_ONCE(o->written);
			}
			if (seen || (!off && !wr))
				continue;
			drop = off > wr ? off - wr : 0;
			seq_printf(m, "%u ", id);
			if (total && span && slot_id[i] == id) {
				x = div64_u64(min(total[i].busy, span) * 10000, span);
				seq_printf(m, "%llu.%02llu ", div_u64(x, 100), x % 100);
			} else {
				seq_puts(m, "- ");
			}
			x = off ? div64_u64(drop * 10000, off) : 0;
			seq_printf(m, "%llu.%02llu ", div_u64(x, 100), x % 100);
			if (total && slot_id[i] == id && total[i].jobs) {
				x = div64_u64(total[i].lat_sum, total[i].jobs);
				seq_printf(m, "%llu.%03llu ", div_u64(x, 1000), x % 1000);
			} else {
				seq_puts(m, "- ");
			}
			seq_printf(m, "%llu %llu %llu\n", off, wr, drop);
		}
	}
	kvfree(total);
	kfree(slot_id);
	return 0;
}

/**
 * grtrace_govern_init - set up the governance with default settings
 *
 * Context: module init.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_init(void)
{
	struct grtrace_govern_settings *g;

	g = kmemdup(&grtrace_govern_defaults, sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	RCU_INIT_POINTER(grtrace_governance, g);

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON)) {
		grtrace_ring_counts = alloc_percpu(struct grtrace_ring_counts);
		if (!grtrace_ring_counts) {
			RCU_INIT_POINTER(grtrace_governance, NULL);
			kfree(g);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * grtrace_govern_exit - free the governance
 *
 * Context: module exit, no session running.
 */
void grtrace_govern_exit(void)
{
	guard(mutex)(&grtrace_govern_lock);
	free_percpu(grtrace_ring_counts);
	grtrace_ring_counts = NULL;
	kfree(rcu_replace_pointer(grtrace_governance, NULL,
				  lockdep_is_held(&grtrace_govern_lock)));
	vfree(grtrace_jobs);
	grtrace_jobs = NULL;
	free_percpu(grtrace_scratch);
	grtrace_scratch = NULL;
}

/* The original design's separate modules are parts of this one. */
#if IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR)
MODULE_ALIAS("grtrace_aggregator");
#endif
#if IS_ENABLED(CONFIG_GRTRACE_SAMPLING)
MODULE_ALIAS("grtrace_sampling");
#endif
#if IS_ENABLED(CONFIG_GRTRACE_FILTER)
MODULE_ALIAS("grtrace_filter");
#endif
#if IS_ENABLED(CONFIG_GRTRACE_PERF_MON)
MODULE_ALIAS("grtrace_perf_mon");
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace governance: which of the events offered to the relay stream it
 * keeps (watchlist, filters, sampling, rate limiting), and what it
 * aggregates about the ones it writes.
 */

#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/vmalloc.h>

#include "grtrace_internal.h"

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
 *    jobs only the lowered rate rejected).
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
 * Events of no job (fence context and seqno 0, e.g. interrupts) are
 * sampled one in N per CPU, never held, and never pass a pid or uid
 * filter.  A job is known by its fence context and seqno in a table of
 * %GRTRACE_JOBS jobs; a decision that needs a job the full table cannot
 * hold drops the event as ``untracked``.  So for a stopped session,
 * ``written`` plus all drops equals ``offered``, exactly.
 *
 * The ftrace side of the tracepoints is not governed: ftrace has its own
 * filters and triggers.
 */

#define GRTRACE_JOBS		1024
#define GRTRACE_JOB_HELD	8
#define GRTRACE_WATCH_CTX	16
#define GRTRACE_FILTER_PIDS	16

enum { GRTRACE_SMODE_STATIC, GRTRACE_SMODE_ADAPTIVE, GRTRACE_SMODE_THRESHOLD };
enum { GRTRACE_RL_WINDOW, GRTRACE_RL_TOKEN_BUCKET };

static const char * const grtrace_smode_names[] = {
	[GRTRACE_SMODE_STATIC]		= "static",
	[GRTRACE_SMODE_ADAPTIVE]	= "adaptive",
	[GRTRACE_SMODE_THRESHOLD]	= "threshold",
};

static const char * const grtrace_rl_names[] = {
	[GRTRACE_RL_WINDOW]		= "window",
	[GRTRACE_RL_TOKEN_BUCKET]	= "token_bucket",
};

/* Why the governance filtered an event: filter_stats. */
enum grtrace_filt {
	GRTRACE_FILT_CONFIG,
	GRTRACE_FILT_WATCH_RING,
	GRTRACE_FILT_WATCH_CTX,
	GRTRACE_FILT_EVENTS,
	GRTRACE_FILT_PID,
	GRTRACE_FILT_UID,
	GRTRACE_FILT_LATENCY,
	GRTRACE_FILT_NR,
};

static const char * const grtrace_filt_names[GRTRACE_FILT_NR] = {
	[GRTRACE_FILT_CONFIG]		= "config",
	[GRTRACE_FILT_WATCH_RING]	= "watch_ring",
	[GRTRACE_FILT_WATCH_CTX]	= "watch_ctx",
	[GRTRACE_FILT_EVENTS]		= "events",
	[GRTRACE_FILT_PID]		= "pid",
	[GRTRACE_FILT_UID]		= "uid",
	[GRTRACE_FILT_LATENCY]		= "latency",
};

/**
 * struct grtrace_gov - governance settings
 * @max_eps: max_events_per_sec, 0 for no limit
 * @rl_mode: rate_limiter_mode
 * @rl_burst: rate_limit_burst, 0 for @max_eps
 * @watch_allow: watch_allow_mode: @watch_ctx lists the contexts kept
 *	(true) or the ones dropped
 * @nr_watch_ctx: entries of @watch_ctx
 * @watch_ctx: context ids of watch_ctx_add
 * @ring_deny: @watch_rings lists the rings dropped, not the ones kept
 * @nr_watch_rings: rings in @watch_rings, 0 for no ring watchlist
 * @watch_rings: the ring watchlist
 * @smode: sampling_mode
 * @srate: sampling_rate, percent of jobs
 * @sthreshold: sampling_threshold, ns
 * @backpressure: backpressure_threshold, percent of buffer fill
 * @filter_enabled: filter_enabled
 * @nr_pids: entries of @pids
 * @pids: filter_pid
 * @uid: filter_uid, -1 for any
 * @min_latency: filter_latency, in ns
 * @filter_events: filter_events, a mask of event types
 * @aggr_enabled: aggregator_enable
 * @aggr_window: aggregator_window, ms
 * @active: some setting differs from the defaults
 * @track: some setting needs the job table
 * @hold: events are held until their job completes
 * @rcu: for freeing
 *
 * Never changed once published: a write builds a new copy, and the probe
 * sees either the old or the new one, whole.
 */
struct grtrace_gov {
	u32 max_eps;
	u32 rl_mode;
	u32 rl_burst;
	bool watch_allow;
	u32 nr_watch_ctx;
	u64 watch_ctx[GRTRACE_WATCH_CTX];
	bool ring_deny;
	u32 nr_watch_rings;
	DECLARE_BITMAP(watch_rings, GRTRACE_MAX_RINGS);
	u32 smode;
	u32 srate;
	u64 sthreshold;
	u32 backpressure;
	bool filter_enabled;
	u32 nr_pids;
	u32 pids[GRTRACE_FILTER_PIDS];
	s64 uid;
	u64 min_latency;
	u32 filter_events;
	bool aggr_enabled;
	u32 aggr_window;
	bool active;
	bool track;
	bool hold;
	struct rcu_head rcu;
};

static const struct grtrace_gov grtrace_gov_defaults = {
	.rl_mode	= GRTRACE_RL_WINDOW,
	.watch_allow	= true,
	.srate		= 100,
	.sthreshold	= NSEC_PER_MSEC,
	.backpressure	= 80,
	.uid		= -1,
	.filter_events	= BIT(GRTRACE_EV_NR) - 1,
	.aggr_window	= 1000,
};

/* Replaced under grtrace_lock by grtrace_govern_cfg_commit(). */
static struct grtrace_gov __rcu *grtrace_gov;

struct grtrace_held {
	u64 ts;
	u16 type;
	struct grtrace_job_payload job;
};

/* GRTRACE_JOB_* flags of struct grtrace_jobent */
#define GRTRACE_JOB_PASS	BIT(0)	/* passed the pid/uid filter */
#define GRTRACE_JOB_SUBMITTED	BIT(1)	/* its SUBMIT was written */
#define GRTRACE_JOB_STARTED	BIT(2)	/* its COMMIT or START was written */

/**
 * struct grtrace_jobent - what the governance knows of one job
 * @node: in a hash chain, or in the free list
 * @ctx: fence context
 * @seqno: fence seqno
 * @first_ts: its first event offered
 * @submit_ts: its SUBMIT written
 * @start_ts: its last COMMIT or START written
 * @flags: GRTRACE_JOB_*
 * @nheld: entries of @held
 * @ri: its ring, for the METADATA of held events
 * @held: events held until it completes
 */
struct grtrace_jobent {
	struct hlist_node node;
	u64 ctx;
	u64 seqno;
	u64 first_ts;
	u64 submit_ts;
	u64 start_ts;
	u32 flags;
	u32 nheld;
	struct grtrace_ring_info ri;
	struct grtrace_held held[GRTRACE_JOB_HELD];
};

struct grtrace_aggr_ring {
	u64 events;
	u64 jobs;
	u64 lat_sum;
	u64 lat_min;
	u64 lat_max;
	u64 depth_sum;
	u64 depth_n;
	u64 depth_peak;
	u64 busy;
};

/**
 * struct grtrace_jobs - the job table and the aggregator
 * @lock: protects everything here; taken by the probe, in any context
 * @hash: chains of jobs in use
 * @free: unused entries
 * @nr_used: entries in use
 * @held: events held in all entries
 * @aggr_start: when the aggregator was (re)started
 * @win_end: end of the current aggregation window
 * @windows: windows completed
 * @total: per ring, since @aggr_start
 * @cur: per ring, the current window
 * @last: per ring, the last complete window
 * @ent: the entries
 *
 * Allocated the first time a setting needs it, freed at module exit.
 */
struct grtrace_jobs {
	raw_spinlock_t lock;
	struct hlist_head hash[GRTRACE_JOBS];
	struct hlist_head free;
	u32 nr_used;
	u64 held;
	u64 aggr_start;
	u64 win_end;
	u64 windows;
	struct grtrace_aggr_ring total[GRTRACE_MAX_RINGS];
	struct grtrace_aggr_ring cur[GRTRACE_MAX_RINGS];
	struct grtrace_aggr_ring last[GRTRACE_MAX_RINGS];
	struct grtrace_jobent ent[GRTRACE_JOBS];
};

static struct grtrace_jobs *grtrace_jobs;

/* Where a CPU copies the held events of a job out, with interrupts off. */
struct grtrace_scratch {
	struct grtrace_ring_info ri;
	struct grtrace_held held[GRTRACE_JOB_HELD];
};

static struct grtrace_scratch __percpu *grtrace_scratch;

/* The rate limiter; reset whenever the settings change. */
static struct {
	raw_spinlock_t lock;
	u64 win_end;
	u64 count;
	u64 tokens;	/* in 1/NSEC_PER_SEC of an event */
	u64 last;
} grtrace_rl = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(grtrace_rl.lock),
};

/* Per-CPU counters of the governance; reset by grtrace_govern_reset(). */
struct grtrace_gcpu {
	u64 jobless;		/* key of the next event of no job */
	u64 sampling_kept;
	u32 eff_rate;		/* adaptive: the rate last used */
	u32 fill;		/* adaptive: the buffer fill last seen */
	u64 filt[GRTRACE_FILT_NR];
	u64 filter_passed;
};

static DEFINE_PER_CPU(struct grtrace_gcpu, grtrace_gcpu);

struct grtrace_ring_count {
	u64 offered;
	u64 written;
};

struct grtrace_ring_counts {
	struct grtrace_ring_count r[GRTRACE_MAX_RINGS];
};

/* Per CPU, per ring: for /proc/grtrace_stats. */
static struct grtrace_ring_counts __percpu *grtrace_ring_counts;

static inline bool grtrace_jobless(const struct grtrace_job_payload *job)
{
	return !job->fence_context && !job->fence_seqno;
}

/* ---- job table: all under grtrace_jobs->lock ---- */

static struct hlist_head *grtrace_job_chain(u64 ctx, u64 seqno)
{
	return &grtrace_jobs->hash[hash_64(ctx ^ (seqno * GOLDEN_RATIO_64),
					   ilog2(GRTRACE_JOBS))];
}

static struct grtrace_jobent *grtrace_job_find(u64 ctx, u64 seqno)
{
	struct grtrace_jobent *e;

	hlist_for_each_entry(e, grtrace_job_chain(ctx, seqno), node)
		if (e->ctx == ctx && e->seqno == seqno)
			return e;
	return NULL;
}

static struct grtrace_jobent *grtrace_job_get(const struct grtrace_event *ev,
					      u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	struct grtrace_jobent *e;

	e = grtrace_job_find(job->fence_context, job->fence_seqno);
	if (e)
		return e;
	if (hlist_empty(&grtrace_jobs->free))
		return NULL;
	e = hlist_entry(grtrace_jobs->free.first, struct grtrace_jobent, node);
	hlist_del(&e->node);
	e->ctx = job->fence_context;
	e->seqno = job->fence_seqno;
	e->first_ts = ts;
	e->submit_ts = 0;
	e->start_ts = 0;
	e->flags = 0;
	e->nheld = 0;
	if (ev->ring)
		grtrace_fill_ring_info(&e->ri, ev->ring);
	hlist_add_head(&e->node, grtrace_job_chain(e->ctx, e->seqno));
	grtrace_jobs->nr_used++;
	return e;
}

static void grtrace_job_put(struct grtrace_jobent *e)
{
	grtrace_jobs->held -= e->nheld;
	e->nheld = 0;
	hlist_del(&e->node);
	hlist_add_head(&e->node, &grtrace_jobs->free);
	grtrace_jobs->nr_used--;
}

/* A COMPLETE ends its job, written or not. */
static void grtrace_job_forget(const struct grtrace_job_payload *job)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_jobent *e;

	if (!jt)
		return;
	raw_spin_lock(&jt->lock);
	e = grtrace_job_find(job->fence_context, job->fence_seqno);
	if (e && !e->nheld)
		grtrace_job_put(e);
	raw_spin_unlock(&jt->lock);
}

static void grtrace_jobs_clear(void)
{
	struct grtrace_jobs *jt = grtrace_jobs;
	int i;

	INIT_HLIST_HEAD(&jt->free);
	for (i = 0; i < GRTRACE_JOBS; i++) {
		INIT_HLIST_HEAD(&jt->hash[i]);
		hlist_add_head(&jt->ent[i].node, &jt->free);
	}
	jt->nr_used = 0;
	jt->held = 0;
}

static void grtrace_aggr_clear(u64 now)
{
	struct grtrace_jobs *jt = grtrace_jobs;

	memset(jt->total, 0, sizeof(jt->total));
	memset(jt->cur, 0, sizeof(jt->cur));
	memset(jt->last, 0, sizeof(jt->last));
	jt->aggr_start = now;
	jt->win_end = 0;
	jt->windows = 0;
}

/* ---- the steps ---- */

static int grtrace_filtered(int why)
{
	this_cpu_inc(grtrace_gcpu.filt[why]);
	return GRTRACE_DROP_FILTERED;
}

static bool grtrace_ctx_listed(const struct grtrace_gov *g, u64 ctx)
{
	u32 i;

	for (i = 0; i < g->nr_watch_ctx; i++)
		if (g->watch_ctx[i] == ctx)
			return true;
	return false;
}

static bool grtrace_submitter_ok(const struct grtrace_gov *g,
				 const struct grtrace_job_payload *job, int *why)
{
	u32 i;

	if (g->nr_pids) {
		for (i = 0; i < g->nr_pids; i++)
			if (g->pids[i] == job->pid || g->pids[i] == job->tgid)
				break;
		if (i == g->nr_pids) {
			*why = GRTRACE_FILT_PID;
			return false;
		}
	}
	/* SUBMIT is reported by the submitting task. */
	if (g->uid >= 0 &&
	    from_kuid(&init_user_ns, current_uid()) != (uid_t)g->uid) {
		*why = GRTRACE_FILT_UID;
		return false;
	}
	return true;
}

/* filter_pid, filter_uid: decided at SUBMIT, remembered in the job table. */
static int grtrace_filter_submitter(const struct grtrace_gov *g,
				    const struct grtrace_event *ev, u64 ts)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	int why = g->nr_pids ? GRTRACE_FILT_PID : GRTRACE_FILT_UID;
	struct grtrace_jobent *e;
	int ret = -1;

	if (grtrace_jobless(&ev->job))
		return grtrace_filtered(why);
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

static int grtrace_sample(const struct grtrace_gov *g,
			  const struct grtrace_job_payload *job)
{
	struct grtrace_gcpu *gc = this_cpu_ptr(&grtrace_gcpu);
	u32 r, rate = g->srate;
	u64 key;

	if (grtrace_jobless(job))
		key = gc->jobless++;
	else
		key = job->fence_seqno + hash_64(job->fence_context, 32);
	/* Consecutive keys keep exactly @rate of every 100. */
	r = do_div(key, 100);
	if (r >= rate)
		return GRTRACE_DROP_SAMPLED;

	if (g->smode == GRTRACE_SMODE_ADAPTIVE && g->backpressure < 100) {
		u32 fill = grtrace_buffer_fill();

		if (fill > g->backpressure)
			rate = max(1U, rate * (100 - fill) /
					   (100 - g->backpressure));
		gc->fill = fill;
		gc->eff_rate = rate;
		if (r >= rate)
			return GRTRACE_DROP_BACKPRESSURE;
	}
	gc->sampling_kept++;
	return -1;
}

static bool grtrace_rate_ok(const struct grtrace_gov *g, u64 ts)
{
	bool ok;

	raw_spin_lock(&grtrace_rl.lock);
	if (g->rl_mode == GRTRACE_RL_WINDOW) {
		if (ts >= grtrace_rl.win_end) {
			grtrace_rl.win_end = (div_u64(ts, NSEC_PER_SEC) + 1) *
					     NSEC_PER_SEC;
			grtrace_rl.count = 0;
		}
		ok = grtrace_rl.count < g->max_eps;
		grtrace_rl.count += ok;
	} else {
		u64 cap = (u64)(g->rl_burst ?: g->max_eps) * NSEC_PER_SEC;
		u64 add;

		if (!grtrace_rl.last ||
		    check_mul_overflow(ts - grtrace_rl.last, (u64)g->max_eps,
				       &add))
			grtrace_rl.tokens = cap;
		else
			grtrace_rl.tokens = min(cap, grtrace_rl.tokens + add);
		grtrace_rl.last = ts;
		ok = grtrace_rl.tokens >= NSEC_PER_SEC;
		if (ok)
			grtrace_rl.tokens -= NSEC_PER_SEC;
	}
	raw_spin_unlock(&grtrace_rl.lock);
	return ok;
}

/*
 * Copy the held events of @e to this CPU's scratch space and free @e, so
 * they can be written without the lock.  Interrupts disabled.
 */
static u32 grtrace_take_held(struct grtrace_jobent *e)
{
	struct grtrace_scratch *sc = this_cpu_ptr(grtrace_scratch);
	u32 n = e->nheld;

	memcpy(sc->held, e->held, n * sizeof(sc->held[0]));
	memcpy(&sc->ri, &e->ri, sizeof(sc->ri));
	grtrace_job_put(e);
	return n;
}

static void grtrace_write_held(u32 n)
{
	struct grtrace_scratch *sc = this_cpu_ptr(grtrace_scratch);
	u32 i;

	for (i = 0; i < n; i++)
		grtrace_write_job(sc->held[i].type, sc->held[i].ts, &sc->ri,
				  &sc->held[i].job);
}

/* sampling_mode=threshold and filter_latency: wait for COMPLETE. */
static int grtrace_hold(const struct grtrace_gov *g,
			const struct grtrace_event *ev, u64 ts)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_jobent *e;
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
		ret = grtrace_filtered(GRTRACE_FILT_LATENCY);
	else if (g->smode == GRTRACE_SMODE_THRESHOLD && took <= g->sthreshold)
		ret = GRTRACE_DROP_SAMPLED;
	else
		ret = -1;

	if (ret >= 0) {
		grtrace_drop_held(ret, ts, n);
		if (ret == GRTRACE_DROP_FILTERED)
			this_cpu_add(grtrace_gcpu.filt[GRTRACE_FILT_LATENCY], n);
		return ret;
	}
	grtrace_write_held(n);
	return -1;
}

static int grtrace_govern_slow(const struct grtrace_gov *g,
			       const struct grtrace_event *ev, u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	int ret;

	if (g->nr_watch_rings &&
	    test_bit(job->ring_id, g->watch_rings) == g->ring_deny)
		return grtrace_filtered(GRTRACE_FILT_WATCH_RING);
	if (g->nr_watch_ctx &&
	    grtrace_ctx_listed(g, job->ctx_id) != g->watch_allow)
		return grtrace_filtered(GRTRACE_FILT_WATCH_CTX);

	if (g->filter_enabled) {
		if (!(g->filter_events & BIT(ev->type)))
			return grtrace_filtered(GRTRACE_FILT_EVENTS);
		if (g->nr_pids || g->uid >= 0) {
			ret = grtrace_filter_submitter(g, ev, ts);
			if (ret >= 0)
				return ret;
		}
		this_cpu_inc(grtrace_gcpu.filter_passed);
	}

	if (g->smode != GRTRACE_SMODE_THRESHOLD &&
	    (g->srate < 100 || g->smode == GRTRACE_SMODE_ADAPTIVE)) {
		ret = grtrace_sample(g, job);
		if (ret >= 0)
			return ret;
	}

	if (g->max_eps && !grtrace_rate_ok(g, ts))
		return GRTRACE_DROP_RATE_LIMITED;

	if (g->hold && !grtrace_jobless(job))
		return grtrace_hold(g, ev, ts);
	return -1;
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
	const struct grtrace_gov *g;

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) && grtrace_ring_counts)
		this_cpu_ptr(grtrace_ring_counts)->r[ev->job.ring_id].offered++;

	g = rcu_dereference_sched(grtrace_gov);
	if (drop < 0 && unlikely(g->active))
		drop = grtrace_govern_slow(g, ev, ts);
	else if (drop == GRTRACE_DROP_FILTERED)
		this_cpu_inc(grtrace_gcpu.filt[GRTRACE_FILT_CONFIG]);

	if (unlikely(g->track) && drop >= 0 && drop != GRTRACE_HELD &&
	    ev->type == GRTRACE_EV_COMPLETE)
		grtrace_job_forget(&ev->job);
	return drop;
}

static void grtrace_aggr_add(struct grtrace_aggr_ring *a, u16 type, u64 lat,
			     u64 busy, const struct grtrace_job_payload *job)
{
	a->events++;
	if (lat != U64_MAX) {
		if (!a->jobs || lat < a->lat_min)
			a->lat_min = lat;
		a->lat_max = max(a->lat_max, lat);
		a->lat_sum += lat;
		a->jobs++;
	}
	if (type == GRTRACE_EV_SUBMIT) {
		a->depth_sum += job->depth;
		a->depth_n++;
		a->depth_peak = max_t(u64, a->depth_peak, job->depth);
	}
	a->busy += busy;
}

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
	const struct grtrace_gov *g = rcu_dereference_sched(grtrace_gov);
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_jobent *e = NULL;
	u64 lat = U64_MAX, busy = 0;

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) && grtrace_ring_counts && written)
		this_cpu_ptr(grtrace_ring_counts)->r[job->ring_id].written++;

	if (likely(!g->track) || !jt)
		return;
	if (!written) {
		if (type == GRTRACE_EV_COMPLETE)
			grtrace_job_forget(job);
		return;
	}
	if (!g->aggr_enabled)
		return;

	raw_spin_lock(&jt->lock);
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
		u64 w = (u64)g->aggr_window * NSEC_PER_MSEC;
		u64 t = max(ts, jt->aggr_start);

		if (jt->win_end) {
			memcpy(jt->last, jt->cur, sizeof(jt->last));
			memset(jt->cur, 0, sizeof(jt->cur));
			jt->windows++;
		}
		jt->win_end = jt->aggr_start +
			      (div64_u64(t - jt->aggr_start, w) + 1) * w;
	}
	grtrace_aggr_add(&jt->total[job->ring_id], type, lat, busy, job);
	grtrace_aggr_add(&jt->cur[job->ring_id], type, lat, busy, job);
	raw_spin_unlock(&jt->lock);
}

/* -1 to write the held events of a job that took @took ns, or a cause. */
static int grtrace_held_verdict(const struct grtrace_gov *g, u64 took, u32 n)
{
	if (g->filter_enabled && took < g->min_latency) {
		this_cpu_add(grtrace_gcpu.filt[GRTRACE_FILT_LATENCY], n);
		return GRTRACE_DROP_FILTERED;
	}
	if (g->smode == GRTRACE_SMODE_THRESHOLD && took <= g->sthreshold)
		return GRTRACE_DROP_SAMPLED;
	return -1;
}

/**
 * grtrace_govern_stop - decide on the jobs whose events are still held
 *
 * A job that has not completed is judged on the time it has taken so far.
 *
 * Context: session stop, after the probes were removed; grtrace_lock held.
 */
void grtrace_govern_stop(void)
{
	struct grtrace_jobs *jt = grtrace_jobs;
	const struct grtrace_gov *g;
	unsigned long flags;
	u32 i, n;
	int v = -1;
	u64 ts;

	if (!jt)
		return;
	g = rcu_dereference_protected(grtrace_gov, true);
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
			grtrace_drop_held(v, ts, n);
		if (n && v < 0)
			grtrace_write_held(n);
		local_irq_restore(flags);
	}
}

/**
 * grtrace_govern_start - reset the governance state for a new session
 *
 * Context: grtrace_lock held, no probe registered.
 */
void grtrace_govern_start(void)
{
	struct grtrace_jobs *jt = grtrace_jobs;

	raw_spin_lock_irq(&grtrace_rl.lock);
	grtrace_rl.win_end = 0;
	grtrace_rl.count = 0;
	grtrace_rl.last = 0;
	raw_spin_unlock_irq(&grtrace_rl.lock);
	if (!jt)
		return;
	raw_spin_lock_irq(&jt->lock);
	grtrace_jobs_clear();
	grtrace_aggr_clear(ktime_get_mono_fast_ns());
	raw_spin_unlock_irq(&jt->lock);
}

static void grtrace_govern_reset_cpu(void *unused)
{
	memset(this_cpu_ptr(&grtrace_gcpu), 0, sizeof(struct grtrace_gcpu));
	if (grtrace_ring_counts)
		memset(this_cpu_ptr(grtrace_ring_counts), 0,
		       sizeof(struct grtrace_ring_counts));
}

/**
 * grtrace_govern_reset - zero the governance counters and aggregates
 */
void grtrace_govern_reset(void)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	on_each_cpu(grtrace_govern_reset_cpu, NULL, 1);
	if (!jt)
		return;
	raw_spin_lock_irq(&jt->lock);
	grtrace_aggr_clear(ktime_get_mono_fast_ns());
	raw_spin_unlock_irq(&jt->lock);
}

u64 grtrace_govern_held(void)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	return jt ? READ_ONCE(jt->held) : 0;
}

/* ---- settings ---- */

static int grtrace_parse_u32(const char *val, u32 min, u32 max, u32 *out)
{
	u32 v;

	if (kstrtou32(val, 0, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Exactly "0" or "1": kstrtobool() would take "yesno" for yes. */
static int grtrace_parse_bool(const char *val, bool *out)
{
	if (strcmp(val, "0") && strcmp(val, "1"))
		return -EINVAL;
	*out = *val == '1';
	return 0;
}

static int set_srate(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_u32(val, 0, 100, &g->srate);
}

static void show_srate(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->srate);
}

static int set_smode(struct grtrace_gov *g, const char *val)
{
	int i = sysfs_match_string(grtrace_smode_names, val);

	if (i < 0)
		return -EINVAL;
	g->smode = i;
	return 0;
}

static void show_smode(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_puts(m, grtrace_smode_names[g->smode]);
}

static int set_adaptive(struct grtrace_gov *g, const char *val)
{
	bool on;

	if (grtrace_parse_bool(val, &on))
		return -EINVAL;
	if (on)
		g->smode = GRTRACE_SMODE_ADAPTIVE;
	else if (g->smode == GRTRACE_SMODE_ADAPTIVE)
		g->smode = GRTRACE_SMODE_STATIC;
	return 0;
}

static void show_adaptive(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%d", g->smode == GRTRACE_SMODE_ADAPTIVE);
}

static int set_sthreshold(struct grtrace_gov *g, const char *val)
{
	return kstrtou64(val, 0, &g->sthreshold) ? -EINVAL : 0;
}

static void show_sthreshold(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%llu", g->sthreshold);
}

static int set_backpressure(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_u32(val, 0, 100, &g->backpressure);
}

static void show_backpressure(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->backpressure);
}

static int set_max_eps(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_u32(val, 0, 100000000, &g->max_eps);
}

static void show_max_eps(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->max_eps);
}

static int set_rl_mode(struct grtrace_gov *g, const char *val)
{
	int i = sysfs_match_string(grtrace_rl_names, val);

	if (i < 0)
		return -EINVAL;
	g->rl_mode = i;
	return 0;
}

static void show_rl_mode(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_puts(m, grtrace_rl_names[g->rl_mode]);
}

static int set_rl_burst(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_u32(val, 0, 1000000000, &g->rl_burst);
}

static void show_rl_burst(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->rl_burst);
}

/* "0,1": keep only these rings; "!2,3": all but these; "" or "all": all. */
static int set_watchlist(struct grtrace_gov *g, const char *val)
{
	DECLARE_BITMAP(rings, GRTRACE_MAX_RINGS);
	bool deny = *val == '!';
	char *copy, *cur, *tok;
	u32 id, n = 0;
	int ret = 0;

	bitmap_zero(rings, GRTRACE_MAX_RINGS);
	if (deny)
		val++;
	if (!*val || (!deny && !strcmp(val, "all")))
		goto out;
	copy = kstrdup(val, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((tok = strsep(&cur, ","))) {
		tok = strim(tok);
		if (kstrtou32(tok, 0, &id) || id >= GRTRACE_MAX_RINGS) {
			ret = -EINVAL;
			break;
		}
		n += !__test_and_set_bit(id, rings);
	}
	kfree(copy);
	if (ret)
		return ret;
out:
	if (deny && !n)
		return -EINVAL;
	bitmap_copy(g->watch_rings, rings, GRTRACE_MAX_RINGS);
	g->nr_watch_rings = n;
	g->ring_deny = deny;
	return 0;
}

static void show_watchlist(struct seq_file *m, const struct grtrace_gov *g)
{
	if (!g->nr_watch_rings) {
		seq_puts(m, "all");
		return;
	}
	seq_printf(m, "%s%*pbl", g->ring_deny ? "!" : "", GRTRACE_MAX_RINGS,
		   g->watch_rings);
}

static int set_watch_allow(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_bool(val, &g->watch_allow);
}

static void show_watch_allow(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%d", g->watch_allow);
}

static int set_watch_ctx_add(struct grtrace_gov *g, const char *val)
{
	u64 ctx;

	if (kstrtou64(val, 0, &ctx))
		return -EINVAL;
	if (grtrace_ctx_listed(g, ctx))
		return 0;
	if (g->nr_watch_ctx == GRTRACE_WATCH_CTX)
		return -ENOSPC;
	g->watch_ctx[g->nr_watch_ctx++] = ctx;
	return 0;
}

static int set_watch_ctx_clear(struct grtrace_gov *g, const char *val)
{
	bool b;

	if (grtrace_parse_bool(val, &b) || !b)
		return -EINVAL;
	g->nr_watch_ctx = 0;
	return 0;
}

static void show_watch_count(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->nr_watch_ctx);
}

static void show_watch_ring_count(struct seq_file *m,
				  const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->nr_watch_rings);
}

static void show_zero(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_putc(m, '0');
}

static int set_filter_enabled(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_bool(val, &g->filter_enabled);
}

static void show_filter_enabled(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%d", g->filter_enabled);
}

/* "1234,5678", or "" to clear. */
static int set_filter_pid(struct grtrace_gov *g, const char *val)
{
	u32 pids[GRTRACE_FILTER_PIDS];
	char *copy, *cur, *tok;
	int ret = 0;
	u32 n = 0;

	if (*val && strcmp(val, "none")) {
		copy = kstrdup(val, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		cur = copy;
		while ((tok = strsep(&cur, ","))) {
			tok = strim(tok);
			if (n == GRTRACE_FILTER_PIDS ||
			    kstrtou32(tok, 0, &pids[n]) || !pids[n] ||
			    pids[n] > PID_MAX_LIMIT) {
				ret = -EINVAL;
				break;
			}
			n++;
		}
		kfree(copy);
		if (ret)
			return ret;
	}
	memcpy(g->pids, pids, n * sizeof(pids[0]));
	g->nr_pids = n;
	return 0;
}

static void show_filter_pid(struct seq_file *m, const struct grtrace_gov *g)
{
	u32 i;

	for (i = 0; i < g->nr_pids; i++)
		seq_printf(m, "%s%u", i ? "," : "", g->pids[i]);
	if (!g->nr_pids)
		seq_puts(m, "none");
}

/* A uid, or -1 / "any" for no uid filter. */
static int set_filter_uid(struct grtrace_gov *g, const char *val)
{
	u32 uid;

	if (!strcmp(val, "-1") || !strcmp(val, "any")) {
		g->uid = -1;
		return 0;
	}
	if (kstrtou32(val, 0, &uid) || uid == (u32)-1)
		return -EINVAL;
	g->uid = uid;
	return 0;
}

static void show_filter_uid(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%lld", g->uid);
}

static int set_filter_latency(struct grtrace_gov *g, const char *val)
{
	u64 us;

	if (kstrtou64(val, 0, &us) || us > U64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	g->min_latency = us * NSEC_PER_USEC;
	return 0;
}

static void show_filter_latency(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%llu", div_u64(g->min_latency, NSEC_PER_USEC));
}

static int set_filter_events(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_mask(val, BIT(GRTRACE_EV_NR) - 1, &g->filter_events);
}

static void show_filter_events(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "0x%x", g->filter_events);
}

static int set_aggr_enabled(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_bool(val, &g->aggr_enabled);
}

static void show_aggr_enabled(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%d", g->aggr_enabled);
}

static int set_aggr_window(struct grtrace_gov *g, const char *val)
{
	return grtrace_parse_u32(val, 100, 60000, &g->aggr_window);
}

static void show_aggr_window(struct seq_file *m, const struct grtrace_gov *g)
{
	seq_printf(m, "%u", g->aggr_window);
}

enum {
	GRTRACE_KEY_CORE,
	GRTRACE_KEY_SAMPLING,
	GRTRACE_KEY_FILTER,
	GRTRACE_KEY_AGGREGATOR,
};

/* GRTRACE_KF_* flags of struct grtrace_key */
#define GRTRACE_KF_FILE		BIT(0)	/* also a debugfs file of its name */
#define GRTRACE_KF_ALIAS	BIT(1)	/* another name; not shown in config */

/**
 * struct grtrace_key - a governance setting
 * @name: its name in config, and of its debugfs file if it has one
 * @set: parse a value into a copy of the settings; NULL if read-only
 * @show: print its value
 * @part: GRTRACE_KEY_*: the Kconfig option it belongs to
 * @flags: GRTRACE_KF_*
 */
struct grtrace_key {
	const char *name;
	int (*set)(struct grtrace_gov *g, const char *val);
	void (*show)(struct seq_file *m, const struct grtrace_gov *g);
	u8 part;
	u8 flags;
};

#define KEY(n, s, p, f)	{ #n, set_##s, show_##s, GRTRACE_KEY_##p, f }
static const struct grtrace_key grtrace_keys[] = {
	KEY(sample, srate, SAMPLING, 0),
	KEY(sampling, srate, SAMPLING, GRTRACE_KF_FILE | GRTRACE_KF_ALIAS),
	KEY(sampling_rate, srate, SAMPLING, GRTRACE_KF_FILE | GRTRACE_KF_ALIAS),
	KEY(sampling_mode, smode, SAMPLING, GRTRACE_KF_FILE),
	KEY(sampling_threshold, sthreshold, SAMPLING, GRTRACE_KF_FILE),
	KEY(adaptive_sampling, adaptive, SAMPLING, 0),
	KEY(backpressure_threshold, backpressure, SAMPLING, 0),
	KEY(max_events_per_sec, max_eps, CORE, 0),
	KEY(rate_limit, max_eps, CORE, GRTRACE_KF_FILE | GRTRACE_KF_ALIAS),
	KEY(rate_limiter_mode, rl_mode, CORE, 0),
	KEY(rate_limit_mode, rl_mode, CORE, GRTRACE_KF_FILE | GRTRACE_KF_ALIAS),
	KEY(rate_limit_burst, rl_burst, CORE, GRTRACE_KF_FILE),
	KEY(watchlist, watchlist, CORE, GRTRACE_KF_FILE),
	KEY(watch_allow_mode, watch_allow, CORE, 0),
	{ "watch_ctx_add", set_watch_ctx_add, show_zero, GRTRACE_KEY_CORE },
	{ "watch_ctx_clear", set_watch_ctx_clear, show_zero, GRTRACE_KEY_CORE },
	{ "watch_count", NULL, show_watch_count, GRTRACE_KEY_CORE },
	{ "watch_ring_count", NULL, show_watch_ring_count, GRTRACE_KEY_CORE },
	KEY(filter_enabled, filter_enabled, FILTER, GRTRACE_KF_FILE),
	KEY(filter_pid, filter_pid, FILTER, GRTRACE_KF_FILE),
	KEY(filter_uid, filter_uid, FILTER, GRTRACE_KF_FILE),
	KEY(filter_latency, filter_latency, FILTER, GRTRACE_KF_FILE),
	KEY(filter_events, filter_events, FILTER, GRTRACE_KF_FILE),
	KEY(aggregator_enable, aggr_enabled, AGGREGATOR, GRTRACE_KF_FILE),
	KEY(aggregator_window, aggr_window, AGGREGATOR, GRTRACE_KF_FILE),
};

#undef KEY

static bool grtrace_key_built(const struct grtrace_key *k)
{
	switch (k->part) {
	case GRTRACE_KEY_SAMPLING:
		return IS_ENABLED(CONFIG_GRTRACE_SAMPLING);
	case GRTRACE_KEY_FILTER:
		return IS_ENABLED(CONFIG_GRTRACE_FILTER);
	case GRTRACE_KEY_AGGREGATOR:
		return IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR);
	}
	return true;
}

/**
 * grtrace_govern_key - apply one governance setting to a copy
 * @cfg: from grtrace_govern_cfg_dup()
 * @key: its name
 * @val: its value, trimmed
 *
 * Returns: 0, -EINVAL for an unknown or read-only key or a bad value,
 * -ENOSPC when a list is full, -ENOMEM.
 */
int grtrace_govern_key(void *cfg, const char *key, const char *val)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++) {
		const struct grtrace_key *k = &grtrace_keys[i];

		if (strcmp(k->name, key) || !grtrace_key_built(k))
			continue;
		return k->set ? k->set(cfg, val) : -EINVAL;
	}
	return -EINVAL;
}

void *grtrace_govern_cfg_dup(void)
{
	return kmemdup(rcu_dereference_protected(grtrace_gov, true),
		       sizeof(struct grtrace_gov), GFP_KERNEL);
}

/**
 * grtrace_govern_cfg_commit - publish new settings
 * @cfg: from grtrace_govern_cfg_dup(), changed by grtrace_govern_key();
 *	always consumed
 *
 * Context: grtrace_lock held.
 * Returns: 0, or -ENOMEM if the job table they need could not be allocated
 * (nothing changed).
 */
int grtrace_govern_cfg_commit(void *cfg)
{
	struct grtrace_gov *g = cfg, *old;

	g->hold = g->smode == GRTRACE_SMODE_THRESHOLD ||
		  (g->filter_enabled && g->min_latency);
	g->track = g->hold || g->aggr_enabled ||
		   (g->filter_enabled && (g->nr_pids || g->uid >= 0));
	g->active = g->track || g->max_eps || g->nr_watch_ctx ||
		    g->nr_watch_rings || g->srate < 100 ||
		    g->smode != GRTRACE_SMODE_STATIC || g->filter_enabled;

	if (g->track && !grtrace_jobs) {
		struct grtrace_jobs *jt = vzalloc(sizeof(*jt));

		grtrace_scratch = alloc_percpu(struct grtrace_scratch);
		if (!jt || !grtrace_scratch) {
			free_percpu(grtrace_scratch);
			grtrace_scratch = NULL;
			vfree(jt);
			kfree(g);
			return -ENOMEM;
		}
		raw_spin_lock_init(&jt->lock);
		/* Published before the settings that use it, below. */
		WRITE_ONCE(grtrace_jobs, jt);
		grtrace_jobs_clear();
		grtrace_aggr_clear(ktime_get_mono_fast_ns());
	}

	old = rcu_replace_pointer(grtrace_gov, g, true);
	if (grtrace_jobs && g->aggr_enabled && !old->aggr_enabled) {
		raw_spin_lock_irq(&grtrace_jobs->lock);
		grtrace_aggr_clear(ktime_get_mono_fast_ns());
		raw_spin_unlock_irq(&grtrace_jobs->lock);
	}
	raw_spin_lock_irq(&grtrace_rl.lock);
	grtrace_rl.win_end = 0;
	grtrace_rl.count = 0;
	grtrace_rl.last = 0;
	raw_spin_unlock_irq(&grtrace_rl.lock);
	kfree_rcu(old, rcu);
	return 0;
}

/* Print the settings in config; grtrace_lock held. */
void grtrace_govern_cfg_show(struct seq_file *m)
{
	const struct grtrace_gov *g = rcu_dereference_protected(grtrace_gov,
								true);
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++) {
		const struct grtrace_key *k = &grtrace_keys[i];

		if ((k->flags & GRTRACE_KF_ALIAS) || !grtrace_key_built(k))
			continue;
		seq_printf(m, "%s=", k->name);
		k->show(m, g);
		seq_putc(m, '\n');
	}
}

/* ---- debugfs and procfs ---- */

static int grtrace_key_show(struct seq_file *m, void *v)
{
	const struct grtrace_key *k = m->private;

	rcu_read_lock();
	k->show(m, rcu_dereference(grtrace_gov));
	rcu_read_unlock();
	seq_putc(m, '\n');
	return 0;
}

static int grtrace_key_open(struct inode *inode, struct file *file)
{
	return single_open(file, grtrace_key_show, inode->i_private);
}

static ssize_t grtrace_key_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	const struct grtrace_key *k =
		((struct seq_file *)file->private_data)->private;
	char *buf, *line;
	int ret;

	if (!count || count > PAGE_SIZE)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	line = kasprintf(GFP_KERNEL, "%s=%s", k->name, strim(buf));
	kfree(buf);
	if (!line)
		return -ENOMEM;
	ret = strchr(line, '\n') ? -EINVAL : grtrace_config_write(line);
	kfree(line);
	return ret ? ret : count;
}

static const struct file_operations grtrace_key_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_key_open,
	.read		= seq_read,
	.write		= grtrace_key_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int grtrace_sampling_stats_show(struct seq_file *m, void *v)
{
	const struct grtrace_gov *g;
	struct grtrace_totals t;
	u64 kept = 0;
	int cpu;

	grtrace_get_totals(&t);
	for_each_possible_cpu(cpu)
		kept += per_cpu(grtrace_gcpu, cpu).sampling_kept;
	rcu_read_lock();
	g = rcu_dereference(grtrace_gov);
	seq_printf(m, "mode=%s\n", grtrace_smode_names[g->smode]);
	seq_printf(m, "rate=%u\n", g->srate);
	seq_printf(m, "threshold_ns=%llu\n", g->sthreshold);
	seq_printf(m, "backpressure_threshold=%u\n", g->backpressure);
	rcu_read_unlock();
	seq_printf(m, "kept=%llu\n", kept);
	seq_printf(m, "sampled=%llu\n", t.dropped[GRTRACE_DROP_SAMPLED]);
	seq_printf(m, "backpressure=%llu\n",
		   t.dropped[GRTRACE_DROP_BACKPRESSURE]);
	seq_printf(m, "held=%llu\n", grtrace_govern_held());
	for_each_online_cpu(cpu) {
		seq_printf(m, "cpu%d_fill=%u\n", cpu,
			   READ_ONCE(per_cpu(grtrace_gcpu, cpu).fill));
		seq_printf(m, "cpu%d_rate=%u\n", cpu,
			   READ_ONCE(per_cpu(grtrace_gcpu, cpu).eff_rate));
	}
	return 0;
}

static int grtrace_filter_stats_show(struct seq_file *m, void *v)
{
	u64 filt[GRTRACE_FILT_NR] = {}, passed = 0;
	struct grtrace_totals t;
	int cpu, i;

	grtrace_get_totals(&t);
	for_each_possible_cpu(cpu) {
		const struct grtrace_gcpu *gc = per_cpu_ptr(&grtrace_gcpu, cpu);

		for (i = 0; i < GRTRACE_FILT_NR; i++)
			filt[i] += READ_ONCE(gc->filt[i]);
		passed += READ_ONCE(gc->filter_passed);
	}
	rcu_read_lock();
	seq_printf(m, "enabled=%d\n", rcu_dereference(grtrace_gov)->filter_enabled);
	rcu_read_unlock();
	seq_printf(m, "passed=%llu\n", passed);
	seq_printf(m, "filtered=%llu\n", t.dropped[GRTRACE_DROP_FILTERED]);
	for (i = 0; i < GRTRACE_FILT_NR; i++)
		seq_printf(m, "filtered_%s=%llu\n", grtrace_filt_names[i],
			   filt[i]);
	return 0;
}

static void grtrace_aggr_show_ring(struct seq_file *m, int ring,
				   const char *scope,
				   const struct grtrace_aggr_ring *a)
{
	u64 davg = a->depth_n ? div64_u64(a->depth_sum * 100, a->depth_n) : 0;

	seq_printf(m, "%d %s %llu %llu %llu %llu %llu %llu %llu.%02llu %llu %llu\n",
		   ring, scope, a->events, a->jobs, a->lat_sum,
		   a->jobs ? div64_u64(a->lat_sum, a->jobs) : 0, a->lat_min,
		   a->lat_max, div_u64(davg, 100), davg % 100, a->depth_peak,
		   a->busy);
}

static int grtrace_aggregator_stats_show(struct seq_file *m, void *v)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_aggr_ring *total, *last;
	u64 windows = 0;
	int i;

	rcu_read_lock();
	seq_printf(m, "enabled=%d\n", rcu_dereference(grtrace_gov)->aggr_enabled);
	seq_printf(m, "window_ms=%u\n", rcu_dereference(grtrace_gov)->aggr_window);
	rcu_read_unlock();
	total = kvmalloc_array(2 * GRTRACE_MAX_RINGS, sizeof(*total),
			       GFP_KERNEL);
	if (!total)
		return -ENOMEM;
	last = total + GRTRACE_MAX_RINGS;
	memset(total, 0, 2 * GRTRACE_MAX_RINGS * sizeof(*total));
	if (jt) {
		raw_spin_lock_irq(&jt->lock);
		memcpy(total, jt->total, sizeof(jt->total));
		memcpy(last, jt->last, sizeof(jt->last));
		windows = jt->windows;
		raw_spin_unlock_irq(&jt->lock);
	}
	seq_printf(m, "windows=%llu\n", windows);
	seq_puts(m, "# ring scope events jobs lat_sum_ns lat_avg_ns lat_min_ns lat_max_ns depth_avg depth_peak busy_ns\n");
	for (i = 0; i < GRTRACE_MAX_RINGS; i++) {
		if (total[i].events)
			grtrace_aggr_show_ring(m, i, "total", &total[i]);
		if (last[i].events)
			grtrace_aggr_show_ring(m, i, "last", &last[i]);
	}
	kvfree(total);
	return 0;
}

/* A line in stats: the aggregator's state. */
void grtrace_govern_stats_show(struct seq_file *m)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);

	if (!IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR))
		return;
	rcu_read_lock();
	seq_printf(m, "aggregator_enabled=%d\n",
		   rcu_dereference(grtrace_gov)->aggr_enabled);
	rcu_read_unlock();
	seq_printf(m, "aggregator_windows=%llu\n", jt ? READ_ONCE(jt->windows) : 0);
	seq_printf(m, "jobs_tracked=%u\n", jt ? READ_ONCE(jt->nr_used) : 0);
}

static int grtrace_proc_stats_show(struct seq_file *m, void *v)
{
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_aggr_ring *total = NULL;
	u64 span = 0;
	int cpu, i;
	bool aggr;

	rcu_read_lock();
	aggr = rcu_dereference(grtrace_gov)->aggr_enabled;
	rcu_read_unlock();
	if (jt && aggr) {
		total = kvmalloc_array(GRTRACE_MAX_RINGS, sizeof(*total),
				       GFP_KERNEL);
		if (!total)
			return -ENOMEM;
		raw_spin_lock_irq(&jt->lock);
		memcpy(total, jt->total, sizeof(jt->total));
		span = ktime_get_mono_fast_ns() - jt->aggr_start;
		raw_spin_unlock_irq(&jt->lock);
	}

	seq_puts(m, "# ring_id utilization% drop_rate% avg_latency_us offered written dropped\n");
	for (i = 0; i < GRTRACE_MAX_RINGS; i++) {
		u64 off = 0, wr = 0, drop, x;

		for_each_possible_cpu(cpu) {
			const struct grtrace_ring_count *rc =
				&per_cpu_ptr(grtrace_ring_counts, cpu)->r[i];

			off += READ_ONCE(rc->offered);
			wr += READ_ONCE(rc->written);
		}
		if (!off && !wr)
			continue;
		drop = off > wr ? off - wr : 0;
		seq_printf(m, "%d ", i);
		if (total && span) {
			x = div64_u64(min(total[i].busy, span) * 10000, span);
			seq_printf(m, "%llu.%02llu ", div_u64(x, 100), x % 100);
		} else {
			seq_puts(m, "- ");
		}
		x = off ? div64_u64(drop * 10000, off) : 0;
		seq_printf(m, "%llu.%02llu ", div_u64(x, 100), x % 100);
		if (total && total[i].jobs) {
			x = div64_u64(total[i].lat_sum, total[i].jobs);
			seq_printf(m, "%llu.%03llu ", div_u64(x, 1000), x % 1000);
		} else {
			seq_puts(m, "- ");
		}
		seq_printf(m, "%llu %llu %llu\n", off, wr, drop);
	}
	kvfree(total);
	return 0;
}

GRTRACE_FILE(sampling_stats, NULL);
GRTRACE_FILE(filter_stats, NULL);
GRTRACE_FILE(aggregator_stats, NULL);

/**
 * grtrace_govern_init - create the governance files
 * @dir: the grtrace debugfs directory
 *
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_init(struct dentry *dir)
{
	struct grtrace_gov *g;
	int i;

	g = kmemdup(&grtrace_gov_defaults, sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	RCU_INIT_POINTER(grtrace_gov, g);

	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON)) {
		grtrace_ring_counts = alloc_percpu(struct grtrace_ring_counts);
		if (!grtrace_ring_counts ||
		    !proc_create_single("grtrace_stats", 0400, NULL,
					grtrace_proc_stats_show)) {
			free_percpu(grtrace_ring_counts);
			grtrace_ring_counts = NULL;
			kfree(g);
			return -ENOMEM;
		}
	}

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++) {
		const struct grtrace_key *k = &grtrace_keys[i];

		if ((k->flags & GRTRACE_KF_FILE) && grtrace_key_built(k))
			debugfs_create_file(k->name, 0600, dir, (void *)k,
					    &grtrace_key_fops);
	}
	if (IS_ENABLED(CONFIG_GRTRACE_SAMPLING))
		debugfs_create_file("sampling_stats", 0400, dir, NULL,
				    &grtrace_sampling_stats_fops);
	if (IS_ENABLED(CONFIG_GRTRACE_FILTER))
		debugfs_create_file("filter_stats", 0400, dir, NULL,
				    &grtrace_filter_stats_fops);
	if (IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR))
		debugfs_create_file("aggregator_stats", 0400, dir, NULL,
				    &grtrace_aggregator_stats_fops);
	return 0;
}

void grtrace_govern_exit(void)
{
	if (grtrace_ring_counts) {
		remove_proc_entry("grtrace_stats", NULL);
		free_percpu(grtrace_ring_counts);
	}
	kfree(rcu_dereference_protected(grtrace_gov, true));
	vfree(grtrace_jobs);
	free_percpu(grtrace_scratch);
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

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
#include <linux/irq_work.h>
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
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

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
 * 2. The watchlist: rings (``watchlist``: ``0000:03:00.0/gfx_0.0.0``
 *    keeps only the rings of that device and name, as the ``rings`` file
 *    lists them, ``!0000:03:00.0/sdma0`` all but that one; the test rings
 *    of ``emit``, which have fixed ids, by id too: ``1,2``) and submitting
 *    contexts (``watch_ctx_add``, ``watch_allow_mode``) (``filtered``).
 *    A driver's ring is named, not numbered: its id lasts only until
 *    tracing stops, and would select another ring after.
 * 3. With ``filter_enabled``: ``filter_events`` (a type mask),
 *    ``filter_pid`` and ``filter_uid``, which keep the jobs submitted by
 *    those processes or that user, all their events (``filtered``).
 * 4. Sampling, by job: all events of a sampled job are kept.  ``static``
 *    keeps ``sample`` percent of the jobs (exactly that share of
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
 * under its cause.  When the shard of the table a job falls in is full,
 * the shard's job seen first is forgotten (``jobs_evicted`` in ``stats``)
 * and its held events are dropped as ``untracked``; a later event of it is
 * judged as one of a job never seen.  So for a stopped session,
 * ``written`` plus all drops equals ``offered``, exactly.
 *
 * The aggregator counts per CPU, in a table of %GRTRACE_CPU_SLOTS rings
 * under that CPU's lock, which only the collection takes from elsewhere;
 * the job table it needs is split by the hash of a job into
 * %GRTRACE_JOB_SHARDS shards, each under a lock of its own.  A work item
 * collects the CPUs' tables at the end of each window
 * (``aggregator_window``), in process context.  A CPU that meets more
 * rings than its table holds within a window hands the table to the
 * collection, which it kicks, and counts in a spare; what it has no room
 * for while both are full is not counted (``aggregator_full`` in
 * ``stats``).
 *
 * Under ``aggregate_only``, the collection writes the SUMMARY records of
 * each window that ends, and of a ring whose slot in the sums another
 * ring takes: in process context, never in a probe.  The events a CPU had
 * no room for are dropped as ``untracked``.
 *
 * The ftrace side of the tracepoints is not governed: ftrace has its own
 * filters and triggers.
 */

#define GRTRACE_JOBS		1024
#define GRTRACE_JOB_SHARDS	16
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

/* A ring's drops go to its SUMMARY records by cause: the uapi's indices. */
static_assert(GRTRACE_DROP_NR <= GRTRACE_SUMMARY_DROPS);
static_assert((int)GRTRACE_DROP_FILTERED == GRTRACE_SUMMARY_DROP_FILTERED);
static_assert((int)GRTRACE_DROP_OVERRUN == GRTRACE_SUMMARY_DROP_OVERRUN);
static_assert((int)GRTRACE_DROP_SAMPLED == GRTRACE_SUMMARY_DROP_SAMPLED);
static_assert((int)GRTRACE_DROP_BACKPRESSURE == GRTRACE_SUMMARY_DROP_BACKPRESSURE);
static_assert((int)GRTRACE_DROP_RATE_LIMITED == GRTRACE_SUMMARY_DROP_RATE_LIMITED);
static_assert((int)GRTRACE_DROP_UNTRACKED == GRTRACE_SUMMARY_DROP_UNTRACKED);
static_assert((int)GRTRACE_DROP_AGGREGATED == GRTRACE_SUMMARY_DROP_AGGREGATED);
static_assert((int)GRTRACE_DROP_FROZEN == GRTRACE_SUMMARY_DROP_FROZEN);

/* Entries of a shard of the job table; a power of two. */
#define GRTRACE_SHARD_JOBS	(GRTRACE_JOBS / GRTRACE_JOB_SHARDS)

/**
 * struct grtrace_job_shard - the jobs whose hash falls in one shard
 * @lock: protects everything here; taken by the probe, in any context
 * @hash: chains of jobs in use
 * @free: unused entries
 * @lru: entries in use, oldest first
 * @nr_used: entries in use
 * @held: events held in all entries
 * @ent: the entries
 */
struct grtrace_job_shard {
	raw_spinlock_t lock;
	struct hlist_head hash[GRTRACE_SHARD_JOBS];
	struct hlist_head free;
	struct list_head lru;
	u32 nr_used;
	u32 held;
	struct grtrace_job_entry ent[GRTRACE_SHARD_JOBS];
} ____cacheline_aligned_in_smp;

/**
 * struct grtrace_jobs - the job table
 * @shard: its shards; a job's SUBMIT and COMPLETE, reported on different
 *	CPUs, meet in the shard of its fence context and seqno
 *
 * Allocated the first time a setting needs it, freed at module exit.
 */
struct grtrace_jobs {
	struct grtrace_job_shard shard[GRTRACE_JOB_SHARDS];
};

static struct grtrace_jobs *grtrace_jobs;

/*
 * Rings a CPU counts between two collections, and the slots a ring may
 * take, from its id on (see grtrace_aggr_cpu_slot()).
 */
#define GRTRACE_CPU_SLOTS	64
#define GRTRACE_AGGR_PROBES	16

/**
 * struct grtrace_aggr_tab - aggregates of the rings one CPU saw
 * @key: per slot, the id of the ring it holds plus one, 0 if free
 * @a: per slot, what it counted since the table was last collected
 * @ring_info: per slot, its ring's description, for the SUMMARY records
 */
struct grtrace_aggr_tab {
	u32 key[GRTRACE_CPU_SLOTS];
	struct grtrace_aggregate a[GRTRACE_CPU_SLOTS];
	struct grtrace_ring_info ring_info[GRTRACE_CPU_SLOTS];
};

/**
 * struct grtrace_aggr_cpu - one CPU's aggregates
 * @lock: taken by this CPU's probe, and by the collection, which swaps
 *	the tables: no other CPU's probe takes it
 * @cur: where the probe counts
 * @spare: an empty table; NULL while it is being collected
 * @full: @cur when it had no slot left for a ring, for the collection
 *
 * Two tables, so that the collection swaps them under @lock and adds one
 * up without it.
 */
struct grtrace_aggr_cpu {
	raw_spinlock_t lock;
	struct grtrace_aggr_tab *cur;
	struct grtrace_aggr_tab *spare;
	struct grtrace_aggr_tab *full;
};

static DEFINE_PER_CPU(struct grtrace_aggr_cpu, grtrace_aggr_cpu);

/**
 * struct grtrace_aggr - the aggregates of all CPUs, added up
 * @aggr_start: when the aggregator was (re)started
 * @win_start: the start of the window now counted
 * @win_end: when the collection closes it
 * @windows: windows completed
 * @evicted: rings whose slot another ring took, since @aggr_start
 * @slot_id: per slot, the ring it holds: the ring whose id modulo
 *	%GRTRACE_RING_SLOTS it is, taken from the ring there before
 * @total: per slot, since @aggr_start
 * @cur: per slot, the window now counted, as collected so far
 * @last: per slot, the last complete window
 * @ring_info: per slot, its ring's description for the SUMMARY records
 *
 * Allocated with the job table, under grtrace_aggr_lock.
 */
struct grtrace_aggr {
	u64 aggr_start;
	u64 win_start;
	u64 win_end;
	u64 windows;
	u64 evicted;
	u32 slot_id[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate total[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate cur[GRTRACE_RING_SLOTS];
	struct grtrace_aggregate last[GRTRACE_RING_SLOTS];
	struct grtrace_ring_info ring_info[GRTRACE_RING_SLOTS];
};

/*
 * grtrace_aggr_lock protects *grtrace_aggr and the collection of the CPUs'
 * tables; nested in grtrace_govern_lock.  grtrace_aggr_work collects them
 * at each window's end, and when grtrace_aggr_kick tells it that a CPU
 * filled its table; neither takes grtrace_govern_lock.
 */
static DEFINE_MUTEX(grtrace_aggr_lock);
static struct grtrace_aggr *grtrace_aggr;
static void grtrace_aggr_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(grtrace_aggr_work, grtrace_aggr_work_fn);
static void grtrace_aggr_kick_fn(struct irq_work *work);
static DEFINE_IRQ_WORK(grtrace_aggr_kick, grtrace_aggr_kick_fn);

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
	u64 aggr_full;		/* events this CPU's aggregates had no room for */
};

static DEFINE_PER_CPU(struct grtrace_govern_cpu, grtrace_govern_cpu);

struct grtrace_ring_count {
	u32 id;
	u64 offered;
	u64 written;
};

struct grtrace_ring_counts {
	struct grtrace_ring_count r[GRTRACE_RING_SLOTS];
	u64 lost_offered;	/* counts moved out of slots another ring took */
	u64 lost_written;
};

/*
 * Per CPU, per ring slot: for /proc/grtrace_stats.  A ring takes the slot of
 * its id modulo GRTRACE_RING_SLOTS, from the ring there before it, whose
 * counts go to lost_offered and lost_written.
 */
static struct grtrace_ring_counts __percpu *grtrace_ring_counts;

static inline bool grtrace_jobless(const struct grtrace_job_payload *job)
{
	return !job->fence_context && !job->fence_seqno;
}

/* This CPU's counts of ring @id, taken over from the ring there before. */
static struct grtrace_ring_count *grtrace_ring_count(u32 id)
{
	struct grtrace_ring_counts *rcs = this_cpu_ptr(grtrace_ring_counts);
	struct grtrace_ring_count *rc = &rcs->r[id % GRTRACE_RING_SLOTS];

	if (unlikely(rc->id != id)) {
		WRITE_ONCE(rcs->lost_offered, rcs->lost_offered + rc->offered);
		WRITE_ONCE(rcs->lost_written, rcs->lost_written + rc->written);
		rc->id = id;
		rc->offered = 0;
		rc->written = 0;
	}
	return rc;
}

/* Whether the ring watchlist of @g lists the ring of @ev. */
static bool grtrace_ring_listed(const struct grtrace_govern_settings *g,
				const struct grtrace_event *ev)
{
	const struct grtrace_ring_name *w;
	u32 i;

	for (i = 0; i < g->nr_watch_rings; i++)
		if (g->watch_rings[i] == ev->job.ring_id)
			return true;
	for (i = 0; i < g->nr_watch_names; i++) {
		w = &g->watch_names[i];
		if (ev->ring && !strcmp(ev->ring->dev, w->dev) &&
		    !strcmp(ev->ring->name, w->name))
			return true;
	}
	return false;
}

/* ---- job table: each shard under its lock ---- */

static u64 grtrace_job_hash(u64 ctx, u64 seqno)
{
	return hash_64(ctx ^ (seqno * GOLDEN_RATIO_64), 64);
}

/* The shard of job @ctx:@seqno: the high bits of its hash. */
static struct grtrace_job_shard *grtrace_job_shard(struct grtrace_jobs *jt,
						   u64 ctx, u64 seqno)
{
	return &jt->shard[grtrace_job_hash(ctx, seqno) >> (64 - ilog2(GRTRACE_JOB_SHARDS))];
}

static struct grtrace_job_entry *grtrace_job_find(struct grtrace_job_shard *sh,
						  u64 ctx, u64 seqno)
{
	struct grtrace_job_entry *e;

	lockdep_assert_held(&sh->lock);
	hlist_for_each_entry(e, &sh->hash[grtrace_job_hash(ctx, seqno) %
					  GRTRACE_SHARD_JOBS], node)
		if (e->ctx == ctx && e->seqno == seqno)
			return e;
	return NULL;
}

static void grtrace_job_put(struct grtrace_job_shard *sh,
			    struct grtrace_job_entry *e)
{
	sh->held -= e->nheld;
	e->nheld = 0;
	hlist_del(&e->node);
	list_del(&e->lru);
	hlist_add_head(&e->node, &sh->free);
	sh->nr_used--;
}

static struct grtrace_job_entry *grtrace_job_get(struct grtrace_job_shard *sh,
						 const struct grtrace_event *ev,
						 u64 ts)
{
	const struct grtrace_job_payload *job = &ev->job;
	struct grtrace_job_entry *e;

	e = grtrace_job_find(sh, job->fence_context, job->fence_seqno);
	if (e)
		return e;
	if (hlist_empty(&sh->free)) {
		/*
		 * Full: forget the shard's oldest job, most likely one whose
		 * COMPLETE never comes (its ring went away, or the driver
		 * lost it).
		 */
		e = list_first_entry(&sh->lru, struct grtrace_job_entry, lru);
		if (e->nheld)
			grtrace_stream_drop(GRTRACE_DROP_UNTRACKED, ts, e->nheld);
		grtrace_job_put(sh, e);
		this_cpu_inc(grtrace_govern_cpu.evicted);
	}
	e = hlist_entry(sh->free.first, struct grtrace_job_entry, node);
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
	hlist_add_head(&e->node, &sh->hash[grtrace_job_hash(e->ctx, e->seqno) %
					   GRTRACE_SHARD_JOBS]);
	list_add_tail(&e->lru, &sh->lru);
	sh->nr_used++;
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
	struct grtrace_job_shard *sh;
	struct grtrace_job_entry *e;

	if (!jt)
		return;
	sh = grtrace_job_shard(jt, job->fence_context, job->fence_seqno);
	raw_spin_lock(&sh->lock);
	e = grtrace_job_find(sh, job->fence_context, job->fence_seqno);
	if (e) {
		if (e->nheld)
			grtrace_stream_drop(cause, ts, e->nheld);
		grtrace_job_put(sh, e);
	}
	raw_spin_unlock(&sh->lock);
}

/* Empty the job table.  No probe uses it meanwhile. */
static void grtrace_jobs_clear(void)
{
	struct grtrace_job_shard *sh;
	int i, j;

	for (i = 0; i < GRTRACE_JOB_SHARDS; i++) {
		sh = &grtrace_jobs->shard[i];
		raw_spin_lock_irq(&sh->lock);
		INIT_HLIST_HEAD(&sh->free);
		INIT_LIST_HEAD(&sh->lru);
		for (j = 0; j < GRTRACE_SHARD_JOBS; j++) {
			INIT_HLIST_HEAD(&sh->hash[j]);
			hlist_add_head(&sh->ent[j].node, &sh->free);
		}
		sh->nr_used = 0;
		sh->held = 0;
		raw_spin_unlock_irq(&sh->lock);
	}
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
	struct grtrace_job_shard *sh;
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

	sh = grtrace_job_shard(jt, ev->job.fence_context, ev->job.fence_seqno);
	raw_spin_lock(&sh->lock);
	if (ev->type == GRTRACE_EV_SUBMIT) {
		e = grtrace_job_get(sh, ev, ts);
		e->flags |= GRTRACE_JOB_PASS;
	} else {
		e = grtrace_job_find(sh, ev->job.fence_context,
				     ev->job.fence_seqno);
		if (!e || !(e->flags & GRTRACE_JOB_PASS))
			ret = GRTRACE_DROP_FILTERED;
	}
	raw_spin_unlock(&sh->lock);
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
	struct grtrace_job_shard *sh;
	struct grtrace_job_entry *e;

	if (!jt)
		return drop;
	sh = grtrace_job_shard(jt, ev->job.fence_context, ev->job.fence_seqno);
	raw_spin_lock(&sh->lock);
	e = grtrace_job_get(sh, ev, ts);
	if (e->flags & GRTRACE_JOB_DECIDED)
		drop = e->flags & GRTRACE_JOB_DROPPED ?
		       GRTRACE_DROP_BACKPRESSURE : -1;
	else
		e->flags |= GRTRACE_JOB_DECIDED |
			    (drop >= 0 ? GRTRACE_JOB_DROPPED : 0);
	raw_spin_unlock(&sh->lock);
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
static u32 grtrace_take_held(struct grtrace_job_shard *sh,
			     struct grtrace_job_entry *e)
{
	struct grtrace_scratch *sc = this_cpu_ptr(grtrace_scratch);
	u32 n = e->nheld;

	memcpy(sc->held, e->held, n * sizeof(sc->held[0]));
	memcpy(&sc->ring_info, &e->ring_info, sizeof(sc->ring_info));
	grtrace_job_put(sh, e);
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
	struct grtrace_job_shard *sh;
	struct grtrace_job_entry *e;
	int ret = GRTRACE_HELD;
	u64 took = 0;
	u32 n = 0;

	if (!jt)
		return GRTRACE_DROP_UNTRACKED;
	sh = grtrace_job_shard(jt, ev->job.fence_context, ev->job.fence_seqno);
	raw_spin_lock(&sh->lock);
	if (ev->type != GRTRACE_EV_COMPLETE) {
		e = grtrace_job_get(sh, ev, ts);
		if (e->nheld == GRTRACE_JOB_HELD) {
			ret = GRTRACE_DROP_UNTRACKED;
		} else {
			e->held[e->nheld].ts = ts;
			e->held[e->nheld].type = ev->type;
			e->held[e->nheld].job = ev->job;
			e->nheld++;
			sh->held++;
		}
		raw_spin_unlock(&sh->lock);
		return ret;
	}

	e = grtrace_job_find(sh, ev->job.fence_context, ev->job.fence_seqno);
	if (e) {
		took = ts - e->first_ts;
		n = grtrace_take_held(sh, e);
	}
	raw_spin_unlock(&sh->lock);

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

	if ((g->nr_watch_rings || g->nr_watch_names) &&
	    grtrace_ring_listed(g, ev) == g->ring_deny)
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

/* Add @a to @d, which may have counted other CPUs' events of the ring. */
static void grtrace_aggregate_merge(struct grtrace_aggregate *d,
				    const struct grtrace_aggregate *a)
{
	int i;

	if (a->jobs && (!d->jobs || a->lat_min < d->lat_min))
		d->lat_min = a->lat_min;
	if (a->dev_jobs && (!d->dev_jobs || a->dev_min < d->dev_min))
		d->dev_min = a->dev_min;
	d->lat_max = max(d->lat_max, a->lat_max);
	d->dev_max = max(d->dev_max, a->dev_max);
	d->depth_peak = max(d->depth_peak, a->depth_peak);
	d->events += a->events;
	d->jobs += a->jobs;
	d->lat_sum += a->lat_sum;
	d->depth_sum += a->depth_sum;
	d->depth_n += a->depth_n;
	d->busy += a->busy;
	d->dev_jobs += a->dev_jobs;
	d->errors += a->errors;
	for (i = 0; i < GRTRACE_DROP_NR; i++)
		d->dropped[i] += a->dropped[i];
	for (i = 0; i < GRTRACE_SUMMARY_HIST; i++)
		d->lat_hist[i] += a->lat_hist[i];
}

/*
 * This CPU's aggregate of ring @id: the first of its GRTRACE_AGGR_PROBES
 * slots from @id that holds it or is free.  When none is, the table goes to
 * the collection, which is kicked, and the spare takes its place; NULL if
 * the spare is being collected.  Interrupts disabled, @c->lock held.
 */
static struct grtrace_aggregate *
grtrace_aggr_cpu_slot(struct grtrace_aggr_cpu *c, u32 id,
		      const struct grtrace_ring *ring)
{
	struct grtrace_aggr_tab *t = c->cur;
	u32 i, slot;

	for (i = 0; i < GRTRACE_AGGR_PROBES; i++) {
		slot = (id + i) % GRTRACE_CPU_SLOTS;
		if (t->key[slot] == id + 1)
			goto found;
		if (!t->key[slot])
			goto take;
	}
	if (!c->spare)
		return NULL;
	c->full = t;
	c->cur = c->spare;
	c->spare = NULL;
	irq_work_queue(&grtrace_aggr_kick);
	t = c->cur;
	slot = id % GRTRACE_CPU_SLOTS;
take:
	t->key[slot] = id + 1;
found:
	if (ring && t->ring_info[slot].ring_id != id)
		grtrace_fill_ring_info(&t->ring_info[slot], ring, id);
	return &t->a[slot];
}

/*
 * Count an event of @job's ring in this CPU's aggregates, with the job's
 * latency and time on the device, which its SUBMIT, COMMIT or START and END
 * and COMPLETE note in the job table.  Under aggregate_only, @drop, if it
 * is a cause, is counted as a drop of the ring instead, and @ring names the
 * ring for its SUMMARY records.
 * Returns: false, counted in aggregator_full, if this CPU had no room for
 * the ring.  Interrupts disabled.
 */
static bool grtrace_aggregate(u16 type, u64 ts,
			      const struct grtrace_job_payload *job,
			      const struct grtrace_ring *ring, int drop)
{
	struct grtrace_aggr_cpu *c = this_cpu_ptr(&grtrace_aggr_cpu);
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	struct grtrace_job_entry *e = NULL;
	struct grtrace_aggregate *a = NULL;
	struct grtrace_job_shard *sh;
	u64 lat = U64_MAX, busy = 0;

	if (drop < 0 && jt && !grtrace_jobless(job)) {
		sh = grtrace_job_shard(jt, job->fence_context, job->fence_seqno);
		raw_spin_lock(&sh->lock);
		e = grtrace_job_find(sh, job->fence_context, job->fence_seqno);
		switch (type) {
		case GRTRACE_EV_SUBMIT:
			if (!e) {
				struct grtrace_event ev = { .type = type, .job = *job };

				e = grtrace_job_get(sh, &ev, ts);
			}
			e->flags |= GRTRACE_JOB_SUBMITTED;
			e->submit_ts = ts;
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
				grtrace_job_put(sh, e);
			break;
		}
		raw_spin_unlock(&sh->lock);
	}

	raw_spin_lock(&c->lock);
	if (c->cur)
		a = grtrace_aggr_cpu_slot(c, job->ring_id, ring);
	if (a && drop >= 0)
		a->dropped[drop]++;
	else if (a)
		grtrace_aggregate_add(a, type, lat, busy, job);
	raw_spin_unlock(&c->lock);
	if (!a)
		this_cpu_inc(grtrace_govern_cpu.aggr_full);
	return a;
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
	if (!READ_ONCE(grtrace_jobs) || drop == GRTRACE_HELD)
		return drop;
	if (ev->type == GRTRACE_EV_ERROR)
		return drop;	/* Written, then counted by grtrace_govern_written(). */
	if (drop >= 0) {
		grtrace_aggregate(ev->type, ts, &ev->job, ev->ring, drop);
		return drop;
	}
	if (!grtrace_aggregate(ev->type, ts, &ev->job, ev->ring, -1))
		return GRTRACE_DROP_UNTRACKED;
	return GRTRACE_DROP_AGGREGATED;
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

	grtrace_aggregate(type, ts, job, NULL, -1);
}

/* ---- the aggregates, collected in process context ---- */

/*
 * Write the SUMMARY record of the ring in @slot for the window of @cur, if
 * it did anything in it, and fire grtrace_summary with it for ftrace.
 * Process context, grtrace_aggr_lock held: interrupts are off for the
 * record only.
 */
static void grtrace_summary_write(struct grtrace_aggr *ag, u32 slot,
				  u64 start, u64 ts)
{
	const struct grtrace_aggregate *a = &ag->cur[slot];
	const struct grtrace_ring_info *ring_info;
	struct grtrace_summary s;
	unsigned long flags;
	u64 dropped = 0;
	bool live;
	int d;

	lockdep_assert_held(&grtrace_aggr_lock);
	for (d = 0; d < GRTRACE_DROP_NR; d++)
		dropped += a->dropped[d];
	if (!a->events && !dropped)
		return;
	memset(&s, 0, sizeof(s));
	s.ring_id = ag->slot_id[slot];
	s.window_start = start;
	s.window_ns = ts > start ? ts - start : 0;
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
	ring_info = ag->ring_info[slot].ring_id == s.ring_id ?
		    &ag->ring_info[slot] : NULL;
	/* The stream writes on this CPU, and is there while it is live. */
	local_irq_save(flags);
	live = grtrace_stream_live();
	if (live)
		grtrace_stream_summary(&s, ring_info, ts);
	local_irq_restore(flags);
	if (live)
		trace_grtrace_summary(&s, ring_info, dropped);
}

/*
 * The slot of ring @id in the sums: its id modulo GRTRACE_RING_SLOTS,
 * taken from the ring there before if need be.  That ring's totals in
 * aggregator_stats are forgotten (counted in aggregator_evicted).  Rings
 * are numbered in the order they first report, so the ring evicted is
 * mostly one long gone.  With @summaries (aggregate_only, a session live),
 * that ring's window so far is written first, as a SUMMARY record of a
 * window that ends now: a reader adds the windows of a ring up, and every
 * event stays counted once.
 */
static u32 grtrace_aggr_slot(struct grtrace_aggr *ag, u32 id, bool summaries,
			     u64 now)
{
	u32 slot = id % GRTRACE_RING_SLOTS;

	if (likely(ag->slot_id[slot] == id))
		return slot;
	if (ag->slot_id[slot]) {
		if (summaries)
			grtrace_summary_write(ag, slot, ag->win_start, now);
		ag->evicted++;
	}
	ag->slot_id[slot] = id;
	memset(&ag->total[slot], 0, sizeof(ag->total[slot]));
	memset(&ag->cur[slot], 0, sizeof(ag->cur[slot]));
	memset(&ag->last[slot], 0, sizeof(ag->last[slot]));
	memset(&ag->ring_info[slot], 0, sizeof(ag->ring_info[slot]));
	return slot;
}

/* Add the rings of table @t to the sums, and empty it. */
static void grtrace_aggr_add_tab(struct grtrace_aggr *ag,
				 struct grtrace_aggr_tab *t, bool summaries,
				 u64 now)
{
	u32 i, id, slot;

	for (i = 0; i < GRTRACE_CPU_SLOTS; i++) {
		if (!t->key[i])
			continue;
		id = t->key[i] - 1;
		slot = grtrace_aggr_slot(ag, id, summaries, now);
		grtrace_aggregate_merge(&ag->cur[slot], &t->a[i]);
		grtrace_aggregate_merge(&ag->total[slot], &t->a[i]);
		if (ag->ring_info[slot].ring_id != id &&
		    t->ring_info[i].ring_id == id)
			ag->ring_info[slot] = t->ring_info[i];
		t->key[i] = 0;
		memset(&t->a[i], 0, sizeof(t->a[i]));
		memset(&t->ring_info[i], 0, sizeof(t->ring_info[i]));
	}
}

/*
 * Add up every CPU's tables.  A CPU's probe goes on counting meanwhile: in
 * its spare table, which the collection swaps in under that CPU's lock, and
 * then in the table the collection emptied.  Process context,
 * grtrace_aggr_lock held.
 */
static void grtrace_aggr_collect(bool summaries, u64 now)
{
	struct grtrace_aggr_tab *t;
	struct grtrace_aggr_cpu *c;
	bool swapped;
	int cpu, n;

	lockdep_assert_held(&grtrace_aggr_lock);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&grtrace_aggr_cpu, cpu);
		swapped = false;
		/* Bounded: the probe may fill a table meanwhile, not forever. */
		for (n = 0; n < 4; n++) {
			raw_spin_lock_irq(&c->lock);
			t = c->full;
			if (t) {
				c->full = NULL;
			} else if (!swapped && c->spare) {
				t = c->cur;
				c->cur = c->spare;
				c->spare = NULL;
				swapped = true;
			}
			raw_spin_unlock_irq(&c->lock);
			if (!t)
				break;
			grtrace_aggr_add_tab(grtrace_aggr, t, summaries, now);
			raw_spin_lock_irq(&c->lock);
			c->spare = t;
			raw_spin_unlock_irq(&c->lock);
		}
	}
}

/*
 * Collect, and close the window: the next one starts now.  Process
 * context, grtrace_aggr_lock held.  With @summaries, the SUMMARY record of
 * each ring the window counted is written first, for a window that ends
 * now.
 */
static void grtrace_aggr_close(bool summaries)
{
	struct grtrace_aggr *ag = grtrace_aggr;
	u64 now = ktime_get_mono_fast_ns();
	u32 i;

	lockdep_assert_held(&grtrace_aggr_lock);
	grtrace_aggr_collect(summaries, now);
	for (i = 0; summaries && i < GRTRACE_RING_SLOTS; i++)
		grtrace_summary_write(ag, i, ag->win_start, now);
	memcpy(ag->last, ag->cur, sizeof(ag->last));
	memset(ag->cur, 0, sizeof(ag->cur));
	ag->windows++;
	ag->win_start = now;
}

/*
 * Forget every count, and start the first window now.  Process context,
 * grtrace_aggr_lock held.
 */
static void grtrace_aggr_clear(void)
{
	struct grtrace_aggr *ag = grtrace_aggr;
	struct grtrace_aggr_cpu *c;
	int cpu;

	lockdep_assert_held(&grtrace_aggr_lock);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&grtrace_aggr_cpu, cpu);
		raw_spin_lock_irq(&c->lock);
		if (c->full) {
			c->spare = c->full;
			c->full = NULL;
		}
		memset(c->cur, 0, sizeof(*c->cur));
		memset(c->spare, 0, sizeof(*c->spare));
		raw_spin_unlock_irq(&c->lock);
	}
	memset(ag, 0, sizeof(*ag));
	ag->aggr_start = ktime_get_mono_fast_ns();
	ag->win_start = ag->aggr_start;
}

/* Queue the collection for the end of the window, at @ms from aggr_start. */
static void grtrace_aggr_arm(u32 ms)
{
	struct grtrace_aggr *ag = grtrace_aggr;
	u64 w = (u64)ms * NSEC_PER_MSEC, now = ktime_get_mono_fast_ns();

	lockdep_assert_held(&grtrace_aggr_lock);
	ag->win_end = ag->aggr_start +
		      (div64_u64(now - ag->aggr_start, w) + 1) * w;
	mod_delayed_work(system_dfl_wq, &grtrace_aggr_work,
			 nsecs_to_jiffies(ag->win_end - now) + 1);
}

/*
 * The window's end, or a CPU whose table is full: collect, and at the end
 * of a window close it.  Runs while a session is live and the aggregator
 * on.  Under aggregate_only, closing the window writes its SUMMARY records.
 */
static void grtrace_aggr_work_fn(struct work_struct *work)
{
	const struct grtrace_govern_settings *g;
	bool aggregating, only;
	u32 ms;

	rcu_read_lock();
	g = rcu_dereference(grtrace_governance);
	aggregating = g->aggregating;
	only = g->aggregate_only;
	ms = g->aggregator_window;
	rcu_read_unlock();

	guard(mutex)(&grtrace_aggr_lock);
	if (!grtrace_aggr || !aggregating || !grtrace_stream_live())
		return;
	if (ktime_get_mono_fast_ns() >= grtrace_aggr->win_end)
		grtrace_aggr_close(only);
	else
		grtrace_aggr_collect(only, ktime_get_mono_fast_ns());
	grtrace_aggr_arm(ms);
}

/* A probe filled its CPU's table: collect now, from process context. */
static void grtrace_aggr_kick_fn(struct irq_work *work)
{
	mod_delayed_work(system_dfl_wq, &grtrace_aggr_work, 0);
}

/**
 * grtrace_govern_collect - add up the CPUs' aggregates now
 *
 * What the collection does at a window's end or when a CPU's table fills,
 * without closing the window: for the readers of the sums, and for tests,
 * which do not wait on a worker.
 *
 * Context: process context; takes grtrace_aggr_lock.
 */
void grtrace_govern_collect(void)
{
	bool only;

	rcu_read_lock();
	only = rcu_dereference(grtrace_governance)->aggregate_only;
	rcu_read_unlock();
	guard(mutex)(&grtrace_aggr_lock);
	if (grtrace_aggr)
		grtrace_aggr_collect(only && grtrace_stream_live(),
				     ktime_get_mono_fast_ns());
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern_collect);

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
	struct grtrace_job_shard *sh;
	unsigned long flags;
	u32 i, j, n;
	int v = -1;
	u64 ts;

	lockdep_assert_held(&grtrace_govern_lock);
	for (i = 0; i < GRTRACE_JOB_SHARDS; i++) {
		sh = &jt->shard[i];
		for (j = 0; j < GRTRACE_SHARD_JOBS; j++) {
			local_irq_save(flags);
			ts = ktime_get_mono_fast_ns();
			raw_spin_lock(&sh->lock);
			n = 0;
			if (sh->ent[j].nheld) {
				v = grtrace_held_verdict(g, ts - sh->ent[j].first_ts,
							 sh->ent[j].nheld);
				n = grtrace_take_held(sh, &sh->ent[j]);
			}
			raw_spin_unlock(&sh->lock);
			if (n && v >= 0)
				grtrace_stream_drop(v, ts, n);
			if (n && v < 0)
				grtrace_write_held(n);
			local_irq_restore(flags);
		}
	}
}

/**
 * grtrace_govern_stop - decide on the jobs whose events are still held
 *
 * A job that has not completed is judged on the time it has taken so far.
 * Under aggregate_only, the window still open ends now, with its SUMMARY
 * records; between sessions there is no such window.
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
	if (g->aggregating) {
		guard(mutex)(&grtrace_aggr_lock);
		grtrace_aggr_close(g->aggregate_only && grtrace_stream_live());
	}
}

/**
 * grtrace_govern_start - reset the governance state for a new session
 *
 * Context: session start, the probe registered but not recording, the
 * stream live; takes grtrace_govern_lock.
 */
void grtrace_govern_start(void)
{
	const struct grtrace_govern_settings *g;

	guard(mutex)(&grtrace_govern_lock);
	raw_spin_lock_irq(&grtrace_rate_limiter.lock);
	grtrace_rate_limiter.win_end = 0;
	grtrace_rate_limiter.count = 0;
	grtrace_rate_limiter.last = 0;
	raw_spin_unlock_irq(&grtrace_rate_limiter.lock);
	if (!grtrace_jobs)
		return;
	g = rcu_dereference_protected(grtrace_governance,
				      lockdep_is_held(&grtrace_govern_lock));
	grtrace_jobs_clear();
	guard(mutex)(&grtrace_aggr_lock);
	grtrace_aggr_clear();
	if (g->aggregating)
		grtrace_aggr_arm(g->aggregator_window);
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
	int cpu;

	/* As grtrace_stream_reset_stats(): IPIs, and offline CPUs directly. */
	cpus_read_lock();
	on_each_cpu(grtrace_govern_reset_cpu, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			grtrace_govern_reset_of(cpu);
	cpus_read_unlock();
	guard(mutex)(&grtrace_aggr_lock);
	if (grtrace_aggr) {
		u64 win_end = grtrace_aggr->win_end;

		grtrace_aggr_clear();
		grtrace_aggr->win_end = win_end;
	}
}

/**
 * grtrace_govern_evicted - rings whose aggregates another ring took over
 *
 * Context: any; a snapshot.
 * Returns: their number since the aggregates were last reset.
 */
u64 grtrace_govern_evicted(void)
{
	struct grtrace_aggr *ag = READ_ONCE(grtrace_aggr);

	return ag ? READ_ONCE(ag->evicted) : 0;
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
	u64 held = 0;
	int i;

	for (i = 0; jt && i < GRTRACE_JOB_SHARDS; i++)
		held += READ_ONCE(jt->shard[i].held);
	return held;
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

/* Free the aggregates: no probe counts in them, no collection runs. */
static void grtrace_aggr_free(void)
{
	struct grtrace_aggr_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&grtrace_aggr_cpu, cpu);
		kvfree(c->cur);
		kvfree(c->spare);
		kvfree(c->full);
		c->cur = NULL;
		c->spare = NULL;
		c->full = NULL;
	}
	vfree(grtrace_aggr);
	grtrace_aggr = NULL;
}

/*
 * Allocate the job table and the aggregates the first time a setting
 * needs them: about 1 MiB, and 50 KiB per possible CPU.
 */
static int grtrace_jobs_alloc_locked(void)
{
	struct grtrace_aggr_cpu *c;
	struct grtrace_jobs *jt;
	int cpu, i;

	lockdep_assert_held(&grtrace_govern_lock);

	if (grtrace_jobs)
		return 0;
	jt = vzalloc(sizeof(*jt));
	grtrace_scratch = alloc_percpu(struct grtrace_scratch);
	grtrace_aggr = vzalloc(sizeof(*grtrace_aggr));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&grtrace_aggr_cpu, cpu);
		c->cur = kvzalloc_obj(*c->cur);
		c->spare = kvzalloc_obj(*c->spare);
		if (!c->cur || !c->spare)
			goto nomem;
	}
	if (!jt || !grtrace_scratch || !grtrace_aggr)
		goto nomem;
	for (i = 0; i < GRTRACE_JOB_SHARDS; i++)
		raw_spin_lock_init(&jt->shard[i].lock);
	/* Published before the settings that use it. */
	WRITE_ONCE(grtrace_jobs, jt);
	grtrace_jobs_clear();
	guard(mutex)(&grtrace_aggr_lock);
	grtrace_aggr_clear();
	return 0;

nomem:
	grtrace_aggr_free();
	free_percpu(grtrace_scratch);
	grtrace_scratch = NULL;
	vfree(jt);
	return -ENOMEM;
}

/*
 * What new settings @g change for the aggregator, once they are published.
 * Process context, grtrace_govern_lock held.
 */
static void grtrace_aggr_commit(const struct grtrace_govern_settings *old,
				const struct grtrace_govern_settings *g)
{
	bool live = grtrace_stream_live();

	lockdep_assert_held(&grtrace_govern_lock);
	/*
	 * aggregate_only off: the events counted in the open window were not
	 * written, its summaries are due now.  On, with the aggregator
	 * running: the window so far counted events that were written, it
	 * ends now without summaries.  Either once no probe counts with the
	 * old settings.
	 */
	if (old->aggregating && old->aggregate_only != g->aggregate_only) {
		synchronize_rcu();
		scoped_guard(mutex, &grtrace_aggr_lock)
			grtrace_aggr_close(old->aggregate_only && live);
	}
	if (old->aggregating && !g->aggregating) {
		cancel_delayed_work_sync(&grtrace_aggr_work);
	} else if (g->aggregating) {
		guard(mutex)(&grtrace_aggr_lock);
		if (!old->aggregating)
			grtrace_aggr_clear();
		if (live)
			grtrace_aggr_arm(g->aggregator_window);
	}
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
		    g->nr_watch_rings || g->nr_watch_names || g->sampling_rate < 100 ||
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
	if (grtrace_jobs)
		grtrace_aggr_commit(old, g);
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
 * Context: process context; collects the CPUs' aggregates first.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_show_aggregator(struct seq_file *m)
{
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
	grtrace_govern_collect();
	scoped_guard(mutex, &grtrace_aggr_lock) {
		struct grtrace_aggr *ag = grtrace_aggr;

		if (ag) {
			memcpy(total, ag->total, sizeof(ag->total));
			memcpy(last, ag->last, sizeof(ag->last));
			memcpy(id, ag->slot_id, sizeof(ag->slot_id));
			windows = ag->windows;
		}
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
	struct grtrace_aggr *ag = READ_ONCE(grtrace_aggr);
	struct grtrace_jobs *jt = READ_ONCE(grtrace_jobs);
	u64 evicted = 0, full = 0;
	u32 used = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		evicted += per_cpu(grtrace_govern_cpu.evicted, cpu);
		full += per_cpu(grtrace_govern_cpu.aggr_full, cpu);
	}
	for (i = 0; jt && i < GRTRACE_JOB_SHARDS; i++)
		used += READ_ONCE(jt->shard[i].nr_used);
	seq_printf(m, "jobs_evicted=%llu\n", evicted);
	if (!IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR))
		return;
	rcu_read_lock();
	seq_printf(m, "aggregator_enabled=%d\n",
		   rcu_dereference(grtrace_governance)->aggregating);
	rcu_read_unlock();
	seq_printf(m, "aggregator_windows=%llu\n", ag ? READ_ONCE(ag->windows) : 0);
	seq_printf(m, "aggregator_evicted=%llu\n", grtrace_govern_evicted());
	seq_printf(m, "aggregator_full=%llu\n", full);
	seq_printf(m, "jobs_tracked=%u\n", used);
}

/* One CPU's counts of a ring slot, for grtrace_govern_show_rings(). */
struct grtrace_ring_tally {
	u32 id;
	u64 offered;
	u64 written;
};

static int grtrace_ring_tally_cmp(const void *a, const void *b)
{
	const struct grtrace_ring_tally *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * grtrace_govern_show_rings - print /proc/grtrace_stats
 * @m: the file
 *
 * Context: process context; collects the CPUs' aggregates first.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_show_rings(struct seq_file *m)
{
	struct grtrace_ring_tally *tally;
	struct grtrace_aggregate *total = NULL;
	u64 lost_off = 0, lost_wr = 0;
	u32 *slot_id = NULL;
	u32 i, j, n, end;
	u64 span = 0;
	bool aggr;
	int cpu;

	tally = kvmalloc_array(nr_cpu_ids, sizeof(*tally), GFP_KERNEL);
	if (!tally)
		return -ENOMEM;
	rcu_read_lock();
	aggr = rcu_dereference(grtrace_governance)->aggregating;
	rcu_read_unlock();
	if (aggr && READ_ONCE(grtrace_aggr)) {
		total = kvcalloc(GRTRACE_RING_SLOTS, sizeof(*total), GFP_KERNEL);
		slot_id = kcalloc(GRTRACE_RING_SLOTS, sizeof(*slot_id), GFP_KERNEL);
		if (!total || !slot_id) {
			kvfree(total);
			kfree(slot_id);
			kvfree(tally);
			return -ENOMEM;
		}
		grtrace_govern_collect();
		scoped_guard(mutex, &grtrace_aggr_lock) {
			memcpy(total, grtrace_aggr->total, sizeof(grtrace_aggr->total));
			memcpy(slot_id, grtrace_aggr->slot_id, sizeof(grtrace_aggr->slot_id));
			span = ktime_get_mono_fast_ns() - grtrace_aggr->aggr_start;
		}
	}

	seq_puts(m, "# ring_id utilization% drop_rate% avg_latency_us offered written dropped\n");
	/*
	 * Both need each job's SUBMIT, COMMIT and END matched: the per-job
	 * state that only the aggregator keeps, on every event it sees.
	 */
	if (!total)
		seq_puts(m, "# utilization% and avg_latency_us: - until aggregator_enable=1\n");
	for_each_possible_cpu(cpu) {
		lost_off += READ_ONCE(per_cpu_ptr(grtrace_ring_counts, cpu)->lost_offered);
		lost_wr += READ_ONCE(per_cpu_ptr(grtrace_ring_counts, cpu)->lost_written);
	}
	seq_printf(m, "# not shown, of rings whose slot another took: offered %llu written %llu\n",
		   lost_off, lost_wr);
	/*
	 * A slot's ring may differ from CPU to CPU: the CPUs' entries of the
	 * slot sorted by id, so that each ring's counts are summed into one
	 * line.
	 */
	for (i = 0; i < GRTRACE_RING_SLOTS; i++) {
		n = 0;
		for_each_possible_cpu(cpu) {
			const struct grtrace_ring_count *rc =
				&per_cpu_ptr(grtrace_ring_counts, cpu)->r[i];

			tally[n].id = READ_ONCE(rc->id);
			tally[n].offered = READ_ONCE(rc->offered);
			tally[n].written = READ_ONCE(rc->written);
			n++;
		}
		sort(tally, n, sizeof(*tally), grtrace_ring_tally_cmp, NULL);
		for (j = 0; j < n; j = end) {
			u32 id = tally[j].id;
			u64 off = 0, wr = 0, drop, x;

			for (end = j; end < n && tally[end].id == id; end++) {
				off += tally[end].offered;
				wr += tally[end].written;
			}
			if (!off && !wr)
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
	kvfree(tally);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_govern_show_rings);

/**
 * grtrace_govern_init - set up the governance with default settings
 *
 * Context: module init.
 * Returns: 0 or -ENOMEM.
 */
int grtrace_govern_init(void)
{
	struct grtrace_govern_settings *g;
	int cpu;

	g = kmemdup(&grtrace_govern_defaults, sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	RCU_INIT_POINTER(grtrace_governance, g);
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(&grtrace_aggr_cpu, cpu)->lock);

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
	irq_work_sync(&grtrace_aggr_kick);
	cancel_delayed_work_sync(&grtrace_aggr_work);
	guard(mutex)(&grtrace_govern_lock);
	free_percpu(grtrace_ring_counts);
	grtrace_ring_counts = NULL;
	kfree(rcu_replace_pointer(grtrace_governance, NULL,
				  lockdep_is_held(&grtrace_govern_lock)));
	vfree(grtrace_jobs);
	grtrace_jobs = NULL;
	grtrace_aggr_free();
	free_percpu(grtrace_scratch);
	grtrace_scratch = NULL;
}

/*
 * The original design's separate modules are parts of this one: its README
 * loads them by name.
 */
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

// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace stream: the relay channel, the per-CPU counters, the records and
 * the merged reader of the relay buffers.  Calls nothing of the layers
 * above it (governance, core, debugfs).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/relay.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "grtrace_stream.h"

/**
 * DOC: Relay stream
 *
 * While a session runs, the core is registered as a probe on every grtrace
 * tracepoint and writes each event it accepts as one record to the relay
 * buffer of the CPU the event happened on (``events<N>`` in debugfs).  A
 * session starts with a STREAM_INFO record followed by one METADATA record
 * per registered ring; a ring that first shows up later is described by a
 * METADATA record just before its first event in each CPU's buffer.
 * Records carry a global sequence number (gseq), strictly increasing over
 * all CPUs, so a reader merges the per-CPU files by gseq, and a per-CPU one
 * (cseq), so a reader can tell a lost record from a filtered one.
 *
 * Every event reaching the probe is either written or counted under
 * exactly one drop cause, so ``written + dropped == offered`` always holds
 * for a stopped session.  Buffers do not overwrite: when a CPU's buffer is
 * full, new events on that CPU are dropped and counted as ``overrun``;
 * unless the session is a flight recorder (see below).
 *
 * The relay buffers are allocated on the first start and kept after stop,
 * so a stopped session can still be read; the next start resets them.
 * Changing ``buffer_size`` (only while stopped) reallocates them.
 *
 * The records of an event are put together on its CPU and written with
 * one relay_write(), so they land in one sub-buffer and no reader gets one
 * half written.
 */

#define GRTRACE_DEFAULT_BUFFER_SIZE	SZ_4M
#define GRTRACE_MIN_BUFFER_SIZE		SZ_16K
#define GRTRACE_MAX_BUFFER_SIZE		SZ_256M
#define GRTRACE_MAX_SUBBUF_SIZE		SZ_256K
#define GRTRACE_HIST_EVERY		64	/* latency_hist samples 1 event in 64 */
#define GRTRACE_DESCRIBED		2048	/* rings remembered as described, per CPU */

/**
 * DOC: Flight recorder
 *
 * With ``flight_recorder=1`` a session's relay buffers overwrite their
 * oldest sub-buffer instead of dropping new events, so they always hold the
 * last ``buffer_size`` bytes of each CPU.  The first ERROR record written
 * (a timeout or a reset) freezes them: from then on every event is dropped
 * and counted as ``frozen``, and the buffers keep what led up to the error
 * until the next start.  Writing ``freeze`` to ``control`` does the same on
 * demand.  ``stats`` tells whether and why the recorder froze, and the gseq
 * of its last record (the ERROR's, for an error).
 *
 * Overwriting loses the start of the session, with its STREAM_INFO and
 * METADATA records, so in this mode every sub-buffer describes itself: it
 * starts with a copy of the session's STREAM_INFO, and a ring's first event
 * in a sub-buffer is preceded by the ring's METADATA.  A reader can start at
 * any sub-buffer.
 *
 * The buffers of a flight recorder cannot be read while they are written:
 * a reader could be copying the sub-buffer the writer is overwriting.  Its
 * ``events`` and ``events<N>`` files return nothing until the recorder froze
 * or the session stopped, then start at the oldest sub-buffer still whole.
 * An event being written on another CPU when the recorder freezes may still
 * land after the record that froze it; its gseq is higher.
 */

struct grtrace_sec {
	u64 sec;
	u64 written;
	u64 dropped;
};

/* Room for the records of one write: METADATA and a record, and more. */
#define GRTRACE_STAGE_SIZE	1024
static_assert(2 * sizeof(struct grtrace_record) +
	      sizeof(struct grtrace_ring_info) +
	      sizeof(struct grtrace_job_payload) <= GRTRACE_STAGE_SIZE);
static_assert(2 * sizeof(struct grtrace_record) +
	      sizeof(struct grtrace_ring_info) +
	      sizeof(struct grtrace_summary) <= GRTRACE_STAGE_SIZE);
/* A flight recorder's STREAM_INFO first. */
static_assert(3 * sizeof(struct grtrace_record) +
	      sizeof(struct grtrace_stream_info) +
	      sizeof(struct grtrace_ring_info) +
	      sizeof(struct grtrace_summary) <= GRTRACE_STAGE_SIZE);

/*
 * Per-CPU state of the relay stream.  Only touched on its own CPU with
 * interrupts disabled (by the probe and the governance writing through this
 * file), or by IPIs, or while the CPU is offline with CPU hotplug locked, so
 * it needs no other locking, but for the fields that say otherwise.
 */
struct grtrace_cpu_state {
	u64 cseq;
	size_t staged;		/* bytes in @stage */
	u32 nr_staged;		/* records in @stage */
	u32 staged_id;		/* ring the METADATA in @stage describes, or 0 */
	u64 last_gseq;		/* of the last record written */
	u64 wrote;		/* bytes written in the session */
	atomic64_t read;	/* bytes read of them, by the readers */
	u64 sec_end;		/* ts where the current second slot ends */
	struct grtrace_sec *cur_sec;
	struct grtrace_totals t;
	u64 hist[GRTRACE_HIST_BUCKETS];
	struct grtrace_sec sec[GRTRACE_SEC_SLOTS];
	/*
	 * Rings described in this CPU's buffer, in the session or for a
	 * flight recorder in its current sub-buffer: the last one met of
	 * the ids equal modulo GRTRACE_DESCRIBED, as
	 * GRTRACE_DESCRIBED_AS(gen, id) with @described_gen, whose increment
	 * forgets them all.  Ids are
	 * given in order, so rings whose ids are less than
	 * GRTRACE_DESCRIBED apart never take each other's entry; a ring
	 * that lost its entry is described again.
	 */
	u64 *described;		/* GRTRACE_DESCRIBED of grtrace_described */
	u32 described_gen;
	/* Records put together for one relay_write(): grtrace_stage(). */
	u64 stage[GRTRACE_STAGE_SIZE / sizeof(u64)];
};

static DEFINE_PER_CPU(struct grtrace_cpu_state, grtrace_cpu_state);
/*
 * The entries of grtrace_cpu_state.described: 16 KiB per possible CPU,
 * allocated at the first start and kept until the module goes.
 */
static u64 __percpu *grtrace_described;
#define GRTRACE_DESCRIBED_AS(gen, id)	((u64)(gen) << 32 | (id))

/*
 * grtrace_stream_lock serialises the changes of the channel: its
 * allocation, reset and sizing, the start and the end of its sessions, and
 * the readers of the merged stream.  The writers of records do not take it:
 * they run between grtrace_stream_start() and grtrace_stream_stop(): the
 * core's probes, registered before the start and unregistered before the
 * stop, write nothing outside a session.
 */
static DEFINE_MUTEX(grtrace_stream_lock);

/*
 * grtrace_read_lock serialises the readers of the ``events<N>`` files with
 * each other and with the reset of the buffers at the start of a session.
 * Taken after grtrace_stream_lock, never around relay_close(): removing a
 * file waits for its readers, which for the same reason never take
 * grtrace_stream_lock.
 */
static DEFINE_MUTEX(grtrace_read_lock);

static struct dentry *grtrace_dir;
/* Written holding both locks, read holding either (or by the writers) */
static struct rchan *grtrace_chan;
static size_t grtrace_chan_size;		/* grtrace_stream_lock */
static size_t grtrace_buffer_size = GRTRACE_DEFAULT_BUFFER_SIZE;
static bool grtrace_live;			/* grtrace_stream_lock */
static u64 grtrace_session_id;
static atomic64_t grtrace_gseq;

/*
 * Bits of grtrace_mode, set for the session by grtrace_stream_start()
 * (OVERWRITE) and by the first freeze (FROZEN).  Zero unless the session is
 * a flight recorder: the writers test the whole word once.
 */
#define GRTRACE_MODE_OVERWRITE	0
#define GRTRACE_MODE_FROZEN	1
static unsigned long grtrace_mode;
static struct grtrace_stream_info grtrace_info;	/* this session's */
static u64 grtrace_frozen_gseq;
static enum grtrace_freeze_cause grtrace_frozen_by;
/* The session whose writers that did not see FROZEN are done. */
static u64 grtrace_settled;
/* Readers of the merged stream wait here for data or the end of a session. */
static DECLARE_WAIT_QUEUE_HEAD(grtrace_pipe_wait);

static atomic_t grtrace_pipe_kicks;

static void grtrace_pipe_kick(struct irq_work *work)
{
	atomic_inc(&grtrace_pipe_kicks);
	wake_up_all(&grtrace_pipe_wait);
}

/*
 * A merged reader about to sleep sets grtrace_pipe_waiting; the next writer
 * clears it and has the reader woken once its interrupts are enabled again.
 * The writer tests it after its write without a barrier, as ftrace's ring
 * buffer does, and may miss a reader that set it meanwhile: the reader also
 * wakes once a second.  What a writer pays while nobody waits: one load of
 * a flag that nothing writes.
 */
static bool grtrace_pipe_waiting __read_mostly;
static DEFINE_IRQ_WORK(grtrace_pipe_kick_work, grtrace_pipe_kick);

/* The next record of a CPU, read out of its buffer: grtrace_stream_lock. */
struct grtrace_pipe_head {
	u64 rec[GRTRACE_STAGE_SIZE / sizeof(u64)];
	bool valid;
};

/*
 * Where the merged stream is, for whichever reader reads on: the record of
 * each CPU it holds, the gseq of the next record it gives (0: any, none was
 * given) and the CPU of the last one.  A session starts the records and
 * the gseq again.  grtrace_stream_lock.
 */
static DEFINE_PER_CPU(struct grtrace_pipe_head, grtrace_pipe_heads);
static u64 grtrace_pipe_next;
static int grtrace_pipe_cpu;

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The records of the last session, read out of the relay buffers by the
 * first grtrace_walk_records() after it stopped, for the walks that
 * follow: grtrace_stream_lock.  For tests only.
 */
static struct grtrace_snapshot {
	void *data;
	size_t len;
} *grtrace_snapshot;

static void grtrace_snapshot_free_locked(void)
{
	int cpu;

	lockdep_assert_held(&grtrace_stream_lock);
	if (!grtrace_snapshot)
		return;
	for_each_possible_cpu(cpu)
		kvfree(grtrace_snapshot[cpu].data);
	kfree(grtrace_snapshot);
	grtrace_snapshot = NULL;
}
#else
static inline void grtrace_snapshot_free_locked(void) { }
#endif

/*
 * Add a record of @len payload bytes to this CPU's stage and return its
 * payload, for the caller to fill; grtrace_write_staged() writes the stage.
 * Interrupts disabled.
 */
static void *grtrace_stage(struct grtrace_cpu_state *cs, u16 type, size_t len,
			   u64 ts)
{
	struct grtrace_record *rec = (void *)cs->stage + cs->staged;
	size_t size = sizeof(*rec) + len;

	if (WARN_ON_ONCE(cs->staged + size > sizeof(cs->stage)))
		return NULL;
	rec->type = type;
	rec->size = size;
	rec->cpu = smp_processor_id();
	rec->ts = ts;
	cs->staged += size;
	cs->nr_staged++;
	return rec + 1;
}

/*
 * Write the records staged on this CPU to its relay buffer with one
 * relay_write(): they land in one sub-buffer, and a reader sees all of
 * them or none (relay_write() publishes what it copied).  The records get
 * their gseqs here, in the order they are written.
 *
 * When they do not fit in the sub-buffer, relay switches to the next one
 * first, as relay_write() would, and refuses at a full buffer: then nothing
 * is written and no gseq taken, so the gseqs written follow each other.
 *
 * Interrupts disabled.  Returns false if nothing was written.
 */
static bool grtrace_write_staged(struct grtrace_cpu_state *cs)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t size = cs->staged, sb = grtrace_chan->subbuf_size;
	u32 n = cs->nr_staged;
	struct grtrace_record *rec;
	size_t off;
	u64 gseq;

	cs->staged = 0;
	cs->nr_staged = 0;
	/*
	 * relay's own offset: after a switch that found the buffer full it
	 * lies past the sub-buffer, so that every write, however small, tries
	 * the switch again (relay_write() would copy nothing).
	 */
	if (buf->offset + size > sb && !relay_switch_subbuf(buf, size)) {
		cs->staged_id = 0;
		return false;
	}
	gseq = atomic64_add_return(n, &grtrace_gseq) - n;
	for (off = 0; off < size; off += rec->size) {
		rec = (void *)cs->stage + off;
		rec->gseq = ++gseq;
		rec->cseq = ++cs->cseq;
	}
	cs->last_gseq = gseq;
	relay_write(grtrace_chan, cs->stage, size);
	cs->wrote += size;
	if (unlikely(READ_ONCE(grtrace_pipe_waiting))) {
		WRITE_ONCE(grtrace_pipe_waiting, false);
		irq_work_queue(&grtrace_pipe_kick_work);
	}
	if (cs->staged_id) {
		cs->described[cs->staged_id % GRTRACE_DESCRIBED] =
			GRTRACE_DESCRIBED_AS(cs->described_gen, cs->staged_id);
		cs->staged_id = 0;
	}
	return true;
}

/* Forget which rings this CPU's buffer described. */
static void grtrace_forget_described(struct grtrace_cpu_state *cs)
{
	if (unlikely(!++cs->described_gen)) {
		memset(cs->described, 0, GRTRACE_DESCRIBED * sizeof(u64));
		cs->described_gen = 1;
	}
}

/* Forget what is staged: it was not written. */
static void grtrace_unstage(struct grtrace_cpu_state *cs)
{
	cs->staged = 0;
	cs->nr_staged = 0;
	cs->staged_id = 0;
}

/*
 * A copy of the session's STREAM_INFO, staged where a flight recorder's
 * reader may start: first in each sub-buffer.  Interrupts disabled.
 */
static void grtrace_info_copy(struct grtrace_cpu_state *cs)
{
	struct grtrace_stream_info *si;

	si = grtrace_stage(cs, GRTRACE_EV_STREAM_INFO, sizeof(*si),
			   ktime_get_mono_fast_ns());
	if (!si)
		return;
	memcpy(si, &grtrace_info, sizeof(*si));
	si->nr_rings = 0;	/* no METADATA follows here */
}

/**
 * grtrace_fill_ring_info - describe a ring as a METADATA payload does
 * @ring_info: filled in
 * @ring: the ring
 * @id: its id, as its event carries it
 *
 * Context: any.
 */
void grtrace_fill_ring_info(struct grtrace_ring_info *ring_info,
			    const struct grtrace_ring *ring, u32 id)
{
	memset(ring_info, 0, sizeof(*ring_info));
	ring_info->ring_id = id;
	ring_info->engine = ring->engine;
	if (strscpy(ring_info->dev, ring->dev, sizeof(ring_info->dev)) < 0)
		ring_info->flags |= GRTRACE_RING_F_DEV_CUT;
	if (strscpy(ring_info->name, ring->name, sizeof(ring_info->name)) < 0)
		ring_info->flags |= GRTRACE_RING_F_NAME_CUT;
}

/*
 * Stage the METADATA of ring @id, from @ring or else @ring_info, before
 * this CPU's first record of it in the session; nothing when neither is
 * given.  Per CPU: whichever CPU meets a ring first, a record of it follows
 * its METADATA in this CPU's buffer and in gseq order.  The ring counts as
 * described once the stage is written.  Interrupts disabled.
 */
static void grtrace_describe_once(struct grtrace_cpu_state *cs, u32 id,
				  const struct grtrace_ring *ring,
				  const struct grtrace_ring_info *ring_info,
				  u64 ts)
{
	struct grtrace_ring_info *p;

	if (likely(cs->described[id % GRTRACE_DESCRIBED] ==
		   GRTRACE_DESCRIBED_AS(cs->described_gen, id)) ||
	    (!ring && !ring_info))
		return;
	p = grtrace_stage(cs, GRTRACE_EV_METADATA, sizeof(*p), ts);
	if (!p)
		return;
	if (ring)
		grtrace_fill_ring_info(p, ring, id);
	else
		memcpy(p, ring_info, sizeof(*p));
	cs->staged_id = id;
}

/* Freeze the flight recorder, once; @gseq is its last record. */
static void grtrace_freeze(enum grtrace_freeze_cause by, u64 gseq)
{
	static DEFINE_SPINLOCK(lock);
	unsigned long flags;

	spin_lock_irqsave(&lock, flags);
	if (!test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode)) {
		WRITE_ONCE(grtrace_frozen_gseq, gseq);
		WRITE_ONCE(grtrace_frozen_by, by);
		/* Pairs with grtrace_stream_flight(). */
		smp_mb__before_atomic();
		set_bit(GRTRACE_MODE_FROZEN, &grtrace_mode);
		/* A merged reader waiting for the freeze may read. */
		irq_work_queue(&grtrace_pipe_kick_work);
	}
	spin_unlock_irqrestore(&lock, flags);
}

/*
 * The slow path of the writers, for a flight recorder: false if it is
 * frozen.  Else, on the CPU's first record, or if a record of @len payload
 * bytes (and METADATA if @meta) would not fit in this sub-buffer, stages a
 * STREAM_INFO, which then starts the next sub-buffer (relay_write() does
 * not split a write), and describes the rings there again.  Interrupts
 * disabled.
 */
static bool grtrace_flight_write(struct grtrace_cpu_state *cs, size_t len,
				 bool meta)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t need = sizeof(struct grtrace_record) + len;

	if (test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode))
		return false;
	if (meta)
		need += sizeof(struct grtrace_record) +
			sizeof(struct grtrace_ring_info);
	if (!cs->cseq || buf->offset + need > grtrace_chan->subbuf_size) {
		grtrace_forget_described(cs);
		grtrace_info_copy(cs);
	}
	return true;
}

/* Count an event in its second; a division only once a second. */
static void grtrace_account_sec(struct grtrace_cpu_state *cs, u64 ts,
				bool written)
{
	struct grtrace_sec *s = cs->cur_sec;

	if (unlikely(!s || ts >= cs->sec_end)) {
		u64 sec = div_u64(ts, NSEC_PER_SEC);

		s = &cs->sec[sec % GRTRACE_SEC_SLOTS];
		if (s->sec != sec) {
			s->sec = sec;
			s->written = 0;
			s->dropped = 0;
		}
		cs->cur_sec = s;
		cs->sec_end = (sec + 1) * NSEC_PER_SEC;
	}
	if (written)
		s->written++;
	else
		s->dropped++;
}

/* Count @n events as dropped for @cause.  Interrupts disabled. */
static void grtrace_account_drop(struct grtrace_cpu_state *cs, int cause,
				 u64 ts, u32 n)
{
	cs->t.dropped[cause] += n;
	cs->t.bytes_dropped += n * (sizeof(struct grtrace_record) +
				    sizeof(struct grtrace_job_payload));
	while (n--)
		grtrace_account_sec(cs, ts, false);
}

/**
 * grtrace_stream_offer - count an event offered to the relay stream
 *
 * The first thing the probe does with an event; the event must then be
 * written with grtrace_stream_write() or counted with grtrace_stream_drop()
 * (or by the governance, later, for a held event) exactly once.
 *
 * Context: interrupts disabled.
 * Returns: the time of the event.
 */
u64 grtrace_stream_offer(void)
{
	u64 ts = ktime_get_mono_fast_ns();

	this_cpu_ptr(&grtrace_cpu_state)->t.offered++;
	return ts;
}

/**
 * grtrace_stream_write - write one job event
 * @type: enum grtrace_event_type
 * @ts: when the event happened
 * @job: its payload
 * @ring: its ring, or NULL to use @ring_info
 * @ring_info: its ring when @ring is NULL
 *
 * Describes the ring first if this session has not, then writes the event
 * to this CPU's buffer.  An ERROR freezes a flight recorder.
 *
 * Context: interrupts disabled, between grtrace_stream_start() and
 * grtrace_stream_stop().
 * Returns: false, counted as overrun, if the buffer was full, or as frozen
 * if the flight recorder was.
 */
bool grtrace_stream_write(u16 type, u64 ts,
			  const struct grtrace_job_payload *job,
			  const struct grtrace_ring *ring,
			  const struct grtrace_ring_info *ring_info)
{
	struct grtrace_cpu_state *cs = this_cpu_ptr(&grtrace_cpu_state);
	struct grtrace_job_payload *p;
	bool freeze = false;
	u64 cost;

	if (unlikely(READ_ONCE(grtrace_mode))) {
		if (!grtrace_flight_write(cs, sizeof(*p), ring || ring_info)) {
			grtrace_account_drop(cs, GRTRACE_DROP_FROZEN, ts, 1);
			return false;
		}
		freeze = type == GRTRACE_EV_ERROR;
	}
	grtrace_describe_once(cs, job->ring_id, ring, ring_info, ts);

	p = grtrace_stage(cs, type, sizeof(*p), ts);
	if (p)
		memcpy(p, job, sizeof(*p));
	if (!p || !grtrace_write_staged(cs)) {
		grtrace_unstage(cs);
		grtrace_account_drop(cs, GRTRACE_DROP_OVERRUN, ts, 1);
		return false;
	}
	if (unlikely(freeze))
		grtrace_freeze(GRTRACE_FROZEN_ERROR, cs->last_gseq);

	cs->t.written++;
	cs->t.bytes_written += sizeof(struct grtrace_record) + sizeof(*p);
	cs->t.by_type[type]++;
	grtrace_account_sec(cs, ts, true);
	/* The write cost of one event in GRTRACE_HIST_EVERY: a clock read. */
	if (unlikely(!(cs->t.written % GRTRACE_HIST_EVERY))) {
		cost = ktime_get_mono_fast_ns() - ts;
		cs->hist[min_t(u32, ilog2(cost | 1), GRTRACE_HIST_BUCKETS - 1)]++;
	}
	return true;
}

/**
 * grtrace_stream_summary - write a SUMMARY record
 * @s: the summary of one ring's window
 * @ring_info: the ring, described first if this session has not; NULL
 *	if the aggregator did not see its description
 * @ts: the time of the record
 *
 * Context: interrupts disabled, between grtrace_stream_start() and
 * grtrace_stream_stop().
 * Returns: false, counted in ``summaries_lost``, if the buffer was full
 * or the flight recorder frozen.
 */
bool grtrace_stream_summary(const struct grtrace_summary *s,
			    const struct grtrace_ring_info *ring_info, u64 ts)
{
	struct grtrace_cpu_state *cs = this_cpu_ptr(&grtrace_cpu_state);
	struct grtrace_summary *p;

	if (unlikely(READ_ONCE(grtrace_mode)) &&
	    !grtrace_flight_write(cs, sizeof(*p), !!ring_info)) {
		cs->t.summaries_lost++;
		return false;
	}
	grtrace_describe_once(cs, s->ring_id, NULL, ring_info, ts);

	p = grtrace_stage(cs, GRTRACE_EV_SUMMARY, sizeof(*p), ts);
	if (p)
		memcpy(p, s, sizeof(*p));
	if (!p || !grtrace_write_staged(cs)) {
		grtrace_unstage(cs);
		cs->t.summaries_lost++;
		return false;
	}
	cs->t.summaries++;
	return true;
}

/**
 * grtrace_stream_ring_removed - say that a ring went away
 * @ring: the ring, with its names
 * @id: the id it had
 *
 * Writes a RING_REMOVED record: the ring had an id while the session ran,
 * though the session may not have met it.  Not a job event: neither offered
 * nor counted.
 *
 * Context: process context, after the ring's last event.
 */
void grtrace_stream_ring_removed(const struct grtrace_ring *ring, u32 id)
{
	struct grtrace_ring_info *ring_info;
	struct grtrace_cpu_state *cs;
	unsigned long flags;
	u64 ts;

	if (test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode))
		return;
	local_irq_save(flags);
	cs = this_cpu_ptr(&grtrace_cpu_state);
	ts = ktime_get_mono_fast_ns();
	/* A flight recorder's sub-buffer names the ring it says is gone. */
	if (unlikely(READ_ONCE(grtrace_mode))) {
		if (!grtrace_flight_write(cs, sizeof(*ring_info), true))
			goto out;
		grtrace_describe_once(cs, id, ring, NULL, ts);
	}
	ring_info = grtrace_stage(cs, GRTRACE_EV_RING_REMOVED,
				  sizeof(*ring_info), ts);
	if (ring_info)
		grtrace_fill_ring_info(ring_info, ring, id);
	if (!ring_info || !grtrace_write_staged(cs))
		grtrace_unstage(cs);
out:
	local_irq_restore(flags);
}

/**
 * grtrace_stream_drop - count events as dropped
 * @cause: why they were not written
 * @ts: when the decision was taken
 * @n: number of events
 *
 * Context: interrupts disabled.
 */
void grtrace_stream_drop(enum grtrace_drop cause, u64 ts, u32 n)
{
	grtrace_account_drop(this_cpu_ptr(&grtrace_cpu_state), cause, ts, n);
}

/**
 * grtrace_buffer_fill - how full this CPU's relay buffer is
 *
 * Context: interrupts disabled, between grtrace_stream_start() and
 * grtrace_stream_stop().
 * Returns: the unread part of the buffer, in percent, the padding at the
 * end of sub-buffers not counted; 0 for a flight recorder.
 */
unsigned int grtrace_buffer_fill(void)
{
	struct grtrace_cpu_state *cs = this_cpu_ptr(&grtrace_cpu_state);
	u64 unread = cs->wrote - atomic64_read(&cs->read);

	/* A flight recorder is never read while written: never filling. */
	if (test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode))
		return 0;
	return min_t(u64, 100, div64_u64(unread * 100, grtrace_chan->alloc_size));
}

/* ---- events<N>: the records of one CPU ---- */

/**
 * DOC: Per-CPU files
 *
 * ``events<N>`` are relay's files of the CPUs' buffers: a read gives the
 * records of CPU N in the order they were written and consumes what it
 * returns, as ``trace_pipe_raw`` does; it returns 0 when nothing more is
 * written, also while the session runs (poll() tells when a sub-buffer
 * is finished).  A read may end inside a record: the next one goes on from
 * there.  The readers of a CPU take their turns, each getting what the
 * others did not.  They are not opened while the merged stream is open,
 * nor on a session it read from (-EBUSY): see grtrace_readers.
 */

/*
 * A flight recorder that froze is read once every writer that had not seen
 * it frozen is done: they run with interrupts disabled, so once an RCU
 * grace period passed.  The merged reader waits for it before it takes
 * grtrace_stream_lock, which start, stop and the stats take too.  A reader
 * of events<N> waits in grtrace_may_read(), under grtrace_read_lock: it
 * does not take grtrace_stream_lock, which start holds while relay_close()
 * waits for the readers of the files it removes.
 */
static void grtrace_settle(void)
{
	u64 id;

	scoped_guard(mutex, &grtrace_stream_lock) {
		if (!grtrace_live || grtrace_settled == grtrace_session_id ||
		    !test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode))
			return;
		id = grtrace_session_id;
	}
	synchronize_rcu();
	WRITE_ONCE(grtrace_settled, id);
}

/*
 * A flight recorder is read only once nothing writes it: after stop, or
 * after it froze and grtrace_settle() saw its writers done.  May sleep.
 */
static bool grtrace_may_read(void)
{
	unsigned long mode = READ_ONCE(grtrace_mode);

	if (!(mode & BIT(GRTRACE_MODE_OVERWRITE)) || !READ_ONCE(grtrace_live))
		return true;
	if (!(mode & BIT(GRTRACE_MODE_FROZEN)))
		return false;
	if (READ_ONCE(grtrace_settled) != READ_ONCE(grtrace_session_id)) {
		/* It froze after the reader's grtrace_settle() looked. */
		synchronize_rcu();
		WRITE_ONCE(grtrace_settled, READ_ONCE(grtrace_session_id));
	}
	return true;
}

/* Whether records may still be added: live and not frozen. */
static bool grtrace_writing(void)
{
	return READ_ONCE(grtrace_live) &&
	       !test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode);
}

/*
 * The merged stream takes whole records from the buffers, the events<N>
 * files any bytes, so each would find what the other left in the middle
 * of a record, and the merged stream holds a record of each CPU that the
 * events<N> files would not see.  They do not read the same session:
 * grtrace_readers counts the open events<N> files, or is -1 while the
 * merged stream is open; neither kind opens on a session the other read
 * from (grtrace_cpu_read_session, written and read under
 * grtrace_read_lock; grtrace_pipe_read_session, written under
 * grtrace_stream_lock, read while no merged reader is open).
 */
static atomic_t grtrace_readers = ATOMIC_INIT(0);
static u64 grtrace_cpu_read_session;
static u64 grtrace_pipe_read_session;

/* Whether @read, the session a kind of reader read from, is this one. */
static bool grtrace_session_was_read(u64 read)
{
	u64 id = READ_ONCE(grtrace_session_id);

	return id && read == id;
}

/* Count @n bytes of @cpu's buffer as read, for grtrace_buffer_fill(). */
static void grtrace_account_read(int cpu, size_t n)
{
	atomic64_add(n, &per_cpu(grtrace_cpu_state, cpu).read);
}

/*
 * relay's read(), not while the buffers are reset (grtrace_read_lock) nor,
 * for a flight recorder, while they are written.  The user's buffer is
 * written holding the lock: relay reads under the file's inode lock too.
 */
static ssize_t grtrace_cpu_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	ssize_t ret = 0;

	mutex_lock(&grtrace_read_lock);
	/* Not a buffer of a closed channel, still open. */
	if (buf->chan == grtrace_chan && grtrace_may_read())
		ret = relay_file_operations.read(file, ubuf, count, ppos);
	if (ret > 0)
		WRITE_ONCE(grtrace_cpu_read_session, READ_ONCE(grtrace_session_id));
	mutex_unlock(&grtrace_read_lock);
	if (ret > 0)
		grtrace_account_read(buf->cpu, ret);
	return ret;
}

static int grtrace_cpu_open(struct inode *inode, struct file *file)
{
	int ret;

	if (!atomic_inc_unless_negative(&grtrace_readers))
		return -EBUSY;
	/* No merged reader is open, so none reads until release. */
	if (grtrace_session_was_read(READ_ONCE(grtrace_pipe_read_session))) {
		atomic_dec(&grtrace_readers);
		return -EBUSY;
	}
	ret = relay_file_operations.open(inode, file);
	if (ret)
		atomic_dec(&grtrace_readers);
	return ret;
}

static __poll_t grtrace_cpu_poll(struct file *file, poll_table *wait)
{
	return relay_file_operations.poll(file, wait);
}

static int grtrace_cpu_release(struct inode *inode, struct file *file)
{
	int ret = relay_file_operations.release(inode, file);

	atomic_dec(&grtrace_readers);
	return ret;
}

static const struct file_operations grtrace_cpu_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_cpu_open,
	.poll		= grtrace_cpu_poll,
	.read		= grtrace_cpu_read,
	.release	= grtrace_cpu_release,
};

static struct dentry *grtrace_create_buf_file(const char *filename,
					      struct dentry *parent,
					      umode_t mode,
					      struct rchan_buf *buf,
					      int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &grtrace_cpu_fops);
}

static int grtrace_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

/* Called by relay_switch_subbuf(): a flight recorder overwrites. */
static int grtrace_subbuf_start(struct rchan_buf *buf, void *subbuf,
				void *prev_subbuf)
{
	return test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode) ||
	       !relay_buf_full(buf);
}

static const struct rchan_callbacks grtrace_relay_callbacks = {
	.subbuf_start		= grtrace_subbuf_start,
	.create_buf_file	= grtrace_create_buf_file,
	.remove_buf_file	= grtrace_remove_buf_file,
};

/*
 * Make the channel of buffer_size, empty, and reset every CPU's counts:
 * no writer runs.
 */
static int grtrace_open_chan_locked(void)
{
	struct rchan *chan = grtrace_chan;
	size_t subbuf, n;
	int cpu;

	lockdep_assert_held(&grtrace_stream_lock);

	if (!grtrace_described) {
		grtrace_described = __alloc_percpu(GRTRACE_DESCRIBED * sizeof(u64),
						   sizeof(u64));
		if (!grtrace_described)
			return -ENOMEM;
	}
	if (chan && grtrace_chan_size != grtrace_buffer_size) {
		scoped_guard(mutex, &grtrace_read_lock)
			grtrace_chan = NULL;
		relay_close(chan);
		chan = NULL;
	}
	if (!chan) {
		subbuf = clamp_t(size_t,
				 rounddown_pow_of_two(grtrace_buffer_size / 16),
				 PAGE_SIZE, GRTRACE_MAX_SUBBUF_SIZE);
		n = grtrace_buffer_size / subbuf;
		chan = relay_open("events", grtrace_dir, subbuf, n,
				  &grtrace_relay_callbacks, NULL);
		if (!chan)
			return -ENOMEM;
		grtrace_chan_size = grtrace_buffer_size;
	}

	/* The readers see the buffers and the counts of one session. */
	guard(mutex)(&grtrace_read_lock);
	relay_reset(chan);
	grtrace_snapshot_free_locked();
	for_each_possible_cpu(cpu) {
		struct grtrace_cpu_state *cs = per_cpu_ptr(&grtrace_cpu_state, cpu);

		cs->cseq = 0;
		grtrace_unstage(cs);
		cs->wrote = 0;
		atomic64_set(&cs->read, 0);
		cs->described = per_cpu_ptr(grtrace_described, cpu);
		grtrace_forget_described(cs);
		per_cpu_ptr(&grtrace_pipe_heads, cpu)->valid = false;
	}
	grtrace_pipe_next = 0;
	grtrace_chan = chan;
	return 0;
}

static int grtrace_count_ring(const struct grtrace_ring *ring, u32 id,
			      void *data)
{
	(*(u32 *)data)++;
	return 0;
}

/* Called with interrupts disabled, by grtrace_walk_rings(). */
static int grtrace_describe_ring(const struct grtrace_ring *ring, u32 id,
				 void *data)
{
	struct grtrace_cpu_state *cs = this_cpu_ptr(&grtrace_cpu_state);

	if (READ_ONCE(grtrace_mode))
		grtrace_flight_write(cs, 0, true);
	grtrace_describe_once(cs, id, ring, NULL, ktime_get_mono_fast_ns());
	if (cs->staged && !grtrace_write_staged(cs))
		grtrace_unstage(cs);
	return 0;
}

/* Write STREAM_INFO and the METADATA of every ring that has an id. */
static int grtrace_write_header_locked(void)
{
	struct grtrace_cpu_state *cs;
	struct grtrace_stream_info *si;
	unsigned long flags;
	u32 nr_rings = 0;
	bool ok = false;

	lockdep_assert_held(&grtrace_stream_lock);

	grtrace_walk_rings(grtrace_count_ring, &nr_rings);

	local_irq_save(flags);
	cs = this_cpu_ptr(&grtrace_cpu_state);
	si = grtrace_stage(cs, GRTRACE_EV_STREAM_INFO, sizeof(*si),
			   ktime_get_mono_fast_ns());
	if (si) {
		memset(si, 0, sizeof(*si));
		si->magic = GRTRACE_MAGIC;
		si->version = GRTRACE_FORMAT_VERSION;
		si->record_size = sizeof(struct grtrace_record);
		si->session_id = grtrace_session_id;
		si->features = GRTRACE_FEAT_CSEQ | GRTRACE_FEAT_SUBMITTER;
		si->start_ts = ktime_get_mono_fast_ns();
		si->start_realtime = ktime_get_real_fast_ns();
		si->clock_id = GRTRACE_CLOCK_MONOTONIC;
		si->nr_cpus = nr_cpu_ids;
		si->nr_rings = nr_rings;
		si->buffer_size = grtrace_chan_size;
		memcpy(&grtrace_info, si, sizeof(*si));
		ok = grtrace_write_staged(cs);
	}
	if (!ok)
		grtrace_unstage(cs);
	local_irq_restore(flags);
	if (!ok)
		return -ENOSPC;

	return grtrace_walk_rings(grtrace_describe_ring, NULL);
}

/**
 * grtrace_stream_start - open the relay stream for a new session
 * @flight_recorder: overwrite the oldest data, until an ERROR freezes it
 *
 * (Re)allocates or resets the relay buffers, restarts the sequence numbers,
 * draws a new session id and writes the STREAM_INFO and METADATA records.
 * The stream is live from here until grtrace_stream_stop(): records may be
 * written, and readers of the merged stream wait for more.
 *
 * Context: process context, no writer running; takes grtrace_stream_lock.
 * Returns: 0, -ENOMEM, or -ENOSPC if the buffer cannot hold the header.
 */
int grtrace_stream_start(bool flight_recorder)
{
	int ret;

	KUNIT_STATIC_STUB_REDIRECT(grtrace_stream_start, flight_recorder);
	guard(mutex)(&grtrace_stream_lock);
	ret = grtrace_open_chan_locked();
	if (ret)
		return ret;

	/*
	 * A reader of events<N> sees the session's mode, id and state with
	 * its buffers (grtrace_may_read()), not those of the last one.
	 */
	guard(mutex)(&grtrace_read_lock);
	WRITE_ONCE(grtrace_mode,
		   flight_recorder ? BIT(GRTRACE_MODE_OVERWRITE) : 0);
	WRITE_ONCE(grtrace_frozen_by, GRTRACE_FROZEN_NONE);
	WRITE_ONCE(grtrace_frozen_gseq, 0);
	WRITE_ONCE(grtrace_settled, 0);
	atomic64_set(&grtrace_gseq, 0);
	WRITE_ONCE(grtrace_session_id, get_random_u64());

	ret = grtrace_write_header_locked();
	if (ret)
		return ret;
	/* Pairs with grtrace_stream_live(): the header written */
	smp_store_release(&grtrace_live, true);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_stream_start);

/**
 * grtrace_stream_stop - end the session of the relay stream
 *
 * The buffers stay readable.
 * It wakes the readers of the merged stream, which return what is left
 * and then end of file.
 *
 * Context: process context, after the last writer finished; takes
 * grtrace_stream_lock.
 */
void grtrace_stream_stop(void)
{
	guard(mutex)(&grtrace_stream_lock);
	WRITE_ONCE(grtrace_live, false);
	wake_up_all(&grtrace_pipe_wait);
}

/**
 * grtrace_stream_live - whether a session may write the stream
 *
 * Context: any.
 * Returns: true between grtrace_stream_start() and grtrace_stream_stop().
 */
bool grtrace_stream_live(void)
{
	/* Pairs with grtrace_stream_start(): its header written */
	return smp_load_acquire(&grtrace_live);
}

/**
 * grtrace_stream_freeze - freeze the flight recorder on demand
 *
 * Context: process context; takes grtrace_stream_lock.
 * Returns: 0, also if it was frozen already, or -EINVAL if no session runs
 * or it is not a flight recorder.
 */
int grtrace_stream_freeze(void)
{
	guard(mutex)(&grtrace_stream_lock);
	if (!grtrace_live || !test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode))
		return -EINVAL;
	grtrace_freeze(GRTRACE_FROZEN_CONTROL, atomic64_read(&grtrace_gseq));
	return 0;
}

/**
 * grtrace_stream_flight - the state of the last session's flight recorder
 * @f: filled in
 *
 * Context: any.
 */
void grtrace_stream_flight(struct grtrace_flight *f)
{
	unsigned long mode = READ_ONCE(grtrace_mode);

	memset(f, 0, sizeof(*f));
	f->on = mode & BIT(GRTRACE_MODE_OVERWRITE);
	f->frozen = mode & BIT(GRTRACE_MODE_FROZEN);
	if (f->frozen) {
		/* Pairs with grtrace_freeze(). */
		smp_rmb();
		f->by = READ_ONCE(grtrace_frozen_by);
		f->gseq = READ_ONCE(grtrace_frozen_gseq);
	}
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_stream_flight);

/**
 * grtrace_stream_session_id - the id of the last session started
 *
 * Context: any.
 * Returns: the session_id of its STREAM_INFO, 0 before the first one.
 */
u64 grtrace_stream_session_id(void)
{
	return READ_ONCE(grtrace_session_id);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_stream_session_id);

/**
 * grtrace_set_buffer_size - set the per-CPU relay buffer size
 * @size: bytes, a multiple of PAGE_SIZE within 16 KiB .. 256 MiB
 *
 * Takes effect at the next start.
 *
 * Context: process context, takes grtrace_stream_lock.
 * Returns: 0, -EINVAL for a bad size, -EBUSY while a session runs.
 */
int grtrace_set_buffer_size(size_t size)
{
	if (size < GRTRACE_MIN_BUFFER_SIZE || size > GRTRACE_MAX_BUFFER_SIZE ||
	    !PAGE_ALIGNED(size))
		return -EINVAL;

	guard(mutex)(&grtrace_stream_lock);
	if (grtrace_live)
		return -EBUSY;
	WRITE_ONCE(grtrace_buffer_size, size);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_set_buffer_size);

/**
 * grtrace_get_buffer_size - the per-CPU relay buffer size
 *
 * Context: any.
 * Returns: the size the next start allocates, in bytes.
 */
size_t grtrace_get_buffer_size(void)
{
	return READ_ONCE(grtrace_buffer_size);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_get_buffer_size);

/**
 * grtrace_get_totals - sum the per-CPU counters
 * @t: filled in
 *
 * Context: any.  Exact once the session is stopped; a snapshot while it
 * runs.
 */
void grtrace_get_totals(struct grtrace_totals *t)
{
	int cpu, i;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		const struct grtrace_totals *c =
			&per_cpu(grtrace_cpu_state, cpu).t;

		t->offered += c->offered;
		t->written += c->written;
		t->bytes_written += c->bytes_written;
		t->bytes_dropped += c->bytes_dropped;
		for (i = 0; i < GRTRACE_DROP_NR; i++)
			t->dropped[i] += c->dropped[i];
		for (i = 0; i < GRTRACE_EV_NR; i++)
			t->by_type[i] += c->by_type[i];
		t->summaries += c->summaries;
		t->summaries_lost += c->summaries_lost;
	}
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_get_totals);

static void grtrace_reset_stats_of(struct grtrace_cpu_state *cs)
{
	memset(&cs->t, 0, sizeof(cs->t));
	memset(cs->hist, 0, sizeof(cs->hist));
	memset(cs->sec, 0, sizeof(cs->sec));
	cs->cur_sec = NULL;
}

static void grtrace_reset_cpu_stats(void *unused)
{
	grtrace_reset_stats_of(this_cpu_ptr(&grtrace_cpu_state));
}

/**
 * grtrace_stream_reset_stats - zero the counters of the relay stream
 *
 * Each online CPU is reset from an IPI, so it is atomic with respect to the
 * probe on that CPU: no event is half counted.  Offline CPUs, where nothing
 * runs, are reset directly, with CPU hotplug locked.
 *
 * Context: process context.
 */
void grtrace_stream_reset_stats(void)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(grtrace_reset_cpu_stats, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			grtrace_reset_stats_of(per_cpu_ptr(&grtrace_cpu_state, cpu));
	cpus_read_unlock();
}

/**
 * grtrace_stream_sec_counts - events of one second, summed over CPUs
 * @sec: the second of CLOCK_MONOTONIC
 * @written: events written in it
 * @dropped: events dropped in it
 *
 * Only the last %GRTRACE_SEC_SLOTS seconds are kept; older ones count 0.
 *
 * Context: any; a snapshot.
 */
void grtrace_stream_sec_counts(u64 sec, u64 *written, u64 *dropped)
{
	int cpu;

	*written = 0;
	*dropped = 0;
	for_each_possible_cpu(cpu) {
		const struct grtrace_sec *sl =
			&per_cpu(grtrace_cpu_state, cpu).sec[sec % GRTRACE_SEC_SLOTS];

		if (READ_ONCE(sl->sec) == sec) {
			*written += READ_ONCE(sl->written);
			*dropped += READ_ONCE(sl->dropped);
		}
	}
}

/**
 * grtrace_stream_latency_hist - the histogram of write costs
 * @hist: filled in: events sampled per log2 ns bucket, summed over CPUs
 *
 * Context: any; a snapshot.
 */
void grtrace_stream_latency_hist(u64 hist[GRTRACE_HIST_BUCKETS])
{
	int cpu, i;

	for (i = 0; i < GRTRACE_HIST_BUCKETS; i++) {
		hist[i] = 0;
		for_each_possible_cpu(cpu)
			hist[i] += READ_ONCE(per_cpu(grtrace_cpu_state, cpu).hist[i]);
	}
}

/**
 * grtrace_stream_bytes_read - bytes read of the buffers by readers
 *
 * Context: any; a snapshot.
 * Returns: the sum over CPUs, since the session started.
 */
u64 grtrace_stream_bytes_read(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += atomic64_read(&per_cpu(grtrace_cpu_state, cpu).read);
	return n;
}

#if IS_ENABLED(CONFIG_KUNIT)
static int grtrace_snapshot_take_locked(void)
{
	size_t size = grtrace_chan->alloc_size;
	int cpu;

	lockdep_assert_held(&grtrace_stream_lock);
	grtrace_snapshot = kcalloc(nr_cpu_ids, sizeof(*grtrace_snapshot),
				   GFP_KERNEL);
	if (!grtrace_snapshot)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct grtrace_snapshot *s = &grtrace_snapshot[cpu];
		struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);

		if (!buf)
			continue;
		s->data = kvmalloc(size, GFP_KERNEL);
		if (!s->data) {
			grtrace_snapshot_free_locked();
			return -ENOMEM;
		}
		s->len = relay_buf_read(buf, s->data, size);
	}
	return 0;
}

/**
 * grtrace_walk_records - walk the records in the relay buffers
 * @fn: called for every record, CPU by CPU, in buffer order; a non-zero
 *      return stops the walk
 * @data: passed to @fn
 *
 * For tests: valid on a stopped session whose buffers were not read
 * otherwise.  The first walk reads the buffers out; the next ones walk
 * what it read, until the next start.
 *
 * Context: process context, takes grtrace_stream_lock.
 * Returns: the first non-zero value of @fn, -EINVAL on a malformed record,
 * -ENODEV without buffers, -ENOMEM, or 0.
 */
int grtrace_walk_records(grtrace_record_fn fn, void *data)
{
	int cpu, ret;

	guard(mutex)(&grtrace_stream_lock);
	if (!grtrace_chan || grtrace_live)
		return -ENODEV;
	if (!grtrace_snapshot) {
		ret = grtrace_snapshot_take_locked();
		if (ret)
			return ret;
	}
	for_each_possible_cpu(cpu) {
		const struct grtrace_snapshot *s = &grtrace_snapshot[cpu];
		size_t off = 0;

		while (off + sizeof(struct grtrace_record) <= s->len) {
			const struct grtrace_record *rec = s->data + off;

			if (rec->size < sizeof(*rec) || rec->size % 8 ||
			    off + rec->size > s->len)
				return -EINVAL;
			ret = fn(rec, data);
			if (ret)
				return ret;
			off += rec->size;
		}
		if (off != s->len)
			return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_walk_records);
#endif

/* ---- events, trace_pipe: all CPUs' records merged in gseq order ---- */

/**
 * DOC: Merged stream
 *
 * ``events`` and ``trace_pipe`` (the same file under two names) give the
 * records of all CPUs as one stream in gseq order, in the format of the
 * per-CPU files, so ``cat trace_pipe > gpu_events.bin`` captures a session
 * that ``grtrace report`` reads.  Like ``trace_pipe`` of ftrace, a read
 * consumes what it returns and blocks while the session runs and nothing
 * is ready; after stop it returns what is left, then end of file.  Only
 * one reader at a time may open it (-EBUSY).  It consumes the same buffers
 * as the ``events<N>`` files, so it is not opened while one of them is,
 * nor on a session that one of them was read from: it could start inside
 * a record.  Nor are they opened while it is, nor on a session it read
 * from: it holds a record of each CPU for its next read (-EBUSY, until the
 * next start).  A reader that closes the file inside a record loses the
 * rest of it; the next reader starts at a record.
 *
 * It reads the buffers with relay_buf_read(), at most one record of each CPU
 * ahead.  While the session runs, a record is given once every record of
 * a lower gseq was.  A read may end inside a record: the next read goes on
 * from there.
 */

/* A read copies records here under grtrace_stream_lock, then to the user. */
#define GRTRACE_PIPE_BOUNCE	SZ_64K
static_assert(GRTRACE_STAGE_SIZE <= GRTRACE_PIPE_BOUNCE);

/*
 * The reader of the merged stream.  @lock serialises the reads of the file
 * by threads that share it.  The @left bytes of @bounce from @off were
 * consumed from the buffers and not returned yet: they come first.
 */
struct grtrace_pipe {
	struct mutex lock;	/* the reads of the file */
	size_t off, left;
	void *bounce;
};

/*
 * The next record of @cpu, or NULL.  relay_write() wrote whole records, so
 * the buffer holds the rest of a record whose header it holds.
 */
static const struct grtrace_record *grtrace_pipe_head(int cpu)
{
	struct grtrace_pipe_head *h = per_cpu_ptr(&grtrace_pipe_heads, cpu);
	struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);
	struct grtrace_record *rec = (void *)h->rec;
	size_t len;

	lockdep_assert_held(&grtrace_stream_lock);
	if (h->valid)
		return rec;
	len = buf ? relay_buf_read(buf, rec, sizeof(*rec)) : 0;
	if (!len)
		return NULL;
	WRITE_ONCE(grtrace_pipe_read_session, grtrace_session_id);
	if (len == sizeof(*rec) && rec->size > sizeof(*rec) &&
	    rec->size <= sizeof(h->rec))
		len += relay_buf_read(buf, rec + 1, rec->size - sizeof(*rec));
	/* Never: no events<N> file took part of a record (grtrace_readers). */
	if (WARN_ON_ONCE(len < sizeof(*rec) || len != rec->size))
		return NULL;
	grtrace_account_read(cpu, rec->size);
	h->valid = true;
	return rec;
}

/*
 * The lowest gseq of the CPUs' next records, or NULL; *@best_cpu its CPU.
 * Each CPU's records follow in gseq order, and the stream gives the lowest
 * first, in turn while the session runs, so no record left has a gseq
 * below grtrace_pipe_next: a record of that gseq is the lowest, and the
 * search ends there.  It looks at the records held first, then reads the
 * buffers from the CPU of the last record on: a CPU that writes nothing
 * costs a read only while the next record is not there yet, not for every
 * record.
 */
static const struct grtrace_record *grtrace_pipe_best(int *best_cpu)
{
	const struct grtrace_record *rec, *best = NULL;
	int held, cpu;

	for (held = 1; held >= 0; held--) {
		for_each_cpu_wrap(cpu, cpu_possible_mask, grtrace_pipe_cpu) {
			if (per_cpu_ptr(&grtrace_pipe_heads, cpu)->valid != held)
				continue;
			rec = grtrace_pipe_head(cpu);
			if (!rec || (best && rec->gseq >= best->gseq))
				continue;
			best = rec;
			*best_cpu = cpu;
			if (rec->gseq == grtrace_pipe_next)
				return best;
		}
	}
	return best;
}

/*
 * Copy records to the bounce buffer in gseq order, at most @count bytes but
 * at least one record, if any is ready.  What is copied is consumed.
 */
static size_t grtrace_pipe_fill_locked(struct grtrace_pipe *p, size_t count,
				       bool live)
{
	const struct grtrace_record *best;
	size_t done = 0;
	int cpu;

	lockdep_assert_held(&grtrace_stream_lock);

	while ((best = grtrace_pipe_best(&cpu))) {
		if (live && grtrace_pipe_next && best->gseq != grtrace_pipe_next)
			break;
		if (done && done + best->size > count)
			break;
		memcpy(p->bounce + done, best, best->size);
		done += best->size;
		grtrace_pipe_next = best->gseq + 1;
		grtrace_pipe_cpu = cpu;
		per_cpu_ptr(&grtrace_pipe_heads, cpu)->valid = false;
	}
	return done;
}

/* A writer or the freeze kicked the readers since @kicks, or the end. */
static bool grtrace_pipe_woken(int kicks)
{
	return atomic_read(&grtrace_pipe_kicks) != kicks ||
	       !grtrace_stream_live();
}

/*
 * The user's buffer is written without grtrace_stream_lock held, so a reader
 * whose page faults slowly does not hold up stop or the stats.  What it did
 * not take stays for the next read, also after a fault.
 */
static ssize_t grtrace_pipe_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct grtrace_pipe *p = file->private_data;
	ssize_t ret = 0;
	int kicks;
	bool live;

	if (!count)
		return 0;
	count = min_t(size_t, count, GRTRACE_PIPE_BOUNCE);
	if (mutex_lock_interruptible(&p->lock))
		return -ERESTARTSYS;
	while (!p->left) {
		grtrace_settle();
		kicks = atomic_read(&grtrace_pipe_kicks);
		mutex_lock(&grtrace_stream_lock);
		live = grtrace_writing();
		if (grtrace_chan && grtrace_may_read()) {
			/*
			 * Wake me for the next write: set before looking, so
			 * that a writer that put a record after the look sees
			 * it (but see grtrace_pipe_waiting).  A flight
			 * recorder being written wakes its reader by freezing.
			 */
			WRITE_ONCE(grtrace_pipe_waiting, true);
			/* The flag before the look. */
			smp_mb();
			p->off = 0;
			p->left = grtrace_pipe_fill_locked(p, count, live);
			if (p->left)
				WRITE_ONCE(grtrace_pipe_waiting, false);
		}
		mutex_unlock(&grtrace_stream_lock);
		if (p->left)
			break;
		if (!live)
			goto out;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		if (wait_event_interruptible_timeout(grtrace_pipe_wait,
						     grtrace_pipe_woken(kicks),
						     HZ) < 0) {
			ret = -ERESTARTSYS;
			goto out;
		}
	}
	count = min(count, p->left);
	if (copy_to_user(ubuf, p->bounce + p->off, count)) {
		ret = -EFAULT;
	} else {
		p->off += count;
		p->left -= count;
		ret = count;
	}
out:
	mutex_unlock(&p->lock);
	return ret;
}

static int grtrace_pipe_open(struct inode *inode, struct file *file)
{
	struct grtrace_pipe *p;
	bool busy;

	if (atomic_cmpxchg(&grtrace_readers, 0, -1))
		return -EBUSY;
	/* No events<N> file is open, so none is read until release. */
	scoped_guard(mutex, &grtrace_read_lock)
		busy = grtrace_session_was_read(grtrace_cpu_read_session);
	if (busy) {
		atomic_set_release(&grtrace_readers, 0);
		return -EBUSY;
	}
	p = kzalloc_obj(*p);
	if (p)
		p->bounce = kvmalloc(GRTRACE_PIPE_BOUNCE, GFP_KERNEL);
	if (!p || !p->bounce) {
		kfree(p);
		atomic_set_release(&grtrace_readers, 0);
		return -ENOMEM;
	}
	mutex_init(&p->lock);
	file->private_data = p;
	return nonseekable_open(inode, file);
}

static int grtrace_pipe_release(struct inode *inode, struct file *file)
{
	struct grtrace_pipe *p = file->private_data;

	mutex_destroy(&p->lock);
	kvfree(p->bounce);
	kfree(p);
	/* The session it read from before the next events<N> open. */
	atomic_set_release(&grtrace_readers, 0);
	return 0;
}

/* The merged reader: the debugfs layer creates ``events`` and ``trace_pipe``. */
const struct file_operations grtrace_stream_pipe_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_pipe_open,
	.read		= grtrace_pipe_read,
	.release	= grtrace_pipe_release,
};

/**
 * grtrace_stream_init - set up the relay stream
 * @dir: the debugfs directory of the ``events<N>`` files
 *
 * The buffers are only allocated by the first grtrace_stream_start().
 *
 * Context: module init.
 * Returns: 0.
 */
int grtrace_stream_init(struct dentry *dir)
{
	grtrace_dir = dir;
	return 0;
}

/**
 * grtrace_stream_exit - free the relay buffers and the rings described
 *
 * Removes the ``events<N>`` files: call it before removing their directory.
 *
 * Context: module exit, the stream stopped.
 */
void grtrace_stream_exit(void)
{
	struct rchan *chan;

	irq_work_sync(&grtrace_pipe_kick_work);
	guard(mutex)(&grtrace_stream_lock);
	grtrace_snapshot_free_locked();
	chan = grtrace_chan;
	scoped_guard(mutex, &grtrace_read_lock)
		grtrace_chan = NULL;
	if (chan)
		relay_close(chan);
	free_percpu(grtrace_described);
	grtrace_described = NULL;
}

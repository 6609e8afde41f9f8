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
 * No reader gets a record half written: the writer shows a record by
 * advancing the buffer offset with a store-release, and the readers of
 * ``events<N>`` and of the merged ``events`` read it with a load-acquire.
 */

#define GRTRACE_DEFAULT_BUFFER_SIZE	SZ_4M
#define GRTRACE_MIN_BUFFER_SIZE		SZ_16K
#define GRTRACE_MAX_BUFFER_SIZE		SZ_256M
#define GRTRACE_MAX_SUBBUF_SIZE		SZ_256K
#define GRTRACE_HIST_EVERY		64	/* latency_hist samples 1 event in 64 */
#define GRTRACE_DESCRIBED		256	/* rings remembered as described, per CPU */

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

/*
 * Per-CPU state of the relay stream.  Only touched on its own CPU with
 * interrupts disabled (by the probe and the governance writing through this
 * file), or by IPIs, or while the CPU is offline with CPU hotplug locked, so
 * it needs no other locking.  @produced alone is read from other CPUs.
 */
struct grtrace_cpu_state {
	u64 cseq;
	/* Sub-buffers produced, for the merged reader: see grtrace_reserve(). */
	size_t produced;
	u64 sec_end;		/* ts where the current second slot ends */
	struct grtrace_sec *cur_sec;
	struct grtrace_totals t;
	u64 hist[GRTRACE_HIST_BUCKETS];
	struct grtrace_sec sec[GRTRACE_SEC_SLOTS];
	/*
	 * Rings described in this CPU's buffer, in the session or for a
	 * flight recorder in its current sub-buffer: the last one met of
	 * the ids equal modulo GRTRACE_DESCRIBED, 0 for none.  A ring that
	 * lost its entry is described again.
	 */
	u32 described[GRTRACE_DESCRIBED];
};

static DEFINE_PER_CPU(struct grtrace_cpu_state, grtrace_cpu_state);

/* A reader's place in one CPU's buffer. */
struct grtrace_read_pos {
	size_t sb;	/* sub-buffers consumed */
	size_t off;	/* bytes read of the next one */
};

/*
 * The place of the readers of ``events<N>`` in each CPU's buffer, under
 * grtrace_read_lock.  Kept here, not in relay's subbufs_consumed: a flight
 * recorder's reader skips more sub-buffers at once than
 * relay_subbufs_consumed() takes.
 */
static DEFINE_PER_CPU(struct grtrace_read_pos, grtrace_cpu_rpos);

/*
 * grtrace_stream_lock serialises the changes of the channel: its
 * allocation, reset and sizing, the start and the end of its sessions, and
 * the readers of the merged stream.  The writers of records do not take it:
 * they run between grtrace_stream_start() and grtrace_stream_stop(), which
 * the core calls around registering and unregistering its probes.
 */
static DEFINE_MUTEX(grtrace_stream_lock);

/*
 * grtrace_read_lock serialises the readers of the ``events<N>`` files with
 * each other and with the reset of the buffers at the start of a session.
 * Taken after grtrace_stream_lock, never around relay_close(): removing a
 * file waits for its readers.
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
/* The readers waited for the writers that did not see FROZEN. */
static bool grtrace_settled;
/* Readers of the merged stream wait here for data or the end of a session. */
static DECLARE_WAIT_QUEUE_HEAD(grtrace_pipe_wait);

/* Show the record of @len payload bytes grtrace_reserve() returned. */
static void grtrace_publish(size_t len)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);

	/* Pairs with grtrace_readable(): the record before the offset. */
	smp_store_release(&buf->offset,
			  buf->offset + sizeof(struct grtrace_record) + len);
}

static void *grtrace_reserve(struct grtrace_cpu_state *cs, u16 type,
			     size_t len, u64 ts);

/*
 * A copy of the session's STREAM_INFO, where a flight recorder's reader may
 * start: at the start of each sub-buffer.  Interrupts disabled, the
 * sub-buffer empty, so it fits.
 */
static void grtrace_info_copy(struct grtrace_cpu_state *cs)
{
	struct grtrace_stream_info *si;

	si = grtrace_reserve(cs, GRTRACE_EV_STREAM_INFO, sizeof(*si),
			     ktime_get_mono_fast_ns());
	memcpy(si, &grtrace_info, sizeof(*si));
	si->nr_rings = 0;	/* no METADATA follows here */
	grtrace_publish(sizeof(*si));
}

/*
 * Finish this CPU's sub-buffer for a record of @size bytes.
 * A flight recorder's new sub-buffer starts with the session's STREAM_INFO
 * and describes its rings again.
 * Returns false if the buffer is full.
 */
static bool grtrace_switch(struct grtrace_cpu_state *cs, struct rchan_buf *buf,
			   size_t size)
{
	size_t ok = relay_switch_subbuf(buf, size);

	/* Also when full: the finished sub-buffer is still readable. */
	smp_store_release(&cs->produced, buf->subbufs_produced);
	if (!ok)
		return false;
	if (unlikely(test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode))) {
		memset(cs->described, 0, sizeof(cs->described));
		grtrace_info_copy(cs);
	}
	return true;
}

/*
 * A record is filled in place and only then shown to readers, by advancing
 * the buffer offset in grtrace_publish() with a store-release; relay's
 * relay_reserve() would advance it first.  Both are called with interrupts
 * disabled, so nothing else writes this CPU's buffer in between.
 *
 * The readers (grtrace_readable()) read the offset with a load-acquire,
 * so they see every record below it complete.  They learn that
 * a sub-buffer is finished, and its padding, from @cs->produced, stored
 * with a store-release after relay_switch_subbuf() set the padding: relay's
 * own counter is written without ordering against the padding.
 *
 * Returns the payload of a record with its header filled in, or NULL when
 * the buffer is full.
 */
static void *grtrace_reserve(struct grtrace_cpu_state *cs, u16 type,
			     size_t len, u64 ts)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t size = sizeof(struct grtrace_record) + len;
	struct grtrace_record *rec;

	if (unlikely(buf->offset + size > grtrace_chan->subbuf_size) &&
	    !grtrace_switch(cs, buf, size))
		return NULL;

	rec = buf->data + buf->offset;
	rec->type = type;
	rec->size = size;
	rec->cpu = smp_processor_id();
	rec->ts = ts;
	rec->gseq = atomic64_inc_return(&grtrace_gseq);
	rec->cseq = ++cs->cseq;
	return rec + 1;
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
	strscpy(ring_info->dev, ring->dev, sizeof(ring_info->dev));
	strscpy(ring_info->name, ring->name, sizeof(ring_info->name));
}

/*
 * Write a METADATA record for @ring with id @id, or for @src when @ring is
 * NULL.  Interrupts disabled.
 */
static bool grtrace_describe(struct grtrace_cpu_state *cs, u32 id,
			     const struct grtrace_ring *ring,
			     const struct grtrace_ring_info *src, u64 ts)
{
	struct grtrace_ring_info *ring_info;

	ring_info = grtrace_reserve(cs, GRTRACE_EV_METADATA,
				    sizeof(*ring_info), ts);
	if (!ring_info)
		return false;
	if (ring)
		grtrace_fill_ring_info(ring_info, ring, id);
	else
		memcpy(ring_info, src, sizeof(*ring_info));
	grtrace_publish(sizeof(*ring_info));
	return true;
}

/*
 * Describe ring @id, from @ring or else @ring_info, before this CPU's first
 * record of it in the session; nothing when neither is given.  Per CPU:
 * whichever CPU meets a ring first, a record of it follows its METADATA in
 * this CPU's buffer and in gseq order.  Interrupts disabled.
 */
static void grtrace_describe_once(struct grtrace_cpu_state *cs, u32 id,
				  const struct grtrace_ring *ring,
				  const struct grtrace_ring_info *ring_info,
				  u64 ts)
{
	u32 *described = &cs->described[id % GRTRACE_DESCRIBED];

	if (likely(*described == id) || (!ring && !ring_info))
		return;
	if (grtrace_describe(cs, id, ring, ring_info, ts))
		*described = id;
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
	}
	spin_unlock_irqrestore(&lock, flags);
}

/*
 * The slow path of the writers, for a flight recorder: false if it is
 * frozen.  Else makes room for METADATA and a record of @len payload bytes
 * in one sub-buffer, and describes ring @id in it if it was not.
 * Interrupts disabled.
 */
static bool grtrace_flight_write(struct grtrace_cpu_state *cs, u32 id,
				 const struct grtrace_ring *ring,
				 const struct grtrace_ring_info *ring_info,
				 u64 ts, size_t len)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t need = 2 * sizeof(struct grtrace_record) +
		      sizeof(struct grtrace_ring_info) + len;

	if (test_bit(GRTRACE_MODE_FROZEN, &grtrace_mode))
		return false;
	/* This CPU's first record: its first sub-buffer describes itself too. */
	if (unlikely(!cs->cseq))
		grtrace_info_copy(cs);
	if (buf->offset + need > grtrace_chan->subbuf_size)
		grtrace_switch(cs, buf, need);
	grtrace_describe_once(cs, id, ring, ring_info, ts);
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
		if (!grtrace_flight_write(cs, job->ring_id, ring, ring_info, ts,
					  sizeof(*p))) {
			grtrace_account_drop(cs, GRTRACE_DROP_FROZEN, ts, 1);
			return false;
		}
		freeze = type == GRTRACE_EV_ERROR;
	}
	grtrace_describe_once(cs, job->ring_id, ring, ring_info, ts);

	p = grtrace_reserve(cs, type, sizeof(*p), ts);
	if (!p) {
		grtrace_account_drop(cs, GRTRACE_DROP_OVERRUN, ts, 1);
		return false;
	}
	memcpy(p, job, sizeof(*p));
	grtrace_publish(sizeof(*p));
	if (unlikely(freeze))
		grtrace_freeze(GRTRACE_FROZEN_ERROR,
			       ((struct grtrace_record *)p - 1)->gseq);

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
	    !grtrace_flight_write(cs, s->ring_id, NULL, ring_info, ts,
				  sizeof(*p))) {
		cs->t.summaries_lost++;
		return false;
	}
	grtrace_describe_once(cs, s->ring_id, NULL, ring_info, ts);

	p = grtrace_reserve(cs, GRTRACE_EV_SUMMARY, sizeof(*p), ts);
	if (!p) {
		cs->t.summaries_lost++;
		return false;
	}
	memcpy(p, s, sizeof(*p));
	grtrace_publish(sizeof(*p));
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
	if (unlikely(READ_ONCE(grtrace_mode)) &&
	    !grtrace_flight_write(cs, id, ring, NULL, ts, sizeof(*ring_info)))
		goto out;
	ring_info = grtrace_reserve(cs, GRTRACE_EV_RING_REMOVED,
				    sizeof(*ring_info), ts);
	if (ring_info) {
		grtrace_fill_ring_info(ring_info, ring, id);
		grtrace_publish(sizeof(*ring_info));
	}
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
 * Returns: the unread part of the buffer, in percent; 0 for a flight
 * recorder.
 */
unsigned int grtrace_buffer_fill(void)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t sb = grtrace_chan->subbuf_size;
	size_t used;

	/* A flight recorder is never read while written: never filling. */
	if (test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode))
		return 0;
	used = (buf->subbufs_produced - buf->subbufs_consumed) * sb +
	       buf->offset;
	return min_t(size_t, 100, used * 100 / (sb * grtrace_chan->n_subbufs));
}

/* ---- events<N>: the records of one CPU ---- */

/**
 * DOC: Per-CPU files
 *
 * ``events<N>`` gives the records of CPU N in the order they were written,
 * and consumes what it returns, as ``trace_pipe_raw`` does; it returns 0
 * when nothing more is published, also while the session runs (poll it with
 * a timer).  A read may end inside a record: the next one goes on from
 * there.  The readers of a CPU take their turns, each getting what the
 * others did not.
 *
 * They do not use relay's read(): it reads the writer's offset, the
 * padding and the sub-buffer the writer is in without ordering, so a
 * reader of a live file on another CPU could copy the zeroes past the end
 * of a finished sub-buffer, or give a sub-buffer back before reading its
 * end.  These files read what grtrace_reserve() and grtrace_publish()
 * publish, as the merged reader does.
 */

/*
 * A flight recorder is read only once nothing writes it: after stop, or
 * after it froze and every writer that had not seen it frozen is done (they
 * run with interrupts disabled: an RCU grace period).  May sleep.
 */
static bool grtrace_may_read(void)
{
	unsigned long mode = READ_ONCE(grtrace_mode);

	if (!(mode & BIT(GRTRACE_MODE_OVERWRITE)) || !READ_ONCE(grtrace_live))
		return true;
	if (!(mode & BIT(GRTRACE_MODE_FROZEN)))
		return false;
	if (!READ_ONCE(grtrace_settled)) {
		synchronize_rcu();
		WRITE_ONCE(grtrace_settled, true);
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
 * The oldest sub-buffer a flight recorder that produced @produced of @chan's
 * still holds whole: the one after the sub-buffer being written.
 */
static size_t grtrace_oldest_whole(struct rchan *chan, size_t produced)
{
	return produced >= chan->n_subbufs ? produced - chan->n_subbufs + 1 : 0;
}

/*
 * How many bytes from @pos on, within its sub-buffer, @cpu's writer has
 * published.  Moves @pos past the sub-buffers read to their end and gives
 * them back to the writer.  Called holding grtrace_stream_lock or
 * grtrace_read_lock, for a channel that is not reset meanwhile.
 */
static size_t grtrace_readable(struct rchan *chan, int cpu,
			       struct grtrace_read_pos *pos)
{
	struct grtrace_cpu_state *cs = per_cpu_ptr(&grtrace_cpu_state, cpu);
	struct rchan_buf *buf = *per_cpu_ptr(chan->buf, cpu);
	size_t sbsize = chan->subbuf_size, produced, oldest, len;

	if (!buf)
		return 0;
	for (;;) {
		/* Pairs with grtrace_reserve(): the padding is set. */
		produced = smp_load_acquire(&cs->produced);
		/* A flight recorder overwrote the sub-buffers before these. */
		oldest = grtrace_oldest_whole(chan, produced);
		if (test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode) &&
		    pos->sb < oldest) {
			/* Relay needs no count: this writer never waits. */
			pos->sb = oldest;
			pos->off = 0;
		}
		if (pos->sb < produced) {
			len = sbsize - buf->padding[pos->sb % chan->n_subbufs];
		} else {
			/* Pairs with grtrace_publish(): records below are whole. */
			len = smp_load_acquire(&buf->offset);
			/* The writer moved on: @len may be of the next one. */
			if (smp_load_acquire(&cs->produced) != produced)
				continue;
			if (len > sbsize)	/* buffer full */
				len = 0;
		}
		if (pos->off < len)
			return len - pos->off;
		if (pos->sb >= produced)
			return 0;
		/* This sub-buffer is read: give it back to the writer. */
		pos->sb++;
		pos->off = 0;
		relay_subbufs_consumed(chan, cpu, 1);
	}
}

/* Where @pos is in the buffer of @cpu. */
static void *grtrace_read_ptr(struct rchan *chan, int cpu,
			      const struct grtrace_read_pos *pos)
{
	struct rchan_buf *buf = *per_cpu_ptr(chan->buf, cpu);

	return buf->start + (pos->sb % chan->n_subbufs) * chan->subbuf_size +
	       pos->off;
}

/* A read copies to this bounce buffer under grtrace_read_lock. */
#define GRTRACE_READ_BOUNCE	SZ_64K

static int grtrace_cpu_open(struct inode *inode, struct file *file)
{
	void *bounce = kvmalloc(GRTRACE_READ_BOUNCE, GFP_KERNEL);

	if (!bounce)
		return -ENOMEM;
	file->private_data = bounce;
	return nonseekable_open(inode, file);
}

/*
 * Sub-buffers read to their end are given back to relay, so that ``stats``
 * and the writer's "buffer full" see them.  The user's buffer is written
 * without the lock, so a reader whose page faults slowly does not hold up
 * the start of a session.
 */
static ssize_t grtrace_cpu_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file_inode(file)->i_private;
	struct grtrace_read_pos *pos;
	size_t n, done = 0;

	count = min_t(size_t, count, GRTRACE_READ_BOUNCE);
	mutex_lock(&grtrace_read_lock);
	/* Not while its channel closes: it removes this file first. */
	if (buf->chan == grtrace_chan && grtrace_may_read()) {
		pos = per_cpu_ptr(&grtrace_cpu_rpos, buf->cpu);
		while (done < count &&
		       (n = grtrace_readable(buf->chan, buf->cpu, pos))) {
			n = min(n, count - done);
			memcpy(file->private_data + done,
			       grtrace_read_ptr(buf->chan, buf->cpu, pos), n);
			done += n;
			pos->off += n;
		}
	}
	mutex_unlock(&grtrace_read_lock);
	if (done && copy_to_user(ubuf, file->private_data, done))
		return -EFAULT;
	return done;
}

static int grtrace_cpu_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations grtrace_cpu_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_cpu_open,
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
	for_each_possible_cpu(cpu) {
		struct grtrace_cpu_state *cs = per_cpu_ptr(&grtrace_cpu_state, cpu);

		cs->cseq = 0;
		WRITE_ONCE(cs->produced, 0);
		memset(cs->described, 0, sizeof(cs->described));
		memset(per_cpu_ptr(&grtrace_cpu_rpos, cpu), 0,
		       sizeof(struct grtrace_read_pos));
	}
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
	grtrace_describe_once(this_cpu_ptr(&grtrace_cpu_state), id, ring, NULL,
			      ktime_get_mono_fast_ns());
	return 0;
}

/* Write STREAM_INFO and the METADATA of every ring that has an id. */
static int grtrace_write_header_locked(void)
{
	struct grtrace_stream_info *si;
	unsigned long flags;
	u32 nr_rings = 0;

	lockdep_assert_held(&grtrace_stream_lock);

	grtrace_walk_rings(grtrace_count_ring, &nr_rings);

	local_irq_save(flags);
	si = grtrace_reserve(this_cpu_ptr(&grtrace_cpu_state),
			     GRTRACE_EV_STREAM_INFO, sizeof(*si),
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
		grtrace_publish(sizeof(*si));
	}
	local_irq_restore(flags);
	if (!si)
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

	guard(mutex)(&grtrace_stream_lock);
	ret = grtrace_open_chan_locked();
	if (ret)
		return ret;

	WRITE_ONCE(grtrace_mode,
		   flight_recorder ? BIT(GRTRACE_MODE_OVERWRITE) : 0);
	WRITE_ONCE(grtrace_frozen_by, GRTRACE_FROZEN_NONE);
	WRITE_ONCE(grtrace_frozen_gseq, 0);
	WRITE_ONCE(grtrace_settled, false);
	atomic64_set(&grtrace_gseq, 0);
	WRITE_ONCE(grtrace_session_id, get_random_u64());

	ret = grtrace_write_header_locked();
	if (ret)
		return ret;
	WRITE_ONCE(grtrace_live, true);
	return 0;
}

/**
 * grtrace_stream_stop - end the session of the relay stream
 *
 * Flushes the buffers, which stay readable, and wakes the readers of the
 * merged stream, which return what is left and then end of file.
 *
 * Context: process context, after the last writer finished; takes
 * grtrace_stream_lock.
 */
void grtrace_stream_stop(void)
{
	int cpu;

	guard(mutex)(&grtrace_stream_lock);
	/* A flight recorder's flush would overwrite its oldest sub-buffer. */
	if (grtrace_chan && !test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode)) {
		relay_flush(grtrace_chan);
		for_each_possible_cpu(cpu) {
			struct grtrace_cpu_state *cs = per_cpu_ptr(&grtrace_cpu_state, cpu);
			struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);

			if (!buf)
				continue;
			/* Pairs with grtrace_readable(): the padding is set. */
			smp_store_release(&cs->produced, buf->subbufs_produced);
		}
	}
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
	return READ_ONCE(grtrace_live);
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
 * grtrace_stream_subbufs_consumed - sub-buffers read from user space
 *
 * Context: process context, takes grtrace_stream_lock.
 * Returns: the sum over CPUs, 0 before the first session.
 */
u64 grtrace_stream_subbufs_consumed(void)
{
	u64 consumed = 0;
	int cpu;

	guard(mutex)(&grtrace_stream_lock);
	if (!grtrace_chan)
		return 0;
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);

		if (buf)
			consumed += buf->subbufs_consumed;
	}
	return consumed;
}

/**
 * grtrace_walk_records - walk the records in the relay buffers
 * @fn: called for every record, CPU by CPU, in buffer order; a non-zero
 *      return stops the walk
 * @data: passed to @fn
 *
 * For tests: only valid on a stopped session whose buffers were not read
 * from user space.
 *
 * Context: process context, takes grtrace_stream_lock.
 * Returns: the first non-zero value of @fn, -EINVAL on a malformed record,
 * -ENODEV without buffers, or 0.
 */
int grtrace_walk_records(grtrace_record_fn fn, void *data)
{
	int cpu, ret = 0;

	guard(mutex)(&grtrace_stream_lock);
	if (!grtrace_chan || grtrace_live)
		return -ENODEV;

	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);
		size_t n = grtrace_chan->n_subbufs, sb = grtrace_chan->subbuf_size;
		size_t i, first = 0, last;

		if (!buf)
			continue;
		last = min(buf->subbufs_produced, n - 1);
		/* A flight recorder: from the oldest whole sub-buffer on. */
		if (test_bit(GRTRACE_MODE_OVERWRITE, &grtrace_mode)) {
			last = buf->subbufs_produced;
			first = grtrace_oldest_whole(grtrace_chan, last);
		}
		for (i = first; i <= last; i++) {
			size_t len = i < buf->subbufs_produced ?
				     sb - buf->padding[i % n] : buf->offset;
			const char *p = buf->start + (i % n) * sb;
			size_t off = 0;

			while (off + sizeof(struct grtrace_record) <= len) {
				const struct grtrace_record *rec =
					(const void *)(p + off);

				if (rec->size < sizeof(*rec) || rec->size % 8 ||
				    off + rec->size > len)
					return -EINVAL;
				ret = fn(rec, data);
				if (ret)
					return ret;
				off += rec->size;
			}
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_walk_records);

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
 * one reader at a time may open it (-EBUSY), and it consumes the same
 * buffers as the ``events<N>`` files: use one or the other.
 */

/* A read copies records here under grtrace_stream_lock, then to the user. */
#define GRTRACE_PIPE_BOUNCE	SZ_64K

struct grtrace_pipe {
	struct rchan *chan;
	u64 session_id;
	u64 next_gseq;
	void *bounce;
	struct grtrace_read_pos pos[];
};

static atomic_t grtrace_pipe_busy = ATOMIC_INIT(0);

static void grtrace_pipe_attach_locked(struct grtrace_pipe *p)
{
	int cpu;

	lockdep_assert_held(&grtrace_stream_lock);

	p->chan = grtrace_chan;
	p->session_id = grtrace_session_id;
	p->next_gseq = 0;
	/* From where the readers of events<N> left off. */
	guard(mutex)(&grtrace_read_lock);
	for_each_possible_cpu(cpu)
		p->pos[cpu] = *per_cpu_ptr(&grtrace_cpu_rpos, cpu);
}

/* The next complete record of @cpu, or NULL.  grtrace_stream_lock held. */
static const struct grtrace_record *grtrace_pipe_head(struct grtrace_pipe *p,
						      int cpu)
{
	struct grtrace_read_pos *pos = &p->pos[cpu];
	size_t len = grtrace_readable(p->chan, cpu, pos);
	const struct grtrace_record *rec;

	if (len < sizeof(*rec))
		return NULL;
	rec = grtrace_read_ptr(p->chan, cpu, pos);
	if (rec->size < sizeof(*rec) || rec->size > len)
		return NULL;
	return rec;
}

/*
 * Copy records to the bounce buffer in gseq order, at most @count bytes.  A
 * record whose predecessor is not published yet is left for later while the
 * session runs.  What is copied is consumed.
 */
static ssize_t grtrace_pipe_copy_locked(struct grtrace_pipe *p, size_t count,
					bool live)
{
	const struct grtrace_record *rec, *best;
	ssize_t done = 0;
	int cpu, bcpu;

	lockdep_assert_held(&grtrace_stream_lock);

	for (;;) {
		best = NULL;
		bcpu = -1;
		for_each_possible_cpu(cpu) {
			rec = grtrace_pipe_head(p, cpu);
			if (rec && (!best || rec->gseq < best->gseq)) {
				best = rec;
				bcpu = cpu;
			}
		}
		if (!best || (live && p->next_gseq &&
			      best->gseq != p->next_gseq))
			break;
		if (best->size > count - done)
			return done ? done : -EINVAL;
		memcpy(p->bounce + done, best, best->size);
		done += best->size;
		p->next_gseq = best->gseq + 1;
		p->pos[bcpu].off += best->size;
	}
	return done;
}

/*
 * The user's buffer is written without grtrace_stream_lock held, so a reader
 * whose page faults slowly does not hold up stop or the stats.  As with
 * ftrace's trace_pipe, records copied before a fault are lost.
 */
static ssize_t grtrace_pipe_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct grtrace_pipe *p = file->private_data;
	ssize_t ret;
	bool live;

	count = min_t(size_t, count, GRTRACE_PIPE_BOUNCE);
	for (;;) {
		mutex_lock(&grtrace_stream_lock);
		live = grtrace_writing();
		if (!grtrace_chan || !grtrace_may_read()) {
			ret = 0;
		} else {
			if (p->chan != grtrace_chan ||
			    p->session_id != grtrace_session_id)
				grtrace_pipe_attach_locked(p);
			ret = grtrace_pipe_copy_locked(p, count, live);
		}
		mutex_unlock(&grtrace_stream_lock);
		if (ret > 0 && copy_to_user(ubuf, p->bounce, ret))
			return -EFAULT;
		if (ret || !live)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible_timeout(grtrace_pipe_wait,
						     !grtrace_stream_live(),
						     HZ / 20) < 0)
			return -ERESTARTSYS;
	}
}

static int grtrace_pipe_open(struct inode *inode, struct file *file)
{
	struct grtrace_pipe *p;

	if (atomic_cmpxchg(&grtrace_pipe_busy, 0, 1))
		return -EBUSY;
	p = kzalloc(struct_size(p, pos, nr_cpu_ids), GFP_KERNEL);
	if (p)
		p->bounce = kvmalloc(GRTRACE_PIPE_BOUNCE, GFP_KERNEL);
	if (!p || !p->bounce) {
		kfree(p);
		atomic_set(&grtrace_pipe_busy, 0);
		return -ENOMEM;
	}
	file->private_data = p;
	return nonseekable_open(inode, file);
}

static int grtrace_pipe_release(struct inode *inode, struct file *file)
{
	struct grtrace_pipe *p = file->private_data;

	kvfree(p->bounce);
	kfree(p);
	atomic_set(&grtrace_pipe_busy, 0);
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
 * grtrace_stream_exit - free the relay buffers
 *
 * Removes the ``events<N>`` files: call it before removing their directory.
 *
 * Context: module exit, the stream stopped.
 */
void grtrace_stream_exit(void)
{
	struct rchan *chan;

	guard(mutex)(&grtrace_stream_lock);
	chan = grtrace_chan;
	scoped_guard(mutex, &grtrace_read_lock)
		grtrace_chan = NULL;
	if (chan)
		relay_close(chan);
}

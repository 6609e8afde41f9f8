// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace core: the relay stream, its governance and the debugfs interface.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
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
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include <trace/events/grtrace.h>

#include "grtrace_internal.h"

/**
 * DOC: Relay stream
 *
 * While a session runs, the core is registered as a probe on every grtrace
 * tracepoint and writes each event it accepts as one record to the relay
 * buffer of the CPU the event happened on (``events<N>`` in debugfs).  A
 * session starts with a STREAM_INFO record followed by one METADATA record
 * per registered ring; a ring that first shows up later is described by a
 * METADATA record just before its first event.  Records carry a global
 * sequence number (gseq), strictly increasing over all CPUs, so a reader
 * merges the per-CPU files by gseq, and a per-CPU one (cseq), so a reader
 * can tell a lost record from a filtered one.
 *
 * Every event reaching the probe is either written or counted under
 * exactly one drop cause, so ``written + dropped == offered`` always holds
 * for a stopped session.  Buffers do not overwrite: when a CPU's buffer is
 * full, new events on that CPU are dropped and counted as ``overrun``.
 *
 * The relay buffers are allocated on the first start and kept after stop,
 * so a stopped session can still be read; the next start resets them.
 * Changing ``buffer_size`` (only while stopped) reallocates them.
 */

#define GRTRACE_DEFAULT_BUFFER_SIZE	SZ_4M
#define GRTRACE_MIN_BUFFER_SIZE		SZ_16K
#define GRTRACE_MAX_BUFFER_SIZE		SZ_256M
#define GRTRACE_MAX_SUBBUF_SIZE		SZ_256K
#define GRTRACE_HIST_BUCKETS		24	/* log2 ns: 1 ns .. 8 ms and more */
#define GRTRACE_HIST_EVERY		64	/* latency_hist samples 1 event in 64 */
#define GRTRACE_SEC_SLOTS		16	/* per-second counters kept */
#define GRTRACE_ALL_TYPES		(BIT(GRTRACE_EV_NR) - 1)
#define GRTRACE_ALL_ENGINES		(BIT(GRTRACE_ENGINE_NR) - 1)

enum grtrace_level {
	GRTRACE_LEVEL_OFF,
	GRTRACE_LEVEL_NORMAL,
	GRTRACE_LEVEL_VERBOSE,
};

static const char * const grtrace_level_names[] = {
	[GRTRACE_LEVEL_OFF]	= "off",
	[GRTRACE_LEVEL_NORMAL]	= "normal",
	[GRTRACE_LEVEL_VERBOSE]	= "verbose",
};

static const char * const grtrace_type_names[GRTRACE_EV_NR] = {
	[GRTRACE_EV_SUBMIT]		= "submit",
	[GRTRACE_EV_COMMIT]		= "commit",
	[GRTRACE_EV_START]		= "start",
	[GRTRACE_EV_END]		= "end",
	[GRTRACE_EV_COMPLETE]		= "complete",
	[GRTRACE_EV_CTX_SWITCH]		= "ctx_switch",
	[GRTRACE_EV_IRQ]		= "irq",
	[GRTRACE_EV_SYNC_WAIT_ENTER]	= "sync_wait_enter",
	[GRTRACE_EV_SYNC_WAIT_EXIT]	= "sync_wait_exit",
	[GRTRACE_EV_ERROR]		= "error",
};

static const char * const grtrace_drop_names[GRTRACE_DROP_NR] = {
	[GRTRACE_DROP_FILTERED]	= "filtered",
	[GRTRACE_DROP_OVERRUN]	= "overrun",
	[GRTRACE_DROP_SAMPLED]	= "sampled",
	[GRTRACE_DROP_BACKPRESSURE] = "backpressure",
	[GRTRACE_DROP_RATE_LIMITED] = "rate_limited",
	[GRTRACE_DROP_UNTRACKED] = "untracked",
};

/**
 * struct grtrace_config - what the relay stream records
 * @level: enum grtrace_level; normal leaves out IRQ events
 * @type_mask: event types recorded, bit N for type N
 * @engine_mask: engine classes recorded, bit N for class N
 * @ring_id: the only ring recorded, or -1 for all
 *
 * Written under grtrace_lock, read locklessly by the probe.
 */
struct grtrace_config {
	u32 level;
	u32 type_mask;
	u32 engine_mask;
	s32 ring_id;
};

struct grtrace_sec {
	u64 sec;
	u64 written;
	u64 dropped;
};

/*
 * Per-CPU state of the relay probe.  Only touched by the probe on its own
 * CPU with interrupts disabled, or by IPIs, so it needs no other locking.
 */
struct grtrace_cpu {
	u64 cseq;
	u64 sec_end;		/* ts where the current second slot ends */
	struct grtrace_sec *cur_sec;
	struct grtrace_totals t;
	u64 hist[GRTRACE_HIST_BUCKETS];
	struct grtrace_sec sec[GRTRACE_SEC_SLOTS];
};

static DEFINE_PER_CPU(struct grtrace_cpu, grtrace_cpu);

/* Serialises every state change below. */
static DEFINE_MUTEX(grtrace_lock);

static struct grtrace_config grtrace_cfg = {
	.level		= GRTRACE_LEVEL_NORMAL,
	.type_mask	= GRTRACE_ALL_TYPES,
	.engine_mask	= GRTRACE_ALL_ENGINES,
	.ring_id	= -1,
};

static struct dentry *grtrace_dir;
static struct rchan *grtrace_chan;		/* grtrace_lock */
static size_t grtrace_chan_size;		/* grtrace_lock */
static size_t grtrace_buffer_size = GRTRACE_DEFAULT_BUFFER_SIZE;
static bool grtrace_running;			/* grtrace_lock */
static u64 grtrace_session_id;
static atomic64_t grtrace_gseq;
static DECLARE_BITMAP(grtrace_described, GRTRACE_MAX_RINGS);
/* Readers of the merged stream wait here for data or the end of a session. */
static DECLARE_WAIT_QUEUE_HEAD(grtrace_pipe_wait);

/*
 * A record is filled in place and only then shown to readers, by advancing
 * the buffer offset in grtrace_publish(): a reader of the relay file on
 * another CPU never sees a record half written, as it could after
 * relay_reserve(), which advances the offset first.  Both are called with
 * interrupts disabled, so nothing else writes this CPU's buffer in between.
 *
 * Returns the payload of a record with its header filled in, or NULL when
 * the buffer is full.
 */
static void *grtrace_reserve(struct grtrace_cpu *pc, u16 type, size_t len,
			     u64 ts)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t size = sizeof(struct grtrace_record) + len;
	struct grtrace_record *rec;

	if (unlikely(buf->offset + size > grtrace_chan->subbuf_size) &&
	    !relay_switch_subbuf(buf, size))
		return NULL;

	rec = buf->data + buf->offset;
	rec->type = type;
	rec->size = size;
	rec->cpu = smp_processor_id();
	rec->ts = ts;
	rec->gseq = atomic64_inc_return(&grtrace_gseq);
	rec->cseq = ++pc->cseq;
	return rec + 1;
}

/* Show the record of @len payload bytes grtrace_reserve() returned. */
static void grtrace_publish(size_t len)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);

	/* The record must be complete before the offset that shows it. */
	smp_wmb();
	buf->offset += sizeof(struct grtrace_record) + len;
}

void grtrace_fill_ring_info(struct grtrace_ring_info *ri,
			    const struct grtrace_ring *ring)
{
	memset(ri, 0, sizeof(*ri));
	ri->ring_id = ring->id;
	ri->engine = ring->engine;
	strscpy(ri->dev, ring->dev, sizeof(ri->dev));
	strscpy(ri->name, ring->name, sizeof(ri->name));
}

/*
 * Write a METADATA record for @ring, or for @src when @ring is NULL.
 * Interrupts disabled.
 */
static bool grtrace_describe(struct grtrace_cpu *pc,
			     const struct grtrace_ring *ring,
			     const struct grtrace_ring_info *src, u64 ts)
{
	struct grtrace_ring_info *ri;

	ri = grtrace_reserve(pc, GRTRACE_EV_METADATA, sizeof(*ri), ts);
	if (!ri)
		return false;
	if (ring)
		grtrace_fill_ring_info(ri, ring);
	else
		memcpy(ri, src, sizeof(*ri));
	grtrace_publish(sizeof(*ri));
	return true;
}

static int grtrace_verdict(const struct grtrace_event *ev)
{
	u32 level = READ_ONCE(grtrace_cfg.level);
	s32 ring_id = READ_ONCE(grtrace_cfg.ring_id);

	if (level == GRTRACE_LEVEL_OFF ||
	    (level == GRTRACE_LEVEL_NORMAL && ev->type == GRTRACE_EV_IRQ))
		return GRTRACE_DROP_FILTERED;
	if (!(READ_ONCE(grtrace_cfg.type_mask) & BIT(ev->type)) ||
	    !(READ_ONCE(grtrace_cfg.engine_mask) & BIT(ev->job.engine)) ||
	    (ring_id >= 0 && ring_id != ev->job.ring_id))
		return GRTRACE_DROP_FILTERED;
	return -1;
}

/* Count an event in its second; a division only once a second. */
static void grtrace_account_sec(struct grtrace_cpu *pc, u64 ts, bool written)
{
	struct grtrace_sec *s = pc->cur_sec;

	if (unlikely(!s || ts >= pc->sec_end)) {
		u64 sec = div_u64(ts, NSEC_PER_SEC);

		s = &pc->sec[sec % GRTRACE_SEC_SLOTS];
		if (s->sec != sec) {
			s->sec = sec;
			s->written = 0;
			s->dropped = 0;
		}
		pc->cur_sec = s;
		pc->sec_end = (sec + 1) * NSEC_PER_SEC;
	}
	if (written)
		s->written++;
	else
		s->dropped++;
}

/* Count @n events of @size bytes as dropped for @cause.  Interrupts disabled. */
static void grtrace_account_drop(struct grtrace_cpu *pc, int cause, u64 ts,
				 u32 n)
{
	pc->t.dropped[cause] += n;
	pc->t.bytes_dropped += n * (sizeof(struct grtrace_record) +
				    sizeof(struct grtrace_job_payload));
	while (n--)
		grtrace_account_sec(pc, ts, false);
}

/*
 * Write one job event: describe its ring first if this session has not,
 * then the event.  @ring, or @ri when @ring is NULL, names the ring.
 * Interrupts disabled.  Returns false, counted as overrun, if the buffer
 * was full.
 */
static bool __grtrace_write(struct grtrace_cpu *pc, u16 type, u64 ts,
			    const struct grtrace_job_payload *job,
			    const struct grtrace_ring *ring,
			    const struct grtrace_ring_info *ri)
{
	struct grtrace_job_payload *p;
	u64 cost;

	if (unlikely(!test_bit(job->ring_id, grtrace_described)) &&
	    !test_and_set_bit(job->ring_id, grtrace_described) &&
	    !grtrace_describe(pc, ring, ri, ts))
		clear_bit(job->ring_id, grtrace_described);

	p = grtrace_reserve(pc, type, sizeof(*p), ts);
	if (!p) {
		grtrace_account_drop(pc, GRTRACE_DROP_OVERRUN, ts, 1);
		grtrace_govern_written(type, ts, job, false);
		return false;
	}
	memcpy(p, job, sizeof(*p));
	grtrace_publish(sizeof(*p));

	pc->t.written++;
	pc->t.bytes_written += sizeof(struct grtrace_record) + sizeof(*p);
	pc->t.by_type[type]++;
	grtrace_account_sec(pc, ts, true);
	grtrace_govern_written(type, ts, job, true);
	/* The write cost of one event in GRTRACE_HIST_EVERY: a clock read. */
	if (unlikely(!(pc->t.written % GRTRACE_HIST_EVERY))) {
		cost = ktime_get_mono_fast_ns() - ts;
		pc->hist[min_t(u32, ilog2(cost | 1), GRTRACE_HIST_BUCKETS - 1)]++;
	}
	return true;
}

/**
 * grtrace_write_job - write an event the governance held back
 * @type: enum grtrace_event_type
 * @ts: when the event happened
 * @ri: its ring
 * @job: its payload
 *
 * Context: interrupts disabled, a session running.
 * Returns: false if the buffer was full (counted as overrun).
 */
bool grtrace_write_job(u16 type, u64 ts, const struct grtrace_ring_info *ri,
		       const struct grtrace_job_payload *job)
{
	return __grtrace_write(this_cpu_ptr(&grtrace_cpu), type, ts, job, NULL,
			       ri);
}

/**
 * grtrace_drop_held - count held events as dropped
 * @cause: enum grtrace_drop
 * @ts: when the decision was taken
 * @n: number of events
 *
 * Context: interrupts disabled.
 */
void grtrace_drop_held(int cause, u64 ts, u32 n)
{
	grtrace_account_drop(this_cpu_ptr(&grtrace_cpu), cause, ts, n);
}

/**
 * grtrace_buffer_fill - how full this CPU's relay buffer is
 *
 * Context: interrupts disabled, a session running.
 * Returns: the unread part of the buffer, in percent.
 */
unsigned int grtrace_buffer_fill(void)
{
	struct rchan_buf *buf = *this_cpu_ptr(grtrace_chan->buf);
	size_t sb = grtrace_chan->subbuf_size;
	size_t used;

	used = (buf->subbufs_produced - buf->subbufs_consumed) * sb +
	       buf->offset;
	return min_t(size_t, 100, used * 100 / (sb * grtrace_chan->n_subbufs));
}

/*
 * The relay probe, attached to every grtrace tracepoint while a session
 * runs.  Runs in any context the tracepoints fire in, hard IRQ included.
 */
static void grtrace_probe(void *data, const struct grtrace_event *ev)
{
	struct grtrace_cpu *pc;
	unsigned long flags;
	int drop;
	u64 ts;

	if (WARN_ON_ONCE(ev->type >= GRTRACE_EV_NR ||
			 ev->job.ring_id >= GRTRACE_MAX_RINGS ||
			 ev->job.engine >= GRTRACE_ENGINE_NR))
		return;

	local_irq_save(flags);
	pc = this_cpu_ptr(&grtrace_cpu);
	ts = ktime_get_mono_fast_ns();
	pc->t.offered++;

	drop = grtrace_verdict(ev);
	drop = grtrace_govern(ev, ts, drop);
	if (drop < 0)
		__grtrace_write(pc, ev->type, ts, &ev->job, ev->ring, NULL);
	else if (drop != GRTRACE_HELD)
		grtrace_account_drop(pc, drop, ts, 1);
	local_irq_restore(flags);
}

typedef void (*grtrace_probe_t)(void *data, const struct grtrace_event *ev);

static const struct {
	int (*reg)(grtrace_probe_t probe, void *data);
	int (*unreg)(grtrace_probe_t probe, void *data);
} grtrace_tps[] = {
	{ register_trace_grtrace_submit, unregister_trace_grtrace_submit },
	{ register_trace_grtrace_commit, unregister_trace_grtrace_commit },
	{ register_trace_grtrace_start, unregister_trace_grtrace_start },
	{ register_trace_grtrace_end, unregister_trace_grtrace_end },
	{ register_trace_grtrace_complete, unregister_trace_grtrace_complete },
	{ register_trace_grtrace_ctx_switch, unregister_trace_grtrace_ctx_switch },
	{ register_trace_grtrace_irq, unregister_trace_grtrace_irq },
	{ register_trace_grtrace_sync_wait_enter,
	  unregister_trace_grtrace_sync_wait_enter },
	{ register_trace_grtrace_sync_wait_exit,
	  unregister_trace_grtrace_sync_wait_exit },
	{ register_trace_grtrace_error, unregister_trace_grtrace_error },
};

static void grtrace_unregister_probes(int n)
{
	while (n--)
		grtrace_tps[n].unreg(grtrace_probe, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

static int grtrace_register_probes(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(grtrace_tps); i++) {
		ret = grtrace_tps[i].reg(grtrace_probe, NULL);
		if (ret) {
			grtrace_unregister_probes(i);
			return ret;
		}
	}
	return 0;
}

static struct dentry *grtrace_create_buf_file(const char *filename,
					      struct dentry *parent,
					      umode_t mode,
					      struct rchan_buf *buf,
					      int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int grtrace_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks grtrace_relay_callbacks = {
	.create_buf_file	= grtrace_create_buf_file,
	.remove_buf_file	= grtrace_remove_buf_file,
};

static int grtrace_open_chan(void)
{
	size_t subbuf, n;

	lockdep_assert_held(&grtrace_lock);

	if (grtrace_chan && grtrace_chan_size == grtrace_buffer_size) {
		relay_reset(grtrace_chan);
		return 0;
	}
	if (grtrace_chan) {
		relay_close(grtrace_chan);
		grtrace_chan = NULL;
	}

	subbuf = clamp_t(size_t, rounddown_pow_of_two(grtrace_buffer_size / 16),
			 PAGE_SIZE, GRTRACE_MAX_SUBBUF_SIZE);
	n = grtrace_buffer_size / subbuf;
	grtrace_chan = relay_open("events", grtrace_dir, subbuf, n,
				  &grtrace_relay_callbacks, NULL);
	if (!grtrace_chan)
		return -ENOMEM;
	grtrace_chan_size = grtrace_buffer_size;
	return 0;
}

static int grtrace_count_ring(const struct grtrace_ring *ring, void *data)
{
	(*(u32 *)data)++;
	return 0;
}

static int grtrace_describe_ring(const struct grtrace_ring *ring, void *data)
{
	unsigned long flags;

	local_irq_save(flags);
	if (grtrace_describe(this_cpu_ptr(&grtrace_cpu), ring, NULL,
			     ktime_get_mono_fast_ns()))
		set_bit(ring->id, grtrace_described);
	local_irq_restore(flags);
	return 0;
}

/* Write STREAM_INFO and the METADATA of every registered ring. */
static int grtrace_write_header(void)
{
	struct grtrace_stream_info *si;
	unsigned long flags;
	u32 nr_rings = 0;

	grtrace_walk_rings(grtrace_count_ring, &nr_rings);

	local_irq_save(flags);
	si = grtrace_reserve(this_cpu_ptr(&grtrace_cpu), GRTRACE_EV_STREAM_INFO,
			     sizeof(*si), ktime_get_mono_fast_ns());
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
		si->nr_cpus = num_possible_cpus();
		si->nr_rings = nr_rings;
		si->buffer_size = grtrace_chan_size;
		grtrace_publish(sizeof(*si));
	}
	local_irq_restore(flags);
	if (!si)
		return -ENOSPC;

	return grtrace_walk_rings(grtrace_describe_ring, NULL);
}

static void grtrace_reset_cpu_seq(void *unused)
{
	this_cpu_write(grtrace_cpu.cseq, 0);
}

/**
 * grtrace_session_start - start recording the relay stream
 *
 * Context: process context, takes grtrace_lock.
 * Returns: 0, -EINVAL if a session already runs, -ENOMEM.
 */
VISIBLE_IF_KUNIT int grtrace_session_start(void)
{
	int ret;

	guard(mutex)(&grtrace_lock);
	if (grtrace_running)
		return -EINVAL;

	ret = grtrace_open_chan();
	if (ret)
		return ret;

	on_each_cpu(grtrace_reset_cpu_seq, NULL, 1);
	atomic64_set(&grtrace_gseq, 0);
	bitmap_zero(grtrace_described, GRTRACE_MAX_RINGS);
	grtrace_session_id = get_random_u64();

	ret = grtrace_write_header();
	if (ret)
		return ret;
	grtrace_govern_start();
	ret = grtrace_register_probes();
	if (ret)
		return ret;

	grtrace_running = true;
	pr_debug("session %016llx started\n", grtrace_session_id);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_start);

/**
 * grtrace_session_stop - stop recording; the buffers stay readable
 *
 * Context: process context, takes grtrace_lock.
 * Returns: 0, or -EINVAL if no session runs.
 */
VISIBLE_IF_KUNIT int grtrace_session_stop(void)
{
	guard(mutex)(&grtrace_lock);
	if (!grtrace_running)
		return -EINVAL;

	grtrace_unregister_probes(ARRAY_SIZE(grtrace_tps));
	/* Decide on the events still held back, now that none can come. */
	grtrace_govern_stop();
	relay_flush(grtrace_chan);
	grtrace_running = false;
	wake_up_all(&grtrace_pipe_wait);
	pr_debug("session %016llx stopped\n", grtrace_session_id);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_stop);

VISIBLE_IF_KUNIT bool grtrace_session_running(void)
{
	return READ_ONCE(grtrace_running);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_running);

/**
 * grtrace_set_buffer_size - set the per-CPU relay buffer size
 * @size: bytes, a multiple of PAGE_SIZE within 16 KiB .. 256 MiB
 *
 * Takes effect at the next start.
 *
 * Returns: 0, -EINVAL for a bad size, -EBUSY while a session runs.
 */
VISIBLE_IF_KUNIT int grtrace_set_buffer_size(size_t size)
{
	if (size < GRTRACE_MIN_BUFFER_SIZE || size > GRTRACE_MAX_BUFFER_SIZE ||
	    !PAGE_ALIGNED(size))
		return -EINVAL;

	guard(mutex)(&grtrace_lock);
	if (grtrace_running)
		return -EBUSY;
	grtrace_buffer_size = size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_set_buffer_size);

VISIBLE_IF_KUNIT size_t grtrace_get_buffer_size(void)
{
	return READ_ONCE(grtrace_buffer_size);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_get_buffer_size);

/**
 * grtrace_get_totals - sum the per-CPU counters
 * @t: filled in
 *
 * Exact once the session is stopped; a snapshot while it runs.
 */
void grtrace_get_totals(struct grtrace_totals *t)
{
	int cpu, i;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		const struct grtrace_totals *c = &per_cpu(grtrace_cpu, cpu).t;

		t->offered += c->offered;
		t->written += c->written;
		t->bytes_written += c->bytes_written;
		t->bytes_dropped += c->bytes_dropped;
		for (i = 0; i < GRTRACE_DROP_NR; i++)
			t->dropped[i] += c->dropped[i];
		for (i = 0; i < GRTRACE_EV_NR; i++)
			t->by_type[i] += c->by_type[i];
	}
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_get_totals);

static void grtrace_reset_cpu_stats(void *unused)
{
	struct grtrace_cpu *pc = this_cpu_ptr(&grtrace_cpu);

	memset(&pc->t, 0, sizeof(pc->t));
	memset(pc->hist, 0, sizeof(pc->hist));
	memset(pc->sec, 0, sizeof(pc->sec));
	pc->cur_sec = NULL;
}

/**
 * grtrace_reset_stats - zero all counters
 *
 * Each CPU is reset from an IPI, so it is atomic with respect to the probe
 * on that CPU: no event is half counted.
 */
VISIBLE_IF_KUNIT void grtrace_reset_stats(void)
{
	on_each_cpu(grtrace_reset_cpu_stats, NULL, 1);
	grtrace_govern_reset();
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_reset_stats);

/**
 * grtrace_walk_records - walk the records in the relay buffers
 * @fn: called for every record, CPU by CPU, in buffer order; a non-zero
 *      return stops the walk
 * @data: passed to @fn
 *
 * For tests: only valid on a stopped session whose buffers were not read
 * from user space.
 *
 * Returns: the first non-zero value of @fn, -EINVAL on a malformed record,
 * -ENODEV without buffers, or 0.
 */
VISIBLE_IF_KUNIT int grtrace_walk_records(grtrace_record_fn fn, void *data)
{
	int cpu, ret = 0;

	guard(mutex)(&grtrace_lock);
	if (!grtrace_chan || grtrace_running)
		return -ENODEV;

	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);
		size_t i, sb = grtrace_chan->subbuf_size;
		size_t last;

		if (!buf)
			continue;
		last = min(buf->subbufs_produced, grtrace_chan->n_subbufs - 1);
		for (i = 0; i <= last; i++) {
			size_t len = i < buf->subbufs_produced ?
				     sb - buf->padding[i] : buf->offset;
			const char *p = buf->start + i * sb;
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

/* ---- config ---- */

static int grtrace_parse_level(const char *val, u32 *level)
{
	unsigned int n;
	int i;

	i = sysfs_match_string(grtrace_level_names, val);
	if (i >= 0) {
		*level = i;
		return 0;
	}
	/* The numeric levels 0-3 of the original design; 2 and 3 are verbose. */
	if (kstrtouint(val, 0, &n) || n > 3)
		return -EINVAL;
	*level = min_t(u32, n, GRTRACE_LEVEL_VERBOSE);
	return 0;
}

/* A mask of the bits in @all; U32_MAX means all of them. */
int grtrace_parse_mask(const char *val, u32 all, u32 *mask)
{
	u32 m;

	if (kstrtou32(val, 0, &m) || (m & ~all && m != U32_MAX))
		return -EINVAL;
	*mask = m & all;
	return 0;
}

static int grtrace_parse_ring(const char *val, s32 *ring_id)
{
	s32 id;

	if (!strcmp(val, "any") || !strcmp(val, "all")) {
		*ring_id = -1;
		return 0;
	}
	if (kstrtos32(val, 0, &id) || id < -1 || id >= GRTRACE_MAX_RINGS)
		return -EINVAL;
	*ring_id = id;
	return 0;
}

/* Apply one "key=value" to @cfg; set *@reset for reset_stats=1. */
static int grtrace_config_key(struct grtrace_config *cfg, void *gov,
			      char *line, bool *reset)
{
	char *val = strchr(line, '=');
	bool b;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	line = strim(line);
	val = strim(val);

	if (!strcmp(line, "level"))
		return grtrace_parse_level(val, &cfg->level);
	if (!strcmp(line, "filter_type_mask"))
		return grtrace_parse_mask(val, GRTRACE_ALL_TYPES, &cfg->type_mask);
	if (!strcmp(line, "filter_engine_mask"))
		return grtrace_parse_mask(val, GRTRACE_ALL_ENGINES,
					  &cfg->engine_mask);
	if (!strcmp(line, "filter_ring_id"))
		return grtrace_parse_ring(val, &cfg->ring_id);
	if (!strcmp(line, "reset_stats")) {
		if (kstrtobool(val, &b) || !b)
			return -EINVAL;
		*reset = true;
		return 0;
	}
	return grtrace_govern_key(gov, line, val);
}

/**
 * grtrace_config_write - apply "key=value" lines
 * @buf: NUL terminated lines; blank lines are ignored
 *
 * All lines are checked before any is applied.
 *
 * Returns: 0, or -EINVAL if any line has an unknown key or a bad value, in
 * which case nothing changed.
 */
int grtrace_config_write(const char *buf)
{
	struct grtrace_config cfg;
	char *copy, *cur, *line;
	bool reset = false;
	void *gov;
	int ret = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;

	mutex_lock(&grtrace_lock);
	gov = grtrace_govern_cfg_dup();
	if (!gov) {
		ret = -ENOMEM;
		goto out;
	}
	cfg = grtrace_cfg;
	cur = copy;
	while ((line = strsep(&cur, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		ret = grtrace_config_key(&cfg, gov, line, &reset);
		if (ret)
			break;
	}
	if (!ret) {
		/* Consumes @gov. */
		ret = grtrace_govern_cfg_commit(gov);
		gov = NULL;
	}
	if (!ret) {
		WRITE_ONCE(grtrace_cfg.level, cfg.level);
		WRITE_ONCE(grtrace_cfg.type_mask, cfg.type_mask);
		WRITE_ONCE(grtrace_cfg.engine_mask, cfg.engine_mask);
		WRITE_ONCE(grtrace_cfg.ring_id, cfg.ring_id);
	}
	kfree(gov);
out:
	mutex_unlock(&grtrace_lock);
	kfree(copy);

	if (!ret && reset)
		grtrace_reset_stats();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_config_write);

static int grtrace_config_show(struct seq_file *m, void *v)
{
	struct grtrace_config cfg;

	mutex_lock(&grtrace_lock);
	cfg = grtrace_cfg;
	mutex_unlock(&grtrace_lock);

	seq_printf(m, "level=%s\n", grtrace_level_names[cfg.level]);
	seq_printf(m, "filter_type_mask=0x%x\n", cfg.type_mask);
	seq_printf(m, "filter_engine_mask=0x%x\n", cfg.engine_mask);
	seq_printf(m, "filter_ring_id=%d\n", cfg.ring_id);
	grtrace_govern_cfg_show(m);
	seq_puts(m, "reset_stats=0\n");
	return 0;
}

/* ---- emit ---- */

struct grtrace_emit {
	u16 type;
	u16 engine;
	u32 ring;
	u64 ctx;
	u64 seqno;
	struct grtrace_ring tmp;
	char name[16];
};

static int grtrace_emit_on_ring(const struct grtrace_ring *ring, void *data)
{
	struct grtrace_emit *e = data;

	if (ring->id != e->ring)
		return 0;
	e->tmp.dev = ring->dev;
	e->tmp.name = ring->name;
	return 1;
}

static void grtrace_emit_fire(struct grtrace_emit *e)
{
	struct grtrace_job job = {
		.ring		= &e->tmp,
		.ctx_id		= e->ctx,
		.fence_context	= e->ctx,
		.fence_seqno	= e->seqno,
	};

	switch (e->type) {
	case GRTRACE_EV_SUBMIT:
		job.depth = 1;
		grtrace_submit(&job);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&job);
		break;
	case GRTRACE_EV_START:
		grtrace_start(&job);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&job);
		break;
	case GRTRACE_EV_COMPLETE:
		grtrace_complete(&job);
		break;
	case GRTRACE_EV_CTX_SWITCH:
		job.aux_context = e->seqno;
		grtrace_ctx_switch(&job);
		break;
	case GRTRACE_EV_IRQ:
		grtrace_irq(&job);
		break;
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		grtrace_sync_wait_enter(&job);
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		grtrace_sync_wait_exit(&job);
		break;
	case GRTRACE_EV_ERROR:
		job.status = GRTRACE_ERROR_OTHER;
		grtrace_error(&job);
		break;
	}
}

static int grtrace_emit_parse(char *line, struct grtrace_emit *e)
{
	char *arg[6];
	int n = 0, i;

	while (n < ARRAY_SIZE(arg) && (arg[n] = strsep(&line, " \t"))) {
		if (*arg[n])
			n++;
	}
	if (n && !strcmp(arg[0], "emit")) {
		for (i = 1; i < n; i++)
			arg[i - 1] = arg[i];
		n--;
	}
	if (n != 5 || (line && *skip_spaces(line)))
		return -EINVAL;

	i = match_string(grtrace_type_names, GRTRACE_EV_NR, arg[0]);
	if (i < 0)
		return -EINVAL;
	e->type = i;
	if (kstrtou64(arg[1], 0, &e->ctx) || kstrtou16(arg[2], 0, &e->engine) ||
	    kstrtou32(arg[3], 0, &e->ring) || kstrtou64(arg[4], 0, &e->seqno) ||
	    e->engine >= GRTRACE_ENGINE_NR || e->ring >= GRTRACE_MAX_RINGS)
		return -EINVAL;

	snprintf(e->name, sizeof(e->name), "emit%u", e->ring);
	e->tmp = (struct grtrace_ring) {
		.dev = "emit", .name = e->name, .engine = e->engine,
		.id = e->ring,
	};
	return 0;
}

/**
 * grtrace_emit_line - inject events, as a driver would report them
 * @buf: lines of "[emit] <type> <ctx> <engine> <ring> <seqno>"
 *
 * The events take exactly the path of driver events: the exported
 * grtrace_<type>() functions, the tracepoints, and the relay probe with all
 * its governance.  A ring id of a registered ring takes that ring's names.
 * All lines are checked before any event is fired.
 *
 * Returns: number of events, or -EINVAL for a malformed line (nothing
 * fired), or -ENOMEM.
 */
VISIBLE_IF_KUNIT int grtrace_emit_line(const char *buf)
{
	struct grtrace_emit *ev;
	char *copy, *cur, *line;
	int n = 0, i, ret = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	for (cur = copy; *cur; cur++)
		n += *cur == '\n';
	ev = kcalloc(n + 1, sizeof(*ev), GFP_KERNEL);
	if (!ev) {
		kfree(copy);
		return -ENOMEM;
	}

	n = 0;
	cur = copy;
	while ((line = strsep(&cur, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		ret = grtrace_emit_parse(line, &ev[n]);
		if (ret)
			goto out;
		n++;
	}

	for (i = 0; i < n; i++) {
		grtrace_walk_rings(grtrace_emit_on_ring, &ev[i]);
		grtrace_emit_fire(&ev[i]);
	}
	ret = n ? n : -EINVAL;
out:
	kfree(ev);
	kfree(copy);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_emit_line);

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

struct grtrace_pipe_pos {
	size_t sb;	/* sub-buffers consumed */
	size_t off;	/* bytes read of the next one */
};

struct grtrace_pipe {
	struct rchan *chan;
	u64 session_id;
	u64 next_gseq;
	struct grtrace_pipe_pos pos[];
};

static atomic_t grtrace_pipe_busy = ATOMIC_INIT(0);

static void grtrace_pipe_attach(struct grtrace_pipe *p)
{
	int cpu;

	p->chan = grtrace_chan;
	p->session_id = grtrace_session_id;
	p->next_gseq = 0;
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);

		p->pos[cpu].sb = buf ? buf->subbufs_consumed : 0;
		p->pos[cpu].off = buf ? buf->bytes_consumed : 0;
	}
}

/* The next complete record of @cpu, or NULL.  grtrace_lock held. */
static const struct grtrace_record *grtrace_pipe_head(struct grtrace_pipe *p,
						      int cpu)
{
	struct rchan_buf *buf = *per_cpu_ptr(p->chan->buf, cpu);
	struct grtrace_pipe_pos *pos = &p->pos[cpu];
	size_t sbsize = p->chan->subbuf_size, produced, len;
	const struct grtrace_record *rec;

	if (!buf)
		return NULL;
	for (;;) {
		produced = READ_ONCE(buf->subbufs_produced);
		/* The padding of a produced sub-buffer is set before the count. */
		smp_rmb();
		if (pos->sb < produced) {
			len = sbsize - buf->padding[pos->sb % p->chan->n_subbufs];
		} else {
			len = READ_ONCE(buf->offset);
			if (len > sbsize)	/* buffer full */
				len = 0;
		}
		/* Pairs with the smp_wmb() of grtrace_publish(). */
		smp_rmb();
		if (pos->off + sizeof(*rec) <= len) {
			rec = buf->start + (pos->sb % p->chan->n_subbufs) *
			      sbsize + pos->off;
			if (rec->size >= sizeof(*rec) &&
			    pos->off + rec->size <= len)
				return rec;
			return NULL;
		}
		if (pos->sb >= produced)
			return NULL;
		/* This sub-buffer is read: give it back to the writer. */
		pos->sb++;
		pos->off = 0;
		relay_subbufs_consumed(p->chan, cpu, 1);
	}
}

/*
 * Copy records to @ubuf in gseq order.  A record whose predecessor is not
 * published yet is left for later while the session runs.
 */
static ssize_t grtrace_pipe_copy(struct grtrace_pipe *p, char __user *ubuf,
				 size_t count, bool running)
{
	const struct grtrace_record *rec, *best;
	ssize_t done = 0;
	int cpu, bcpu;

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
		if (!best || (running && p->next_gseq &&
			      best->gseq != p->next_gseq))
			break;
		if (best->size > count - done)
			return done ? done : -EINVAL;
		if (copy_to_user(ubuf + done, best, best->size))
			return done ? done : -EFAULT;
		done += best->size;
		p->next_gseq = best->gseq + 1;
		p->pos[bcpu].off += best->size;
	}
	return done;
}

static ssize_t grtrace_pipe_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct grtrace_pipe *p = file->private_data;
	ssize_t ret;
	bool running;

	for (;;) {
		mutex_lock(&grtrace_lock);
		running = grtrace_running;
		if (!grtrace_chan) {
			ret = 0;
		} else {
			if (p->chan != grtrace_chan ||
			    p->session_id != grtrace_session_id)
				grtrace_pipe_attach(p);
			ret = grtrace_pipe_copy(p, ubuf, count, running);
		}
		mutex_unlock(&grtrace_lock);
		if (ret || !running)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible_timeout(grtrace_pipe_wait,
						     !grtrace_session_running(),
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
	if (!p) {
		atomic_set(&grtrace_pipe_busy, 0);
		return -ENOMEM;
	}
	file->private_data = p;
	return nonseekable_open(inode, file);
}

static int grtrace_pipe_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	atomic_set(&grtrace_pipe_busy, 0);
	return 0;
}

static const struct file_operations grtrace_pipe_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_pipe_open,
	.read		= grtrace_pipe_read,
	.release	= grtrace_pipe_release,
};

/* ---- debugfs ---- */

static char *grtrace_user_line(const char __user *ubuf, size_t count)
{
	if (!count || count > SZ_64K)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, count);
}

static ssize_t grtrace_control_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sysfs_streq(buf, "start"))
		ret = grtrace_session_start();
	else if (sysfs_streq(buf, "stop"))
		ret = grtrace_session_stop();
	else
		ret = -EINVAL;
	kfree(buf);
	return ret ? ret : count;
}

static int grtrace_control_show(struct seq_file *m, void *v)
{
	seq_puts(m, grtrace_session_running() ? "running\n" : "stopped\n");
	return 0;
}

static ssize_t grtrace_enabled_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	if (on == grtrace_session_running())
		return count;
	ret = on ? grtrace_session_start() : grtrace_session_stop();
	return ret ? ret : count;
}

static int grtrace_enabled_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", grtrace_session_running());
	return 0;
}

static int grtrace_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "format_version=%d\n", GRTRACE_FORMAT_VERSION);
	return 0;
}

static ssize_t grtrace_config_fwrite(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = grtrace_config_write(buf);
	kfree(buf);
	return ret ? ret : count;
}

static ssize_t grtrace_level_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	char *line;
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	line = kasprintf(GFP_KERNEL, "level=%s", strim(buf));
	kfree(buf);
	if (!line)
		return -ENOMEM;
	ret = strchr(line, '\n') ? -EINVAL : grtrace_config_write(line);
	kfree(line);
	return ret ? ret : count;
}

static int grtrace_level_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n",
		   grtrace_level_names[READ_ONCE(grtrace_cfg.level)]);
	return 0;
}

static ssize_t grtrace_buffer_size_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	unsigned long size;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &size);
	if (ret)
		return ret;
	ret = grtrace_set_buffer_size(size);
	return ret ? ret : count;
}

static int grtrace_buffer_size_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%zu\n", grtrace_get_buffer_size());
	return 0;
}

static ssize_t grtrace_emit_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = grtrace_emit_line(buf);
	kfree(buf);
	return ret < 0 ? ret : count;
}

static int grtrace_stats_show(struct seq_file *m, void *v)
{
	struct grtrace_totals t;
	u64 dropped = 0, consumed = 0;
	int cpu, i;

	grtrace_get_totals(&t);
	for (i = 0; i < GRTRACE_DROP_NR; i++)
		dropped += t.dropped[i];

	mutex_lock(&grtrace_lock);
	if (grtrace_chan) {
		for_each_possible_cpu(cpu) {
			struct rchan_buf *buf = *per_cpu_ptr(grtrace_chan->buf, cpu);

			if (buf)
				consumed += buf->subbufs_consumed;
		}
	}
	mutex_unlock(&grtrace_lock);

	seq_printf(m, "enabled=%d\n", grtrace_session_running());
	seq_printf(m, "session_id=%016llx\n", grtrace_session_id);
	seq_printf(m, "offered=%llu\n", t.offered);
	seq_printf(m, "written=%llu\n", t.written);
	seq_printf(m, "dropped=%llu\n", dropped);
	seq_printf(m, "held=%llu\n", grtrace_govern_held());
	for (i = 0; i < GRTRACE_DROP_NR; i++)
		seq_printf(m, "dropped_%s=%llu\n", grtrace_drop_names[i],
			   t.dropped[i]);
	seq_printf(m, "bytes_written=%llu\n", t.bytes_written);
	seq_printf(m, "bytes_dropped=%llu\n", t.bytes_dropped);
	seq_printf(m, "subbufs_consumed=%llu\n", consumed);
	grtrace_govern_stats_show(m);
	return 0;
}

static int grtrace_events_by_type_show(struct seq_file *m, void *v)
{
	struct grtrace_totals t;
	int i;

	grtrace_get_totals(&t);
	for (i = 0; i < GRTRACE_EV_NR; i++)
		seq_printf(m, "%s=%llu\n", grtrace_type_names[i], t.by_type[i]);
	return 0;
}

static const char * const grtrace_engine_names[GRTRACE_ENGINE_NR] = {
	[GRTRACE_ENGINE_GRAPHICS]	= "graphics",
	[GRTRACE_ENGINE_COMPUTE]	= "compute",
	[GRTRACE_ENGINE_COPY]		= "copy",
	[GRTRACE_ENGINE_VIDEO_DECODE]	= "video_decode",
	[GRTRACE_ENGINE_VIDEO_ENCODE]	= "video_encode",
	[GRTRACE_ENGINE_OTHER]		= "other",
};

static int grtrace_show_ring(const struct grtrace_ring *ring, void *data)
{
	seq_printf(data, "%u %s %s %s\n", ring->id,
		   grtrace_engine_names[ring->engine], ring->dev, ring->name);
	return 0;
}

static int grtrace_rings_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# id engine dev ring\n");
	return grtrace_walk_rings(grtrace_show_ring, m);
}

static int grtrace_sec_stats_show(struct seq_file *m, void *v)
{
	u64 now = div_u64(ktime_get_mono_fast_ns(), NSEC_PER_SEC);
	u64 s;
	int cpu;

	seq_puts(m, "# second written dropped\n");
	for (s = now - min_t(u64, now, GRTRACE_SEC_SLOTS - 1); s <= now; s++) {
		u64 w = 0, d = 0;

		for_each_possible_cpu(cpu) {
			const struct grtrace_sec *sl =
				&per_cpu(grtrace_cpu, cpu).sec[s % GRTRACE_SEC_SLOTS];

			if (READ_ONCE(sl->sec) == s) {
				w += READ_ONCE(sl->written);
				d += READ_ONCE(sl->dropped);
			}
		}
		seq_printf(m, "%llu %llu %llu\n", s, w, d);
	}
	return 0;
}

static int grtrace_latency_hist_show(struct seq_file *m, void *v)
{
	int cpu, i;

	seq_puts(m, "# write cost, ns: [from, to) count\n");
	for (i = 0; i < GRTRACE_HIST_BUCKETS; i++) {
		u64 n = 0;

		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu(grtrace_cpu, cpu).hist[i]);
		seq_printf(m, "%llu %llu %llu\n", i ? 1ULL << i : 0,
			   2ULL << i, n);
	}
	return 0;
}

GRTRACE_FILE(control, grtrace_control_write);
GRTRACE_FILE(enabled, grtrace_enabled_write);
GRTRACE_FILE(config, grtrace_config_fwrite);
GRTRACE_FILE(level, grtrace_level_write);
GRTRACE_FILE(buffer_size, grtrace_buffer_size_write);
GRTRACE_FILE(version, NULL);
GRTRACE_FILE(stats, NULL);
GRTRACE_FILE(events_by_type, NULL);
GRTRACE_FILE(rings, NULL);
GRTRACE_FILE(sec_stats, NULL);
GRTRACE_FILE(latency_hist, NULL);

static const struct file_operations grtrace_emit_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= grtrace_emit_write,
	.llseek	= noop_llseek,
};

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} grtrace_files[] = {
	{ "control",		0600, &grtrace_control_fops },
	{ "enabled",		0600, &grtrace_enabled_fops },
	{ "enable",		0600, &grtrace_enabled_fops },
	{ "version",		0400, &grtrace_version_fops },
	{ "config",		0600, &grtrace_config_fops },
	{ "level",		0600, &grtrace_level_fops },
	{ "buffer_size",	0600, &grtrace_buffer_size_fops },
	{ "emit",		0200, &grtrace_emit_fops },
	{ "stats",		0400, &grtrace_stats_fops },
	{ "events_by_type",	0400, &grtrace_events_by_type_fops },
	{ "rings",		0400, &grtrace_rings_fops },
	{ "sec_stats",		0400, &grtrace_sec_stats_fops },
	{ "latency_hist",	0400, &grtrace_latency_hist_fops },
	{ "events",		0400, &grtrace_pipe_fops },
	{ "trace_pipe",		0400, &grtrace_pipe_fops },
};

static int __init grtrace_init(void)
{
	int i, ret;

	grtrace_dir = debugfs_create_dir("grtrace", NULL);
	if (IS_ERR(grtrace_dir))
		return PTR_ERR(grtrace_dir);

	for (i = 0; i < ARRAY_SIZE(grtrace_files); i++)
		debugfs_create_file(grtrace_files[i].name, grtrace_files[i].mode,
				    grtrace_dir, NULL, grtrace_files[i].fops);
	ret = grtrace_govern_init(grtrace_dir);
	if (ret)
		debugfs_remove_recursive(grtrace_dir);
	return ret;
}

static void __exit grtrace_exit(void)
{
	if (grtrace_running)
		grtrace_session_stop();
	/* relay_close() removes the events<N> files: before their directory. */
	if (grtrace_chan)
		relay_close(grtrace_chan);
	debugfs_remove_recursive(grtrace_dir);
	grtrace_govern_exit();
}

module_init(grtrace_init);
module_exit(grtrace_exit);

MODULE_DESCRIPTION("GPU ring trace: relay stream and control of GPU job events");
MODULE_LICENSE("GPL");

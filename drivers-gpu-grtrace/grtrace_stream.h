/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace stream layer: the relay stream of grtrace_stream.c.  The lowest
 * layer of the grtrace module, on the ring registry of grtrace_events.h: it
 * calls nothing above it.
 */
#ifndef _GRTRACE_STREAM_H
#define _GRTRACE_STREAM_H

#include <linux/fs.h>
#include <linux/grtrace.h>
#include <linux/types.h>

#include "grtrace_events.h"

struct dentry;

#define GRTRACE_HIST_BUCKETS	24	/* log2 ns: 1 ns .. 8 ms and more */
#define GRTRACE_SEC_SLOTS	16	/* per-second counters kept */

typedef int (*grtrace_record_fn)(const struct grtrace_record *rec, void *data);

/**
 * enum grtrace_drop - why the relay stream did not record an event
 * @GRTRACE_DROP_FILTERED: rejected by level, type, engine or ring filters,
 *	the watchlist or the filter_* keys
 * @GRTRACE_DROP_OVERRUN: the CPU's relay buffer was full
 * @GRTRACE_DROP_SAMPLED: its job was not sampled
 * @GRTRACE_DROP_BACKPRESSURE: its job was sampled at the configured rate
 *	but not at the rate adaptive sampling lowered it to
 * @GRTRACE_DROP_RATE_LIMITED: over max_events_per_sec
 * @GRTRACE_DROP_UNTRACKED: a decision needed its job's earlier events and
 *	the job table was full
 * @GRTRACE_DROP_AGGREGATED: aggregate_only: counted in a SUMMARY record
 * @GRTRACE_DROP_FROZEN: the flight recorder was frozen
 * @GRTRACE_DROP_NR: number of causes
 */
enum grtrace_drop {
	GRTRACE_DROP_FILTERED,
	GRTRACE_DROP_OVERRUN,
	GRTRACE_DROP_SAMPLED,
	GRTRACE_DROP_BACKPRESSURE,
	GRTRACE_DROP_RATE_LIMITED,
	GRTRACE_DROP_UNTRACKED,
	GRTRACE_DROP_AGGREGATED,
	GRTRACE_DROP_FROZEN,
	GRTRACE_DROP_NR,
};

/**
 * enum grtrace_freeze_cause - what froze the flight recorder
 * @GRTRACE_FROZEN_NONE: nothing (yet)
 * @GRTRACE_FROZEN_ERROR: an ERROR record
 * @GRTRACE_FROZEN_CONTROL: ``freeze`` written to ``control``
 */
enum grtrace_freeze_cause {
	GRTRACE_FROZEN_NONE,
	GRTRACE_FROZEN_ERROR,
	GRTRACE_FROZEN_CONTROL,
};

/**
 * struct grtrace_flight - the state of a flight recorder
 * @on: the session is a flight recorder
 * @frozen: it froze
 * @by: what froze it
 * @gseq: its last record, the ERROR's for an error
 */
struct grtrace_flight {
	bool on;
	bool frozen;
	enum grtrace_freeze_cause by;
	u64 gseq;
};

/**
 * struct grtrace_totals - counters of the relay stream, summed over CPUs
 * @offered: events that reached the relay probe
 * @written: events written to the relay buffers
 * @dropped: events not written, by cause
 * @bytes_written: bytes of the written events
 * @bytes_dropped: bytes the dropped events would have taken
 * @by_type: written events by enum grtrace_event_type
 * @summaries: SUMMARY records written (not events: not in @offered)
 * @summaries_lost: SUMMARY records the full buffer had no room for
 */
struct grtrace_totals {
	u64 offered;
	u64 written;
	u64 dropped[GRTRACE_DROP_NR];
	u64 bytes_written;
	u64 bytes_dropped;
	u64 by_type[GRTRACE_EV_NR];
	u64 summaries;
	u64 summaries_lost;
};

int grtrace_stream_init(struct dentry *dir);
void grtrace_stream_exit(void);

int grtrace_stream_start(bool flight_recorder);
void grtrace_stream_stop(void);
int grtrace_stream_freeze(void);
void grtrace_stream_flight(struct grtrace_flight *f);
bool grtrace_stream_live(void);
u64 grtrace_stream_session_id(void);
int grtrace_set_buffer_size(size_t size);
size_t grtrace_get_buffer_size(void);

u64 grtrace_stream_offer(void);
bool grtrace_stream_write(u16 type, u64 ts,
			  const struct grtrace_job_payload *job,
			  const struct grtrace_ring *ring,
			  const struct grtrace_ring_info *ring_info);
void grtrace_stream_drop(enum grtrace_drop cause, u64 ts, u32 n);
bool grtrace_stream_summary(const struct grtrace_summary *s,
			    const struct grtrace_ring_info *ring_info, u64 ts);
void grtrace_stream_ring_removed(const struct grtrace_ring *ring, u32 id);
void grtrace_fill_ring_info(struct grtrace_ring_info *ring_info,
			    const struct grtrace_ring *ring, u32 id);
unsigned int grtrace_buffer_fill(void);

void grtrace_get_totals(struct grtrace_totals *t);
void grtrace_stream_reset_stats(void);
void grtrace_stream_sec_counts(u64 sec, u64 *written, u64 *dropped);
void grtrace_stream_latency_hist(u64 hist[GRTRACE_HIST_BUCKETS]);
u64 grtrace_stream_bytes_read(void);
#if IS_ENABLED(CONFIG_KUNIT)
int grtrace_walk_records(grtrace_record_fn fn, void *data);
#endif

/* The events of @t dropped, for any cause. */
static inline u64 grtrace_totals_dropped(const struct grtrace_totals *t)
{
	u64 n = 0;
	int i;

	for (i = 0; i < GRTRACE_DROP_NR; i++)
		n += t->dropped[i];
	return n;
}

extern const struct file_operations grtrace_stream_pipe_fops;

#endif /* _GRTRACE_STREAM_H */

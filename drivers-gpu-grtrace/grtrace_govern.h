/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace governance layer: which events the relay stream keeps, the job
 * table and the aggregates.  Calls the stream layer below it, never the
 * core or the debugfs layers above it.
 */
#ifndef _GRTRACE_GOVERN_H
#define _GRTRACE_GOVERN_H

#include <linux/bitmap.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "grtrace_stream.h"

struct seq_file;

/* grtrace_govern(): the event is held until its job completes. */
#define GRTRACE_HELD	GRTRACE_DROP_NR

#define GRTRACE_WATCH_CTX	16
#define GRTRACE_WATCH_RINGS	64
#define GRTRACE_WATCH_NAMES	8
/* Of a device's and a ring's name in the watchlist, with the NUL */
#define GRTRACE_RING_NAME_MAX	64
/* Rings with aggregates at a time: see grtrace_aggr_slot(). */
#define GRTRACE_RING_SLOTS	256
#define GRTRACE_FILTER_PIDS	16

/**
 * enum grtrace_sampling_mode - values of sampling_mode
 * @GRTRACE_SAMPLING_STATIC: keep sampling_rate percent of the jobs
 * @GRTRACE_SAMPLING_ADAPTIVE: lower that rate as the buffer fills
 * @GRTRACE_SAMPLING_THRESHOLD: keep the jobs slower than sampling_threshold
 * @GRTRACE_SAMPLING_NR: number of modes
 */
enum grtrace_sampling_mode {
	GRTRACE_SAMPLING_STATIC,
	GRTRACE_SAMPLING_ADAPTIVE,
	GRTRACE_SAMPLING_THRESHOLD,
	GRTRACE_SAMPLING_NR,
};

/**
 * enum grtrace_rate_limit_mode - values of rate_limiter_mode
 * @GRTRACE_RATE_LIMIT_WINDOW: at most max_events_per_sec per whole second
 * @GRTRACE_RATE_LIMIT_TOKEN_BUCKET: a token bucket of rate_limit_burst
 * @GRTRACE_RATE_LIMIT_NR: number of modes
 */
enum grtrace_rate_limit_mode {
	GRTRACE_RATE_LIMIT_WINDOW,
	GRTRACE_RATE_LIMIT_TOKEN_BUCKET,
	GRTRACE_RATE_LIMIT_NR,
};

extern const char * const grtrace_sampling_mode_names[GRTRACE_SAMPLING_NR];
extern const char * const grtrace_rate_limit_mode_names[GRTRACE_RATE_LIMIT_NR];

/**
 * struct grtrace_ring_name - a ring by its names, as the rings file lists it
 * @dev: &grtrace_ring.dev
 * @name: &grtrace_ring.name
 */
struct grtrace_ring_name {
	char dev[GRTRACE_RING_NAME_MAX];
	char name[GRTRACE_RING_NAME_MAX];
};

/**
 * struct grtrace_govern_settings - governance settings
 * @max_events_per_sec: max_events_per_sec, 0 for no limit
 * @rate_limit_mode: rate_limiter_mode, enum grtrace_rate_limit_mode
 * @rate_limit_burst: rate_limit_burst, 0 for @max_events_per_sec
 * @watch_allow: watch_allow_mode: @watch_ctx lists the contexts kept
 *	(true) or the ones dropped
 * @nr_watch_ctx: entries of @watch_ctx
 * @watch_ctx: context ids of watch_ctx_add
 * @ring_deny: @watch_rings and @watch_names list the rings dropped, not
 *	the ones kept
 * @nr_watch_rings: entries of @watch_rings
 * @watch_rings: the ring watchlist's ids, of rings with a fixed id (emit's)
 * @nr_watch_names: entries of @watch_names; no ring watchlist when both
 *	@nr_watch_rings and @nr_watch_names are 0
 * @watch_names: the ring watchlist's rings by name: device, ring
 * @sampling_mode: sampling_mode, enum grtrace_sampling_mode
 * @sampling_rate: sample, percent of jobs
 * @sampling_threshold: sampling_threshold, ns
 * @backpressure_threshold: backpressure_threshold, percent of buffer fill
 * @filter_enabled: filter_enabled
 * @nr_pids: entries of @pids
 * @pids: filter_pid
 * @uid: filter_uid, -1 for any
 * @min_latency: filter_latency, in ns
 * @filter_events: filter_events, a mask of event types
 * @aggregator_enabled: aggregator_enable
 * @aggregator_window: aggregator_window, ms
 * @aggregate_only: aggregate_only: job events go into SUMMARY records
 * @aggregating: the aggregator runs (@aggregator_enabled or
 *	@aggregate_only); set by the commit
 * @active: some setting differs from the defaults; set by the commit
 * @track: some setting needs the job table; set by the commit
 * @hold: events are held until their job completes; set by the commit
 * @rcu: for freeing
 *
 * A copy from grtrace_govern_settings_get() may be changed freely and
 * given to grtrace_govern_commit().  A committed copy is never changed:
 * the probe sees either the old or the new one, whole.
 */
struct grtrace_govern_settings {
	u32 max_events_per_sec;
	u32 rate_limit_mode;
	u32 rate_limit_burst;
	bool watch_allow;
	u32 nr_watch_ctx;
	u64 watch_ctx[GRTRACE_WATCH_CTX];
	bool ring_deny;
	u32 nr_watch_rings;
	u32 watch_rings[GRTRACE_WATCH_RINGS];
	u32 nr_watch_names;
	struct grtrace_ring_name watch_names[GRTRACE_WATCH_NAMES];
	u32 sampling_mode;
	u32 sampling_rate;
	u64 sampling_threshold;
	u32 backpressure_threshold;
	bool filter_enabled;
	u32 nr_pids;
	u32 pids[GRTRACE_FILTER_PIDS];
	s64 uid;
	u64 min_latency;
	u32 filter_events;
	bool aggregator_enabled;
	u32 aggregator_window;
	bool aggregate_only;
	bool aggregating;
	bool active;
	bool track;
	bool hold;
	struct rcu_head rcu;
};

/*
 * On while any governance setting is off its default (settings->active):
 * the probe then calls grtrace_govern() and grtrace_govern_written(), and
 * grtrace_govern_default() otherwise.  Flipped by grtrace_govern_commit().
 */
DECLARE_STATIC_KEY_FALSE(grtrace_governed);

void grtrace_govern_default(const struct grtrace_event *ev, u64 ts, int drop);
int grtrace_govern(const struct grtrace_event *ev, u64 ts, int drop);
void grtrace_govern_written(u16 type, u64 ts,
			    const struct grtrace_job_payload *job, bool written);
void grtrace_govern_start(void);
void grtrace_govern_stop(void);
void grtrace_govern_reset(void);
u64 grtrace_govern_held(void);
u64 grtrace_govern_evicted(void);
void grtrace_govern_collect(void);
void grtrace_govern_filtered(u64 *events, u64 *watch);

void grtrace_govern_settings_get(struct grtrace_govern_settings *settings);
int grtrace_govern_commit(const struct grtrace_govern_settings *settings);
bool grtrace_govern_ctx_listed(const struct grtrace_govern_settings *settings,
			       u64 ctx);

void grtrace_govern_show_stats(struct seq_file *m);
int grtrace_govern_show_sampling(struct seq_file *m);
int grtrace_govern_show_filter(struct seq_file *m);
int grtrace_govern_show_aggregator(struct seq_file *m);
int grtrace_govern_show_rings(struct seq_file *m);

int grtrace_govern_init(void);
void grtrace_govern_exit(void);

#endif /* _GRTRACE_GOVERN_H */

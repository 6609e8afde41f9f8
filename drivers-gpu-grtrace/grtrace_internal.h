/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace - declarations shared by the grtrace objects and their tests.
 */
#ifndef _GRTRACE_INTERNAL_H
#define _GRTRACE_INTERNAL_H

#include <linux/grtrace.h>
#include <linux/types.h>

/* Ring ids, registered or given to emit, are below this. */
#define GRTRACE_MAX_RINGS	256

typedef int (*grtrace_ring_fn)(const struct grtrace_ring *ring, void *data);
typedef int (*grtrace_record_fn)(const struct grtrace_record *rec, void *data);

int grtrace_walk_rings(grtrace_ring_fn fn, void *data);

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
 * @GRTRACE_DROP_NR: number of causes
 */
enum grtrace_drop {
	GRTRACE_DROP_FILTERED,
	GRTRACE_DROP_OVERRUN,
	GRTRACE_DROP_SAMPLED,
	GRTRACE_DROP_BACKPRESSURE,
	GRTRACE_DROP_RATE_LIMITED,
	GRTRACE_DROP_UNTRACKED,
	GRTRACE_DROP_NR,
};

/* grtrace_govern(): the event is held until its job completes. */
#define GRTRACE_HELD	GRTRACE_DROP_NR

/**
 * struct grtrace_totals - counters of the relay stream, summed over CPUs
 * @offered: events that reached the relay probe
 * @written: events written to the relay buffers
 * @dropped: events not written, by cause
 * @bytes_written: bytes of the written events
 * @bytes_dropped: bytes the dropped events would have taken
 * @by_type: written events by enum grtrace_event_type
 */
struct grtrace_totals {
	u64 offered;
	u64 written;
	u64 dropped[GRTRACE_DROP_NR];
	u64 bytes_written;
	u64 bytes_dropped;
	u64 by_type[GRTRACE_EV_NR];
};

int grtrace_session_start(void);
int grtrace_session_stop(void);
bool grtrace_session_running(void);
int grtrace_set_buffer_size(size_t size);
size_t grtrace_get_buffer_size(void);
int grtrace_config_write(const char *buf);
void grtrace_get_totals(struct grtrace_totals *t);
void grtrace_reset_stats(void);
int grtrace_emit_line(const char *line);
int grtrace_walk_records(grtrace_record_fn fn, void *data);

/* Between the core and the governance in grtrace_govern.c. */
struct seq_file;
struct dentry;

void grtrace_fill_ring_info(struct grtrace_ring_info *ri,
			    const struct grtrace_ring *ring);
bool grtrace_write_job(u16 type, u64 ts, const struct grtrace_ring_info *ri,
		       const struct grtrace_job_payload *job);
void grtrace_drop_held(int cause, u64 ts, u32 n);
unsigned int grtrace_buffer_fill(void);

int grtrace_parse_mask(const char *val, u32 all, u32 *mask);

/* A seq_file backed debugfs file of grtrace_<name>_show(); @writefn may be NULL. */
#define GRTRACE_FILE(name, writefn)					\
static int grtrace_##name##_open(struct inode *inode, struct file *file) \
{									\
	return single_open(file, grtrace_##name##_show, NULL);		\
}									\
static const struct file_operations grtrace_##name##_fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= grtrace_##name##_open,			\
	.read		= seq_read,					\
	.write		= writefn,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

int grtrace_govern(const struct grtrace_event *ev, u64 ts, int drop);
void grtrace_govern_written(u16 type, u64 ts,
			    const struct grtrace_job_payload *job, bool written);
void grtrace_govern_start(void);
void grtrace_govern_stop(void);
void grtrace_govern_reset(void);
int grtrace_govern_key(void *cfg, const char *key, const char *val);
void *grtrace_govern_cfg_dup(void);
int grtrace_govern_cfg_commit(void *cfg);
void grtrace_govern_cfg_show(struct seq_file *m);
void grtrace_govern_stats_show(struct seq_file *m);
u64 grtrace_govern_held(void);
int grtrace_govern_init(struct dentry *dir);
void grtrace_govern_exit(void);

#endif /* _GRTRACE_INTERNAL_H */

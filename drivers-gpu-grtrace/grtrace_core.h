/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace core layer: the session, its probe, injected events and the
 * settings of the relay stream.  Calls the governance and stream layers
 * below it, never the debugfs layer above it.
 */
#ifndef _GRTRACE_CORE_H
#define _GRTRACE_CORE_H

#include <linux/errno.h>
#include <linux/types.h>

#include "grtrace_govern.h"

#define GRTRACE_ALL_TYPES	(BIT(GRTRACE_EV_NR) - 1)
#define GRTRACE_ALL_ENGINES	(BIT(GRTRACE_ENGINE_NR) - 1)

/**
 * enum grtrace_level - how much the relay stream records
 * @GRTRACE_LEVEL_OFF: nothing
 * @GRTRACE_LEVEL_NORMAL: everything but IRQ events
 * @GRTRACE_LEVEL_VERBOSE: everything
 * @GRTRACE_LEVEL_NR: number of levels
 */
enum grtrace_level {
	GRTRACE_LEVEL_OFF,
	GRTRACE_LEVEL_NORMAL,
	GRTRACE_LEVEL_VERBOSE,
	GRTRACE_LEVEL_NR,
};

extern const char * const grtrace_level_names[GRTRACE_LEVEL_NR];
extern const char * const grtrace_type_names[GRTRACE_EV_NR];

/**
 * struct grtrace_settings - what the core's probe records
 * @level: enum grtrace_level
 * @type_mask: event types recorded, bit N for type N
 * @engine_mask: engine classes recorded, bit N for class N
 * @ring_id: the only ring recorded, or -1 for all
 * @flight_recorder: sessions overwrite their oldest data until an ERROR;
 *	changed only while no session runs
 */
struct grtrace_settings {
	u32 level;
	u32 type_mask;
	u32 engine_mask;
	s32 ring_id;
	bool flight_recorder;
};

/**
 * struct grtrace_config - every setting of the relay stream
 * @core: the settings of the core
 * @governance: the settings of the governance
 *
 * Read whole with grtrace_config_get(), changed, and applied whole with
 * grtrace_config_set().
 */
struct grtrace_config {
	struct grtrace_settings core;
	struct grtrace_govern_settings governance;
};

int grtrace_session_start(void);
int grtrace_session_stop(void);
int grtrace_session_freeze(void);
bool grtrace_session_running(void);
void grtrace_reset_stats(void);
u64 grtrace_type_filtered_count(void);
#if IS_ENABLED(CONFIG_GRTRACE_EMIT)
int grtrace_emit_line(const char *line);
#else
static inline int grtrace_emit_line(const char *line) { return -EOPNOTSUPP; }
#endif

void grtrace_config_get(struct grtrace_config *config);
int grtrace_config_set(const struct grtrace_config *config);

int grtrace_parse_level(const char *val, u32 *level);
int grtrace_parse_mask(const char *val, u32 all, u32 *mask);
int grtrace_parse_ring(const char *val, s32 *ring_id);
int grtrace_parse_u32(const char *val, u32 min, u32 max, u32 *out);
int grtrace_parse_bool(const char *val, bool *out);
int grtrace_parse_ring_list(const char *val, struct grtrace_govern_settings *g);
int grtrace_parse_pid_list(const char *val, u32 *pids, u32 *nr_pids);
int grtrace_parse_uid(const char *val, s64 *uid);

void grtrace_core_exit(void);

#endif /* _GRTRACE_CORE_H */

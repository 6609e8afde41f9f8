/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace events layer: the ring registry of grtrace_events.c, built in
 * with the tracepoints, for the grtrace module above it.
 */
#ifndef _GRTRACE_EVENTS_H
#define _GRTRACE_EVENTS_H

#include <linux/grtrace.h>
#include <linux/types.h>

/* Ids below it are the emit file's test rings, above it drivers' rings. */
#define GRTRACE_FIRST_RING_ID	256

typedef int (*grtrace_ring_fn)(const struct grtrace_ring *ring, u32 id,
			       void *data);

int grtrace_walk_rings(grtrace_ring_fn fn, void *data);
void grtrace_ring_init_fixed(struct grtrace_ring *ring, u32 id);
u64 grtrace_no_ring_events(void);
#if IS_ENABLED(CONFIG_KUNIT)
void grtrace_set_meet_hook(void (*hook)(struct grtrace_ring *ring));
void grtrace_set_next_ring_id(u32 id);
#endif

int grtrace_sources_sync(void);

/* The id @ring had when it last reported in an epoch (tests), 0 if none. */
static inline u32 grtrace_ring_last_id(const struct grtrace_ring *ring)
{
	return (u32)atomic64_read(&ring->stamp);
}

#endif /* _GRTRACE_EVENTS_H */

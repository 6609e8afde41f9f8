/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace events layer: the ring registry of grtrace_events.c, built in
 * with the tracepoints, for the grtrace module above it.
 */
#ifndef _GRTRACE_EVENTS_H
#define _GRTRACE_EVENTS_H

#include <linux/grtrace.h>
#include <linux/types.h>

typedef int (*grtrace_ring_fn)(const struct grtrace_ring *ring, void *data);

int grtrace_walk_rings(grtrace_ring_fn fn, void *data);
void grtrace_ring_id_counts(u64 *refused, u64 *no_ring);

#endif /* _GRTRACE_EVENTS_H */

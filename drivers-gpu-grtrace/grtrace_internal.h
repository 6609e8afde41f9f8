/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace - declarations shared by the grtrace objects and their tests.
 *
 * The module is layered bottom to top, each layer calling only the layers
 * below it:
 *
 *   grtrace_events.c    tracepoints and ring registry (built in)
 *   grtrace_stream.c    relay channel, records, per-CPU counters, reader
 *   grtrace_govern.c    verdicts (filters, sampling, limits), job table,
 *                       aggregates
 *   grtrace_core.c      session, probe, emit, settings
 *   grtrace_debugfs.c   debugfs files and the table of config keys
 *
 * Each layer has its own header, included here in that order; the debugfs
 * layer and the tests include this one.
 */
#ifndef _GRTRACE_INTERNAL_H
#define _GRTRACE_INTERNAL_H

#include "grtrace_stream.h"
#include "grtrace_govern.h"
#include "grtrace_core.h"
#include "grtrace_sched.h"

/* ---- grtrace_debugfs.c ---- */

int grtrace_config_write(const char *buf);

#endif /* _GRTRACE_INTERNAL_H */

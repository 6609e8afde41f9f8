/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the grtrace trace events of the tracefs instance "grtrace",
 * through libtracefs.
 */
#ifndef __GRTRACE_TRACE_H
#define __GRTRACE_TRACE_H

#include <stdbool.h>

#define GR_FTRACE_INSTANCE	"grtrace"

int gr_ftrace_events_set(bool enable);
const char *gr_ftrace_events_state(void);

#endif /* __GRTRACE_TRACE_H */

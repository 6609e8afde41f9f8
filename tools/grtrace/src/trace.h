/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: access to the grtrace debugfs directory and the grtrace trace
 * events, through libtracefs.
 */
#ifndef __GRTRACE_TRACE_H
#define __GRTRACE_TRACE_H

#include <stdbool.h>

#define GRTRACE_INSTANCE	"grtrace"

const char *grtrace_dir(void);
int grtrace_dir_check(void);
char *grtrace_read(const char *file);
int grtrace_write(const char *file, const char *buf);
int grtrace_running(void);

int ftrace_events_set(bool enable);
const char *ftrace_events_state(void);

#endif /* __GRTRACE_TRACE_H */

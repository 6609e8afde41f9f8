/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the inputs of the commands (a stream file, a directory of
 * per-CPU files, the live relay files, a trace.dat or an ftrace instance)
 * and the grtrace debugfs directory.  The only code that knows where the grtrace files are.
 */
#ifndef __GRTRACE_INPUT_H
#define __GRTRACE_INPUT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "events.h"

/* An input naming an ftrace instance: "instance:NAME" */
#define GR_INSTANCE_PREFIX	"instance:"

/* What a command reads without -i: what record writes without -o */
#define GR_DEFAULT_INPUT	"grtrace.dat"
/* --live, the live relay files: its getopt value, above every command's */
#define GR_OPT_LIVE		0x4000
/* --session N, the Nth session of a file that holds several: likewise */
#define GR_OPT_SESSION		0x4001

const char *gr_input_arg(const char *input, bool live, int argc, char **argv,
			 const char **err);
int gr_input_session(const char *arg);
const char *gr_input_stat(const char *path, struct stat *st);
int gr_input_find(struct gr_trace *t, const char *path);
/* grtrace persist --save: the previous boot's events, read once, kept here */
#define GR_STATE_DIR		"/var/lib/grtrace"
#define GR_LAST_BOOT_FILE	"last-boot.grt"

char *gr_input_last_boot(const char *name);
char *gr_last_boot_instance(void);
char *gr_last_boot_saved(const char *dir);
int gr_boot_id(__u64 *id);
bool gr_saved_this_boot(const char *path);
int gr_input_load(struct gr_trace *t, const char *path);
void gr_input_live_info(struct gr_trace *t);

struct tracefs_instance;
unsigned long long gr_instance_cpu_sum(struct tracefs_instance *inst, const char *key);

/* Whose events a boot-mapped ftrace instance holds (gr_instance_boot()) */
enum gr_boot {
	GR_BOOT_UNMAPPED,	/* not boot-mapped: no last_boot_info */
	GR_BOOT_THIS,		/* this boot's */
	GR_BOOT_PREVIOUS,	/* the previous boot's */
};

enum gr_boot gr_instance_boot(struct tracefs_instance *inst);

const char *gr_kernel_dir(void);
int gr_kernel_check(void);
char *gr_kernel_read(const char *file);
int gr_kernel_write(const char *file, const char *buf);
int gr_session_running(void);
char **gr_kernel_relay_files(void);
bool gr_kernel_relay_fd(int fd);
char **gr_input_list_events(const char *dir);

#endif /* __GRTRACE_INPUT_H */

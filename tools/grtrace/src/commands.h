/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the commands.  Each returns the exit status of the tool.
 */
#ifndef __GRTRACE_COMMANDS_H
#define __GRTRACE_COMMANDS_H

#ifndef VERSION
#define VERSION "unknown"
#endif

int start_main(int argc, char *argv[]);
int stop_main(int argc, char *argv[]);
int status_main(int argc, char *argv[]);
int config_main(int argc, char *argv[]);
int record_main(int argc, char *argv[]);
int report_main(int argc, char *argv[]);
int export_main(int argc, char *argv[]);
int merge_main(int argc, char *argv[]);
int timeline_main(int argc, char *argv[]);

void print_usage(const char * const *msg, const char *err);
const char *invalid_option(char *argv[]);

#endif /* __GRTRACE_COMMANDS_H */

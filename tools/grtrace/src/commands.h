/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the commands.  Each returns the exit status of the tool.
 */
#ifndef __GRTRACE_COMMANDS_H
#define __GRTRACE_COMMANDS_H

int gr_start_main(int argc, char *argv[]);
int gr_stop_main(int argc, char *argv[]);
int gr_status_main(int argc, char *argv[]);
int gr_config_main(int argc, char *argv[]);
int gr_record_main(int argc, char *argv[]);
int gr_report_main(int argc, char *argv[]);
int gr_export_main(int argc, char *argv[]);
int gr_dump_main(int argc, char *argv[]);
int gr_merge_main(int argc, char *argv[]);
int gr_timeline_main(int argc, char *argv[]);
int gr_probe_main(int argc, char *argv[]);
int gr_persist_main(int argc, char *argv[]);
int gr_top_main(int argc, char *argv[]);

#endif /* __GRTRACE_COMMANDS_H */

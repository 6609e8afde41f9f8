// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: control and read the GPU ring trace (grtrace) of the kernel.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "utils.h"

static const struct {
	const char *name;
	int (*main)(int argc, char *argv[]);
} commands[] = {
	{ "start",	gr_start_main },
	{ "stop",	gr_stop_main },
	{ "status",	gr_status_main },
	{ "config",	gr_config_main },
	{ "record",	gr_record_main },
	{ "report",	gr_report_main },
	{ "export",	gr_export_main },
	{ "dump",	gr_dump_main },
	{ "merge",	gr_merge_main },
	{ "timeline",	gr_timeline_main },
	{ "probe",	gr_probe_main },
	{ "persist",	gr_persist_main },
	{ "top",	gr_top_main },
};

static void grtrace_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace COMMAND [OPTIONS]",
		"",
		"  commands:",
		"     start   - start a session of the relay stream",
		"     stop    - stop the session",
		"     status  - session state, counters, drop causes, rings",
		"     config  - print or change the configuration (KEY=VALUE ...)",
		"     record  - save the relay stream of all CPUs to a file",
		"     report  - per-job times, aggregates and histograms",
		"     export  - write the jobs as a Perfetto trace or KernelShark lanes",
		"     dump    - every record of a stream as a line of text",
		"     merge   - GPU jobs next to the DRM ioctls that submitted them",
		"     timeline - a row per ring over time in the terminal; --latency",
		"     probe   - record a driver without hooks through a kprobe profile",
		"     persist - the kernel command line that keeps GPU job history",
		"               across a crash (report --last-boot reads it)",
		"     top     - what each GPU ring and process does, every second",
		"     help    - the commands, or the options of a command",
		"",
		"  'grtrace COMMAND --help' (or 'grtrace help COMMAND') describes each",
		"  command.",
		NULL,
	};

	gr_print_usage(msg, err);
}

int main(int argc, char *argv[])
{
	char err[96];
	size_t i;

	opterr = 0;
	if (argc < 2)
		grtrace_usage("a command is required");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		grtrace_usage(NULL);
	/* "grtrace help [CMD]" is "grtrace --help", or "grtrace CMD --help". */
	if (!strcmp(argv[1], "help")) {
		if (argc > 3)
			grtrace_usage("help takes one COMMAND");
		if (argc == 2 || !strcmp(argv[2], "help") || argv[2][0] == '-')
			grtrace_usage(NULL);
		argv[1] = argv[2];
		argv[2] = (char *)"--help";
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("grtrace version %s\n", VERSION);
		return EXIT_SUCCESS;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	snprintf(err, sizeof(err), "unknown command '%.64s'", argv[1]);
	grtrace_usage(err);
	return EXIT_FAILURE;
}

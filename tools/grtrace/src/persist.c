// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace persist: GPU job history that survives a crash, in a persistent
 * ftrace ring buffer.
 *
 * The kernel does the recording (Documentation/trace/debugging.rst):
 * reserve_mem= sets memory aside at the same place at every boot, and
 * trace_instance=NAME@LABEL,grtrace makes an instance whose ring buffer
 * lives there, with the grtrace events on from early boot.  After a crash
 * and a warm reboot that kept the memory, the buffer holds the previous
 * boot's events.  With a backup instance (trace_instance=LAST=NAME) the
 * kernel copies them at boot, before the new boot's events overwrite
 * them; "grtrace report --last-boot" reads that copy.  Kernels without
 * backup instances keep the previous boot in NAME itself while its
 * tracing is off (^traceoff): report, then turn tracing on.
 *
 * This command prints the kernel command line for that, and with
 * --status tells whether the running kernel records so and whether a
 * previous boot's events are there to read.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "commands.h"
#include "input.h"
#include "utils.h"

#define PERSIST_LABEL		"grtrace"
#define PERSIST_INSTANCE	"grtrace_boot"
#define PERSIST_BACKUP		"grtrace_last"

static void persist_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace persist [-h] [-D] [--size SIZE] [--traceoff] [--status]",
		"",
		"  Print the kernel command line that records the grtrace events",
		"  from boot into a persistent ftrace ring buffer, whose content",
		"  survives a crash and a warm reboot; after one, 'grtrace report",
		"  --last-boot' says what was in flight.  Memory that the firmware or",
		"  the boot loader clears at reset loses it (see grtrace-persist(1)).",
		"",
		"       --size SIZE: memory reserved for the ring buffer, split",
		"                         between the CPUs (default 16M; K, M, G)",
		"       --traceoff: for kernels without backup instances (6.12):",
		"                         the instance starts with tracing off and",
		"                         keeps the previous boot until it is read;",
		"                         then turn tracing on (tracing_on)",
		"       --status: whether this boot records so, and whether a",
		"                         previous boot's events are there to read;",
		"                         exits 1 if it does not record",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

/* SIZE: a number of bytes with an optional K, M or G, a multiple of 4 KiB */
static int parse_size(const char *arg, unsigned long long *size)
{
	char *end;

	static const char units[] = "KMG";
	const char *u;

	*size = strtoull(arg, &end, 10);
	if (end == arg)
		return -1;
	u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	if (u) {
		*size <<= 10 * (u - units + 1);
		end++;
	}
	return *end || !*size || *size % 4096 || *size >> 40 ? -1 : 0;
}

static void size_str(unsigned long long size, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;

	while (u < 2 && !(size & 1023)) {
		size >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", size);
	else
		snprintf(buf, len, "%llu%c", size, units[u]);
}

/* An instance as --status sees it */
struct persist_state {
	bool exists;
	enum gr_boot boot;
	bool grtrace_on;		/* its grtrace events are enabled */
	unsigned long long entries;	/* events in its ring buffer */
};

static const char * const boot_names[] = {
	[GR_BOOT_UNMAPPED]	= "not persistent (no last_boot_info)",
	[GR_BOOT_THIS]		= "this boot",
	[GR_BOOT_PREVIOUS]	= "the previous boot",
};

static void instance_state(const char *name, struct persist_state *st)
{
	struct tracefs_instance *inst;
	char *on;

	memset(st, 0, sizeof(*st));
	inst = tracefs_instance_exists(name) ? tracefs_instance_alloc(NULL, name) : NULL;
	if (!inst)
		return;
	st->exists = true;
	st->boot = gr_instance_boot(inst);
	on = tracefs_instance_file_read(inst, "events/grtrace/enable", NULL);
	st->grtrace_on = on && (on[0] == '1' || on[0] == 'X');
	st->entries = gr_instance_cpu_sum(inst, "entries:");
	free(on);
	tracefs_instance_free(inst);
}

static const char *state_name(const struct persist_state *st)
{
	return st->exists ? boot_names[st->boot] : "missing";
}

static int persist_status(void)
{
	struct persist_state boot, last;

	instance_state(PERSIST_INSTANCE, &boot);
	instance_state(PERSIST_BACKUP, &last);
	printf("%-13s %s, grtrace events %s, %llu events\n", PERSIST_INSTANCE,
	       state_name(&boot), boot.grtrace_on ? "on" : "off", boot.entries);
	printf("%-13s %s, %llu events\n", PERSIST_BACKUP, state_name(&last), last.entries);
	/* A cold boot's backup is a copy of an empty buffer */
	if ((last.exists && last.boot == GR_BOOT_PREVIOUS && last.entries) ||
	    (boot.exists && boot.boot == GR_BOOT_PREVIOUS && boot.entries))
		printf("grtrace report --last-boot reads the previous boot's events\n");
	if (boot.exists && boot.boot == GR_BOOT_THIS && boot.grtrace_on)
		return EXIT_SUCCESS;
	if (boot.exists && boot.boot == GR_BOOT_PREVIOUS)
		printf("%s holds the previous boot, tracing off: read it, then\n"
		       "  echo 1 > %s/instances/%s/tracing_on\n",
		       PERSIST_INSTANCE, tracefs_tracing_dir(), PERSIST_INSTANCE);
	else
		printf("this boot does not record the grtrace events persistently:\n"
		       "  see grtrace persist\n");
	return EXIT_FAILURE;
}

int gr_persist_main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "size",	required_argument,	NULL, 's' },
		{ "traceoff",	no_argument,		NULL, 'o' },
		{ "status",	no_argument,		NULL, 'S' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long size = 16 << 20;
	bool traceoff = false, status = false;
	char sz[32];
	int c;

	while ((c = getopt_long(argc, argv, "Dh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_size(optarg, &size))
				persist_usage("invalid --size: a multiple of 4K, such as 16M");
			break;
		case 'o':
			traceoff = true;
			break;
		case 'S':
			status = true;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			persist_usage(NULL);
			break;
		default:
			persist_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		persist_usage("unexpected argument");
	if (status)
		return persist_status();
	size_str(size, sz, sizeof(sz));
	printf("reserve_mem=%s:4096:%s trace_instance=%s%s@%s,grtrace", sz, PERSIST_LABEL,
	       PERSIST_INSTANCE, traceoff ? "^traceoff" : "", PERSIST_LABEL);
	if (!traceoff)
		printf(" trace_instance=%s=%s", PERSIST_BACKUP, PERSIST_INSTANCE);
	printf("\n");
	return EXIT_SUCCESS;
}

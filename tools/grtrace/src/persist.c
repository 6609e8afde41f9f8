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
 * previous boot's events are there to read.  Reading an instance consumes
 * it; --save, run at boot as systemd-pstore archives pstore, reads it once
 * into a file of the relay stream's format, which report --last-boot then
 * reads as often as asked.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>

#include "commands.h"
#include "events.h"
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
		"                         [--save DIR [-i INPUT]]",
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
		"       --save DIR: read the previous boot's events once, from the",
		"                         instance that holds them, into",
		"                         DIR/" GR_LAST_BOOT_FILE ", which report --last-boot",
		"                         reads in this boot without consuming it",
		"                         (at boot: DIR " GR_STATE_DIR ")",
		"    -i/--input INPUT: with --save, the events to save instead",
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

static int put(FILE *f, __u16 type, __u32 cpu, __u64 ts, __u64 gseq,
	       const void *payload, size_t len)
{
	struct grtrace_record h = {
		.type = type, .size = sizeof(h) + len, .cpu = cpu, .ts = ts, .gseq = gseq,
	};

	return fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(payload, len, 1, f) != 1;
}

/*
 * @t as a file of the relay stream's format: STREAM_INFO, a METADATA
 * record per ring, the job events, numbered anew from 1.  The clock is the
 * instance's, not known to be CLOCK_MONOTONIC; the session id is @id, this
 * boot's.  Returns: the job events written, or -1 on a write error.
 */
static long long write_stream(FILE *f, const struct gr_trace *t, __u64 id)
{
	struct grtrace_stream_info si = {
		.magic = GRTRACE_MAGIC,
		.version = GRTRACE_FORMAT_VERSION,
		.record_size = sizeof(struct grtrace_record),
		.features = GRTRACE_FEAT_SUBMITTER,
		.start_ts = t->start_ts,
		.nr_cpus = t->dat_cpus ? t->dat_cpus : 1,
	};
	struct grtrace_ring_info ri;
	struct grtrace_job_payload p;
	const struct gr_event *ev;
	long long jobs = 0;
	__u64 gseq = 0;
	__u32 k;
	int err;

	if (t->have_info) {	/* -i of a stream */
		si = t->info;
		si.features &= ~GRTRACE_FEAT_CSEQ;
		si.nr_rings = 0;
	}
	si.session_id = id;
	for (k = 0; k < t->nr_rings; k++)
		si.nr_rings += t->rings[k].known;
	err = put(f, GRTRACE_EV_STREAM_INFO, 0, t->start_ts, ++gseq, &si, sizeof(si));
	for (k = 0; k < t->nr_rings; k++) {
		if (!t->rings[k].known)
			continue;
		gr_ring_info(t, k, &ri);
		err |= put(f, GRTRACE_EV_METADATA, 0, t->start_ts, ++gseq, &ri, sizeof(ri));
	}
	for (ev = t->ev; ev < t->ev + t->nr_ev; ev++) {
		if (ev->type >= GRTRACE_EV_NR)
			continue;
		p = ev->job;
		p.ring_id = gr_ring(t, p.ring_id)->id;
		err |= put(f, ev->type, ev->cpu, ev->ts, ++gseq, &p, sizeof(p));
		jobs++;
	}
	return err ? -1 : jobs;
}

/*
 * --save: the previous boot's events, from @input or the instance that
 * holds them, to DIR/GR_LAST_BOOT_FILE, through a temporary file renamed
 * over it, made before the instance is read: reading consumes it.  Once it
 * is read, the temporary file is kept if the rest fails: it may be all
 * that is left of the previous boot.  Readable by root only, as tracefs is.
 */
static int persist_save(const char *dir, const char *input)
{
	struct gr_trace t = { 0 };
	char *path, *name = NULL, *from = NULL, *tmp;
	struct persist_state st = { 0 };
	int fd = -1, dfd, ret = EXIT_FAILURE;
	bool keep = false;
	long long jobs;
	FILE *f = NULL;
	size_t len;
	__u64 id;

	if (!input) {
		/* After a cold boot, the backup is a copy of an empty buffer */
		name = gr_last_boot_instance();
		if (name)
			instance_state(name, &st);
		if (!st.entries) {
			printf("%s: nothing to save\n",
			       "no ftrace instance holds a previous boot's events");
			free(name);
			return EXIT_SUCCESS;
		}
		from = gr_input_last_boot(name);
		free(name);
		if (!from)
			return EXIT_FAILURE;
	}
	if (gr_boot_id(&id)) {
		gr_err_msg("this boot's id (the kernel's random/boot_id) is not known\n");
		free(from);
		return EXIT_FAILURE;
	}
	path = gr_last_boot_saved(dir);
	len = strlen(path) + 8;
	tmp = gr_zalloc(len);
	snprintf(tmp, len, "%s.XXXXXX", path);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		gr_err_msg("%s: %s\n", dir, strerror(errno));
		goto out;
	}
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		gr_err_msg("%s: %s\n", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (gr_input_load(&t, from ? from : input))
		goto out;
	keep = !input;	/* the instance is consumed: what is written stays */
	jobs = write_stream(f, &t, id);
	if (jobs < 0 || fflush(f) || fsync(fileno(f))) {
		gr_err_msg("%s: write error: %s\n", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path)) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		goto out;
	}
	/* The rename, on disk before a crash soon after boot takes it */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fsync(dfd))
		gr_err_msg("%s: %s\n", dir, strerror(errno));
	if (dfd >= 0)
		close(dfd);
	printf("%lld events of %s saved in %s\n", jobs, t.input, path);
	ret = EXIT_SUCCESS;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (ret && keep)
		gr_err_msg("%s: the events read are kept there\n", tmp);
	else if (ret && (f || fd >= 0))
		unlink(tmp);
	gr_trace_free(&t);
	free(from);
	free(tmp);
	free(path);
	return ret;
}

static int persist_status(void)
{
	struct persist_state boot, last;
	char *saved = gr_last_boot_saved(NULL);
	bool have = gr_saved_this_boot(saved);

	instance_state(PERSIST_INSTANCE, &boot);
	instance_state(PERSIST_BACKUP, &last);
	printf("%-13s %s, grtrace events %s, %llu events\n", PERSIST_INSTANCE,
	       state_name(&boot), boot.grtrace_on ? "on" : "off", boot.entries);
	printf("%-13s %s, %llu events\n", PERSIST_BACKUP, state_name(&last), last.entries);
	printf("%-13s %s%s\n", "saved", saved,
	       have ? ", the previous boot's events" : access(saved, F_OK) ?
	       ": none" : ": not saved in this boot");
	free(saved);
	/* A cold boot's backup is a copy of an empty buffer */
	if (have || (last.exists && last.boot == GR_BOOT_PREVIOUS && last.entries) ||
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
		{ "save",	required_argument,	NULL, 'V' },
		{ "input",	required_argument,	NULL, 'i' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long size = 16 << 20;
	const char *save = NULL, *input = NULL, *err;
	bool traceoff = false, status = false;
	char sz[32];
	int c;

	while ((c = getopt_long(argc, argv, "i:Dh", opts, NULL)) != -1) {
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
		case 'V':
			save = optarg;
			break;
		case 'i':
			err = gr_set_input(&input, optarg);
			if (err)
				persist_usage(err);
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
		persist_usage(gr_unexpected(argv[optind]));
	if (input && !save)
		persist_usage("-i goes with --save");
	if (save && status)
		persist_usage("--save or --status, not both");
	if (status)
		return persist_status();
	if (save)
		return persist_save(save, input);
	size_str(size, sz, sizeof(sz));
	printf("reserve_mem=%s:4096:%s trace_instance=%s%s@%s,grtrace", sz, PERSIST_LABEL,
	       PERSIST_INSTANCE, traceoff ? "^traceoff" : "", PERSIST_LABEL);
	if (!traceoff)
		printf(" trace_instance=%s=%s", PERSIST_BACKUP, PERSIST_INSTANCE);
	printf("\n");
	return EXIT_SUCCESS;
}

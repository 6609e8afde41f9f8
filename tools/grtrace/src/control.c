// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace start, stop, status and config: control of the relay stream
 * through the grtrace files of the kernel (input.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "input.h"
#include "trace.h"
#include "utils.h"

struct control_params {
	__u64 buffer_size;
	bool ftrace;
};

static const char * const start_msg[] = {
	"",
	"  usage: grtrace start [-h] [-D] [--buffer-size BYTES] [-t]",
	"",
	"  Start a grtrace session: the relay files restart with a STREAM_INFO",
	"  and the METADATA of every ring.",
	"",
	"       --buffer-size BYTES: per-CPU relay buffer size first (a multiple",
	"                            of the page size, 16 KiB to 256 MiB)",
	"    -t/--ftrace: also enable the grtrace trace events in the tracefs",
	"                 instance \"grtrace\"",
	"    -D/--debug: print debug messages",
	"    -h/--help: print this help",
	NULL,
};

static const char * const stop_msg[] = {
	"",
	"  usage: grtrace stop [-h] [-D] [-t]",
	"",
	"  Stop the grtrace session; the relay files stay readable until the",
	"  next start.",
	"",
	"    -t/--ftrace: also disable the grtrace trace events in the tracefs",
	"                 instance \"grtrace\" (its buffer is kept)",
	"    -D/--debug: print debug messages",
	"    -h/--help: print this help",
	NULL,
};

static const char * const status_msg[] = {
	"",
	"  usage: grtrace status [-h] [-D]",
	"",
	"  Show whether a session runs, the stream counters and drop causes,",
	"  the configuration and the rings known to grtrace.",
	"",
	"    -D/--debug: print debug messages",
	"    -h/--help: print this help",
	NULL,
};

static const char * const config_msg[] = {
	"",
	"  usage: grtrace config [-h] [-D] [KEY=VALUE ...]",
	"",
	"  Without arguments, print the configuration.  With arguments, write",
	"  them all at once: the kernel checks every line before applying any,",
	"  so either all of them take effect or none.",
	"",
	"    -D/--debug: print debug messages",
	"    -h/--help: print this help",
	NULL,
};

#define CTL_SIZE	BIT(0)	/* -b/--buffer-size */
#define CTL_FTRACE	BIT(1)	/* -t/--ftrace */
#define CTL_ARGS	BIT(2)	/* arguments after the options */

/* Options shared by the control commands; @msg is the usage text. */
static void control_parse_args(int argc, char *argv[], const char * const *msg,
			       struct control_params *p, int flags)
{
	static const struct option opts[] = {
		{ "buffer-size", required_argument,	NULL, 'b' },
		{ "ftrace",	no_argument,		NULL, 't' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char optstr[16];
	int c;

	snprintf(optstr, sizeof(optstr), "+%sDh", flags & CTL_FTRACE ? "t" : "");
	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!(flags & CTL_SIZE))
				gr_print_usage(msg, gr_invalid_option(argv));
			if (gr_parse_u64(optarg, &p->buffer_size) || !p->buffer_size)
				gr_print_usage(msg, "invalid --buffer-size: a number of bytes");
			break;
		case 't':
			if (!(flags & CTL_FTRACE))
				gr_print_usage(msg, gr_invalid_option(argv));
			p->ftrace = true;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			gr_print_usage(msg, NULL);
			break;
		default:
			gr_print_usage(msg, gr_invalid_option(argv));
		}
	}
	if (!(flags & CTL_ARGS) && optind < argc)
		gr_print_usage(msg, gr_unexpected(argv[optind]));
}

static int set_buffer_size(__u64 size)
{
	char buf[32];
	int ret;

	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)size);
	ret = gr_kernel_write("buffer_size", buf);
	if (ret == -EBUSY)
		gr_err_msg("cannot change the buffer size while a session runs\n");
	else if (ret == -EINVAL)
		gr_err_msg("buffer size %llu rejected: use a page multiple, 16 KiB to 256 MiB\n",
			   (unsigned long long)size);
	else if (ret)
		gr_err_msg("cannot set the buffer size: %s\n", strerror(-ret));
	return ret;
}

int gr_start_main(int argc, char *argv[])
{
	struct control_params p;
	int ret;

	control_parse_args(argc, argv, start_msg, &p, CTL_SIZE | CTL_FTRACE);
	if (gr_kernel_check())
		return EXIT_FAILURE;
	if (p.buffer_size && set_buffer_size(p.buffer_size))
		return EXIT_FAILURE;
	ret = gr_kernel_write("control", "start\n");
	if (ret == -EINVAL) {
		gr_err_msg("a session is already running ('grtrace stop' first)\n");
		return EXIT_FAILURE;
	}
	if (ret) {
		gr_err_msg("cannot start: %s\n", strerror(-ret));
		return EXIT_FAILURE;
	}
	if (p.ftrace && gr_ftrace_events_set(true))
		return EXIT_FAILURE;
	printf("grtrace: started\n");
	return EXIT_SUCCESS;
}

int gr_stop_main(int argc, char *argv[])
{
	struct control_params p;
	int ret;

	control_parse_args(argc, argv, stop_msg, &p, CTL_FTRACE);
	if (gr_kernel_check())
		return EXIT_FAILURE;
	if (p.ftrace && gr_ftrace_events_set(false))
		return EXIT_FAILURE;
	ret = gr_kernel_write("control", "stop\n");
	if (ret == -EINVAL) {
		gr_err_msg("no session is running\n");
		return EXIT_FAILURE;
	}
	if (ret) {
		gr_err_msg("cannot stop: %s\n", strerror(-ret));
		return EXIT_FAILURE;
	}
	printf("grtrace: stopped\n");
	return EXIT_SUCCESS;
}

/* Print "key=value" lines of @s on one line, leaving out @skip keys. */
static void print_joined(const char *title, const char *s, const char *skip)
{
	const char *line;

	printf("%-9s", title);
	for (line = s; line; line = gr_next_line(line)) {
		int len = strcspn(line, "\n");
		int klen = strcspn(line, "=\n");

		if (!len || line[0] == '#')
			continue;
		if (skip && (int)strlen(skip) == klen && !strncmp(line, skip, klen))
			continue;
		printf(" %.*s", len, line);
	}
	printf("\n");
}

int gr_status_main(int argc, char *argv[])
{
	char *stats, *types, *config, *rings, *size;
	char session[32] = "none";
	int running, ret = EXIT_FAILURE;
	struct control_params p;

	control_parse_args(argc, argv, status_msg, &p, 0);
	if (gr_kernel_check())
		return EXIT_FAILURE;
	running = gr_session_running();
	stats = gr_kernel_read("stats");
	types = gr_kernel_read("events_by_type");
	config = gr_kernel_read("config");
	rings = gr_kernel_read("rings");
	size = gr_kernel_read("buffer_size");
	if (running < 0 || !stats || !types || !config || !rings || !size)
		goto out;

	gr_stats_get(stats, "session_id", session, sizeof(session));
	printf("grtrace: %s, session %s, buffer %llu KiB per cpu (%s)\n",
	       running ? "running" : "stopped", session,
	       strtoull(size, NULL, 0) / 1024, gr_kernel_dir());
	print_joined("stats:", stats, "session_id");
	print_joined("events:", types, NULL);
	print_joined("config:", config, "reset_stats");
	printf("ftrace:   grtrace events of tracefs instance %s: %s\n",
	       GR_FTRACE_INSTANCE, gr_ftrace_events_state());
	printf("rings:\n%s", rings);
	ret = EXIT_SUCCESS;
out:
	free(stats);
	free(types);
	free(config);
	free(rings);
	free(size);
	return ret;
}

/* Is @key one of the keys listed by the config file? */
static bool config_has_key(const char *config, const char *key, size_t klen)
{
	const char *line;

	for (line = config; line; line = gr_next_line(line))
		if (strcspn(line, "=\n") == klen && !strncmp(line, key, klen))
			return true;
	return false;
}

static void print_keys(const char *config)
{
	const char *line;

	for (line = config; line; line = gr_next_line(line))
		fprintf(stderr, " %.*s", (int)strcspn(line, "=\n"), line);
	fputc('\n', stderr);
}

static int config_check(const char *config, int argc, char *argv[])
{
	int i;

	for (i = 0; i < argc; i++) {
		size_t klen = strcspn(argv[i], "=");

		if (!argv[i][klen] || !klen || strchr(argv[i], '\n')) {
			gr_err_msg("'%s' is not KEY=VALUE\n", argv[i]);
			return -1;
		}
		if (!config_has_key(config, argv[i], klen)) {
			gr_err_msg("unknown config key '%.*s'; the keys are:", (int)klen, argv[i]);
			print_keys(config);
			return -1;
		}
	}
	return 0;
}

static int config_write(int argc, char *argv[])
{
	size_t len = 1;
	char *buf;
	int i, ret;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	buf = gr_zalloc(len);
	for (i = 0; i < argc; i++) {
		strcat(buf, argv[i]);
		strcat(buf, "\n");
	}
	ret = gr_kernel_write("config", buf);
	if (ret == -EINVAL)
		gr_err_msg("the kernel rejected a value (EINVAL): nothing was changed\n");
	else if (ret)
		gr_err_msg("cannot write the configuration: %s\n", strerror(-ret));
	free(buf);
	return ret;
}

int gr_config_main(int argc, char *argv[])
{
	struct control_params p;
	int ret = EXIT_FAILURE;
	char *config;

	control_parse_args(argc, argv, config_msg, &p, CTL_ARGS);
	if (gr_kernel_check())
		return EXIT_FAILURE;
	config = gr_kernel_read("config");
	if (!config)
		return EXIT_FAILURE;
	if (optind < argc) {
		if (config_check(config, argc - optind, argv + optind) ||
		    config_write(argc - optind, argv + optind))
			goto out;
		free(config);
		config = gr_kernel_read("config");
		if (!config)
			return EXIT_FAILURE;
	}
	fputs(config, stdout);
	ret = EXIT_SUCCESS;
out:
	free(config);
	return ret;
}

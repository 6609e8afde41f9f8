// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace-bpf-annotate: print the DRM ioctls of processes, and those of
 * NVIDIA's driver, with their threads, commands, return values and
 * durations, on the clock of the grtrace stream (CLOCK_MONOTONIC), so that
 * "grtrace merge" can put every GPU job next to the ioctl that submitted it.
 *
 * The BPF program (grtrace_annotate.bpf.c) is linked into this binary and
 * loaded with libbpf.  It needs neither BTF nor CO-RE: only a kernel with
 * CONFIG_BPF_SYSCALL, CONFIG_BPF_EVENTS and CONFIG_FTRACE_SYSCALLS.  Its
 * events become lines in grtrace_annotate_decode.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "grtrace_annotate.h"
#include "grtrace_annotate_decode.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

#define NSEC_PER_SEC	1000000000ULL
#define POLL_MS		100
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define err_msg(fmt, ...) \
	fprintf(stderr, "grtrace-bpf-annotate: " fmt, ##__VA_ARGS__)

#define ROOT_HINT	"run as root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)"
#define CONFIG_HINT	"the kernel needs CONFIG_BPF_EVENTS and CONFIG_PERF_EVENTS"

struct annotate_params {
	unsigned int pid;
	const char *output;
	unsigned long long duration;	/* seconds, 0: until SIGINT */
	bool quiet;
	bool verbose;
	bool raw;
};

struct tp_pair {
	const char *system;
	const char *enter;
	const char *exit;
	const char *enter_prog;
	const char *exit_prog;
};

static const struct tp_pair tp_pairs[] = {
	{ "syscalls", "sys_enter_ioctl", "sys_exit_ioctl", "enter_ioctl", "exit_ioctl" },
	{ "raw_syscalls", "sys_enter", "sys_exit", "raw_enter", "raw_exit" },
};

static const char * const tracefs_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* Set by the signal handler; lock-free, so async-signal-safe. */
static atomic_int stop;
static bool verbose;
static FILE *out;
static struct ga_decoder decoder;

static void stop_handler(int sig)
{
	(void)sig;
	stop = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_INFO && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void annotate_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace-bpf-annotate [-h] [-v] [-q] [-r] [-p PID] [-o FILE] [-d SECONDS]",
		"",
		"  Print the DRM ioctls (_IOC_TYPE(cmd) == 'd') of every process, or of",
		"  one, as they enter and leave the kernel:",
		"",
		"    [sec.nsec] IOCTL_ENTER pid= tid= comm= cmd= arg=",
		"    [sec.nsec] IOCTL_EXIT pid= tid= comm= cmd= ret= duration_ns=",
		"",
		"  and NVIDIA's (type 'F' on a device of major 195, /dev/nvidia*), the",
		"  same with drv=nvidia dev=DEVICE name=NAME at the end.",
		"",
		"  Times are CLOCK_MONOTONIC, the clock of the grtrace stream: give the",
		"  output and a 'grtrace record' file to 'grtrace merge'.  Needs root",
		"  (CAP_BPF and CAP_PERFMON) and a kernel with CONFIG_BPF_SYSCALL,",
		"  CONFIG_BPF_EVENTS and CONFIG_FTRACE_SYSCALLS; no BTF.",
		"",
		"    -p/--pid PID: only the threads of process PID; stop when it exits",
		"    -o/--output FILE: write to FILE instead of stdout",
		"    -d/--duration SECONDS: stop after SECONDS (default: at SIGINT/SIGTERM)",
		"    -r/--raw-syscalls: raw_syscalls/sys_{enter,exit} even if there are",
		"                       syscalls/sys_{enter,exit}_ioctl",
		"    -q/--quiet: no summary on stderr at the end",
		"    -v/--verbose: libbpf's messages too",
		"    -h/--help: print this help",
		NULL,
	};
	FILE *f = err ? stderr : stdout;
	int i;

	if (err)
		err_msg("%s\n", err);
	fprintf(f, "grtrace-bpf-annotate version %s", VERSION);
	for (i = 0; msg[i]; i++)
		fprintf(f, "%s\n", msg[i]);
	exit(err ? EXIT_FAILURE : EXIT_SUCCESS);
}

static int parse_ull(const char *s, unsigned long long max, unsigned long long *val)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || *end || *val > max)
		return -1;
	return 0;
}

static void parse_args(int argc, char *argv[], struct annotate_params *p)
{
	static const struct option opts[] = {
		{ "pid",	required_argument,	NULL, 'p' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "raw-syscalls", no_argument,		NULL, 'r' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static char msg[4200];
	unsigned long long v;
	int c;

	opterr = 0;
	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "p:o:d:rqvh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_ull(optarg, INT_MAX, &v) || !v)
				annotate_usage("invalid --pid: a process id is expected");
			p->pid = v;
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'd':
			if (parse_ull(optarg, 365ULL * 86400, &v) || !v)
				annotate_usage("invalid --duration: whole seconds, 1 or more");
			p->duration = v;
			break;
		case 'r':
			p->raw = true;
			break;
		case 'q':
			p->quiet = true;
			break;
		case 'v':
			p->verbose = true;
			break;
		case 'h':
			annotate_usage(NULL);
			break;
		default:
			/* a letter of a cluster, else the word (a long option) */
			if (optopt > 0 && optopt < 128 && isgraph(optopt) &&
			    strncmp(argv[optind - 1], "--", 2))
				snprintf(msg, sizeof(msg), "invalid or incomplete option '-%c'",
					 optopt);
			else
				snprintf(msg, sizeof(msg), "invalid or incomplete option '%s'",
					 argv[optind - 1]);
			annotate_usage(msg);
		}
	}
	if (optind < argc) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[optind]);
		annotate_usage(msg);
	}
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Is there the tracepoint SYSTEM/NAME?  Then 1, else 0; -1: no tracefs,
 * -2: tracefs not readable.
 */
static int have_tracepoint(const char *system, const char *name)
{
	char path[256];
	bool any = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracefs_roots); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_roots[i]);
		if (access(path, F_OK)) {
			if (errno == EACCES)
				return -2;
			continue;
		}
		any = true;
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_roots[i],
			 system, name);
		if (!access(path, F_OK))
			return 1;
	}
	return any ? 0 : -1;
}

static const struct tp_pair *pick_tracepoints(bool raw)
{
	size_t i;
	int ret;

	for (i = raw ? 1 : 0; i < ARRAY_SIZE(tp_pairs); i++) {
		ret = have_tracepoint(tp_pairs[i].system, tp_pairs[i].enter);
		if (ret == -2) {
			err_msg("tracefs: permission denied: " ROOT_HINT "\n");
			return NULL;
		}
		if (ret < 0) {
			err_msg("tracefs is not mounted (%s)\n",
				"mount -t tracefs nodev /sys/kernel/tracing");
			return NULL;
		}
		if (ret && have_tracepoint(tp_pairs[i].system, tp_pairs[i].exit) == 1)
			return &tp_pairs[i];
	}
	err_msg("this kernel has no syscall tracepoints: %s\n",
		"it needs CONFIG_FTRACE_SYSCALLS");
	return NULL;
}

static void bpf_failure(const char *what, int err)
{
	if (err == EPERM || err == EACCES)
		err_msg("%s: %s: BPF is not permitted: " ROOT_HINT "\n", what, strerror(err));
	else if (err == EINVAL || err == EOPNOTSUPP || err == ENOENT)
		err_msg("%s: %s: no BPF programs on tracepoints: " CONFIG_HINT "\n",
			what, strerror(err));
	else
		err_msg("%s: %s\n", what, strerror(err));
}

static int handle_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size >= sizeof(struct ga_event))
		ga_decode(&decoder, data, out);
	return 0;
}

static void counters(struct bpf_object *obj, __u64 *val)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "counters");
	__u32 i;

	memset(val, 0, GA_CNT_NR * sizeof(*val));
	for (i = 0; map && i < GA_CNT_NR; i++)
		bpf_map__lookup_elem(map, &i, sizeof(i), &val[i], sizeof(val[i]), 0);
}

/*
 * The runs of @prog the kernel skipped because the program was running on
 * the CPU already, in another task or below an interrupt
 * (bpf_prog_info.recursion_misses, Linux 5.12).  The programs run at every
 * ioctl: an upper bound of the ioctls whose ENTER or EXIT is missing for
 * that.  0 if the kernel does not say.
 */
static __u64 prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

int main(int argc, char *argv[])
{
	struct annotate_params p;
	const struct tp_pair *tp;
	struct bpf_object *obj = NULL;
	struct bpf_program *prog, *penter, *pexit;
	struct bpf_link *lenter = NULL, *lexit = NULL;
	struct ring_buffer *rb = NULL;
	struct sigaction sa = { .sa_handler = stop_handler };
	unsigned long long deadline = 0;
	__u64 cnt[GA_CNT_NR];
	int ret = EXIT_FAILURE, err;
	__u32 zero = 0;

	parse_args(argc, argv, &p);
	verbose = p.verbose;
	ga_decoder_init(&decoder, ga_resolve_proc, NULL);
	libbpf_set_print(libbpf_print);
	if (p.pid && kill(p.pid, 0) && errno == ESRCH) {
		err_msg("no process %u\n", p.pid);
		return EXIT_FAILURE;
	}

	tp = pick_tracepoints(p.raw);
	if (!tp)
		return EXIT_FAILURE;
	/* Only there with CONFIG_BPF_SYSCALL */
	if (access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK) && errno == ENOENT) {
		err_msg("BPF is not available: %s\n",
			"this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)");
		return EXIT_FAILURE;
	}

	obj = bpf_object__open_mem(grtrace_annotate_bpf_obj,
				   grtrace_annotate_bpf_obj_end - grtrace_annotate_bpf_obj,
				   NULL);
	if (!obj) {
		err_msg("cannot open the BPF object: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	penter = bpf_object__find_program_by_name(obj, tp->enter_prog);
	pexit = bpf_object__find_program_by_name(obj, tp->exit_prog);
	if (!penter || !pexit) {
		err_msg("BPF object without programs %s and %s\n", tp->enter_prog,
			tp->exit_prog);
		goto out;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, prog == penter || prog == pexit);

	if (bpf_object__load(obj)) {
		bpf_failure("cannot load the BPF programs", errno);
		goto out;
	}
	if (p.pid &&
	    bpf_map__update_elem(bpf_object__find_map_by_name(obj, "filter"), &zero,
				 sizeof(zero), &p.pid, sizeof(p.pid), BPF_ANY)) {
		err_msg("cannot set the pid filter: %s\n", strerror(errno));
		goto out;
	}
	lenter = bpf_program__attach_tracepoint(penter, tp->system, tp->enter);
	err = errno;
	if (!lenter) {
		err_msg("cannot attach to %s/%s\n", tp->system, tp->enter);
		bpf_failure("attach", err);
		goto out;
	}
	lexit = bpf_program__attach_tracepoint(pexit, tp->system, tp->exit);
	err = errno;
	if (!lexit) {
		err_msg("cannot attach to %s/%s\n", tp->system, tp->exit);
		bpf_failure("attach", err);
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "events")),
			      handle_event, NULL, NULL);
	if (!rb) {
		err_msg("cannot set up the ring buffer: %s\n", strerror(errno));
		goto out;
	}

	out = stdout;
	if (p.output) {
		out = fopen(p.output, "w");
		if (!out) {
			err_msg("%s: %s\n", p.output, strerror(errno));
			out = NULL;
			goto out;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	fprintf(out, "# grtrace-bpf-annotate %s: DRM and NVIDIA ioctls, clock %s, %s %s/%s %s/%s",
		VERSION, "CLOCK_MONOTONIC ns", "tracepoints", tp->system, tp->enter, tp->system,
		tp->exit);
	if (p.pid)
		fprintf(out, ", pid %u", p.pid);
	fprintf(out, ", from [%llu.%09llu]\n", mono_ns() / NSEC_PER_SEC,
		mono_ns() % NSEC_PER_SEC);
	fflush(out);
	if (!p.quiet)
		err_msg("attached to %s/%s and %s, %s\n",
			tp->system, tp->enter, tp->exit,
			p.duration ? "for the given duration" : "Ctrl-C to stop");
	if (p.duration)
		deadline = mono_ns() + p.duration * NSEC_PER_SEC;

	while (!stop) {
		err = ring_buffer__poll(rb, POLL_MS);
		if (err < 0 && err != -EINTR) {
			err_msg("reading the ring buffer: %s\n", strerror(-err));
			goto out;
		}
		if (fflush(out)) {
			err_msg("%s: %s\n", p.output ? p.output : "stdout", strerror(errno));
			goto out;
		}
		if (deadline && mono_ns() >= deadline)
			break;
		if (p.pid && kill(p.pid, 0) && errno == ESRCH)
			break;
	}
	/* Whatever came in before the detach */
	bpf_link__destroy(lenter);
	bpf_link__destroy(lexit);
	lenter = NULL;
	lexit = NULL;
	ring_buffer__consume(rb);
	if (fflush(out)) {
		err_msg("%s: %s\n", p.output ? p.output : "stdout", strerror(errno));
		goto out;
	}
	counters(obj, cnt);
	if (!p.quiet) {
		err_msg("%llu ioctls ('d', 'F') entered, %llu left, %llu lines, %llu lost\n",
			(unsigned long long)cnt[GA_CNT_ENTER],
			(unsigned long long)cnt[GA_CNT_EXIT], decoder.lines,
			(unsigned long long)cnt[GA_CNT_LOST]);
		err_msg("%llu without exit, %llu not waited for (no room)\n",
			(unsigned long long)cnt[GA_CNT_NESTED],
			(unsigned long long)cnt[GA_CNT_NO_SLOT]);
		err_msg("runs the kernel skipped: %llu enters, %llu exits\n",
			(unsigned long long)prog_misses(penter),
			(unsigned long long)prog_misses(pexit));
		err_msg("'F': %llu NVIDIA (%llu of a closed fd), left out: %llu other, %llu gone\n",
			decoder.nvidia, decoder.remembered, decoder.other_dev, decoder.gone);
	}
	ret = EXIT_SUCCESS;
out:
	if (out && out != stdout && fclose(out)) {
		err_msg("%s: %s\n", p.output, strerror(errno));
		ret = EXIT_FAILURE;
	}
	ring_buffer__free(rb);
	bpf_link__destroy(lenter);
	bpf_link__destroy(lexit);
	bpf_object__close(obj);
	return ret;
}

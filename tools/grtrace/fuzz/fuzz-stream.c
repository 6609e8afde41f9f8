// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace-fuzz: a libFuzzer target of the grtrace tool's readers.
 *
 * Each input is a file for "-i", given to the commands as a user runs them:
 * report with a few option sets, export (Chrome and KernelShark), timeline,
 * dump, and merge with no ioctl to match, and as merge's CPU.txt (the
 * annotator's lines, read before the recording).  The same input also goes in
 * pieces to a directory of per-CPU files, each record to events<cpu % 2>.bin,
 * for the merges of report and dump.  The readers tell the formats apart by
 * their magic: an input that starts like a trace.dat reaches the trace.dat
 * reader (when grtrace is built with libtracecmd) through the commands
 * marked .dat, after grtrace-dat-check (dat-check.c) has shown that
 * libtracecmd itself survives it.
 *
 * The input is a memfd, opened through /proc/self/fd/N; stdout goes to
 * /dev/null.  Only valid option sets: a usage() would exit().  Build and
 * run: "make -C tools/grtrace fuzz", "make fuzz" (scripts/test-fuzz.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/grtrace.h>

#include "../src/commands.h"
#include "../src/utils.h"

#define MAX_ARGS	12
#define DAT_MAGIC	"\027\010\104tracing"	/* of a trace-cmd data file */
#define FILE_ARG	"@FILE@"	/* replaced by the input's path */
#define DIR_ARG		"@DIR@"		/* by the directory of its pieces */

/*
 * The commands run on each input; .dat: also on a trace.dat, whose reader
 * (libtracecmd) costs 5 to 50 ms a run, and which ends in the same events
 * as a stream
 */
static const struct {
	int (*main)(int argc, char *argv[]);
	bool dat;
	const char *argv[MAX_ARGS];
} runs[] = {
	{ gr_report_main, false, { "report", "-i", FILE_ARG } },
	{ gr_report_main, false, { "report", "-i", FILE_ARG, "--jobs" } },
	{ gr_report_main, true, { "report", "-i", FILE_ARG, "--per-ring", "--per-context",
				  "--per-process", "-f", "json" } },
	{ gr_report_main, false, { "report", "-i", FILE_ARG, "--hist", "size", "-f", "csv" } },
	{ gr_report_main, false, { "report", "-i", FILE_ARG, "--topn", "3", "--hist", "lat" } },
	{ gr_export_main, true, { "export", "-i", FILE_ARG, "--chrome", "/dev/null",
				  "--kernelshark", "/dev/null" } },
	{ gr_timeline_main, false, { "timeline", "-i", FILE_ARG, "-w", "80" } },
	{ gr_timeline_main, false, { "timeline", "-i", FILE_ARG, "--latency", "--top", "3" } },
	{ gr_dump_main, true, { "dump", "-i", FILE_ARG, "--raw" } },
	{ gr_merge_main, false, { "merge", "-c", "/dev/null", "-i", FILE_ARG } },
	{ gr_merge_main, false, { "merge", "-c", FILE_ARG, "-i", FILE_ARG, "-j" } },
	{ gr_report_main, false, { "report", "-i", DIR_ARG, "--per-ring" } },
	{ gr_dump_main, false, { "dump", "-i", DIR_ARG } },
};

static int memfd = -1;
static char file[64];
static char dir[PATH_MAX - 16];
static char piece[2][PATH_MAX];

static char check[PATH_MAX];	/* grtrace-dat-check, next to this program */
static char check_file[64];	/* the input's path for it */

const char *__lsan_default_suppressions(void);

/*
 * Leaks of libtracecmd and libtraceevent on their error paths are theirs.
 * A handle of theirs that grtrace does not close is suppressed too.  So
 * are strings sscanf() allocates (%m): grtrace never asks for one, and
 * the fast unwinder loses the library's frames in the C library's.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtracecmd.so\nleak:libtraceevent.so\nleak:__isoc99_vsscanf\n";
}

static void cleanup(void)
{
	unlink(piece[0]);
	unlink(piece[1]);
	rmdir(dir);
}

/* libFuzzer's entry points, under the symbol names it calls */
int fuzz_init(int *argc, char ***argv) __asm__("LLVMFuzzerInitialize");
int fuzz_one(const uint8_t *data, size_t size) __asm__("LLVMFuzzerTestOneInput");

int fuzz_init(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);
	ssize_t n;

	(void)argc;
	(void)argv;
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		perror("grtrace-fuzz: /dev/null");
		exit(1);
	}
	close(fd);
	memfd = memfd_create("grtrace-fuzz", MFD_CLOEXEC);
	snprintf(dir, sizeof(dir), "%s/grtrace-fuzz-input.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (memfd < 0 || !mkdtemp(dir)) {
		perror("grtrace-fuzz: memfd_create, mkdtemp");
		exit(1);
	}
	snprintf(file, sizeof(file), "/proc/self/fd/%d", memfd);
	snprintf(check_file, sizeof(check_file), "/proc/%d/fd/%d", (int)getpid(), memfd);
	n = readlink("/proc/self/exe", check, sizeof(check) - 1);
	if (n > 0) {
		check[n] = '\0';
		*strrchr(check, '/') = '\0';
		snprintf(check + strlen(check), sizeof(check) - strlen(check),
			 "/grtrace-dat-check");
	}
	snprintf(piece[0], sizeof(piece[0]), "%s/events0.bin", dir);
	snprintf(piece[1], sizeof(piece[1]), "%s/events1.bin", dir);
	atexit(cleanup);
	return 0;
}

static void write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	for (; len; p += n, len -= n) {
		n = write(fd, p, len);
		if (n <= 0) {
			perror("grtrace-fuzz: write");
			abort();
		}
	}
}

/*
 * The records of the input, each to the file of its CPU (cpu % 2); what
 * follows the last whole record (damage, or a partial record) to file 0.
 */
static void split(const uint8_t *data, size_t size)
{
	int fd[2], i;
	size_t off = 0;
	struct grtrace_record h;

	for (i = 0; i < 2; i++) {
		fd[i] = open(piece[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd[i] < 0) {
			perror(piece[i]);
			abort();
		}
	}
	while (size - off >= sizeof(h)) {
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > size - off)
			break;
		write_all(fd[h.cpu % 2], data + off, h.size);
		off += h.size;
	}
	write_all(fd[0], data + off, size - off);
	close(fd[0]);
	close(fd[1]);
}

/*
 * Whether libtracecmd survives the input on its own (grtrace-dat-check,
 * in a process of its own), within its 1 s: the commands marked .dat read
 * it twice more, in the fuzzer's 10 s.  When it does not, the input hits
 * a bug of libtracecmd: not grtrace's to find.  Without the program
 * (grtrace built without libtracecmd), every input is tried.
 */
static bool libtracecmd_survives(void)
{
	static char *const env[] = { NULL };	/* its own ASAN_OPTIONS */
	char *const argv[] = { check, check_file, NULL };
	posix_spawn_file_actions_t fa;
	int status;
	pid_t pid;

	if (access(check, X_OK))
		return true;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, check, &fa, NULL, argv, env)) {
		perror(check);
		abort();
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("grtrace-fuzz: waitpid");
			abort();
		}
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

int fuzz_one(const uint8_t *data, size_t size)
{
	bool dat = size >= sizeof(DAT_MAGIC) - 1 &&
		   !memcmp(data, DAT_MAGIC, sizeof(DAT_MAGIC) - 1);
	char *argv[MAX_ARGS + 1];
	size_t i;
	int argc;

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("grtrace-fuzz: memfd");
		abort();
	}
	if (dat && !libtracecmd_survives())
		return -1;	/* not added to the corpus */
	if (!dat)
		split(data, size);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		if (dat && !runs[i].dat)
			continue;
		/* getopt_long() permutes argv: a fresh copy for each run */
		for (argc = 0; argc < MAX_ARGS && runs[i].argv[argc]; argc++) {
			const char *a = runs[i].argv[argc];

			if (!strcmp(a, FILE_ARG))
				a = file;
			else if (!strcmp(a, DIR_ARG))
				a = dir;
			argv[argc] = (char *)a;
		}
		argv[argc] = NULL;
		optind = 0;	/* glibc: start over, forget the last argv */
		runs[i].main(argc, argv);
		fflush(stdout);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the inputs of the commands, and the grtrace debugfs directory.
 *
 * An input is one file, a directory of per-CPU files (events<N> or
 * events<N>.bin), the live relay files in debugfs, a trace-cmd
 * recording (trace.dat), or an ftrace instance ("instance:NAME", such as a
 * persistent one holding the previous boot).  This decides which one a path is and reads it
 * with the reader of its format into a struct gr_trace, the records of all
 * files merged by gseq.  It is also the only
 * user of the grtrace debugfs files: libtracefs finds (and if needed
 * mounts) debugfs, the grtrace files themselves are plain debugfs files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include <tracefs.h>

#include "input.h"
#include "stream.h"
#include "tracedat.h"
#include "utils.h"

/* ---- the grtrace debugfs directory ---- */

/*
 * gr_kernel_dir - the grtrace debugfs directory
 *
 * $GRTRACE_DIR overrides it (tests, or debugfs mounted elsewhere).
 * Returns: the path, or NULL if debugfs is not mounted and cannot be.
 */
const char *gr_kernel_dir(void)
{
	static char path[PATH_MAX];
	const char *debugfs;

	if (path[0])
		return path;
	if (getenv("GRTRACE_DIR")) {
		snprintf(path, sizeof(path), "%s", getenv("GRTRACE_DIR"));
		return path;
	}
	debugfs = tracefs_debug_dir();
	if (!debugfs)
		return NULL;
	snprintf(path, sizeof(path), "%s/grtrace", debugfs);
	return path;
}

static void dir_error(const char *dir, int err)
{
	if (err == EACCES || err == EPERM)
		gr_err_msg("permission denied on %s: grtrace needs root\n", dir);
	else if (err == ENOENT)
		gr_err_msg("%s does not exist: no CONFIG_GRTRACE or module not loaded\n", dir);
	else
		gr_err_msg("cannot access %s: %s\n", dir, strerror(err));
}

/*
 * gr_kernel_check - say in one sentence why grtrace cannot be used
 *
 * Returns: 0 if the directory is there and accessible, -1 otherwise.
 */
int gr_kernel_check(void)
{
	const char *dir = gr_kernel_dir();
	struct stat st;

	if (!dir) {
		gr_err_msg("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)\n");
		return -1;
	}
	if (stat(dir, &st)) {
		dir_error(dir, errno);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		gr_err_msg("%s is not a directory\n", dir);
		return -1;
	}
	if (access(dir, R_OK | X_OK)) {
		dir_error(dir, errno);
		return -1;
	}
	return 0;
}

static void path_of(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", gr_kernel_dir(), file);
}

static void file_error(const char *path, int err)
{
	if (err == EACCES || err == EPERM)
		gr_err_msg("permission denied on %s: grtrace needs root\n", path);
	else if (err == ENOENT)
		gr_err_msg("%s does not exist: the grtrace module is not loaded or too old\n",
			   path);
	else
		gr_err_msg("%s: %s\n", path, strerror(err));
}

/*
 * gr_kernel_read - read a whole grtrace debugfs file
 *
 * Returns: a NUL terminated malloc()ed copy, or NULL (error printed).
 */
char *gr_kernel_read(const char *file)
{
	char path[PATH_MAX], *buf;

	path_of(path, sizeof(path), file);
	buf = gr_read_text(path);
	if (!buf)
		file_error(path, errno);
	return buf;
}

/*
 * gr_kernel_write - write @buf to a grtrace file with a single write()
 *
 * The kernel checks a write as a whole, so all of @buf succeeds or none.
 * Returns: 0 or a negative errno; only open errors are printed here.
 */
int gr_kernel_write(const char *file, const char *buf)
{
	size_t len = strlen(buf);
	char path[PATH_MAX];
	ssize_t n;
	int fd, ret = 0;

	path_of(path, sizeof(path), file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		ret = -errno;
		file_error(path, errno);
		return ret;
	}
	gr_debug_msg("write %s: %s\n", path, buf);
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * gr_session_running - is a relay session running?
 *
 * Returns: 1 running, 0 stopped, -1 error (printed).
 */
int gr_session_running(void)
{
	char *s = gr_kernel_read("control");
	int ret = -1;

	if (!s)
		return -1;
	if (!strncmp(s, "running", 7))
		ret = 1;
	else if (!strncmp(s, "stopped", 7))
		ret = 0;
	else
		gr_err_msg("%s/control: unexpected state '%.20s'\n", gr_kernel_dir(), s);
	free(s);
	return ret;
}

/* ---- finding the files ---- */

static int events_nr(const char *name)
{
	const char *p = name + 6;
	int n = 0;

	if (strncmp(name, "events", 6) || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9' && n < 1000000; p++)
		n = n * 10 + *p - '0';
	if (*p && strcmp(p, ".bin"))
		return -1;
	return n;
}

static int cmp_events_path(const void *a, const void *b)
{
	const char *x = strrchr(*(char * const *)a, '/') + 1;
	const char *y = strrchr(*(char * const *)b, '/') + 1;

	return events_nr(x) - events_nr(y);
}

/*
 * gr_input_list_events - the events<N> and events<N>.bin files of @dir, by N
 *
 * Returns: a NULL terminated list (maybe empty), or NULL if @dir cannot be
 * read (errno set).
 */
char **gr_input_list_events(const char *dir)
{
	struct dirent *de;
	char **list = NULL;
	size_t n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return NULL;
	list = gr_zalloc(sizeof(*list));
	while ((de = readdir(d))) {
		if (events_nr(de->d_name) < 0)
			continue;
		list = gr_realloc(list, n + 2, sizeof(*list));
		list[n] = gr_zalloc(strlen(dir) + strlen(de->d_name) + 2);
		sprintf(list[n], "%s/%s", dir, de->d_name);
		list[++n] = NULL;
	}
	closedir(d);
	qsort(list, n, sizeof(*list), cmp_events_path);
	return list;
}

/*
 * gr_kernel_relay_files - the relay files of the grtrace debugfs directory
 *
 * Returns: a NULL terminated list (maybe empty), or NULL if the directory
 * cannot be read (errno set).
 */
char **gr_kernel_relay_files(void)
{
	return gr_input_list_events(gr_kernel_dir());
}

/*
 * gr_kernel_relay_fd - whether @fd is open on a live relay file
 *
 * A relay file publishes whole writes, a file on disk may end in a part of
 * one.
 *
 * Returns: true if @fd is a file of debugfs.
 */
bool gr_kernel_relay_fd(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == DEBUGFS_MAGIC;
}

/* ---- reading an input ---- */

/* Live: name the rings that lost their METADATA from the "rings" file. */
static void live_rings(struct gr_trace *t)
{
	char *s = gr_kernel_read("rings"), *line, *save = NULL;
	char engine[32], dev[33], name[33];
	unsigned int id;
	struct gr_ring *r;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%u %31s %32s %32s", &id, engine, dev, name) != 4)
			continue;
		id = gr_ring_local(t, id);
		r = &t->rings[id];
		if (r->known)
			continue;
		r->known = true;
		r->engine = gr_engine_parse(engine) < 0 ? GRTRACE_ENGINE_OTHER :
			    gr_engine_parse(engine);
		snprintf(r->dev, sizeof(r->dev), "%s", dev);
		snprintf(r->name, sizeof(r->name), "%s", name);
	}
	free(s);
}

/*
 * gr_input_session - the argument of --session: N from 1
 *
 * Returns: N, or 0 when @arg is not a number above 0 (an int).
 */
int gr_input_session(const char *arg)
{
	__u64 n;

	return gr_parse_u64(arg, &n) || !n || n > INT_MAX ? 0 : (int)n;
}

/*
 * gr_input_stat - stat() an input named on the command line
 * @path: the input; "-" is standard input
 * @st: where its status goes
 *
 * Returns: the path to open ("-" is /dev/stdin), or NULL (printed).
 */
const char *gr_input_stat(const char *path, struct stat *st)
{
	if (!strcmp(path, "-"))
		path = "/dev/stdin";
	if (stat(path, st)) {
		if (errno == ENOENT && !strcmp(path, GR_DEFAULT_INPUT))
			gr_err_msg("%s: %s (%s)\n", path, strerror(errno),
				   "make one with grtrace record, or give -i FILE, or --live for the live relay files");
		else
			gr_err_msg("%s: %s\n", path, strerror(errno));
		return NULL;
	}
	return path;
}

static int find_files(struct gr_trace *t, const char *path)
{
	bool live = !path;
	struct stat st;
	int n;

	if (!path) {
		if (gr_kernel_check())
			return -1;
		path = gr_kernel_dir();
	}
	path = gr_input_stat(path, &st);
	if (!path)
		return -1;
	t->input = path;
	t->is_dir = S_ISDIR(st.st_mode);
	if (t->is_dir) {
		t->files = gr_input_list_events(path);
		if (!t->files) {
			gr_err_msg("%s: %s\n", path, strerror(errno));
			return -1;
		}
	} else {
		t->files = gr_zalloc(2 * sizeof(*t->files));
		t->files[0] = gr_strdup(path);
	}
	for (n = 0; t->files[n]; n++)
		;
	t->nr_files = n;
	if (!n && !live)
		gr_err_msg("%s: no events<N> or events<N>.bin files in this directory\n",
			   path);
	else if (!n)
		gr_err_msg("%s: no relay files: no session was started since grtrace was loaded\n",
			   path);
	return n ? 0 : -1;
}

/* The kernel counters saved next to the relay files of a directory */
static void dir_stats(struct gr_trace *t, const char *dir)
{
	static const char * const names[] = {
		"stats", "stats.txt", "grtrace-stats.txt",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names) && !t->stats; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		t->stats = gr_read_text(path);
		if (t->stats)
			gr_debug_msg("kernel stats from %s\n", path);
	}
}

/*
 * gr_instance_cpu_sum - a counter of an ftrace instance's per-CPU buffers,
 * summed over the CPUs
 * @key: its name in per_cpu/cpu<N>/stats, with the colon ("overrun:")
 */
unsigned long long gr_instance_cpu_sum(struct tracefs_instance *inst, const char *key)
{
	long cpu, nr = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long n = 0;
	char file[64], *s, *k;

	for (cpu = 0; cpu < nr; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		s = tracefs_instance_file_read(inst, file, NULL);
		k = s ? strstr(s, key) : NULL;
		if (k)
			n += strtoull(k + strlen(key), NULL, 10);
		free(s);
	}
	return n;
}

/*
 * gr_input_live_info - what the kernel says besides the relay files: the
 * rings that lost their METADATA, and the counters
 */
void gr_input_live_info(struct gr_trace *t)
{
	live_rings(t);
	if (!t->stats)
		t->stats = gr_kernel_read("stats");
}

/* ---- ftrace instances: a persistent ring buffer's previous boot ---- */

/* A trace-cmd recording or an instance is one session: --session 1 at most */
static int one_session(const struct gr_trace *t)
{
	if (t->session <= 1)
		return 0;
	gr_err_msg("%s: no session %d: the input holds 1\n", t->input, t->session);
	return -1;
}

/* An ftrace instance, "instance:NAME": its grtrace events, read whole */
static int find_instance(struct gr_trace *t, const char *path)
{
	const char *name = path + strlen(GR_INSTANCE_PREFIX);

	t->input = path;
	t->instance = name;
	t->is_tracedat = true;
	if (!*name) {
		gr_err_msg("%s: no instance name after '%s'\n", path, GR_INSTANCE_PREFIX);
		return -1;
	}
	if (one_session(t) || gr_instance_load(t, name) || gr_trace_merge(t))
		return -1;
	t->records = t->nr_ev;
	return 0;
}

/*
 * gr_instance_boot - whose events a boot-mapped instance's ring buffer holds
 *
 * Its last_boot_info starts with the previous kernel's text address while
 * the buffer holds that boot's events, and says "# Current" once it holds
 * this boot's; an instance not in reserved memory has no such file.
 */
enum gr_boot gr_instance_boot(struct tracefs_instance *inst)
{
	char *info = tracefs_instance_file_read(inst, "last_boot_info", NULL);
	enum gr_boot boot = GR_BOOT_UNMAPPED;

	if (info && *info)
		boot = strncmp(info, "# Current", 9) ? GR_BOOT_PREVIOUS : GR_BOOT_THIS;
	free(info);
	return boot;
}

/* An instance whose ring buffer holds a previous boot's events */
static int last_boot_one(const char *name, void *data)
{
	char **found = data;
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);

	if (inst && gr_instance_boot(inst) == GR_BOOT_PREVIOUS) {
		gr_debug_msg("instance %s holds a previous boot\n", name);
		if (!*found)
			*found = gr_strdup(name);
	}
	tracefs_instance_free(inst);
	return 0;
}

/* The name of an ftrace instance that holds a previous boot, or NULL */
char *gr_last_boot_instance(void)
{
	char *found = NULL;

	tracefs_instances_walk(last_boot_one, &found);
	return found;
}

/*
 * gr_last_boot_saved - where grtrace persist --save keeps the previous
 * boot's events: GRTRACE_STATE_DIR or GR_STATE_DIR, then GR_LAST_BOOT_FILE
 * @dir: the directory, or NULL for the default
 *
 * Returns: the path (allocated).
 */
char *gr_last_boot_saved(const char *dir)
{
	char *path;
	size_t len;

	if (!dir)
		dir = getenv("GRTRACE_STATE_DIR") && *getenv("GRTRACE_STATE_DIR") ?
		      getenv("GRTRACE_STATE_DIR") : GR_STATE_DIR;
	len = strlen(dir) + strlen(GR_LAST_BOOT_FILE) + 2;
	path = gr_zalloc(len);
	snprintf(path, len, "%s/%s", dir, GR_LAST_BOOT_FILE);
	return path;
}

/**
 * gr_boot_id - the first 64 bits of this boot's id (random/boot_id)
 * @id: set to them
 *
 * grtrace persist --save gives them as the session id of the file it
 * writes: a clock stepped after the save cannot make another boot's file
 * this boot's, as a time would.
 * Returns: 0, or -1 if the kernel does not say.
 */
int gr_boot_id(__u64 *id)
{
	char buf[64], hex[19] = "0x";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	int i, n = 2;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	for (i = 0; buf[i] && n < 18; i++)
		if (buf[i] != '-')
			hex[n++] = buf[i];
	hex[n] = '\0';
	return n == 18 && !gr_parse_u64(hex, id) ? 0 : -1;
}

/*
 * gr_saved_this_boot - whether @path is a stream whose session id is this
 * boot's id: the file grtrace persist --save wrote in this boot
 */
bool gr_saved_this_boot(const char *path)
{
	struct {
		struct grtrace_record h;
		struct grtrace_stream_info si;
	} head;
	__u64 id;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fread(&head, sizeof(head), 1, f) == 1 &&
	     head.h.type == GRTRACE_EV_STREAM_INFO && head.si.magic == GRTRACE_MAGIC &&
	     !gr_boot_id(&id) && head.si.session_id == id;
	fclose(f);
	return ok;
}

/*
 * gr_input_last_boot - the input of the previous boot's events
 * @name: the instance's name, or NULL for the saved file, else the instance
 *	holding a previous boot
 *
 * The file grtrace persist --save wrote in this boot (its session id is
 * this boot's id) holds the previous boot's events, and reading it leaves
 * them in place; one written in another boot holds an earlier boot's, and
 * is not taken for the previous.
 * Returns: the file, or "instance:NAME" (allocated), or NULL with the
 * problem printed.
 */
char *gr_input_last_boot(const char *name)
{
	static const char none[] =
		"no ftrace instance holds a previous boot's events (see grtrace persist)";
	char *found = NULL, *input;
	size_t len;

	if (!name) {
		input = gr_last_boot_saved(NULL);
		if (gr_saved_this_boot(input)) {
			gr_debug_msg("%s: saved in this boot\n", input);
			return input;
		}
		free(input);
		found = gr_last_boot_instance();
		if (!found) {
			gr_err_msg("%s\n", none);
			return NULL;
		}
		name = found;
	}
	len = strlen(GR_INSTANCE_PREFIX) + strlen(name) + 1;
	input = gr_zalloc(len);
	snprintf(input, len, "%s%s", GR_INSTANCE_PREFIX, name);
	free(found);
	return input;
}

/*
 * gr_input_arg - the input of a command that reads one, once getopt is done
 * @input: -i's argument, or NULL
 * @live: --live was given
 * @argc, @argv: the command line; a FILE left after the options is the input
 * @err: set to the problem, for the command's usage message, if there is one
 *
 * Returns: -i's input, or the FILE, or GR_DEFAULT_INPUT (as trace-cmd reads
 * trace.dat); NULL with --live: the live relay files, which reading consumes.
 */
const char *gr_input_arg(const char *input, bool live, int argc, char **argv,
			 const char **err)
{
	*err = NULL;
	if (live && (input || optind < argc))
		*err = "--live reads the live relay files, not an input file";
	else if (!input && optind < argc)
		input = argv[optind++];
	if (!*err && optind < argc)
		*err = gr_unexpected(argv[optind]);
	return live ? NULL : input ? input : GR_DEFAULT_INPUT;
}

/*
 * gr_input_find - the files of an input, and what goes with them
 * @path: a file, a directory of per-CPU files, "instance:NAME" for the
 *        grtrace events of an ftrace instance, or NULL for the live relay
 *        files
 *
 * Sets the files, the kind of input and the kernel counters saved next to
 * per-CPU files; of @t, keeps only @t->session, the session to read, and
 * @t->use and @t->whole.  A trace.dat is read whole here (t->ev, merged)
 * when @t->whole is set, else as a stream by gr_src_open().
 * Returns: 0, or -1 with the problem printed.
 */
int gr_input_find(struct gr_trace *t, const char *path)
{
	int session = t->session;
	enum gr_use use = t->use;
	bool whole = t->whole;

	memset(t, 0, sizeof(*t));
	t->session = session;
	t->use = use;
	t->whole = whole;
	if (path && !strncmp(path, GR_INSTANCE_PREFIX, strlen(GR_INSTANCE_PREFIX)))
		return find_instance(t, path);
	if (find_files(t, path))
		return -1;
	if (!t->is_dir && path && gr_is_tracedat(t->input)) {
		t->is_tracedat = true;
		if (one_session(t))
			return -1;
		if (!whole)
			return 0;
		if (gr_tracedat_load(t, t->input) || gr_trace_merge(t))
			return -1;
		t->records = t->nr_ev;
		return 0;
	}
	t->clock = "mono";
	if (t->is_dir)
		dir_stats(t, path);
	return 0;
}

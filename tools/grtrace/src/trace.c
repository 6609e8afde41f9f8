// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: access to the grtrace debugfs directory and the grtrace trace
 * events.  libtracefs finds (and if needed mounts) debugfs and handles the
 * tracefs instance; the grtrace files themselves are plain debugfs files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>

#include "trace.h"
#include "utils.h"

/*
 * grtrace_dir - the grtrace debugfs directory
 *
 * $GRTRACE_DIR overrides it (tests, or debugfs mounted elsewhere).
 * Returns: the path, or NULL if debugfs is not mounted and cannot be.
 */
const char *grtrace_dir(void)
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
		err_msg("permission denied on %s: grtrace needs root\n", dir);
	else if (err == ENOENT)
		err_msg("%s does not exist: no CONFIG_GRTRACE or module not loaded\n", dir);
	else
		err_msg("cannot access %s: %s\n", dir, strerror(err));
}

/*
 * grtrace_dir_check - say in one sentence why grtrace cannot be used
 *
 * Returns: 0 if the directory is there and accessible, -1 otherwise.
 */
int grtrace_dir_check(void)
{
	const char *dir = grtrace_dir();
	struct stat st;

	if (!dir) {
		err_msg("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)\n");
		return -1;
	}
	if (stat(dir, &st)) {
		dir_error(dir, errno);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		err_msg("%s is not a directory\n", dir);
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
	snprintf(buf, len, "%s/%s", grtrace_dir(), file);
}

static void file_error(const char *path, int err)
{
	if (err == EACCES || err == EPERM)
		err_msg("permission denied on %s: grtrace needs root\n", path);
	else if (err == ENOENT)
		err_msg("%s does not exist: the grtrace module is not loaded or too old\n",
			path);
	else
		err_msg("%s: %s\n", path, strerror(err));
}

/*
 * grtrace_read - read a whole grtrace debugfs file
 *
 * Returns: a NUL terminated malloc()ed copy, or NULL (error printed).
 */
char *grtrace_read(const char *file)
{
	char path[PATH_MAX], *buf;

	path_of(path, sizeof(path), file);
	buf = read_text(path);
	if (!buf)
		file_error(path, errno);
	return buf;
}

/*
 * grtrace_write - write @buf to a grtrace file with a single write()
 *
 * The kernel checks a write as a whole, so all of @buf succeeds or none.
 * Returns: 0 or a negative errno; only open errors are printed here.
 */
int grtrace_write(const char *file, const char *buf)
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
	debug_msg("write %s: %s\n", path, buf);
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * grtrace_running - is a relay session running?
 *
 * Returns: 1 running, 0 stopped, -1 error (printed).
 */
int grtrace_running(void)
{
	char *s = grtrace_read("control");
	int ret = -1;

	if (!s)
		return -1;
	if (!strncmp(s, "running", 7))
		ret = 1;
	else if (!strncmp(s, "stopped", 7))
		ret = 0;
	else
		err_msg("%s/control: unexpected state '%.20s'\n", grtrace_dir(), s);
	free(s);
	return ret;
}

static bool ftrace_has_grtrace(void)
{
	char **systems = tracefs_event_systems(NULL);
	bool found = false;
	int i;

	for (i = 0; systems && systems[i]; i++)
		found |= !strcmp(systems[i], "grtrace");
	tracefs_list_free(systems);
	return found;
}

/*
 * ftrace_events_set - enable or disable the grtrace trace events in the
 * tracefs instance "grtrace", created when needed and kept afterwards so its
 * buffer can be read (trace-cmd show -B grtrace)
 */
int ftrace_events_set(bool enable)
{
	struct tracefs_instance *inst;
	int ret;

	if (!enable && !tracefs_instance_exists(GRTRACE_INSTANCE))
		return 0;
	if (!ftrace_has_grtrace()) {
		err_msg("this kernel has no grtrace trace events in tracefs (CONFIG_GRTRACE)\n");
		return -1;
	}
	inst = tracefs_instance_create(GRTRACE_INSTANCE);
	if (!inst) {
		err_msg("cannot create the tracefs instance %s: %s\n",
			GRTRACE_INSTANCE, strerror(errno));
		return -1;
	}
	if (enable)
		ret = tracefs_event_enable(inst, "grtrace", NULL);
	else
		ret = tracefs_event_disable(inst, "grtrace", NULL);
	if (ret)
		err_msg("cannot %s the grtrace trace events in instance %s\n",
			enable ? "enable" : "disable", GRTRACE_INSTANCE);
	tracefs_instance_free(inst);
	return ret ? -1 : 0;
}

/*
 * ftrace_events_state - "enabled", "disabled", "partly enabled" or
 * "no instance", for the grtrace events of the "grtrace" instance
 */
const char *ftrace_events_state(void)
{
	struct tracefs_instance *inst;
	const char *state = "unknown";
	char *s;

	if (!tracefs_tracing_dir() || !tracefs_instance_exists(GRTRACE_INSTANCE))
		return "no instance";
	inst = tracefs_instance_alloc(NULL, GRTRACE_INSTANCE);
	if (!inst)
		return state;
	s = tracefs_instance_file_read(inst, "events/grtrace/enable", NULL);
	if (s && s[0] == '1')
		state = "enabled";
	else if (s && s[0] == '0')
		state = "disabled";
	else if (s && s[0] == 'X')
		state = "partly enabled";
	free(s);
	tracefs_instance_free(inst);
	return state;
}

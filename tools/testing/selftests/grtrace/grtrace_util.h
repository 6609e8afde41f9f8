/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the grtrace selftests: the debugfs files as text.
 */
#ifndef GRTRACE_UTIL_H
#define GRTRACE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/grtrace.h>

#define DIR "/sys/kernel/debug/grtrace/"

/* Write @val to debugfs file @name in one write: 0 or -errno. */
static inline int write_file(const char *name, const char *val)
{
	int fd = open(name, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Read file @name into @buf, NUL terminated: bytes read or -errno. */
static inline ssize_t read_file(const char *name, char *buf, size_t len)
{
	int fd = open(name, O_RDONLY);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while (total < (ssize_t)len - 1 &&
	       (n = read(fd, buf + total, len - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* Value of the "key=value" line @key in debugfs file @name, or -1. */
static inline long long stat_value(const char *name, const char *key)
{
	static char buf[16384];
	size_t klen = strlen(key);
	char *p;

	if (read_file(name, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return strtoll(p + klen + 1, NULL, 0);
	return -1;
}

/* A record of the relay stream, with room for any kernel payload. */
struct rec {
	struct grtrace_record h;
	union {
		struct grtrace_job_payload job;
		struct grtrace_stream_info si;
		struct grtrace_ring_info ri;
	};
};

/* qsort() order of records: by gseq. */
static inline int cmp_gseq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->h.gseq < y->h.gseq ? -1 : x->h.gseq > y->h.gseq;
}

#endif /* GRTRACE_UTIL_H */

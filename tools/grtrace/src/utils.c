// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: small helpers shared by all commands.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "utils.h"

int gr_debug;

/*
 * gr_err_msg - print an error message to stderr, prefixed with the tool name
 */
void gr_err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("grtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * gr_debug_msg - print a debug message to stderr, only with -D/--debug
 */
void gr_debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!gr_debug)
		return;
	fputs("grtrace: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	gr_err_msg("out of memory\n");
	exit(EXIT_FAILURE);
}

void *gr_zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

/* Resize an array of @nmemb elements of @size bytes, checking overflow. */
void *gr_realloc(void *ptr, size_t nmemb, size_t size)
{
	size_t n = nmemb * size;

	if (size && nmemb > (size_t)-1 / size)
		oom();
	ptr = realloc(ptr, n ? n : 1);
	if (!ptr)
		oom();
	return ptr;
}

char *gr_strdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

/*
 * gr_parse_u64 - parse a decimal or a 0x hex number, nothing else
 *
 * A leading 0 is a decimal's, as a user means it: 010 is ten.
 *
 * Returns: 0, or -1 if @s is not a number that fits.
 */
int gr_parse_u64(const char *s, __u64 *val)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -1;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*val = v;
	return 0;
}

/*
 * gr_parse_duration - parse a duration above 0 and of at most a year, in
 * ns: N seconds, or N with a unit, ns, us, ms, s, m or h; N may have a
 * decimal fraction, as long as it is whole ns (1.5, 0.5m, 250ms)
 */
int gr_parse_duration(const char *s, __u64 *ns)
{
	unsigned long long mul = 1;
	char buf[64];
	size_t n = s ? strlen(s) : 0;
	long long v;

	if (!n || n > sizeof(buf) - 2)
		return -1;
	memcpy(buf, s, n + 1);
	if ((buf[n - 1] == 'm' || buf[n - 1] == 'h') && n > 1 &&
	    buf[n - 2] >= '0' && buf[n - 2] <= '9') {
		/* minutes or hours: parsed as seconds, then multiplied */
		mul = buf[n - 1] == 'm' ? 60 : 3600;
		buf[n - 1] = 's';
	} else if (buf[n - 1] >= '0' && buf[n - 1] <= '9') {
		buf[n] = 's';
		buf[n + 1] = '\0';
	}
	if (gr_parse_ns(buf, &v) || v <= 0 || (__u64)v > GR_DURATION_MAX / mul)
		return -1;
	*ns = v * mul;
	return 0;
}

/*
 * gr_parse_ns - parse a time: N (ns), Nns, Nus, Nms or Ns, N a number of
 * whole ns in its unit: 1500000, 1500us, 1.5ms, 0.0015s
 */
int gr_parse_ns(const char *s, long long *ns)
{
	static const struct {
		const char *unit;
		long long mul;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };
	unsigned long long v, frac = 0, scale = 1, part;
	char *end;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	/* A fraction of its unit ("1.5ms"), as long as it is whole ns */
	if (*end == '.') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		for (end++; *end >= '0' && *end <= '9'; end++) {
			if (scale == 1000000000) {	/* past 1 ns in s */
				if (*end != '0')
					return -1;
				continue;
			}
			frac = frac * 10 + (*end - '0');
			scale *= 10;
		}
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (frac * units[i].mul % scale)
			return -1;
		part = frac * units[i].mul / scale;
		if (v > ((unsigned long long)__LONG_LONG_MAX__ - part) / units[i].mul)
			return -1;
		*ns = v * units[i].mul + part;
		return 0;
	}
	return -1;
}

/* @ns as seconds with 9 decimals, as trace-cmd prints a time stamp */
const char *gr_secs(__s64 ns, char *buf, size_t len)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;

	snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "", a / NSEC_PER_SEC,
		 a % NSEC_PER_SEC);
	return buf;
}

/* CLOCK_MONOTONIC in ns, the clock of the stream. */
__u64 gr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int gr_parse_format(const char *s, enum gr_fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = GR_FMT_TEXT;
	else if (!strcmp(s, "csv"))
		*fmt = GR_FMT_CSV;
	else if (!strcmp(s, "json"))
		*fmt = GR_FMT_JSON;
	else
		return -1;
	return 0;
}

/* Print @s as a JSON string, quotes included. */
void gr_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Print @s as a CSV field, quoted only when needed. */
void gr_csv_str(FILE *f, const char *s)
{
	const char *p;

	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* The line after @s, or NULL at the end. */
const char *gr_next_line(const char *s)
{
	s = strchr(s, '\n');
	return s && s[1] ? s + 1 : NULL;
}

/*
 * gr_stats_get - value of @key in "key=value" lines, copied to @buf
 *
 * Returns: @buf, or NULL when @key is absent.
 */
const char *gr_stats_get(const char *stats, const char *key, char *buf, int len)
{
	size_t klen = strlen(key);
	const char *p = stats;

	for (; p && *p; p = gr_next_line(p)) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
	}
	return NULL;
}

/* A plain decimal number: digits, no leading zero unless just "0". */
bool gr_is_decimal(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n && !s[n] && (s[0] != '0' || n == 1) && n < 20;
}

/*
 * gr_read_text - read a whole file, such as a kernel file of unknown size
 *
 * Returns: a NUL terminated malloc()ed copy, or NULL with errno set.
 */
char *gr_read_text(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap += 65536;
			buf = gr_realloc(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n > 0)
			len += n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	err = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Free a NULL terminated list of strings and the list. */
void gr_free_list(char **list)
{
	int i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/*
 * gr_print_usage - print a usage text and exit
 * @msg: NULL terminated lines
 * @err: what was wrong, or NULL for --help
 *
 * With @err, print to stderr and exit with failure, else to stdout with
 * success.
 */
void gr_print_usage(const char * const *msg, const char *err)
{
	const char *u = msg[1] ? strstr(msg[1], "usage: grtrace ") : NULL;
	int i, n = 0;

	if (err) {
		/* The command's name: "COMMAND" is the list of commands. */
		if (u) {
			u += strlen("usage: grtrace ");
			n = strcspn(u, " ");
			if (!strncmp(u, "COMMAND", n))
				n = 0;
		}
		fprintf(stderr, "grtrace: %s\n", err);
		fprintf(stderr, "grtrace: 'grtrace %.*s%s--help' lists the %s\n", n,
			u ? u : "", n ? " " : "", n ? "options" : "commands");
		exit(EXIT_FAILURE);
	}
	printf("grtrace version %s", VERSION);
	for (i = 0; msg[i]; i++)
		printf("%s\n", msg[i]);
	exit(EXIT_SUCCESS);
}

/*
 * gr_set_input - take -i's argument, once
 * @input: where the input goes, NULL until -i
 * @arg: the argument
 *
 * Returns: NULL, or what is wrong: a command reads one input (a
 * directory holds the files of a recording).
 */
const char *gr_set_input(const char **input, const char *arg)
{
	if (*input)
		return "-i given twice: a command reads one input, a directory for many files";
	*input = arg;
	return NULL;
}

/*
 * "@what 'ARG'": the whole argument, a path as long as the kernel takes,
 * each control character as '?', as task and ring names are printed
 */
static const char *arg_msg(const char *what, const char *arg)
{
	static char buf[4200];
	size_t n = snprintf(buf, sizeof(buf), "%s '", what);

	for (; *arg && n < sizeof(buf) - 2; arg++)
		buf[n++] = iscntrl((unsigned char)*arg) ? '?' : *arg;
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

/* The message for the option getopt() just refused. */
const char *gr_invalid_option(char *argv[])
{
	const char *a = optind > 0 ? argv[optind - 1] : "?";
	char letter[3] = { '-', (char)optopt, '\0' };

	/* A letter of a cluster ("-zD"): getopt() may not be past its word yet */
	if (optopt > 0 && optopt < 128 && isgraph(optopt) && strncmp(a, "--", 2))
		a = letter;
	return arg_msg("invalid or incomplete option", a);
}

/* The usage message for @arg, left after a command's options and FILE */
const char *gr_unexpected(const char *arg)
{
	return arg_msg("unexpected argument", arg);
}

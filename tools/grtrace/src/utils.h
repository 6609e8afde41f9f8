/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: small helpers shared by all commands.
 */
#ifndef __GRTRACE_UTILS_H
#define __GRTRACE_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC	1000000000ULL

extern int gr_debug;

#ifndef VERSION
#define VERSION "unknown"
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef BIT
#define BIT(n)		(1U << (n))
#endif

__printf(1, 2) void gr_err_msg(const char *fmt, ...);
__printf(1, 2) void gr_debug_msg(const char *fmt, ...);

const char *gr_set_input(const char **input, const char *arg);
void gr_print_usage(const char * const *msg, const char *err);
const char *gr_invalid_option(char *argv[]);
const char *gr_unexpected(const char *arg);

void *gr_zalloc(size_t size);
void *gr_realloc(void *ptr, size_t nmemb, size_t size);
char *gr_strdup(const char *s);

int gr_parse_u64(const char *s, __u64 *val);
/* The longest duration gr_parse_duration() takes: a leap year */
#define GR_DURATION_MAX	(366ULL * 86400 * 1000000000)
int gr_parse_duration(const char *s, __u64 *ns);
int gr_parse_ns(const char *s, long long *ns);
__u64 gr_now_ns(void);
const char *gr_secs(__s64 ns, char *buf, size_t len);
char *gr_read_text(const char *path);
void gr_free_list(char **list);

/* Output formats of report and friends */
enum gr_fmt {
	GR_FMT_TEXT,
	GR_FMT_CSV,
	GR_FMT_JSON,
};

const char *gr_next_line(const char *s);
const char *gr_stats_get(const char *stats, const char *key, char *buf, int len);
bool gr_is_decimal(const char *s);

int gr_parse_format(const char *s, enum gr_fmt *fmt);
void gr_json_str(FILE *f, const char *s);
void gr_csv_str(FILE *f, const char *s);

#endif /* __GRTRACE_UTILS_H */

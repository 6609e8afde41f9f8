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

extern int config_debug;

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef BIT
#define BIT(n)		(1U << (n))
#endif

__printf(1, 2) void err_msg(const char *fmt, ...);
__printf(1, 2) void debug_msg(const char *fmt, ...);

void *xzalloc(size_t size);
void *xrealloc(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);

int parse_u64(const char *s, __u64 *val);
int parse_seconds(const char *s, __u64 *sec);
int parse_ns(const char *s, long long *ns);
__u64 now_ns(void);
char *read_text(const char *path);

/* Output formats of report and friends */
enum out_fmt {
	FMT_TEXT,
	FMT_CSV,
	FMT_JSON,
};

const char *next_line(const char *s);
const char *stats_get(const char *stats, const char *key, char *buf, int len);
bool is_decimal(const char *s);

int parse_format(const char *s, enum out_fmt *fmt);
void json_str(FILE *f, const char *s);
void csv_str(FILE *f, const char *s);

#endif /* __GRTRACE_UTILS_H */

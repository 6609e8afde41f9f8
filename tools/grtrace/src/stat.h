/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: running statistics of a time (count, sum, min, max and ranks)
 * in memory that does not grow with the count.
 */
#ifndef __GRTRACE_STAT_H
#define __GRTRACE_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * Values are kept exactly up to GR_STAT_EXACT of them; beyond, in
 * log-linear buckets: exact below 256 ns, then 128 buckets per power of
 * two, so a rank is within 1/256 (0.4 %) of the true value.
 */
#define GR_STAT_EXACT	8192

struct gr_stat {
	__u64 n;
	__int128 sum;
	__s64 min;
	__s64 max;
	__s64 *v;		/* exact values, n of them, until buckets */
	size_t cap;
	bool sorted;
	__u64 *pos;		/* buckets of values >= 0, or NULL */
	__u64 *neg;		/* buckets of -values, values < 0 */
};

/*
 * gr_pct_index - where the @pct percentile is among @n sorted values: the
 * nearest rank, the smallest value that at least @pct % of them do not
 * exceed.  Every command's median (50) and p99 are taken with it.
 */
static inline __u64 gr_pct_index(__u64 n, unsigned int pct)
{
	__u64 k = (n * pct + 99) / 100;

	return k ? k - 1 : 0;
}

void gr_stat_add(struct gr_stat *s, __s64 v);
void gr_stat_merge(struct gr_stat *s, struct gr_stat *from);
__s64 gr_stat_rank(struct gr_stat *s, __u64 k);
__s64 gr_stat_pct(struct gr_stat *s, unsigned int pct);
__s64 gr_pct_sorted(const __s64 *v, __u64 n, unsigned int pct);
long long gr_avg(__int128 sum, __u64 n);
long long gr_stat_avg(const struct gr_stat *s);
void gr_stat_free(struct gr_stat *s);

#endif /* __GRTRACE_STAT_H */

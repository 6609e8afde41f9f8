// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: running statistics of a time.
 *
 * A group of jobs (a ring, a context, a process) keeps its times exactly
 * while it has few, so that small inputs get exact percentiles, and in
 * log-linear buckets once it has more than GR_STAT_EXACT: a value of
 * magnitude below 256 has a bucket of its own; above, a power of two
 * [2^e, 2^(e+1)) is cut into 128 buckets of width 2^(e-7).  A rank is
 * given as the middle of its bucket, within [min, max]: off by at most
 * half a bucket, 1/256 of the value.  7424 buckets of 8 bytes per sign.
 */
#include <stdlib.h>
#include <string.h>

#include "stat.h"
#include "utils.h"

#define SUB		128
#define NR_BUCKETS	(2 * SUB + (63 - 7) * SUB)

static unsigned int bucket(__u64 u)
{
	int e;

	if (u < 2 * SUB)
		return u;
	e = 63 - __builtin_clzll(u);
	return 2 * SUB + (e - 8) * SUB + (unsigned int)(u >> (e - 7)) - SUB;
}

/* The middle of bucket @b */
static __u64 bucket_mid(unsigned int b)
{
	unsigned int e, m;
	__u64 lo, width;

	if (b < 2 * SUB)
		return b;
	e = 8 + (b - 2 * SUB) / SUB;
	m = SUB + (b - 2 * SUB) % SUB;
	lo = (__u64)m << (e - 7);
	width = 1ULL << (e - 7);
	return lo + (width - 1) / 2;
}

static __u64 magnitude(__s64 v)
{
	return v < 0 ? (__u64)-(v + 1) + 1 : (__u64)v;
}

static void bucket_add(struct gr_stat *s, __s64 v, __u64 n)
{
	__u64 **b = v < 0 ? &s->neg : &s->pos;

	if (!*b)
		*b = gr_zalloc(NR_BUCKETS * sizeof(**b));
	(*b)[bucket(magnitude(v))] += n;
}

/* From exact values to buckets */
static void to_buckets(struct gr_stat *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		bucket_add(s, s->v[i], 1);
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}

static bool exact(const struct gr_stat *s)
{
	return !s->pos && !s->neg;
}

void gr_stat_add(struct gr_stat *s, __s64 v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->sum += v;
	if (exact(s) && s->n < GR_STAT_EXACT) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->v = gr_realloc(s->v, s->cap, sizeof(*s->v));
		}
		s->v[s->n++] = v;
		s->sorted = false;
		return;
	}
	if (exact(s))
		to_buckets(s);
	bucket_add(s, v, 1);
	s->n++;
}

/* Add the values of @from to @s; @from is freed. */
void gr_stat_merge(struct gr_stat *s, struct gr_stat *from)
{
	__u64 n = s->n + from->n;
	unsigned int b;
	size_t i;

	if (!from->n)
		goto out;
	if (exact(s) && exact(from) && n <= GR_STAT_EXACT) {
		for (i = 0; i < from->n; i++)
			gr_stat_add(s, from->v[i]);
		goto out;
	}
	if (exact(s))
		to_buckets(s);
	if (exact(from))
		to_buckets(from);
	for (b = 0; b < NR_BUCKETS; b++) {
		if (from->pos && from->pos[b])
			bucket_add(s, (__s64)bucket_mid(b), from->pos[b]);
		if (from->neg && from->neg[b])
			bucket_add(s, -(__s64)bucket_mid(b), from->neg[b]);
	}
	s->min = s->n && s->min < from->min ? s->min : from->min;
	s->max = s->n && s->max > from->max ? s->max : from->max;
	s->sum += from->sum;
	s->n = n;
out:
	gr_stat_free(from);
}

/*
 * gr_pct_sorted - the @pct percentile of the @n sorted values @v as a
 * gr_stat of them gives it (gr_stat_pct()), for a caller that keeps its
 * values sorted anyway: exact while a gr_stat keeps them, beyond the
 * middle of the value's bucket within the least and the greatest; 0
 * without values.
 */
__s64 gr_pct_sorted(const __s64 *v, __u64 n, unsigned int pct)
{
	__s64 x, mid;

	if (!n)
		return 0;
	x = v[gr_pct_index(n, pct)];
	if (n <= GR_STAT_EXACT)
		return x;
	mid = (__s64)bucket_mid(bucket(magnitude(x)));
	x = x < 0 ? -mid : mid;
	return x < v[0] ? v[0] : x > v[n - 1] ? v[n - 1] : x;
}

static int cmp_s64(const void *a, const void *b)
{
	__s64 x = *(const __s64 *)a, y = *(const __s64 *)b;

	return x < y ? -1 : x > y;
}

/* Returns: the @k-th smallest value (from 0), k < n. */
__s64 gr_stat_rank(struct gr_stat *s, __u64 k)
{
	__s64 v = 0;
	__u64 seen = 0;
	int b;

	if (exact(s)) {
		if (!s->sorted)
			qsort(s->v, s->n, sizeof(*s->v), cmp_s64);
		s->sorted = true;
		return s->v[k];
	}
	/* Negative values first, the largest magnitude first */
	for (b = NR_BUCKETS - 1; s->neg && b >= 0; b--) {
		seen += s->neg[b];
		if (seen > k) {
			v = -(__s64)bucket_mid(b);
			goto clamp;
		}
	}
	for (b = 0; b < NR_BUCKETS; b++) {
		seen += s->pos ? s->pos[b] : 0;
		if (seen > k) {
			v = (__s64)bucket_mid(b);
			break;
		}
	}
clamp:
	return v < s->min ? s->min : v > s->max ? s->max : v;
}

/* Returns: the @pct percentile (gr_pct_index()), 0 without values. */
__s64 gr_stat_pct(struct gr_stat *s, unsigned int pct)
{
	return s->n ? gr_stat_rank(s, gr_pct_index(s->n, pct)) : 0;
}

/* @sum over @n, rounded half away from zero: every command's average */
long long gr_avg(__int128 sum, __u64 n)
{
	long double m = n ? (long double)sum / n : 0;

	return m < 0 ? -(long long)(-m + 0.5) : (long long)(m + 0.5);
}

long long gr_stat_avg(const struct gr_stat *s)
{
	return gr_avg(s->sum, s->n);
}

void gr_stat_free(struct gr_stat *s)
{
	free(s->v);
	free(s->pos);
	free(s->neg);
	memset(s, 0, sizeof(*s));
}

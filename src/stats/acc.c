// SPDX-License-Identifier: GPL-2.0
/*
 * One accumulator: count/min/max/exact sum, the exact integer moments of the
 * samples about a reference, and a histogram for quantiles.
 *
 * Why integers: Welford's running mean divides per sample, and its merges
 * (Chan et al.) round differently in every order, so a rolled-up table
 * depended on the order rows were merged in (a hash order) in its last
 * digits. Sums of (x - shift) and (x - shift)^2 in 128 bits are exact: add is
 * one subtraction, one multiply and two 128-bit adds, merge is exact in any
 * order, and the variance is computed once, when a view is built. The
 * reference keeps the integers small: a latency of 2^42 ns (over an hour)
 * squared is 2^84, so 2^40 samples of it still fit; unsigned arithmetic
 * wraps instead of trapping on worse (a garbage timestamp).
 */
#include <math.h>
#include <stdlib.h>
#include "stats-local.h"

#ifndef __SIZEOF_INT128__
#error "stats_acc needs __int128 (every supported target is 64-bit)"
#endif

typedef unsigned __int128 u128;
typedef __int128 i128;

/*
 * The histogram comes with the first sample: summary-only rows (a saved
 * report, a dump: tens of thousands when generated) and rows that are only
 * ever merged into never pay for one.
 */
void stats_acc_init(struct stats_acc *a)
{
	*a = (struct stats_acc){.min = UINT64_MAX};
}

void stats_acc_free(struct stats_acc *a)
{
	hist_free(a->hist);
	a->hist = NULL;
}

void stats_acc_first(struct stats_acc *a, uint64_t ns)
{
	if (!a->hist)
		a->hist = hist_new();
	a->shift = ns;
}

/* Moves a's moments to the reference s': sum (x - s') = sum (x - s) + n (s - s'), exactly. */
static void rebase(u128 *s1, u128 *s2, uint64_t count, uint64_t from, uint64_t to)
{
	u128 delta = (u128)((i128)from - (i128)to), n = count;

	*s2 += 2 * delta * *s1 + n * delta * delta;
	*s1 += n * delta;
}

/*
 * m2 = sum d^2 - (sum d)^2 / n about the reference floor(mean): there sum d
 * is in [0, n), so nothing cancels, and the moments about that reference
 * depend on the samples only, not on the order they were added or merged in
 * or on the reference they were kept about: the same samples give the same
 * bits.
 */
double stats_acc_m2(const struct stats_acc *a)
{
	u128 s1 = a->s1, s2 = a->s2;
	long double n = (long double)a->count;

	if (a->summary || !a->count)
		return a->count ? a->m2 : 0;
	rebase(&s1, &s2, a->count, a->shift, a->sum / a->count);
	long double m2 = (long double)s2 - (long double)s1 * (long double)s1 / n;
	return m2 > 0 ? (double)m2 : 0;
}

/* Chan, Golub & LeVeque's pairwise combination, for summary-only data (double m2). */
static double merged_m2(const struct stats_acc *a, const struct stats_acc *b)
{
	double na = (double)a->count, nb = (double)b->count, n = na + nb;
	double delta = stats_acc_avg(b) - stats_acc_avg(a);

	return stats_acc_m2(a) + stats_acc_m2(b) + delta * delta * na * nb / n;
}

static void merge_moments(struct stats_acc *dst, const struct stats_acc *src)
{
	if (dst->summary || src->summary) {
		dst->m2 = merged_m2(dst, src); /* NAN when either side did not know */
		dst->summary = true;
		return;
	}
	struct stats_acc s = *src;

	/* One reference for both: the smaller (any would do, exactly). */
	if (s.shift < dst->shift) {
		rebase(&dst->s1, &dst->s2, dst->count, dst->shift, s.shift);
		dst->shift = s.shift;
	} else {
		rebase(&s.s1, &s.s2, s.count, s.shift, dst->shift);
	}
	dst->s1 += s.s1;
	dst->s2 += s.s2;
}

void stats_acc_merge(struct stats_acc *dst, const struct stats_acc *src)
{
	if (!dst->sub_kind)
		dst->sub_kind = src->sub_kind;
	dst->untimed += src->untimed;
	if (src->count == 0)
		return;
	if (dst->count == 0) {
		struct stats_hist *h = dst->hist;
		uint64_t untimed = dst->untimed;
		uint8_t sub_kind = dst->sub_kind;
		*dst = *src;
		dst->untimed = untimed;
		dst->sub_kind = sub_kind;
		dst->hist = h;
		if (!src->hist) {
			hist_free(h);
			dst->hist = NULL;
		} else if (h) {
			hist_merge(h, src->hist);
		} else {
			dst->hist = hist_dup(src->hist);
		}
		return;
	}
	merge_moments(dst, src); /* before count and sum change: it reads the averages */
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	/* Quantiles are only honest when every sample went into the histogram. */
	if (dst->hist && src->hist) {
		hist_merge(dst->hist, src->hist);
	} else {
		hist_free(dst->hist);
		dst->hist = NULL;
	}
}

bool stats_acc_merge_fits(const struct stats_acc *dst, const struct stats_acc *src)
{
	uint64_t count, untimed, sum, all;

	return !__builtin_add_overflow(dst->count, src->count, &count) &&
	       !__builtin_add_overflow(dst->untimed, src->untimed, &untimed) &&
	       !__builtin_add_overflow(count, untimed, &all) &&
	       !__builtin_add_overflow(dst->sum, src->sum, &sum);
}

void stats_acc_set_summary(struct stats_acc *a, uint64_t count, uint64_t min, uint64_t max,
			   uint64_t sum, double m2)
{
	hist_free(a->hist);
	*a = (struct stats_acc){.count = count,
				.min = count ? min : UINT64_MAX,
				.max = max,
				.sum = sum,
				.summary = true,
				.m2 = isnan(m2) ? m2
				      : m2 > 0	? m2
						: 0};
}

double stats_acc_avg(const struct stats_acc *a)
{
	return a->count ? (double)a->sum / (double)a->count : 0;
}

/* NAN when a summary-only input did not know the spread. */
double stats_acc_stddev(const struct stats_acc *a)
{
	return a->count ? sqrt(stats_acc_m2(a) / (double)a->count) : 0;
}

double stats_acc_quantile(const struct stats_acc *a, double q)
{
	if (!a->hist || a->count == 0)
		return NAN;
	double v = hist_quantile(a->hist, a->count, q);
	/* The bucket midpoint may lie outside what was seen; the extremes are exact. */
	if (v < (double)a->min)
		v = (double)a->min;
	if (v > (double)a->max)
		v = (double)a->max;
	return v;
}

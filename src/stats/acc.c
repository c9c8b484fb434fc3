// SPDX-License-Identifier: GPL-2.0
/*
 * One accumulator: count/min/max/exact sum, Welford's running mean and M2
 * (numerically stable where the textbook sum-of-squares formula cancels
 * catastrophically for large, close values), and a histogram for quantiles.
 * Welford alone still loses digits when values are huge and close (2^50 ns
 * +- 1000: a double's ulp there is 0.25), so samples are shifted by the
 * first one before they touch a double.
 */
#include <math.h>
#include <stdlib.h>
#include "common.h"
#include "hist.h"

void stats_acc_init(struct stats_acc *a)
{
	*a = (struct stats_acc){.min = UINT64_MAX};
	a->hist = hist_new();
}

void stats_acc_free(struct stats_acc *a)
{
	hist_free(a->hist);
	a->hist = NULL;
}

void stats_acc_add(struct stats_acc *a, uint64_t ns)
{
	a->count++;
	a->sum += ns;
	if (ns < a->min)
		a->min = ns;
	if (ns > a->max)
		a->max = ns;
	if (a->count == 1)
		a->shift = ns;
	double x = (double)(int64_t)(ns - a->shift);
	double delta = x - a->mean;
	a->mean += delta / (double)a->count;
	a->m2 += delta * (x - a->mean);
	if (a->hist)
		hist_add_n(a->hist, ns, 1);
}

/* Chan, Golub & LeVeque's pairwise combination of two (n, mean, M2) triples. */
static void merge_moments(struct stats_acc *dst, const struct stats_acc *src)
{
	double na = (double)dst->count, nb = (double)src->count, n = na + nb;
	double src_mean = src->mean + (double)(int64_t)(src->shift - dst->shift);
	double delta = src_mean - dst->mean;

	dst->mean += delta * nb / n;
	dst->m2 += src->m2 + delta * delta * na * nb / n;
}

void stats_acc_merge(struct stats_acc *dst, const struct stats_acc *src)
{
	dst->untimed += src->untimed;
	if (src->count == 0)
		return;
	if (dst->count == 0) {
		struct stats_hist *h = dst->hist;
		uint64_t untimed = dst->untimed;
		*dst = *src;
		dst->untimed = untimed;
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
	merge_moments(dst, src);
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

void stats_acc_set_summary(struct stats_acc *a, uint64_t count, uint64_t min, uint64_t max,
			   uint64_t sum, double m2)
{
	hist_free(a->hist);
	*a = (struct stats_acc){.count = count,
				.min = count ? min : UINT64_MAX,
				.max = max,
				.sum = sum,
				.m2 = isnan(m2) ? m2
				      : m2 > 0	? m2
						: 0};
	a->mean = count ? (double)sum / (double)count : 0;
}

double stats_acc_avg(const struct stats_acc *a)
{
	return a->count ? (double)a->sum / (double)a->count : 0;
}

/* NAN when a summary-only input did not know the spread. */
double stats_acc_stddev(const struct stats_acc *a)
{
	return a->count ? sqrt(a->m2 / (double)a->count) : 0;
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

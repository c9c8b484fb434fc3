// SPDX-License-Identifier: GPL-2.0
/*
 * The histogram seen from outside: its buckets one by one (a report's JSON
 * carries them, so reports from many hosts merge exactly), and folded into
 * a fixed set of bounds (an exporter's `le` buckets, which must be the same
 * on every host for histogram_quantile() to aggregate them). A bound that
 * is a bucket edge splits nothing, so the fold moves no sample.
 */
#include <math.h>
#include "stats-local.h"
#include "stats.h"

void stats_acc_foreach_bucket(const struct stats_acc *a,
			      void (*fn)(uint64_t lo, uint64_t hi, uint64_t n, void *arg),
			      void *arg)
{
	if (a->hist && a->count)
		hist_foreach(a->hist, fn, arg);
}

bool stats_hist_is_edge(uint64_t v)
{
	if (v < (1u << SUB_BITS))
		return true;
	unsigned shift = 63 - (unsigned)__builtin_clzll(v) - SUB_BITS;

	return (v & ((1ULL << shift) - 1)) == 0;
}

struct fold {
	const uint64_t *le;
	size_t n, i;
	uint64_t *counts;
};

/* Buckets come in ascending order, so the bound index only moves forward. */
static void fold_one(uint64_t lo, uint64_t hi, uint64_t n, void *arg)
{
	struct fold *f = arg;

	(void)hi;
	while (f->i < f->n && lo >= f->le[f->i])
		f->i++;
	f->counts[f->i] += n;
}

int stats_acc_fold(const struct stats_acc *a, const uint64_t *le_ns, size_t n, uint64_t *counts)
{
	struct fold f = {le_ns, n, 0, counts};

	if (!a->hist)
		return a->count ? -1 : 0;
	for (size_t i = 0; i < n; i++)
		if (!stats_hist_is_edge(le_ns[i]) || (i && le_ns[i] <= le_ns[i - 1]))
			return -1;
	hist_foreach(a->hist, fold_one, &f);
	return 0;
}

void stats_acc_restore(struct stats_acc *a, const struct stats_acc *s)
{
	struct stats_hist *h = a->hist;

	*a = *s;
	a->hist = h;
}

int stats_acc_add_bucket(struct stats_acc *a, uint64_t lo, uint64_t n)
{
	if (!stats_hist_is_edge(lo))
		return -1;
	if (!a->hist)
		a->hist = hist_new();
	stats_hist_add_n(a->hist, lo, n);
	return 0;
}

void stats_acc_add_log2(struct stats_acc *a, int k, uint64_t n, uint64_t sum)
{
	/* the kernel's .log2 bucket 2^k holds (2^(k-1), 2^k]; "2^0" holds 0 and 1 */
	uint64_t lo = k <= 0 ? 0 : 1ull << (k - 1), hi = k <= 0 ? 1 : 1ull << k;
	struct stats_acc b;

	if (!n || k > 63)
		return;
	stats_acc_init(&b);
	stats_acc_set_summary(&b, n, k <= 0 ? 0 : lo + 1, hi, sum, NAN);
	/* at the bucket's lower edge: a fold on 2^j bounds puts them in le = 2^k */
	stats_acc_add_bucket(&b, lo, n);
	stats_acc_merge(a, &b);
	stats_acc_free(&b);
}

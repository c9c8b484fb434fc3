// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics against an independent computation: two-pass mean/variance in
 * long double over the stored samples, exact nearest-rank quantiles from a
 * sorted copy, merges of split inputs in several orders.
 */
#include <stdlib.h>
#include "alloc.h"
#include "harness.h"
#include "intern.h"
#include "stats.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A latency-like mix: mostly small, a long tail, some zeros and some huge values. */
static uint64_t sample(int kind)
{
	switch (kind) {
	case 0:
		return 500 + xorshift() % 20000;
	case 1:
		return (xorshift() % 100 == 0) ? 0 : (uint64_t)1 << (xorshift() % 30);
	case 2:
		/* large and close (~18 min +- 1 us): a naive variance cancels to garbage */
		return (1ULL << 40) + xorshift() % 1000;
	default:
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void reference(const uint64_t *v, size_t n, long double *mean, long double *var)
{
	long double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (size_t i = 0; i < n; i++)
		q += ((long double)v[i] - *mean) * ((long double)v[i] - *mean);
	*var = q / n;
}

static void check_acc(const struct stats_acc *a, uint64_t *v, size_t n, const char *what)
{
	long double mean, var;
	uint64_t sum = 0, mn = UINT64_MAX, mx = 0;

	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	reference(v, n, &mean, &var);
	CHECK(a->count == n, "%s count %llu", what, (unsigned long long)a->count);
	CHECK(a->sum == sum, "%s sum", what);
	CHECK(a->min == mn && a->max == mx, "%s min/max", what);
	CHECK_NEAR(stats_acc_avg(a), (double)mean, 1e-12);
	if (var > 0)
		CHECK_NEAR(stats_acc_stddev(a), (double)sqrtl(var), 1e-6);
	else
		CHECK(stats_acc_stddev(a) < 1e-3, "%s stddev of constant data", what);
	qsort(v, n, sizeof(*v), cmp_u64);
	static const double qs[] = {0.5, 0.9, 0.99, 0.999, 1.0};
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * (double)n);
		double want = (double)v[rank ? rank - 1 : 0];
		double got = stats_acc_quantile(a, qs[i]);
		CHECK(fabs(got - want) <= 0.01 * want + 0.5, "%s q%.3f got %.1f want %.1f", what,
		      qs[i], got, want);
	}
}

static void test_kind(int kind, size_t n)
{
	uint64_t *v = xcalloc(n, sizeof(*v));
	struct stats_acc whole, parts[3], merged, reversed;
	char what[32];

	snprintf(what, sizeof(what), "kind %d n %zu", kind, n);
	stats_acc_init(&whole);
	for (int i = 0; i < 3; i++)
		stats_acc_init(&parts[i]);
	for (size_t i = 0; i < n; i++) {
		v[i] = sample(kind);
		stats_acc_add(&whole, v[i]);
		stats_acc_add(&parts[i < n / 5 ? 0 : i < n / 2 ? 1 : 2], v[i]);
	}
	stats_acc_init(&merged);
	stats_acc_init(&reversed);
	for (int i = 0; i < 3; i++)
		stats_acc_merge(&merged, &parts[i]);
	for (int i = 2; i >= 0; i--)
		stats_acc_merge(&reversed, &parts[i]);
	/* exact moments: merges in any order, and feeding one accumulator, agree to the bit */
	CHECK(stats_acc_m2(&merged) == stats_acc_m2(&reversed) &&
		  stats_acc_m2(&merged) == stats_acc_m2(&whole),
	      "%s m2 in any order: %.17g %.17g %.17g", what, stats_acc_m2(&whole),
	      stats_acc_m2(&merged), stats_acc_m2(&reversed));
	check_acc(&whole, v, n, what);
	check_acc(&merged, v, n, what);
	check_acc(&reversed, v, n, what);
	stats_acc_free(&whole);
	stats_acc_free(&merged);
	stats_acc_free(&reversed);
	for (int i = 0; i < 3; i++)
		stats_acc_free(&parts[i]);
	free(v);
}

static void test_summary_merge(void)
{
	struct stats_acc a, b;

	stats_acc_init(&a);
	stats_acc_add(&a, 1000);
	stats_acc_add(&a, 3000);
	stats_acc_init(&b);
	/* two samples 2000 and 4000: mean 3000, m2 = 2 * 1000^2 */
	stats_acc_set_summary(&b, 2, 2000, 4000, 6000, 2e6);
	stats_acc_merge(&a, &b);
	CHECK(a.count == 4 && a.sum == 10000 && a.min == 1000 && a.max == 4000, "summary merge");
	/* samples 1000 2000 3000 4000: population variance 1.25e6 */
	CHECK_NEAR(stats_acc_stddev(&a), sqrt(1.25e6), 1e-12);
	CHECK(isnan(stats_acc_quantile(&a, 0.5)), "no quantile once summary data is merged in");
	stats_acc_free(&a);
	stats_acc_free(&b);
	stats_acc_set_summary(&b, 3, 1, 2, 4, NAN);
	CHECK(isnan(stats_acc_stddev(&b)), "unknown spread stays unknown");
	stats_acc_free(&b);
}

static void test_view_and_split(void)
{
	struct stats_table *t = stats_table_new();
	const char *io = intern("IO"), *hlt = intern("HLT"), *tig = intern("TIMEINGUEST");
	struct stats_key k[] = {
	    {.name = io, .tid = 10, .vcpu = 0},
	    {.name = io, .tid = 11, .vcpu = 1},
	    {.name = hlt, .tid = 10, .vcpu = 0},
	    {.name = tig, .tid = 11, .vcpu = 1},
	};
	uint64_t ns[] = {1000, 3000, 5000, 1000};

	for (int rep = 0; rep < 10; rep++)
		for (int i = 0; i < 4; i++)
			stats_acc_add(stats_table_get(t, &k[i]), ns[i] * (rep + 1));
	struct stats_table *whole = stats_table_rollup(t, 0);
	CHECK(stats_table_size(whole) == 3, "rollup folds threads: %zu", stats_table_size(whole));
	struct stats_view *v = stats_view_new(whole, 1000, "us", STATS_SORT_SUM);
	double pct = 0;
	for (size_t i = 0; i < v->nrows; i++)
		pct += v->rows[i].pct;
	CHECK_NEAR(pct, 100.0, 1e-9);
	CHECK(v->csum == 40, "csum %llu", (unsigned long long)v->csum);
	/* sums: IO (1+3)*55 = 220 us, HLT 275 us, TIG 55 us */
	CHECK_STR(v->rows[0].key.name, "HLT");
	CHECK_NEAR(v->rows[0].sum, 275.0, 1e-12);
	CHECK_NEAR(v->rows[1].pct, 100.0 * 220 / 550, 1e-12);
	CHECK_NEAR(v->sumavg, 550.0 / 40, 1e-12);
	CHECK_NEAR(v->runtime_s, 550e-6, 1e-12);
	stats_view_free(v);

	struct stats_group *g;
	size_t n = stats_table_split(t, &g);
	CHECK(n == 2 && g[0].vcpu == 0 && g[1].vcpu == 1, "split in vcpu order");
	/* per-vCPU tables sum exactly to the whole */
	struct stats_table *sum = stats_table_new();
	for (size_t i = 0; i < n; i++)
		stats_table_merge(sum, g[i].t);
	struct stats_acc *a =
	    stats_table_find(sum, &(struct stats_key){.name = io, .tid = -1, .vcpu = -1});
	struct stats_acc *b =
	    stats_table_find(whole, &(struct stats_key){.name = io, .tid = -1, .vcpu = -1});
	CHECK(a && b && a->count == b->count && a->sum == b->sum &&
		  stats_acc_m2(a) == stats_acc_m2(b),
	      "split sums to whole");
	stats_groups_free(g, n);
	stats_table_free(sum);
	stats_table_free(whole);
	stats_table_free(t);
}

static void test_many_keys(void)
{
	struct stats_table *t = stats_table_new();
	const char *mmio = intern("MMIO");

	for (uint64_t i = 0; i < 100000; i++)
		stats_acc_add(stats_table_get(t, &(struct stats_key){.name = mmio,
								     .sub = i * 4096,
								     .has_sub = true,
								     .tid = 1,
								     .vcpu = -1}),
			      i);
	CHECK(stats_table_size(t) == 100000, "100k distinct keys kept");
	struct stats_acc *a = stats_table_find(
	    t, &(struct stats_key){
		   .name = mmio, .sub = 4096 * 777, .has_sub = true, .tid = 1, .vcpu = -1});
	CHECK(a && a->count == 1 && a->sum == 777, "lookup after growth");
	stats_table_free(t);
}

/* What a saved report can claim: merges and totals past 2^64 are told, not wrapped. */
static void test_overflow(void)
{
	struct stats_acc a, b;
	struct stats_table *t = stats_table_new();
	struct stats_key k = {.name = "A", .tid = -1, .vcpu = -1};

	stats_acc_init(&a);
	stats_acc_init(&b);
	stats_acc_set_summary(&a, 8, 1, 2, 12, NAN);
	stats_acc_set_summary(&b, UINT64_MAX - 8, 1, 2, 3, NAN);
	CHECK(stats_acc_merge_fits(&a, &b), "8 + 2^64 - 9 fits");
	b.count = UINT64_MAX - 7;
	CHECK(!stats_acc_merge_fits(&a, &b), "8 + 2^64 - 8 does not");
	b.count = 1;
	b.sum = UINT64_MAX;
	CHECK(!stats_acc_merge_fits(&a, &b), "a sum past 2^64");
	b.sum = 1;
	b.untimed = UINT64_MAX - 8;
	CHECK(!stats_acc_merge_fits(&a, &b), "timed + untimed past 2^64");
	stats_acc_merge(stats_table_get(t, &k), &a);
	CHECK(stats_table_sums_fit(t), "one row fits");
	k.name = "B";
	stats_acc_set_summary(stats_table_get(t, &k), UINT64_MAX - 8, 1, 1, 1, NAN);
	CHECK(stats_table_sums_fit(t), "rows adding up to 2^64 - 1 fit");
	k.name = "C";
	stats_acc_set_summary(stats_table_get(t, &k), 1, 1, 1, 1, NAN);
	CHECK(!stats_table_sums_fit(t), "one more: the total would wrap");
	stats_table_free(t);
	stats_acc_free(&a);
	stats_acc_free(&b);
}

int main(void)
{
	for (int kind = 0; kind < 4; kind++) {
		test_kind(kind, 1);
		test_kind(kind, 1000);
		test_kind(kind, 200000);
	}
	test_summary_merge();
	test_view_and_split();
	test_many_keys();
	test_overflow();
	return test_summary("test_stats");
}

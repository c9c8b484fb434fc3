// SPDX-License-Identifier: GPL-2.0
/*
 * stats/outliers.c: the `keep` slowest of a stream are those a full sort
 * gives (a plain qsort of every exit here, with the documented order:
 * slower first, then earlier, then lower tid), whatever order the exits
 * come in and however they are split and merged; the threshold mode keeps
 * the latest over it, strictly longer, halts left out.
 */
#include <stdlib.h>
#include "harness.h"
#include "intern.h"
#include "stats.h"

#define N 5000
#define KEEP 37

static struct stats_outlier all[N];

/* The reference order, written apart from outliers.c's. */
static int ref_cmp(const void *pa, const void *pb)
{
	const struct stats_outlier *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void make(void)
{
	srand(14);
	for (int i = 0; i < N; i++)
		/* few distinct times and timestamps: many ties on both */
		all[i] = (struct stats_outlier){.ns = (uint64_t)(rand() % 50) * 1000,
						.ts = (uint64_t)(rand() % 300),
						.tid = 100 + i % 7,
						.vcpu = i % 7,
						.name = intern(i % 3 ? "IO" : "MMIO")};
}

static bool same(const struct stats_outlier *a, const struct stats_outlier *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].ns != b[i].ns || a[i].ts != b[i].ts || a[i].tid != b[i].tid)
			return false;
	return true;
}

static void test_slowest(void)
{
	struct stats_outlier ref[N], *got;
	struct stats_outliers *o = stats_outliers_new(KEEP, 0), *x = stats_outliers_new(KEEP, 0),
			      *y = stats_outliers_new(KEEP, 0), *r = stats_outliers_new(KEEP, 0);
	size_t n;

	memcpy(ref, all, sizeof(ref));
	qsort(ref, N, sizeof(*ref), ref_cmp);
	for (int i = 0; i < N; i++)
		stats_outliers_add(o, &all[i]);
	n = stats_outliers_sorted(o, &got);
	CHECK(n == KEEP, "%zu kept", n);
	CHECK(same(got, ref, KEEP), "the heap's %d = the sort's first %d", KEEP, KEEP);
	CHECK(stats_outliers_seen(o) == N, "seen %llu", (unsigned long long)stats_outliers_seen(o));
	free(got);
	/* backwards, and split in two then merged: the same */
	for (int i = N - 1; i >= 0; i--)
		stats_outliers_add(r, &all[i]);
	for (int i = 0; i < N; i++)
		stats_outliers_add(i % 2 ? x : y, &all[i]);
	stats_outliers_merge(x, y);
	n = stats_outliers_sorted(r, &got);
	CHECK(same(got, ref, KEEP), "fed backwards");
	free(got);
	n = stats_outliers_sorted(x, &got);
	CHECK(n == KEEP && same(got, ref, KEEP), "split and merged");
	CHECK(stats_outliers_seen(x) == N, "merged seen %llu",
	      (unsigned long long)stats_outliers_seen(x));
	free(got);
	stats_outliers_free(o);
	stats_outliers_free(x);
	stats_outliers_free(y);
	stats_outliers_free(r);
}

static void test_threshold(void)
{
	struct stats_outliers *o = stats_outliers_new(4, 30000);
	struct stats_outlier *got;
	uint64_t over = 0, last[N];
	size_t n, k = 0;

	for (int i = 0; i < N; i++) {
		struct stats_outlier s = all[i];

		s.ts = (uint64_t)i; /* a live feed: in time order */
		s.halt = i % 11 == 0;
		if (s.ns > 30000 && !s.halt) {
			over++;
			last[k++] = s.ts;
		}
		stats_outliers_add(o, &s);
	}
	CHECK(stats_outliers_seen(o) == over, "seen %llu want %llu",
	      (unsigned long long)stats_outliers_seen(o), (unsigned long long)over);
	n = stats_outliers_sorted(o, &got);
	CHECK(n == 4, "%zu kept", n);
	for (size_t i = 0; i < n && k >= 4; i++)
		CHECK(got[i].ts == last[k - 4 + i], "latest %zu: ts %llu want %llu", i,
		      (unsigned long long)got[i].ts, (unsigned long long)last[k - 4 + i]);
	for (size_t i = 0; i < n; i++)
		CHECK(got[i].ns > 30000 && !got[i].halt, "over, no halt");
	/*
	 * Two parts of one time-ordered feed, merged: the latest 4 of both
	 * (the odd and even exits: adding one's ring to the other's kept the
	 * added one's latest, not the latest of all).
	 */
	struct stats_outliers *p[2] = {stats_outliers_new(4, 30000), stats_outliers_new_like(o)};
	for (int i = 0; i < N; i++) {
		struct stats_outlier s = all[i];

		s.ts = (uint64_t)i;
		s.halt = i % 11 == 0;
		stats_outliers_add(p[(i / 3) % 2], &s);
	}
	stats_outliers_merge(p[0], p[1]);
	CHECK(stats_outliers_seen(p[0]) == over, "merged: seen %llu want %llu",
	      (unsigned long long)stats_outliers_seen(p[0]), (unsigned long long)over);
	free(got);
	n = stats_outliers_sorted(p[0], &got);
	CHECK(n == 4, "merged: %zu kept", n);
	for (size_t i = 0; i < n && k >= 4; i++)
		CHECK(got[i].ts == last[k - 4 + i], "merged: latest %zu: ts %llu want %llu", i,
		      (unsigned long long)got[i].ts, (unsigned long long)last[k - 4 + i]);
	free(got);
	stats_outliers_free(p[0]);
	stats_outliers_free(p[1]);
	/* exactly the threshold is not over it (perf: time_diff > duration) */
	stats_outliers_clear(o);
	stats_outliers_add(o, &(struct stats_outlier){.ns = 30000, .ts = 1, .name = intern("IO")});
	CHECK(stats_outliers_seen(o) == 0, "30000 ns is not over 30000 ns");
	stats_outliers_free(o);
}

int main(void)
{
	make();
	test_slowest();
	test_threshold();
	return test_summary("outliers");
}

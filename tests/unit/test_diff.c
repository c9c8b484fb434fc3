// SPDX-License-Identifier: GPL-2.0
/*
 * The diff arithmetic: Student-t p-values and Welch's test against reference
 * values computed independently, and changes, totals and contributions on
 * inputs small enough to check by hand.
 *
 * Reference values: SciPy 1.10.1 (Debian 12 python3-scipy), computed with
 *   scipy.special.betainc(a, b, x)
 *   2 * scipy.stats.t.sf(abs(t), df)
 *   scipy.stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False)
 * (ttest_ind_from_stats takes the sample stddev: population sd * sqrt(n/(n-1)),
 * and reports mean1 - mean2 where diff_welch reports B - A, so t flips sign.)
 * Two more from any printed t table: t(0.975; 10) = 2.228, t(0.975; 1) = 12.706.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "diff.h"
#include "render/render-local.h"
#include "harness.h"
#include "intern.h"

static void test_betai(void)
{
	CHECK_NEAR(diff_betai(2.5, 0.5, 0.3), 0.01892712407194565, 1e-10);
	CHECK_NEAR(diff_betai(0.5, 0.5, 0.5), 0.5, 1e-12);
	CHECK_NEAR(diff_betai(10, 3, 0.9), 0.889130022255, 1e-9);
	CHECK(diff_betai(2, 3, 0) == 0, "I_0 = 0");
	CHECK(diff_betai(2, 3, 1) == 1, "I_1 = 1");
	CHECK(isnan(diff_betai(0, 3, 0.5)), "a = 0 is not a distribution");
}

static void test_t_pvalue(void)
{
	static const struct {
		double t, df, p;
	} ref[] = {
	    /* SciPy 1.10.1: 2 * scipy.stats.t.sf(abs(t), df) */
	    {2.228, 10, 0.05001177181711133},
	    {12.706, 1, 0.05000080235813317},
	    {1.0, 1, 0.49999999999999956},
	    {0.5, 3, 0.651447964848151},
	    {2.0, 5, 0.10193947882985828},
	    {3.5, 7.3, 0.00934313852848555},
	    {-2.5, 20, 0.021233545439132393},
	    {1.96, 1e6, 0.04999606758526978},
	    {4.0, 30, 0.0003818456360837564},
	    {10.0, 100, 9.901688984594094e-17},
	    {0.1, 2.5, 0.9278065440624896},
	    {6.0, 1e5, 1.979929455601766e-09},
	    {0.0, 10, 1.0},
	};

	for (size_t i = 0; i < ARRAY_SIZE(ref); i++) {
		double p = diff_t_pvalue(ref[i].t, ref[i].df);
		CHECK(fabs(p - ref[i].p) <= 1e-8 * ref[i].p + 1e-15,
		      "t %g df %g: p %.17g want %.17g", ref[i].t, ref[i].df, p, ref[i].p);
	}
	/* printed tables, 3 significant digits */
	CHECK_NEAR(diff_t_pvalue(2.228, 10), 0.05, 1e-3);
	CHECK_NEAR(diff_t_pvalue(12.706, 1), 0.05, 1e-3);
	/* a run of millions of exits: df/2 ~ 2.5e6 must still converge (SciPy: 0.0) */
	CHECK(diff_t_pvalue(40, 5e6) < 1e-300, "huge t, huge df: p %g", diff_t_pvalue(40, 5e6));
	CHECK_NEAR(diff_t_pvalue(1.96, 5e6), 0.04999584575418963, 1e-8); /* SciPy */
	CHECK(isnan(diff_t_pvalue(NAN, 3)), "NAN t");
	CHECK(isnan(diff_t_pvalue(1, 0)), "df 0");
}

static void test_welch(void)
{
	double t, df, p;

	/* SciPy: ttest_ind_from_stats(293.3679, 294.569*sqrt(10000/9999), 10000,
	 *                             280.0, 250.0*sqrt(5000/4999), 5000, equal_var=False) */
	p = diff_welch(10000, 293.3679, 294.569, 5000, 280.0, 250.0, &t, &df);
	CHECK_NEAR(t, -2.9046614169335436, 1e-9);
	CHECK_NEAR(p, 0.003683470400614307, 1e-8);
	/* SciPy: ttest_ind_from_stats(10, 2, 5, 12, 3, 7, equal_var=False) */
	p = diff_welch(5, 10, 2 * sqrt(4.0 / 5), 7, 12, 3 * sqrt(6.0 / 7), &t, &df);
	CHECK_NEAR(t, 1.3848495294356287, 1e-9);
	CHECK_NEAR(p, 0.19624710852466742, 1e-8);
	CHECK(isnan(diff_welch(1, 10, 1, 7, 12, 3, &t, &df)), "n = 1 has no variance");
	CHECK(isnan(diff_welch(5, 10, NAN, 7, 12, 3, &t, &df)), "unknown stddev");
	CHECK(isnan(diff_welch(5, 10, 0, 7, 12, 0, &t, &df)), "both constant");
	CHECK(isnan(t) && isnan(df), "t and df NAN too");
}

static void put(struct stats_table *t, const char *name, int32_t tid, uint64_t n, uint64_t sum,
		uint64_t max, double sd)
{
	struct stats_key k = {.name = intern(name), .tid = tid, .vcpu = -1};

	stats_acc_set_summary(stats_table_get(t, &k), n, n ? sum / n / 2 : 0, max, sum,
			      (double)n * sd * sd);
}

static const struct diff_row *find(const struct diff *d, const char *name, int32_t vcpu)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name) && d->rows[i].vcpu == vcpu)
			return &d->rows[i];
	return NULL;
}

/*
 * A: IO 100 x avg 1000 (sd 100), HLT 10 x 5000 (sd 0), MMIO 5 x 1000
 * B: IO  50 x avg 1200 (sd 100), HLT 10 x 5000 (sd 0), PF  20 x 1000
 * sumsum 155000 -> 130000: -16.129 %; Δ = -25000 of which IO -40000 (160 %),
 * PF +20000 (-80 %), MMIO -5000 (20 %), HLT 0.
 */
static void test_rows(void)
{
	struct stats_table *a = stats_table_new(), *b = stats_table_new();

	put(a, "IO", -1, 100, 100000, 2000, 100);
	put(a, "HLT", -1, 10, 50000, 5000, 0);
	put(a, "MMIO", -1, 5, 5000, 1500, 10);
	put(b, "IO", -1, 50, 60000, 2500, 100);
	put(b, "HLT", -1, 10, 50000, 5000, 0);
	put(b, "PF", -1, 20, 20000, 1100, 10);
	struct diff *d = diff_new(a, b, false);

	CHECK(d->nrows == 4, "rows %zu", d->nrows);
	CHECK(d->total.count_a == 115 && d->total.count_b == 80, "csum");
	CHECK(d->total.sum_a == 155000 && d->total.sum_b == 130000, "sumsum");
	CHECK_NEAR(d->total.change_pct, -16.129032258064516, 1e-12);
	CHECK_NEAR(d->total.count_change_pct, -30.434782608695652, 1e-12);
	CHECK_NEAR(d->total.avg_a, 155000.0 / 115, 1e-12);

	const struct diff_row *io = find(d, "IO", -1), *hlt = find(d, "HLT", -1);
	const struct diff_row *mmio = find(d, "MMIO", -1), *pf = find(d, "PF", -1);
	CHECK(io && hlt && mmio && pf, "all four rows");
	if (!io || !hlt || !mmio || !pf)
		goto out;
	CHECK(io->status == DIFF_BOTH && mmio->status == DIFF_GONE && pf->status == DIFF_NEW,
	      "status");
	CHECK_NEAR(io->dcount_pct, -50, 1e-12);
	CHECK_NEAR(io->davg_pct, 20, 1e-12);
	CHECK_NEAR(io->a.pct, 100 * 100000.0 / 155000, 1e-12);
	CHECK_NEAR(io->b.pct, 100 * 60000.0 / 130000, 1e-12);
	CHECK_NEAR(io->delta_sum, -40000, 1e-12);
	CHECK_NEAR(io->share_pct, 160, 1e-12);
	CHECK_NEAR(pf->share_pct, -80, 1e-12);
	CHECK_NEAR(mmio->share_pct, 20, 1e-12);
	CHECK(hlt->delta_sum == 0 && hlt->dcount_pct == 0 && hlt->davg_pct == 0, "HLT unchanged");
	/* SciPy: ttest_ind_from_stats(1200, 100*sqrt(50/49), 50, 1000, 100*sqrt(100/99), 100,
	 *                             equal_var=False) */
	CHECK_NEAR(io->t, 11.450244892931684, 1e-9);
	CHECK_NEAR(io->p, 9.372090090322475e-20, 1e-6);
	CHECK_STR(diff_mark(io->p), "**");
	CHECK(isnan(hlt->p) && isnan(pf->p) && isnan(mmio->p), "no test without both sides");
	CHECK(isnan(pf->dcount_pct) && isnan(mmio->davg_pct), "no change for new/gone");
	CHECK(pf->a.count == 0 && pf->b.count == 20 && mmio->b.sum == 0, "missing side is zero");
	/* display order: max(sum A, sum B) descending */
	CHECK(d->rows[0].name == io->name && d->rows[3].name == mmio->name, "order %s..%s",
	      d->rows[0].name, d->rows[3].name);
	CHECK(d->ntop == 3, "top %zu", d->ntop);
	CHECK(d->ntop == 3 && d->rows[d->top[0]].name == io->name &&
		  d->rows[d->top[1]].name == pf->name && d->rows[d->top[2]].name == mmio->name,
	      "top rows: IO, PF, MMIO");
out:
	diff_free(d);
	stats_table_free(a);
	stats_table_free(b);
}

/* Threads of two runs never share ids: vCPUs are matched by thread-id rank. */
static void test_per_vcpu(void)
{
	struct stats_table *a = stats_table_new(), *b = stats_table_new();

	put(a, "IO", 501, 10, 10000, 1000, 1);
	put(a, "IO", 500, 20, 20000, 1000, 1);
	put(b, "IO", 900, 40, 40000, 1000, 1);
	put(b, "IO", 901, 5, 5000, 1000, 1);
	CHECK(diff_has_per_vcpu(a) && diff_has_per_vcpu(b), "per-thread data");
	struct diff *d = diff_new(a, b, true);
	const struct diff_row *v0 = find(d, "IO", 0), *v1 = find(d, "IO", 1);
	CHECK(d->nrows == 2 && v0 && v1, "two vCPU rows, got %zu", d->nrows);
	if (v0 && v1) {
		CHECK(v0->a.count == 20 && v0->b.count == 40, "vcpu0: tid 500 vs tid 900");
		CHECK(v1->a.count == 10 && v1->b.count == 5, "vcpu1: tid 501 vs tid 901");
	}
	diff_free(d);

	struct stats_table *whole = stats_table_rollup(a, 0);
	CHECK(!diff_has_per_vcpu(whole), "a rolled-up table has no per-vCPU data");
	d = diff_new(whole, b, false);
	CHECK(d->nrows == 1 && d->rows[0].a.count == 30 && d->rows[0].b.count == 45, "rollup");
	diff_free(d);
	stats_table_free(whole);
	stats_table_free(a);
	stats_table_free(b);
}

/* Exits at a trace edge are counted, not timed: count has them, avg and the test do not. */
static void test_untimed(void)
{
	struct stats_table *a = stats_table_new(), *b = stats_table_new();
	struct stats_key k = {.name = intern("IO"), .tid = -1, .vcpu = -1};

	put(a, "IO", -1, 4, 4000, 1500, 100);
	stats_table_get(a, &k)->untimed = 1;
	stats_table_get(b, &k)->untimed = 2; /* seen, never timed */
	struct diff *d = diff_new(a, b, false);
	const struct diff_row *r = find(d, "IO", -1);
	CHECK(r && r->status == DIFF_BOTH, "untimed-only still present");
	if (r) {
		CHECK(r->a.count == 5 && r->a.timed == 4 && r->b.count == 2 && r->b.timed == 0,
		      "counts %llu/%llu %llu/%llu", (unsigned long long)r->a.count,
		      (unsigned long long)r->a.timed, (unsigned long long)r->b.count,
		      (unsigned long long)r->b.timed);
		CHECK_NEAR(r->a.avg, 1000, 1e-12);
		CHECK(isnan(r->b.avg) && isnan(r->davg_pct) && isnan(r->p), "nothing timed in B");
		CHECK_NEAR(r->dcount_pct, -60, 1e-12);
	}
	CHECK(d->total.count_a == 5 && d->total.count_b == 2, "csum counts every exit");
	CHECK_NEAR(d->total.avg_a, 1000, 1e-12);
	diff_free(d);
	stats_table_free(a);
	stats_table_free(b);
}

static void test_empty(void)
{
	struct stats_table *a = stats_table_new();
	struct diff *d = diff_new(a, NULL, false);

	CHECK(d->nrows == 0 && d->ntop == 0 && isnan(d->total.change_pct), "empty diff");
	diff_free(d);
	stats_table_free(a);
}

static char *render(const struct diff *d,
		    int (*fn)(FILE *, const struct diff *, const struct render_diff_opts *))
{
	struct render_diff_opts o = {
	    .name_a = "a.dat", .name_b = "b \"quoted\".dat", .unit_ns = 1000, .unit = "us"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(fn(f, d, &o) == 0, "renderer returns 0");
	fclose(f);
	return buf;
}

static void test_renderers(void)
{
	struct stats_table *a = stats_table_new(), *b = stats_table_new();

	put(a, "IO", -1, 100, 100000, 2000, 100);
	put(a, "GONE,X", -1, 5, 5000, 1500, 10);
	put(b, "IO", -1, 50, 60000, 2500, 100);
	put(b, "HLT", -1, 3, 9000, 5000, 0);
	struct diff *d = diff_new(a, b, false);
	char *s = render(d, render_diff_json);
	CHECK(strstr(s, "\"b\": \"b \\\"quoted\\\".dat\""), "JSON escapes: %s", s);
	CHECK(strstr(s, "\"status\": \"new\"") && strstr(s, "\"status\": \"gone\""), "status");
	CHECK(strstr(s, "\"avg_a\": null"), "a missing side's avg is null");
	CHECK(strstr(s, "\"p_value\": null") && strstr(s, "\"mark\": \"**\""), "p-values");
	CHECK(strstr(s, "\"avg_a\": 1,") && strstr(s, "\"avg_b\": 1.2,"), "us: %s", s);
	CHECK(strstr(s, "\"total\": {\"count_a\": 105, \"count_b\": 53, \"sum_a\": 105, "
			"\"sum_b\": 69"),
	      "total: %s", s);
	free(s);
	s = render(d, render_diff_csv);
	CHECK(strstr(s, "\n\"GONE,X\",-1,gone,5,1,"), "CSV quotes names: %s", s);
	CHECK(strstr(s, "\nIO,-1,both,100,1,0.1,100,"), "CSV IO row: %s", s);
	free(s);
	s = render(d, render_diff_table);
	CHECK(strstr(s, "csum   105 -> 53 (-49.52%)"), "table csum: %s", s);
	CHECK(strstr(s, "most of the change: IO -40.0 us"), "table top: %s", s);
	free(s);
	s = render(d, render_diff_ppc);
	CHECK(strstr(s, "IO count 100 -> 50 (-50.00%) max 2.0 -> 2.5"), "ppc row: %s", s);
	free(s);
	s = render(d, render_diff_svg);
	CHECK(strstr(s, "<svg ") && strstr(s, "</svg>") && strstr(s, "GONE,X (gone)"), "svg");
	CHECK(strstr(s, "b &quot;quoted&quot;.dat"), "svg escapes");
	free(s);
	diff_free(d);
	stats_table_free(a);
	stats_table_free(b);
}

static void test_runtime(void)
{
	char buf[32];
	const char *s = buf;

	diff_fmt_runtime(buf, sizeof(buf), 117.3e9);
	CHECK_STR(s, "1:57");
	diff_fmt_runtime(buf, sizeof(buf), 0.2456e9);
	CHECK_STR(s, "0:00.246");
	diff_fmt_runtime(buf, sizeof(buf), 3725e9);
	CHECK_STR(s, "62:05");
}

int main(void)
{
	test_betai();
	test_t_pvalue();
	test_welch();
	test_rows();
	test_per_vcpu();
	test_untimed();
	test_empty();
	test_renderers();
	test_runtime();
	return test_summary("test_diff");
}

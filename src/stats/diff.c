// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of `kvm-exitstat diff`: pairs the rows of two runs, computes
 * the changes, Welch's t-test on each row's mean, and which rows explain the
 * change of the total time. Pure: no I/O.
 *
 * The t-test needs only count, mean and stddev per side, because saved PPC
 * reports have nothing else. Its p-value comes from Student's t distribution
 * through the regularized incomplete beta function, evaluated with the
 * modified Lentz continued fraction (Numerical Recipes, 3rd ed., 6.4).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "diff.h"

/* ------------------------------------------------------------------------ */
/* Student's t */

/*
 * The continued fraction for I_x(a,b), good for x < (a+1)/(a+b+2). It needs
 * O(sqrt(max(a,b))) terms, so the bound is generous: df/2 reaches 10^7 for a
 * run of 20 M exits.
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000000; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double diff_betai(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	double bt = exp(lbt);
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double diff_t_pvalue(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	/* P(|T| >= |t|) = I_{df/(df+t²)}(df/2, 1/2); written to keep precision for small t. */
	double t2 = t * t;
	return diff_betai(df / 2, 0.5, df / (df + t2));
}

double diff_welch(uint64_t n1, double mean1, double sd1, uint64_t n2, double mean2, double sd2,
		  double *t, double *df)
{
	*t = *df = NAN;
	if (n1 < 2 || n2 < 2 || !isfinite(sd1) || !isfinite(sd2))
		return NAN;
	/* population -> sample variance of the mean */
	double v1 = sd1 * sd1 / (double)(n1 - 1), v2 = sd2 * sd2 / (double)(n2 - 1);
	double se2 = v1 + v2;
	if (!(se2 > 0))
		return NAN;
	*t = (mean2 - mean1) / sqrt(se2);
	*df = se2 * se2 / (v1 * v1 / (double)(n1 - 1) + v2 * v2 / (double)(n2 - 1));
	return diff_t_pvalue(*t, *df);
}

const char *diff_mark(double p)
{
	if (isnan(p))
		return "";
	return p < 0.01 ? "**" : p < 0.05 ? "*" : "";
}

/* ------------------------------------------------------------------------ */
/* Normalizing a side: one accumulator per (name) or per (name, vCPU label) */

struct keyed {
	struct stats_key key;
	const struct stats_acc *acc;
};

struct keys {
	struct keyed *k;
	size_t n, cap;
};

static void collect_key(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct keys *ks = arg;

	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? 2 * ks->cap : 64;
		ks->k = xrealloc(ks->k, ks->cap * sizeof(*ks->k));
	}
	ks->k[ks->n++] = (struct keyed){*k, a};
}

static int cmp_tid(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;

	return (a->key.tid > b->key.tid) - (a->key.tid < b->key.tid);
}

/*
 * The vCPU a thread ran: its vcpu id when every thread's events carry one,
 * else its rank among the run's thread ids (vCPU threads are created in
 * order, and thread ids of two runs never match).
 */
static int32_t tid_label(const struct keys *by_tid, int32_t tid, bool ids_known)
{
	int32_t rank = 0;

	for (size_t i = 0; i < by_tid->n; i++) {
		const struct stats_key *k = &by_tid->k[i].key;
		if (k->tid < 0 || (i && k->tid == by_tid->k[i - 1].key.tid))
			continue;
		if (k->tid == tid)
			return ids_known ? k->vcpu : rank;
		rank++;
	}
	return -1;
}

/* by_tid: one entry per tid >= 0 (sorted), vcpu = the id seen for it or -1. */
static bool tid_vcpus(const struct keys *ks, struct keys *by_tid)
{
	bool known = true;

	for (size_t i = 0; i < ks->n; i++)
		if (ks->k[i].key.tid >= 0)
			collect_key(&ks->k[i].key, NULL, by_tid);
	if (by_tid->n) /* qsort(NULL, 0) is undefined */
		qsort(by_tid->k, by_tid->n, sizeof(*by_tid->k), cmp_tid);
	for (size_t i = 0; i < by_tid->n;) {
		size_t j = i;
		int32_t v = -1;
		for (; j < by_tid->n && by_tid->k[j].key.tid == by_tid->k[i].key.tid; j++)
			if (by_tid->k[j].key.vcpu >= 0)
				v = by_tid->k[j].key.vcpu;
		for (size_t m = i; m < j; m++)
			by_tid->k[m].key.vcpu = v;
		known &= v >= 0;
		i = j;
	}
	return known;
}

static struct stats_table *per_vcpu_table(const struct stats_table *t)
{
	struct stats_table *r = stats_table_rollup(t, STATS_BY_TID | STATS_BY_VCPU);
	struct stats_table *out = stats_table_new();
	struct keys ks = {0}, by_tid = {0};

	stats_table_foreach(r, collect_key, &ks);
	bool known = tid_vcpus(&ks, &by_tid);
	for (size_t i = 0; i < ks.n; i++) {
		const struct stats_key *k = &ks.k[i].key;
		struct stats_key nk = {.name = k->name, .tid = -1, .vcpu = k->vcpu};
		if (k->tid >= 0)
			nk.vcpu = tid_label(&by_tid, k->tid, known);
		stats_acc_merge(stats_table_get(out, &nk), ks.k[i].acc);
	}
	free(ks.k);
	free(by_tid.k);
	stats_table_free(r);
	return out;
}

static void any_split(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	if (k->tid >= 0 || k->vcpu >= 0)
		*(bool *)arg = true;
}

bool diff_has_per_vcpu(const struct stats_table *t)
{
	bool split = false;

	if (t)
		stats_table_foreach(t, any_split, &split);
	return split;
}

/* ------------------------------------------------------------------------ */
/* Rows */

struct build {
	struct diff *d;
	size_t cap;
	const struct stats_table *other;
	bool a_side; /* walking A (else B, adding only the rows A lacks) */
};

static void side_of(struct diff_side *s, const struct stats_acc *a)
{
	s->count = a->count + a->untimed;
	s->timed = a->count;
	s->max = a->max;
	s->sum = a->sum;
	s->avg = a->count ? stats_acc_avg(a) : NAN;
	s->stddev = a->count && !isnan(stats_acc_m2(a)) ? stats_acc_stddev(a) : NAN;
}

static void add_row(const struct stats_key *k, const struct stats_acc *acc, void *arg)
{
	struct build *b = arg;
	const struct stats_acc *o = stats_table_find(b->other, k);

	if (o && !o->count && !o->untimed)
		o = NULL;
	if ((!acc->count && !acc->untimed) || (!b->a_side && o))
		return; /* B's rows that A also has were added while walking A */
	if (b->d->nrows == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->d->rows = xrealloc(b->d->rows, b->cap * sizeof(*b->d->rows));
	}
	struct diff_row *r = &b->d->rows[b->d->nrows++];
	*r = (struct diff_row){.name = k->name, .vcpu = k->vcpu};
	side_of(b->a_side ? &r->a : &r->b, acc);
	if (o)
		side_of(&r->b, o);
	r->status = o ? DIFF_BOTH : b->a_side ? DIFF_GONE : DIFF_NEW;
}

static double change_pct(double a, double b)
{
	return a != 0 ? 100 * (b - a) / a : NAN;
}

static void row_stats(struct diff_row *r, const struct diff_total *t)
{
	r->a.pct = t->sum_a ? 100.0 * (double)r->a.sum / (double)t->sum_a : 0;
	r->b.pct = t->sum_b ? 100.0 * (double)r->b.sum / (double)t->sum_b : 0;
	r->delta_sum = (double)r->b.sum - (double)r->a.sum;
	double dtotal = (double)t->sum_b - (double)t->sum_a;
	r->share_pct = dtotal == 0 ? NAN : r->delta_sum == 0 ? 0 : 100 * r->delta_sum / dtotal;
	r->dcount_pct = r->davg_pct = r->t = r->df = r->p = NAN;
	if (r->status != DIFF_BOTH)
		return;
	r->dcount_pct = change_pct((double)r->a.count, (double)r->b.count);
	if (r->a.timed && r->b.timed)
		r->davg_pct = change_pct(r->a.avg, r->b.avg);
	r->p = diff_welch(r->a.timed, r->a.avg, r->a.stddev, r->b.timed, r->b.avg, r->b.stddev,
			  &r->t, &r->df);
}

static void totals(struct diff *d)
{
	struct diff_total *t = &d->total;

	for (size_t i = 0; i < d->nrows; i++) {
		t->count_a += d->rows[i].a.count;
		t->count_b += d->rows[i].b.count;
		t->sum_a += d->rows[i].a.sum;
		t->sum_b += d->rows[i].b.sum;
	}
	uint64_t timed_a = 0, timed_b = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		timed_a += d->rows[i].a.timed;
		timed_b += d->rows[i].b.timed;
	}
	t->avg_a = timed_a ? (double)t->sum_a / (double)timed_a : 0;
	t->avg_b = timed_b ? (double)t->sum_b / (double)timed_b : 0;
	t->count_change_pct = change_pct((double)t->count_a, (double)t->count_b);
	t->change_pct = change_pct((double)t->sum_a, (double)t->sum_b);
}

static int cmp_display(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	uint64_t ma = a->a.sum > a->b.sum ? a->a.sum : a->b.sum;
	uint64_t mb = b->a.sum > b->b.sum ? b->a.sum : b->b.sum;

	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void pick_top(struct diff *d)
{
	for (d->ntop = 0; d->ntop < DIFF_TOP; d->ntop++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < d->nrows; i++) {
			bool taken = false;
			for (size_t k = 0; k < d->ntop; k++)
				taken |= d->top[k] == i;
			double v = fabs(d->rows[i].delta_sum);
			if (!taken && v > 0 &&
			    (best == SIZE_MAX || v > fabs(d->rows[best].delta_sum)))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		d->top[d->ntop] = best;
	}
}

struct diff *diff_new(const struct stats_table *a, const struct stats_table *b, bool per_vcpu)
{
	struct diff *d = xcalloc(1, sizeof(*d));
	struct stats_table *empty = stats_table_new();
	struct stats_table *na, *nb;

	a = a ? a : empty;
	b = b ? b : empty;
	na = per_vcpu ? per_vcpu_table(a) : stats_table_rollup(a, 0);
	nb = per_vcpu ? per_vcpu_table(b) : stats_table_rollup(b, 0);
	struct build bl = {.d = d, .other = nb, .a_side = true};
	stats_table_foreach(na, add_row, &bl);
	bl.other = na;
	bl.a_side = false;
	stats_table_foreach(nb, add_row, &bl);
	d->per_vcpu = per_vcpu;
	totals(d);
	for (size_t i = 0; i < d->nrows; i++)
		row_stats(&d->rows[i], &d->total);
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_display);
	pick_top(d);
	stats_table_free(na);
	stats_table_free(nb);
	stats_table_free(empty);
	return d;
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d);
}

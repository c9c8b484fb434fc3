// SPDX-License-Identifier: GPL-2.0
/*
 * A view: the rows of a table with every derived number a renderer prints
 * (avg, stddev, % of the run, quantiles) computed here, once, in the unit the
 * user asked for. The PPC report's % is 100 * sum / (sum of every row's sum),
 * TIMEINGUEST included; that is what 2008-2010 reports printed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stats.h"

struct rows_build {
	struct stats_view *v;
	size_t cap;
	double unit;
};

void stats_row_of(struct stats_row *r, const struct stats_key *k, const struct stats_acc *a,
		  double unit_ns)
{
	/* count is every exit, timed or not; the times are over the timed ones */
	*r = (struct stats_row){.key = *k,
				.count = a->count + a->untimed,
				.timed = a->count,
				.untimed = a->untimed,
				.acc = a};
	r->min = a->count ? (double)a->min / unit_ns : 0;
	r->max = (double)a->max / unit_ns;
	r->sum = (double)a->sum / unit_ns;
	r->avg = stats_acc_avg(a) / unit_ns;
	r->stddev = stats_acc_stddev(a) / unit_ns;
	r->has_quantiles = a->hist && a->count;
	r->p50 = stats_acc_quantile(a, 0.50) / unit_ns;
	r->p90 = stats_acc_quantile(a, 0.90) / unit_ns;
	r->p99 = stats_acc_quantile(a, 0.99) / unit_ns;
	r->p999 = stats_acc_quantile(a, 0.999) / unit_ns;
}

static void add_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct rows_build *c = arg;
	struct stats_view *v = c->v;

	if (v->nrows == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		v->rows = xrealloc(v->rows, c->cap * sizeof(*v->rows));
	}
	struct stats_row *r = &v->rows[v->nrows++];

	stats_row_of(r, k, a, c->unit);
	v->csum += r->count;
	v->ctimed += r->timed;
	v->untimed += r->untimed;
	v->sumsum_ns += a->sum;
}

static enum stats_sort sort_by;

static int cmp_double(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0; /* descending */
}

/* Ties break on name, then tid, then vcpu, so output is stable across runs. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct stats_row *a = pa, *b = pb;
	int c = 0;

	switch (sort_by) {
	case STATS_SORT_SUM:
		c = cmp_double(a->sum, b->sum);
		break;
	case STATS_SORT_COUNT:
		c = cmp_double((double)a->count, (double)b->count);
		break;
	case STATS_SORT_AVG:
		c = cmp_double(a->avg, b->avg);
		break;
	case STATS_SORT_MAX:
		c = cmp_double(a->max, b->max);
		break;
	case STATS_SORT_NAME:
		break;
	}
	if (!c)
		c = strcmp(a->key.name, b->key.name);
	if (!c)
		c = (a->key.tid > b->key.tid) - (a->key.tid < b->key.tid);
	if (!c)
		c = (a->key.vcpu > b->key.vcpu) - (a->key.vcpu < b->key.vcpu);
	if (!c)
		c = (a->key.sub > b->key.sub) - (a->key.sub < b->key.sub);
	return c;
}

struct stats_view *stats_view_new(const struct stats_table *t, double unit_ns, const char *unit,
				  enum stats_sort sort)
{
	struct stats_view *v = xcalloc(1, sizeof(*v));
	struct rows_build c = {v, 0, unit_ns};

	v->unit = unit;
	stats_table_foreach(t, add_row, &c);
	for (size_t i = 0; i < v->nrows; i++)
		v->rows[i].pct =
		    v->sumsum_ns ? 100.0 * (double)v->rows[i].acc->sum / (double)v->sumsum_ns : 0;
	/*
	 * From the exact integer total, not a sum of doubles: rows come in hash
	 * order, and a double sum in another order differs in its last digits
	 * (the JSON prints them all).
	 */
	v->sumsum = (double)v->sumsum_ns / unit_ns;
	v->sumavg = v->ctimed ? v->sumsum / (double)v->ctimed : 0;
	v->runtime_s = (double)v->sumsum_ns / 1e9;
	sort_by = sort;
	if (v->nrows > 1) /* rows is NULL for an empty table: qsort(NULL, 0) is UB */
		qsort(v->rows, v->nrows, sizeof(*v->rows), cmp_rows);
	return v;
}

void stats_view_free(struct stats_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v);
}

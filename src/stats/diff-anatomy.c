// SPDX-License-Identifier: GPL-2.0
/*
 * diff --anatomy: the parts of each reason, A against B, with Welch's t-test
 * of each part's mean (diff_welch(): count, mean and stddev of the part's
 * samples, a zero for an exit without that part, as report --anatomy's mean).
 * Pure, like diff.c: the views of both sides (anatomy.c) give the numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "diff.h"
#include "intern.h"

static void side_of(struct diff_part_side *s, const struct stats_anatomy_row *r, int p)
{
	const struct stats_acc *a = r ? r->acc[p] : NULL;

	*s = (struct diff_part_side){.mean = NAN, .stddev = NAN};
	if (!r || !a || !a->count)
		return;
	s->n = a->count;
	s->mean = stats_acc_avg(a);
	s->stddev = stats_acc_stddev(a);
	s->share = r->part[p].share;
	s->sum = a->sum;
}

static void add_rows(struct diff_anatomy *d, size_t *cap, const char *name,
		     const struct stats_anatomy_row *ra, const struct stats_anatomy_row *rb)
{
	for (int p = 0; p < STATS_NPARTS; p++) {
		struct diff_part_row *r;

		if (d->nrows == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			d->rows = xrealloc(d->rows, *cap * sizeof(*d->rows));
		}
		r = &d->rows[d->nrows++];
		*r = (struct diff_part_row){.name = name, .part = (enum stats_part)p};
		side_of(&r->a, ra, p);
		side_of(&r->b, rb, p);
		r->status = ra && rb ? DIFF_BOTH : ra ? DIFF_GONE : DIFF_NEW;
		r->dmean_pct = r->a.n && r->b.n && r->a.mean != 0
				   ? 100 * (r->b.mean - r->a.mean) / r->a.mean
				   : NAN;
		r->p = diff_welch(r->a.n, r->a.mean, r->a.stddev, r->b.n, r->b.mean, r->b.stddev,
				  &r->t, &r->df);
	}
}

/* A row's weight for the order: the larger side's time, as diff's rows. */
static uint64_t weight(const struct stats_anatomy_row *a, const struct stats_anatomy_row *b)
{
	uint64_t x = a ? a->sum_ns : 0, y = b ? b->sum_ns : 0;

	return x > y ? x : y;
}

struct pair_rows {
	const char *name;
	const struct stats_anatomy_row *a, *b;
};

static int cmp_pairs(const void *pa, const void *pb)
{
	const struct pair_rows *x = pa, *y = pb;
	uint64_t wx = weight(x->a, x->b), wy = weight(y->a, y->b);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct diff_anatomy *diff_anatomy_new(const struct stats_anatomy *a, const struct stats_anatomy *b)
{
	struct diff_anatomy *d = xcalloc(1, sizeof(*d));
	struct stats_anatomy *none = stats_anatomy_new();
	struct stats_anatomy_view *va = stats_anatomy_view_new(a ? a : none, 0, 1, "ns",
							       STATS_SORT_NAME);
	struct stats_anatomy_view *vb = stats_anatomy_view_new(b ? b : none, 0, 1, "ns",
							       STATS_SORT_NAME);
	struct pair_rows *pr = xcalloc(va->nrows + vb->nrows + 1, sizeof(*pr));
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < va->nrows; i++)
		pr[n++] = (struct pair_rows){va->rows[i].key.name, &va->rows[i],
					     stats_anatomy_view_find(vb, va->rows[i].key.name)};
	for (size_t i = 0; i < vb->nrows; i++)
		if (!stats_anatomy_view_find(va, vb->rows[i].key.name))
			pr[n++] = (struct pair_rows){vb->rows[i].key.name, NULL, &vb->rows[i]};
	if (n > 1)
		qsort(pr, n, sizeof(*pr), cmp_pairs);
	for (size_t i = 0; i < n; i++)
		add_rows(d, &cap, pr[i].name, pr[i].a, pr[i].b);
	add_rows(d, &cap, intern("all"), va->nrows ? &va->all : NULL, vb->nrows ? &vb->all : NULL);
	free(pr);
	stats_anatomy_view_free(va);
	stats_anatomy_view_free(vb);
	stats_anatomy_free(none);
	return d;
}

void diff_anatomy_free(struct diff_anatomy *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d);
}

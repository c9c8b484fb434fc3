// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --format csv`: one line per row, fixed columns (kvm-exitstat-diff(1)),
 * times in the unit of the last column, empty cells for what is unknown.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "render-local.h"
#include "diff.h"

/* ",%.*g" or "," for NAN: an empty cell is what spreadsheets read as missing. */
static void cell(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputc(',', f);
	else
		fprintf(f, ",%.10g", v);
}

static void side(FILE *f, const struct diff_side *s, bool present, double unit)
{
	fprintf(f, ",%llu", (unsigned long long)s->count);
	cell(f, present ? s->avg / unit : NAN);
	cell(f, present ? s->stddev / unit : NAN);
	cell(f, (double)s->sum / unit);
	cell(f, s->pct);
	cell(f, present ? (double)s->max / unit : NAN);
}

int render_diff_csv(FILE *f, const struct diff *d, const struct render_diff_opts *o)
{
	fputs("name,vcpu,status,count_a,avg_a,stddev_a,sum_a,pct_a,max_a,"
	      "count_b,avg_b,stddev_b,sum_b,pct_b,max_b,"
	      "dcount_pct,davg_pct,t,df,p_value,mark,delta_sum,share_pct,timed_a,timed_b,unit\n",
	      f);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		csv_quote(f, r->name);
		fprintf(f, ",%d,%s", r->vcpu, diff_status_name(r->status));
		side(f, &r->a, r->status != DIFF_NEW, o->unit_ns);
		side(f, &r->b, r->status != DIFF_GONE, o->unit_ns);
		cell(f, r->dcount_pct);
		cell(f, r->davg_pct);
		cell(f, r->t);
		cell(f, r->df);
		cell(f, r->p);
		fprintf(f, ",%s", diff_mark(r->p));
		cell(f, r->delta_sum / o->unit_ns);
		cell(f, r->share_pct);
		fprintf(f, ",%llu,%llu,%s\n", (unsigned long long)r->a.timed,
			(unsigned long long)r->b.timed, o->unit);
	}
	return ferror(f) ? -1 : 0;
}

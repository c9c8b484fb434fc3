// SPDX-License-Identifier: GPL-2.0
/*
 * The default `diff` output: an aligned table, one row per exit type, then the
 * run totals and the rows that explain most of the change.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "diff.h"
#include "diff-fmt.h"

#define TP(o) ((o)->unit_ns > 1 ? 1 : 0) /* decimals of sums and maxima */

static int name_width(const struct diff *d)
{
	int w = 9;

	for (size_t i = 0; i < d->nrows; i++)
		if ((int)strlen(d->rows[i].name) > w)
			w = (int)strlen(d->rows[i].name);
	return w;
}

static void header(FILE *f, const struct diff *d, const struct diff_render_opts *o, int w)
{
	fprintf(f,
		"A = %s\nB = %s\ntimes in %s; * p < 0.05, ** p < 0.01 (Welch's t-test on avg)\n\n",
		o->name_a, o->name_b, o->unit);
	if (d->per_vcpu)
		fprintf(f, "%5s ", "vcpu");
	fprintf(f, "%-*s %10s %10s %8s %11s %11s %8s %13s %13s %6s %6s %10s %10s %s\n", w,
		"exit type", "count A", "count B", "dcount", "avg A", "avg B", "davg", "sum A",
		"sum B", "%A", "%B", "max A", "max B", "p");
}

/* Values of a side the row does not have are printed as "-". */
static void side_cells(const struct diff_side *s, bool present, const struct diff_render_opts *o,
		       char avg[32], char sum[32], char max[32])
{
	diff_fmt_time(avg, 32, present ? s->avg : NAN, 4, o);
	diff_fmt_time(sum, 32, present ? (double)s->sum : NAN, TP(o), o);
	diff_fmt_time(max, 32, present ? (double)s->max : NAN, TP(o), o);
}

static void row(FILE *f, const struct diff *d, const struct diff_row *r,
		const struct diff_render_opts *o, int w)
{
	char avga[32], suma[32], maxa[32], avgb[32], sumb[32], maxb[32], dc[32], da[32], p[32];
	char pcell[48];

	side_cells(&r->a, r->status != DIFF_NEW, o, avga, suma, maxa);
	side_cells(&r->b, r->status != DIFF_GONE, o, avgb, sumb, maxb);
	diff_fmt_change(dc, sizeof(dc), r->dcount_pct);
	diff_fmt_change(da, sizeof(da), r->davg_pct);
	diff_fmt_p(p, sizeof(p), r->p);
	if (r->status == DIFF_BOTH)
		snprintf(pcell, sizeof(pcell), "%s%s%s", p, *diff_mark(r->p) ? " " : "",
			 diff_mark(r->p));
	else
		snprintf(pcell, sizeof(pcell), "%s", diff_status_name(r->status));
	if (d->per_vcpu)
		fprintf(f, "%5d ", r->vcpu);
	fprintf(f, "%-*s %10llu %10llu %8s %11s %11s %8s %13s %13s %6.2f %6.2f %10s %10s %s\n", w,
		r->name, (unsigned long long)r->a.count, (unsigned long long)r->b.count, dc, avga,
		avgb, da, suma, sumb, r->a.pct, r->b.pct, maxa, maxb, pcell);
}

static void summary(FILE *f, const struct diff *d, const struct diff_render_opts *o)
{
	const struct diff_total *t = &d->total;
	char c[32], sa[32], sb[32], ra[32], rb[32], aa[32], ab[32];

	diff_fmt_change(c, sizeof(c), t->count_change_pct);
	fprintf(f, "\ncsum   %llu -> %llu (%s)\n", (unsigned long long)t->count_a,
		(unsigned long long)t->count_b, c);
	diff_fmt_change(c, sizeof(c), t->change_pct);
	diff_fmt_time(sa, sizeof(sa), (double)t->sum_a, TP(o), o);
	diff_fmt_time(sb, sizeof(sb), (double)t->sum_b, TP(o), o);
	diff_fmt_runtime(ra, sizeof(ra), (double)t->sum_a);
	diff_fmt_runtime(rb, sizeof(rb), (double)t->sum_b);
	fprintf(f, "sumsum %s -> %s (%s) => ~%s -> ~%s runtime\n", sa, sb, c, ra, rb);
	diff_fmt_time(aa, sizeof(aa), t->avg_a, 4, o);
	diff_fmt_time(ab, sizeof(ab), t->avg_b, 4, o);
	fprintf(f, "sumavg %s -> %s\n", aa, ab);
}

static void explain(FILE *f, const struct diff *d, const struct diff_render_opts *o)
{
	if (!d->ntop)
		return;
	fprintf(f, "most of the change:");
	for (size_t k = 0; k < d->ntop; k++) {
		const struct diff_row *r = &d->rows[d->top[k]];
		char ds[32];
		diff_fmt_time(ds, sizeof(ds), r->delta_sum, TP(o), o);
		fprintf(f, "%s %s", k ? "," : "", r->name);
		if (d->per_vcpu)
			fprintf(f, " (vcpu %d)", r->vcpu);
		fprintf(f, " %s%s %s", r->delta_sum > 0 ? "+" : "", ds, o->unit);
		if (!isnan(r->share_pct))
			fprintf(f, " (%.1f%%)", r->share_pct);
	}
	fputc('\n', f);
}

int diff_render_table(FILE *f, const struct diff *d, const struct diff_render_opts *o)
{
	int w = name_width(d);

	header(f, d, o, w);
	for (size_t i = 0; i < d->nrows; i++)
		row(f, d, &d->rows[i], o, w);
	summary(f, d, o);
	explain(f, d, o);
	return ferror(f) ? -1 : 0;
}

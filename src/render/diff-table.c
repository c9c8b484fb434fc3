// SPDX-License-Identifier: GPL-2.0
/*
 * The default `diff` output: an aligned table, one row per exit type, then the
 * run totals and the rows that explain most of the change.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "term.h"
#include "diff.h"
#include "render-local.h"

#define TP(o) ((o)->unit_ns > 1 ? 1 : 0) /* decimals of sums and maxima */

/* Names come from the inputs: what a terminal would act on is shown escaped. */
#define SHOWN(name, buf) term_safe(name, buf, sizeof(buf))

static int name_width(const struct diff *d)
{
	char buf[512];
	int w = 9;

	for (size_t i = 0; i < d->nrows; i++)
		if ((int)strlen(SHOWN(d->rows[i].name, buf)) > w)
			w = (int)strlen(SHOWN(d->rows[i].name, buf));
	return w;
}

static void header(FILE *f, const struct diff *d, const struct render_diff_opts *o, int w,
		   size_t width, bool scaled)
{
	char a[1024], b[1024];

	fit_wrap(f, "A = ", SHOWN(o->name_a, a), width);
	fit_wrap(f, "B = ", SHOWN(o->name_b, b), width);
	fprintf(f, "times in %s%s; * p < 0.05, ** p < 0.01 (Welch's t-test on avg)\n\n", o->unit,
		scaled && strcmp(o->unit, "ticks") ? " (ms, s when marked)" : "");
	if (scaled)
		return;
	if (d->per_vcpu)
		fprintf(f, "%5s ", "vcpu");
	fprintf(f, "%-*s %10s %10s %8s %11s %11s %8s %13s %13s %6s %6s %10s %10s %s\n", w,
		"exit type", "count A", "count B", "dcount", "avg A", "avg B", "davg", "sum A",
		"sum B", "%A", "%B", "max A", "max B", "p");
}

/* Values of a side the row does not have are printed as "-". */
static void side_cells(const struct diff_side *s, bool present, const struct render_diff_opts *o,
		       char avg[32], char sum[32], char max[32])
{
	diff_fmt_time(avg, 32, present ? s->avg : NAN, 4, o);
	diff_fmt_time(sum, 32, present ? (double)s->sum : NAN, TP(o), o);
	diff_fmt_time(max, 32, present ? (double)s->max : NAN, TP(o), o);
}

/* The p cell: "0.123 *", or what the row is when a side lacks it ("new", "gone"). */
static void p_cell(char *buf, size_t len, const struct diff_row *r)
{
	char p[32];

	diff_fmt_p(p, sizeof(p), r->p);
	if (r->status == DIFF_BOTH)
		snprintf(buf, len, "%s%s%s", p, *diff_mark(r->p) ? " " : "", diff_mark(r->p));
	else
		snprintf(buf, len, "%s", diff_status_name(r->status));
}

static void row(FILE *f, const struct diff *d, const struct diff_row *r,
		const struct render_diff_opts *o, int w)
{
	char avga[32], suma[32], maxa[32], avgb[32], sumb[32], maxb[32], dc[32], da[32];
	char pcell[48], name[512];

	side_cells(&r->a, r->status != DIFF_NEW, o, avga, suma, maxa);
	side_cells(&r->b, r->status != DIFF_GONE, o, avgb, sumb, maxb);
	diff_fmt_change(dc, sizeof(dc), r->dcount_pct);
	diff_fmt_change(da, sizeof(da), r->davg_pct);
	p_cell(pcell, sizeof(pcell), r);
	if (d->per_vcpu)
		fprintf(f, "%5d ", r->vcpu);
	fprintf(f, "%-*s %10llu %10llu %8s %11s %11s %8s %13s %13s %6.2f %6.2f %10s %10s %s\n", w,
		SHOWN(r->name, name), (unsigned long long)r->a.count,
		(unsigned long long)r->b.count, dc, avga, avgb, da, suma, sumb, r->a.pct, r->b.pct,
		maxa, maxb, pcell);
}

static void summary(FILE *f, const struct diff *d, const struct render_diff_opts *o, size_t width)
{
	const struct diff_total *t = &d->total;
	char c[32], sa[32], sb[32], ra[32], rb[32], aa[32], ab[32], sp[96];

	diff_fmt_change(c, sizeof(c), t->count_change_pct);
	fprintf(f, "\ncsum   %llu -> %llu (%s)\n", (unsigned long long)t->count_a,
		(unsigned long long)t->count_b, c);
	diff_fmt_change(c, sizeof(c), t->change_pct);
	diff_fmt_time(sa, sizeof(sa), (double)t->sum_a, TP(o), o);
	diff_fmt_time(sb, sizeof(sb), (double)t->sum_b, TP(o), o);
	diff_fmt_runtime(ra, sizeof(ra), (double)t->sum_a);
	diff_fmt_runtime(rb, sizeof(rb), (double)t->sum_b);
	diff_fmt_spans(sp, sizeof(sp), o);
	char line[512];

	snprintf(line, sizeof(line), "%s -> %s (%s) => ~%s -> ~%s of vCPU time%s", sa, sb, c, ra,
		 rb, sp);
	fit_wrap(f, "sumsum ", line, width);
	diff_fmt_time(aa, sizeof(aa), t->avg_a, 4, o);
	diff_fmt_time(ab, sizeof(ab), t->avg_b, 4, o);
	fprintf(f, "sumavg %s -> %s\n", aa, ab);
}

static void explain(FILE *f0, const struct diff *d, const struct render_diff_opts *o,
		    size_t width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!d->ntop || !(f = open_memstream(&text, &len)))
		return;
	for (size_t k = 0; k < d->ntop; k++) {
		const struct diff_row *r = &d->rows[d->top[k]];
		char ds[32], name[512];
		diff_fmt_time(ds, sizeof(ds), r->delta_sum, TP(o), o);
		fprintf(f, "%s%s", k ? ", " : "", SHOWN(r->name, name));
		if (d->per_vcpu)
			fprintf(f, " (vcpu %d)", r->vcpu);
		fprintf(f, " %s%s %s", r->delta_sum > 0 ? "+" : "", ds, o->unit);
		if (!isnan(r->share_pct))
			fprintf(f, " (%.1f%%)", r->share_pct);
	}
	fclose(f);
	fit_wrap(f0, "most of the change: ", text, width);
	free(text);
}

/* The one-line layout's width: every cell at its full precision. */
static size_t full_width(const struct diff *d, int w)
{
	size_t p = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		char c[48];

		p_cell(c, sizeof(c), &d->rows[i]);
		p = strlen(c) > p ? strlen(c) : p;
	}
	return (size_t)w + (d->per_vcpu ? 6 : 0) + 129 + p;
}

enum { D_NAME, D_VCPU, D_CA, D_CB, D_DC, D_AA, D_AB, D_DA, D_P, D_PA, D_PB, D_SA, D_SB, D_MA,
       D_MB, D_N };

/* A side's time cell, scaled (ms, s); "-" for a side the row does not have. */
static void tcell(char **row, size_t c, double ns, bool present, const struct render_diff_opts *o)
{
	char b[32];

	if (present && !strcmp(o->unit, "ticks")) /* of unknown length: never ms or s */
		snprintf(b, sizeof(b), "%.0f", ns);
	else
		render_fmt_scaled(b, sizeof(b), present ? ns : NAN, o->unit_ns);
	fit_set(row, c, b);
}

static void fit_row_cells(char **row, const struct diff_row *r, const struct render_diff_opts *o)
{
	char b[64];
	bool ha = r->status != DIFF_NEW, hb = r->status != DIFF_GONE;

	fit_set(row, D_NAME, SHOWN(r->name, b));
	snprintf(b, sizeof(b), "%d", (int)r->vcpu);
	fit_set(row, D_VCPU, b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)r->a.count);
	fit_set(row, D_CA, b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)r->b.count);
	fit_set(row, D_CB, b);
	diff_fmt_change(b, sizeof(b), r->dcount_pct);
	fit_set(row, D_DC, b);
	tcell(row, D_AA, r->a.avg, ha, o);
	tcell(row, D_AB, r->b.avg, hb, o);
	diff_fmt_change(b, sizeof(b), r->davg_pct);
	fit_set(row, D_DA, b);
	p_cell(b, sizeof(b), r);
	fit_set(row, D_P, b);
	snprintf(b, sizeof(b), "%.2f", r->a.pct);
	fit_set(row, D_PA, b);
	snprintf(b, sizeof(b), "%.2f", r->b.pct);
	fit_set(row, D_PB, b);
	tcell(row, D_SA, (double)r->a.sum, ha, o);
	tcell(row, D_SB, (double)r->b.sum, hb, o);
	tcell(row, D_MA, (double)r->a.max, ha, o);
	tcell(row, D_MB, (double)r->b.max, hb, o);
}

/* The narrow layout: counts, averages and p first; shares, sums and maxima may spill. */
static void fit_rows(FILE *f, const struct diff *d, const struct render_diff_opts *o,
		     size_t width)
{
	static const char *const heads[D_N] = {
	    "exit type", "vcpu", "count A", "count B", "dcount", "avg A", "avg B", "davg",
	    "p",	 "%A",	 "%B",	    "sum A",   "sum B",	 "max A", "max B"};
	struct fit_table *t = fit_new(D_N - (d->per_vcpu ? 0 : 1));
	size_t skip = d->per_vcpu ? 0 : 1; /* without per-vCPU rows, no vcpu column */

	fit_col(t, 0, heads[D_NAME], false);
	for (size_t c = D_VCPU + skip; c < D_N; c++)
		fit_col(t, c - skip, heads[c], c != D_P);
	for (size_t i = 0; i < d->nrows; i++) {
		char *cells[D_N] = {0}, **row = fit_row(t);

		fit_row_cells(cells, &d->rows[i], o);
		row[0] = cells[D_NAME];
		if (skip)
			free(cells[D_VCPU]);
		for (size_t c = D_VCPU + skip; c < D_N; c++)
			row[c - skip] = cells[c];
	}
	fit_print(f, t, width);
	fit_free(t);
}

int render_diff_table(FILE *f, const struct diff *d, const struct render_diff_opts *o)
{
	int w = name_width(d);
	size_t width = o->width ? o->width : RENDER_WIDTH_DEFAULT;
	bool scaled = full_width(d, w) > width;

	header(f, d, o, w, width, scaled);
	if (scaled)
		fit_rows(f, d, o, width);
	else
		for (size_t i = 0; i < d->nrows; i++)
			row(f, d, &d->rows[i], o, w);
	summary(f, d, o, width);
	explain(f, d, o, width);
	return ferror(f) ? -1 : 0;
}

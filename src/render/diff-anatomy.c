// SPDX-License-Identifier: GPL-2.0
/*
 * diff --anatomy: each reason's parts, A against B (stats/diff-anatomy.c
 * computed them): the part's mean on each side, its change, its share of
 * the reason's time on each side, Welch's t and p of its mean. The table
 * and the PPC lines leave out the parts neither side had; csv and json
 * have every one.
 */
#include <math.h>
#include <stdio.h>
#include "jsonw.h"
#include "render-local.h"
#include "term.h"

static bool shown(const struct diff_part_row *r)
{
	return r->a.sum || r->b.sum || r->part == STATS_PART_HANDLING;
}

enum { C_NAME, C_PART, C_MA, C_MB, C_DM, C_SA, C_SB, C_T, C_P, C_N };

static void table(FILE *f, const struct diff_anatomy *d, const struct render_diff_opts *o)
{
	static char ma[24], mb[24];
	struct fit_table *t = fit_new(C_N);
	const char *last = NULL;
	char b[64], e[256];

	fprintf(f, "Anatomy: A = %s, B = %s; means over each side's split exits, in %s; shares of "
		   "the reason's time\n\n",
		o->name_a, o->name_b, o->unit);
	snprintf(ma, sizeof(ma), "MEAN A");
	snprintf(mb, sizeof(mb), "MEAN B");
	fit_col(t, C_NAME, "REASON", false);
	fit_col(t, C_PART, "PART", false);
	fit_col(t, C_MA, ma, true);
	fit_col(t, C_MB, mb, true);
	fit_col(t, C_DM, "dMEAN", true);
	fit_col(t, C_SA, "SHARE A", true);
	fit_col(t, C_SB, "SHARE B", true);
	fit_col(t, C_T, "t", true);
	fit_col(t, C_P, "p", true);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_part_row *r = &d->rows[i];
		char **row;

		if (!shown(r))
			continue;
		row = fit_row(t);
		fit_set(row, C_NAME, r->name == last ? "" : term_safe(r->name, e, sizeof(e)));
		last = r->name;
		fit_set(row, C_PART, stats_part_name(r->part));
		diff_fmt_time(b, sizeof(b), r->a.mean, 2, o);
		fit_set(row, C_MA, b);
		diff_fmt_time(b, sizeof(b), r->b.mean, 2, o);
		fit_set(row, C_MB, b);
		diff_fmt_change(b, sizeof(b), r->dmean_pct);
		fit_set(row, C_DM, b);
		snprintf(b, sizeof(b), "%.2f", r->a.share);
		fit_set(row, C_SA, r->a.n ? b : "-");
		snprintf(b, sizeof(b), "%.2f", r->b.share);
		fit_set(row, C_SB, r->b.n ? b : "-");
		snprintf(b, sizeof(b), "%.2f", r->t);
		fit_set(row, C_T, isnan(r->t) ? "-" : b);
		diff_fmt_p(b, sizeof(b), r->p);
		snprintf(e, sizeof(e), "%s%s", b, diff_mark(r->p));
		fit_set(row, C_P, e);
	}
	fit_print(f, t, o->width ? o->width : RENDER_WIDTH_DEFAULT);
	fit_free(t);
}

static void cell(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputc(',', f);
	else
		fprintf(f, ",%.10g", v);
}

static void csv(FILE *f, const struct diff_anatomy *d, const struct render_diff_opts *o)
{
	fputs("name,part,status,n_a,mean_a,share_a,sum_a,n_b,mean_b,share_b,sum_b,dmean_pct,t,df,"
	      "p_value,mark,unit\n",
	      f);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_part_row *r = &d->rows[i];

		csv_quote(f, r->name);
		fprintf(f, ",%s,%s,%llu", stats_part_name(r->part), diff_status_name(r->status),
			(unsigned long long)r->a.n);
		cell(f, r->a.mean / o->unit_ns);
		cell(f, r->a.n ? r->a.share : NAN);
		cell(f, (double)r->a.sum / o->unit_ns);
		fprintf(f, ",%llu", (unsigned long long)r->b.n);
		cell(f, r->b.mean / o->unit_ns);
		cell(f, r->b.n ? r->b.share : NAN);
		cell(f, (double)r->b.sum / o->unit_ns);
		cell(f, r->dmean_pct);
		cell(f, r->t);
		cell(f, r->df);
		cell(f, r->p);
		fprintf(f, ",%s,%s\n", diff_mark(r->p), o->unit);
	}
}

static void json_side(struct jsonw *w, const char *key, const struct diff_part_side *s,
		      const struct render_diff_opts *o)
{
	jsonw_obj_open_flat(w, key);
	jsonw_u64(w, "n", s->n);
	jsonw_f64(w, "mean", s->mean / o->unit_ns);
	jsonw_f64(w, "share", s->n ? s->share : NAN);
	jsonw_u64(w, "sum_ns", s->sum);
	jsonw_obj_close(w);
}

static void json(FILE *f, const struct diff_anatomy *d, const struct render_diff_opts *o)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "schema", "kvm-exitstat-diff-anatomy/1");
	jsonw_str(&w, "a", o->name_a);
	jsonw_str(&w, "b", o->name_b);
	jsonw_str(&w, "unit", o->unit);
	jsonw_arr_open(&w, "rows");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_part_row *r = &d->rows[i];

		jsonw_obj_open(&w, NULL);
		jsonw_str(&w, "name", r->name);
		jsonw_str(&w, "part", stats_part_name(r->part));
		jsonw_str(&w, "status", diff_status_name(r->status));
		json_side(&w, "a", &r->a, o);
		json_side(&w, "b", &r->b, o);
		jsonw_f64(&w, "dmean_pct", r->dmean_pct);
		jsonw_f64(&w, "t", r->t);
		jsonw_f64(&w, "df", r->df);
		jsonw_f64(&w, "p_value", r->p);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

static void ppc(FILE *f, const struct diff_anatomy *d, const struct render_diff_opts *o)
{
	char ma[32], mb[32], dm[32], p[32], e[256];

	fprintf(f, "# kvm-exitstat diff --anatomy: A %s, B %s, means in %s\n", o->name_a, o->name_b,
		o->unit);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_part_row *r = &d->rows[i];

		if (!shown(r))
			continue;
		diff_fmt_time(ma, sizeof(ma), r->a.mean, 4, o);
		diff_fmt_time(mb, sizeof(mb), r->b.mean, 4, o);
		diff_fmt_change(dm, sizeof(dm), r->dmean_pct);
		diff_fmt_p(p, sizeof(p), r->p);
		fprintf(f, "%s %s mean %s -> %s (%s) share %.2f%% -> %.2f%% p %s%s\n",
			term_safe(r->name, e, sizeof(e)), stats_part_name(r->part), ma, mb, dm,
			r->a.share, r->b.share, p, diff_mark(r->p));
	}
}

int render_diff_anatomy(FILE *f, const struct diff_anatomy *d, enum render_format fmt,
			const struct render_diff_opts *o)
{
	switch (fmt) {
	case RENDER_CSV:
		csv(f, d, o);
		break;
	case RENDER_JSON:
		json(f, d, o);
		break;
	case RENDER_PPC:
		ppc(f, d, o);
		break;
	default:
		table(f, d, o);
		break;
	}
	return ferror(f) ? -1 : 0;
}

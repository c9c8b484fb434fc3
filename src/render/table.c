// SPDX-License-Identifier: GPL-2.0
/* An aligned table for people: widest name sets the first column. */
#include <math.h>
#include <string.h>
#include "render-local.h"
#include "term.h"

/* A row's name as the terminal gets it (names come from the input: escapes escaped). */
static const char *shown_name(const struct stats_row *r, char *buf, size_t len)
{
	char raw[256];
	const char *s = render_row_name(r, raw, sizeof(raw));

	if (term_safe(s, buf, len) != buf)
		snprintf(buf, len, "%s", s);
	return buf;
}

static int name_width(const struct stats_view *v)
{
	char buf[512];
	int w = 6;

	for (size_t i = 0; i < v->nrows; i++) {
		int n = (int)strlen(shown_name(&v->rows[i], buf, sizeof(buf)));
		w = n > w ? n : w;
	}
	return w;
}

static void num(FILE *f, double x, int prec)
{
	if (isnan(x))
		fprintf(f, " %10s", "-");
	else
		fprintf(f, " %10.*f", prec, x);
}

/* The width a block needs in the layout with every time in full (2 decimals). */
static size_t full_width(const struct render_opts *o, const struct stats_view *v)
{
	return (size_t)name_width(v) + 87 + (o->quantiles ? 44 : 0);
}

static void block_full(FILE *f, const struct render_opts *o, const struct stats_view *v)
{
	int w = name_width(v);

	fprintf(f, "%-*s %10s %10s %10s %10s %12s %10s %10s %7s", w, "REASON", "COUNT", "TIMED",
		"MIN", "MAX", "SUM", "AVG", "STDDEV", "%TIME");
	if (o->quantiles)
		fprintf(f, " %10s %10s %10s %10s", "P50", "P90", "P99", "P99.9");
	fputc('\n', f);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_row *r = &v->rows[i];
		char buf[512];
		fprintf(f, "%-*s %10llu %10llu", w, shown_name(r, buf, sizeof(buf)),
			(unsigned long long)r->count, (unsigned long long)r->timed);
		num(f, r->min, 2);
		num(f, r->max, 2);
		fprintf(f, " %12.2f", r->sum);
		num(f, r->avg, 2);
		num(f, r->stddev, 2);
		fprintf(f, " %7.2f", r->pct);
		if (o->quantiles) {
			num(f, r->p50, 2);
			num(f, r->p90, 2);
			num(f, r->p99, 2);
			num(f, r->p999, 2);
		}
		fputc('\n', f);
	}
	fprintf(f, "%-*s %10llu %10llu %10s %10s %12.2f", w, "Total", (unsigned long long)v->csum,
		(unsigned long long)v->ctimed, "", "", v->sumsum);
	num(f, v->sumavg, 2);
	fputc('\n', f);
}

enum { K_NAME, K_COUNT, K_TIMED, K_MIN, K_MAX, K_SUM, K_AVG, K_STDDEV, K_PCT, K_P50, K_P90,
       K_P99, K_P999, K_N };

/* A time of the view (in its unit) as a narrow cell: ms and s when larger. */
static void scaled(char **row, size_t c, double x, const struct stats_view *v)
{
	char b[32];
	double unit_ns = !strcmp(v->unit, "ns") ? 1 : 1000;

	render_fmt_scaled(b, sizeof(b), isnan(x) ? x : x * unit_ns, unit_ns);
	fit_set(row, c, b);
}

static void count_cell(char **row, size_t c, uint64_t n)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)n);
	fit_set(row, c, b);
}

static void row_cells(char **row, const struct stats_row *r, const struct stats_view *v,
		      bool quantiles)
{
	char buf[512];

	fit_set(row, K_NAME, shown_name(r, buf, sizeof(buf)));
	count_cell(row, K_COUNT, r->count);
	count_cell(row, K_TIMED, r->timed);
	scaled(row, K_MIN, r->min, v);
	scaled(row, K_MAX, r->max, v);
	scaled(row, K_SUM, r->sum, v);
	scaled(row, K_AVG, r->avg, v);
	scaled(row, K_STDDEV, r->stddev, v);
	snprintf(buf, sizeof(buf), "%.2f", r->pct);
	fit_set(row, K_PCT, buf);
	if (!quantiles)
		return;
	scaled(row, K_P50, r->p50, v);
	scaled(row, K_P90, r->p90, v);
	scaled(row, K_P99, r->p99, v);
	scaled(row, K_P999, r->p999, v);
}

/* The narrow layout: times scaled (ms, s), names cut apart, columns spill to a second panel. */
static void block_fit(FILE *f, const struct render_opts *o, const struct stats_view *v,
		      size_t width)
{
	static const char *const heads[K_N] = {"REASON", "COUNT", "TIMED", "MIN", "MAX",
					       "SUM",	 "AVG",	  "STDDEV", "%TIME", "P50",
					       "P90",	 "P99",	  "P99.9"};
	struct fit_table *t = fit_new(o->quantiles ? K_N : K_P50);
	char **row;

	for (size_t c = 0; c < t->ncols; c++)
		fit_col(t, c, heads[c], c != K_NAME);
	for (size_t i = 0; i < v->nrows; i++)
		row_cells(fit_row(t), &v->rows[i], v, o->quantiles);
	row = fit_row(t);
	fit_set(row, K_NAME, "Total");
	count_cell(row, K_COUNT, v->csum);
	count_cell(row, K_TIMED, v->ctimed);
	scaled(row, K_SUM, v->sumsum, v);
	scaled(row, K_AVG, v->sumavg, v);
	fit_print(f, t, width);
	fit_free(t);
}

static void block(FILE *f, const struct render_opts *o, const struct render_block *b,
		  size_t width)
{
	if (b->label) {
		char buf[512];

		fputc('\n', f);
		fit_wrap(f, "", term_safe(b->label, buf, sizeof(buf)), width);
	}
	if (full_width(o, b->v) <= width)
		block_full(f, o, b->v);
	else
		block_fit(f, o, b->v, width);
}

/* A header line, wrapped to the width; names from the input escaped. */
static void head_line(FILE *f, const char *prefix, const char *text, size_t width)
{
	char buf[2048];

	fit_wrap(f, prefix, term_safe(text, buf, sizeof(buf)), width);
}

void render_table_head(FILE *f, const struct render_meta *m, const struct stats_view *whole,
		       const char *unit, size_t width)
{
	char line[4096];

	snprintf(line, sizeof(line), "%s (%s)%s%s; exits from %s; times in %s", m->inputs,
		 m->kind, m->isa ? "; isa " : "", m->isa ? m->isa : "", m->source, unit);
	head_line(f, "Input: ", line, width);
	if (m->buckets)
		head_line(f, "Timing buckets: ", m->buckets, width);
	if (m->note)
		head_line(f, "Note: ", m->note, width);
	if (m->lost_known)
		fprintf(f, "Lost events: %llu\n", (unsigned long long)m->lost);
	else if (m->lost)
		fprintf(f, "Lost events: at least %llu (drop counts not recorded)\n",
			(unsigned long long)m->lost);
	else
		fprintf(f, "Lost events: unknown (drop counts not recorded)\n");
	if (whole) {
		char t[96];

		render_times(t, sizeof(t), whole, m);
		head_line(f, "Time: ", t, width);
	}
	for (size_t i = 0; i < m->nwarnings; i++)
		head_line(f, "Warning: ", m->warnings[i], width);
}

void render_table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct render_block *b, size_t n)
{
	size_t width = o->width ? o->width : RENDER_WIDTH_DEFAULT;

	render_table_head(f, m, n ? b[n - 1].v : NULL, n ? b[0].v->unit : "us", width);
	for (size_t i = 0; i < n; i++)
		block(f, o, &b[i], width);
}

// SPDX-License-Identifier: GPL-2.0
/* An aligned table for people: widest name sets the first column. */
#include <math.h>
#include <string.h>
#include "render.h"

static int name_width(const struct stats_view *v)
{
	char buf[256];
	int w = 6;

	for (size_t i = 0; i < v->nrows; i++) {
		int n = (int)strlen(render_row_name(&v->rows[i], buf, sizeof(buf)));
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

static void block(FILE *f, const struct render_opts *o, const struct render_block *b)
{
	const struct stats_view *v = b->v;
	int w = name_width(v);

	if (b->label)
		fprintf(f, "\n%s\n", b->label);
	fprintf(f, "%-*s %10s %10s %10s %10s %12s %10s %10s %7s", w, "REASON", "COUNT", "UNTIMED",
		"MIN", "MAX", "SUM", "AVG", "STDDEV", "%TIME");
	if (o->quantiles)
		fprintf(f, " %10s %10s %10s %10s", "P50", "P90", "P99", "P99.9");
	fputc('\n', f);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_row *r = &v->rows[i];
		char buf[256];
		fprintf(f, "%-*s %10llu %10llu", w, render_row_name(r, buf, sizeof(buf)),
			(unsigned long long)r->count, (unsigned long long)r->untimed);
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
		(unsigned long long)v->untimed, "", "", v->sumsum);
	num(f, v->sumavg, 2);
	fputc('\n', f);
}

void render_table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct render_block *b, size_t n)
{
	fprintf(f, "Input: %s (%s)%s%s; exits from %s; times in %s\n", m->inputs, m->kind,
		m->isa ? "; isa " : "", m->isa ? m->isa : "", m->source, n ? b[0].v->unit : "us");
	if (m->buckets)
		fprintf(f, "Timing buckets: %s\n", m->buckets);
	if (m->note)
		fprintf(f, "Note: %s\n", m->note);
	if (m->lost_known)
		fprintf(f, "Lost events: %llu\n", (unsigned long long)m->lost);
	else if (m->lost)
		fprintf(f, "Lost events: at least %llu (drop counts not recorded)\n",
			(unsigned long long)m->lost);
	else
		fprintf(f, "Lost events: unknown (drop counts not recorded)\n");
	for (size_t i = 0; i < n; i++)
		block(f, o, &b[i]);
}

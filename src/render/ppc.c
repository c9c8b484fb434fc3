// SPDX-License-Identifier: GPL-2.0
/*
 * The KVM-PPC exit-timing report, exactly as the 2008-2010 reports printed it:
 *   MMIO count 10000 min 45 max 1550 sum 2933679 avg 293.3679 stddev 294.569 % 2.50
 * then the run's csum, sumsum (with its runtime) and sumavg. Everything else
 * (what was read, losses, notes) goes on '#' lines, which readers skip.
 */
#include <math.h>
#include "render.h"

static void header(FILE *f, const struct render_meta *m, const char *unit)
{
	fprintf(f, "# kvm-exitstat report: %s (%s)", m->inputs, m->kind);
	if (m->isa)
		fprintf(f, ", isa %s", m->isa);
	fprintf(f, ", exits from %s", m->source);
	if (m->buckets)
		fprintf(f, " in timing buckets '%s'", m->buckets);
	fprintf(f, ", times in %s\n", unit);
	if (m->note)
		fprintf(f, "# note: %s\n", m->note);
	if (m->lost_known)
		fprintf(f, "# lost events: %llu\n", (unsigned long long)m->lost);
	else if (m->lost)
		fprintf(f, "# lost events: at least %llu (the input does not record drop counts)\n",
			(unsigned long long)m->lost);
	else
		fprintf(f, "# lost events: unknown (the input does not record drop counts)\n");
	if (m->untimed)
		fprintf(f,
			"# %llu exits at the trace edges (or after a loss) counted but not timed\n",
			(unsigned long long)m->untimed);
	if (m->sub_folded)
		fprintf(f, "# %llu exits past the sub-key cap counted in @other rows\n",
			(unsigned long long)m->sub_folded);
	if (m->backwards)
		fprintf(f, "# %llu events skipped: their timestamp went back on their thread\n",
			(unsigned long long)m->backwards);
}

/* A PPC row's name is one word (readers split on blanks): "Program interruption" ->
 * "Program_interruption". */
static void name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ' ' || *s == '\t' ? '_' : *s, f);
}

static void row(FILE *f, const struct stats_row *r)
{
	char buf[256];

	name(f, render_row_name(r, buf, sizeof(buf)));
	fprintf(f, " count %llu min %.0f max %.0f sum %.0f avg %.4f", (unsigned long long)r->count,
		r->min, r->max, r->sum, r->avg);
	/* A summary-only input may not know the spread: say so, never print 0. */
	if (isnan(r->stddev))
		fprintf(f, " stddev - %% %.2f\n", r->pct);
	else
		fprintf(f, " stddev %.3f %% %.2f\n", r->stddev, r->pct);
}

static void block(FILE *f, const struct render_block *b)
{
	const struct stats_view *v = b->v;
	char rt[32];

	if (b->label)
		fprintf(f, "# %s\n", b->label);
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].count)
			row(f, &v->rows[i]);
	render_runtime(rt, sizeof(rt), v->runtime_s);
	fprintf(f, "csum %llu\n", (unsigned long long)v->csum);
	fprintf(f, "sumsum %.0f => ~%s runtime\n", v->sumsum, rt);
	fprintf(f, "sumavg %.4f\n", v->sumavg);
}

void render_ppc(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n)
{
	header(f, m, n ? b[0].v->unit : "us");
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', f);
		block(f, &b[i]);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The KVM-PPC exit-timing report, exactly as the 2008-2010 reports printed it:
 *   MMIO count 10000 min 45 max 1550 sum 2933679 avg 293.3679 stddev 294.569 % 2.50
 * then the run's csum, sumsum (as vCPU time, with the trace's wall span) and
 * sumavg. Everything else
 * (what was read, losses, notes) goes on '#' lines, which readers skip.
 * count is the timed exits, as then, so that avg = sum / count holds; the
 * exits a row leaves out (no entry after them) are said on a '#' line of
 * their own under it.
 */
#include <math.h>
#include "render-local.h"
#include "term.h"

static void header(FILE *f, const struct render_meta *m, const char *unit)
{
	fputs("# kvm-exitstat report: ", f);
	term_fputs(m->inputs, f);
	fprintf(f, " (%s)", m->kind);
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
		fprintf(f, "# %llu exits %s counted but not timed\n", (unsigned long long)m->untimed,
			m->counts_only ? "of a tool that times none" : "at the trace edges (or after a loss)");
	if (m->sub_folded)
		fprintf(f, "# %llu exits past the sub-key cap counted in @other rows\n",
			(unsigned long long)m->sub_folded);
	for (size_t i = 0; i < m->nwarnings; i++) {
		fputs("# warning: ", f);
		term_fputs(m->warnings[i], f);
		fputc('\n', f);
	}
}

void render_ppc_word(FILE *f, const char *s)
{
	char word[512], buf[2048];
	size_t n = 0;

	for (; *s && n + 1 < sizeof(word); s++)
		word[n++] = *s == ' ' || *s == '\t' ? '_' : *s;
	word[n] = '\0';
	fputs(term_safe(word, buf, sizeof(buf)), f);
}

static void row(FILE *f, const struct stats_row *r)
{
	char buf[256];

	render_ppc_word(f, render_row_name(r, buf, sizeof(buf)));
	fprintf(f, " count %llu min %.0f max %.0f sum %.0f avg %.4f", (unsigned long long)r->timed,
		r->min, r->max, r->sum, r->avg);
	/* A summary-only input may not know the spread: say so, never print 0. */
	if (isnan(r->stddev))
		fprintf(f, " stddev - %% %.2f\n", r->pct);
	else
		fprintf(f, " stddev %.3f %% %.2f\n", r->stddev, r->pct);
}

static void block(FILE *f, const struct render_block *b, const struct render_meta *m)
{
	const struct stats_view *v = b->v;
	char rt[96];

	if (b->label) {
		fputs("# ", f);
		term_fputs(b->label, f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_row *r = &v->rows[i];
		char buf[256], shown[1024];

		if (r->timed) /* a row of count 0 would divide by it */
			row(f, r);
		if (r->untimed && m->counts_only)
			fprintf(f, "# %s: %llu exit%s counted, not timed (the input gives no time)%s\n",
				term_safe(render_row_name(r, buf, sizeof(buf)), shown, sizeof(shown)),
				(unsigned long long)r->untimed, r->untimed == 1 ? "" : "s",
				r->timed ? "" : ", so no row");
		else if (r->untimed)
			fprintf(f, "# %s: %llu exit%s not timed (no entry after %s: trace edge, VMM exit "
				   "or loss)%s\n",
				term_safe(render_row_name(r, buf, sizeof(buf)), shown, sizeof(shown)),
				(unsigned long long)r->untimed, r->untimed == 1 ? "" : "s",
				r->untimed == 1 ? "it" : "them", r->timed ? "" : ", so no row");
	}
	render_times(rt, sizeof(rt), v, m);
	fprintf(f, "csum %llu\n", (unsigned long long)v->ctimed);
	fprintf(f, "sumsum %.0f => %s\n", v->sumsum, rt);
	fprintf(f, "sumavg %.4f\n", v->sumavg);
}

void render_ppc(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n)
{
	header(f, m, n ? b[0].v->unit : "us");
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', f);
		block(f, &b[i], m);
	}
}

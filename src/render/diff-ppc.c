// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --format ppc`: the 2008-2010 exit-timing report lines with both runs
 * in each field ("count A -> B"), as PV vs non-PV comparisons were mailed.
 */
#include <math.h>
#include <stdio.h>
#include "term.h"
#include "diff.h"
#include "render-local.h"

static void pair_time(FILE *f, const char *key, double a, double b, bool has_a, bool has_b,
		      int prec, const struct render_diff_opts *o)
{
	char sa[32], sb[32];

	diff_fmt_time(sa, sizeof(sa), has_a ? a : NAN, prec, o);
	diff_fmt_time(sb, sizeof(sb), has_b ? b : NAN, prec, o);
	fprintf(f, " %s %s -> %s", key, sa, sb);
}

static void row(FILE *f, const struct diff *d, const struct diff_row *r,
		const struct render_diff_opts *o)
{
	bool ha = r->status != DIFF_NEW, hb = r->status != DIFF_GONE;
	int tp = o->unit_ns > 1 ? 1 : 0; /* 0.1 µs: modern exits take a few µs */
	char c[32], p[32], name[512];

	if (d->per_vcpu)
		fprintf(f, "vcpu%d ", r->vcpu);
	/* names come from the inputs: what a terminal would act on is shown escaped */
	fprintf(f, "%s count %llu -> %llu", term_safe(r->name, name, sizeof(name)),
		(unsigned long long)r->a.count, (unsigned long long)r->b.count);
	if (r->status == DIFF_BOTH) {
		diff_fmt_change(c, sizeof(c), r->dcount_pct);
		fprintf(f, " (%s)", c);
	}
	pair_time(f, "max", (double)r->a.max, (double)r->b.max, ha, hb, tp, o);
	pair_time(f, "sum", (double)r->a.sum, (double)r->b.sum, true, true, tp, o);
	pair_time(f, "avg", r->a.avg, r->b.avg, ha, hb, 4, o);
	if (r->status == DIFF_BOTH) {
		diff_fmt_change(c, sizeof(c), r->davg_pct);
		fprintf(f, " (%s)", c);
	}
	pair_time(f, "stddev", r->a.stddev, r->b.stddev, ha, hb, 3, o);
	fprintf(f, " %% %.2f -> %.2f", r->a.pct, r->b.pct);
	if (r->status == DIFF_BOTH) {
		diff_fmt_p(p, sizeof(p), r->p);
		fprintf(f, " p %s%s%s\n", p, *diff_mark(r->p) ? " " : "", diff_mark(r->p));
	} else {
		fprintf(f, " %s\n", diff_status_name(r->status));
	}
}

int render_diff_ppc(FILE *f, const struct diff *d, const struct render_diff_opts *o)
{
	const struct diff_total *t = &d->total;
	char c[32], sa[32], sb[32], ra[32], rb[32], sp[96], na[1024], nb[1024];

	fprintf(f, "# A = %s\n# B = %s\n# times in %s\n", term_safe(o->name_a, na, sizeof(na)),
		term_safe(o->name_b, nb, sizeof(nb)), o->unit);
	for (size_t i = 0; i < d->nrows; i++)
		row(f, d, &d->rows[i], o);
	diff_fmt_change(c, sizeof(c), t->count_change_pct);
	fprintf(f, "csum %llu -> %llu (%s)\n", (unsigned long long)t->count_a,
		(unsigned long long)t->count_b, c);
	diff_fmt_change(c, sizeof(c), t->change_pct);
	diff_fmt_time(sa, sizeof(sa), (double)t->sum_a, 0, o);
	diff_fmt_time(sb, sizeof(sb), (double)t->sum_b, 0, o);
	diff_fmt_runtime(ra, sizeof(ra), (double)t->sum_a);
	diff_fmt_runtime(rb, sizeof(rb), (double)t->sum_b);
	diff_fmt_spans(sp, sizeof(sp), o);
	fprintf(f, "sumsum %s -> %s (%s) => ~%s -> ~%s of vCPU time%s\n", sa, sb, c, ra, rb, sp);
	diff_fmt_time(sa, sizeof(sa), t->avg_a, 4, o);
	diff_fmt_time(sb, sizeof(sb), t->avg_b, 4, o);
	fprintf(f, "sumavg %s -> %s\n", sa, sb);
	return ferror(f) ? -1 : 0;
}

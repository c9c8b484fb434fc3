// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --format json`. The schema is documented in kvm-exitstat-diff(1) and
 * is stable: fields are only ever added. Unknown numbers are null.
 */
#include <math.h>
#include <stdio.h>
#include "common.h"
#include "diff.h"
#include "diff-fmt.h"

static void jnum(FILE *f, const char *key, double v, const char *sep)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null%s", key, sep);
	else
		fprintf(f, "\"%s\": %.10g%s", key, v, sep);
}

static void jside(FILE *f, const struct diff_side *s, bool present, char ab, double unit)
{
	char k[16];

	fprintf(f, "\"count_%c\": %llu, \"timed_%c\": %llu, ", ab, (unsigned long long)s->count, ab,
		(unsigned long long)s->timed);
	snprintf(k, sizeof(k), "avg_%c", ab);
	jnum(f, k, present ? s->avg / unit : NAN, ", ");
	snprintf(k, sizeof(k), "stddev_%c", ab);
	jnum(f, k, present ? s->stddev / unit : NAN, ", ");
	snprintf(k, sizeof(k), "sum_%c", ab);
	jnum(f, k, (double)s->sum / unit, ", ");
	snprintf(k, sizeof(k), "pct_%c", ab);
	jnum(f, k, s->pct, ", ");
	snprintf(k, sizeof(k), "max_%c", ab);
	jnum(f, k, present ? (double)s->max / unit : NAN, ", ");
}

static void jrow(FILE *f, const struct diff_row *r, double unit)
{
	fputs("    {\"name\": ", f);
	json_quote(f, r->name);
	fprintf(f, ", \"vcpu\": %d, \"status\": \"%s\", ", r->vcpu, diff_status_name(r->status));
	jside(f, &r->a, r->status != DIFF_NEW, 'a', unit);
	jside(f, &r->b, r->status != DIFF_GONE, 'b', unit);
	jnum(f, "dcount_pct", r->dcount_pct, ", ");
	jnum(f, "davg_pct", r->davg_pct, ", ");
	jnum(f, "t", r->t, ", ");
	jnum(f, "df", r->df, ", ");
	jnum(f, "p_value", r->p, ", ");
	fprintf(f, "\"mark\": \"%s\", ", diff_mark(r->p));
	jnum(f, "delta_sum", r->delta_sum / unit, ", ");
	jnum(f, "share_pct", r->share_pct, "}");
}

static void jtotal(FILE *f, const struct diff_total *t, double unit)
{
	fprintf(f, "  \"total\": {\"count_a\": %llu, \"count_b\": %llu, ",
		(unsigned long long)t->count_a, (unsigned long long)t->count_b);
	jnum(f, "sum_a", (double)t->sum_a / unit, ", ");
	jnum(f, "sum_b", (double)t->sum_b / unit, ", ");
	jnum(f, "avg_a", t->avg_a / unit, ", ");
	jnum(f, "avg_b", t->avg_b / unit, ", ");
	jnum(f, "count_change_pct", t->count_change_pct, ", ");
	jnum(f, "change_pct", t->change_pct, "},\n");
}

static void jtop(FILE *f, const struct diff *d, double unit)
{
	fputs("  \"top\": [", f);
	for (size_t k = 0; k < d->ntop; k++) {
		const struct diff_row *r = &d->rows[d->top[k]];
		fputs(k ? ", {\"name\": " : "{\"name\": ", f);
		json_quote(f, r->name);
		fprintf(f, ", \"vcpu\": %d, ", r->vcpu);
		jnum(f, "delta_sum", r->delta_sum / unit, ", ");
		jnum(f, "share_pct", r->share_pct, "}");
	}
	fputs("]\n", f);
}

int diff_render_json(FILE *f, const struct diff *d, const struct diff_render_opts *o)
{
	fputs("{\n  \"a\": ", f);
	json_quote(f, o->name_a);
	fputs(", \"b\": ", f);
	json_quote(f, o->name_b);
	fprintf(f, ", \"unit\": \"%s\", \"per_vcpu\": %s,\n  \"rows\": [\n", o->unit,
		d->per_vcpu ? "true" : "false");
	for (size_t i = 0; i < d->nrows; i++) {
		jrow(f, &d->rows[i], o->unit_ns);
		fputs(i + 1 < d->nrows ? ",\n" : "\n", f);
	}
	fputs("  ],\n", f);
	jtotal(f, &d->total, o->unit_ns);
	jtop(f, d, o->unit_ns);
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}

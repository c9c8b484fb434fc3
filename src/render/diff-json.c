// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --format json`, through the one JSON writer. The schema is
 * documented in kvm-exitstat-diff(1) and is stable: fields are only ever
 * added. Unknown numbers are null. Rows, the total and the top list are one
 * line each, as before the writer printed them.
 */
#include <math.h>
#include <stdio.h>
#include "diff.h"
#include "jsonw.h"
#include "render-local.h"

/* count_a, timed_a, avg_a, ... of one side; ab is 'a' or 'b'. */
static void side(struct jsonw *w, const struct diff_side *s, bool present, char ab, double unit)
{
	char k[16];

#define KEY(name) (snprintf(k, sizeof(k), name "_%c", ab), k)
	jsonw_u64(w, KEY("count"), s->count);
	jsonw_u64(w, KEY("timed"), s->timed);
	jsonw_f64(w, KEY("avg"), present ? s->avg / unit : NAN);
	jsonw_f64(w, KEY("stddev"), present ? s->stddev / unit : NAN);
	jsonw_f64(w, KEY("sum"), (double)s->sum / unit);
	jsonw_f64(w, KEY("pct"), s->pct);
	jsonw_f64(w, KEY("max"), present ? (double)s->max / unit : NAN);
#undef KEY
}

/* The exact nanoseconds of a side, after the fields of its unit. */
static void side_ns(struct jsonw *w, const struct diff_side *s, bool present, char ab)
{
	char k[16];

	snprintf(k, sizeof(k), "sum_%c_ns", ab);
	jsonw_u64(w, k, s->sum);
	snprintf(k, sizeof(k), "max_%c_ns", ab);
	if (present && s->timed)
		jsonw_u64(w, k, s->max);
	else
		jsonw_null(w, k);
}

static void row(struct jsonw *w, const struct diff_row *r, double unit)
{
	jsonw_obj_open_flat(w, NULL);
	jsonw_str(w, "name", r->name);
	jsonw_i64(w, "vcpu", r->vcpu);
	jsonw_str(w, "status", diff_status_name(r->status));
	side(w, &r->a, r->status != DIFF_NEW, 'a', unit);
	side(w, &r->b, r->status != DIFF_GONE, 'b', unit);
	jsonw_f64(w, "dcount_pct", r->dcount_pct);
	jsonw_f64(w, "davg_pct", r->davg_pct);
	jsonw_f64(w, "t", r->t);
	jsonw_f64(w, "df", r->df);
	jsonw_f64(w, "p_value", r->p);
	jsonw_str(w, "mark", diff_mark(r->p));
	jsonw_f64(w, "delta_sum", r->delta_sum / unit);
	jsonw_f64(w, "share_pct", r->share_pct);
	side_ns(w, &r->a, r->status != DIFF_NEW, 'a');
	side_ns(w, &r->b, r->status != DIFF_GONE, 'b');
	jsonw_obj_close(w);
}

static void total(struct jsonw *w, const struct diff_total *t, double unit)
{
	jsonw_obj_open_flat(w, "total");
	jsonw_u64(w, "count_a", t->count_a);
	jsonw_u64(w, "count_b", t->count_b);
	jsonw_f64(w, "sum_a", (double)t->sum_a / unit);
	jsonw_f64(w, "sum_b", (double)t->sum_b / unit);
	jsonw_f64(w, "avg_a", t->avg_a / unit);
	jsonw_f64(w, "avg_b", t->avg_b / unit);
	jsonw_f64(w, "count_change_pct", t->count_change_pct);
	jsonw_f64(w, "change_pct", t->change_pct);
	jsonw_u64(w, "sum_a_ns", t->sum_a);
	jsonw_u64(w, "sum_b_ns", t->sum_b);
	jsonw_obj_close(w);
}

static void top(struct jsonw *w, const struct diff *d, double unit)
{
	jsonw_arr_open_flat(w, "top");
	for (size_t k = 0; k < d->ntop; k++) {
		const struct diff_row *r = &d->rows[d->top[k]];

		jsonw_obj_open(w, NULL);
		jsonw_str(w, "name", r->name);
		jsonw_i64(w, "vcpu", r->vcpu);
		jsonw_f64(w, "delta_sum", r->delta_sum / unit);
		jsonw_f64(w, "share_pct", r->share_pct);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

int render_diff_json(FILE *f, const struct diff *d, const struct render_diff_opts *o)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "a", o->name_a);
	jsonw_str(&w, "b", o->name_b);
	jsonw_str(&w, "unit", o->unit);
	jsonw_bool(&w, "per_vcpu", d->per_vcpu);
	jsonw_arr_open(&w, "rows");
	for (size_t i = 0; i < d->nrows; i++)
		row(&w, &d->rows[i], o->unit_ns);
	jsonw_arr_close(&w);
	total(&w, &d->total, o->unit_ns);
	top(&w, d, o->unit_ns);
	jsonw_obj_close(&w);
	jsonw_end(&w);
	return ferror(f) ? -1 : 0;
}

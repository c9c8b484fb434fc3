// SPDX-License-Identifier: GPL-2.0
/*
 * JSON report, schema "kvm-exitstat-report/1" (documented in
 * kvm-exitstat-report(1)). Field names are a promise: add, never rename.
 */
#include "jsonw.h"
#include "render.h"

static void row(struct jsonw *w, const struct stats_row *r)
{
	char s[32];

	jsonw_obj_open(w, NULL);
	jsonw_str(w, "name", r->key.name);
	jsonw_str(w, "sub", render_row_sub(r, s, sizeof(s)));
	jsonw_u64(w, "count", r->count);
	jsonw_u64(w, "untimed", r->untimed);
	jsonw_num(w, "min", r->min);
	jsonw_num(w, "max", r->max);
	jsonw_num(w, "sum", r->sum);
	jsonw_num(w, "avg", r->avg);
	jsonw_num(w, "stddev", r->stddev);
	jsonw_num(w, "pct", r->pct);
	jsonw_num(w, "p50", r->p50);
	jsonw_num(w, "p90", r->p90);
	jsonw_num(w, "p99", r->p99);
	jsonw_num(w, "p999", r->p999);
	jsonw_obj_close(w);
}

static void block(struct jsonw *w, const struct render_block *b)
{
	const struct stats_view *v = b->v;

	jsonw_obj_open(w, NULL);
	jsonw_str(w, "label", b->label);
	if (b->tid >= 0)
		jsonw_i64(w, "tid", b->tid);
	else
		jsonw_null(w, "tid");
	if (b->vcpu >= 0)
		jsonw_i64(w, "vcpu", b->vcpu);
	else
		jsonw_null(w, "vcpu");
	jsonw_arr_open(w, "rows");
	for (size_t i = 0; i < v->nrows; i++)
		row(w, &v->rows[i]);
	jsonw_arr_close(w);
	jsonw_obj_open(w, "total");
	jsonw_u64(w, "count", v->csum);
	jsonw_u64(w, "untimed", v->untimed);
	jsonw_num(w, "sum", v->sumsum);
	jsonw_num(w, "avg", v->sumavg);
	jsonw_num(w, "runtime_s", v->runtime_s);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

void render_json(FILE *f, const struct render_opts *o, const struct render_meta *m,
		 const struct render_block *b, size_t n)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "schema", "kvm-exitstat-report/1");
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "input_kind", m->kind);
	jsonw_str(&w, "isa", m->isa);
	jsonw_str(&w, "source", m->source);
	jsonw_str(&w, "note", m->note);
	jsonw_str(&w, "buckets", m->buckets);
	jsonw_str(&w, "unit", n ? b[0].v->unit : "us");
	jsonw_u64(&w, "events", m->events);
	if (m->lost_known)
		jsonw_u64(&w, "lost", m->lost);
	else
		jsonw_null(&w, "lost");
	jsonw_u64(&w, "untimed", m->untimed);
	jsonw_u64(&w, "ts_backwards", m->backwards);
	jsonw_u64(&w, "sub_folded", m->sub_folded);
	jsonw_arr_open(&w, "tables");
	for (size_t i = 0; i < n; i++)
		block(&w, &b[i]);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
	(void)o;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * JSON report, schema "kvm-exitstat-report/2" (documented in
 * kvm-exitstat-report(1)). Field names are a promise: add, never rename.
 * /2 because a field's meaning changed: count is every exit (it was the
 * timed ones in /1, which the reader still takes), timed is new.
 */
#include <string.h>
#include "jsonw.h"
#include "render-local.h"

static void bucket(uint64_t lo, uint64_t hi, uint64_t n, void *arg)
{
	struct jsonw *w = arg;

	/* One line per bucket: [lo, hi, n]. */
	jsonw_arr_open_flat(w, NULL);
	jsonw_u64(w, NULL, lo);
	jsonw_u64(w, NULL, hi);
	jsonw_u64(w, NULL, n);
	jsonw_arr_close(w);
}

/*
 * What a merge needs: integer ns (the mean is sum_ns / count), the sum of
 * squared deviations m2_ns2 (exact moments: the same samples give the same
 * bits in any order, so it is printed whole), and every histogram bucket
 * [lo_ns, hi_ns, count] (report -i a.json -i b.json; input/reportjson.c).
 */
static void exact(struct jsonw *w, const struct stats_acc *a)
{
	jsonw_u64(w, "min_ns", a->count ? a->min : 0);
	jsonw_u64(w, "max_ns", a->max);
	jsonw_u64(w, "sum_ns", a->sum);
	jsonw_f64(w, "m2_ns2", stats_acc_m2(a));
	if (!a->hist) {
		jsonw_null(w, "hist");
		return;
	}
	jsonw_arr_open(w, "hist");
	stats_acc_foreach_bucket(a, bucket, w);
	jsonw_arr_close(w);
}

static void row(struct jsonw *w, const struct stats_row *r)
{
	char s[32];

	jsonw_obj_open(w, NULL);
	jsonw_str(w, "name", r->key.name);
	jsonw_str(w, "sub", render_row_sub(r, s, sizeof(s)));
	jsonw_str(w, "sub_kind", render_row_sub_kind(r));
	jsonw_u64(w, "count", r->count);
	jsonw_u64(w, "timed", r->timed);
	jsonw_u64(w, "untimed", r->untimed);
	jsonw_f64(w, "min", r->min);
	jsonw_f64(w, "max", r->max);
	jsonw_f64(w, "sum", r->sum);
	jsonw_f64(w, "avg", r->avg);
	jsonw_f64(w, "stddev", r->stddev);
	jsonw_f64(w, "pct", r->pct);
	jsonw_f64(w, "p50", r->p50);
	jsonw_f64(w, "p90", r->p90);
	jsonw_f64(w, "p99", r->p99);
	jsonw_f64(w, "p999", r->p999);
	if (r->acc)
		exact(w, r->acc);
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
	if (b->pid > 0) {
		jsonw_i64(w, "pid", b->pid);
		if (b->vm)
			jsonw_str(w, "vm", b->vm);
		else
			jsonw_null(w, "vm");
	}
	jsonw_arr_open(w, "rows");
	for (size_t i = 0; i < v->nrows; i++)
		row(w, &v->rows[i]);
	jsonw_arr_close(w);
	jsonw_obj_open(w, "total");
	jsonw_u64(w, "count", v->csum);
	jsonw_u64(w, "timed", v->ctimed);
	jsonw_u64(w, "untimed", v->untimed);
	jsonw_f64(w, "sum", v->sumsum);
	jsonw_f64(w, "avg", v->sumavg);
	if (!strcmp(v->unit, "ticks")) { /* of unknown length: no time in s or ns */
		jsonw_null(w, "runtime_s");
		jsonw_null(w, "vcpu_time_s");
		jsonw_null(w, "sum_ns");
	} else {
		jsonw_f64(w, "runtime_s", v->runtime_s); /* vCPU time: kept under its first name */
		jsonw_f64(w, "vcpu_time_s", v->runtime_s);
		jsonw_u64(w, "sum_ns", v->sumsum_ns);
	}
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

void render_json(FILE *f, const struct render_opts *o, const struct render_meta *m,
		 const struct render_block *b, size_t n)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "schema", "kvm-exitstat-report/2");
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "input_kind", m->kind);
	jsonw_str(&w, "isa", m->isa);
	jsonw_arr_open(&w, "hosts");
	for (size_t i = 0; i < m->nhosts; i++)
		jsonw_str(&w, NULL, m->hosts[i]);
	jsonw_arr_close(&w);
	jsonw_str(&w, "source", m->source);
	jsonw_str(&w, "note", m->note);
	jsonw_str(&w, "buckets", m->buckets);
	jsonw_str(&w, "unit", n ? b[0].v->unit : "us");
	/* false: "ticks", integer timestamps of a clock nothing said the unit of */
	jsonw_bool(&w, "ts_unit_known", !m->ticks);
	jsonw_u64(&w, "events", m->events);
	if (m->lost_known)
		jsonw_u64(&w, "lost", m->lost);
	else
		jsonw_null(&w, "lost");
	jsonw_u64(&w, "untimed", m->untimed);
	jsonw_u64(&w, "ts_backwards", m->backwards);
	/* exits of no thread (common_pid 0 or -1), in no row: the warning says it too */
	jsonw_u64(&w, "exits_no_thread", m->threadless_exits);
	jsonw_u64(&w, "sub_folded", m->sub_folded);
	if (m->wall_known) {
		jsonw_f64(&w, "wall_s", (double)m->wall_ns / 1e9);
		jsonw_u64(&w, "wall_ns", m->wall_ns);
	} else {
		jsonw_null(&w, "wall_s");
		jsonw_null(&w, "wall_ns");
	}
	if (m->text_input) {
		/* lines naming a KVM tracepoint that could not be read (the warning says why) */
		jsonw_obj_open(&w, "not_understood");
		jsonw_u64(&w, "count", m->not_understood);
		if (m->not_understood)
			jsonw_u64(&w, "first_line", m->nu_first_line);
		else
			jsonw_null(&w, "first_line");
		jsonw_obj_close(&w);
	}
	jsonw_arr_open(&w, "warnings");
	for (size_t i = 0; i < m->nwarnings; i++)
		jsonw_str(&w, NULL, m->warnings[i]);
	jsonw_arr_close(&w);
	jsonw_arr_open(&w, "tables");
	for (size_t i = 0; i < n; i++)
		block(&w, &b[i]);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
	(void)o;
}

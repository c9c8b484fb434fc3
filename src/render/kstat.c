// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics, printed (views from stats/kstat-view.c): the table
 * of top --stats and report, their JSON, the snapshot file record --stats
 * writes (two readings; kvm-exitstat-record(1) has its schema) and the
 * comparison diff prints. Values are the kernel's raw ones, with the unit
 * one raw count is in (ns, B...); JSON gives the scale to the unit too.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "jsonw.h"
#include "render.h"
#include "render-local.h"

#define NAME_W 28

static void fmt_q(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
}

static void table_row(FILE *f, const struct kstat_row *r)
{
	char unit[32], name[96], rate[32], p50[32], p99[32];

	kstat_unit_label(r->d, unit, sizeof(unit));
	snprintf(name, sizeof(name), "%s%s%s%s", r->d->name, *unit ? " (" : "", unit,
		 *unit ? ")" : "");
	if (isnan(r->rate))
		snprintf(rate, sizeof(rate), "-");
	else
		snprintf(rate, sizeof(rate), "%.1f", r->rate);
	if (!kstat_is_hist(r->d)) {
		fprintf(f, "%-*s %14" PRIu64 " %12" PRIu64 " %12s %s\n", NAME_W, name, r->value,
			r->delta, rate, kstat_type_name(r->d->type));
		return;
	}
	fmt_q(p50, sizeof(p50), r->p50);
	fmt_q(p99, sizeof(p99), r->p99);
	fprintf(f, "%-*s %14" PRIu64 " %12" PRIu64 " %12s %s p50<=%s p99<=%s\n", NAME_W, name,
		r->value, r->samples, rate, kstat_type_name(r->d->type), p50, p99);
}

void render_kstat_table(FILE *f, const struct kstat_view *v, const char *title)
{
	if (title)
		fprintf(f, "%s\n", title);
	for (size_t i = 0; i < v->nb; i++) {
		const struct kstat_block *b = &v->b[i];

		fprintf(f, "%s%s%s%s\n", i || title ? "\n" : "", b->label,
			b->source ? ", from " : "", b->source ? b->source : "");
		fprintf(f, "%-*s %14s %12s %12s %s\n", NAME_W, "STATISTIC", "VALUE",
			v->dt > 0 ? "DELTA" : "-", "RATE/s", "TYPE");
		for (size_t j = 0; j < b->nrows; j++)
			table_row(f, &b->rows[j]);
	}
}

/* ------------------------------------------------------------------------ */
/* JSON */

static void json_desc(struct jsonw *w, const struct kstat_desc *d)
{
	char unit[32];

	jsonw_str(w, "name", d->name);
	jsonw_str(w, "type", kstat_type_name(d->type));
	jsonw_str(w, "unit", kstat_unit_name(d->unit));
	jsonw_str(w, "raw_unit", kstat_unit_label(d, unit, sizeof(unit)));
	jsonw_f64(w, "scale", kstat_scale(d));
}

/* A histogram's buckets: [lo, hi] raw (hi null: the last, open one), count. */
static void json_buckets(struct jsonw *w, const struct kstat_desc *d, const uint64_t *b)
{
	jsonw_arr_open(w, "buckets");
	for (uint32_t i = 0; i < d->size; i++) {
		uint64_t lo, hi;

		kstat_bucket_range(d, i, &lo, &hi);
		jsonw_obj_open_flat(w, NULL);
		jsonw_u64(w, "lo", lo);
		if (hi == UINT64_MAX)
			jsonw_null(w, "hi");
		else
			jsonw_u64(w, "hi", hi);
		jsonw_u64(w, "count", b[i]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

static void json_row(struct jsonw *w, const struct kstat_row *r)
{
	jsonw_obj_open(w, NULL);
	json_desc(w, r->d);
	jsonw_u64(w, "value", r->value);
	jsonw_u64(w, "delta", r->delta);
	jsonw_f64(w, "rate", r->rate);
	if (kstat_is_hist(r->d)) {
		jsonw_u64(w, "samples", r->samples);
		jsonw_f64(w, "p50", r->p50);
		jsonw_f64(w, "p99", r->p99);
		json_buckets(w, r->d, r->b);
	}
	jsonw_obj_close(w);
}

static void json_block(struct jsonw *w, const struct kstat_block *b)
{
	jsonw_obj_open(w, NULL);
	jsonw_str(w, "label", b->label);
	if (b->pid >= 0) {
		jsonw_i64(w, "pid", b->pid);
		jsonw_str(w, "id", b->id);
		jsonw_str(w, "vm", b->name);
		jsonw_str(w, "source", b->source);
		jsonw_bool(w, "created_within", b->born);
	}
	if (b->vcpu >= 0)
		jsonw_i64(w, "vcpu", b->vcpu);
	jsonw_arr_open(w, "stats");
	for (size_t j = 0; j < b->nrows; j++)
		json_row(w, &b->rows[j]);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static void json_view(struct jsonw *w, const char *key, const struct kstat_view *v,
		      const char *title)
{
	jsonw_obj_open(w, key);
	jsonw_str(w, "kind", "kvm-stats");
	jsonw_str(w, "title", title);
	jsonw_f64(w, "span_s", v->dt);
	jsonw_arr_open(w, "blocks");
	for (size_t i = 0; i < v->nb; i++)
		json_block(w, &v->b[i]);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

void render_kstat_json(FILE *f, const struct kstat_view *v, const char *title)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	json_view(&w, NULL, v, title);
	jsonw_end(&w);
}

void render_kstat_json_pair(FILE *f, const struct kstat_view *a, const struct kstat_view *b,
			    const char *name_a, const char *name_b)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	json_view(&w, "a", a, name_a);
	json_view(&w, "b", b, name_b);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

/* ------------------------------------------------------------------------ */
/* The snapshot file: the schema, then the readings, raw */

static void snap_values(struct jsonw *w, const struct kstat_schema *s, const uint64_t *v,
			const bool *have, bool vcpu)
{
	jsonw_obj_open(w, "values");
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];

		if ((have && !have[i]) || (vcpu && !d->vcpu))
			continue;
		if (!kstat_is_hist(d)) {
			jsonw_u64(w, d->name, v[d->off]);
			continue;
		}
		jsonw_arr_open_flat(w, d->name);
		for (uint32_t k = 0; k < d->size; k++)
			jsonw_u64(w, NULL, v[d->off + k]);
		jsonw_arr_close(w);
	}
	jsonw_obj_close(w);
}

static void snap_vm(struct jsonw *w, const struct kstat_schema *s, const struct kstat_vm *vm)
{
	jsonw_obj_open(w, NULL);
	jsonw_i64(w, "pid", vm->pid);
	jsonw_str(w, "id", vm->id);
	jsonw_str(w, "vm", vm->name);
	jsonw_str(w, "source", vm->source);
	jsonw_bool(w, "created_within", vm->born);
	snap_values(w, s, vm->v, vm->have, false);
	jsonw_arr_open(w, "vcpus");
	for (size_t i = 0; i < vm->nvcpus; i++) {
		jsonw_obj_open(w, NULL);
		jsonw_i64(w, "vcpu", vm->vcpus[i].id);
		snap_values(w, s, vm->vcpus[i].v, vm->have, true);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

void render_kstat_snapshot(FILE *f, const struct render_kstat_snap *m)
{
	const struct kstat_schema *s = m->schema;
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "kind", RENDER_KSTAT_KIND);
	jsonw_u64(&w, "version", 1);
	jsonw_str(&w, "host", m->host);
	jsonw_str(&w, "kernel", m->kernel);
	jsonw_str(&w, "descriptors_from", m->schema_src);
	jsonw_bool(&w, "described", s->described);
	jsonw_arr_open(&w, "schema");
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];

		jsonw_obj_open_flat(&w, NULL);
		jsonw_str(&w, "name", d->name);
		jsonw_str(&w, "scope", d->vcpu ? "vcpu" : "vm");
		jsonw_str(&w, "type", kstat_type_name(d->type));
		jsonw_str(&w, "unit", kstat_unit_name(d->unit));
		jsonw_i64(&w, "base", d->base);
		jsonw_i64(&w, "exponent", d->exponent);
		jsonw_u64(&w, "size", d->size);
		jsonw_u64(&w, "bucket_size", d->bucket_size);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_arr_open(&w, "readings");
	for (size_t i = 0; i < m->nreadings; i++) {
		const struct kstat_reading *r = &m->readings[i];

		jsonw_obj_open(&w, NULL);
		jsonw_f64(&w, "t", r->t);
		jsonw_i64(&w, "wall_ns", r->wall_ns);
		jsonw_arr_open(&w, "vms");
		for (size_t j = 0; j < r->nvms; j++)
			snap_vm(&w, s, &r->vms[j]);
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

/* ------------------------------------------------------------------------ */
/* Two spans compared (diff): the "all VMs" blocks, statistic by statistic */

static const struct kstat_row *row_named(const struct kstat_block *b, const char *name)
{
	for (size_t i = 0; b && i < b->nrows; i++)
		if (!strcmp(b->rows[i].d->name, name))
			return &b->rows[i];
	return NULL;
}

static void cmp_line(FILE *f, const char *name, const struct kstat_row *a,
		     const struct kstat_row *b)
{
	char ra[32] = "-", rb[32] = "-";

	if (a && !isnan(a->rate))
		snprintf(ra, sizeof(ra), "%.1f", a->rate);
	if (b && !isnan(b->rate))
		snprintf(rb, sizeof(rb), "%.1f", b->rate);
	fprintf(f, "%-*s %12" PRIu64 " %12" PRIu64 " %12s %12s", NAME_W, name, a ? a->delta : 0,
		b ? b->delta : 0, ra, rb);
	if (a && b && kstat_is_hist(a->d)) {
		char q[4][32];

		fmt_q(q[0], sizeof(q[0]), a->p50);
		fmt_q(q[1], sizeof(q[1]), b->p50);
		fmt_q(q[2], sizeof(q[2]), a->p99);
		fmt_q(q[3], sizeof(q[3]), b->p99);
		fprintf(f, "  p50<= %s -> %s, p99<= %s -> %s", q[0], q[1], q[2], q[3]);
	}
	fputc('\n', f);
}

/* A histogram's buckets side by side, those non-zero in either. */
static void cmp_buckets(FILE *f, const struct kstat_row *a, const struct kstat_row *b)
{
	char unit[32];

	fprintf(f, "  %s buckets (%s):\n", a->d->name, kstat_unit_label(a->d, unit, sizeof(unit)));
	for (uint32_t i = 0; i < a->d->size; i++) {
		uint64_t lo, hi;

		if (!a->b[i] && !b->b[i])
			continue;
		kstat_bucket_range(a->d, i, &lo, &hi);
		if (hi == UINT64_MAX)
			fprintf(f, "    >= %-18" PRIu64, lo);
		else
			fprintf(f, "    %8" PRIu64 "-%-10" PRIu64, lo, hi);
		fprintf(f, " %12" PRIu64 " %12" PRIu64 "\n", a->b[i], b->b[i]);
	}
}

void render_kstat_compare(FILE *f, const struct kstat_view *a, const struct kstat_view *b,
			  const char *name_a, const char *name_b)
{
	const struct kstat_block *ta = a->nb ? &a->b[a->nb - 1] : NULL;
	const struct kstat_block *tb = b->nb ? &b->b[b->nb - 1] : NULL;

	fprintf(f, "# A: %s (%.2f s)\n# B: %s (%.2f s)\n# every VM of each summed\n", name_a,
		a->dt, name_b, b->dt);
	fprintf(f, "%-*s %12s %12s %12s %12s\n", NAME_W, "STATISTIC", "DELTA A", "DELTA B",
		"RATE/s A", "RATE/s B");
	for (size_t i = 0; ta && i < ta->nrows; i++)
		cmp_line(f, ta->rows[i].d->name, &ta->rows[i], row_named(tb, ta->rows[i].d->name));
	for (size_t i = 0; tb && i < tb->nrows; i++)
		if (!row_named(ta, tb->rows[i].d->name))
			cmp_line(f, tb->rows[i].d->name, NULL, &tb->rows[i]);
	for (size_t i = 0; ta && i < ta->nrows; i++) {
		const struct kstat_row *ra = &ta->rows[i], *rb = row_named(tb, ra->d->name);

		if (rb && kstat_is_hist(ra->d) && (ra->samples || rb->samples))
			cmp_buckets(f, ra, rb);
	}
}

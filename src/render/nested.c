// SPDX-License-Identifier: GPL-2.0
/*
 * report --nested: L2's exits by reason, handled by L0 or reflected to L1,
 * and L1's handling of the reflected ones (stats/nested.c computed it all).
 */
#include "jsonw.h"
#include "render-local.h"
#include "term.h"

static const char *const kinds[] = {"l2", "injected", "l1"};

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void head(FILE *f, const struct render_meta *m, const struct stats_nested_view *v,
		 double unit_ns, const char *unit)
{
	fprintf(f, "Input: %s (%s)%s%s\n", m->inputs, m->kind, m->isa ? "; isa " : "",
		m->isa ? m->isa : "");
	fprintf(f, "L2 exits: %llu, handled by L0 %llu, reflected to L1 %llu",
		(unsigned long long)v->l2, (unsigned long long)v->l0,
		(unsigned long long)v->reflected);
	if (v->injected)
		fprintf(f, "; L1 made to exit without an L2 exit: %llu",
			(unsigned long long)v->injected);
	fprintf(f,
		"\nL1 handling windows closed: %llu, with %llu L1 exits (%.2f per window), "
		"%.2f %s of L1 time per window\n",
		(unsigned long long)v->windows, (unsigned long long)v->window_exits,
		per(v->window_exits, v->windows), per(v->window_ns, v->windows) / unit_ns, unit);
	if (v->open_windows)
		fprintf(f, "Still open at the end: %llu window%s, %llu L1 exit%s in them\n",
			(unsigned long long)v->open_windows, v->open_windows == 1 ? "" : "s",
			(unsigned long long)v->open_exits, v->open_exits == 1 ? "" : "s");
	if (v->broken)
		fprintf(f,
			"Broken by lost events: %llu window%s (L2 exited before L1 entered it)\n",
			(unsigned long long)v->broken, v->broken == 1 ? "" : "s");
}

static void table(FILE *f, const struct render_meta *m, const struct stats_nested_view *v,
		  double unit_ns, const char *unit)
{
	char n[128];

	head(f, m, v, unit_ns, unit);
	fprintf(f, "%-24s %9s %9s %10s %9s %8s %9s %8s %11s\n", "L2 REASON", "EXITS", "L0",
		"L0 AVG", "REFLECTED", "WINDOWS", "L1 EXITS", "PER WIN", "L1 PER WIN");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_nested_row *r = &v->rows[i];

		if (r->kind == STATS_NESTED_L1)
			continue;
		fprintf(f, "%-24s %9llu %9llu %10.2f %9llu %8llu %9llu %8.2f %11.2f\n",
			term_safe(r->name, n, sizeof(n)), (unsigned long long)r->count,
			(unsigned long long)r->l0, per(r->l0_ns, r->l0_timed) / unit_ns,
			(unsigned long long)(r->kind == STATS_NESTED_L2 ? r->reflected : r->count),
			(unsigned long long)r->windows, (unsigned long long)r->window_exits,
			per(r->window_exits, r->windows), per(r->window_ns, r->windows) / unit_ns);
		if (r->kind == STATS_NESTED_INJECTED)
			fprintf(f, "  (L0 made L1 exit: no exit of L2's)\n");
	}
	if (!v->l1)
		return;
	fprintf(f, "%-24s %9s\n", "L1 EXITS IN WINDOWS", "COUNT");
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].kind == STATS_NESTED_L1)
			fprintf(f, "%-24s %9llu\n", term_safe(v->rows[i].name, n, sizeof(n)),
				(unsigned long long)v->rows[i].count);
}

static void csv(FILE *f, const struct stats_nested_view *v)
{
	fputs("kind,name,count,l0,l0_timed,l0_ns,reflected,windows,window_exits,window_ns\n", f);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_nested_row *r = &v->rows[i];

		fprintf(f, "%s,", kinds[r->kind]);
		csv_quote(f, r->name);
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
			(unsigned long long)r->count, (unsigned long long)r->l0,
			(unsigned long long)r->l0_timed, (unsigned long long)r->l0_ns,
			(unsigned long long)r->reflected, (unsigned long long)r->windows,
			(unsigned long long)r->window_exits, (unsigned long long)r->window_ns);
	}
}

static void json(FILE *f, const struct render_meta *m, const struct stats_nested_view *v)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "isa", m->isa);
	jsonw_u64(&w, "l2_exits", v->l2);
	jsonw_u64(&w, "l0_handled", v->l0);
	jsonw_u64(&w, "reflected", v->reflected);
	jsonw_u64(&w, "injected", v->injected);
	jsonw_u64(&w, "l1_exits", v->l1);
	jsonw_u64(&w, "windows", v->windows);
	jsonw_u64(&w, "window_exits", v->window_exits);
	jsonw_u64(&w, "window_ns", v->window_ns);
	jsonw_u64(&w, "open_windows", v->open_windows);
	jsonw_u64(&w, "open_exits", v->open_exits);
	jsonw_u64(&w, "broken_windows", v->broken);
	jsonw_arr_open(&w, "rows");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_nested_row *r = &v->rows[i];

		jsonw_obj_open(&w, NULL);
		jsonw_str(&w, "kind", kinds[r->kind]);
		jsonw_str(&w, "name", r->name);
		jsonw_u64(&w, "count", r->count);
		jsonw_u64(&w, "l0", r->l0);
		jsonw_u64(&w, "l0_ns", r->l0_ns);
		jsonw_u64(&w, "reflected", r->reflected);
		jsonw_u64(&w, "windows", r->windows);
		jsonw_u64(&w, "window_exits", r->window_exits);
		jsonw_u64(&w, "window_ns", r->window_ns);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

void render_nested(FILE *f, const struct render_opts *o, const struct render_meta *m,
		   const struct stats_nested_view *v, double unit_ns, const char *unit)
{
	if (o->fmt == RENDER_CSV)
		csv(f, v);
	else if (o->fmt == RENDER_JSON)
		json(f, m, v);
	else
		table(f, m, v, unit_ns, unit);
}

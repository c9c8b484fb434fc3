// SPDX-License-Identifier: GPL-2.0
/*
 * report --by-guest: which guest code made the exits (stats/guest.c computed
 * every number). Per reason, its pcs in the chosen order, each with its
 * share of the reason's exits and handling time, its symbol and side.
 */
#include <string.h>
#include "jsonw.h"
#include "render-local.h"
#include "term.h"

/* "eg_io+0x8", "eg_io", or "" without a symbol; terminal-safe. */
static const char *where(const struct stats_guest_pc *p, char *buf, size_t len)
{
	char t[256];
	const char *s;

	if (!p->sym)
		return p->other ? "(the other pcs)" : "";
	s = term_safe(p->sym, t, sizeof(t)); /* p->sym itself when it is safe */
	if (p->off)
		snprintf(buf, len, "%s+0x%llx", s, (unsigned long long)p->off);
	else
		snprintf(buf, len, "%s", s);
	return buf;
}

static const char *pc_text(const struct stats_guest_pc *p, char *buf, size_t len)
{
	if (p->other)
		return "other";
	snprintf(buf, len, "0x%llx", (unsigned long long)p->pc);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void table_head(FILE *f, const struct render_meta *m, const struct stats_guest_view *g,
		       const struct render_guest *o)
{
	uint64_t with = g->count - g->no_pc;

	fprintf(f, "Input: %s (%s)%s%s; times in %s\n", m->inputs, m->kind, m->isa ? "; isa " : "",
		m->isa ? m->isa : "", g->unit);
	fprintf(f, "Guest code: %llu exits, %llu with the guest's pc", (unsigned long long)g->count,
		(unsigned long long)with);
	if (g->kernel_from)
		fprintf(f,
			"; guest kernel %llu (%.1f %%), guest user %llu (%.1f %%) by address"
			" (kernel from 0x%llx)\n",
			(unsigned long long)g->side[STATS_GUEST_SIDE_KERNEL],
			pct(g->side[STATS_GUEST_SIDE_KERNEL], with),
			(unsigned long long)g->side[STATS_GUEST_SIDE_USER],
			pct(g->side[STATS_GUEST_SIDE_USER], with),
			(unsigned long long)g->kernel_from);
	else
		fprintf(f, "; guest kernel or user: the ISA's address layout does not say\n");
	if (o->syms_path)
		fprintf(f, "Symbols: %s (%s, %zu)\n", o->syms_path, o->syms_kind, o->nsyms);
	if (g->top)
		fprintf(f, "At most %zu pcs per reason (--guest-top)\n", g->top);
}

static void table(FILE *f, const struct render_meta *m, const struct stats_guest_view *g,
		  const struct render_guest *o)
{
	char a[48], b[320], n[128];

	table_head(f, m, g, o);
	fprintf(f, "%-24s %10s %7s %12s %7s %10s %-7s %s\n", "REASON / PC", "COUNT", "%COUNT",
		"SUM", "%SUM", "AVG", "SIDE", "SYMBOL");
	for (size_t i = 0; i < g->n; i++) {
		const struct stats_guest_reason *x = &g->reasons[i];

		fprintf(f, "%-24s %10llu %7s %12.2f\n", term_safe(x->name, n, sizeof(n)),
			(unsigned long long)x->count, "", x->sum);
		for (size_t j = 0; j < x->npcs; j++) {
			const struct stats_guest_pc *p = &x->pcs[j];
			const char *w = where(p, b, sizeof(b));

			fprintf(f, "  %-22s %10llu %6.1f%% %12.2f %6.1f%% %10.2f %-7s%s%s\n",
				pc_text(p, a, sizeof(a)), (unsigned long long)p->r.count,
				p->pct_count, p->r.sum, p->pct_time, p->r.avg,
				stats_guest_side_name(p->side), *w ? " " : "", w);
		}
		if (x->no_pc)
			fprintf(f, "  %-22s %10llu %6.1f%%\n", "(no pc)",
				(unsigned long long)x->no_pc, pct(x->no_pc, x->count));
	}
}

static void csv(FILE *f, const struct stats_guest_view *g)
{
	char b[320];

	fputs("reason,pc,count,timed,sum,avg,max,pct_count,pct_time,side,symbol,offset\n", f);
	for (size_t i = 0; i < g->n; i++) {
		const struct stats_guest_reason *x = &g->reasons[i];

		for (size_t j = 0; j < x->npcs; j++) {
			const struct stats_guest_pc *p = &x->pcs[j];

			csv_quote(f, x->name);
			fprintf(f, ",%s,%llu,%llu,%.3f,%.3f,%.3f,%.2f,%.2f,%s,",
				pc_text(p, b, sizeof(b)), (unsigned long long)p->r.count,
				(unsigned long long)p->r.timed, p->r.sum, p->r.avg, p->r.max,
				p->pct_count, p->pct_time, stats_guest_side_name(p->side));
			csv_quote(f, p->sym ? p->sym : "");
			fprintf(f, ",%llu\n", (unsigned long long)p->off);
		}
		if (x->no_pc) {
			csv_quote(f, x->name);
			fprintf(f, ",none,%llu,,,,,%.2f,,,,\n", (unsigned long long)x->no_pc,
				pct(x->no_pc, x->count));
		}
	}
}

static void json_pc(struct jsonw *w, const struct stats_guest_pc *p)
{
	jsonw_obj_open(w, NULL);
	if (p->other)
		jsonw_str(w, "pc", "other");
	else
		jsonw_u64(w, "pc", p->pc);
	jsonw_u64(w, "count", p->r.count);
	jsonw_u64(w, "timed", p->r.timed);
	jsonw_f64(w, "sum", p->r.sum);
	jsonw_f64(w, "avg", p->r.avg);
	jsonw_f64(w, "max", p->r.max);
	jsonw_f64(w, "pct_count", p->pct_count);
	jsonw_f64(w, "pct_time", p->pct_time);
	jsonw_str(w, "side", stats_guest_side_name(p->side));
	jsonw_str(w, "symbol", p->sym);
	jsonw_u64(w, "offset", p->off);
	jsonw_obj_close(w);
}

static void json(FILE *f, const struct render_meta *m, const struct stats_guest_view *g,
		 const struct render_guest *o)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "isa", m->isa);
	jsonw_str(&w, "unit", g->unit);
	jsonw_str(&w, "symbols", o->syms_path);
	jsonw_u64(&w, "exits", g->count);
	jsonw_u64(&w, "no_pc", g->no_pc);
	if (g->kernel_from) {
		jsonw_u64(&w, "kernel_from", g->kernel_from);
		jsonw_u64(&w, "guest_kernel", g->side[STATS_GUEST_SIDE_KERNEL]);
		jsonw_u64(&w, "guest_user", g->side[STATS_GUEST_SIDE_USER]);
	}
	jsonw_arr_open(&w, "reasons");
	for (size_t i = 0; i < g->n; i++) {
		const struct stats_guest_reason *x = &g->reasons[i];

		jsonw_obj_open(&w, NULL);
		jsonw_str(&w, "name", x->name);
		jsonw_u64(&w, "count", x->count);
		jsonw_f64(&w, "sum", x->sum);
		jsonw_u64(&w, "no_pc", x->no_pc);
		jsonw_arr_open(&w, "pcs");
		for (size_t j = 0; j < x->npcs; j++)
			json_pc(&w, &x->pcs[j]);
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

void render_by_guest(FILE *f, const struct render_opts *o, const struct render_meta *m,
		     const struct stats_guest_view *g, const struct render_guest *go)
{
	if (o->fmt == RENDER_CSV)
		csv(f, g);
	else if (o->fmt == RENDER_JSON)
		json(f, m, g, go);
	else
		table(f, m, g, go); /* the table; the PPC format has no such view */
}

// SPDX-License-Identifier: GPL-2.0
/*
 * report --by-guest's view: a by-sub-key view's rows regrouped per reason,
 * each pc with its share of the reason, its symbol and its side (guest
 * kernel or user, by the ISA's address layout). The rows come sorted by the
 * user's key (stats_view_new()), so each reason's pcs keep that order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "event.h"
#include "intern.h"
#include "stats.h"

static const char *const side_names[STATS_GUEST_SIDE_N] = {"unknown", "kernel", "user"};

const char *stats_guest_side_name(enum stats_guest_side s)
{
	return s < STATS_GUEST_SIDE_N ? side_names[s] : "?";
}

static struct stats_guest_reason *reason_of(struct stats_guest_view *g, const char *name,
					    size_t *cap)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->reasons[i].name == name) /* interned */
			return &g->reasons[i];
	if (g->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		g->reasons = xrealloc(g->reasons, *cap * sizeof(*g->reasons));
	}
	g->reasons[g->n] = (struct stats_guest_reason){.name = name};
	return &g->reasons[g->n++];
}

static bool is_pc_row(const struct stats_row *r)
{
	return r->key.has_sub && r->acc && r->acc->sub_kind == KES_D_PC;
}

static enum stats_guest_side side_of(uint64_t pc, uint64_t kernel_from)
{
	if (!kernel_from)
		return STATS_GUEST_SIDE_UNKNOWN;
	return pc >= kernel_from ? STATS_GUEST_SIDE_KERNEL : STATS_GUEST_SIDE_USER;
}

static void add_pc(struct stats_guest_view *g, struct stats_guest_reason *x,
		   const struct stats_row *r, stats_sym_fn *sym, const void *syms)
{
	struct stats_guest_pc *p;

	x->pcs = xrealloc(x->pcs, (x->npcs + 1) * sizeof(*x->pcs));
	p = &x->pcs[x->npcs++];
	*p = (struct stats_guest_pc){
	    .pc = r->key.sub, .other = r->key.sub == STATS_SUB_OTHER, .r = *r};
	if (!p->other) {
		p->side = side_of(p->pc, g->kernel_from);
		p->sym = sym ? sym(syms, p->pc, &p->off) : NULL;
	}
	g->side[p->side] += r->count;
	g->side_sum[p->side] += r->sum;
}

static enum stats_sort order;

static int by_total(const void *a, const void *b)
{
	const struct stats_guest_reason *x = a, *y = b;

	if (order == STATS_SORT_COUNT && x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void shares(struct stats_guest_reason *x, size_t top)
{
	for (size_t i = 0; i < x->npcs; i++) {
		struct stats_guest_pc *p = &x->pcs[i];

		p->pct_count = x->count ? 100.0 * (double)p->r.count / (double)x->count : 0;
		p->pct_time = x->sum > 0 ? 100.0 * p->r.sum / x->sum : 0;
	}
	if (top && x->npcs > top)
		x->npcs = top; /* the reason's totals still count them all */
}

struct stats_guest_view *stats_guest_view_new(const struct stats_view *v, stats_sym_fn *sym,
					      const void *syms, uint64_t kernel_from, size_t top,
					      enum stats_sort sort)
{
	struct stats_guest_view *g = xcalloc(1, sizeof(*g));
	size_t cap = 0;

	g->unit = v->unit;
	g->kernel_from = kernel_from;
	g->top = top;
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_row *r = &v->rows[i];

		if (!strcmp(r->key.name, KES_TIMEINGUEST))
			continue; /* time in the guest: no exit made it */
		struct stats_guest_reason *x = reason_of(g, r->key.name, &cap);

		x->count += r->count;
		x->timed += r->timed;
		x->sum += r->sum;
		g->count += r->count;
		if (is_pc_row(r)) {
			add_pc(g, x, r, sym, syms);
		} else {
			x->no_pc += r->count;
			g->no_pc += r->count;
		}
	}
	order = sort;
	qsort(g->reasons, g->n, sizeof(*g->reasons), by_total);
	for (size_t i = 0; i < g->n; i++)
		shares(&g->reasons[i], top);
	return g;
}

void stats_guest_view_free(struct stats_guest_view *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->reasons[i].pcs);
	free(g->reasons);
	free(g);
}

/* A row's new name: "reason@function" (the symbol holding its pc), else "reason@0xpc". */
static const char *label(const struct stats_key *k, const struct stats_acc *a, stats_sym_fn *sym,
			 const void *syms)
{
	char buf[512];
	uint64_t off;
	const char *name;

	if (!k->has_sub || !a->sub_kind || a->sub_kind != KES_D_PC)
		return k->name; /* no pc: the reason alone */
	if (k->sub == STATS_SUB_OTHER)
		snprintf(buf, sizeof(buf), "%s@other", k->name);
	else if (sym && (name = sym(syms, k->sub, &off)))
		snprintf(buf, sizeof(buf), "%s@%s", k->name, name);
	else
		snprintf(buf, sizeof(buf), "%s@0x%llx", k->name, (unsigned long long)k->sub);
	return intern(buf);
}

struct relabel {
	struct stats_table *out;
	stats_sym_fn *sym;
	const void *syms;
};

static void relabel_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct relabel *r = arg;
	struct stats_key nk = {
	    .name = label(k, a, r->sym, r->syms), .tid = k->tid, .vcpu = k->vcpu};

	stats_acc_merge(stats_table_get(r->out, &nk), a);
}

struct stats_table *stats_guest_table(const struct stats_table *t, stats_sym_fn *sym,
				      const void *syms)
{
	struct relabel r = {stats_table_new(), sym, syms};

	stats_table_foreach(t, relabel_row, &r);
	return r.out;
}

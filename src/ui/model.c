// SPDX-License-Identifier: GPL-2.0
/*
 * The rows top shows, built at each refresh from the aggregates: the tables
 * since start are folded (filters applied) to the keys of the view (reason,
 * VM, or one reason by vCPU thread and by sub-key), stats_view_new()
 * computes the statistics, and the same fold of the last interval gives
 * the rates. Percentages are of what the main view shows, so a drill-down's
 * rows add up to their reason's row:
 *   %Total = exits of the row / all exits shown,
 *   %Time  = handling time of the row / (all handling time + time in guest),
 * the KVM-PPC report's %, TIMEINGUEST included.
 * The all-events view is the same fold over the WATCH_EVENTS table: event
 * names instead of reasons, counts (untimed) only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"
#include "gsym.h"
#include "term.h"
#include "pair.h"
#include "ui-local.h"

struct fold {
	const struct ui_state *st;
	const struct watch_vms *vs;
	const char *tig;
	enum ui_mode mode;
	bool by_sub; /* drill-down: by sub-key instead of by thread */
	const struct exit_types *types;
	struct stats_table *dst;
};

/*
 * Is the reason name shown under the regex filter? Also when one of its
 * other names in the tables (`alias`: arm64's bare "DABT_LOW" for
 * TRAP_DABT_LOW) matches: -f names a reason as the kernel prints it.
 */
static bool name_shown(const struct ui_filter *f, const struct exit_types *types,
		       const char *name)
{
	const char *alias[8];
	size_t n;

	if (!f->re || regexec(f->re, name, 0, NULL, 0) == 0)
		return true;
	n = exit_types_aliases(types, name, alias, 8);
	for (size_t i = 0; i < n; i++)
		if (regexec(f->re, alias[i], 0, NULL, 0) == 0)
			return true;
	return false;
}

static bool keep_thread(const struct fold *f, int32_t tid)
{
	const struct ui_filter *flt = &f->st->f;
	const struct watch_thread *t;
	bool hit = false;

	if (!flt->npids && !flt->guest[0])
		return true;
	t = watch_vms_thread(f->vs, tid);
	for (size_t i = 0; i < flt->npids; i++)
		if (flt->pids[i] == tid || (t && flt->pids[i] == t->tgid))
			hit = true;
	if (flt->npids && !hit)
		return false;
	if (flt->guest[0]) {
		const struct watch_vm *vm = t ? watch_vms_vm(f->vs, t->tgid) : NULL;

		return vm && !strcmp(vm->name, flt->guest);
	}
	return true;
}

static void fold_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	const struct fold *f = arg;
	struct stats_key nk = {.name = k->name, .tid = -1, .vcpu = -1};

	if (k->name != f->tig && !name_shown(&f->st->f, f->types, k->name))
		return;
	if (!keep_thread(f, k->tid))
		return;
	if (f->mode == UI_MODE_VMS && k->name != f->tig) {
		const struct watch_thread *t = watch_vms_thread(f->vs, k->tid);
		const struct watch_vm *vm = t ? watch_vms_vm(f->vs, t->tgid) : NULL;

		nk.name = vm ? vm->label : intern("?");
		nk.tid = vm ? vm->pid : -1;
	} else if (f->mode == UI_MODE_DRILL) {
		if (k->name != f->st->drill)
			return;
		if (f->by_sub) {
			nk.sub = k->sub;
			nk.has_sub = k->has_sub;
		} else {
			nk.tid = k->tid;
			nk.vcpu = k->vcpu;
		}
	}
	stats_acc_merge(stats_table_get(f->dst, &nk), a);
}

static struct stats_table *fold(const struct stats_table *t, struct fold f)
{
	f.dst = stats_table_new();
	stats_table_foreach(t, fold_one, &f);
	return f.dst;
}

/* ------------------------------------------------------------------------ */
/* Rows */

/* An exit name as a row label: names come from the recording, escapes escaped. */
static void term_safe_label(char *label, size_t len, const char *name)
{
	char buf[256];

	snprintf(label, len, "%s", term_safe(name, buf, sizeof(buf)));
}

/* --by-guest: "pc 0x8 eg_io+0x6", the symbol terminal-safe; "pc 0x8" where none holds it. */
static void pc_label(char *label, size_t len, uint64_t pc, const struct gsym *syms)
{
	uint64_t off = 0;
	const char *name = gsym_lookup(syms, pc, &off);
	char buf[256];

	if (!name)
		snprintf(label, len, "pc 0x%llx", (unsigned long long)pc);
	else if (off)
		snprintf(label, len, "pc 0x%llx %s+0x%llx", (unsigned long long)pc,
			 term_safe(name, buf, sizeof(buf)), (unsigned long long)off);
	else
		snprintf(label, len, "pc 0x%llx %s", (unsigned long long)pc,
			 term_safe(name, buf, sizeof(buf)));
}

/* A drill-down row's label; a sub-key is called what its detail event calls it (exit_types). */
static void drill_label(struct ui_row *r, const struct watch_vms *vs, bool by_sub,
			const struct exit_types *types, const struct gsym *syms)
{
	const char *what = exit_types_sub_label(types, (enum kes_detail)r->sub_kind);
	const struct stats_key *k = &r->s.key;
	const struct watch_thread *t;
	const struct watch_vm *vm;
	char vc[24] = "";

	if (by_sub) {
		if (!k->has_sub)
			snprintf(r->label, sizeof(r->label), "(no detail event)");
		else if (k->sub == STATS_SUB_OTHER)
			snprintf(r->label, sizeof(r->label), "(other %ss)", what);
		else if (r->sub_kind == KES_D_PC && syms)
			pc_label(r->label, sizeof(r->label), k->sub, syms);
		else
			exit_types_sub_text(types, (enum kes_detail)r->sub_kind, k->sub, r->label,
					    sizeof(r->label));
		return;
	}
	t = watch_vms_thread(vs, k->tid);
	vm = t ? watch_vms_vm(vs, t->tgid) : NULL;
	/* thread and VM first: a narrow label column cuts the end (the thread's name) */
	if (k->vcpu >= 0)
		snprintf(vc, sizeof(vc), " v%d", (int)k->vcpu);
	snprintf(r->label, sizeof(r->label), "t%d%s %s %s", (int)k->tid, vc,
		 vm ? vm->label : "?", t && t->comm ? t->comm : "?");
}

/* The statistics of r as the view shows them: see struct ui_row. */
static void set_stats(struct ui_row *u, const struct stats_row *r)
{
	u->s = *r;
	u->s.acc = NULL;
	u->sub_kind = r->acc ? r->acc->sub_kind : 0;
	if (!r->timed)
		u->s.avg = u->s.max = NAN;
	if (!r->has_quantiles)
		u->s.p99 = NAN;
}

/* A row of the totals a, named name (a NULL: nothing seen). */
static void set_total(struct ui_row *u, const char *name, const struct stats_acc *a)
{
	struct stats_key k = {.name = name, .tid = -1, .vcpu = -1};
	struct stats_acc none;
	struct stats_row r;

	stats_acc_init(&none);
	stats_row_of(&r, &k, a ? a : &none, 1.0);
	*u = (struct ui_row){0};
	set_stats(u, &r);
	stats_acc_free(&none);
}

static void fill_row(struct ui_row *u, const struct stats_row *r, const struct stats_table *ti,
		     double dt)
{
	const struct stats_acc *ai = stats_table_find(ti, &r->key);

	set_stats(u, r);
	u->rate = ai && dt > 0 ? (double)(ai->count + ai->untimed) / dt : 0;
}

/* The rows of t but TIMEINGUEST, which goes to *guest when guest is not NULL. */
static void make_rows(struct ui_row **rows, size_t *n, const struct stats_table *t,
		      const struct stats_table *ti, double dt, const char *tig,
		      struct ui_row *guest, bool *has_guest)
{
	struct stats_view *sv = stats_view_new(t, 1.0, "ns", STATS_SORT_NAME);

	*rows = xcalloc(sv->nrows + 1, sizeof(**rows));
	*n = 0;
	for (size_t i = 0; i < sv->nrows; i++) {
		const struct stats_row *r = &sv->rows[i];

		if (r->key.name == tig) {
			if (guest) {
				fill_row(guest, r, ti, dt);
				snprintf(guest->label, sizeof(guest->label), "(time in guest)");
				*has_guest = true;
			}
			continue;
		}
		fill_row(&(*rows)[*n], r, ti, dt);
		term_safe_label((*rows)[*n].label, sizeof((*rows)[*n].label), r->key.name);
		(*n)++;
	}
	stats_view_free(sv);
}

struct total_walk {
	const char *tig;
	struct stats_acc acc;
};

static void merge_all(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct total_walk *w = arg;

	if (k->name != w->tig)
		stats_acc_merge(&w->acc, a);
}

/* The total row over every row of the reasons table t. */
static void make_total(struct ui_view *v, const struct stats_table *t, const char *tig)
{
	struct total_walk w = {.tig = tig};
	struct ui_row *s = &v->total;

	stats_acc_init(&w.acc);
	stats_table_foreach(t, merge_all, &w);
	set_total(s, intern("Total"), &w.acc);
	snprintf(s->label, sizeof(s->label), "Total");
	stats_acc_free(&w.acc);
}

static void add_zero_rows(struct ui_view *v, const struct exit_types *types,
			  const struct ui_state *st, const struct watch *l)
{
	const struct exit_table *t = v->isa ? exit_types_find(types, v->isa) : NULL;
	size_t n = v->src == WATCH_EVENTS ? l->nevnames : t ? t->nnames : 0;

	if (!n)
		return;
	v->rows = xrealloc(v->rows, (v->nrows + n + 1) * sizeof(*v->rows));
	for (size_t i = 0; i < n; i++) {
		const char *name = v->src == WATCH_EVENTS ? l->evnames[i] : t->names[i].name;
		bool have = false;

		for (size_t j = 0; j < v->nrows && !have; j++)
			have = v->rows[j].s.key.name == name;
		if (have || !name_shown(&st->f, types, name))
			continue;
		struct ui_row *r = &v->rows[v->nrows++];
		set_total(r, name, NULL);
		term_safe_label(r->label, sizeof(r->label), name);
	}
}

/* ------------------------------------------------------------------------ */
/* Sorting */

static enum ui_sort sort_key;

static double sort_value(const struct ui_row *r)
{
	switch (sort_key) {
	case UI_SORT_TOTAL:
		return (double)r->s.count;
	case UI_SORT_RATE:
		return r->rate;
	case UI_SORT_AVG:
		return isnan(r->s.avg) ? -1 : r->s.avg;
	case UI_SORT_MAX:
		return isnan(r->s.max) ? -1 : r->s.max;
	default:
		return r->s.sum;
	}
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct ui_row *a = pa, *b = pb;
	double x = sort_value(a), y = sort_value(b);

	if (x != y)
		return x < y ? 1 : -1;
	if (a->s.count != b->s.count)
		return a->s.count < b->s.count ? 1 : -1;
	return strcmp(a->label, b->label);
}

static void sort_rows(struct ui_row *rows, size_t n, enum ui_sort s)
{
	sort_key = s;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
}

const char *ui_sort_name(enum ui_sort s)
{
	static const char *const names[UI_NSORT] = {"Total", "Rate/s", "Avg", "Max", "%Time"};

	return s < UI_NSORT ? names[s] : "?";
}

/* ------------------------------------------------------------------------ */

static void percentages(struct ui_row *rows, size_t n, double exits, double time)
{
	for (size_t i = 0; i < n; i++) {
		rows[i].pct_total = exits > 0 ? 100.0 * (double)rows[i].s.count / exits : 0;
		rows[i].pct_time = time > 0 ? 100.0 * rows[i].s.sum / time : 0;
	}
}

static void header_facts(struct ui_view *v, const struct watch *l, const struct watch_vms *vs)
{
	size_t len = 0;

	v->events_s = l->last_dt > 0 ? (double)l->events_last / l->last_dt : 0;
	v->lost = l->lost;
	v->nvms = vs->nv;
	v->vms[0] = 0;
	for (size_t i = 0; i < vs->nv; i++) {
		const struct watch_vm *vm = &vs->v[i];

		v->nvms_dead += vm->dead;
		if (len + strlen(vm->label) + 12 >= sizeof(v->vms)) {
			snprintf(v->vms + len, sizeof(v->vms) - len, " +%zu more", vs->nv - i);
			break;
		}
		len += (size_t)snprintf(v->vms + len, sizeof(v->vms) - len, "%s%s%s",
					len ? " " : "", vm->label, vm->dead ? "(exited)" : "");
	}
}

const char *ui_vms_exited(const struct ui_view *v)
{
	if (!v->nvms_dead)
		return "";
	return v->nvms_dead == v->nvms ? " (all exited)" : " (some exited)";
}

static int choose_source(struct ui_view *v, const struct watch *l, const struct ui_state *st)
{
	uint64_t exits, uexits;

	watch_counts(l, &exits, &uexits);
	if (st->events && l->evname)
		return WATCH_EVENTS;
	if (st->source == UI_SOURCE_EXITS)
		return WATCH_EXITS;
	if (st->source == UI_SOURCE_USERSPACE)
		return WATCH_UEXITS;
	/* kvm_exit when it fires; on hosts where it is silent, what reaches the VMM. */
	if (exits)
		return WATCH_EXITS;
	v->exit_silent = l->has_kvm_exit && uexits > 0;
	return WATCH_UEXITS;
}

/*
 * --anatomy, the reasons view: each row's cause, the part most of its time
 * since the start went to (stats/anatomy.c's view; the filters do not apply
 * to it: the part a reason's exits spend their time in is the same).
 */
static void causes(struct ui_view *v, const struct watch *l)
{
	const struct stats_anatomy *a = v->src < WATCH_NSRC ? l->an_total[v->src] : NULL;
	struct stats_anatomy_view *av;

	if (!a)
		return;
	av = stats_anatomy_view_new(a, 0, 1, "ns", STATS_SORT_NAME);
	v->has_cause = true;
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_anatomy_row *r = stats_anatomy_view_find(av, v->rows[i].s.key.name);

		if (r && r->split)
			snprintf(v->rows[i].cause, sizeof(v->rows[i].cause), "%s %.0f%%",
				 stats_part_name(r->dominant), r->part[r->dominant].share);
	}
	if (av->all.split)
		snprintf(v->total.cause, sizeof(v->total.cause), "%s %.0f%%",
			 stats_part_name(av->all.dominant), av->all.part[av->all.dominant].share);
	stats_anatomy_view_free(av);
}

void ui_model_build(struct ui_view *v, const struct watch *l, const struct watch_vms *vs,
		    const struct ui_state *st, const struct exit_types *types)
{
	const char *tig = intern(KES_TIMEINGUEST);
	struct fold f = {.st = st, .vs = vs, .tig = tig, .mode = UI_MODE_REASONS, .types = types};
	struct stats_table *r, *ri, *t, *ti;
	double dt = l->last_dt;

	*v = (struct ui_view){0};
	v->src = choose_source(v, l, st);
	/* the events view names the ISA the exits view does (its kvm_exits are decoded too) */
	v->isa = v->src == WATCH_UEXITS ? "userspace" : l->isa;
	v->nevents = l->nevnames;
	header_facts(v, l, vs);
	r = fold(l->total[v->src], f);
	ri = fold(l->last[v->src], f);
	make_rows(&v->rows, &v->nrows, r, ri, dt, tig, &v->guest, &v->has_guest);
	make_total(v, r, tig);
	for (size_t i = 0; i < v->nrows; i++)
		v->total.rate += v->rows[i].rate;
	v->empty = !v->nrows && !v->has_guest;
	double exits = (double)v->total.s.count, time = v->total.s.sum + v->guest.s.sum;

	if (st->mode == UI_MODE_REASONS && st->show_zero && (!st->buckets || v->src == WATCH_EVENTS))
		add_zero_rows(v, types, st, l);
	if (st->mode != UI_MODE_REASONS) {
		free(v->rows);
		f.mode = st->mode;
		t = fold(l->total[v->src], f);
		ti = fold(l->last[v->src], f);
		make_rows(&v->rows, &v->nrows, t, ti, dt, tig, NULL, NULL);
		stats_table_free(t);
		stats_table_free(ti);
	}
	if (st->mode == UI_MODE_DRILL) {
		struct stats_key k = {.name = st->drill, .tid = -1, .vcpu = -1};
		const struct stats_acc *a = stats_table_find(r, &k);

		for (size_t i = 0; i < v->nrows; i++)
			drill_label(&v->rows[i], vs, false, types, st->syms);
		f.by_sub = true;
		t = fold(l->total[v->src], f);
		ti = fold(l->last[v->src], f);
		if (v->src != WATCH_EVENTS) /* events have no sub-keys */
			make_rows(&v->subs, &v->nsubs, t, ti, dt, tig, NULL, NULL);
		for (size_t i = 0; i < v->nsubs; i++)
			drill_label(&v->subs[i], vs, true, types, st->syms);
		stats_table_free(t);
		stats_table_free(ti);
		/* The drill-down's total row is the reason's own row. */
		double rate = 0;
		for (size_t i = 0; i < v->nrows; i++)
			rate += v->rows[i].rate;
		set_total(&v->total, st->drill, a);
		v->total.rate = rate;
		term_safe_label(v->total.label, sizeof(v->total.label), st->drill);
	}
	percentages(v->rows, v->nrows, exits, time);
	percentages(v->subs, v->nsubs, exits, time);
	percentages(&v->total, 1, exits, time);
	percentages(&v->guest, 1, exits, time);
	v->guest.pct_total = 0;
	if (st->mode == UI_MODE_REASONS)
		causes(v, l);
	sort_rows(v->rows, v->nrows, st->sort);
	sort_rows(v->subs, v->nsubs, st->sort);
	stats_table_free(r);
	stats_table_free(ri);
	ui_slow_view(v, l, vs);
}

void ui_view_free(struct ui_view *v)
{
	free(v->slow);
	free(v->rows);
	free(v->subs);
	*v = (struct ui_view){0};
}

/* ------------------------------------------------------------------------ */
/* Filters */

int ui_fields_regcomp(regex_t *re, const char *text)
{
	size_t n = strlen(text) + 4;
	char *anchored = xcalloc(1, n);
	int rc;

	snprintf(anchored, n, "^(%s)", text);
	rc = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	return rc;
}

static void drop_own(struct ui_filter *f)
{
	if (f->has_own)
		regfree(&f->own);
	f->has_own = false;
	f->re = NULL;
}

void ui_filter_use_re(struct ui_filter *f, const regex_t *re, const char *text)
{
	drop_own(f);
	f->re = re;
	snprintf(f->re_text, sizeof(f->re_text), "%s", text);
}

int ui_filter_set_re(struct ui_filter *f, const char *text, char *msg, size_t len)
{
	regex_t re;
	int rc;

	if (!*text) {
		drop_own(f);
		f->re_text[0] = 0;
		return 0;
	}
	rc = ui_fields_regcomp(&re, text);
	if (rc) {
		char e[128];

		regerror(rc, &re, e, sizeof(e));
		snprintf(msg, len, "'%s' is not a regular expression: %s", text, e);
		return -1;
	}
	drop_own(f);
	f->own = re;
	f->has_own = true;
	f->re = &f->own;
	snprintf(f->re_text, sizeof(f->re_text), "%s", text);
	return 0;
}

int ui_filter_set_pids(struct ui_filter *f, const char *text, char *msg, size_t len)
{
	int32_t *pids = NULL;
	size_t n = 0;
	const char *s = text;

	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v <= 0 || v > INT32_MAX || (*end && *end != ',' && *end != ' ')) {
			free(pids);
			snprintf(msg, len, "'%s' is not a pid list (N[,N...])", text);
			return -1;
		}
		pids = xrealloc(pids, (n + 1) * sizeof(*pids));
		pids[n++] = (int32_t)v;
		s = *end ? end + 1 : end;
	}
	free(f->pids);
	f->pids = pids;
	f->npids = n;
	return 0;
}

void ui_filter_free(struct ui_filter *f)
{
	drop_own(f);
	free(f->pids);
	*f = (struct ui_filter){0};
}

void ui_fmt_time(char *buf, size_t len, double ns, bool plain_us)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (plain_us || ns < 1e7)
		snprintf(buf, len, "%.2f", ns / 1e3);
	else if (ns < 1e10)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

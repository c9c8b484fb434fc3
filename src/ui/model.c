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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "pair.h"
#include "ui-local.h"

struct fold {
	const struct ui_state *st;
	const struct ui_vms *vs;
	const char *tig;
	enum ui_mode mode;
	bool by_sub; /* drill-down: by sub-key instead of by thread */
	struct stats_table *dst;
};

bool ui_filter_name(const struct ui_filter *f, const char *name)
{
	return !f->has_re || regexec(&f->re, name, 0, NULL, 0) == 0;
}

static bool keep_thread(const struct fold *f, int32_t tid)
{
	const struct ui_filter *flt = &f->st->f;
	const struct ui_thread *t;
	bool hit = false;

	if (!flt->npids && !flt->guest[0])
		return true;
	t = ui_vms_thread(f->vs, tid);
	for (size_t i = 0; i < flt->npids; i++)
		if (flt->pids[i] == tid || (t && flt->pids[i] == t->tgid))
			hit = true;
	if (flt->npids && !hit)
		return false;
	if (flt->guest[0]) {
		const struct ui_vm *vm = t ? ui_vms_vm(f->vs, t->tgid) : NULL;

		return vm && !strcmp(vm->name, flt->guest);
	}
	return true;
}

static void fold_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	const struct fold *f = arg;
	struct stats_key nk = {.name = k->name, .tid = -1, .vcpu = -1};

	if (k->name != f->tig && !ui_filter_name(&f->st->f, k->name))
		return;
	if (!keep_thread(f, k->tid))
		return;
	if (f->mode == UI_MODE_VMS && k->name != f->tig) {
		const struct ui_thread *t = ui_vms_thread(f->vs, k->tid);
		const struct ui_vm *vm = t ? ui_vms_vm(f->vs, t->tgid) : NULL;

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

static const char *sub_kind(const char *reason)
{
	if (strstr(reason, "MMIO") || strstr(reason, "EPT") || strstr(reason, "NPF") ||
	    strstr(reason, "DABT"))
		return "gpa";
	if (strstr(reason, "IO"))
		return "port";
	if (strstr(reason, "MSR"))
		return "msr";
	if (strstr(reason, "CALL") || strstr(reason, "HVC"))
		return "nr";
	return "key";
}

static void drill_label(struct ui_row *r, const struct ui_vms *vs, bool by_sub)
{
	const struct stats_key *k = &r->key;
	const struct ui_thread *t;
	const struct ui_vm *vm;
	char vc[24] = "";

	if (by_sub) {
		if (!k->has_sub)
			snprintf(r->label, sizeof(r->label), "(no detail event)");
		else if (k->sub == STATS_SUB_OTHER)
			snprintf(r->label, sizeof(r->label), "(other %ss)", sub_kind(k->name));
		else
			snprintf(r->label, sizeof(r->label), "%s 0x%llx", sub_kind(k->name),
				 (unsigned long long)k->sub);
		return;
	}
	t = ui_vms_thread(vs, k->tid);
	vm = t ? ui_vms_vm(vs, t->tgid) : NULL;
	if (k->vcpu >= 0)
		snprintf(vc, sizeof(vc), "vcpu%d ", (int)k->vcpu);
	snprintf(r->label, sizeof(r->label), "%stid %d %s %s", vc, (int)k->tid,
		 t && t->comm ? t->comm : "?", vm ? vm->label : "");
}

static void fill_row(struct ui_row *u, const struct stats_row *r, const struct stats_table *ti,
		     double dt)
{
	const struct stats_acc *ai = stats_table_find(ti, &r->key);

	u->key = r->key;
	u->pid = r->key.tid;
	u->total = r->count + r->untimed;
	u->timed = r->count;
	u->avg = r->count ? r->avg : NAN;
	u->max = r->count ? r->max : NAN;
	u->p99 = r->has_quantiles ? r->p99 : NAN;
	u->sum = r->sum;
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
		snprintf((*rows)[*n].label, sizeof((*rows)[*n].label), "%s", r->key.name);
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
	*s = (struct ui_row){.key = {.name = intern("Total"), .tid = -1, .vcpu = -1}};
	snprintf(s->label, sizeof(s->label), "Total");
	s->timed = w.acc.count;
	s->total = w.acc.count + w.acc.untimed;
	s->sum = (double)w.acc.sum;
	s->avg = w.acc.count ? stats_acc_avg(&w.acc) : NAN;
	s->max = w.acc.count ? (double)w.acc.max : NAN;
	s->p99 = w.acc.count ? stats_acc_quantile(&w.acc, 0.99) : NAN;
	stats_acc_free(&w.acc);
}

static void add_zero_rows(struct ui_view *v, const struct exit_types *types,
			  const struct ui_state *st)
{
	const struct exit_table *t = v->isa ? exit_types_find(types, v->isa) : NULL;

	if (!t)
		return;
	v->rows = xrealloc(v->rows, (v->nrows + t->nnames + 1) * sizeof(*v->rows));
	for (size_t i = 0; i < t->nnames; i++) {
		const char *name = t->names[i].name;
		bool have = false;

		for (size_t j = 0; j < v->nrows && !have; j++)
			have = v->rows[j].key.name == name;
		if (have || !ui_filter_name(&st->f, name))
			continue;
		struct ui_row *r = &v->rows[v->nrows++];
		*r = (struct ui_row){.key = {.name = name, .tid = -1, .vcpu = -1},
				     .avg = NAN,
				     .max = NAN,
				     .p99 = NAN};
		snprintf(r->label, sizeof(r->label), "%s", name);
	}
}

/* ------------------------------------------------------------------------ */
/* Sorting */

static enum ui_sort sort_key;

static double sort_value(const struct ui_row *r)
{
	switch (sort_key) {
	case UI_SORT_TOTAL:
		return (double)r->total;
	case UI_SORT_RATE:
		return r->rate;
	case UI_SORT_AVG:
		return isnan(r->avg) ? -1 : r->avg;
	case UI_SORT_MAX:
		return isnan(r->max) ? -1 : r->max;
	default:
		return r->sum;
	}
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct ui_row *a = pa, *b = pb;
	double x = sort_value(a), y = sort_value(b);

	if (x != y)
		return x < y ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
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
		rows[i].pct_total = exits > 0 ? 100.0 * (double)rows[i].total / exits : 0;
		rows[i].pct_time = time > 0 ? 100.0 * rows[i].sum / time : 0;
	}
}

static void header_facts(struct ui_view *v, const struct ui_live *l, const struct ui_vms *vs)
{
	size_t len = 0;

	v->events_s = l->last_dt > 0 ? (double)l->events_last / l->last_dt : 0;
	v->lost = l->lost;
	v->nvms = vs->nv;
	v->vms[0] = 0;
	for (size_t i = 0; i < vs->nv; i++) {
		const struct ui_vm *vm = &vs->v[i];

		v->nvms_dead += vm->dead;
		if (len + strlen(vm->label) + 12 >= sizeof(v->vms)) {
			snprintf(v->vms + len, sizeof(v->vms) - len, " +%zu more", vs->nv - i);
			break;
		}
		len += (size_t)snprintf(v->vms + len, sizeof(v->vms) - len, "%s%s%s",
					len ? " " : "", vm->label, vm->dead ? "(exited)" : "");
	}
}

static int choose_source(struct ui_view *v, const struct ui_live *l, const struct ui_state *st)
{
	uint64_t exits, uexits;

	ui_live_counts(l, &exits, &uexits);
	if (st->source == UI_SOURCE_EXITS)
		return UI_EXITS;
	if (st->source == UI_SOURCE_USERSPACE)
		return UI_UEXITS;
	/* kvm_exit when it fires; on hosts where it is silent, what reaches the VMM. */
	if (exits)
		return UI_EXITS;
	v->exit_silent = l->has_kvm_exit && uexits > 0;
	return UI_UEXITS;
}

void ui_model_build(struct ui_view *v, const struct ui_live *l, const struct ui_vms *vs,
		    const struct ui_state *st, const struct exit_types *types)
{
	const char *tig = intern(PAIR_TIMEINGUEST);
	struct fold f = {.st = st, .vs = vs, .tig = tig, .mode = UI_MODE_REASONS};
	struct stats_table *r, *ri, *t, *ti;
	double dt = l->last_dt;

	*v = (struct ui_view){0};
	v->src = choose_source(v, l, st);
	v->isa = v->src == UI_UEXITS ? "userspace" : l->isa;
	header_facts(v, l, vs);
	r = fold(l->total[v->src], f);
	ri = fold(l->last[v->src], f);
	make_rows(&v->rows, &v->nrows, r, ri, dt, tig, &v->guest, &v->has_guest);
	make_total(v, r, tig);
	for (size_t i = 0; i < v->nrows; i++)
		v->total.rate += v->rows[i].rate;
	v->empty = !v->nrows && !v->has_guest;
	double exits = (double)v->total.total, time = v->total.sum + v->guest.sum;

	if (st->mode == UI_MODE_REASONS && st->show_zero && !st->buckets)
		add_zero_rows(v, types, st);
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
			drill_label(&v->rows[i], vs, false);
		f.by_sub = true;
		t = fold(l->total[v->src], f);
		ti = fold(l->last[v->src], f);
		make_rows(&v->subs, &v->nsubs, t, ti, dt, tig, NULL, NULL);
		for (size_t i = 0; i < v->nsubs; i++)
			drill_label(&v->subs[i], vs, true);
		stats_table_free(t);
		stats_table_free(ti);
		/* The drill-down's total row is the reason's own row. */
		double rate = 0;
		for (size_t i = 0; i < v->nrows; i++)
			rate += v->rows[i].rate;
		v->total = (struct ui_row){.total = a ? a->count + a->untimed : 0,
					   .timed = a ? a->count : 0,
					   .sum = a ? (double)a->sum : 0,
					   .rate = rate};
		v->total.avg = a && a->count ? stats_acc_avg(a) : NAN;
		v->total.max = a && a->count ? (double)a->max : NAN;
		v->total.p99 = a && a->count ? stats_acc_quantile(a, 0.99) : NAN;
		snprintf(v->total.label, sizeof(v->total.label), "%s", st->drill);
	}
	percentages(v->rows, v->nrows, exits, time);
	percentages(v->subs, v->nsubs, exits, time);
	percentages(&v->total, 1, exits, time);
	percentages(&v->guest, 1, exits, time);
	v->guest.pct_total = 0;
	sort_rows(v->rows, v->nrows, st->sort);
	sort_rows(v->subs, v->nsubs, st->sort);
	stats_table_free(r);
	stats_table_free(ri);
}

void ui_view_free(struct ui_view *v)
{
	free(v->rows);
	free(v->subs);
	*v = (struct ui_view){0};
}

/* ------------------------------------------------------------------------ */
/* Filters */

int ui_filter_set_re(struct ui_filter *f, const char *text, char *msg, size_t len)
{
	regex_t re;
	int rc;

	if (!*text) {
		if (f->has_re)
			regfree(&f->re);
		f->has_re = false;
		f->re_text[0] = 0;
		return 0;
	}
	rc = regcomp(&re, text, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char e[128];

		regerror(rc, &re, e, sizeof(e));
		snprintf(msg, len, "'%s' is not a regular expression: %s", text, e);
		return -1;
	}
	if (f->has_re)
		regfree(&f->re);
	f->re = re;
	f->has_re = true;
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
	if (f->has_re)
		regfree(&f->re);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Anatomy tables: per row key, one accumulator per part of the split
 * intervals and one of the whole intervals, kept as stats tables so that
 * merging, rollups and quantiles are the tables' own (exact, in any order).
 * Unsplit intervals (events lost inside, the clock went back) are counted
 * as the whole table's untimed; they add to no part. The preemptors are a
 * small map of (comm, pid) -> runnable time, merged by adding.
 *
 * Views compute every number a renderer prints: per part its mean over the
 * split intervals (a zero counts), its share of the row's split time (the
 * shares of a row add up to 100), its p99; the top preemptors.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"
#include "stats.h"

static const char *const names[STATS_NPARTS] = {
    [STATS_PART_HANDLING] = "handling", [STATS_PART_RUNNABLE] = "runnable",
    [STATS_PART_BLOCKED] = "blocked",	[STATS_PART_POLLED] = "polled",
    [STATS_PART_VMM] = "vmm",		[STATS_PART_IRQ] = "irq",
    [STATS_PART_SOFTIRQ] = "softirq",
};

static const char *const abouts[STATS_NPARTS] = {
    [STATS_PART_HANDLING] = "in KVM on its CPU",
    [STATS_PART_RUNNABLE] = "runnable, another thread on its CPU",
    [STATS_PART_BLOCKED] = "asleep (a halt that slept, a lock, I/O)",
    [STATS_PART_POLLED] = "halt polling on its CPU",
    [STATS_PART_VMM] = "in the VMM (userspace exit until KVM_RUN)",
    [STATS_PART_IRQ] = "interrupt handlers on its CPU",
    [STATS_PART_SOFTIRQ] = "softirqs on its CPU",
};

const char *stats_part_name(enum stats_part p)
{
	return p < STATS_NPARTS ? names[p] : "?";
}

const char *stats_part_about(enum stats_part p)
{
	return p < STATS_NPARTS ? abouts[p] : "?";
}

enum stats_part stats_split_dominant(const struct stats_split *s)
{
	enum stats_part best = STATS_PART_HANDLING;

	for (int p = 1; s->split && p < STATS_NPARTS; p++)
		if (s->ns[p] > s->ns[best])
			best = (enum stats_part)p;
	return best;
}

/* (comm, pid) -> runnable ns, open addressing; grows at half full. */
struct who_slot {
	const char *comm;
	int32_t pid;
	uint64_t ns, n;
};

struct stats_anatomy {
	struct stats_table *whole;		/* split intervals; untimed: the unsplit ones */
	struct stats_table *part[STATS_NPARTS]; /* one sample per split interval, 0 included */
	struct stats_table *halts;		/* count: intervals with a halt; sum: those that slept */
	struct who_slot *who;
	size_t nwho, cap;
	uint64_t split, unsplit;
};

struct stats_anatomy *stats_anatomy_new(void)
{
	struct stats_anatomy *a = xcalloc(1, sizeof(*a));

	a->whole = stats_table_new();
	a->halts = stats_table_new();
	for (int p = 0; p < STATS_NPARTS; p++)
		a->part[p] = stats_table_new();
	return a;
}

void stats_anatomy_set_sub_cap(struct stats_anatomy *a, size_t max)
{
	stats_table_set_sub_cap(a->whole, max);
	stats_table_set_sub_cap(a->halts, max);
	for (int p = 0; p < STATS_NPARTS; p++)
		stats_table_set_sub_cap(a->part[p], max);
}

void stats_anatomy_free(struct stats_anatomy *a)
{
	if (!a)
		return;
	stats_table_free(a->whole);
	stats_table_free(a->halts);
	for (int p = 0; p < STATS_NPARTS; p++)
		stats_table_free(a->part[p]);
	free(a->who);
	free(a);
}

static struct who_slot *who_slot(struct who_slot *v, size_t cap, const char *comm, int32_t pid)
{
	size_t i = (((uintptr_t)comm >> 4) * 31 + (uint32_t)pid * 2654435761u) & (cap - 1);

	while (v[i].comm && (v[i].comm != comm || v[i].pid != pid))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static void who_add(struct stats_anatomy *a, const char *comm, int32_t pid, uint64_t ns,
		    uint64_t n)
{
	struct who_slot *w;

	if (2 * (a->nwho + 1) > a->cap) {
		struct who_slot *old = a->who;
		size_t ocap = a->cap;

		a->cap = a->cap ? 2 * a->cap : 64;
		a->who = xcalloc(a->cap, sizeof(*a->who));
		for (size_t i = 0; i < ocap; i++)
			if (old[i].comm)
				*who_slot(a->who, a->cap, old[i].comm, old[i].pid) = old[i];
		free(old);
	}
	w = who_slot(a->who, a->cap, comm, pid);
	if (!w->comm) {
		*w = (struct who_slot){.comm = comm, .pid = pid};
		a->nwho++;
	}
	w->ns += ns;
	w->n += n;
}

void stats_anatomy_add(struct stats_anatomy *a, const struct stats_key *k,
		       const struct stats_split *s)
{
	uint64_t total = 0;

	if (!s->split) {
		stats_table_get(a->whole, k)->untimed++;
		a->unsplit++;
		return;
	}
	for (int p = 0; p < STATS_NPARTS; p++) {
		stats_acc_add(stats_table_get(a->part[p], k), s->ns[p]);
		total += s->ns[p];
	}
	struct stats_acc *w = stats_table_get(a->whole, k);

	stats_acc_add(w, total);
	if (k->has_sub && s->sub_kind)
		w->sub_kind = s->sub_kind; /* what the sub-key is, for its label */
	a->split++;
	if (s->halts) {
		struct stats_acc *h = stats_table_get(a->halts, k);

		h->count += s->halts;
		h->sum += s->slept;
	}
	for (int i = 0; i < STATS_SPLIT_WHO && s->who[i].comm; i++)
		who_add(a, s->who[i].comm, s->who[i].pid, s->who[i].ns, i == 0);
}

void stats_anatomy_merge(struct stats_anatomy *dst, const struct stats_anatomy *src)
{
	stats_table_merge(dst->whole, src->whole);
	stats_table_merge(dst->halts, src->halts);
	for (int p = 0; p < STATS_NPARTS; p++)
		stats_table_merge(dst->part[p], src->part[p]);
	for (size_t i = 0; i < src->cap; i++)
		if (src->who[i].comm)
			who_add(dst, src->who[i].comm, src->who[i].pid, src->who[i].ns,
				src->who[i].n);
	dst->split += src->split;
	dst->unsplit += src->unsplit;
}

void stats_anatomy_clear(struct stats_anatomy *a)
{
	stats_table_clear(a->whole);
	stats_table_clear(a->halts);
	for (int p = 0; p < STATS_NPARTS; p++)
		stats_table_clear(a->part[p]);
	if (a->who)
		memset(a->who, 0, a->cap * sizeof(*a->who));
	a->nwho = 0;
	a->split = a->unsplit = 0;
}

void stats_anatomy_counts(const struct stats_anatomy *a, uint64_t *split, uint64_t *unsplit)
{
	*split = a->split;
	*unsplit = a->unsplit;
}

const struct stats_acc *stats_anatomy_acc(const struct stats_anatomy *a, const struct stats_key *k,
					  unsigned part)
{
	return stats_table_find(part < STATS_NPARTS ? a->part[part] : a->whole, k);
}

/* A new anatomy whose keys keep only the parts in `by` (STATS_BY_*), as stats_table_rollup(). */
static struct stats_anatomy *rollup(const struct stats_anatomy *a, unsigned by)
{
	struct stats_anatomy *r = xcalloc(1, sizeof(*r));

	r->whole = stats_table_rollup(a->whole, by);
	r->halts = stats_table_rollup(a->halts, by);
	for (int p = 0; p < STATS_NPARTS; p++)
		r->part[p] = stats_table_rollup(a->part[p], by);
	for (size_t i = 0; i < a->cap; i++)
		if (a->who[i].comm)
			who_add(r, a->who[i].comm, a->who[i].pid, a->who[i].ns, a->who[i].n);
	r->split = a->split;
	r->unsplit = a->unsplit;
	return r;
}

/* ---- views ---- */

struct view_build {
	struct stats_anatomy_view *v;
	const struct stats_anatomy *a;
	size_t cap;
	double unit;
};

/* A row's derived numbers, from its accumulators (acc[] set, split counted). */
static void row_finish(struct stats_anatomy_row *r, double unit)
{
	r->mean = r->split ? (double)r->sum_ns / (double)r->split / unit : 0;
	r->dominant = STATS_PART_HANDLING;
	for (int p = 0; p < STATS_NPARTS; p++) {
		struct stats_anatomy_cell *c = &r->part[p];

		c->sum = (double)c->sum_ns / unit;
		c->mean = r->split ? (double)c->sum_ns / (double)r->split / unit : 0;
		c->share = r->sum_ns ? 100.0 * (double)c->sum_ns / (double)r->sum_ns : 0;
		c->p99 = r->acc[p] && r->acc[p]->count ? stats_acc_quantile(r->acc[p], 0.99) / unit
						       : 0;
		if (c->sum_ns > r->part[r->dominant].sum_ns)
			r->dominant = (enum stats_part)p;
	}
}

static void add_view_row(const struct stats_key *k, const struct stats_acc *whole, void *arg)
{
	struct view_build *b = arg;
	struct stats_anatomy_view *v = b->v;
	const struct stats_acc *h = stats_table_find(b->a->halts, k);

	if (v->nrows == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		v->rows = xrealloc(v->rows, b->cap * sizeof(*v->rows));
	}
	struct stats_anatomy_row *r = &v->rows[v->nrows++];

	*r = (struct stats_anatomy_row){.key = *k,
					.split = whole->count,
					.unsplit = whole->untimed,
					.halts = h ? h->count : 0,
					.slept = h ? h->sum : 0,
					.sum_ns = whole->sum};
	r->acc[STATS_NPARTS] = whole;
	for (int p = 0; p < STATS_NPARTS; p++) {
		r->acc[p] = stats_table_find(b->a->part[p], k);
		r->part[p].sum_ns = r->acc[p] ? r->acc[p]->sum : 0;
	}
	row_finish(r, b->unit);
	/* the whole run's row: the sums exact, the p99 over every interval (below) */
	v->all.split += r->split;
	v->all.unsplit += r->unsplit;
	v->all.halts += r->halts;
	v->all.slept += r->slept;
	v->all.sum_ns += r->sum_ns;
	for (int p = 0; p < STATS_NPARTS; p++)
		v->all.part[p].sum_ns += r->part[p].sum_ns;
}

static enum stats_sort sort_by;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct stats_anatomy_row *a = pa, *b = pb;
	double x = 0, y = 0;
	int c;

	switch (sort_by) {
	case STATS_SORT_SUM:
		x = (double)a->sum_ns, y = (double)b->sum_ns;
		break;
	case STATS_SORT_COUNT:
		x = (double)(a->split + a->unsplit), y = (double)(b->split + b->unsplit);
		break;
	case STATS_SORT_AVG:
		x = a->mean, y = b->mean;
		break;
	case STATS_SORT_MAX:
		x = a->acc[STATS_NPARTS]->count ? (double)a->acc[STATS_NPARTS]->max : 0;
		y = b->acc[STATS_NPARTS]->count ? (double)b->acc[STATS_NPARTS]->max : 0;
		break;
	case STATS_SORT_NAME:
		break;
	}
	c = x < y ? 1 : x > y ? -1 : 0;
	if (!c)
		c = strcmp(a->key.name, b->key.name);
	if (!c)
		c = (a->key.sub > b->key.sub) - (a->key.sub < b->key.sub);
	return c;
}

static int cmp_who(const void *pa, const void *pb)
{
	const struct who_slot *a = pa, *b = pb;
	int c = (a->ns < b->ns) - (a->ns > b->ns);

	if (!c)
		c = strcmp(a->comm, b->comm);
	return c ? c : (a->pid > b->pid) - (a->pid < b->pid);
}

static void top_who(struct stats_anatomy_view *v, const struct stats_anatomy *a)
{
	struct who_slot *w = xcalloc(a->nwho + 1, sizeof(*w));
	size_t n = 0;

	for (size_t i = 0; i < a->cap; i++)
		if (a->who[i].comm)
			w[n++] = a->who[i];
	if (n > 1)
		qsort(w, n, sizeof(*w), cmp_who);
	for (size_t i = 0; i < n && v->nwho < STATS_ANATOMY_TOP_WHO; i++) {
		uint64_t all = v->all.part[STATS_PART_RUNNABLE].sum_ns;

		v->who[v->nwho++] = (struct stats_anatomy_who){
		    w[i].comm, w[i].pid, w[i].ns, w[i].n,
		    all ? 100.0 * (double)w[i].ns / (double)all : 0};
	}
	free(w);
}

/*
 * The all row: the rows' sums, and its accumulators every row's merged (its
 * p99s are over every interval), in v->total under one key.
 */
static void all_row(struct stats_anatomy_view *v, double unit_ns)
{
	struct stats_key k = {.name = intern("all"), .tid = -1, .vcpu = -1};

	v->all.key = k;
	for (size_t i = 0; i < v->nrows; i++)
		for (int p = 0; p <= STATS_NPARTS; p++) {
			struct stats_table *t = p < STATS_NPARTS ? v->total->part[p] : v->total->whole;

			if (v->rows[i].acc[p])
				stats_acc_merge(stats_table_get(t, &k), v->rows[i].acc[p]);
		}
	for (int p = 0; p <= STATS_NPARTS; p++)
		v->all.acc[p] = stats_anatomy_acc(v->total, &k, (unsigned)p);
	row_finish(&v->all, unit_ns);
}

struct stats_anatomy_view *stats_anatomy_view_new(const struct stats_anatomy *a, unsigned by,
						  double unit_ns, const char *unit,
						  enum stats_sort sort)
{
	struct stats_anatomy_view *v = xcalloc(1, sizeof(*v));
	struct stats_anatomy *r = rollup(a, by);
	struct view_build b = {v, r, 0, unit_ns};

	v->unit = unit;
	v->rolled = r;
	v->total = stats_anatomy_new();
	stats_table_foreach(r->whole, add_view_row, &b);
	all_row(v, unit_ns);
	sort_by = sort;
	if (v->nrows > 1)
		qsort(v->rows, v->nrows, sizeof(*v->rows), cmp_rows);
	top_who(v, r);
	return v;
}

void stats_anatomy_view_free(struct stats_anatomy_view *v)
{
	if (!v)
		return;
	stats_anatomy_free(v->rolled);
	stats_anatomy_free(v->total);
	free(v->rows);
	free(v);
}

const struct stats_anatomy_row *stats_anatomy_view_find(const struct stats_anatomy_view *v,
							const char *name)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].key.name == name)
			return &v->rows[i];
	return NULL;
}

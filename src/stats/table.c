// SPDX-License-Identifier: GPL-2.0
/*
 * Accumulators by key. Open addressing on (name pointer, tid, vcpu, sub):
 * names are interned, so pointer equality is string equality. A pointer
 * returned by stats_table_get() is valid until the next insertion.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stats.h"

struct slot {
	bool used;
	struct stats_key key;
	struct stats_acc acc;
};

/* Distinct sub-keys per name, for the cap: names are few (exit reasons). */
struct subcount {
	const char *name;
	size_t n;
};

struct stats_table {
	struct slot *slots;
	size_t nslots, used;
	size_t *order;	       /* slot of each row, in the order the rows were made */
	size_t sub_cap;	       /* 0: none */
	struct subcount *subs; /* open addressing on the name pointer */
	size_t nsubslots, nsubnames;
	uint64_t folded;
	uint64_t epoch; /* changes whenever accumulators move or go (stats_table_epoch()) */
};

static uint64_t key_hash(const struct stats_key *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->name * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)(uint32_t)k->tid << 32 | (uint32_t)k->vcpu) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (k->sub + k->has_sub) * 0x165667b19e3779f9ULL;
	return h ^ (h >> 29);
}

static bool key_eq(const struct stats_key *a, const struct stats_key *b)
{
	return a->name == b->name && a->tid == b->tid && a->vcpu == b->vcpu &&
	       a->has_sub == b->has_sub && a->sub == b->sub;
}

struct stats_table *stats_table_new(void)
{
	struct stats_table *t = xcalloc(1, sizeof(*t));

	t->nslots = 16;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->order = xcalloc(t->nslots / 2, sizeof(*t->order));
	return t;
}

void stats_table_free(struct stats_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i].used)
			stats_acc_free(&t->slots[i].acc);
	free(t->slots);
	free(t->order);
	free(t->subs);
	free(t);
}

static struct slot *probe(const struct stats_table *t, const struct stats_key *k)
{
	size_t mask = t->nslots - 1, i = key_hash(k) & mask;

	while (t->slots[i].used && !key_eq(&t->slots[i].key, k))
		i = (i + 1) & mask;
	return &t->slots[i];
}

static void grow(struct stats_table *t)
{
	struct slot *old = t->slots;

	t->epoch++;
	t->nslots *= 2;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	t->order = xrealloc(t->order, t->nslots / 2 * sizeof(*t->order));
	for (size_t i = 0; i < t->used; i++) {
		struct slot *s = probe(t, &old[t->order[i]].key);

		*s = old[t->order[i]];
		t->order[i] = (size_t)(s - t->slots);
	}
	free(old);
}

struct stats_acc *stats_table_find(const struct stats_table *t, const struct stats_key *key)
{
	struct slot *s = probe(t, key);

	return s->used ? &s->acc : NULL;
}

void stats_table_set_sub_cap(struct stats_table *t, size_t max)
{
	t->sub_cap = max;
}

struct sums {
	uint64_t timed, untimed, all, sum;
	bool over;
};

static void add_sums(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct sums *s = arg;

	(void)k;
	s->over |= __builtin_add_overflow(s->timed, a->count, &s->timed) ||
		   __builtin_add_overflow(s->untimed, a->untimed, &s->untimed) ||
		   __builtin_add_overflow(s->all, a->count, &s->all) ||
		   __builtin_add_overflow(s->all, a->untimed, &s->all) ||
		   __builtin_add_overflow(s->sum, a->sum, &s->sum);
}

bool stats_table_sums_fit(const struct stats_table *t)
{
	struct sums s = {0};

	stats_table_foreach(t, add_sums, &s);
	return !s.over;
}

uint64_t stats_table_folded(const struct stats_table *t)
{
	return t->folded;
}

static struct subcount *subcount_probe(struct subcount *c, size_t n, const char *name)
{
	size_t i = ((uintptr_t)name * 0x9e3779b97f4a7c15ULL >> 17) & (n - 1);

	while (c[i].name && c[i].name != name)
		i = (i + 1) & (n - 1);
	return &c[i];
}

/* The counter of name's distinct sub-keys, created at 0. */
static size_t *subcount_of(struct stats_table *t, const char *name)
{
	if (2 * (t->nsubnames + 1) > t->nsubslots) {
		struct subcount *old = t->subs;
		size_t n = t->nsubslots;

		t->nsubslots = n ? 2 * n : 16;
		t->subs = xcalloc(t->nsubslots, sizeof(*t->subs));
		for (size_t i = 0; i < n; i++)
			if (old[i].name)
				*subcount_probe(t->subs, t->nsubslots, old[i].name) = old[i];
		free(old);
	}
	struct subcount *c = subcount_probe(t->subs, t->nsubslots, name);
	if (!c->name) {
		c->name = name;
		t->nsubnames++;
	}
	return &c->n;
}

struct stats_acc *stats_table_get(struct stats_table *t, const struct stats_key *key)
{
	struct slot *s = probe(t, key);

	if (s->used)
		return &s->acc;
	/* A new sub-key past the cap goes to its name's "other" row. */
	if (t->sub_cap && key->has_sub && key->sub != STATS_SUB_OTHER) {
		size_t *n = subcount_of(t, key->name);

		if (*n >= t->sub_cap) {
			struct stats_key other = *key;

			other.sub = STATS_SUB_OTHER;
			t->folded++;
			return stats_table_get(t, &other);
		}
		++*n;
	}
	if (2 * (t->used + 1) > t->nslots) {
		grow(t);
		s = probe(t, key);
	}
	s->used = true;
	s->key = *key;
	stats_acc_init(&s->acc);
	t->order[t->used++] = (size_t)(s - t->slots);
	return &s->acc;
}

/* Keeps the slots: an interval table is refilled with about the same keys. */
void stats_table_clear(struct stats_table *t)
{
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i].used)
			stats_acc_free(&t->slots[i].acc);
	t->epoch++;
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->used = 0;
	if (t->subs)
		memset(t->subs, 0, t->nsubslots * sizeof(*t->subs));
	t->nsubnames = 0;
	t->folded = 0;
}

const uint64_t *stats_table_epoch(const struct stats_table *t)
{
	return &t->epoch;
}

size_t stats_table_size(const struct stats_table *t)
{
	return t->used;
}

/*
 * In the order the rows were made, not slot order: slots follow the names'
 * addresses, which address-space randomisation changes from run to run, and
 * what callers compute over the rows (a float total, merged variances)
 * depends on the order they come in. The order rows are made in follows the
 * input, so it is the same in every run.
 */
void stats_table_foreach(const struct stats_table *t,
			 void (*fn)(const struct stats_key *k, const struct stats_acc *a,
				    void *arg),
			 void *arg)
{
	for (size_t i = 0; i < t->used; i++) {
		const struct slot *s = &t->slots[t->order[i]];

		fn(&s->key, &s->acc, arg);
	}
}

struct fold {
	struct stats_table *dst;
	unsigned by;
};

static void fold_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct fold *f = arg;
	struct stats_key nk = {.name = k->name, .tid = -1, .vcpu = -1};

	if (f->by & STATS_BY_TID)
		nk.tid = k->tid;
	if (f->by & STATS_BY_VCPU)
		nk.vcpu = k->vcpu;
	if (f->by & STATS_BY_SUB) {
		nk.sub = k->sub;
		nk.has_sub = k->has_sub;
	}
	stats_acc_merge(stats_table_get(f->dst, &nk), a);
}

void stats_table_merge(struct stats_table *dst, const struct stats_table *src)
{
	struct fold f = {dst, STATS_BY_TID | STATS_BY_VCPU | STATS_BY_SUB};

	stats_table_foreach(src, fold_one, &f);
}

struct stats_table *stats_table_rollup(const struct stats_table *t, unsigned by)
{
	struct fold f = {stats_table_new(), by};

	stats_table_foreach(t, fold_one, &f);
	return f.dst;
}

struct split {
	struct stats_group *g;
	size_t n;
};

static void split_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct split *s = arg;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->g[i].tid == k->tid && s->g[i].vcpu == k->vcpu)
			break;
	if (i == s->n) {
		s->g = xrealloc(s->g, (s->n + 1) * sizeof(*s->g));
		s->g[s->n++] = (struct stats_group){k->tid, k->vcpu, stats_table_new()};
	}
	struct stats_key nk = {.name = k->name, .tid = -1, .vcpu = -1};
	stats_acc_merge(stats_table_get(s->g[i].t, &nk), a);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct stats_group *a = pa, *b = pb;

	if (a->vcpu != b->vcpu)
		return (a->vcpu > b->vcpu) - (a->vcpu < b->vcpu);
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Linear search per row: O(rows x groups), and groups are vCPU threads (tens). */
size_t stats_table_split(const struct stats_table *t, struct stats_group **groups)
{
	struct split s = {NULL, 0};

	stats_table_foreach(t, split_one, &s);
	if (s.n)
		qsort(s.g, s.n, sizeof(*s.g), cmp_group);
	*groups = s.g;
	return s.n;
}

void stats_groups_free(struct stats_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stats_table_free(g[i].t);
	free(g);
}

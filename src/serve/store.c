// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's state: per label set (pid, vm, source, reason[, vcpu]) a
 * counter of exits and a histogram of handling time on fixed bounds, and
 * per (pid, vm, source[, vcpu]) one of time in guest. Only ever added to, so
 * every counter is monotonic for the life of the process, except that a
 * VM's rows are dropped once it has been gone for `keep` seconds (a scrape
 * every few minutes still sees its last counts; Prometheus then marks the
 * series stale).
 *
 * Bounded: at most max_rows label sets. A new label set past the cap is
 * counted in one overflow row per source (pid="other", reason="OTHER"),
 * and kvm_exitstat_capped_exits_total says how many exits went there.
 * Sub-keys (ports, addresses) are never labels.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"
#include "serve-local.h"

const uint64_t serve_le_ns[SERVE_NLE] = {
    125,     250,      500,	 1000,	   2000,      4000,	 8000,	    16000,
    32000,   64000,    128000,	 256000,   512000,    1024000,	 2048000,   4096000,
    8192000, 16384000, 32768000, 65536000, 131072000, 262144000, 524288000, 1048576000,
};

/* --in-kernel: the kernel's .log2 buckets, 2^7 .. 2^30 ns: each holds (le/2, le] */
const uint64_t serve_le_log2_ns[SERVE_NLE] = {
    1ull << 7,	1ull << 8,  1ull << 9,	1ull << 10, 1ull << 11, 1ull << 12, 1ull << 13, 1ull << 14,
    1ull << 15, 1ull << 16, 1ull << 17, 1ull << 18, 1ull << 19, 1ull << 20, 1ull << 21, 1ull << 22,
    1ull << 23, 1ull << 24, 1ull << 25, 1ull << 26, 1ull << 27, 1ull << 28, 1ull << 29, 1ull << 30,
};

struct vm_state {
	int32_t pid;
	double gone_at; /* 0: running */
};

struct serve_store {
	struct serve_series **slot; /* open addressing on the key */
	size_t nslots, used;
	struct serve_series **sorted;
	bool dirty; /* sorted is stale */
	size_t max_rows;
	bool per_vcpu;
	struct vm_state *vms;
	size_t nvms, cvms;
	uint64_t capped;
	const char *other_vm, *other_reason;
	const uint64_t *le; /* the histograms' bounds: serve_le_ns unless set */
};

static uint64_t key_hash(const struct serve_key *k)
{
	uint64_t h = ((uint64_t)(uintptr_t)k->reason ^ (uint64_t)(uintptr_t)k->func << 7) *
		     0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)(uint32_t)k->pid << 32 | (uint32_t)k->vcpu) * 0xc2b2ae3d27d4eb4fULL;
	h ^= ((uint64_t)(uint32_t)k->tid << 16 | k->source << 1 | k->guest) * 0x165667b19e3779f9ULL;
	return h ^ (h >> 29);
}

static bool key_eq(const struct serve_key *a, const struct serve_key *b)
{
	return a->pid == b->pid && a->vcpu == b->vcpu && a->tid == b->tid &&
	       a->source == b->source && a->guest == b->guest && a->reason == b->reason &&
	       a->func == b->func;
}

struct serve_store *serve_store_new(size_t max_rows, bool per_vcpu)
{
	struct serve_store *s = xcalloc(1, sizeof(*s));

	s->nslots = 64;
	s->slot = xcalloc(s->nslots, sizeof(*s->slot));
	s->max_rows = max_rows;
	s->per_vcpu = per_vcpu;
	s->other_vm = intern("other");
	s->other_reason = intern("OTHER");
	s->le = serve_le_ns;
	return s;
}

void serve_store_set_bounds(struct serve_store *s, const uint64_t *le_ns)
{
	s->le = le_ns;
}

const uint64_t *serve_store_bounds(const struct serve_store *s)
{
	return s->le;
}

void serve_store_free(struct serve_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nslots; i++)
		free(s->slot[i]);
	free(s->slot);
	free(s->sorted);
	free(s->vms);
	free(s);
}

static struct serve_series **probe(struct serve_series **slot, size_t n, const struct serve_key *k)
{
	size_t mask = n - 1, i = key_hash(k) & mask;

	while (slot[i] && !key_eq(&slot[i]->k, k))
		i = (i + 1) & mask;
	return &slot[i];
}

static void rehash(struct serve_store *s, size_t nslots)
{
	struct serve_series **old = s->slot;
	size_t n = s->nslots;

	s->slot = xcalloc(nslots, sizeof(*s->slot));
	s->nslots = nslots;
	for (size_t i = 0; i < n; i++)
		if (old[i])
			*probe(s->slot, s->nslots, &old[i]->k) = old[i];
	free(old);
}

static void note_vm(struct serve_store *s, int32_t pid)
{
	for (size_t i = 0; i < s->nvms; i++)
		if (s->vms[i].pid == pid)
			return;
	if (s->nvms == s->cvms) {
		s->cvms = s->cvms ? 2 * s->cvms : 16;
		s->vms = xrealloc(s->vms, s->cvms * sizeof(*s->vms));
	}
	s->vms[s->nvms++] = (struct vm_state){.pid = pid};
}

static struct serve_series *get(struct serve_store *s, const struct serve_key *k, const char *vm)
{
	struct serve_series **p = probe(s->slot, s->nslots, k);

	if (*p)
		return *p;
	if (2 * (s->used + 1) > s->nslots) {
		rehash(s, 2 * s->nslots);
		p = probe(s->slot, s->nslots, k);
	}
	*p = xcalloc(1, sizeof(**p));
	(*p)->k = *k;
	(*p)->vm = vm;
	s->used++;
	s->dirty = true;
	if (k->pid > 0)
		note_vm(s, k->pid);
	return *p;
}

static void add_times(const struct serve_store *s, struct serve_series *se,
		      const struct stats_acc *a)
{
	se->timed += a->count;
	se->sum_ns += a->sum;
	/* Summary-only rows have no histogram; live rows always do. */
	stats_acc_fold(a, s->le, SERVE_NLE, se->bucket);
}

void serve_store_add(struct serve_store *s, const struct serve_row *r)
{
	struct serve_key k = {.pid = r->pid,
			      .vcpu = -1,
			      .tid = 0,
			      .source = (uint8_t)r->source,
			      .guest = r->guest,
			      .reason = r->guest ? NULL : r->reason,
			      .func = r->guest ? NULL : r->func};
	const char *vm = r->vm;
	struct serve_series *se;

	if (s->per_vcpu) {
		k.vcpu = r->vcpu;
		k.tid = r->vcpu < 0 ? r->tid : 0;
	}
	/* A new label set past the cap: the overflow row (existing ones go on counting). */
	if (!*probe(s->slot, s->nslots, &k) && s->used >= s->max_rows) {
		k = (struct serve_key){.pid = -2,
				       .vcpu = -1,
				       .source = (uint8_t)r->source,
				       .guest = r->guest,
				       .reason = r->guest ? NULL : s->other_reason};
		vm = s->other_vm;
		if (!r->guest)
			s->capped += r->acc->count + r->acc->untimed;
	}
	se = get(s, &k, vm);
	if (!r->guest)
		se->exits += r->acc->count + r->acc->untimed;
	add_times(s, se, r->acc);
	if (r->has_parts) {
		se->has_parts = true;
		for (int p = 0; p < STATS_NPARTS; p++)
			se->part_ns[p] += r->part_ns[p];
	}
}

void serve_store_retire(struct serve_store *s, double now, double keep,
			bool (*gone)(void *arg, int32_t pid), void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nvms; i++) {
		struct vm_state *v = &s->vms[i];

		if (!v->gone_at && gone(arg, v->pid))
			v->gone_at = now;
		if (!v->gone_at || now - v->gone_at < keep) {
			s->vms[n++] = *v;
			continue;
		}
		for (size_t j = 0; j < s->nslots; j++) {
			if (s->slot[j] && s->slot[j]->k.pid == v->pid) {
				free(s->slot[j]);
				s->slot[j] = NULL;
				s->used--;
				s->dirty = true;
			}
		}
		rehash(s, s->nslots); /* the probe chains had holes */
	}
	s->nvms = n;
}

static int cmp_i32(int32_t a, int32_t b)
{
	return (a > b) - (a < b);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct serve_series *a = *(const struct serve_series *const *)pa;
	const struct serve_series *b = *(const struct serve_series *const *)pb;
	int c = cmp_i32(a->k.pid, b->k.pid);

	if (!c)
		c = cmp_i32(a->k.source, b->k.source);
	if (!c)
		c = cmp_i32(a->k.guest, b->k.guest);
	if (!c && a->k.reason != b->k.reason)
		c = strcmp(a->k.reason ? a->k.reason : "", b->k.reason ? b->k.reason : "");
	if (!c && a->k.func != b->k.func)
		c = strcmp(a->k.func ? a->k.func : "", b->k.func ? b->k.func : "");
	if (!c)
		c = cmp_i32(a->k.vcpu, b->k.vcpu);
	if (!c)
		c = cmp_i32(a->k.tid, b->k.tid);
	return c;
}

size_t serve_store_rows(struct serve_store *s, const struct serve_series *const **rows)
{
	if (s->dirty || !s->sorted) {
		size_t n = 0;

		free(s->sorted);
		s->sorted = xcalloc(s->used + 1, sizeof(*s->sorted));
		for (size_t i = 0; i < s->nslots; i++)
			if (s->slot[i])
				s->sorted[n++] = s->slot[i];
		if (n > 1)
			qsort(s->sorted, n, sizeof(*s->sorted), cmp_rows);
		s->dirty = false;
	}
	*rows = (const struct serve_series *const *)s->sorted;
	return s->used;
}

uint64_t serve_store_capped(const struct serve_store *s)
{
	return s->capped;
}

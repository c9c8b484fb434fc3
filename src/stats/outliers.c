// SPDX-License-Identifier: GPL-2.0
/*
 * Single exits, whole. The `keep` slowest: a min-heap whose root is the
 * fastest kept, the one a slower exit replaces, so nearly every exit of a
 * run of millions costs one comparison with the root and O(log keep) only
 * when it enters. Over a threshold: a ring of the latest `keep`, for a live
 * view (top --slower-than) that shows them as they come.
 *
 * The order is total (time, then timestamp, tid, vcpu, name), so which
 * exits are kept does not depend on the order they were fed in: two inputs
 * loaded into one collector, or apart and merged, keep the same ones.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stats.h"

struct stats_outliers {
	struct stats_outlier *v;
	size_t n, cap;
	uint64_t min_ns;
	size_t next; /* threshold mode: the ring's oldest slot once full */
	uint64_t seen;
};

struct stats_outliers *stats_outliers_new(size_t keep, uint64_t min_ns)
{
	struct stats_outliers *o = xcalloc(1, sizeof(*o));

	o->cap = keep ? keep : 1;
	o->min_ns = min_ns;
	o->v = xcalloc(o->cap, sizeof(*o->v));
	return o;
}

struct stats_outliers *stats_outliers_new_like(const struct stats_outliers *o)
{
	return stats_outliers_new(o->cap, o->min_ns);
}

void stats_outliers_free(struct stats_outliers *o)
{
	if (!o)
		return;
	free(o->v);
	free(o);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* Everything but the time: earlier first, then tid, vcpu, name. */
static int cmp_when(const struct stats_outlier *a, const struct stats_outlier *b)
{
	int c = a->ts != b->ts ? (a->ts > b->ts) - (a->ts < b->ts) : 0;

	if (!c)
		c = cmp_i64(a->tid, b->tid);
	if (!c)
		c = cmp_i64(a->vcpu, b->vcpu);
	if (!c && a->name != b->name)
		c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
	return c;
}

/* < 0 when a ranks before b: slower, or as slow and earlier (and so on). */
static int cmp_rank(const struct stats_outlier *a, const struct stats_outlier *b)
{
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return cmp_when(a, b);
}

/* The heap's order: the root is the one that ranks last. */
static bool heap_less(const struct stats_outlier *a, const struct stats_outlier *b)
{
	return cmp_rank(a, b) > 0;
}

static void swap(struct stats_outlier *a, struct stats_outlier *b)
{
	struct stats_outlier t = *a;

	*a = *b;
	*b = t;
}

static void sift_up(struct stats_outlier *v, size_t i)
{
	while (i && heap_less(&v[i], &v[(i - 1) / 2])) {
		swap(&v[i], &v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct stats_outlier *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && heap_less(&v[l], &v[m]))
			m = l;
		if (r < n && heap_less(&v[r], &v[m]))
			m = r;
		if (m == i)
			return;
		swap(&v[i], &v[m]);
		i = m;
	}
}

static void ring_add(struct stats_outliers *o, const struct stats_outlier *s)
{
	/* perf kvm stat live --duration skips halts too: there the guest idles, nothing is slow */
	if (s->ns <= o->min_ns || s->halt)
		return;
	o->seen++;
	o->v[o->next] = *s;
	o->next = (o->next + 1) % o->cap;
	if (o->n < o->cap)
		o->n++;
}

void stats_outliers_add(struct stats_outliers *o, const struct stats_outlier *s)
{
	if (o->min_ns) {
		ring_add(o, s);
		return;
	}
	o->seen++;
	if (o->n < o->cap) {
		o->v[o->n] = *s;
		sift_up(o->v, o->n++);
	} else if (heap_less(&o->v[0], s)) {
		o->v[0] = *s;
		sift_down(o->v, o->n, 0);
	}
}

static int qcmp_rank(const void *a, const void *b)
{
	return cmp_rank(a, b);
}

static int qcmp_when(const void *a, const void *b)
{
	return cmp_when(a, b);
}

/*
 * Threshold mode: the latest of both, in time order. Adding src's to dst's
 * ring would keep src's latest over dst's, whichever came later.
 */
static void merge_latest(struct stats_outliers *dst, const struct stats_outliers *src)
{
	struct stats_outlier *v = xcalloc(dst->n + src->n + 1, sizeof(*v));
	size_t n = dst->n + src->n, from;

	memcpy(v, dst->v, dst->n * sizeof(*v));
	memcpy(v + dst->n, src->v, src->n * sizeof(*v));
	qsort(v, n, sizeof(*v), qcmp_when);
	from = n > dst->cap ? n - dst->cap : 0;
	dst->n = n - from;
	memcpy(dst->v, v + from, dst->n * sizeof(*v));
	dst->next = dst->n % dst->cap;
	free(v);
}

void stats_outliers_merge(struct stats_outliers *dst, const struct stats_outliers *src)
{
	uint64_t seen = dst->seen + src->seen;
	struct stats_outlier *v;
	size_t n;

	if (dst->min_ns) {
		merge_latest(dst, src);
		dst->seen = seen;
		return;
	}
	n = stats_outliers_sorted(src, &v);
	for (size_t i = 0; i < n; i++)
		stats_outliers_add(dst, &v[i]);
	free(v);
	dst->seen = seen;
}

void stats_outliers_clear(struct stats_outliers *o)
{
	o->n = o->next = 0;
	o->seen = 0;
}

uint64_t stats_outliers_seen(const struct stats_outliers *o)
{
	return o->seen;
}

size_t stats_outliers_sorted(const struct stats_outliers *o, struct stats_outlier **out)
{
	*out = xcalloc(o->n ? o->n : 1, sizeof(**out));
	memcpy(*out, o->v, o->n * sizeof(**out));
	if (o->n > 1)
		qsort(*out, o->n, sizeof(**out), o->min_ns ? qcmp_when : qcmp_rank);
	return o->n;
}

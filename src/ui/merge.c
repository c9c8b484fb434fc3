// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU raw pages -> one event stream in timestamp order.
 *
 * Why: pairing is per thread, and a vCPU thread migrates. Its exit can sit
 * on CPU 0's page and its entry on CPU 1's; handed out CPU by CPU, the
 * entry could come first, the pair would see time go backwards and drop
 * the events. The live loop drains every CPU (partial pages included) at
 * each wake-up, so whatever is queued is everything up to about "now" and a
 * k-way merge of the queues is in order. A heap keeps the merge O(log CPUs)
 * per event on large hosts; with two CPUs it costs next to nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include "common.h"
#include "ui-local.h"

struct cpuq {
	unsigned char *pages; /* n pages of page_size bytes */
	size_t n, cap;
	size_t next; /* next page to load */
	struct kbuffer *kb;
	void *ev; /* current event; NULL: the queue is done */
	unsigned long long ts;
	long long missed; /* loss before the current event: 0, -1 (unknown) or a count */
};

struct ui_merge {
	int ncpus;
	size_t page_size;
	struct cpuq *q;
	int *heap; /* CPUs with an event, min-heap on ts */
	size_t nheap;
};

static struct kbuffer *kbuffer_for(struct tep_handle *tep)
{
	int lsize = tep_get_long_size(tep);

	/* The commit field of the page header is a kernel long. */
	if (!lsize)
		lsize = tep_get_header_page_size(tep);
	if (!lsize)
		lsize = (int)sizeof(long);
	return kbuffer_alloc(lsize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			     tep_is_file_bigendian(tep) ? KBUFFER_ENDIAN_BIG
							: KBUFFER_ENDIAN_LITTLE);
}

struct ui_merge *ui_merge_new(struct tep_handle *tep, int ncpus, size_t page_size)
{
	struct ui_merge *m = xcalloc(1, sizeof(*m));

	m->ncpus = ncpus;
	m->page_size = page_size;
	m->q = xcalloc((size_t)ncpus, sizeof(*m->q));
	m->heap = xcalloc((size_t)ncpus, sizeof(*m->heap));
	for (int i = 0; i < ncpus; i++) {
		m->q[i].kb = kbuffer_for(tep);
		if (!m->q[i].kb) {
			ui_merge_free(m);
			return NULL;
		}
	}
	return m;
}

void ui_merge_free(struct ui_merge *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->ncpus; i++) {
		if (m->q[i].kb)
			kbuffer_free(m->q[i].kb);
		free(m->q[i].pages);
	}
	free(m->q);
	free(m->heap);
	free(m);
}

int ui_merge_add(struct ui_merge *m, int cpu, const void *page, size_t len)
{
	struct cpuq *q;

	if (cpu < 0 || cpu >= m->ncpus || len > m->page_size)
		return -1;
	q = &m->q[cpu];
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 16;
		q->pages = xrealloc(q->pages, q->cap * m->page_size);
	}
	unsigned char *dst = q->pages + q->n++ * m->page_size;
	memcpy(dst, page, len);
	memset(dst + len, 0, m->page_size - len);
	return 0;
}

static void add_missed(long long *acc, int missed)
{
	if (missed < 0 || *acc < 0)
		*acc = -1;
	else
		*acc += missed;
}

/* Moves q to its next event, loading pages as needed; q->ev NULL at the end. */
static void advance(struct ui_merge *m, struct cpuq *q, bool first)
{
	q->ev = first ? NULL : kbuffer_next_event(q->kb, &q->ts);
	while (!q->ev && q->next < q->n) {
		if (kbuffer_load_subbuffer(q->kb, q->pages + q->next++ * m->page_size) < 0)
			continue;
		add_missed(&q->missed, kbuffer_missed_events(q->kb));
		q->ev = kbuffer_read_event(q->kb, &q->ts);
	}
}

static bool before(const struct ui_merge *m, int a, int b)
{
	return m->q[a].ts < m->q[b].ts || (m->q[a].ts == m->q[b].ts && a < b);
}

static void sift_down(struct ui_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->nheap && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nheap && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		int t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

static void build_heap(struct ui_merge *m)
{
	m->nheap = 0;
	for (int i = 0; i < m->ncpus; i++) {
		struct cpuq *q = &m->q[i];

		q->next = 0;
		q->missed = 0;
		if (!q->n)
			continue;
		advance(m, q, true);
		if (q->ev)
			m->heap[m->nheap++] = i;
	}
	for (size_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
}

void ui_merge_run(struct ui_merge *m, source_record_fn fn, void *arg)
{
	build_heap(m);
	while (m->nheap) {
		int cpu = m->heap[0];
		struct cpuq *q = &m->q[cpu];

		fn(arg, q->ev, kbuffer_event_size(q->kb), q->ts, cpu, q->missed);
		q->missed = 0;
		advance(m, q, false);
		if (!q->ev)
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
	}
	for (int i = 0; i < m->ncpus; i++) {
		/* A loss flagged on a page with no event after it: say it all the same. */
		if (m->q[i].missed)
			fn(arg, NULL, 0, 0, i, m->q[i].missed);
		m->q[i].n = 0;
	}
}

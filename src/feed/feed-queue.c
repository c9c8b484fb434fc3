// SPDX-License-Identifier: GPL-2.0
/*
 * A lane of copied pages: what the live collector hands out is copied into
 * the CPU's queue (the collector reuses its buffer), and the feed takes the
 * pages in order. Memory is the pages of one poll, reused from poll to poll.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "feed.h"

struct feed_queue {
	struct ring_lane lane; /* first: the feed hands it back to next() */
	size_t page_size;
	unsigned char *pages; /* n pages of page_size bytes */
	size_t n, cap, next;
};

static int next(struct ring_lane *l, const void **page, size_t *len, uint64_t *pos, char *e,
		size_t n)
{
	struct feed_queue *q = (struct feed_queue *)l;

	(void)e;
	(void)n;
	if (q->next == q->n) {
		/* all taken: the feed is done with the last one, the memory is free again */
		q->n = q->next = 0;
		return 0;
	}
	*page = q->pages + q->next++ * q->page_size;
	*len = q->page_size;
	*pos = 0;
	return 1;
}

struct feed_queue *feed_queue_new(int cpu, int long_size, size_t page_size)
{
	struct feed_queue *q = xcalloc(1, sizeof(*q));

	q->lane = (struct ring_lane){.cpu = cpu, .long_size = long_size, .next = next};
	q->page_size = page_size;
	return q;
}

int feed_queue_add(struct feed_queue *q, const void *page, size_t len)
{
	unsigned char *dst;

	if (len > q->page_size)
		return -1;
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 16;
		q->pages = xrealloc(q->pages, q->cap * q->page_size);
	}
	dst = q->pages + q->n++ * q->page_size;
	memcpy(dst, page, len);
	memset(dst + len, 0, q->page_size - len);
	return 0;
}

struct ring_lane *feed_queue_lane(struct feed_queue *q)
{
	return &q->lane;
}

void feed_queue_free(struct feed_queue *q)
{
	if (!q)
		return;
	free(q->pages);
	free(q);
}

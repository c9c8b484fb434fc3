// SPDX-License-Identifier: GPL-2.0
/*
 * The ring-buffer page encoder of the test fixtures: events laid out in the
 * kernel's page format (header_page: u64 timestamp, a long commit, records
 * with 5-bit type_len and 27-bit time deltas, TIME_EXTEND for larger gaps),
 * so that kbuffer, libtracecmd and our walker read them back. Only tests
 * write pages; the tool reads them.
 */
#include <string.h>
#include "fixture.h"
#include "ring.h"

/* What a page holds, as the tool's walker reads it: the tests' count. */
int ringenc_count(const void *page, size_t len, int long_size, struct ring_info *info)
{
	struct ring_cur c;
	struct ring_rec r;
	int ret;

	memset(info, 0, sizeof(*info));
	if (ring_open(&c, page, len, long_size))
		return -1;
	ring_info_start(&c, info);
	while ((ret = ring_next(&c, &r)) > 0)
		info->events++;
	return ret;
}

void ringenc_init(struct ringenc *e, void *page, size_t page_size, int long_size)
{
	memset(page, 0, page_size);
	e->page = page;
	e->page_size = page_size;
	e->long_size = long_size;
	e->used = 0;
	e->last_ts = 0;
}

static void put4(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void set_commit(struct ringenc *e)
{
	uint64_t v8 = e->used;
	uint32_t v4 = (uint32_t)e->used;

	if (e->long_size == 8)
		memcpy(e->page + 8, &v8, 8);
	else
		memcpy(e->page + 8, &v4, 4);
}

int ringenc_add(struct ringenc *e, uint64_t ts, const void *data, size_t len)
{
	size_t hdr = 8 + (size_t)e->long_size, room = e->page_size - hdr;
	size_t dlen = (len + 3) & ~(size_t)3;
	size_t need = (dlen && dlen <= 28 * 4 ? 4 : 8) + dlen;
	unsigned char *p;
	uint64_t delta;

	if (need + 8 > room)
		return -1; /* never fits, even alone on a page */
	if (!e->used) {
		memcpy(e->page, &ts, 8); /* the page's base time: first delta is 0 */
		e->last_ts = ts;
	}
	if (ts < e->last_ts)
		return -1;
	delta = ts - e->last_ts;
	if (delta >> 27)
		need += 8; /* a TIME_EXTEND record goes first */
	if (e->used + need > room)
		return 1;
	p = e->page + hdr + e->used;
	if (delta >> 27) {
		put4(p, RING_TIME_EXTEND | (uint32_t)((delta & ((1u << 27) - 1)) << 5));
		put4(p + 4, (uint32_t)(delta >> 27));
		p += 8;
		delta = 0;
	}
	if (dlen && dlen <= 28 * 4) {
		put4(p, (uint32_t)(dlen / 4) | (uint32_t)(delta << 5));
		p += 4;
	} else {
		/* type_len 0: array[0] holds the length, itself included */
		put4(p, (uint32_t)(delta << 5));
		put4(p + 4, (uint32_t)(dlen + 4));
		p += 8;
	}
	memset(p, 0, dlen);
	memcpy(p, data, len);
	e->used = (size_t)(p + dlen - (e->page + hdr));
	e->last_ts = ts;
	set_commit(e);
	return 0;
}

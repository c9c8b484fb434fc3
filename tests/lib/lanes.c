// SPDX-License-Identifier: GPL-2.0
/* The records of lanes one by one, libtracecmd's way (lanes.h). */
#include <stdio.h>
#include <stdlib.h>
#include "alloc.h"
#include "lanes.h"

struct head {
	struct ring_lane *l;
	struct ring_cur cur;
	struct ring_rec rec;
	uint64_t pos;
	int state; /* 1 rec holds the next record, 0 the lane is done */
};

/* The lane's next record: 1, 0 at its end, -1 with e set. */
static int next(struct head *h, char *e, size_t elen)
{
	for (;;) {
		const void *page;
		size_t len;
		int r;

		if (h->cur.data && (r = ring_next(&h->cur, &h->rec)) != 0) {
			if (r > 0)
				return 1;
			break;
		}
		r = h->l->next(h->l, &page, &len, &h->pos, e, elen);
		if (r <= 0)
			return r;
		if (ring_open(&h->cur, page, len, h->l->long_size) < 0)
			break;
	}
	snprintf(e, elen, "corrupt ring-buffer page at file offset %llu (cpu %d)",
		 (unsigned long long)h->pos, h->l->cpu);
	return -1;
}

int lanes_iterate(struct ring_lane **lanes, size_t n, tracedat_record_fn fn, void *arg,
		  char *errbuf, size_t errlen)
{
	struct head *h = xcalloc(n + 1, sizeof(*h));
	int ret = 0;

	for (size_t i = 0; i < n && ret >= 0; i++) {
		h[i].l = lanes[i];
		ret = h[i].state = next(&h[i], errbuf, errlen);
	}
	while (ret >= 0) {
		struct head *min = NULL;

		for (size_t i = 0; i < n; i++)
			if (h[i].state > 0 && (!min || h[i].rec.ts < min->rec.ts))
				min = &h[i];
		if (!min) {
			ret = 0;
			break;
		}
		if (fn(arg, min->rec.data, (int)min->rec.size, min->rec.ts, min->l->cpu,
		       min->rec.missed))
			break;
		ret = min->state = next(min, errbuf, errlen);
	}
	free(h);
	return ret < 0 ? -1 : 0;
}

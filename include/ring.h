/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring/: the kernel's ring-buffer page format (events/header_page: u64
 * timestamp, a kernel long "commit" with flag bits, then records) and the
 * per-CPU stats text beside it. Every source of pages reads it: trace.dat
 * files, the live collector, and the writer that counts what it stored.
 */
#ifndef KES_RING_H
#define KES_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * From a header_page text: the sub-buffer (page) size and the kernel long
 * size (the size of the commit field). Returns 0 or -1.
 */
int ring_header_parse(const char *text, size_t len, size_t *page_size, int *long_size);

struct ring_info {
	uint64_t events;   /* data events */
	uint64_t missed;   /* events the kernel says were lost before this page */
	bool missed_known; /* the page flagged a loss and stored its count */
	bool flagged;	   /* the page flagged a loss */
};

/*
 * One CPU's pages, in order: what a trace.dat reader and the live collector
 * hand the feed (feed.h). Embedded in the provider's own state.
 */
struct ring_lane {
	int cpu;
	int long_size; /* of the page header's commit field: 4 or 8 */
	/*
	 * The next page: 1 with *page, *len and *pos (its file offset, for
	 * errors; 0 live) set, valid until the next call; 0 when there is none:
	 * no more (a file), none now (live); -1 with errbuf set.
	 */
	int (*next)(struct ring_lane *l, const void **page, size_t *len, uint64_t *pos,
		    char *errbuf, size_t errlen);
};

/* ------------------------------------------------------------------------ */
/* Per-CPU stats text ("overrun: N", "dropped events: N", ...). */

/* overrun + dropped events in one stats text. */
uint64_t ring_stats_lost(const char *text);
/* Value of "key: N" in a stats text; -1 when absent. */
int ring_stats_field(const char *text, const char *key, uint64_t *val);

/* ------------------------------------------------------------------------ */
/*
 * The ring-buffer page walker: one raw page (header_page layout: u64
 * timestamp, a kernel long "commit" with flag bits, then records), read with
 * exactly the rules of libtraceevent's kbuffer-parse.c, so that a reader
 * built on it hands out the same records, timestamps and loss counts as
 * libtracecmd. Host byte order only (the callers check the file's).
 * Its common case is inline because the trace.dat fast path calls it once per event.
 */
#define RING_MISSING_EVENTS (1ULL << 31)
#define RING_MISSING_STORED (1ULL << 30)
#define RING_COMMIT_MASK    ((1ULL << 27) - 1)
/* An absolute TIME_STAMP lacks the top 5 bits: kbuffer takes them from the running time. */
#define RING_TS_MSB (0xf8ULL << 56)

enum { RING_PADDING = 29, RING_TIME_EXTEND = 30, RING_TIME_STAMP = 31 };

struct ring_cur {
	const unsigned char *data; /* first record (page + header) */
	uint32_t size;		   /* bytes of records (the commit) */
	uint32_t off;		   /* next record, from data */
	uint64_t ts;		   /* time of the record last read */
	/*
	 * The page's loss flag as kbuffer reports it: 0, the stored count,
	 * or -1 (flagged, no room for a count).
	 */
	long long missed;
	bool flagged; /* the page flagged a loss (ring_info's view) */
};

/* One data record. missed: as libtracecmd's record->missed_events. */
struct ring_rec {
	const void *data;
	uint32_t size;
	uint64_t ts;
	long long missed;
};

/*
 * Starts a cursor on a page of len bytes. Returns 0, or -1 when the header
 * is malformed (commit larger than the page, bad long size).
 */
int ring_open(struct ring_cur *c, const void *page, size_t len, int long_size);
/* What an opened page's header says (info->events: 0, for the caller's walk to count). */
void ring_info_start(const struct ring_cur *c, struct ring_info *info);

static inline uint32_t ring_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The next data record, the whole way (ring_next()'s slow path, every record
 * kind). Returns 1 (r filled), 0 at the end of the page, or -1 when a record
 * runs past the commit (corrupt page). Like kbuffer: a padding record's
 * delta counts, TIME_EXTEND adds, TIME_STAMP sets, and only a data record
 * that starts the page carries the page's loss count.
 */
int ring_next_slow(struct ring_cur *c, struct ring_rec *r);

/* Always inline: gcc left ring_next() out of line in tracedat-fast.c, a call per record. */
#define RING_INLINE static inline __attribute__((always_inline))

/*
 * The next data record, as ring_next_slow(). Inline for the common case (a
 * small data record that fits: one load, one compare, a few adds), as the
 * page sources call it once per event; everything else goes the whole way.
 */
RING_INLINE int ring_next(struct ring_cur *c, struct ring_rec *r)
{
	/* off <= size always (every step is checked against the room left): one compare */
	uint32_t room = c->size - c->off;

	if (room >= 4) {
		const unsigned char *p = c->data + c->off;
		uint32_t h = ring_u32(p), tl = h & 31;

		if (tl - 1 < 28 && 4 + tl * 4 <= room) {
			c->ts += h >> 5;
			*r = (struct ring_rec){p + 4, tl * 4, c->ts, c->off ? 0 : c->missed};
			c->off += 4 + tl * 4;
			return 1;
		}
	}
	/*
	 * Through copies: the caller's cursor and record then never have their
	 * address taken, so the compiler may keep them in registers in its loop
	 * (the feed's walk(): 221.8 -> 219.8 M instructions for 1 M records).
	 */
	struct ring_cur t = *c;
	struct ring_rec tr = {0};
	int rc = ring_next_slow(&t, &tr);

	*c = t;
	*r = tr;
	return rc;
}

/*
 * Asks for the bytes RING_AHEAD past p, which a walk of records reaches
 * later: the hardware prefetcher follows a sequential read only within a
 * 4 KiB page, and a record's place depends on the one before it, so each
 * new page of a mapped file cost the walk a miss. A prefetch never faults:
 * past the end of a page or mapping it is harmless. Report of the pinned
 * 4 M-event recording, one thread, best of 5 task-clock: 42.1 -> 38.0 ms
 * (256 bytes ahead 39.3, 1024 38.3, 4096 38.7; the whole next page at once
 * when it was handed out: 46.9); an hour later, the one feed, best of 7:
 * 41.1 -> 39.1 ms (4 M), 149.9 -> 140.4 ms (16 M). The gain moves with
 * the machine's memory traffic.
 */
#define RING_AHEAD 2048
RING_INLINE void ring_prefetch(const void *p)
{
	__builtin_prefetch((const void *)((uintptr_t)p + RING_AHEAD));
}

/*
 * Steps over the run of small data records that comes next on the page and
 * that the caller drops unread: those whose common_type (the payload's first
 * u16) is at most lim with min_size[type] nonzero and at most the payload's
 * size. Their time deltas add to c->ts as ring_next()'s would. It stops
 * before any other record, at the end of the page, and at once on the page's
 * first record (ring_next() hands that one the page's loss count). Returns
 * how many it stepped over; when some, *first and *last are the first's time
 * and the last's payload (c->ts is the last's time). One loop with the
 * cursor in registers: most records of a userspace-exit trace are such
 * details, and each cost a ring_next(), a record copy and the caller's
 * checks before.
 */
RING_INLINE uint32_t ring_skip(struct ring_cur *c, const uint32_t *min_size, int lim,
			       uint64_t *first, const unsigned char **last)
{
	const unsigned char *d = c->data, *at = NULL;
	uint32_t off = c->off, end = c->size, n = 0;
	uint32_t ntypes = lim < 0 ? 0 : (uint32_t)lim + 1;
	uint64_t ts = c->ts, ts0 = 0;

	if (!off)
		return 0;
	/* locals only in the loop: a store through first or last could alias the cursor */
	while (off + 8 <= end) {
		uint32_t h = ring_u32(d + off), len = (h & 31) * 4;
		uint16_t type;

		ring_prefetch(d + off);

		if (!len || len > 28 * 4 || off + 4 + len > end)
			break;
		memcpy(&type, d + off + 4, sizeof(type));
		if (type >= ntypes || !min_size[type] || len < min_size[type])
			break;
		ts += h >> 5;
		ts0 = n++ ? ts0 : ts;
		at = d + off + 4;
		off += 4 + len;
	}
	c->off = off;
	c->ts = ts;
	*first = ts0;
	*last = at;
	return n;
}

#endif

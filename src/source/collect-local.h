/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of src/source/: the ones that implement
 * collect.h, and the trace.dat fast path (tracedat-fast.c) that reuses the
 * ring-buffer page walker and the v6 header reader.
 */
#ifndef KES_COLLECT_LOCAL_H
#define KES_COLLECT_LOCAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The mask collect_read() waits with; NULL when signals are not installed. */
const sigset_t *collect_wait_mask(void);

/*
 * From a header_page text: the sub-buffer (page) size and the kernel long
 * size (the size of the commit field). Returns 0 or -1.
 */
int ringpage_header_parse(const char *text, size_t len, size_t *page_size, int *long_size);

/* Reads a whole file (tracefs files say size 0) into a NUL-terminated buffer. */
int datwrite_slurp(const char *path, char **buf, size_t *len);
/* The same from an open fd (read from where it is, not closed). */
int datwrite_slurp_fd(int fd, char **buf, size_t *len);

/* Builds one ring-buffer page from events (test fixtures). */
struct ringenc {
	unsigned char *page;
	size_t page_size, used;
	int long_size;
	uint64_t last_ts;
};

void ringenc_init(struct ringenc *e, void *page, size_t page_size, int long_size);
/*
 * Appends an event (data starts at common_type). Returns 0, 1 when the page
 * is full (write it out, ringenc_init() again, retry), or -1 when the event
 * can never fit or goes back in time.
 */
int ringenc_add(struct ringenc *e, uint64_t ts, const void *data, size_t len);

/* ------------------------------------------------------------------------ */
/*
 * The ring-buffer page walker: one raw page (header_page layout: u64
 * timestamp, a kernel long "commit" with flag bits, then records), read with
 * exactly the rules of libtraceevent's kbuffer-parse.c, so that a reader
 * built on it hands out the same records, timestamps and loss counts as
 * libtracecmd. Host byte order only (the callers check the file's).
 * It is inline because the trace.dat fast path calls it once per event.
 */
#define RINGPAGE_MISSING_EVENTS (1ULL << 31)
#define RINGPAGE_MISSING_STORED (1ULL << 30)
#define RINGPAGE_COMMIT_MASK	((1ULL << 27) - 1)
/* An absolute TIME_STAMP lacks the top 5 bits: kbuffer takes them from the running time. */
#define RINGPAGE_TS_MSB (0xf8ULL << 56)

enum { RINGPAGE_PADDING = 29, RINGPAGE_TIME_EXTEND = 30, RINGPAGE_TIME_STAMP = 31 };

struct ringpage_cur {
	const unsigned char *data; /* first record (page + header) */
	uint32_t size;		   /* bytes of records (the commit) */
	uint32_t off;		   /* next record, from data */
	uint64_t ts;		   /* time of the record last read */
	/*
	 * The page's loss flag as kbuffer reports it: 0, the stored count,
	 * or -1 (flagged, no room for a count).
	 */
	long long missed;
	bool flagged; /* the page flagged a loss (ringpage_count's view) */
};

/* One data record. missed: as libtracecmd's record->missed_events. */
struct ringpage_rec {
	const void *data;
	uint32_t size;
	uint64_t ts;
	long long missed;
};

/*
 * Starts a cursor on a page of len bytes. Returns 0, or -1 when the header
 * is malformed (commit larger than the page, bad long size).
 */
int ringpage_open(struct ringpage_cur *c, const void *page, size_t len, int long_size);

static inline uint32_t ringpage_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The next data record. Returns 1 (r filled), 0 at the end of the page, or
 * -1 when a record runs past the commit (corrupt page). Like kbuffer: a
 * padding record's delta counts, TIME_EXTEND adds, TIME_STAMP sets, and only
 * a data record that starts the page carries the page's loss count.
 */
static inline int ringpage_next(struct ringpage_cur *c, struct ringpage_rec *r)
{
	while (c->off < c->size) {
		const unsigned char *p = c->data + c->off;
		uint32_t room = c->size - c->off, h, tl, len;
		uint64_t n;

		/* Records are 4-byte aligned: 1-3 bytes left is a corrupt commit (fuzz_fastpath).
		 */
		if (room < 4)
			return -1;
		h = ringpage_u32(p);
		tl = h & 31;

		if (tl && tl <= 28) { /* the common case: a small data record */
			n = 4 + (uint64_t)tl * 4;
			if (n > room)
				return -1;
			c->ts += h >> 5;
			*r = (struct ringpage_rec){p + 4, tl * 4, c->ts, c->off ? 0 : c->missed};
			c->off += (uint32_t)n;
			return 1;
		}
		if (room < 8)
			return -1;
		len = ringpage_u32(p + 4);
		switch (tl) {
		case 0: /* a large record: array[0] holds its length, itself included */
			if (len < 4)
				return -1;
			n = 8 + (((uint64_t)len - 4 + 3) & ~3ULL);
			if (n > room)
				return -1;
			c->ts += h >> 5;
			*r = (struct ringpage_rec){p + 8, (uint32_t)n - 8, c->ts,
						   c->off ? 0 : c->missed};
			c->off += (uint32_t)n;
			return 1;
		case RINGPAGE_PADDING:
			n = 4 + (uint64_t)len;
			c->ts += h >> 5;
			break;
		case RINGPAGE_TIME_EXTEND:
			n = 8;
			c->ts += ((uint64_t)len << 27) + (h >> 5);
			break;
		default: /* RINGPAGE_TIME_STAMP */
			n = 8;
			c->ts = (((uint64_t)len << 27) + (h >> 5)) | (c->ts & RINGPAGE_TS_MSB);
			break;
		}
		if (n > room)
			return -1;
		c->off += (uint32_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Where a v6 trace.dat keeps its per-CPU pages (datread.c). */

struct datfile_cpu {
	uint64_t offset, size; /* in the file; size 0: no data */
	int id;		       /* the CPU (v7 leaves out CPUs without data) */
};

struct datfile_layout {
	uint64_t file_size;
	size_t page_size;
	int long_size; /* of the commit field in header_page, as libtracecmd uses it */
	int ncpus;
	struct datfile_cpu *cpus; /* malloc'd, by increasing id */
};

/*
 * Reads the layout of an uncompressed trace.dat (v6, or v7 with compression
 * "none") in this host's byte order whose options leave timestamps alone (no
 * DATE, OFFSET, TSC2NSEC, TIME_SHIFT, no buffer instances, nothing unknown).
 * Every offset and size is checked against the file size. Returns 0;
 * DATFILE_OTHER when the file is not such a file (read it with libtracecmd);
 * DATFILE_TRUNCATED when a well-formed header puts CPU data past the end of
 * the file (libtracecmd 3.1.6 crashes on such a v6 file instead of failing).
 */
enum { DATFILE_OTHER = -1, DATFILE_TRUNCATED = -2 };
int datfile_layout(int fd, struct datfile_layout *l);
void datfile_layout_free(struct datfile_layout *l);

#endif

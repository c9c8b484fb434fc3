// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal walker over one raw ring-buffer page (events/header_page layout:
 * u64 timestamp, a kernel long "commit" with flag bits, then data), the same
 * rules as libtraceevent's kbuffer-parse.c. `record` uses it to count what it
 * writes without paying for a full parse (procmap_learn_page(), in the walk
 * that learns the threads), and `report` reads uncompressed trace.dat files
 * with it (tracedat-fast.c).
 * ring_next() lives in include/ring.h so that it inlines into those loops.
 */
#include <stdlib.h>
#include <string.h>
#include "ring.h"

static uint64_t read_long(const unsigned char *p, int long_size)
{
	uint32_t v4;
	uint64_t v8;

	if (long_size == 8) {
		memcpy(&v8, p, 8);
		return v8;
	}
	memcpy(&v4, p, 4);
	return v4;
}

int ring_open(struct ring_cur *c, const void *page, size_t len, int long_size)
{
	const unsigned char *p = page;
	size_t hdr = 8 + (size_t)long_size;
	uint64_t commit, size;

	memset(c, 0, sizeof(*c));
	if ((long_size != 4 && long_size != 8) || len < hdr)
		return -1;
	commit = read_long(p + 8, long_size);
	size = commit & RING_COMMIT_MASK;
	if (size > len - hdr)
		return -1;
	memcpy(&c->ts, p, 8);
	c->data = p + hdr;
	c->size = (uint32_t)size;
	if (commit & RING_MISSING_EVENTS) {
		c->flagged = true;
		c->missed = -1;
		/* The kernel stores the count after the data when there is room. */
		if ((commit & RING_MISSING_STORED) && size + (size_t)long_size <= len - hdr)
			c->missed = (long long)read_long(c->data + size, long_size);
	}
	return 0;
}

void ring_info_start(const struct ring_cur *c, struct ring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->flagged = c->flagged;
	if (c->flagged && c->missed >= 0) {
		info->missed = (uint64_t)c->missed;
		info->missed_known = true;
	}
}

/* Finds "field: ... NAME;\toffset:N;\tsize:M;" in a header_page text. */
static int header_field(const char *text, size_t len, const char *name, unsigned *offset,
			unsigned *size)
{
	char *copy = strndup(text, len), *line, *save = NULL;
	int ret = -1;

	if (!copy)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *semi = strchr(line, ';'), *o, *s;
		size_t nlen = strlen(name);

		if (!strstr(line, "field:") || !semi || (size_t)(semi - line) < nlen ||
		    strncmp(semi - nlen, name, nlen) || !strchr(" \t*", semi[-(long)nlen - 1]))
			continue;
		o = strstr(semi, "offset:");
		s = strstr(semi, "size:");
		if (!o || !s)
			break;
		*offset = (unsigned)strtoul(o + 7, NULL, 10);
		*size = (unsigned)strtoul(s + 5, NULL, 10);
		ret = 0;
		break;
	}
	free(copy);
	return ret;
}

int ring_header_parse(const char *text, size_t len, size_t *page_size, int *long_size)
{
	unsigned off, size, doff, dsize;

	if (header_field(text, len, "commit", &off, &size) || (size != 4 && size != 8) ||
	    header_field(text, len, "data", &doff, &dsize) || doff != 8 + size || !dsize)
		return -1;
	*long_size = (int)size;
	*page_size = (size_t)doff + dsize;
	return 0;
}

/* The whole walk of ring.h's rules: ring_next() inlines only its common case. */
int ring_next_slow(struct ring_cur *c, struct ring_rec *r)
{
	while (c->off < c->size) {
		const unsigned char *p = c->data + c->off;
		uint32_t room = c->size - c->off, h, tl, len;
		uint64_t n;

		/* Records are 4-byte aligned: 1-3 bytes left is a corrupt commit (fuzz_fastpath).
		 */
		if (room < 4)
			return -1;
		h = ring_u32(p);
		tl = h & 31;

		if (tl && tl <= 28) { /* the common case: a small data record */
			n = 4 + (uint64_t)tl * 4;
			if (n > room)
				return -1;
			c->ts += h >> 5;
			*r = (struct ring_rec){p + 4, tl * 4, c->ts, c->off ? 0 : c->missed};
			c->off += (uint32_t)n;
			return 1;
		}
		if (room < 8)
			return -1;
		len = ring_u32(p + 4);
		switch (tl) {
		case 0: /* a large record: array[0] holds its length, itself included */
			if (len < 4)
				return -1;
			n = 8 + (((uint64_t)len - 4 + 3) & ~3ULL);
			if (n > room)
				return -1;
			c->ts += h >> 5;
			*r = (struct ring_rec){p + 8, (uint32_t)n - 8, c->ts,
					       c->off ? 0 : c->missed};
			c->off += (uint32_t)n;
			return 1;
		case RING_PADDING:
			n = 4 + (uint64_t)len;
			c->ts += h >> 5;
			break;
		case RING_TIME_EXTEND:
			n = 8;
			c->ts += ((uint64_t)len << 27) + (h >> 5);
			break;
		default: /* RING_TIME_STAMP */
			n = 8;
			c->ts = (((uint64_t)len << 27) + (h >> 5)) | (c->ts & RING_TS_MSB);
			break;
		}
		if (n > room)
			return -1;
		c->off += (uint32_t)n;
	}
	return 0;
}

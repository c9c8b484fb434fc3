// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal walker over one raw ring-buffer page (events/header_page layout:
 * u64 timestamp, a kernel long "commit" with flag bits, then data), the same
 * rules as libtraceevent's kbuffer-parse.c. `record` uses it to count what it
 * wrote without paying for a full parse (~3 ns per event), and `report`
 * reads uncompressed trace.dat files with it (tracedat-fast.c).
 * ringpage_next() lives in collect-local.h so that it inlines into those loops.
 */
#include <stdlib.h>
#include <string.h>
#include "collect.h"
#include "collect-local.h"

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

int ringpage_open(struct ringpage_cur *c, const void *page, size_t len, int long_size)
{
	const unsigned char *p = page;
	size_t hdr = 8 + (size_t)long_size;
	uint64_t commit, size;

	memset(c, 0, sizeof(*c));
	if ((long_size != 4 && long_size != 8) || len < hdr)
		return -1;
	commit = read_long(p + 8, long_size);
	size = commit & RINGPAGE_COMMIT_MASK;
	if (size > len - hdr)
		return -1;
	memcpy(&c->ts, p, 8);
	c->data = p + hdr;
	c->size = (uint32_t)size;
	if (commit & RINGPAGE_MISSING_EVENTS) {
		c->flagged = true;
		c->missed = -1;
		/* The kernel stores the count after the data when there is room. */
		if ((commit & RINGPAGE_MISSING_STORED) && size + (size_t)long_size <= len - hdr)
			c->missed = (long long)read_long(c->data + size, long_size);
	}
	return 0;
}

int ringpage_count(const void *page, size_t len, int long_size, struct ringpage_info *info)
{
	struct ringpage_cur c;
	struct ringpage_rec r;
	int ret;

	memset(info, 0, sizeof(*info));
	if (ringpage_open(&c, page, len, long_size))
		return -1;
	info->flagged = c.flagged;
	if (c.flagged && c.missed >= 0) {
		info->missed = (uint64_t)c.missed;
		info->missed_known = true;
	}
	while ((ret = ringpage_next(&c, &r)) > 0)
		info->events++;
	return ret;
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

int ringpage_header_parse(const char *text, size_t len, size_t *page_size, int *long_size)
{
	unsigned off, size, doff, dsize;

	if (header_field(text, len, "commit", &off, &size) || (size != 4 && size != 8) ||
	    header_field(text, len, "data", &doff, &dsize) || doff != 8 + size || !dsize)
		return -1;
	*long_size = (int)size;
	*page_size = (size_t)doff + dsize;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Encoder (test fixtures): the kernel's layout, so kbuffer reads it back. */

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
		put4(p, RINGPAGE_TIME_EXTEND | (uint32_t)((delta & ((1u << 27) - 1)) << 5));
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

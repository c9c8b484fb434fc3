/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An independent page walker: how many records a trace.dat's top buffer
 * holds, per CPU, found without any of the tool's code (issue 29). Written
 * from trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5) and libtraceevent's
 * kbuffer rules for record headers (tests/tools/datfile.h df_each_record():
 * type_len 1..28 data, 0 data with its length in array[0], 29 padding of
 * array[0] bytes, 30/31 time extend and stamp of 8 bytes); v6 parsed by
 * datfile.h, v7 by the section walk below, its zstd chunks decompressed by
 * libzstd itself, not by src/input/tracedat-zstd.c. The difference oracle
 * and fuzz_datread compare what the tool read with it: a file the tool reads
 * without a word must hold what this walker finds.
 *
 * Verdicts: PW_OK (records counted), PW_BAD (a page or chunk no reader may
 * take: a commit past its page, a record past its commit, a chunk past the
 * file, a frame that does not decompress to its size; the tool must refuse
 * or warn), PW_SKIP (not comparable: buffer instances, zlib, big endian, a
 * file this walker does not follow).
 */
#ifndef KES_FUZZ_PAGEWALK_H
#define KES_FUZZ_PAGEWALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "tools/datfile.h"

enum pw_verdict { PW_OK, PW_BAD, PW_SKIP };

#define PW_MAX_CPUS 64

struct pw_count {
	uint64_t records; /* data records of every CPU */
	uint64_t cpu[PW_MAX_CPUS];
	uint32_t ncpus;
	bool missed;   /* a page flagged "events missed" */
	char why[160]; /* PW_BAD's, PW_SKIP's reason */
};

static inline enum pw_verdict pw_say(struct pw_count *c, enum pw_verdict v, const char *why)
{
	snprintf(c->why, sizeof(c->why), "%s", why);
	return v;
}

struct pw_rec {
	uint64_t n;
	bool past; /* a record that runs past the commit */
};

static inline int pw_rec_one(void *arg, unsigned char *payload, uint32_t len)
{
	(void)payload;
	(void)len;
	((struct pw_rec *)arg)->n++;
	return 0;
}

/*
 * One page of page_size bytes (fewer for a page the data cuts short): its
 * data records. The commit's low 27 bits are the data's size (the kernel's
 * flags sit above: bit 31 missed, bit 30 its count stored).
 */
static inline enum pw_verdict pw_page(const unsigned char *page, uint32_t page_size,
				      unsigned long_size, uint64_t *records, bool *missed)
{
	size_t hdr = 8 + long_size;
	uint64_t commit = 0;
	uint32_t size, off = 0;
	struct pw_rec r = {0};
	struct df_file d = {.long_size = (unsigned char)long_size};

	if (page_size <= hdr)
		return PW_BAD;
	memcpy(&commit, page + 8, long_size);
	size = (uint32_t)(commit & ((1u << 27) - 1));
	if (commit & (1ULL << 31))
		*missed = true;
	if (size > page_size - hdr)
		return PW_BAD;
	/* the walk itself: every record must end by the commit */
	while (off + 4 <= size) {
		uint32_t h, tl, len = 0, n;

		memcpy(&h, page + hdr + off, 4);
		tl = h & 31;
		if (tl && tl <= 28) {
			n = 4 + tl * 4;
		} else {
			if (off + 8 > size)
				return PW_BAD;
			memcpy(&len, page + hdr + off + 4, 4);
			if (tl == 0 && len < 4)
				return PW_BAD;
			n = tl == 0 ? 8 + ((len - 4 + 3) & ~3u) : tl == 29 ? 4 + len : 8;
		}
		if (n > size - off || (tl == 29 && len > size))
			return PW_BAD;
		off += n;
	}
	if (off < size)
		return PW_BAD; /* 1-3 bytes left: no record header fits */
	df_each_record(&d, (unsigned char *)page, page_size, pw_rec_one, &r);
	*records += r.n;
	return PW_OK;
}

/*
 * A CPU's pages, laid out one after the other. Data that ends inside a page
 * leaves that page cut: it is read when its header and every record its
 * commit says it has are still there, as kbuffer would read it (a reader
 * that does so reads no byte past the data); otherwise it is broken.
 */
static inline enum pw_verdict pw_pages(const unsigned char *p, uint64_t n, uint32_t page_size,
				       unsigned long_size, uint32_t cpu, struct pw_count *c)
{
	uint64_t before = c->records;

	for (uint64_t off = 0; off < n; off += page_size) {
		uint32_t len = n - off < page_size ? (uint32_t)(n - off) : page_size;

		if (pw_page(p + off, len, long_size, &c->records, &c->missed) != PW_OK) {
			snprintf(c->why, sizeof(c->why), "cpu %u: a bad page at %llu%s", cpu,
				 (unsigned long long)off, len < page_size ? " (cut short)" : "");
			return PW_BAD;
		}
	}
	if (cpu < PW_MAX_CPUS)
		c->cpu[cpu] += c->records - before;
	return PW_OK;
}

/* The long size the commit field has: header_page's "commit" size (4 or 8). */
static inline unsigned pw_commit_size(const unsigned char *hp, size_t n, unsigned fallback)
{
	const unsigned char *at = memmem(hp, n, "commit;", 7);
	const unsigned char *sz = at ? memmem(at, n - (size_t)(at - hp), "size:", 5) : NULL;

	if (!sz)
		return fallback;
	return sz[5] == '4' ? 4 : sz[5] == '8' ? 8 : 0;
}

static inline enum pw_verdict pw_v6(const unsigned char *p, size_t n, struct pw_count *c)
{
	struct df_file d;
	enum pw_verdict v = PW_OK;
	unsigned ls;

	if (df_parse(p, n, &d) < 0)
		return pw_say(c, PW_SKIP, "v6: not parsed by datfile.h");
	for (size_t i = 0; i < d.nopts; i++)
		if (d.opts[i].id == 3) { /* BUFFER: an instance */
			df_free(&d);
			return pw_say(c, PW_SKIP, "v6: buffer instances");
		}
	ls = pw_commit_size(d.header_page.p, d.header_page.n, d.long_size);
	if (!ls) {
		df_free(&d);
		return pw_say(c, PW_SKIP, "v6: header_page's commit size");
	}
	c->ncpus = d.ncpus;
	for (uint32_t i = 0; i < d.ncpus && v == PW_OK; i++)
		v = pw_pages(d.cpus[i].data.p, d.cpus[i].data.n, d.page_size, ls, i, c);
	df_free(&d);
	return v;
}

/* ---- v7 ---- */

static inline uint64_t pw_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* Where a v7 file's parts are (what the mutators change, too). */
struct pw_v7 {
	bool zstd; /* the compression name is "zstd" */
	uint32_t page_size;
	unsigned long_size;  /* the header's (the commit's is header_page's) */
	size_t buffer_opt;   /* file offset of the top BUFFER option's data (its id at -6) */
	size_t fly;	     /* file offset of the BUFFER FLYRECORD section header */
	bool fly_compressed; /* its flags say compressed */
	uint32_t ncpus;
	size_t cpu_entry[PW_MAX_CPUS]; /* file offset of each CPU's (id, offset, size) */
	uint32_t cpu_id[PW_MAX_CPUS];
	uint64_t cpu_off[PW_MAX_CPUS], cpu_size[PW_MAX_CPUS];
	size_t header_info; /* the HEADER INFO section header, or 0 */
	int buffers;	    /* BUFFER options seen */
	bool stats_read;    /* a CPUSTAT option says events were read (trace-cmd's say 0) */
	/*
	 * Where the file's 8-byte file offsets are (the header's first options
	 * section, each DONE's next, the section options', the BUFFER options'
	 * section and CPU data offsets): what a mutation that moves bytes fixes.
	 */
	size_t ptr[128];
	size_t nptr;
};

static inline void pw_ptr(struct pw_v7 *v, size_t at)
{
	if (v->nptr < sizeof(v->ptr) / sizeof(v->ptr[0]))
		v->ptr[v->nptr++] = at;
}

/* A section's content (decompressed if it says so): malloc'd, or NULL. */
static inline unsigned char *pw_section(const unsigned char *p, size_t n, size_t at, bool zstd,
					size_t *len)
{
	uint16_t flags;
	uint64_t size;
	unsigned char *out;

	if (at + 16 > n)
		return NULL;
	flags = (uint16_t)pw_le(p + at + 2, 2);
	size = pw_le(p + at + 8, 8);
	at += 16;
	if (size > n - at)
		return NULL;
	if (!(flags & 1)) {
		out = malloc(size + 1);
		memcpy(out, p + at, size);
		*len = size;
		return out;
	}
	if (!zstd || size < 8)
		return NULL;
	uint32_t csize = (uint32_t)pw_le(p + at, 4), usize = (uint32_t)pw_le(p + at + 4, 4);

	if (csize > size - 8 || usize > (64u << 20))
		return NULL;
	out = malloc((size_t)usize + 1);
	if (ZSTD_decompress(out, usize, p + at + 8, csize) != usize) {
		free(out);
		return NULL;
	}
	*len = usize;
	return out;
}

/* The options sections: the top BUFFER option, HEADER_INFO. false: not followed. */
static inline bool pw_v7_options(const unsigned char *p, size_t n, size_t first, struct pw_v7 *v)
{
	size_t next = first;

	for (int sections = 0; next && sections < 64; sections++) {
		size_t len, at = 0, base = next;
		uint16_t flags;
		unsigned char *s;

		if (next + 16 > n || pw_le(p + next, 2) != 0)
			return false;
		flags = (uint16_t)pw_le(p + next + 2, 2);
		if (flags & 1)
			return false; /* compressed options: their offsets are not the file's */
		s = pw_section(p, n, next, v->zstd, &len);
		if (!s)
			return false;
		next = 0;
		while (at + 6 <= len) {
			uint16_t id = (uint16_t)pw_le(s + at, 2);
			uint32_t sz = (uint32_t)pw_le(s + at + 2, 4);

			if (sz > len - at - 6) {
				free(s);
				return false;
			}
			if (id == 0) {
				next = sz >= 8 ? (size_t)pw_le(s + at + 6, 8) : 0;
				if (sz >= 8)
					pw_ptr(v, base + 16 + at + 6);
				break;
			}
			if (id == 16 && sz >= 8)
				v->header_info = (size_t)pw_le(s + at + 6, 8);
			if (id == 2) { /* CPUSTAT: "read events: N" */
				const unsigned char *k = memmem(s + at + 6, sz, "read events: ", 13);

				if (k && (size_t)(k - s) + 13 < at + 6 + sz && k[13] != '0')
					v->stats_read = true;
			}
			if (id >= 16 && id <= 22 && sz >= 8) /* sections, and BUFFER_TEXT's data */
				pw_ptr(v, base + 16 + at + 6);
			if (id == 3) {
				v->buffers++;
				if (v->buffers == 1)
					v->buffer_opt = base + 16 + at + 6;
				if (sz >= 8)
					pw_ptr(v, base + 16 + at + 6);
			}
			at += 6 + sz;
		}
		free(s);
	}
	return v->buffers > 0;
}

/* The top BUFFER option's fields. false: not the top buffer, or not followed. */
static inline bool pw_v7_buffer(const unsigned char *p, size_t n, struct pw_v7 *v)
{
	size_t at = v->buffer_opt, end;
	uint32_t sz;

	if (at < 6 || at > n)
		return false;
	sz = (uint32_t)pw_le(p + at - 4, 4);
	if (sz > n - at)
		return false;
	end = at + sz;
	if (at + 8 > end)
		return false;
	v->fly = (size_t)pw_le(p + at, 8);
	at += 8;
	if (at >= end || p[at] != '\0') /* the name: "" is the top instance */
		return false;
	at++;
	while (at < end && p[at]) /* the clock */
		at++;
	at++;
	if (at + 8 > end)
		return false;
	v->page_size = (uint32_t)pw_le(p + at, 4);
	v->ncpus = (uint32_t)pw_le(p + at + 4, 4);
	at += 8;
	if (v->ncpus > PW_MAX_CPUS || at + (size_t)v->ncpus * 20 > end)
		return false;
	for (uint32_t i = 0; i < v->ncpus; i++, at += 20) {
		pw_ptr(v, at + 4);
		v->cpu_entry[i] = at;
		v->cpu_id[i] = (uint32_t)pw_le(p + at, 4);
		v->cpu_off[i] = pw_le(p + at + 4, 8);
		v->cpu_size[i] = pw_le(p + at + 12, 8);
	}
	if (v->fly + 16 > n)
		return false;
	v->fly_compressed = pw_le(p + v->fly + 2, 2) & 1;
	return true;
}

/* The header of a v7 file and where its top buffer's data are. PW_OK, or why not. */
static inline enum pw_verdict pw_v7_layout(const unsigned char *p, size_t n, struct pw_v7 *v,
					   struct pw_count *c)
{
	size_t at = 12;
	const char *name;

	memset(v, 0, sizeof(*v));
	if (n < 24 || p[10] != '7' || p[11] != '\0')
		return pw_say(c, PW_SKIP, "v7: short");
	if (p[at] != 0)
		return pw_say(c, PW_SKIP, "v7: big endian");
	v->long_size = p[at + 1];
	v->page_size = (uint32_t)pw_le(p + at + 2, 4);
	at += 6;
	name = (const char *)p + at;
	while (at < n && p[at])
		at++;
	if (++at >= n)
		return pw_say(c, PW_SKIP, "v7: compression name");
	if (!strcmp(name, "zstd"))
		v->zstd = true;
	else if (strcmp(name, "none"))
		return pw_say(c, PW_SKIP, "v7: not zstd or none");
	while (at < n && p[at])
		at++;
	if (++at + 8 > n)
		return pw_say(c, PW_SKIP, "v7: compression version");
	pw_ptr(v, at);
	if (!pw_v7_options(p, n, (size_t)pw_le(p + at, 8), v))
		return pw_say(c, PW_SKIP, "v7: options not followed");
	if (v->buffers != 1)
		return pw_say(c, PW_SKIP, "v7: buffer instances");
	if (!pw_v7_buffer(p, n, v))
		return pw_say(c, PW_SKIP, "v7: the BUFFER option");
	if (v->page_size < 64 || v->page_size > (1u << 20) || (v->page_size & (v->page_size - 1)))
		return pw_say(c, PW_SKIP, "v7: page size");
	return PW_OK;
}

/* The commit's size: header_page in the HEADER INFO section ("header_page\0", size, text). */
static inline unsigned pw_v7_commit_size(const unsigned char *p, size_t n, const struct pw_v7 *v)
{
	size_t len;
	unsigned char *s = v->header_info ? pw_section(p, n, v->header_info, v->zstd, &len) : NULL;
	unsigned ls = 0;

	if (s && len >= 20 && !memcmp(s, "header_page", 12)) {
		uint64_t hn = pw_le(s + 12, 8);

		if (hn <= len - 20)
			ls = pw_commit_size(s + 20, (size_t)hn, v->long_size);
	}
	free(s);
	return ls;
}

/*
 * One CPU's zstd chunks, decompressed and walked (libzstd's one-shot API).
 * The size the BUFFER option gives leaves out the 4-byte chunk count in the
 * files of trace-cmd before 3.2 (libtracecmd commit 4b92132, "Fix
 * tracecmd_compress_copy_from() write size return"; Debian 12 has 3.1.6), so
 * the chunks may end up to 4 bytes past it.
 */
static inline enum pw_verdict pw_chunks(const unsigned char *p, size_t n, uint64_t off,
					uint64_t size, const struct pw_v7 *v, unsigned ls,
					uint32_t cpu, struct pw_count *c)
{
	uint64_t at = off, end = off + size + 4 <= n ? off + size + 4 : n;
	uint32_t count;

	if (size < 4)
		return size ? pw_say(c, PW_BAD, "zstd: no chunk count") : PW_OK;
	count = (uint32_t)pw_le(p + at, 4);
	at += 4;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t csize, usize;
		unsigned char *out;
		enum pw_verdict r;

		if (at + 8 > end)
			return pw_say(c, PW_BAD, "zstd: a chunk header past the data");
		csize = (uint32_t)pw_le(p + at, 4);
		usize = (uint32_t)pw_le(p + at + 4, 4);
		at += 8;
		if (csize > end - at || usize % v->page_size || usize > (64u << 20))
			return pw_say(c, PW_BAD, "zstd: a chunk's sizes");
		out = malloc((size_t)usize + 1);
		unsigned long long fcs = ZSTD_getFrameContentSize(p + at, csize);

		/* trace-cmd's frames may leave their content size out: then the header's */
		if ((fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usize) ||
		    ZSTD_decompress(out, usize, p + at, csize) != usize) {
			free(out);
			return pw_say(c, PW_BAD,
				      "zstd: a frame that does not decompress to its size");
		}
		r = pw_pages(out, usize, v->page_size, ls, cpu, c);
		free(out);
		if (r != PW_OK)
			return r;
		at += csize;
	}
	/* the chunks are all the CPU's data (4 bytes more in trace-cmd < 3.2's files) */
	if (at - off < size)
		return pw_say(c, PW_BAD, "zstd: chunks that leave some of the CPU's data out");
	return PW_OK;
}

static inline enum pw_verdict pw_v7(const unsigned char *p, size_t n, struct pw_count *c)
{
	struct pw_v7 v;
	enum pw_verdict r = pw_v7_layout(p, n, &v, c);
	unsigned ls;

	if (r != PW_OK)
		return r;
	ls = pw_v7_commit_size(p, n, &v);
	if (!ls)
		return pw_say(c, PW_SKIP, "v7: header_page's commit size");
	if (v.fly_compressed && !v.zstd)
		return pw_say(c, PW_SKIP, "v7: compressed without zstd");
	c->ncpus = v.ncpus;
	for (uint32_t i = 0; i < v.ncpus && r == PW_OK; i++) {
		if (!v.cpu_size[i])
			continue; /* no data: where it would be says nothing */
		if (v.cpu_off[i] > n || v.cpu_size[i] > n - v.cpu_off[i])
			return pw_say(c, PW_BAD, "v7: a CPU's data past the file");
		r = v.fly_compressed
			? pw_chunks(p, n, v.cpu_off[i], v.cpu_size[i], &v, ls, v.cpu_id[i], c)
			: pw_pages(p + v.cpu_off[i], v.cpu_size[i], v.page_size, ls, v.cpu_id[i],
				   c);
	}
	return r;
}

/* The records of a trace.dat's top buffer, counted independently. */
static inline enum pw_verdict pagewalk(const unsigned char *p, size_t n, struct pw_count *c)
{
	memset(c, 0, sizeof(*c));
	if (n > 12 && !memcmp(p, "\027\010\104tracing6", 12))
		return pw_v6(p, n, c);
	if (n > 12 && !memcmp(p, "\027\010\104tracing7", 12))
		return pw_v7(p, n, c);
	return pw_say(c, PW_SKIP, "not a trace.dat");
}

#endif

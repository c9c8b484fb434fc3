/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure-aware mutators: what an attacker (or a bad disk, or a careless
 * tool) changes in a file, one field at a time, instead of libFuzzer's
 * random bytes, which almost never get a v6 header or a format file to
 * parse. Used by the libFuzzer targets (LLVMFuzzerCustomMutator, half of the
 * mutations) and by the difference oracle (tests/fuzz/oracle.c).
 *
 *  - trace.dat v6: parsed (tests/tools/datfile.h), one part changed, written
 *    back with every size and offset right: format ids, field offsets and
 *    sizes, header_page numbers, the page size, options (ids, CPUSTAT
 *    counts, dropped, doubled), flyrecord entries (offset, size, aliases,
 *    the CPU count), page headers (commit, flags), comms;
 *  - trace.dat v7: in place: option ids and sizes, section flags, the
 *    BUFFER option's CPU entries, page headers of uncompressed data; zstd
 *    chunks (their count, sizes, frame bytes, and a page of a chunk changed
 *    and compressed again, the file's offsets after it moved: pagewalk.h
 *    finds them);
 *  - text: one event line: its pid, comm, timestamp, payload or length.
 *
 * "visible" mutations are those a reader can tell from the file itself (a
 * contradiction, an impossible value): the oracle asserts that each is
 * refused, warned about, or changes nothing. The others (payload bytes, a
 * timestamp, a renamed event) make other valid files, and are for the
 * fuzzers only.
 */
#ifndef KES_FUZZ_MUTATE_H
#define KES_FUZZ_MUTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/datfile.h"
#include "pagewalk.h"

struct rng {
	uint64_t s;
};

static inline uint64_t rnd(struct rng *r)
{
	/* xorshift64*: seeded by libFuzzer, so a mutation can be replayed */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

static inline size_t pick(struct rng *r, size_t n)
{
	return n ? (size_t)(rnd(r) % n) : 0;
}

/* Values that break bounds checks: around 0, page sizes, 16 and 32 bits, signs. */
static const long long mut_interesting[] = {
    0,
    1,
    -1,
    2,
    3,
    4,
    7,
    8,
    12,
    16,
    24,
    32,
    255,
    256,
    4095,
    4096,
    4097,
    8192,
    65535,
    65536,
    32767,
    32768,
    2147483640,
    2147483647,
    -2147483648LL,
    4294967288LL,
    4294967295LL,
    4294967296LL,
    100000000,
    -8,
};

static inline long long mut_value(struct rng *r, long long old)
{
	switch (pick(r, 4)) {
	case 0:
		return old + 1 + (long long)pick(r, 8);
	case 1:
		return old - 1 - (long long)pick(r, 8);
	default:
		return mut_interesting[pick(r,
					    sizeof(mut_interesting) / sizeof(mut_interesting[0]))];
	}
}

/* What a mutation did, for the oracle's report. */
struct mut_desc {
	char what[160];
};

static inline void describe(struct mut_desc *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void describe(struct mut_desc *m, const char *fmt, ...)
{
	va_list ap;

	if (!m)
		return;
	va_start(ap, fmt);
	vsnprintf(m->what, sizeof(m->what), fmt, ap);
	va_end(ap);
}

/* ---- trace.dat v6 ---- */

/* The n-th "KEY<number>" in a format text: its position, or -1. */
static inline long nth_number(const struct df_blob *b, const char *key, size_t nth, size_t *len)
{
	const unsigned char *s = b->p;
	size_t off = 0, seen = 0, kl = strlen(key);

	while (off + kl <= b->n) {
		const unsigned char *k = memmem(s + off, b->n - off, key, kl);

		if (!k)
			return -1;
		off = (size_t)(k - s) + kl;
		if (seen++ == nth) {
			size_t n = 0;

			while (off + n < b->n &&
			       (s[off + n] == '-' || (s[off + n] >= '0' && s[off + n] <= '9')))
				n++;
			*len = n;
			return (long)off;
		}
	}
	return -1;
}

static inline size_t count_keys(const struct df_blob *b, const char *key)
{
	size_t n = 0, len;

	while (nth_number(b, key, n, &len) >= 0)
		n++;
	return n;
}

static inline void set_nth(struct df_blob *b, const char *key, size_t nth, long long v)
{
	char num[32];
	size_t len;
	long at = nth_number(b, key, nth, &len);

	if (at < 0)
		return;
	snprintf(num, sizeof(num), "%lld", v);
	df_splice(b, (size_t)at, len, num, strlen(num));
}

static inline long long get_nth(const struct df_blob *b, const char *key, size_t nth)
{
	size_t len;
	long at = nth_number(b, key, nth, &len);

	return at < 0 ? 0 : strtoll((const char *)b->p + at, NULL, 10);
}

static inline void mut_format(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	struct df_fmt *f = &d->fmts[pick(r, d->nfmts)];
	long long v;

	switch (pick(r, 3)) {
	case 0: /* an id: another format's, one no format has, or out of range */
		v = pick(r, 2) ? get_nth(&d->fmts[pick(r, d->nfmts)].text, "ID: ", 0)
			       : mut_value(r, get_nth(&f->text, "ID: ", 0));
		set_nth(&f->text, "ID: ", 0, v);
		describe(m, "format %s ID -> %lld", f->sys, v);
		break;
	case 1: { /* a field's offset: another field's, near it, or out of range */
		size_t n = count_keys(&f->text, "offset:"), i = pick(r, n);

		v = pick(r, 2) ? get_nth(&f->text, "offset:", pick(r, n))
			       : mut_value(r, get_nth(&f->text, "offset:", i));
		set_nth(&f->text, "offset:", i, v);
		describe(m, "format field %zu offset -> %lld", i, v);
		break;
	}
	default: { /* a field's size */
		static const long long sizes[] = {0, 1, 2, 3, 4, 8, 16, 64, -1, 4096};
		size_t n = count_keys(&f->text, "size:"), i = pick(r, n);

		v = sizes[pick(r, sizeof(sizes) / sizeof(sizes[0]))];
		set_nth(&f->text, "size:", i, v);
		describe(m, "format field %zu size -> %lld", i, v);
		break;
	}
	}
}

static inline void mut_header(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	switch (pick(r, 4)) {
	case 0:
		d->page_size = pick(r, 2) ? d->page_size * 2 : d->page_size / 2 + pick(r, 2);
		describe(m, "page size -> %u", d->page_size);
		break;
	case 1:
		d->long_size = d->long_size == 8 ? 4 : 8;
		describe(m, "long size -> %u", d->long_size);
		break;
	case 2: { /* header_page: the commit's or the data's offset or size */
		const char *key = pick(r, 2) ? "offset:" : "size:";
		size_t n = count_keys(&d->header_page, key), i = pick(r, n);
		long long v = mut_value(r, get_nth(&d->header_page, key, i));

		set_nth(&d->header_page, key, i, v);
		describe(m, "header_page %s #%zu -> %lld", key, i, v);
		break;
	}
	default:
		d->endian = 1;
		describe(m, "endianness -> big");
		break;
	}
}

static inline void mut_option(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	struct df_opt *o;
	static const char *const keys[] = {
	    "read events: ", "entries: ", "overrun: ", "dropped events: "};

	if (!d->nopts)
		return;
	o = &d->opts[pick(r, d->nopts)];
	switch (pick(r, 4)) {
	case 0:
		o->id = (uint16_t)(pick(r, 4) ? 1 + pick(r, 22) : 23 + pick(r, 200));
		describe(m, "an option's id -> %u", o->id);
		break;
	case 1: /* dropped */
		free(o->data.p);
		*o = d->opts[--d->nopts];
		describe(m, "an option dropped");
		break;
	case 2: /* doubled */
		d->opts = realloc(d->opts, (d->nopts + 1) * sizeof(*d->opts));
		o = &d->opts[pick(r, d->nopts)];
		d->opts[d->nopts] = *o;
		d->opts[d->nopts].data.p = malloc(o->data.n + 1);
		memcpy(d->opts[d->nopts].data.p, o->data.p, o->data.n);
		d->nopts++;
		describe(m, "an option doubled (id %u)", o->id);
		break;
	default: { /* a CPUSTAT count */
		const char *key = keys[pick(r, 4)];

		for (size_t i = 0; i < d->nopts; i++) {
			struct df_opt *s = &d->opts[(i + pick(r, d->nopts)) % d->nopts];
			long long v;

			if (s->id != 2 || nth_number(&s->data, key, 0, &(size_t){0}) < 0)
				continue;
			v = mut_value(r, get_nth(&s->data, key, 0));
			if (v < 0)
				v = -v;
			set_nth(&s->data, key, 0, v);
			describe(m, "CPUSTAT '%s' -> %lld", key, v);
			break;
		}
		break;
	}
	}
}

/* A page of some CPU with data, or NULL. */
static inline unsigned char *some_page(struct df_file *d, struct rng *r, size_t *cpu)
{
	for (size_t k = 0; k < d->ncpus; k++) {
		size_t c = (k + pick(r, d->ncpus)) % d->ncpus, pages;

		pages = d->cpus[c].data.n / d->page_size;
		if (pages && d->cpus[c].alias_of < 0) {
			*cpu = c;
			return d->cpus[c].data.p + pick(r, pages) * d->page_size;
		}
	}
	return NULL;
}

static inline void mut_page(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	size_t cpu;
	unsigned char *p = some_page(d, r, &cpu);
	uint64_t c, flags;
	uint32_t last;

	if (!p)
		return;
	c = df_commit(d, p);
	flags = c & ~(uint64_t)((1u << 27) - 1);
	switch (pick(r, 5)) {
	case 0:
		last = df_last_record(d, p, d->page_size);
		if (last)
			df_set_commit(d, p, flags | last);
		describe(m, "cpu %zu: a page's commit ends before its last record", cpu);
		break;
	case 1:
		df_set_commit(d, p, c + (pick(r, 2) ? 4 : (uint64_t)-4));
		describe(m, "cpu %zu: a page's commit +-4", cpu);
		break;
	case 2:
		df_set_commit(d, p, flags | (uint64_t)mut_value(r, (long long)(c & 0xffff)));
		describe(m, "cpu %zu: a page's commit -> another size", cpu);
		break;
	case 3:
		df_set_commit(d, p, c | 1ULL << 31);
		describe(m, "cpu %zu: a page flagged 'events missed'", cpu);
		break;
	default: /* missed, with a count stored after the data (where there is room) */
		df_set_commit(d, p, c | 3ULL << 30);
		describe(m, "cpu %zu: a page flagged 'events missed', count stored", cpu);
		break;
	}
}

static inline void mut_cpu(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	size_t i = pick(r, d->ncpus), j = pick(r, d->ncpus);
	struct df_cpu *c = &d->cpus[i];

	switch (pick(r, 3)) {
	case 0:
		if (i != j && d->cpus[j].alias_of < 0)
			c->alias_of = (int)j;
		describe(m, "cpu %zu's data := cpu %zu's", i, j);
		break;
	case 1:
		if (c->size >= d->page_size)
			c->size -= d->page_size;
		describe(m, "cpu %zu's data size cut by a page", i);
		break;
	default: { /* two CPUs swap their data */
		struct df_cpu t = *c;

		*c = d->cpus[j];
		d->cpus[j] = t;
		describe(m, "cpus %zu and %zu swap their data", i, j);
		break;
	}
	}
}

/* A comm in saved_cmdlines gets bytes a terminal acts on (not "visible": names are free). */
static inline void mut_comm(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	static const char *const bad[] = {"\033[2J", "\033]0;x\007", "\233", "\xff\xfe",
					  "\342\200\256"};
	const char *s = bad[pick(r, sizeof(bad) / sizeof(bad[0]))];
	unsigned char *sp = d->cmdlines.n ? memchr(d->cmdlines.p, ' ', d->cmdlines.n) : NULL;

	if (sp)
		df_splice(&d->cmdlines, (size_t)(sp - d->cmdlines.p) + 1, 0, s, strlen(s));
	describe(m, "a comm gets terminal escapes");
}

/* Not visible: what other valid recordings hold (for the fuzzers). */
static inline void mut_data(struct df_file *d, struct rng *r, struct mut_desc *m)
{
	size_t cpu;
	unsigned char *p = some_page(d, r, &cpu);

	if (p) /* a byte of a page: a header, a record header, a payload */
		p[pick(r, d->page_size)] ^= (unsigned char)(1 + pick(r, 255));
	if (pick(r, 2) && d->nfmts) { /* a byte of a format text */
		struct df_fmt *f = &d->fmts[pick(r, d->nfmts)];

		if (f->text.n)
			f->text.p[pick(r, f->text.n)] = (unsigned char)rnd(r);
	}
	describe(m, "data bytes");
}

/* One mutation of a v6 file. Returns the new size (in data, at most max), 0 when not v6. */
static inline size_t mutate_v6(uint8_t *data, size_t size, size_t max, struct rng *r, bool visible,
			       struct mut_desc *m)
{
	struct df_file d;
	unsigned char *out;
	size_t len;

	if (df_parse(data, size, &d) < 0)
		return 0;
	switch (pick(r, visible ? 6 : 8)) {
	case 0:
		if (d.nfmts)
			mut_format(&d, r, m);
		break;
	case 1:
		mut_header(&d, r, m);
		break;
	case 2:
		mut_option(&d, r, m);
		break;
	case 3:
		mut_page(&d, r, m);
		break;
	case 4:
		mut_cpu(&d, r, m);
		break;
	case 5:
		mut_comm(&d, r, m);
		break;
	default:
		mut_data(&d, r, m);
		break;
	}
	df_emit(&d, &out, &len);
	df_free(&d);
	if (len > max) {
		free(out);
		return 0;
	}
	memcpy(data, out, len);
	free(out);
	return len;
}

/* ---- trace.dat v7: fields changed in place ---- */

static inline uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* Positions of the v7 fields worth changing, found by walking the options sections. */
struct v7_sites {
	size_t at[256];
	uint8_t width[256];
	size_t n;
};

static inline void v7_site(struct v7_sites *s, size_t at, uint8_t width)
{
	if (s->n < 256) {
		s->at[s->n] = at;
		s->width[s->n++] = width;
	}
}

static inline void v7_walk(const uint8_t *p, size_t size, struct v7_sites *s)
{
	size_t off = 10 + 2 + 2 + 4; /* magic, "7\0", endian, long size, page size */
	uint64_t next;

	s->n = 0;
	while (off < size && p[off]) /* compression name */
		off++;
	off++;
	while (off < size && p[off]) /* its version */
		off++;
	off++;
	if (off + 8 > size)
		return;
	next = le(p + off, 8);
	for (int sections = 0; next && next + 16 <= size && sections < 32; sections++) {
		size_t at = (size_t)next;

		v7_site(s, at + 2, 2); /* section flags (bit 0: compressed) */
		at += 16;
		next = 0;
		while (at + 6 <= size) {
			uint16_t id = (uint16_t)le(p + at, 2);
			uint32_t n = (uint32_t)le(p + at + 2, 4);

			v7_site(s, at, 2);     /* the option's id */
			v7_site(s, at + 2, 4); /* its size */
			if (id == 3) /* BUFFER: its CPU entries' offsets and sizes (and the rest) */
				for (size_t k = at + 6; k + 8 <= at + 6 + n && k + 8 <= size;
				     k += 4)
					v7_site(s, k, 4);
			if (id == 0) {
				if (at + 14 <= size)
					next = le(p + at + 6, 8);
				break;
			}
			at += 6 + (size_t)n;
		}
	}
}

static inline size_t mutate_v7(uint8_t *data, size_t size, struct rng *r, struct mut_desc *m)
{
	struct v7_sites s;
	size_t i;
	uint64_t v;

	v7_walk(data, size, &s);
	if (!s.n)
		return 0;
	i = pick(r, s.n);
	v = (uint64_t)mut_value(r, (long long)le(data + s.at[i], s.width[i]));
	if (s.at[i] + s.width[i] > size)
		return 0;
	memcpy(data + s.at[i], &v, s.width[i]);
	describe(m, "v7 field at %zu (%u bytes) -> %llu", s.at[i], s.width[i],
		 (unsigned long long)v);
	return size;
}

/* ---- trace.dat v7: pages and zstd chunks ---- */

/*
 * One of mut_page()'s changes, on a raw page whose commit is ls bytes. A
 * commit that ends on another record is a valid page with fewer records:
 * visible only against CPUSTAT's count of the events read, which trace-cmd's
 * own files leave at 0 (stats false: then only the "events missed" flags).
 */
static inline void mut_raw_page(unsigned char *page, uint32_t page_size, unsigned ls, bool stats,
				struct rng *r, struct mut_desc *m, const char *where)
{
	struct df_file d = {.long_size = (unsigned char)ls};
	uint64_t c = df_commit(&d, page), flags = c & ~(uint64_t)((1u << 27) - 1);
	uint32_t last;

	switch (stats ? pick(r, 5) : 3 + pick(r, 2)) {
	case 0:
		last = df_last_record(&d, page, page_size);
		if (last)
			df_set_commit(&d, page, flags | last);
		describe(m, "%s: a page's commit ends before its last record", where);
		break;
	case 1:
		df_set_commit(&d, page, c + (pick(r, 2) ? 4 : (uint64_t)-4));
		describe(m, "%s: a page's commit +-4", where);
		break;
	case 2:
		df_set_commit(&d, page, flags | (uint64_t)mut_value(r, (long long)(c & 0xffff)));
		describe(m, "%s: a page's commit -> another size", where);
		break;
	case 3:
		df_set_commit(&d, page, c | 1ULL << 31);
		describe(m, "%s: a page flagged 'events missed'", where);
		break;
	default:
		df_set_commit(&d, page, c | 3ULL << 30);
		describe(m, "%s: a page flagged 'events missed', count stored", where);
		break;
	}
}

/*
 * data[at, at + len) := s[0, sl), every file offset of v past `at` moved by
 * the difference, and the flyrecord section's size with it. The new size, or
 * 0 when it would pass max.
 */
static inline size_t v7_splice(uint8_t *data, size_t size, size_t max, const struct pw_v7 *v,
			       size_t at, size_t len, const void *s, size_t sl, uint32_t cpu)
{
	int64_t delta = (int64_t)sl - (int64_t)len;

	if (size - len + sl > max)
		return 0;
	for (size_t i = 0; i < v->nptr; i++) {
		uint64_t o = le(data + v->ptr[i], 8);

		if (o > at) {
			o += (uint64_t)delta;
			memcpy(data + v->ptr[i], &o, 8);
		}
	}
	if (v->fly < at) {
		uint64_t fs = le(data + v->fly + 8, 8) + (uint64_t)delta;

		memcpy(data + v->fly + 8, &fs, 8);
	}
	uint64_t cs = v->cpu_size[cpu] + (uint64_t)delta;

	memcpy(data + v->cpu_entry[cpu] + 12, &cs, 8);
	memmove(data + at + sl, data + at + len, size - at - len);
	memcpy(data + at, s, sl);
	return size - len + sl;
}

/* A page of a chunk changed and the chunk compressed again (its size changes). */
static inline size_t v7_rechunk(uint8_t *data, size_t size, size_t max, const struct pw_v7 *v,
				unsigned ls, bool stats, uint32_t cpu, size_t chunk, struct rng *r,
				struct mut_desc *m)
{
	uint32_t csize = (uint32_t)le(data + chunk, 4), usize = (uint32_t)le(data + chunk + 4, 4);
	unsigned char *raw, *out;
	size_t bound, n, ret = 0;

	if (chunk + 8 + csize > size || !usize || usize % v->page_size || usize > (16u << 20))
		return 0;
	raw = malloc(usize);
	if (ZSTD_decompress(raw, usize, data + chunk + 8, csize) != usize) {
		free(raw);
		return 0;
	}
	mut_raw_page(raw + pick(r, usize / v->page_size) * v->page_size, v->page_size, ls, stats,
		     r, m, "zstd chunk");
	bound = ZSTD_compressBound(usize);
	out = malloc(bound + 8);
	n = ZSTD_compress(out + 8, bound, raw, usize, 1 + (int)pick(r, 3));
	if (!ZSTD_isError(n)) {
		uint32_t c32 = (uint32_t)n;

		memcpy(out, &c32, 4);
		memcpy(out + 4, &usize, 4);
		ret = v7_splice(data, size, max, v, chunk, 8 + csize, out, n + 8, cpu);
	}
	free(raw);
	free(out);
	return ret;
}

/*
 * The pages or chunks of the top buffer's data; 0 when the file is not one
 * pagewalk follows. A byte of a frame is not visible: zstd frames carry no
 * checksum (trace-cmd writes none), and one may decompress to other pages
 * that are as valid as the first.
 */
static inline size_t mutate_v7_data(uint8_t *data, size_t size, size_t max, struct rng *r,
				    bool visible, struct mut_desc *m)
{
	struct pw_v7 v;
	struct pw_count c;
	unsigned ls;
	uint32_t i;
	uint64_t off, n;

	if (pw_v7_layout(data, size, &v, &c) != PW_OK || !v.ncpus ||
	    !(ls = pw_v7_commit_size(data, size, &v)))
		return 0;
	i = (uint32_t)pick(r, v.ncpus);
	/* the fuzzers: any change; the oracle: commits only where CPUSTAT can tell */
	bool stats = !visible || v.stats_read;
	off = v.cpu_off[i];
	n = v.cpu_size[i];
	if (off > size || n > size - off)
		return 0;
	if (!v.fly_compressed) {
		if (n < v.page_size)
			return 0;
		mut_raw_page(data + off + pick(r, n / v.page_size) * v.page_size, v.page_size, ls,
			     stats, r, m, "v7");
		return size;
	}
	/* zstd: the chunk headers' place, up to the one picked */
	uint32_t count = n >= 4 ? (uint32_t)le(data + off, 4) : 0,
		 k = (uint32_t)pick(r, count ? count : 1);
	size_t at = (size_t)off + 4;

	for (uint32_t j = 0; j < k && at + 8 <= size; j++)
		at += 8 + (size_t)le(data + at, 4);
	if (!count || at + 8 > size)
		return 0;
	size_t what = pick(r, visible ? 4 : 5);

	switch (visible && what == 3 ? 4 : what) {
	case 0: { /* the chunk count */
		uint32_t v32 = (uint32_t)mut_value(r, count);

		memcpy(data + off, &v32, 4);
		describe(m, "zstd: cpu %u's chunk count %u -> %u", v.cpu_id[i], count, v32);
		return size;
	}
	case 1: /* a chunk's compressed or uncompressed size */
	case 2: {
		size_t f = at + (pick(r, 2) ? 4 : 0);
		uint32_t v32 = (uint32_t)mut_value(r, (long long)le(data + f, 4));

		memcpy(data + f, &v32, 4);
		describe(m, "zstd: chunk %u's %s size -> %u", k,
			 f == at ? "compressed" : "uncompressed", v32);
		return size;
	}
	case 3: { /* a byte of its frame */
		uint32_t cs = (uint32_t)le(data + at, 4);

		if (!cs || at + 8 + cs > size)
			return 0;
		data[at + 8 + pick(r, cs)] ^= (uint8_t)(1 + pick(r, 255));
		describe(m, "zstd: a byte of chunk %u's frame", k);
		return size;
	}
	default:
		return v7_rechunk(data, size, max, &v, ls, stats, i, at, r, m);
	}
}

/* ---- text ---- */

/*
 * A random line of p that looks like a KVM event (" kvm" and ": " in it), in
 * one pass: reservoir sampling, so a 16 KiB input costs one scan.
 */
static inline bool kvm_line(const uint8_t *p, size_t size, struct rng *r, size_t *start, size_t *end)
{
	size_t seen = 0;

	for (size_t s = 0; s < size;) {
		const uint8_t *nl = memchr(p + s, '\n', size - s);
		size_t e = nl ? (size_t)(nl - p) : size;

		if (memmem(p + s, e - s, " kvm", 4) && memmem(p + s, e - s, ": ", 2) &&
		    pick(r, ++seen) == 0) {
			*start = s;
			*end = e;
		}
		s = e + 1;
	}
	return seen > 0;
}

/* Replaces data[at, at + len) with s; 0 when the result would pass max. */
static inline size_t text_splice(uint8_t *data, size_t size, size_t max, size_t at, size_t len,
				 const void *s, size_t sl)
{
	if (size - len + sl > max)
		return 0;
	memmove(data + at + sl, data + at + len, size - at - len);
	memcpy(data + at, s, sl);
	return size - len + sl;
}

/* The "comm-PID" token before " [cpu]" (ftrace shape): where its pid is. */
static inline bool pid_at(const uint8_t *p, size_t s, size_t e, size_t *at, size_t *len)
{
	const uint8_t *br = memmem(p + s, e - s, " [", 2);
	size_t i;

	if (!br)
		return false;
	i = (size_t)(br - p);
	while (i > s && p[i - 1] == ' ')
		i--;
	*len = 0;
	while (i > s && p[i - 1] >= '0' && p[i - 1] <= '9') {
		i--;
		(*len)++;
	}
	*at = i;
	return *len && i > s && p[i - 1] == '-';
}

/* The timestamp "123.456789:" of a line: where it is. */
static inline bool ts_at(const uint8_t *p, size_t s, size_t e, size_t *at, size_t *len)
{
	for (size_t i = s + 1; i + 2 < e; i++) {
		if (p[i - 1] == ' ' && p[i] >= '0' && p[i] <= '9') {
			size_t j = i;

			while (j < e && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'))
				j++;
			if (j < e && p[j] == ':' && memchr(p + i, '.', j - i)) {
				*at = i;
				*len = j - i;
				return true;
			}
		}
	}
	return false;
}

static inline size_t mutate_text(uint8_t *data, size_t size, size_t max, struct rng *r,
				 bool visible, struct mut_desc *m)
{
	size_t s, e, at, len;
	static const char *const bad[] = {"\033[2J", "\033]0;x\007", "\233", "\xff",
					  "\342\200\256"};
	char buf[64];

	if (!kvm_line(data, size, r, &s, &e))
		return 0;
	switch (pick(r, visible ? 5 : 7)) {
	case 0: /* a pid no kernel has */
		if (!pid_at(data, s, e, &at, &len))
			return 0;
		snprintf(buf, sizeof(buf), "%llu", 2147483648ULL + pick(r, 1ULL << 33));
		describe(m, "a pid -> %s", buf);
		return text_splice(data, size, max, at, len, buf, strlen(buf));
	case 1: { /* blanks before the timestamp: a line past 4096 bytes */
		size_t pad = 4000 + pick(r, 2000);
		char *blanks;

		if (!ts_at(data, s, e, &at, &len) || size + pad > max)
			return 0;
		blanks = malloc(pad);
		memset(blanks, ' ', pad);
		size = text_splice(data, size, max, at, 0, blanks, pad);
		free(blanks);
		describe(m, "a %zu-byte line", e - s + pad);
		return size;
	}
	case 2: { /* the payload cut short (after the event's name: a shorter name is another event)
		   */
		const uint8_t *name = memmem(data + s, e - s, " kvm", 4);
		const uint8_t *colon =
		    name ? memmem(name, (size_t)(data + e - name), ": ", 2) : NULL;
		size_t from = colon ? (size_t)(colon - data) + 2 : e;

		if (from >= e)
			return 0;
		at = from + pick(r, e - from);
		describe(m, "a payload cut at %zu of %zu", at - s, e - s);
		return text_splice(data, size, max, at, e - at, "", 0);
	}
	case 3: /* a comm with terminal escapes */
		if (!pid_at(data, s, e, &at, &len))
			return 0;
		{
			const char *b = bad[pick(r, sizeof(bad) / sizeof(bad[0]))];

			describe(m, "a comm gets terminal escapes");
			return text_splice(data, size, max, at - 1, 0, b, strlen(b));
		}
	case 4: { /* a timestamp before everything, on a thread seen before: a step back */
		size_t pid, plen;
		char tok[32];

		if (!ts_at(data, s, e, &at, &len) || !pid_at(data, s, e, &pid, &plen) || plen > 20)
			return 0;
		snprintf(tok, sizeof(tok), "-%.*s ", (int)plen, (const char *)data + pid);
		if (!memmem(data, s, tok, strlen(tok)))
			return 0;
		describe(m, "a timestamp -> 0.000001 (its thread has earlier events)");
		return text_splice(data, size, max, at, len, "0.000001", 8);
	}
	case 5: /* not visible: the line twice, or gone */
		if (pick(r, 2))
			return text_splice(data, size, max, s, e - s + (e < size), "", 0);
		if (e < size)
			return text_splice(data, size, max, s, 0, data + s, e - s + 1);
		return 0;
	default: /* not visible: a digit of the payload */
		at = s + (e - s) / 2 + pick(r, (e - s) / 2 + 1);
		if (at < e && data[at] >= '0' && data[at] <= '9')
			data[at] = (uint8_t)('0' + pick(r, 10));
		return size;
	}
}

/* ---- any file ---- */

/* One structure-aware mutation of whatever data holds; 0 when none applies. */
static inline size_t mutate_any(uint8_t *data, size_t size, size_t max, struct rng *r, bool visible,
				struct mut_desc *m)
{
	if (size > 12 && !memcmp(data, "\027\010\104tracing6", 12))
		return mutate_v6(data, size, max, r, visible, m);
	if (size > 12 && !memcmp(data, "\027\010\104tracing7", 12)) {
		size_t n = pick(r, 2) ? mutate_v7_data(data, size, max, r, visible, m) : 0;

		return n ? n : mutate_v7(data, size, r, m);
	}
	if (!memchr(data, '\0', size))
		return mutate_text(data, size, max, r, visible, m);
	return 0;
}

#endif

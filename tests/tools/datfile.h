/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat v6 file as a structure, for tools that change one part of a
 * real recording and write the rest back as it was: tests/tools/craftdat
 * (the hostile fixtures) and the structure-aware fuzz mutators
 * (tests/fuzz/mutate.h). The file is parsed section by section
 * (trace-cmd.dat.v6(5)) and written out again with its CPU data page aligned
 * after the header, so a change that alters a section's length still gives
 * a file whose other parts are right. Host byte order (little-endian) only.
 *
 * Parsing never trusts a size: every block is checked against what is left
 * of the input (the fuzzers hand it anything), and a bad input gives -1.
 */
#ifndef KES_TEST_DATFILE_H
#define KES_TEST_DATFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct df_blob {
	unsigned char *p;
	size_t n;
};

struct df_fmt {
	char *sys;
	struct df_blob text;
};

struct df_opt {
	uint16_t id;
	struct df_blob data;
};

struct df_cpu {
	uint64_t off, size; /* as written; data is what the input had */
	struct df_blob data;
	int alias_of; /* its flyrecord entry copies this CPU's (shared data), or -1 */
};

struct df_file {
	unsigned char endian, long_size;
	uint32_t page_size;
	uint32_t layout_page; /* the page size the data is laid out with */
	struct df_blob header_page, header_event;
	struct df_blob *ftrace;
	uint32_t nftrace;
	struct df_fmt *fmts;
	size_t nfmts;
	struct df_blob kallsyms, printk, cmdlines;
	uint32_t ncpus;
	bool has_options;
	struct df_opt *opts;
	size_t nopts;
	struct df_cpu *cpus;
	struct df_blob clock;
	bool has_clock;
};

struct df_in {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static inline const unsigned char *df_take(struct df_in *in, size_t n)
{
	static const unsigned char zero[16];

	if (in->bad || n > in->n - in->off) {
		in->bad = true;
		return zero; /* callers read at most 16 bytes through it */
	}
	in->off += n;
	return in->p + in->off - n;
}

static inline uint64_t df_num(struct df_in *in, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, df_take(in, n), n);
	return v;
}

static inline struct df_blob df_copy(struct df_in *in, uint64_t n)
{
	struct df_blob b = {NULL, 0};

	if (in->bad || n > in->n - in->off) {
		in->bad = true;
		return b;
	}
	b.p = malloc(n ? n : 1);
	b.n = n;
	memcpy(b.p, in->p + in->off, n);
	in->off += n;
	return b;
}

static inline void df_expect(struct df_in *in, const char *s, size_t n)
{
	if (in->bad || n > in->n - in->off || memcmp(in->p + in->off, s, n))
		in->bad = true;
	else
		in->off += n;
}

static inline void df_parse_formats(struct df_in *in, struct df_file *d)
{
	uint32_t nsys = (uint32_t)df_num(in, 4);

	for (uint32_t s = 0; s < nsys && !in->bad; s++) {
		const char *name = (const char *)in->p + in->off;
		size_t len = strnlen(name, in->n - in->off);
		uint32_t n;

		df_take(in, len + 1);
		n = (uint32_t)df_num(in, 4);
		if (n > (in->n - in->off) / 8) { /* each format needs its 8-byte size */
			in->bad = true;
			return;
		}
		d->fmts = realloc(d->fmts, (d->nfmts + n) * sizeof(*d->fmts));
		for (uint32_t i = 0; i < n && !in->bad; i++) {
			struct df_fmt *f = &d->fmts[d->nfmts];

			f->text = df_copy(in, df_num(in, 8));
			if (in->bad)
				break;
			f->sys = strndup(name, len);
			d->nfmts++;
		}
	}
}

static inline void df_parse_options(struct df_in *in, struct df_file *d)
{
	while (!in->bad) {
		uint16_t id = (uint16_t)df_num(in, 2);

		if (!id || in->bad)
			return;
		d->opts = realloc(d->opts, (d->nopts + 1) * sizeof(*d->opts));
		d->opts[d->nopts].id = id;
		d->opts[d->nopts].data = df_copy(in, df_num(in, 4));
		if (!in->bad)
			d->nopts++;
	}
}

static inline void df_free(struct df_file *d)
{
	free(d->header_page.p);
	free(d->header_event.p);
	for (uint32_t i = 0; d->ftrace && i < d->nftrace; i++)
		free(d->ftrace[i].p);
	free(d->ftrace);
	for (size_t i = 0; i < d->nfmts; i++) {
		free(d->fmts[i].sys);
		free(d->fmts[i].text.p);
	}
	free(d->fmts);
	free(d->kallsyms.p);
	free(d->printk.p);
	free(d->cmdlines.p);
	for (size_t i = 0; i < d->nopts; i++)
		free(d->opts[i].data.p);
	free(d->opts);
	for (uint32_t i = 0; d->cpus && i < d->ncpus; i++)
		free(d->cpus[i].data.p);
	free(d->cpus);
	free(d->clock.p);
	memset(d, 0, sizeof(*d));
}

/* 0 and *d filled, or -1 (nothing to free) when p[0, n) is not a v6 flyrecord file. */
static inline int df_parse(const unsigned char *p, size_t n, struct df_file *d)
{
	struct df_in in = {p, n, 0, false};
	const unsigned char *kind;

	memset(d, 0, sizeof(*d));
	df_expect(&in, "\027\010\104tracing6", 12);
	d->endian = *df_take(&in, 1);
	d->long_size = *df_take(&in, 1);
	d->page_size = d->layout_page = (uint32_t)df_num(&in, 4);
	if (in.bad || d->endian || d->page_size < 64 || d->page_size > (1u << 27) ||
	    (d->page_size & (d->page_size - 1)))
		goto bad;
	df_expect(&in, "header_page", 12);
	d->header_page = df_copy(&in, df_num(&in, 8));
	df_expect(&in, "header_event", 13);
	d->header_event = df_copy(&in, df_num(&in, 8));
	d->nftrace = (uint32_t)df_num(&in, 4);
	if (in.bad || d->nftrace > (in.n - in.off) / 8)
		goto bad;
	d->ftrace = calloc(d->nftrace + 1, sizeof(*d->ftrace));
	for (uint32_t i = 0; i < d->nftrace && !in.bad; i++)
		d->ftrace[i] = df_copy(&in, df_num(&in, 8));
	df_parse_formats(&in, d);
	d->kallsyms = df_copy(&in, df_num(&in, 4));
	d->printk = df_copy(&in, df_num(&in, 4));
	d->cmdlines = df_copy(&in, df_num(&in, 8));
	d->ncpus = (uint32_t)df_num(&in, 4);
	kind = df_take(&in, 10);
	if (!in.bad && !memcmp(kind, "options  ", 10)) {
		d->has_options = true;
		df_parse_options(&in, d);
		kind = df_take(&in, 10);
	}
	if (in.bad || memcmp(kind, "flyrecord", 10) || !d->ncpus || d->ncpus > (in.n - in.off) / 16)
		goto bad;
	d->cpus = calloc(d->ncpus, sizeof(*d->cpus));
	for (uint32_t i = 0; i < d->ncpus; i++) {
		d->cpus[i].off = df_num(&in, 8);
		d->cpus[i].size = df_num(&in, 8);
		d->cpus[i].alias_of = -1;
	}
	/* The trace clock follows the table when the first CPU data leaves room for it. */
	if (!in.bad && in.n - in.off >= 8 && d->cpus[0].off >= in.off + 8) {
		d->has_clock = true;
		d->clock = df_copy(&in, df_num(&in, 8));
	}
	for (uint32_t i = 0; i < d->ncpus && !in.bad; i++) {
		struct df_in c = {p, n, 0, false};

		if (d->cpus[i].off > n)
			goto bad;
		c.off = (size_t)d->cpus[i].off;
		d->cpus[i].data = df_copy(&c, d->cpus[i].size);
		if (c.bad)
			goto bad;
	}
	if (in.bad)
		goto bad;
	return 0;
bad:
	df_free(d);
	return -1;
}

/* ---- output ---- */

struct df_out {
	unsigned char *p;
	size_t n, cap;
};

static inline void df_put(struct df_out *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 4096;
		o->p = realloc(o->p, o->cap);
	}
	if (n)
		memset(o->p + o->n, 0, n);
	if (n && p)
		memcpy(o->p + o->n, p, n);
	o->n += n;
}

static inline void df_put_num(struct df_out *o, uint64_t v, size_t n)
{
	df_put(o, &v, n);
}

static inline void df_put_blob(struct df_out *o, const struct df_blob *b, size_t szlen)
{
	df_put_num(o, b->n, szlen);
	df_put(o, b->p, b->n);
}

static inline void df_put_formats(struct df_out *o, const struct df_file *d)
{
	size_t nsys = 0;
	const char **sys = calloc(d->nfmts + 1, sizeof(*sys));

	for (size_t i = 0; i < d->nfmts; i++) {
		size_t j = 0;

		while (j < nsys && strcmp(sys[j], d->fmts[i].sys))
			j++;
		if (j == nsys)
			sys[nsys++] = d->fmts[i].sys;
	}
	df_put_num(o, nsys, 4);
	for (size_t j = 0; j < nsys; j++) {
		uint32_t n = 0;

		for (size_t i = 0; i < d->nfmts; i++)
			n += !strcmp(d->fmts[i].sys, sys[j]);
		df_put(o, sys[j], strlen(sys[j]) + 1);
		df_put_num(o, n, 4);
		for (size_t i = 0; i < d->nfmts; i++)
			if (!strcmp(d->fmts[i].sys, sys[j]))
				df_put_blob(o, &d->fmts[i].text, 8);
	}
	free(sys);
}

/*
 * The file as bytes (malloc'd into *out, *len). CPU data is laid out page
 * aligned (d->layout_page) after the header; an aliased CPU's entry points
 * at its source's data. Updates d->cpus[].off.
 */
static inline void df_emit(struct df_file *d, unsigned char **out, size_t *len)
{
	struct df_out o = {0};
	size_t table;
	uint64_t off;

	df_put(&o, "\027\010\104tracing6", 12);
	df_put(&o, &d->endian, 1);
	df_put(&o, &d->long_size, 1);
	df_put_num(&o, d->page_size, 4);
	df_put(&o, "header_page", 12);
	df_put_blob(&o, &d->header_page, 8);
	df_put(&o, "header_event", 13);
	df_put_blob(&o, &d->header_event, 8);
	df_put_num(&o, d->nftrace, 4);
	for (uint32_t i = 0; i < d->nftrace; i++)
		df_put_blob(&o, &d->ftrace[i], 8);
	df_put_formats(&o, d);
	df_put_blob(&o, &d->kallsyms, 4);
	df_put_blob(&o, &d->printk, 4);
	df_put_blob(&o, &d->cmdlines, 8);
	df_put_num(&o, d->ncpus, 4);
	if (d->has_options) {
		df_put(&o, "options  ", 10);
		for (size_t i = 0; i < d->nopts; i++) {
			df_put_num(&o, d->opts[i].id, 2);
			df_put_blob(&o, &d->opts[i].data, 4);
		}
		df_put_num(&o, 0, 2);
	}
	df_put(&o, "flyrecord", 10);
	table = o.n;
	df_put(&o, NULL, 16 * (size_t)d->ncpus);
	if (d->has_clock)
		df_put_blob(&o, &d->clock, 8);
	/* Page aligned, as libtracecmd needs (it steps pages with masks). */
	off = (o.n + d->layout_page - 1) / d->layout_page * d->layout_page;
	for (uint32_t i = 0; i < d->ncpus; i++) {
		struct df_cpu *c = &d->cpus[i];

		if (c->alias_of >= 0)
			continue;
		c->off = off;
		off += c->size;
	}
	for (uint32_t i = 0; i < d->ncpus; i++) {
		struct df_cpu *c = &d->cpus[i];

		if (c->alias_of >= 0 && (uint32_t)c->alias_of < d->ncpus) {
			c->off = d->cpus[c->alias_of].off;
			c->size = d->cpus[c->alias_of].size;
		}
		memcpy(o.p + table + 16 * i, &c->off, 8);
		memcpy(o.p + table + 16 * i + 8, &c->size, 8);
	}
	while (o.n < off) {
		size_t pad = off - o.n;

		df_put(&o, NULL, pad < 65536 ? pad : 65536);
	}
	for (uint32_t i = 0; i < d->ncpus; i++) {
		const struct df_cpu *c = &d->cpus[i];

		if (c->alias_of < 0)
			memcpy(o.p + c->off, c->data.p, c->data.n < c->size ? c->data.n : c->size);
	}
	*out = o.p;
	*len = o.n;
}

/* ---- edits ---- */

/* The format of SYS:EVENT, or NULL. */
static inline struct df_fmt *df_find_fmt(struct df_file *d, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char want[256];

	if (!colon)
		return NULL;
	snprintf(want, sizeof(want), "name: %s\n", colon + 1);
	for (size_t i = 0; i < d->nfmts; i++) {
		struct df_fmt *f = &d->fmts[i];

		if (strlen(f->sys) == (size_t)(colon - spec) &&
		    !strncmp(f->sys, spec, colon - spec) &&
		    memmem(f->text.p, f->text.n, want, strlen(want)))
			return f;
	}
	return NULL;
}

/* Replaces b[at, at + len) with s. */
static inline void df_splice(struct df_blob *b, size_t at, size_t len, const char *s, size_t sl)
{
	unsigned char *p = malloc(b->n - len + sl + 1);

	memcpy(p, b->p, at);
	memcpy(p + at, s, sl);
	memcpy(p + at + sl, b->p + at + len, b->n - at - len);
	free(b->p);
	b->n = b->n - len + sl;
	b->p = p;
}

/*
 * Where the number after `key` starts (after `anchor`, when given) in b, and
 * its length; -1 when there is none.
 */
static inline long df_number_at(const struct df_blob *b, const char *anchor, const char *key,
				size_t *len)
{
	const unsigned char *s = b->p, *end = b->p + b->n;
	const unsigned char *a = anchor ? memmem(s, b->n, anchor, strlen(anchor)) : s;
	const unsigned char *k = a ? memmem(a, (size_t)(end - a), key, strlen(key)) : NULL;
	size_t at, n = 0;

	if (!k)
		return -1;
	at = (size_t)(k - s) + strlen(key);
	while (at + n < b->n && (s[at + n] == '-' || (s[at + n] >= '0' && s[at + n] <= '9')))
		n++;
	*len = n;
	return (long)at;
}

/* The number after key (after anchor) becomes v. 0, or -1 when there is none. */
static inline int df_set_number(struct df_blob *b, const char *anchor, const char *key,
				const char *v)
{
	size_t len;
	long at = df_number_at(b, anchor, key, &len);

	if (at < 0)
		return -1;
	df_splice(b, (size_t)at, len, v, strlen(v));
	return 0;
}

static inline uint64_t df_commit(const struct df_file *d, const unsigned char *page)
{
	uint64_t v = 0;

	memcpy(&v, page + 8, d->long_size == 4 ? 4 : 8);
	return v;
}

static inline void df_set_commit(const struct df_file *d, unsigned char *page, uint64_t v)
{
	memcpy(page + 8, &v, d->long_size == 4 ? 4 : 8);
}

/*
 * Each data record of a page, in order: fn(arg, its payload, its length);
 * a non-zero return stops the walk and is returned. The kernel's record
 * header rules (type_len 1..28: 4-byte words of payload; 0: the length in
 * array[0], which counts itself; 29 padding, 30 time extend, 31 time stamp).
 */
static inline int df_each_record(const struct df_file *d, unsigned char *page, size_t page_len,
				 int (*fn)(void *arg, unsigned char *payload, uint32_t len),
				 void *arg)
{
	size_t hdr = 8 + (d->long_size == 4 ? 4 : 8);
	unsigned char *data = page + hdr;
	uint32_t size = (uint32_t)(df_commit(d, page) & ((1u << 27) - 1)), off = 0;

	if (size > page_len - hdr)
		return 0;
	while (off + 4 <= size) {
		uint32_t h, tl, len = 0, n;
		int r = 0;

		memcpy(&h, data + off, 4);
		tl = h & 31;
		if (tl && tl <= 28) {
			n = 4 + tl * 4;
			r = n <= size - off ? fn(arg, data + off + 4, tl * 4) : 0;
		} else {
			if (off + 8 > size)
				break;
			memcpy(&len, data + off + 4, 4);
			n = tl == 0 ? 8 + ((len - 4 + 3) & ~3u) : tl == 29 ? 4 + len : 8;
			if (tl == 0 && len >= 4 && n <= size - off)
				r = fn(arg, data + off + 8, len - 4);
		}
		if (r)
			return r;
		if (!n || n > size - off)
			break;
		off += n;
	}
	return 0;
}

/* Where the page's last data record starts (the kernel's record header rules), or 0. */
static inline uint32_t df_last_record(const struct df_file *d, const unsigned char *page,
				      size_t page_len)
{
	size_t hdr = 8 + (d->long_size == 4 ? 4 : 8);
	const unsigned char *data = page + hdr;
	uint32_t size = (uint32_t)(df_commit(d, page) & ((1u << 27) - 1)), off = 0, last = 0;

	if (size > page_len - hdr)
		return 0;
	while (off + 8 <= size) {
		uint32_t h, tl, len = 0, n;

		memcpy(&h, data + off, 4);
		tl = h & 31;
		if (tl && tl <= 28) {
			n = 4 + tl * 4;
		} else {
			memcpy(&len, data + off + 4, 4);
			n = tl == 0 ? 8 + ((len - 4 + 3) & ~3u) : tl == 29 ? 4 + len : 8;
		}
		if (tl <= 28)
			last = off;
		if (!n || n > size - off)
			break;
		off += n;
	}
	return last;
}

#endif

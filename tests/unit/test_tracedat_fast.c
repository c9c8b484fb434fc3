// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat fast path against libtracecmd, record by record: the same
 * records in the same order, with the same timestamps, CPUs, sizes, bytes
 * and loss counts. Pages are built by hand so that every kbuffer rule is
 * exercised: padding that carries a delta, TIME_EXTEND and absolute
 * TIME_STAMP records, large (type 0) records, loss flags with and without a
 * stored count, on the first record and behind a time extend, empty pages,
 * ties between CPUs. Then corrupt and truncated copies: a clean error or a
 * clean read, never a crash (make asan-check runs this under ASan).
 *
 * With file arguments it compares those files instead (tests/e2e/fastpath.sh
 * passes fresh recordings and trace-cmd conversions).
 * Runs from the source tree root (make check).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "common.h"
#include "collect.h"
#include "source.h"
#include "source/collect-local.h"

#define X86  "tests/fixtures/formats/x86"
#define PAGE 4096
#define ID   42 /* kvm_userspace_exit in the x86 fixture formats */

static char tmpdir[] = "/tmp/kes-tdfast-XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

/* ---- a record stream, as either path hands it out ---- */

struct rec {
	uint64_t ts, hash;
	int cpu, size;
	long long missed;
};

struct stream {
	struct rec *r;
	size_t n, cap;
};

static uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

static int collect(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	struct stream *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->r = xrealloc(s->r, s->cap * sizeof(*s->r));
	}
	/* libtracecmd hands out negative sizes from corrupt pages */
	s->r[s->n++] = (struct rec){ts, size > 0 ? fnv(data, (size_t)size) : 0, cpu, size, missed};
	return 0;
}

/* Reads path with the fast path on or off. Returns iterate's result, -2 if it does not open. */
static int read_stream(const char *path, bool fast, struct stream *s, bool *used_fast, char *e,
		       size_t elen)
{
	struct tracedat *td = tracedat_open(path, e, elen);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!td)
		return -2;
	*used_fast = tracedat_set_fast(td, fast);
	ret = tracedat_iterate(td, collect, s, e, elen);
	tracedat_close(td);
	return ret;
}

/* Both paths on path: equal streams. Returns the number of records, -1 on a difference. */
static long compare(const char *path, bool want_fast)
{
	struct stream a, b;
	bool fa, fb;
	char e[256];
	long ret = -1;
	int ra = read_stream(path, true, &a, &fa, e, sizeof(e));
	int rb = read_stream(path, false, &b, &fb, e, sizeof(e));

	CHECK(ra == 0 && rb == 0, "%s: read %d/%d: %s", path, ra, rb, e);
	CHECK(fa == want_fast && !fb, "%s: fast path %s", path, fa ? "used" : "not used");
	CHECK(a.n == b.n, "%s: %zu records fast, %zu libtracecmd", path, a.n, b.n);
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		struct rec *x = &a.r[i], *y = &b.r[i];

		if (x->ts != y->ts || x->cpu != y->cpu || x->size != y->size ||
		    x->hash != y->hash || x->missed != y->missed) {
			CHECK(0,
			      "%s: record %zu: fast ts %llu cpu %d size %d missed %lld, "
			      "libtracecmd ts %llu cpu %d size %d missed %lld",
			      path, i, (unsigned long long)x->ts, x->cpu, x->size, x->missed,
			      (unsigned long long)y->ts, y->cpu, y->size, y->missed);
			goto out;
		}
	}
	if (a.n == b.n)
		ret = (long)a.n;
out:
	free(a.r);
	free(b.r);
	return ret;
}

/* ---- hand-built pages ---- */

struct page {
	unsigned char b[PAGE];
	size_t used; /* bytes of records */
	unsigned payload;
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
}

static unsigned char *room(struct page *p, size_t n)
{
	unsigned char *at = p->b + 16 + p->used;

	if (16 + p->used + n > PAGE)
		abort(); /* a test bug */
	p->used += n;
	return at;
}

static void put32(unsigned char *at, uint32_t v)
{
	memcpy(at, &v, 4);
}

/* An event payload: common_type, flags, pid, then distinct bytes. */
static void payload(struct page *p, unsigned char *at, size_t len, int32_t pid)
{
	uint16_t id = ID;

	for (size_t i = 0; i < len; i++)
		at[i] = (unsigned char)(p->payload++ * 7 + i);
	memcpy(at, &id, 2);
	memcpy(at + 4, &pid, 4);
}

/* A data record of len bytes (a multiple of 4): small form up to 112, else type 0. */
static void rec_data(struct page *p, uint32_t delta, size_t len, int32_t pid)
{
	if (len <= 112) {
		unsigned char *at = room(p, 4 + len);
		put32(at, (uint32_t)(len / 4) | delta << 5);
		payload(p, at + 4, len, pid);
	} else {
		unsigned char *at = room(p, 8 + len);
		put32(at, delta << 5);
		put32(at + 4, (uint32_t)len + 4);
		payload(p, at + 8, len, pid);
	}
}

/* len: the bytes after the header, the length word included (the kernel's array[0]) */
static void rec_padding(struct page *p, uint32_t delta, uint32_t len)
{
	unsigned char *at = room(p, 4 + len);

	if (len < 4)
		abort();
	put32(at, 29 | delta << 5);
	put32(at + 4, len);
}

static void rec_extend(struct page *p, uint64_t delta)
{
	unsigned char *at = room(p, 8);

	put32(at, 30 | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
	put32(at + 4, (uint32_t)(delta >> 27));
}

static void rec_stamp(struct page *p, uint64_t abs)
{
	unsigned char *at = room(p, 8);

	put32(at, 31 | (uint32_t)(abs & ((1u << 27) - 1)) << 5);
	put32(at + 4, (uint32_t)(abs >> 27));
}

/* Sets the commit; flags: RINGPAGE_MISSING_*; a stored count goes after the data. */
static void page_commit(struct page *p, uint64_t flags, uint64_t missed)
{
	uint64_t commit = p->used | flags;

	memcpy(p->b + 8, &commit, 8);
	if (flags & RINGPAGE_MISSING_STORED)
		memcpy(p->b + 16 + p->used, &missed, 8);
}

/* ---- files ---- */

struct meta {
	char *hp, *he, *fmt;
	size_t hplen, helen, fmtlen;
};

static int load_meta(struct meta *m)
{
	return datwrite_slurp(X86 "/header_page", &m->hp, &m->hplen) ||
	       datwrite_slurp(X86 "/header_event", &m->he, &m->helen) ||
	       datwrite_slurp(X86 "/kvm_userspace_exit/format", &m->fmt, &m->fmtlen);
}

static void free_meta(struct meta *m)
{
	free(m->hp);
	free(m->he);
	free(m->fmt);
}

/* Writes pages[i] to cpus[i], in order. */
static int write_dat(const char *path, const struct meta *mt, int ncpus, struct page *pages,
		     const int *cpus, size_t npages)
{
	struct datwrite_format f = {"kvm", mt->fmt, mt->fmtlen};
	struct datwrite_meta m = {.header_page = mt->hp,
				  .header_page_len = mt->hplen,
				  .header_event = mt->he,
				  .header_event_len = mt->helen,
				  .formats = &f,
				  .nformats = 1,
				  .uname = true,
				  .trace_clock = "[local] global\n"};
	char e[256];
	struct datwrite *w = datwrite_new(path, ncpus, PAGE, e, sizeof(e));
	int ret = -1;

	if (!w)
		return -1;
	for (size_t i = 0; i < npages; i++)
		if (datwrite_page(w, cpus[i], pages[i].b, PAGE))
			goto out;
	ret = datwrite_finish(w, &m, e, sizeof(e));
out:
	datwrite_free(w);
	return ret;
}

#define NPAGES 12
static struct page pages[NPAGES];
static int cpus[NPAGES];

/* Every kbuffer rule, over two CPUs. Returns the number of pages. */
static size_t build_pages(void)
{
	size_t n = 0;
	struct page *p;

	/* cpu 0, page 0: plain small records, a loss count stored, on the first record */
	p = &pages[n];
	cpus[n++] = 0;
	page_init(p, 1000);
	rec_data(p, 0, 16, 101);
	rec_data(p, 10, 8, 101);
	rec_data(p, 5, 112, 101); /* the largest small form */
	rec_data(p, 0, 16, 102);  /* same time as the one before */
	page_commit(p, RINGPAGE_MISSING_EVENTS | RINGPAGE_MISSING_STORED, 42);

	/* cpu 0, page 1: a time extend first, then a flagged loss: kbuffer reports 0 */
	p = &pages[n];
	cpus[n++] = 0;
	page_init(p, 2000);
	rec_extend(p, (5ULL << 27) + 3);
	rec_data(p, 1, 16, 101);
	rec_data(p, 2, 200, 101); /* type 0 */
	rec_padding(p, 7, 12);	  /* a discarded event: its delta counts */
	rec_data(p, 1, 16, 101);
	page_commit(p, RINGPAGE_MISSING_EVENTS | RINGPAGE_MISSING_STORED, 5);

	/* cpu 0, page 2: empty and flagged: the loss is never reported */
	p = &pages[n];
	cpus[n++] = 0;
	page_init(p, 3000);
	page_commit(p, RINGPAGE_MISSING_EVENTS | RINGPAGE_MISSING_STORED, 9);

	/* cpu 0, page 3: loss without a stored count (-1); an absolute time stamp */
	p = &pages[n];
	cpus[n++] = 0;
	page_init(p, 0xf800000000000000ULL | 4000000000ULL);
	rec_data(p, 0, 16, 101);
	rec_stamp(p, 4000000500ULL);
	rec_data(p, 3, 16, 101);
	rec_data(p, 0, 20, 101);
	page_commit(p, RINGPAGE_MISSING_EVENTS, 0);

	/* cpu 1, page 0: ties with cpu 0 (1000, 1015), padding first then a flag: 0 */
	p = &pages[n];
	cpus[n++] = 1;
	page_init(p, 990);
	rec_padding(p, 10, 4);
	rec_data(p, 0, 16, 201); /* 1000: after cpu 0's 1000 */
	rec_data(p, 15, 16, 201);
	rec_data(p, 1 << 20, 16, 201);
	page_commit(p, RINGPAGE_MISSING_EVENTS | RINGPAGE_MISSING_STORED, 3);

	/* cpu 1, page 1: a long run of small records filling the page */
	p = &pages[n];
	cpus[n++] = 1;
	page_init(p, 2100);
	while (p->used + 20 + 8 <= PAGE - 16)
		rec_data(p, 1, 16, 202);
	page_commit(p, 0, 0);

	/* cpu 1, page 2: a padding record that ends the page (the kernel's tail) */
	p = &pages[n];
	cpus[n++] = 1;
	page_init(p, 5000000000ULL);
	rec_data(p, 0, 16, 203);
	rec_padding(p, 0, 100);
	page_commit(p, 0, 0);
	return n;
}

static void test_rules(const struct meta *m)
{
	size_t n = build_pages();
	long got;

	CHECK(write_dat(tmp("rules.dat"), m, 2, pages, cpus, n) == 0, "write rules.dat");
	got = compare(tmp("rules.dat"), true);
	CHECK(got > 200, "rules.dat: %ld records", got);
}

/* Four CPUs, many pages, random deltas: the merge on a bigger heap. */
static void test_merge(const struct meta *m)
{
	enum { NCPU = 4, PER = 24 };
	static struct page many[NCPU * PER];
	static int mcpus[NCPU * PER];
	uint64_t ts[NCPU] = {100, 100, 50, 7000};
	unsigned seed = 1;
	size_t n = 0;

	for (int k = 0; k < PER; k++)
		for (int c = 0; c < NCPU; c++) {
			struct page *p = &many[n];
			mcpus[n++] = c;
			page_init(p, ts[c]);
			while (p->used + 40 + 16 <= PAGE - 16) {
				uint32_t d = (seed = seed * 1103515245 + 12345) >> 20 & 0xff;
				rec_data(p, d, 16 + 4 * (d & 3), 300 + c);
				ts[c] += d;
			}
			page_commit(p, 0, 0);
		}
	CHECK(write_dat(tmp("merge.dat"), m, NCPU, many, mcpus, n) == 0, "write merge.dat");
	CHECK(compare(tmp("merge.dat"), true) > 10000, "merge.dat");
}

static int copy_file(const char *from, const char *to, long cut)
{
	char *buf;
	size_t len;
	FILE *f;
	int ret = -1;

	if (datwrite_slurp(from, &buf, &len))
		return -1;
	if (cut >= 0 && (size_t)cut < len)
		len = (size_t)cut;
	if ((f = fopen(to, "w"))) {
		ret = fwrite(buf, 1, len, f) == len ? 0 : -1;
		fclose(f);
	}
	free(buf);
	return ret;
}

static void patch(const char *path, long off, const void *bytes, size_t n)
{
	FILE *f = fopen(path, "r+");

	if (!f)
		return;
	fseek(f, off, SEEK_SET);
	fwrite(bytes, 1, n, f);
	fclose(f);
}

/* Where the CPU data starts: the layout reader's own answer. */
static long data_start(const char *path)
{
	struct datfile_layout l;
	FILE *f = fopen(path, "r");
	long off = -1;

	if (!f)
		return -1;
	if (datfile_layout(fileno(f), &l) == 0) {
		off = (long)l.cpus[0].offset;
		datfile_layout_free(&l);
	}
	fclose(f);
	return off;
}

/*
 * Reads path with the fast path, hashing every record's bytes (a bad pointer
 * would crash). Returns iterate's result, or -2 when the file does not open.
 * libtracecmd is not run on these files: on a corrupt page it hands out
 * records that run far past the page, or crashes in kbuffer.
 */
static int survive(const char *path, char *e, size_t elen)
{
	struct stream s;
	bool used;
	int ret = read_stream(path, true, &s, &used, e, elen);

	free(s.r);
	return ret;
}

static void test_corrupt(void)
{
	const char *good = tmp("rules.dat"), *bad = tmp("bad.dat");
	long base = data_start(good);
	char e[256];
	int ret;

	CHECK(base > 0 && base % PAGE == 0, "data at %ld", base);
	/* page 1 of cpu 0 claims more data than a page holds */
	uint64_t big = PAGE;
	copy_file(good, bad, -1);
	patch(bad, base + PAGE + 8, &big, 8);
	e[0] = 0;
	ret = survive(bad, e, sizeof(e));
	CHECK(ret == -1 && strstr(e, "corrupt ring-buffer page") && !strchr(e, '\n'),
	      "oversized commit: %d '%s'", ret, e);
	/* a type 0 record whose length runs past the commit */
	uint32_t huge = 0x7ffffff0;
	copy_file(good, bad, -1);
	patch(bad, base + PAGE + 16 + 8 + 4 + 16 + 4, &huge, 4);
	ret = survive(bad, e, sizeof(e));
	CHECK(ret == -1 && strstr(e, "corrupt"), "record past the commit: %d '%s'", ret, e);
	/* the first page of a CPU is checked before libtracecmd reads it (and crashes) */
	copy_file(good, bad, -1);
	patch(bad, base + 8, &big, 8);
	ret = survive(bad, e, sizeof(e));
	CHECK(ret == -2 && strstr(e, "corrupt ring-buffer page at file offset"),
	      "corrupt first page: %d '%s'", ret, e);
	/* ... all of it: the second record of cpu 0's first page runs past the commit */
	uint32_t type0 = 0;
	copy_file(good, bad, -1);
	patch(bad, base + 16 + 20, &type0, 4);
	patch(bad, base + 16 + 24, &huge, 4);
	ret = survive(bad, e, sizeof(e));
	CHECK(ret == -2 && strstr(e, "corrupt ring-buffer page"),
	      "corrupt first page record: %d '%s'", ret, e);
	/* every byte of every page header set to 0xff in turn: one error line or a read */
	int errors = 0, reads = 0;
	for (int pg = 0; pg < 7; pg++)
		for (int b = 0; b < 16; b++) {
			long off = base + (long)pg * PAGE + b;
			unsigned char x = 0xff;
			copy_file(good, bad, -1);
			patch(bad, off, &x, 1);
			e[0] = 0;
			ret = survive(bad, e, sizeof(e));
			if (ret < 0 && (!e[0] || strchr(e, '\n')))
				CHECK(0, "flip at %ld: no one-line reason: '%s'", off, e);
			errors += ret < 0;
			reads += ret == 0;
		}
	CHECK(errors + reads == 7 * 16, "flipped headers: %d errors, %d reads", errors, reads);
	CHECK(errors >= 7 && reads >= 7 * 8, "flips: %d errors, %d reads", errors, reads);
	/* truncated copies: libtracecmd refuses them, or the layout does: no SIGBUS */
	long cuts[] = {5, 20, 100, 600, base - 1, base + 10, base + PAGE + 100, base + 5 * PAGE};
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
		copy_file(good, bad, cuts[i]);
		ret = survive(bad, e, sizeof(e));
		CHECK(ret == -2 || ret == -1 || ret == 0, "cut at %ld: %d", cuts[i], ret);
		CHECK(ret != 0 || cuts[i] >= base + 7 * PAGE, "cut at %ld reads as whole", cuts[i]);
	}
}

/* Options the fast path must leave to libtracecmd; the environment switch. */
static void test_fallback(void)
{
	const char *good = tmp("rules.dat"), *opt = tmp("date.dat");
	char e[256], *buf;
	size_t len;
	struct tracedat *td;

	/* the UNAME option (id 5) renamed DATE (id 1): timestamps move, libtracecmd's job */
	CHECK(datwrite_slurp(good, &buf, &len) == 0, "read rules.dat");
	char *o = memmem(buf, len, "options  ", 10);
	CHECK(o != NULL, "options found");
	if (o) {
		unsigned char *p = (unsigned char *)o + 10;
		uint16_t id;
		uint32_t size;
		for (;;) {
			memcpy(&id, p, 2);
			if (!id)
				break;
			memcpy(&size, p + 2, 4);
			if (id == 5) {
				id = 1;
				memcpy(p, &id, 2);
				break;
			}
			p += 6 + size;
		}
		CHECK(id == 1, "UNAME option found");
		copy_file(good, opt, -1);
		patch(opt, (long)((char *)p - buf), &id, 2);
		CHECK(compare(opt, false) > 200, "a DATE option goes to libtracecmd");
	}
	free(buf);
	CHECK(compare("tests/fixtures/text/trace.dat", false) > 100, "zstd v7 goes to libtracecmd");
	setenv("KES_NO_FASTPATH", "1", 1);
	td = tracedat_open(good, e, sizeof(e));
	CHECK(td && !tracedat_is_fast(td), "KES_NO_FASTPATH=1 turns it off");
	tracedat_close(td);
	setenv("KES_NO_FASTPATH", "0", 1);
	td = tracedat_open(good, e, sizeof(e));
	CHECK(td && tracedat_is_fast(td), "KES_NO_FASTPATH=0 leaves it on");
	tracedat_close(td);
	unsetenv("KES_NO_FASTPATH");
}

/* A page that only the walker sees: its rules without a file. */
static void test_walker(void)
{
	struct page p;
	struct ringpage_cur c;
	struct ringpage_rec r;
	struct ringpage_info info;

	page_init(&p, 100);
	rec_extend(&p, 1ULL << 30);
	rec_data(&p, 4, 16, 1);
	rec_padding(&p, 2, 8);
	rec_data(&p, 1, 16, 1);
	page_commit(&p, RINGPAGE_MISSING_EVENTS | RINGPAGE_MISSING_STORED, 77);
	CHECK(ringpage_open(&c, p.b, PAGE, 8) == 0 && c.missed == 77, "open: missed %lld",
	      c.missed);
	CHECK(ringpage_next(&c, &r) == 1 && r.ts == 100 + (1ULL << 30) + 4 && r.missed == 0,
	      "after an extend: ts %llu missed %lld", (unsigned long long)r.ts, r.missed);
	CHECK(ringpage_next(&c, &r) == 1 && r.ts == 100 + (1ULL << 30) + 7 && r.size == 16,
	      "padding delta counts: ts %llu", (unsigned long long)r.ts);
	CHECK(ringpage_next(&c, &r) == 0, "end of page");
	CHECK(ringpage_count(p.b, PAGE, 8, &info) == 0 && info.events == 2 && info.missed == 77 &&
		  info.missed_known,
	      "ringpage_count agrees");
	CHECK(ringpage_open(&c, p.b, 15, 8) < 0, "page shorter than its header");
	CHECK(ringpage_open(&c, p.b, PAGE, 6) < 0, "bad long size");
}

static int compare_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char e[256];
		struct tracedat *td = tracedat_open(argv[i], e, sizeof(e));
		bool fast = td && tracedat_is_fast(td);

		tracedat_close(td);
		long n = compare(argv[i], fast);
		printf("%s: %ld records, %s\n", argv[i], n,
		       fast ? "fast path" : "libtracecmd only");
	}
	return test_summary("test_tracedat_fast");
}

int main(int argc, char **argv)
{
	struct meta m = {0};

	if (argc > 1)
		return compare_files(argc, argv);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(load_meta(&m) == 0, "fixture formats (run from the source tree root)");
	test_walker();
	test_rules(&m);
	test_merge(&m);
	test_corrupt();
	test_fallback();
	free_meta(&m);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return test_summary("test_tracedat_fast");
}

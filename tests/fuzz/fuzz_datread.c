// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: our own trace.dat readers, which input_load() reaches only
 * for files libtracecmd accepts (or, for the header, before it is asked):
 * the header walker and its checks (datfile_layout: page size against
 * header_page, CPU data bounds and overlaps, the options' layouts, CPUSTAT)
 * and the per-CPU stats text in it, the fast path's
 * windowed page lanes (tracedat_fast_*) and the feed's walk and merge of
 * them (feed.h), its zstd lanes
 * (tracedat_zstd_*: chunk headers, frames, the pages in them, and the
 * compressed HEADER INFO section datfile_layout reads), and the ring-buffer
 * page parser on a buffer of exactly the input's size, so that ASan sees
 * any read past a page.
 *
 * Every record count the fast path and the zstd lanes read without an error
 * must be what an independent page walker finds (pagewalk.h, issue 29): a
 * file they take whole must hold those records, and a page or chunk the
 * walker finds broken must be an error, never read as something else.
 *
 * Then the rest of our trace.dat path, in-process and fast (no libtracecmd,
 * whose probe child makes fuzz_input fork per input): the file's own formats
 * parsed by libtraceevent into a tep, the decoder built from them with its
 * checks, every record of the lanes decoded and paired by the feed, the CPUSTAT
 * cross-check (pipeline/tally.c) and every renderer.
 */
#include <ctype.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "decode.h"
#include "feed.h"
#include "fuzz.h"
#include "lanes.h"
#include "pair.h"
#include "pipeline/pipeline-local.h"
#include "ring.h"
#include "input/tracedat-local.h"
#include "pagewalk.h"

struct reading {
	unsigned sum;
	uint64_t records;
};

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	const unsigned char *p = data;
	struct reading *rd = arg;

	/* Read every byte the reader says the record has. */
	for (int i = 0; i < size; i++)
		rd->sum += p[i];
	rd->records++;
	return 0;
}

/*
 * A reader took the whole file (no error): the independent walker must agree
 * on every record, and must not find a page or chunk broken. A crash here is
 * a difference libFuzzer saves as an artifact.
 */
static void agree(const char *reader, const uint8_t *data, size_t size, uint64_t records)
{
	struct pw_count c;
	enum pw_verdict v = pagewalk(data, size, &c);

	if (v == PW_SKIP || (v == PW_OK && c.records == records))
		return;
	fprintf(
	    stderr,
	    "fuzz_datread: %s read %llu records without an error, the page walker %s %llu%s%s\n",
	    reader, (unsigned long long)records,
	    v == PW_OK ? "counts" : "finds the file broken after", (unsigned long long)c.records,
	    v == PW_BAD ? ": " : "", v == PW_BAD ? c.why : "");
	abort();
}

/* The fuzz data as one ring-buffer page, and as a per-CPU stats text. */
static void buffers(const uint8_t *data, size_t size)
{
	struct ring_info info;
	struct ring_cur c;
	struct ring_rec r;
	unsigned char *page = xmalloc(size + 1);
	uint64_t v;

	memcpy(page, data, size);
	for (int long_size = 4; long_size <= 8; long_size += 4) {
		if (ring_open(&c, page, size, long_size) == 0) {
			ring_info_start(&c, &info);
			while (ring_next(&c, &r) == 1)
				info.events++;
		}
	}
	/* The stats parser takes a C string: the data up to its first NUL. */
	page[size] = '\0';
	ring_stats_lost((char *)page);
	ring_stats_field((char *)page, "overrun", &v);
	free(page);
}

/*
 * The file's formats as libtraceevent parses them (what libtracecmd would
 * hand us), without their print fmt: libtraceevent 1.7.1's print-fmt parser
 * crashes on some mutated ones (a NULL dereference deep in its argument
 * parser, found at once here). In `report` that happens in the probe child
 * (tracedat-probe.c) and refuses the file; here it would stop the fuzzer in
 * library code. fuzz_input covers print fmts (and symbolic.c) through the
 * probe.
 */
static void drop_print_fmt(struct df_blob *b)
{
	static const char neutral[] = "print fmt: \"\"\n";
	unsigned char *at = memmem(b->p, b->n, "print fmt:", 10);

	if (at)
		df_splice(b, (size_t)(at - b->p), b->n - (size_t)(at - b->p), neutral,
			  sizeof(neutral) - 1);
}

/* "N;" at *s: digits (a sign allowed), then ';'. */
static bool number_then(const char **s, const char *end)
{
	const char *p = *s;

	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p >= end || *p != ';')
		return false;
	*s = p + 1;
	return true;
}

static bool key_then(const char **s, const char *end, const char *key)
{
	size_t n = strlen(key);

	if ((size_t)(end - *s) < n || memcmp(*s, key, n))
		return false;
	*s += n;
	return true;
}

/*
 * "TYPE NAME" or "TYPE NAME[N]" as the kernel declares fields: identifiers,
 * spaces, '*', and brackets around digits only (libtraceevent 1.7.1 crashes
 * on a mangled array size such as "insn[\xbc5]").
 */
static bool decl_ok(const char *s, const char *end)
{
	bool in_brackets = false;

	for (; s < end; s++) {
		unsigned char c = (unsigned char)*s;

		if (in_brackets && c == ']')
			in_brackets = false;
		else if (in_brackets ? !(c >= '0' && c <= '9')
				     : !(isalnum(c) || c == '_' || c == ' ' || c == '*' || c == '['))
			return false;
		else if (c == '[')
			in_brackets = true;
	}
	return !in_brackets;
}

/*
 * The field lines as the kernel prints them ("\tfield:TYPE NAME;\toffset:N;
 * \tsize:N;\tsigned:N;"): libtraceevent 1.7.1 also crashes on some mangled
 * ones (a strcmp of NULL), again in the probe child in `report`. Formats
 * with others are not parsed here.
 */
static bool fields_ok(const struct df_blob *b)
{
	const char *s = (const char *)b->p, *end = s + b->n;
	const char *f = memmem(s, b->n, "format:\n", 8);

	if (!f)
		return false;
	/* every line up to "print fmt:": the common fields, a blank line, the event's own */
	for (s = f + 8; s < end && !key_then(&s, end, "print fmt:");) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *semi;

		if (eol == s) {
			s++;
			continue;
		}
		if (!eol || !key_then(&s, eol, "\tfield:") ||
		    !(semi = memchr(s, ';', (size_t)(eol - s))) || semi == s || !decl_ok(s, semi))
			return false;
		s = semi + 1;
		if (!key_then(&s, eol, "\toffset:") || !number_then(&s, eol) ||
		    !key_then(&s, eol, "\tsize:") || !number_then(&s, eol) ||
		    !key_then(&s, eol, "\tsigned:") || !number_then(&s, eol) || s != eol)
			return false;
		s = eol + 1;
	}
	return true;
}

static struct tep_handle *formats_of(const uint8_t *data, size_t size,
				     const struct datfile_layout *l)
{
	struct tep_handle *tep;
	struct df_file d;

	if (df_parse(data, size, &d) < 0)
		return NULL;
	tep = tep_alloc();
	tep_set_page_size(tep, (int)l->page_size);
	tep_set_long_size(tep, l->long_size);
	tep_parse_header_page(tep, (char *)d.header_page.p, d.header_page.n, l->long_size);
	for (size_t i = 0; i < d.nfmts; i++) {
		drop_print_fmt(&d.fmts[i].text);
		if (fields_ok(&d.fmts[i].text))
			tep_parse_event(tep, (const char *)d.fmts[i].text.p, d.fmts[i].text.n,
					d.fmts[i].sys);
	}
	df_free(&d);
	return tep;
}

struct pipe {
	struct decoder *d;
	struct pair *p;
	struct tallies tally;
};

/* The lanes through the feed, as load.c's feed_tracedat() runs them; the tallies from its lanes. */
static void run_feed(struct tracedat_fast *f, struct pipe *pp)
{
	struct ring_lane **lanes;
	size_t n = tracedat_fast_lanes(f, &lanes);
	struct feed_opts fo = {.d = pp->d, .p = pp->p};
	struct feed *fe = feed_new(&fo);
	char e[256];

	for (size_t i = 0; i < n; i++)
		feed_add_lane(fe, lanes[i]);
	feed_run(fe, e, sizeof(e));
	for (size_t i = 0; i < n; i++) {
		struct feed_lane_counts lc;

		feed_lane_counts(fe, i, &lc);
		tallies_put(&pp->tally, lc.cpu, lc.records, lc.missed, lc.missed_unknown);
	}
	feed_free(fe);
}

/* decode -> pair -> stats -> the cross-check -> render, as input_load() does for a trace.dat. */
static void pipeline(int fd, const uint8_t *data, size_t size)
{
	struct datfile_layout l;
	struct tracedat_fast *f;
	struct tep_handle *tep;
	struct pipe pp = {0};
	char e[256];

	if (datfile_layout(fd, &l, e, sizeof(e)) < 0 || !l.fast)
		goto out_layout;
	if (!(f = tracedat_fast_new(fd, &l, e, sizeof(e))))
		goto out_layout;
	if (!(tep = formats_of(data, size, &l)))
		goto out_fast;
	pp.d = decode_new(tep, fuzz_types());
	if (!decode_error(pp.d)) {
		struct stats_table *exits = stats_table_new(), *uexits = stats_table_new();
		struct tracedat_info info = {.stats = l.stats, .nstats = l.nstats};
		struct input_result r;

		pp.p = pair_new(
		    &(struct pair_opts){.exits = exits, .uexits = uexits, .with_sub = size & 1});
		run_feed(f, &pp);
		pair_finish(pp.p);
		input_result_init(&r);
		tallies_check(&pp.tally, &info, "fuzz", &r, e, sizeof(e));
		input_result_free(&r);
		fuzz_render(exits, true);
		fuzz_render(uexits, false);
		pair_free(pp.p);
		stats_table_free(exits);
		stats_table_free(uexits);
	}
	decode_free(pp.d);
	tallies_free(&pp.tally);
	tep_free(tep);
out_fast:
	tracedat_fast_close(f);
out_layout:
	datfile_layout_free(&l);
}

/* A zstd v7 file's records, as tracedat_iterate() reads them (the formats are v6-only here). */
static void zstd_records(int fd, const uint8_t *data, size_t size)
{
	struct datfile_layout l;
	struct tracedat_zstd *z;
	char e[256];

	if (datfile_layout(fd, &l, e, sizeof(e)) == 0 && l.zstd &&
	    (z = tracedat_zstd_new(fd, &l, l.long_size, e, sizeof(e)))) {
		struct ring_lane **lanes;
		struct reading rd = {0};
		size_t n;

		if (tracedat_zstd_lanes(z, &lanes, &n, e, sizeof(e)) == 0 &&
		    lanes_iterate(lanes, n, on_record, &rd, e, sizeof(e)) == 0 && !l.instances)
			agree("the zstd lanes", data, size, rd.records);
		tracedat_zstd_close(z);
	}
	datfile_layout_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct tracedat_fast *f = fd >= 0 ? tracedat_fast_open(fd) : NULL;
	struct reading rd = {0};
	uint64_t lost;
	char e[256];

	tracedat_lost_events(path, &lost);
	if (f) {
		struct ring_lane **lanes;
		size_t n = tracedat_fast_lanes(f, &lanes);

		if (lanes_iterate(lanes, n, on_record, &rd, e, sizeof(e)) == 0)
			agree("the fast path", data, size, rd.records);
		tracedat_fast_close(f);
	}
	if (fd >= 0) {
		zstd_records(fd, data, size);
		pipeline(fd, data, size);
		close(fd);
	}
	buffers(data, size);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate(data, size, max_size, seed);
}

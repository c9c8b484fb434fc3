// SPDX-License-Identifier: GPL-2.0
/*
 * A reader for what libtracecmd does not check or does not expose in a usable
 * way: it walks a trace.dat's header sections (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)) checking every size against the file size, and
 * checks what the header says against itself before anything trusts it:
 *
 *  - the page size against header_page (the kernel's own description of its
 *    pages: a changed page size field misreads every page);
 *  - each CPU's data inside the file, page aligned, after the header, and no
 *    two CPUs' data overlapping (else every event of one is read twice);
 *  - options whose content libtracecmd applies to timestamps (DATE, OFFSET,
 *    TSC2NSEC, TIME_SHIFT) against the layout trace-cmd writes them in (a
 *    changed option id otherwise scales every time), CPUCOUNT against the
 *    header's CPU count.
 *
 * It also gives the per-CPU stats of the CPUSTAT options ("read events" is
 * what the events found are checked against), the options it does not know,
 * and where the per-CPU pages of an uncompressed file are, for the fast path.
 * A truncated or corrupt header gives an error or "not ours to read", never a
 * wild read: all reads are pread()s bounded by the file size.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc.h"
#include "err.h"
#include "ring.h"
#include "procmap.h"
#include "tracedat-local.h"

/* trace-cmd's option ids (lib/trace-cmd/include/trace-cmd-local.h). */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_HOOK = 6,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	OPT_PROCMAPS = 10,
	OPT_TRACEID = 11,
	OPT_TIME_SHIFT = 12,
	OPT_GUEST = 13,
	OPT_TSC2NSEC = 14,
	OPT_STRINGS = 15,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
	OPT_MAX_KNOWN = OPT_BUFFER_TEXT,
};

/* Longest option payload read into memory (CPUSTAT texts are ~150 bytes a CPU). */
#define MAX_OPTION (16u << 20)

/*
 * No kernel has more than MAX_CPUS CPUs (x86's MAXSMP: 8192); a file that
 * says so is refused: libtracecmd allocates and walks a structure per CPU
 * it is told of, which takes seconds for a few hundred thousand.
 */
#define MAX_CPUS 65536

struct cursor {
	int fd;
	uint64_t off, size;
	bool big;  /* big-endian file */
	char *err; /* the reason, when the file is refused */
	size_t errlen;
	bool bad;
};

/* The file is refused: one line in c->err. Returns -1. */
static int bad(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->bad) {
		va_start(ap, fmt);
		err_buf_v(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	c->bad = true;
	return -1;
}

static int rd(struct cursor *c, void *buf, size_t n)
{
	if (n > c->size || c->off > c->size - n)
		return -1;
	if (pread(c->fd, buf, n, (off_t)c->off) != (ssize_t)n)
		return -1;
	c->off += n;
	return 0;
}

static int skip(struct cursor *c, uint64_t n)
{
	if (n > c->size || c->off > c->size - n)
		return -1;
	c->off += n;
	return 0;
}

/* Numbers are in the file's byte order, whatever the host's. */
static uint64_t num_of(const struct cursor *c, const unsigned char *b, size_t n)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++)
		x = (x << 8) | b[c->big ? i : n - 1 - i];
	return x;
}

static int rd_num(struct cursor *c, uint64_t *v, size_t n)
{
	unsigned char b[8];

	if (rd(c, b, n))
		return -1;
	*v = num_of(c, b, n);
	return 0;
}

/* Skips `count` blocks, each preceded by its size in `szlen` bytes. */
static int skip_sized(struct cursor *c, uint64_t count, size_t szlen)
{
	for (uint64_t i = 0; i < count; i++) {
		uint64_t n;

		if (rd_num(c, &n, szlen) || skip(c, n))
			return -1;
	}
	return 0;
}

static int expect(struct cursor *c, const char *s, size_t n)
{
	char buf[16];

	return n > sizeof(buf) || rd(c, buf, n) || memcmp(buf, s, n) ? -1 : 0;
}

static int skip_cstring(struct cursor *c, size_t max)
{
	char ch;

	for (size_t i = 0; i < max; i++) {
		if (rd(c, &ch, 1))
			return -1;
		if (!ch)
			return 0;
	}
	return -1;
}

/* Magic, version ("6", "7"), endianness, long size, page size: the start of every version. */
static int read_initial(struct cursor *c, int *version, uint64_t *page_size)
{
	static const unsigned char magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	unsigned char head[10], b[2];
	char ver[8] = {0};
	size_t i;

	if (rd(c, head, sizeof(head)) || memcmp(head, magic, sizeof(magic)))
		return -1;
	for (i = 0; i < sizeof(ver) - 1; i++)
		if (rd(c, &ver[i], 1) || !ver[i])
			break;
	if (ver[i] || (strcmp(ver, "6") && strcmp(ver, "7")))
		return -1;
	*version = ver[0] - '0';
	if (rd(c, b, 2) || b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return -1;
	c->big = b[0] == 1;
	return rd_num(c, page_size, 4);
}

/* Reads a block of `size` bytes (at most max) into a NUL-terminated buffer. */
static char *rd_block(struct cursor *c, uint64_t size, uint64_t max)
{
	char *text;

	if (size > max || size > c->size)
		return NULL;
	text = xmalloc((size_t)size + 1);
	if (rd(c, text, (size_t)size)) {
		free(text);
		return NULL;
	}
	text[size] = 0;
	return text;
}

/*
 * "header_page\0", its size, its text: the size of the commit field is the
 * long size libtracecmd reads pages with (not the one of the file's first
 * bytes), and the data field's end is the size of a page. A page size field
 * that disagrees with it is refused.
 */
static int header_page_text(struct cursor *c, struct datfile_layout *l, const char *text,
			    size_t n)
{
	size_t psize;

	if (ring_header_parse(text, n, &psize, &l->long_size))
		return -1;
	if (psize != l->page_size)
		return bad(c,
			   "the page size is %zu bytes, but header_page describes %zu-byte pages",
			   l->page_size, psize);
	return 0;
}

static int read_header_page(struct cursor *c, struct datfile_layout *l)
{
	uint64_t n;
	char *text;
	int ret;

	if (expect(c, "header_page", 12) || rd_num(c, &n, 8) || !(text = rd_block(c, n, 1 << 16)))
		return -1;
	ret = header_page_text(c, l, text, (size_t)n);
	free(text);
	return ret;
}

/*
 * A zstd-compressed HEADER INFO section (trace-cmd convert --compression
 * zstd compresses it too): decompressed, its header_page read as above.
 */
static int read_header_page_zstd(struct cursor *c, struct datfile_layout *l)
{
	unsigned char *b;
	size_t len;
	uint64_t n;
	int ret = -1;

	if (tracedat_zstd_block(c->fd, c->off, c->size, 1 << 20, &b, &len))
		return -1;
	if (len >= 20 && !memcmp(b, "header_page", 12)) {
		n = num_of(c, b + 12, 8);
		if (n <= len - 20 && n <= 1 << 16) {
			char *text = xmalloc((size_t)n + 1);

			memcpy(text, b + 20, (size_t)n);
			text[n] = 0;
			ret = header_page_text(c, l, text, (size_t)n);
			free(text);
		}
	}
	free(b);
	return ret;
}

/* Skips the metadata up to the options; ncpus gets the CPU count. */
static int read_metadata(struct cursor *c, struct datfile_layout *l, uint64_t *ncpus)
{
	uint64_t n, nsys;

	if (read_header_page(c, l))
		return -1;
	if (expect(c, "header_event", 13) || skip_sized(c, 1, 8))
		return -1;
	if (rd_num(c, &n, 4) || skip_sized(c, n, 8)) /* ftrace formats */
		return -1;
	if (rd_num(c, &nsys, 4))
		return -1;
	for (uint64_t i = 0; i < nsys; i++)
		if (skip_cstring(c, 4096) || rd_num(c, &n, 4) || skip_sized(c, n, 8))
			return -1;
	/* kallsyms, printk formats (u32 sizes), cmdlines (u64), cpu count */
	if (skip_sized(c, 2, 4) || skip_sized(c, 1, 8) || rd_num(c, ncpus, 4))
		return -1;
	return 0;
}

/* ---- options ---- */

/* What the options of a file say. */
struct optscan {
	int version;
	uint64_t ncpus;	      /* v6: the header's CPU count (CPUCOUNT must agree) */
	int nbuffers;	      /* v7: BUFFER options */
	uint64_t buffer_at;   /* v7: where the BUFFER option's data is */
	uint64_t header_info; /* v7: offset of the HEADER INFO section */
	bool shifts;	      /* DATE, OFFSET, TSC2NSEC or TIME_SHIFT: timestamps move */
	bool other;	      /* what the fast path does not read (latency data, instances) */
};

/* "CPU: N\n" then the kernel's per_cpu/cpuN/stats text (trace-cmd's CPUSTAT). */
static void add_cpustat(struct datfile_layout *l, const char *text)
{
	struct tracedat_cpustat s = {.cpu = -1};
	uint64_t v;

	if (ring_stats_field(text, "CPU", &v) == 0 && v < 65536)
		s.cpu = (int)v;
	bool any = false;

	/* A field the kernel does not print counts 0; a text with none is no stats text. */
	any |= ring_stats_field(text, "entries", &s.entries) == 0;
	any |= ring_stats_field(text, "overrun", &s.overrun) == 0;
	any |= ring_stats_field(text, "dropped events", &s.dropped) == 0;
	if (!any)
		return;
	s.has_read = ring_stats_field(text, "read events", &s.read) == 0;
	l->stats = xrealloc(l->stats, (l->nstats + 1) * sizeof(*l->stats));
	l->stats[l->nstats++] = s;
}

/* A NUL-terminated text that strtoll() reads whole: what DATE and OFFSET hold. */
static bool is_number_text(const char *text, uint64_t size)
{
	char *end;

	if (!size || text[size - 1] || !*text)
		return false;
	errno = 0;
	(void)strtoll(text, &end, 0);
	return !errno && !*end;
}

/*
 * TIME_SHIFT: u64 trace id, u32 flags, u32 cpus, per CPU { u32 count, then
 * count u64 times, count u64 offsets, count u64 scaling ratios }, then
 * optionally per CPU count u64 fraction bits (trace-cmd's tsync layout).
 */
static bool time_shift_ok(const struct cursor *c, const unsigned char *b, uint64_t size)
{
	uint64_t at = 16, cpus, fractions = 0;

	if (size < 16)
		return false;
	cpus = num_of(c, b + 12, 4);
	if (cpus > 65536)
		return false;
	for (uint64_t i = 0; i < cpus; i++) {
		uint64_t count;

		if (size - at < 4)
			return false;
		count = num_of(c, b + at, 4);
		at += 4;
		if (count > (size - at) / 24)
			return false;
		at += 24 * count;
		fractions += 8 * count;
	}
	return at == size || size - at == fractions;
}

/*
 * Checks an option whose content moves timestamps: it must be laid out as
 * trace-cmd writes it, or the file is refused (a corrupt id byte turns any
 * option into one of these).
 */
static int check_shift(struct cursor *c, uint64_t id, const unsigned char *b, uint64_t size)
{
	uint64_t mult, shift;

	switch (id) {
	case OPT_DATE:
	case OPT_OFFSET:
		if (!is_number_text((const char *)b, size))
			return bad(c, "the %s option does not hold a number: corrupt file",
				   id == OPT_DATE ? "DATE" : "OFFSET");
		return 0;
	case OPT_TSC2NSEC:
		if (size != 16)
			return bad(c,
				   "the TSC2NSEC option has %llu bytes, not 16 (u32 mult, u32 "
				   "shift, u64 offset): corrupt file",
				   (unsigned long long)size);
		mult = num_of(c, b, 4);
		shift = num_of(c, b + 4, 4);
		if (!mult || shift > 63)
			return bad(c, "the TSC2NSEC option has mult %llu, shift %llu: corrupt file",
				   (unsigned long long)mult, (unsigned long long)shift);
		return 0;
	default: /* OPT_TIME_SHIFT */
		if (!time_shift_ok(c, b, size))
			return bad(c,
				   "the TIME_SHIFT option (%llu bytes) is not laid out as "
				   "trace-cmd writes it: corrupt file",
				   (unsigned long long)size);
		return 0;
	}
}

/* An option's payload, NUL-terminated, bounded. NULL (and c->bad) when it does not fit. */
static unsigned char *option_data(struct cursor *c, uint64_t size)
{
	unsigned char *b = (unsigned char *)rd_block(c, size, MAX_OPTION);

	if (!b)
		bad(c, "an option of %llu bytes runs past the end of the file or its limit",
		    (unsigned long long)size);
	return b;
}

/*
 * The clock in brackets of a trace_clock text ("[local] global counter ..."),
 * as libtracecmd's tracecmd_parse_trace_clock() takes it; "" when none.
 */
static void selected_clock(const char *b, size_t size, char *out, size_t len)
{
	const char *open = memchr(b, '[', size), *close;
	size_t n;

	out[0] = '\0';
	if (!open || !(close = memchr(open, ']', size - (size_t)(open - b))))
		return;
	n = (size_t)(close - open - 1);
	if (n && n < len) {
		memcpy(out, open + 1, n);
		out[n] = '\0';
	}
}

bool datfile_clock_in_ns(const struct datfile_layout *l)
{
	/* trace-input.c extract_trace_clock(): the clocks it prints as seconds, and boot */
	static const char *const ns[] = {"local", "global", "uptime", "perf", "tsc2nsec",
					 "tai",	  "boot"};

	if (!l->clock[0] || l->tsc2nsec || !strncmp(l->clock, "mono", 4))
		return true;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (!strcmp(l->clock, ns[i]))
			return true;
	return false;
}

/* The second word of a UNAME option, printable characters only (a name, not a payload). */
static void uname_host(const char *b, size_t size, char *out, size_t len)
{
	const char *s = memchr(b, ' ', size), *end = b + size;
	size_t n = 0;

	out[0] = 0;
	if (!s)
		return;
	for (s++; s < end && *s != ' ' && *s && n + 1 < len; s++) {
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f) {
			n = 0;
			break;
		}
		out[n++] = *s;
	}
	out[n] = 0;
	if (!strcmp(out, "(none)")) /* the kernel's nodename when none was set */
		out[0] = 0;
}

/* One option. Returns 0, or -1 (c->bad set when the file is to be refused). */
static int scan_option(struct cursor *c, uint64_t id, uint64_t size, struct optscan *o,
		       struct datfile_layout *l)
{
	unsigned char *b;
	int ret = 0;

	switch (id) {
	case OPT_CPUCOUNT: /* v6: it must say what the header says; v7: a real count */
		if (!(b = option_data(c, size)))
			return -1;
		if (o->version == 7 && (size != 4 || num_of(c, b, 4) > MAX_CPUS))
			ret = bad(c, "the CPUCOUNT option says more CPUs than any kernel has");
		else if (o->version == 6 && (size != 4 || num_of(c, b, 4) != o->ncpus))
			ret = bad(c, "the CPUCOUNT option disagrees with the header's %llu CPUs",
				  (unsigned long long)o->ncpus);
		free(b);
		return ret;
	case OPT_BUFFER: /* v7: the top buffer; a second one is an instance; v6: an instance */
		if (o->version != 7 || o->nbuffers++)
			l->instances = true;
		else
			o->buffer_at = c->off;
		return skip(c, size);
	case OPT_BUFFER_TEXT: /* a latency trace */
		o->other = true;
		return skip(c, size);
	case OPT_HEADER_INFO:
		if (o->version != 7 || size < 8 || rd_num(c, &o->header_info, 8))
			return -1;
		return skip(c, size - 8);
	case OPT_CPUSTAT:
		if (!(b = option_data(c, size)))
			return -1;
		add_cpustat(l, (const char *)b);
		free(b);
		return 0;
	case OPT_DATE:
	case OPT_OFFSET:
	case OPT_TSC2NSEC:
	case OPT_TIME_SHIFT:
		if (!(b = option_data(c, size)))
			return -1;
		l->tsc2nsec |= id == OPT_TSC2NSEC;
		ret = check_shift(c, id, b, size);
		free(b);
		o->shifts = true;
		return ret;
	case OPT_TRACECLOCK:
		if (!(b = option_data(c, size)))
			return -1;
		selected_clock((const char *)b, (size_t)size, l->clock, sizeof(l->clock));
		free(b);
		return 0;
	case OPT_UNAME: /* "sysname nodename release machine": the host it was recorded on */
		if (!(b = option_data(c, size)))
			return -1;
		uname_host((const char *)b, (size_t)size, l->host, sizeof(l->host));
		free(b);
		return 0;
	case PROCMAP_OPTION_ID: /* ours: record's thread map (procmap.h); the last one counts */
		if (!(b = option_data(c, size)))
			return -1;
		free(l->procmap);
		l->procmap = (char *)b;
		l->procmap_len = (size_t)size;
		return 0;
	default:
		/* libtracecmd skips ids it does not know (with a warning): so does the fast path */
		if (id > OPT_MAX_KNOWN && !l->unknown_options++)
			l->first_unknown = (unsigned)id;
		return skip(c, size);
	}
}

/* v6: options up to DONE (id 0, no size). */
static int scan_options_v6(struct cursor *c, struct optscan *o, struct datfile_layout *l)
{
	for (;;) {
		uint64_t id, size;

		if (rd_num(c, &id, 2))
			return -1;
		if (id == OPT_DONE)
			return 0;
		if (rd_num(c, &size, 4) || scan_option(c, id, size, o, l))
			return -1;
	}
}

/* v7: a section header. Returns its flags (bit 0: compressed), or -1. */
static int section_header(struct cursor *c, uint64_t want_id)
{
	uint64_t id, flags, size;

	if (rd_num(c, &id, 2) || rd_num(c, &flags, 2) || skip(c, 4) || rd_num(c, &size, 8))
		return -1;
	return id != want_id || size > c->size - c->off ? -1 : (int)(flags & 0xffff);
}

/*
 * v7: a chain of OPTIONS sections, each ending with DONE (size 8: the offset
 * of the next section, 0 for none). A compressed section cannot be read
 * here: the walk stops there and *complete says so.
 */
static int scan_options_v7(struct cursor *c, uint64_t at, struct optscan *o,
			   struct datfile_layout *l, bool *complete)
{
	*complete = false;
	for (int sections = 0; at; sections++) {
		int flags;

		if (sections == 64 || at > c->size)
			return -1; /* a loop, or garbage */
		c->off = at;
		if ((flags = section_header(c, OPT_DONE)) < 0)
			return -1;
		if (flags & 1)
			return 0;
		for (;;) {
			uint64_t id, size;

			if (rd_num(c, &id, 2) || rd_num(c, &size, 4))
				return -1;
			if (id == OPT_DONE) {
				if (size != 8 || rd_num(c, &at, 8))
					return -1;
				break;
			}
			if (scan_option(c, id, size, o, l))
				return -1;
		}
	}
	*complete = true;
	return 0;
}

/* ---- CPU data ---- */

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* One CPU's data: inside the file, page aligned (libtracecmd steps pages with masks). */
static int check_cpu(struct cursor *c, const struct datfile_layout *l,
		     const struct datfile_cpu *cpu, bool compressed)
{
	if (!cpu->size)
		return 0;
	if (cpu->offset > l->file_size || cpu->size > l->file_size - cpu->offset)
		return bad(c, "truncated trace.dat (the CPU data runs past its end)");
	if (!compressed && cpu->offset % l->page_size)
		return bad(c, "the data of cpu %d at offset %llu is not page aligned", cpu->id,
			   (unsigned long long)cpu->offset);
	return 0;
}

static int cmp_offset(const void *pa, const void *pb)
{
	const struct datfile_cpu *a = *(const struct datfile_cpu *const *)pa;
	const struct datfile_cpu *b = *(const struct datfile_cpu *const *)pb;

	return (a->offset > b->offset) - (a->offset < b->offset);
}

/*
 * No two CPUs' data share bytes, and none starts inside the header (at):
 * else libtracecmd reads the same events twice, or header bytes as events.
 */
static int check_overlap(struct cursor *c, const struct datfile_layout *l, uint64_t at)
{
	const struct datfile_cpu **v = xcalloc((size_t)l->ncpus, sizeof(*v));
	size_t n = 0;
	int ret = 0;

	for (int i = 0; i < l->ncpus; i++)
		if (l->cpus[i].size)
			v[n++] = &l->cpus[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_offset);
	if (n && v[0]->offset < at)
		ret = bad(c, "the data of cpu %d at offset %llu lies inside the header", v[0]->id,
			  (unsigned long long)v[0]->offset);
	for (size_t i = 1; i < n && !ret; i++)
		if (v[i]->offset < v[i - 1]->offset + v[i - 1]->size)
			ret =
			    bad(c, "the data of cpu %d and cpu %d overlap (offsets %llu and %llu)",
				v[i - 1]->id, v[i]->id, (unsigned long long)v[i - 1]->offset,
				(unsigned long long)v[i]->offset);
	free(v);
	return ret;
}


static int alloc_cpus(struct cursor *c, struct datfile_layout *l, uint64_t ncpus)
{
	if (ncpus > MAX_CPUS)
		return bad(c, "the file says %llu CPUs, more than any kernel has",
			   (unsigned long long)ncpus);
	if (!ncpus)
		return -1;
	l->ncpus = (int)ncpus;
	l->cpus = xcalloc((size_t)ncpus, sizeof(*l->cpus));
	return 0;
}

/* v6: ... "options  " ... "flyrecord" cpus x { u64 offset, u64 size }. */
static int layout_v6(struct cursor *c, struct datfile_layout *l)
{
	struct optscan o = {.version = 6};
	char kind[10];

	if (read_metadata(c, l, &o.ncpus) || rd(c, kind, sizeof(kind)))
		return -1;
	if (!memcmp(kind, "options  ", 10) &&
	    (scan_options_v6(c, &o, l) || rd(c, kind, sizeof(kind))))
		return -1;
	if (memcmp(kind, "flyrecord", 10) || alloc_cpus(c, l, o.ncpus))
		return -1; /* latency traces, or garbage */
	for (int i = 0; i < l->ncpus; i++) {
		struct datfile_cpu *cpu = &l->cpus[i];

		cpu->id = i;
		if (rd_num(c, &cpu->offset, 8) || rd_num(c, &cpu->size, 8) ||
		    check_cpu(c, l, cpu, false))
			return -1;
	}
	if (check_overlap(c, l, c->off))
		return -1;
	l->fast = !o.shifts && !o.other && !l->instances;
	return 0;
}

/*
 * v7's BUFFER option: u64 offset of the flyrecord section, instance name
 * ("" for the top buffer), clock, u32 page size, u32 cpus, then per CPU
 * u32 id, u64 offset, u64 size. CPUs without data are left out; libtracecmd
 * 3.1.6 hands out the id, and breaks ties by it: ids must increase.
 */
static int read_buffer_v7(struct cursor *c, const struct optscan *o, struct datfile_layout *l,
			  bool compressed)
{
	uint64_t fly, psize, ncpus, id;
	char name;

	if (!o->nbuffers)
		return -1;
	c->off = o->buffer_at;
	if (rd_num(c, &fly, 8) || rd(c, &name, 1) || name || skip_cstring(c, 4096) ||
	    rd_num(c, &psize, 4) || rd_num(c, &ncpus, 4))
		return -1;
	if (psize != l->page_size)
		return bad(c, "the top buffer's page size %llu differs from the file's %zu",
			   (unsigned long long)psize, l->page_size);
	if (alloc_cpus(c, l, ncpus))
		return -1;
	for (int i = 0; i < l->ncpus; i++) {
		struct datfile_cpu *cpu = &l->cpus[i];

		if (rd_num(c, &id, 4))
			return -1;
		if (id >= MAX_CPUS)
			return bad(c, "cpu id %llu in the BUFFER option: no kernel has that many",
				   (unsigned long long)id);
		if ((i && (int)id <= cpu[-1].id) || rd_num(c, &cpu->offset, 8) ||
		    rd_num(c, &cpu->size, 8))
			return -1;
		cpu->id = (int)id;
		if (check_cpu(c, l, cpu, compressed))
			return -1;
	}
	if (check_overlap(c, l, 0))
		return -1;
	c->off = fly;
	return section_header(c, OPT_BUFFER) < 0 ? -1 : 0;
}

/* v7: ... page size, compression name and version, u64 offset of the first options. */
static int layout_v7(struct cursor *c, struct datfile_layout *l)
{
	struct optscan o = {.version = 7};
	char comp[64];
	bool compressed, complete;
	uint64_t at;
	size_t i;
	int flags;

	for (i = 0; i < sizeof(comp) && !rd(c, &comp[i], 1) && comp[i]; i++)
		;
	if (i == sizeof(comp) || comp[i] || skip_cstring(c, 4096) || rd_num(c, &at, 8))
		return -1;
	compressed = strcmp(comp, "none") != 0;
	if (scan_options_v7(c, at, &o, l, &complete))
		return -1;
	if (!complete || !o.header_info)
		return DATFILE_OTHER; /* a compressed options section: libtracecmd reads it */
	c->off = o.header_info;
	if ((flags = section_header(c, OPT_HEADER_INFO)) < 0)
		return -1;
	if (!(flags & 1) && read_header_page(c, l))
		return -1;
	if ((flags & 1) && compressed && !strcmp(comp, "zstd") && read_header_page_zstd(c, l))
		return -1;
	if (read_buffer_v7(c, &o, l, compressed))
		return -1;
	l->fast = !compressed && !(flags & 1) && !o.shifts && !o.other && !l->instances;
	l->zstd = compressed && !strcmp(comp, "zstd") && l->long_size && !o.shifts && !o.other &&
		  !l->instances;
	return 0;
}

int datfile_layout(int fd, struct datfile_layout *l, char *errbuf, size_t errlen)
{
	struct cursor c = {.fd = fd, .err = errbuf, .errlen = errlen};
	uint64_t psize;
	struct stat st;
	int version, ret;

	memset(l, 0, sizeof(*l));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return DATFILE_OTHER;
	c.size = l->file_size = (uint64_t)st.st_size;
	if (read_initial(&c, &version, &psize))
		return DATFILE_OTHER;
	/* A page holds its header and a record; the commit field holds its size. */
	if (!power_of_two(psize) || psize < 64 || psize > RING_COMMIT_MASK + 1) {
		err_buf(errbuf, errlen,
			   "page size %llu is not a power of two from 64 to 128 MiB",
			   (unsigned long long)psize);
		return DATFILE_BAD;
	}
	l->page_size = (size_t)psize;
	l->version = version;
	/* Another byte order: only libtracecmd reads it (our page walker is host order). */
	if (c.big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return DATFILE_OTHER;
	ret = version == 6 ? layout_v6(&c, l) : layout_v7(&c, l);
	if (c.bad)
		ret = DATFILE_BAD;
	else if (ret)
		ret = DATFILE_OTHER;
	if (ret) {
		/* the page size stays: the decoder bounds fields with it */
		size_t page = l->page_size;

		datfile_layout_free(l);
		l->page_size = page;
		l->version = version;
	}
	return ret;
}

void datfile_layout_free(struct datfile_layout *l)
{
	free(l->cpus);
	free(l->stats);
	free(l->procmap);
	memset(l, 0, sizeof(*l));
}

/* overrun + dropped events over all CPUSTAT options. */
static uint64_t stats_lost(const struct datfile_layout *l)
{
	uint64_t lost = 0;

	for (size_t i = 0; i < l->nstats; i++)
		lost += l->stats[i].overrun + l->stats[i].dropped;
	return lost;
}

int tracedat_lost_events(const char *path, uint64_t *lost)
{
	struct datfile_layout l;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	*lost = 0;
	if (fd < 0)
		return -1;
	if (datfile_layout(fd, &l, NULL, 0) == 0 && l.nstats) {
		*lost = stats_lost(&l);
		ret = 0;
	}
	datfile_layout_free(&l);
	close(fd);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A small reader for what libtracecmd does not expose in a usable way: the
 * lost-event counts stored in a v6 trace.dat's CPUSTAT options, and where
 * the per-CPU pages of an uncompressed v6 or v7 file are, for the fast path.
 * It walks the header sections (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5))
 * checking every size against the file size, so a truncated or corrupt file
 * gives -1, never a wild read.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common.h"
#include "collect.h"
#include "collect-local.h"

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
};

struct cursor {
	int fd;
	uint64_t off, size;
	bool big; /* big-endian file */
};

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
static int rd_num(struct cursor *c, uint64_t *v, size_t n)
{
	unsigned char b[8];
	uint64_t x = 0;

	if (rd(c, b, n))
		return -1;
	for (size_t i = 0; i < n; i++)
		x = (x << 8) | b[c->big ? i : n - 1 - i];
	*v = x;
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
 * long size libtracecmd reads pages with (not the one of the file's first bytes).
 */
static int read_header_page(struct cursor *c, int *long_size)
{
	uint64_t n;
	char *text;
	size_t psize;
	int ret;

	if (expect(c, "header_page", 12) || rd_num(c, &n, 8) || !(text = rd_block(c, n, 1 << 16)))
		return -1;
	ret = ringpage_header_parse(text, (size_t)n, &psize, long_size);
	free(text);
	return ret;
}

/*
 * Skips the metadata up to the options. long_size, when not NULL, gets the
 * long size of the ring-buffer pages; ncpus the CPU count.
 */
static int read_metadata(struct cursor *c, int *long_size, uint64_t *ncpus)
{
	uint64_t n, nsys;

	if (long_size ? read_header_page(c, long_size)
		      : expect(c, "header_page", 12) || skip_sized(c, 1, 8))
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

static int read_cpustats(struct cursor *c, uint64_t *lost, bool *found)
{
	for (;;) {
		uint64_t id, size;
		char *text;

		if (rd_num(c, &id, 2))
			return -1;
		if (id == OPT_DONE)
			return 0;
		if (rd_num(c, &size, 4))
			return -1;
		if (id != OPT_CPUSTAT) {
			if (skip(c, size))
				return -1;
			continue;
		}
		if (!(text = rd_block(c, size, c->size)))
			return -1;
		*lost += cpustats_lost(text);
		*found = true;
		free(text);
	}
}

int datfile_lost_events(const char *path, uint64_t *lost)
{
	struct cursor c = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
	bool found = false;
	uint64_t psize, ncpus;
	struct stat st;
	char kind[10];
	int ret = -1, version;

	if (c.fd < 0)
		return -1;
	if (fstat(c.fd, &st) < 0)
		goto out;
	c.size = (uint64_t)st.st_size;
	*lost = 0;
	/* v7 (sections, compression) keeps its stats elsewhere: not handled. */
	if (read_initial(&c, &version, &psize) || version != 6 || read_metadata(&c, NULL, &ncpus) ||
	    rd(&c, kind, sizeof(kind)))
		goto out;
	if (memcmp(kind, "options  ", 10))
		goto out; /* no options: no stats */
	if (read_cpustats(&c, lost, &found) == 0 && found)
		ret = 0;
out:
	close(c.fd);
	if (ret)
		*lost = 0;
	return ret;
}

/* What the options of a file say, for the fast path. */
struct optscan {
	int version;
	uint64_t ncpus;	      /* v6: the header's CPU count (CPUCOUNT must agree) */
	int nbuffers;	      /* v7: BUFFER options */
	uint64_t buffer_at;   /* v7: where the BUFFER option's data is */
	uint64_t header_info; /* v7: offset of the HEADER INFO section */
};

/*
 * One option. Returns 0 for options that change no timestamp and no record,
 * so that what is left reads exactly as libtracecmd reads it; -1 for the
 * others (DATE and OFFSET shift times, TSC2NSEC and TIME_SHIFT scale them,
 * BUFFER_TEXT is a latency trace, unknown ids may do anything): such files
 * go to libtracecmd.
 */
static int scan_option(struct cursor *c, uint64_t id, uint64_t size, struct optscan *o)
{
	uint64_t v;

	switch (id) {
	case OPT_CPUCOUNT: /* v6: harmless when it says what the header says */
		if (o->version == 7)
			return skip(c, size);
		return size != 4 || rd_num(c, &v, 4) || v != o->ncpus ? -1 : 0;
	case OPT_BUFFER: /* v7: the top buffer; a second one is an instance */
		if (o->version != 7 || o->nbuffers++)
			return -1;
		o->buffer_at = c->off;
		return skip(c, size);
	case OPT_HEADER_INFO:
		if (o->version != 7 || size < 8 || rd_num(c, &o->header_info, 8))
			return -1;
		return skip(c, size - 8);
	case OPT_STRINGS:
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS:
	case OPT_PRINTK:
	case OPT_CMDLINES:
		if (o->version != 7)
			return -1;
		return skip(c, size);
	case OPT_CPUSTAT:
	case OPT_TRACECLOCK:
	case OPT_UNAME:
	case OPT_HOOK:
	case OPT_VERSION:
	case OPT_PROCMAPS:
	case OPT_TRACEID:
	case OPT_GUEST:
		return skip(c, size);
	default:
		return -1;
	}
}

/* v6: options up to DONE (id 0, no size). */
static int scan_options_v6(struct cursor *c, struct optscan *o)
{
	for (;;) {
		uint64_t id, size;

		if (rd_num(c, &id, 2))
			return -1;
		if (id == OPT_DONE)
			return 0;
		if (rd_num(c, &size, 4) || scan_option(c, id, size, o))
			return -1;
	}
}

/* v7: a section header; flags bit 0 says compressed. */
static int section_header(struct cursor *c, uint64_t want_id)
{
	uint64_t id, flags, size;

	if (rd_num(c, &id, 2) || rd_num(c, &flags, 2) || skip(c, 4) || rd_num(c, &size, 8))
		return -1;
	return id != want_id || (flags & 1) || size > c->size - c->off ? -1 : 0;
}

/*
 * v7: a chain of OPTIONS sections, each ending with DONE (size 8: the offset
 * of the next section, 0 for none).
 */
static int scan_options_v7(struct cursor *c, uint64_t at, struct optscan *o)
{
	for (int sections = 0; at; sections++) {
		if (sections == 64 || at > c->size)
			return -1; /* a loop, or garbage */
		c->off = at;
		if (section_header(c, OPT_DONE))
			return -1;
		for (;;) {
			uint64_t id, size;

			if (rd_num(c, &id, 2) || rd_num(c, &size, 4))
				return -1;
			if (id == OPT_DONE) {
				if (size != 8 || rd_num(c, &at, 8))
					return -1;
				break;
			}
			if (scan_option(c, id, size, o))
				return -1;
		}
	}
	return 0;
}

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* One CPU's data: inside the file, page aligned (libtracecmd steps pages with masks). */
static int check_cpu(const struct datfile_layout *l, const struct datfile_cpu *cpu)
{
	if (!cpu->size)
		return 0;
	if (cpu->offset > l->file_size || cpu->size > l->file_size - cpu->offset)
		return DATFILE_TRUNCATED;
	return cpu->offset % l->page_size ? DATFILE_OTHER : 0;
}

static int alloc_cpus(struct datfile_layout *l, uint64_t ncpus)
{
	if (!ncpus || ncpus > 65536)
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

	if (read_metadata(c, &l->long_size, &o.ncpus) || rd(c, kind, sizeof(kind)))
		return -1;
	if (!memcmp(kind, "options  ", 10) && (scan_options_v6(c, &o) || rd(c, kind, sizeof(kind))))
		return -1;
	if (memcmp(kind, "flyrecord", 10) || alloc_cpus(l, o.ncpus))
		return -1; /* latency traces, or garbage */
	for (int i = 0; i < l->ncpus; i++) {
		struct datfile_cpu *cpu = &l->cpus[i];
		int ret;

		cpu->id = i;
		if (rd_num(c, &cpu->offset, 8) || rd_num(c, &cpu->size, 8))
			return -1;
		if ((ret = check_cpu(l, cpu)))
			return ret;
	}
	return 0;
}

/*
 * v7's BUFFER option: u64 offset of the flyrecord section, instance name
 * ("" for the top buffer), clock, u32 page size, u32 cpus, then per CPU
 * u32 id, u64 offset, u64 size. CPUs without data are left out; libtracecmd
 * 3.1.6 hands out the id, and breaks ties by it: ids must increase.
 */
static int read_buffer_v7(struct cursor *c, const struct optscan *o, struct datfile_layout *l)
{
	uint64_t fly, psize, ncpus, id;
	char name;

	c->off = o->buffer_at;
	if (o->nbuffers != 1 || rd_num(c, &fly, 8) || rd(c, &name, 1) || name ||
	    skip_cstring(c, 4096) || rd_num(c, &psize, 4) || psize != l->page_size ||
	    rd_num(c, &ncpus, 4) || alloc_cpus(l, ncpus))
		return -1;
	for (int i = 0; i < l->ncpus; i++) {
		struct datfile_cpu *cpu = &l->cpus[i];
		int ret;

		if (rd_num(c, &id, 4) || id >= 65536 || (i && (int)id <= cpu[-1].id) ||
		    rd_num(c, &cpu->offset, 8) || rd_num(c, &cpu->size, 8))
			return -1;
		cpu->id = (int)id;
		if ((ret = check_cpu(l, cpu)))
			return ret;
	}
	c->off = fly;
	return section_header(c, OPT_BUFFER); /* the flyrecord data, not compressed */
}

/* v7: ... page size, compression "none\0" version "\0", u64 offset of the first options. */
static int layout_v7(struct cursor *c, struct datfile_layout *l)
{
	struct optscan o = {.version = 7};
	char comp[5];
	uint64_t at;

	if (rd(c, comp, sizeof(comp)) || memcmp(comp, "none", 5) || skip_cstring(c, 4096) ||
	    rd_num(c, &at, 8) || scan_options_v7(c, at, &o) || !o.header_info)
		return -1;
	c->off = o.header_info;
	if (section_header(c, OPT_HEADER_INFO) || read_header_page(c, &l->long_size))
		return -1;
	return read_buffer_v7(c, &o, l);
}

int datfile_layout(int fd, struct datfile_layout *l)
{
	struct cursor c = {.fd = fd};
	uint64_t psize;
	struct stat st;
	int version, ret;

	memset(l, 0, sizeof(*l));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	c.size = l->file_size = (uint64_t)st.st_size;
	if (read_initial(&c, &version, &psize) || c.big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return -1;
	/* A page holds its header and a record; the commit field holds its size. */
	if (!power_of_two(psize) || psize < 64 || psize > RINGPAGE_COMMIT_MASK + 1)
		return -1;
	l->page_size = (size_t)psize;
	ret = version == 6 ? layout_v6(&c, l) : layout_v7(&c, l);
	if (ret)
		datfile_layout_free(l);
	return ret == DATFILE_TRUNCATED ? ret : ret ? DATFILE_OTHER : 0;
}

void datfile_layout_free(struct datfile_layout *l)
{
	free(l->cpus);
	memset(l, 0, sizeof(*l));
}

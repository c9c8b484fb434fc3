// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat fast path: an uncompressed v6 file's per-CPU pages are
 * mapped a window at a time and walked with ringpage_next(), and the CPU
 * streams are merged by timestamp (a vCPU thread migrates, and pairing needs
 * each thread's events in order). libtracecmd still opens and validates the
 * file and provides the event formats; it is only bypassed for the records,
 * where its per-record malloc, page references and kbuffer calls cost
 * ~60 ns an event against ~3 ns here.
 *
 * The result is the same stream libtracecmd's tracecmd_iterate_events_multi()
 * gives: same records, same timestamps (kbuffer's rules, see ringpage_next),
 * ties between CPUs to the lower CPU, and each page's loss count on the
 * record kbuffer reports it with.
 *
 * Memory stays flat as the file grows: each CPU maps one window of at most
 * WINDOW bytes, unmapped when the walk leaves it.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "common.h"
#include "collect-local.h"
#include "source.h"
#include "tracedat-local.h"

/* Big enough that mmap calls are rare, small enough that RSS does not grow. */
#define WINDOW (2u << 20)

struct fcpu {
	int cpu;
	uint64_t pos, end;  /* file offset of the next page; end of this CPU's data */
	unsigned char *map; /* the current window's mapping */
	size_t map_len;
	const unsigned char *win; /* file offset win_start, in the mapping */
	uint64_t win_start, win_end;
	struct ringpage_cur cur;
	struct ringpage_rec rec; /* the next record of this CPU */
	uint64_t page_pos;	 /* file offset of the page cur walks (for errors) */
};

struct tracedat_fast {
	int fd;
	struct datfile_layout l;
	size_t window;
	uint64_t sys_page;
};

/*
 * libtracecmd reads the first page of every CPU when it opens a file, and
 * trusts its header: a corrupt commit there makes kbuffer read far past
 * the page (a crash, not an error). So those pages are checked first.
 */
static int check_first_pages(struct tracedat_fast *f, char *errbuf, size_t errlen)
{
	unsigned char *page = xmalloc(f->l.page_size);
	int ret = 0;

	for (int i = 0; i < f->l.ncpus && !ret; i++) {
		const struct datfile_cpu *cpu = &f->l.cpus[i];
		size_t len = cpu->size < f->l.page_size ? (size_t)cpu->size : f->l.page_size;
		struct ringpage_cur cur;
		struct ringpage_rec rec;
		int r = 0;

		if (!len)
			continue;
		if (pread(f->fd, page, len, (off_t)cpu->offset) != (ssize_t)len ||
		    ringpage_open(&cur, page, len, f->l.long_size) < 0)
			r = -1;
		else
			while ((r = ringpage_next(&cur, &rec)) > 0)
				;
		if (r < 0) {
			snprintf(errbuf, errlen,
				 "corrupt ring-buffer page at file offset %llu (cpu %d)",
				 (unsigned long long)cpu->offset, cpu->id);
			ret = -1;
		}
	}
	free(page);
	return ret;
}

int tracedat_fast_open_checked(const char *path, struct tracedat_fast **out, char *errbuf,
			       size_t errlen)
{
	struct tracedat_fast *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	long sp = sysconf(_SC_PAGESIZE);

	*out = NULL;
	if (fd < 0)
		return 0; /* libtracecmd says why */
	f = xcalloc(1, sizeof(*f));
	f->fd = fd;
	ret = datfile_layout(fd, &f->l);
	if (ret == DATFILE_TRUNCATED)
		snprintf(errbuf, errlen, "truncated trace.dat (the CPU data runs past its end)");
	if (ret < 0) {
		close(fd);
		free(f);
		return ret == DATFILE_TRUNCATED ? -1 : 0;
	}
	if (check_first_pages(f, errbuf, errlen) < 0) {
		tracedat_fast_close(f);
		return -1;
	}
	f->sys_page = sp > 0 ? (uint64_t)sp : 4096;
	f->window = WINDOW / f->l.page_size * f->l.page_size;
	if (f->window < f->l.page_size)
		f->window = f->l.page_size;
	*out = f;
	return 0;
}

struct tracedat_fast *tracedat_fast_open(const char *path)
{
	struct tracedat_fast *f;
	char e[160];

	return tracedat_fast_open_checked(path, &f, e, sizeof(e)) < 0 ? NULL : f;
}

void tracedat_fast_close(struct tracedat_fast *f)
{
	if (!f)
		return;
	datfile_layout_free(&f->l);
	close(f->fd);
	free(f);
}

static void unmap(struct fcpu *c)
{
	if (c->map)
		munmap(c->map, c->map_len);
	c->map = NULL;
}

/*
 * Maps the window that starts at c->pos. The layout was checked against
 * the file size, so nothing mapped lies past the end of the file (which
 * would raise SIGBUS on access).
 */
static int map_window(struct tracedat_fast *f, struct fcpu *c)
{
	uint64_t len = c->end - c->pos < f->window ? c->end - c->pos : f->window;
	uint64_t moff = c->pos & ~(f->sys_page - 1);
	void *m;

	unmap(c);
	/* MAP_POPULATE: one call maps the whole window instead of a fault per 64 KiB */
	m = mmap(NULL, (size_t)(c->pos - moff + len), PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->fd,
		 (off_t)moff);
	if (m == MAP_FAILED)
		return -1;
	c->map = m;
	c->map_len = (size_t)(c->pos - moff + len);
	c->win = c->map + (c->pos - moff);
	c->win_start = c->pos;
	c->win_end = c->pos + len;
	return 0;
}

enum { WALK_ERR_MAP = -2, WALK_ERR_PAGE = -1 };

/* Loads the next page of c. Returns 1, 0 when the CPU has no more, or WALK_ERR_*. */
static int next_page(struct tracedat_fast *f, struct fcpu *c)
{
	size_t len;

	if (c->pos >= c->end)
		return 0;
	len = c->end - c->pos < f->l.page_size ? (size_t)(c->end - c->pos) : f->l.page_size;
	if (c->pos + len > c->win_end && map_window(f, c))
		return WALK_ERR_MAP;
	c->page_pos = c->pos;
	if (ringpage_open(&c->cur, c->win + (c->pos - c->win_start), len, f->l.long_size))
		return WALK_ERR_PAGE;
	c->pos += f->l.page_size;
	return 1;
}

/* Moves c to its next record: 1, 0 when the CPU is done, or WALK_ERR_*. */
static int advance(struct tracedat_fast *f, struct fcpu *c)
{
	for (;;) {
		int r = ringpage_next(&c->cur, &c->rec);

		if (r)
			return r;
		r = next_page(f, c);
		if (r <= 0)
			return r;
	}
}

/* Earlier timestamp first; on a tie the lower CPU, as libtracecmd's linear scan picks it. */
static bool before(const struct fcpu *a, const struct fcpu *b)
{
	return a->rec.ts < b->rec.ts || (a->rec.ts == b->rec.ts && a->cpu < b->cpu);
}

static void sift_down(struct fcpu **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (l + 1 < n && before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct fcpu *t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int walk_error(int r, const struct fcpu *c, char *errbuf, size_t errlen)
{
	if (r == WALK_ERR_MAP)
		snprintf(errbuf, errlen, "cannot map the trace data of cpu %d: %s", c->cpu,
			 strerror(errno));
	else
		snprintf(errbuf, errlen, "corrupt ring-buffer page at file offset %llu (cpu %d)",
			 (unsigned long long)c->page_pos, c->cpu);
	return -1;
}

/* The k-way merge: a binary heap of the CPUs' next records. */
static int merge(struct tracedat_fast *f, struct fcpu **h, size_t n, source_record_fn fn, void *arg,
		 char *errbuf, size_t errlen)
{
	for (size_t i = n; i-- > 0;)
		sift_down(h, n, i);
	while (n) {
		struct fcpu *c = h[0];
		int r;

		if (fn(arg, c->rec.data, (int)c->rec.size, c->rec.ts, c->cpu, c->rec.missed))
			return 0;
		r = advance(f, c);
		if (r < 0)
			return walk_error(r, c, errbuf, errlen);
		if (!r)
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	return 0;
}

int tracedat_fast_iterate(struct tracedat_fast *f, source_record_fn fn, void *arg, char *errbuf,
			  size_t errlen)
{
	int ncpus = f->l.ncpus, ret = 0;
	struct fcpu *cpus = xcalloc((size_t)ncpus, sizeof(*cpus));
	struct fcpu **heap = xcalloc((size_t)ncpus, sizeof(*heap));
	size_t n = 0;

	for (int i = 0; i < ncpus && !ret; i++) {
		struct fcpu *c = &cpus[i];
		int r;

		c->cpu = f->l.cpus[i].id;
		c->pos = f->l.cpus[i].offset;
		c->end = c->pos + f->l.cpus[i].size;
		r = advance(f, c);
		if (r < 0)
			ret = walk_error(r, c, errbuf, errlen);
		else if (r)
			heap[n++] = c;
	}
	if (!ret)
		ret = merge(f, heap, n, fn, arg, errbuf, errlen);
	for (int i = 0; i < ncpus; i++)
		unmap(&cpus[i]);
	free(heap);
	free(cpus);
	return ret;
}

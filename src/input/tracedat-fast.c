// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat fast path for uncompressed files (v6, v7 without
 * compression): each CPU's pages are a lane (ring.h) that reads its data a
 * window at a time, for the feed (feed.h) to walk with ring_next(), decode
 * and merge by timestamp. libtracecmd still opens and validates the file and
 * provides the event formats; it is only bypassed for the records, where its
 * per-record malloc, page references and kbuffer calls cost ~60 ns an event
 * against ~3 ns here.
 *
 * The feed gives the same stream libtracecmd's tracecmd_iterate_events_multi()
 * gives: same records, same timestamps (kbuffer's rules, see ring_next),
 * ties between CPUs to the lower CPU, and each page's loss count on the
 * record kbuffer reports it with (tests/unit/test_tracedat_fast.c, fastpath.sh).
 *
 * Memory stays flat as the file grows: each CPU reads its pages a window of
 * at most WINDOW bytes at a time into one buffer of its own, reused. Read,
 * not mapped: on the machines the bench runs on (kvm-pvm guests) a mapped
 * page costs several times a read one (make bench of 9255e24, 16 M events:
 * a word sum over MAP_POPULATE'd 2 MiB windows 0.358 s of CPU, cat 0.064 s),
 * and one thread's report went from 0.523 s to 0.255 s with this change.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "ring.h"
#include "tracedat-local.h"
#include "tracedat.h"

/*
 * Big enough that read calls are rare (one per 64 pages), small enough that
 * the walk finds the window still in the core's cache after the copy. The
 * planes' windows are one block in huge pages (xmalloc_huge()): a page
 * fault costs ~20 us on this machine kind (a PVM guest), and a window of
 * 4 KiB pages took 64 of them. Report of the bench's 1 M-event recording,
 * one thread: 633 -> 508 page faults.
 */
#define WINDOW (256u << 10)

/* One CPU's pages: its lane, and the window of the file it has read. */
struct plane {
	struct ring_lane lane; /* first: the feed calls lane.next with it */
	const struct tracedat_fast *f;
	uint64_t start;	    /* file offset of this CPU's first page */
	uint64_t pos, end;  /* file offset of the next page; end of this CPU's data */
	unsigned char *win; /* the current window: file offsets [win_start, win_end) */
	uint64_t win_start, win_end;
};

struct tracedat_fast {
	int fd;			 /* the caller's */
	struct datfile_layout l; /* a copy: cpus owned here, stats not kept */
	size_t window;
	struct plane *lanes; /* tracedat_fast_lanes()' */
	unsigned char *wins; /* their windows, f->window bytes each */
	struct ring_lane **v;
	size_t nlanes;
};

static void free_lanes(struct tracedat_fast *f);

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
		struct ring_cur cur;
		struct ring_rec rec;
		int r = 0;

		if (!len)
			continue;
		if (pread(f->fd, page, len, (off_t)cpu->offset) != (ssize_t)len ||
		    ring_open(&cur, page, len, f->l.long_size) < 0)
			r = -1;
		else
			while ((r = ring_next(&cur, &rec)) > 0)
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

struct tracedat_fast *tracedat_fast_new(int fd, const struct datfile_layout *l, char *errbuf,
					size_t errlen)
{
	struct tracedat_fast *f = xcalloc(1, sizeof(*f));

	f->fd = fd;
	f->l = *l;
	f->l.cpus = xcalloc((size_t)l->ncpus, sizeof(*l->cpus));
	memcpy(f->l.cpus, l->cpus, (size_t)l->ncpus * sizeof(*l->cpus));
	f->l.stats = NULL;
	f->l.nstats = 0;
	f->l.procmap = NULL; /* the caller's */
	f->l.procmap_len = 0;
	if (check_first_pages(f, errbuf, errlen) < 0) {
		tracedat_fast_close(f);
		return NULL;
	}
	f->window = WINDOW / f->l.page_size * f->l.page_size;
	if (f->window < f->l.page_size)
		f->window = f->l.page_size;
	return f;
}

struct tracedat_fast *tracedat_fast_open(int fd)
{
	struct datfile_layout l;
	struct tracedat_fast *f = NULL;
	char e[160];

	if (datfile_layout(fd, &l, e, sizeof(e)) == 0 && l.fast)
		f = tracedat_fast_new(fd, &l, e, sizeof(e));
	datfile_layout_free(&l);
	return f;
}

void tracedat_fast_close(struct tracedat_fast *f)
{
	if (!f)
		return;
	free_lanes(f);
	datfile_layout_free(&f->l);
	free(f);
}

/*
 * Reads the window that starts at p->pos into the plane's buffer. The
 * layout was checked against the file size; a file cut since is a short
 * read, an error.
 */
static int read_window(struct plane *p)
{
	const struct tracedat_fast *f = p->f;
	size_t len = p->end - p->pos < f->window ? (size_t)(p->end - p->pos) : f->window;
	ssize_t got;

	p->win_end = p->win_start = p->pos;
	/* one pread, as tracedat-zstd.c reads a chunk: short only where the file ends */
	got = pread(f->fd, p->win, len, (off_t)p->pos);
	if (got != (ssize_t)len) {
		if (got >= 0)
			errno = EIO;
		return -1;
	}
	p->win_end = p->pos + len;
	return 0;
}

/* ring_lane.next: the CPU's next page, in the window (the next window when it is past). */
static int plane_next(struct ring_lane *l, const void **page, size_t *len, uint64_t *pos,
		      char *errbuf, size_t errlen)
{
	struct plane *p = (struct plane *)l;
	size_t n;

	if (p->pos >= p->end)
		return 0;
	n = p->end - p->pos < p->f->l.page_size ? (size_t)(p->end - p->pos) : p->f->l.page_size;
	if (p->pos + n > p->win_end && read_window(p))
		return err_buf_errno(errbuf, errlen, "cannot read the trace data of cpu %d",
				     l->cpu);
	*page = p->win + (p->pos - p->win_start);
	*len = n;
	*pos = p->pos;
	p->pos += p->f->l.page_size;
	return 1;
}

static void free_lanes(struct tracedat_fast *f)
{
	free(f->wins);
	free(f->lanes);
	free(f->v);
	f->wins = NULL;
	f->lanes = NULL;
	f->v = NULL;
	f->nlanes = 0;
}

size_t tracedat_fast_lanes(struct tracedat_fast *f, struct ring_lane ***lanes)
{
	free_lanes(f);
	f->lanes = xcalloc((size_t)f->l.ncpus + 1, sizeof(*f->lanes));
	f->v = xcalloc((size_t)f->l.ncpus + 1, sizeof(*f->v));
	for (int i = 0; i < f->l.ncpus; i++) {
		struct plane *p = &f->lanes[f->nlanes];

		if (!f->l.cpus[i].size)
			continue;
		p->lane = (struct ring_lane){.cpu = f->l.cpus[i].id,
					     .long_size = f->l.long_size,
					     .next = plane_next};
		p->f = f;
		p->start = p->pos = f->l.cpus[i].offset;
		p->end = p->pos + f->l.cpus[i].size;
		f->v[f->nlanes++] = &p->lane;
	}
	/* one block, its pages touched as windows are read */
	f->wins = xmalloc_huge(f->nlanes, f->window);
	for (size_t i = 0; i < f->nlanes; i++)
		f->lanes[i].win = f->wins + i * f->window;
	*lanes = f->v;
	return f->nlanes;
}

int tracedat_fast_sample(const struct tracedat_fast *f, size_t i, unsigned k, unsigned n,
			 void *buf, size_t *len)
{
	const struct plane *p;
	uint64_t ps = f->l.page_size, pages, at;

	if (i >= f->nlanes || k >= n)
		return 0;
	p = &f->lanes[i];
	pages = (p->end - p->start + ps - 1) / ps;
	at = p->start + (n > 1 ? (pages - 1) * k / (n - 1) : 0) * ps;
	*len = p->end - at < ps ? (size_t)(p->end - at) : (size_t)ps;
	return pread(f->fd, buf, *len, (off_t)at) == (ssize_t)*len ? 1 : -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * zstd-compressed trace.dat v7 (trace-cmd convert --compression zstd): each
 * CPU's data is a chunk stream (trace-cmd.dat.v7(5); trace-cmd's
 * tracecmd_compress_copy_from() writes it, tracecmd_load_chunks_info() reads
 * it):
 *
 *     u32 chunk count, then per chunk
 *     u32 compressed size, u32 uncompressed size, compressed bytes
 *
 * in the file's byte order (the host's: datfile_layout() leaves other byte
 * orders to libtracecmd). The uncompressed chunks, one after the other, are
 * the CPU's ring-buffer pages. A lane decompresses one chunk at a time into
 * its own buffer and hands its pages to the feed (feed.h), which walks and
 * merges them as the uncompressed path's, so the records, their order and
 * the loss counts are the same, and memory is one chunk (trace-cmd 3.1.6:
 * 10 pages) plus its compressed bytes per CPU, whatever the file's length.
 * libtracecmd (its default read_zpage mode) instead keeps every chunk it
 * decompressed in a tree until the CPU's walk is done: 484 MB at 16 M events.
 *
 * The file is not trusted: every chunk header is checked against the file
 * and the limits before libtracecmd is even asked to open it (it allocates
 * what the headers say), and every frame is checked as it is decompressed.
 *
 * zlib chunks (the only other compression trace-cmd knows) stay with
 * libtracecmd: Debian's trace-cmd 3.1.6 cannot write them (`trace-cmd list
 * -c`), so there is no real file to test a reader against.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "alloc.h"
#include "err.h"
#include "ring.h"
#include "tracedat-local.h"
#include "tracedat.h"

/* All CPUs' chunk buffers together stay below this (the plan's 64 MB of memory). */
#define ZSTD_MEM_LIMIT (64u << 20)

struct zlane {
	struct ring_lane lane; /* first: the walker calls lane.next with it */
	const struct tracedat_zstd *z;
	uint64_t next;	     /* file offset of the next chunk header */
	uint32_t left;	     /* chunks not yet read */
	uint64_t chunk_pos;  /* file offset of the chunk in buf (for errors) */
	unsigned char *zbuf; /* compressed bytes of one chunk */
	unsigned char *buf;  /* its pages */
	unsigned char next_hdr[8]; /* the next chunk's header, read with this chunk */
	bool have_next;
	size_t len, off;     /* bytes in buf; the next page's offset in it */
	ZSTD_DCtx *dctx;
};

struct tracedat_zstd {
	int fd; /* the caller's */
	uint64_t file_size;
	size_t page_size;
	size_t max_chunk; /* largest compressed or uncompressed chunk allowed */
	int long_size;
	int ncpus;
	struct datfile_cpu *cpus; /* those with data */
	size_t zcap, cap;	  /* the largest chunk of any CPU: what a lane allocates */
	uint64_t data_bytes;	  /* every chunk's pages, decompressed */
	struct zlane *lanes;	  /* tracedat_zstd_lanes()' */
	struct ring_lane **v;
	int nlanes;
};

static void free_lanes(struct tracedat_zstd *z);

static int rd_u32(int fd, uint64_t off, uint32_t *v)
{
	return pread(fd, v, 4, (off_t)off) == 4 ? 0 : -1;
}

/*
 * One chunk header at off, read here or (hdr) already read with the chunk
 * before it: checked, *zsize and *size set.
 */
static int chunk_header(const struct tracedat_zstd *z, int cpu, uint64_t off,
			const unsigned char *hdr, uint32_t *zsize, uint32_t *size, char *errbuf,
			size_t errlen)
{
	unsigned char b[8];

	if (off > z->file_size || z->file_size - off < 8 ||
	    (!hdr && pread(z->fd, b, 8, (off_t)off) != 8))
		return err_buf(errbuf, errlen,
			       "truncated trace.dat (a zstd chunk header of cpu %d at offset %llu "
			       "runs past its end)",
			       cpu, (unsigned long long)off);
	memcpy(zsize, hdr ? hdr : b, 4);
	memcpy(size, (hdr ? hdr : b) + 4, 4);
	if (!*zsize || *zsize > z->max_chunk || !*size || *size > z->max_chunk)
		return err_buf(errbuf, errlen,
			       "a zstd chunk of cpu %d at offset %llu declares %u compressed, %u "
			       "uncompressed bytes (the limit is %zu): corrupt file",
			       cpu, (unsigned long long)off, *zsize, *size, z->max_chunk);
	if (*size % z->page_size)
		return err_buf(errbuf, errlen,
			       "a zstd chunk of cpu %d at offset %llu holds %u bytes, not whole "
			       "%zu-byte pages: corrupt file",
			       cpu, (unsigned long long)off, *size, z->page_size);
	if (*zsize > z->file_size - off - 8)
		return err_buf(errbuf, errlen,
			       "truncated trace.dat (a zstd chunk of cpu %d at offset %llu runs "
			       "past its end)",
			       cpu, (unsigned long long)off);
	return 0;
}

/* Walks every chunk header of one CPU: the largest sizes go to z->zcap and z->cap. */
static int check_chunks(struct tracedat_zstd *z, const struct datfile_cpu *cpu, char *errbuf,
			size_t errlen)
{
	uint64_t off = cpu->offset + 4;
	uint32_t count, zsize, size;

	if (cpu->size < 4 || rd_u32(z->fd, cpu->offset, &count))
		return err_buf(errbuf, errlen, "truncated trace.dat (no chunk count for cpu %d)",
			       cpu->id);
	for (uint32_t i = 0; i < count; i++) {
		if (chunk_header(z, cpu->id, off, NULL, &zsize, &size, errbuf, errlen))
			return -1;
		if (zsize > z->zcap)
			z->zcap = zsize;
		if (size > z->cap)
			z->cap = size;
		z->data_bytes += size;
		off += 8 + (uint64_t)zsize;
	}
	/*
	 * The chunks are the data the BUFFER option gives the CPU, no more, no
	 * less: a size cut to 7 bytes was read through (the chunks ran on into
	 * what follows) and a chunk count cut to 0 left the CPU's 12 KB unread,
	 * each reported with no word (found by the page-walker oracle, issue
	 * 29). trace-cmd before 3.2 leaves the 4-byte count out of that size
	 * (libtracecmd 4b92132): its files' chunks end 4 bytes past it.
	 */
	uint64_t used = off - cpu->offset;

	if (used > cpu->size + 4)
		return err_buf(
		    errbuf, errlen,
		    "the zstd chunks of cpu %d run %llu bytes past the %llu bytes of data "
		    "the file gives it: corrupt file",
		    cpu->id, (unsigned long long)(used - cpu->size), (unsigned long long)cpu->size);
	if (used < cpu->size)
		return err_buf(
		    errbuf, errlen,
		    "the %u zstd chunks of cpu %d hold %llu of the %llu bytes of data the "
		    "file gives it: corrupt file",
		    count, cpu->id, (unsigned long long)used, (unsigned long long)cpu->size);
	return 0;
}

static int check_first_page(const struct tracedat_zstd *z, const struct datfile_cpu *cpu,
			    char *errbuf, size_t errlen);

struct tracedat_zstd *tracedat_zstd_new(int fd, const struct datfile_layout *l, int long_size,
					char *errbuf, size_t errlen)
{
	struct tracedat_zstd *z = xcalloc(1, sizeof(*z));

	z->fd = fd;
	z->file_size = l->file_size;
	z->page_size = l->page_size;
	z->long_size = long_size;
	z->max_chunk = ZSTD_MEM_LIMIT / (size_t)(l->ncpus > 0 ? l->ncpus : 1);
	z->cpus = xcalloc((size_t)l->ncpus, sizeof(*z->cpus));
	for (int i = 0; i < l->ncpus; i++) {
		if (!l->cpus[i].size)
			continue;
		if (check_chunks(z, &l->cpus[i], errbuf, errlen) ||
		    check_first_page(z, &l->cpus[i], errbuf, errlen)) {
			tracedat_zstd_close(z);
			return NULL;
		}
		z->cpus[z->ncpus++] = l->cpus[i];
	}
	return z;
}

uint64_t tracedat_zstd_data_bytes(const struct tracedat_zstd *z)
{
	return z->data_bytes;
}

void tracedat_zstd_close(struct tracedat_zstd *z)
{
	if (!z)
		return;
	free_lanes(z);
	free(z->cpus);
	free(z);
}

/* Reads and decompresses the lane's next chunk into buf. */
static int load_chunk(struct zlane *zl, char *errbuf, size_t errlen)
{
	const struct tracedat_zstd *z = zl->z;
	uint32_t zsize, size;
	size_t got, extra;

	/* checked by check_chunks(), but the file may have changed since: checked again */
	if (chunk_header(z, zl->lane.cpu, zl->next, zl->have_next ? zl->next_hdr : NULL, &zsize,
			 &size, errbuf, errlen))
		return -1;
	if (zsize > z->zcap || size > z->cap)
		return err_buf(errbuf, errlen, "the trace.dat changed while it was read");
	/* the next chunk's header in the same read: one system call a chunk */
	extra = zl->left > 1 && z->file_size - (zl->next + 8 + zsize) >= 8 ? 8 : 0;
	if (pread(z->fd, zl->zbuf, zsize + extra, (off_t)(zl->next + 8)) !=
	    (ssize_t)(zsize + extra))
		return err_buf_errno(errbuf, errlen, "cannot read the zstd chunk at offset %llu",
				     (unsigned long long)zl->next);
	zl->have_next = extra != 0;
	if (extra)
		memcpy(zl->next_hdr, zl->zbuf + zsize, 8);
	got = ZSTD_decompressDCtx(zl->dctx, zl->buf, size, zl->zbuf, zsize);
	if (ZSTD_isError(got))
		return err_buf(errbuf, errlen,
			       "corrupt zstd chunk of cpu %d at file offset %llu: %s", zl->lane.cpu,
			       (unsigned long long)zl->next, ZSTD_getErrorName(got));
	if (got != size)
		return err_buf(errbuf, errlen,
			       "the zstd chunk of cpu %d at file offset %llu holds %zu bytes, its "
			       "header says %u: corrupt file",
			       zl->lane.cpu, (unsigned long long)zl->next, got, size);
	zl->chunk_pos = zl->next;
	zl->next += 8 + (uint64_t)zsize;
	zl->left--;
	zl->len = size;
	zl->off = 0;
	return 0;
}

/* ring_lane.next: the next page of the current chunk, loading the next chunk when it is done. */
static int zlane_next(struct ring_lane *l, const void **page, size_t *len, uint64_t *pos,
		      char *errbuf, size_t errlen)
{
	struct zlane *zl = (struct zlane *)l;

	if (zl->off >= zl->len) {
		if (!zl->left)
			return 0;
		if (load_chunk(zl, errbuf, errlen))
			return -1;
	}
	*page = zl->buf + zl->off;
	*len = zl->z->page_size;
	*pos = zl->chunk_pos; /* the chunk's: a page inside it has no file offset */
	zl->off += zl->z->page_size;
	return 1;
}

static int zlane_init(struct zlane *zl, const struct tracedat_zstd *z, const struct datfile_cpu *cpu,
		      char *errbuf, size_t errlen)
{
	zl->lane = (struct ring_lane){.cpu = cpu->id, .long_size = z->long_size, .next = zlane_next};
	zl->z = z;
	zl->next = cpu->offset + 4;
	if (rd_u32(z->fd, cpu->offset, &zl->left))
		return err_buf_errno(errbuf, errlen, "cannot read the data of cpu %d", cpu->id);
	zl->dctx = ZSTD_createDCtx();
	if (!zl->dctx)
		return err_buf(errbuf, errlen, "out of memory for a zstd context");
	zl->zbuf = xmalloc(z->zcap + 8);
	zl->buf = xmalloc(z->cap ? z->cap : 1);
	return 0;
}

static void zlane_free(struct zlane *zl)
{
	ZSTD_freeDCtx(zl->dctx);
	free(zl->zbuf);
	free(zl->buf);
}

static void free_lanes(struct tracedat_zstd *z)
{
	for (int i = 0; i < z->nlanes; i++)
		zlane_free(&z->lanes[i]);
	free(z->lanes);
	free(z->v);
	z->lanes = NULL;
	z->v = NULL;
	z->nlanes = 0;
}

int tracedat_zstd_lanes(struct tracedat_zstd *z, struct ring_lane ***lanes, size_t *n,
			char *errbuf, size_t errlen)
{
	free_lanes(z);
	z->lanes = xcalloc((size_t)z->ncpus + 1, sizeof(*z->lanes));
	z->v = xcalloc((size_t)z->ncpus + 1, sizeof(*z->v));
	for (; z->nlanes < z->ncpus; z->nlanes++) {
		int ret = zlane_init(&z->lanes[z->nlanes], z, &z->cpus[z->nlanes], errbuf, errlen);

		z->v[z->nlanes] = &z->lanes[z->nlanes].lane;
		if (ret) {
			z->nlanes++; /* freed with the others */
			return -1;
		}
	}
	*lanes = z->v;
	*n = (size_t)z->nlanes;
	return 0;
}

int tracedat_zstd_block(int fd, uint64_t off, uint64_t file_size, size_t max, unsigned char **out,
			size_t *len)
{
	uint32_t zsize, size;
	unsigned char *in, *b;
	size_t got;

	if (off > file_size || file_size - off < 8 || rd_u32(fd, off, &zsize) ||
	    rd_u32(fd, off + 4, &size) || !zsize || zsize > max || size > max ||
	    zsize > file_size - off - 8)
		return -1;
	in = xmalloc(zsize);
	b = xmalloc(size ? size : 1);
	got = pread(fd, in, zsize, (off_t)(off + 8)) == (ssize_t)zsize
		      ? ZSTD_decompress(b, size, in, zsize)
		      : (size_t)-1;
	free(in);
	if (ZSTD_isError(got) || got != size) {
		free(b);
		return -1;
	}
	*out = b;
	*len = size;
	return 0;
}

/*
 * libtracecmd decompresses each CPU's first chunk when it opens the file and
 * trusts its first page's header (kbuffer reads as far as a corrupt commit
 * says): that page, and that chunk's frame, are checked first, as
 * tracedat-fast.c checks the first pages of an uncompressed file.
 */
static int check_first_page(const struct tracedat_zstd *z, const struct datfile_cpu *cpu,
			    char *errbuf, size_t errlen)
{
	struct zlane zl = {0};
	const void *page;
	size_t len;
	uint64_t pos;
	struct ring_cur cur;
	struct ring_rec rec;
	int r = zlane_init(&zl, z, cpu, errbuf, errlen);

	if (!r && (r = zlane_next(&zl.lane, &page, &len, &pos, errbuf, errlen)) > 0) {
		if (ring_open(&cur, page, len, z->long_size) < 0)
			r = -1;
		else
			while ((r = ring_next(&cur, &rec)) > 0)
				;
		if (r < 0)
			err_buf(errbuf, errlen,
				"corrupt ring-buffer page in the zstd chunk at file offset %llu (cpu %d)",
				(unsigned long long)pos, cpu->id);
	}
	zlane_free(&zl);
	return r < 0 ? -1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A small reader for what libtracecmd does not expose in a usable way: the
 * lost-event counts stored in a v6 trace.dat's CPUSTAT options. It walks the
 * header sections (trace-cmd.dat.v6(5)) checking every size against the file
 * size, so a truncated or corrupt file gives -1, never a wild read.
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

#define OPT_CPUSTAT 2

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

static int read_initial(struct cursor *c)
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
	/* v7 (sections, compression) keeps its stats elsewhere: not handled. */
	if (ver[i] || strcmp(ver, "6"))
		return -1;
	if (rd(c, b, 2) || b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return -1;
	c->big = b[0] == 1;
	return skip(c, 4); /* page size */
}

static int skip_metadata(struct cursor *c)
{
	uint64_t n, nsys;

	if (expect(c, "header_page", 12) || skip_sized(c, 1, 8) || expect(c, "header_event", 13) ||
	    skip_sized(c, 1, 8))
		return -1;
	if (rd_num(c, &n, 4) || skip_sized(c, n, 8)) /* ftrace formats */
		return -1;
	if (rd_num(c, &nsys, 4))
		return -1;
	for (uint64_t i = 0; i < nsys; i++)
		if (skip_cstring(c, 4096) || rd_num(c, &n, 4) || skip_sized(c, n, 8))
			return -1;
	/* kallsyms, printk formats (u32 sizes), cmdlines (u64), cpu count */
	if (skip_sized(c, 2, 4) || skip_sized(c, 1, 8) || skip(c, 4))
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
		if (id == 0)
			return 0;
		if (rd_num(c, &size, 4))
			return -1;
		if (id != OPT_CPUSTAT) {
			if (skip(c, size))
				return -1;
			continue;
		}
		if (size > c->size)
			return -1;
		text = xmalloc((size_t)size + 1);
		if (rd(c, text, (size_t)size)) {
			free(text);
			return -1;
		}
		text[size] = 0;
		*lost += cpustats_lost(text);
		*found = true;
		free(text);
	}
}

int datfile_lost_events(const char *path, uint64_t *lost)
{
	struct cursor c = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
	bool found = false;
	struct stat st;
	char kind[10];
	int ret = -1;

	if (c.fd < 0)
		return -1;
	if (fstat(c.fd, &st) < 0)
		goto out;
	c.size = (uint64_t)st.st_size;
	*lost = 0;
	if (read_initial(&c) || skip_metadata(&c) || rd(&c, kind, sizeof(kind)))
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

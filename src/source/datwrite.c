// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat version 6 writer, after trace-cmd.dat.v6(5):
 *
 *   "\x17\x08\x44tracing" "6\0" endian(1) long_size(1) page_size(u32)
 *   "header_page\0" u64 + text      "header_event\0" u64 + text
 *   u32 ftrace formats (0)
 *   u32 systems { "system\0" u32 n { u64 + format text } }
 *   u32 kallsyms (0)   u32 printk (0)   u64 + saved_cmdlines text
 *   u32 cpus
 *   "options  \0" { u16 id, u32 size, data } u16 0
 *   "flyrecord\0" cpus x { u64 offset, u64 size } [u64 + trace_clock text]
 *   page-aligned per-CPU raw pages
 *
 * libtracecmd's writer is not public API in Debian 12 (its header is not
 * installed), and the v6 layout is documented and stable, so it is written
 * here. Numbers are in the host's byte order, which the endian byte states.
 *
 * Pages arrive interleaved across CPUs while recording, but the file wants
 * each CPU's pages contiguous: they wait in unlinked per-CPU temporary files
 * and are copied (copy_file_range) after the header at the end.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "common.h"
#include "collect.h"
#include "collect-local.h"

enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
};

struct datwrite {
	char *path;
	int out;      /* unnamed until datwrite_finish() publishes it */
	char *outtmp; /* its temporary name when O_TMPFILE is not available */
	int ncpus;
	size_t page_size;
	int *tmp;	 /* per-CPU temporary files */
	uint64_t *pages; /* per-CPU page counts */
	unsigned char *pagebuf;
	bool done;
};

/* A growable byte buffer for the header. */
struct obuf {
	unsigned char *p;
	size_t len, cap;
};

static void ob_put(struct obuf *b, const void *data, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void ob_u16(struct obuf *b, uint16_t v)
{
	ob_put(b, &v, 2);
}

static void ob_u32(struct obuf *b, uint32_t v)
{
	ob_put(b, &v, 4);
}

static void ob_u64(struct obuf *b, uint64_t v)
{
	ob_put(b, &v, 8);
}

static void ob_str(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s) + 1);
}

/*
 * An unlinked file on the output's file system (so copy_file_range can be
 * cheap). Close-on-exec: a traced command forked later must not keep it (and
 * its disk space) alive after the recorder is gone.
 */
static int tmpfile_near(const char *path)
{
	char *copy = xstrdup(path), *dir = dirname(copy), tmpl[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {
		snprintf(tmpl, sizeof(tmpl), "%s/.kvm-exitstat-XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	free(copy);
	return fd;
}

/*
 * The output is written unnamed and linked to its path only when complete:
 * a killed or failed recording leaves no half file and keeps an older one.
 */
static int open_output(struct datwrite *w)
{
	char *copy = xstrdup(w->path), *dir = dirname(copy);
	struct stat st;

	if (stat(w->path, &st) == 0 && S_ISDIR(st.st_mode)) {
		free(copy);
		errno = EISDIR;
		return -1;
	}
	w->out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (w->out < 0) {
		size_t n = strlen(dir) + 32;

		w->outtmp = xmalloc(n);
		snprintf(w->outtmp, n, "%s/.kvm-exitstat-out-XXXXXX", dir);
		w->out = mkstemp(w->outtmp);
		if (w->out < 0) {
			free(w->outtmp);
			w->outtmp = NULL;
		} else {
			fchmod(w->out, 0644);
		}
	}
	free(copy);
	return w->out < 0 ? -1 : 0;
}

static int publish_output(struct datwrite *w)
{
	char fdpath[64], *tmp;
	size_t n;
	int ret;

	if (w->outtmp)
		return rename(w->outtmp, w->path);
	/* linkat() will not replace a file: link to a fresh name, then rename */
	n = strlen(w->path) + 32;
	tmp = xmalloc(n);
	snprintf(tmp, n, "%s.kes-%d", w->path, (int)getpid());
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", w->out);
	unlink(tmp);
	ret = linkat(AT_FDCWD, fdpath, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
	if (ret == 0 && (ret = rename(tmp, w->path)) < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

struct datwrite *datwrite_new(const char *path, int ncpus, size_t page_size, char *errbuf,
			      size_t errlen)
{
	struct datwrite *w;

	if (ncpus <= 0 || page_size < 64 || (page_size & (page_size - 1))) {
		errbuf_set(errbuf, errlen, "bad trace.dat geometry (%d cpus, page %zu)", ncpus,
			   page_size);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	w->ncpus = ncpus;
	w->page_size = page_size;
	w->tmp = xcalloc((size_t)ncpus, sizeof(*w->tmp));
	w->pages = xcalloc((size_t)ncpus, sizeof(*w->pages));
	w->pagebuf = xcalloc(1, page_size);
	w->out = -1;
	for (int i = 0; i < ncpus; i++)
		w->tmp[i] = -1;
	/* Create the output now: an unwritable path fails before tracing starts. */
	if (open_output(w) < 0) {
		errbuf_set(errbuf, errlen, "cannot create '%s': %s", path, strerror(errno));
		goto fail;
	}
	for (int i = 0; i < ncpus; i++) {
		w->tmp[i] = tmpfile_near(path);
		if (w->tmp[i] < 0) {
			errbuf_set(errbuf, errlen,
				   "cannot create a temporary file next to '%s': %s", path,
				   strerror(errno));
			goto fail;
		}
	}
	return w;
fail:
	datwrite_free(w);
	return NULL;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t r = write(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

int datwrite_page(struct datwrite *w, int cpu, const void *page, size_t len)
{
	const void *p = page;

	if (cpu < 0 || cpu >= w->ncpus || len > w->page_size) {
		errno = EINVAL;
		return -1;
	}
	if (len < w->page_size) {
		memset(w->pagebuf, 0, w->page_size);
		memcpy(w->pagebuf, page, len);
		p = w->pagebuf;
	}
	if (write_all(w->tmp[cpu], p, w->page_size) < 0)
		return -1;
	w->pages[cpu]++;
	return 0;
}

uint64_t datwrite_cpu_pages(const struct datwrite *w, int cpu)
{
	return cpu >= 0 && cpu < w->ncpus ? w->pages[cpu] : 0;
}

/* ------------------------------------------------------------------------ */
/* Header */

static void put_initial(struct obuf *b, size_t page_size)
{
	static const unsigned char magic[] = {0x17, 0x08, 0x44};
	const uint16_t probe = 1;
	unsigned char endian = *(const unsigned char *)&probe ? 0 : 1;
	unsigned char lsize = (unsigned char)sizeof(long);

	ob_put(b, magic, sizeof(magic));
	ob_put(b, "tracing", 7);
	ob_str(b, "6");
	ob_put(b, &endian, 1);
	ob_put(b, &lsize, 1);
	ob_u32(b, (uint32_t)page_size);
}

static void put_headers(struct obuf *b, const struct datwrite_meta *m)
{
	ob_str(b, "header_page");
	ob_u64(b, m->header_page_len);
	ob_put(b, m->header_page, m->header_page_len);
	ob_str(b, "header_event");
	ob_u64(b, m->header_event_len);
	ob_put(b, m->header_event, m->header_event_len);
	ob_u32(b, 0); /* ftrace event formats: none recorded */
}

/* Event formats grouped by system, systems in order of first appearance. */
static void put_formats(struct obuf *b, const struct datwrite_meta *m)
{
	const char **systems = xcalloc(m->nformats + 1, sizeof(*systems));
	uint32_t nsys = 0;

	for (size_t i = 0; i < m->nformats; i++) {
		uint32_t j;

		for (j = 0; j < nsys && strcmp(systems[j], m->formats[i].system); j++)
			;
		if (j == nsys)
			systems[nsys++] = m->formats[i].system;
	}
	ob_u32(b, nsys);
	for (uint32_t j = 0; j < nsys; j++) {
		uint32_t n = 0;

		for (size_t i = 0; i < m->nformats; i++)
			n += !strcmp(m->formats[i].system, systems[j]);
		ob_str(b, systems[j]);
		ob_u32(b, n);
		for (size_t i = 0; i < m->nformats; i++) {
			if (strcmp(m->formats[i].system, systems[j]))
				continue;
			ob_u64(b, m->formats[i].len);
			ob_put(b, m->formats[i].text, m->formats[i].len);
		}
	}
	free(systems);
}

static void put_option(struct obuf *b, uint16_t id, const void *data, uint32_t size)
{
	ob_u16(b, id);
	ob_u32(b, size);
	ob_put(b, data, size);
}

/* Like trace-cmd: one CPUSTAT option per CPU, "CPU: N\n" + the stats file, NUL included. */
static void put_options(struct obuf *b, const struct datwrite_meta *m, int ncpus)
{
	struct utsname u;

	ob_put(b, "options  ", 10);
	for (int i = 0; m->cpustats && i < ncpus; i++) {
		const char *s = m->cpustats[i] ? m->cpustats[i] : "";
		size_t n = strlen(s) + 32;
		char *t = xmalloc(n);
		int len = snprintf(t, n, "CPU: %d\n%s", i, s);

		put_option(b, OPT_CPUSTAT, t, (uint32_t)len + 1);
		free(t);
	}
	if (m->uname && uname(&u) == 0) {
		char t[4 * sizeof(u.sysname) + 4];
		int len = snprintf(t, sizeof(t), "%s %s %s %s", u.sysname, u.nodename, u.release,
				   u.machine);

		put_option(b, OPT_UNAME, t, (uint32_t)len + 1);
	}
	if (m->trace_clock)
		put_option(b, OPT_TRACECLOCK, NULL, 0);
	ob_u16(b, OPT_DONE);
}

static void build_header(struct obuf *b, const struct datwrite *w, const struct datwrite_meta *m,
			 uint64_t *offsets)
{
	const char *cmd = m->cmdlines ? m->cmdlines : "";
	uint64_t off;
	size_t fly;

	put_initial(b, w->page_size);
	put_headers(b, m);
	put_formats(b, m);
	ob_u32(b, 0); /* kallsyms */
	ob_u32(b, 0); /* printk formats */
	ob_u64(b, strlen(cmd));
	ob_put(b, cmd, strlen(cmd));
	ob_u32(b, (uint32_t)w->ncpus);
	put_options(b, m, w->ncpus);
	ob_put(b, "flyrecord", 10);
	fly = b->len;
	for (int i = 0; i < w->ncpus; i++) {
		ob_u64(b, 0);
		ob_u64(b, 0);
	}
	if (m->trace_clock) {
		/*
		 * trace-cmd writes only the clock in use, "[local]" (save_clock()),
		 * not the whole trace_clock file: write the same, so readers never
		 * see a form trace-cmd itself does not produce.
		 */
		const char *sel = strchr(m->trace_clock, '[');
		const char *end = sel ? strchr(sel, ']') : NULL;
		size_t n = end ? (size_t)(end - sel) + 1 : strcspn(m->trace_clock, "\n");

		ob_u64(b, n);
		ob_put(b, end ? sel : m->trace_clock, n);
	}
	/* The CPU data starts page aligned; fill in the offsets now that it is known. */
	off = (b->len + w->page_size - 1) & ~(uint64_t)(w->page_size - 1);
	for (int i = 0; i < w->ncpus; i++) {
		uint64_t size = w->pages[i] * w->page_size;

		offsets[i] = off;
		memcpy(b->p + fly + 16 * (size_t)i, &off, 8);
		memcpy(b->p + fly + 16 * (size_t)i + 8, &size, 8);
		off += size;
	}
	while (b->len < offsets[0])
		ob_put(b, "", 1);
}

/* ------------------------------------------------------------------------ */
/* Data */

static int copy_cpu(struct datwrite *w, int cpu, uint64_t dst_off)
{
	uint64_t left = w->pages[cpu] * w->page_size;
	off_t in = 0, out = (off_t)dst_off;

	while (left) {
		ssize_t n = copy_file_range(w->tmp[cpu], &in, w->out, &out, left, 0);

		if (n <= 0)
			break;
		left -= (uint64_t)n;
	}
	/* No copy_file_range across these files: read and write. */
	while (left) {
		ssize_t n = pread(w->tmp[cpu], w->pagebuf, w->page_size, in);

		if (n <= 0 || pwrite(w->out, w->pagebuf, (size_t)n, out) != n)
			return -1;
		in += n;
		out += n;
		left -= (uint64_t)n;
	}
	return 0;
}

int datwrite_finish(struct datwrite *w, const struct datwrite_meta *m, char *errbuf, size_t errlen)
{
	uint64_t *offsets = xcalloc((size_t)w->ncpus, sizeof(*offsets));
	struct obuf b = {0};
	int ret = -1;

	build_header(&b, w, m, offsets);
	if (write_all(w->out, b.p, b.len) < 0)
		goto out;
	for (int i = 0; i < w->ncpus; i++)
		if (copy_cpu(w, i, offsets[i]) < 0)
			goto out;
	if ((fsync(w->out) < 0 && errno != EINVAL) || publish_output(w) < 0)
		goto out;
	w->done = true;
	ret = 0;
out:
	if (ret < 0)
		errbuf_set(errbuf, errlen, "cannot write '%s': %s", w->path, strerror(errno));
	free(b.p);
	free(offsets);
	return ret;
}

void datwrite_free(struct datwrite *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->ncpus; i++)
		if (w->tmp[i] >= 0)
			close(w->tmp[i]);
	if (w->out >= 0)
		close(w->out);
	if (w->outtmp && !w->done)
		unlink(w->outtmp);
	free(w->outtmp);
	free(w->tmp);
	free(w->pages);
	free(w->pagebuf);
	free(w->path);
	free(w);
}

int datwrite_slurp_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *p = xmalloc(cap + 1);

	/* tracefs files report size 0: read to EOF. */
	for (;;) {
		ssize_t r = read(fd, p + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(p);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			p = xrealloc(p, cap + 1);
		}
	}
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

int datwrite_slurp(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = datwrite_slurp_fd(fd, buf, len);
	close(fd);
	return ret;
}

int datwrite_read_headers(char **page, size_t *page_len, char **event, size_t *event_len)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char p1[128], p2[128];

		snprintf(p1, sizeof(p1), "%s/events/header_page", dirs[i]);
		snprintf(p2, sizeof(p2), "%s/events/header_event", dirs[i]);
		if (datwrite_slurp(p1, page, page_len) == 0) {
			if (datwrite_slurp(p2, event, event_len) == 0)
				return 0;
			free(*page);
		}
	}
	return -1;
}

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
 * and are copied (copy_file_range) after the header at the end, a chunk at a
 * time, each chunk's space freed in the temporary file (FALLOC_FL_PUNCH_HOLE)
 * once copied: finishing needs a chunk of free space, not a second copy of
 * the recording. Where holes cannot be punched, the free space is checked
 * before the copy starts and the error says how much is missing.
 *
 * The output is opened once at the start (include/outfile.h): its name and
 * directory are checked before the workload runs, a device or FIFO is
 * written through (in order: the header, then each CPU's pages), a regular
 * file is written unnamed and renamed into place when complete.
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
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include "alloc.h"
#include "err.h"
#include "outfile.h"
#include "output.h"
#include "procmap.h"

enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
};

/* Copied, then punched out of the temporary file: finishing needs this much room beyond the data.
 */
#define COPY_CHUNK (1u << 20)
/*
 * Pages of one CPU that arrive one after another (the collector hands out
 * a CPU's pages a pipe-full at a time) go to its temporary file in one
 * write of up to this many: recording 1.4 M events (10,662 pages) took
 * 10,662 write()s, now 728 (strace -c), and record's CPU time fell by a
 * fifth. They wait only until the next page of another CPU, the caller's
 * dat_writer_flush() (record: after each read of the buffers, so a small
 * buffer is not left unread while a long run is written), or the end.
 */
#define RUN_PAGES 16

struct dat_writer {
	char *path;
	struct outfile *of; /* the output, opened (and checked) by dat_writer_new() */
	int out;	    /* its fd */
	uint64_t written;   /* bytes in the output */
	int ncpus;
	size_t page_size;
	int *tmp;	 /* per-CPU temporary files */
	uint64_t *pages; /* per-CPU page counts */
	unsigned char *pagebuf;
	unsigned char *run; /* up to RUN_PAGES pages of run_cpu, not written yet */
	size_t run_len;
	int run_cpu;
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
 * An unlinked file in dirfd: the output's directory (its file system, so
 * copy_file_range can be cheap), or for a stream output the temporary
 * directory. Close-on-exec: a traced command forked later must not keep it
 * (and its disk space) alive after the recorder is gone.
 */
static int tmpfile_in(int dirfd)
{
	static unsigned seq;
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	for (int i = 0;
	     fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EEXIST) && i < 100;
	     i++) {
		char name[64];

		snprintf(name, sizeof(name), ".kvm-exitstat-cpu-%d-%u", (int)getpid(), seq++);
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			unlinkat(dirfd, name, 0);
	}
	return fd;
}

/* Where a stream output's per-CPU pages wait: $TMPDIR, /var/tmp or /tmp. */
static int temp_dir(void)
{
	const char *env = getenv("TMPDIR");
	const char *dirs[] = {env && *env ? env : "/var/tmp", "/var/tmp", "/tmp"};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0)
			return fd;
	}
	return -1;
}

struct dat_writer *dat_writer_new(const char *path, int ncpus, size_t page_size, char *errbuf,
			      size_t errlen)
{
	struct dat_writer *w;

	if (ncpus <= 0 || page_size < 64 || (page_size & (page_size - 1))) {
		err_buf(errbuf, errlen, "bad trace.dat geometry (%d cpus, page %zu)", ncpus,
			   page_size);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	w->ncpus = ncpus;
	w->page_size = page_size;
	w->tmp = xcalloc((size_t)ncpus, sizeof(*w->tmp));
	w->pages = xcalloc((size_t)ncpus, sizeof(*w->pages));
	w->pagebuf = xcalloc(1, page_size > COPY_CHUNK ? page_size : COPY_CHUNK);
	w->run = xmalloc(RUN_PAGES * page_size);
	w->out = -1;
	for (int i = 0; i < ncpus; i++)
		w->tmp[i] = -1;
	/* Open the output now: a bad name or directory fails before tracing starts. */
	w->of = outfile_open(path, OUTFILE_REPLACE, errbuf, errlen);
	if (!w->of)
		goto fail;
	w->out = outfile_fd(w->of);
	int dirfd = outfile_is_stream(w->of) ? temp_dir() : outfile_dirfd(w->of);
	for (int i = 0; i < ncpus && dirfd >= 0; i++) {
		w->tmp[i] = tmpfile_in(dirfd);
		if (w->tmp[i] < 0)
			break;
	}
	if (ncpus && (dirfd < 0 || w->tmp[ncpus - 1] < 0)) {
		err_buf_errno(errbuf, errlen, "cannot create a temporary file for '%s'", path);
		if (outfile_is_stream(w->of) && dirfd >= 0)
			close(dirfd);
		goto fail;
	}
	if (outfile_is_stream(w->of))
		close(dirfd);
	return w;
fail:
	dat_writer_free(w);
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

/* The pages waiting in the run, to their CPU's temporary file. */
static int write_run(struct dat_writer *w)
{
	if (!w->run_len)
		return 0;
	if (write_all(w->tmp[w->run_cpu], w->run, w->run_len) < 0)
		return -1;
	w->run_len = 0;
	return 0;
}

int dat_writer_flush(struct dat_writer *w)
{
	return write_run(w);
}

int dat_writer_page(struct dat_writer *w, int cpu, const void *page, size_t len)
{
	if (cpu < 0 || cpu >= w->ncpus || len > w->page_size) {
		errno = EINVAL;
		return -1;
	}
	if ((w->run_len && cpu != w->run_cpu) || w->run_len == RUN_PAGES * w->page_size)
		if (write_run(w) < 0)
			return -1;
	w->run_cpu = cpu;
	memcpy(w->run + w->run_len, page, len);
	memset(w->run + w->run_len + len, 0, w->page_size - len);
	w->run_len += w->page_size;
	w->pages[cpu]++;
	return 0;
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

static void put_headers(struct obuf *b, const struct dat_writer_meta *m)
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
static void put_formats(struct obuf *b, const struct dat_writer_meta *m)
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
static void put_options(struct obuf *b, const struct dat_writer_meta *m, int ncpus)
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
	/*
	 * The TRACECLOCK option carries the trace_clock file, NUL included, as
	 * trace-cmd record writes it (add_options()); it also says the clock
	 * follows the flyrecord offsets. Written empty, libtracecmd 3.1.6 runs
	 * strtok_r over its malloc(0) buffer (valgrind: invalid read) and, when
	 * the heap there happens to look like "[name]", drops the usecs flag:
	 * trace-cmd report then printed raw timestamps now and then.
	 */
	if (m->trace_clock)
		put_option(b, OPT_TRACECLOCK, m->trace_clock, (uint32_t)strlen(m->trace_clock) + 1);
	if (m->procmap)
		put_option(b, PROCMAP_OPTION_ID, m->procmap, (uint32_t)m->procmap_len + 1);
	ob_u16(b, OPT_DONE);
}

static void build_header(struct obuf *b, const struct dat_writer *w, const struct dat_writer_meta *m,
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

/* One chunk of a CPU's pages, from its temporary file to the output at *out. */
static ssize_t copy_chunk(struct dat_writer *w, int cpu, off_t *in, off_t *out, size_t len)
{
	ssize_t n;

	if (!outfile_is_stream(w->of)) {
		n = copy_file_range(w->tmp[cpu], in, w->out, out, len, 0);
		if (n > 0)
			return n;
	}
	/* a stream, or no copy_file_range across these files: read and write */
	n = pread(w->tmp[cpu], w->pagebuf, len, *in);
	if (n <= 0)
		return n < 0 ? -1 : (errno = EIO, -1);
	if (outfile_is_stream(w->of) ? write_all(w->out, w->pagebuf, (size_t)n)
				     : pwrite(w->out, w->pagebuf, (size_t)n, *out) != n)
		return -1;
	*in += n;
	*out += n;
	return n;
}

/* Copies a CPU's pages a chunk at a time, freeing each copied chunk in the temporary file. */
static int copy_cpu(struct dat_writer *w, int cpu, uint64_t dst_off, bool punch)
{
	uint64_t left = w->pages[cpu] * w->page_size;
	off_t in = 0, out = (off_t)dst_off;

	while (left) {
		off_t from = in;
		ssize_t n = copy_chunk(w, cpu, &in, &out, left < COPY_CHUNK ? left : COPY_CHUNK);

		if (n <= 0)
			return -1;
		if (punch)
			fallocate(w->tmp[cpu], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, n);
		left -= (uint64_t)n;
		w->written += (uint64_t)n;
	}
	return 0;
}

/*
 * Can the temporary files give their space back as they are copied? A punch
 * past their end frees nothing, and says whether the file system can. Where
 * it cannot, the output needs room for a second copy: checked now, so that
 * the error says so before the copy fills the disk.
 */
static int room_to_finish(struct dat_writer *w, uint64_t header, bool *punch, char *errbuf,
			  size_t errlen)
{
	uint64_t need = header;
	struct statvfs vfs;
	struct stat st;

	*punch = w->ncpus > 0 && fstat(w->tmp[0], &st) == 0 &&
		 fallocate(w->tmp[0], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, st.st_size,
			   (off_t)w->page_size) == 0;
	if (*punch || outfile_is_stream(w->of) || fstatvfs(w->out, &vfs) < 0)
		return 0;
	for (int i = 0; i < w->ncpus; i++)
		need += w->pages[i] * w->page_size;
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize >= need)
		return 0;
	return err_buf(errbuf, errlen,
			  "cannot write '%s': it needs %llu MB free to finish (this file system "
			  "cannot free the temporary copy as it goes), %llu MB are",
			  w->path, (unsigned long long)(need >> 20),
			  (unsigned long long)((uint64_t)vfs.f_bavail * vfs.f_frsize >> 20));
}

int dat_writer_finish(struct dat_writer *w, const struct dat_writer_meta *m, char *errbuf, size_t errlen)
{
	uint64_t *offsets = xcalloc((size_t)w->ncpus, sizeof(*offsets));
	struct obuf b = {0};
	bool punch;
	int ret = -1;

	if (write_run(w) < 0) {
		err_buf_errno(errbuf, errlen, "cannot write '%s'", w->path);
		free(offsets);
		return -1;
	}
	build_header(&b, w, m, offsets);
	if (room_to_finish(w, b.len, &punch, errbuf, errlen) < 0) {
		free(b.p);
		free(offsets);
		return -1;
	}
	if (write_all(w->out, b.p, b.len) < 0)
		goto out;
	w->written = b.len;
	/* in order: a stream gets the data where the header says it is */
	for (int i = 0; i < w->ncpus; i++)
		if (copy_cpu(w, i, offsets[i], punch) < 0)
			goto out;
	if (outfile_commit(w->of, errbuf, errlen) < 0) {
		free(b.p);
		free(offsets);
		return -1;
	}
	w->done = true;
	ret = 0;
out:
	if (ret < 0)
		err_buf_errno(errbuf, errlen, "cannot write '%s'", w->path);
	free(b.p);
	free(offsets);
	return ret;
}

uint64_t dat_writer_bytes(const struct dat_writer *w)
{
	return w->written;
}

void dat_writer_free(struct dat_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->ncpus; i++)
		if (w->tmp[i] >= 0)
			close(w->tmp[i]);
	outfile_free(w->of);
	free(w->tmp);
	free(w->pages);
	free(w->pagebuf);
	free(w->run);
	free(w->path);
	free(w);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat input through libtracecmd: it knows v6 and v7, compression and
 * the event formats inside. tracecmd_iterate_events_multi() merges the
 * per-CPU streams (and the buffers of `trace-cmd record -B` instances) by
 * timestamp, which pairing needs: a vCPU thread migrates.
 *
 * Uncompressed files (v6, what `record` writes, and v7 without compression)
 * take a fast path for the records: tracedat_lanes() hands out a lane of
 * pages per CPU (tracedat-fast.c: mapped windows) for the feed (feed.h) to
 * walk and merge into the same stream; libtracecmd still opens and checks
 * them and provides the formats. v7 files with zstd-compressed CPU data
 * give lanes that decompress chunk by chunk (tracedat-zstd.c); zlib ones,
 * and anything else the fast path does not read (instances, options that
 * move timestamps, another byte order), stay with libtracecmd
 * (tracedat_iterate()).
 * KES_NO_FASTPATH=1 in the environment turns the fast path off (tests
 * compare the two).
 *
 * Everything reads one fd, the caller's: our header checks (datread.c), the
 * libtracecmd probe child (tracedat-probe.c), libtracecmd itself and the fast
 * path see the same bytes, so what was checked is what is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <trace-cmd/trace-cmd.h>
#include "alloc.h"
#include "err.h"
#include "knobs.h"
#include "tracedat-local.h"
#include "tracedat.h"

#define OPEN_FLAGS (TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS)

struct tracedat {
	int fd; /* our dup of the caller's fd */
	struct tracecmd_input *h;
	struct tracecmd_input **all; /* h, then each instance buffer */
	int nall;
	struct datfile_layout l;    /* l.page_size 0: no header we could read */
	bool have_layout;	    /* datfile_layout() read the whole header */
	struct tracedat_fast *fast; /* NULL: the file needs libtracecmd */
	struct tracedat_zstd *zstd; /* or the fast path of zstd chunks */
	bool use_fast;
	bool records_probed; /* the probe child read every record with libtracecmd */
	unsigned char *sample; /* tracedat_sample_page()'s page */
};

static bool fastpath_disabled(void)
{
	return knobs_get()->no_fastpath;
}

/* libtracecmd owns the fd it opens, and closes it on some failures only: give it a dup. */
static struct tracecmd_input *open_lib(int fd)
{
	int dupfd = lseek(fd, 0, SEEK_SET) < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	struct tracecmd_input *h;

	if (dupfd < 0)
		return NULL;
	h = tracecmd_open_fd(dupfd, OPEN_FLAGS);
	/* single-threaded: a still valid dupfd is still ours */
	if (!h && fcntl(dupfd, F_GETFD) >= 0)
		close(dupfd);
	return h;
}

static void gather_buffers(struct tracedat *td)
{
	int nbuf = tracecmd_buffer_instances(td->h);

	td->all = xcalloc((size_t)(nbuf > 0 ? nbuf : 0) + 1, sizeof(*td->all));
	td->all[td->nall++] = td->h;
	for (int i = 0; i < nbuf; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(td->h, i);
		if (b)
			td->all[td->nall++] = b;
	}
}

/* Our own header checks: they name what is wrong, and catch what crashes libtracecmd. */
static int check_header(struct tracedat *td, char *errbuf, size_t errlen)
{
	int ret = datfile_layout(td->fd, &td->l, errbuf, errlen);

	if (ret == DATFILE_BAD)
		return -1;
	td->have_layout = ret == 0;
	if (td->have_layout && td->l.fast) {
		td->fast = tracedat_fast_new(td->fd, &td->l, errbuf, errlen);
		if (!td->fast)
			return -1;
	}
	/* before libtracecmd sees them: it allocates whatever the chunk headers say */
	if (td->have_layout && td->l.zstd) {
		td->zstd = tracedat_zstd_new(td->fd, &td->l, td->l.long_size, errbuf, errlen);
		if (!td->zstd)
			return -1;
	}
	return 0;
}

/* What the probe reads: a zstd file's pages decompressed (0: the file's size). */
static uint64_t data_bytes(const struct tracedat *td)
{
	return td->zstd ? tracedat_zstd_data_bytes(td->zstd) : 0;
}

struct tracedat *tracedat_open_fd(int fd, char *errbuf, size_t errlen)
{
	struct tracedat *td = xcalloc(1, sizeof(*td));
	int guarded;

	td->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (td->fd < 0) {
		err_buf_errno(errbuf, errlen, "cannot dup the input");
		free(td);
		return NULL;
	}
	if (check_header(td, errbuf, errlen) < 0)
		goto fail;
	/* libtracecmd prints its own warnings on stderr; we print one line of ours. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/*
	 * A corrupt header or page can crash libtracecmd: try it in a child
	 * first, reading the records too when it is the one to read them.
	 */
	td->records_probed = !(td->fast || td->zstd) || fastpath_disabled();
	/* or the open that counts in a child that carries on (tracedat_probe_carry_on()) */
	guarded = td->records_probed ? 0 : tracedat_guard_begin(td->fd, data_bytes(td), errbuf, errlen);
	if (guarded < 0 ||
	    (!guarded && tracedat_probe(td->fd, OPEN_FLAGS, td->records_probed, data_bytes(td), errbuf, errlen) < 0))
		goto fail;
	td->h = open_lib(td->fd);
	if (!td->h) {
		if (guarded)
			tracedat_guard_fail();
		err_buf(errbuf, errlen, "not a readable trace.dat (corrupt or truncated)");
		goto fail;
	}
	/* libtracecmd 3.1.6 leaves it 0: the decoder bounds fields by it */
	if (td->l.page_size && tep_get_page_size(tracecmd_get_tep(td->h)) <= 0)
		tep_set_page_size(tracecmd_get_tep(td->h), (int)td->l.page_size);
	gather_buffers(td); /* it opens each instance's buffer: guarded too */
	if (guarded)
		tracedat_guard_end();
	/* Buffer instances need merging with the top buffer: libtracecmd does it. */
	if (td->nall > 1) {
		tracedat_fast_close(td->fast);
		td->fast = NULL;
		tracedat_zstd_close(td->zstd);
		td->zstd = NULL;
	}
	td->use_fast = (td->fast || td->zstd) && !fastpath_disabled();
	return td;
fail:
	tracedat_close(td);
	return NULL;
}

struct tracedat *tracedat_open(const char *path, char *errbuf, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct tracedat *td;
	char e[256];

	if (fd < 0) {
		err_buf_errno(errbuf, errlen, "cannot open '%s'", path);
		return NULL;
	}
	td = tracedat_open_fd(fd, e, sizeof(e));
	if (!td)
		err_buf(errbuf, errlen, "'%s': %s", path, e);
	close(fd);
	return td;
}

struct tep_handle *tracedat_tep(struct tracedat *td)
{
	return tracecmd_get_tep(td->h);
}

void tracedat_get_info(const struct tracedat *td, struct tracedat_info *info)
{
	*info = (struct tracedat_info){.page_size = td->l.page_size};
	if (!td->have_layout)
		return;
	info->stats = td->l.stats;
	info->nstats = td->l.nstats;
	info->instances = td->l.instances || td->nall > 1;
	info->unknown_options = td->l.unknown_options;
	info->first_unknown = td->l.first_unknown;
	info->procmap = td->l.procmap;
	info->procmap_len = td->l.procmap_len;
	info->clock = td->l.clock[0] ? td->l.clock : NULL;
	info->clock_ticks = !datfile_clock_in_ns(&td->l);
	info->host = td->l.host[0] ? td->l.host : NULL;
}

struct iter {
	tracedat_record_fn fn;
	void *arg;
	int stop;
	uint64_t page_size;	       /* 0: unknown */
	unsigned long long bad_offset; /* a record that runs past its page */
	bool bad;
};

/*
 * libtracecmd (kbuffer) takes a record's length from its header and never
 * checks it against the page: on a corrupt page it hands out records that
 * run past the page, into whatever memory follows (the probe child survives
 * that, it does not read them). A record must fit in its page.
 */
static bool record_fits(const struct tep_record *r, uint64_t page_size)
{
	uint64_t at = (uint64_t)r->offset & (page_size - 1);

	return r->size >= 0 && r->record_size >= r->size &&
	       at + (uint64_t)r->record_size <= page_size;
}

static int one(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct iter *it = data;

	if (it->page_size && !record_fits(r, it->page_size)) {
		it->bad = true;
		it->bad_offset = r->offset;
		return it->stop = 1;
	}
	it->stop = it->fn(it->arg, r->data, r->size, r->ts, cpu, r->missed_events);
	return it->stop;
}

bool tracedat_set_fast(struct tracedat *td, bool on)
{
	td->use_fast = on && (td->fast || td->zstd);
	return td->use_fast;
}

bool tracedat_is_fast(const struct tracedat *td)
{
	return td->use_fast;
}

int tracedat_lanes(struct tracedat *td, struct ring_lane ***lanes, size_t *n, char *errbuf,
		   size_t errlen)
{
	if (!td->use_fast)
		return 0;
	if (td->zstd)
		return tracedat_zstd_lanes(td->zstd, lanes, n, errbuf, errlen) < 0 ? -1 : 1;
	*n = tracedat_fast_lanes(td->fast, lanes);
	return 1;
}

int tracedat_sample_page(struct tracedat *td, size_t lane, unsigned k, unsigned n,
			 const void **page, size_t *len)
{
	if (!td->use_fast || !td->fast)
		return 0; /* zstd lanes would decompress up to the page: not a sample */
	if (!td->sample)
		td->sample = xmalloc(td->l.page_size);
	*page = td->sample;
	return tracedat_fast_sample(td->fast, lane, k, n, td->sample, len);
}

int tracedat_iterate(struct tracedat *td, tracedat_record_fn fn, void *arg, char *errbuf,
		     size_t errlen)
{
	struct iter it = {fn, arg, 0, td->l.page_size, 0, false};

	/* The fast path was on at the open: let the child read the records first. */
	if (!td->records_probed) {
		if (tracedat_probe(td->fd, OPEN_FLAGS, true, data_bytes(td), errbuf, errlen) < 0)
			return -1;
		td->records_probed = true;
	}
	if (tracecmd_iterate_events_multi(td->all, td->nall, one, &it) < 0 && !it.stop)
		return err_buf(errbuf, errlen, "cannot read the trace data (corrupt file?)");
	if (it.bad)
		return err_buf(errbuf, errlen,
				  "corrupt ring-buffer page: a record at offset %llu runs past its page",
				  it.bad_offset);
	return 0;
}

void tracedat_close(struct tracedat *td)
{
	if (!td)
		return;
	tracedat_fast_close(td->fast);
	tracedat_zstd_close(td->zstd);
	for (int i = 1; i < td->nall; i++)
		tracecmd_close(td->all[i]);
	if (td->h)
		tracecmd_close(td->h);
	free(td->all);
	free(td->sample);
	datfile_layout_free(&td->l);
	close(td->fd);
	free(td);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat input through libtracecmd: it knows v6 and v7, compression and
 * the event formats inside. tracecmd_iterate_events_multi() merges the
 * per-CPU streams (and the buffers of `trace-cmd record -B` instances) by
 * timestamp, which pairing needs: a vCPU thread migrates.
 *
 * Uncompressed files (v6, what `record` writes, and v7 without compression)
 * take a fast path for the records (tracedat-fast.c) that gives the same
 * stream; libtracecmd still opens and checks them and provides the formats.
 * KES_NO_FASTPATH=1 in the environment turns the fast path off (tests
 * compare the two).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd/trace-cmd.h>
#include "common.h"
#include "source.h"
#include "tracedat-local.h"

struct tracedat {
	struct tracecmd_input *h;
	struct tracecmd_input **all; /* h, then each instance buffer */
	int nall;
	struct tracedat_fast *fast; /* NULL: the file needs libtracecmd */
	bool use_fast;
};

static bool fastpath_disabled(void)
{
	const char *e = getenv("KES_NO_FASTPATH");

	return e && *e && strcmp(e, "0");
}

struct tracedat *tracedat_open(const char *path, char *errbuf, size_t errlen)
{
	struct tracedat *td;
	struct tracecmd_input *h;
	struct tracedat_fast *fast;
	const int flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
	char e[200];

	/* Our own header reader first: it names what is wrong with a truncated file. */
	if (tracedat_fast_open_checked(path, &fast, e, sizeof(e)) < 0) {
		snprintf(errbuf, errlen, "'%s': %s", path, e);
		return NULL;
	}
	/* libtracecmd prints its own warnings on stderr; we print one line of ours. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* A corrupt header can crash libtracecmd: try it in a child first. */
	if (tracedat_probe(path, flags, errbuf, errlen) < 0) {
		tracedat_fast_close(fast);
		return NULL;
	}
	h = tracecmd_open(path, flags);
	if (!h) {
		snprintf(errbuf, errlen, "'%s': not a readable trace.dat (corrupt or truncated)",
			 path);
		tracedat_fast_close(fast);
		return NULL;
	}
	td = xcalloc(1, sizeof(*td));
	td->h = h;
	int nbuf = tracecmd_buffer_instances(h);
	td->all = xcalloc((size_t)(nbuf > 0 ? nbuf : 0) + 1, sizeof(*td->all));
	td->all[td->nall++] = h;
	for (int i = 0; i < nbuf; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);
		if (b)
			td->all[td->nall++] = b;
	}
	/* Buffer instances need merging with the top buffer: libtracecmd does it. */
	if (td->nall == 1)
		td->fast = fast;
	else
		tracedat_fast_close(fast);
	td->use_fast = td->fast && !fastpath_disabled();
	return td;
}

struct tep_handle *tracedat_tep(struct tracedat *td)
{
	return tracecmd_get_tep(td->h);
}

struct iter {
	source_record_fn fn;
	void *arg;
	int stop;
};

static int one(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct iter *it = data;

	it->stop = it->fn(it->arg, r->data, r->size, r->ts, cpu, r->missed_events);
	return it->stop;
}

bool tracedat_set_fast(struct tracedat *td, bool on)
{
	td->use_fast = on && td->fast;
	return td->use_fast;
}

bool tracedat_is_fast(const struct tracedat *td)
{
	return td->use_fast;
}

int tracedat_iterate(struct tracedat *td, source_record_fn fn, void *arg, char *errbuf,
		     size_t errlen)
{
	struct iter it = {fn, arg, 0};

	if (td->use_fast)
		return tracedat_fast_iterate(td->fast, fn, arg, errbuf, errlen);

	if (tracecmd_iterate_events_multi(td->all, td->nall, one, &it) < 0 && !it.stop) {
		snprintf(errbuf, errlen, "cannot read the trace data (corrupt file?)");
		return -1;
	}
	return 0;
}

void tracedat_close(struct tracedat *td)
{
	if (!td)
		return;
	tracedat_fast_close(td->fast);
	for (int i = 1; i < td->nall; i++)
		tracecmd_close(td->all[i]);
	tracecmd_close(td->h);
	free(td->all);
	free(td);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat input through libtracecmd: it knows v6 and v7, compression and
 * the event formats inside. tracecmd_iterate_events_multi() merges the
 * per-CPU streams (and the buffers of `trace-cmd record -B` instances) by
 * timestamp, which pairing needs: a vCPU thread migrates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd/trace-cmd.h>
#include "common.h"
#include "source.h"

struct tracedat {
	struct tracecmd_input *h;
	struct tracecmd_input **all; /* h, then each instance buffer */
	int nall;
};

struct tracedat *tracedat_open(const char *path, char *errbuf, size_t errlen)
{
	struct tracedat *td;
	struct tracecmd_input *h;

	/* libtracecmd prints its own warnings on stderr; we print one line of ours. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h) {
		snprintf(errbuf, errlen, "'%s': not a readable trace.dat (corrupt or truncated)", path);
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

int tracedat_iterate(struct tracedat *td, source_record_fn fn, void *arg, char *errbuf,
		     size_t errlen)
{
	struct iter it = { fn, arg, 0 };

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
	for (int i = 1; i < td->nall; i++)
		tracecmd_close(td->all[i]);
	tracecmd_close(td->h);
	free(td->all);
	free(td);
}

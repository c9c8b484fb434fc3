// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace.dat's header needs of a collector's instance: the formats of
 * its events, each CPU's stats, saved_cmdlines, the instance's clock and the
 * ring buffer's page and event headers. record writes them at its end and
 * the flight recorder at each save, from the same place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "live-local.h"
#include "live.h"

int live_meta_gather(struct live *c, struct live_meta *s, char *errbuf, size_t errlen)
{
	size_t n, hp, he;
	const char *const *ev = live_events(c, &n);

	*s = (struct live_meta){0};
	s->ncpus = live_ncpus(c);
	s->stats = xcalloc((size_t)s->ncpus, sizeof(*s->stats));
	for (int i = 0; i < s->ncpus; i++)
		s->stats[i] = live_cpu_stats(c, i);
	s->forms = xcalloc(n + 1, sizeof(*s->forms));
	s->nforms = n;
	/* Through the collector's directory fd: tracefs may be unmounted by now. */
	for (size_t i = 0; i < n; i++) {
		char *sys = xstrdup(ev[i]), *name = strchr(sys, ':'), rel[256];

		*name++ = 0;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
		s->forms[i].system = sys;
		s->forms[i].text = live_file_read(c, rel, &s->forms[i].len);
		if (!s->forms[i].text)
			return err_buf_errno(errbuf, errlen, "cannot read the format of %s", ev[i]);
	}
	s->cmdlines = live_file_read(c, "saved_cmdlines", NULL);
	/* The instance's clock stamped our events, whatever the top level uses now. */
	s->clock = live_instance_file_read(c, "trace_clock", NULL);
	s->hpage = live_file_read(c, "events/header_page", &hp);
	s->hevent = live_file_read(c, "events/header_event", &he);
	if (!s->hpage || !s->hevent)
		return err_buf_errno(errbuf, errlen, "cannot read tracefs events/header_page");
	s->m = (struct dat_writer_meta){.header_page = s->hpage,
					.header_page_len = hp,
					.header_event = s->hevent,
					.header_event_len = he,
					.formats = s->forms,
					.nformats = n,
					.cmdlines = s->cmdlines,
					.cpustats = s->stats,
					.trace_clock = s->clock,
					.uname = true};
	return 0;
}

void live_meta_free(struct live_meta *s)
{
	for (size_t i = 0; s->forms && i < s->nforms; i++) {
		free((char *)s->forms[i].system);
		free((char *)s->forms[i].text);
	}
	for (int i = 0; s->stats && i < s->ncpus; i++)
		free(s->stats[i]);
	free(s->forms);
	free(s->stats);
	free(s->cmdlines);
	free(s->clock);
	free(s->hpage);
	free(s->hevent);
	*s = (struct live_meta){0};
}

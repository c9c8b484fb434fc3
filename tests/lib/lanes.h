/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/lib: the records of a trace.dat's lanes (tracedat_lanes()) one by
 * one, for tests that compare the fast path's pages with libtracecmd record
 * by record, and for the fuzzers. The tool itself reads lanes only through
 * the feed (feed.h), which decodes and merges them.
 */
#ifndef KES_TESTS_LANES_H
#define KES_TESTS_LANES_H

#include <stddef.h>
#include "ring.h"
#include "tracedat.h"

/*
 * Every record of the lanes, in libtracecmd's order, found as libtracecmd
 * finds it (tracecmd_iterate_events_multi(): a linear scan for the earliest
 * head, ties to the first lane, lanes by increasing CPU), not as the feed's
 * heap does: an independent order to compare with. missed: kbuffer's, on
 * the record that starts a page. 0, or -1 with errbuf set ("corrupt
 * ring-buffer page at file offset N (cpu C)", or the lane's own reason).
 */
int lanes_iterate(struct ring_lane **lanes, size_t n, tracedat_record_fn fn, void *arg,
		  char *errbuf, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/source: the trace.dat fast path behind tracedat_iterate(). */
#ifndef KES_TRACEDAT_LOCAL_H
#define KES_TRACEDAT_LOCAL_H

#include <stddef.h>
#include "source.h"

struct tracedat_fast;

/*
 * NULL when the file is not one the fast path reads (compressed, v7,
 * another byte order, options that move timestamps, malformed header):
 * read it with libtracecmd then.
 */
struct tracedat_fast *tracedat_fast_open(const char *path);
/* As tracedat_iterate(); -1 with errbuf set on a corrupt page. */
int tracedat_fast_iterate(struct tracedat_fast *f, source_record_fn fn, void *arg, char *errbuf,
			  size_t errlen);
void tracedat_fast_close(struct tracedat_fast *f);

#endif

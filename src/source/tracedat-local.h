/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/source: the trace.dat fast path behind tracedat_iterate(). */
#ifndef KES_TRACEDAT_LOCAL_H
#define KES_TRACEDAT_LOCAL_H

#include <stddef.h>
#include "source.h"

struct tracedat_fast;

/*
 * Opens path for the fast path. Returns 0 with *out set, or with *out NULL
 * when the file is not one the fast path reads (compressed, v7 with
 * instances, another byte order, options that move timestamps): read it with
 * libtracecmd then. Returns -1 with errbuf set when the file is broken in a
 * way libtracecmd would crash on: CPU data past the end of the file, a
 * corrupt first page (libtracecmd reads those at open and trusts them).
 */
int tracedat_fast_open_checked(const char *path, struct tracedat_fast **out, char *errbuf,
			       size_t errlen);
/* The same without the reason: NULL for both "not for the fast path" and "broken". */
struct tracedat_fast *tracedat_fast_open(const char *path);
/* As tracedat_iterate(); -1 with errbuf set on a corrupt page. */
int tracedat_fast_iterate(struct tracedat_fast *f, source_record_fn fn, void *arg, char *errbuf,
			  size_t errlen);
void tracedat_fast_close(struct tracedat_fast *f);

#endif

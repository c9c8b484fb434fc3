/* SPDX-License-Identifier: GPL-2.0 */
/* Allocation that cannot fail: a CLI tool has nothing better to do on ENOMEM. */
#ifndef KES_ALLOC_H
#define KES_ALLOC_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* These print one line and exit(2) instead of returning NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/*
 * Zeroed, on cache lines of its own (XLINE-aligned, the size rounded up):
 * for memory one thread writes at every event while another thread writes
 * what malloc may have put beside it. Freed with free().
 */
#define XLINE 128 /* two 64-byte lines (adjacent-line prefetch), one of ppc64's */
void *xcalloc_lines(size_t n, size_t sz);
/*
 * Not zeroed, on 2 MiB pages where the kernel gives them (transparent huge
 * pages): for big buffers filled by read(), where a fault per 4 KiB page
 * costs more than the copy (~20 us each on a PVM guest). Freed with free().
 */
#define XHUGE (2u << 20)
void *xmalloc_huge(size_t n, size_t sz);

#endif

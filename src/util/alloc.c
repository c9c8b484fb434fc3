// SPDX-License-Identifier: GPL-2.0
/* Allocation that cannot fail: a CLI tool has nothing better to do on ENOMEM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "alloc.h"

static void *check(void *p)
{
	if (!p) {
		fputs("kvm-exitstat: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t sz)
{
	return check(calloc(n ? n : 1, sz ? sz : 1));
}

void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1));
}

void *xcalloc_lines(size_t n, size_t sz)
{
	size_t len;
	void *p;

	if (sz && n > ((size_t)-1 - XLINE) / sz)
		check(NULL);
	len = (n * sz + XLINE - 1) / XLINE * XLINE;
	p = check(aligned_alloc(XLINE, len ? len : XLINE));
	memset(p, 0, len ? len : XLINE);
	return p;
}

void *xmalloc_huge(size_t n, size_t sz)
{
	size_t len;
	void *p = NULL;

	if (sz && n > ((size_t)-1 - XHUGE) / sz)
		check(NULL);
	len = (n * sz + XHUGE - 1) / XHUGE * XHUGE;
	if (!len)
		len = XHUGE; /* a block all the same: the caller frees it */
	if (posix_memalign(&p, XHUGE, len))
		check(NULL);
	madvise(p, len, MADV_HUGEPAGE); /* advice: refused, the block still serves */
	return p;
}

char *xstrdup(const char *s)
{
	return check(strdup(s));
}

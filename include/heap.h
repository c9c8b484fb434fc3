/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The k-way merges of per-CPU streams (trace.dat's fast reader, the feed of
 * live and file lanes) keep their streams' heads in a binary min-heap of
 * pointers. HEAP_DEFINE_SIFT_DOWN(name, type, before) defines
 *	static void name(type **h, size_t n, size_t i)
 * which moves h[i] down to its place among h[0..n), "before(a, b)" being the
 * order. A macro rather than a void ** function with a comparator pointer:
 * typed (no aliasing through void *), and the comparison, on the per-event
 * path, stays a direct call the compiler inlines.
 */
#ifndef KES_HEAP_H
#define KES_HEAP_H

#include <stddef.h>

#define HEAP_DEFINE_SIFT_DOWN(name, type, before)                                                  \
	static void name(type **h, size_t n, size_t i)                                             \
	{                                                                                          \
		for (;;) {                                                                         \
			size_t l = 2 * i + 1, m = i;                                               \
                                                                                                   \
			if (l < n && before(h[l], h[m]))                                           \
				m = l;                                                             \
			if (l + 1 < n && before(h[l + 1], h[m]))                                   \
				m = l + 1;                                                         \
			if (m == i)                                                                \
				return;                                                            \
			type *t = h[i];                                                            \
			h[i] = h[m];                                                               \
			h[m] = t;                                                                  \
			i = m;                                                                     \
		}                                                                                  \
	}

#endif

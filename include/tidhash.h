/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open-addressing tables of structs keyed by a thread id (pair/'s threads,
 * stats/nested.c's), tid 0 marking a free slot, the capacity a power of two
 * kept at least twice the number used. TIDHASH_DEFINE(name, type) defines
 *	static type *name##_slot(type *v, size_t cap, int32_t tid)
 * which returns tid's slot, or the free one where it goes, and
 *	static bool name##_grow(type **v, size_t *cap, size_t used)
 * which doubles the table (its entries moved to their new slots) when one
 * more would fill it past half, and says whether it did (the entries moved:
 * pointers into the old table are stale). A macro, as sorted.h: typed, and
 * inlined on per-event paths.
 */
#ifndef KES_TIDHASH_H
#define KES_TIDHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "alloc.h"

#define TIDHASH_DEFINE(name, type)                                                                 \
	static inline type *name##_slot(type *v, size_t cap, int32_t tid)                          \
	{                                                                                          \
		size_t i = ((uint32_t)tid * 2654435761u) & (cap - 1);                              \
                                                                                                   \
		while (v[i].tid && v[i].tid != tid)                                                \
			i = (i + 1) & (cap - 1);                                                   \
		return &v[i];                                                                      \
	}                                                                                          \
                                                                                                   \
	static bool name##_grow(type **v, size_t *cap, size_t used)                                \
	{                                                                                          \
		type *old = *v;                                                                    \
		size_t n = *cap;                                                                   \
                                                                                                   \
		if (2 * (used + 1) <= n)                                                           \
			return false;                                                              \
		*cap = 2 * n;                                                                      \
		*v = xcalloc(*cap, sizeof(**v));                                                   \
		for (size_t i = 0; i < n; i++)                                                     \
			if (old[i].tid)                                                            \
				*name##_slot(*v, *cap, old[i].tid) = old[i];                       \
		free(old);                                                                         \
		return true;                                                                       \
	}

#endif

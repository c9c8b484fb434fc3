/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrays of structs kept sorted by one integer field (threads by tid,
 * processes by pid). SORTED_DEFINE_FIND(name, type, field, key_type) defines
 *	static size_t name(const type *v, size_t n, key_type key, bool *found)
 * which returns where key is, or where it goes to keep v sorted (the first
 * element whose field is not below key), and sets *found when it is there.
 * A macro, as heap.h: typed, and the compare inlined on per-event paths.
 */
#ifndef KES_SORTED_H
#define KES_SORTED_H

#include <stdbool.h>
#include <stddef.h>

#define SORTED_DEFINE_FIND(name, type, field, key_type)                                            \
	static size_t name(const type *v, size_t n, key_type key, bool *found)                     \
	{                                                                                          \
		size_t lo = 0, hi = n;                                                             \
                                                                                                   \
		while (lo < hi) {                                                                  \
			size_t mid = lo + (hi - lo) / 2;                                           \
                                                                                                   \
			if (v[mid].field < key)                                                    \
				lo = mid + 1;                                                      \
			else                                                                       \
				hi = mid;                                                          \
		}                                                                                  \
		*found = lo < n && v[lo].field == key;                                             \
		return lo;                                                                         \
	}

#endif

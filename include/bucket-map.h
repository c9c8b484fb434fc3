/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing buckets: the KVM-PPC exit-timing view (MMIO, EMULINST, DTLBVIRT,
 * HALT, ...) on every ISA. A bucket map is an ordered list of rules, first
 * match wins, that names the row an exit is counted in from its ISA, its
 * reason and the detail events seen while it was handled (their kinds, flags
 * and the raw value of the first of each kind: struct kes_details). An
 * exit no rule matches is counted in "OTHER(<reason>)": never dropped.
 * Maps are data files (exit_types/NAME.map, built into the binary, or a user's
 * file); format: kvm-exitstat-exit-types(5), BUCKET MAPS.
 */
#ifndef KES_BUCKET_MAP_H
#define KES_BUCKET_MAP_H

#include <stddef.h>
#include "event.h"
#include "exit-types.h"

struct bucket_map;

/*
 * Parse a map's text. Returns NULL and writes "origin:LINE: message" into
 * errbuf (which may be NULL) on any error; the text need not end in NUL.
 */
struct bucket_map *bucket_map_parse(const char *text, size_t len, const char *origin, char *errbuf,
				    size_t errlen);
/* The map built into the binary under that name ("ppc", "native"), or NULL. */
struct bucket_map *bucket_map_builtin(const char *name, char *errbuf, size_t errlen);
/*
 * --buckets NAME|FILE: a built-in map by name, else the file at that path.
 * On error errbuf says which (an unknown name lists the built-in maps).
 */
struct bucket_map *bucket_map_open(const char *name_or_path, char *errbuf, size_t errlen);
void bucket_map_free(struct bucket_map *m);

/* The map's `map NAME` and `describe` text (NULL when it has none). */
const char *bucket_map_name(const struct bucket_map *m);
const char *bucket_map_describe(const struct bucket_map *m);

/*
 * Catch typos: every rule's isa must be a table of `types` and its reason a
 * name of that table ('*' for either matches anything; a PREFIX* pattern
 * must match at least one name; a reason given by a table's alias, arm64's
 * "DABT_LOW", is replaced by its name, TRAP_DABT_LOW). Returns 0, or -1
 * with "origin:LINE: ...".
 */
int bucket_map_check(struct bucket_map *m, const struct exit_types *types, char *errbuf,
		     size_t errlen);

/*
 * The bucket of one exit. Pure function of its arguments; results are
 * memoized in the map (so not safe to call on one map from two threads).
 */
const char *bucket_map_apply(struct bucket_map *m, const char *isa, const char *reason,
			     const struct kes_details *d);
/* The same as a pair_namer_fn: arg is a struct bucket_map *. */
const char *bucket_map_namer(void *arg, const char *isa, const char *reason,
			     const struct kes_details *d);

/*
 * exit_types/NAME.map as built into the binary (generated with the .types
 * files by tools/embed-exit-types.sh).
 */
extern const struct exit_types_builtin_file bucket_map_files[];
extern const size_t bucket_map_nfiles;

#endif

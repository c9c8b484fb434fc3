/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine/: the event path, built in one place. A source's records (a
 * trace.dat's lanes, libtracecmd's records, text's events, the live
 * collector's queues) -> decode -> one order (feed/) -> pair/ -> the
 * caller's tables and views (sub-keys, buckets, outliers, anatomy, nested,
 * guest pcs). report and diff (pipeline/load.c, each half of
 * pipeline/split.c) and top, serve and record's live view (watch/) build
 * theirs here from one struct: the tables' sub-key cap, what the decoder
 * decodes, the pair and the feed over it are set here and nowhere else.
 */
#ifndef KES_ENGINE_H
#define KES_ENGINE_H

#include <stdbool.h>
#include "feed.h"
#include "pair.h"

struct engine;

struct engine_opts {
	struct pair_opts pair; /* the tables and the views */
	/*
	 * The source's side: its decoder (NULL: its events come decoded,
	 * text), filter, unit, timelines, loss rule, split and pipe. .p is
	 * the engine's own: left NULL.
	 */
	struct feed_opts feed;
	/* the caller's filter reads detail events' fields too (report --vcpu): they are decoded */
	bool filter_details;
};

struct engine *engine_new(const struct engine_opts *o);
/* The feed to hand the source's records to (feed.h). */
struct feed *engine_feed(const struct engine *e);
/* The pair, for what only the source knows (pair_lost(), pair_end_thread(), pair_segment()). */
struct pair *engine_pair(const struct engine *e);
/* End of input: open exits are counted untimed (pair_finish()). */
void engine_finish(struct engine *e);
/* What each stage counted so far (feed_counts(), pair_get_counts()); either may be NULL. */
void engine_counts(const struct engine *e, struct feed_counts *fc, struct pair_counts *pc);
void engine_free(struct engine *e);

#endif

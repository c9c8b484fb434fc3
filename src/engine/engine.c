// SPDX-License-Identifier: GPL-2.0
/*
 * The event path's one builder (include/engine.h). Its order matters: the
 * tables are capped before the pair keys anything into them, and the
 * decoder is told what to decode from what the pair's views read, before
 * the feed (which skips what no view reads) is built over both.
 */
#include <stdlib.h>
#include "alloc.h"
#include "decode.h"
#include "engine.h"

struct engine {
	struct pair *p;
	struct feed *f;
};

/* Sub-keys (MMIO gpa, PIO port, pc) are the guest's to choose: STATS_SUB_CAP per reason. */
static void cap_subs(const struct pair_opts *o)
{
	if (!o->with_sub)
		return;
	stats_table_set_sub_cap(o->exits, STATS_SUB_CAP);
	stats_table_set_sub_cap(o->uexits, STATS_SUB_CAP);
	for (int i = 0; i < 2; i++)
		if (o->anatomy[i])
			stats_anatomy_set_sub_cap(o->anatomy[i], STATS_SUB_CAP);
}

struct engine *engine_new(const struct engine_opts *o)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	struct feed_opts fo = o->feed;

	cap_subs(&o->pair);
	e->p = pair_new(&o->pair);
	if (fo.d)
		decode_need_details(fo.d, pair_reads_details(e->p) || o->filter_details);
	fo.p = e->p;
	e->f = feed_new(&fo);
	return e;
}

struct feed *engine_feed(const struct engine *e)
{
	return e->f;
}

struct pair *engine_pair(const struct engine *e)
{
	return e->p;
}

void engine_finish(struct engine *e)
{
	pair_finish(e->p);
}

void engine_counts(const struct engine *e, struct feed_counts *fc, struct pair_counts *pc)
{
	if (fc)
		feed_counts(e->f, fc);
	if (pc)
		pair_get_counts(e->p, pc);
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	feed_free(e->f); /* first: a pipe's thread may still hold the pair */
	pair_free(e->p);
	free(e);
}

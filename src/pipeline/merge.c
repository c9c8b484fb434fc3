// SPDX-License-Identifier: GPL-2.0
/*
 * What several inputs add up to, checked (issue 29). A report's JSON read
 * back says its own counts and units, and says them as it likes: a report
 * in "ticks" (integer timestamps of unknown unit) merged with one in ns made
 * a table labelled "us" whose averages were neither (8.22 where both were
 * 5.30), and a total of 766 + 2^64 - 1 events wrapped to 765. Inputs whose
 * times are ticks of an unknown clock and inputs in ns are refused together
 * (--ts-unit converts a trace's ticks; a report's are kept as they are), and
 * every sum that can come from a file is added with its overflow checked.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "pipeline-local.h"

/* *to += v, or -1 (after err()) when it would pass 2^64. */
static int add(uint64_t *to, uint64_t v, const char *path, const char *what)
{
	if (!__builtin_add_overflow(*to, v, to))
		return 0;
	return err("'%s': its %s added to the inputs' before it pass 2^64: not merged", path, what);
}

int merge_json_meta(struct input_result *r, const struct reportjson_meta *m, const char *path)
{
	if (add(&r->events, m->events, path, "events") < 0 ||
	    add(&r->kvm_events, m->events, path, "events") < 0 ||
	    add(&r->lost, m->lost, path, "lost events") < 0 ||
	    add(&r->unpaired, m->untimed, path, "untimed exits") < 0 ||
	    add(&r->ts_backwards, m->backwards, path, "ts_backwards") < 0 ||
	    add(&r->threadless_exits, m->threadless_exits, path, "exits_no_thread") < 0 ||
	    add(&r->sub_folded, m->sub_folded, path, "sub_folded") < 0 ||
	    add(&r->wall_ns, m->wall_ns, path, "wall_ns") < 0)
		return -1;
	r->lost_known = r->lost_known && m->lost_known;
	r->wall_known |= m->wall_known;
	if (m->ticks)
		r->ts_ticks += m->events ? m->events : 1;
	return 0;
}

int merge_units_check(struct input_result *r, const char *path, bool ticks)
{
	char **first = ticks ? &r->ticks_from : &r->ns_from;
	const char *other = ticks ? r->ns_from : r->ticks_from;

	if (other)
		return err(
		    "'%s': its times are %s and those of '%s' %s: they cannot be merged into "
		    "one table (--ts-unit says what a trace's ticks are)",
		    path, ticks ? "ticks of a clock of unknown unit" : "in ns", other,
		    ticks ? "in ns" : "ticks of a clock of unknown unit");
	if (!*first)
		*first = xstrdup(path);
	return 0;
}

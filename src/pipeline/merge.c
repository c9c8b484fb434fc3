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

/* The first sum that would pass 2^64, named, or NULL: r's counts grow by m's. */
static const char *add_all(struct input_result *r, const struct reportjson_meta *m)
{
	const struct {
		uint64_t *to, v;
		const char *what;
	} sums[] = {
	    {&r->events, m->events, "events"},
	    {&r->kvm_events, m->events, "events"},
	    {&r->lost, m->lost, "lost events"},
	    {&r->unpaired, m->untimed, "untimed exits"},
	    {&r->ts_backwards, m->backwards, "ts_backwards"},
	    {&r->threadless_exits, m->threadless_exits, "exits_no_thread"},
	    {&r->sub_folded, m->sub_folded, "sub_folded"},
	    {&r->wall_ns, m->wall_ns, "wall_ns"},
	};

	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		if (__builtin_add_overflow(*sums[i].to, sums[i].v, sums[i].to))
			return sums[i].what;
	return NULL;
}

int merge_json_meta(struct input_result *r, const struct reportjson_meta *m, const char *path,
		    char *e, size_t elen)
{
	const char *what = add_all(r, m);

	if (what)
		return err_buf(e, elen,
			       "'%s': its %s added to the inputs' before it pass 2^64: not merged",
			       path, what);
	r->lost_known = r->lost_known && m->lost_known;
	r->wall_known |= m->wall_known;
	if (m->ticks)
		r->ts_ticks += m->events ? m->events : 1;
	return 0;
}

int merge_units_check(struct input_result *r, const char *path, bool ticks, char *e, size_t elen)
{
	char **first = ticks ? &r->ticks_from : &r->ns_from;
	const char *other = ticks ? r->ns_from : r->ticks_from;

	if (other)
		return err_buf(
		    e, elen,
		    "'%s': its times are %s and those of '%s' %s: they cannot be merged into "
		    "one table (--ts-unit says what a trace's ticks are)",
		    path, ticks ? "ticks of a clock of unknown unit" : "in ns", other,
		    ticks ? "in ns" : "ticks of a clock of unknown unit");
	if (!*first)
		*first = xstrdup(path);
	return 0;
}

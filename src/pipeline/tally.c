// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat says twice how many events it holds: in its pages, and in the
 * CPUSTAT option per CPU, the kernel's per_cpu/cpuN/stats read when the
 * recording ended ("read events": what the recorder took out of the ring
 * buffer; "overrun" and "dropped events": what it lost). trace-cmd and our
 * record both write it. A page cut off, a commit shrunk or a page flagged
 * "events missed" shows as a difference between the two, so a file that
 * lost data on its way (a bad copy, a careless tool, an attacker) says so
 * instead of reporting "lost events: 0".
 */
#include <stdlib.h>
#include "alloc.h"
#include "err.h"
#include "pipeline-local.h"

#define MAX_CPU 65536

void tallies_add_slow(struct tallies *t, int cpu, long long missed)
{
	struct cpu_tally *c;

	if (cpu < 0 || cpu >= MAX_CPU)
		return;
	if ((size_t)cpu >= t->n) {
		size_t n = (size_t)cpu + 1 > 2 * t->n ? (size_t)cpu + 1 : 2 * t->n;

		t->cpu = xrealloc(t->cpu, n * sizeof(*t->cpu));
		for (size_t i = t->n; i < n; i++)
			t->cpu[i] = (struct cpu_tally){0};
		t->n = n;
	}
	c = &t->cpu[cpu];
	c->found++;
	if (missed > 0)
		c->page_lost += (uint64_t)missed;
	else if (missed < 0)
		c->page_lost_unknown = true;
}

void tallies_put(struct tallies *t, int cpu, uint64_t records, uint64_t lost, bool lost_unknown)
{
	struct cpu_tally *c;

	if (!records)
		return;
	/* the first record makes room (and counts), the rest are added */
	tallies_add_slow(t, cpu, 0);
	if (cpu < 0 || (size_t)cpu >= t->n)
		return;
	c = &t->cpu[cpu];
	c->found += records - 1;
	c->page_lost += lost;
	c->page_lost_unknown |= lost_unknown;
}

void tallies_free(struct tallies *t)
{
	free(t->cpu);
	*t = (struct tallies){0};
}

static struct cpu_tally tally_of(const struct tallies *t, int cpu)
{
	return cpu >= 0 && (size_t)cpu < t->n ? t->cpu[cpu] : (struct cpu_tally){0};
}

/*
 * Without stats (other writers, v7 files whose options are compressed,
 * buffer instances): the pages' counts. A page that says events were missed
 * before it is said whatever the options are: it was said only where
 * CPUSTAT disagreed, so a file without one reported "lost events: unknown"
 * with no word of the flag the pairing had stumbled over.
 */
static void pages_only(const struct tallies *t, const char *path, struct input_result *r)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct cpu_tally *c = &t->cpu[i];

		r->lost += c->page_lost;
		if (c->page_lost)
			input_warn(
			    r,
			    "'%s': cpu %zu: its pages say %llu events were missed%s (the file "
			    "has no CPUSTAT to check them against)",
			    path, i, (unsigned long long)c->page_lost,
			    c->page_lost_unknown ? ", and more of unknown number" : "");
		else if (c->page_lost_unknown)
			input_warn(
			    r,
			    "'%s': cpu %zu: a page says events were missed before it, how many "
			    "unknown (the file has no CPUSTAT to check them against)",
			    path, i);
	}
	/* pages show overwrites, never drops (overwrite off) */
	r->lost_known = false;
}

/* One CPU: its lost events, or UINT64_MAX (the reason in e) when the file is to be refused. */
static uint64_t check_cpu(const struct tracedat_cpustat *s, const struct cpu_tally *c,
			  const char *path, struct input_result *r, char *e, size_t elen)
{
	uint64_t lost = s->overrun + s->dropped;

	if (s->has_read && c->found > s->entries && c->found - s->entries > s->read) {
		err_buf(e, elen,
			"'%s': cpu %d holds %llu events, but CPUSTAT says only %llu were read: "
			"corrupt file",
			path, s->cpu, (unsigned long long)c->found, (unsigned long long)s->read);
		return UINT64_MAX;
	}
	if (s->has_read && c->found < s->read) {
		uint64_t miss = s->read - c->found;

		input_warn(r,
			   "'%s': cpu %d: CPUSTAT says %llu events were read, the file holds %llu: "
			   "%llu missing, counted as lost",
			   path, s->cpu, (unsigned long long)s->read, (unsigned long long)c->found,
			   (unsigned long long)miss);
		lost += miss;
	}
	if (c->page_lost_unknown && !lost) {
		input_warn(r,
			   "'%s': cpu %d: a page says events were missed before it, CPUSTAT counts "
			   "no loss: losses unknown",
			   path, s->cpu);
		r->lost_known = false;
	}
	if (c->page_lost > lost) {
		input_warn(r, "'%s': cpu %d: its pages count %llu events missed, CPUSTAT %llu lost",
			   path, s->cpu, (unsigned long long)c->page_lost,
			   (unsigned long long)lost);
		lost = c->page_lost;
	}
	return lost;
}

int tallies_check(const struct tallies *t, const struct tracedat_info *info, const char *path,
		  struct input_result *r, char *e, size_t elen)
{
	bool *seen = xcalloc(t->n + 1, sizeof(*seen));
	int ret = 0;

	if (info->unknown_options)
		input_warn(
		    r,
		    "'%s': %u unknown option%s (the first: id %u), skipped as trace-cmd skips them",
		    path, info->unknown_options, info->unknown_options == 1 ? "" : "s",
		    info->first_unknown);
	/* With buffer instances the stats are not the top buffer's alone. */
	if (!info->nstats || info->instances) {
		pages_only(t, path, r);
		free(seen);
		return 0;
	}
	for (size_t i = 0; i < info->nstats && !ret; i++) {
		const struct tracedat_cpustat *s = &info->stats[i];
		struct cpu_tally c = tally_of(t, s->cpu);
		uint64_t lost;

		if (s->cpu < 0) { /* a stats text that names no CPU: its losses only */
			r->lost += s->overrun + s->dropped;
			continue;
		}
		if ((size_t)s->cpu < t->n)
			seen[s->cpu] = true;
		lost = check_cpu(s, &c, path, r, e, elen);
		if (lost == UINT64_MAX)
			ret = -1;
		else
			r->lost += lost;
	}
	for (size_t i = 0; i < t->n && !ret; i++) {
		if (t->cpu[i].found && !seen[i]) {
			input_warn(r,
				   "'%s': cpu %zu holds events but has no CPUSTAT: losses unknown",
				   path, i);
			r->lost += t->cpu[i].page_lost;
			r->lost_known = false;
		}
	}
	free(seen);
	return ret;
}

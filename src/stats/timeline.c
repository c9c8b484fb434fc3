// SPDX-License-Identifier: GPL-2.0
/*
 * Exits over time, per name: counts in bins of equal width, starting at the
 * first event. The width starts at 1 ms and doubles (neighbouring bins
 * merged) whenever a timestamp falls past the last of NBINS bins, so memory
 * is NBINS counters per name whatever the recording's length, and a long
 * recording gets wide bins. For `report --svg`'s timeline.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stats.h"

#define NBINS	  512
#define MAX_NAMES 256

struct series {
	const char *name;
	uint64_t n[NBINS];
};

struct stats_timeline {
	uint64_t start, width; /* ns */
	bool started;
	struct series *s;
	size_t ns;
	size_t last; /* the series of the last add: names come in runs */
	uint64_t dropped;
};

struct stats_timeline *stats_timeline_new(void)
{
	struct stats_timeline *t = xcalloc(1, sizeof(*t));

	t->width = 1000000;
	return t;
}

void stats_timeline_free(struct stats_timeline *t)
{
	if (!t)
		return;
	free(t->s);
	free(t);
}

static void widen(struct stats_timeline *t)
{
	for (size_t i = 0; i < t->ns; i++) {
		uint64_t *n = t->s[i].n;

		for (size_t b = 0; b < NBINS / 2; b++)
			n[b] = n[2 * b] + n[2 * b + 1];
		memset(n + NBINS / 2, 0, NBINS / 2 * sizeof(*n));
	}
	t->width *= 2;
}

static struct series *series_of(struct stats_timeline *t, const char *name)
{
	if (t->ns && t->s[t->last].name == name)
		return &t->s[t->last];
	for (size_t i = 0; i < t->ns; i++) {
		if (t->s[i].name == name) {
			t->last = i;
			return &t->s[i];
		}
	}
	if (t->ns == MAX_NAMES)
		return NULL;
	t->s = xrealloc(t->s, (t->ns + 1) * sizeof(*t->s));
	memset(&t->s[t->ns], 0, sizeof(*t->s));
	t->s[t->ns].name = name;
	t->last = t->ns++;
	return &t->s[t->last];
}

void stats_timeline_add(struct stats_timeline *t, const char *name, uint64_t ts)
{
	struct series *s;
	uint64_t b;

	if (!t->started) {
		t->start = ts;
		t->started = true;
	}
	s = series_of(t, name);
	if (!s) {
		t->dropped++;
		return;
	}
	/* CPUs' streams merge by time, but a late event may still come before the start. */
	b = ts > t->start ? (ts - t->start) / t->width : 0;
	while (b >= NBINS) {
		widen(t);
		b = (ts - t->start) / t->width;
	}
	s->n[b]++;
}

size_t stats_timeline_bins(const struct stats_timeline *t, uint64_t *start, uint64_t *width)
{
	size_t used = 0;

	*start = t->start;
	*width = t->width;
	for (size_t i = 0; i < t->ns; i++)
		for (size_t b = used; b < NBINS; b++)
			if (t->s[i].n[b])
				used = b + 1;
	return used;
}

const uint64_t *stats_timeline_counts(const struct stats_timeline *t, const char *name)
{
	for (size_t i = 0; i < t->ns; i++)
		if (t->s[i].name == name)
			return t->s[i].n;
	return NULL;
}

const char *stats_timeline_name(const struct stats_timeline *t, size_t i)
{
	return i < t->ns ? t->s[i].name : NULL;
}

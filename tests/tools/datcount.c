// SPDX-License-Identifier: GPL-2.0
/*
 * datcount: what libtracecmd sees in a trace.dat, as plain lines, so tests can
 * compare it with `trace-cmd report` and with the recorder's own numbers.
 *
 *   datcount [-p PID]... [-k SYSTEM:EVENT:FIELD] FILE
 *
 *   event SYSTEM:EVENT N     records per event (of PID's threads with -p)
 *   key VALUE N              with -k: records of that event by field value
 *   total N                  all records counted
 *   missed N                 sum of the per-page lost-event counts
 *   missed_unknown N         pages that flagged a loss without a count
 *   lost N | lost none       tracedat_lost_events() (the CPUSTAT option)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "alloc.h"
#include "tracedat.h"

struct counter {
	char *name;
	unsigned long long n;
};

struct state {
	struct tep_handle *tep;
	int pids[64];
	int npids;
	struct tep_event *kev;
	const char *kfield;
	struct counter ev[512], keys[4096];
	size_t nev, nkeys;
	unsigned long long total, missed, unknown;
};

static void bump(struct counter *c, size_t *n, size_t max, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name)) {
			c[i].n++;
			return;
		}
	if (*n < max)
		c[(*n)++] = (struct counter){xstrdup(name), 1};
}

static int one(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
	struct state *s = arg;
	struct tep_event *e;
	char name[256];
	int pid;

	if (r->missed_events > 0)
		s->missed += (unsigned long long)r->missed_events;
	else if (r->missed_events < 0)
		s->unknown++;
	pid = tep_data_pid(s->tep, r);
	if (s->npids) {
		int i;

		for (i = 0; i < s->npids && s->pids[i] != pid; i++)
			;
		if (i == s->npids)
			return 0;
	}
	e = tep_find_event_by_record(s->tep, r);
	if (!e)
		return 0;
	s->total++;
	snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
	bump(s->ev, &s->nev, 512, name);
	if (e == s->kev) {
		unsigned long long v = 0;

		tep_get_any_field_val(NULL, e, s->kfield, r, &v, 0);
		snprintf(name, sizeof(name), "%llu", v);
		bump(s->keys, &s->nkeys, 4096, name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct state s = {0};
	const char *key = NULL;
	char *kcopy = NULL;
	struct tracecmd_input *h;
	uint64_t lost;
	int c;

	while ((c = getopt(argc, argv, "p:k:")) != -1) {
		if (c == 'p' && s.npids < 64)
			s.pids[s.npids++] = atoi(optarg);
		else if (c == 'k')
			key = optarg;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: datcount [-p PID]... [-k SYS:EVENT:FIELD] FILE\n");
		return 2;
	}
	/* record's own options (the thread map, id 19269) are skipped, not warned of */
	tracecmd_set_loglevel(TEP_LOG_ERROR);
	h = tracecmd_open(argv[optind], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "datcount: cannot open %s\n", argv[optind]);
		return 1;
	}
	s.tep = tracecmd_get_tep(h);
	if (key) {
		char *k = kcopy = xstrdup(key), *ev = strchr(k, ':'),
		     *f = ev ? strchr(ev + 1, ':') : NULL;

		if (!f)
			return 2;
		*ev++ = 0;
		*f++ = 0;
		s.kev = tep_find_event_by_name(s.tep, k, ev);
		s.kfield = f;
	}
	tracecmd_iterate_events(h, NULL, 0, one, &s);
	for (size_t i = 0; i < s.nev; i++)
		printf("event %s %llu\n", s.ev[i].name, s.ev[i].n);
	for (size_t i = 0; i < s.nkeys; i++)
		printf("key %s %llu\n", s.keys[i].name, s.keys[i].n);
	printf("total %llu\nmissed %llu\nmissed_unknown %llu\n", s.total, s.missed, s.unknown);
	if (tracedat_lost_events(argv[optind], &lost) == 0)
		printf("lost %llu\n", (unsigned long long)lost);
	else
		printf("lost none\n");
	tracecmd_close(h);
	for (size_t i = 0; i < s.nev; i++)
		free(s.ev[i].name);
	for (size_t i = 0; i < s.nkeys; i++)
		free(s.keys[i].name);
	free(kcopy);
	return 0;
}

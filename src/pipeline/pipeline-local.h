/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to src/pipeline: the per-CPU tallies a trace.dat's records are
 * checked with, the thread filter, the merge checks and the split.
 */
#ifndef KES_PIPELINE_LOCAL_H
#define KES_PIPELINE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "feed.h"
#include "pipeline.h"
#include "reportjson.h"
#include "text.h"
#include "tracedat.h"

/*
 * filter.c: --pid, -g and --vcpu over one input's events, decided once per
 * thread. Zeroed, with o and r set; pm and tep as the input gives them.
 */
struct filter {
	const struct input_opts *o;
	const struct input_result *r; /* a text input's thread names (input_comm()) */
	const struct procmap *pm;     /* the input's thread map (record's), or NULL */
	struct tep_handle *tep;	      /* trace.dat: the thread names of saved_cmdlines */
	struct filter_thread *t;      /* by tid */
	size_t nt, last;	      /* last: index of the last thread looked up */
	/* --vcpu: exits of threads whose vCPU is not known, and the vCPUs there are */
	uint64_t vcpu_unknown;
	int32_t unknown_tid;	  /* the first such thread */
	const char *unknown_name; /* and its name (interned), or NULL */
	size_t unplaced;	  /* -p/-g: threads left out whose process the map does not know */
	uint64_t vcpus_seen[64];  /* bit v: vCPU v had exits (KVM ids are < 4096) */
};
/* Is some filter set (--vcpu, --pid, -g)? Else nothing need ask filter_keep(). */
bool filter_on(const struct input_opts *o);
bool filter_keep(struct filter *f, const struct kes_event *ev);
/*
 * --vcpu N, once the input is read: 0, or -1 with the reason in e when some
 * exits' vCPU is not known or there is no vCPU N (no_map: the input has no
 * thread map, so -p matched thread ids only).
 */
int filter_check_vcpu(const struct filter *f, const char *path, bool no_map, char *e, size_t elen);
void filter_free(struct filter *f);

/* What the records of one CPU showed while they were read. */
struct cpu_tally {
	uint64_t found;		/* data records */
	uint64_t page_lost;	/* events the pages said were lost before them (stored counts) */
	bool page_lost_unknown; /* a page flagged a loss without room for its count */
};

struct tallies {
	struct cpu_tally *cpu; /* by CPU id */
	size_t n;
};

/* Counts one record of cpu (missed: as tracedat_record_fn's). */
void tallies_add_slow(struct tallies *t, int cpu, long long missed);
/* One record of cpu: inline, as it runs once a record; a new CPU or a loss goes the slow way. */
static inline void tallies_add(struct tallies *t, int cpu, long long missed)
{
	if (!missed && cpu >= 0 && (size_t)cpu < t->n)
		t->cpu[cpu].found++;
	else
		tallies_add_slow(t, cpu, missed);
}
/* A CPU's records and page losses at once (a feed lane's counts). */
void tallies_put(struct tallies *t, int cpu, uint64_t records, uint64_t lost, bool lost_unknown);
void tallies_free(struct tallies *t);

/*
 * The file's CPUSTAT options against what its pages held: events read but
 * not in the file count as lost (with a warning), pages that flag losses the
 * stats do not count make the losses unknown, more events than were read is
 * a corrupt file. Adds to r->lost / clears r->lost_known. Returns 0, or -1
 * with the reason in e when the file is to be refused.
 */
int tallies_check(const struct tallies *t, const struct tracedat_info *info, const char *path,
		  struct input_result *r, char *e, size_t elen);

/*
 * merge.c: a JSON report's counts added to r, each checked for overflow;
 * its ticks counted. 0, or -1 with the reason in e (r's counts then half
 * added: the caller gives up).
 */
int merge_json_meta(struct input_result *r, const struct reportjson_meta *m, const char *path,
		    char *e, size_t elen);
/*
 * The input just loaded had its times in ticks of an unknown clock (ticks)
 * or in ns: refused (-1, the reason in e) when an earlier input's were the other.
 */
int merge_units_check(struct input_result *r, const char *path, bool ticks, char *e, size_t elen);

/* split_lanes()'s inputs: what each half builds its feed of, and where its results go. */
struct split_in {
	struct tep_handle *tep;
	const struct exit_types *types;
	const struct text_ts_unit *ts_unit;
	struct decoder *d; /* the file's: gets the halves' decode counts */
	struct stats_table *exits, *uexits;
	struct tallies *tally;
	struct tracedat *td; /* the lanes' file, to sample their pages first; or NULL */
	struct stats_outliers *outliers[2]; /* --slowest's (exits, userspace exits), or NULL */
};

struct split_out {
	struct feed_counts fc; /* as the one feed's */
	struct pair_counts pc; /* the halves' pairs', finished */
};

/*
 * One trace.dat's lanes through two feeds (split.c): on two threads, or one
 * after the other with one CPU to run on; for a view that reads no details
 * and filters nothing. 1: done as the one feed would have, the rows in
 * exits and uexits, the counts in *out and tally; 0: not tried (KES_SPLIT=0,
 * fewer than two lanes, a thread on both halves' CPUs in a sample of the
 * pages), the lanes untouched;
 * -1: given up (a thread that moved between the halves, a loss, time that
 * went back, an error), nothing changed, but the lanes are used up (ask the
 * file for them again).
 */
int split_lanes(const struct split_in *in, struct ring_lane **lanes, size_t n,
		struct split_out *out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * feed/: the one event path. Sources hand out ring-buffer pages per CPU
 * (struct ring_lane: a trace.dat's pages, the live collector's); the feed
 * walks them, decodes each record where it lies (records no view needs are
 * skipped for the cost of a type check, detail events no view reads once
 * counted), puts the events of all CPUs in
 * time order (pairing needs each thread's events in order, and a vCPU
 * thread migrates) and hands them to pair/, whose tables are the caller's.
 * report, diff, top and serve run on it: a source of pages as lanes, one
 * already in order (libtracecmd's records, a text trace's events) record by
 * record or event by event, through the same steps after the merge.
 *
 * Order: by timestamp, ties to the lower CPU, as libtracecmd's
 * tracecmd_iterate_events_multi() gives records, so that both readers give
 * byte-identical reports. The merge works on runs: the CPU with the earliest
 * event hands out events while they come before every other CPU's next one,
 * so the common case is one compare per event.
 */
#ifndef KES_FEED_H
#define KES_FEED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "decode.h"
#include "pair.h"
#include "ring.h"
#include "stats.h"
#include "text.h"

struct feed_opts {
	struct decoder *d; /* records -> events */
	struct pair *p;	   /* events -> the caller's tables */
	/*
	 * The caller's filter (NULL: every event is kept, and no call is made):
	 * asked for each event in the one order, after ts_unit; false leaves
	 * the event out of pair/ and the counts. In order because a filter may
	 * learn from what it sees (report's --vcpu learns a thread's vCPU).
	 */
	bool (*keep)(void *arg, const struct kes_event *ev);
	void *keep_arg;
	/*
	 * Integer ticks to ns (a trace.dat of a counter clock, report
	 * --ts-unit), NULL: timestamps as they are. Applied after the order,
	 * which is the raw timestamps', as libtracecmd's.
	 */
	const struct text_ts_unit *ts_unit;
	/* exits' [0] and userspace exits' [1] timelines of the kept events, or NULL */
	struct stats_timeline *timeline[2];
	/*
	 * A page that flags a loss is a loss where the page starts, even with
	 * no record on it (the live view: anything open may have lost its
	 * entry). false: the loss is where libtracecmd reports it, on the
	 * record that starts the page (trace.dat files: byte-identical reports).
	 */
	bool page_losses;
	/*
	 * One of two feeds over one file's lanes (pipeline/split.c), NULL: the
	 * one feed. feed_run() gives up ("stopped", -1) at the next page once
	 * *stop is nonzero, and sets it itself at a loss marker or a lane whose
	 * time goes back: only one feed over all the lanes places those right.
	 */
	atomic_int *stop;
	/*
	 * pair/ on a second thread while feed_run() runs (feed-pipe.c): the
	 * same calls in the same order, so the same tables. Only when nothing
	 * else touches the pair, its tables, namer or outliers until
	 * feed_run() returns. Ignored where no thread starts.
	 */
	bool pipe;
};

/* Two CPUs to run on (the affinity mask's), and KES_THREADS is not 1. */
bool feed_two_cpus(void);

/* What the feed saw, over every lane. */
struct feed_counts {
	uint64_t records;     /* raw records walked */
	uint64_t exits;	      /* exits (kvm_exit, userspace) decoded, kept by the filters or not */
	uint64_t kvm;	      /* events decoded as KVM events (or --anatomy's) and kept by the filters */
	uint64_t gaps;	      /* loss markers: pages that said events were lost before them */
	uint64_t missed;      /* the events they said were lost, where a page stored the count */
	bool missed_unknown;  /* a page flagged a loss without a count */
	const char *isa;      /* the ISA of the first exit kept, or NULL */
	uint64_t ts_first, ts_last; /* of the kept events (ts_first UINT64_MAX: none) */
};

/* What one lane held (a trace.dat's per-CPU check against its CPUSTAT). */
struct feed_lane_counts {
	int cpu;
	uint64_t records;    /* raw records walked */
	uint64_t missed;     /* events its pages said were lost, where they stored the count */
	bool missed_unknown; /* a page flagged a loss without a count */
};

struct feed;

struct feed *feed_new(const struct feed_opts *o);
/* A CPU's pages; the feed reads it, the caller owns it. At most FEED_MAX_LANES. */
#define FEED_MAX_LANES 4096
int feed_add_lane(struct feed *f, struct ring_lane *lane);
/*
 * Every event the lanes hold now, in order, through pair/. A file's lanes
 * end for good; a live lane that has nothing now says so, and the next call
 * goes on where this one stopped. 0, or -1 with errbuf set (a corrupt page:
 * "corrupt ring-buffer page at file offset N (cpu C)", or the lane's own).
 */
int feed_run(struct feed *f, char *errbuf, size_t errlen);
/*
 * A source already in one order, one at a time: a raw record (what a lane's
 * page holds; missed != 0: a loss before it, -1 of unknown size) decoded as
 * a lane's are. An event decoded already (text: its reader decodes
 * lines, and converts their units itself, so its feed has no ts_unit); a
 * loss marker. Not with lanes in the same feed.
 */
void feed_record(struct feed *f, const void *data, int size, uint64_t ts, int cpu,
		 long long missed);
void feed_event(struct feed *f, const struct kes_event *ev);
void feed_lost(struct feed *f);
void feed_counts(const struct feed *f, struct feed_counts *c);
/*
 * Two feeds' counts as one feed over all their lanes would have them (to's
 * ts_first UINT64_MAX when empty). false when their ISAs differ: the one
 * feed's is the first exit's in the one order, which neither knows.
 */
bool feed_counts_add(struct feed_counts *to, const struct feed_counts *c);
/* The i-th lane added's counts (i < the number added). */
void feed_lane_counts(const struct feed *f, size_t i, struct feed_lane_counts *c);
void feed_free(struct feed *f);

/*
 * A lane of copied pages, for a source that reuses its buffer (the live
 * collector): pages queued in order between two feed_run()s, each handed out
 * once; the queue empties when the feed has taken them all.
 */
struct feed_queue;
struct feed_queue *feed_queue_new(int cpu, int long_size, size_t page_size);
/* A page of len bytes (the rest of page_size zeroed). 0, or -1 if it is too long. */
int feed_queue_add(struct feed_queue *q, const void *page, size_t len);
struct ring_lane *feed_queue_lane(struct feed_queue *q);
void feed_queue_free(struct feed_queue *q);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat's lanes in two halves (issue 12: report on both cores, and
 * merging only where threads migrate). Each half is a whole feed (walk,
 * decode, order, pair, stats) over every other CPU, into tables of its own,
 * which are merged at the end: statistics merge bit for bit in any order
 * (stats.h). With two CPUs to run on, the halves run on two threads; with
 * one (KES_THREADS=1), one after the other: a half of a two-CPU recording
 * is one lane, which the feed walks without ever comparing two lanes' heads
 * (report of the pinned 4 M recording, one thread, best of 5 task-clock:
 * 39.0 -> 37.0 ms against the one feed over both lanes). That is the one
 * feed's result exactly when pair/ sees each thread's events the same,
 * which holds unless:
 *   - a thread reaches pair/ in both halves: a thread that moved between
 *     the halves' CPUs is paired in the one order only;
 *   - there is a loss marker: pair_lost() forgets the open exits of every
 *     thread, the other half's too;
 *   - a lane's time goes back: the one feed then stops skipping details on
 *     every lane, at a point of the one order;
 *   - a half meets an error: the one feed says which comes first.
 * The first half to meet one of these stops both (feed_opts.stop, a page at
 * a time) and the caller runs the one feed, having paid twice for the part
 * read until then. So a few pages of each CPU are read first: a thread that
 * shows on both halves' CPUs there means no split at all. A thread that
 * moved away and back between the pages sampled still stops the halves.
 * One after the other, the second half meets such a thread only once the
 * first has read all of its lanes: a migration the sample missed costs up
 * to one and a half reads of the file there, against the parallel halves'
 * one and a bit.
 * Not for views that filter, cap sub-keys, name buckets or draw timelines:
 * the filters' thread tables, the sub-key cap, the bucket map's memo and
 * timelines are the one feed's alone. Outliers (--slowest) merge exactly.
 * KES_SPLIT=0 in the environment turns it off: the one feed over every
 * CPU, which the tests compare the split against.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "engine.h"
#include "knobs.h"
#include "pipeline-local.h"

/* Which half first saw each thread. Few threads reach pair/: a list does. */
struct owners {
	pthread_mutex_t lock;
	struct owner {
		int32_t tid;
		int half;
	} *v;
	size_t n, cap;
	atomic_int stop; /* both feeds' feed_opts.stop */
};

struct half {
	int id;
	struct owners *own;
	struct decoder *d;
	struct engine *en;
	struct stats_table *exits, *uexits;
	struct stats_outliers *out[2]; /* the caller's kind, or NULL */
	struct feed *f;		       /* en's */
	const struct split_in *in;
	struct ring_lane **lanes; /* all of them: this half's are every other one */
	size_t n;
	size_t nlanes; /* added to f */
	int rc;
	char e[256];
};

/* Pages read from each lane before splitting, its first and last among them. */
#define SAMPLES 8

/* tid for half: false when the other half has it. Under o->lock once the halves run. */
static bool own(struct owners *o, int32_t tid, int half)
{
	size_t i;

	for (i = 0; i < o->n && o->v[i].tid != tid; i++)
		;
	if (i < o->n)
		return o->v[i].half == half;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = (struct owner){tid, half};
	return true;
}

/* pair/'s thread hook: a thread the other half has seen stops both. */
static void claim(void *arg, int32_t tid)
{
	struct half *h = arg;
	struct owners *o = h->own;

	pthread_mutex_lock(&o->lock);
	if (!own(o, tid, h->id))
		atomic_store_explicit(&o->stop, 1, memory_order_relaxed);
	pthread_mutex_unlock(&o->lock);
}

/* One sampled page's threads (of the events pair/ would see) for half: false on a clash. */
static bool sample_page(struct owners *o, struct decoder *d, const struct ring_lane *l,
			int half, const void *page, size_t len)
{
	struct ring_cur cur;
	struct ring_rec rec;
	struct kes_event ev;

	if (ring_open(&cur, page, len, l->long_size) < 0)
		return true; /* the feed says what is wrong with it */
	while (ring_next(&cur, &rec) > 0)
		if (decode_rec(d, rec.data, (int)rec.size, rec.ts, l->cpu, &ev) == 1 &&
		    ev.kind != KES_DETAIL && !own(o, ev.tid, half))
			return false;
	return true;
}

/*
 * Do SAMPLES pages of each lane show a thread on both halves' CPUs? Their
 * threads go into o, as the halves' hooks would put them. A scratch
 * decoder keeps the file's decode counts to the records read for real.
 */
static bool sample_migrates(const struct split_in *in, struct ring_lane **lanes, size_t n,
			    struct owners *o)
{
	struct decoder *d = decode_new(in->tep, in->types);
	bool clash = false;

	decode_need_details(d, false);
	for (size_t i = 0; i < n && !clash; i++)
		for (unsigned k = 0; k < SAMPLES && !clash; k++) {
			const void *page;
			size_t len;

			if (tracedat_sample_page(in->td, i, k, SAMPLES, &page, &len) <= 0)
				break;
			clash = !sample_page(o, d, lanes[i], (int)(i % 2), page, len);
		}
	decode_free(d);
	return clash;
}

static void half_init(struct half *h, int id, struct owners *own, const struct split_in *in)
{
	h->id = id;
	h->own = own;
	h->d = decode_new(in->tep, in->types);
	h->exits = stats_table_new();
	h->uexits = stats_table_new();
	for (int i = 0; i < 2; i++)
		h->out[i] = in->outliers[i] ? stats_outliers_new_like(in->outliers[i]) : NULL;
	h->en = engine_new(
	    &(struct engine_opts){.pair = {.exits = h->exits,
					   .uexits = h->uexits,
					   .outliers = {h->out[0], h->out[1]},
					   .thread_hook = claim,
					   .thread_hook_arg = h},
				  .feed = {.d = h->d, .ts_unit = in->ts_unit, .stop = &own->stop}});
	h->f = engine_feed(h->en);
}

static void half_free(struct half *h)
{
	engine_free(h->en);
	stats_table_free(h->exits);
	stats_table_free(h->uexits);
	stats_outliers_free(h->out[0]);
	stats_outliers_free(h->out[1]);
	decode_free(h->d);
}

/*
 * One half, built on the thread that runs it: glibc gives each thread an
 * arena of its own, so the halves' feeds, lanes, pairs and tables, written
 * at every record, never share a cache line. Built side by side on one
 * thread, they did or did not by the luck of the layout: the 16 M report
 * took 0.63 s of CPU where it took 0.42 s, for 16 reads of sample pages
 * allocated first.
 */
static void *run_half(void *arg)
{
	struct half *h = arg;

	half_init(h, h->id, h->own, h->in);
	for (size_t i = (size_t)h->id; i < h->n; i += 2) {
		feed_add_lane(h->f, h->lanes[i]);
		h->nlanes++;
	}
	h->rc = feed_run(h->f, h->e, sizeof(h->e));
	if (h->rc == 0)
		engine_finish(h->en);
	return NULL;
}

/* Both halves done as the one feed would have: their results into the caller's. */
static bool merge(struct half *h, const struct split_in *in, struct split_out *out)
{
	out->fc = (struct feed_counts){.ts_first = UINT64_MAX};
	for (int i = 0; i < 2; i++) {
		struct feed_counts fc;

		engine_counts(h[i].en, &fc, NULL);
		if (!feed_counts_add(&out->fc, &fc))
			return false;
	}
	out->pc = (struct pair_counts){0};
	for (int i = 0; i < 2; i++) {
		struct pair_counts pc;

		engine_counts(h[i].en, NULL, &pc);
		pair_counts_add(&out->pc, &pc);
		stats_table_merge(in->exits, h[i].exits);
		stats_table_merge(in->uexits, h[i].uexits);
		for (int k = 0; k < 2; k++)
			if (h[i].out[k])
				stats_outliers_merge(in->outliers[k], h[i].out[k]);
		decode_add_counts(in->d, h[i].d);
		for (size_t j = 0; j < h[i].nlanes; j++) {
			struct feed_lane_counts lc;

			feed_lane_counts(h[i].f, j, &lc);
			tallies_put(in->tally, lc.cpu, lc.records, lc.missed, lc.missed_unknown);
		}
	}
	return true;
}

static bool split_off(void)
{
	return knobs_get()->no_split;
}

int split_lanes(const struct split_in *in, struct ring_lane **lanes, size_t n,
		struct split_out *out)
{
	struct owners own = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct half h[2] = {{0}};
	pthread_t t;
	bool done;

	if (n < 2 || n > FEED_MAX_LANES || split_off())
		return 0;
	if (in->td && sample_migrates(in, lanes, n, &own)) {
		free(own.v);
		return 0;
	}
	/* from here on the lanes belong to the halves' feeds: every other lane each */
	for (int i = 0; i < 2; i++)
		h[i] = (struct half){.id = i, .own = &own, .in = in, .lanes = lanes, .n = n};
	if (feed_two_cpus() && pthread_create(&t, NULL, run_half, &h[1]) == 0) {
		run_half(&h[0]);
		pthread_join(t, NULL);
	} else {
		/* a first half that stopped both stops the second at its first page */
		run_half(&h[0]);
		run_half(&h[1]);
	}
	done = !h[0].rc && !h[1].rc && !atomic_load(&own.stop) && merge(h, in, out);
	for (int i = 0; i < 2; i++)
		half_free(&h[i]);
	free(own.v);
	pthread_mutex_destroy(&own.lock);
	return done ? 1 : -1;
}

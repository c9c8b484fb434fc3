// SPDX-License-Identifier: GPL-2.0
/*
 * pair/ on a second thread (issue 12: both cores, also where vCPU threads
 * migrate and the split cannot run). The feed's thread walks, decodes and
 * orders; this one pairs and adds to the tables. pair/ gets exactly the
 * calls, in exactly the order, the feed would make itself, so the tables
 * are the same bit for bit; nothing else is shared (the filters, the
 * timelines and the counts stay on the feed's thread; intern() locks).
 *
 * Events go in blocks, a lock and a signal per block, not per event: the
 * feed thread copies an event (72 bytes) where it called pair_event().
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "feed.h"
#include "feed-local.h"
#include "knobs.h"

#define BLOCK 1024  /* events per block */
#define BLOCKS 16  /* blocks in flight: 1.2 MB */
#define LOST 0xffff /* kes_event.kind of a pair_lost() */

struct feed_pipe {
	struct pair *p;
	pthread_t t;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct kes_event *ev; /* BLOCKS blocks of BLOCK */
	uint32_t len[BLOCKS]; /* events in each published block */
	size_t put, got;      /* blocks published and handed to the pair (ever) */
	uint32_t fill;	      /* events in the block being filled (index put % BLOCKS) */
	bool done;
};

static void hand(struct pair *p, const struct kes_event *ev, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ev[i].kind == LOST)
			pair_lost(p);
		else
			pair_event(p, &ev[i]);
}

static void *run(void *arg)
{
	struct feed_pipe *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->got == q->put && !q->done)
			pthread_cond_wait(&q->cv, &q->lock);
		if (q->got == q->put)
			break;
		size_t b = q->got % BLOCKS;

		pthread_mutex_unlock(&q->lock);
		hand(q->p, q->ev + b * BLOCK, q->len[b]);
		pthread_mutex_lock(&q->lock);
		q->got++;
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct feed_pipe *feed_pipe_start(struct pair *p)
{
	struct feed_pipe *q = xcalloc(1, sizeof(*q));

	q->p = p;
	q->ev = xcalloc(BLOCKS * BLOCK, sizeof(*q->ev));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->t, NULL, run, q) != 0) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->lock);
		free(q->ev);
		free(q);
		return NULL;
	}
	return q;
}

/*
 * The block being filled to the pair's thread; waits while every block is
 * in flight. The pair's thread, once it has caught up, is woken when half
 * the blocks are full, not at each: a wake-up cost the feed's thread more
 * than copying the block's events (perf: 12 % of its samples in the
 * kernel's wake-up at a wake per block).
 */
static void publish(struct feed_pipe *q)
{
	pthread_mutex_lock(&q->lock);
	q->len[q->put % BLOCKS] = q->fill;
	q->put++;
	q->fill = 0;
	if (q->put - q->got >= BLOCKS / 2)
		pthread_cond_signal(&q->cv);
	while (q->put - q->got == BLOCKS)
		pthread_cond_wait(&q->cv, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void feed_pipe_event(struct feed_pipe *q, const struct kes_event *ev)
{
	q->ev[(q->put % BLOCKS) * BLOCK + q->fill] = *ev;
	if (++q->fill == BLOCK)
		publish(q);
}

void feed_pipe_lost(struct feed_pipe *q)
{
	feed_pipe_event(q, &(struct kes_event){.kind = LOST});
}

void feed_pipe_end(struct feed_pipe *q)
{
	if (!q)
		return;
	if (q->fill)
		publish(q);
	pthread_mutex_lock(&q->lock);
	q->done = true;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->t, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->lock);
	free(q->ev);
	free(q);
}

bool feed_two_cpus(void)
{
	cpu_set_t s;

	if (knobs_get()->one_thread)
		return false;
	return sched_getaffinity(0, sizeof(s), &s) == 0 && CPU_COUNT(&s) >= 2;
}

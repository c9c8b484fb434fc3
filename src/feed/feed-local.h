/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/feed: pair/ on a thread of its own (feed-pipe.c). */
#ifndef KES_FEED_LOCAL_H
#define KES_FEED_LOCAL_H

#include "event.h"
#include "pair.h"

struct feed_pipe;

/* A thread that hands what it is given to p, in order; NULL when none starts. */
struct feed_pipe *feed_pipe_start(struct pair *p);
/* ev to pair_event() on the pipe's thread (copied). */
void feed_pipe_event(struct feed_pipe *q, const struct kes_event *ev);
/* pair_lost() on the pipe's thread, in its place among the events. */
void feed_pipe_lost(struct feed_pipe *q);
/* Everything given handed to the pair, the thread gone, q freed. */
void feed_pipe_end(struct feed_pipe *q);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Private to watch/: the in-kernel mode (watch-inkernel.c) that watch.c switches to. */
#ifndef KES_WATCH_LOCAL_H
#define KES_WATCH_LOCAL_H

#include <stddef.h>
#include <stdint.h>
#include "watch.h"

/* After the decoder: the triggers in the instance. 0, or -1 with a reason. */
int watch_ik_setup(struct watch *l, const struct watch_opts *o, char *errbuf, size_t errlen);
/* timeout_ms > 0: waits; 0: reads the hists and adds what grew. 0 or -1 (errno). */
int watch_ik_poll(struct watch *l, int timeout_ms);
void watch_ik_thread_gone(struct watch *l, int32_t tid);
/* Removes the triggers (before the instance goes). */
void watch_ik_free(struct watch *l);

#endif

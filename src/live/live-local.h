/* SPDX-License-Identifier: GPL-2.0 */
/* Private to the live collector's files (tracefs.c, signals.c). */
#ifndef KES_LIVE_LOCAL_H
#define KES_LIVE_LOCAL_H

#include <signal.h>

struct live;
struct tracefs_instance;

/* The mask live_read() waits with; NULL when signals are not installed. */
const sigset_t *live_wait_mask(void);
/* The collector's instance (khist.c sets its triggers there), and its name. */
struct tracefs_instance *live_tracefs_instance(const struct live *c);
const char *live_instance_name(const struct live *c);

#endif

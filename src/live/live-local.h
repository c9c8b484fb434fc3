/* SPDX-License-Identifier: GPL-2.0 */
/* Private to the live collector's files (tracefs.c, signals.c). */
#ifndef KES_LIVE_LOCAL_H
#define KES_LIVE_LOCAL_H

#include <signal.h>

/* The mask live_read() waits with; NULL when signals are not installed. */
const sigset_t *live_wait_mask(void);

#endif

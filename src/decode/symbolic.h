/* SPDX-License-Identifier: GPL-2.0 */
/* Private to decode/: exit names from a recording's own __print_symbolic() tables. */
#ifndef KES_DECODE_SYMBOLIC_H
#define KES_DECODE_SYMBOLIC_H

#include <stddef.h>
#include "exittypes.h"

struct tep_event;

/*
 * Fills *out (sorted by key, malloc'ed, names interned) with the names the
 * event's print fmt gives the table's reason field, or sets it to NULL/0.
 */
void symbolic_names(struct tep_event *ev, const struct exit_table *t, struct exit_name **out,
		    size_t *n);

#endif

// SPDX-License-Identifier: GPL-2.0
/* The knobs in force (include/knobs.h): set once by cli/, read by the library. */
#include "knobs.h"

static struct knobs cur;

const struct knobs *knobs_get(void)
{
	return &cur;
}

void knobs_set(const struct knobs *k)
{
	cur = *k;
}

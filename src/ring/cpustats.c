// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's per_cpu/cpuN/stats text, as trace-cmd stores it in the CPUSTAT
 * option:
 *
 *	entries: 0
 *	overrun: 0
 *	commit overrun: 0
 *	...
 *	dropped events: 0
 *
 * In overwrite mode (the default) lost events show as "overrun"; with
 * overwrite off they show only as "dropped events": a loss count is the sum.
 */
#include <stdlib.h>
#include <string.h>
#include "ring.h"

int ring_stats_field(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		/* Match at a line start only: "overrun" must not match "commit overrun". */
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *end;
			unsigned long long v = strtoull(line + klen + 1, &end, 10);

			if (end == line + klen + 1)
				return -1;
			*val = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

uint64_t ring_stats_lost(const char *text)
{
	uint64_t overrun = 0, dropped = 0;

	if (!text)
		return 0;
	if (ring_stats_field(text, "overrun", &overrun))
		overrun = 0;
	if (ring_stats_field(text, "dropped events", &dropped))
		dropped = 0;
	return overrun + dropped;
}

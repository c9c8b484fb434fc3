// SPDX-License-Identifier: GPL-2.0
/*
 * The environment's knobs (include/knobs.h), read here once before a
 * command runs: the one place that knows their names and what their values
 * mean. Each is for tests and benchmarks, none for users (the man pages
 * name none of them).
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "knobs.h"

/* Set, and neither empty nor "0" (KES_NO_FASTPATH's way). */
static bool on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* N in 1..max, else 0 (the default). */
static unsigned number(const char *name, unsigned max)
{
	const char *v = getenv(name);
	long n = v ? atol(v) : 0;

	return n > 0 && (unsigned long)n <= max ? (unsigned)n : 0;
}

static bool is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

void cli_knobs_read(void)
{
	const char *perf = getenv("KES_PERF");
	struct knobs k = {
		.one_thread = is("KES_THREADS", "1"),
		.pipe = is("KES_PIPE", "1"),
		.no_split = is("KES_SPLIT", "0"),
		.no_fastpath = on("KES_NO_FASTPATH"),
		/* valgrind runs libtracecmd ~30x slower: the probe's base limit raised */
		.probe_seconds = number("KES_PROBE_SECONDS", 3600),
		.perf = perf && *perf ? perf : NULL,
		.perf_cpu_s = number("KES_PERF_CPU_S", 1u << 30),
	};

	knobs_set(&k);
}

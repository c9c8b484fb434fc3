// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the ftrace/perf text reader (text_read_mem) with every
 * callback set, its events paired into stats tables as input_load() does,
 * then rendered.
 */
#include "fuzz.h"
#include "pair.h"
#include "text.h"

static int on_event(void *arg, const struct kes_event *ev)
{
	pair_event(arg, ev);
	return 0;
}

static int on_lost(void *arg, int cpu, long long missed)
{
	pair_lost(arg);
	return 0;
}

static void on_comm(void *arg, int32_t tid, const char *comm)
{
	/* Read every byte so ASan sees a name that is not a C string. */
	volatile size_t n = strlen(comm);
	(void)n;
}

static void on_brk(void *arg, int32_t tid)
{
	if (tid < 0)
		pair_segment(arg);
	else
		pair_end_thread(arg, tid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_table *exits = stats_table_new(), *uexits = stats_table_new();
	struct pair *p =
	    pair_new(&(struct pair_opts){.exits = exits, .uexits = uexits, .with_sub = size & 1});
	struct text_ops ops = {
	    .event = on_event, .lost = on_lost, .comm = on_comm, .brk = on_brk, .arg = p};
	struct text_counts c;
	char e[256];

	if (text_read_mem((const char *)data, size, fuzz_types(), &ops, &c, e, sizeof(e)) == 0) {
		pair_finish(p);
		fuzz_render(exits, true);
		fuzz_render(uexits, false);
	}
	pair_free(p);
	stats_table_free(exits);
	stats_table_free(uexits);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate(data, size, max_size, seed);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the KVM-PPC exit-timing text forms (saved/mailed reports,
 * debugfs dumps) through ppctext_parse(), then every renderer.
 */
#include "fuzz.h"
#include "ppctext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The size's low bit picks a known timebase, for the tick-scaled dumps. */
	struct ppctext_opts o = {.tb_ticks_per_usec = size & 1 ? 512 : 0};
	struct stats_table *t = stats_table_new();
	struct ppctext_info info;
	enum input_kind kind;
	char e[256];

	ppctext_sniff((const char *)data, size < 4096 ? size : 4096, &kind);
	if (ppctext_parse((const char *)data, size, &o, t, &info, e, sizeof(e)) == 0)
		fuzz_render(t, true);
	stats_table_free(t);
	return 0;
}

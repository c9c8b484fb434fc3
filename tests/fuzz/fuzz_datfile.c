// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: our own trace.dat v6 header walker (datfile_lost_events, the
 * CPUSTAT lost-event counts) and the per-CPU stats text parser. input_load()
 * reaches them only for files libtracecmd accepts; here every byte counts.
 */
#include "collect.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t lost, v;
	char *text;

	datfile_lost_events(fuzz_file(data, size), &lost);
	/* The stats parser takes a C string: the fuzz data up to its first NUL. */
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	cpustats_lost(text);
	cpustats_field(text, "overrun", &v);
	free(text);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: input_load(), the whole way a report reads a file it was
 * sent: content sniffing, then trace.dat (libtracecmd, our decoder, the v6
 * CPUSTAT reader), ftrace/perf text or the PPC report/debugfs forms, pairing
 * and the stats tables; then every renderer over what was loaded.
 */
#include "fuzz.h"
#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The size's low bit picks --by-sub, so both keyings get inputs. */
	struct input_opts o = {.types = fuzz_types(), .vcpu = -1, .with_sub = size & 1};
	const char *path = fuzz_file(data, size);
	struct input_result r;
	const char *note;

	input_result_init(&r);
	if (fuzz_input_load(path, &o, &r) == 0)
		fuzz_render(input_main_table(&r, &note), true);
	input_result_free(&r);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate(data, size, max_size, seed);
}

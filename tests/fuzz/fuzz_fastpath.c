// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: our own trace.dat record reader, which input_load() reaches
 * only after libtracecmd accepted the file: the v6 layout reader
 * (datfile_layout), the windowed page walker and CPU merge of the fast path
 * (tracedat_fast_*), and the ring-buffer page parser on a buffer of exactly
 * the input's size, so that ASan sees any read past a page.
 */
#include "collect.h"
#include "fuzz.h"
#include "source/collect-local.h"
#include "source/tracedat-local.h"

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu,
		     long long missed)
{
	const unsigned char *p = data;
	unsigned *sum = arg;

	/* Read every byte the reader says the record has. */
	for (int i = 0; i < size; i++)
		*sum += p[i];
	return 0;
}

static void pages(const uint8_t *data, size_t size)
{
	struct ringpage_info info;
	struct ringpage_cur c;
	struct ringpage_rec r;
	unsigned char *page = xmalloc(size);

	memcpy(page, data, size);
	for (int long_size = 4; long_size <= 8; long_size += 4) {
		ringpage_count(page, size, long_size, &info);
		if (ringpage_open(&c, page, size, long_size) == 0)
			while (ringpage_next(&c, &r) == 1)
				;
	}
	free(page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracedat_fast *f = tracedat_fast_open(fuzz_file(data, size));
	unsigned sum = 0;
	char e[256];

	if (f) {
		tracedat_fast_iterate(f, on_record, &sum, e, sizeof(e));
		tracedat_fast_close(f);
	}
	pages(data, size);
	return 0;
}

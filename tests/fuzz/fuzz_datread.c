// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: our own trace.dat readers, which input_load() reaches only
 * for files libtracecmd accepts (or, for the header, before it is asked):
 * the v6 header walker for lost-event counts (datfile_lost_events) and the
 * per-CPU stats text in it, the v6 layout reader and the fast path's
 * windowed page walker and CPU merge (tracedat_fast_*), and the ring-buffer
 * page parser on a buffer of exactly the input's size, so that ASan sees
 * any read past a page.
 */
#include "collect.h"
#include "fuzz.h"
#include "source/collect-local.h"
#include "source/tracedat-local.h"

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	const unsigned char *p = data;
	unsigned *sum = arg;

	/* Read every byte the reader says the record has. */
	for (int i = 0; i < size; i++)
		*sum += p[i];
	return 0;
}

/* The fuzz data as one ring-buffer page, and as a per-CPU stats text. */
static void buffers(const uint8_t *data, size_t size)
{
	struct ringpage_info info;
	struct ringpage_cur c;
	struct ringpage_rec r;
	unsigned char *page = xmalloc(size + 1);
	uint64_t v;

	memcpy(page, data, size);
	for (int long_size = 4; long_size <= 8; long_size += 4) {
		ringpage_count(page, size, long_size, &info);
		if (ringpage_open(&c, page, size, long_size) == 0)
			while (ringpage_next(&c, &r) == 1)
				;
	}
	/* The stats parser takes a C string: the data up to its first NUL. */
	page[size] = '\0';
	cpustats_lost((char *)page);
	cpustats_field((char *)page, "overrun", &v);
	free(page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct tracedat_fast *f = tracedat_fast_open(path);
	unsigned sum = 0;
	uint64_t lost;
	char e[256];

	datfile_lost_events(path, &lost);
	if (f) {
		tracedat_fast_iterate(f, on_record, &sum, e, sizeof(e));
		tracedat_fast_close(f);
	}
	buffers(data, size);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: our own JSON reports read back (report -i a.json), through
 * reportjson_parse(), then every renderer. Seeds: any `report -f json`.
 */
#include "fuzz.h"
#include "reportjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_table *x = stats_table_new(), *u = stats_table_new(), *s = stats_table_new();
	struct reportjson_meta m;
	char e[256];

	reportjson_sniff((const char *)data, size);
	if (reportjson_parse((const char *)data, size, "fuzz", x, u, s, &m, e, sizeof(e)) == 0) {
		fuzz_render(x, true);
		fuzz_render(u, true);
		fuzz_render(s, false);
		free(m.hosts);
	}
	stats_table_free(x);
	stats_table_free(u);
	stats_table_free(s);
	return 0;
}

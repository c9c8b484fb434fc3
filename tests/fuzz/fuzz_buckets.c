// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: bucket maps (exit_types/NAME.map, a user's --buckets FILE).
 * A map that parses is checked against the built-in exit types and applied
 * the way pairing applies it: to exits of every ISA, with each detail kind
 * alone and with its flag, and to names no table has.
 */
#include "bucket-map.h"
#include "fuzz.h"
#include "intern.h"

static void apply_all(struct bucket_map *m, const struct exit_types *types)
{
	static const char *const odd[] = {"", "UNKNOWN(0x83)", "*", "OTHER(HLT)"};

	for (size_t i = 0; i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];
		size_t n = t->nnames < 8 ? t->nnames : 8;

		for (size_t j = 0; j <= n + ARRAY_SIZE(odd) - 1; j++) {
			const char *reason = j < n ? t->names[j].name : intern(odd[j - n]);

			for (unsigned k = 0; k < KES_D_MAX; k++) {
				struct kes_details d = {.mask = k ? 1u << k : 0,
							.flags = j & 1 ? 1u << k : 0,
							.sub = 0x80,
							.has_sub = k != 0};

				bucket_map_apply(m, t->isa, reason, &d);
			}
		}
	}
	bucket_map_apply(m, intern("no_such_isa"), intern("HLT"), &(struct kes_details){0});
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bucket_map *m = bucket_map_parse((const char *)data, size, "fuzz", NULL, 0);
	char e[256];

	if (!m)
		return 0;
	bucket_map_name(m);
	bucket_map_describe(m);
	bucket_map_check(m, fuzz_types(), e, sizeof(e));
	apply_all(m, fuzz_types());
	bucket_map_free(m);
	return 0;
}

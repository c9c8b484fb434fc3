/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer (bpftool's json_writer idea): it tracks
 * nesting and commas so no caller builds JSON by hand. Private to render/.
 */
#ifndef KES_RENDER_JSONW_H
#define KES_RENDER_JSONW_H

#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>

struct jsonw {
	FILE *f;
	int depth;
	bool first[32]; /* per level: no element written yet */
	bool pretty;
};

void jsonw_start(struct jsonw *w, FILE *f, bool pretty);
void jsonw_end(struct jsonw *w);		       /* final newline */
void jsonw_obj_open(struct jsonw *w, const char *key); /* key NULL inside arrays */
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w, const char *key);
void jsonw_arr_close(struct jsonw *w);
void jsonw_str(struct jsonw *w, const char *key, const char *val); /* val NULL -> null */
void jsonw_u64(struct jsonw *w, const char *key, uint64_t val);
void jsonw_i64(struct jsonw *w, const char *key, int64_t val);
void jsonw_num(struct jsonw *w, const char *key, double val); /* NAN -> null */
void jsonw_bool(struct jsonw *w, const char *key, bool val);
void jsonw_null(struct jsonw *w, const char *key);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer (bpftool's json_writer idea): it tracks nesting and
 * commas so no caller builds JSON by hand. render/ writes reports and diffs
 * with it, ui/ top's --log --json lines, cli/ the errors of JSON mode.
 *
 * Numbers read back exactly: integers (counts, nanoseconds) are printed as
 * integers, doubles as the shortest decimal that parses back to the same
 * double (what Python's repr() prints), never -0; NAN and infinities are
 * null.
 */
#ifndef KES_JSONW_H
#define KES_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

struct jsonw {
	FILE *f;
	int depth;
	bool first[JSONW_MAX_DEPTH]; /* per level: no element written yet */
	bool flat[JSONW_MAX_DEPTH];  /* per level: on one line ({"a": 1, "b": 2}) */
	bool pretty;		     /* one element per line, indented, but in flat levels */
};

void jsonw_start(struct jsonw *w, FILE *f, bool pretty);
void jsonw_end(struct jsonw *w); /* final newline */
/* key NULL inside arrays; _flat: this object or array on one line, whatever it holds */
void jsonw_obj_open(struct jsonw *w, const char *key);
void jsonw_obj_open_flat(struct jsonw *w, const char *key);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w, const char *key);
void jsonw_arr_open_flat(struct jsonw *w, const char *key);
void jsonw_arr_close(struct jsonw *w);
void jsonw_str(struct jsonw *w, const char *key, const char *val); /* val NULL -> null */
void jsonw_u64(struct jsonw *w, const char *key, uint64_t val);
void jsonw_i64(struct jsonw *w, const char *key, int64_t val);
void jsonw_f64(struct jsonw *w, const char *key, double val); /* NAN -> null */
void jsonw_bool(struct jsonw *w, const char *key, bool val);
void jsonw_null(struct jsonw *w, const char *key);

/* {"error": "msg"} and a newline, flushed: JSON mode's one line for an error. */
void jsonw_error(FILE *f, const char *msg);

#endif

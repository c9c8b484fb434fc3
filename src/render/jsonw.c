// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "common.h"
#include "jsonw.h"

static void indent(struct jsonw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Comma, indentation and key before any value. */
static void pre(struct jsonw *w, const char *key)
{
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputc(',', w->f);
		w->first[w->depth] = false;
		indent(w);
	}
	if (key) {
		json_quote(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	}
}

void jsonw_start(struct jsonw *w, FILE *f, bool pretty)
{
	*w = (struct jsonw){.f = f, .pretty = pretty};
}

void jsonw_end(struct jsonw *w)
{
	fputc('\n', w->f);
}

static void open_(struct jsonw *w, const char *key, char c)
{
	pre(w, key);
	fputc(c, w->f);
	if (w->depth < 31)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->f);
}

void jsonw_obj_open(struct jsonw *w, const char *key)
{
	open_(w, key, '{');
}

void jsonw_obj_close(struct jsonw *w)
{
	close_(w, '}');
}

void jsonw_arr_open(struct jsonw *w, const char *key)
{
	open_(w, key, '[');
}

void jsonw_arr_close(struct jsonw *w)
{
	close_(w, ']');
}

void jsonw_str(struct jsonw *w, const char *key, const char *val)
{
	pre(w, key);
	if (val)
		json_quote(w->f, val);
	else
		fputs("null", w->f);
}

void jsonw_u64(struct jsonw *w, const char *key, uint64_t val)
{
	pre(w, key);
	fprintf(w->f, "%llu", (unsigned long long)val);
}

void jsonw_i64(struct jsonw *w, const char *key, int64_t val)
{
	pre(w, key);
	fprintf(w->f, "%lld", (long long)val);
}

void jsonw_num(struct jsonw *w, const char *key, double val)
{
	pre(w, key);
	if (isnan(val) || isinf(val))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.6g", val);
}

void jsonw_bool(struct jsonw *w, const char *key, bool val)
{
	pre(w, key);
	fputs(val ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w, const char *key)
{
	pre(w, key);
	fputs("null", w->f);
}

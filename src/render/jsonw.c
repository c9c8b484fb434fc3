// SPDX-License-Identifier: GPL-2.0
/* The one JSON writer: nesting, commas, quoting and numbers that read back exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonw.h"
#include "term.h"

/*
 * A JSON string with its quotes: the one place strings are escaped. A byte
 * that is no UTF-8 (a name from a hostile file) becomes the text \xNN, as
 * on a terminal: JSON must be UTF-8, and one such byte fails the document.
 * Every character a terminal would act on or hide (C0 and C1 controls, DEL,
 * bidi and zero-width marks: term_char_len()) is written as its \uXXXX: the
 * same string to a JSON reader, nothing raw for a terminal that shows the
 * file (C1's CSI, U+009B, was written as its two raw bytes).
 */
static void quote(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		uint32_t cp;
		size_t n = term_utf8_len(s, &cp);

		if (!n) {
			fprintf(f, "\\\\x%02x", c);
			n = 1;
		} else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (!term_char_len(s))
			fprintf(f, "\\u%04x", (unsigned)cp); /* all below U+10000 */
		else
			fwrite(s, 1, n, f);
		s += n;
	}
	fputc('"', f);
}

/*
 * The shortest text of v that reads back as v ("0.1", "7795.019", "1e-05").
 * 15 significant digits are always exact for what they print, 17 always
 * read back: the first of 15, 16, 17 that reads back is the shortest such
 * text (%g drops trailing zeros), the closest to v of its length.
 */
static const char *f64_text(char *buf, size_t len, double v)
{
	if (v == 0)
		v = 0; /* -0 reads back as the integer 0: print "0" */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static bool flat_here(const struct jsonw *w)
{
	return !w->pretty || w->flat[w->depth];
}

static void indent(struct jsonw *w)
{
	if (flat_here(w))
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
			fputs(w->pretty && w->flat[w->depth] ? ", " : ",", w->f);
		w->first[w->depth] = false;
		indent(w);
	}
	if (key) {
		quote(w->f, key);
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

static void open_(struct jsonw *w, const char *key, char c, bool flat)
{
	pre(w, key);
	fputc(c, w->f);
	flat = flat || w->flat[w->depth]; /* inside a flat level, everything is */
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
	w->flat[w->depth] = flat;
}

static void close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty && !w->flat[w->depth + 1])
		indent(w);
	fputc(c, w->f);
}

void jsonw_obj_open(struct jsonw *w, const char *key)
{
	open_(w, key, '{', false);
}

void jsonw_obj_open_flat(struct jsonw *w, const char *key)
{
	open_(w, key, '{', true);
}

void jsonw_obj_close(struct jsonw *w)
{
	close_(w, '}');
}

void jsonw_arr_open(struct jsonw *w, const char *key)
{
	open_(w, key, '[', false);
}

void jsonw_arr_open_flat(struct jsonw *w, const char *key)
{
	open_(w, key, '[', true);
}

void jsonw_arr_close(struct jsonw *w)
{
	close_(w, ']');
}

void jsonw_str(struct jsonw *w, const char *key, const char *val)
{
	pre(w, key);
	if (val)
		quote(w->f, val);
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

void jsonw_f64(struct jsonw *w, const char *key, double val)
{
	char buf[40];

	pre(w, key);
	if (isnan(val) || isinf(val))
		fputs("null", w->f);
	else
		fputs(f64_text(buf, sizeof(buf), val), w->f);
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

void jsonw_error(FILE *f, const char *msg)
{
	fputs("{\"error\": ", f);
	quote(f, msg);
	fputs("}\n", f);
	fflush(f);
}

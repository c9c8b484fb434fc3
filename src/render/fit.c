// SPDX-License-Identifier: GPL-2.0
/*
 * Tables that fit a width (80 columns unless the terminal, COLUMNS or
 * --width says more). A table is cells already formatted by its renderer;
 * this file only lays them out: each column as wide as its widest cell, the
 * first (the name) cut in the middle when it must be, so that two names
 * stay two (KVM_EXIT_X86_RDMSR and KVM_EXIT_X86_WRMSR never read alike),
 * and columns that still do not fit go to a further panel that repeats the
 * name column. No value is cut: a cell is printed whole or in a later panel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "render-local.h"

#define NAME_MIN 12 /* the name column is never cut below this */

void render_fmt_scaled(char *buf, size_t len, double ns, double unit_ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e7)
		snprintf(buf, len, "%.*f", unit_ns > 1 ? 2 : 0, ns / unit_ns);
	else if (ns < 1e10)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

/* Bytes of s that hold at most n characters, cut on a UTF-8 character boundary. */
static size_t head_bytes(const char *s, size_t n)
{
	size_t i = 0;

	for (size_t c = 0; s[i] && c < n; c++)
		for (i++; ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	return i;
}

static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Characters in the first n bytes of s. */
static size_t chars_n(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n && s[i]; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* s in w characters: whole, or `head` of its first characters, '~', and its end. */
static char *cut(const char *s, size_t w, size_t head)
{
	size_t n = chars(s), hb, tb;
	char *o;

	if (n <= w)
		return xstrdup(s);
	if (head > w - 1)
		head = w - 1;
	hb = head_bytes(s, head);
	tb = strlen(s) - head_bytes(s, n - (w - 1 - head));
	o = xcalloc(1, hb + tb + 2);
	memcpy(o, s, hb);
	o[hb] = '~';
	memcpy(o + hb + 1, s + strlen(s) - tb, tb);
	return o;
}

/* Do the cut names of distinct names stay distinct? */
static bool distinct(char **full, char **shown, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(shown[i], shown[j]) && strcmp(full[i], full[j]))
				return false;
	return true;
}

/*
 * Names in w characters. Names of one table share their beginning
 * (KVM_EXIT_), so the first cut tried keeps a third of the start and the
 * rest of the end; if two distinct names then read alike, other splits are
 * tried until none do. Returns false when no split of w keeps them apart.
 */
static bool cut_names(char **full, char **shown, size_t n, size_t w)
{
	size_t first = (w - 1) / 3;

	for (size_t k = 0; k < w; k++) {
		size_t head = (first + k) % w;

		for (size_t i = 0; i < n; i++) {
			free(shown[i]);
			shown[i] = cut(full[i], w, head);
		}
		if (distinct(full, shown, n))
			return true;
	}
	return false;
}

struct fit_table *fit_new(size_t ncols)
{
	struct fit_table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->head = xcalloc(ncols, sizeof(*t->head));
	t->right = xcalloc(ncols, sizeof(*t->right));
	return t;
}

void fit_col(struct fit_table *t, size_t c, const char *head, bool right)
{
	t->head[c] = head;
	t->right[c] = right;
}

char **fit_row(struct fit_table *t)
{
	t->cells = xrealloc(t->cells, (t->nrows + 1) * sizeof(*t->cells));
	t->cells[t->nrows] = xcalloc(t->ncols, sizeof(char *));
	return t->cells[t->nrows++];
}

void fit_set(char **row, size_t c, const char *s)
{
	free(row[c]);
	row[c] = xstrdup(s ? s : "");
}

void fit_free(struct fit_table *t)
{
	if (!t)
		return;
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++)
			free(t->cells[r][c]);
		free(t->cells[r]);
	}
	free(t->cells);
	free(t->head);
	free(t->right);
	free(t);
}

static size_t cell_width(const struct fit_table *t, size_t c)
{
	size_t w = chars(t->head[c]);

	for (size_t r = 0; r < t->nrows; r++)
		if (t->cells[r][c] && chars(t->cells[r][c]) > w)
			w = chars(t->cells[r][c]);
	return w;
}

static void pad(FILE *f, const char *s, size_t w, bool right)
{
	size_t n = chars(s);

	if (right)
		fprintf(f, "%*s%s", (int)(w > n ? w - n : 0), "", s);
	else
		fprintf(f, "%s%*s", s, (int)(w > n ? w - n : 0), "");
}

/* Columns [c0, c1) after the name column, one line per row; no trailing blanks. */
static void panel(FILE *f, const struct fit_table *t, char **names, size_t nw, const size_t *cw,
		  size_t c0, size_t c1)
{
	for (long r = -1; r < (long)t->nrows; r++) {
		char line[4096];
		FILE *m = fmemopen(line, sizeof(line), "w");
		size_t len;

		if (!m)
			return;
		pad(m, r < 0 ? t->head[0] : names[r], nw, false);
		for (size_t c = c0; c < c1; c++) {
			fputc(' ', m);
			pad(m, r < 0 ? t->head[c] : t->cells[r][c] ? t->cells[r][c] : "", cw[c],
			    t->right[c]);
		}
		fclose(m);
		line[sizeof(line) - 1] = '\0';
		len = strlen(line);
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		fprintf(f, "%s\n", line);
	}
}

/* How many panels columns of widths cw[1..] need after a name column of nw. */
static size_t panels(const size_t *cw, size_t ncols, size_t nw, size_t width)
{
	size_t n = 1, used = nw;

	for (size_t c = 1; c < ncols; c++) {
		if (used + 1 + cw[c] > width && used > nw) {
			n++;
			used = nw;
		}
		used += 1 + cw[c];
	}
	return n;
}

/*
 * The name column's width: the widest that needs no more panels than the
 * narrowest (NAME_MIN) would, so names are cut only to save a panel.
 */
static size_t name_col(const struct fit_table *t, const size_t *cw, size_t width)
{
	size_t nat = cell_width(t, 0), lo = chars(t->head[0]), best;

	if (lo < NAME_MIN)
		lo = NAME_MIN < nat ? NAME_MIN : nat;
	best = panels(cw, t->ncols, lo, width);
	for (size_t nw = nat; nw > lo; nw--)
		if (panels(cw, t->ncols, nw, width) <= best && nw < width)
			return nw;
	return lo;
}

void fit_print(FILE *f, const struct fit_table *t, size_t width)
{
	size_t *cw = xcalloc(t->ncols, sizeof(*cw)), nw;
	char **full = xcalloc(t->nrows + 1, sizeof(*full));
	char **names = xcalloc(t->nrows + 1, sizeof(*names));

	for (size_t c = 1; c < t->ncols; c++)
		cw[c] = cell_width(t, c);
	nw = name_col(t, cw, width);
	for (size_t r = 0; r < t->nrows; r++)
		full[r] = t->cells[r][0] ? t->cells[r][0] : "";
	while (!cut_names(full, names, t->nrows, nw) && nw < cell_width(t, 0))
		nw++; /* no cut keeps them apart: a wider name column, more columns spill */
	for (size_t c0 = 1;;) {
		size_t used = nw, c1 = c0;

		while (c1 < t->ncols && (c1 == c0 || used + 1 + cw[c1] <= width))
			used += 1 + cw[c1++];
		if (c0 > 1)
			fputc('\n', f);
		panel(f, t, names, nw, cw, c0, c1);
		if (c1 >= t->ncols)
			break;
		c0 = c1;
	}
	for (size_t r = 0; r < t->nrows; r++)
		free(names[r]);
	free(names);
	free(full);
	free(cw);
}

/* text after prefix, broken at blanks into lines of at most width; a word too long is cut. */
void fit_wrap(FILE *f, const char *prefix, const char *text, size_t width)
{
	size_t pl = chars(prefix), col = pl;
	const char *s = text;

	fputs(prefix, f);
	if (width <= pl + 8)
		width = pl + 8;
	while (*s) {
		size_t wl = strcspn(s, " ");

		if (col > pl && col + 1 + chars_n(s, wl) > width) {
			fprintf(f, "\n%*s", (int)pl, "");
			col = pl;
			continue;
		}
		if (col > pl) {
			fputc(' ', f);
			col++;
		}
		while (chars_n(s, wl) > width - col) {
			size_t b = head_bytes(s, width - col);

			fwrite(s, 1, b, f);
			fprintf(f, "\n%*s", (int)pl, "");
			s += b;
			wl -= b;
			col = pl;
		}
		fwrite(s, 1, wl, f);
		col += chars_n(s, wl);
		s += wl;
		while (*s == ' ')
			s++;
	}
	fputc('\n', f);
}

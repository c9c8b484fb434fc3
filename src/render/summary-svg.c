// SPDX-License-Identifier: GPL-2.0
/*
 * report --svg of statistics without histograms (a saved PPC report, a
 * KVM-PPC timing dump, others' tables): what they do say, drawn. One line per
 * exit reason, largest count first: min to max on a log time axis, a dot at
 * the average, the count and average beside it. (The histogram panels need
 * buckets these inputs never had; the picture drew nothing and said "16
 * more rows not drawn".) The numbers are in data- attributes, as in
 * report-svg.c, for the tests to read back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "render-local.h"

#define SW	   1000
#define LABEL_W	   170 /* the reason's name */
#define PLOT_X0	   (LABEL_W + 20)
#define PLOT_W	   560
#define ROW_H	   22
#define TOP	   90
#define MAX_ROWS   40

static int by_count(const void *pa, const void *pb)
{
	const struct stats_row *a = *(const struct stats_row *const *)pa;
	const struct stats_row *b = *(const struct stats_row *const *)pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->key.name, b->key.name);
}

static void fmt_time(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.3gns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g\xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
}

struct saxis {
	double lo, hi; /* log10 ns, whole decades */
};

static double sx(const struct saxis *a, double ns)
{
	double l = log10(ns > 1 ? ns : 1);

	return PLOT_X0 + (l - a->lo) / (a->hi - a->lo) * PLOT_W;
}

/* Decade ticks with their times, and a faint line down the rows at each. */
static void saxis_draw(FILE *f, const struct saxis *a, int y0, int y1)
{
	char t[24];

	for (double d = a->lo; d <= a->hi + 1e-9; d++) {
		double x = sx(a, pow(10, d));

		fmt_time(t, sizeof(t), pow(10, d));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" font-size=\"10\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, y0, x, y1, x, y1 + 14, t);
	}
}

static void srow(FILE *f, const struct stats_row *r, const struct saxis *a, int y, double unit_ns)
{
	char buf[160], avg[24];
	double mn = r->min * unit_ns, mx = r->max * unit_ns, av = r->avg * unit_ns;
	const char *name = render_row_name(r, buf, sizeof(buf));

	fmt_time(avg, sizeof(avg), av);
	fprintf(f, "<g class=\"summary-row\" data-reason=\"");
	svg_text(f, name);
	fprintf(f, "\" data-count=\"%llu\" data-min-ns=\"%.17g\" data-avg-ns=\"%.17g\" "
		   "data-max-ns=\"%.17g\">\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
		(unsigned long long)r->timed, mn, av, mx, LABEL_W, y + 4);
	svg_text(f, name);
	fprintf(f,
		"</text><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#4e79a7\" "
		"stroke-width=\"3\"/><circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#e15759\"/>"
		"<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#333\">%llu, avg %s</text>\n</g>\n",
		sx(a, mn), y, sx(a, mx > mn ? mx : mn + 1), y, sx(a, av), y, PLOT_X0 + PLOT_W + 10,
		y + 4, (unsigned long long)r->timed, avg);
}

int render_summary_svg(FILE *f, const struct render_svg *s)
{
	const struct stats_row **r = xcalloc(s->v->nrows + 1, sizeof(*r));
	size_t n = 0;
	double lo = INFINITY, hi = 0;
	struct saxis a;
	int h;

	for (size_t i = 0; i < s->v->nrows; i++)
		if (s->v->rows[i].timed)
			r[n++] = &s->v->rows[i];
	qsort(r, n, sizeof(*r), by_count);
	size_t shown = n < MAX_ROWS ? n : MAX_ROWS;
	for (size_t i = 0; i < shown; i++) {
		lo = fmin(lo, r[i]->min * s->unit_ns);
		hi = fmax(hi, r[i]->max * s->unit_ns);
	}
	a.lo = shown ? floor(log10(lo > 1 ? lo : 1)) : 0;
	a.hi = shown ? ceil(log10(hi > 1 ? hi : 1)) : 1;
	if (a.hi <= a.lo)
		a.hi = a.lo + 1;
	h = TOP + (int)shown * ROW_H + 50;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"12\" y=\"26\" font-size=\"18\" font-weight=\"bold\">Exit handling time "
		"by reason: min, average, max</text>\n<text x=\"12\" y=\"46\" font-size=\"12\" "
		"fill=\"#333\">",
		SW, h, SW, h);
	svg_text(f, s->title);
	fprintf(f, " \xe2\x80\x94 statistics only, no histogram</text>\n<text x=\"12\" y=\"62\" "
		   "font-size=\"11\" fill=\"#666\">Each reason from its min to its max on a log "
		   "axis, the dot at its average; on the right its timed exits and average");
	if (n > shown)
		fprintf(f, "; %zu more rows not drawn", n - shown);
	if (s->note) {
		fputs(". ", f);
		svg_text(f, s->note);
	}
	fputs("</text>\n", f);
	saxis_draw(f, &a, TOP - 12, TOP + (int)shown * ROW_H - 8);
	for (size_t i = 0; i < shown; i++)
		srow(f, r[i], &a, TOP + (int)i * ROW_H, s->unit_ns);
	fputs("</svg>\n", f);
	free(r);
	return ferror(f) ? -1 : 0;
}

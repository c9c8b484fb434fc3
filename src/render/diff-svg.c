// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --svg FILE`: one static SVG, no scripts or external files, that a
 * browser shows as it is: per exit type two horizontal bars, the share of the
 * run's time in A and in B, the significance mark, and the totals.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "diff.h"
#include "diff-fmt.h"

#define W	960
#define LABEL_X 12
#define BAR_X	260
#define BAR_W	560
#define TOP	96
#define ROW_H	40
#define BAR_H	14
#define COLOR_A "#4e79a7"
#define COLOR_B "#f28e2b"

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* The axis ends at a round share just above the largest bar, so small shares stay visible. */
static double axis_max(const struct diff *d)
{
	double m = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		if (d->rows[i].a.pct > m)
			m = d->rows[i].a.pct;
		if (d->rows[i].b.pct > m)
			m = d->rows[i].b.pct;
	}
	static const double steps[] = {1, 2, 4, 8, 10, 20, 40, 60, 80, 100}; /* round quarters */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (m <= steps[i])
			return steps[i];
	return 100;
}

static void head(FILE *f, const struct diff_render_opts *o, int h)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		"font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"28\" font-size=\"18\" font-weight=\"bold\">"
		"Share of run time per exit type: A vs B</text>\n",
		W, h, W, h, LABEL_X);
	fprintf(f,
		"<rect x=\"%d\" y=\"44\" width=\"14\" height=\"14\" fill=\"" COLOR_A "\"/>"
		"<text x=\"%d\" y=\"56\">A: ",
		LABEL_X, LABEL_X + 20);
	xml_text(f, o->name_a);
	fprintf(f,
		"</text>\n<rect x=\"%d\" y=\"64\" width=\"14\" height=\"14\" fill=\"" COLOR_B
		"\"/><text x=\"%d\" y=\"76\">B: ",
		LABEL_X, LABEL_X + 20);
	xml_text(f, o->name_b);
	fputs("</text>\n", f);
}

static void grid(FILE *f, double xmax, int rows_h)
{
	for (int k = 0; k <= 4; k++) {
		double x = BAR_X + BAR_W * k / 4.0;
		fprintf(
		    f,
		    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
		    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%g%%</text>\n",
		    x, TOP - 6, x, TOP + rows_h, x, TOP + rows_h + 16, xmax * k / 4);
	}
}

static void bar(FILE *f, double y, double pct, double xmax, const char *color)
{
	double w = pct / xmax * BAR_W;

	fprintf(f,
		"<rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%.2f%%</text>\n",
		BAR_X, y, w, BAR_H, color, BAR_X + w + 4, y + BAR_H - 3, pct);
}

static void row(FILE *f, const struct diff *d, const struct diff_row *r, int i, double xmax)
{
	double y = TOP + i * ROW_H;

	fprintf(f, "<text x=\"%d\" y=\"%.1f\">", LABEL_X, y + ROW_H / 2.0 + 1);
	if (d->per_vcpu)
		fprintf(f, "vcpu%d ", r->vcpu);
	xml_text(f, r->name);
	if (r->status != DIFF_BOTH)
		fprintf(f, " (%s)", diff_status_name(r->status));
	else if (*diff_mark(r->p))
		fprintf(f, " <tspan font-weight=\"bold\">%s</tspan>", diff_mark(r->p));
	fputs("</text>\n", f);
	bar(f, y + 4, r->a.pct, xmax, COLOR_A);
	bar(f, y + 5 + BAR_H, r->b.pct, xmax, COLOR_B);
}

static void foot(FILE *f, const struct diff *d, int y)
{
	char c[32], ra[32], rb[32];

	diff_fmt_change(c, sizeof(c), d->total.change_pct);
	diff_fmt_runtime(ra, sizeof(ra), (double)d->total.sum_a);
	diff_fmt_runtime(rb, sizeof(rb), (double)d->total.sum_b);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\">exits %llu &#8594; %llu; time ~%s &#8594; ~%s (%s). "
		"* p &lt; 0.05, ** p &lt; 0.01 (Welch's t-test on the mean)</text>\n",
		LABEL_X, y, (unsigned long long)d->total.count_a,
		(unsigned long long)d->total.count_b, ra, rb, c);
}

int diff_render_svg(FILE *f, const struct diff *d, const struct diff_render_opts *o)
{
	int rows_h = (int)(d->nrows ? d->nrows : 1) * ROW_H;
	int h = TOP + rows_h + 56;
	double xmax = axis_max(d);

	head(f, o, h);
	grid(f, xmax, rows_h);
	if (!d->nrows)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no exits in either run</text>\n", BAR_X,
			TOP + 24);
	for (size_t i = 0; i < d->nrows; i++)
		row(f, d, &d->rows[i], (int)i, xmax);
	foot(f, d, TOP + rows_h + 44);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

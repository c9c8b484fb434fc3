// SPDX-License-Identifier: GPL-2.0
/*
 * `diff --svg FILE`: one static SVG, no scripts or external files, that a
 * browser shows as it is. Per exit type, three panels side by side, each
 * with A's bar over B's: the handling time (sum), the number of exits, and
 * the share of the run's time. Why all three: a share alone misleads when
 * the total changes (HLT's share can rise 0.65 % -> 8.29 % while its time
 * falls 29 %); the absolute panels say what got slower or more frequent.
 * Each panel has its own linear axis from 0 to a round value above its
 * largest bar, so bar lengths are proportional to the values within a panel.
 * Panels and bars carry their numbers as data-* attributes (tests read them).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "diff.h"
#include "render-local.h"

#define LABEL_X 12
#define PANEL_X 230 /* the first panel's axis */
#define PANEL_W 200 /* bar length at the axis's end */
#define PANEL_GAP 90 /* room for a bar's value after its end */
#define NPANELS 3
#define W	(PANEL_X + NPANELS * (PANEL_W + PANEL_GAP))
#define TOP	122
#define ROW_H	40
#define BAR_H	14
#define COLOR_A "#4e79a7"
#define COLOR_B "#f28e2b"

enum panel { P_TIME, P_COUNT, P_SHARE };

static const struct {
	const char *name, *title, *unit;
} panels[NPANELS] = {
    [P_TIME] = {"time", "handling time (sum)", "ns"},
    [P_COUNT] = {"count", "exits", "exits"},
    [P_SHARE] = {"share", "share of run time", "%"},
};

static double value(const struct diff_side *s, enum panel p)
{
	switch (p) {
	case P_TIME:
		return (double)s->sum;
	case P_COUNT:
		return (double)s->count;
	default:
		return s->pct;
	}
}

/* 1, 2, 4, 6 or 8 times a power of ten, at least m: the axis's end (its quarters stay round). */
static double round_up(double m)
{
	static const double steps[] = {1, 2, 4, 6, 8, 10};
	double e;

	if (!(m > 0))
		return 1;
	e = pow(10, floor(log10(m)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (m <= steps[i] * e * (1 + 1e-12))
			return steps[i] * e;
	return 10 * e;
}

static double axis_max(const struct diff *d, enum panel p)
{
	double m = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		m = fmax(m, value(&d->rows[i].a, p));
		m = fmax(m, value(&d->rows[i].b, p));
	}
	m = round_up(m);
	return p == P_SHARE && m > 100 ? 100 : m;
}

static double panel_x(enum panel p)
{
	return PANEL_X + p * (PANEL_W + PANEL_GAP);
}

/* A value as a bar's label or a tick: time scaled to ns, us, ms or s. */
static void fmt_value(char *buf, size_t len, double v, enum panel p, bool tick)
{
	if (p == P_COUNT)
		snprintf(buf, len, "%.0f", v);
	else if (p == P_SHARE)
		snprintf(buf, len, tick ? "%g%%" : "%.2f%%", v);
	else if (v < 1e3)
		snprintf(buf, len, "%g ns", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.4g &#181;s", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.4g ms", v / 1e6);
	else
		snprintf(buf, len, "%.4g s", v / 1e9);
}

static void head(FILE *f, const struct render_diff_opts *o, int h)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		"font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"28\" font-size=\"18\" font-weight=\"bold\">"
		"Exit types, A vs B: handling time, exits, share of run time</text>\n",
		W, h, W, h, LABEL_X);
	fprintf(f,
		"<rect x=\"%d\" y=\"44\" width=\"14\" height=\"14\" fill=\"" COLOR_A "\"/>"
		"<text x=\"%d\" y=\"56\">A: ",
		LABEL_X, LABEL_X + 20);
	svg_text(f, o->name_a);
	fprintf(f,
		"</text>\n<rect x=\"%d\" y=\"64\" width=\"14\" height=\"14\" fill=\"" COLOR_B
		"\"/><text x=\"%d\" y=\"76\">B: ",
		LABEL_X, LABEL_X + 20);
	svg_text(f, o->name_b);
	fputs("</text>\n", f);
}

/*
 * A tick of an axis ending at xmax, in the one unit xmax calls for: "0 s,
 * 0.5 s, 1 s" (not "0 ns" then seconds), "0, 2M, 4M" (not 7-digit numbers
 * running into each other 50 px apart).
 */
static void fmt_tick(char *buf, size_t len, double v, double xmax, enum panel p)
{
	static const struct {
		double div;
		const char *unit;
	} time_units[] = {{1e9, " s"}, {1e6, " ms"}, {1e3, " &#181;s"}, {1, " ns"}},
	  count_units[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
	size_t i = 0;

	if (p == P_SHARE) {
		snprintf(buf, len, "%g%%", v);
		return;
	}
	if (p == P_COUNT) {
		while (i + 1 < 4 && xmax < count_units[i].div)
			i++;
		snprintf(buf, len, "%g%s", v / count_units[i].div, v ? count_units[i].unit : "");
		return;
	}
	while (i + 1 < 4 && xmax < time_units[i].div)
		i++;
	snprintf(buf, len, "%g%s", v / time_units[i].div, time_units[i].unit);
}

static void grid(FILE *f, enum panel p, double xmax, int rows_h)
{
	double x0 = panel_x(p);
	char tick[48];

	fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x0, TOP - 16,
		panels[p].title);
	for (int k = 0; k <= 4; k++) {
		double x = x0 + PANEL_W * k / 4.0;

		fmt_tick(tick, sizeof(tick), xmax * k / 4, xmax, p);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\" "
			"font-size=\"11\">%s</text>\n",
			x, TOP - 6, x, TOP + rows_h, x, TOP + rows_h + 16, tick);
	}
}

static void bar(FILE *f, const struct diff *d, const struct diff_row *r, enum panel p, char side,
		double y, double xmax)
{
	const struct diff_side *s = side == 'a' ? &r->a : &r->b;
	double v = value(s, p), x0 = panel_x(p), w = v / xmax * PANEL_W;
	char label[48];

	fmt_value(label, sizeof(label), v, p, false);
	fprintf(f, "<rect class=\"bar\" data-panel=\"%s\" data-side=\"%c\" data-name=\"",
		panels[p].name, side);
	svg_text(f, r->name);
	fprintf(f,
		"\" data-vcpu=\"%d\" data-value=\"%.17g\" x=\"%.1f\" y=\"%.1f\" width=\"%.4f\" "
		"height=\"%d\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
		d->per_vcpu ? r->vcpu : -1, v, x0, y, w, BAR_H, side == 'a' ? COLOR_A : COLOR_B,
		x0 + w + 4, y + BAR_H - 3, label);
}

static void row(FILE *f, const struct diff *d, const struct diff_row *r, int i,
		const double *xmax)
{
	double y = TOP + i * ROW_H;

	fprintf(f, "<text x=\"%d\" y=\"%.1f\">", LABEL_X, y + ROW_H / 2.0 + 1);
	if (d->per_vcpu)
		fprintf(f, "vcpu%d ", r->vcpu);
	svg_text(f, r->name);
	if (r->status != DIFF_BOTH)
		fprintf(f, " (%s)", diff_status_name(r->status));
	else if (*diff_mark(r->p))
		fprintf(f, " <tspan font-weight=\"bold\">%s</tspan>", diff_mark(r->p));
	fputs("</text>\n", f);
	for (int p = 0; p < NPANELS; p++) {
		bar(f, d, r, (enum panel)p, 'a', y + 4, xmax[p]);
		bar(f, d, r, (enum panel)p, 'b', y + 5 + BAR_H, xmax[p]);
	}
}

static void foot(FILE *f, const struct diff *d, int y)
{
	char c[32], ra[32], rb[32];

	diff_fmt_change(c, sizeof(c), d->total.change_pct);
	diff_fmt_runtime(ra, sizeof(ra), (double)d->total.sum_a);
	diff_fmt_runtime(rb, sizeof(rb), (double)d->total.sum_b);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\">exits %llu &#8594; %llu; vCPU time ~%s &#8594; ~%s (%s). "
		"* p &lt; 0.05, ** p &lt; 0.01 (Welch's t-test on the mean)</text>\n",
		LABEL_X, y, (unsigned long long)d->total.count_a,
		(unsigned long long)d->total.count_b, ra, rb, c);
}

int render_diff_svg(FILE *f, const struct diff *d, const struct render_diff_opts *o)
{
	int rows_h = (int)(d->nrows ? d->nrows : 1) * ROW_H;
	int h = TOP + rows_h + 56;
	double xmax[NPANELS];

	head(f, o, h);
	for (int p = 0; p < NPANELS; p++) {
		xmax[p] = axis_max(d, (enum panel)p);
		fprintf(f,
			"<g class=\"panel\" data-panel=\"%s\" data-unit=\"%s\" data-x0=\"%.1f\" "
			"data-x1=\"%.1f\" data-max=\"%.17g\">\n",
			panels[p].name, panels[p].unit, panel_x((enum panel)p),
			panel_x((enum panel)p) + PANEL_W, xmax[p]);
		grid(f, (enum panel)p, xmax[p], rows_h);
		fputs("</g>\n", f);
	}
	if (!d->nrows)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no exits in either run</text>\n", PANEL_X,
			TOP + 24);
	for (size_t i = 0; i < d->nrows; i++)
		row(f, d, &d->rows[i], (int)i, xmax);
	foot(f, d, TOP + rows_h + 44);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

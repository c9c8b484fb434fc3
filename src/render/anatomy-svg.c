// SPDX-License-Identifier: GPL-2.0
/*
 * report --svg --anatomy: under the histograms, one bar per reason, its
 * parts stacked by their share of the reason's time (stats/anatomy.c's
 * numbers), the whole run's last, a legend of the parts. Each segment
 * carries its part, share and mean as data- attributes and a <title>.
 */
#include "render-local.h"

#define ROW_H  22
#define BAR_X  150
#define HEAD_H 40
#define LEG_H  34

static const char *const colors[STATS_NPARTS] = {
    [STATS_PART_HANDLING] = "#4e79a7", [STATS_PART_RUNNABLE] = "#e15759",
    [STATS_PART_BLOCKED] = "#76b7b2",  [STATS_PART_POLLED] = "#59a14f",
    [STATS_PART_VMM] = "#f28e2b",	   [STATS_PART_IRQ] = "#b07aa1",
    [STATS_PART_SOFTIRQ] = "#9c755f",
};

int svg_anatomy_height(const struct stats_anatomy_view *v)
{
	return v ? HEAD_H + (int)(v->nrows + 1) * ROW_H + LEG_H : 0;
}

static void bar(FILE *f, const struct stats_anatomy_row *r, const char *name, int y, int w,
		const char *unit)
{
	double x = BAR_X;

	fprintf(f, "<text x=\"12\" y=\"%d\">", y + 15);
	svg_text(f, name);
	fprintf(f, "</text>\n<g class=\"anatomy-row\" data-name=\"");
	svg_text(f, name);
	fprintf(f, "\" data-split=\"%llu\">\n", (unsigned long long)r->split);
	for (int p = 0; p < STATS_NPARTS; p++) {
		double len = (double)w * r->part[p].share / 100.0;

		if (!(len > 0))
			continue;
		fprintf(f,
			"<rect class=\"part\" data-part=\"%s\" data-share=\"%.4f\" data-mean=\"%.4f\" "
			"x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s %.2f%%, "
			"mean %.2f %s</title></rect>\n",
			stats_part_name((enum stats_part)p), r->part[p].share, r->part[p].mean, x, y,
			len, ROW_H - 6, colors[p], stats_part_name((enum stats_part)p),
			r->part[p].share, r->part[p].mean, unit);
		x += len;
	}
	fputs("</g>\n", f);
}

void svg_anatomy(FILE *f, const struct stats_anatomy_view *v, int y0, int width)
{
	int w = width - BAR_X - 20, y = y0 + HEAD_H;
	char buf[256];

	fprintf(f,
		"<g class=\"anatomy\">\n<text x=\"12\" y=\"%d\" font-size=\"15\" "
		"font-weight=\"bold\">Where the handling time went (--anatomy)</text>\n"
		"<text x=\"12\" y=\"%d\" font-size=\"11\" fill=\"#666\">each reason's parts by their "
		"share of its time; %llu exits split, %llu left unsplit</text>\n",
		y0 + 18, y0 + 32, (unsigned long long)v->all.split,
		(unsigned long long)v->all.unsplit);
	for (size_t i = 0; i < v->nrows; i++, y += ROW_H) {
		struct stats_row sr = {.key = v->rows[i].key, .acc = v->rows[i].acc[STATS_NPARTS]};

		bar(f, &v->rows[i], render_row_name(&sr, buf, sizeof(buf)), y, w, v->unit);
	}
	bar(f, &v->all, "all", y, w, v->unit);
	y += ROW_H + 8;
	for (int p = 0, x = 12; p < STATS_NPARTS; p++, x += 110) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y, colors[p], x + 16, y + 11, stats_part_name((enum stats_part)p));
	}
	fputs("</g>\n", f);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * report --by-guest --svg: one horizontal bar per reason@function (the
 * guest functions' rows, stats_guest_table()), longest handling time first:
 * the bar is its share of the exits' handling time, the label says its exits
 * and their mean. Read at a glance: which guest code costs the host most.
 * Each bar carries its numbers as data- attributes and a <title>.
 */
#include <string.h>
#include "event.h"
#include "render-local.h"

#define W      960
#define LABEL  300
#define ROW_H  20
#define TOP    64
#define MAXROW 40 /* the rest is summed into one last line */

void render_guest_svg(FILE *f, const char *title, const struct stats_view *v, const char *unit)
{
	size_t n = 0, rest = 0;
	double top = 0, total = 0;

	for (size_t i = 0; i < v->nrows; i++) {
		if (!strcmp(v->rows[i].key.name, KES_TIMEINGUEST))
			continue;
		total += v->rows[i].sum;
		if (n < MAXROW) {
			n++;
			top = v->rows[i].sum > top ? v->rows[i].sum : top;
		} else {
			rest++;
		}
	}
	int h = TOP + (int)(n + (rest ? 1 : 0)) * ROW_H + 24;

	fprintf(
	    f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\">Handling time by guest "
	    "code (reason@function)</text>\n<text x=\"12\" y=\"44\">",
	    W, h, W, h);
	svg_text(f, title);
	fputs("</text>\n", f);
	int y = TOP;
	for (size_t i = 0, k = 0; i < v->nrows && k < n; i++) {
		const struct stats_row *r = &v->rows[i];
		double len = top > 0 ? (W - LABEL - 250) * r->sum / top : 0;
		double share = total > 0 ? 100.0 * r->sum / total : 0;

		if (!strcmp(r->key.name, KES_TIMEINGUEST))
			continue;
		k++;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL - 8, y + 14);
		svg_text(f, r->key.name);
		fprintf(f, "</text>\n<rect class=\"guest-bar\" data-name=\"");
		svg_text(f, r->key.name);
		fprintf(f,
			"\" data-count=\"%llu\" data-sum=\"%.3f\" data-share=\"%.3f\" x=\"%d\" "
			"y=\"%d\" "
			"width=\"%.2f\" height=\"%d\" fill=\"#4e79a7\"><title>",
			(unsigned long long)r->count, r->sum, share, LABEL, y + 2, len, ROW_H - 4);
		svg_text(f, r->key.name);
		fprintf(f, ": %llu exits, %.2f %s, %.1f%%</title></rect>\n",
			(unsigned long long)r->count, r->sum, unit, share);
		fprintf(f, "<text x=\"%.2f\" y=\"%d\">%.1f%% · %llu exits · avg %.2f %s</text>\n",
			LABEL + len + 6, y + 14, share, (unsigned long long)r->count, r->avg, unit);
		y += ROW_H;
	}
	if (rest)
		fprintf(f, "<text x=\"%d\" y=\"%d\">%zu more rows, not drawn</text>\n", LABEL,
			y + 14, rest);
	fputs("</svg>\n", f);
}

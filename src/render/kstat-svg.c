// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's histograms as one static SVG (report --svg of a statistics
 * snapshot): a panel per histogram with samples (halt_poll_success_hist,
 * halt_poll_fail_hist, halt_wait_hist... whatever the descriptors name),
 * one bar per bucket in the kernel's own bounds, counts on a log axis so the
 * tail stays visible, p50 and p99 marked. Each bar carries its bucket's
 * bounds and count in data- attributes, so a test reads the picture back.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include "render.h"
#include "render-local.h"

#define W	 1000
#define PANEL_H	 220
#define PLOT_X	 70
#define PLOT_W	 880
#define PLOT_Y	 50
#define PLOT_H	 130

/* The buckets drawn: from the first to the last non-empty one. */
static void span(const struct kstat_row *r, uint32_t *first, uint32_t *last)
{
	*first = r->d->size;
	*last = 0;
	for (uint32_t i = 0; i < r->d->size; i++)
		if (r->b[i]) {
			*first = i < *first ? i : *first;
			*last = i;
		}
}

static void bar(FILE *f, const struct kstat_row *r, uint32_t i, double x, double w, double y0,
		double maxl)
{
	uint64_t lo, hi;
	double h = r->b[i] ? (log10((double)r->b[i]) + 1) / (maxl + 1) * PLOT_H : 0;
	char his[24];

	kstat_bucket_range(r->d, i, &lo, &hi);
	if (hi == UINT64_MAX)
		snprintf(his, sizeof(his), "inf");
	else
		snprintf(his, sizeof(his), "%" PRIu64, hi);
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4e79a7\" "
		"data-lo=\"%" PRIu64 "\" data-hi=\"%s\" data-count=\"%" PRIu64 "\"/>\n",
		x, y0 + PLOT_H - h, w > 2 ? w - 1 : w, h, lo, his, r->b[i]);
}

static void mark(FILE *f, const char *what, double q, const struct kstat_row *r, uint32_t first,
		 double bw, double y0)
{
	uint64_t lo, hi;

	if (isnan(q))
		return;
	for (uint32_t i = first; i < r->d->size; i++) {
		kstat_bucket_range(r->d, i, &lo, &hi);
		if ((double)hi >= q || hi == UINT64_MAX) {
			double x = PLOT_X + (i - first + 0.5) * bw;

			fprintf(f,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#e15759\" "
				"data-%s=\"%.0f\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
				"fill=\"#e15759\">%s</text>\n",
				x, x, (int)y0, y0 + PLOT_H, what, q, x + 2, y0 + 10, what);
			return;
		}
	}
}

static void panel(FILE *f, const struct kstat_block *b, const struct kstat_row *r, double y)
{
	uint32_t first, last;
	uint64_t max = 0;
	char unit[32];

	span(r, &first, &last);
	for (uint32_t i = first; i <= last; i++)
		max = r->b[i] > max ? r->b[i] : max;
	double bw = (double)PLOT_W / (last - first + 1), maxl = log10((double)max);

	fprintf(f, "<g data-hist=\"");
	svg_text(f, r->d->name);
	fprintf(f, "\" data-samples=\"%" PRIu64 "\">\n<text x=\"10\" y=\"%.1f\" font-size=\"14\">",
		r->samples, y + 24);
	svg_text(f, r->d->name);
	fputs(" - ", f);
	svg_text(f, b->label);
	fprintf(f, ": %" PRIu64 " samples, bucket bounds in %s, counts on a log axis</text>\n",
		r->samples, kstat_unit_label(r->d, unit, sizeof(unit)));
	for (uint32_t i = first; i <= last; i++)
		bar(f, r, i, PLOT_X + (i - first) * bw, bw, y + PLOT_Y, maxl);
	mark(f, "p50", r->p50, r, first, bw, y + PLOT_Y);
	mark(f, "p99", r->p99, r, first, bw, y + PLOT_Y);
	for (uint32_t i = first; i <= last; i++) {
		uint64_t lo, hi;

		kstat_bucket_range(r->d, i, &lo, &hi);
		if ((i - first) % ((last - first) / 12 + 1))
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%" PRIu64 "</text>\n",
			PLOT_X + (i - first) * bw, y + PLOT_Y + PLOT_H + 14, lo);
	}
	fputs("</g>\n", f);
}

int render_kstat_svg(FILE *f, const struct kstat_view *v, const char *title)
{
	size_t n = 0;
	double y = 40;

	for (size_t i = 0; i < v->nb; i++)
		for (size_t j = 0; j < v->b[i].nrows; j++)
			n += kstat_is_hist(v->b[i].rows[j].d) && v->b[i].rows[j].samples;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"font-family=\"sans-serif\">\n<text x=\"10\" y=\"24\" font-size=\"16\">",
		W, 50 + (double)(n ? n : 1) * PANEL_H);
	svg_text(f, title ? title : "KVM statistics");
	fprintf(f, " - KVM's histograms (%zu with samples)</text>\n", n);
	if (!n)
		fputs("<text x=\"10\" y=\"70\">no histogram has samples in this span</text>\n", f);
	for (size_t i = 0; i < v->nb; i++)
		for (size_t j = 0; j < v->b[i].nrows; j++) {
			const struct kstat_row *r = &v->b[i].rows[j];

			if (!kstat_is_hist(r->d) || !r->samples)
				continue;
			panel(f, &v->b[i], r, y);
			y += PANEL_H;
		}
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

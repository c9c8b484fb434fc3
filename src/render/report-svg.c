// SPDX-License-Identifier: GPL-2.0
/*
 * `report --svg FILE`: one static SVG (no script, no external file). Per
 * exit reason, the largest twelve by count, a latency histogram: time on a
 * log axis (8 bins per power of two, folded from the stats histogram), the
 * count of each bin on a log axis (so the tail stays visible), p50 and p99
 * marked. Under them, the exits per second of each reason over the
 * recording (the eight largest), in equal time bins.
 *
 * The numbers are also in data- attributes (each bin's count and bounds,
 * each marker's value, each line's counts per bin), so a test can read the
 * picture back and check it against the report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "render-local.h"

#define W	  1000
#define PANEL_W	  480
#define PANEL_H	  200
#define PLOT_X	  56 /* plot area inside a panel */
#define PLOT_W	  404
#define PLOT_Y	  44
#define PLOT_H	  120
#define MAX_HIST  12
#define MAX_LINES 8
#define PER_OCT	  8 /* display bins per power of two */
#define TL_H	  300
#define TL_BINS	  120 /* at most this many time bins drawn: wider ones beyond */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
				      "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

/* "850ns", "5.46µs", "1.2ms", "3s": a time for a label. */
static void fmt_ns(char *buf, size_t len, double ns)
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

struct axis {
	double lo10, hi10; /* decades shown: log10 of ns */
};

static double ax_x(const struct axis *a, double ns)
{
	double l = log10(ns > 1 ? ns : 1);

	return PLOT_X + (l - a->lo10) / (a->hi10 - a->lo10) * PLOT_W;
}

static int cmp_count(const void *pa, const void *pb)
{
	const struct stats_row *a = *(const struct stats_row *const *)pa;
	const struct stats_row *b = *(const struct stats_row *const *)pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->key.name, b->key.name);
}

/* The rows with a histogram, largest count first; at most MAX_HIST. */
static size_t pick_rows(const struct stats_view *v, const struct stats_row **out)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nrows && n < v->nrows; i++)
		if (v->rows[i].acc && v->rows[i].acc->hist && v->rows[i].timed)
			out[n++] = &v->rows[i];
	if (n > 1)
		qsort(out, n, sizeof(*out), cmp_count);
	return n < MAX_HIST ? n : MAX_HIST;
}

/* Display bin k holds [2^(k/8), 2^((k+1)/8)) ns. */
#define NDISP (64 * PER_OCT + 1)

struct disp {
	uint64_t n[NDISP];
	uint64_t max;
};

/* The display bin of the stats bucket [lo, hi]: the one its middle falls in. */
static int disp_bin(uint64_t lo, uint64_t hi)
{
	double mid = ((double)lo + (double)hi) / 2;
	int k = mid < 1 ? 0 : (int)floor(log2(mid) * PER_OCT);

	return k < NDISP ? k : NDISP - 1;
}

static void to_disp(uint64_t lo, uint64_t hi, uint64_t n, void *arg)
{
	struct disp *d = arg;
	int k = disp_bin(lo, hi);

	d->n[k] += n;
	if (d->n[k] > d->max)
		d->max = d->n[k];
}

struct span {
	double lo, hi; /* ns */
};

/* A bucket's bar reaches from its display bin's start to its end. */
static void widen(uint64_t lo, uint64_t hi, uint64_t n, void *arg)
{
	struct span *sp = arg;
	int k = disp_bin(lo, hi);
	double b0 = pow(2, (double)k / PER_OCT), b1 = pow(2, (double)(k + 1) / PER_OCT);

	(void)n;
	if (b0 < sp->lo)
		sp->lo = b0;
	if (b1 > sp->hi)
		sp->hi = b1;
}

/*
 * Whole decades that hold every row's min and max and every bar: a bar's
 * display bin may start below the smallest sample or end above the largest
 * (a bucket's middle picks the bin), and a bar must not leave the plot.
 */
static struct axis time_axis(const struct stats_row *const *r, size_t n)
{
	struct span sp = {INFINITY, 0};
	struct axis a;

	for (size_t i = 0; i < n; i++) {
		if ((double)r[i]->acc->min < sp.lo)
			sp.lo = (double)r[i]->acc->min;
		if ((double)r[i]->acc->max > sp.hi)
			sp.hi = (double)r[i]->acc->max;
		stats_acc_foreach_bucket(r[i]->acc, widen, &sp);
	}
	a.lo10 = floor(log10(sp.lo > 1 ? sp.lo : 1));
	a.hi10 = ceil(log10(sp.hi > 1 ? sp.hi : 1) + 1e-9);
	if (a.hi10 <= a.lo10)
		a.hi10 = a.lo10 + 1;
	return a;
}

static void time_ticks(FILE *f, const struct axis *a, int y)
{
	for (double d = a->lo10; d <= a->hi10 + 1e-9; d++) {
		char t[24];
		double x = ax_x(a, pow(10, d));

		fmt_ns(t, sizeof(t), pow(10, d));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" "
			"fill=\"#555\">%s</text>\n",
			x, PLOT_Y, x, PLOT_Y + PLOT_H, x, PLOT_Y + PLOT_H + 13, t);
	}
}

/* About 6 px a character at font-size 10: enough to keep a label inside the plot. */
#define CHAR_W 6

/*
 * A quantile's dashed line and its label, on row dy. The label goes right of
 * the line, or left of it where it would leave the plot (a p99 near the
 * axis's end was clipped at the panel's edge).
 */
static void marker(FILE *f, const struct axis *a, const char *cls, double ns, const char *color,
		   int dy)
{
	char t[24];
	double x = ax_x(a, ns);
	size_t w;
	bool left;

	fmt_ns(t, sizeof(t), ns);
	w = (strlen(cls) + 1 + strlen(t)) * CHAR_W;
	left = x + 3 + (double)w > PLOT_X + PLOT_W;
	fprintf(f,
		"<line class=\"%s\" data-ns=\"%.1f\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
		"stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/>"
		"<text class=\"%s-label\" x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"%s\"%s>%s "
		"%s</text>\n",
		cls, ns, x, PLOT_Y - 4 + dy, x, PLOT_Y + PLOT_H, color, cls, left ? x - 3 : x + 3,
		PLOT_Y + 6 + dy, color, left ? " text-anchor=\"end\"" : "", cls, t);
}

/*
 * The count axis, log(1 + n): a tick at 0 and at each power of ten up to the
 * largest bin (ticked at 0 and the maximum only, it read as linear), the
 * maximum itself when it is not one.
 */
static void count_ticks(FILE *f, uint64_t max, double ly)
{
	for (double v = 1; v <= (double)max; v *= 10) {
		double y = PLOT_Y + PLOT_H - log10(1 + v) / ly * PLOT_H;
		char c[24];

		snprintf(c, sizeof(c), "%.0f", v);
		if (v >= 1e3)
			snprintf(c, sizeof(c), v >= 1e6 ? "%gM" : "%gk", v >= 1e6 ? v / 1e6 : v / 1e3);
		fprintf(f,
			"<line class=\"ytick\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"10\" fill=\"#555\">%s</text>\n",
			PLOT_X, y, PLOT_X + PLOT_W, y, PLOT_X - 4, y + 3, c);
	}
}

static void hist_panel(FILE *f, const struct stats_row *r, const struct axis *a, int px, int py,
		       double unit_ns)
{
	struct disp *d = xcalloc(1, sizeof(*d));
	double ly;
	char p50[24], p99[24];

	stats_acc_foreach_bucket(r->acc, to_disp, d);
	ly = log10(1 + (double)d->max);
	fmt_ns(p50, sizeof(p50), r->p50 * unit_ns);
	fmt_ns(p99, sizeof(p99), r->p99 * unit_ns);
	fprintf(f, "<g class=\"hist\" transform=\"translate(%d,%d)\" data-reason=\"", px, py);
	svg_text(f, r->key.name);
	fprintf(f,
		"\" data-count=\"%llu\" data-x0=\"%d\" data-x1=\"%d\" data-lo10=\"%g\" "
		"data-hi10=\"%g\">\n<rect width=\"%d\" height=\"%d\" fill=\"#fafafa\" "
		"stroke=\"#ccc\"/>\n<text x=\"10\" y=\"18\" font-weight=\"bold\">",
		(unsigned long long)r->timed, PLOT_X, PLOT_X + PLOT_W, a->lo10, a->hi10, PANEL_W,
		PANEL_H);
	svg_text(f, r->key.name);
	fprintf(f,
		"</text><text x=\"%d\" y=\"18\" text-anchor=\"end\" font-size=\"11\" fill=\"#333\">"
		"%llu timed exits, p50 %s, p99 %s</text>\n",
		PANEL_W - 10, (unsigned long long)r->timed, p50, p99);
	time_ticks(f, a, PLOT_Y + PLOT_H);
	for (int k = 0; k < NDISP; k++) {
		if (!d->n[k])
			continue;
		double lo = pow(2, (double)k / PER_OCT), hi = pow(2, (double)(k + 1) / PER_OCT);
		double x0 = ax_x(a, lo), x1 = ax_x(a, hi);
		double h = log10(1 + (double)d->n[k]) / ly * PLOT_H;

		fprintf(f,
			"<rect class=\"bar\" data-n=\"%llu\" data-lo-ns=\"%.1f\" x=\"%.2f\" "
			"y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#4e79a7\"/>\n",
			(unsigned long long)d->n[k], lo, x0, PLOT_Y + PLOT_H - h,
			x1 - x0 > 0.6 ? x1 - x0 - 0.3 : 0.6, h);
	}
	/* count axis: log(1 + n), ticked at 0 and each power of ten (count_ticks()) */
	fprintf(
	    f,
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">0</text>"
	    "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\" transform=\"rotate(-90 %d "
	    "%d)\" "
	    "text-anchor=\"middle\">exits (log)</text>\n",
	    PLOT_X, PLOT_Y, PLOT_X, PLOT_Y + PLOT_H, PLOT_X - 4, PLOT_Y + PLOT_H, 14,
	    PLOT_Y + PLOT_H / 2, 14, PLOT_Y + PLOT_H / 2);
	count_ticks(f, d->max, ly);
	marker(f, a, "p50", r->p50 * unit_ns, "#2e7d32", 0);
	marker(f, a, "p99", r->p99 * unit_ns, "#c62828", 12);
	fputs("</g>\n", f);
	free(d);
}

/* ------------------------------------------------------------------------ */
/* Timeline */

struct line {
	const char *name;
	uint64_t *n; /* per drawn bin */
	uint64_t total;
};

static int cmp_line(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Every name's counts, `merge` of the timeline's bins in one drawn bin. */
static size_t pick_lines(const struct stats_timeline *tl, size_t nbins, size_t merge,
			 struct line *l)
{
	size_t n = 0, nd = (nbins + merge - 1) / merge;
	const char *name;

	for (size_t i = 0; (name = stats_timeline_name(tl, i)); i++) {
		const uint64_t *c = stats_timeline_counts(tl, name);

		l[n] = (struct line){.name = name, .n = xcalloc(nd, sizeof(uint64_t))};
		for (size_t b = 0; b < nbins; b++) {
			l[n].n[b / merge] += c[b];
			l[n].total += c[b];
		}
		n++;
	}
	if (n > 1)
		qsort(l, n, sizeof(*l), cmp_line);
	return n;
}

/* 12, 1.5k, 230k, 4.1M */
static void fmt_count(char *buf, size_t len, double v)
{
	if (v < 1e3)
		snprintf(buf, len, "%.3g", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.3gM", v / 1e6);
}

/*
 * The timeline's time axis: ticks at round multiples (1, 2 or 5 x 10^k s,
 * 4 to 10 of them) in one unit, not at quarters of the span (0.0047 s,
 * 0.011 s).
 */
static void time_axis_ticks(FILE *f, double span, int x0, int pw, int y)
{
	static const double m[] = {1, 2, 5};
	double step = 1, div = 1;
	const char *unit = "s";

	if (!(span > 0))
		return;
	for (double e = pow(10, floor(log10(span)) - 1);; e *= 10) {
		size_t i;

		for (i = 0; i < 3 && span / (m[i] * e) > 10; i++)
			;
		if (i < 3) {
			step = m[i] * e;
			break;
		}
	}
	if (step < 1e-6)
		div = 1e-9, unit = "ns";
	else if (step < 1e-3)
		div = 1e-6, unit = "\xc2\xb5s";
	else if (step < 1)
		div = 1e-3, unit = "ms";
	for (double t = 0; t <= span * (1 + 1e-9); t += step) {
		double x = x0 + pw * t / span;

		fprintf(f,
			"<line class=\"xtick\" data-s=\"%g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\" stroke=\"#999\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"10\" fill=\"#555\">%g %s</text>\n",
			t, x, y, x, y + 4, x, y + 14, round(t / div * 1e6) / 1e6, unit);
	}
}

static void timeline(FILE *f, const struct stats_timeline *tl, int y0, const char *what)
{
	uint64_t start, width;
	size_t nbins = stats_timeline_bins(tl, &start, &width), n, all;
	size_t merge = (nbins + TL_BINS - 1) / TL_BINS;
	struct line l[256];
	double wsec, span, ymax = 0;
	const int x0 = 70, pw = 720, py = y0 + 40, ph = TL_H - 90;

	all = pick_lines(tl, nbins, merge, l);
	n = all < MAX_LINES ? all : MAX_LINES;
	nbins = (nbins + merge - 1) / merge;
	width *= merge;
	wsec = (double)width / 1e9;
	span = (double)nbins * wsec;
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < nbins; b++)
			if ((double)l[i].n[b] / wsec > ymax)
				ymax = (double)l[i].n[b] / wsec;
	fprintf(f,
		"<g class=\"timeline\" data-width-ns=\"%llu\" data-bins=\"%zu\">\n"
		"<text x=\"12\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">Exits per second by "
		"%s, over the recording (bins of %.3g s)</text>\n",
		(unsigned long long)width, nbins, y0 + 20, what, wsec);
	for (int k = 0; k <= 4; k++) {
		double y = py + ph - ph * k / 4.0;
		char c[16];

		fmt_count(c, sizeof(c), ymax * k / 4);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\" "
			"fill=\"#555\">%s</text>\n",
			x0, y, x0 + pw, y, x0 - 4, y + 3, c);
	}
	time_axis_ticks(f, span, x0, pw, py + ph);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">"
		"time since the first exit</text>\n",
		x0 + pw / 2, py + ph + 30);
	for (size_t i = 0; i < n; i++) {
		const char *c = palette[i % ARRAY_SIZE(palette)];

		fprintf(f, "<polyline class=\"rate\" data-reason=\"");
		svg_text(f, l[i].name);
		fputs("\" data-counts=\"", f);
		for (size_t b = 0; b < nbins; b++)
			fprintf(f, "%s%llu", b ? " " : "", (unsigned long long)l[i].n[b]);
		fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
		/* steps: each bin's rate held across the bin */
		for (size_t b = 0; b < nbins; b++) {
			double y = py + ph - (ymax > 0 ? (double)l[i].n[b] / wsec / ymax * ph : 0);

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0 + pw * (double)b / (double)nbins, y,
				x0 + pw * (double)(b + 1) / (double)nbins, y);
		}
		fprintf(f,
			"\"/>\n<rect x=\"%d\" y=\"%zu\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%zu\" font-size=\"11\">",
			x0 + pw + 16, (size_t)py + 18 * i, c, x0 + pw + 32,
			(size_t)py + 18 * i + 10);
		svg_text(f, l[i].name);
		fprintf(f, " (%llu)</text>\n", (unsigned long long)l[i].total);
	}
	if (all > n)
		fprintf(
		    f, "<text x=\"%d\" y=\"%zu\" font-size=\"11\" fill=\"#666\">+%zu more</text>\n",
		    x0 + pw + 16, (size_t)py + 18 * n + 10, all - n);
	for (size_t i = 0; i < all; i++)
		free(l[i].n);
	fputs("</g>\n", f);
}

int render_report_svg(FILE *f, const struct render_svg *s)
{
	const struct stats_row **r = xcalloc(s->v->nrows + 1, sizeof(*r));
	size_t n = pick_rows(s->v, r), prow = (n + 1) / 2;

	/* statistics only (a saved report): their min, average and max, drawn apart */
	if (!n && s->v->nrows) {
		free(r);
		return render_summary_svg(f, s);
	}
	uint64_t st, wd;
	bool has_tl = s->tl && stats_timeline_bins(s->tl, &st, &wd) > 0;
	int top = 70, h = top + (int)prow * (PANEL_H + 14) + (has_tl ? TL_H : 40);
	int an_y = h;

	h += svg_anatomy_height(s->anatomy);
	struct axis a = n ? time_axis(r, n) : (struct axis){0, 1};

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"12\" y=\"26\" font-size=\"18\" font-weight=\"bold\">Exit handling time "
		"by reason</text>\n<text x=\"12\" y=\"46\" font-size=\"12\" fill=\"#333\">",
		W, h, W, h);
	svg_text(f, s->title);
	fprintf(f, " \xe2\x80\x94 exits: %s; time on a log axis, %d bins per power of two",
		s->source, PER_OCT);
	if (s->v->nrows > n)
		fprintf(f, "; %zu more rows not drawn", s->v->nrows - n);
	fputs("</text>\n", f);
	if (s->note) {
		fputs("<text x=\"12\" y=\"62\" font-size=\"11\" fill=\"#666\">", f);
		svg_text(f, s->note);
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < n; i++)
		hist_panel(f, r[i], &a, 12 + (int)(i % 2) * (PANEL_W + 16),
			   top + (int)(i / 2) * (PANEL_H + 14), s->unit_ns);
	if (has_tl)
		timeline(f, s->tl, top + (int)prow * (PANEL_H + 14),
			 s->tl_by_reason ? "exit reason (before the bucket map)" : "reason");
	else
		fprintf(f,
			"<text x=\"12\" y=\"%d\" fill=\"#666\">No timeline: this input has no "
			"timestamps (a saved or JSON report).</text>\n",
			top + (int)prow * (PANEL_H + 14) + 20);
	if (s->anatomy)
		svg_anatomy(f, s->anatomy, an_y, W);
	fputs("</svg>\n", f);
	free(r);
	return ferror(f) ? -1 : 0;
}

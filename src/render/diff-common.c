// SPDX-License-Identifier: GPL-2.0
/* What every diff renderer shares: the format switch and number formatting. */
#include <math.h>
#include <stdio.h>
#include "diff.h"
#include "render-local.h"

void diff_fmt_time(char *buf, size_t len, double ns, int prec, const struct render_diff_opts *o)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, ns / o->unit_ns);
}

void diff_fmt_change(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f%%", pct);
}

void diff_fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
}

const char *diff_status_name(enum diff_status s)
{
	switch (s) {
	case DIFF_NEW:
		return "new";
	case DIFF_GONE:
		return "gone";
	case DIFF_BOTH:
		break;
	}
	return "both";
}

/*
 * The PPC reports' "=> ~1:57 runtime": minutes and seconds of a sum of ns.
 * Short runs (the tests' are a fraction of a second) keep milliseconds.
 */
void diff_fmt_runtime(char *buf, size_t len, double ns)
{
	double s = ns / 1e9;

	if (!(s >= 0))
		snprintf(buf, len, "-");
	else if (s < 10)
		snprintf(buf, len, "0:%06.3f", s);
	else {
		unsigned long long r = (unsigned long long)llround(s);
		snprintf(buf, len, "%llu:%02llu", r / 60, r % 60);
	}
}

int render_diff(FILE *f, const struct diff *d, enum render_format fmt,
		const struct render_diff_opts *o)
{
	switch (fmt) {
	case RENDER_CSV:
		return render_diff_csv(f, d, o);
	case RENDER_JSON:
		return render_diff_json(f, d, o);
	case RENDER_PPC:
		return render_diff_ppc(f, d, o);
	case RENDER_TABLE:
		break;
	}
	return render_diff_table(f, d, o);
}

void diff_fmt_spans(char *buf, size_t len, const struct render_diff_opts *o)
{
	char a[32], b[32];

	buf[0] = 0;
	if (!o->wall_known[0] || !o->wall_known[1])
		return;
	render_duration(a, sizeof(a), (double)o->wall_ns[0] / 1e9);
	render_duration(b, sizeof(b), (double)o->wall_ns[1] / 1e9);
	snprintf(buf, len, "; trace spans %s -> %s", a, b);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text format 0.0.4 and OpenMetrics 1.0.0
 * (prometheus.io/docs/instrumenting/exposition_formats, the OpenMetrics
 * spec). The two differ in the family names of TYPE lines (OpenMetrics names
 * a counter family without _total and an info family without _info), in the
 * UNIT line, in the info type (a gauge in 0.0.4) and in the closing # EOF.
 */
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "term.h"

void prom_fmt_double(char *buf, size_t len, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/*
 * Backslash and newline escaped, the quote too where quote is set (label
 * values; OpenMetrics HELP text). The format is UTF-8: a byte that is none
 * is written as the text \xNN (its backslash escaped), as on a terminal,
 * and so is every other character a terminal would act on (ESC, BEL, C1
 * controls, bidi marks: term_char_len()), which the format would carry raw
 * to whoever curls the page.
 */
static void put_text(FILE *f, const char *s, bool quote)
{
	while (*s) {
		uint32_t cp;
		size_t n = term_utf8_len(s, &cp);

		if (n && *s == '\n') {
			fputs("\\n", f);
		} else if (!n || !term_char_len(s)) {
			for (size_t i = 0; i < (n ? n : 1); i++)
				fprintf(f, "\\\\x%02x", (unsigned char)s[i]);
			n = n ? n : 1;
		} else if (*s == '\\' || (*s == '"' && quote)) {
			fputc('\\', f);
			fputc(*s, f);
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
}

static void put_help(struct prom_w *w, const char *s)
{
	put_text(w->f, s, w->om);
}

static void put_value(FILE *f, const char *s)
{
	fputc('"', f);
	put_text(f, s, true);
	fputc('"', f);
}

void prom_start(struct prom_w *w, FILE *f, bool openmetrics)
{
	*w = (struct prom_w){.f = f, .om = openmetrics};
}

void prom_family(struct prom_w *w, const char *name, enum prom_type type, const char *unit,
		 const char *help)
{
	static const char *const types[] = {"counter", "gauge", "histogram", "info"};
	const char *suffix = "";

	w->fam = name;
	w->type = type;
	if (!w->om && type == PROM_COUNTER)
		suffix = "_total";
	if (!w->om && type == PROM_INFO)
		suffix = "_info";
	fprintf(w->f, "# HELP %s%s ", name, suffix);
	put_help(w, help);
	fprintf(w->f, "\n# TYPE %s%s %s\n", name, suffix,
		!w->om && type == PROM_INFO ? "gauge" : types[type]);
	if (w->om && unit)
		fprintf(w->f, "# UNIT %s %s\n", name, unit);
}

static void put_labels(struct prom_w *w, const struct prom_label *l, size_t nl, const char *le)
{
	if (!nl && !le)
		return;
	fputc('{', w->f);
	for (size_t i = 0; i < nl; i++) {
		fprintf(w->f, "%s%s=", i ? "," : "", l[i].name);
		put_value(w->f, l[i].value);
	}
	if (le)
		fprintf(w->f, "%sle=\"%s\"", nl ? "," : "", le);
	fputc('}', w->f);
}

static void put_name(struct prom_w *w, const struct prom_label *l, size_t nl)
{
	fputs(w->fam, w->f);
	if (w->type == PROM_COUNTER)
		fputs("_total", w->f);
	else if (w->type == PROM_INFO)
		fputs("_info", w->f);
	put_labels(w, l, nl, NULL);
}

void prom_sample(struct prom_w *w, const struct prom_label *l, size_t nl, uint64_t v)
{
	put_name(w, l, nl);
	fprintf(w->f, " %llu\n", (unsigned long long)v);
}

void prom_sample_double(struct prom_w *w, const struct prom_label *l, size_t nl, double v)
{
	char b[40];

	/* a whole number below 2^53 as one (20000, not 2e+04): exact either way */
	if (v == (double)(long long)v && v > -9007199254740992.0 && v < 9007199254740992.0)
		snprintf(b, sizeof(b), "%lld", (long long)v);
	else
		prom_fmt_double(b, sizeof(b), v);
	put_name(w, l, nl);
	fprintf(w->f, " %s\n", b);
}

void prom_sample_seconds(struct prom_w *w, const struct prom_label *l, size_t nl, uint64_t ns)
{
	char v[40];

	prom_fmt_double(v, sizeof(v), (double)ns / 1e9);
	fputs(w->fam, w->f);
	if (w->type == PROM_COUNTER)
		fputs("_total", w->f);
	put_labels(w, l, nl, NULL);
	fprintf(w->f, " %s\n", v);
}

void prom_histogram(struct prom_w *w, const struct prom_label *l, size_t nl, const uint64_t *le_ns,
		    size_t nle, const uint64_t *counts, uint64_t sum_ns)
{
	uint64_t cum = 0;
	char le[40];

	for (size_t i = 0; i <= nle; i++) {
		cum += counts[i];
		if (i < nle)
			prom_fmt_double(le, sizeof(le), (double)le_ns[i] / 1e9);
		else
			snprintf(le, sizeof(le), "+Inf");
		fprintf(w->f, "%s_bucket", w->fam);
		put_labels(w, l, nl, le);
		fprintf(w->f, " %llu\n", (unsigned long long)cum);
	}
	prom_fmt_double(le, sizeof(le), (double)sum_ns / 1e9);
	fprintf(w->f, "%s_sum", w->fam);
	put_labels(w, l, nl, NULL);
	fprintf(w->f, " %s\n%s_count", le, w->fam);
	put_labels(w, l, nl, NULL);
	fprintf(w->f, " %llu\n", (unsigned long long)cum);
}

void prom_end(struct prom_w *w)
{
	if (w->om)
		fputs("# EOF\n", w->f);
}

void prom_sample_f(struct prom_w *w, const struct prom_label *l, size_t nl, double v)
{
	char buf[40];

	prom_fmt_double(buf, sizeof(buf), v);
	fputs(w->fam, w->f);
	if (w->type == PROM_COUNTER)
		fputs("_total", w->f);
	put_labels(w, l, nl, NULL);
	fprintf(w->f, " %s\n", buf);
}

void prom_histogram_le(struct prom_w *w, const struct prom_label *l, size_t nl, const double *le,
		       size_t nle, const uint64_t *counts)
{
	uint64_t cum = 0;
	char b[40];

	for (size_t i = 0; i <= nle; i++) {
		cum += counts[i];
		if (i < nle)
			prom_fmt_double(b, sizeof(b), le[i]);
		else
			snprintf(b, sizeof(b), "+Inf");
		fprintf(w->f, "%s_bucket", w->fam);
		put_labels(w, l, nl, b);
		fprintf(w->f, " %llu\n", (unsigned long long)cum);
	}
	fprintf(w->f, "%s_count", w->fam);
	put_labels(w, l, nl, NULL);
	fprintf(w->f, " %llu\n", (unsigned long long)cum);
}

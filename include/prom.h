/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus exposition formats (render/prom.c): text 0.0.4, and
 * OpenMetrics 1.0.0 when the scraper asks for it. A family is opened with
 * its HELP/TYPE (and UNIT), then its samples follow; the writer chooses the
 * suffixes (_total, _info, _bucket/_sum/_count), escapes labels and prints
 * numbers so that they read back to the same value.
 */
#ifndef KES_PROM_H
#define KES_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROM_CT_TEXT	    "text/plain; version=0.0.4; charset=utf-8"
#define PROM_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM, PROM_INFO };

struct prom_label {
	const char *name, *value;
};

struct prom_w {
	FILE *f;
	bool om; /* OpenMetrics */
	const char *fam;
	enum prom_type type;
};

void prom_start(struct prom_w *w, FILE *f, bool openmetrics);
/* name without suffix ("kvm_exitstat_exits"); unit "seconds" or NULL; help one line. */
void prom_family(struct prom_w *w, const char *name, enum prom_type type, const char *unit,
		 const char *help);
/* A counter, gauge or info sample of the open family. */
void prom_sample(struct prom_w *w, const struct prom_label *l, size_t nl, uint64_t v);
/* The same with a value that is not a whole number (seconds of CPU, a limit of 2^64). */
void prom_sample_double(struct prom_w *w, const struct prom_label *l, size_t nl, double v);
/* The same for a time in ns, printed in seconds. */
void prom_sample_seconds(struct prom_w *w, const struct prom_label *l, size_t nl, uint64_t ns);
/*
 * A histogram sample: counts[i] samples below le_ns[i] (and not below the bound
 * before it), counts[nle] above the last; printed cumulative, bounds in seconds.
 */
void prom_histogram(struct prom_w *w, const struct prom_label *l, size_t nl, const uint64_t *le_ns,
		    size_t nle, const uint64_t *counts, uint64_t sum_ns);
/* OpenMetrics: the "# EOF" line. */
/* A sample of a value in a base unit (seconds, bytes): as a shortest round-trip double. */
void prom_sample_f(struct prom_w *w, const struct prom_label *l, size_t nl, double v);
/*
 * A histogram whose bounds are given in the unit (le[nle] ascending) and
 * which has no sum (KVM's histograms count, they do not add up the values):
 * its buckets (counts[nle + 1], the last above every bound) and _count.
 */
void prom_histogram_le(struct prom_w *w, const struct prom_label *l, size_t nl, const double *le,
		       size_t nle, const uint64_t *counts);
void prom_end(struct prom_w *w);
/* The shortest decimal that reads back as the same double ("1.25e-07"). */
void prom_fmt_double(char *buf, size_t len, double v);

#endif

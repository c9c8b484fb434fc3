/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two runs side by side: per exit type (and optionally per vCPU) counts,
 * averages, time shares, Welch's t-test on the mean, and which rows explain
 * the change of the total. src/stats/diff.c computes (pure, no I/O);
 * src/render/diff-*.c print a struct diff and compute nothing.
 *
 * All times are ns.
 */
#ifndef KES_DIFF_H
#define KES_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

#define DIFF_TOP 3 /* rows named as explaining the change */

enum diff_status {
	DIFF_BOTH, /* present in both runs */
	DIFF_NEW,  /* only in B */
	DIFF_GONE, /* only in A */
};

/* One run's numbers for one row; all zero on the side where the row is missing. */
struct diff_side {
	uint64_t count;	   /* exits seen: timed + untimed (at a trace edge or after a loss) */
	uint64_t timed;	   /* of which timed: what avg, stddev, sum and the t-test are over */
	uint64_t max, sum; /* ns */
	double avg;	   /* ns */
	double stddev;	   /* ns, population; NAN when the input could not say */
	double pct;	   /* 100 * sum / that run's total of sums */
};

struct diff_row {
	const char *name; /* interned */
	int32_t vcpu;	  /* -1 unless per-vCPU */
	enum diff_status status;
	struct diff_side a, b;
	double dcount_pct; /* 100 * (b - a) / a; NAN unless DIFF_BOTH */
	double davg_pct;
	double t, df, p;  /* Welch's t-test of avg b vs avg a; NAN when not computable */
	double delta_sum; /* b.sum - a.sum, ns */
	double share_pct; /* 100 * delta_sum / total delta; NAN when the total did not change */
};

struct diff_total {
	uint64_t count_a, count_b; /* csum */
	uint64_t sum_a, sum_b;	   /* sumsum, ns */
	double avg_a, avg_b;	   /* sumavg, ns; 0 for an empty side */
	double count_change_pct;   /* NAN when A is 0 */
	double change_pct;	   /* of sumsum; NAN when A is 0 */
};

struct diff {
	struct diff_row *rows; /* by vcpu (per-vCPU), then max(a.sum, b.sum) desc, then name */
	size_t nrows;
	struct diff_total total;
	size_t top[DIFF_TOP]; /* rows[] indexes by |delta_sum| desc, delta_sum != 0 */
	size_t ntop;
	bool per_vcpu;
};

/*
 * Diff two tables (either may be summary-only). per_vcpu keeps one row per
 * (name, vCPU): vCPUs are matched by vcpu id, or, when a run's threads lack
 * one, by the order of their thread ids. Never NULL; free with diff_free().
 */
struct diff *diff_new(const struct stats_table *a, const struct stats_table *b, bool per_vcpu);
void diff_free(struct diff *d);

/* True when t has rows broken down by thread or vCPU (what per_vcpu needs). */
bool diff_has_per_vcpu(const struct stats_table *t);

/*
 * diff --anatomy (diff-anatomy.c): each reason's parts, A against B: the
 * part's mean over the split exits on each side, its share of the reason's
 * time, and Welch's t-test of the part's mean. Rows: reasons in the order of
 * the diff's rows (max of the two sides' time), each with its seven parts;
 * then "all".
 */
struct diff_part_side {
	uint64_t n;	     /* split exits */
	double mean, stddev; /* of the part, ns; NAN without exits */
	double share;	     /* % of the reason's split time */
	uint64_t sum;	     /* ns */
};

struct diff_part_row {
	const char *name; /* interned reason, or "all" */
	enum stats_part part;
	enum diff_status status;
	struct diff_part_side a, b;
	double dmean_pct; /* NAN unless both sides have exits and A's mean is not 0 */
	double t, df, p;  /* Welch's t-test of the part's mean; NAN when not computable */
};

struct diff_anatomy {
	struct diff_part_row *rows;
	size_t nrows;
};

/* Never NULL; free with diff_anatomy_free(). Either side may be NULL (no split exits). */
struct diff_anatomy *diff_anatomy_new(const struct stats_anatomy *a, const struct stats_anatomy *b);
void diff_anatomy_free(struct diff_anatomy *d);

/*
 * Welch's unequal-variance t-test from summary statistics only (n, mean,
 * population stddev), so saved reports work. Returns the two-sided p-value
 * and sets *t and *df; NAN when n < 2 on a side, a stddev is unknown, or both
 * are 0.
 */
double diff_welch(uint64_t n1, double mean1, double sd1, uint64_t n2, double mean2, double sd2,
		  double *t, double *df);
/* Two-sided p-value of Student's t with df degrees of freedom: P(|T| >= |t|). */
double diff_t_pvalue(double t, double df);
/* Regularized incomplete beta function I_x(a, b); a, b > 0, x in [0, 1]. */
double diff_betai(double a, double b, double x);
/* "**" for p < 0.01, "*" for p < 0.05, "" otherwise (and for NAN). */
const char *diff_mark(double p);

#endif

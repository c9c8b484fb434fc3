/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming, mergeable statistics. The only place where count, min, max, sum,
 * variance, percentiles and percentages are computed; renderers print a
 * struct stats_view and compute nothing.
 *
 * All durations are in nanoseconds. Memory is O(keys), never O(samples).
 */
#ifndef KES_STATS_H
#define KES_STATS_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* Log-linear histogram: 128 sub-buckets per power of two (relative error < 0.8 %). */
struct stats_hist;

struct stats_acc {
	uint64_t count;		 /* timed samples */
	uint64_t untimed;	 /* seen at a trace edge (or after a loss): counted, not timed */
	uint64_t min;		 /* ns; valid when count > 0 */
	uint64_t max;		 /* ns */
	uint64_t sum;		 /* ns, exact (wraps after 584 years of handling time) */
	uint64_t shift;		 /* first sample: mean is kept relative to it (see acc.c) */
	double mean;		 /* Welford running mean minus shift, ns */
	double m2;		 /* Welford sum of squared deviations, ns^2 */
	struct stats_hist *hist; /* NULL for summary-only data (saved reports) */
};

void stats_acc_init(struct stats_acc *a);
void stats_acc_free(struct stats_acc *a);
void stats_acc_add(struct stats_acc *a, uint64_t ns);
/* Chan et al. parallel merge: merge(A, B) equals feeding A's then B's samples. */
void stats_acc_merge(struct stats_acc *dst, const struct stats_acc *src);
/*
 * Summary-only data (a saved PPC report, a debugfs timing dump): m2 is the sum of
 * squared deviations (n * stddev^2). No histogram, so no percentiles.
 */
void stats_acc_set_summary(struct stats_acc *a, uint64_t count, uint64_t min, uint64_t max,
			   uint64_t sum, double m2);
double stats_acc_avg(const struct stats_acc *a);
double stats_acc_stddev(const struct stats_acc *a); /* population */
/* q in [0,1]; NAN when there is no histogram or no sample. */
double stats_acc_quantile(const struct stats_acc *a, double q);

/*
 * A key: what one row of a table is about. Fields that a view does not break
 * down by are set to their "any" value (tid = -1, vcpu = -1, sub = 0, has_sub = false).
 * `name` must be an interned string (see intern()).
 */
struct stats_key {
	const char *name; /* exit reason / bucket, interned */
	int32_t tid;	  /* vCPU thread; -1 = all */
	int32_t vcpu;	  /* vcpu_id from the event; -1 = unknown/all */
	uint64_t sub;	  /* sub-key (MMIO gpa, PIO port, MSR, hypercall nr) */
	bool has_sub;
};

struct stats_table;

struct stats_table *stats_table_new(void);
void stats_table_free(struct stats_table *t);
/* Returns the accumulator for key, creating it. Never NULL. */
struct stats_acc *stats_table_get(struct stats_table *t, const struct stats_key *key);
/* Returns the accumulator for key or NULL. */
struct stats_acc *stats_table_find(const struct stats_table *t, const struct stats_key *key);
size_t stats_table_size(const struct stats_table *t);

/* The sub-key of the row that stands for every sub-key past a table's cap. */
#define STATS_SUB_OTHER UINT64_MAX
/*
 * At most max distinct sub-keys per name (0, the default: no cap). A new key
 * with has_sub whose name already has max sub-keys is counted in the row
 * {name, tid, vcpu, has_sub, sub = STATS_SUB_OTHER} instead ("other"), so a
 * trace that touches millions of MMIO addresses cannot use up memory.
 * (Several tids/vcpus of one sub-key count as several sub-keys.)
 */
void stats_table_set_sub_cap(struct stats_table *t, size_t max);
/* How many stats_table_get() calls went to an "other" row. */
uint64_t stats_table_folded(const struct stats_table *t);
/* Removes every row (a live view's interval table); t stays usable. */
void stats_table_clear(struct stats_table *t);
/* Calls fn for each row, in no particular order. */
void stats_table_foreach(const struct stats_table *t,
			 void (*fn)(const struct stats_key *k, const struct stats_acc *a,
				    void *arg),
			 void *arg);
void stats_table_merge(struct stats_table *dst, const struct stats_table *src);

/* What a rollup keeps of a key; everything else is folded to "all". */
enum {
	STATS_BY_TID = 1 << 0,
	STATS_BY_VCPU = 1 << 1,
	STATS_BY_SUB = 1 << 2,
};
/* A new table whose keys keep only the parts in `by` (a STATS_BY_* mask). */
struct stats_table *stats_table_rollup(const struct stats_table *t, unsigned by);

/* One part of a split: the rows of one (tid, vcpu) group, folded over the rest. */
struct stats_group {
	int32_t tid, vcpu;
	struct stats_table *t;
};
/*
 * Splits t by thread and vcpu (per-vCPU reports). Groups are sorted by vcpu,
 * then tid; *groups is malloc'd, free it with stats_groups_free().
 */
size_t stats_table_split(const struct stats_table *t, struct stats_group **groups);
void stats_groups_free(struct stats_group *g, size_t n);

/* ------------------------------------------------------------------------ */
/* Views: everything a renderer prints, already computed, in the chosen unit. */

enum stats_sort {
	STATS_SORT_SUM,
	STATS_SORT_COUNT,
	STATS_SORT_AVG,
	STATS_SORT_MAX,
	STATS_SORT_NAME
};

struct stats_row {
	struct stats_key key;
	uint64_t count;
	uint64_t untimed;
	double min, max, sum, avg, stddev; /* in view unit */
	double pct;			   /* 100 * sum / view sumsum */
	bool has_quantiles;
	double p50, p90, p99, p999; /* in view unit; NAN without histogram */
};

struct stats_view {
	struct stats_row *rows;
	size_t nrows;
	const char *unit; /* "us" or "ns" */
	uint64_t csum;	  /* sum of counts */
	double sumsum;	  /* sum of sums, view unit */
	double sumavg;	  /* sumsum / csum */
	uint64_t untimed; /* sum of untimed */
	double runtime_s; /* sumsum in seconds (the PPC report's "=> ~M:SS runtime") */
};

/* unit_ns: 1 for ns, 1000 for us. Rows sorted by `sort`, descending (NAME: ascending). */
struct stats_view *stats_view_new(const struct stats_table *t, double unit_ns, const char *unit,
				  enum stats_sort sort);
void stats_view_free(struct stats_view *v);

#endif

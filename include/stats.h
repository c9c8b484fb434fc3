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

/*
 * Log-linear histogram: 128 sub-buckets per power of two (relative error
 * < 0.8 %), hist.c says why. Its layout is here only for stats_acc_add()'s
 * inline body below; nothing outside src/stats/ reads it.
 */
#define STATS_HIST_SUB_BITS 7
#define STATS_HIST_SUB	    (1u << STATS_HIST_SUB_BITS)
/* block 0: 0..127; block b: [2^(b+6), 2^(b+7)) */
#define STATS_HIST_BLOCKS (64 - STATS_HIST_SUB_BITS + 1)

struct stats_hist {
	uint64_t *block[STATS_HIST_BLOCKS];
};

/*
 * Moments are exact integers of the samples minus a reference (the first
 * sample, or the smallest reference of the accumulators merged in), so a
 * merge gives the same bits in any order and equals feeding the samples in
 * one accumulator: per-thread tables roll up, and parallel feeds merge, to
 * exactly the single-thread result. Summary-only data (a saved report) has a
 * double m2 instead. Every cross-build target is 64-bit, with __int128.
 */
struct stats_acc {
	uint64_t count;		 /* timed samples */
	uint64_t untimed;	 /* seen at a trace edge (or after a loss): counted, not timed */
	uint64_t min;		 /* ns; valid when count > 0 */
	uint64_t max;		 /* ns */
	uint64_t sum;		 /* ns, exact (wraps after 584 years of handling time) */
	uint64_t shift;		 /* the reference of s1, s2 */
	unsigned __int128 s1;	 /* sum of (x - shift), two's complement */
	unsigned __int128 s2;	 /* sum of (x - shift)^2 */
	bool summary;		 /* from summary-only data: m2 holds the spread */
	uint8_t sub_kind;	 /* enum kes_detail of the row's sub-key (what it is), 0: none */
	double m2;		 /* summary: sum of squared deviations, ns^2; NAN unknown */
	struct stats_hist *hist; /* NULL for summary-only data (saved reports) */
};

void stats_acc_init(struct stats_acc *a);
void stats_acc_free(struct stats_acc *a);
/* Block b of the histogram (STATS_HIST_SUB counters), allocated: its first sample's add. */
uint64_t *stats_hist_block(struct stats_hist *h, unsigned b);

static inline void stats_hist_add_n(struct stats_hist *h, uint64_t v, uint64_t n)
{
	unsigned b = 0, s = (unsigned)v;

	if (v >= STATS_HIST_SUB) {
		unsigned shift = 63 - (unsigned)__builtin_clzll(v) - STATS_HIST_SUB_BITS;

		b = shift + 1;
		s = (unsigned)(v >> shift) - STATS_HIST_SUB;
	}
	(h->block[b] ? h->block[b] : stats_hist_block(h, b))[s] += n;
}

/* stats_acc_add()'s first sample: the histogram and the reference. */
void stats_acc_first(struct stats_acc *a, uint64_t ns);

/*
 * One sample. Inline: pair/ adds two per exit (its handling, the time in
 * guest before it), and the call cost 6 instructions an event (callgrind,
 * report of the bench's 1 M-event recording: 280.7 -> 273.9 M).
 */
static inline void stats_acc_add(struct stats_acc *a, uint64_t ns)
{
	int64_t d;

	if (__builtin_expect(!a->count, 0))
		stats_acc_first(a, ns);
	a->count++;
	d = (int64_t)(ns - a->shift);
	a->s1 += (unsigned __int128)(__int128)d;
	a->s2 += (unsigned __int128)((__int128)d * d);
	a->sum += ns;
	if (ns < a->min)
		a->min = ns;
	if (ns > a->max)
		a->max = ns;
	if (a->hist) /* none in a row merged from summary-only data */
		stats_hist_add_n(a->hist, ns, 1);
}
/* merge(A, B) equals feeding A's then B's samples, bit for bit and in any order. */
void stats_acc_merge(struct stats_acc *dst, const struct stats_acc *src);
/*
 * Would merge(dst, src) keep every count and sum in 64 bits (timed, untimed,
 * both together, the sum of times)? Samples counted one by one never come
 * near; a saved report's numbers may say anything.
 */
bool stats_acc_merge_fits(const struct stats_acc *dst, const struct stats_acc *src);
/*
 * Summary-only data (a saved PPC report, a debugfs timing dump): m2 is the sum of
 * squared deviations (n * stddev^2), NAN when unknown. No histogram, so no percentiles.
 */
void stats_acc_set_summary(struct stats_acc *a, uint64_t count, uint64_t min, uint64_t max,
			   uint64_t sum, double m2);
/* The sum of squared deviations from the mean, ns^2 (NAN when a summary did not say). */
double stats_acc_m2(const struct stats_acc *a);
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
/*
 * The table's epoch, which changes whenever a pointer stats_table_get()
 * returned may have become invalid (the table grew or was cleared): a caller
 * that keeps such pointers (pair/'s per-thread cache) uses them while the
 * epoch is the one it saw. A pointer, valid as long as the table, so that
 * the check per exit is a load, not a call.
 */
const uint64_t *stats_table_epoch(const struct stats_table *t);
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
/*
 * The cap every command uses (report, diff, top, serve): a key costs about
 * 1 KiB, so 10 M distinct gpas would need ~11 GB; 4096 keep any real
 * workload's devices and ports apart.
 */
#define STATS_SUB_CAP 4096
/* How many stats_table_get() calls went to an "other" row. */
uint64_t stats_table_folded(const struct stats_table *t);
/* Removes every row (a live view's interval table); t stays usable. */
void stats_table_clear(struct stats_table *t);
/*
 * Calls fn for each row, in the order the rows were made: the same in every
 * run over the same input, so that sums over the rows come out the same
 * whatever the address-space layout. fn must not add rows to t.
 */
void stats_table_foreach(const struct stats_table *t,
			 void (*fn)(const struct stats_key *k, const struct stats_acc *a,
				    void *arg),
			 void *arg);
void stats_table_merge(struct stats_table *dst, const struct stats_table *src);
/*
 * Do the rows' counts (timed, untimed, both) and sums of times add up in 64
 * bits? A view's totals and percentages are those sums (stats_view_new()).
 */
bool stats_table_sums_fit(const struct stats_table *t);

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
	uint64_t count;	  /* every exit: timed + untimed */
	uint64_t timed;	  /* those with a handling time: min .. p999 are over these */
	uint64_t untimed; /* those without (trace edge, VMM exit, loss) */
	double min, max, sum, avg, stddev; /* in view unit */
	double pct;			   /* 100 * sum / view sumsum */
	bool has_quantiles;
	double p50, p90, p99, p999;  /* in view unit; NAN without histogram */
	const struct stats_acc *acc; /* the row's own state (exact ns, buckets): valid while
					the table the view was made from lives */
};

struct stats_view {
	struct stats_row *rows;
	size_t nrows;
	const char *unit;   /* "us" or "ns" */
	uint64_t csum;	    /* sum of counts (every exit) */
	uint64_t ctimed;    /* sum of timed counts */
	double sumsum;	    /* sum of sums, view unit */
	uint64_t sumsum_ns; /* the same, exact */
	double sumavg;	    /* sumsum / ctimed: the average of the timed exits */
	uint64_t untimed;   /* sum of untimed */
	double runtime_s;   /* sumsum in seconds (the PPC report's "=> ~M:SS runtime") */
};

/*
 * One row from one accumulator, in units of unit_ns (pct, a share of a whole
 * view, stays 0): what a view's rows are, for a row made outside a view
 * (a total over rows, merged first). r->acc is a.
 */
void stats_row_of(struct stats_row *r, const struct stats_key *k, const struct stats_acc *a,
		  double unit_ns);
/* unit_ns: 1 for ns, 1000 for us. Rows sorted by `sort`, descending (NAME: ascending). */
struct stats_view *stats_view_new(const struct stats_table *t, double unit_ns, const char *unit,
				  enum stats_sort sort);
void stats_view_free(struct stats_view *v);

/* ------------------------------------------------------------------------ */
/* Buckets: fixed bounds for exporters, exact state for mergeable reports (fold.c). */

/* Each non-empty histogram bucket of a, ascending: it holds the ns values [lo, hi]. */
void stats_acc_foreach_bucket(const struct stats_acc *a,
			      void (*fn)(uint64_t lo, uint64_t hi, uint64_t n, void *arg),
			      void *arg);
/* v is where a histogram bucket starts: a fixed bound there splits no bucket. */
bool stats_hist_is_edge(uint64_t v);
/*
 * Adds a's samples to fixed buckets, exactly: counts[i] += samples v with
 * le_ns[i-1] <= v < le_ns[i], counts[n] += samples v >= le_ns[n-1].
 * le_ns ascending, every one an edge (stats_hist_is_edge). -1 when a has no
 * histogram (summary-only) or a bound is not an edge.
 */
int stats_acc_fold(const struct stats_acc *a, const uint64_t *le_ns, size_t n, uint64_t *counts);
/*
 * Rebuilds a from saved state (a report's JSON): s's count, untimed, min,
 * max, sum and, as summary data, m2; the histogram from stats_acc_add_bucket().
 */
void stats_acc_restore(struct stats_acc *a, const struct stats_acc *s);
/* n samples in the bucket that starts at lo; -1 when lo is not an edge. */
int stats_acc_add_bucket(struct stats_acc *a, uint64_t lo, uint64_t n);
/*
 * n samples of one bucket of a kernel hist's .log2 key (roundup_pow_of_two:
 * 2^k holds (2^(k-1), 2^k] ns), summing to sum ns: count and sum exact, min
 * and max the bucket's bounds, no spread (summary), and the histogram at
 * the bucket's lower edge, so that a fold on powers of two (serve
 * --in-kernel's bounds) puts them exactly where the kernel had them and a
 * quantile reads the bucket's lower bound.
 */
void stats_acc_add_log2(struct stats_acc *a, int k, uint64_t n, uint64_t sum);

/* ------------------------------------------------------------------------ */
/* Timeline: exits per name over time, in equal bins (timeline.c). */

struct stats_timeline;

struct stats_timeline *stats_timeline_new(void);
void stats_timeline_free(struct stats_timeline *t);
/* One exit of `name` (interned) at ts ns. At most 256 names; later ones are not counted. */
void stats_timeline_add(struct stats_timeline *t, const char *name, uint64_t ts);
/* The bins in use (0: nothing added), the first bin's start and the width, in ns. */
size_t stats_timeline_bins(const struct stats_timeline *t, uint64_t *start, uint64_t *width);
/* The i-th name added, or NULL past the last. */
const char *stats_timeline_name(const struct stats_timeline *t, size_t i);
/* name's counts per bin (at least the bins in use), or NULL when it had none. */
const uint64_t *stats_timeline_counts(const struct stats_timeline *t, const char *name);

/* ------------------------------------------------------------------------ */
/*
 * Anatomy (anatomy.c, report --anatomy): where each exit's handling time
 * went. pair/ splits every exit -> entry interval of a vCPU thread into
 * parts that add up to the interval exactly; these tables keep, per row key,
 * each part's samples (a zero where the part was absent, so a part's mean
 * is over every split interval), mergeable like every table.
 */
enum stats_part {
	STATS_PART_HANDLING, /* in KVM, on its CPU: none of the below */
	STATS_PART_RUNNABLE, /* off its CPU but runnable: preempted, or woken and not yet run */
	STATS_PART_BLOCKED,  /* asleep in the kernel (a halt that slept, a lock, I/O) */
	STATS_PART_POLLED,   /* halt polling, on its CPU (kvm_vcpu_wakeup's window) */
	STATS_PART_VMM,	     /* in the VMM: a userspace exit until KVM_RUN again */
	STATS_PART_IRQ,	     /* hard interrupt handlers on its CPU while it held it */
	STATS_PART_SOFTIRQ,  /* softirqs on its CPU while it held it */
	STATS_NPARTS
};

/* "handling", "runnable", ...: the part's name in every format. */
const char *stats_part_name(enum stats_part p);
/* What it is, in a few words ("in KVM on its CPU"), for table heads and keys. */
const char *stats_part_about(enum stats_part p);

/* A thread that held a vCPU thread's CPU while it was runnable, and for how long. */
struct stats_who {
	const char *comm; /* interned, NULL: none */
	int32_t pid;
	uint64_t ns;
};

#define STATS_SPLIT_WHO 3

/* One interval's split, as pair/ made it. */
struct stats_split {
	uint64_t ns[STATS_NPARTS];
	/*
	 * false: left unsplit (ns[] all 0): events were lost inside it, the
	 * clock went back, or the scheduler's events contradict each other
	 * there (a thread switched in that was never out): a split would be
	 * wrong, so there is none.
	 */
	bool split;
	uint8_t sub_kind; /* enum kes_detail of the row key's sub-key (what it is), 0: none */
	uint16_t halts; /* kvm_vcpu_wakeup events in it */
	uint16_t slept; /* of which said it slept (waited), not only polled */
	/* who held its CPU while it was runnable, longest first (the rest folded in none) */
	struct stats_who who[STATS_SPLIT_WHO];
};

/* The part that took the most of s (ties: the first in enum order); HANDLING when unsplit. */
enum stats_part stats_split_dominant(const struct stats_split *s);

/* ------------------------------------------------------------------------ */
/*
 * Outliers (outliers.c): single exits, kept whole so that one can be found
 * in the trace (report --slowest N: the N slowest; top --slower-than: every
 * exit over a threshold, the latest N of them). Memory is O(N), whatever
 * the trace holds.
 */
struct stats_outlier {
	uint64_t ns;	  /* the handling time */
	uint64_t ts;	  /* the exit's timestamp, ns, the trace's clock */
	int32_t tid, vcpu; /* vcpu -1: unknown */
	const char *name; /* interned reason (or bucket): the row it is counted in */
	uint64_t sub;	  /* sub-key, when has_sub */
	uint8_t sub_kind; /* enum kes_detail of sub, 0: none */
	bool has_sub;
	bool halt;	  /* the vCPU blocked (a halt): top --slower-than skips it, as perf does */
	bool has_split;	  /* --anatomy: split holds its parts */
	struct stats_split split;
};

struct stats_outliers;

/*
 * keep: how many are kept (at least 1). min_ns 0: the `keep` slowest of all;
 * min_ns > 0: the latest `keep` of those that took longer than min_ns,
 * halts left out (perf kvm stat live --duration: strictly longer, no HLT).
 * Never NULL.
 */
struct stats_outliers *stats_outliers_new(size_t keep, uint64_t min_ns);
/* An empty one that keeps what o keeps (another part of the same input). */
struct stats_outliers *stats_outliers_new_like(const struct stats_outliers *o);
void stats_outliers_free(struct stats_outliers *o);
void stats_outliers_add(struct stats_outliers *o, const struct stats_outlier *s);
/*
 * Into dst, as if dst had seen src's exits too (inputs loaded apart). In
 * threshold mode, as if each had been fed in time order.
 */
void stats_outliers_merge(struct stats_outliers *dst, const struct stats_outliers *src);
/* Forgets those kept (a live view's interval); seen() starts again at 0. */
void stats_outliers_clear(struct stats_outliers *o);
/* How many were offered (min_ns > 0: how many were over it) since new or clear. */
uint64_t stats_outliers_seen(const struct stats_outliers *o);
/*
 * A copy of those kept, *out malloc'd (free it); returns how many. The order
 * is total, so the same input gives the same list however it was fed:
 * slowest first, then earlier timestamp, lower tid, lower vcpu, name.
 * Threshold mode: in time order instead (ts, tid, vcpu, name).
 */
size_t stats_outliers_sorted(const struct stats_outliers *o, struct stats_outlier **out);


struct stats_anatomy;

struct stats_anatomy *stats_anatomy_new(void);
void stats_anatomy_free(struct stats_anatomy *a);
/* As stats_table_set_sub_cap() for every table of a: rows by sub-key stay bounded. */
void stats_anatomy_set_sub_cap(struct stats_anatomy *a, size_t max);
/* One interval of the row k (as the exit table keys it). */
void stats_anatomy_add(struct stats_anatomy *a, const struct stats_key *k,
		       const struct stats_split *s);
/* merge(A, B) equals adding A's intervals then B's, in any order. */
void stats_anatomy_merge(struct stats_anatomy *dst, const struct stats_anatomy *src);
/* Forgets every interval (a live view's tick). */
void stats_anatomy_clear(struct stats_anatomy *a);
/* Intervals split and left unsplit, over every row. */
void stats_anatomy_counts(const struct stats_anatomy *a, uint64_t *split, uint64_t *unsplit);
/* A part's accumulator of row k (NULL: no such row). part STATS_NPARTS: the whole intervals. */
const struct stats_acc *stats_anatomy_acc(const struct stats_anatomy *a, const struct stats_key *k,
					  unsigned part);
/* One part of a view's row, in the view's unit. */
struct stats_anatomy_cell {
	double sum, mean, p99;
	double share;	 /* % of the row's split time (the parts of a row add up to 100) */
	uint64_t sum_ns; /* exact */
};

struct stats_anatomy_row {
	struct stats_key key;
	uint64_t split, unsplit; /* intervals */
	uint64_t halts, slept;
	double mean;	 /* of the split intervals, view unit */
	uint64_t sum_ns; /* of the split intervals: the parts' sum_ns add up to it */
	struct stats_anatomy_cell part[STATS_NPARTS];
	enum stats_part dominant; /* the largest share (ties: the first) */
	const struct stats_acc *acc[STATS_NPARTS + 1]; /* the parts', then the whole's (diff, svg) */
};

/* A thread that held a vCPU thread's CPU while it was runnable. */
struct stats_anatomy_who {
	const char *comm; /* interned */
	int32_t pid;
	uint64_t ns;  /* of runnable time it caused, over every row */
	uint64_t n;   /* intervals it was the top preemptor of */
	double share; /* % of every interval's runnable time */
};

#define STATS_ANATOMY_TOP_WHO 10

struct stats_anatomy_view {
	struct stats_anatomy_row *rows; /* by the view's sort of the whole intervals */
	size_t nrows;
	struct stats_anatomy_row all; /* every row together */
	struct stats_anatomy_who who[STATS_ANATOMY_TOP_WHO]; /* the top preemptors, most first */
	size_t nwho;
	const char *unit;
	struct stats_anatomy *rolled; /* owned: what the rows' acc point into */
	struct stats_anatomy *total;  /* owned: what all's acc point into */
};

/* The rows of a's rollup by `by`, in unit_ns, sorted as a stats_view is. Never NULL. */
struct stats_anatomy_view *stats_anatomy_view_new(const struct stats_anatomy *a, unsigned by,
						  double unit_ns, const char *unit,
						  enum stats_sort sort);
void stats_anatomy_view_free(struct stats_anatomy_view *v);
/* The row of v whose key name is name (interned), or NULL. */
const struct stats_anatomy_row *stats_anatomy_view_find(const struct stats_anatomy_view *v,
							const char *name);

/* ------------------------------------------------------------------------ */
/*
 * report --by-guest (guest.c): a by-sub-key view of a table keyed by the
 * guest's pc (pair_set_by_guest()), regrouped per reason, each pc with its
 * symbol and which side of the guest's address space it is on.
 */

/* A guest symbol lookup (gsym_lookup()'s shape): the name holding pc and *off, or NULL. */
typedef const char *stats_sym_fn(const void *syms, uint64_t pc, uint64_t *off);

/* Which side of the guest's address space a pc is on (exit_types `pc ... kernel`). */
enum stats_guest_side { STATS_GUEST_SIDE_UNKNOWN, STATS_GUEST_SIDE_KERNEL, STATS_GUEST_SIDE_USER, STATS_GUEST_SIDE_N };

struct stats_guest_pc {
	uint64_t pc;
	bool other;	 /* the row of every pc past the cap (STATS_SUB_CAP) */
	const char *sym; /* the guest symbol that holds pc (owned by the gsym), or NULL */
	uint64_t off;	 /* pc - the symbol's start */
	enum stats_guest_side side;
	struct stats_row r; /* count, times: in the view's unit */
	double pct_count;   /* of the reason's exits */
	double pct_time;    /* of the reason's handling time */
};

struct stats_guest_reason {
	const char *name;
	uint64_t count, timed;
	double sum;	   /* view unit */
	uint64_t no_pc;	   /* exits whose event carried no pc */
	struct stats_guest_pc *pcs; /* in the view's sort order */
	size_t npcs;
};

struct stats_guest_view {
	struct stats_guest_reason *reasons; /* by sum (count with -s count), descending */
	size_t n;
	const char *unit;
	uint64_t count;		       /* exits, TIMEINGUEST not included */
	uint64_t no_pc;		       /* of which without a pc */
	uint64_t side[STATS_GUEST_SIDE_N];   /* exits with a pc, by side */
	double side_sum[STATS_GUEST_SIDE_N]; /* their handling time, view unit */
	uint64_t kernel_from;	       /* the ISA's lowest guest-kernel address; 0: unknown */
	size_t top;		       /* pcs shown per reason (0: all) */
};

/*
 * From v (a view of a table rolled up by sub-key, pair_set_by_guest()'s):
 * sym(syms, ...) names each pc's symbol, sym NULL: none; kernel_from 0 when the ISA's layout does not say; at most
 * top pcs kept per reason (0: all).
 */
struct stats_guest_view *stats_guest_view_new(const struct stats_view *v, stats_sym_fn *sym,
					      const void *syms, uint64_t kernel_from, size_t top,
					      enum stats_sort sort);
void stats_guest_view_free(struct stats_guest_view *g);
/*
 * diff --by-guest: t's rows keyed by "reason@function" (sym's symbol holding
 * each pc; "reason@0xPC" without one), the pcs of one function merged; rows
 * without a pc keep their reason. A new table: free it.
 */
struct stats_table *stats_guest_table(const struct stats_table *t, stats_sym_fn *sym,
				      const void *syms);
const char *stats_guest_side_name(enum stats_guest_side s);

/* ------------------------------------------------------------------------ */
/*
 * report --nested (nested.c): an x86 host's nested guests, from the
 * kvm_nested_* detail events of each kvm_exit: L2's exits by reason, handled
 * by L0 or reflected to L1, and for each reflected one L1's handling window
 * (its re-entry into L1 to the re-entry into L2) with L1's exits in it.
 */
struct stats_nested;

enum stats_nested_kind {
	STATS_NESTED_L2,       /* an exit of L2's (kvm_nested_vmexit), by its reason */
	STATS_NESTED_INJECTED, /* L0 made L1 exit with no exit of L2's (nested_inject alone) */
	STATS_NESTED_L1,       /* an exit of L1's inside a handling window, by its reason */
};

struct stats_nested_row {
	const char *name; /* interned */
	enum stats_nested_kind kind;
	uint64_t count;
	uint64_t l0, l0_timed, l0_ns; /* L2: handled by L0 alone (and their handling time) */
	uint64_t reflected;	      /* L2: reflected to L1 */
	/* L2 and INJECTED: the windows that closed (L1 entered L2 again), their L1 exits and time */
	uint64_t windows, window_exits, window_ns;
};

struct stats_nested_view {
	struct stats_nested_row *rows; /* L2, then INJECTED, then L1 rows; each by count */
	size_t nrows;
	uint64_t l2, l0, reflected, injected, l1;
	uint64_t windows, window_exits, window_ns; /* over the L2 rows */
	uint64_t open_windows, open_exits; /* windows open at the trace's end, their L1 exits */
	uint64_t broken; /* windows an exit of L2's ended first (events lost) */
};

struct stats_nested *stats_nested_new(void);
void stats_nested_free(struct stats_nested *n);
/*
 * One kvm_exit of thread tid with its detail mask (bits of enum kes_detail),
 * its time and handling time (timed false: no entry followed it; ns 0).
 * Called per thread in time order.
 */
void stats_nested_exit(struct stats_nested *n, int32_t tid, const char *reason, uint32_t mask,
		       uint64_t ts, uint64_t ns, bool timed);
/* Whether any exit was L2's or reflected: a trace with nested guests. */
bool stats_nested_seen(const struct stats_nested *n);
struct stats_nested_view *stats_nested_view_new(const struct stats_nested *n);
void stats_nested_view_free(struct stats_nested_view *v);

#endif

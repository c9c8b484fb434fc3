/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's own statistics (stats/kstat.c): what the kernel counts per VM and
 * per vCPU, as its binary statistics descriptors describe them
 * (Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD), and the arithmetic
 * every view of them needs, done here once: deltas and rates between two
 * readings, histogram buckets and their bounds, quantiles, sums over VMs.
 *
 * Nothing is hard-coded: a statistic is its descriptor (name, type, unit,
 * base, exponent, size, bucket size). Where only debugfs was readable and no
 * descriptor is known, a statistic is a counter of unknown type.
 */
#ifndef KES_KSTAT_H
#define KES_KSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* KVM_STATS_TYPE_* in order; UNKNOWN: a debugfs file no descriptor names. */
enum kstat_type {
	KSTAT_CUMULATIVE,
	KSTAT_INSTANT,
	KSTAT_PEAK,
	KSTAT_LINEAR_HIST,
	KSTAT_LOG_HIST,
	KSTAT_UNKNOWN,
};

/* KVM_STATS_UNIT_* in order. */
enum kstat_unit {
	KSTAT_UNIT_NONE,
	KSTAT_UNIT_BYTES,
	KSTAT_UNIT_SECONDS,
	KSTAT_UNIT_CYCLES,
	KSTAT_UNIT_BOOLEAN,
};

struct kstat_desc {
	char *name;
	enum kstat_type type;
	enum kstat_unit unit;
	int base;	      /* 10 or 2: a value is v * base^exponent units */
	int exponent;
	uint32_t size;	      /* values: 1, or the histogram's buckets */
	uint32_t bucket_size; /* linear histograms: the width of a bucket */
	bool vcpu;	      /* a vCPU statistic (debugfs shows its sum over the vCPUs) */
	size_t off;	      /* its first value in a values array */
};

struct kstat_schema {
	struct kstat_desc *d;
	size_t n;
	size_t nvals; /* the values of one reading: the sum of the sizes */
	bool described; /* from KVM's descriptors; false: debugfs file names only */
};

struct kstat_vcpu {
	int32_t id;
	uint64_t *v; /* nvals; only the vCPU statistics are set */
};

/* One VM's reading. */
struct kstat_vm {
	int32_t pid;	/* the VMM */
	char *id;	/* debugfs's "<pid>-<fd>" */
	char *name;	/* VM name (QEMU -name, else comm) */
	char *source;	/* where the values came from: "debugfs", "stats-fd", "debugfs+stats-fd" */
	uint64_t *v;	/* nvals */
	bool *have;	/* per descriptor: read (a histogram only where its buckets were) */
	struct kstat_vcpu *vcpus; /* per vCPU, where its statistics fd could be read */
	size_t nvcpus;
	bool born;	/* created after the first reading: its earlier values were 0 */
};

struct kstat_reading {
	double t;	 /* CLOCK_MONOTONIC seconds */
	int64_t wall_ns; /* CLOCK_REALTIME */
	struct kstat_vm *vms;
	size_t nvms;
};

/* ------------------------------------------------------------------------ */
/* Schema */

void kstat_schema_free(struct kstat_schema *s);
/* Adds a descriptor (name copied) and sets its off; returns its index. */
size_t kstat_schema_add(struct kstat_schema *s, const struct kstat_desc *d);
/* The descriptor named name, or NULL. */
const struct kstat_desc *kstat_schema_find(const struct kstat_schema *s, const char *name);
bool kstat_is_hist(const struct kstat_desc *d);
/* Counts that only grow (cumulative, and histogram buckets): deltas and rates make sense. */
bool kstat_is_counter(const struct kstat_desc *d);
/* The names of types and units as the kernel documents them ("cumulative", "seconds"). */
const char *kstat_type_name(enum kstat_type t);
const char *kstat_unit_name(enum kstat_unit u);
/* From those names; -1 when unknown. */
int kstat_type_of(const char *name);
int kstat_unit_of(const char *name);
/* base^exponent: what one count of d is in its unit (1e-9 for nanoseconds). */
double kstat_scale(const struct kstat_desc *d);
/* What one raw count is, for a column: "ns", "us", "s", "B", "KiB", "cycles", "" (a count). */
const char *kstat_unit_label(const struct kstat_desc *d, char *buf, size_t len);
/*
 * Bucket i of a histogram holds raw values lo..hi (hi UINT64_MAX: the last,
 * open bucket). Log: bucket 0 holds 0, bucket i holds 2^(i-1)..2^i-1 (the
 * kernel's fls64()); linear: i*bucket_size..(i+1)*bucket_size-1.
 */
void kstat_bucket_range(const struct kstat_desc *d, uint32_t i, uint64_t *lo, uint64_t *hi);
/*
 * The q-quantile (0..1) of a histogram's counts as the upper bound of the
 * bucket it falls in (raw units; the last bucket's lower bound); NAN with no
 * samples.
 */
double kstat_hist_quantile(const struct kstat_desc *d, const uint64_t *b, double q);
/* The samples of a histogram's counts. */
uint64_t kstat_hist_count(const struct kstat_desc *d, const uint64_t *b);

/* ------------------------------------------------------------------------ */
/* Readings */

/* An empty VM of a reading (values zeroed), its strings copied. */
void kstat_vm_init(struct kstat_vm *vm, const struct kstat_schema *s, int32_t pid,
		   const char *id, const char *name);
void kstat_vm_free(struct kstat_vm *vm);
struct kstat_vcpu *kstat_vm_vcpu(struct kstat_vm *vm, const struct kstat_schema *s, int32_t id);
/* Appends a VM to r (copied by value: r owns it now). */
void kstat_reading_add(struct kstat_reading *r, struct kstat_vm *vm);
void kstat_reading_free(struct kstat_reading *r);
/* The VM of r with this debugfs id, or NULL. */
const struct kstat_vm *kstat_reading_find(const struct kstat_reading *r, const char *id);

/*
 * What happened between two readings of one VM (a may be NULL: a VM born
 * after the first reading starts from zero): out[] gets, per value, the
 * increase for counters and histogram buckets (a counter that went down was
 * reset, e.g. through debugfs: then its new value), the latest value for
 * instant and peak statistics (b->have says which were read). vcpu >= 0:
 * that vCPU's values instead (from 0 when a lacks that vCPU).
 */
void kstat_delta(const struct kstat_schema *s, const struct kstat_vm *a, const struct kstat_vm *b,
		 int32_t vcpu, uint64_t *out);
/* ------------------------------------------------------------------------ */
/* Views: what renderers print, computed here (kstat_view_new). */

struct kstat_row {
	const struct kstat_desc *d;
	uint64_t value;	     /* at the end: since the VM started (a histogram: its samples) */
	uint64_t delta;	     /* over the span: the increase (instant, peak: the value) */
	double rate;	     /* delta per second, counters only; NAN otherwise */
	const uint64_t *b;   /* histograms: the span's buckets (d->size of them) */
	uint64_t samples;    /* histograms: the span's samples */
	double p50, p99;     /* histograms: the span's, raw (times kstat_scale(): the unit), NAN: none */
};

/* One VM (or vCPU, or the sum of every VM). */
struct kstat_block {
	char *label;	     /* "VM NAME pid P (ID)", "vCPU N of ...", "all VMs" */
	int32_t pid, vcpu;   /* vcpu -1: the whole VM; pid -1: the sum of every VM */
	const char *id, *name, *source;
	bool born;	     /* the VM was created within the span */
	struct kstat_row *rows; /* the statistics it has, in descriptor order */
	size_t nrows;
	uint64_t *delta, *now; /* the values behind rows (nvals each) */
};

struct kstat_view {
	const struct kstat_schema *s;
	double dt; /* seconds between the readings (0: one reading) */
	struct kstat_block *b;
	size_t nb;
};

enum {
	KSTAT_VIEW_VCPUS = 1 << 0, /* a block per vCPU where the vCPUs were read apart */
	KSTAT_VIEW_TOTAL = 1 << 1, /* a last block: every VM summed */
	KSTAT_VIEW_NONZERO = 1 << 2, /* rows whose delta and value are 0 left out */
};

/*
 * The view from reading a (NULL or empty: from zero, the values since each
 * VM started) to b, every VM of b; keep(name, arg) (NULL: all) chooses the
 * statistics shown.
 */
struct kstat_view *kstat_view_new(const struct kstat_schema *s, const struct kstat_reading *a,
				  const struct kstat_reading *b, unsigned flags,
				  bool (*keep)(const char *name, void *arg), void *arg);
void kstat_view_free(struct kstat_view *v);

/* Adds src's values into dst (a sum over VMs: counters, buckets and instants add; peaks: the highest). */
void kstat_sum(const struct kstat_schema *s, uint64_t *dst, const uint64_t *src);

#endif

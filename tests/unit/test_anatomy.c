// SPDX-License-Identifier: GPL-2.0
/*
 * --anatomy on hand-built event streams: each exit -> entry interval split
 * into handling, runnable, blocked, polled, vmm, irq and softirq, every
 * number worked out by hand. The edges: a migration between CPUs inside an
 * interval, preemptions nested in one interval and in its VMM part, a halt
 * that slept and one that only polled, handlers nested in softirqs, an
 * entry never seen, events lost, the clock going back (a wrap) inside an
 * interval; and on every interval of every case, the parts add up to the
 * interval exactly. Then the tables: views, merge in any order, rollups.
 */
#include <stdlib.h>
#include "harness.h"
#include "intern.h"
#include "pair.h"

#define VCPU 10 /* the vCPU thread */
#define HOG  99

static struct stats_table *ex, *ux;
static struct stats_anatomy *ax, *au;
static struct stats_outliers *ox, *ou;
static struct pair *p;

static void setup(void)
{
	ex = stats_table_new();
	ux = stats_table_new();
	ax = stats_anatomy_new();
	au = stats_anatomy_new();
	ox = stats_outliers_new(1000, 0);
	ou = stats_outliers_new(1000, 0);
	p = pair_new(&(struct pair_opts){
	    .exits = ex, .uexits = ux, .outliers = {ox, ou}, .anatomy = {ax, au}});
}

static void teardown(void)
{
	pair_free(p);
	stats_table_free(ex);
	stats_table_free(ux);
	stats_anatomy_free(ax);
	stats_anatomy_free(au);
	stats_outliers_free(ox);
	stats_outliers_free(ou);
}

static void send(struct kes_event e)
{
	if (!e.isa && e.kind != KES_SCHED)
		e.isa = intern("x86_svm");
	pair_event(p, &e);
}

static void kexit(uint64_t ts, int cpu, const char *reason)
{
	send((struct kes_event){.ts = ts, .cpu = cpu, .tid = VCPU, .vcpu = 0, .kind = KES_EXIT,
				.reason = intern(reason)});
}

static void kentry(uint64_t ts, int cpu)
{
	send((struct kes_event){.ts = ts, .cpu = cpu, .tid = VCPU, .vcpu = 0, .kind = KES_ENTRY});
}

static void uexit(uint64_t ts, const char *reason)
{
	send((struct kes_event){.ts = ts, .tid = VCPU, .vcpu = -1, .kind = KES_UEXIT,
				.reason = intern(reason), .isa = intern("userspace")});
}

static void uentry(uint64_t ts)
{
	send((struct kes_event){.ts = ts, .tid = VCPU, .vcpu = -1, .kind = KES_UENTRY,
				.isa = intern("userspace")});
}

static void wakeup_halt(uint64_t ts, uint64_t ns, bool waited)
{
	send((struct kes_event){.ts = ts, .tid = VCPU, .vcpu = -1, .kind = KES_DETAIL,
				.detail = KES_D_HALT, .sub = ns, .value = waited});
}

/* sched_switch prev -> next; state 0 (R), 0x100 (R+: preempted), 1 (S), 2 (D). */
static void sw(uint64_t ts, int cpu, int32_t prev, const char *pcomm, uint64_t state,
	       int32_t next, const char *ncomm)
{
	send((struct kes_event){.ts = ts, .cpu = cpu, .tid = prev, .vcpu = -1, .kind = KES_SCHED,
				.detail = KES_S_SWITCH, .sub = (uint64_t)next, .value = state,
				.reason = intern(ncomm), .isa = intern(pcomm)});
}

static void sched(uint64_t ts, int32_t tid, enum kes_sched what, uint64_t sub, uint64_t value)
{
	send((struct kes_event){.ts = ts, .tid = tid, .vcpu = -1, .kind = KES_SCHED,
				.detail = (uint16_t)what, .sub = sub, .value = value,
				.reason = intern("t")});
}

/* The intervals kept, in time order (each was one timed exit). */
static size_t intervals(struct stats_outliers *o, struct stats_outlier **v)
{
	size_t n = stats_outliers_sorted(o, v);

	for (size_t i = 0; i + 1 < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if ((*v)[j].ts < (*v)[i].ts) {
				struct stats_outlier t = (*v)[i];

				(*v)[i] = (*v)[j];
				(*v)[j] = t;
			}
	return n;
}

/* Every split interval's parts add up to it: the promise the rest rests on. */
static void check_sums(struct stats_outliers *o, const char *what)
{
	struct stats_outlier *v;
	size_t n = stats_outliers_sorted(o, &v);

	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0;

		CHECK(v[i].has_split, "%s: interval %zu has no split", what, i);
		for (int k = 0; k < STATS_NPARTS; k++)
			sum += v[i].split.ns[k];
		if (v[i].split.split)
			CHECK(sum == v[i].ns, "%s: interval at %llu: parts %llu, interval %llu", what,
			      (unsigned long long)v[i].ts, (unsigned long long)sum,
			      (unsigned long long)v[i].ns);
		else
			CHECK(sum == 0, "%s: an unsplit interval has parts", what);
	}
	free(v);
}

static void finish(void)
{
	pair_finish(p);
	check_sums(ox, "kvm_exit");
	check_sums(ou, "userspace");
}

static void expect(const struct stats_outlier *x, uint64_t handling, uint64_t runnable,
		   uint64_t blocked, uint64_t polled, uint64_t vmm, uint64_t irq, uint64_t soft)
{
	const uint64_t want[STATS_NPARTS] = {handling, runnable, blocked, polled, vmm, irq, soft};

	CHECK(x->split.split, "interval at %llu not split", (unsigned long long)x->ts);
	for (int k = 0; k < STATS_NPARTS; k++)
		CHECK(x->split.ns[k] == want[k], "interval at %llu: %s %llu, want %llu",
		      (unsigned long long)x->ts, stats_part_name((enum stats_part)k),
		      (unsigned long long)x->split.ns[k], (unsigned long long)want[k]);
}

static void test_preempted(void)
{
	struct stats_outlier *v;

	setup();
	kexit(100, 0, "npf");
	sw(150, 0, VCPU, "CPU 0/KVM", 0x100, HOG, "kworker/1:2");
	sw(450, 0, HOG, "kworker/1:2", 0, VCPU, "CPU 0/KVM");
	kentry(500, 0);
	finish();
	CHECK(intervals(ox, &v) == 1, "one interval");
	expect(&v[0], 100, 300, 0, 0, 0, 0, 0);
	CHECK_STR(v[0].split.who[0].comm, "kworker/1:2");
	CHECK(v[0].split.who[0].pid == HOG && v[0].split.who[0].ns == 300, "who %d %llu",
	      v[0].split.who[0].pid, (unsigned long long)v[0].split.who[0].ns);
	CHECK(stats_split_dominant(&v[0].split) == STATS_PART_RUNNABLE, "dominant runnable");
	free(v);
	teardown();
}

/* Switched out on CPU 0, migrated, switched in on CPU 1: the preemptor is who took CPU 0. */
static void test_migration(void)
{
	struct stats_outlier *v;

	setup();
	kexit(100, 0, "io");
	sw(200, 0, VCPU, "vcpu", 0, 30, "kworker/0:1");
	sched(300, VCPU, KES_S_MIGRATE, 0, 1);
	sw(700, 1, 0, "swapper/1", 0, VCPU, "vcpu");
	kentry(800, 1);
	finish();
	CHECK(intervals(ox, &v) == 1, "one interval");
	expect(&v[0], 200, 500, 0, 0, 0, 0, 0);
	CHECK_STR(v[0].split.who[0].comm, "kworker/0:1");
	free(v);
	teardown();
}

/*
 * Preemptions nested in one interval, two of them, and one inside the VMM
 * part of an exit that went to userspace (two intervals open at once: the
 * kvm_exit one and the userspace one inside it).
 */
static void test_nested(void)
{
	struct stats_outlier *v;

	setup();
	kexit(0, 0, "cpuid");
	sw(10, 0, VCPU, "vcpu", 0, 50, "a");
	sw(20, 0, 51, "b", 0, VCPU, "vcpu"); /* a let b run before the vCPU: a is who preempted */
	sw(30, 0, VCPU, "vcpu", 0, 52, "c");
	sw(60, 0, 52, "c", 0, VCPU, "vcpu");
	kentry(100, 0);
	finish();
	CHECK(intervals(ox, &v) == 1, "one interval");
	expect(&v[0], 60, 40, 0, 0, 0, 0, 0);
	CHECK_STR(v[0].split.who[0].comm, "c");
	CHECK(v[0].split.who[0].ns == 30, "c: %llu", (unsigned long long)v[0].split.who[0].ns);
	CHECK_STR(v[0].split.who[1].comm, "a");
	CHECK(v[0].split.who[1].ns == 10, "a: %llu", (unsigned long long)v[0].split.who[1].ns);
	free(v);
	teardown();

	setup();
	kexit(1000, 0, "io");
	uexit(1100, "KVM_EXIT_IO");
	sw(1200, 0, VCPU, "vcpu", 0, HOG, "hog");
	sw(1500, 0, HOG, "hog", 0, VCPU, "vcpu");
	sw(1550, 0, VCPU, "vcpu", 1, 0, "swapper/0"); /* the VMM sleeps: its own time */
	sched(1600, VCPU, KES_S_WAKEUP, 0, 0);
	sw(1650, 0, 0, "swapper/0", 0, VCPU, "vcpu");
	uentry(1700);
	kentry(2000, 0);
	finish();
	CHECK(intervals(ox, &v) == 1, "one kvm_exit interval");
	/* handling 1000..1100 and 1700..2000; vmm 1100..1200, 1500..1600; runnable 1200..1500, 1600..1650 */
	expect(&v[0], 400, 350, 0, 0, 200 + 50, 0, 0);
	free(v);
	CHECK(intervals(ou, &v) == 1, "one userspace interval");
	expect(&v[0], 0, 350, 0, 0, 250, 0, 0);
	free(v);
	teardown();
}

static void test_halt(void)
{
	struct stats_outlier *v;

	setup();
	/* slept: polled 150..300, asleep 300..5300, woken, run at 5400, the wake-up traced at 5450 */
	kexit(0, 0, "hlt");
	sw(300, 0, VCPU, "vcpu", 1, 0, "swapper/0");
	sched(5300, VCPU, KES_S_WAKEUP, 0, 0);
	sw(5400, 0, 0, "swapper/0", 0, VCPU, "vcpu");
	wakeup_halt(5450, 5300, true);
	kentry(5500, 0);
	/* polled only: a halt of 300 ns that never slept */
	kexit(6000, 0, "hlt");
	wakeup_halt(6400, 300, false);
	kentry(6500, 0);
	finish();
	CHECK(intervals(ox, &v) == 2, "two intervals");
	expect(&v[0], 150 + 50, 100, 5000, 150 + 50, 0, 0, 0);
	CHECK(v[0].split.halts == 1 && v[0].split.slept == 1, "slept");
	expect(&v[1], 200, 0, 0, 300, 0, 0, 0);
	CHECK(v[1].split.halts == 1 && v[1].split.slept == 0, "polled");
	free(v);
	teardown();
}

static void test_irq(void)
{
	struct stats_outlier *v;

	setup();
	kexit(0, 0, "interrupt");
	sched(100, VCPU, KES_S_IRQ_ENTRY, 25, 0);
	sched(130, VCPU, KES_S_IRQ_EXIT, 25, 0);
	sched(130, VCPU, KES_S_SOFT_ENTRY, 1, 0);
	sched(140, VCPU, KES_S_IRQ_ENTRY, 25, 0); /* a hard handler inside the softirq */
	sched(145, VCPU, KES_S_IRQ_EXIT, 25, 0);
	sched(200, VCPU, KES_S_SOFT_EXIT, 1, 0);
	sched(250, HOG, KES_S_IRQ_ENTRY, 3, 0); /* another thread's: not this one's time */
	kentry(300, 0);
	finish();
	CHECK(intervals(ox, &v) == 1, "one interval");
	expect(&v[0], 200, 0, 0, 0, 0, 35, 65);
	free(v);
	teardown();
}

/* An exit whose entry never comes, an entry with no exit: nothing to split, nothing invented. */
static void test_edges(void)
{
	uint64_t split, unsplit;
	struct stats_outlier *v;

	setup();
	kentry(50, 0);
	kexit(100, 0, "io");
	kentry(200, 0);
	kexit(300, 0, "io");
	sw(310, 0, VCPU, "vcpu", 0, HOG, "hog");
	finish(); /* the trace ends: the last exit has no entry */
	CHECK(intervals(ox, &v) == 1, "one timed interval");
	expect(&v[0], 100, 0, 0, 0, 0, 0, 0);
	free(v);
	stats_anatomy_counts(ax, &split, &unsplit);
	CHECK(split == 1 && unsplit == 0, "split %llu unsplit %llu", (unsigned long long)split,
	      (unsigned long long)unsplit);
	teardown();
}

/* Lost events, contradictions and a clock that goes back: unsplit, never split wrong. */
static void test_unsplit(void)
{
	uint64_t split, unsplit;
	struct stats_outlier *v;

	setup();
	/* events lost inside: pair/ times nothing across a loss */
	kexit(0, 0, "io");
	sw(10, 0, VCPU, "vcpu", 0, HOG, "hog");
	pair_lost(p);
	kentry(100, 0);
	/* switched in while running: its switch out was lost */
	kexit(200, 0, "io");
	sw(250, 0, HOG, "hog", 0, VCPU, "vcpu");
	kentry(300, 0);
	/* a handler's exit whose entry was lost */
	kexit(400, 0, "io");
	sched(410, VCPU, KES_S_IRQ_EXIT, 25, 0);
	kentry(500, 0);
	/* a switch out, then (another CPU's clock behind) its switch in before it */
	kexit(600, 0, "io");
	sw(700, 0, VCPU, "vcpu", 0, HOG, "hog");
	sw(650, 1, HOG, "hog", 0, VCPU, "vcpu");
	kentry(800, 1);
	/* and one that splits, after all that */
	kexit(900, 1, "io");
	kentry(950, 1);
	finish();
	stats_anatomy_counts(ax, &split, &unsplit);
	CHECK(split == 1 && unsplit == 3, "split %llu unsplit %llu", (unsigned long long)split,
	      (unsigned long long)unsplit);
	CHECK(intervals(ox, &v) == 4, "four timed");
	CHECK(!v[0].split.split && !v[1].split.split && !v[2].split.split, "the first three unsplit");
	expect(&v[3], 50, 0, 0, 0, 0, 0, 0);
	free(v);
	teardown();
}

/* A 64-bit clock that wraps inside an interval: the pair times nothing across it, the anatomy neither. */
static void test_wrap(void)
{
	uint64_t split, unsplit;
	struct stats_outlier *v;
	uint64_t top = UINT64_MAX - 1000;

	setup();
	kexit(top, 0, "io");
	kentry(top + 100, 0);
	kexit(top + 200, 0, "io");
	sw(top + 900, 0, VCPU, "vcpu", 0, HOG, "hog");
	sw(5, 0, HOG, "hog", 0, VCPU, "vcpu"); /* wrapped */
	kentry(10, 0);
	kexit(20, 0, "io");
	kentry(70, 0);
	finish();
	CHECK(intervals(ox, &v) >= 1, "timed");
	for (size_t i = 0; i < stats_outliers_seen(ox) && i < 3; i++)
		CHECK(v[i].ns < 1000, "no interval across the wrap: %llu", (unsigned long long)v[i].ns);
	free(v);
	stats_anatomy_counts(ax, &split, &unsplit);
	/* pair/ skips a thread's events until its clock passes where it was: one interval */
	CHECK(split == 1 && unsplit == 0, "split %llu unsplit %llu", (unsigned long long)split,
	      (unsigned long long)unsplit);
	teardown();
}

/* The tables: a view of what was split, merged in any order to the same numbers. */
static void test_tables(void)
{
	struct stats_anatomy *a = stats_anatomy_new(), *b = stats_anatomy_new();
	struct stats_anatomy *ab = stats_anatomy_new(), *ba = stats_anatomy_new();
	struct stats_key k1 = {.name = intern("npf"), .tid = 1, .vcpu = 0};
	struct stats_key k2 = {.name = intern("npf"), .tid = 2, .vcpu = 1};
	struct stats_split s1 = {.split = true, .ns = {100, 300}, .who = {{intern("hog"), 7, 300}}};
	struct stats_split s2 = {.split = true, .ns = {50, 0, 0, 0, 150}};
	struct stats_split s3 = {.split = false};
	struct stats_anatomy_view *v;
	const struct stats_anatomy_row *r;

	stats_anatomy_add(a, &k1, &s1);
	stats_anatomy_add(a, &k1, &s3);
	stats_anatomy_add(b, &k2, &s2);
	stats_anatomy_merge(ab, a);
	stats_anatomy_merge(ab, b);
	stats_anatomy_merge(ba, b);
	stats_anatomy_merge(ba, a);
	v = stats_anatomy_view_new(ab, 0, 1, "ns", STATS_SORT_SUM);
	CHECK(v->nrows == 1, "rows %zu", v->nrows);
	r = stats_anatomy_view_find(v, intern("npf"));
	CHECK(r && r->split == 2 && r->unsplit == 1, "counts");
	CHECK(r && r->sum_ns == 600, "sum %llu", r ? (unsigned long long)r->sum_ns : 0);
	CHECK_NEAR(r->part[STATS_PART_HANDLING].mean, 75, 1e-12);
	CHECK_NEAR(r->part[STATS_PART_RUNNABLE].share, 50, 1e-12);
	CHECK_NEAR(r->part[STATS_PART_VMM].share, 25, 1e-12);
	CHECK(r->dominant == STATS_PART_RUNNABLE, "dominant %d", r->dominant);
	CHECK(v->nwho == 1 && v->who[0].ns == 300 && !strcmp(v->who[0].comm, "hog"), "who");
	CHECK(v->all.split == 2 && v->all.sum_ns == 600, "all");
	stats_anatomy_view_free(v);
	for (int k = 0; k <= STATS_NPARTS; k++) {
		const struct stats_acc *x = stats_anatomy_acc(ab, &k1, (unsigned)k);
		const struct stats_acc *y = stats_anatomy_acc(ba, &k1, (unsigned)k);

		CHECK(x && y && x->count == y->count && x->sum == y->sum && x->s2 == y->s2,
		      "merge order, part %d", k);
	}
	stats_anatomy_free(a);
	stats_anatomy_free(b);
	stats_anatomy_free(ab);
	stats_anatomy_free(ba);
}

/* Without --anatomy the pair is what it was: no split on its outliers. */
static void test_off(void)
{
	struct stats_outlier *v;

	ex = stats_table_new();
	ux = stats_table_new();
	ox = stats_outliers_new(10, 0);
	p = pair_new(&(struct pair_opts){.exits = ex, .uexits = ux, .outliers = {ox}});
	kexit(0, 0, "io");
	sw(10, 0, VCPU, "vcpu", 0, HOG, "hog");
	kentry(100, 0);
	pair_finish(p);
	CHECK(stats_outliers_sorted(ox, &v) == 1 && !v[0].has_split, "no split without --anatomy");
	free(v);
	pair_free(p);
	stats_outliers_free(ox);
	stats_table_free(ex);
	stats_table_free(ux);
}

int main(void)
{
	test_preempted();
	test_migration();
	test_nested();
	test_halt();
	test_irq();
	test_edges();
	test_unsplit();
	test_wrap();
	test_tables();
	test_off();
	return test_summary("test_anatomy");
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pair/: a per-thread state machine over normalized events. Handling time is
 * exit -> next entry on the same thread; time in guest (TIMEINGUEST) is entry
 * -> next exit. Threads, never vcpu ids alone: two VMs both have a vcpu 0.
 * Two machines run side by side on the same events: kvm_exit/kvm_entry, and
 * userspace exits (kvm_userspace_exit -> next KVM_RUN). No I/O.
 */
#ifndef KES_PAIR_H
#define KES_PAIR_H

#include <stdint.h>
#include "event.h"
#include "stats.h"

struct pair;

/*
 * Optional: names the row an exit is counted in (timing buckets). Returns an
 * interned name; `reason` is the exit's own name, `isa` its table's isa.
 */
typedef const char *(*pair_namer_fn)(void *arg, const char *isa, const char *reason,
				     const struct kes_details *d);

struct pair_counts {
	uint64_t exits;	    /* KES_EXIT events seen */
	uint64_t uexits;    /* KES_UEXIT events seen */
	uint64_t untimed;   /* exits with no entry after them (trace edge, lost entry) */
	uint64_t backwards; /* events whose timestamp went back on their thread: skipped */
	/*
	 * Events of no thread (common_pid 0, the idle task, or -1): there is no
	 * thread to pair them on, so they are skipped, and how many said.
	 */
	uint64_t threadless;
	uint64_t threadless_exits; /* of which exits (kvm_exit, userspace): not counted */
};

/*
 * The pair and every view it feeds, set once here (pair_new()): the one
 * place a command's options become the event path's (load.c, split.c,
 * watch.c fill it; nothing is set on a pair after). The pair owns none of
 * the tables; NULL or false: that view off.
 */
struct pair_opts {
	/* samples keyed by (reason, tid, vcpu[, sub]): kvm_exit's, userspace exits' */
	struct stats_table *exits, *uexits;
	/* key exits by their detail sub-key too (MMIO gpa, PIO port...): many keys */
	bool with_sub;
	/*
	 * Key exits by the guest's pc at the exit instead of a detail sub-key
	 * (report --by-guest): events whose table has a `pc` field carry it.
	 */
	bool by_guest;
	/* report --nested: each kvm_exit, with its kvm_nested_* details (stats_nested_exit()) */
	struct stats_nested *nested;
	/* count each exit under namer()'s name instead of its reason (timing buckets) */
	pair_namer_fn namer;
	void *namer_arg;
	/*
	 * Each timed exit of the kvm_exit machine also to outliers[0], each of
	 * the userspace machine to outliers[1] (stats_outliers_add), with its
	 * timestamp, thread, vcpu, row name and sub-key.
	 */
	struct stats_outliers *outliers[2];
	/*
	 * --anatomy: each timed exit split into its parts (stats.h, enum
	 * stats_part), keyed as the exit tables are; outliers carry their
	 * split. The caller's decoder must give KES_SCHED events and the halt's
	 * fields (decode_anatomy(), decode_need_details()).
	 */
	struct stats_anatomy *anatomy[2];
	/* thread_hook(arg, tid) once per thread, at its first event (a split's owner check) */
	void (*thread_hook)(void *arg, int32_t tid);
	void *thread_hook_arg;
};

struct pair *pair_new(const struct pair_opts *o);
void pair_free(struct pair *p);
/* Does a view read detail events' fields (sub-keys, bucket names, outliers)? */
bool pair_reads_details(const struct pair *p);
void pair_event(struct pair *p, const struct kes_event *ev);
/* Events were lost: forget every thread's open exit (counted untimed). */
void pair_lost(struct pair *p);
/*
 * The thread is gone (a live view saw it exit): its open exits are counted
 * untimed now, as no entry will ever close them (a VMM's last exit).
 */
void pair_end_thread(struct pair *p, int32_t tid);
/*
 * The input starts over (a second trace pasted after the first: its clock
 * went back): open exits are counted untimed, nothing pairs across, and each
 * thread's clock starts anew.
 */
void pair_segment(struct pair *p);
/* End of input: open exits are counted untimed. */
void pair_finish(struct pair *p);
void pair_get_counts(const struct pair *p, struct pair_counts *c);
/* Another pair's counts into *to (pairs of disjoint threads, as split.c runs). */
void pair_counts_add(struct pair_counts *to, const struct pair_counts *c);

#endif

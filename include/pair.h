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
 * exits/uexits receive samples keyed by (reason, tid, vcpu[, sub]); the pair
 * does not own them. with_sub: key exits by their detail sub-key too (MMIO
 * gpa, PIO port...), which can make many keys.
 */
struct pair *pair_new(struct stats_table *exits, struct stats_table *uexits, bool with_sub);
/*
 * Key exits by the guest's pc at the exit instead of a detail sub-key
 * (report --by-guest): events whose table has a `pc` field carry it.
 */
void pair_set_by_guest(struct pair *p);
/* report --nested: each kvm_exit, with its kvm_nested_* details, to n (stats_nested_exit()). */
void pair_set_nested(struct pair *p, struct stats_nested *n);
void pair_free(struct pair *p);
/*
 * Each timed exit of the kvm_exit machine also goes to exits, each of the
 * userspace machine to uexits (stats_outliers_add), with its timestamp,
 * thread, vcpu, row name and sub-key. The pair does not own them; NULL: none.
 */
void pair_set_outliers(struct pair *p, struct stats_outliers *exits,
		       struct stats_outliers *uexits);
/*
 * --anatomy: each timed exit of the kvm_exit machine is also split into its
 * parts (stats.h, enum stats_part) into exits, each of the userspace one into
 * uexits, keyed as the exit tables are; outliers carry their split. The
 * caller's decoder must give KES_SCHED events and the halt's fields
 * (decode_anatomy(), decode_need_details()). NULL, NULL: off (the default).
 */
void pair_set_anatomy(struct pair *p, struct stats_anatomy *exits, struct stats_anatomy *uexits);
/* Count each exit under namer()'s name instead of its reason. */
void pair_set_namer(struct pair *p, pair_namer_fn fn, void *arg);
/* fn(arg, tid) once per thread, when an event of it first comes (a split's owner check). */
void pair_set_thread_hook(struct pair *p, void (*fn)(void *arg, int32_t tid), void *arg);
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

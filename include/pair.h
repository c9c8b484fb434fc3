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

#define PAIR_TIMEINGUEST "TIMEINGUEST"

struct pair;

/*
 * What the host did during one exit: the detail events seen between the exit
 * and the next entry on its thread (for userspace exits: between the previous
 * KVM_RUN and the exit). Bit k of mask is set when a detail of kind k (enum
 * kes_detail) was seen; bit k of flags when one of them had its flag set
 * (kvm_mmio: write; kvm_pio: out; ...). sub is the sub-key of the most telling
 * detail (port, gpa, MSR, hypercall nr before fault address before rip).
 * value[k] is the first kind-k detail's raw value (kes_event.value, e.g.
 * kvm_page_fault's error_code); it is meaningful only where mask has bit k,
 * and is not cleared between exits (clearing it would cost every exit).
 */
struct pair_details {
	uint32_t mask;
	uint32_t flags;
	uint64_t sub;	   /* from the most telling detail: see pair.c */
	uint16_t sub_kind; /* enum kes_detail the sub-key came from */
	bool has_sub;
	uint64_t value[KES_D_MAX];
};

/*
 * Optional: names the row an exit is counted in (timing buckets). Returns an
 * interned name; `reason` is the exit's own name, `isa` its table's isa.
 */
typedef const char *(*pair_namer_fn)(void *arg, const char *isa, const char *reason,
				     const struct pair_details *d);

struct pair_counts {
	uint64_t exits;	    /* KES_EXIT events seen */
	uint64_t uexits;    /* KES_UEXIT events seen */
	uint64_t untimed;   /* exits with no entry after them (trace edge, lost entry) */
	uint64_t backwards; /* events whose timestamp went back on their thread: skipped */
};

/*
 * exits/uexits receive samples keyed by (reason, tid, vcpu[, sub]); the pair
 * does not own them. with_sub: key exits by their detail sub-key too (MMIO
 * gpa, PIO port...), which can make many keys.
 */
struct pair *pair_new(struct stats_table *exits, struct stats_table *uexits, bool with_sub);
void pair_free(struct pair *p);
/* Count each exit under namer()'s name instead of its reason. */
void pair_set_namer(struct pair *p, pair_namer_fn fn, void *arg);
void pair_event(struct pair *p, const struct kes_event *ev);
/* Events were lost: forget every thread's open exit (counted untimed). */
void pair_lost(struct pair *p);
/*
 * The thread is gone (a live view saw it exit): its open exits are counted
 * untimed now, as no entry will ever close them (a VMM's last exit).
 */
void pair_end_thread(struct pair *p, int32_t tid);
/* End of input: open exits are counted untimed. */
void pair_finish(struct pair *p);
void pair_get_counts(const struct pair *p, struct pair_counts *c);

#endif

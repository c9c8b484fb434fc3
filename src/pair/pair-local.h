/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to pair/: the anatomy clock of one vCPU thread (anatomy.c), which
 * pair.c drives from the thread's own events and the scheduler's.
 */
#ifndef KES_PAIR_LOCAL_H
#define KES_PAIR_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include "stats.h"

/* The two intervals a thread can have open: kvm_exit -> entry, userspace exit -> KVM_RUN. */
enum { ANAT_X, ANAT_U };

struct anat;

struct anat *anat_new(void);
void anat_free(struct anat *a);

/*
 * An event the thread itself emitted at ts (a KVM event: its common_pid):
 * it holds its CPU, in no interrupt handler. Contradicting what the clock
 * believed (off its CPU, in a handler) breaks the open intervals.
 */
void anat_kvm(struct anat *a, uint64_t ts);
/* Interval which starts at ts (its exit); anat_kvm() at ts came first. */
void anat_open(struct anat *a, int which, uint64_t ts);
/*
 * Interval which ends at ts (its entry, or the next userspace exit): its
 * split is kept for anat_done() until the interval is counted. anat_kvm()
 * (or the scheduler's event) at ts came first.
 */
void anat_close(struct anat *a, int which, uint64_t ts);
/* The split of the interval which closed last. */
const struct stats_split *anat_done(const struct anat *a, int which);
/* The thread is in the VMM (a userspace exit) or back in KVM_RUN. */
void anat_vmm(struct anat *a, bool on);
/* kvm_vcpu_wakeup at ts: a halt of ns that slept or only polled. */
void anat_halt(struct anat *a, uint64_t ts, uint64_t ns, bool waited);
/* sched_switch with the thread as prev: state its prev_state, who took the CPU. */
void anat_switch_out(struct anat *a, uint64_t ts, uint64_t state, const char *comm, int32_t pid);
/* sched_switch with the thread as next: who held the CPU before it. */
void anat_switch_in(struct anat *a, uint64_t ts, const char *comm, int32_t pid);
/* sched_wakeup(_new) of the thread. */
void anat_wakeup(struct anat *a, uint64_t ts);
/* irq_handler_entry/exit (soft false), softirq_entry/exit (soft true) interrupting the thread. */
void anat_irq(struct anat *a, uint64_t ts, bool soft, bool entry);
/* Events were lost, or the thread's clock went back: nothing open can be split, nothing is known. */
void anat_lost(struct anat *a);

#endif

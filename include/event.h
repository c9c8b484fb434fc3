/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The normalized event: what decode/ produces from a raw tracepoint (any ISA,
 * any input format) and pair/ consumes; and what pair/ gathers of an exit
 * (its details), which timing-bucket maps read. Types only, no code.
 */
#ifndef KES_EVENT_H
#define KES_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The row of time in guest: from an entry to the next exit of its thread. */
#define KES_TIMEINGUEST "TIMEINGUEST"
/* The reason of an exit whose event says none (32-bit ARM's "kvm_exit: PC: 0x..."). */
#define KES_ARM32_UNKNOWN "UNKNOWN(no reason printed)"

enum kes_kind {
	KES_EXIT,   /* guest -> host (kvm_exit and its per-ISA twins) */
	KES_ENTRY,  /* host -> guest (kvm_entry ...) */
	KES_UEXIT,  /* KVM_RUN returns to the VMM (kvm_userspace_exit) */
	KES_UENTRY, /* the VMM calls KVM_RUN again (x86: kvm_fpu load) */
	KES_DETAIL, /* what the host did while handling an exit (kvm_mmio, kvm_pio, ...) */
	KES_SCHED,  /* what else the thread's CPU did (--anatomy): enum kes_sched in detail */
};

/*
 * KES_SCHED events: the scheduler's and the interrupt handlers' tracepoints
 * (include/trace/events/sched.h, irq.h), decoded only for --anatomy. Their
 * fields, in the slots of struct kes_event:
 *   KES_S_SWITCH   tid prev_pid, sub next_pid, value prev_state, reason
 *                  next_comm, isa prev_comm (interned; "" when not known)
 *   KES_S_WAKEUP   tid the woken thread (pid, not common_pid: sched_wakeup
 *                  and sched_wakeup_new), reason its comm
 *   KES_S_MIGRATE  tid pid, sub orig_cpu, value dest_cpu
 *   KES_S_IRQ_*    tid common_pid (the thread the handler interrupted),
 *   KES_S_SOFT_*   sub irq or vec
 */
enum kes_sched {
	KES_S_SWITCH,
	KES_S_WAKEUP,
	KES_S_MIGRATE,
	KES_S_IRQ_ENTRY,
	KES_S_IRQ_EXIT,
	KES_S_SOFT_ENTRY,
	KES_S_SOFT_EXIT,
	KES_S_MAX,
};

/*
 * sched_switch's prev_state with none of the bits of a sleep: the thread was
 * preempted, still runnable (TASK_RUNNING, or with the kernel's "+" bit,
 * TASK_REPORT_MAX: 0x100 since 4.14, above every state bit it prints).
 */
#define KES_STATE_SLEEP_MASK 0xffu

/* Detail events, for sub-keys and for timing buckets. */
enum kes_detail {
	KES_D_NONE,
	KES_D_MMIO,    /* sub = gpa */
	KES_D_PIO,     /* sub = port */
	KES_D_EMULATE, /* sub = rip */
	KES_D_HCALL,   /* sub = hypercall nr */
	KES_D_MSR,     /* sub = msr index */
	KES_D_PF,      /* sub = fault address; value = error_code (x86: per exit, see ppc.map) */
	KES_D_HALT,    /* the vCPU blocked until woken (kvm_vcpu_wakeup, book3s HV ceded); no sub-key;
			  kvm_vcpu_wakeup: sub = the halt's ns, value = waited (it slept) */
	/*
	 * x86 nesting (report --nested), no sub-key: the exit was L2's
	 * (kvm_nested_vmexit), L0 reflected it to L1 (kvm_nested_vmexit_inject),
	 * the exit's handling entered L2 (kvm_nested_vmenter, SVM's kvm_nested_vmrun).
	 */
	KES_D_NESTED_EXIT,
	KES_D_NESTED_INJECT,
	KES_D_NESTED_ENTER,
	KES_D_MAX,
	/*
	 * Not a detail event's kind (past KES_D_MAX: no bucket map or data file
	 * names it): what report --by-guest's sub-keys are, the guest's pc.
	 */
	KES_D_PC = KES_D_MAX,
};

#define KES_EXIT_HAS_SUB 1u
#define KES_EXIT_HALT 2u /* the exit is a halt (exit_types `halt`) */
#define KES_EXIT_HAS_PC 4u /* value is the guest's pc at the exit (exit_types `pc`) */

struct kes_event {
	uint64_t ts; /* ns */
	int32_t cpu;
	int32_t tid;   /* common_pid: the vCPU thread */
	int32_t vcpu;  /* vcpu_id when the event carries it, else -1 */
	uint16_t kind; /* enum kes_kind */
	/*
	 * enum kes_detail: for KES_DETAIL its kind; for KES_EXIT / KES_UEXIT a
	 * detail the exit event itself has (exit_types `detail-field`: book3s
	 * HV's ceded); for KES_UEXIT the kind that explains it and gives its
	 * sub-key (`explain`: KVM_EXIT_IO <- pio); else KES_D_NONE.
	 */
	uint16_t detail;
	/*
	 * KES_UEXIT: the detail kind this userspace exit says the thread's
	 * kvm_exit before it was (`detail 6 mmio`: powerpc and riscv trace no
	 * kvm_mmio), or KES_D_NONE.
	 */
	uint16_t implies;
	/*
	 * KES_DETAIL: its flag, 1 when set (MMIO write, PIO out, ...). KES_EXIT:
	 * KES_EXIT_HAS_SUB when sub is the exit's own sub-key (subkey-field).
	 * KES_EXIT and KES_UEXIT: KES_EXIT_HALT when it is a halt (`halt`).
	 * KES_EXIT: KES_EXIT_HAS_PC when value is the guest's pc.
	 */
	uint32_t flags;
	const char *reason; /* interned exit name, for KES_EXIT / KES_UEXIT */
	const char *isa;    /* interned ISA name of the table that decoded it */
	uint64_t sub;	    /* detail sub-key */
	/*
	 * KES_DETAIL: the raw value of the detail's flag field (decode.h),
	 * unmasked. kvm_page_fault's error_code is a #PF error code or a VMX
	 * EPT exit qualification depending on the exit that traced it, so no
	 * fixed flag bit is right for it: bucket maps test its bits per exit.
	 * KES_EXIT with KES_EXIT_HAS_PC: the guest's program counter.
	 */
	uint64_t value;
};

/*
 * One event line of a text trace (tracefs trace, trace-cmd report, perf
 * script), as the text reader hands it to decode/: the line's context and
 * the event's printed payload, which the decoder reads through the event's
 * printed forms (exit_types `form` lines). Pointers into the reader's line.
 */
struct kes_text_rec {
	uint64_t ts; /* ns */
	int32_t cpu; /* -1 when not printed */
	int32_t tid;
	const char *system; /* NULL when not printed (tracefs, trace-cmd) */
	size_t system_len;
	const char *event;
	size_t event_len;
	const char *payload; /* NUL-terminated, leading blanks skipped */
};

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
struct kes_details {
	uint32_t mask;
	uint32_t flags;
	uint64_t sub;	   /* from the most telling detail: see pair.c */
	uint16_t sub_kind; /* enum kes_detail the sub-key came from */
	bool has_sub;
	uint64_t value[KES_D_MAX];
};

#endif

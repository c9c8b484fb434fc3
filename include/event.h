/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The normalized event: what decode/ produces from a raw tracepoint (any ISA,
 * any input format) and pair/ consumes.
 */
#ifndef KES_EVENT_H
#define KES_EVENT_H

#include <stdint.h>

enum kes_kind {
	KES_EXIT,   /* guest -> host (kvm_exit and its per-ISA twins) */
	KES_ENTRY,  /* host -> guest (kvm_entry ...) */
	KES_UEXIT,  /* KVM_RUN returns to the VMM (kvm_userspace_exit) */
	KES_UENTRY, /* the VMM calls KVM_RUN again (x86: kvm_fpu load) */
	KES_DETAIL, /* what the host did while handling an exit (kvm_mmio, kvm_pio, ...) */
};

/* Detail events, for sub-keys and for timing buckets. */
enum kes_detail {
	KES_D_NONE,
	KES_D_MMIO,    /* sub = gpa */
	KES_D_PIO,     /* sub = port */
	KES_D_EMULATE, /* sub = rip */
	KES_D_HCALL,   /* sub = hypercall nr */
	KES_D_MSR,     /* sub = msr index */
	KES_D_PF,      /* sub = fault address; value = error_code (x86: per exit, see ppc.map) */
	KES_D_MAX,
};

struct kes_event {
	uint64_t ts; /* ns */
	int32_t cpu;
	int32_t tid;	    /* common_pid: the vCPU thread */
	int32_t vcpu;	    /* vcpu_id when the event carries it, else -1 */
	uint16_t kind;	    /* enum kes_kind */
	uint16_t detail;    /* enum kes_detail, for KES_DETAIL */
	uint32_t flags;	    /* detail flag: 1 when set (MMIO write, PIO out, ...) */
	const char *reason; /* interned exit name, for KES_EXIT / KES_UEXIT */
	const char *isa;    /* interned ISA name of the table that decoded it */
	uint64_t sub;	    /* detail sub-key */
	/*
	 * KES_DETAIL: the raw value of the detail's flag field (decode.h),
	 * unmasked. kvm_page_fault's error_code is a #PF error code or a VMX
	 * EPT exit qualification depending on the exit that traced it, so no
	 * fixed flag bit is right for it: bucket maps test its bits per exit.
	 */
	uint64_t value;
};

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Detail events: what the host did while it handled an exit. They are the
 * same on every ISA that has them (include/trace/events/kvm.h for kvm_mmio,
 * arch/x86/kvm/trace.h for the rest), so one table serves all.
 */
#include "common.h"
#include "decode.h"

const struct detail_event decode_detail_events[] = {
    /* type: 0 unsatisfied-read, 1 read, 2 write (KVM_TRACE_MMIO_*) */
    {"kvm", "kvm_mmio", KES_D_MMIO, "gpa", "type", 0x2},
    {"kvm", "kvm_fast_mmio", KES_D_MMIO, "gpa", NULL, 0},
    {"kvm", "kvm_pio", KES_D_PIO, "port", "rw", 0x1 /* 1 = write (out) */},
    {"kvm", "kvm_emulate_insn", KES_D_EMULATE, "rip", "failed", 0x1},
    {"kvm", "kvm_hypercall", KES_D_HCALL, "nr", NULL, 0},
    {"kvm", "kvm_msr", KES_D_MSR, "ecx", "write", 0x1},
    /*
     * No flag: error_code is what the caller passed (arch/x86/kvm/trace.h).
     * VMX handle_ept_violation() passes the EPT exit qualification (fetch:
     * bit 2, EPT_VIOLATION_ACC_INSTR); kvm_handle_page_fault() (#PF
     * intercepts) and SVM npf_interception() a #PF error code (fetch: bit 4,
     * PFERR_FETCH_MASK). Bucket maps test its bits per exit:
     * exit_types/ppc.map.
     */
    {"kvm", "kvm_page_fault", KES_D_PF, "fault_address", "error_code", 0},
};
const size_t decode_ndetail_events = ARRAY_SIZE(decode_detail_events);

const char *decode_detail_name(enum kes_detail k)
{
	static const char *const names[KES_D_MAX] = {
	    [KES_D_NONE] = "none",	 [KES_D_MMIO] = "mmio",	      [KES_D_PIO] = "pio",
	    [KES_D_EMULATE] = "emulate", [KES_D_HCALL] = "hypercall", [KES_D_MSR] = "msr",
	    [KES_D_PF] = "page_fault",
	};
	return k < KES_D_MAX ? names[k] : "?";
}

struct seen {
	const char *sys[64], *ev[64];
	size_t n;
};

/* Calls fn unless (system, event) was already given; names are interned, so pointers compare. */
static void once(struct seen *s, const char *sys, const char *ev,
		 void (*fn)(const char *system, const char *event, void *arg), void *arg)
{
	if (!sys || !ev)
		return;
	sys = intern(sys);
	ev = intern(ev);
	for (size_t i = 0; i < s->n; i++)
		if (s->sys[i] == sys && s->ev[i] == ev)
			return;
	if (s->n < ARRAY_SIZE(s->sys)) {
		s->sys[s->n] = sys;
		s->ev[s->n++] = ev;
	}
	fn(sys, ev, arg);
}

void decode_foreach_event(const struct exit_types *types,
			  void (*fn)(const char *system, const char *event, void *arg), void *arg)
{
	struct seen s = {.n = 0};

	for (size_t i = 0; i < types->n; i++) {
		once(&s, types->tables[i].exit_system, types->tables[i].exit_event, fn, arg);
		once(&s, types->tables[i].entry_system, types->tables[i].entry_event, fn, arg);
	}
	for (size_t i = 0; i < decode_ndetail_events; i++)
		once(&s, decode_detail_events[i].system, decode_detail_events[i].event, fn, arg);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen's two halves: the VMM core (exitgen.c: options, the VM and its
 * vCPU threads, the run loop, counting, predictions checked, the report) and
 * one guest per ISA (guest-<isa>.c: the guest's code, its registers, how each
 * exit is recognised and counted, and what a pass must produce). The Makefile
 * links exactly one guest, chosen from the compiler's target, so one binary
 * knows one ISA; the tests and the lab read the same output on every ISA.
 */
#ifndef EXITGEN_H
#define EXITGEN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/kvm.h>

#define EXIT_FAIL  1 /* the guest or the counts were not what we predicted */
#define EXIT_USAGE 2 /* bad option, no /dev/kvm, not permitted */
#define MAX_VCPUS  32u

/*
 * Operations a guest can be asked to make, per vCPU and per pass. Each has an
 * option (--io N ...) and a name in the output ("ops_io N ..."). A guest says
 * which it can make (eg_guest.ops); asking another one is a usage error.
 */
enum eg_op {
	EG_OP_IO,	  /* port write (x86 `out`)                          */
	EG_OP_MMIO,	  /* store to an unmapped guest-physical address        */
	EG_OP_HLT,	  /* halt / wait for interrupt, to userspace or kernel  */
	EG_OP_HCALL,	  /* hypercall answered inside the host kernel          */
	EG_OP_HCALL_USER, /* hypercall the kernel hands to the VMM              */
	EG_OP_PRIV,	  /* a privileged instruction the host emulates         */
	EG_OP_PVCALL,	  /* paravirtual call (ppc PR's `sc 0` magic)           */
	EG_OP_CPUID,	  /* x86 cpuid                                          */
	EG_OP_MSR,	  /* x86 rdmsr of an MSR the kernel emulates            */
	EG_OP_PF,	  /* a fresh guest page touched: one stage-2 fault each */
	EG_NOPS
};

/* KVM_EXIT_* reasons are small integers; room for every one KVM defines. */
#define EG_NEXITS 64

struct eg_opts {
	uint32_t n[EG_NOPS];	   /* per pass, per vCPU */
	unsigned int vcpus, batch; /* batch 0 = no-PV */
	double seconds;		   /* 0 = run the program once */
	unsigned int start_delay_ms;
	bool start_on_usr1; /* after the delay, wait for SIGUSR1 */
	unsigned int pause_us; /* --pause-us: sleep between passes (a paced workload) */
	double give_up;	       /* --give-up: fail a run not ended after this many s (0: wait) */
	bool quiet;
	bool pin; /* --pin: each vCPU thread on one CPU */
	const char *variant; /* --variant: guest-specific setting (NULL: its default) */
	/* --anatomy's workloads (kvm-exitstat report --anatomy checks its split on them): */
	bool hog;		    /* --hog: a thread spinning on vCPU 0's CPU (implies --pin) */
	unsigned int mmio_delay_us; /* --mmio-delay-us: the VMM takes this long per MMIO exit */
	const char *vmm_log;	    /* --vmm-log FILE: each userspace exit's time in the VMM */
	const char *guest_map;	    /* --guest-map FILE: the guest code's System.map */
	unsigned int hlt_us;	    /* --hlt-us: each hlt woken by a timer this long after it */
	bool stats_fd;	     /* --stats-fd: hold KVM_GET_STATS_FD fds open, as QEMU does */
	uint64_t slow_exit;  /* --slow-exit N:US: vCPU 0's N-th userspace exit (1-based; 0: none) */
	unsigned int slow_us; /* ... is handled US microseconds late */
	enum eg_inject { INJ_NONE, INJ_PORT, INJ_READ, INJ_HLT } inject;
};

struct eg_counts {
	uint64_t ops[EG_NOPS];	   /* work done, as the VMM (or the guest) counted it */
	uint64_t exits[EG_NEXITS]; /* userspace exits by KVM_EXIT_* reason */
	uint64_t passes;
	uint64_t vmm_ns[EG_NEXITS]; /* --mmio-delay-us, --vmm-log: time in the VMM by reason */
};

/* --vmm-log: one userspace exit's time in the VMM, by exitgen's own clock. */
struct eg_vmm_rec {
	uint64_t ns;
	uint32_t reason;
};

struct eg_vm;

/*
 * --guest-map: where each part of the generated guest code starts, as the
 * exit tracepoints report the guest's pc. A symbol ends where the next one
 * starts (System.map has no sizes), so a guest marks every part it emits.
 */
struct eg_sym {
	uint64_t pc;
	const char *name; /* a string literal: "eg_io", "eg_done", ... */
};

struct eg_map {
	struct eg_sym *sym;
	size_t n, cap;
};

struct eg_vcpu {
	unsigned int id;
	int fd;
	int stats_fd; /* --stats-fd: this vCPU's KVM_GET_STATS_FD, else -1 */
	struct kvm_run *run;
	pid_t tid;
	pthread_t thread;
	uint8_t *win; /* host view of this vCPU's part of guest RAM (the guest's choice) */
	pthread_barrier_t *gate;
	struct eg_vm *vm;
	struct eg_counts n;
	uint64_t nreturns; /* KVM_RUN returns, for --slow-exit */
	int slow_reason;   /* the slowed exit's KVM_EXIT_* (-1: none yet) */
	void *priv; /* the guest's own per-vCPU state */
	struct eg_vmm_rec *vlog; /* --vmm-log's records, written at the end */
	size_t nvlog, capvlog;
};

struct eg_vm {
	int kvm_fd, vm_fd;
	int stats_fd; /* --stats-fd: the VM's KVM_GET_STATS_FD, else -1 */
	size_t run_size;
	uint8_t *mem; /* guest RAM, eg_guest.mem_size bytes at eg_guest.mem_gpa */
	struct eg_vcpu *vcpus;
	pthread_barrier_t gate;
	atomic_uint started; /* vCPUs whose first KVM_RUN has returned (see vcpu_main) */
	struct eg_map map;   /* every vCPU's code, marked by the guest as it emits it */
};

/* What a guest's exit handler tells the run loop. */
enum eg_step {
	EG_CONTINUE,  /* call KVM_RUN again */
	EG_PASS_DONE, /* the guest ended a pass: the core decides whether to go on */
};

struct eg_guest {
	const char *isa; /* printed in the header: "x86", "arm64", ... */
	uint32_t ops;	 /* 1u << EG_OP_* this guest can make */
	bool pv;	 /* supports --mode pv */
	uint64_t mem_gpa;
	size_t mem_size;
	/* Extra lines for --help (the guest's addresses, ports, variants). */
	const char *usage;
	/* Refuse option combinations this guest cannot make (die(EXIT_USAGE, ...)). May be NULL. */
	void (*check)(const struct eg_opts *o);
	/* KVM_CREATE_VM's argument (the VM type). */
	unsigned long (*vm_type)(const struct eg_opts *o);
	/* After KVM_CREATE_VM and guest RAM: per-VM setup. May be NULL. */
	void (*vm_init)(struct eg_vm *vm, const struct eg_opts *o);
	/* After KVM_CREATE_VCPU and the kvm_run mmap: code, registers, v->win. */
	void (*vcpu_init)(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o);
	/* In the vCPU thread, before the start gate (signal masks, timers). May be NULL. */
	void (*vcpu_thread_init)(struct eg_vcpu *v, const struct eg_opts *o);
	/* Count and validate one exit (die(EXIT_FAIL, ...) on a surprise). */
	enum eg_step (*handle_exit)(struct eg_vcpu *v, const struct eg_opts *o);
	/*
	 * The userspace exits one pass must produce, per vCPU (its ops are
	 * what was asked, o->n, checked by the core). Exits whose number the
	 * guest cannot know (signals that woke a wfi) are left out of *exact
	 * and only reported.
	 */
	void (*predict)(const struct eg_opts *o, struct eg_counts *per_pass, uint64_t *exact);
	/*
	 * In the vCPU thread, between a pass and the next one (never after the
	 * last): undo what a pass left behind. May be NULL.
	 */
	void (*next_pass)(struct eg_vcpu *v, const struct eg_opts *o);
	/*
	 * --hlt-us: the guest can wake each halt with a timer of its own (an
	 * in-kernel interrupt controller: the halts never reach the VMM).
	 */
	bool hlt_timer;
	/* After the vCPU stopped: read counts the guest kept itself. May be NULL. */
	void (*finish)(struct eg_vcpu *v, const struct eg_opts *o);
};

/* The one guest linked into this binary (guest-<isa>.c). */
extern const struct eg_guest eg_guest;

void __attribute__((noreturn, format(printf, 2, 3))) die(int code, const char *fmt, ...);
/* The KVM_EXIT_* name of a reason, or "KVM_EXIT_?". */
const char *eg_exit_name(uint32_t reason);
/*
 * Code generation: symbol NAME (a string literal) starts at guest pc PC. A
 * mark at the pc of the one made just before replaces it (that part emitted
 * nothing); marks equal in pc and name (vCPUs sharing offsets) are written once.
 */
void eg_map_mark(struct eg_map *m, const char *name, uint64_t pc);
/* die(EXIT_FAIL) naming an exit the guest did not expect. */
void __attribute__((noreturn)) eg_bad_exit(const struct eg_vcpu *v);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen's ppc64 guest (book3s, KVM HV or PR): big-endian 64-bit real-mode
 * code generated for the requested counts, one 64 KiB window of RAM per vCPU.
 *
 * Big endian, because an interrupt is taken in the endianness of LPCR[ILE]
 * (HV) or the vCPU's interrupt MSR (PR), both big-endian unless the VMM
 * changes them: the program and its interrupt stubs then agree without
 * further setup. Real mode (MSR[IR,DR] = 0), so no page tables: a store to a
 * guest-physical address outside RAM is MMIO under HV (radix partition
 * scope, H_DATA_STORAGE) and under PR (shadow real-mode map, DATA_STORAGE).
 *
 * Sources (Linux 6.1 / 6.12, arch/powerpc/kvm/): the `sc 1` hypercalls HV
 * answers in the kernel are kvmppc_pseries_do_hcall() (book3s_hv.c), PR's
 * kvmppc_h_pr() (book3s_pr_papr.c); PR's `sc 0` with r0 = KVM_SC_MAGIC_R0 is
 * kvmppc_kvm_pv() (powerpc.c), reached from kvmppc_handle_exit_pr()
 * (book3s_pr.c); under HV an `sc 0` is the guest's own system call and
 * never leaves it, so --pvcall is PR only. Both need KVM_CAP_PPC_PAPR on
 * the vCPU (HV refuses to run without it: kvmppc_sanity_check()).
 *
 * Halts are H_CEDE: the vCPU sleeps in the kernel until an interrupt or a
 * signal (HV: kvmhv_run_single_vcpu(); PR: kvm_vcpu_halt()). There is no
 * irqchip, so each vCPU thread has a periodic timer signal (only with
 * --hlt): each signal that finds the thread in KVM_RUN ends it with EINTR
 * (KVM_EXIT_INTR, counted but not predicted). H_CEDE also sets MSR[EE]; from
 * then on a pending guest decrementer would be delivered, so the vector at
 * 0x900 rearms it (mtdec) and returns (rfid), both native under HV.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "exitgen.h"

/*
 * Guest-physical layout. RAM is [0, MEM_SIZE): the interrupt vectors at
 * 0x100..0xfff hold stubs that report the vector through TRAP and stop
 * (but the decrementer at 0x900: see the top);
 * vCPU i owns the 64 KiB window at WIN_BASE + i * WIN_SIZE (64 KiB: the
 * host's page size on Debian ppc64el), its code at the start and the
 * counts the guest keeps itself at COUNT_OFF. The device is far above RAM.
 */
#define MEM_SIZE  0x400000u
#define WIN_BASE  0x10000u
#define WIN_SIZE  0x10000u
#define CODE_MAX  0x4000u
#define COUNT_OFF 0x4000u /* below 0x8000: a signed 16-bit displacement */
_Static_assert(WIN_BASE + MAX_VCPUS * WIN_SIZE <= MEM_SIZE, "vCPU windows must fit in RAM");
_Static_assert(CODE_MAX <= COUNT_OFF && COUNT_OFF + 64 <= 0x8000u,
	       "code, then counts in reach of a displacement");

#define DEV_GPA	 0x40000000u /* the "device": unmapped, every store is KVM_EXIT_MMIO */
#define MMIO_OFF 0x10u	     /* the register the mmio ops write (1 byte) */
#define DONE_OFF 0x100u	     /* end of a pass (1 byte) */
#define TRAP_OFF 0x200u	     /* an interrupt stub writes its vector here (4 bytes) */
#define MMIO_GPA (DEV_GPA + MMIO_OFF)
#define DONE_GPA (DEV_GPA + DONE_OFF)
#define TRAP_GPA (DEV_GPA + TRAP_OFF)
_Static_assert(MEM_SIZE <= DEV_GPA, "the device must not be RAM");

/* PAPR hypercalls (arch/powerpc/include/asm/hvcall.h) and the KVM PV call. */
#define H_SUCCESS	0
#define H_CONFER	0xe4	    /* HV, in the kernel: target -1 is a no-op */
#define H_SET_MODE	0x31c	    /* PR, in the kernel: resource 3, mflags 0 */
#define H_SET_MODE_AIL	3	    /* H_SET_MODE_RESOURCE_ADDR_TRANS_MODE */
#define H_GET_TERM_CHAR 0x54	    /* to the VMM on both (KVM_EXIT_PAPR_HCALL) */
#define H_CEDE		0xe0	    /* the halt: in the kernel on both */
#define DEC_MAX		0x7fffffffu /* the decrementer the 0x900 vector rearms (4 s) */
#define PERIOD_US	1000	    /* the H_CEDE wake-up timer */
#define KVM_SC_MAGIC_R0 0x4b564d21u /* "KVM!", asm/kvm_para.h */
#define KVM_HC_FEATURES 0x2a0003u   /* KVM_HCALL_TOKEN(KVM_HC_FEATURES): vendor 42, nr 3 */
#define MSR_SF		(1ull << 63)
#define MSR_ME		(1ull << 12)
#define VM_TYPE_DEFAULT 0 /* the kernel's choice: HV when kvm-hv is loaded */
#define VM_TYPE_HV	1 /* KVM_VM_PPC_HV */
#define VM_TYPE_PR	2 /* KVM_VM_PPC_PR */

/* Registers the program keeps across hypercalls (r14-r31 are non-volatile). */
enum {
	R_DEC = 14, /* DEC_MAX, for the decrementer vector: it may clobber nothing */
	R_LOOP = 15,
	R_HCALL = 20,
	R_PRIV = 22,
	R_PVCALL = 23,
	R_HLT = 24,
	R_DEV = 30,
	R_WIN = 31
};
/* Where the guest stores its own counts (big-endian u64), per window. */
enum { C_HCALL, C_PRIV, C_PVCALL, C_HLT, C_N };

enum variant { V_UNKNOWN, V_HV, V_PR };
static enum variant g_variant; /* set in vm_init, read-only after it */

static enum variant variant_of(const struct eg_opts *o)
{
	if (!o->variant)
		return V_UNKNOWN;
	if (!strcmp(o->variant, "hv"))
		return V_HV;
	if (!strcmp(o->variant, "pr"))
		return V_PR;
	die(EXIT_USAGE, "--variant: '%s' is neither hv nor pr", o->variant);
}

/* ---- guest code generation (64-bit big-endian instruction words) -------- */

struct code {
	uint32_t *buf; /* guest RAM */
	size_t len;    /* in words */
	size_t max;
	struct eg_map *map; /* --guest-map */
	uint64_t pc0;	    /* the guest-physical address of buf[0]: the pc in real mode */
};

/*
 * The next instructions are symbol NAME's. A store or a privileged
 * instruction reports its own address, an `sc` the next one (SRR0/HSRR0):
 * every `sc` here is followed by code of the same loop.
 */
static void sym(struct code *c, const char *name)
{
	eg_map_mark(c->map, name, c->pc0 + 4 * c->len);
}

static void emit(struct code *c, uint32_t insn)
{
	if (c->len >= c->max)
		die(EXIT_FAIL, "internal: guest code larger than %zu words", c->max);
	c->buf[c->len++] = htobe32(insn);
}

#define D(r)   ((uint32_t)(r) << 21)
#define A(r)   ((uint32_t)(r) << 16)
#define IMM(v) ((uint32_t)(v)&0xffffu)

static void li(struct code *c, int rd, int16_t v)
{
	emit(c, 0x38000000u | D(rd) | IMM(v));
}
static void addi(struct code *c, int rd, int ra, int16_t v)
{
	emit(c, 0x38000000u | D(rd) | A(ra) | IMM(v));
}
static void ori(struct code *c, int ra, int rs, uint16_t v)
{
	emit(c, 0x60000000u | D(rs) | A(ra) | v);
}
static void oris(struct code *c, int ra, int rs, uint16_t v)
{
	emit(c, 0x64000000u | D(rs) | A(ra) | v);
}
static void stb(struct code *c, int rs, int16_t d, int ra)
{
	emit(c, 0x98000000u | D(rs) | A(ra) | IMM(d));
}
static void stw(struct code *c, int rs, int16_t d, int ra)
{
	emit(c, 0x90000000u | D(rs) | A(ra) | IMM(d));
}
static void std_(struct code *c, int rs, int16_t d, int ra)
{
	emit(c, 0xf8000000u | D(rs) | A(ra) | (IMM(d) & ~3u));
}
static void cmpdi0(struct code *c, int ra)
{
	emit(c, 0x2c200000u | A(ra));
} /* cmpdi cr0, ra, 0 */
static void sc(struct code *c, int lev)
{
	emit(c, 0x44000002u | (uint32_t)lev << 5);
}
static void mfmsr(struct code *c, int rd)
{
	emit(c, 0x7c0000a6u | D(rd));
}
static void andi_(struct code *c, int ra, int rs, uint16_t v)
{
	emit(c, 0x70000000u | D(rs) | A(ra) | v);
}

/* rd = v, any 32-bit unsigned value (li sign-extends, so build it from 0). */
static void load32(struct code *c, int rd, uint32_t v)
{
	li(c, rd, 0);
	if (v >> 16)
		oris(c, rd, rd, v >> 16);
	if (v & 0xffff)
		ori(c, rd, rd, v & 0xffff);
}

/* Branches to a word index of the same code. */
static void b_to(struct code *c, size_t to)
{
	emit(c, 0x48000000u | ((uint32_t)((int32_t)(to - c->len) * 4) & 0x03fffffcu));
}
static void bne_to(struct code *c, size_t to)
{
	emit(c, 0x40820000u | ((uint32_t)((int32_t)(to - c->len) * 4) & 0xfffcu));
}

/* if r3 == H_SUCCESS, counter++: the guest's own proof the call was answered. */
static void count_success(struct code *c, int counter)
{
	cmpdi0(c, 3);
	emit(c, 0x40820008u); /* bne +8 */
	addi(c, counter, counter, 1);
}

/* Each op of a loop: what it emits once. */
typedef void (*body_fn)(struct code *c);

static void body_mmio(struct code *c)
{
	stb(c, 0, MMIO_OFF, R_DEV);
}

static void body_hcall_hv(struct code *c)
{
	li(c, 3, H_CONFER);
	li(c, 4, -1);
	sc(c, 1);
	count_success(c, R_HCALL);
}

static void body_hcall_pr(struct code *c)
{
	li(c, 3, H_SET_MODE);
	li(c, 4, 0);
	li(c, 5, H_SET_MODE_AIL);
	sc(c, 1);
	count_success(c, R_HCALL);
}

static void body_hcall_user(struct code *c)
{
	li(c, 3, H_GET_TERM_CHAR);
	li(c, 4, 0);
	sc(c, 1);
}

/* mfmsr: privileged, so PR emulates it (a PROGRAM exit); HV runs it natively. */
static void body_priv(struct code *c)
{
	mfmsr(c, 5);
	andi_(c, 6, 5, (uint16_t)MSR_ME); /* the guest's MSR has ME: the value is real */
	emit(c, 0x41820008u);		  /* beq +8 */
	addi(c, R_PRIV, R_PRIV, 1);
}

/*
 * Every return from H_CEDE counts: PR's kvmppc_h_pr() leaves r3 as it was
 * (H_CEDE, measured), where HV writes H_SUCCESS, so r3 proves nothing here.
 */
static void body_hlt(struct code *c)
{
	li(c, 3, H_CEDE);
	sc(c, 1);
	addi(c, R_HLT, R_HLT, 1);
}

static void body_pvcall(struct code *c)
{
	load32(c, 0, KVM_SC_MAGIC_R0);
	load32(c, 11, KVM_HC_FEATURES);
	sc(c, 0);
	count_success(c, R_PVCALL);
}

/* n x body, counted down in R_LOOP (addic. sets cr0 from the 64-bit result). */
static void emit_loop(struct code *c, uint32_t n, body_fn body, const char *name)
{
	size_t top;

	if (!n)
		return;
	sym(c, name);
	load32(c, R_LOOP, n);
	top = c->len;
	body(c);
	emit(c, 0x34000000u | D(R_LOOP) | A(R_LOOP) | IMM(-1)); /* addic. r15, r15, -1 */
	bne_to(c, top);
}

/* A deliberate mistake, so that tests can see the VMM catch it. */
static void emit_inject(struct code *c, enum eg_inject what)
{
	if (what == INJ_READ)
		emit(c, 0x88000000u | D(5) | A(R_DEV) | MMIO_OFF); /* lbz r5, MMIO_OFF(r30) */
	else if (what == INJ_PORT)
		stb(c, 0, MMIO_OFF + 1, R_DEV); /* a store to the wrong register */
	else if (what == INJ_HLT)
		body_hlt(c); /* one halt more than asked for */
}

/*
 * One pass: mmio stores, in-kernel hcalls, hcalls to the VMM, privileged
 * instructions, PV calls, halts; then the guest's counts are stored to its window
 * and the done store ends the pass. The counters live in registers the
 * hypercalls preserve, so they keep counting across passes.
 */
static void gen_guest(struct code *c, const struct eg_opts *o)
{
	sym(c, "eg_start");
	emit_inject(c, o->inject);
	emit_loop(c, o->n[EG_OP_MMIO], body_mmio, "eg_mmio");
	emit_loop(c, o->n[EG_OP_HCALL], g_variant == V_PR ? body_hcall_pr : body_hcall_hv,
		  "eg_hcall");
	emit_loop(c, o->n[EG_OP_HCALL_USER], body_hcall_user, "eg_hcall_user");
	emit_loop(c, o->n[EG_OP_PRIV], body_priv, "eg_priv");
	emit_loop(c, o->n[EG_OP_PVCALL], body_pvcall, "eg_pvcall");
	emit_loop(c, o->n[EG_OP_HLT], body_hlt, "eg_hlt");
	sym(c, "eg_done");
	std_(c, R_HCALL, COUNT_OFF + 8 * C_HCALL, R_WIN);
	std_(c, R_HLT, COUNT_OFF + 8 * C_HLT, R_WIN);
	std_(c, R_PRIV, COUNT_OFF + 8 * C_PRIV, R_WIN);
	std_(c, R_PVCALL, COUNT_OFF + 8 * C_PVCALL, R_WIN);
	stb(c, 0, DONE_OFF, R_DEV);
	b_to(c, 0);
}

/*
 * Every interrupt vector (0x100..0xf80, 32 bytes apart, HV and PR ones)
 * reports its number through a 4-byte store to TRAP and spins: an
 * interrupt the guest did not ask for becomes one clear failure in the VMM
 * instead of a run into zeroed memory.
 */
static void gen_vectors(uint8_t *mem, struct eg_map *map)
{
	for (uint32_t vec = 0x100; vec < 0x1000; vec += 0x20) {
		struct code c = {.buf = (uint32_t *)(mem + vec), .max = 8, .map = map, .pc0 = vec};

		/* --guest-map: eg_irq is the decrementer's, eg_trap the failing stubs around it */
		if (vec == 0x100 || vec == 0x920)
			sym(&c, "eg_trap");
		if (vec == 0x900) { /* decrementer: rearm, return (see the top) */
			sym(&c, "eg_irq");
			emit(&c, 0x7c1603a6u | D(R_DEC)); /* mtdec r14 */
			emit(&c, 0x4c000024u);		  /* rfid */
			continue;
		}
		emit(&c, 0x3c800000u | (DEV_GPA >> 16)); /* lis r4, DEV_GPA@h */
		li(&c, 3, (int16_t)vec);
		stw(&c, 3, TRAP_OFF, 4);
		b_to(&c, c.len); /* b . */
	}
}

/* ---- VM and vCPU setup ------------------------------------------------ */

static void check(const struct eg_opts *o)
{
	if (variant_of(o) == V_HV && o->n[EG_OP_PVCALL])
		die(EXIT_USAGE, "--pvcall: `sc 0` PV calls are KVM PR's (--variant pr); "
				"under HV the guest would take its own system call");
}

static unsigned long vm_type(const struct eg_opts *o)
{
	switch (variant_of(o)) {
	case V_HV:
		return VM_TYPE_HV;
	case V_PR:
		return VM_TYPE_PR;
	default:
		return VM_TYPE_DEFAULT;
	}
}

/* KVM_CAP_PPC_GET_PVINFO is PR's alone (powerpc.c: "We support this only for PR"). */
static void vm_init(struct eg_vm *vm, const struct eg_opts *o)
{
	int pr = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PPC_GET_PVINFO);

	if (pr < 0)
		die(EXIT_USAGE, "KVM_CHECK_EXTENSION: %s", strerror(errno));
	g_variant = pr ? V_PR : V_HV;
	if (variant_of(o) != V_UNKNOWN && variant_of(o) != g_variant)
		die(EXIT_USAGE, "--variant %s: KVM made a %s VM", o->variant,
		    g_variant == V_PR ? "PR" : "HV");
	if (g_variant == V_HV && o->n[EG_OP_PVCALL])
		die(EXIT_USAGE, "--pvcall: this is a KVM HV VM; PV calls need --variant pr");
	gen_vectors(vm->mem, &vm->map);
}

static void enable_papr(const struct eg_vcpu *v)
{
	struct kvm_enable_cap cap = {.cap = KVM_CAP_PPC_PAPR};

	if (ioctl(v->fd, KVM_ENABLE_CAP, &cap) < 0)
		die(EXIT_USAGE, "KVM_ENABLE_CAP(KVM_CAP_PPC_PAPR): %s", strerror(errno));
}

static void setup_regs(struct eg_vcpu *v, uint64_t win_gpa)
{
	struct kvm_regs regs;

	if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0)
		die(EXIT_USAGE, "KVM_GET_REGS: %s", strerror(errno));
	memset(regs.gpr, 0, sizeof(regs.gpr));
	regs.pc = win_gpa;
	regs.msr = MSR_SF | MSR_ME; /* 64-bit, big-endian, real mode, EE off */
	regs.gpr[R_WIN] = win_gpa;
	regs.gpr[R_DEV] = DEV_GPA;
	regs.gpr[R_DEC] = DEC_MAX;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_USAGE, "KVM_SET_REGS: %s", strerror(errno));
}

static void vcpu_init(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o)
{
	uint64_t win_gpa = WIN_BASE + (uint64_t)v->id * WIN_SIZE;
	struct code c = {.max = CODE_MAX / 4, .map = &vm->map, .pc0 = win_gpa};

	v->win = vm->mem + win_gpa;
	c.buf = (uint32_t *)v->win;
	gen_guest(&c, o);
	enable_papr(v);
	setup_regs(v, win_gpa);
}

static void on_tick(int sig)
{
	(void)sig; /* its only job: make KVM_RUN return (EINTR) */
}

/* The H_CEDE wake-up: a periodic SIGUSR1 to this thread only. */
static void vcpu_thread_init(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct sigaction sa = {.sa_handler = on_tick}; /* no SA_RESTART */
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec its = {{0, PERIOD_US * 1000L}, {0, PERIOD_US * 1000L}};
	timer_t *timer;

	if (!o->n[EG_OP_HLT] && o->inject != INJ_HLT)
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die(EXIT_USAGE, "sigaction: %s", strerror(errno));
	timer = malloc(sizeof(*timer));
	if (!timer)
		die(EXIT_USAGE, "out of memory");
	sev._sigev_un._tid = gettid(); /* sigev_notify_thread_id: glibc 2.36 lacks the name */
	if (timer_create(CLOCK_MONOTONIC, &sev, timer) < 0 ||
	    timer_settime(*timer, 0, &its, NULL) < 0)
		die(EXIT_USAGE, "timer_create: %s", strerror(errno));
	v->priv = timer;
}

/* ---- exits ------------------------------------------------------------ */

static enum eg_step handle_mmio(struct eg_vcpu *v, const struct eg_opts *o)
{
	const struct kvm_run *r = v->run;
	uint64_t gpa = r->mmio.phys_addr;

	if (r->mmio.is_write && r->mmio.len == 4 && gpa == TRAP_GPA)
		die(EXIT_FAIL, "vcpu %u: the guest took interrupt 0x%x", v->id,
		    be32toh(*(const uint32_t *)r->mmio.data));
	if (!r->mmio.is_write || r->mmio.len != 1 || (gpa != MMIO_GPA && gpa != DONE_GPA))
		die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_MMIO: %s gpa 0x%" PRIx64 " len %u",
		    v->id, r->mmio.is_write ? "write" : "read", gpa, r->mmio.len);
	if (gpa == DONE_GPA)
		return EG_PASS_DONE;
	v->n.ops[EG_OP_MMIO]++;
	return EG_CONTINUE;
}

static enum eg_step handle_hcall(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct kvm_run *r = v->run;

	if (r->papr_hcall.nr != H_GET_TERM_CHAR || r->papr_hcall.args[0] != 0)
		die(EXIT_FAIL,
		    "vcpu %u: unexpected KVM_EXIT_PAPR_HCALL 0x%" PRIx64 " (arg 0x%" PRIx64 ")",
		    v->id, (uint64_t)r->papr_hcall.nr, (uint64_t)r->papr_hcall.args[0]);
	/* No character waiting: r3 = H_SUCCESS, r4 (length) = 0. */
	r->papr_hcall.ret = H_SUCCESS;
	r->papr_hcall.args[0] = 0;
	v->n.ops[EG_OP_HCALL_USER]++;
	return EG_CONTINUE;
}

static enum eg_step handle_exit(struct eg_vcpu *v, const struct eg_opts *o)
{
	switch (v->run->exit_reason) {
	case KVM_EXIT_MMIO:
		return handle_mmio(v, o);
	case KVM_EXIT_PAPR_HCALL:
		return handle_hcall(v, o);
	default:
		eg_bad_exit(v);
	}
}

/* The in-kernel operations, as the guest counted them (it stored them before "done"). */
static void finish(struct eg_vcpu *v, const struct eg_opts *o)
{
	uint64_t cnt[C_N];
	timer_t *timer = v->priv;

	if (timer) {
		timer_delete(*timer);
		free(timer);
		v->priv = NULL;
	}
	memcpy(cnt, v->win + COUNT_OFF, sizeof(cnt));
	v->n.ops[EG_OP_HCALL] = be64toh(cnt[C_HCALL]);
	v->n.ops[EG_OP_PRIV] = be64toh(cnt[C_PRIV]);
	v->n.ops[EG_OP_PVCALL] = be64toh(cnt[C_PVCALL]);
	v->n.ops[EG_OP_HLT] = be64toh(cnt[C_HLT]);
}

/* ---- predictions ------------------------------------------------------ */

static void predict(const struct eg_opts *o, struct eg_counts *p, uint64_t *exact)
{
	/* KVM_EXIT_INTR: one per timer signal that found the thread in KVM_RUN. */
	p->exits[KVM_EXIT_MMIO] = (uint64_t)o->n[EG_OP_MMIO] + 1;
	p->exits[KVM_EXIT_PAPR_HCALL] = o->n[EG_OP_HCALL_USER];
	*exact = 1ull << KVM_EXIT_MMIO | 1ull << KVM_EXIT_PAPR_HCALL;
}

const struct eg_guest eg_guest = {
    .isa = "ppc64",
    .ops = 1u << EG_OP_MMIO | 1u << EG_OP_HCALL | 1u << EG_OP_HCALL_USER | 1u << EG_OP_PRIV |
	   1u << EG_OP_PVCALL | 1u << EG_OP_HLT,
    .pv = false,
    .mem_gpa = 0,
    .mem_size = MEM_SIZE,
    .usage =
	"ppc64 guest (book3s, KVM HV or PR): 64-bit big-endian real mode.\n"
	"  --mmio N        N x 1-byte store to gpa 0x40000010 (KVM_EXIT_MMIO)\n"
	"  --hcall N       N x `sc 1` the kernel answers: H_CONFER(-1) under HV,\n"
	"                  H_SET_MODE(AIL, 0) under PR; counted by the guest (r3 = H_SUCCESS)\n"
	"  --hcall-user N  N x `sc 1` H_GET_TERM_CHAR       (KVM_EXIT_PAPR_HCALL)\n"
	"  --priv N        N x `mfmsr`: PR emulates it (a PROGRAM exit), HV runs it\n"
	"                  natively; counted by the guest\n"
	"  --pvcall N      PR only: N x `sc 0` with r0 = KVM_SC_MAGIC_R0, r11 =\n"
	"                  KVM_HC_FEATURES (kvmppc_kvm_pv()); counted by the guest\n"
	"  --hlt N         N x `sc 1` H_CEDE, each woken by a 1 ms timer signal to its\n"
	"                  vCPU (KVM_EXIT_INTR, not predicted); counted by the guest\n"
	"  --variant hv|pr KVM_VM_PPC_HV or KVM_VM_PPC_PR; default: the kernel's\n"
	"                  choice (VM type 0), told apart by KVM_CAP_PPC_GET_PVINFO\n"
	"\n"
	"Each pass ends with a 1-byte store to gpa 0x40000100 (the done exit), so per\n"
	"vCPU per pass: KVM_EXIT_MMIO = mmio + 1, KVM_EXIT_PAPR_HCALL = hcall-user.\n"
	"An interrupt the guest takes (its vectors report through gpa 0x40000200)\n"
	"fails the run.\n"
	"--guest-map: guest-physical pcs (the exit tracepoints' pc), each vCPU's own\n"
	"copy; the vectors: eg_irq the decrementer's at 0x900, eg_trap the others.\n",
    .check = check,
    .vm_type = vm_type,
    .vm_init = vm_init,
    .vcpu_init = vcpu_init,
    .vcpu_thread_init = vcpu_thread_init,
    .handle_exit = handle_exit,
    .predict = predict,
    .finish = finish,
};
